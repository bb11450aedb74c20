"""Results of one run: tables (pandas) built from the engine's columns, and the results
JSON as an export.

The schema is "Results JSON" in docs/architecture.md. DataFrame columns are the JSON keys,
in the engine's order; a nested object becomes one column per key, named ``a.b``
(``drops_by_reason.overflow``), as in a sweep's database; lists stay lists.

The native module hands a run's results over as columns (crates/ccsim-engine/src/results/
columns.rs, ``columns_to_py`` in crates/ccsim-py): integer and float columns as
native-endian byte buffers read with ``numpy.frombuffer``, strings dictionary-encoded
(a list of ``str`` and ``uint32`` codes; names as codes into dictionaries the columns
share: node, flow, link and channel names, each split into ``str`` once), and the
scalars as a small JSON object.
``_Columns`` keeps them; the JSON dict (``Results.raw``) is rebuilt from them, with
the same keys and values as the engine's own JSON export, only when asked for.
"""

from __future__ import annotations

import contextlib
import gc
import json
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from ccsim._warnings import ScenarioWarning

# numpy and pandas are imported where used, so `import ccsim` (and so every CLI command)
# starts quickly.

# The results schema this ccsim writes and reads (``schema_version`` in the JSON; the
# engine's ``results::SCHEMA_VERSION``, docs/architecture.md). JSON without it predates
# the versioning and is read as version 1; a newer version is refused.
SCHEMA_VERSION = 1

# Leading columns of the long phase/interval tables (before the counters).
PERIOD_COLUMNS = ["phase", "start_s", "end_s", "name"]
SERIES_INFO = ["name", "entity", "metric", "unit"]
# A series' per-point lists, in the JSON's order (min and max only when sampled).
SERIES_POINTS = ("t", "v", "min", "max")
NULL_CODE = 2**32 - 1  # a null string in a dictionary-encoded column


class Results:
    """The results of one run.

    ``flows`` and ``links`` have one row per flow and per channel, ``nodes`` one per
    node; ``phases``/``intervals`` one row per (period, flow) and
    ``phase_links``/``interval_links`` one row per (period, channel); ``series()`` gives
    time series. ``raw`` is the results JSON as a dict.

    Properties are what a run recorded, read as they are (the tables, ``series_names``,
    ``warnings``, the scalars); methods compute or select with arguments
    (``series(name)``, ``fairness(metric, flows)``, ``fct()``). ``series_names`` may
    also be called, ``r.series_names()``, and gives the same list.

    A run's results come from the engine as columns (:meth:`from_columns`): the tables
    are built straight from NumPy arrays, and ``raw`` is rebuilt from them only when
    first asked for (at 10^5 flows that takes seconds; prefer the tables). Results read
    from JSON (:meth:`from_json`, or ``Results(dict)``) work the same way from the dict.
    """

    def __init__(self, raw: dict[str, Any]) -> None:
        version = raw.get("schema_version", 1)
        if not isinstance(version, int) or version > SCHEMA_VERSION:
            raise ValueError(
                f"results JSON has schema_version {version!r}; this ccsim reads version "
                f"{SCHEMA_VERSION} and older: read it with the ccsim that wrote it or a newer one"
            )
        self._raw: dict[str, Any] | None = raw
        self._cols: _Columns | None = None
        self._warnings: list[ScenarioWarning] = []

    @classmethod
    def from_json(cls, text: str) -> Results:
        return cls(json.loads(text))

    @classmethod
    def from_columns(cls, payload: dict[str, Any]) -> Results:
        """Results from the native module's columns (the native module's ``run``, ``_ccsim.pyi``)."""
        self = cls.__new__(cls)
        self._raw = None
        self._cols = _Columns(payload)
        self._warnings = []
        return self

    def __getstate__(self) -> dict[str, Any]:
        # Columns pickle as arrays; the dict, if built, is rebuilt on demand instead.
        if self._cols is not None:
            return {"_raw": None, "_cols": self._cols, "_warnings": self._warnings}
        return {"_raw": self._raw, "_cols": None, "_warnings": self._warnings}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._raw = state["_raw"]
        self._cols = state["_cols"]
        self._warnings = state.get("_warnings", [])

    @property
    def warnings(self) -> list[ScenarioWarning]:
        """The scenario's warnings (:class:`ccsim.ScenarioWarning`: settings that do
        nothing, each with ``field``, ``message`` and ``fix``), as issued before the run;
        empty for results read from JSON."""
        return list(self._warnings)

    @property
    def raw(self) -> dict[str, Any]:
        """The results JSON as a dict (rebuilt from the columns on first use, then kept)."""
        if self._raw is None:
            assert self._cols is not None
            self._raw = self._cols.to_raw()
        return self._raw

    def to_json(self, indent: int | None = None) -> str:
        """The results JSON (``indent`` as for :func:`json.dumps`)."""
        return json.dumps(self.raw, indent=indent)

    def __repr__(self) -> str:
        return (
            f"<ccsim.Results scenario={self.scenario!r} seed={self.seed} "
            f"sim_time_s={self.sim_time_s} flows={self.n_flows} links={self.n_links}>"
        )

    def _repr_html_(self) -> str:
        """The summary Jupyter shows: scenario, seed, duration, stop reason, warnings,
        the flows with their goodput, and Jain's fairness index."""
        from ccsim._html import results_html

        return results_html(self)

    # Scalars -----------------------------------------------------------------------

    def _scalar(self, key: str) -> Any:
        if self._cols is not None:
            return self._cols.meta[key]
        return self.raw[key]

    @property
    def schema_version(self) -> int:
        """The results schema version (``SCHEMA_VERSION``; 1 for JSON written before
        the version was recorded)."""
        if self._cols is not None:
            return self._cols.meta.get("schema_version", 1)
        return self.raw.get("schema_version", 1)

    @property
    def scenario(self) -> str:
        return self._scalar("scenario")

    @property
    def seed(self) -> int:
        return self._scalar("seed")

    @property
    def sim_time_s(self) -> float:
        return self._scalar("sim_time_s")

    @property
    def wall_time_s(self) -> float:
        return self._scalar("wall_time_s")

    @property
    def events(self) -> int:
        return self._scalar("events")

    @property
    def partial(self) -> bool:
        """The run stopped before the scenario's end (``stop_reason`` says why)."""
        return bool(self._scalar("partial"))

    @property
    def stop_reason(self) -> str | None:
        return self._scalar("stop_reason")

    def _set_wall_time(self, wall: float) -> None:
        self.__dict__.pop("_head_cache", None)
        if self._cols is not None:
            self._cols.meta["wall_time_s"] = wall
        if self._raw is not None:
            self._raw["wall_time_s"] = wall

    # Sizes -------------------------------------------------------------------------

    @property
    def n_flows(self) -> int:
        if self._cols is not None:
            return self._cols.flows.rows
        return len(self.raw.get("flows", []))

    @property
    def n_links(self) -> int:
        """Number of channels."""
        if self._cols is not None:
            return self._cols.links.rows
        return len(self.raw.get("links", []))

    @property
    def n_phases(self) -> int:
        if self._cols is not None:
            return len(self._cols.phases.name)
        return len(self.raw.get("phases", []))

    @property
    def n_intervals(self) -> int:
        if self._cols is not None:
            return len(self._cols.intervals.name)
        return len(self.raw.get("intervals", []))

    # Tables ------------------------------------------------------------------------

    @property
    def flows(self) -> pd.DataFrame:
        """One row per flow (window and unresponsive alike)."""
        if self._cols is not None:
            return self._cols.flows.frame()
        import pandas as pd

        return pd.DataFrame([_flat(f) for f in self.raw.get("flows", [])])

    @property
    def links(self) -> pd.DataFrame:
        """One row per channel (a duplex link is two channels, ``"a->b"`` and ``"b->a"``)."""
        if self._cols is not None:
            return self._cols.links.frame()
        import pandas as pd

        return pd.DataFrame([_flat(c) for c in self.raw.get("links", [])])

    @property
    def nodes(self) -> pd.DataFrame:
        """One row per node: name, router, control packets of no flow received."""
        if self._cols is not None:
            return self._cols.nodes.frame()
        import pandas as pd

        return pd.DataFrame([_flat(n) for n in self.raw.get("nodes", [])])

    @property
    def phases(self) -> pd.DataFrame:
        """Flow counters per named phase: phase, start_s, end_s, name, then the counters."""
        if self._cols is not None:
            return self._cols.phases.frame("flows")
        return _periods(self.raw.get("phases", []), "flows")

    @property
    def phase_links(self) -> pd.DataFrame:
        """Channel counters per named phase: phase, start_s, end_s, name, counters."""
        if self._cols is not None:
            return self._cols.phases.frame("links")
        return _periods(self.raw.get("phases", []), "links")

    @property
    def intervals(self) -> pd.DataFrame:
        """Flow counters per fixed interval (phase is "0", "1", ...)."""
        if self._cols is not None:
            return self._cols.intervals.frame("flows")
        return _periods(self.raw.get("intervals", []), "flows")

    @property
    def interval_links(self) -> pd.DataFrame:
        """Channel counters per fixed interval."""
        if self._cols is not None:
            return self._cols.intervals.frame("links")
        return _periods(self.raw.get("intervals", []), "links")

    def fct(self) -> pd.DataFrame:
        """Finite window flows (those with a ``size``), one row each: name, from, to,
        size_bytes, completed, fct_s, ideal_fct_s, slowdown (docs/scenario-format.md,
        "Finite flows")."""
        from ._fct import fct_table

        return fct_table(self.flows)

    def fct_summary(self, buckets: Sequence[float] | None = None) -> pd.DataFrame:
        """FCT and slowdown percentiles (p50, p95, p99) and means of the completed finite
        flows by size bucket; ``buckets`` are the edges in bytes (default 0, 100 kB,
        1 MB, 10 MB, infinity)."""
        from ._fct import DEFAULT_EDGES, fct_summary, fct_table

        return fct_summary(fct_table(self.flows), DEFAULT_EDGES if buckets is None else buckets)

    def flow(self, name: str) -> dict[str, Any]:
        """The JSON entry of one flow."""
        if self._cols is not None and self._raw is None:
            return self._cols.flows.row_by_name(name, "flow")
        return _by_name(self.raw.get("flows", []), name, "flow")

    def link(self, name: str) -> dict[str, Any]:
        """The JSON entry of one channel, e.g. ``"sw->sink"``."""
        if self._cols is not None and self._raw is None:
            return self._cols.links.row_by_name(name, "channel")
        return _by_name(self.raw.get("links", []), name, "channel")

    def phase(self, name: str) -> dict[str, Any]:
        """The JSON entry of one named phase."""
        return _by_name(self.raw.get("phases", []), name, "phase")

    # Time series -------------------------------------------------------------------

    @property
    def series_names(self) -> _Names:
        """The names of the recorded series, in order (a list; calling it,
        ``series_names()``, gives the same list)."""
        if self._cols is not None:
            return _Names(self._cols.series["name"])
        return _Names(s["name"] for s in self.raw.get("series", []))

    def fairness(self, metric: str = "goodput", flows: Sequence[str] | None = None) -> float | None:
        """Jain's fairness index (Jain, Chiu and Hawe, DEC-TR-301, 1984) of ``metric``
        over ``flows``: (sum x)^2 / (n sum x^2), 1 when all are equal, 1/n when one flow
        has everything; ``None`` when no flow has a positive value.

        ``metric`` is a column of :attr:`flows` or its name without the unit
        (``"goodput"`` is ``goodput_bps``); ``flows`` the flow names (default: every
        flow). The CLI's summary line prints the same index."""
        table = self.flows
        column = metric if metric in table.columns else f"{metric}_bps"
        if column not in table.columns:
            numeric = [c for c in table.columns if table[c].dtype.kind in "iuf"]
            raise KeyError(f"no flow column {metric!r} (numeric columns: {', '.join(numeric)})")
        if flows is not None:
            names = list(flows)
            unknown = [n for n in names if n not in set(table["name"])]
            if unknown:
                known = ", ".join(repr(n) for n in table["name"])
                raise KeyError(f"no flow named {unknown[0]!r} (known: {known})")
            table = table[table["name"].isin(names)]
        return jain_index([float(x) for x in table[column]])

    @property
    def series_sample_s(self) -> float | None:
        """The bucket width of sampled series (``[measure].sample`` or ``max_points``),
        seconds; ``None`` when the series keep every point (or there are none)."""
        if self._cols is not None:
            return self._cols.series["sample_s"]
        return next((s.get("sample_s") for s in self.raw.get("series", [])), None)

    def series_points(self) -> dict[str, int]:
        """The number of points of each series, by name (without building a frame)."""
        if self._cols is not None:
            o = self._cols.series_offsets()
            return {n: o[i + 1] - o[i] for i, n in enumerate(self._cols.series["name"])}
        return {s["name"]: len(s["t"]) for s in self.raw.get("series", [])}

    def series(self, name: str | None = None) -> pd.DataFrame:
        """A time series as a DataFrame.

        With ``name`` (e.g. ``"ftp1.cwnd"``): columns ``t`` (seconds) and ``v``; sampled
        series (``[measure].sample`` or ``max_points``) add ``min`` and ``max``, the
        smallest and largest sample of each point's bucket.
        Without: every series in long format, columns ``name``, ``t``, ``v`` (and
        ``min``, ``max`` when sampled).
        """
        import numpy as np
        import pandas as pd

        keys = SERIES_POINTS if self.series_sample_s is not None else ("t", "v")
        if self._cols is not None:
            s = self._cols.series
            cols = {k: _np(s[k], "=f8") for k in keys}
            if name is not None:
                i = _index_of(s["name"], name, "series")
                o = self._cols.series_offsets()
                return pd.DataFrame({k: c[o[i] : o[i + 1]].copy() for k, c in cols.items()})
            names = np.empty(len(s["name"]), dtype=object)
            names[:] = s["name"]
            counts = np.diff(_np(s["offsets"], "=u8")).astype(np.int64)
            return pd.DataFrame({"name": np.repeat(names, counts), **{k: c.copy() for k, c in cols.items()}})
        all_series = self.raw.get("series", [])
        if name is not None:
            entry = _by_name(all_series, name, "series")
            return pd.DataFrame({k: np.asarray(entry[k], dtype=float) for k in keys})
        frames = [
            pd.DataFrame(
                {
                    "name": [s["name"]] * len(s["t"]),
                    **{k: np.asarray(s[k], dtype=float) for k in keys},
                }
            )
            for s in all_series
        ]
        if not frames:
            return pd.DataFrame(
                {
                    "name": pd.Series([], dtype=object),
                    **{k: pd.Series([], dtype=float) for k in keys},
                }
            )
        return pd.concat(frames, ignore_index=True)

    def _head(self) -> dict[str, Any]:
        """The results JSON as a dict with ``"series": []``: everything but the series,
        without building their lists (what tables print and JSON writers go around)."""
        if self._raw is not None:
            return {**self._raw, "series": []}
        assert self._cols is not None
        head = getattr(self, "_head_cache", None)
        if head is None:
            head = self._head_cache = self._cols.to_raw(series=False)
        return {**head}

    def _series_points(self, name: str) -> dict[str, Any]:
        """The per-point lists of one series by key (``t``, ``v``, and ``min``, ``max``
        when sampled): NumPy arrays of the columns, or the lists of the dict."""
        if self._cols is not None:
            s = self._cols.series
            i = _index_of(s["name"], name, "series")
            o = self._cols.series_offsets()
            keys = SERIES_POINTS if s["sample_s"] is not None else SERIES_POINTS[:2]
            return {k: _np(s[k], "=f8")[o[i] : o[i + 1]] for k in keys}
        entry = _by_name(self.raw.get("series", []), name, "series")
        return {k: entry[k] for k in SERIES_POINTS if k in entry}

    def _series_entries(self) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """Per series, in order: its scalar fields as in the JSON (name, entity, metric,
        unit, sample_s) and its per-point lists (``_series_points``)."""
        if self._cols is not None:
            return [
                (self.series_info(name), self._series_points(name)) for name in self.series_names
            ]
        return [
            (
                {k: v for k, v in entry.items() if k not in SERIES_POINTS},
                {k: entry[k] for k in SERIES_POINTS if k in entry},
            )
            for entry in self.raw.get("series", [])
        ]

    def series_info(self, name: str) -> dict[str, Any]:
        """A series' metadata: name, entity, metric, unit, and ``sample_s`` when sampled."""
        if self._cols is not None:
            s = self._cols.series
            i = _index_of(s["name"], name, "series")
            info = {k: s[k][i] for k in SERIES_INFO}
            if s["sample_s"] is not None:
                info["sample_s"] = s["sample_s"]
            return info
        entry = _by_name(self.raw.get("series", []), name, "series")
        return {k: v for k, v in entry.items() if k not in SERIES_POINTS}


def _periods(periods: list[dict[str, Any]], kind: str) -> pd.DataFrame:
    import pandas as pd

    rows = []
    for period in periods:
        for entry in period.get(kind, []):
            row = {"phase": period["name"], "start_s": period["start_s"], "end_s": period["end_s"]}
            row.update(_flat(entry))
            rows.append(row)
    if not rows:
        return pd.DataFrame(columns=PERIOD_COLUMNS)
    return pd.DataFrame(rows)


def _flat(obj: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested objects as ``a.b`` keys; other values as they are."""
    if not prefix and not any(isinstance(v, dict) for v in obj.values()):
        return obj
    out: dict[str, Any] = {}
    for key, value in obj.items():
        if isinstance(value, dict):
            out.update(_flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def _by_name(entries: list[dict[str, Any]], name: str, what: str) -> dict[str, Any]:
    for entry in entries:
        if entry.get("name") == name:
            return entry
    known = ", ".join(repr(e.get("name")) for e in entries) or "none"
    raise KeyError(f"no {what} named {name!r} (known: {known})")


def _index_of(names: list[str], name: str, what: str) -> int:
    try:
        return names.index(name)
    except ValueError:
        known = ", ".join(repr(n) for n in names) or "none"
        raise KeyError(f"no {what} named {name!r} (known: {known})") from None


# Columns from the native module ----------------------------------------------------------
#
# Buffers stay as they came (bytearrays) until used: ``raw`` reads them through
# ``memoryview.cast`` (no NumPy import, so a CLI run that prints JSON does not pay for
# it); the DataFrames read them with ``numpy.frombuffer`` (``_Table.frame``: shared
# copy-on-write with pandas 3, else copied once per frame).


def _mv(buf: Any, fmt: str) -> memoryview:
    """A native-endian buffer as typed values (``Q`` u64, ``d`` f64, ``I`` u32, ``B`` u8)."""
    return memoryview(buf).cast("B").cast(fmt)


def _float_list(buf: Any, has_null: bool) -> list[Any]:
    """Floats as a list, NaN as None (the JSON's null)."""
    vals = _mv(buf, "d").tolist()
    if has_null:
        vals = [None if v != v else v for v in vals]
    return vals


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """No garbage collection while a column of many small containers is built: the
    collector would scan the whole heap again and again for nothing (none of them can be
    part of a cycle)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class _Names(list):  # type: ignore[type-arg]
    """A list of names that also answers a call with itself (``series_names()``)."""

    def __call__(self) -> list[str]:
        return list(self)


def jain_index(values: Sequence[float]) -> float | None:
    """Jain's fairness index (sum x)^2 / (n sum x^2) of ``values``; ``None`` when none
    is positive (no flow got anything: no share to compare)."""
    total = sum(values)
    squares = sum(x * x for x in values)
    if not values or squares <= 0:
        return None
    return total * total / (len(values) * squares)


def _np(buf: Any, dtype: str) -> Any:
    import numpy as np

    return np.frombuffer(buf, dtype=np.dtype(dtype))


class _Strings(list):  # type: ignore[type-arg]
    """A dictionary's strings, with its object array (the strings and a last ``None``
    for the null code) built once for every column that points into it (``from`` and
    ``to`` share the node names)."""

    __slots__ = ("_table",)

    def __reduce__(self) -> tuple[Any, ...]:
        return _Strings, (list(self),)  # not the object array: rebuilt on demand

    def table(self) -> Any:
        import numpy as np

        t = getattr(self, "_table", None)
        if t is None:
            t = np.empty(len(self) + 1, dtype=object)
            t[:-1] = self
            t[-1] = None
            self._table = t
        return t


def _strings(d: Any) -> _Strings:
    """A dictionary of strings as the native module gives it: (count, the strings joined
    by NUL), or a list."""
    if isinstance(d, tuple):
        count, text = d
        return _Strings(text.split("\0") if count else [])
    return d if isinstance(d, _Strings) else _Strings(d)


def _empty_lists(n: int) -> list[list[Any]]:
    """``n`` distinct empty lists (built in C: 0.7x the time of a comprehension)."""
    import numpy as np

    out: list[list[Any]] = np.empty((n, 0)).tolist()
    return out


class _Column:
    """One column as it came from the native module: ``kind`` and its payload (see
    ``table_to_py`` in crates/ccsim-py/src/lib.rs); ``dicts``: the shared dictionaries
    that ``ref`` columns point into (a ``ref`` column becomes a ``str`` column sharing
    its dictionary's list)."""

    __slots__ = ("kind", "data", "rows")

    def __init__(self, kind: str, payload: list[Any], rows: int, dicts: list[list[str]] | None = None) -> None:
        if kind not in ("u64", "f64", "opt_u64", "bool", "str", "ref", "list_f64", "json"):
            raise ValueError(f"unknown column kind {kind!r} from the native module")
        if kind == "ref":
            kind, payload = "str", [(dicts or [])[payload[0]], payload[1]]
        self.kind = kind
        if kind == "str":
            payload = [_strings(payload[0]), payload[1]]
        self.data = tuple(payload)
        self.rows = rows

    def array(self, copy: bool = True) -> Any:
        """The column for a DataFrame: a NumPy array (object arrays for strings and
        lists), of its own unless ``copy`` is false (then a number column may be a view
        of its buffer, which must not be written to)."""
        import numpy as np

        k, d = self.kind, self.data

        def own(a: Any) -> Any:
            return a.copy() if copy else a

        if k == "u64":
            return own(_np(d[0], "=i8"))  # counters: int64, as pandas makes of JSON integers
        if k == "f64":
            return own(_np(d[0], "=f8"))
        if k == "bool":
            return _np(d[0], "u1").astype(bool)
        if k == "opt_u64":
            valid = _np(d[1], "u1").astype(bool)
            if valid.all():
                return own(_np(d[0], "=i8"))
            return np.where(valid, _np(d[0], "=u8").astype(np.float64), np.nan)
        if k == "str":
            names: _Strings = d[0]
            codes = _np(d[1], "=u4")
            if NULL_CODE in codes:
                codes = codes.astype(np.int64)
                codes[codes == NULL_CODE] = len(names)
            return names.table().take(codes)
        with _gc_paused():
            return np.fromiter(self.values(), dtype=object, count=self.rows)

    def values(self) -> list[Any]:
        """The column as Python values, as ``json.loads`` gives them."""
        k, d = self.kind, self.data
        if k == "u64":
            return _mv(d[0], "Q").tolist()
        if k == "f64":
            return _float_list(d[0], d[1])
        if k == "bool":
            return [b != 0 for b in d[0]]
        if k == "opt_u64":
            vals = _mv(d[0], "Q").tolist()
            if 0 in d[1]:
                vals = [v if ok else None for v, ok in zip(vals, d[1], strict=True)]
            return vals
        if k == "str":
            names = d[0]
            codes = _mv(d[1], "I").tolist()
            if len(names) == len(codes) and codes == list(range(len(codes))):
                return list(names)  # unique names in order: the dictionary itself
            return [names[c] if c != NULL_CODE else None for c in codes]
        if k == "list_f64":
            offsets, values, valid, has_null = d
            if 1 not in valid:
                return [None] * self.rows
            vals = _float_list(values, has_null)
            o = _mv(offsets, "Q").tolist()
            return [vals[o[i] : o[i + 1]] if ok else None for i, ok in enumerate(valid)]
        # json: the empty value everywhere but in the rows given.
        empty_text, rows_text = d
        with _gc_paused():
            if empty_text == "[]":
                out: list[Any] = _empty_lists(self.rows)
            else:
                out = [json.loads(empty_text) for _ in range(self.rows)]
        for i, v in json.loads(rows_text):
            out[i] = v
        return out

    def value(self, i: int) -> Any:
        """Row ``i`` as ``json.loads`` gives it."""
        k, d = self.kind, self.data
        if k == "u64":
            return _mv(d[0], "Q")[i]
        if k == "f64":
            x = _mv(d[0], "d")[i]
            return None if x != x else x
        if k == "bool":
            return d[0][i] != 0
        if k == "opt_u64":
            return _mv(d[0], "Q")[i] if d[1][i] else None
        if k == "str":
            c = _mv(d[1], "I")[i]
            return None if c == NULL_CODE else d[0][c]
        if k == "list_f64":
            if not d[2][i]:
                return None
            o = _mv(d[0], "Q")
            vals = _mv(d[1], "d")[o[i] : o[i + 1]].tolist()
            return [None if v != v else v for v in vals]
        for j, v in json.loads(d[1]):
            if j == i:
                return v
        return json.loads(d[0])


def _copy_on_write() -> bool:
    """Whether pandas copies a block before writing to it while another frame shares it
    (always from pandas 3; an option in pandas 2)."""
    import pandas as pd

    if int(pd.__version__.split(".")[0]) >= 3:
        return True
    # pandas 2: True, False or "warn" (which only warns, and copies nothing).
    return pd.get_option("mode.copy_on_write") is True


# Columns whose cells are lists: each frame gets lists of its own.
_LIST_KINDS = ("list_f64", "json")


class _Table:
    __slots__ = ("rows", "columns", "_shared")

    def __init__(self, payload: dict[str, Any], dicts: list[list[str]] | None = None) -> None:
        self.rows: int = payload["rows"]
        self.columns: dict[str, _Column] = {
            name: _Column(kind, data, self.rows, dicts) for name, kind, data in payload["columns"]
        }
        self._shared: pd.DataFrame | None = None

    def __getstate__(self) -> tuple[int, dict[str, _Column]]:
        return self.rows, self.columns  # not the shared frame: rebuilt on demand

    def __setstate__(self, state: tuple[int, dict[str, _Column]]) -> None:
        self.rows, self.columns = state
        self._shared = None

    def frame(self, lead: Callable[[], dict[str, Any]] | None = None) -> pd.DataFrame:
        """The table as a DataFrame the caller may change. With copy-on-write (pandas 3),
        every frame is a shallow copy of one frame kept here, whose number columns are
        the buffers themselves (no copy: pandas copies a block before a frame writes to
        it, since this one shares it); without it, every column is copied. Either way
        the list-valued columns are new lists for every frame. (`lead`: makes the
        columns before the table's; called only when they are built.)"""
        import pandas as pd

        if not _copy_on_write():
            data = lead() if lead else {}
            data.update({name: c.array(copy=True) for name, c in self.columns.items()})
            # No consolidation into 2-D blocks (a second copy of every column: 0.05 s
            # at 4 x 10^5 rows; pandas consolidates later if an operation wants it).
            return pd.DataFrame(data, copy=False)
        if self._shared is None:
            data = lead() if lead else {}
            data.update({n: c.array(copy=False) for n, c in self.columns.items() if c.kind not in _LIST_KINDS})
            self._shared = pd.DataFrame(data, copy=False)
        f = self._shared.copy(deep=False)
        at = len(f.columns) - sum(c.kind not in _LIST_KINDS for c in self.columns.values())
        for i, (name, c) in enumerate(self.columns.items()):
            if c.kind in _LIST_KINDS:
                f.insert(at + i, name, c.array())
        return f

    def records(self) -> list[dict[str, Any]]:
        """The rows as JSON objects (``a.b`` columns nested again as ``a: {b: ...}``)."""
        with _gc_paused():
            return self._records()

    def _records(self) -> list[dict[str, Any]]:
        keys: list[str] = []
        cols: list[list[Any]] = []
        nested: dict[str, tuple[list[str], list[list[Any]]]] = {}
        for name, c in self.columns.items():
            top, dot, sub = name.partition(".")
            if dot:
                if top not in nested:
                    nested[top] = ([], [])
                    keys.append(top)
                    cols.append([])  # filled below
                nested[top][0].append(sub)
                nested[top][1].append(c.values())
            else:
                keys.append(name)
                cols.append(c.values())
        for top, (subs, subcols) in nested.items():
            cols[keys.index(top)] = [dict(zip(subs, vals, strict=True)) for vals in zip(*subcols, strict=True)]
        if not cols:
            return [{} for _ in range(self.rows)]
        return [dict(zip(keys, vals, strict=True)) for vals in zip(*cols, strict=True)]

    def row_by_name(self, name: str, what: str) -> dict[str, Any]:
        names = self.columns["name"]
        try:
            code = names.data[0].index(name)
        except ValueError:
            known = ", ".join(repr(n) for n in names.data[0]) or "none"
            raise KeyError(f"no {what} named {name!r} (known: {known})") from None
        row = _mv(names.data[1], "I").tolist().index(code)
        out: dict[str, Any] = {}
        for col, c in self.columns.items():
            top, dot, sub = col.partition(".")
            if dot:
                out.setdefault(top, {})[sub] = c.value(row)
            else:
                out[col] = c.value(row)
        return out


class _Periods:
    __slots__ = ("name", "start_s", "end_s", "flows", "links")

    def __init__(self, payload: dict[str, Any], dicts: list[list[str]] | None = None) -> None:
        self.name: list[str] = list(payload["name"])
        self.start_s = payload["start_s"]
        self.end_s = payload["end_s"]
        self.flows = _Table(payload["flows"], dicts)
        self.links = _Table(payload["links"], dicts)

    def frame(self, kind: str) -> pd.DataFrame:
        import numpy as np
        import pandas as pd

        table: _Table = getattr(self, kind)
        if table.rows == 0:
            return pd.DataFrame(columns=PERIOD_COLUMNS)
        per = table.rows // len(self.name)

        def lead() -> dict[str, Any]:
            names = np.empty(len(self.name), dtype=object)
            names[:] = self.name
            return {
                "phase": np.repeat(names, per),
                "start_s": np.repeat(_np(self.start_s, "=f8"), per),
                "end_s": np.repeat(_np(self.end_s, "=f8"), per),
            }

        return table.frame(lead)

    def records(self) -> list[dict[str, Any]]:
        n = len(self.name)
        if n == 0:
            return []
        flows, links = self.flows.records(), self.links.records()
        nf, nl = len(flows) // n, len(links) // n
        start, end = _float_list(self.start_s, True), _float_list(self.end_s, True)
        return [
            {
                "name": self.name[i],
                "start_s": start[i],
                "end_s": end[i],
                "flows": flows[i * nf : (i + 1) * nf],
                "links": links[i * nl : (i + 1) * nl],
            }
            for i in range(n)
        ]


class _Columns:
    """The columns of one run's results, as the native module gave them."""

    def __init__(self, payload: dict[str, Any]) -> None:
        self.meta: dict[str, Any] = json.loads(payload["meta"])
        # Shared dictionaries (node, flow, link, channel names): one str per name.
        dicts = [_strings(d) for d in payload.get("dicts", [])]
        self.flows = _Table(payload["flows"], dicts)
        self.links = _Table(payload["links"], dicts)
        self.nodes = _Table(payload["nodes"], dicts)
        self.phases = _Periods(payload["phases"], dicts)
        self.intervals = _Periods(payload["intervals"], dicts)
        s = payload["series"]
        self.series: dict[str, Any] = {k: list(s[k]) for k in SERIES_INFO}
        self.series.update({k: s[k] for k in ("offsets", "t", "v", "t_null", "v_null")})
        self.series["sample_s"] = s.get("sample_s")
        for k in ("min", "max"):
            self.series[k] = s.get(k, bytearray())
            self.series[f"{k}_null"] = s.get(f"{k}_null", False)

    def series_offsets(self) -> list[int]:
        return _mv(self.series["offsets"], "Q").tolist()

    def series_records(self) -> list[dict[str, Any]]:
        """The JSON's series: name, entity, metric, unit, then when sampled ``sample_s``;
        then the lists ``t``, ``v`` and when sampled ``min``, ``max``."""
        s = self.series
        o = self.series_offsets()
        sampled = s["sample_s"] is not None
        keys = SERIES_POINTS if sampled else SERIES_POINTS[:2]
        points = {k: _float_list(s[k], s[f"{k}_null"]) for k in keys}
        records = []
        for i in range(len(s["name"])):
            entry = {k: s[k][i] for k in SERIES_INFO}
            if sampled:
                entry["sample_s"] = s["sample_s"]
            for k in keys:
                entry[k] = points[k][o[i] : o[i + 1]]
            records.append(entry)
        return records

    def to_raw(self, series: bool = True) -> dict[str, Any]:
        """The results JSON as a dict: the engine's keys, in its order (``series``
        empty unless ``series``)."""
        raw = dict(self.meta)
        raw["flows"] = self.flows.records()
        raw["links"] = self.links.records()
        raw["nodes"] = self.nodes.records()
        raw["phases"] = self.phases.records()
        raw["intervals"] = self.intervals.records()
        raw["series"] = self.series_records() if series else []
        return raw

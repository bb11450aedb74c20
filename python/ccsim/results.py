"""Results of one run: the engine's results JSON with pandas views on it.

The schema is "Results JSON" in docs/architecture.md. DataFrame columns are the JSON keys,
in the engine's order; a nested object becomes one column per key, named ``a.b``
(``drops_by_reason.overflow``), as in a sweep's database; lists stay lists.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

# numpy and pandas are imported where used, so `import ccsim` (and so every CLI command)
# starts quickly.

# Leading columns of the long phase/interval tables (before the counters).
PERIOD_COLUMNS = ["phase", "start_s", "end_s", "name"]


class Results:
    """The results of one run.

    ``raw`` is the results JSON as a dict. ``flows`` and ``links`` have one row per flow
    and per channel; ``phases``/``intervals`` one row per (period, flow) and
    ``phase_links``/``interval_links`` one row per (period, channel); ``series()`` gives
    time series.
    """

    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw

    @classmethod
    def from_json(cls, text: str) -> Results:
        return cls(json.loads(text))

    def to_json(self, indent: int | None = None) -> str:
        """The results JSON (``indent`` as for :func:`json.dumps`)."""
        return json.dumps(self.raw, indent=indent)

    def __repr__(self) -> str:
        return (
            f"<ccsim.Results scenario={self.scenario!r} seed={self.seed} "
            f"sim_time_s={self.sim_time_s} flows={len(self.raw.get('flows', []))} "
            f"links={len(self.raw.get('links', []))}>"
        )

    # Scalars -----------------------------------------------------------------------

    @property
    def scenario(self) -> str:
        return self.raw["scenario"]

    @property
    def seed(self) -> int:
        return self.raw["seed"]

    @property
    def sim_time_s(self) -> float:
        return self.raw["sim_time_s"]

    @property
    def wall_time_s(self) -> float:
        return self.raw["wall_time_s"]

    @property
    def events(self) -> int:
        return self.raw["events"]

    # Tables ------------------------------------------------------------------------

    @property
    def flows(self) -> pd.DataFrame:
        """One row per flow (window and unresponsive alike)."""
        import pandas as pd

        return pd.DataFrame([_flat(f) for f in self.raw.get("flows", [])])

    @property
    def links(self) -> pd.DataFrame:
        """One row per channel (a duplex link is two channels, ``"a->b"`` and ``"b->a"``)."""
        import pandas as pd

        return pd.DataFrame([_flat(c) for c in self.raw.get("links", [])])

    @property
    def nodes(self) -> pd.DataFrame:
        """One row per node: name, router, control packets of no flow received."""
        import pandas as pd

        return pd.DataFrame([_flat(n) for n in self.raw.get("nodes", [])])

    @property
    def phases(self) -> pd.DataFrame:
        """Flow counters per named phase: phase, start_s, end_s, name, then the counters."""
        return _periods(self.raw.get("phases", []), "flows")

    @property
    def phase_links(self) -> pd.DataFrame:
        """Channel counters per named phase: phase, start_s, end_s, name, counters."""
        return _periods(self.raw.get("phases", []), "links")

    @property
    def intervals(self) -> pd.DataFrame:
        """Flow counters per fixed interval (phase is "0", "1", ...)."""
        return _periods(self.raw.get("intervals", []), "flows")

    @property
    def interval_links(self) -> pd.DataFrame:
        """Channel counters per fixed interval."""
        return _periods(self.raw.get("intervals", []), "links")

    def flow(self, name: str) -> dict[str, Any]:
        """The JSON entry of one flow."""
        return _by_name(self.raw.get("flows", []), name, "flow")

    def link(self, name: str) -> dict[str, Any]:
        """The JSON entry of one channel, e.g. ``"sw->sink"``."""
        return _by_name(self.raw.get("links", []), name, "channel")

    def phase(self, name: str) -> dict[str, Any]:
        """The JSON entry of one named phase."""
        return _by_name(self.raw.get("phases", []), name, "phase")

    # Time series -------------------------------------------------------------------

    @property
    def series_names(self) -> list[str]:
        return [s["name"] for s in self.raw.get("series", [])]

    def series(self, name: str | None = None) -> pd.DataFrame:
        """A time series as a DataFrame.

        With ``name`` (e.g. ``"ftp1.cwnd"``): columns ``t`` (seconds) and ``v``.
        Without: every series in long format, columns ``name``, ``t``, ``v``.
        """
        import numpy as np
        import pandas as pd

        all_series = self.raw.get("series", [])
        if name is not None:
            entry = _by_name(all_series, name, "series")
            return pd.DataFrame(
                {
                    "t": np.asarray(entry["t"], dtype=float),
                    "v": np.asarray(entry["v"], dtype=float),
                }
            )
        frames = [
            pd.DataFrame(
                {
                    "name": [s["name"]] * len(s["t"]),
                    "t": np.asarray(s["t"], dtype=float),
                    "v": np.asarray(s["v"], dtype=float),
                }
            )
            for s in all_series
        ]
        if not frames:
            return pd.DataFrame(
                {
                    "name": pd.Series([], dtype=object),
                    "t": pd.Series([], dtype=float),
                    "v": pd.Series([], dtype=float),
                }
            )
        return pd.concat(frames, ignore_index=True)

    def series_info(self, name: str) -> dict[str, Any]:
        """A series' metadata: name, entity, metric, unit."""
        entry = _by_name(self.raw.get("series", []), name, "series")
        return {k: v for k, v in entry.items() if k not in ("t", "v")}


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

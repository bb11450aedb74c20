"""Sweeps: one scenario run over a grid of ``--set`` values times seeds (docs/sweeps.md).

``ccsim.sweep(...)`` and ``ccsim sweep`` expand the grid, check every case, run the
cases on worker processes (or a Dask cluster) and store each finished case's results in
one DuckDB database, from the parent process only (``ccsim._sweepdb``). The database
keeps the sweep's definition, so rerunning the same sweep skips the cases already done.

Importing this module is cheap: duckdb, pandas and dask are imported where used.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import math
import os
import re
import sys
import time
import tomllib
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ccsim import _ccsim
from ccsim._scenario import Scenario, ScenarioBuilder, _override_value, _toml_item, load
from ccsim._sweepcase import SweepError, Task, run_case

if TYPE_CHECKING:

    from ccsim._sweepdb import Database, Keys
    from ccsim._sweepresults import SweepResults

MODES = ("product", "zip")
MAX_CASES = 1_000_000
MAX_VALUES = 100_000
# The inline runner (jobs=1) stores finished cases at most this often.
INLINE_BATCH_S = 0.25
# Cases handed to Dask ahead: per worker thread, and at least.
DASK_IN_FLIGHT_PER_THREAD = 4
DASK_MIN_IN_FLIGHT = 64


@dataclass(frozen=True)
class Names:
    """How messages name each input: flags for the CLI, arguments for Python."""

    vary: str
    seeds: str
    mode: str
    db: str
    jobs: str
    dask: str
    force: str

    def param(self, key: str, spec: Any) -> str:
        if self.vary == "--vary":
            return f"--vary {key}={spec}"
        return f"params[{key!r}]"


PYTHON_NAMES = Names("params", "seeds", "mode", "db", "jobs", "client", "force=True")
CLI_NAMES = Names("--vary", "--seeds", "--mode", "--db", "--jobs", "--dask", "--force")


# Values -------------------------------------------------------------------------

# Units of the scenario format (docs/scenario-format.md): family and scale.
_UNITS: dict[str, tuple[str, Decimal]] = {
    "ps": ("time", Decimal("1e-12")),
    "ns": ("time", Decimal("1e-9")),
    "us": ("time", Decimal("1e-6")),
    "ms": ("time", Decimal("1e-3")),
    "s": ("time", Decimal(1)),
    "min": ("time", Decimal(60)),
    "bps": ("rate", Decimal(1)),
    "kbps": ("rate", Decimal("1e3")),
    "Mbps": ("rate", Decimal("1e6")),
    "Gbps": ("rate", Decimal("1e9")),
    "B": ("size", Decimal(1)),
    "kB": ("size", Decimal("1e3")),
    "MB": ("size", Decimal("1e6")),
    "pkt": ("packets", Decimal(1)),
}
_NUMBER = re.compile(r"^([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)([A-Za-z]*)$")
_RANGE_HELP = "write e.g. 1..5, 0.5..2.0:0.5, 10Mbps..50Mbps:10Mbps or 10pkt..80pkt*2"


def parse_values(spec: str, where: str) -> list[str]:
    """Values of a swept parameter from ``--vary KEY=SPEC``, as ``--set`` value strings.

    SPEC is a TOML array (``["a", "b"]``, for values that contain commas), a range
    ``START..STOP`` (step 1, integers), ``START..STOP:STEP`` or ``START..STOP*FACTOR``
    (STOP included when a step lands on it; units allowed), or a comma-separated list.
    """
    text = spec.strip()
    if not text:
        raise SweepError(
            f"{where}: no values; give a list (fcfs,fq), a range (10pkt..40pkt:10pkt) "
            'or a TOML array (["a","b"])'
        )
    if text.startswith("["):
        try:
            items = tomllib.loads(f"v = {text}")["v"]
        except tomllib.TOMLDecodeError as exc:
            raise SweepError(
                f'{where}: not a TOML array ({exc}); write e.g. ["a", "b"]'
            ) from None
        if not items:
            raise SweepError(f"{where}: the array is empty; give at least one value")
        return [_toml_item(item) for item in items]
    if ".." in text:
        return _range(text, where)
    items = [item.strip() for item in text.split(",")]
    if any(not item for item in items):
        raise SweepError(
            f"{where}: an empty value in the list; separate values by single commas, "
            "e.g. fcfs,fq"
        )
    return items


def _number(text: str, where: str) -> tuple[Decimal, str, bool]:
    """(value, unit, written as a float) of ``10Mbps``, ``0.5``, ``3``."""
    match = _NUMBER.match(text.strip())
    if not match:
        raise SweepError(
            f"{where}: {text.strip()!r} is not a number with an optional unit; {_RANGE_HELP}"
        )
    number, unit = match.groups()
    if unit and unit not in _UNITS:
        known = ", ".join(_UNITS)
        raise SweepError(f"{where}: unknown unit {unit!r}; use one of {known}")
    return Decimal(number), unit, any(c in number for c in ".eE")


def _range(text: str, where: str) -> list[str]:
    start_text, rest = text.split("..", 1)
    op = ":" if ":" in rest else "*" if "*" in rest else ""
    stop_text, step_text = rest.split(op, 1) if op else (rest, "")
    if op and not step_text.strip():
        raise SweepError(f"{where}: nothing after {op!r}; {_RANGE_HELP}")
    start, unit_a, float_a = _number(start_text, where)
    stop, unit_b, float_b = _number(stop_text, where)
    numbers = [(start, unit_a), (stop, unit_b)]
    step: Decimal | None = None
    float_s = False
    if op:
        step, unit_s, float_s = _number(step_text, where)
        if op == "*" and unit_s:
            raise SweepError(f"{where}: a factor has no unit; write e.g. 10pkt..80pkt*2")
        if op == ":":
            numbers.append((step, unit_s))
    units = {u for _, u in numbers if u}
    if len({_UNITS[u][0] for u in units}) > 1:
        mixed = ", ".join(sorted(units))
        raise SweepError(f"{where}: start, stop and step mix {mixed}; {_RANGE_HELP}")
    if len(units) > 1 and any(not u for _, u in numbers):
        raise SweepError(f"{where}: give every bound and the step a unit when they differ")
    unit = min(units, key=lambda u: _UNITS[u][1]) if units else ""

    def scaled(value: Decimal, u: str) -> Decimal:
        return value * _UNITS[u][1] / _UNITS[unit][1] if u else value

    start, stop = scaled(*numbers[0]), scaled(*numbers[1])
    as_float = not unit and (float_a or float_b or float_s)
    values: list[Decimal] = []
    if op == "*":
        factor = step
        assert factor is not None
        if factor <= 0 or factor == 1 or start <= 0 or stop <= 0:
            raise SweepError(
                f"{where}: a geometric range needs positive bounds and a factor other "
                "than 1; write e.g. 10pkt..80pkt*2"
            )
        if (factor > 1) != (stop >= start):
            raise SweepError(f"{where}: the range is empty (the factor leads away from the stop)")
        value = start
        while (value <= stop) if factor > 1 else (value >= stop):
            values.append(value)
            if len(values) > MAX_VALUES:
                break
            value *= factor
    else:
        if step is None:
            if unit or start != start.to_integral_value() or stop != stop.to_integral_value():
                raise SweepError(f"{where}: give a step; {_RANGE_HELP}")
            step = Decimal(1) if stop >= start else Decimal(-1)
        else:
            step = scaled(step, numbers[2][1])
        if step == 0:
            raise SweepError(f"{where}: the step is 0; give a non-zero step")
        count = math.floor((stop - start) / step) + 1
        if count < 1:
            raise SweepError(f"{where}: the range is empty (the step leads away from the stop)")
        values = [start + i * step for i in range(min(count, MAX_VALUES + 1))]
    if len(values) > MAX_VALUES:
        raise SweepError(f"{where}: more than {MAX_VALUES} values; give a larger step")
    return [_format(v, unit, as_float) for v in values]


def _format(value: Decimal, unit: str, as_float: bool) -> str:
    value = value.normalize()
    text = str(int(value)) if value == value.to_integral_value() else format(value, "f")
    if as_float and "." not in text:
        text += ".0"
    return text + unit


def parse_seeds(seeds: Any, where: str) -> list[int] | None:
    """Seeds: None (the scenario's own), a count N (seeds 1..N), ``"A-B"``, ``"1,3,7"``
    or an iterable of integers."""
    if seeds is None:
        return None
    if isinstance(seeds, str):
        text = seeds.strip()
        if re.fullmatch(r"\d+", text):
            return parse_seeds(int(text), where)
        match = re.fullmatch(r"(\d+)\s*-\s*(\d+)", text)
        if match:
            first, last = int(match[1]), int(match[2])
            if first > last:
                raise SweepError(
                    f"{where} {text}: the range is empty; write FIRST-LAST with "
                    "FIRST <= LAST, e.g. 1-5"
                )
            if last - first >= MAX_CASES:
                raise SweepError(f"{where} {text}: too many seeds; give at most {MAX_CASES}")
            return _check_seeds(range(first, last + 1), where)
        parts = [p.strip() for p in text.split(",")]
        if len(parts) > 1 and all(re.fullmatch(r"\d+", p) for p in parts if p):
            return _check_seeds([int(p) for p in parts if p], where)
        raise SweepError(
            f"{where} {seeds!r}: not a seed count, range or list; write e.g. 5 (seeds 1 to 5), "
            "1-5 or 1,3,7"
        )
    if isinstance(seeds, bool):
        raise SweepError(f"{where}: {seeds!r} is not a count or a list of seeds")
    if isinstance(seeds, int):
        if not 1 <= seeds <= MAX_CASES:
            raise SweepError(f"{where} {seeds}: give a count from 1 to {MAX_CASES} (seeds 1..N)")
        return list(range(1, seeds + 1))
    if isinstance(seeds, Iterable):
        return _check_seeds(list(seeds), where)
    raise SweepError(f"{where}: {seeds!r} is not a count or a list of seeds")


def _check_seeds(seeds: Iterable[Any], where: str) -> list[int]:
    out = []
    for seed in seeds:
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
            raise SweepError(f"{where}: {seed!r} is not a seed (an integer in [0, 2**64))")
        out.append(seed)
    if not out:
        raise SweepError(f"{where}: no seeds; give a count (5) or a list (1,3,7)")
    if len(set(out)) < len(out):
        dup = next(s for s, n in Counter(out).items() if n > 1)
        raise SweepError(f"{where}: seed {dup} is given twice; give each seed once")
    return out


def _typed(value: str) -> Any:
    """The TOML value an override string stands for (as the engine reads it), for the
    parameter's column; arrays and tables stay text."""
    try:
        parsed = tomllib.loads(f"v = {value}")["v"]
    except tomllib.TOMLDecodeError:
        return value
    return parsed if isinstance(parsed, (bool, int, float, str)) else value


# The base unit of each family: a column whose values come in several units of one
# family holds numbers in it.
_BASE_UNITS = {"time": "s", "rate": "bps", "size": "B", "packets": "pkt"}


def _with_unit(values: list[str]) -> tuple[str, dict[str, int | float]] | None:
    """Swept values that are all numbers with a unit of one family (``10pkt``,
    ``20ms``, ``1Mbps``): (the unit, value string -> number in that unit); the unit is
    theirs when they share one, else the family's base unit (``s``, ``bps``, ``B``).
    Numbers are exact (``Decimal``), an ``int`` when whole. ``None`` otherwise."""
    parsed = []
    for value in values:
        match = _NUMBER.match(value.strip())
        if not match or match.group(2) not in _UNITS:
            return None
        parsed.append((Decimal(match.group(1)), match.group(2)))
    units = {u for _, u in parsed}
    families = {_UNITS[u][0] for u in units}
    if len(families) != 1:
        return None
    unit = units.pop() if len(units) == 1 else _BASE_UNITS[families.pop()]
    scale = _UNITS[unit][1]

    def number(d: Decimal, u: str) -> int | float:
        x = d * _UNITS[u][1] / scale
        return int(x) if x == x.to_integral_value() else float(x)

    return unit, {v: number(d, u) for v, (d, u) in zip(values, parsed, strict=True)}


def key_layout(
    grid: list[tuple[str, list[str]]], legacy: bool = False
) -> tuple[dict[str, dict[str, Any]], list[tuple[str, str]]]:
    """Per swept parameter, its key column: (parameter -> value string -> column value,
    [(column name, DuckDB type)]). Numbers with units are numbers in a column named
    ``KEY_UNIT`` (``links.bottleneck.buffer_pkt``); other values are typed as TOML reads
    them (``2``, ``0.5``, ``true``) under the key itself, or text when mixed. ``legacy``:
    the layout of sweep format 1, numbers with units as text under the key."""
    from ccsim._sweepdb import value_type

    column_values: dict[str, dict[str, Any]] = {}
    key_types: list[tuple[str, str]] = []
    for key, values in grid:
        typed = {v: _typed(v) for v in values}
        sql = value_type(list(typed.values()))
        column = key
        if sql == "VARCHAR":  # mixed or text: the strings as given
            units = None if legacy else _with_unit(values)
            if units is not None:
                column = f"{key}_{units[0]}"
                typed = dict(units[1])
                sql = value_type(list(typed.values()))
            else:
                typed = {v: t if isinstance(t, str) else v for v, t in typed.items()}
        column_values[key] = typed
        key_types.append((column, sql))
    return column_values, key_types


# Plan ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    case_id: int
    values: tuple[str, ...]  # override value strings, in parameter order
    seed: int


@dataclass
class Plan:
    """A checked sweep: the scenario, the grid and every case."""

    scenario: Scenario
    name: str  # the scenario's [scenario].name
    params: list[tuple[str, list[str]]]
    mode: str
    seeds: list[int] | None  # None: each case runs with its scenario's own seed
    cases: list[Case]
    column_values: dict[str, dict[str, Any]]  # parameter -> value string -> column value
    keys: Keys
    digest: str

    def use_legacy_keys(self) -> None:
        """Key columns as sweep format 1 wrote them (resuming such a file)."""
        from ccsim._sweepdb import Keys

        self.column_values, key_types = key_layout(self.params, legacy=True)
        self.keys = Keys(tuple(key_types))

    @property
    def definition(self) -> dict[str, Any]:
        """What a rerun into the same database must match."""
        return {
            "scenario_digest": self.digest,
            "overrides": list(self.scenario.overrides),
            "params": [[key, values] for key, values in self.params],
            "mode": self.mode,
            "seeds": self.seeds,
        }

    def overrides(self, case: Case) -> list[str]:
        return _overrides(self.scenario, self.params, case.values)

    def key_values(self, case: Case) -> dict[str, Any]:
        values = {
            column: self.column_values[key][value]
            for (key, _), (column, _), value in zip(self.params, self.keys.params, case.values, strict=True)
        }
        return {"case_id": case.case_id, **values, "seed": case.seed}


def _overrides(
    scenario: Scenario, grid: list[tuple[str, list[str]]], values: tuple[str, ...]
) -> list[str]:
    """The scenario's own overrides, then ``KEY=VALUE`` for each swept parameter."""
    varied = [f"{key}={value}" for (key, _), value in zip(grid, values, strict=True)]
    return [*scenario.overrides, *varied]


def _param_values(key: str, values: Any, names: Names) -> list[str]:
    where = names.param(key, values)
    if isinstance(values, str):
        return parse_values(values, where)
    if isinstance(values, (bool, int, float)) or not isinstance(values, Iterable):
        raise SweepError(
            f"{where}: {values!r} is not a list of values; give e.g. [1, 2, 3] or '1..3'"
        )
    out = []
    for value in values:
        try:
            out.append(_override_value(value))
        except TypeError as exc:
            raise SweepError(f"{where}: {exc}; give strings, numbers, booleans or lists") from None
    if not out:
        raise SweepError(f"{where}: the list is empty; give at least one value")
    return out


def make_plan(
    scenario: Scenario | dict[str, Any] | str | os.PathLike[str],
    params: Mapping[str, Any] | Iterable[tuple[str, Any]] | None,
    seeds: Any,
    mode: str,
    names: Names,
) -> Plan:
    """Expand and check the grid: every case's scenario is validated by the engine."""
    if isinstance(scenario, dict):
        scenario = Scenario.from_dict(scenario)
    elif isinstance(scenario, ScenarioBuilder):
        scenario = scenario.build()
    elif not isinstance(scenario, Scenario):
        scenario = load(scenario)
    if scenario.fmt != "toml":
        # Cases store and run TOML text: write a dict scenario out (overrides applied).
        scenario = Scenario(scenario.to_toml(), scenario.source)
    items = list(params.items()) if isinstance(params, Mapping) else list(params or [])
    grid: list[tuple[str, list[str]]] = []
    seen: dict[str, str] = {}
    for item in items:
        key, values = item
        if not isinstance(key, str) or not key.strip() or "=" in key:
            raise SweepError(f"{names.vary}: {key!r} is not a dotted key; write e.g. defaults.cc")
        key = key.strip()
        if key.lower() in seen:
            raise SweepError(
                f"{names.param(key, values)}: {seen[key.lower()]!r} is already swept (column "
                "names ignore case); give each key once"
            )
        seen[key.lower()] = key
        grid.append((key, _param_values(key, values, names)))
        if mode != "zip" and len(set(grid[-1][1])) < len(grid[-1][1]):
            dup = next(v for v, n in Counter(grid[-1][1]).items() if n > 1)
            raise SweepError(
                f"{names.param(key, values)}: the value {dup} is given twice; give each once"
            )
    if mode not in MODES:
        raise SweepError(f"{names.mode} {mode!r}: unknown; give product or zip")
    if len(grid) <= 1:
        mode = "product"  # the same cases either way
    if mode == "zip":
        lengths = {len(values) for _, values in grid}
        if len(lengths) > 1:
            counts = ", ".join(f"{key}: {len(values)}" for key, values in grid)
            raise SweepError(
                f"{names.mode} zip: needs the same number of values for every parameter "
                f"(got {counts}); give equal lengths or use product"
            )
        combos = list(zip(*(values for _, values in grid), strict=True)) if grid else [()]
    else:
        total = math.prod(len(values) for _, values in grid)
        if total > MAX_CASES:
            raise SweepError(f"{names.vary}: {total} combinations; give at most {MAX_CASES}")
        combos = list(itertools.product(*(values for _, values in grid)))
    if len(set(combos)) < len(combos):
        dup = next(c for c, n in Counter(combos).items() if n > 1)
        shown = ", ".join(f"{k}={v}" for (k, _), v in zip(grid, dup, strict=True))
        raise SweepError(f"{names.vary}: the case {shown} comes twice; give each value once")
    seed_list = parse_seeds(seeds, names.seeds)
    if len(combos) * len(seed_list or [None]) > MAX_CASES:
        raise SweepError(f"{names.vary}: more than {MAX_CASES} cases; sweep fewer values or seeds")

    # Check every combination with the engine; without seeds take each one's own.
    name = ""
    cases: list[Case] = []
    for combo in combos:
        overrides = _overrides(scenario, grid, combo)
        try:
            checked = json.loads(_ccsim.check(scenario.text, scenario.source, overrides))
        except _ccsim.ScenarioError as exc:
            if len(grid) <= 1:
                raise SweepError(str(exc)) from None
            shown = ", ".join(overrides[len(scenario.overrides) :])
            raise SweepError(f"{exc} (in the case {shown})") from None
        name = name or checked["scenario"]["name"]
        for seed in seed_list if seed_list is not None else [checked["scenario"]["seed"]]:
            cases.append(Case(len(cases), tuple(combo), seed))

    from ccsim._sweepdb import Keys

    column_values, key_types = key_layout(grid)
    return Plan(
        scenario=scenario,
        name=name,
        params=grid,
        mode=mode,
        seeds=seed_list,
        cases=cases,
        column_values=column_values,
        keys=Keys(tuple(key_types)),
        digest=hashlib.sha256(scenario.text.encode()).hexdigest(),
    )


# Running one case (in a worker) -------------------------------------------------


def _inline_batches(tasks: list[Task]) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    since = time.monotonic()
    for task in tasks:
        batch.append(run_case(task))
        if time.monotonic() - since >= INLINE_BATCH_S:
            yield batch
            batch, since = [], time.monotonic()
    if batch:
        yield batch


def _dask_batches(tasks: list[Task], client: Any) -> Iterator[list[dict[str, Any]]]:
    """Run each case as one Dask task; yield results as they arrive."""
    import uuid

    from distributed import as_completed

    tag = uuid.uuid4().hex[:12]
    waiting = iter(tasks)
    futures: dict[Any, int] = {}  # in flight -> case id

    def submit(n: int) -> list[Any]:
        new = []
        for task in itertools.islice(waiting, n):
            key = f"ccsim-case-{tag}-{task[0]}"
            future = client.submit(run_case, task, key=key, pure=False)
            futures[future] = task[0]
            new.append(future)
        return new

    # Enough tasks in flight to keep every worker thread busy, not all of them at once.
    threads = sum(client.nthreads().values()) or 1
    window = max(DASK_MIN_IN_FLIGHT, DASK_IN_FLIGHT_PER_THREAD * threads)
    arrived = as_completed(submit(window))
    try:
        for batch in arrived.batches():
            out = []
            for future in batch:
                case_id = futures.pop(future)
                try:
                    out.append(future.result())
                except Exception as exc:  # the task itself failed, e.g. its worker died
                    out.append({"case_id": case_id, "error": f"{type(exc).__name__}: {exc}"})
                future.release()
            arrived.update(submit(len(batch)))
            yield out
    finally:
        if futures:
            client.cancel(list(futures))


# The sweep ----------------------------------------------------------------------


class _Lock:
    """``DB.lock`` beside the database, locked while a sweep writes it (fcntl)."""

    def __init__(self, db: Path, names: Names) -> None:
        import fcntl

        self.path = db.with_name(db.name + ".lock")
        self._file = open(self.path, "a+")  # noqa: SIM115 - held until release()
        try:
            fcntl.flock(self._file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._file.seek(0)
            holder = self._file.read().strip() or "another process"
            self._file.close()
            raise SweepError(
                f"{names.db} {db}: another sweep is writing it (pid {holder}); wait for it "
                f"to finish or give another {names.db}"
            ) from None
        self._file.seek(0)
        self._file.truncate()
        self._file.write(str(os.getpid()))
        self._file.flush()

    def release(self) -> None:
        with contextlib.suppress(OSError):
            self.path.unlink()
        self._file.close()


_DEFINITION_FIELDS = {
    "scenario_digest": "the scenario file's text",
    "overrides": "the --set overrides",
    "params": "the swept parameters or values",
    "mode": "the mode",
    "seeds": "the seeds",
}


def _open_database(
    db: str | os.PathLike[str] | None, plan: Plan, force: bool, names: Names
) -> tuple[Database, _Lock | None, set[int]]:
    """Open (or create) the database for ``plan``; return it, its lock and the ids of the
    cases already done."""
    import duckdb

    from ccsim import _sweepdb

    meta = {
        "param_columns": [column for column, _ in plan.keys.params],
        "definition": plan.definition,
        "scenario_source": plan.scenario.source,
        "scenario_text": plan.scenario.text,
        "ccsim_version": _ccsim.__version__,
    }
    cases = [
        {
            **plan.key_values(case),
            "overrides": json.dumps(plan.overrides(case)),
            "scenario_digest": plan.digest,
        }
        for case in plan.cases
    ]
    if db is None:
        database = _sweepdb.Database(None)
        with database.connect() as con:
            _sweepdb.initialize(con, plan.keys, meta, cases)
        return database, None, set()

    path = Path(db)
    if path.is_dir():
        raise SweepError(
            f"{names.db} {path}: is a directory; give a file such as {path / 'sweep.duckdb'}"
        )
    if path.suffix == ".toml":
        raise SweepError(
            f"{names.db} {path}: looks like a scenario file; give a database path such as "
            "out/sweep.duckdb"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = _Lock(path, names)
    try:
        database = _sweepdb.Database(path)
        if path.exists() and path.stat().st_size == 0:
            path.unlink()  # an empty file (e.g. from mktemp) is a new database
        if path.exists():
            try:
                with database.connect() as con:
                    stored = _sweepdb.read_meta(con)
                    if stored is None:
                        raise SweepError(
                            f"{names.db} {path}: is a DuckDB database but not a ccsim sweep "
                            f"(it has no sweep table); give another {names.db}"
                        )
                    same_format = stored["format"] in _sweepdb.READABLE_FORMATS
                    if same_format and stored["definition"] == plan.definition:
                        if stored["format"] == 1:
                            plan.use_legacy_keys()  # resumed in the layout it has
                        return database, lock, _sweepdb.prepare(con)
                    if not force and not same_format:
                        raise SweepError(
                            f"{names.db} {path}: was written in sweep format {stored['format']} "
                            f"(this ccsim writes {_sweepdb.FORMAT}); give another {names.db} "
                            f"or add {names.force} to replace it"
                        )
                    if not force:
                        differ = [
                            text
                            for field, text in _DEFINITION_FIELDS.items()
                            if stored["definition"].get(field) != plan.definition[field]
                        ]
                        raise SweepError(
                            f"{names.db} {path}: holds another sweep ({', '.join(differ)} "
                            f"differ); rerun the sweep that made it, give another {names.db}, "
                            f"or add {names.force} to replace it"
                        )
            except duckdb.Error as exc:
                if _sweepdb.is_locked_error(exc):
                    raise
                reason = str(exc).splitlines()[0]
                reason = "" if "not a valid DuckDB database" in reason else f" ({reason})"
                raise SweepError(
                    f"{names.db} {path}: is not a DuckDB database{reason}; give another "
                    f"{names.db}"
                ) from None
            # --force with a sweep database of another definition: start anew.
            for stale in (path, path.with_name(path.name + ".wal")):
                with contextlib.suppress(FileNotFoundError):
                    stale.unlink()
        with database.connect() as con:
            _sweepdb.initialize(con, plan.keys, meta, cases)
        return database, lock, set()
    except BaseException:
        lock.release()
        raise


def _default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _connect_dask(client: Any, names: Names) -> tuple[Any, bool]:
    """A Dask client from a Client or a scheduler address; (client, whether we own it)."""
    if not isinstance(client, str):
        return client, False
    try:
        from distributed import Client
    except ImportError as exc:  # pragma: no cover - dask is a dependency
        raise SweepError(f"{names.dask}: dask.distributed is not installed ({exc})") from None
    try:
        return Client(client, timeout=10), True
    except (OSError, TimeoutError, ValueError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise SweepError(
            f"{names.dask} {client}: cannot reach a Dask scheduler ({reason}); start one "
            "with `dask scheduler` or check the address (tcp://HOST:PORT)"
        ) from None


class _Bar:
    """A rich progress bar with ETA on stderr; does nothing when disabled."""

    def __init__(self, enabled: bool, description: str, total: int, done: int) -> None:
        self._progress: Any = None
        if not enabled:
            return
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._description = description
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(stderr=True, highlight=False),
            transient=True,
        )
        self._progress.start()
        self._task = self._progress.add_task(description, total=total, completed=done)

    def advance(self, n: int, failed: int) -> None:
        if self._progress is not None:
            text = self._description + (f" ({failed} failed)" if failed else "")
            self._progress.update(self._task, advance=n, description=text)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()


def run_sweep(
    scenario: Scenario | str | os.PathLike[str],
    params: Mapping[str, Any] | Iterable[tuple[str, Any]] | None = None,
    *,
    seeds: Any = None,
    mode: str = "product",
    db: str | os.PathLike[str] | None = None,
    jobs: int | None = None,
    client: Any = None,
    force: bool = False,
    progress: bool | None = None,
    names: Names = PYTHON_NAMES,
) -> SweepResults:
    """``ccsim.sweep`` with the names its messages use (the CLI passes its flags)."""
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise SweepError(f"{names.jobs} {jobs!r}: give a positive number of processes")
    if jobs is not None and client is not None:
        raise SweepError(
            f"{names.jobs} and {names.dask} exclude each other; the cluster's workers set "
            "the parallelism"
        )
    plan = make_plan(scenario, params, seeds, mode, names)
    owned = False
    if client is not None:
        client, owned = _connect_dask(client, names)
    try:
        database, lock, done = _open_database(db, plan, force, names)
        try:
            return _execute(plan, database, done, jobs, client, progress)
        finally:
            if lock is not None:
                lock.release()
    finally:
        if owned:
            client.close()


def _execute(
    plan: Plan,
    database: Database,
    done: set[int],
    jobs: int | None,
    client: Any,
    progress: bool | None,
) -> SweepResults:
    from ccsim import _sweepdb

    todo = [case for case in plan.cases if case.case_id not in done]
    by_id = {case.case_id: case for case in todo}
    tasks: list[Task] = [
        (case.case_id, plan.scenario.text, plan.scenario.source, plan.overrides(case), case.seed)
        for case in todo
    ]
    if client is not None:
        batches = _dask_batches(tasks, client) if tasks else _inline_batches([])
    else:
        jobs = min(jobs or _default_jobs(), len(tasks))
        if jobs > 1:
            from ccsim._sweepworker import run_batches

            batches = run_batches(tasks, jobs)
        else:
            batches = _inline_batches(tasks)
    enabled = sys.stderr.isatty() if progress is None else progress
    bar = _Bar(enabled and bool(tasks), f"sweep {plan.name}", len(plan.cases), len(done))
    start = time.perf_counter()
    failed = stored = 0
    try:
        with contextlib.closing(batches):  # type: ignore[arg-type]
            for batch in batches:
                outcomes = [_outcome(plan, by_id[item["case_id"]], item) for item in batch]
                with database.connect() as con:
                    stored += _sweepdb.write(con, plan.keys, outcomes)
                failed += sum(o.raw is None for o in outcomes)
                bar.advance(len(outcomes), failed)
    finally:
        bar.close()
    from ccsim._sweepresults import SweepResults

    return SweepResults(
        database,
        ran=stored - failed,
        skipped=len(done),
        failed=failed,
        wall_time_s=time.perf_counter() - start,
    )


def _outcome(plan: Plan, case: Case, item: dict[str, Any]) -> Any:
    from ccsim._sweepdb import Outcome

    keys = plan.key_values(case)
    if "error" in item:
        return Outcome(case.case_id, keys, None, item["error"])
    raw = json.loads(item["results"])
    # As ccsim.run: the engine reads no clock, so time the run here if it did not.
    if not raw.get("wall_time_s"):
        raw["wall_time_s"] = item["wall_time_s"]
    return Outcome(case.case_id, keys, raw)


def sweep(
    scenario: Scenario | dict[str, Any] | str | os.PathLike[str],
    params: Mapping[str, Any] | Iterable[tuple[str, Any]] | None = None,
    *,
    seeds: Any = None,
    mode: str = "product",
    db: str | os.PathLike[str] | None = None,
    jobs: int | None = None,
    client: Any = None,
    force: bool = False,
    progress: bool | None = None,
) -> SweepResults:
    """Run ``scenario`` for every combination of parameter values times every seed.

    ``params`` maps ``--set`` keys to values: a list (``["fcfs", "fq"]``), a range
    string (``"10pkt..40pkt:10pkt"``, ``"1..5"``), or a comma-separated string.
    ``mode`` is ``"product"`` (every combination) or ``"zip"`` (the i-th values
    together). ``seeds`` is a count N (seeds 1..N), a list, ``"1-5"``, or None for the
    scenario's own seed.

    Results go into the DuckDB file ``db`` (None: an in-memory database). Running the
    same sweep into the same file again runs only the cases not yet done; a file that
    holds another sweep is refused unless ``force=True``. Cases run on ``jobs``
    processes (default: all cores), or as tasks on a Dask cluster when ``client`` is a
    ``dask.distributed.Client`` or a scheduler address. ``progress`` shows a progress
    bar on stderr (default: when stderr is a terminal).

    Returns a :class:`SweepResults`. Raises :class:`SweepError` (or ScenarioError, both
    ValueErrors) for a bad definition, before running anything.
    """
    return run_sweep(
        scenario,
        params,
        seeds=seeds,
        mode=mode,
        db=db,
        jobs=jobs,
        client=client,
        force=force,
        progress=progress,
    )


__all__ = ["SweepError", "run_sweep", "sweep"]

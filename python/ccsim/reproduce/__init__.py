"""Built-in reproductions of published results.

A reproduction is one module in this package exposing ``DESCRIPTION`` (one line) and
``reproduce(out_dir, progress) -> Report``, plus one line in ``_REGISTRY`` below. Its
report carries a scoreboard (``scoreboard.py``): how many of its cells are within
tolerance of the paper, with a reason for each one that is not. A module
that holds several experiments exposes ``EXPERIMENTS = {key: (description, reproduce)}``
and is registered once per experiment as ``"module:key"``. Modules are imported only
when used, so ``ccsim list`` stays fast.
"""

from __future__ import annotations

import csv
import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import ccsim

# name -> module (in this package). Add a reproduction here.
_REGISTRY: dict[str, str] = {
    "keshav-s1": "keshav_s1",
    "keshav-s2": "keshav_s2",
    "keshav-s3": "keshav_s3",
    "dabbous": "dabbous",
    "dabbous-single": "dabbous:single",
    "dabbous-two": "dabbous:two",
    "dabbous-load": "dabbous:load",
    "dabbous-route": "dabbous:route",
    "dabbous-minbuf": "dabbous:minbuf",
    "dabbous-vs-jk": "dabbous:vs-jk",
    "leith": "leith",
    "leith-fig2": "leith:fig2",
    "leith-fig4": "leith:fig4",
    "leith-fig6": "leith:fig6",
    "leith-fig9": "leith:fig9",
    "leith-fig11": "leith:fig11",
    "leith-fig13": "leith:fig13",
    "leith-fig14": "leith:fig14",
    "welzl": "welzl",
    "welzl-fluid": "welzl:fluid",
    "welzl-fig12": "welzl:fig12",
    "welzl-fig3": "welzl:fig3",
    "welzl-fig4": "welzl:fig4",
    "welzl-fig5": "welzl:fig5",
    "welzl-fig6": "welzl:fig6",
    "heybey": "heybey",
    "heybey-mosely": "heybey:mosely",
    "heybey-params": "heybey:params",
    "heybey-stability": "heybey:stability",
    "heybey-forward": "heybey:forward",
    "heybey-table": "heybey:table",
}


class UnknownReproduction(LookupError):
    pass


class Progress(Protocol):
    """What a reproduction reports progress to (the CLI passes a rich progress bar)."""

    def start(self, total: int) -> None: ...

    def step(self, description: str) -> None:
        """Announce the next unit of work (it starts now; the previous one is done)."""

    def done(self) -> None: ...


class NoProgress:
    def start(self, total: int) -> None:
        pass

    def step(self, description: str) -> None:
        pass

    def done(self) -> None:
        pass


@dataclass
class Row:
    """One cell of a reproduced table: ours beside the paper's (None where absent).

    ``spread``: (min, max) of ours over the runs it is the mean of (phase-averaged
    cells), else None. ``bound``: "upper" when the paper's value is a bound the paper
    says ours stays under (a buffer size, an analytic bound, "less than"): the scoreboard
    then asks ours <= paper + tolerance. ``status``, ``reason``, ``link``: set by the
    scoreboard.
    """

    row: str
    column: str
    ours: float | None
    paper: float | None
    note: str | None = None
    spread: tuple[float, float] | None = None
    # The spread is wider than the cell's tolerance: the cell depends on the phase.
    phase_sensitive: bool = False
    bound: str | None = None
    status: str | None = None
    reason: str | None = None
    link: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "row": self.row,
            "column": self.column,
            "ours": self.ours,
            "paper": self.paper,
        }
        if self.note is not None:
            d["note"] = self.note
        if self.spread is not None:
            d["min"], d["max"] = self.spread
            d["phase_sensitive"] = self.phase_sensitive
        if self.bound is not None:
            d["bound"] = self.bound
        if self.status is not None:
            d["status"] = self.status
        if self.reason is not None:
            d["reason"], d["link"] = self.reason, self.link
        return d


@dataclass
class Table:
    """How to print a group of cells: a title, row labels and (column key, header) pairs.

    For the scoreboard: ``floor`` is the absolute tolerance (a number, or a dict from
    column-key prefix to number), in ``unit``; ``score_rows`` the rows it counts (None:
    all; [] for a sensitivity table, which counts none) and ``score_columns`` the columns
    (None: all).
    """

    title: str
    rows: list[str]
    columns: list[tuple[str, str]]
    floor: float | dict[str, float] = 0.0
    unit: str = ""
    score_rows: list[str] | None = None
    # The columns it counts (None: all).
    score_columns: list[str] | None = None


@dataclass
class Report:
    name: str
    rows: list[Row]
    tables: list[Table]
    files: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # Explain rules (scoreboard.Explain) for the cells of this report.
    explain: list[Any] = field(default_factory=list)
    scoreboard: Any = None
    # Claims (claims.py): the paper's inventory name, the experiments this report ran
    # and what they measured (claim id -> claims.Measured); ``claims`` is the scored board.
    paper: str | None = None
    experiments: list[str] = field(default_factory=list)
    measured: dict[str, Any] = field(default_factory=dict)
    claims: Any = None

    def score(self) -> Any:
        """Computes (and keeps) the scoreboard and, when the report names its paper, the
        claims' verdicts; returns the scoreboard."""
        from ccsim.reproduce import claims, scoreboard

        self.scoreboard = scoreboard.score(self, self.explain)
        if self.paper is not None:
            self.claims = claims.score(claims.load(self.paper), self.experiments, self.measured)
        return self.scoreboard

    def to_dict(self) -> dict[str, Any]:
        """The run's JSON: every row, the scoreboard and (with an inventory) the claims
        with their summary."""
        board = self.scoreboard if self.scoreboard is not None else self.score()
        d: dict[str, Any] = {
            "reproduction": self.name,
            "rows": [r.to_dict() for r in self.rows],
            "scoreboard": board.to_dict(),
        }
        if self.claims is not None:
            d["claims_summary"] = self.claims.summary()
            d["claims"] = self.claims.to_list()
        return d

    def cell(self, row: str, column: str) -> Row | None:
        for r in self.rows:
            if r.row == row and r.column == column:
                return r
        return None


def combine(
    name: str,
    experiments: dict[str, tuple[str, Callable[[Path, Progress], Report]]],
    out_dir: Path,
    progress: Progress,
    steps: int,
    explain: list[Any],
) -> Report:
    """Every experiment of a paper as one report (their rows, tables, files and notes in
    order), with ``<name>.csv`` holding every row; ``steps`` is the whole run's count for
    the progress bar, into which each experiment's own steps are forwarded."""
    out_dir = Path(out_dir)
    progress.start(steps)
    nested = _Nested(progress)
    rows: list[Row] = []
    tables: list[Table] = []
    files: list[Path] = []
    notes: list[str] = []
    paper: str | None = None
    ran: list[str] = []
    measured: dict[str, Any] = {}
    for _, function in experiments.values():
        report = function(out_dir, nested)
        rows += report.rows
        tables += report.tables
        files += report.files
        notes += report.notes
        paper = report.paper or paper
        ran += [e for e in report.experiments if e not in ran]
        measured.update(report.measured)
    progress.done()
    files.insert(0, write_csv(rows, out_dir / f"{name}.csv"))
    return Report(
        name, rows, tables, files, notes, explain=explain, paper=paper, experiments=ran, measured=measured
    )


class _Nested:
    """Forwards one experiment's steps into the whole run's bar."""

    def __init__(self, outer: Progress) -> None:
        self.outer = outer

    def start(self, total: int) -> None:
        pass

    def step(self, description: str) -> None:
        self.outer.step(description)

    def done(self) -> None:
        pass


@dataclass(frozen=True)
class Reproduction:
    name: str
    description: str
    reproduce: Callable[[Path, Progress], Report]


def names() -> list[str]:
    return list(_REGISTRY)


def _module(name: str) -> tuple[ModuleType, str]:
    try:
        target = _REGISTRY[name]
    except KeyError:
        from ccsim.scenarios import nearest

        known = ", ".join(_REGISTRY)
        guess = nearest(name, list(_REGISTRY))
        hint = f" (did you mean {guess!r}?)" if guess else ""
        raise UnknownReproduction(
            f"no reproduction named {name!r}{hint}; known: {known} (see `ccsim list`)"
        ) from None
    module, _, key = target.partition(":")
    return importlib.import_module(f"{__name__}.{module}"), key


def get(name: str) -> Reproduction:
    module, key = _module(name)
    if key:
        description, function = module.EXPERIMENTS[key]
        return Reproduction(name, description, function)
    return Reproduction(name, module.DESCRIPTION, module.reproduce)


def all_reproductions() -> list[Reproduction]:
    return [get(name) for name in _REGISTRY]


def write_csv(rows: list[Row], path: Path) -> Path:
    """Write reproduced rows as CSV (row, column, ours, paper, note, min, max); returns
    the path. min and max are the spread of phase-averaged cells, else empty."""
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["row", "column", "ours", "paper", "note", "min", "max"])
        for r in rows:
            writer.writerow(
                [
                    r.row,
                    r.column,
                    "" if r.ours is None else repr(r.ours),
                    "" if r.paper is None else repr(r.paper),
                    r.note or "",
                    "" if r.spread is None else repr(r.spread[0]),
                    "" if r.spread is None else repr(r.spread[1]),
                ]
            )
    return path


def run_variants(
    base: ccsim.Scenario,
    name: str,
    variants: dict[str, dict[str, str]],
    out_dir: Path,
    progress: Progress,
) -> tuple[dict[str, ccsim.Results], list[Path]]:
    """Run ``base`` once per variant (label -> ``--set`` overrides), reporting progress.

    Each run's results JSON is written to ``out_dir/runs/<label>.json`` (``/`` and spaces
    become ``-``). Returns the results by label and the files written.
    """
    import ccsim

    runs_dir = out_dir / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    progress.start(len(variants))
    results: dict[str, ccsim.Results] = {}
    files: list[Path] = []
    for label, overrides in variants.items():
        progress.step(f"{name} {label}")
        scenario = base
        for key, value in overrides.items():
            scenario = scenario.set(key, value)
        results[label] = ccsim.run(scenario)
        run_file = runs_dir / f"{label.replace('/', '-').replace(' ', '-')}.json"
        run_file.write_text(results[label].to_json(indent=2) + "\n", encoding="utf-8")
        files.append(run_file)
    progress.done()
    return results, files


def run_seeds(
    base: ccsim.Scenario,
    name: str,
    variants: dict[str, dict[str, str]],
    seeds: list[int],
    progress: Progress,
) -> dict[str, list[ccsim.Results]]:
    """Run ``base`` once per variant and seed (plain loop; nothing written). Returns the
    results of every seed by label, in seed order."""
    import ccsim

    progress.start(len(variants))
    out: dict[str, list[ccsim.Results]] = {}
    for label, overrides in variants.items():
        progress.step(f"{name} {label} x {len(seeds)} seeds")
        scenario = base
        for key, value in overrides.items():
            scenario = scenario.set(key, value)
        out[label] = [ccsim.run(scenario, seed=seed) for seed in seeds]
    progress.done()
    return out


def spread_row(
    row: str, column: str, values: list[float], paper: float | None, tolerance: float,
    note: str | None = None,
) -> Row:
    """A phase-averaged cell: the mean of ``values`` with their (min, max); phase-sensitive
    when the spread exceeds ``tolerance``."""
    import math

    lo, hi = min(values), max(values)
    mean = min(max(math.fsum(values) / len(values), lo), hi)  # no rounding outside [lo, hi]
    return Row(row, column, mean, paper, note, (lo, hi), hi - lo > tolerance)

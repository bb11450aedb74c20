"""Regression snapshots: every reproduction's key values as text, reviewed as a diff.

Each reproduction is run (at a reduced size where the full run is too slow for the
tests; the file's header says what is reduced) and written to tests/snapshots/NAME.txt,
one line per value:

    <row> | <column> | <ours>                every cell of the report, in report order
    <row> | <column> [min] | <value>         (and [max]) the spread of a mean over runs
    runs <scenario> | <counter> | <total>    the runs of a scenario and the packet
                                             counters of their flows, summed

Floats are written as ``repr`` (the shortest text that reads back as the same float),
so any change of a number is a changed line. The golden digests (tests/golden.py)
remain the bit-identity check of every run; this file says what moved, readably.

    python tests/snapshots.py [NAME ...]            # compare; show the diff of any moved
    python tests/snapshots.py --diff [NAME ...]     # table of every moved value: old, new,
                                                    # relative change (writes nothing)
    python tests/snapshots.py --update [NAME ...]   # print that table, then accept: rewrite
                                                    # the snapshots (also `make snapshots`)

The table of ``--diff`` is Markdown: paste it into the commit message and the
reproduction's notes (docs/reproductions/*.md) of a change that moves numbers.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import functools
import math
import numbers
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from unittest import mock

import ccsim
from ccsim.reproduce import NoProgress, Report, combine, get

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
ACCEPT = "python tests/snapshots.py --update NAME (or make snapshots, for all)"
# A failing test shows at most this many lines of the unified diff.
DIFF_LINES = 60
# Per flow, summed over every run of a scenario ("runs <scenario> | <counter>").
COUNTERS = ("sent_pkts", "delivered_pkts", "dropped_pkts", "retransmitted_pkts")
SEP = " | "


# ---------------------------------------------------------------------------------------
# What is run, at what size.


@dataclass(frozen=True)
class Spec:
    size: str  # for the header: "full size", or what is reduced
    run: Callable[[Path], Report]


def _full(name: str) -> Callable[[Path], Report]:
    return lambda out: get(name).reproduce(out, NoProgress())


# Leith: the flow-count sweeps with a few counts each (below and beyond the one-packet
# point), Figures 2/3 shortened, Figure 4 with fewer flows.
LEITH_COUNTS = {"100ms": (10, 128, 140), "mixed": (10, 140), "512B": (10, 420), "dack-tso": (10, 140), "dack-tso-declared": (10, 140)}
LEITH_FIG2_DURATION = "100s"
LEITH_FIG4_FLOWS = 10


def _leith(out: Path) -> Report:
    from ccsim.reproduce import leith

    sweeps = {key: replace(spec, counts=LEITH_COUNTS[key]) for key, spec in leith.SWEEPS.items()}
    fig2 = {label: {**sets, "scenario.duration": LEITH_FIG2_DURATION} for label, sets in leith.FIG2_RUNS.items()}
    with mock.patch.multiple(leith, SWEEPS=sweeps, _DONE={}, FIG2_RUNS=fig2, FIG4_FLOWS=LEITH_FIG4_FLOWS):
        return leith.reproduce(out, NoProgress())


# Welzl: each experiment's own arguments (the section 3.1 runs at full size).
WELZL_ARGS: dict[str, dict[str, Any]] = {
    "fluid": {},
    "fig12": {"bandwidths": (1, 10), "counts": (10, 100), "duration": "30s"},
    "fig3": {"duration": "30s"},
    "fig4": {"duration_left": "220s", "duration_right": "220s"},
    "fig5": {"counts": (10, 50), "duration": "15s"},
    "fig6": {"counts": (10, 50), "duration": "30s"},
}


def _welzl(out: Path) -> Report:
    from ccsim.reproduce import welzl

    experiments = {key: (text, functools.partial(f, **WELZL_ARGS[key])) for key, (text, f) in welzl.EXPERIMENTS.items()}
    # Small sweeps run inline: worker processes would cost more than they save.
    with mock.patch.object(welzl, "SWEEP_JOBS", 1):
        return combine("welzl", experiments, out, NoProgress(), 0, welzl.EXPLAIN)


# Heybey: Figures A-1..A-8 at full size; Table 3-1 on a coarse grid of a, two seeds.
HEYBEY_A_GRID = [0.30, 0.45, 0.60]
HEYBEY_SEEDS = [1, 2]


def _heybey(out: Path) -> Report:
    from ccsim.reproduce import heybey

    def table(out_dir: Path, progress: Any) -> Report:
        # In this process (TABLE_JOBS = 1), so that the scans use the reduced grid too.
        with mock.patch.multiple(heybey, A_GRID=HEYBEY_A_GRID, SEEDS=HEYBEY_SEEDS, TABLE_JOBS=1):
            return heybey.table(out_dir, progress)

    text, _ = heybey.EXPERIMENTS["table"]
    experiments = {**heybey.EXPERIMENTS, "table": (text, table)}
    return combine("heybey", experiments, out, NoProgress(), 0, heybey.EXPLAIN)


_FULL = "full size, as `ccsim reproduce {}`"
SPECS: dict[str, Spec] = {
    "keshav-s1": Spec(_FULL.format("keshav-s1"), _full("keshav-s1")),
    "keshav-s2": Spec(_FULL.format("keshav-s2"), _full("keshav-s2")),
    "keshav-s3": Spec(_FULL.format("keshav-s3"), _full("keshav-s3")),
    "dabbous": Spec(_FULL.format("dabbous"), _full("dabbous")),
    "leith": Spec(
        "reduced: the flow-count sweeps at "
        + ", ".join(f"{k} {list(v)}" for k, v in LEITH_COUNTS.items())
        + f" flows; Figures 2/3 runs {LEITH_FIG2_DURATION} (not 400 s); Figure 4 with"
        f" {LEITH_FIG4_FLOWS} flows (not 80); Figures 11-13 at full size",
        _leith,
    ),
    "welzl": Spec(
        "reduced: "
        + "; ".join(f"{k} " + (", ".join(f"{a}={v}" for a, v in kw.items()) or "at full size") for k, kw in WELZL_ARGS.items())
        + " (full: 160 s, 10-100 flows, 1-100 Mbps; Figure 4 1200 s and 300 s)",
        _welzl,
    ),
    "heybey": Spec(
        f"reduced: Table 3-1 with a in {HEYBEY_A_GRID} (not 0.30..1.10 by 0.01) and seeds"
        f" {HEYBEY_SEEDS} (not 1-5), run in one process; Figures A-1..A-8 at full size",
        _heybey,
    ),
}


# ---------------------------------------------------------------------------------------
# Running and writing.


@contextlib.contextmanager
def counting() -> Iterator[dict[str, dict[str, int]]]:
    """Within the block, sums per scenario name the runs made through ``ccsim.run`` and
    ``ccsim.sweep`` (wherever the sweep's cases ran) and their flows' COUNTERS."""
    totals: dict[str, dict[str, int]] = {}
    run, sweep = ccsim.run, ccsim.sweep

    def add(scenario: str, runs: int, flows: Any) -> None:
        t = totals.setdefault(scenario, dict.fromkeys(("runs", *COUNTERS), 0))
        t["runs"] += runs
        for c in COUNTERS:
            if c in flows:
                t[c] += int(flows[c].sum())

    def counted_run(*args: Any, **kwargs: Any) -> Any:
        results = run(*args, **kwargs)
        add(results.scenario, 1, results.flows)
        return results

    def counted_sweep(*args: Any, **kwargs: Any) -> Any:
        res = sweep(*args, **kwargs)
        flows = res.flows
        for scenario, cases in res.cases.groupby("scenario", sort=True):
            add(str(scenario), len(cases), flows[flows["case_id"].isin(cases["case_id"])])
        return res

    with mock.patch.multiple(ccsim, run=counted_run, sweep=counted_sweep):
        yield totals


def value_text(v: Any) -> str:
    """A value as the snapshot writes it: floats as repr (exact), None as None."""
    if v is None:
        return "None"
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        return str(v)
    return repr(float(v))


def _label(text: str) -> str:
    return text.replace("\n", "\\n")


def render(name: str, report: Report, totals: dict[str, dict[str, int]]) -> str:
    """The snapshot text of one reproduction's report and run totals."""
    lines = [
        f"# Regression snapshot of `ccsim reproduce {name}` (tests/snapshots.py).",
        *textwrap.wrap(f"Size: {SPECS[name].size}.", 86, initial_indent="# ", subsequent_indent="#   "),
        "# Lines: '<row> | <column> | <ours>' per cell in report order ([min], [max]: the",
        "# spread of a mean over runs); 'runs <scenario> | <counter> | <total>': the runs",
        "# of a scenario and their flows' packet counters, summed.",
        "# Review a change as a diff; accept it with `python tests/snapshots.py --update`.",
    ]
    seen: dict[str, int] = {}
    for r in report.rows:
        key = f"{_label(r.row)}{SEP}{_label(r.column)}"
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            key += f" #{seen[key]}"
        lines.append(f"{key}{SEP}{value_text(r.ours)}")
        if r.spread is not None:
            lines.append(f"{key} [min]{SEP}{value_text(r.spread[0])}")
            lines.append(f"{key} [max]{SEP}{value_text(r.spread[1])}")
    for scenario in sorted(totals):
        for counter, total in totals[scenario].items():
            lines.append(f"runs {_label(scenario)}{SEP}{counter}{SEP}{total}")
    return "\n".join(lines) + "\n"


def take(name: str, out_dir: Path | None = None) -> str:
    """Run reproduction ``name`` at its snapshot size; returns its snapshot text. Files
    go to ``out_dir`` (default: a temporary directory, removed after)."""
    spec = SPECS[name]
    with contextlib.ExitStack() as stack:
        if out_dir is None:
            out_dir = Path(stack.enter_context(tempfile.TemporaryDirectory())) / name
        with counting() as totals:
            report = spec.run(Path(out_dir))
        return render(name, report, totals)


def path(name: str) -> Path:
    return SNAPSHOTS / f"{name}.txt"


# ---------------------------------------------------------------------------------------
# Comparing.


def values(text: str) -> dict[str, str]:
    """key ('<row> | <column>') -> value text, of a snapshot's value lines."""
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.rpartition(SEP)
            out[key] = value
    return out


def relative_change(old: str, new: str) -> str:
    """(new - old) / |old| in percent, to three significant digits; '' when either is
    not a finite number, 'from 0' when old is 0."""
    try:
        a, b = float(old), float(new)
    except ValueError:
        return ""
    if not (math.isfinite(a) and math.isfinite(b)):
        return ""
    if a == 0:
        return "from 0"
    return f"{100 * (b - a) / abs(a):+.3g} %"


def moved(old_text: str, new_text: str) -> list[tuple[str, str, str, str, str]]:
    """(row, column, old, new, relative change) of every value that differs, appeared
    ('(none)' old) or went away ('(none)' new), in the new snapshot's order."""
    old, new = values(old_text), values(new_text)
    out = []
    for key in [*new, *(k for k in old if k not in new)]:
        a, b = old.get(key, "(none)"), new.get(key, "(none)")
        if a != b:
            row, _, column = key.partition(SEP)
            out.append((row, column, a, b, relative_change(a, b)))
    return out


def table(changes: list[tuple[str, str, str, str, str, str]]) -> str:
    """Markdown table of (reproduction, row, column, old, new, change) rows."""
    lines = ["| reproduction | row | column | old | new | change |", "|---|---|---|---|---|---|"]
    for c in changes:
        lines.append("| " + " | ".join(x.replace("|", "\\|") for x in c) + " |")
    return "\n".join(lines)


def diff_message(name: str, old: str, new: str, limit: int = DIFF_LINES) -> str:
    """Why snapshot ``name`` fails: its unified diff (at most ``limit`` lines, then a
    count of the rest), and how to see the values moved and to accept them."""
    diff = list(difflib.unified_diff(old.splitlines(), new.splitlines(), f"tests/snapshots/{name}.txt",
                                     f"{name} now", n=1, lineterm=""))  # fmt: skip
    shown = diff[:limit]
    if len(diff) > limit:
        shown.append(f"... and {len(diff) - limit} more diff lines")
    count = len(moved(old, new))
    return "\n".join([
        f"snapshot {name}: {count} values moved",
        *shown,
        f"Table of old -> new: python tests/snapshots.py --diff {name}",
        f"If intended, accept: {ACCEPT}; name the moved values in the commit and docs/reproductions/.",
    ])  # fmt: skip


def check(name: str, text: str) -> str | None:
    """None if ``text`` is the stored snapshot of ``name``, else why not."""
    p = path(name)
    if not p.is_file():
        return f"snapshot {name}: no {p.relative_to(SNAPSHOTS.parent.parent)}; write it with {ACCEPT}"
    old = p.read_text(encoding="utf-8")
    return None if old == text else diff_message(name, old, text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", metavar="NAME", help=f"reproductions (default: all of {', '.join(SPECS)})")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--diff", action="store_true", help="print a table of every moved value; write nothing")
    mode.add_argument("--update", action="store_true", help="print that table, then rewrite the snapshots")
    args = ap.parse_args(argv)
    unknown = [n for n in args.names if n not in SPECS]
    if unknown:
        ap.error(f"no snapshot named {', '.join(unknown)}; give any of {', '.join(SPECS)}")
    names = args.names or list(SPECS)
    changes = []
    problems = 0
    for name in names:
        print(f"running {name} ({SPECS[name].size})", file=sys.stderr, flush=True)
        text = take(name)
        old = path(name).read_text(encoding="utf-8") if path(name).is_file() else ""
        changes += [(name, *c) for c in moved(old, text)]
        if args.update:
            SNAPSHOTS.mkdir(exist_ok=True)
            path(name).write_text(text, encoding="utf-8")
        elif not args.diff:
            problem = check(name, text)
            if problem:
                problems += 1
                print(problem)
    if args.diff or args.update:
        print(table(changes) if changes else "no value moved")
        if args.update:
            print(f"wrote {len(names)} snapshots to {SNAPSHOTS}", file=sys.stderr)
        return 0
    print(f"{len(names)} snapshots, {problems} moved")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

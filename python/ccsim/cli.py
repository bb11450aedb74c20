"""The ``ccsim`` command line (docs/cli.md).

Commands, arguments, flags and JSON keys are a contract other tools rely on.
Every user error prints one line ``ccsim: error: <message>`` on stderr and exits 2.
Tables and JSON go to stdout; progress bars go to stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

from rich.console import Console
from rich.table import Table

import ccsim
from ccsim import _ccsim, _progress, _tables, components, reproduce
from ccsim._benchcases import CASES
from ccsim._benchcases import build as build_case
from ccsim._warnings import ScenarioWarning
from ccsim.components import (
    cc_registry,
    element_registry,
    flow_registry,
    param_text,
    qdisc_registry,
)
from ccsim.results import jain_index

EXIT_USAGE = 2


class CliError(Exception):
    """A user error found by the command line itself."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        _print_error(f"{message} (see `{self.prog} --help`)")
        sys.exit(EXIT_USAGE)


def _print_error(message: str) -> None:
    # One line, whatever the message: some engine messages (serde's unknown-field
    # errors) contain line breaks.
    one_line = " ".join(part.strip() for part in message.splitlines() if part.strip())
    one_line = one_line.replace(" ;", ";")
    print(f"ccsim: error: {one_line}", file=sys.stderr)


def _nonneg_int(what: str):
    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if value < 0:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
        # The engine takes these as 64-bit integers (a larger seed used to end in a
        # traceback from `ccsim bench`).
        if value >= 2**64:
            raise argparse.ArgumentTypeError(f"{text!r} is too large; give at most {2**64 - 1}")
        return value

    return convert


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="ccsim",
        description="Packet-level discrete-event network simulator for congestion-control "
        "research.",
    )
    parser.add_argument("--version", action="version", version=f"ccsim {ccsim.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("run", help="run one scenario file", description="Run one scenario file.")
    p.add_argument(
        "file",
        metavar="FILE",
        help="scenario file (TOML), or the name of a built-in scenario (keshav-s1)",
    )
    p.add_argument(
        "--seed",
        type=_nonneg_int("a non-negative integer"),
        help="random seed (overrides [scenario].seed)",
    )
    p.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a field of the file, e.g. --set defaults.cc=reno (repeatable)",
    )
    p.add_argument("--json", action="store_true", help="print the results as one JSON object")
    p.add_argument(
        "--out",
        metavar="DIR",
        type=Path,
        help="write summary.json, CSV tables, time series and plots (with finite flows "
        "also fct.csv, fct_summary.csv and FCT plots) into DIR (a new or empty directory, "
        "unless --force)",
    )
    p.add_argument(
        "--pcap",
        metavar="DIR",
        type=Path,
        help="capture every channel and write one libpcap file per channel into DIR",
    )
    p.add_argument(
        "--max-events",
        type=_nonneg_int("a positive integer"),
        metavar="N",
        help="stop after N events (the results are marked partial)",
    )
    p.add_argument(
        "--max-wall",
        type=float,
        metavar="SECONDS",
        help="stop after this much wall-clock time (the results are marked partial); "
        "writing the output counts too: series points and plots beyond it are left out",
    )
    _figure_flags(p)
    _output_flags(p, rows=True)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser(
        "list",
        help="list the built-in reproductions, or the flow kinds, congestion controls, queue "
        "disciplines or network elements",
        description="List the reproductions (the default), or every flow kind (`flow`, with "
        "the sender and receiver it pairs), congestion control (`cc`), queue discipline "
        "(`qdisc`) or network element (`element`) of the engine's registries with its "
        "parameters and their defaults. `--markdown` prints them all as the reference page "
        "docs/components.md.",
    )
    p.add_argument(
        "what",
        nargs="?",
        choices=("reproductions", "flow", "cc", "qdisc", "element"),
        default="reproductions",
        help="reproductions (default), flow (flow kinds), cc (congestion controls), qdisc "
        "(queue disciplines) or element (network elements)",
    )
    p.add_argument(
        "--markdown",
        action="store_true",
        help="print every registry as the Markdown page docs/components.md (no WHAT)",
    )
    p.add_argument(
        "--scenarios",
        action="store_true",
        help="print the built-in scenario files `ccsim run NAME` takes, each with its "
        "description (no WHAT)",
    )
    p.set_defaults(func=cmd_list)

    p = sub.add_parser(
        "reproduce",
        help="reproduce a published result beside the paper's numbers",
        description="Run a built-in reproduction; print our table beside the paper's and "
        "write the figures.",
    )
    p.add_argument("name", metavar="NAME", help="reproduction name (see `ccsim list`)")
    p.add_argument(
        "--out",
        metavar="DIR",
        type=Path,
        help="output directory (default out/NAME, or none with --json; a new or empty "
        "directory, unless --force)",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help='print the JSON object {"reproduction", "rows", "scoreboard", "claims_summary", '
        '"claims"} instead of tables (rows: {"row", "column", "ours", "paper", ...}; claims: '
        '{"kind", "source", "paper", "ours", "verdict", "reason", ...}; docs/cli.md); files '
        "are written only with --out",
    )
    p.add_argument(
        "--no-report",
        action="store_true",
        help="do not write DIR/report.html (the HTML page of the tables, scoreboard, "
        "figures and runs)",
    )
    _figure_flags(p)
    _output_flags(p, rows=False)
    p.set_defaults(func=cmd_reproduce)

    p = sub.add_parser(
        "report",
        help="write one self-contained HTML page about a run, a reproduction or a sweep",
        description="Write one self-contained HTML page (interactive plots, tables; no "
        "network needed to view it) about the --out directory of `ccsim run` or `ccsim "
        "reproduce`, or a sweep's database (or a directory holding one).",
    )
    p.add_argument(
        "path",
        metavar="RUN_OR_SWEEP",
        type=Path,
        help="a `ccsim run --out` or `ccsim reproduce --out` directory, or a sweep's "
        ".duckdb file",
    )
    p.add_argument(
        "--out",
        metavar="FILE",
        type=Path,
        help="the HTML file (default DIR/report.html, or <db stem>.html beside a database; "
        "replaced if it exists)",
    )
    p.add_argument(
        "--max-points",
        type=_nonneg_int("a positive integer"),
        default=4000,
        metavar="N",
        help="at most N points per plotted series: longer ones keep the minimum and "
        "maximum of N/2 buckets (default 4000)",
    )
    p.set_defaults(func=cmd_report)

    p = sub.add_parser(
        "sweep",
        help="run a scenario over a grid of --set values times seeds, into one database",
        description="Run a scenario for every combination of --vary values times every "
        "seed, in parallel, storing all results in one DuckDB database; a rerun of the "
        "same sweep skips the cases already done (docs/sweeps.md).",
    )
    p.add_argument("file", metavar="FILE", help="scenario file (TOML)")
    p.add_argument(
        "--vary",
        action="append",
        default=[],
        metavar="KEY=VALUES",
        help="a swept --set key and its values: a list (fcfs,fq), a range (1..5, "
        "10Mbps..50Mbps:10Mbps, 10pkt..80pkt*2) or a TOML array (repeatable)",
    )
    p.add_argument(
        "--mode",
        choices=["product", "zip"],
        default="product",
        help="combine the --vary lists as every combination (product, the default) or "
        "element by element (zip)",
    )
    p.add_argument(
        "--seeds",
        metavar="SEEDS",
        help="a count N (seeds 1..N), a range A-B or a list 1,3,7 (default: the "
        "scenario's seed)",
    )
    p.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a field of the file in every case (repeatable)",
    )
    p.add_argument(
        "--db",
        metavar="PATH",
        type=Path,
        help="the DuckDB database file (default out/sweep-<FILE stem>.duckdb)",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="replace a database that holds a different sweep",
    )
    p.add_argument(
        "--jobs",
        type=_nonneg_int("a positive integer"),
        metavar="N",
        help="worker processes (default: all cores)",
    )
    p.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="run each case as a task on this Dask scheduler (tcp://HOST:PORT)",
    )
    p.add_argument(
        "--parquet",
        metavar="DIR",
        type=Path,
        help="also export every table as DIR/<table>.parquet",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.set_defaults(func=cmd_sweep)

    p = sub.add_parser(
        "bench",
        help="speed benchmark: N Reno flows over a dumbbell, or a datacenter case",
        description="Speed benchmark: N Reno flows (or --cc) over one drop-tail bottleneck "
        "(access links 10x the bottleneck rate, one bandwidth-delay product of buffer, "
        "100 ms RTT, 1000 B packets); or, with --case, a datacenter fabric: leaf-spine (8 "
        "leaves of 16 hosts, 4 spines, 10/40 Gbps, 1 us links, ECMP) with the web-search "
        "workload at 60%% load, the same with flows of 15 kB (short-flows: 6.4 million "
        "a second, for memory per completed flow), or a k = 8 fat-tree (10 Gbps) with a "
        "permutation of long-lived flows, 1500 B packets (docs/performance.md).",
    )
    p.add_argument(
        "--case",
        choices=list(CASES),
        default="dumbbell",
        help="the scenario: %(choices)s (default dumbbell)",
    )
    p.add_argument(
        "--flows",
        type=_nonneg_int("a positive integer"),
        default=None,
        metavar="N",
        help="number of flows (dumbbell only; default 100)",
    )
    p.add_argument(
        "--bottleneck",
        default=None,
        metavar="RATE",
        help="bottleneck rate (dumbbell only; default 100Mbps)",
    )
    p.add_argument(
        "--time",
        default=None,
        metavar="T",
        help="simulated time (default 60s; 0.1s for leaf-spine and fat-tree)",
    )
    p.add_argument(
        "--seed", type=_nonneg_int("a non-negative integer"), default=1, help="seed (default 1)"
    )
    p.add_argument(
        "--qdisc",
        choices=[q["name"] for q in qdisc_registry()],
        default=None,
        metavar="NAME",
        help="bottleneck queue discipline, with its default parameters (default fcfs, "
        "drop-tail; for a policy that needs ECN, --cc dctcp, RED as a step marker at K = the smallest whole number of "
        "packets above C x RTT / 7, as the DCTCP paper; `ccsim list qdisc` lists them): "
        "%(choices)s",
    )
    p.add_argument(
        "--cc",
        type=_bench_cc,
        default="reno",
        metavar="NAME",
        help="every flow's congestion control, with its default parameters (default reno; "
        "`ccsim list cc` lists them), or one written in Python as module:Class "
        "(docs/python-cc.md): " + ", ".join(c["name"] for c in cc_registry()),
    )
    p.add_argument(
        "--sack",
        action="store_true",
        help="every flow with SACK (dumbbell only; as `sack = true` in a scenario; for cc "
        + ", ".join(c["name"] for c in cc_registry() if c["sack"])
        + ")",
    )
    p.add_argument(
        "--results",
        action="store_true",
        help="also hand the run's full results to Python (columns, then Results with its "
        "flows and links tables), timing that and the JSON export",
    )
    p.add_argument(
        "--repeat",
        type=_nonneg_int("a positive integer"),
        default=1,
        metavar="N",
        help="run the benchmark N times in this process and report the median, fastest and "
        "slowest delivered packets per run-second (the speed goal's figure is the median of "
        "at least 8 runs); the other figures are those of the median run (default 1)",
    )
    p.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    p.set_defaults(func=cmd_bench)
    return parser


# The same as ccsim.plots.FORMATS, not imported from there: parsing arguments must not
# import matplotlib (a test keeps the two equal).
FIGURE_FORMATS = ("png", "pdf", "svg")


def _figure_formats(text: str) -> tuple[str, ...]:
    formats = tuple(dict.fromkeys(f.strip().lower().lstrip(".") for f in text.split(",")))
    bad = [f for f in formats if f not in FIGURE_FORMATS]
    if bad or not formats:
        raise argparse.ArgumentTypeError(
            f"{text!r}: unknown format {', '.join(bad)!r}; give some of png,pdf,svg"
        )
    return formats


def _figure_size(text: str) -> tuple[float, float]:
    try:
        width, height = (float(x) for x in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: not WIDTHxHEIGHT in inches; give e.g. 3.5x2.5"
        ) from None
    if not (1.0 <= width <= 50.0 and 1.0 <= height <= 50.0):
        raise argparse.ArgumentTypeError(f"{text!r}: give a width and a height of 1 to 50 inches")
    return width, height


def _figure_dpi(text: str) -> int:
    if not text.isdigit() or not 20 <= int(text) <= 2400:
        raise argparse.ArgumentTypeError(f"{text!r}: give a whole number of dots per inch, 20 to 2400")
    return int(text)


def _figure_flags(p: argparse.ArgumentParser) -> None:
    """--format, --size, --dpi: the figures --out writes."""
    p.add_argument(
        "--format",
        dest="formats",
        type=_figure_formats,
        default=("png",),
        metavar="LIST",
        help="figure formats, any of png,pdf,svg (default png)",
    )
    p.add_argument(
        "--size",
        type=_figure_size,
        default=(8.0, 4.0),
        metavar="WxH",
        help="figure size in inches (default 8x4; e.g. 3.5x2.5 for one paper column)",
    )
    p.add_argument(
        "--dpi",
        type=_figure_dpi,
        default=120,
        metavar="N",
        help="resolution of PNG figures in dots per inch (default 120)",
    )


def _output_flags(p: argparse.ArgumentParser, *, rows: bool) -> None:
    """Flags shared by run and reproduce: how much to print, and --force for --out."""
    p.add_argument(
        "--force",
        action="store_true",
        help="write into a non-empty --out directory (files of the same names are replaced)",
    )
    p.add_argument(
        "--wide",
        action="store_true",
        help="print tables at full width (default: fitted to the terminal, dropping "
        "or splitting columns)",
    )
    if rows:
        p.add_argument(
            "--all",
            dest="all_rows",
            action="store_true",
            help=f"print every flow and channel (default: a summary beyond {SUMMARY_ROWS} rows)",
        )
    p.add_argument(
        "--quiet",
        action="store_true",
        help="print nothing but errors (files are still written; --json still prints)",
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args) or 0
    except (
        _ccsim.ScenarioError,
        ccsim.SweepError,
        CliError,
        reproduce.UnknownReproduction,
    ) as exc:
        _print_error(str(exc))
        return EXIT_USAGE
    except OSError as exc:
        if isinstance(exc, BrokenPipeError):
            # The reader went away (e.g. `| head`): what it wanted was written; stay
            # quiet and succeed, as other tools do.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return 0
        name = f"{exc.filename}: " if exc.filename else ""
        _print_error(f"{name}{exc.strerror or exc}")
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("ccsim: interrupted", file=sys.stderr)
        return 130
    except _ccsim.CongestionControlError as exc:
        # The user's Python policy raised: its traceback, then where in the run.
        if exc.__cause__ is not None:
            import traceback

            traceback.print_exception(exc.__cause__, file=sys.stderr)
        _print_error(str(exc))
        return 1
    except RuntimeError as exc:
        # The binding turns an engine panic into RuntimeError: a bug, not a user error.
        if os.environ.get("CCSIM_DEBUG"):
            raise
        print(
            f"ccsim: internal error: {exc} (please report it; CCSIM_DEBUG=1 shows a traceback)",
            file=sys.stderr,
        )
        return 1


# Output helpers ------------------------------------------------------------------------

# `ccsim run` prints every flow (and channel) up to this many; beyond, a summary (--all).
SUMMARY_ROWS = 20
# How many of the first and of the last flows (by goodput) a summary shows.
SUMMARY_EDGE = 5


def _stdout(wide: bool = False) -> Console:
    # As wide as the terminal (COLUMNS if set; 200 when stdout is not a terminal), or
    # unbounded with --wide; no colour highlighting.
    return _tables.console(wide)


def _stderr() -> Console:
    return Console(stderr=True, highlight=False)


# The formats of numbers with units, shared with the HTML report (ccsim/_tables.py).
fmt_rate = _tables.rate
fmt_time = _tables.seconds
fmt_num = _tables.number


def _table(title: str, headers: list[str]) -> Table:
    return _tables.make_table(
        title, [_tables.Column(h, justify="left" if i == 0 else "right") for i, h in enumerate(headers)]
    )


def check_out_dir(out: Path, force: bool, *, default: bool = False) -> None:
    """Refuse to write into a file or, without --force, into a non-empty directory."""
    what = f"{out} (the default --out)" if default else f"--out {out}"
    if out.exists() and not out.is_dir():
        raise CliError(f"{what}: is a file; give a directory")
    if out.is_dir() and not force and any(out.iterdir()):
        raise CliError(
            f"{what}: directory is not empty; add --force to write into it (files of the "
            "same names are replaced) or give a new directory"
        )


# ccsim run -----------------------------------------------------------------------------


def scenario_file(name: str) -> Path:
    """FILE as given, or the built-in scenario of that name when no such file exists
    (``ccsim run keshav-s1`` works wherever ccsim is installed)."""
    path = Path(name)
    from ccsim import scenarios

    if path.exists():
        return path
    if path.suffix or "/" in name or os.sep in name:
        # A file that is not there: a near name beside it, else a near built-in one.
        beside = sorted(p.name for p in path.parent.glob("*.toml")) if path.parent.is_dir() else []
        near = scenarios.nearest(path.name, beside)
        if near is not None:
            raise CliError(f"{name}: no such file; did you mean {path.parent / near}?")
        guess = scenarios.nearest(path.stem)
        if guess is not None:
            raise CliError(f"{name}: no such file; did you mean `ccsim run {guess}` (built in)?")
        return path

    if name in scenarios.names():
        return scenarios.scenario_path(name)
    guess = scenarios.nearest(name)
    hint = f"did you mean `ccsim run {guess}`? " if guess else ""
    raise CliError(
        f"{name}: no such file, and no built-in scenario of that name; {hint}"
        "`ccsim list --scenarios` lists the built-in ones"
    )


@contextmanager
def _scenario_warnings(show: bool) -> Iterator[None]:
    """Scenario warnings (ccsim.ScenarioWarning) issued inside: printed on stderr as
    ``ccsim: warning: ...`` with ``show``, else left out; other warnings as before."""

    def print_one(message: Any, category: Any, *rest: Any, **kw: Any) -> None:
        if issubclass(category, ScenarioWarning):
            _print_warning(str(message))
        else:
            previous(message, category, *rest, **kw)

    with warnings.catch_warnings():
        previous = warnings.showwarning
        warnings.simplefilter("always" if show else "ignore", ScenarioWarning)
        warnings.showwarning = print_one
        yield


def cmd_run(args: argparse.Namespace) -> int:
    from ccsim import output

    # The warnings of the scenario as run (its overrides applied) are printed once,
    # before the run, by ccsim.run below.
    with _scenario_warnings(show=False):
        scenario = ccsim.load(scenario_file(args.file)).with_overrides(args.overrides)
    if args.max_events == 0:
        raise CliError("--max-events 0: give a positive number of events")
    if args.max_wall is not None and not args.max_wall > 0:
        raise CliError(f"--max-wall {args.max_wall:g}: give a positive number of seconds")
    warn_bytes = _output_warn_bytes()
    if args.out is not None:
        check_out_dir(args.out, args.force)
    if args.pcap is not None and Path(args.pcap).exists() and not Path(args.pcap).is_dir():
        # Checked before the run (it used to end, after the run, in "afile: File exists").
        raise CliError(f"--pcap {args.pcap}: is a file; give a directory")
    as_written = scenario  # scenario.toml leaves out the capture --pcap adds
    if args.pcap is not None:
        from ccsim.pcap import with_capture

        scenario = with_capture(scenario)
    checked_doc: list[dict[str, Any]] = []

    def checked() -> dict[str, Any]:
        if not checked_doc:
            checked_doc.append(scenario.check())
        return checked_doc[0]

    interrupted = False
    started = output.clock()
    try:
        with _scenario_warnings(show=not args.quiet):
            results = ccsim.run(
                scenario,
                seed=args.seed,
                progress=not args.quiet,
                max_events=args.max_events,
                max_wall=args.max_wall,
            )
    except ccsim.Interrupted as exc:
        results = exc.results
        interrupted = True
    if results.partial:
        _stderr().print(
            f"ccsim: partial results: stopped ({(results.stop_reason or '').replace('_', ' ')}) "
            f"at {results.sim_time_s:g} s of {checked()['scenario']['duration']}"
        )
    # The wall-clock budget covers the output too: what grows with the series stops
    # when it runs out (ccsim.output, "Deadline").
    series_out = bool(results.series_names) and (args.json or args.out is not None)
    budget, budget_flag = args.max_wall, "--max-wall"
    if budget is None and (series_out or args.out is not None):
        budget, budget_flag = _scenario_max_wall(checked()), "[scenario].max_wall"
    deadline = output.Deadline.after_run(started, budget)
    if series_out and not args.quiet:
        outputs = [("JSON on stdout", "json")] if args.json else []
        if args.out is not None:
            outputs += [("summary.json", "json"), ("series/*.csv", "csv")]
        _warn_output_size(results, outputs, warn_bytes)
    written: list[Path] = []
    if args.pcap is not None:
        from ccsim.pcap import write_pcaps

        pcaps = write_pcaps(results, args.pcap)
        if not args.quiet:
            _stderr().print(f"wrote {len(pcaps)} pcap files to {args.pcap}/")
    if args.out is not None:
        from ccsim import plots

        with plots.figure_options(args.formats, args.size, args.dpi):
            written = output.write_results(results, args.out, checked(), deadline)
        written.append(output.write_scenario(as_written, args.out))
    if args.json:
        output.write_json(results, sys.stdout, deadline=deadline, where="JSON on stdout")
        sys.stdout.write("\n")
        sys.stdout.flush()
    if deadline.cuts:
        _print_cuts(deadline, budget_flag, budget)
    status = 130 if interrupted else 0
    if args.json:
        if written and not args.quiet:
            _stderr().print(f"wrote {len(written)} files to {args.out}/")
        return status
    if args.quiet:
        return status
    console = _stdout(args.wide)
    print_results(results, console, all_rows=args.all_rows)
    if written:
        console.print(f"\nwrote {len(written)} files to {args.out}/")
    return status


# Output of more than this many bytes of series gets a warning (CCSIM_OUTPUT_WARN_MB).
OUTPUT_WARN_MB = 100.0


def _output_warn_bytes() -> float:
    text = os.environ.get("CCSIM_OUTPUT_WARN_MB")
    if text is None or not text.strip():
        return OUTPUT_WARN_MB * 1e6
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):
        raise CliError(
            f"CCSIM_OUTPUT_WARN_MB={text!r}: give a number of megabytes (default {OUTPUT_WARN_MB:g})"
        )
    return value * 1e6


def _scenario_max_wall(checked: dict[str, Any]) -> float | None:
    text = checked["scenario"].get("max_wall")
    return None if text is None else _ccsim.parse_time(text)


def _mb(n: float) -> str:
    return f"{n / 1e6:.3g} MB" if n >= 1e5 else f"{n / 1e3:.3g} kB"


def _nice_below(x: float) -> int:
    """The largest of 1, 2, 5, 10, 20, 50, ... not above ``x`` (at least 10)."""
    best = 10
    k = 1
    while k <= x:
        for m in (1, 2, 5):
            if m * k <= x:
                best = max(best, m * k)
        k *= 10
    return best


def _warn_output_size(
    results: ccsim.Results, outputs: list[tuple[str, str]], limit: float
) -> None:
    """On stderr, before anything is written: the series' points will take more than
    ``limit`` bytes in ``outputs`` ((what, format) pairs); the largest series, and a
    max_points that fits."""
    from ccsim import output

    sizes = output.estimate_sizes(results, [fmt for _, fmt in outputs])
    total = sum(sizes.values())
    if total <= limit:
        return
    points = results.series_points()
    largest = sorted(sizes, key=lambda n: (-sizes[n], n))
    listed = ", ".join(f"{n} {points[n]:,} points, {_mb(sizes[n])}" for n in largest[:5])
    if len(largest) > 5:
        listed += f" and {len(largest) - 5} more series"
    # Each series at most N points, N * (bytes per point, over all series) within half
    # the limit; no more than 10000 (more than a plot shows).
    per_point = sum(sizes[n] / points[n] for n in sizes if points[n])
    suggest = min(_nice_below(limit / 2 / per_point), 10000) if per_point else 10000
    where = ", ".join(what for what, _ in outputs)
    _print_warning(
        f"the time series will take about {_mb(total)} ({where}): {listed}. "
        f"Writing it goes on; to sample them: --set measure.max_points={suggest} (or "
        "measure.sample=<width>; docs/scenario-format.md, \"Time series\")"
    )


def _print_warning(message: str) -> None:
    print(f"ccsim: warning: {message}", file=sys.stderr)


def _print_cuts(deadline: Any, flag: str, budget: float | None) -> None:
    """On stderr: the wall-clock budget ran out while writing, and what was left out."""
    print(
        f"ccsim: {flag} {budget:g} s ran out while writing the output, which is "
        "incomplete: "
        + "; ".join(f"{where}: {', '.join(what)}" for where, what in deadline.cuts.items())
        + ". The counters and tables are complete; a JSON series cut short says how many "
        "points it left out (points_left_out). Sampled series (--set "
        "measure.max_points=N) are written in less time.",
        file=sys.stderr,
    )


def print_results(results: ccsim.Results, console: Console, *, all_rows: bool = False) -> None:
    """The header line and the tables of flows, channels and phases, fitted to the
    console's width; beyond SUMMARY_ROWS flows or channels, a summary unless ``all_rows``."""
    Col = _tables.Column
    raw = results._head()  # the tables need no series' points
    console.print(
        f"[bold]{raw['scenario']}[/bold]  seed {raw['seed']}  "
        f"{raw['sim_time_s']:g} s simulated in {raw['wall_time_s']:.3g} s, "
        f"{raw['events']:,} events"
    )
    flows = raw["flows"]
    flow_columns = [
        Col("flow", justify="left"), Col("kind", 5), Col("cc", 3), Col("from", 8),
        Col("to", 8), Col("sent", 6), Col("delivered"), Col("retx", 4), Col("dropped", 2),
        Col("goodput"), Col("pkt/s", 7), Col("rtt min", 9), Col("rtt mean", 2),
        Col("rtt max", 9),
    ]  # fmt: skip

    def flow_row(f: dict[str, Any]) -> list[str]:
        return [
            f["name"], f["kind"], f.get("cc") or "-", f["from"], f["to"],
            fmt_num(f["sent_pkts"]), fmt_num(f["delivered_pkts"]),
            fmt_num(f["retransmitted_pkts"]), fmt_num(f["dropped_pkts"]),
            fmt_rate(f["goodput_bps"]), fmt_num(f["goodput_pps"]),
            fmt_time(f["rtt_min_s"]), fmt_time(f["rtt_mean_s"]), fmt_time(f["rtt_max_s"]),
        ]  # fmt: skip

    if all_rows or len(flows) <= SUMMARY_ROWS:
        _tables.print_table(console, "Flows", flow_columns, [flow_row(f) for f in flows])
    else:
        ranked = sorted(flows, key=lambda f: (-f["goodput_bps"], f["name"]))
        rows: list[list[str] | None] = [flow_row(f) for f in ranked[:SUMMARY_EDGE]]
        rows.append(None)
        rows += [flow_row(f) for f in ranked[-SUMMARY_EDGE:]]
        _tables.print_table(
            console,
            f"Flows: the {SUMMARY_EDGE} highest and {SUMMARY_EDGE} lowest goodputs of "
            f"{len(flows)}",
            flow_columns,
            rows,
            notes=[
                _flow_aggregates(flows),
                f"{len(flows) - 2 * SUMMARY_EDGE} flows not shown (--all shows every flow).",
            ],
        )

    channels = raw["links"]
    channel_columns = [
        Col("channel", justify="left"), Col("rate", 3), Col("delay", 4), Col("qdisc", 5),
        Col("buffer", 6), Col("tx pkts", 2), Col("drops"), Col("util"),
        Col("queue mean", 1), Col("queue max", 3),
    ]  # fmt: skip

    def channel_row(c: dict[str, Any]) -> list[str]:
        buffer = (
            f"{c['buffer_pkts']} pkt" if c.get("buffer_pkts") is not None
            else f"{c['buffer_bytes']} B" if c.get("buffer_bytes") is not None
            else "-"
        )  # fmt: skip
        return [
            c["name"], fmt_rate(c["rate_bps"]), fmt_time(c["delay_s"]), c["qdisc"], buffer,
            fmt_num(c["tx_pkts"]), fmt_num(c["drops"]), f"{100 * c['utilization']:.1f}%",
            fmt_num(c["queue_mean_pkts"]), fmt_num(c["queue_max_pkts"]),
        ]  # fmt: skip

    if all_rows or len(channels) <= SUMMARY_ROWS:
        _tables.print_table(console, "Channels", channel_columns, [channel_row(c) for c in channels])
    else:
        busiest = sorted(channels, key=lambda c: (-c["utilization"], -c["drops"], c["name"]))
        shown = busiest[: 2 * SUMMARY_EDGE]
        _tables.print_table(
            console,
            f"Channels: the {len(shown)} busiest of {len(channels)}",
            channel_columns,
            [channel_row(c) for c in shown],
            notes=[
                f"{len(channels) - len(shown)} channels not shown, with "
                f"{sum(c['drops'] for c in busiest[len(shown):]):,} drops in all "
                "(--all shows every channel)."
            ],
        )

    if raw.get("phases"):
        phase_columns = [
            Col("phase", justify="left"), Col("start", 4), Col("end", 4),
            Col("flow", justify="left"), Col("sent", 3), Col("delivered", 2), Col("retx", 3),
            Col("dropped", 2), Col("goodput"), Col("loss", 1), Col("retransmission", 1),
        ]  # fmt: skip
        summary = not all_rows and len(flows) > SUMMARY_ROWS
        rows = []
        for phase in raw["phases"]:
            entries = phase["flows"]
            if summary:
                entries = [_sum_flows(entries, f"all {len(entries)} flows")]
            for f in entries:
                rows.append(
                    [
                        phase["name"], f"{phase['start_s']:g} s", f"{phase['end_s']:g} s",
                        f["name"], fmt_num(f["sent_pkts"]), fmt_num(f["delivered_pkts"]),
                        fmt_num(f["retransmitted_pkts"]), fmt_num(f["dropped_pkts"]),
                        fmt_num(f["goodput_pps"]), fmt_num(f["loss_pps"]),
                        fmt_num(f["retransmission_pps"]),
                    ]
                )  # fmt: skip
        _tables.print_table(
            console,
            "Phases (per flow, rates in packets/s)" if not summary
            else "Phases (all flows together, rates in packets/s; --all: per flow)",
            phase_columns,
            rows,
        )
    if raw.get("intervals"):
        console.print(
            f"{len(raw['intervals'])} intervals recorded (see --json or --out for them)."
        )
    if results.series_names:
        names = results.series_names
        listed = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
        console.print(f"Time series: {listed} (see --json or --out).")


def _flow_aggregates(flows: list[dict[str, Any]]) -> str:
    """One line: total goodput, mean/min/max per flow, Jain's fairness index."""
    goodputs = [float(f["goodput_bps"]) for f in flows]
    total = sum(goodputs)
    jain = jain_index(goodputs)
    return (
        f"All {len(flows)} flows: goodput {fmt_rate(total)} in total; per flow mean "
        f"{fmt_rate(total / len(goodputs))}, min {fmt_rate(min(goodputs))}, max "
        f"{fmt_rate(max(goodputs))}; Jain's fairness index "
        f"{'-' if jain is None else f'{jain:.3f}'}; "
        f"{sum(f['dropped_pkts'] for f in flows):,} packets dropped, "
        f"{sum(f['retransmitted_pkts'] for f in flows):,} retransmitted."
    )


def _sum_flows(entries: list[dict[str, Any]], name: str) -> dict[str, Any]:
    """A phase's flow counters added up (rates too: they are per flow, so they add)."""
    total: dict[str, Any] = {"name": name}
    for key in ("sent_pkts", "delivered_pkts", "retransmitted_pkts", "dropped_pkts"):
        total[key] = sum(int(e[key]) for e in entries)
    for key in ("goodput_pps", "loss_pps", "retransmission_pps"):
        total[key] = sum(float(e[key] or 0.0) for e in entries)
    return total


# ccsim list ----------------------------------------------------------------------------


def cmd_list(args: argparse.Namespace) -> int:
    if args.scenarios:
        if args.markdown or args.what != "reproductions":
            raise CliError("list: --scenarios lists the scenario files; give no WHAT or --markdown with it")
        return _list_scenarios()
    if args.markdown:
        if args.what != "reproductions":
            raise CliError("list: --markdown prints every registry; give no WHAT with it")
        print(components.markdown(), end="")
        return 0
    if args.what == "flow":
        return _list_flows()
    if args.what == "cc":
        return _list_cc()
    if args.what == "qdisc":
        return _list_components(
            qdisc_registry(),
            '(a link or [defaults] gives qdisc = "NAME", or a table { kind = "NAME", '
            "<parameter> = ... }; docs/scenario-format.md)",
        )
    if args.what == "element":
        return _list_components(
            element_registry(),
            '([[elements]] gives kind = "NAME", at = a channel "a->b", a link or a list of them, '
            "and the parameters; required: no default, the value shown is an example; "
            "unset: not given by default; docs/scenario-format.md)",
        )
    entries = reproduce.all_reproductions()
    width = max(len(r.name) for r in entries)
    for r in entries:
        print(f"{r.name:<{width}}  {r.description}")
    return 0


def _list_scenarios() -> int:
    """Each built-in scenario file (the names ``ccsim run NAME`` takes): its name and its
    ``[scenario].description`` (else its leading comment's first line)."""
    from ccsim import scenarios

    names = scenarios.names()
    width = max((len(n) for n in names), default=0)
    for name in names:
        print(f"{name:<{width}}  {scenarios.description(scenarios.scenario_path(name))}")
    print(f"(`ccsim run NAME` runs one; the files are in {scenarios.scenarios_dir()})")
    return 0


def _list_cc() -> int:
    """Each congestion control: its name (aliases), its description, its own parameters
    and the transport's loss-recovery parameters it accepts, each as ``name = default`` in
    scenario-file syntax (``name unset`` where unset by default), and its own series, if
    any."""
    for c in cc_registry():
        aliases = f" ({', '.join(c['aliases'])})" if c["aliases"] else ""
        print(f"{c['name']}{aliases}  {c['description']}")
        own = [param_text(p) for p in c["parameters"] if not p.get("transport")]
        transport = [param_text(p) for p in c["parameters"] if p.get("transport")]
        print(f"    parameters: {', '.join(own) if own else 'none'}")
        if transport:
            print(f"    transport: {', '.join(transport)}")
        if c["extra_series"]:
            print(f"    series: {', '.join(c['extra_series'])}")
    print(
        "(all go in [flows.params]; transport: the retransmission timer and fast "
        "retransmit, the window transport's, with this policy's defaults; unset: not given "
        "by default; docs/scenario-format.md says what the policy does then, e.g. the "
        "flow's maximum window)"
    )
    print(
        "(or cc = \"module:Class\": a congestion control written in Python, docs/python-cc.md; "
        "examples/reno.py is the built-in reno)"
    )
    return 0


def _list_flows() -> int:
    """Each flow kind: its name and description, the sender and receiver it pairs with
    theirs, its keys of ``[[flows]]`` as ``name = default`` in scenario-file syntax
    (``name unset`` where unset by default, ``name = value (required)`` with an example
    where required, ``[defaults]`` where that section sets it too) and the parameters of
    its own table."""
    entries = flow_registry()
    for f in entries:
        print(f"{f['name']}  {f['description']}")
        print(f"    sender: {f['sender']['name']}  {f['sender']['description']}")
        print(f"    receiver: {f['receiver']['name']}  {f['receiver']['description']}")
        keys = [param_text(k) + (" [defaults]" if k["in_defaults"] else "") for k in f["keys"]]
        print(f"    keys: {', '.join(keys) if keys else 'none'}")
        if f["cc_params"]:
            print("    params: its congestion control's (`ccsim list cc`)")
        elif f["params_key"] is not None:
            print(f"    {f['params_key']}: {', '.join(param_text(p) for p in f['parameters'])}")
    common = ", ".join(entries[0]["common_keys"]) if entries else ""
    print(
        f"(every flow also takes {common}; [defaults]: that section sets it for every flow "
        "that leaves it out; required: no default, the value shown is an example; unset: not "
        "given by default; docs/scenario-format.md)"
    )
    return 0


def _list_components(entries: list[dict[str, Any]], note: str) -> int:
    """Each queue discipline or element: its name (aliases), its description, its
    parameters as ``name = default`` in scenario-file syntax (``name unset`` where unset
    by default, ``name = value (required)`` with an example value where required;
    ``none`` for one without parameters), its own drop reasons and its own series."""
    for c in entries:
        aliases = f" ({', '.join(c['aliases'])})" if c.get("aliases") else ""
        print(f"{c['name']}{aliases}  {c['description']}")
        params = [param_text(p) for p in c["parameters"]]
        print(f"    parameters: {', '.join(params) if params else 'none'}")
        if c.get("drop_reasons"):
            print(f"    drop reasons: {', '.join(c['drop_reasons'])}")
        if c.get("series"):
            series = [f"{s['name']} ({s['unit']})" for s in c["series"]]
            print(f"    series: {', '.join(series)}")
    print(note)
    return 0


# ccsim reproduce -----------------------------------------------------------------------


class _RichProgress:
    """A reproduce.Progress drawn on stderr (hidden when stderr is not a terminal)."""

    def __init__(self, quiet: bool = False) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=_stderr(),
            transient=True,
            disable=quiet or not sys.stderr.isatty(),
        )
        self._task: Any = None
        self._stepped = False

    def start(self, total: int) -> None:
        self._progress.start()
        self._task = self._progress.add_task("starting", total=total)

    def step(self, description: str) -> None:
        if self._stepped:
            self._progress.advance(self._task)
        self._stepped = True
        self._progress.update(self._task, description=description)

    def done(self) -> None:
        if self._stepped:
            self._progress.advance(self._task)
        self.close()

    def close(self) -> None:
        self._progress.stop()


def cmd_reproduce(args: argparse.Namespace) -> int:
    repro = reproduce.get(args.name)
    if args.json and args.out is None:
        # The JSON goes to stdout; files only when --out asks for them. The reproduction
        # draws its figures as it runs, so it runs in a directory removed afterwards.
        with tempfile.TemporaryDirectory(prefix=f"ccsim-{repro.name}-") as scratch:
            report = _run_reproduction(repro, Path(scratch), args)
        print(json.dumps(report.to_dict(), indent=2))
        return 0
    out = args.out if args.out is not None else Path("out") / args.name
    check_out_dir(out, args.force, default=args.out is None)
    report = _run_reproduction(repro, out, args)
    written = _write_reproduction(repro, report, out, html=not args.no_report)
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
        return 0
    if args.quiet:
        return 0
    console = _stdout(args.wide)
    console.print(f"[bold]{repro.name}[/bold]: {repro.description}")
    for spec in report.tables:
        print_report_table(console, report, spec)
    for note in report.notes:
        console.print(note)
    _print_scoreboard(console, report)
    console.print(f"\nFigures and tables written to {out}/:")
    for path in _figure_files(report.files, args.formats) + written:
        console.print(f"  {path}")
    return 0


def _run_reproduction(
    repro: reproduce.Reproduction, out: Path, args: argparse.Namespace
) -> reproduce.Report:
    """Run ``repro`` with its figures written into ``out``, and score it."""
    progress = _RichProgress(quiet=args.quiet)
    try:
        # Its runs draw no bar of their own under the reproduction's.
        with _figures(args), _progress.held():
            report = repro.reproduce(out, progress)
    finally:
        progress.close()
    report.score()
    return report


def _write_reproduction(
    repro: reproduce.Reproduction, report: reproduce.Report, out: Path, *, html: bool
) -> list[Path]:
    """DIR/reproduction.json (what `ccsim report DIR` reads) and, unless --no-report,
    DIR/report.html."""
    from ccsim import report as html_report

    doc = html_report.reproduction_document(report, repro.description, out, report.files)
    path = out / "reproduction.json"
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    written = [path]
    if html:
        written.append(html_report.write_report(out))
    return written


# ccsim report --------------------------------------------------------------------------


def cmd_report(args: argparse.Namespace) -> int:
    from ccsim import report as html_report

    if args.max_points < 4:
        raise CliError(f"--max-points {args.max_points}: give at least 4")
    if args.out is not None and args.out.is_dir():
        raise CliError(
            f"--out {args.out}: is a directory; give the page's file name, e.g. "
            f"{args.out / 'report.html'}"
        )
    try:
        path = html_report.write_report(args.path, args.out, max_points=args.max_points)
    except html_report.ReportError as exc:
        raise CliError(str(exc)) from None
    print(f"wrote {path}")
    return 0


@contextmanager
def _figures(args: argparse.Namespace) -> Iterator[None]:
    """The figures drawn inside in --format, --size and --dpi."""
    from ccsim import plots

    with plots.figure_options(args.formats, args.size, args.dpi):
        yield


def _figure_files(files: list[Path], formats: tuple[str, ...]) -> list[Path]:
    """A reproduction names each figure by its PNG path: the files of every format."""
    out: list[Path] = []
    for path in files:
        if path.suffix == ".png":
            out += [path.with_suffix(f".{fmt}") for fmt in formats]
        else:
            out.append(path)
    return out


def print_report_table(console: Console, report: reproduce.Report, spec: reproduce.Table) -> None:
    """One reproduced table, cells ``ours (paper)``, split into parts that fit the
    console; notes on rows are numbered and printed below the table."""
    columns = [_tables.Column("", justify="left")]
    columns += [_tables.Column(header) for _, header in spec.columns]
    notes: list[str] = []
    rows: list[list[str] | None] = []
    for row in spec.rows:
        cells = [report.cell(row, key) for key, _ in spec.columns]
        marks = []
        for note in sorted({c.note for c in cells if c is not None and c.note}):
            if note not in notes:
                notes.append(note)
            marks.append(f"[{notes.index(note) + 1}]")
        label = f"{row} {''.join(marks)}" if marks else row
        rows.append([label, *[_cell(c) for c in cells]])
    _tables.print_table(
        console,
        spec.title,
        columns,
        rows,
        mode="wrap",
        notes=[f"[{i}] {note}" for i, note in enumerate(notes, 1)],
    )


def _cell(row: reproduce.Row | None) -> str:
    """``ours (paper)``: counts as integers, other values with two decimals; ``(<= x)``
    where the paper's value is an upper bound."""
    if row is None:
        return ""
    mark = "*" if row.phase_sensitive else ""
    bound = "<= " if row.bound == "upper" and row.paper is not None else ""
    return f"{_tables.number(row.ours)}{mark} ({bound}{_tables.number(row.paper)})"


def _print_scoreboard(console: Any, report: reproduce.Report) -> None:
    """The scoreboard after the tables (reproduce/scoreboard.py; * marks above), then
    the paper's claims and their verdicts (reproduce/claims.py)."""
    from ccsim.reproduce.scoreboard import lines

    if any(r.phase_sensitive for r in report.rows):
        console.print("* phase-sensitive: the spread over phases exceeds the tolerance")
    console.print()
    for line in lines(report.scoreboard):
        console.print(line, markup=False, highlight=False)
    if report.claims is not None:
        from ccsim.reproduce import claims

        console.print()
        for line in claims.lines(report.claims):
            console.print(line, markup=False, highlight=False)


# ccsim sweep ---------------------------------------------------------------------------


def cmd_sweep(args: argparse.Namespace) -> int:
    from ccsim import _sweep

    params: dict[str, str] = {}
    for item in args.vary:
        key, sep, spec = item.partition("=")
        if not sep or not key.strip():
            raise CliError(
                f"--vary {item!r}: expected KEY=VALUES; write e.g. --vary defaults.qdisc=fcfs,fq"
            )
        if key.strip() in params:
            raise CliError(f"--vary {key.strip()}: given twice; give each key once")
        params[key.strip()] = spec
    if args.jobs == 0:
        raise CliError("--jobs 0: give a positive number of processes, e.g. --jobs 2")
    if args.parquet is not None and args.parquet.exists() and not args.parquet.is_dir():
        raise CliError(f"--parquet {args.parquet}: is a file; give a directory")
    db = args.db if args.db is not None else Path("out") / f"sweep-{Path(args.file).stem}.duckdb"
    with _scenario_warnings(show=not getattr(args, "quiet", False)):
        scenario = ccsim.load(scenario_file(args.file)).with_overrides(args.overrides)
    results = _sweep.run_sweep(
        scenario,
        params,
        seeds=args.seeds,
        mode=args.mode,
        db=db,
        jobs=args.jobs,
        client=args.dask,
        force=args.force,
        progress=not args.quiet and sys.stderr.isatty(),
        names=_sweep.CLI_NAMES,
    )
    parquet = results.to_parquet(args.parquet) if args.parquet is not None else []
    total = sum(results.counts.values())
    failed = results.counts.get("failed", 0)
    summary = {
        "db": str(db),
        "scenario": args.file,
        "params": results.params,
        "seeds": results.definition["seeds"],
        "mode": results.definition["mode"],
        "cases": total,
        "done": results.counts.get("done", 0),
        "failed": failed,
        "ran": results.ran,
        "skipped": results.skipped,
        "wall_time_s": results.wall_time_s,
        "tables": results.tables,
        "parquet": [str(p) for p in parquet],
    }
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        console = _stdout()
        console.print(
            f"sweep {args.file}: {total} cases; {results.ran} run now, {results.skipped} "
            f"already done, {failed} failed; {results.wall_time_s:.3g} s"
        )
        console.print(f"database: {db} (tables {', '.join(summary['tables'])})")
        if parquet:
            console.print(f"parquet: {len(parquet)} files in {args.parquet}/")
    if failed:
        _print_error(
            f"{failed} of {total} cases failed; see the status and error columns of the "
            f"cases table in {db}; rerun the same command to retry them"
        )
        return 1
    return 0


# ccsim bench ---------------------------------------------------------------------------


def cmd_bench(args: argparse.Namespace) -> int:
    if not 1 <= args.repeat <= 1000:
        raise CliError(f"--repeat: {args.repeat} is out of range; give 1 to 1000 runs")
    if args.case != "dumbbell":
        return _bench_case(args)
    args.flows = 100 if args.flows is None else args.flows
    args.bottleneck = args.bottleneck or "100Mbps"
    args.time = args.time or "60s"
    if not 1 <= args.flows <= 1_000_000:
        # The engine's own limit (ccsim_engine::bench::MAX_FLOWS); checked here for the message.
        raise CliError(f"--flows: {args.flows} is out of range; give 1 to 1000000 flows")
    bps = _parse("--bottleneck", args.bottleneck, _ccsim.parse_rate)
    time_s = _parse("--time", args.time, _ccsim.parse_time)
    needs_ecn = any(c["name"] == args.cc and c["needs_ecn"] for c in cc_registry())
    qdisc = args.qdisc or ("step-marking RED" if needs_ecn else "fcfs")
    sack = " SACK" if args.sack else ""
    what = f"bench: {args.flows} {args.cc}{sack} flows, {fmt_rate(bps)} {qdisc} bottleneck"
    raw = _bench_runs(args, what, f"{time_s:g} s", lambda: _bench_once(args, bps, time_s))
    return _bench_report(args, raw, f"{what}, {time_s:g} s simulated")


def _bench_case(args: argparse.Namespace) -> int:
    """``ccsim bench --case leaf-spine|short-flows|fat-tree``: the scenario of ccsim._benchcases run by
    the engine, timed apart from its build; reported as the dumbbell's figures are."""
    for flag, value in (
        ("--flows", args.flows),
        ("--bottleneck", args.bottleneck),
        ("--results", args.results or None),
        ("--sack", args.sack or None),
    ):
        if value is not None:
            raise CliError(f"{flag}: applies to the dumbbell; --case {args.case} has its own flows and links")
    time_text = args.time or "0.1s"
    _parse("--time", time_text, _ccsim.parse_time)
    needs_ecn = any(c["name"] == args.cc and c["needs_ecn"] for c in cc_registry())
    b = build_case(args.case, args.cc, needs_ecn, args.qdisc, time_text, args.seed)
    text = json.dumps(b.to_dict())
    qdisc = args.qdisc or ("step-marking RED (K = 65pkt)" if needs_ecn else "fcfs")
    what = f"bench: {args.case}, {args.cc} flows, {qdisc} queues"

    def once() -> dict[str, Any]:
        try:
            return json.loads(_ccsim.bench_scenario(text, f"<bench {args.case}>", args.seed, "json"))
        except _ccsim.ScenarioError as exc:
            raise CliError(str(exc)) from None

    raw = _bench_runs(args, what, time_text, once)
    raw["case"] = args.case
    return _bench_report(args, raw, f"{what}, {time_text} simulated")


def _bench_runs(args: argparse.Namespace, what: str, simulated: str, once: Any) -> dict[str, Any]:
    """``--repeat`` runs of ``once()`` (each saying so on a terminal), summarised."""
    runs = []
    for k in range(args.repeat):
        if sys.stderr.isatty():
            of = f" (run {k + 1} of {args.repeat})" if args.repeat > 1 else ""
            _stderr().print(f"{what}, {simulated} simulated{of} ...")
        runs.append(once())
    return _bench_summary(runs)


def _bench_report(args: argparse.Namespace, raw: dict[str, Any], title: str) -> int:
    """The bench figures as JSON (``--json``) or as a table: the rows a figure is present
    for (the datacenter cases' flows and events per packet, the dumbbell's results
    hand-off), then every other scalar."""
    if args.json:
        print(json.dumps(raw, indent=2))
        return 0
    console = _stdout()
    console.print(title)
    table = _table("", ["", "value"])
    if args.repeat > 1:
        table.add_row("runs", f"{args.repeat} (the figures below are the median run's)")
    if "completed_flows" in raw:
        table.add_row("flows (completed)", f"{raw['flows']:,} ({raw['completed_flows']:,})")
    table.add_row("wall time", f"{raw['wall_time_s']:.3f} s")
    for key, label in (("build_time_s", "build time"), ("run_time_s", "run time")):
        if raw.get(key) is not None:
            table.add_row(label, f"{raw[key]:.3f} s")
    if raw.get("results_handoff_s") is not None:
        table.add_row(
            "results to Python",
            f"{raw['results_handoff_s']:.3f} s "
            f"({raw['results_columns_bytes'] / 1e6:.1f} MB of columns)",
        )
        table.add_row(
            "results as JSON (engine)",
            f"{raw['results_json_time_s']:.3f} s ({raw['results_json_bytes'] / 1e6:.1f} MB)",
        )
    rss = raw.get("peak_rss_bytes")
    table.add_row("peak memory (RSS)", "-" if rss is None else f"{rss / 2**20:.0f} MiB")
    table.add_row("events", f"{raw['events']:,}")
    table.add_row("events per run-second", _big(raw.get("events_per_s")))
    if "events_per_pkt" in raw:
        table.add_row("events per delivered packet", f"{raw['events_per_pkt']:.2f}")
    table.add_row("data packets delivered", f"{raw['delivered_pkts']:,}")
    if "sent_pkts" in raw:
        table.add_row(
            "data packets sent (retransmissions)",
            f"{raw['sent_pkts']:,} ({raw['retransmitted_pkts']:,})",
        )
    table.add_row("delivered per run-second", _big(raw.get("delivered_pkts_per_s")))
    if args.repeat > 1:
        table.add_row(
            f"delivered per run-second, median of {args.repeat}",
            _big(raw["delivered_pkts_per_s_median"]),
        )
        table.add_row(
            "fastest, slowest run",
            f"{_big(raw['delivered_pkts_per_s_max'])}, {_big(raw['delivered_pkts_per_s_min'])}",
        )
    shown = {
        "wall_time_s",
        "build_time_s",
        "run_time_s",
        "events",
        "events_per_s",
        "events_per_pkt",
        "completed_flows",
        "delivered_pkts",
        "delivered_pkts_per_s",
        "sent_pkts",
        "retransmitted_pkts",
        "peak_rss_bytes",
        "repeat",
        "delivered_pkts_per_s_median",
        "delivered_pkts_per_s_min",
        "delivered_pkts_per_s_max",
    }
    if "completed_flows" in raw:
        shown.add("flows")
    for key, value in raw.items():
        if key not in shown and not isinstance(value, (dict, list)):
            table.add_row(key, str(value))
    console.print(table)
    return 0


def _bench_summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of the median run (by delivered packets per run-second, the lower of
    the two middle ones for an even count), with the rate's median, fastest and slowest
    over all runs and each run's times. Every run must have done the same work."""
    first = runs[0]
    for k, r in enumerate(runs[1:], 2):
        if (r["events"], r["delivered_pkts"]) != (first["events"], first["delivered_pkts"]):
            raise CliError(
                f"bench: run {k} processed {r['events']:,} events and delivered "
                f"{r['delivered_pkts']:,} packets, run 1 {first['events']:,} and "
                f"{first['delivered_pkts']:,}: the same scenario must give the same run; "
                "please report this"
            )
    rates = [r.get("delivered_pkts_per_s") or 0.0 for r in runs]
    order = sorted(range(len(runs)), key=lambda k: rates[k])
    raw = dict(runs[order[(len(runs) - 1) // 2]])
    raw["repeat"] = len(runs)
    raw["delivered_pkts_per_s_median"] = statistics.median(rates)
    raw["delivered_pkts_per_s_min"] = min(rates)
    raw["delivered_pkts_per_s_max"] = max(rates)
    raw["runs"] = [
        {
            "wall_time_s": r["wall_time_s"],
            "run_time_s": r.get("run_time_s"),
            "delivered_pkts_per_s": rates[k],
        }
        for k, r in enumerate(runs)
    ]
    # The whole process's peak, over all runs.
    raw["peak_rss_bytes"] = _peak_rss_bytes()
    return raw


def _bench_cc(name: str) -> str:
    """``--cc``: a registered congestion control or a Python class (module:Class)."""
    names = [c["name"] for c in cc_registry()]
    if name in names or ":" in name:
        return name
    choices = ", ".join(f"'{n}'" for n in names)
    raise argparse.ArgumentTypeError(
        f"invalid choice: '{name}' (choose from {choices}, or a Python class as module:Class)"
    )


def _bench_once(args: argparse.Namespace, bps: float, time_s: float) -> dict[str, Any]:
    """One benchmark run: the engine's figures, with the results hand-off timed if asked."""
    start = time.perf_counter()
    out = _ccsim.bench(args.flows, bps, time_s, args.seed, args.qdisc, args.results, cc=args.cc, sack=args.sack)
    wall = time.perf_counter() - start
    text, columns = out if args.results else (out, None)
    raw: dict[str, Any] = json.loads(text)
    if columns is not None:
        # What `ccsim.run` adds after the engine: Results on the columns, and the two
        # tables a user asks for first built as DataFrames (pandas imported first, untimed:
        # a one-time cost of the session, not of the hand-off).
        import pandas  # noqa: F401

        t0 = time.perf_counter()
        results = ccsim.Results.from_columns(columns)
        _ = results.flows, results.links  # build both tables: their cost is part of the load time
        raw["results_load_s"] = time.perf_counter() - t0
        raw["results_handoff_s"] = (
            raw["results_time_s"] + raw["results_to_py_s"] + raw["results_load_s"]
        )
        del results, columns
    # The engine reads no clock: if the binding did not time the run, time it here and
    # derive the rates from that.
    if not raw.get("wall_time_s"):
        raw["wall_time_s"] = wall
        raw["events_per_s"] = raw["events"] / wall if wall > 0 else None
        raw["delivered_pkts_per_s"] = raw["delivered_pkts"] / wall if wall > 0 else None
    return raw


def _peak_rss_bytes() -> int | None:
    """Peak resident set size of this process (getrusage ru_maxrss), None off Unix."""
    try:
        import resource
    except ImportError:
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Linux reports KiB, macOS bytes.
    return int(peak) if sys.platform == "darwin" else int(peak) * 1024


def _big(x: float | None) -> str:
    return "-" if x is None else f"{x:,.0f}"


def _parse(flag: str, text: str, parse) -> Any:
    try:
        return parse(text)
    except _ccsim.ScenarioError as exc:
        raise CliError(f"{flag}: {exc}") from None

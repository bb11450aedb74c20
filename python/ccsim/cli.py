"""The ``ccsim`` command line (docs/cli.md).

Commands, arguments, flags and JSON keys are a contract other tools rely on.
Every user error prints one line ``ccsim: error: <message>`` on stderr and exits 2.
Tables and JSON go to stdout; progress bars go to stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from rich import box
from rich.console import Console
from rich.table import Table

import ccsim
from ccsim import _ccsim, reproduce

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
    p.add_argument("file", metavar="FILE", help="scenario file (TOML)")
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
        help="write summary.json, CSV tables, time series and plots into DIR",
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
        help="stop after this much wall-clock time (the results are marked partial)",
    )
    p.set_defaults(func=cmd_run)

    p = sub.add_parser(
        "list", help="list the built-in reproductions", description="List the reproductions."
    )
    p.set_defaults(func=cmd_list)

    p = sub.add_parser(
        "reproduce",
        help="reproduce a published result beside the paper's numbers",
        description="Run a built-in reproduction; print our table beside the paper's and "
        "write the figures.",
    )
    p.add_argument("name", metavar="NAME", help="reproduction name (see `ccsim list`)")
    p.add_argument("--out", metavar="DIR", type=Path, help="output directory (default out/NAME)")
    p.add_argument(
        "--json",
        action="store_true",
        help='print a JSON list of {"row", "column", "ours", "paper"} objects',
    )
    p.set_defaults(func=cmd_reproduce)

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
        help="speed benchmark: N Reno flows over a dumbbell",
        description="Speed benchmark: N Reno flows over one drop-tail bottleneck (access "
        "links 10x the bottleneck rate, one bandwidth-delay product of buffer, 100 ms RTT, "
        "1000 B packets).",
    )
    p.add_argument(
        "--flows",
        type=_nonneg_int("a positive integer"),
        default=100,
        metavar="N",
        help="number of flows (default 100)",
    )
    p.add_argument(
        "--bottleneck", default="100Mbps", metavar="RATE", help="bottleneck rate (default 100Mbps)"
    )
    p.add_argument("--time", default="60s", metavar="T", help="simulated time (default 60s)")
    p.add_argument(
        "--seed", type=_nonneg_int("a non-negative integer"), default=1, help="seed (default 1)"
    )
    p.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    p.set_defaults(func=cmd_bench)
    return parser


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


def _stdout() -> Console:
    # Not a terminal (a pipe or a file): no colours, and room for wide tables.
    return Console(highlight=False, width=None if sys.stdout.isatty() else 200)


def _stderr() -> Console:
    return Console(stderr=True, highlight=False)


def fmt_rate(bps: float | None) -> str:
    if bps is None:
        return "-"
    for unit, scale in (("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3)):
        if abs(bps) >= scale:
            return f"{bps / scale:.4g} {unit}"
    return f"{bps:.4g} bps"


def fmt_time(s: float | None) -> str:
    if s is None:
        return "-"
    if s == 0 or abs(s) >= 1:
        return f"{s:.4g} s"
    if abs(s) >= 1e-3:
        return f"{s * 1e3:.4g} ms"
    return f"{s * 1e6:.4g} us"


def fmt_num(x: Any, digits: int = 2) -> str:
    if x is None:
        return "-"
    if isinstance(x, int):
        return str(x)
    return f"{x:.{digits}f}"


def _table(title: str, headers: list[str]) -> Table:
    table = Table(
        title=title or None, box=box.SIMPLE_HEAD, show_edge=False, title_justify="left"
    )
    for i, header in enumerate(headers):
        table.add_column(header, justify="left" if i == 0 else "right")
    return table


# ccsim run -----------------------------------------------------------------------------


def cmd_run(args: argparse.Namespace) -> int:
    scenario = ccsim.load(args.file).with_overrides(args.overrides)
    if args.max_events == 0:
        raise CliError("--max-events 0: give a positive number of events")
    if args.max_wall is not None and not args.max_wall > 0:
        raise CliError(f"--max-wall {args.max_wall:g}: give a positive number of seconds")
    if args.pcap is not None:
        from ccsim.pcap import with_capture

        scenario = with_capture(scenario)
    interrupted = False
    try:
        results = ccsim.run(
            scenario,
            seed=args.seed,
            progress=True,
            max_events=args.max_events,
            max_wall=args.max_wall,
        )
    except ccsim.Interrupted as exc:
        results = exc.results
        interrupted = True
    if results.raw.get("partial"):
        _stderr().print(
            f"ccsim: partial results: stopped ({results.raw['stop_reason'].replace('_', ' ')}) "
            f"at {results.sim_time_s:g} s of {scenario.check()['scenario']['duration']}"
        )
    written: list[Path] = []
    if args.pcap is not None:
        from ccsim.pcap import write_pcaps

        pcaps = write_pcaps(results, args.pcap)
        _stderr().print(f"wrote {len(pcaps)} pcap files to {args.pcap}/")
    if args.out is not None:
        from ccsim.output import write_results

        written = write_results(results, args.out)
    if args.json:
        print(results.to_json(indent=2))
        if written:
            _stderr().print(f"wrote {len(written)} files to {args.out}/")
        return 130 if interrupted else 0
    print_results(results, _stdout())
    if written:
        _stdout().print(f"\nwrote {len(written)} files to {args.out}/")
    return 130 if interrupted else 0


def print_results(results: ccsim.Results, console: Console) -> None:
    raw = results.raw
    console.print(
        f"[bold]{raw['scenario']}[/bold]  seed {raw['seed']}  "
        f"{raw['sim_time_s']:g} s simulated in {raw['wall_time_s']:.3g} s, "
        f"{raw['events']:,} events"
    )
    flows = _table(
        "Flows",
        ["flow", "kind", "cc", "from", "to", "sent", "delivered", "retx", "dropped",
         "goodput", "pkt/s", "rtt min", "rtt mean", "rtt max"],
    )
    for f in raw["flows"]:
        flows.add_row(
            f["name"], f["kind"], f.get("cc") or "-", f["from"], f["to"],
            str(f["sent_pkts"]), str(f["delivered_pkts"]), str(f["retransmitted_pkts"]),
            str(f["dropped_pkts"]), fmt_rate(f["goodput_bps"]), fmt_num(f["goodput_pps"]),
            fmt_time(f["rtt_min_s"]), fmt_time(f["rtt_mean_s"]), fmt_time(f["rtt_max_s"]),
        )  # fmt: skip
    console.print(flows)
    links = _table(
        "Channels",
        ["channel", "rate", "delay", "qdisc", "buffer", "tx pkts", "drops", "util",
         "queue mean", "queue max"],
    )
    for c in raw["links"]:
        buffer = (
            f"{c['buffer_pkts']} pkt" if c.get("buffer_pkts") is not None
            else f"{c['buffer_bytes']} B" if c.get("buffer_bytes") is not None
            else "-"
        )  # fmt: skip
        links.add_row(
            c["name"], fmt_rate(c["rate_bps"]), fmt_time(c["delay_s"]), c["qdisc"], buffer,
            str(c["tx_pkts"]), str(c["drops"]), f"{100 * c['utilization']:.1f}%",
            fmt_num(c["queue_mean_pkts"]), fmt_num(c["queue_max_pkts"]),
        )  # fmt: skip
    console.print(links)
    if raw.get("phases"):
        phases = _table(
            "Phases (per flow, rates in packets/s)",
            ["phase", "start", "end", "flow", "sent", "delivered", "retx", "dropped",
             "goodput", "loss", "retransmission"],
        )
        for phase in raw["phases"]:
            for f in phase["flows"]:
                phases.add_row(
                    phase["name"], f"{phase['start_s']:g} s", f"{phase['end_s']:g} s",
                    f["name"], str(f["sent_pkts"]), str(f["delivered_pkts"]),
                    str(f["retransmitted_pkts"]), str(f["dropped_pkts"]),
                    fmt_num(f["goodput_pps"]), fmt_num(f["loss_pps"]),
                    fmt_num(f["retransmission_pps"]),
                )  # fmt: skip
        console.print(phases)
    if raw.get("intervals"):
        console.print(
            f"{len(raw['intervals'])} intervals recorded (see --json or --out for them)."
        )
    if raw.get("series"):
        console.print(
            "Time series: " + ", ".join(s["name"] for s in raw["series"])
            + " (see --json or --out)."
        )


# ccsim list ----------------------------------------------------------------------------


def cmd_list(args: argparse.Namespace) -> int:
    entries = reproduce.all_reproductions()
    width = max(len(r.name) for r in entries)
    for r in entries:
        print(f"{r.name:<{width}}  {r.description}")
    return 0


# ccsim reproduce -----------------------------------------------------------------------


class _RichProgress:
    """A reproduce.Progress drawn on stderr (hidden when stderr is not a terminal)."""

    def __init__(self) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
        from rich.progress import TimeElapsedColumn

        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=_stderr(),
            transient=True,
            disable=not sys.stderr.isatty(),
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
    out = args.out if args.out is not None else Path("out") / args.name
    progress = _RichProgress()
    try:
        report = repro.reproduce(out, progress)
    finally:
        progress.close()
    report.score()
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
        return 0
    console = _stdout()
    console.print(f"[bold]{repro.name}[/bold]: {repro.description}")
    for spec in report.tables:
        table = _table(spec.title, ["", *[header for _, header in spec.columns]])
        for row in spec.rows:
            cells = [report.cell(row, key) for key, _ in spec.columns]
            notes = {c.note for c in cells if c is not None and c.note}
            label = row if not notes else f"{row}\n{'; '.join(sorted(notes))}"
            table.add_row(label, *[_cell(c) for c in cells])
        console.print(table)
    for note in report.notes:
        console.print(note)
    _print_scoreboard(console, report)
    console.print(f"\nFigures and tables written to {out}/:")
    for path in report.files:
        console.print(f"  {path}")
    return 0


def _cell(row: reproduce.Row | None) -> str:
    if row is None:
        return ""
    ours = "-" if row.ours is None else f"{row.ours:.2f}"
    paper = "-" if row.paper is None else f"{row.paper:.2f}"
    mark = "*" if row.phase_sensitive else ""
    return f"{ours}{mark} ({paper})"


def _print_scoreboard(console: Any, report: reproduce.Report) -> None:
    """The scoreboard after the tables (reproduce/scoreboard.py); * marks above."""
    from ccsim.reproduce.scoreboard import lines

    if any(r.phase_sensitive for r in report.rows):
        console.print("* phase-sensitive: the spread over phases exceeds the tolerance")
    console.print()
    for line in lines(report.scoreboard):
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
    scenario = ccsim.load(args.file).with_overrides(args.overrides)
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
    if not 1 <= args.flows <= 100_000:
        # The engine's own limit (ccsim_engine::bench::dumbbell); checked here for the message.
        raise CliError(f"--flows: {args.flows} is out of range; give 1 to 100000 flows")
    bps = _parse("--bottleneck", args.bottleneck, _ccsim.parse_rate)
    time_s = _parse("--time", args.time, _ccsim.parse_time)
    if sys.stderr.isatty():
        _stderr().print(
            f"bench: {args.flows} Reno flows, {fmt_rate(bps)} bottleneck, "
            f"{time_s:g} s simulated ..."
        )
    start = time.perf_counter()
    text = _ccsim.bench(args.flows, bps, time_s, args.seed)
    wall = time.perf_counter() - start
    raw: dict[str, Any] = json.loads(text)
    # The engine reads no clock: if the binding did not time the run, time it here and
    # derive the rates from that.
    if not raw.get("wall_time_s"):
        raw["wall_time_s"] = wall
        raw["events_per_s"] = raw["events"] / wall if wall > 0 else None
        raw["delivered_pkts_per_s"] = raw["delivered_pkts"] / wall if wall > 0 else None
    if args.json:
        print(json.dumps(raw, indent=2))
        return 0
    console = _stdout()
    console.print(
        f"bench: {args.flows} Reno flows, {fmt_rate(bps)} bottleneck, {time_s:g} s simulated"
    )
    table = _table("", ["", "value"])
    table.add_row("wall time", f"{raw['wall_time_s']:.3f} s")
    table.add_row("events", f"{raw['events']:,}")
    table.add_row("events per wall-second", _big(raw.get("events_per_s")))
    table.add_row("data packets delivered", f"{raw['delivered_pkts']:,}")
    table.add_row("delivered per wall-second", _big(raw.get("delivered_pkts_per_s")))
    shown = {"wall_time_s", "events", "events_per_s", "delivered_pkts", "delivered_pkts_per_s"}
    for key, value in raw.items():
        if key not in shown and not isinstance(value, (dict, list)):
            table.add_row(key, str(value))
    console.print(table)
    return 0


def _big(x: float | None) -> str:
    return "-" if x is None else f"{x:,.0f}"


def _parse(flag: str, text: str, parse) -> Any:
    try:
        return parse(text)
    except _ccsim.ScenarioError as exc:
        raise CliError(f"{flag}: {exc}") from None

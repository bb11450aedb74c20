"""Keshav 1991, "Flow Control in High-Speed Networks with Long Delays", section 4.1.

Scenario 1: two FTP sources and an on/off CBR background source share an 80 kbps
(10 pkt/s) bottleneck with 2 s propagation delay (``scenarios/keshav-s1.toml``). We run
the scenario once per protocol pair (flow control / queueing discipline) and compare the
per-phase throughput, loss and retransmission rates with Table 2, and plot Figure 2
(JK/FCFS window of source 1) and Figure 3 (PP/FQ packets outstanding of source 1). The set-up and the differences are discussed in
docs/reproductions/keshav.md.

Table 2's cells are means over PHASES background phases: the background's start is
jittered by up to one of its packet periods (``flows.bkg.start_jitter``), one seed per
phase, because which source a drop-tail buffer locks out depends on that phase (the
paper's simulator had one phase we cannot know). Each cell carries its min and max; a
cell whose spread exceeds its tolerance is phase-sensitive. The figures come from the
unjittered run (seed 1). Three sensitivity tables (not counted by the scoreboard) show
the sink / fast-retransmit choice, the FQ drop rule and Generic's unstated details.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import ccsim
from ccsim import _ccsim
from ccsim.reproduce import (
    Progress,
    Report,
    Row,
    Table,
    run_seeds,
    run_variants,
    spread_row,
    write_csv,
)
from ccsim.reproduce._keshav_claims import measure_s1
from ccsim.reproduce.scoreboard import REL_TOL, Explain
from ccsim.scenarios import scenario_path

DESCRIPTION = (
    "Keshav 1991, section 4.1, Scenario 1: Table 2 (G/FCFS, G/FQ, JK/FCFS, JK/FQ, PP/FQ), "
    "Figure 2 (JK/FCFS window) and Figure 3 (PP/FQ packets outstanding)"
)

SCENARIO = "keshav-s1"

PP_PER_PROBE = "PP/FQ per-probe"

# Protocol pairs we run: row label -> overrides of scenarios/keshav-s1.toml.
PAIRS: dict[str, dict[str, str]] = {
    "G/FCFS": {"defaults.cc": "generic", "defaults.qdisc": "fcfs"},
    "G/FQ": {"defaults.cc": "generic", "defaults.qdisc": "fq"},
    "JK/FCFS": {"defaults.cc": "tahoe", "defaults.qdisc": "fcfs"},
    "JK/FQ": {"defaults.cc": "tahoe", "defaults.qdisc": "fq"},
    "PP/FQ": {"defaults.cc": "pp", "defaults.qdisc": "fq"},
    # Packet-Pair with its rate recomputed at every probe rather than once per round
    # trip (see docs/reproductions/keshav.md); compared with the same paper row.
    PP_PER_PROBE: {
        "defaults.cc": "pp",
        "defaults.qdisc": "fq",
        "flows.ftp1.params.update": "probe",
        "flows.ftp2.params.update": "probe",
    },
}
ROWS = ["G/FCFS", "G/FQ", "JK/FCFS", "JK/FQ", "PP/FQ", PP_PER_PROBE]
# The rows the scoreboard counts: the paper's own pairs (PP/FQ per-probe is a variant).
COUNTED = ["G/FCFS", "G/FQ", "JK/FCFS", "JK/FQ", "PP/FQ"]
# Rows compared with another row of the paper's table.
PAPER_ROW = {PP_PER_PROBE: "PP/FQ"}

# Phases of the background (seeds, one phase each) behind every Table 2 cell.
PHASES_N = 40
SEEDS = list(range(1, PHASES_N + 1))
# The sensitivity tables use the first 10 of them (they are many variants).
SENS_PHASES_N = 10
# Absolute tolerance floor: 3% of the 10 pkt/s bottleneck.
FLOOR = 0.3

_JK = {"defaults.cc": "tahoe"}
_ROLLBACK = {"defaults.qdisc": '{kind = "fq", drop_rule = "rollback"}'}
# Sensitivity 1 (finding 2): the sink and what follows a fast retransmit, for JK.
SINK = {
    f"{pair} {sink}, {fr}": {
        **_JK,
        "defaults.qdisc": q,
        "defaults.out_of_order": sink,
        "defaults.fast_retransmit": fr,
    }
    for pair, q in (("JK/FCFS", "fcfs"), ("JK/FQ", "fq"))
    for sink, fr in (("discard", "bsd"), ("keep", "bsd"), ("discard", "go_back_n"), ("keep", "go_back_n"))
}
# Sensitivity 2 (finding 1): Fair Queueing's drop rule.
DROP_RULE = {
    f"{label} rollback": {**PAIRS[label], **_ROLLBACK}
    for label in ("G/FQ", "JK/FQ", "PP/FQ", PP_PER_PROBE)
}
# Sensitivity 3 (finding 4): Generic's unstated details.
GENERIC = {
    f"{pair} {what}": {**PAIRS[pair], **change}
    for pair in ("G/FCFS", "G/FQ")
    for what, change in (
        ("keeping sink", {"defaults.out_of_order": "keep"}),
        ("39 buffers", {"defaults.buffer": "39pkt"}),
        ("beta 1.5", {"flows.ftp1.params.beta": "1.5", "flows.ftp2.params.beta": "1.5"}),
        ("beta 3", {"flows.ftp1.params.beta": "3", "flows.ftp2.params.beta": "3"}),
        ("alpha 0.75", {"flows.ftp1.params.alpha": "0.75", "flows.ftp2.params.alpha": "0.75"}),
    )
}
SENSITIVITY = {**SINK, **DROP_RULE, **GENERIC}
SENS_COLUMNS = [
    ("bg-off", "throughput", "1"),
    ("bg-off", "throughput", "2"),
    ("bg-on", "throughput", "1"),
    ("bg-on", "throughput", "2"),
    ("bg-on", "throughput", "bkg"),
    ("bg-on", "loss", "bkg"),
]


def paper_row_of(label: str) -> str:
    """The paper's row a row of ours is compared with."""
    if label in PAPER_ROW:
        return PAPER_ROW[label]
    return next((p for p in sorted(PAPER_BG_ON, key=len, reverse=True) if label.startswith(p + " ")), label)

PHASES = ["bg-off", "bg-on"]
METRICS = ["throughput", "loss", "retransmission"]
SOURCES = ["1", "2", "bkg"]
# Our phase counters behind each metric (all in packets/s, as in the paper) and the flow
# behind each source.
METRIC_KEY = {
    "throughput": "goodput_pps",  # "throughput rate excluding retransmissions"
    "loss": "loss_pps",
    "retransmission": "retransmission_pps",
}
SOURCE_FLOW = {"1": "ftp1", "2": "ftp2", "bkg": "bkg"}

# Table 2 of the paper, copied exactly; packets/s. Columns as printed in the paper.
# "Background off": throughput 1, 2; loss rate 1, 2; retransmission rate 1, 2 (the paper
# has no background column here).
PAPER_BG_OFF: dict[str, tuple[float, ...]] = {
    "G/FCFS": (5.00, 5.00, 0, 0, 0, 0),
    "G/FQ": (4.77, 4.69, 0, 0, 0, 0.04),
    "JK/FCFS": (5.03, 4.91, 0, 0, 0, 0),
    "JK/FQ": (4.94, 4.92, 0, 0, 0, 0),
    "PP/FQ": (4.94, 4.94, 0, 0, 0, 0),
}
# "Background on": throughput 1, 2, Bkg; loss rate 1, 2, Bkg; retransmission rate 1, 2, Bkg.
PAPER_BG_ON: dict[str, tuple[float, ...]] = {
    "G/FCFS": (4.94, 4.94, 0.12, 0, 0, 4.87, 0, 0, 0),
    "G/FQ": (1.85, 0.39, 4.49, 0.13, 0.19, 0.44, 0.13, 0.14, 0),
    "JK/FCFS": (2.21, 2.35, 4.89, 0.09, 0.09, 0.83, 0.02, 0.02, 0),
    "JK/FQ": (3.04, 3.08, 3.39, 0.10, 0.14, 1.52, 0.03, 0.03, 0),
    "PP/FQ": (3.34, 3.34, 3.32, 0, 0, 1.59, 0, 0, 0),
}


def column(phase: str, metric: str, source: str) -> str:
    return f"{phase} {metric} {source}"


def paper_values() -> dict[tuple[str, str], float]:
    """Table 2 as {(row, column): value}; absent cells are simply missing."""
    values: dict[tuple[str, str], float] = {}
    for row, cells in PAPER_BG_OFF.items():
        keys = [column("bg-off", m, s) for m in METRICS for s in ("1", "2")]
        values.update({(row, k): float(v) for k, v in zip(keys, cells, strict=True)})
    for row, cells in PAPER_BG_ON.items():
        keys = [column("bg-on", m, s) for m in METRICS for s in SOURCES]
        values.update({(row, k): float(v) for k, v in zip(keys, cells, strict=True)})
    return values


def figure_units(path: Path) -> tuple[float, float]:
    """(round-trip time in s, pipeline depth in packets), derived from the scenario file.

    As in the paper: the round trip is twice the bottleneck's propagation delay
    (2 x 2 s = 4 s; the fast lines have none) and the pipeline depth is the bottleneck
    rate in packets/s times that round trip (10 pkt/s x 4 s = 40 packets), with the
    data packet size of ``[defaults]`` (1000 B, so 80 kbps = 10 pkt/s).
    """
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    link = next(link for link in doc["links"] if link.get("name") == "bottleneck")
    rate_bps = _ccsim.parse_rate(link["rate"])
    delay_s = _ccsim.parse_time(link.get("delay", "0s"))
    data_bytes = _ccsim.parse_size(doc.get("defaults", {}).get("data_size", "1000B"))
    rtt_s = 2 * delay_s
    pkts_per_s = rate_bps / (8 * data_bytes)
    return rtt_s, pkts_per_s * rtt_s


def background_period(path: Path) -> str:
    """One packet period of the background source (1000 B at 40 kbps: 200 ms), from the
    scenario file: the range of its start jitter."""
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    bkg = next(f for f in doc["flows"] if f["name"] == "bkg")
    size = _ccsim.parse_size(bkg.get("packet_size", doc.get("defaults", {}).get("data_size", "1000B")))
    period_us = round(8 * size / _ccsim.parse_rate(bkg["rate"]) * 1e6)
    return f"{period_us // 1000}ms" if period_us % 1000 == 0 else f"{period_us}us"


def reproduce(out_dir: Path, progress: Progress) -> Report:
    path = scenario_path(SCENARIO)
    base = ccsim.load(path)
    out_dir.mkdir(parents=True, exist_ok=True)
    results, files = run_variants(base, SCENARIO, PAIRS, out_dir, progress)
    jitter = background_period(path)
    phased_base = base.set("flows.bkg.start_jitter", jitter)
    phased = run_seeds(phased_base, SCENARIO, PAIRS, SEEDS, progress)
    phased |= run_seeds(phased_base, SCENARIO, SENSITIVITY, SEEDS[:SENS_PHASES_N], progress)

    rows = table_rows(phased)
    rows += sensitivity_rows(phased)
    files.append(write_csv(rows, out_dir / "table2.csv"))
    rtt_s, depth_pkts = figure_units(path)
    files.append(
        figure2(results["JK/FCFS"], out_dir / "figure2_jk_fcfs_window.png", rtt_s, depth_pkts)
    )
    files.append(
        figure3(results["PP/FQ"], out_dir / "figure3_pp_fq_outstanding.png", rtt_s, depth_pkts)
    )
    files.append(
        figure3(
            results[PP_PER_PROBE],
            out_dir / "figure3_pp_fq_per_probe_outstanding.png",
            rtt_s,
            depth_pkts,
            " (rate per probe)",
        )
    )

    tables = [
        Table(
            title=f"Table 2, background {'off' if phase == 'bg-off' else 'on'} ({phase}), "
            f"packets/s, mean of {PHASES_N} background phases: ours (paper)",
            rows=ROWS,
            columns=[(column(phase, m, s), f"{m}\n{s}") for m in METRICS for s in SOURCES],
            floor=FLOOR,
            unit="pkt/s",
            score_rows=COUNTED,
        )
        for phase in PHASES
    ]
    sens_cols = [(column(*c), f"{c[0]}\n{c[1]} {c[2]}") for c in SENS_COLUMNS]
    for title, group in (
        ("Sensitivity: JK's sink and fast retransmit (ours: discard, go_back_n)", SINK),
        ("Sensitivity: Fair Queueing drop rule (ours: dks; these rows: rollback)", DROP_RULE),
        ("Sensitivity: Generic's unstated details (ours: discarding sink, 40 buffers, beta 2, alpha 0.875)", GENERIC),
    ):
        tables.append(
            Table(title=f"{title}, mean of {SENS_PHASES_N} phases: ours (paper)", rows=list(group),
                  columns=sens_cols, floor=FLOOR, unit="pkt/s", score_rows=[])
        )  # fmt: skip
    sensitive = [r for r in rows if r.phase_sensitive and r.row in ROWS]
    notes = [
        f"Table 2 cells are means over {PHASES_N} runs whose background starts up to {jitter} "
        "later (seeds 1-40, flows.bkg.start_jitter); * marks the "
        f"{len(sensitive)} cells whose min-max spread exceeds their tolerance "
        "(min and max are in table2.csv and the JSON).",
        f"Figures 2 and 3 (unjittered run) units: 1 round trip = {rtt_s:g} s, "
        f"1 pipeline depth = {depth_pkts:g} packets.",
        f"PP/FQ chooses its rate once per round trip; {PP_PER_PROBE} at every pair probe. "
        "Both are compared with the paper's PP/FQ row; only PP/FQ is counted.",
    ]
    report = Report(SCENARIO, rows, tables, files, notes, explain=EXPLAIN)
    report.paper = "keshav"
    report.experiments = ["s1"]
    report.measured = measure_s1(
        phased, results, lambda run, phase, flow, key: float(_flow(run.phase(phase), flow)[key])
    )
    return report


def _values(runs: list[ccsim.Results], phase: str, metric: str, source: str) -> list[float]:
    return [float(_flow(r.phase(phase), SOURCE_FLOW[source])[METRIC_KEY[metric]]) for r in runs]


def _tolerance(paper: float | None, mean: float) -> float:
    return max(REL_TOL * abs(paper if paper is not None else mean), FLOOR)


def table_rows(phased: dict[str, list[ccsim.Results]]) -> list[Row]:
    """Table 2: per pair, phase and metric, the mean over the background phases."""
    paper = paper_values()
    rows = []
    for label in ROWS:
        for phase in PHASES:
            for metric in METRICS:
                for source in SOURCES:
                    col = column(phase, metric, source)
                    values = _values(phased[label], phase, metric, source)
                    paper_cell = paper.get((paper_row_of(label), col))
                    mean = sum(values) / len(values)
                    rows.append(spread_row(label, col, values, paper_cell, _tolerance(paper_cell, mean)))
    return rows


def sensitivity_rows(phased: dict[str, list[ccsim.Results]]) -> list[Row]:
    paper = paper_values()
    rows = []
    for label in SENSITIVITY:
        for phase, metric, source in SENS_COLUMNS:
            col = column(phase, metric, source)
            values = _values(phased[label], phase, metric, source)
            paper_cell = paper.get((paper_row_of(label), col))
            mean = sum(values) / len(values)
            rows.append(spread_row(label, col, values, paper_cell, _tolerance(paper_cell, mean)))
    return rows


# Reasons for the cells outside tolerance, and the paper's self-inconsistent cells.
NOTE = "docs/reproductions/keshav.md"
_INCONSISTENT = f"{NOTE}#self-inconsistent-paper-cells"
_S1 = f"{NOTE}#scenario-1-cells-outside-tolerance"
EXPLAIN: list[Explain] = [
    Explain(
        r"JK/(FCFS|FQ)", r"bg-on (loss|retransmission) [12]",
        "paper: loss 0.09-0.14 above retransmissions 0.02-0.03 pkt/s; every lost packet is resent", _INCONSISTENT, inconsistent=True,
    ),
    Explain(
        r"JK/FCFS", r"bg-on (throughput|loss) bkg",
        "paper: background throughput 4.89 + loss 0.83 = 5.72 pkt/s, above the 5 it sends", _INCONSISTENT, inconsistent=True,
    ),
    Explain(
        r"G/FQ", r"bg-on (loss|retransmission) 2",
        "paper: loss 0.19 above retransmissions 0.14 pkt/s; Generic resends every lost packet", _INCONSISTENT, inconsistent=True,
    ),
    Explain(
        r"G/FCFS", r"bg-on .*",
        "ties decide the lock-out: with 1-3 us of processing jitter the background gets in in 34 of 40 phases, too",
        f"{NOTE}#phase-averaged-cells",
    ),
    Explain(
        r"G/FCFS", r"bg-off .*",
        "ties decide it: with 1-3 us of processing jitter both FTPs time out about once a second (3.90/3.86), too",
        f"{NOTE}#phase-averaged-cells",
    ),
    Explain(
        r"G/FQ", r".*",
        "Generic hangs on unstated details (sensitivity table); ours splits evenly, not 1.85/0.39", f"{NOTE}#generic-is-hypersensitive",
    ),
    Explain(
        r"JK/FCFS", r"bg-on throughput 2",
        "the paper's three-way share (2.10/1.98/4.93 against 2.21/2.35/4.89); source 2 is 16% short",
        _S1,
    ),
    Explain(
        r"PP/FQ", r"bg-on .*",
        "PP overflows when the background starts; DKS charges those drops to it (rollback, per-probe: 3.35)", f"{NOTE}#fq-drop-rule",
    ),
]  # fmt: skip


def _flow(phase: dict, name: str) -> dict:
    for flow in phase["flows"]:
        if flow["name"] == name:
            return flow
    raise KeyError(f"phase {phase['name']!r} has no flow {name!r}")


def figure2(results: ccsim.Results, path: Path, rtt_s: float, depth_pkts: float) -> Path:
    """Figure 2: source 1's window (JK/FCFS), time in round trips, window in pipeline depths."""
    return _window_figure(
        results,
        "ftp1.cwnd",
        path,
        rtt_s,
        depth_pkts,
        "source 1 (ftp1) congestion window",
        "Scenario 1: JK/FCFS window dynamics for source 1 (cf. Keshav 1991, Figure 2)",
        "window",
    )


def figure3(
    results: ccsim.Results, path: Path, rtt_s: float, depth_pkts: float, variant: str = ""
) -> Path:
    """Figure 3: source 1's packets outstanding (PP/FQ), in pipeline depths vs round trips."""
    return _window_figure(
        results,
        "ftp1.outstanding",
        path,
        rtt_s,
        depth_pkts,
        "source 1 (ftp1) packets outstanding",
        f"Scenario 1: PP/FQ{variant} number of outstanding packets (cf. Keshav 1991, Figure 3)",
        "packets outstanding",
    )


def _window_figure(
    results: ccsim.Results,
    series: str,
    path: Path,
    rtt_s: float,
    depth_pkts: float,
    label: str,
    title: str,
    quantity: str,
) -> Path:
    from ccsim import plots

    t, cwnd = plots.extend_to(results.series(series), results.sim_time_s)
    fig = plots.new_figure()
    ax = fig.add_subplot()
    for phase in results.raw.get("phases", []):
        if phase["name"] == "bg-off":
            ax.axvspan(
                phase["start_s"] / rtt_s,
                phase["end_s"] / rtt_s,
                color="0.9",
                label="background off",
            )
    ax.step(
        [x / rtt_s for x in t],
        [w / depth_pkts for w in cwnd],
        where="post",
        linewidth=0.8,
        color="C0",
        label=label,
    )
    ax.set_xlim(0, results.sim_time_s / rtt_s)
    ax.set_ylim(0, 1.3 * max([1.0, *(w / depth_pkts for w in cwnd)]))  # room for the legend
    ax.set_xlabel(f"time (round trips of {rtt_s:g} s)")
    ax.set_ylabel(f"{quantity} (pipeline depths of {depth_pkts:g} packets)")
    ax.set_title(title)
    ax.legend(loc="upper right")
    plots.save(fig, path)
    return path

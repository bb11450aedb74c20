"""Shared code of Keshav 1991 Scenarios 2 and 3 (sections 4.2 and 4.3).

Both scenarios run two FTP sources across three tandem bottlenecks with Poisson cross
traffic (``scenarios/keshav-s2.toml``, ``scenarios/keshav-s3.toml``; the topology is our
reconstruction, see docs/reproductions/keshav.md). Each protocol pair is one run;
the table values are, as in the paper, means over several large sub-intervals of that
run (the scenario's ``[measure] interval``), with the standard deviation of those
interval means beside them.
"""

from __future__ import annotations

import statistics
import tomllib
from dataclasses import dataclass
from pathlib import Path

import ccsim
from ccsim import _ccsim
from ccsim.reproduce import Progress, Report, Row, Table, run_variants, write_csv
from ccsim.reproduce._keshav_claims import PROBE_CHANNEL, measure_tandem
from ccsim.reproduce.scoreboard import Explain
from ccsim.scenarios import scenario_path

PAIRS: dict[str, dict[str, str]] = {
    "G/FCFS": {"defaults.cc": "generic", "defaults.qdisc": "fcfs"},
    "G/FQ": {"defaults.cc": "generic", "defaults.qdisc": "fq"},
    "JK/FCFS": {"defaults.cc": "tahoe", "defaults.qdisc": "fcfs"},
    "JK/FQ": {"defaults.cc": "tahoe", "defaults.qdisc": "fq"},
    "PP/FQ": {"defaults.cc": "pp", "defaults.qdisc": "fq"},
}
# Packet-Pair with its rate recomputed at every probe instead of once per round trip;
# compared with the paper's PP/FQ row.
PP_PER_PROBE = "PP/FQ per-probe"
PAIRS[PP_PER_PROBE] = {
    "defaults.cc": "pp",
    "defaults.qdisc": "fq",
    "flows.ftp1.params.update": "probe",
    "flows.ftp2.params.update": "probe",
}
PAPER_ROW = {PP_PER_PROBE: "PP/FQ"}
ROWS = list(PAIRS)
# The rows the scoreboard counts: the paper's pairs (PP/FQ per-probe is a variant).
COUNTED = ["G/FCFS", "G/FQ", "JK/FCFS", "JK/FQ", "PP/FQ"]
# Sensitivity (finding 1, not counted): Fair Queueing with the rollback drop rule.
_ROLLBACK = {"defaults.qdisc": '{kind = "fq", drop_rule = "rollback"}'}
DROP_RULE = {f"{label} rollback": {**PAIRS[label], **_ROLLBACK} for label in ("G/FQ", "JK/FQ", "PP/FQ", PP_PER_PROBE)}
PAPER_ROW.update({label: label.removesuffix(" rollback").replace(" per-probe", "") for label in DROP_RULE})
NOTE = "docs/reproductions/keshav.md"
_S23 = f"{NOTE}#scenarios-2-and-3-cells-outside-tolerance"
# Reasons shared by Scenarios 2 and 3.
EXPLAIN_COMMON: list[Explain] = [
    Explain(
        r"G/(FCFS|FQ)", r".*",
        "Generic hangs on unstated details; the paper's own sd (0.52 on a mean of 0.02) shows it", f"{NOTE}#generic-is-hypersensitive",
    ),
    Explain(
        r"JK/(FCFS|FQ)", r"delay [12]",
        "our JK windows open further before a loss (Figure 5: 0.38 against 0.18 pipeline depths)",
        _S23,
    ),
    Explain(
        r"PP/FQ", r"delay [12]",
        "min round trip plus the setpoint's wait with either drop rule; the paper's needs PP to queue far beyond it", _S23,
    ),
    Explain(
        r"PP/FQ", r"(loss|retransmission) [12]",
        "DKS charges the Poisson sources' drops; PP sees their slack, overshoots, loses (rollback: 0)", f"{NOTE}#fq-drop-rule",
    ),
]  # fmt: skip

# A capture of the channel that brings source 1 its acks, for PP's probes.
PROBE_CAPTURE = f'[{{ kind = "capture", at = "{PROBE_CHANNEL}" }}]'

# Absolute tolerance floors: rates 3% of the 10 pkt/s slow lines; delays 0.5 s.
FLOOR = {"throughput": 0.3, "loss": 0.3, "retransmission": 0.3, "delay": 0.5}
UNITS = "rates in pkt/s, delays in s"
METRICS = ["throughput", "delay", "loss", "retransmission"]
SOURCES = ["1", "2"]
SOURCE_FLOW = {"1": "ftp1", "2": "ftp2"}
# Interval counters behind each metric: packets/s, except delay (s, mean round trip of
# the acks that arrived in the interval).
METRIC_KEY = {
    "throughput": "goodput_pps",
    "delay": "delay_mean_s",
    "loss": "loss_pps",
    "retransmission": "retransmission_pps",
}


def column(metric: str, source: str, sd: bool = False) -> str:
    return f"{metric} {source}{' sd' if sd else ''}"


COLUMNS = [column(m, s, sd) for m in METRICS for s in SOURCES for sd in (False, True)]


@dataclass(frozen=True)
class Spec:
    """What differs between Scenario 2 and Scenario 3."""

    scenario: str
    table: str
    # {row: {column: value}} of the paper's table, only cells we can read unambiguously.
    paper: dict[str, dict[str, float]]
    # Notes on rows whose paper cells are missing from our copy.
    paper_notes: dict[str, str]
    # Reasons for cells outside tolerance and self-inconsistent paper cells.
    explain: list[Explain]
    # (file name, pair, series, title, time window in round trips or None)
    figures: list[tuple[str, str, list[str], str, tuple[float, float] | None]]


def paper_row(
    thr_delay: tuple[float | None, ...], loss_retx: tuple[float | None, ...] | None
) -> dict[str, float]:
    """Cells of one paper row.

    ``thr_delay`` is the eight numbers printed in the throughput/delay table, read as
    (mean, sd) pairs for throughput 1, throughput 2, delay 1, delay 2 (the italics of
    Table 3 mark every second number as a standard deviation); None where the paper's
    cell is empty. ``loss_retx``: loss 1, loss 2, retransmission 1, retransmission 2
    means, or None where our copy of the table cannot be read unambiguously.
    """
    keys = [column(m, s, sd) for m in ("throughput", "delay") for s in SOURCES for sd in (False, True)]
    cells = {k: v for k, v in zip(keys, thr_delay, strict=True) if v is not None}
    if loss_retx is not None:
        lk = [column(m, s) for m in ("loss", "retransmission") for s in SOURCES]
        cells.update({k: v for k, v in zip(lk, loss_retx, strict=True) if v is not None})
    return {k: float(v) for k, v in cells.items()}


def figure_units(path: Path) -> tuple[float, float]:
    """(minimum round trip in s, pipeline depth in packets) from the scenario file.

    The minimum round trip is twice the sum of the slow lines' propagation delays
    (2 x 3 x 2 s = 12 s); the pipeline depth is the slow-line rate in packets/s times it
    (10 pkt/s x 12 s = 120 packets), as the paper states for Scenario 2.
    """
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    slow = [link for link in doc["links"] if str(link.get("name", "")).startswith("b")]
    one_way = sum(_ccsim.parse_time(link.get("delay", "0s")) for link in slow)
    rate_bps = _ccsim.parse_rate(slow[0]["rate"])
    data_bytes = _ccsim.parse_size(doc.get("defaults", {}).get("data_size", "1000B"))
    rtt_s = 2 * one_way
    return rtt_s, rate_bps / (8 * data_bytes) * rtt_s


def interval_stats(results: ccsim.Results, flow: str, key: str) -> tuple[float, float]:
    """Mean and sample standard deviation of a counter over the run's intervals."""
    values = []
    for iv in results.raw["intervals"]:
        entry = next(f for f in iv["flows"] if f["name"] == flow)
        if entry[key] is not None:
            values.append(float(entry[key]))
    if len(values) < 2:
        raise ValueError(
            f"{results.raw['scenario']}: need at least two measure intervals with values of "
            f"{key!r} for {flow!r}; set [measure] interval to a fraction of the duration"
        )
    return statistics.fmean(values), statistics.stdev(values)


def table_rows(spec: Spec, results: dict[str, ccsim.Results]) -> list[Row]:
    rows = []
    for label in ROWS + list(DROP_RULE):
        paper = spec.paper.get(PAPER_ROW.get(label, label), {})
        for metric in METRICS:
            for source in SOURCES:
                mean, sd = interval_stats(results[label], SOURCE_FLOW[source], METRIC_KEY[metric])
                note = spec.paper_notes.get(PAPER_ROW.get(label, label)) if metric in ("loss", "retransmission") else None
                for is_sd, ours in ((False, mean), (True, sd)):
                    col = column(metric, source, is_sd)
                    rows.append(Row(label, col, ours, paper.get(col), note))
    return rows


def run_pairs(
    spec: Spec, out_dir: Path, progress: Progress
) -> tuple[dict[str, ccsim.Results], list[Path]]:
    base = ccsim.load(scenario_path(spec.scenario))
    return run_variants(base, spec.scenario, {**PAIRS, **DROP_RULE}, out_dir, progress)


def reproduce(spec: Spec, out_dir: Path, progress: Progress) -> Report:
    out_dir.mkdir(parents=True, exist_ok=True)
    results, files = run_pairs(spec, out_dir, progress)
    rows = table_rows(spec, results)
    files.append(write_csv(rows, out_dir / f"{spec.table.lower().replace(' ', '')}.csv"))
    rtt_s, depth = figure_units(scenario_path(spec.scenario))
    for name, pair, series, title, window in spec.figures:
        files.append(window_figure(results[pair], series, out_dir / name, rtt_s, depth, title, window))
    n_iv = len(results["PP/FQ"].raw["intervals"])
    iv_s = results["PP/FQ"].raw["intervals"][0]["end_s"] - results["PP/FQ"].raw["intervals"][0]["start_s"]
    means_only = [c for c in COLUMNS if not c.endswith(" sd")]
    tables = [
        Table(
            title=f"{spec.table}: throughput (pkt/s) and delay (s, mean round trip): ours (paper)",
            rows=ROWS,
            columns=_headers(("throughput", "delay")),
            floor=FLOOR,
            unit=UNITS,
            score_rows=COUNTED,
            score_columns=means_only,
        ),
        Table(
            title=f"{spec.table}: loss and retransmission rates (pkt/s): ours (paper)",
            rows=ROWS,
            columns=_headers(("loss", "retransmission")),
            floor=FLOOR,
            unit=UNITS,
            score_rows=COUNTED,
            score_columns=means_only,
        ),
        Table(
            title=f"{spec.table}, sensitivity: Fair Queueing with drop_rule = rollback "
            "(ours: dks): ours (paper)",
            rows=list(DROP_RULE),
            columns=[(c, c.replace(" ", "\n", 1)) for c in means_only],
            floor=FLOOR,
            score_rows=[],
        ),
    ]
    notes = [
        f"Means and standard deviations over {n_iv} intervals of {iv_s:g} s of one run "
        "(the paper: 'mean values over several large subintervals of the same simulation run').",
        f"Figure units: 1 round trip = {rtt_s:g} s, 1 pipeline depth = {depth:g} packets.",
        f"PP/FQ chooses its rate once per round trip; {PP_PER_PROBE} at every pair probe. "
        "Both are compared with the paper's PP/FQ row; only PP/FQ is counted.",
        "The scoreboard counts means, not the standard deviations (the spread of the "
        "interval means, which depends on the interval length the paper does not give).",
    ]
    report = Report(spec.scenario, rows, tables, files, notes, explain=spec.explain)
    # The paper's claims (claims/keshav.toml): experiment "s2" or "s3".
    experiment = spec.scenario.removeprefix("keshav-")
    by_cell = {(r.row, r.column): r.ours for r in rows}
    probe_run = None
    if experiment == "s2":
        # PP/FQ again with its acks captured on their last hop, for the probe values
        # (the capture only observes: the run is otherwise the PP/FQ run).
        scenario = ccsim.load(scenario_path(spec.scenario))
        for key, value in {**PAIRS["PP/FQ"], "elements": PROBE_CAPTURE}.items():
            scenario = scenario.set(key, value)
        probe_run = ccsim.run(scenario)
    report.paper = "keshav"
    report.experiments = [experiment]
    report.measured = measure_tandem(
        experiment, lambda row, col: float(by_cell[(row, col)]), results, rtt_s, depth, probe_run
    )
    return report


def _headers(metrics: tuple[str, ...]) -> list[tuple[str, str]]:
    return [
        (column(m, s, sd), f"{m}\n{s}{' sd' if sd else ''}")
        for m in metrics
        for s in SOURCES
        for sd in (False, True)
    ]


def window_figure(
    results: ccsim.Results,
    series: list[str],
    path: Path,
    rtt_s: float,
    depth_pkts: float,
    title: str,
    window: tuple[float, float] | None,
) -> Path:
    """Series in pipeline depths against time in round trips (the paper's axes)."""
    from ccsim import plots

    fig = plots.new_figure()
    ax = fig.add_subplot()
    peak = 0.5
    for i, name in enumerate(series):
        t, v = plots.extend_to(results.series(name), results.sim_time_s)
        ys = [x / depth_pkts for x in v]
        label = plots.describe(name, unit=False).replace("ftp", "source ")
        ax.step([x / rtt_s for x in t], ys, where="post", linewidth=0.8, color=f"C{i}", label=label)
        peak = max(peak, *ys)
    lo, hi = window if window is not None else (0.0, results.sim_time_s / rtt_s)
    ax.set_xlim(lo, hi)
    ax.set_ylim(0, 1.3 * peak)
    ax.set_xlabel(f"time (round trips of {rtt_s:g} s)")
    quantity = "window" if all(n.endswith(".cwnd") for n in series) else "packets outstanding"
    ax.set_ylabel(f"{quantity} (pipeline depths of {depth_pkts:g} packets)")
    ax.set_title(title)
    ax.legend(loc="upper right")
    plots.save(fig, path)
    return path


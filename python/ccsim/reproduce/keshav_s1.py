"""Keshav 1991, "Flow Control in High-Speed Networks with Long Delays", section 4.1.

Scenario 1: two FTP sources and an on/off CBR background source share an 80 kbps
(10 pkt/s) bottleneck with 2 s propagation delay (``scenarios/keshav-s1.toml``). We run
the scenario once per protocol pair (flow control / queueing discipline) and compare the
per-phase throughput, loss and retransmission rates with Table 2, and plot Figure 2
(JK/FCFS window of source 1) and Figure 3 (PP/FQ packets outstanding of source 1). The set-up and the differences are discussed in
docs/reproductions/keshav.md.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import ccsim
from ccsim import _ccsim
from ccsim.reproduce import Progress, Report, Row, Table, run_variants, write_csv
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
# Rows compared with another row of the paper's table.
PAPER_ROW = {PP_PER_PROBE: "PP/FQ"}

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


def reproduce(out_dir: Path, progress: Progress) -> Report:
    path = scenario_path(SCENARIO)
    base = ccsim.load(path)
    out_dir.mkdir(parents=True, exist_ok=True)
    results, files = run_variants(base, SCENARIO, PAIRS, out_dir, progress)

    rows = table_rows(results)
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
            "packets/s: ours (paper)",
            rows=ROWS,
            columns=[(column(phase, m, s), f"{m}\n{s}") for m in METRICS for s in SOURCES],
        )
        for phase in PHASES
    ]
    notes = [
        f"Figures 2 and 3 units: 1 round trip = {rtt_s:g} s, "
        f"1 pipeline depth = {depth_pkts:g} packets.",
        f"PP/FQ chooses its rate once per round trip; {PP_PER_PROBE} at every pair probe. "
        "Both are compared with the paper's PP/FQ row.",
    ]
    return Report(SCENARIO, rows, tables, files, notes)


def table_rows(results: dict[str, ccsim.Results]) -> list[Row]:
    paper = paper_values()
    rows = []
    for label in ROWS:
        phases = {p: results[label].phase(p) for p in PHASES} if label in results else None
        for phase in PHASES:
            for metric in METRICS:
                for source in SOURCES:
                    col = column(phase, metric, source)
                    ours = None
                    if phases is not None:
                        flow = _flow(phases[phase], SOURCE_FLOW[source])
                        ours = float(flow[METRIC_KEY[metric]])
                    paper_cell = paper.get((PAPER_ROW.get(label, label), col))
                    rows.append(Row(label, col, ours, paper_cell))
    return rows


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

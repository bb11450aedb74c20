"""Welzl 2003, "Router Aided Congestion Avoidance with Scalable Performance Signaling".

CADPC (a rate sender fed by PTP forward packet stamping) on the Table 1 dumbbell. Each
experiment is also a reproduction of its own (``welzl-<key>``); ``welzl`` runs them all.

- ``fluid``  section 3.1: n flows converge to B/(1+n) each; with background b, (1-b)/(1+n).
- ``fig12``  Figures 1/2: loss ratio and mean queue over bandwidth x flows, 1000 and 500 B.
- ``fig3``   Figure 3: total throughput of 10 CADPC / 10 TCP Reno flows, 10 and 100 Mbps.
- ``fig4``   Figure 4: 10 flows with update intervals 4..40 RTTs (1200 s); RTTs +117 ms.
- ``fig5``   Figure 5: 100 Mbps, 10-100 flows: CADPC against Reno, SACK and Vegas (ECN).
- ``fig6``   Figure 6: CADPC against RAP, GAIMD, TFRC and TEAR.

Scenarios: ``scenarios/welzl-cadpc.toml`` and ``scenarios/welzl-tcp.toml`` (Table 1 with a
short default duration); everything varied is an override here. Grids and flow-count
sweeps run on the sweep runner (all cores). Every reading and difference:
docs/reproductions/welzl.md.

Each experiment also measures the paper's claims of its section (the inventory
``claims/welzl.toml``, scored by claims.py). For them ``fig12`` adds a sweep of the
smoothness factor a, and ``fig4`` runs its left case without the startup enhancement and
its right case again in 1 s bins.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import ccsim
from ccsim.reproduce import Progress, Report, Row, Table, combine, write_csv
from ccsim.reproduce.claims import Measured
from ccsim.reproduce.scoreboard import Explain
from ccsim.scenarios import scenario_path

DESCRIPTION = "Welzl 2003 (CADPC/PTP): section 3 fluid facts, Figures 1-5, Figure 6 with RAP, GAIMD, TFRC and TEAR"

B10 = 10e6
# "approximately 10 Mbit/s / (1 + n) = 113636 byte/s" (section 4.1, n = 10).
FAIR_10 = 113636.0
DURATION = "160s"  # Table 1, long-term runs
BANDWIDTHS = (1, 2, 5, 10, 20, 50, 100)  # Mbps (Figures 1/2 are missing from our copy)
COUNTS = tuple(range(10, 101, 10))
# Worker processes of the sweeps (None: one per core; the smoke tests run them inline).
SWEEP_JOBS: int | None = None
NOTE = "docs/reproductions/welzl.md"
# The claims inventory (python/ccsim/reproduce/claims/welzl.toml) and its fixed readings.
PAPER = "welzl"
# A grid cell "close to 0" (Section 3.2: "packet loss ratio and queue length close to 0"):
# loss ratio below 1% and a mean queue below 10% of the 50-packet buffer.
STABLE_LOSS = 0.01
STABLE_QUEUE = 5.0
# The smoothness factor swept for "stability ... indirectly proportional to a" (section 3.2),
# on the low-bandwidth part of the Figure 1 grid (1000 B), where the limits lie.
A_VALUES = (0.25, 0.5, 1.0)
A_BANDWIDTHS = (1, 2, 5, 10)

EXPLAIN: list[Explain] = [
    Explain(
        r"fig1 1 Mbps, 100 flows", r"loss ratio",
        "the paper's 'half of the packets' is read off a missing figure; our ns-2-default 50-packet buffer sets the level",
        f"{NOTE}#figures-1-and-2",
    ),
    Explain(
        r"fig4 flow 9 \(update 40 RTTs\)", r"time to 90% of fair share \(s\)",
        "our startup reconstruction (a = 1 until the first decrease) differs from [1]'s",
        f"{NOTE}#figure-4",
    ),
]


def _load(name: str) -> ccsim.Scenario:
    return ccsim.load(scenario_path(name))


def _with(scenario: ccsim.Scenario, sets: dict[str, Any]) -> ccsim.Scenario:
    for key, value in sets.items():
        scenario = scenario.set(key, value)
    return scenario


def _row(rows: list[Row], row: str, column: str, ours: float | None, paper: float | None = None, note: str | None = None) -> None:
    rows.append(Row(row, column, None if ours is None else float(ours), paper, note))


def _report(name: str, rows: list[Row], tables: list[Table], out_dir: Path, figures: list[Path], notes: list[str],
            measured: dict[str, Measured] | None = None) -> Report:  # fmt: skip
    report = Report(name, rows, tables, [write_csv(rows, out_dir / f"{name}.csv"), *figures], notes, EXPLAIN)
    report.paper = PAPER
    report.experiments = [name.removeprefix("welzl-")]
    report.measured = dict(measured or {})
    return report


def _majority(hits: int, total: int) -> bool:
    """An unquantified statement over a figure's flow counts: more than half of them
    (the inventory's counting rule)."""
    return 2 * hits > total


def _stable(c: dict[str, Any]) -> bool:
    return c["loss"] < STABLE_LOSS and c["queue"] < STABLE_QUEUE


def _never_falls(xs: list[float]) -> bool:
    return all(b >= a for a, b in zip(xs, xs[1:], strict=False))


def _strictly_falls(xs: list[float]) -> bool:
    return all(b < a for a, b in zip(xs, xs[1:], strict=False))


def _fmt(x: float) -> str:
    return f"{x:.3g}"


def _secs(t: float | None) -> str:
    return "never" if t is None else f"{t:g} s"


def jain(xs: list[float]) -> float | None:
    xs = [x for x in xs if x is not None]
    if not xs or sum(xs) == 0:
        return None
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


def _axes(rows: int = 1, cols: int = 1, size: tuple[float, float] = (8, 4)):
    from ccsim import plots

    fig = plots.new_figure()
    fig.set_size_inches(*size)
    return fig, fig.subplots(rows, cols, squeeze=False)


def _save(fig: Any, path: Path) -> Path:
    from ccsim import plots

    plots.save(fig, path)
    return path


def _toml_text(name: str) -> str:
    return Path(scenario_path(name)).read_text(encoding="utf-8")


def _phase(text: str, start: float, end: float) -> str:
    """The scenario text with the run lengthened to ``end`` and a phase "steady"."""
    text = re.sub(r'(?m)^duration = "[^"]*"', f'duration = "{end}s"', text, count=1)
    return text + f'\n[[phases]]\nname = "steady"\nstart = "{start}s"\nend = "{end}s"\n'


def _steady_rates(r: ccsim.Results, prefix: str) -> list[float]:
    """Per-flow payload rate (byte/s) over the phase "steady", flows named prefix*."""
    ph = r.phases
    ph = ph[(ph["phase"] == "steady") & ph["name"].str.startswith(prefix)]
    return [float(x) / 8.0 for x in ph["goodput_bps"]]


def _sweep(scenario: ccsim.Scenario, params: dict[str, list[Any]], out_dir: Path, key: str) -> Any:
    db_dir = Path(out_dir) / "sweeps"
    db_dir.mkdir(parents=True, exist_ok=True)
    db = db_dir / f"welzl-{key}.duckdb"
    db.unlink(missing_ok=True)  # fresh: never reuse another engine's cases
    res = ccsim.sweep(scenario, params, db=db, jobs=SWEEP_JOBS, progress=False)
    if res.failed:
        raise RuntimeError(f"sweep {key}: {res.failed} cases failed; see {db_dir}")
    return res


def _summarise(res: Any, keys: list[str], prefix: str) -> list[dict[str, Any]]:
    """Per case: the keys' values, loss ratio (data dropped / sent), mean bottleneck queue
    (packets), total payload throughput (bit/s), Jain's index of per-flow throughput."""
    flows = res.flows
    links = res.links
    links = links[links["name"] == "r1->r2"]
    out = []
    for case_id, g in flows.groupby("case_id"):
        g = g[g["name"].str.startswith(prefix)]
        link = links[links["case_id"] == case_id].iloc[0]
        sent = float(g["sent_pkts"].sum())
        good = [float(x) for x in g["goodput_bps"]]
        case = {k: g[k].iloc[0] for k in keys}
        case.update(
            loss=float(g["dropped_pkts"].sum()) / sent if sent else 0.0,
            queue=float(link["queue_mean_pkts"]),
            throughput=sum(good),
            jain=jain(good),
            n=len(good),
        )
        out.append(case)
    return out


# ---------------------------------------------------------------------------------------
# Section 3.1: the fluid-model facts on a packet network.

FLUID_N = (1, 2, 5, 10)
FLUID_BG = ((2, 0.3), (10, 0.3))


def fluid(out_dir: Path, progress: Progress) -> Report:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    progress.start(len(FLUID_N) + len(FLUID_BG))
    rows: list[Row] = []
    labels: list[str] = []
    base = _phase(_toml_text("welzl-cadpc"), 80, 160)
    for n in FLUID_N:
        progress.step(f"welzl fluid n = {n}")
        sc = _with(ccsim.loads(base), {"scenario.duration": DURATION, "flows.c.count": n})
        r = ccsim.run(sc)
        rates = _steady_rates(r, "c")
        label = f"fluid n = {n}, 10 Mbps"
        labels.append(label)
        paper = B10 / 8 / (1 + n)
        _row(rows, label, "per-flow rate (byte/s)", sum(rates) / len(rates), FAIR_10 if n == 10 else paper,
             "113636 byte/s (section 4.1)" if n == 10 else "B/(1+n), eq. 2")
        _row(rows, label, "total / B", 8 * sum(rates) / B10, n / (1 + n), "n/(1+n), eq. 3")
        _row(rows, label, "loss ratio", float(r.flows["dropped_pkts"].sum()) / float(r.flows["sent_pkts"].sum()), None)
    for n, b in FLUID_BG:
        progress.step(f"welzl fluid n = {n}, background {b}")
        text = base + (
            f'\n[[flows]]\nname = "bg"\nkind = "cbr"\nfrom = "s"\nto = "d"\nrate = "{b * B10 / 1e6:g}Mbps"\n'
        )
        sc = _with(ccsim.loads(text), {"scenario.duration": DURATION, "flows.c.count": n})
        r = ccsim.run(sc)
        rates = _steady_rates(r, "c")
        label = f"fluid n = {n}, background b = {b}"
        labels.append(label)
        _row(rows, label, "per-flow rate (byte/s)", sum(rates) / len(rates), (1 - b) * B10 / 8 / (1 + n), "(1-b)/(1+n), section 3.1")
        _row(rows, label, "total / B", 8 * sum(rates) / B10, n * (1 - b) / (1 + n), "n(1-b)/(1+n)")
    progress.done()
    table = Table(
        "Section 3.1: CADPC rates at equilibrium (80-160 s), 10 Mbps: ours (paper)",
        labels, [("per-flow rate (byte/s)", "per flow (B/s)"), ("total / B", "total/B"), ("loss ratio", "loss")],
        floor={"per-flow rate": 0.0, "total": 0.02}, unit="B/s; fraction",
    )
    notes = ["Rates are the payload flow (data packets delivered) over 80-160 s of a 160 s run."]
    # Not counted (identities of eq. 1): ours is shown beside them.
    per10 = _row_val(rows, "fluid n = 10, 10 Mbps", "per-flow rate (byte/s)")
    tot10 = _row_val(rows, "fluid n = 10, 10 Mbps", "total / B")
    bg10 = _row_val(rows, "fluid n = 10, background b = 0.3", "per-flow rate (byte/s)")
    measured = {
        "sec31-equilibrium-b-over-1-plus-n": Measured(f"{per10:.0f} byte/s per flow, n = 10, 80-160 s", value=per10),
        "sec31-total-n-over-1-plus-n": Measured(f"total/B {tot10:.4f}, n = 10, 80-160 s", value=tot10),
        "sec31-background-1-minus-b": Measured(f"{bg10:.0f} byte/s per flow, n = 10, b = 0.3", value=bg10),
    }
    return _report("welzl-fluid", rows, [table], out_dir, [], notes, measured)


# ---------------------------------------------------------------------------------------
# Figures 1 and 2: the operational range.


def fig12(out_dir: Path, progress: Progress, bandwidths: tuple[int, ...] = BANDWIDTHS,
          counts: tuple[int, ...] = COUNTS, duration: str = DURATION) -> Report:  # fmt: skip
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    a_bandwidths = [b for b in bandwidths if b in A_BANDWIDTHS]
    a_others = [a for a in A_VALUES if a != 0.5]
    progress.start(2)
    progress.step(f"welzl fig12 sweep: {len(bandwidths) * len(counts) * 2} runs")
    sc = _with(_load("welzl-cadpc"), {"scenario.duration": duration})
    res = _sweep(sc, {
        "links.bottleneck.rate": [f"{b}Mbps" for b in bandwidths],
        "flows.c.count": list(counts),
        "defaults.data_size": ["1000B", "500B"],
    }, out_dir, "fig12")  # fmt: skip
    # Swept numbers with units are number columns named with the unit (docs/sweeps.md).
    cases = _summarise(res, ["links.bottleneck.rate_Mbps", "flows.c.count", "defaults.data_size_B"], "c")
    # The smoothness factor a (section 3.2): the same cells at 1000 B with a = 0.25 and 1.
    progress.step(f"welzl fig12 a sweep: {len(a_bandwidths) * len(counts) * len(a_others)} runs")
    a_res = _sweep(sc, {
        "links.bottleneck.rate": [f"{b}Mbps" for b in a_bandwidths],
        "flows.c.count": list(counts),
        "flows.c.params.a": a_others,
    }, out_dir, "fig12-a")  # fmt: skip
    a_cases = _summarise(a_res, ["links.bottleneck.rate_Mbps", "flows.c.count", "flows.c.params.a"], "c")
    progress.done()
    grid: dict[tuple[str, int, str], dict[str, Any]] = {}
    for c in cases:
        rate = int(c["links.bottleneck.rate_Mbps"])
        grid[(f"{int(c['defaults.data_size_B'])}B", rate, int(c["flows.c.count"]))] = c
    rows: list[Row] = []
    tables: list[Table] = []
    figures: list[Path] = []
    for size, fig_no in (("1000B", 1), ("500B", 2)):
        labels = []
        for b in bandwidths:
            label = f"fig{fig_no} {b} Mbps"
            labels.append(label)
            for n in counts:
                c = grid[(size, b, n)]
                paper = 0.5 if (fig_no == 1 and b == 1 and n == 100) else None
                _row(rows, label, f"loss {n}", c["loss"], paper)
                _row(rows, label, f"queue {n}", c["queue"], None)
        # The paper's one number gets its own cell (and its own row label).
        c = grid.get((size, 1, 100)) if 1 in bandwidths and 100 in counts else None
        if fig_no == 1 and c is not None:
            _row(rows, "fig1 1 Mbps, 100 flows", "loss ratio", c["loss"], 0.5, "'half of the packets are lost'")
        tables.append(Table(f"Figure {fig_no}: CADPC loss ratio over bandwidth x flows, {size} packets (ours)",
                            labels, [(f"loss {n}", f"{n}") for n in counts], score_rows=[]))  # fmt: skip
        tables.append(Table(f"Figure {fig_no}: CADPC mean queue (packets) over bandwidth x flows, {size} packets (ours)",
                            labels, [(f"queue {n}", f"{n}") for n in counts], score_rows=[]))  # fmt: skip
        fig, axes = _axes(1, 2, size=(11, 4))
        for b in bandwidths:
            axes[0, 0].plot(counts, [grid[(size, b, n)]["loss"] for n in counts], "o-", markersize=3, label=f"{b} Mbps")
            axes[0, 1].plot(counts, [grid[(size, b, n)]["queue"] for n in counts], "o-", markersize=3, label=f"{b} Mbps")
        axes[0, 0].set_ylabel("packet loss ratio")
        axes[0, 1].set_ylabel("average queue length (packets)")
        for ax in axes[0]:
            ax.set_xlabel("number of flows")
            ax.grid(True, alpha=0.3)
        axes[0, 1].legend(fontsize=7)
        fig.suptitle(f"CADPC loss ratio and average queue, {size} packets (cf. Figure {fig_no})")
        figures.append(_save(fig, out_dir / f"welzl-fig{fig_no}.png"))
    tables.insert(0, Table("Figures 1/2: the number the text states: ours (paper)", ["fig1 1 Mbps, 100 flows"],
                           [("loss ratio", "loss ratio")], floor=0.1, unit="fraction"))  # fmt: skip
    # The text's claims, in words, as numbers: cells of (almost) no loss per packet size.
    for size in ("1000B", "500B"):
        stable = sum(1 for b in bandwidths for n in counts if grid[(size, b, n)]["loss"] < 0.01)
        _row(rows, "claims", f"cells with loss < 1%, {size}", stable, None)
    tables.append(Table("Figures 1/2: the text's claims (ours)", ["claims"],
                        [(f"cells with loss < 1%, {s}", f"loss<1% cells {s}") for s in ("1000B", "500B")], score_rows=[]))  # fmt: skip
    notes = [
        "Grid: bottleneck 1-100 Mbps x 10-100 flows, 160 s each; loss ratio = data packets "
        "dropped / sent, queue = time-average of the bottleneck queue (packets).",
        "Claim 'smaller packets widen the stable region': compare the loss<1% cell counts.",
        f"Claims: a cell is 'close to 0' with loss < {STABLE_LOSS:g} and mean queue < {STABLE_QUEUE:g} packets; "
        f"the a sweep repeats the 1000 B cells at {', '.join(map(str, a_bandwidths))} Mbps with a = "
        f"{', '.join(f'{a:g}' for a in A_VALUES)}.",
    ]
    a_grid: dict[tuple[float, int, int], dict[str, Any]] = {
        (0.5, b, n): grid[("1000B", b, n)] for b in a_bandwidths for n in counts
    }
    for c in a_cases:
        rate = int(c["links.bottleneck.rate_Mbps"])
        a_grid[(float(c["flows.c.params.a"]), rate, int(c["flows.c.count"]))] = c
    measured = _fig12_claims(grid, a_grid, bandwidths, counts, a_bandwidths)
    return _report("welzl-fig12", rows, tables, out_dir, figures, notes, measured)


def _fig12_claims(grid: dict[tuple[str, int, int], dict[str, Any]], a_grid: dict[tuple[float, int, int], dict[str, Any]],
                  bandwidths: tuple[int, ...], counts: tuple[int, ...], a_bandwidths: list[int]) -> dict[str, Measured]:  # fmt: skip
    """The Section 3.2 / Figure 1-2 claims of the inventory, from the grid and the a sweep."""
    out: dict[str, Measured] = {}
    # Stability against a: cells close to 0 per a (fewer as a rises).
    n_a = {a: sum(1 for b in a_bandwidths for n in counts if _stable(a_grid[(a, b, n)])) for a in A_VALUES}
    cells = len(a_bandwidths) * len(counts)
    lo, mid, hi = (n_a[a] for a in A_VALUES)
    out["sec32-stability-vs-a"] = Measured(
        "cells close to 0 (of " + str(cells) + "): " + ", ".join(f"a = {a:g}: {n_a[a]}" for a in A_VALUES)
        + "; loss at 1 Mbps and the most flows: "
        + ", ".join(f"a = {a:g}: {_fmt(a_grid[(a, a_bandwidths[0], counts[-1])]['loss'])}" for a in A_VALUES)
        if a_bandwidths else "no cell of the a sweep in this grid",
        holds=bool(a_bandwidths) and lo >= mid >= hi and lo > hi,
    )  # fmt: skip
    # Figure 1: loss grows with flows at 1 and 2 Mbps, falls with bandwidth (1..10) at the most flows.
    low = [b for b in (1, 2) if b in bandwidths]
    span = [b for b in (1, 2, 5, 10) if b in bandwidths]
    top = counts[-1]
    for cid, key, what in (("fig1-loss-grows-small-bw-many-flows", "loss", "loss"),
                           ("fig1-queue-coincides-with-loss", "queue", "mean queue")):  # fmt: skip
        by_flows = {b: [grid[("1000B", b, n)][key] for n in counts] for b in low}
        by_bw = [grid[("1000B", b, top)][key] for b in span]
        ok = all(_never_falls(v) for v in by_flows.values()) and _strictly_falls(by_bw) and len(span) > 1
        words = "; ".join(f"{what} at {b} Mbps over {counts[0]}..{top} flows: " + " ".join(_fmt(x) for x in v)
                          for b, v in by_flows.items())  # fmt: skip
        words += f"; at {top} flows over " + "/".join(map(str, span)) + " Mbps: " + " ".join(_fmt(x) for x in by_bw)
        out[cid] = Measured(words, holds=ok)
    if 1 in bandwidths and 100 in counts:
        c = grid[("1000B", 1, 100)]
        out["fig1-loss-100-flows-1mbps"] = Measured(
            f"loss ratio {c['loss']:.3f} (mean queue {c['queue']:.1f} packets), 100 flows, 1 Mbps, 1000 B", value=c["loss"]
        )  # fmt: skip
    stable = {size: sum(1 for b in bandwidths for n in counts if _stable(grid[(size, b, n)])) for size in ("1000B", "500B")}
    out["fig2-stable-region-grows-smaller-packets"] = Measured(
        f"cells close to 0 (of {len(bandwidths) * len(counts)}): 1000 B {stable['1000B']}, 500 B {stable['500B']}",
        holds=stable["500B"] > stable["1000B"],
    )
    return out


# ---------------------------------------------------------------------------------------
# Figure 3: total throughput over time, CADPC and TCP.


def _total_series(r: ccsim.Results, prefix: str) -> tuple[list[float], list[float]]:
    iv = r.intervals
    iv = iv[iv["name"].str.startswith(prefix)]
    t, v = [], []
    for (_start, end), g in iv.groupby(["start_s", "end_s"]):
        t.append(float(end))
        v.append(float(g["goodput_bps"].sum()))
    return t, v


def fig3(out_dir: Path, progress: Progress, duration: str = DURATION) -> Report:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    progress.start(4)
    rows: list[Row] = []
    series: dict[tuple[str, int], tuple[list[float], list[float]]] = {}
    labels = []
    for rate in (10, 100):
        for kind, name, prefix in (("CADPC", "welzl-cadpc", "c"), ("TCP Reno", "welzl-tcp", "t")):
            progress.step(f"welzl fig3 {kind} {rate} Mbps")
            sc = _with(_load(name), {"scenario.duration": duration, "links.bottleneck.rate": f"{rate}Mbps",
                                     "measure.interval": "1s"})  # fmt: skip
            r = ccsim.run(sc)
            t, v = _total_series(r, prefix)
            series[(kind, rate)] = (t, v)
            label = f"fig3 {kind}, {rate} Mbps"
            labels.append(label)
            tail = [x for tt, x in zip(t, v, strict=True) if tt > 20]
            mean = sum(tail) / len(tail)
            std = math.sqrt(sum((x - mean) ** 2 for x in tail) / len(tail))
            reach = next((tt for tt, x in zip(t, v, strict=True) if x >= 0.8 * rate * 1e6 * 10 / 11), None)
            _row(rows, label, "utilisation after 20 s", mean / (rate * 1e6), None)
            _row(rows, label, "cv after 20 s", std / mean if mean else None, None)
            _row(rows, label, "time to 80% of 10/11 B (s)", reach, None)
            _row(rows, label, "loss ratio", float(r.flows["dropped_pkts"].sum()) / float(r.flows["sent_pkts"].sum()), None)
    progress.done()
    fig, axes = _axes(1, 2, size=(11, 4))
    for ax, rate in zip(axes[0], (10, 100), strict=True):
        for kind in ("CADPC", "TCP Reno"):
            t, v = series[(kind, rate)]
            ax.plot(t, [x / 1e6 for x in v], linewidth=0.8, label=f"10 {kind} flows")
        ax.set_title(f"{rate} Mbit/s bottleneck", fontsize=10)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("total throughput (Mbit/s)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("CADPC vs TCP (cf. Figure 3)")
    figures = [_save(fig, out_dir / "welzl-fig3.png")]
    table = Table("Figure 3: total throughput, 10 flows of one kind (ours; the paper gives no numbers)",
                  labels, [(c, c) for c in ("utilisation after 20 s", "cv after 20 s", "time to 80% of 10/11 B (s)", "loss ratio")],
                  score_rows=[])  # fmt: skip
    notes = ["Claims: CADPC smoother (lower cv) than TCP; TCP slower to converge and less "
             "utilisation at 100 Mbps than at 10 Mbps, CADPC fast at both."]  # fmt: skip
    return _report("welzl-fig3", rows, [table], out_dir, figures, notes, _fig3_claims(rows))


# "Rapidly" (Figure 3): within a tenth of the 160 s run, about 50 of its 500 RTTs.
RAPID_S = 16.0


def _fig3_claims(rows: list[Row]) -> dict[str, Measured]:
    def v(kind: str, rate: int, col: str) -> float | None:
        for r in rows:
            if r.row == f"fig3 {kind}, {rate} Mbps" and r.column == col:
                return r.ours
        raise KeyError((kind, rate, col))

    cv = {(k, b): v(k, b, "cv after 20 s") for k in ("CADPC", "TCP Reno") for b in (10, 100)}
    util = {(k, b): v(k, b, "utilisation after 20 s") for k in ("CADPC", "TCP Reno") for b in (10, 100)}
    reach = {(k, b): v(k, b, "time to 80% of 10/11 B (s)") for k in ("CADPC", "TCP Reno") for b in (10, 100)}
    inf = float("inf")
    out: dict[str, Measured] = {}
    out["fig3-cadpc-smoother"] = Measured(
        "cv of the total after 20 s, CADPC / TCP: " + ", ".join(f"{b} Mbps {cv[('CADPC', b)]:.4f} / {cv[('TCP Reno', b)]:.3f}" for b in (10, 100)),
        holds=all((cv[("CADPC", b)] or 0.0) < (cv[("TCP Reno", b)] or 0.0) for b in (10, 100)),
    )  # fmt: skip
    t10, t100 = (reach[("TCP Reno", b)] for b in (10, 100))
    out["fig3-tcp-slower-at-higher-capacity"] = Measured(
        f"TCP Reno utilisation after 20 s {util[('TCP Reno', 10)]:.3f} at 10 Mbps, {util[('TCP Reno', 100)]:.3f} at 100; "
        f"time to 80% of 10/11 B {_secs(t10)} and {_secs(t100)}",
        holds=(util[("TCP Reno", 100)] or 0.0) < (util[("TCP Reno", 10)] or 0.0)
        and (t100 if t100 is not None else inf) > (t10 if t10 is not None else inf),
    )  # fmt: skip
    steady = 10 / 11
    ok = all((reach[("CADPC", b)] if reach[("CADPC", b)] is not None else inf) <= RAPID_S
             and abs((util[("CADPC", b)] or 0.0) / steady - 1) <= 0.02 for b in (10, 100))  # fmt: skip
    out["fig3-cadpc-converges-rapidly"] = Measured(
        "CADPC: 80% of 10/11 B after " + ", ".join(f"{_secs(reach[('CADPC', b)])} at {b} Mbps" for b in (10, 100))
        + f" (limit {RAPID_S:g} s); utilisation after 20 s "
        + ", ".join(f"{util[('CADPC', b)]:.4f}" for b in (10, 100)) + f" (10/11 = {steady:.4f}, within 2%)",
        holds=ok,
    )  # fmt: skip
    return out


# ---------------------------------------------------------------------------------------
# Figure 4: heterogeneous update intervals and RTTs.


def _hetero_text(n: int, updates: list[float], extra_ms: list[float], starts_ms: list[float], duration: str,
                 startup: bool = True, interval: str = "10s") -> str:  # fmt: skip
    """n CADPC flows, flow i from s_i (its access link 50 ms + extra_ms[i]/2 each way, so
    its RTT grows by extra_ms[i]) to d, update interval updates[i] RTTs."""
    hosts = ", ".join(f'"s{i}"' for i in range(n))
    t = (
        f'[scenario]\nname = "welzl-fig4"\nduration = "{duration}"\n'
        f'[defaults]\ndata_size = "1000B"\nbuffer = "50pkt"\n'
        f'[nodes]\nhosts = [{hosts}, "d"]\nrouters = ["r1", "r2"]\n'
        f'[[links]]\nname = "bottleneck"\nbetween = ["r1", "r2"]\nrate = "10Mbps"\ndelay = "50ms"\n'
        f'[[links]]\nbetween = ["r2", "d"]\nrate = "1000Mbps"\ndelay = "50ms"\nbuffer = "10000pkt"\n'
    )
    for i in range(n):
        t += f'[[links]]\nbetween = ["s{i}", "r1"]\nrate = "1000Mbps"\ndelay = "{50 + extra_ms[i] / 2:g}ms"\n'
    for i in range(n):
        t += (f'[[flows]]\nname = "c{i}"\nkind = "cadpc"\nfrom = "s{i}"\nto = "d"\nstart = "{starts_ms[i]:g}ms"\n'
              f'params = {{ update = {updates[i]:g}{"" if startup else ", startup = false"} }}\n')  # fmt: skip
    t += f'[[elements]]\nkind = "ptp"\nat = ["r1->r2", "r2->d"]\n[measure]\ninterval = "{interval}"\n'
    return t


def _per_flow_series(r: ccsim.Results, n: int) -> dict[int, tuple[list[float], list[float]]]:
    iv = r.intervals
    out = {}
    for i in range(n):
        g = iv[iv["name"] == f"c{i}"]
        out[i] = ([float(x) for x in g["end_s"]], [float(x) / 8 for x in g["goodput_bps"]])
    return out


def fig4(out_dir: Path, progress: Progress, duration_left: str = "1200s", duration_right: str = "300s") -> Report:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    progress.start(4)
    n = 10
    left_updates = [4.0 * (i + 1) for i in range(n)]
    right_extra, right_starts = [117.0 * i for i in range(n)], [30.0 * i for i in range(n)]
    progress.step("welzl fig4 left: update intervals 4..40 RTTs")
    left = ccsim.run(ccsim.loads(_hetero_text(n, left_updates, [0.0] * n, [0.0] * n, duration_left)))
    progress.step("welzl fig4 right: RTTs +117 ms per flow, a new flow every 30 ms")
    right = ccsim.run(ccsim.loads(_hetero_text(n, [4.0] * n, right_extra, right_starts, duration_right)))
    # For the claims: the left run without the startup enhancement (regular logistic
    # growth), twice as long, and the right run again in 1 s bins.
    progress.step("welzl fig4 left without startup (claims)")
    long_left = f"{2 * _seconds(duration_left):g}s"
    logistic = ccsim.run(ccsim.loads(_hetero_text(n, left_updates, [0.0] * n, [0.0] * n, long_left, startup=False)))
    progress.step("welzl fig4 right in 1 s bins (claims)")
    right_fine = ccsim.run(ccsim.loads(_hetero_text(n, [4.0] * n, right_extra, right_starts, duration_right, interval="1s")))
    progress.done()
    rows: list[Row] = []
    labels = []
    figures = []
    fig, axes = _axes(1, 2, size=(11, 4))
    for ax, r, side, title in ((axes[0, 0], left, "left", "update 4(i+1) RTTs"), (axes[0, 1], right, "right", "RTT 300 + 117 i ms")):
        s = _per_flow_series(r, n)
        end = r.sim_time_s
        for i in range(n):
            t, v = s[i]
            ax.plot(t, v, linewidth=0.8, label=f"flow {i}")
            last = [x for tt, x in zip(t, v, strict=True) if tt > end - 200]
            label = f"fig4 {side}"
            if label not in labels:
                labels.append(label)
            _row(rows, label, f"flow {i} final rate (B/s)", sum(last) / len(last), FAIR_10 if side == "left" else None)
        ax.axhline(FAIR_10, color="black", linewidth=0.6, linestyle="--")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("rate (byte/s)")
        ax.grid(True, alpha=0.3)
    axes[0, 1].legend(fontsize=6, ncol=2)
    fig.suptitle("Fairness with heterogeneous RTTs (cf. Figure 4)")
    figures.append(_save(fig, out_dir / "welzl-fig4.png"))
    s = _per_flow_series(left, n)
    t9, v9 = s[9]
    reach = next((tt for tt, x in zip(t9, v9, strict=True) if x >= 0.9 * FAIR_10), None)
    _row(rows, "fig4 flow 9 (update 40 RTTs)", "time to 90% of fair share (s)", reach, 1000.0, "'approximately 1000 seconds'")
    jl = jain([_row_val(rows, "fig4 left", f"flow {i} final rate (B/s)") for i in range(n)])
    jr = jain([_row_val(rows, "fig4 right", f"flow {i} final rate (B/s)") for i in range(n)])
    _row(rows, "fig4 left", "Jain index, last 200 s", jl, None)
    _row(rows, "fig4 right", "Jain index, last 200 s", jr, None)
    cols = [(f"flow {i} final rate (B/s)", f"flow {i}") for i in range(n)] + [("Jain index, last 200 s", "Jain")]
    tables = [
        Table("Figure 4: per-flow rate over the last 200 s (byte/s): ours (paper: 113636 each)", labels, cols,
              floor=0.0, unit="B/s", score_rows=["fig4 left"]),  # fmt: skip
        Table("Figure 4: flow 9's convergence: ours (paper)", ["fig4 flow 9 (update 40 RTTs)"],
              [("time to 90% of fair share (s)", "time to 90% (s)")], floor=200.0, unit="s"),  # fmt: skip
    ]
    notes = ["Left: 1200 s (flow 9 needs about 1000 s in the paper). Right: 300 s; the paper "
             "gives neither its length nor its figure's numbers."]  # fmt: skip
    measured = _fig4_claims(rows, left, right, logistic, right_fine, n, reach)
    return _report("welzl-fig4", rows, tables, out_dir, figures, notes, measured)


def _seconds(duration: str) -> float:
    assert duration.endswith("s"), duration
    return float(duration[:-1])


def _reach(series: tuple[list[float], list[float]], level: float) -> float | None:
    """The end of the first bin whose rate is at least ``level``."""
    return next((t for t, x in zip(*series, strict=True) if x >= level), None)


def _window_mean(series: tuple[list[float], list[float]], start: float, end: float) -> float:
    xs = [x for t, x in zip(*series, strict=True) if start < t <= end]
    return sum(xs) / len(xs) if xs else 0.0


# A flow "used the startup mechanism" (Figure 4 right) if it reached half its fair share
# faster than eq. 1 with a = 0.5 allows: at most x1.5 per update, so from the initial
# 1000 byte/s to 56818 byte/s takes ln(56.8)/ln(1.5) = 9.96, i.e. 10 updates, the first of
# them one RTT + 4 RTTs after the start (the first feedback carries no measurement).
STARTUP_UPDATES = 10


def _fig4_claims(rows: list[Row], left: ccsim.Results, right: ccsim.Results, logistic: ccsim.Results,
                 right_fine: ccsim.Results, n: int, reach9: float | None) -> dict[str, Measured]:  # fmt: skip
    out: dict[str, Measured] = {}
    finals = [_row_val(rows, "fig4 left", f"flow {i} final rate (B/s)") for i in range(n)]
    worst = max(range(n), key=lambda i: abs(finals[i] - FAIR_10))
    out["fig4-left-converge-fair-share"] = Measured(
        f"last 200 s: flows between {min(finals):.0f} and {max(finals):.0f} byte/s; farthest from 113636: "
        f"flow {worst}, {finals[worst]:.0f}", value=finals[worst],
    )  # fmt: skip
    end = left.sim_time_s
    out["fig4-flow9-1000s"] = Measured(
        f"flow 9 first at 90% of 113636 byte/s after {reach9:g} s" if reach9 is not None
        else f"flow 9 not at 90% of 113636 byte/s within {end:g} s (given as {end:g})",
        value=reach9 if reach9 is not None else end,
    )  # fmt: skip
    log9 = _reach(_per_flow_series(logistic, n)[9], 0.9 * FAIR_10)
    log_end = logistic.sim_time_s
    t_start = reach9 if reach9 is not None else float("inf")
    t_log = log9 if log9 is not None else float("inf")
    out["fig4-startup-almost-logistic"] = Measured(
        f"flow 9 at 90% of its fair share after {_secs(reach9)} with the startup enhancement, after "
        + (f"{log9:g} s" if log9 is not None else f"more than {log_end:g} s") + " without it (startup = false); "
        + (f"ratio {t_start / t_log:.2f}" if log9 is not None and reach9 is not None else "")
        + " (almost: at least 0.85)",
        holds=log9 is not None and t_start >= 0.85 * t_log,
    )  # fmt: skip
    # Section 3.1 on Figure 4 right: converging (not oscillating) with RTTs 300 + 117 i ms.
    s = _per_flow_series(right, n)
    t_end = right.sim_time_s
    mid = [_window_mean(s[i], t_end - 200, t_end - 100) for i in range(n)]
    last = [_window_mean(s[i], t_end - 100, t_end) for i in range(n)]
    d_mid = max(abs(x / FAIR_10 - 1) for x in mid)
    d_last = max(abs(x / FAIR_10 - 1) for x in last)
    total = 8 * sum(last) / B10
    out["sec31-stable-async-rtts"] = Measured(
        f"largest distance of a flow's mean rate from 113636 byte/s: {d_mid:.1%} over {t_end - 200:g}-{t_end - 100:g} s, "
        f"{d_last:.1%} over {t_end - 100:g}-{t_end:g} s; total {total:.4f} of B (10/11 = 0.9091)",
        holds=d_last < d_mid and abs(total / (10 / 11) - 1) <= 0.02,
    )  # fmt: skip
    fine = _per_flow_series(right_fine, n)
    used, not_used = [], []
    for i in range(n):
        rtt = 0.3 + 0.117 * i
        start = 0.03 * i
        t_half = _reach(fine[i], FAIR_10 / 2)
        limit = start + (1 + 4 * STARTUP_UPDATES) * rtt + 1.0  # + one 1 s bin
        (used if t_half is not None and t_half <= limit else not_used).append(i)
    out["fig4-right-some-flows-use-startup"] = Measured(
        f"reached half the fair share faster than a = 0.5 allows (used startup): flows {used or 'none'}; "
        f"not: flows {not_used or 'none'}",
        holds=bool(used) and bool(not_used),
    )  # fmt: skip
    return out


def _row_val(rows: list[Row], row: str, column: str) -> float:
    for r in rows:
        if r.row == row and r.column == column:
            return float(r.ours or 0.0)
    raise KeyError((row, column))


# ---------------------------------------------------------------------------------------
# Figure 5: CADPC against TCP Reno, SACK and Vegas with ECN, 100 Mbps.

FIG5_KINDS = {
    "CADPC": ("welzl-cadpc", "c", {}),
    "Reno": ("welzl-tcp", "t", {"defaults.cc": "reno"}),
    # ns-2's Sack1 agent forgets the SACK blocks on a timeout and resends everything, and
    # only its timer finds a lost retransmission.
    "SACK": ("welzl-tcp", "t", {"defaults.cc": "reno", "defaults.sack": True, "defaults.sack_timeout": "clear",
                                "defaults.lost_retransmissions": "timer"}),
    "Vegas": ("welzl-tcp", "t", {"defaults.cc": "vegas"}),
}
METRICS = (("throughput", "throughput (Mbit/s)", 1e-6), ("loss", "loss ratio", 1.0),
           ("queue", "average queue (pkts)", 1.0), ("jain", "fairness (Jain)", 1.0))  # fmt: skip


def _versus(out_dir: Path, progress: Progress, kinds: dict[str, tuple[str, str, dict[str, Any]]], fig: str,
             title: str, counts: tuple[int, ...], duration: str) -> tuple[list[Row], list[Table], list[Path], dict[str, Any]]:  # fmt: skip
    """Every kind over the flow counts at 100 Mbps (one sweep per kind); rows, tables,
    the figure and the per-kind cases."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    progress.start(len(kinds))
    data: dict[str, dict[int, dict[str, Any]]] = {}
    for kind, (name, prefix, sets) in kinds.items():
        progress.step(f"welzl {fig} {kind}: {len(counts)} runs")
        sc = _with(_load(name), {"scenario.duration": duration, "links.bottleneck.rate": "100Mbps", **sets})
        res = _sweep(sc, {f"flows.{prefix}.count": list(counts)}, out_dir, f"{fig}-{kind.lower()}")
        data[kind] = {int(c["n"]): c for c in _summarise(res, [], prefix)}
    progress.done()
    rows: list[Row] = []
    labels = []
    for kind in kinds:
        label = f"{fig} {kind}"
        labels.append(label)
        for key, col, scale in METRICS:
            for n in counts:
                v = data[kind][n][key]
                _row(rows, label, f"{col} {n}", None if v is None else v * scale, None)
    fig_, axes = _axes(2, 2, size=(11, 7))
    for ax, (key, col, scale) in zip(axes.flat, METRICS, strict=True):
        for kind in kinds:
            ax.plot(counts, [(data[kind][n][key] or 0) * scale for n in counts], "o-", markersize=3, label=kind)
        ax.set_xlabel("number of flows")
        ax.set_ylabel(col)
        ax.grid(True, alpha=0.3)
    axes[0, 0].legend(fontsize=8)
    fig_.suptitle(title)
    figures = [_save(fig_, out_dir / f"welzl-{fig}.png")]
    tables = [
        Table(f"Figure {fig[3:]}: {col} over the number of flows (ours)", labels, [(f"{col} {n}", str(n)) for n in counts], score_rows=[])
        for _, col, _ in METRICS
    ]
    return rows, tables, figures, data


def fig5(out_dir: Path, progress: Progress, counts: tuple[int, ...] = COUNTS, duration: str = DURATION) -> Report:
    out_dir = Path(out_dir)
    rows, tables, figures, data = _versus(out_dir, progress, FIG5_KINDS, "fig5",
                                          "CADPC and TCP (ECN on, drop-tail), 100 Mbit/s bottleneck (cf. Figure 5)", counts, duration)  # fmt: skip
    # The text's claims as counts over the flow counts.
    lowest_loss = sum(1 for n in counts if data["CADPC"][n]["loss"] <= min(data[k][n]["loss"] for k in FIG5_KINDS))
    smallest_q = sum(1 for n in counts if data["CADPC"][n]["queue"] <= min(data[k][n]["queue"] for k in FIG5_KINDS))
    _row(rows, "fig5 claims", "CADPC lowest loss (of counts)", lowest_loss, None)
    _row(rows, "fig5 claims", "CADPC smallest queue (of counts)", smallest_q, None)
    _row(rows, "fig5 claims", "flow counts", len(counts), None)
    tables.append(Table("Figure 5: the text's claims (ours)", ["fig5 claims"],
                        [(c, c) for c in ("CADPC lowest loss (of counts)", "CADPC smallest queue (of counts)", "flow counts")],
                        score_rows=[]))  # fmt: skip
    notes = ["Whole 160 s runs; throughput = payload delivered; loss = data dropped / sent; "
             "queue = time-average of the bottleneck queue; fairness = Jain's index of per-flow throughput.",
             "ECN is negotiated but inert: drop-tail marks nothing (Table 1)."]  # fmt: skip
    return _report("welzl-fig5", rows, tables, out_dir, figures, notes, _fig5_claims(data, counts))


def _wins(data: dict[str, Any], counts: tuple[int, ...], key: str, other: str, higher: bool) -> int:
    """At how many counts CADPC's ``key`` is strictly above (``higher``) or below ``other``'s."""
    def better(n: int) -> bool:
        a, b = data["CADPC"][n][key], data[other][n][key]
        return a > b if higher else a < b
    return sum(1 for n in counts if better(n))


def _smallest_queue(data: dict[str, Any], counts: tuple[int, ...], kinds: list[str]) -> int:
    return sum(1 for n in counts if all(data["CADPC"][n]["queue"] < data[k][n]["queue"] for k in kinds if k != "CADPC"))


def _pairwise(data: dict[str, Any], counts: tuple[int, ...], key: str, others: list[str], higher: bool) -> tuple[dict[str, int], str]:
    wins = {k: _wins(data, counts, key, k, higher) for k in others}
    return wins, ", ".join(f"{k} {w}/{len(counts)}" for k, w in wins.items())


def _fig5_claims(data: dict[str, Any], counts: tuple[int, ...]) -> dict[str, Measured]:
    tcp = ["Reno", "SACK", "Vegas"]
    m = len(counts)
    out: dict[str, Measured] = {}
    jains = [data["CADPC"][n]["jain"] or 0.0 for n in counts]
    fair = sum(1 for j in jains if j >= 0.99)
    out["intro-max-min-fairness"] = Measured(
        f"CADPC's Jain index >= 0.99 at {fair} of {m} counts (" + ", ".join(f"{n}: {j:.2f}" for n, j in zip(counts, jains, strict=True)) + ")",
        holds=_majority(fair, m),
    )  # fmt: skip
    wins, words = _pairwise(data, counts, "throughput", tcp, higher=True)
    out["fig5-more-throughput-than-tcp"] = Measured(
        f"counts where CADPC's throughput is higher: {words}", holds=all(_majority(w, m) for w in wins.values())
    )
    wins, words = _pairwise(data, counts, "loss", tcp, higher=False)
    out["fig5-less-loss-than-tcp"] = Measured(
        f"counts where CADPC's loss ratio is lower: {words}", holds=all(_majority(w, m) for w in wins.values())
    )
    q = _smallest_queue(data, counts, ["CADPC", *tcp])
    out["fig5-smallest-queue"] = Measured(f"CADPC's mean queue the smallest of the four at {q} of {m} counts", holds=q >= 0.8 * m)
    return out


# ---------------------------------------------------------------------------------------
# Figure 6: CADPC against the TCP-friendly mechanisms (RAP, GAIMD, TFRC, TEAR).

FIG6_KINDS = {
    "CADPC": ("welzl-cadpc", "c", {}),
    "RAP": ("welzl-rap", "r", {}),
    "GAIMD": ("welzl-rap", "r", {"flows.r.params.alpha": 0.31, "flows.r.params.beta": 0.875}),
    "TFRC": ("welzl-tfrc", "f", {}),
    "TEAR": ("welzl-tear", "e", {}),
}
# "With many flows" (the RAP-TFRC claim): the counts from 50 flows up (our reading).
MANY = 50


def fig6(out_dir: Path, progress: Progress, counts: tuple[int, ...] = COUNTS, duration: str = DURATION) -> Report:
    out_dir = Path(out_dir)
    rows, tables, figures, data = _versus(out_dir, progress, FIG6_KINDS, "fig6",
                                          "CADPC, RAP, GAIMD, TFRC and TEAR, 100 Mbit/s bottleneck (cf. Figure 6)", counts, duration)  # fmt: skip
    lowest_loss = sum(1 for n in counts if data["CADPC"][n]["loss"] <= min(data[k][n]["loss"] for k in FIG6_KINDS))
    most = sum(1 for n in counts if data["CADPC"][n]["throughput"] >= max(data[k][n]["throughput"] for k in FIG6_KINDS))
    _row(rows, "fig6 claims", "CADPC lowest loss (of counts)", lowest_loss, None)
    _row(rows, "fig6 claims", "CADPC most throughput (of counts)", most, None)
    # "TFRC's higher throughput comes with high loss": TFRC above RAP and GAIMD (the other
    # TCP-friendly rate senders of the paper's sentence) in throughput and above CADPC in loss. "RAP gets less throughput and more loss than
    # TFRC with many flows": both, at the counts from MANY flows up.
    tfrc_high = sum(1 for n in counts if data["TFRC"][n]["throughput"] > max(data[k][n]["throughput"] for k in ("RAP", "GAIMD"))
                    and data["TFRC"][n]["loss"] > data["CADPC"][n]["loss"])  # fmt: skip
    many = [n for n in counts if n >= MANY]
    rap_below = sum(1 for n in many if data["RAP"][n]["throughput"] < data["TFRC"][n]["throughput"]
                    and data["RAP"][n]["loss"] > data["TFRC"][n]["loss"])  # fmt: skip
    _row(rows, "fig6 claims", "flow counts", len(counts), None)
    _row(rows, "fig6 claims", "TFRC more throughput than RAP and GAIMD, more loss than CADPC (of counts)", tfrc_high, None)
    _row(rows, "fig6 claims", f"RAP less throughput and more loss than TFRC (of counts >= {MANY})", rap_below, None)
    _row(rows, "fig6 claims", f"flow counts >= {MANY}", len(many), None)
    claims = ("CADPC lowest loss (of counts)", "CADPC most throughput (of counts)", "flow counts",
              "TFRC more throughput than RAP and GAIMD, more loss than CADPC (of counts)",
              f"RAP less throughput and more loss than TFRC (of counts >= {MANY})", f"flow counts >= {MANY}")  # fmt: skip
    tables.append(Table("Figure 6: the text's claims (ours)", ["fig6 claims"], [(c, c) for c in claims], score_rows=[]))
    notes = ["Figure 6: RAP, GAIMD (RAP with alpha = 0.31, beta = 7/8) TFRC (RFC 3448) and TEAR (our reading of Rhee et al. 2000, transport/tear.rs)."]
    return _report("welzl-fig6", rows, tables, out_dir, figures, notes, _fig6_claims(data, counts))


def _fig6_claims(data: dict[str, Any], counts: tuple[int, ...]) -> dict[str, Measured]:
    others = ["RAP", "GAIMD", "TFRC", "TEAR"]
    m = len(counts)
    out: dict[str, Measured] = {}
    tfrc = [n for n in counts if data["TFRC"][n]["throughput"] > max(data["RAP"][n]["throughput"], data["GAIMD"][n]["throughput"])
            and data["TFRC"][n]["loss"] > data["CADPC"][n]["loss"]]  # fmt: skip
    out["fig6-tfrc-high-throughput-high-loss"] = Measured(
        f"TFRC above RAP and GAIMD in throughput and above CADPC in loss at {len(tfrc)} of {m} counts ({tfrc})",
        holds=_majority(len(tfrc), m),
    )
    # "Many flows": the upper half of the figure's range of counts.
    many = [n for n in counts if n > (counts[0] + counts[-1]) / 2] or [counts[-1]]
    rap = [n for n in many if data["RAP"][n]["throughput"] < data["TFRC"][n]["throughput"]
           and data["RAP"][n]["loss"] > data["TFRC"][n]["loss"]]  # fmt: skip
    out["fig6-rap-worse-than-tfrc-many-flows"] = Measured(
        f"RAP below TFRC in throughput and above it in loss at {len(rap)} of the {len(many)} counts {many} ({rap}); "
        + "throughput RAP/TFRC " + ", ".join(f"{n}: {data['RAP'][n]['throughput'] / 1e6:.1f}/{data['TFRC'][n]['throughput'] / 1e6:.1f}" for n in many)
        + "; loss x1000 RAP/TFRC " + ", ".join(f"{n}: {1e3 * data['RAP'][n]['loss']:.2f}/{1e3 * data['TFRC'][n]['loss']:.2f}" for n in many),
        holds=_majority(len(rap), len(many)),
    )  # fmt: skip
    wins, words = _pairwise(data, counts, "throughput", others, higher=True)
    beaten = sum(1 for w in wins.values() if _majority(w, m))
    out["fig6-more-throughput-than-almost-all"] = Measured(
        f"counts where CADPC's throughput is higher: {words}; more at a majority against {beaten} of 4", holds=beaten >= 3
    )
    wins, words = _pairwise(data, counts, "loss", others, higher=False)
    out["fig6-lowest-loss"] = Measured(
        f"counts where CADPC's loss ratio is lower: {words}", holds=all(_majority(w, m) for w in wins.values())
    )
    q = _smallest_queue(data, counts, ["CADPC", *others])
    smaller = {k: sum(1 for n in counts if data[k][n]["queue"] <= data["CADPC"][n]["queue"]) for k in others}
    out["fig6-smallest-queue"] = Measured(
        f"CADPC's mean queue the smallest of the five at {q} of {m} counts; counts where another's is at most CADPC's: "
        + ", ".join(f"{k} {v}" for k, v in smaller.items()),
        holds=q >= 0.8 * m,
    )  # fmt: skip
    return out


EXPERIMENTS = {
    "fluid": ("Welzl section 3.1: CADPC converges to B/(1+n), with background to (1-b)/(1+n)", fluid),
    "fig12": ("Welzl Figures 1/2: CADPC loss ratio and queue over bandwidth x flows, 1000/500 B", fig12),
    "fig3": ("Welzl Figure 3: total throughput of 10 CADPC vs 10 TCP flows, 10 and 100 Mbps", fig3),
    "fig4": ("Welzl Figure 4: convergence with update intervals 4..40 RTTs and growing RTTs", fig4),
    "fig5": ("Welzl Figure 5: CADPC vs TCP Reno/SACK/Vegas with ECN, 100 Mbps, 10-100 flows", fig5),
    "fig6": ("Welzl Figure 6: CADPC vs RAP, GAIMD, TFRC and TEAR, 100 Mbps, 10-100 flows", fig6),
}


def reproduce(out_dir: Path, progress: Progress) -> Report:
    """Every experiment; welzl.csv holds every row."""
    return combine("welzl", EXPERIMENTS, out_dir, progress, len(FLUID_N) + len(FLUID_BG) + 2 + 4 + 4 + len(FIG5_KINDS) + len(FIG6_KINDS), EXPLAIN)

"""Compare one case family of families.py: means over the seeds with 95% confidence
intervals (Student's t), ccsim against ns-3, as a Markdown table on stdout.

    python compare_families.py out/ccsim-FAMILY.json out/ns3-FAMILY.json > out/table-FAMILY.md

Targets: goodput within 3%, mean queueing delay within 10%, Jain's index
within 0.03; a difference is marked `*` when it is outside its target.
"""

from __future__ import annotations

import math
import statistics
import sys

from compare import jain, run

# Student's t, two-sided 95%, by degrees of freedom
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228}

GOODPUT_REL, SOJOURN_REL, JAIN_ABS = 0.03, 0.10, 0.03


def mean_ci(xs: list[float]) -> tuple[float, float]:
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, float("nan")
    return m, T95.get(len(xs) - 1, 1.96) * statistics.stdev(xs) / math.sqrt(len(xs))


def metrics(case: dict) -> dict[str, list[float]]:
    runs = case["runs"]
    n = case["flows"]
    scale = 1e6 if case["rate_bps"] >= 1e9 else 1e3  # microseconds in the datacenter
    out = {
        "goodput": [sum(r["goodput_mbps"]) for r in runs],
        "sojourn_ms": [scale * r["sojourn_s"] for r in runs],
        "jain": [jain(r["goodput_mbps"]) for r in runs],
    }
    # Flows with equal round trips are exchangeable (their starts are random), so per-flow
    # goodput is compared per round-trip class: the mean of the 1 ms and of the 105 ms flows.
    short = [i for i in range(n) if case["access_ms"][i] == min(case["access_ms"])]
    long_ = [i for i in range(n) if i not in short]
    if long_:
        out["short"] = [statistics.fmean(r["goodput_mbps"][i] for i in short) for r in runs]
        out["long"] = [statistics.fmean(r["goodput_mbps"][i] for i in long_) for r in runs]
    if any(r.get("qdisc_sojourn_s") for r in runs):
        out["qd_sojourn_ms"] = [scale * r["qdisc_sojourn_s"] for r in runs]
    if all("timeouts" in r for r in runs):
        out["timeouts"] = [float(r["timeouts"]) for r in runs]
    if case["cbr_bps"] > 0:
        out["cbr"] = [r["cbr_mbps"] for r in runs]
    return out


def _cell(xs: list[float], digits: int) -> str:
    m, h = mean_ci(xs)
    return f"{m:.{digits}f} ± {h:.{digits}f}"


def _rel(a: list[float], b: list[float], limit: float | None) -> str:
    ma, mb = statistics.fmean(a), statistics.fmean(b)
    if mb == 0:
        return "-"
    d = (ma - mb) / mb
    return f"{100 * d:+.1f}%" + (" *" if limit is not None and abs(d) > limit else "")


def table(ccsim: dict, ns3: dict) -> str:
    rows = [
        "| case | metric | ccsim (mean ± 95% CI) | ns-3 (mean ± 95% CI) | ccsim - ns-3 |",
        "|---|---|---|---|---|",
    ]
    for name, c in ccsim.items():
        n = ns3.get(name)
        if n is None:
            rows.append(f"| {name} | ns-3 did not run | | | |")
            continue
        mc, mn = metrics(c), metrics(n)
        # ccsim has no device queue beside the discipline: its sojourn is the discipline's
        if "qd_sojourn_ms" in mn:
            mc["qd_sojourn_ms"] = mc["sojourn_ms"]
        seeds = f" ({len(c['runs'])}/{len(n['runs'])} seeds)"
        for key, label, digits, limit, kind in (
            ("goodput", "goodput, sum Mbps", 3, GOODPUT_REL, "rel"),
            ("short", "goodput per short-RTT flow Mbps", 3, GOODPUT_REL, "rel"),
            ("long", "goodput per long-RTT flow Mbps", 3, GOODPUT_REL, "rel"),
            ("cbr", "CBR Mbps (wire)", 3, None, "rel"),
            ("sojourn_ms", "bottleneck sojourn ms", 3, SOJOURN_REL, "rel"),
            ("qd_sojourn_ms", "sojourn in the queue disc ms (ns-3: without its 1-packet device queue)", 3, SOJOURN_REL, "rel"),
            ("jain", "Jain (TCP flows)", 3, JAIN_ABS, "abs"),
            ("timeouts", "timeouts per run, all flows", 1, None, "rel"),
        ):
            if key not in mc or key not in mn:
                continue
            if kind == "rel":
                diff = _rel(mc[key], mn[key], limit)
            else:
                d = statistics.fmean(mc[key]) - statistics.fmean(mn[key])
                diff = f"{d:+.3f}" + (" *" if abs(d) > limit else "")
            if c["rate_bps"] >= 1e9:
                label = label.replace(" ms", " us")
            rows.append(f"| {name}{seeds if key == 'goodput' else ''} | {label} | {_cell(mc[key], digits)} | {_cell(mn[key], digits)} | {diff} |")
    return "\n".join(rows) + "\n"


def main() -> int:
    return run(table)


if __name__ == "__main__":
    sys.exit(main())

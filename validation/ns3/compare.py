"""Compare the ccsim and ns-3 results of the dumbbell cases: a Markdown table on stdout.

    python compare.py out/ccsim.json out/ns3.json > out/table.md
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable


def _f(x: float | None, digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _rel(a: float | None, b: float | None) -> str:
    if a is None or b is None or b == 0:
        return "-"
    return f"{100 * (a - b) / b:+.1f}%"


def jain(xs: list[float]) -> float:
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs)) if any(xs) else 0.0


def table(ccsim: dict, ns3: dict) -> str:
    lines = [
        "| case | goodput Mbps ccsim / ns-3 (diff) | Jain ccsim / ns-3 | bottleneck drops ccsim / ns-3 | mean queue pkts ccsim / ns-3 | sawtooth period s ccsim / ns-3 |",
        "|---|---|---|---|---|---|",
    ]
    for name, c in ccsim.items():
        n = ns3.get(name)
        if n is None:
            lines.append(f"| {name} | ns-3 did not run | | | | |")
            continue
        gc, gn = sum(c["goodput_mbps"]), sum(n["goodput_mbps"])
        lines.append(
            f"| {name} | {gc:.3f} / {gn:.3f} ({_rel(gc, gn)}) | {jain(c['goodput_mbps']):.3f} / {jain(n['goodput_mbps']):.3f} "
            f"| {c['drops']} / {n['drops']} | {_f(c['queue_mean_pkts'], 1)} / {_f(n['queue_mean_pkts'], 1)} "
            f"| {_f(c['period_s'])} / {_f(n['period_s'])} |"
        )
    return "\n".join(lines) + "\n"


def run(make_table: Callable[[dict, dict], str]) -> int:
    """Reads the two JSON files named on the command line (ccsim's, ns-3's) and writes
    ``make_table`` of them to stdout (this script and compare_families.py)."""
    with open(sys.argv[1], encoding="utf-8") as f:
        ccsim = json.load(f)
    with open(sys.argv[2], encoding="utf-8") as f:
        ns3 = json.load(f)
    sys.stdout.write(make_table(ccsim, ns3))
    return 0


def main() -> int:
    return run(table)


if __name__ == "__main__":
    sys.exit(main())

"""htsim's permutation and path choices, read from the ``.paths`` file its driver writes.

    python htsim_paths.py LOG.paths

htsim's ``main_tcp.cpp`` writes one line per flow when built with ``PRINT_PATHS 1``:
``Route from 0 to 4  (3) -> Pipe-SRC0->LS0(0) Pipe-LS0->US1(0) Pipe-US1->CS3(0) ...``
(the pipes of the route up to the last switch). ``read`` turns it into [(src, dst,
path)] with ccsim's node names (experiment.py), so ``ccsim_ft.py --htsim-paths`` runs the
same draw as that htsim run; ``shared`` lists the switch ports two or more flows cross.
htsim's names: ToR ``LS<t>`` (t = 0..7, pod t // 2), aggregation ``US<a>`` (pod a // 2,
position a % 2), core ``CS<c>``, linked to the aggregation switches at position c % 2
(FatTreeTopology: core = position + 2 l), which ccsim names ``c<c % 2>-<c // 2>``.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict

from experiment import K, host_name, paths

ROUTE = re.compile(r"Route from (\d+) to (\d+)\s+\((\d+)\) ->(.*)")
HALF = K // 2


def node(name: str) -> str:
    kind, n = re.fullmatch(r"(SRC|LS|US|CS|DST)_?(\d+)", name).groups()
    n = int(n)
    if kind == "LS":
        return f"e{n // HALF}-{n % HALF}"
    if kind == "US":
        return f"a{n // HALF}-{n % HALF}"
    if kind == "CS":
        return f"c{n % HALF}-{n // HALF}"
    return host_name(n)


def read(path_file: str) -> list[tuple[int, int, list[str]]]:
    flows = []
    with open(path_file, encoding="utf-8") as f:
        for line in f:
            m = ROUTE.match(line)
            if not m:
                continue
            src, dst, choice = int(m.group(1)), int(m.group(2)), int(m.group(3))
            hops = [re.fullmatch(r"Pipe-(\S+)->(\S+)\(\d+\)", p).groups() for p in m.group(4).split()]
            route = [node(hops[0][0])] + [node(b) for _, b in hops] + [host_name(dst)]
            choices = paths(src, dst)
            if route not in choices or choices.index(route) != choice:
                raise ValueError(f"{path_file}: route {src} -> {dst} {route} is not ccsim's path {choice} {choices}")
            flows.append((src, dst, route))
    return flows


def htsim_queue(a: str, b: str) -> str:
    """htsim's name of the queue from ccsim node a to b (switch ports only)."""

    def h(n: str) -> str:
        if n.startswith("e"):
            p, i = map(int, n[1:].split("-"))
            return f"LS{p * HALF + i}"
        if n.startswith("a"):
            p, j = map(int, n[1:].split("-"))
            return f"US{p * HALF + j}"
        if n.startswith("c"):
            j, m = map(int, n[1:].split("-"))
            return f"CS{j + HALF * m}"
        p, i, k = map(int, n[1:].split("-"))
        return f"DST{(p * HALF + i) * HALF + k}"

    ha, hb = h(a), h(b)
    if ha.startswith("US") and hb.startswith("LS"):
        hb = "LS_" + hb[2:]
    return f"{ha}->{hb}(0)"


def shared(flows: list[tuple[int, int, list[str]]]) -> dict[tuple[str, str], list[tuple[int, int]]]:
    use = defaultdict(list)
    for src, dst, route in flows:
        for a, b in zip(route[1:-1], route[2:], strict=False):
            use[(a, b)].append((src, dst))
    return {k: v for k, v in use.items() if len(v) > 1}


if __name__ == "__main__":
    fl = read(sys.argv[1])
    for (a, b), who in sorted(shared(fl).items()):
        print(f"{a}->{b} (htsim {htsim_queue(a, b)}): {', '.join(f'f{s}-{d}' for s, d in who)}")

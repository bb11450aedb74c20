"""The datacenter cases of ``ccsim bench --case`` (docs/performance.md "Datacenter
cases"): the two datacenter fabrics and workloads of the scale benchmark, built with the Python
builders so they are the scenarios a user would write.

- ``leaf-spine``: 8 leaves of 16 hosts and 4 spines (10 Gbps host links, 40 Gbps uplinks,
  1 us links, ECMP), the web-search workload (Alizadeh et al., DCTCP, SIGCOMM 2010) at 60%
  of the hosts' access links, uniform endpoints, for 0.1 s.
- ``short-flows``: the leaf-spine above with flows of one size, 15 kB (10 packets), at 60%
  of the hosts' access links: 6.4 million flows a second, each done in tens to hundreds
  of microseconds, so a few thousand at most are active at once (``--time 156ms`` runs
  10^6 flows): memory per completed flow (docs/performance.md, "Memory that follows the
  active flows").
- ``fat-tree``: a k = 8 fat-tree (128 hosts, 10 Gbps, 1 us links, ECMP) with a permutation
  traffic matrix of long-lived flows (each host sends to another, every host receives one),
  as htsim's permutation experiments run it, for 0.1 s.

Packets of 1500 B, acks of 64 B; every queue is ``qdisc`` (default drop-tail of 100
packets, the engine's default buffer). A policy that needs ECN (``dctcp``) gets step
marking at K = 65 packets on every queue, the DCTCP paper's value for 10 Gbps (its
section 3.4), unless a ``qdisc`` is given.
"""

from __future__ import annotations

from typing import Any

from ccsim._scenario import ScenarioBuilder, fat_tree, leaf_spine

CASES = ("dumbbell", "leaf-spine", "short-flows", "fat-tree")

# DCTCP's step marking as ns-3's DCTCP example configures RED: the instantaneous queue,
# marking at and above K.
STEP_MARKING_65 = {
    "kind": "red",
    "w_q": 1.0,
    "min_th": "65pkt",
    "max_th": "65pkt",
    "ecn": True,
    "ecn_above_max_th": True,
}


def build(case: str, cc: str, needs_ecn: bool, qdisc: str | None, time: str, seed: int) -> ScenarioBuilder:
    """The scenario of a datacenter ``case`` (not ``dumbbell``, which the engine builds)."""
    q: str | dict[str, Any] | None = qdisc or (STEP_MARKING_65 if needs_ecn else None)
    common = {"duration": time, "seed": seed, "qdisc": q, "data_size": "1500B", "ack_size": "64B"}
    if case == "leaf-spine":
        b = leaf_spine(name="bench-leaf-spine", **common)
        b.add_workload("ws", load=0.6, sizes="web_search", flow={"cc": cc})
    elif case == "short-flows":
        b = leaf_spine(name="bench-short-flows", **common)
        b.add_workload("s", load=0.6, size="15kB", flow={"cc": cc})
    elif case == "fat-tree":
        b = fat_tree(8, name="bench-fat-tree", **common)
        b.add_workload("perm", kind="permutation", flow={"cc": cc})
    else:
        raise ValueError(f"unknown bench case {case!r}; use one of {', '.join(CASES)}")
    return b

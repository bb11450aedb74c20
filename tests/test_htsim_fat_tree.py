"""validation/htsim's ccsim side of htsim's fat-tree TCP experiment: the scenario it builds
has the hosts, routers, links, flows and paths counted by hand (checked by the engine, not
run)."""

from __future__ import annotations

import random
import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "validation" / "htsim"))

import ccsim  # noqa: E402
import ccsim_ft  # noqa: E402
import experiment  # noqa: E402


def test_permutation_is_a_derangement_of_the_16_hosts():
    for seed in range(20):
        pairs = experiment.permutation(random.Random(seed))
        assert len(pairs) == 16
        assert sorted(s for s, _ in pairs) == list(range(16))
        assert sorted(d for _, d in pairs) == list(range(16))
        assert all(s != d for s, d in pairs)


def test_equal_cost_paths_as_htsim_counts_them():
    # k = 4: hosts 0 and 1 share ToR 0 (1 path); 0 and 2 share pod 0 (k/2 = 2 paths);
    # 0 and 4 are in pods 0 and 1 ((k/2)^2 = 4 paths, 7 nodes each: 6 hops).
    assert experiment.paths(0, 1) == [["h0-0-0", "e0-0", "h0-0-1"]]
    assert len(experiment.paths(0, 2)) == 2
    between = experiment.paths(0, 4)
    assert len(between) == 4 and all(len(p) == 7 for p in between)
    assert {p[3] for p in between} == {"c0-0", "c0-1", "c1-0", "c1-1"}


def test_scenario_has_the_hand_counted_nodes_links_and_flows():
    # 16 hosts; 8 edge + 8 aggregation + 4 core routers + the ack router = 21;
    # 48 fabric links + 16 host-to-ack links = 64; 16 flows, each on one of its paths.
    d, flows = ccsim_ft.scenario(3, queue="red")
    ccsim.Scenario.from_dict(d).check()
    assert len(d["nodes"]["hosts"]) == 16 and len(d["nodes"]["routers"]) == 21
    assert len(d["links"]) == 64 and len(d["flows"]) == 16
    for (src, dst, path), f in zip(flows, d["flows"], strict=True):
        assert path in experiment.paths(src, dst) and f["path"] == path
        assert f["ack_path"] == [path[-1], "ack", path[0]]
    # htsim's 8-packet ports count the packet being sent; ccsim's buffer does not. Host
    # NICs (the first 16 links, host -> ToR first) queue without limit or discipline.
    host, fabric = d["links"][:16], d["links"][16:48]
    assert all(link["buffer"] == ["1000000pkt", "7pkt"] for link in host)
    assert all(link["qdisc"][0] == "fcfs" and link["qdisc"][1]["kind"] == "red" for link in host)
    assert all(link["buffer"] == "7pkt" and link["qdisc"]["kind"] == "red" for link in fabric)


def test_fabric_acks_leave_routing_to_ccsim_ecmp():
    d, _ = ccsim_ft.scenario(3, acks="fabric")
    ccsim.Scenario.from_dict(d).check()
    assert d["scenario"]["routing"] == "ecmp" and len(d["links"]) == 48
    assert all("path" not in f and "ack_path" not in f for f in d["flows"])

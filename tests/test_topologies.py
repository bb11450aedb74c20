"""The datacenter topology builders (``Scenario.leaf_spine``, ``Scenario.fat_tree``) and
ECMP routing through the Python API: sizes counted by hand, routes spread over the
equal-cost paths, the seed fixing them."""

from __future__ import annotations

import ccsim
import pytest


def test_leaf_spine_has_the_hosts_routers_and_links_counted_by_hand():
    # 8 leaves x 16 hosts = 128 hosts; 8 + 4 routers; 128 host links + 8 x 4 uplinks.
    d = ccsim.Scenario.leaf_spine().to_dict()
    assert len(d["nodes"]["hosts"]) == 128 and len(d["nodes"]["routers"]) == 12
    assert len(d["links"]) == 128 + 32
    assert d["scenario"]["routing"] == "ecmp"
    rates = {tuple(link["between"]): link["rate"] for link in d["links"]}
    assert rates[("h0-0", "leaf0")] == "10Gbps" and rates[("leaf7", "spine3")] == "40Gbps"


def test_fat_tree_k4_is_the_papers_16_hosts_20_switches_48_links():
    # k = 4: k^3/4 = 16 hosts; k pods x k switches + (k/2)^2 cores = 20 routers; links:
    # 16 host links + 4 pods x 4 edge-aggregation + 4 pods x 4 aggregation-core = 48.
    d = ccsim.Scenario.fat_tree(4).to_dict()
    assert len(d["nodes"]["hosts"]) == 16 and len(d["nodes"]["routers"]) == 20
    assert len(d["links"]) == 48


def test_fat_tree_k8_sizes():
    d = ccsim.Scenario.fat_tree(8).to_dict()
    assert (len(d["nodes"]["hosts"]), len(d["nodes"]["routers"]), len(d["links"])) == (128, 80, 384)


def test_ecmp_spreads_inter_pod_flows_over_the_core():
    # 64 flows from pod 0 to pod 1 in a k = 4 fat-tree: 4 equal-cost paths, one per core
    # router. Each flow sends 10 packets (CBR, 1 s): every core carries some, whole flows.
    b = ccsim.Scenario.fat_tree(4, duration="1s", buffer="1000pkt")
    for i in range(64):
        src, dst = f"h0-{i % 2}-{i // 2 % 2}", f"h1-{i % 2}-{i // 2 % 2}"
        b.add_flow(f"f{i}", src, dst, kind="cbr", rate="80kbps", packet_size="1000B")
    r = ccsim.run(b, seed=7)
    links = r.links.set_index("name")["tx_pkts"]
    # Core c<j>-<m> hangs off aggregation router j of every pod.
    core = {c: int(links[f"a0-{c[1]}->{c}"]) for c in ("c0-0", "c0-1", "c1-0", "c1-1")}
    assert sum(core.values()) == 640 and all(v % 10 == 0 and v > 0 for v in core.values()), core
    # The same seed gives the same routes; another seed another split.
    again = ccsim.run(b, seed=7).links.set_index("name")["tx_pkts"]
    assert (again == links).all()
    other = ccsim.run(b, seed=8).links.set_index("name")["tx_pkts"]
    assert not (other == links).all()


def test_shortest_routing_uses_one_core():
    b = ccsim.Scenario.fat_tree(4, duration="1s", buffer="1000pkt", routing="shortest")
    for i in range(8):
        b.add_flow(f"f{i}", "h0-0-0", "h1-0-0", kind="cbr", rate="80kbps", packet_size="1000B")
    links = ccsim.run(b).links.set_index("name")["tx_pkts"]
    up = [int(links[n]) for n in links.index if n.startswith("a0-") and "->c" in n]
    assert sorted(up) == [0, 0, 0, 80]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: ccsim.Scenario.fat_tree(3), "even int"),
        (lambda: ccsim.Scenario.leaf_spine(0), "positive int"),
        (lambda: ccsim.Scenario.leaf_spine(spines=True), "positive int"),
    ],
)
def test_bad_sizes_are_refused(call, message):
    with pytest.raises(TypeError, match=message):
        call()


def test_unknown_routing_names_the_field():
    b = ccsim.Scenario.leaf_spine(2, 2, 2, routing="random")
    with pytest.raises(ccsim.ScenarioError, match="scenario.routing"):
        b.check()


@pytest.mark.parametrize(
    ("builder", "section"),
    [
        (lambda: ccsim.Scenario.leaf_spine(leaves=3, hosts_per_leaf=5, spines=2, host_rate="1Gbps", buffer="20pkt", min_rto=None),
         {"kind": "leaf_spine", "leaves": 3, "hosts_per_leaf": 5, "spines": 2, "host_rate": "1Gbps", "buffer": "20pkt"}),
        (lambda: ccsim.Scenario.fat_tree(4, rate="1Gbps", delay="2us", qdisc="fq", min_rto=None),
         {"kind": "fat_tree", "k": 4, "rate": "1Gbps", "delay": "2us", "qdisc": "fq"}),
    ],
)
def test_the_topology_section_builds_what_the_python_builder_builds(builder, section):
    # The engine's [topology] (crates/ccsim-engine/src/scenario/topology.rs) and the
    # Python builders name and order nodes and links alike: the same validated scenario.
    b = builder()
    doc = b.to_dict()
    doc.pop("links")
    doc["nodes"] = {"hosts": [], "routers": []}
    doc["topology"] = section
    doc["scenario"].pop("routing")  # a topology section routes by ECMP by default
    assert ccsim.Scenario.from_dict(doc).check() == b.check()

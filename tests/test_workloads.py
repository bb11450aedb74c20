"""Workloads through the Python API and the CLI (docs/scenario-format.md "Workloads"):
the builder's ``add_workload``, the fabrics' datacenter defaults, a load sweep by
override, and ``ccsim bench --case``. The engine's tests
(crates/ccsim-engine/tests/workloads.rs) check the arrivals, sizes and endpoints against
hand-computed rates; these check what a user touches."""

from __future__ import annotations

import json

import ccsim
import pytest
from conftest import run_cli


def small_fabric(**kw):
    # 2 leaves of 4 hosts, 2 spines: 8 hosts of 10 Gbps (80 Gbps of access links).
    return ccsim.Scenario.leaf_spine(leaves=2, hosts_per_leaf=4, spines=2, duration="5ms", **kw)


def test_add_workload_writes_the_section_and_the_run_generates_its_flows():
    b = small_fabric()
    b.add_workload("ws", load=0.3, size="30kB", flow={"cc": "reno"})
    d = b.to_dict()
    assert d["workloads"] == [{"name": "ws", "kind": "poisson", "load": 0.3, "size": "30kB", "flow": {"cc": "reno"}}]
    assert "1 workloads" in repr(b)
    r = b.run(seed=1)
    # lambda = 0.3 x 80e9 / (8 x 30000) = 100,000 flows/s: 500 in 5 ms (sd 22).
    flows = r.flows
    assert 500 - 110 <= len(flows) <= 500 + 110
    assert list(flows["name"][:3]) == ["ws1", "ws2", "ws3"]
    assert set(flows["size_bytes"]) == {30_000}
    assert (flows["from"] != flows["to"]).all()
    # The export keeps the workload, not the flows it generated.
    text = b.to_toml()
    assert "[[workloads]]" in text and "ws1" not in text


def test_each_seed_draws_its_own_flows_and_the_same_seed_the_same():
    b = small_fabric()
    b.add_workload("ws", load=0.3, sizes="web_search")
    a1, a2, c = b.run(seed=1).flows, b.run(seed=1).flows, b.run(seed=2).flows
    assert a1.equals(a2)
    assert not (len(a1) == len(c) and (a1["size_bytes"].values == c["size_bytes"].values).all())


def test_the_fabrics_datacenter_defaults_and_their_override():
    d = small_fabric().to_dict()["defaults"]
    assert d == {"data_size": "1500B", "ack_size": "64B", "params": {"min_rto": "10ms"}}
    b = small_fabric(min_rto=None, data_size="9000B", params={"rto_k": 2})
    assert b.to_dict()["defaults"] == {"data_size": "9000B", "ack_size": "64B", "params": {"rto_k": 2}}
    b = small_fabric(params={"rto_k": 2})
    assert b.to_dict()["defaults"]["params"] == {"min_rto": "10ms", "rto_k": 2}
    # Every window flow takes the 10 ms floor (1 s without it).
    b = small_fabric()
    b.add_flow("f", "h0-0", "h1-0", cc="reno", size="10kB")
    flow = b.check()["flows"][0]
    assert flow["params"]["min_rto"] == "10ms"


def test_a_load_sweep_by_override_reports_fct_per_load():
    b = small_fabric()
    b.add_workload("ws", load=0.2, size="15kB")
    sw = ccsim.sweep(b, {"workloads.ws.load": [0.2, 0.4]}, seeds=[1, 2], progress=False)
    summary = sw.fct_summary(by=["workloads.ws.load"])
    counts = summary[summary["stat"] == "fct_p50"].groupby("workloads.ws.load")["flows"].mean()
    # Twice the load, about twice the flows (lambda = load x 80e9 / 120000 per second).
    assert 1.6 < counts.iloc[1] / counts.iloc[0] < 2.4


def test_bad_workloads_name_the_field_from_python():
    b = small_fabric()
    b.add_workload("ws", load=0.5)
    with pytest.raises(ccsim.ScenarioError, match=r"workloads\.ws\.sizes: missing"):
        b.run()
    with pytest.raises(TypeError, match="workloads.flow"):
        small_fabric().add_workload("ws", flow="reno")


def test_bench_datacenter_cases(tmp_path):
    out = run_cli("bench", "--case", "leaf-spine", "--time", "1ms", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["case"] == "leaf-spine" and data["flows"] > 0 and data["events_per_pkt"] > 1
    assert data["peak_rss_bytes"] > 0
    # 15 kB flows at 60% of 128 x 10 Gbps: 6.4 million a second, 6,400 expected in 1 ms,
    # most done within it (each takes tens to hundreds of microseconds).
    out = run_cli("bench", "--case", "short-flows", "--time", "1ms", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert 5600 < data["flows"] < 7200, data["flows"]
    assert data["completed_flows"] > 0.8 * data["flows"]
    bad = run_cli("bench", "--case", "fat-tree", "--flows", "3")
    assert bad.returncode != 0 and "--flows: applies to the dumbbell" in bad.stderr


def test_a_cdf_file_is_read_next_to_the_scenario_file(tmp_path):
    # 2 to 4 packets of 1500 B (3 kB to 6 kB), read relative to the scenario file
    # whatever the working directory; a copy of the file elsewhere does not find it.
    (tmp_path / "sizes").mkdir()
    (tmp_path / "sizes" / "small.cdf").write_text("# bytes, probability\n3000 0\n6000 1\n")
    b = small_fabric()
    full = str(tmp_path / "sizes" / "small.cdf")
    b.add_workload("ws", load=0.2, sizes=full)
    (tmp_path / "s.toml").write_text(b.to_toml().replace(full, "sizes/small.cdf"))
    out = run_cli("run", tmp_path / "s.toml", "--json")
    assert out.returncode == 0, out.stderr
    sizes = {f["size_bytes"] for f in json.loads(out.stdout)["flows"]}
    assert sizes <= {3000, 4500, 6000} and len(sizes) > 1
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "s.toml").write_text((tmp_path / "s.toml").read_text())
    moved = run_cli("run", "s.toml", "--json", cwd=tmp_path / "other")
    assert moved.returncode != 0 and "workloads.ws.sizes: cannot read" in moved.stderr

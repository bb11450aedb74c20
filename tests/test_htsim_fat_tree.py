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


def test_ack_rate_sets_the_ack_routers_links_and_a_hop_of_one_picosecond():
    d, _ = ccsim_ft.scenario(3, ack_rate="320000Gbps")
    acks = d["links"][48:]
    assert len(acks) == 16 and all(link["rate"] == "320000Gbps" for link in acks)
    assert all(link["rate"] == ccsim_ft.ACK_RATE for link in ccsim_ft.scenario(3)[0]["links"][48:])
    # A 40-byte ack: 320 bits at 3.2 x 10^14 bit/s is exactly 1 ps a hop; the engine
    # takes the rate (a short start of the run).
    r = ccsim.run(ccsim.Scenario.from_dict(d), max_events=20_000)
    assert r.raw["stop_reason"] == "max_events" and r.events == 20_000


def test_exact_lattice_takes_the_ack_detour_off_each_tor_to_host_link():
    # A 40-byte ack crosses two ack-router hops: at 10 Tbps 320 bits take 32 ps each, at
    # 3.2 x 10^14 bit/s 1 ps; a round trip stays a whole number of 1 us hops and 120 ns
    # packets when the ToR -> host direction is 1 us minus the two hops.
    for rate, tor_to_host in ((ccsim_ft.ACK_RATE, "999936ps"), ("320000Gbps", "999998ps")):
        d, _ = ccsim_ft.scenario(3, ack_rate=rate)
        assert all(link["delay"] == ["1000000ps", tor_to_host] for link in d["links"][:16])
        assert all(link["delay"] == "1us" for link in d["links"][16:48])
        ccsim.Scenario.from_dict(d).check()
    # Drift leaves every link at 1 us; fabric acks have no detour to take off.
    for d, _ in (ccsim_ft.scenario(3, lattice="drift"), ccsim_ft.scenario(3, acks="fabric")):
        assert all(link["delay"] == "1us" for link in d["links"][:48])


def test_fabric_acks_leave_routing_to_ccsim_ecmp():
    d, _ = ccsim_ft.scenario(3, acks="fabric")
    ccsim.Scenario.from_dict(d).check()
    assert d["scenario"]["routing"] == "ecmp" and len(d["links"]) == 48
    assert all("path" not in f and "ack_path" not in f for f in d["flows"])


def test_paired_table_counts_the_bands_and_the_shared_port_by_hand(tmp_path):
    import json

    import paired

    # Three of one htsim run's routes (its LOG.paths): f0-14 and f2-5 share the port
    # from a0-0 to c0-1 (htsim's US0 -> CS2) and nothing else; f1-3 stays in pod 0.
    (tmp_path / "htsim.log.paths").write_text(
        "Route from 0 to 14  (1) -> Pipe-SRC0->LS0(0) Pipe-LS0->US0(0) Pipe-US0->CS2(0) "
        "Pipe-CS2->US6(0) Pipe-US6->LS7(0) \n"
        "Route from 1 to 3  (1) -> Pipe-SRC1->LS0(0) Pipe-LS0->US1(0) Pipe-US1->LS1(0) \n"
        "Route from 2 to 5  (1) -> Pipe-SRC2->LS1(0) Pipe-LS1->US0(0) Pipe-US0->CS2(0) "
        "Pipe-CS2->US2(0) Pipe-US2->LS2(0) \n"
    )
    runs = [
        {
            "seed": 1,
            "htsim": {"tput_gbps": [0.1, 90.2, 35.0], "timeouts": 5, "run_wall_s": 600.0,
                      "paths": str(tmp_path / "htsim.log.paths")},
            "ccsim": {"tput_gbps": [16.6, 99.6, 2.6], "timeouts": 3, "process_wall_s": 130.0},
        }
    ]
    (tmp_path / "runs.json").write_text(json.dumps(runs))
    text = paired.table(str(tmp_path))
    # Bands: below 5, 5 to 95, 95 or more. htsim 0.1 | 90.2, 35.0 | -; ccsim 2.6 | 16.6 | 99.6.
    # Means: (0.1 + 90.2 + 35.0) / 3 = 41.77, (16.6 + 99.6 + 2.6) / 3 = 39.60.
    assert "| 1 | htsim | 41.77 | 1 | 2 | 0 | 5 | 600 |" in text
    assert "| 1 | ccsim | 39.60 | 1 | 1 | 1 | 3 | 130 |" in text
    assert "| **pooled** | **htsim** | **41.77** | 1 of 3 | 2 of 3 | 0 of 3 | 5 | |" in text
    ports = [line for line in text.splitlines() if "->" in line and line.startswith("| 1 |")]
    assert ports == ["| 1 | a0-0->c0-1 | f0-14, f2-5 | 0.1 / 35.0 | 16.6 / 2.6 |"]


def test_paired_sharing_counts_each_set_of_flows_once_by_hand(tmp_path):
    import paired

    # f0-14 and f2-15 meet at three ports (a0-0 -> c0-1 -> a3-0 -> e3-1); f1-3 meets no one.
    (tmp_path / "htsim.log.paths").write_text(
        "Route from 0 to 14  (1) -> Pipe-SRC0->LS0(0) Pipe-LS0->US0(0) Pipe-US0->CS2(0) "
        "Pipe-CS2->US6(0) Pipe-US6->LS7(0) \n"
        "Route from 1 to 3  (1) -> Pipe-SRC1->LS0(0) Pipe-LS0->US1(0) Pipe-US1->LS1(0) \n"
        "Route from 2 to 15  (1) -> Pipe-SRC2->LS1(0) Pipe-LS1->US0(0) Pipe-US0->CS2(0) "
        "Pipe-CS2->US6(0) Pipe-US6->LS7(0) \n"
    )
    path = str(tmp_path / "htsim.log.paths")
    runs = [
        {"seed": 1, "htsim": {"tput_gbps": [0.1, 90.2, 35.0], "paths": path},
         "ccsim": {"tput_gbps": [16.6, 99.6, 2.6]}, "x": {"tput_gbps": [6.0, 1.0, 40.0]}},
        {"seed": 2, "htsim": {"tput_gbps": [5.0, 0.0, 70.1], "paths": path},
         "ccsim": {"tput_gbps": [4.9, 0.0, 95.1]}},
    ]  # fmt: skip
    lines = paired.sharing(runs, ["htsim", "ccsim", "x"])
    # Each seed's set {f0-14, f2-15} once, not once per port. htsim: 0.1 is below 5, then 5.0 and 70.0 are
    # not: 1 of 2 shared; sums 35.1 and 75.1, median (35.1 + 75.1) / 2 = 55.1; ccsim:
    # 2.6 and 4.9 below, none shared, sums 19.2 and 100.0, median 59.6;
    # x (seed 1 only): 6.0 and 40.0, shared, the sum 46.0. f1-3's 1.0 counts nowhere.
    assert "| htsim | 1 of 2 | 1 of 2 | 55.1 |" in lines
    assert "| ccsim | 0 of 2 | 2 of 2 | 59.6 |" in lines
    assert "| x | 1 of 1 | 0 of 1 | 46.0 |" in lines


def test_paired_reseed_runs_ccsim_again_with_its_own_seed_on_the_same_draw(tmp_path, monkeypatch):
    import json
    import os

    import paired

    # A draw already run (htsim and ccsim with the draw's seed 3): --reseed 101 102 adds
    # ccsim runs on the same paths with seeds 101 and 102, as columns ccsim/101, ccsim/102.
    paths = tmp_path / "htsim.log.paths"
    paths.write_text("Route from 1 to 3  (1) -> Pipe-SRC1->LS0(0) Pipe-LS0->US1(0) Pipe-US1->LS1(0) \n")
    htsim = {"tput_gbps": [1.0], "timeouts": 0, "paths": str(paths)}
    runs = [{"seed": 3, "htsim": htsim, "ccsim": {"tput_gbps": [2.0], "timeouts": 0}}]
    (tmp_path / "runs.json").write_text(json.dumps(runs))
    calls = []

    def fake_run(seed, paths, out, pythonpath, hop_delay=None, extra=()):
        calls.append((seed, paths, os.path.basename(out), pythonpath))
        return {"tput_gbps": [float(seed)], "timeouts": 0}

    monkeypatch.setattr(paired, "run_ccsim", fake_run)
    monkeypatch.setattr(paired.htsim_ft, "binaries", lambda h, p: ("htsim", "parse"))
    monkeypatch.setattr(sys, "argv", ["paired.py", str(tmp_path), "--seeds", "3", "--reseed", "101", "102"])
    assert paired.main() == 0
    assert calls == [(101, str(paths), "ccsim-101-3.json", None), (102, str(paths), "ccsim-102-3.json", None)]
    after = json.loads((tmp_path / "runs.json").read_text())[0]
    assert after["ccsim/101"]["tput_gbps"] == [101.0] and after["ccsim"]["tput_gbps"] == [2.0]


def test_ssthresh_rule_reaches_every_flow_and_the_engine_takes_it():
    d, _ = ccsim_ft.scenario(3)
    assert {f["params"]["ssthresh_rule"] for f in d["flows"]} == {"bsd"}  # htsim's halving of cwnd
    d, _ = ccsim_ft.scenario(3, ssthresh_rule="rfc5681")
    assert {f["params"]["ssthresh_rule"] for f in d["flows"]} == {"rfc5681"}
    ccsim.Scenario.from_dict(d).check()


def test_run_records_every_setting_of_its_scenario_defaults_included(monkeypatch):
    monkeypatch.setattr(ccsim_ft, "RUN_S", 0.001)  # a millisecond: the record, not the result
    res = ccsim_ft.run(3, conns=2, rto="linux")
    settings = {
        "seed": 3,
        "acks": "instant",
        "queue": "random",
        "conns": 2,
        "rto": "linux",
        "hop_delay": experiment.HOP_DELAY,
        "ack_rate": ccsim_ft.ACK_RATE,
        "ssthresh_rule": "bsd",
        "lattice": "exact",
    }
    assert list(res)[: len(settings)] == list(settings) and {k: res[k] for k in settings} == settings
    assert "given" not in res and len(res["tput_gbps"]) == 2 and len(res["flows"]) == 2

"""Smoke tests of the Heybey reproduction (seconds each): the reconstructed topologies,
the stability rule and threshold, short runs of both topologies, and the CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import ccsim
import pytest
from ccsim.reproduce import _heybey_scenarios as S
from ccsim.reproduce import heybey as H

ROOT = Path(__file__).resolve().parents[1]


def test_mosely_routes_match_the_text():
    send = {k: [i for i in range(1, 81) if S.mosely_send_link(i) == k] for k in range(1, 5)}
    assert [len(v) for v in send.values()] == [20, 20, 20, 20]
    assert [len(S.MOSELY_RECEIVE[k]) for k in range(5, 9)] == [8, 16, 24, 32]
    assert sorted(sum(S.MOSELY_RECEIVE.values(), [])) == list(range(1, 81))
    # "user 1 transmits ... over link 1 followed by link 8. User 80 sends packets back on
    # link 4 followed by link 5."
    assert (S.mosely_send_link(1), S.mosely_receive_link(80)) == (1, 8)
    assert (S.mosely_send_link(80), S.mosely_receive_link(1)) == (4, 5)
    # "Four pairs do share link 7"; no other receive link is shared by a pair.
    shared = {k: sum(1 for i in range(1, 41) if S.mosely_receive_link(i) == S.mosely_receive_link(81 - i) == k)
              for k in range(5, 9)}
    assert shared == {5: 0, 6: 0, 7: 4, 8: 0}
    sc = S.mosely(duration="1s")
    f1 = next(f for f in sc["flows"] if f["name"] == "u1")
    assert f1["path"][1:4] == ["P1", "X", "Q8"]


def test_pairs_start_over_the_spread_and_the_listener_one_control_interval_later():
    pairs = [(i, 41 - i) for i in range(1, 21)]
    st = S.pair_starts(pairs, "1.2s", 3)
    assert sorted(st) == list(range(1, 41))
    for talker, listener in pairs:
        assert 0 <= st[talker] < 1_200_000_000
        # One control interval, 100 ms = 10^8 ns, after the pair's start (section 2.1.1).
        assert st[listener] - st[talker] == 100_000_000
    # Deterministic per seed, different between seeds; "start" puts the listener with
    # the talker; the built scenario carries the same times.
    assert S.pair_starts(pairs, "1.2s", 3) == st != S.pair_starts(pairs, "1.2s", 4)
    at = S.pair_starts(pairs, "1.2s", 3, "start")
    assert all(at[t] == at[li] == st[t] for t, li in pairs)
    sc = S.heybey(seed=3)
    assert {f["name"]: f["start"] for f in sc["flows"]} == {f"u{i}": f"{t}ns" for i, t in st.items()}
    assert all(S.pair_starts(pairs, "20ms", 3)[t] < 20_000_000 for t, _ in pairs)
    with pytest.raises(ValueError, match="first_control"):
        S.pair_starts(pairs, "1.2s", 3, "late")
    with pytest.raises(ValueError, match="start_spread"):
        S.pair_starts(pairs, "soon", 3)


def test_the_first_control_packet_reaches_the_talker_one_interval_after_the_start():
    # Every pair within 1 ms, 102 ms of run. The thesis's reading: the first control
    # packet leaves at 100-101 ms and arrives 3.25 ms later (10 bits take 0.25 ms at
    # 40 kbps, plus 3 ms), after the end: none. Sent at the pair's start, each of the 20
    # talkers has had exactly one (arrived by 4.25 ms; the second arrives after 103 ms).
    def control(first: str) -> dict[str, int]:
        raw = ccsim.run(S.heybey(start_spread="1ms", first_control=first, duration="102ms")).raw
        # A listener's flow (u21..u40) counts its control packets that reached the talker.
        return {f["name"]: f["control_pkts"] for f in raw["flows"] if int(f["name"][1:]) > 20}

    assert set(control("interval").values()) == {0}
    assert set(control("start").values()) == {1}


def test_a_listener_answers_an_end_of_spurt_that_arrives_before_its_first_control_packet():
    # One pair, every data packet the last of its spurt (spurt_mean = 1): the talker's
    # first packet (t0 < 1 ms, 80 bits at 4 kbps: 2 ms on the link plus 3 ms) reaches
    # the listener at t0 + 5 ms, 95 ms before the listener's own start; it becomes the
    # talker at once, and the two alternate. Within 150 ms the talker has sent more than
    # its first packet only if the listener answered.
    sc = S.heybey(users=2, start_spread="1ms", duration="150ms")
    for f in sc["flows"]:
        f["voice"]["spurt_mean"] = 1.0
    flows = {f["name"]: f for f in ccsim.run(sc).raw["flows"]}
    assert flows["u1"]["sent_pkts"] >= 2 and flows["u2"]["sent_pkts"] >= 1


def test_threshold_is_the_last_stable_value_before_the_first_unstable():
    cases = [{"a": a, "stable": s, "kbps": 10 * a} for a, s in
             [(0.30, True), (0.31, True), (0.32, False), (0.33, True), (0.34, False)]]
    assert H.threshold(cases) == (0.31, 3.1, 1)
    assert H.threshold([{"a": 0.30, "stable": False, "kbps": 1.0}]) == (None, None, 0)
    assert H.threshold([{"a": 0.30, "stable": True, "kbps": 1.0}]) == (0.30, 1.0, 0)


def test_low_effective_capacity_is_stable_and_mosely_parameters_are_not():
    links = S.HEYBEY_LINKS
    low = H.summarise(ccsim.run(S.heybey(a=0.35, duration="40s")).raw, links, 40.0)
    assert low["stable"] and low["queue_max_after"] < 30, low["queue_max_after"]
    # Mosely's a = 0.8: queues of thousands (section 3.2.2, Figures ).
    high = H.summarise(ccsim.run(S.heybey(a=0.8, duration="40s")).raw, links, 40.0)
    assert not high["stable"] and high["queue_max_after"] > 1000
    assert 0 < low["kbps"] < high["kbps"] <= 40.0


def test_mosely_topology_runs_and_every_link_sees_flows():
    raw = ccsim.run(S.mosely(duration="5s", record=True)).raw
    for label, chan in S.MOSELY_LINKS.items():
        L = next(x for x in raw["links"] if x["name"] == chan)
        el = L["elements"][0]
        assert el["kind"] == "smart_link" and el["attempts"] > 0, label
        assert max(el["trace"]["flows"]) > 0, label
        assert L["tx_bits"] > 0, label
    assert all(f["kind"] == "voice" for f in raw["flows"])


def test_figure_experiment_writes_figures(tmp_path, monkeypatch):
    monkeypatch.setitem(H.FIG_RUNS, "stability", [
        ("A-5", "short", "heybey", {"algorithm": "hayden", "update": "20ms", "a": 0.4, "duration": "12s"}, "link 1"),
    ])
    report = H.EXPERIMENTS["stability"][1](tmp_path, __import__("ccsim.reproduce", fromlist=["NoProgress"]).NoProgress())
    assert any(p.suffix == ".png" for p in report.files)
    cell = report.cell("A-5 short", "unstable (1 = yes)")
    assert cell is not None and cell.ours == 0.0


def test_cli_lists_and_checks_the_pair_scenario():
    out = subprocess.run([sys.executable, "-m", "ccsim", "list"], capture_output=True, text=True, check=True).stdout
    assert "heybey-table" in out and "heybey-stability" in out
    r = subprocess.run([sys.executable, "-m", "ccsim", "run", str(ROOT / "scenarios/heybey-pair.toml")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    bad = subprocess.run([sys.executable, "-m", "ccsim", "run", str(ROOT / "scenarios/heybey-pair.toml"),
                          "--set", "elements.0.algorithm=nope"], capture_output=True, text=True)
    assert bad.returncode != 0 and "elements.0.algorithm" in bad.stderr


@pytest.mark.slow
def test_table_row_threshold_is_between_paper_bounds(tmp_path):
    cases = []
    for a in H.A_GRID[:40]:
        s = H.summarise(ccsim.run(S.heybey(a=a)).raw, S.HEYBEY_LINKS, 150.0)
        cases.append({"a": a, "stable": s["stable"], "kbps": s["kbps"]})
    a, _, _ = H.threshold(cases)
    assert a is not None and 0.35 <= a <= 0.75

"""`ccsim reproduce leith*` in small: the registry, the rows contract and files of the
short experiments, the flow-count sweeps with a few counts, and the generated scenario
files (docs/reproductions/leith.md). The full reproduction is not part of the tests."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from ccsim.reproduce import NoProgress, claims, leith
from ccsim.reproduce._leith_scenarios import files
from conftest import REPO, run_cli

SUBNAMES = ["leith-fig2", "leith-fig4", "leith-fig6", "leith-fig9", "leith-fig11", "leith-fig13", "leith-fig14"]


def ok(result) -> str:
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result.stdout


def test_list_names_every_experiment():
    names = [line.split()[0] for line in ok(run_cli("list")).splitlines() if line.strip()]
    for name in ["leith", *SUBNAMES]:
        assert name in names


def test_generated_scenario_files_are_committed_as_written():
    for name, text in files().items():
        assert (REPO / "scenarios" / name).read_text(encoding="utf-8") == text, (
            f"scenarios/{name} differs from its generator; run "
            "python -m ccsim.reproduce._leith_scenarios"
        )


def verdicts(report) -> dict[str, str]:
    report.score()
    assert not report.claims.unmeasured, [r.claim.id for r in report.claims.unmeasured]
    return {r.claim.id: r.verdict for r in report.claims.results}


def test_inventory_loads_and_every_counted_claim_names_an_experiment():
    inv = claims.load("leith")
    assert inv.paper == "leith"
    counted = [c for c in inv.claims if c.counted]
    assert len(counted) == 36
    assert {c.experiment for c in inv.claims} <= set(leith.EXPERIMENTS)
    by_id = inv.by_id()
    # The cells that cannot fail are listed, not counted.
    for cid in ("fig2-first-backoff-halves", "fig7a-limit-arithmetic", "fig6-share-75kbps",
                "fig8-share-25kbps", "fig11-filtered-removed"):  # fmt: skip
        assert not by_id[cid].counted, cid
    # Bounds are bounds: bound (5) from above, "more than 390" from below.
    assert (by_id["fig6b-bound5"].kind, by_id["fig6b-bound5"].bound) == ("bound", "upper")
    assert (by_id["fig8-more-than-390"].bound, by_id["fig8-more-than-390"].value) == ("lower", 391)
    # Every counted claim found outside in the full run carries its checked reason.
    for c in counted:
        if c.outside_reason is not None:
            assert c.link and c.link.startswith("leith.md#"), c.id


def test_time_weighted_helpers_by_hand():
    import pandas as pd

    # 10 held 0.5-1 s, 20 held 1-3 s, 30 held 3-4 s: (5 + 40 + 30) / 3.5 = 21.43.
    s = pd.DataFrame({"t": [0.0, 1.0, 3.0, 9.0], "v": [10, 20, 30, 40]})
    assert leith.time_mean(s, 0.5, 4.0) == pytest.approx(75 / 3.5)
    # At most one packet over [0, 2.5) and [6, 10): the longest stretch is 4 s.
    q = pd.DataFrame({"t": [0.0, 1.0, 2.0, 2.5, 6.0], "v": [0, 1, 0, 3, 0]})
    assert leith.longest_at_most(q, 0.0, 10.0, 1) == pytest.approx(4.0)
    # Ranks 1 2 3 4 against 1 3 2 4: 1 - 6 * (0 + 1 + 1 + 0) / (4 * 15) = 0.8.
    assert leith.spearman([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(0.8)


def test_fig11_rows_and_files(tmp_path):
    out = json.loads(ok(run_cli("reproduce", "leith-fig11", "--json", "--out", tmp_path)))
    rows = out["rows"]
    cell = {(r["row"], r["column"]): r for r in rows}
    verdict = {c["id"]: c for c in out["claims"]}
    # Flow 2 (110 ms) has far more timestamp samples >10 ms above the filtered RTT than
    # flow 1 (the paper's ordering), and holds a window well above "around 10" packets.
    share = {f: cell[(f, "timestamp samples > 10 ms above filtered (%)")]["ours"]
             for f in ("fig11 flow 1 (RTT 20 ms)", "fig11 flow 2 (RTT 110 ms)")}  # fmt: skip
    assert share["fig11 flow 2 (RTT 110 ms)"] > share["fig11 flow 1 (RTT 20 ms)"]
    assert verdict["fig11-longer-rtt-hit-harder"]["verdict"] == "within"
    assert verdict["fig11-cwnd-flow2"]["verdict"] == "outside"
    assert verdict["fig11-filtered-removed"]["verdict"] == "not_counted"
    for flow in ("fig11 flow 1 (RTT 20 ms)", "fig11 flow 2 (RTT 110 ms)"):
        # The newest-packet samples never exceed base RTT + queueing (the paper's claim);
        # the RFC 1323 echo does, by a delayed-ack wait.
        assert cell[(flow, "filtered RTT max - RTT_min - queueing (ms)")]["ours"] == 0.0
        assert cell[(flow, "filtered RTT max - RTT_min - queueing (ms)")]["paper"] == 0.0
        assert cell[(flow, "timestamp RTT max - RTT_min - queueing (ms)")]["ours"] > 5.0
    assert (tmp_path / "leith-fig11.csv").is_file()
    assert (tmp_path / "leith-fig11-rtt.png").stat().st_size > 10_000
    # Delayed acking is detected at each flow's first data ack, a pair: two round trips
    # (SYN, then data) plus the two 1.2 ms transmissions of 1500 B at 10 Mbit/s before
    # the second packet arrives: >= 40 + 2.4 ms for flow 1 and >= 220 + 2.4 ms for flow 2.
    detected = {f: cell[(f, "delayed acking detected at (s)")]["ours"]
                for f in ("fig11 flow 1 (RTT 20 ms)", "fig11 flow 2 (RTT 110 ms)")}  # fmt: skip
    assert 0.0424 <= detected["fig11 flow 1 (RTT 20 ms)"] < 0.046
    assert 0.2224 <= detected["fig11 flow 2 (RTT 110 ms)"] < 0.226
    # So declaring it from the start changes nothing after 10 s: the sensitivity rows
    # equal the main ones, and they are not counted.
    for f, rtt in ((1, 20), (2, 110)):
        for column in ("timestamp samples > 10 ms above filtered (%)", "mean cwnd, time-weighted (pkts)"):
            main = cell[(f"fig11 flow {f} (RTT {rtt} ms)", column)]["ours"]
            assert cell[(f"fig11 declared, flow {f} (RTT {rtt} ms)", column)]["ours"] == main
    # The table's mean cwnd is the time-weighted one the claims use.
    assert cell[("fig11 flow 2 (RTT 110 ms)", "mean cwnd, time-weighted (pkts)")]["ours"] == pytest.approx(
        float(verdict["fig11-cwnd-flow2"]["ours"].split(": ")[1].split()[0]), abs=0.05
    )


def test_fig13_tso_spikes_go_with_the_2_6_24_bound(tmp_path):
    report = leith.fig13(tmp_path, NoProgress())
    rng = {r.row: r.ours for r in report.rows if r.column == "RTT range in 200 ms windows (ms)"}
    assert rng["fig13 2.6.18 (40 ms timer)"] > 3 * rng["fig13 2.6.24 (2 ms)"]
    assert rng["fig13 2.6.24 (2 ms)"] < 2 * rng["fig13 no TSO"]
    # 2.6.18 exceeds no TSO by >= 20 ms and 2.6.24 keeps <= 10% of that excess.
    assert rng["fig13 2.6.18 (40 ms timer)"] - rng["fig13 no TSO"] >= 20
    v = verdicts(report)
    assert v["fig13-2618-spikes"] == v["fig13-2624-removed"] == "within"
    assert v["fig13-little-noise"] == "not_counted"


def test_fig2_claims_on_the_first_20_seconds():
    # The first 20 s of Fig. 2's run hold the claims: slow start's backoff at 1.96 s with
    # the queue at 165 of 400 packets, then 18 s (75 round trips of 240 ms) of empty queue.
    sets = {"measure.series": ["f.cwnd", "r1->r2.queue"], "scenario.duration": "20s"}
    measured = leith.fig2_claims(leith._run(leith._with(leith._load(leith.FIG2), sets)))
    assert measured["fig2-backs-off-before-full"].value == 165
    assert measured["fig2-queue-empties"].holds


@pytest.fixture
def small_sweeps(monkeypatch):
    """The sweeps with three counts each: below and beyond the one-packet point."""
    small = {
        key: replace(spec, counts=(10, 140) if key != "512B" else (10, 420)) for key, spec in leith.SWEEPS.items()
    }
    small["100ms"] = replace(small["100ms"], counts=(10, 128, 140))
    monkeypatch.setattr(leith, "SWEEPS", small)
    monkeypatch.setattr(leith, "_DONE", {})
    monkeypatch.setattr(leith, "_SEEDED", {})
    monkeypatch.setattr(leith, "FAIR_SEEDS", (1, 2))
    monkeypatch.setattr(leith, "FAIR_AT", (128,))
    return small


def test_flow_count_sweeps_in_small(tmp_path, small_sweeps):
    report = leith.fig6(tmp_path, NoProgress())
    cell = {(r.row, r.column): r for r in report.rows}
    assert cell[("fig6 100ms", "flows when all cwnds are 1 pkt")].ours == 128.0
    assert cell[("fig6 100ms", "flows when all cwnds are 1 pkt")].paper == 130.0
    assert cell[("fig6 512B 100ms", "flows when all cwnds are 1 pkt")].ours == 420.0
    # Peaks within a packet of bound (5) at 10 flows (62 ms).
    peak = cell[("fig6 100ms", "peak delay at 10 flows (ms)")]
    assert peak.paper == pytest.approx(62.0)
    assert peak.ours <= peak.paper + 1.2
    for name in ("leith-fig6a.png", "leith-fig7b.png", "leith-fig8.png", "sweeps/leith-100ms.duckdb"):
        assert (tmp_path / name).is_file(), name
    v = verdicts(report)
    # One-packet point 128 against "130 flows": |128 - 130| = 2 <= 15% of 130 = 19.5.
    assert report.measured["fig7a-onset-130"].value == 128.0
    assert v["fig7a-onset-130"] == "within"
    # Below 128 flows only n = 10 is swept: 60.7 ms against bound (5) = 50 + 10 x 1.2 = 62 ms.
    assert -1.4 < report.measured["fig6a-bound5"].value < 0
    assert v["fig6a-bound5"] == "within"
    assert v["fig7a-limit-arithmetic"] == "not_counted"
    # Figures 9/10 reuse the same sweeps, plus seed 2 at FAIR_AT for the fairness claims.
    report = leith.fig9(tmp_path, NoProgress())
    jain = {r.row: r.ours for r in report.rows if r.column == "Jain at 128 flows"}
    assert jain["fig9 100ms delay AIMD"] > jain["fig9 100ms SACK Reno"]
    v = verdicts(report)
    assert v["fig9b-delay-fairer"] == "within"
    assert v["fig9-aggregate-similar"] == "not_counted"


def _fake_results(acks, sent, crossed, retx, windows):
    """Results whose captures hold ``acks`` (t s, flow, cumulative ack, flags) on the way
    back, the first transmissions ``sent`` (t s, flow, seq) and the retransmissions
    ``retx`` (t s, flow) on the sender's channel, and the first transmissions ``crossed``
    (flow, seq) on the bottleneck."""
    from types import SimpleNamespace

    def capture(rows: list[tuple[float, int, int, int, int]]) -> dict:
        return {"kind": "capture", "truncated": 0, "t_ps": [round(r[0] * 1e12) for r in rows],
                "flow": [r[1] for r in rows], "seq": [r[2] for r in rows], "packet_kind": [r[3] for r in rows],
                "flags": [r[4] for r in rows]}  # fmt: skip

    back = capture([(t, f, q, 1, fl) for t, f, q, fl in acks] + [(0.5, 0, 9, 0, 0)])  # a data packet: skipped
    out = capture([(t, f, q, 0, 0) for t, f, q in sent] + [(t, f, 3, 0, 1) for t, f in retx])
    over = capture([(0.3, f, q, 0, 0) for f, q in crossed] + [(3.0, 0, 3, 0, 1)])  # seq 3's retransmission
    raw = {"links": [{"name": leith.ACK_CHANNEL, "elements": [back]}, {"name": leith.DATA_CHANNEL, "elements": [out]},
                     {"name": leith.BOTTLENECK, "elements": [over]}],
           "flows": [{"window_time_s": w} for w in windows]}  # fmt: skip
    return SimpleNamespace(raw=raw)


def test_dack_detection_by_hand():
    # Flow 0: acks 1 (the SYN), 2, 4 (two packets, but echoing a retransmission), 5, 7
    # (two packets, a first transmission): detected at 5 s, after its retransmission at
    # 2.5 s; of its first transmissions 1-6 (sent at 0.2 s) seq 3 never crossed the
    # bottleneck (its retransmission did): lost at 0.2 s. Flow 1: acks 1, 2, a duplicate
    # 2, 3: never two packets at once; its packets 1 and 2 all crossed.
    acks = [(1.0, 0, 1, 0), (2.0, 0, 2, 0), (3.0, 0, 4, 1), (4.0, 0, 5, 0), (5.0, 0, 7, 0),
            (1.0, 1, 1, 0), (2.0, 1, 2, 0), (3.0, 1, 2, 0), (4.0, 1, 3, 0)]  # fmt: skip
    sent = [(0.2, 0, q) for q in range(1, 7)] + [(0.2, 1, 1), (0.2, 1, 2)]
    crossed = [(0, q) for q in (1, 2, 4, 5, 6)] + [(1, 1), (1, 2)]
    r = _fake_results(acks, sent, crossed, [(2.5, 0), (1.5, 1)], [[0.0, 10.0], [10.0]])
    det = leith.dack_detection(r)
    assert det[0]["detected_s"] == pytest.approx(5.0)
    assert det[0]["first_retx_s"] == pytest.approx(2.5)
    assert det[0]["first_loss_s"] == pytest.approx(0.2)
    assert det[0]["pairs"] == 1
    assert det[1]["detected_s"] is None and det[1]["pairs"] == 0
    assert det[1]["first_retx_s"] == pytest.approx(1.5)
    assert det[1]["first_loss_s"] is None
    s = leith.detection_summary(2, det, 0.1)
    # One of two detects, after its first retransmission (so not "early"), and lost a
    # packet at 0.2 s < STARTUP_S (2 s); the other lost none. The undetected flow's 10 s
    # are all at one packet, the detected flow's 10 s all at two.
    assert (s["detected"], s["early"], s["latest_s"]) == (1, 0, pytest.approx(5.0))
    assert (s["detected_lost"], s["undetected_lost"]) == (1, 0)
    assert s["undetected_at_1"] == 1.0 and s["detected_at_2"] == 1.0


def test_fig14_detection_in_small(tmp_path, small_sweeps):
    report = leith.fig14(tmp_path, NoProgress())
    cell = {(r.row, r.column): r.ours for r in report.rows}
    det10, det140 = "fig14 detection at 10 flows", "fig14 detection at 140 flows"
    # At 10 flows every flow detects at its first pair, before any single ack: the run
    # is the declared one.
    assert cell[(det10, "flows detecting (%)")] == 100.0
    assert cell[(det10, "peak delay, detected (ms)")] == cell[(det10, "peak delay, declared (ms)")]
    # At 140 flows some flows never detect: every one of them lost a packet in the
    # start-up and sits at one packet; every detected flow is at most at two.
    assert 0 < cell[(det140, "flows detecting (%)")] < 100.0
    assert cell[(det140, "undetected flows losing a packet in the first 2 s (%)")] == 100.0
    assert cell[(det140, "undetected flows' time at 1 pkt (%)")] == 100.0
    assert cell[(det140, "detected flows' time at <= 2 pkts (%)")] == 100.0
    # Half the flows at one packet: a shorter queue than declared.
    assert cell[(det140, "peak delay, detected (ms)")] < cell[(det140, "peak delay, declared (ms)")]
    # The captured detection runs are the sweep's runs.
    main = "fig14 delayed ack (detected) + TSO, 20-200 ms"
    assert cell[(det10, "peak delay, detected (ms)")] == cell[(main, "peak delay at 10 flows (ms)")]
    # Only the main table is scored.
    titles = {t.title: t for t in report.tables}
    assert [t.score_rows for t in report.tables if "not counted" in t.title] == [[], []]
    assert any("(detected)" in t and "ours (paper)" in t for t in titles)
    assert (tmp_path / "leith-fig14-detection.png").stat().st_size > 10_000
    assert set(report.measured) >= {"fig14a-onset-90", "fig14b-goodput-identical", "fig14-fairness-similar"}

"""Heybey's claims (python/ccsim/reproduce/claims/heybey.toml): the inventory loads and
covers Table 3-1; the statistics' helpers on hand-made series; the Table 3-1 claims on
hand-made runs (verdicts worked out by hand from the inventory's definitions); and two
real runs judged by the 3.2.1 rule."""

from __future__ import annotations

import pytest
from ccsim.reproduce import _heybey_claims as C
from ccsim.reproduce import _heybey_scenarios as S
from ccsim.reproduce import claims
from ccsim.reproduce import heybey as H


def test_inventory_loads_and_covers_table_3_1():
    inv = claims.load("heybey")
    by_id = inv.by_id()
    assert {c.experiment for c in inv.claims} <= set(H.EXPERIMENTS)
    for (alg, proto, upd), (a, k, a_ss, k_ss) in H.PAPER_TABLE.items():
        for sfx, pa, pk in (("", a, k), ("-ss", a_ss, k_ss)):
            ca, ck = by_id[f"t31-{alg}-{proto}-{upd}{sfx}-a"], by_id[f"t31-{alg}-{proto}-{upd}{sfx}-kbps"]
            assert ca.counted and ca.value == pa and ca.unit == "a"
            assert ck.not_counted == "derived" and ck.value == pk
    # The list: each of these is in the inventory and counted.
    for cid in (
        "s322-only-jaffe-works",
        "s323-slow-start-raises-throughput",
        "s321-no-intermediate-region",
        "a7-a8-more-faster-oscillation",
        "s321-stable-startup-spike",
    ):
        assert by_id[cid].counted, cid
    assert by_id["a5-a6-ours-contrast"].not_counted == "self_fulfilling"
    assert by_id["s322-max-jaffe"].not_counted == "contradicted"
    assert by_id["s323-max-mosely-ss"].not_counted == "contradicted"
    # Tolerance of a: 15% of 0.55 = 0.0825 (more than the 0.05 floor).
    assert inv.tolerance(by_id["t31-hayden-no-fast-a"]) == pytest.approx(0.0825)


def test_series_helpers_by_hand():
    # Queue 0 until 1 s, 10 until 3 s, 4 from then on.
    t, v = [1.0, 3.0], [10.0, 4.0]
    # Over [0, 4]: (1 * 0 + 2 * 10 + 1 * 4) / 4 = 6.
    assert C.time_mean(t, v, 0.0, 4.0) == pytest.approx(6.0)
    # Over [2, 4]: (1 * 10 + 1 * 4) / 2 = 7.
    assert C.time_mean(t, v, 2.0, 4.0) == pytest.approx(7.0)
    assert C.queue_max_from(t, v, 2.0) == 10.0  # the value at 2 s counts
    assert C.queue_max_from(t, v, 3.0) == 4.0
    # The level (largest value per 0.1 s, its median) over [1.0, 1.5]: a queue that
    # is 2 from 0.95 s, jumps to 5 at 1.02, back to 0 at 1.03, 1 at 1.25, 0 at 1.26, 7
    # at 1.41, 0 at 1.42. Intervals [1.0,1.1) .. [1.4,1.5): carried in 2, 0, 0, 0, 0;
    # largest in each: 5, 0, 1, 0, 7; median of (5, 0, 1, 0, 7) = 1.
    t = [0.95, 1.02, 1.03, 1.25, 1.26, 1.41, 1.42]
    v = [2.0, 5.0, 0.0, 1.0, 0.0, 7.0, 0.0]
    assert C.interval_maxima(t, v, 1.0, 1.5) == [5.0, 0.0, 1.0, 0.0, 7.0]
    assert C.queue_level(t, v, 1.0, 1.5) == 1.0
    # The same queue sampled in 0.1 s buckets (the engine's sampled series: each
    # bucket's last change with the bucket's largest value; none in [1.1, 1.2) and
    # [1.3, 1.4)): the same maxima.
    ts, vs, top = [0.95, 1.03, 1.26, 1.42], [2.0, 0.0, 0.0, 0.0], [2.0, 5.0, 1.0, 7.0]
    assert C.interval_maxima(ts, vs, 1.0, 1.5, top=top) == [5.0, 0.0, 1.0, 0.0, 7.0]
    # Before the first change the queue is 0; after the last the last value is carried.
    assert C.interval_maxima([0.25], [3.0], 0.0, 0.5) == [0.0, 0.0, 3.0, 3.0, 3.0]
    # Two cycles: up to 600 at 2 s, down to 40 at 5 s, up to 900 at 7 s, never drained.
    t = [0.0, 1.0, 2.0, 3.0, 5.0, 6.0, 7.0]
    v = [10.0, 520.0, 600.0, 300.0, 40.0, 510.0, 900.0]
    cy = C.cycles(t, v, end=10.0)
    assert len(cy) == 2
    assert (cy[0]["low_t"], cy[0]["high_t"], cy[0]["peak_t"], cy[0]["drain_t"]) == (0.0, 1.0, 2.0, 5.0)
    assert (cy[1]["low_t"], cy[1]["high_t"], cy[1]["peak"], cy[1]["drain_t"], cy[1]["drained"]) == (
        5.0,
        6.0,
        900.0,
        10.0,
        0.0,
    )


def _case(ss, alg, proto, upd, a, late, seed=1, whole=200, mean=0.5, level=3.0, kbps=None):
    return {
        "slow_start": ss,
        "algorithm": alg,
        "protocol": proto,
        "update": upd,
        "a": a,
        "seed": seed,
        "late_max": late,
        "stable": late < 100,
        "whole_max": whole,
        "late_mean": mean,
        "late_level": level,
        "kbps": 50.0 * a if kbps is None else kbps,
    }


def test_table_claims_on_hand_made_runs():
    # One row, Hayden/no/fast, without and with slow start, seed 1 over a = 0.50 .. 0.55,
    # and seed 2 (its 10 s scan unstable from 0.52, its 3.2.1-rule scan continued).
    grid = [0.50, 0.51, 0.52, 0.53, 0.54, 0.55]
    late_no = [5, 40, 60, 3000, 20, 2500]  # threshold 0.52; stable again at 0.54
    late_ss = [5, 5, 5, 5, 150, 3000]  # threshold 0.53; 150 is in between
    runs = [_case(False, "hayden", "no", "fast", a, q) for a, q in zip(grid, late_no, strict=True)]
    runs += [_case(True, "hayden", "no", "fast", a, q) for a, q in zip(grid, late_ss, strict=True)]
    every = [
        {**c, "start_spread": S.START_SPREAD, "first_control": S.FIRST_CONTROL, "queue_max_after": 2000 if c["late_max"] >= 100 else c["late_max"]} for c in runs
    ]
    k0, k1 = (False, "hayden", "no", "fast"), (True, "hayden", "no", "fast")
    per_seed = {
        (k0, 2): [
            _case(False, "hayden", "no", "fast", 0.50, 0, seed=2),
            _case(False, "hayden", "no", "fast", 0.51, 0, seed=2),
            _case(False, "hayden", "no", "fast", 0.52, 30, seed=2),
            _case(False, "hayden", "no", "fast", 0.53, 30, seed=2),
            _case(False, "hayden", "no", "fast", 0.54, 2000, seed=2),
        ],
        (k1, 2): [_case(True, "hayden", "no", "fast", 0.50, 2000, seed=2)],
    }
    m = C.measure_table(every, runs, per_seed, [1, 2])
    # Thresholds: without slow start 0.52 (seed 1) and 0.53 (seed 2): mean 0.525,
    # |0.525 - 0.55| = 0.025 <= 0.0825: within. With slow start 0.53 and none (0.29):
    # mean 0.41, spread (0.29, 0.53).
    assert m["t31-hayden-no-fast-a"].value == pytest.approx(0.525)
    assert m["t31-hayden-no-fast-ss-a"].value == pytest.approx(0.41)
    assert m["t31-hayden-no-fast-ss-a"].spread == (0.29, 0.53)
    # Seed 1 without slow start: 0.53 (3000) above 0.52: a jump; with: 0.54 has 150: not.
    assert m["s321-sudden-jump"].holds is False
    assert m["s321-no-intermediate-region"].holds is False  # the 150
    assert m["s321-stable-unstable-stable"].holds is True  # 0.54 without slow start
    # Stable runs: late maxima 5, 40, 60, 20, 5, 5, 5, 5: largest 60 > 50.
    assert m["s321-stable-spikes-50"].value == 60.0
    assert m["s321-stable-startup-spike"].value == 200.0
    assert m["s321-stable-level-five"].value == pytest.approx(3.0)
    # Entered the unstable region (10 s maximum >= 1000): 0.53 and 0.55 without, 0.54 and
    # 0.55 with slow start; none recovered: 4 of 4 stuck.
    assert m["s324-does-not-recover"].holds is True
    assert m["s323-slow-start-does-not-help-recover"].holds is True
    assert m["intro-slow-start-does-not-prevent"].holds is True
    board = claims.score(claims.load("heybey"), ["table"], m)
    verdict = {r.claim.id: r.verdict for r in board.results}
    assert verdict["t31-hayden-no-fast-a"] == claims.WITHIN
    assert verdict["t31-hayden-no-fast-ss-a"] == claims.OUTSIDE  # |0.41 - 0.70| > 0.105
    assert verdict["s321-stable-spikes-50"] == claims.OUTSIDE  # 60 > 50, strict
    assert verdict["s321-stable-startup-spike"] == claims.WITHIN  # 200 <= 999


def test_late_rule_on_real_runs():
    # Section 3.2.1's two regions: a = 0.35 settles (Hayden/no/fast; the smoke test of
    # test_heybey.py has it under 30 packets from 10 s), Mosely's a = 0.8 oscillates in
    # the thousands to the end (Figures ).
    low = C._late_case((False, "hayden", False, "20ms", 0.35, 1))
    high = C._late_case((False, "hayden", False, "20ms", 0.80, 1))
    assert low["stable"] and low["late_max"] < 30 and low["late_mean"] < 5
    # The level (median of the largest queue per 0.1 s) lies between the time average
    # and the largest queue.
    assert low["late_mean"] <= low["late_level"] <= low["late_max"]
    assert not high["stable"] and high["late_max"] >= 1000
    assert low["whole_max"] >= low["late_max"]

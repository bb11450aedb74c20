"""Keshav 1991's claims inventory (claims/keshav.toml) and its measurement
(reproduce/_keshav_claims.py): the inventory loads and matches the tables the
reproductions print, the series helpers give hand-computed numbers, and a few claims
measured on real runs get the verdict a hand check gives."""

from __future__ import annotations

import ccsim
import pytest
from ccsim.reproduce import NoProgress, _keshav_claims, claims, keshav_s1, keshav_s2, keshav_s3, run_seeds
from ccsim.scenarios import scenario_path


def test_inventory_loads_and_names_the_three_experiments():
    inv = claims.load("keshav")
    assert {c.experiment for c in inv.claims} == {"s1", "s2", "s3"}
    counted = [c for c in inv.claims if c.counted]
    # 75 Table 2 cells (12 contradicted), 32 + 22 Table 3 cells, 32 + 18 Table 4 cells,
    # and the text claims.
    assert len([c for c in counted if c.id.startswith("t2-")]) == 63
    assert len([c for c in inv.claims if c.id.startswith("t2-")]) == 75
    # Every outside reason links into the Keshav note.
    assert all(c.link.startswith("keshav.md#") for c in inv.claims if c.outside_reason)


def test_table_cells_are_the_papers_numbers():
    inv = claims.load("keshav").by_id()
    # Table 2, background on, JK/FQ: 3.04 3.08 3.39 | .10 0.14 1.52 | 0.03 0.03 0.
    assert inv["t2-jk-fq-bgon-thr-bkg"].value == keshav_s1.PAPER_BG_ON["JK/FQ"][2] == 3.39
    assert inv["t2-jk-fcfs-bgon-loss-bkg"].not_counted == "contradicted"  # 4.89 + 0.83 > 5
    # Table 3, PP/FQ: 1.70 (0.02) 1.72 (0.01) 16.64 (4.97) 19.58 (4.37).
    assert inv["t3-pp-fq-delay-2-sd"].value == keshav_s2.PAPER["PP/FQ"]["delay 2 sd"] == 4.37
    # Table 4, PP/FQ source 2 has no deviation.
    assert "t4-pp-fq-thr-2-sd" not in inv
    assert inv["t4-pp-fq-thr-2"].value == keshav_s3.PAPER["PP/FQ"]["throughput 2"] == 1.64


def test_step_series_helpers_by_hand():
    # Steps: 0 from t=0, 4 from t=1, 1 from t=3, 2 from t=4; window [0, 5).
    t, v = [0.0, 1.0, 3.0, 4.0], [0.0, 4.0, 1.0, 2.0]
    # Time-weighted mean: (0*1 + 4*2 + 1*1 + 2*1) / 5 = 11 / 5 = 2.2.
    assert _keshav_claims._time_mean(t, v, 0.0, 5.0) == pytest.approx(2.2)
    # Sorted (value, time): (0,1) (1,1) (2,1) (4,2); half of 5 s is reached at value 2.
    assert _keshav_claims._time_quantile(t, v, 0.0, 5.0, 0.5) == 2.0
    # Falls from above 1 to 1 or below: once (4 -> 1 at t=3).
    assert _keshav_claims._falls_to_one(t, v, 0.0, 5.0) == 1
    # First reach of 2 after t=0.5: t=1 (value 4); after t=3.5 (value 1 there): t=4.
    assert _keshav_claims._first_reach(t, v, 0.5, 2.0) == 1.0
    assert _keshav_claims._first_reach(t, v, 3.5, 2.0) == 4.0


class _Capture:
    """A run whose channel captured four acks: a probe 0.5 s wide, then one whose second
    ack acknowledges two packets (not a probe), then a probe 0.4 s wide."""

    def __init__(self) -> None:
        ps = 10**12
        elements = [
            {
                "kind": "capture",
                "truncated": 0,
                # first/second pair marks (2/4); kind 1 = ack
                "t_ps": [10 * ps, int(10.5 * ps), 12 * ps, 13 * ps, 14 * ps, int(14.4 * ps)],
                "flags": [2, 4, 2, 4, 2, 4],
                "packet_kind": [1, 1, 1, 1, 1, 1],
                "seq": [1, 2, 3, 5, 6, 7],
            }
        ]
        self.raw = {"links": [{"name": "sw1->ftp1", "elements": elements}]}


def test_probe_deviation_by_hand():
    # Probes 1/0.5 = 2 and 1/0.4 = 2.5 pkt/s; median 2.25; |p/m - 1| = 1/9 each.
    dev, n = _keshav_claims.probe_deviation(_Capture(), "sw1->ftp1", 0.0)  # type: ignore[arg-type]
    assert n == 2
    assert dev == pytest.approx(1 / 9)


@pytest.fixture(scope="module")
def s1_board():
    """Scenario 1's claims measured on two background phases (seeds 1 and 2) and the
    unjittered runs, scored on the inventory."""
    path = scenario_path("keshav-s1")
    base = ccsim.load(path)
    pairs = {p: keshav_s1.PAIRS[p] for p in _keshav_claims.PAIRS}
    unjittered = {}
    for label, overrides in pairs.items():
        scenario = base
        for key, value in overrides.items():
            scenario = scenario.set(key, value)
        unjittered[label] = ccsim.run(scenario)
    phased = run_seeds(base.set("flows.bkg.start_jitter", "200ms"), "keshav-s1", pairs, [1, 2], NoProgress())
    measured = _keshav_claims.measure_s1(
        phased, unjittered, lambda r, ph, fl, key: float(keshav_s1._flow(r.phase(ph), fl)[key])
    )
    return claims.score(claims.load("keshav"), ["s1"], measured)


def test_s1_every_counted_claim_measured(s1_board):
    assert not s1_board.unmeasured
    assert s1_board.counted == 85


def test_s1_verdicts_by_hand(s1_board):
    by_id = {r.claim.id: r for r in s1_board.results}
    # JK/FCFS, background on: the background 4.93 pkt/s against FTPs 2.10 / 1.98 (every
    # phase alike, keshav.md): 4.93 > 1.5 x 2.10 = 3.15, so "much more" holds.
    r = by_id["s1-jkfcfs-bgon-background-much-more"]
    assert r.verdict == claims.WITHIN, r.ours
    # Figure 2: the window is back at 40 packets at 421 s (keshav.md), round trip 105.3,
    # outside 75 +- 11.25.
    r = by_id["s1-fig2-window-full-from-75"]
    assert r.value == pytest.approx(421 / 4, abs=1.0)
    assert r.verdict == claims.OUTSIDE
    # Contradicted cells stay uncounted whatever ours is.
    assert by_id["t2-jk-fcfs-bgon-thr-bkg"].verdict == claims.NOT_COUNTED


def test_s2_s3_reproductions_measure_every_counted_claim(tmp_path):
    for name, counted in (("keshav-s2", 66), ("keshav-s3", 56)):
        module = keshav_s2 if name == "keshav-s2" else keshav_s3
        report = module.reproduce(tmp_path / name, NoProgress())
        report.score()
        board = report.claims
        assert board is not None and not board.unmeasured, name
        assert board.counted == counted
        by_id = {r.claim.id: r for r in board.results}
        if name == "keshav-s2":
            # Table 3 rows: JK/FQ 1.87 + 1.87 = 3.74 > 1.5 x (0.88 + 0.84) = 2.58.
            assert by_id["s2-jkfq-improves-considerably"].verdict == claims.WITHIN
            # PP/FQ retransmits 0.40 pkt/s against the paper's 0 (floor 0.3): outside.
            assert by_id["t3-pp-fq-retx-1"].verdict == claims.OUTSIDE
        else:
            # JK/FCFS: source 2 0.51 < 0.85 x 1.15 = 0.98 pkt/s: unfair to the long RTT.
            assert by_id["s3-jkfcfs-unfair-to-long-rtt"].verdict == claims.WITHIN


def test_capture_does_not_change_the_run():
    # The probe run adds a capture element; the PP/FQ run it repeats must be identical.
    from ccsim.reproduce._keshav_tandem import PROBE_CAPTURE

    scenario = ccsim.load(scenario_path("keshav-s2")).set("defaults.cc", "pp").set("defaults.qdisc", "fq")
    plain = ccsim.run(scenario)
    captured = ccsim.run(scenario.set("elements", PROBE_CAPTURE))
    assert [f["delivered_pkts"] for f in plain.raw["flows"]] == [f["delivered_pkts"] for f in captured.raw["flows"]]

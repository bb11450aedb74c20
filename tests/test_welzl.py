"""`ccsim reproduce welzl*` in small: the registry, CADPC's fluid-model facts on short
runs, the Figure 1/2 grid and the Figure 5 sweeps with a few cases, Figure 3/4 shortened,
and the error messages of the new flow kind and element (docs/reproductions/welzl.md).
The full reproduction is not part of the tests."""

from __future__ import annotations

import re

import ccsim
import pytest
from ccsim.reproduce import NoProgress, claims, welzl
from ccsim.scenarios import scenario_path
from conftest import run_cli

SUBNAMES = ["welzl-fluid", "welzl-fig12", "welzl-fig3", "welzl-fig4", "welzl-fig5", "welzl-fig6"]


def test_list_names_every_experiment():
    out = run_cli("list")
    assert out.returncode == 0, out.stderr
    names = [line.split()[0] for line in out.stdout.splitlines() if line.strip()]
    for name in ["welzl", *SUBNAMES]:
        assert name in names


@pytest.fixture(autouse=True)
def inline_sweeps(monkeypatch):
    """The small sweeps run inline: starting worker processes would cost more than them."""
    monkeypatch.setattr(welzl, "SWEEP_JOBS", 1)


def _cadpc(n: int, duration: str = "60s", bg: str | None = None) -> ccsim.Results:
    text = welzl._phase(welzl._toml_text("welzl-cadpc"), 30, 60)
    if bg:
        text += f'\n[[flows]]\nname = "bg"\nkind = "cbr"\nfrom = "s"\nto = "d"\nrate = "{bg}"\n'
    return ccsim.run(welzl._with(ccsim.loads(text), {"scenario.duration": duration, "flows.c.count": n}))


@pytest.mark.parametrize("n", [1, 4])
def test_n_flows_converge_to_b_over_one_plus_n(n):
    rates = welzl._steady_rates(_cadpc(n), "c")
    want = 10e6 / 8 / (1 + n)
    assert len(rates) == n
    for r in rates:
        assert r == pytest.approx(want, rel=0.03)


def test_background_load_gives_one_minus_b_over_one_plus_n():
    rates = welzl._steady_rates(_cadpc(3, bg="4Mbps"), "c")
    for r in rates:
        assert r == pytest.approx(0.6 * 10e6 / 8 / 4, rel=0.03)


def test_fig12_grid_in_small(tmp_path):
    report = welzl.fig12(tmp_path, NoProgress(), bandwidths=(1, 10), counts=(10, 100), duration="30s")
    cell = {(r.row, r.column): r for r in report.rows}
    # Many flows on 1 Mbps lose far more than few flows on 10 Mbps (section 3.2).
    assert cell[("fig1 1 Mbps", "loss 100")].ours > 0.1
    assert cell[("fig1 10 Mbps", "loss 10")].ours < 0.01
    assert cell[("fig1 1 Mbps, 100 flows", "loss ratio")].paper == 0.5
    assert cell[("fig1 1 Mbps", "queue 100")].ours > cell[("fig1 10 Mbps", "queue 10")].ours
    for name in ("welzl-fig1.png", "welzl-fig2.png", "welzl-fig12.csv", "sweeps/welzl-fig12.duckdb"):
        assert (tmp_path / name).is_file(), name
    board = report.score()
    assert board.counted == 1
    verdict = _verdicts(report)
    # 100 flows on 1 Mbps lose about a fifth of their packets in 30 s (the cell above is
    # > 0.1): |0.2 - 0.5| is beyond 15% of 0.5 (0.075), so "half are lost" is outside.
    loss = cell[("fig1 1 Mbps, 100 flows", "loss ratio")].ours
    assert report.measured["fig1-loss-100-flows-1mbps"].value == loss
    assert verdict["fig1-loss-100-flows-1mbps"] == claims.OUTSIDE
    # Loss at 1 Mbps rises from 10 to 100 flows (0 -> > 0.1) and at 100 flows falls from
    # 1 to 10 Mbps: the Figure 1 trend holds on this grid.
    assert cell[("fig1 1 Mbps", "loss 10")].ours < cell[("fig1 1 Mbps", "loss 100")].ours
    assert cell[("fig1 10 Mbps", "loss 100")].ours < cell[("fig1 1 Mbps", "loss 100")].ours
    assert verdict["fig1-loss-grows-small-bw-many-flows"] == claims.WITHIN
    # Every counted claim of the experiment is measured; the a sweep's words name all three a.
    assert not report.claims.unmeasured
    assert re.search(r"a = 0.25: \d+, a = 0.5: \d+, a = 1: \d+", report.measured["sec32-stability-vs-a"].ours)


def test_fig5_sweeps_in_small(tmp_path):
    report = welzl.fig5(tmp_path, NoProgress(), counts=(10, 30), duration="15s")
    cell = {(r.row, r.column): r.ours for r in report.rows}
    for kind in ("CADPC", "Reno", "SACK", "Vegas"):
        assert cell[(f"fig5 {kind}", "throughput (Mbit/s) 10")] > 1.0
        assert 0.0 <= cell[(f"fig5 {kind}", "loss ratio 30")] < 1.0
        assert 0.0 < cell[(f"fig5 {kind}", "fairness (Jain) 30")] <= 1.0
    assert cell[("fig5 CADPC", "loss ratio 10")] == 0.0
    assert (tmp_path / "welzl-fig5.png").is_file()
    verdict = _verdicts(report)
    assert not report.claims.unmeasured
    # CADPC loses nothing at 10 flows (above) and fills 10/11 of the link in 15 s where the
    # TCPs are still in slow start: more throughput and less loss at both counts.
    assert all(cell[("fig5 CADPC", "throughput (Mbit/s) 10")] > cell[(f"fig5 {k}", "throughput (Mbit/s) 10")]
               for k in ("Reno", "SACK", "Vegas"))  # fmt: skip
    assert verdict["fig5-more-throughput-than-tcp"] == claims.WITHIN


def test_fig6_rap_gaimd_tfrc_tear_in_small(tmp_path):
    report = welzl.fig6(tmp_path, NoProgress(), counts=(10,), duration="30s")
    cell = {(r.row, r.column): r.ours for r in report.rows}
    for kind in ("RAP", "GAIMD", "TFRC", "TEAR"):
        assert cell[(f"fig6 {kind}", "throughput (Mbit/s) 10")] > 0.5
        assert 0.0 < cell[(f"fig6 {kind}", "fairness (Jain) 10")] <= 1.0
    # No slow start: one packet per RTT more per RTT leaves RAP far below CADPC early on.
    assert cell[("fig6 CADPC", "throughput (Mbit/s) 10")] > cell[("fig6 RAP", "throughput (Mbit/s) 10")]
    # TFRC slow-starts: it ends 30 s far above RAP, and it loses packets where CADPC does not.
    assert cell[("fig6 TFRC", "throughput (Mbit/s) 10")] > cell[("fig6 RAP", "throughput (Mbit/s) 10")]
    assert cell[("fig6 TFRC", "loss ratio 10")] > cell[("fig6 CADPC", "loss ratio 10")]
    assert (tmp_path / "welzl-fig6.png").is_file()
    verdict = _verdicts(report)
    assert not report.claims.unmeasured
    # GAIMD (alpha 0.31) grows a third as fast as RAP, so TFRC is above both at 10 flows and
    # loses more than CADPC (above): 1 of 1 counts, the TFRC claim holds here.
    assert cell[("fig6 TFRC", "throughput (Mbit/s) 10")] > cell[("fig6 GAIMD", "throughput (Mbit/s) 10")]
    assert verdict["fig6-tfrc-high-throughput-high-loss"] == claims.WITHIN


def test_fig3_and_fig4_shortened(tmp_path):
    report = welzl.fig3(tmp_path, NoProgress(), duration="30s")
    cell = {(r.row, r.column): r.ours for r in report.rows}
    assert cell[("fig3 CADPC, 10 Mbps", "cv after 20 s")] < cell[("fig3 TCP Reno, 10 Mbps", "cv after 20 s")]
    verdict = _verdicts(report)
    assert not report.claims.unmeasured
    # Reno's slow start overflows the 50-packet buffer long before 10 flows fill the
    # 3750-packet pipe of 100 Mbps x 300 ms; then each window grows one packet per 300 ms,
    # so in 30 s it never reaches 80% of 10/11 of the link, while on 10 Mbps it does: TCP
    # is slower at the higher capacity.
    assert cell[("fig3 TCP Reno, 100 Mbps", "time to 80% of 10/11 B (s)")] is None
    assert cell[("fig3 TCP Reno, 10 Mbps", "time to 80% of 10/11 B (s)")] is not None
    assert verdict["fig3-tcp-slower-at-higher-capacity"] == claims.WITHIN
    assert verdict["fig3-cadpc-smoother"] == claims.WITHIN
    report = welzl.fig4(tmp_path, NoProgress(), duration_left="220s", duration_right="220s")
    rows = [r for r in report.rows if r.row == "fig4 left" and r.column.endswith("final rate (B/s)")]
    assert len(rows) == 10 and all(r.paper == welzl.FAIR_10 for r in rows)
    assert rows[0].ours > rows[9].ours, "flow 0 updates 10x as often and gets there first"
    assert (tmp_path / "welzl-fig4.png").is_file()
    verdict = _verdicts(report)
    assert not report.claims.unmeasured
    # In 220 s flow 9 (12 s between updates) is far from its fair share: "about 1000 s"
    # is measured as the run's end (220 s, more than 150 s from 1000: outside).
    if report.cell("fig4 flow 9 (update 40 RTTs)", "time to 90% of fair share (s)").ours is None:
        assert report.measured["fig4-flow9-1000s"].value == pytest.approx(220.0)
        assert verdict["fig4-flow9-1000s"] == claims.OUTSIDE


def _verdicts(report) -> dict[str, str]:
    report.score()
    return {r.claim.id: r.verdict for r in report.claims.results}


def test_the_inventory_loads_and_names_real_experiments_and_claims():
    inv = claims.load("welzl")
    ids = {c.id for c in inv.claims}
    assert {c.experiment for c in inv.claims} <= set(welzl.EXPERIMENTS)
    counted = [c for c in inv.claims if c.counted]
    assert len(counted) == 22
    # A duplicate names the claims it duplicates, each an id of this inventory.
    for c in inv.claims:
        if c.not_counted == "duplicate":
            named = set(re.findall(r"[a-z0-9]+(?:-[a-z0-9]+){2,}", c.reason or ""))
            assert named and named <= ids, (c.id, named - ids)
    # Counted value claims: the paper's numbers (half lost; 113636 byte/s; about 1000 s).
    values = {c.id: c.value for c in counted if c.kind == "value"}
    assert values == {"fig1-loss-100-flows-1mbps": 0.5, "fig4-left-converge-fair-share": 113636.0, "fig4-flow9-1000s": 1000.0}
    # 15% of 1000 s is 150 s, above the 10 s floor; 15% of 0.5 is 0.075.
    assert inv.tolerance(inv.by_id()["fig4-flow9-1000s"]) == pytest.approx(150.0)
    assert inv.tolerance(inv.by_id()["fig1-loss-100-flows-1mbps"]) == pytest.approx(0.075)


def test_claim_helpers_count_as_the_inventory_says():
    # Majority: 6 of 10 holds, 5 of 10 does not; 3 of 5 holds.
    assert welzl._majority(6, 10) and not welzl._majority(5, 10) and welzl._majority(3, 5)
    assert welzl._never_falls([0.0, 0.0, 0.1, 0.3]) and not welzl._never_falls([0.1, 0.05])
    assert welzl._strictly_falls([0.2, 0.1, 0.05]) and not welzl._strictly_falls([0.2, 0.2])
    # Close to 0: loss under 1% and mean queue under 5 packets.
    assert welzl._stable({"loss": 0.009, "queue": 4.9})
    assert not welzl._stable({"loss": 0.01, "queue": 1.0}) and not welzl._stable({"loss": 0.0, "queue": 5.0})


def test_cadpc_flow_errors_name_the_field():
    sc = ccsim.load(scenario_path("welzl-cadpc"))
    with pytest.raises(ValueError, match=r"flows\.c1\.params\.a"):
        sc.set("flows.c.params.a", 1.5).check()
    with pytest.raises(ValueError, match=r"flows\.c1\.params\.update"):
        sc.set("flows.c.params.update", 0.5).check()
    with pytest.raises(ValueError, match=r"flows\.c1\.sack"):
        sc.set("flows.c.sack", True).check()

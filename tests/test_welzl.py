"""`ccsim reproduce welzl*` in small: the registry, CADPC's fluid-model facts on short
runs, the Figure 1/2 grid and the Figure 5 sweeps with a few cases, Figure 3/4 shortened,
and the error messages of the new flow kind and element (docs/reproductions/welzl.md).
The full reproduction is not part of the tests."""

from __future__ import annotations

import ccsim
import pytest
from ccsim.reproduce import NoProgress, welzl
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


def test_fig5_sweeps_in_small(tmp_path):
    report = welzl.fig5(tmp_path, NoProgress(), counts=(10, 30), duration="15s")
    cell = {(r.row, r.column): r.ours for r in report.rows}
    for kind in ("CADPC", "Reno", "SACK", "Vegas"):
        assert cell[(f"fig5 {kind}", "throughput (Mbit/s) 10")] > 1.0
        assert 0.0 <= cell[(f"fig5 {kind}", "loss ratio 30")] < 1.0
        assert 0.0 < cell[(f"fig5 {kind}", "fairness (Jain) 30")] <= 1.0
    assert cell[("fig5 CADPC", "loss ratio 10")] == 0.0
    assert (tmp_path / "welzl-fig5.png").is_file()


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


def test_fig3_and_fig4_shortened(tmp_path):
    report = welzl.fig3(tmp_path, NoProgress(), duration="30s")
    cell = {(r.row, r.column): r.ours for r in report.rows}
    assert cell[("fig3 CADPC, 10 Mbps", "cv after 20 s")] < cell[("fig3 TCP Reno, 10 Mbps", "cv after 20 s")]
    report = welzl.fig4(tmp_path, NoProgress(), duration_left="220s", duration_right="220s")
    rows = [r for r in report.rows if r.row == "fig4 left" and r.column.endswith("final rate (B/s)")]
    assert len(rows) == 10 and all(r.paper == welzl.FAIR_10 for r in rows)
    assert rows[0].ours > rows[9].ours, "flow 0 updates 10x as often and gets there first"
    assert (tmp_path / "welzl-fig4.png").is_file()


def test_cadpc_flow_errors_name_the_field():
    sc = ccsim.load(scenario_path("welzl-cadpc"))
    with pytest.raises(ValueError, match=r"flows\.c1\.params\.a"):
        sc.set("flows.c.params.a", 1.5).check()
    with pytest.raises(ValueError, match=r"flows\.c1\.params\.update"):
        sc.set("flows.c.params.update", 0.5).check()
    with pytest.raises(ValueError, match=r"flows\.c1\.sack"):
        sc.set("flows.c.sack", True).check()

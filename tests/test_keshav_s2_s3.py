"""`ccsim reproduce keshav-s2` / `keshav-s3`: the row/column JSON contract, the paper's
values beside ours, the interval statistics behind ours, and the figures.

Each reproduction is five full-length runs (6000 simulated seconds each, well under a
second of wall time each), so the tests use the real scenarios, not shortened ones.
"""

from __future__ import annotations

import csv
import json
import statistics

import ccsim
import pytest
from ccsim.scenarios import scenario_path
from conftest import run_cli

ROWS = ["G/FCFS", "G/FQ", "JK/FCFS", "JK/FQ", "PP/FQ", "PP/FQ per-probe"]
# Sensitivity rows: Fair Queueing with drop_rule = rollback.
ROLLBACK = ["G/FQ rollback", "JK/FQ rollback", "PP/FQ rollback", "PP/FQ per-probe rollback"]
COLUMNS = [
    f"{m} {s}{sd}"
    for m in ("throughput", "delay", "loss", "retransmission")
    for s in ("1", "2")
    for sd in ("", " sd")
]
PNG = b"\x89PNG\r\n\x1a\n"


def ok(result) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.fixture(scope="module", params=["keshav-s2", "keshav-s3"])
def reproduction(request, tmp_path_factory):
    name = request.param
    out_dir = tmp_path_factory.mktemp(name)
    data = json.loads(ok(run_cli("reproduce", name, "--json", "--out", out_dir)))
    assert data["reproduction"] == name
    return name, data["rows"], out_dir, data["scoreboard"]


def test_listed():
    names = [line.split()[0] for line in ok(run_cli("list")).splitlines() if line.strip()]
    assert {"keshav-s2", "keshav-s3"} <= set(names)


def test_json_is_the_row_column_contract(reproduction):
    _, rows, _, _ = reproduction
    assert [(r["row"], r["column"]) for r in rows] == [(r, c) for r in ROWS + ROLLBACK for c in COLUMNS]
    assert all(r["ours"] is not None for r in rows)


def test_paper_values(reproduction):
    name, rows, _, _ = reproduction
    cell = {(r["row"], r["column"]): r for r in rows}
    if name == "keshav-s2":
        assert cell[("PP/FQ", "throughput 1")]["paper"] == 1.70
        assert cell[("PP/FQ", "throughput 1 sd")]["paper"] == 0.02
        assert cell[("JK/FCFS", "delay 2 sd")]["paper"] == 1.04
    else:
        assert cell[("JK/FCFS", "throughput 2")]["paper"] == 0.31
        assert cell[("PP/FQ", "throughput 2 sd")]["paper"] is None  # empty in the paper
        assert cell[("PP/FQ", "delay 2")]["paper"] == 36.50
    # Loss/retransmission cells of Generic are ambiguous in our copy: no paper value, a note.
    assert cell[("G/FCFS", "loss 1")]["paper"] is None
    assert "ambiguous" in cell[("G/FCFS", "loss 1")]["note"]
    assert cell[("PP/FQ", "loss 1")]["paper"] == 0
    # The per-probe variant is compared with the paper's PP/FQ row.
    for col in COLUMNS:
        assert cell[("PP/FQ per-probe", col)]["paper"] == cell[("PP/FQ", col)]["paper"]


def test_ours_are_interval_means_and_deviations(reproduction):
    name, rows, out_dir, _ = reproduction
    cell = {(r["row"], r["column"]): r["ours"] for r in rows}
    run = json.loads((out_dir / "runs" / "JK-FQ.json").read_text())
    assert len(run["intervals"]) >= 3
    for key, metric in (("goodput_pps", "throughput"), ("delay_mean_s", "delay")):
        values = [
            next(f for f in iv["flows"] if f["name"] == "ftp2")[key] for iv in run["intervals"]
        ]
        assert cell[("JK/FQ", f"{metric} 2")] == pytest.approx(statistics.fmean(values))
        assert cell[("JK/FQ", f"{metric} 2 sd")] == pytest.approx(statistics.stdev(values))


def test_delay_is_at_least_the_propagation_round_trip(reproduction):
    name, rows, _, _ = reproduction
    cell = {(r["row"], r["column"]): r["ours"] for r in rows}
    rtt2 = 12.0 if name == "keshav-s2" else 24.0
    for row in ROWS:
        assert cell[(row, "delay 1")] >= 12.0
        assert cell[(row, "delay 2")] >= rtt2


def test_csv_and_figures_written(reproduction):
    name, rows, out_dir, _ = reproduction
    table = "table3.csv" if name == "keshav-s2" else "table4.csv"
    with (out_dir / table).open() as f:
        assert [(r["row"], r["column"]) for r in csv.DictReader(f)] == [
            (r["row"], r["column"]) for r in rows
        ]
    figures = sorted(out_dir.glob("*.png"))
    assert len(figures) == (4 if name == "keshav-s2" else 3)
    assert all(p.read_bytes()[:8] == PNG for p in figures)


def test_scenario_two_topology_is_as_the_text_says():
    """Minimum round trip 12 s, 120 buffers, 6 sources on every slow line."""
    r = ccsim.run(ccsim.load(scenario_path("keshav-s2")).set("scenario.duration", "30s"))
    slow = [link for link in r.raw["links"] if link["link"] in ("b1", "b2", "b3")]
    forward = [link for link in slow if link["from"] < link["to"]]
    assert len(forward) == 3
    assert all(link["rate_bps"] == 80_000 and link["delay_s"] == 2.0 for link in forward)
    assert all(link["buffer_pkts"] == 120 for link in forward)
    assert r.flow("ftp1")["rtt_min_s"] >= 12.0


def test_scoreboard_counts_the_papers_pairs_and_means_only(reproduction):
    name, rows, _, board = reproduction
    # 5 pairs x 4 throughput/delay means + the JK and PP rows' 4 loss/retransmission
    # means (the standard deviations, PP per-probe and the rollback rows are not counted).
    assert board["counted"] == 5 * 4 + 3 * 4
    assert board["within"] + board["outside"] == board["counted"]
    assert all(c["reason"] for c in board["outside_cells"]), board["outside_cells"]
    status = {(r["row"], r["column"]): r.get("status") for r in rows}
    assert status[("JK/FQ", "throughput 1 sd")] == "not counted"
    assert status[("PP/FQ per-probe", "throughput 1")] == "not counted"
    assert status[("JK/FQ rollback", "throughput 1")] == "not counted"
    assert status[("JK/FCFS", "throughput 1")] in ("within", "outside")

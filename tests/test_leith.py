"""`ccsim reproduce leith*` in small: the registry, the rows contract and files of the
short experiments, the flow-count sweeps with a few counts, and the generated scenario
files (docs/reproductions/leith.md). The full reproduction is not part of the tests."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from ccsim.reproduce import NoProgress, leith
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


def test_fig11_rows_and_files(tmp_path):
    rows = json.loads(ok(run_cli("reproduce", "leith-fig11", "--json", "--out", tmp_path)))["rows"]
    cell = {(r["row"], r["column"]): r for r in rows}
    for flow in ("fig11 flow 1 (RTT 20 ms)", "fig11 flow 2 (RTT 110 ms)"):
        # The newest-packet samples never exceed base RTT + queueing (the paper's claim);
        # the RFC 1323 echo does, by a delayed-ack wait.
        assert cell[(flow, "filtered RTT max - RTT_min - queueing (ms)")]["ours"] == 0.0
        assert cell[(flow, "filtered RTT max - RTT_min - queueing (ms)")]["paper"] == 0.0
        assert cell[(flow, "timestamp RTT max - RTT_min - queueing (ms)")]["ours"] > 5.0
    assert (tmp_path / "leith-fig11.csv").is_file()
    assert (tmp_path / "leith-fig11-rtt.png").stat().st_size > 10_000


def test_fig13_tso_spikes_go_with_the_2_6_24_bound(tmp_path):
    report = leith.fig13(tmp_path, NoProgress())
    rng = {r.row: r.ours for r in report.rows if r.column == "RTT range in 200 ms windows (ms)"}
    assert rng["fig13 2.6.18 (40 ms timer)"] > 3 * rng["fig13 2.6.24 (2 ms)"]
    assert rng["fig13 2.6.24 (2 ms)"] < 2 * rng["fig13 no TSO"]


@pytest.fixture
def small_sweeps(monkeypatch):
    """The sweeps with three counts each: below and beyond the one-packet point."""
    small = {
        key: replace(spec, counts=(10, 140) if key != "512B" else (10, 420)) for key, spec in leith.SWEEPS.items()
    }
    small["100ms"] = replace(small["100ms"], counts=(10, 128, 140))
    monkeypatch.setattr(leith, "SWEEPS", small)
    monkeypatch.setattr(leith, "_DONE", {})
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
    # Figures 9/10 reuse the same sweeps (no new runs).
    report = leith.fig9(tmp_path, NoProgress())
    jain = {r.row: r.ours for r in report.rows if r.column == "Jain at 128 flows"}
    assert jain["fig9 100ms delay AIMD"] > jain["fig9 100ms SACK Reno"]

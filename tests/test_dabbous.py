"""`ccsim reproduce dabbous*`: the JSON rows contract, the files written, and the
DA parameters' error messages (docs/cli.md, docs/reproductions/dabbous.md)."""

from __future__ import annotations

import csv
import json

import ccsim
import pytest
from conftest import REPO, run_cli

SUBNAMES = [
    "dabbous-single",
    "dabbous-two",
    "dabbous-load",
    "dabbous-route",
    "dabbous-minbuf",
    "dabbous-vs-jk",
]


def ok(result) -> str:
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    """`ccsim reproduce dabbous --json` once: (rows, output directory)."""
    out_dir = tmp_path_factory.mktemp("dabbous")
    data = json.loads(ok(run_cli("reproduce", "dabbous", "--json", "--out", out_dir)))
    assert data["reproduction"] == "dabbous"
    return data["rows"], out_dir, data["scoreboard"]


def cell(rows, row, column):
    matches = [r for r in rows if r["row"] == row and r["column"] == column]
    assert len(matches) == 1, (row, column)
    return matches[0]


def test_list_names_every_experiment():
    names = [line.split()[0] for line in ok(run_cli("list")).splitlines() if line.strip()]
    for name in ["dabbous", *SUBNAMES]:
        assert name in names


def test_rows_follow_the_contract(full):
    rows, *_ = full
    assert rows
    seen = set()
    for r in rows:
        assert {"row", "column", "ours", "paper"} <= set(r)
        assert isinstance(r["row"], str) and isinstance(r["column"], str)
        for key in ("ours", "paper"):
            # Counts (packets sent, dropped) are integers, everything else floats.
            assert r[key] is None or isinstance(r[key], (int, float)), r
            if r["column"].endswith(("sent", "dropped")):
                assert r[key] is None or isinstance(r[key], int), r
        assert (r["row"], r["column"]) not in seen, r
        seen.add((r["row"], r["column"]))


def test_paper_values_are_the_papers(full):
    rows, *_ = full
    # Table 1 and section 4.1.
    assert cell(rows, "single JK", "rtt max (ms)")["paper"] == 370.0
    assert cell(rows, "single DA", "rtt mean (ms)")["paper"] == 260.0
    assert cell(rows, "single DA", "slow-start exit window")["paper"] == 13.0
    # Table 2: 6 intervals x 3 sources, 4 columns each, every cell from the paper, plus
    # 3 sensitivity columns compared with the same paper cells.
    load = [r for r in rows if r["row"].startswith("load ")]
    assert len(load) == 6 * 3 * (4 + 3)
    assert all(r["paper"] is not None for r in load)
    assert cell(rows, "load 60s Bg", "JK dropped")["paper"] == 44.0
    assert cell(rows, "load 100s B", "DA sent")["paper"] == 1023.0
    # Section 6: JK gets about twice DA's throughput on FCFS, the same on FQ.
    assert cell(rows, "vs-jk FCFS", "JK/DA throughput")["paper"] == 2.0
    assert cell(rows, "vs-jk FQ", "JK/DA throughput")["paper"] == 1.0


def test_ours_are_the_runs(full):
    rows, *_ = full
    # Computed from the same scenario run through the API.
    r = ccsim.run(ccsim.load(REPO / "scenarios" / "dabbous-single.toml").set("defaults.cc", "da"))
    f = r.flow("src")
    assert cell(rows, "single DA", "throughput (pkt/s)")["ours"] == pytest.approx(f["goodput_pps"])
    assert cell(rows, "single DA", "rtt max (ms)")["ours"] == pytest.approx(1000 * f["rtt_max_s"])
    # The DA source of section 4.1 loses nothing; the JK source does.
    assert cell(rows, "single DA", "dropped")["ours"] == 0.0
    assert cell(rows, "single JK", "dropped")["ours"] > 0.0
    # Table 2's "sent" is what the interval table says was delivered (counted where the
    # packets arrive, as the paper's Bg sent + dropped = 2002 shows).
    scenario = ccsim.load(REPO / "scenarios" / "dabbous-load.toml").set("defaults.cc", "tahoe")
    load = ccsim.run(scenario)
    intervals = load.intervals
    at60 = intervals[(intervals["end_s"] == 60.0) & (intervals["name"] == "bg")]
    assert cell(rows, "load 60s Bg", "JK sent")["ours"] == float(at60["delivered_pkts"].iloc[0])
    # The whole-packet window is the time average of the window's whole part.
    assert cell(rows, "two DA d_BG=9.8ms", "A whole-packet window 50-100 s")["paper"] == 9.0


def test_files_are_written(full):
    _, out_dir, _ = full
    names = {p.name for p in out_dir.iterdir()}
    for name in ["dabbous", *SUBNAMES]:
        assert f"{name}.csv" in names
    pngs = [p for p in out_dir.iterdir() if p.suffix == ".png"]
    assert len(pngs) >= 10
    for png in pngs:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with (out_dir / "dabbous.csv").open(encoding="utf-8") as f:
        header = next(csv.reader(f))
    assert header == ["row", "column", "ours", "paper", "note", "min", "max"]


def test_a_subname_gives_the_same_rows_as_the_full_run(full, tmp_path):
    rows, *_ = full
    sub = json.loads(ok(run_cli("reproduce", "dabbous-minbuf", "--json", "--out", tmp_path)))
    assert sub["rows"]
    for r in sub["rows"]:
        assert cell(rows, r["row"], r["column"]) == r
    assert sub["scoreboard"]["counted"] == 1


def test_scoreboard_explains_every_cell_outside_tolerance(full):
    rows, _, board = full
    assert board["counted"] > 50
    assert board["within"] + board["outside"] == board["counted"]
    assert all(c["reason"] and c["link"].startswith("docs/reproductions/dabbous.md#") for c in board["outside_cells"])
    # Table 1's DA delays contradict the paper's own path and window: not counted.
    assert {c["column"] for c in board["inconsistent_cells"]} == {"rtt min (ms)", "rtt mean (ms)", "rtt max (ms)"}
    statuses = {(r["row"], r["column"]): r.get("status") for r in rows}
    assert statuses[("single DA", "rtt min (ms)")] == "inconsistent"
    assert statuses[("vs-jk FCFS", "JK/DA throughput")] == "outside"
    assert statuses[("two DA two_back d_BG=9.8ms", "A throughput (pkt/s)")] is None  # no paper value


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("flows.src.params.k", "0.5", "flows.src.params.k"),
        ("flows.src.params.ndg_sampling", "often", "\"ack\" or \"epoch\""),
        ("flows.src.params.rule_window", "both", "two_back"),
        ("flows.src.params.min_buffer", "-1", "flows.src.params.min_buffer"),
        ("flows.src.params.kay", "1", "unknown parameter for cc 'da'"),
    ],
)
def test_bad_da_parameters_name_the_field(key, value, message):
    scenario = ccsim.load(REPO / "scenarios" / "dabbous-single.toml").set(key, value)
    with pytest.raises(ccsim.ScenarioError, match=message.replace(".", r"\.")):
        scenario.check()

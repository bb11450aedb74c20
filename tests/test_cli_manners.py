"""CLI manners (docs/cli.md): tables fitted to the terminal, --wide, --all, --quiet,
counts printed as integers, notes below tables, --out refusing a non-empty directory."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATA, REPO, run_cli


def run_at(columns: int, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """``ccsim ARGS`` with stdout not a terminal and COLUMNS=columns."""
    env = dict(os.environ, NO_COLOR="1", COLUMNS=str(columns))
    env.pop("CCSIM_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "ccsim", *map(str, args)],
        capture_output=True, text=True, cwd=REPO, env=env, timeout=600,
    )  # fmt: skip


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout


def widest(text: str) -> int:
    return max(len(line) for line in text.splitlines())


def assert_one_line_error(result, *words: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert result.stdout == ""
    assert result.stderr.startswith("ccsim: error: ")
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in result.stderr, (word, result.stderr)


# Fitting to the terminal -----------------------------------------------------------------


def test_run_tables_fit_80_columns_and_say_what_they_hide():
    out = ok(run_at(80, "run", DATA / "tiny.toml"))
    assert widest(out) <= 80
    # The most important columns stay; the hidden ones are named below the table.
    for word in ("reno1", "goodput", "delivered", "r1->r2", "util", "first"):
        assert word in out
    assert re.search(r"hidden to fit 80 columns: .*rtt max.*--wide\s+shows them", out, re.S)


def test_run_wide_shows_every_column():
    out = ok(run_at(80, "run", DATA / "tiny.toml", "--wide"))
    assert widest(out) > 80
    for header in ("rtt min", "rtt max", "from", "qdisc", "buffer", "retransmission"):
        assert header in out
    assert "hidden" not in out


@pytest.fixture(scope="module")
def dabbous_single(tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("dabbous-single")
    narrow = ok(run_at(80, "reproduce", "dabbous-single", "--out", out_dir))
    wide = ok(run_at(80, "reproduce", "dabbous-single", "--out", out_dir, "--force", "--wide"))
    return narrow, wide


def test_reproduction_table_parts_fit_and_keep_every_column(dabbous_single):
    narrow, wide = dabbous_single
    assert widest(narrow) <= 80
    assert re.search(r"\(part\s+1\s+of\s+\d\)", narrow)
    for header in ("rtt min (ms)", "throughput (pkt/s)", "dropped", "window peak"):
        assert header in narrow
    # --wide: one table, every column on one line.
    assert "(part " not in wide
    header = next(line for line in wide.splitlines() if "rtt min (ms)" in line)
    assert "window peak" in header


def test_notes_are_below_the_table_not_in_row_labels(dabbous_single):
    narrow, wide = dabbous_single
    for out in (narrow, wide):
        lines = out.splitlines()
        rows = [line for line in lines if line.lstrip().startswith("single DA [1]")]
        assert rows, out
        assert all("window settles" not in line for line in rows)
        note = [i for i, line in enumerate(lines) if line.startswith("[1] paper: window settles")]
        assert len(note) == 1
        assert note[0] > max(lines.index(r) for r in rows)


def test_counts_print_as_integers(tmp_path):
    out = ok(run_at(200, "reproduce", "dabbous-load", "--out", tmp_path))
    row = next(line for line in out.splitlines() if line.lstrip().startswith("load 20s A"))
    cells = re.findall(r"(\S+) \((\S+)\)", row)
    # DA and JK sent/dropped, then the sensitivity columns (docs/reproductions/dabbous.md).
    assert len(cells) >= 4
    for ours, paper in cells:
        assert re.fullmatch(r"\d+", ours) and re.fullmatch(r"\d+", paper), row
    # Rates keep their decimals.
    assert re.search(r"\d+\.\d\d \(", ok(run_at(200, "reproduce", "dabbous-minbuf", "--out", tmp_path / "m")))


def test_counts_are_integers_in_json_and_csv(tmp_path):
    rows = json.loads(ok(run_cli("reproduce", "dabbous-load", "--json", "--out", tmp_path)))["rows"]
    sent = [r for r in rows if r["column"] == "DA sent"]
    assert sent and all(isinstance(r["ours"], int) and isinstance(r["paper"], int) for r in sent)
    text = (tmp_path / "dabbous-load.csv").read_text()
    assert re.search(r"^load 20s A,DA sent,\d+,976,", text, re.M)


# Many flows --------------------------------------------------------------------------------


def _many_flows(path: Path, n: int) -> Path:
    lines = [
        '[scenario]\nname = "many"\nduration = "2s"\n',
        "[nodes]",
        "hosts = [" + ", ".join(f'"s{i}"' for i in range(n)) + ', "d"]',
        'routers = ["r"]\n',
        '[[links]]\nname = "bottleneck"\nbetween = ["r", "d"]\nrate = "100Mbps"\ndelay = "10ms"\n',
    ]
    for i in range(n):
        lines.append(f'[[links]]\nbetween = ["s{i}", "r"]\nrate = "1Gbps"\ndelay = "1ms"\n')
    for i in range(n):
        lines.append(f'[[flows]]\nname = "f{i}"\nfrom = "s{i}"\nto = "d"\n')
    lines.append('[[phases]]\nname = "all"\nstart = "0s"\nend = "2s"\n')
    path.write_text("\n".join(lines))
    return path


@pytest.fixture(scope="module")
def many(tmp_path_factory) -> Path:
    return _many_flows(tmp_path_factory.mktemp("many") / "many.toml", 1000)


def test_a_thousand_flows_print_a_summary(many):
    out = ok(run_at(100, "run", many))
    lines = out.splitlines()
    assert len(lines) < 80, len(lines)
    assert widest(out) <= 100
    assert "the 5 highest and 5 lowest goodputs of 1000" in out
    assert re.search(r"All 1000 flows: goodput .* in total; .*Jain's fairness\s+index 0\.\d{3}", out, re.S)
    assert "990 flows not shown (--all shows every flow)" in out
    assert "busiest of 2002" in out
    assert "all 1000 flows" in out  # phases added up


def test_a_thousand_flows_all_prints_every_row(many):
    out = ok(run_at(100, "run", many, "--all"))
    names = set(re.findall(r"^\s*(f\d+)\s", out, re.M))
    assert len(names) == 1000


# --quiet -------------------------------------------------------------------------------------


def test_run_quiet_prints_nothing_and_still_writes(tmp_path):
    result = run_cli("run", DATA / "tiny.toml", "--quiet", "--out", tmp_path / "o")
    assert result.returncode == 0 and result.stdout == "" and result.stderr == ""
    assert (tmp_path / "o" / "summary.json").is_file()
    # --json is what was asked for: --quiet leaves it.
    data = json.loads(ok(run_cli("run", DATA / "tiny.toml", "--quiet", "--json")))
    assert data["scenario"] == "tiny"


def test_reproduce_quiet_prints_nothing(tmp_path):
    result = run_cli("reproduce", "dabbous-minbuf", "--quiet", "--out", tmp_path)
    assert result.returncode == 0 and result.stdout == "" and result.stderr == ""
    assert (tmp_path / "dabbous-minbuf.csv").is_file()


# --out and --force ---------------------------------------------------------------------------


def test_run_out_refuses_a_non_empty_directory(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    result = run_cli("run", DATA / "tiny.toml", "--out", tmp_path)
    assert_one_line_error(result, f"--out {tmp_path}", "not empty", "--force")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    ok(run_cli("run", DATA / "tiny.toml", "--out", tmp_path, "--force"))
    assert (tmp_path / "summary.json").is_file()
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_run_out_refuses_a_file(tmp_path):
    target = tmp_path / "file"
    target.write_text("x")
    assert_one_line_error(
        run_cli("run", DATA / "tiny.toml", "--out", target, "--force"), str(target), "a file"
    )


def test_reproduce_out_refuses_a_non_empty_directory_before_running(tmp_path):
    (tmp_path / "keep").write_text("")
    result = run_cli("reproduce", "keshav-s2", "--out", tmp_path)
    assert_one_line_error(result, "not empty", "--force")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep"]


def test_reproduce_default_out_names_itself(tmp_path):
    out = tmp_path / "out" / "keshav-s1"
    out.mkdir(parents=True)
    (out / "old.csv").write_text("")
    result = run_cli("reproduce", "keshav-s1", cwd=tmp_path)
    assert_one_line_error(result, "out/keshav-s1 (the default --out)", "--force")


def test_reproduce_json_needs_no_out_directory(tmp_path, monkeypatch):
    """`--json` prints to stdout and writes files only with `--out`: a default
    out/NAME left by an earlier run is no obstacle, nothing is written beside it, and
    the scratch directory the run drew into is removed. The JSON is the one `--out`
    gives."""
    old = tmp_path / "out" / "welzl-fluid"
    old.mkdir(parents=True)
    (old / "old.csv").write_text("")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    printed = json.loads(ok(run_cli("reproduce", "welzl-fluid", "--json", cwd=tmp_path)))
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == [
        "out", "out/welzl-fluid", "out/welzl-fluid/old.csv", "scratch",
    ]  # fmt: skip
    with_out = ok(run_cli("reproduce", "welzl-fluid", "--json", "--out", tmp_path / "files"))
    assert printed == json.loads(with_out)
    assert printed["reproduction"] == "welzl-fluid" and printed["rows"]
    assert (tmp_path / "files" / "welzl-fluid.csv").is_file()

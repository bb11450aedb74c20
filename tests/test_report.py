"""`ccsim report`: one self-contained HTML page per run, reproduction or sweep, whose
plots draw in headless Chromium with no network (docs/cli.md, "ccsim report")."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import ccsim
import pytest
from ccsim import report
from conftest import DATA, run_cli


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout


def _can_install_chromium() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get") is not None


def browser() -> str:
    """Chromium; skip only where it cannot be installed (`make test` installs it as root
    with apt-get: see the Makefile's debian-packages)."""
    path = report.chromium()
    if path is None:
        if _can_install_chromium():
            pytest.fail("chromium is not installed but could be: run `make debian-packages`")
        pytest.skip("chromium not installed and not installable here (not root or no apt-get)")
    return path


def render(page: Path) -> str:
    """The page's DOM after its scripts ran, with the network switched off."""
    out = subprocess.run(
        [browser(), *report.chromium_args(), "--window-size=1200,900",
         "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
         "--dump-dom", page.resolve().as_uri()],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def assert_every_plot_drew(dom: str, expected: int) -> None:
    status = re.search(r'<p id="ccsim-report-status"([^>]*)>', dom)
    assert status is not None, "status element missing"
    attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', status.group(1)))
    assert "data-error" not in attrs, attrs["data-error"]
    assert attrs.get("data-plots") == str(expected)
    assert attrs.get("data-rendered") == str(expected), attrs
    # Each plot div holds plotly's SVG, with a drawn trace (a path with points) in it.
    for i in range(expected):
        start = dom.index(f'id="plot{i}"')
        end = dom.find('id="plot', start + 5)
        chunk = dom[start : end if end != -1 else len(dom)]
        assert 'class="main-svg"' in chunk, f"plot{i} has no SVG"
        # A line (js-line) or a marker (point) with coordinates, or a bar (a path in a
        # point group).
        drawn = re.search(
            r'<path class="(js-line|point)"[^>]* d="M-?\d|<g class="point"><path d="M-?\d', chunk
        )
        assert drawn is not None, f"plot{i} has no trace drawn"


def assert_self_contained(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    # Nothing is fetched: no external scripts, stylesheets or images.
    assert not re.search(r'<script[^>]+src=', text)
    assert not re.search(r'<link[^>]+href=', text)
    assert not re.search(r'<img[^>]+src="(?!data:)', text)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("run") / "out"
    ok(run_cli("run", DATA / "tiny.toml", "--out", out, "--quiet"))
    return out


def test_run_writes_the_checked_scenario(run_dir):
    text = (run_dir / "scenario.toml").read_text()
    again = ccsim.loads(text).check()
    assert again == ccsim.load(DATA / "tiny.toml").check()


def test_run_report_draws_every_series_in_chromium(run_dir, tmp_path):
    page = tmp_path / "r.html"
    assert ok(run_cli("report", run_dir, "--out", page)).strip() == f"wrote {page}"
    assert_self_contained(page)
    text = page.read_text()
    doc = json.loads((run_dir / "summary.json").read_text())
    # goodput per interval, channels, reno1 window (cwnd, ssthresh, outstanding), reno1
    # rtt, the r1->r2 queue: 5 plots for the 5 series of tiny.toml.
    assert text.count('<div class="plot"') == 5
    for name in [f["name"] for f in doc["flows"]] + ["r1-&gt;r2"]:
        assert name in text
    assert "[measure]" in text  # the scenario is on the page
    assert_every_plot_drew(render(page), 5)


def test_report_default_file_is_in_the_directory(run_dir):
    out = ok(run_cli("report", run_dir))
    assert out.strip() == f"wrote {run_dir / 'report.html'}"
    assert (run_dir / "report.html").stat().st_size > 1_000_000  # plotly.js is inlined


def test_reproduce_writes_its_json_and_report(tmp_path):
    out = tmp_path / "m"
    printed = ok(run_cli("reproduce", "dabbous-minbuf", "--out", out))
    assert str(out / "report.html") in printed
    doc = json.loads((out / "reproduction.json").read_text())
    # The --json object, with the layout the page needs.
    assert doc["reproduction"] and doc["rows"] and doc["scoreboard"]["counted"] >= 1
    assert doc["tables"] and all(t["rows"] and t["columns"] for t in doc["tables"])
    page = out / "report.html"
    assert_self_contained(page)
    text = page.read_text()
    board = doc["scoreboard"]
    assert f"{board['within']} of {board['counted']} cells within tolerance" in text
    for table in doc["tables"]:
        assert report.esc(table["title"]) in text
    expected = text.count('<div class="plot"')
    assert_every_plot_drew(render(page), expected)


def test_reproduction_page_colours_cells_and_draws_its_runs(run_dir, tmp_path):
    """A reproduction directory made by hand: one table, a figure and one kept run."""
    from ccsim.reproduce import Report, Row, Table

    rows = [
        Row("A", "x", 1.0, 1.05),  # |1 - 1.05| <= max(15% of 1.05, 0.1): within
        Row("A", "y", 2.0, 4.0),  # |2 - 4| > max(0.6, 0.1): outside, no reason
        Row("B", "x", 3.0, None, note="not in the paper"),  # no paper value: not scored
    ]
    table = Table("T: ours (paper)", ["A", "B"], [("x", "col x"), ("y", "col y")], floor=0.1)
    rep = Report("fake", rows, [table], notes=["a note on the set-up"])
    rep.score()
    out = tmp_path / "repro"
    (out / "runs").mkdir(parents=True)
    shutil.copy(run_dir / "summary.json", out / "runs" / "tiny.json")
    shutil.copy(run_dir / "plots" / "throughput.png", out / "fig.png")
    doc = report.reproduction_document(rep, "a reproduction made by hand", out, [out / "fig.png"])
    assert doc["files"] == ["fig.png"]
    (out / "reproduction.json").write_text(json.dumps(doc))
    page = report.write_report(out)
    text = page.read_text()
    assert "1 of 2 cells within tolerance (50%)" in text
    assert re.search(r'<td class="num within"><span title="within">1\.00 \(1\.05\)', text)
    assert re.search(r'<td class="num outside"><span title="outside">2\.00 \(4\.00\)', text)
    assert "no reason recorded" in text and "a note on the set-up" in text
    assert "[1] not in the paper" in text
    assert 'src="data:image/png;base64,' in text
    assert_self_contained(page)
    # The kept run: goodput per interval, channels, window, RTT, queue.
    assert_every_plot_drew(render(page), 5)


def test_reproduce_no_report_writes_no_html(tmp_path):
    ok(run_cli("reproduce", "dabbous-minbuf", "--out", tmp_path, "--no-report", "--quiet"))
    assert (tmp_path / "reproduction.json").is_file()
    assert not (tmp_path / "report.html").exists()


def test_sweep_report_shows_cases_and_confidence_intervals(tmp_path):
    db = tmp_path / "s.duckdb"
    scenario = ccsim.load(DATA / "tiny.toml").with_overrides(
        ["measure.series=[]"]
    )
    sweep = ccsim.sweep(
        scenario, {"links.bottleneck.rate": ["1Mbps", "2Mbps"]}, seeds=3, db=db, jobs=1
    )
    # A directory holding one database gets DIR/report.html; the file itself, s.html.
    assert ok(run_cli("report", tmp_path)).split()[-1] == str(tmp_path / "report.html")
    page = Path(ok(run_cli("report", db)).split()[-1])
    assert page == tmp_path / "s.html"
    assert_self_contained(page)
    text = page.read_text()
    assert text.count("<td>done</td>") == 6  # the six cases
    # The mean and CI of reno1's goodput at 1 Mbps, computed here from the flows table.
    flows = sweep.flows
    values = flows[(flows["name"] == "reno1") & (flows["links.bottleneck.rate_Mbps"] == 1)]
    values = values["goodput_bps"].astype(float)
    assert len(values) == 3
    mean = values.mean()
    half = 4.302652729911275 * values.std() / 3**0.5  # t(0.975, 2) = 4.3027
    assert f"{mean:.4g}" in text and f"{half:.4g}" in text
    expected = text.count('<div class="plot"')
    assert expected >= 5
    assert_every_plot_drew(render(page), expected)


def test_thinning_keeps_the_extremes_of_each_bucket():
    page = report.Page(max_points=4)
    t = [0, 1, 2, 3, 4, 5, 6, 7]
    v = [5, 9, 1, 4, 7, 7, 0, 3]
    # Two buckets of four points: min 1 (t=2) and max 9 (t=1); min 0 (t=6), max 7 (t=4).
    assert page.thin(t, v) == ([1.0, 2.0, 4.0, 6.0], [9.0, 1.0, 7.0, 0.0], True)
    assert page.thin(t[:4], v[:4]) == (t[:4], v[:4], False)
    # Ten points in buckets of five; a NaN never counts as an extreme.
    v = [3, float("nan"), 8, 1, 2, 6, 6, 0, 9, float("nan")]
    assert page.thin(list(range(10)), v) == ([2.0, 3.0, 7.0, 8.0], [8.0, 1.0, 0.0, 9.0], True)


def test_report_is_a_command():
    assert "report" in ok(run_cli("--help"))
    text = ok(run_cli("report", "--help"))
    assert "--out" in text and "--max-points" in text
    assert "--no-report" in ok(run_cli("reproduce", "--help"))


def test_report_of_results_from_a_newer_schema_names_the_file(run_dir, tmp_path):
    doc = json.loads((run_dir / "summary.json").read_text())
    assert doc["schema_version"] == 1
    doc["schema_version"] = 99
    (tmp_path / "summary.json").write_text(json.dumps(doc))
    result = run_cli("report", tmp_path)
    assert result.returncode == 2, result.stderr
    assert str(tmp_path / "summary.json") in result.stderr
    assert "schema_version 99" in result.stderr


def test_report_errors_name_the_path_and_the_fix(tmp_path):
    result = run_cli("report", tmp_path)
    assert result.returncode == 2
    assert "summary.json" in result.stderr and str(tmp_path) in result.stderr
    result = run_cli("report", tmp_path / "nope")
    assert result.returncode == 2 and "no such file or directory" in result.stderr
    (tmp_path / "a.duckdb").write_text("not a database")
    result = run_cli("report", tmp_path / "a.duckdb")
    assert result.returncode == 2 and "a.duckdb" in result.stderr
    result = run_cli("report", tmp_path / "a.duckdb", "--out", tmp_path)
    assert result.returncode == 2 and "is a directory" in result.stderr
    result = run_cli("report", tmp_path, "--max-points", "2")
    assert result.returncode == 2 and "--max-points" in result.stderr

"""Flow completion times where people read them: `ccsim run --out` (fct.csv,
fct_summary.csv, plots/fct_cdf.png, plots/slowdown.png), the HTML report, and sweeps
(``SweepResults.fct_summary``: percentiles per case, mean and Student t interval across
seeds), against numbers computed by hand."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import ccsim
import pytest
from ccsim import output, plots, report
from conftest import DATA, run_cli
from test_fct import line

# The three flows of `three_and_one`, each alone on the 8 Mbps line (1000-byte packets,
# 1 ms each; window 1000 covers them): n packets leave back to back, the last arrives
# at n + 10 ms and its ack at n + 10 + 0.04 + 10 ms. 10, 20 and 50 packets:
FCTS = [0.03004, 0.04004, 0.07004]
# numpy's default (linear) quantile of three sorted values x0 < x1 < x2 at q sits at
# rank 2q: p50 = x1 = 40.04 ms; p95 at rank 1.9 = x1 + 0.9 (x2 - x1) = 40.04 + 27 =
# 67.04 ms; p99 at rank 1.98 = 40.04 + 0.98 * 30 = 69.44 ms; mean = 140.12 / 3 ms.
FCT_P50, FCT_P95, FCT_P99 = 0.04004, 0.06704, 0.06944
FCT_MEAN = 0.14012 / 3


def three_and_one() -> ccsim.Scenario:
    """Three flows (10, 20, 50 kB) alone in turn, then a 5 MB flow from 1.5 s that
    cannot finish in the 2 s run (5000 packets need 5 s)."""
    window = {"cc": "generic", "params": {"window": 1000}}
    return line(
        {"name": "a", "size": "10kB", **window},
        {"name": "b", "size": "20kB", "start": "0.5s", **window},
        {"name": "c", "size": "50kB", "start": "1s", **window},
        {"name": "big", "size": "5MB", "start": "1.5s", **window},
    ).build()


def rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """`ccsim run three_and_one.toml --out DIR` through the CLI."""
    tmp = tmp_path_factory.mktemp("fct")
    scenario = tmp / "three_and_one.toml"
    scenario.write_text(three_and_one().to_toml(), encoding="utf-8")
    result = run_cli("run", scenario, "--out", tmp / "out", "--quiet")
    assert result.returncode == 0, result.stderr
    return tmp / "out"


def test_out_writes_the_fct_tables_with_hand_computed_percentiles(run_dir):
    fct = rows(run_dir / "fct.csv")
    assert [r["name"] for r in fct] == ["a", "b", "c", "big"]
    assert list(fct[0]) == ["name", "from", "to", "size_bytes", "completed", "fct_s",
                            "ideal_fct_s", "slowdown"]  # fmt: skip
    for r, expected in zip(fct, FCTS, strict=False):
        assert float(r["fct_s"]) == pytest.approx(expected, abs=1e-9)
        assert float(r["slowdown"]) == pytest.approx(1.0, abs=1e-9)
    # The 5 MB flow is listed, not completed, without an FCT.
    assert (fct[3]["completed"], fct[3]["fct_s"], fct[3]["size_bytes"]) == ("False", "", "5000000")

    summary = rows(run_dir / "fct_summary.csv")
    assert [r["bucket"] for r in summary] == ["0B-100kB", "100kB-1MB", "1MB-10MB", "10MB+"]
    small, _, large, _ = summary
    assert (small["flows"], small["completed"]) == ("3", "3")
    assert float(small["fct_p50"]) == pytest.approx(FCT_P50, abs=1e-9)
    assert float(small["fct_p95"]) == pytest.approx(FCT_P95, abs=1e-9)
    assert float(small["fct_p99"]) == pytest.approx(FCT_P99, abs=1e-9)
    assert float(small["fct_mean"]) == pytest.approx(FCT_MEAN, abs=1e-9)
    assert float(small["slowdown_p99"]) == pytest.approx(1.0, abs=1e-9)
    # Counted, never dropped: one flow in 1-10 MB, none completed, no percentiles.
    assert (large["flows"], large["completed"], large["fct_p50"]) == ("1", "0", "")
    assert (run_dir / "plots" / "fct_cdf.png").stat().st_size > 0
    assert (run_dir / "plots" / "slowdown.png").stat().st_size > 0


def test_out_without_finite_flows_writes_no_fct_files(tmp_path):
    result = run_cli("run", DATA / "minimal.toml", "--out", tmp_path, "--quiet")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "flows.csv").is_file()
    assert not list(tmp_path.glob("fct*")) and not list(tmp_path.glob("plots/fct*"))
    assert not (tmp_path / "plots" / "slowdown.png").exists()
    page = report.write_report(tmp_path).read_text(encoding="utf-8")
    assert "Flow completion times" not in page


@pytest.fixture
def captured(monkeypatch):
    """Every figure saved through plots.save, kept for inspection (nothing is written)."""
    figures: dict = {}

    def fake_save(fig, path):
        plots.fit_texts(fig)
        figures[Path(path).name] = fig
        return [Path(path)]

    monkeypatch.setattr(plots, "save", fake_save)
    return figures


def legend_texts(fig) -> list[str]:
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    return [t.get_text() for legend in legends for t in legend.get_texts()]


def test_figures_count_the_flows_not_completed(captured, tmp_path):
    results = ccsim.run(three_and_one())
    output.write_plots(results, tmp_path)
    cdf = captured["fct_cdf.png"]
    labels = legend_texts(cdf)
    assert labels == ["0B-100kB: 3 flows", "1MB-10MB: 1 flow, none completed",
                      "all: 4 flows, 1 not completed"]  # fmt: skip
    assert "1 of 4 flows not completed" in cdf.axes[0].get_title().replace("\n", " ")
    # The curve of the small flows climbs a third at each FCT and reaches 1; the curve
    # of all flows stops at 3/4 (the 5 MB flow never completes).
    small, _, every = cdf.axes[0].get_lines()
    assert list(small.get_ydata()) == pytest.approx([0, 1 / 3, 2 / 3, 1, 1])
    assert list(small.get_xdata())[1:4] == pytest.approx(FCTS, abs=1e-9)
    assert every.get_ydata()[-1] == pytest.approx(0.75)
    assert cdf.axes[0].get_xscale() == "log"

    slow = captured["slowdown.png"]
    labels = legend_texts(slow)
    assert "a completed flow (3)" in labels and "not completed, no slowdown (1)" in labels
    assert {"p50 of the bucket", "p95 of the bucket", "p99 of the bucket"} <= set(labels)
    ax = slow.axes[0]
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    # Every slowdown is 1 here: the dots and the three percentile lines sit at 1.
    lines = [ln for ln in ax.get_lines() if ln.get_label().endswith("of the bucket")]
    assert len(lines) == 3 and all(list(ln.get_ydata()) == pytest.approx([1, 1]) for ln in lines)


def test_report_of_a_run_with_finite_flows_has_the_fct_section(run_dir, tmp_path):
    from test_report import assert_every_plot_drew, render

    page = report.write_report(run_dir, tmp_path / "report.html")
    text = page.read_text(encoding="utf-8")
    assert "Flow completion times" in text
    assert "4 finite flows, 3 completed, 1 not completed" in text
    assert "40.04 ms" in text and "69.44 ms" in text  # the p50 and p99 of the small flows
    assert "No flow completed in: 1MB-10MB (1 flow)" in text
    # The run's two plots (goodput per flow, channels) and the two FCT plots.
    assert_every_plot_drew(render(page), 4)


def sweep_scenario() -> ccsim.Scenario:
    """Three 50 kB Reno flows sharing the line, each starting at a uniform time in
    [0, 30 ms) drawn from the seed: their completion times differ from seed to seed."""
    flows = [{"name": f"f{i}", "cc": "reno", "size": "50kB", "start_jitter": "30ms"}
             for i in range(3)]  # fmt: skip
    return line(*flows).build()


# Student t's 0.975 quantile with 2 degrees of freedom (three seeds), from the tables.
T_975_2 = 4.302652729911275


def test_sweep_fct_summary_is_the_t_interval_of_the_per_seed_percentiles(tmp_path):
    scenario = sweep_scenario()
    rates = ["8Mbps", "16Mbps"]
    sweep = ccsim.sweep(scenario, {"links.a-b.rate": rates}, seeds=3, jobs=1)
    fct = sweep.fct()
    assert list(fct.columns) == ["case_id", "links.a-b.rate_Mbps", "seed", "name", "from", "to",
                                 "size_bytes", "completed", "fct_s", "ideal_fct_s",
                                 "slowdown"]  # fmt: skip
    assert len(fct) == 2 * 3 * 3
    summary = sweep.fct_summary()
    assert list(summary.columns) == ["links.a-b.rate_Mbps", "bucket", "stat", "flows", "completed",
                                     "n", "mean", "std", "ci_low", "ci_high", "half_width"]  # fmt: skip
    # 2 rates x 4 buckets x 8 statistics, in case order.
    assert len(summary) == 2 * 4 * 8
    assert list(summary["links.a-b.rate_Mbps"].drop_duplicates()) == [8, 16]
    for rate in rates:
        # The per-seed numbers, each from a run of its own.
        runs = [ccsim.run(scenario.with_overrides([f"links.a-b.rate={rate}"]), seed=s)
                for s in (1, 2, 3)]  # fmt: skip
        per_seed = [r.fct_summary().iloc[0]["slowdown_p99"] for r in runs]
        assert len(set(per_seed)) == 3, "the seeds should give different completion times"
        mean = sum(per_seed) / 3
        std = math.sqrt(sum((x - mean) ** 2 for x in per_seed) / 2)
        half = T_975_2 * std / math.sqrt(3)
        mbps = int(rate.removesuffix("Mbps"))
        row = summary[(summary["links.a-b.rate_Mbps"] == mbps) & (summary["bucket"] == "0B-100kB")
                      & (summary["stat"] == "slowdown_p99")].iloc[0]  # fmt: skip
        assert (row["flows"], row["completed"], row["n"]) == (9, 9, 3)
        assert row["mean"] == pytest.approx(mean, rel=1e-12)
        assert row["std"] == pytest.approx(std, rel=1e-9)
        assert row["half_width"] == pytest.approx(half, rel=1e-9)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((mean - half, mean + half), rel=1e-9)
        # An empty bucket: no flows, no value from any seed.
        empty = summary[(summary["links.a-b.rate_Mbps"] == mbps) & (summary["bucket"] == "10MB+")]
        assert set(empty["flows"]) == {0} and set(empty["n"]) == {0}
        assert empty["mean"].isna().all()
    # A 90% interval is narrower, by t(0.95, 2) = 2.919985580355516 over t(0.975, 2).
    narrow = sweep.fct_summary(level=0.9)
    ratio = narrow["half_width"] / summary["half_width"]
    assert ratio.dropna().to_numpy() == pytest.approx(2.919985580355516 / T_975_2, rel=1e-9)
    # Own buckets; a column to group by that is not there.
    assert set(sweep.fct_summary(buckets=[0, 1e6])["bucket"]) == {"0B-1MB"}
    with pytest.raises(KeyError, match="nope"):
        sweep.fct_summary(by=["nope"])

    # The figure: one line per bucket with flows completed, the interval as error bars.
    paths = plots.fct_sweep_plot(summary, "links.a-b.rate_Mbps", tmp_path / "p99.png")
    assert paths == [tmp_path / "p99.png"] and paths[0].stat().st_size > 0
    with pytest.raises(ValueError, match="no fct_p42"):
        plots.fct_sweep_plot(summary, "links.a-b.rate_Mbps", tmp_path / "x.png", stat="fct_p42")


def test_sweep_report_plots_the_slowdown_percentiles_across_seeds(tmp_path):
    db = tmp_path / "fct.duckdb"
    ccsim.sweep(sweep_scenario(), {"links.a-b.rate": ["8Mbps", "16Mbps"]}, seeds=2, db=db,
                jobs=1)  # fmt: skip
    page = report.write_report(db).read_text(encoding="utf-8")
    assert "Flow completion times across seeds (95% confidence intervals)" in page
    assert "p99 slowdown by links.a-b.rate_Mbps" in page and "One line per size bucket" in page
    # A sweep without finite flows has no such section.
    plain = tmp_path / "plain.duckdb"
    ccsim.sweep(DATA / "minimal.toml", {"defaults.cc": ["reno", "tahoe"]}, db=plain, jobs=1)
    assert ccsim.open_sweep(plain).fct_summary().empty
    assert "Flow completion times" not in report.write_report(plain).read_text(encoding="utf-8")

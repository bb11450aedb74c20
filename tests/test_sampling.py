"""Sampled series ([measure].sample / max_points, docs/scenario-format.md "Time series")."""

from __future__ import annotations

import json

import pytest

import ccsim
from ccsim import _ccsim

from conftest import DATA, run_cli

POINTS = ["t", "v", "min", "max"]


@pytest.fixture(scope="module")
def sampled(tiny: ccsim.Scenario) -> ccsim.Results:
    """tiny.toml with at most 40 points per series (20 s: buckets of 0.5 s)."""
    return ccsim.run(tiny.with_overrides(["measure.max_points=40"]))


def same(a, b) -> bool:
    """Frames equal value for value (NaN equal to NaN)."""
    return a.equals(b) and list(a.columns) == list(b.columns)


def test_sampling_changes_no_counter_and_bounds_every_series(tiny_results, sampled):
    for table in ("flows", "links", "nodes", "phases", "phase_links", "intervals", "interval_links"):
        assert same(getattr(sampled, table), getattr(tiny_results, table)), table
    assert sampled.raw["events"] == tiny_results.raw["events"]
    assert sampled.series_names == tiny_results.series_names
    assert sampled.series_sample_s == 0.5 and tiny_results.series_sample_s is None
    raw, few = tiny_results.series_points(), sampled.series_points()
    assert raw["r1->r2.queue"] > 1000
    for name in sampled.series_names:
        assert 0 < few[name] <= min(40, raw[name]), name


def test_a_sampled_series_has_min_and_max_around_the_last_sample_of_each_bucket(tiny_results, sampled):
    queue = sampled.series("r1->r2.queue")
    assert list(queue.columns) == POINTS
    assert (queue["min"] <= queue["v"]).all() and (queue["v"] <= queue["max"]).all()
    full = tiny_results.series("r1->r2.queue")
    # Every point is a point of the unsampled series (a bucket's last sample) ...
    pairs = set(zip(full["t"], full["v"], strict=True))
    assert all(p in pairs for p in zip(queue["t"], queue["v"], strict=True))
    # ... and the extremes of the run survive.
    assert queue["max"].max() == full["v"].max() and queue["min"].min() == full["v"].min()
    assert list(sampled.series().columns) == ["name", *POINTS]
    assert sampled.series_info("r1->r2.queue") == {
        "name": "r1->r2.queue", "entity": "r1->r2", "metric": "queue", "unit": "pkts",
        "sample_s": 0.5,
    }  # fmt: skip
    assert list(tiny_results.series("r1->r2.queue").columns) == ["t", "v"]


def test_the_json_of_sampled_series_is_the_engines_and_reads_back(tiny, sampled):
    engine = json.loads(
        _ccsim.run(tiny.text, tiny.source, ["measure.max_points=40"], out="json")
    )
    ours = dict(sampled.raw)
    for doc in (engine, ours):
        doc.pop("wall_time_s")
    assert ours == engine
    entry = sampled.raw["series"][0]
    assert list(entry) == ["name", "entity", "metric", "unit", "sample_s", *POINTS]
    again = ccsim.Results.from_json(sampled.to_json())
    assert same(again.series(), sampled.series())
    assert again.series_sample_s == 0.5
    assert again.series_info("r1->r2.queue") == sampled.series_info("r1->r2.queue")


def test_the_builder_sets_sample_or_max_points_and_the_engine_refuses_both():
    b = ccsim.Scenario.dumbbell(n_flows=1, bottleneck="10Mbps", duration="2s")
    b.measure(series=["flow1.cwnd"], sample="100ms")
    assert b.to_dict()["measure"] == {"series": ["flow1.cwnd"], "sample": "100ms"}
    assert 'sample = "100ms"' in b.to_toml()
    assert b.run().series_sample_s == 0.1
    b = ccsim.Scenario.dumbbell(n_flows=1, bottleneck="10Mbps", duration="2s")
    b.measure(series=["flow1.cwnd"], max_points=10)
    assert "max_points = 10" in b.to_toml()
    assert b.run().series_points()["flow1.cwnd"] <= 10
    b.measure(sample="10ms")
    with pytest.raises(ccsim.ScenarioError, match=r"measure\.max_points: give either sample"):
        b.check()
    with pytest.raises(TypeError, match=r"measure\.max_points: expected an int"):
        b.measure(max_points="10")
    with pytest.raises(TypeError, match=r"measure\.sample: expected a string with a unit"):
        b.measure(sample=0.01)


def test_set_samples_from_the_command_line_and_both_is_a_one_line_error():
    result = run_cli("run", DATA / "tiny.toml", "--set", "measure.max_points=5", "--json")
    assert result.returncode == 0, result.stderr
    series = json.loads(result.stdout)["series"]
    assert series and all(0 < len(s["t"]) <= 5 and s["sample_s"] == 4.0 for s in series)
    assert all(len(s["min"]) == len(s["max"]) == len(s["t"]) for s in series)
    result = run_cli(
        "run", DATA / "tiny.toml", "--set", "measure.sample=1s", "--set", "measure.max_points=5"
    )
    assert result.returncode == 2
    assert result.stderr.startswith("ccsim: error: ") and len(result.stderr.splitlines()) == 1
    assert "measure.max_points: give either sample" in result.stderr

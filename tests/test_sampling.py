"""Output in proportion: sampled series ([measure].sample / max_points, docs/scenario-format.md
"Time series"), the writers of ccsim.output (chunked, under a deadline), the size warning
and --max-wall over the output phase of `ccsim run` (docs/cli.md)."""

from __future__ import annotations

import io
import itertools
import json

import ccsim
import pytest
from ccsim import _ccsim, cli, output
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


# The writers -----------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["tiny_results", "sampled"])
def test_the_json_written_in_chunks_is_to_json_and_the_csv_is_pandas(which, request, tmp_path, monkeypatch):
    results = request.getfixturevalue(which)
    monkeypatch.setattr(output, "CHUNK", 100)  # many chunks
    for r in (results, ccsim.Results.from_json(results.to_json())):
        text = io.StringIO()
        output.write_json(r, text)
        assert text.getvalue() == r.to_json(indent=2)
        for name in r.series_names:
            output.write_series_csv(r, name, tmp_path / "ours.csv")
            r.series(name).to_csv(tmp_path / "pandas.csv", index=False)
            assert (tmp_path / "ours.csv").read_text() == (tmp_path / "pandas.csv").read_text()


def test_size_estimates_are_within_a_few_percent(tiny_results, tmp_path):
    estimate = output.estimate_sizes(tiny_results, ["json", "csv"])
    for name in tiny_results.series_names:
        alone = {"series": [next(s for s in tiny_results.raw["series"] if s["name"] == name)]}
        json_bytes = len(json.dumps(alone, indent=2))
        output.write_series_csv(tiny_results, name, tmp_path / "s.csv")
        csv_bytes = (tmp_path / "s.csv").stat().st_size
        assert estimate[name] == pytest.approx(json_bytes + csv_bytes, rel=0.05, abs=200), name


def ticking(monkeypatch, step: float = 1.0) -> None:
    """A clock for deadlines that moves ``step`` seconds each time it is read."""
    ticks = itertools.count()
    monkeypatch.setattr(output, "clock", lambda: next(ticks) * step)


def test_a_deadline_keeps_the_points_written_by_then_and_says_how_many_are_left(sampled, monkeypatch):
    monkeypatch.setattr(output, "CHUNK", 3)
    ticking(monkeypatch)
    deadline = output.Deadline(at=5.0)  # passed at the sixth look
    text = io.StringIO()
    output.write_json(sampled, text, deadline=deadline, where="here")
    doc = json.loads(text.getvalue())
    full = sampled.raw
    assert {k: v for k, v in doc.items() if k != "series"} == {
        k: v for k, v in full.items() if k != "series"
    }
    kept = [len(s["t"]) for s in doc["series"]]
    assert kept[0] == 15 and sum(kept) == 15  # five chunks of 3, in the first series
    for ours, whole in zip(doc["series"], full["series"], strict=True):
        n = len(ours["t"])
        assert all(ours[k] == whole[k][:n] for k in POINTS)
        assert ours.get("points_left_out", 0) == len(whole["t"]) - n
    first = full["series"][0]["name"]
    assert deadline.cuts["here"][0] == f"{first} 15 of {len(full['series'][0]['t'])} points written"


# The command line -------------------------------------------------------------------------


def test_output_beyond_the_threshold_is_named_and_written_anyway(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CCSIM_OUTPUT_WARN_MB", "0.1")
    assert cli.main(["run", str(DATA / "tiny.toml"), "--json", "--out", str(tmp_path / "o")]) == 0
    out, err = capsys.readouterr()
    warning = [line for line in err.splitlines() if line.startswith("ccsim: warning:")]
    assert len(warning) == 1, err
    # The queue is the largest series: named first, with its points and size.
    points = json.loads(out)["series"]
    queue = next(s for s in points if s["name"] == "r1->r2.queue")
    assert f"r1->r2.queue {len(queue['t']):,} points, " in warning[0]
    assert "(JSON on stdout, summary.json, series/*.csv)" in warning[0]
    assert "--set measure.max_points=" in warning[0]
    # Everything is written whole.
    assert all("points_left_out" not in s for s in points)
    assert (tmp_path / "o" / "series" / "r1-to-r2.queue.csv").exists()
    # Below the threshold, or sampled to fit, no warning.
    monkeypatch.setenv("CCSIM_OUTPUT_WARN_MB", "100")
    assert cli.main(["run", str(DATA / "tiny.toml"), "--json"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_a_warning_threshold_that_is_no_number_is_an_error(monkeypatch, capsys):
    monkeypatch.setenv("CCSIM_OUTPUT_WARN_MB", "lots")
    assert cli.main(["run", str(DATA / "tiny.toml"), "--json"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ccsim: error: CCSIM_OUTPUT_WARN_MB='lots': give a number of megabytes")


@pytest.mark.parametrize(
    ("budget", "named"),
    [(["--max-wall", "40"], "--max-wall 40 s"), (["--set", "scenario.max_wall=40s"], "[scenario].max_wall 40 s")],
)
def test_max_wall_covers_the_output_which_stops_where_it_ran_out(budget, named, tmp_path, monkeypatch, capsys):
    # Each look at the output's clock is one more second: a budget of 40 s runs out while
    # the series are written (the engine's own clock stops no run of this size).
    ticking(monkeypatch)
    monkeypatch.setattr(output, "CHUNK", 200)
    out = tmp_path / "o"
    argv = ["run", str(DATA / "tiny.toml"), *budget, "--out", str(out), "--json"]
    assert cli.main([*argv, "--quiet"]) == 0  # as any --max-wall stop
    stdout, err = capsys.readouterr()
    assert err.startswith(f"ccsim: {named} ran out while writing the output, which is incomplete: ")
    # What needs no series is whole: the counters in both JSONs, the tables, the scenario.
    doc, summary = json.loads(stdout), json.loads((out / "summary.json").read_text())
    full = ccsim.run(DATA / "tiny.toml").raw
    for d in (doc, summary):
        assert d["flows"] == full["flows"] and d["links"] == full["links"]
        assert not d["partial"]
    for name in ("flows.csv", "links.csv", "phases.csv", "intervals.csv", "scenario.toml"):
        assert (out / name).exists(), name
    # The series were cut: what was written is a prefix, and says what it left out.
    left = 0
    for d in (doc, summary):
        for ours, whole in zip(d["series"], full["series"], strict=True):
            n = len(ours["t"])
            assert ours["t"] == whole["t"][:n] and ours["v"] == whole["v"][:n]
            assert ours.get("points_left_out", 0) == len(whole["t"]) - n
            left += ours.get("points_left_out", 0)
    assert left > 0
    assert "JSON on stdout: " in err and "not drawn" in err
    drawn = {p.name for p in (out / "plots").glob("*.png")}
    assert "r1-to-r2_queue.png" not in drawn


def test_without_max_wall_the_output_is_whole(tmp_path, monkeypatch, capsys):
    ticking(monkeypatch, step=1e6)
    assert cli.main(["run", str(DATA / "tiny.toml"), "--out", str(tmp_path / "o"), "--quiet"]) == 0
    assert capsys.readouterr().err == ""
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert all("points_left_out" not in s for s in summary["series"])
    assert (tmp_path / "o" / "plots" / "r1-to-r2_queue.png").exists()

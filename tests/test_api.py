"""The Python API: load, loads, overrides, run, and the Results views."""

from __future__ import annotations

import ccsim
import pandas as pd
import pytest
from ccsim import _ccsim
from conftest import DATA, FLOW_KEYS, KESHAV, LINK_KEYS, TOP_KEYS


def test_version_is_the_native_modules():
    assert ccsim.__version__ == _ccsim.__version__
    assert ccsim.__version__


def test_scenario_error_is_a_value_error():
    assert issubclass(ccsim.ScenarioError, ValueError)
    assert ccsim.ScenarioError is _ccsim.ScenarioError


def test_load_keeps_text_source_and_no_overrides():
    scenario = ccsim.load(KESHAV)
    assert scenario.text == KESHAV.read_text()
    assert scenario.source == str(KESHAV)
    assert scenario.overrides == ()


def test_load_missing_file_names_the_path(tmp_path):
    missing = tmp_path / "nope.toml"
    with pytest.raises(ccsim.ScenarioError, match="nope.toml"):
        ccsim.load(missing)


def test_loads_validates_and_names_the_source():
    text = (DATA / "unknown_key.toml").read_text()
    with pytest.raises(ccsim.ScenarioError, match="my-source"):
        ccsim.loads(text, source="my-source")


def test_set_returns_a_new_scenario():
    base = ccsim.load(KESHAV)
    changed = base.set("defaults.qdisc", "fq").set("defaults.cc", "generic")
    assert base.overrides == ()
    assert changed.overrides == ("defaults.qdisc=fq", "defaults.cc=generic")
    assert changed.text == base.text


@pytest.mark.parametrize(
    ("value", "text"),
    [(True, "true"), (3, "3"), (2.5, "2.5"), ("fq", "fq"), (["a", "b"], '["a", "b"]')],
)
def test_set_formats_values_like_the_command_line(value, text):
    assert ccsim.load(KESHAV).set("k", value).overrides == (f"k={text}",)


def test_check_returns_a_dict_and_applies_overrides():
    base = ccsim.load(DATA / "minimal.toml")
    normalized = base.set("scenario.duration", "3s").check()
    assert isinstance(normalized, dict)
    assert normalized != base.check()
    assert normalized["scenario"]["duration"] == "3s"


def test_set_of_an_unknown_key_fails_when_checked():
    scenario = ccsim.load(KESHAV).set("defaults.no_such_key", 1)
    with pytest.raises(ccsim.ScenarioError, match="no_such_key"):
        scenario.check()


def test_with_overrides_rejects_a_missing_equals_sign():
    with pytest.raises(ccsim.ScenarioError, match="KEY=VALUE"):
        ccsim.load(KESHAV).with_overrides(["defaults.cc"])


def test_run_accepts_a_path(tiny_results):
    assert ccsim.run(DATA / "tiny.toml").raw["flows"] == tiny_results.raw["flows"]


def test_results_json_has_the_documented_top_level_keys(tiny_results):
    assert TOP_KEYS <= set(tiny_results.raw)
    assert tiny_results.scenario == "tiny"
    assert tiny_results.seed == 7
    assert tiny_results.sim_time_s == pytest.approx(20.0)
    assert tiny_results.events > 0
    assert tiny_results.wall_time_s > 0


def test_results_carry_the_schema_version_python_reads(tiny_results):
    assert tiny_results.raw["schema_version"] == ccsim.results.SCHEMA_VERSION == 1
    assert list(tiny_results.raw)[0] == "schema_version"
    assert tiny_results.schema_version == 1
    again = ccsim.Results.from_json(tiny_results.to_json())
    assert again.schema_version == 1 and again.seed == tiny_results.seed
    # JSON written before the version was recorded reads as version 1.
    old = {k: v for k, v in tiny_results.raw.items() if k != "schema_version"}
    assert ccsim.Results(old).schema_version == 1
    with pytest.raises(ValueError, match="schema_version 2; this ccsim reads version 1"):
        ccsim.Results({**tiny_results.raw, "schema_version": 2})


def test_seed_argument_overrides_the_file(tiny):
    assert ccsim.run(tiny, seed=11).seed == 11


def test_negative_seed_is_a_scenario_error(tiny):
    with pytest.raises(ccsim.ScenarioError, match="seed"):
        ccsim.run(tiny, seed=-1)


def test_flows_frame_has_one_row_per_flow_and_the_json_keys(tiny_results):
    flows = tiny_results.flows
    assert isinstance(flows, pd.DataFrame)
    assert list(flows["name"]) == ["reno1", "tahoe1", "gen1", "cbr1", "poisson1"]
    assert list(flows.columns) == list(tiny_results.raw["flows"][0])
    assert FLOW_KEYS <= set(flows.columns)
    assert list(flows["kind"]) == ["window", "window", "window", "cbr", "poisson"]


def test_links_frame_has_two_channels_per_link(tiny_results):
    links = tiny_results.links
    raw = tiny_results.raw["links"][0]
    flat = [
        f"{k}.{kk}" if isinstance(v, dict) else k
        for k, v in raw.items()
        for kk in (v if isinstance(v, dict) else [None])
    ]
    assert list(links.columns) == flat
    assert "drops_by_reason.overflow" in links.columns
    assert LINK_KEYS <= set(links.columns)
    assert len(links) == 2 * 5
    assert {"r1->r2", "r2->r1"} <= set(links["name"])


def test_phases_frame_is_long_with_period_columns_first(tiny_results):
    phases = tiny_results.phases
    assert list(phases.columns[:4]) == ["phase", "start_s", "end_s", "name"]
    assert len(phases) == 2 * 5
    first = phases[phases["phase"] == "first"]
    assert set(first["start_s"]) == {0.0} and set(first["end_s"]) == {10.0}
    for key in ("goodput_pps", "loss_pps", "retransmission_pps"):
        assert key in phases.columns


def test_phase_links_frame_has_channel_counters(tiny_results):
    phase_links = tiny_results.phase_links
    assert list(phase_links.columns[:4]) == ["phase", "start_s", "end_s", "name"]
    assert len(phase_links) == 2 * 10
    assert {"tx_pkts", "drops", "utilization"} <= set(phase_links.columns)


def test_intervals_are_named_by_index(tiny_results):
    intervals = tiny_results.intervals
    assert list(dict.fromkeys(intervals["phase"])) == ["0", "1", "2", "3"]
    assert sorted(set(intervals["end_s"])) == [5.0, 10.0, 15.0, 20.0]


def test_series_by_name_is_t_and_v(tiny_results):
    cwnd = tiny_results.series("reno1.cwnd")
    assert list(cwnd.columns) == ["t", "v"]
    assert len(cwnd) > 1
    assert cwnd["t"].is_monotonic_increasing
    assert (cwnd["t"] >= 0).all() and (cwnd["t"] <= 20).all()
    assert (cwnd["v"] >= 1).all()


def test_series_without_name_is_long_and_holds_every_series(tiny_results):
    everything = tiny_results.series()
    assert list(everything.columns) == ["name", "t", "v"]
    assert list(dict.fromkeys(everything["name"])) == tiny_results.series_names
    assert sorted(tiny_results.series_names) == sorted(
        ["reno1.cwnd", "reno1.outstanding", "reno1.ssthresh", "reno1.rtt", "r1->r2.queue"]
    )
    one = everything[everything["name"] == "r1->r2.queue"]
    assert list(one["v"]) == list(tiny_results.series("r1->r2.queue")["v"])


def test_series_metadata_names_entity_and_metric(tiny_results):
    info = tiny_results.series_info("r1->r2.queue")
    assert (info["entity"], info["metric"]) == ("r1->r2", "queue")


def test_unknown_series_is_a_key_error_listing_the_known_ones(tiny_results):
    with pytest.raises(KeyError, match="reno1.cwnd"):
        tiny_results.series("nope.cwnd")


def test_to_json_round_trips(tiny_results):
    again = ccsim.Results.from_json(tiny_results.to_json())
    assert again.raw == tiny_results.raw


def test_check_returns_the_file_schema_which_runs_again_as_a_dict():
    scenario = ccsim.load(DATA / "tiny.toml").set("defaults.cc", "reno")
    doc = scenario.check()
    # The schema of the file: names, not indices; quantities with units.
    assert doc["scenario"]["duration"] == "20s"
    bottleneck = next(link for link in doc["links"] if link["name"] == "bottleneck")
    assert bottleneck["between"] == ["r1", "r2"] and bottleneck["rate"] == "1Mbps"
    reno = next(f for f in doc["flows"] if f["kind"] == "window")
    assert reno["cc"] == "reno" and reno["params"]["min_rto"] == "1s"
    assert reno["path"][0] == reno["from"] and reno["path"][-1] == reno["to"]
    # Run from the dict: the same results as from the file with its overrides.
    a = ccsim.run(scenario)
    b = ccsim.run(doc)
    assert a.raw["flows"] == b.raw["flows"]
    # And it round-trips through TOML text.
    assert ccsim.loads(scenario.to_toml()).check() == doc


def test_a_dict_scenario_takes_overrides_and_reports_errors_by_field():
    doc = ccsim.load(DATA / "tiny.toml").check()
    doc["flows"][0]["cc"] = "vegass"
    with pytest.raises(ccsim.ScenarioError, match="unknown congestion control 'vegass'"):
        ccsim.run(doc)
    doc["flows"][0]["cc"] = "tahoe"
    doc["flows"][0]["stop"] = None  # None means "leave it out"
    assert ccsim.run(doc).flows.shape[0] == len(doc["flows"])
    r = ccsim.Scenario.from_dict(doc).set("defaults.qdisc", "fq")
    assert r.check()["links"][0]["qdisc"] == "fcfs", "explicit link values win over defaults"
    with pytest.raises(ccsim.ScenarioError, match="expected a dict"):
        ccsim.Scenario.from_dict(["not", "a", "dict"])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (float("nan"), "nan is not a number a scenario can hold"),
        (float("-inf"), "-inf is not a number"),
        (2**63, "9223372036854775808 is too large"),
    ],
)
def test_a_dict_with_a_number_json_cannot_carry_is_an_error_naming_the_field(value, words):
    # These used to reach the engine's JSON parser and come back as "not a scenario in
    # JSON: expected value at line 1 column 43", naming neither the field nor the value.
    doc = ccsim.load(DATA / "tiny.toml").check()
    doc["flows"][0]["params"]["rto_k"] = value
    name = doc["flows"][0]["name"]
    with pytest.raises(ccsim.ScenarioError) as info:
        ccsim.run(doc)
    assert str(info.value).startswith(f"<dict>: flows.{name}.params.rto_k: {words}"), info.value


def test_bench_of_an_unbounded_time_is_an_error_not_a_run_of_hours():
    # 1e300 s saturated to about 213 days of simulated time (the CLI's --time was bounded
    # by the unit parser, the native function was not).
    with pytest.raises(ccsim.ScenarioError, match="bench: time: 1e300 s is too large"):
        _ccsim.bench(1, 1_000_000, 1e300)


def test_write_results_takes_a_string(tiny_results, tmp_path, monkeypatch):
    """``output.write_results`` as the README calls it: the directory as a string,
    relative to the working directory (created), not only as a ``Path``."""
    from pathlib import Path

    from ccsim import output

    monkeypatch.chdir(tmp_path)
    written = output.write_results(tiny_results, "out/run1")
    names = {p.relative_to("out/run1").as_posix() for p in written}
    assert {"summary.json", "flows.csv", "links.csv", "plots/throughput.png"} <= names
    assert all(isinstance(p, Path) and (tmp_path / p).is_file() for p in written)

"""What a new user meets first: per-flow options in the builders, unit
errors naming the builder's argument, ``Scenario.set`` with a table, ``ccsim list
--scenarios``, "did you mean" on the command line, readable exact units in ``to_toml()``
and ``ccsim.Interrupted`` documented."""

from __future__ import annotations

import tomllib

import ccsim
import pytest
from ccsim.components import flow_registry
from conftest import KESHAV, REPO, run_cli
from test_cli_errors import assert_user_error

# Per-flow options --------------------------------------------------------------------------


def test_a_dumbbell_gives_one_flow_its_own_options_by_index_or_name():
    built = ccsim.Scenario.dumbbell(
        n_flows=8, cc="reno", duration="2s",
        flow_options={5: {"cc": "cubic", "params": {"beta": 0.8}}, "flow6": {"start": "1s"}},
    )  # fmt: skip
    flows = {f["name"]: f for f in built.check()["flows"]}
    assert [flows[f"flow{i}"]["cc"] for i in range(1, 9)] == ["reno"] * 4 + ["cubic"] + ["reno"] * 3
    assert flows["flow5"]["params"]["beta"] == 0.8
    assert flows["flow6"]["start"] == "1s" and flows["flow7"]["start"] == "0s"
    # The same scenario as the override a user needed before.
    by_set = (
        ccsim.Scenario.dumbbell(n_flows=8, cc="reno", duration="2s").build()
        .set("flows.flow5.cc", "cubic").set("flows.flow5.params.beta", 0.8)
        .set("flows.flow6.start", "1s")
    )  # fmt: skip
    assert built.check() == by_set.check()


def test_a_parking_lot_gives_a_flow_its_own_options_by_name():
    built = ccsim.Scenario.parking_lot(cc="reno", flow_options={"long": {"cc": "vegas"}})
    flows = {f["name"]: f["cc"] for f in built.check()["flows"]}
    assert flows == {"long": "vegas", "cross1": "reno", "cross2": "reno", "cross3": "reno"}


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({9: {"cc": "cubic"}}, ["flow_options", "flow index 9 is not in 1..8"]),
        ({"flow09": {"cc": "cubic"}}, ["'flow09' is not a flow", "flow1, flow2"]),
        ({5: {"to": "dst1"}}, ["flow_options['flow5'].to", "the topology sets"]),
        ({5: {}, "flow5": {}}, ["'flow5' is given twice"]),
    ],
)
def test_bad_flow_options_are_refused_naming_the_key(options, words):
    with pytest.raises(ccsim.ScenarioError) as caught:
        ccsim.Scenario.dumbbell(n_flows=8, flow_options=options)
    for word in ["Scenario.dumbbell", *words]:
        assert word in str(caught.value)


def test_add_flow_lists_every_flow_kind_of_the_registry():
    doc = ccsim.ScenarioBuilder.add_flow.__doc__
    for kind in flow_registry():
        assert f'"{kind["name"]}"' in doc, kind["name"]


# Unit errors name the argument ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("builder", "kwargs", "words"),
    [
        ("dumbbell", {"bottleneck": "10 Mbit"}, ["bottleneck='10 Mbit'", 'did you mean "10Mbps"']),
        ("dumbbell", {"bottleneck": "10mbps"}, ["bottleneck='10mbps'", 'did you mean "10Mbps"']),
        ("dumbbell", {"delay": "20"}, ["delay='20'", "has no unit", '"20ms"']),
        ("dumbbell", {"delay": ["10ms", "20"]}, ["delay='20'", "has no unit"]),
        ("dumbbell", {"access_delay": "1 msec"}, ["access_delay='1 msec'", 'did you mean "1ms"']),
        ("dumbbell", {"rtt_spread": "40"}, ["rtt_spread='40'", "has no unit"]),
        ("dumbbell", {"buffer": "50"}, ["buffer='50'", '"40pkt"']),
        ("dumbbell", {"access_rate": "1Gb"}, ["access_rate='1Gb'", 'did you mean "1Gbps"']),
        ("dumbbell", {"duration": "60"}, ["duration='60'", '"60s"']),
        ("dumbbell", {"rate": "10Mbps"}, ["rate='10Mbps'", "did you mean bottleneck='10Mbps'"]),
        ("parking_lot", {"rate": "fast"}, ["rate='fast'", "is not a rate"]),
        ("parking_lot", {"bottleneck": "1Mbps"}, ["did you mean rate='1Mbps'"]),
        ("leaf_spine", {"uplink_rate": "40G"}, ["uplink_rate='40G'"]),
        ("fat_tree", {"min_rto": "10"}, ["min_rto='10'", "has no unit"]),
    ],
)
def test_a_topologys_unit_error_names_the_argument_the_value_and_the_fix(builder, kwargs, words):
    with pytest.raises(ccsim.ScenarioError) as caught:
        getattr(ccsim.Scenario, builder)(**kwargs)
    message = str(caught.value)
    assert message.startswith(f"Scenario.{builder}: "), message
    for word in words:
        assert word in message, (word, message)


# Scenario.set with a table --------------------------------------------------------------------


def test_set_takes_a_dict_as_the_command_lines_inline_table():
    scenario = ccsim.load(KESHAV)
    table = {"initial_window": 2, "min_rto": "2s"}
    by_dict = scenario.set("flows.ftp1.params", table)
    assert by_dict.overrides == ('flows.ftp1.params={ initial_window = 2, min_rto = "2s" }',)
    by_cli = scenario.with_overrides(['flows.ftp1.params={ initial_window = 2, min_rto = "2s" }'])
    assert by_dict.check() == by_cli.check()
    params = by_dict.check()["flows"][0]["params"]
    assert (params["initial_window"], params["min_rto"]) == (2, "2s")
    # Nested tables, lists of tables and keys that need quotes.
    text = ccsim._scenario._override_value({"a b": [{"x": 1}], "t": {"u": True}})
    assert text == '{ "a b" = [{ x = 1 }], t = { u = true } }'
    assert tomllib.loads(f"v = {text}")["v"] == {"a b": [{"x": 1}], "t": {"u": True}}
    with pytest.raises(TypeError, match="None is not a TOML value"):
        scenario.set("flows.ftp1.params", {"beta": None})


# ccsim list --scenarios -----------------------------------------------------------------------


def test_list_scenarios_gives_every_built_in_file_with_its_description():
    from ccsim import scenarios

    result = run_cli("list", "--scenarios")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    names = scenarios.names()
    assert [line.split()[0] for line in lines[: len(names)]] == names
    assert lines[names.index("keshav-s1")].split(None, 1)[1] == (
        "Keshav 1991, Scenario 1: long-delay bottleneck with an on/off background source"
    )
    assert lines[-1].startswith("(`ccsim run NAME` runs one")
    result = run_cli("list", "cc", "--scenarios")
    assert result.returncode == 2 and "give no WHAT or --markdown" in result.stderr


def test_a_description_falls_back_to_the_leading_comment(tmp_path):
    from ccsim import scenarios

    path = tmp_path / "x.toml"
    path.write_text('#\n# One line about it.\n# More.\n[scenario]\nname = "x"\n', encoding="utf-8")
    assert scenarios.description(path) == "One line about it."


# Did you mean -----------------------------------------------------------------------------------


def test_run_of_a_misspelt_built_in_name_suggests_the_name():
    result = run_cli("run", "keshav_s1")
    assert_user_error(result, "keshav_s1", "did you mean `ccsim run keshav-s1`?", "ccsim list --scenarios")
    assert "ccsim.scenarios" not in result.stderr
    assert_user_error(run_cli("run", "Keshav-S2"), "did you mean `ccsim run keshav-s2`?")
    assert_user_error(run_cli("run", "scenarios/keshav_s1.toml"), "did you mean scenarios/keshav-s1.toml?")
    result = run_cli("run", "nothing-like-it")
    assert_user_error(result, "no built-in scenario of that name", "ccsim list --scenarios")
    assert "did you mean" not in result.stderr
    assert_user_error(run_cli("reproduce", "Heybey"), "(did you mean 'heybey'?)")


@pytest.mark.parametrize(
    ("override", "words"),
    [
        ("defaults.cc=Reno", ["defaults.cc", "(did you mean 'reno'?)"]),
        ("defaults.cc=CUBIC", ["(did you mean 'cubic'?)"]),
        ("defaults.qdisc=FQ", ["(did you mean 'fq'?)"]),
        ("links.0.dealy=5ms", ["dealy", "(did you mean `delay`?)"]),
        ("defaults.rtt_sample=Newest", ['(did you mean "newest"?)']),
        ("flows.ftp1.kind=windw", ["(did you mean \"window\"?)"]),
        ("flows.ftp1.params.min_rot=1s", ["(did you mean 'min_rto'?)"]),
        ("flows.FTP1.cc=reno", ["(did you mean 'ftp1'?)"]),
        ("links.0.rate=10mbps", ['(did you mean "10Mbps"?)']),
    ],
)
def test_a_misspelt_name_key_or_value_gets_a_suggestion(override, words):
    assert_user_error(run_cli("run", KESHAV, "--set", override), *words)


# Readable units in to_toml() ------------------------------------------------------------------


def test_to_toml_writes_the_shortest_exact_decimal_in_the_largest_unit():
    built = ccsim.Scenario.dumbbell(n_flows=20, rtt_spread="40ms", data_size="1500B")
    text = built.to_toml()
    doc = tomllib.loads(text)
    delays = [link["delay"] for link in doc["links"] if link["name"].startswith("src")]
    # Flow 2's access link: 1 ms + 40 ms x 1/19 / 2 = 2.052631578947... ms, to the ps.
    assert delays[:3] == ["1ms", "2.052631579ms", "3.105263158ms"]
    assert not any(d.endswith("ps") for d in delays)
    assert doc["flows"][0]["data_size"] == "1.5kB"
    assert ccsim.loads(text, "again.toml").check() == built.check()


# ccsim.Interrupted is documented --------------------------------------------------------------


def test_every_public_name_is_documented_where_the_python_api_is_listed():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    python = readme[readme.index("## Python") :]
    for name in ccsim.__all__:
        if name.startswith("_"):
            continue
        assert getattr(ccsim, name).__doc__, name
        assert f"ccsim.{name}" in python or f"{name}(" in python, name
    doc = ccsim.Interrupted.__doc__
    assert "except ccsim.Interrupted" in doc and "results" in doc and "130" in doc

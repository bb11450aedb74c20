"""Building scenarios in Python (ccsim/_scenario.py): the builder writes the scenario-file
schema, the engine validates it, and a built dumbbell is the same scenario as the
equivalent file."""

from __future__ import annotations

import ccsim
import pytest
from conftest import DATA


def dumbbell() -> ccsim.ScenarioBuilder:
    return ccsim.Scenario.dumbbell(
        n_flows=3, bottleneck="10Mbps", delay="20ms", buffer="50pkt", cc="reno",
        rtt_spread="20ms", duration="5s",
    )  # fmt: skip


def comparable(results: ccsim.Results) -> dict:
    raw = dict(results.raw)
    raw.pop("wall_time_s")
    return raw


def test_a_built_dumbbell_is_the_equivalent_file():
    built = dumbbell()
    from_file = ccsim.load(DATA / "dumbbell.toml")
    assert built.check() == from_file.check()
    ours, theirs = ccsim.run(built, seed=3), ccsim.run(from_file, seed=3)
    assert comparable(ours) == comparable(theirs)
    assert ours.flows["delivered_pkts"].min() > 0


def test_round_trip_through_toml_and_dict():
    built = dumbbell().add_phase("late", "2s", "5s").measure(interval="1s", series=["flow1.cwnd"])
    checked = built.check()
    assert ccsim.loads(built.to_toml(), "built.toml").check() == checked
    assert ccsim.Scenario.from_dict(built.to_dict()).check() == checked
    assert ccsim.Scenario.from_dict(checked).check() == checked
    # The dict is the file schema: sections and fields by their file names.
    doc = built.to_dict()
    assert list(doc) == ["scenario", "defaults", "nodes", "links", "flows", "phases", "measure"]
    assert doc["links"][0] == {
        "name": "bottleneck", "between": ["left", "right"], "rate": "10Mbps", "delay": "20ms",
        "buffer": "50pkt",
    }  # fmt: skip
    assert doc["flows"][2] == {"name": "flow3", "from": "src3", "to": "dst3"}


def test_rtt_spread_spreads_the_base_round_trips():
    results = dumbbell().run()
    rtts = [round(f["rtt_min_s"] * 1000) for f in results.raw["flows"]]
    assert rtts == [45, 55, 65]  # 44, 54, 64 ms of propagation plus transmission times


def test_parking_lot_has_one_long_flow_across_every_hop():
    built = ccsim.Scenario.parking_lot(n_hops=3, rate="10Mbps", cc="reno", duration="5s")
    checked = built.check()
    paths = {f["name"]: f["path"] for f in checked["flows"]}
    assert paths["long"] == ["long-src", "r0", "r1", "r2", "r3", "long-dst"]
    assert paths["cross2"] == ["cross2-src", "r1", "r2", "cross2-dst"]
    assert [link["name"] for link in checked["links"][:3]] == ["hop1", "hop2", "hop3"]
    results = built.run()
    flows = {f["name"]: f for f in results.raw["flows"]}
    # The long flow crosses three bottlenecks and gets less than any cross flow.
    assert all(flows["long"]["goodput_bps"] < flows[f"cross{i}"]["goodput_bps"] for i in (1, 2, 3))


def test_general_builder_with_every_section():
    b = (
        ccsim.Scenario.builder("mine", duration="10s", description="by hand", seed=5)
        .defaults(cc="vegas", buffer="30pkt")
        .add_host("a").add_host("bg").add_host("z")
        .add_router("r", processing_delay="1ms", processing_jitter="100us")
        .add_link("a", "r", rate="100Mbps", delay="1ms")
        .add_link("bg", "r", rate="100Mbps")
        .add_link("r", "z", rate=["10Mbps", "1Mbps"], delay="10ms", name="bottleneck",
                  qdisc={"kind": "red", "min_th": "5pkt", "max_th": "15pkt"})
        .add_flow("f", "a", "z", params={"alpha": 2, "beta": 4}, start="1s")
        .add_flow("cbr", "bg", "z", kind="cbr", rate="2Mbps", on=[["2s", "4s"]])
        .add_phase("on", "2s", "4s")
        .add_element("random_loss", "bottleneck", p=0.001)
        .add_change("6s", link="bottleneck", delay="20ms")
        .measure(interval="2s", series=["f.cwnd", "r->z.queue"], delays=["f"])
    )  # fmt: skip
    checked = b.check()
    assert checked["scenario"]["seed"] == 5
    assert checked["nodes"]["processing_delay"] == {"r": "1ms"}
    assert checked["flows"][0]["cc"] == "vegas" and checked["flows"][0]["params"]["beta"] == 4
    assert checked["changes"] == [{"at": "6s", "link": "bottleneck", "delay": "20ms"}]
    results = ccsim.run(b)
    assert results.phase("on")["flows"][1]["delivered_pkts"] > 0
    assert {"f.cwnd", "r->z.queue"} <= set(results.series_names)


def test_engine_errors_name_the_field():
    b = ccsim.Scenario.builder("bad", "1s").add_host("a").add_host("b")
    b.add_link("a", "b", rate="fast").add_flow("f", "a", "b")
    with pytest.raises(ccsim.ScenarioError, match=r"^<builder bad>: links\.a-b\.rate: 'fast'"):
        b.check()
    b = ccsim.Scenario.builder("bad", "1s").add_host("a").add_host("b")
    b.add_link("a", "b", rate="1Mbps").add_flow("f", "a", "nowhere")
    with pytest.raises(ccsim.ScenarioError, match=r"flows\.f\.to: unknown node 'nowhere'"):
        ccsim.run(b)


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda b: b.add_link("a", "b", rate=10e6), "links.rate: expected a string with a unit"),
        (lambda b: b.add_host(3), "nodes: expected a name"),
        (lambda b: b.add_phase("p", 0, "1s"), "phases.start"),
        (lambda b: b.add_flow("f", "a", "b", start=object()), "flows.start"),
        (lambda b: b.measure(series="f.cwnd"), "measure.series: expected a list"),
    ],
)
def test_argument_types_are_checked(call, words):
    with pytest.raises(TypeError, match=words.replace(".", r"\.")):
        call(ccsim.Scenario.builder("t", "1s"))


def test_builders_do_not_share_state():
    b = dumbbell()
    doc = b.to_dict()
    doc["flows"].clear()
    assert len(b.to_dict()["flows"]) == 3


def test_conversations_are_set_exported_and_checked():
    # Fair Queueing classes by flow unless the scenario says host_pair.
    built = dumbbell()
    assert "conversations" not in built.check()["scenario"]
    pair = ccsim.Scenario.builder("t", "1s", conversations="host_pair")
    pair.add_host("a").add_host("b").add_link("a", "b", rate="1Mbps").add_flow("f", "a", "b")
    checked = pair.check()
    assert checked["scenario"]["conversations"] == "host_pair"
    assert ccsim.loads(pair.to_toml(), "built.toml").check() == checked
    assert ccsim.Scenario.from_dict(built.to_dict()).set(
        "scenario.conversations", "host_pair"
    ).check()["scenario"]["conversations"] == "host_pair"
    bad = ccsim.Scenario.from_dict(built.to_dict()).set("scenario.conversations", "pair")
    with pytest.raises(ccsim.ScenarioError, match=r"scenario\.conversations: unknown value 'pair'"):
        bad.check()
    with pytest.raises(TypeError, match=r"scenario\.conversations"):
        ccsim.Scenario.builder("t", "1s", conversations=1)

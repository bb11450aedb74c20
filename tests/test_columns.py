"""Results cross the binding as columns; JSON stays the export.

The JSON dict rebuilt from the columns (``Results.raw``) must equal the engine's own JSON
export (``_ccsim.run(..., out="json")``): the same keys, in the same order, and the same
values, for scenarios with phases, intervals, series, elements, rate changes, window
times and delay statistics. The DataFrames built from the columns must hold what the
DataFrames built from that JSON hold.
"""

from __future__ import annotations

import json
import math
import pickle
from pathlib import Path
from typing import Any

import ccsim
import numpy as np
import pandas as pd
import pytest
from ccsim import _ccsim
from ccsim.results import Results

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data"
SCENARIOS = REPO / "scenarios"

FILES = [
    DATA / "tiny.toml",  # phases, intervals, series, flows of every kind
    SCENARIOS / "keshav-s1.toml",  # phases, Fair Queueing
    SCENARIOS / "dabbous-route.toml",  # intervals, a scheduled route change
    SCENARIOS / "leith-100ms.toml",  # window times and delay statistics of 80 flows
    SCENARIOS / "heybey-pair.toml",  # elements
    SCENARIOS / "welzl-cadpc.toml",  # smart-link elements
]


def _everything() -> ccsim.Scenario:
    """tiny.toml plus a rate change, elements of every counting kind (capture included),
    delay statistics and window times."""
    doc = ccsim.load(DATA / "tiny.toml").check()
    doc["changes"] = [{"at": "7s", "link": "bottleneck", "rate": "500kbps"}]
    doc["elements"] = [
        {"kind": "counter", "at": "r1->r2"},
        {"kind": "flow_stats", "at": "r1->r2"},
        {"kind": "random_loss", "at": "r2->b", "p": 0.01},
        {"kind": "capture", "at": "a1->r1", "max_packets": 50},
    ]
    doc["measure"]["delays"] = ["reno1", "cbr1"]
    doc["measure"]["windows"] = ["reno1", "tahoe1"]
    return ccsim.Scenario.from_dict(doc, "everything.toml")


def _both(scenario: ccsim.Scenario, **kw: Any) -> tuple[str, dict[str, Any]]:
    args = (scenario.text, scenario.source, list(scenario.overrides), None, scenario.fmt)
    text = _ccsim.run(*args, out="json", **kw)
    columns = _ccsim.run(*args, **kw)
    return text, columns


def _same_json(text: str, columns: dict[str, Any]) -> Results:
    engine = json.loads(text)
    results = Results.from_columns(columns)
    rebuilt = results.raw
    # Two runs: only the wall time may differ.
    rebuilt = {**rebuilt, "wall_time_s": engine["wall_time_s"]}
    # Same keys in the same order and the same values (floats bit for bit: json.dumps
    # writes the shortest repr, so equal text means equal doubles).
    assert json.dumps(rebuilt) == json.dumps(engine)
    again = json.loads(results.to_json())
    assert json.dumps({**again, "wall_time_s": engine["wall_time_s"]}) == json.dumps(engine)
    return results


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_json_rebuilt_from_the_columns_is_the_engines_json(path: Path) -> None:
    text, columns = _both(ccsim.load(path))
    _same_json(text, columns)


def test_everything_scenario_covers_every_kind_of_column() -> None:
    text, columns = _both(_everything())
    results = _same_json(text, columns)
    raw = json.loads(text)
    assert raw["phases"] and raw["intervals"] and raw["series"]
    kinds = {e["kind"] for link in raw["links"] for e in link["elements"]}
    assert kinds == {"counter", "flow_stats", "random_loss", "capture"}
    assert [h["rate_bps"] for h in results.link("r1->r2")["rate_history"]] == [500_000]
    flows = {f["name"]: f for f in raw["flows"]}
    assert flows["reno1"]["owd_p95_s"] is not None and flows["gen1"]["owd_p95_s"] is None
    assert isinstance(flows["tahoe1"]["window_time_s"], list)
    assert flows["cbr1"]["window_time_s"] is None and flows["cbr1"]["cc"] is None
    # A channel sized in packets has no byte limit: a null integer.
    assert raw["links"][0]["buffer_bytes"] is None


def test_a_partial_run_keeps_its_stop_reason() -> None:
    text, columns = _both(ccsim.load(DATA / "tiny.toml"), max_events=5000)
    results = _same_json(text, columns)
    assert results.partial and results.stop_reason == "max_events"


def _frames_equal(a: pd.DataFrame, b: pd.DataFrame) -> None:
    assert list(a.columns) == list(b.columns)
    assert len(a) == len(b)
    for col in a.columns:
        for x, y in zip(a[col].tolist(), b[col].tolist(), strict=True):
            if isinstance(x, float) and math.isnan(x):
                assert y is None or (isinstance(y, float) and math.isnan(y)), col
            elif x is None or (isinstance(x, float) and math.isnan(x)):
                assert y is None or (isinstance(y, float) and math.isnan(y)), col
            else:
                assert x == y, (col, x, y)


def test_frames_from_the_columns_hold_what_frames_from_the_json_hold() -> None:
    text, columns = _both(_everything())
    cols = Results.from_columns(columns)
    js = Results.from_json(text)
    for table in ("flows", "links", "nodes", "phases", "phase_links", "intervals", "interval_links"):
        _frames_equal(getattr(cols, table), getattr(js, table))
    _frames_equal(cols.series(), js.series())
    _frames_equal(cols.series("reno1.cwnd"), js.series("reno1.cwnd"))
    assert cols.series_names == js.series_names
    assert cols.series_info("r1->r2.queue") == js.series_info("r1->r2.queue")
    assert cols.flow("reno1") == js.flow("reno1")
    assert cols.link("a1->r1") == js.link("a1->r1")
    assert (cols.n_flows, cols.n_links) == (5, 10)


def test_frame_dtypes_are_numeric_and_strings_are_objects_or_str() -> None:
    r = ccsim.run(DATA / "tiny.toml")
    flows, links = r.flows, r.links
    assert flows["sent_pkts"].dtype == np.int64
    assert flows["goodput_bps"].dtype == np.float64
    assert flows["rtt_min_s"].dtype == np.float64 and flows["rtt_min_s"].isna().sum() == 2
    assert list(flows["cc"].isna()) == [False, False, False, True, True]
    # buffer_pkts is set on every channel, buffer_bytes on none.
    assert links["buffer_pkts"].dtype == np.int64
    assert links["buffer_bytes"].isna().all()
    assert r.nodes["router"].dtype == bool


def test_frames_are_copies_the_user_may_change() -> None:
    r = ccsim.run(DATA / "tiny.toml")
    flows = r.flows
    flows.loc[0, "sent_pkts"] = -1
    assert r.flows.loc[0, "sent_pkts"] != -1
    # Numbers, strings (from a shared dictionary) and lists alike: a frame's arrays are
    # its own, not views of the columns nor of another frame.
    links = r.links
    before = r.raw["links"][0]
    links.loc[0, "utilization"] = -1.0
    links.loc[0, "from"] = "elsewhere"
    links["rate_history"].iloc[0].append([0.0, 1])
    again = r.links
    assert again.loc[0, "utilization"] == before["utilization"] != -1.0
    assert again.loc[0, "from"] == before["from"] != "elsewhere"
    assert again["rate_history"].iloc[0] == before["rate_history"] == []
    assert again["rate_history"].iloc[1] == []
    assert r.flows.loc[0, "from"] == r.raw["flows"][0]["from"]


def test_unknown_names_are_key_errors_listing_the_known_ones() -> None:
    r = ccsim.run(DATA / "tiny.toml")
    with pytest.raises(KeyError, match="reno1"):
        r.flow("nope")
    with pytest.raises(KeyError, match="r1->r2"):
        r.link("nope")
    with pytest.raises(KeyError, match="reno1.cwnd"):
        r.series_info("nope")


def test_results_pickle_as_columns_and_come_back_equal() -> None:
    r = ccsim.run(DATA / "tiny.toml")
    want = r.raw  # built, but not pickled: rebuilt on the other side
    state = r.__getstate__()
    assert state["_raw"] is None
    back = pickle.loads(pickle.dumps(r))
    assert back.raw == want
    _frames_equal(back.links, r.links)
    # The frames the tables keep to share (copy-on-write) are not pickled either.
    fresh = ccsim.run(DATA / "tiny.toml")
    size = len(pickle.dumps(fresh))
    _ = fresh.links, fresh.flows, fresh.phases
    assert len(pickle.dumps(fresh)) == size


def test_unknown_results_format_is_a_scenario_error() -> None:
    s = ccsim.load(DATA / "tiny.toml")
    with pytest.raises(ccsim.ScenarioError, match="out"):
        _ccsim.run(s.text, s.source, out="arrow")


def test_bench_hands_over_columns_and_reports_their_size() -> None:
    report, columns = _ccsim.bench(20, 10_000_000, 1.0, 1, "fcfs", True)
    figures = json.loads(report)
    r = Results.from_columns(columns)
    assert r.n_flows == 20 and r.n_links == 2 * 20 * 2 + 2
    assert figures["results_columns_bytes"] > 0 and figures["results_json_bytes"] > 0
    # The JSON it measured (written to a byte counter) is the JSON of these results.
    text = json.dumps(json.loads(r.to_json()), separators=(",", ":"))
    assert abs(len(text) - figures["results_json_bytes"]) < 0.02 * len(text)


def test_frames_have_the_dtypes_of_frames_from_the_json() -> None:
    # Names cross as codes into shared dictionaries (node, flow, link and channel names):
    # the frames still hold one str per row, as the frames built from the JSON do, and
    # every column that is not all null in the JSON has the JSON frame's dtype.
    text, columns = _both(_everything())
    cols, js = Results.from_columns(columns), Results.from_json(text)
    for table in ("flows", "links", "nodes", "phases", "phase_links", "intervals", "interval_links"):
        a, b = getattr(cols, table), getattr(js, table)
        for col in a.columns:
            if b[col].notna().any():
                assert a[col].dtype == b[col].dtype, (table, col, a[col].dtype, b[col].dtype)
    links = cols.links
    assert links["name"].tolist() == [f"{f}->{t}" for f, t in zip(links["from"], links["to"], strict=True)]
    assert all(type(x) is str for c in ("name", "link", "from", "to", "qdisc") for x in links[c])
    assert cols.flows["from"].tolist() == [f["from"] for f in json.loads(text)["flows"]]


def test_names_holding_a_nul_are_refused() -> None:
    # Names hold no control characters (a line break split every message naming them), so
    # no dictionary of names holds a NUL, the separator of a joined dictionary. (The
    # engine still sends a dictionary holding one as a list: results/columns.rs tests it.)
    doc = ccsim.load(DATA / "tiny.toml").check()
    text = json.dumps(doc).replace('"r1', '"r\\u00001')
    with pytest.raises(ccsim.ScenarioError, match=r"nodes.routers: invalid node name 'r\\01'.*control characters"):
        ccsim.Scenario.from_dict(json.loads(text), "nul.toml").check()

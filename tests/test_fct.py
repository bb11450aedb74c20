"""Finite flows through the Python API: ``Results.fct()`` and ``fct_summary()`` against
completion times computed by hand, the size's round trip through ``to_toml``, and the
errors a user meets."""

from __future__ import annotations

import math

import ccsim
import pytest


def line(*flows: dict) -> ccsim.ScenarioBuilder:
    """a -> b: 8 Mbps, 10 ms, a deep buffer. A 1000-byte packet takes 1 ms, a 40-byte
    ack 40 us: the base round trip is 1 + 10 + 0.04 + 10 = 21.04 ms."""
    b = (
        ccsim.Scenario.builder("line", duration="2s")
        .add_host("a").add_host("b")
        .add_link("a", "b", rate="8Mbps", delay="10ms", buffer="1000pkt")
    )  # fmt: skip
    for f in flows:
        f = dict(f)
        b.add_flow(f.pop("name"), "a", "b", **f)
    return b


def test_fct_of_a_window_that_covers_the_flow_is_its_ideal():
    # Generic, window 100: 10 packets leave at t = 0; the last arrives at 20 ms and its
    # ack at 30.04 ms. Ideal: 10 ms of data + 21.04 - 1 ms = 30.04 ms: slowdown 1.
    r = ccsim.run(line({"name": "f", "cc": "generic", "size": "10kB", "params": {"window": 100}}))
    fct = r.fct()
    assert list(fct.columns) == ["name", "from", "to", "size_bytes", "completed", "fct_s", "ideal_fct_s", "slowdown"]
    row = fct.iloc[0]
    assert (row["name"], row["size_bytes"], bool(row["completed"])) == ("f", 10_000, True)
    assert row["fct_s"] == pytest.approx(0.03004, abs=1e-12)
    assert row["slowdown"] == pytest.approx(1.0, abs=1e-9)


def test_summary_buckets_flows_by_size_and_leaves_empty_buckets_nan():
    # Two flows, alone in turn (the second starts at 1 s): 10 kB (30.04 ms, as above)
    # and 200 kB in 1000-byte packets, window 1000: 200 ms of data, last ack at 200 +
    # 10 + 0.04 + 10 = 220.04 ms, ideal the same. An unlimited flow is not listed.
    r = ccsim.run(line(
        {"name": "small", "cc": "generic", "size": "10kB", "params": {"window": 1000}},
        {"name": "big", "cc": "generic", "size": "200kB", "start": "1s", "params": {"window": 1000}},
        {"name": "bg", "kind": "cbr", "rate": "1kbps", "packet_size": "100B"},
    ))  # fmt: skip
    assert list(r.fct()["name"]) == ["small", "big"]
    s = r.fct_summary()
    assert list(s["bucket"]) == ["0B-100kB", "100kB-1MB", "1MB-10MB", "10MB+"]
    assert list(s["flows"]) == [1, 1, 0, 0] and list(s["completed"]) == [1, 1, 0, 0]
    assert s.loc[0, "fct_p50"] == pytest.approx(0.03004, abs=1e-9)
    assert s.loc[1, "fct_p99"] == pytest.approx(0.22004, abs=1e-9)
    assert s.loc[1, "slowdown_mean"] == pytest.approx(1.0, abs=1e-9)
    assert math.isnan(s.loc[2, "fct_p50"]) and math.isnan(s.loc[3, "slowdown_p95"])
    # Own edges: everything under 1 MB in one bucket.
    s = r.fct_summary(buckets=[0, 1e6])
    assert list(s["bucket"]) == ["0B-1MB"] and list(s["flows"]) == [2]
    assert s.loc[0, "fct_mean"] == pytest.approx((0.03004 + 0.22004) / 2, abs=1e-9)


def test_unfinished_flows_count_but_have_no_fct():
    r = ccsim.run(line({"name": "f", "cc": "reno", "size": "5MB"}))
    row = r.fct().iloc[0]
    assert not row["completed"] and math.isnan(row["fct_s"]) and row["ideal_fct_s"] > 5.0
    s = r.fct_summary()
    assert list(s["flows"]) == [0, 0, 1, 0] and list(s["completed"]) == [0, 0, 0, 0]


def test_a_run_without_finite_flows_has_an_empty_fct_table():
    r = ccsim.run(line({"name": "f", "cc": "reno"}))
    assert r.fct().empty
    assert list(r.fct_summary()["flows"]) == [0, 0, 0, 0]


def test_size_survives_to_toml_as_packets():
    s = line({"name": "f", "cc": "reno", "size": "9001B"}).build()
    assert 'size = "10pkt"' in s.to_toml()
    assert ccsim.run(ccsim.loads(s.to_toml())).fct().iloc[0]["size_bytes"] == 10_000


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"size": "100"}, ["flows.f.size", "unit"]),
        ({"size": "-5kB"}, ["flows.f.size"]),
        ({"size": "10pkt", "kind": "cbr", "rate": "1Mbps"}, ["size"]),
    ],
)
def test_bad_sizes_name_the_field(fields, words):
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(line({"name": "f", **fields}))
    for w in words:
        assert w in str(e.value), str(e.value)


def test_bad_buckets_are_refused_with_an_example():
    r = ccsim.run(line({"name": "f", "cc": "reno", "size": "10kB"}))
    with pytest.raises(ValueError, match="increasing"):
        r.fct_summary(buckets=[1e6, 0])
    with pytest.raises(ValueError, match="at least two"):
        r.fct_summary(buckets=[0])

"""Congestion control written in Python (docs/python-cc.md): a class named by import
path gets the built-in policies' events, and examples/reno.py gives bit-identical
results to the built-in reno; errors name the flow, the event and the simulated time."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import ccsim
import pandas as pd
import pytest
from ccsim import _ccsim
from conftest import KESHAV, REPO, run_cli

EXAMPLES = REPO / "examples"


@pytest.fixture(autouse=True)
def _examples_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLES))


def _same(a: ccsim.Results, b: ccsim.Results) -> None:
    """Every number of two runs equal, the cc name and the wall time aside."""
    da, db = json.loads(a.to_json()), json.loads(b.to_json())
    for d in (da, db):
        d.pop("wall_time_s", None)
        for f in d["flows"]:
            f.pop("cc", None)
    assert da == db


# The built-in reno and examples/reno.py over the paths the policy sees: Keshav's
# scenario (fast retransmits and timeouts), SACK recovery on a dumbbell (the pipe), an
# ECN-marking RED (the ECN cause), NewReno's partial acks, the bsd ssthresh rule and an
# initial window of 10.
CASES = {
    "keshav-s1": (ccsim.load(KESHAV), {}),
    "sack": (
        ccsim.Scenario.dumbbell(4, bottleneck="10Mbps", buffer="20pkt", duration="20s", sack=True, start_jitter="1s").build(),
        {},
    ),
    "ecn-red": (
        ccsim.Scenario.dumbbell(
            3, bottleneck="10Mbps", duration="20s", ecn=True,
            qdisc={"kind": "red", "min_th": "5pkt", "max_th": "15pkt", "ecn": True},
        ).build(),
        {},
    ),
    "newreno-iw10": (
        ccsim.Scenario.dumbbell(3, bottleneck="5Mbps", buffer="10pkt", duration="20s").build(),
        {"defaults.params.initial_window": 10},
    ),
    "bsd": (ccsim.load(KESHAV), {"defaults.params.ssthresh_rule": "bsd"}),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_reno_in_python_is_bit_identical_to_the_built_in(case: str) -> None:
    sc, sets = CASES[case]
    for k, v in sets.items():
        sc = sc.set(k, v)
    builtin, python = ("newreno", "reno:NewReno") if case.startswith("newreno") else ("reno", "reno:Reno")
    a = ccsim.run(sc.set("defaults.cc", builtin), seed=3)
    b = ccsim.run(sc.set("defaults.cc", python), seed=3)
    _same(a, b)
    assert set(b.flows["cc"].dropna()) == {python}
    # Something happened that the policy had to handle.
    assert a.flows["fast_retransmits"].sum() + a.flows["timeouts"].sum() + a.flows["ecn_reductions"].sum() > 0


def test_the_cwnd_series_is_the_policys_and_its_own_series_are_recorded(tmp_path: Path) -> None:
    (tmp_path / "tracked.py").write_text(
        textwrap.dedent(
            """
            from reno import Reno

            class Tracked(Reno):
                series = ("acks", "last_rtt")

                def __init__(self, flow, **kw):
                    super().__init__(flow, **kw)
                    self.acks = 0
                    self.last_rtt = 0.0

                def on_ack(self, s):
                    super().on_ack(s)
                    self.acks += 1
                    self.last_rtt = s.rtt
            """
        )
    )
    sys.modules.pop("tracked", None)
    sc = ccsim.Scenario.dumbbell(1, bottleneck="10Mbps", duration="5s").build()
    sc = sc.set("defaults.cc", "tracked:Tracked").set("measure.series", ["flow1.cwnd", "flow1.acks", "flow1.last_rtt"])
    with pytest.MonkeyPatch.context() as m:
        m.syspath_prepend(str(tmp_path))
        r = ccsim.run(sc, seed=1)
    acks = r.series("flow1.acks")["v"]
    # Counted by the policy, sampled by the recorder: rising to the acks that arrived
    # (one per delivered packet on an unloaded path) by the last sample.
    assert acks.is_monotonic_increasing
    assert 0.9 * r.flow("flow1")["acks_arrived"] <= acks.iloc[-1] <= r.flow("flow1")["acks_arrived"]
    rtt = r.series("flow1.last_rtt")["v"]
    # 0 until the first ack; then at least the base RTT, 2 x (10 ms + 2 x 1 ms) plus
    # serialisation.
    assert rtt.iloc[0] == 0 and rtt.iloc[1:].min() >= 0.024
    base = ccsim.run(sc.set("defaults.cc", "reno").set("measure.series", ["flow1.cwnd"]), seed=1)
    pd.testing.assert_frame_equal(r.series("flow1.cwnd"), base.series("flow1.cwnd"))


def _module(tmp_path: Path, body: str) -> None:
    (tmp_path / "badcc.py").write_text(textwrap.dedent(body))
    sys.modules.pop("badcc", None)


def test_an_exception_in_a_callback_names_the_flow_the_event_and_the_time(tmp_path: Path) -> None:
    _module(
        tmp_path,
        """
        from reno import Reno

        class Crashes(Reno):
            def on_congestion(self, s):
                raise ZeroDivisionError("boom at the first loss")
        """,
    )
    sc = ccsim.load(KESHAV).set("defaults.cc", "badcc:Crashes")
    with pytest.MonkeyPatch.context() as m:
        m.syspath_prepend(str(tmp_path))
        with pytest.raises(ccsim.CongestionControlError) as info:
            ccsim.run(sc, seed=1)
    msg = str(info.value)
    assert "congestion control 'badcc:Crashes' of flow 'ftp" in msg
    assert "in on_congestion at t = " in msg and "ZeroDivisionError: boom at the first loss" in msg
    # The Python exception is the cause, with its traceback into the user's file.
    cause = info.value.__cause__
    assert isinstance(cause, ZeroDivisionError)
    tb = cause.__traceback__
    files = []
    while tb is not None:
        files.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    assert any(f.endswith("badcc.py") for f in files)
    # The time is the first loss's: keshav-s1's first fast retransmit or timeout.
    t = float(msg.split("at t = ")[1].split(" s")[0])
    assert 0 < t < 300


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("class P:\n    def on_ack(self, s): pass\n", "has no on_congestion method"),
        ("P = 3\n", "is a int, not a class"),
        ("class P:\n    def on_ack(self, s): pass\n    def on_congestion(self, s): pass\n", "is built as P(flow, **params): give it def __init__(self, flow, ...)"),
        ("class P:\n    def __init__(self, flow, gain=1): pass\n    def on_ack(self, s): pass\n    def on_congestion(self, s): pass\n", "does not take these parameters"),
        ("class P:\n    series = ('a', 'b', 'c')\n    def __init__(self, flow): pass\n    def on_ack(self, s): pass\n    def on_congestion(self, s): pass\n", "declares 3 series (a, b, c); a policy may have at most 2"),
        ("class P:\n    series = ('rtt',)\n    def __init__(self, flow): pass\n    def on_ack(self, s): pass\n    def on_congestion(self, s): pass\n", "'badcc:P'.series names 'rtt', a series every window flow has; choose another name"),
        ("class P:\n    recovery = 'vegas'\n    def __init__(self, flow): pass\n    def on_ack(self, s): pass\n    def on_congestion(self, s): pass\n", "'badcc:P'.recovery is 'vegas'; use 'reno' or 'newreno'"),
    ],
)  # fmt: skip
def test_a_bad_class_is_a_scenario_error_naming_what_to_fix(tmp_path: Path, body: str, expected: str) -> None:
    _module(tmp_path, body)
    sc = ccsim.load(KESHAV).set("defaults.cc", "badcc:P").set("defaults.params.speed", 2)
    if "gain" not in body:
        sc = ccsim.load(KESHAV).set("defaults.cc", "badcc:P")
    with pytest.MonkeyPatch.context() as m:
        m.syspath_prepend(str(tmp_path))
        with pytest.raises(ccsim.ScenarioError, match="defaults.cc: ") as info:
            ccsim.run(sc, seed=1)
    assert expected in str(info.value)


def test_unknown_modules_and_classes_are_named() -> None:
    with pytest.raises(ccsim.ScenarioError, match="no module named 'nosuchmodule'"):
        ccsim.run(ccsim.load(KESHAV).set("defaults.cc", "nosuchmodule:Reno"))
    with pytest.raises(ccsim.ScenarioError, match="module 'reno' has no attribute 'Cubic'"):
        ccsim.run(ccsim.load(KESHAV).set("defaults.cc", "reno:Cubic"))


def test_ctrl_c_inside_a_policy_stops_the_run_with_its_results(tmp_path: Path) -> None:
    # Ctrl-C raises KeyboardInterrupt in whatever Python runs; with a Python policy that
    # is often its method. The run stops as for a Ctrl-C between slices.
    _module(
        tmp_path,
        """
        from reno import Reno

        class Interrupted(Reno):
            def on_ack(self, s):
                super().on_ack(s)
                if s.now > 100.0:
                    raise KeyboardInterrupt
        """,
    )
    with pytest.MonkeyPatch.context() as m:
        m.syspath_prepend(str(tmp_path))
        with pytest.raises(ccsim.Interrupted) as info:
            ccsim.run(ccsim.load(KESHAV).set("defaults.cc", "badcc:Interrupted"), seed=1)
    r = info.value.results
    assert r.partial and r.stop_reason == "interrupted"
    assert 100.0 < r.sim_time_s < 900.0


def test_bad_outputs_fail_the_run_with_the_attribute_named(tmp_path: Path) -> None:
    _module(
        tmp_path,
        """
        from reno import Reno

        class Negative(Reno):
            def on_ack(self, s):
                super().on_ack(s)
                if s.now > 5.0:
                    self.cwnd = -5
        """,
    )
    with pytest.MonkeyPatch.context() as m:
        m.syspath_prepend(str(tmp_path))
        with pytest.raises(ccsim.CongestionControlError, match=r"in on_ack at t = [5-9]\.\d+ s: cwnd should be a non-negative number, found -5"):
            ccsim.run(ccsim.load(KESHAV).set("defaults.cc", "badcc:Negative"), seed=1)


def test_parameters_reach_the_constructor_and_the_transports_stay_the_engines() -> None:
    sc = ccsim.load(KESHAV).set("defaults.cc", "reno:Reno")
    sc = sc.set("defaults.params.initial_window", 4).set("defaults.params.min_rto", "2s")
    text = sc.to_toml()
    # Exported as given: the policy's own parameter and the transport's.
    assert 'cc = "reno:Reno"' in text and "initial_window = 4" in text and 'min_rto = "2s"' in text
    builtin = sc.set("defaults.cc", "reno")
    _same(ccsim.run(sc, seed=2), ccsim.run(builtin, seed=2))


def test_the_cli_finds_the_module_next_to_the_scenario(tmp_path: Path) -> None:
    (tmp_path / "mycc.py").write_text((EXAMPLES / "reno.py").read_text())
    text = KESHAV.read_text().replace('cc = "tahoe"', 'cc = "mycc:Reno"')
    (tmp_path / "s.toml").write_text(text)
    out = tmp_path / "out"
    p = run_cli("run", tmp_path / "s.toml", "--out", out, "--quiet", cwd=REPO)
    assert p.returncode == 0, p.stderr
    flows = pd.read_csv(out / "flows.csv")
    assert set(flows["cc"].dropna()) == {"mycc:Reno"}


def test_the_cli_shows_the_policys_error_and_its_traceback(tmp_path: Path) -> None:
    (tmp_path / "mycc.py").write_text(
        "from ccsim import CongestionControl\n"
        "class Bad(CongestionControl):\n"
        "    def __init__(self, flow):\n"
        "        self.cwnd = flow.mss\n"
        "    def on_ack(self, s):\n"
        "        return 1 / 0\n"
        "    def on_congestion(self, s):\n"
        "        pass\n"
    )
    text = KESHAV.read_text().replace('cc = "tahoe"', 'cc = "mycc:Bad"')
    (tmp_path / "s.toml").write_text(text)
    p = run_cli("run", tmp_path / "s.toml", "--quiet", cwd=tmp_path)
    assert p.returncode != 0
    assert "mycc.py" in p.stderr and "return 1 / 0" in p.stderr
    assert "congestion control 'mycc:Bad' of flow 'ftp1' failed in on_ack at t = " in p.stderr


def test_a_sweep_runs_the_class_in_its_workers(tmp_path: Path) -> None:
    sc = ccsim.load(KESHAV)
    s = ccsim.sweep(sc, {"defaults.cc": ["reno", "reno:Reno"]}, seeds=[1, 2], jobs=2, progress=False)
    f = s.flows
    f = f[f["kind"] == "window"]
    cols = ["seed", "name", "sent_pkts", "delivered_pkts", "timeouts", "rtt_mean_s"]
    a = f[f["defaults.cc"] == "reno"][cols].sort_values(["seed", "name"]).reset_index(drop=True)
    b = f[f["defaults.cc"] == "reno:Reno"][cols].sort_values(["seed", "name"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)


def test_a_plain_class_with_only_a_window_will_do(tmp_path: Path) -> None:
    # No base class, no ssthresh, pacing_rate or send_quantum: a fixed window of 4
    # packets on an uncongested path.
    _module(
        tmp_path,
        """
        class Fixed:
            def __init__(self, flow):
                self.cwnd = 4 * flow.mss
            def on_ack(self, s):
                pass
            def on_congestion(self, s):
                pass
        """,
    )
    sc = ccsim.Scenario.dumbbell(1, bottleneck="10Mbps", duration="10s").build().set("defaults.cc", "badcc:Fixed")
    with pytest.MonkeyPatch.context() as m:
        m.syspath_prepend(str(tmp_path))
        r = ccsim.run(sc, seed=1)
    f = r.flow("flow1")
    # 4 packets of 1000 B per round trip: goodput = 4 x 8000 bits / RTT (the RTT
    # measured, about 26 ms: 24 ms of propagation plus serialisation).
    assert f["goodput_bps"] == pytest.approx(4 * 8000 / f["rtt_mean_s"], rel=0.02)
    assert f["fast_retransmits"] == 0 and f["timeouts"] == 0


def test_rate_samples_measure_the_bottleneck(tmp_path: Path) -> None:
    # One flow with a window of 40 packets on a 10 Mbit/s bottleneck whose round trip
    # carries about 32 (the rest waits in its queue): once the window is out, every
    # valid sample delivers at the bottleneck's rate, 10e6 / (1000 x 8) = 1250 packets
    # per second.
    _module(
        tmp_path,
        """
        class Probe:
            rate_sample = True
            series = ("bw",)

            def __init__(self, flow):
                self.cwnd = 40 * flow.mss
                self.bw = 0.0

            def on_ack(self, s):
                pass

            def on_congestion(self, s):
                pass

            def on_rate_sample(self, rs):
                if rs.rate_pps is not None and not rs.is_app_limited:
                    self.bw = rs.rate_pps
                return False
        """,
    )
    sc = ccsim.Scenario.dumbbell(1, bottleneck="10Mbps", buffer="100pkt", duration="10s").build()
    sc = sc.set("defaults.cc", "badcc:Probe").set("measure.series", ["flow1.bw"])
    with pytest.MonkeyPatch.context() as m:
        m.syspath_prepend(str(tmp_path))
        r = ccsim.run(sc, seed=1)
    # The series records changes: the last is the steady state's, and no sample ever
    # exceeds the bottleneck's rate (an interval is the longer of the send and the
    # ack phase).
    bw = r.series("flow1.bw")["v"]
    assert bw.iloc[-1] == pytest.approx(1250, rel=1e-9)
    assert bw.max() <= 1250 * (1 + 1e-9)


def test_a_rate_sampling_class_needs_the_method(tmp_path: Path) -> None:
    _module(tmp_path, "class P:\n    rate_sample = True\n    def __init__(self, flow): pass\n    def on_ack(self, s): pass\n    def on_congestion(self, s): pass\n")
    with pytest.MonkeyPatch.context() as m:
        m.syspath_prepend(str(tmp_path))
        with pytest.raises(ccsim.ScenarioError, match="sets rate_sample = True but has no on_rate_sample method"):
            ccsim.run(ccsim.load(KESHAV).set("defaults.cc", "badcc:P"))


def test_the_bench_raises_the_policys_error(tmp_path: Path) -> None:
    _module(tmp_path, "class Bad:\n    def __init__(self, flow): self.cwnd = 'x'\n    def on_ack(self, s): pass\n    def on_congestion(self, s): pass\n")
    with pytest.MonkeyPatch.context() as m:
        m.syspath_prepend(str(tmp_path))
        with pytest.raises(ccsim.CongestionControlError, match="in __init__ at t = 0.000000000 s: cwnd should be a non-negative number, found 'x'"):
            _ccsim.bench(2, 10_000_000, 1.0, 1, None, False, cc="badcc:Bad")


def test_the_bench_runs_a_python_class_and_counts_its_calls() -> None:
    raw = json.loads(_ccsim.bench(10, 10_000_000, 5.0, 1, None, False, cc="reno:Reno"))
    ref = json.loads(_ccsim.bench(10, 10_000_000, 5.0, 1, None, False, cc="reno"))
    assert raw["delivered_pkts"] == ref["delivered_pkts"] and raw["events"] == ref["events"]
    # One on_ack per new cumulative ack, plus losses and duplicate acks in recovery.
    assert 0.9 < raw["py_calls_per_pkt"] < 1.2
    assert "py_calls" not in ref


def test_the_docs_show_examples_reno_py_as_it_is() -> None:
    doc = (REPO / "docs" / "python-cc.md").read_text()
    block = doc.split("`examples/reno.py`, in full", 1)[1].split("```python\n", 1)[1].split("```\n", 1)[0]
    assert block == (EXAMPLES / "reno.py").read_text()

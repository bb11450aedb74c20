"""Property test through the Python API: any scenario text built from plausible and
broken pieces, with any ``--set`` overrides, is a ``ScenarioError`` (one line, naming the
source) or a run that completes under an event cap with packets conserved; never a
crash of the interpreter, an engine panic (``RuntimeError``) or a hang."""

from __future__ import annotations

import ccsim
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_invariants import check_conservation

GOOD = {
    "duration": ['"100ms"', '"1s"', '"3s"'],
    "rate": ['"64kbps"', '"1Mbps"', '"10Mbps"', '["1Mbps", "64kbps"]'],
    "delay": ['"0s"', '"1us"', '"5ms"', '"1s"'],
    "buffer": ['"1pkt"', '"20pkt"', '"30000B"'],
    "qdisc": ['"fcfs"', '"fq"', '"red"', '{ kind = "red", min_th = "2pkt", max_th = "4pkt", ecn = true }',
              '{ kind = "red", w_q = 1.0, min_th = "3pkt", max_th = "3pkt", ecn = true, ecn_above_max_th = true }',
              '"codel"', '{ kind = "codel", ecn = true }', '"fq_codel"', '"pie"',
              '{ kind = "random_drop", threshold = "2pkt", p = 0.3 }'],
    "cc": ["generic", "tahoe", "jk", "reno", "newreno", "vegas", "da", "pp", "packet_pair",
           "delay_aimd", "dctcp", "cubic", "bbr"],
    "option": ["", "delayed_ack = true", "ecn = true", 'rtt_sample = "newest"', 'out_of_order = "discard"',
               'max_window = "3pkt"', 'start_jitter = "50ms"', "handshake = true", "tso = true",
               'fast_retransmit = "go_back_n"', 'delayed_ack = true\nack_delay_min = "1ps"', "count = 3",
               'params = { initial_rto = "1us" }'],
    "source": ['kind = "cbr"\nrate = "1Mbps"', 'kind = "poisson"\nmean_gap = "1ms"',
               'kind = "cbr"\nrate = "1Gbps"\npacket_size = "10bit"',
               'kind = "cadpc"\nparams = { a = 1e-300, update = 1, initial_rate = "1bps" }',
               'kind = "rap"\nparams = { alpha = 1e300, beta = 1e-300, initial_rtt = "1ps" }',
               'kind = "tfrc"\nstart = "1ms"\nparams = { initial_nofeedback = "1ps", t_mbi = "1ps" }',
               'kind = "tear"\nstart = "1ms"\nparams = { initial_ssthresh = 1e300 }',
               'kind = "voice"\nstart_jitter = "1ms"\nvoice = { partner = "v", starts_active = true, initial_rate = "1000Gbps" }\n'
               '[[flows]]\nname = "v"\nfrom = "b"\nto = "c"\nkind = "voice"\nstart_jitter = "1ms"\nvoice = { partner = "s" }'],
    "element": ["", '[[elements]]\nkind = "random_loss"\nat = "r->b"\np = 0.1',
                '[[elements]]\nkind = "beacon"\nat = "r->b"\nto = "a"\nperiod = "10ms"',
                '[[elements]]\nkind = "ptp"\nat = ["r->b", "a->r", "c->r"]',
                '[[elements]]\nkind = "capture"\nat = "r-b"\nmax_packets = 1',
                '[[elements]]\nkind = "flow_stats"\nat = "r-b"',
                '[[elements]]\nkind = "smart_link"\nat = "r-b"\nalgorithm = "jaffe"\nupdate = "1us"'],
    "override": ["defaults.qdisc=fq", "defaults.cc=vegas", "scenario.duration=50ms",
                 "defaults.sack=true", "measure.delays=true", "measure.interval=10ms",
                 'changes=[{ at = "1ms", link = "r-b", rate = "1bps" }]',
                 'phases=[{ name = "p", start = "1ps", end = "50ms" }]'],
}  # fmt: skip
BAD = {
    "duration": ['"0s"', "3", '"-1s"'],
    "rate": ['"0bps"', "10", '"fast"'],
    "delay": ['"-1s"', "5"],
    "buffer": ['"0pkt"', '"4294967296pkt"', '"x"'],
    "qdisc": ['"codel"', '{ kind = "red", w_q = 0.0 }', '{ kind = "red", max_th = "1pkt" }'],
    "cc": ["westwood", "", "pp\"\nsack = true\nx = \""],
    "option": ['max_window = "200000000pkt"', 'data_size = "600000000B"', "sack = 1",
               'start_jitter = "100s"', 'ack_delay = "1ms"', "count = 0",
               'params = { initial_rto = "1ps" }'],
    "source": ['kind = "cbr"', 'kind = "voice"', 'kind = "poisson"\nmean_gap = "0s"',
               'kind = "tfrc"\nsack = true', 'kind = "cadpc"\nparams = { update = 0.5 }'],
    "element": ['[[elements]]\nkind = "beacon"\nat = "r->b"\nto = "r"\nperiod = "1s"',
                '[[elements]]\nkind = "random_loss"\nat = "r->b"\np = 2',
                '[[elements]]\nkind = "beacon"\nat = "r->b"\nto = "a"\nperiod = "1ps"'],
    "override": ["flows.w.params.initial_rto=0s", "no.such.key=1", "flows=[]", "links=7",
                 "flows.w.params.reference_window=4294967295", "measure.interval=1us",
                 "defaults.cc=westwood", "flows.w.params" + ".x" * 5000 + "=1"],
}  # fmt: skip


def piece(name: str) -> st.SearchStrategy[str]:
    # Mostly a valid piece, one time in eight a broken one, so that a good share of the
    # cases runs (with one in three, 3% of them did).
    return st.integers(0, 7).flatmap(
        lambda i: st.sampled_from(BAD[name] if i == 0 else GOOD[name])
    )


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[str, list[str]]:
    text = f"""
[scenario]
name = "fuzz"
duration = {draw(piece("duration"))}
max_events = 20000
[defaults]
max_window = "64pkt"
[nodes]
hosts = ["a", "b", "c"]
routers = ["r"]
[[links]]
between = ["a", "r"]
rate = "10Mbps"
[[links]]
between = ["c", "r"]
rate = "10Mbps"
[[links]]
between = ["r", "b"]
rate = {draw(piece("rate"))}
delay = {draw(piece("delay"))}
buffer = {draw(piece("buffer"))}
qdisc = {draw(piece("qdisc"))}
[[flows]]
name = "w"
from = "a"
to = "b"
cc = "{draw(piece("cc"))}"
{draw(piece("option"))}
[[flows]]
name = "s"
from = "c"
to = "b"
{draw(piece("source"))}
{draw(piece("element"))}
"""
    overrides = draw(st.lists(piece("override"), max_size=2))
    return text, overrides


@settings(
    max_examples=2000,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(scenarios())
def any_scenario_is_an_error_or_a_conserving_run(case):
    text, overrides = case
    COUNTS["tried"] += 1
    try:
        scenario = ccsim.loads(text, "fuzz.toml").with_overrides(overrides)
        results = ccsim.run(scenario)
    except ccsim.ScenarioError as exc:
        message = str(exc)
        assert message.startswith(("fuzz.toml", "--set")), message
        assert "\n" not in message, message
        return
    assert results.events <= 20_000
    check_conservation(results)
    COUNTS["ran"] += 1


COUNTS = {"tried": 0, "ran": 0}


def test_any_scenario_is_an_error_or_a_conserving_run():
    COUNTS.update(tried=0, ran=0)
    any_scenario_is_an_error_or_a_conserving_run()
    # Most cases are meant to run, so the runs are exercised as well as the errors.
    assert COUNTS["ran"] * 5 > COUNTS["tried"], COUNTS

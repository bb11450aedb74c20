"""The Gymnasium environment (docs/gym.md) and the stepping it runs on
(``_ccsim.Simulation``): stepping gives one run's results, check_env passes, a seed
gives the same episode, the observation of a lone fixed-window flow is its window per
round trip, and bad options are refused naming the option."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import ccsim
import numpy as np
import pytest
from conftest import KESHAV, REPO

gym = pytest.importorskip("gymnasium")
from ccsim import _ccsim  # noqa: E402
from ccsim.gym import FIELDS, CongestionEnv  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

F = {name: i for i, name in enumerate(FIELDS)}


def _json(r: ccsim.Results) -> dict:
    d = json.loads(r.to_json())
    d.pop("wall_time_s")
    # The count of events is the engine's work, not a result: an ack handed to its
    # sender at send time is no event of its own, and stepping stops that hand-over at
    # each step's end (crates/ccsim-py/src/stepper.rs).
    d.pop("events")
    return d


def _stepped(sc: ccsim.Scenario, seed: int, step_s: float) -> tuple[ccsim.Results, int]:
    sim = _ccsim.Simulation(sc.text, sc.source, list(sc.overrides), seed, sc.fmt)
    steps = 0
    while not sim.run_until(sim.now_s + step_s):
        steps += 1
    assert sim.now_s == sim.end_s
    return ccsim.Results.from_columns(sim.results()), steps


# Keshav's scenario (timeouts, fast retransmits, a CBR source, phases) and a dumbbell
# under SACK with a Python Reno (examples/reno.py: the policy's events come through
# the stepping too).
@pytest.mark.parametrize("case", ["keshav", "python-reno"])
def test_stepping_in_small_steps_gives_the_results_of_one_run(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if case == "keshav":
        sc, step = ccsim.load(KESHAV), 0.37
    else:
        monkeypatch.syspath_prepend(str(REPO / "examples"))
        sc = ccsim.Scenario.dumbbell(3, bottleneck="10Mbps", buffer="15pkt", duration="5s", sack=True).build()
        sc, step = sc.set("defaults.cc", "reno:Reno"), 0.0031
    whole = ccsim.run(sc, seed=4)
    stepped, steps = _stepped(sc, 4, step)
    assert steps > 1000
    assert _json(stepped) == _json(whole)
    assert whole.flows["retransmitted_pkts"].sum() > 0


def test_the_simulation_steps_to_the_time_asked_and_ends_at_the_end() -> None:
    sc = ccsim.load(KESHAV)
    sim = _ccsim.Simulation(sc.text, sc.source, list(sc.overrides), 1, sc.fmt)
    assert (sim.now_s, sim.end_s, sim.end_ps, sim.done) == (0.0, 900.0, 900 * 10**12, False)
    assert sim.run_until_ps(1_500_000_000_001) is False
    assert sim.now_ps == 1_500_000_000_001
    assert sim.run_until(1.0) is False  # earlier: nothing to do
    assert sim.now_ps == 1_500_000_000_001
    assert sim.run_until(1e6) is True
    assert (sim.now_s, sim.done) == (900.0, True)
    assert sim.run_until(1e7) is True
    with pytest.raises(ValueError, match="t_s"):
        sim.run_until(float("nan"))
    sim.results()
    with pytest.raises(RuntimeError, match="taken"):
        sim.results()


def test_stepping_applies_no_event_limit() -> None:
    # The caller decides how far to go: the scenario's max_events (which ccsim.run
    # applies) stops no step, the last one included.
    sc = ccsim.load(KESHAV).set("scenario.max_events", 100)
    assert ccsim.run(sc, seed=1).stop_reason == "max_events"
    sim = _ccsim.Simulation(sc.text, sc.source, list(sc.overrides), 1, sc.fmt)
    assert sim.run_until(450.0) is False
    assert sim.run_until(900.0) is True
    r = ccsim.Results.from_columns(sim.results())
    assert r.stop_reason is None
    assert r.sim_time_s == 900.0


def test_results_before_the_end_are_partial() -> None:
    sc = ccsim.load(KESHAV)
    sim = _ccsim.Simulation(sc.text, sc.source, list(sc.overrides), 1, sc.fmt)
    sim.run_until(100.0)
    r = ccsim.Results.from_columns(sim.results())
    assert r.stop_reason == "interrupted"
    assert r.sim_time_s == pytest.approx(100.0, abs=1.0)


def test_a_python_policys_failure_is_raised_by_the_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "late.py").write_text(
        textwrap.dedent(
            """
            class Late:
                def __init__(self, flow):
                    self.cwnd = 10 * flow.mss
                def on_ack(self, s):
                    if s.now > 2.0:
                        raise ZeroDivisionError("late")
                def on_congestion(self, s):
                    pass
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    sc = ccsim.Scenario.dumbbell(1, duration="5s").build().set("defaults.cc", "late:Late")
    sim = _ccsim.Simulation(sc.text, sc.source, list(sc.overrides), 1, sc.fmt)
    assert sim.run_until(1.0) is False
    with pytest.raises(ccsim.CongestionControlError, match=r"flow1.*on_ack at t = 2\.0") as info:
        sim.run_until(3.0)
    assert isinstance(info.value.__cause__, ZeroDivisionError)


# The environment --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"action": "pacing"}, {"discrete": True}, {"flow": ["flow1", "flow2"]}, {"flow": ["flow1"], "discrete": True}],
    ids=["cwnd", "pacing", "discrete", "two-flows", "one-of-a-list-discrete"],
)
def test_check_env_passes(kwargs: dict) -> None:
    # Made by the registered id, so that check_env finds the spec it looks at.
    check_env(gym.make("ccsim/Congestion-v0", **kwargs).unwrapped)


def test_registered_ids_make_the_environment() -> None:
    env = gym.make("ccsim/Congestion-v0", scenario="keshav-s1", flow="ftp2", max_steps=3)
    assert env.unwrapped.flows == ["ftp2"]
    disc = gym.make("ccsim/Congestion-discrete-v0")
    assert isinstance(disc.action_space, gym.spaces.Discrete)
    assert disc.action_space.n == 5


def _episode(env: CongestionEnv, seed: int, steps: int) -> list[np.ndarray]:
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(7)
    out = [obs]
    for _ in range(steps):
        obs, *_ = env.step(rng.uniform(-1, 1, size=env.action_space.shape).astype(np.float32))
        out.append(obs)
    return out


def test_an_episode_is_the_same_for_the_same_seed_and_actions() -> None:
    # Start jitter draws from the seed, so the seed matters.
    sc = ccsim.Scenario.dumbbell(3, bottleneck="10Mbps", buffer="20pkt", duration="4s", start_jitter="200ms")
    env = CongestionEnv(sc.build(), flow=["flow1", "flow3"])
    a, b = _episode(env, 5, 120), _episode(env, 5, 120)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    c = _episode(env, 6, 120)
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))
    # reset() without a seed after reset(seed=...) draws the same next seed.
    env.reset(seed=5)
    first = env.reset()[1]["seed"]
    env.reset(seed=5)
    assert env.reset()[1]["seed"] == first


def test_a_constant_action_of_zero_keeps_the_window() -> None:
    # A small buffer: the controlled flow loses packets and sees timeouts, and its
    # window stays where it was set all the same.
    sc = ccsim.Scenario.dumbbell(2, bottleneck="2Mbps", buffer="5pkt", duration="3s").build()
    env = CongestionEnv(sc, initial_window=30)
    obs, _ = env.reset(seed=1)
    windows, losses = [obs[F["cwnd_bytes"]]], 0
    done = False
    while not done:
        obs, _, done, _, info = env.step(np.zeros(1, dtype=np.float32))
        windows.append(obs[F["cwnd_bytes"]])
        losses += info["losses"]
    assert set(windows) == {30 * 1000.0}  # 30 packets of the dumbbell's 1000 bytes
    assert losses > 0
    # And a = 1 doubles it, a = -1 halves it.
    env.reset(seed=1)
    assert env.step(np.ones(1, dtype=np.float32))[0][F["cwnd_bytes"]] == 60_000
    assert env.step(-np.ones(1, dtype=np.float32))[0][F["cwnd_bytes"]] == 30_000


LONE = """
[scenario]
name = "lone"
duration = "1s"

[defaults]
data_size = "1000B"
ack_size = "40B"

[nodes]
hosts = ["a", "b"]

[[links]]
between = ["a", "b"]
rate = "100Mbps"
delay = "10ms"

[[flows]]
name = "f"
from = "a"
to = "b"
"""


def test_a_lone_fixed_window_flow_sends_its_window_per_round_trip() -> None:
    # The round trip: 10 ms each way, a 1000-byte packet takes 8000 bits / 100 Mbps =
    # 80 us to send and a 40-byte ack 320 bits / 100 Mbps = 3.2 us: 20.0832 ms. The
    # first window of 10 packets leaves back to back (the k-th waits k x 80 us); from
    # then on each ack sends one packet into an idle link (10 packets take 0.8 ms of
    # the 20 ms), so every RTT sample is 20.0832 ms, and each interval of one round
    # trip, (t, t + RTT], holds exactly the 10 acks of one window: 10 x 8000 bits /
    # 20.0832 ms = 3,983,429.7 bits/s.
    rtt = 0.0200832
    env = CongestionEnv(ccsim.loads(LONE, "lone.toml"), initial_window=10)
    env.reset(seed=1)
    obs, _, _, _, info = env.step([0.0])
    # The first interval is the fallback's 100 ms (no RTT sample before it): four
    # windows went and came back (the first ack at 20.0832 ms, the 40th at 4 x 20.0832 ms
    # + 9 x 80 us = 81.05 ms; the 41st would come at 100.4 ms).
    assert info["interval_s"] == 0.1
    assert info["acks"] == 40
    assert obs[F["rtt_min_s"]] == pytest.approx(rtt, abs=1e-12)
    # The first window's samples: 20.0832 ms + k x 80 us, k = 0..9 (mean + 0.36 ms); the
    # other 30 are 20.0832 ms: the mean is 20.0832 + 0.36 x 10 / 40 ms.
    assert obs[F["rtt_mean_s"]] == pytest.approx(rtt + 0.00036 / 4, abs=1e-12)
    for _ in range(5):
        obs, _, _, _, info = env.step([0.0])
        assert info["interval_s"] == pytest.approx(rtt, abs=1e-12)
        assert info["acks"] == 10
        assert obs[F["throughput_bps"]] == pytest.approx(10 * 8000 / rtt, rel=1e-12)
        assert obs[F["rtt_mean_s"]] == obs[F["rtt_min_s"]] == pytest.approx(rtt, abs=1e-12)
        assert obs[F["queue_delay_s"]] == 0.0
        assert obs[F["losses"]] == obs[F["ecn_marks"]] == 0
        assert obs[F["cwnd_bytes"]] == 10_000
        assert obs[F["pacing_rate_bps"]] == 0
    # Aurora's reward: 10 x 498 packets/s - 1000 x 0.0200832 s - 2000 x 0.
    assert info["reward"] == pytest.approx(10 * 10 / rtt - 1000 * rtt, rel=1e-12)


def test_the_pacing_mode_sends_at_the_rate_set() -> None:
    # 800 kbps of 1000-byte packets: one every 10 ms; over a long interval of 0.5 s the
    # throughput is the rate (to within a packet per interval: 16 kbps).
    sc = ccsim.loads(LONE, "lone.toml").set("scenario.duration", "3s")
    env = CongestionEnv(sc, action="pacing", initial_rate=800_000, interval=0.5)
    obs, _ = env.reset(seed=1)
    assert obs[F["pacing_rate_bps"]] == 800_000
    env.step([0.0])
    obs, *_ = env.step([0.0])
    assert obs[F["throughput_bps"]] == pytest.approx(800_000, abs=16_000)
    obs, *_ = env.step([1.0])  # doubled from the flow's next event on
    obs, *_ = env.step([0.0])
    assert obs[F["pacing_rate_bps"]] == 1_600_000
    assert obs[F["throughput_bps"]] == pytest.approx(1_600_000, abs=16_000)


def test_several_flows_give_one_row_each() -> None:
    env = CongestionEnv(flow=["flow2", "flow1"], discrete=True)
    assert env.observation_space.shape == (2, len(FIELDS))
    assert env.action_space.nvec.tolist() == [5, 5]
    obs, _ = env.reset(seed=1)
    assert obs.shape == (2, len(FIELDS))
    obs, reward, _, _, info = env.step([4, 2])  # flow2 doubles, flow1 holds
    assert obs[:, F["cwnd_bytes"]].tolist() == [20_000, 10_000]
    assert set(info["flows"]) == {"flow1", "flow2"}
    assert reward == pytest.approx(info["flows"]["flow1"]["reward"] + info["flows"]["flow2"]["reward"])


def test_an_episode_ends_at_the_end_or_at_the_step_limit() -> None:
    env = CongestionEnv(ccsim.loads(LONE, "lone.toml"), max_steps=4)
    env.reset(seed=1)
    flags = [env.step([0.0])[2:4] for _ in range(4)]
    assert flags == [(False, False)] * 3 + [(False, True)]
    env = CongestionEnv(ccsim.loads(LONE, "lone.toml"))
    env.reset(seed=1)
    steps, done, info = 0, False, {}
    while not done:
        _, _, done, truncated, info = env.step([0.0])
        assert not truncated
        steps += 1
    assert info["time_s"] == 1.0
    # 0.1 s, then 45 round trips of 20.0832 ms to 1.0037 s, the last cut at 1 s.
    assert steps == 1 + 45
    with pytest.raises(RuntimeError, match="reset"):
        env.step([0.0])
    r = env.results()
    assert r.flows.set_index("name").loc["f", "cc"] == "ccsim._gymcc:Controlled"
    assert r.flows.set_index("name").loc["f", "delivered_pkts"] > 400


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"flow": "flow9"}, r"option flow: 'flow9' is no flow of the scenario; its window flows are flow1, flow2"),
        ({"scenario": KESHAV, "flow": "bkg"}, r"option flow: 'bkg' is not a window flow; its window flows are ftp1"),
        ({"flow": []}, r"option flow: an empty list"),
        ({"flow": ["flow1", "flow1"]}, r"option flow: .* names a flow twice"),
        ({"scenario": "keshav_s1"}, r"option scenario: 'keshav_s1' is neither a file nor a built-in .*keshav-s1"),
        ({"action": "rate"}, r"option action: 'rate' is not 'cwnd' or 'pacing'"),
        ({"interval": "fast"}, r"option interval: .*give seconds or a time such as '10ms'"),
        ({"interval": -1}, r"option interval: -1 is not a positive time"),
        ({"reward_weights": (1, 2)}, r"option reward_weights: .*give 3 weights"),
        ({"reward_weights": "high"}, r"option reward_weights: 'high' is not a list of numbers"),
        ({"discrete": True, "exponents": []}, r"option exponents: empty"),
        ({"initial_window": 0}, r"option initial_window: 0 is not a whole number of packets"),
        ({"max_steps": 0}, r"option max_steps: 0 is not a positive int"),
        ({"render_mode": "human"}, r"option render_mode: 'human': this environment draws nothing"),
    ],
)
def test_bad_options_are_refused_naming_the_option_and_the_fix(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        CongestionEnv(**kwargs)


def test_a_bad_action_is_refused() -> None:
    env = CongestionEnv(discrete=True)
    env.reset(seed=1)
    with pytest.raises(ValueError, match=r"an index in 0\.\.4"):
        env.step(5)
    env = CongestionEnv()
    env.reset(seed=1)
    with pytest.raises(ValueError, match="1 value"):
        env.step([0.0, 0.0])


def test_the_policy_is_not_for_scenario_files() -> None:
    sc = ccsim.Scenario.dumbbell(1, duration="1s").build().set("defaults.cc", "ccsim._gymcc:Controlled")
    with pytest.raises(ccsim.CongestionControlError, match="gym_env = 0: no ccsim.gym environment"):
        ccsim.run(sc)


def test_import_ccsim_does_not_import_gymnasium_and_make_can_import_ccsim_gym() -> None:
    code = "import sys, ccsim; ccsim.run(ccsim.Scenario.dumbbell(1, duration='1s')); print('gymnasium' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    # gym.make imports the module an id names before its colon.
    code = "import gymnasium as gym; print(gym.make('ccsim.gym:ccsim/Congestion-v0').unwrapped.flows)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['flow1']"


def test_the_example_agents_run() -> None:
    out = subprocess.run(
        [sys.executable, str(REPO / "examples" / "gym_agents.py"), "--steps", "60"],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    lines = out.stdout.strip().splitlines()
    assert [ln.split(":")[0] for ln in lines] == ["random", "aimd"]
    for ln in lines:
        assert np.isfinite(float(ln.split("return")[1].split()[0]))

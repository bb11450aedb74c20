"""A Gymnasium environment: an agent sets a flow's congestion window (or pacing rate)
once per monitor interval of a ccsim scenario (docs/gym.md).

Registered as ``ccsim/Congestion-v0`` (a Box action) and
``ccsim/Congestion-discrete-v0`` when this module is imported (gymnasium 1.x loads no
plug-in entry points), so either::

    import ccsim.gym, gymnasium as gym
    env = gym.make("ccsim/Congestion-v0", scenario="keshav-s1", flow="ftp1")

or ``gym.make("ccsim.gym:ccsim/Congestion-v0", ...)``, which imports it first.

Each controlled flow's ``cc`` becomes ``ccsim._gymcc:Controlled``, a congestion
control written in Python (docs/python-cc.md) that holds what the agent sets and
counts the flow's acks, RTT samples, retransmissions, loss events and ECN echoes.
``step`` scales the window (or rate) by ``2**a``, runs the simulation one monitor
interval on (``_ccsim.Simulation.run_until_ps``), and reads those counts.

The engine reads a policy's outputs after each of its events, so an action takes
effect at the flow's next event (its next ack, or a timeout), not at the instant of
the step: at most one ack's spacing later while acks flow.

The default reward is Aurora's (Jay et al., "A Deep Reinforcement Learning Perspective
on Internet Congestion Control", ICML 2019; the weights of its reference
implementation, PCC-RL's src/gym/network_sim.py, without its 0.001 scale): ``10 *
throughput (packets/s) - 1000 * mean RTT (s) - 2000 * loss rate`` per controlled flow,
summed. Deviation: the loss rate is the interval's retransmitted packets over its sent
packets (the sender's view; Aurora counts the packets its link dropped).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ccsim import _ccsim, _gymcc
from ccsim._scenario import Scenario, ScenarioBuilder, load
from ccsim.results import Results

__all__ = ["FIELDS", "CongestionEnv"]

# The observation's fields, per controlled flow, in order (raw, in these units).
FIELDS = (
    "throughput_bps",  # bytes newly acknowledged in the interval x 8 / the interval
    "rtt_mean_s",  # mean of the interval's RTT samples (one per ack)
    "rtt_min_s",  # least of them
    "losses",  # packets retransmitted in the interval
    "ecn_marks",  # acks in the interval echoing a congestion mark (ECE)
    "cwnd_bytes",  # the window in force at the interval's end
    "queue_delay_s",  # rtt_mean_s minus the flow's least RTT so far
    "pacing_rate_bps",  # the pacing rate in force (0: unpaced, the cwnd mode)
)
# Carried over from the interval before when no ack came in this one.
_CARRIED = ("rtt_mean_s", "rtt_min_s", "queue_delay_s")

# Discrete actions: the exponents a of the factor 2**a.
DISCRETE_EXPONENTS = (-1.0, -0.25, 0.0, 0.25, 1.0)
# (throughput, delay, loss): Aurora's weights (module docstring).
REWARD_WEIGHTS = (10.0, 1000.0, 2000.0)
# The monitor interval before the controlled flows' first RTT sample.
FIRST_INTERVAL_S = 0.1
# The transport's loss-recovery parameters a controlled flow keeps from its scenario.
_TRANSPORT = ("dupack_threshold", "initial_rto", "min_rto", "max_rto", "rto_k", "rto")
_PS = 10**12
# A bound for the observation Box (gymnasium asks for a finite one).
_HIGH = float(np.finfo(np.float32).max)


def _option_error(option: str, message: str) -> ValueError:
    return ValueError(f"CongestionEnv option {option}: {message}")


def _scenario(scenario: Any) -> Scenario:
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, ScenarioBuilder):
        return scenario.build()
    if isinstance(scenario, dict):
        return Scenario.from_dict(scenario)
    if isinstance(scenario, (str, os.PathLike)):
        path = Path(scenario)
        if path.suffix != ".toml" and not path.exists():
            from ccsim.scenarios import names, scenario_path

            if str(scenario) not in names():
                raise _option_error(
                    "scenario",
                    f"{str(scenario)!r} is neither a file nor a built-in scenario; give a path to a "
                    f".toml file or one of {', '.join(names())}",
                )
            path = scenario_path(str(scenario))
        return load(path)
    raise _option_error(
        "scenario",
        f"{scenario!r} is not a scenario; give a path, a built-in name, a ccsim.Scenario, a builder or a dict",
    )


def _seconds(value: Any, option: str) -> float:
    if isinstance(value, str):
        try:
            s = _ccsim.parse_time(value)
        except _ccsim.ScenarioError as exc:
            raise _option_error(option, f"{exc}; give seconds or a time such as '10ms'") from None
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        s = float(value)
    else:
        raise _option_error(option, f"{value!r} is not a time; give seconds or a time such as '10ms'")
    if not (s > 0 and np.isfinite(s)):
        raise _option_error(option, f"{value!r} is not a positive time; give e.g. '10ms'")
    return s


def _floats(values: Any, option: str, what: str) -> list[float]:
    try:
        out = [float(v) for v in values]
    except (TypeError, ValueError):
        raise _option_error(option, f"{values!r} is not a list of numbers; give {what}") from None
    if not all(np.isfinite(out)):
        raise _option_error(option, f"{values!r} holds a number that is not finite; give {what}")
    return out


class CongestionEnv(gym.Env[np.ndarray, Any]):
    """One or more flows of a scenario under an agent's control (docs/gym.md).

    Options:

    - ``scenario``: a scenario file's path, a built-in scenario's name (``"keshav-s1"``),
      a :class:`ccsim.Scenario`, a builder or a dict. Default: a dumbbell of two window
      flows over 10 Mbps with 10 ms of one-way delay, 10 s long (``flow1`` controlled,
      ``flow2`` under the scenario's Reno).
    - ``flow``: the controlled flow's name, or a list of names (the observation then has
      one row per flow, and the action one value per flow). Default: the scenario's
      first window flow.
    - ``interval``: the monitor interval (seconds or a time such as ``"10ms"``). Default
      ``None``: the least RTT seen so far by the controlled flows, and ``first_interval``
      (default 100 ms) before their first RTT sample.
    - ``action``: ``"cwnd"`` (each step multiplies the window by ``2**a``; the window
      stays within [1 packet, the flow's ``max_window``]) or ``"pacing"`` (multiplies the
      pacing rate; at least one packet per second; the window is left at ``max_window``).
    - ``discrete``: actions are indices into ``exponents`` (default
      ``(-1, -0.25, 0, 0.25, 1)``) instead of ``a`` in [-1, 1].
    - ``reward_weights``: ``(throughput, delay, loss)`` (default Aurora's ``(10, 1000,
      2000)``): reward = sum over controlled flows of ``w0 * throughput in packets/s -
      w1 * mean RTT in s - w2 * loss rate`` (retransmitted / sent in the interval).
    - ``initial_window``: packets (default 10, RFC 6928); ``initial_rate``: the pacing
      mode's first rate, bits/s (default: ``initial_window`` packets per
      ``first_interval``).
    - ``max_steps``: an episode is truncated after this many steps (default: none; it
      ends, terminated, at the scenario's end).
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        scenario: Any = None,
        flow: str | list[str] | tuple[str, ...] | None = None,
        *,
        interval: float | str | None = None,
        first_interval: float | str = FIRST_INTERVAL_S,
        action: str = "cwnd",
        discrete: bool = False,
        exponents: tuple[float, ...] | list[float] = DISCRETE_EXPONENTS,
        reward_weights: tuple[float, float, float] | list[float] = REWARD_WEIGHTS,
        initial_window: int = 10,
        initial_rate: float | None = None,
        max_steps: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        if scenario is None:
            scenario = Scenario.dumbbell(2, bottleneck="10Mbps", delay="10ms", duration="10s")
        base = _scenario(scenario)
        doc = base.check()
        windows = [f for f in doc.get("flows", []) if f.get("kind", "window") == "window"]
        if not windows:
            raise _option_error("scenario", f"{base.source} has no window flow to control; add one")
        names = [f["name"] for f in windows]
        every = [f["name"] for f in doc.get("flows", [])]
        if flow is None:
            flows = [names[0]]
            self._multi = False
        else:
            self._multi = not isinstance(flow, str)
            flows = [flow] if isinstance(flow, str) else list(flow)
            if not flows:
                raise _option_error("flow", "an empty list; name at least one flow")
            for name in flows:
                if not isinstance(name, str):
                    raise _option_error("flow", f"{name!r} is not a flow name; give e.g. flow={names[0]!r}")
                if name not in names:
                    what = "is not a window flow" if name in every else "is no flow of the scenario"
                    raise _option_error(
                        "flow", f"{name!r} {what}; its window flows are {', '.join(names)}"
                    )
            if len(set(flows)) != len(flows):
                raise _option_error("flow", f"{flows} names a flow twice; name each once")
        if action not in _gymcc.MODES:
            raise _option_error("action", f"{action!r} is not 'cwnd' or 'pacing'")
        if not isinstance(discrete, bool):
            raise _option_error("discrete", f"{discrete!r} is not True or False")
        exps = _floats(exponents, "exponents", "the exponents a of the factors 2**a, e.g. (-1, 0, 1)")
        if discrete and not exps:
            raise _option_error("exponents", "empty; give the exponents a of the factors 2**a")
        weights = _floats(reward_weights, "reward_weights", "3 weights (throughput, delay, loss)")
        if len(weights) != 3:
            raise _option_error("reward_weights", f"{reward_weights!r}: give 3 weights (throughput, delay, loss)")
        if not isinstance(initial_window, int) or isinstance(initial_window, bool) or initial_window < 1:
            raise _option_error("initial_window", f"{initial_window!r} is not a whole number of packets >= 1")
        if max_steps is not None and (not isinstance(max_steps, int) or isinstance(max_steps, bool) or max_steps < 1):
            raise _option_error("max_steps", f"{max_steps!r} is not a positive int (or None: no limit)")
        if render_mode is not None:
            raise _option_error("render_mode", f"{render_mode!r}: this environment draws nothing; leave it None")
        self._first_ps = round(_seconds(first_interval, "first_interval") * _PS)
        self._interval_ps = None if interval is None else round(_seconds(interval, "interval") * _PS)
        mss = {f["name"]: _ccsim.parse_size(f.get("data_size", "1000B")) for f in windows}
        if initial_rate is None:
            rates = {n: initial_window * mss[n] * 8 / (self._first_ps / _PS) for n in flows}
        elif isinstance(initial_rate, (int, float)) and not isinstance(initial_rate, bool) and initial_rate > 0:
            rates = dict.fromkeys(flows, float(initial_rate))
        else:
            raise _option_error("initial_rate", f"{initial_rate!r} is not a positive rate in bits/s")
        self.flows = flows
        self.action_mode = action
        self.discrete = discrete
        self.exponents = tuple(exps)
        self.reward_weights = tuple(weights)
        self.max_steps = max_steps
        self.render_mode = render_mode
        self._mss = mss
        # The scenario with the controlled flows' congestion control replaced, and the
        # key of this environment's hub in their parameters.
        self._hub = _gymcc.Hub()
        for f in doc["flows"]:
            if f["name"] in flows:
                kept = {k: v for k, v in (f.get("params") or {}).items() if k in _TRANSPORT}
                f["cc"] = "ccsim._gymcc:Controlled"
                f["params"] = {
                    **kept,
                    "gym_env": self._hub.key,
                    "mode": action,
                    "initial_window": initial_window,
                    "initial_rate": rates[f["name"]],
                }
        self._scenario = Scenario.from_dict(doc, base.source)
        n = len(flows)
        shape = (n, len(FIELDS)) if self._multi else (len(FIELDS),)
        self.observation_space = spaces.Box(0.0, _HIGH, shape=shape, dtype=np.float64)
        if discrete:
            k = len(self.exponents)
            self.action_space = spaces.MultiDiscrete([k] * n) if self._multi else spaces.Discrete(k)
        else:
            self.action_space = spaces.Box(-1.0, 1.0, shape=(n,), dtype=np.float32)
        self._sim: Any = None
        self._steps = 0
        self._last = np.zeros((n, len(FIELDS)))

    # The episode ------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """A new run of the scenario. ``seed`` is the simulation's seed (as
        ``ccsim.run(scenario, seed)``); without one, the seed is drawn from the
        environment's generator (``np_random``, seeded by the last ``reset(seed=...)``)."""
        super().reset(seed=seed)
        sim_seed = seed if seed is not None else int(self.np_random.integers(0, 2**63))
        sc = self._scenario
        self._hub.policies.clear()
        self._sim = _ccsim.Simulation(sc.text, sc.source, list(sc.overrides), sim_seed, sc.fmt)
        self._policies = [self._hub.policies[name] for name in self.flows]
        self._steps = 0
        self._last = np.zeros((len(self.flows), len(FIELDS)))
        for i, p in enumerate(self._policies):
            self._last[i, FIELDS.index("cwnd_bytes")] = p.cwnd
            self._last[i, FIELDS.index("pacing_rate_bps")] = p.pacing_rate or 0.0
        info = {"time_s": 0.0, "interval_s": 0.0, "seed": sim_seed}
        return self._observation(self._last), info

    def step(self, action: Any) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        if self._sim is None or self._sim.done:
            raise RuntimeError("the episode is over (or never began); call reset() first")
        for p, e in zip(self._policies, self._exponents(action), strict=True):
            p.scale(2.0**e)
        start = self._sim.now_ps
        done = self._sim.run_until_ps(start + self._next_interval_ps())
        span_ps = self._sim.now_ps - start
        self._steps += 1
        rows = np.zeros((len(self.flows), len(FIELDS)))
        info: dict[str, Any] = {"time_s": self._sim.now_ps / _PS, "interval_s": span_ps / _PS, "flows": {}}
        reward = 0.0
        w_tput, w_delay, w_loss = self.reward_weights
        for i, (name, p) in enumerate(zip(self.flows, self._policies, strict=True)):
            iv = p.take()
            row = self._row(iv, p, span_ps, self._last[i])
            rows[i] = row
            named = dict(zip(FIELDS, (float(v) for v in row), strict=True))
            loss_rate = iv.retransmits / iv.sent_pkts if iv.sent_pkts else 0.0
            pkts_per_s = iv.acked_bytes / self._mss[name] / (span_ps / _PS) if span_ps else 0.0
            r = w_tput * pkts_per_s - w_delay * named["rtt_mean_s"] - w_loss * loss_rate
            reward += r
            named.update(
                acks=iv.acks, sent_pkts=iv.sent_pkts, loss_events=iv.loss_events, loss_rate=loss_rate,
                min_rtt_s=iv.min_rtt_ps / _PS, reward=r,
            )  # fmt: skip
            info["flows"][name] = named
        if not self._multi:
            info.update(info["flows"][self.flows[0]])
        self._last = rows
        truncated = not done and self.max_steps is not None and self._steps >= self.max_steps
        return self._observation(rows), reward, done, truncated, info

    def results(self) -> Results:
        """The results of the episode so far (as ``ccsim.run`` gives them; partial,
        with ``stop_reason = "interrupted"``, before the scenario's end). Ends the
        episode: call ``reset`` for the next."""
        if self._sim is None:
            raise RuntimeError("no episode yet; call reset() first")
        sim, self._sim = self._sim, None
        return Results.from_columns(sim.results())

    def close(self) -> None:
        self._sim = None

    # Helpers ----------------------------------------------------------------------------

    def _exponents(self, action: Any) -> list[float]:
        a = np.asarray(action)
        n = len(self.flows)
        if self.discrete:
            idx = a.reshape(-1).astype(np.int64) if a.size == n else None
            if idx is None or (idx < 0).any() or (idx >= len(self.exponents)).any():
                raise ValueError(
                    f"action {action!r}: give {'one index per flow' if self._multi else 'an index'} in "
                    f"0..{len(self.exponents) - 1} (into exponents {self.exponents})"
                )
            return [self.exponents[int(k)] for k in idx]
        if a.size != n:
            raise ValueError(f"action {action!r}: give {n} value(s) in [-1, 1], one per controlled flow")
        return [float(x) for x in np.clip(a.reshape(-1).astype(np.float64), -1.0, 1.0)]

    def _next_interval_ps(self) -> int:
        if self._interval_ps is not None:
            return self._interval_ps
        seen = [p.min_rtt_ps for p in self._policies if p.min_rtt_ps > 0]
        return min(seen) if seen else self._first_ps

    @staticmethod
    def _row(iv: _gymcc.Interval, p: _gymcc.Controlled, span_ps: int, last: np.ndarray) -> np.ndarray:
        row = np.zeros(len(FIELDS))
        f = FIELDS.index
        row[f("throughput_bps")] = iv.acked_bytes * 8 / (span_ps / _PS) if span_ps else 0.0
        if iv.acks:
            mean_ps = iv.rtt_sum_ps / iv.acks
            row[f("rtt_mean_s")] = mean_ps / _PS
            row[f("rtt_min_s")] = iv.rtt_min_ps / _PS
            row[f("queue_delay_s")] = (mean_ps - iv.min_rtt_ps) / _PS
        else:
            for name in _CARRIED:
                row[f(name)] = last[f(name)]
        row[f("losses")] = iv.retransmits
        row[f("ecn_marks")] = iv.ecn_marks
        row[f("cwnd_bytes")] = p.cwnd
        row[f("pacing_rate_bps")] = p.pacing_rate or 0.0
        return row

    def _observation(self, rows: np.ndarray) -> np.ndarray:
        out = np.minimum(rows, _HIGH)
        return out if self._multi else out[0]


def _register() -> None:
    ids = {"ccsim/Congestion-v0": {}, "ccsim/Congestion-discrete-v0": {"discrete": True}}
    for env_id, kwargs in ids.items():
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point="ccsim.gym:CongestionEnv", kwargs=kwargs)


_register()

"""Two agents on the Gymnasium environment ``ccsim/Congestion-v0`` (docs/gym.md), one
episode each, and their returns: a random agent, and a rule-based one that does AIMD
on what it observes (halve the window after a loss or when the queueing delay passes
half the least RTT; else one packet more per round trip, as TCP's congestion
avoidance, RFC 5681 section 3.1).

Run it: ``python examples/gym_agents.py`` (``--steps N`` for a shorter episode,
``--scenario`` for another scenario). Nothing is trained.
"""

from __future__ import annotations

import argparse
import math

import ccsim
import ccsim.gym  # noqa: F401  (registers ccsim/Congestion-v0)
import gymnasium as gym
import numpy as np
from ccsim.gym import FIELDS

CWND, LOSSES, QDELAY, RTT_MIN = (FIELDS.index(n) for n in ("cwnd_bytes", "losses", "queue_delay_s", "rtt_min_s"))


def aimd(obs: np.ndarray, mss: int) -> np.ndarray:
    """The exponent a (the window is multiplied by 2**a) AIMD picks from one observation."""
    if obs[LOSSES] > 0 or obs[QDELAY] > obs[RTT_MIN] / 2:
        return np.array([-1.0], dtype=np.float32)
    cwnd = obs[CWND]
    return np.array([math.log2((cwnd + mss) / cwnd)], dtype=np.float32)


def episode(env: gym.Env, agent: str, seed: int, steps: int | None) -> tuple[float, int]:
    obs, _ = env.reset(seed=seed)
    env.action_space.seed(seed)
    total, n, done = 0.0, 0, False
    while not done and (steps is None or n < steps):
        action = env.action_space.sample() if agent == "random" else aimd(obs, 1000)
        obs, reward, terminated, truncated, _ = env.step(action)
        total += float(reward)
        n += 1
        done = terminated or truncated
    return total, n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=None, help="at most this many steps (default: the episode)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    # Two flows over a 10 Mbps bottleneck with a 50-packet buffer: the agent's flow1
    # against flow2 under Reno.
    scenario = ccsim.Scenario.dumbbell(2, bottleneck="10Mbps", buffer="50pkt", duration="10s", cc="reno")
    env = gym.make("ccsim/Congestion-v0", scenario=scenario, flow="flow1")
    for agent in ("random", "aimd"):
        ret, n = episode(env, agent, args.seed, args.steps)
        print(f"{agent}: return {ret:.1f} over {n} steps")


if __name__ == "__main__":
    main()

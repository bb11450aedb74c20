"""The congestion control of a flow that a Gymnasium environment controls (ccsim.gym,
docs/gym.md): it holds the window (or pacing rate) the agent sets and counts what its
events show over each monitor interval.

The environment gives the flow ``cc = "ccsim._gymcc:Controlled"`` and the parameter
``gym_env``, the key of its ``Hub`` in this module's registry; the policy attaches
itself there when the engine builds it, so the environment reaches it by the flow's
name. No gymnasium import here: the engine imports this module to check the scenario.

The engine reads a policy's outputs after each of its events, so a window set between
events takes effect at the flow's next event (its next ack, or a timeout).
"""

from __future__ import annotations

import itertools
import weakref
from dataclasses import dataclass
from typing import Any

from ccsim._pycc import Flow

# Environment key -> its hub; weak, so a dropped environment leaves no entry.
_HUBS: weakref.WeakValueDictionary[int, Hub] = weakref.WeakValueDictionary()
_KEYS = itertools.count(1)

MODES = ("cwnd", "pacing")


class Hub:
    """Where the policies of one environment's controlled flows attach."""

    def __init__(self) -> None:
        self.key = next(_KEYS)
        self.policies: dict[str, Controlled] = {}
        _HUBS[self.key] = self


@dataclass(frozen=True)
class Interval:
    """What one flow's events showed over a monitor interval (integer counts, times in
    picoseconds)."""

    acked_bytes: int
    acks: int
    rtt_sum_ps: int
    rtt_min_ps: int  # 0: no ack in the interval
    sent_pkts: int
    retransmits: int
    loss_events: int
    ecn_marks: int
    min_rtt_ps: int  # the flow's least RTT so far; 0: none yet


class Controlled:
    """The agent's window or rate: ``mode = "cwnd"`` sets the window (bytes) and sends
    unpaced; ``"pacing"`` sets the pacing rate (bits/s) and leaves the window at the
    flow's cap (``max_window``). Losses and ECN echoes change nothing: the agent reacts.

    ``initial_window`` (packets; default 10, RFC 6928's initial window) is the first
    window; in pacing mode the first rate is ``initial_rate`` (bits/s)."""

    recovery = "reno"

    def __init__(
        self,
        flow: Flow,
        gym_env: int = 0,
        mode: str = "cwnd",
        initial_window: int = 10,
        initial_rate: float = 0.0,
    ) -> None:
        hub = _HUBS.get(gym_env)
        if hub is None:
            raise ValueError(
                f"gym_env = {gym_env}: no ccsim.gym environment has this key; this policy is "
                "made by ccsim.gym.CongestionEnv, not named in a scenario"
            )
        if mode not in MODES:
            raise ValueError(f"mode: {mode!r} is not one of {MODES}")
        self.mss = flow.mss
        self.max = flow.max_window * flow.mss
        self.mode = mode
        if mode == "cwnd":
            self.window = float(min(max(initial_window, 1) * self.mss, self.max))
            self.rate = 0.0
            self.pacing_rate: float | None = None
        else:
            self.window = float(self.max)
            self.rate = max(float(initial_rate), self.min_rate)
            self.pacing_rate = self.rate
        self.cwnd = int(self.window)
        self.ssthresh = None
        self.min_rtt_ps = 0
        self._reset()
        hub.policies[flow.name] = self

    @property
    def min_rate(self) -> float:
        """The least pacing rate the agent can set: one packet per second."""
        return 8.0 * self.mss

    def _reset(self) -> None:
        self.acked_bytes = self.acks = self.rtt_sum_ps = self.rtt_min_ps = 0
        self.sent_pkts = self.retransmits = self.loss_events = self.ecn_marks = 0

    def take(self) -> Interval:
        """The interval's counts; starts the next interval."""
        out = Interval(
            self.acked_bytes,
            self.acks,
            self.rtt_sum_ps,
            self.rtt_min_ps,
            self.sent_pkts,
            self.retransmits,
            self.loss_events,
            self.ecn_marks,
            self.min_rtt_ps,
        )
        self._reset()
        return out

    def scale(self, factor: float) -> None:
        """Multiplies the window (cwnd mode; kept within [1 packet, max_window]) or the
        pacing rate (pacing mode; at least one packet per second) by ``factor``."""
        if self.mode == "cwnd":
            self.window = min(max(self.window * factor, float(self.mss)), float(self.max))
            self.cwnd = int(self.window)
        else:
            self.rate = max(self.rate * factor, self.min_rate)
            self.pacing_rate = self.rate

    def on_ack(self, s: Any) -> None:
        self.acked_bytes += s.acked_pkts * self.mss
        self.acks += 1
        rtt = s.rtt_ps
        self.rtt_sum_ps += rtt
        if self.rtt_min_ps == 0 or rtt < self.rtt_min_ps:
            self.rtt_min_ps = rtt
        if self.min_rtt_ps == 0 or rtt < self.min_rtt_ps:
            self.min_rtt_ps = rtt
        if s.ece:
            self.ecn_marks += 1

    def on_congestion(self, s: Any) -> None:
        if s.cause != "ecn":
            self.loss_events += 1

    def on_packet_sent(self, s: Any) -> None:
        self.sent_pkts += 1
        if s.retransmission:
            self.retransmits += 1

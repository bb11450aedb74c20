"""Heybey 1990 scenarios, built as dicts in the scenario-file schema.

Two topologies (docs/reproductions/heybey.md draws both):

- ``heybey``: 40 users, hosts A and B joined by one link (two unidirectional 40 kbps
  channels, "link 1" = A->B and "link 2" = B->A). Odd users 1, 3, ..., 39 sit at A and
  talk to their partners 41 - i at B (section 3.2, Figure 3-2).
- ``mosely``: 80 users, partner 81 - i, eight unidirectional 40 kbps links (section 3.1).
  Figure 3-1 is missing from our copy, so the routes are reconstructed from the text:
  user i sends on link ceil(i/20) (links 1-4 carry 20 users each) and receives on link
  5, 6, 7 or 8, whose receiver sets have 8, 16, 24 and 32 users; user 1 -> 80 goes
  link 1 then link 8 and 80 -> 1 link 4 then link 5; exactly four pairs have both
  partners on link 7; no pair shares link 5, 6 or 8 (see the doc for the sets).

Every packet reaches its link through a 1 Gbps access channel without delay (the
paper's hosts and switches have no speed limit of their own); queues are unlimited
(10^6 packets; unstable runs reach a few thousand).

How a run starts (the thesis gives no start times; docs/reproductions/heybey.md, "How a
run starts"): each pair's conversation begins at a uniform random time in
[0, ``start_spread``) (``START_SPREAD`` = 1.2 s, one mean talk spurt: section 2.1.1 "talk
spurts that last (on the average) 1.2 seconds", section 3.2.4 "the flows are supposed to
start and stop randomly and independently"). The talker sends its first data packet
then; the listener, inactive from that moment, sends its first control packet one
control interval later (``first_control = "interval"``: section 2.1.1 "The inactive
partner ... sends a control packet to its active partner every 100 milliseconds", and
section 1.2 "The receiver periodically transmits short control packets ... that contain
the last control rate received", so the first one follows the talker's first data), as
it does after every later talk spurt; ``"start"`` sends it at the pair's start.
"""

from __future__ import annotations

import random
from typing import Any

CAPACITY = "40kbps"
PROP = "3ms"
ACCESS = "1Gbps"
BUFFER = "1000000pkt"
# The users' rate before any feedback: C/10, the fair share of the 10 flows a link
# carries on average (a choice; the text is silent, see the doc).
INITIAL_RATE = "4kbps"

# Each pair's conversation starts at a uniform random time in [0, START_SPREAD): one
# mean talk spurt (section 2.1.1: "talk spurts that last (on the average) 1.2 seconds";
# section 3.2.4: "the flows are supposed to start and stop randomly and independently").
START_SPREAD = "1.2s"
# The listener's first control packet: one control interval after the pair's start
# (section 2.1.1: "The inactive partner ... sends a control packet to its active partner
# every 100 milliseconds"), or at the pair's start ("start").
FIRST_CONTROL = "interval"
FIRST_CONTROL_KINDS = ("interval", "start")
CONTROL_INTERVAL_NS = 100_000_000  # the voice flows' control_interval (section 2.1.1)

# Mosely's receive links (our reconstruction; see the module docstring and the doc).
MOSELY_RECEIVE: dict[int, list[int]] = {
    5: list(range(1, 9)),
    6: list(range(9, 21)) + list(range(41, 45)),
    7: list(range(21, 41)) + list(range(45, 49)),
    8: list(range(49, 81)),
}


def mosely_send_link(i: int) -> int:
    return (i - 1) // 20 + 1


def mosely_receive_link(i: int) -> int:
    for link, users in MOSELY_RECEIVE.items():
        if i in users:
            return link
    raise ValueError(i)


def _spread_ns(spread: str) -> int:
    """A duration string ("20ms", "1.2s", "5s") in nanoseconds."""
    for unit, per in (("ms", 1_000_000), ("us", 1_000), ("ns", 1), ("s", 1_000_000_000)):
        if spread.endswith(unit):
            return round(float(spread[: -len(unit)]) * per)
    raise ValueError(f"start_spread: {spread!r} is not a duration such as '1.2s' or '20ms'")


def pair_starts(pairs: list[tuple[int, int]], spread: str, seed: int,
                first_control: str = FIRST_CONTROL) -> dict[int, int]:
    """Each user's start time in ns: the pair (talker, listener) starts at a uniform
    random time in [0, spread) drawn from the run's seed, the talker then, the listener
    (its first control packet) one control interval later with ``first_control =
    "interval"``, at the same time with ``"start"``."""
    if first_control not in FIRST_CONTROL_KINDS:
        raise ValueError(f"first_control: {first_control!r} is not one of {FIRST_CONTROL_KINDS}")
    width = _spread_ns(spread)
    rng = random.Random(f"heybey pair starts, seed {seed}")
    delay = CONTROL_INTERVAL_NS if first_control == "interval" else 0
    out: dict[int, int] = {}
    for talker, listener in pairs:
        t = int(rng.random() * width)
        out[talker], out[listener] = t, t + delay
    return out


def _voice_flow(i: int, partner: int, src: str, dst: str, voice: dict[str, Any],
                path: list[str] | None, starts: bool, start_ns: int) -> dict[str, Any]:
    f: dict[str, Any] = {
        "name": f"u{i}",
        "kind": "voice",
        "from": src,
        "to": dst,
        "start": f"{start_ns}ns",
        "voice": {"partner": f"u{partner}", "starts_active": starts, **voice},
    }
    if path is not None:
        f["path"] = path
    return f


def _smart(at: str | list[str], algorithm: str, a: float, protocol: bool, update: str,
           read_rate: str, record: bool, queue_after: str | None = None) -> dict[str, Any]:
    el = {"kind": "smart_link", "at": at, "algorithm": algorithm, "a": a,
          "protocol": protocol, "update": update, "read_rate": read_rate, "record": record}
    if queue_after is not None:
        el["queue_after"] = queue_after
    return el


def heybey(*, algorithm: str = "hayden", a: float = 0.8, protocol: bool = False,
           update: str = "20ms", slow_start: bool = False, read_rate: str = "transmit",
           duration: str = "150s", seed: int = 1, record: bool = False,
           users: int = 40, initial_rate: str = INITIAL_RATE,
           start_spread: str = START_SPREAD, first_control: str = FIRST_CONTROL,
           queue_after: str | None = None) -> dict[str, Any]:
    """Heybey's simple topology (section 3.2). ``start_spread`` and ``first_control``:
    how the pairs start (``pair_starts``). ``queue_after``: the smart link's
    ``queue_max_after_pkts`` counts from this time (the element's default, 10 s, when
    None)."""
    voice = {"slow_start": slow_start, "initial_rate": initial_rate}
    # Users 1-20 talk first: 10 talkers on each link.
    starts = pair_starts([(i, users + 1 - i) for i in range(1, users // 2 + 1)], start_spread, seed, first_control)
    flows = []
    for i in range(1, users + 1):
        partner = users + 1 - i
        src, dst = ("A", "B") if i % 2 == 1 else ("B", "A")
        flows.append(_voice_flow(i, partner, src, dst, voice, None, i < partner, starts[i]))
    return {
        "scenario": {"name": "heybey", "duration": duration, "seed": seed},
        "nodes": {"hosts": ["A", "B"]},
        "links": [{"between": ["A", "B"], "rate": CAPACITY, "delay": PROP, "buffer": BUFFER,
                   "name": "link"}],
        "flows": flows,
        "elements": [_smart(["A->B", "B->A"], algorithm, a, protocol, update, read_rate, record, queue_after)],
        "measure": {"series": ["A->B.queue", "B->A.queue"] if record else []},
    }


HEYBEY_LINKS = {"link 1": "A->B", "link 2": "B->A"}


def mosely(*, algorithm: str = "hayden", a: float = 0.8, protocol: bool = False,
           update: str = "100ms", slow_start: bool = False, read_rate: str = "transmit",
           duration: str = "30s", seed: int = 1, record: bool = False,
           initial_rate: str = INITIAL_RATE, start_spread: str = START_SPREAD,
           first_control: str = FIRST_CONTROL) -> dict[str, Any]:
    """Mosely's topology (section 3.1) as reconstructed: routers P1-P4 (the send side
    of links 1-4), X (the middle) and Q5-Q8 (the receive side of links 5-8); one host
    per (send link, receive link) group of users."""
    groups: dict[tuple[int, int], str] = {}
    for i in range(1, 81):
        key = (mosely_send_link(i), mosely_receive_link(i))
        groups.setdefault(key, f"H{key[0]}_{key[1]}")
    hosts = sorted(groups.values())
    routers = [f"P{k}" for k in range(1, 5)] + ["X"] + [f"Q{k}" for k in range(5, 9)]
    links: list[dict[str, Any]] = []
    for k in range(1, 5):
        links.append({"between": [f"P{k}", "X"], "rate": CAPACITY, "delay": PROP,
                      "buffer": BUFFER, "name": f"link{k}"})
    for k in range(5, 9):
        links.append({"between": ["X", f"Q{k}"], "rate": CAPACITY, "delay": PROP,
                      "buffer": BUFFER, "name": f"link{k}"})
    for (s, r), h in sorted(groups.items()):
        links.append({"between": [h, f"P{s}"], "rate": ACCESS, "delay": "0s", "buffer": BUFFER})
        links.append({"between": [f"Q{r}", h], "rate": ACCESS, "delay": "0s", "buffer": BUFFER})
    voice = {"slow_start": slow_start, "initial_rate": initial_rate}
    # The odd user of each pair talks first: 10 talkers on each of links 1-4.
    starts = pair_starts([(i, 81 - i) for i in range(1, 81, 2)], start_spread, seed, first_control)
    flows = []
    for i in range(1, 81):
        partner = 81 - i
        src = groups[(mosely_send_link(i), mosely_receive_link(i))]
        dst = groups[(mosely_send_link(partner), mosely_receive_link(partner))]
        s, r = mosely_send_link(i), mosely_receive_link(partner)
        path = [src, f"P{s}", "X", f"Q{r}", dst]
        flows.append(_voice_flow(i, partner, src, dst, voice, path, i % 2 == 1, starts[i]))
    chans = [f"P{k}->X" for k in range(1, 5)] + [f"X->Q{k}" for k in range(5, 9)]
    return {
        "scenario": {"name": "mosely", "duration": duration, "seed": seed},
        "nodes": {"hosts": hosts, "routers": routers},
        "links": links,
        "flows": flows,
        "elements": [_smart(chans, algorithm, a, protocol, update, read_rate, record)],
        "measure": {"series": [f"{c}.queue" for c in chans] if record else []},
    }


MOSELY_LINKS = {f"link {k}": (f"P{k}->X" if k <= 4 else f"X->Q{k}") for k in range(1, 9)}

"""Congestion control written in Python (docs/python-cc.md).

A window flow's ``cc = "module:Class"`` names a class by import path. The engine
checks the name while it validates the scenario (``check``) and builds one instance per
flow (``build``); the instance then gets the same events as a built-in policy
(``crates/ccsim-engine/src/cc/mod.rs``'s ``CongestionControl``) and answers through its
attributes, read after each call: ``cwnd`` (bytes), ``ssthresh`` (bytes or None),
``pacing_rate`` (bits/s or None) and ``send_quantum`` (packets per paced burst), and
the values of its own series (``series``, at most two names).

The module is looked up on ``sys.path``, then next to the scenario file, then in the
working directory, so ``cc = "mycc:Reno"`` finds ``mycc.py`` beside the scenario; sweep
workers import it by the same name.
"""

from __future__ import annotations

import importlib
import inspect
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["CongestionControl", "Flow"]

# The events a policy may define, besides the two it must: the engine calls a defined
# one only (``on_packet_sent`` would otherwise cost a call per packet).
_OPTIONAL = ("on_packet_sent", "on_dup_ack")
_REQUIRED = ("on_ack", "on_congestion")
_RECOVERY = ("reno", "newreno")
_OUTPUTS = (("ssthresh", None), ("pacing_rate", None), ("send_quantum", 1))


@dataclass(frozen=True)
class Flow:
    """The flow a policy is built for: its name, segment size (bytes), window cap
    (packets) and a seed from the flow's own random stream."""

    name: str
    mss: int
    max_window: int
    seed: int


class CongestionControl:
    """Base class of a congestion control written in Python (subclassing it is
    optional: any class with ``on_ack`` and ``on_congestion`` and the attributes below
    will do).

    The engine builds one instance per flow as ``Class(flow, **params)`` (``flow`` a
    :class:`Flow`; ``params`` the flow's ``[flows.params]`` keys other than the
    transport's loss-recovery ones, such as ``min_rto``) and calls:

    - ``on_ack(s)``: a cumulative ack acknowledged new data. ``s`` has ``now``,
      ``rtt`` and ``sent`` (seconds, and ``now_ps``, ``rtt_ps``, ``sent_ps`` in integer
      picoseconds), ``acked_pkts``, ``in_flight_pkts``, ``ack_seq``, ``ece`` (the ack
      echoes a congestion mark), ``flags`` and ``recovery`` (``"none"``, ``"partial"``:
      a NewReno partial ack, ``"exit"``: the ack that ends recovery).
    - ``on_congestion(s)``: a loss or an ECN echo. ``s`` has ``now``, ``now_ps``,
      ``cause`` (``"fast_retransmit"``, ``"timeout"`` or ``"ecn"``),
      ``in_flight_pkts``, ``pipe`` (SACK recovery: no window inflation),
      ``rto_repeat`` and ``dupack_threshold``.
    - ``on_dup_ack(now)``: a duplicate ack beyond the fast-retransmit threshold
      (seconds; optional).
    - ``on_packet_sent(s)``: a data packet left (``now``, ``now_ps``, ``seq``,
      ``retransmission``; optional, and costly: one call per packet).
    - ``on_rate_sample(rs)``: a delivery-rate sample, as Linux's ``tcp_rate.c``
      computes it, only for a class with ``rate_sample = True``: after ``on_ack`` for
      every ack that acknowledges new data and on a duplicate ack that SACKs new data.
      ``rs`` has ``now``, ``delivered``, ``interval`` and ``rate_pps`` (None when the
      sample is not valid), ``rtt`` (None for a retransmission), ``is_app_limited``,
      ``total_delivered``, ``delivered_time``, ``acked_sacked``, ``prior_delivered``,
      ``prior_in_flight`` and ``in_flight``. A true return value marks the flow
      application-limited until what is in flight is delivered (as BBR's ProbeRTT).

    After each call the engine reads ``cwnd`` (bytes, a positive number),
    ``ssthresh`` (bytes or None), ``pacing_rate`` (bits/s or None: send what the window
    allows at once) and ``send_quantum`` (packets per paced burst), and the
    attributes named in ``series`` (recorded as ``<flow>.<name>`` when asked for).

    Class attributes: ``series`` (at most two names), ``recovery`` (``"reno"``, the
    default, or ``"newreno"``: how a fast retransmit recovers without SACK) and
    ``rate_sample`` (True: the engine keeps per-packet snapshots for the flow and calls
    ``on_rate_sample``).
    """

    series: tuple[str, ...] = ()
    recovery: str = "reno"
    rate_sample: bool = False
    cwnd: int = 0
    ssthresh: int | None = None
    pacing_rate: int | None = None
    send_quantum: int = 1

    def on_ack(self, s: Any) -> None:  # pragma: no cover - the subclass's
        raise NotImplementedError

    def on_congestion(self, s: Any) -> None:  # pragma: no cover - the subclass's
        raise NotImplementedError


def _import(name: str, source: str) -> type:
    module, _, attr = name.partition(":")
    if not module or not attr:
        raise ValueError(f"'{name}' should be 'module:Class' (e.g. 'mycc:Reno')")
    def missing(exc: ModuleNotFoundError) -> bool:
        # The module itself (or its package) is missing, not something it imports.
        return exc.name in (module, module.split(".")[0])

    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if not missing(exc):
            raise
        # Next to the scenario file, then the working directory.
        here = [str(Path(source).resolve().parent)] if source and Path(source).exists() else []
        extra = [d for d in [*here, str(Path.cwd())] if d not in sys.path]
        if not extra:
            raise ModuleNotFoundError(f"no module named '{module}' (on sys.path)") from None
        sys.path.extend(extra)
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as exc2:
            if not missing(exc2):
                raise
            where = ", ".join(extra)
            raise ModuleNotFoundError(
                f"no module named '{module}' (on sys.path, nor in {where})"
            ) from None
    obj = mod
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise AttributeError(f"module '{module}' has no attribute '{attr}'") from None
    if not isinstance(obj, type):
        raise TypeError(f"'{name}' is a {type(obj).__name__}, not a class")
    return obj


def _describe(cls: type, name: str, params: dict[str, Any]) -> tuple[list[str], str, bool]:
    missing = [m for m in _REQUIRED if not callable(getattr(cls, m, None))]
    if missing:
        raise TypeError(f"class '{name}' has no {' or '.join(missing)} method")
    series = getattr(cls, "series", ())
    if isinstance(series, str) or not all(isinstance(s, str) and s for s in series):
        raise TypeError(f"'{name}'.series should be a tuple of names, found {series!r}")
    recovery = getattr(cls, "recovery", "reno")
    if recovery not in _RECOVERY:
        raise ValueError(f"'{name}'.recovery is {recovery!r}; use 'reno' or 'newreno'")
    rate_sample = getattr(cls, "rate_sample", False)
    if not isinstance(rate_sample, bool):
        raise TypeError(f"'{name}'.rate_sample should be True or False, found {rate_sample!r}")
    if rate_sample and not callable(getattr(cls, "on_rate_sample", None)):
        raise TypeError(f"'{name}' sets rate_sample = True but has no on_rate_sample method")
    try:
        sig = inspect.signature(cls)
    except (TypeError, ValueError):
        sig = None
    if sig is not None:
        try:
            sig.bind(None)
        except TypeError:
            if not any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values()) or not params:
                raise TypeError(
                    f"'{name}' is built as {attr_of(name)}(flow, **params): give it "
                    "def __init__(self, flow, ...)"
                ) from None
    try:
        if sig is not None:
            sig.bind(None, **params)
    except TypeError as exc:
        given = ", ".join(params) or "none"
        raise TypeError(
            f"'{name}' does not take these parameters ({exc}); given: {given}"
        ) from None
    return list(series), recovery, rate_sample


def attr_of(name: str) -> str:
    return name.partition(":")[2]


def check(name: str, params_json: str, source: str) -> tuple[list[str], str, bool]:
    """The engine's check of ``cc = name`` with its own parameters: the class's series
    names, recovery and whether it takes rate samples. Raises with a message naming
    what is wrong."""
    cls = _import(name, source)
    return _describe(cls, name, json.loads(params_json))


def build(
    name: str, params_json: str, flow: str, mss: int, max_window: int, seed: int
) -> tuple[Any, bool, bool]:
    """One flow's instance, and whether it defines ``on_packet_sent`` and ``on_dup_ack``."""
    cls = _import(name, "")
    obj = cls(Flow(flow, mss, max_window, seed), **json.loads(params_json))
    # The optional outputs, defaulted on the instance once: reading an absent attribute
    # after every event would raise (and catch) an AttributeError each time.
    for attr, default in _OUTPUTS:
        if not hasattr(obj, attr):
            try:
                setattr(obj, attr, default)
            except AttributeError:  # __slots__ without it: read as absent each time
                pass
    base = CongestionControl.__dict__

    def defines(m: str) -> bool:
        f = getattr(type(obj), m, None)
        return callable(f) and f is not base.get(m)

    sent, dup = (defines(m) for m in _OPTIONAL)
    return obj, sent, dup

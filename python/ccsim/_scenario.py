"""Scenarios: TOML text plus overrides, validated and run by the native engine, and
the builder that writes them from Python.

A :class:`Scenario` is a scenario file's text (or the same schema as JSON) with its
``--set`` overrides. The builder (:class:`ScenarioBuilder`, ``Scenario.dumbbell``,
``Scenario.parking_lot``, ``Scenario.builder``) writes the same dict that
:meth:`Scenario.check` returns and that ``ccsim.run(dict)`` and :meth:`Scenario.from_dict`
accept (docs/scenario-format.md); the engine validates it, so an error names the field as
for a file. The builder checks the Python types of its arguments, and the topologies
(dumbbell, parking lot, leaf-spine, fat-tree) the units of theirs, naming the argument::

    b = ccsim.Scenario.dumbbell(n_flows=10, bottleneck="10Mbps", delay="20ms",
                                buffer="50pkt", cc="reno", rtt_spread="40ms")
    b.add_phase("steady", "10s", "60s").measure(interval="1s", series=["flow1.cwnd"])
    results = b.run(seed=1)          # or ccsim.run(b), b.build(), b.to_toml()

    b = ccsim.Scenario.builder("mine", duration="30s")
    b.add_host("a").add_host("b").add_router("r")
    b.add_link("a", "r", rate="100Mbps", delay="1ms").add_link("r", "b", rate="10Mbps")
    b.add_flow("f", "a", "b", cc="vegas")

The builder and the topologies come first: ``Scenario``'s builder entry points refer to
them, and the builder's ``build`` returns a ``Scenario``; one module keeps that pair
without an import circle.
"""


from __future__ import annotations

import copy
import json
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ccsim import _ccsim, _warnings
from ccsim.results import Results

# The builder ------------------------------------------------------------------------------

# Quantities: strings with a unit ("10Mbps", "20ms", "50pkt"); a few fields take a pair.
_QUANTITY = (str,)


def _check(value: Any, what: str, types: tuple[type, ...], hint: str) -> Any:
    ok = isinstance(value, types) and not (isinstance(value, bool) and bool not in types)
    if not ok:
        raise TypeError(f"{what}: expected {hint}, got {type(value).__name__} {value!r}")
    return value


def _name(value: Any, what: str) -> str:
    return _check(value, what, (str,), "a name (str)")


def _quantity(value: Any, what: str, pair: bool = False) -> Any:
    hint = "a string with a unit, e.g. '10Mbps', '20ms', '50pkt'"
    if pair and isinstance(value, (list, tuple)):
        if len(value) != 2:
            raise TypeError(f"{what}: expected one value or a pair [a->b, b->a], got {value!r}")
        return [_check(v, what, _QUANTITY, hint) for v in value]
    return _check(value, what, _QUANTITY, hint + (" (or a pair of them)" if pair else ""))


def _fields(fields: dict[str, Any], what: str) -> dict[str, Any]:
    """Keyword fields passed through as they are (str, int, float, bool, lists, dicts)."""
    allowed = (str, int, float, bool, list, tuple, dict)
    out = {}
    for key, value in fields.items():
        if value is None:
            continue
        _check(value, f"{what}.{key}", allowed, "a str, number, bool, list or dict")
        out[key] = list(value) if isinstance(value, tuple) else value
    return out


# The engine's parser of each kind of quantity a topology's argument holds.
_PARSERS: dict[str, Callable[[str], Any]] = {
    "rate": _ccsim.parse_rate,
    "time": _ccsim.parse_time,
    "size": _ccsim.parse_size,
}


def _parse_buffer(text: str) -> None:
    """Check a buffer limit as the engine reads it: a packet count ("40pkt") or a size."""
    stripped = text.strip()
    for suffix in ("packets", "pkts", "pkt"):
        if stripped.endswith(suffix):
            number = stripped[: -len(suffix)].strip()
            try:
                whole = float(number).is_integer() and float(number) >= 1
            except ValueError:
                whole = False
            if not whole:
                raise _ccsim.ScenarioError(
                    f"buffer: packet count {text!r} must be a whole number of at least 1, "
                    'e.g. "40pkt"'
                )
            return
    try:
        _ccsim.parse_size(stripped)
    except _ccsim.ScenarioError as exc:
        raise _ccsim.ScenarioError(
            f'{exc} (a buffer is a size like "64kB" or a packet count like "40pkt")'
        ) from None


def _unit_arg(value: Any, arg: str, kind: str, where: str) -> Any:
    """A topology's argument with a unit (``kind`` "rate", "time", "size" or "buffer"),
    read by the engine's parser now, so that an error names the argument, the value and
    the fix (``Scenario.dumbbell: bottleneck='10 Mbit': unknown rate unit 'Mbit' in
    '10 Mbit' (did you mean "10Mbps"?); ...``) rather than a field of the built file."""
    if value is None:
        return None
    if isinstance(value, (list, tuple)):  # a pair [a->b, b->a], as add_link takes
        for one in _quantity(value, arg, pair=True):
            _unit_arg(one, arg, kind, where)
        return value
    _quantity(value, arg)
    try:
        if kind == "buffer":
            _parse_buffer(value)
        else:
            _PARSERS[kind](value)
    except _ccsim.ScenarioError as exc:
        message = str(exc)
        prefix = f"{'size' if kind == 'buffer' else kind}: "
        message = message[len(prefix) :] if message.startswith(prefix) else message
        message = message[len("buffer: ") :] if message.startswith("buffer: ") else message
        raise _ccsim.ScenarioError(f"{where}: {arg}={value!r}: {message}") from None
    return value


def _misplaced(defaults: dict[str, Any], meant: dict[str, str], where: str) -> None:
    """Refuse a keyword that would go to ``[defaults]`` but is another builder's argument
    (``Scenario.dumbbell(rate=...)``: its bottleneck's rate is ``bottleneck``)."""
    for key, argument in meant.items():
        if key in defaults:
            raise _ccsim.ScenarioError(
                f"{where}: {key}={defaults[key]!r}: not an argument of this builder (further "
                f"keywords go to [defaults], which has no {key}); did you mean "
                f"{argument}={defaults[key]!r}?"
            )


class ScenarioBuilder:
    """A scenario being built: methods add to it and return the builder (chainable).

    :meth:`to_dict` gives the scenario-file schema; :meth:`build` the
    :class:`ccsim.Scenario`; :meth:`check`, :meth:`to_toml` and :meth:`run` are the
    scenario's. ``ccsim.run`` and ``ccsim.sweep`` accept the builder too (via
    :meth:`to_dict`).
    """

    def __init__(
        self,
        name: str,
        duration: str,
        *,
        description: str | None = None,
        seed: int | None = None,
        conversations: str | None = None,
        routing: str | None = None,
    ) -> None:
        self._scenario: dict[str, Any] = {
            "name": _name(name, "scenario.name"),
            "duration": _quantity(duration, "scenario.duration"),
        }
        if description is not None:
            self._scenario["description"] = _check(description, "scenario.description", (str,), "a str")
        if seed is not None:
            self._scenario["seed"] = _check(seed, "scenario.seed", (int,), "an int")
        if conversations is not None:
            # "flow" (default) or "host_pair"; the engine checks the value.
            self._scenario["conversations"] = _check(
                conversations, "scenario.conversations", (str,), "a str"
            )
        if routing is not None:
            # "shortest" (default), "ecmp" or "ecmp_per_hop"; the engine checks the value.
            self._scenario["routing"] = _check(routing, "scenario.routing", (str,), "a str")
        self._defaults: dict[str, Any] = {}
        self._hosts: list[str] = []
        self._routers: list[str] = []
        self._processing_delay: dict[str, str] = {}
        self._processing_jitter: dict[str, str] = {}
        self._links: list[dict[str, Any]] = []
        self._flows: list[dict[str, Any]] = []
        self._workloads: list[dict[str, Any]] = []
        self._phases: list[dict[str, Any]] = []
        self._measure: dict[str, Any] = {}
        self._elements: list[dict[str, Any]] = []
        self._changes: list[dict[str, Any]] = []

    def __repr__(self) -> str:
        return (
            f"<ccsim.ScenarioBuilder {self._scenario['name']!r}: {len(self._hosts)} hosts, "
            f"{len(self._routers)} routers, {len(self._links)} links, {len(self._flows)} flows"
            + (f", {len(self._workloads)} workloads>" if self._workloads else ">")
        )

    @property
    def name(self) -> str:
        return self._scenario["name"]

    # Sections ----------------------------------------------------------------------

    def defaults(self, **fields: Any) -> ScenarioBuilder:
        """Set ``[defaults]`` fields (``cc="reno"``, ``qdisc="fq"``, ``buffer="40pkt"``,
        ``start_jitter="1s"``, ...); later calls add to or replace earlier ones."""
        self._defaults.update(_fields(fields, "defaults"))
        return self

    def _node(self, kind: list[str], name: str, delay: str | None, jitter: str | None) -> None:
        kind.append(_name(name, "nodes"))
        if delay is not None:
            self._processing_delay[name] = _quantity(delay, f"nodes.processing_delay.{name}")
        if jitter is not None:
            self._processing_jitter[name] = _quantity(jitter, f"nodes.processing_jitter.{name}")

    def add_host(
        self, name: str, *, processing_delay: str | None = None, processing_jitter: str | None = None
    ) -> ScenarioBuilder:
        """An endpoint: flows start and end at hosts."""
        self._node(self._hosts, name, processing_delay, processing_jitter)
        return self

    def add_router(
        self, name: str, *, processing_delay: str | None = None, processing_jitter: str | None = None
    ) -> ScenarioBuilder:
        """A node that forwards."""
        self._node(self._routers, name, processing_delay, processing_jitter)
        return self

    def add_link(
        self,
        a: str,
        b: str,
        *,
        rate: str | list[str],
        delay: str | list[str] | None = None,
        buffer: str | list[str] | None = None,
        qdisc: str | dict[str, Any] | None = None,
        name: str | None = None,
    ) -> ScenarioBuilder:
        """A duplex link (channels ``a->b`` and ``b->a``); ``rate``, ``delay`` and
        ``buffer`` may be pairs [a->b, b->a]."""
        link: dict[str, Any] = {}
        if name is not None:
            link["name"] = _name(name, "links.name")
        link["between"] = [_name(a, "links.between"), _name(b, "links.between")]
        link["rate"] = _quantity(rate, "links.rate", pair=True)
        if delay is not None:
            link["delay"] = _quantity(delay, "links.delay", pair=True)
        if buffer is not None:
            link["buffer"] = _quantity(buffer, "links.buffer", pair=True)
        if qdisc is not None:
            link["qdisc"] = copy.deepcopy(
                _check(qdisc, "links.qdisc", (str, dict), "a name or a table (dict)")
            )
        self._links.append(link)
        return self

    def add_flow(
        self,
        name: str,
        src: str,
        dst: str,
        *,
        kind: str | None = None,
        cc: str | None = None,
        params: dict[str, Any] | None = None,
        **fields: Any,
    ) -> ScenarioBuilder:
        """A flow from host ``src`` to host ``dst``. ``kind`` is one of the engine's flow
        kinds (``ccsim list flow``, docs/components.md): "window" (default: a window
        sender under the congestion control ``cc``), "cbr" (constant bit rate), "poisson"
        (Poisson arrivals), "cadpc" (CADPC, Welzl), "rap" (RAP/GAIMD), "tfrc" (TFRC,
        RFC 5348), "tear" (TEAR) or "voice" (Heybey's packet voice). Any other field of
        ``[[flows]]`` as a keyword (``start="1s"``, ``rate="40kbps"``,
        ``on=[["0s", "300s"]]``, ``max_window="40pkt"``, ...); ``params`` is the
        ``[flows.params]`` table (the congestion control's or the rate sender's)."""
        flow: dict[str, Any] = {"name": _name(name, "flows.name")}
        if kind is not None:
            flow["kind"] = _check(kind, "flows.kind", (str,), "a flow kind (`ccsim list flow`)")
        flow["from"] = _name(src, "flows.from")
        flow["to"] = _name(dst, "flows.to")
        if cc is not None:
            flow["cc"] = _check(cc, "flows.cc", (str,), "a congestion control's name")
        flow.update(_fields(fields, "flows"))
        if params is not None:
            flow["params"] = copy.deepcopy(_check(params, "flows.params", (dict,), "a dict"))
        self._flows.append(flow)
        return self

    def flow_options(self, options: dict[str, dict[str, Any]], where: str = "flow_options") -> ScenarioBuilder:
        """Give flows their own ``[[flows]]`` fields, over the ``[defaults]``:
        ``{"flow5": {"cc": "cubic", "params": {"beta": 0.7}}, "flow6": {"start": "5s"}}``
        (keys are flow names; the topologies also take a dumbbell's flow index). A field
        given again replaces the earlier value."""
        _check(options, where, (dict,), "a dict {flow name: {field: value}}")
        by_name = {f["name"]: f for f in self._flows}
        for key, fields in options.items():
            flow = by_name.get(key) if isinstance(key, str) else None
            if flow is None:
                known = ", ".join(by_name) or "none"
                raise _ccsim.ScenarioError(
                    f"{where}: {key!r} is not a flow of this scenario; give one of {known}"
                )
            _check(fields, f"{where}[{key!r}]", (dict,), "a dict of [[flows]] fields")
            for fixed in ("name", "from", "to"):
                if fixed in fields:
                    raise _ccsim.ScenarioError(
                        f"{where}[{key!r}].{fixed}: the topology sets a flow's {fixed}; "
                        "give it other fields (cc, params, start, ...)"
                    )
            flow.update(copy.deepcopy(_fields(fields, f"{where}[{key!r}]")))
        return self

    def add_workload(
        self,
        name: str,
        kind: str = "poisson",
        *,
        src: list[str] | None = None,
        flow: dict[str, Any] | None = None,
        **fields: Any,
    ) -> ScenarioBuilder:
        """Flows generated by the run from its seed (``[[workloads]]``,
        docs/scenario-format.md "Workloads"): ``kind`` "poisson" (arrivals offering
        ``load`` of a ``link``'s rate or of the hosts' access links, ``sizes`` =
        "web_search", "data_mining" or a CDF file, or one ``size``; ``pattern`` "uniform",
        "permutation" or "all_to_one" with ``to``), "permutation" (one flow per host) or
        "incast" (``senders`` hosts, or the hosts listed in ``src``, each send ``size`` to
        ``to``, ``rounds`` times every ``interval``). ``flow`` holds the window-flow keys
        every generated flow takes (``{"cc": "dctcp", "params": {...}}``); the flows are
        named ``<name>1``, ``<name>2``, ... ::

            b = ccsim.Scenario.leaf_spine(data_size="1500B")
            b.add_workload("ws", load=0.6, sizes="web_search", flow={"cc": "dctcp"})
        """
        w: dict[str, Any] = {"name": _name(name, "workloads.name")}
        w["kind"] = _check(kind, "workloads.kind", (str,), "'poisson', 'permutation' or 'incast'")
        if src is not None:
            w["from"] = [_name(h, "workloads.from") for h in _check(src, "workloads.from", (list, tuple), "a list of host names")]
        w.update(_fields(fields, "workloads"))
        if flow is not None:
            w["flow"] = copy.deepcopy(_check(flow, "workloads.flow", (dict,), "a dict of window-flow keys"))
        self._workloads.append(w)
        return self

    def add_phase(self, name: str, start: str, end: str) -> ScenarioBuilder:
        """A named measurement period."""
        self._phases.append(
            {
                "name": _name(name, "phases.name"),
                "start": _quantity(start, "phases.start"),
                "end": _quantity(end, "phases.end"),
            }
        )
        return self

    def add_element(self, kind: str, at: str | list[str], **params: Any) -> ScenarioBuilder:
        """An element on a channel, a link (both channels) or a list of them
        (``add_element("random_loss", "bottleneck", p=0.01)``)."""
        element: dict[str, Any] = {"kind": _check(kind, "elements.kind", (str,), "a str")}
        element["at"] = list(at) if isinstance(at, (list, tuple)) else _name(at, "elements.at")
        element.update(_fields(params, "elements"))
        self._elements.append(element)
        return self

    def add_change(
        self,
        at: str,
        *,
        link: str | None = None,
        channel: str | None = None,
        rate: str | None = None,
        delay: str | None = None,
    ) -> ScenarioBuilder:
        """A scheduled change of a link's (or one channel's) rate and/or delay."""
        change: dict[str, Any] = {"at": _quantity(at, "changes.at")}
        if link is not None:
            change["link"] = _name(link, "changes.link")
        if channel is not None:
            change["channel"] = _name(channel, "changes.channel")
        if rate is not None:
            change["rate"] = _quantity(rate, "changes.rate")
        if delay is not None:
            change["delay"] = _quantity(delay, "changes.delay")
        self._changes.append(change)
        return self

    def measure(
        self,
        *,
        interval: str | None = None,
        series: list[str] | None = None,
        delays: list[str] | bool | None = None,
        sample: str | None = None,
        max_points: int | None = None,
    ) -> ScenarioBuilder:
        """Set ``[measure]``: ``interval``, ``series`` (``"flow1.cwnd"``,
        ``"left->right.queue"``), ``delays`` (flow names, or True for all), and the
        series' sampling: ``sample`` (a bucket width, ``"10ms"``) or ``max_points`` (at
        most this many points per series), not both."""
        if sample is not None:
            self._measure["sample"] = _quantity(sample, "measure.sample")
        if max_points is not None:
            self._measure["max_points"] = _check(max_points, "measure.max_points", (int,), "an int")
        if interval is not None:
            self._measure["interval"] = _quantity(interval, "measure.interval")
        if series is not None:
            self._measure["series"] = [
                _name(s, "measure.series") for s in _check(series, "measure.series", (list, tuple), "a list")
            ]
        if delays is not None:
            value = _check(delays, "measure.delays", (list, tuple, bool), "a list of flows or a bool")
            self._measure["delays"] = list(value) if isinstance(value, (list, tuple)) else value
        return self

    # The scenario ------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The scenario in the scenario-file schema (a new dict each call)."""
        doc: dict[str, Any] = {"scenario": dict(self._scenario)}
        if self._defaults:
            doc["defaults"] = dict(self._defaults)
        nodes: dict[str, Any] = {"hosts": list(self._hosts), "routers": list(self._routers)}
        if self._processing_delay:
            nodes["processing_delay"] = dict(self._processing_delay)
        if self._processing_jitter:
            nodes["processing_jitter"] = dict(self._processing_jitter)
        doc["nodes"] = nodes
        doc["links"] = self._links
        doc["flows"] = self._flows
        if self._workloads:
            doc["workloads"] = self._workloads
        if self._phases:
            doc["phases"] = self._phases
        if self._measure:
            doc["measure"] = self._measure
        if self._elements:
            doc["elements"] = self._elements
        if self._changes:
            doc["changes"] = self._changes
        return copy.deepcopy(doc)

    def build(self) -> Scenario:
        """The :class:`ccsim.Scenario` (not yet validated: :meth:`check` or running it
        does that)."""
        return Scenario.from_dict(self.to_dict(), source=f"<builder {self.name}>")

    def check(self) -> dict[str, Any]:
        """Validate; the scenario with every default filled in (``Scenario.check``)."""
        return self.build().check()

    def to_toml(self) -> str:
        """The validated scenario as a scenario file's TOML text."""
        return self.build().to_toml()

    def run(self, seed: int | None = None, **options: Any) -> Results:
        """Run the scenario; same as ``ccsim.run(self, seed, **options)`` (``progress``,
        ``max_events``, ``max_wall``)."""
        return run(self, seed, **options)


# Topologies --------------------------------------------------------------------------------


def fmt_time(seconds: float) -> str:
    """Seconds as a time string in the largest unit that keeps it whole (``0.02`` ->
    ``"20ms"``), else in picoseconds (the engine's resolution)."""
    if seconds == 0:
        return "0s"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        value = seconds / scale
        if abs(value) >= 1 and abs(value - round(value)) <= 1e-9 * abs(value):
            return f"{round(value)}{unit}"
    return f"{round(seconds * 1e12)}ps"


def fmt_rate(bps: float) -> str:
    """Bits per second as a rate string in the largest unit that keeps it whole."""
    for unit, scale in (("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3)):
        value = bps / scale
        if value >= 1 and abs(value - round(value)) <= 1e-9 * value:
            return f"{round(value)}{unit}"
    return f"{round(bps)}bps"


def _access_rate(access_rate: str | None, rate: str, what: str) -> str:
    if access_rate is not None:
        return _quantity(access_rate, "access_rate")
    return fmt_rate(10 * _ccsim.parse_rate(_quantity(rate, what)))


def dumbbell(
    n_flows: int = 2,
    *,
    bottleneck: str = "10Mbps",
    delay: str = "10ms",
    buffer: str | None = None,
    qdisc: str | dict[str, Any] | None = None,
    cc: str | None = None,
    access_rate: str | None = None,
    access_delay: str = "1ms",
    rtt_spread: str | None = None,
    duration: str = "60s",
    name: str = "dumbbell",
    seed: int | None = None,
    flow_options: dict[int | str, dict[str, Any]] | None = None,
    **defaults: Any,
) -> ScenarioBuilder:
    """``n_flows`` window flows ``flow1..flowN`` from hosts ``src1..srcN`` over routers
    ``left`` and ``right`` to hosts ``dst1..dstN``.

    The link ``bottleneck`` (left-right) has ``bottleneck`` rate, one-way ``delay``,
    ``buffer`` and ``qdisc``; the access links have ``access_rate`` (default ten times the
    bottleneck) and ``access_delay``, so the base round trip is 2 (delay + 2
    access_delay). ``rtt_spread`` lengthens flow i's sender access link so that the base
    round trips are spread evenly from that up to ``rtt_spread`` more. ``cc`` and any
    further keyword (``ecn=True``, ``start_jitter="1s"``, ``data_size="1500B"``) go to
    ``[defaults]``. ``flow_options`` gives flows their own ``[[flows]]`` fields, keyed by
    index (1 is ``flow1``) or name: ``flow_options={5: {"cc": "cubic"}, "flow6":
    {"start": "5s", "params": {"min_rto": "1s"}}}``. A quantity with a bad unit is
    refused here, naming the argument (``bottleneck='10 Mbit': ... did you mean
    "10Mbps"?``).
    """
    where = "Scenario.dumbbell"
    _check(n_flows, "n_flows", (int,), "a positive int")
    _misplaced(defaults, {"rate": "bottleneck", "bandwidth": "bottleneck"}, where)
    _unit_arg(bottleneck, "bottleneck", "rate", where)
    _unit_arg(delay, "delay", "time", where)
    _unit_arg(buffer, "buffer", "buffer", where)
    _unit_arg(access_rate, "access_rate", "rate", where)
    _unit_arg(duration, "duration", "time", where)
    access = _access_rate(access_rate, bottleneck, "bottleneck")
    base_access = _ccsim.parse_time(_unit_arg(access_delay, "access_delay", "time", where))
    spread = _ccsim.parse_time(_unit_arg(rtt_spread, "rtt_spread", "time", where)) if rtt_spread else 0.0
    b = ScenarioBuilder(name, duration, seed=seed)
    if cc is not None:
        b.defaults(cc=cc)
    b.defaults(**defaults)
    for i in range(1, n_flows + 1):
        b.add_host(f"src{i}")
    for i in range(1, n_flows + 1):
        b.add_host(f"dst{i}")
    b.add_router("left").add_router("right")
    b.add_link("left", "right", rate=bottleneck, delay=delay, buffer=buffer, qdisc=qdisc,
               name="bottleneck")  # fmt: skip
    for i in range(1, n_flows + 1):
        extra = spread * (i - 1) / (n_flows - 1) / 2 if n_flows > 1 else 0.0
        b.add_link(f"src{i}", "left", rate=access, delay=fmt_time(base_access + extra))
    for i in range(1, n_flows + 1):
        b.add_link("right", f"dst{i}", rate=access, delay=access_delay)
    for i in range(1, n_flows + 1):
        b.add_flow(f"flow{i}", f"src{i}", f"dst{i}")
    if flow_options is not None:
        _check(flow_options, "flow_options", (dict,), "a dict {flow index or name: {field: value}}")
        named = {}
        for key, fields in flow_options.items():
            if isinstance(key, int) and not isinstance(key, bool):
                if not 1 <= key <= n_flows:
                    raise _ccsim.ScenarioError(
                        f"{where}: flow_options: flow index {key} is not in 1..{n_flows} "
                        f"(flow1..flow{n_flows}); give an index in that range or a flow's name"
                    )
                key = f"flow{key}"
            if key in named:
                raise _ccsim.ScenarioError(
                    f"{where}: flow_options: {key!r} is given twice (by index and by name); "
                    "give it once"
                )
            named[key] = fields
        b.flow_options(named, f"{where}: flow_options")
    return b


def parking_lot(
    n_hops: int = 3,
    *,
    rate: str = "10Mbps",
    delay: str = "10ms",
    buffer: str | None = None,
    qdisc: str | dict[str, Any] | None = None,
    cc: str | None = None,
    cross_flows: int = 1,
    access_rate: str | None = None,
    access_delay: str = "1ms",
    duration: str = "60s",
    name: str = "parking-lot",
    seed: int | None = None,
    flow_options: dict[str, dict[str, Any]] | None = None,
    **defaults: Any,
) -> ScenarioBuilder:
    """Routers ``r0..rN`` in a chain of links ``hop1..hopN`` (``rate``, ``delay``,
    ``buffer``, ``qdisc`` each); the flow ``long`` crosses every hop (hosts ``long-src``
    on r0, ``long-dst`` on rN) and ``cross_flows`` flows cross each hop i alone
    (``cross<i>``, or ``cross<i>-<j>`` for several; hosts ``<flow>-src`` on r(i-1) and
    ``<flow>-dst`` on r(i)). Access links: ``access_rate`` (default ten times ``rate``)
    and ``access_delay``. ``cc`` and further keywords go to ``[defaults]``;
    ``flow_options`` gives flows their own ``[[flows]]`` fields by name
    (``flow_options={"long": {"cc": "cubic"}}``)."""
    where = "Scenario.parking_lot"
    _check(n_hops, "n_hops", (int,), "a positive int")
    _check(cross_flows, "cross_flows", (int,), "an int")
    _misplaced(defaults, {"bottleneck": "rate", "bandwidth": "rate"}, where)
    _unit_arg(rate, "rate", "rate", where)
    _unit_arg(delay, "delay", "time", where)
    _unit_arg(buffer, "buffer", "buffer", where)
    _unit_arg(access_rate, "access_rate", "rate", where)
    _unit_arg(access_delay, "access_delay", "time", where)
    _unit_arg(duration, "duration", "time", where)
    access = _access_rate(access_rate, rate, "rate")
    b = ScenarioBuilder(name, duration, seed=seed)
    if cc is not None:
        b.defaults(cc=cc)
    b.defaults(**defaults)
    flows = [("long", 0, n_hops)]
    for i in range(1, n_hops + 1):
        for j in range(1, cross_flows + 1):
            flows.append((f"cross{i}" if cross_flows == 1 else f"cross{i}-{j}", i - 1, i))
    for flow, _, _ in flows:
        b.add_host(f"{flow}-src")
    for flow, _, _ in flows:
        b.add_host(f"{flow}-dst")
    for k in range(n_hops + 1):
        b.add_router(f"r{k}")
    for i in range(1, n_hops + 1):
        b.add_link(f"r{i - 1}", f"r{i}", rate=rate, delay=delay, buffer=buffer, qdisc=qdisc,
                   name=f"hop{i}")  # fmt: skip
    for flow, first, last in flows:
        b.add_link(f"{flow}-src", f"r{first}", rate=access, delay=access_delay)
        b.add_link(f"r{last}", f"{flow}-dst", rate=access, delay=access_delay)
    for flow, _, _ in flows:
        b.add_flow(flow, f"{flow}-src", f"{flow}-dst")
    if flow_options is not None:
        b.flow_options(flow_options, f"{where}: flow_options")
    return b


def _datacenter_defaults(min_rto: str | None, defaults: dict[str, Any]) -> dict[str, Any]:
    """The fabrics' ``[defaults]``: 1500-byte packets and 64-byte acks (Ethernet's MTU and
    its smallest frame), and a minimum retransmission timeout of ``min_rto`` in ``params``
    (10 ms, the RTO_min of the incast and benchmark experiments of Alizadeh et al., DCTCP,
    SIGCOMM 2010, section 4, against Linux's 200 ms and RFC 6298's 1 s, which would stall
    a flow of microsecond round trips for thousands of them after one loss; ``None``: the
    policies' own); ``defaults`` given by the caller win key by key."""
    out: dict[str, Any] = {"data_size": "1500B", "ack_size": "64B"}
    if min_rto is not None:
        out["params"] = {"min_rto": _quantity(min_rto, "min_rto")}
    for key, value in defaults.items():
        if key == "params" and isinstance(value, dict) and isinstance(out.get("params"), dict):
            out["params"] = {**out["params"], **value}
        else:
            out[key] = value
    return out


def leaf_spine(
    leaves: int = 8,
    hosts_per_leaf: int = 16,
    spines: int = 4,
    *,
    host_rate: str = "10Gbps",
    uplink_rate: str = "40Gbps",
    delay: str = "1us",
    buffer: str | None = None,
    qdisc: str | dict[str, Any] | None = None,
    routing: str = "ecmp",
    duration: str = "0.1s",
    name: str = "leaf-spine",
    seed: int | None = None,
    min_rto: str | None = "10ms",
    **defaults: Any,
) -> ScenarioBuilder:
    """A two-tier leaf-spine fabric: hosts ``h<l>-<i>`` on leaf routers ``leaf<l>``
    (links ``host_rate``), every leaf linked to every spine ``spine<s>`` (``uplink_rate``);
    every link ``delay``, ``buffer`` and ``qdisc``. Routing is ``"ecmp"`` by default: a
    flow between leaves takes one of the ``spines`` equal-cost paths. No flows: add them
    with ``add_flow`` or ``add_workload`` (hosts are ``h0-0`` ... ``h<leaves-1>-<hosts_per_leaf-1>``).
    ``defaults`` go to ``[defaults]``, over the datacenter defaults: 1500-byte packets,
    64-byte acks and ``min_rto`` (10 ms) for every window flow (``min_rto=None`` for the
    policies' own; a policy without a timer, ``generic``, needs it). The defaults are the
    128-host fabric of 8 leaves of 16 hosts and 4 spines at 10/40 Gbps with 1 us links."""
    for v, what in ((leaves, "leaves"), (hosts_per_leaf, "hosts_per_leaf"), (spines, "spines")):
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise TypeError(f"{what}: expected a positive int, got {v!r}")
    where = "Scenario.leaf_spine"
    _misplaced(defaults, {"rate": "host_rate (and uplink_rate)", "bottleneck": "uplink_rate"}, where)
    for value, arg, kind in (
        (host_rate, "host_rate", "rate"), (uplink_rate, "uplink_rate", "rate"),
        (delay, "delay", "time"), (buffer, "buffer", "buffer"), (duration, "duration", "time"),
        (min_rto, "min_rto", "time"),
    ):  # fmt: skip
        _unit_arg(value, arg, kind, where)
    b = ScenarioBuilder(name, duration, seed=seed, routing=routing)
    b.defaults(**_datacenter_defaults(min_rto, defaults))
    for leaf in range(leaves):
        for i in range(hosts_per_leaf):
            b.add_host(f"h{leaf}-{i}")
    for leaf in range(leaves):
        b.add_router(f"leaf{leaf}")
    for s in range(spines):
        b.add_router(f"spine{s}")
    link = {"delay": delay, "buffer": buffer, "qdisc": qdisc}
    for leaf in range(leaves):
        for i in range(hosts_per_leaf):
            b.add_link(f"h{leaf}-{i}", f"leaf{leaf}", rate=host_rate, **link)
    for leaf in range(leaves):
        for s in range(spines):
            b.add_link(f"leaf{leaf}", f"spine{s}", rate=uplink_rate, **link)
    return b


def fat_tree(
    k: int = 8,
    *,
    rate: str = "10Gbps",
    delay: str = "1us",
    buffer: str | None = None,
    qdisc: str | dict[str, Any] | None = None,
    routing: str = "ecmp",
    duration: str = "0.1s",
    name: str = "fat-tree",
    seed: int | None = None,
    min_rto: str | None = "10ms",
    **defaults: Any,
) -> ScenarioBuilder:
    """A k-ary fat-tree (Al-Fares, Loukissas and Vahdat, SIGCOMM 2008): k pods of k/2 edge
    routers ``e<p>-<i>`` and k/2 aggregation routers ``a<p>-<j>``, (k/2)^2 core routers
    ``c<j>-<m>`` (core c<j>-<m> links to aggregation router j of every pod), k/2 hosts
    ``h<p>-<i>-<h>`` per edge router: k^3/4 hosts, every link ``rate``, ``delay``,
    ``buffer`` and ``qdisc``. Routing ``"ecmp"`` by default: (k/2)^2 equal-cost paths
    between pods, k/2 within a pod. No flows: add them with ``add_flow`` or
    ``add_workload``. Datacenter defaults as for :func:`leaf_spine` (1500-byte packets,
    64-byte acks, ``min_rto`` 10 ms)."""
    if not isinstance(k, int) or isinstance(k, bool) or k < 2 or k % 2:
        raise TypeError(f"k: expected an even int of at least 2, got {k!r}")
    where = "Scenario.fat_tree"
    _misplaced(defaults, {"bottleneck": "rate", "host_rate": "rate", "uplink_rate": "rate"}, where)
    for value, arg, kind in (
        (rate, "rate", "rate"), (delay, "delay", "time"), (buffer, "buffer", "buffer"),
        (duration, "duration", "time"), (min_rto, "min_rto", "time"),
    ):  # fmt: skip
        _unit_arg(value, arg, kind, where)
    half = k // 2
    b = ScenarioBuilder(name, duration, seed=seed, routing=routing)
    b.defaults(**_datacenter_defaults(min_rto, defaults))
    for p in range(k):
        for i in range(half):
            for h in range(half):
                b.add_host(f"h{p}-{i}-{h}")
    for p in range(k):
        for i in range(half):
            b.add_router(f"e{p}-{i}")
        for j in range(half):
            b.add_router(f"a{p}-{j}")
    for j in range(half):
        for m in range(half):
            b.add_router(f"c{j}-{m}")
    link = {"rate": rate, "delay": delay, "buffer": buffer, "qdisc": qdisc}
    for p in range(k):
        for i in range(half):
            for h in range(half):
                b.add_link(f"h{p}-{i}-{h}", f"e{p}-{i}", **link)
        for i in range(half):
            for j in range(half):
                b.add_link(f"e{p}-{i}", f"a{p}-{j}", **link)
        for j in range(half):
            for m in range(half):
                b.add_link(f"a{p}-{j}", f"c{j}-{m}", **link)
    return b


# Scenarios --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    """A scenario file's text, where it came from and a list of ``KEY=VALUE`` overrides.

    Immutable: :meth:`set` returns a new scenario. Overrides are applied by the engine
    (see "Overrides" in docs/scenario-format.md) when the scenario is checked or run.
    ``fmt`` is ``"toml"`` (a scenario file) or ``"json"`` (the same schema as JSON, as
    made by :meth:`from_dict`).
    """

    text: str
    source: str = "<string>"
    overrides: tuple[str, ...] = field(default=())
    fmt: str = "toml"

    # Building scenarios in Python (the builder above): each returns a ScenarioBuilder.
    dumbbell = staticmethod(dumbbell)
    parking_lot = staticmethod(parking_lot)
    leaf_spine = staticmethod(leaf_spine)
    fat_tree = staticmethod(fat_tree)

    @staticmethod
    def builder(
        name: str,
        duration: str,
        *,
        description: str | None = None,
        seed: int | None = None,
        conversations: str | None = None,
        routing: str | None = None,
    ) -> ScenarioBuilder:
        """An empty scenario to build with ``add_host``, ``add_router``, ``add_link``,
        ``add_flow``, ``add_phase``, ``add_element``, ``add_change``, ``defaults`` and
        ``measure``. ``conversations`` is ``[scenario].conversations``: how Fair Queueing
        classifies packets, ``"flow"`` (default) or ``"host_pair"``; ``routing`` is
        ``[scenario].routing``, ``"shortest"`` (default), ``"ecmp"`` (a path per flow,
        every equal-cost path alike) or ``"ecmp_per_hop"`` (a next hop per router,
        every equal-cost branch alike)."""
        return ScenarioBuilder(
            name, duration, description=description, seed=seed, conversations=conversations, routing=routing
        )

    @classmethod
    def from_dict(cls, doc: dict[str, Any], source: str = "<dict>") -> Scenario:
        """A scenario from a dict in the scenario-file schema (what :meth:`check`
        returns). Keys whose value is ``None`` are left out (the default applies)."""
        if not isinstance(doc, dict):
            raise _ccsim.ScenarioError(
                f"{source}: expected a dict in the scenario-file schema, got "
                f"{type(doc).__name__}"
            )
        try:
            text = json.dumps(_drop_none(doc), allow_nan=False)
        except _BadNumber:
            raise _ccsim.ScenarioError(f"{source}: {_bad_number_message(doc)}") from None
        except (TypeError, ValueError) as exc:
            raise _ccsim.ScenarioError(
                f"{source}: not a scenario: {exc}; use str, int, float, bool, list and dict "
                "values"
            ) from None
        return cls(text, source, (), "json")

    def set(self, key: str, value: Any) -> Scenario:
        """Return a copy with the override ``key=value`` added.

        ``value`` may be a string (read as a TOML value when it parses as one, else as a
        string, exactly like ``--set``), a bool, an int, a float, or a list or dict of
        those: a dict is a TOML inline table, as ``--set KEY='{ a = 1, b = "x" }'``
        (``set("flows.f.params", {"beta": 0.7})`` replaces the whole ``params`` table;
        ``set("flows.f.params.beta", 0.7)`` sets one key of it).
        """
        if not isinstance(key, str) or not key or "=" in key:
            raise _ccsim.ScenarioError(
                f"{self.source}: override key {key!r}: not a dotted path; "
                "write e.g. 'defaults.cc'"
            )
        return self.with_overrides([f"{key}={_override_value(value)}"])

    def with_overrides(self, overrides: list[str] | tuple[str, ...]) -> Scenario:
        """Return a copy with ``KEY=VALUE`` strings (as given to ``--set``) added."""
        for item in overrides:
            key, sep, _ = item.partition("=")
            if not sep or not key.strip():
                raise _ccsim.ScenarioError(
                    f"{self.source}: --set {item!r}: expected KEY=VALUE; "
                    "write e.g. --set defaults.cc=reno"
                )
        return Scenario(self.text, self.source, self.overrides + tuple(overrides), self.fmt)

    def check(self) -> dict[str, Any]:
        """Validate the scenario (with its overrides); return it in the scenario-file
        schema with every default filled in and every route explicit, as a dict that
        :meth:`from_dict` (or ``ccsim.run``) accepts again."""
        return json.loads(_ccsim.check(self.text, self.source, list(self.overrides), self.fmt))

    def to_toml(self) -> str:
        """The validated scenario (overrides applied, defaults filled in) as a scenario
        file's TOML text."""
        return _ccsim.check(self.text, self.source, list(self.overrides), self.fmt, "toml")

    def run(
        self,
        seed: int | None = None,
        *,
        progress: bool | Callable[[float, float, int], None] | None = None,
        max_events: int | None = None,
        max_wall: float | None = None,
    ) -> Results:
        """Run the scenario; same as ``ccsim.run(self, seed, ...)``: ``progress``,
        ``max_events`` and ``max_wall`` as there."""
        return run(self, seed, progress=progress, max_events=max_events, max_wall=max_wall)


class _BadNumber(ValueError):
    """A number the JSON handed to the engine cannot carry (``_bad_number`` names it)."""


def _drop_none(value: Any) -> Any:
    """``value`` without the keys whose value is None. A number JSON cannot carry to the
    engine raises ``_BadNumber`` (the engine's JSON parser used to report it as
    "expected value at line 1 column 43")."""
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_drop_none(v) for v in value]
    if _bad_number(value):
        raise _BadNumber(value)
    return value


def _bad_number(value: Any) -> str | None:
    """What is wrong with ``value`` if it is a number a scenario cannot hold."""
    if isinstance(value, float) and not math.isfinite(value):
        return (
            f"{value!r} is not a number a scenario can hold (a dict goes to the engine as "
            "JSON, which has no NaN or infinity); give a finite number"
        )
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**63:
        return (
            f"{value} is too large for a scenario's integers (at most {2**63 - 1} in "
            "magnitude, as in TOML); give a smaller number"
        )
    return None


def _bad_number_message(value: Any, path: str = "") -> str | None:
    """``path: what is wrong`` for the first bad number in ``value`` (looked for only after
    ``_drop_none`` found one, so that no path is built for a good scenario)."""
    if isinstance(value, dict):
        items = ((f"{path}.{k}" if path else str(k), v) for k, v in value.items() if v is not None)
    elif isinstance(value, (list, tuple)):
        items = ((f"{path}.{_item_name(v, i)}", v) for i, v in enumerate(value))
    else:
        what = _bad_number(value)
        return f"{path}: {what}" if what else None
    return next((m for p, v in items if (m := _bad_number_message(v, p))), None)


def _item_name(item: Any, index: int) -> str:
    """An array element as the engine's messages name it: by its name, else its index."""
    if isinstance(item, dict) and isinstance(item.get("name"), str):
        return item["name"]
    return str(index)


def _override_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_item(v) for v in value) + "]"
    if isinstance(value, dict):
        return _toml_table(value)
    raise TypeError(
        f"cannot use a {type(value).__name__} as an override value; give a str, bool, int, "
        "float, list or dict"
    )


def _toml_item(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a TOML basic string
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_item(v) for v in value) + "]"
    return _override_value(value)


def _toml_table(table: dict[Any, Any]) -> str:
    """A dict as a TOML inline table: ``{ beta = 0.7, "a b" = "x" }``."""
    items = []
    for key, value in table.items():
        if not isinstance(key, str):
            raise TypeError(f"an override's table keys are strings, got {type(key).__name__} {key!r}")
        if value is None:
            raise TypeError(f"{key}: None is not a TOML value; leave the key out for its default")
        bare = key and all(c.isascii() and (c.isalnum() or c in "-_") for c in key)
        items.append(f"{key if bare else json.dumps(key)} = {_toml_item(value)}")
    return "{ " + ", ".join(items) + " }" if items else "{}"


def loads(text: str | dict[str, Any], source: str = "<string>") -> Scenario:
    """Make a scenario from TOML text (or a dict in the scenario-file schema);
    ``source`` names it in error messages.

    Raises ScenarioError if it is not a valid scenario.
    """
    if isinstance(text, dict):
        scenario = Scenario.from_dict(text, source if source != "<string>" else "<dict>")
    else:
        scenario = Scenario(text, source)
    # Validation only (the export check() adds is not needed here), and its warnings.
    found = _ccsim.check(scenario.text, scenario.source, list(scenario.overrides), scenario.fmt, "warnings")
    _warnings.emit(_warnings.parse(found, scenario.source))
    return scenario


def load(path: str | os.PathLike[str]) -> Scenario:
    """Read and validate a scenario file.

    Raises ScenarioError (naming the path) if the file cannot be read or is invalid.
    """
    source = os.fspath(path)
    try:
        text = Path(source).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise _ccsim.ScenarioError(
            f"{source}: no such file; check the path (built-in scenarios are in scenarios/ "
            "and ccsim.scenarios.scenarios_dir(); `ccsim run` also takes their names)"
        ) from None
    except IsADirectoryError:
        raise _ccsim.ScenarioError(f"{source}: is a directory; give a .toml file") from None
    except UnicodeDecodeError as exc:
        raise _ccsim.ScenarioError(f"{source}: not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise _ccsim.ScenarioError(f"{source}: cannot read file: {exc.strerror}") from None
    return loads(text, source)


class Interrupted(KeyboardInterrupt):
    """Raised by :func:`ccsim.run` when Ctrl-C (SIGINT; in Jupyter, the kernel's
    interrupt) stops a run. ``results`` holds what was simulated until then, marked
    partial (``results.partial`` and ``results.raw["partial"]`` are true,
    ``results.stop_reason`` is "interrupted", ``results.sim_time_s`` is how far it got).

    A subclass of ``KeyboardInterrupt``: code that does not catch it stops as on any
    Ctrl-C. To keep the partial results::

        try:
            results = ccsim.run(scenario)
        except ccsim.Interrupted as exc:
            results = exc.results      # partial: up to exc.results.sim_time_s

    ``ccsim run`` prints the partial results and exits with status 130.
    """

    def __init__(self, results: Results) -> None:
        super().__init__(f"interrupted at {results.sim_time_s:g} s simulated")
        self.results = results


def run(
    scenario: Scenario | ScenarioBuilder | dict[str, Any] | str | os.PathLike[str],
    seed: int | None = None,
    *,
    progress: bool | Callable[[float, float, int], None] | None = None,
    max_events: int | None = None,
    max_wall: float | None = None,
) -> Results:
    """Run a scenario: a :class:`Scenario`, a builder (``Scenario.dumbbell(...)``), a
    dict in the scenario-file schema, or a path to a scenario file.

    ``seed`` overrides the scenario's ``[scenario].seed``. The same scenario and seed
    always give the same results (apart from ``wall_time_s``).

    ``progress``: by default (``None``, or ``True``) a progress bar is drawn once the run
    has lasted 2 s (``CCSIM_PROGRESS_DELAY`` seconds if set): on stderr when it is a
    terminal, as a cell output in Jupyter, nowhere else; it is erased when the run ends.
    ``False``: no bar. A callable is called instead as ``progress(sim_time_s, end_s,
    events)`` about every 10 ms of wall time. ``max_events`` and ``max_wall`` (seconds)
    stop the run early (as ``[scenario].max_events`` / ``max_wall`` do); the results are
    then marked partial. Progress, Ctrl-C and ``max_wall`` are looked at about every
    10 ms, whatever an event costs. Ctrl-C stops the run and raises
    :class:`Interrupted`, which carries the partial results.
    """
    if isinstance(scenario, dict):
        scenario = Scenario.from_dict(scenario)
    elif isinstance(scenario, ScenarioBuilder):
        scenario = scenario.build()
    elif not isinstance(scenario, Scenario):
        scenario = load(scenario)
    if seed is not None and not _is_seed(seed):
        raise _ccsim.ScenarioError(
            f"{scenario.source}: seed: {seed!r} is not an integer in [0, 2**64); "
            "give e.g. seed=1"
        )
    if max_events is not None and (not _is_seed(max_events) or max_events == 0):
        raise _ccsim.ScenarioError(
            f"{scenario.source}: max_events: {max_events!r} is not a positive integer"
        )
    if max_wall is not None and not (isinstance(max_wall, (int, float)) and max_wall > 0):
        raise _ccsim.ScenarioError(
            f"{scenario.source}: max_wall: {max_wall!r} is not a positive number of seconds"
        )
    bar = None
    callback: Callable[[float, float, int], None] | None = None
    if progress is None or progress is True:
        from ccsim._progress import RunProgress, bar_kind, progress_delay

        delay = progress_delay()
        kind = bar_kind()
        if kind is not None:
            bar = RunProgress(Path(scenario.source).name, delay, kind=kind)
            callback = bar.update
    elif callable(progress):
        callback = progress
    elif progress is not False:
        raise _ccsim.ScenarioError(
            f"{scenario.source}: progress: {progress!r} is not True, False, None or a "
            "callable progress(sim_time_s, end_s, events)"
        )
    found: list[_warnings.ScenarioWarning] = []

    def warn(text: str) -> None:
        found.extend(_warnings.parse(text, scenario.source))
        _warnings.emit(found)

    start = time.perf_counter()
    try:
        payload = _ccsim.run(
            scenario.text,
            scenario.source,
            list(scenario.overrides),
            seed,
            scenario.fmt,
            callback,
            max_events,
            None if max_wall is None else float(max_wall),
            warn=warn,
        )
    finally:
        if bar is not None:
            bar.close()
    wall = time.perf_counter() - start
    results = Results.from_columns(payload)
    results._warnings = found
    # The engine reads no clock; if the binding did not time the run, time it here.
    if not results.wall_time_s:
        results._set_wall_time(wall)
    if results.stop_reason == "interrupted":
        raise Interrupted(results)
    return results


def _is_seed(seed: object) -> bool:
    return isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed < 2**64

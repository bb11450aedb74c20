"""Building scenarios in Python: a small builder of the scenario-file schema.

The builder writes the same dict that :meth:`ccsim.Scenario.check` returns and that
``ccsim.run(dict)`` and :meth:`ccsim.Scenario.from_dict` accept (docs/scenario-format.md);
the engine validates it, so an error names the field as for a file. The builder checks
only the Python types of its arguments::

    b = ccsim.Scenario.dumbbell(n_flows=10, bottleneck="10Mbps", delay="20ms",
                                buffer="50pkt", cc="reno", rtt_spread="40ms")
    b.add_phase("steady", "10s", "60s").measure(interval="1s", series=["flow1.cwnd"])
    results = b.run(seed=1)          # or ccsim.run(b), b.build(), b.to_toml()

    b = ccsim.Scenario.builder("mine", duration="30s")
    b.add_host("a").add_host("b").add_router("r")
    b.add_link("a", "r", rate="100Mbps", delay="1ms").add_link("r", "b", rate="10Mbps")
    b.add_flow("f", "a", "b", cc="vegas")
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from ccsim import _ccsim

if TYPE_CHECKING:
    from ccsim._scenario import Scenario
    from ccsim.results import Results

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
        self._defaults: dict[str, Any] = {}
        self._hosts: list[str] = []
        self._routers: list[str] = []
        self._processing_delay: dict[str, str] = {}
        self._processing_jitter: dict[str, str] = {}
        self._links: list[dict[str, Any]] = []
        self._flows: list[dict[str, Any]] = []
        self._phases: list[dict[str, Any]] = []
        self._measure: dict[str, Any] = {}
        self._elements: list[dict[str, Any]] = []
        self._changes: list[dict[str, Any]] = []

    def __repr__(self) -> str:
        return (
            f"<ccsim.ScenarioBuilder {self._scenario['name']!r}: {len(self._hosts)} hosts, "
            f"{len(self._routers)} routers, {len(self._links)} links, {len(self._flows)} flows>"
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
        """A flow from host ``src`` to host ``dst``; ``kind`` "window" (default), "cbr" or
        "poisson"; any other field of ``[[flows]]`` as a keyword (``start="1s"``,
        ``rate="40kbps"``, ``on=[["0s", "300s"]]``, ``max_window="40pkt"``, ...)."""
        flow: dict[str, Any] = {"name": _name(name, "flows.name")}
        if kind is not None:
            flow["kind"] = _check(kind, "flows.kind", (str,), "'window', 'cbr' or 'poisson'")
        flow["from"] = _name(src, "flows.from")
        flow["to"] = _name(dst, "flows.to")
        if cc is not None:
            flow["cc"] = _check(cc, "flows.cc", (str,), "a congestion control's name")
        flow.update(_fields(fields, "flows"))
        if params is not None:
            flow["params"] = copy.deepcopy(_check(params, "flows.params", (dict,), "a dict"))
        self._flows.append(flow)
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
        from ccsim._scenario import Scenario

        return Scenario.from_dict(self.to_dict(), source=f"<builder {self.name}>")

    def check(self) -> dict[str, Any]:
        """Validate; the scenario with every default filled in (``Scenario.check``)."""
        return self.build().check()

    def to_toml(self) -> str:
        """The validated scenario as a scenario file's TOML text."""
        return self.build().to_toml()

    def run(self, seed: int | None = None) -> Results:
        """Run the scenario (``ccsim.run``)."""
        return self.build().run(seed)


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
    ``[defaults]``.
    """
    _check(n_flows, "n_flows", (int,), "a positive int")
    access = _access_rate(access_rate, bottleneck, "bottleneck")
    base_access = _ccsim.parse_time(_quantity(access_delay, "access_delay"))
    spread = _ccsim.parse_time(_quantity(rtt_spread, "rtt_spread")) if rtt_spread else 0.0
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
    **defaults: Any,
) -> ScenarioBuilder:
    """Routers ``r0..rN`` in a chain of links ``hop1..hopN`` (``rate``, ``delay``,
    ``buffer``, ``qdisc`` each); the flow ``long`` crosses every hop (hosts ``long-src``
    on r0, ``long-dst`` on rN) and ``cross_flows`` flows cross each hop i alone
    (``cross<i>``, or ``cross<i>-<j>`` for several; hosts ``<flow>-src`` on r(i-1) and
    ``<flow>-dst`` on r(i)). Access links: ``access_rate`` (default ten times ``rate``)
    and ``access_delay``. ``cc`` and further keywords go to ``[defaults]``."""
    _check(n_hops, "n_hops", (int,), "a positive int")
    _check(cross_flows, "cross_flows", (int,), "an int")
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
    return b

"""Stubs for the native module ``_ccsim`` (crates/ccsim-py).

The contract is docs/architecture.md, "The native module". Every function releases the
GIL while simulating; a panic inside the engine is re-raised as ``RuntimeError``.
"""

from collections.abc import Callable
from typing import Any, Literal, final, overload

__version__: str

class ScenarioError(ValueError):
    """Invalid scenario or argument; message ``"<source>: <field>: <what is wrong>; <fix>"``."""

class CongestionControlError(RuntimeError):
    """A congestion control written in Python raised (or answered a wrong type) during a
    run; the message names the class, the flow, the event and the simulated time, and
    the Python exception is ``__cause__`` (ccsim._pycc, docs/python-cc.md)."""

@final
class AckSample:
    """What ``on_ack`` gets: a cumulative ack acknowledged new data (times in seconds and
    in integer picoseconds)."""

    @property
    def now(self) -> float: ...
    @property
    def now_ps(self) -> int: ...
    @property
    def acked_pkts(self) -> int: ...
    @property
    def rtt(self) -> float: ...
    @property
    def rtt_ps(self) -> int: ...
    @property
    def in_flight_pkts(self) -> int: ...
    @property
    def sent(self) -> float: ...
    @property
    def sent_ps(self) -> int: ...
    @property
    def flags(self) -> int: ...
    @property
    def ece(self) -> bool: ...
    @property
    def ack_seq(self) -> int: ...
    @property
    def recovery(self) -> str: ...

@final
class CongestionSample:
    """What ``on_congestion`` gets: a loss or an ECN echo and its cause."""

    @property
    def now(self) -> float: ...
    @property
    def now_ps(self) -> int: ...
    @property
    def cause(self) -> str: ...
    @property
    def in_flight_pkts(self) -> int: ...
    @property
    def pipe(self) -> bool: ...
    @property
    def rto_repeat(self) -> bool: ...
    @property
    def dupack_threshold(self) -> int: ...

@final
class RateSample:
    """What ``on_rate_sample`` gets: a delivery-rate sample (Linux's ``tcp_rate.c``);
    ``interval`` and ``rate_pps`` are None when it is not valid, ``rtt`` when its packet
    was a retransmission."""

    @property
    def now(self) -> float: ...
    @property
    def now_ps(self) -> int: ...
    @property
    def total_delivered(self) -> int: ...
    @property
    def delivered_time(self) -> float: ...
    @property
    def acked_sacked(self) -> int: ...
    @property
    def prior_delivered(self) -> int | None: ...
    @property
    def delivered(self) -> int: ...
    @property
    def interval(self) -> float | None: ...
    @property
    def is_app_limited(self) -> bool: ...
    @property
    def rtt(self) -> float | None: ...
    @property
    def prior_in_flight(self) -> int: ...
    @property
    def in_flight(self) -> int: ...
    @property
    def rate_pps(self) -> float | None: ...

@final
class SendSample:
    """What ``on_packet_sent`` gets: a data packet left."""

    @property
    def now(self) -> float: ...
    @property
    def now_ps(self) -> int: ...
    @property
    def seq(self) -> int: ...
    @property
    def retransmission(self) -> bool: ...

@final
class Simulation:
    """A scenario's simulation advanced step by step (what ``ccsim.gym`` drives): built
    (its congestion controls written in Python constructed) when made, then run with
    ``run_until`` / ``run_until_ps``, the GIL released while simulating. A Python
    policy's failure is raised after the advance as ``CongestionControlError``. Stepping
    gives the results of one ``run`` (the count of events aside); the scenario's
    ``max_events`` and ``max_wall`` are not applied."""

    def __new__(
        cls, text: str, source: str, overrides: list[str] = ..., seed: int | None = None, fmt: str = "toml"
    ) -> Simulation: ...
    def run_until(self, t_s: float) -> bool:
        """Run every event up to and including ``t_s`` seconds (capped at the end);
        return whether the run reached its end."""
    def run_until_ps(self, t_ps: int) -> bool:
        """``run_until`` with the time in integer picoseconds."""
    @property
    def now_s(self) -> float: ...
    @property
    def now_ps(self) -> int: ...
    @property
    def end_s(self) -> float: ...
    @property
    def end_ps(self) -> int: ...
    @property
    def done(self) -> bool: ...
    def results(self) -> dict[str, Any]:
        """The results as columns (as ``run`` returns them); consumes the simulation.
        Before the end they are partial (``stop_reason`` ``"interrupted"``)."""

def check(
    text: str, source: str, overrides: list[str] = ..., fmt: str = "toml", out: str = "json"
) -> str:
    """Validate a scenario (TOML, or JSON in the same schema with ``fmt="json"``); return
    it in the scenario-file schema with every default filled in, as JSON or TOML text
    (``out="json"`` or ``"toml"``), or ``""`` with ``out="none"`` (validation only), or
    its warnings as a JSON list of ``{field, message, fix}`` with ``out="warnings"``."""

def run(
    text: str,
    source: str,
    overrides: list[str] = ...,
    seed: int | None = None,
    fmt: str = "toml",
    progress: Callable[[float, float, int], object] | None = None,
    max_events: int | None = None,
    max_wall_s: float | None = None,
    out: str = "columns",
    warn: Callable[[str], object] | None = None,
) -> dict[str, Any] | str:
    """Run a scenario (TOML, or JSON with ``fmt="json"``); return the results as columns
    (``out="columns"``, read by ``ccsim.Results.from_columns``) or as the results JSON
    text (``out="json"``, the engine's own export).

    The columns: ``{"meta": JSON text of the scalars, "flows"/"links"/"nodes": table,
    "phases"/"intervals": {"name": [str], "start_s": buffer, "end_s": buffer, "flows":
    table, "links": table}, "series": {"name"/"entity"/"metric"/"unit": [str],
    "offsets": buffer, "t": buffer, "v": buffer, "t_null": bool, "v_null": bool,
    "sample_s": float | None, "min": buffer, "max": buffer, "min_null": bool,
    "max_null": bool}}`` (``min`` and ``max`` are empty unless the series are sampled:
    ``sample_s`` is then the bucket width); a
    table is ``{"rows": n, "columns": [(name, kind, [payload, ...]), ...]}`` with kinds
    ``u64``, ``f64``, ``opt_u64``, ``bool``, ``str`` (dictionary and ``uint32`` codes),
    ``list_f64`` and ``json`` (see ``table_to_py`` in crates/ccsim-py/src/lib.rs); a
    buffer is a ``bytearray`` of native-endian values for ``numpy.frombuffer``.

    Runs in slices sized to last about 10 ms of wall time each, whatever an event costs
    (the first is 256 events; crates/ccsim-engine/src/sim/slices.rs); between them Ctrl-C is
    checked (the run stops and the results come back with ``"partial": true,
    "stop_reason": "interrupted"``; so does a ``KeyboardInterrupt`` raised by the
    callback), ``progress(sim_time_s, end_s, events)`` is called and ``max_wall_s``
    enforced. ``warn``, if given, is called once before the run with the scenario's
    warnings as ``check(out="warnings")`` gives them, when it has any."""

@overload
def bench(
    flows: int,
    bottleneck_bps: int,
    time_s: float,
    seed: int = 1,
    qdisc: str | None = None,
    full_results: Literal[False] = False,
    cc: str = "reno",
    sack: bool = False,
) -> str: ...
@overload
def bench(
    flows: int,
    bottleneck_bps: int,
    time_s: float,
    seed: int,
    qdisc: str | None,
    full_results: Literal[True],
    cc: str = "reno",
    sack: bool = False,
) -> tuple[str, dict[str, Any]]:
    """Run the dumbbell speed benchmark (every flow under the congestion control ``cc``,
    a name of ``cc_registry()`` or a Python class ``module:Class``, whose calls the JSON
    counts as ``py_calls``; the bottleneck discipline ``qdisc``, a name of
    ``qdisc_registry()``, or None: drop-tail, or DCTCP's step marking for a policy that
    needs ECN; with ``sack`` every flow recovers with SACK, for a policy that has SACK
    recovery); return the bench JSON, or with ``full_results`` the
    pair (bench JSON, the run's results as columns, as ``run`` returns them)."""

def bench_scenario(text: str, source: str, seed: int | None = None, fmt: str = "toml") -> str:
    """Build and run a scenario, timing the build (workloads expanded) and the run apart;
    return JSON with ``flows``, ``completed_flows``, ``events``, ``events_per_pkt``,
    ``delivered_pkts``, the times and the rates (``ccsim bench --case``)."""

def cc_registry() -> str:
    """The engine's registry of congestion controls as JSON: a list, in registration
    order, of ``{"name", "aliases", "description", "extra_series", "needs_ecn", "sack",
    "parameters": [{"name", "default"}]}`` (a ``null`` default: unset by default;
    ``needs_ecn``: its flows are ECN-capable by default, as DCTCP's; ``sack``: it has
    SACK recovery, so its flows may set ``sack = true``)."""

def qdisc_registry() -> str:
    """The engine's registry of queue disciplines as JSON: a list, in registration order,
    of ``{"name", "aliases", "description", "drop_reasons", "parameters": [{"name",
    "default"}]}``."""

def element_registry() -> str:
    """The engine's registry of network elements as JSON: a list, in registration order,
    of ``{"name", "description", "drop_reasons", "parameters": [{"name", "required",
    "default"}]}`` (a required parameter's ``default`` is an example value)."""

def flow_registry() -> str:
    """The flow kinds of a scenario file as JSON: a list, in the validator's order, of
    ``{"name", "description", "sender": {"name", "description"}, "receiver": {"name",
    "description"}, "common_keys", "keys": [{"name", "required", "default",
    "in_defaults"}], "params_key", "cc_params", "parameters": [{"name", "required",
    "default"}]}``: ``keys`` are the ``[[flows]]`` keys the kind takes besides
    ``common_keys`` (every flow's), ``in_defaults`` where ``[defaults]`` sets them too;
    ``params_key`` names the table of its own ``parameters`` (``null``: none), or with
    ``cc_params`` (window flows) the table of its congestion control's
    (``cc_registry``). A required entry's ``default`` is an example value; ``null``:
    unset by default."""

def parse_rate(s: str) -> int:
    """Parse a rate such as ``"10Mbps"``; return bits per second."""

def parse_time(s: str) -> float:
    """Parse a time such as ``"100ms"``; return seconds."""

def parse_size(s: str) -> int:
    """Parse a size such as ``"1.5kB"``; return bytes."""

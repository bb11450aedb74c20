"""Stubs for the native module ``ccsim._ccsim`` (crates/ccsim-py).

The contract is docs/architecture.md, "The native module". Every function releases the
GIL while simulating; a panic inside the engine is re-raised as ``RuntimeError``.
"""

from collections.abc import Callable
from typing import Any, Literal, overload

__version__: str

class ScenarioError(ValueError):
    """Invalid scenario or argument; message ``"<source>: <field>: <what is wrong>; <fix>"``."""

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
) -> tuple[str, dict[str, Any]]:
    """Run the dumbbell speed benchmark (every flow under the congestion control ``cc``,
    a name of ``cc_registry()``; the bottleneck discipline ``qdisc``, a name of
    ``qdisc_registry()``, or None: drop-tail, or DCTCP's step marking for a policy that
    needs ECN); return the bench JSON, or with ``full_results`` the
    pair (bench JSON, the run's results as columns, as ``run`` returns them)."""

def bench_scenario(text: str, source: str, seed: int | None = None, fmt: str = "toml") -> str:
    """Build and run a scenario, timing the build (workloads expanded) and the run apart;
    return JSON with ``flows``, ``completed_flows``, ``events``, ``events_per_pkt``,
    ``delivered_pkts``, the times and the rates (``ccsim bench --case``)."""

def cc_registry() -> str:
    """The engine's registry of congestion controls as JSON: a list, in registration
    order, of ``{"name", "aliases", "description", "extra_series", "needs_ecn",
    "parameters": [{"name", "default"}]}`` (a ``null`` default: unset by default;
    ``needs_ecn``: its flows are ECN-capable by default, as DCTCP's)."""

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

"""ccsim: a packet-level discrete-event network simulator for congestion-control research.

The engine is Rust (the native module ``_ccsim``, typed in ``_ccsim.pyi``); this package is the front end::

    import ccsim

    scenario = ccsim.load("scenarios/keshav-s1.toml").set("defaults.qdisc", "fq")
    results = ccsim.run(scenario, seed=1)
    results.flows               # one row per flow (pandas DataFrame)
    results.series("ftp1.cwnd") # columns t, v

    # or built in Python: a dumbbell, a parking lot, or node by node
    built = ccsim.Scenario.dumbbell(n_flows=10, bottleneck="10Mbps", cc="reno")
    ccsim.run(built).flows

    # every combination of values (times seeds), into one DuckDB file (docs/sweeps.md)
    sweep = ccsim.sweep("scenarios/keshav-s1.toml", {"defaults.qdisc": ["fcfs", "fq"]},
                        db="out/s1.duckdb")
    sweep.flows                 # one row per (case, flow), parameter and seed columns

The scenario format is docs/scenario-format.md; the results schema is
docs/architecture.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# The compiled engine; without a build, _ccsim.py stands in and says how to build it.
from ccsim import _ccsim
from ccsim._pycc import CongestionControl, Flow
from ccsim._scenario import Interrupted, Scenario, ScenarioBuilder, load, loads, run
from ccsim._warnings import ScenarioWarning
from ccsim.results import Results

if TYPE_CHECKING:
    from ccsim._sweep import SweepError, sweep
    from ccsim._sweepresults import SweepResults, open_sweep

# Sweeps are imported on first use, so `import ccsim` (and every CLI command) stays fast.
_LAZY = {
    "SweepError": "ccsim._sweep",
    "sweep": "ccsim._sweep",
    "SweepResults": "ccsim._sweepresults",
    "open_sweep": "ccsim._sweepresults",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'ccsim' has no attribute {name!r}")


ScenarioError = _ccsim.ScenarioError
CongestionControlError = _ccsim.CongestionControlError
__version__: str = _ccsim.__version__

__all__ = [
    "CongestionControl",
    "CongestionControlError",
    "Flow",
    "Interrupted",
    "Results",
    "Scenario",
    "ScenarioBuilder",
    "ScenarioError",
    "ScenarioWarning",
    "SweepError",
    "SweepResults",
    "__version__",
    "load",
    "loads",
    "open_sweep",
    "run",
    "sweep",
]

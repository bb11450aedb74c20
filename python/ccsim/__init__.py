"""ccsim: a packet-level discrete-event network simulator for congestion-control research.

The engine is Rust (``ccsim._ccsim``); this package is the front end::

    import ccsim

    scenario = ccsim.load("scenarios/keshav-s1.toml").set("defaults.qdisc", "fq")
    results = ccsim.run(scenario, seed=1)
    results.flows               # one row per flow (pandas DataFrame)
    results.series("ftp1.cwnd") # columns t, v

The scenario format is docs/scenario-format.md; the results schema is
docs/architecture.md.
"""

from __future__ import annotations

try:
    from ccsim import _ccsim
except ImportError as exc:  # pragma: no cover - only without a build
    raise ImportError(
        "the native module ccsim._ccsim is not built; run `make` in the repository root"
    ) from exc

from ccsim._scenario import Scenario, load, loads, run
from ccsim.results import Results

ScenarioError = _ccsim.ScenarioError
__version__: str = _ccsim.__version__

__all__ = [
    "Results",
    "Scenario",
    "ScenarioError",
    "__version__",
    "load",
    "loads",
    "run",
]

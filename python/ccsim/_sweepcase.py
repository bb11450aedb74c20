"""What every part of a sweep shares: its error type and the run of one case.

The lowest layer of the sweep modules: ``_sweep`` (the grid and the loop),
``_sweepdb`` (the database), ``_sweepresults`` (reading it back) and ``_sweepworker``
(worker processes) import from here, and this module imports none of them.
"""

from __future__ import annotations

import time
from typing import Any

from ccsim import _ccsim


class SweepError(ValueError):
    """A bad sweep definition or database; the message names the field and the fix."""


# One case as it travels to a worker: (case id, scenario text, its source name, the
# case's --set overrides, seed).
Task = tuple[int, str, str, list[str], int]


def run_case(task: Task) -> dict[str, Any]:
    """Run one case; return its results JSON text or its error (never raises for a
    scenario error or an engine panic, so one bad case does not stop the sweep)."""
    case_id, text, source, overrides, seed = task
    start = time.perf_counter()
    try:
        # JSON text: what the sweep database splits into its tables, and what travels
        # from a worker process (pickled) to the parent.
        out = _ccsim.run(text, source, list(overrides), seed, out="json")
    except Exception as exc:  # ScenarioError, or RuntimeError for an engine panic
        return {"case_id": case_id, "error": f"{type(exc).__name__}: {exc}"}
    return {"case_id": case_id, "results": out, "wall_time_s": time.perf_counter() - start}

"""Scenario warnings: settings that are valid but silently do nothing.

The engine's validation collects them (crates/ccsim-engine/src/scenario/warnings.rs):
each names the field, what the run does instead and the fix. ``ccsim.load`` and
``ccsim.loads`` issue them with :func:`warnings.warn` as :class:`ScenarioWarning`, so do
``ccsim.run`` (before the run) and :attr:`ccsim.Results.warnings` keeps them; the CLI
prints them on stderr once, before the run. Filter them as any Python warning, e.g.
``warnings.simplefilter("ignore", ccsim.ScenarioWarning)``.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

_PACKAGE = str(Path(__file__).resolve().parent)


class ScenarioWarning(UserWarning):
    """A scenario setting that does nothing the way it is configured: ``field`` (a
    dotted path, e.g. ``flows.c1.kind``), ``message`` (what the run does instead) and
    ``fix``; ``source`` is the scenario's file (or ``<string>``)."""

    def __init__(self, field: str, message: str, fix: str, source: str = "") -> None:
        super().__init__(field, message, fix, source)
        self.field = field
        self.message = message
        self.fix = fix
        self.source = source

    def __str__(self) -> str:
        where = f"{self.source}: " if self.source else ""
        return f"{where}{self.field}: {self.message}; {self.fix}"

    def __repr__(self) -> str:
        return f"ScenarioWarning(field={self.field!r}, message={self.message!r}, fix={self.fix!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ScenarioWarning) and self.args == other.args

    def __hash__(self) -> int:
        return hash(self.args)


def parse(text: str, source: str) -> list[ScenarioWarning]:
    """The engine's warnings (a JSON list of ``{field, message, fix}``)."""
    return [ScenarioWarning(w["field"], w["message"], w["fix"], source) for w in json.loads(text or "[]")]


def emit(found: list[ScenarioWarning]) -> None:
    """Issue each warning, attributed to the first caller outside the ccsim package."""
    if not found:
        return
    level = 2  # stacklevel 2: emit's caller, sys._getframe(1)
    frame = sys._getframe(1)
    while frame is not None and str(Path(frame.f_code.co_filename).resolve()).startswith(_PACKAGE):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    for w in found:
        warnings.warn(w, stacklevel=level)

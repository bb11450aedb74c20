"""Scenarios: TOML text plus overrides, validated and run by the native engine."""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ccsim import _ccsim
from ccsim.results import Results


@dataclass(frozen=True)
class Scenario:
    """A scenario file's text, where it came from and a list of ``KEY=VALUE`` overrides.

    Immutable: :meth:`set` returns a new scenario. Overrides are applied by the engine
    (see "Overrides" in docs/scenario-format.md) when the scenario is checked or run.
    """

    text: str
    source: str = "<string>"
    overrides: tuple[str, ...] = field(default=())

    def set(self, key: str, value: Any) -> Scenario:
        """Return a copy with the override ``key=value`` added.

        ``value`` may be a string (read as a TOML value when it parses as one, else as a
        string, exactly like ``--set``), a bool, an int, a float or a list of those.
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
        return Scenario(self.text, self.source, self.overrides + tuple(overrides))

    def check(self) -> dict[str, Any]:
        """Validate the scenario (with its overrides); return it normalized, as a dict."""
        return json.loads(_ccsim.check(self.text, self.source, list(self.overrides)))

    def run(self, seed: int | None = None) -> Results:
        """Run the scenario; same as ``ccsim.run(self, seed)``."""
        return run(self, seed)


def _override_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_item(v) for v in value) + "]"
    raise TypeError(f"cannot use a {type(value).__name__} as an override value")


def _toml_item(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a TOML basic string
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_item(v) for v in value) + "]"
    return _override_value(value)


def loads(text: str, source: str = "<string>") -> Scenario:
    """Make a scenario from TOML text; ``source`` names it in error messages.

    Raises ScenarioError if the text is not a valid scenario.
    """
    scenario = Scenario(text, source)
    scenario.check()
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
            f"{source}: no such file; check the path (scenarios live in scenarios/)"
        ) from None
    except IsADirectoryError:
        raise _ccsim.ScenarioError(f"{source}: is a directory; give a .toml file") from None
    except UnicodeDecodeError as exc:
        raise _ccsim.ScenarioError(f"{source}: not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise _ccsim.ScenarioError(f"{source}: cannot read file: {exc.strerror}") from None
    return loads(text, source)


def run(scenario: Scenario | str | os.PathLike[str], seed: int | None = None) -> Results:
    """Run a scenario (a :class:`Scenario` or a path to a scenario file).

    ``seed`` overrides the scenario's ``[scenario].seed``. The same scenario and seed
    always give the same results (apart from ``wall_time_s``).
    """
    if not isinstance(scenario, Scenario):
        scenario = load(scenario)
    if seed is not None and not _is_seed(seed):
        raise _ccsim.ScenarioError(
            f"{scenario.source}: seed: {seed!r} is not an integer in [0, 2**64); "
            "give e.g. seed=1"
        )
    start = time.perf_counter()
    text = _ccsim.run(scenario.text, scenario.source, list(scenario.overrides), seed)
    wall = time.perf_counter() - start
    raw = json.loads(text)
    # The engine reads no clock; if the binding did not time the run, time it here.
    if not raw.get("wall_time_s"):
        raw["wall_time_s"] = wall
    return Results(raw)


def _is_seed(seed: object) -> bool:
    return isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed < 2**64

"""Scenarios: TOML text plus overrides, validated and run by the native engine."""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ccsim import _builder, _ccsim
from ccsim._builder import ScenarioBuilder
from ccsim.results import Results


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

    # Building scenarios in Python (ccsim/_builder.py): each returns a ScenarioBuilder.
    dumbbell = staticmethod(_builder.dumbbell)
    parking_lot = staticmethod(_builder.parking_lot)

    @staticmethod
    def builder(
        name: str,
        duration: str,
        *,
        description: str | None = None,
        seed: int | None = None,
        conversations: str | None = None,
    ) -> ScenarioBuilder:
        """An empty scenario to build with ``add_host``, ``add_router``, ``add_link``,
        ``add_flow``, ``add_phase``, ``add_element``, ``add_change``, ``defaults`` and
        ``measure``. ``conversations`` is ``[scenario].conversations``: how Fair Queueing
        classifies packets, ``"flow"`` (default) or ``"host_pair"``."""
        return ScenarioBuilder(
            name, duration, description=description, seed=seed, conversations=conversations
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

    def run(self, seed: int | None = None) -> Results:
        """Run the scenario; same as ``ccsim.run(self, seed)``."""
        return run(self, seed)


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
    raise TypeError(f"cannot use a {type(value).__name__} as an override value")


def _toml_item(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a TOML basic string
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_item(v) for v in value) + "]"
    return _override_value(value)


def loads(text: str | dict[str, Any], source: str = "<string>") -> Scenario:
    """Make a scenario from TOML text (or a dict in the scenario-file schema);
    ``source`` names it in error messages.

    Raises ScenarioError if it is not a valid scenario.
    """
    if isinstance(text, dict):
        scenario = Scenario.from_dict(text, source if source != "<string>" else "<dict>")
    else:
        scenario = Scenario(text, source)
    # Validation only: the export that check() adds (and its JSON) is not needed here.
    _ccsim.check(scenario.text, scenario.source, list(scenario.overrides), scenario.fmt, "none")
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
    """Ctrl-C stopped a run. ``results`` holds what was simulated until then, marked
    partial (``results.raw["partial"]`` is true, ``stop_reason`` is "interrupted")."""

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
        )
    finally:
        if bar is not None:
            bar.close()
    wall = time.perf_counter() - start
    results = Results.from_columns(payload)
    # The engine reads no clock; if the binding did not time the run, time it here.
    if not results.wall_time_s:
        results._set_wall_time(wall)
    if results.stop_reason == "interrupted":
        raise Interrupted(results)
    return results


def _is_seed(seed: object) -> bool:
    return isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed < 2**64

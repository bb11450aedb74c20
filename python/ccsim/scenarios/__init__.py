"""The built-in scenario files, shipped inside the package.

The ``*.toml`` files beside this module are the canonical copies: they are package data,
so a wheel (``pip install .``) carries them and the reproductions work outside the
checkout. ``scenarios/`` at the repository root holds identical copies for the command
lines in the docs (``ccsim run scenarios/keshav-s1.toml``); a test keeps the two equal.

Resolution order of :func:`scenarios_dir`:

1. ``$CCSIM_SCENARIOS`` if set (a directory of ``*.toml``);
2. this package directory (installed or in the checkout alike).
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from ccsim import _ccsim

PACKAGE_DIR = Path(__file__).resolve().parent


def scenarios_dir() -> Path:
    """The directory holding the built-in scenario files."""
    env = os.environ.get("CCSIM_SCENARIOS")
    if env:
        path = Path(env)
        if not path.is_dir():
            raise _ccsim.ScenarioError(
                f"{env}: CCSIM_SCENARIOS is not a directory; unset it or fix the path"
            )
        return path
    return PACKAGE_DIR


def names() -> list[str]:
    """The built-in scenarios' names (file names without ``.toml``), sorted."""
    return sorted(p.stem for p in scenarios_dir().glob("*.toml"))


def scenario_path(name: str) -> Path:
    """The path of the built-in scenario ``name`` (``"keshav-s1"`` -> ``keshav-s1.toml``)."""
    path = scenarios_dir() / f"{name}.toml"
    if not path.is_file():
        known = ", ".join(names()) or "none"
        raise _ccsim.ScenarioError(
            f"{path}: built-in scenario {name!r} is missing (known: {known}); "
            "reinstall ccsim or unset CCSIM_SCENARIOS"
        )
    return path


def description(path: Path) -> str:
    """A scenario file's one-line description: its ``[scenario].description``, else the
    first line of its leading comment, else ""."""
    text = path.read_text(encoding="utf-8")
    try:
        scenario = tomllib.loads(text).get("scenario", {})
    except tomllib.TOMLDecodeError:
        scenario = {}
    if isinstance(scenario, dict) and isinstance(scenario.get("description"), str):
        return " ".join(scenario["description"].split())
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        if line.lstrip("# ").strip():
            return line.lstrip("# ").strip()
    return ""


def nearest(name: str, candidates: list[str] | None = None) -> str | None:
    """The built-in scenario (or one of ``candidates``) ``name`` was meant to be: one
    equal but for case, ``_`` for ``-`` or a ``.toml`` suffix (``keshav_s1`` ->
    ``keshav-s1``), else the closest within 2 edits (1 for up to four characters; a swap of
    two neighbours is one edit), as the engine suggests names (base/suggest.rs)."""
    known = names() if candidates is None else candidates

    def norm(text: str) -> str:
        text = text.lower().replace("_", "-")
        return text[: -len(".toml")] if text.endswith(".toml") else text

    wanted = norm(name)
    for candidate in known:
        if norm(candidate) == wanted:
            return candidate
    limit = 1 if len(wanted) <= 4 else 2
    scored = [(_distance(wanted, norm(c)), c) for c in known]
    best = min(scored, default=None)
    return best[1] if best is not None and best[0] <= limit else None


def _distance(a: str, b: str) -> int:
    """Optimal string alignment distance: insertions, deletions, substitutions and swaps
    of two neighbours, each one edit."""
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]

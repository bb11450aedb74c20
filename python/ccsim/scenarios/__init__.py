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

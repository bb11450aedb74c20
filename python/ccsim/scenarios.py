"""Finding the built-in scenario files.

The canonical scenario files live in ``scenarios/`` at the repository root and are not
copied into the package. ``maturin develop`` (what ``make`` runs) installs the package in
place, so ``python/ccsim/__file__`` sits inside the repository and walking up from it
finds ``scenarios/``. Resolution order:

1. ``$CCSIM_SCENARIOS`` if set (a directory of ``*.toml``);
2. the first ancestor of the package directory that has ``scenarios/`` next to a
   ``pyproject.toml`` (the repository root);
3. a ``scenarios`` directory inside the installed package, if a packager put one there.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from ccsim import _ccsim


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
    here = Path(__file__).resolve().parent
    for ancestor in here.parents:
        candidate = ancestor / "scenarios"
        if candidate.is_dir() and (ancestor / "pyproject.toml").is_file():
            return candidate
    packaged = resources.files("ccsim") / "scenarios"
    if packaged.is_dir():
        return Path(str(packaged))
    raise _ccsim.ScenarioError(
        f"scenarios: no scenarios/ directory found above {here}; "
        "run ccsim from a checkout of the repository or set CCSIM_SCENARIOS=DIR"
    )


def scenario_path(name: str) -> Path:
    """The path of the built-in scenario ``name`` (``"keshav-s1"`` -> ``keshav-s1.toml``)."""
    path = scenarios_dir() / f"{name}.toml"
    if not path.is_file():
        raise _ccsim.ScenarioError(f"{path}: built-in scenario {name!r} is missing")
    return path

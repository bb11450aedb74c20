"""`import ccsim` where the engine has not been built: a clear error that names the fix,
not a bare ModuleNotFoundError. A copy of the package without the compiled module,
imported by a fresh interpreter, as on a clone before `make`."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO


def test_import_without_the_built_engine_says_to_run_make(tmp_path: Path) -> None:
    shutil.copytree(REPO / "python" / "ccsim", tmp_path / "ccsim", ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    assert not list((tmp_path / "ccsim").glob("_ccsim*.so"))
    p = subprocess.run(
        [sys.executable, "-c", "import ccsim"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(tmp_path)},
    )
    assert p.returncode == 1
    last = p.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: ") and "not built" in last and "run `make`" in last, p.stderr


def test_with_the_build_the_compiled_module_comes_first() -> None:
    import ccsim._ccsim

    assert Path(ccsim._ccsim.__file__).name.startswith("_ccsim") and ccsim._ccsim.__file__.endswith(".so")

"""The tutorial notebooks in examples/ run from top to bottom without an error, and are
committed without outputs.

Each notebook runs in a fresh kernel of this interpreter (the .venv's under make test)
with examples/ as its working directory, as a reader who opens it there would run it. The
kernel is started from a kernel spec written for this test, whose command is
``sys.executable -m ipykernel_launcher``, so no kernel spec needs to be installed and a
``python3`` spec of another environment is never picked up.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest
from ipykernel.kernelspec import write_kernel_spec
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
NOTEBOOKS = sorted(EXAMPLES.glob("*.ipynb"))
KERNEL = "ccsim-tests"
# Seconds any one cell may take; every notebook runs in well under 20 s in all.
CELL_TIMEOUT = 120


def test_there_are_notebooks():
    names = {p.name for p in NOTEBOOKS}
    assert {"01-first-run.ipynb", "02-sweeps.ipynb", "03-python-cc.ipynb"} <= names


@pytest.fixture(scope="module")
def kernel_dirs(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    root = tmp_path_factory.mktemp("kernels")
    write_kernel_spec(root / KERNEL)
    return [str(root)]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path: Path, kernel_dirs: list[str]):
    nb = nbformat.read(path, as_version=4)
    km = AsyncKernelManager(kernel_name=KERNEL, kernel_spec_manager=KernelSpecManager(kernel_dirs=kernel_dirs))
    assert km.kernel_spec.argv[0] == sys.executable
    client = NotebookClient(
        nb,
        km=km,
        timeout=CELL_TIMEOUT,
        resources={"metadata": {"path": str(EXAMPLES)}},
        # An error in any cell stops the run with CellExecutionError, which names the
        # cell and carries the kernel's traceback.
        allow_errors=False,
    )
    # With a kernel manager of its own, the client would leave the kernel running and
    # its channels open: cleanup_kc stops both when the notebook ends (or fails).
    client.execute(cleanup_kc=True)
    assert not km.has_kernel
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(c.execution_count is not None for c in code)
    # A figure per plotting cell reached the notebook (an image/png display).
    plots = [c for c in code if "plt.show()" in c.source]
    for cell in plots:
        assert any("image/png" in o.get("data", {}) for o in cell.outputs), cell.source[:80]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_is_committed_without_outputs(path: Path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    with_outputs = [
        i for i, c in enumerate(nb.cells) if c.cell_type == "code" and (c.outputs or c.execution_count is not None)
    ]
    assert not with_outputs, (
        f"{path.name}: cells {with_outputs} carry outputs or execution counts; clear them "
        "(Jupyter: Edit > Clear Outputs of All Cells, or "
        f"`python tests/test_notebooks.py --clear examples/{path.name}`) before committing"
    )


def clear(path: Path) -> None:
    """Remove a notebook's outputs and execution counts, in place."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    nbformat.write(nb, path)


if __name__ == "__main__":
    args = sys.argv[1:]
    if not args or args[0] != "--clear":
        sys.exit("usage: python tests/test_notebooks.py --clear [NOTEBOOK ...] (default: examples/*.ipynb)")
    for name in args[1:] or NOTEBOOKS:
        clear(Path(name))

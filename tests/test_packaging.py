"""Packaging: the built-in scenarios ship inside the package and are found outside the
checkout.

The default tests prove it in seconds: the package copy is what ``ccsim.scenarios`` uses,
the repository's ``scenarios/`` matches it, the wheel maturin builds (target/ is warm
after ``make build``) carries it, and that wheel installed by pip into a bare directory
reproduces keshav-s1 from outside the checkout. The slow test does the whole thing:
``pip install .`` into a fresh virtual environment, dependencies and all.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import ccsim
import ccsim.scenarios
import pytest
from ccsim.reproduce import names as reproduction_names
from conftest import REPO

PACKAGE = REPO / "python" / "ccsim"


def test_scenarios_resolve_to_the_package_directory(monkeypatch):
    monkeypatch.delenv("CCSIM_SCENARIOS", raising=False)
    assert ccsim.scenarios.scenarios_dir() == Path(ccsim.__file__).resolve().parent / "scenarios"
    path = ccsim.scenarios.scenario_path("keshav-s1")
    assert path.parent == PACKAGE / "scenarios"
    assert "keshav-s1" in ccsim.scenarios.names()


def test_repository_scenarios_are_copies_of_the_package_ones():
    packaged = {p.name: p.read_bytes() for p in (PACKAGE / "scenarios").glob("*.toml")}
    at_root = {p.name: p.read_bytes() for p in (REPO / "scenarios").glob("*.toml")}
    assert packaged, "no scenario files in python/ccsim/scenarios"
    for name in sorted(packaged.keys() | at_root.keys()):
        assert packaged.get(name) == at_root.get(name), (
            f"scenarios/{name} and python/ccsim/scenarios/{name} differ; the package copy is "
            f"canonical: cp python/ccsim/scenarios/*.toml scenarios/"
        )


def test_every_scenario_a_reproduction_names_is_packaged():
    # The reproductions name their scenarios in their sources (scenario_path("...")).
    sources = "\n".join(
        p.read_text(encoding="utf-8") for p in (PACKAGE / "reproduce").glob("*.py")
    )
    for name in ("keshav-s1", "keshav-s2", "keshav-s3", "dabbous-single", "dabbous-two",
                 "dabbous-load", "dabbous-route"):  # fmt: skip
        assert f'"{name}"' in sources, name
        assert (PACKAGE / "scenarios" / f"{name}.toml").is_file(), name
    assert reproduction_names()


def test_maturin_packs_the_whole_python_source():
    # maturin puts every file under python-source/<package> into the wheel unless an
    # `exclude` pattern drops it: keep it that way for the scenario files.
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["maturin"]
    assert config["python-source"] == "python"
    assert config["module-name"].startswith("ccsim.")
    for rule in config.get("exclude", []):
        pattern = rule if isinstance(rule, str) else rule["path"]
        assert not Path("ccsim/scenarios/keshav-s1.toml").match(pattern), pattern
        assert not Path("python/ccsim/scenarios/keshav-s1.toml").match(pattern), pattern


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel maturin builds from this checkout (seconds: cargo's target/ is warm
    after `make build`, which built the same release profile)."""
    maturin = Path(sys.executable).parent / "maturin"
    if not maturin.exists():
        pytest.skip("maturin is not installed beside the interpreter (run make build)")
    out = tmp_path_factory.mktemp("wheel")
    env = dict(os.environ, VIRTUAL_ENV=str(Path(sys.executable).parent.parent))
    result = subprocess.run(
        [str(maturin), "build", "--release", "--quiet", "--out", str(out)],
        capture_output=True, text=True, cwd=REPO, env=env, timeout=1200,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-4000:]
    (path,) = out.glob("ccsim-*.whl")
    return path


def test_the_wheel_carries_the_scenarios(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for toml in (PACKAGE / "scenarios").glob("*.toml"):
        assert f"ccsim/scenarios/{toml.name}" in names
    assert "ccsim/scenarios/__init__.py" in names


def test_reproduce_from_the_installed_wheel_outside_the_checkout(wheel, tmp_path):
    # pip lays the wheel out as in site-packages; the dependencies come from this
    # interpreter's environment, the package itself from PYTHONPATH (ahead of the
    # checkout's editable install).
    site = tmp_path / "site-packages"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
         "--target", str(site), str(wheel)],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = dict(os.environ, PYTHONPATH=str(site), NO_COLOR="1", COLUMNS="200")
    env.pop("CCSIM_SCENARIOS", None)
    probe = subprocess.run(
        [sys.executable, "-c",
         "import ccsim, ccsim.scenarios as s; print(ccsim.__file__); print(s.scenarios_dir())"],
        capture_output=True, text=True, cwd=work, env=env, check=True,
    )  # fmt: skip
    module_file, scen_dir = probe.stdout.split()
    assert Path(module_file).is_relative_to(site)
    assert Path(scen_dir) == site / "ccsim" / "scenarios"
    result = subprocess.run(
        [sys.executable, "-m", "ccsim", "reproduce", "keshav-s1", "--quiet", "--out", "s1"],
        capture_output=True, text=True, cwd=work, env=env, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert (work / "s1" / "table2.csv").is_file()


@pytest.mark.slow
def test_pip_install_into_a_fresh_venv(tmp_path):
    """`pip install .` (maturin builds the wheel: minutes), then reproduce outside the
    checkout with the installed console script."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "--quiet", str(REPO)],
        capture_output=True, text=True, timeout=3000,
    )  # fmt: skip
    assert pip.returncode == 0, pip.stderr[-4000:]
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CCSIM_SCENARIOS")}
    env.update(NO_COLOR="1", COLUMNS="200")
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import ccsim.scenarios as s; print(s.scenarios_dir())"],
        capture_output=True, text=True, cwd=work, env=env, check=True,
    )  # fmt: skip
    assert Path(where.stdout.strip()).is_relative_to(venv)
    result = subprocess.run(
        [str(venv / "bin" / "ccsim"), "reproduce", "keshav-s1", "--out", "s1"],
        capture_output=True, text=True, cwd=work, env=env, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "G/FCFS" in result.stdout
    assert (work / "s1" / "figure2_jk_fcfs_window.png").is_file()


def test_run_takes_a_built_in_scenario_name_outside_the_checkout(tmp_path):
    from conftest import run_cli

    result = run_cli("run", "keshav-s1", "--json", "--set", "scenario.duration=30s",
                     "--set", "phases=[]", cwd=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert '"scenario": "keshav-s1"' in result.stdout
    missing = run_cli("run", "no-such-scenario", cwd=tmp_path)
    assert missing.returncode == 2
    assert missing.stderr.startswith("ccsim: error: no-such-scenario: no such file")

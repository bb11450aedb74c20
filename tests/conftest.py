"""Shared fixtures: paths, a CLI runner and cached runs of the scenarios under test."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import ccsim
import pytest

REPO = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
KESHAV = REPO / "scenarios" / "keshav-s1.toml"

# A shell that starts a job in the background without job control starts it with SIGINT
# ignored, and every process started from it inherits that: the Ctrl-C tests' children
# would ignore the SIGINT they are sent. Python's own handler here makes the children
# start with SIGINT at its default, whatever started the tests.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# The keys the issue promises (other tools depend on them); the engine may add more.
FLOW_KEYS = {
    "name", "kind", "from", "to", "sent_pkts", "delivered_pkts", "retransmitted_pkts",
    "dropped_pkts", "goodput_bps", "goodput_pps", "rtt_min_s", "rtt_mean_s", "rtt_max_s",
}  # fmt: skip
LINK_KEYS = {
    "name", "from", "to", "rate_bps", "delay_s", "tx_pkts", "tx_bytes", "drops",
    "utilization", "queue_mean_pkts", "queue_max_pkts",
}  # fmt: skip
TOP_KEYS = {
    "schema_version", "ccsim_version", "scenario", "seed", "sim_time_s", "wall_time_s", "events", "flows",
    "links", "phases", "intervals", "series",
}  # fmt: skip

# The protocol pairs of Table 2 we can run, as overrides of keshav-s1.toml.
KESHAV_PAIRS = {
    "G/FCFS": {"defaults.cc": "generic", "defaults.qdisc": "fcfs"},
    "G/FQ": {"defaults.cc": "generic", "defaults.qdisc": "fq"},
    "JK/FCFS": {"defaults.cc": "tahoe", "defaults.qdisc": "fcfs"},
    "JK/FQ": {"defaults.cc": "tahoe", "defaults.qdisc": "fq"},
    "PP/FQ": {"defaults.cc": "pp", "defaults.qdisc": "fq"},
    "PP/FQ per-probe": {
        "defaults.cc": "pp",
        "defaults.qdisc": "fq",
        "flows.ftp1.params.update": "probe",
        "flows.ftp2.params.update": "probe",
    },
}


def run_cli(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``python -m ccsim ARGS`` with this interpreter (the .venv's under make test)."""
    env = dict(os.environ, NO_COLOR="1", COLUMNS="200")
    env.pop("CCSIM_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "ccsim", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd or REPO,
        env=env,
        timeout=600,
    )


@pytest.fixture(scope="session")
def tiny() -> ccsim.Scenario:
    return ccsim.load(DATA / "tiny.toml")


@pytest.fixture(scope="session")
def tiny_results(tiny: ccsim.Scenario) -> ccsim.Results:
    return ccsim.run(tiny)


@pytest.fixture(scope="session")
def keshav_runs() -> dict[str, ccsim.Results]:
    """One run of keshav-s1 per protocol pair (shared by every test that needs one)."""
    base = ccsim.load(KESHAV)
    runs = {}
    for label, overrides in KESHAV_PAIRS.items():
        scenario = base
        for key, value in overrides.items():
            scenario = scenario.set(key, value)
        runs[label] = ccsim.run(scenario)
    return runs


@pytest.fixture(scope="session")
def golden_recording() -> tuple[dict, dict, dict[str, str]]:
    """One recording of the golden runs (tests/golden.py), shared by test_golden and
    test_snapshots: (baseline, the digests now, the snapshot text of each reproduction
    the recording runs), so that those reproductions run once."""
    import golden
    import snapshots

    baseline = golden.load()
    texts: dict[str, str] = {}

    def reproduce(name: str, out_dir: Path) -> None:
        texts[name] = snapshots.take(name, out_dir)

    return baseline, golden.record(reproduce), texts

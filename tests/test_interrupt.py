"""Long runs: progress, Ctrl-C (CLI, Python, Jupyter) and the max_events / max_wall guards.

A run of ``tiny.toml`` stretched to 10^6 simulated seconds lasts minutes; each test stops
it early and checks that it stops at the next slice, not at the run's end, with partial
results. Slices last about 10 ms (crates/ccsim-engine/src/sim/slices.rs), and on an idle
machine a Ctrl-C ends the CLI within about 0.15 s. The bound below is loose on purpose: CI runs
these tests beside others on two cores, where start-up and result output alone have taken
0.57 s, and what the tests guard is the stop at a slice, which a minutes-long run against a
few seconds tells apart. How fast a run goes is the benchmarks' business, not a test's.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import ccsim
import pytest
from conftest import DATA, REPO

# Without series: a long run's series would be large, and the test times the stop only.
LONG = ["--set", "scenario.duration=1000000s", "--set", "phases=[]", "--set", "measure={}"]


# Seconds from the signal (or the max_wall limit) to the process or call returning.
STOP_WITHIN_S = 5.0


def _long_scenario() -> ccsim.Scenario:
    return (
        ccsim.load(DATA / "tiny.toml")
        .set("scenario.duration", "1000000s")
        .set("phases", [])
        .with_overrides(["measure={}"])
    )


def _interrupt_after(proc: subprocess.Popen, seconds: float) -> float:
    """Send SIGINT after `seconds`; return how long the process took to exit after it."""
    time.sleep(seconds)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    sent = time.monotonic()
    proc.wait(timeout=30)
    return time.monotonic() - sent


def test_ctrl_c_stops_the_cli_quickly_with_partial_results():
    env = dict(os.environ, NO_COLOR="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "ccsim", "run", str(DATA / "tiny.toml"), *LONG, "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env=env,
    )
    took = _interrupt_after(proc, 2.0)
    out, err = proc.communicate()
    assert took < STOP_WITHIN_S, f"took {took:.2f} s to stop"
    assert proc.returncode == 130
    raw = json.loads(out)
    assert raw["partial"] is True and raw["stop_reason"] == "interrupted"
    assert 0 < raw["sim_time_s"] < 1_000_000
    assert "partial results" in err


def test_ctrl_c_stops_ccsim_run_in_python_with_partial_results():
    code = textwrap.dedent(
        f"""
        import json, sys, time
        sys.path.insert(0, {str(REPO / "tests")!r})
        import ccsim
        from test_interrupt import _long_scenario
        print("ready", flush=True)
        try:
            ccsim.run(_long_scenario())
        except ccsim.Interrupted as exc:
            r = exc.results
            print(json.dumps([r.raw["partial"], r.raw["stop_reason"], r.sim_time_s,
                              time.monotonic()]), flush=True)
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline().strip() == "ready"
    took = _interrupt_after(proc, 1.5)
    out, err = proc.communicate()
    assert took < STOP_WITHIN_S, f"took {took:.2f} s to stop: {err}"
    partial, reason, sim_time, _ = json.loads(out.strip().splitlines()[-1])
    assert partial is True and reason == "interrupted" and 0 < sim_time < 1_000_000


def test_interrupting_a_jupyter_kernel_stops_the_run():
    jupyter_client = pytest.importorskip("jupyter_client")
    km, kc = jupyter_client.manager.start_new_kernel(kernel_name="python3")
    try:
        kc.execute_interactive(
            f"import sys; sys.path.insert(0, {str(REPO / 'tests')!r}); import ccsim; "
            "from test_interrupt import _long_scenario",
            timeout=60,
        )
        msg_id = kc.execute("ccsim.run(_long_scenario())")
        time.sleep(2.0)
        km.interrupt_kernel()
        sent = time.monotonic()
        while True:
            reply = kc.get_shell_msg(timeout=30)
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        took = time.monotonic() - sent
        assert reply["content"]["status"] == "error"
        assert reply["content"]["ename"] == "Interrupted"
        assert took < STOP_WITHIN_S, f"took {took:.2f} s"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_max_events_and_max_wall_stop_a_run_and_mark_it_partial():
    r = ccsim.run(_long_scenario(), max_events=50_000)
    assert r.raw["partial"] and r.raw["stop_reason"] == "max_events"
    assert r.events == 50_000
    start = time.monotonic()
    r = ccsim.run(_long_scenario(), max_wall=0.3)
    assert time.monotonic() - start < 0.3 + STOP_WITHIN_S
    assert r.raw["partial"] and r.raw["stop_reason"] == "max_wall"
    # The methods take the same options (a builder's too).
    r = _long_scenario().run(max_events=50_000)
    assert r.raw["stop_reason"] == "max_events" and r.events == 50_000
    r = ccsim.Scenario.dumbbell(2, duration="1000000s").run(max_events=2000, progress=False)
    assert r.raw["stop_reason"] == "max_events" and r.events == 2000
    r = ccsim.run(_long_scenario().set("scenario.max_events", 1000))
    assert r.raw["stop_reason"] == "max_events" and r.events == 1000
    whole = ccsim.run(DATA / "tiny.toml")
    assert whole.raw["partial"] is False and whole.raw["stop_reason"] is None


def test_progress_is_reported_between_slices():
    seen: list[tuple[float, float, int]] = []
    ccsim.run(_long_scenario(), max_events=1_000_000, progress=lambda *a: seen.append(a))
    assert len(seen) >= 4
    times = [s for s, _, _ in seen]
    assert times == sorted(times) and seen[0][1] == 1_000_000.0
    assert all(e > 0 for _, _, e in seen)


def test_guard_arguments_are_checked():
    with pytest.raises(ccsim.ScenarioError, match="max_events"):
        ccsim.run(DATA / "tiny.toml", max_events=0)
    with pytest.raises(ccsim.ScenarioError, match="max_wall"):
        ccsim.run(DATA / "tiny.toml", max_wall=-1)
    with pytest.raises(ccsim.ScenarioError, match="scenario.max_events"):
        ccsim.run(ccsim.load(DATA / "tiny.toml").set("scenario.max_events", 0))


def test_a_closed_pipe_ends_the_cli_quietly():
    proc = subprocess.run(
        f"{sys.executable} -m ccsim run {DATA / 'tiny.toml'} | head -1",
        shell=True,
        capture_output=True,
        text=True,
        cwd=REPO,
        env=dict(os.environ, NO_COLOR="1", COLUMNS="200"),
    )
    assert proc.returncode == 0
    assert proc.stderr == ""
    assert proc.stdout.startswith("tiny")

"""The progress bar where users run: the CLI and a Python script on a terminal (a
pseudo-terminal here), and a Jupyter kernel (driven through jupyter_client); the slices
a run goes in (progress, Ctrl-C and max_wall are looked at between them).

Every bar is asked for at once (``CCSIM_PROGRESS_DELAY=0``), so the runs stay short:
``tiny.toml`` stretched to 2000 s is about 720,000 events, a fraction of a second. No
test asserts a wall-clock duration.
"""

from __future__ import annotations

import fcntl
import itertools
import json
import math
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import textwrap
import time
from collections.abc import Callable

import ccsim
import pytest
from ccsim import _progress
from conftest import DATA, REPO

TINY = DATA / "tiny.toml"
# tiny.toml for 2000 s simulated, without phases and series: a few hundred ms of events.
MEDIUM = ["--set", "scenario.duration=2000s", "--set", "phases=[]", "--set", "measure={}"]
LONG = ["--set", "scenario.duration=1000000s", "--set", "phases=[]", "--set", "measure={}"]
# A drawn bar: the scenario file, the bar, simulated time of 2000 s, the event rate.
BAR = re.compile(r"tiny\.toml .*━.* [0-9.,e+]+/2000 s [0-9.]+ M events/s")
HIDE_CURSOR, SHOW_CURSOR = "\x1b[?25l", "\x1b[?25h"


def _terminal_env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES", "TTY_COMPATIBLE",
                     "TTY_INTERACTIVE", "CCSIM_PROGRESS_DELAY"}
    }  # fmt: skip
    env.update(TERM="xterm-256color", CCSIM_PROGRESS_DELAY="0", **extra)
    return env


def _on_pty(
    argv: list[str],
    env: dict[str, str],
    on_output: Callable[[str, subprocess.Popen], None] | None = None,
    timeout: float = 60.0,
    size: tuple[int, int] = (50, 160),
) -> tuple[int, str]:
    """Run ``argv`` with stdin, stdout and stderr on a pseudo-terminal of ``size``
    (rows, columns; 50x160 by default); return its exit status and all it wrote there.
    ``on_output(text so far, process)`` is called after each read."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", *size, 0, 0))
    proc = subprocess.Popen(
        argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=REPO, close_fds=True
    )
    os.close(slave)
    out = bytearray()
    deadline = time.monotonic() + timeout
    try:
        while True:
            ready, _, _ = select.select([master], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                proc.kill()
                raise AssertionError(f"no end after {timeout} s: {out.decode(errors='replace')}")
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: every holder of the terminal's other side has closed it
                break
            if not chunk:
                break
            out += chunk
            if on_output is not None:
                on_output(out.decode(errors="replace"), proc)
    finally:
        os.close(master)
    return proc.wait(timeout=timeout), out.decode(errors="replace")


def _assert_bar_then_results(text: str, results_start: str) -> None:
    """A bar was drawn, then erased (the cursor shown again), then the results came."""
    assert HIDE_CURSOR in text, text
    assert BAR.search(text), text
    assert results_start in text, text
    assert BAR.search(text).start() < text.index(SHOW_CURSOR) < text.index(results_start)
    # Nothing drawn after the results: the bar is gone for good.
    assert not BAR.search(text, text.index(results_start)), text


def test_the_cli_draws_a_bar_on_a_terminal_and_prints_the_results():
    status, text = _on_pty(
        [sys.executable, "-m", "ccsim", "run", str(TINY), *MEDIUM], _terminal_env()
    )
    assert status == 0, text
    _assert_bar_then_results(text, "seed 7  2000 s simulated in")
    assert "Flows" in text and "Channels" in text and "reno1" in text
    assert "Traceback" not in text


def test_a_terminal_that_reports_no_size_still_gets_the_tables():
    # `script` and `docker exec` give a pseudo-terminal nobody sized: 0 x 0.
    env = _terminal_env()
    env.pop("COLUMNS", None)
    status, text = _on_pty([sys.executable, "-m", "ccsim", "run", str(TINY)], env, size=(0, 0))
    assert status == 0, text
    assert "Flows" in text and "Channels" in text and "reno1" in text, text


def test_ccsim_run_in_a_script_draws_a_bar_on_a_terminal():
    script = textwrap.dedent(
        f"""
        import ccsim
        sc = ccsim.load({str(TINY)!r}).set("scenario.duration", "2000s").set("phases", [])
        r = ccsim.run(sc.with_overrides(["measure={{}}"]))
        print("RESULT", r.sim_time_s, r.partial, r.events > 0)
        """
    )
    status, text = _on_pty([sys.executable, "-c", script], _terminal_env())
    assert status == 0, text
    _assert_bar_then_results(text, "RESULT 2000.0 False True")


def test_no_bar_when_asked_for_none_or_when_stderr_is_not_a_terminal():
    script = (
        f"import ccsim; r = ccsim.run({str(TINY)!r}, progress=False); "
        "print('RESULT', r.sim_time_s)"
    )
    status, text = _on_pty([sys.executable, "-c", script], _terminal_env())
    assert status == 0 and "RESULT 20.0" in text
    assert HIDE_CURSOR not in text and "events/s" not in text
    # --quiet on a terminal; stderr piped.
    status, text = _on_pty(
        [sys.executable, "-m", "ccsim", "run", str(TINY), *MEDIUM, "--quiet"], _terminal_env()
    )
    assert status == 0 and text == ""
    proc = subprocess.run(
        [sys.executable, "-m", "ccsim", "run", str(TINY), "--json"],
        capture_output=True,
        text=True,
        env=_terminal_env(),
        cwd=REPO,
    )
    assert proc.returncode == 0 and proc.stderr == ""
    assert json.loads(proc.stdout)["sim_time_s"] == 20.0


def test_ctrl_c_while_the_bar_is_drawn_restores_the_terminal_and_prints_partial_results():
    sent: list[bool] = []

    def interrupt_once_drawn(text: str, proc: subprocess.Popen) -> None:
        if not sent and "M events/s" in text:
            proc.send_signal(signal.SIGINT)
            sent.append(True)

    status, text = _on_pty(
        [sys.executable, "-m", "ccsim", "run", str(TINY), *LONG],
        _terminal_env(),
        on_output=interrupt_once_drawn,
    )
    assert sent and status == 130, text
    assert "ccsim: partial results: stopped (interrupted)" in text
    assert text.index("M events/s") < text.rindex(SHOW_CURSOR) < text.index("partial results")
    assert "Flows" in text and "Traceback" not in text


def test_max_wall_stops_a_long_cli_run_with_partial_results():
    # The whole run would be 10^6 s simulated, some 3.6 * 10^8 events; stopped after
    # 0.3 s it reaches a small part of that.
    proc = subprocess.run(
        [sys.executable, "-m", "ccsim", "run", str(TINY), *LONG, "--max-wall", "0.3", "--json"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=dict(os.environ, NO_COLOR="1"),
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    raw = json.loads(proc.stdout)
    assert raw["partial"] is True and raw["stop_reason"] == "max_wall"
    assert 0 < raw["sim_time_s"] < 100_000 and 0 < raw["events"] < 36_000_000
    assert "partial results: stopped (max wall)" in proc.stderr


def test_a_jupyter_kernel_gets_display_updates_of_the_bar():
    jupyter_client = pytest.importorskip("jupyter_client")
    km, kc = jupyter_client.manager.start_new_kernel(kernel_name="python3")
    messages: list[dict] = []
    try:
        code = textwrap.dedent(
            f"""
            import os
            os.environ["CCSIM_PROGRESS_DELAY"] = "0"
            import ccsim
            sc = ccsim.load({str(TINY)!r}).set("scenario.duration", "1000000s")
            sc = sc.set("phases", []).with_overrides(["measure={{}}"])
            r = ccsim.run(sc, max_wall=1.0)
            print("RESULT", r.stop_reason, r.partial, 0 < r.sim_time_s < 1e6)
            """
        )
        reply = kc.execute_interactive(code, timeout=60, output_hook=messages.append)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    assert reply["content"]["status"] == "ok", reply["content"]
    stdout = "".join(
        m["content"]["text"]
        for m in messages
        if m["msg_type"] == "stream" and m["content"]["name"] == "stdout"
    )
    assert "RESULT max_wall True True" in stdout
    shown = [m for m in messages if m["msg_type"] == "display_data"]
    updates = [m for m in messages if m["msg_type"] == "update_display_data"]
    assert len(shown) == 1
    display_id = shown[0]["content"]["transient"]["display_id"]
    first = shown[0]["content"]["data"]
    assert re.search(r"tiny\.toml .*━.*/1,000,000 s [0-9.]+ M events/s", first["text/plain"])
    assert first["text/html"].startswith("<pre") and "events/s" in first["text/html"]
    assert all(m["content"]["transient"]["display_id"] == display_id for m in updates)
    # Redrawn while running (at most five times a second, over one second), then blanked.
    redraws = [m for m in updates if "events/s" in m["content"]["data"]["text/plain"]]
    assert len(redraws) >= 1
    assert updates[-1]["content"]["data"] == {"text/plain": ""}
    assert "stderr" not in {m["content"].get("name") for m in messages}


def test_slices_start_at_256_events_and_at_most_double():
    # The binding sizes each slice from the last one's timing (sim/slices.rs): whatever
    # the machine, the first slice is 256 events and none is more than twice the last.
    seen: list[int] = []
    r = ccsim.run(
        ccsim.load(TINY).with_overrides(MEDIUM[1::2]),
        progress=lambda s, e, events: seen.append(events),
    )
    sizes = [b - a for a, b in zip([0, *seen], seen, strict=False)]
    assert sizes[0] == 256
    assert all(b <= 2 * a for a, b in itertools.pairwise(sizes)), sizes
    # Slices of 256, 512, 1024, ... events: k slices hold at most 256 * (2^k - 1) events,
    # and the callback follows every slice but the last.
    least_slices = math.ceil(math.log2(r.events / 256 + 1))
    assert len(seen) >= least_slices - 1 >= 10


def test_a_keyboard_interrupt_in_the_callback_stops_the_run_with_its_results():
    calls: list[float] = []

    def callback(sim_time_s: float, end_s: float, events: int) -> None:
        calls.append(sim_time_s)
        if len(calls) == 3:
            raise KeyboardInterrupt

    with pytest.raises(ccsim.Interrupted) as caught:
        ccsim.run(ccsim.load(TINY).with_overrides(MEDIUM[1::2]), progress=callback)
    r = caught.value.results
    assert r.partial and r.stop_reason == "interrupted"
    assert len(calls) == 3 and r.sim_time_s == calls[-1] < 2000


def test_the_delay_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv("CCSIM_PROGRESS_DELAY", raising=False)
    assert _progress.progress_delay() == 2.0
    for text, value in [("0", 0.0), (" 0.5 ", 0.5), ("10", 10.0), ("", 2.0)]:
        monkeypatch.setenv("CCSIM_PROGRESS_DELAY", text)
        assert _progress.progress_delay() == value
    for text in ["soon", "-1", "nan", "inf"]:
        monkeypatch.setenv("CCSIM_PROGRESS_DELAY", text)
        with pytest.raises(ccsim.ScenarioError, match=r"CCSIM_PROGRESS_DELAY=.*give e\.g\."):
            _progress.progress_delay()
    # The CLI says so in one line, before the run.
    proc = subprocess.run(
        [sys.executable, "-m", "ccsim", "run", str(TINY)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=dict(os.environ, CCSIM_PROGRESS_DELAY="soon"),
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("ccsim: error: CCSIM_PROGRESS_DELAY='soon': not a number")
    assert len(proc.stderr.splitlines()) == 1


def test_where_a_bar_goes():
    class Tty:
        def isatty(self) -> bool:
            return True

    assert _progress.bar_kind(Tty()) == "terminal"
    with open(os.devnull, "w") as devnull:
        assert _progress.bar_kind(devnull) is None
    assert not _progress.in_jupyter()  # IPython may be imported, but this is no kernel
    with _progress.held():
        assert _progress.bar_kind(Tty()) is None  # a caller draws its own bar
    assert _progress.bar_kind(Tty()) == "terminal"
    with pytest.raises(ccsim.ScenarioError, match="progress: 'yes'"):
        ccsim.run(TINY, progress="yes")

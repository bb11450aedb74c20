"""Progress of one run: a bar showing simulated time, events per second and the time
left, drawn once the run has lasted ``CCSIM_PROGRESS_DELAY`` seconds (2 by default).

Where it is drawn (:func:`bar_kind`):

- on a terminal (stderr is a tty): a rich progress bar on stderr, redrawn in place about
  ten times a second and erased when the run ends;
- in Jupyter (an IPython kernel): an output of the cell (``IPython.display`` with a
  display id, so each redraw is an ``update_display_data`` message), rendered by rich
  as HTML and as plain text, redrawn about five times a second and blanked when the run
  ends. It needs no widget library, so it shows in any frontend (JupyterLab, Notebook,
  VS Code, nbconvert);
- nowhere else (stderr piped or a file), and not inside :func:`held` (a caller that draws
  its own bar, such as ``ccsim reproduce``).

The binding calls :meth:`RunProgress.update` between slices of the run, which last
about 10 ms of wall time each whatever an event costs
(crates/ccsim-engine/src/sim/slices.rs). All drawing happens there, on the thread that runs
the simulation: there is no refresh thread.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import time
from collections.abc import Iterator
from typing import Any

from ccsim import _ccsim

#: Seconds a run lasts before its bar appears, unless ``CCSIM_PROGRESS_DELAY`` says.
DEFAULT_DELAY_S = 2.0
#: Least seconds between two redraws, on a terminal and in Jupyter.
REDRAW_S = {"terminal": 0.1, "jupyter": 0.2}
#: Columns of the bar in Jupyter (a terminal's bar takes the terminal's width).
JUPYTER_WIDTH = 100

_held = 0


@contextlib.contextmanager
def held() -> Iterator[None]:
    """Runs inside this block draw no bar of their own (their caller draws one)."""
    global _held
    _held += 1
    try:
        yield
    finally:
        _held -= 1


def progress_delay() -> float:
    """The delay before a bar appears: ``CCSIM_PROGRESS_DELAY`` (seconds, 0 or more)
    if set, else 2 s."""
    text = os.environ.get("CCSIM_PROGRESS_DELAY", "").strip()
    if not text:
        return DEFAULT_DELAY_S
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value < float("inf"):
        raise _ccsim.ScenarioError(
            f"CCSIM_PROGRESS_DELAY={text!r}: not a number of seconds (0 or more); "
            "give e.g. CCSIM_PROGRESS_DELAY=0 to draw the bar at once, or unset it (2 s)"
        )
    return value


def in_jupyter() -> bool:
    """Whether this is an IPython kernel (Jupyter, VS Code, Colab), not a terminal."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    shell = ipython.get_ipython()
    kind = type(shell)
    return kind.__name__ == "ZMQInteractiveShell" or "google.colab" in kind.__module__


def bar_kind(stream: Any = None) -> str | None:
    """Where a bar can be drawn: "jupyter", "terminal" (``stream``, stderr by default,
    is a tty), or None."""
    if _held:
        return None
    if in_jupyter():
        return "jupyter"
    stream = stream or sys.stderr
    if getattr(stream, "isatty", lambda: False)():
        return "terminal"
    return None


def wants_bar(stream: Any = None) -> bool:
    """Whether a progress bar makes sense: stderr is a terminal, or we are in Jupyter."""
    return bar_kind(stream) is not None


def _seconds(s: float) -> str:
    """Simulated seconds for the bar: 4 significant digits, whole seconds from 10^4 s."""
    return f"{s:.4g}" if s < 1e4 else f"{s:,.0f}"


class RunProgress:
    """A progress bar for one run, drawn once the run has taken ``delay_s``
    (``progress_delay()`` when None) on ``kind`` ("terminal" or "jupyter")."""

    def __init__(self, label: str, delay_s: float | None = None, kind: str = "terminal") -> None:
        if kind not in REDRAW_S:
            raise ValueError(f"kind: {kind!r}; use 'terminal' or 'jupyter'")
        self.label = label
        self.kind = kind
        self.delay_s = progress_delay() if delay_s is None else delay_s
        self.start = time.monotonic()
        self.draws = 0
        self._bar: Any = None
        self._task: Any = None
        self._last_draw = 0.0
        self._render: Any = None  # Jupyter: the recording console
        self._display: Any = None  # Jupyter: the DisplayHandle

    def update(self, sim_time_s: float, end_s: float, events: int) -> None:
        """The run has reached ``sim_time_s`` of ``end_s`` after ``events`` events."""
        now = time.monotonic()
        elapsed = now - self.start
        if elapsed < self.delay_s or now - self._last_draw < REDRAW_S[self.kind]:
            return
        self._last_draw = now
        rate = events / elapsed if elapsed > 0 else 0.0
        fields = {
            "sim": f"{_seconds(sim_time_s)}/{_seconds(end_s)} s",
            "rate": f"{rate / 1e6:.2f} M events/s",
        }
        if self._bar is None:
            self._open(end_s, sim_time_s, fields)
        else:
            self._bar.update(self._task, completed=sim_time_s, **fields)
        self._draw()

    def _open(self, end_s: float, sim_time_s: float, fields: dict[str, str]) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

        if self.kind == "jupyter":
            # Rendered into a recording console, exported as HTML and text: rich's own
            # Jupyter display needs ipywidgets and a refresh thread.
            self._render = Console(
                file=io.StringIO(),
                record=True,
                width=JUPYTER_WIDTH,
                force_terminal=True,
                force_jupyter=False,
                color_system="truecolor",
            )
            console = self._render
        else:
            console = Console(stderr=True)
        self._bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.fields[sim]}"),
            TextColumn("{task.fields[rate]}"),
            TimeRemainingColumn(),
            console=console,
            transient=True,
            auto_refresh=False,
            redirect_stdout=False,
            disable=self.kind == "jupyter",
        )
        # The task comes with the fields its columns print.
        self._task = self._bar.add_task(self.label, total=end_s, completed=sim_time_s, **fields)

    def _draw(self) -> None:
        self.draws += 1
        if self.kind == "terminal":
            if self._bar.live.is_started:
                self._bar.refresh()
            else:
                self._bar.start()  # draws it
            return
        console = self._render
        console.file.seek(0)
        console.file.truncate()
        console.print(self._bar.get_renderable())
        bundle = {
            "text/plain": console.export_text(clear=False).rstrip("\n"),
            "text/html": console.export_html(
                clear=True,
                inline_styles=True,
                code_format='<pre style="line-height:normal;font-family:Menlo,'
                "'DejaVu Sans Mono',consolas,'Courier New',monospace\">{code}</pre>",
            ),
        }
        if self._display is None:
            from IPython.display import display

            self._display = display(bundle, raw=True, display_id=True)
        else:
            self._display.update(bundle, raw=True)

    def close(self) -> None:
        """Erase the bar (on a terminal) or blank it (in Jupyter)."""
        if self._bar is None:
            return
        if self.kind == "terminal":
            self._bar.stop()
        elif self._display is not None:
            self._display.update({"text/plain": ""}, raw=True)
        self._bar = None

"""Progress of one run: a rich progress bar on stderr that appears only if the run lasts
more than ``delay_s`` (2 s by default), showing simulated time, events per second and the
time left. The engine calls :meth:`RunProgress.update` between slices of the run (about
every 10 ms); the bar redraws at most a few times a second.
"""

from __future__ import annotations

import sys
import time
from typing import Any


def wants_bar(stream: Any = None) -> bool:
    """Whether a progress bar makes sense: stderr is a terminal, or we are in Jupyter."""
    stream = stream or sys.stderr
    if getattr(stream, "isatty", lambda: False)():
        return True
    return "ipykernel" in sys.modules


class RunProgress:
    """A progress bar for one run, drawn once the run has taken ``delay_s``."""

    def __init__(self, label: str, delay_s: float = 2.0) -> None:
        self.label = label
        self.delay_s = delay_s
        self.start = time.monotonic()
        self._bar: Any = None
        self._task: Any = None
        self._last_draw = 0.0

    def update(self, sim_time_s: float, end_s: float, events: int) -> None:
        now = time.monotonic()
        elapsed = now - self.start
        if elapsed < self.delay_s or now - self._last_draw < 0.1:
            return
        self._last_draw = now
        if self._bar is None:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.fields[sim]}"),
                TextColumn("{task.fields[rate]}"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self._bar.start()
            self._task = self._bar.add_task(self.label, total=end_s)
        rate = events / elapsed if elapsed > 0 else 0.0
        self._bar.update(
            self._task,
            completed=sim_time_s,
            sim=f"{sim_time_s:.4g}/{end_s:.4g} s",
            rate=f"{rate / 1e6:.2f} M events/s",
        )

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

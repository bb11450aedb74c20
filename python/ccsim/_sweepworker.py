"""Worker processes of a local sweep: ``python -m ccsim._sweepworker TASKS_FD RESULTS_FD``.

Each worker is a fresh interpreter that runs the cases it reads from one pipe and writes
their results to another (``multiprocessing.connection`` framing: pickled task tuples
and result dicts, see ``ccsim._sweepcase.run_case``). Unlike a ``multiprocessing`` pool this
never re-runs the user's ``__main__`` (a script without an ``if __name__ ==
"__main__"`` guard works), never forks a process that has threads, and isolates a
worker that dies: only the case it was running fails, and a new worker takes its place.

In the parent, a sender and a receiver thread per worker move tasks and results through
the pipes, so neither side ever waits on a full pipe while the parent writes the
database. A worker exits when its task pipe closes (the parent finished, or died); a
watcher thread also ends it within half a second of the parent's death while it is busy
with a long case.
"""

from __future__ import annotations

import math
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

# Each worker is handed about this much work (seconds, judged from the cases so far):
# enough that it keeps running while the parent stores results, little enough that at
# the end no worker idles while another still has a queue. At least 1 case, at most 64.
QUEUED_WORK_S = 0.5
MAX_QUEUED = 64
# Workers that die in a row before answering anything cannot start: give up.
MAX_STARTUP_DEATHS = 3

_DIED = object()  # what a receiver thread reports when its worker's pipe closes


class _Worker:
    """One worker process, its two pipes and the two threads that serve them."""

    def __init__(self, inbox: queue.SimpleQueue[tuple[_Worker, Any]]) -> None:
        task_read, task_write = os.pipe()
        result_read, result_write = os.pipe()
        package_root = str(Path(__file__).resolve().parent.parent)
        # The package first, then the parent's import path (as multiprocessing's spawn
        # passes it on), so a congestion control named by import path (module:Class,
        # docs/python-cc.md) imports in a worker as it does here.
        entries = [package_root, *os.environ.get("PYTHONPATH", "").split(os.pathsep)]
        entries += [os.path.abspath(p) if p else os.getcwd() for p in sys.path]
        path = os.pathsep.join(dict.fromkeys(e for e in entries if e))
        env = dict(os.environ, PYTHONPATH=path)
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "ccsim._sweepworker", str(task_read), str(result_write)],
                pass_fds=(task_read, result_write),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,  # the parent's stdout may be --json; stderr is shared
                env=env,
            )
        finally:
            os.close(task_read)
            os.close(result_write)
        self._tasks = Connection(task_write, readable=False)
        self._results = Connection(result_read, writable=False)
        self.queue: deque[Any] = deque()  # tasks handed over and not answered, oldest first
        self.answered = 0
        self._outbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._inbox = inbox
        self._threads = [
            threading.Thread(target=self._send_loop, daemon=True),
            threading.Thread(target=self._receive_loop, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def send(self, task: Any) -> None:
        self.queue.append(task)
        self._outbox.put(task)

    def _send_loop(self) -> None:
        while (task := self._outbox.get()) is not None:
            try:
                self._tasks.send(task)
            except OSError:  # the worker is gone; the receiver reports it
                return
        self._tasks.close()  # no more tasks: the worker exits

    def _receive_loop(self) -> None:
        while True:
            try:
                result = self._results.recv()
            except (EOFError, OSError):
                self._inbox.put((self, _DIED))
                return
            self._inbox.put((self, result))

    def stop(self, kill: bool) -> None:
        if kill:
            self.process.kill()
        self._outbox.put(None)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover - a worker stuck in a case
            self.process.kill()
            self.process.wait()
        for thread in self._threads:
            thread.join(timeout=10)
        self._results.close()


def run_batches(tasks: list[Any], jobs: int) -> Iterator[list[dict[str, Any]]]:
    """Run ``tasks`` on ``jobs`` worker processes; yield the results that arrived
    together (a case whose worker died gets ``{"case_id", "error"}``)."""
    waiting: deque[Any] = deque(tasks)
    inbox: queue.SimpleQueue[tuple[_Worker, Any]] = queue.SimpleQueue()
    pool = [_Worker(inbox) for _ in range(jobs)]
    depth = 2  # cases per worker until the first ones tell how long a case takes
    answered, case_time, startup_deaths = 0, 0.0, 0
    finished = False

    def feed() -> None:
        for worker in pool:
            while len(worker.queue) < depth and waiting:
                worker.send(waiting.popleft())

    try:
        feed()
        while any(worker.queue for worker in pool):
            arrived = [inbox.get()]
            while not inbox.empty():
                arrived.append(inbox.get())
            batch: list[dict[str, Any]] = []
            for worker, result in arrived:
                if result is not _DIED:
                    batch.append(result)
                    worker.queue.popleft()
                    worker.answered += 1
                    answered += 1
                    startup_deaths = 0
                    case_time += result.get("wall_time_s", 0.0)
                    per_case = max(case_time / answered, 1e-6)
                    depth = max(1, min(MAX_QUEUED, math.ceil(QUEUED_WORK_S / per_case)))
                    continue
                if worker not in pool:
                    continue
                # The case it was running fails; those queued behind it go elsewhere.
                status = worker.process.wait()
                if worker.queue:
                    case = worker.queue.popleft()
                    error = f"the worker process died running this case (exit status {status})"
                    batch.append({"case_id": case[0], "error": error})
                waiting.extendleft(reversed(worker.queue))
                worker.queue.clear()
                worker.stop(kill=True)
                startup_deaths += worker.answered == 0
                if startup_deaths >= MAX_STARTUP_DEATHS:
                    raise RuntimeError(
                        f"sweep worker processes exit at start (exit status {status}; see the "
                        f"messages above); check that ccsim imports in {sys.executable}, or "
                        "run with jobs=1"
                    )
                pool[pool.index(worker)] = _Worker(inbox)
            feed()
            yield batch
        finished = True
    finally:
        for worker in pool:
            worker.stop(kill=not finished)


def _exit_with_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def main(argv: list[str]) -> None:
    # Ctrl-C reaches the whole process group; it is the parent's to handle.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True).start()
    from ccsim._sweepcase import run_case

    tasks = Connection(int(argv[0]), writable=False)
    results = Connection(int(argv[1]), readable=False)
    while True:
        try:
            task = tasks.recv()
        except (EOFError, OSError):
            return  # the parent closed the pipe (done) or is gone
        try:
            results.send(run_case(task))
        except OSError:
            return


if __name__ == "__main__":
    main(sys.argv[1:])

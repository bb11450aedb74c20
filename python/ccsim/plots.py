"""Plots with matplotlib's object API (no pyplot state; the Agg canvas writes PNGs).

Imported lazily so that commands which draw nothing do not pay for matplotlib.
"""

from __future__ import annotations

from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ccsim.results import Results


def new_figure() -> Figure:
    fig = Figure(figsize=(8, 4), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def save(fig: Figure, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


def extend_to(frame, end: float):
    """A series recorded on change holds its last value until ``end``: add that point."""
    t, v = list(frame["t"]), list(frame["v"])
    if t and t[-1] < end:
        t.append(end)
        v.append(v[-1])
    return t, v


def step_plot(
    results: Results, names: list[str], path: Path, *, title: str, ylabel: str
) -> None:
    """Series recorded on change, drawn as steps (the value holds until the next point)."""
    fig = new_figure()
    ax = fig.add_subplot()
    top = 0.0
    for name in names:
        t, v = extend_to(results.series(name), results.sim_time_s)
        ax.step(t, v, where="post", label=name, linewidth=1)
        top = max([top, *v])
    if top > 0:
        ax.set_ylim(0, 1.25 * top)  # room for the legend above the curves
    ax.set_title(title)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.set_xlim(0, results.sim_time_s)
    ax.grid(True, alpha=0.3)
    if len(names) > 1:
        ax.legend(loc="upper right")
    save(fig, path)


def scatter_plot(results: Results, name: str, path: Path, *, title: str, ylabel: str) -> None:
    """Samples (one point per event, e.g. RTT samples)."""
    fig = new_figure()
    ax = fig.add_subplot()
    frame = results.series(name)
    ax.plot(frame["t"], frame["v"], ".", markersize=2)
    ax.set_title(title)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.set_xlim(0, results.sim_time_s)
    ax.grid(True, alpha=0.3)
    save(fig, path)

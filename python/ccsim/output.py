"""Writing a run's results to a directory: JSON summary, CSV tables, series and plots.

Layout of ``ccsim run FILE --out DIR``::

    DIR/summary.json            the results JSON
    DIR/scenario.toml           the checked scenario (overrides applied, defaults filled in)
    DIR/flows.csv, links.csv    one row per flow / channel
    DIR/phases.csv              per phase and flow    (phase_links.csv: per channel)
    DIR/intervals.csv           per interval and flow (interval_links.csv: per channel)
    DIR/fct.csv                 finite flows only: one row per flow with a size
                                (Results.fct())
    DIR/fct_summary.csv         finite flows only: FCT and slowdown percentiles per size
                                bucket (Results.fct_summary())
    DIR/series/<name>.csv       one file per time series, columns t,v (sampled series:
                                t,v,min,max)
    DIR/plots/throughput.png    goodput of the flows per interval (else per phase, else
                                one bar per flow), always
    DIR/plots/channels.png      utilisation and queue of the busiest channels, always
    DIR/plots/<flow>_window.png the flow's cwnd/ssthresh/outstanding series
    DIR/plots/<flow>_rtt.png    the flow's RTT samples
    DIR/plots/<channel>_queue.png
    DIR/plots/fct_cdf.png       finite flows only: distribution of the FCT per size bucket
    DIR/plots/slowdown.png      finite flows only: slowdown against size, p50/p95/p99
                                per bucket

Plots are written in each format of ``plots.figure_options`` (PNG by default; PDF, SVG),
with the phases, the on periods of unresponsive sources and the scheduled changes marked
when the checked scenario is given.

What grows with the run is the series' points: they are written ``CHUNK`` points at a
time (:func:`write_json`, :func:`write_series_csv`), and a :class:`Deadline` (the CLI's
``--max-wall``) is looked at between chunks, between files and between plots. Once it
has passed, the series' points still to come are left out (a JSON series then says how
many in ``points_left_out``), series files not begun are not written and neither are
the plots not drawn yet; the tables and the JSON's other keys are always written whole.
:func:`estimate_sizes` tells how large the series will be before anything is written.
"""

from __future__ import annotations

import json
import math
import os
import re
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from ccsim.results import Results

# Flow metrics drawn together on one "window" plot, in packets.
WINDOW_METRICS = ("cwnd", "ssthresh", "outstanding")

# Points of a series formatted between two looks at the deadline (about 30 ms of work).
CHUNK = 65536

# The clock of deadlines: seconds, monotonic (tests put a clock of their own here).
clock = time.monotonic


class Deadline:
    """The wall-clock time (of :data:`clock`) after which the output stops growing with
    the series, and what was left out because of it: ``cuts`` maps an output
    ("summary.json") to what it lacks, in words. ``at=None``: no deadline."""

    def __init__(self, at: float | None = None) -> None:
        self.at = at
        self.cuts: dict[str, list[str]] = {}

    @classmethod
    def after_run(cls, started: float, budget_s: float | None) -> Deadline:
        """The deadline of a command given ``budget_s`` seconds of wall time from
        ``started`` for the run and its output together: what is left of it after the
        run, and at least a tenth of it from now (so a run stopped by the budget still
        writes what costs little)."""
        if budget_s is None:
            return cls(None)
        return cls(max(started + budget_s, clock() + budget_s / 10))

    def passed(self) -> bool:
        return self.at is not None and clock() >= self.at

    def cut(self, where: str, what: str) -> None:
        self.cuts.setdefault(where, []).append(what)


def safe_name(name: str) -> str:
    """A file name for a series or channel name: ``"sw->sink.queue"`` -> ``"sw-to-sink.queue"``."""
    name = name.replace("->", "-to-")
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)


def write_results(
    results: Results,
    out: str | os.PathLike[str],
    scenario: dict[str, Any] | None = None,
    deadline: Deadline | None = None,
) -> list[Path]:
    """Write everything about ``results`` into the directory ``out`` (a path or a
    string; created if needed); return the files written.

    ``scenario`` is the checked scenario (``Scenario.check()``); with it the plots mark
    on periods and ``[[changes]]`` as well as phases. ``deadline``: see the module
    comment; what it left out is in ``deadline.cuts``.
    """
    deadline = deadline or Deadline()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def emit(path: Path) -> None:
        written.append(path)

    summary = out / "summary.json"
    with open(summary, "w", encoding="utf-8") as f:
        write_json(results, f, deadline=deadline, where="summary.json")
        f.write("\n")
    emit(summary)

    tables = {
        "flows.csv": results.flows,
        "links.csv": results.links,
    }
    if results.n_phases:
        tables["phases.csv"] = results.phases
        tables["phase_links.csv"] = results.phase_links
    if results.n_intervals:
        tables["intervals.csv"] = results.intervals
        tables["interval_links.csv"] = results.interval_links
    fct = results.fct()
    if len(fct):
        tables["fct.csv"] = fct
        tables["fct_summary.csv"] = results.fct_summary()
    for filename, frame in tables.items():
        frame.to_csv(out / filename, index=False)
        emit(out / filename)

    if results.series_names:
        series_dir = out / "series"
        series_dir.mkdir(exist_ok=True)
        points = results.series_points()
        for name in results.series_names:
            path = series_dir / f"{safe_name(name)}.csv"
            if deadline.passed():
                deadline.cut("series/", f"{path.name} not written ({points[name]:,} points)")
                continue
            write_series_csv(results, name, path, deadline=deadline)
            emit(path)
    for path in write_plots(results, out / "plots", scenario, deadline=deadline):
        emit(path)
    return written


def write_scenario(scenario: Any, out: str | os.PathLike[str]) -> Path:
    """Write ``scenario`` (a :class:`ccsim.Scenario`) checked, as TOML, to
    ``out/scenario.toml`` (what ``ccsim report`` shows); return the path."""
    path = Path(out) / "scenario.toml"
    path.write_text(scenario.to_toml(), encoding="utf-8")
    return path


# The series' points, a chunk at a time --------------------------------------------------


def _strings(values: Any, null: str) -> list[str]:
    """``values`` (a NumPy array or a list) as JSON or CSV numbers: floats as ``repr``
    writes them (as ``json.dumps`` and pandas' ``to_csv`` do), NaN and None as
    ``null``."""
    items = values.tolist() if hasattr(values, "tolist") else list(values)
    if hasattr(values, "dtype"):
        import numpy as np

        finite = values.dtype.kind == "f" and bool(np.isfinite(values).all())
    else:
        finite = all(type(x) is float and math.isfinite(x) for x in items)
    if finite:
        return list(map(float.__repr__, items))
    return [_number(x, null) for x in items]


def _number(x: Any, null: str) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return null
    if isinstance(x, float) and math.isinf(x):
        return json.dumps(x)
    return repr(x)


def write_json(
    results: Results, fp: IO[str], *, deadline: Deadline | None = None, where: str = "the JSON"
) -> None:
    """The results JSON, indented by 2, into the text stream ``fp``: the text of
    ``results.to_json(indent=2)`` (no newline at the end), but without the dict of every
    point (the series' points are formatted ``CHUNK`` at a time, in step across ``t``,
    ``v``, ``min`` and ``max``). If ``deadline`` passes, each series keeps the points
    formatted by then and says how many it left out (``"points_left_out"``); ``where``
    names the output in ``deadline.cuts``."""
    deadline = deadline or Deadline()
    head = json.dumps(results._head(), indent=2)
    entries = results._series_entries()
    if not entries:
        fp.write(head)
        return
    assert head.endswith('"series": []\n}'), "series is the last key"
    fp.write(head[: -len("[]\n}")] + "[")
    pad, item = " " * 6, " " * 8
    sep = ",\n" + item
    for i, (info, points) in enumerate(entries):
        n = len(points["t"])
        keys = list(points)
        parts: dict[str, list[str]] = {k: [] for k in keys}
        kept = 0
        while kept < n and not deadline.passed():
            end = min(kept + CHUNK, n)
            for k in keys:
                parts[k].append(sep.join(_strings(points[k][kept:end], "null")))
            kept = end
        lines = [f"{pad}{json.dumps(k)}: {_scalar(v, pad)}" for k, v in info.items()]
        for k in keys:
            if kept == 0:
                lines.append(f"{pad}{json.dumps(k)}: []")
            else:
                lines.append(f"{pad}{json.dumps(k)}: [\n{item}" + sep.join(parts[k]) + f"\n{pad}]")
        if kept < n:
            lines.append(f'{pad}"points_left_out": {n - kept}')
            deadline.cut(where, f"{info.get('name')} {kept:,} of {n:,} points written")
        fp.write(("," if i else "") + "\n    {\n" + ",\n".join(lines) + "\n    }")
    fp.write("\n  ]\n}")


def _scalar(value: Any, pad: str) -> str:
    """A series' scalar field as ``json.dumps(..., indent=2)`` writes it at this depth."""
    return json.dumps(value, indent=2).replace("\n", "\n" + pad)


def write_series_csv(
    results: Results, name: str, path: Path, *, deadline: Deadline | None = None
) -> int:
    """The series ``name`` as CSV (columns ``t,v``, sampled ``t,v,min,max``; the text of
    ``results.series(name).to_csv(path, index=False)``), ``CHUNK`` rows at a time; stops
    when ``deadline`` passes. Returns the rows written."""
    deadline = deadline or Deadline()
    points = results._series_points(name)
    n = len(points["t"])
    keys = list(points)
    written = 0
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(",".join(keys) + "\n")
        while written < n and not deadline.passed():
            end = min(written + CHUNK, n)
            cols = [_strings(points[k][written:end], "") for k in keys]
            f.write("\n".join(map(",".join, zip(*cols, strict=True))) + "\n")
            written = end
    if written < n:
        deadline.cut("series/", f"{path.name} {written:,} of {n:,} points written")
    return written


# Sizes ----------------------------------------------------------------------------------


def estimate_sizes(results: Results, formats: Sequence[str]) -> dict[str, int]:
    """The bytes each series' points will take in the outputs ``formats`` (any of
    ``"json"``: the indented results JSON, ``"csv"``: ``series/<name>.csv``), by name,
    from the length of up to 1000 of its numbers spread over the series."""
    sizes: dict[str, int] = {}
    for name in results.series_names:
        points = results._series_points(name)
        n = len(points["t"])
        if n == 0:
            sizes[name] = 0
            continue
        step = max(1, n // 1000)
        lengths = []
        for values in points.values():
            some = _strings(values[::step], "null")
            lengths.append(sum(map(len, some)) / len(some))
        total = 0.0
        for fmt in formats:
            if fmt == "json":
                # Each number on a line of its own, 8 spaces in, ",\n" after it.
                total += n * sum(length + 10 for length in lengths)
            elif fmt == "csv":
                # One row per point: the numbers, commas between, a newline.
                total += n * (sum(lengths) + len(lengths))
        sizes[name] = round(total)
    return sizes


# Plots ----------------------------------------------------------------------------------


def write_plots(
    results: Results,
    out: str | os.PathLike[str],
    scenario: dict[str, Any] | None = None,
    deadline: Deadline | None = None,
) -> list[Path]:
    """The throughput and channel plots, the FCT distribution and slowdown plots when
    the run has finite flows, then one plot per flow's window series, per flow's RTT
    series and per queue series, into the directory ``out``; in every format
    in force. Plots not begun when ``deadline`` passes are left out (and named in
    ``deadline.cuts``)."""
    from ccsim import plots

    deadline = deadline or Deadline()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    timeline = plots.Timeline.of(results, scenario)
    jobs: list[tuple[Path, Any]] = [
        (out / "throughput.png", lambda p: plots.throughput_plot(results, p, timeline=timeline))
    ]
    if results.n_links:
        jobs.append((out / "channels.png", lambda p: plots.channels_plot(results, p)))
    fct = results.fct()
    if len(fct):
        summary = results.fct_summary()
        jobs.append((out / "fct_cdf.png", lambda p: plots.fct_cdf_plot(fct, p, title=results.scenario)))
        jobs.append((out / "slowdown.png", lambda p: plots.slowdown_plot(fct, summary, p, title=results.scenario)))

    by_entity: dict[str, dict[str, str]] = defaultdict(dict)
    for name in results.series_names:
        entry = results.series_info(name)
        by_entity[entry["entity"]][entry["metric"]] = entry["name"]
    for entity, metrics in by_entity.items():
        window = [metrics[m] for m in WINDOW_METRICS if m in metrics]
        if window:
            title = f"{results.scenario}: {entity}, " + ", ".join(
                plots.describe(m, unit=False) for m in WINDOW_METRICS if m in metrics
            )
            jobs.append(
                (
                    out / f"{safe_name(entity)}_window.png",
                    lambda p, window=window, title=title: plots.step_plot(
                        results, window, p, title=title, ylabel="packets", timeline=timeline
                    ),
                )
            )
        if "rtt" in metrics:
            jobs.append(
                (
                    out / f"{safe_name(entity)}_rtt.png",
                    lambda p, name=metrics["rtt"], entity=entity: plots.scatter_plot(
                        results,
                        name,
                        p,
                        title=f"{results.scenario}: {entity} round-trip time samples",
                        ylabel="round-trip time (s)",
                        timeline=timeline,
                    ),
                )
            )
        if "queue" in metrics:
            jobs.append(
                (
                    out / f"{safe_name(entity)}_queue.png",
                    lambda p, name=metrics["queue"], entity=entity: plots.step_plot(
                        results,
                        [name],
                        p,
                        title=f"{results.scenario}: {entity} queue",
                        ylabel="packets queued",
                        timeline=timeline,
                    ),
                )
            )
    written: list[Path] = []
    left: list[str] = []
    for path, draw in jobs:
        if deadline.passed():
            left.append(path.name)
            continue
        written += draw(path)
    if left:
        deadline.cut("plots/", f"{', '.join(left)} not drawn")
    return written

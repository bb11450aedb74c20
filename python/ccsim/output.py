"""Writing a run's results to a directory: JSON summary, CSV tables, series and plots.

Layout of ``ccsim run FILE --out DIR``::

    DIR/summary.json            the results JSON
    DIR/scenario.toml           the checked scenario (overrides applied, defaults filled in)
    DIR/flows.csv, links.csv    one row per flow / channel
    DIR/phases.csv              per phase and flow    (phase_links.csv: per channel)
    DIR/intervals.csv           per interval and flow (interval_links.csv: per channel)
    DIR/series/<name>.csv       one file per time series, columns t,v
    DIR/plots/throughput.png    goodput of the flows per interval (else per phase, else
                                one bar per flow), always
    DIR/plots/channels.png      utilisation and queue of the busiest channels, always
    DIR/plots/<flow>_window.png the flow's cwnd/ssthresh/outstanding series
    DIR/plots/<flow>_rtt.png    the flow's RTT samples
    DIR/plots/<channel>_queue.png

Plots are written in each format of ``plots.figure_options`` (PNG by default; PDF, SVG),
with the phases, the on periods of unresponsive sources and the scheduled changes marked
when the checked scenario is given.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from ccsim.results import Results

# Flow metrics drawn together on one "window" plot, in packets.
WINDOW_METRICS = ("cwnd", "ssthresh", "outstanding")


def safe_name(name: str) -> str:
    """A file name for a series or channel name: ``"sw->sink.queue"`` -> ``"sw-to-sink.queue"``."""
    name = name.replace("->", "-to-")
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)


def write_results(
    results: Results, out: str | os.PathLike[str], scenario: dict[str, Any] | None = None
) -> list[Path]:
    """Write everything about ``results`` into the directory ``out`` (a path or a
    string; created if needed); return the files written.

    ``scenario`` is the checked scenario (``Scenario.check()``); with it the plots mark
    on periods and ``[[changes]]`` as well as phases.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def emit(path: Path) -> None:
        written.append(path)

    summary = out / "summary.json"
    summary.write_text(results.to_json(indent=2) + "\n", encoding="utf-8")
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
    for filename, frame in tables.items():
        frame.to_csv(out / filename, index=False)
        emit(out / filename)

    if results.series_names:
        series_dir = out / "series"
        series_dir.mkdir(exist_ok=True)
        for name in results.series_names:
            path = series_dir / f"{safe_name(name)}.csv"
            results.series(name).to_csv(path, index=False)
            emit(path)
    for path in write_plots(results, out / "plots", scenario):
        emit(path)
    return written


def write_scenario(scenario: Any, out: str | os.PathLike[str]) -> Path:
    """Write ``scenario`` (a :class:`ccsim.Scenario`) checked, as TOML, to
    ``out/scenario.toml`` (what ``ccsim report`` shows); return the path."""
    path = Path(out) / "scenario.toml"
    path.write_text(scenario.to_toml(), encoding="utf-8")
    return path


def write_plots(
    results: Results, out: str | os.PathLike[str], scenario: dict[str, Any] | None = None
) -> list[Path]:
    """The throughput and channel plots, then one plot per flow's window series, per
    flow's RTT series and per queue series, into the directory ``out``; in every format
    in force."""
    from ccsim import plots

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    timeline = plots.Timeline.of(results, scenario)
    written = []
    written += plots.throughput_plot(results, out / "throughput.png", timeline=timeline)
    if results.n_links:
        written += plots.channels_plot(results, out / "channels.png")

    by_entity: dict[str, dict[str, str]] = defaultdict(dict)
    for name in results.series_names:
        entry = results.series_info(name)
        by_entity[entry["entity"]][entry["metric"]] = entry["name"]
    for entity, metrics in by_entity.items():
        window = [metrics[m] for m in WINDOW_METRICS if m in metrics]
        if window:
            written += plots.step_plot(
                results,
                window,
                out / f"{safe_name(entity)}_window.png",
                title=f"{results.scenario}: {entity}, "
                + ", ".join(plots.describe(m, unit=False) for m in WINDOW_METRICS if m in metrics),
                ylabel="packets",
                timeline=timeline,
            )
        if "rtt" in metrics:
            written += plots.scatter_plot(
                results,
                metrics["rtt"],
                out / f"{safe_name(entity)}_rtt.png",
                title=f"{results.scenario}: {entity} round-trip time samples",
                ylabel="round-trip time (s)",
                timeline=timeline,
            )
        if "queue" in metrics:
            written += plots.step_plot(
                results,
                [metrics["queue"]],
                out / f"{safe_name(entity)}_queue.png",
                title=f"{results.scenario}: {entity} queue",
                ylabel="packets queued",
                timeline=timeline,
            )
    return written

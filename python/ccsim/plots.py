"""Figures with matplotlib's object API (no pyplot state), fit for a paper.

Every figure is drawn once and saved in each of the formats in force (PNG, PDF, SVG), at
the size and resolution in force: :func:`figure_options` sets them for a block of code
(the CLI's ``--format``, ``--size`` and ``--dpi``). Titles and axis labels are wrapped to
the figure's width before saving, and the layout is constrained, so nothing is clipped.
PDFs embed TrueType fonts (not Type 3) and carry no creation date, so the same figure
gives the same file.

Imported lazily so that commands which draw nothing do not pay for matplotlib.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ccsim.results import Results

FORMATS = ("png", "pdf", "svg")

# A series' metric in words, and its unit (for legends and axis labels).
QUANTITIES: dict[str, tuple[str, str]] = {
    "cwnd": ("congestion window", "packets"),
    "ssthresh": ("slow-start threshold", "packets"),
    "outstanding": ("packets outstanding", "packets"),
    "rtt": ("round-trip time", "s"),
    "rate": ("pacing rate", "packets/s"),
    "reference_rtt": ("reference round-trip time", "s"),
    "base_rtt": ("base round-trip time", "s"),
    "diff": ("Vegas diff (packets queued)", "packets"),
    "queue": ("queue length", "packets"),
    "sojourn": ("time in queue", "s"),
    "avg": ("RED average queue", "packets"),
    "w_max": ("CUBIC W_max", "packets"),
    "cubic_k": ("CUBIC K", "s"),
    "dctcp_alpha": ("DCTCP alpha", "fraction marked"),
    "bbr_bw": ("BBR bandwidth estimate", "bit/s"),
    "bbr_state": ("BBR state (0 startup, 1 drain, 2 probe_bw, 3 probe_rtt)", "state"),
    "dropping": ("CoDel dropping state", "0/1"),
    "drop_next": ("CoDel next drop time", "s"),
    "drop_prob": ("PIE drop probability", "probability"),
    "qdelay": ("PIE queue delay", "s"),
}


@dataclass(frozen=True)
class FigureOptions:
    formats: tuple[str, ...] = ("png",)
    size: tuple[float, float] = (8.0, 4.0)  # inches, width x height
    dpi: int = 120  # raster formats only


_OPTIONS: ContextVar[FigureOptions] = ContextVar("ccsim_figure_options", default=FigureOptions())  # noqa: B039 (frozen)


def options() -> FigureOptions:
    """The figure options in force."""
    return _OPTIONS.get()


@contextmanager
def figure_options(
    formats: tuple[str, ...] | list[str] | None = None,
    size: tuple[float, float] | None = None,
    dpi: int | None = None,
) -> Iterator[FigureOptions]:
    """Draw the figures of a block in these formats, at this size and dpi (None: keep)."""
    current = options()
    new = replace(
        current,
        formats=tuple(formats) if formats is not None else current.formats,
        size=tuple(size) if size is not None else current.size,  # type: ignore[arg-type]
        dpi=dpi if dpi is not None else current.dpi,
    )
    for fmt in new.formats:
        if fmt not in FORMATS:
            raise ValueError(f"unknown figure format {fmt!r}; give {', '.join(FORMATS)}")
    token = _OPTIONS.set(new)
    try:
        with matplotlib.rc_context({"font.size": font_size(new.size[0])}):
            yield new
    finally:
        _OPTIONS.reset(token)


def font_size(width: float) -> float:
    """Points of the base font for a figure ``width`` inches wide: matplotlib's 10 from
    6.25 in up, down to 7 for one paper column (3.5 in)."""
    return max(7.0, min(10.0, 1.6 * width))


def describe(name: str, unit: bool = True) -> str:
    """A series name in words: ``"ftp1.cwnd"`` -> ``"ftp1 congestion window (packets)"``."""
    entity, _, metric = name.rpartition(".")
    words, unit_text = QUANTITIES.get(metric, (metric, ""))
    text = f"{entity} {words}" if entity else words
    return f"{text} ({unit_text})" if unit and unit_text else text


def new_figure(panels: int = 1) -> Figure:
    """A figure of the size in force; ``panels`` stacked panels get 0.65 of its height
    each (at least the full height)."""
    width, height = options().size
    if panels > 1:
        height = max(height, 0.65 * height * panels)
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def outputs(path: Path) -> list[Path]:
    """The files :func:`save` writes for ``path``: one per format in force."""
    return [path.with_suffix(f".{fmt}") for fmt in options().formats]


def save(fig: Figure, path: Path) -> list[Path]:
    """Write ``fig`` as ``path`` in each format in force (the suffix of ``path`` is
    replaced); returns the files written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fit_texts(fig)
    written = []
    rc = {"pdf.fonttype": 42, "ps.fonttype": 42, "svg.hashsalt": "ccsim"}
    with matplotlib.rc_context(rc):
        for target in outputs(path):
            fmt = target.suffix[1:]
            metadata: dict[str, Any] = {"Software": "ccsim"} if fmt == "png" else {}
            if fmt == "pdf":
                metadata = {"Creator": "ccsim", "Producer": "ccsim", "CreationDate": None}
            if fmt == "svg":
                metadata = {"Creator": "ccsim", "Date": None}
            fig.savefig(target, dpi=options().dpi, metadata=metadata)
            written.append(target)
    return written


def fit_texts(fig: Figure) -> None:
    """Wrap titles to the figure's width and y labels to the axes' height, so that no
    text is clipped however small the figure."""
    fig.canvas.draw()  # lay out once, to know where each axes is
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    width, height = fig.bbox.width, fig.bbox.height
    texts = []
    suptitle = getattr(fig, "_suptitle", None)
    if suptitle is not None:
        texts.append((suptitle, "width", width))
    for ax in fig.axes:
        box = ax.get_position()  # figure fractions
        centre = (box.x0 + box.x1) / 2 * width
        # A title is centred over its axes: it may use twice the room on its short side.
        room = 2 * min(centre, width - centre)
        for title in (ax.title, ax._left_title, ax._right_title):  # noqa: SLF001
            texts.append((title, "width", room))
        texts.append((ax.yaxis.label, "height", 0.9 * height))
        texts.append((ax.xaxis.label, "width", room))
    for text, dimension, limit in texts:
        _wrap(text, renderer, dimension, 0.96 * limit)


def _wrap(text: Any, renderer: Any, dimension: str, limit: float) -> None:
    content = text.get_text()
    if not content:
        return
    flat = " ".join(content.split())

    def size(s: str) -> float:
        text.set_text(s)
        extent = text.get_window_extent(renderer)
        return extent.width if dimension == "width" else extent.height

    if size(flat) <= limit:
        return
    chars = len(flat)
    while chars > 10:
        chars = int(chars * 0.9)
        candidate = textwrap.fill(flat, chars)
        if size(candidate) <= limit:
            return
    text.set_text(textwrap.fill(flat, 10))


def extend_to(frame: Any, end: float) -> tuple[list[float], list[float]]:
    """A series recorded on change holds its last value until ``end``: add that point."""
    t, v = list(frame["t"]), list(frame["v"])
    if t and t[-1] < end:
        t.append(end)
        v.append(v[-1])
    return t, v


# Marks of the scenario's timeline ------------------------------------------------------


@dataclass(frozen=True)
class Timeline:
    """What happens when in a run: named phases, unresponsive sources' on periods and
    scheduled changes, in seconds."""

    phases: list[tuple[str, float, float]]
    on_periods: dict[str, list[tuple[float, float]]]
    changes: list[tuple[float, str]]

    @classmethod
    def of(cls, results: Results, scenario: dict[str, Any] | None) -> Timeline:
        """From the results (phases) and the checked scenario (``Scenario.check()``: on
        periods, changes); without the scenario, phases only."""
        from ccsim import _ccsim

        phases = [(p["name"], p["start_s"], p["end_s"]) for p in results.raw.get("phases", [])]
        on: dict[str, list[tuple[float, float]]] = {}
        changes: list[tuple[float, str]] = []
        end = results.sim_time_s
        for flow in (scenario or {}).get("flows", []):
            periods = [
                (_ccsim.parse_time(a), _ccsim.parse_time(b)) for a, b in flow.get("on") or []
            ]
            if periods and periods != [(0.0, end)]:
                on[flow["name"]] = periods
        for change in (scenario or {}).get("changes", []):
            what = [f"{k} {change[k]}" for k in ("rate", "delay") if change.get(k)]
            target = change.get("link") or change.get("channel") or ""
            changes.append((_ccsim.parse_time(change["at"]), f"{target}: {', '.join(what)}"))
        return cls(phases, on, changes)

    def draw(self, ax: Any, scale: float = 1.0) -> None:
        """Shade the phases (names at the top), draw on periods as bars along the bottom
        and changes as dashed lines, each with a legend entry; ``scale`` divides times."""
        top = ax.get_xaxis_transform()
        for i, (name, start, end) in enumerate(self.phases):
            ax.axvspan(start / scale, end / scale, color="0.94" if i % 2 else "0.88",
                       zorder=0, linewidth=0)  # fmt: skip
            # Names just above the frame (the layout makes room below the title).
            ax.text((start + end) / 2 / scale, 1.005, name, transform=top, ha="center",
                    va="bottom", fontsize="x-small", color="0.3")  # fmt: skip
        for i, (flow, periods) in enumerate(self.on_periods.items()):
            y = 0.015 + 0.025 * i
            for j, (start, end) in enumerate(periods):
                ax.hlines(y, start / scale, end / scale, transform=top, linewidth=3,
                          color=f"C{(i + 5) % 10}", alpha=0.8,
                          label=f"{flow} on" if j == 0 else None)  # fmt: skip
        for i, (at, what) in enumerate(self.changes):
            ax.axvline(at / scale, linestyle="--", linewidth=0.9, color="0.25",
                       label=f"change at {at:g} s ({what})" if i < 3 else None)  # fmt: skip


def _title_pad(timeline: Timeline | None) -> float:
    """Points between the frame and the title: room for the phase names there."""
    return 16.0 if timeline is not None and timeline.phases else 6.0


def _legend(ax: Any) -> None:
    """The legend below the plot, outside the data (the layout makes room)."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        width = ax.figure.get_figwidth()
        ncols = 1 if width < 4.5 else 2 if width < 7 or len(handles) > 6 else 3
        ax.figure.legend(handles, labels, loc="outside lower center", ncols=min(ncols, len(handles)),
                         fontsize="small", frameon=False)  # fmt: skip


# The figures of `ccsim run --out` -----------------------------------------------------------


def step_plot(
    results: Results,
    names: list[str],
    path: Path,
    *,
    title: str,
    ylabel: str,
    timeline: Timeline | None = None,
) -> list[Path]:
    """Series recorded on change, drawn as steps (the value holds until the next point),
    labelled in words, over the run's timeline."""
    fig = new_figure()
    ax = fig.add_subplot()
    top = 0.0
    threshold = 0.0
    for i, name in enumerate(names):
        frame = results.series(name)
        t, v = extend_to(frame, results.sim_time_s)
        (line,) = ax.step(t, v, where="post", label=describe(name), linewidth=1)
        peak = _range_band(ax, frame, line.get_color(), results.series_sample_s, labelled=i == 0)
        if name.endswith(".ssthresh"):
            threshold = max([threshold, *v, peak])
        else:
            top = max([top, *v, peak])
    # A threshold starts "infinite" (far above the window): leave it off the scale then.
    if threshold and (top == 0 or threshold <= 2 * top):
        top = max(top, threshold)
    if top > 0:
        ax.set_ylim(0, 1.08 * top)
    if timeline is not None:
        timeline.draw(ax)
    ax.set_title(title, pad=_title_pad(timeline))
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.set_xlim(0, results.sim_time_s)
    ax.grid(True, alpha=0.3)
    _legend(ax)
    return save(fig, path)


def _range_band(
    ax: Any, frame: Any, color: str, sample_s: float | None, labelled: bool = True
) -> float:
    """For a sampled series (columns ``min`` and ``max``): shade, for each point, the
    range of its bucket's samples over the time they span, from the bucket's start (or
    the previous point, if later) to the point itself; in the legend if ``labelled``.
    Returns the largest sample (0 when not sampled)."""
    import numpy as np

    if "max" not in frame or not len(frame) or sample_s is None:
        return 0.0
    t = frame["t"].to_numpy()
    lo, hi = frame["min"].to_numpy(), frame["max"].to_numpy()
    start = np.maximum(np.floor(t / sample_s) * sample_s, np.concatenate(([0.0], t[:-1])))
    start = np.minimum(start, t)
    # One rectangle per point, NaN between them (fill_between leaves gaps there).
    gap = np.full_like(t, np.nan)
    x = np.column_stack([start, t, gap]).ravel()
    lows = np.column_stack([lo, lo, gap]).ravel()
    highs = np.column_stack([hi, hi, gap]).ravel()
    width = f"{sample_s * 1e3:g} ms" if sample_s < 1 else f"{sample_s:g} s"
    ax.fill_between(x, lows, highs, color=color, alpha=0.3, linewidth=0,
                    label=f"range of the samples in each {width}" if labelled else None)  # fmt: skip
    return float(np.nanmax(hi))


def scatter_plot(
    results: Results,
    name: str,
    path: Path,
    *,
    title: str,
    ylabel: str,
    timeline: Timeline | None = None,
) -> list[Path]:
    """Samples (one point per event, e.g. RTT samples)."""
    fig = new_figure()
    ax = fig.add_subplot()
    frame = results.series(name)
    (dots,) = ax.plot(frame["t"], frame["v"], ".", markersize=2, label=describe(name))
    peak = _range_band(ax, frame, dots.get_color(), results.series_sample_s)
    if len(frame):
        ax.set_ylim(0, 1.08 * max(float(frame["v"].max()), peak) or 1.0)
    if timeline is not None:
        timeline.draw(ax)
    ax.set_title(title, pad=_title_pad(timeline))
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.set_xlim(0, results.sim_time_s)
    ax.grid(True, alpha=0.3)
    _legend(ax)
    return save(fig, path)


# At most this many flows are drawn one by one; beyond, their total, mean and range.
MAX_FLOW_LINES = 10


def _rate_unit(peak_bps: float) -> tuple[str, float]:
    for unit, scale in (("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3)):
        if peak_bps >= scale:
            return unit, scale
    return "bps", 1.0


def throughput_plot(
    results: Results, path: Path, *, timeline: Timeline | None = None
) -> list[Path]:
    """Goodput of every flow over time: per ``[measure].interval`` if recorded, else per
    phase, else one bar per flow for the whole run. Beyond MAX_FLOW_LINES flows: the
    total, the mean per flow and the range of the flows."""
    import numpy as np

    flows = [f["name"] for f in results.raw.get("flows", [])]
    periods = results.raw.get("intervals") or results.raw.get("phases") or []
    source = "interval" if results.raw.get("intervals") else "phase"
    fig = new_figure()
    ax = fig.add_subplot()
    if not periods or not flows:
        goodput = [float(f["goodput_bps"]) for f in results.raw.get("flows", [])]
        unit, scale = _rate_unit(max(goodput, default=0.0))
        shown = flows
        if len(flows) > 4 * MAX_FLOW_LINES:
            order = np.argsort(goodput)[::-1]
            goodput = [goodput[i] for i in order]
            shown = [flows[i] for i in order]
        ax.bar(range(len(shown)), [g / scale for g in goodput], color="C0",
               width=0.8 if len(shown) <= 4 * MAX_FLOW_LINES else 1.0, linewidth=0)  # fmt: skip
        if len(shown) <= 4 * MAX_FLOW_LINES:
            ax.set_xticks(range(len(shown)), shown, rotation=45 if len(shown) > 8 else 0,
                          ha="right" if len(shown) > 8 else "center")  # fmt: skip
            ax.set_xlabel("flow")
        else:
            ax.set_xlabel(f"flows, by goodput ({len(shown)})")
        ax.set_ylabel(f"goodput over the run ({unit})")
        ax.set_title(f"{results.scenario}: goodput per flow")
        ax.grid(True, axis="y", alpha=0.3)
        return save(fig, path)

    starts = np.array([p["start_s"] for p in periods])
    ends = np.array([p["end_s"] for p in periods])
    rates = np.array(
        [[_flow_entry(p, name)["goodput_bps"] or 0.0 for p in periods] for name in flows],
        dtype=float,
    )
    unit, scale = _rate_unit(float(rates.sum(axis=0).max()) if len(flows) > MAX_FLOW_LINES
                             else float(rates.max()))  # fmt: skip

    def steps(values: Any) -> tuple[list[float], list[float]]:
        xs, ys = [], []
        for s, e, v in zip(starts, ends, values, strict=True):
            xs += [s, e, np.nan]
            ys += [v / scale, v / scale, np.nan]
        return xs, ys

    if len(flows) <= MAX_FLOW_LINES:
        for i, name in enumerate(flows):
            ax.plot(*steps(rates[i]), linewidth=1.2, color=f"C{i % 10}", label=f"{name} goodput")
    else:
        ax.plot(*steps(rates.sum(axis=0)), linewidth=1.4, color="C0",
                label=f"all {len(flows)} flows")  # fmt: skip
        ax.plot(*steps(rates.mean(axis=0)), linewidth=1.2, color="C1", label="mean per flow")
        for s, e, lo, hi in zip(starts, ends, rates.min(axis=0), rates.max(axis=0), strict=True):
            ax.fill_between([s, e], lo / scale, hi / scale, color="C1", alpha=0.2, linewidth=0)
        ax.fill_between([], [], [], color="C1", alpha=0.2, label="range of the flows")
    peak = max((y for line in ax.get_lines() for y in line.get_ydata() if y == y), default=0.0)
    ax.set_ylim(0, 1.08 * peak if peak > 0 else 1.0)
    if timeline is not None:
        timeline.draw(ax)
    ax.set_xlim(0, results.sim_time_s)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(f"goodput ({unit})")
    what = "interval" if source == "interval" else "phase"
    ax.set_title(f"{results.scenario}: goodput per {what}", pad=_title_pad(timeline))
    ax.grid(True, alpha=0.3)
    _legend(ax)
    return save(fig, path)


def _flow_entry(period: dict[str, Any], name: str) -> dict[str, Any]:
    for entry in period["flows"]:
        if entry["name"] == name:
            return entry
    return {"goodput_bps": 0.0}


# At most this many channels in the channel bars (the busiest).
MAX_CHANNEL_BARS = 20


def channels_plot(results: Results, path: Path) -> list[Path]:
    """Utilisation and mean/maximum queue of the busiest channels, as bars."""
    channels = [c for c in results.raw.get("links", []) if c["tx_pkts"] > 0 or c["drops"] > 0]
    channels.sort(key=lambda c: (-c["utilization"], c["name"]))
    total = len(channels)
    channels = channels[:MAX_CHANNEL_BARS]
    names = [c["name"] for c in channels]
    fig = new_figure()
    left, right = fig.subplots(1, 2, sharey=True)
    ys = list(range(len(channels)))
    left.barh(ys, [100 * c["utilization"] for c in channels], color="C0")
    left.set_xlim(0, 100)
    left.set_xlabel("utilisation (%)")
    left.set_yticks(ys, names, fontsize="small")
    left.invert_yaxis()
    right.barh(ys, [c["queue_max_pkts"] for c in channels], color="C1", alpha=0.35,
               label="maximum")  # fmt: skip
    right.barh(ys, [c["queue_mean_pkts"] for c in channels], color="C1", height=0.5,
               label="mean")  # fmt: skip
    right.set_xlabel("queue (packets)")
    right.legend(loc="lower right", fontsize="small")
    for ax in (left, right):
        ax.grid(True, axis="x", alpha=0.3)
    busiest = f"the {len(channels)} busiest of {total} channels" if total > len(channels) else "channels"
    fig.suptitle(f"{results.scenario}: {busiest}")
    return save(fig, path)


# Flow completion times (finite flows; ccsim._fct) -----------------------------------------

# Percentile lines of the slowdown plot: (column of the summary, words, line style).
SLOWDOWN_LINES = (("slowdown_p50", "p50", "-"), ("slowdown_p95", "p95", "--"),
                  ("slowdown_p99", "p99", ":"))  # fmt: skip


def flows_text(n: int) -> str:
    return f"{n:,} flow" + ("" if n == 1 else "s")


def _not_completed(fct: Any) -> int:
    return int((~fct["completed"].astype(bool)).sum())


def _log_ticks(axis: Any, words: Any = None, subs: tuple[float, ...] = (1.0, 2.0, 5.0)) -> None:
    """Ticks of a log axis at ``subs`` times the powers of ten, written plainly
    (``words`` formats a value; default ``{:g}``) rather than as powers."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(FuncFormatter(lambda v, _: (words or "{:g}".format)(v)))
    axis.set_minor_formatter(NullFormatter())


def fct_cdf_plot(
    fct: Any, path: Path, *, title: str, edges: Any = None
) -> list[Path]:
    """The distribution of flow completion times (log x), one curve per size bucket that
    has flows and one for all flows. Each curve's height is the share of the bucket's
    flows completed within that time, so a bucket with flows not completed ends below 1;
    the legend counts them. ``fct`` is :meth:`Results.fct`'s table."""
    import numpy as np

    from ccsim._fct import DEFAULT_EDGES, by_bucket, check_edges

    edges = check_edges(DEFAULT_EDGES if edges is None else edges)
    fig = new_figure()
    ax = fig.add_subplot()
    groups = [(label, rows) for label, rows in by_bucket(fct, edges) if len(rows)]
    if len(groups) > 1:
        groups.append(("all", fct))
    finished = fct.loc[fct["completed"].astype(bool), "fct_s"].to_numpy(dtype=float)
    # Every curve runs on to the longest completion: flows not done by then stay not done.
    end = float(finished.max()) if len(finished) else 1.0
    for i, (label, rows) in enumerate(groups):
        done = np.sort(rows.loc[rows["completed"].astype(bool), "fct_s"].to_numpy(dtype=float))
        missing = len(rows) - len(done)
        words = f"{label}: {flows_text(len(rows))}" + (f", {missing:,} not completed" if missing else "")
        color = "0.2" if label == "all" else f"C{i % 10}"
        if not len(done):
            ax.plot([], [], color=color, label=f"{label}: {flows_text(len(rows))}, none completed")
            continue
        share = np.arange(1, len(done) + 1) / len(rows)
        ax.step(np.concatenate((done[:1], done, [end])), np.concatenate(([0.0], share, share[-1:])),
                where="post", color=color, linewidth=1.6 if label == "all" else 1.3,
                linestyle="--" if label == "all" else "-", label=words)  # fmt: skip
    missing = _not_completed(fct)
    if len(finished):
        ax.set_xscale("log")
        _log_ticks(ax.xaxis)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("flow completion time (s)")
    ax.set_ylabel("share of the bucket's flows completed")
    note = (f" ({missing:,} of {len(fct):,} flows not completed: their curves end below 1)"
            if missing else "")  # fmt: skip
    ax.set_title(f"{title}: flow completion times by size{note}")
    ax.grid(True, which="both", alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=2 if len(handles) > 1 else 1,
               fontsize="small", frameon=False)  # fmt: skip
    return save(fig, path)


def slowdown_plot(
    fct: Any, summary: Any, path: Path, *, title: str, edges: Any = None
) -> list[Path]:
    """Slowdown (FCT over the ideal FCT) against flow size, log axes: one dot per
    completed flow, and per size bucket its p50, p95 and p99 (``summary``, from
    :func:`ccsim._fct.fct_summary` with the same ``edges``) as lines across the sizes of
    its flows. Flows not completed have no slowdown: they are drawn as crosses along the
    top edge at their size, and counted in the legend."""
    import numpy as np

    from ccsim._fct import DEFAULT_EDGES, by_bucket, check_edges

    edges = check_edges(DEFAULT_EDGES if edges is None else edges)
    fig = new_figure()
    ax = fig.add_subplot()
    completed = fct["completed"].astype(bool)
    done = fct[completed]
    ax.plot(done["size_bytes"], done["slowdown"], ".", color="C0", markersize=3, alpha=0.5,
            rasterized=len(done) > 2000, label=f"a completed flow ({len(done):,})")  # fmt: skip
    stats = summary.set_index("bucket")
    for label, rows in by_bucket(fct, edges):
        finished = rows[rows["completed"].astype(bool)]
        if not len(finished):
            continue
        lo, hi = float(finished["size_bytes"].min()), float(finished["size_bytes"].max())
        if hi <= lo * 1.2:  # one size (or nearly): a short line around it
            lo, hi = lo / 1.2, hi * 1.2
        for j, (column, words, style) in enumerate(SLOWDOWN_LINES):
            ax.plot([lo, hi], [stats.loc[label, column]] * 2, linestyle=style, linewidth=2,
                    color=f"C{j + 1}", label=f"{words} of the bucket")  # fmt: skip
    for edge in edges[1:-1]:
        if len(fct) and fct["size_bytes"].min() < edge < fct["size_bytes"].max():
            ax.axvline(edge, color="0.6", linewidth=0.8, linestyle="-.")
    missing = fct[~completed]
    if len(missing):
        top = ax.get_xaxis_transform()
        ax.plot(missing["size_bytes"], np.full(len(missing), 0.97), "x", color="0.2",
                transform=top, markersize=5,
                label=f"not completed, no slowdown ({len(missing):,})")  # fmt: skip
    from ccsim._fct import size_text

    ax.set_xscale("log")
    _log_ticks(ax.xaxis, size_text, subs=(1.0,))
    if len(done):
        ax.set_yscale("log")
        _log_ticks(ax.yaxis)
    ax.set_xlabel("flow size")
    ax.set_ylabel("slowdown (FCT / ideal FCT)")
    ax.set_title(f"{title}: slowdown by flow size")
    ax.grid(True, which="both", alpha=0.3)
    # One legend entry per percentile, not one per bucket.
    handles, labels = ax.get_legend_handles_labels()
    unique = dict(zip(labels, handles, strict=True))
    ax.legend(list(unique.values()), list(unique.keys()), fontsize="small",
              loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)  # fmt: skip
    return save(fig, path)


def fct_sweep_plot(
    summary: Any, param: str, path: Path, *, stat: str = "slowdown_p99", title: str = ""
) -> list[Path]:
    """A statistic of :meth:`SweepResults.fct_summary` (default the p99 slowdown)
    against the swept ``param``, one line per size bucket (and value of the other
    grouping columns), the mean across seeds with its confidence interval as error
    bars. Values of ``param`` are placed in the order given, evenly spaced."""
    rows = summary[summary["stat"] == stat].dropna(subset=["mean"])
    if rows.empty:
        raise ValueError(f"no {stat} values in the summary to plot (no completed flows?)")
    group_cols = [c for c in summary.columns[: list(summary.columns).index("bucket")] if c != param]
    fig = new_figure()
    ax = fig.add_subplot()
    order = list(dict.fromkeys(summary[param].tolist()))
    x_of = {v: i for i, v in enumerate(order)}
    for i, (key, group) in enumerate(rows.groupby([*group_cols, "bucket"], sort=False)):
        key = key if isinstance(key, tuple) else (key,)
        words = ", ".join([f"{c}={v}" for c, v in zip(group_cols, key[:-1], strict=False)] + [str(key[-1])])
        ax.errorbar([x_of[v] for v in group[param]], group["mean"],
                    yerr=group["half_width"].fillna(0.0), marker="o", capsize=3,
                    linewidth=1.2, color=f"C{i % 10}", label=words)  # fmt: skip
    ax.set_xticks(range(len(order)), [str(v) for v in order])
    ax.set_xlabel(param)
    words = stat.replace("_", " ")
    ax.set_ylabel(f"{words} (mean across seeds)")
    ax.set_title(title or f"{words} by {param}: mean across seeds, confidence interval as bars")
    ax.grid(True, alpha=0.3)
    _legend(ax)
    return save(fig, path)

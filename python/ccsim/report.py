"""One self-contained HTML page about a run, a reproduction or a sweep (``ccsim report``).

What it reads (docs/cli.md, "ccsim report"):

- a **run directory** (``ccsim run FILE --out DIR``): ``summary.json`` (the results JSON)
  and, when present, ``scenario.toml`` (the checked scenario). The page shows the
  scenario, the flows, channels and phases tables, and interactive plots of every time
  series (window, RTT, queue, ... grouped by flow or channel as ``--out`` plots them),
  goodput over time (from ``[measure].interval``) and channel utilisation. Phases are
  shaded on the time plots.
- a **reproduction directory** (``ccsim reproduce NAME --out DIR``): ``reproduction.json``
  (the ``--json`` object {reproduction, rows, scoreboard} with the tables' layout,
  notes and files added), the figures the reproduction drew (embedded as images) and
  ``runs/*.json``. The page shows every table with ours beside the paper's, coloured by
  the scoreboard's verdict, the notes, the fidelity scoreboard with a reason for every
  cell outside tolerance, the figures and, per run, its tables and series plots.
- a **sweep database** (``ccsim sweep ... --db FILE.duckdb``, or a directory holding one):
  the sweep's definition and scenario, every case, and for the main flow and channel
  metrics the mean across seeds with a 95% Student t confidence interval per parameter
  combination, as tables and as plots against each swept parameter.

Everything is inlined: plotly.js (from the ``plotly`` Python package), the data and the
images; the page loads nothing at view time. Long series are thinned to at most
``max_points`` points per trace by keeping the minimum and the maximum of each of
``max_points / 2`` equal-count buckets, so peaks and drops survive (a note under the
plot says so). When every plot has been drawn the page's script sets
``data-rendered`` on ``#ccsim-report-status`` to the number of plots drawn (the test
renders the page in headless Chromium and checks it).

``python -m ccsim.report --screenshot PNG`` makes the screenshot in the docs.
"""

from __future__ import annotations

import base64
import html
import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import ccsim
from ccsim.results import Results

# At most this many points per trace (see the module docstring); --max-points.
MAX_POINTS = 4000
# Tables longer than this show their first MAX_ROWS rows and say how many are left out.
MAX_ROWS = 2000
# Flow metrics drawn together on one plot (as output.WINDOW_METRICS).
WINDOW_METRICS = ("cwnd", "ssthresh", "outstanding")
# Beyond this many flows the goodput plot shows their total, mean and range.
MAX_FLOW_TRACES = 20
# Series plots of at most this many flows or channels per run.
MAX_ENTITIES = 50
# Figures larger than this are linked, not embedded.
MAX_IMAGE_BYTES = 3_000_000
# Sweep metrics summarised across seeds: (table, column, words, unit).
SWEEP_METRICS = [
    ("flows", "goodput_bps", "goodput", "bit/s"),
    ("flows", "rtt_mean_s", "mean round-trip time", "s"),
    ("flows", "retransmitted_pkts", "packets retransmitted", "packets"),
    ("flows", "dropped_pkts", "packets dropped", "packets"),
    ("links", "utilization", "utilisation", "share of the rate"),
    ("links", "queue_mean_pkts", "mean queue", "packets"),
    ("links", "drops", "drops", "packets"),
]
# At most this many flows / channels per sweep plot (those with the largest mean).
SWEEP_TRACES = 8
CONFIDENCE = 0.95


class ReportError(Exception):
    """The path given is not something a report can be made of (the message says why)."""


# Entry points --------------------------------------------------------------------------


def default_output(path: Path) -> Path:
    """Where ``ccsim report PATH`` writes by default: ``PATH/report.html`` for a
    directory, ``<stem>.html`` beside a database file."""
    return path / "report.html" if path.is_dir() else path.with_suffix(".html")


def kind_of(path: Path) -> tuple[str, Path]:
    """What ``path`` holds: ("run", dir), ("reproduction", dir) or ("sweep", db file)."""
    if path.is_file():
        if path.suffix == ".duckdb":
            return "sweep", path
        raise ReportError(
            f"{path}: not a directory or a .duckdb file; give the --out directory of "
            "`ccsim run` or `ccsim reproduce`, or a sweep's database"
        )
    if not path.is_dir():
        raise ReportError(f"{path}: no such file or directory")
    if (path / "reproduction.json").is_file():
        return "reproduction", path
    if (path / "summary.json").is_file():
        return "run", path
    dbs = sorted(path.glob("*.duckdb"))
    if len(dbs) == 1:
        return "sweep", dbs[0]
    if len(dbs) > 1:
        names = ", ".join(p.name for p in dbs)
        raise ReportError(f"{path}: holds several sweep databases ({names}); give one of them")
    raise ReportError(
        f"{path}: found no summary.json (written by `ccsim run --out`), reproduction.json "
        "(`ccsim reproduce --out`) or .duckdb file (`ccsim sweep`); give one of those"
    )


def write_report(
    path: str | Path, out: str | Path | None = None, *, max_points: int = MAX_POINTS
) -> Path:
    """Write the HTML report of a run directory, a reproduction directory or a sweep
    database (or a directory holding one) to ``out`` (default: :func:`default_output`);
    returns the file written."""
    path = Path(path)
    kind, source = kind_of(path)
    target = Path(out) if out is not None else default_output(path)
    page = Page(max_points)
    if kind == "run":
        render_run(page, source)
    elif kind == "reproduction":
        render_reproduction(page, source)
    else:
        render_sweep(page, source)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(page.html(), encoding="utf-8")
    return target


def reproduction_document(
    report: Any, description: str, out: Path, files: list[Path]
) -> dict[str, Any]:
    """The ``reproduction.json`` ``ccsim reproduce`` writes: the ``--json`` object plus
    the description, the tables' layout, the notes and the files (relative to ``out``)."""
    doc = report.to_dict()
    doc["description"] = description
    doc["tables"] = [
        {
            "title": t.title,
            "rows": list(t.rows),
            "columns": [[key, header] for key, header in t.columns],
            "score_rows": t.score_rows,
        }
        for t in report.tables
    ]
    doc["notes"] = list(report.notes)
    rel = []
    for f in files:
        try:
            rel.append(str(Path(f).relative_to(out)))
        except ValueError:
            rel.append(str(f))
    doc["files"] = rel
    return doc


# The page ------------------------------------------------------------------------------


def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _clean(value: Any) -> Any:
    """JSON-safe: NaN and infinities become null (JSON.parse rejects them)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):  # numpy scalars
        return _clean(value.item())
    return value


class Page:
    """Sections of HTML and the plots they hold; :meth:`html` puts the page together."""

    def __init__(self, max_points: int = MAX_POINTS) -> None:
        if max_points < 4:
            raise ReportError(f"max_points {max_points}: give at least 4 points per trace")
        self.max_points = max_points
        self.title = "ccsim report"
        self.parts: list[str] = []
        self.plots: list[dict[str, Any]] = []
        self.toc: list[tuple[str, str]] = []
        self._anchors = 0

    def add(self, text: str) -> None:
        self.parts.append(text)

    def heading(self, text: str, level: int = 2) -> None:
        self._anchors += 1
        anchor = f"s{self._anchors}"
        if level == 2:
            self.toc.append((anchor, text))
        self.add(f'<h{level} id="{anchor}">{esc(text)}</h{level}>')

    def para(self, text: str, cls: str = "") -> None:
        self.add(f'<p class="{cls}">{esc(text)}</p>' if cls else f"<p>{esc(text)}</p>")

    def table(
        self,
        headers: list[str],
        rows: list[list[Any]],
        *,
        caption: str | None = None,
        numeric_from: int = 1,
        numeric_to: int | None = None,
    ) -> None:
        """A plain table; cells are text (escaped) or ("html", raw[, css class]).
        Columns ``numeric_from`` to ``numeric_to`` (excluded; None: the last) are
        right-aligned."""
        end = len(headers) if numeric_to is None else numeric_to

        def numeric(i: int) -> bool:
            return numeric_from <= i < end

        out = ['<div class="scroll"><table>']
        if caption:
            out.append(f"<caption>{esc(caption)}</caption>")
        out.append(
            "<thead><tr>"
            + "".join(
                (f'<th class="num">{esc(h)}</th>' if numeric(i) else f"<th>{esc(h)}</th>")
                for i, h in enumerate(headers)
            )
            + "</tr></thead><tbody>"
        )
        for row in rows[:MAX_ROWS]:
            cells = []
            for i, cell in enumerate(row):
                cls = "num" if numeric(i) else ""
                if isinstance(cell, tuple) and cell[0] == "html":
                    cls = " ".join(filter(None, [cls, *cell[2:]]))
                    text = cell[1]
                else:
                    text = esc("" if cell is None else cell)
                cells.append(f'<td class="{cls}">{text}</td>' if cls else f"<td>{text}</td>")
            out.append("<tr>" + "".join(cells) + "</tr>")
        out.append("</tbody></table></div>")
        if len(rows) > MAX_ROWS:
            out.append(f'<p class="note">{len(rows) - MAX_ROWS} more rows not shown.</p>')
        self.add("".join(out))

    def plot(self, data: list[dict[str, Any]], layout: dict[str, Any], note: str = "") -> None:
        """An interactive plot (plotly traces and layout)."""
        plot_id = f"plot{len(self.plots)}"
        # The legend goes below the x axis' title; the plot grows by a line per three
        # legend entries beyond the first line.
        legend_rows = -(-len(data) // 3)
        base = {
            "margin": {"l": 70, "r": 20, "t": 50, "b": 55},
            "height": 380 + 20 * max(0, legend_rows - 1),
            "hovermode": "closest",
            "legend": {"orientation": "h", "y": -0.2, "yanchor": "top"},
        }
        base.update(layout)
        self.plots.append({"id": plot_id, "data": data, "layout": base})
        self.add(f'<div class="plot" id="{plot_id}"></div>')
        if note:
            self.para(note, "note")

    def thin(self, t: list[float], v: list[float]) -> tuple[list[float], list[float], bool]:
        """At most ``max_points`` points: the min and max of equal-count buckets."""
        n = len(t)
        if n <= self.max_points:
            return list(t), list(v), False
        import numpy as np

        tt = np.asarray(t, dtype=float)
        vv = np.asarray(v, dtype=float)
        # Buckets of k consecutive points (the last one shorter), padded to a k-column
        # matrix; NaN never wins a minimum or a maximum.
        k = -(-n // (self.max_points // 2))
        rows = -(-n // k)
        padded = np.full(rows * k, np.nan)
        padded[:n] = vv
        matrix = padded.reshape(rows, k)
        base = np.arange(rows) * k
        lo = base + np.argmin(np.where(np.isnan(matrix), np.inf, matrix), axis=1)
        hi = base + np.argmax(np.where(np.isnan(matrix), -np.inf, matrix), axis=1)
        idx = np.unique(np.concatenate([lo, hi]))
        idx = idx[idx < n]
        return tt[idx].tolist(), vv[idx].tolist(), True

    def html(self) -> str:
        from plotly.offline import get_plotlyjs

        # plotly.js only when there is something to plot (it is most of the page).
        plotly_js = get_plotlyjs().replace("</script", "<\\/script") if self.plots else ""
        payload = json.dumps(_clean(self.plots), separators=(",", ":"), allow_nan=False)
        payload = payload.replace("</", "<\\/")
        toc = "".join(f'<li><a href="#{a}">{esc(t)}</a></li>' for a, t in self.toc)
        return _TEMPLATE.format(
            title=esc(self.title),
            version=esc(ccsim.__version__),
            css=_CSS,
            toc=toc,
            body="\n".join(self.parts),
            plotly_js=plotly_js,
            payload=payload,
            boot=_BOOT,
            count=len(self.plots),
        )


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:0;
 color:#1d2330;background:#fafbfc;line-height:1.45}
main{max-width:1150px;margin:0 auto;padding:1em 2em 4em}
h1{font-size:1.6em;margin:.6em 0 .2em}h2{margin-top:1.8em;border-bottom:1px solid #d5d9e0;
 padding-bottom:.2em}h3{margin-top:1.3em}
nav ul{display:flex;flex-wrap:wrap;gap:.3em 1.2em;padding:0;list-style:none;margin:.5em 0}
nav a{color:#2457a6;text-decoration:none}
table{border-collapse:collapse;margin:.6em 0;font-size:.88em;background:#fff}
caption{text-align:left;font-weight:600;padding:.3em 0}
th,td{border:1px solid #dde1e7;padding:.25em .6em;vertical-align:top}
th{background:#eef1f5}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.scroll{overflow-x:auto}
.plot{background:#fff;border:1px solid #e3e6eb;margin:.8em 0;min-height:380px}
.note{color:#5a6372;font-size:.88em;margin:.2em 0 .8em}
pre{background:#fff;border:1px solid #e3e6eb;padding:.8em;overflow-x:auto;font-size:.85em}
td.within{background:#e5f5e7}td.outside{background:#fde4e1}
td.inconsistent{background:#eceff3;color:#666}td.notcounted{color:#444}
.badge{display:inline-block;padding:.1em .6em;border-radius:1em;font-weight:600}
.good{background:#d3f0d7}.bad{background:#fbd5cf}
details{margin:.5em 0}summary{cursor:pointer;font-weight:600}
img.figure{max-width:100%;border:1px solid #e3e6eb;background:#fff;margin:.5em 0}
#ccsim-report-status{color:#5a6372;font-size:.8em}
"""

# Draws every plot from the JSON payload; on success sets data-rendered to the number
# drawn, on failure records the error in data-error (both on #ccsim-report-status).
_BOOT = """
(function(){
  var status=document.getElementById('ccsim-report-status');
  var plots=JSON.parse(document.getElementById('ccsim-plots').textContent);
  var config={responsive:true,displaylogo:false};
  var done=0,errors=[];
  function finish(){
    status.setAttribute('data-rendered',String(done));
    if(errors.length){status.setAttribute('data-error',errors.join(' | '));}
    status.textContent=done+' of '+plots.length+' plots drawn'+
      (errors.length?'; errors: '+errors.join(' | '):'');
  }
  if(!plots.length){finish();return;}
  if(typeof Plotly==='undefined'){errors.push('plotly.js did not load');finish();return;}
  var pending=plots.map(function(p){
    var div=document.getElementById(p.id);
    return Plotly.newPlot(div,p.data,p.layout,config).then(function(){
      if(div.querySelector('.main-svg')){done+=1;}else{errors.push(p.id+': nothing drawn');}
    },function(e){errors.push(p.id+': '+e);});
  });
  Promise.all(pending).then(finish,finish);
  document.querySelectorAll('details').forEach(function(d){
    d.addEventListener('toggle',function(){
      if(d.open){d.querySelectorAll('.plot').forEach(function(div){Plotly.Plots.resize(div);});}
    });
  });
})();
"""

_TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="ccsim {version}">
<title>{title}</title><style>{css}</style>
<script>{plotly_js}</script>
</head><body><main>
<h1>{title}</h1>
<p class="note">Written by ccsim {version}. Plots are interactive: drag to zoom,
double-click to reset, click a legend entry to hide it.</p>
<nav><ul>{toc}</ul></nav>
{body}
<p id="ccsim-report-status" data-plots="{count}">drawing {count} plots ...</p>
</main>
<script type="application/json" id="ccsim-plots">{payload}</script>
<script>{boot}</script>
</body></html>
"""


# Formatting ----------------------------------------------------------------------------


def _fmt():
    from ccsim import _tables

    return _tables.number, _tables.rate, _tables.seconds


def _quantity(metric: str) -> tuple[str, str]:
    from ccsim.plots import QUANTITIES

    return QUANTITIES.get(metric, (metric.replace("_", " "), ""))


def _phase_shapes(raw: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Shaded bands for the named phases (every other one darker) and their names."""
    shapes, notes = [], []
    for i, phase in enumerate(raw.get("phases") or []):
        shapes.append(
            {
                "type": "rect", "xref": "x", "yref": "paper",
                "x0": phase["start_s"], "x1": phase["end_s"], "y0": 0, "y1": 1,
                "fillcolor": "#4a78c2" if i % 2 else "#9aa5b5", "opacity": 0.07,
                "line": {"width": 0}, "layer": "below",
            }
        )  # fmt: skip
        notes.append(
            {
                "x": (phase["start_s"] + phase["end_s"]) / 2, "y": 1.0, "xref": "x",
                "yref": "paper", "text": phase["name"], "showarrow": False,
                "yanchor": "bottom", "font": {"size": 10, "color": "#5a6372"},
            }
        )  # fmt: skip
    return shapes, notes


# A run ---------------------------------------------------------------------------------


def _read_results(path: Path) -> Results:
    """A results JSON file (a run's summary.json, a reproduction's runs/*.json)."""
    try:
        return Results.from_json(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ReportError(f"{path}: {exc}") from exc


def render_run(page: Page, directory: Path) -> None:
    results = _read_results(directory / "summary.json")
    raw = results.raw
    page.title = f"ccsim run: {raw['scenario']}"
    partial = " (partial results: stopped early)" if raw.get("partial") else ""
    page.para(
        f"Scenario {raw['scenario']}, seed {raw['seed']}: {raw['sim_time_s']:g} s simulated "
        f"in {raw['wall_time_s']:.3g} s, {raw['events']:,} events; ccsim "
        f"{raw.get('ccsim_version', '?')}{partial}."
    )
    scenario = directory / "scenario.toml"
    if scenario.is_file():
        page.heading("Scenario")
        page.add(
            "<details><summary>scenario.toml (checked: overrides applied, defaults filled "
            f"in)</summary><pre>{esc(scenario.read_text(encoding='utf-8'))}</pre></details>"
        )
    run_sections(page, results)


def run_sections(page: Page, results: Results, level: int = 2, prefix: str = "") -> None:
    """The tables and plots of one run."""
    fmt_num, fmt_rate, fmt_time = _fmt()
    raw = results.raw
    flows = raw.get("flows", [])
    page.heading(f"{prefix}Flows", level)
    page.table(
        ["flow", "kind", "cc", "from", "to", "sent", "delivered", "retx", "dropped",
         "goodput", "pkt/s", "rtt min", "rtt mean", "rtt max"],
        [
            [f["name"], f["kind"], f.get("cc") or "-", f["from"], f["to"],
             fmt_num(f["sent_pkts"]), fmt_num(f["delivered_pkts"]),
             fmt_num(f["retransmitted_pkts"]), fmt_num(f["dropped_pkts"]),
             fmt_rate(f["goodput_bps"]), fmt_num(f["goodput_pps"]),
             fmt_time(f.get("rtt_min_s")), fmt_time(f.get("rtt_mean_s")),
             fmt_time(f.get("rtt_max_s"))]
            for f in flows
        ],
        numeric_from=5,
    )  # fmt: skip
    channels = raw.get("links", [])
    page.heading(f"{prefix}Channels", level)

    def buffer(c: dict[str, Any]) -> str:
        if c.get("buffer_pkts") is not None:
            return f"{c['buffer_pkts']} pkt"
        if c.get("buffer_bytes") is not None:
            return f"{c['buffer_bytes']} B"
        return "-"

    page.table(
        ["channel", "rate", "delay", "qdisc", "buffer", "tx pkts", "drops", "util",
         "queue mean", "queue max"],
        [
            [c["name"], fmt_rate(c["rate_bps"]), fmt_time(c["delay_s"]), c["qdisc"],
             buffer(c), fmt_num(c["tx_pkts"]), fmt_num(c["drops"]),
             f"{100 * c['utilization']:.1f}%", fmt_num(c["queue_mean_pkts"]),
             fmt_num(c["queue_max_pkts"])]
            for c in channels
        ],
    )  # fmt: skip
    if raw.get("phases"):
        page.heading(f"{prefix}Phases (rates in packets/s)", level)
        page.table(
            ["phase", "start", "end", "flow", "sent", "delivered", "retx", "dropped",
             "goodput", "loss", "retransmission"],
            [
                [p["name"], f"{p['start_s']:g} s", f"{p['end_s']:g} s", f["name"],
                 fmt_num(f["sent_pkts"]), fmt_num(f["delivered_pkts"]),
                 fmt_num(f["retransmitted_pkts"]), fmt_num(f["dropped_pkts"]),
                 fmt_num(f["goodput_pps"]), fmt_num(f["loss_pps"]),
                 fmt_num(f["retransmission_pps"])]
                for p in raw["phases"] for f in p["flows"]
            ],
            numeric_from=4,
        )  # fmt: skip
    fct_section(page, results, level, prefix)
    page.heading(f"{prefix}Plots", level)
    run_plots(page, results)


# Statistics of the FCT table: (column of fct_summary, header).
FCT_STATS = [
    ("fct_mean", "FCT mean"), ("fct_p50", "FCT p50"), ("fct_p95", "FCT p95"),
    ("fct_p99", "FCT p99"), ("slowdown_mean", "slowdown mean"), ("slowdown_p50", "slowdown p50"),
    ("slowdown_p95", "slowdown p95"), ("slowdown_p99", "slowdown p99"),
]  # fmt: skip
# Percentile lines of the slowdown plot: (column, words, dash).
SLOWDOWN_LINES = [("slowdown_p50", "p50", "solid"), ("slowdown_p95", "p95", "dash"),
                  ("slowdown_p99", "p99", "dot")]  # fmt: skip


def fct_section(page: Page, results: Results, level: int = 2, prefix: str = "") -> None:
    """Flow completion times of a run with finite flows (nothing otherwise): the
    percentiles per size bucket, the distribution per bucket and the slowdown against
    size, as ``ccsim run --out`` writes them (fct_summary.csv, plots/fct_cdf.png,
    plots/slowdown.png)."""
    from ccsim._fct import DEFAULT_EDGES, by_bucket
    from ccsim.plots import flows_text

    fct = results.fct()
    if fct.empty:
        return
    summary = results.fct_summary()
    _, _, fmt_time = _fmt()
    done = fct["completed"].astype(bool)
    missing = int((~done).sum())
    page.heading(f"{prefix}Flow completion times", level)
    page.para(
        f"{len(fct):,} finite flows, {int(done.sum()):,} completed"
        + (f", {missing:,} not completed by the end of the run (counted in 'flows', "
           "without an FCT; the distribution of their bucket ends below 1)" if missing else "")
        + ". Percentiles over the completed flows of each size bucket; slowdown = FCT / "
        "ideal FCT (docs/scenario-format.md, 'Finite flows').",
        "note",
    )  # fmt: skip
    page.table(
        ["size bucket", "flows", "completed", *(h for _, h in FCT_STATS)],
        [
            [row["bucket"], f"{row['flows']:,}", f"{row['completed']:,}",
             *(("" if math.isnan(row[c]) else fmt_time(row[c])) if c.startswith("fct")
               else _g(row[c]) for c, _ in FCT_STATS)]
            for row in summary.to_dict("records")
        ],
    )  # fmt: skip
    name = results.scenario
    finished = fct.loc[done, "fct_s"].to_numpy(dtype=float)
    end = float(finished.max()) if len(finished) else 1.0
    groups = [(label, rows) for label, rows in by_bucket(fct, DEFAULT_EDGES) if len(rows)]
    if len(groups) > 1:
        groups.append(("all", fct))
    traces, thinned, none = [], False, []
    for label, rows in groups:
        t = sorted(rows.loc[rows["completed"].astype(bool), "fct_s"].astype(float))
        lost = len(rows) - len(t)
        words = f"{label}: {flows_text(len(rows))}" + (f", {lost:,} not completed" if lost else "")
        if not t:
            none.append(f"{label} ({flows_text(len(rows))})")
            continue
        share = [(i + 1) / len(rows) for i in range(len(t))]
        x, y, cut = page.thin([*t[:1], *t, end], [0.0, *share, *share[-1:]])
        thinned |= cut
        line = {"shape": "hv", "width": 1.5}
        if label == "all":
            line.update(dash="dash", color="#333")
        traces.append({"type": "scatter", "mode": "lines", "name": words, "x": x, "y": y,
                       "line": line})  # fmt: skip
    if not traces:
        page.para("No finite flow completed: no distribution of completion times to draw.")
        return
    page.plot(
        traces,
        {"title": {"text": f"{name}: flow completion times by size"},
         "xaxis": {"title": {"text": "flow completion time (s)"}, "type": "log"},
         "yaxis": {"title": {"text": "share of the bucket's flows completed"}, "range": [0, 1.02]}},
        "Each curve: the share of its bucket's flows completed within a time; flows not "
        "completed keep it below 1." + (f" No flow completed in: {', '.join(none)}." if none
        else "") + (" Curves thinned to the minimum and maximum of "
        f"{page.max_points // 2} buckets." if thinned else ""),
    )  # fmt: skip
    finished_rows = fct[done].sort_values("size_bytes")
    x, y, cut = page.thin(finished_rows["size_bytes"].astype(float).tolist(),
                          finished_rows["slowdown"].astype(float).tolist())  # fmt: skip
    traces = [{"type": "scatter", "mode": "markers", "name": f"a completed flow ({len(finished_rows):,})",
               "x": x, "y": y, "marker": {"size": 4, "opacity": 0.6}}]  # fmt: skip
    stats = summary.set_index("bucket")
    for column, words, dash in SLOWDOWN_LINES:
        xs: list[float | None] = []
        ys: list[float | None] = []
        for label, rows in by_bucket(fct[done], DEFAULT_EDGES):
            if not len(rows):
                continue
            lo, hi = float(rows["size_bytes"].min()), float(rows["size_bytes"].max())
            if hi <= lo * 1.2:
                lo, hi = lo / 1.2, hi * 1.2
            xs += [lo, hi, None]
            ys += [float(stats.loc[label, column])] * 2 + [None]
        traces.append({"type": "scatter", "mode": "lines", "name": f"{words} of the bucket",
                       "x": xs, "y": ys, "line": {"dash": dash, "width": 2.5}})  # fmt: skip
    if missing:
        sizes = fct.loc[~done, "size_bytes"].astype(float).tolist()
        top = float(finished_rows["slowdown"].max()) * 1.5 if len(finished_rows) else 1.0
        traces.append({"type": "scatter", "mode": "markers",
                       "name": f"not completed, no slowdown ({missing:,}; drawn at the top)",
                       "x": sizes, "y": [top] * len(sizes),
                       "marker": {"symbol": "x", "size": 7, "color": "#333"}})  # fmt: skip
    page.plot(
        traces,
        {"title": {"text": f"{name}: slowdown by flow size"},
         "xaxis": {"title": {"text": "flow size (bytes)"}, "type": "log"},
         "yaxis": {"title": {"text": "slowdown (FCT / ideal FCT)"}, "type": "log"}},
        f"{len(finished_rows):,} completed flows" + (", thinned to the minimum and maximum "
        f"of {page.max_points // 2} buckets of flows by size" if cut else "") + "; lines: the "
        "bucket's percentiles across the sizes of its flows.",
    )  # fmt: skip


def run_plots(page: Page, results: Results) -> None:
    raw = results.raw
    shapes, labels = _phase_shapes(raw)
    timed = {"shapes": shapes, "annotations": labels}
    name = raw["scenario"]
    intervals = raw.get("intervals") or []
    if intervals:
        traces: dict[str, tuple[list[float], list[float | None]]] = defaultdict(
            lambda: ([], [])
        )
        for period in intervals:
            for f in period["flows"]:
                t, v = traces[f["name"]]
                t.append((period["start_s"] + period["end_s"]) / 2)
                v.append(f.get("goodput_bps"))
        if len(traces) > MAX_FLOW_TRACES:
            # Too many lines to read: the total, the mean per flow and the flows' range.
            times = next(iter(traces.values()))[0]
            columns = list(zip(*(v for _, v in traces.values()), strict=False))
            values = [[x for x in col if x is not None] for col in columns]
            traces = {
                f"all {len(traces)} flows": (times, [sum(c) for c in values]),
                "mean per flow": (times, [sum(c) / len(c) if c else None for c in values]),
                "lowest flow": (times, [min(c) if c else None for c in values]),
                "highest flow": (times, [max(c) if c else None for c in values]),
            }
        unit, scale = _rate_unit([x for _, v in traces.values() for x in v if x is not None])
        page.plot(
            [{"type": "scatter", "mode": "lines+markers", "name": n, "x": t,
              "y": [None if x is None else x / scale for x in v], "marker": {"size": 4}}
             for n, (t, v) in traces.items()],
            {"title": {"text": f"{name}: goodput per interval"},
             "xaxis": {"title": {"text": "time (s)"}},
             "yaxis": {"title": {"text": f"goodput ({unit})"}}, **timed},
        )  # fmt: skip
    elif raw.get("flows"):
        flows = raw["flows"][:200]
        unit, scale = _rate_unit([f["goodput_bps"] for f in flows])
        page.plot(
            [{"type": "bar", "name": "goodput", "x": [f["name"] for f in flows],
              "y": [f["goodput_bps"] / scale for f in flows]}],
            {"title": {"text": f"{name}: goodput per flow"},
             "yaxis": {"title": {"text": f"goodput ({unit})"}}, "showlegend": False},
        )  # fmt: skip
    links = sorted(raw.get("links") or [], key=lambda c: -c["utilization"])[:40]
    if links:
        page.plot(
            [{"type": "bar", "name": "utilisation (%)", "x": [c["name"] for c in links],
              "y": [100 * c["utilization"] for c in links], "offsetgroup": 1},
             {"type": "bar", "name": "mean queue (packets)", "x": [c["name"] for c in links],
              "y": [c["queue_mean_pkts"] for c in links], "yaxis": "y2", "offsetgroup": 2}],
            {"title": {"text": f"{name}: the busiest channels"}, "barmode": "group",
             "yaxis": {"title": {"text": "utilisation (%)"}},
             "yaxis2": {"title": {"text": "mean queue (packets)"}, "overlaying": "y",
                        "side": "right"},
             "margin": {"l": 70, "r": 70, "t": 50, "b": 90}},
        )  # fmt: skip
    # Every series, grouped per entity as `--out` plots them.
    by_entity: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for entry in raw.get("series", []):
        by_entity[entry["entity"]][entry["metric"]] = entry
    entities = list(by_entity.items())
    if len(entities) > MAX_ENTITIES:
        page.para(
            f"Series of {len(entities)} flows and channels were recorded: the plots below "
            f"show the first {MAX_ENTITIES} (all are in summary.json and series/).",
            "note",
        )
    for entity, metrics in entities[:MAX_ENTITIES]:
        groups: list[list[str]] = []
        window = [m for m in WINDOW_METRICS if m in metrics]
        if window:
            groups.append(window)
        groups += [[m] for m in metrics if m not in WINDOW_METRICS]
        for group in groups:
            traces, thinned, total = [], False, 0
            for metric in group:
                entry = metrics[metric]
                t, v, cut = page.thin(entry["t"], entry["v"])
                thinned |= cut
                total += len(entry["t"])
                words, _ = _quantity(metric)
                scatter = metric in ("rtt",)
                traces.append(
                    {"type": "scatter", "name": words, "x": t, "y": v,
                     "mode": "markers" if scatter else "lines",
                     "marker": {"size": 3},
                     "line": {"shape": "hv", "width": 1.3}}
                )  # fmt: skip
            words = [_quantity(m)[0] for m in group]
            unit = _quantity(group[0])[1] or metrics[group[0]].get("unit", "")
            note = (
                f"{total:,} points, thinned to the minimum and maximum of "
                f"{page.max_points // 2} buckets per series." if thinned else ""
            )
            page.plot(
                traces,
                {"title": {"text": f"{name}: {entity} {', '.join(words)}"},
                 "xaxis": {"title": {"text": "time (s)"}},
                 "yaxis": {"title": {"text": unit}}, **timed},
                note,
            )  # fmt: skip


def _rate_unit(values: list[float]) -> tuple[str, float]:
    """The unit (and its size in bit/s) in which the largest of ``values`` reads best."""
    top = max((abs(x) for x in values), default=0.0)
    for unit, scale in (("Gbit/s", 1e9), ("Mbit/s", 1e6), ("kbit/s", 1e3)):
        if top >= scale:
            return unit, scale
    return "bit/s", 1.0


# A reproduction ------------------------------------------------------------------------


def _number(x: float | None) -> str:
    from ccsim import _tables

    return "" if x is None else _tables.number(x)


def _claims_section(page: Page, doc: dict[str, Any]) -> None:
    """The paper's claims (reproduce/claims.py): each one's verdict, ours beside the
    paper's words, and the reason for every claim outside or not counted."""
    summary = doc["claims_summary"]
    share = summary.get("share_within")
    pct = f" ({share:.0%})" if share is not None else ""
    page.heading("The paper's claims")
    page.add(
        f'<p><span class="badge {"good" if share is not None and share >= 0.5 else "bad"}">'
        f'{summary["within"]} of {summary["counted"]} counted claims within{pct}</span> &nbsp;'
        f'{summary["not_counted"]} not counted'
        + (f'; <b>{summary["unmeasured"]} unmeasured</b>' if summary["unmeasured"] else "")
        + ".</p>"
    )
    page.para(f"Tolerance: {summary['tolerance']}", "note")
    body = []
    for c in doc["claims"]:
        verdict = c["verdict"]
        cls = {"within": "within", "outside": "outside"}.get(verdict, "")
        body.append([
            c["id"], c["kind"], c["source"], c["paper"], c["ours"],
            ("html", esc(verdict.replace("_", " ")), cls), c.get("reason") or "",
        ])  # fmt: skip
    page.table(
        ["claim", "kind", "source", "paper", "ours", "verdict", "reason"], body, numeric_from=7
    )


def render_reproduction(page: Page, directory: Path) -> None:
    doc = json.loads((directory / "reproduction.json").read_text(encoding="utf-8"))
    name = doc["reproduction"]
    page.title = f"ccsim reproduce {name}"
    if doc.get("description"):
        page.para(doc["description"])
    board = doc["scoreboard"]
    share = board.get("share_within")
    pct = f" ({share:.0%})" if share is not None else ""
    good = share is not None and share >= 0.5
    page.add(
        f'<p><span class="badge {"good" if good else "bad"}">{board["within"]} of '
        f'{board["counted"]} cells within tolerance{pct}</span> &nbsp;'
        f'{board["inconsistent"]} paper cells self-inconsistent (not counted). Colours: '
        '<span class="badge good">within tolerance</span> '
        '<span class="badge bad">outside</span>; uncoloured cells are not counted '
        "(variants and sensitivity rows).</p>"
    )
    rows = {(r["row"], r["column"]): r for r in doc["rows"]}
    page.heading("Ours beside the paper")
    page.para("Each cell: ours (paper). Hover over a cell for its status and reason.", "note")
    for table in doc.get("tables", []):
        notes: list[str] = []
        body = []
        for label in table["rows"]:
            cells: list[Any] = [label]
            for key, _ in table["columns"]:
                r = rows.get((label, key))
                if r is None:
                    cells.append("")
                    continue
                text = f"{_number(r['ours'])}"
                if r.get("phase_sensitive"):
                    text += "*"
                if r.get("paper") is not None:
                    bound = "&le; " if r.get("bound") == "upper" else ""
                    text += f" ({bound}{_number(r['paper'])})"
                if "min" in r:
                    text += f'<br><span class="note">{_number(r["min"])} to {_number(r["max"])}</span>'
                status = r.get("status") or ""
                title = status
                if r.get("reason"):
                    title += f": {r['reason']} [{r.get('link') or ''}]"
                mark = ""
                if r.get("note"):
                    if r["note"] not in notes:
                        notes.append(r["note"])
                    mark = f"<sup>[{notes.index(r['note']) + 1}]</sup>"
                cls = status.replace(" ", "")
                cells.append(("html", f'<span title="{esc(title)}">{text}{mark}</span>', cls))
            body.append(cells)
        page.table([""] + [h for _, h in table["columns"]], body, caption=table["title"])
        for i, note in enumerate(notes, 1):
            page.para(f"[{i}] {note}", "note")
    if any(r.get("phase_sensitive") for r in doc["rows"]):
        page.para(
            "* phase-sensitive: the spread over phases (shown under the cell) exceeds the "
            "tolerance.",
            "note",
        )
    if doc.get("notes"):
        page.heading("Notes")
        page.add("<ul>" + "".join(f"<li>{esc(n)}</li>" for n in doc["notes"]) + "</ul>")
    page.heading("Fidelity scoreboard")
    page.para(
        f"A counted cell is within tolerance when |ours - paper| <= max("
        f"{board['relative_tolerance']:.0%} of |paper|, the table's absolute floor)."
    )
    page.table(
        ["table", "within", "counted", "tolerance"],
        [[t, k["within"], k["counted"], k["tolerance"]] for t, k in board["tables"].items()],
        numeric_from=1,
    )
    if board["outside_cells"]:
        page.heading("Cells outside tolerance", 3)
        page.table(
            ["table", "row", "column", "ours", "paper", "tolerance", "reason", "note"],
            [[c["table"], c["row"], c["column"], _number(c["ours"]), _number(c["paper"]),
              _number(c["tolerance"]), c.get("reason") or "no reason recorded",
              c.get("link") or ""] for c in board["outside_cells"]],
            numeric_from=3,
            numeric_to=6,
        )  # fmt: skip
    if board["inconsistent_cells"]:
        page.heading("Self-inconsistent paper cells (not counted)", 3)
        page.table(
            ["table", "row", "column", "paper", "reason", "note"],
            [[c["table"], c["row"], c["column"], _number(c["paper"]), c.get("reason") or "",
              c.get("link") or ""] for c in board["inconsistent_cells"]],
            numeric_from=3,
            numeric_to=4,
        )  # fmt: skip
    if doc.get("claims") is not None:
        _claims_section(page, doc)

    figures = [directory / f for f in doc.get("files", []) if f.endswith(".png")]
    figures = [f for f in figures if f.is_file()]
    if figures:
        page.heading("Figures")
        for f in figures:
            data = f.read_bytes()
            if len(data) > MAX_IMAGE_BYTES:
                page.para(f"{f.name}: {len(data):,} bytes, not embedded (see {f}).", "note")
                continue
            encoded = base64.b64encode(data).decode("ascii")
            page.add(
                f'<figure><img class="figure" alt="{esc(f.name)}" '
                f'src="data:image/png;base64,{encoded}"><figcaption class="note">'
                f"{esc(f.relative_to(directory))}</figcaption></figure>"
            )
    sweeps = sorted(directory.glob("**/*.duckdb"))
    if sweeps:
        page.heading("Sweeps")
        page.para(
            "The reproduction's sweep databases; `ccsim report FILE` writes the page of "
            "each (cases, means and confidence intervals across seeds):"
        )
        page.add("<ul>" + "".join(
            f"<li><code>{esc(p.relative_to(directory))}</code></li>" for p in sweeps
        ) + "</ul>")  # fmt: skip
    runs = sorted((directory / "runs").glob("*.json")) if (directory / "runs").is_dir() else []
    if runs:
        page.heading("Runs")
        page.para(
            f"The {len(runs)} runs whose results JSON the reproduction kept (runs/); open "
            "one for its tables and series.",
            "note",
        )
        for path in runs:
            results = _read_results(path)
            page.add(f"<details><summary>{esc(path.stem)}: {esc(results.scenario)}, seed "
                     f"{results.seed}, {results.sim_time_s:g} s</summary>")  # fmt: skip
            run_sections(page, results, level=4, prefix=f"{path.stem}: ")
            page.add("</details>")


# A sweep -------------------------------------------------------------------------------


def render_sweep(page: Page, db: Path) -> None:
    try:
        sweep = ccsim.open_sweep(db)
    except ccsim.SweepError as exc:
        raise ReportError(str(exc)) from None
    definition = sweep.definition
    params = sweep.params
    page.title = f"ccsim sweep: {Path(sweep.scenario_source).name}"
    counts = ", ".join(f"{n} {s}" for s, n in sorted(sweep.counts.items()))
    page.para(
        f"Database {db}; scenario {sweep.scenario_source}; cases: {counts}; "
        f"mode {definition.get('mode')}; seeds {definition.get('seeds')}."
    )
    page.heading("Scenario and parameters")
    page.table(
        ["parameter", "values"],
        [[k, ", ".join(str(v) for v in values)] for k, values in definition["params"]],
        numeric_from=2,
    )
    if definition.get("overrides"):
        page.para("Every case also has: " + " ".join(f"--set {o}" for o in definition["overrides"]))
    meta = sweep.sql("SELECT scenario_text FROM sweep")
    if len(meta):
        page.add(
            "<details><summary>scenario file</summary>"
            f"<pre>{esc(meta['scenario_text'].iloc[0])}</pre></details>"
        )
    cases = sweep.cases
    page.heading("Cases")
    columns = [c for c in ["case_id", *params, "seed", "status", "sim_time_s", "wall_time_s",
                           "events"] if c in cases.columns]  # fmt: skip
    page.table(
        columns,
        [[_cell_text(v) for v in row] for row in cases[columns].itertuples(index=False)],
        numeric_from=len(params) + 3,
    )
    failed = cases[cases["status"] == "failed"]
    if len(failed):
        page.heading("Failed cases", 3)
        page.table(
            ["case_id", "error"],
            [[_cell_text(r.case_id), _cell_text(r.error)] for r in failed.itertuples()],
            numeric_from=2,
        )
    done = sweep.counts.get("done", 0)
    if not done:
        page.para("No case is done yet: nothing to summarise.")
        return
    page.heading(f"Means across seeds ({CONFIDENCE:.0%} confidence intervals)")
    page.para(
        f"Mean of each metric over the seeds of every parameter combination, with its "
        f"{CONFIDENCE:.0%} Student t confidence interval (none from a single seed; width 0 "
        "when the seeds gave equal results, see docs/sweeps.md, 'What the seed drives'). "
        f"Plots show at most the {SWEEP_TRACES} flows or channels with the largest mean.",
        "note",
    )
    tables = sweep.tables
    for table, metric, words, unit in SWEEP_METRICS:
        if table not in tables:
            continue
        try:
            summary = sweep.summary(metric, table=table, by=[*params, "name"], level=CONFIDENCE)
        except KeyError:
            continue
        summary = summary.dropna(subset=["mean"])
        if summary.empty:
            continue
        ranked = summary.groupby("name", sort=False)["mean"].mean().sort_values(ascending=False)
        if table == "links":
            ranked = ranked[ranked > 0]
        shown = list(ranked.index[:SWEEP_TRACES])
        if not shown:
            continue
        sub = summary[summary["name"].isin(shown)]
        page.heading(f"{table}: {words} ({unit})", 3)
        for param in params or [None]:
            _sweep_plot(page, sub, params, param, words, unit, table)
        page.add("<details><summary>table</summary>")
        page.table(
            [*params, "name", "n", "mean", "ci low", "ci high", "half width"],
            [[*(_cell_text(row[p]) for p in params), row["name"], int(row["n"]),
              *(_g(row[k]) for k in ("mean", "ci_low", "ci_high", "half_width"))]
             for _, row in summary.iterrows()],
            numeric_from=len(params) + 1,
        )  # fmt: skip
        page.add("</details>")
    sweep_fct_section(page, sweep)


# FCT statistics a sweep's page plots against each swept parameter: (stat, words, unit).
SWEEP_FCT_PLOTS = [
    ("slowdown_p99", "p99 slowdown", "FCT / ideal FCT"),
    ("slowdown_p50", "median slowdown", "FCT / ideal FCT"),
]


def sweep_fct_section(page: Page, sweep: Any) -> None:
    """FCT and slowdown percentiles per size bucket of a sweep whose runs have finite
    flows (nothing otherwise): each case's percentile, the mean across seeds and its
    confidence interval (``SweepResults.fct_summary``), plotted against each swept
    parameter and tabled."""
    summary = sweep.fct_summary(level=CONFIDENCE)
    if summary.empty:
        return
    params = sweep.params
    page.heading(f"Flow completion times across seeds ({CONFIDENCE:.0%} confidence intervals)")
    page.para(
        "Each case gives, per size bucket, the percentiles of the FCT and of the slowdown "
        "(FCT / ideal FCT) over its completed flows; the plots and the table show their "
        f"mean over the seeds with its {CONFIDENCE:.0%} Student t confidence interval "
        "(SweepResults.fct_summary). 'flows' and 'completed' are summed over the seeds: "
        "flows not completed by the end of their run have no FCT, and a case with no "
        "completed flow in a bucket gives that bucket no value (n counts the cases that did).",
        "note",
    )
    for stat, words, unit in SWEEP_FCT_PLOTS:
        sub = summary[summary["stat"] == stat].dropna(subset=["mean"]).rename(
            columns={"bucket": "name"}
        )
        if sub.empty:
            continue
        for param in params or [None]:
            _sweep_plot(page, sub, params, param, words, unit, "fct", what="size bucket")
    stats = list(dict.fromkeys(summary["stat"]))
    wide: dict[tuple[Any, ...], dict[str, Any]] = {}
    for row in summary.to_dict("records"):
        key = (*(row[p] for p in params), row["bucket"])
        entry = wide.setdefault(key, {"flows": row["flows"], "completed": row["completed"]})
        mean, half = row["mean"], row["half_width"]
        text = _g(mean)
        if text and isinstance(half, float) and not math.isnan(half):
            text += f" ± {_g(half)}"
        entry[row["stat"]] = (text, int(row["n"]))
    page.add("<details><summary>table: mean ± half width of the interval (n cases)</summary>")
    page.table(
        [*params, "size bucket", "flows", "completed", *(s.replace("_", " ") for s in stats)],
        [[*(_cell_text(k) for k in key[:-1]), key[-1], f"{v['flows']:,}", f"{v['completed']:,}",
          *(f"{v[s][0]} ({v[s][1]})" if v[s][0] else "" for s in stats)]
         for key, v in wide.items()],
        numeric_from=len(params) + 1,
    )  # fmt: skip
    page.add("</details>")


def _sweep_plot(page, sub, params, param, words, unit, table, what=None) -> None:
    """Mean with CI error bars against ``param``; one trace per flow/channel (``what``
    the ``name`` column holds; default by ``table``) and combination of the other
    parameters."""
    others = [p for p in params if p != param]
    keys = [*others, "name"]
    traces = []
    for key, group in sub.groupby(keys, sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        label = ", ".join(
            [f"{p}={_cell_text(v)}" for p, v in zip(others, key[:-1], strict=False)] + [str(key[-1])]
        )
        x = [_cell_text(v) for v in group[param]] if param else ["all"] * len(group)
        traces.append(
            {"type": "scatter", "mode": "lines+markers", "name": label, "x": x,
             "y": group["mean"].tolist(),
             "error_y": {"type": "data", "array": group["half_width"].fillna(0).tolist(),
                         "visible": True}}
        )  # fmt: skip
    if len(traces) > 40:
        traces = traces[:40]
    what = what or ("flow" if table == "flows" else "channel")
    page.plot(
        traces,
        {"title": {"text": f"{words} by {param or 'case'}"},
         "xaxis": {"title": {"text": param or ""}, "type": "category"},
         "yaxis": {"title": {"text": f"{words} ({unit})"}}},
        f"One line per {what}" + (f" and value of {', '.join(others)}" if others else "")
        + "; error bars: half width of the confidence interval.",
    )  # fmt: skip


def _cell_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return "" if math.isnan(value) else f"{value:g}"
    return str(value)


def _g(x: Any) -> str:
    try:
        x = float(x)
    except (TypeError, ValueError):
        return ""
    return "" if math.isnan(x) else f"{x:.4g}"


# The screenshot in the docs -----------------------------------------------------------


def chromium() -> str | None:
    """The Chromium executable, if installed."""
    import shutil

    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium_args() -> list[str]:
    import os

    args = ["--headless", "--disable-gpu", "--hide-scrollbars", "--virtual-time-budget=30000"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
    return args


def screenshot(page: Path, png: Path, size: tuple[int, int] = (1200, 2600)) -> Path:
    """A PNG of the top of ``page`` as headless Chromium draws it."""
    import subprocess

    browser = chromium()
    if browser is None:
        raise ReportError("chromium not found; install it (`make debian-packages` as root)")
    png.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [browser, *chromium_args(), f"--window-size={size[0]},{size[1]}",
         f"--screenshot={png.resolve()}", page.resolve().as_uri()],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    return png


def main(argv: list[str] | None = None) -> int:
    """``python -m ccsim.report --screenshot docs/report.png``: run the built-in
    keshav-s1 scenario with a goodput interval, write its report and take a screenshot."""
    import argparse
    import tempfile

    from ccsim.output import write_results, write_scenario

    parser = argparse.ArgumentParser(prog="python -m ccsim.report", description=main.__doc__)
    parser.add_argument("--screenshot", type=Path, required=True, metavar="PNG")
    args = parser.parse_args(argv)
    from ccsim import scenarios

    scenario = ccsim.load(scenarios.scenario_path("keshav-s1")).with_overrides(
        ["measure.interval=10s"]
    )
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        results = ccsim.run(scenario)
        write_results(results, out, scenario.check())
        write_scenario(scenario, out)
        page = write_report(out)
        screenshot(page, args.screenshot)
    print(f"wrote {args.screenshot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""HTML summaries for Jupyter: ``Results._repr_html_`` and ``SweepResults._repr_html_``.

Small, self-contained HTML (no script, no style sheet): a header line, the warnings,
and a compact table. Every text from a scenario is escaped.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ccsim._sweepresults import SweepResults
    from ccsim.results import Results

# Flows shown in full up to this many; beyond, the highest and lowest goodputs.
MAX_ROWS = 20
EDGE = 5


def _table(headers: list[str], rows: list[list[str] | None]) -> str:
    """An HTML table; a ``None`` row is a ``...`` row (rows left out)."""
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = []
    for row in rows:
        if row is None:
            body.append(f'<tr><td colspan="{len(headers)}">...</td></tr>')
        else:
            body.append("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _warnings(items: list[Any]) -> str:
    if not items:
        return ""
    lis = "".join(f"<li>{escape(str(w))}</li>" for w in items)
    return f"<p><b>{len(items)} warning{'s' if len(items) > 1 else ''}</b></p><ul>{lis}</ul>"


def results_html(r: Results) -> str:
    """The summary of one run: scenario, seed, duration, stop reason, warnings, a flows
    table with goodput and RTT, and the fairness line."""
    from ccsim import _tables

    head = r._head()
    stop = r.stop_reason.replace("_", " ") if r.partial and r.stop_reason else "completed"
    parts = [
        f"<p><b>{escape(str(head['scenario']))}</b> &middot; seed {head['seed']} &middot; "
        f"{head['sim_time_s']:g} s simulated in {head['wall_time_s']:.3g} s &middot; "
        f"{head['events']:,} events &middot; {escape(stop)}</p>",
        _warnings(r.warnings),
    ]
    flows = head["flows"]
    headers = ["flow", "kind", "cc", "sack", "from", "to", "goodput", "rtt mean", "retx", "dropped"]

    def row(f: dict[str, Any]) -> list[str]:
        sack = f.get("sack")
        return [
            str(f["name"]), str(f.get("kind", "")), str(f.get("cc") or "-"),
            "-" if sack is None else str(sack).lower(), str(f.get("from", "")), str(f.get("to", "")),
            _tables.rate(f.get("goodput_bps")), _tables.seconds(f.get("rtt_mean_s")),
            _tables.number(f.get("retransmitted_pkts")), _tables.number(f.get("dropped_pkts")),
        ]  # fmt: skip

    if len(flows) <= MAX_ROWS:
        rows: list[list[str] | None] = [row(f) for f in flows]
        title = f"{len(flows)} flow{'s' if len(flows) != 1 else ''}"
    else:
        ranked = sorted(flows, key=lambda f: (-(f.get("goodput_bps") or 0.0), f["name"]))
        rows = [row(f) for f in ranked[:EDGE]] + [None] + [row(f) for f in ranked[-EDGE:]]
        title = f"{len(flows)} flows: the {EDGE} highest and {EDGE} lowest goodputs"
    if flows:
        parts.append(f"<p>{escape(title)}</p>")
        parts.append(_table(headers, rows))
        goodputs = [float(f.get("goodput_bps") or 0.0) for f in flows]
        jain = r.fairness() if "goodput_bps" in flows[0] else None
        parts.append(
            f"<p>goodput {escape(_tables.rate(sum(goodputs)))} in total; Jain's fairness index "
            f"{'-' if jain is None else f'{jain:.3f}'}</p>"
        )
    return "<div>" + "".join(parts) + "</div>"


def sweep_html(s: SweepResults) -> str:
    """The summary of a sweep: where, the swept parameters and their values, the case
    counts, and per parameter combination the total goodput and Jain's index averaged
    over its done cases (seeds)."""
    from ccsim import _tables
    from ccsim._sweepdb import q

    where = str(s.path) if s.path is not None else "memory"
    counts = ", ".join(f"{n} {status}" for status, n in sorted(s.counts.items()))
    seeds = s.definition.get("seeds")
    parts = [
        f"<p><b>sweep</b> {escape(where)} &middot; {escape(str(s.scenario_source))} &middot; "
        f"mode {escape(str(s.definition.get('mode')))} &middot; "
        f"seeds {escape('scenario' if seeds is None else ', '.join(map(str, seeds)))} &middot; "
        f"cases: {escape(counts)}</p>",
        _table(
            ["parameter", "column", "values"],
            [[key, column, ", ".join(values)] for (key, values), column in zip(s.definition["params"], s.params, strict=True)],
        ),
    ]
    columns = [q(c) for c in s.params]
    group = ", ".join(columns)
    flows_cols = s.sql(
        "SELECT column_name FROM information_schema.columns WHERE table_name = 'flows'"
    )["column_name"].tolist()
    if "goodput_bps" in flows_cols:
        per_case = (
            f"SELECT case_id, {group + ', ' if group else ''}sum(goodput_bps) AS total, "
            "CASE WHEN sum(goodput_bps * goodput_bps) > 0 THEN sum(goodput_bps) * sum(goodput_bps) "
            "/ (count(*) * sum(goodput_bps * goodput_bps)) END AS jain FROM flows GROUP BY ALL"
        )
        query = (
            f"SELECT {group + ', ' if group else ''}count(*) AS cases, avg(total) AS total, "
            f"avg(jain) AS jain, min(case_id) AS first FROM ({per_case}) GROUP BY ALL "
            "ORDER BY first"
        )
        frame = s.sql(query)
        rows: list[list[str] | None] = []
        for i, rec in enumerate(frame.to_dict("records")):
            if i == MAX_ROWS:
                rows.append(None)
                break
            jain = rec["jain"]
            rows.append(
                [*(str(rec[c]) for c in s.params), str(rec["cases"]), _tables.rate(rec["total"]),
                 "-" if jain is None or jain != jain else f"{jain:.3f}"]  # fmt: skip
            )
        if rows:
            parts.append(
                "<p>per combination, the mean over its done cases: total goodput and "
                "Jain's fairness index</p>"
            )
            parts.append(_table([*s.params, "cases", "goodput", "Jain's index"], rows))
    return "<div>" + "".join(parts) + "</div>"

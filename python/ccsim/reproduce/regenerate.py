"""Regenerate every reproduction's tables, figures, scoreboard and the numbers in the notes.

    python -m ccsim.reproduce.regenerate            # what `make reproductions` runs first
    python -m ccsim.reproduce.regenerate --check    # fail if a note's generated block is stale
    python -m ccsim.reproduce.regenerate leith      # only these (the others' scoreboards are
                                                    # read from scoreboard.json for the summary)

Each reproduction in ``DOCS`` is run with its output directory under docs/reproductions/
(figures, CSV tables; ``runs/`` is not committed). Then every block of a note between

    <!-- generated: NAME TABLE -->
    ...
    <!-- end generated -->

is replaced: TABLE is ``scoreboard`` (the counts and the cells outside tolerance), or the
start of a table's title (its first table whose title starts so), rendered in Markdown as
``ours (paper)`` with ``*`` on phase-sensitive cells, or ``claims`` (the paper's claims
that reproduction measures, with their verdicts: claims.py).
docs/reproductions/scoreboard.json gets every reproduction's scoreboard and claims, the
summary block ``<!-- generated: summary scoreboard -->`` (in any note) the cell counts of
all of them and ``<!-- generated: summary claims -->`` their claim counts.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from ccsim.reproduce import NoProgress, Report, claims, get, scoreboard

REPO = Path(__file__).resolve().parents[3]
DOCS_DIR = REPO / "docs" / "reproductions"
# Reproduction -> its output directory (figures, CSVs) under docs/reproductions/.
DOCS: dict[str, str] = {
    "keshav-s1": "keshav-figures",
    "keshav-s2": "keshav-figures",
    "keshav-s3": "keshav-figures",
    "dabbous": "dabbous-figures",
    "leith": "leith-figures",
    "welzl": "welzl-figures",
    "heybey": "heybey-figures",
}
NOTES = [DOCS_DIR / f"{n}.md" for n in ("keshav", "dabbous", "leith", "welzl", "heybey")] + [REPO / "README.md"]
BLOCK = re.compile(
    r"(<!-- generated: (?P<name>\S+) (?P<what>[^>]*?) -->\n)(?P<body>.*?)(<!-- end generated -->)",
    re.S,
)


def _fmt(x: float | None) -> str:
    if x is None:
        return "-"
    if abs(x) >= 100:
        return f"{x:.0f}"
    return f"{x:.2f}"


def markdown_table(report: Report, title_start: str) -> str:
    """The first table of ``report`` whose title starts with ``title_start``, as Markdown."""
    table = next((t for t in report.tables if t.title.startswith(title_start)), None)
    if table is None:
        raise KeyError(f"{report.name}: no table titled {title_start!r}...")
    header = ["", *[h.replace("\n", " ") for _, h in table.columns]]
    lines = [
        f"*{scoreboard.short_title(table.title)}*",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    for label in table.rows:
        cells = []
        for key, _ in table.columns:
            row = report.cell(label, key)
            if row is None:
                cells.append("")
                continue
            mark = "\\*" if row.phase_sensitive else ""
            bound = "<= " if row.bound == "upper" and row.paper is not None else ""
            cells.append(f"{_fmt(row.ours)}{mark} ({bound}{_fmt(row.paper)})")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def markdown_scoreboard(board: scoreboard.Scoreboard) -> str:
    share = board.share()
    out = [
        f"**Scoreboard: {board.within} of {board.counted} counted cells within tolerance"
        f"{f' ({share:.0%})' if share is not None else ''}**; "
        f"{len(board.inconsistent)} self-inconsistent paper cells not counted.",
        "",
        "| table | within | counted | tolerance |",
        "|---|---|---|---|",
    ]
    for title, (n, k) in board.per_table.items():
        out.append(f"| {scoreboard.short_title(title)} | {k} | {n} | {board.tolerances[title]} |")
    if board.outside:
        out += ["", "| cell outside tolerance | ours | paper | reason |", "|---|---|---|---|"]
        for c in board.outside:
            link = c.link.split("#", 1)[1] if c.link else ""
            why = c.reason or "no reason recorded"
            out.append(
                f"| {c.row} / {c.column} | {_fmt(c.ours)} | {_fmt(c.paper)} | "
                f"{why} ([note](#{link})) |"
            )
    if board.inconsistent:
        out += ["", "| self-inconsistent paper cell | ours | paper | why |", "|---|---|---|---|"]
        for c in board.inconsistent:
            out.append(f"| {c.row} / {c.column} | {_fmt(c.ours)} | {_fmt(c.paper)} | {c.reason} |")
    return "\n".join(out) + "\n"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def markdown_claims(board: claims.ClaimBoard) -> str:
    share = board.share()
    out = [
        f"**Claims: {board.within} of {board.counted} counted claims within"
        f"{f' ({share:.0%})' if share is not None else ''}**; {len(board.not_counted)} not counted"
        + (f"; **{len(board.unmeasured)} unmeasured**" if board.unmeasured else "")
        + f". Tolerance: {_cell(board.inventory.tolerance_text)}",
        "",
        "| claim | kind | source | paper | ours | verdict | reason |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in board.results:
        reason = r.reason or ""
        if r.verdict == claims.OUTSIDE and r.claim.link:
            reason += f" ([note](#{r.claim.link.split('#', 1)[-1]}))"
        out.append(
            f"| {r.claim.id} | {r.claim.kind} | {_cell(r.claim.source)} | {_cell(r.claim.paper)} | "
            f"{_cell(r.ours)} | {r.verdict.replace('_', ' ')} | {_cell(reason)} |"
        )
    return "\n".join(out) + "\n"


def markdown_claims_summary(summaries: dict[str, dict[str, Any]]) -> str:
    out = [
        "| reproduction | claims within | counted | share | not counted |",
        "|---|---|---|---|---|",
    ]
    n = k = 0
    for name, d in summaries.items():
        share = d["share_within"]
        pct = f"{share:.0%}" if share is not None else "-"
        out.append(f"| {name} | {d['within']} | {d['counted']} | {pct} | {d['not_counted']} |")
        n += d["counted"]
        k += d["within"]
    out.append(f"| all | {k} | {n} | {f'{k / n:.0%}' if n else '-'} | |")
    return "\n".join(out) + "\n"


def markdown_summary(boards: dict[str, scoreboard.Scoreboard]) -> str:
    out = [
        "| reproduction | within tolerance | counted | share | self-inconsistent (not counted) |",
        "|---|---|---|---|---|",
    ]
    n = k = 0
    for name, b in boards.items():
        share = b.share()
        out.append(
            f"| {name} | {b.within} | {b.counted} | {share:.0%} | {len(b.inconsistent)} |"
            if share is not None
            else f"| {name} | 0 | 0 | - | {len(b.inconsistent)} |"
        )
        n += b.counted
        k += b.within
    out.append(f"| all | {k} | {n} | {k / n:.0%} | |")
    return "\n".join(out) + "\n"


def run_all(only: list[str] | None = None) -> dict[str, Report]:
    reports = {}
    for name, sub in DOCS.items():
        if only and name not in only:
            continue
        print(f"reproducing {name} -> {DOCS_DIR / sub}", file=sys.stderr)
        report = get(name).reproduce(DOCS_DIR / sub, NoProgress())
        report.score()
        reports[name] = report
    return reports


def board_from_json(d: dict[str, Any]) -> scoreboard.Scoreboard:
    """A scoreboard as scoreboard.json keeps it (enough for the summary table)."""
    board = scoreboard.Scoreboard(d["name"], d["counted"], d["within"])
    for c in d.get("inconsistent_cells", []):
        board.cells.append(scoreboard.Cell(c["row"], c["column"], c["ours"], c["paper"], c["tolerance"], scoreboard.INCONSISTENT))
    return board


def render_notes(
    reports: dict[str, Report],
    paths: list[Path],
    others: dict[str, scoreboard.Scoreboard] | None = None,
    other_claims: dict[str, dict[str, Any]] | None = None,
) -> dict[Path, str]:
    """The notes with every generated block replaced (path -> new text). Blocks of
    reproductions not in ``reports`` are kept; ``others`` are their scoreboards and
    ``other_claims`` their claims summaries, for the summaries."""
    boards = {**(others or {}), **{name: r.scoreboard for name, r in reports.items()}}
    summaries = {
        **(other_claims or {}),
        **{name: r.claims.summary() for name, r in reports.items() if r.claims is not None},
    }
    summaries = {name: summaries[name] for name in DOCS if name in summaries}
    # In the order of DOCS (then any others).
    boards = dict(sorted(boards.items(), key=lambda kv: list(DOCS).index(kv[0]) if kv[0] in DOCS else len(DOCS)))
    out = {}
    for path in paths:
        if not path.exists():
            continue
        text = path.read_text(encoding="utf-8")

        def replace(m: re.Match[str]) -> str:
            name, what = m["name"], m["what"].strip()
            if name != "summary" and name not in reports:
                return m.group(0)
            if name == "summary" and what == "claims":
                body = markdown_claims_summary(summaries)
            elif name == "summary":
                body = markdown_summary(boards)
            elif what == "claims":
                board = reports[name].claims
                if board is None:
                    raise SystemExit(f"a claims block for {name}, which measures no claims")
                body = markdown_claims(board)
            elif what == "scoreboard":
                body = markdown_scoreboard(boards[name])
            else:
                body = markdown_table(reports[name], what.strip('"'))
            return m.group(1) + body + m.group(5)

        out[path] = BLOCK.sub(replace, text)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="only check that the notes are current")
    ap.add_argument("names", nargs="*", metavar="NAME", help=f"only these reproductions (of {', '.join(DOCS)})")
    args = ap.parse_args(argv)
    unknown = [n for n in args.names if n not in DOCS]
    if unknown:
        ap.error(f"unknown reproduction {unknown[0]!r}; choose from {', '.join(DOCS)}")
    reports = run_all(args.names or None)
    saved = DOCS_DIR / "scoreboard.json"
    kept = json.loads(saved.read_text(encoding="utf-8")) if saved.exists() and args.names else {}
    others = {name: board_from_json(d) for name, d in kept.items() if name not in reports}
    other_claims = {
        name: d["claims_summary"] for name, d in kept.items() if name not in reports and "claims_summary" in d
    }
    rendered = render_notes(reports, NOTES, others, other_claims)
    stale = [p for p, text in rendered.items() if p.read_text(encoding="utf-8") != text]
    if args.check:
        for p in stale:
            print(f"{p}: generated blocks are stale; run make reproductions", file=sys.stderr)
        return 1 if stale else 0
    for p in stale:
        p.write_text(rendered[p], encoding="utf-8")
        print(f"updated {p.relative_to(REPO)}", file=sys.stderr)
    fresh = {}
    for name, r in reports.items():
        fresh[name] = r.scoreboard.to_dict()
        if r.claims is not None:
            fresh[name]["claims_summary"] = r.claims.summary()
            fresh[name]["claims"] = r.claims.to_list()
    boards = {**kept, **fresh}
    boards = {name: boards[name] for name in DOCS if name in boards}
    (DOCS_DIR / "scoreboard.json").write_text(json.dumps(boards, indent=1) + "\n", encoding="utf-8")
    for name, r in reports.items():
        b = r.scoreboard
        print(f"{name}: {b.within} of {b.counted} within tolerance, {len(b.unexplained)} unexplained")
        if r.claims is not None:
            c = r.claims
            print(
                f"{name}: claims {c.within} of {c.counted} within, {len(c.not_counted)} not counted, "
                f"{len(c.unexplained)} outside unexplained, {len(c.unmeasured)} unmeasured"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())

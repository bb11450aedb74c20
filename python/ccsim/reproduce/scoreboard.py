"""The scoreboard every reproduction prints: how many of its cells match the paper.

A cell is *counted* when the paper gives a number for it, ours exists, its table counts
its row (the paper's own configurations; sensitivity and variant rows are shown but not
counted) and no rule marks it otherwise. A counted cell is *within tolerance* when

    |ours - paper| <= max(REL_TOL * |paper|, floor)

(for a cell whose paper value is an upper bound, ``Row.bound == "upper"``: ours <= paper
+ that tolerance)

with REL_TOL = 15% and an absolute floor stated per table (and per column where a table
mixes units), so that cells whose paper value is 0 or tiny are judged on the scale of
the experiment rather than on their own. Every counted cell outside tolerance needs a
one-line reason and a link to the note that explains it (an :class:`Explain` rule);
one without is reported as "no reason recorded". Rules with ``inconsistent=True`` mark
paper cells that contradict the paper's own other numbers: they are listed and not
counted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ccsim.reproduce import Report, Table

REL_TOL = 0.15

WITHIN = "within"
OUTSIDE = "outside"
INCONSISTENT = "inconsistent"
NOT_COUNTED = "not counted"


@dataclass(frozen=True)
class Explain:
    """A reason for cells whose row and column match (regular expressions, full match).

    ``inconsistent``: the paper's cell contradicts its own numbers; not counted. Otherwise
    the reason explains the cell when it falls outside tolerance (a rule may cover cells
    that happen to be within; it is then simply not shown).
    """

    rows: str
    columns: str
    reason: str
    link: str
    inconsistent: bool = False

    def matches(self, row: str, column: str) -> bool:
        return re.fullmatch(self.rows, row) is not None and re.fullmatch(
            self.columns, column
        ) is not None


@dataclass
class Cell:
    row: str
    column: str
    ours: float
    paper: float
    tolerance: float
    status: str
    reason: str | None = None
    link: str | None = None
    table: str = ""

    def to_dict(self) -> dict[str, Any]:
        d = {
            "table": self.table,
            "row": self.row,
            "column": self.column,
            "ours": self.ours,
            "paper": self.paper,
            "tolerance": self.tolerance,
            "status": self.status,
        }
        if self.reason is not None:
            d["reason"] = self.reason
            d["link"] = self.link
        return d


@dataclass
class Scoreboard:
    name: str
    counted: int = 0
    within: int = 0
    cells: list[Cell] = field(default_factory=list)
    # title -> (counted, within)
    per_table: dict[str, tuple[int, int]] = field(default_factory=dict)
    tolerances: dict[str, str] = field(default_factory=dict)

    @property
    def outside(self) -> list[Cell]:
        return [c for c in self.cells if c.status == OUTSIDE]

    @property
    def inconsistent(self) -> list[Cell]:
        return [c for c in self.cells if c.status == INCONSISTENT]

    @property
    def unexplained(self) -> list[Cell]:
        return [c for c in self.outside if c.reason is None]

    def share(self) -> float | None:
        return self.within / self.counted if self.counted else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "relative_tolerance": REL_TOL,
            "counted": self.counted,
            "within": self.within,
            "outside": self.counted - self.within,
            "share_within": self.share(),
            "inconsistent": len(self.inconsistent),
            "tables": {
                title: {"counted": n, "within": k, "tolerance": self.tolerances[title]}
                for title, (n, k) in self.per_table.items()
            },
            "outside_cells": [c.to_dict() for c in self.outside],
            "inconsistent_cells": [c.to_dict() for c in self.inconsistent],
        }


def floor_of(table: Table, column: str) -> float:
    """The absolute floor of a column: the table's ``floor``, or the value of the
    longest prefix of ``column`` in a dict ``floor``."""
    if isinstance(table.floor, dict):
        best = ""
        for prefix in table.floor:
            if column.startswith(prefix) and len(prefix) >= len(best):
                best = prefix
        if best == "" and "" not in table.floor:
            raise KeyError(f"table {table.title!r}: no floor for column {column!r}")
        return table.floor[best]
    return table.floor


def _describe(table: Table) -> str:
    if isinstance(table.floor, dict):
        floors = ", ".join(f"{k or 'other'} {v:g}" for k, v in table.floor.items())
        unit = f" ({table.unit})" if table.unit else ""
    else:
        floors = f"{table.floor:g}"
        unit = f" {table.unit}" if table.unit else ""
    return f"{REL_TOL:.0%} or {floors}{unit}"


def short_title(title: str) -> str:
    """A table's title without the trailing ': ours (paper)'."""
    return title.removesuffix(": ours (paper)")


def score(report: Report, rules: Iterable[Explain]) -> Scoreboard:
    """Scores the counted rows of every table of ``report`` (each cell once); sets each
    scored row's ``status`` (and ``reason``, ``link``)."""
    rules = list(rules)
    board = Scoreboard(report.name)
    seen: set[tuple[str, str]] = set()
    by_key = {(r.row, r.column): r for r in report.rows}
    for table in report.tables:
        counted_rows = table.rows if table.score_rows is None else table.score_rows
        n = k = 0
        for row_label in table.rows:
            for column, _ in table.columns:
                key = (row_label, column)
                row = by_key.get(key)
                if row is None or key in seen or row.paper is None or row.ours is None:
                    continue
                seen.add(key)
                if row_label not in counted_rows or (
                    table.score_columns is not None and column not in table.score_columns
                ):
                    row.status = NOT_COUNTED
                    continue
                tol = max(REL_TOL * abs(row.paper), floor_of(table, column))
                rule = next((x for x in rules if x.matches(row_label, column)), None)
                if rule is not None and rule.inconsistent:
                    status = INCONSISTENT
                elif row.bound == "upper" and row.ours <= row.paper + tol + 1e-12:
                    status = WITHIN
                elif row.bound is None and abs(row.ours - row.paper) <= tol + 1e-12:
                    status = WITHIN
                else:
                    status = OUTSIDE
                cell = Cell(row_label, column, row.ours, row.paper, tol, status, table=table.title)
                if status != WITHIN and rule is not None:
                    cell.reason, cell.link = rule.reason, rule.link
                row.status, row.reason, row.link = status, cell.reason, cell.link
                board.cells.append(cell)
                if status != INCONSISTENT:
                    n += 1
                    k += status == WITHIN
        if n or any(c.table == table.title for c in board.cells):
            board.per_table[table.title] = (n, k)
            board.tolerances[table.title] = _describe(table)
        board.counted += n
        board.within += k
    return board


def _num(x: float | int | None) -> str:
    """A value as the tables print it: counts whole, others to three significant digits
    without an exponent (``1195``, ``2.19``, ``0.0031``)."""
    if x is None:
        return "-"
    if isinstance(x, int) or float(x).is_integer():
        return str(int(x))
    return f"{x:.3g}" if abs(x) < 100 else f"{x:.0f}"


def lines(board: Scoreboard) -> list[str]:
    """The scoreboard as plain text lines (the CLI prints them after the tables)."""
    out = []
    share = board.share()
    pct = f" ({share:.0%})" if share is not None else ""
    out.append(
        f"Scoreboard: {board.within} of {board.counted} cells within tolerance{pct}; "
        f"{len(board.inconsistent)} paper cells self-inconsistent, not counted."
    )
    for title, (n, k) in board.per_table.items():
        out.append(f"  {short_title(title)}: {k} of {n} (tolerance {board.tolerances[title]})")
    if board.outside:
        out.append("Outside tolerance:")
        for c in board.outside:
            why = c.reason or "no reason recorded"
            where = f" [{c.link}]" if c.link else ""
            out.append(f"  {c.row} / {c.column}: {_num(c.ours)} vs {_num(c.paper)}: {why}{where}")
    if board.inconsistent:
        out.append("Self-inconsistent paper cells (not counted):")
        for c in board.inconsistent:
            out.append(f"  {c.row} / {c.column}: paper {_num(c.paper)}: {c.reason} [{c.link}]")
    return out

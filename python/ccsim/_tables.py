"""Tables for the terminal: fitted to its width, with notes below them (docs/cli.md).

Two ways to fit a table that is wider than the terminal:

- ``drop``: leave out the least important columns (each column has a ``drop`` rank:
  higher goes first; 0 never) and say below the table which are hidden;
- ``wrap``: split the columns into several tables, each repeating the first (label)
  column, as pandas prints a wide frame. Used where every column matters (ours beside
  the paper's).

``--wide`` makes the console as wide as the widest table, so nothing is dropped or split.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass

from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

# Width of stdout when it is not a terminal and COLUMNS is not set (files, pipes).
PIPE_WIDTH = 200
# The console width of --wide: no table of ours is wider.
WIDE = 100_000


@dataclass(frozen=True)
class Column:
    header: str
    drop: int = 0  # 0: always shown; otherwise the higher, the earlier it is left out
    justify: str = "right"


def terminal_width() -> int:
    """COLUMNS if set, else the terminal's width, else PIPE_WIDTH (not a terminal)."""
    env = os.environ.get("COLUMNS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    if sys.stdout.isatty():
        return shutil.get_terminal_size().columns
    return PIPE_WIDTH


def console(wide: bool = False) -> Console:
    """The stdout console: no colour highlighting; as wide as the terminal (or unbounded
    with ``wide``)."""
    return Console(highlight=False, width=WIDE if wide else terminal_width())


def make_table(title: str | None, columns: list[Column]) -> Table:
    table = Table(title=title or None, box=box.SIMPLE_HEAD, show_edge=False, title_justify="left")
    for column in columns:
        table.add_column(column.header, justify=column.justify)  # type: ignore[arg-type]
    return table


def _build(title: str | None, columns: list[Column], rows: list[list[str] | None]) -> Table:
    table = make_table(title, columns)
    for row in rows:
        if row is None:
            table.add_row("...", *([""] * (len(columns) - 1)))
        else:
            table.add_row(*(Text(cell) for cell in row))
    return table


def natural_width(con: Console, table: Table) -> int:
    return Measurement.get(con, con.options.update(width=WIDE), table).maximum


def print_table(
    con: Console,
    title: str | None,
    columns: list[Column],
    rows: list[list[str] | None],
    *,
    mode: str = "drop",
    notes: list[str] | None = None,
) -> None:
    """Print rows (lists of cells; ``None``: a ``...`` row, rows left out) fitted to
    ``con.width``, then the notes, each on its own line below the table."""
    width = con.width
    shown = list(range(len(columns)))
    hidden: list[str] = []
    if mode == "drop":
        order = sorted(
            (i for i, c in enumerate(columns) if c.drop > 0), key=lambda i: (-columns[i].drop, -i)
        )
        while order and _width(con, columns, rows, shown) > width:
            i = order.pop(0)
            shown.remove(i)
            hidden.append(columns[i].header.replace("\n", " "))
        parts = [shown]
    elif mode == "wrap":
        parts = _split(con, columns, rows, width)
    else:  # pragma: no cover - programming error
        raise ValueError(mode)
    for n, part in enumerate(parts):
        if title:
            suffix = f" (part {n + 1} of {len(parts)})" if len(parts) > 1 else ""
            con.print(Text(title + suffix, style="italic"))
        con.print(_build(None, [columns[i] for i in part], _pick(rows, part)))
    if hidden:
        con.print(
            f"({len(hidden)} columns hidden to fit {width} columns: {', '.join(hidden)}; "
            "--wide shows them)"
        )
    for note in notes or []:
        con.print(note, markup=False)


def _pick(rows: list[list[str] | None], keep: list[int]) -> list[list[str] | None]:
    return [None if row is None else [row[i] for i in keep] for row in rows]


def _width(
    con: Console, columns: list[Column], rows: list[list[str] | None], keep: list[int]
) -> int:
    return natural_width(con, _build(None, [columns[i] for i in keep], _pick(rows, keep)))


def _split(
    con: Console, columns: list[Column], rows: list[list[str] | None], width: int
) -> list[list[int]]:
    """Groups of column indexes, each starting with the label column 0, that fit: as few
    as greedy filling needs, then as even in size as still fits."""
    greedy: list[list[int]] = []
    current = [0]
    for i in range(1, len(columns)):
        if len(current) == 1 or _width(con, columns, rows, [*current, i]) <= width:
            current.append(i)
        else:
            greedy.append(current)
            current = [0, i]
    greedy.append(current)
    count, n = len(greedy), len(columns) - 1
    if count > 1:
        size = -(-n // count)  # ceil
        even = [[0, *range(1 + k, 1 + min(k + size, n))] for k in range(0, n, size)]
        if len(even) == count and all(_width(con, columns, rows, p) <= width for p in even):
            return even
    return greedy


def number(x: float | int | None, digits: int = 2) -> str:
    """A count as an integer (``741``), anything else with ``digits`` decimals; ``-``
    for a missing value."""
    if x is None:
        return "-"
    if isinstance(x, bool):
        return str(x).lower()
    if isinstance(x, int):
        return str(x)
    return f"{x:.{digits}f}"

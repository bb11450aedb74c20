"""Tables for the terminal: fitted to its width, with notes below them (docs/cli.md).

Two ways to fit a table that is wider than the terminal:

- ``drop``: leave out the least important columns (each column has a ``drop`` rank:
  higher goes first; 0 never) and say below the table which are hidden;
- ``wrap``: split the columns into several tables, each repeating the first (label)
  column, as pandas prints a wide frame. Used where every column matters (ours beside
  the paper's).

``--wide`` makes the console as wide as the widest table, so nothing is dropped or split.
Tables are rendered as plain text in rich's SIMPLE_HEAD look (a bold header and a rule),
so that a table of thousands of rows prints in a moment.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

from rich import box
from rich.cells import cell_len
from rich.console import Console
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
    """COLUMNS if set, else the terminal's width (that of stderr when stdout goes to a
    pipe, e.g. ``| less``), else PIPE_WIDTH (no terminal at all, or one that reports no
    size: a pseudo-terminal nobody sized, as ``script`` or ``docker exec`` give, says 0
    columns, and a table 0 wide prints nothing)."""
    env = os.environ.get("COLUMNS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream.isatty() and (columns := os.get_terminal_size(stream.fileno()).columns) > 0:
                return columns
        except (OSError, ValueError, AttributeError):
            continue
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


def _column_widths(columns: list[Column], rows: list[list[str] | None]) -> list[int]:
    widths = []
    for i, column in enumerate(columns):
        cells = [cell_len(row[i]) for row in rows if row is not None]
        header = max(cell_len(line) for line in column.header.split("\n"))
        widths.append(max([header, 3 if i == 0 else 0, *cells]))  # 3: a "..." row
    return widths


def _width(columns: list[Column], rows: list[list[str] | None], keep: list[int]) -> int:
    """Characters a table of the columns ``keep`` takes: each column as wide as its
    widest cell or header line, plus one space either side."""
    widths = _column_widths([columns[i] for i in keep], _pick(rows, keep))
    return sum(w + 2 for w in widths)


def render(columns: list[Column], rows: list[list[str] | None]) -> tuple[list[str], list[str]]:
    """A table as lines of text: the header lines (with the rule under them) and the body,
    in rich's SIMPLE_HEAD look without its edges. Plain text, so that thousands of rows
    print in a moment."""
    widths = _column_widths(columns, rows)

    def line(cells: list[str]) -> str:
        out = []
        for column, width, cell in zip(columns, widths, cells, strict=True):
            pad = " " * (width - cell_len(cell))
            out.append(f" {cell}{pad} " if column.justify == "left" else f" {pad}{cell} ")
        return "".join(out).rstrip()

    headers = [c.header.split("\n") for c in columns]
    height = max(len(h) for h in headers)
    head = [line([h[k] if k < len(h) else "" for h in headers]) for k in range(height)]
    head.append("\u2500" * sum(w + 2 for w in widths))
    body = [
        line(["...", *([""] * (len(columns) - 1))] if row is None else row) for row in rows
    ]
    return head, body


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
        while order and _width(columns, rows, shown) > width:
            i = order.pop(0)
            shown.remove(i)
            hidden.append(columns[i].header.replace("\n", " "))
        parts = [shown]
    elif mode == "wrap":
        parts = _split(columns, rows, width)
    else:  # pragma: no cover - programming error
        raise ValueError(mode)
    for n, part in enumerate(parts):
        if title:
            suffix = f" (part {n + 1} of {len(parts)})" if len(parts) > 1 else ""
            con.print(Text(title + suffix, style="italic"))
        head, body = render([columns[i] for i in part], _pick(rows, part))
        con.print(Text("\n".join(head), style="bold"), crop=False, soft_wrap=True)
        if body:
            con.out("\n".join(body), highlight=False)
    if hidden:
        con.print(
            f"({len(hidden)} column{'s' if len(hidden) > 1 else ''} hidden to fit {width} "
            f"columns: {', '.join(hidden)}; "
            "--wide shows them)"
        )
    for note in notes or []:
        con.print(note, markup=False)


def _pick(rows: list[list[str] | None], keep: list[int]) -> list[list[str] | None]:
    return [None if row is None else [row[i] for i in keep] for row in rows]


def _split(columns: list[Column], rows: list[list[str] | None], width: int) -> list[list[int]]:
    """Groups of column indexes, each starting with the label column 0, that fit: as few
    as greedy filling needs, then as even in size as still fits."""
    greedy: list[list[int]] = []
    current = [0]
    for i in range(1, len(columns)):
        if len(current) == 1 or _width(columns, rows, [*current, i]) <= width:
            current.append(i)
        else:
            greedy.append(current)
            current = [0, i]
    greedy.append(current)
    count, n = len(greedy), len(columns) - 1
    if count > 1:
        size = -(-n // count)  # ceil
        even = [[0, *range(1 + k, 1 + min(k + size, n))] for k in range(0, n, size)]
        if len(even) == count and all(_width(columns, rows, p) <= width for p in even):
            return even
    return greedy


def rate(bps: float | None) -> str:
    """A rate in bits/s with its unit (``12.5 Mbps``); ``-`` for a missing value."""
    if bps is None:
        return "-"
    for unit, scale in (("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3)):
        if abs(bps) >= scale:
            return f"{bps / scale:.4g} {unit}"
    return f"{bps:.4g} bps"


def seconds(s: float | None) -> str:
    """A duration in seconds with its unit (``s``, ``ms`` or ``us``); ``-`` for a missing
    value."""
    if s is None:
        return "-"
    if s == 0 or abs(s) >= 1:
        return f"{s:.4g} s"
    if abs(s) >= 1e-3:
        return f"{s * 1e3:.4g} ms"
    return f"{s * 1e6:.4g} us"


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

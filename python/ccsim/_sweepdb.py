"""The sweep database: every case's results in one DuckDB file (docs/sweeps.md).

Tables are built generically from the results JSON, so a key the engine adds later
becomes a column (``ALTER TABLE ... ADD COLUMN``) instead of an error:

- top-level scalars (``sim_time_s``, ``events``, ...) are columns of ``cases``;
- a top-level list of objects (``flows``, ``links``, or one added later) is a table of
  that name, one row per object;
- ``phases`` and ``intervals`` give one row per (period, flow) in ``phases`` /
  ``intervals`` and one per (period, entry) in ``phase_X`` / ``interval_X`` for every
  other list X in a period (today ``links``);
- ``series`` gives one row per point, the series' scalars repeated on each;
- a nested object is flattened into ``key.subkey`` columns, a nested list is stored as
  JSON text.

A column first seen with integers becomes DOUBLE when a float arrives and VARCHAR when
anything else does; one seen only as null is retyped by its first value.

Every result row starts with the key columns ``case_id``, one column per swept
parameter (named by its ``--set`` key), ``seed``, and ``seq`` (the row's position
within its case, for order). Only the parent process writes, one transaction per batch
of finished cases: a case is done exactly when the transaction that stored its rows and
set its status committed.

This module imports duckdb, numpy and pandas; ``import ccsim`` never imports it.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import math
import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd

from ccsim._sweepcase import SweepError

# Version of this layout, stored in the sweep table. 2: a swept parameter whose values
# are numbers with units is a number column named KEY_UNIT (format 1 kept them as text
# under KEY), and the sweep table lists the key columns (param_columns).
FORMAT = 2
READABLE_FORMATS = (1, 2)  # read, and resumed in their own layout

META_TABLE = "sweep"
CASES_TABLE = "cases"
# Result tables every sweep database has (possibly empty), in this order.
RESULT_TABLES = (
    "flows", "links", "phases", "phase_links", "intervals", "interval_links", "series",
)  # fmt: skip
# Columns of `cases` after the key columns; the results' top-level scalars follow.
CASE_COLUMNS = (
    ("status", "VARCHAR"),  # pending | done | failed
    ("error", "VARCHAR"),  # why a failed case failed
    ("overrides", "VARCHAR"),  # JSON list of every KEY=VALUE given to the engine
    ("scenario_digest", "VARCHAR"),  # sha256 of the scenario file's text
    ("finished_at", "TIMESTAMP"),  # when the case's rows were committed (UTC)
)
META_COLUMNS = (
    ("format", "INTEGER"),
    ("definition", "VARCHAR"),  # JSON: what a rerun must match
    ("scenario_source", "VARCHAR"),
    ("scenario_text", "VARCHAR"),
    ("ccsim_version", "VARCHAR"),
    ("created_at", "TIMESTAMP"),
    ("param_columns", "VARCHAR"),  # JSON: the swept parameters' columns, in order
)
RESERVED_TABLES = {META_TABLE, CASES_TABLE}

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
# How long a writer or reader waits for another process to let go of the file.
LOCK_WAIT_S = 600.0


def q(name: str) -> str:
    """Quote an identifier (parameter columns contain dots)."""
    return '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True)
class Keys:
    """The key columns of every row: case_id, the parameters (typed), seed."""

    params: tuple[tuple[str, str], ...]  # (column name = --set key, DuckDB type)

    @property
    def names(self) -> list[str]:
        return ["case_id", *(name for name, _ in self.params), "seed"]

    def columns(self) -> list[tuple[str, str]]:
        return [("case_id", "BIGINT"), *self.params, ("seed", "UBIGINT")]

    def types(self) -> dict[str, str]:
        return dict(self.columns()) | {"seq": "BIGINT"}


@dataclass
class Outcome:
    """A finished case as the parent stores it."""

    case_id: int
    keys: dict[str, Any]  # key column -> value
    raw: dict[str, Any] | None  # the results JSON, or None when the case failed
    error: str | None = None


# Connections --------------------------------------------------------------------


class Database:
    """A sweep database: a DuckDB file, or (``path=None``) one in memory.

    A file is opened only while a batch is written or a query runs, so other processes
    can read it between batches; an in-memory one keeps its one connection.
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._memory = duckdb.connect() if path is None else None

    @contextlib.contextmanager
    def connect(self, read_only: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
        if self._memory is not None:
            yield self._memory
            return
        con = _connect_waiting(self.path, read_only)
        try:
            yield con
        finally:
            con.close()


def _connect_waiting(path: Path | None, read_only: bool) -> duckdb.DuckDBPyConnection:
    deadline = time.monotonic() + LOCK_WAIT_S
    delay = 0.02
    while True:
        try:
            return duckdb.connect(str(path), read_only=read_only)
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower():
                raise
            if time.monotonic() > deadline:
                raise SweepError(
                    f"{path}: another process has held the database open for "
                    f"{LOCK_WAIT_S:.0f} s ({str(exc).splitlines()[0]}); close it there and "
                    "run again (a sweep resumes where it stopped)"
                ) from None
        time.sleep(delay)
        delay = min(delay * 2, 0.5)


def is_locked_error(exc: BaseException) -> bool:
    return isinstance(exc, duckdb.IOException) and "lock" in str(exc).lower()


# Creating and checking ----------------------------------------------------------


def create_table(con: duckdb.DuckDBPyConnection, table: str, columns: Sequence[tuple[str, str]]):
    con.execute(f"CREATE TABLE {q(table)} ({', '.join(f'{q(n)} {t}' for n, t in columns)})")


def columns_of(con: duckdb.DuckDBPyConnection, table: str) -> dict[str, str]:
    rows = con.execute(
        "SELECT column_name, data_type FROM information_schema.columns "
        "WHERE table_schema = 'main' AND table_name = ? ORDER BY ordinal_position",
        [table],
    ).fetchall()
    return dict(rows)


def tables_of(con: duckdb.DuckDBPyConnection) -> list[str]:
    rows = con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
    ).fetchall()
    return [r[0] for r in rows]


def ordered_tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    """cases, the standard result tables, then any other (grown) tables by name."""
    present = set(tables_of(con)) - {META_TABLE}
    first = [t for t in (CASES_TABLE, *RESULT_TABLES) if t in present]
    return first + sorted(present - set(first))


def initialize(
    con: duckdb.DuckDBPyConnection,
    keys: Keys,
    meta: dict[str, Any],
    cases: list[dict[str, Any]],
) -> None:
    """Create every table and list every case as pending, in one transaction."""
    with _transaction(con):
        create_table(con, META_TABLE, META_COLUMNS)
        con.execute(
            f"INSERT INTO {META_TABLE} VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                FORMAT,
                json.dumps(meta["definition"], sort_keys=True),
                meta["scenario_source"],
                meta["scenario_text"],
                meta["ccsim_version"],
                _now(),
                json.dumps(meta["param_columns"]),
            ],
        )
        create_table(con, CASES_TABLE, [*keys.columns(), *CASE_COLUMNS])
        for table in RESULT_TABLES:
            create_table(con, table, [*keys.columns(), ("seq", "BIGINT")])
        rows = [{**case, "status": "pending"} for case in cases]
        _insert(con, CASES_TABLE, _rows_chunk(rows), keys, keys.types() | dict(CASE_COLUMNS))


def read_meta(con: duckdb.DuckDBPyConnection) -> dict[str, Any] | None:
    """The sweep table's row as a dict (definition parsed), or None if there is none."""
    if META_TABLE not in tables_of(con):
        return None
    cursor = con.execute(f"SELECT * FROM {META_TABLE}")
    names = [d[0] for d in cursor.description]
    row = cursor.fetchone()
    if row is None:
        return None
    meta = dict(zip(names, row, strict=True))
    meta["definition"] = json.loads(meta["definition"])
    # Format 1 named every key column by its parameter's key.
    columns = meta.get("param_columns")
    meta["param_columns"] = (
        json.loads(columns) if columns else [key for key, _ in meta["definition"]["params"]]
    )
    return meta


def prepare(con: duckdb.DuckDBPyConnection) -> set[int]:
    """Before running: drop rows of cases that are not done (none should exist, since a
    case's rows and its status commit together) and return the ids of the done cases."""
    with _transaction(con):
        for table in ordered_tables(con):
            if table != CASES_TABLE:
                con.execute(
                    f"DELETE FROM {q(table)} WHERE case_id IN "
                    f"(SELECT case_id FROM {CASES_TABLE} WHERE status <> 'done')"
                )
    rows = con.execute(f"SELECT case_id FROM {CASES_TABLE} WHERE status = 'done'").fetchall()
    return {r[0] for r in rows}


def case_counts(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    rows = con.execute(f"SELECT status, count(*) FROM {CASES_TABLE} GROUP BY status").fetchall()
    return dict(rows)


# Writing ------------------------------------------------------------------------


def write(con: duckdb.DuckDBPyConnection, keys: Keys, outcomes: list[Outcome]) -> int:
    """Store finished cases in one transaction; return how many were stored.

    A case already marked done (a second writer got there first) is skipped, so no
    case's rows are ever stored twice."""
    with _transaction(con):
        ids = [o.case_id for o in outcomes]
        done = {
            r[0]
            for r in con.execute(
                f"SELECT case_id FROM {CASES_TABLE} WHERE status = 'done' "
                "AND case_id IN (SELECT unnest(?::BIGINT[]))",
                [ids],
            ).fetchall()
        }
        per_table: dict[str, list[Chunk]] = {}
        updates: list[dict[str, Any]] = []
        now = _now()
        for o in outcomes:
            if o.case_id in done:
                continue
            done.add(o.case_id)
            update: dict[str, Any] = {"case_id": o.case_id, "finished_at": now}
            if o.raw is None:
                update.update(status="failed", error=o.error)
            else:
                top, tables = split_results(o.raw)
                for table, chunk in tables.items():
                    per_table.setdefault(table, []).append(_with_keys(o.keys, chunk))
                update.update(status="done", error=None)
                for name, value in top.items():
                    if name == "seed" and value == o.keys.get("seed"):
                        continue  # already the key column
                    update[_free_name(name, keys)] = value
            updates.append(update)
        types = keys.types() | dict(CASE_COLUMNS)
        for table, chunks in per_table.items():
            _insert(con, table, _concat_chunks(chunks), keys, types)
        if updates:
            _update_cases(con, _rows_chunk(updates), keys, types)
    return len(updates)


def _free_name(name: str, keys: Keys) -> str:
    """A top-level result key named like a column of cases' own is kept as NAME_result."""
    reserved = {*keys.names, *(n for n, _ in CASE_COLUMNS), "case_id"}
    return f"{name}_result" if name in reserved else name


@contextlib.contextmanager
def _transaction(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    con.execute("BEGIN TRANSACTION")
    try:
        yield
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None)


def _insert(
    con: duckdb.DuckDBPyConnection, table: str, chunk: Chunk, keys: Keys, fixed: dict[str, str]
) -> None:
    """Insert rows, growing the table's columns as needed. ``fixed`` gives the types of
    columns whose type is known in advance (key columns, cases' own columns)."""
    if chunk.n == 0:
        return
    types = _ensure_columns(con, table, _wanted(chunk, fixed), keys)
    frame = _frame(chunk, types)
    con.register("_ccsim_rows", frame)
    try:
        names = ", ".join(q(n) for n in frame.columns)
        con.execute(f"INSERT INTO {q(table)} ({names}) SELECT {names} FROM _ccsim_rows")
    finally:
        con.unregister("_ccsim_rows")


def _update_cases(con: duckdb.DuckDBPyConnection, chunk: Chunk, keys: Keys, fixed: dict[str, str]):
    types = _ensure_columns(con, CASES_TABLE, _wanted(chunk, fixed), keys)
    frame = _frame(chunk, types)
    con.register("_ccsim_cases", frame)
    try:
        sets = ", ".join(f"{q(n)} = u.{q(n)}" for n in frame.columns if n != "case_id")
        con.execute(
            f"UPDATE {CASES_TABLE} SET {sets} FROM _ccsim_cases AS u "
            f"WHERE {CASES_TABLE}.case_id = u.case_id"
        )
    finally:
        con.unregister("_ccsim_cases")


def _wanted(chunk: Chunk, fixed: dict[str, str]) -> dict[str, str | None]:
    return {
        name: fixed.get(name) or sql_type(_kinds(_parts(chunk.n, value)))
        for name, value in chunk.columns.items()
    }


def _frame(chunk: Chunk, types: dict[str, str]) -> pd.DataFrame:
    columns = chunk.columns.items()
    return pd.DataFrame({name: _array(_parts(chunk.n, v), types[name]) for name, v in columns})


def _ensure_columns(
    con: duckdb.DuckDBPyConnection, table: str, wanted: dict[str, str | None], keys: Keys
) -> dict[str, str]:
    """Create or grow ``table`` to hold the ``wanted`` columns; return their types."""
    existing = columns_of(con, table)
    if not existing:
        create_table(con, table, [*keys.columns(), ("seq", "BIGINT")])
        existing = columns_of(con, table)
    final: dict[str, str] = {}
    for name, new in wanted.items():
        old = existing.get(name)
        if old is None:
            # A column seen only as null so far is DOUBLE until a value retypes it.
            final[name] = new or "DOUBLE"
            con.execute(f"ALTER TABLE {q(table)} ADD COLUMN {q(name)} {final[name]}")
            continue
        merged = _merge(old, new)
        if merged != old:
            (filled,) = con.execute(f"SELECT count({q(name)}) FROM {q(table)}").fetchone()
            if filled == 0 and new is not None:
                merged = new
            con.execute(f"ALTER TABLE {q(table)} ALTER COLUMN {q(name)} TYPE {merged}")
        final[name] = merged
    return final


# Results JSON -> rows -----------------------------------------------------------


class Repeat:
    """One value repeated on every row of a chunk."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class Pieces:
    """A column made of (n, sequence | Repeat | None) parts, concatenated when stored."""

    __slots__ = ("parts",)

    def __init__(self, parts: list[tuple[int, Any]]) -> None:
        self.parts = parts


@dataclass
class Chunk:
    """Rows of one table: column -> a sequence of length n, a Repeat or Pieces."""

    n: int
    columns: dict[str, Any]


def _parts(n: int, value: Any) -> list[tuple[int, Any]]:
    return value.parts if isinstance(value, Pieces) else [(n, value)]


def _concat_chunks(chunks: list[Chunk]) -> Chunk:
    names: dict[str, None] = {}
    for chunk in chunks:
        names.update(dict.fromkeys(chunk.columns))
    columns = {}
    for name in names:
        parts: list[tuple[int, Any]] = []
        for chunk in chunks:
            parts.extend(_parts(chunk.n, chunk.columns.get(name)))
        columns[name] = Pieces(parts)
    return Chunk(sum(c.n for c in chunks), columns)


def _rows_chunk(rows: list[dict[str, Any]]) -> Chunk:
    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row))
    return Chunk(len(rows), {name: [row.get(name) for row in rows] for name in names})


def _with_keys(keys: dict[str, Any], rows: Chunk) -> Chunk:
    """One case's rows with the key columns and seq in front."""
    columns: dict[str, Any] = {name: Repeat(value) for name, value in keys.items()}
    columns["seq"] = np.arange(rows.n, dtype=np.int64)
    for name, value in rows.columns.items():
        # A result key named like a key column (none today) is kept under another name.
        columns[f"{name}_result" if name in columns else name] = value
    return Chunk(rows.n, columns)


def flatten(obj: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested objects become ``a.b`` keys, lists become JSON text, scalars stay."""
    if not prefix and not any(isinstance(v, (dict, list)) for v in obj.values()):
        return obj  # the common case: flat already (callers do not modify it)
    out: dict[str, Any] = {}
    for key, value in obj.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flatten(value, name + "."))
        elif isinstance(value, list):
            out[name] = json.dumps(value)
        else:
            out[name] = value
    return out


def _table_name(key: str) -> str:
    return f"result_{key}" if key in RESERVED_TABLES else key


def split_results(raw: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Chunk]]:
    """The results JSON as (top-level scalars for ``cases``, table name -> rows)."""
    top: dict[str, Any] = {}
    tables: dict[str, Chunk] = {}
    for key, value in raw.items():
        if key == "series" and isinstance(value, list):
            tables["series"] = _series_chunk(value)
        elif key in ("phases", "intervals") and isinstance(value, list):
            tables.update(_period_chunks(key, value))
        elif isinstance(value, list) and all(isinstance(v, dict) for v in value):
            tables[_table_name(key)] = _rows_chunk([flatten(v) for v in value])
        elif isinstance(value, dict):
            top.update(flatten(value, key + "."))
        elif isinstance(value, list):
            top[key] = json.dumps(value)
        else:
            top[key] = value
    return top, tables


def _period_chunks(key: str, periods: list[dict[str, Any]]) -> dict[str, Chunk]:
    """phases -> ``phases`` (per flow) and ``phase_<list>``; intervals likewise."""
    singular = key[:-1]
    rows: dict[str, list[dict[str, Any]]] = {}
    for period in periods:
        base: dict[str, Any] = {"phase": period.get("name")}
        lists: dict[str, list[Any]] = {}
        for k, v in period.items():
            if k == "name":
                continue
            if isinstance(v, list) and all(isinstance(e, dict) for e in v):
                lists[k] = v
            elif isinstance(v, dict):
                base.update(flatten(v, k + "."))
            elif isinstance(v, list):
                base[k] = json.dumps(v)
            else:
                base[k] = v
        for k, entries in lists.items():
            table = key if k == "flows" else f"{singular}_{k}"
            rows.setdefault(table, []).extend({**base, **flatten(e)} for e in entries)
    return {table: _rows_chunk(r) for table, r in rows.items()}


def _series_chunk(series: list[dict[str, Any]]) -> Chunk:
    """One row per point: a series' scalars repeated, its lists of the length of ``t``
    (today ``t`` and ``v``) as columns."""
    chunks: list[Chunk] = []
    for entry in series:
        lists = [v for v in entry.values() if isinstance(v, list)]
        t = entry.get("t")
        n = len(t) if isinstance(t, list) else max((len(v) for v in lists), default=0)
        columns: dict[str, Any] = {}
        for k, v in entry.items():
            if isinstance(v, list) and len(v) == n:
                columns[k] = _point_array(v)
            elif isinstance(v, dict):
                columns.update({kk: Repeat(vv) for kk, vv in flatten(v, k + ".").items()})
            elif isinstance(v, list):
                columns[k] = Repeat(json.dumps(v))
            else:
                columns[k] = Repeat(v)
        chunks.append(Chunk(n, columns))
    return _concat_chunks(chunks)


def _point_array(values: list[Any]) -> Any:
    try:
        return np.asarray(values, dtype=float)  # t, v: numbers (null -> NaN -> NULL)
    except (TypeError, ValueError):
        return values


# Types --------------------------------------------------------------------------


def _kind(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int" if INT64_MIN <= value <= INT64_MAX else "float"
    if isinstance(value, float):
        return None if math.isnan(value) else "float"
    return "str"


def _kinds(parts: list[tuple[int, Any]]) -> set[str]:
    kinds: set[str | None] = set()
    for n, value in parts:
        if n == 0 or value is None:
            continue
        if isinstance(value, Repeat):
            kinds.add(_kind(value.value))
        elif isinstance(value, np.ndarray):
            if value.dtype.kind == "f":
                kinds.add(None if np.all(np.isnan(value)) else "float")
            else:
                kinds.update(map(_kind, value.tolist()))
        else:
            kinds.update(_list_kinds(value))
    kinds.discard(None)
    return kinds  # type: ignore[return-value]


_KIND_OF_TYPE = {bool: "bool", float: "float", str: "str", type(None): None}


def _list_kinds(values: Sequence[Any]) -> set[str | None]:
    """The kinds of a list's values, looking at each value only where its type says too
    little (integers, for their range)."""
    kinds: set[str | None] = set()
    for kind_type in set(map(type, values)):
        if kind_type is int:
            ints = [v for v in values if type(v) is int]
            kinds.add("int" if INT64_MIN <= min(ints) and max(ints) <= INT64_MAX else "float")
        elif kind_type in _KIND_OF_TYPE:
            kinds.add(_KIND_OF_TYPE[kind_type])
        else:
            kinds.update(_kind(v) for v in values if type(v) is kind_type)
    return kinds


def sql_type(kinds: set[str]) -> str | None:
    """The DuckDB type for values of these kinds (None: only nulls seen)."""
    if not kinds:
        return None
    if kinds == {"bool"}:
        return "BOOLEAN"
    if kinds == {"int"}:
        return "BIGINT"
    if kinds <= {"int", "float"}:
        return "DOUBLE"
    return "VARCHAR"


def value_type(values: Sequence[Any]) -> str:
    """The DuckDB type of a parameter column (VARCHAR when its values are mixed)."""
    return sql_type({k for k in map(_kind, values) if k is not None}) or "VARCHAR"


def _merge(existing: str, new: str | None) -> str:
    if new is None or new == existing:
        return existing
    if {existing, new} == {"BIGINT", "DOUBLE"}:
        return "DOUBLE"
    return "VARCHAR"


_NUMPY = {"DOUBLE": np.float64, "BIGINT": np.int64, "UBIGINT": np.uint64}


def _array(parts: list[tuple[int, Any]], sql: str) -> Any:
    """A column's parts as one array that DuckDB reads as ``sql`` (None/NaN -> NULL)."""
    if sql == "DOUBLE" or (sql in _NUMPY and _no_nulls(parts)):
        dtype = _NUMPY[sql]
        arrays = [_numeric_part(n, value, dtype) for n, value in parts]
        return np.concatenate(arrays) if arrays else np.empty(0, dtype=dtype)
    text = sql not in ("BIGINT", "UBIGINT", "BOOLEAN", "TIMESTAMP")
    arrays = [_object_part(n, value, text) for n, value in parts]
    values = np.concatenate(arrays) if arrays else np.empty(0, dtype=object)
    if sql in ("BIGINT", "UBIGINT"):
        return pd.array(values, dtype="Int64" if sql == "BIGINT" else "UInt64")
    if sql == "BOOLEAN":
        return pd.array(values, dtype="boolean")
    if sql == "TIMESTAMP":
        return pd.to_datetime(pd.Series(values, dtype=object))
    return values


def _object_part(n: int, value: Any, text: bool) -> np.ndarray:
    """A part as an object array; for a text column, non-strings as JSON text."""

    def conv(v: Any) -> Any:
        return json.dumps(v) if text and v is not None and not isinstance(v, str) else v

    if value is None or isinstance(value, Repeat):
        return np.full(n, conv(value.value if value is not None else None), dtype=object)
    items = value.tolist() if isinstance(value, np.ndarray) else value
    out = np.empty(len(items), dtype=object)
    out[:] = [conv(v) for v in items] if text else items
    return out


def _numeric_part(n: int, value: Any, dtype: Any) -> np.ndarray:
    if value is None:
        return np.full(n, np.nan, dtype=dtype)
    if isinstance(value, Repeat):
        v = value.value
        return np.full(n, np.nan if v is None else v, dtype=dtype)
    if isinstance(value, np.ndarray):
        return value.astype(dtype, copy=False)
    return np.asarray([np.nan if v is None else v for v in value], dtype=dtype)


def _no_nulls(parts: list[tuple[int, Any]]) -> bool:
    for _, value in parts:
        if value is None or (isinstance(value, Repeat) and value.value is None):
            return False
        if not isinstance(value, (Repeat, np.ndarray)) and any(v is None for v in value):
            return False
    return True


# Export -------------------------------------------------------------------------


def export_parquet(con: duckdb.DuckDBPyConnection, out: Path) -> list[Path]:
    """Every table (and the sweep table) as ``out/<table>.parquet``."""
    os.makedirs(out, exist_ok=True)
    written = []
    for table in [META_TABLE, *ordered_tables(con)]:
        path = out / f"{table}.parquet"
        order = "" if table == META_TABLE else " ORDER BY case_id" + (
            "" if table == CASES_TABLE else ", seq"
        )
        target = str(path).replace("'", "''")
        con.execute(f"COPY (SELECT * FROM {q(table)}{order}) TO '{target}' (FORMAT PARQUET)")
        written.append(path)
    return written

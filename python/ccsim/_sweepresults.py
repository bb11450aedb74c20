"""The results of a sweep: DataFrames, SQL and mean/CI summaries from its database.

``SweepResults`` reads the DuckDB file written by ``ccsim.sweep`` (or ``ccsim sweep``);
its tables are described in docs/sweeps.md and built by ``ccsim._sweepdb``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ccsim._sweepcase import SweepError

if TYPE_CHECKING:
    import pandas as pd

    from ccsim._sweepdb import Database


def open_sweep(db: str | os.PathLike[str]) -> SweepResults:
    """The results of a sweep database written earlier (read only)."""
    import duckdb

    from ccsim import _sweepdb

    path = Path(db)
    if not path.is_file():
        what = "is a directory" if path.is_dir() else "no such file"
        raise SweepError(f"{path}: {what}; give the sweep's database file")
    database = _sweepdb.Database(path)
    try:
        with database.connect(read_only=True) as con:
            meta = _sweepdb.read_meta(con)
    except duckdb.Error as exc:
        raise SweepError(f"{path}: not a DuckDB database ({str(exc).splitlines()[0]})") from None
    if meta is None:
        raise SweepError(f"{path}: not a ccsim sweep database (no sweep table)")
    return SweepResults(database)


# Results ------------------------------------------------------------------------


class SweepResults:
    """The results of a sweep, read from its database.

    ``flows``, ``links``, ``phases``, ``phase_links``, ``intervals``,
    ``interval_links`` and ``series`` are DataFrames like those of
    :class:`ccsim.Results` with the key columns in front: ``case_id``, one column per
    swept parameter (named by its key) and ``seed``. ``cases`` has one row per case
    (status, error, overrides, wall time, ...). ``summary()`` gives the mean and a
    confidence interval across seeds; ``sql()`` runs any query on the database.
    """

    def __init__(
        self,
        database: Database,
        *,
        ran: int = 0,
        skipped: int = 0,
        failed: int = 0,
        wall_time_s: float | None = None,
    ) -> None:
        self._database = database
        self.ran = ran  # cases run and stored by the call that returned this
        self.skipped = skipped  # cases found done in the database
        self.failed = failed  # cases that failed in that call
        self.wall_time_s = wall_time_s
        with database.connect(read_only=True) as con:
            from ccsim import _sweepdb

            meta = _sweepdb.read_meta(con)
            assert meta is not None
            self.definition: dict[str, Any] = meta["definition"]
            self.format: int = meta["format"]
            self._param_columns: list[str] = meta["param_columns"]
            self.scenario_source: str = meta["scenario_source"]
            self.counts: dict[str, int] = _sweepdb.case_counts(con)

    @property
    def path(self) -> Path | None:
        """The database file (None for an in-memory sweep)."""
        return self._database.path

    @property
    def params(self) -> list[str]:
        """The swept parameters, as their columns are named: the key, or ``KEY_UNIT``
        for numbers with units (``links.bottleneck.buffer_pkt``; files of sweep format 1
        keep those as text under the key)."""
        return list(self._param_columns)

    @property
    def key_columns(self) -> list[str]:
        return ["case_id", *self.params, "seed"]

    def __repr__(self) -> str:
        where = self.path if self.path is not None else "memory"
        counts = ", ".join(f"{n} {status}" for status, n in sorted(self.counts.items()))
        return f"<ccsim.SweepResults {where}: params={self.params} cases: {counts}>"

    def _repr_html_(self) -> str:
        """The summary Jupyter shows: the database, the swept parameters and their
        values, the case counts, and per combination the mean total goodput and Jain's
        fairness index over its seeds."""
        from ccsim._html import sweep_html

        return sweep_html(self)

    @property
    def tables(self) -> list[str]:
        from ccsim import _sweepdb

        with self._database.connect(read_only=True) as con:
            return _sweepdb.ordered_tables(con)

    def sql(self, query: str, parameters: list[Any] | None = None) -> pd.DataFrame:
        """Run a SQL query on the database; return the result as a DataFrame."""
        with self._database.connect(read_only=True) as con:
            return con.execute(query, parameters or []).df()

    def table(self, name: str) -> pd.DataFrame:
        """A table in case order (rows of a case in the engine's order), without ``seq``."""
        from ccsim._sweepdb import CASES_TABLE, q

        tables = self.tables
        if name not in tables:
            raise KeyError(f"no table {name!r} (tables: {', '.join(tables)})")
        if name == CASES_TABLE:
            return self.sql(f"SELECT * FROM {CASES_TABLE} ORDER BY case_id")
        frame = self.sql(f"SELECT * FROM {q(name)} ORDER BY case_id, seq")
        return frame.drop(columns=["seq"])

    @property
    def cases(self) -> pd.DataFrame:
        return self.table("cases")

    @property
    def flows(self) -> pd.DataFrame:
        return self.table("flows")

    @property
    def links(self) -> pd.DataFrame:
        return self.table("links")

    @property
    def phases(self) -> pd.DataFrame:
        return self.table("phases")

    @property
    def phase_links(self) -> pd.DataFrame:
        return self.table("phase_links")

    @property
    def intervals(self) -> pd.DataFrame:
        return self.table("intervals")

    @property
    def interval_links(self) -> pd.DataFrame:
        return self.table("interval_links")

    @property
    def series(self) -> pd.DataFrame:
        return self.table("series")

    def summary(
        self,
        metric: str,
        table: str = "flows",
        by: list[str] | None = None,
        level: float = 0.95,
    ) -> pd.DataFrame:
        """Mean of ``metric`` across seeds with a Student t confidence interval.

        Groups by ``by`` (default: the swept parameters plus, where the table has them,
        ``phase`` and ``name``), one row per group in case order, columns: the group
        columns, ``n`` (non-null values), ``mean``, ``std`` (sample standard deviation),
        ``ci_low``, ``ci_high`` and ``half_width`` = t((1+level)/2, n-1) std / sqrt(n)
        (NaN when n < 2).
        """
        _check_level(level)
        frame = self.table(table)
        if table == "cases":
            frame = frame[frame["status"] == "done"]
        if metric not in frame.columns:
            known = ", ".join(frame.columns)
            raise KeyError(f"no column {metric!r} in {table} (columns: {known})")
        if by is None:
            by = [*self.params, *(c for c in ("phase", "name") if c in frame.columns)]
        missing = [c for c in by if c not in frame.columns]
        if missing:
            raise KeyError(f"no column {missing[0]!r} in {table} to group by")
        return mean_ci(frame, metric, by, level)

    def fct(self) -> pd.DataFrame:
        """The finite window flows of every case (rows with ``size_bytes``): the key
        columns, then the columns of :meth:`ccsim.Results.fct`."""
        from ccsim._fct import FCT_COLUMNS

        flows = self.flows
        keys = [c for c in self.key_columns if c in flows.columns]
        if "size_bytes" not in flows.columns:
            return flows.iloc[0:0][keys].reindex(columns=[*keys, *FCT_COLUMNS])
        finite = flows[flows["size_bytes"].notna()]
        return finite[[*keys, *FCT_COLUMNS]].reset_index(drop=True)

    def fct_summary(
        self,
        buckets: Sequence[float] | None = None,
        by: list[str] | None = None,
        level: float = 0.95,
    ) -> pd.DataFrame:
        """FCT and slowdown percentiles by size bucket, their mean across seeds and a
        Student t confidence interval, as :meth:`summary` computes them.

        Each case (parameter values and seed) gives one number per bucket and statistic
        of :meth:`ccsim.Results.fct_summary` (``fct_mean``, ``fct_p50``, ``fct_p95``,
        ``fct_p99``, ``slowdown_mean``, ... over its completed flows); those numbers are
        then averaged over the seeds of each group of ``by`` (default: the swept
        parameters). One row per group, bucket and statistic, columns: the group
        columns, ``bucket``, ``stat``, ``flows`` and ``completed`` (finite flows and
        completed ones, summed over the group's cases), then ``n`` (cases with a value:
        a case with no completed flow in a bucket has none), ``mean``, ``std``,
        ``ci_low``, ``ci_high``, ``half_width``. ``buckets``: the edges in bytes
        (default 0, 100 kB, 1 MB, 10 MB, inf). Empty when no case has finite flows.
        """
        import pandas as pd

        from ccsim._fct import DEFAULT_EDGES, check_edges, fct_summary

        _check_level(level)
        edges = check_edges(DEFAULT_EDGES if buckets is None else buckets)
        by = list(self.params) if by is None else list(by)
        fct = self.fct()
        missing = [c for c in by if c not in fct.columns]
        if missing:
            raise KeyError(f"no column {missing[0]!r} in the flows table to group by")
        columns = [*by, "bucket", "stat", "flows", "completed", "n", "mean", "std",
                   "ci_low", "ci_high", "half_width"]  # fmt: skip
        if fct.empty:
            return pd.DataFrame(columns=columns)
        # One row per case, bucket and statistic, in case order.
        rows = []
        for _, flows in fct.groupby("case_id", sort=True):
            keys = {c: flows[c].iloc[0] for c in by}
            table = fct_summary(flows, edges)
            stats = [c for c in table.columns if c not in ("bucket", "flows", "completed")]
            for record in table.to_dict("records"):
                for stat in stats:
                    rows.append({**keys, "bucket": record["bucket"], "stat": stat,
                                 "flows": record["flows"], "completed": record["completed"],
                                 "value": record[stat]})  # fmt: skip
        long = pd.DataFrame(rows)
        group = [*by, "bucket", "stat"]
        out = mean_ci(long, "value", group, level)
        counts = long.groupby(group, sort=False, dropna=False)[["flows", "completed"]].sum()
        out = out.merge(counts.reset_index(), on=group, how="left", sort=False)
        return out[columns]

    def to_parquet(self, out: str | os.PathLike[str]) -> list[Path]:
        """Write every table as ``out/<table>.parquet`` (DuckDB's COPY); return the files."""
        from ccsim import _sweepdb

        path = Path(out)
        if path.exists() and not path.is_dir():
            raise SweepError(f"{path}: is a file; give a directory for the Parquet files")
        with self._database.connect(read_only=True) as con:
            return _sweepdb.export_parquet(con, path)


# Means and confidence intervals --------------------------------------------------


def _check_level(level: float) -> None:
    if not 0 < level < 1:
        raise ValueError(f"level {level!r}: give a confidence level in (0, 1), e.g. 0.95")


def mean_ci(frame: pd.DataFrame, metric: str, by: list[str], level: float) -> pd.DataFrame:
    """Per group of ``by`` (in order of first appearance; all rows when empty): ``n``
    (non-null values of ``metric``), ``mean``, ``std`` (sample standard deviation),
    ``ci_low``, ``ci_high`` and ``half_width`` = t((1+level)/2, n-1) std / sqrt(n), NaN
    when n < 2 (Student t interval of the mean)."""
    import numpy as np

    values = frame[metric].astype(float)
    if by:
        groups = values.groupby([frame[c] for c in by], sort=False, dropna=False)
        out = groups.agg(["count", "mean", "std"]).reset_index()
    else:
        out = values.agg(["count", "mean", "std"]).to_frame().T
    out = out.rename(columns={"count": "n"})
    out["n"] = out["n"].astype(int)
    p = 0.5 + level / 2
    t = np.array([t_quantile(p, n - 1) if n >= 2 else math.nan for n in out["n"]])
    out["half_width"] = t * out["std"] / np.sqrt(out["n"].clip(lower=1))
    out["ci_low"] = out["mean"] - out["half_width"]
    out["ci_high"] = out["mean"] + out["half_width"]
    return out[[*by, "n", "mean", "std", "ci_low", "ci_high", "half_width"]]


# Student t ----------------------------------------------------------------------


def t_quantile(p: float, df: float) -> float:
    """The p-quantile of Student's t distribution with ``df`` degrees of freedom."""
    if not 0 < p < 1 or df <= 0:
        raise ValueError(f"t_quantile: need 0 < p < 1 and df > 0 (got p={p}, df={df})")
    if p < 0.5:
        return -t_quantile(1 - p, df)
    if p == 0.5:
        return 0.0
    hi = 1.0
    while _t_cdf(hi, df) < p:
        hi *= 2
    lo = 0.0
    for _ in range(200):  # bisection to machine precision
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        if _t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def _t_cdf(t: float, df: float) -> float:
    tail = 0.5 * _betainc(df / 2, 0.5, df / (df + t * t))
    return 1 - tail if t >= 0 else tail


def _betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b) (continued fraction, as in
    Numerical Recipes' betai)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1) / (a + b + 2):
        return front * _betacf(a, b, x) / a
    return 1 - front * _betacf(b, a, 1 - x) / b


def _betacf(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        for numerator in (
            m * (b - m) * x / ((a - 1 + 2 * m) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 1 + 2 * m)),
        ):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1) < 1e-16:
            break
    return h

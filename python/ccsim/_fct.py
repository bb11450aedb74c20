"""Flow completion times of finite window flows (``size``): the per-flow table and
percentiles by size bucket.

The engine gives each finite flow ``size_bytes``, ``completed``, ``fct_s`` (its start,
jitter included, to the ack of its last packet), ``ideal_fct_s`` (its data at the
slowest rate of its path plus the base round trip; crates/ccsim-engine/src/results/
mod.rs, ``ideal_fct``) and ``slowdown`` (their ratio). Size buckets follow the
datacenter literature's usual split (pFabric, HPCC): by default 0-100 kB, 100 kB-1 MB,
1-10 MB and above 10 MB (decimal units, as the scenario format's).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

# Bucket edges in bytes: a flow of size s is in the bucket [lo, hi) with lo <= s < hi.
DEFAULT_EDGES: tuple[float, ...] = (0, 100e3, 1e6, 10e6, float("inf"))
FCT_COLUMNS = ["name", "from", "to", "size_bytes", "completed", "fct_s", "ideal_fct_s", "slowdown"]
QUANTILES = (0.5, 0.95, 0.99)


def fct_table(flows: pd.DataFrame) -> pd.DataFrame:
    """The finite flows of a flows table (rows with ``size_bytes``), FCT columns only."""
    import pandas as pd

    if "size_bytes" not in flows.columns:
        return pd.DataFrame(columns=FCT_COLUMNS)
    finite = flows[flows["size_bytes"].notna()]
    return finite[FCT_COLUMNS].reset_index(drop=True)


def size_text(b: float) -> str:
    """Bytes in the scenario format's decimal units: 100000 -> "100kB"."""
    if b >= 1e9:
        return f"{b / 1e9:g}GB"
    if b >= 1e6:
        return f"{b / 1e6:g}MB"
    if b >= 1e3:
        return f"{b / 1e3:g}kB"
    return f"{b:g}B"


def _label(lo: float, hi: float) -> str:
    return f"{size_text(lo)}+" if hi == float("inf") else f"{size_text(lo)}-{size_text(hi)}"


def check_edges(edges: Sequence[float]) -> list[float]:
    """Bucket edges as floats, checked: at least two, strictly increasing, from >= 0."""
    e = [float(x) for x in edges]
    if len(e) < 2:
        raise ValueError(f"buckets: {list(edges)} needs at least two edges, e.g. [0, 1e5, 1e6, inf]")
    if e[0] < 0 or any(b <= a for a, b in zip(e, e[1:], strict=False)):
        raise ValueError(f"buckets: {list(edges)} must be increasing sizes in bytes from 0, e.g. [0, 1e5, 1e6, inf]")
    return e


def by_bucket(fct: pd.DataFrame, edges: Sequence[float]) -> list[tuple[str, pd.DataFrame]]:
    """The rows of ``fct`` in each size bucket [lo, hi) of ``edges`` (checked), with the
    bucket's label ("0B-100kB", ..., "10MB+")."""
    e = check_edges(edges)
    return [
        (_label(lo, hi), fct[(fct["size_bytes"] >= lo) & (fct["size_bytes"] < hi)])
        for lo, hi in zip(e, e[1:], strict=False)
    ]


def fct_summary(fct: pd.DataFrame, edges: Sequence[float] = DEFAULT_EDGES) -> pd.DataFrame:
    """Per size bucket: flows, completed, mean/p50/p95/p99 of the FCT and of the
    slowdown over the completed flows (NaN where none completed)."""
    import numpy as np
    import pandas as pd

    rows = []
    for label, b in by_bucket(fct, edges):
        done = b[b["completed"].astype(bool)]
        row: dict[str, object] = {"bucket": label, "flows": len(b), "completed": len(done)}
        for col, name in (("fct_s", "fct"), ("slowdown", "slowdown")):
            v = done[col].to_numpy(dtype=float)
            row[f"{name}_mean"] = float(v.mean()) if len(v) else np.nan
            for q in QUANTILES:
                row[f"{name}_p{round(q * 100)}"] = float(np.quantile(v, q)) if len(v) else np.nan
        rows.append(row)
    return pd.DataFrame(rows)

"""Statistics the reproductions report, computed alike on every machine.

``np.corrcoef`` sums its products with the BLAS dot product, whose kernel (and so the
order of its additions, and the last bits of the result) each processor chooses: the
regression snapshots of two reproductions moved in their last digit between two
machines of the same kind. Here every sum is correctly rounded (``math.fsum``), and the
element-wise steps are single IEEE operations, so the value is the same everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Iterable


def pearson(x: Iterable[float], y: Iterable[float]) -> float:
    """Pearson's correlation coefficient of two equally long samples; NaN when either
    has fewer than two values or no spread."""
    import numpy as np

    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"pearson: samples of shapes {a.shape} and {b.shape}; two equally long 1-D samples needed")
    n = len(a)
    if n < 2:
        return math.nan
    da = a - math.fsum(a.tolist()) / n
    db = b - math.fsum(b.tolist()) / n
    saa, sbb = math.fsum((da * da).tolist()), math.fsum((db * db).tolist())
    if saa == 0.0 or sbb == 0.0:
        return math.nan
    r = math.fsum((da * db).tolist()) / math.sqrt(saa * sbb)
    return max(-1.0, min(1.0, r))

"""The reproductions' correlation (``ccsim.reproduce._stats.pearson``): hand-computed
values, and the property it exists for, a value that does not depend on the order in
which a machine's kernels would add the terms."""

from __future__ import annotations

import math

import numpy as np
import pytest
from ccsim.reproduce._stats import pearson


def test_a_hand_computed_sample():
    # x - 2.5 = (-1.5, -0.5, 0.5, 1.5); y - 5.125 = (-3.125, -1.125, 0.875, 3.375):
    # sum of products 10.75, sums of squares 5 and 23.1875.
    assert pearson([1, 2, 3, 4], [2, 4, 6, 8.5]) == 10.75 / math.sqrt(5 * 23.1875)


def test_perfect_and_absent_correlation():
    assert pearson([1, 2, 3], [10, 20, 30]) == 1.0
    assert pearson([1, 2, 3], [3, 2, 1]) == -1.0
    assert pearson([1, -1, 1, -1], [1, 1, -1, -1]) == 0.0


def test_no_spread_or_too_few_values_give_nan():
    assert math.isnan(pearson([1, 1, 1], [1, 2, 3]))
    assert math.isnan(pearson([1, 2, 3], [5, 5, 5]))
    assert math.isnan(pearson([1], [2]))


def test_samples_of_different_lengths_are_an_error_naming_both_shapes():
    with pytest.raises(ValueError, match=r"\(3,\) and \(2,\)"):
        pearson([1, 2, 3], [1, 2])


def test_the_value_does_not_depend_on_the_order_of_the_samples():
    # Every sum is correctly rounded, so no order of addition (a BLAS kernel's, a
    # permutation's) moves a bit.
    rng = np.random.default_rng(7)
    x = rng.lognormal(size=20_000) * 1e6
    y = x * 0.3 + rng.normal(size=20_000) * 1e5
    r = pearson(x, y)
    for seed in range(5):
        p = np.random.default_rng(seed).permutation(len(x))
        assert pearson(x[p], y[p]) == r
    assert pearson(y, x) == r
    assert abs(r - np.corrcoef(x, y)[0, 1]) < 1e-12

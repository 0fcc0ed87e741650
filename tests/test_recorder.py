"""The latency histogram's percentiles: within its bucket resolution of the exact sample
percentile, and the same whether read one at a time or together (as a run's results read them)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from iosim.engine.recorder import LogHist

QS = (0.01, 1, 50, 90, 95, 99, 99.9, 99.99, 100)


def _filled(values) -> LogHist:
    h = LogHist()
    for v in values:
        h.add(float(v))
    return h


@pytest.mark.parametrize("values", [
    np.random.default_rng(1).lognormal(np.log(0.3e-3), 1.2, 20_000),  # 0.3 ms, a long tail
    np.random.default_rng(2).exponential(5e-6, 5_000),  # microseconds
    np.array([2e-3] * 10 + [7e-3]),  # ties and a lone maximum
])
def test_a_percentile_is_within_half_a_bucket_of_the_exact_one(values):
    h = _filled(values)
    for q in QS:
        exact = float(np.percentile(values, q, method="inverted_cdf"))
        # a bucket spans 1/64 of its power of two: its midpoint is within 1/128 of any value in it
        assert h.percentile(q) == pytest.approx(exact, rel=1 / 128), q


def test_percentiles_together_equal_each_alone():
    h = _filled(np.random.default_rng(3).lognormal(np.log(1e-3), 0.8, 3_000))
    assert h.percentiles(QS) == [h.percentile(q) for q in QS]
    assert all(isinstance(v, float) for v in h.percentiles(QS))
    assert all(math.isnan(v) for v in LogHist().percentiles(QS))


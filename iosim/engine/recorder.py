"""Streaming statistics with bounded memory, whatever the run length.

* :class:`LogHist`: log-linear latency histogram (64 linear sub-buckets per power of two, like
  HdrHistogram or fio's latency buckets), so a percentile read from it is within 0.8 % of the
  exact sample percentile. The mean is kept exactly.
* :class:`TimeAvg`: the time-average of a piecewise-constant level (queue length, busy units),
  optionally with the time spent at each level (the achieved queue-depth distribution) and the
  time the level was above zero (iostat's %util).
* :class:`Batches`: batch means over completions, for 95 % confidence half-widths of a single run.

Everything resets at the end of warm-up (``start``), so statistics cover the measured window.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import math

import numpy as np

__all__ = ["LogHist", "TimeAvg", "Batches", "SUB_BUCKETS", "DEFAULT_BATCHES", "ci95_halfwidth",
           "batches_for", "fixed_batch_size"]

SUB_BUCKETS = 64
# Ten batches: with fewer, longer batches the batch means are closer to independent and
# normal, and the intervals covered 94-95 % in tests/test_ci_coverage.py (twenty covered 92-93 %).
DEFAULT_BATCHES = 10
_OCTAVES = 64  # 1 ns .. 2^63 ns covers any time a storage run can produce
_NBINS = _OCTAVES * SUB_BUCKETS


def bucket_index(value_s: float) -> int:
    v = value_s * 1e9
    if v < 1.0:
        return 0
    m, e = math.frexp(v)  # v = m * 2**e, 0.5 <= m < 1
    idx = (e - 1) * SUB_BUCKETS + int((2.0 * m - 1.0) * SUB_BUCKETS)
    return min(idx, _NBINS - 1)


def bucket_mid_s(idx: np.ndarray | int) -> np.ndarray:
    idx = np.asarray(idx)
    octave, sub = np.divmod(idx, SUB_BUCKETS)
    low = np.ldexp(1.0 + sub / SUB_BUCKETS, octave)
    high = np.ldexp(1.0 + (sub + 1) / SUB_BUCKETS, octave)
    return np.where(idx == 0, 0.5, (low + high) / 2) * 1e-9


class LogHist:
    """Counts of values in log-linear buckets, plus the exact count, sum, min and max."""

    __slots__ = ("counts", "n", "total", "min", "max")

    def __init__(self):
        self.counts = np.zeros(_NBINS, dtype=np.int64)
        self.reset()

    def reset(self):
        self.counts[:] = 0
        self.n = 0
        self.total = 0.0
        self.min = math.inf
        self.max = 0.0

    def add(self, value_s: float) -> None:
        self.counts[bucket_index(value_s)] += 1
        self.n += 1
        self.total += value_s
        if value_s < self.min:
            self.min = value_s
        if value_s > self.max:
            self.max = value_s

    def merge(self, other: LogHist) -> None:
        self.counts += other.counts
        self.n += other.n
        self.total += other.total
        self.min = min(self.min, other.min)
        self.max = max(self.max, other.max)

    @property
    def mean(self) -> float:
        return self.total / self.n if self.n else math.nan

    def percentile(self, q: float) -> float:
        """The q-th percentile (0 < q <= 100), clamped to the exact min and max."""
        return self.percentiles((q,))[0]

    def percentiles(self, qs) -> list[float]:
        """The percentiles ``qs`` (each 0 < q <= 100), clamped to the exact min and max: one
        cumulative sum of the buckets serves them all (a run's results read seven)."""
        if self.n == 0:
            return [math.nan for _ in qs]
        ranks = [max(math.ceil(q / 100.0 * self.n), 1) for q in qs]
        found = np.searchsorted(np.cumsum(self.counts), ranks)
        return [min(max(float(m), self.min), self.max) for m in bucket_mid_s(found)]

    def nonzero(self) -> tuple[np.ndarray, np.ndarray]:
        """(bucket midpoints in s, counts) of the occupied buckets."""
        idx = np.flatnonzero(self.counts)
        return bucket_mid_s(idx), self.counts[idx]


class TimeAvg:
    """Time-weighted statistics of an integer level that changes by steps."""

    __slots__ = ("level", "t_last", "t0", "area", "busy", "hist", "track_hist")

    def __init__(self, track_hist: bool = False):
        self.level = 0
        self.t_last = 0.0
        self.t0 = 0.0
        self.area = 0.0
        self.busy = 0.0  # time with level > 0
        self.track_hist = track_hist
        self.hist = np.zeros(64) if track_hist else None

    def change(self, t: float, delta: int) -> None:
        dt = t - self.t_last
        if dt > 0:
            lvl = self.level
            self.area += lvl * dt
            if lvl > 0:
                self.busy += dt
            if self.track_hist:
                if lvl >= len(self.hist):
                    self.hist = np.concatenate(
                        [self.hist, np.zeros(max(lvl + 1, 2 * len(self.hist)) - len(self.hist))]
                    )
                self.hist[lvl] += dt
            self.t_last = t
        self.level += delta

    def start(self, t: float) -> None:
        self.change(t, 0)
        self.t0 = t
        self.area = 0.0
        self.busy = 0.0
        if self.track_hist:
            self.hist[:] = 0.0

    def close(self, t: float) -> None:
        self.change(t, 0)

    def mean(self, t: float) -> float:
        span = t - self.t0
        return self.area / span if span > 0 else math.nan

    def busy_fraction(self, t: float) -> float:
        span = t - self.t0
        return self.busy / span if span > 0 else math.nan

    def distribution(self) -> dict[int, float]:
        """{level: fraction of time} over the measured window."""
        total = self.hist.sum()
        if total <= 0:
            return {}
        return {int(i): float(v / total) for i, v in enumerate(self.hist) if v > 0}


@functools.lru_cache(maxsize=64)
def _t975(dof: int) -> float:
    from scipy import stats  # imported on first use: keeps a new process's start-up short

    return float(stats.t.ppf(0.975, dof))


def ci95_halfwidth(values: np.ndarray) -> float:
    """Student-t 95 % half-width of the mean of independent values."""
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    n = len(values)
    if n < 2:
        return math.nan
    return float(_t975(n - 1) * values.std(ddof=1) / math.sqrt(n))


class Batches:
    """Batch means over the measured completions (in completion order).

    With the run length known in advance, the measured completions are cut into ``nbatch``
    equal batches (ten by default); each batch gives a mean latency and a throughput (its
    completions over its duration). Batches long compared with the system's memory are close
    to independent, so the Student-t interval of their means is the run's confidence interval.
    """

    def __init__(self, total: int, nbatch: int = DEFAULT_BATCHES):
        self.nbatch = max(1, min(nbatch, total))
        self.size = max(1, total // self.nbatch)
        self.sums = np.zeros(self.nbatch)
        self.counts = np.zeros(self.nbatch, dtype=np.int64)
        self.t_end = np.zeros(self.nbatch)
        # one small histogram per batch, for confidence intervals of percentiles (sectioning)
        self.hists = np.zeros((self.nbatch, _NBINS), dtype=np.int32)
        self._cum = None
        self.t_start = 0.0
        self.k = 0

    def start(self, t: float) -> None:
        self.t_start = t
        self.k = 0
        self.sums[:] = 0
        self.counts[:] = 0
        self.hists[:] = 0
        self._cum = None

    def add(self, t: float, latency_s: float) -> None:
        b = min(self.k // self.size, self.nbatch - 1)
        self.sums[b] += latency_s
        self.hists[b, bucket_index(latency_s)] += 1
        self._cum = None
        self.counts[b] += 1
        self.t_end[b] = t
        self.k += 1

    def latency_ci95(self) -> float:
        ok = self.counts > 0
        return ci95_halfwidth(self.sums[ok] / self.counts[ok])

    def throughput_ci95(self) -> float:
        ok = self.counts > 0
        ends = self.t_end[ok]
        starts = np.concatenate([[self.t_start], ends[:-1]])
        dur = ends - starts
        good = dur > 0
        return ci95_halfwidth(self.counts[ok][good] / dur[good])

    def percentile_ci95(self, q: float, min_tail: int = 10) -> float:
        """Half-width for the q-th percentile by sectioning: the spread of the batches'
        percentiles around the whole run's. NaN when a batch holds fewer than ``min_tail``
        samples beyond the percentile (a batch percentile would then be mostly noise)."""
        ok = self.counts > 0
        if ok.sum() < 2 or self.counts[ok].min() * (1 - q / 100.0) < min_tail:
            return math.nan
        if self._cum is None:  # one cumulative sum per run serves every percentile
            self._cum = np.cumsum(self.hists[self.counts > 0], axis=1)
        cum = self._cum
        ranks = np.maximum(np.ceil(q / 100.0 * self.counts[ok]), 1)
        idx = np.array([np.searchsorted(c, r) for c, r in zip(cum, ranks, strict=True)])
        return ci95_halfwidth(bucket_mid_s(idx))


# The batch size a run's Batches use instead of DEFAULT_BATCHES equal batches: set only for the
# pilot run of ``simulate(precision=...)``, whose completions are wanted as means of 5 for MSER-5.
_BATCH_SIZE: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "iosim_batch_size", default=None)


def batches_for(total: int) -> Batches:
    """The Batches both engines build for a run of ``total`` measured completions: ten equal
    batches, or inside :func:`fixed_batch_size` batches of that many completions."""
    size = _BATCH_SIZE.get()
    if size is None:
        return Batches(total)
    return Batches(total, nbatch=max(1, total // size))


@contextlib.contextmanager
def fixed_batch_size(size: int):
    """Within this block, runs record their completions as batches of ``size`` (the pilot)."""
    token = _BATCH_SIZE.set(int(size))
    try:
        yield
    finally:
        _BATCH_SIZE.reset(token)

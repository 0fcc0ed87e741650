"""What a replay keeps of its requests: every one (exact) or fine histograms (bounded).

A replay's engine hands each completion (request index, issue time, simulated latency) to a
*sink* (``iosim.engine.trace_source``), and each buffered piece of the trace as it is read.

* :class:`ExactSink` keeps per request the simulated latency, the issue time, the arrival and
  the measured latency (32 bytes a request): ``iosim.replay`` then computes its windows,
  percentiles and demerit figure from the values themselves.
* :class:`BoundedSink` keeps a fixed amount whatever the trace's length: counts, sums and
  extremes, and log-spaced histograms of the latencies: over the whole run at 0.1 % relative
  bin width (:data:`FINE`, 32 k bins), and per time window at 1 % (:data:`COARSE`). A
  percentile read from a histogram is the order statistic's bin, the rank spread evenly
  (geometrically) inside it: it is off the exact value by less than one bin's width. Means
  are sums (exact but for rounding); counts, minima and maxima are exact. The only memory per
  request in flight: in open loop, the arrival time of the buffer pieces whose requests have
  not all completed, and, for a trace measured only in part, which of their requests were
  measured.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["ExactSink", "BoundedSink", "LogHistogram", "FINE", "COARSE"]

LO_S = 1e-9  # histograms start at 1 ns (anything below falls in the first bin)
DECADES = 14  # ... and span 14 decades, to 10^5 s


@dataclass(frozen=True)
class Grid:
    """Log-spaced bins: bin b holds [LO_S r^b, LO_S r^(b+1)), r = 1 + rel_width."""

    rel_width: float

    @property
    def bins(self) -> int:
        return int(math.ceil(DECADES * math.log(10) / math.log1p(self.rel_width))) + 1

    def index(self, x: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            b = np.floor(np.log(np.maximum(x, LO_S) / LO_S) / math.log1p(self.rel_width))
        return np.clip(b, 0, self.bins - 1).astype(np.int64)

    def value(self, b: np.ndarray, u: np.ndarray) -> np.ndarray:
        """The value at fraction ``u`` (0..1) through bin ``b``, geometrically."""
        return LO_S * np.exp((b + u) * math.log1p(self.rel_width))


FINE = Grid(1e-3)
COARSE = Grid(1e-2)


class LogHistogram:
    """Counts on a :class:`Grid`, with the exact count, sum, minimum and maximum."""

    def __init__(self, grid: Grid = FINE, dtype=np.int64):
        self.grid = grid
        self.counts = np.zeros(grid.bins, dtype)
        self.n = 0
        self.total = 0.0
        self.min = math.inf
        self.max = -math.inf

    def add(self, x: np.ndarray) -> None:
        if len(x) == 0:
            return
        self.counts += np.bincount(self.grid.index(x), minlength=len(self.counts)).astype(
            self.counts.dtype)
        self.n += len(x)
        self.total += float(x.sum())
        self.min = min(self.min, float(x.min()))
        self.max = max(self.max, float(x.max()))

    @property
    def mean(self) -> float:
        return self.total / self.n if self.n else math.nan

    def order_stat(self, k: np.ndarray) -> np.ndarray:
        """Estimates of the k-th smallest values (1-based ranks)."""
        k = np.asarray(k, dtype=float)
        cum = np.cumsum(self.counts, dtype=np.int64)
        b = np.searchsorted(cum, k, side="left")
        b = np.minimum(b, len(cum) - 1)
        before = cum[b] - self.counts[b]
        u = (k - before - 0.5) / np.maximum(self.counts[b], 1)
        return np.clip(self.grid.value(b, u), self.min, self.max)

    def percentile(self, q) -> np.ndarray:
        """As ``np.percentile(values, q)`` (linear between order statistics)."""
        h = (self.n - 1) * np.asarray(q, dtype=float) / 100.0
        lo = np.floor(h)
        a = self.order_stat(lo + 1)
        b = self.order_stat(np.minimum(lo + 2, self.n))
        return a + (h - lo) * (b - a)

    def quantiles(self, probs: np.ndarray) -> np.ndarray:
        """As ``replay._quantiles``: the CDF's inverse, linear between (k/n, k-th value)."""
        pos = np.asarray(probs, dtype=float) * self.n
        lo = np.clip(np.floor(pos), 1, self.n)
        hi = np.clip(lo + 1, 1, self.n)
        a, b = self.order_stat(lo), self.order_stat(hi)
        return a + np.clip(pos - lo, 0.0, 1.0) * (b - a)

    def stats(self) -> dict:
        p50, p95, p99 = (float(v) for v in self.percentile([50, 95, 99]))
        return {"mean_s": self.mean, "p50_s": p50, "p95_s": p95, "p99_s": p99}

    def cdf_points(self, points: int = 400) -> tuple[np.ndarray, np.ndarray]:
        """(latency, fraction at or below) at up to ``points`` ranks, as for sorted values."""
        if self.n == 0:
            return np.zeros(0), np.zeros(0)
        k = np.unique(np.linspace(0, self.n - 1, min(points, self.n)).round().astype(np.int64))
        return self.order_stat(k + 1), (k + 1) / self.n


class ExactSink:
    """Every request's arrival, measured and simulated latency and issue time (``n`` long)."""

    def __init__(self, n: int, measured: bool):
        self.n = n
        self.with_measured = measured
        self.reset()

    def reset(self) -> None:
        n = self.n
        self.latency_s = np.full(n, np.nan)
        self.issue_s = np.full(n, np.nan)
        self.arrival_s = np.empty(n)
        self.measured_s = np.full(n, np.nan) if self.with_measured else None

    def fed(self, start: int, piece, sl: slice) -> None:
        end = start + (sl.stop - sl.start)
        self.arrival_s[start:end] = piece.arrival_s[sl]
        if self.measured_s is not None:
            self.measured_s[start:end] = piece.latency_s[sl]

    def done(self, idx, issue_s, latency_s, t0_s) -> None:
        self.latency_s[idx] = latency_s
        self.issue_s[idx] = issue_s


class _Windows:
    """Per window of issue time (edges t0 + w window_s, as ``replay._windows`` draws them):
    count, sum, maximum and a coarse histogram, grown as later windows appear."""

    def __init__(self, window_s: float):
        self.window_s = window_s
        self.t0 = math.nan
        self.t_last = -math.inf
        self.edges = np.zeros(0)
        self.counts = np.zeros((0, COARSE.bins), np.uint32)
        self.n = np.zeros(0, np.int64)
        self.sums = np.zeros(0)
        self.mins = np.zeros(0)
        self.maxs = np.zeros(0)

    def _grow(self, nwin: int) -> None:
        old = len(self.n)
        if nwin <= old:
            return
        nwin = max(nwin, 2 * old, 64)
        self.edges = self.t0 + np.arange(nwin + 1) * self.window_s
        grow = nwin - old
        self.counts = np.concatenate([self.counts, np.zeros((grow, COARSE.bins), np.uint32)])
        self.n = np.concatenate([self.n, np.zeros(grow, np.int64)])
        self.sums = np.concatenate([self.sums, np.zeros(grow)])
        self.mins = np.concatenate([self.mins, np.full(grow, math.inf)])
        self.maxs = np.concatenate([self.maxs, np.full(grow, -math.inf)])

    def add(self, t: np.ndarray, lat: np.ndarray) -> None:
        if len(t) == 0:
            return
        self.t_last = max(self.t_last, float(t.max()))
        self._grow(int((t.max() - self.t0) // self.window_s) + 2)
        w = np.searchsorted(self.edges, t, side="right") - 1
        w = np.maximum(w, 0)
        self._grow(int(w.max()) + 2)
        lo, hi = int(w.min()), int(w.max()) + 1
        rel = w - lo
        nb = COARSE.bins
        flat = np.bincount(rel * nb + COARSE.index(lat), minlength=(hi - lo) * nb)
        self.counts[lo:hi] += flat.reshape(hi - lo, nb).astype(np.uint32)
        self.n[lo:hi] += np.bincount(rel, minlength=hi - lo)
        self.sums[lo:hi] += np.bincount(rel, weights=lat, minlength=hi - lo)
        if hi - lo <= 8:  # (a batch of completions spans a window or two)
            for k in range(hi - lo):
                sel = lat[rel == k]
                if len(sel):
                    self.mins[lo + k] = min(self.mins[lo + k], sel.min())
                    self.maxs[lo + k] = max(self.maxs[lo + k], sel.max())
        else:
            np.minimum.at(self.mins, w, lat)
            np.maximum.at(self.maxs, w, lat)

    def rows(self) -> list[dict]:
        """Per window, as ``replay._windows``: ios, iops, mean, p50, p95, p99, max."""
        if not math.isfinite(self.t_last):
            return []
        nwin = int((self.t_last - self.t0) // self.window_s) + 1
        nwin = min(nwin, len(self.n))
        rows = []
        for w in range(nwin):
            m = int(self.n[w])
            span = self.window_s
            if w == nwin - 1 and m > 1:  # the last window is partial: its own span
                span = max(min(self.window_s, float(self.t_last - self.edges[w])),
                           self.window_s / m)
            row = {"t_s": w * self.window_s, "ios": m, "iops": m / span}
            if m:
                h = LogHistogram(COARSE, np.uint32)
                h.counts, h.n, h.total = self.counts[w], m, float(self.sums[w])
                h.min, h.max = float(self.mins[w]), float(self.maxs[w])
                row.update(lat_mean_s=h.mean, lat_max_s=h.max)
                row["lat_p50_s"], row["lat_p95_s"], row["lat_p99_s"] = (
                    float(v) for v in h.percentile([50, 95, 99]))
            rows.append(row)
        return rows


class BoundedSink:
    """Histograms and windows of a replay, a fixed amount of memory (see the module docs).

    ``sim``: simulated latencies (requests from ``warmup`` on); ``sim_where_measured``: the same,
    only where the trace measured one (the comparison's sample); ``measured``: the trace's
    measured latencies; ``windows``/``measured_windows``: per window of issue time (the
    simulated issue, or arrival / speed in open loop) and of arrival / speed.
    """

    def __init__(self, *, mode: str, speed: float, warmup: int, window_s: float,
                 measured: bool):
        self.mode = mode
        self.speed = speed
        self.warmup = warmup
        self.window_s = window_s
        self.with_measured = measured
        self.reset()

    def reset(self) -> None:
        self.sim = LogHistogram()
        self.sim_where_measured = LogHistogram() if self.with_measured else None
        self.measured = LogHistogram() if self.with_measured else None
        self.windows = _Windows(self.window_s)
        self.measured_windows = _Windows(self.window_s) if self.with_measured else None
        self.pieces: dict[int, list] = {}  # start -> [arrival / speed, measured mask, left]
        self.starts = np.zeros(0, np.int64)

    def fed(self, start: int, piece, sl: slice) -> None:
        m = sl.stop - sl.start
        arr = piece.arrival_s[sl] / self.speed if self.speed != 1 else piece.arrival_s[sl]
        if start == 0:
            if self.measured_windows is not None:
                self.measured_windows.t0 = float(arr[0])
            if self.mode == "open":
                self.windows.t0 = float(arr[0])
        keep_arr = np.array(arr) if self.mode == "open" else None
        mask = None
        if self.with_measured:
            meas = np.asarray(piece.latency_s[sl], dtype=float)
            ok = np.isfinite(meas)
            skip = max(0, min(m, self.warmup - start))
            ok[:skip] = False
            self.measured.add(meas[ok])
            self.measured_windows.add(arr[ok], meas[ok])
            if not ok[skip:].all():
                mask = ok  # (a trace measured in part: which requests count)
        if self.mode == "open" or self.with_measured:  # kept until its requests complete
            self.pieces[start] = [keep_arr, mask, m]
            self.starts = np.array(sorted(self.pieces), np.int64)

    def done(self, idx, issue_s, latency_s, t0_s) -> None:
        if self.mode != "open" and not math.isfinite(self.windows.t0):
            self.windows.t0 = float(t0_s)
        issue = np.array(issue_s)  # (the engine reuses its buffers)
        measured = None
        if len(self.starts):
            measured = np.ones(len(idx), bool)
            p = np.searchsorted(self.starts, idx, side="right") - 1
            for k in np.unique(p):
                sel = p == k
                rec = self.pieces[int(self.starts[k])]
                at = idx[sel] - self.starts[k]
                if rec[0] is not None:  # open loop: the issue is the arrival / speed
                    issue[sel] = rec[0][at]
                if rec[1] is not None:
                    measured[sel] = rec[1][at]
            self._retire(p)
        lat = latency_s
        keep = idx >= self.warmup
        if not keep.all():
            issue, lat = issue[keep], lat[keep]
            measured = None if measured is None else measured[keep]
        self.sim.add(lat)
        self.windows.add(issue, lat)
        if self.sim_where_measured is not None:
            self.sim_where_measured.add(lat if measured is None else lat[measured])

    def _retire(self, p: np.ndarray) -> None:
        """Forget the pieces whose requests have all completed."""
        gone = False
        for start, c in zip(*np.unique(p, return_counts=True), strict=True):
            key = int(self.starts[start])
            rec = self.pieces[key]
            rec[2] -= int(c)
            if rec[2] <= 0:
                del self.pieces[key]
                gone = True
        if gone:
            self.starts = np.array(sorted(self.pieces), np.int64)

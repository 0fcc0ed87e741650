"""What a block trace asks of a storage stack, in a few numbers: :func:`summarize`.

Every figure is computed from the trace's columns with NumPy (no loop over requests), so a
summary of 10^7 requests takes seconds. Definitions:

* ``iops`` = requests / duration, ``bytes_per_s`` = bytes moved / duration, where duration is
  the last arrival minus the first.
* ``sequential_fraction``: of the requests that have a predecessor on the same device, the
  fraction starting exactly where that predecessor (in arrival order) ended.
* ``interarrival_cv``: standard deviation / mean of the gaps between consecutive arrivals
  (1 for a Poisson stream, 0 for a fixed rate, > 1 for bursts).
* latency figures use the requests with a measured latency (NaN when none has one);
  percentiles are NumPy's linear interpolation.
* ``windows``: a DataFrame, one row per time window (``window_start_s``, ``requests``,
  ``iops``, ``bytes_per_s``, ``read_fraction``, ``latency_mean_s``); the window is the
  smallest of 1, 2, 5 x 10^k seconds that cuts the trace into at most 100 windows, unless given
  (the last window is usually partial, so its rate reads low).

Requests of unknown size (bpftrace biosnoop) count in requests, IOPS and inter-arrival figures
and are left out of sizes, bytes, read ratio and sequentiality.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .blocktrace import BlockTrace

__all__ = ["BlockTraceSummary", "summarize"]

TOP_SIZES = 5
MAX_WINDOWS = 100


def _nice_window(duration_s: float) -> float:
    if not duration_s > 0:
        return 1.0
    target = duration_s / MAX_WINDOWS
    exp = math.floor(math.log10(target))
    for step in (1, 2, 5, 10):
        w = step * 10.0**exp
        if w >= target * (1 - 1e-12):
            return w
    return 10.0 ** (exp + 1)


def _fmt_time(s: float) -> str:
    if not math.isfinite(s):
        return "n/a"
    if s >= 1 or s == 0:
        return f"{s:.3f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.3f} ms"
    return f"{s * 1e6:.1f} us"


def _json_clean(value):
    if isinstance(value, dict):
        return {k: _json_clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_clean(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _fmt(x: float, spec: str, suffix: str = "") -> str:
    return format(x, spec) + suffix if math.isfinite(x) else "n/a"


def _fmt_size(b: float) -> str:
    if not math.isfinite(b):
        return "n/a"
    for unit, scale in (("MiB", 1024**2), ("KiB", 1024)):
        if b >= scale:
            return f"{b / scale:.4g} {unit}"
    return f"{b:.0f} B"


@dataclass(frozen=True, eq=False)
class BlockTraceSummary:
    """The workload a block trace describes (see the module documentation for definitions)."""

    source: str
    format: str
    requests: int
    duration_s: float
    iops: float
    bytes_per_s: float
    read_fraction: float
    size_mean_bytes: float
    top_sizes: tuple  # ((size_bytes, share of requests), ...), most common first
    sequential_fraction: float
    interarrival_mean_s: float
    interarrival_cv: float
    latency_count: int
    latency_mean_s: float
    latency_p50_s: float
    latency_p95_s: float
    latency_p99_s: float
    devices: tuple
    window_s: float
    windows: pd.DataFrame = field(repr=False)
    warnings: tuple = ()

    def to_dict(self) -> dict:
        """Plain JSON-ready values: unknown numbers (NaN) become None, as in
        ``Results.to_dict``; windows are a list of row dicts."""
        out = {}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if isinstance(value, pd.DataFrame):
                value = value.to_dict(orient="records")
            elif name == "top_sizes":
                value = [{"size_bytes": s, "share": f} for s, f in value]
            elif isinstance(value, tuple):
                value = list(value)
            out[name] = _json_clean(value)
        return out

    def __str__(self) -> str:
        sizes = ", ".join(f"{_fmt_size(s)} {f:.1%}" for s, f in self.top_sizes)
        rows = [
            ("requests", f"{self.requests:,}"),
            ("duration", _fmt_time(self.duration_s)),
            ("IOPS", _fmt(self.iops, ",.1f")),
            ("throughput", _fmt(self.bytes_per_s / 1e6, ",.3f", " MB/s")),
            ("read fraction", _fmt(self.read_fraction, ".3f")),
            ("size mean", _fmt_size(self.size_mean_bytes)),
            ("top sizes", sizes or "n/a"),
            ("sequential", _fmt(self.sequential_fraction, ".1%")),
            ("inter-arrival", f"mean {_fmt_time(self.interarrival_mean_s)}, "
                              f"CV {_fmt(self.interarrival_cv, '.2f')}"),
        ]
        if self.latency_count:
            rows.append(("latency (measured)",
                         f"mean {_fmt_time(self.latency_mean_s)}, p50 "
                         f"{_fmt_time(self.latency_p50_s)}, p95 {_fmt_time(self.latency_p95_s)}"
                         f", p99 {_fmt_time(self.latency_p99_s)} ({self.latency_count:,} "
                         "requests)"))
        else:
            rows.append(("latency (measured)", "none in the trace"))
        shown = ", ".join(self.devices[:8]) + (" ..." if len(self.devices) > 8 else "")
        rows.append(("devices", f"{len(self.devices)}: {shown}"))
        w = self.windows
        if len(w):
            rows.append((f"IOPS per {_fmt_time(self.window_s)}",
                         f"min {w['iops'].min():,.1f}, median {w['iops'].median():,.1f}, "
                         f"max {w['iops'].max():,.1f} over {len(w)} windows"))
        head = f"Block trace {self.source or '<memory>'} ({self.format or 'unknown format'})"
        width = max(len(k) for k, _ in rows)
        lines = [head] + [f"  {k:<{width}}  {v}" for k, v in rows]
        lines += [f"  warning: {x}" for x in self.warnings]
        return "\n".join(lines)


def _sequential_fraction(trace: BlockTrace, known: np.ndarray) -> float:
    dev = trace.device[known]
    off = trace.offset_bytes[known]
    end = off + trace.size_bytes[known]
    order = np.argsort(dev, kind="stable")  # arrival order kept within each device
    dev, off, end = dev[order], off[order], end[order]
    same = dev[1:] == dev[:-1]
    if not same.any():
        return math.nan
    return float(np.mean(off[1:][same] == end[:-1][same]))


def _windows(trace: BlockTrace, window_s: float, known: np.ndarray) -> pd.DataFrame:
    t = trace.arrival_s - (trace.arrival_s[0] if len(trace) else 0.0)
    idx = np.floor(t / window_s).astype(np.int64) if len(t) else np.zeros(0, np.int64)
    n = int(idx.max()) + 1 if len(idx) else 0
    count = np.bincount(idx, minlength=n)
    size = np.where(known, trace.size_bytes, 0.0)
    nbytes = np.bincount(idx, weights=size, minlength=n)
    reads = np.bincount(idx, weights=(trace.is_read & known).astype(float), minlength=n)
    nknown = np.bincount(idx, weights=known.astype(float), minlength=n)
    lat = trace.latency_s
    has = np.isfinite(lat)
    lat_sum = np.bincount(idx, weights=np.where(has, lat, 0.0), minlength=n)
    lat_n = np.bincount(idx, weights=has.astype(float), minlength=n)
    with np.errstate(invalid="ignore", divide="ignore"):
        return pd.DataFrame({
            "window_start_s": np.arange(n) * window_s,
            "requests": count,
            "iops": count / window_s,
            "bytes_per_s": nbytes / window_s,
            "read_fraction": np.where(nknown > 0, reads / nknown, np.nan),
            "latency_mean_s": np.where(lat_n > 0, lat_sum / np.maximum(lat_n, 1), np.nan),
        })


def summarize(trace: BlockTrace, window_s: float | None = None) -> BlockTraceSummary:
    """The summary of ``trace``; ``window_s`` sets the IOPS window (default: see module)."""
    n = len(trace)
    known = np.isfinite(trace.size_bytes)
    sizes = trace.size_bytes[known]
    duration = trace.duration_s
    if window_s is None:
        window_s = _nice_window(duration)
    elif not window_s > 0:
        raise ValueError(f"window_s must be > 0, got {window_s}")
    top: tuple = ()
    if len(sizes):
        values, counts = np.unique(sizes, return_counts=True)
        order = np.argsort(-counts, kind="stable")[:TOP_SIZES]
        top = tuple((float(values[i]), float(counts[i] / len(sizes))) for i in order)
    gaps = np.diff(trace.arrival_s)
    gap_mean = float(gaps.mean()) if len(gaps) else math.nan
    gap_cv = float(gaps.std() / gap_mean) if len(gaps) and gap_mean > 0 else math.nan
    lat = trace.latency_s[np.isfinite(trace.latency_s)]
    pct = np.percentile(lat, [50, 95, 99]) if len(lat) else [math.nan] * 3
    rate = (lambda x: x / duration) if duration > 0 else (lambda x: math.nan)
    names = [trace.device_names.get(int(d), str(int(d))) for d in np.unique(trace.device)]
    return BlockTraceSummary(
        source=trace.source,
        format=trace.format,
        requests=n,
        duration_s=duration,
        iops=rate(n),
        bytes_per_s=rate(float(sizes.sum())) if len(sizes) else math.nan,
        read_fraction=float(trace.is_read[known].mean()) if len(sizes) else math.nan,
        size_mean_bytes=float(sizes.mean()) if len(sizes) else math.nan,
        top_sizes=top,
        sequential_fraction=_sequential_fraction(trace, known),
        interarrival_mean_s=gap_mean,
        interarrival_cv=gap_cv,
        latency_count=int(len(lat)),
        latency_mean_s=float(lat.mean()) if len(lat) else math.nan,
        latency_p50_s=float(pct[0]),
        latency_p95_s=float(pct[1]),
        latency_p99_s=float(pct[2]),
        devices=tuple(names),
        window_s=float(window_s),
        windows=_windows(trace, window_s, known),
        warnings=tuple(trace.warnings),
    )

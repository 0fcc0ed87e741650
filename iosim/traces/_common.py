"""Shared machinery of the trace parsers: bounded file reading, number parsing, and the
combination of per-direction statistics into one :class:`~iosim.results.Results`.

Everything that leaves this package is SI (seconds, bytes, bytes/s, I/O per second, util as a
fraction); conversions happen here or in the parser at the point where a value is read.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from .. import limits
from .errors import TraceFormatError

MAX_BYTES = 256 * 1024**2  # refuse bigger files: every format here is a few MB at most

_LINE_SPLIT = re.compile(r"\r\n|\r|\n")

# fio-style percentiles -> Results field names
PCT_FIELDS = {
    50.0: "lat_p50_s",
    90.0: "lat_p90_s",
    95.0: "lat_p95_s",
    99.0: "lat_p99_s",
    99.9: "lat_p999_s",
    99.99: "lat_p9999_s",
}


def read_bytes(path: str | os.PathLike, max_bytes: int | None = None,
               head: int | None = None) -> bytes:
    """The file's bytes (only the first ``head`` if given), refusing before reading anything
    larger than ``max_bytes`` (default :data:`MAX_BYTES`), anything that is not a regular file
    (a FIFO would block forever) and symlink loops, each as a :class:`TraceFormatError`."""
    if max_bytes is None:
        max_bytes = MAX_BYTES

    def error(where: str, reason: str) -> TraceFormatError:
        if reason.startswith("file is "):
            reason += "; split or summarise it first"
        return TraceFormatError(where, None, reason)

    return limits.read_bytes(path, max_bytes, what="a trace", error=error, head=head)


def decode(data: bytes, path: str | os.PathLike) -> str:
    """UTF-8 (a BOM is dropped), falling back to Latin-1 for legacy captures; NUL bytes mean the
    file is binary and are refused."""
    for magic, name, tool in ((b"\x1f\x8b", "gzip", "gunzip -k"), (b"BZh", "bzip2", "bunzip2 -k"),
                              (b"\xfd7zXZ\x00", "xz", "unxz -k")):
        if data.startswith(magic):
            raise TraceFormatError(path, None, f"{name}-compressed: results and logs are read as "
                                   f"plain text; decompress it first ({tool} FILE). (iosim "
                                   "replay reads a compressed block trace as it is)")
    if b"\x00" in data[:65536]:
        raise TraceFormatError(path, None, "binary data (NUL bytes): not a text trace")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def read_text(path: str | os.PathLike, max_bytes: int | None = None) -> str:
    return decode(read_bytes(path, max_bytes), path)


def split_lines(text: str) -> list[str]:
    """Lines without their ends; LF, CRLF and lone CR all end a line (only those: unlike
    ``str.splitlines`` a form feed inside a line stays)."""
    lines = _LINE_SPLIT.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def line_at(text: str, offset: int) -> int:
    """1-based line number of a character offset."""
    return text.count("\n", 0, max(0, offset)) + 1


def num(value: str, path, line: int | None, what: str, nonneg: bool = False) -> float:
    """A float, or TraceFormatError naming the field; ``nonneg``: a count, rate or time, which
    no tool writes negative."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise TraceFormatError(path, line, f"{what}: expected a number, got {value!r}") from None
    if not math.isfinite(x):
        raise TraceFormatError(path, line, f"{what}: expected a finite number, got {value!r}")
    if nonneg and x < 0:
        raise TraceFormatError(path, line, f"{what}: expected a number >= 0, got {value!r}")
    return x


_SUFFIX = {"": 1.0, "k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "g": 1e9, "G": 1e9}


def num_suffixed(value: str, path, line: int | None, what: str) -> float:
    """fio's abbreviated numbers: ``1474.2K``, ``2786.3k``, ``303k`` (decimal multipliers)."""
    m = re.fullmatch(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*([kKmMgG]?)\s*", value)
    if not m:
        raise TraceFormatError(path, line, f"{what}: expected a number, got {value!r}")
    return float(m.group(1)) * _SUFFIX[m.group(2)]


def pct_key(p: float) -> str:
    """A stable text key for a percentile: 99.9 -> "99.9", 50.0 -> "50"."""
    return f"{p:.6f}".rstrip("0").rstrip(".")


def mix_quantiles(
    parts: list[tuple[float, dict[float, float]]], probs: Iterable[float]
) -> dict[float, float]:
    """Quantiles of a mixture, given each component's weight and a few of its quantiles.

    Each component's CDF is interpolated linearly between its known (value, probability)
    points; the mixture CDF is their weighted sum, inverted by interpolation. With one
    component of positive weight its own quantiles come back unchanged.
    """
    parts = [(w, q) for w, q in parts if w > 0 and q]
    probs = list(probs)
    if not parts:
        return {}
    if len(parts) == 1:
        return {p: v for p, v in parts[0][1].items() if p in probs}
    total = sum(w for w, _ in parts)
    cands = np.unique(np.concatenate([np.fromiter(q.values(), float) for _, q in parts]))
    cdf = np.zeros_like(cands)
    for w, q in parts:
        ps = np.array(sorted(q)) / 100.0
        xs = np.array([q[p] for p in sorted(q)], dtype=float)
        xs = np.maximum.accumulate(xs)
        cdf += (w / total) * np.interp(cands, xs, ps, left=0.0, right=1.0)
    out = {}
    for p in probs:
        target = p / 100.0
        idx = int(np.searchsorted(cdf, target, side="left"))
        if idx <= 0:
            out[p] = float(cands[0])
        elif idx >= len(cands):
            out[p] = float(cands[-1])
        else:
            c0, c1 = cdf[idx - 1], cdf[idx]
            frac = 0.0 if c1 <= c0 else (target - c0) / (c1 - c0)
            out[p] = float(cands[idx - 1] + frac * (cands[idx] - cands[idx - 1]))
    return out


@dataclass
class DirStats:
    """One direction (read, write, trim) of one job, already in SI units."""

    name: str
    iops: float = 0.0
    bw_Bps: float | None = None
    ios: float | None = None
    runtime_s: float | None = None
    lat_mean_s: float | None = None
    lat_max_s: float | None = None
    clat_mean_s: float | None = None
    slat_mean_s: float | None = None
    clat_pcts: dict[float, float] = field(default_factory=dict)  # percent -> seconds
    lat_pcts: dict[float, float] = field(default_factory=dict)

    @property
    def active(self) -> bool:
        return (self.ios or 0) > 0 or self.iops > 0

    @property
    def weight(self) -> float:
        """How many I/Os this direction stands for (for averaging)."""
        if self.ios:
            return float(self.ios)
        if self.runtime_s and self.iops:
            return self.iops * self.runtime_s
        return self.iops


def fill_from_dirs(res, dirs: list[DirStats], notes: dict) -> None:
    """Set throughput, mean/max/percentile latency of ``res`` from its directions.

    Means are weighted by I/O counts; percentiles of a read/write mix are mixture quantiles
    (see :func:`mix_quantiles`). ``lat_*`` prefers fio's total latency (slat + clat); when a
    tool gives only completion-latency percentiles those are used and ``extra`` says so.
    """
    active = [d for d in dirs if d.active]
    res.iops = sum(d.iops for d in dirs)
    for d in dirs:
        if d.name == "read":
            res.read_iops = d.iops
            if d.active and d.lat_mean_s is not None:
                res.read_lat_mean_s = d.lat_mean_s
        elif d.name == "write":
            res.write_iops = d.iops
            if d.active and d.lat_mean_s is not None:
                res.write_lat_mean_s = d.lat_mean_s
    bws = [d.bw_Bps for d in dirs if d.bw_Bps is not None]
    if bws:
        res.bandwidth_Bps = float(sum(bws))
    ios = [d.ios for d in dirs if d.ios is not None]
    if ios:
        res.ios = int(round(sum(ios)))
    if not active:
        return
    weights = [d.weight for d in active]
    wsum = sum(weights)
    lat = [(w, d.lat_mean_s) for w, d in zip(weights, active, strict=True)]
    if all(v is not None for _, v in lat) and wsum > 0:
        res.lat_mean_s = sum(w * v for w, v in lat) / wsum
    maxes = [d.lat_max_s for d in active if d.lat_max_s is not None]
    if maxes:
        res.lat_max_s = max(maxes)
    for attr in ("clat_mean_s", "slat_mean_s"):
        vals = [(w, getattr(d, attr)) for w, d in zip(weights, active, strict=True)]
        if all(v is not None for _, v in vals) and wsum > 0:
            notes[attr] = sum(w * v for w, v in vals) / wsum
        for d in active:
            if getattr(d, attr) is not None and len(active) > 1:
                notes[f"{d.name}_{attr}"] = getattr(d, attr)
    source = "lat" if all(d.lat_pcts for d in active) else "clat"
    parts = [
        (w, d.lat_pcts if source == "lat" else d.clat_pcts)
        for w, d in zip(weights, active, strict=True)
    ]
    if any(q for _, q in parts):
        allp = sorted({p for _, q in parts for p in q})
        mixed = mix_quantiles(parts, allp)
        for p, v in mixed.items():
            fname = PCT_FIELDS.get(round(p, 4))
            if fname:
                setattr(res, fname, v)
        notes["percentiles_s"] = {pct_key(p): v for p, v in mixed.items()}
        notes["percentiles_from"] = source
        if len([q for _, q in parts if q]) > 1:
            notes["percentiles_mixed"] = "mixture of per-direction percentiles (approximate)"


def finite_or_none(x: float | None) -> float | None:
    if x is None:
        return None
    return x if math.isfinite(x) else None


class WorkloadList(list):
    """``[(name, Workload), ...]`` plus what did not make it into the Workloads:
    ``ignored`` maps each name to the options that had no effect on its Workload (unknown or
    irrelevant to the simulator), ``notes`` to the approximations made."""

    def __init__(self, items=(), ignored=None, notes=None):
        super().__init__(items)
        self.ignored: dict[str, list[str]] = ignored or {}
        self.notes: dict[str, list[str]] = notes or {}

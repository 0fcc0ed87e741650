"""``BlockTrace``: a block-level I/O trace (one row per request), whatever tool recorded it.

Readers of blkparse, biosnoop, fio iologs, DiskSim, MSR Cambridge, SPC, Alibaba, Tencent and FIU
files return this type; ``iosim.replay`` drives a stack with it. Columns are NumPy arrays of
equal length, in SI units:

=================  =======  ===========================================================
column             dtype    meaning
=================  =======  ===========================================================
``arrival_s``      float64  when the request was issued, seconds from the trace's start
                            (non-decreasing; the reader sorts or refuses)
``offset_bytes``   float64  byte offset on the device (sector x sector size)
``size_bytes``     float64  bytes moved (> 0)
``is_read``        bool     True for a read, False for a write
``device``         int32    device number as the trace numbers it (0 when there is one)
``latency_s``      float64  measured response time of the request (NaN where unknown)
``idle_s``         float64  measured gap from this request's completion to the next issue
                            (DiskSim validate traces; NaN elsewhere)
=================  =======  ===========================================================

``device_names`` maps device numbers to the names the trace used ("8,16", "nvme0n1").
``warnings`` lists what the reader tolerated (skipped lines with their count, an inferred unit).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["BlockTrace"]

_COLUMNS = ("arrival_s", "offset_bytes", "size_bytes", "is_read", "device", "latency_s", "idle_s")
_DTYPES = {
    "arrival_s": np.float64,
    "offset_bytes": np.float64,
    "size_bytes": np.float64,
    "is_read": np.bool_,
    "device": np.int32,
    "latency_s": np.float64,
    "idle_s": np.float64,
}


@dataclass(frozen=True, eq=False)
class BlockTrace:
    """A block trace: per-request columns (see the module docstring) and where it came from."""

    arrival_s: np.ndarray
    offset_bytes: np.ndarray
    size_bytes: np.ndarray
    is_read: np.ndarray
    device: np.ndarray | None = None
    latency_s: np.ndarray | None = None
    idle_s: np.ndarray | None = None
    source: str = ""
    format: str = ""
    device_names: dict = field(default_factory=dict)
    warnings: tuple = ()

    def __post_init__(self):
        n = len(self.arrival_s)
        for name in _COLUMNS:
            value = getattr(self, name)
            if value is None:
                # an absent column is one value seen n times: no memory per request
                fill = np.array(0 if name == "device" else np.nan, dtype=_DTYPES[name])
                value = np.broadcast_to(fill, (n,))
            else:
                value = np.ascontiguousarray(value, dtype=_DTYPES[name])
            if value.shape != (n,):
                raise ValueError(f"BlockTrace.{name} has {value.shape} entries, expected ({n},)")
            value.setflags(write=False)
            object.__setattr__(self, name, value)

    def __len__(self) -> int:
        return len(self.arrival_s)

    @property
    def has_latency(self) -> bool:
        """True when the trace carries a measured latency for at least one request."""
        return bool(np.isfinite(self.latency_s).any())

    @property
    def duration_s(self) -> float:
        return float(self.arrival_s[-1] - self.arrival_s[0]) if len(self) else 0.0

    def select(self, mask_or_index) -> BlockTrace:
        """The requests a boolean mask or index array picks, in order (e.g. one device)."""
        cols = {name: getattr(self, name)[mask_or_index] for name in _COLUMNS}
        return BlockTrace(
            **cols,
            source=self.source,
            format=self.format,
            device_names=dict(self.device_names),
            warnings=self.warnings,
        )

    def head(self, n: int) -> BlockTrace:
        return self.select(slice(0, n))

    def summary(self, window_s: float | None = None):
        """Requests, duration, IOPS (overall and per time window), size mix, read fraction,
        sequentiality, inter-arrival variability and measured latency percentiles: a
        :class:`~iosim.traces.block_summary.BlockTraceSummary` (``str()`` for a table,
        ``to_dict()`` for JSON)."""
        from .block_summary import summarize

        return summarize(self, window_s)

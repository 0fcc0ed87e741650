"""A trace as the source of a run's I/Os (both engines read it the same way).

Instead of drawing each I/O's direction, size and offset from the workload's random streams,
the engine takes them, in order, from these arrays; when the I/Os are issued depends on
``mode``:

* ``"open"``: request i arrives at ``arrival_s[i] / speed`` whatever the stack does.
* ``"closed"``: the workload's job slots (``numjobs`` x ``iodepth``) issue the requests in the
  trace's order, each after the host overhead and think time as usual.
* ``"validate"``: DiskSim's validation rule, one slot: request i + 1 is issued ``gap_s[i]``
  after request i completes (the idle time recorded with the trace); the host overhead and
  think time do not apply (the recorded gap is the host's time).

Every request completes once; the run ends with the last completion. The engines write each
request's simulated latency (issue to completion) into ``latency_s`` and, outside open loop,
its issue time into ``issue_s``: 8 or 16 bytes per request, nothing else per request is kept.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["TraceSource", "TRACE_MODES"]

TRACE_MODES = ("open", "closed", "validate")
MODE_CODES = {"open": 1, "closed": 2, "validate": 3}


@dataclass(eq=False)
class TraceSource:
    """Per-request columns (SI units) that drive a run, and the arrays the run fills."""

    arrival_s: np.ndarray  # float64, used in open loop (divided by ``speed``)
    offset_bytes: np.ndarray  # float64
    size_bytes: np.ndarray  # float64, > 0
    is_read: np.ndarray  # bool
    mode: str = "open"
    speed: float = 1.0
    gap_s: np.ndarray | None = None  # float64, validate mode: idle after request i
    latency_s: np.ndarray | None = None  # filled by the run
    issue_s: np.ndarray | None = None  # filled by the run (closed and validate modes)

    def __post_init__(self):
        n = len(self.arrival_s)
        self.arrival_s = np.ascontiguousarray(self.arrival_s, dtype=np.float64)
        self.offset_bytes = np.ascontiguousarray(self.offset_bytes, dtype=np.float64)
        self.size_bytes = np.ascontiguousarray(self.size_bytes, dtype=np.float64)
        self.is_read = np.ascontiguousarray(self.is_read, dtype=np.bool_)
        if self.mode not in TRACE_MODES:
            raise ValueError(f"trace mode must be one of {', '.join(TRACE_MODES)}")
        if self.mode == "validate":
            gap = np.zeros(n) if self.gap_s is None else np.asarray(self.gap_s, dtype=float)
            self.gap_s = np.ascontiguousarray(np.where(np.isfinite(gap), gap, 0.0))
        else:
            self.gap_s = np.zeros(1)
        self.latency_s = np.full(n, np.nan)
        self.issue_s = np.full(n, np.nan) if self.mode != "open" else np.zeros(1)

    def __len__(self) -> int:
        return len(self.arrival_s)

    @property
    def mode_code(self) -> int:
        return MODE_CODES[self.mode]

    @property
    def max_size_bytes(self) -> float:
        return float(self.size_bytes.max()) if len(self) else 0.0

    def arrival_at(self, i: int) -> float:
        """When request i arrives in open loop (the one expression both engines use)."""
        return self.arrival_s[i] / self.speed

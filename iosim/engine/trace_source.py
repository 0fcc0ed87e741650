"""A trace as the source of a run's I/Os, streamed in chunks (both engines read it the same way).

Instead of drawing each I/O's direction, size and offset from the workload's random streams,
the engine takes them, in order, from the trace; when the I/Os are issued depends on ``mode``:

* ``"open"``: request i arrives at ``arrival_s[i] / speed`` whatever the stack does.
* ``"closed"``: the workload's job slots (``numjobs`` x ``iodepth``) issue the requests in the
  trace's order, each after the host overhead and think time as usual.
* ``"validate"``: DiskSim's validation rule, one slot: request i + 1 is issued ``idle_s[i]``
  after request i completes (the idle time recorded with the trace); the host overhead and
  think time do not apply (the recorded gap is the host's time).

**Streaming.** The requests come from ``chunks()``, an iterator of trace pieces of any length
(objects with ``arrival_s``, ``offset_bytes``, ``size_bytes``, ``is_read`` and, in validate
mode, ``idle_s`` arrays, such as ``BlockTrace`` slices). They are copied into fixed buffers of
``chunk_requests`` requests; an engine that has issued the last buffered request asks for the
next ones (:meth:`TraceSource.refill`; the compiled kernel does it through numba's object
mode). Completions go the other way: each request's index, issue time and simulated latency
(issue to completion) are gathered in buffers of :data:`OUT_RECORDS` and handed to ``sink`` when
full and at the end (:meth:`TraceSource.flush`). So a run holds a few buffers, whatever the
trace's length; what is kept per request is the sink's business (``iosim.replay``).

A sink has ``reset()`` (a run starts, or starts over), ``fed(start, piece, sl)`` (requests
``start``, ``start + 1``, ... are ``piece``'s rows ``sl``, now buffered) and ``done(idx,
issue_s, latency_s, t0_s)`` (completions, in completion order; ``t0_s`` is when request 0 was
issued; the arrays are reused after the call).

Every request completes once; the run ends with the last completion.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterable
from contextlib import contextmanager

import numpy as np

__all__ = ["TraceSource", "TRACE_MODES", "CHUNK_REQUESTS", "OUT_RECORDS"]

TRACE_MODES = ("open", "closed", "validate")
MODE_CODES = {"open": 1, "closed": 2, "validate": 3}
CHUNK_REQUESTS = 1 << 16  # requests per input buffer (25 bytes each)
OUT_RECORDS = 1 << 14  # completions gathered before the sink sees them (24 bytes each)

_ACTIVE = threading.local()  # per thread: the sources compiled runs read now (innermost last)


class TraceSource:
    """The requests of a trace, in order, for one run (see the module docstring)."""

    def __init__(self, chunks: Callable[[], Iterable], n: int, *, mode: str = "open",
                 speed: float = 1.0, max_size_bytes: float, sink=None,
                 chunk_requests: int | None = None, out_records: int | None = None):
        if mode not in TRACE_MODES:
            raise ValueError(f"trace mode must be one of {', '.join(TRACE_MODES)}")
        chunk_requests = CHUNK_REQUESTS if chunk_requests is None else int(chunk_requests)
        out_records = OUT_RECORDS if out_records is None else int(out_records)
        if n < 1 or chunk_requests < 1 or out_records < 1:
            raise ValueError("a trace source needs at least one request and one buffer slot")
        self.chunks = chunks
        self.n = int(n)
        self.mode = mode
        self.speed = float(speed)
        self.max_size_bytes = float(max_size_bytes)
        self.sink = sink
        c = min(chunk_requests, self.n)
        self.arrival_s = np.zeros(c)
        self.offset_bytes = np.zeros(c)
        self.size_bytes = np.zeros(c)
        self.is_read = np.zeros(c, np.bool_)
        self.gap_before_s = np.zeros(c)  # validate: the recorded idle before request i
        o = min(out_records, self.n)
        self.done_idx = np.zeros(o, np.int64)
        self.done_issue_s = np.zeros(o)
        self.done_latency_s = np.zeros(o)
        self.rewind()

    def rewind(self) -> None:
        """Start over from the first request (a fast run repeated with larger pools)."""
        self._it = iter(self.chunks())
        self._piece = None
        self._pos = 0
        self._base = 0
        self._len = 0
        self._idle_prev = 0.0
        self._nout = 0
        self.t0_s = math.nan
        if self.sink is not None:
            self.sink.reset()

    def __len__(self) -> int:
        return self.n

    @property
    def mode_code(self) -> int:
        return MODE_CODES[self.mode]

    # -- input -------------------------------------------------------------------------------
    def refill(self, start: int) -> int:
        """Buffer the requests from ``start`` (where the last fill ended) on; their count."""
        if start != self._base + self._len:
            raise RuntimeError(f"trace source: refill from {start}, expected "
                               f"{self._base + self._len}")
        want = min(len(self.arrival_s), self.n - start)
        filled = 0
        while filled < want:
            if self._piece is None or self._pos >= len(self._piece.arrival_s):
                self._piece = next(self._it, None)
                self._pos = 0
                if self._piece is None:
                    raise RuntimeError(f"trace source: the trace ended after {start + filled} "
                                       f"of {self.n} requests")
                continue
            take = min(want - filled, len(self._piece.arrival_s) - self._pos)
            self._copy(self._piece, slice(self._pos, self._pos + take), filled, take)
            if self.sink is not None:
                self.sink.fed(start + filled, self._piece, slice(self._pos, self._pos + take))
            self._pos += take
            filled += take
        self._base, self._len = start, filled
        return filled

    def _copy(self, piece, sl: slice, at: int, take: int) -> None:
        dst = slice(at, at + take)
        self.arrival_s[dst] = piece.arrival_s[sl]
        self.offset_bytes[dst] = piece.offset_bytes[sl]
        self.size_bytes[dst] = piece.size_bytes[sl]
        self.is_read[dst] = piece.is_read[sl]
        if self.mode == "validate":  # idle after request i - 1: a NaN (unrecorded) is none
            idle = np.asarray(piece.idle_s[sl], dtype=float)
            self.gap_before_s[at] = self._idle_prev
            self.gap_before_s[at + 1:at + take] = idle[:-1]
            g = self.gap_before_s[dst]
            g[~np.isfinite(g)] = 0.0
            last = float(idle[-1])
            self._idle_prev = last if math.isfinite(last) else 0.0

    def _at(self, i: int) -> int:
        """Buffer position of request i (read in order: the next buffer loads when due)."""
        j = i - self._base
        if j >= self._len:
            self.refill(self._base + self._len)
            j = i - self._base
        return j

    # the reference engine reads request by request
    def request(self, i: int) -> tuple[bool, float, float]:
        """(is_read, size_bytes, offset_bytes) of request i."""
        j = self._at(i)
        return bool(self.is_read[j]), float(self.size_bytes[j]), float(self.offset_bytes[j])

    def arrival_at(self, i: int) -> float:
        """When request i arrives in open loop (the one expression both engines use)."""
        return self.arrival_s[self._at(i)] / self.speed

    def gap_before(self, i: int) -> float:
        """Validate mode: the recorded idle time between request i - 1's completion and i."""
        return float(self.gap_before_s[self._at(i)])

    # -- output ------------------------------------------------------------------------------
    def completed(self, i: int, issue_s: float, latency_s: float) -> None:
        """Request i, issued at ``issue_s``, took ``latency_s`` (reference engine)."""
        k = self._nout
        self.done_idx[k] = i
        self.done_issue_s[k] = issue_s
        self.done_latency_s[k] = latency_s
        self._nout = k + 1
        if self._nout == len(self.done_idx):
            self.flush(self._nout, self.t0_s)

    def flush(self, m: int, t0_s: float) -> None:
        """Hand the first ``m`` gathered completions to the sink."""
        self.t0_s = t0_s
        self._nout = 0
        if self.sink is not None and m:
            self.sink.done(self.done_idx[:m], self.done_issue_s[:m], self.done_latency_s[:m],
                           t0_s)

    def finish(self) -> None:
        """The run ended: the last completions go to the sink (reference engine)."""
        self.flush(self._nout, self.t0_s)


@contextmanager
def reading(source: TraceSource | None):
    """Make ``source`` the one the compiled kernel's object-mode calls reach."""
    if source is None:
        yield
        return
    stack = _ACTIVE.__dict__.setdefault("sources", [])
    stack.append(source)
    try:
        yield
    finally:
        stack.pop()


def active_source() -> TraceSource:
    """The source the kernel running in this thread reads (see :func:`reading`)."""
    return _ACTIVE.sources[-1]


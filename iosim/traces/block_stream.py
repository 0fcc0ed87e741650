"""A block trace too long to hold: read in chunks, its facts gathered on one pass.

:class:`BlockTraceFile` reads a trace file once (:func:`~iosim.traces.block.iter_block_trace`,
so every reader's checks and warnings apply) and writes what a replay needs of each chunk
(arrival, offset, size, direction, measured latency and idle time where recorded) to a
temporary binary file: later passes (:meth:`BlockTraceFile.chunks`; each replay of a speed
search is one) read those chunks back in a fraction of the parse time. Memory holds a chunk
or two whatever the file's length; the disk (``TMPDIR``) holds 33 to 49 bytes a request until
:meth:`BlockTraceFile.close` (or the object's end). ``spill=False``, or a disk without room
for the copy (a warning says so), parses the file again on every pass instead.

:class:`TraceFacts` is what a replay checks before it runs (sizes, offsets, the furthest byte,
the time span, whether latencies and idle times were recorded, the devices, whether the writes
are random), folded over chunks: for a file while it is read, for a ``BlockTrace`` in memory
over slices of it.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import numpy as np

__all__ = ["BlockTraceFile", "TraceFacts", "trace_pieces"]

RANDOM_WRITES_HEAD = 1 << 20  # the first million requests tell whether writes are random
_FACT_CHUNK = 1 << 20


@dataclass
class TraceFacts:
    """What a replay needs to know of a whole trace before it runs it."""

    n: int = 0
    first_arrival_s: float = math.nan
    last_arrival_s: float = math.nan
    bad_size: bool = False  # some size unknown (NaN) or <= 0
    bad_offset: bool = False  # some offset unknown or < 0
    max_size_bytes: float = 0.0
    max_end_bytes: float = 0.0  # offset + size, furthest
    reads: int = 0
    measured: int = 0  # requests with a measured latency
    idle_recorded: int = 0  # requests with a recorded idle time, the last one excepted
    device_min: int = 0
    device_max: int = 0
    head_writes: int = 0  # writes among the first RANDOM_WRITES_HEAD requests ...
    head_sequential: int = 0  # ... of which start where the previous write ended
    _prev_write_end: float = math.nan
    _last_idle_ok: bool = False

    @property
    def has_latency(self) -> bool:
        return self.measured > 0

    @property
    def random_writes(self) -> bool:
        """Whether the writes are mostly random (what an SSD's steady state depends on)."""
        if self.head_writes == 0:
            return True
        return self.head_sequential < 0.5 * max(1, self.head_writes - 1)

    def add(self, piece) -> None:
        """Fold in the next rows of the trace (any object with its columns)."""
        m = len(piece.arrival_s)
        if m == 0:
            return
        arr, off, size = piece.arrival_s, piece.offset_bytes, piece.size_bytes
        if self.n == 0:
            self.first_arrival_s = float(arr[0])
            self.device_min = self.device_max = int(piece.device[0])
        self.last_arrival_s = float(arr[-1])
        self.bad_size |= not size.min() > 0  # (NaN fails too)
        self.bad_offset |= not off.min() >= 0
        self.max_size_bytes = max(self.max_size_bytes, float(size.max()))
        end = off + size
        j = int(np.argmax(end))
        self.max_end_bytes = max(self.max_end_bytes, float(off[j] + size[j]))
        del end
        self.reads += int(np.count_nonzero(piece.is_read))
        self.measured += int(np.count_nonzero(np.isfinite(piece.latency_s)))
        idle_ok = np.isfinite(piece.idle_s)
        self.idle_recorded += int(np.count_nonzero(idle_ok)) - int(idle_ok[-1])
        self.idle_recorded += int(self._last_idle_ok)
        self._last_idle_ok = bool(idle_ok[-1])
        self.device_min = min(self.device_min, int(piece.device.min()))
        self.device_max = max(self.device_max, int(piece.device.max()))
        head = RANDOM_WRITES_HEAD - self.n
        if head > 0:
            w = ~np.asarray(piece.is_read[:head])
            wo, ws = off[:head][w], size[:head][w]
            if len(wo):
                self.head_writes += len(wo)
                self.head_sequential += int(np.count_nonzero(wo[1:] == wo[:-1] + ws[:-1]))
                self.head_sequential += int(wo[0] == self._prev_write_end)
                self._prev_write_end = float(wo[-1] + ws[-1])
        self.n += m

    @classmethod
    def of(cls, trace) -> TraceFacts:
        """The facts of a ``BlockTrace`` in memory (bounded temporaries)."""
        facts = cls()
        for piece in trace_pieces(trace, _FACT_CHUNK):
            facts.add(piece)
        return facts


def trace_pieces(trace, size: int) -> Iterator[SimpleNamespace]:
    """Consecutive slices of a ``BlockTrace``'s columns (views, no copies)."""
    cols = ("arrival_s", "offset_bytes", "size_bytes", "is_read", "device", "latency_s",
            "idle_s")
    for i in range(0, len(trace), size):
        sl = slice(i, i + size)
        yield SimpleNamespace(**{c: getattr(trace, c)[sl] for c in cols})


_SPILLED = ("arrival_s", "offset_bytes", "size_bytes", "is_read")


class BlockTraceFile:
    """A trace file read in chunks (see the module docstring). ``len()``, ``source``,
    ``format``, ``warnings``, ``device_names`` and ``facts`` are known once constructed;
    :meth:`chunks` yields the requests again, in order, as often as asked. ``chunk_requests``
    defaults to the chunks :func:`~iosim.traces.block.read_block_trace` reads in, so records a
    little out of order are sorted, or refused, alike (the readers' transient memory grows
    with it: ~130 MB at the default for an SPC file)."""

    def __init__(self, path: str | os.PathLike, format: str | None = None, *,
                 time_unit: str | None = None, size_unit: str | None = None,
                 device: str | int | None = None, max_requests: int | None = None,
                 chunk_requests: int | None = None, spill: bool = True,
                 iolog: str | os.PathLike | None = None):
        from .block import _WHOLE_READ_CHUNK

        if chunk_requests is None:  # read_block_trace's chunks: the same sorting and refusals
            chunk_requests = _WHOLE_READ_CHUNK
        self.path = Path(path)
        self._read_kw = dict(format=format, chunk_requests=chunk_requests, time_unit=time_unit,
                             size_unit=size_unit, device=device, max_requests=max_requests,
                             iolog=iolog)
        self.facts = TraceFacts()
        self._spill_path: str | None = None
        self.warnings: tuple = ()
        self.device_names: dict = {}
        self.format = format or ""
        self._written = 0  # chunks in the temporary copy
        fh = None
        if spill:
            fd, self._spill_path = tempfile.mkstemp(prefix="iosim-trace-", suffix=".npy")
            fh = os.fdopen(fd, "wb")
        spill_note = ()
        try:
            for chunk in self._parse():
                self.facts.add(chunk)
                if fh is not None:
                    try:
                        _write_chunk(fh, chunk)
                        self._written += 1
                    except OSError as e:  # (a full disk): parse again on every pass instead
                        fh.close()
                        fh = None
                        self.close()
                        spill_note = (f"no room for the temporary copy of the trace ({e}): each "
                                      "replay parses the file again",)
                self.warnings = chunk.warnings + spill_note
                self.device_names = dict(chunk.device_names)
                self.format = chunk.format
        except BaseException:
            if fh is not None:
                fh.close()
            self.close()
            raise
        if fh is not None:
            fh.close()
        self.source = str(self.path)

    def _parse(self):
        from .block import iter_block_trace

        kw = dict(self._read_kw)
        return iter_block_trace(self.path, kw.pop("format"), **kw)

    def __len__(self) -> int:
        return self.facts.n

    @property
    def has_latency(self) -> bool:
        return self.facts.has_latency

    def chunks(self) -> Iterator:
        """The requests in order, a chunk at a time (objects with the BlockTrace columns)."""
        if self._spill_path is None:
            yield from self._parse()
            return
        with open(self._spill_path, "rb") as fh:
            for _ in range(self._written):
                yield _read_chunk(fh)

    def close(self) -> None:
        """Delete the temporary copy (reading again then parses the file)."""
        if self._spill_path is not None:
            try:
                os.unlink(self._spill_path)
            except OSError:
                pass
            self._spill_path = None

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self) -> str:
        return f"BlockTraceFile({str(self.path)!r}, {self.format}, {len(self):,} requests)"


def _write_chunk(fh, chunk) -> None:
    lat = np.asarray(chunk.latency_s)
    idle = np.asarray(chunk.idle_s)
    has_lat = bool(np.isfinite(lat).any())
    has_idle = bool(np.isfinite(idle).any())
    np.save(fh, np.array([len(chunk), has_lat, has_idle], np.int64))
    for name in _SPILLED:
        np.save(fh, np.ascontiguousarray(getattr(chunk, name)))
    if has_lat:
        np.save(fh, np.ascontiguousarray(lat))
    if has_idle:
        np.save(fh, np.ascontiguousarray(idle))


def _read_chunk(fh) -> SimpleNamespace:
    m, has_lat, has_idle = (int(v) for v in np.load(fh))
    cols = {name: np.load(fh) for name in _SPILLED}
    nan = np.broadcast_to(np.array(np.nan), (m,))
    cols["latency_s"] = np.load(fh) if has_lat else nan
    cols["idle_s"] = np.load(fh) if has_idle else nan
    cols["device"] = np.broadcast_to(np.array(0, np.int32), (m,))
    return SimpleNamespace(**cols)

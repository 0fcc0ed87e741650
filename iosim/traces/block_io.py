"""Machinery shared by the block-trace readers: numbered text lines read with bounded memory,
warnings with counts, per-request rows gathered into fixed-size chunks, and the time sort.

A format's parser is a generator that takes a :class:`LineReader` and a :class:`Context` and
yields one tuple per request::

    (arrival_s, offset_bytes, size_bytes, is_read, device, latency_s, idle_s, line)

or, for a batch parsed with NumPy, a dict of arrays with those names.

``arrival_s`` is on the trace's own clock (seconds); :func:`chunked` rebases it so that the
first request of the trace arrives at 0. ``line`` is the 1-based line the request came from
(used in error messages about time order).
"""

from __future__ import annotations

import array
import bz2
import contextlib
import gzip
import io
import lzma
import math
import os
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from .blocktrace import BlockTrace
from .errors import TraceFormatError

MAX_LINE_BYTES = 64 * 1024  # a longer "line" is binary data or a file without line ends

COLUMNS = ("arrival_s", "offset_bytes", "size_bytes", "is_read", "device", "latency_s", "idle_s")
_TYPECODES = ("d", "d", "d", "b", "i", "d", "d")


class Context:
    """What a parse has learnt so far: device names and the counted warnings."""

    def __init__(self, path: str | os.PathLike, fmt: str):
        self.path = os.fspath(path)
        self.format = fmt
        self.device_names: dict[int, str] = {}
        self._device_ids: dict[str, int] = {}
        self.only_device: str | None = None  # the one device kept, when asked for
        self._counts: dict[str, list] = {}  # key -> [count, first line, message]
        self._notes: list[str] = []

    def device_id(self, name: str) -> int:
        """A small integer for a device name, numbered in order of first appearance."""
        dev = self._device_ids.get(name)
        if dev is None:
            dev = len(self._device_ids)
            self._device_ids[name] = dev
            self.device_names[dev] = name
        return dev

    def numbered_device(self, number: int, line: int | None = None) -> int:
        """A device the trace already numbers (DiskSim device, SPC ASU)."""
        if number not in self.device_names:
            if not 0 <= number < 2**31:
                raise self.error(line, f"device: expected a number below 2^31, got {number}")
            self.device_names[number] = str(number)
        return number

    def count(self, key: str, line: int | None, message: str, n: int = 1) -> None:
        """Count ``n`` occurrences of a tolerated problem (reported once, with its count)."""
        entry = self._counts.get(key)
        if entry is None:
            self._counts[key] = [n, line, message]
        else:
            entry[0] += n

    def note(self, message: str) -> None:
        """A one-off remark (an inferred unit, a rule applied)."""
        if message not in self._notes:
            self._notes.append(message)

    def error(self, line: int | None, reason: str) -> TraceFormatError:
        return TraceFormatError(self.path, line, reason)

    @property
    def warnings(self) -> tuple[str, ...]:
        counted = []
        for count, line, message in self._counts.values():
            where = f", first at line {line}" if line is not None else ""
            counted.append(f"{count} x {message}{where}")
        return tuple(self._notes) + tuple(counted)


_MAGIC = (
    (b"\x1f\x8b", lambda fh: gzip.GzipFile(fileobj=fh, mode="rb")),
    (b"BZh", bz2.BZ2File),
    (b"\xfd7zXZ\x00", lzma.LZMAFile),
)


def _decompressing(fh):
    """A context giving the file itself, or a stream decompressing it when it starts with a
    gzip, bzip2 or xz signature (SNIA distributes the MSR traces as .csv.gz)."""
    head = fh.peek(8)[:8] if hasattr(fh, "peek") else b""
    for magic, opener in _MAGIC:
        if head.startswith(magic):
            return opener(fh)
    return contextlib.nullcontext(fh)


class _TarMember:
    """The one file of a tar archive (SNIA distributes the Tencent CBS traces as .tgz, one CSV
    in each), read as a stream; an archive holding a second file is refused when it is reached,
    naming both."""

    def __init__(self, stream, ctx: Context):
        import tarfile

        self.ctx = ctx
        try:
            self.tar = tarfile.open(fileobj=stream, mode="r|")
            self.name, self.fh = self._next_file()
        except (tarfile.TarError, OSError, EOFError, zlib.error, lzma.LZMAError) as e:
            raise ctx.error(None, f"cannot read the tar archive: {e}") from None
        if self.fh is None:
            raise ctx.error(None, "a tar archive with no file in it")
        ctx.note(f"read from {self.name}, the file in the tar archive (line numbers are its)")

    def _next_file(self):
        while (member := self.tar.next()) is not None:
            if member.isfile():
                return member.name, self.tar.extractfile(member)
        return None, None

    def readline(self, limit: int) -> bytes:
        import tarfile

        try:
            raw = self.fh.readline(limit)
        except tarfile.TarError as e:
            raise OSError(f"the tar archive is cut short or damaged ({e})") from None
        if not raw:
            other, _ = self._next_file()
            if other is not None:
                raise self.ctx.error(None, "the tar archive holds more than one file "
                                     f"({self.name}, {other}, ...): extract them (tar -xf) "
                                     "and read one")
        return raw


def _opened(fh, ctx: Context):
    """A context giving a binary stream of the file's text: decompressed, and the one file of
    a tar archive taken out of it."""
    @contextlib.contextmanager
    def context():
        with _decompressing(fh) as stream:
            buffered = io.BufferedReader(stream, 64 * 1024) if stream is not fh else fh
            try:
                head = buffered.peek(512)[:512]
            except (OSError, EOFError, lzma.LZMAError, zlib.error) as e:
                raise ctx.error(1, f"cannot decompress: {e}") from None
            if len(head) >= 262 and head[257:262] == b"ustar":
                yield _TarMember(buffered, ctx)
            else:
                yield buffered

    return context()


class LineReader:
    """The lines of a text file, one at a time, with their real 1-based numbers.

    Bytes are read line by line (never the whole file); a line longer than
    :data:`MAX_LINE_BYTES` or holding a NUL byte means binary data and is refused naming the
    line. Lines that are not UTF-8 are decoded as Latin-1 and counted in a warning.
    """

    def __init__(self, path: str | os.PathLike, ctx: Context):
        self.path = Path(path)
        self.ctx = ctx
        self.line = 0

    def batches(self, size: int) -> Iterator[tuple[int, list[str]]]:
        """Up to ``size`` lines at a time, with the number of the batch's first line."""
        batch: list[str] = []
        first = 0
        for text in self:
            if not batch:
                first = self.line
            batch.append(text)
            if len(batch) >= size:
                yield first, batch
                batch = []
        if batch:
            yield first, batch

    def __iter__(self) -> Iterator[str]:
        try:
            fh = open(self.path, "rb")
        except IsADirectoryError:
            raise self.ctx.error(None, "is a directory, expected a block-trace file") from None
        except FileNotFoundError:
            raise self.ctx.error(None, "no such file") from None
        except PermissionError:
            raise self.ctx.error(None, "permission denied") from None
        with fh, _opened(fh, self.ctx) as stream:
            while True:
                try:
                    raw = stream.readline(MAX_LINE_BYTES + 1)
                except (OSError, EOFError, lzma.LZMAError, zlib.error) as e:
                    raise self.ctx.error(self.line + 1, f"cannot decompress: {e}") from None
                if not raw:
                    return
                self.line += 1
                if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                    limit = MAX_LINE_BYTES // 1024
                    raise self.ctx.error(
                        self.line, f"line longer than {limit} KiB: not a text trace"
                    )
                if b"\x00" in raw:
                    raise self.ctx.error(self.line, "binary data (NUL byte): not a text trace")
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    text = raw.decode("latin-1")
                    self.ctx.count("latin1", self.line, "lines not UTF-8 (read as Latin-1)")
                if self.line == 1 and text.startswith("\ufeff"):
                    text = text[1:]
                yield text.rstrip("\r\n")


def number(text: str, ctx: Context, line: int, field: str) -> float:
    """A finite float from a field, or TraceFormatError naming the line and field."""
    try:
        x = float(text)
    except ValueError:
        raise ctx.error(line, f"{field}: expected a number, got {text[:30]!r}") from None
    if not math.isfinite(x):
        raise ctx.error(line, f"{field}: expected a finite number, got {text[:30]!r}")
    return x


def integer(text: str, ctx: Context, line: int, field: str) -> int:
    """A whole number from 0 to 2^63 (digits only), or TraceFormatError naming the line and
    field."""
    try:
        x = int(text)
    except ValueError:
        raise ctx.error(line, f"{field}: expected a whole number, got {text[:30]!r}") from None
    if not 0 <= x < 2**63:
        raise ctx.error(line, f"{field}: expected a whole number from 0 to 2^63, got "
                        f"{text[:30]!r}")
    return x


def whole(text: str, ctx: Context, line: int, field: str) -> int:
    """A non-negative whole number, also when written as a float ("3", "3.0", "3e0");
    digits alone are read exactly (a 1.3e17 filetime keeps its last digit)."""
    try:
        x = int(text)
    except ValueError:
        f = number(text, ctx, line, field)
        if f != math.floor(f):
            raise ctx.error(line, f"{field}: expected a whole number, got {text[:30]!r}") from None
        x = int(f)
    if not 0 <= x < 2**63:
        raise ctx.error(line, f"{field}: expected a whole number from 0 to 2^63, got "
                        f"{text[:30]!r}")
    return x


class _Rows:
    """Per-request columns of one chunk, as compact typed arrays (8 bytes a value at most)."""

    def __init__(self):
        self.cols = [array.array(code) for code in _TYPECODES]
        self.lines = array.array("q")

    def __len__(self) -> int:
        return len(self.lines)

    def add(self, rec: tuple) -> None:
        for col, value in zip(self.cols, rec[:7], strict=True):
            col.append(value)
        self.lines.append(rec[7])

    def extend(self, block: dict, start: int, stop: int) -> None:
        """Append rows ``start:stop`` of a block of arrays (a parser's vectorised batch)."""
        for name, col in zip(COLUMNS, self.cols, strict=True):
            col.frombytes(np.ascontiguousarray(block[name][start:stop],
                                               dtype=np.dtype(col.typecode)).tobytes())
        self.lines.frombytes(np.ascontiguousarray(block["line"][start:stop],
                                                  dtype=np.int64).tobytes())

    def arrays(self) -> dict[str, np.ndarray]:
        out = {name: np.array(col) for name, col in zip(COLUMNS, self.cols, strict=True)}
        out["is_read"] = out["is_read"].astype(bool)
        out["line"] = np.array(self.lines)
        return out


def _concat(a: dict | None, b: dict) -> dict:
    if a is None:
        return b
    return {k: np.concatenate([a[k], b[k]]) for k in b}


def _take(cols: dict, index) -> dict:
    return {k: v[index] for k, v in cols.items()}


def _raw_chunks(records: Iterable, chunk_requests: int, max_requests: int | None,
                ctx: Context) -> Iterator[dict]:
    """Records (tuples, or dicts of arrays for a batch) gathered into chunks of at most
    ``chunk_requests`` rows, stopping after ``max_requests``."""
    rows = _Rows()
    total = 0
    limit = math.inf if max_requests is None else max_requests
    for rec in records:
        if isinstance(rec, dict):
            n, pos = len(rec["line"]), 0
            while pos < n and total < limit:
                take = int(min(n - pos, chunk_requests - len(rows), limit - total))
                rows.extend(rec, pos, pos + take)
                pos += take
                total += take
                if len(rows) >= chunk_requests:
                    yield rows.arrays()
                    rows = _Rows()
            last_line = int(rec["line"][pos - 1]) if pos else None
        else:
            rows.add(rec)
            total += 1
            last_line = rec[7]
            if len(rows) >= chunk_requests:
                yield rows.arrays()
                rows = _Rows()
        if total >= limit:
            ctx.note(f"stopped after max_requests={max_requests} requests (line {last_line})")
            break
    if len(rows):
        yield rows.arrays()


def _sorted_stream(raw: Iterator[dict], ctx: Context) -> Iterator[dict]:
    """Chunks in time order. A chunk is sorted on its own; records may go back in time past a
    chunk boundary as far as the previous chunk (they are held back and merged); going back
    further than that cannot be sorted in bounded memory and is refused naming the line."""
    held = None
    emitted_max = -math.inf
    for chunk in raw:
        order = np.argsort(chunk["arrival_s"], kind="stable")
        chunk = _take(chunk, order)
        if not len(chunk["arrival_s"]):
            continue
        first = chunk["arrival_s"][0]
        if first < emitted_max:
            bad = int(np.argmax(chunk["arrival_s"] < emitted_max))
            raise ctx.error(
                int(chunk["line"][bad]),
                f"arrival time goes back to {chunk['arrival_s'][bad]:.9g} s, before requests "
                "already passed on (more than one chunk back): sort the file by time first, "
                "or read it with a larger chunk_requests",
            )
        if held is not None:
            cut = int(np.searchsorted(held["arrival_s"], first, side="right"))
            if cut:  # copies, so the emitted chunk does not keep all of ``held`` alive
                out = {k: v[:cut].copy() for k, v in held.items()}
                emitted_max = float(out["arrival_s"][-1])
                yield out
            rest = _take(held, slice(cut, None))
            merged = _concat(rest, chunk)
            held = _take(merged, np.argsort(merged["arrival_s"], kind="stable"))
        else:
            held = chunk
    if held is not None and len(held["arrival_s"]):
        yield held


def chunked(records: Iterable[tuple], ctx: Context, *, chunk_requests: int,
            max_requests: int | None) -> Iterator[BlockTrace]:
    """BlockTrace chunks in arrival order, rebased so the first request arrives at 0."""
    if chunk_requests < 1:
        raise ctx.error(None, f"chunk_requests must be >= 1, got {chunk_requests}")
    if max_requests is not None and max_requests < 1:
        raise ctx.error(None, f"max_requests must be >= 1, got {max_requests}")
    origin = None
    sent = 0
    stream = _sorted_stream(_raw_chunks(records, chunk_requests, max_requests, ctx), ctx)
    pending = next(stream, None)
    while pending is not None:
        nxt = next(stream, None)  # read ahead so the last chunk carries the final warnings
        if origin is None:
            origin = float(pending["arrival_s"][0])
        cols = {k: pending[k] for k in COLUMNS}
        cols["arrival_s"] = cols["arrival_s"] - origin
        sent += len(cols["arrival_s"])
        yield BlockTrace(**cols, source=ctx.path, format=ctx.format,
                         device_names=dict(ctx.device_names), warnings=ctx.warnings)
        pending = nxt
    if not sent:
        seen = ", ".join(list(ctx.device_names.values())[:10])
        extra = f"; devices seen: {seen}" if seen else ""
        if ctx.only_device is not None and seen:
            raise ctx.error(None, f"no requests of device {ctx.only_device!r} (the name as the "
                                  f"trace writes it){extra}")
        raise ctx.error(None, f"no requests found (expected {ctx.format} records){extra}")


def concat(chunks: Iterable[BlockTrace]) -> BlockTrace:
    """One BlockTrace from consecutive chunks (names and warnings from the last).

    Each chunk is copied into per-column arrays grown in place (``ndarray.resize``: realloc,
    which moves large blocks by remapping pages rather than copying them), so a whole read
    peaks near 1.5 x the trace's columns instead of holding every chunk and the joined copy.
    """
    out: dict[str, np.ndarray] = {}
    n = 0
    last = None
    for chunk in chunks:
        m = len(chunk)
        if not out:
            out = {name: np.array(getattr(chunk, name)) for name in COLUMNS}
        else:
            for name in COLUMNS:
                col = out[name]
                if n + m > len(col):
                    col.resize(max(n + m, int(len(col) * 1.5)), refcheck=False)
                col[n:n + m] = getattr(chunk, name)
        n += m
        last = chunk
    if last is None:
        raise ValueError("no chunks to join")
    for col in out.values():
        if len(col) != n:
            col.resize(n, refcheck=False)
    return BlockTrace(**out, source=last.source, format=last.format,
                      device_names=dict(last.device_names), warnings=last.warnings)

"""biosnoop (bcc and bpftrace), fio iolog, MSR Cambridge and SPC block traces.

bcc ``biosnoop``
    Fixed columns under a ``TIME(s) COMM PID DISK T SECTOR BYTES [QUE(ms)] LAT(ms)`` header.
    TIME is when the request *completed* (seconds since the tool started) and LAT the time from
    issue to the device to completion, so ``arrival_s = TIME - LAT`` and ``latency_s = LAT``.
    SECTOR is in 512-byte sectors. The tool's documentation files wrap output blocks in prose:
    only lines under a header are read; every other line is counted as skipped. Each further
    header starts a new run whose clock restarts: it is placed after the previous run's last
    completion (a warning counts the runs).
bpftrace ``biosnoop.bt``
    ``TIME(ms) DISK ID COMM PID LAT(ms)`` (a second header line ``MAJOR MINOR``); TIME is the
    completion in ms since start, LAT whole ms. The tool prints neither direction, address nor
    size: ``offset_bytes`` and ``size_bytes`` are NaN and ``is_read`` is False (the summary
    reports sizes and read ratio as unknown), with a warning.
fio iolog
    First line ``fio version 2 iolog`` or ``fio version 3 iolog``; then
    ``[timestamp] filename action [offset length]`` (bytes). Version 3 timestamps are
    microseconds since the job started: fio writes them with ``utime_since_now()`` and replays
    them as microsecond delays (fio's ``iolog.c``). Version 2 has no timestamps; its ``wait``
    action carries a time in ms since the start, and arrival is the last wait seen (0 before
    any), with a warning to replay it closed loop. read/write lines are requests; trim, sync,
    datasync and the file actions (add/open/close/unlink) are skipped and counted.
MSR Cambridge (SNIA IOTTA trace set "MSR Cambridge Traces", Narayanan et al., FAST '08)
    CSV ``Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime``: Timestamp is a Windows
    filetime (100 ns ticks) at issue, Type Read or Write, Offset and Size in bytes,
    ResponseTime in 100 ns ticks (``latency_s``). Devices are named ``host_disk``.
SPC (UMass Trace Repository, SPC trace format of the Storage Performance Council)
    CSV ``ASU,LBA,Size,Opcode,Timestamp[,...]``: ASU is the device, LBA in 512-byte sectors,
    Size in bytes, Opcode r or w, Timestamp in seconds from the trace's start.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator

from .block_io import Context, LineReader, integer, number

SECTOR_BYTES = 512

_BCC_HEADER = re.compile(r"^TIME\(s\)\s+COMM\s+PID\s+DISK\s+T\s+SECTOR\s+BYTES\s+(QUE\(ms\)\s+)?"
                         r"LAT\(ms\)\s*$")
_BPF_HEADER = re.compile(r"^TIME\(ms\)\s+DISK\s+ID\s+COMM\s+PID\s+LAT\(ms\)\s*$")
_FLOAT = re.compile(r"^\d+(?:\.\d+)?$")


class _Runs:
    """Output blocks of a tool that restarts its clock each run: a shift per run."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.count = 0
        self.shift = 0.0
        self.last = 0.0

    def start(self, line: int) -> None:
        self.count += 1
        if self.count > 1:
            self.shift = self.last
            self.ctx.count("runs", line, "further output blocks (separate runs) placed after "
                           "the previous run's last completion")

    def time(self, t: float) -> float:
        t += self.shift
        self.last = max(self.last, t)
        return t


def parse_biosnoop(lines: LineReader, ctx: Context) -> Iterator[tuple]:
    nan = math.nan
    runs = _Runs(ctx)
    que = None  # None: outside an output block; else whether the block has a QUE column
    for text in lines:
        ln = lines.line
        header = _BCC_HEADER.match(text.strip())
        if header:
            que = bool(header.group(1))
            runs.start(ln)
            continue
        parts = text.split()
        ncols = 9 if que else 8
        if que is None or len(parts) < ncols or not _FLOAT.match(parts[0]):
            if text.strip():
                ctx.count("prose", ln, "lines outside biosnoop output skipped")
            continue
        tail = parts[-(ncols - 2):]  # PID DISK T SECTOR BYTES [QUE] LAT
        disk, op = tail[1], tail[2]
        t_done = number(parts[0], ctx, ln, "TIME(s)")
        sector = integer(tail[3], ctx, ln, "SECTOR")
        size = integer(tail[4], ctx, ln, "BYTES")
        lat = number(tail[-1], ctx, ln, "LAT(ms)") * 1e-3
        if op[:1] not in ("R", "W"):
            ctx.count(f"op-{op}", ln, f"requests of type {op!r} skipped (reads and writes only)")
            continue
        if size == 0:
            ctx.count("zero", ln, "requests of 0 bytes skipped")
            continue
        t_done = runs.time(t_done)
        yield (t_done - lat, sector * float(SECTOR_BYTES), float(size), op[:1] == "R",
               ctx.device_id(disk), lat, nan, ln)


def parse_bpftrace_biosnoop(lines: LineReader, ctx: Context) -> Iterator[tuple]:
    nan = math.nan
    runs = _Runs(ctx)
    inside = False
    for text in lines:
        ln = lines.line
        stripped = text.strip()
        if _BPF_HEADER.match(stripped):
            inside = True
            runs.start(ln)
            continue
        if inside and re.match(r"^MAJOR\s+MINOR$", stripped):
            continue
        parts = stripped.split()
        if not inside or len(parts) < 6 or not parts[0].isdigit():
            if stripped:
                ctx.count("prose", ln, "lines outside biosnoop output skipped")
            continue
        t_done = number(parts[0], ctx, ln, "TIME(ms)") * 1e-3
        major = integer(parts[1], ctx, ln, "DISK ID major")
        minor = integer(parts[2], ctx, ln, "DISK ID minor")
        lat = number(parts[-1], ctx, ln, "LAT(ms)") * 1e-3
        ctx.note("bpftrace biosnoop prints no direction, sector or size: offset_bytes and "
                 "size_bytes are NaN, is_read False; TIME and LAT are whole ms")
        t_done = runs.time(t_done)
        yield (t_done - lat, nan, nan, False, ctx.device_id(f"{major},{minor}"), lat, nan, ln)


_FIO_SKIP = {"trim", "sync", "datasync", "add", "open", "close", "unlink", "wait"}


def parse_fio_iolog(lines: LineReader, ctx: Context) -> Iterator[tuple]:
    nan = math.nan
    version = None
    clock = 0.0
    last = -math.inf
    for text in lines:
        ln = lines.line
        if version is None:
            m = re.match(r"^fio version ([23]) iolog\s*$", text)
            if not m:
                raise ctx.error(ln, "expected 'fio version 2 iolog' or 'fio version 3 iolog' "
                                f"as the first line, got {text[:40]!r}")
            version = int(m.group(1))
            if version == 2:
                ctx.note("fio v2 iolog has no timestamps: arrival_s is the last 'wait' time "
                         "(0 before any); replay it closed loop")
            continue
        parts = text.split()
        if not parts:
            continue
        if version == 3:
            t = number(parts[0], ctx, ln, "timestamp") * 1e-6
            parts = parts[1:]
            if t < last:
                ctx.count("backwards", ln, "timestamps going backwards (requests sorted)")
            last = max(last, t)
        else:
            t = clock
        if len(parts) < 2:
            raise ctx.error(ln, "truncated line: expected '[timestamp] filename action "
                            "[offset length]'")
        fname, action = parts[0], parts[1]
        if action in ("read", "write"):
            if len(parts) < 4:
                raise ctx.error(ln, f"truncated {action} line: expected offset and length")
            offset = integer(parts[2], ctx, ln, "offset")
            length = integer(parts[3], ctx, ln, "length")
            if length == 0:
                ctx.count("zero", ln, "requests of length 0 skipped")
                continue
            yield (t, float(offset), float(length), action == "read", ctx.device_id(fname),
                   nan, nan, ln)
        elif action == "wait" and version == 2:
            if len(parts) < 3:
                raise ctx.error(ln, "truncated wait line: expected a time in ms")
            clock = max(clock, integer(parts[2], ctx, ln, "wait time") * 1e-3)
        elif action in _FIO_SKIP:
            ctx.count(f"act-{action}", ln, f"'{action}' actions skipped (not reads or writes)")
        else:
            ctx.count("act-unknown", ln, "lines with an unknown action skipped")


def _csv_fields(text: str, n: int, ctx: Context, ln: int, what: str) -> list[str] | None:
    if not text.strip() or text.lstrip().startswith("#"):
        return None
    parts = [p.strip() for p in text.split(",")]
    if len(parts) < n:
        raise ctx.error(ln, f"truncated line: expected {n} comma-separated fields ({what}), "
                        f"got {len(parts)}")
    return parts


_MSR_FIELDS = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"


def parse_msr(lines: LineReader, ctx: Context) -> Iterator[tuple]:
    nan = math.nan
    tick = 100e-9
    origin = None
    last = -math.inf
    for text in lines:
        ln = lines.line
        parts = _csv_fields(text, 7, ctx, ln, _MSR_FIELDS)
        if parts is None:
            continue
        if parts[0].lower() == "timestamp":
            continue
        ts = integer(parts[0], ctx, ln, "Timestamp")
        disk = integer(parts[2], ctx, ln, "DiskNumber")
        kind = parts[3].lower()
        if kind not in ("read", "write"):
            raise ctx.error(ln, f"Type: expected Read or Write, got {parts[3]!r}")
        offset = integer(parts[4], ctx, ln, "Offset")
        size = integer(parts[5], ctx, ln, "Size")
        rt = integer(parts[6], ctx, ln, "ResponseTime")
        if size == 0:
            ctx.count("zero", ln, "requests of size 0 skipped")
            continue
        if origin is None:
            origin = ts  # integer ticks: subtracting before scaling keeps 100 ns precision
        t = (ts - origin) * tick
        if t < last:
            ctx.count("backwards", ln, "timestamps going backwards (requests sorted)")
        last = max(last, t)
        yield (t, float(offset), float(size), kind == "read",
               ctx.device_id(f"{parts[1]}_{disk}"), rt * tick, nan, ln)


_SPC_FIELDS = "ASU,LBA,Size,Opcode,Timestamp"


def parse_spc(lines: LineReader, ctx: Context) -> Iterator[tuple]:
    nan = math.nan
    last = -math.inf
    for text in lines:
        ln = lines.line
        parts = _csv_fields(text, 5, ctx, ln, _SPC_FIELDS)
        if parts is None:
            continue
        asu = integer(parts[0], ctx, ln, "ASU")
        lba = integer(parts[1], ctx, ln, "LBA")
        size = integer(parts[2], ctx, ln, "Size")
        op = parts[3].lower()
        if op not in ("r", "w"):
            raise ctx.error(ln, f"Opcode: expected r or w, got {parts[3]!r}")
        t = number(parts[4], ctx, ln, "Timestamp")
        if size == 0:
            ctx.count("zero", ln, "requests of size 0 skipped")
            continue
        if t < last:
            ctx.count("backwards", ln, "timestamps going backwards (requests sorted)")
        last = max(last, t)
        yield (t, lba * float(SECTOR_BYTES), float(size), op == "r", ctx.numbered_device(asu),
               nan, nan, ln)

"""biosnoop (bcc and bpftrace), fio iolog and fio per-I/O latency-log block traces (MSR and
SPC: ``block_csv``).

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
fio per-I/O latency log (``write_lat_log`` with ``log_avg_msec=0``, fio's default)
    ``time, latency, direction, size[, offset, priority]`` per completed I/O (fio's
    ``stat.c``): time in whole ms since the job started, latency in ns (fio >= 3), direction
    0 read, 1 write, 2 trim; the offset column is there with ``log_offset=1`` (six columns;
    five columns are fio >= 3.21's priority without the offset). A measured trace where
    blktrace is not allowed (a container, a guest without CAP_SYS_ADMIN). fio truncates the
    completion time to the ms: the completions of one ms are placed at sorted uniform draws
    over it in the order logged (a fixed stream: the same file reads the same), so
    ``arrival_s`` = completion - latency is known to about +-0.5 ms (each ms's requests taken
    at one instant would arrive in bursts no device saw). Given the job's v3 iolog
    (``write_iolog``, microsecond issue times), each I/O's arrival is its issue time there,
    matched on direction and offset in order. The latency itself is exact. The ``_lat`` log
    (submission to completion) is what a replay compares; ``_clat`` leaves out fio's
    submission time (noted); ``_slat`` holds no completion and is refused. fio writes one log
    per job (``NAME_lat.1.log``, ``NAME_lat.2.log`` ...): a log with others beside it is noted
    as one job's I/O only.
"""

from __future__ import annotations

import math
import re
from collections import deque
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from .block_io import Context, LineReader, integer, number

_LATLOG_SEED = 20261128  # the stream placing a latency log's completions within their ms
#: a fio latency log's name: NAME_{lat,clat,slat}[.JOB].log, compressed or not
_LATLOG_NAME = re.compile(r"_(lat|clat|slat)(?:\.(\d+))?\.log(?:\.(?:gz|bz2|xz))?$")

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
        if que is None or not parts or not _FLOAT.match(parts[0]):
            if parts and parts[0] == "[...]":
                ctx.count("elided", ln, "'[...]' elision lines skipped")
            elif parts:
                que = None  # prose ends an output block (a blank line or "[...]" does not)
                ctx.count("prose", ln, "lines outside biosnoop output skipped")
            continue
        if len(parts) < ncols:
            ctx.count("truncated", ln, "truncated output lines skipped")
            continue
        tail = parts[-(ncols - 2):]  # PID DISK T SECTOR BYTES [QUE] LAT
        disk, op = tail[1], tail[2]
        t_done = number(parts[0], ctx, ln, "TIME(s)")
        sector = integer(tail[3], ctx, ln, "SECTOR")
        size = integer(tail[4], ctx, ln, "BYTES")
        lat = number(tail[-1], ctx, ln, "LAT(ms)") * 1e-3
        if op[:1] not in ("R", "W"):
            ctx.count("op", ln, f"requests neither R nor W (the first: {op[:8]!r}) skipped")
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
        if not inside or not parts or not parts[0].isdigit():
            if parts and parts[0] == "[...]":
                ctx.count("elided", ln, "'[...]' elision lines skipped")
            elif parts:
                inside = False  # prose ends an output block (a blank line or "[...]" does not)
                ctx.count("prose", ln, "lines outside biosnoop output skipped")
            continue
        if len(parts) < 6:
            ctx.count("truncated", ln, "truncated output lines skipped")
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


def fio_latlog_kind(path) -> str | None:
    """Which fio latency log a file name says it is: "lat", "clat", "slat" or None."""
    m = _LATLOG_NAME.search(str(path))
    return m.group(1) if m else None


def _issue_times(iolog, ctx: Context) -> dict:
    """(is_read, offset) -> the issue times (s) of a fio v3 iolog's requests, in order."""
    log_ctx = Context(iolog, "fio-iolog")
    first = next(iter(LineReader(Path(iolog), log_ctx)), "")
    if first.startswith("fio version 2 iolog"):
        raise log_ctx.error(1, "a fio v2 iolog has no issue times: the latency log's own "
                            "times are better; leave the iolog out (fio >= 3 writes v3)")
    times: dict = {}
    for t, offset, _size, is_read, _dev, _lat, _idle, _ln in parse_fio_iolog(
            LineReader(Path(iolog), log_ctx), log_ctx):
        times.setdefault((is_read, offset), deque()).append(t)
    if not times:
        raise log_ctx.error(None, "no read or write requests: expected the fio v3 iolog "
                            "(write_iolog) of the job that wrote the latency log")
    return times


def parse_fio_latlog(lines: LineReader, ctx: Context, iolog=None) -> Iterator[tuple]:
    nan = math.nan
    kind = fio_latlog_kind(ctx.path)
    if kind == "slat":
        raise ctx.error(None, "a submission-latency log (_slat) has no completions to replay; "
                        "use the _lat log fio writes beside it")
    if kind == "clat":
        ctx.note("a completion-latency log (_clat): latency from submission to completion, "
                 "without fio's submission time (the _lat log has both)")
    others = _other_jobs_logs(ctx.path)
    if others:
        ctx.note(f"fio wrote one latency log per job and {len(others)} other job(s) logged "
                 f"beside this one ({others[0]}{', ...' if len(others) > 1 else ''}): this "
                 "trace holds this job's I/Os only, so a replay misses the others' load")
    issued = None
    if iolog is not None:
        issued = _issue_times(iolog, ctx)
        ctx.note(f"arrival_s: each I/O's issue time in {Path(iolog).name} (us), matched by "
                 "direction and offset in order; the latency from the latency log (ns)")
    else:
        ctx.note("fio logs completion times in whole ms: the completions logged in one ms "
                 "are placed at sorted uniform draws over it, in the order logged, so "
                 "arrival_s = completion - latency is known to about +-0.5 ms (the job's "
                 "write_iolog, --iolog, gives exact issue times); the latency is exact (ns)")
    dev = ctx.device_id("fio")
    rng = np.random.default_rng(_LATLOG_SEED)  # (the same file reads the same every time)
    group: list[tuple] = []  # the I/Os completed in the ms ``group_ms``: (latency, offset, ...)
    group_ms = None
    for text in lines:
        ln = lines.line
        if not text.strip():
            continue
        parts = text.split(",")
        if len(parts) < 4:
            raise ctx.error(ln, "expected 'time (ms), latency (ns), direction, size[, offset, "
                            f"priority]', got {text[:40]!r}")
        t_ms = number(parts[0], ctx, ln, "time (ms)")
        lat = number(parts[1], ctx, ln, "latency (ns)") * 1e-9
        ddir = integer(parts[2], ctx, ln, "direction")
        size = integer(parts[3], ctx, ln, "size")
        if size == 0:
            raise ctx.error(ln, "size 0: a log averaged over windows (log_avg_msec > 0) holds "
                            "no single I/Os; record it with log_avg_msec=0 (fio's default)")
        if ddir not in (0, 1):
            ctx.count("ddir", ln, "I/Os neither read nor write (trims) skipped")
            continue
        if len(parts) >= 6:
            offset = float(integer(parts[4], ctx, ln, "offset"))
        else:
            offset = nan
            ctx.note("no offset column (record with log_offset=1): offset_bytes is NaN")
        if issued is not None:
            queue = issued.get((ddir == 0, offset))
            if queue:
                yield (queue.popleft(), offset, float(size), ddir == 0, dev, lat, nan, ln)
                continue
            ctx.count("unissued", ln, "I/Os the iolog does not list (matched on direction "
                      "and offset): arrival from the latency log's ms")
        if t_ms != group_ms:
            yield from _spread_over_ms(group, group_ms, dev, rng)
            group, group_ms = [], t_ms
        group.append((lat, offset, float(size), ddir == 0, ln))
    yield from _spread_over_ms(group, group_ms, dev, rng)


def _other_jobs_logs(path) -> list[str]:
    """The names of the other jobs' latency logs of the same fio run beside ``path``
    (``NAME_lat.2.log`` beside ``NAME_lat.1.log``, compressed or not)."""
    p = Path(path)
    m = _LATLOG_NAME.search(p.name)
    if not m or m.group(2) is None:
        return []
    stem = p.name[:m.start()]
    try:
        return sorted(q.name for q in p.parent.iterdir()
                      if (k := _LATLOG_NAME.search(q.name)) and q.name[:k.start()] == stem
                      and k.group(1) == m.group(1) and k.group(2) not in (None, m.group(2)))
    except OSError:
        return []


def _spread_over_ms(group: list[tuple], t_ms, dev: int, rng) -> Iterator[tuple]:
    """The requests fio logged as completed in the whole ms ``t_ms``, their completions placed
    at sorted uniform draws over that ms, in the order logged (fio logs in completion order):
    the order statistics a Poisson stream's points in the ms would have."""
    n = len(group)
    if not n:
        return
    frac = np.sort(rng.random(n))
    for j, (lat, offset, size, is_read, ln) in enumerate(group):
        t_done = (t_ms + frac[j]) * 1e-3
        yield (t_done - lat, offset, size, is_read, dev, lat, math.nan, ln)

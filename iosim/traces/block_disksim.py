"""DiskSim's two trace formats: ASCII (``arrival device block size flags``) and validate
(``R|W Hit blkno blocks service_us idle_us``).

DiskSim ASCII
    DiskSim's own files hold the arrival time in milliseconds and block number and size in
    512-byte sectors; flags bit 0 set means a read. Files converted by other simulators keep the
    five columns but not the units (MQSim and SSDsim write nanoseconds, huaicheng/replayer
    milliseconds and bytes). Pass ``time_unit=`` ("ns", "us", "ms", "s") and ``size_unit=``
    ("sectors" of 512 B or "bytes"); what is not passed is inferred from the first
    :data:`SNIFF_REQUESTS` requests, with a warning saying which rule decided:

    * size unit: **bytes** when every size and every block number is a multiple of 512 (as
      bytes they are sector-aligned; read as sectors every request would be a multiple of
      256 KiB at a 256 KiB-aligned address), **sectors** when any is not. When sizes and
      addresses disagree, or fewer than 20 requests were seen, the warning says it could not be
      told and the guess follows the sizes.
    * time unit: each of ns, us, ms, s is tried. A unit is plausible when (a) the trace clock's
      resolution (the smallest decimal step the timestamps are written in) is at most 100 us
      and (b) the median of the positive inter-arrival gaps is between 1 us and 1 s. One
      plausible unit is taken; with several, or none, the warning says so and ms (DiskSim's
      unit), else the first plausible one, is assumed.

    Arrival is the file's timestamp; decreasing timestamps are counted in a warning and the
    requests sorted.

DiskSim validate
    Written by DIXtrac when it measured a drive; DiskSim reads it with
    ``sscanf("%c %s %d %d %lf %lf")``. Column 3 is the block number and column 4 the size, in
    512-byte blocks; column 5 is the measured response time of the request (microseconds,
    ``latency_s``) and column 6 the measured idle gap from its completion to the next
    request's issue (microseconds, ``idle_s``). The trace has no issue times: the workload was
    closed loop, so arrival is reconstructed as ``arrival[0] = 0`` and
    ``arrival[i+1] = arrival[i] + latency[i] + idle[i]``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator

import numpy as np

from .block_io import Context, LineReader, integer, number, whole

SECTOR_BYTES = 512
SNIFF_REQUESTS = 10_000
BATCH_LINES = 65_536  # lines parsed at once by NumPy; a batch it cannot take goes line by line
TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
SIZE_UNITS = {"sectors": float(SECTOR_BYTES), "bytes": 1.0}

_MAX_RESOLUTION_S = 100e-6
_GAP_RANGE_S = (1e-6, 1.0)


def check_units(ctx: Context, time_unit: str | None, size_unit: str | None) -> None:
    if time_unit is not None and time_unit not in TIME_UNITS:
        raise ctx.error(None, f"time_unit={time_unit!r}: expected one of {', '.join(TIME_UNITS)}")
    if size_unit is not None and size_unit not in SIZE_UNITS:
        raise ctx.error(None, f"size_unit={size_unit!r}: expected one of {', '.join(SIZE_UNITS)}")


def _fields(text: str, ctx: Context, line: int, n: int, what: str) -> list[str] | None:
    parts = text.split()
    if not parts or parts[0].startswith("#"):
        return None
    if len(parts) < n:
        raise ctx.error(line, f"truncated line: expected {n} fields ({what}), got {len(parts)}")
    return parts


_ASCII_FIELDS = "arrival device block size flags"


def _decimal_exponent(text: str) -> int | None:
    """The power of ten of a number's last non-zero digit as written ("223.412" -> -3,
    "938513000" -> 3), or None for zero."""
    mantissa, _, exp = text.lower().partition("e")
    shift = int(exp) if exp.lstrip("+-").isdigit() else 0
    whole, _, frac = mantissa.lstrip("+-").partition(".")
    frac = frac.rstrip("0")
    if frac:
        return -len(frac) + shift
    digits = whole.lstrip("0")
    if not digits:
        return None
    return len(digits) - len(digits.rstrip("0")) + shift


def _infer_time_unit(times: list[str], ctx: Context) -> str:
    values = np.array([float(t) for t in times])
    exps = [e for e in (_decimal_exponent(t) for t in times) if e is not None]
    resolution = 10.0 ** min(exps) if exps else 1.0
    gaps = np.diff(np.sort(values))
    gaps = gaps[gaps > 0]
    if not len(gaps):
        ctx.note("time unit: cannot tell (all timestamps equal); assumed ms, DiskSim's unit; "
                 "pass time_unit=")
        return "ms"
    median_gap = float(np.median(gaps))
    plausible = [u for u, scale in TIME_UNITS.items()
                 if resolution * scale <= _MAX_RESOLUTION_S * (1 + 1e-9)
                 and _GAP_RANGE_S[0] <= median_gap * scale <= _GAP_RANGE_S[1]]
    why = (f"clock step {resolution:g} and median positive gap {median_gap:g} in file units, "
           f"over {len(values)} requests; a plausible unit has a step <= 100 us and a median gap "
           "between 1 us and 1 s")
    if len(plausible) == 1:
        ctx.note(f"time unit inferred as {plausible[0]} ({why}); pass time_unit= to be sure")
        return plausible[0]
    unit = "ms" if (not plausible or "ms" in plausible) else plausible[0]
    told = "none fits" if not plausible else f"{' and '.join(plausible)} all fit"
    ctx.note(f"time unit: cannot tell ({told}: {why}); assumed {unit}; pass time_unit=")
    return unit


def _infer_size_unit(sizes: list[str], blocks: list[str], ctx: Context) -> str:
    def aligned(values):
        return all(float(v) % SECTOR_BYTES == 0 for v in values)

    size_bytes, block_bytes = aligned(sizes), aligned(blocks)
    unit = "bytes" if size_bytes else "sectors"
    rule = ("every size and block number is a multiple of 512" if unit == "bytes"
            else "some sizes are not multiples of 512")
    if size_bytes != block_bytes or len(sizes) < 20:
        reason = (f"only {len(sizes)} requests" if len(sizes) < 20
                  else "sizes and block numbers disagree on 512-byte alignment")
        ctx.note(f"size unit: cannot tell ({reason}); assumed {unit}; pass size_unit=")
    else:
        ctx.note(f"size unit inferred as {unit} ({rule}, over {len(sizes)} requests); "
                 "pass size_unit= to be sure")
    return unit


def sniff_ascii_units(path, ctx: Context, time_unit, size_unit) -> tuple[str, str]:
    """The (time, size) units of a DiskSim ASCII file: declared, or inferred from its head."""
    if time_unit is not None and size_unit is not None:
        return time_unit, size_unit
    times, sizes, blocks = [], [], []
    reader = LineReader(path, Context(ctx.path, ctx.format))
    for text in reader:
        parts = text.split()
        if len(parts) < 5 or parts[0].startswith("#"):
            continue
        times.append(parts[0])
        blocks.append(parts[2])
        sizes.append(parts[3])
        if len(times) >= SNIFF_REQUESTS:
            break
    try:
        if time_unit is None and times:
            time_unit = _infer_time_unit(times, ctx)
        if size_unit is None and sizes:
            size_unit = _infer_size_unit(sizes, blocks, ctx)
    except ValueError:
        pass  # a malformed number: the parse proper names its line
    return time_unit or "ms", size_unit or "sectors"


def _ascii_batch(batch: list[str], first: int, ctx: Context, t_scale: float,
                 b_scale: float) -> dict | None:
    """A batch of clean lines parsed by NumPy, or None when any line needs the careful path
    (comments, blank or short lines, bad numbers, zero sizes: it names or counts them)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            a = np.loadtxt(batch, ndmin=2, usecols=range(5), comments=None, dtype=np.float64)
        except (ValueError, IndexError):
            return None
    if a.shape[0] != len(batch) or not np.isfinite(a).all():
        return None
    ints = a[:, [1, 4]]
    if (a[:, 1:3] < 0).any() or (a[:, 3] <= 0).any() or (ints != np.floor(ints)).any() \
            or (ints > 2**31 - 1).any() or (a[:, 4] < 0).any():
        return None
    dev = a[:, 1].astype(np.int32)
    for d in np.unique(dev):
        ctx.numbered_device(int(d))
    n = len(batch)
    return {
        "arrival_s": a[:, 0] * t_scale,
        "offset_bytes": a[:, 2] * b_scale,
        "size_bytes": a[:, 3] * b_scale,
        "is_read": (a[:, 4].astype(np.int64) & 1).astype(bool),
        "device": dev,
        "latency_s": np.full(n, np.nan),
        "idle_s": np.full(n, np.nan),
        "line": np.arange(first, first + n, dtype=np.int64),
    }


def _ascii_line(text: str, ln: int, ctx: Context, t_scale: float, b_scale: float):
    parts = _fields(text, ctx, ln, 5, _ASCII_FIELDS)
    if parts is None:
        return None
    t = number(parts[0], ctx, ln, "arrival") * t_scale
    dev = whole(parts[1], ctx, ln, "device")
    block = number(parts[2], ctx, ln, "block")
    size = number(parts[3], ctx, ln, "size")
    flags = whole(parts[4], ctx, ln, "flags")
    if block < 0:
        raise ctx.error(ln, f"block: expected a non-negative number, got {parts[2]!r}")
    if size <= 0:
        ctx.count("zero", ln, "requests of size 0 skipped")
        return None
    return (t, block * b_scale, size * b_scale, bool(flags & 1), ctx.numbered_device(dev),
            math.nan, math.nan, ln)


def parse_disksim_ascii(lines: LineReader, ctx: Context, *, time_unit: str,
                        size_unit: str) -> Iterator:
    t_scale = TIME_UNITS[time_unit]
    b_scale = SIZE_UNITS[size_unit]
    last = -math.inf
    for first, batch in lines.batches(BATCH_LINES):
        block = _ascii_batch(batch, first, ctx, t_scale, b_scale)
        if block is not None:
            t = block["arrival_s"]
            back = np.flatnonzero(np.diff(np.concatenate([[last], t])) < 0)
            if len(back):
                ctx.count("backwards", first + int(back[0]), _BACKWARDS, n=len(back))
            last = max(last, float(t.max()))
            yield block
            continue
        for i, text in enumerate(batch):
            rec = _ascii_line(text, first + i, ctx, t_scale, b_scale)
            if rec is None:
                continue
            if rec[0] < last:
                ctx.count("backwards", rec[7], _BACKWARDS)
            last = max(last, rec[0])
            yield rec


_BACKWARDS = "arrival times going backwards (requests sorted by time)"


_VALIDATE_FIELDS = "R|W Hit blkno blocks service_us idle_us"


def parse_disksim_validate(lines: LineReader, ctx: Context) -> Iterator[tuple]:
    arrival = 0.0
    dev = ctx.numbered_device(0)
    for text in lines:
        ln = lines.line
        parts = _fields(text, ctx, ln, 6, _VALIDATE_FIELDS)
        if parts is None:
            continue
        op = parts[0]
        if op not in ("R", "W"):
            raise ctx.error(ln, f"operation: expected R or W, got {op!r}")
        block = integer(parts[2], ctx, ln, "blkno")
        blocks = integer(parts[3], ctx, ln, "blocks")
        service_s = number(parts[4], ctx, ln, "service_us") * 1e-6
        idle_s = number(parts[5], ctx, ln, "idle_us") * 1e-6
        if blocks == 0:
            raise ctx.error(ln, "blocks: expected a positive size, got 0")
        if service_s < 0 or idle_s < 0:
            raise ctx.error(ln, "service_us/idle_us: expected non-negative times")
        yield (arrival, block * float(SECTOR_BYTES), blocks * float(SECTOR_BYTES), op == "R",
               dev, service_s, idle_s, ln)
        arrival += service_s + idle_s

"""Block-trace readers: one :class:`~iosim.traces.blocktrace.BlockTrace` from blkparse, WiscSee,
biosnoop, bpftrace biosnoop, fio iolog, fio per-I/O latency log, DiskSim ASCII and validate,
MSR Cambridge, SPC, Alibaba Cloud, Tencent CBS and FIU files.

=====================  =====================================================================
format                 what ``arrival_s`` is (always rebased so the first request is at 0)
=====================  =====================================================================
blkparse               the D (issue to driver) event; latency = C time - D time
wiscsee                the timestamp column (a D event of blkparse)
biosnoop               completion TIME(s) - LAT(ms): issue to the device
bpftrace-biosnoop      completion TIME(ms) - LAT(ms)
fio-iolog              v3: the timestamp (us); v2: the last ``wait`` (ms), 0 before any
fio-latlog             completion (whole ms, spread over the ms) - latency (ns): +-0.5 ms
disksim-ascii          the arrival column, in the declared or inferred unit
disksim-validate       reconstructed closed loop: previous arrival + latency + idle
msr                    the Windows filetime (100 ns ticks); latency = ResponseTime ticks
spc                    the Timestamp column (seconds)
alibaba                the timestamp column (us)
tencent                the Timestamp column (whole s; a second's requests spread over it)
fiu                    the ts column (ns)
csv                    the column its header names arrival/time/timestamp..., unit named
=====================  =====================================================================

Files are read line by line into fixed-size chunks (:func:`iter_block_trace`), so memory
stays bounded whatever the file's size; ``max_requests`` stops early. gzip, bzip2 and xz files
are decompressed as they are read. Requests are delivered
in arrival order: records a little out of order (blkparse interleaves per-CPU buffers,
biosnoop prints at completion) are sorted; decreasing timestamps where the format promises
increasing ones are counted in a warning and sorted too. Malformed input raises
:class:`~iosim.traces.errors.TraceFormatError` naming the file, the real line and the field;
what can be tolerated (prose around biosnoop output, blkparse summaries, unmatched D/C,
discards) is skipped and counted in ``BlockTrace.warnings``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from . import block_blkparse, block_csv, block_datasets, block_disksim, block_named, block_tools
from .block_io import Context, LineReader, chunked, concat
from .blocktrace import BlockTrace
from .errors import TraceFormatError

__all__ = ["BLOCK_FORMATS", "detect_block_format", "iter_block_trace", "read_block_trace"]

BLOCK_FORMATS = (
    "blkparse",
    "wiscsee",
    "biosnoop",
    "bpftrace-biosnoop",
    "fio-iolog",
    "fio-latlog",
    "disksim-ascii",
    "disksim-validate",
    "msr",
    "spc",
    "alibaba",
    "tencent",
    "fiu",
    "csv",
)

_SNIFF_LINES = 200
_WHOLE_READ_CHUNK = 200_000  # smaller pieces keep a whole read's transient memory low
_SNIFF_BYTES = 64 * 1024

_BLKPARSE = re.compile(r"^\s*\d+,\d+\s+\d+\s+\d+\s+\d+\.\d+\s+\d+\s+[A-Za-z]{1,2}\s+[A-Z]*")
_WISCSEE = re.compile(r"^\d+\s+[A-Z]\s+[a-z]+\s+\d+\s+\d+\s+[\d.]+\s+\S+\s+(?:True|False)\s*$")
_VALIDATE = re.compile(r"^[RW]\s+\S+\s+\d+\s+\d+\s+[\d.]+\s+[\d.]+\s*$")
_ASCII = re.compile(r"^\s*[\d.eE+-]+\s+\d+\s+[\d.eE+]+\s+[\d.eE+]+\s+\d+\s*$")
_MSR = re.compile(r"^\d+,[^,]*,\d+,(?:Read|Write)\s*,\d+,\d+,\d+\s*$", re.I)
_SPC = re.compile(r"^\d+,\d+,\d+,[rwRW],[\d.]+(?:,.*)?$")
_ALIBABA = re.compile(r"^\d+,[RWrw],\d+,\d+,\d+\s*$")
_TENCENT = re.compile(r"^\d+(?:\.\d*)?,\d+,\d+,[01],\d+\s*$")
_FIU = re.compile(r"^\d+\s+\d+\s+\S.*\s\d+\s+\d+\s+[RWrw]\s+\d+\s+\d+(?:\s+[0-9a-fA-F]+)?\s*$")
_FIO_LOG = re.compile(r"^\d+, \d+, \d+, \d+(?:, \d+){0,2}\s*$")


def _sniff_lines(path: Path, ctx: Context) -> list[str]:
    lines = []
    size = 0
    for text in LineReader(path, ctx):
        lines.append(text)
        size += len(text)
        if len(lines) >= _SNIFF_LINES or size > _SNIFF_BYTES:
            break
    return lines


def _sniff(lines: list[str], name: str = "") -> str | None:
    if block_tools.fio_latlog_kind(name) and lines and _FIO_LOG.match(lines[0]):
        return "fio-latlog"
    if lines and lines[0].startswith("fio version 2 iolog"):
        return "fio-iolog"
    if lines and lines[0].startswith("fio version 3 iolog"):
        return "fio-iolog"
    for text in lines:
        if re.match(r"^TIME\(ms\)\s+DISK", text):
            return "bpftrace-biosnoop"
        if re.match(r"^TIME\(s\)\s+COMM\s+PID\s+DISK", text):
            return "biosnoop"
    data = [t for t in lines if t.strip() and not t.lstrip().startswith("#")]
    for test, name in ((_BLKPARSE, "blkparse"), (_WISCSEE, "wiscsee"),
                       (_VALIDATE, "disksim-validate"), (_MSR, "msr"), (_SPC, "spc"),
                       (_ALIBABA, "alibaba"), (_TENCENT, "tencent"), (_FIU, "fiu"),
                       (_ASCII, "disksim-ascii")):
        hits = sum(1 for t in data[:50] if test.match(t))
        if hits and hits >= min(len(data[:50]), 3) * 0.8:
            return name
    if data and "," in data[0] and block_named.looks_named(data[0]):
        return "csv"
    return None


def detect_block_format(path: str | os.PathLike) -> str | None:
    """The block-trace format of ``path`` (one of :data:`BLOCK_FORMATS`) from its first lines,
    or None when nothing fits. Raises TraceFormatError for a directory, a binary file or a
    missing file."""
    ctx = Context(path, "block trace")
    return _sniff(_sniff_lines(Path(path), ctx), Path(path).name)


def _records(fmt: str, path: Path, ctx: Context, time_unit, size_unit,
             iolog=None) -> Iterator[tuple]:
    lines = LineReader(path, ctx)
    if iolog is not None:
        if fmt != "fio-latlog":
            raise ctx.error(None, f"an iolog gives the issue times of a fio latency log "
                            f"(fio-latlog); this file reads as {fmt}")
        return block_tools.parse_fio_latlog(lines, ctx, iolog=iolog)
    if fmt == "disksim-ascii":
        block_disksim.check_units(ctx, time_unit, size_unit)
        t_unit, s_unit = block_disksim.sniff_ascii_units(path, ctx, time_unit, size_unit)
        return block_disksim.parse_disksim_ascii(lines, ctx, time_unit=t_unit, size_unit=s_unit)
    if fmt == "csv":
        block_disksim.check_units(ctx, time_unit, size_unit)
        return block_named.parse_named_csv(lines, ctx, time_unit=time_unit, size_unit=size_unit)
    if time_unit is not None or size_unit is not None:
        raise ctx.error(None, f"time_unit=/size_unit= apply to disksim-ascii and csv only; {fmt} "
                        "states its units")
    parsers: dict[str, Callable] = {
        "disksim-validate": block_disksim.parse_disksim_validate,
        "blkparse": block_blkparse.parse_blkparse,
        "wiscsee": block_blkparse.parse_wiscsee,
        "biosnoop": block_tools.parse_biosnoop,
        "bpftrace-biosnoop": block_tools.parse_bpftrace_biosnoop,
        "fio-iolog": block_tools.parse_fio_iolog,
        "fio-latlog": block_tools.parse_fio_latlog,
        "msr": block_csv.parse_msr,
        "spc": block_csv.parse_spc,
        "alibaba": block_datasets.parse_alibaba,
        "tencent": block_datasets.parse_tencent,
        "fiu": block_datasets.parse_fiu,
    }
    return parsers[fmt](lines, ctx)


def _only_device(records: Iterator[tuple], ctx: Context, device) -> Iterator[tuple]:
    want = str(device)
    for rec in records:
        if isinstance(rec, dict):  # a batch of arrays
            ids = [d for d, name in ctx.device_names.items() if name == want]
            keep = np.isin(rec["device"], ids)
            if keep.any():
                yield {k: v[keep] for k, v in rec.items()}
        elif ctx.device_names.get(rec[4]) == want:
            yield rec


def iter_block_trace(
    path: str | os.PathLike,
    format: str | None = None,
    *,
    chunk_requests: int = 1_000_000,
    time_unit: str | None = None,
    size_unit: str | None = None,
    device: str | int | None = None,
    max_requests: int | None = None,
    iolog: str | os.PathLike | None = None,
) -> Iterator[BlockTrace]:
    """The trace as consecutive :class:`BlockTrace` chunks in arrival order (concatenated they
    equal :func:`read_block_trace`); memory holds about two chunks.

    ``format`` is one of :data:`BLOCK_FORMATS` (None: detected from the first lines);
    ``time_unit`` ("ns", "us", "ms", "s") and ``size_unit`` ("sectors", "bytes") declare the
    units of a DiskSim ASCII file; ``device`` keeps one device (its name as the trace writes it,
    e.g. "259,0", "xvda1", "3"); ``max_requests`` stops after that many requests; ``iolog``
    (a fio latency log only) is the same job's v3 ``write_iolog``, whose issue times become
    the arrivals. The last chunk carries all the warnings.
    """
    p = Path(path)
    if p.is_file() and p.stat().st_size == 0:
        raise TraceFormatError(p, None, "empty file: expected a block trace")
    if format is None:
        format = detect_block_format(p)
        if format is None:
            raise TraceFormatError(
                p, None, "cannot tell which block-trace format this is (expected one of "
                f"{', '.join(BLOCK_FORMATS)}); pass the format (--format on the command line, "
                "format= in Python)")
    elif format not in BLOCK_FORMATS:
        raise TraceFormatError(
            p, None, f"unknown block-trace format {format!r}; known: {', '.join(BLOCK_FORMATS)}")
    ctx = Context(p, format)
    records = _records(format, p, ctx, time_unit, size_unit, iolog)
    if device is not None:
        ctx.only_device = str(device)
        records = _only_device(records, ctx, device)
        ctx.note(f"only device {device} kept")
    yield from chunked(records, ctx, chunk_requests=chunk_requests, max_requests=max_requests)


def read_block_trace(
    path: str | os.PathLike,
    format: str | None = None,
    *,
    time_unit: str | None = None,
    size_unit: str | None = None,
    device: str | int | None = None,
    max_requests: int | None = None,
    iolog: str | os.PathLike | None = None,
) -> BlockTrace:
    """The whole trace as one :class:`BlockTrace` (see :func:`iter_block_trace` for the
    arguments and the module documentation for what arrival means in each format)."""
    return concat(iter_block_trace(path, format, chunk_requests=_WHOLE_READ_CHUNK,
                                   time_unit=time_unit, size_unit=size_unit, device=device,
                                   max_requests=max_requests, iolog=iolog))

"""Production block-trace sets published in their own layouts: Alibaba Cloud, Tencent CBS, FIU.

alibaba (github.com/alibaba/block-traces, ``io_traces.csv``: virtual disks of Alibaba Cloud's
    elastic block service, January 2020)
    ``device_id,opcode,offset,length,timestamp``: opcode R or W, offset and length in bytes,
    timestamp in microseconds (Unix time) when the server received the request. No response
    time. The first timestamp is subtracted as an integer before scaling.
tencent (SNIA IOTTA "Tencent CBS" traces: cloud virtual volumes of Tencent's cloud block
    storage, October 2018; OSCA, USENIX ATC '20)
    ``Timestamp,Offset,Size,IOType,VolumeID``: Timestamp in whole seconds (Unix time), Offset
    and Size in 512-byte sectors, IOType 0 (read) or 1 (write). A second holds many requests
    and the file says nothing of their times within it: they are placed at sorted uniform
    draws over their second, in file order (a fixed stream: the same file reads the same
    every time), and a note says so. A timestamp written with a fraction is taken as it is.
fiu (FIU SRCMap and I/O-deduplication traces, SNIA IOTTA; Koller and Rangaswami, FAST '10)
    ``ts pid process lba size R|W major minor [md5]``, whitespace-separated: ts in
    nanoseconds, lba and size in 512-byte blocks; the device is ``major,minor``. No response
    time. A process name with spaces is read from the fields around it.

Each is read like MSR and SPC files: clean lines in batches by pandas' C reader, any batch
holding something else line by line, which names the line and field.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator

import numpy as np

from .block_csv import BATCH_LINES, SECTOR_BYTES, _Backwards, _block, _csv_fields, _frame, batched
from .block_io import Context, LineReader, number, whole

_ALIBABA_FIELDS = "device_id,opcode,offset,length,timestamp"
_TENCENT_FIELDS = "Timestamp,Offset,Size,IOType,VolumeID"
_TENCENT_SEED = 20181001  # the stream placing a Tencent second's requests within it
_ZERO = "requests of size 0 skipped"


def _is_header(parts: list[str], first: str) -> bool:
    return parts[0].lower() == first.lower()


# --- Alibaba -------------------------------------------------------------------------------


class _Origin:
    """The first timestamp (an integer, subtracted before scaling) and the time-order check."""

    def __init__(self, ctx: Context):
        self.value: int | None = None
        self.back = _Backwards(ctx)

    def of(self, first: int) -> int:
        if self.value is None:
            self.value = first
        return self.value

    def rebased(self, ts: int, unit_s: float, ln: int) -> float:
        """One line's time stamp in seconds from the first, checked for order."""
        t = (ts - self.of(ts)) * unit_s
        self.back.one(t, ln)
        return t


def _read_or_write(text: str, ctx: Context, ln: int, field: str) -> bool:
    op = text.upper()
    if op not in ("R", "W"):
        raise ctx.error(ln, f"{field}: expected R or W, got {text[:30]!r}")
    return op == "R"


def _alibaba_batch(batch, first, ctx, origin: _Origin) -> dict | None:
    df = _frame(batch, 5, {0: np.int64, 1: str, 2: np.int64, 3: np.int64, 4: np.int64})
    if df is None:
        return None
    op = df[1].str.strip().str.upper()
    nums = df[[0, 2, 3, 4]].to_numpy()
    if not op.isin(("R", "W")).all() or (nums < 0).any() or (df[3] == 0).any() \
            or (df[0] >= 2**31).any():
        return None
    dev = df[0].to_numpy().astype(np.int32)
    for d in np.unique(dev):
        ctx.numbered_device(int(d))
    t = (df[4].to_numpy() - origin.of(int(df[4].iloc[0]))) * 1e-6
    origin.back.batch(t, first)
    return _block(len(df), first, arrival_s=t, offset_bytes=df[2].to_numpy(float),
                  size_bytes=df[3].to_numpy(float), is_read=(op == "R").to_numpy(), device=dev)


def _alibaba_line(text, ln, ctx, origin: _Origin):
    parts = _csv_fields(text, 5, ctx, ln, _ALIBABA_FIELDS)
    if parts is None or _is_header(parts, "device_id"):
        return None
    dev = whole(parts[0], ctx, ln, "device_id")
    is_read = _read_or_write(parts[1], ctx, ln, "opcode")
    offset = whole(parts[2], ctx, ln, "offset")
    size = whole(parts[3], ctx, ln, "length")
    ts = whole(parts[4], ctx, ln, "timestamp (us)")
    if size == 0:
        ctx.count("zero", ln, _ZERO)
        return None
    return (origin.rebased(ts, 1e-6, ln), float(offset), float(size), is_read,
            ctx.numbered_device(dev, ln), math.nan, math.nan, ln)


def parse_alibaba(lines: LineReader, ctx: Context) -> Iterator:
    ctx.note("alibaba: timestamps in us, offset and length in bytes; no response times")
    return batched(lines, ctx, _Origin(ctx), _alibaba_batch, _alibaba_line)


# --- Tencent CBS ---------------------------------------------------------------------------


class _Seconds:
    """Places the requests of each whole second at sorted uniform draws over it. The requests
    of the last second seen are held back until the next second starts (a second may span two
    batches), and the draws are taken in file order, so batching does not change the result."""

    def __init__(self):
        self.rng = np.random.default_rng(_TENCENT_SEED)
        self.held: dict | None = None
        self.whole_seconds = 0

    def push(self, cols: dict, final: bool = False) -> dict | None:
        if self.held is not None:
            cols = {k: np.concatenate([self.held[k], cols[k]]) for k in cols}
            self.held = None
        t = cols["arrival_s"]
        if not final and len(t):
            cut = _run_start(t)
            self.held = {k: v[cut:] for k, v in cols.items()}
            cols = {k: v[:cut] for k, v in cols.items()}
        if not len(cols["arrival_s"]):
            return None
        return self._spread(cols)

    def _spread(self, cols: dict) -> dict:
        t = cols["arrival_s"]
        whole_s = t == np.floor(t)
        u = self.rng.random(len(t))
        runs = np.concatenate([[0], np.cumsum(t[1:] != t[:-1])])
        order = np.lexsort((u, runs))
        frac = np.where(whole_s, u[order], 0.0)
        self.whole_seconds += int(whole_s.sum())
        cols["arrival_s"] = t + frac
        return cols


def _run_start(t: np.ndarray) -> int:
    """Where the run of values equal to the last one starts (at the end of ``t``)."""
    differ = np.flatnonzero(t != t[-1])
    return int(differ[-1]) + 1 if len(differ) else 0


def _tencent_batch(batch, first, ctx) -> dict | None:
    df = _frame(batch, 5, {0: np.float64, 1: np.int64, 2: np.int64, 3: np.int64, 4: np.int64})
    if df is None:
        return None
    nums = df[[1, 2, 4]].to_numpy()
    t = df[0].to_numpy()
    if not df[3].isin((0, 1)).all() or (nums < 0).any() or (df[2] == 0).any() \
            or not np.isfinite(t).all() or (t < 0).any() or (df[4] >= 2**31).any():
        return None
    dev = df[4].to_numpy().astype(np.int32)
    for d in np.unique(dev):
        ctx.numbered_device(int(d))
    return _block(len(df), first, arrival_s=t, offset_bytes=df[1].to_numpy() * float(SECTOR_BYTES),
                  size_bytes=df[2].to_numpy() * float(SECTOR_BYTES),
                  is_read=(df[3] == 0).to_numpy(), device=dev)


def _tencent_line(text, ln, ctx):
    parts = _csv_fields(text, 5, ctx, ln, _TENCENT_FIELDS)
    if parts is None or _is_header(parts, "timestamp"):
        return None
    t = float(whole(parts[0], ctx, ln, "Timestamp (s)")) if re.fullmatch(r"\d+", parts[0]) \
        else _seconds(parts[0], ctx, ln)
    offset = whole(parts[1], ctx, ln, "Offset (sectors)")
    size = whole(parts[2], ctx, ln, "Size (sectors)")
    if parts[3] not in ("0", "1"):
        raise ctx.error(ln, f"IOType: expected 0 (read) or 1 (write), got {parts[3][:30]!r}")
    vol = whole(parts[4], ctx, ln, "VolumeID")
    if size == 0:
        ctx.count("zero", ln, _ZERO)
        return None
    return (t, offset * float(SECTOR_BYTES), size * float(SECTOR_BYTES), parts[3] == "0",
            ctx.numbered_device(vol, ln), math.nan, math.nan, ln)


def _seconds(text: str, ctx: Context, ln: int) -> float:
    t = number(text, ctx, ln, "Timestamp (s)")
    if t < 0:
        raise ctx.error(ln, f"Timestamp (s): expected a time >= 0, got {text[:30]!r}")
    return t


def _rows_block(rows: list[tuple]) -> dict:
    cols = list(zip(*rows, strict=True))
    return {"arrival_s": np.array(cols[0], float), "offset_bytes": np.array(cols[1], float),
            "size_bytes": np.array(cols[2], float), "is_read": np.array(cols[3], bool),
            "device": np.array(cols[4], np.int32), "latency_s": np.array(cols[5], float),
            "idle_s": np.array(cols[6], float), "line": np.array(cols[7], np.int64)}


def parse_tencent(lines: LineReader, ctx: Context) -> Iterator:
    seconds = _Seconds()
    back = _Backwards(ctx)
    for first, batch in lines.batches(BATCH_LINES):
        block = _tencent_batch(batch, first, ctx)
        if block is None:
            rows = [r for i, text in enumerate(batch)
                    if (r := _tencent_line(text, first + i, ctx)) is not None]
            if not rows:
                continue
            block = _rows_block(rows)
        back.batch(block["arrival_s"], first)
        out = seconds.push(block)
        if out is not None:
            yield out
    if seconds.held is not None:
        out = seconds.push({k: v[:0] for k, v in seconds.held.items()}, final=True)
        if out is not None:
            yield out
    if seconds.whole_seconds:
        ctx.note("tencent: timestamps in whole seconds: the requests of one second are placed "
                 "at sorted uniform draws over it, in file order, so arrival times within a "
                 "second (and an open-loop replay's queueing) are assumed, not measured; "
                 "offsets and sizes in 512-byte sectors; no response times")


# --- FIU -----------------------------------------------------------------------------------

_FIU_FIELDS = "ts (ns) pid process lba size (512-B blocks) R|W major minor [md5]"


def _fiu_fields(text: str, ctx: Context, ln: int) -> list[str] | None:
    parts = text.split()
    if not parts or parts[0].startswith("#"):
        return None
    has_md5 = not re.fullmatch(r"\d+", parts[-1])
    core = parts[:-1] if has_md5 else parts
    if len(core) < 8:
        raise ctx.error(ln, f"truncated line: expected the fields {_FIU_FIELDS}, got "
                        f"{len(parts)}")
    # pid, then the process name (which may hold spaces), then five fields from the end
    return [core[0], core[1], " ".join(core[2:-5])] + core[-5:]


def _fiu_line(text, ln, ctx, origin: _Origin):
    parts = _fiu_fields(text, ctx, ln)
    if parts is None:
        return None
    ts = whole(parts[0], ctx, ln, "ts (ns)")
    lba = whole(parts[3], ctx, ln, "lba")
    size = whole(parts[4], ctx, ln, "size (512-B blocks)")
    is_read = _read_or_write(parts[5], ctx, ln, "operation")
    device = f"{whole(parts[6], ctx, ln, 'major')},{whole(parts[7], ctx, ln, 'minor')}"
    if size == 0:
        ctx.count("zero", ln, _ZERO)
        return None
    return (origin.rebased(ts, 1e-9, ln), lba * float(SECTOR_BYTES),
            size * float(SECTOR_BYTES), is_read, ctx.device_id(device), math.nan, math.nan, ln)


def parse_fiu(lines: LineReader, ctx: Context) -> Iterator:
    origin = _Origin(ctx)
    ctx.note("fiu: timestamps in ns, lba and size in 512-byte blocks; no response times")
    for text in lines:
        rec = _fiu_line(text, lines.line, ctx, origin)
        if rec is not None:
            yield rec

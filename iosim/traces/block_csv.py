"""MSR Cambridge and SPC block traces (comma-separated).

MSR Cambridge (SNIA IOTTA trace set "MSR Cambridge Traces", Narayanan et al., FAST '08)
    ``Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime``: Timestamp is a Windows
    filetime (100 ns ticks) at issue, Type Read or Write, Offset and Size in bytes,
    ResponseTime in 100 ns ticks (``latency_s``). Devices are named ``host_disk``. The first
    timestamp is subtracted as an integer before scaling, so the 100 ns resolution survives
    (a filetime near 1.3e17 does not fit a double's 53 bits).
SPC (UMass Trace Repository, SPC trace format of the Storage Performance Council)
    ``ASU,LBA,Size,Opcode,Timestamp[,...]``: ASU is the device, LBA in 512-byte sectors, Size
    in bytes, Opcode r or w, Timestamp in seconds from the trace's start.

Clean lines are parsed :data:`BATCH_LINES` at a time by pandas' C reader; a batch holding
anything else (a header, a comment, a blank, short or malformed line, a zero size) is read line
by line, which names the line and field or counts what it skips. Decreasing timestamps are
counted in a warning and the requests sorted.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterator

import numpy as np

from .block_io import Context, LineReader, number, whole

SECTOR_BYTES = 512
BATCH_LINES = 65_536
TICK_S = 100e-9

_MSR_FIELDS = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"
_SPC_FIELDS = "ASU,LBA,Size,Opcode,Timestamp"
_BACKWARDS = "timestamps going backwards (requests sorted)"


def _csv_fields(text: str, n: int, ctx: Context, ln: int, what: str) -> list[str] | None:
    if not text.strip() or text.lstrip().startswith("#"):
        return None
    parts = [p.strip().strip('"').strip() for p in text.split(",")]
    if len(parts) < n:
        raise ctx.error(ln, f"truncated line: expected {n} comma-separated fields ({what}), "
                        f"got {len(parts)}")
    return parts


def _frame(batch: list[str], ncols: int, dtypes: dict, usecols=None):
    """The batch as a DataFrame (the first ``ncols`` columns, or those in ``usecols``) when
    every line is clean, else None."""
    import pandas as pd  # (loaded by the first MSR or SPC batch only)

    try:
        df = pd.read_csv(io.StringIO("\n".join(batch)), header=None,
                         usecols=range(ncols) if usecols is None else usecols,
                         dtype=dtypes, skip_blank_lines=False, engine="c",
                         skipinitialspace=True)
    except (ValueError, TypeError, IndexError, pd.errors.ParserError,
            pd.errors.EmptyDataError, OverflowError):
        return None
    if len(df) != len(batch) or df.isna().to_numpy().any():
        return None
    return df


class _Backwards:
    """Counts timestamps that step back, across batches and single lines."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.last = -math.inf

    def batch(self, t: np.ndarray, first_line: int) -> None:
        back = np.flatnonzero(np.diff(np.concatenate([[self.last], t])) < 0)
        if len(back):
            self.ctx.count("backwards", first_line + int(back[0]), _BACKWARDS, n=len(back))
        self.last = max(self.last, float(t.max()))

    def one(self, t: float, line: int) -> None:
        if t < self.last:
            self.ctx.count("backwards", line, _BACKWARDS)
        self.last = max(self.last, t)


def _block(n: int, first: int, **cols) -> dict:
    cols.setdefault("latency_s", np.full(n, np.nan))
    cols["idle_s"] = np.full(n, np.nan)
    cols["line"] = np.arange(first, first + n, dtype=np.int64)
    return cols


# --- MSR Cambridge ------------------------------------------------------------------------


class _MsrState:
    def __init__(self, ctx: Context):
        self.origin: int | None = None
        self.back = _Backwards(ctx)


def _msr_batch(batch, first, ctx, state: _MsrState) -> dict | None:
    df = _frame(batch, 7, {0: np.int64, 1: str, 2: np.int64, 3: str, 4: np.int64,
                           5: np.int64, 6: np.int64})
    if df is None:
        return None
    kind = df[3].str.strip().str.lower()
    nums = df[[0, 2, 4, 5, 6]].to_numpy()
    if not kind.isin(("read", "write")).all() or (nums < 0).any() or (df[5] == 0).any():
        return None
    if state.origin is None:
        state.origin = int(df[0].iloc[0])
    names = df[1].str.strip() + "_" + df[2].astype(str)
    codes, uniques = names.factorize()
    ids = np.array([ctx.device_id(u) for u in uniques], dtype=np.int32)
    t = (df[0].to_numpy() - state.origin) * TICK_S
    state.back.batch(t, first)
    return _block(len(df), first, arrival_s=t, offset_bytes=df[4].to_numpy(float),
                  size_bytes=df[5].to_numpy(float), is_read=(kind == "read").to_numpy(),
                  device=ids[codes], latency_s=df[6].to_numpy() * TICK_S)


def _msr_line(text, ln, ctx, state: _MsrState):
    parts = _csv_fields(text, 7, ctx, ln, _MSR_FIELDS)
    if parts is None or parts[0].lower() == "timestamp":
        return None
    ts = whole(parts[0], ctx, ln, "Timestamp")
    disk = whole(parts[2], ctx, ln, "DiskNumber")
    kind = parts[3].lower()
    if kind not in ("read", "write"):
        raise ctx.error(ln, f"Type: expected Read or Write, got {parts[3][:30]!r}")
    offset = whole(parts[4], ctx, ln, "Offset")
    size = whole(parts[5], ctx, ln, "Size")
    rt = whole(parts[6], ctx, ln, "ResponseTime")
    if size == 0:
        ctx.count("zero", ln, "requests of size 0 skipped")
        return None
    if state.origin is None:
        state.origin = ts
    t = (ts - state.origin) * TICK_S
    state.back.one(t, ln)
    return (t, float(offset), float(size), kind == "read",
            ctx.device_id(f"{parts[1]}_{disk}"), rt * TICK_S, math.nan, ln)


def batched(lines: LineReader, ctx: Context, state, batch_fn, line_fn) -> Iterator:
    """The requests of ``lines``: a batch of :data:`BATCH_LINES` lines parsed whole by
    ``batch_fn`` (None when anything in it is not clean), else line by line by ``line_fn``."""
    for first, batch in lines.batches(BATCH_LINES):
        block = batch_fn(batch, first, ctx, state)
        if block is not None:
            yield block
            continue
        for i, text in enumerate(batch):
            rec = line_fn(text, first + i, ctx, state)
            if rec is not None:
                yield rec


def parse_msr(lines: LineReader, ctx: Context) -> Iterator:
    return batched(lines, ctx, _MsrState(ctx), _msr_batch, _msr_line)


# --- SPC ----------------------------------------------------------------------------------


def _spc_batch(batch, first, ctx, back: _Backwards) -> dict | None:
    df = _frame(batch, 5, {0: np.int64, 1: np.int64, 2: np.int64, 3: str, 4: np.float64})
    if df is None:
        return None
    op = df[3].str.strip().str.lower()
    ints = df[[0, 1, 2]].to_numpy()
    t = df[4].to_numpy()
    if not op.isin(("r", "w")).all() or (ints < 0).any() or (df[2] == 0).any() \
            or not np.isfinite(t).all() or (df[0] > 2**31 - 1).any():
        return None
    asu = df[0].to_numpy().astype(np.int32)
    for d in np.unique(asu):
        ctx.numbered_device(int(d))
    back.batch(t, first)
    return _block(len(df), first, arrival_s=t, offset_bytes=df[1].to_numpy() * 512.0,
                  size_bytes=df[2].to_numpy(float), is_read=(op == "r").to_numpy(),
                  device=asu)


def _spc_line(text, ln, ctx, back: _Backwards):
    parts = _csv_fields(text, 5, ctx, ln, _SPC_FIELDS)
    if parts is None:
        return None
    asu = whole(parts[0], ctx, ln, "ASU")
    lba = whole(parts[1], ctx, ln, "LBA")
    size = whole(parts[2], ctx, ln, "Size")
    op = parts[3].lower()
    if op not in ("r", "w"):
        raise ctx.error(ln, f"Opcode: expected r or w, got {parts[3][:30]!r}")
    t = number(parts[4], ctx, ln, "Timestamp")
    if size == 0:
        ctx.count("zero", ln, "requests of size 0 skipped")
        return None
    back.one(t, ln)
    dev = ctx.numbered_device(asu, ln)
    return (t, lba * float(SECTOR_BYTES), float(size), op == "r", dev, math.nan, math.nan, ln)


def parse_spc(lines: LineReader, ctx: Context) -> Iterator:
    return batched(lines, ctx, _Backwards(ctx), _spc_batch, _spc_line)

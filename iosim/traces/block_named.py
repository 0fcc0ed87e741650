"""A block trace in any comma-separated layout whose header names its columns (format ``csv``).

For a trace no reader knows (an array's export, a bpftrace script's output, a data set such as
SNIA's SYSTOR '17 traces): the header says which column is which, and the units are never
guessed. A column's role comes from its name, its unit from a suffix (``_s``, ``_ms``, ``_us``,
``_ns``; ``_bytes``, ``_sectors`` of 512 bytes, ``_kib``) or, for names without one, from
``time_unit=``/``size_unit=`` (``--time-unit``/``--size-unit``), which then apply to every
unsuffixed time or size column; a column whose unit is neither is refused naming it.

=================  =========================================================================
role               header names (case and ``-``/``_``/spaces ignored; then a unit suffix)
=================  =========================================================================
arrival (needed)   arrival, time, timestamp, ts, issue, issue_time, start
offset (needed)    offset, lba, sector, address, block, blkno
size (needed)      size, length, len, nbytes, bytes, count, blocks
direction          is_read (1/0, true/false), is_write, or rw, op, opcode, type, iotype,
(needed)           operation, direction, cmd (R/W, read/write, and Windows' Read/Write)
latency            latency, response, response_time, lat, service_time, rt
device             device, dev, disk, disk_number, volume, volume_id, lun, devno, host
=================  =========================================================================

``bytes`` alone names a size in bytes, and ``lba`` or ``sector`` alone an offset in 512-byte
sectors. Other columns are ignored, said once.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator

import numpy as np

from .block_csv import _Backwards, _block, _frame, batched
from .block_disksim import SIZE_UNITS, TIME_UNITS
from .block_io import Context, LineReader, number

_ROLES = {
    "arrival": ("arrival", "time", "timestamp", "ts", "issue", "issuetime", "start"),
    "offset": ("offset", "lba", "sector", "address", "block", "blkno"),
    "size": ("size", "length", "len", "nbytes", "bytes", "count", "blocks"),
    "latency": ("latency", "response", "responsetime", "lat", "servicetime", "rt"),
    "device": ("device", "dev", "disk", "disknumber", "volume", "volumeid", "lun", "devno",
               "host"),
    "direction": ("rw", "op", "opcode", "type", "iotype", "operation", "direction", "cmd"),
}
_FLAGS = ("isread", "iswrite")
_TIME_SUFFIX = {"s": "s", "sec": "s", "ms": "ms", "us": "us", "usec": "us", "ns": "ns"}
_SIZE_SUFFIX = {"bytes": "bytes", "b": "bytes", "sectors": "sectors", "sector": "sectors",
                "kib": "kib", "kb": "kib"}
_SIZE_FACTORS = {**SIZE_UNITS, "kib": 1024.0}
_NEEDED = ("arrival", "offset", "size", "direction")
_IMPLIED = {"bytes": ("size", "bytes"), "lba": ("offset", "sectors"),
            "sector": ("offset", "sectors"), "blkno": ("offset", "sectors")}


def _key(name: str) -> str:
    return re.sub(r"[\s_\-()\[\]]", "", name.strip().strip('"').lower())


def _split_unit(name: str) -> tuple[str, str | None]:
    """``arrival_us`` -> (``arrival``, ``us``); ``Time(ms)`` -> (``time``, ``ms``)."""
    raw = name.strip().strip('"').lower()
    m = re.fullmatch(r"(.*?)[\s_\-]*[(\[]?\s*([a-z]+)\s*[)\]]?", raw)
    if m:
        stem, unit = _key(m[1]), m[2]
        if unit in _TIME_SUFFIX or unit in _SIZE_SUFFIX:
            if stem:
                return stem, unit
    return _key(raw), None


class _Layout:
    """Which column plays which role, and each one's factor to SI units."""

    def __init__(self, header: list[str], ctx: Context, ln: int, time_unit, size_unit):
        self.cols: dict[str, int] = {}
        self.factor: dict[str, float] = {}
        self.unit: dict[str, str] = {}
        self.flag: str | None = None  # "isread" / "iswrite" when the direction is a flag
        ignored = []
        for i, name in enumerate(header):
            role, unit = self._role(name, ctx, ln, time_unit, size_unit)
            if role is None or role in self.cols:
                ignored.append(name.strip())
                continue
            self.cols[role] = i
            if role == "direction" and _split_unit(name)[0] in _FLAGS:
                self.flag = _split_unit(name)[0]
            if unit is not None:
                self.unit[role] = unit
                self.factor[role] = TIME_UNITS[unit] if role in ("arrival", "latency") \
                    else _SIZE_FACTORS[unit]
        missing = [r for r in _NEEDED if r not in self.cols]
        if missing:
            raise ctx.error(ln, f"the header names no {' or '.join(missing)} column (columns: "
                            f"{', '.join(h.strip() for h in header)[:200]}); see `iosim "
                            "replay --help` for the names read")
        read_as = [f"{header[i].strip()} as {role}"
                   + (f" ({self.unit[role]})" if role in self.unit else "")
                   for role, i in sorted(self.cols.items(), key=lambda kv: kv[1])]
        ctx.note(f"csv: {', '.join(read_as)}")
        if ignored:
            ctx.note(f"columns not read: {', '.join(ignored)[:200]}")
        self.width = max(self.cols.values()) + 1

    def _role(self, name, ctx, ln, time_unit, size_unit):
        stem, unit = _split_unit(name)
        if stem in _FLAGS:
            return "direction", None
        if stem in _IMPLIED and unit is None:  # the name says its unit
            return _IMPLIED[stem]
        role = next((r for r, names in _ROLES.items() if stem in names), None)
        if role in (None, "device", "direction"):
            return role, None
        if role in ("arrival", "latency"):
            unit = _TIME_SUFFIX.get(unit or "") or time_unit
            if unit is None:
                raise ctx.error(ln, f"column {name.strip()!r}: its time unit is not in its name "
                                "(e.g. _s, _ms, _us, _ns); name it so or pass --time-unit "
                                "(time_unit= in Python)")
            return role, unit
        unit = _SIZE_SUFFIX.get(unit or "") or size_unit
        if unit is None:
            raise ctx.error(ln, f"column {name.strip()!r}: its size unit is not in its name "
                            "(_bytes, _sectors of 512 B or _kib); name it so or pass "
                            "--size-unit (size_unit= in Python)")
        return role, unit


_DECIMAL = re.compile(r"(\d+)(?:\.(\d*))?")


def _since(state: dict, text: str) -> float | None:
    """A time stamp less the first one, in the column's unit. Plain decimals are split at the
    point so that the whole part is subtracted as an integer (a Unix time to the microsecond
    has 16 digits, more than a double keeps); other forms (1e3) are read as floats. None for
    anything that is not a number >= 0."""
    m = _DECIMAL.fullmatch(text)
    if m:
        whole, frac = int(m[1]), float("0." + (m[2] or "0"))
    else:
        try:
            x = float(text)
        except ValueError:
            return None
        if not math.isfinite(x) or x < 0:
            return None
        whole, frac = int(x), x - int(x)
    if state["t0"] is None:
        state["t0"] = (whole, frac)
    w0, f0 = state["t0"]
    return (whole - w0) + (frac - f0)


def _direction(values: np.ndarray, flag: str | None) -> np.ndarray | None:
    """True for reads, from R/W words or a 0/1 flag column; None when a value is neither."""
    v = np.char.lower(np.char.strip(values.astype(str)))
    if flag is not None:
        ones, zeros = np.isin(v, ("1", "true", "1.0")), np.isin(v, ("0", "false", "0.0"))
        if not (ones | zeros).all():
            return None
        return ones if flag == "isread" else zeros
    reads = np.isin(v, ("r", "read", "rd"))
    writes = np.isin(v, ("w", "write", "wr"))
    return reads if (reads | writes).all() else None


def _batch(batch, first, ctx, state) -> dict | None:
    """A clean batch parsed by pandas (only the columns read), else None."""
    import pandas as pd

    layout, c = state["layout"], state["layout"].cols
    numeric = [r for r in ("offset", "size", "latency") if r in c]
    dtypes = {c[r]: np.float64 for r in numeric}
    dtypes[c["arrival"]] = str  # (kept as text: a Unix time's microseconds survive)
    dtypes[c["direction"]] = str
    if "device" in c:
        dtypes[c["device"]] = str
    df = _frame(batch, 0, dtypes, usecols=sorted(dtypes))
    if df is None:
        return None
    is_read = _direction(df[c["direction"]].to_numpy(), layout.flag)
    nums = {r: df[c[r]].to_numpy() * layout.factor[r] for r in numeric}
    times = [_since(state, x) for x in df[c["arrival"]].str.strip()]
    if is_read is None or any(not np.isfinite(x).all() or (x < 0).any() for x in nums.values()) \
            or (nums["size"] <= 0).any() or None in times:
        return None
    t = np.asarray(times) * layout.factor["arrival"]
    state["back"].batch(t, first)
    if "device" in c:
        codes, uniques = pd.factorize(df[c["device"]].str.strip())
        dev = np.array([ctx.device_id(u) for u in uniques], np.int32)[codes]
    else:
        dev = np.full(len(df), ctx.device_id("0"), np.int32)
    cols = dict(arrival_s=t, offset_bytes=nums["offset"], size_bytes=nums["size"],
                is_read=is_read, device=dev)
    if "latency" in c:
        cols["latency_s"] = nums["latency"]
    return _block(len(df), first, **cols)


def _line(text, ln, ctx, state):
    layout = state["layout"]
    if not text.strip() or text.lstrip().startswith("#"):
        return None
    parts = [p.strip().strip('"') for p in text.split(",")]
    if len(parts) < layout.width:
        raise ctx.error(ln, f"truncated line: expected at least {layout.width} comma-separated "
                        f"fields, got {len(parts)}")
    c = layout.cols
    vals = {}
    since = _since(state, parts[c["arrival"]])
    if since is None:
        number(parts[c["arrival"]], ctx, ln, f"arrival (column {c['arrival'] + 1})")
        raise ctx.error(ln, f"arrival (column {c['arrival'] + 1}): expected a time >= 0, got "
                        f"{parts[c['arrival']][:30]!r}")
    for role in ("offset", "size", "latency"):
        if role in c:
            x = number(parts[c[role]], ctx, ln, f"{role} (column {c[role] + 1})")
            if x < 0:
                raise ctx.error(ln, f"{role} (column {c[role] + 1}): expected a value >= 0, "
                                f"got {parts[c[role]][:30]!r}")
            vals[role] = x * layout.factor[role]
    is_read = _direction(np.array([parts[c["direction"]]]), layout.flag)
    if is_read is None:
        what = "1 or 0" if layout.flag else "R or W (read or write)"
        raise ctx.error(ln, f"direction (column {c['direction'] + 1}): expected {what}, got "
                        f"{parts[c['direction']][:30]!r}")
    if vals["size"] == 0:
        ctx.count("zero", ln, "requests of size 0 skipped")
        return None
    t = since * layout.factor["arrival"]
    state["back"].one(t, ln)
    dev = ctx.device_id(parts[c["device"]]) if "device" in c else ctx.device_id("0")
    return (t, vals["offset"], vals["size"], bool(is_read[0]), dev,
            vals.get("latency", math.nan), math.nan, ln)


def looks_named(line: str) -> bool:
    """Whether a header line names the four columns a csv trace needs (units not checked)."""
    stems = {_split_unit(h)[0] for h in line.split(",")}
    found = {r for r, names in _ROLES.items() if stems & set(names)}
    found |= {_IMPLIED[s][0] for s in stems & set(_IMPLIED)}
    if stems & set(_FLAGS):
        found.add("direction")
    return all(r in found for r in _NEEDED)


def _header(batch, first, ctx, state) -> int:
    """The number of lines of ``batch`` up to and including the header (read into the state's
    layout the first time); 0 once the header is behind."""
    if state["layout"] is not None:
        return 0
    for i, text in enumerate(batch):
        if text.strip() and not text.lstrip().startswith("#"):
            state["layout"] = _Layout(text.split(","), ctx, first + i, *state["units"])
            state["header_line"] = first + i
            return i + 1
    return len(batch)


def _batch_after_header(batch, first, ctx, state) -> dict | None:
    skip = _header(batch, first, ctx, state)
    rows = batch[skip:]
    if state["layout"] is None or not rows:
        return _block(0, first, arrival_s=np.empty(0), offset_bytes=np.empty(0),
                      size_bytes=np.empty(0), is_read=np.empty(0, bool),
                      device=np.empty(0, np.int32))
    return _batch(rows, first + skip, ctx, state)  # None: line by line, past the header


def _line_after_header(text, ln, ctx, state):
    return None if ln <= state["header_line"] else _line(text, ln, ctx, state)


def parse_named_csv(lines: LineReader, ctx: Context, time_unit=None, size_unit=None) -> Iterator:
    state: dict = {"layout": None, "back": _Backwards(ctx), "t0": None, "header_line": 0,
                   "units": (time_unit, size_unit)}
    yield from batched(lines, ctx, state, _batch_after_header, _line_after_header)
    if state["layout"] is None:
        raise ctx.error(None, "no header line: a csv trace names its columns in its first line")

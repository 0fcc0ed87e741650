"""Measured points as a CSV table: the convention of the project's ``data/`` directory, and the
tables people write by hand or export from a spreadsheet.

One row per point. The project's names: unit suffixes ``_ms``, ``_us``, ``_ns``, ``_s``, ``_pct``,
``_MiBps``, ``_MBps``, ``_KiBps``, ``_kBps``, ``_Bps``, ``_bytes``; ``threads`` = jobs of depth 1,
``qd`` = one job of that depth (sysbench and fio sweeps), ``numjobs``/``iodepth`` as fio's.

Other spellings are read by what they name, whatever the case: ``IOPS``, ``Read IOPS``,
``Queue Depth``/``Outstanding IOs``/``OIO``, ``Jobs``/``Workers``, ``Avg Latency (ms)``,
``Latency [us]``, ``p99 (ms)``, ``99th percentile latency (us)``, ``Max latency``,
``Throughput (MB/s)``, ``MiB/s``, ``%util``, ``Block size`` (``4k`` or a number with a unit in
the header). A time, rate or size column must carry its unit, in its name or (sizes) in each
cell: a latency column without one is refused naming it, never guessed. MB/s and kB/s are
decimal (10^6, 10^3), MiB/s and KiB/s binary. Semicolon-separated tables with decimal commas
(a spreadsheet's export in many locales) read as well. Every other column is kept in the
point's ``params`` (a number where it parses as one); ``extra["table_columns"]`` says how each
recognised column was read.
"""

from __future__ import annotations

import csv
import math
import os
import re
from pathlib import Path
from typing import Any

from .. import limits
from ..results import Curve, Results
from ..spec import SpecError
from ..units import UnitError, parse_size
from .errors import TraceFormatError

__all__ = ["TableError", "read_table"]


class TableError(TraceFormatError, SpecError):
    """A table that cannot be read: a format error to ``iosim.traces.read`` and a spec error
    to ``iosim.fit`` (which read tables too), naming the file, the line and what was
    expected."""


def _f(v: Any) -> float | None:
    if v is None:
        return None
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


_UNIT = {
    "ms": 1e-3,
    "us": 1e-6,
    "ns": 1e-9,
    "s": 1.0,
    "pct": 0.01,
    "MiBps": 1024.0**2,
    "MBps": 1e6,
    "KiBps": 1024.0,
    "kBps": 1e3,
    "Bps": 1.0,
    "bytes": 1.0,
}
_LAT = {
    "lat_mean": "lat_mean_s",
    "lat_p50": "lat_p50_s",
    "lat_p90": "lat_p90_s",
    "lat_p95": "lat_p95_s",
    "lat_p99": "lat_p99_s",
    "lat_p999": "lat_p999_s",
    "lat_max": "lat_max_s",
    "await": "block_lat_mean_s",
}

# -- other spellings: what a column names, and its unit ------------------------------------

#: unit words a header may carry, in parentheses, brackets or last: (kind, factor to SI)
_HEADER_UNITS = {
    "ns": ("time", 1e-9), "nsec": ("time", 1e-9),
    "us": ("time", 1e-6), "usec": ("time", 1e-6), "µs": ("time", 1e-6), "μs": ("time", 1e-6),
    "microseconds": ("time", 1e-6),
    "ms": ("time", 1e-3), "msec": ("time", 1e-3), "milliseconds": ("time", 1e-3),
    "s": ("time", 1.0), "sec": ("time", 1.0), "seconds": ("time", 1.0),
    "%": ("fraction", 0.01), "pct": ("fraction", 0.01), "percent": ("fraction", 0.01),
    "b/s": ("rate", 1.0), "bps": ("rate", 1.0),
    "kb/s": ("rate", 1e3), "kbps": ("rate", 1e3), "kib/s": ("rate", 1024.0),
    "kibps": ("rate", 1024.0),
    "mb/s": ("rate", 1e6), "mbps": ("rate", 1e6), "mib/s": ("rate", 1024.0**2),
    "mibps": ("rate", 1024.0**2),
    "gb/s": ("rate", 1e9), "gbps": ("rate", 1e9), "gib/s": ("rate", 1024.0**3),
    "gibps": ("rate", 1024.0**3),
    "b": ("size", 1.0), "bytes": ("size", 1.0), "kib": ("size", 1024.0), "kb": ("size", 1024.0),
    "k": ("size", 1024.0), "mib": ("size", 1024.0**2), "mb": ("size", 1024.0**2),
}
_RE_HEADER_UNIT = re.compile(r"^(?P<name>.*?)\s*[(\[]\s*(?P<unit>[^)\]]+?)\s*[)\]]\s*$")
_RE_LAST_WORD = re.compile(r"^(?P<name>.*?)[\s_]+(?P<unit>[^\s_]+)$")

_P = {"50": "lat_p50_s", "median": "lat_p50_s", "90": "lat_p90_s", "95": "lat_p95_s",
      "99": "lat_p99_s", "99_9": "lat_p999_s", "999": "lat_p999_s"}
#: a column's name (lower case, words joined by "_", no unit) -> (what it is, kind of unit)
_NAMES: dict[str, tuple[str, str | None]] = {
    **{n: ("iops", None) for n in ("iops", "io_s", "ios_s", "ops_s", "total_iops",
                                   "iops_total", "iops_avg", "avg_iops")},
    **{n: ("read_iops", None) for n in ("read_iops", "r_iops", "iops_read", "reads_s",
                                        "read_io_s", "r_s")},
    **{n: ("write_iops", None) for n in ("write_iops", "w_iops", "iops_write", "writes_s",
                                         "write_io_s", "w_s")},
    **{n: ("qd", None) for n in ("qd", "queue_depth", "queuedepth", "io_depth", "depth",
                                 "outstanding", "outstanding_ios", "outstanding_io", "oio",
                                 "outstanding_i_os", "outstanding_i_o")},
    **{n: ("numjobs", None) for n in ("jobs", "num_jobs", "workers", "processes")},
    **{n: ("threads", None) for n in ("threads", "thread_count", "num_threads")},
    **{n: ("lat_mean_s", "time") for n in (
        "lat", "latency", "lat_mean", "mean_lat", "avg_lat", "lat_avg", "average_latency",
        "avg_latency", "mean_latency", "latency_mean", "latency_avg", "latency_average",
        "response_time", "avg_response_time", "mean_response_time", "average_response_time",
        "resp_time", "avg_resp_time")},
    **{n: ("lat_max_s", "time") for n in ("max_lat", "lat_max", "max_latency", "latency_max",
                                          "max_response_time")},
    **{n: ("bandwidth_Bps", "rate") for n in ("bw", "bandwidth", "throughput", "")},
    **{n: ("util", "fraction") for n in ("util", "utilization", "utilisation", "busy")},
    **{n: ("block_size_bytes", "size") for n in ("bs", "block_size", "blocksize", "io_size",
                                                 "transfer_size", "xfer_size", "request_size")},
}
_RE_PCT_NAME = re.compile(
    r"^(?:lat(?:ency)?_)?(?:p|q)?(?P<p>50|90|95|99|99_9|999|median)(?:th)?"
    r"(?:_(?:pct|percentile|pctl))?(?:_lat(?:ency)?)?$")


def _words(name: str) -> str:
    return re.sub(r"[^0-9a-zµμ%]+", "_", name.lower().replace("/", "_")).strip("_")


def _split_unit(col: str) -> tuple[str, tuple[str, float] | None]:
    """A header without its unit, and the unit's (kind, factor) when it names one."""
    for rx in (_RE_HEADER_UNIT, _RE_LAST_WORD):
        m = rx.match(col.strip())
        if m and m.group("unit").lower() in _HEADER_UNITS:
            return m.group("name"), _HEADER_UNITS[m.group("unit").lower()]
    if col.strip().lower() in _HEADER_UNITS:  # a bare "MB/s" or "%util"
        return "", _HEADER_UNITS[col.strip().lower()]
    if col.strip().startswith("%"):
        return col.strip()[1:], _HEADER_UNITS["%"]
    return col, None


def _role(col: str, where: str) -> tuple[str, float] | None:
    """What a column of another spelling holds, as (target, factor to SI); None for a column
    to keep as a parameter. A time, rate or fraction without its unit is refused."""
    base, unit = _split_unit(col)
    name = _words(base)
    if name == "" and (unit is None or unit[0] != "rate"):
        return None  # a bare unit names a quantity only when it is a rate ("MB/s")
    if name in _NAMES:
        target, kind = _NAMES[name]
    else:
        m = _RE_PCT_NAME.match(name)
        if not m or not (unit or name.startswith(("lat", "p"))):
            return None
        target, kind = _P[m.group("p")], "time"
    if kind is None:
        if unit is not None:  # "IOPS (k)": a count in thousands is not read as a count
            raise TableError(where, None, f"column {col!r} reads as {target}, a count, but "
                             f"its name carries a unit ({col.strip()}): give plain numbers")
        return target, 1.0
    if kind == "size":  # each cell may carry its own unit (4k); a header unit scales numbers
        return target, unit[1] if unit and unit[0] == "size" else 0.0
    if unit is None or unit[0] != kind:
        said = f"its unit ({unit[0]})" if unit else "no unit"
        want = {"time": "a time unit, e.g. 'Avg Latency (ms)' or lat_mean_us",
                "rate": "a rate unit, e.g. 'Throughput (MB/s)' or bw_MiBps",
                "fraction": "a percent, e.g. '%util' or util_pct"}[kind]
        raise TableError(where, None, f"column {col!r} reads as {target} but has {said}: "
                         f"name it with {want}; a unit is never guessed")
    return target, unit[1]


def _dialect(text: str) -> tuple[str, bool]:
    """The separator of a table's header line, and whether its numbers have decimal commas
    (a semicolon-separated export from a spreadsheet)."""
    head = text.lstrip("\ufeff").split("\n", 1)[0]
    counts = {sep: head.count(sep) for sep in (",", ";", "\t")}
    sep = max(counts, key=counts.get)
    if counts[sep] == 0:
        sep = ","
    return sep, sep == ";" and bool(re.search(r"(?:^|;)\s*-?\d+,\d+\s*(?:;|$)", text, re.M))


def read_table(path: str | os.PathLike) -> Curve:
    """A CSV table of measured points as a :class:`Curve` (see the module documentation for
    the column names and units it reads)."""
    p = Path(path)
    text = limits.read_text(p, what="a table of measured points",
                            error=lambda where, reason: TableError(where, None, reason))
    sep, decimal_comma = _dialect(text)
    try:
        rows = list(csv.DictReader(text.lstrip("\ufeff").splitlines(), delimiter=sep))
    except csv.Error as exc:
        raise TableError(p, None, f"not a readable CSV table ({exc})") from None
    if not rows or not any(c and c.strip() for c in rows[0]):
        raise TableError(p, None, "the table has no rows under a header of column names")
    roles = _header_roles(rows[0], p)
    points = []
    for lineno, row in enumerate(rows, start=2):
        points.append(_point(row, roles, p, lineno, decimal_comma))
    keys = {roles.get(c, (c, 0))[0] for c in rows[0] if c}
    x = next((k for k in ("threads", "qd", "iodepth", "numjobs") if k in keys), None)
    return Curve(points, x=x, label=p.stem)


def _header_roles(first: dict, p: Path) -> dict[str, tuple[str, float]]:
    """The columns spelled otherwise than the project's names, and what each holds."""
    roles: dict[str, tuple[str, float]] = {}
    for col in first:
        if col is None or not col.strip():  # a trailing separator's empty column
            continue
        c = col.strip()
        stem, _, suffix = c.rpartition("_")
        ours = (c in ("iops", "read_iops", "write_iops", "aqu_sz", "util_pct", "threads", "qd",
                      "numjobs", "iodepth", "bs_bytes", "span_bytes")
                or (stem in _LAT or stem == "bw") and suffix in _UNIT)
        if not ours:
            role = _role(c, f"{p}:1")
            if role is not None:
                roles[col] = role
    held = [t for t, _ in roles.values()]
    twice = sorted({t for t in held if held.count(t) > 1})
    if twice:
        cols = [c for c, (t, _) in roles.items() if t == twice[0]]
        raise TableError(p, 1, f"columns {', '.join(repr(c) for c in cols)} all read as "
                         f"{twice[0]}; keep one (or rename the others)")
    return roles


def _point(row: dict, roles: dict, p: Path, lineno: int, decimal_comma: bool) -> Results:
    r = Results()
    params: dict[str, Any] = {"source": f"{p.name}:{lineno}"}
    read_as: dict[str, str] = {}
    for col, raw in row.items():
        if col is None or raw is None or not col.strip():
            continue
        raw = raw.strip()
        if decimal_comma and re.fullmatch(r"-?\d+,\d+", raw):
            raw = raw.replace(",", ".")
        if raw == "":
            continue
        if col in roles:
            target, factor = roles[col]
            _set_role(r, params, target, factor, raw, f"{p}:{lineno}", col.strip())
            read_as[col.strip()] = target
        else:
            _set_ours(r, params, col.strip(), raw, p, lineno)
    if "threads" in params:
        params.setdefault("numjobs", params["threads"])
        params.setdefault("iodepth", 1)
    if "qd" in params:
        params.setdefault("iodepth", params["qd"])
        params.setdefault("numjobs", 1)
    r.params = params
    if read_as:
        r.extra = {**(r.extra or {}), "table_columns": read_as}
    return r


def _set_role(r: Results, params: dict, target: str, factor: float, raw: str, where: str,
              col: str) -> None:
    num = _f(raw)
    if target == "block_size_bytes":
        if factor and num is not None:
            params[target] = num * factor
            return
        try:
            params[target] = parse_size(raw, col)
        except UnitError:
            raise TableError(where, None, f"column {col!r}: expected a size such as 4k, or "
                             f"a unit in the header ('Block size (KiB)'), got {raw!r}") from None
        if num is not None:
            raise TableError(where, None, f"column {col!r} holds a bare number ({raw}) and "
                             "its header names no unit: write 4k, or name the column "
                             "'Block size (KiB)' or bs_bytes")
        return
    if target in ("qd", "numjobs", "threads"):
        if num is None or num < 1 or num != int(num):
            raise TableError(where, None, f"column {col!r} must be a whole number >= 1 "
                             f"(got {raw!r})")
        params[target] = int(num)
        return
    if num is None or num < 0:
        raise TableError(where, None, f"column {col!r} must be a number >= 0 (got {raw!r})")
    setattr(r, target, num * factor)


def _set_ours(r: Results, params: dict, col: str, raw: str, p: Path, lineno: int) -> None:
    """A column of the project's own names (see the module documentation)."""
    num = _f(raw)
    stem, _, suffix = col.rpartition("_")
    if col in ("iops", "read_iops", "write_iops", "aqu_sz"):
        _need(num, p, lineno, col)
        setattr(r, col, num)
    elif stem in _LAT and suffix in _UNIT:
        _need(num, p, lineno, col)
        setattr(r, _LAT[stem], num * _UNIT[suffix])
    elif stem == "bw" and suffix in _UNIT:
        _need(num, p, lineno, col)
        r.bandwidth_Bps = num * _UNIT[suffix]
    elif col == "util_pct":
        _need(num, p, lineno, col)
        r.util = num / 100.0
    elif col in ("threads", "qd", "numjobs", "iodepth"):
        if num is None or num < 1 or num != int(num):
            raise TableError(p, lineno, f"{col} must be a whole number >= 1 (got {raw!r})")
        params[col] = int(num)
    elif col == "bs_bytes":
        params["block_size_bytes"] = num if num is not None else raw
    elif col == "span_bytes":
        params["span_bytes"] = num if num is not None else raw
    else:
        params[col] = num if num is not None else raw


def _need(num, p, lineno, col):
    if num is None:
        raise TableError(p, lineno, f"{col} must be a number")

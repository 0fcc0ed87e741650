"""Human names and units for the keys of specs and results, shared by plots and reports.

The data stay in SI with the unit in the key (``lat_p99_s``, ``block_size_bytes``,
``bandwidth_Bps``); people read titles with units (``p99 latency (ms)``) and numbers in the
unit that suits them (IOPS with thousands separators, latency in µs or ms, sizes in KiB,
bandwidth in MiB/s, utilisation in percent). One table here, so a plot axis, a report column
and a table cell name the same quantity the same way.

* :func:`title` -- the axis title / column header of a key, with its unit;
* :func:`scale` -- the factor from the stored SI value to the unit in that title;
* :func:`column` -- a whole column as (header, cells), the time unit chosen once per column;
* :func:`number` -- a plain number without e-notation.

Sizes are binary (KiB = 1024 B, MiB = 1024² B); bandwidth is MiB/s, the unit fio prints.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

__all__ = ["column", "is_raw_key", "number", "scale", "title"]

KIB = 1024.0
MIB = 1024.0**2

# key (without a "workload." / "device." ... prefix) -> (title, factor from SI)
_NAMES: dict[str, tuple[str, float]] = {
    "numjobs": ("Jobs (numjobs)", 1.0),
    "iodepth": ("I/O depth per job (iodepth)", 1.0),
    "outstanding": ("Outstanding I/Os (jobs × iodepth)", 1.0),
    "threads": ("Outstanding I/Os (jobs × iodepth)", 1.0),
    "block_size_bytes": ("Block size (KiB)", 1 / KIB),
    "block_bytes": ("Block size (KiB)", 1 / KIB),
    "rate_iops": ("Offered load (IOPS)", 1.0),
    "rwmixread": ("Reads in the mix (%)", 1.0),
    "thinktime_s": ("Think time (ms)", 1e3),
    "span_bytes": ("Span (GiB)", 1 / KIB**3),
    "queue_depth": ("Queue depth", 1.0),
    "paths": ("Paths", 1.0),
    "units": ("Device units", 1.0),
    "nr_requests": ("Block-layer queue (nr_requests)", 1.0),
    "service": ("Device service time (ms)", 1e3),
    "overhead": ("Host overhead per I/O (ms)", 1e3),
    "latency_s": ("Link latency (ms)", 1e3),
    "time_s": ("Time (s)", 1.0),
    "point": ("Point", 1.0),
    # results
    "iops": ("IOPS", 1.0),
    "read_iops": ("Read IOPS", 1.0),
    "write_iops": ("Write IOPS", 1.0),
    "block_iops": ("IOPS at the block layer", 1.0),
    "iops_ci95": ("IOPS ± (95 % CI)", 1.0),
    "bandwidth_Bps": ("Bandwidth (MiB/s)", 1 / MIB),
    "lat_mean_s": ("Mean latency (ms)", 1e3),
    "lat_mean_ci95_s": ("Mean latency ± (95 % CI, ms)", 1e3),
    "lat_max_s": ("Max latency (ms)", 1e3),
    "read_lat_mean_s": ("Mean read latency (ms)", 1e3),
    "write_lat_mean_s": ("Mean write latency (ms)", 1e3),
    "device_lat_mean_s": ("Mean device latency (ms)", 1e3),
    "device_lat_p99_s": ("p99 device latency (ms)", 1e3),
    "block_lat_mean_s": ("Mean block-layer latency (ms)", 1e3),
    "avgrq_bytes": ("Mean request size (KiB)", 1 / KIB),
    "aqu_sz": ("Mean queue size (aqu-sz)", 1.0),
    "util": ("%util", 100.0),
    "unit_util": ("Device units busy (%)", 100.0),
    "qd_mean": ("Mean outstanding I/Os", 1.0),
    "device_qd_mean": ("Mean I/Os in the device", 1.0),
    "ios": ("I/Os measured", 1.0),
    "sim_time_s": ("Simulated time (s)", 1.0),
    "saturation": ("R(N) / R(1)", 1.0),
    "replications": ("Replications", 1.0),
    "seed": ("Seed", 1.0),
    "engine": ("Engine", 1.0),
    "rw": ("Pattern (rw)", 1.0),
}
_PCT = {"p50": "p50", "p90": "p90", "p95": "p95", "p99": "p99", "p999": "p99.9", "p9999": "p99.99"}
for _k, _v in _PCT.items():
    _NAMES[f"lat_{_k}_s"] = (f"{_v} latency (ms)", 1e3)
    _NAMES[f"lat_{_k}_ci95_s"] = (f"{_v} latency ± (95 % CI, ms)", 1e3)
_PREFIXES = ("workload.", "device.", "host.", "hba.", "multipath.", "block.", "link.")
_SPECIAL = {
    "hba.queue_depth": ("HBA queue depth", 1.0),
    "device.queue_depth": ("Device queue depth", 1.0),
}


def _lookup(key: str) -> tuple[str, float] | None:
    if key in _SPECIAL:
        return _SPECIAL[key]
    short = key
    for p in _PREFIXES:
        if key.startswith(p):
            short = key[len(p) :]
            break
    return _NAMES.get(short)


def _generic(key: str) -> tuple[str, float]:
    """Title and factor for a key not in the table, from its unit suffix."""
    short = key.split(".")[-1]
    for suffix, unit, factor in (
        ("_Bps", "MiB/s", 1 / MIB),
        ("_bytes", "KiB", 1 / KIB),
        ("_iops", "IOPS", 1.0),
        ("_s", "ms", 1e3),
    ):
        if short.endswith(suffix):
            words = short[: -len(suffix)].replace("_", " ").strip()
            return f"{words[:1].upper()}{words[1:]} ({unit})", factor
    words = short.replace("_", " ").strip()
    return (words[:1].upper() + words[1:]) or key, 1.0


def title(key: str) -> str:
    """The human title of a key, with its unit: ``workload.numjobs`` -> ``Jobs (numjobs)``,
    ``lat_p99_s`` -> ``p99 latency (ms)``. Never the raw key."""
    return (_lookup(key) or _generic(key))[0]


def scale(key: str) -> float:
    """The factor from the SI value of ``key`` to the unit of :func:`title`."""
    return (_lookup(key) or _generic(key))[1]


def is_raw_key(text: str) -> bool:
    """True for a title that is a key as stored: dotted (``workload.numjobs``) or with an SI
    unit suffix (``lat_p95_s``, ``block_size_bytes``). ``p99.9 latency (ms)`` is not."""
    t = str(text)
    return bool(re.search(r"[A-Za-z_]\.[A-Za-z]", t) or re.search(r"_(s|bytes|Bps)\b", t))


def number(v: Any, digits: int = 4) -> str:
    """A number for people: thousands separators, ``digits`` significant digits, at most
    four decimals, never e-notation (``16650400`` -> ``16,650,400``; ``0.25`` -> ``0.25``)."""
    if v is None:
        return ""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        try:
            v = float(v)
        except (TypeError, ValueError):
            return str(v)
    if isinstance(v, float) and math.isnan(v):
        return ""
    if isinstance(v, float) and math.isinf(v):
        return "∞" if v > 0 else "-∞"
    if float(v).is_integer() and abs(v) < 1e15:
        return f"{int(v):,}"
    a = abs(v)
    if a >= 10 ** (digits - 1):
        return f"{v:,.0f}"
    decimals = min(4, max(0, digits - 1 - math.floor(math.log10(a)))) if a > 0 else 0
    text = f"{v:,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text if text not in ("-0", "") else "0"


def _time_unit(values: list[float]) -> tuple[str, float]:
    finite = sorted(abs(v) for v in values if v is not None and math.isfinite(v) and v != 0)
    mid = finite[len(finite) // 2] if finite else 1e-3
    if mid < 1e-3:
        return "µs", 1e6
    if mid < 1.0:
        return "ms", 1e3
    return "s", 1.0


def column(key: str, values: Iterable[Any]) -> tuple[str, list[str]]:
    """A table column for people: its header (with the unit) and one string per value.
    Latencies get µs, ms or s, whichever suits the column's median; other keys the unit of
    :func:`title`. Text values pass through."""
    vals = list(values)
    nums: list[float | None] = []
    for v in vals:
        if isinstance(v, bool) or v is None:
            nums.append(None)
        elif isinstance(v, (int, float)):
            nums.append(float(v))
        else:
            nums.append(None)
    head = title(key)
    factor = scale(key)
    if head.endswith("ms)") and factor == 1e3 and any(n is not None for n in nums):
        unit, factor = _time_unit([n for n in nums if n is not None])
        head = head[: -len("ms)")] + unit + ")"
    cells = []
    for v, n in zip(vals, nums, strict=True):
        if n is None:
            cells.append("" if v is None else str(v))
        else:
            cells.append(number(n * factor))
    return head, cells

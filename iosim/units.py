"""Human unit strings -> SI numbers, and back.

Everything inside iosim is SI: bytes, seconds, bytes per second, I/Os per second. People write
"4k", "0.46ms", "4GB/s" or "7200rpm"; this module is the one place that reads those forms.

Conventions (stated because tools disagree):
- Sizes follow fio: ``k``, ``K``, ``KB`` and ``KiB`` all mean 1024 bytes (fio's default
  ``kb_base=1024``), likewise M, G, T, P. A size given as a plain number is in bytes.
- Rates in bytes per second follow the storage industry's data sheets: ``KB/s``, ``MB/s``,
  ``GB/s`` are decimal (1000^n), ``KiB/s``, ``MiB/s``, ``GiB/s`` are binary (1024^n). So a
  "4 GB/s" cloud disk moves 4e9 bytes per second.
- Counts ("1M" IOPS) are decimal.
- Times: ns, us (or µs), ms, s, min, h. A plain number is seconds.
"""

from __future__ import annotations

import math
import re

__all__ = [
    "UnitError",
    "parse_size",
    "parse_time",
    "parse_rate",
    "parse_count",
    "parse_rpm",
    "format_size",
    "format_time",
    "format_rate",
]


class UnitError(ValueError):
    """A value could not be read in the unit that was expected."""


_NUM = r"([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
_SIZE_POWERS = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4, "p": 5}
# seconds per unit, written as (multiplier, divisor) so "0.46ms" becomes 0.46 / 1000, which
# rounds to the same double as the literal 0.00046 (0.46 * 1e-3 would not)
_TIME_SCALE = {
    "": (1, 1),
    "s": (1, 1),
    "sec": (1, 1),
    "ms": (1, 1_000),
    "msec": (1, 1_000),
    "us": (1, 1_000_000),
    "µs": (1, 1_000_000),
    "usec": (1, 1_000_000),
    "ns": (1, 1_000_000_000),
    "nsec": (1, 1_000_000_000),
    "min": (60, 1),
    "h": (3600, 1),
}


def _split(text: object, what: str, name: str | None) -> tuple[float, str]:
    if isinstance(text, bool):
        raise UnitError(_msg(name, text, what))
    if isinstance(text, (int, float)):
        return float(text), ""
    if not isinstance(text, str):
        raise UnitError(_msg(name, text, what))
    s = text.strip().replace(" ", "").replace("_", "")
    if s.lower() in ("inf", "infinity", "+inf", "unlimited", "none"):
        return math.inf, ""
    m = re.fullmatch(_NUM + r"([A-Za-zµ/]*)", s)
    if not m:
        raise UnitError(_msg(name, text, what))
    return float(m.group(1)), m.group(2)


def _msg(name: str | None, value: object, what: str) -> str:
    where = f"{name}: " if name else ""
    return f"{where}cannot read {value!r} as {what}"


def parse_size(text: object, name: str | None = None) -> float:
    """Bytes from "4k", "4KiB", "512", "1.5M", "100G" (k = 1024, as fio)."""
    value, unit = _split(text, "a size such as 4k, 512KiB or 100G", name)
    u = unit.lower()
    if u.endswith("b") and u not in ("b",):
        u = u[:-1]  # KB, KiB -> k, ki
    elif u == "b":
        u = ""
    if u.endswith("i"):
        u = u[:-1]
    if u not in _SIZE_POWERS:
        raise UnitError(_msg(name, text, "a size such as 4k, 512KiB or 100G"))
    return value * 1024.0 ** _SIZE_POWERS[u]


def parse_time(text: object, name: str | None = None) -> float:
    """Seconds from "0.46ms", "460us", "2s", "5min" (a plain number is seconds)."""
    value, unit = _split(text, "a time such as 0.46ms, 460us or 2s", name)
    scale = _TIME_SCALE.get(unit) or _TIME_SCALE.get(unit.lower())
    if scale is None:
        raise UnitError(_msg(name, text, "a time such as 0.46ms, 460us or 2s"))
    mult, div = scale
    return value * mult / div if div != 1 else value * mult


def parse_rate(text: object, name: str | None = None) -> float:
    """Bytes per second from "4GB/s" (decimal), "200MiB/s" (binary), "inf" or a number."""
    what = "a bandwidth such as 4GB/s, 200MiB/s or inf"
    value, unit = _split(text, what, name)
    if unit == "":
        return value
    m = re.fullmatch(r"([kKmMgGtT]?)(i?)([bB])(?:/s|ps)", unit)
    if not m:
        raise UnitError(_msg(name, text, what))
    prefix, binary, byte = m.groups()
    if byte == "b":
        raise UnitError(_msg(name, text, what + " (bytes, not bits: write B)"))
    power = _SIZE_POWERS[prefix.lower()]
    base = 1024.0 if binary else 1000.0
    return value * base**power


def parse_count(text: object, name: str | None = None) -> float:
    """A plain count with decimal suffixes: "1M" IOPS = 1e6, "25k" = 25000."""
    what = "a number such as 25000, 25k or 1M"
    value, unit = _split(text, what, name)
    scale = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9}.get(unit.lower())
    if scale is None:
        raise UnitError(_msg(name, text, what))
    return value * scale


def parse_rpm(text: object, name: str | None = None) -> float:
    """Revolutions per minute from "7200rpm", "7.2k" or 7200."""
    what = "a rotation speed such as 7200rpm"
    value, unit = _split(text, what, name)
    u = unit.lower()
    if u.endswith("rpm"):
        u = u[:-3]
    scale = {"": 1.0, "k": 1e3}.get(u)
    if scale is None:
        raise UnitError(_msg(name, text, what))
    return value * scale


def format_size(nbytes: float) -> str:
    """4096 -> "4KiB" (exact binary multiples print without decimals)."""
    if not math.isfinite(nbytes):
        return "inf"
    for power, suffix in ((4, "TiB"), (3, "GiB"), (2, "MiB"), (1, "KiB")):
        unit = 1024.0**power
        if abs(nbytes) >= unit:
            v = nbytes / unit
            return f"{v:g}{suffix}" if v == int(v) else f"{v:.6g}{suffix}"
    return f"{nbytes:g}B"


def format_time(seconds: float) -> str:
    """0.00046 -> "0.46ms"."""
    if not math.isfinite(seconds):
        return "inf"
    a = abs(seconds)
    if a == 0:
        return "0"
    for div, suffix in ((1, "s"), (1_000, "ms"), (1_000_000, "us")):
        if a * div >= 1:
            return f"{seconds * div:.10g}{suffix}"
    return f"{seconds * 1e9:.10g}ns"


def format_rate(bps: float) -> str:
    """4e9 -> "4GB/s" (decimal, as data sheets)."""
    if not math.isfinite(bps):
        return "inf"
    for power, suffix in ((3, "GB/s"), (2, "MB/s"), (1, "KB/s")):
        if abs(bps) >= 1000.0**power:
            return f"{bps / 1000.0**power:.6g}{suffix}"
    return f"{bps:g}B/s"

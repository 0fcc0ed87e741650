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
- Times: ns, us (or µs), ms, s, min, h. A time written as text needs its unit: "0.46" could
  be 0.46 ms or 0.46 s, so it is refused with both readings in the message. Three exceptions,
  each unambiguous: zero, a key whose name states the unit (``thinktime_s=0.5``), and a Python
  number (SI by design: ``GenericDevice(service=0.00046)``).
- People read: sizes in KiB/MiB/GiB (k = 1024, as fio), bandwidth in MiB/s (as fio's first
  figure and consistent with KiB sizes), times in the unit that keeps 1-999 before the point.
  ``show_*`` are the one way numbers with units are printed for people; ``format_*`` write
  text that the ``parse_*`` functions read back exactly (a data sheet's "4GB/s" stays so).
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
    "show_time",
    "show_rate",
    "show_size",
    "show_count",
    "show_number",
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


def _needs_unit(name: str | None, text: str) -> str:
    where = f"{name}={text}" if name and not name.startswith("-") else (
        f"{name} {text}" if name else text
    )
    return f"{where}: a time needs a unit: {text}ms or {text}s?"


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
    """Seconds from "0.46ms", "460us", "2s", "5min".

    Text without a unit is refused unless it is zero or ``name`` ends in ``_s`` (the key says
    seconds); a Python int or float is seconds.
    """
    value, unit = _split(text, "a time such as 0.46ms, 460us or 2s", name)
    if unit == "" and isinstance(text, str) and value != 0 and math.isfinite(value):
        if not (name or "").endswith("_s"):
            raise UnitError(_needs_unit(name, text.strip()))
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


def format_time_exact(seconds: float) -> str:
    """:func:`format_time`'s text when :func:`parse_time` reads it back to ``seconds``
    exactly, else the shortest text that does (a fitted 49.148023530123 us keeps its every
    digit, so a stack written to a file reads back equal)."""
    text = format_time(seconds)
    if not math.isfinite(seconds) or parse_time(text) == seconds:
        return text
    suffix = text.lstrip("-+.0123456789e")
    div = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}[suffix]
    scaled = f"{seconds * div!r}{suffix}"
    return scaled if parse_time(scaled) == seconds else f"{seconds!r}s"


def format_number_exact(value: float) -> str:
    """``value`` as ``{:g}`` prints it when that reads back exactly, else every digit."""
    short = f"{value:g}"
    return short if float(short) == value else repr(float(value))


def format_rate(bps: float) -> str:
    """Text that parse_rate reads back: a data sheet's "4GB/s" stays decimal, 4 * 2**30
    prints "4GiB/s"; anything else in MiB/s (the unit show_rate prints for people)."""
    if not math.isfinite(bps):
        return "inf"
    bases = ((1000.0, ("GB/s", "MB/s", "KB/s")), (1024.0, ("GiB/s", "MiB/s", "KiB/s")))
    for base, suffixes in bases:
        for power, suffix in zip((3, 2, 1), suffixes, strict=True):
            v = bps / base**power
            if abs(v) >= 1 and f"{v:.4g}" == f"{v:.12g}":  # short and exact
                return f"{v:.4g}{suffix}"
    if abs(bps) >= 1024.0:
        return f"{bps / 1024.0**2:.6g}MiB/s"
    return f"{bps:g}B/s"


# -- for people: the one way numbers with units are printed -----------------------------------


def _missing(x: object) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def show_number(x: float | None, digits: int = 3) -> str:
    """A plain number with ``digits`` significant digits and thousands separators from 1000 on:
    0.0123 -> "0.0123", 3.14159 -> "3.14", 12345.6 -> "12,346"; never scientific notation."""
    if _missing(x):
        return "-"
    if not math.isfinite(x):
        return "inf" if x > 0 else "-inf"
    return _sig(x, digits)


def show_count(x: float | None) -> str:
    """IOPS and other counts: whole numbers with separators (12,345), small ones to 3 digits."""
    if _missing(x):
        return "-"
    return f"{x:,.0f}" if math.isfinite(x) and abs(x) >= 100 else show_number(x)


def show_time(seconds: float | None, digits: int = 3) -> str:
    """0.00046 -> "460 us", 0.0123 -> "12.3 ms", 2.5 -> "2.50 s" (as fio: usec, msec, sec)."""
    if _missing(seconds):
        return "-"
    if not math.isfinite(seconds):
        return "inf"
    if seconds == 0:
        return "0 s"
    a = abs(seconds)
    for scale, suffix in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us")):
        if a >= scale * 0.9995:  # 999.96 us shows as 1.00 ms, not 1,000 us
            return f"{_sig(seconds / scale, digits)} {suffix}"
    return f"{_sig(seconds * 1e9, digits)} ns"


def show_rate(bps: float | None, digits: int = 3) -> str:
    """Bytes per second in KiB/s, MiB/s or GiB/s: 1.6e7 -> "15.3 MiB/s"."""
    if _missing(bps):
        return "-"
    if not math.isfinite(bps):
        return "inf"
    for power, suffix in ((3, "GiB/s"), (2, "MiB/s"), (1, "KiB/s")):
        if abs(bps) >= 1024.0**power * 0.9995:
            return f"{_sig(bps / 1024.0**power, digits)} {suffix}"
    return f"{_sig(bps, digits)} B/s"


def show_size(nbytes: float | None) -> str:
    """4096 -> "4 KiB", 1.5 * 2**20 -> "1.5 MiB" (binary, as fio)."""
    if _missing(nbytes):
        return "-"
    text = format_size(nbytes)
    m = re.fullmatch(r"([-\d.e+]+)([A-Za-z]+)", text)
    if not m:
        return text
    value = float(m.group(1))
    number = m.group(1) if value == int(value) else f"{value:.4g}"
    return f"{number} {m.group(2)}"


def _sig(x: float, digits: int) -> str:
    """``digits`` significant digits, keeping trailing zeros (2.50), no exponent below 1e6."""
    if x == 0:
        return "0"
    a = abs(x)
    if a >= 10 ** (digits - 1):
        return f"{x:,.0f}"
    decimals = max(0, digits - 1 - math.floor(math.log10(a)))
    text = f"{x:.{decimals}f}"
    rounded = abs(float(text))
    if rounded and math.floor(math.log10(rounded)) > math.floor(math.log10(a)):
        return _sig(float(text), digits)  # 0.9996 rounds to 1.000: one digit too many
    return text

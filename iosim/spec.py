"""The small machinery shared by every spec dataclass.

A spec is a frozen, keyword-only dataclass whose fields say, in their metadata, what kind of
value they hold ("size", "time", "dist" ...). The base class converts human forms ("4k",
"0.46ms", "exp:0.46ms") to SI once, at construction, and each spec's ``validate`` checks
ranges with messages that name the dotted key, the value and what is allowed. The same field
metadata drives reading and writing TOML tables, so the file schema, ``--set`` keys and the
Python API cannot drift apart.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar

from . import limits
from .dists import Distribution, parse_dist
from .units import UnitError, parse_count, parse_rate, parse_rpm, parse_size, parse_time

__all__ = ["SpecError", "UnstableError", "Spec", "fld", "convert"]


class SpecError(ValueError):
    """An invalid specification: the message names the key, the value and what is allowed."""


class UnstableError(SpecError):
    """An open-loop arrival rate at or above what the stack can serve."""


def fld(default: Any, kind: str, **extra: Any) -> Any:
    """A spec field of the given kind: int, float, fraction, size, time, rate, count, rpm,
    dist, str, bool, or choice (with ``choices=(...)``)."""
    meta = {"kind": kind, **extra}
    if isinstance(default, (list, dict, set)):
        raise TypeError("mutable defaults are not allowed in specs")
    return dataclasses.field(default=default, metadata=meta)


_shown = limits.shown


def _num(value: Any, name: str) -> float:
    if isinstance(value, bool):
        raise SpecError(f"{name} must be a number (got {_shown(value)})")
    if isinstance(value, (int, float)):
        try:
            return float(value)
        except OverflowError:  # an int past float's range
            return math.inf if value > 0 else -math.inf
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            pass
    raise SpecError(f"{name} must be a number (got {_shown(value)})")


def convert(kind: str, value: Any, name: str, choices: tuple = ()) -> Any:
    """Read ``value`` as ``kind``; raise SpecError naming ``name`` if it cannot be read."""
    try:
        if kind == "int":
            if isinstance(value, str):
                value = parse_count(value, name)
            x = _num(value, name)
            if not math.isfinite(x) or x != int(x):
                raise SpecError(f"{name} must be a whole number (got {_shown(value)})")
            limits.check_count(x, name)
            return int(x)
        if kind in ("float", "fraction"):
            return _num(value, name)
        if kind == "size":
            x = parse_size(value, name)
            limits.check_size(x, name)
            return x
        if kind == "time":
            x = parse_time(value, name)
            limits.check_time(x, name)
            return x
        if kind == "rate":
            return parse_rate(value, name)
        if kind == "count":
            return parse_count(value, name)
        if kind == "rpm":
            return parse_rpm(value, name)
        if kind == "dist":
            return parse_dist(value, name)
        if kind == "bool":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.lower() in ("true", "false", "1", "0"):
                return value.lower() in ("true", "1")
            raise SpecError(f"{name} must be true or false (got {_shown(value)})")
        if kind in ("str", "choice"):
            if not isinstance(value, str):
                raise SpecError(f"{name} must be a string (got {_shown(value)})")
            if choices and value not in choices:
                allowed = ", ".join(choices)
                raise SpecError(f"{name} must be one of {allowed} (got {_shown(value)})")
            return value
    except UnitError as exc:
        raise SpecError(str(exc)) from None
    except SpecError:
        raise
    except ValueError as exc:
        raise SpecError(str(exc)) from None
    except OverflowError:  # an int past float's range, given in Python
        raise SpecError(f"{name}: the number is too large (got {_shown(value)})") from None
    return value  # "any": left to the spec's own __post_init__


def _dump(kind: str, value: Any) -> Any:
    if isinstance(value, Distribution):
        return value.spec()
    if isinstance(value, float) and math.isinf(value):
        return "inf"
    if isinstance(value, Spec):
        return value.to_dict()
    if isinstance(value, tuple):
        return [_dump(kind, v) for v in value]
    return value


class Spec:
    """Base of all spec dataclasses (subclasses are ``@dataclass(frozen=True, kw_only=True)``)."""

    section: ClassVar[str] = ""  # dotted prefix used in messages, e.g. "hba"

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            kind = f.metadata.get("kind")
            if kind is None:
                continue
            value = getattr(self, f.name)
            if value is None and f.metadata.get("optional"):
                continue
            name = f"{self.section}.{f.name}" if self.section else f.name
            converted = convert(kind, value, name, f.metadata.get("choices", ()))
            object.__setattr__(self, f.name, converted)
        self.validate()

    def validate(self) -> None:
        """Range checks; override in subclasses."""

    # messages -----------------------------------------------------------------------------
    def _key(self, fname: str) -> str:
        return f"{self.section}.{fname}" if self.section else fname

    def require(self, ok: bool, fname: str, allowed: str) -> None:
        if not ok:
            got = _shown(getattr(self, fname))
            raise SpecError(f"{self._key(fname)} must be {allowed} (got {got})")

    def with_(self, **changes: Any):
        """A validated copy with some fields changed: ``workload.with_(numjobs=8)``."""
        return dataclasses.replace(self, **changes)

    # tables -------------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, table: dict, where: str = ""):
        """Build from a TOML-like table, rejecting keys the schema does not have."""
        if not isinstance(table, dict):
            raise SpecError(f"{where}{cls.section}: expected a table (got {_shown(table)})")
        names = {f.name for f in dataclasses.fields(cls) if f.init}
        unknown = sorted(set(table) - names)
        if unknown:
            keys = ", ".join(f"{cls.section}.{k}" if cls.section else k for k in unknown)
            raise SpecError(
                f"{where}unknown key {keys}; allowed in [{cls.section}]: {', '.join(sorted(names))}"
            )
        try:
            return cls(**table)
        except SpecError as exc:
            raise SpecError(f"{where}{exc}") from None

    def to_dict(self) -> dict:
        out = {}
        for f in dataclasses.fields(self):
            if not f.init:
                continue
            value = getattr(self, f.name)
            if value is None:
                continue
            out[f.name] = _dump(f.metadata.get("kind", ""), value)
        return out

"""The catalogue of physical floors and ceilings: sourced figures as data (``catalogue.toml``).

Every figure is a range ``low``..``high`` in SI units with the keys of its sources; ``low`` alone
means a floor the sources give without an upper end.  The catalogue also names the media,
interfaces and transports that ``iosim check-claim`` accepts, and a set of published vendor
claims with their sources.

Use it for plausibility anywhere (the fit's warnings, preset defaults)::

    >>> from iosim import catalogue
    >>> lo, hi = catalogue.plausible_range("hdd_avg_seek_s", rpm=7200)
    >>> round(lo * 1e3, 1), round(hi * 1e3, 1)
    (7.4, 8.2)
    >>> catalogue.plausible_range("hdd_rotation_s", rpm=7200)   # arithmetic: 60 / rpm / 2
    (0.004166666666666667, 0.004166666666666667)

This module imports nothing from iosim (``tests/test_api.py``): ``claims`` may use it.
"""

from __future__ import annotations

import functools
import math
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "Catalogue",
    "Claim",
    "Figure",
    "Interface",
    "Medium",
    "Source",
    "Transport",
    "interface",
    "load",
    "plausible_range",
    "quantities",
]

PATH = Path(__file__).with_name("catalogue.toml")
UNITS = frozenset({"s", "B", "B/s", "count", "ratio", "bit", "IOPS"})


class CatalogueError(ValueError):
    """The catalogue file breaks one of its rules (names the entry and the rule)."""


@dataclass(frozen=True)
class Source:
    key: str
    title: str
    publisher: str
    date: str
    url: str

    def cite(self) -> str:
        return f"{self.publisher}, {self.title} ({self.date})"


@dataclass(frozen=True)
class Figure:
    """One sourced quantity: ``low``..``high`` in ``unit`` (SI)."""

    name: str
    low: float
    high: float | None
    unit: str
    sources: tuple[str, ...]
    note: str = ""
    typical: float | None = None
    derived: bool = False

    @property
    def upper(self) -> float:
        """``high``, or ``low`` when the sources give only a floor."""
        return self.low if self.high is None else self.high

    @property
    def range(self) -> tuple[float, float]:
        return self.low, self.upper


@dataclass(frozen=True)
class Medium:
    key: str
    label: str
    family: str  # nand | xpoint | hdd
    read: str | None = None
    program: str | None = None
    die_program: str | None = None
    die_bits: str | None = None
    rpm: float | None = None
    seek: str | None = None


@dataclass(frozen=True)
class Interface:
    """A link kind and width, e.g. ``pcie4x4``: ``lanes`` x ``lane`` figure x ``efficiency``."""

    key: str
    label: str
    lane: str
    lanes: int
    queue: str | None = None
    efficiency: str | None = None


@dataclass(frozen=True)
class Transport:
    key: str
    label: str
    added: str | None = None
    iops_per_core: str | None = None


@dataclass(frozen=True)
class Claim:
    """A published vendor claim (SI units; None where the source does not say)."""

    key: str
    label: str
    kind: str
    source: str
    iops: float | None = None
    block_bytes: float | None = None
    bandwidth_Bps: float | None = None
    queue_depth: float | None = None
    latency_s: float | None = None
    latency_max_s: float | None = None  # a bound ("sub-ms" = 1 ms), not a stated latency
    medium: str | None = None
    interface: str | None = None
    transport: str | None = None
    capacity_bytes: float | None = None
    read_fraction: float = 1.0
    note: str = ""

    @property
    def claimed_iops(self) -> float:
        """The IOPS, or bandwidth / block size for a bandwidth claim."""
        if self.iops is not None:
            return self.iops
        return self.bandwidth_Bps / self.block_bytes  # type: ignore[operator]


@dataclass(frozen=True)
class Catalogue:
    sources: dict[str, Source]
    figures: dict[str, Figure]
    media: dict[str, Medium]
    interfaces: dict[str, Interface]  # base kinds: sata, sas12, sas24, pcie3, pcie4, pcie5
    transports: dict[str, Transport]
    claims: dict[str, Claim]

    def figure(self, name: str) -> Figure:
        try:
            return self.figures[name]
        except KeyError:
            raise KeyError(f"no figure {name!r} in the catalogue") from None

    def cite(self, figure: Figure | str) -> str:
        """'[isscc21, znand]': the source keys of a figure, for inline references."""
        fig = self.figure(figure) if isinstance(figure, str) else figure
        return "[" + ", ".join(fig.sources) + "]"


# --------------------------------------------------------------------------- loading


def _number(entry: str, key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise CatalogueError(f"catalogue {entry}: {key} must be a finite number (got {value!r})")
    return float(value)


def _figure(name: str, raw: dict[str, Any], sources: dict[str, Source]) -> Figure:
    entry = f"figure.{name}"
    refs = raw.get("sources")
    if not refs or not isinstance(refs, list):
        raise CatalogueError(f"catalogue {entry}: every figure needs `sources` (none given)")
    for ref in refs:
        if ref not in sources:
            raise CatalogueError(f"catalogue {entry}: unknown source {ref!r}")
    if "low" not in raw:
        raise CatalogueError(f"catalogue {entry}: `low` is required")
    low = _number(entry, "low", raw["low"])
    high = None if "high" not in raw else _number(entry, "high", raw["high"])
    if high is not None and high < low:
        raise CatalogueError(f"catalogue {entry}: high {high:g} < low {low:g}")
    unit = raw.get("unit")
    if unit not in UNITS:
        raise CatalogueError(f"catalogue {entry}: unit must be one of {sorted(UNITS)}")
    typical = raw.get("typical")
    return Figure(
        name=name,
        low=low,
        high=high,
        unit=unit,
        sources=tuple(refs),
        note=str(raw.get("note", "")),
        typical=None if typical is None else _number(entry, "typical", typical),
        derived=bool(raw.get("derived", False)),
    )


def parse(data: dict[str, Any]) -> Catalogue:
    """Build and validate a :class:`Catalogue` from the TOML tables."""
    sources = {}
    for key, raw in data.get("source", {}).items():
        missing = [f for f in ("title", "publisher", "date", "url") if not raw.get(f)]
        if missing:
            raise CatalogueError(f"catalogue source.{key}: missing {', '.join(missing)}")
        sources[key] = Source(key, raw["title"], raw["publisher"], str(raw["date"]), raw["url"])
    figures = {n: _figure(n, raw, sources) for n, raw in data.get("figure", {}).items()}

    def refs(entry: str, raw: dict[str, Any], fields: tuple[str, ...]) -> None:
        for f in fields:
            if raw.get(f) is not None and raw[f] not in figures:
                raise CatalogueError(f"catalogue {entry}: {f} names unknown figure {raw[f]!r}")

    media = {}
    for key, raw in data.get("medium", {}).items():
        refs(f"medium.{key}", raw, ("read", "program", "die_program", "die_bits", "seek"))
        media[key] = Medium(key=key, **raw)
    interfaces = {}
    for key, raw in data.get("interface", {}).items():
        refs(f"interface.{key}", raw, ("lane", "queue", "efficiency"))
        interfaces[key] = Interface(key=key, lanes=int(raw.get("lanes", 1)), **{
            k: v for k, v in raw.items() if k != "lanes"
        })
    transports = {}
    for key, raw in data.get("transport", {}).items():
        refs(f"transport.{key}", raw, ("added", "iops_per_core"))
        transports[key] = Transport(key=key, **raw)
    claims = {}
    for key, raw in data.get("claim", {}).items():
        if raw.get("source") not in sources:
            raise CatalogueError(f"catalogue claim.{key}: needs a known `source`")
        claims[key] = Claim(key=key, **raw)
    return Catalogue(sources, figures, media, interfaces, transports, claims)


@functools.cache
def load(path: str | None = None) -> Catalogue:
    """The catalogue (cached).  ``path`` reads another file of the same form (tests)."""
    file = Path(path) if path else PATH
    with file.open("rb") as fh:
        return parse(tomllib.load(fh))


# --------------------------------------------------------------------------- lookups

_INTERFACE_RE = re.compile(r"^(pcie[345])(?:x(1|2|4|8|16))?$|^(sata|sas12|sas24)$")


def interface(text: str, cat: Catalogue | None = None) -> Interface:
    """``'pcie4x4'`` -> an Interface of 4 PCIe 4.0 lanes; ``'sata'``, ``'sas12'``, ``'sas24'``.

    ``ValueError`` names the accepted forms for anything else.
    """
    cat = cat or load()
    m = _INTERFACE_RE.match(str(text).strip().lower())
    if not m:
        raise ValueError(
            f"unknown interface {text!r}: expected sata, sas12, sas24 or pcie3/pcie4/pcie5 "
            "with x1, x2, x4, x8 or x16 (e.g. pcie4x4)"
        )
    if m.group(3):
        return cat.interfaces[m.group(3)]
    base = cat.interfaces[m.group(1)]
    lanes = int(m.group(2) or 4)
    return Interface(
        key=f"{base.key}x{lanes}",
        label=f"{base.label} x{lanes}",
        lane=base.lane,
        lanes=lanes,
        queue=base.queue,
        efficiency=base.efficiency,
    )


def link_payload_Bps(iface: Interface, cat: Catalogue | None = None) -> tuple[float, float]:
    """(low, high) payload bytes/s of a link: lanes x lane rate x protocol efficiency."""
    cat = cat or load()
    raw = iface.lanes * cat.figure(iface.lane).low
    if iface.efficiency is None:
        return raw, raw
    lo, hi = cat.figure(iface.efficiency).range
    return raw * lo, raw * hi


def _hdd_medium(rpm: float, cat: Catalogue) -> Medium:
    for m in cat.media.values():
        if m.family == "hdd" and m.rpm == rpm:
            return m
    known = sorted(int(m.rpm) for m in cat.media.values() if m.family == "hdd" and m.rpm)
    raise ValueError(f"no seek class for {rpm:g} rpm in the catalogue (known: {known})")


def quantities() -> tuple[str, ...]:
    """Names :func:`plausible_range` accepts besides any figure name."""
    return (
        "hdd_avg_seek_s (rpm=)",
        "hdd_rotation_s (rpm=)",
        "hdd_qd1_service_s (rpm=)",
        "nand_read_s (cell=slc|mlc|tlc|qlc)",
        "nand_program_s (cell=)",
        "link_Bps (interface=pcie4x4|sata|...)",
    )


def plausible_range(quantity: str, **params: Any) -> tuple[float, float]:
    """The published (low, high) of a physical quantity, in SI units.

    ``quantity`` is a figure name of the catalogue (``"nand_tlc_read_s"``) or one of the
    parametrised names in :func:`quantities`::

        plausible_range("hdd_avg_seek_s", rpm=7200)      # (0.0074, 0.0082)
        plausible_range("hdd_rotation_s", rpm=10000)     # (0.003, 0.003): 60 / rpm / 2
        plausible_range("hdd_qd1_service_s", rpm=7200)   # seek + half a turn
        plausible_range("nand_read_s", cell="tlc")       # (4e-05, 0.000106)
        plausible_range("link_Bps", interface="pcie4x4") # payload after encoding and TLPs

    ``ValueError`` names what is missing or unknown.
    """
    cat = load()
    if quantity in cat.figures:
        return cat.figures[quantity].range
    if quantity.startswith("hdd_"):
        if "rpm" not in params:
            raise ValueError(f"{quantity} needs rpm=")
        rpm = float(params["rpm"])
        if not rpm > 0:
            raise ValueError(f"rpm must be > 0 (got {params['rpm']!r})")
        half_turn = 30.0 / rpm
        if quantity == "hdd_rotation_s":
            return half_turn, half_turn
        seek = cat.figure(_hdd_medium(rpm, cat).seek).range  # type: ignore[arg-type]
        if quantity == "hdd_avg_seek_s":
            return seek
        if quantity == "hdd_qd1_service_s":
            return seek[0] + half_turn, seek[1] + half_turn
    if quantity in ("nand_read_s", "nand_program_s"):
        cell = str(params.get("cell", "")).lower()
        medium = cat.media.get(cell)
        if medium is None or medium.family != "nand":
            raise ValueError(f"{quantity} needs cell= one of slc, mlc, tlc, qlc, znand")
        name = medium.read if quantity == "nand_read_s" else medium.program
        return cat.figure(name).range  # type: ignore[arg-type]
    if quantity == "link_Bps":
        return link_payload_Bps(interface(params.get("interface", ""), cat), cat)
    raise ValueError(f"unknown quantity {quantity!r}: a figure name or one of {quantities()}")

"""The workload: what the jobs ask of the stack.

Closed loop (fio's default): ``numjobs`` jobs each keep ``iodepth`` I/Os outstanding; when an I/O
completes its job spends the host overhead (a property of the host, see ``Stack.host``) and the
think time, then issues the next. Open loop: I/Os arrive at ``rate_iops`` (Poisson or paced,
like fio's ``rate_process``) whatever the stack does. Every I/O draws its direction from
``rw``/``rwmixread``, its size from ``block_size_bytes`` or ``bssplit`` and its offset, random or
sequential, within ``span_bytes`` (fio's ``size``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from . import limits
from .spec import Spec, SpecError, fld
from .units import UnitError, parse_size, show_size

__all__ = ["Workload", "RW_MODES", "default_workload"]

RW_MODES = ("randread", "randwrite", "randrw", "read", "write", "rw", "readwrite")


# fio accepts up to 64 bssplit entries per direction
MAX_BSSPLIT = 64


def _weight(text, name: str) -> float:
    """A bssplit weight: a finite percentage from 0 to 100 (0 = share what the others leave)."""
    if isinstance(text, bool):
        raise SpecError(f"{name}: a weight must be a percentage from 0 to 100 (got {text!r})")
    try:
        w = float(text.strip() if isinstance(text, str) else text)
    except (TypeError, ValueError, OverflowError):
        raise SpecError(
            f"{name}: a weight must be a percentage from 0 to 100 (got {limits.shown(text)})"
        ) from None
    if not (math.isfinite(w) and 0 <= w <= 100):
        raise SpecError(
            f"{name}: a weight must be a percentage from 0 to 100 (got {limits.shown(text)})"
        )
    return w


def _parse_bssplit(value, name: str) -> tuple[tuple[float, float], ...]:
    """fio's bssplit "4k/50:64k/50" (or a list of [size, weight]) -> ((bytes, weight), ...)."""
    if value is None or value == "" or (isinstance(value, (list, tuple)) and not value):
        return ()
    if not isinstance(value, (str, list, tuple)):
        raise SpecError(
            f"{name} must look like '4k/50:64k/50' or [[4096, 50], [65536, 50]] (got {value!r})"
        )
    shape = f"{name} must look like '4k/50:64k/50' or [[4096, 50], [65536, 50]]"
    items = []
    try:
        if isinstance(value, str):
            parts = value.split(":")
            if len(parts) > MAX_BSSPLIT:
                raise SpecError(f"{name} has {len(parts)} entries; at most {MAX_BSSPLIT}")
            for part in parts:
                size, _, weight = part.partition("/")
                items.append((parse_size(size, name), _weight(weight, name) if weight else 0.0))
        else:
            if len(value) > MAX_BSSPLIT:
                raise SpecError(f"{name} has {len(value)} entries; at most {MAX_BSSPLIT}")
            for pair in value:
                size, weight = pair
                items.append((parse_size(size, name), _weight(weight, name)))
    except SpecError:
        raise
    except (UnitError, ValueError, TypeError, OverflowError):
        raise SpecError(f"{shape} (got {limits.shown(value)})") from None
    # fio: entries without a weight share what the others leave of 100
    given = sum(w for _, w in items)
    blanks = [i for i, (_, w) in enumerate(items) if w == 0]
    if blanks:
        share = max(0.0, 100.0 - given) / len(blanks)
        items = [(s, share if i in blanks else w) for i, (s, w) in enumerate(items)]
    total = sum(w for _, w in items)
    if total <= 0 or any(s <= 0 for s, _ in items):
        raise SpecError(f"{name} needs positive sizes and weights (got {value!r})")
    return tuple((s, w / total) for s, w in items)


@dataclass(frozen=True, kw_only=True)
class Workload(Spec):
    section = "workload"

    rw: str = fld("randread", "choice", choices=RW_MODES)
    rwmixread: float = fld(50.0, "float")
    block_size_bytes: float = fld(4096, "size")
    bssplit: tuple = fld((), "any")
    numjobs: int = fld(1, "int")
    iodepth: int = fld(1, "int")
    rate_iops: float | None = fld(None, "count", optional=True)
    arrival: str = fld("poisson", "choice", choices=("poisson", "paced"))
    span_bytes: float = fld(100 * 1024**3, "size")
    thinktime_s: float = fld(0.0, "time")
    align_bytes: float = fld(4096, "size")

    def __post_init__(self):
        object.__setattr__(self, "bssplit", _parse_bssplit(self.bssplit, "workload.bssplit"))
        super().__post_init__()

    def validate(self):
        self.require(0 <= self.rwmixread <= 100, "rwmixread", "between 0 and 100 (percent)")
        for name in ("block_size_bytes", "span_bytes"):
            _unitless_size_trap(self, name)
        self.require(
            512 <= self.block_size_bytes <= self.span_bytes and self.block_size_bytes % 512 == 0,
            "block_size_bytes",
            "a multiple of 512 bytes, at least 512 and at most span_bytes = "
            f"{show_size(self.span_bytes)}",
        )
        if self.bssplit:
            self.require(
                all(512 <= b <= self.span_bytes and b % 512 == 0 for b, _ in self.bssplit),
                "bssplit",
                "sizes that are multiples of 512 bytes, at least 512 and at most span_bytes",
            )
        self.require(self.numjobs >= 1, "numjobs", ">= 1")
        self.require(self.iodepth >= 1, "iodepth", ">= 1")
        if self.rate_iops is not None:
            self.require(
                math.isfinite(self.rate_iops) and self.rate_iops > 0, "rate_iops", "> 0 I/O per s"
            )
        self.require(self.thinktime_s >= 0, "thinktime_s", ">= 0 s")
        self.require(self.align_bytes >= 1, "align_bytes", ">= 1 byte")
        self.require(
            math.isfinite(self.span_bytes) and self.span_bytes >= self.max_block_bytes,
            "span_bytes",
            f"finite and at least the largest block ({show_size(self.max_block_bytes)})",
        )

    # derived -------------------------------------------------------------------------------
    @property
    def read_fraction(self) -> float:
        if self.rw in ("randread", "read"):
            return 1.0
        if self.rw in ("randwrite", "write"):
            return 0.0
        return self.rwmixread / 100.0

    @property
    def random(self) -> bool:
        return self.rw.startswith("rand")

    @property
    def open_loop(self) -> bool:
        return self.rate_iops is not None

    @property
    def outstanding(self) -> int:
        """I/Os kept in flight by a closed loop: numjobs x iodepth."""
        return self.numjobs * self.iodepth

    @property
    def sizes(self) -> tuple[tuple[float, float], ...]:
        """((bytes, probability), ...): the size mix every I/O is drawn from."""
        return self.bssplit or ((float(self.block_size_bytes), 1.0),)

    @property
    def mean_block_bytes(self) -> float:
        return sum(s * p for s, p in self.sizes)

    @property
    def max_block_bytes(self) -> float:
        return max(s for s, _ in self.sizes)


def _unitless_size_trap(wl: Workload, name: str) -> None:
    """A size below one 512-byte sector was almost surely given without its unit (``--bs 4``
    for 4k, ``--size 10`` for 10G): say so in one line instead of a range check on bytes."""
    v = getattr(wl, name)
    if isinstance(v, (int, float)) and 0 < v < 512 and float(v).is_integer():
        guess = "k" if name == "block_size_bytes" else "G"
        raise SpecError(f"workload.{name} = {v:g} bytes, less than one 512-byte sector: a size "
                        f"without a unit is in bytes (did you mean {v:g}{guess}?)")


def default_workload(device=None) -> Workload:
    """The workload of a stack that names none: fio's defaults (4 KiB random reads, one job of
    depth 1) over the default span, or over the whole device when it is smaller (a 9 GB disk
    cannot be read over 100 GiB)."""
    wl = Workload()
    capacity = getattr(device, "capacity_bytes", None)
    if capacity is not None and capacity < wl.span_bytes:
        wl = wl.with_(span_bytes=capacity)
    return wl

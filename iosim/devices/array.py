"""The storage array: front-end controllers, a cache, and a back-end pool of RAID groups.

Physics (pure functions):

* :func:`array_group_of`: the address space is cut into extents dealt round-robin over the
  back-end groups (wide striping), so the group of a request is fixed by its address.
* :func:`array_read_hit`: whether a read is a cache hit, from a uniform draw and the hit ratio.

Queueing (the engine's job): every request first takes one of ``frontend_units`` controller
cores for ``frontend_s`` (a distribution). Read hits are then done; read misses go to their
group. Writes are acknowledged once they are in the write-back cache (``write_cache_bytes``,
mirrored to the partner controller in ``mirror_s``) and destaged to their group in the
background, at most ``destage_limit`` at a time and no faster than ``destage_rate_Bps``; when
the cache is full, writes wait for destages (the array's sustained write rate is its destage
rate). With ``write_cache_bytes = 0`` writes go straight to the back end.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

from ..dists import Deterministic, Distribution
from ..spec import Spec, SpecError, fld
from ..units import show_size
from .base import DeviceFamily

__all__ = ["ArrayDevice", "array_group_of", "array_read_hit"]


def array_group_of(offset_bytes: float, groups: int, extent_bytes: float) -> tuple[int, float]:
    """(group, offset within the group) of an address under wide striping by extents."""
    extent = int(offset_bytes // extent_bytes)
    within = offset_bytes - extent * extent_bytes
    return extent % groups, (extent // groups) * extent_bytes + within


def array_read_hit(u: float, hit_ratio: float) -> bool:
    """A read hits the cache when the uniform draw ``u`` falls below the hit ratio."""
    return u < hit_ratio


def _group_spec(value: Any):
    from . import DEVICE_KINDS, device_from_dict

    if type(value) in DEVICE_KINDS.values():
        return value
    if isinstance(value, dict):
        return device_from_dict(value, "device.group: ")
    raise SpecError(
        "device.group must be a device table such as {kind = 'raid', level = '5'} "
        f"(got {value!r})"
    )


@dataclass(frozen=True, kw_only=True)
class ArrayDevice(DeviceFamily, Spec):
    """An array of ``groups`` identical back-end groups behind cached front-end controllers."""

    section = "device"
    kind: ClassVar[str] = "array"
    widget_controls: ClassVar[tuple[str, ...]] = ("cache",)
    degraded_field: ClassVar[str | None] = None  # no unit count to lower

    frontend_units: int = fld(8, "int")
    frontend_s: Distribution = fld(Deterministic(50e-6), "dist")
    read_hit_ratio: float = fld(0.0, "fraction")
    write_cache_bytes: float = fld(1024**3, "size")
    mirror_s: float = fld(0.0, "time")
    destage_limit: int = fld(256, "int")
    destage_rate_Bps: float = fld(math.inf, "rate")
    groups: int = fld(4, "int")
    group: Any = fld(None, "any")
    extent_bytes: float = fld(1024**2, "size")

    def __post_init__(self):
        if self.group is None:
            from .raid import RaidDevice

            object.__setattr__(self, "group", RaidDevice())
        else:
            object.__setattr__(self, "group", _group_spec(self.group))
        super().__post_init__()

    def validate(self):
        self.require(self.frontend_units >= 1, "frontend_units", ">= 1")
        self.require(0 <= self.read_hit_ratio <= 1, "read_hit_ratio", "between 0 and 1")
        self.require(self.write_cache_bytes >= 0, "write_cache_bytes", ">= 0 bytes")
        self.require(self.mirror_s >= 0, "mirror_s", ">= 0 s")
        self.require(self.destage_limit >= 1, "destage_limit", ">= 1")
        self.require(self.destage_rate_Bps > 0, "destage_rate_Bps", "> 0 bytes/s")
        self.require(self.groups >= 1, "groups", ">= 1")
        self.require(self.extent_bytes >= 4096 and self.extent_bytes % 512 == 0, "extent_bytes",
                     "a multiple of 512 bytes, at least 4096")

    @property
    def units(self) -> int:
        """Front-end cores plus every back-end unit."""
        return self.frontend_units + self.groups * self.group.units

    @property
    def state_bytes(self) -> float:
        """Every RAID group's state."""
        return self.groups * self.group.state_bytes

    @property
    def warmup_ios(self) -> int:
        """I/Os to run before measuring so that the write cache (counted in 4 KiB writes) and
        the groups' caches have filled."""
        groups = getattr(self.group, "warmup_ios", 0) * self.groups
        return groups + 2 * int(self.write_cache_bytes // 4096)

    def reorders(self, read_fraction: float = 1.0) -> bool:
        return bool(self.group.reorders(read_fraction))

    def mean_service_s(self, size_bytes: float) -> float:
        """Mean unit time per random read: front end plus the misses' back-end time, spread
        over all units (a rough capacity figure; the binding stage is the tighter of the
        front end and the back end)."""
        back = (1 - self.read_hit_ratio) * self.group.mean_service_s(size_bytes)
        return self.frontend_s.mean_s + back

    def assumptions(self) -> list[str]:
        cache = self.write_cache_bytes
        return [f"write cache {'off' if not cache else show_size(cache)}"]

    def to_dict(self) -> dict:
        return {"kind": self.kind, **super().to_dict()}

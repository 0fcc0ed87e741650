"""Device families. Each module gives a spec dataclass and pure service-time physics.

A family registers its spec class in ``DEVICE_KINDS`` under its ``kind``; the engines look the
kind up to find their plumbing for it.
"""

from __future__ import annotations

from ..spec import SpecError
from .array import ArrayDevice
from .cloud import CloudDevice
from .generic import GenericDevice, contended_s, generic_service_s
from .hdd import HddDevice
from .raid import RaidDevice
from .ssd import SsdDevice

__all__ = [
    "DEVICE_KINDS",
    "ArrayDevice",
    "CloudDevice",
    "device_from_dict",
    "under_workload",
    "GenericDevice",
    "HddDevice",
    "RaidDevice",
    "SsdDevice",
    "generic_service_s",
    "contended_s",
]

DEVICE_KINDS: dict[str, type] = {
    "generic": GenericDevice,
    "hdd": HddDevice,
    "ssd": SsdDevice,
    "cloud": CloudDevice,
    "raid": RaidDevice,
    "array": ArrayDevice,
}


def under_workload(device, random_writes: bool):
    """The device spec as a workload leaves it in steady state (the engines run this one).
    Only the SSD depends on it: see :meth:`SsdDevice.under`."""
    under = getattr(device, "under", None)
    return under(random_writes) if under is not None else device


def device_from_dict(table: dict, where: str = ""):
    """Build a device spec from its TOML table (``kind`` picks the family)."""
    if not isinstance(table, dict):
        raise SpecError(f"{where}device: expected a table (got {table!r})")
    table = dict(table)
    kind = table.pop("kind", "generic")
    cls = DEVICE_KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise SpecError(
            f"{where}device.kind must be one of {', '.join(sorted(DEVICE_KINDS))} (got {kind!r})"
        )
    return cls.from_dict(table, where)

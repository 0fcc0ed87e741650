"""Device families. Each module gives a spec dataclass and pure service-time physics.

A family registers its spec class in ``DEVICE_KINDS`` under its ``kind``; the engines look the
kind up to find their plumbing for it.
"""

from __future__ import annotations

from ..spec import SpecError
from .generic import GenericDevice, generic_service_s

__all__ = ["DEVICE_KINDS", "device_from_dict", "GenericDevice", "generic_service_s"]

DEVICE_KINDS: dict[str, type] = {"generic": GenericDevice}


def device_from_dict(table: dict, where: str = ""):
    """Build a device spec from its TOML table (``kind`` picks the family)."""
    if not isinstance(table, dict):
        raise SpecError(f"{where}device: expected a table (got {table!r})")
    table = dict(table)
    kind = table.pop("kind", "generic")
    cls = DEVICE_KINDS.get(kind)
    if cls is None:
        raise SpecError(
            f"{where}device.kind must be one of {', '.join(sorted(DEVICE_KINDS))} (got {kind!r})"
        )
    return cls.from_dict(table, where)

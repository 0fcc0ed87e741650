"""RAID 0, 1, 10, 5 and 6 over member devices of any family, with a controller write cache.

Physics (pure functions): :func:`raid_map` turns one request into the member I/Os it costs, in
two phases (reads, then writes that depend on them):

* RAID 0: the address space is cut into stripe units dealt round-robin over the members.
* RAID 1: every member holds everything; a read goes to one member (alternating by stripe
  unit), a write to all of them.
* RAID 10: RAID 0 over mirrored pairs (members 2k and 2k+1).
* RAID 5: each row of n - 1 data units has one parity unit, rotating left-symmetrically. A
  write that covers only part of a row is a read-modify-write: read the old data and the old
  parity, then write both (4 member I/Os for a small write), or, when cheaper, read the rest
  of the row and write the data and the new parity (reconstruct-write). A write covering whole
  rows writes data and parity without reading (full-stripe write).
* RAID 6: two parity units (P, Q) per row: 6 member I/Os for a small write.
* Degraded mode (``failed_member``): a read of a unit on the failed member reads the same
  range from every surviving member of its row and reconstructs it; writes skip the failed
  member (RAID 5/6 still update parity).

The controller (the engine's job): ``controller_overhead_s`` per request; optional write-back
cache of ``write_cache_bytes`` (writes acknowledged once they are in cache, destaged in the
background with at most ``destage_limit`` destages in flight); optional completion
coalescing: a finished request is reported when ``coalesce_count`` completions are pending or
``coalesce_timeout_s`` after the first of them (interrupt moderation), which makes a lone
request at queue depth 1 slower than two in flight (experiment E8).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

from ..spec import Spec, SpecError, fld

__all__ = [
    "RaidDevice",
    "RAID_LEVELS",
    "raid_map",
    "raid_data_members",
    "raid_write_penalty",
    "raid_max_iops",
]

RAID_LEVELS = ("0", "1", "10", "5", "6")

MemberIO = tuple[int, float, float]  # (member, member offset, bytes)


def raid_data_members(level: str, members: int) -> int:
    """Members' worth of capacity that holds data."""
    return {"0": members, "1": 1, "10": members // 2, "5": members - 1,
            "6": members - 2}[level]


def raid_write_penalty(level: str) -> int:
    """Member I/Os per small random write (read-modify-write for parity levels)."""
    return {"0": 1, "1": 2, "10": 2, "5": 4, "6": 6}[level]


def raid_max_iops(level: str, members: int, member_iops: float, read_fraction: float) -> float:
    """Front-end IOPS when the members are the bottleneck: each front-end I/O costs 1 member
    I/O if a read and ``raid_write_penalty`` if a write (for RAID 1 the write penalty is the
    number of mirrors). Small random I/Os, no cache."""
    penalty = members if level == "1" else raid_write_penalty(level)
    cost = read_fraction + (1.0 - read_fraction) * penalty
    return members * member_iops / cost


def _parity_layout(level: str, n: int, row: int) -> tuple[list[int], list[int]]:
    """(data members in order, parity members) of a row: left-symmetric rotation."""
    if level == "5":
        p = (n - 1) - (row % n)
        return [(p + 1 + j) % n for j in range(n - 1)], [p]
    p = (n - 1) - (row % n)
    q = (p + 1) % n
    return [(q + 1 + j) % n for j in range(n - 2)], [p, q]


def _pieces(offset: float, size: float, su: float):
    """Split [offset, offset+size) at stripe-unit boundaries: (unit index, offset in unit,
    bytes)."""
    out = []
    end = offset + size
    pos = offset
    while pos < end:
        unit = int(pos // su)
        within = pos - unit * su
        n = min(su - within, end - pos)
        out.append((unit, within, n))
        pos += n
    return out


def raid_map(level: str, members: int, stripe_unit_bytes: float, offset: float, size: float,
             is_read: bool, failed: int = -1, read_turn: int = 0
             ) -> tuple[list[MemberIO], list[MemberIO]]:
    """Member I/Os for one request: (reads, writes); the writes start when the reads are done.

    ``failed`` is the index of a failed member (-1 for none); ``read_turn`` picks the mirror
    for RAID 1/10 reads (e.g. a running counter).
    """
    n, su = members, stripe_unit_bytes
    reads: list[MemberIO] = []
    writes: list[MemberIO] = []
    pieces = _pieces(offset, size, su)
    if level == "0":
        for unit, within, nb in pieces:
            m = unit % n
            (reads if is_read else writes).append((m, (unit // n) * su + within, nb))
        return reads, writes
    if level in ("1", "10"):
        for k, (unit, within, nb) in enumerate(pieces):
            if level == "1":
                group, moff = list(range(n)), unit * su + within
            else:
                pairs = n // 2
                pair = unit % pairs
                group, moff = [2 * pair, 2 * pair + 1], (unit // pairs) * su + within
            alive = [m for m in group if m != failed]
            if is_read:
                reads.append((alive[(read_turn + k + unit) % len(alive)], moff, nb))
            else:
                writes.extend((m, moff, nb) for m in alive)
        return reads, writes
    # parity levels
    ndata = n - (1 if level == "5" else 2)
    rows: dict[int, list[tuple[int, float, float]]] = {}
    for unit, within, nb in pieces:
        rows.setdefault(unit // ndata, []).append((unit % ndata, within, nb))
    for row, parts in rows.items():
        data, parity = _parity_layout(level, n, row)
        base = row * su
        if is_read:
            for j, within, nb in parts:
                m = data[j]
                if m != failed:
                    reads.append((m, base + within, nb))
                else:  # reconstruct from every survivor of the row
                    reads.extend((o, base + within, nb) for o in data + parity if o != failed)
            continue
        full = len(parts) == ndata and all(w == 0 and nb == su for _, w, nb in parts)
        if full:
            writes.extend((m, base, su) for m in data + parity if m != failed)
            continue
        # partial row: the parity range is the union of the touched ranges
        lo = min(w for _, w, _ in parts)
        hi = max(w + nb for _, w, nb in parts)
        touched = {data[j] for j, _, _ in parts}
        untouched = [m for m in data if m not in touched]
        rmw_reads = len(parts) + len(parity)
        if failed in touched or failed in parity or len(untouched) < rmw_reads:
            # reconstruct-write: read what is not being written, write data and parity
            reads.extend((m, base + lo, hi - lo) for m in untouched if m != failed)
        else:
            reads.extend((data[j], base + w, nb) for j, w, nb in parts)
            reads.extend((p, base + lo, hi - lo) for p in parity)
        writes.extend((data[j], base + w, nb) for j, w, nb in parts if data[j] != failed)
        writes.extend((p, base + lo, hi - lo) for p in parity if p != failed)
    return reads, writes


def _member_spec(value: Any):
    from . import DEVICE_KINDS, device_from_dict

    if type(value) in DEVICE_KINDS.values():
        return value
    if isinstance(value, dict):
        return device_from_dict(value, "device.member: ")
    raise SpecError(
        f"device.member must be a device table such as {{kind = 'hdd', rpm = 7200}} "
        f"(got {value!r})"
    )


@dataclass(frozen=True, kw_only=True)
class RaidDevice(Spec):
    """A RAID set of ``members`` identical member devices (any family)."""

    section = "device"
    kind: ClassVar[str] = "raid"

    level: str = fld("5", "any")
    members: int = fld(4, "int")
    member: Any = fld(None, "any")
    stripe_unit_bytes: float = fld(65536, "size")
    sector_bytes: float = fld(512, "size")
    failed_member: int | None = fld(None, "int", optional=True)
    controller_overhead_s: float = fld(0.0, "time")
    write_cache_bytes: float = fld(0, "size")
    destage_limit: int = fld(64, "int")
    coalesce_count: int = fld(1, "int")
    coalesce_timeout_s: float = fld(0.0, "time")

    def __post_init__(self):
        lvl = self.level
        if isinstance(lvl, int) and not isinstance(lvl, bool):
            lvl = str(lvl)
        if lvl not in RAID_LEVELS:
            raise SpecError(f"device.level must be one of {', '.join(RAID_LEVELS)} "
                            f"(got {self.level!r})")
        object.__setattr__(self, "level", lvl)
        if self.member is None:
            from .hdd import HddDevice

            object.__setattr__(self, "member", HddDevice())
        else:
            object.__setattr__(self, "member", _member_spec(self.member))
        super().__post_init__()

    def validate(self):
        n = self.members
        least = {"0": 1, "1": 2, "10": 2, "5": 3, "6": 4}[self.level]
        self.require(n >= least, "members", f">= {least} for RAID {self.level}")
        if self.level == "10":
            self.require(n % 2 == 0, "members", "even for RAID 10")
        self.require(self.sector_bytes >= 512 and self.sector_bytes % 512 == 0, "sector_bytes",
                     "a multiple of 512 bytes")
        sector = max(self.sector_bytes, getattr(self.member, "sector_bytes", 512))
        self.require(self.stripe_unit_bytes >= sector and self.stripe_unit_bytes % sector == 0,
                     "stripe_unit_bytes", f"a multiple of the {sector:g}-byte sector")
        if self.failed_member is not None:
            self.require(0 <= self.failed_member < n, "failed_member", f"in 0..{n - 1}")
            self.require(self.level != "0", "failed_member",
                         "unset for RAID 0, which has no redundancy")
        self.require(self.controller_overhead_s >= 0, "controller_overhead_s", ">= 0 s")
        self.require(self.write_cache_bytes >= 0, "write_cache_bytes", ">= 0 bytes")
        self.require(self.destage_limit >= 1, "destage_limit", ">= 1")
        self.require(self.coalesce_count >= 1, "coalesce_count", ">= 1")
        self.require(self.coalesce_timeout_s >= 0, "coalesce_timeout_s", ">= 0 s")

    @property
    def units(self) -> int:
        """All members' execution units."""
        return self.members * self.member.units

    @property
    def data_members(self) -> int:
        return raid_data_members(self.level, self.members)

    @property
    def capacity_bytes(self) -> float:
        cap = getattr(self.member, "capacity_bytes", math.inf)
        return cap * self.data_members

    @property
    def warmup_ios(self) -> int:
        """I/Os to run before measuring so that the controller cache (counted in 4 KiB
        writes) and the members' caches have filled."""
        member = getattr(self.member, "warmup_ios", 0) * self.members
        return member + 2 * int(self.write_cache_bytes // 4096)

    def map(self, offset: float, size: float, is_read: bool, read_turn: int = 0):
        """Member I/Os of one request: :func:`raid_map` with this set's geometry."""
        failed = -1 if self.failed_member is None else self.failed_member
        return raid_map(self.level, self.members, self.stripe_unit_bytes, offset, size,
                        is_read, failed, read_turn)

    def mean_service_s(self, size_bytes: float) -> float:
        """Mean time a member unit is held by a random read of ``size_bytes`` (so that
        ``units / mean_service_s`` is the members' read ceiling)."""
        return self.member.mean_service_s(min(size_bytes, self.stripe_unit_bytes))

    def to_dict(self) -> dict:
        return {"kind": self.kind, **super().to_dict()}

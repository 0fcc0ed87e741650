"""The ``raid`` fit family: an md (software) RAID of disks, each reordering its own queue.

A random read on RAID 0, 5 or 10 is served by the one member its address maps to, and each
member disk reorders its own NCQ queue (shortest positioning time first): the array is N
queues with random routing, each with a load-dependent rate, not one disk with N times the
queue. The family simulates exactly that (:class:`iosim.devices.raid.RaidDevice` over
``hdd`` members, on the fast engine) and fits the member disk's seek and the host gap as
``hdd-ncq`` fits one disk's.

The member count comes from the input when it lists the array's member disks: fio's
``disk_util`` names the md device (with the ``aggr_*`` counters of its members) followed by
one entry per member disk (or, in some versions, a ``slaves`` list). Without it, the count is
fitted: ``fit`` tries 2 to 8 members and the data choose (``_fit_raid_members``).

The level comes from the members' read counts at the fitted point with one I/O in flight
(:func:`infer_layout`): Linux md's RAID 1 and 10 send a read to the first idle mirror of its
set (``read_balance`` in drivers/md/raid1.c and raid10.c), so with one read in flight the other
mirrors never read; those arrays are simulated with the ``md`` read policy of
:class:`~iosim.devices.raid.RaidDevice`. When every member reads, or the counts are missing,
the level is RAID 0: for a read-only workload RAID 5 and RAID 0 send every read to one member
chosen by its address (the parity units only shift which member), so reads cannot tell them
apart; writes could (RAID 5's read-modify-write), and this family has no write penalty: it is
meant for read sweeps.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from ..stack import Stack

__all__ = ["covering_device", "fio_members", "infer_layout", "member_reads", "raid_base",
           "whole_device_span"]


def _members_of(devs) -> tuple[str, list[str]] | None:
    """(md device, member disk names) from one fio ``disk_util`` / ``disk_stats`` list."""
    if not isinstance(devs, list):
        return None
    entries = [d for d in devs if isinstance(d, dict) and isinstance(d.get("name"), str)]
    md = next((d for d in entries if d["name"].startswith("md")), None)
    if md is None:
        return None
    slaves = md.get("slaves")
    if isinstance(slaves, list) and slaves:
        return md["name"], [str(s.get("name", s)) if isinstance(s, dict) else str(s)
                            for s in slaves]
    if not any(k.startswith("aggr_") for k in md):  # fio lists members only with aggr_*
        return None
    names = [d["name"] for d in entries if d is not md and not d["name"].startswith("md")]
    return (md["name"], names) if names else None


def fio_members(points: Sequence) -> tuple[str, list[str]] | None:
    """(md device, member disks) when every point that carries fio's disk statistics names
    the same md device with the same members; None when no point lists them or they differ."""
    found = set()
    for r in points:
        extra = getattr(r, "extra", None) or {}
        devs = extra.get("disk_util", extra.get("disk_stats"))
        if devs is None:
            continue
        got = _members_of(devs)
        if got is None:
            return None
        found.add((got[0], tuple(sorted(got[1]))))
    if len(found) != 1:
        return None
    md, names = found.pop()
    return md, list(names)


#: a member "never read" at one I/O in flight when it served at most this share of the reads
#: an equal split would give it (a stray read or two of md's own, or of another process)
IDLE_SHARE = 0.05
#: reads at the one-I/O point below which the counts cannot tell mirrors from stripes
LEAST_READS = 50


def member_reads(devs, names: Sequence[str]) -> list[int] | None:
    """Each member's ``read_ios`` from one fio ``disk_util`` list, in the order of ``names``
    (None when a member is missing or has no count)."""
    by_name = {d.get("name"): d for d in devs if isinstance(d, dict)}
    out = []
    for name in names:
        v = (by_name.get(name) or {}).get("read_ios")
        if not isinstance(v, (int, float)) or isinstance(v, bool) or v < 0:
            return None
        out.append(int(v))
    return out


def infer_layout(points: Sequence, names: Sequence[str]) -> tuple[str, str, str]:
    """(level, read policy, why) of an md array of ``names`` from the fitted points' member
    read counts (``points``: objects with ``n``, the I/Os in flight, and ``results``).

    With one read in flight, Linux md's RAID 1/10 read balancing sends each read to the first
    mirror of its set that is idle: the other mirrors never read. Striping (RAID 0, and RAID
    5/6 for reads) spreads the reads over every member. So, at the point with one I/O in
    flight: members that read nothing while the others share the reads mean mirrors with md's
    balancing (one reader per mirror set: one reader in all is RAID 1, half of the members
    RAID 10 with two copies); every member reading means stripes (RAID 0 for reads)."""
    one = [p for p in points if p.n == 1]
    striped = ("RAID 0 assumed (for random reads RAID 0, 5 and 6 send each read to the one "
               "member its address maps to, so reads cannot tell them apart)")
    if not one:
        return "0", "alternate", (f"no fitted point has one I/O in flight, where md's mirror "
                                  f"balancing would show; {striped}")
    extra = getattr(one[0].results, "extra", None) or {}
    counts = member_reads(extra.get("disk_util", extra.get("disk_stats")) or [], names)
    total = sum(counts or [])
    if counts is None or total < LEAST_READS:
        return "0", "alternate", (f"the one-I/O point does not give {LEAST_READS} or more "
                                  f"member reads to tell mirrors from stripes; {striped}")
    n = len(names)
    shown = ", ".join(f"{m} {c}" for m, c in zip(names, counts, strict=True))
    idle = [m for m, c in zip(names, counts, strict=True) if c <= IDLE_SHARE * total / n]
    readers = n - len(idle)
    at_one = f"reads per member at 1 I/O in flight: {shown}"
    if not idle:
        return "0", "alternate", f"every member read at 1 I/O in flight ({shown}): {striped}"
    if readers == 1 and n >= 2:
        return "1", "md", (f"RAID 1 over {n} mirrors with md's read balancing inferred: "
                           f"{at_one}; one member reads all, as md's first idle mirror does")
    if 2 * readers == n:
        return "10", "md", (f"RAID 10 (two copies: {readers} mirrored pairs, striped) with "
                            f"md's read balancing inferred: {at_one}; {', '.join(idle)} never "
                            f"read, as the second mirror of each pair does when the first is "
                            f"idle")
    return "0", "alternate", (f"{at_one}: {len(idle)} idle members of {n}, no RAID 1 or "
                              f"two-copy RAID 10 layout; {striped}")


def raid_base(base: Stack, points: Sequence, notes: list[str]) -> Stack:
    """The raid model's base stack with the member count from fio's member disks and the
    level and read policy the fitted ``points`` show (:func:`infer_layout`; ``points`` have
    ``n`` and ``results``), and a note saying where they came from."""
    got = fio_members([p.results for p in points])
    if got is None:
        notes.append(f"raid: the data do not list the array's member disks: "
                     f"{base.device.members} members assumed (pass a base stack for another "
                     f"count); RAID 0 assumed (for random reads RAID 0, 5 and 6 send each read "
                     f"to the one member its address maps to)")
        return base
    md, names = got
    n = len(names)
    least = 2
    if n < least:
        notes.append(f"raid: {md} lists {n} member disk ({', '.join(names)}): fewer than a "
                     f"RAID set has; {base.device.members} members assumed")
        return base
    level, policy, why = infer_layout(points, names)
    notes.append(f"raid: {md} over {n} member disks ({', '.join(names)}, from fio's "
                 f"disk_util); {why}")
    return base.with_(**{"device.members": n, "device.level": level,
                         "device.read_policy": policy})


def whole_device_span(points: Sequence, base: Stack, notes: list[str]) -> list:
    """``points`` with the whole model device (a disk, an array) as the span of their offsets
    when none of them says its span: fio needs a size for a file, so a run without one is on
    a raw block device, and without ``size`` fio reads all of it: the seeks cover the whole
    stroke (the seek curve is relative to it). Points that give their span are kept."""
    if any("span_bytes" in (p.results.params or {}) for p in points):
        return list(points)
    cap = base.device.capacity_bytes
    if not (cap and cap < float("inf")):
        return list(points)
    notes.append(f"{base.device.kind}: the data do not say the span of the offsets: fio on a "
                 f"raw device reads all of it, so the span is the whole model device "
                 f"({cap / 2**30:.4g} GiB; the seek curve covers the whole stroke)")
    return [replace(p, workload=replace(p.workload, span_bytes=cap)) for p in points]


def covering_device(base: Stack, points: Sequence, notes: list[str]) -> Stack:
    """``base`` with a disk (or an array's member disks) large enough for the points' offsets:
    a file of 1,861 GiB on an md array was refused by the model's 1 TB disk ("an I/O ... lies
    beyond device.capacity_bytes"), though the data only say the device is at least that
    large. The capacity becomes the largest span, rounded up to a GiB (per data member for an
    array), and a note says so; a base that already covers every span is returned as it is."""
    cap = base.device.capacity_bytes
    span = max((p.workload.span_bytes or 0.0 for p in points), default=0.0)
    if not (cap and math.isfinite(cap)) or span <= cap:
        return base
    members = getattr(base.device, "data_members", None)
    if members is None:
        new = 2**30 * math.ceil(span / 2**30)
        stack = base.with_(**{"device.capacity_bytes": float(new)})
        what = f"the disk's capacity is set to {new / 2**30:.0f} GiB"
    else:
        new = 2**30 * math.ceil(span / members / 2**30)
        stack = base.with_(**{"device.member.capacity_bytes": float(new)})
        what = (f"each member disk's capacity is set to {new / 2**30:.0f} GiB "
                f"({members} data members)")
    notes.append(f"{base.device.kind}: the data's offsets span {span / 2**30:.4g} GiB, more than "
                 f"the model's {cap / 2**30:.4g} GiB: {what}, so the seeks cover the span the "
                 "data name")
    return stack

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
fitted: ``fit`` tries 2 to 8 members and the data choose (``_fit_raid_members``). The level
is RAID 0: for a read-only workload RAID 5 and RAID 0 send every read to one member chosen by
its address (the parity units only shift which member), so reads cannot tell them apart;
writes could (RAID 5's read-modify-write), and this family has no write penalty: it is meant
for read sweeps. md's RAID 1 and 10 balance reads over the mirrors (a read goes to an idle or
nearer copy), which the device model does not do.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..stack import Stack

__all__ = ["fio_members", "raid_base"]


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


def raid_base(base: Stack, curve, notes: list[str]) -> Stack:
    """The raid model's base stack with the member count from ``curve`` (fio's member disks),
    and a note saying where the count and the level came from."""
    points = curve.points if hasattr(curve, "points") else list(curve)
    got = fio_members(points)
    level = ("RAID 0 assumed: for random reads RAID 0, 5 and 10 send each read to the one "
             "member its address maps to, so reads cannot tell the levels apart")
    if got is None:
        notes.append(f"raid: the data do not list the array's member disks: "
                     f"{base.device.members} members assumed (pass a base stack for another "
                     f"count); {level}")
        return base
    md, names = got
    n = len(names)
    least = 2
    if n < least:
        notes.append(f"raid: {md} lists {n} member disk ({', '.join(names)}): fewer than a "
                     f"RAID set has; {base.device.members} members assumed")
        return base
    notes.append(f"raid: {md} over {n} member disks ({', '.join(names)}, from fio's "
                 f"disk_util); {level}")
    return base.with_(**{"device.members": n})

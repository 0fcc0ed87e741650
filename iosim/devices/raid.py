"""RAID 0, 1, 10, 5 and 6 over member devices of any family, with a controller write cache.

Physics (pure functions): :func:`raid_map` turns one request into the member I/Os it costs, in
two phases (reads, then writes that depend on them):

* RAID 0: the address space is cut into stripe units dealt round-robin over the members.
* RAID 1: every member holds everything; a read goes to one member, a write to all of them.
* RAID 10: RAID 0 over mirrored pairs (members 2k and 2k+1; md's "near 2" layout).
* Which mirror serves a RAID 1/10 read (``read_policy``, :func:`raid_mirror_choice`):
  ``alternate`` (the default) takes them in turn by stripe unit and a running counter;
  ``md`` balances as Linux md does (``read_balance`` in drivers/md/raid1.c and raid10.c): for
  rotational members (``hdd``) the first mirror with no member I/O pending, else the one whose
  head (the end of the last member I/O it completed) is nearest the read; for other members
  the one with the fewest member I/Os pending (the first on a tie). md counts a member's
  pending I/Os from submission to completion and moves its head position when a read or a
  write completes; so does the model (every member I/O the set sends counts, rebuild I/Os
  too; a spare starts idle with its head at 0). At queue depth 1 the first mirror of each
  pair serves every read and the second stays idle, as md does.
* RAID 5: each row of n - 1 data units has one parity unit, rotating left-symmetrically. A
  write that covers only part of a row is a read-modify-write: read the old data and the old
  parity, then write both (4 member I/Os for a small write), or, when cheaper, read the rest
  of the row and write the data and the new parity (reconstruct-write). A write covering whole
  rows writes data and parity without reading (full-stripe write).
* RAID 6: two parity units (P, Q) per row: 6 member I/Os for a small write.
* Degraded mode (``failed_member``): a read of a unit on the failed member reads the same
  range from every surviving member of its row and reconstructs it; writes skip the failed
  member (RAID 5/6 still update parity). :func:`raid_map_tagged` also says which member I/Os
  the failure caused or changed.

A member failure during the run (``failed_member`` with ``fail_at_s`` > 0; ``fail_at_s`` = 0,
the default, is the static degraded mode from the start) and its rebuild onto a spare
(``rebuild_start_s``, ``rebuild_rate_Bps``, ``rebuild_io_bytes``, ``rebuild_span_bytes``):

* At ``fail_at_s`` the member stops serving. Work queued or in service there is abandoned; a
  request that lost a read is re-served through the degraded path (the survivors of the row
  are read, minus the reads it already has); a lost write needs nothing more (for RAID 5/6 the
  parity, computed from the new data, is still written; for RAID 1/10 the mirror holds it),
  as md and hardware controllers do. Every request completes once.
* From ``rebuild_start_s`` a spare takes the failed member's place and a background process
  rebuilds it in order of member offset, ``rebuild_io_bytes`` at a time: read the same range
  from the survivors (every survivor for RAID 5/6, the mirror for RAID 1/10), write it to the
  spare, with at most one step in flight and steps started no faster than
  ``rebuild_rate_Bps`` (md's ``speed_limit_max``; ``inf`` = as fast as the members allow).
  Rebuild I/Os queue at the members with foreground I/Os, so foreground latency rises.
  Rows below the rebuild checkpoint are served as optimal (reads may use the spare), as md
  does below ``recovery_offset``.
* The rebuild covers the rows that hold the first ``rebuild_span_bytes`` of the array's
  address space (set it to the workload's ``span_bytes``: the device does not know which
  addresses a workload uses, and a controller with a write-intent bitmap, or md with
  ``--bitmap``, only resyncs what is in use); unset, it covers the whole member
  (``member.capacity_bytes``: a full-disk rebuild, hours of simulated time for a large HDD).
  When it is done the whole array is optimal again.
* The data itself is not simulated: a write racing the rebuild of its own row is timed, not
  checked for consistency (real controllers lock the stripe).

Times are simulation time from the start of the run (warm-up included). With a failure set,
the SimPy model's ``counters`` (``Results.counters["device"]``) add: ``member_reads_<cause>``
and ``member_writes_<cause>`` for cause ``foreground``, ``degraded`` (caused or changed by the
failure, as :func:`raid_map_tagged` says) and ``rebuild``; ``member_ios_lost`` (member I/Os
the failed member never completed) and ``requests_re_served`` (requests and destages that lost
one and completed through the degraded path); ``rebuilt_bytes`` and ``rebuild_target_bytes``
(member bytes); per phase (``before_failure``, ``degraded``, ``rebuilding``,
``after_rebuild``) ``<phase>_requests``, ``<phase>_latency_s`` (summed time in the RAID
model, so the mean latency of the phase is the ratio) and ``<phase>_degraded_reads``; and
``failed_at_s``, ``rebuild_started_s``, ``rebuild_ended_s`` once they happen (over
replications these, like every counter, are summed).

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

import numpy as np

from ..spec import Spec, SpecError, fld
from ..units import show_size
from .base import DeviceFamily, FitModel, fit_base
from .hdd import NCQ_DISK
from .hdd_fit import DISK_FIT_PARAMS, DISK_SIZE_PARAMS

__all__ = [
    "RaidDevice",
    "RAID_LEVELS",
    "READ_POLICIES",
    "raid_mirror_choice",
    "RAID_PHASES",
    "raid_map",
    "raid_map_tagged",
    "raid_plan",
    "raid_plan_rows",
    "raid_level_code",
    "raid_member_span",
    "raid_rebuild_reads",
    "raid_row_end",
    "raid_data_members",
    "raid_write_penalty",
    "raid_max_iops",
]

RAID_LEVELS = ("0", "1", "10", "5", "6")
#: How a RAID 1/10 read picks its mirror (see the module text).
READ_POLICIES = ("alternate", "md")
#: The read policy as the plan functions take it: alternate; md over rotational members
#: (idle first, then the nearest head); md over other members (fewest pending).
POLICY_ALTERNATE, POLICY_MD_NEAREST, POLICY_MD_LEAST = 0, 1, 2
#: Phases of a RAID set with a member failure, in order (the keys of the per-phase counters).
RAID_PHASES = ("before_failure", "degraded", "rebuilding", "after_rebuild")

MemberIO = tuple[int, float, float]  # (member, member offset, bytes)
TaggedIO = tuple[int, float, float, bool]  # (member, member offset, bytes, caused by failure)


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


def _units_per_row(level: str, n: int) -> int:
    """Stripe units of data per row (a row is one stripe unit deep on every member)."""
    return {"0": n, "1": 1, "10": n // 2, "5": n - 1, "6": n - 2}[level]


def raid_row_end(level: str, members: int, stripe_unit_bytes: float, offset: float,
                 size: float) -> float:
    """The member offset just past the last row a request touches (the rows of a request are
    rebuilt once a rebuild's checkpoint reaches this)."""
    return raid_row_end_at(raid_level_code(level), members, stripe_unit_bytes, offset, size)


def raid_member_span(level: str, members: int, stripe_unit_bytes: float,
                     span_bytes: float) -> float:
    """Member bytes (from offset 0) holding the first ``span_bytes`` of the array, whole
    rows."""
    su = stripe_unit_bytes
    units = math.ceil(span_bytes / su)
    return math.ceil(units / _units_per_row(level, members)) * su


def raid_rebuild_reads(level: str, members: int, failed: int, offset: float, size: float,
                       turn: int = 0) -> list[MemberIO]:
    """Reads that rebuild ``[offset, offset + size)`` of member ``failed``: the same range on
    every survivor (RAID 5/6), on the mirror partner (RAID 10), on one survivor (RAID 1,
    alternating with ``turn``)."""
    if level == "0":
        raise ValueError("RAID 0 has no redundancy to rebuild from")
    rd = np.empty((members, NIO))
    k = raid_rebuild_plan(raid_level_code(level), members, failed, offset, size, turn, rd)
    return [io[:3] for io in _as_list(rd, k)]


# -- the member-I/O plan of one request, on numbers and arrays ----------------------------------
# Written once: the SimPy model calls these as Python (through raid_map_tagged), the fast engine
# compiles the very same functions with numba (iosim.engine.fast_raid). A plan is two float
# arrays, reads and writes, one row per member I/O with the columns below, in issue order.

IO_MEMBER, IO_OFF, IO_BYTES, IO_TAG = range(4)
NIO = 4


def raid_plan_rows(members: int, stripe_unit_bytes: float, size: float) -> int:
    """Rows a plan array needs for a request of ``size`` bytes: at most ``members`` member
    I/Os of each kind per stripe-unit piece, and at most ``size // su + 2`` pieces."""
    return (int(size // stripe_unit_bytes) + 2) * members


def raid_level_code(level: str) -> int:
    """The level as the number the plan functions take (0, 1, 10, 5, 6)."""
    return int(level)


def raid_row_end_at(level, n, su, offset, size):
    """:func:`raid_row_end` with the level as :func:`raid_level_code`'s number."""
    last_unit = int((offset + max(size, 1.0) - 1.0) // su)
    per_row = n if level == 0 else 1 if level == 1 else n // 2 if level == 10 else (
        n - 1 if level == 5 else n - 2)
    return (last_unit // per_row + 1) * su


def raid_rebuild_plan(level, n, failed, offset, size, turn, rd):
    """:func:`raid_rebuild_reads` into the rows of ``rd`` (columns ``IO_*``); returns their
    count."""
    if level == 1:  # one survivor, in turn
        i = turn % (n - 1)
        return _put(rd, 0, i if i < failed else i + 1, offset, size, 0.0)
    if level == 10:  # the mirror partner
        return _put(rd, 0, failed ^ 1, offset, size, 0.0)
    k = 0
    for m in range(n):  # every survivor of the row
        if m != failed:
            k = _put(rd, k, m, offset, size, 0.0)
    return k


def _put(out, i, m, off, nb, tag):
    out[i, IO_MEMBER] = m
    out[i, IO_OFF] = off
    out[i, IO_BYTES] = nb
    out[i, IO_TAG] = tag
    return i + 1


def _row_member(level, n, row, j):
    """Member holding data index ``j`` (0 .. ndata - 1) or, from ``ndata`` on, the parity
    units (P, then Q) of a row: left-symmetric rotation."""
    p = (n - 1) - (row % n)
    ndata = n - 1 if level == 5 else n - 2
    if j >= ndata:
        return (p + (j - ndata)) % n
    first = p + 1 if level == 5 else p + 2
    return (first + j) % n


def _parity_row_plan(level, n, su, row, pc, i0, i1, is_read, failed, rd, nr, wr, nw):
    """Member I/Os of the pieces ``pc[i0:i1]`` (data index, offset in unit, bytes) of one
    row, appended to ``rd``/``wr`` from rows ``nr``/``nw``; returns the new counts."""
    base = row * su
    if is_read:
        for i in range(i0, i1):
            j = int(pc[i, 0])
            m = _row_member(level, n, row, j)
            if m != failed:
                nr = _put(rd, nr, m, base + pc[i, 1], pc[i, 2], 0.0)
            else:  # reconstruct from every survivor of the row
                for jj in range(n):
                    o = _row_member(level, n, row, jj)
                    if o != failed:
                        nr = _put(rd, nr, o, base + pc[i, 1], pc[i, 2], 1.0)
        return nr, nw
    r0, w0 = nr, nw
    nr, nw = _write_row_plan(level, n, su, row, pc, i0, i1, failed, rd, nr, wr, nw)
    if failed >= 0:  # tag the row's I/Os when the failure changed its plan (every member
        # holds a unit of every row)
        hr = np.empty((2 * n, NIO))
        hw = np.empty((2 * n, NIO))
        hnr, hnw = _write_row_plan(level, n, su, row, pc, i0, i1, -1, hr, 0, hw, 0)
        same = hnr == nr - r0 and hnw == nw - w0
        for i in range(min(hnr, nr - r0) if same else 0):
            for c in range(3):
                same = same and hr[i, c] == rd[r0 + i, c]
        for i in range(min(hnw, nw - w0) if same else 0):
            for c in range(3):
                same = same and hw[i, c] == wr[w0 + i, c]
        if not same:
            for i in range(r0, nr):
                rd[i, IO_TAG] = 1.0
            for i in range(w0, nw):
                wr[i, IO_TAG] = 1.0
    return nr, nw


def _write_row_plan(level, n, su, row, pc, i0, i1, failed, rd, nr, wr, nw):
    """A write's member I/Os in one row, untagged: a full-stripe write, or a partial one."""
    ndata = n - 1 if level == 5 else n - 2
    full = i1 - i0 == ndata
    for i in range(i0, i1):
        if pc[i, 1] != 0 or pc[i, 2] != su:
            full = False
    if not full:
        return _partial_row_plan(level, n, su, row, pc, i0, i1, failed, rd, nr, wr, nw)
    for jj in range(n):
        m = _row_member(level, n, row, jj)
        if m != failed:
            nw = _put(wr, nw, m, row * su, su, 0.0)
    return nr, nw


def _partial_row_plan(level, n, su, row, pc, i0, i1, failed, rd, nr, wr, nw):
    """A write covering part of a row: read-modify-write or reconstruct-write."""
    ndata = n - 1 if level == 5 else n - 2
    base = row * su
    nparts = i1 - i0
    # a partial row: the parity range is the union of the touched ranges; the touched data
    # indices are j0 .. j1 (consecutive pieces)
    j0, j1 = int(pc[i0, 0]), int(pc[i1 - 1, 0])
    lo, hi = pc[i0, 1], pc[i0, 1] + pc[i0, 2]
    for i in range(i0, i1):
        lo = min(lo, pc[i, 1])
        hi = max(hi, pc[i, 1] + pc[i, 2])
    fj = -1  # the failed member's index in the row (data, then parity), -1 for none
    for jj in range(n):
        if _row_member(level, n, row, jj) == failed:
            fj = jj
    failed_touched = j0 <= fj <= j1
    failed_untouched = 0 <= fj < ndata and not failed_touched
    nparity = n - ndata
    alive_parity = nparity - (1 if fj >= ndata else 0)
    untouched = ndata - nparts
    if alive_parity == 0:
        pass  # RAID 5 whose parity member failed: just write the data
    elif failed_touched or (not failed_untouched and untouched < nparts + alive_parity):
        # reconstruct-write: read what is not being written, write data and parity (the only
        # way when the old data is on the failed member)
        for jj in range(ndata):
            if jj < j0 or jj > j1:
                nr = _put(rd, nr, _row_member(level, n, row, jj), base + lo, hi - lo, 0.0)
    else:  # read-modify-write (the only way when an untouched member failed)
        for i in range(i0, i1):
            nr = _put(rd, nr, _row_member(level, n, row, int(pc[i, 0])), base + pc[i, 1],
                      pc[i, 2], 0.0)
        for jj in range(ndata, n):
            if jj != fj:
                nr = _put(rd, nr, _row_member(level, n, row, jj), base + lo, hi - lo, 0.0)
    for i in range(i0, i1):
        if int(pc[i, 0]) != fj:
            nw = _put(wr, nw, _row_member(level, n, row, int(pc[i, 0])), base + pc[i, 1],
                      pc[i, 2], 0.0)
    for jj in range(ndata, n):
        if jj != fj:
            nw = _put(wr, nw, _row_member(level, n, row, jj), base + lo, hi - lo, 0.0)
    return nr, nw


def _pieces_of(offset, size, su):
    """[offset, offset + size) cut at stripe-unit boundaries: rows (unit, offset in unit,
    bytes)."""
    pc = np.empty((int(size // su) + 2, 3))
    n = 0
    end = offset + size
    pos = offset
    while pos < end:
        unit = int(pos // su)
        within = pos - unit * su
        nb = min(su - within, end - pos)
        pc[n, 0] = unit
        pc[n, 1] = within
        pc[n, 2] = nb
        n += 1
        pos += nb
    return pc, n


def raid_mirror_choice(policy, g0, glen, failed, moff, turn, pend, head, rd, nr):
    """The member of the mirror group ``g0 .. g0 + glen - 1`` that serves a read at member
    offset ``moff``, never ``failed`` (-1 for none). ``policy`` is a ``POLICY_*`` code;
    ``turn`` the alternate policy's counter; ``pend[m]`` the member I/Os pending at member
    ``m`` (the reads ``rd[:nr]`` already planned for this request count too) and ``head[m]``
    where its last one ended (bytes), as Linux md's ``read_balance`` sees them."""
    if policy == POLICY_ALTERNATE:
        in_group = g0 <= failed < g0 + glen
        i = turn % (glen - (1 if in_group else 0))
        m = g0 + i
        if in_group and m >= failed:  # the i-th member of the group that is alive
            m += 1
        return m
    best = -1
    best_d = math.inf
    for m in range(g0, g0 + glen):
        if m == failed:
            continue
        p = pend[m]
        for i in range(nr):
            if int(rd[i, IO_MEMBER]) == m:
                p += 1
        if policy == POLICY_MD_NEAREST:
            if p == 0:  # an idle mirror: md's distance 0, the first one wins
                return m
            d = abs(moff - head[m])
        else:
            d = float(p)
        if d < best_d:
            best_d = d
            best = m
    return best


def _mirror_plan(level, n, su, pc, npc, is_read, failed, read_turn, policy, pend, head, rd,
                 wr):
    """RAID 1 (every member a mirror) and RAID 10 (RAID 0 over mirrored pairs)."""
    nr = 0
    nw = 0
    for k in range(npc):
        unit = int(pc[k, 0])
        if level == 1:
            g0, glen, moff = 0, n, unit * su + pc[k, 1]
        else:
            pairs = n // 2
            g0, glen = 2 * (unit % pairs), 2
            moff = (unit // pairs) * su + pc[k, 1]
        in_group = g0 <= failed < g0 + glen
        if is_read:
            turn = read_turn + k + unit
            m = raid_mirror_choice(policy, g0, glen, failed, moff, turn, pend, head, rd, nr)
            # tagged when, without the failure, the failed member would have served it
            hit = in_group and raid_mirror_choice(policy, g0, glen, -1, moff, turn, pend,
                                                  head, rd, nr) == failed
            nr = _put(rd, nr, m, moff, pc[k, 2], 1.0 if hit else 0.0)
        else:
            for m in range(g0, g0 + glen):
                if m != failed:
                    nw = _put(wr, nw, m, moff, pc[k, 2], 1.0 if in_group else 0.0)
    return nr, nw


def raid_plan(level, n, su, offset, size, is_read, failed, read_turn, policy, pend, head, rd,
              wr):
    """The member I/Os of one request: reads into ``rd``, then the writes that depend on them
    into ``wr`` (rows :func:`raid_plan_rows` long at least; columns ``IO_*``, the tag 1.0 when
    the failure caused or changed the I/O); returns (reads, writes). ``level`` is
    :func:`raid_level_code`'s number, ``failed`` a failed member (-1 for none); ``read_turn``,
    ``policy`` (``POLICY_*``), ``pend`` and ``head`` (per member: I/Os pending, where the last
    one ended) pick the mirror of a RAID 1/10 read (:func:`raid_mirror_choice`)."""
    pc, npc = _pieces_of(offset, size, su)
    if level == 0:
        nr = 0
        nw = 0
        for k in range(npc):
            unit = int(pc[k, 0])
            moff = (unit // n) * su + pc[k, 1]
            if is_read:
                nr = _put(rd, nr, unit % n, moff, pc[k, 2], 0.0)
            else:
                nw = _put(wr, nw, unit % n, moff, pc[k, 2], 0.0)
        return nr, nw
    if level == 1 or level == 10:
        return _mirror_plan(level, n, su, pc, npc, is_read, failed, read_turn, policy, pend,
                            head, rd, wr)
    # parity levels: the pieces of one row go together, rows in order
    ndata = n - 1 if level == 5 else n - 2
    nr = 0
    nw = 0
    i0 = 0
    while i0 < npc:
        row = int(pc[i0, 0]) // ndata
        i1 = i0
        while i1 < npc and int(pc[i1, 0]) // ndata == row:
            pc[i1, 0] = int(pc[i1, 0]) % ndata  # from here on: the data index in the row
            i1 += 1
        nr, nw = _parity_row_plan(level, n, su, row, pc, i0, i1, is_read, failed, rd, nr, wr,
                                  nw)
        i0 = i1
    return nr, nw


def raid_map_tagged(level: str, members: int, stripe_unit_bytes: float, offset: float,
                    size: float, is_read: bool, failed: int = -1, read_turn: int = 0,
                    policy: int = POLICY_ALTERNATE, pending=None, head=None
                    ) -> tuple[list[TaggedIO], list[TaggedIO]]:
    """:func:`raid_map` with a fourth element per member I/O: True when the failure caused it
    or changed it (a reconstruct read of a unit on the failed member; a mirror read that would
    have gone to the failed member; the I/Os of a write whose row or mirror pair lost a
    member). ``policy``, ``pending`` and ``head`` (per member; default: every member idle,
    its head at 0) as :func:`raid_plan` takes them. Python lists of :func:`raid_plan`'s
    arrays."""
    rows = raid_plan_rows(members, stripe_unit_bytes, size)
    rd = np.empty((rows, NIO))
    wr = np.empty((rows, NIO))
    pend = np.zeros(members, np.int64) if pending is None else pending
    head = np.zeros(members) if head is None else head
    nr, nw = raid_plan(raid_level_code(level), members, float(stripe_unit_bytes),
                       float(offset), float(size), bool(is_read), failed, read_turn, policy,
                       pend, head, rd, wr)
    return _as_list(rd, nr), _as_list(wr, nw)


def _as_list(plan, n) -> list[TaggedIO]:
    return [(int(plan[i, IO_MEMBER]), float(plan[i, IO_OFF]), float(plan[i, IO_BYTES]),
             bool(plan[i, IO_TAG])) for i in range(n)]


def raid_map(level: str, members: int, stripe_unit_bytes: float, offset: float, size: float,
             is_read: bool, failed: int = -1, read_turn: int = 0,
             policy: int = POLICY_ALTERNATE, pending=None, head=None
             ) -> tuple[list[MemberIO], list[MemberIO]]:
    """Member I/Os for one request: (reads, writes); the writes start when the reads are done.

    ``failed`` is the index of a failed member (-1 for none); ``read_turn`` (e.g. a running
    counter), ``policy``, ``pending`` and ``head`` pick the mirror for RAID 1/10 reads
    (:func:`raid_mirror_choice`).
    """
    reads, writes = raid_map_tagged(level, members, stripe_unit_bytes, offset, size, is_read,
                                    failed, read_turn, policy, pending, head)
    return [io[:3] for io in reads], [io[:3] for io in writes]


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
class RaidDevice(DeviceFamily, Spec):
    """A RAID set of ``members`` identical member devices (any family)."""

    section = "device"
    kind: ClassVar[str] = "raid"
    widget_controls: ClassVar[tuple[str, ...]] = ("level", "members", "cache")
    fit_models: ClassVar[tuple[FitModel, ...]] = (
        FitModel("raid",
                 "an md RAID of HDD-family disks, each reordering its own 32-command queue "
                 "shortest positioning time first; the members from the input, the level from "
                 "their read counts (RAID 1/10 with md's read balancing when mirrors sit idle at "
                 "one I/O in flight, else RAID 0: each read at the member its address maps to); "
                 "fitted by simulation of the array: the member's seek and spindle speed, the "
                 "host gap",
                 DISK_FIT_PARAMS,
                 fit_base({"kind": "raid", "level": "0", "members": 4,
                           "member": {"kind": "hdd", **NCQ_DISK}}, "fit-raid"),
                 {"host.overhead": (0.0, 0.02)},
                 simulated=True, sim_ios=2000,  # the fast engine runs the array: ms a point
                 auto="md-members", size_params=DISK_SIZE_PARAMS),
    )

    level: str = fld("5", "any")
    members: int = fld(4, "int")
    member: Any = fld(None, "any")
    stripe_unit_bytes: float = fld(65536, "size")
    sector_bytes: float = fld(512, "size")
    failed_member: int | None = fld(None, "int", optional=True)
    fail_at_s: float = fld(0.0, "time")
    rebuild_start_s: float | None = fld(None, "time", optional=True)
    rebuild_rate_Bps: float = fld(math.inf, "rate")
    rebuild_io_bytes: float | None = fld(None, "size", optional=True)
    rebuild_span_bytes: float | None = fld(None, "size", optional=True)
    controller_overhead_s: float = fld(0.0, "time")
    write_cache_bytes: float = fld(0, "size")
    destage_limit: int = fld(64, "int")
    coalesce_count: int = fld(1, "int")
    coalesce_timeout_s: float = fld(0.0, "time")
    read_policy: str = fld("alternate", "choice", choices=READ_POLICIES)

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
        self.require(getattr(self.member, "contention", 0.0) == 0.0, "member",
                     "a member with contention 0 (a RAID's generic members do not model "
                     "contention; a device on its own does)")
        self.require(self.sector_bytes >= 512 and self.sector_bytes % 512 == 0, "sector_bytes",
                     "a multiple of 512 bytes")
        sector = max(self.sector_bytes, getattr(self.member, "sector_bytes", 512))
        self.require(self.stripe_unit_bytes >= sector and self.stripe_unit_bytes % sector == 0,
                     "stripe_unit_bytes", f"a multiple of the {sector:g}-byte sector")
        if self.failed_member is not None:
            self.require(0 <= self.failed_member < n, "failed_member", f"in 0..{n - 1}")
            self.require(self.level != "0", "failed_member",
                         "unset for RAID 0, which has no redundancy: a RAID 0 member failure "
                         "loses data, and iosim does not simulate data loss")
        self._validate_faults(sector)
        self.require(self.controller_overhead_s >= 0, "controller_overhead_s", ">= 0 s")
        self.require(self.write_cache_bytes >= 0, "write_cache_bytes", ">= 0 bytes")
        self.require(self.destage_limit >= 1, "destage_limit", ">= 1")
        self.require(self.coalesce_count >= 1, "coalesce_count", ">= 1")
        self.require(self.coalesce_timeout_s >= 0, "coalesce_timeout_s", ">= 0 s")
        self.require(self.read_policy in READ_POLICIES, "read_policy",
                     f"one of {', '.join(READ_POLICIES)}")

    def _validate_faults(self, sector: float) -> None:
        self.require(math.isfinite(self.fail_at_s) and self.fail_at_s >= 0, "fail_at_s",
                     "a time >= 0")
        unset = self.failed_member is None
        self.require(unset is False or self.fail_at_s == 0, "fail_at_s",
                     "0 when device.failed_member is unset (no member fails)")
        start = self.rebuild_start_s
        if start is not None:
            self.require(not unset, "rebuild_start_s",
                         "unset when device.failed_member is unset (nothing to rebuild)")
            self.require(math.isfinite(start) and start >= self.fail_at_s, "rebuild_start_s",
                         f"a time >= device.fail_at_s = {self.fail_at_s:g} s")
        self.require(self.rebuild_rate_Bps > 0, "rebuild_rate_Bps", "> 0 bytes/s")
        if self.rebuild_io_bytes is not None:
            self.require(self.rebuild_io_bytes >= sector and self.rebuild_io_bytes % sector == 0,
                         "rebuild_io_bytes", f"a multiple of the {sector:g}-byte sector")
        cap = self.capacity_bytes
        if self.rebuild_span_bytes is not None:
            self.require(0 < self.rebuild_span_bytes <= cap, "rebuild_span_bytes",
                         f"> 0 and <= device.capacity_bytes = {cap:g} bytes")
        elif start is not None:
            self.require(math.isfinite(cap), "rebuild_span_bytes",
                         "set (e.g. to workload.span_bytes) when the member has no "
                         "capacity_bytes, so the rebuild has an end")

    @property
    def rebuild_target_bytes(self) -> float:
        """Member bytes a rebuild writes to the spare: the rows holding the first
        ``rebuild_span_bytes`` of the array, or the whole member."""
        member_cap = self.member.capacity_bytes
        member_cap = math.inf if member_cap is None else member_cap
        if self.rebuild_span_bytes is None:
            return member_cap
        return min(member_cap, raid_member_span(self.level, self.members,
                                                self.stripe_unit_bytes, self.rebuild_span_bytes))

    @property
    def read_policy_code(self) -> int:
        """``read_policy`` as :func:`raid_plan` takes it (``md`` depends on whether the members
        are rotational: disks balance by head position, others by pending I/Os)."""
        if self.read_policy == "alternate":
            return POLICY_ALTERNATE
        from .hdd import HddDevice

        return POLICY_MD_NEAREST if isinstance(self.member, HddDevice) else POLICY_MD_LEAST

    @property
    def units(self) -> int:
        """All members' execution units."""
        return self.members * self.member.units

    @property
    def data_members(self) -> int:
        return raid_data_members(self.level, self.members)

    @property
    def capacity_bytes(self) -> float:
        cap = self.member.capacity_bytes  # None: a member family without a size
        return math.inf if cap is None else cap * self.data_members

    @property
    def state_bytes(self) -> float:
        """Every member's state, the spare's too, and each member's random stream."""
        return (self.members + 1) * (self.member.state_bytes + 2048.0)

    @property
    def warmup_ios(self) -> int:
        """I/Os to run before measuring so that the controller cache (counted in 4 KiB
        writes) and the members' caches have filled."""
        member = getattr(self.member, "warmup_ios", 0) * self.members
        return member + 2 * int(self.write_cache_bytes // 4096)

    def map(self, offset: float, size: float, is_read: bool, read_turn: int = 0,
            failed: int | None = None, pending=None, head=None):
        """Member I/Os of one request: :func:`raid_map` with this set's geometry and read
        policy; ``failed`` defaults to ``failed_member`` (-1 for none)."""
        if failed is None:
            failed = -1 if self.failed_member is None else self.failed_member
        return raid_map(self.level, self.members, self.stripe_unit_bytes, offset, size,
                        is_read, failed, read_turn, self.read_policy_code, pending, head)

    def map_tagged(self, offset: float, size: float, is_read: bool, read_turn: int,
                   failed: int, pending=None, head=None):
        """:func:`raid_map_tagged` with this set's geometry and read policy."""
        return raid_map_tagged(self.level, self.members, self.stripe_unit_bytes, offset, size,
                               is_read, failed, read_turn, self.read_policy_code, pending,
                               head)

    def reorders(self, read_fraction: float = 1.0) -> bool:
        return bool(self.member.reorders(read_fraction))

    def mean_service_s(self, size_bytes: float) -> float:
        """Mean time a member unit is held by a random read of ``size_bytes`` (so that
        ``units / mean_service_s`` is the members' read ceiling)."""
        return self.member.mean_service_s(min(size_bytes, self.stripe_unit_bytes))

    def member_ios(self, size_bytes: float, read_fraction: float) -> float:
        """Stripe units a request spans, times the write penalty for the write share."""
        penalty = self.members if self.level == "1" else raid_write_penalty(self.level)
        writes = 1.0 - read_fraction
        units = math.ceil(size_bytes / self.stripe_unit_bytes)
        return min(float(self.members), units * (1.0 + writes * (penalty - 1)))

    def fit_overrides(self, values, at: str = "device") -> dict:
        return self.member.fit_overrides(values, f"{at}.member")  # the members' parameters

    def fit_starts(self, lowest_latency_s, n):
        return self.member.fit_starts(lowest_latency_s, n)

    def fit_floor_s(self, size_bytes: float) -> float | None:
        """A member's floor for the stripe unit the request reaches first, plus the
        controller's overhead (a request spanning members waits for the slowest)."""
        floor = self.member.fit_floor_s(min(size_bytes, self.stripe_unit_bytes))
        return None if floor is None else floor + self.controller_overhead_s

    def assumptions(self) -> list[str]:
        cache = self.write_cache_bytes
        return [f"write cache {'off' if not cache else show_size(cache)}",
                *self.member.assumptions()]

    def degraded(self) -> tuple[RaidDevice, str]:
        """Degraded mode as the family models it: member 0 failed from the start."""
        if self.failed_member is not None:
            raise SpecError(f"device.failed_member is already {self.failed_member}: a second "
                            "failed member is not modelled")
        try:
            spec = self.with_(failed_member=0, fail_at_s=0.0)
        except SpecError as exc:
            raise SpecError(f"cannot fail a member: {exc}") from None
        return spec, f"device.failed_member 0: RAID {self.level} degraded"

    def to_dict(self) -> dict:
        return {"kind": self.kind, **super().to_dict()}

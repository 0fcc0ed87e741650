"""RAID's steps on the fast engine: ``RaidModel``'s processes (the controller's overhead, its
write-back cache and destages, the coalescer, an op's phases of member I/Os and their fork-join,
a generic or cloud member's serve process, a member's failure and the rebuild onto the spare) as
event steps of the kernel in :mod:`iosim.engine.fast`, over typed state.

The decisions (the member-I/O plan of a request, the rebuild's plan, where an op's rows end) are
:mod:`iosim.engine.fast_raid`'s, compiled from :mod:`iosim.devices.raid`; what is here is event
plumbing. A member disk's steps are :mod:`iosim.engine.fast_hdd_steps`', a member SSD's the
kernel's SSD steps; a member I/O's end comes back here (``K_M_PEND``).
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np

from ..dists import EMPIRICAL
from . import fast_raid as fr
from .fast_cloud_steps import cloud_take
from .fast_codes import (
    C_OVF,
    K_A_BDONE,
    K_DEV_FINISHED,
    K_HDD_TAG,
    K_M_DONE,
    K_M_GRANT,
    K_M_PEND,
    K_M_START,
    K_M_TOKENS,
    K_R_ALL,
    K_R_BPACE,
    K_R_BSTART,
    K_R_BSTEP,
    K_R_BWAIT,
    K_R_CACHED,
    K_R_CMD,
    K_R_DGRANT,
    K_R_DOOMED,
    K_R_DSTART,
    K_R_EXEC,
    K_R_FAIL,
    K_R_FAILEV,
    K_R_FSTART,
    K_R_OR,
    K_R_OVH,
    K_R_PHASE,
    K_R_REPORT,
    K_R_REPORTED,
    K_R_SPAWN,
    K_R_TIMER,
    K_R_TSTART,
    K_R_XEND,
    K_SSD_FORK,
    K_SSD_OVH,
    KB,
    L_BUSY,
    MD_ALL,
    MD_OR,
    MD_ORDONE,
    MD_REST,
    PH_AFTER,
    PH_DEGRADED,
    PH_REBUILDING,
    RC_CACHED,
    RC_DESTAGES,
    RC_EPOCH,
    RC_FAILED_NOW,
    RC_FAILTRIG,
    RC_LOST,
    RC_MR_FG,
    RC_MREADS,
    RC_MW_FG,
    RC_MWRITES,
    RC_PDR,
    RC_PEND0,
    RC_PENDING,
    RC_PHASE,
    RC_PREQ,
    RC_RB_TURN,
    RC_RB_WAITING,
    RC_REGSEQ,
    RC_REQUESTS,
    RC_RESERVED,
    RC_SPARE,
    RC_TURN,
    RCF_FAILED_AT,
    RCF_HEAD0,
    RCF_PLAT,
    RCF_RB_ENDED,
    RCF_RB_POS,
    RCF_RB_STARTED,
    RCF_RB_T0,
    RCF_REBUILT,
    RCF_REBUILT_TO,
    RCF_TARGET,
    RO_DESTAGE,
    RO_REBUILD,
    RP_CACHE,
    RP_CCOUNT,
    RP_CTIMEOUT,
    RP_FAIL_AT,
    RP_LEVEL,
    RP_OVH,
    RP_POLICY,
    RP_RB_RATE,
    RP_RB_START,
    RP_RB_STEP,
    RP_RB_TARGET,
    RP_REBUILD,
    RP_SU,
    SP_RAID,
    ST_MISSING,
    ST_RB_READS,
    ST_RB_WRITE,
    ST_READS,
    ST_WRITES,
)
from .fast_core import free_list, unmanaged
from .fast_steps import (
    I,
    level,
    push_now,
    push_start,
    release,
    sample,
    schedule,
    service_s,
    space_give,
    space_take,
    unit_busy,
)

#: the RAID sets' state: parameters (``rp``) and counters (``rc``, ``rcf``; a row per set), the
#: coalescers' pending reports, each request at a set (address in the set, size, direction,
#: start, set), the plan buffers (reads, writes, the missing reads), the rebuild's pace; the
#: level, members, stripe unit, read policy, controller cache and coalescing, the members' stride
#: per set (a spare each), the sets, the failing member and whether faults are on (live: it
#: fails during the run), the first member's and the destage slots' resources, the capacities
#: (plan rows per op, member I/Os, ops, attempts), and the members' family
RaidState = namedtuple("RaidState", (
    "rp", "rc", "rcf", "co_pend", "rr_off", "rr_size", "rr_read", "rr_t0", "rr_grp", "prd",
    "pwr", "pms", "pace_s", "r_level", "r_n", "r_su", "r_policy", "r_cache", "r_ccount",
    "r_ctimeout", "r_stride", "r_groups", "r_failed", "r_faults", "r_live", "r_mem0",
    "r_destage", "prows", "micap", "rocap", "atcap", "raid_hdd", "raid_cloud", "raid_ssd",
    "m_nbk", "s_ovh"))
#: the ops (a request's, a destage's or the rebuild's ``_execute``): the attempt it answers, its
#: range and direction, its phase and plans (reads ``ro_r``, writes ``ro_w``; ``prows`` rows
#: each), how it waits for a phase's member processes, its set; the free ops and their count
RaidOps = namedtuple("RaidOps", (
    "ro_att", "ro_off", "ro_size", "ro_read", "ro_step", "ro_nr", "ro_nw", "ro_r", "ro_w",
    "ro_resv", "ro_sw", "ro_scnt", "ro_mode", "ro_left", "ro_dleft", "ro_cnt", "ro_ndying",
    "ro_doomed", "ro_reg", "ro_lost", "ro_grp", "ro_free", "ronf"))
#: the member I/Os beyond what an owner is (:data:`fast_core.Owners`): the op each answers, at
#: the failing member before the failure, the free ones and their count
MemberIos = namedtuple("MemberIos", ("mi_ro", "mi_dy", "mi_free", "rnf"))
#: a generic or cloud member's service time: the distribution (code, parameters, samples), the
#: writes' (a cloud volume's write latency), and the media rate
ServiceDraw = namedtuple("ServiceDraw", (
    "svc_code", "svc_a", "svc_b", "svc_samples", "svc2_code", "svc2_a", "svc2_b",
    "svc2_samples", "media"))


@numba.njit(inline="always")
def new_raid_state(rp, rc, rcf, raid, r_n, r_groups, rrcap, r_failed, r_live, r_mem0, r_destage,
                   prows, micap, rocap, atcap, raid_hdd, raid_cloud, raid_ssd, m_nbk, s_ovh,
                   keep):
    """The RAID sets' state (:data:`RaidState`): ``rp`` decoded, the coalescers' pending
    reports, ``rrcap`` requests at a set (the attempts', then the array's destages), the plan
    buffers and the rebuild's pace; the sizes as the kernel reserved them (members per set
    ``r_n`` plus a spare, ``r_groups`` sets, ``prows`` plan rows per op, ``micap`` member
    I/Os, ``rocap`` ops, ``atcap`` attempts); the arrays are views kept alive by ``keep``."""
    level = int(rp[RP_LEVEL]) if raid else 0  # (a conditional in the long call numba refuses)
    return RaidState(
        rp, rc, rcf, unmanaged(np.zeros((r_groups, max(1, rrcap)), np.int64), keep),  # co_pend
        unmanaged(np.zeros(rrcap), keep),  # rr_off: address in the set
        unmanaged(np.zeros(rrcap), keep),  # rr_size
        unmanaged(np.zeros(rrcap, np.bool_), keep),  # rr_read
        unmanaged(np.zeros(rrcap), keep),  # rr_t0: when it reached the set
        unmanaged(np.zeros(rrcap, np.int64), keep),  # rr_grp: the set
        unmanaged(np.zeros((prows, fr.NIO)), keep),  # prd: the plan's reads
        unmanaged(np.zeros((prows, fr.NIO)), keep),  # pwr: its writes
        unmanaged(np.zeros((prows, fr.NIO)), keep),  # pms: its missing reads
        unmanaged(np.zeros(1), keep),  # pace_s: the rebuild's
        level, r_n, rp[RP_SU], int(rp[RP_POLICY]), rp[RP_CACHE],
        int(rp[RP_CCOUNT]), rp[RP_CTIMEOUT], r_n + 1, r_groups, r_failed, r_failed >= 0, r_live,
        r_mem0, r_destage, prows, micap, rocap, atcap, raid_hdd, raid_cloud, raid_ssd, m_nbk,
        s_ovh)


@numba.njit(inline="always")
def raid_arrive(rs, x, off, size, is_read, now):
    """RaidModel.serve: attempt ``x`` is a request at the (only) set, counted; returns the
    controller's overhead it waits first (which holds nothing)."""
    rs.rr_off[x] = off
    rs.rr_size[x] = size
    rs.rr_read[x] = is_read
    rs.rr_t0[x] = now
    rs.rr_grp[x] = 0
    rs.rc[0, RC_REQUESTS] += 1
    return rs.rp[RP_OVH]


@numba.njit(inline="always")
def new_raid_ops(rocap, prows, keep):
    """``rocap`` ops, all free, each with ``prows`` rows of plan for its reads and its writes
    (views kept alive by ``keep``)."""
    return RaidOps(
        unmanaged(np.zeros(rocap, np.int64), keep),  # ro_att
        unmanaged(np.zeros(rocap), keep),  # ro_off
        unmanaged(np.zeros(rocap), keep),  # ro_size
        unmanaged(np.zeros(rocap, np.bool_), keep),  # ro_read
        unmanaged(np.zeros(rocap, np.int64), keep),  # ro_step
        unmanaged(np.zeros(rocap, np.int64), keep),  # ro_nr
        unmanaged(np.zeros(rocap, np.int64), keep),  # ro_nw
        unmanaged(np.zeros((rocap * prows, fr.NIO)), keep),  # ro_r
        unmanaged(np.zeros((rocap * prows, fr.NIO)), keep),  # ro_w
        unmanaged(np.zeros(rocap, np.bool_), keep),  # ro_resv: re-served (lost an I/O)
        unmanaged(np.zeros(rocap, np.int64), keep),  # ro_sw: the phase to start, its plan
        unmanaged(np.zeros(rocap, np.int64), keep),  # ro_scnt: its I/Os
        # how it waits for a phase's member processes (all, or doomed | failed then the
        # rest): processes still to end (rest, doomed), I/Os in the phase and at the failing
        # member, doomed ended, registration order, I/Os lost, its RAID set
        unmanaged(np.zeros(rocap, np.int64), keep),  # ro_mode
        unmanaged(np.zeros(rocap, np.int64), keep),  # ro_left
        unmanaged(np.zeros(rocap, np.int64), keep),  # ro_dleft
        unmanaged(np.zeros(rocap, np.int64), keep),  # ro_cnt
        unmanaged(np.zeros(rocap, np.int64), keep),  # ro_ndying
        unmanaged(np.zeros(rocap, np.bool_), keep),  # ro_doomed
        unmanaged(np.zeros(rocap, np.int64), keep),  # ro_reg
        unmanaged(np.zeros(rocap, np.int64), keep),  # ro_lost
        unmanaged(np.zeros(rocap, np.int64), keep),  # ro_grp
        free_list(rocap, keep),
        unmanaged(np.array([rocap]), keep))


@numba.njit(inline="always")
def new_member_ios(micap, keep):
    """``micap`` member I/Os, all free, answering no op (views kept alive by ``keep``)."""
    return MemberIos(unmanaged(np.full(micap, -1, np.int64), keep),
                     unmanaged(np.zeros(micap, np.bool_), keep),
                     free_list(micap, keep), unmanaged(np.array([micap]), keep))


@numba.njit(inline="always")
def raid_flush(ev, rs, g):
    """Coalescer._flush (RAID ``g``): the pending reports succeed in order; a new epoch."""
    for i in range(rs.rc[g, RC_PENDING]):
        push_now(ev, rs.co_pend[g, i])
    rs.rc[g, RC_PENDING] = 0
    rs.rc[g, RC_EPOCH] += 1


@numba.njit(inline="always")
def new_op(ev, rs, ops, att, off, size, is_read, g):
    """A RAID op (a request's or a destage's _execute, or the rebuild) of RAID ``g``; -1
    when full."""
    if ops.ronf[0] == 0:
        ev.ctl[C_OVF] = 1
        return I(-1)
    ops.ronf[0] -= 1
    o = ops.ro_free[ops.ronf[0]]
    ops.ro_att[o] = att
    ops.ro_off[o] = off
    ops.ro_size[o] = size
    ops.ro_read[o] = is_read
    ops.ro_mode[o] = MD_ALL
    ops.ro_grp[o] = g
    return o


@numba.njit(inline="always")
def failed_for(rs, ops, o):
    """RaidModel._failed_for: the failed member as op ``o`` sees it (none once its rows
    are rebuilt)."""
    r_level, r_n = rs.r_level, rs.r_n
    r_su = rs.r_su
    g = ops.ro_grp[o]
    f = rs.rc[g, RC_FAILED_NOW]
    if f < 0 or rs.rcf[g, RCF_REBUILT_TO] <= 0:
        return f
    end = fr.row_end(r_level, r_n, r_su, ops.ro_off[o], ops.ro_size[o])
    return I(-1) if end <= rs.rcf[g, RCF_REBUILT_TO] else f


@numba.njit(inline="always")
def member_io(ev, rs, ops, mis, own, o, which, cnt, is_read):
    """RaidModel._member_io: count the op's ``cnt`` member I/Os (its reads plan ops.ro_r or its
    writes plan ops.ro_w) and start one member process each, in order. False when there are
    none (nothing to wait for)."""
    r_n, r_stride, r_failed = rs.r_n, rs.r_stride, rs.r_failed
    r_faults, r_live, prows = rs.r_faults, rs.r_live, rs.prows
    g = ops.ro_grp[o]
    rs.rc[g, RC_MREADS if is_read else RC_MWRITES] += cnt
    ops.ro_lost[o] = 0
    ops.ro_cnt[o] = cnt
    if cnt == 0:
        return np.bool_(False)
    if mis.rnf[0] < cnt:
        ev.ctl[C_OVF] = 1
        return np.bool_(False)
    base = o * prows
    waiting = r_live and rs.rc[g, RC_FAILTRIG] == 0  # the failed event still to come
    nd = I(0)
    for i in range(cnt):
        if which == 0:
            m, off, nb, tag = ops.ro_r[base + i, 0], ops.ro_r[base + i, 1], ops.ro_r[base + i, 2], \
                ops.ro_r[base + i, 3]
        else:
            m, off, nb, tag = ops.ro_w[base + i, 0], ops.ro_w[base + i, 1], ops.ro_w[base + i, 2], \
                ops.ro_w[base + i, 3]
        mm = int(m)
        rs.rc[g, RC_PEND0 + mm] += 1  # (read balancing: pending at the member)
        if r_faults:  # by cause: foreground, degraded, rebuild
            cause = I(2) if ops.ro_att[o] == RO_REBUILD else (I(1) if tag != 0.0 else I(0))
            rs.rc[g, (RC_MR_FG if is_read else RC_MW_FG) + cause] += 1
            if is_read and cause == 1:
                rs.rc[g, RC_PDR + rs.rc[g, RC_PHASE]] += 1
        mis.rnf[0] -= 1
        mio = mis.mi_free[mis.rnf[0]]
        own.mi_dev[mio] = g * r_stride + (r_n if mm == r_failed and rs.rc[g, RC_SPARE] != 0
                                      else mm)
        own.mi_off[mio] = off
        own.mi_size[mio] = nb
        own.mi_read[mio] = is_read
        mis.mi_ro[mio] = o
        mis.mi_dy[mio] = waiting and mm == r_failed
        if mis.mi_dy[mio]:
            nd += 1
        push_start(ev, (mio << KB) | K_M_START)
    ops.ro_left[o] = cnt - nd
    ops.ro_dleft[o] = nd
    ops.ro_ndying[o] = nd
    ops.ro_doomed[o] = False
    if nd > 0:  # `doomed | failed`, registered on the failed event in this order
        ops.ro_mode[o] = MD_OR
        ops.ro_reg[o] = rs.rc[g, RC_REGSEQ]
        rs.rc[g, RC_REGSEQ] += 1
    else:
        ops.ro_mode[o] = MD_ALL
    return np.bool_(True)


@numba.njit(inline="always")
def raid_or_resumed(ev, rs, ops, mis, o):
    """The op's `doomed | failed` processed: the I/Os lost with the member (unless they all
    ended), then AllOf(the rest). The next step, or -1 to wait."""
    micap = rs.micap
    g = ops.ro_grp[o]
    lost = I(0) if ops.ro_doomed[o] else ops.ro_ndying[o]
    ops.ro_lost[o] = lost
    if lost > 0:
        rs.rc[g, RC_LOST] += lost
        for i in range(micap):  # its processes at the failed member go on, abandoned
            if mis.mi_ro[i] == o and mis.mi_dy[i]:
                mis.mi_ro[i] = -1
    if ops.ro_cnt[o] == ops.ro_ndying[o]:
        return I(K_R_PHASE)
    ops.ro_mode[o] = MD_REST
    if ops.ro_left[o] == 0:  # all ended already: the AllOf succeeds at once
        push_now(ev, (o << KB) | K_R_ALL)
    return I(-1)


@numba.njit(inline="always")
def raid_fail_waiters(ev, rs, ops, g):
    """The failed event's callbacks (RAID ``g``): every op's `doomed | failed`, in
    registration order."""
    rocap = rs.rocap
    m = I(0)
    for o in range(rocap):
        if ops.ro_mode[o] == MD_OR and ops.ro_grp[o] == g:
            m += 1
    waiting = np.empty(m, np.int64)
    m = I(0)
    for o in range(rocap):
        if ops.ro_mode[o] == MD_OR and ops.ro_grp[o] == g:
            waiting[m] = o
            m += 1
    for i in range(1, m):
        j = i
        while j > 0 and ops.ro_reg[waiting[j - 1]] > ops.ro_reg[waiting[j]]:
            waiting[j - 1], waiting[j] = waiting[j], waiting[j - 1]
            j -= 1
    for i in range(m):
        ops.ro_mode[waiting[i]] = MD_ORDONE
        push_now(ev, (waiting[i] << KB) | K_R_OR)


@numba.njit(inline="always")
def raid_phase_over(rs, ops, o, t):
    """_execute_faulty (or _rebuild) past a phase of member I/Os: the next phase
    (K_R_SPAWN), else the step the op goes on with (K_R_XEND; the rebuild's K_R_BSTEP, or
    K_R_BPACE after rs.pace_s[0])."""
    r_level = rs.r_level
    r_n, r_su, r_policy, r_failed = rs.r_n, rs.r_su, rs.r_policy, rs.r_failed
    r_faults, prows = rs.r_faults, rs.prows
    g = ops.ro_grp[o]
    st = ops.ro_step[o]
    base = o * prows
    if st == ST_READS and ops.ro_lost[o] > 0:  # reads died with the member: re-map in
        # degraded mode and read what is missing (less the reads the op already has)
        ops.ro_resv[o] = True
        nr, nw = fr.plan(r_level, r_n, r_su, ops.ro_off[o], ops.ro_size[o], ops.ro_read[o],
                         failed_for(rs, ops, o), rs.rc[g, RC_TURN], r_policy,
                         rs.rc[g, RC_PEND0:RC_PEND0 + r_n], rs.rcf[g, RCF_HEAD0:RCF_HEAD0 + r_n],
                         rs.prd, rs.pwr)
        used = np.zeros(max(1, ops.ro_nr[o]), np.bool_)
        nmiss = I(0)
        for i in range(nr):
            have = np.bool_(False)
            for j in range(ops.ro_nr[o]):
                if (not used[j] and int(ops.ro_r[base + j, 0]) != r_failed
                        and ops.ro_r[base + j, 0] == rs.prd[i, 0]
                        and ops.ro_r[base + j, 1] == rs.prd[i, 1]
                        and ops.ro_r[base + j, 2] == rs.prd[i, 2]):
                    used[j] = True
                    have = np.bool_(True)
                    break
            if not have:
                for c in range(3):
                    rs.pms[nmiss, c] = rs.prd[i, c]
                rs.pms[nmiss, 3] = 1.0  # degraded
                nmiss += 1
        for i in range(nmiss):
            for c in range(fr.NIO):
                ops.ro_r[base + i, c] = rs.pms[i, c]
        for i in range(nw):
            for c in range(fr.NIO):
                ops.ro_w[base + i, c] = rs.pwr[i, c]
        ops.ro_nw[o] = nw
        ops.ro_step[o] = ST_MISSING
        ops.ro_sw[o] = 0
        ops.ro_scnt[o] = nmiss
        return I(K_R_SPAWN)
    if st == ST_READS or st == ST_MISSING:  # the writes, less any for the failed member
        nw = ops.ro_nw[o]
        if r_faults:
            live = I(0)
            for i in range(nw):
                w = base + i
                if int(ops.ro_w[w, 0]) != rs.rc[g, RC_FAILED_NOW] or (
                        ops.ro_w[w, 1] + ops.ro_w[w, 2] <= rs.rcf[g, RCF_REBUILT_TO]):
                    for c in range(fr.NIO):
                        ops.ro_w[base + live, c] = ops.ro_w[w, c]
                    live += 1
            if live < nw:
                rs.rc[g, RC_LOST] += nw - live
                ops.ro_resv[o] = True
            nw = live
        ops.ro_step[o] = ST_WRITES
        ops.ro_sw[o] = 1
        ops.ro_scnt[o] = nw
        return I(K_R_SPAWN)
    if st == ST_WRITES:
        if r_faults and (ops.ro_resv[o] or ops.ro_lost[o] > 0):
            rs.rc[g, RC_RESERVED] += 1
        return I(K_R_XEND)
    if st == ST_RB_READS:  # the range onto the spare
        ops.ro_w[base, 0] = r_failed
        ops.ro_w[base, 1] = ops.ro_off[o]
        ops.ro_w[base, 2] = ops.ro_size[o]
        ops.ro_w[base, 3] = 0.0
        ops.ro_step[o] = ST_RB_WRITE
        ops.ro_sw[o] = 1
        ops.ro_scnt[o] = 1
        return I(K_R_SPAWN)
    nb = ops.ro_size[o]  # ST_RB_WRITE: the checkpoint moves on
    pos = rs.rcf[g, RCF_RB_POS] + nb
    rs.rcf[g, RCF_RB_POS] = pos
    rs.rcf[g, RCF_REBUILT_TO] = pos
    rs.rcf[g, RCF_REBUILT] += nb
    pace = rs.rcf[g, RCF_RB_T0] + nb / rs.rp[RP_RB_RATE] - t
    if pace > 0:
        rs.pace_s[0] = pace
        return I(K_R_BPACE)
    return I(K_R_BSTEP)


@numba.njit(inline="always")
def _member_step(k, x, now, act, a_delay, a_code, a_res, ev, lvs, sps, rs, ops, mis, own, svc,
                 cs, rng):
    """A step of a member I/O ``x``'s process at a generic, cloud or SSD member (its unit, its
    tokens, its service on the member's own stream ``rng``) or its end (the op's AllOf). As
    :func:`raid_step`."""
    r_n = rs.r_n
    r_stride = rs.r_stride
    r_failed = rs.r_failed
    r_mem0 = rs.r_mem0
    raid_hdd, raid_cloud, raid_ssd, m_nbk = rs.raid_hdd, rs.raid_cloud, rs.raid_ssd, rs.m_nbk
    s_ovh = rs.s_ovh
    svc_code, svc_a, svc_b = svc.svc_code, svc.svc_a, svc.svc_b
    svc2_code, svc2_a, svc2_b = svc.svc2_code, svc.svc2_a, svc.svc2_b
    media = svc.media
    n_svc_samples = svc.svc_samples.shape[0]
    n_svc2_samples = svc.svc2_samples.shape[0]
    g = own.mi_dev[x] // r_stride  # (the RAID set: 0, or an array's group)
    if k == K_M_PEND:  # a member process's end processed: its op's AllOf counts it
        mm = own.mi_dev[x] - g * r_stride  # read balancing: one fewer pending, the head
        if not (mm == r_failed and rs.rc[g, RC_SPARE] != 0):  # (not a replaced disk)
            mm = r_failed if mm == r_n else mm
            rs.rc[g, RC_PEND0 + mm] -= 1
            rs.rcf[g, RCF_HEAD0 + mm] = own.mi_off[x] + own.mi_size[x]
        o = mis.mi_ro[x]
        dying = mis.mi_dy[x]
        mis.mi_ro[x] = -1
        mis.mi_free[mis.rnf[0]] = x
        mis.rnf[0] += 1
        k = I(-1)
        if o < 0:  # abandoned by its op when the member failed under it
            pass
        elif dying:  # at the member failing: the `doomed` AllOf
            ops.ro_dleft[o] -= 1
            if ops.ro_dleft[o] == 0:
                ops.ro_doomed[o] = True
                if ops.ro_mode[o] == MD_OR:
                    push_now(ev, (o << KB) | K_R_DOOMED)
        else:
            ops.ro_left[o] -= 1
            if ops.ro_left[o] == 0 and (ops.ro_mode[o] == MD_ALL or ops.ro_mode[o] == MD_REST):
                push_now(ev, (o << KB) | K_R_ALL)
    elif raid_ssd and k == K_M_START:  # SsdModel.serve, as a process
        if s_ovh > 0:  # (the controller overhead holds nothing)
            act, a_delay, a_code = I(1), s_ovh, (x << KB) | K_SSD_OVH
            k = I(-1)
        else:
            k = I(K_SSD_FORK)
    elif k == K_M_START:  # a member's serve process: its unit, or a disk's tag
        wait = 0.0
        if raid_cloud:  # CloudModel.serve: the member's tokens in arrival order
            wait = cloud_take(cs, own.mi_dev[x] * m_nbk, m_nbk, own.mi_size[x], own.mi_read[x], now)
        if wait > 0:
            act, a_delay, a_code = I(1), wait, (x << KB) | K_M_TOKENS
        else:
            act, a_res = I(2), r_mem0 + own.mi_dev[x]
            a_code = (x << KB) | (K_HDD_TAG if raid_hdd else K_M_GRANT)
        k = I(-1)
    elif k == K_M_TOKENS:  # (a cloud member) its unit, once the tokens are there
        act, a_res, a_code = I(2), r_mem0 + own.mi_dev[x], (x << KB) | K_M_GRANT
        k = I(-1)
    elif k == K_M_GRANT:  # Generic/CloudModel.serve, on the member's own stream
        unit_busy(lvs, own.mi_dev[x], now, 1)
        mg = rng
        if raid_cloud and not own.mi_read[x]:  # a cloud member's writes' latency
            if svc2_code == EMPIRICAL:
                base = svc.svc2_samples[mg.integers(0, n_svc2_samples)]
            else:
                base = sample(svc2_code, svc2_a, svc2_b, mg)
        elif svc_code == EMPIRICAL:
            base = svc.svc_samples[mg.integers(0, n_svc_samples)]
        else:
            base = sample(svc_code, svc_a, svc_b, mg)
        act, a_code = I(1), (x << KB) | K_M_DONE
        a_delay = service_s(base, own.mi_size[x], media)
        k = I(-1)
    elif k == K_M_DONE:
        unit_busy(lvs, own.mi_dev[x], now, -1)
        release(ev, r_mem0 + own.mi_dev[x])
        push_now(ev, (x << KB) | K_M_PEND)
        k = I(-1)
    else:  # an unknown step: a bug
        k = I(-2)
    return k, x, act, a_delay, a_code, a_res


@numba.njit(inline="always")
def _controller_step(k, x, now, act, a_delay, a_code, a_res, ev, lvs, sps, rs, ops, mis, own, svc,
                     cs, rng):
    """A step of the controller (a request at the set ``x``: overhead, cache, coalescing and
    its timers; an op ``x``: its plan, its phases of member I/Os, its end). As
    :func:`raid_step`."""
    r_level, r_n, r_su, r_policy = rs.r_level, rs.r_n, rs.r_su, rs.r_policy
    r_cache, r_ccount, r_ctimeout = rs.r_cache, rs.r_ccount, rs.r_ctimeout
    r_groups, r_faults = rs.r_groups, rs.r_faults
    r_destage, prows, atcap = rs.r_destage, rs.prows, rs.atcap
    # the RAID set (g: 0, or an array's group) of the request, op or coalescing timer (x:
    # epoch * groups + g)
    if k <= K_R_CACHED or k == K_R_REPORT or k == K_R_REPORTED:
        g = rs.rr_grp[x]
    elif k == K_R_TSTART or k == K_R_TIMER:
        g = x % r_groups
    else:
        g = ops.ro_grp[x]
    if k == K_R_OVH:
        k = I(K_R_CMD)
    elif k == K_R_CMD:  # a write the cache holds, or the members now
        if not rs.rr_read[x] and 0 < rs.rr_size[x] <= r_cache:
            if space_take(ev, sps, SP_RAID + g, rs.rr_size[x], (x << KB) | K_R_CACHED):
                k = I(K_R_CACHED)
            else:
                k = I(-1)
        else:
            o = new_op(ev, rs, ops, x, rs.rr_off[x], rs.rr_size[x], rs.rr_read[x], g)
            if o < 0:
                return I(-1), x, act, a_delay, a_code, a_res
            x = o
            k = I(K_R_EXEC)
    elif k == K_R_CACHED:  # acknowledged; a destage process takes the data down
        rs.rc[g, RC_CACHED] += 1
        o = new_op(ev, rs, ops, RO_DESTAGE, rs.rr_off[x], rs.rr_size[x], False, g)
        if o < 0:
            return I(-1), x, act, a_delay, a_code, a_res
        push_start(ev, (o << KB) | K_R_DSTART)
        k = I(K_R_REPORT)
    elif k == K_R_DSTART:
        act, a_res, a_code = I(2), r_destage + g, (x << KB) | K_R_DGRANT
        k = I(-1)
    elif k == K_R_DGRANT:
        k = I(K_R_EXEC)
    elif k == K_R_EXEC:  # _execute: the plan (raid_plan, as the reference), reads
        rs.rc[g, RC_TURN] += 1
        nr, nw = fr.plan(r_level, r_n, r_su, ops.ro_off[x], ops.ro_size[x], ops.ro_read[x],
                         failed_for(rs, ops, x), rs.rc[g, RC_TURN], r_policy,
                         rs.rc[g, RC_PEND0:RC_PEND0 + r_n],
                         rs.rcf[g, RCF_HEAD0:RCF_HEAD0 + r_n], rs.prd, rs.pwr)
        for i in range(nr):
            for c in range(fr.NIO):
                ops.ro_r[x * prows + i, c] = rs.prd[i, c]
        for i in range(nw):
            for c in range(fr.NIO):
                ops.ro_w[x * prows + i, c] = rs.pwr[i, c]
        ops.ro_nr[x] = nr
        ops.ro_nw[x] = nw
        ops.ro_resv[x] = False
        ops.ro_step[x] = ST_READS
        ops.ro_sw[x] = 0
        ops.ro_scnt[x] = nr
        k = I(K_R_SPAWN)
    elif k == K_R_SPAWN:  # the phase's member processes (none: it is over)
        sw = ops.ro_sw[x]
        spawned = member_io(ev, rs, ops, mis, own, x, sw, ops.ro_scnt[x], sw == 0)
        k = I(-1) if spawned else I(K_R_PHASE)
    elif k == K_R_ALL:
        k = I(K_R_PHASE)
    elif k == K_R_PHASE:  # a phase of the op is over (ro_lost: I/Os it lost)
        k = raid_phase_over(rs, ops, x, now)
        if k == K_R_BPACE:  # the rebuild paces itself
            act, a_delay, a_code = I(1), rs.pace_s[0], (x << KB) | K_R_BPACE
            k = I(-1)
    elif k == K_R_XEND:
        a = ops.ro_att[x]
        ops.ro_free[ops.ronf[0]] = x
        ops.ronf[0] += 1
        if a >= 0:  # the request reports its completion
            x = a
            k = I(K_R_REPORT)
        else:  # a destage: its slot, then its room in the cache
            release(ev, r_destage + g)
            rs.rc[g, RC_DESTAGES] += 1
            space_give(ev, sps, SP_RAID + g, ops.ro_size[x])
            k = I(-1)
    elif k == K_R_REPORT:  # Coalescer.report
        k = I(-1)
        if r_ccount <= 1:
            push_now(ev, (x << KB) | K_R_REPORTED)
        else:
            npend = rs.rc[g, RC_PENDING]
            if npend >= rs.co_pend.shape[1]:
                ev.ctl[C_OVF] = 1
                return I(-1), x, act, a_delay, a_code, a_res
            rs.co_pend[g, npend] = (x << KB) | K_R_REPORTED
            rs.rc[g, RC_PENDING] = npend + 1
            if npend + 1 >= r_ccount:
                raid_flush(ev, rs, g)
            elif npend == 0:  # the first pending one starts a timer
                push_start(ev, ((rs.rc[g, RC_EPOCH] * r_groups + g) << KB) | K_R_TSTART)
    elif k == K_R_TSTART:
        act, a_delay, a_code = I(1), r_ctimeout, (x << KB) | K_R_TIMER
        k = I(-1)
    elif k == K_R_TIMER:
        if x // r_groups == rs.rc[g, RC_EPOCH] and rs.rc[g, RC_PENDING] > 0:
            raid_flush(ev, rs, g)
        k = I(-1)
    elif k == K_R_REPORTED:
        if r_faults:  # the request's phase: its count and summed latency
            rs.rc[g, RC_PREQ + rs.rc[g, RC_PHASE]] += 1
            rs.rcf[g, RCF_PLAT + rs.rc[g, RC_PHASE]] += now - rs.rr_t0[x]
        k = I(K_DEV_FINISHED) if x < atcap else I(K_A_BDONE)  # (an array's destage)
        if x >= atcap:
            x -= atcap
    else:  # an unknown step: a bug
        k = I(-2)
    return k, x, act, a_delay, a_code, a_res


@numba.njit(inline="always")
def _fault_step(k, x, now, act, a_delay, a_code, a_res, ev, lvs, sps, rs, ops, mis, own, svc,
                cs, rng):
    """A step of a member's failure and its rebuild (the set ``x``: ``_fail`` and the start of
    ``_rebuild``; the rebuild's op ``x``: its loop, its pace) or of an op at the failing
    member (its ``doomed | failed`` Or). As :func:`raid_step`."""
    r_level, r_n = rs.r_level, rs.r_n
    r_stride = rs.r_stride
    r_failed, r_live = rs.r_failed, rs.r_live
    prows = rs.prows
    g = x if K_R_FSTART <= k <= K_R_BWAIT else ops.ro_grp[x]  # (the RAID set)
    if k == K_R_DOOMED:  # the doomed AllOf processed: the `doomed | failed` Or
        if ops.ro_mode[x] == MD_OR:
            ops.ro_mode[x] = MD_ORDONE
            push_now(ev, (x << KB) | K_R_OR)
        k = I(-1)
    elif k == K_R_OR:  # the op resumes: its I/Os at the failed member, if lost
        k = raid_or_resumed(ev, rs, ops, mis, x)
    elif k == K_R_FSTART:  # RaidModel._fail
        act, a_delay, a_code = I(1), rs.rp[RP_FAIL_AT], (g << KB) | K_R_FAIL
        k = I(-1)
    elif k == K_R_FAIL:  # the member fails: degraded; its busy units withdrawn
        rs.rc[g, RC_FAILED_NOW] = r_failed
        rs.rc[g, RC_PHASE] = PH_DEGRADED
        rs.rcf[g, RCF_FAILED_AT] = now
        lvs.dv_dead[g * r_stride + r_failed] = 1
        level(lvs, L_BUSY, now, -lvs.dv_busy[g * r_stride + r_failed])
        rs.rc[g, RC_FAILTRIG] = 1
        push_now(ev, (g << KB) | K_R_FAILEV)
        k = I(-1)
    elif k == K_R_FAILEV:  # the failed event's waiters, in registration order
        if rs.rc[g, RC_RB_WAITING] != 0:  # the rebuild waited for it first (at t = 0)
            rs.rc[g, RC_RB_WAITING] = 0
            schedule(ev, now, max(0.0, rs.rp[RP_RB_START] - now), (g << KB) | K_R_BWAIT)
        raid_fail_waiters(ev, rs, ops, g)
        k = I(-1)
    elif k == K_R_BSTART:  # RaidModel._rebuild: after the failure, at its start
        if r_live:
            rs.rc[g, RC_RB_WAITING] = 1
            k = I(-1)
        else:
            act, a_code = I(1), (g << KB) | K_R_BWAIT
            a_delay = max(0.0, rs.rp[RP_RB_START] - now)
            k = I(-1)
    elif k == K_R_BWAIT:  # the spare takes the failed member's place
        rs.rc[g, RC_SPARE] = 1
        rs.rc[g, RC_PEND0 + r_failed] = 0  # (idle, its head at 0)
        rs.rcf[g, RCF_HEAD0 + r_failed] = 0.0
        rs.rc[g, RC_PHASE] = PH_REBUILDING
        rs.rcf[g, RCF_RB_STARTED] = now
        o = new_op(ev, rs, ops, RO_REBUILD, 0.0, 0.0, True, g)
        if o < 0:
            return I(-1), x, act, a_delay, a_code, a_res
        x = o
        k = I(K_R_BSTEP)
    elif k == K_R_BSTEP:  # the rebuild's loop: the next range, or done
        k = I(-1)
        pos = rs.rcf[g, RCF_RB_POS]
        target = rs.rp[RP_RB_TARGET]
        if pos < target:
            rs.rcf[g, RCF_RB_T0] = now
            ops.ro_off[x] = pos
            ops.ro_size[x] = min(rs.rp[RP_RB_STEP], target - pos)
            nrb = fr.rebuild_plan(r_level, r_n, r_failed, pos, ops.ro_size[x],
                                  rs.rc[g, RC_RB_TURN], rs.prd)
            rs.rc[g, RC_RB_TURN] += 1
            for i in range(nrb):
                for c in range(fr.NIO):
                    ops.ro_r[x * prows + i, c] = rs.prd[i, c]
            ops.ro_step[x] = ST_RB_READS
            ops.ro_sw[x] = 0
            ops.ro_scnt[x] = nrb
            k = I(K_R_SPAWN)
        else:
            rs.rc[g, RC_FAILED_NOW] = -1
            rs.rc[g, RC_PHASE] = PH_AFTER
            rs.rcf[g, RCF_RB_ENDED] = now
            ops.ro_free[ops.ronf[0]] = x
            ops.ronf[0] += 1
    elif k == K_R_BPACE:  # K_R_BPACE
        k = I(K_R_BSTEP)
    else:  # an unknown step: a bug
        k = I(-2)
    return k, x, act, a_delay, a_code, a_res


@numba.njit(inline="always")
def raid_step(k, x, now, act, a_delay, a_code, a_res, ev, lvs, sps, rs, ops, mis, own, svc,
              cs, rng):
    """One step ``k`` of a RAID set's processes (``RaidModel``: the controller, its cache and
    coalescer, an op's phases of member I/Os, a member's serve process for generic and cloud
    members, member failure and rebuild) for owner ``x`` (a member I/O, a request at the set,
    an op, a coalescing timer, or the set). Returns the next step (-1: the process waits), the
    owner it goes on with, and what it waits on (``act`` 1: a timeout of ``a_delay``; 2:
    resource ``a_res``; resuming at ``a_code``). A member disk's or SSD's steps are their
    families'."""
    if (K_M_START <= k <= K_M_PEND) or k == K_M_TOKENS:
        k, x, act, a_delay, a_code, a_res = _member_step(
            k, x, now, act, a_delay, a_code, a_res, ev, lvs, sps, rs, ops, mis, own, svc, cs,
            rng)
    elif (K_R_DOOMED <= k <= K_R_BSTEP) or k == K_R_BPACE:
        k, x, act, a_delay, a_code, a_res = _fault_step(
            k, x, now, act, a_delay, a_code, a_res, ev, lvs, sps, rs, ops, mis, own, svc, cs,
            rng)
    else:
        k, x, act, a_delay, a_code, a_res = _controller_step(
            k, x, now, act, a_delay, a_code, a_res, ev, lvs, sps, rs, ops, mis, own, svc, cs,
            rng)
    if ev.ctl[C_OVF] != 0:
        return I(-1), x, act, a_delay, a_code, a_res
    return k, x, act, a_delay, a_code, a_res


@numba.njit(inline="always")
def start_sets(ev, rp, rc, rcf, r_groups, r_failed, r_live):
    """Each RaidModel's failure and rebuild processes, in the order of the sets (before the
    jobs): member ``r_failed`` fails during the run (``r_live``) or has failed from the start
    (the set runs degraded)."""
    for g in range(r_groups):
        if r_live:
            push_start(ev, (g << KB) | K_R_FSTART)
        else:  # failed from the start
            rc[g, RC_FAILED_NOW] = r_failed
            rc[g, RC_PHASE] = PH_DEGRADED
            rcf[g, RCF_FAILED_AT] = 0.0
        if rp[RP_REBUILD] != 0.0:
            rcf[g, RCF_TARGET] = rp[RP_RB_TARGET]
            push_start(ev, (g << KB) | K_R_BSTART)

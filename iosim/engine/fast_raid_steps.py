"""RAID's steps on the fast engine: ``RaidModel``'s controller, its ops and member processes,
the coalescer, a member failing and the rebuild.

The kernel (:mod:`iosim.engine.fast`) hands a RAID event (kinds ``K_R_OVH`` .. ``K_R_SPAWN``)
to :func:`raid_steps`, which runs the process on until it waits again or leaves RAID (to the
device's finish, or an array's destage), and returns what it waits on. The plan of an op is
:mod:`iosim.engine.fast_raid`'s (``raid_plan`` compiled); a member disk's own steps are
:mod:`iosim.engine.fast_hdd_steps`'s. An array runs one RAID set per group (``g``), each member
(``dv``) at ``g * stride + member``, the spare last.

State: :class:`RaidState` (the arrays), :class:`RaidConf` (the numbers and where the RAID
resources are), plus the kernel's :class:`~iosim.engine.fast_state.Events`.
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np

from ..devices.generic import generic_service_s
from ..dists import EMPIRICAL, sample_code
from . import fast_cache  # noqa: F401  (first: the cache locator)
from . import fast_raid as fr
from .fast_codes import (
    C_OVF,
    K_A_BDONE,
    K_DEV_FINISHED,
    K_HDD_TAG,
    K_M_DONE,
    K_M_GRANT,
    K_M_PEND,
    K_M_START,
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
    RC_PENDING,
    RC_PHASE,
    RC_PREQ,
    RC_RB_TURN,
    RC_RB_WAITING,
    RC_REGSEQ,
    RC_RESERVED,
    RC_SPARE,
    RC_TURN,
    RCF_FAILED_AT,
    RCF_PLAT,
    RCF_RB_ENDED,
    RCF_RB_POS,
    RCF_RB_STARTED,
    RCF_RB_T0,
    RCF_REBUILT,
    RCF_REBUILT_TO,
    RO_DESTAGE,
    RO_REBUILD,
    RP_FAIL_AT,
    RP_RB_RATE,
    RP_RB_START,
    RP_RB_STEP,
    RP_RB_TARGET,
    SP_RAID,
    ST_MISSING,
    ST_RB_READS,
    ST_RB_WRITE,
    ST_READS,
    ST_WRITES,
)
from .fast_state import fpush, level, release, schedule, space_give, space_take, upush

__all__ = ["RaidState", "RaidConf", "raid_steps", "new_op"]

_service_s = numba.njit(inline="always")(generic_service_s)
_sample_code = numba.njit(inline="always")(sample_code)

#: RAID's arrays. rp, rc, rcf: parameters, counters and state per set (fast.RP_*, RC_*, RCF_*).
#: Ops (a request's or a destage's RaidModel._execute, or the rebuild), ro_*: the attempt they
#: answer (or RO_DESTAGE, RO_REBUILD), range, step, planned reads and writes (ro_r, ro_w: prows
#: rows each), re-served, the phase to start (ro_sw: 0 reads 1 writes; ro_scnt: its I/Os), how
#: it waits for the phase's member processes (ro_mode: MD_*; processes left, doomed left, I/Os
#: in the phase and at the failing member, doomed ended, registration order, lost), its set,
#: the free list (ronf: its count). Member I/Os, mi_*: member, range, direction, op, at the
#: failing member before it fails; free list (rnf). The plan being made (prd, pwr, pms), the
#: rebuild's pace (pace_s), each member's busy units and whether it died, the coalescer's
#: pending reports per set, the requests at a set (rr_*: an attempt's, or an array destage's
#: at atcap + its index), the generic members' service samples.
RaidState = namedtuple("RaidState", [
    "rp", "rc", "rcf",
    "ro_att", "ro_off", "ro_size", "ro_read", "ro_step", "ro_nr", "ro_nw", "ro_r", "ro_w",
    "ro_resv", "ro_sw", "ro_scnt", "ro_mode", "ro_left", "ro_dleft", "ro_cnt", "ro_ndying",
    "ro_doomed", "ro_reg", "ro_lost", "ro_grp", "ro_free", "ronf",
    "mi_dev", "mi_off", "mi_size", "mi_read", "mi_ro", "mi_dy", "mi_free", "rnf",
    "prd", "pwr", "pms", "pace_s", "dv_busy", "dv_dead", "co_pend",
    "rr_off", "rr_size", "rr_read", "rr_t0", "rr_grp", "svc_samples"])
#: RAID's numbers: attempts (atcap), sets, members per set plus the spare (stride), members
#: (n), ops, plan rows per op, member I/Os, level, the member that fails (-1 none), whether it
#: fails during the run (live), members are disks, the first set's destage slots and member
#: resources, reports per coalesced batch, stripe unit, controller overhead, cache bytes,
#: coalescing timeout, generic members' media rate and service distribution
RaidConf = namedtuple("RaidConf", [
    "atcap", "groups", "stride", "n", "rocap", "prows", "micap", "level", "failed", "faults",
    "live", "member_hdd", "r_destage", "r_mem0", "ccount", "su", "ovh", "cache", "ctimeout",
    "media", "svc_code", "svc_a", "svc_b"])


@numba.njit(inline="always")
def _unit_busy(ev, rs, dv, t, delta):
    """Recorder.unit_busy from member ``dv`` (a failed member's is not recorded)."""
    rs.dv_busy[dv] += delta
    if rs.dv_dead[dv] == 0:
        level(ev, L_BUSY, t, delta)


@numba.njit(inline="always")
def _flush(ev, rs, g):
    """Coalescer._flush (set ``g``): the pending reports succeed in order; a new epoch."""
    rc = rs.rc
    for i in range(rc[g, RC_PENDING]):
        fpush(ev, rs.co_pend[g, i])
    rc[g, RC_PENDING] = 0
    rc[g, RC_EPOCH] += 1


@numba.njit(inline="always")
def new_op(ev, rs, att, off, size, is_read, g):
    """A RAID op (a request's or a destage's _execute, or the rebuild) of set ``g``; -1 when
    full (the run is redone with more room)."""
    if rs.ronf[0] == 0:
        ev.ctl[C_OVF] = 1
        return -1
    rs.ronf[0] -= 1
    o = rs.ro_free[rs.ronf[0]]
    rs.ro_att[o] = att
    rs.ro_off[o] = off
    rs.ro_size[o] = size
    rs.ro_read[o] = is_read
    rs.ro_mode[o] = MD_ALL
    rs.ro_grp[o] = g
    return o


@numba.njit(inline="always")
def _failed_for(rs, cf, o):
    """RaidModel._failed_for: the failed member as op ``o`` sees it (none once its rows are
    rebuilt)."""
    g = rs.ro_grp[o]
    f = rs.rc[g, RC_FAILED_NOW]
    if f < 0 or rs.rcf[g, RCF_REBUILT_TO] <= 0:
        return f
    end = fr.row_end(cf.level, cf.n, cf.su, rs.ro_off[o], rs.ro_size[o])
    return -1 if end <= rs.rcf[g, RCF_REBUILT_TO] else f


@numba.njit(inline="always")
def _member_io(ev, rs, cf, o, which, cnt, is_read):
    """RaidModel._member_io: count the op's ``cnt`` member I/Os (its reads plan ro_r or its
    writes plan ro_w) and start one member process each, in order. False when there are none
    (nothing to wait for)."""
    rc = rs.rc
    g = rs.ro_grp[o]
    rc[g, RC_MREADS if is_read else RC_MWRITES] += cnt
    rs.ro_lost[o] = 0
    rs.ro_cnt[o] = cnt
    if cnt == 0:
        return False
    if rs.rnf[0] < cnt:
        ev.ctl[C_OVF] = 1
        return False
    plan = rs.ro_r if which == 0 else rs.ro_w
    base = o * cf.prows
    waiting = cf.live and rc[g, RC_FAILTRIG] == 0  # the failed event still to come
    nd = 0
    for i in range(cnt):
        m, off, nb, tag = plan[base + i, 0], plan[base + i, 1], plan[base + i, 2], \
            plan[base + i, 3]
        mm = int(m)
        if cf.faults:  # by cause: foreground, degraded, rebuild
            cause = 2 if rs.ro_att[o] == RO_REBUILD else (1 if tag != 0.0 else 0)
            rc[g, (RC_MR_FG if is_read else RC_MW_FG) + cause] += 1
            if is_read and cause == 1:
                rc[g, RC_PDR + rc[g, RC_PHASE]] += 1
        rs.rnf[0] -= 1
        mio = rs.mi_free[rs.rnf[0]]
        rs.mi_dev[mio] = g * cf.stride + (cf.n if mm == cf.failed and rc[g, RC_SPARE] != 0
                                          else mm)
        rs.mi_off[mio] = off
        rs.mi_size[mio] = nb
        rs.mi_read[mio] = is_read
        rs.mi_ro[mio] = o
        rs.mi_dy[mio] = waiting and mm == cf.failed
        if rs.mi_dy[mio]:
            nd += 1
        upush(ev, (mio << KB) | K_M_START)
    rs.ro_left[o] = cnt - nd
    rs.ro_dleft[o] = nd
    rs.ro_ndying[o] = nd
    rs.ro_doomed[o] = False
    if nd > 0:  # `doomed | failed`, registered on the failed event in this order
        rs.ro_mode[o] = MD_OR
        rs.ro_reg[o] = rc[g, RC_REGSEQ]
        rc[g, RC_REGSEQ] += 1
    else:
        rs.ro_mode[o] = MD_ALL
    return True


@numba.njit(inline="always")
def _or_resumed(ev, rs, cf, o):
    """The op's `doomed | failed` processed: the I/Os lost with the member (unless they all
    ended), then AllOf(the rest). The next step, or -1 to wait."""
    g = rs.ro_grp[o]
    lost = 0 if rs.ro_doomed[o] else rs.ro_ndying[o]
    rs.ro_lost[o] = lost
    if lost > 0:
        rs.rc[g, RC_LOST] += lost
        for i in range(cf.micap):  # its processes at the failed member go on, abandoned
            if rs.mi_ro[i] == o and rs.mi_dy[i]:
                rs.mi_ro[i] = -1
    if rs.ro_cnt[o] == rs.ro_ndying[o]:
        return K_R_PHASE
    rs.ro_mode[o] = MD_REST
    if rs.ro_left[o] == 0:  # all ended already: the AllOf succeeds at once
        fpush(ev, (o << KB) | K_R_ALL)
    return -1


@numba.njit(inline="always")
def _fail_waiters(ev, rs, cf, g):
    """The failed event's callbacks (set ``g``): every op's `doomed | failed`, in registration
    order."""
    ro_mode, ro_grp, ro_reg = rs.ro_mode, rs.ro_grp, rs.ro_reg
    m = 0
    for o in range(cf.rocap):
        if ro_mode[o] == MD_OR and ro_grp[o] == g:
            m += 1
    waiting = np.empty(m, np.int64)
    m = 0
    for o in range(cf.rocap):
        if ro_mode[o] == MD_OR and ro_grp[o] == g:
            waiting[m] = o
            m += 1
    for i in range(1, m):
        j = i
        while j > 0 and ro_reg[waiting[j - 1]] > ro_reg[waiting[j]]:
            waiting[j - 1], waiting[j] = waiting[j], waiting[j - 1]
            j -= 1
    for i in range(m):
        ro_mode[waiting[i]] = MD_ORDONE
        fpush(ev, (waiting[i] << KB) | K_R_OR)


@numba.njit(inline="always")
def _remap_missing(rs, cf, o):
    """Reads died with the member: re-map in degraded mode and read what is missing (less the
    reads the op already has)."""
    g = rs.ro_grp[o]
    base = o * cf.prows
    ro_r, ro_w, prd, pwr, pms = rs.ro_r, rs.ro_w, rs.prd, rs.pwr, rs.pms
    rs.ro_resv[o] = True
    nr, nw = fr.plan(cf.level, cf.n, cf.su, rs.ro_off[o], rs.ro_size[o], rs.ro_read[o],
                     _failed_for(rs, cf, o), rs.rc[g, RC_TURN], prd, pwr)
    used = np.zeros(max(1, rs.ro_nr[o]), np.bool_)
    nmiss = 0
    for i in range(nr):
        have = False
        for j in range(rs.ro_nr[o]):
            if (not used[j] and int(ro_r[base + j, 0]) != cf.failed
                    and ro_r[base + j, 0] == prd[i, 0] and ro_r[base + j, 1] == prd[i, 1]
                    and ro_r[base + j, 2] == prd[i, 2]):
                used[j] = True
                have = True
                break
        if not have:
            for c in range(3):
                pms[nmiss, c] = prd[i, c]
            pms[nmiss, 3] = 1.0  # degraded
            nmiss += 1
    for i in range(nmiss):
        for c in range(fr.NIO):
            ro_r[base + i, c] = pms[i, c]
    for i in range(nw):
        for c in range(fr.NIO):
            ro_w[base + i, c] = pwr[i, c]
    rs.ro_nw[o] = nw
    rs.ro_step[o] = ST_MISSING
    rs.ro_sw[o] = 0
    rs.ro_scnt[o] = nmiss


@numba.njit(inline="always")
def _phase_over(rs, cf, o, t):
    """_execute_faulty (or _rebuild) past a phase of member I/Os: the next phase (K_R_SPAWN),
    else the step the op goes on with (K_R_XEND; the rebuild's K_R_BSTEP, or K_R_BPACE after
    pace_s[0])."""
    rc, rcf, ro_w = rs.rc, rs.rcf, rs.ro_w
    g = rs.ro_grp[o]
    st = rs.ro_step[o]
    base = o * cf.prows
    if st == ST_READS and rs.ro_lost[o] > 0:
        _remap_missing(rs, cf, o)
        return K_R_SPAWN
    if st == ST_READS or st == ST_MISSING:  # the writes, less any for the failed member
        nw = rs.ro_nw[o]
        if cf.faults:
            live = 0
            for i in range(nw):
                w = base + i
                if int(ro_w[w, 0]) != rc[g, RC_FAILED_NOW] or (
                        ro_w[w, 1] + ro_w[w, 2] <= rcf[g, RCF_REBUILT_TO]):
                    for c in range(fr.NIO):
                        ro_w[base + live, c] = ro_w[w, c]
                    live += 1
            if live < nw:
                rc[g, RC_LOST] += nw - live
                rs.ro_resv[o] = True
            nw = live
        rs.ro_step[o] = ST_WRITES
        rs.ro_sw[o] = 1
        rs.ro_scnt[o] = nw
        return K_R_SPAWN
    if st == ST_WRITES:
        if cf.faults and (rs.ro_resv[o] or rs.ro_lost[o] > 0):
            rc[g, RC_RESERVED] += 1
        return K_R_XEND
    if st == ST_RB_READS:  # the range onto the spare
        ro_w[base, 0] = cf.failed
        ro_w[base, 1] = rs.ro_off[o]
        ro_w[base, 2] = rs.ro_size[o]
        ro_w[base, 3] = 0.0
        rs.ro_step[o] = ST_RB_WRITE
        rs.ro_sw[o] = 1
        rs.ro_scnt[o] = 1
        return K_R_SPAWN
    nb = rs.ro_size[o]  # ST_RB_WRITE: the checkpoint moves on
    pos = rcf[g, RCF_RB_POS] + nb
    rcf[g, RCF_RB_POS] = pos
    rcf[g, RCF_REBUILT_TO] = pos
    rcf[g, RCF_REBUILT] += nb
    pace = rcf[g, RCF_RB_T0] + nb / rs.rp[RP_RB_RATE] - t
    if pace > 0:
        rs.pace_s[0] = pace
        return K_R_BPACE
    return K_R_BSTEP


@numba.njit(inline="always")
def _member_step(k, x, now, ev, rs, cf, mrngs):
    """A member process: its unit (or a disk's NCQ tag), a generic member's service on its own
    stream, and its end (the op's AllOf counts it). (next step, act, delay, code, resource)"""
    act, a_delay, a_code, a_res = 0, 0.0, 0, 0
    if k == K_M_PEND:  # a member process's end processed
        o = rs.mi_ro[x]
        dying = rs.mi_dy[x]
        rs.mi_ro[x] = -1
        rs.mi_free[rs.rnf[0]] = x
        rs.rnf[0] += 1
        k = -1
        if o < 0:  # abandoned by its op when the member failed under it
            pass
        elif dying:  # at the member failing: the `doomed` AllOf
            rs.ro_dleft[o] -= 1
            if rs.ro_dleft[o] == 0:
                rs.ro_doomed[o] = True
                if rs.ro_mode[o] == MD_OR:
                    fpush(ev, (o << KB) | K_R_DOOMED)
        else:
            rs.ro_left[o] -= 1
            if rs.ro_left[o] == 0 and (rs.ro_mode[o] == MD_ALL or rs.ro_mode[o] == MD_REST):
                fpush(ev, (o << KB) | K_R_ALL)
    elif k == K_M_START:  # a member's serve process: its unit, or a disk's tag
        act, a_res = 2, cf.r_mem0 + rs.mi_dev[x]
        a_code = (x << KB) | (K_HDD_TAG if cf.member_hdd else K_M_GRANT)
        k = -1
    elif k == K_M_GRANT:  # GenericModel.serve, on the member's own stream
        _unit_busy(ev, rs, rs.mi_dev[x], now, 1)
        mg = mrngs[rs.mi_dev[x]]
        if cf.svc_code == EMPIRICAL:
            base = rs.svc_samples[mg.integers(0, rs.svc_samples.shape[0])]
        else:
            base = _sample_code(cf.svc_code, cf.svc_a, cf.svc_b, mg)
        act, a_code = 1, (x << KB) | K_M_DONE
        a_delay = _service_s(base, rs.mi_size[x], cf.media)
        k = -1
    else:  # K_M_DONE
        _unit_busy(ev, rs, rs.mi_dev[x], now, -1)
        release(ev, cf.r_mem0 + rs.mi_dev[x])
        fpush(ev, (x << KB) | K_M_PEND)
        k = -1
    return k, act, a_delay, a_code, a_res


@numba.njit(inline="always")
def _report(ev, rs, cf, x, g):
    """Coalescer.report of request ``x`` at set ``g``."""
    rc = rs.rc
    if cf.ccount <= 1:
        fpush(ev, (x << KB) | K_R_REPORTED)
        return
    npend = rc[g, RC_PENDING]
    if npend >= rs.co_pend.shape[1]:
        ev.ctl[C_OVF] = 1
        return
    rs.co_pend[g, npend] = (x << KB) | K_R_REPORTED
    rc[g, RC_PENDING] = npend + 1
    if npend + 1 >= cf.ccount:
        _flush(ev, rs, g)
    elif npend == 0:  # the first pending one starts a timer
        upush(ev, ((rc[g, RC_EPOCH] * cf.groups + g) << KB) | K_R_TSTART)


@numba.njit(inline="always")
def _controller_step(k, x, now, ev, rs, cf, g):
    """RaidModel.serve: the controller cache, destage processes, the op's end, the coalescer.
    (next step, argument, act, delay, code, resource)"""
    rc = rs.rc
    act, a_delay, a_code, a_res = 0, 0.0, 0, 0
    if k == K_R_OVH:
        k = K_R_CMD
    elif k == K_R_CMD:  # a write the cache holds, or the members now
        if not rs.rr_read[x] and 0 < rs.rr_size[x] <= cf.cache:
            if space_take(ev, SP_RAID + g, rs.rr_size[x], (x << KB) | K_R_CACHED):
                k = K_R_CACHED
            else:
                k = -1
        else:
            o = new_op(ev, rs, x, rs.rr_off[x], rs.rr_size[x], rs.rr_read[x], g)
            if o < 0:
                return -1, x, act, a_delay, a_code, a_res
            x = o
            k = K_R_EXEC
    elif k == K_R_CACHED:  # acknowledged; a destage process takes the data down
        rc[g, RC_CACHED] += 1
        o = new_op(ev, rs, RO_DESTAGE, rs.rr_off[x], rs.rr_size[x], False, g)
        if o < 0:
            return -1, x, act, a_delay, a_code, a_res
        upush(ev, (o << KB) | K_R_DSTART)
        k = K_R_REPORT
    elif k == K_R_DSTART:
        act, a_res, a_code = 2, cf.r_destage + g, (x << KB) | K_R_DGRANT
        k = -1
    elif k == K_R_DGRANT:
        k = K_R_EXEC
    elif k == K_R_XEND:
        a = rs.ro_att[x]
        rs.ro_free[rs.ronf[0]] = x
        rs.ronf[0] += 1
        if a >= 0:  # the request reports its completion
            x = a
            k = K_R_REPORT
        else:  # a destage: its slot, then its room in the cache
            release(ev, cf.r_destage + g)
            rc[g, RC_DESTAGES] += 1
            space_give(ev, SP_RAID + g, rs.ro_size[x])
            k = -1
    elif k == K_R_REPORT:  # Coalescer.report
        k = -1
        _report(ev, rs, cf, x, g)
    elif k == K_R_TSTART:
        act, a_delay, a_code = 1, cf.ctimeout, (x << KB) | K_R_TIMER
        k = -1
    elif k == K_R_TIMER:
        if x // cf.groups == rc[g, RC_EPOCH] and rc[g, RC_PENDING] > 0:
            _flush(ev, rs, g)
        k = -1
    else:  # K_R_REPORTED
        if cf.faults:  # the request's phase: its count and summed latency
            rc[g, RC_PREQ + rc[g, RC_PHASE]] += 1
            rs.rcf[g, RCF_PLAT + rc[g, RC_PHASE]] += now - rs.rr_t0[x]
        k = K_DEV_FINISHED if x < cf.atcap else K_A_BDONE  # (an array's destage)
        if x >= cf.atcap:
            x -= cf.atcap
    return k, x, act, a_delay, a_code, a_res


@numba.njit(inline="always")
def _op_step(k, x, now, ev, rs, cf, g):
    """RaidModel._execute of op ``x``: the plan, its phases of member processes, the
    `doomed | failed` wait. (next step, act, delay, code)"""
    act, a_delay, a_code = 0, 0.0, 0
    if k == K_R_EXEC:  # the plan (raid_plan, as the reference), then its reads
        rc = rs.rc
        rc[g, RC_TURN] += 1
        nr, nw = fr.plan(cf.level, cf.n, cf.su, rs.ro_off[x], rs.ro_size[x], rs.ro_read[x],
                         _failed_for(rs, cf, x), rc[g, RC_TURN], rs.prd, rs.pwr)
        for i in range(nr):
            for c in range(fr.NIO):
                rs.ro_r[x * cf.prows + i, c] = rs.prd[i, c]
        for i in range(nw):
            for c in range(fr.NIO):
                rs.ro_w[x * cf.prows + i, c] = rs.pwr[i, c]
        rs.ro_nr[x] = nr
        rs.ro_nw[x] = nw
        rs.ro_resv[x] = False
        rs.ro_step[x] = ST_READS
        rs.ro_sw[x] = 0
        rs.ro_scnt[x] = nr
        k = K_R_SPAWN
    elif k == K_R_SPAWN:  # the phase's member processes (none: it is over)
        spawned = _member_io(ev, rs, cf, x, rs.ro_sw[x], rs.ro_scnt[x], rs.ro_sw[x] == 0)
        k = -1 if spawned else K_R_PHASE
    elif k == K_R_ALL:
        k = K_R_PHASE
    elif k == K_R_PHASE:  # a phase of the op is over (ro_lost: I/Os it lost)
        k = _phase_over(rs, cf, x, now)
        if k == K_R_BPACE:  # the rebuild paces itself
            act, a_delay, a_code = 1, rs.pace_s[0], (x << KB) | K_R_BPACE
            k = -1
    elif k == K_R_DOOMED:  # the doomed AllOf processed: the `doomed | failed` Or
        if rs.ro_mode[x] == MD_OR:
            rs.ro_mode[x] = MD_ORDONE
            fpush(ev, (x << KB) | K_R_OR)
        k = -1
    else:  # K_R_OR: the op resumes: its I/Os at the failed member, if lost
        k = _or_resumed(ev, rs, cf, x)
    return k, act, a_delay, a_code


@numba.njit(inline="always")
def _rebuild_next(now, rs, cf, x, g):
    """The rebuild's loop top (op ``x``): plan the next range (K_R_SPAWN), or done (-1)."""
    rc, rcf, rp = rs.rc, rs.rcf, rs.rp
    pos = rcf[g, RCF_RB_POS]
    target = rp[RP_RB_TARGET]
    if pos < target:
        rcf[g, RCF_RB_T0] = now
        rs.ro_off[x] = pos
        rs.ro_size[x] = min(rp[RP_RB_STEP], target - pos)
        nrb = fr.rebuild_plan(cf.level, cf.n, cf.failed, pos, rs.ro_size[x],
                              rc[g, RC_RB_TURN], rs.prd)
        rc[g, RC_RB_TURN] += 1
        for i in range(nrb):
            for c in range(fr.NIO):
                rs.ro_r[x * cf.prows + i, c] = rs.prd[i, c]
        rs.ro_step[x] = ST_RB_READS
        rs.ro_sw[x] = 0
        rs.ro_scnt[x] = nrb
        return K_R_SPAWN
    rc[g, RC_FAILED_NOW] = -1
    rc[g, RC_PHASE] = PH_AFTER
    rcf[g, RCF_RB_ENDED] = now
    rs.ro_free[rs.ronf[0]] = x
    rs.ronf[0] += 1
    return -1


@numba.njit(inline="always")
def _failure_step(k, x, now, ev, rs, cf, g):
    """RaidModel._fail and _rebuild of set ``g``. (next step, argument, act, delay, code)"""
    rc, rcf, rp = rs.rc, rs.rcf, rs.rp
    act, a_delay, a_code = 0, 0.0, 0
    if k == K_R_FSTART:  # RaidModel._fail
        act, a_delay, a_code = 1, rp[RP_FAIL_AT], (g << KB) | K_R_FAIL
        k = -1
    elif k == K_R_FAIL:  # the member fails: degraded; its busy units withdrawn
        rc[g, RC_FAILED_NOW] = cf.failed
        rc[g, RC_PHASE] = PH_DEGRADED
        rcf[g, RCF_FAILED_AT] = now
        rs.dv_dead[g * cf.stride + cf.failed] = 1
        level(ev, L_BUSY, now, -rs.dv_busy[g * cf.stride + cf.failed])
        rc[g, RC_FAILTRIG] = 1
        fpush(ev, (g << KB) | K_R_FAILEV)
        k = -1
    elif k == K_R_FAILEV:  # the failed event's waiters, in registration order
        if rc[g, RC_RB_WAITING] != 0:  # the rebuild waited for it first (at t = 0)
            rc[g, RC_RB_WAITING] = 0
            schedule(ev, now, max(0.0, rp[RP_RB_START] - now), (g << KB) | K_R_BWAIT)
        _fail_waiters(ev, rs, cf, g)
        k = -1
    elif k == K_R_BSTART:  # RaidModel._rebuild: after the failure, at its start
        if cf.live:
            rc[g, RC_RB_WAITING] = 1
        else:
            act, a_code = 1, (g << KB) | K_R_BWAIT
            a_delay = max(0.0, rp[RP_RB_START] - now)
        k = -1
    elif k == K_R_BWAIT:  # the spare takes the failed member's place
        rc[g, RC_SPARE] = 1
        rc[g, RC_PHASE] = PH_REBUILDING
        rcf[g, RCF_RB_STARTED] = now
        o = new_op(ev, rs, RO_REBUILD, 0.0, 0.0, True, g)
        if o < 0:
            return -1, x, act, a_delay, a_code
        x = o
        k = K_R_BSTEP
    elif k == K_R_BSTEP:  # the rebuild's loop: the next range, or done
        k = _rebuild_next(now, rs, cf, x, g)
    else:  # K_R_BPACE
        k = K_R_BSTEP
    return k, x, act, a_delay, a_code


@numba.njit(inline="always")
def _group_of(k, x, rs, cf):
    """The RAID set of a step's member I/O, request, op, coalescing timer (x: epoch * sets +
    set) or failure process (x: the set)."""
    if k >= K_M_START and k <= K_M_PEND:
        return rs.mi_dev[x] // cf.stride
    if k <= K_R_CACHED or k == K_R_REPORT or k == K_R_REPORTED:
        return rs.rr_grp[x]
    if k == K_R_TSTART or k == K_R_TIMER:
        return x % cf.groups
    if k >= K_R_FSTART and k <= K_R_BWAIT:
        return x
    return rs.ro_grp[x]


@numba.njit(inline="always")
def raid_steps(k, x, now, ev, rs, cf, mrngs):
    """Run a RAID process from step ``k`` (argument ``x``) until it waits or leaves RAID.
    Returns (next step: -1 when it waits or on overflow (ctl[C_OVF] set), else a step outside
    RAID's; its argument; wait: 0 none, 1 a timeout, 2 a resource request; delay; code;
    resource)."""
    act, a_delay, a_code, a_res = 0, 0.0, 0, 0
    while k >= K_R_OVH and k <= K_R_SPAWN:
        g = _group_of(k, x, rs, cf)
        if k >= K_M_START and k <= K_M_PEND:
            k, act, a_delay, a_code, a_res = _member_step(k, x, now, ev, rs, cf, mrngs)
        elif (k <= K_R_CACHED or (k >= K_R_XEND and k <= K_R_TIMER)) and k != K_R_EXEC:
            k, x, act, a_delay, a_code, a_res = _controller_step(k, x, now, ev, rs, cf, g)
        elif k >= K_R_FSTART and k <= K_R_BPACE:
            k, x, act, a_delay, a_code = _failure_step(k, x, now, ev, rs, cf, g)
        else:  # K_R_EXEC, K_R_SPAWN, K_R_ALL, K_R_PHASE, K_R_DOOMED, K_R_OR
            k, act, a_delay, a_code = _op_step(k, x, now, ev, rs, cf, g)
        if ev.ctl[C_OVF] != 0:
            return -1, x, act, a_delay, a_code, a_res
    return k, x, act, a_delay, a_code, a_res

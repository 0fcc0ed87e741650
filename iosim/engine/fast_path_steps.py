"""The stack below the block layer on the fast engine: ``Multipath`` (the host queue, path
choice, failures and failover) and ``Link`` (the transfer each way and the latency), as the
kernel's event steps over typed state, mirroring ``simpy_engine``'s block-request and path
attempt processes.

The path choice is :mod:`iosim.engine.path_choice`'s ``pick_path`` (the SimPy model calls the
same function); the host queue is :mod:`iosim.engine.fast_multipath`'s. What is here is event
plumbing only. The kernel (:mod:`iosim.engine.fast`) calls :func:`path_step` for every event of
the path's block (``K_P_FIRST`` .. ``K_P_LAST``); it is inlined there before typing, and the
kernel is compiled without SSA renaming, so every integer constant a step assigns to a name
that takes other values is ``I(...)``, an int64.

The attempt pool's free count and the failure waiters' registration counter live in ``ctl``
(``C_ATFREE``, ``C_REGSEQ``): a step returns the names the kernel keeps between steps, not
these.
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np

from .fast_codes import (
    C_ATFREE,
    C_OVF,
    C_REGSEQ,
    COND_NONE,
    COND_PENDING,
    COND_TRIGGERED,
    K_ACQ,
    K_ACQUIRE,
    K_ATT_DONE,
    K_ATT_END,
    K_ATT_FINISH,
    K_ATT_RUN,
    K_ATT_START,
    K_BR_FINISH,
    K_BR_NR,
    K_BR_PATH,
    K_COND,
    K_DEV_ARRIVE,
    K_DISPATCH,
    K_FAILOVER,
    K_LD_GRANT,
    K_LD_LAT,
    K_LD_LATSTEP,
    K_LD_XFER,
    K_LU_GRANT,
    K_LU_LAT,
    K_LU_LATSTEP,
    K_LU_XFER,
    K_P_FIRST,
    K_P_LAST,
    K_PATH_FAILED,
    K_PE_FAIL,
    K_PE_RESTORE,
    K_PE_START,
    KB,
    L_BELOW,
    T_FAILOVERS,
)
from .fast_core import free_list, unmanaged
from .fast_multipath import mp_acquire, mp_dispatch
from .fast_steps import level, push_now, push_start, release

I = np.int64  # noqa: E741  (an integer that is not a constant to numba's typing)

#: the paths (alive, I/Os out, bytes out, epoch: bumped when one fails, generation of its
#: failed event), the host queue ring, the scheduled failures (path, when, restored when) and
#: the link's and multipath's numbers
Paths = namedtuple("Paths", (
    "p_alive", "p_out", "p_bytes", "p_epoch", "p_gen", "wq", "fail_path", "fail_at",
    "restore_at", "npaths", "qd", "policy", "faults", "link_finite", "lat_s", "bw", "fo_s",
    "r_link0"))
#: block requests (what the path steps read and write of them) and path attempts (fault mode:
#: a pool of their own, an attempt being a process raced against its path's failure)
Requests = namedtuple("Requests", (
    "rq_size", "rq_read", "rq_path", "rq_epoch", "rq_att", "rq_cond", "rq_regp", "rq_regg",
    "rq_regs"))
Attempts = namedtuple("Attempts", (
    "at_req", "at_path", "at_epoch", "at_size", "at_read", "at_state", "at_free"))


@numba.njit(inline="always")
def new_paths(npaths, rqcap, fail_path, fail_at, restore_at, qd, policy, faults, link_finite,
              lat_s, bw, fo_s, r_link0, keep):
    """``npaths`` live paths with nothing out, a host queue for ``rqcap`` block requests, the
    scheduled failures (path, at, restored at) and the parameters (queue depth per path,
    policy, fault mode, a finite link: its latency, rate, failover time, first resource); the
    arrays are views kept alive by ``keep``."""
    return Paths(unmanaged(np.ones(npaths, np.bool_), keep),  # p_alive
                 unmanaged(np.zeros(npaths, np.int64), keep),  # p_out
                 unmanaged(np.zeros(npaths), keep),  # p_bytes
                 unmanaged(np.zeros(npaths, np.int64), keep),  # p_epoch
                 unmanaged(np.zeros(npaths, np.int64), keep),  # p_gen
                 unmanaged(np.empty(rqcap, np.int64), keep),  # wq: the host queue
                 unmanaged(fail_path, keep), unmanaged(fail_at, keep),
                 unmanaged(restore_at, keep), npaths, qd, policy, faults, link_finite, lat_s,
                 bw, fo_s, r_link0)


@numba.njit(inline="always")
def new_requests(rq_size, rq_read, keep):
    """The path's fields of the block requests whose sizes and directions are ``rq_size`` and
    ``rq_read`` (the kernel's): none on a path or an attempt yet."""
    n = rq_size.shape[0]
    return Requests(rq_size, rq_read, unmanaged(np.zeros(n, np.int64), keep),  # rq_path
                    unmanaged(np.zeros(n, np.int64), keep),  # rq_epoch
                    unmanaged(np.full(n, -1, np.int64), keep),  # rq_att
                    unmanaged(np.zeros(n, np.int64), keep),  # rq_cond
                    unmanaged(np.zeros(n, np.int64), keep),  # rq_regp
                    unmanaged(np.zeros(n, np.int64), keep),  # rq_regg
                    unmanaged(np.zeros(n, np.int64), keep))  # rq_regs


@numba.njit(inline="always")
def new_attempts(atcap, keep):
    """``atcap`` path attempts, all free (fault mode's ``at_state``: 1 ended, 2 end processed,
    4 detached)."""
    return Attempts(unmanaged(np.zeros(atcap, np.int64), keep),  # at_req
                    unmanaged(np.zeros(atcap, np.int64), keep),  # at_path
                    unmanaged(np.zeros(atcap, np.int64), keep),  # at_epoch
                    unmanaged(np.zeros(atcap), keep),  # at_size
                    unmanaged(np.zeros(atcap, np.bool_), keep),  # at_read
                    unmanaged(np.zeros(atcap, np.int64), keep),  # at_state
                    free_list(atcap, keep))  # at_free


@numba.njit(inline="always")
def _dispatch(ev, ps, rqs):
    """Multipath._dispatch: grant paths to the host queue's head while one is free."""
    mp_dispatch(ps.wq, ev.ctl, ps.p_alive, ps.p_out, ps.p_bytes, ps.p_epoch, rqs.rq_size,
                rqs.rq_path, rqs.rq_epoch, ps.qd, ps.policy, ev.fq, KB, K_BR_PATH)


@numba.njit(inline="always")
def _free_attempt(ev, ats, a):
    """An attempt whose process and race are both over goes back to the pool."""
    n = ev.ctl[C_ATFREE]
    ats.at_free[n] = a
    ev.ctl[C_ATFREE] = n + 1


@numba.njit(inline="always")
def _wake_failed(ev, ps, rqs, x):
    """The failed event of path ``x % npaths`` (generation ``x // npaths``) processed: its
    waiters, in registration order, each resume (``K_COND``)."""
    p = x % ps.npaths
    g = x // ps.npaths
    rqcap = rqs.rq_cond.shape[0]
    m = 0
    for r in range(rqcap):
        if rqs.rq_cond[r] == COND_PENDING and rqs.rq_regp[r] == p and rqs.rq_regg[r] == g:
            m += 1
    waiting = np.empty(m, np.int64)
    order = np.empty(m, np.int64)
    m = 0
    for r in range(rqcap):
        if rqs.rq_cond[r] == COND_PENDING and rqs.rq_regp[r] == p and rqs.rq_regg[r] == g:
            waiting[m] = r
            order[m] = rqs.rq_regs[r]
            m += 1
    for i in range(1, m):
        j = i
        while j > 0 and order[j - 1] > order[j]:
            order[j - 1], order[j] = order[j], order[j - 1]
            waiting[j - 1], waiting[j] = waiting[j], waiting[j - 1]
            j -= 1
    for i in range(m):
        r = waiting[i]
        rqs.rq_cond[r] = COND_TRIGGERED
        push_now(ev, (r << KB) | K_COND)


@numba.njit(inline="always")
def _fail_path(ev, ps, e):
    """Multipath.fail of scheduled failure ``e``: the path's slots are gone, its failed event
    fires (its waiters are woken in registration order)."""
    p = ps.fail_path[e]
    if ps.p_alive[p]:
        ps.p_alive[p] = False
        ps.p_epoch[p] += 1
        ps.p_out[p] = 0
        ps.p_bytes[p] = 0.0
        g = ps.p_gen[p]
        ps.p_gen[p] = g + 1
        push_now(ev, ((g * ps.npaths + p) << KB) | K_PATH_FAILED)


@numba.njit(inline="always")
def _fault_step(k, x, now, act, a_delay, a_code, k_after, acq_front, ev, lvs, ps, rqs, ats,
                tot):
    """One fault-mode step of the path (``K_ATT_END`` .. ``K_PE_RESTORE``): an attempt's end
    raced against its path's failure, the failover's retry, a path's failed event, a
    scheduled failure and restore. Returns the next step and what it waits on, and where
    ``K_DISPATCH`` goes on to and whether ``K_ACQ`` joins the queue's front."""
    if k == K_ATT_END:  # the attempt's process event
        ats.at_state[x] |= 2
        r = ats.at_req[x]
        if rqs.rq_att[r] == x and rqs.rq_cond[r] == COND_PENDING:
            rqs.rq_cond[r] = COND_TRIGGERED
            push_now(ev, (r << KB) | K_COND)
        if ats.at_state[x] & 6 == 6:
            _free_attempt(ev, ats, x)
        k = I(-1)
    elif k == K_COND:  # attempt | failed
        rqs.rq_cond[x] = COND_NONE
        level(lvs, L_BELOW, now, -1)
        a = rqs.rq_att[x]
        rqs.rq_att[x] = -1
        ats.at_state[a] |= 4
        ended = ats.at_state[a] & 1
        if ats.at_state[a] & 6 == 6:
            _free_attempt(ev, ats, a)
        if ended:
            k = I(K_BR_FINISH)
        else:  # the path died under this request: wait out the timeout, retry
            tot[T_FAILOVERS] += 1
            if ps.fo_s > 0:
                act, a_delay, a_code = I(1), ps.fo_s, (x << KB) | K_FAILOVER
                k = I(-1)
            else:
                k = I(K_FAILOVER)
    elif k == K_FAILOVER:
        acq_front = True  # a retry goes to the front of the host queue
        k = I(K_ACQ)
    elif k == K_PATH_FAILED:  # the failed event: its waiters, in registration order
        _wake_failed(ev, ps, rqs, x)
        k = I(-1)
    elif k == K_PE_START:
        act, a_delay, a_code = I(1), ps.fail_at[x], (x << KB) | K_PE_FAIL
        k = I(-1)
    elif k == K_PE_FAIL:  # Multipath.fail
        _fail_path(ev, ps, x)
        if not np.isnan(ps.restore_at[x]):
            act, a_delay, a_code = (I(1), ps.restore_at[x] - ps.fail_at[x],
                                    (x << KB) | K_PE_RESTORE)
        k = I(-1)
    elif k == K_PE_RESTORE:
        ps.p_alive[ps.fail_path[x]] = True
        k = I(K_DISPATCH)
        k_after = I(-1)
    else:
        k = I(-2)
    return k, act, a_delay, a_code, k_after, acq_front


@numba.njit(inline="always")
def path_step(k, x, now, act, a_delay, a_code, a_res, k_after, acq_front, ev, lvs, ps, rqs,
              ats, tot):
    """One step ``k`` of a block request's path (the host queue, a path slot, the attempt
    across the link to the device and back, failover) for request or attempt ``x``, or of a
    scheduled path failure. Returns the next step (-1: the process waits; ``K_DEV_ARRIVE``:
    on to the device; ``K_BR_FINISH``: the request is done), ``x`` (a granted request becomes
    its attempt), what it waits on (``act`` 1: a timeout of ``a_delay``; 2: resource
    ``a_res``; resuming at ``a_code``), and where ``K_DISPATCH`` goes on to (``k_after``) and
    whether ``K_ACQ`` joins the queue's front (``acq_front``)."""
    while True:  # the path's steps run on while they stay in its block (one dispatch)
        if k == K_BR_NR or k == K_ACQUIRE:
            acq_front = False
            k = I(K_ACQ)
        elif k == K_ACQ:  # Multipath.acquire: the host queue, then dispatch
            mp_acquire(ps.wq, ev.ctl, x, acq_front)
            k = I(K_DISPATCH)
            k_after = I(-1)
        elif k == K_DISPATCH:
            _dispatch(ev, ps, rqs)
            k = k_after
        elif k == K_BR_PATH:  # ---- block request: a path slot granted
            level(lvs, L_BELOW, now, 1)
            if ps.faults:
                n = ev.ctl[C_ATFREE]
                if n == 0:
                    ev.ctl[C_OVF] = 1
                    k = I(-1)
                    break
                n -= 1
                ev.ctl[C_ATFREE] = n
                a = ats.at_free[n]
                ats.at_state[a] = 0
                rqs.rq_att[x] = a
                rqs.rq_cond[x] = COND_PENDING
                p = rqs.rq_path[x]
                rqs.rq_regp[x] = p
                rqs.rq_regg[x] = ps.p_gen[p]
                rqs.rq_regs[x] = ev.ctl[C_REGSEQ]
                ev.ctl[C_REGSEQ] += 1
            else:
                a = x
            ats.at_req[a] = x
            ats.at_path[a] = rqs.rq_path[x]
            ats.at_epoch[a] = rqs.rq_epoch[x]
            ats.at_size[a] = rqs.rq_size[x]
            ats.at_read[a] = rqs.rq_read[x]
            if ps.faults:  # the attempt is a process of its own, raced against the failure
                push_start(ev, (a << KB) | K_ATT_START)
                k = I(-1)
            else:
                x = a
                k = I(K_ATT_RUN)
        elif k == K_ATT_START or k == K_ATT_RUN:  # ---- path attempt: link down
            if ps.link_finite and not ats.at_read[x]:
                act, a_res, a_code = I(2), ps.r_link0 + 2 * ats.at_path[x], (x << KB) | K_LD_GRANT
                k = I(-1)
            else:
                k = I(K_LD_LATSTEP)
        elif k == K_LD_GRANT:
            act, a_delay, a_code = I(1), ats.at_size[x] / ps.bw, (x << KB) | K_LD_XFER
            k = I(-1)
        elif k == K_LD_XFER:
            release(ev, ps.r_link0 + 2 * ats.at_path[x])
            k = I(K_LD_LATSTEP)
        elif k == K_LD_LATSTEP:
            if ps.lat_s > 0:
                act, a_delay, a_code = I(1), ps.lat_s, (x << KB) | K_LD_LAT
                k = I(-1)
            else:
                k = I(K_DEV_ARRIVE)
        elif k == K_LD_LAT:
            k = I(K_DEV_ARRIVE)
        elif k == K_LU_GRANT:  # ---- link up (after the device)
            act, a_delay, a_code = I(1), ats.at_size[x] / ps.bw, (x << KB) | K_LU_XFER
            k = I(-1)
        elif k == K_LU_XFER:
            release(ev, ps.r_link0 + 2 * ats.at_path[x] + 1)
            k = I(K_LU_LATSTEP)
        elif k == K_LU_LATSTEP:
            if ps.lat_s > 0:
                act, a_delay, a_code = I(1), ps.lat_s, (x << KB) | K_LU_LAT
                k = I(-1)
            else:
                k = I(K_ATT_FINISH)
        elif k == K_LU_LAT:
            k = I(K_ATT_FINISH)
        elif k == K_ATT_FINISH:  # ---- attempt done: release the path slot
            p = ats.at_path[x]
            if ps.p_epoch[p] == ats.at_epoch[x]:  # a slot of a path that failed is gone already
                ps.p_out[p] -= 1
                ps.p_bytes[p] -= ats.at_size[x]
            k = I(K_DISPATCH)
            k_after = I(K_ATT_DONE)
        elif k == K_ATT_DONE:
            if ps.faults:
                r = ats.at_req[x]
                ats.at_state[x] |= 1
                if rqs.rq_att[r] == x and rqs.rq_cond[r] == COND_PENDING:
                    push_now(ev, (x << KB) | K_ATT_END)
                else:
                    ats.at_state[x] |= 2
                    if ats.at_state[x] & 6 == 6:
                        _free_attempt(ev, ats, x)
                k = I(-1)
            else:
                level(lvs, L_BELOW, now, -1)  # (without faults the attempt is its request's slot)
                k = I(K_BR_FINISH)
        elif K_ATT_END <= k <= K_PE_RESTORE:  # ---- fault mode: the race, failures, failover
            k, act, a_delay, a_code, k_after, acq_front = _fault_step(
                k, x, now, act, a_delay, a_code, k_after, acq_front, ev, lvs, ps, rqs, ats, tot)
        else:  # not a step of the path's block: a bug
            k = I(-2)
        if k < K_P_FIRST or k > K_P_LAST:
            break
    return k, x, act, a_delay, a_code, a_res, k_after, acq_front

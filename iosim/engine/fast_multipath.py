"""Multipath on the fast engine: the host queue and the path choice of ``Multipath``.

``simpy_devices.Multipath.acquire`` puts a block request in the host queue (a retry after a
failover at its front) and ``_dispatch`` grants paths to the queue's head while a live path has
a free slot (HBA queue depth), choosing by policy: round-robin (the first free path after the
last one chosen), queue-length (the fewest outstanding, ties to the first in round-robin order)
or service-time (the fewest outstanding bytes, same ties). Here they are small numba functions
over the kernel's arrays, inlined into its closures ``acquire`` and ``dispatch``:

* ``wq``: the host queue (a ring of block requests; its head, length and the round-robin
  position are ``ctl[C_WH]``, ``ctl[C_WC]``, ``ctl[C_RR]``);
* per path: ``p_alive``, ``p_out`` (outstanding), ``p_bytes`` (outstanding bytes), ``p_epoch``
  (bumped when the path fails: a slot of a failed path is not given back);
* per block request: ``rq_size``, and where the grant goes, ``rq_path`` and ``rq_epoch``.
"""

from __future__ import annotations

import numba

from .fast_core import C_FC, C_FH, C_OVF, ring_push

__all__ = ["C_WH", "C_WC", "C_RR", "ROUND_ROBIN", "QUEUE_LENGTH", "SERVICE_TIME",
           "pick_path", "mp_acquire", "mp_dispatch"]

# ctl slots (after fast_core's)
C_WH, C_WC, C_RR = 6, 7, 8
# policies (fast.POLICY_CODES)
ROUND_ROBIN, QUEUE_LENGTH, SERVICE_TIME = 0, 1, 2


@numba.njit(inline="always")
def pick_path(p_alive, p_out, p_bytes, rr, qd, policy):
    """The path ``_dispatch`` grants next (scanning from ``rr``), or -1 when none is free."""
    npaths = p_alive.shape[0]
    best = -1
    for kk in range(npaths):
        i = rr + kk
        if i >= npaths:
            i -= npaths
        if p_alive[i] and p_out[i] < qd:
            if best < 0:
                best = i
                if policy == ROUND_ROBIN:
                    break
            elif policy == QUEUE_LENGTH:
                if p_out[i] < p_out[best]:
                    best = i
            elif p_bytes[i] < p_bytes[best]:
                best = i
    return best


@numba.njit(inline="always")
def mp_dispatch(wq, ctl, p_alive, p_out, p_bytes, p_epoch, rq_size, rq_path, rq_epoch, qd,
                policy, fq, grant_shift, grant_kind):
    """``Multipath._dispatch``: grant paths to the host queue's head while one is free; each
    grant is an event triggered now, code ``(request << grant_shift) | grant_kind``."""
    npaths = p_alive.shape[0]
    cap = wq.shape[0]
    while ctl[C_WC] > 0:
        req = wq[ctl[C_WH]]
        best = pick_path(p_alive, p_out, p_bytes, ctl[C_RR], qd, policy)
        if best < 0:
            return
        ctl[C_RR] = (best + 1) % npaths
        h = ctl[C_WH] + 1
        if h >= cap:
            h = 0
        ctl[C_WH] = h
        ctl[C_WC] -= 1
        p_out[best] += 1
        p_bytes[best] += rq_size[req]
        rq_path[req] = best
        rq_epoch[req] = p_epoch[best]
        ring_push(fq, ctl, C_FH, C_FC, (req << grant_shift) | grant_kind)


@numba.njit(inline="always")
def mp_acquire(wq, ctl, req, front):
    """``Multipath.acquire``'s queueing: the request joins the host queue (a retry at its
    front); ``mp_dispatch`` then serves the queue."""
    cap = wq.shape[0]
    n = ctl[C_WC]
    if n >= cap:
        ctl[C_OVF] = 1
        return
    if front:
        h = ctl[C_WH] - 1
        if h < 0:
            h = cap - 1
        ctl[C_WH] = h
        wq[h] = req
    else:
        i = ctl[C_WH] + n
        if i >= cap:
            i -= cap
        wq[i] = req
    ctl[C_WC] = n + 1

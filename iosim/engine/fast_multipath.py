"""Multipath on the fast engine: the host queue and the path choice of ``Multipath``.

``simpy_devices.Multipath.acquire`` puts a block request in the host queue (a retry after a
failover at its front) and ``_dispatch`` grants paths to the queue's head while a live path has
a free slot (HBA queue depth), choosing by policy: round-robin (the first free path after the
last one chosen), queue-length (the fewest outstanding, ties to the first in round-robin order)
or service-time (the fewest outstanding bytes, same ties): ``path_choice.pick_path``, the one
function both engines call. Here they are small numba functions over the kernel's arrays,
inlined into its closures ``acquire`` and ``dispatch``:

* ``wq``: the host queue (a ring of block requests; its head, length and the round-robin
  position are ``ctl[C_WH]``, ``ctl[C_WC]``, ``ctl[C_RR]``);
* per path: ``p_alive``, ``p_out`` (outstanding), ``p_bytes`` (outstanding bytes), ``p_epoch``
  (bumped when the path fails: a slot of a failed path is not given back);
* per block request: ``rq_size``, and where the grant goes, ``rq_path`` and ``rq_epoch``.
"""

from __future__ import annotations

import numba

from . import path_choice
from .fast_core import C_FC, C_FH, C_OVF, ring_push
from .path_choice import QUEUE_LENGTH, ROUND_ROBIN, SERVICE_TIME

__all__ = ["C_WH", "C_WC", "C_RR", "ROUND_ROBIN", "QUEUE_LENGTH", "SERVICE_TIME",
           "pick_path", "mp_acquire", "mp_dispatch"]

# ctl slots (after fast_core's)
C_WH, C_WC, C_RR = 6, 7, 8


pick_path = numba.njit(inline="always")(path_choice.pick_path)


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

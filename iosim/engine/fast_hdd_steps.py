"""The hard disk's steps on the fast engine: ``HddModel``'s serve process and actuator.

The kernel (:mod:`iosim.engine.fast`) hands an HDD event (kinds ``K_HDD_TAG`` ..
``K_HDD_LOOP``) to :func:`hdd_steps`, which runs the process on until it waits again or leaves
the disk, and returns what it waits on. The decisions (pools, the pick, the service time, the
read-ahead segment) are :mod:`iosim.engine.fast_hdd`'s; this module is the event plumbing
around them: NCQ tags, the actuator's wake event, the cache-entry waiters.

The disk's state is an :class:`HddState` (one row per disk: a single disk, or each member of a
RAID set and its spare); the request a host command answers is read from
:class:`~iosim.engine.fast_state.Requests` (an attempt at the disk, or a RAID member I/O).
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np

from ..devices.hdd import HDD_HOST, HDD_IDLE, RA_VALID
from . import fast_cache  # noqa: F401  (first: the cache locator)
from . import fast_hdd as fh
from .fast_codes import (
    K_DEV_FINISHED,
    K_HDD_CMD,
    K_HDD_END,
    K_HDD_HIT,
    K_HDD_HITOVH,
    K_HDD_HITX,
    K_HDD_LOOP,
    K_HDD_MDONE,
    K_HDD_MEDIA,
    K_HDD_OVH,
    K_HDD_RAWAIT,
    K_HDD_SERVED,
    K_HDD_TAG,
    K_HDD_WAKE,
    K_HDD_WGRANT,
    K_HDD_WOVH,
    K_HDD_WX,
    K_M_PEND,
    KB,
    L_BUSY,
    T_CACHE_READS,
    T_CACHE_WRITES,
    T_MEDIA_READS,
    T_MEDIA_WRITES,
)
from .fast_state import fpush, level, release

__all__ = ["HddState", "hdd_steps", "K_OUT_OF_RANGE",
           "HI_QN", "HI_DN", "HI_FREE", "HI_PARKED", "HI_WH", "HI_WN", "HI_CUR", "NHI"]

#: hdd_steps's answer for an I/O past the disk's capacity (the run stops, status BEYOND)
K_OUT_OF_RANGE = -2

# a disk's integer state (HddState.hd_i): host commands queued, dirty entries, free entries,
# actuator parked on its wake event, the cache-entry waiters' head and count, the attempt the
# media operation answers (-1: a destage)
(HI_QN, HI_DN, HI_FREE, HI_PARKED, HI_WH, HI_WN, HI_CUR) = range(7)
NHI = 7

#: per disk: the host commands for the actuator and the dirty cache entries (fast_hdd's pools,
#: ``*_done``: their done codes), the media operation, the cache-entry waiters, the integers
#: above, the head (cylinder, surface), the read-ahead segment; per command: its media
#: transfer time (h_xfer); an I/O past the capacity (h_bad: offset, size); per disk or member:
#: busy units and whether it died (a dead one's busy time is not recorded); the parameters
HddState = namedtuple("HddState", [
    "hq", "hq_done", "hdp", "hdp_done", "h_op", "h_wait", "hd_i", "h_head", "h_ra", "h_xfer",
    "h_bad", "dv_busy", "dv_dead", "hp", "hxp", "hfp"])
@numba.njit(inline="always")
def _unit_busy(ev, st, dv, t, delta):
    """Recorder.unit_busy from disk ``dv`` (a failed member's is not recorded)."""
    st.dv_busy[dv] += delta
    if st.dv_dead[dv] == 0:
        level(ev, L_BUSY, t, delta)


@numba.njit(inline="always")
def _kick(ev, st, dv):
    """HddModel._kick: succeed the parked actuator's wake event."""
    if st.hd_i[dv, HI_PARKED] != 0:
        st.hd_i[dv, HI_PARKED] = 0
        fpush(ev, (dv << KB) | K_HDD_WAKE)


@numba.njit(inline="always")
def _command(x, now, ev, st, dv, q_off, q_size, q_read):
    """K_HDD_CMD: a read from the write cache or the read-ahead buffer, a write into the write
    cache (or waiting for an entry), else the media. (next step, wait delay or -1.0)"""
    hp = st.hp
    k = K_HDD_MEDIA
    delay = -1.0
    if q_read:
        if fh.in_write_cache(st.hdp[dv], st.hd_i[dv, HI_DN], q_off, q_size):
            k = K_HDD_HIT
        else:
            wait = fh.ra_wait(st.h_ra[dv], now, q_off, q_size)
            if wait > 0:
                delay = wait
                k = -1
            elif wait == 0.0:
                k = K_HDD_HIT
    else:
        fh.ra_invalidate(st.h_ra[dv], q_off, q_size)
        if int(hp[fh.H_WC]) > 0:
            hd_i = st.hd_i
            if hd_i[dv, HI_FREE] > 0 and hd_i[dv, HI_WN] == 0:
                hd_i[dv, HI_FREE] -= 1
                k = K_HDD_WGRANT
            else:  # wait for a destage to free an entry
                h_wait = st.h_wait
                i = hd_i[dv, HI_WH] + hd_i[dv, HI_WN]
                if i >= h_wait.shape[1]:
                    i -= h_wait.shape[1]
                h_wait[dv, i] = (x << KB) | K_HDD_WGRANT
                hd_i[dv, HI_WN] += 1
                _kick(ev, st, dv)
                k = -1
    return k, delay


@numba.njit(inline="always")
def _served(now, ev, st, dv):
    """K_HDD_SERVED: the actuator's media operation is done; its command's done event, or
    (a destage) its cache entry to the first waiter."""
    tot = ev.tot
    hp = st.hp
    hd_i = st.hd_i
    _unit_busy(ev, st, dv, now, -1)
    op = st.h_op[dv]
    st.h_head[dv, 0] = op[fh.O_CYL]
    st.h_head[dv, 1] = op[fh.O_SURF]
    a = hd_i[dv, HI_CUR]
    if a >= 0:  # a host command: its done event, with the transfer time
        if op[fh.O_WRITE] != 0.0:
            tot[T_MEDIA_WRITES] += 1
        else:
            tot[T_MEDIA_READS] += 1
            if op[fh.O_XFER] > 0:  # stream on at the sequential rate
                rate = op[fh.O_SIZE] / op[fh.O_XFER] * hp[fh.H_EFF]
                fh.ra_start(st.h_ra[dv], now, op[fh.O_OFF], op[fh.O_SIZE], rate)
        st.h_xfer[a] = op[fh.O_XFER]
        fpush(ev, (a << KB) | K_HDD_MDONE)
    else:  # a destage: its entry goes to the first waiter, or is free
        tot[T_MEDIA_WRITES] += 1
        if hd_i[dv, HI_WN] > 0:
            h_wait = st.h_wait
            fpush(ev, h_wait[dv, hd_i[dv, HI_WH]])
            h = hd_i[dv, HI_WH] + 1
            if h >= h_wait.shape[1]:
                h = 0
            hd_i[dv, HI_WH] = h
            hd_i[dv, HI_WN] -= 1
        else:
            hd_i[dv, HI_FREE] += 1


@numba.njit(inline="always")
def _pick(now, ev, st, dv, raid, rng_dev, mrngs):
    """K_HDD_LOOP: the actuator picks the next media operation: (True, its service time), or
    (False, 0.0) when it parks (nothing to do)."""
    hp, hxp, hfp = st.hp, st.hxp, st.hfp
    hd_i = st.hd_i
    h_head = st.h_head
    qn = hd_i[dv, HI_QN]
    dn = hd_i[dv, HI_DN]
    source = fh.next_source(qn, dn, hd_i[dv, HI_FREE], hd_i[dv, HI_WN])
    if source == HDD_IDLE:
        hd_i[dv, HI_PARKED] = 1
        return False, 0.0
    reached = fh.ra_stop(st.h_ra[dv], now)
    if not np.isnan(reached):  # the head is where the stream got to
        cyl, surf, _ang = fh.hdd_locate(min(reached, hp[fh.H_CAP] - 1), hp)
        h_head[dv, 0] = cyl
        h_head[dv, 1] = surf
    op = st.h_op[dv]
    if source == HDD_HOST:
        i, pos = fh.pool_pick(st.hq[dv], qn, hp[fh.H_SPTF] != 0.0, now,
                              h_head[dv, 0], h_head[dv, 1], hp, hxp, hfp)
        hd_i[dv, HI_CUR] = fh.pool_pop(st.hq[dv], st.hq_done[dv], qn, i, op)
        hd_i[dv, HI_QN] = qn - 1
    else:
        i, pos = fh.pool_pick(st.hdp[dv], dn, hp[fh.H_DSPTF] != 0.0, now,
                              h_head[dv, 0], h_head[dv, 1], hp, hxp, hfp)
        hd_i[dv, HI_CUR] = fh.pool_pop(st.hdp[dv], st.hdp_done[dv], dn, i, op)
        hd_i[dv, HI_DN] = dn - 1
    _unit_busy(ev, st, dv, now, 1)
    if np.isnan(pos) and raid:  # (a member disk: its own stream)
        return True, fh.service_s(op, now, h_head[dv, 0], h_head[dv, 1], hp, hxp, hfp,
                                  mrngs[dv])
    if np.isnan(pos):
        return True, fh.service_s(op, now, h_head[dv, 0], h_head[dv, 1], hp, hxp, hfp, rng_dev)
    return True, pos + op[fh.O_XFER]  # SPTF (exact rotation) computed the positioning already


@numba.njit(inline="always")
def _add(now, ev, st, dv, x, q_off, q_size, q_read, to_cache):
    """A dirty cache entry (the write is acknowledged) or a command for the actuator; False
    for an I/O past the capacity."""
    hp = st.hp
    if q_off + q_size > hp[fh.H_CAP]:
        st.h_bad[0] = q_off
        st.h_bad[1] = q_size
        return False
    hd_i = st.hd_i
    if to_cache:
        fh.pool_add(st.hdp[dv], st.hdp_done[dv], hd_i[dv, HI_DN], now, q_off, q_size,
                    True, -1, hp)
        hd_i[dv, HI_DN] += 1
        ev.tot[T_CACHE_WRITES] += 1
    else:
        fh.pool_add(st.hq[dv], st.hq_done[dv], hd_i[dv, HI_QN], now, q_off, q_size,
                    not q_read, x, hp)
        hd_i[dv, HI_QN] += 1
    _kick(ev, st, dv)
    return True


@numba.njit(inline="always")
def hdd_steps(k, x, now, ev, st, rqs, raid, r_units, r_mem0, rng_dev, mrngs):
    """Run the disk's process from step ``k`` (argument ``x``: a command's attempt or member
    I/O, or the disk for the actuator's steps) until it waits or leaves the disk. Returns (next
    step: -1 when it waits, a step outside the disk's, or K_OUT_OF_RANGE; wait: 0 none, 1 a
    timeout; its delay; the event code it resumes at). ``raid``: the disk is a RAID member
    (its serve process ends at the member I/O's AllOf; its units are resource r_mem0 + disk),
    else the stack's device (resource r_units)."""
    hp = st.hp
    h_iface = hp[fh.H_IFACE]
    iface_finite = np.isfinite(h_iface)
    act, a_delay, a_code = 0, 0.0, 0
    while k >= K_HDD_TAG and k <= K_HDD_LOOP:
        if k == K_HDD_WAKE or k == K_HDD_SERVED or k == K_HDD_LOOP:
            dv = x
            q_off, q_size, q_read = 0.0, 0.0, False
        elif raid:
            dv = rqs.mi_dev[x]
            q_off, q_size, q_read = rqs.mi_off[x], rqs.mi_size[x], rqs.mi_read[x]
        else:
            dv = 0
            q_off, q_size, q_read = rqs.rq_off[rqs.at_req[x]], rqs.at_size[x], rqs.at_read[x]
        wait = False  # a timeout of `delay` seconds, resuming at step `nxt`
        delay = 0.0
        nxt = 0
        if k == K_HDD_TAG:
            k = K_HDD_CMD
            if hp[fh.H_OVH] > 0:
                wait, delay, nxt = True, hp[fh.H_OVH], K_HDD_OVH
        elif k == K_HDD_OVH:
            k = K_HDD_CMD
        elif k == K_HDD_CMD:  # the buffer, the write cache or the media
            k, delay = _command(x, now, ev, st, dv, q_off, q_size, q_read)
            wait, nxt = delay > 0, K_HDD_RAWAIT
        elif k == K_HDD_RAWAIT:  # the stream may have stopped meanwhile
            end = q_off + q_size
            if st.h_ra[dv, RA_VALID] != 0.0 and fh.ra_end(st.h_ra[dv], now) + 1e-3 >= end:
                k = K_HDD_HIT
            else:
                k = K_HDD_MEDIA
        elif k == K_HDD_HIT:
            k = K_HDD_HITOVH
            if hp[fh.H_RHIT] > 0:
                wait, delay, nxt = True, hp[fh.H_RHIT], K_HDD_HITOVH
        elif k == K_HDD_HITOVH:
            k = K_HDD_HITX
            if iface_finite:
                wait, delay, nxt = True, q_size / h_iface, K_HDD_HITX
        elif k == K_HDD_HITX:
            ev.tot[T_CACHE_READS] += 1
            k = K_HDD_END
        elif k == K_HDD_WGRANT:
            k = K_HDD_WOVH
            if hp[fh.H_WCO] > 0:
                wait, delay, nxt = True, hp[fh.H_WCO], K_HDD_WOVH
        elif k == K_HDD_WOVH:
            k = K_HDD_WX
            if iface_finite:
                wait, delay, nxt = True, q_size / h_iface, K_HDD_WX
        elif k == K_HDD_WX or k == K_HDD_MEDIA:  # a dirty entry, or for the actuator
            if not _add(now, ev, st, dv, x, q_off, q_size, q_read, k == K_HDD_WX):
                return K_OUT_OF_RANGE, act, a_delay, a_code
            k = K_HDD_END if k == K_HDD_WX else -1  # (a media command waits for its done)
        elif k == K_HDD_MDONE:  # an interface slower than the media finishes after it
            k = K_HDD_END
            if q_read and iface_finite:
                lag = q_size / h_iface - st.h_xfer[x]
                wait, delay, nxt = lag > 0, lag, K_HDD_END
        elif k == K_HDD_END:
            if raid:  # a member's serve process ends (RaidModel's AllOf counts it)
                release(ev, r_mem0 + dv)
                fpush(ev, (x << KB) | K_M_PEND)
                k = -1
            else:
                release(ev, r_units)
                k = K_DEV_FINISHED
        elif k == K_HDD_WAKE:
            k = K_HDD_LOOP
        elif k == K_HDD_SERVED:  # ---- the actuator: a media operation done
            _served(now, ev, st, dv)
            k = K_HDD_LOOP
        else:  # K_HDD_LOOP: the actuator picks the next media operation (or parks)
            k = -1
            busy, service = _pick(now, ev, st, dv, raid, rng_dev, mrngs)
            if busy:
                act, a_delay, a_code = 1, service, (dv << KB) | K_HDD_SERVED
        if wait:  # the process waits
            act, a_delay, a_code = 1, delay, (x << KB) | nxt
            k = -1
    return k, act, a_delay, a_code

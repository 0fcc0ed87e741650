"""The hard disk's steps on the fast engine: ``HddModel``'s processes (serve: tag, command
overhead, buffer hit, write cache, media, interface lag; the actuator: pick, serve, destage) as
the event steps of the kernel in :mod:`iosim.engine.fast`, over typed state.

The decisions these steps take (the pick, the service time, the read-ahead segment, the pools)
are :mod:`iosim.engine.fast_hdd`'s functions; what is here is event plumbing only: which event
comes next and what the step waits on. The kernel calls :func:`hdd_step` for every event of the
disk's range (``K_HDD_TAG`` .. ``K_HDD_LOOP``); it is inlined there after numba has typed it on
its own (an ``overload`` inlined at the typed stage: the kernel is compiled without SSA
renaming, and a function inlined before typing would have to type every name as the kernel does).
"""

from __future__ import annotations

import math
from collections import namedtuple

import numba
import numpy as np

from ..devices.hdd import HDD_HOST, HDD_IDLE, RA_SIZE, RA_VALID
from .fast_codes import (
    BEYOND,
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
    OK,
    T_CACHE_READS,
    T_CACHE_WRITES,
    T_MEDIA_READS,
    T_MEDIA_WRITES,
)
from .fast_core import unmanaged
from .fast_hdd import (
    H_CAP,
    H_DSPTF,
    H_EFF,
    H_IFACE,
    H_OVH,
    H_RA,
    H_RFB,
    H_RHIT,
    H_RTE,
    H_SPTF,
    H_WC,
    H_WCO,
    NO,
    NRA,
    O_CYL,
    O_OFF,
    O_SIZE,
    O_SURF,
    O_WRITE,
    O_XFER,
    free_bytes_before,
    hdd_locate,
    in_write_cache,
    next_source,
    pool_add,
    pool_pick,
    pool_pop,
    ra_end,
    ra_invalidate,
    ra_note_before,
    ra_note_limit,
    ra_start,
    ra_stop,
    ra_wait,
    service_s,
    track_end_limit,
)
from .fast_steps import I, push_now, release, unit_busy

# hd_i's columns: host commands queued, dirty entries, free entries, the actuator parked on its
# wake event, the cache-entry waiters' head and count, the attempt the media operation answers
(HI_QN, HI_DN, HI_FREE, HI_PARKED, HI_WH, HI_WN, HI_CUR) = range(7)
NHI = 7

#: one disk's (or each RAID member disk's) state: its pools, the operation on the media, the
#: cache-entry waiters, the head, the read-ahead segment, the media transfer of each read (the
#: interface lag), an I/O beyond the capacity (offset, size)
HddState = namedtuple("HddState", (
    "hp", "hxp", "hfp", "hd_i", "hq", "hq_done", "hdp", "hdp_done", "h_op", "h_wait", "h_head",
    "h_ra", "h_xfer", "h_bad"))


@numba.njit(inline="always")
def new_hdd_state(hp, hxp, hfp, ndisks, tags, owners, h_bad, keep):
    """The state of ``ndisks`` disks (one, or each RAID member and spare), each holding
    ``tags`` host commands, for ``owners`` attempts or member I/Os at once; the arrays are
    views kept alive by ``keep`` (:func:`fast_core.unmanaged`). A disk starts with its write
    cache's entries free, its actuator parked and its read-ahead segment sized."""
    wc = int(hp[H_WC])
    hd_i = unmanaged(np.zeros((ndisks, NHI), np.int64), keep)
    hd_i[:, HI_FREE] = wc
    hd_i[:, HI_PARKED] = 1  # the actuator's first step (its process start) parks it
    h_ra = unmanaged(np.zeros((ndisks, NRA)), keep)
    h_ra[:, RA_SIZE] = hp[H_RA]
    return HddState(
        hp, hxp, hfp, hd_i,
        unmanaged(np.zeros((ndisks, tags, NO)), keep),  # hq: queued host commands
        unmanaged(np.zeros((ndisks, tags), np.int64), keep),
        unmanaged(np.zeros((ndisks, max(1, wc), NO)), keep),  # hdp: dirty cache entries
        unmanaged(np.zeros((ndisks, max(1, wc)), np.int64), keep),
        unmanaged(np.zeros((ndisks, NO)), keep),  # h_op: the operation on the media
        unmanaged(np.zeros((ndisks, tags), np.int64), keep),  # h_wait: cache-entry waiters
        unmanaged(np.zeros((ndisks, 2)), keep),  # h_head: cylinder, surface
        h_ra,
        unmanaged(np.zeros(owners), keep),  # h_xfer: a read's media transfer (interface lag)
        h_bad)


@numba.njit(inline="always")
def _kick(ev, hd_i, dv):
    """HddModel._kick: succeed the parked actuator's wake event (disk ``dv``)."""
    if hd_i[dv, HI_PARKED] != 0:
        hd_i[dv, HI_PARKED] = 0
        push_now(ev, (dv << KB) | K_HDD_WAKE)


@numba.njit(inline="always")
def _serve_step(k, x, now, act, a_delay, a_code, ev, hs, own, tot, raid, r_mem0, r_units):
    """A step of ``HddModel.serve`` for host command ``x``: an attempt at the disk, or a RAID
    member I/O at its member disk. As :func:`hdd_step`."""
    h_ovh = hs.hp[H_OVH]
    h_iface = hs.hp[H_IFACE]
    h_iface_finite = math.isfinite(h_iface)
    h_wc = hs.hp[H_WC] > 0
    # the disk (dv: 0, or a RAID member) and the command's request
    if raid:
        dv = own.mi_dev[x]
        q_off, q_size, q_read = own.mi_off[x], own.mi_size[x], own.mi_read[x]
    else:
        dv = I(0)
        q_off, q_size, q_read = own.rq_off[own.at_req[x]], own.at_size[x], own.at_read[x]
    if k == K_HDD_TAG:
        if h_ovh > 0:
            act, a_delay, a_code = I(1), h_ovh, (x << KB) | K_HDD_OVH
            k = I(-1)
        else:
            k = I(K_HDD_CMD)
    elif k == K_HDD_OVH:
        k = I(K_HDD_CMD)
    elif k == K_HDD_CMD:  # the buffer, the write cache or the media
        k = I(K_HDD_MEDIA)
        if q_read:
            if in_write_cache(hs.hdp[dv], hs.hd_i[dv, HI_DN], q_off, q_size):
                k = I(K_HDD_HIT)
            else:
                wait = ra_wait(hs.h_ra[dv], now, q_off, q_size)
                if wait > 0:
                    act, a_delay, a_code = I(1), wait, (x << KB) | K_HDD_RAWAIT
                    k = I(-1)
                elif wait == 0.0:
                    k = I(K_HDD_HIT)
        else:
            ra_invalidate(hs.h_ra[dv], q_off, q_size)
            if h_wc:
                if hs.hd_i[dv, HI_FREE] > 0 and hs.hd_i[dv, HI_WN] == 0:
                    hs.hd_i[dv, HI_FREE] -= 1
                    k = I(K_HDD_WGRANT)
                else:  # wait for a destage to free an entry
                    i = hs.hd_i[dv, HI_WH] + hs.hd_i[dv, HI_WN]
                    if i >= hs.h_wait.shape[1]:
                        i -= hs.h_wait.shape[1]
                    hs.h_wait[dv, i] = (x << KB) | K_HDD_WGRANT
                    hs.hd_i[dv, HI_WN] += 1
                    _kick(ev, hs.hd_i, dv)
                    k = I(-1)
    elif k == K_HDD_RAWAIT:  # the stream may have stopped meanwhile
        end = q_off + q_size
        if hs.h_ra[dv, RA_VALID] != 0.0 and ra_end(hs.h_ra[dv], now) + 1e-3 >= end:
            k = I(K_HDD_HIT)
        else:
            k = I(K_HDD_MEDIA)
    elif k == K_HDD_HIT:
        if hs.hp[H_RHIT] > 0:
            act, a_delay, a_code = I(1), hs.hp[H_RHIT], (x << KB) | K_HDD_HITOVH
            k = I(-1)
        else:
            k = I(K_HDD_HITOVH)
    elif k == K_HDD_HITOVH:
        if h_iface_finite:
            act, a_delay, a_code = I(1), q_size / h_iface, (x << KB) | K_HDD_HITX
            k = I(-1)
        else:
            k = I(K_HDD_HITX)
    elif k == K_HDD_HITX:
        tot[T_CACHE_READS] += 1
        k = I(K_HDD_END)
    elif k == K_HDD_WGRANT:
        if hs.hp[H_WCO] > 0:
            act, a_delay, a_code = I(1), hs.hp[H_WCO], (x << KB) | K_HDD_WOVH
            k = I(-1)
        else:
            k = I(K_HDD_WOVH)
    elif k == K_HDD_WOVH:
        if h_iface_finite:
            act, a_delay, a_code = I(1), q_size / h_iface, (x << KB) | K_HDD_WX
            k = I(-1)
        else:
            k = I(K_HDD_WX)
    elif k == K_HDD_WX or k == K_HDD_MEDIA:
        if q_off + q_size > hs.hp[H_CAP]:
            hs.h_bad[0] = q_off
            hs.h_bad[1] = q_size
            return I(-1), act, a_delay, a_code, I(BEYOND)
        if k == K_HDD_WX:  # a dirty entry; the write is acknowledged
            pool_add(hs.hdp[dv], hs.hdp_done[dv], hs.hd_i[dv, HI_DN], now, q_off, q_size,
                        True, -1, hs.hp)
            hs.hd_i[dv, HI_DN] += 1
            tot[T_CACHE_WRITES] += 1
            _kick(ev, hs.hd_i, dv)
            k = I(K_HDD_END)
        else:  # for the actuator; the request waits for its done event
            pool_add(hs.hq[dv], hs.hq_done[dv], hs.hd_i[dv, HI_QN], now, q_off, q_size,
                        not q_read, x, hs.hp)
            hs.hd_i[dv, HI_QN] += 1
            _kick(ev, hs.hd_i, dv)
            k = I(-1)
    elif k == K_HDD_MDONE:  # an interface slower than the media finishes after it
        k = I(K_HDD_END)
        if q_read and h_iface_finite:
            lag = q_size / h_iface - hs.h_xfer[x]
            if lag > 0:
                act, a_delay, a_code = I(1), lag, (x << KB) | K_HDD_END
                k = I(-1)
    elif k == K_HDD_END:
        if raid:  # a member's serve process ends (RaidModel's AllOf counts it)
            release(ev, r_mem0 + dv)
            push_now(ev, (x << KB) | K_M_PEND)
            k = I(-1)
        else:
            release(ev, r_units)
            k = I(K_DEV_FINISHED)
    return k, act, a_delay, a_code, I(OK)


@numba.njit(inline="always")
def _actuator_step(k, dv, now, act, a_delay, a_code, ev, lvs, hs, tot, rng):
    """A step of disk ``dv``'s ``HddModel._actuator``: woken, a media operation done (a host
    command's or a destage's), or its loop's top (pick the next operation, FIFO or SPTF, and
    serve it). As :func:`hdd_step`."""
    if k == K_HDD_WAKE:
        k = I(K_HDD_LOOP)
    elif k == K_HDD_SERVED:  # ---- the actuator: a media operation done
        unit_busy(lvs, dv, now, -1)
        op = hs.h_op[dv]
        hs.h_head[dv, 0] = op[O_CYL]
        hs.h_head[dv, 1] = op[O_SURF]
        a = hs.hd_i[dv, HI_CUR]
        if a >= 0:  # a host command: its done event, with the transfer time
            if op[O_WRITE] != 0.0:
                tot[T_MEDIA_WRITES] += 1
            else:
                tot[T_MEDIA_READS] += 1
                if op[O_XFER] > 0:  # stream on at the sequential rate
                    rate = op[O_SIZE] / op[O_XFER] * hs.hp[H_EFF]
                    ra_start(hs.h_ra[dv], now, op[O_OFF], op[O_SIZE], rate)
            hs.h_xfer[a] = op[O_XFER]
            push_now(ev, (a << KB) | K_HDD_MDONE)
        else:  # a destage: its entry goes to the first waiter, or is free
            tot[T_MEDIA_WRITES] += 1
            if hs.hd_i[dv, HI_WN] > 0:
                push_now(ev, hs.h_wait[dv, hs.hd_i[dv, HI_WH]])
                h = hs.hd_i[dv, HI_WH] + 1
                if h >= hs.h_wait.shape[1]:
                    h = I(0)
                hs.hd_i[dv, HI_WH] = h
                hs.hd_i[dv, HI_WN] -= 1
            else:
                hs.hd_i[dv, HI_FREE] += 1
        k = I(K_HDD_LOOP)
    else:  # K_HDD_LOOP: the actuator picks the next media operation
        k = I(-1)
        qn = hs.hd_i[dv, HI_QN]
        dn = hs.hd_i[dv, HI_DN]
        source = next_source(qn, dn, hs.hd_i[dv, HI_FREE], hs.hd_i[dv, HI_WN])
        if source == HDD_IDLE:
            hs.hd_i[dv, HI_PARKED] = 1
        else:
            reached = ra_stop(hs.h_ra[dv], now)
            if not np.isnan(reached):  # the head is where the stream got to
                cyl, surf, _ang = hdd_locate(min(reached, hs.hp[H_CAP] - 1), hs.hp)
                hs.h_head[dv, 0] = cyl
                hs.h_head[dv, 1] = surf
            op = hs.h_op[dv]
            if source == HDD_HOST:
                i, pos = pool_pick(hs.hq[dv], qn, hs.hp[H_SPTF] != 0.0, now,
                                      hs.h_head[dv, 0], hs.h_head[dv, 1], hs.hp, hs.hxp, hs.hfp)
                hs.hd_i[dv, HI_CUR] = pool_pop(hs.hq[dv], hs.hq_done[dv], qn, i, op)
                hs.hd_i[dv, HI_QN] = qn - 1
            else:
                i, pos = pool_pick(hs.hdp[dv], dn, hs.hp[H_DSPTF] != 0.0, now,
                                      hs.h_head[dv, 0], hs.h_head[dv, 1], hs.hp, hs.hxp, hs.hfp)
                hs.hd_i[dv, HI_CUR] = pool_pop(hs.hdp[dv], hs.hdp_done[dv], dn, i, op)
                hs.hd_i[dv, HI_DN] = dn - 1
            unit_busy(lvs, dv, now, 1)
            act, a_code = I(1), (dv << KB) | K_HDD_SERVED
            if np.isnan(pos):  # (a member disk draws from its own stream)
                a_delay = service_s(op, now, hs.h_head[dv, 0], hs.h_head[dv, 1], hs.hp, hs.hxp,
                                    hs.hfp, rng)
            else:  # SPTF (exact rotation) computed the positioning already
                a_delay = pos + op[O_XFER]
            if (source == HDD_HOST and hs.hp[H_RFB] != 0.0
                    and op[O_WRITE] == 0.0):  # (read_free_blocks)
                ra_note_before(hs.h_ra[dv], free_bytes_before(
                    op, a_delay, hs.h_head[dv, 0], hs.h_head[dv, 1], hs.hp, hs.hxp, hs.hfp))
            if (source == HDD_HOST and hs.hp[H_RTE] != 0.0
                    and op[O_WRITE] == 0.0):  # (read_ahead_track_end)
                ra_note_limit(hs.h_ra[dv], track_end_limit(op, hs.hp))

    return k, act, a_delay, a_code, I(OK)


@numba.njit(inline="always")
def hdd_step(k, x, now, act, a_delay, a_code, ev, lvs, hs, own, tot, raid, r_mem0, r_units,
             rng):
    """One step ``k`` of the disk's processes for owner ``x`` (an attempt at the disk, a RAID
    member I/O, or for the actuator's steps the disk): HddModel.serve (tag, overhead, buffer,
    write cache, media, interface lag) and HddModel._actuator (pick, serve, destage). Returns
    the next step (-1: the process waits), what it waits on (``act`` 1: a timeout of
    ``a_delay``, resuming at ``a_code``) and the status (BEYOND: an I/O past the capacity).
    ``rng``: the stream the actuator's step (``K_HDD_LOOP``) draws a service time from, the
    disk's or the member's (the kernel chooses it: a list of streams passed here would be
    reference-counted at every step).

    The kernel inlines it before typing, and compiles without SSA renaming (``kernel_compiler``'s
    ``KernelCompiler``): a name given several integer constants would be typed as the first
    constant and refuse the others, so every integer constant assigned here is ``I(...)``, an
    int64.
    """
    if k == K_HDD_WAKE or k == K_HDD_SERVED or k == K_HDD_LOOP:  # (x: the disk)
        return _actuator_step(k, x, now, act, a_delay, a_code, ev, lvs, hs, tot, rng)
    return _serve_step(k, x, now, act, a_delay, a_code, ev, hs, own, tot, raid, r_mem0, r_units)

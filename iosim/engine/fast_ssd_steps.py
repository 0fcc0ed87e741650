"""The flash SSD's steps on the fast engine: ``SsdModel``'s serve process, its die processes,
the host link, the read and write buffers and the dies' background programs.

The kernel (:mod:`iosim.engine.fast`) hands an SSD event (kinds ``K_SSD_OVH`` ..
``K_SSD_RSLOT``, one block) to :func:`ssd_steps`, which runs the process on until it waits
again or leaves the SSD (the request is done: ``K_DEV_FINISHED``), and returns what it waits
on. The physics (pages of a request, the die of a page, slow pages, the bytes of a die's
group) are :mod:`iosim.devices.ssd`'s functions, compiled.

One process per die a request touches (joined as ``SsdModel``'s ``AllOf`` joins them), and
one per die programming buffered data (nobody waits for it). State: :class:`SsdState`,
:class:`SsdConf` and the kernel's :class:`~iosim.engine.fast_state.Events`.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numba

from ..devices.ssd import ssd_die_of_page, ssd_group_bytes, ssd_page_slow, ssd_pages
from ..dists import EMPIRICAL, sample_code
from . import fast_cache  # noqa: F401  (first: the cache locator)
from .fast_codes import (
    C_IC,
    C_IH,
    C_OVF,
    K_DEV_FINISHED,
    K_SSD_AFTERCH,
    K_SSD_ALL,
    K_SSD_BUF,
    K_SSD_CGRANT,
    K_SSD_CHAN,
    K_SSD_CXFER,
    K_SSD_DEND,
    K_SSD_DGRANT,
    K_SSD_DREAD,
    K_SSD_DSTART,
    K_SSD_FORK,
    K_SSD_IGRANT,
    K_SSD_IXFER,
    K_SSD_LGRANT,
    K_SSD_LXFER,
    K_SSD_OVH,
    K_SSD_PEND,
    K_SSD_PROG,
    K_SSD_RSLOT,
    K_SSD_SPAWN,
    K_SSD_WBUF,
    KB,
    L_BUSY,
    SP_READ,
    SP_WRITE,
    SSD_BUFFERED,
    SSD_READ,
    SSD_WRITE,
    T_BUFFERED,
    T_PAGE_PROGS,
    T_PAGE_READS,
)
from .fast_state import fpush, level, release, space_give, space_take, upush

__all__ = ["SsdState", "SsdConf", "ssd_steps"]

_sample_code = numba.njit(inline="always")(sample_code)
_ssd_pages = numba.njit(ssd_pages)
_ssd_die_of_page = numba.njit(ssd_die_of_page)
_ssd_page_slow = numba.njit(ssd_page_slow)
_ssd_group_bytes = numba.njit(ssd_group_bytes)

#: per attempt: its first page, pages, mode (SSD_READ / SSD_WRITE) and the die processes it
#: still waits for; per die process (dp_*): mode, attempt, first page, die, a background unit
#: on slow pages, pages, read-buffer pages held, bytes across the host link; their free list
#: (dpnf: its count); dirty bytes no die has taken yet; the idle dies (a ring: ctl C_IH, C_IC)
#: and each die's program units; the service samples (empirical distributions)
SsdState = namedtuple("SsdState", [
    "at_first", "at_npg", "at_mode", "at_left", "dp_mode", "dp_att", "dp_l0", "dp_die",
    "dp_slow", "dp_np", "dp_room", "dp_bytes", "dp_free", "dpnf", "dirty", "idle_q",
    "die_units", "svc_samples", "svc2_samples"])
#: channels, dies per channel, dies, planes, reads have slow pages, a finite host link, read
#: buffer pages (-1: unbounded), programs have slow pages; page bytes, a page's channel time,
#: host link bytes/s, GC's die time per page, write buffer bytes, a multi-plane unit's bytes,
#: channel bytes/s; the program time distributions (fast, slow pages) and the read time's
#: (fast, slow); the resources (dies, channels, host link out and in)
SsdConf = namedtuple("SsdConf", [
    "nch", "dpc", "ndies", "planes", "slow", "link", "rbufp", "pslow", "page", "xfer", "hbw",
    "gc", "wbuf", "unit", "chrate", "prog_code", "prog_a", "prog_b", "prog2_code", "prog2_a",
    "prog2_b", "svc_code", "svc_a", "svc_b", "svc2_code", "svc2_a", "svc2_b", "r_die0",
    "r_ch0", "r_hout", "r_hin"])


@numba.njit(inline="always")
def _read_time(ss, sc, slow, rng):
    """One page's read time (tR), from the slow pages' distribution when ``slow``."""
    if slow:
        if sc.svc2_code == EMPIRICAL:
            return ss.svc2_samples[rng.integers(0, ss.svc2_samples.shape[0])]
        return _sample_code(sc.svc2_code, sc.svc2_a, sc.svc2_b, rng)
    if sc.svc_code == EMPIRICAL:
        return ss.svc_samples[rng.integers(0, ss.svc_samples.shape[0])]
    return _sample_code(sc.svc_code, sc.svc_a, sc.svc_b, rng)


@numba.njit(inline="always")
def _program_time(sc, slow, rng):
    """One page's program time (tPROG), from the slow pages' distribution when ``slow``."""
    if slow:
        return _sample_code(sc.prog2_code, sc.prog2_a, sc.prog2_b, rng)
    return _sample_code(sc.prog_code, sc.prog_a, sc.prog_b, rng)


@numba.njit(inline="always")
def _array_time(ss, sc, l0, npg, program, rng):
    """SsdModel._array_time of a die's pages (l0, l0 + dies, ...): multi-plane batches, each as
    slow as its slowest page (drawn in page order)."""
    total = 0.0
    for kb in range(0, npg, sc.planes):
        m = 0.0
        for kk in range(kb, min(npg, kb + sc.planes)):
            if program:
                v = _program_time(sc, sc.pslow and _ssd_page_slow(l0 + kk * sc.ndies, sc.ndies),
                                  rng)
            else:
                v = _read_time(ss, sc, sc.slow and _ssd_page_slow(l0 + kk * sc.ndies, sc.ndies),
                               rng)
            if kk == kb or v > m:
                m = v
        total += m
    return total


@numba.njit(inline="always")
def _background_unit(ss, sc, dpr):
    """SsdModel._background, top of its loop: the die takes the next unit of dirty data."""
    nbytes = min(ss.dirty[0], sc.unit)
    ss.dirty[0] -= nbytes
    die = ss.dp_die[dpr]
    ss.dp_bytes[dpr] = nbytes
    ss.dp_np[dpr] = int(math.ceil(nbytes / sc.page))
    ss.dp_slow[dpr] = sc.pslow and ss.die_units[die] % 2 == 1
    ss.die_units[die] += 1


@numba.njit(inline="always")
def _flush(ev, ss, sc, size):
    """K_SSD_BUF: SsdModel._flush: the request's bytes are dirty; idle dies take them."""
    ctl = ev.ctl
    ev.tot[T_BUFFERED] += 1
    ss.dirty[0] += size
    while ss.dirty[0] > 0 and ctl[C_IC] > 0:
        if ss.dpnf[0] == 0:
            ctl[C_OVF] = 1
            break
        h = ctl[C_IH]
        die = ss.idle_q[h]
        h += 1
        if h >= ss.idle_q.shape[0]:
            h = 0
        ctl[C_IH] = h
        ctl[C_IC] -= 1
        ss.dpnf[0] -= 1
        dproc = ss.dp_free[ss.dpnf[0]]
        ss.dp_mode[dproc] = SSD_BUFFERED
        ss.dp_die[dproc] = die
        ss.dp_room[dproc] = 0
        _background_unit(ss, sc, dproc)
        upush(ev, (dproc << KB) | K_SSD_DSTART)


@numba.njit(inline="always")
def _spawn(ev, ss, sc, rqs, x):
    """K_SSD_SPAWN: one die process per die the request's pages live on, in page order."""
    npages = ss.at_npg[x]
    ng = min(npages, sc.ndies)
    if ss.dpnf[0] < ng:
        ev.ctl[C_OVF] = 1
        return
    ss.at_left[x] = ng
    off = rqs.rq_off[rqs.at_req[x]]
    for g in range(ng):
        ss.dpnf[0] -= 1
        dproc = ss.dp_free[ss.dpnf[0]]
        ss.dp_att[dproc] = x
        ss.dp_l0[dproc] = ss.at_first[x] + g
        _, ss.dp_die[dproc] = _ssd_die_of_page(ss.dp_l0[dproc], sc.nch, sc.dpc)
        ss.dp_np[dproc] = (npages - 1 - g) // sc.ndies + 1
        ss.dp_mode[dproc] = ss.at_mode[x]
        ss.dp_bytes[dproc] = _ssd_group_bytes(off, rqs.at_size[x], sc.page, ss.at_first[x],
                                              npages, g, sc.ndies)
        ss.dp_room[dproc] = 0
        if ss.at_mode[x] == SSD_READ and sc.rbufp > 0:
            ss.dp_room[dproc] = min(ss.dp_np[dproc], sc.rbufp)
        upush(ev, (dproc << KB) | K_SSD_DSTART)


@numba.njit(inline="always")
def _die_end(ev, ss, sc, x):
    """K_SSD_DEND: a die process is done with its die: a read's data cross the host link, a
    program is joined, a background program takes the next unit or the die goes idle. (next
    step, a request for the host link out)"""
    ctl = ev.ctl
    if ss.dp_mode[x] == SSD_READ:  # the die's data cross the host link
        ev.tot[T_PAGE_READS] += ss.dp_np[x]
        if sc.link:
            return -1, True
        return K_SSD_LXFER, False
    ev.tot[T_PAGE_PROGS] += ss.dp_np[x]
    if ss.dp_mode[x] == SSD_WRITE:
        fpush(ev, (x << KB) | K_SSD_PEND)
        return -1, False
    space_give(ev, SP_WRITE, ss.dp_bytes[x])  # a background program: its room is free again
    if ss.dirty[0] > 0:  # the die takes the next unit
        _background_unit(ss, sc, x)
        return K_SSD_DSTART, False
    i = ctl[C_IH] + ctl[C_IC]  # and goes idle
    if i >= ss.idle_q.shape[0]:
        i -= ss.idle_q.shape[0]
    ss.idle_q[i] = ss.dp_die[x]
    ctl[C_IC] += 1
    ss.dp_free[ss.dpnf[0]] = x
    ss.dpnf[0] += 1
    return -1, False


@numba.njit(inline="always")
def _request_step(k, x, ev, ss, sc, rqs):
    """The serve process of attempt ``x``: its pages, the host link in, the write buffer, the
    AllOf of its die processes. (next step, act, delay, code, resource)"""
    act, a_delay, a_code, a_res = 0, 0.0, 0, 0
    if k == K_SSD_OVH:
        k = K_SSD_FORK
    elif k == K_SSD_FORK:  # SsdModel.serve past the controller overhead
        first, npages = _ssd_pages(rqs.rq_off[rqs.at_req[x]], rqs.at_size[x], sc.page)
        ss.at_first[x] = first
        ss.at_npg[x] = npages
        if rqs.at_read[x]:  # one read process per die; AllOf joins them
            ss.at_mode[x] = SSD_READ
            k = K_SSD_SPAWN
        elif sc.link:  # a write crosses the host link first
            act, a_res, a_code = 2, sc.r_hin, (x << KB) | K_SSD_IGRANT
            k = -1
        else:
            k = K_SSD_WBUF
    elif k == K_SSD_IGRANT:
        act, a_delay, a_code = 1, rqs.at_size[x] / sc.hbw, (x << KB) | K_SSD_IXFER
        k = -1
    elif k == K_SSD_IXFER:
        release(ev, sc.r_hin)
        k = K_SSD_WBUF
    elif k == K_SSD_WBUF:
        if 0 < rqs.at_size[x] <= sc.wbuf:  # buffered: acknowledged once it has room
            if space_take(ev, SP_WRITE, rqs.at_size[x], (x << KB) | K_SSD_BUF):
                k = K_SSD_BUF
            else:
                k = -1
        else:  # programmed on its own dies before it completes
            ss.at_mode[x] = SSD_WRITE
            k = K_SSD_SPAWN
    elif k == K_SSD_BUF:
        _flush(ev, ss, sc, rqs.at_size[x])
        k = K_DEV_FINISHED
    elif k == K_SSD_SPAWN:
        _spawn(ev, ss, sc, rqs, x)
        k = -1
    else:  # K_SSD_ALL
        k = K_DEV_FINISHED
    return k, act, a_delay, a_code, a_res


@numba.njit(inline="always")
def _die_step(k, x, now, ev, ss, sc, rng_dev):
    """Die process ``x``: its die, tR or the channel, tPROG, the host link out, its end.
    (next step, act, delay, code, resource)"""
    act, a_delay, a_code, a_res = 0, 0.0, 0, 0
    if k == K_SSD_DSTART:
        act, a_res, a_code = 2, sc.r_die0 + ss.dp_die[x], (x << KB) | K_SSD_DGRANT
        k = -1
    elif k == K_SSD_DGRANT:
        level(ev, L_BUSY, now, 1)
        if ss.dp_mode[x] == SSD_READ:  # tR, then the channel
            act, a_code = 1, (x << KB) | K_SSD_DREAD
            a_delay = _array_time(ss, sc, ss.dp_l0[x], ss.dp_np[x], False, rng_dev)
            k = -1
        else:  # a program: the channel first
            k = K_SSD_CHAN
    elif k == K_SSD_DREAD:  # FifoSpace.take of the read buffer, holding the die
        if ss.dp_room[x] == 0 or space_take(ev, SP_READ, ss.dp_room[x],
                                            (x << KB) | K_SSD_RSLOT):
            k = K_SSD_CHAN
        else:
            k = -1
    elif k == K_SSD_RSLOT or k == K_SSD_CHAN:
        if sc.xfer > 0:
            act, a_res, a_code = 2, sc.r_ch0 + ss.dp_die[x] // sc.dpc, (x << KB) | K_SSD_CGRANT
            k = -1
        else:
            k = K_SSD_AFTERCH
    elif k == K_SSD_CGRANT:  # a read moves its bytes, a program whole pages
        if ss.dp_mode[x] == SSD_READ:
            a_delay = ss.dp_bytes[x] / sc.chrate
        else:
            a_delay = ss.dp_np[x] * sc.xfer
        act, a_code = 1, (x << KB) | K_SSD_CXFER
        k = -1
    elif k == K_SSD_CXFER:
        release(ev, sc.r_ch0 + ss.dp_die[x] // sc.dpc)
        k = K_SSD_AFTERCH
    elif k == K_SSD_AFTERCH:
        if ss.dp_mode[x] == SSD_READ:
            k = K_SSD_DEND
        else:
            if ss.dp_mode[x] == SSD_BUFFERED:  # one multi-plane program
                t_arr = 0.0
                for kk in range(ss.dp_np[x]):
                    v = _program_time(sc, ss.dp_slow[x], rng_dev)
                    if kk == 0 or v > t_arr:
                        t_arr = v
            else:
                t_arr = _array_time(ss, sc, ss.dp_l0[x], ss.dp_np[x], True, rng_dev)
            act, a_code = 1, (x << KB) | K_SSD_PROG
            a_delay = t_arr + sc.gc * ss.dp_np[x]
            k = -1
    elif k == K_SSD_PROG:
        k = K_SSD_DEND
    elif k == K_SSD_DEND:
        level(ev, L_BUSY, now, -1)
        release(ev, sc.r_die0 + ss.dp_die[x])
        k, link = _die_end(ev, ss, sc, x)
        if link:
            act, a_res, a_code = 2, sc.r_hout, (x << KB) | K_SSD_LGRANT
    elif k == K_SSD_PEND:
        a = ss.dp_att[x]
        ss.dp_free[ss.dpnf[0]] = x
        ss.dpnf[0] += 1
        ss.at_left[a] -= 1
        if ss.at_left[a] == 0:
            fpush(ev, (a << KB) | K_SSD_ALL)  # the AllOf condition succeeds
        k = -1
    elif k == K_SSD_LGRANT:
        act, a_delay, a_code = 1, ss.dp_bytes[x] / sc.hbw, (x << KB) | K_SSD_LXFER
        k = -1
    else:  # K_SSD_LXFER: a read die process ends
        if sc.link:
            release(ev, sc.r_hout)
        if ss.dp_room[x] > 0:
            space_give(ev, SP_READ, ss.dp_room[x])
        fpush(ev, (x << KB) | K_SSD_PEND)
        k = -1
    return k, act, a_delay, a_code, a_res


@numba.njit(inline="always")
def ssd_steps(k, x, now, ev, ss, sc, rqs, rng_dev):
    """Run an SSD process from step ``k`` (argument ``x``: an attempt for the serve process's
    steps, else a die process) until it waits or leaves the SSD. Returns (next step: -1 when it
    waits or on overflow (ctl[C_OVF] set), else K_DEV_FINISHED; wait: 0 none, 1 a timeout, 2 a
    resource request; delay; code; resource)."""
    act, a_delay, a_code, a_res = 0, 0.0, 0, 0
    while k >= K_SSD_OVH and k <= K_SSD_RSLOT:
        if (k == K_SSD_OVH or k == K_SSD_FORK or k == K_SSD_IGRANT or k == K_SSD_IXFER
                or k == K_SSD_WBUF or k == K_SSD_BUF or k == K_SSD_SPAWN or k == K_SSD_ALL):
            k, act, a_delay, a_code, a_res = _request_step(k, x, ev, ss, sc, rqs)
        else:
            k, act, a_delay, a_code, a_res = _die_step(k, x, now, ev, ss, sc, rng_dev)
        if ev.ctl[C_OVF] != 0:
            return -1, act, a_delay, a_code, a_res
    return k, act, a_delay, a_code, a_res

"""The flash SSD's steps on the fast engine: ``SsdModel``'s processes (serve: the controller
overhead, the host link, the write buffer, one process per die in page order with the read
buffer's back-pressure and the channel, their AllOf; ``_flush`` and each die's background
programs of buffered data) as event steps of the kernel in :mod:`iosim.engine.fast`, over typed
state. One SSD, or each member (and spare) of a RAID of SSDs: an instance ``sd`` of its own
(resources from ``r_die0 + sd * s_rstride``, buffers from ``sp_m0 + 2 * sd``, dirty data, idle
dies).

The decisions (a request's pages, the die a page maps to, the bytes of a die's share, the array
time of its pages with multi-plane batching and slow pages) are :mod:`iosim.devices.ssd`'s
functions; what is here is event plumbing.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numba
import numpy as np

from ..devices.ssd import SLOW_ALL, SLOW_BY_PAGE, SLOW_NONE
from ..devices.ssd import ssd_array_s as _ssd_array_s
from ..devices.ssd import ssd_die_of_page as _ssd_die_of_page
from ..devices.ssd import ssd_group_bytes as _ssd_group_bytes
from ..devices.ssd import ssd_page_slow as _ssd_page_slow
from ..devices.ssd import ssd_pages as _ssd_pages
from ..dists import sample_args as _sample_args
from .fast_codes import (
    C_OVF,
    F_SSD_CHRATE,
    F_SSD_GC,
    F_SSD_HOST_BW,
    F_SSD_PAGE,
    F_SSD_UNIT,
    F_SSD_WBUF,
    F_SSD_XFER,
    K_DEV_FINISHED,
    K_M_PEND,
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
    K_SSD_SERVE_LAST,
    K_SSD_SPAWN,
    K_SSD_WBUF,
    KB,
    L_BUSY,
    P_PROG_SLOW,
    P_SSD_C,
    P_SSD_D,
    P_SSD_LINK,
    P_SSD_PLANES,
    P_SSD_RBUFP,
    P_SSD_SLOW,
    SP_READ,
    SP_WRITE,
    SSD_BUFFERED,
    SSD_READ,
    SSD_WRITE,
    T_BUFFERED,
    T_PAGE_PROGS,
    T_PAGE_READS,
)
from .fast_core import free_list, unmanaged
from .fast_steps import (
    I,
    level,
    push_now,
    push_start,
    release,
    sample,
    space_give,
    space_take,
    unit_busy,
)
from .jit import compiled_with

ssd_pages = numba.njit(_ssd_pages)
ssd_die_of_page = numba.njit(_ssd_die_of_page)
ssd_group_bytes = numba.njit(_ssd_group_bytes)
# (inlined: called with the page times' arrays, which a call would pass as seven scalars each,
# it cost 15 % of an nvme-intel-750 run)
ssd_array_s = compiled_with(_ssd_array_s, {
    "ssd_page_slow": numba.njit(_ssd_page_slow),
    "sample_args": compiled_with(_sample_args, {
        "sample_code": sample}, inline="always"),
}, inline="always")

#: the SSD's (or each member SSD's) state: per owner its first page, pages, mode (read, write,
#: buffered) and die processes still running; per instance its dirty bytes, its ring of idle
#: dies (head, count, dies) and each die's programs so far (fast and slow pages alternate); the
#: die processes (free ones and their count; mode, instance, owner, first page, die, a slow
#: program, pages, read-buffer pages held, bytes); then the parameters: page size, host link on,
#: the link's resources (out; in is next), its rate, the write buffer, dies, channels, dies per
#: channel, read-buffer pages, a page's channel time, the channel rate, planes, GC time per
#: page, slow reads and programs, a background unit's bytes, the first instance's resources and
#: the stride, the first member's spaces, a RAID of SSDs, and the page times (read, slow read,
#: program, slow program: code, parameters, samples)
SsdState = namedtuple("SsdState", (
    "so_first", "so_npg", "so_mode", "so_left", "dirty", "idle_h", "idle_c", "idle_q",
    "die_units", "dp_free", "dp_nfree", "dp_mode", "dp_sd", "dp_att", "dp_l0", "dp_die",
    "dp_slow", "dp_np", "dp_room", "dp_bytes", "s_page", "s_link", "s_out", "s_hbw", "s_wbuf",
    "s_ndies", "s_nch", "s_dpc", "s_rbufp", "s_xfer", "s_chrate", "s_planes", "s_gc", "s_slow",
    "s_pslow", "s_unit", "r_die0", "s_rstride", "sp_m0", "raid_ssd", "s_read", "s_read2",
    "s_prog", "s_prog2"))


@numba.njit(inline="always")
def new_ssd_state(ip, fp, n_sd, owners, dpcap, flash, r_die0, sp_m0, raid_ssd, s_read, s_read2,
                  s_prog, s_prog2, keep):
    """The state of ``n_sd`` SSD instances (one SSD, or each RAID member and spare) for
    ``owners`` attempts or member I/Os and ``dpcap`` die processes at once, its parameters read
    off the kernel's ``ip`` / ``fp``; the arrays are views kept alive by ``keep``. Every die
    starts idle (``flash``: the ring of idle dies, channel first, as SsdModel queues them)."""
    nch, dpc = ip[P_SSD_C], ip[P_SSD_D]
    ndies = nch * dpc
    idle_q = unmanaged(np.zeros(n_sd * max(1, ndies), np.int64), keep)
    idle_c = unmanaged(np.zeros(n_sd, np.int64), keep)
    if flash:
        for sd in range(n_sd):
            for way in range(dpc):
                for ch in range(nch):
                    idle_q[sd * ndies + way * nch + ch] = ch * dpc + way
            idle_c[sd] = ndies
    return SsdState(
        unmanaged(np.zeros(owners, np.int64), keep),  # so_first
        unmanaged(np.zeros(owners, np.int64), keep),  # so_npg
        unmanaged(np.zeros(owners, np.int64), keep),  # so_mode
        unmanaged(np.zeros(owners, np.int64), keep),  # so_left
        unmanaged(np.zeros(n_sd), keep),  # dirty: buffered bytes no die has taken yet
        unmanaged(np.zeros(n_sd, np.int64), keep),  # idle_h
        idle_c, idle_q,
        unmanaged(np.zeros(n_sd * max(1, ndies), np.int64), keep),  # die_units
        free_list(dpcap, keep),  # dp_free
        unmanaged(np.array([dpcap]), keep),  # dp_nfree
        unmanaged(np.zeros(dpcap, np.int64), keep),  # dp_mode
        unmanaged(np.zeros(dpcap, np.int64), keep),  # dp_sd
        unmanaged(np.zeros(dpcap, np.int64), keep),  # dp_att
        unmanaged(np.zeros(dpcap, np.int64), keep),  # dp_l0
        unmanaged(np.zeros(dpcap, np.int64), keep),  # dp_die
        unmanaged(np.zeros(dpcap, np.bool_), keep),  # dp_slow: a program on slow pages
        unmanaged(np.zeros(dpcap, np.int64), keep),  # dp_np
        unmanaged(np.zeros(dpcap, np.int64), keep),  # dp_room: read buffer pages held
        unmanaged(np.zeros(dpcap), keep),  # dp_bytes: sent across the host link
        fp[F_SSD_PAGE], ip[P_SSD_LINK] != 0, ndies + nch, fp[F_SSD_HOST_BW], fp[F_SSD_WBUF],
        ndies, nch, dpc, ip[P_SSD_RBUFP], fp[F_SSD_XFER], fp[F_SSD_CHRATE], ip[P_SSD_PLANES],
        fp[F_SSD_GC], ip[P_SSD_SLOW] != 0, ip[P_PROG_SLOW] != 0, fp[F_SSD_UNIT], r_die0,
        ndies + nch + 2, sp_m0, raid_ssd, s_read, s_read2, s_prog, s_prog2)


@numba.njit(inline="always")
def ssd_space(raid_ssd, sp_m0, sd, read):
    """Instance ``sd``'s write buffer, or (``read``) its read buffer."""
    if raid_ssd:
        return sp_m0 + 2 * sd + (I(1) if read else I(0))
    return I(SP_READ) if read else I(SP_WRITE)


@numba.njit(inline="always")
def ssd_served(ev, raid_ssd, x):
    """SsdModel.serve returned: the attempt goes on (the next step), or the member I/O's
    process ends (its end event triggered now)."""
    if raid_ssd:
        push_now(ev, (x << KB) | K_M_PEND)
        return I(-1)
    return I(K_DEV_FINISHED)


@numba.njit(inline="always")
def background_unit(ss, dpr):
    """SsdModel._background, top of its loop: the die takes the next unit of dirty data."""
    s_page, s_ndies, s_pslow, s_unit = ss.s_page, ss.s_ndies, ss.s_pslow, ss.s_unit
    sd = ss.dp_sd[dpr]
    nbytes = min(ss.dirty[sd], s_unit)
    ss.dirty[sd] -= nbytes
    unit = sd * s_ndies + ss.dp_die[dpr]
    ss.dp_bytes[dpr] = nbytes
    ss.dp_np[dpr] = int(math.ceil(nbytes / s_page))
    ss.dp_slow[dpr] = s_pslow and ss.die_units[unit] % 2 == 1
    ss.die_units[unit] += 1


@numba.njit(inline="always")
def ssd_busy(raid_ssd, lvs, sd, t, delta):
    """Recorder.unit_busy from an SSD's die: the device's, or a member's (unit_busy)."""
    if raid_ssd:
        unit_busy(lvs, sd, t, delta)
    else:
        level(lvs, L_BUSY, t, delta)


@numba.njit(inline="always")
def _serve_step(k, x, act, a_delay, a_code, a_res, ev, sps, ss, own, tot):
    """A step of ``SsdModel.serve`` (or ``_flush``) for request ``x``: an attempt at the SSD,
    or a RAID member I/O at a member SSD. As :func:`ssd_step`."""
    s_page, s_link, s_out, s_hbw = ss.s_page, ss.s_link, ss.s_out, ss.s_hbw
    s_wbuf, s_ndies, raid_ssd, sp_m0 = ss.s_wbuf, ss.s_ndies, ss.raid_ssd, ss.sp_m0
    r_die0, s_rstride, s_rbufp = ss.r_die0, ss.s_rstride, ss.s_rbufp
    s_nch, s_dpc = ss.s_nch, ss.s_dpc
    # the owner's instance and request: an attempt at the SSD, or a member I/O at its SSD
    if raid_ssd:
        o_sd, o_off = own.mi_dev[x], own.mi_off[x]
        o_size, o_read = own.mi_size[x], own.mi_read[x]
    else:
        o_sd, o_off = I(0), own.rq_off[own.at_req[x]]
        o_size, o_read = own.at_size[x], own.at_read[x]
    if k == K_SSD_OVH:
        k = I(K_SSD_FORK)
    elif k == K_SSD_FORK:  # SsdModel.serve past the controller overhead
        first, npages = ssd_pages(o_off, o_size, s_page)
        ss.so_first[x] = first
        ss.so_npg[x] = npages
        if o_read:  # one read process per die; AllOf joins them
            ss.so_mode[x] = SSD_READ
            k = I(K_SSD_SPAWN)
        elif s_link:  # a write crosses the host link first
            act, a_res = I(2), (r_die0 + o_sd * s_rstride) + s_out + 1
            a_code = (x << KB) | K_SSD_IGRANT
            k = I(-1)
        else:
            k = I(K_SSD_WBUF)
    elif k == K_SSD_IGRANT:
        act, a_delay, a_code = I(1), o_size / s_hbw, (x << KB) | K_SSD_IXFER
        k = I(-1)
    elif k == K_SSD_IXFER:
        release(ev, (r_die0 + o_sd * s_rstride) + s_out + 1)
        k = I(K_SSD_WBUF)
    elif k == K_SSD_WBUF:
        if 0 < o_size <= s_wbuf:  # buffered: acknowledged once it has room
            if space_take(ev, sps, ssd_space(raid_ssd, sp_m0, o_sd, False), o_size,
                          (x << KB) | K_SSD_BUF):
                k = I(K_SSD_BUF)
            else:
                k = I(-1)
        else:  # programmed on its own dies before it completes
            ss.so_mode[x] = SSD_WRITE
            k = I(K_SSD_SPAWN)
    elif k == K_SSD_BUF:  # SsdModel._flush: idle dies take ss.dirty data
        tot[T_BUFFERED] += 1
        sd = o_sd
        ss.dirty[sd] += o_size
        while ss.dirty[sd] > 0 and ss.idle_c[sd] > 0:
            if ss.dp_nfree[0] == 0:
                ev.ctl[C_OVF] = 1
                return I(-1), act, a_delay, a_code, a_res
            h = ss.idle_h[sd]
            die = ss.idle_q[sd * s_ndies + h]
            h += 1
            if h >= s_ndies:
                h = I(0)
            ss.idle_h[sd] = h
            ss.idle_c[sd] -= 1
            ss.dp_nfree[0] -= 1
            dproc = ss.dp_free[ss.dp_nfree[0]]
            ss.dp_mode[dproc] = SSD_BUFFERED
            ss.dp_sd[dproc] = sd
            ss.dp_die[dproc] = die
            ss.dp_room[dproc] = 0
            background_unit(ss, dproc)
            push_start(ev, (dproc << KB) | K_SSD_DSTART)
        k = ssd_served(ev, raid_ssd, x)
    elif k == K_SSD_SPAWN:  # one process per die, in page order
        npages = ss.so_npg[x]
        ng = min(npages, s_ndies)
        if ss.dp_nfree[0] < ng:
            ev.ctl[C_OVF] = 1
            return I(-1), act, a_delay, a_code, a_res
        ss.so_left[x] = ng
        for g in range(ng):
            ss.dp_nfree[0] -= 1
            dproc = ss.dp_free[ss.dp_nfree[0]]
            ss.dp_att[dproc] = x
            ss.dp_sd[dproc] = o_sd
            ss.dp_l0[dproc] = ss.so_first[x] + g
            _, ss.dp_die[dproc] = ssd_die_of_page(ss.dp_l0[dproc], s_nch, s_dpc)
            ss.dp_np[dproc] = (npages - 1 - g) // s_ndies + 1
            ss.dp_mode[dproc] = ss.so_mode[x]
            ss.dp_bytes[dproc] = ssd_group_bytes(o_off, o_size, s_page,
                                               ss.so_first[x], npages, g, s_ndies)
            ss.dp_room[dproc] = 0
            if ss.so_mode[x] == SSD_READ and s_rbufp > 0:
                ss.dp_room[dproc] = min(ss.dp_np[dproc], s_rbufp)
            push_start(ev, (dproc << KB) | K_SSD_DSTART)
        k = I(-1)
    elif k == K_SSD_ALL:
        k = ssd_served(ev, raid_ssd, x)
    else:  # an unknown step: a bug
        k = I(-2)
    return k, act, a_delay, a_code, a_res


@numba.njit(inline="always")
def _die_step(k, x, now, act, a_delay, a_code, a_res, ev, lvs, sps, ss, tot, stream):
    """A step of die process ``x`` (a request's pages on one die, or a die's background
    programs of buffered data). As :func:`ssd_step`."""
    s_link, s_out, s_hbw, s_ndies, s_dpc = ss.s_link, ss.s_out, ss.s_hbw, ss.s_ndies, ss.s_dpc
    s_xfer, s_chrate, s_planes = ss.s_xfer, ss.s_chrate, ss.s_planes
    s_gc, raid_ssd, sp_m0 = ss.s_gc, ss.raid_ssd, ss.sp_m0
    r_die0, s_rstride = ss.r_die0, ss.s_rstride
    if k == K_SSD_DSTART:
        act, a_res = I(2), (r_die0 + ss.dp_sd[x] * s_rstride) + ss.dp_die[x]
        a_code = (x << KB) | K_SSD_DGRANT
        k = I(-1)
    elif k == K_SSD_DGRANT:
        ssd_busy(raid_ssd, lvs, ss.dp_sd[x], now, 1)
        if ss.dp_mode[x] == SSD_READ:  # tR, then the channel
            act, a_code = I(1), (x << KB) | K_SSD_DREAD
            a_delay = ssd_array_s(ss.dp_l0[x], ss.dp_np[x], s_planes, s_ndies,
                                  SLOW_BY_PAGE if ss.s_slow else SLOW_NONE, ss.s_read,
                                  ss.s_read2, stream)
            k = I(-1)
        else:  # a program: the channel first
            k = I(K_SSD_CHAN)
    elif k == K_SSD_DREAD:  # FifoSpace.take of the read buffer (die held)
        room = ss.dp_room[x]
        if room == 0 or space_take(ev, sps, ssd_space(raid_ssd, sp_m0, ss.dp_sd[x], True), room,
                                   (x << KB) | K_SSD_RSLOT):
            k = I(K_SSD_CHAN)
        else:
            k = I(-1)
    elif (k == K_SSD_RSLOT or k == K_SSD_CHAN):
        if s_xfer > 0:
            act, a_res = I(2), (r_die0 + ss.dp_sd[x] * s_rstride) + s_ndies + ss.dp_die[x] // s_dpc
            a_code = (x << KB) | K_SSD_CGRANT
            k = I(-1)
        else:
            k = I(K_SSD_AFTERCH)
    elif k == K_SSD_CGRANT:  # a read moves its bytes, a program pages
        if ss.dp_mode[x] == SSD_READ:
            a_delay = ss.dp_bytes[x] / s_chrate
        else:
            a_delay = ss.dp_np[x] * s_xfer
        act, a_code = I(1), (x << KB) | K_SSD_CXFER
        k = I(-1)
    elif k == K_SSD_CXFER:
        release(ev, (r_die0 + ss.dp_sd[x] * s_rstride) + s_ndies + ss.dp_die[x] // s_dpc)
        k = I(K_SSD_AFTERCH)
    elif k == K_SSD_AFTERCH:
        if ss.dp_mode[x] == SSD_READ:
            k = I(K_SSD_DEND)
        else:
            if ss.dp_mode[x] == SSD_BUFFERED:  # one multi-plane program
                t_arr = ssd_array_s(0, ss.dp_np[x], s_planes, s_ndies,
                                     SLOW_ALL if ss.dp_slow[x] else SLOW_NONE, ss.s_prog,
                                     ss.s_prog2, stream)
            else:
                t_arr = ssd_array_s(ss.dp_l0[x], ss.dp_np[x], s_planes, s_ndies,
                                  SLOW_BY_PAGE if ss.s_pslow else SLOW_NONE, ss.s_prog,
                                  ss.s_prog2, stream)
            act, a_code = I(1), (x << KB) | K_SSD_PROG
            a_delay = t_arr + s_gc * ss.dp_np[x]
            k = I(-1)
    elif k == K_SSD_PROG:
        k = I(K_SSD_DEND)
    elif k == K_SSD_DEND:
        sd = ss.dp_sd[x]
        ssd_busy(raid_ssd, lvs, sd, now, -1)
        release(ev, (r_die0 + sd * s_rstride) + ss.dp_die[x])
        k = I(-1)
        if ss.dp_mode[x] == SSD_READ:  # the die's data cross the host link
            tot[T_PAGE_READS] += ss.dp_np[x]
            if s_link:
                act, a_res = I(2), (r_die0 + sd * s_rstride) + s_out
                a_code = (x << KB) | K_SSD_LGRANT
            else:
                k = I(K_SSD_LXFER)
        else:
            tot[T_PAGE_PROGS] += ss.dp_np[x]
            if ss.dp_mode[x] == SSD_WRITE:
                push_now(ev, (x << KB) | K_SSD_PEND)
            else:  # a background program: its buffer room is free again
                space_give(ev, sps, ssd_space(raid_ssd, sp_m0, sd, False), ss.dp_bytes[x])
                if ss.dirty[sd] > 0:  # the die takes the next unit
                    background_unit(ss, x)
                    k = I(K_SSD_DSTART)
                else:  # and goes idle
                    i = ss.idle_h[sd] + ss.idle_c[sd]
                    if i >= s_ndies:
                        i -= s_ndies
                    ss.idle_q[sd * s_ndies + i] = ss.dp_die[x]
                    ss.idle_c[sd] += 1
                    ss.dp_free[ss.dp_nfree[0]] = x
                    ss.dp_nfree[0] += 1
    elif k == K_SSD_PEND:
        a = ss.dp_att[x]
        ss.dp_free[ss.dp_nfree[0]] = x
        ss.dp_nfree[0] += 1
        ss.so_left[a] -= 1
        if ss.so_left[a] == 0:
            push_now(ev, (a << KB) | K_SSD_ALL)  # the AllOf condition succeeds
        k = I(-1)
    elif k == K_SSD_LGRANT:
        act, a_delay, a_code = I(1), ss.dp_bytes[x] / s_hbw, (x << KB) | K_SSD_LXFER
        k = I(-1)
    elif k == K_SSD_LXFER:  # a read die process ends
        if s_link:
            release(ev, (r_die0 + ss.dp_sd[x] * s_rstride) + s_out)
        if ss.dp_room[x] > 0:
            space_give(ev, sps, ssd_space(raid_ssd, sp_m0, ss.dp_sd[x], True), ss.dp_room[x])
        push_now(ev, (x << KB) | K_SSD_PEND)
        k = I(-1)
    else:  # an unknown step: a bug
        k = I(-2)
    return k, act, a_delay, a_code, a_res


@numba.njit(inline="always")
def ssd_step(k, x, now, act, a_delay, a_code, a_res, ev, lvs, sps, ss, own, tot, stream):
    """One step ``k`` of an SSD's processes (``SsdModel.serve``: the host link, the write
    buffer, one process per die in page order and their AllOf; ``_flush`` and the dies'
    background programs of buffered data) for owner ``x`` (an attempt at the SSD, a RAID
    member I/O at a member SSD, or a die process). Returns the next step (-1: the process
    waits; -2: an unknown step) and what it waits on (``act`` 1: a timeout of ``a_delay``; 2:
    resource ``a_res``; resuming at ``a_code``). ``stream``: what a die process's array time
    draws from, the SSD's or (a RAID of SSDs) its member's: the kernel passes it. The helpers
    take numbers, not the records: a record is copied at every call it is passed to."""
    if k <= K_SSD_SERVE_LAST:
        return _serve_step(k, x, act, a_delay, a_code, a_res, ev, sps, ss, own, tot)
    return _die_step(k, x, now, act, a_delay, a_code, a_res, ev, lvs, sps, ss, tot, stream)

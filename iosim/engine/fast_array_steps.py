"""The storage array's steps on the fast engine: ``ArrayModel``'s processes (a front-end core's
time, the read-hit draw, the mirrored write cache, the destage processes and their pace, the
back end: the group's ``RaidModel.serve``) as event steps of the kernel in
:mod:`iosim.engine.fast`, over typed state.

The decisions (which group an address is on, whether a read hits) are
:mod:`iosim.devices.array`'s functions; what is here is event plumbing. The kernel calls
:func:`array_step` for every event of the array's range (``K_A_CORE`` ..); the back end goes on
in the RAID steps (``K_R_OVH``, ``K_R_CMD``) of the group the address maps to.
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np

from ..devices.array import array_group_of as _group_of
from ..devices.array import array_read_hit as _read_hit
from ..dists import EMPIRICAL
from .fast_codes import (
    AC_BACKEND,
    AC_CACHED,
    AC_DESTAGES,
    AC_HITS,
    AC_MISSES,
    C_OVF,
    K_A_BACKEND,
    K_A_CACHED,
    K_A_CORE,
    K_A_DSLOT,
    K_A_DSTART,
    K_A_FRONT,
    K_A_MIRROR,
    K_A_PACED,
    K_A_PGRANT,
    K_DEV_FINISHED,
    K_R_CMD,
    K_R_OVH,
    KB,
    L_BUSY,
    RC_REQUESTS,
    RP_A_CACHE,
    RP_A_EXTENT,
    RP_A_HIT,
    RP_A_MIRROR,
    RP_A_RATE,
    RP_FE_A,
    RP_FE_B,
    RP_FE_CODE,
    RP_OVH,
    SP_RAID,
)
from .fast_core import free_list, unmanaged
from .fast_steps import I, level, push_start, release, sample, space_give, space_take

array_group_of = numba.njit(_group_of)
array_read_hit = numba.njit(_read_hit)

#: the array's state: its and its groups' parameters (``rp``) and counters (``rc``; the array's
#: row is ``r_groups``), its destage processes (address, size; free slots and their count), each
#: back-end request at a group (address in the group, size, direction, start, group), the
#: resources of its front-end cores, destage slots and pace, the front-end time's distribution
#: (code, parameters, samples), and the attempts' capacity (a destage's request is ``atcap`` +
#: its slot)
ArrayState = namedtuple("ArrayState", (
    "rp", "rc", "ao_off", "ao_size", "ao_free", "aonf", "rr_off", "rr_size", "rr_read", "rr_t0",
    "rr_grp", "r_groups", "atcap", "r_afront", "r_adestage", "r_apace", "fe_code", "fe_a",
    "fe_b", "fe_samples"))


@numba.njit(inline="always")
def new_array_state(rp, rc, aocap, rr_off, rr_size, rr_read, rr_t0, rr_grp, r_groups, atcap,
                    r_afront, fe_samples, keep):
    """The array's state: ``aocap`` destage processes, all free, beside the RAID sets' requests
    (``rr_*``, shared with :mod:`fast_raid_steps`) and its front end (cores from resource
    ``r_afront``, then its destage slots and pace; the front end's time as ``rp`` says)."""
    return ArrayState(rp, rc, unmanaged(np.zeros(aocap), keep),  # ao_off
                      unmanaged(np.zeros(aocap), keep),  # ao_size
                      free_list(aocap, keep),  # ao_free
                      unmanaged(np.array([aocap]), keep),  # aonf
                      rr_off, rr_size, rr_read, rr_t0, rr_grp, r_groups, atcap, r_afront,
                      r_afront + 1, r_afront + 2, int(rp[RP_FE_CODE]), rp[RP_FE_A], rp[RP_FE_B],
                      fe_samples)


@numba.njit(inline="always")
def array_step(k, x, now, act, a_delay, a_code, a_res, ev, lvs, sps, ars, own, rng_dev):
    """One step ``k`` of the array's processes for owner ``x`` (an attempt, or a destage
    process's slot). Returns the next step (-1: the process waits), the owner it goes on with
    (a destage's back-end request is ``atcap + x``), and what it waits on (``act`` 1: a timeout
    of ``a_delay``; 2: resource ``a_res``; resuming at ``a_code``)."""
    r_groups, atcap = ars.r_groups, ars.atcap
    r_afront, r_adestage, r_apace = ars.r_afront, ars.r_adestage, ars.r_apace
    svc2_code, svc2_a, svc2_b, svc2_samples = ars.fe_code, ars.fe_a, ars.fe_b, ars.fe_samples
    n_svc2_samples = svc2_samples.shape[0]
    a_hit, a_cache, a_mirror = ars.rp[RP_A_HIT], ars.rp[RP_A_CACHE], ars.rp[RP_A_MIRROR]
    a_rate, a_extent = ars.rp[RP_A_RATE], ars.rp[RP_A_EXTENT]
    a_paced = np.isfinite(a_rate)
    r_ovh = ars.rp[RP_OVH]
    if k == K_A_CORE:  # a front-end core: its time, on the array's stream
        level(lvs, L_BUSY, now, 1)
        if svc2_code == EMPIRICAL:
            fe = svc2_samples[rng_dev.integers(0, n_svc2_samples)]
        else:
            fe = sample(svc2_code, svc2_a, svc2_b, rng_dev)
        act, a_delay, a_code = I(1), fe, (x << KB) | K_A_FRONT
        k = I(-1)
    elif k == K_A_FRONT:  # a read hit is done; a miss or a write goes on
        level(lvs, L_BUSY, now, -1)
        release(ev, r_afront)
        k = I(K_DEV_FINISHED)
        if own.at_read[x]:
            if array_read_hit(rng_dev.random(), a_hit):
                ars.rc[r_groups, AC_HITS] += 1
            else:
                ars.rc[r_groups, AC_MISSES] += 1
                k = I(K_A_BACKEND)
        elif 0 < own.at_size[x] <= a_cache:
            if space_take(ev, sps, SP_RAID + r_groups, own.at_size[x], (x << KB) | K_A_CACHED):
                k = I(K_A_CACHED)
            else:
                k = I(-1)
        else:
            ars.rc[r_groups, AC_BACKEND] += 1
            k = I(K_A_BACKEND)
    elif k == K_A_CACHED:
        if a_mirror > 0:
            act, a_delay, a_code = I(1), a_mirror, (x << KB) | K_A_MIRROR
            k = I(-1)
        else:
            k = I(K_A_MIRROR)
    elif k == K_A_MIRROR:  # acknowledged; a destage process takes the data down
        ars.rc[r_groups, AC_CACHED] += 1
        if ars.aonf[0] == 0:
            ev.ctl[C_OVF] = 1
            return I(-1), x, act, a_delay, a_code, a_res
        ars.aonf[0] -= 1
        ao = ars.ao_free[ars.aonf[0]]
        ars.ao_off[ao] = own.rq_off[own.at_req[x]]
        ars.ao_size[ao] = own.at_size[x]
        push_start(ev, (ao << KB) | K_A_DSTART)
        k = I(K_DEV_FINISHED)
    elif k == K_A_DSTART:
        act, a_res, a_code = I(2), r_adestage, (x << KB) | K_A_DSLOT
        k = I(-1)
    elif k == K_A_DSLOT:
        if a_paced:
            act, a_res, a_code = I(2), r_apace, (x << KB) | K_A_PGRANT
            k = I(-1)
        else:
            x = atcap + x
            k = I(K_A_BACKEND)
    elif k == K_A_PGRANT:
        act, a_delay, a_code = I(1), ars.ao_size[x] / a_rate, (x << KB) | K_A_PACED
        k = I(-1)
    elif k == K_A_PACED:
        release(ev, r_apace)
        x = atcap + x
        k = I(K_A_BACKEND)
    elif k == K_A_BACKEND:  # _backend: the group's RaidModel.serve, inline
        if x < atcap:
            off, size, is_read = own.rq_off[own.at_req[x]], own.at_size[x], own.at_read[x]
        else:
            off, size, is_read = ars.ao_off[x - atcap], ars.ao_size[x - atcap], np.bool_(False)
        g, goff = array_group_of(off, r_groups, a_extent)
        ars.rr_off[x] = goff
        ars.rr_size[x] = size
        ars.rr_read[x] = is_read
        ars.rr_t0[x] = now
        ars.rr_grp[x] = g
        ars.rc[g, RC_REQUESTS] += 1
        if r_ovh > 0:
            act, a_delay, a_code = I(1), r_ovh, (x << KB) | K_R_OVH
            k = I(-1)
        else:
            k = I(K_R_CMD)
    else:  # K_A_BDONE: a destage is down: its slot, then its room in the cache
        release(ev, r_adestage)
        ars.rc[r_groups, AC_DESTAGES] += 1
        space_give(ev, sps, SP_RAID + r_groups, ars.ao_size[x])
        ars.ao_free[ars.aonf[0]] = x
        ars.aonf[0] += 1
        k = I(-1)
    return k, x, act, a_delay, a_code, a_res

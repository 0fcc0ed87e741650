"""The array's steps on the fast engine: ``ArrayModel`` over RAID groups.

Front-end cores, read hits, the mirrored cache and its destage processes (a limit and a pace),
and ``_backend``: the group's ``RaidModel.serve``, inline (its steps are
:mod:`iosim.engine.fast_raid_steps`'s, one set of RAID state per group). The kernel hands an
array event (kinds ``K_A_CORE`` .. ``K_A_BDONE``) to :func:`array_steps`.
"""

from __future__ import annotations

from collections import namedtuple

import numba

from ..devices.array import array_group_of, array_read_hit
from ..dists import EMPIRICAL, sample_code
from . import fast_cache  # noqa: F401  (first: the cache locator)
from .fast_codes import (
    AC_BACKEND,
    AC_CACHED,
    AC_DESTAGES,
    AC_HITS,
    AC_MISSES,
    C_OVF,
    K_A_BACKEND,
    K_A_BDONE,
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
    SP_RAID,
)
from .fast_state import level, release, space_give, space_take, upush

__all__ = ["ArrayState", "ArrayConf", "array_steps"]

_sample_code = numba.njit(inline="always")(sample_code)
_array_group_of = numba.njit(array_group_of)
_array_read_hit = numba.njit(array_read_hit)

#: the array's destage processes (address, size; free list and its count in aonf) and the
#: front-end time's samples (an empirical distribution)
ArrayState = namedtuple("ArrayState", ["ao_off", "ao_size", "ao_free", "aonf", "svc2_samples"])
#: attempts (atcap), groups, the resources (front-end cores, destage slots, destage pace), the
#: read-hit ratio, cache bytes, mirror time, destage rate (paced: finite), the groups' extent,
#: the RAID controller overhead, the front-end time's distribution
ArrayConf = namedtuple("ArrayConf", [
    "atcap", "groups", "afront", "adestage", "apace", "hit", "cache", "mirror", "rate",
    "paced", "extent", "r_ovh", "svc2_code", "svc2_a", "svc2_b"])


@numba.njit(inline="always")
def _front_done(x, ev, rs, ast, acf, rqs, rng_dev):
    """K_A_FRONT: a read hit is done; a miss or a write goes on (the back end or the cache)."""
    rc = rs.rc
    k = K_DEV_FINISHED
    if rqs.at_read[x]:
        if _array_read_hit(rng_dev.random(), acf.hit):
            rc[acf.groups, AC_HITS] += 1
        else:
            rc[acf.groups, AC_MISSES] += 1
            k = K_A_BACKEND
    elif 0 < rqs.at_size[x] <= acf.cache:
        if space_take(ev, SP_RAID + acf.groups, rqs.at_size[x], (x << KB) | K_A_CACHED):
            k = K_A_CACHED
        else:
            k = -1
    else:
        rc[acf.groups, AC_BACKEND] += 1
        k = K_A_BACKEND
    return k


@numba.njit(inline="always")
def _backend(x, now, rs, ast, acf, rqs):
    """ArrayModel._backend: request ``x`` (an attempt, or atcap + a destage) at its group's
    RAID set; True when the controller overhead is to be waited."""
    if x < acf.atcap:
        off, size, is_read = rqs.rq_off[rqs.at_req[x]], rqs.at_size[x], rqs.at_read[x]
    else:
        off, size, is_read = ast.ao_off[x - acf.atcap], ast.ao_size[x - acf.atcap], False
    g, goff = _array_group_of(off, acf.groups, acf.extent)
    rs.rr_off[x] = goff
    rs.rr_size[x] = size
    rs.rr_read[x] = is_read
    rs.rr_t0[x] = now
    rs.rr_grp[x] = g
    rs.rc[g, RC_REQUESTS] += 1


@numba.njit(inline="always")
def array_steps(k, x, now, ev, rs, ast, acf, rqs, rng_dev):
    """Run an array process from step ``k`` (argument ``x``: an attempt, or an array destage)
    until it waits or leaves the array. Returns (next step: -1 when it waits or on overflow,
    else a step outside the array's; its argument; wait: 0 none, 1 a timeout, 2 a resource
    request; delay; code; resource)."""
    act, a_delay, a_code, a_res = 0, 0.0, 0, 0
    rc = rs.rc
    while k >= K_A_CORE and k <= K_A_BDONE:
        if k == K_A_CORE:  # a front-end core: its time, on the array's stream
            level(ev, L_BUSY, now, 1)
            if acf.svc2_code == EMPIRICAL:
                fe = ast.svc2_samples[rng_dev.integers(0, ast.svc2_samples.shape[0])]
            else:
                fe = _sample_code(acf.svc2_code, acf.svc2_a, acf.svc2_b, rng_dev)
            act, a_delay, a_code = 1, fe, (x << KB) | K_A_FRONT
            k = -1
        elif k == K_A_FRONT:  # a read hit is done; a miss or a write goes on
            level(ev, L_BUSY, now, -1)
            release(ev, acf.afront)
            k = _front_done(x, ev, rs, ast, acf, rqs, rng_dev)
        elif k == K_A_CACHED:
            if acf.mirror > 0:
                act, a_delay, a_code = 1, acf.mirror, (x << KB) | K_A_MIRROR
                k = -1
            else:
                k = K_A_MIRROR
        elif k == K_A_MIRROR:  # acknowledged; a destage process takes the data down
            rc[acf.groups, AC_CACHED] += 1
            if ast.aonf[0] == 0:
                ev.ctl[C_OVF] = 1
                return -1, x, act, a_delay, a_code, a_res
            ast.aonf[0] -= 1
            ao = ast.ao_free[ast.aonf[0]]
            ast.ao_off[ao] = rqs.rq_off[rqs.at_req[x]]
            ast.ao_size[ao] = rqs.at_size[x]
            upush(ev, (ao << KB) | K_A_DSTART)
            k = K_DEV_FINISHED
        elif k == K_A_DSTART:
            act, a_res, a_code = 2, acf.adestage, (x << KB) | K_A_DSLOT
            k = -1
        elif k == K_A_DSLOT:
            if acf.paced:
                act, a_res, a_code = 2, acf.apace, (x << KB) | K_A_PGRANT
                k = -1
            else:
                x = acf.atcap + x
                k = K_A_BACKEND
        elif k == K_A_PGRANT:
            act, a_delay, a_code = 1, ast.ao_size[x] / acf.rate, (x << KB) | K_A_PACED
            k = -1
        elif k == K_A_PACED:
            release(ev, acf.apace)
            x = acf.atcap + x
            k = K_A_BACKEND
        elif k == K_A_BACKEND:  # _backend: the group's RaidModel.serve, inline
            _backend(x, now, rs, ast, acf, rqs)
            if acf.r_ovh > 0:
                act, a_delay, a_code = 1, acf.r_ovh, (x << KB) | K_R_OVH
                k = -1
            else:
                k = K_R_CMD
        else:  # K_A_BDONE: a destage is down: its slot, then its room in the cache
            release(ev, acf.adestage)
            rc[acf.groups, AC_DESTAGES] += 1
            space_give(ev, SP_RAID + acf.groups, ast.ao_size[x])
            ast.ao_free[ast.aonf[0]] = x
            ast.aonf[0] += 1
            k = -1
    return k, x, act, a_delay, a_code, a_res

"""The hard disk's decisions for the fast engine: ``HddModel``'s pools, pick, service time and
read-ahead segment, on arrays, compiled with numba.

The physics are the one-address functions of :mod:`iosim.devices.hdd` (``hdd_locate_one``,
``hdd_move_one``, ``hdd_rotational_wait_one`` ...), which give bit for bit what the array
functions the reference model calls give. The event plumbing (tags, the actuator process, its
wake event, the cache-entry waiters) lives in :mod:`iosim.engine.fast`'s kernel.

A pool (``HddModel``'s ``_OpPool``) is a 2-D array, one row per pending media operation with the
columns ``O_*``, plus the attempt each row answers (-1 for a destage). Removal moves the last row
into the hole, as ``_OpPool.pop`` does, so the row numbers, and hence every tie (the first of
equal times), are the reference's. In a pool of more than ``_FEW`` rows, more columns file
the rows for the SPTF pick in as many buckets as the pool has rows, by their angle on the
platter and by their cylinder: each bucket a doubly linked list (``O_ANEXT``/``O_APREV``,
``O_CNEXT``/``O_CPREV``: row + 1, 0 for none) whose first row is in ``O_AHEAD``/``O_CHEAD``
of the bucket's number (columns indexed by bucket, not by row), emptied when row 0 is added;
adding and removing a row cost a few stores.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from ..devices.hdd import (
    RA_FIELDS,
    hdd_free_bytes_before,
    hdd_interp_one,
    hdd_next_source,
    hdd_place_one,
    hdd_rotational_wait_one,
    hdd_seek_one,
    hdd_track_end_ahead,
    hdd_track_position_one,
    read_ahead_end,
    read_ahead_invalidate,
    read_ahead_note_before,
    read_ahead_note_limit,
    read_ahead_start,
    read_ahead_stop,
    read_ahead_wait_s,
)

# pool columns (``_OpPool.FIELDS``)
O_T, O_CYL, O_SURF, O_ANGLE, O_XFER, O_WRITE, O_OFF, O_SIZE = range(8)
NOP = 8  # the operation's own columns (what ``pool_pop`` hands over)
# the buckets by angle and by cylinder: a row's neighbours, then each bucket's first row
O_ANEXT, O_APREV, O_CNEXT, O_CPREV, O_AHEAD, O_CHEAD = range(NOP, NOP + 6)
NO = NOP + 6
# up to this many rows, the pick looks at every row (a walk over the buckets costs more): a
# pool of at most this many rows keeps no buckets
_FEW = 64
# the HDD's parameters (float array)
(H_CAP, H_RHO, H_NCYL, H_HEADS, H_HSKEW, H_CSKEW, H_RPM, H_T2T, H_A, H_B, H_KNEE, H_HSW,
 H_SETTLE, H_OVH, H_IFACE, H_RHIT, H_WCO, H_RA, H_EFF, H_WC, H_SPTF, H_DSPTF, H_EXACT,
 H_TABLE, H_RFB, H_RTE) = range(26)
NH = 26
# the read-ahead segment's state (``iosim.devices.hdd``'s RA_* layout)
NRA = RA_FIELDS

next_source = numba.njit(hdd_next_source)
_interp = numba.njit(hdd_interp_one)
_place = numba.njit(hdd_place_one)
_track_position = numba.njit(hdd_track_position_one)
_seek = numba.njit(hdd_seek_one)
_rot_wait = numba.njit(hdd_rotational_wait_one)


@numba.njit
def hdd_locate(offset, hp):
    """(cylinder, surface, angle) of an address (``HddDevice.locate``)."""
    p = _track_position(offset, hp[H_CAP], hp[H_RHO], hp[H_NCYL], hp[H_HEADS])
    return _place(p, hp[H_HEADS], hp[H_HSKEW], hp[H_CSKEW])


@numba.njit
def _move(head_cyl, head_surf, cyl, surf, settle, hp, xp, fp):
    """``hdd_move_s`` to one target: the seek for another cylinder (the measured curve or the
    fitted one), a head switch for another surface, then the settle after any move."""
    if hp[H_TABLE] != 0.0 and cyl != head_cyl:
        return _interp(abs(cyl - head_cyl) / hp[H_NCYL], xp, fp) + settle
    return _move_fitted(head_cyl, head_surf, cyl, surf, settle, hp[H_NCYL], hp[H_T2T], hp[H_A],
                        hp[H_B], hp[H_KNEE], hp[H_HSW])


@numba.njit
def _move_fitted(head_cyl, head_surf, cyl, surf, settle, ncyl, t2t, a, b, knee, hsw):
    """``_move`` on the fitted seek curve, from numbers only (a function given arrays pays
    for their reference counts at every call, which the pick's loop cannot afford)."""
    dcyl = abs(cyl - head_cyl)
    moved = dcyl > 0 or surf != head_surf
    if dcyl > 0:
        seek = _seek(dcyl / ncyl, t2t, a, b, knee)
    elif moved:
        seek = hsw
    else:
        seek = 0.0
    return seek + settle if moved else seek


@numba.njit
def pool_add(pool, done, n, now, offset, size, write, att, hp):
    """``HddModel._add``: a media operation at row ``n`` (the caller counts it)."""
    start = _track_position(offset, hp[H_CAP], hp[H_RHO], hp[H_NCYL], hp[H_HEADS])
    cyl, surf, angle = _place(start, hp[H_HEADS], hp[H_HSKEW], hp[H_CSKEW])  # (hdd_locate)
    end = _track_position(offset + size, hp[H_CAP], hp[H_RHO], hp[H_NCYL], hp[H_HEADS])
    pool[n, O_T] = now
    pool[n, O_CYL] = cyl
    pool[n, O_SURF] = surf
    pool[n, O_ANGLE] = angle
    pool[n, O_XFER] = (end - start) * 60.0 / hp[H_RPM]
    pool[n, O_WRITE] = 1.0 if write else 0.0
    pool[n, O_OFF] = offset
    pool[n, O_SIZE] = size
    done[n] = att
    nb = pool.shape[0]
    if nb <= _FEW:
        return
    if n == 0:  # (a pool refilled from row 0 without its rows popped: no stale buckets)
        for b in range(nb):
            pool[b, O_AHEAD] = 0.0
            pool[b, O_CHEAD] = 0.0
    _link(pool, n, O_AHEAD, O_ANEXT, O_APREV, _angle_bucket(angle, nb))
    _link(pool, n, O_CHEAD, O_CNEXT, O_CPREV, _cyl_bucket(cyl, nb))


@numba.njit
def _angle_bucket(angle, nb):
    """The bucket of an angle in [0, 1): nb of them, each 1/nb of a revolution."""
    return min(int(angle * nb), nb - 1)


@numba.njit
def _cyl_bucket(cyl, nb):
    """The bucket of a cylinder: its number modulo nb."""
    return int(cyl) % nb


@numba.njit
def _link(pool, i, head, nxt, prv, b):
    """Row ``i`` first in bucket ``b`` of the lists (head, next, previous columns)."""
    h = pool[b, head]
    pool[i, nxt] = h
    pool[i, prv] = 0.0
    if h != 0.0:
        pool[int(h) - 1, prv] = i + 1
    pool[b, head] = i + 1


@numba.njit
def _unlink(pool, i, head, nxt, prv, b):
    """Row ``i`` out of bucket ``b``."""
    x, p = pool[i, nxt], pool[i, prv]
    if p != 0.0:
        pool[int(p) - 1, nxt] = x
    else:
        pool[b, head] = x
    if x != 0.0:
        pool[int(x) - 1, prv] = p


@numba.njit
def _relink(pool, src, dst, head, nxt, prv, b):
    """Row ``src`` of bucket ``b`` now at row ``dst`` (its neighbours point there)."""
    x, p = pool[src, nxt], pool[src, prv]
    pool[dst, nxt] = x
    pool[dst, prv] = p
    if p != 0.0:
        pool[int(p) - 1, nxt] = dst + 1
    else:
        pool[b, head] = dst + 1
    if x != 0.0:
        pool[int(x) - 1, prv] = dst + 1


@numba.njit
def pool_pop(pool, done, n, i, op):
    """``_OpPool.pop(i)``: the row into ``op`` (returns its attempt); the last row fills the
    hole (and takes its places in the buckets along)."""
    for c in range(NOP):
        op[c] = pool[i, c]
    att = done[i]
    nb = pool.shape[0]
    buckets = nb > _FEW
    if buckets:
        _unlink(pool, i, O_AHEAD, O_ANEXT, O_APREV, _angle_bucket(pool[i, O_ANGLE], nb))
        _unlink(pool, i, O_CHEAD, O_CNEXT, O_CPREV, _cyl_bucket(pool[i, O_CYL], nb))
    last = n - 1
    if i != last:
        for c in range(NOP):
            pool[i, c] = pool[last, c]
        done[i] = done[last]
        if buckets:
            _relink(pool, last, i, O_AHEAD, O_ANEXT, O_APREV,
                    _angle_bucket(pool[i, O_ANGLE], nb))
            _relink(pool, last, i, O_CHEAD, O_CNEXT, O_CPREV, _cyl_bucket(pool[i, O_CYL], nb))
    return att


@numba.njit
def positioning(now, head_cyl, head_surf, cyl, surf, angle, settle, hp, xp, fp):
    """``hdd_positioning_s`` to one target: the move, then the exact rotational wait."""
    move = _move(head_cyl, head_surf, cyl, surf, settle, hp, xp, fp)
    return move + _rot_wait(angle, now + move, 60.0 / hp[H_RPM])


@numba.njit
def _seek_threshold(key, hp):
    """A distance in cylinders from which on every seek of the fitted curve is longer than
    ``key`` (the curve inverted, with a margin, then checked with the curve itself); inf when
    there is none or the check fails."""
    return _seek_threshold_fitted(key, hp[H_T2T], hp[H_A], hp[H_B], hp[H_KNEE], hp[H_NCYL])


@numba.njit
def _seek_threshold_fitted(key, t2t, a, b, knee, ncyl):
    """``_seek_threshold`` from numbers only."""
    if not key > t2t:
        return np.inf
    at_knee = t2t + a * math.sqrt(knee)
    if key < at_knee and a > 0:
        d = ((key - t2t) / a) ** 2
    elif b > 0:
        d = knee + (key - at_knee) / b
    else:
        return np.inf
    dcyl = math.floor(d * ncyl * (1.0 + 1e-9)) + 1.0
    if dcyl / ncyl > 1.0 or not _seek(dcyl / ncyl, t2t, a, b, knee) > key:
        return np.inf
    return dcyl


@numba.njit
def _seek_floor(hp, fp):
    """A floor under every seek to another cylinder: the least of the measured table's
    times, or of the fitted curve's values at the ends of its two pieces (one track, the
    knee, the full stroke), each piece being monotonic whatever the signs of a and b."""
    if hp[H_TABLE] != 0.0:
        lo = np.inf
        for j in range(len(fp)):
            lo = min(lo, fp[j])
        return lo
    t2t, a, b, knee = hp[H_T2T], hp[H_A], hp[H_B], hp[H_KNEE]
    return min(t2t, _seek(min(knee, 1.0), t2t, a, b, knee), _seek(1.0, t2t, a, b, knee))


@numba.njit
def _bound(cyl, surf, angle, write, head_cyl, head_surf, head_angle, seek_lo, rev, settle,
           hsw):
    """A lower bound on a candidate's positioning time, from numbers only: the move is
    at least ``seek_lo`` (+ settle) to another cylinder, a head switch (+ settle) to another
    surface, 0 on the same track; the platter brings the target angle under the head at
    ``phi`` (from now; a pass up to 2e-6 of a revolution ago counts, for the reference's snap
    of a wait within 1e-6 of a revolution to none), and then every revolution, and the wait
    ends at one of those times at or after the move (less the snap, allowed for below).
    Rounding: see ``pool_pick``."""
    if cyl != head_cyl:
        m = seek_lo + write * settle
    elif surf != head_surf:
        m = hsw + write * settle
    else:
        m = 0.0
    phi = angle - head_angle
    if phi < 0.0:
        phi += 1.0
    if phi > 1.0 - 2e-6:  # just passed: the snap may count it as under the head now
        phi -= 1.0
    phi *= rev
    m2 = m - 2e-6 * rev
    if phi < m2:  # the first pass is before the move ends: one revolution later, or more
        p1 = phi + rev
        if p1 < m2:
            p1 = phi + rev * math.ceil((m2 - phi) / rev)
        phi = p1
    return max(phi, m)


@numba.njit
def pool_pick(pool, n, sptf, now, head_cyl, head_surf, hp, xp, fp):
    """``HddModel._pick``: the oldest, or the shortest positioning time (first of equals).
    Returns (index, its positioning time: NaN when not computed)."""
    if n == 1:
        return 0, np.nan
    best = 0
    if not sptf:
        for i in range(1, n):
            if pool[i, O_T] < pool[best, O_T]:
                best = i
        return best, np.nan
    if n > _FEW:
        return _sptf_pick(pool, n, now, head_cyl, head_surf, hp, xp, fp)
    # a few rows: every row, the nearest cylinder first (its time rules out the far ones
    # early), with the bounds of ``_sptf_pick`` (``_bound``, the move, the distance dthr)
    rpm = hp[H_RPM]
    rev = 60.0 / rpm
    head_angle = now / rev
    head_angle = head_angle - math.floor(head_angle)
    seek_lo = _seek_floor(hp, fp)
    tol = 1e-6 * rev + 1e-9
    hsettle, hsw = hp[H_SETTLE], hp[H_HSW]
    best = 0
    dmin = np.inf
    for i in range(n):
        dcyl = abs(pool[i, O_CYL] - head_cyl)
        if dcyl < dmin:
            dmin = dcyl
            best = i
    settle = pool[best, O_WRITE] * hsettle
    key = positioning(now, head_cyl, head_surf, pool[best, O_CYL], pool[best, O_SURF],
                      pool[best, O_ANGLE], settle, hp, xp, fp)
    first = best
    monotonic = hp[H_TABLE] == 0.0
    dthr = np.inf
    if monotonic:  # start from the curve's own threshold, once checked on the curve itself
        dthr = _seek_threshold(key, hp)
    for i in range(n):
        if i == first:
            continue
        dcyl = abs(pool[i, O_CYL] - head_cyl)
        if dcyl >= dthr:
            continue
        b = _bound(pool[i, O_CYL], pool[i, O_SURF], pool[i, O_ANGLE], pool[i, O_WRITE], head_cyl,
                   head_surf, head_angle, seek_lo, rev, hsettle, hsw)
        if b - tol > key:
            continue
        settle = pool[i, O_WRITE] * hsettle
        move = _move(head_cyl, head_surf, pool[i, O_CYL], pool[i, O_SURF], settle, hp, xp, fp)
        if move > key:
            if monotonic and dcyl > 0:
                seek = move if settle == 0.0 else _move(
                    head_cyl, head_surf, pool[i, O_CYL], pool[i, O_SURF], 0.0, hp, xp, fp)
                if seek > key:
                    dthr = dcyl
            continue
        v = move + _rot_wait(pool[i, O_ANGLE], now + move, rev)
        if v < key or (v == key and i < best):
            key = v
            best = i
            if monotonic:  # a shorter best time: a nearer threshold
                dthr = min(dthr, _seek_threshold(key, hp))
    return best, key


# how far (in revolutions) behind the head the angular scan starts: more than the reference's
# snap of a wait within 1e-6 of a revolution to none
_BEHIND = 2e-6


@numba.njit
def _sptf_pick(pool, n, now, head_cyl, head_surf, hp, xp, fp):
    """The least (positioning time, row), as ``numpy.argmin``'s first of equals over every
    row, visiting the rows by angle from just behind the head and skipping only candidates
    that provably lose.

    The bounds hold in exact arithmetic; the computed times differ from them by rounding of
    the order of now / rev * 2**-52 revolutions (the platter angle from the clock), far below
    the tolerance ``tol`` (1e-6 of a revolution + 1 ns) every bound must clear:

    * the angle: with ``u`` the angle past ``a0`` (``_BEHIND`` revolutions behind the head),
      the target passes under the head at (u - _BEHIND + k) revolutions from now, k an integer;
      a wait the reference snaps to none puts the arrival up to 1e-6 of a revolution later in
      that cycle, never earlier, and k < 0 would be before now. So a candidate's time is at
      least (u - _BEHIND) revolutions: an angle bucket whose least ``u`` gives more than the
      best time so far ends the scan (the buckets come in order of ``u``).
    * a candidate on another cylinder whose pass (k = 0) is before the shortest seek
      (``_seek_floor``) is reached a revolution later, k >= 1: at least (1 - _BEHIND)
      revolutions. Those (u below ``u2``) are looked at after the others, when the best time
      is usually below that: then only the rows on the head's cylinder (its cylinder bucket)
      can win among them.
    * with few rows (``_FEW``) every row is looked at, the nearest cylinder first (its time
      then rules out the far ones early).
    * a cheap bound (``_bound``) above the best time so far;
    * the rotational wait and the settle are >= 0, so a candidate whose move is longer than
      the best time so far loses; and the fitted seek curve never falls with distance
      (a, b >= 0; rounding is monotonic), so once the seek over dthr cylinders is longer than
      the best time, every farther candidate loses too (the best time only falls). A measured
      table need not be monotonic: no distance threshold then.
    """
    # One loop, its candidates from three sources in turn (phase): 0 the angle buckets from
    # u2 on, 1 the head's cylinder bucket, 2 every row of u < u2. (``_candidate`` is given
    # numbers only: a function given the pool would pay for reference counts at every call.)
    rpm = hp[H_RPM]
    rev = 60.0 / rpm
    head_angle = now / rev
    head_angle = head_angle - math.floor(head_angle)
    tol = 1e-6 * rev + 1e-9
    a0 = head_angle - _BEHIND
    if a0 < 0.0:
        a0 += 1.0
    seek_lo = _seek_floor(hp, fp)
    u2 = (seek_lo - tol) / rev  # below: another cylinder only a revolution later
    hsettle, hsw = hp[H_SETTLE], hp[H_HSW]
    monotonic = hp[H_TABLE] == 0.0
    ncyl, t2t, sa, sb, knee = hp[H_NCYL], hp[H_T2T], hp[H_A], hp[H_B], hp[H_KNEE]
    nb = pool.shape[0]
    b0 = _angle_bucket(a0, nb)
    # bucket b0 + d (d = 1 .. nb - 1) holds u from (d - 1) / nb on; b0 holds u < 1 / nb
    # (visited at d = 0) and, past the wrap, u >= 1 - 1 / nb (visited at d = nb)
    d = max(0, int(math.floor(u2 * nb)) - 1)
    dd = d
    phase = 0
    hp_s = (hsettle, hsw, ncyl, t2t, sa, sb, knee, rpm)
    best, key, dthr = -1, np.inf, np.inf
    x = 0.0  # the next row of the list being walked (row + 1; 0: its end)
    j = 0
    while True:
        if phase == 0:
            if x == 0.0:  # the next bucket, or on to the rows of u < u2
                if d > nb or (max(d - 1, 0) / nb - _BEHIND) * rev - tol > key:
                    if (1.0 - _BEHIND) * rev - tol > key:
                        phase = 1
                        x = pool[_cyl_bucket(head_cyl, nb), O_CHEAD]
                    else:  # (rare: nothing under a revolution yet)
                        phase = 2
                    continue
                bucket = b0 + d
                if bucket >= nb:
                    bucket -= nb
                x = pool[bucket, O_AHEAD]
                dd = d
                d += 1
                continue
            i = int(x) - 1
            x = pool[i, O_ANEXT]
            u = pool[i, O_ANGLE] - a0
            if u < 0.0:
                u += 1.0
            if u < u2 or (dd == 0 and u >= 0.5) or (dd == nb and u < 0.5):
                continue
        elif phase == 1:
            if x == 0.0:
                break
            i = int(x) - 1
            x = pool[i, O_CNEXT]
            if pool[i, O_CYL] != head_cyl:
                continue
            u = pool[i, O_ANGLE] - a0
            if u < 0.0:
                u += 1.0
            if u >= u2:
                continue
        else:  # phase 2
            if j >= n:
                break
            i = j
            j += 1
            u = pool[i, O_ANGLE] - a0
            if u < 0.0:
                u += 1.0
            if u >= u2:
                continue
        cyl, surf = pool[i, O_CYL], pool[i, O_SURF]
        table_move = np.nan if monotonic else _move(head_cyl, head_surf, cyl, surf,
                                                    pool[i, O_WRITE] * hsettle, hp, xp, fp)
        best, key, dthr = _candidate(i, u, cyl, surf, pool[i, O_WRITE], pool[i, O_ANGLE],
                                     table_move, best, key, dthr, now, head_cyl, head_surf,
                                     head_angle, seek_lo, rev, tol, hp_s)
    return best, key


@numba.njit
def service_s(op, now, head_cyl, head_surf, hp, xp, fp, rng):
    """``HddModel._service_s``: positioning (exact, or the move plus a uniform rotational
    wait drawn from the device stream) plus the media transfer."""
    settle = hp[H_SETTLE] * op[O_WRITE]
    if hp[H_EXACT] != 0.0:
        pos = positioning(now, head_cyl, head_surf, op[O_CYL], op[O_SURF], op[O_ANGLE], settle,
                          hp, xp, fp)
    else:
        pos = _move(head_cyl, head_surf, op[O_CYL], op[O_SURF], settle, hp, xp, fp)
        pos += rng.random() * 60.0 / hp[H_RPM]
    return pos + op[O_XFER]


@numba.njit
def in_write_cache(pool, n, offset, size):
    """``HddModel._in_write_cache``: a dirty entry holds all of [offset, offset + size)."""
    for i in range(n):
        if pool[i, O_OFF] <= offset and offset + size <= pool[i, O_OFF] + pool[i, O_SIZE]:
            return True
    return False


# -- the read-ahead segment: the functions HddModel's ReadAhead calls -----------------------------

ra_end = numba.njit(read_ahead_end)
ra_start = numba.njit(read_ahead_start)
ra_stop = numba.njit(read_ahead_stop)
ra_wait = numba.njit(read_ahead_wait_s)
ra_invalidate = numba.njit(read_ahead_invalidate)
ra_note_before = numba.njit(read_ahead_note_before)
ra_note_limit = numba.njit(read_ahead_note_limit)
_track_end_ahead = numba.njit(hdd_track_end_ahead)


@numba.njit
def track_end_limit(op, hp):
    """``HddModel._track_end_limit``: where a media read's read-ahead stops."""
    end = op[O_OFF] + op[O_SIZE]
    p0 = _track_position(op[O_OFF], hp[H_CAP], hp[H_RHO], hp[H_NCYL], hp[H_HEADS])
    p1 = _track_position(end, hp[H_CAP], hp[H_RHO], hp[H_NCYL], hp[H_HEADS])
    return end + _track_end_ahead(p0, p1, op[O_SIZE], op[O_XFER], 60.0 / hp[H_RPM])
_free_before = numba.njit(hdd_free_bytes_before)


@numba.njit
def free_bytes_before(op, service, head_cyl, head_surf, hp, xp, fp):
    """``HddModel._free_bytes_before``: the bytes in front of a media read taking
    ``service`` from the head's place that pass under the head before its first sector."""
    move = _move(head_cyl, head_surf, op[O_CYL], op[O_SURF], hp[H_SETTLE] * op[O_WRITE], hp,
                 xp, fp)
    p = _track_position(op[O_OFF], hp[H_CAP], hp[H_RHO], hp[H_NCYL], hp[H_HEADS])
    return _free_before(p, service - op[O_XFER] - move, 60.0 / hp[H_RPM], op[O_SIZE],
                        op[O_XFER])


def hdd_params(dev) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kernel's HDD arguments: the parameters ``H_*`` and the measured seek table (a
    one-point dummy when the fitted curve is used)."""
    hp = np.zeros(NH)
    hs, cs = dev.skews()
    t2t, a, b, knee = dev.seek_params()
    table = dev.seek_table()
    hp[H_CAP] = dev.capacity_bytes
    hp[H_RHO] = dev.id_od_ratio
    hp[H_NCYL] = dev.n_cylinders
    hp[H_HEADS] = dev.heads
    hp[H_HSKEW], hp[H_CSKEW] = hs, cs
    hp[H_RPM] = dev.rpm
    hp[H_T2T], hp[H_A], hp[H_B], hp[H_KNEE] = t2t, a, b, knee
    hp[H_HSW] = dev.head_switch_s
    hp[H_SETTLE] = dev.write_settle_s
    hp[H_OVH] = dev.overhead_s
    hp[H_IFACE] = dev.interface_Bps
    hp[H_RHIT] = dev.read_hit_overhead_s
    hp[H_WCO] = dev.write_cached_overhead_s
    hp[H_RA] = dev.read_ahead_bytes
    hp[H_EFF] = dev.stream_efficiency()
    hp[H_WC] = dev.write_cache_entries
    hp[H_SPTF] = dev.scheduler == "sptf"
    hp[H_DSPTF] = dev.destage == "sptf"
    hp[H_EXACT] = dev.rotation == "exact"
    hp[H_TABLE] = table is not None
    hp[H_RFB] = dev.read_free_blocks
    hp[H_RTE] = dev.read_ahead_track_end
    if table is None:
        return hp, np.zeros(1), np.zeros(1)
    return hp, np.ascontiguousarray(table[0], float), np.ascontiguousarray(table[1], float)


@numba.njit(inline="always")  # (called in one loop, once a candidate)
def _candidate(i, u, cyl, surf, write, angle, table_move, best, key, dthr, now, head_cyl,
               head_surf, head_angle, seek_lo, rev, tol, hp_s):
    """Row ``i`` against the best so far, by the bounds of ``_sptf_pick``: the new (best,
    key, dthr). ``table_move``: the move by the measured seek table (NaN: the fitted curve);
    ``hp_s``: settle, head switch, cylinders, and the fitted curve's t2t, a, b, knee, rpm."""
    hsettle, hsw, ncyl, t2t, sa, sb, knee, rpm = hp_s
    if (u - _BEHIND) * rev - tol > key:
        return best, key, dthr
    dcyl = abs(cyl - head_cyl)
    if dcyl >= dthr:
        return best, key, dthr
    b = _bound(cyl, surf, angle, write, head_cyl, head_surf, head_angle, seek_lo, rev,
               hsettle, hsw)
    if b - tol > key:
        return best, key, dthr
    settle = write * hsettle
    monotonic = np.isnan(table_move)
    if monotonic:
        move = _move_fitted(head_cyl, head_surf, cyl, surf, settle, ncyl, t2t, sa, sb, knee, hsw)
    else:
        move = table_move
    if move > key:
        if monotonic and dcyl > 0:
            seek = move if settle == 0.0 else _move_fitted(
                head_cyl, head_surf, cyl, surf, 0.0, ncyl, t2t, sa, sb, knee, hsw)
            if seek > key:
                dthr = min(dthr, dcyl)
        return best, key, dthr
    v = move + _rot_wait(angle, now + move, rev)
    if v < key or (v == key and i < best):
        key = v
        best = i
        if monotonic:  # a shorter best time: a nearer threshold
            dthr = min(dthr, _seek_threshold_fitted(key, t2t, sa, sb, knee, ncyl))
    return best, key, dthr



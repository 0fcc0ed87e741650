"""The host on the fast engine: the job slots (the host overhead on the job's CPU or the host's
shared CPUs, think time, issue), the open-loop arrivals, ``new_io`` (the io stream's draws, or
a trace's next request) and its split into block requests, a block request's start and end,
and ``complete(io)`` with the Recorder's figures and the measuring window: the job, arrival and
block-request processes of :mod:`iosim.engine.simpy_engine` as event steps over typed state
(:data:`Host`).

The kernel (:mod:`iosim.engine.fast`) calls :func:`host_step` for every event of the host's
block (``0`` .. ``K_HOST_LAST``); it is inlined there before typing, and the kernel is compiled
without SSA renaming, so every integer constant a step assigns to a name that takes other
values is ``I(...)``, an int64.

The three numbers every I/O changes (the I/O and block-request pools' free counts, and whether
the window is being measured) are the kernel's, passed in and returned: kept in arrays, they
were loads and stores the compiler could not keep in registers (the reference stack ran 10-15 %
slower). The others the steps change (the trace's cursor, the sequential stream's offset, the
window's start and end) live in the record's two small arrays ``hc`` (integers, ``HC_*``) and
``ht`` (times, ``HT_*``).
"""

from __future__ import annotations

import math
from collections import namedtuple

import numba
import numpy as np

from ..dists import EMPIRICAL
from . import (
    fast_cache,  # noqa: F401  (the cache locator, before the functions are decorated)
    progress,
)
from .fast_codes import (
    C_OVF,
    CF_BLOCK_BYTES,
    CF_BYTES,
    F_ALIGN,
    F_GAP,
    F_MAXB,
    F_OVH_A,
    F_OVH_B,
    F_RF,
    F_SPAN,
    F_SPEED,
    F_THINK,
    H_BLOCK,
    H_LAT,
    H_READ,
    H_WRITE,
    K_ACQUIRE,
    K_ARR_NEXT,
    K_ARR_START,
    K_BR_FINISH,
    K_BR_NR,
    K_BR_START,
    K_FINISH,
    K_HOST_LAST,
    K_IO_DONE,
    K_ISSUE,
    K_JOB_CPU,
    K_JOB_HOST,
    K_JOB_OVH,
    K_JOB_THINK,
    K_JOB_TOP,
    K_THINK_ISSUE,
    KB,
    L_BLOCK,
    L_HOST,
    N_BATCH_K,
    N_BLOCK,
    N_READ,
    N_WRITE,
    P_BSIZE,
    P_DRAW_IO,
    P_HOST_CPUS,
    P_IODEPTH,
    P_IOS,
    P_NJOBS,
    P_NR_ON,
    P_NSIZES,
    P_OPEN,
    P_OVH_CODE,
    P_OVH_ON,
    P_POISSON,
    P_PROGRESS,
    P_RANDOM,
    P_SERIAL,
    P_TRACE,
    P_WARMUP,
    T_COMPLETED,
    T_ISSUED,
    TR_NONE,
    TR_OPEN,
    TR_VALIDATE,
)
from .fast_core import free_list, unmanaged
from .fast_stats import batch_add, hist_add, hist_bucket, recording_start
from .fast_steps import level, push_now, push_start, release, sample
from .trace_source import active_source

I = np.int64  # noqa: E741  (an integer that is not a constant to numba's typing)

#: ``hc``'s slots: the trace's cursor (the next request, the first request in the input
#: buffers, their length), the completions waiting in the output buffers, whether the measured
#: window has ended
HC_TR_NEXT, HC_TR_BASE, HC_TR_LEN, HC_TR_NOUT, HC_FINISHED = range(5)
#: ``ht``'s slots: the sequential stream's next offset, when a trace's request 0 was issued,
#: the measured window's start and end
HT_SEQ_OFF, HT_TR_T0, HT_T_START, HT_T_END = range(4)

#: the workload and the host (jobs, overhead, think time, the io stream's sizes and offsets,
#: the open loop's gaps, the block layer's split and nr_requests), the trace being replayed
#: (input and output buffers), the measuring window, the I/O and block-request pools, and
#: the run's numbers (``hc``, ``ht``)
Host = namedtuple("Host", (
    "njobs", "iodepth", "open_loop", "poisson", "ovh_on", "serial", "ovh_code", "ovh_a",
    "ovh_b", "ovh_samples", "think", "host_cpus", "r_cpu0", "r_hcpu", "nr_on", "r_nr", "maxb",
    "sizes", "cdf", "slots", "nsizes", "rnd", "draw_io", "rf", "span", "align", "gap_s",
    "tr_mode", "tr_n", "tr_speed", "tr_arr", "tr_off", "tr_size", "tr_read", "tr_gap",
    "tr_done", "tr_issue", "tr_lat", "warmup", "ios", "bsize", "progress_every",
    "io_read", "io_size", "io_t", "io_parts", "io_slot", "io_off", "io_idx", "io_free",
    "rq_io", "rq_size", "rq_read", "rq_off", "rq_tb", "rq_free", "slot_z", "hc", "ht"))


# -- what the compiled loop asks of Python now and then -----------------------------------------
# A run shown on a progress bar (``engine.progress``) reports its completions every so many
# (``P_PROGRESS``); a replay's trace is read into fixed buffers and its completions written to
# fixed buffers, and when one runs out the source being read (``trace_source.reading``) is
# called. Both through numba's object mode, from functions that are not inlined.

TRACE_REFILL, TRACE_FLUSH = range(2)


def _trace_op(op: int, a: int, t0: float) -> int:
    """Refill the input buffers from request ``a`` on (their count), or hand ``a``
    completions to the source (``t0``: when request 0 was issued)."""
    if op == TRACE_REFILL:
        return active_source().refill(a)
    active_source().flush(a, t0)
    return 0


@numba.njit(cache=True)
def trace_call(op, a, t0):
    """:func:`_trace_op` from compiled code (one object-mode block for all the calls: each
    block costs memory when loaded)."""
    with numba.objmode(got="int64"):
        got = _trace_op(op, a, t0)
    return got


def _progress_tick(done: int) -> None:
    progress.tick(done)


@numba.njit(cache=True)
def progress_call(done):
    """A long run's completions so far, to its progress bar."""
    with numba.objmode():
        _progress_tick(done)


# -- the state -----------------------------------------------------------------------------------

@numba.njit(inline="always")
def new_host(ip, fp, sizes, cdf, slots, ovh_samples, tr_arr, tr_off, tr_size, tr_read, tr_gap,
             tr_lat, tr_issue, tr_done, iocap, rqcap, r_nr, r_cpu0, r_hcpu, keep):
    """The host's state for the parameters ``ip``/``fp``: the io stream's sizes (``sizes``,
    their ``cdf``, each size's aligned ``slots`` in the span), the overhead's samples when
    empirical, the trace's buffers (``tr_*``), pools of ``iocap`` I/Os and ``rqcap`` block
    requests, the resources it takes (nr_requests, the first job CPU, the host's shared CPUs);
    every array a view kept alive by ``keep``. A trace's first requests are read in here."""
    um = unmanaged
    nslots = ip[P_NJOBS] * ip[P_IODEPTH]
    tr_mode = ip[P_TRACE]
    hc = um(np.zeros(5, np.int64), keep)
    if tr_mode != TR_NONE:
        tr_n = ip[P_IOS] + ip[P_WARMUP]
        hc[HC_TR_LEN] = trace_call(TRACE_REFILL, 0, 0.0) if tr_n > 0 else 0
    else:
        tr_n = I(0)
    ht = um(np.zeros(4), keep)
    ht[HT_T_END] = np.nan
    return Host(
        ip[P_NJOBS], ip[P_IODEPTH], ip[P_OPEN] != 0, ip[P_POISSON] != 0, ip[P_OVH_ON] != 0,
        ip[P_SERIAL] != 0, ip[P_OVH_CODE], fp[F_OVH_A], fp[F_OVH_B], um(ovh_samples, keep),
        fp[F_THINK], ip[P_HOST_CPUS], r_cpu0, r_hcpu, ip[P_NR_ON] != 0, r_nr, fp[F_MAXB],
        um(sizes, keep), um(cdf, keep), um(slots, keep), ip[P_NSIZES], ip[P_RANDOM] != 0,
        ip[P_DRAW_IO] != 0, fp[F_RF], fp[F_SPAN], fp[F_ALIGN], fp[F_GAP],
        tr_mode, tr_n, fp[F_SPEED], um(tr_arr, keep), um(tr_off, keep), um(tr_size, keep),
        um(tr_read, keep), um(tr_gap, keep), um(tr_done, keep), um(tr_issue, keep),
        um(tr_lat, keep), ip[P_WARMUP], ip[P_IOS], ip[P_BSIZE], ip[P_PROGRESS],
        um(np.zeros(iocap, np.bool_), keep),  # io_read
        um(np.zeros(iocap), keep),  # io_size
        um(np.zeros(iocap), keep),  # io_t
        um(np.zeros(iocap, np.int64), keep),  # io_parts
        um(np.zeros(iocap, np.int64), keep),  # io_slot
        um(np.zeros(iocap), keep),  # io_off
        um(np.zeros(iocap, np.int64), keep),  # io_idx: a trace request's index in the trace
        free_list(iocap, keep),
        um(np.zeros(rqcap, np.int64), keep),  # rq_io
        um(np.zeros(rqcap), keep),  # rq_size
        um(np.zeros(rqcap, np.bool_), keep),  # rq_read
        um(np.zeros(rqcap), keep),  # rq_off
        um(np.zeros(rqcap), keep),  # rq_tb: when it entered the block layer
        free_list(rqcap, keep),
        um(np.zeros(max(1, nslots)), keep),  # slot_z: each job slot's overhead
        hc, ht)


@numba.njit(inline="always")
def host_start(now, ev, rec, hs):
    """The host's processes start: the arrivals, or one per job slot (a validate-mode trace:
    one slot); with no warm-up the window opens now. Returns whether it is open."""
    measuring = np.bool_(False)
    if hs.warmup == 0:
        recording_start(rec, now)
        measuring = np.bool_(True)
        hs.ht[HT_T_START] = now
    if hs.open_loop:
        push_start(ev, K_ARR_START)
    else:
        for s in range(hs.njobs * hs.iodepth if hs.tr_mode != TR_VALIDATE else 1):
            push_start(ev, (s << KB) | K_JOB_TOP)
    return measuring


# -- the steps -----------------------------------------------------------------------------------

@numba.njit(inline="always")
def _complete(io, now, n_io, measuring, ev, lvs, rec, hs):
    """``complete(io)``: the run's counters, the Recorder's latency figures while
    ``measuring``, a trace's completion record; the window opens after the warm-up and closes
    after the measured I/Os; then ``io.done`` (a closed loop's job slot resumes) or, open loop,
    the I/O is free again (``n_io`` free I/Os). Returns the free I/Os and the window's state."""
    hc, ht, tot, cnt = hs.hc, hs.ht, rec.tot, rec.cnt
    tot[T_COMPLETED] += 1
    if hs.progress_every > 0 and tot[T_COMPLETED] % hs.progress_every == 0:
        progress_call(tot[T_COMPLETED])
    level(lvs, L_HOST, now, -1)
    if measuring:
        lat = now - hs.io_t[io]
        lb = hist_bucket(lat)
        hist_add(rec.hist, rec.hn, rec.hf, H_LAT, lat, lb)
        if hs.io_read[io]:
            hist_add(rec.hist, rec.hn, rec.hf, H_READ, lat, lb)
            cnt[N_READ] += 1
        else:
            hist_add(rec.hist, rec.hn, rec.hf, H_WRITE, lat, lb)
            cnt[N_WRITE] += 1
        batch_add(rec.b_sums, rec.b_counts, rec.b_tend, rec.b_hist, cnt[N_BATCH_K], hs.bsize,
                  lat, lb, now)
        cnt[N_BATCH_K] += 1
        rec.cf[CF_BYTES] += hs.io_size[io]
    if hs.tr_mode != TR_NONE:
        n = hc[HC_TR_NOUT]
        hs.tr_done[n] = hs.io_idx[io]
        hs.tr_issue[n] = hs.io_t[io]
        hs.tr_lat[n] = now - hs.io_t[io]
        n += 1
        if n == hs.tr_done.shape[0]:
            trace_call(TRACE_FLUSH, n, ht[HT_TR_T0])
            n = I(0)
        hc[HC_TR_NOUT] = n
    if tot[T_COMPLETED] == hs.warmup:
        recording_start(rec, now)
        measuring = np.bool_(True)
        ht[HT_T_START] = now
    if tot[T_COMPLETED] == hs.warmup + hs.ios and hc[HC_FINISHED] == 0:
        ht[HT_T_END] = now
        hc[HC_FINISHED] = 1
        # events already due at this instant still run before the stop: they are not
        # counted in the measured window
        measuring = np.bool_(False)
        push_now(ev, K_FINISH)
    if hs.open_loop:  # nobody waits for io.done
        hs.io_free[n_io] = io
        n_io += 1
    else:
        push_now(ev, (io << KB) | K_IO_DONE)
    return n_io, measuring


@numba.njit(inline="always")
def _overhead(x, act, a_delay, a_code, a_res, hs, job_rngs):
    """A job slot's host overhead: drawn from the job's stream, then spent on the job's CPU
    (one I/O at a time), on one of the host's shared CPUs, or at once."""
    if hs.ovh_code == 0:  # deterministic: no draw (and no stream to look up)
        z = hs.ovh_a
    elif hs.ovh_code == EMPIRICAL:
        z = hs.ovh_samples[job_rngs[x // hs.iodepth].integers(0, hs.ovh_samples.shape[0])]
    else:
        z = sample(hs.ovh_code, hs.ovh_a, hs.ovh_b, job_rngs[x // hs.iodepth])
    hs.slot_z[x] = z
    if hs.serial:  # the job's CPU issues one I/O at a time
        act, a_res, a_code = I(2), hs.r_cpu0 + x // hs.iodepth, (x << KB) | K_JOB_CPU
    elif hs.host_cpus > 0:
        act, a_res, a_code = I(2), hs.r_hcpu, (x << KB) | K_JOB_HOST
    else:
        act, a_delay, a_code = I(1), z, (x << KB) | K_JOB_OVH
    return act, a_delay, a_code, a_res


@numba.njit(inline="always")
def _next_request(io, now, hs, rng_io):
    """``new_io``'s draws: the trace's next request as recorded, or the io stream's direction,
    size and offset (random in the span, aligned; or sequential), drawn as
    ``Simulation.new_io`` draws them. Returns (read, offset, size)."""
    hc = hs.hc
    size = hs.sizes[0]
    if hs.tr_mode != TR_NONE:
        nxt = hc[HC_TR_NEXT]
        j = nxt - hc[HC_TR_BASE]
        is_read = hs.tr_read[j]
        off = hs.tr_off[j]
        size = hs.tr_size[j]
        hs.io_idx[io] = nxt
        if nxt == 0:
            hs.ht[HT_TR_T0] = now
        nxt += 1
        hc[HC_TR_NEXT] = nxt
        if nxt == hc[HC_TR_BASE] + hc[HC_TR_LEN] and nxt < hs.tr_n:  # the next buffer
            hc[HC_TR_LEN] = trace_call(TRACE_REFILL, nxt, 0.0)
            hc[HC_TR_BASE] = nxt
    elif hs.draw_io:
        si = I(0)
        is_read = rng_io.random() < hs.rf
        if hs.nsizes > 1:  # Generator.choice(p=...): cdf.searchsorted(u, "right")
            u = rng_io.random()
            while si < hs.nsizes - 1 and hs.cdf[si] <= u:
                si += 1
        if hs.rnd:
            off = float(rng_io.integers(0, hs.slots[si])) * hs.align
        else:
            seq = hs.ht[HT_SEQ_OFF]
            if seq + hs.sizes[si] > hs.span:
                seq = 0.0
            off = seq
            hs.ht[HT_SEQ_OFF] = seq + hs.sizes[si]
        size = hs.sizes[si]
    else:
        is_read = hs.rf >= 1.0
        off = 0.0
    return is_read, off, size


@numba.njit(inline="always")
def _new_io(x, now, n_io, n_rq, ev, lvs, rec, hs, rng_io):
    """``new_io`` for job slot ``x`` (open loop: the arrival process), then ``submit``: the
    I/O split into block requests of at most max_sectors bytes, each a process of its own
    (``n_io`` and ``n_rq``: the pools' free counts). Returns whether it was issued (not when a
    pool is full: the run is redone with more room) and the free counts."""
    if n_io == 0:
        ev.ctl[C_OVF] = 1
        return np.bool_(False), n_io, n_rq
    n_io -= 1
    io = hs.io_free[n_io]
    is_read, off, size = _next_request(io, now, hs, rng_io)
    rec.tot[T_ISSUED] += 1
    hs.io_read[io] = is_read
    hs.io_size[io] = size
    hs.io_off[io] = off
    hs.io_t[io] = now
    hs.io_slot[io] = x
    level(lvs, L_HOST, now, 1)
    maxb = hs.maxb
    nparts = max(1, math.ceil(size / maxb))
    if n_rq < nparts:
        ev.ctl[C_OVF] = 1
        return np.bool_(False), n_io, n_rq
    hs.io_parts[io] = nparts
    left = size
    for part_k in range(nparts):  # split; every part is a process of its own
        part = min(left, maxb)
        left -= part
        n_rq -= 1
        r = hs.rq_free[n_rq]
        hs.rq_io[r] = io
        hs.rq_size[r] = part
        hs.rq_read[r] = is_read
        hs.rq_off[r] = off + part_k * maxb
        push_start(ev, (r << KB) | K_BR_START)
    return np.bool_(True), n_io, n_rq


@numba.njit(inline="always")
def _next_arrival(now, hs, rng_arr):
    """The open loop's wait for its next I/O: a trace's next request at its recorded time over
    the speed-up, or the next gap (exponential or fixed). Negative: there is none."""
    if hs.tr_mode == TR_OPEN:
        nxt = hs.hc[HC_TR_NEXT]
        if nxt >= hs.tr_n:
            return -1.0
        return max(0.0, hs.tr_arr[nxt - hs.hc[HC_TR_BASE]] / hs.tr_speed - now)
    return rng_arr.exponential(hs.gap_s) if hs.poisson else hs.gap_s


@numba.njit(inline="always")
def host_step(k, x, now, act, a_delay, a_code, a_res, n_io, n_rq, measuring, ev, lvs, rec,
              hs, rng_io, rng_arr, job_rngs):
    """Step ``k`` of the host's processes for ``x`` (a job slot, an I/O, a block request; the
    arrival process has none), with ``n_io`` and ``n_rq`` free in the pools, ``measuring`` or
    not. Returns the next step (-1: the process waits; -2: an unknown step, a bug;
    ``K_ACQUIRE``: on to the path), ``x``, what it waits on (``act`` 1: a timeout of
    ``a_delay``; 2: resource ``a_res``; resuming at ``a_code``), the free counts and whether
    the window is being measured."""
    hc = hs.hc
    if 0 <= k <= K_HOST_LAST:  # (one step: the kernel dispatches the next)
        if k == K_BR_FINISH:  # ---- block request done
            if hs.nr_on:
                release(ev, hs.r_nr)
            level(lvs, L_BLOCK, now, -1)
            if measuring:
                dt = now - hs.rq_tb[x]
                hist_add(rec.hist, rec.hn, rec.hf, H_BLOCK, dt, hist_bucket(dt))
                rec.cnt[N_BLOCK] += 1
                rec.cf[CF_BLOCK_BYTES] += hs.rq_size[x]
            io = hs.rq_io[x]
            hs.rq_free[n_rq] = x
            n_rq += 1
            hs.io_parts[io] -= 1
            if hs.io_parts[io] == 0:
                n_io, measuring = _complete(io, now, n_io, measuring, ev, lvs, rec, hs)
            k = I(-1)
        elif k == K_IO_DONE:
            s = hs.io_slot[x]
            hs.io_free[n_io] = x
            n_io += 1
            x = s
            k = I(K_JOB_TOP)
        elif k == K_JOB_TOP:  # ---- closed-loop job slot: overhead, think, issue
            if hs.tr_mode != TR_NONE and hc[HC_TR_NEXT] >= hs.tr_n:  # the trace is exhausted
                k = I(-1)
            elif hs.tr_mode == TR_VALIDATE:  # the recorded idle time after the previous one
                if hc[HC_TR_NEXT] == 0:
                    k = I(K_ISSUE)
                else:
                    gap = hs.tr_gap[hc[HC_TR_NEXT] - hc[HC_TR_BASE]]  # (the idle before it)
                    act, a_delay, a_code = I(1), gap, (x << KB) | K_JOB_THINK
                    k = I(-1)
            elif hs.ovh_on:
                act, a_delay, a_code, a_res = _overhead(x, act, a_delay, a_code, a_res, hs,
                                                        job_rngs)
                k = I(-1)
            else:
                k = I(K_THINK_ISSUE)
        elif k == K_JOB_CPU:
            if hs.host_cpus > 0:  # then one of the host's shared CPUs
                act, a_res, a_code = I(2), hs.r_hcpu, (x << KB) | K_JOB_HOST
            else:
                act, a_delay, a_code = I(1), hs.slot_z[x], (x << KB) | K_JOB_OVH
            k = I(-1)
        elif k == K_JOB_HOST:
            act, a_delay, a_code = I(1), hs.slot_z[x], (x << KB) | K_JOB_OVH
            k = I(-1)
        elif k == K_JOB_OVH:
            if hs.host_cpus > 0:  # (the inner `with` of the reference exits first)
                release(ev, hs.r_hcpu)
            if hs.serial:
                release(ev, hs.r_cpu0 + x // hs.iodepth)
            k = I(K_THINK_ISSUE)
        elif k == K_THINK_ISSUE:
            if hs.think > 0:
                act, a_delay, a_code = I(1), hs.think, (x << KB) | K_JOB_THINK
                k = I(-1)
            else:
                k = I(K_ISSUE)
        elif k == K_JOB_THINK:
            k = I(K_ISSUE)
        elif k == K_ISSUE or k == K_ARR_NEXT:  # ---- new_io, then submit
            if k == K_ISSUE and hs.tr_mode != TR_NONE and hc[HC_TR_NEXT] >= hs.tr_n:
                k = I(-1)  # another slot took the trace's last request meanwhile: it ends
            else:
                issued, n_io, n_rq = _new_io(x, now, n_io, n_rq, ev, lvs, rec, hs, rng_io)
                if issued and k == K_ARR_NEXT:  # (not issued: a pool is full, ctl says so)
                    gap = _next_arrival(now, hs, rng_arr)
                    if gap >= 0.0:
                        act, a_delay, a_code = I(1), gap, I(K_ARR_NEXT)
                k = I(-1)
        elif k == K_BR_START:  # ---- block request process
            hs.rq_tb[x] = now
            level(lvs, L_BLOCK, now, 1)
            if hs.nr_on:
                act, a_res, a_code = I(2), hs.r_nr, (x << KB) | K_BR_NR
                k = I(-1)
            else:
                k = I(K_ACQUIRE)
        elif k == K_ARR_START:
            gap = _next_arrival(now, hs, rng_arr)
            if gap >= 0.0:
                act, a_delay, a_code = I(1), gap, I(K_ARR_NEXT)
            k = I(-1)
        else:  # an unknown step: a bug
            k = I(-2)
    return k, x, act, a_delay, a_code, a_res, n_io, n_rq, measuring

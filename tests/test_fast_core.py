"""The fast engine's core (heap, rings, FIFO resources) orders events exactly as SimPy does.

A small scenario, independent of the kernel: processes start together (SimPy's urgent
Initialize), queue for a resource of a few slots, hold it for delays drawn from a small set (so
that completions tie, and some delays are zero: events triggered now), release it (the Release
event grants the head waiter), come back for a second round, and one of them starts a new
process midway. SimPy runs it as generators; a numba loop runs it on ``fast_core`` with the
codes the kernel would use. The two logs of (what, process, time) must be identical.

The compiled helpers here are not cached: numba keys a cache on this file's source alone, so a
change to ``fast_core`` would be tested against its cached former self.
"""

import numba
import numpy as np
import pytest
import simpy

from iosim.engine import fast_core as fc

START, GRANT1, DONE1, AGAIN, GRANT2, DONE2, RELEASE = range(7)
KB = 4  # low bits: the step; high bits: the process (or the resource for RELEASE)


def simpy_log(delays, cap):
    env = simpy.Environment()
    res = simpy.Resource(env, capacity=cap)
    log = []
    n = len(delays)

    def proc(p):
        log.append((START, p, env.now))
        req = res.request()
        yield req
        log.append((GRANT1, p, env.now))
        yield env.timeout(delays[p % n])
        log.append((DONE1, p, env.now))
        if p == 0:  # a process started midway (while other completions may be due)
            env.process(proc(n))
        res.release(req)
        yield env.timeout(0)
        log.append((AGAIN, p, env.now))
        req = res.request()
        yield req
        log.append((GRANT2, p, env.now))
        yield env.timeout(delays[p % n] / 2)
        log.append((DONE2, p, env.now))
        res.release(req)

    for p in range(n):
        env.process(proc(p))
    env.run()
    return log


@numba.njit
def _core_log(delays, cap):
    n = delays.shape[0]
    keep = [np.empty(0, np.uint8)]
    room = 8 * (n + 1)
    ht = fc.unmanaged(np.empty(room), keep)
    hs = fc.unmanaged(np.empty(room, np.int64), keep)
    hc = fc.unmanaged(np.empty(room, np.int64), keep)
    uq = fc.unmanaged(np.empty(room, np.int64), keep)
    fq = fc.unmanaged(np.empty(room, np.int64), keep)
    ctl = fc.unmanaged(np.zeros(fc.NCTL, np.int64), keep)
    res, rq = fc.res_table(np.array([cap]), np.array([n + 1]))
    log = np.empty((6 * (n + 1), 3))
    m = 0
    for p in range(n):
        fc.ring_push(uq, ctl, fc.C_UH, fc.C_UC, (p << KB) | START)
    now = 0.0
    while True:
        now, code = fc.next_event(ht, hs, hc, uq, fq, ctl, now)
        if code == fc.EMPTY or ctl[fc.C_OVF] != 0:
            break
        step = code & ((1 << KB) - 1)
        p = code >> KB
        if step == RELEASE:
            fc.res_trigger(res, rq, p, fq, ctl)
            continue
        log[m, 0] = step
        log[m, 1] = p
        log[m, 2] = now
        m += 1
        d = delays[p % n]
        if step == START:
            fc.res_request(res, rq, 0, (p << KB) | GRANT1, fq, ctl)
        elif step == GRANT1:
            fc.schedule(ht, hs, hc, fq, ctl, now, d, (p << KB) | DONE1)
        elif step == DONE1:
            if p == 0:
                fc.ring_push(uq, ctl, fc.C_UH, fc.C_UC, (n << KB) | START)
            fc.res_release(res, 0, fq, ctl, (0 << KB) | RELEASE)
            fc.schedule(ht, hs, hc, fq, ctl, now, 0.0, (p << KB) | AGAIN)
        elif step == AGAIN:
            fc.res_request(res, rq, 0, (p << KB) | GRANT2, fq, ctl)
        elif step == GRANT2:
            fc.schedule(ht, hs, hc, fq, ctl, now, d / 2, (p << KB) | DONE2)
        else:  # DONE2
            fc.res_release(res, 0, fq, ctl, (0 << KB) | RELEASE)
    out = log[:m].copy()
    fc.free_owners(keep)
    return out, ctl[fc.C_OVF]


def core_log(delays, cap):
    log, overflow = _core_log(np.asarray(delays, dtype=float), cap)
    assert overflow == 0
    return [(int(a), int(b), float(c)) for a, b, c in log]


@pytest.mark.parametrize("delays, cap", [
    ([1.0, 1.0, 1.0, 1.0], 2),  # every completion ties
    ([0.5, 0.0, 1.0, 0.0, 0.5], 1),  # zero delays: events triggered now, one slot
    ([1.0, 0.5, 0.5, 1.5, 0.0, 1.0], 3),
    ([0.0, 0.0, 0.0], 2),  # the clock never moves
])
def test_event_order_matches_simpy(delays, cap):
    assert core_log(delays, cap) == simpy_log(delays, cap)


def test_event_order_matches_simpy_on_random_ties():
    rng = np.random.default_rng(12)
    for _ in range(60):
        n = int(rng.integers(1, 8))
        delays = [float(v) for v in rng.choice([0.0, 0.25, 0.5, 1.0], size=n)]
        cap = int(rng.integers(1, 4))
        assert core_log(delays, cap) == simpy_log(delays, cap), (delays, cap)


def test_heap_breaks_time_ties_by_scheduling_order():
    ht, hs, hc = np.empty(16), np.empty(16, np.int64), np.empty(16, np.int64)
    ctl = np.zeros(fc.NCTL, np.int64)
    times = [2.0, 1.0, 2.0, 1.0, 3.0, 1.0, 2.0]
    for code, t in enumerate(times):
        _push(ht, hs, hc, ctl, t, code)
    popped = [_pop(ht, hs, hc, ctl) for _ in times]
    assert popped == sorted(range(len(times)), key=lambda c: (times[c], c))
    assert ctl[fc.C_HN] == 0


@pytest.mark.parametrize("tied", [False, True])
def test_heap_pops_what_heapq_pops_under_random_pushes_and_pops(tied):
    """Interleaved pushes (times after the clock, as a simulation's are; ``tied``: on a coarse
    grid, so many share a time) and pops: the same codes in the same order as Python's heapq
    on (time, scheduling order), at every size the heap passes through."""
    import heapq

    rng = np.random.default_rng(7 + tied)
    ht, hs, hc = np.empty(512), np.empty(512, np.int64), np.empty(512, np.int64)
    ctl = np.zeros(fc.NCTL, np.int64)
    ref: list = []
    now, seq, popped, want = 0.0, 0, [], []
    for _ in range(20_000):
        if ref and (len(ref) >= 500 or rng.random() < 0.48):
            popped.append(_pop(ht, hs, hc, ctl))
            now, _, code = heapq.heappop(ref)
            want.append(code)
        else:
            d = float(rng.integers(0, 4)) if tied else float(rng.exponential(1.0))
            code = int(rng.integers(0, 1 << 40))
            _push(ht, hs, hc, ctl, now + d, code)
            heapq.heappush(ref, (now + d, seq, code))
            seq += 1
    assert popped == want and len(want) > 8000
    assert ctl[fc.C_HN] == len(ref)


@numba.njit
def _push(ht, hs, hc, ctl, t, code):
    fc.heap_push(ht, hs, hc, ctl, t, code)


@numba.njit
def _pop(ht, hs, hc, ctl):
    return fc.heap_pop(ht, hs, hc, ctl)


def test_a_full_ring_or_heap_says_so_instead_of_overwriting():
    ht, hs, hc = np.empty(2), np.empty(2, np.int64), np.empty(2, np.int64)
    ctl = np.zeros(fc.NCTL, np.int64)
    for code in range(3):
        _push(ht, hs, hc, ctl, 1.0, code)
    assert ctl[fc.C_OVF] == 1 and ctl[fc.C_HN] == 2


@numba.njit
def _buckets(values, nbins):
    out = np.empty(values.shape[0], np.int64)
    for i in range(values.shape[0]):
        out[i] = fc.bucket_of(values[i], nbins)
    return out


def test_bucket_of_equals_the_recorders_bucket_index():
    from iosim.engine.recorder import SUB_BUCKETS, LogHist, bucket_index

    assert SUB_BUCKETS == 64  # (bucket_of reads six mantissa bits)
    nbins = LogHist().counts.shape[0]
    rng = np.random.default_rng(3)
    exact = np.ldexp(1.0, np.arange(-40, 40))  # powers of two, and their neighbours
    values = np.concatenate([
        [0.0, 1e-9, 0.999e-9, 1.0001e-9, 5e-324, 1e200, 2.0**63 * 1e-9],
        exact, np.nextafter(exact, 0), np.nextafter(exact, np.inf),
        np.exp(rng.uniform(np.log(1e-10), np.log(1e4), 200_000)),  # 0.1 ns .. 3 hours
        rng.exponential(0.46e-3, 100_000),
    ])
    got = _buckets(values, nbins)
    want = np.array([bucket_index(float(v)) for v in values])
    assert np.array_equal(got, want)


@numba.njit
def _space_run(capacity, ops):
    """Takes (amount > 0, code = op index) and gives (amount < 0) on one FifoSpace; returns the
    codes in the order they were served (at once or on a give) and the room left."""
    sp_free = np.array([capacity])
    sp_code = np.zeros((1, ops.shape[0]), np.int64)
    sp_amt = np.zeros((1, ops.shape[0]))
    sp_hc = np.zeros((1, 2), np.int64)
    fq = np.empty(ops.shape[0], np.int64)
    ctl = np.zeros(fc.NCTL, np.int64)
    served = []
    for i in range(ops.shape[0]):
        if ops[i] > 0:
            if fc.space_take(sp_free, sp_code, sp_amt, sp_hc, ctl, 0, ops[i], i):
                served.append(i)
        else:
            fc.space_give(sp_free, sp_code, sp_amt, sp_hc, fq, ctl, 0, -ops[i])
            while ctl[fc.C_FC] > 0:
                served.append(fc.ring_pop(fq, ctl, fc.C_FH, fc.C_FC))
    return np.array(served), sp_free[0]


def _taker(space, served, i, amount):
    yield from space.take(amount)
    served.append(i)


def test_fifo_space_serves_as_the_reference_fifospace():
    from iosim.engine.simpy_devices import FifoSpace

    rng = np.random.default_rng(5)
    for _ in range(40):
        capacity = float(rng.integers(1, 6))
        ops = [float(v) for v in rng.integers(-3, 4, size=30) if v != 0]
        env = simpy.Environment()
        space = FifoSpace(env, capacity)
        served = []

        for i, amount in enumerate(ops):
            if amount > 0:
                env.process(_taker(space, served, i, amount))
            else:
                space.give_back(-amount)
            env.run()  # (everything happens at time 0, in this order)
        got, room = _space_run(capacity, np.array(ops))
        assert list(got) == served and room == space.free, (capacity, ops)


@numba.njit
def _view_and_free(a):
    keep = [np.empty(0, np.uint8)]
    v = fc.unmanaged(a, keep)
    v[0] += 1.0
    fc.free_owners(keep)


def test_views_write_through_and_their_owners_are_released():
    import sys

    a = np.zeros(4)
    before = sys.getrefcount(a)
    for _ in range(5):
        _view_and_free(a)
    assert a[0] == 5.0  # the view wrote to the owner's data
    assert sys.getrefcount(a) == before  # and nothing kept a reference: no leak per run

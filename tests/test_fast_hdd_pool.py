"""The fast engine's HDD pool under any sequence of adds and pops: its rows stay the reference
``_OpPool``'s (a pop moves the last row into the hole), its angle and cylinder buckets hold
exactly those rows, and the SPTF pick equals ``numpy.argmin`` over every row's positioning time
(the first of equals), bit for bit, whether it walks the buckets (many rows) or looks at every
row (few)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from iosim import presets
from iosim.devices.hdd import hdd_positioning_s
from iosim.engine import fast_hdd as fh

DEVICES = {
    "e8 member (fitted curve)": presets.load("raid0-12x-hdd-wbc")[0].device.member,
    "hdd-7200": presets.load("hdd-7200")[0].device,
    "atlas 10k (measured table)": presets.load("hdd-atlas10k")[0].device,
}


def _bucket_rows(pool, n, head, nxt, prv, bucket_of):
    """Every bucket's list walked: its rows, each checked to be in its own bucket and linked
    both ways."""
    seen = []
    for b in range(pool.shape[0]):
        x, prev = int(pool[b, head]), 0
        while x:
            i = x - 1
            assert i < n and bucket_of(i) == b
            assert int(pool[i, prv]) == prev
            seen.append(i)
            prev, x = x, int(pool[i, nxt])
    return sorted(seen)


def _check_buckets(pool, n):
    nb = pool.shape[0]
    if nb <= fh._FEW:  # a small pool keeps no buckets (its pick looks at every row)
        assert not pool[:, fh.O_AHEAD].any() and not pool[:, fh.O_CHEAD].any()
        return
    rows = list(range(n))
    assert _bucket_rows(pool, n, fh.O_AHEAD, fh.O_ANEXT, fh.O_APREV,
                        lambda i: fh._angle_bucket(pool[i, fh.O_ANGLE], nb)) == rows
    assert _bucket_rows(pool, n, fh.O_CHEAD, fh.O_CNEXT, fh.O_CPREV,
                        lambda i: fh._cyl_bucket(pool[i, fh.O_CYL], nb)) == rows


@settings(max_examples=60, deadline=None, derandomize=True)
@given(name=st.sampled_from(sorted(DEVICES)), cap=st.sampled_from([32, 80, 200]),
       span_frac=st.sampled_from([1e-5, 0.0083, 1.0]), seed=st.integers(0, 2**32 - 1),
       steps=st.integers(1, 600))
def test_pool_adds_pops_and_pick_match_the_reference(name, cap, span_frac, seed, steps):
    dev = DEVICES[name]
    hp, xp, fp = fh.hdd_params(dev)
    table = dev.seek_table()
    t2t, a, b, knee = dev.seek_params()
    rev = 60.0 / dev.rpm
    rng = np.random.default_rng(seed)
    pool = np.zeros((cap, fh.NO))
    done = np.zeros(cap, np.int64)
    op = np.zeros(fh.NO)
    model = []  # the reference: (row, attempt), a pop moves the last into the hole
    base = np.floor(rng.random() * (1 - span_frac) * dev.capacity_bytes / 4096) * 4096
    now = rng.random() * 10.0 ** rng.integers(0, 6)
    head_cyl, head_surf = 0.0, 0.0
    fill = int(rng.integers(2, cap + 1))  # rows added before the first pick
    for step in range(steps):
        n = len(model)
        if n < cap and (n < 2 or step < fill or rng.random() < 0.5):
            off = base + np.floor(rng.random() * span_frac * dev.capacity_bytes / 4096) * 4096
            if n and rng.random() < 0.15:  # the same address again: equal times
                off = pool[int(rng.integers(0, n)), fh.O_OFF]
            fh.pool_add(pool, done, n, now, off, 4096, bool(rng.random() < 0.5), step, hp)
            model.append((pool[n, :fh.NOP].copy(), step))
            continue
        if rng.random() < 0.3:  # over a candidate's track as its start passes (a snap)
            j = int(rng.integers(0, n))
            head_cyl, head_surf = pool[j, fh.O_CYL], pool[j, fh.O_SURF]
            now = (np.floor(now / rev) + 1 + pool[j, fh.O_ANGLE]) * rev
        pos = hdd_positioning_s(head_cyl, head_surf, now, pool[:n, fh.O_CYL],
                                pool[:n, fh.O_SURF], pool[:n, fh.O_ANGLE],
                                pool[:n, fh.O_WRITE] * dev.write_settle_s, dev.rpm,
                                dev.n_cylinders, t2t, a, b, knee, dev.head_switch_s, table)
        want = int(np.argmin(pos))
        got, key = fh.pool_pick(pool, n, True, now, head_cyl, head_surf, hp, xp, fp)
        assert (got, key) == (want, pos[want])
        att = fh.pool_pop(pool, done, n, got, op)
        assert np.array_equal(op[:fh.NOP], model[got][0]) and att == model[got][1]
        model[got] = model[-1]
        model.pop()
        assert all(np.array_equal(pool[i, :fh.NOP], model[i][0]) and done[i] == model[i][1]
                   for i in range(n - 1))
        _check_buckets(pool, n - 1)
        head_cyl, head_surf = op[fh.O_CYL], op[fh.O_SURF]
        now += key + op[fh.O_XFER] + rng.random() * 1e-3
    _check_buckets(pool, len(model))

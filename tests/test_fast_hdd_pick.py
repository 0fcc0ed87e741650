"""The fast engine's SPTF pick skips candidates by cheap bounds; it must still choose exactly
what the reference's ``numpy.argmin`` over every candidate's positioning time chooses (the first
of equals), with the same time, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from iosim import presets
from iosim.devices.hdd import hdd_positioning_s
from iosim.engine import fast_hdd as fh


def _devices():
    yield "e8 member (fitted curve)", presets.load("raid0-12x-hdd-wbc")[0].device.member
    yield "hdd-7200", presets.load("hdd-7200")[0].device
    yield "atlas 10k (measured table)", presets.load("hdd-atlas10k")[0].device


@pytest.mark.parametrize("name,dev", list(_devices()), ids=lambda x: x if isinstance(x, str)
                         else "")
@pytest.mark.parametrize("span_frac", [1e-5, 0.0083, 1.0])
def test_sptf_pick_is_the_references_first_minimum(name, dev, span_frac):
    hp, xp, fp = fh.hdd_params(dev)
    table = dev.seek_table()
    t2t, a, b, knee = dev.seek_params()
    cap = dev.capacity_bytes
    rng = np.random.default_rng(12)
    pool = np.zeros((256, fh.NO))
    done = np.zeros(256, np.int64)
    ties = 0
    for _ in range(400):
        n = int(rng.integers(2, 201))
        base = np.floor(rng.random() * (1 - span_frac) * cap / 4096) * 4096
        for k in range(n):
            off = base + np.floor(rng.random() * span_frac * cap / 4096) * 4096
            if k and rng.random() < 0.15:  # the same address again: equal times
                off = pool[int(rng.integers(0, k)), fh.O_OFF]
            fh.pool_add(pool, done, k, 0.0, off, 4096, bool(rng.random() < 0.5), -1, hp)
        # a clock from the start of a run to days into it
        now = rng.random() * 10.0 ** rng.integers(0, 6)
        head = base + np.floor(rng.random() * span_frac * cap / 4096) * 4096
        if rng.random() < 0.5:  # over a candidate's track as its start passes: the wait is a
            j = int(rng.integers(0, n))  # rounding from 0 or a whole turn, which snaps to 0
            head = pool[j, fh.O_OFF]
            rev = 60.0 / dev.rpm
            now = (np.floor(now / rev) + pool[j, fh.O_ANGLE]) * rev
        head_cyl, head_surf, _ = fh.hdd_locate(head, hp)
        pos = hdd_positioning_s(head_cyl, head_surf, now, pool[:n, fh.O_CYL],
                                pool[:n, fh.O_SURF], pool[:n, fh.O_ANGLE],
                                pool[:n, fh.O_WRITE] * dev.write_settle_s, dev.rpm,
                                dev.n_cylinders, t2t, a, b, knee, dev.head_switch_s, table)
        want = int(np.argmin(pos))
        ties += int(np.sum(pos == pos[want]) > 1)
        got, key = fh.pool_pick(pool, n, True, now, head_cyl, head_surf, hp, xp, fp)
        assert (got, key) == (want, pos[want])
    assert ties > 0  # equal times were met, so the first-of-equals rule was exercised

"""The fast engine's statistics: the Recorder's time averages, histograms and batch means over
arrays, as small numba functions the kernel's closures inline.

The arrays (all ownerless views in the kernel, see :mod:`iosim.engine.fast_core`):

* ``lv`` (levels x 4): per level its ``TimeAvg`` fields t_last, t0, area, busy; ``lvl``: each
  level's current value, and in its last slot the length ``TimeAvg``'s host histogram would
  have grown to; ``qdh``: the time spent at each host queue depth.
* ``hist`` (histograms x buckets), ``hn`` (counts), ``hf`` (histograms x 3: total, min, max):
  ``LogHist``.
* ``b_sums``, ``b_counts``, ``b_tend``, ``b_hist``: ``Batches`` (batch means of the latency).

Each function does what the reference's ``Recorder`` does, in the same floating-point order,
so the figures are equal bit for bit (``tests/test_engine_equivalence.py``).
"""

from __future__ import annotations

from collections import namedtuple

import numba

__all__ = ["level_change", "hist_add", "batch_add", "HOST_LEVEL"]

#: the level whose time at each value is kept (the host queue depth)
HOST_LEVEL = 0


@numba.njit(inline="always")
def level_change(lv, lvl, qdh, i, t, delta):
    """``TimeAvg.change``: level ``i`` moves by ``delta`` at time ``t``."""
    dt = t - lv[i, 0]
    if dt > 0:
        v = lvl[i]
        lv[i, 2] += v * dt
        if v > 0:
            lv[i, 3] += dt
        if i == HOST_LEVEL:
            qdh[v] += dt
            last = lvl.shape[0] - 1
            if v >= lvl[last]:  # the length TimeAvg's histogram would have grown to
                lvl[last] = max(v + 1, 2 * lvl[last])
        lv[i, 0] = t
    lvl[i] += delta


@numba.njit(inline="always")
def hist_add(hist, hn, hf, h, v, b):
    """``LogHist.add`` of ``v`` to histogram ``h`` (``b``: the value's bucket)."""
    hist[h, b] += 1
    hn[h] += 1
    hf[h, 0] += v
    if v < hf[h, 1]:
        hf[h, 1] = v
    if v > hf[h, 2]:
        hf[h, 2] = v


@numba.njit(inline="always")
def batch_add(b_sums, b_counts, b_tend, b_hist, k, bsize, lat, b, now):
    """``Batches.add``: the ``k``-th measured latency ``lat`` (bucket ``b``) at time ``now``
    goes to batch ``k // bsize`` (the last batch takes the rest)."""
    nbatch = b_sums.shape[0]
    j = min(k // bsize, nbatch - 1)
    b_sums[j] += lat
    b_hist[j, b] += 1
    b_counts[j] += 1
    b_tend[j] = now


#: the Recorder's time-averaged levels (per level: t_last, t0, area, busy; the levels; the host
#: queue-depth histogram) and each disk's or member's busy units and whether it is dead
Levels = namedtuple("Levels", ("lv", "lvl", "qdh", "dv_busy", "dv_dead"))

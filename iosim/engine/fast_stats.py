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
import numpy as np

from .fast_core import _U, bucket_of, unmanaged
from .recorder import LogHist

__all__ = ["level_change", "hist_add", "hist_bucket", "batch_add", "HOST_LEVEL", "NBINS",
           "Recording", "new_recording", "recording_start"]

#: the level whose time at each value is kept (the host queue depth)
HOST_LEVEL = 0
#: buckets of a latency histogram (the Recorder's LogHist)
NBINS = LogHist().counts.shape[0]


@numba.njit(inline="always")
def hist_bucket(value_s):
    """recorder.bucket_index, read off the float's bits (fast_core.bucket_of; tested equal)."""
    return bucket_of(value_s, NBINS)


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
            qdh[_U(v)] += dt
            last = lvl.shape[0] - 1
            if v >= lvl[last]:  # the length TimeAvg's histogram would have grown to
                lvl[last] = max(v + 1, 2 * lvl[last])
        lv[i, 0] = t
    lvl[i] += delta


@numba.njit(inline="always")
def hist_add(hist, hn, hf, h, v, b):
    """``LogHist.add`` of ``v`` to histogram ``h`` (``b``: the value's bucket)."""
    hist[h, _U(b)] += 1
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
    j = _U(min(k // bsize, nbatch - 1))
    b_sums[j] += lat
    b_hist[j, _U(b)] += 1
    b_counts[j] += 1
    b_tend[j] = now


#: the Recorder's time-averaged levels (per level: t_last, t0, area, busy; the levels; the host
#: queue-depth histogram) and each disk's or member's busy units and whether it is dead
Levels = namedtuple("Levels", ("lv", "lvl", "qdh", "dv_busy", "dv_dead"))


#: the Recorder's figures as arrays (see the module's docstring): the levels, the histograms,
#: the batch means; ``cnt`` (measured completions per kind), ``cf`` (measured bytes: all, at the
#: block layer) and ``tot`` (run counters, never reset: issued, completed, the status ...)
Recording = namedtuple("Recording", (
    "lv", "lvl", "qdh", "hist", "hn", "hf", "b_sums", "b_counts", "b_tend", "b_hist", "cnt", "cf",
    "tot"))


@numba.njit(inline="always")
def new_recording(nbins, nbatch, depths, keep):
    """An empty :data:`Recording` of five levels and five histograms of ``nbins`` buckets,
    ``nbatch`` batches and a host queue-depth histogram of ``depths`` entries (views kept alive
    by ``keep``, :func:`fast_core.unmanaged`)."""
    lvl = unmanaged(np.zeros(6, np.int64), keep)  # the levels; [5]: TimeAvg's histogram length
    lvl[5] = 64
    hf = unmanaged(np.zeros((5, 3)), keep)  # per histogram: total, min, max
    hf[:, 1] = np.inf
    return Recording(unmanaged(np.zeros((5, 4)), keep), lvl,  # lv: t_last, t0, area, busy
                     unmanaged(np.zeros(depths), keep),  # qdh
                     unmanaged(np.zeros((5, nbins), np.int64), keep),  # hist
                     unmanaged(np.zeros(5, np.int64), keep), hf,  # hn
                     unmanaged(np.zeros(nbatch), keep),  # b_sums
                     unmanaged(np.zeros(nbatch, np.int64), keep),  # b_counts
                     unmanaged(np.zeros(nbatch), keep),  # b_tend
                     unmanaged(np.zeros((nbatch, nbins), np.int32), keep),  # b_hist (sectioning)
                     unmanaged(np.zeros(5, np.int64), keep),  # cnt
                     unmanaged(np.zeros(2), keep),  # cf
                     unmanaged(np.zeros(12, np.int64), keep))  # tot


@numba.njit(inline="always")
def recording_start(rec, t):
    """``Recorder.start``: the statistics cover the window from ``t`` on (the run counters
    ``tot`` go on)."""
    rec.hist[:, :] = 0
    rec.hn[:] = 0
    rec.hf[:, 0] = 0.0
    rec.hf[:, 1] = np.inf
    rec.hf[:, 2] = 0.0
    for i in range(5):
        level_change(rec.lv, rec.lvl, rec.qdh, i, t, 0)
        rec.lv[i, 1] = t
        rec.lv[i, 2] = 0.0
        rec.lv[i, 3] = 0.0
    rec.qdh[:] = 0.0
    rec.b_sums[:] = 0.0
    rec.b_counts[:] = 0
    rec.b_hist[:, :] = 0
    rec.cnt[:] = 0
    rec.cf[:] = 0.0

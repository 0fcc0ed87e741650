"""What every family's steps on the fast engine share: the event-list and resource shorthands
over the typed state (:data:`fast_core.Events`, :data:`fast_stats.Levels`), so a family's step
module (``fast_*_steps.py``) reads like the SimPy model it mirrors.

All are inlined before typing into the kernel (:mod:`iosim.engine.fast`), which is compiled
without SSA renaming: an integer constant a step assigns to a name that takes other values must
be an int64 (``I(...)``), not a literal, or numba types the name as the first constant.
"""

from __future__ import annotations

import numba
import numpy as np

from ..devices.generic import contended_s, generic_service_s
from ..dists import sample_code
from .fast_codes import C_FC, C_FH, C_UC, C_UH, K_RELEASE, KB, L_BUSY
from .fast_core import res_release, ring_push
from .fast_core import schedule as _schedule
from .fast_core import space_give as _space_give
from .fast_core import space_take as _space_take
from .fast_stats import level_change

I = np.int64  # noqa: E741  (an integer that is not a constant to numba's typing)

# the shared physics and sampler, inlined (each is on every I/O's path): a draw of a
# distribution given by its code and two numbers (dists.sample_code); the generic device's hold
# and its stretch by the units busy (devices.generic)
sample = numba.njit(inline="always")(sample_code)
service_s = numba.njit(inline="always")(generic_service_s)
contended = numba.njit(inline="always")(contended_s)


@numba.njit(inline="always")
def push_now(ev, code):
    """An event triggered now (SimPy ``succeed``): runs after everything already due."""
    ring_push(ev.fq, ev.ctl, C_FH, C_FC, code)


@numba.njit(inline="always")
def push_start(ev, code):
    """A process start (SimPy's urgent ``Initialize``): runs before anything else due."""
    ring_push(ev.uq, ev.ctl, C_UH, C_UC, code)


@numba.njit(inline="always")
def release(ev, r):
    """Resource ``r``'s slot is free at once; its waiters are served when the Release event is
    processed."""
    res_release(ev.res, r, ev.fq, ev.ctl, (r << KB) | K_RELEASE)


@numba.njit(inline="always")
def level(lvs, i, t, delta):
    """TimeAvg.change of level ``i``."""
    level_change(lvs.lv, lvs.lvl, lvs.qdh, i, t, delta)


@numba.njit(inline="always")
def unit_busy(lvs, dv, t, delta):
    """Recorder.unit_busy from disk or member ``dv`` (a failed member's: not recorded)."""
    lvs.dv_busy[dv] += delta
    if lvs.dv_dead[dv] == 0:
        level_change(lvs.lv, lvs.lvl, lvs.qdh, L_BUSY, t, delta)


@numba.njit(inline="always")
def space_take(ev, sps, sp, amount, code):
    """FifoSpace.take of space ``sp``: True when taken at once, else the waiter resumes at
    ``code``."""
    return _space_take(sps.sp_free, sps.sp_code, sps.sp_amt, sps.sp_hc, ev.ctl, sp, amount,
                       code)


@numba.njit(inline="always")
def space_give(ev, sps, sp, amount):
    """FifoSpace.give_back: serve space ``sp``'s waiters in order while the room suffices."""
    _space_give(sps.sp_free, sps.sp_code, sps.sp_amt, sps.sp_hc, ev.fq, ev.ctl, sp, amount)


@numba.njit(inline="always")
def schedule(ev, now, delay, code):
    """SimPy ``timeout(delay)``; a delay that does not move the clock is a FIFO event."""
    _schedule(ev.ht, ev.hs, ev.hc, ev.fq, ev.ctl, now, delay, code)

"""The state the fast kernel hands to a family's steps, as typed records, and the short helpers
over it.

A family's step function (``fast_<family>_steps.py``) takes the kernel's state explicitly: the
event list, resources, levels and FIFO spaces as one :class:`Events` record, the requests at
the device as :class:`Requests`, and its own family record. The records are named tuples of the
kernel's ownerless array views (:func:`iosim.engine.fast_core.unmanaged`), so passing one
costs no reference counting; the helpers below are ``fast_core``'s and ``fast_stats``'s
functions over a record, inlined where they are called.

The step functions are inlined into the kernel too (``inline="always"``). Compiled on their own
and called per event, with the records passed by value (numba passes every array of a record
as seven scalars), the HDD ran 3-4x, RAID 5-8x and the SSD 7-14x slower on
``benchmarks/engine.py``'s stacks; inlined, they run as fast as the one-function kernel did.
"""

from __future__ import annotations

from collections import namedtuple

import numba

from .fast_codes import C_FC, C_FH, C_UC, C_UH, K_RELEASE, KB
from .fast_core import res_release, res_request, ring_push
from .fast_core import schedule as _schedule
from .fast_core import space_give as _space_give
from .fast_core import space_take as _space_take
from .fast_stats import level_change

__all__ = ["Events", "Requests", "fpush", "upush", "schedule", "request", "release", "level",
           "space_take", "space_give"]

#: the event list (heap ht/hs/hc, rings fq and uq, counters ctl), the resources (table res,
#: waiter rings rq), the levels (lv, lvl, qdh), the counters kept (tot) and the FIFO spaces
#: (sp_free, sp_code, sp_amt, sp_hc)
Events = namedtuple("Events", [
    "ht", "hs", "hc", "fq", "uq", "ctl", "res", "rq", "lv", "lvl", "qdh", "tot",
    "sp_free", "sp_code", "sp_amt", "sp_hc"])
#: the requests at the device: an attempt's address (rq_off[at_req[x]]), size and direction;
#: a RAID member I/O's member, address, size and direction (mi_*)
Requests = namedtuple("Requests", [
    "rq_off", "at_req", "at_size", "at_read", "mi_dev", "mi_off", "mi_size", "mi_read"])


@numba.njit(inline="always")
def fpush(ev, code):
    """An event triggered now (SimPy ``succeed``): runs after everything already due."""
    ring_push(ev.fq, ev.ctl, C_FH, C_FC, code)


@numba.njit(inline="always")
def upush(ev, code):
    """A process start (SimPy's urgent ``Initialize``): runs before anything else due."""
    ring_push(ev.uq, ev.ctl, C_UH, C_UC, code)


@numba.njit(inline="always")
def schedule(ev, now, delay, code):
    """SimPy ``timeout(delay)``."""
    _schedule(ev.ht, ev.hs, ev.hc, ev.fq, ev.ctl, now, delay, code)


@numba.njit(inline="always")
def request(ev, r, code):
    """SimPy ``Resource.request()``."""
    res_request(ev.res, ev.rq, r, code, ev.fq, ev.ctl)


@numba.njit(inline="always")
def release(ev, r):
    """The slot is free at once; waiters are served when the Release event is processed."""
    res_release(ev.res, r, ev.fq, ev.ctl, (r << KB) | K_RELEASE)


@numba.njit(inline="always")
def level(ev, i, t, delta):
    """TimeAvg.change of level ``i``."""
    level_change(ev.lv, ev.lvl, ev.qdh, i, t, delta)


@numba.njit(inline="always")
def space_take(ev, sp, amount, code):
    """FifoSpace.take: True when taken at once, else the waiter resumes at ``code``."""
    return _space_take(ev.sp_free, ev.sp_code, ev.sp_amt, ev.sp_hc, ev.ctl, sp, amount, code)


@numba.njit(inline="always")
def space_give(ev, sp, amount):
    """FifoSpace.give_back: serve the waiters in order while the room suffices."""
    _space_give(ev.sp_free, ev.sp_code, ev.sp_amt, ev.sp_hc, ev.fq, ev.ctl, sp, amount)

"""The fast engine's core: unmanaged array views, the event list and FIFO resources.

Small numba functions the kernel in :mod:`iosim.engine.fast` is built on, each testable on its
own (``tests/test_fast_core.py`` checks their event order against SimPy's):

* :func:`unmanaged` gives a view of an array that numba does not reference count. Arrays that
  the kernel's closures use were reference counted at every inlined closure call (an atomic
  increment and decrement: numba's reference-count pruning does not see through the branches
  that LLVM's optimiser makes of them), which cost about 40 % of a run. A view with no owner
  costs nothing to pass around, so the kernel's state can also go to small functions (this
  module) without that price. The owner stays alive in a list the caller keeps until the end.
  Rules for a caller: make the view right after allocating and initialising the array, then use
  only the view (never read or write the owner again), and copy out of the view what is
  returned.
* The event list: a binary heap of timed events ordered by (time, sequence number), a FIFO ring
  of events triggered now (SimPy ``succeed``) and a ring of process starts (SimPy's urgent
  ``Initialize``). Popped in SimPy's (time, priority, event id) order by :func:`next_event`.
* FIFO resources (SimPy ``Resource``): :func:`res_request` queues a request and grants the head
  waiter if a slot is free; :func:`res_trigger` is what processing a Release event does.

The state is plain arrays (``ctl``: counters and ring heads; ``ht``/``hs``/``hc``: heap times,
sequence numbers, codes; ``fq``, ``uq``: the rings; ``res``: the resource table; ``rq``: the
resources' waiter rings), so the kernel and the tests share them without any object layer.
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np
from numba import types
from numba.core import cgutils
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic

__all__ = [
    "unmanaged", "free_owners", "unmanaged_generator", "unmanaged_list",
    "C_HN", "C_SEQ", "C_UH", "C_UC", "C_FH", "C_FC", "C_OVF", "NCTL",
    "R_CAP", "R_USERS", "R_QBASE", "R_QCAP", "R_QHEAD", "R_QCOUNT", "R_NOWAIT",
    "ring_push", "ring_pop", "heap_push", "heap_pop", "schedule", "next_event",
    "res_table", "res_trigger", "res_request", "res_release", "EMPTY", "bucket_of",
    "space_take", "space_give",
]

# ctl slots (int64 counters shared by the kernel's helpers). The kernel uses more slots after
# these (multipath's host queue, the SSD's idle dies), numbered in iosim.engine.fast.
C_HN, C_SEQ, C_UH, C_UC, C_FH, C_FC = range(6)
C_OVF = 9  # set to 1 when a pool or a ring is full: the run is redone with more room
NCTL = 14
# resource table columns
R_CAP, R_USERS, R_QBASE, R_QCAP, R_QHEAD, R_QCOUNT, R_NOWAIT = range(7)
#: next_event's answer when nothing is left to run
EMPTY = -1


@intrinsic
def _bytes_of(typingctx, arr):
    """``arr``'s buffer as a 1-d uint8 array sharing its owner (C-contiguous arrays only), so
    :func:`_kept` has one signature whatever the kernel's array types (each signature is a
    compile of its own at set-up)."""
    if not isinstance(arr, types.Array) or arr.layout != "C":
        return None
    raw = types.Array(types.uint8, 1, "C")

    def codegen(context, builder, signature, args):
        src = context.make_array(arr)(context, builder, value=args[0])
        dst = context.make_array(raw)(context, builder)
        one = context.get_constant(types.intp, 1)
        context.populate_array(dst, data=builder.bitcast(src.data, dst.data.type),
                               shape=[builder.mul(src.nitems, src.itemsize)], strides=[one],
                               itemsize=one, meminfo=src.meminfo, parent=src.parent)
        return impl_ret_borrowed(context, builder, raw, dst._getvalue())

    return raw(arr), codegen


@intrinsic
def _without_owner(typingctx, arr, raw):
    """``arr`` (its shape and strides) over ``raw``'s data pointer, with no owner: numba's
    reference counting of it is a no-op, which LLVM removes. ``raw`` is :func:`_kept`'s
    answer, a pointer the optimiser cannot see through (measured: the kernel's loop compiles
    better so than with the original pointer)."""
    if not isinstance(arr, types.Array) or not isinstance(raw, types.Array):
        return None
    sig = arr(arr, raw)

    def codegen(context, builder, signature, args):
        src = context.make_array(arr)(context, builder, value=args[0])
        mem = context.make_array(raw)(context, builder, value=args[1])
        dst = context.make_array(arr)(context, builder)
        dst.meminfo = cgutils.get_null_value(dst.meminfo.type)
        dst.parent = cgutils.get_null_value(dst.parent.type)
        dst.nitems = src.nitems
        dst.itemsize = src.itemsize
        dst.data = builder.bitcast(mem.data, src.data.type)
        dst.shape = src.shape
        dst.strides = src.strides
        return dst._getvalue()

    return sig, codegen


@numba.njit(cache=True)
def _kept(raw, keep):
    """``raw`` (an array's bytes), with a reference to it in ``keep``. Not inlined: the
    optimiser sees the returned data pointer as opaque, which (measured) compiles the kernel's
    loop better."""
    keep.append(raw)
    return raw


@numba.njit(inline="always")
def unmanaged(a, keep):
    """``a`` with no reference count (the compiled code has no reference-count operations on
    it at all); ``keep`` (a list of uint8 arrays the caller holds until it is done with the
    view) keeps ``a`` alive."""
    return _without_owner(a, _kept(_bytes_of(a), keep))


@numba.njit(inline="always")
def free_list(n, keep):
    """A pool of ``n``'s free list (a view kept alive by ``keep``): every index, the last
    handed out first, so index 0 is taken first."""
    return unmanaged(np.arange(n - 1, -1, -1).astype(np.int64), keep)


@numba.njit(inline="always")
def free_owners(keep):
    """The end of the views made with ``keep``: their owners are freed here. (Popped one by
    one: numba 0.68's ``list.clear()`` does not release the items, which leaked every run's
    arrays.)"""
    while len(keep) > 0:
        keep.pop()


def _without_meminfo(ty):
    """Code that returns a value of the struct type ``ty`` with its meminfo (its reference
    count) null and every other field as it was."""

    def codegen(context, builder, signature, args):
        obj = cgutils.create_struct_proxy(ty)(context, builder, value=args[0])
        obj.meminfo = cgutils.get_null_value(obj.meminfo.type)
        return obj._getvalue()

    return codegen


@intrinsic
def unmanaged_generator(typingctx, gen):
    """The NumPy generator ``gen`` with no reference count (as :func:`unmanaged`; the caller's
    argument keeps the generator alive): drawing through it costs no atomic operations."""
    if not isinstance(gen, types.NumPyRandomGeneratorType):
        return None
    return gen(gen), _without_meminfo(gen)


@intrinsic
def unmanaged_list(typingctx, lst):
    """The typed list ``lst`` with no reference count (as :func:`unmanaged`; the caller's
    argument keeps the list alive): passing it to an inlined step costs no atomic operations.
    (Its items are still counted when taken out, as from any typed list.)"""
    if not isinstance(lst, types.ListType):
        return None
    return lst(lst), _without_meminfo(lst)


@intrinsic
def _float_bits(typingctx, value):
    """The IEEE 754 bits of a float64, as an int64."""
    if not isinstance(value, types.Float) or value.bitwidth != 64:
        return None
    sig = types.int64(value)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.int64))

    return sig, codegen


@numba.njit(inline="always")
def bucket_of(value_s, nbins):
    """:func:`iosim.engine.recorder.bucket_index` (64 sub-buckets per power of two of the value
    in ns) read off the float's bits instead of ``math.frexp`` (a C call): for v >= 1, frexp's
    exponent is the biased exponent - 1022 and ``int((2m - 1) * 64)`` is the top six bits of
    the mantissa, both exact. Equal to ``bucket_index`` on every finite value (tested)."""
    v = value_s * 1e9
    if v < 1.0:
        return 0
    bits = _float_bits(v)
    idx = (((bits >> 52) & 0x7FF) - 1023) * 64 + ((bits >> 46) & 63)
    return min(idx, nbins - 1)


#: the event list's index type: unsigned, so numba adds no negative-index wraparound
_U = np.uint64


# -- the event list -----------------------------------------------------------------------------

@numba.njit(inline="always")
def ring_push(q, ctl, head, count, code):
    """Append ``code`` to the ring ``q`` whose head and length are ``ctl[head]``, ``ctl[count]``
    (a full ring sets ``ctl[C_OVF]`` and drops the code: the run is redone with more room)."""
    n = ctl[count]
    cap = q.shape[0]
    if n >= cap:
        ctl[C_OVF] = 1
    else:
        i = _U(ctl[head] + n)
        if i >= _U(cap):
            i -= _U(cap)
        q[i] = code
        ctl[count] = n + 1


@numba.njit(inline="always")
def ring_pop(q, ctl, head, count):
    """Remove and return the ring's first code (the ring must not be empty)."""
    h = ctl[head]
    code = q[_U(h)]
    h += 1
    if h >= q.shape[0]:
        h = 0
    ctl[head] = h
    ctl[count] -= 1
    return code


@numba.njit(inline="always")
def heap_push(ht, hs, hc, ctl, t, code):
    """Schedule ``code`` at time ``t``: after every event already scheduled at ``t``. (Indices
    are unsigned: numba adds no negative-index wraparound to each access.)"""
    n = ctl[C_HN]
    if n >= ht.shape[0]:
        ctl[C_OVF] = 1
        return
    seq = ctl[C_SEQ]
    ctl[C_SEQ] = seq + 1
    i = _U(n)
    while i > _U(0):
        p = (i - _U(1)) >> _U(1)
        tp = ht[p]
        if tp < t or (tp == t and hs[p] < seq):
            break
        ht[i] = tp
        hs[i] = hs[p]
        hc[i] = hc[p]
        i = p
    ht[i] = t
    hs[i] = seq
    hc[i] = code
    ctl[C_HN] = n + 1


@numba.njit(inline="always")
def heap_pop(ht, hs, hc, ctl):
    """Remove and return the code of the earliest event (ties: the first scheduled)."""
    code = hc[0]
    n = ctl[C_HN] - 1
    ctl[C_HN] = n
    if n > 0:
        m = _U(n)
        t = ht[m]
        s = hs[m]
        c = hc[m]
        i = _U(0)
        while True:
            left = i + i + _U(1)
            if left >= m:
                break
            right = left + _U(1)
            j = left
            if right < m:  # the earlier child, chosen without a branch (its outcome is random)
                tl = ht[left]
                tr = ht[right]
                j = left + _U((tr < tl) | ((tr == tl) & (hs[right] < hs[left])))
            tj = ht[j]
            sj = hs[j]
            if tj < t or (tj == t and sj < s):
                ht[i] = tj
                hs[i] = sj
                hc[i] = hc[j]
                i = j
            else:
                break
        ht[i] = t
        hs[i] = s
        hc[i] = c
    return code


@numba.njit(inline="always")
def schedule(ht, hs, hc, fq, ctl, now, delay, code):
    """SimPy ``timeout(delay)``: a delay that does not move the clock is an event triggered
    now (FIFO), else a timed event."""
    t = now + delay
    if t == now:
        ring_push(fq, ctl, C_FH, C_FC, code)
    else:
        heap_push(ht, hs, hc, ctl, t, code)


@numba.njit(inline="always")
def next_event(ht, hs, hc, uq, fq, ctl, now):
    """The next event in SimPy's order, as (time, code): process starts due now, timed events
    due now (scheduled earlier), events triggered now (in trigger order), then the clock moves
    on to the earliest timed event. ``(now, EMPTY)`` when nothing is left. (The kernel's loop
    writes this choice out inline with ``ring_pop`` and ``heap_pop``: calling a function that
    returns the pair measured 30 % slower there.)"""
    if ctl[C_UC] > 0:
        return now, ring_pop(uq, ctl, C_UH, C_UC)
    if ctl[C_HN] > 0 and (ht[0] == now or ctl[C_FC] == 0):
        t = ht[0]
        return t, heap_pop(ht, hs, hc, ctl)
    if ctl[C_FC] > 0:
        return now, ring_pop(fq, ctl, C_FH, C_FC)
    return now, EMPTY


# -- FIFO resources -----------------------------------------------------------------------------

@numba.njit(cache=True)
def res_table(caps, qcaps):
    """The resource table for resources with ``caps`` slots and room for ``qcaps`` waiters
    each, and the waiter rings' storage (an int64 array of the summed room)."""
    n = caps.shape[0]
    res = np.zeros((n, 7), np.int64)
    base = 0
    for r in range(n):
        res[r, R_CAP] = caps[r]
        res[r, R_QCAP] = qcaps[r]
        res[r, R_QBASE] = base
        base += qcaps[r]
    return res, np.empty(max(1, base), np.int64)


@numba.njit(inline="always")
def res_trigger(res, rq, r, fq, ctl):
    """Grant the head waiter of resource ``r`` if a slot is free: its code is triggered now.
    SimPy's ``Resource._do_put`` returns None, so one trigger serves at most the head."""
    ru = _U(r)
    if res[ru, R_QCOUNT] > 0 and res[ru, R_USERS] < res[ru, R_CAP]:
        h = res[ru, R_QHEAD]
        code = rq[_U(res[ru, R_QBASE] + h)]
        h += 1
        if h >= res[ru, R_QCAP]:
            h = 0
        res[ru, R_QHEAD] = h
        res[ru, R_QCOUNT] -= 1
        res[ru, R_USERS] += 1
        ring_push(fq, ctl, C_FH, C_FC, code)


@numba.njit(inline="always")
def res_request(res, rq, r, code, fq, ctl):
    """SimPy ``Resource.request()``: join the FIFO of waiters, then serve the head if a slot is
    free (the grant is an event triggered now, resuming ``code``)."""
    ru = _U(r)
    n = res[ru, R_QCOUNT]
    if n >= res[ru, R_QCAP]:
        ctl[C_OVF] = 1
        return
    i = res[ru, R_QHEAD] + n
    if i >= res[ru, R_QCAP]:
        i -= res[ru, R_QCAP]
    rq[_U(res[ru, R_QBASE] + i)] = code
    res[ru, R_QCOUNT] = n + 1
    res_trigger(res, rq, r, fq, ctl)


@numba.njit(inline="always")
def res_release(res, r, fq, ctl, release_code):
    """Give a slot of resource ``r`` back: free at once; its waiters are served when the
    Release event (``release_code``, triggered now) is processed. A resource that can never
    have a waiter (``R_NOWAIT``) has inert Release events, which are left out."""
    ru = _U(r)
    res[ru, R_USERS] -= 1
    if res[ru, R_NOWAIT] == 0:
        ring_push(fq, ctl, C_FH, C_FC, release_code)


# -- FIFO spaces (SsdModel's FifoSpace: a buffer of room taken and given back in amounts) ----------

@numba.njit(inline="always")
def space_take(sp_free, sp_code, sp_amt, sp_hc, ctl, sp, amount, code):
    """``FifoSpace.take`` of ``amount`` from space ``sp``: True when taken at once (room and
    nobody waiting), else the taker waits in FIFO order and resumes at ``code`` when served.
    ``sp_free[sp]``: the room; ``sp_code``/``sp_amt`` (spaces x waiters): the waiters' codes
    and amounts; ``sp_hc[sp]``: the waiters' head and count."""
    su = _U(sp)
    spcap = sp_code.shape[1]
    n = sp_hc[su, 1]
    if sp_free[su] >= amount and n == 0:
        sp_free[su] -= amount
        return True
    if n >= spcap:
        ctl[C_OVF] = 1
        return False
    i = sp_hc[su, 0] + n
    if i >= spcap:
        i -= spcap
    sp_code[su, _U(i)] = code
    sp_amt[su, _U(i)] = amount
    sp_hc[su, 1] = n + 1
    return False


@numba.njit(inline="always")
def space_give(sp_free, sp_code, sp_amt, sp_hc, fq, ctl, sp, amount):
    """``FifoSpace.give_back``: the room returns; the waiters are served in order while it
    suffices (each resumes by an event triggered now)."""
    su = _U(sp)
    spcap = sp_code.shape[1]
    sp_free[su] += amount
    while sp_hc[su, 1] > 0:
        h = sp_hc[su, 0]
        if sp_amt[su, _U(h)] > sp_free[su]:
            break
        sp_free[su] -= sp_amt[su, _U(h)]
        ring_push(fq, ctl, C_FH, C_FC, sp_code[su, _U(h)])
        h += 1
        if h >= spcap:
            h = 0
        sp_hc[su, 0] = h
        sp_hc[su, 1] -= 1


#: the event list (heap, urgent and now rings, control counters) and the resources (their table
#: and wait queues), for the families' steps
Events = namedtuple("Events", ("ht", "hs", "hc", "uq", "fq", "ctl", "res", "rq"))
#: what an I/O step is about: a block request's address; an attempt's request, size and
#: direction; a RAID member I/O's member, address, size and direction
Owners = namedtuple("Owners", (
    "rq_off", "at_req", "at_size", "at_read", "mi_dev", "mi_off", "mi_size", "mi_read"))
#: the FifoSpaces (the SSD's buffers, the RAID controllers' and the array's caches): per space
#: its room, its waiters' codes and amounts (spaces x waiters), their ring's head and count
Spaces = namedtuple("Spaces", ("sp_free", "sp_code", "sp_amt", "sp_hc"))

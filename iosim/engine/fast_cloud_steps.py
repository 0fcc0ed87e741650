"""The cloud volume's token buckets on the fast engine: ``CloudModel.serve``'s tokens over typed
state, for a lone volume and for each member volume of a RAID set (its own rows of the buckets).

The decisions (what a request costs a bucket, how long it waits for its tokens) are
:mod:`iosim.devices.cloud`'s functions; what is here is the walk over a volume's buckets.
"""

from __future__ import annotations

from collections import namedtuple

import numba

from ..devices.cloud import bucket_cost as _bucket_cost
from ..devices.cloud import bucket_take as _bucket_take
from ..devices.cloud import io_units as _io_units
from .fast_codes import F_IO_UNIT, F_R_BW, F_R_IOPS, F_W_BW, F_W_IOPS

bucket_cost = numba.njit(_bucket_cost)
bucket_take = numba.njit(_bucket_take)
io_units = numba.njit(_io_units)

#: the token buckets (per row: rate, capacity, cost code, tokens, t_last; a volume's rows, or
#: each RAID member volume's), and the float parameters (the limits a cost divides by, the I/O
#: unit)
CloudState = namedtuple("CloudState", ("buckets", "fp"))


@numba.njit(inline="always")
def cloud_cost(cs, what, size, is_read):
    """CloudModel._cost: what a request pays a bucket (devices.cloud.bucket_cost)."""
    fp = cs.fp
    return bucket_cost(what, size, is_read, io_units(size, fp[F_IO_UNIT]), fp[F_R_IOPS],
                       fp[F_W_IOPS], fp[F_R_BW], fp[F_W_BW])


@numba.njit(inline="always")
def cloud_take(cs, first, count, size, is_read, t):
    """CloudModel.serve's tokens: the request pays each of the ``count`` buckets from row
    ``first`` (the volume's, or a RAID member volume's) at ``t``; the longest wait."""
    buckets = cs.buckets
    wait = 0.0
    for bi in range(first, first + count):
        cost = cloud_cost(cs, int(buckets[bi, 2]), size, is_read)
        if cost == 0.0:
            continue
        tokens, w = bucket_take(buckets[bi, 3], buckets[bi, 4], t, buckets[bi, 0],
                                buckets[bi, 1], cost)
        buckets[bi, 3] = tokens
        buckets[bi, 4] = t
        wait = max(wait, w)
    return wait

"""The spanning protocol: fit a sweep on three of its points and predict the others.

A measured sweep varies one thing (the depth, the jobs, the block size, the read share, or an
open loop's arrival rate). The protocol of ``iosim validate`` (and of issue 13's "how we will
know") trains a model on the lowest value, the one nearest the middle (geometric for depths,
jobs, sizes and rates; arithmetic for a read share) and the highest, and holds every other
value out as a prediction: interpolation between measured points, which is how a fitted stack
is used for what-if. ``iosim fit FILES --spanning`` runs it on any sweep
(:func:`spanning_split`), each workload of a mixed set on its own.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..spec import SpecError

__all__ = ["spanning_depths", "spanning_values", "swept_key", "spanning_holdout",
           "spanning_split"]

#: what a sweep may vary, in the order that decides when several vary: an open loop's rate,
#: the block size (a size sweep may repeat at a few depths), the read share, the jobs, the depth
SWEPT = ("rate_iops", "bs", "rwmixread", "numjobs", "iodepth")

_WHAT = {"rate_iops": "arrival rates", "bs": "block sizes", "rwmixread": "read shares",
         "numjobs": "job counts", "iodepth": "depths"}


def spanning_depths(depths: Sequence[int]) -> list[int]:
    """The lowest depth, the one nearest the geometric middle of lowest and highest (the higher
    on a tie), and the highest."""
    ds = sorted(set(int(d) for d in depths))
    if len(ds) <= 3:
        return ds
    lo, hi = ds[0], ds[-1]
    mid_log = 0.5 * (math.log(lo) + math.log(hi))
    inner = ds[1:-1]
    mid = min(inner, key=lambda d: (round(abs(math.log(d) - mid_log), 9), -d))
    return [lo, mid, hi]


def spanning_values(values: Sequence[float], x: str = "") -> list[float]:
    """The training values of a sweep of ``x``: :func:`spanning_depths` for depths and block
    sizes (geometric middle); for a read share the lowest, the one nearest the arithmetic
    middle and the highest."""
    vs = sorted({float(v) for v in values})
    if len(vs) <= 3:
        return vs
    if x == "rwmixread" or vs[0] <= 0:  # a share (0 % reads has no logarithm): arithmetic
        mid = min(vs[1:-1], key=lambda v: (abs(v - (vs[0] + vs[-1]) / 2), -v))
    else:  # as spanning_depths, on values that need not be whole (a rate of 333.3/s)
        mid_log = 0.5 * (math.log(vs[0]) + math.log(vs[-1]))
        mid = min(vs[1:-1], key=lambda v: (round(abs(math.log(v) - mid_log), 9), -v))
    return [vs[0], mid, vs[-1]]


def _value(params: dict, key: str) -> float | None:
    """The point's value of a swept ``key`` (as ``iosim validate`` reads it), None if absent."""
    if key == "bs":
        v = params.get("block_size_bytes")
    elif key == "rwmixread":
        v = params.get("rwmixread", 100.0)
    elif key in ("numjobs", "iodepth"):
        v = params.get(key, 1)
    else:
        v = params.get(key)
    try:
        return None if v is None else float(v)
    except (TypeError, ValueError):
        return None


def swept_key(points: Sequence) -> str:
    """What the sweep varies: of the keys of :data:`SWEPT` with more than one value among the
    points (``Results``), the one with the most values, the first in :data:`SWEPT` on a tie (a
    grid of 7 depths at 2 job counts spans its depths; a size sweep at two depths its sizes)."""
    counts = []
    for key in SWEPT:
        vals = {_value(p.params or {}, key) for p in points}
        vals.discard(None)
        counts.append(len(vals))
    best = max(counts)
    if best > 1:
        return SWEPT[counts.index(best)]
    raise SpecError("fit --spanning: the points do not vary the depth, the jobs, the block "
                    "size, the read share or the arrival rate: there is no sweep to span")


def _values_text(key: str, values: Sequence[float]) -> str:
    def text(v: float) -> str:
        if key == "bs":  # as --holdout bs= takes it: 4k, 1m
            for unit, mult in (("g", 2**30), ("m", 2**20), ("k", 1024)):
                if v >= mult and v % mult == 0:
                    return f"{int(v // mult)}{unit}"
        return f"{v:g}"

    return ", ".join(text(v) for v in values)


def _too_few(key: str, values: Sequence[float], where: str = "") -> SpecError:
    return SpecError(f"fit --spanning: the sweep{where} has {len(values)} {_WHAT[key]} "
                     f"({_values_text(key, values)}); the protocol trains on three and "
                     "predicts the rest, so it needs four or more")


def spanning_holdout(curve) -> tuple[str, list[float], list[float]]:
    """(swept key, its training values, its held-out values) for ``curve`` (a ``Curve`` or a
    list of ``Results``) taken as one sweep: the spanning protocol's split. A sweep of three
    values or fewer has nothing left to predict: one clear error."""
    points = list(curve.points if hasattr(curve, "points") else curve)
    key = swept_key(points)
    values = sorted({v for p in points if (v := _value(p.params or {}, key)) is not None})
    if len(values) < 4:
        raise _too_few(key, values)
    train = spanning_values(values, key)
    held = [v for v in values if v not in train]
    return key, train, held


def _workload_of(params: dict, key: str) -> tuple:
    """What a point's workload is besides the swept ``key``: its rw and the other keys."""
    return (str(params.get("rw", "")),
            *(_value(params, k) for k in SWEPT if k != key))


def _label(params: dict, key: str, varied: list[str]) -> str:
    parts = [str(params.get("rw", "")) or "points"]
    parts += [f"{k} {_values_text(k, [_value(params, k)])}" for k in varied]
    return " ".join(parts)


def spanning_split(curve) -> tuple[dict, str]:
    """The ``holdout`` mapping of the spanning protocol for ``curve``, and one line saying it.
    Points of several workloads (reads and writes, or another job count: all but the swept
    key) are each their own sweep, split at its own lowest, middle and highest value (a
    workload measured at other depths than the rest is not trained on the others' depths);
    a workload of three values or fewer is all trained."""
    points = list(curve.points if hasattr(curve, "points") else curve)
    key = swept_key(points)
    groups: dict[tuple, list[int]] = {}
    for i, p in enumerate(points):
        groups.setdefault(_workload_of(p.params or {}, key), []).append(i)
    splits = {}
    for g, idx in groups.items():
        values = sorted({v for i in idx if (v := _value(points[i].params or {}, key))
                         is not None})
        train = spanning_values(values, key) if len(values) >= 4 else values
        splits[g] = (train, [v for v in values if v not in train])
    if not any(held for _, held in splits.values()):
        values = sorted({v for p in points if (v := _value(p.params or {}, key)) is not None})
        raise _too_few(key, values, "" if len(groups) == 1 else " of each workload")
    middle = "the one nearest the middle" if key == "rwmixread" else \
        "the one nearest the geometric middle"
    if len({tuple(t) for t, _ in splits.values()}) == 1:  # one split for all: by value
        train = next(iter(splits.values()))[0]
        held = sorted({v for _, h in splits.values() for v in h})
        return {key: held}, (f"spanning protocol: fitted on {key} {_values_text(key, train)} "
                             f"(the lowest, {middle}, the highest); predicting {key} "
                             f"{_values_text(key, held)}")
    varied = [k for k in SWEPT if k != key and
              len({_value(p.params or {}, k) for p in points}) > 1]
    held_idx, said = [], []
    for g, idx in groups.items():
        train, held = splits[g]
        held_idx += [i for i in idx if _value(points[i].params or {}, key) in held]
        what = _label(points[idx[0]].params or {}, key, varied)
        said.append(f"{what}: {key} {_values_text(key, train)}"
                    + (f", predicting {_values_text(key, held)}" if held else
                       " (all fitted: three or fewer)"))
    return {"_index": sorted(held_idx)}, (
        f"spanning protocol, each workload on its own (the lowest, {middle}, the highest "
        f"fitted): {'; '.join(said)}")

"""A fit's parameter values set on a base stack (the family's service fields, units, links,
caps, a disk's seek curve)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..dists import Deterministic, Distribution, Exponential, LogNormal, Quantiles
from ..stack import Stack, apply_overrides
from .catalogue import SERVICE_PARAMS, service_means


def _set_dist(base: Distribution, mean: float, scv: float | None) -> Distribution:
    if scv is not None:
        return LogNormal(mean, scv)
    if mean <= 0:
        return Deterministic(0.0)
    if isinstance(base, Deterministic) or base.mean_s <= 0:
        return Deterministic(mean) if isinstance(base, Deterministic) else Exponential(mean)
    return base.scaled(mean / base.mean_s)


def _disk(base: Stack):
    """The disk whose seek curve a fit scales and its dotted prefix: the device, or a RAID's
    member disk."""
    member = getattr(base.device, "member", None)
    return (member, "device.member") if member is not None else (base.device, "device")


def _build_stack(base: Stack, values: Mapping[str, float]) -> Stack:
    over: dict[str, Any] = {}
    scv = values.get("device.service.scv")
    if scv is not None or any(k in values for k in SERVICE_PARAMS):
        # the family's service-time fields: their means set, one scv shaping them all
        for f, mean in service_means(base.device, values).items():
            over[f"device.{f}"] = _set_dist(getattr(base.device, f), mean, scv)
    if "host.overhead" in values:
        v = values["host.overhead"]
        ov = base.host.overhead
        over["host.overhead"] = (
            Deterministic(v) if ov.mean_s <= 0 or v <= 0 else ov.scaled(v / ov.mean_s)
        )
    for k in ("device.units", "hba.queue_depth", "host.cpus"):
        if k in values:
            over[k] = int(round(values[k]))
    for k in ("link.latency_s", "link.bandwidth_Bps", "device.controller_overhead_s",
              "device.host_interface_Bps"):
        if k in values:
            over[k] = float(values[k])
    if "device.dies" in values:  # one die per channel: the channels never add a wait
        over["device.channels"] = int(round(values["device.dies"]))
        over["device.dies_per_channel"] = 1
    if "device.latency_s" in values:
        over["device.latency"] = _set_dist(base.device.latency, values["device.latency_s"], None)
    for k in ("device.iops_limit", "device.read_iops_limit", "device.write_iops_limit"):
        if k in values:
            over[k] = float(values[k])
    if "device.avg_seek_s" in values:  # the seek curve keeps its shape (a RAID's members')
        disk, at = _disk(base)
        k = values["device.avg_seek_s"] / disk.avg_seek_s
        for key in ("avg_seek_s", "track_to_track_s", "full_stroke_s"):
            over[f"{at}.{key}"] = getattr(disk, key) * k
    stack, _ = apply_overrides(base, None, over)
    return stack


def _shaped(stack: Stack, measured_shape) -> Stack:
    """The stack with the generic device's service shaped like the measured percentiles
    (``shape="measured"``), scaled to its fitted mean; unchanged without a shape."""
    if measured_shape is None:
        return stack
    k = stack.device.service.mean_s / measured_shape.mean_s
    # four figures: the percentiles are rounded already
    service = Quantiles.of((p, float(f"{t * k:.4g}")) for p, t in measured_shape.points)
    return stack.with_(**{"device.service": service})

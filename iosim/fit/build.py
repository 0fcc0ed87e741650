"""A fit's parameter values set on a base stack: the host, HBA and link parameters and the
family's service-time fields here; the family's own parameters (units, dies, caps, a disk's
seek curve) by its ``fit_overrides`` (``iosim/devices/``)."""

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
    for k in ("hba.queue_depth", "host.cpus"):
        if k in values:
            over[k] = int(round(values[k]))
    for k in ("link.latency_s", "link.bandwidth_Bps"):
        if k in values:
            over[k] = float(values[k])
    over.update(base.device.fit_overrides(values))  # the family's own (devices/)
    stack, _ = apply_overrides(base, None, over)
    return stack


def _shaped(stack: Stack, measured_shape) -> Stack:
    """The stack with each of the device's service-time distributions (the generic device's
    service, an SSD's array read and program) shaped like the measured percentiles
    (``shape="measured"``), each scaled to its fitted mean; unchanged without a shape."""
    if measured_shape is None:
        return stack
    over = {}
    for f in stack.device.service_fields:
        k = getattr(stack.device, f).mean_s / measured_shape.mean_s
        # four figures: the percentiles are rounded already
        over[f"device.{f}"] = Quantiles.of((p, float(f"{t * k:.4g}"))
                                           for p, t in measured_shape.points)
    return stack.with_(**over)

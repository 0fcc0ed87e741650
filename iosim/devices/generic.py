"""The generic device: K identical units behind one FIFO queue.

Each request holds one unit for ``service`` (a distribution) plus ``size / media_rate_Bps``.
With K = 1 it is a single-server queue; with K = 64 and one outstanding request it is the
lesson of experiment E11: always "busy" by iostat's %util, yet 63 units idle.

``contention`` (sigma, 0 by default) makes the units share something each request in service
slows: a request that starts with j units busy (itself included) holds its unit
``1 + sigma (j - 1)`` times its time alone. It is the contention term of Gunther's Universal
Scalability Law (N. J. Gunther, *Guerrilla Capacity Planning*, Springer 2007, ch. 4): with
every request in service, n of them complete at n / (S (1 + sigma (n - 1))) per second, the
rise of K = 1 / sigma dies with random routing, but served in arrival order, so the latency
spread stays the service's own instead of the collisions' (a virtual disk's I/O thread, a
controller's firmware CPU).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from ..dists import Deterministic, Distribution
from ..spec import Spec, fld
from .base import DeviceFamily, FitModel, FitParameter, QueueingView, fit_base, known_quantile_s

__all__ = ["GenericDevice", "MEDIA_RATE", "generic_service_s", "contended_s"]

#: the media transfer rate of one unit, fitted when the sizes of the fitted points differ (a
#: request of ``size`` holds its unit ``size / rate`` longer); the cloud family's back end
#: declares the same field
MEDIA_RATE = FitParameter(
    "device.media_rate_Bps", 1e6, 1e12, True, False, "B/s",
    "transfer rate of one device unit: a request holds its unit size / rate longer than the "
    "base service time (fitted when the block sizes of the fitted points differ)")


def generic_service_s(base_s: float, size_bytes: float, media_rate_Bps: float) -> float:
    """Physics of the generic unit: a sampled base time plus the media transfer."""
    if media_rate_Bps == math.inf:
        return base_s
    return base_s + size_bytes / media_rate_Bps


def contended_s(service_s: float, contention: float, busy: int) -> float:
    """A unit's hold when ``busy`` units serve (itself included): its time alone stretched by
    the contention term, ``1 + contention * (busy - 1)``."""
    if contention == 0.0:
        return service_s
    return service_s * (1.0 + contention * (busy - 1))


@dataclass(frozen=True, kw_only=True)
class GenericDevice(DeviceFamily, Spec):
    section = "device"
    kind: ClassVar[str] = "generic"
    widget_controls: ClassVar[tuple[str, ...]] = ("units",)
    service_fields: ClassVar[tuple[str, ...]] = ("service",)
    fit_parameters: ClassVar[tuple[FitParameter, ...]] = (
        FitParameter("device.service", 1e-7, 1.0, True, False, "s",
                     "mean service time of one device unit (the latency floor of the device)"),
        FitParameter("device.units", 1.0, 4096.0, True, True, "",
                     "parallel units of the device (dies, heads, a cloud pool)"),
        FitParameter("device.service.scv", 0.01, 25.0, True, False, "",
                     "squared coefficient of variation of the service time (fitted to "
                     "percentiles)"),
        FitParameter("device.contention", 1e-4, 1.0, True, False, "",
                     "contention: each request in service stretches the others' time by this "
                     "fraction of their time alone (1 / contention: the parallelism it allows)"),
        MEDIA_RATE,
    )
    fit_models: ClassVar[tuple[FitModel, ...]] = (
        FitModel("generic", "K identical units behind one queue, plus the host overhead",
                 ("host.overhead", "device.service", "device.units"),
                 fit_base({"kind": "generic", "units": 1, "service": "exp:100us"},
                          "fit-generic"),
                 size_params=("device.media_rate_Bps", "link.bandwidth_Bps")),
        FitModel("contention", "every request in service at once, each slowing the others "
                 "(a shared stage: the parallelism rises gradually, the latency spread stays "
                 "the service's own), plus the host overhead",
                 ("host.overhead", "device.service", "device.contention"),
                 fit_base({"kind": "generic", "units": 4096, "service": "exp:100us",
                           "contention": 0.1}, "fit-contention"),
                 {"device.service": (1e-7, 0.01)},
                 polish=True,
                 size_params=("device.media_rate_Bps",)),
    )

    units: int = fld(1, "int")
    service: Distribution = fld(Deterministic(0.00046), "dist")
    media_rate_Bps: float = fld(math.inf, "rate")
    contention: float = fld(0.0, "float")

    def validate(self):
        self.require(self.units >= 1, "units", ">= 1")
        self.require(self.media_rate_Bps > 0, "media_rate_Bps", "> 0 bytes/s")
        self.require(0.0 <= self.contention <= 1.0, "contention",
                     "a fraction 0..1 (each request in service stretches the others' time by it)")

    def mean_service_s(self, size_bytes: float) -> float:
        """Mean time one unit is held by a request of ``size_bytes``."""
        return generic_service_s(self.service.mean_s, size_bytes, self.media_rate_Bps)

    def unit_service_s(
        self, size_bytes: float, *, random: bool = True, span_bytes: float | None = None
    ) -> float | None:
        """A unit's mean hold with every unit busy (the contention at its worst: the capacity
        is ``units`` over it)."""
        loaded = contended_s(self.mean_service_s(size_bytes), self.contention, self.units)
        return loaded if loaded > 0 else None

    def alone_service_s(
        self, size_bytes: float, *, random: bool = True, span_bytes: float | None = None
    ) -> float | None:
        alone = self.mean_service_s(size_bytes)
        return alone if alone > 0 else None

    def service_quantile_s(
        self, q: float, read_fraction: float = 1.0, size_bytes: float = 0.0
    ) -> float | None:
        base = known_quantile_s(self.service, q)
        return None if base is None else generic_service_s(base, size_bytes, self.media_rate_Bps)

    def fit_overrides(self, values, at: str = "device") -> dict:
        over: dict = {}
        if "device.units" in values:
            over[f"{at}.units"] = int(round(values["device.units"]))
        if "device.media_rate_Bps" in values:
            over[f"{at}.media_rate_Bps"] = float(values["device.media_rate_Bps"])
        if "device.contention" in values:
            over[f"{at}.contention"] = float(values["device.contention"])
        return over

    def queueing_view(self) -> QueueingView:
        return QueueingView(service_s=self.service.mean_s, units=float(self.units),
                            media_rate_Bps=self.media_rate_Bps, contention=self.contention)

    def to_dict(self) -> dict:
        return {"kind": self.kind, **super().to_dict()}

"""The cloud block volume: token-bucket caps in front of a parallel back end with a latency floor.

Physics (pure functions):

* Token buckets (:func:`bucket_take`). A bucket holds up to ``capacity`` tokens and gains
  ``rate`` tokens per second. A request takes its cost in tokens; when there are not enough it
  waits until the bucket has refilled that far. Requests take tokens in arrival order (the
  bucket may go into debt, which later requests must wait out), so a bucket lets through
  exactly ``rate`` tokens per second in the long run and at most ``capacity`` more in a burst.
* The caps. IOPS caps count an I/O as ``ceil(size / io_unit_bytes)`` operations (clouds count
  I/Os up to 256 KiB as one); bandwidth caps count bytes. Each kind of cap can be

  - ``iops_limit`` / ``bandwidth_limit_Bps``: one budget for all I/Os;
  - ``read_*`` / ``write_*`` with ``cap_model = "separate"``: one bucket per direction, so a
    read-heavy mix runs reads at the read cap whatever the writes do;
  - ``read_*`` / ``write_*`` with ``cap_model = "shared"``: one budget that both directions
    draw on, a read costing 1 / read_limit of a second of it and a write 1 / write_limit (what
    a back end time-shared by reads and writes looks like).

  Bursts: with ``burst_iops`` > 0 the all-I/O bucket holds ``burst_credits`` and refills at
  ``iops_limit`` (the baseline), while a second bucket caps the rate at ``burst_iops``.
* The back end: ``units`` parallel servers, each request holding one for the latency floor (a
  distribution; ``write_latency`` for writes if given) plus ``size / media_rate_Bps``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from ..dists import Deterministic, Distribution, Exponential
from ..spec import Spec, SpecError, fld
from .base import (
    Caps,
    DeviceFamily,
    FitModel,
    FitParameter,
    QueueingView,
    fit_base,
    known_quantile_s,
    mixed_cap,
)
from .generic import MEDIA_RATE

__all__ = ["CloudDevice", "bucket_take", "bucket_plan", "bucket_cost", "io_units", "COST_CODES"]


def bucket_take(tokens: float, t_last: float, now: float, rate: float, capacity: float,
                cost: float) -> tuple[float, float]:
    """Take ``cost`` tokens at ``now`` from a bucket that held ``tokens`` at ``t_last``.

    Returns (tokens left, possibly negative = debt; wait in seconds until the request may
    go). The bucket refills at ``rate`` up to ``capacity``.
    """
    if math.isinf(rate):
        return tokens, 0.0
    level = min(capacity, tokens + rate * (now - t_last)) - cost
    return level, (-level / rate if level < 0 else 0.0)


def io_units(size_bytes: float, io_unit_bytes: float) -> float:
    """Operations an I/O counts as under an IOPS cap: ceil(size / unit), at least 1."""
    if math.isinf(io_unit_bytes):
        return 1.0
    return float(max(1, math.ceil(size_bytes / io_unit_bytes)))


#: what a request pays a bucket (the "what" of bucket_plan), as the codes bucket_cost takes
COST_CODES = {"ops": 0, "bytes": 1, "read_ops": 2, "write_ops": 3, "read_bytes": 4,
              "write_bytes": 5, "op_share": 6, "byte_share": 7}


def bucket_cost(what: int, size_bytes: float, is_read: bool, ops: float, read_iops: float,
                write_iops: float, read_Bps: float, write_Bps: float) -> float:
    """What a request of ``size_bytes`` counting as ``ops`` operations (:func:`io_units`) pays
    a bucket: ``what`` is a code of :data:`COST_CODES` (operations, bytes, either for one
    direction only, or a share of the direction's limit for a budget that reads and writes
    share). The one definition for both engines (the fast one compiles it)."""
    if what == 0:
        return ops
    if what == 1:
        return size_bytes
    if what == 2:
        return ops if is_read else 0.0
    if what == 3:
        return 0.0 if is_read else ops
    if what == 4:
        return size_bytes if is_read else 0.0
    if what == 5:
        return 0.0 if is_read else size_bytes
    if what == 6:
        return ops / (read_iops if is_read else write_iops)
    return size_bytes / (read_Bps if is_read else write_Bps)


def bucket_plan(spec: CloudDevice) -> list[tuple[str, float, float, str]]:
    """The buckets a volume needs: (name, rate, capacity, what a request pays) where what is
    "ops", "bytes", "read_ops"/"write_ops", "read_bytes"/"write_bytes" (separate caps) or
    "op_share"/"byte_share" (shared budget, rate 1 per second)."""
    out: list[tuple[str, float, float, str]] = []
    depth = spec.bucket_s

    def add(name: str, rate: float, what: str, capacity: float | None = None) -> None:
        if math.isfinite(rate):
            cap = capacity if capacity is not None else max(rate * depth, 1e-12)
            out.append((name, rate, cap, what))

    if spec.burst_iops > 0:
        add("iops", spec.iops_limit, "ops", spec.burst_credits)
        add("burst_iops", spec.burst_iops, "ops")
    else:
        add("iops", spec.iops_limit, "ops")
    add("bandwidth", spec.bandwidth_limit_Bps, "bytes")
    r_iops, w_iops = spec.read_iops_limit, spec.write_iops_limit
    r_bw, w_bw = spec.read_bandwidth_limit_Bps, spec.write_bandwidth_limit_Bps
    if spec.cap_model == "separate":
        add("read_iops", r_iops, "read_ops")
        add("write_iops", w_iops, "write_ops")
        add("read_bandwidth", r_bw, "read_bytes")
        add("write_bandwidth", w_bw, "write_bytes")
    else:
        if math.isfinite(r_iops) or math.isfinite(w_iops):
            add("iops_budget", 1.0, "op_share")
        if math.isfinite(r_bw) or math.isfinite(w_bw):
            add("bandwidth_budget", 1.0, "byte_share")
    return out


@dataclass(frozen=True, kw_only=True)
class CloudDevice(DeviceFamily, Spec):
    """A network block volume. Defaults: an uncapped volume with a 0.5 ms floor."""

    section = "device"
    kind: ClassVar[str] = "cloud"
    widget_controls: ClassVar[tuple[str, ...]] = ("units",)
    fit_parameters: ClassVar[tuple[FitParameter, ...]] = (
        FitParameter("device.latency_s", 1e-6, 0.1, True, False, "s",
                     "a cloud volume's latency floor (network and back end), mean"),
        FitParameter("device.iops_limit", 1.0, 1e8, True, False, "",
                     "a cloud volume's IOPS cap: a token bucket refilling at this rate"),
        FitParameter("device.read_iops_limit", 1.0, 1e8, True, False, "",
                     "a cloud volume's cap on reads (its own bucket, or a share of one budget)"),
        FitParameter("device.write_iops_limit", 1.0, 1e8, True, False, "",
                     "a cloud volume's cap on writes (its own bucket, or a share of one "
                     "budget)"),
        MEDIA_RATE,
        FitParameter("device.bandwidth_limit_Bps", 1e5, 1e12, True, False, "B/s",
                     "a cloud volume's throughput cap: a token bucket of bytes (fitted when "
                     "the block sizes of the fitted points differ)"),
    )
    fit_models: ClassVar[tuple[FitModel, ...]] = (
        FitModel("cloud",
                 "the cloud volume family: a latency floor (network and back end, many I/Os in "
                 "flight at once) behind a token bucket capping IOPS, and the host gap",
                 ("host.overhead", "device.latency_s", "device.iops_limit"),
                 fit_base({"kind": "cloud", "latency": "lognormal:500us,scv=0.25",
                           "units": 4096, "iops_limit": 1e6}, "fit-cloud"),
                 {"host.overhead": (0.0, 0.01)},
                 polish=True,
                 size_params=("device.media_rate_Bps", "device.bandwidth_limit_Bps")),
    )

    latency: Distribution = fld(Deterministic(0.0005), "dist")
    write_latency: Distribution | None = fld(None, "dist", optional=True)
    units: int = fld(1024, "int")
    media_rate_Bps: float = fld(math.inf, "rate")
    iops_limit: float = fld(math.inf, "count")
    read_iops_limit: float = fld(math.inf, "count")
    write_iops_limit: float = fld(math.inf, "count")
    bandwidth_limit_Bps: float = fld(math.inf, "rate")
    read_bandwidth_limit_Bps: float = fld(math.inf, "rate")
    write_bandwidth_limit_Bps: float = fld(math.inf, "rate")
    cap_model: str = fld("separate", "choice", choices=("separate", "shared"))
    io_unit_bytes: float = fld(262144, "size")
    bucket_s: float = fld(0.01, "time")
    burst_iops: float = fld(0.0, "count")
    burst_credits: float = fld(0.0, "count")

    def validate(self):
        self.require(self.units >= 1, "units", ">= 1")
        self.require(self.media_rate_Bps > 0, "media_rate_Bps", "> 0 bytes/s")
        for name in ("iops_limit", "read_iops_limit", "write_iops_limit",
                     "bandwidth_limit_Bps", "read_bandwidth_limit_Bps",
                     "write_bandwidth_limit_Bps"):
            self.require(getattr(self, name) > 0, name, "> 0 (or inf for no cap)")
        self.require(self.io_unit_bytes >= 512, "io_unit_bytes", ">= 512 bytes")
        self.require(self.bucket_s > 0 and math.isfinite(self.bucket_s), "bucket_s", "> 0 s")
        self.require(self.burst_iops >= 0, "burst_iops", ">= 0")
        self.require(self.burst_credits >= 0, "burst_credits", ">= 0")
        if self.burst_iops > 0:
            if not math.isfinite(self.iops_limit):
                raise SpecError("device.iops_limit must be finite when device.burst_iops is "
                                "set: it is the refill rate of the burst credits (got inf)")
            self.require(self.burst_iops > self.iops_limit, "burst_iops", "> iops_limit")
            self.require(self.burst_credits >= 1, "burst_credits", ">= 1 when burst_iops is set")

    def cap_iops(self, read_fraction: float = 1.0) -> float:
        """Long-run IOPS the caps allow for small I/Os (one accounting unit each) in a mix
        with ``read_fraction`` reads, ignoring bandwidth caps."""
        f = read_fraction
        caps = [self.iops_limit]
        if self.cap_model == "separate":
            if f > 0:
                caps.append(self.read_iops_limit / f)
            if f < 1:
                caps.append(self.write_iops_limit / (1 - f))
        else:
            caps.append(1.0 / (f / self.read_iops_limit + (1 - f) / self.write_iops_limit))
        return min(caps)

    def mean_latency_s(self, is_read: bool = True) -> float:
        d = self.latency if is_read or self.write_latency is None else self.write_latency
        return d.mean_s

    def mean_service_s(self, size_bytes: float) -> float:
        """Mean time a back-end unit is held by a read of ``size_bytes``."""
        return self.latency.mean_s + size_bytes / self.media_rate_Bps

    def rate_caps(self, size_bytes: float, read_fraction: float) -> Caps:
        """The token buckets' long-run caps for the mix; an I/O larger than ``io_unit_bytes``
        pays one IOPS token per unit."""
        shared = self.cap_model == "shared"
        iops = mixed_cap(self.iops_limit, self.read_iops_limit, self.write_iops_limit,
                         read_fraction, shared)
        if iops is not None:
            iops /= max(1, math.ceil(size_bytes / self.io_unit_bytes))
        bw = mixed_cap(self.bandwidth_limit_Bps, self.read_bandwidth_limit_Bps,
                       self.write_bandwidth_limit_Bps, read_fraction, shared)
        return iops, bw

    def service_quantile_s(
        self, q: float, read_fraction: float = 1.0, size_bytes: float = 0.0
    ) -> float | None:
        """The latency floor's quantile: of reads, or the smaller of reads' and writes' in a
        mix with writes of their own latency."""
        dists = [self.latency]
        if read_fraction < 1 and self.write_latency is not None:
            dists.append(self.write_latency)
        known = [known_quantile_s(d, q) for d in dists]
        return None if None in known else min(known) + size_bytes / self.media_rate_Bps

    def fit_overrides(self, values, at: str = "device") -> dict:
        over: dict = {}
        if "device.latency_s" in values:  # the floor's mean, its shape kept
            v, lat = float(values["device.latency_s"]), self.latency
            if v <= 0 or isinstance(lat, Deterministic):
                over[f"{at}.latency"] = Deterministic(max(v, 0.0))
            elif lat.mean_s <= 0:
                over[f"{at}.latency"] = Exponential(v)
            else:
                over[f"{at}.latency"] = lat.scaled(v / lat.mean_s)
        for k in ("iops_limit", "read_iops_limit", "write_iops_limit", "media_rate_Bps",
                  "bandwidth_limit_Bps"):
            if f"device.{k}" in values:
                over[f"{at}.{k}"] = float(values[f"device.{k}"])
        return over

    def queueing_view(self) -> QueueingView:
        """Many I/Os in flight through the latency floor (``units`` of them), behind the
        token buckets."""
        return QueueingView(service_s=self.latency.mean_s, units=float(self.units),
                            media_rate_Bps=self.media_rate_Bps, bucket_iops=self.iops_limit,
                            io_unit_bytes=self.io_unit_bytes,
                            read_bucket_iops=self.read_iops_limit,
                            write_bucket_iops=self.write_iops_limit,
                            shared_budget=self.cap_model == "shared",
                            bandwidth_bucket_Bps=self.bandwidth_limit_Bps,
                            bucket_depth_s=self.bucket_s)

    def to_dict(self) -> dict:
        return {"kind": self.kind, **super().to_dict()}

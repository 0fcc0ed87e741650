"""The device-family interface: what every family tells the rest of iosim about itself.

A family is a spec class (a frozen dataclass in SI units) that inherits :class:`DeviceFamily`
and overrides what differs from the defaults here. Everything outside ``iosim/devices/`` and
the engines' family plumbing asks these methods instead of testing ``kind`` or probing fields:

==========================  ===================================================================
member                      what it says
==========================  ===================================================================
``kind``                    the family's name in TOML (``device.kind``)
``units``                   how many requests the device serves at once (1 for a disk)
``warmup_ios``              completions to run before measuring (caches fill, GC settles)
``unit_service_s``          a lower bound on the mean time one request holds a unit, for the
                            workload's pattern: ``units / unit_service_s`` bounds the IOPS
``alone_service_s``         the mean time one request alone holds a unit (a disk: the whole
                            seek and turn its reordering shortens at depth)
``alone_latency_s``         the mean time from issue to completion of one request alone: the
                            above plus any wait after the unit is free (a disk's interface
                            slower than its media); a request slot is held this long
``rate_caps``               administrative caps for a read/write mix: (IOPS, bytes/s) or None
``service_quantile_s``      the q-quantile of a request's service time where it is known
                            (latency floors of plans), else None
``degraded``                the spec with one unit or member failed, and a line saying so
``member_ios``              device requests one host request becomes (RAID: stripe units,
                            parity), for estimates of a run's work
``capacity_bytes``          the addressable size where the family has one (None otherwise)
``assumptions``             the settings that change the answer most, in a few words each
``widget_controls``         the device controls an explorer widget offers for the family
``service_fields``          the fields holding per-request service-time distributions, which
                            a fit sets (their means) and shapes (one scv for all)
``queueing_view``           the device as a product-form network (:class:`QueueingView`, what
                            the fit's analytic surrogate solves), None where it is not one
``limits``                  the above gathered for one request size and workload
``fit_parameters``          the device fields a fit may move, with their ranges
                            (:class:`FitParameter`)
``fit_models``              the models ``iosim fit`` calibrates for the family
                            (:class:`FitModel`: a base stack, the parameters fitted by default)
``fit_floor_s``             the least mean latency one request alone can take, whatever the
                            fit's continuous parameters (a disk: half a turn): a discrete
                            choice whose floor is above the latency measured at one I/O in
                            flight is not fitted
==========================  ===================================================================
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..spec import SpecError

#: administrative caps: (IOPS, bytes/s), None where there is no cap
Caps = tuple[float | None, float | None]

__all__ = ["Caps", "DeviceFamily", "DeviceLimits", "FitModel", "FitParameter", "NO_LIMIT",
           "QueueingView", "fit_base", "known_quantile_s", "mixed_cap"]


@dataclass(frozen=True)
class DeviceLimits:
    """What a device spec tells about its own limits for requests of one size.

    ``units / unit_service_s`` is an upper bound on the IOPS the mechanism can serve;
    ``iops_cap`` and ``bandwidth_cap_Bps`` are administrative caps (cloud volumes). A field is
    None where the family cannot say."""

    units: int
    unit_service_s: float | None = None
    iops_cap: float | None = None
    bandwidth_cap_Bps: float | None = None

    @property
    def max_iops(self) -> float:
        """The tightest of the unit bound and the caps, for requests of this size."""
        bounds = [math.inf]
        if self.unit_service_s:
            bounds.append(self.units / self.unit_service_s)
        if self.iops_cap:
            bounds.append(self.iops_cap)
        return min(bounds)


@dataclass(frozen=True)
class QueueingView:
    """A device as stations of a product-form queueing network (SI units): ``units`` servers
    of mean ``service_s`` (plus ``media_rate_Bps`` transfer) behind one queue, or, with
    ``random_routing``, ``units`` queues each request joins at random (an SSD's dies); a write's
    own time ``write_service_s`` (None: as a read); a pure delay ``delay_s``; the host
    interface's cap per direction; token buckets: one cap on all I/Os (``bucket_iops``, each I/O
    counting ceil(size / ``io_unit_bytes``) operations), caps per direction, each its own
    bucket or one shared budget, and a cap on bytes (``bandwidth_bucket_Bps``)."""

    service_s: float
    units: float
    media_rate_Bps: float = math.inf
    random_routing: bool = False
    write_service_s: float | None = None
    delay_s: float = 0.0
    host_if_Bps: float = math.inf
    bucket_iops: float = math.inf
    io_unit_bytes: float = math.inf
    read_bucket_iops: float = math.inf
    write_bucket_iops: float = math.inf
    shared_budget: bool = False
    #: a token bucket counting bytes (a cloud volume's bandwidth cap on all I/Os)
    bandwidth_bucket_Bps: float = math.inf
    #: with ``random_routing``: a request larger than a page is striped over several units
    page_bytes: float = math.inf
    #: a pool whose units slow each other: j busy units serve at j / (S (1 + contention (j-1)))
    contention: float = 0.0
    #: a token bucket holds this many seconds of its rate: a burst it passes without waiting
    bucket_depth_s: float = 0.0


def known_quantile_s(dist: Any, q: float) -> float | None:
    """The q-quantile of a service distribution where it is known in closed form
    (deterministic, exponential), else None."""
    from ..dists import Deterministic, Exponential

    if isinstance(dist, Deterministic):
        return dist.mean_s
    if isinstance(dist, Exponential):
        return -dist.mean_s * math.log1p(-q)
    return None


def _positive(value: Any) -> float | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    return float(value) if ok and math.isfinite(value) and value > 0 else None


def mixed_cap(
    total: float | None,
    read: float | None,
    write: float | None,
    read_fraction: float,
    shared: bool,
) -> float | None:
    """The long-run cap for a mix with ``read_fraction`` reads, from a total cap and caps per
    direction, separate (each direction its own budget) or shared (one budget that reads and
    writes draw on at different costs). Infinite or missing caps do not bind."""
    total, read, write = _positive(total), _positive(read), _positive(write)
    rf = read_fraction
    caps = [total] if total is not None else []
    if shared and (read is not None or write is not None):
        cost = (rf / read if read else 0.0) + ((1 - rf) / write if write else 0.0)
        if cost > 0:
            caps.append(1.0 / cost)
    else:
        if read is not None and rf > 0:
            caps.append(read / rf)
        if write is not None and rf < 1:
            caps.append(write / (1 - rf))
    return min(caps) if caps else None


@dataclass(frozen=True)
class FitParameter:
    """A stack parameter a fit can move: its dotted key, range, scale (``log``), whether it is
    a count, its SI unit and what it means. ``choices``: a discrete parameter that takes only
    these values (a disk's spindle speed); the fit then fits the continuous parameters at
    each value and keeps the one its objective prefers (a profile), and ``lo``/``hi`` are the
    smallest and largest choice."""

    name: str
    lo: float
    hi: float
    log: bool
    integer: bool
    unit: str
    doc: str
    choices: tuple[float, ...] = ()


#: a queue depth / nr_requests meaning "no limit" in the fit models' base stacks
NO_LIMIT = 65536
#: the fit models' largest request before the block layer splits it (1 GiB: never)
NO_SPLIT_BYTES = 2**30


@dataclass(frozen=True)
class FitModel:
    """A model ``iosim fit`` calibrates: a base stack (its TOML table), the parameters fitted by
    default and their bounds where they differ from the parameter's range."""

    name: str
    doc: str
    params: tuple[str, ...]
    base: dict
    bounds: dict = field(default_factory=dict)
    #: fitted by simulating the device family itself (no analytic surrogate)
    simulated: bool = False
    #: the surrogate's optimum polished by least squares on simulated points (the surrogate
    #: is close, not exact, for the family's own model: deterministic transfers, addresses)
    polish: bool = False
    #: I/Os per point of each simulation inside a simulated fit (common random numbers keep
    #: the objective smooth; the verifying runs use the fit's ``ios``)
    sim_ios: int = 1000
    #: when ``--model auto`` tries the model: ``"always"``, ``"never"`` (by name only),
    #: ``"milliseconds"`` (the lowest fitted depth takes 1 ms or more: a spinning disk?) or
    #: ``"md-members"`` (the input names an md array and its member disks)
    auto: str = "always"
    #: the parameters added to ``params`` when the fitted points' block sizes differ: the
    #: family's terms that grow with the size (a transfer rate, a bytes/s cap). A model
    #: without them refuses points of several sizes (one service time per size)
    size_params: tuple[str, ...] = ()


def fit_base(device: dict, name: str, hba_queue_depth: int = NO_LIMIT,
             link: dict | None = None) -> dict:
    """A fit model's base stack: no host gap, no block-layer or HBA limit (unless given), no
    splitting of large requests (the surrogate has none, and a benchmark's output does not say
    the device's ``max_sectors_kb``: a 1 MiB read is one request on most modern devices), the
    device table ``device``."""
    out = {"name": name, "host": {"overhead": "0"},
           "block": {"nr_requests": NO_LIMIT, "max_sectors_bytes": NO_SPLIT_BYTES},
           "hba": {"queue_depth": hba_queue_depth}, "device": device}
    if link:
        out["link"] = link
    return out


class DeviceFamily:
    """Defaults for a device family; each family's spec class overrides what differs."""

    kind: ClassVar[str] = "?"
    #: the explorer widget's device controls that apply (see ``iosim.widgets.CONTROLS``)
    widget_controls: ClassVar[tuple[str, ...]] = ()
    #: the addressable bytes, where the family has a size (replays check addresses against it)
    capacity_bytes: float | None = None
    #: the failed-unit field ``degraded`` lowers by one (None: the family cannot run degraded)
    degraded_field: ClassVar[str | None] = "units"
    #: the fields holding per-request service-time distributions that a fit sets and shapes
    #: (a family whose times follow from its geometry, or that has none, lists none)
    service_fields: ClassVar[tuple[str, ...]] = ()
    #: the device fields a fit may move (dotted keys ``device.<field>``), with their ranges
    fit_parameters: ClassVar[tuple[FitParameter, ...]] = ()
    #: the models ``iosim fit`` calibrates for this family
    fit_models: ClassVar[tuple[FitModel, ...]] = ()

    @property
    def state_bytes(self) -> float:
        """Memory a run keeps for the device beyond a few bytes per unit (a disk's command
        queue and write cache, a RAID's member disks and their streams): the work estimate of
        :mod:`iosim.limits` counts it."""
        return 0.0

    def queueing_view(self) -> QueueingView | None:
        """The device as a product-form network (what the fit's surrogate solves); None where
        it is not one (a disk reordering its queue, a RAID)."""
        return None

    @property
    def warmup_ios(self) -> int:
        return 0

    def mean_service_s(self, size_bytes: float) -> float:  # pragma: no cover - every family
        raise NotImplementedError

    def unit_service_s(
        self, size_bytes: float, *, random: bool = True, span_bytes: float | None = None
    ) -> float | None:
        """A lower bound on the mean time one request of ``size_bytes`` holds a unit, for a
        random (or sequential) pattern over ``span_bytes``; None where the family cannot say."""
        return _positive(self.mean_service_s(size_bytes))

    def reorders(self, read_fraction: float = 1.0) -> bool:
        """Whether the device serves requests of a mix with ``read_fraction`` reads out of
        arrival order, so that its throughput grows with the requests it holds beyond
        ``units / mean_service_s`` (a disk that picks the shortest positioning time first, or
        destages its write cache that way); its capacity is then measured, not computed
        (``iosim.simulate.open_loop_capacity_iops``)."""
        return False

    def alone_service_s(
        self, size_bytes: float, *, random: bool = True, span_bytes: float | None = None
    ) -> float | None:
        """The mean time one request of ``size_bytes`` takes with nothing else queued (the
        unloaded latency of the device); :meth:`unit_service_s` where the two agree. A disk
        that reorders its queue differs: alone, a request pays the whole seek and rotation
        its reordering shortens at depth."""
        return self.unit_service_s(size_bytes, random=random, span_bytes=span_bytes)

    def alone_latency_s(
        self, size_bytes: float, *, random: bool = True, span_bytes: float | None = None,
        read_fraction: float = 1.0,
    ) -> float | None:
        """The mean time from issue to completion of one request of ``size_bytes`` alone, in a
        mix with ``read_fraction`` reads: :meth:`alone_service_s` where the request completes
        when its unit is free (every family but a disk with a slow interface)."""
        return self.alone_service_s(size_bytes, random=random, span_bytes=span_bytes)

    def rate_caps(self, size_bytes: float, read_fraction: float) -> Caps:
        """Administrative caps (IOPS, bytes/s) for requests of ``size_bytes`` in a mix with
        ``read_fraction`` reads; (None, None) for a device without caps."""
        return None, None

    def service_quantile_s(
        self, q: float, read_fraction: float = 1.0, size_bytes: float = 0.0
    ) -> float | None:
        """The q-quantile (0 < q < 1) of the service time of a request of ``size_bytes``,
        where the family knows it in closed form; None otherwise."""
        return None

    def degraded(self) -> tuple[Any, str]:
        """The spec with one unit or member failed, and a line that says what changed."""
        name = self.degraded_field
        now = getattr(self, name, None) if name else None
        if not isinstance(now, int):
            raise SpecError(f"device.kind {self.kind!r} cannot run with a unit failed")
        if now <= 1:
            raise SpecError(f"one member failed leaves no member (device.{name} = {now})")
        try:
            spec = self.with_(**{name: now - 1})
        except SpecError as exc:
            raise SpecError(f"cannot fail a member: {exc}") from None
        return spec, f"device.{name} {now} -> {now - 1}"

    def member_ios(self, size_bytes: float, read_fraction: float) -> float:
        """Device-internal requests one request of ``size_bytes`` becomes (1 for a single
        device; a RAID's stripe units and parity updates)."""
        return 1.0

    def assumptions(self) -> list[str]:
        """The settings that change the answer most and are easy to miss, a few words each."""
        return []

    def fit_overrides(self, values: Mapping[str, float], at: str = "device") -> dict[str, Any]:
        """The dotted overrides (under ``at``) that set the family's own fit parameters found
        in ``values`` (keys ``device.<name>`` of :attr:`fit_parameters`); the service fields'
        means, shared by every family, are set by the fit itself."""
        return {}

    def fit_starts(self, lowest_latency_s: float | None, n: int) -> list[dict[str, float]]:
        """Starting values of the family's simulated fit parameters, given the mean latency
        at the lowest fitted depth (``n`` I/Os in flight) where known: one dict per start."""
        return [{}]

    def fit_floor_s(self, size_bytes: float) -> float | None:
        """The least mean latency of one request of ``size_bytes`` alone on the device, whatever
        values the fit gives its continuous parameters (for a disk: the command overhead, half
        a turn and the transfer; the seek can shrink to nothing); None where the family cannot
        say. A discrete choice (:attr:`FitParameter.choices`) whose floor is above the latency
        measured at one I/O in flight cannot fit the data, and the fit skips it."""
        return None

    def limits(
        self, size_bytes: float, *, read_fraction: float = 1.0, random: bool = True,
        span_bytes: float | None = None,
    ) -> DeviceLimits:
        """:class:`DeviceLimits` for requests of ``size_bytes`` in the given pattern."""
        try:
            svc = self.unit_service_s(size_bytes, random=random, span_bytes=span_bytes)
        except (ArithmeticError, ValueError):
            svc = None
        iops_cap, bw_cap = self.rate_caps(size_bytes, read_fraction)
        return DeviceLimits(int(self.units), svc, iops_cap, bw_cap)

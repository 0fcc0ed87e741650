"""Capacity planning: the smallest configuration that meets an IOPS and a latency target.

:func:`plan` searches a grid of dotted keys (paths, HBA queue depth, RAID members, SSD count,
threads ...) for configurations that deliver ``target_iops`` with the ``percentile``-th host
latency at or below ``latency_target_s``, optionally with one path or one member failed, and
says for every candidate why it passed or failed.

How a candidate is judged, cheapest test first:

1. **Failure.** ``fail="path"`` plans for one path down: the candidate is evaluated as the
   stack with ``multipath.paths - 1`` live paths (a path that is down from t = 0 and never comes
   back is exactly a stack with one path fewer; failover transients are not part of a steady
   state). A one-path candidate fails at once. ``fail="member"`` plans for one failed member of
   the device: a RAID runs in degraded mode from the start (``failed_member = 0``: reads of the
   lost member are rebuilt from the survivors, writes update parity without it; RAID 0 has no
   degraded mode, so the candidate fails), else a device with ``members`` is evaluated with one
   member fewer, else one with ``units`` with one unit fewer.
2. **Theory.** Upper bounds on IOPS from the stack (what the device's units, the effective queue
   depth over the time a request holds a path slot, ``block.nr_requests``, the links, and any
   device caps allow; in a closed loop also ``N / (D + Z)`` and ``numjobs / Z``). A candidate
   whose bound is below the target fails without being simulated, and so does one whose
   latency floor (link latency, transfer and any deterministic service time) is above the
   latency target.
3. **Simulation.** The rest are simulated with the same seed (common random numbers, so the
   comparison between candidates is not noise). Load: ``"open"`` offers Poisson arrivals at
   the target rate (the workload's ``rate_iops`` is replaced by the target) and checks the
   latency percentile; ``"closed"`` runs the workload's closed loop (``numjobs`` x
   ``iodepth``, usually searched as threads) and checks both IOPS and latency; ``"auto"`` is
   closed when the search varies ``workload.numjobs`` or ``workload.iodepth``, else open.
   Achieved IOPS may fall short of the target by ``iops_tolerance`` (relative; in an open
   loop at least 4/sqrt(ios) to absorb arrival noise).

Candidates are tried in order of cost (by default the number of steps up each key's list of
values, optionally weighted), so a candidate that is larger in every key than one that
passed is skipped: it cannot be minimal. ``PlanResult.best`` is the cheapest passing
candidate; ``PlanResult.minimal`` lists every passing candidate with no smaller passing one
(the Pareto frontier, e.g. "5 paths, or 3 paths with a deeper queue").
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .results import Results
from .simulate import DEFAULT_IOS, UnstableError, open_loop_capacity_iops, simulate
from .spec import SpecError
from .stack import Stack, apply_overrides
from .sweep_io import canonical_values
from .workload import Workload, default_workload

__all__ = [
    "PERCENTILES",
    "Bound",
    "Candidate",
    "PlanResult",
    "plan",
    "stack_bounds",
    "latency_floor_s",
    "device_limits",
    "fail_path",
    "fail_member",
    "default_search",
]

#: Supported latency percentiles and the Results field each one reads.
PERCENTILES: dict[float, str] = {
    50: "lat_p50_s",
    90: "lat_p90_s",
    95: "lat_p95_s",
    99: "lat_p99_s",
    99.9: "lat_p999_s",
    99.99: "lat_p9999_s",
}
FAILURES = (None, "path", "member")
MAX_CANDIDATES = 100_000
LOADS = ("auto", "open", "closed")
_THREAD_KEYS = ("workload.numjobs", "workload.iodepth")


# -- bounds ---------------------------------------------------------------------------------


def _n(x: float) -> str:
    if not math.isfinite(x):
        return "inf"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.4g}"


def _ms(s: float | None) -> str:
    if s is None or not math.isfinite(s):
        return "-"
    if s >= 1:
        return f"{s:.3g} s"
    if s >= 1e-3:
        return f"{s * 1e3:.3g} ms"
    return f"{s * 1e6:.3g} us"


@dataclass(frozen=True)
class Bound:
    """An upper bound on IOPS: ``name``, the bound, and how it follows from the stack."""

    name: str
    iops: float
    explain: str


def device_limits(
    device: Any, block_bytes: float, workload: Workload | None = None
) -> dict[str, float]:
    """What a device spec tells about its own limits (the family interface,
    :meth:`~iosim.devices.base.DeviceFamily.limits`), as a dict: ``units`` and
    ``unit_service_s`` (a lower bound on the mean time one I/O of ``block_bytes`` holds a unit,
    so ``units / unit_service_s`` is an upper bound on IOPS), ``iops_cap`` and
    ``bandwidth_cap_Bps`` (administrative caps, e.g. of a cloud volume); keys the family
    cannot give are left out."""
    lim = device.limits(
        block_bytes,
        read_fraction=workload.read_fraction if workload is not None else 1.0,
        random=workload is None or workload.random,
        span_bytes=workload.span_bytes if workload is not None else None,
    )
    out: dict[str, float] = {}
    if lim.unit_service_s is not None:
        out["units"] = float(lim.units)
        out["unit_service_s"] = lim.unit_service_s
    if lim.iops_cap is not None:
        out["iops_cap"] = lim.iops_cap
    if lim.bandwidth_cap_Bps is not None:
        out["bandwidth_cap_Bps"] = lim.bandwidth_cap_Bps
    return out


def _unit_service_s(device: Any, size: float, workload: Workload | None) -> float | None:
    return device_limits(device, size, workload).get("unit_service_s")


def unloaded_latency_s(stack: Stack, part_bytes: float,
                       workload: Workload | None = None) -> float | None:
    """Mean latency of one request of ``part_bytes`` alone below the host: the device's
    latency with nothing queued (:meth:`~iosim.devices.base.DeviceFamily.alone_latency_s`)
    and the link both ways; None where the family cannot say."""
    alone = stack.device.alone_latency_s(
        part_bytes, random=workload is None or workload.random,
        span_bytes=workload.span_bytes if workload is not None else None,
        read_fraction=workload.read_fraction if workload is not None else 1.0)
    if alone is None:
        return None
    link = stack.link
    return alone + 2 * link.latency_s + part_bytes / link.bandwidth_Bps


def _path_time_s(stack: Stack, part_bytes: float, workload: Workload | None = None) -> float | None:
    """Mean time a request of ``part_bytes`` holds a path slot: service + link both ways
    (a lower bound where the device's mean is not known exactly, see :func:`device_limits`)."""
    hold = _unit_service_s(stack.device, part_bytes, workload)
    if hold is None:
        return None
    link = stack.link
    return hold + 2 * link.latency_s + part_bytes / link.bandwidth_Bps


def stack_bounds(stack: Stack, workload: Workload, *, closed: bool | None = None) -> list[Bound]:
    """Upper bounds on the IOPS ``stack`` can deliver for ``workload`` (tightest first).

    Open or closed: the device's units, the effective queue depth and ``block.nr_requests``
    over the time a request holds a slot, the links, device caps. Closed loop (``closed`` or,
    by default, when the workload has no ``rate_iops``) adds ``N / (D + Z)`` with N = numjobs x
    iodepth, D the unloaded latency and Z the host overhead plus think time, and
    ``numjobs / Z`` (a job's CPU pays Z once per I/O)."""
    if closed is None:
        closed = not workload.open_loop
    size = workload.mean_block_bytes
    parts = max(1, math.ceil(size / stack.block.max_sectors_bytes))
    part = size / parts
    mp, hba, link = stack.multipath, stack.hba, stack.link
    bounds: list[Bound] = []
    lim = device_limits(stack.device, part, workload)
    if "units" in lim:
        x = lim["units"] / lim["unit_service_s"] / parts
        bounds.append(
            Bound(
                "device units",
                x,
                f"{lim['units']:g} unit(s) / {_ms(lim['unit_service_s'])} each"
                + (f" / {parts} parts per I/O" if parts > 1 else ""),
            )
        )
    path_time = _path_time_s(stack, part, workload)
    if path_time is not None and path_time > 0:
        qd = stack.effective_queue_depth
        bounds.append(
            Bound(
                "queue depth",
                qd / path_time / parts,
                f"{mp.paths} path(s) x HBA QD {hba.queue_depth} = {qd} slots / "
                f"{_ms(path_time)} held each, by Little's law",
            )
        )
        bounds.append(
            Bound(
                "nr_requests",
                stack.block.nr_requests / path_time / parts,
                f"block.nr_requests {stack.block.nr_requests} / {_ms(path_time)}",
            )
        )
    if math.isfinite(link.bandwidth_Bps):
        bounds.append(
            Bound(
                "link",
                mp.paths * link.bandwidth_Bps / size,
                f"{mp.paths} link(s) x {_n(link.bandwidth_Bps)} B/s / {_n(size)} B per I/O",
            )
        )
    if "iops_cap" in lim:
        bounds.append(
            Bound("iops cap", lim["iops_cap"], f"device IOPS caps allow {_n(lim['iops_cap'])}")
        )
    if "bandwidth_cap_Bps" in lim:
        cap = lim["bandwidth_cap_Bps"]
        bounds.append(
            Bound("bandwidth cap", cap / size, f"device cap {_n(cap)} B/s / {_n(size)} B per I/O")
        )
    if not closed:
        # the rate above which simulate() refuses an open loop as unstable
        try:
            cap = open_loop_capacity_iops(stack, workload)
        except Exception:  # noqa: BLE001 - a device family without a closed-form capacity
            cap = math.inf
        if math.isfinite(cap) and (not bounds or cap < min(b.iops for b in bounds) * (1 - 1e-9)):
            bounds.append(Bound("capacity", cap, "open-loop capacity of the stack (simulate)"))
    if closed:
        n = workload.outstanding
        z = stack.host.overhead.mean_s + workload.thinktime_s
        if path_time is not None:
            d = path_time * 1.0  # unloaded latency of one I/O (parts travel together)
            if d + z > 0:
                bounds.append(
                    Bound(
                        "outstanding I/Os",
                        n / (d + z),
                        f"N = {workload.numjobs} job(s) x iodepth {workload.iodepth} = {n} / "
                        f"(latency >= {_ms(d)} + host {_ms(z)})",
                    )
                )
        if z > 0:
            bounds.append(
                Bound(
                    "host overhead",
                    workload.numjobs / z,
                    f"{workload.numjobs} job(s), each paying {_ms(z)} per I/O",
                )
            )
    bounds.sort(key=lambda b: b.iops)
    return bounds


def latency_floor_s(stack: Stack, workload: Workload, percentile: float = 99) -> float:
    """No I/O's host latency is below this at the given percentile: link latency both ways,
    transfer time, media transfer, and the service distribution's quantile where it is known
    (deterministic or exponential service of the generic device); of the smallest block."""
    size = min(s for s, _ in workload.sizes)
    parts = max(1, math.ceil(size / stack.block.max_sectors_bytes))
    part = size / parts
    link = stack.link
    floor = 2 * link.latency_s + part / link.bandwidth_Bps
    dev = stack.device
    q = percentile / 100.0
    # below the median only the media transfer is sure (the base time's quantile may be ~0)
    service = dev.service_quantile_s(q if percentile >= 50 else 0.0, workload.read_fraction, part)
    if service is None:  # not known in closed form: the link alone is sure
        return floor
    return floor + service


# -- failures -------------------------------------------------------------------------------


def fail_path(stack: Stack) -> tuple[Stack, str]:
    """The stack with one path down for good: ``multipath.paths - 1`` live paths.

    Scheduled path events that name the removed path are dropped. Raises :class:`SpecError`
    if the stack has only one path."""
    mp = stack.multipath
    if mp.paths <= 1:
        raise SpecError("one path down leaves no live path (multipath.paths = 1)")
    live = mp.paths - 1
    events = [ev.to_dict() for ev in mp.failures if ev.path < live]
    s, _ = apply_overrides(stack, None, {"multipath.paths": live, "multipath.failures": events})
    return s, f"multipath.paths {mp.paths} -> {live} live"


def fail_member(stack: Stack) -> tuple[Stack, str]:
    """The stack with one device member failed, as the family runs degraded (a RAID in its
    degraded mode; one unit fewer for a pool of units; see the module docstring)."""
    device, text = stack.device.degraded()
    return dataclasses.replace(stack, device=device), text


_FAILERS: dict[str, Callable[[Stack], tuple[Stack, str]]] = {
    "path": fail_path,
    "member": fail_member,
}


# -- search ---------------------------------------------------------------------------------


def default_search(stack: Stack, workload: Workload | None = None, fail: str | None = None):
    """Paths 1..8 (up to twice the stack's, if more) and HBA queue depths 16..256 (with the
    stack's own); device members, if the device has them, from the stack's up to 8 more."""
    paths = list(range(1, max(8, 2 * stack.multipath.paths) + 1))
    qds = sorted({16, 32, 64, 128, 256, stack.hba.queue_depth})
    search: dict[str, list[Any]] = {"multipath.paths": paths, "hba.queue_depth": qds}
    members = stack.device.to_dict().get("members")
    if isinstance(members, int):
        search["device.members"] = list(range(members, members + 9))
    return search


# -- results --------------------------------------------------------------------------------


@dataclass
class Candidate:
    """One configuration tried: its values, verdict and the reason."""

    config: dict[str, Any]
    index: tuple[int, ...]
    cost: float
    status: str = "pending"  # pass | fail | skip
    stage: str = ""  # invalid | failure | theory | simulation | dominated
    reason: str = ""
    failure: str = ""  # what the planned failure did to this candidate
    bound_iops: float | None = None
    binding: str | None = None
    lat_floor_s: float | None = None
    iops: float | None = None
    lat_s: float | None = None
    lat_mean_s: float | None = None
    results: Results | None = field(default=None, repr=False)

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    def label(self) -> str:
        return " ".join(f"{k}={_fmt_value(v)}" for k, v in self.config.items())

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "config": dict(self.config),
            "status": self.status,
            "stage": self.stage,
            "reason": self.reason,
            "cost": self.cost,
        }
        for k in ("failure", "binding"):
            if getattr(self, k):
                out[k] = getattr(self, k)
        for k in ("bound_iops", "lat_floor_s", "iops", "lat_s", "lat_mean_s"):
            v = getattr(self, k)
            if v is not None and math.isfinite(v):
                out[k] = v
        return out


def _fmt_value(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


@dataclass
class PlanResult:
    """Every candidate tried (in order), the cheapest passing one and the minimal ones."""

    target_iops: float
    latency_target_s: float
    percentile: float
    fail: str | None
    load: str
    search: dict[str, list[Any]]
    candidates: list[Candidate]
    stack: Stack = field(repr=False)
    workload: Workload = field(repr=False)

    @property
    def passing(self) -> list[Candidate]:
        return [c for c in self.candidates if c.passed]

    @property
    def best(self) -> Candidate | None:
        """The cheapest passing candidate (ties: the earliest tried)."""
        p = self.passing
        return min(p, key=lambda c: (c.cost, sum(c.index), c.index)) if p else None

    @property
    def minimal(self) -> list[Candidate]:
        """Passing candidates with no other passing candidate smaller or equal in every key."""
        p = self.passing
        return [c for c in p if not any(o is not c and _dominates(c.index, o.index) for o in p)]

    @property
    def feasible(self) -> bool:
        return bool(self.passing)

    def configure(self, candidate: Candidate | None = None) -> tuple[Stack, Workload]:
        """The stack and workload of ``candidate`` (default: the best), with all paths and
        members healthy (the failure was only assumed for the check)."""
        c = candidate or self.best
        if c is None:
            raise SpecError("no configuration in the search meets the target")
        s, w = apply_overrides(self.stack, self.workload, c.config)
        return s, w or default_workload(s.device)

    def to_dict(self) -> dict[str, Any]:
        best = self.best
        return {
            "feasible": self.feasible,
            "target_iops": self.target_iops,
            "latency_target_s": self.latency_target_s,
            "percentile": self.percentile,
            "fail": self.fail,
            "load": self.load,
            "search": {k: list(v) for k, v in self.search.items()},
            "best": dict(best.config) if best else None,
            "minimal": [dict(c.config) for c in self.minimal],
            "candidates": [c.to_dict() for c in self.candidates],
        }

    def _goal(self) -> str:
        fail = {
            None: "all paths and members healthy",
            "path": "one path down (planned as multipath.paths - 1 live paths)",
            "member": "one device member failed",
        }[self.fail]
        load = (
            "open loop: Poisson arrivals at the target rate"
            if self.load == "open"
            else "closed loop: the workload's jobs x iodepth"
        )
        return (
            f"Plan: {_n(self.target_iops)} IOPS with p{_fmt_value(float(self.percentile))} "
            f"latency <= {_ms(self.latency_target_s)}; {fail}; {load}"
        )

    def to_text(self, all_rows: bool = False) -> str:
        """The goal, a table of the candidates tried with the reason for each verdict, and
        the answer. Candidates skipped as not minimal are counted (listed with ``all_rows``)."""
        lines = [self._goal()]
        keys = list(self.search)
        header = ["#", *keys, "verdict", "why"]
        rows = []
        shown = [c for c in self.candidates if c.status != "skip" or all_rows]
        skipped = len(self.candidates) - len(shown)
        for i, c in enumerate(shown, 1):
            verdict = {"pass": "PASS", "fail": "fail", "skip": "skip"}.get(c.status, c.status)
            rows.append([str(i), *(_fmt_value(c.config[k]) for k in keys), verdict, c.reason])
        widths = [
            max(len(h), *(len(r[j]) for r in rows)) if rows else len(h)
            for j, h in enumerate(header)
        ]
        widths[-1] = 0
        lines.append("")
        lines.append("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip())
        for r in rows:
            lines.append("  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip())
        if skipped:
            lines.append(
                f"({skipped} larger candidate(s) not simulated: a smaller configuration passes)"
            )
        lines.append("")
        best = self.best
        if best is None:
            stuck = self._limit_outside_the_search()
            if stuck is not None:
                lines.append(stuck)
            lines.append(
                "No configuration in the search meets the target: widen the search "
                "(more paths, deeper queues, more members) or relax the target."
            )
        else:
            lines.append(f"Smallest: {best.label()}  ({best.reason})")
            mins = self.minimal
            if len(mins) > 1:
                lines.append(
                    "Minimal passing configurations (nothing smaller in every key passes):"
                )
                lines.extend(f"  {c.label()}" for c in mins)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    def _limit_outside_the_search(self) -> str | None:
        """When every candidate failed in theory on a limit of the device itself, below the
        target whatever the values searched: one line saying so, and where to look instead."""
        failed = [c for c in self.candidates if c.status == "fail"]
        if not failed or any(c.stage != "theory" or not c.bound_iops for c in failed):
            return None
        best = max(failed, key=lambda c: c.bound_iops or 0.0)  # the most any of them allows
        top = best.bound_iops or 0.0
        if top >= self.target_iops or best.binding not in (
                "device units", "iops cap", "bandwidth cap", "capacity"):
            return None
        dev = self.stack.device
        field = "members" if isinstance(dev.to_dict().get("members"), int) else \
            dev.degraded_field  # (what the device has more of: a RAID's members, units)
        if best.binding in ("iops cap", "bandwidth cap"):
            where = "they are its caps (an SLA): a volume with higher caps, or several"
        elif field and f"device.{field}" in self.search:
            where = f"more device.{field} than the search tried, or faster ones"
        elif best.binding == "device units" and field:
            where = f"search its unit count too (--search device.{field}=...)"
        else:
            where = "more devices (RAID, an array) or a faster one"
        return (f"No candidate passes {top:,.0f} IOPS, below the target, whatever its "
                f"{', '.join(self.search)}: the limit there is the device's own "
                f"({best.binding}); {where}.")


def _dominates(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    """a >= b in every key and a != b."""
    return a != b and all(x >= y for x, y in zip(a, b, strict=True))


# -- the search -----------------------------------------------------------------------------


def _positive(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SpecError(f"{name} must be a number > 0 (got {value!r})")
    x = float(value)
    if not math.isfinite(x) or x <= 0:
        raise SpecError(f"{name} must be a finite number > 0 (got {value!r})")
    return x


def _sorted_values(values: list[Any]) -> list[Any]:
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        out = []
        for v in sorted(values):
            if not out or out[-1] != v:
                out.append(v)
        return out
    return values


def plan(
    stack: Stack,
    workload: Workload | None = None,
    *,
    target_iops: float,
    latency_target_s: float,
    percentile: float = 99,
    fail: str | None = None,
    search: Mapping[str, Iterable[Any]] | None = None,
    load: str = "auto",
    ios: int = DEFAULT_IOS,
    warmup_ios: int | None = None,
    seed: int = 1,
    engine: str = "auto",
    replications: int = 1,
    iops_tolerance: float = 0.02,
    weights: Mapping[str, float] | None = None,
    cost: Callable[[dict[str, Any]], float] | None = None,
    exhaustive: bool = True,
    progress: bool = False,
) -> PlanResult:
    """Find the smallest configuration in ``search`` that meets the targets.

    ``search`` maps dotted keys to candidate values, smallest (cheapest) first; numeric lists
    are sorted. Default: :func:`default_search`. ``weights`` scales the steps of each key in
    the default cost (e.g. ``{"multipath.paths": 10}``: a path costs more than a queue-depth
    step); ``cost`` replaces it with any function of the candidate's values (it must not
    decrease when a value grows). ``exhaustive=False`` stops at the first passing candidate.
    See the module docstring for how candidates are judged.
    """
    workload = workload if workload is not None else Workload()
    target = _positive("target_iops", target_iops)
    lat_target = _positive("latency_target_s", latency_target_s)
    pct = float(percentile) if not isinstance(percentile, bool) else math.nan
    field_name = next((f for p, f in PERCENTILES.items() if math.isclose(p, pct)), None)
    if field_name is None:
        allowed = ", ".join(_fmt_value(float(p)) for p in PERCENTILES)
        raise SpecError(f"percentile must be one of {allowed} (got {percentile!r})")
    if fail not in FAILURES:
        raise SpecError(f"fail must be 'path', 'member' or None (got {fail!r})")
    if load not in LOADS:
        raise SpecError(f"load must be one of {', '.join(LOADS)} (got {load!r})")
    if not (isinstance(iops_tolerance, (int, float)) and 0 <= iops_tolerance < 1):
        raise SpecError(f"iops_tolerance must be in [0, 1) (got {iops_tolerance!r})")

    raw = dict(search) if search is not None else default_search(stack, workload, fail)
    if not raw:
        raise SpecError("search needs at least one key with values, e.g. multipath.paths=1,2,4")
    # the candidate count before any value is converted (a range of 10^8 is never built)
    sizes = [1 if isinstance(v, str) else len(v) if hasattr(v, "__len__") else 0
             for v in raw.values()]
    if math.prod(sizes) > MAX_CANDIDATES:
        raise SpecError(
            f"the search has {math.prod(sizes):,} candidates (more than {MAX_CANDIDATES:,}); "
            "search fewer keys or values"
        )
    grid: dict[str, list[Any]] = {}
    for key, values in raw.items():
        vals = [values] if isinstance(values, str) else list(values)
        if not vals:
            raise SpecError(f"search {key}: needs at least one value")
        grid[key] = _sorted_values(canonical_values(stack, workload, key, vals))
    if load == "auto":
        load = "closed" if any(k in _THREAD_KEYS for k in grid) else "open"
    w8 = {k: 1.0 for k in grid}
    for k, v in (weights or {}).items():
        if k not in grid:
            raise SpecError(f"weight for {k!r}, which is not searched ({', '.join(grid)})")
        w8[k] = _positive(f"weight of {k}", v)

    keys = list(grid)
    size = math.prod(len(v) for v in grid.values())
    if size > MAX_CANDIDATES:
        raise SpecError(
            f"the search has {size:,} candidates (more than {MAX_CANDIDATES:,}); "
            "search fewer keys or values"
        )
    cands: list[Candidate] = []
    for idx in itertools.product(*(range(len(grid[k])) for k in keys)):
        config = {k: grid[k][i] for k, i in zip(keys, idx, strict=True)}
        c = cost(config) if cost else sum(w8[k] * i for k, i in zip(keys, idx, strict=True))
        cands.append(Candidate(config=config, index=idx, cost=float(c)))
    cands.sort(key=lambda c: (c.cost, sum(c.index), c.index))

    kw = dict(ios=ios, warmup_ios=warmup_ios, seed=seed, engine=engine, replications=replications)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(cands), desc="plan", leave=False)
    tried: list[Candidate] = []
    passing: list[Candidate] = []
    try:
        for cand in cands:
            if bar is not None:
                bar.update(1)
            if not exhaustive and passing:
                break
            smaller = next((p for p in passing if _dominates(cand.index, p.index)), None)
            if smaller is not None:
                cand.status, cand.stage = "skip", "dominated"
                cand.reason = f"not minimal: {smaller.label()} passes"
                tried.append(cand)
                continue
            _judge(
                cand,
                stack,
                workload,
                target,
                lat_target,
                pct,
                field_name,
                fail,
                load,
                iops_tolerance,
                kw,
            )
            tried.append(cand)
            if cand.passed:
                passing.append(cand)
    finally:
        if bar is not None:
            bar.close()
    return PlanResult(
        target_iops=target,
        latency_target_s=lat_target,
        percentile=pct,
        fail=fail,
        load=load,
        search=grid,
        candidates=tried,
        stack=stack,
        workload=workload,
    )


def _judge(
    cand: Candidate,
    stack: Stack,
    workload: Workload,
    target: float,
    lat_target: float,
    pct: float,
    field_name: str,
    fail: str | None,
    load: str,
    tol: float,
    kw: dict,
) -> None:
    pname = f"p{_fmt_value(pct)}"
    try:
        s, w = apply_overrides(stack, workload, cand.config)
    except SpecError as exc:
        cand.status, cand.stage, cand.reason = "fail", "invalid", str(exc)
        return
    w = w or default_workload(s.device)
    if fail is not None:
        try:
            s, cand.failure = _FAILERS[fail](s)
        except SpecError as exc:
            cand.status, cand.stage, cand.reason = "fail", "failure", str(exc)
            return
    down = f" ({cand.failure})" if cand.failure else ""
    if load == "open":
        w = _with_rate(w, target)
    elif w.open_loop:
        w = _with_rate(w, None)
    bounds = stack_bounds(s, w, closed=(load == "closed"))
    if bounds:
        b = bounds[0]
        cand.bound_iops, cand.binding = b.iops, b.name
    floor = latency_floor_s(s, w, pct)
    cand.lat_floor_s = floor
    if bounds:
        b = bounds[0]
        short = b.iops < target if load == "open" else b.iops < target * (1 - tol)
        if short:
            cand.status, cand.stage = "fail", "theory"
            cand.reason = f"theory{down}: at most {_n(b.iops)} IOPS; {b.name}: {b.explain}"
            return
    if floor > lat_target:
        cand.status, cand.stage = "fail", "theory"
        cand.reason = (
            f"theory{down}: latency is at least {_ms(floor)} (link, transfer and service), "
            f"above {_ms(lat_target)}"
        )
        return
    try:
        r = simulate(s, w, **kw)
    except UnstableError as exc:
        got = getattr(exc, "sustained_iops", None)
        if got is None:  # refused before the run
            cand.status, cand.stage, cand.reason = "fail", "theory", f"theory{down}: {exc}"
        else:  # the run fell behind the arrivals: its queue grew
            cand.status, cand.stage = "fail", "simulated"
            cand.reason = (f"simulated{down}: sustains about {_n(got)} IOPS; at the target "
                           "rate its queue grew through the run")
        return
    cand.results = r
    cand.iops, cand.lat_mean_s = r.iops, r.lat_mean_s
    cand.lat_s = getattr(r, field_name)
    need = target * (1 - tol)
    if load == "open":
        need = target * (1 - max(tol, 4 / math.sqrt(max(1, r.ios or 1))))
    lat_ok = cand.lat_s is not None and cand.lat_s <= lat_target
    iops_ok = r.iops is not None and r.iops >= need
    got = f"{_n(r.iops)} IOPS, {pname} {_ms(cand.lat_s)}"
    bound = f"; bound {_n(cand.bound_iops)} ({cand.binding})" if cand.bound_iops else ""
    cand.stage = "simulation"
    if lat_ok and iops_ok:
        cand.status = "pass"
        cand.reason = f"simulated{down}: {got} <= {_ms(lat_target)}{bound}"
    else:
        cand.status = "fail"
        why = []
        if not iops_ok:
            why.append(f"{_n(r.iops)} IOPS < {_n(target)}")
        if not lat_ok:
            why.append(f"{pname} {_ms(cand.lat_s)} > {_ms(lat_target)}")
        cand.reason = f"simulated{down}: {'; '.join(why)}{bound}"


def _with_rate(w: Workload, rate: float | None) -> Workload:
    return replace(w, rate_iops=rate)

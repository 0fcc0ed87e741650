"""``simulate`` and ``sweep``: the public entry points that run an engine and return Results."""

from __future__ import annotations

import contextlib
import functools
import itertools
import math
import os
import sys
from collections.abc import Iterable, Mapping
from concurrent.futures import Executor, as_completed
from typing import Any

import numpy as np

from . import limits
from .engine import fast as fast_engine
from .engine.progress import progress_bar
from .engine.recorder import LogHist, ci95_halfwidth
from .engine.simpy_engine import Simulation, run_simpy
from .engine.summary import fill_latency, results_of
from .results import Curve, Results
from .spec import SpecError, UnstableError
from .stack import Stack, apply_overrides
from .workload import Workload

__all__ = ["simulate", "sweep", "ENGINES", "UnstableError", "open_loop_capacity_iops"]

ENGINES = ("auto", "simpy", "fast")
DEFAULT_IOS = 20_000


def open_loop_capacity_iops(stack: Stack, workload: Workload) -> float:
    """The most I/Os per second the stack can complete: the tightest of the device's units,
    the effective queue depth over the time a request holds a path slot, and the link. A
    device that reorders its queue (``reorders()``: a disk choosing the shortest positioning
    time) completes more the more it holds, so its units and slots are replaced by the
    throughput of a short closed-loop run with every slot below the host full
    (:func:`saturated_iops`)."""
    dev = stack.device
    size = workload.mean_block_bytes
    parts = max(1.0, math.ceil(size / stack.block.max_sectors_bytes))
    part = size / parts
    # a request's service in the workload's pattern over its span (a disk: its seeks)
    hold = dev.alone_service_s(part, random=workload.random, span_bytes=workload.span_bytes)
    hold = hold if hold is not None else dev.mean_service_s(part)
    # units that slow each other (contention) hold longer when all are busy than alone
    loaded = dev.unit_service_s(part, random=workload.random, span_bytes=workload.span_bytes)
    hold = max(hold, loaded) if loaded is not None else hold
    caps = []
    # administrative caps (cloud token buckets) for this mix and size, per I/O
    iops_cap, bytes_cap = dev.rate_caps(size, workload.read_fraction)
    if iops_cap is not None:
        caps.append(iops_cap)
    if bytes_cap is not None:
        caps.append(bytes_cap / size)
    if dev.reorders(workload.read_fraction):
        caps.append(saturated_iops(stack, workload))
    elif hold > 0:
        caps.append(dev.units / hold / parts)
        link = stack.link
        # a slot is held until the request completes (a disk's slow interface: after its
        # actuator is free)
        done = dev.alone_latency_s(part, random=workload.random, span_bytes=workload.span_bytes,
                                   read_fraction=workload.read_fraction)
        path_time = max(hold, done or 0.0) + 2 * link.latency_s + part / link.bandwidth_Bps
        caps.append(stack.effective_queue_depth / path_time / parts)
        caps.append(stack.block.nr_requests / path_time / parts)
    if math.isfinite(stack.link.bandwidth_Bps):
        caps.append(stack.multipath.paths * stack.link.bandwidth_Bps / size)
    return min(caps) if caps else math.inf


#: I/Os of the closed-loop run that measures a reordering device's capacity, and the most
#: jobs it holds (a disk's own queue is 32 deep; slots beyond its queue only wait above it)
SATURATION_IOS = 4000
SATURATION_MAX_JOBS = 1024


def saturated_iops(stack: Stack, workload: Workload) -> float:
    """IOPS of ``workload``'s requests with every slot below the host held (as many jobs as
    the effective queue depth and ``block.nr_requests`` admit, no host gap, no think time):
    the most the stack completes however fast requests arrive. Simulated (a short run, seed
    1, cached), since a reordering disk's service shortens with the queue it chooses from."""
    slots = min(stack.effective_queue_depth, stack.block.nr_requests)
    n = int(max(1, min(slots, SATURATION_MAX_JOBS)))
    wl = workload.with_(rate_iops=None, numjobs=n, iodepth=1, thinktime_s=0.0)
    stack = stack.with_(**{"host.overhead": "0s"})
    try:
        return _saturated_cached(stack, wl)
    except TypeError:  # a spec holding something unhashable: measure without the cache
        return _saturated(stack, wl)


def _saturated(stack: Stack, workload: Workload) -> float:
    res = _simulate(stack, workload, ios=SATURATION_IOS, warmup_ios=None, seed=1,
                    engine="auto", replications=1, force=True, announce=False, precision=None)
    return float(res.iops)


_saturated_cached = functools.lru_cache(maxsize=64)(_saturated)


def _check(ios: Any, warmup_ios: Any, seed: Any, engine: Any, replications: Any
           ) -> tuple[int, int | None, int, int]:
    """The run arguments as ints (numpy integers accepted), or one SpecError naming the
    argument and its range (strings and floats are refused, as are values past
    :data:`iosim.limits.MAX_COUNT`)."""

    def whole(value: Any, name: str, minimum: int, maximum: int | None = None) -> int:
        if isinstance(value, (str, float)):  # "20000" or 2e4: say what is expected
            raise SpecError(
                f"{name} must be a whole number >= {minimum} (got {limits.shown(value)}: a "
                f"{type(value).__name__}, not an int)"
            )
        try:
            return limits.int_arg(value, name, minimum, maximum)
        except limits.LimitError as exc:
            raise SpecError(str(exc)) from None

    if not isinstance(engine, str) or engine not in ENGINES:
        raise SpecError(f"engine must be one of {', '.join(ENGINES)} (got {limits.shown(engine)})")
    ios = whole(ios, "ios", 1, MAX_IOS)
    warm = None if warmup_ios is None else whole(warmup_ios, "warmup_ios", 0, MAX_IOS)
    seed = whole(seed, "seed", 0, 2**63 - 1)
    replications = whole(replications, "replications", 1, MAX_REPLICATIONS)
    return ios, warm, seed, replications


MAX_IOS = limits.MAX_IOS
MAX_REPLICATIONS = limits.MAX_REPLICATIONS


def estimate(stack: Stack, workload: Workload, *, ios: int, warmup_ios: int,
             replications: int = 1, engine: str = "fast") -> limits.Estimate:
    """The expected wall time and memory of a run (see :mod:`iosim.limits`): events from
    the I/Os, the block parts each is split into and the device members a part reaches;
    memory from the in-flight slots, paths and device units."""
    cap = stack.block.max_sectors_bytes
    parts = sum(p * max(1.0, math.ceil(s / cap)) for s, p in workload.sizes)
    dev = stack.device
    members = dev.member_ios(workload.mean_block_bytes / parts, workload.read_fraction)
    slots = workload.outstanding if not workload.open_loop else 1024
    return limits.estimate_run(
        ios=ios, warmup_ios=warmup_ios, replications=replications, engine=engine,
        parts=parts, slots=slots, paths=stack.multipath.paths, units=float(dev.units),
        members_per_io=members, device_bytes=dev.state_bytes)


def _announce(message: str) -> None:
    print(f"iosim: {message}", file=sys.stderr, flush=True)


def simulate(
    stack: Stack,
    workload: Workload | None = None,
    *,
    ios: int = DEFAULT_IOS,
    warmup_ios: int | None = None,
    seed: int = 1,
    engine: str = "auto",
    replications: int = 1,
    force: bool | None = None,
    precision: float | str | None = None,
) -> Results:
    """Simulate ``workload`` on ``stack``: ``ios`` measured completions after ``warmup_ios``.

    With ``precision`` (a fraction such as 0.02, or "2%") the run decides its own length:
    the warm-up is found by MSER-5 on a pilot run (unless ``warmup_ios`` is given), ``ios`` is
    the length of a sizing run (at least 20,000), and fresh runs follow until the 95 %
    half-widths of IOPS and mean latency are within ``precision`` of their values and p99's
    within four times that (see :mod:`iosim.precision`; ``extra["precision"]`` says what was
    done).

    With ``replications`` > 1 the run is repeated with independent streams and the confidence
    half-widths come from the spread between replications; otherwise from batch means.

    A run estimated to take longer than :data:`iosim.limits.MAX_WALL_S` is refused with the
    estimate unless ``force`` (default: :func:`iosim.limits.forced`); one needing more than
    half the machine's memory is refused always.
    """
    return _simulate(stack, workload, ios=ios, warmup_ios=warmup_ios, seed=seed, engine=engine,
                     replications=replications, force=force, announce=True,
                     precision=precision)


def _simulate(stack, workload, *, ios, warmup_ios, seed, engine, replications, force,
              announce: bool, precision=None, keep_batches: bool = False,
              replication: int = 0) -> Results:
    workload = workload if workload is not None else Workload()
    if not isinstance(stack, Stack):
        raise SpecError(f"stack must be an iosim.Stack (got {type(stack).__name__})")
    if not isinstance(workload, Workload):
        raise SpecError(f"workload must be an iosim.Workload (got {type(workload).__name__})")
    ios, warmup_ios, seed, replications = _check(ios, warmup_ios, seed, engine, replications)
    if precision is not None:
        from . import precision as sequential

        if replications > 1:
            raise SpecError("precision and replications > 1 are alternatives: give one")
        return sequential.run_to_precision(
            stack, workload, precision=precision, ios=ios, warmup_ios=warmup_ios, seed=seed,
            engine=engine, force=force, announce=announce)
    if warmup_ios is None:
        # devices with caches start empty: they say how many I/Os it takes to fill them
        device_warmup = int(stack.device.warmup_ios)
        warmup_ios = max(ios // 10, 2 * workload.outstanding, device_warmup)
    _refuse_unstable(stack, workload)
    reason = fast_engine.supports(stack, workload) if engine != "simpy" else "simpy asked for"
    if engine == "fast" and reason:
        raise SpecError(
            f"engine 'fast' cannot run this stack: {reason}; use engine 'simpy' or 'auto'"
        )
    used = "fast" if reason is None else "simpy"
    est = estimate(stack, workload, ios=ios, warmup_ios=warmup_ios,
                   replications=replications, engine=used)
    try:
        limits.check_estimate(est, f"this run ({ios:,} I/Os + {warmup_ios:,} warm-up"
                              + (f", {replications:,} replications)" if replications > 1
                                 else ")"),
                              force, _announce if announce else None)
    except limits.LimitError as exc:
        raise SpecError(str(exc)) from None
    runner = fast_engine.run_fast_sim if used == "fast" else run_simpy
    reps: Iterable[int] = range(replications)
    bar = None
    if announce and replications > 1 and est.seconds > limits.ANNOUNCE_WALL_S:
        from tqdm.auto import tqdm

        reps = bar = tqdm(reps, desc="replications", leave=False, file=sys.stderr)
    one_long = announce and replications == 1 and est.seconds > limits.ANNOUNCE_WALL_S
    watch = progress_bar(ios + warmup_ios) if one_long else contextlib.nullcontext()
    try:
        with watch:  # a long single run shows its completions
            sims = [
                runner(stack, workload, ios=ios, warmup_ios=warmup_ios, seed=seed,
                       replication=replication + r)
                for r in reps
            ]
    finally:
        if bar is not None:
            bar.close()
    res = _combine(sims) if replications > 1 else results_of(sims[0])
    if workload.open_loop:
        _check_kept_up(res, workload.rate_iops)
    if keep_batches:  # the pilot of a precision run reads its batch means
        res.extra["_batches"] = sims[0].rec.batches
    res.engine = used
    res.seed = seed
    res.replications = replications
    res.params = _params(workload)
    return res


def _check_kept_up(res: Results, rate_iops: float) -> None:
    """An open loop the stack did not keep up with has no steady state: its queue grew through
    the run and every figure depends on the run's length. In a stable open loop completions
    match arrivals within Poisson noise (4 standard deviations of the count, at least 5 %);
    fewer is refused in one line, with the rate the stack did sustain."""
    tol = max(0.05, 4.0 / math.sqrt(max(res.ios, 1)))
    if res.iops < rate_iops * (1 - tol) - (res.iops_ci95 or 0.0):
        err = UnstableError(
            f"workload.rate_iops = {rate_iops:g}: the stack completed only {res.iops:,.0f} IOPS "
            f"({100 * res.iops / rate_iops:.0f} % of the rate) while its queue grew through "
            "the run, so no figure of this run would hold for a longer one. The rate is above "
            f"what the stack sustains (about {float(f'{res.iops:.3g}'):,.0f} IOPS): lower it, or "
            "add capacity."
        )
        err.sustained_iops = res.iops  # (found by the run, not by the check before it)
        raise err


def _params(wl: Workload) -> dict:
    p = {
        "rw": wl.rw,
        "block_size_bytes": wl.mean_block_bytes,
        "numjobs": wl.numjobs,
        "iodepth": wl.iodepth,
    }
    if wl.rw in ("randrw", "rw", "readwrite"):
        p["rwmixread"] = wl.rwmixread
    if wl.open_loop:
        p["rate_iops"] = wl.rate_iops
        p["arrival"] = wl.arrival
    return p


def _combine(sims: list[Simulation]) -> Results:
    """Replications: means of the per-replication figures, CIs from their spread, and
    percentiles from the merged histograms."""
    parts = [results_of(s) for s in sims]
    out = results_of(sims[0])
    for key in (
        "iops",
        "read_iops",
        "write_iops",
        "bandwidth_Bps",
        "aqu_sz",
        "util",
        "unit_util",
        "qd_mean",
        "device_qd_mean",
        "block_iops",
        "sim_time_s",
    ):
        vals = [getattr(p, key) for p in parts]
        setattr(out, key, float(np.mean(vals)))
    out.ios = sum(p.ios for p in parts)
    hists = []
    for attr in ("lat", "lat_read", "lat_write", "block_lat", "device_lat"):
        h = LogHist()
        for s in sims:
            h.merge(getattr(s.rec, attr))
        hists.append(h)
    fill_latency(out, *hists)
    # mean latency as the mean of replication means (equal weights, as the CI assumes)
    out.lat_mean_s = float(np.mean([p.lat_mean_s for p in parts]))
    out.iops_ci95 = ci95_halfwidth(np.array([p.iops for p in parts]))
    out.lat_mean_ci95_s = ci95_halfwidth(np.array([p.lat_mean_s for p in parts]))
    for q in ("p50", "p90", "p99"):
        vals = np.array([getattr(p, f"lat_{q}_s") for p in parts], dtype=float)
        setattr(out, f"lat_{q}_ci95_s", ci95_halfwidth(vals))
    out.counters = {k: sum(p.counters[k] for p in parts) for k in parts[0].counters
                    if k != "device"}
    if "device" in parts[0].counters:
        out.counters["device"] = {k: sum(p.counters["device"].get(k, 0) for p in parts)
                                  for k in parts[0].counters["device"]}
    out.extra["replication_iops"] = [p.iops for p in parts]
    out.extra["replication_lat_mean_s"] = [p.lat_mean_s for p in parts]
    return out


def _grid(vary: Mapping[str, Iterable[Any]]) -> list[dict[str, Any]]:
    keys = list(vary)
    # the grid's size before anything is expanded: a range of 10^8 values is refused, not built
    sizes = [1 if isinstance(vary[k], str) else len(vary[k]) if hasattr(vary[k], "__len__")
             else None for k in keys]
    if all(n is not None for n in sizes):
        _limit(limits.check_grid_size, math.prod(sizes))
    values = []
    for k in keys:
        v = list(vary[k]) if not isinstance(vary[k], str) else [vary[k]]
        if not v:
            raise SpecError(f"--vary {k}: needs at least one value")
        values.append(v)
    _limit(limits.check_grid_size, math.prod(len(v) for v in values))
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*values)]


def _limit(check, *args, **kw):
    """Run a :mod:`iosim.limits` check, its LimitError as a SpecError."""
    try:
        return check(*args, **kw)
    except limits.LimitError as exc:
        raise SpecError(str(exc)) from None


def _refuse_unstable(stack: Stack, workload: Workload) -> None:
    """An open loop at or above the stack's capacity has no steady state: refused."""
    if not workload.open_loop:
        return
    cap = open_loop_capacity_iops(stack, workload)
    if workload.rate_iops >= cap:
        raise UnstableError(
            f"workload.rate_iops = {workload.rate_iops:g} is at or above the stack's capacity "
            f"of about {cap:.6g} IOPS"
            + (" (measured with every queue slot full: the device serves out of arrival "
               "order)"
               if stack.device.reorders(workload.read_fraction) else "")
            + ": the queue would grow without bound. Lower the rate or add capacity "
            "(device.units, paths, queue depth)."
        )


def _check_sweep(stack: Stack, workload: Workload, grid: list[dict[str, Any]], kw: dict,
                 executor: Executor | None, force: bool | None) -> dict:
    """Validate every point and estimate the whole sweep before any point runs: refused past
    the memory for its results, or past :data:`iosim.limits.MAX_WALL_S` unless forced; long
    sweeps say their estimate on stderr. Returns the keywords each point runs with."""
    ios, warm, _, reps = _check(kw["ios"], kw["warmup_ios"], kw["seed"], kw["engine"],
                                kw["replications"])
    # a lower bound first (every point costs at least a start-up and its I/Os on the fast
    # engine), so a grid far too long is refused before each point is validated
    least = limits.START_S["fast"] + (ios + (warm or 0)) * reps / limits.IOS_PER_S["fast"]
    _limit(limits.check_points, len(grid), "the sweep", least, force)
    total = 0.0
    for point in grid:
        s, w = apply_overrides(stack, workload, point)
        _refuse_unstable(s, w)  # before any estimate is announced
        warm_p = warm if warm is not None else max(
            ios // 10, 2 * w.outstanding, int(s.device.warmup_ios))
        engine = kw["engine"]
        if engine == "auto":
            engine = "fast" if fast_engine.supports(s, w) is None else "simpy"
        est = estimate(s, w, ios=ios, warmup_ios=warm_p, replications=reps, engine=engine)
        _limit(limits.check_estimate, est, f"the sweep point {point}", force)
        total += est.seconds
    workers = max(1, int(getattr(executor, "_max_workers", 1) or 1)) if executor else 1
    seconds = _limit(limits.check_points, len(grid), "the sweep", total / len(grid), force,
                     workers)
    if seconds > limits.ANNOUNCE_WALL_S:
        points = f"{len(grid):,} point{'s' if len(grid) != 1 else ''}"
        _announce(f"the sweep of {points}: estimated {limits.fmt_duration(seconds)}"
                  + (f" on {workers} workers" if workers > 1 else ""))
    return {**kw, "force": True}


def _point(args) -> Results:
    stack, workload, point, kw = args
    s, w = apply_overrides(stack, workload, point)
    r = _simulate(s, w, **kw, announce=False)
    r.params.update(point)
    return r


def _batch(args) -> list[Results]:
    """Several points in one task: the stack and workload travel once, and a worker pays one
    task's overhead for many short simulations."""
    stack, workload, points, kw = args
    return [_point((stack, workload, point, kw)) for point in points]


def _executor_slots(executor: Executor) -> int:
    """How many tasks the executor runs at once (processes, or a dask cluster's threads)."""
    n = getattr(executor, "_max_workers", None)  # concurrent.futures pools
    if not n:
        client = getattr(executor, "_client", None)  # dask's ClientExecutor
        try:
            n = sum(client.nthreads().values()) if client is not None else None
        except Exception:  # noqa: BLE001 - any failure: fall back to this machine's cores
            n = None
    return max(1, int(n or os.cpu_count() or 1))


def _chunks(n_points: int, slots: int) -> list[list[int]]:
    """Point indices in batches: four per slot (so a slow batch does not leave the others
    idle), dealt round-robin (neighbouring points cost alike: each batch gets a mix)."""
    n = max(1, min(n_points, 4 * slots))
    return [list(range(i, n_points, n)) for i in range(n) if i < n_points]


def sweep(
    stack: Stack,
    workload: Workload | None = None,
    vary: Mapping[str, Iterable[Any]] | None = None,
    *,
    ios: int = DEFAULT_IOS,
    warmup_ios: int | None = None,
    seed: int = 1,
    engine: str = "auto",
    replications: int = 1,
    progress: bool = True,
    executor: Executor | None = None,
    force: bool | None = None,
    precision: float | str | None = None,
) -> Curve:
    """Simulate every combination of the dotted keys in ``vary`` (same seed at every point, so
    differences between points are not noise). Runs on ``executor`` if given (any
    ``concurrent.futures.Executor``, e.g. a dask ``Client.get_executor()``); the results are the
    same as a serial run. A sweep estimated past :data:`iosim.limits.MAX_WALL_S` needs
    ``force`` (see :func:`simulate`). With ``precision`` every point decides its own length
    (see :func:`simulate`; the estimate then covers each point's first run only)."""
    workload = workload if workload is not None else Workload()
    grid = _grid(vary or {})
    kw = dict(ios=ios, warmup_ios=warmup_ios, seed=seed, engine=engine, replications=replications)
    # validate and estimate every point before spending time on any
    kw = _check_sweep(stack, workload, grid, kw, executor, force)
    if precision is not None:
        from .precision import parse_precision

        # each point's later rounds face the work limits as a single run does
        kw.update(precision=parse_precision(precision, "precision"), force=force)
    jobs = [(stack, workload, point, kw) for point in grid]
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(jobs), desc="sweep", leave=False)
    results: list[Results] = []
    try:
        if executor is None:
            for job in jobs:
                results.append(_point(job))
                if bar is not None:
                    bar.update(1)
        else:
            # the first point runs here: it loads the compiled engine, which local worker
            # processes forked afterwards inherit instead of each loading it again
            by_index: dict[int, Results] = {0: _point(jobs[0])} if jobs else {}
            if bar is not None and jobs:
                bar.update(1)
            rest = [i + 1 for i in range(len(grid) - 1)]
            chunks = [[rest[k] for k in c] for c in _chunks(len(rest), _executor_slots(executor))]
            futures = {
                executor.submit(_batch, (stack, workload, [grid[i] for i in idx], kw)): idx
                for idx in chunks
                if idx
            }
            # the bar moves as batches finish, in any order; results keep the grid's order
            for fut in as_completed(futures):
                idx = futures[fut]
                by_index.update(zip(idx, fut.result(), strict=True))
                if bar is not None:
                    bar.update(len(idx))
            results = [by_index[i] for i in range(len(grid))]
    finally:
        if bar is not None:
            bar.close()
    x = next(iter(vary)) if vary else None
    return Curve(results, x=x)

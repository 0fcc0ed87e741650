"""``simulate`` and ``sweep``: the public entry points that run an engine and return Results."""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Iterable, Mapping
from concurrent.futures import Executor, as_completed
from typing import Any

import numpy as np

from .engine import fast as fast_engine
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
    the effective queue depth over the time a request holds a path slot, and the link."""
    dev = stack.device
    size = workload.mean_block_bytes
    parts = max(1.0, math.ceil(size / stack.block.max_sectors_bytes))
    part = size / parts
    hold = dev.mean_service_s(part)
    caps = []
    cap_of = getattr(dev, "cap_iops", None)  # rate caps (cloud token buckets)
    if cap_of is not None:
        caps.append(cap_of(workload.read_fraction))
    if hold > 0:
        caps.append(dev.units / hold / parts)
        link = stack.link
        path_time = hold + 2 * link.latency_s + part / link.bandwidth_Bps
        caps.append(stack.effective_queue_depth / path_time / parts)
        caps.append(stack.block.nr_requests / path_time / parts)
    for key in ("bandwidth_limit_Bps",):  # a byte-rate cap (cloud volumes)
        cap_Bps = getattr(dev, key, math.inf)
        if cap_Bps is not None and math.isfinite(cap_Bps):
            caps.append(cap_Bps / size)
    if math.isfinite(stack.link.bandwidth_Bps):
        caps.append(stack.multipath.paths * stack.link.bandwidth_Bps / size)
    return min(caps) if caps else math.inf


def _check(ios: int, warmup_ios: int, seed: int, engine: str, replications: int) -> None:
    if isinstance(ios, bool) or not isinstance(ios, (int, np.integer)) or ios < 1:
        raise SpecError(f"ios must be a whole number >= 1 (got {ios!r})")
    if (
        isinstance(warmup_ios, bool)
        or not isinstance(warmup_ios, (int, np.integer))
        or warmup_ios < 0
    ):
        raise SpecError(f"warmup_ios must be a whole number >= 0 (got {warmup_ios!r})")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise SpecError(f"seed must be a whole number >= 0 (got {seed!r})")
    if engine not in ENGINES:
        raise SpecError(f"engine must be one of {', '.join(ENGINES)} (got {engine!r})")
    if not isinstance(replications, (int, np.integer)) or replications < 1:
        raise SpecError(f"replications must be a whole number >= 1 (got {replications!r})")


def simulate(
    stack: Stack,
    workload: Workload | None = None,
    *,
    ios: int = DEFAULT_IOS,
    warmup_ios: int | None = None,
    seed: int = 1,
    engine: str = "auto",
    replications: int = 1,
) -> Results:
    """Simulate ``workload`` on ``stack``: ``ios`` measured completions after ``warmup_ios``.

    With ``replications`` > 1 the run is repeated with independent streams and the confidence
    half-widths come from the spread between replications; otherwise from batch means.
    """
    workload = workload if workload is not None else Workload()
    if not isinstance(stack, Stack):
        raise SpecError(f"stack must be an iosim.Stack (got {type(stack).__name__})")
    if not isinstance(workload, Workload):
        raise SpecError(f"workload must be an iosim.Workload (got {type(workload).__name__})")
    if warmup_ios is None:
        # devices with caches start empty: they say how many I/Os it takes to fill them
        device_warmup = int(getattr(stack.device, "warmup_ios", 0))
        warmup_ios = max(ios // 10, 2 * workload.outstanding, device_warmup)
    _check(ios, warmup_ios, seed, engine, replications)
    if workload.open_loop:
        cap = open_loop_capacity_iops(stack, workload)
        if workload.rate_iops >= cap:
            raise UnstableError(
                f"workload.rate_iops = {workload.rate_iops:g} is at or above the stack's capacity "
                f"of about {cap:.6g} IOPS: the queue would grow without bound. Lower the rate "
                "or add capacity (device.units, paths, queue depth)."
            )
    reason = fast_engine.supports(stack, workload) if engine != "simpy" else "simpy asked for"
    if engine == "fast" and reason:
        raise SpecError(
            f"engine 'fast' cannot run this stack: {reason}; use engine 'simpy' or 'auto'"
        )
    used = "fast" if reason is None else "simpy"
    runner = fast_engine.run_fast_sim if used == "fast" else run_simpy
    sims = [
        runner(stack, workload, ios=ios, warmup_ios=warmup_ios, seed=seed, replication=r)
        for r in range(replications)
    ]
    res = _combine(sims) if replications > 1 else results_of(sims[0])
    res.engine = used
    res.seed = seed
    res.replications = replications
    res.params = _params(workload)
    return res


def _params(wl: Workload) -> dict:
    p = {
        "rw": wl.rw,
        "block_size_bytes": wl.mean_block_bytes,
        "numjobs": wl.numjobs,
        "iodepth": wl.iodepth,
    }
    if wl.open_loop:
        p["rate_iops"] = wl.rate_iops
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
    values = []
    for k in keys:
        v = list(vary[k]) if not isinstance(vary[k], str) else [vary[k]]
        if not v:
            raise SpecError(f"--vary {k}: needs at least one value")
        values.append(v)
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*values)]


def _point(args) -> Results:
    stack, workload, point, kw = args
    s, w = apply_overrides(stack, workload, point)
    r = simulate(s, w, **kw)
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
) -> Curve:
    """Simulate every combination of the dotted keys in ``vary`` (same seed at every point, so
    differences between points are not noise). Runs on ``executor`` if given (any
    ``concurrent.futures.Executor``, e.g. a dask ``Client.get_executor()``); the results are the
    same as a serial run."""
    workload = workload if workload is not None else Workload()
    grid = _grid(vary or {})
    # validate every point before spending time on any
    for point in grid:
        apply_overrides(stack, workload, point)
    kw = dict(ios=ios, warmup_ios=warmup_ios, seed=seed, engine=engine, replications=replications)
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

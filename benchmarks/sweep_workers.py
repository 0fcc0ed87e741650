"""Is a sweep on local worker processes ever slower than serial by more than their start-up?

    .venv/bin/python benchmarks/sweep_workers.py [--points 64] [--workers 2] [--reps 5]

Runs, interleaved and ``--reps`` times (medians printed): the points of a fast-engine sweep of
the default preset serially; the same on a ``ProcessPoolExecutor(--workers)`` created for the
run, as ``iosim sweep --workers N`` does; and the start-up alone (create the pool, one empty
task per worker). Every figure comes from the same run, so a busy machine slows all alike; on a
machine whose cores are taken by other work, workers cannot be faster, only not slower.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

from iosim import presets
from iosim.simulate import sweep


def _nothing(_: int) -> int:
    return os.getpid()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=64)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    stack, wl = presets.load(presets.DEFAULT)
    vary = {"workload.numjobs": list(range(1, args.points + 1))}
    sweep(stack, wl, {"workload.numjobs": [1]}, engine="fast", progress=False)  # load the kernel
    serial, pooled, startup = [], [], []
    for _ in range(args.reps):
        t = time.perf_counter()
        ref = sweep(stack, wl, vary, engine="fast", progress=False)
        serial.append(time.perf_counter() - t)
        t = time.perf_counter()
        with ProcessPoolExecutor(args.workers) as ex:
            par = sweep(stack, wl, vary, engine="fast", progress=False, executor=ex)
        pooled.append(time.perf_counter() - t)
        assert par.to_records() == ref.to_records()
        t = time.perf_counter()
        with ProcessPoolExecutor(args.workers) as ex:
            list(ex.map(_nothing, range(args.workers)))
        startup.append(time.perf_counter() - t)
    s, p, u = (statistics.median(x) for x in (serial, pooled, startup))
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; medians of "
          f"{args.reps} interleaved runs")
    print(f"{args.points} points serial            {s:7.3f} s")
    print(f"{args.points} points on {args.workers} workers        {p:7.3f} s  ({s / p:.2f}x)")
    print(f"pool start-up                {u:7.3f} s")
    print(f"workers - serial - start-up  {p - s - u:+7.3f} s  (target <= 0)")


if __name__ == "__main__":
    main()

"""Engine benchmarks: simulated I/Os per second of each engine, widget sweep, cold start, memory.

Run from the repository root::

    .venv/bin/python benchmarks/engine.py            # full run (a few minutes)
    .venv/bin/python benchmarks/engine.py --quick    # short run (about four minutes, warm cache)
    .venv/bin/python benchmarks/engine.py --quick --rounds 3   # each ratio: median (range)

Every ratio is measured in this one run, on this machine, so a busy machine moves both engines
alike. See benchmarks/README.md for what each line measures and the targets.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from iosim import Stack, Workload, presets  # noqa: E402
from iosim.devices import ArrayDevice  # noqa: E402
from iosim.dists import parse_dist  # noqa: E402
from iosim.engine import fast  # noqa: E402
from iosim.engine.simpy_engine import run_simpy  # noqa: E402


def reference(numjobs: int = 10):
    """The reference stack of issue 5: the default preset (HBA QD 4, 64 units, 32 us host
    overhead) with exponential 0.46 ms service, ``numjobs`` jobs of depth 1."""
    stack, wl = presets.load(presets.DEFAULT)
    stack = replace(stack, device=replace(stack.device, service=parse_dist("exp:0.46ms")))
    return stack, replace(wl, numjobs=numjobs)


def device_stacks():
    """One preset per device family the fast engine runs beyond the generic device: (label,
    key, (stack, workload)). The disk: hdd-7200 (SPTF, NCQ) with 32 outstanding random reads;
    RAID: a RAID 5 of six such disks and E8's RAID 0 of 12 disks with the controller's
    write-back cache and coalescing, 16 jobs each; the array as it comes (four RAID 5 groups of
    four disks) under 16 random readers; the SSD (nvme-intel-750: dies, channels, buffers) and a
    cloud volume (cloud-uos-1tb: token buckets) with 16 jobs of their presets' workloads; and
    RAID over those two (RAID 0 of four such volumes, RAID 10 of four such SSDs), the same."""
    stack, wl = presets.load("hdd-7200")
    yield "hdd-7200 SPTF QD 32", "hdd", (stack, replace(wl, numjobs=32))
    yield "RAID 5 of 6 hdd-7200, 16 writers", "raid5_hdd", raid5_of_disks(16)
    e8, e8_wl = presets.load("raid0-12x-hdd-wbc")
    yield "raid0-12x-hdd-wbc, numjobs 16", "raid0_wbc", (e8, replace(e8_wl, numjobs=16))
    yield "array (4 RAID 5 groups of disks), 16 readers", "array", (
        Stack(device=ArrayDevice()), Workload(rw="randread", numjobs=16))
    ssd, ssd_wl = presets.load("nvme-intel-750")
    yield "nvme-intel-750, 16 jobs", "ssd", (ssd, replace(ssd_wl, numjobs=16))
    cloud, cloud_wl = presets.load("cloud-uos-1tb")
    yield "cloud-uos-1tb, 16 jobs", "cloud", (cloud, replace(cloud_wl, numjobs=16))
    # RAID over the other families: md over four such volumes, RAID 10 of four such SSDs
    striped = Stack.from_dict({**cloud.to_dict(), "device": {
        "kind": "raid", "level": "0", "members": 4, "member": cloud.device.to_dict()}})
    yield "RAID 0 of 4 cloud-uos-1tb, 16 jobs", "raid0_cloud", (
        striped, replace(cloud_wl, numjobs=16))
    mirrored = Stack.from_dict({**ssd.to_dict(), "device": {
        "kind": "raid", "level": "10", "members": 4, "member": ssd.device.to_dict()}})
    yield "RAID 10 of 4 nvme-intel-750, 16 jobs", "raid10_ssd", (
        mirrored, replace(ssd_wl, numjobs=16))


# The reference engine's run of a device row is simpy_ios // 5 I/Os, except where that would
# measure a transient: E8's controller cache holds 1,024 4 KiB writes, and SimPy simulates the
# writes that fill it faster than those that wait for destages.
SIMPY_SHARE = {"raid0_wbc": 1}


def raid5_of_disks(numjobs: int):
    """Notebook 05's RAID: RAID 5 of six hdd-7200 disks (FIFO), no controller cache, under the
    E8 workload (4 KiB random writes) of ``numjobs`` jobs."""
    e8, wl = presets.load("raid0-12x-hdd-wbc")
    member = {**presets.load("hdd-7200")[0].device.to_dict(), "scheduler": "fifo"}
    stack = e8.with_(**{
        "device.member": member, "device.members": 6, "device.level": "5",
        "device.write_cache_bytes": 0, "device.controller_overhead_s": 0,
        "device.coalesce_count": 1, "device.coalesce_timeout_s": 0})
    return stack, replace(wl, numjobs=numjobs)


def rate_simpy(stack, wl, ios: int) -> float:
    warm = max(ios // 10, 2 * wl.outstanding)
    t = time.perf_counter()
    run_simpy(stack, wl, ios=ios, warmup_ios=warm, seed=1)
    return (ios + warm) / (time.perf_counter() - t)


def rate_fast(stack, wl, ios: int, repeat: int = 3) -> float:
    warm = max(ios // 10, 2 * wl.outstanding)
    best = 0.0
    for r in range(repeat):
        t = time.perf_counter()
        fast.run_fast_sim(stack, wl, ios=ios, warmup_ios=warm, seed=1 + r)
        best = max(best, (ios + warm) / (time.perf_counter() - t))
    return best


def ratio_rounds(stack, wl, simpy_ios: int, fast_ios: int, rounds: int):
    """``rounds`` alternations of a SimPy run and a fast measurement (best of three) of the
    same stack: (SimPy rates, fast rates, their ratios), one per round. On a shared machine a
    single round's ratio moves by a third from one run to the next (the nvme-intel-750 row gave
    121 to 187 in one afternoon): several rounds give its median and range."""
    s_rates, f_rates = [], []
    for _ in range(rounds):
        s_rates.append(rate_simpy(stack, wl, simpy_ios))
        f_rates.append(rate_fast(stack, wl, fast_ios))
    return s_rates, f_rates, [f / s for s, f in zip(s_rates, f_rates, strict=True)]


def _shown(values: list[float], fmt: str) -> str:
    """The median of ``values``, and their range when there are several."""
    mid = format(statistics.median(values), fmt)
    if len(values) == 1:
        return mid
    return f"{mid} ({format(min(values), fmt)}-{format(max(values), fmt)})"


def widget_sweep(points: int = 12, ios: int = 20_000, repeat: int = 5) -> tuple[float, float]:
    """Seconds for numjobs = 1..points on the default preset (the explorer widget's sweep):
    (engine only: run_fast per point, the same via iosim.sweep when it offers engine='fast')."""
    import iosim

    stack, wl = presets.load(presets.DEFAULT)
    times, via_sweep = [], []
    for _ in range(repeat):
        t = time.perf_counter()
        for n in range(1, points + 1):
            w = replace(wl, numjobs=n)
            fast.run_fast(stack, w, ios=ios, warmup_ios=max(ios // 10, 2 * n), seed=1)
        times.append(time.perf_counter() - t)
        try:
            t = time.perf_counter()
            iosim.sweep(stack, wl, {"workload.numjobs": list(range(1, points + 1))}, ios=ios,
                        seed=1, engine="fast", progress=False)
            via_sweep.append(time.perf_counter() - t)
        except iosim.SpecError:  # simulate() does not offer the fast engine yet
            pass
    return min(times), (min(via_sweep) if via_sweep else float("nan"))


def against_minimal_loop(ios: int, repeat: int = 3) -> tuple[float, float]:
    """I/Os per second of iosim's fast engine and of ``minimal_loop.closed_loop`` on the
    simplest stack (16 jobs of depth 1, no host overhead, no HBA limit, 4 units, exponential
    0.46 ms service), best of ``repeat`` each, interleaved so load moves both alike."""
    import numpy as np
    from minimal_loop import closed_loop

    from iosim import apply_overrides

    stack, wl = presets.load("allflash-lun")
    stack, wl = apply_overrides(stack, wl, {
        "host.overhead": "0s", "hba.queue_depth": 10**6, "block.nr_requests": 10**6,
        "link.latency_s": "0s", "device.units": 4, "device.service": "exp:0.46ms",
        "workload.numjobs": 16,
    })
    fast.run_fast_sim(stack, wl, ios=1000, warmup_ios=100, seed=1)
    closed_loop(16, 4, 0.46e-3, 1000, np.random.default_rng(1))  # compile or load
    best_iosim = best_min = 0.0
    for r in range(repeat):
        t = time.perf_counter()
        fast.run_fast(stack, wl, ios=ios, warmup_ios=1000, seed=1 + r)
        best_iosim = max(best_iosim, (ios + 1000) / (time.perf_counter() - t))
        t = time.perf_counter()
        closed_loop(16, 4, 0.46e-3, ios + 1000, np.random.default_rng(1 + r))
        best_min = max(best_min, (ios + 1000) / (time.perf_counter() - t))
    return best_iosim, best_min


CHILD_FIRST_RESULT = """
import time, sys
t0 = time.perf_counter()
from dataclasses import replace
from iosim import presets
from iosim.engine.fast import run_fast
stack, wl = presets.load(presets.DEFAULT)
r = run_fast(stack, wl, ios=20000, warmup_ios=2000, seed=1)
print(time.perf_counter() - t0, r.iops)
"""

# The child reads its peak resident set from /proc (VmHWM, KiB), not from getrusage: Linux
# keeps ru_maxrss across exec, so a child of this (large) process would report ours.
CHILD_MEMORY = """
import sys, time
sys.path.insert(0, {root!r})
sys.path.insert(0, {bench!r})
from engine import reference
from iosim.engine.fast import run_fast


def hwm_kib():
    with open("/proc/self/status") as f:
        return next(float(line.split()[1]) for line in f if line.startswith("VmHWM:"))


stack, wl = reference()
before = hwm_kib()
t = time.perf_counter()
r = run_fast(stack, wl, ios={ios}, warmup_ios=10000, seed=1)
dt = time.perf_counter() - t
peak = hwm_kib()
print(before / 1024, peak / 1024, dt, r.ios)
"""


def cold_start(repeat: int = 3) -> tuple[float, float]:
    """Seconds from launching a new interpreter to its first fast result (compile cache warm):
    (whole process wall time, time inside the script after interpreter start)."""
    walls, inner = [], []
    for _ in range(repeat):
        t = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", CHILD_FIRST_RESULT], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout
        walls.append(time.perf_counter() - t)
        inner.append(float(out.split()[0]))
    return statistics.median(walls), statistics.median(inner)


def peak_memory(ios: int) -> tuple[float, float, float]:
    """(MiB after imports, peak MiB, seconds) of a new process running ``ios`` I/Os."""
    code = CHILD_MEMORY.format(root=str(ROOT), bench=str(ROOT / "benchmarks"), ios=ios)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout.split()
    return float(out[0]), float(out[1]), float(out[2])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="short runs (10^7 I/Os for memory)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON too")
    ap.add_argument("--rounds", type=int, default=1, metavar="N",
                    help="alternate each ratio row's SimPy and fast runs N times and print "
                    "the median (range); default 1")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error(f"--rounds must be a whole number >= 1 (got {args.rounds})")
    q = args.quick
    simpy_ios = 20_000 if q else 100_000
    fast_ios = 2_000_000 if q else 10_000_000
    mem_ios = 10**7 if q else 10**8

    t = time.perf_counter()
    ref, ref_wl = reference(10)
    fast.run_fast_sim(ref, ref_wl, ios=1000, warmup_ios=100, seed=1)  # compile or load cache
    compile_s = time.perf_counter() - t

    rows = []
    figures = {"compile_or_load_s": compile_s}
    for label, n in (("reference stack (10 jobs)", 10), ("256-job stack", 256)):
        stack, wl = reference(n)
        s, f, r = ratio_rounds(stack, wl, simpy_ios, fast_ios, args.rounds)
        rows.append((f"simpy I/Os per s, {label}", _shown(s, ",.0f"), ""))
        rows.append((f"fast I/Os per s, {label}", _shown(f, ",.0f"), ""))
        target = ">= 150" if n == 10 else ""
        rows.append((f"fast / simpy, {label}", _shown(r, ",.0f"), target))
        figures[f"simpy_ios_per_s_{n}"] = statistics.median(s)
        figures[f"fast_ios_per_s_{n}"] = statistics.median(f)
        figures[f"ratio_{n}"] = statistics.median(r)
    for label, key, (stack, wl) in device_stacks():
        s, f, r = ratio_rounds(stack, wl, simpy_ios // SIMPY_SHARE.get(key, 5), fast_ios // 10,
                               args.rounds)
        rows.append((f"simpy I/Os per s, {label}", _shown(s, ",.0f"), ""))
        rows.append((f"fast I/Os per s, {label}", _shown(f, ",.0f"), ""))
        rows.append((f"fast / simpy, {label}", _shown(r, ",.0f"), ">= 150"))
        figures[f"simpy_ios_per_s_{key}"] = statistics.median(s)
        figures[f"fast_ios_per_s_{key}"] = statistics.median(f)
        figures[f"ratio_{key}"] = statistics.median(r)
    mine, floor = against_minimal_loop(fast_ios // 2)
    rows.append(("fast I/Os per s, simplest stack (16 jobs, 4 units)", f"{mine:,.0f}", ""))
    rows.append(("minimal numba closed loop, same stack", f"{floor:,.0f}", ""))
    rows.append(("minimal loop / fast engine", f"{floor / mine:.1f}", "<= 2"))
    figures.update(simplest_fast_ios_per_s=mine, minimal_loop_ios_per_s=floor)
    sweep_s, sweep_api_s = widget_sweep()
    rows.append(("12-point sweep x 20,000 I/Os, run_fast (s)", f"{sweep_s:.3f}", "<= 0.05"))
    if sweep_api_s == sweep_api_s:
        rows.append(("12-point sweep x 20,000 I/Os, iosim.sweep (s)", f"{sweep_api_s:.3f}", ""))
    figures["sweep_s"] = sweep_s
    figures["sweep_api_s"] = sweep_api_s
    wall, inner = cold_start()
    rows.append(("new process to first result, cached compile (s)", f"{wall:.2f}", "<= 3"))
    rows.append(("  of which in the script after interpreter start (s)", f"{inner:.2f}", ""))
    figures["cold_start_s"] = wall
    base, peak, secs = peak_memory(mem_ios)
    rows.append((f"peak memory of a {mem_ios:.0e}-I/O run (MiB)", f"{peak:.0f}", "<= 300"))
    rows.append(("  of which after imports, before the run (MiB)", f"{base:.0f}", ""))
    rows.append((f"  that run's I/Os per s (10^{len(str(mem_ios)) - 1} I/Os)",
                 f"{mem_ios / secs:,.0f}", ""))
    figures.update(peak_mib=peak, base_mib=base, mem_run_s=secs)

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"iosim engine benchmark ({'quick' if q else 'full'}); python {platform.python_version()}"
          f", {os.cpu_count()} CPUs, load average {load:.1f}; first fast call (compile or cache "
          f"load) {compile_s:.1f} s")
    w = max(len(r[0]) for r in rows)
    v = max(14, *(len(r[1]) for r in rows))
    print(f"{'measure':<{w}}  {'value':>{v}}  target")
    print(f"{'-' * w}  {'-' * v}  ------")
    for name, value, target in rows:
        print(f"{name:<{w}}  {value:>{v}}  {target}")
    if args.json:
        print(json.dumps({k: (None if v != v else v) for k, v in figures.items()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The fast engine against the reference engine: the same answers.

Both engines run the same processes, draw the same named random streams in the same order and
break ties at equal times in the same order (SimPy's: process starts, then timed events in
scheduling order, then events triggered at that instant in trigger order). So on every stack
here, deterministic or random, every figure of the Results is identical: I/O counts, means,
percentiles, time averages, confidence intervals, counters. Independently seeded runs of the two
engines, which share no random numbers, agree within their confidence intervals.
"""

import math
from dataclasses import replace

import pytest
from equality import both, differences
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from iosim import presets
from iosim.devices import GenericDevice
from iosim.devices.cloud import CloudDevice
from iosim.devices.hdd import HddDevice
from iosim.devices.ssd import SsdDevice
from iosim.engine.fast import run_fast, supports
from iosim.engine.recorder import DEFAULT_BATCHES
from iosim.engine.simpy_engine import run_simpy
from iosim.engine.summary import results_of
from iosim.simulate import open_loop_capacity_iops, simulate
from iosim.stack import (
    BlockSpec,
    HbaSpec,
    HostSpec,
    LinkSpec,
    MultipathSpec,
    PauseSpec,
    Stack,
)
from iosim.workload import Workload


def make_stack(*, device=None, overhead=None, nr_requests=None, max_sectors_bytes=None, qd=None,
               paths=None, policy=None, failover_timeout_s=None, failures=None, latency_s=None,
               bandwidth_Bps=None, cloud=None, ssd=None, cpus=None, pauses=None) -> Stack:
    def given(**kw):
        return {k: v for k, v in kw.items() if v is not None}

    parts = {}
    if overhead is not None or cpus is not None:
        parts["host"] = HostSpec(**given(overhead=overhead, cpus=cpus))
    if b := given(nr_requests=nr_requests, max_sectors_bytes=max_sectors_bytes):
        parts["block"] = BlockSpec(**b)
    if qd is not None:
        parts["hba"] = HbaSpec(queue_depth=qd)
    if m := given(paths=paths, policy=policy, failover_timeout_s=failover_timeout_s,
                  failures=failures):
        parts["multipath"] = MultipathSpec(**m)
    if li := given(latency_s=latency_s, bandwidth_Bps=bandwidth_Bps):
        parts["link"] = LinkSpec(**li)
    if ssd is not None:
        device = SsdDevice(**ssd)
    elif cloud is not None:
        device = CloudDevice(**cloud)
    else:
        device = GenericDevice(**(device or {}))
    if pauses is not None:
        parts["pauses"] = PauseSpec(**pauses)
    return Stack(device=device, **parts)


def dev(units, service, **kw):
    return dict(units=units, service=service, **kw)


# a small SSD: 2 channels x 2 dies x 2 planes, 4 KiB pages, MLC page types, an 8-page buffer
SMALL_SSD = dict(channels=2, dies_per_channel=2, planes_per_die=2, page_bytes=4096,
                 read_slow_s="det:80us", program_slow_s="det:1.5ms", controller_overhead_s=5e-6,
                 host_interface_Bps=1e9, write_buffer_bytes=8 * 4096)


def ssd(**kw):
    return {**SMALL_SSD, **kw}


# name -> (stack, workload); "det" in the name: every time in it is deterministic
MATRIX = {
    "det-reference": (make_stack(qd=4, device=dev(64, "det:0.46ms")), Workload(numjobs=10)),
    "det-preset-overhead": (make_stack(overhead="0.032ms", qd=4, device=dev(64, "det:0.46ms")),
                            Workload(numjobs=12, block_size_bytes=8192)),
    "det-one-unit": (make_stack(device=dev(1, "det:1ms")), Workload(numjobs=3)),
    "det-serial-cpu": (make_stack(overhead="det:0.1ms", device=dev(4, "det:0.5ms")),
                       Workload(numjobs=3, iodepth=4)),
    "det-think": (make_stack(device=dev(2, "det:0.3ms")), Workload(numjobs=4, thinktime_s=1e-3)),
    "det-nr-requests": (make_stack(nr_requests=2, device=dev(4, "det:0.4ms")),
                        Workload(numjobs=8)),
    "det-split": (make_stack(nr_requests=3, max_sectors_bytes=262144,
                             device=dev(2, "det:0.2ms", media_rate_Bps=1e9)),
                  Workload(numjobs=2, block_size_bytes=1048576)),
    "det-link-writes": (make_stack(bandwidth_Bps=3e8, latency_s=5e-6, device=dev(2, "det:0.1ms")),
                        Workload(rw="write", numjobs=2, block_size_bytes=131072)),
    "det-multipath-rr": (make_stack(paths=2, qd=2, device=dev(8, "det:0.3ms")),
                         Workload(numjobs=6)),
    "det-path-failure": (make_stack(paths=2, qd=2, failover_timeout_s=2e-3,
                                    failures=[{"path": 0, "fail_at_s": 0.05,
                                               "restore_at_s": 0.2}],
                                    device=dev(4, "det:0.3ms")),
                         Workload(numjobs=6)),
    "det-path-fails-at-0": (make_stack(paths=2, qd=4, failures=[{"path": 0, "fail_at_s": 0.0}],
                                       device=dev(2, "det:0.5ms")),
                            Workload(numjobs=4)),
    "det-open-paced": (make_stack(device=dev(2, "det:0.9ms")),
                       Workload(rate_iops=2000, arrival="paced")),
    "det-zero-service": (make_stack(bandwidth_Bps=1e9,
                                    device=dev(1, "det:0", media_rate_Bps=1e9)),
                         Workload(rw="read", numjobs=3)),
    "exp-reference": (make_stack(qd=4, device=dev(64, "exp:0.46ms")), Workload(numjobs=10)),
    "exp-serial-cpu": (make_stack(overhead="exp:0.1ms", device=dev(4, "exp:0.5ms")),
                       Workload(numjobs=3, iodepth=4)),
    "split-bssplit": (make_stack(nr_requests=5, max_sectors_bytes=131072,
                                 device=dev(3, "exp:0.2ms", media_rate_Bps=5e8)),
                      Workload(numjobs=3, iodepth=2, bssplit="4k/50:512k/30:1m/20")),
    "randrw-link": (make_stack(latency_s=2e-5, bandwidth_Bps=1e9, device=dev(8, "det:0.1ms")),
                    Workload(rw="randrw", rwmixread=70, numjobs=6, block_size_bytes=65536)),
    "queue-length": (make_stack(paths=3, qd=2, policy="queue-length", latency_s=5e-6,
                                device=dev(4, "exp:0.3ms")),
                     Workload(numjobs=9)),
    "service-time": (make_stack(paths=2, qd=3, policy="service-time", bandwidth_Bps=5e8,
                                device=dev(4, "det:0.2ms")),
                     Workload(numjobs=5, bssplit="4k/70:128k/30")),
    "failures-random": (make_stack(paths=3, qd=2, policy="queue-length", failover_timeout_s=1e-3,
                                   latency_s=1e-5, bandwidth_Bps=2e9,
                                   failures=[{"path": 1, "fail_at_s": 0.03,
                                              "restore_at_s": 0.1},
                                             {"path": 0, "fail_at_s": 0.2}],
                                   device=dev(4, "exp:0.3ms")),
                        Workload(rw="randrw", numjobs=8)),
    "open-poisson": (make_stack(device=dev(4, "exp:1ms")), Workload(rate_iops=2800)),
    "open-split-link": (make_stack(max_sectors_bytes=65536, latency_s=1e-5, bandwidth_Bps=1e9,
                                   device=dev(4, "exp:0.2ms")),
                        Workload(rate_iops=3000, rw="randwrite", block_size_bytes=262144)),
    "lognormal": (make_stack(qd=8, device=dev(4, "lognormal:0.5ms,scv=2")), Workload(numjobs=6)),
    # units that slow each other: every I/O in service at once, and fewer units than I/Os
    "contention-all-in-service": (make_stack(qd=64, device=dev(4096, "exp:0.1ms",
                                                                contention=0.1)),
                                  Workload(iodepth=32)),
    "contention-queued": (make_stack(overhead="det:5us", device=dev(
        4, "lognormal:0.2ms,scv=0.3", contention=0.3)), Workload(numjobs=8)),
    "gamma": (make_stack(device=dev(3, "gamma:0.5ms,scv=0.5")), Workload(numjobs=2, iodepth=3)),
    "uniform-overhead": (make_stack(overhead="uniform:10us,50us",
                                    device=dev(2, "uniform:0.1ms,0.9ms")),
                         Workload(numjobs=3)),
    "sequential-mix": (make_stack(bandwidth_Bps=2e9, device=dev(2, "exp:0.1ms")),
                       Workload(rw="rw", rwmixread=60, numjobs=2, iodepth=2)),
    "unlimited-queues": (make_stack(nr_requests=10**6, qd=100_000, device=dev(16, "exp:1ms")),
                         Workload(numjobs=32)),
    "det-cloud-burst": (make_stack(cloud=dict(iops_limit=500, burst_iops=3000, burst_credits=2000,
                                              latency="det:0.2ms")),
                        Workload(numjobs=4, iodepth=4)),
    "cloud-separate-caps": (make_stack(qd=32, cloud=dict(
        read_iops_limit=3000, write_iops_limit=1000, read_bandwidth_limit_Bps=50e6,
        latency="exp:0.5ms", write_latency="det:1ms")),
        Workload(rw="randrw", numjobs=8, iodepth=4, bssplit="4k/70:1m/30")),
    "cloud-shared-budget": (make_stack(cloud=dict(
        cap_model="shared", read_iops_limit=3000, write_iops_limit=1000,
        write_bandwidth_limit_Bps=20e6, units=8, media_rate_Bps=1e9)),
        Workload(rw="randrw", numjobs=4, iodepth=8)),
    "cloud-open": (make_stack(cloud=dict(iops_limit=2000, bandwidth_limit_Bps=20e6)),
                   Workload(rate_iops=1500, rw="randwrite")),
    "det-ssd-reads": (make_stack(ssd=ssd()), Workload(rw="randread", numjobs=6,
                                                      block_size_bytes=8192)),
    "det-ssd-one-die": (make_stack(ssd=ssd(channels=1, dies_per_channel=1, planes_per_die=1,
                                           controller_overhead_s=0.0,
                                           host_interface_Bps=float("inf"))),
                        Workload(rw="randrw", numjobs=3, block_size_bytes=12288)),
    "quantiles-service": (make_stack(qd=8, device=dev(6, "quantiles:0=40us,96=70us,97=2ms,"
                                                      "100=6ms")), Workload(numjobs=12)),
    "det-ssd-read-buffer": (make_stack(ssd=ssd(read_buffer_bytes=2 * 4096)),
                            Workload(rw="randread", numjobs=8, block_size_bytes=12288)),
    "ssd-read-buffer-one-page": (make_stack(ssd=ssd(read_buffer_bytes=4096,
                                                    read_s="exp:50us")),
                                 Workload(rw="randrw", numjobs=6, bssplit="4k/50:64k/50")),
    "det-ssd-seq-reads": (make_stack(ssd=ssd()), Workload(rw="read", numjobs=2, iodepth=3,
                                                          block_size_bytes=16384)),
    "det-ssd-buffered-writes": (make_stack(ssd=ssd()),
                                Workload(rw="randwrite", numjobs=4, block_size_bytes=8192)),
    "det-ssd-seq-writes": (make_stack(ssd=ssd(write_amplification=None)),
                           Workload(rw="write", numjobs=3, iodepth=2, block_size_bytes=6144)),
    "det-ssd-buffer-full": (make_stack(ssd=ssd(write_buffer_bytes=4096, write_amplification=2.0)),
                            Workload(rw="randrw", numjobs=4, block_size_bytes=4096)),
    "det-ssd-no-buffer": (make_stack(ssd=ssd(write_buffer_bytes=0, gc=False)),
                          Workload(rw="randrw", numjobs=5, block_size_bytes=12288)),
    "det-ssd-too-big-for-buffer": (make_stack(ssd=ssd(), max_sectors_bytes=65536),
                                   Workload(rw="randwrite", numjobs=2, block_size_bytes=131072)),
    "ssd-exp-times": (make_stack(ssd=ssd(read_s="exp:50us", program_s="exp:900us",
                                         program_slow_s=None, planes_per_die=3)),
                      Workload(rw="randrw", numjobs=5, bssplit="4k/50:64k/50")),
    "ssd-open-poisson": (make_stack(ssd=ssd()), Workload(rw="randrw", rate_iops=300,
                                                         block_size_bytes=8192)),
    # the host's shared CPUs (host.cpus): depth 1, depth > 1 behind each job's own CPU, think
    # time, open loop (no overhead is paid there), a pool as large as the jobs
    "det-host-cpus": (make_stack(overhead="det:0.2ms", cpus=2, device=dev(4, "det:0.3ms")),
                      Workload(numjobs=5)),
    "exp-host-cpus": (make_stack(overhead="exp:0.2ms", cpus=3, device=dev(8, "exp:0.3ms")),
                      Workload(numjobs=8)),
    "host-cpus-serial": (make_stack(overhead="exp:0.1ms", cpus=2, device=dev(4, "exp:0.2ms")),
                         Workload(numjobs=4, iodepth=3)),
    "det-host-cpus-serial": (make_stack(overhead="det:0.1ms", cpus=1, qd=4,
                                        device=dev(4, "det:0.2ms")),
                             Workload(numjobs=3, iodepth=4)),
    "host-cpus-think": (make_stack(overhead="uniform:10us,90us", cpus=2,
                                   device=dev(2, "exp:0.1ms")),
                        Workload(numjobs=6, thinktime_s=1e-4)),
    "host-cpus-open": (make_stack(overhead="exp:50us", cpus=1, device=dev(4, "exp:1ms")),
                       Workload(rate_iops=2500)),
    "host-cpus-ample": (make_stack(overhead="exp:50us", cpus=16, device=dev(4, "exp:0.2ms")),
                        Workload(numjobs=4, iodepth=2, rw="randrw")),
    "ssd-host-cpus": (make_stack(ssd=ssd(), overhead="exp:20us", cpus=2),
                      Workload(rw="randread", numjobs=6, block_size_bytes=8192)),
    "ssd-path-failure": (make_stack(ssd=ssd(), paths=2, qd=2, failover_timeout_s=1e-3,
                                    failures=[{"path": 0, "fail_at_s": 0.02,
                                               "restore_at_s": 0.2}]),
                         Workload(rw="randrw", numjobs=6, block_size_bytes=8192)),
    # the device's pauses (stack.pauses): a deterministic schedule against deterministic
    # service (completions tied with a pause's end), random ones, an SSD, an open loop, a
    # path that fails under them
    "det-pauses": (make_stack(device=dev(4, "det:0.2ms"), pauses=dict(rate_hz=400,
                                                                      duration="det:1ms")),
                   Workload(numjobs=8)),
    "pauses-exp": (make_stack(qd=16, device=dev(8, "exp:0.1ms"),
                              pauses=dict(rate_hz=150, duration="exp:2ms")),
                   Workload(iodepth=16, rw="randrw")),
    "pauses-ssd": (make_stack(ssd=ssd(read_s="exp:50us"),
                              pauses=dict(rate_hz=100, duration="lognormal:1ms,scv=0.5")),
                   Workload(rw="randrw", numjobs=6, block_size_bytes=8192)),
    "pauses-open": (make_stack(device=dev(4, "exp:0.5ms"),
                               pauses=dict(rate_hz=80, duration="uniform:0.5ms,3ms")),
                    Workload(rate_iops=4000)),
    "pauses-path-failure": (make_stack(paths=2, qd=3, failover_timeout_s=1e-3,
                                       failures=[{"path": 1, "fail_at_s": 0.01,
                                                  "restore_at_s": 0.05}],
                                       device=dev(4, "exp:0.3ms"),
                                       pauses=dict(rate_hz=200, duration="det:0.7ms")),
                            Workload(rw="randrw", numjobs=6)),
}
# every preset the fast engine runs, with its own workload
for _name in presets.names():
    _stack, _wl = presets.load(_name)
    _wl = _wl or Workload()
    if isinstance(_stack.device, HddDevice):  # a disk's addresses end at its capacity
        _wl = replace(_wl, span_bytes=min(_wl.span_bytes, _stack.device.capacity_bytes))
    if supports(_stack, _wl) is None:
        MATRIX[f"preset-{_name}"] = (_stack, _wl)
# pauses on a disk, a RAID of disks behind its controller cache, and a RAID of SSDs
for _name, _pz in (("hdd-7200", dict(rate_hz=20, duration="exp:15ms")),
                   ("raid0-12x-hdd-wbc", dict(rate_hz=30, duration="det:4ms")),
                   ("raid10-nvme", dict(rate_hz=200, duration="exp:1ms"))):
    if _name == "raid10-nvme":
        _ssd, _wl = presets.load("nvme-intel-750")
        _stack = Stack.from_dict({**_ssd.to_dict(), "device": {
            "kind": "raid", "level": "10", "members": 4, "member": _ssd.device.to_dict()}})
    else:
        _stack, _wl = presets.load(_name)
    _stack = replace(_stack, pauses=PauseSpec(**_pz))
    MATRIX[f"pauses-preset-{_name}"] = (_stack, replace(_wl, numjobs=8))






def test_matrix_is_large_and_runs_on_the_fast_engine():
    assert len(MATRIX) >= 20
    assert sum(name.startswith("det") for name in MATRIX) >= 10
    for stack, wl in MATRIX.values():
        assert supports(stack, wl) is None


@pytest.mark.parametrize("seed", [1, 7])
@pytest.mark.parametrize("name", sorted(MATRIX))
def test_engines_give_identical_results(name, seed):
    stack, wl = MATRIX[name]
    ref, fast = both(stack, wl, ios=2000, warmup_ios=200, seed=seed)
    assert ref.ios == fast.ios and ref.counters == fast.counters
    assert differences(ref, fast) == []


@pytest.mark.parametrize("name", ["det-one-unit", "exp-reference"])
@pytest.mark.parametrize("warmup", [0, 1, 37])
def test_identical_at_the_edges_of_the_window(name, warmup):
    # (one unit: completions never coincide, so even one measured I/O spans a time > 0)
    stack, wl = MATRIX[name]
    for ios in (1, 2, 11):
        ref, fast = both(stack, wl, ios=ios, warmup_ios=warmup, seed=3)
        assert differences(ref, fast) == []


# widen a 95 % half-width from batch means (Student t, nbatch - 1 dof) to 99.9 %
TO_999 = stats.t.ppf(0.9995, DEFAULT_BATCHES - 1) / stats.t.ppf(0.975, DEFAULT_BATCHES - 1)


@pytest.mark.parametrize("name", ["exp-reference", "open-poisson", "lognormal", "split-bssplit",
                                  "queue-length"])
def test_independent_runs_agree_within_confidence_intervals(name):
    """No shared random numbers (different seeds): the engines agree as two runs of one model
    do, within their combined confidence interval."""
    stack, wl = MATRIX[name]
    ref = results_of(run_simpy(stack, wl, ios=10_000, warmup_ios=1000, seed=101))
    fast = run_fast(stack, wl, ios=10_000, warmup_ios=1000, seed=202)
    assert differences(ref, fast)  # really independent
    for key, ci in (("iops", "iops_ci95"), ("lat_mean_s", "lat_mean_ci95_s")):
        tol = TO_999 * math.hypot(getattr(ref, ci), getattr(fast, ci))
        assert abs(getattr(ref, key) - getattr(fast, key)) <= tol, (key, ref, fast)


@pytest.mark.parametrize("numjobs", [1, 4, 16, 64])
def test_the_nvme_preset_is_identical_across_the_thread_sweep(numjobs):
    """E11's SSD (16 KiB random reads, threads 1 .. 64): fast and reference agree figure for
    figure, and ``simulate`` picks the fast engine for it."""
    stack, wl = presets.load("nvme-intel-750")
    wl = replace(wl, numjobs=numjobs)
    ref, fast = both(stack, wl, ios=3000, warmup_ios=300, seed=11)
    assert ref.counters == fast.counters and ref.counters["device"]["page_reads"] > 3000
    assert differences(ref, fast) == []
    assert simulate(stack, wl, ios=200, warmup_ios=20, seed=1, engine="auto").engine == "fast"


def test_ssd_writes_are_identical_on_the_nvme_preset():
    stack, wl = presets.load("nvme-intel-750")
    for rw, n in (("randwrite", 16), ("randrw", 8)):
        ref, fast = both(stack, replace(wl, rw=rw, numjobs=n), ios=3000, warmup_ios=300, seed=4)
        assert ref.counters == fast.counters and ref.counters["device"]["page_programs"] > 0
        assert differences(ref, fast) == []


# -- generated stacks ---------------------------------------------------------------------------

dists = st.sampled_from(["det:0.3ms", "exp:0.3ms", "det:1ms", "exp:1ms", "gamma:0.4ms,scv=2",
                         "lognormal:0.2ms,scv=0.5", "uniform:0.1ms,0.5ms", "det:0"])
overheads = st.sampled_from(["0", "det:20us", "exp:50us", "uniform:0,40us"])


@st.composite
def stacks(draw):
    paths = draw(st.integers(1, 3))
    failures = []
    if paths > 1 and draw(st.booleans()):
        t = draw(st.sampled_from([0.0, 1e-3, 5e-3]))
        restore = draw(st.sampled_from([None, t + 2e-3, t + 0.02]))
        failures.append({"path": draw(st.integers(0, paths - 1)), "fail_at_s": t,
                         "restore_at_s": restore})
    service = draw(dists)
    media = draw(st.sampled_from([float("inf"), 1e9]))
    if service == "det:0" and media == float("inf"):
        media = 5e8  # a device that takes no time at all would never let the clock move
    cloud = None
    if draw(st.booleans()):
        cloud = dict(latency=service, units=draw(st.integers(1, 8)), media_rate_Bps=media,
                     cap_model=draw(st.sampled_from(["separate", "shared"])),
                     write_latency=draw(st.sampled_from([None, "det:0.5ms", "exp:0.2ms"])),
                     io_unit_bytes=draw(st.sampled_from([4096, 262144])))
        for key in ("iops_limit", "read_iops_limit", "write_iops_limit"):
            cloud[key] = draw(st.sampled_from([float("inf"), 2000.0, 8000.0]))
        for key in ("bandwidth_limit_Bps", "read_bandwidth_limit_Bps",
                    "write_bandwidth_limit_Bps"):
            cloud[key] = draw(st.sampled_from([float("inf"), 50e6]))
        if cloud["iops_limit"] < float("inf") and draw(st.booleans()):
            cloud.update(burst_iops=3 * cloud["iops_limit"], burst_credits=100.0)
    stack = make_stack(
        pauses=draw(st.sampled_from([None, None, dict(rate_hz=300, duration="det:0.5ms"),
                                     dict(rate_hz=100, duration="exp:2ms")])),
        cloud=cloud,
        device=dev(draw(st.integers(1, 8)), service, media_rate_Bps=media,
                   contention=draw(st.sampled_from([0.0, 0.0, 0.1, 0.6]))),
        overhead=draw(overheads),
        cpus=draw(st.sampled_from([0, 1, 2])),
        nr_requests=draw(st.sampled_from([1, 2, 4, 256, 10**6])),
        max_sectors_bytes=draw(st.sampled_from([4096, 65536, 524288])),
        qd=draw(st.integers(1, 6)),
        paths=paths,
        policy=draw(st.sampled_from(["round-robin", "queue-length", "service-time"])),
        failover_timeout_s=draw(st.sampled_from([0.0, 1e-3])),
        failures=failures,
        latency_s=draw(st.sampled_from([0.0, 1e-5])),
        bandwidth_Bps=draw(st.sampled_from([float("inf"), 1e9, 2e8])),
    )
    rw = draw(st.sampled_from(["randread", "randwrite", "randrw", "read", "write", "rw"]))
    sizes = draw(st.sampled_from([{"block_size_bytes": 4096}, {"block_size_bytes": 131072},
                                  {"bssplit": "4k/60:64k/30:256k/10"}]))
    if draw(st.booleans()):
        wl = Workload(rw=rw, numjobs=draw(st.integers(1, 6)), iodepth=draw(st.integers(1, 4)),
                      thinktime_s=draw(st.sampled_from([0.0, 2e-4])), **sizes)
    else:
        wl = Workload(rw=rw, rate_iops=1.0, arrival=draw(st.sampled_from(["poisson", "paced"])),
                      **sizes)
        cap = open_loop_capacity_iops(stack, wl)
        wl = Workload(rw=rw, rate_iops=cap * draw(st.sampled_from([0.3, 0.7])),
                      arrival=wl.arrival, **sizes)
    return stack, wl


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(stacks(), st.integers(0, 2**16))
def test_generated_stacks_give_identical_results(case, seed):
    stack, wl = case
    ref, fast = both(stack, wl, ios=300, warmup_ios=30, seed=seed)
    assert differences(ref, fast) == []


@st.composite
def ssd_stacks(draw):
    times = st.sampled_from(["det:50us", "exp:50us", "uniform:20us,90us"])
    progs = st.sampled_from(["det:0.9ms", "exp:0.9ms", "gamma:0.5ms,scv=2"])
    device = dict(
        channels=draw(st.integers(1, 3)), dies_per_channel=draw(st.integers(1, 3)),
        planes_per_die=draw(st.integers(1, 3)), page_bytes=draw(st.sampled_from([4096, 8192])),
        read_s=draw(times), read_slow_s=draw(st.one_of(st.none(), times)),
        program_s=draw(progs), program_slow_s=draw(st.one_of(st.none(), progs)),
        channel_rate_Bps=draw(st.sampled_from([400e6, 50e6])),
        controller_overhead_s=draw(st.sampled_from([0.0, 1e-5])),
        host_interface_Bps=draw(st.sampled_from([float("inf"), 1e9, 1e8])),
        write_buffer_bytes=draw(st.sampled_from([0, 8192, 65536])),
        read_buffer_bytes=draw(st.sampled_from([float("inf"), 8192, 32768])),
        gc=draw(st.booleans()))
    stack = make_stack(ssd=device, overhead=draw(overheads),
                       nr_requests=draw(st.sampled_from([2, 256])),
                       max_sectors_bytes=draw(st.sampled_from([16384, 524288])),
                       qd=draw(st.integers(1, 4)), paths=draw(st.integers(1, 2)),
                       bandwidth_Bps=draw(st.sampled_from([float("inf"), 1e9])))
    rw = draw(st.sampled_from(["randread", "randwrite", "randrw", "read", "write"]))
    sizes = draw(st.sampled_from([{"block_size_bytes": 4096}, {"block_size_bytes": 65536},
                                  {"bssplit": "4k/60:16k/30:128k/10"}]))
    if draw(st.booleans()):
        wl = Workload(rw=rw, numjobs=draw(st.integers(1, 6)), iodepth=draw(st.integers(1, 3)),
                      **sizes)
    else:
        wl = Workload(rw=rw, rate_iops=draw(st.sampled_from([50.0, 300.0])),
                      arrival=draw(st.sampled_from(["poisson", "paced"])), **sizes)
    return stack, wl


@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(ssd_stacks(), st.integers(0, 2**16))
def test_generated_ssd_stacks_give_identical_results(case, seed):
    stack, wl = case
    assert supports(stack, wl) is None
    ref, fast = both(stack, wl, ios=300, warmup_ios=30, seed=seed)
    assert ref.counters == fast.counters
    assert differences(ref, fast) == []

"""RAID and the array on the fast engine against the reference engine: the same answers.

``RaidModel`` (the member-I/O plan of ``raid_plan``, one member process per member I/O joined
as its ``AllOf`` joins them, reads before the writes that depend on them, the controller
overhead, the write-back cache destaged with a limit of destages in flight, completion
coalescing by count and timer) runs in the fast kernel over generic and HDD members, each
member its own state and its own random stream, so every figure of the Results is identical,
counters included: levels x member families x loads, the mirrors' read policies (alternate,
and md's read balancing, whose state is each member's pending I/Os and head position), the
cache and coalescing, degraded mode,
a member failing mid-run and its rebuild (the requests that lose an I/O re-served as the
reference re-serves them), the RAID presets, and generated RAID stacks. ``ArrayModel`` (front-end
cores, read hits, the mirrored write-back cache destaged with a limit and a pace, wide striping
over RAID groups served inline) runs over the same RAID steps, one set of state per group.
"""

from dataclasses import replace

import numpy as np
import pytest
from equality import assert_identical, both, differences, draw_layers, draw_workload
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iosim import presets
from iosim.devices import ArrayDevice, RaidDevice
from iosim.engine.fast import supports
from iosim.replay import replay
from iosim.simulate import open_loop_capacity_iops, simulate
from iosim.stack import BlockSpec, HbaSpec, Stack
from iosim.traces.blocktrace import BlockTrace
from iosim.workload import Workload

RAID_PRESETS = [n for n in presets.names() if presets.load(n)[0].device.kind == "raid"]

LEVELS = {"0": 3, "1": 2, "10": 4, "5": 4, "6": 5}
MEMBERS = {
    "generic-exp": {"kind": "generic", "units": 2, "service": "exp:0.5ms",
                    "media_rate_Bps": 500e6},
    "generic-det": {"kind": "generic", "units": 1, "service": "det:0.4ms"},
    "hdd-fifo": {"kind": "hdd", "rpm": 7200, "capacity_bytes": 50e9, "queue_depth": 8,
                 "scheduler": "fifo"},
    "hdd-sptf-cache": {"kind": "hdd", "rpm": 10000, "capacity_bytes": 50e9, "queue_depth": 16,
                       "scheduler": "sptf", "write_cache_entries": 8, "destage": "sptf"},
    "hdd-uniform": {"kind": "hdd", "rpm": 7200, "capacity_bytes": 50e9, "queue_depth": 4,
                    "scheduler": "fifo", "rotation": "uniform", "write_cache_entries": 4,
                    "destage": "fifo"},
    # cloud volumes striped or mirrored (md over EBS-like volumes): each member its own token
    # buckets; caps low enough that every load below is throttled at the members
    "cloud-shared": {"kind": "cloud", "latency": "exp:0.3ms", "write_latency": "det:0.6ms",
                     "units": 4, "cap_model": "shared", "read_iops_limit": 3000,
                     "write_iops_limit": 1500, "bandwidth_limit_Bps": 100e6,
                     "media_rate_Bps": 400e6},
    # SSDs under RAID (each member its own dies, channels, buffers and stream): MLC page
    # types, a small write buffer that fills, a read buffer that pushes back, a slow host link
    "ssd-small": {"kind": "ssd", "channels": 2, "dies_per_channel": 2, "planes_per_die": 2,
                  "page_bytes": 4096, "read_s": "exp:50us", "read_slow_s": "det:80us",
                  "program_slow_s": "det:1.5ms", "controller_overhead_s": 5e-6,
                  "write_buffer_bytes": 8 * 4096, "read_buffer_bytes": 4 * 4096,
                  "host_interface_Bps": 1e9},
    "cloud-split-burst": {"kind": "cloud", "latency": "uniform:0.2ms,0.9ms", "units": 8,
                          "read_iops_limit": 2500, "write_iops_limit": 1200,
                          "iops_limit": 2000, "burst_iops": 5000, "burst_credits": 400,
                          "io_unit_bytes": 16384, "bucket_s": 0.002},
}
LOADS = {
    "randread": dict(rw="randread", numjobs=4, iodepth=2),
    "randwrite-mix": dict(rw="randwrite", numjobs=6, bssplit="4k/50:64k/30:256k/20"),
    "randrw-qd16": dict(rw="randrw", numjobs=8, iodepth=2),
    "seq-write-full-stripes": dict(rw="write", numjobs=2, block_size_bytes=786432),
}


def raid_stack(level, member, **kw):
    dev = RaidDevice(level=level, members=LEVELS[level], member=MEMBERS[member],
                     stripe_unit_bytes=65536, **kw)
    return Stack(device=dev, block=BlockSpec(nr_requests=128), hba=HbaSpec(queue_depth=64))


@pytest.mark.parametrize("load", sorted(LOADS))
@pytest.mark.parametrize("member", sorted(MEMBERS))
@pytest.mark.parametrize("level", sorted(LEVELS))
def test_levels_over_member_families_are_identical(level, member, load):
    stack = raid_stack(level, member)
    wl = Workload(span_bytes=4e9, **LOADS[load])
    assert supports(stack, wl) is None
    ref, fast = both(stack, wl, ios=500, warmup_ios=50, seed=5)
    assert ref.counters == fast.counters
    assert differences(ref, fast) == []


# md's read balancing: the mirror of a read chosen by each member's pending I/Os and where its
# last I/O ended (rotational members), or by pending I/Os alone (generic members)
@pytest.mark.parametrize("load", ["randread", "randrw-qd16", "randwrite-mix"])
@pytest.mark.parametrize("member", ["generic-exp", "hdd-fifo", "hdd-sptf-cache"])
@pytest.mark.parametrize("level", ["1", "10"])
def test_md_read_balancing_is_identical(level, member, load):
    stack = raid_stack(level, member, read_policy="md")
    wl = Workload(span_bytes=4e9, **LOADS[load])
    assert supports(stack, wl) is None
    ref, fast = both(stack, wl, ios=800, warmup_ios=50, seed=7)
    assert ref.counters == fast.counters
    assert differences(ref, fast) == []


def test_md_read_balancing_really_acts():
    """Not a vacuous match: md's balancing changes the result (two reads over the two mirrors
    of a RAID 1 never queue, in turn they do), on both engines alike."""
    runs = {}
    for policy in ("alternate", "md"):
        stack = Stack(device=RaidDevice(level="1", members=2, member=MEMBERS["hdd-fifo"],
                                        read_policy=policy))
        runs[policy] = assert_identical(stack, Workload(rw="randread", iodepth=2,
                                                        span_bytes=4e9),
                                        ios=1500, warmup_ios=0, seed=2)[1]
    assert runs["md"].lat_mean_s < 0.9 * runs["alternate"].lat_mean_s


# the controller: overhead, the write-back cache (room and destage slots both binding), and
# completion coalescing by count and by timer (a zero timer too)
CONTROLLERS = {
    "overhead": dict(controller_overhead_s=80e-6),
    "cache": dict(write_cache_bytes=65536, destage_limit=2),
    "cache-large": dict(write_cache_bytes=4 << 20, destage_limit=64, controller_overhead_s=20e-6),
    "coalesce": dict(coalesce_count=3, coalesce_timeout_s=0.3e-3),
    "coalesce-zero-timer": dict(coalesce_count=2, coalesce_timeout_s=0.0),
    "everything": dict(controller_overhead_s=0.2e-3, write_cache_bytes=1 << 20,
                       destage_limit=4, coalesce_count=2, coalesce_timeout_s=0.4e-3),
}


@pytest.mark.parametrize("member", ["generic-exp", "hdd-sptf-cache", "ssd-small"])
@pytest.mark.parametrize("controller", sorted(CONTROLLERS))
@pytest.mark.parametrize("level", ["0", "5"])
def test_controller_cache_and_coalescing_are_identical(level, controller, member):
    stack = raid_stack(level, member, **CONTROLLERS[controller])
    for rw in ("randwrite", "randrw"):
        wl = Workload(rw=rw, numjobs=8, iodepth=2, span_bytes=4e9)
        ref, fast = both(stack, wl, ios=600, warmup_ios=60, seed=8)
        assert ref.counters == fast.counters
        assert differences(ref, fast) == []


def test_a_raid_of_cloud_volumes_is_capped_by_each_volumes_buckets():
    """Not a vacuous match for cloud members: md over volumes capped at 3,000 IOPS each. With
    64 requests outstanding every volume stays backlogged, so RAID 0 of four completes four
    caps of random reads, and RAID 1 of two two caps of reads (each read one mirror) but one
    cap of writes (each write both mirrors)."""
    volume = {"kind": "cloud", "latency": "exp:0.5ms", "units": 64, "iops_limit": 3000,
              "bucket_s": 0.005}
    hba = HbaSpec(queue_depth=128)

    def iops(level, members, rw):
        stack = Stack(device=RaidDevice(level=level, members=members, member=volume),
                      hba=hba, block=BlockSpec(nr_requests=128))
        wl = Workload(rw=rw, numjobs=64, span_bytes=4e9)
        assert supports(stack, wl) is None
        return simulate(stack, wl, ios=20_000, seed=4, engine="fast").iops

    assert iops("0", 4, "randread") == pytest.approx(4 * 3000, rel=0.02)
    assert iops("1", 2, "randread") == pytest.approx(2 * 3000, rel=0.02)
    assert iops("1", 2, "randwrite") == pytest.approx(3000, rel=0.02)


def test_a_raid_of_ssds_adds_their_dies_and_mirrors_each_write():
    """Not a vacuous match for SSD members: with every member's dies saturated, RAID 0 of two
    SSDs completes twice one SSD's random reads and writes (each request on one member), and
    RAID 1 of two completes one SSD's writes (each write programs both)."""
    ssd = {"kind": "ssd", "channels": 2, "dies_per_channel": 2, "read_s": "det:100us",
           "program_s": "det:400us", "write_buffer_bytes": 0, "host_interface_Bps": "inf"}
    layers = {"hba": {"queue_depth": 256}, "block": {"nr_requests": 256}}

    def iops(device, rw, jobs):
        stack = Stack.from_dict({"device": device, **layers})
        wl = Workload(rw=rw, numjobs=jobs)
        assert supports(stack, wl) is None
        return simulate(stack, wl, ios=20_000, seed=2, engine="fast").iops

    for rw in ("randread", "randwrite"):
        one = iops(ssd, rw, 64)
        striped = iops({"kind": "raid", "level": "0", "members": 2, "member": ssd}, rw, 128)
        assert 1.95 < striped / one < 2.02, rw
    one = iops(ssd, "randwrite", 64)
    mirrored = iops({"kind": "raid", "level": "1", "members": 2, "member": ssd}, "randwrite", 64)
    assert mirrored / one == pytest.approx(1.0, abs=0.02)


def test_the_cache_and_coalescing_really_act():
    """Not a vacuous match: writes are cached, destaged, and completions wait for company."""
    stack = raid_stack("5", "generic-exp", **CONTROLLERS["everything"])
    wl = Workload(rw="randrw", numjobs=8, span_bytes=4e9)
    ref, fast = both(stack, wl, ios=1000, warmup_ios=0, seed=2)
    c = fast.counters["device"]
    assert c["cached_writes"] > 300 and 0 < c["destages"] <= c["cached_writes"]
    # the requests' reads, plus the old data and parity read-modify-write reads for destages
    assert c["member_reads"] > c["requests"] - c["cached_writes"] + c["destages"]
    assert differences(ref, fast) == []
    plain = raid_stack("5", "generic-exp")
    lone = Workload(rw="randread", numjobs=1, span_bytes=4e9)
    slow = both(raid_stack("5", "generic-exp", **CONTROLLERS["coalesce"]), lone, ios=200,
                warmup_ios=0, seed=1)
    fast_plain = both(plain, lone, ios=200, warmup_ios=0, seed=1)[1]
    assert differences(*slow) == []
    # a lone request waits out the timer
    assert slow[1].lat_mean_s == pytest.approx(fast_plain.lat_mean_s + 0.3e-3, rel=1e-9)


def test_every_raid_preset_is_supported():
    assert "raid0-12x-hdd-wbc" in RAID_PRESETS
    for name in RAID_PRESETS:
        stack, wl = presets.load(name)
        assert supports(stack, wl or Workload()) is None, name


@pytest.mark.parametrize("iodepth", [1, 2, 16, 256])
@pytest.mark.parametrize("name", RAID_PRESETS)
def test_raid_presets_are_identical_across_e8s_depths(name, iodepth):
    stack, wl = presets.load(name)
    wl = replace(wl or Workload(), iodepth=iodepth)
    ref, fast = both(stack, wl, ios=1500, warmup_ios=150, seed=3)
    assert ref.counters == fast.counters
    assert differences(ref, fast) == []


@pytest.mark.parametrize("level", ["5", "6", "10"])
def test_notebook_05s_raid_of_disks_is_identical_and_auto_picks_fast(level):
    e8, wl = presets.load("raid0-12x-hdd-wbc")
    member = {**presets.load("hdd-7200")[0].device.to_dict(), "scheduler": "fifo"}
    stack = e8.with_(**{
        "device.member": member, "device.members": 6, "device.write_cache_bytes": 0,
        "device.controller_overhead_s": 0, "device.coalesce_count": 1,
        "device.coalesce_timeout_s": 0, "device.level": level})
    for numjobs, rw in ((16, "randwrite"), (64, "randrw")):
        w = replace(wl, numjobs=numjobs, rw=rw)
        ref, fast = both(stack, w, ios=2000, warmup_ios=200, seed=4)
        assert ref.counters == fast.counters and differences(ref, fast) == []
    assert simulate(stack, wl, ios=200, warmup_ios=20, seed=1, engine="auto").engine == "fast"


def test_open_loop_raid_is_identical():
    stack = raid_stack("5", "hdd-fifo", write_cache_bytes=1 << 20, coalesce_count=2,
                       coalesce_timeout_s=1e-3)
    wl = Workload(rw="randrw", rate_iops=1.0, span_bytes=4e9)
    wl = replace(wl, rate_iops=0.6 * open_loop_capacity_iops(stack, wl))
    ref, fast = both(stack, wl, ios=1500, warmup_ios=100, seed=6)
    assert ref.counters == fast.counters
    assert differences(ref, fast) == []


# -- degraded mode, a member failing mid-run, the rebuild ----------------------------------------

FAULTS = {
    "degraded": dict(failed_member=1),
    "fails-mid-run": dict(failed_member=1, fail_at_s=0.05),
    "fails-then-rebuilds": dict(failed_member=1, fail_at_s=0.05, rebuild_start_s=0.1,
                                rebuild_span_bytes=2e6, rebuild_io_bytes=262144,
                                rebuild_rate_Bps=50e6),
    "degraded-rebuilds-at-once": dict(failed_member=0, rebuild_start_s=0.0,
                                      rebuild_span_bytes=1e6),
    "fails-rebuilds-cached-coalesced": dict(
        failed_member=2, fail_at_s=0.03, rebuild_start_s=0.05, rebuild_span_bytes=4e6,
        write_cache_bytes=65536, destage_limit=4, coalesce_count=2, coalesce_timeout_s=1e-4),
}
FAULT_LEVELS = {"1": 3, "10": 4, "5": 4, "6": 5}


@pytest.mark.parametrize("member", ["generic-exp", "hdd-fifo", "ssd-small"])
@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("level", [*sorted(FAULT_LEVELS), "1-md", "10-md"])
def test_degraded_failure_and_rebuild_are_identical(level, fault, member):
    """(``-md``: the mirrors balanced as md does: the failed member's mirror serves, the spare
    starts idle with its head at 0.)"""
    level, _, policy = level.partition("-")
    dev = RaidDevice(level=level, members=FAULT_LEVELS[level], member=MEMBERS[member],
                     read_policy=policy or "alternate", **FAULTS[fault])
    stack = Stack(device=dev, block=BlockSpec(nr_requests=64), hba=HbaSpec(queue_depth=32))
    for rw in ("randrw", "randwrite"):
        wl = Workload(rw=rw, numjobs=8, span_bytes=4e6, bssplit="4k/70:128k/30")
        assert supports(stack, wl) is None
        ref, fast = both(stack, wl, ios=1500, warmup_ios=0, seed=5)
        assert ref.counters == fast.counters
        assert differences(ref, fast) == []


def test_the_failure_and_the_rebuild_really_act():
    """Not a vacuous match: I/Os die with the member, requests are re-served, every phase
    sees requests, and the rebuild writes its whole target to the spare."""
    dev = RaidDevice(level="5", members=4, member=MEMBERS["generic-exp"],
                     **FAULTS["fails-then-rebuilds"])
    stack = Stack(device=dev, block=BlockSpec(nr_requests=64), hba=HbaSpec(queue_depth=32))
    wl = Workload(rw="randrw", numjobs=8, span_bytes=4e6)
    ref, fast = both(stack, wl, ios=3000, warmup_ios=0, seed=5)
    c = fast.counters["device"]
    assert c["member_ios_lost"] > 0 and c["requests_re_served"] > 0
    assert c["rebuilt_bytes"] == c["rebuild_target_bytes"] > 0
    assert c["failed_at_s"] == 0.05 and c["rebuild_started_s"] == 0.1 < c["rebuild_ended_s"]
    assert min(c[f"{p}_requests"] for p in ("before_failure", "degraded", "rebuilding",
                                            "after_rebuild")) > 0
    assert c["member_reads_degraded"] > 0 and c["member_reads_rebuild"] > 0
    assert differences(ref, fast) == []


# -- the array over RAID groups ------------------------------------------------------------------

ARRAYS = {
    "default": dict(),
    "generic-raid5-hits": dict(groups=3, read_hit_ratio=0.3, write_cache_bytes=1 << 20,
                               frontend_s="exp:50us", frontend_units=2,
                               group={"kind": "raid", "level": "5", "members": 4,
                                      "member": MEMBERS["generic-exp"]}),
    "no-cache-raid10": dict(groups=2, write_cache_bytes=0,
                            group={"kind": "raid", "level": "10", "members": 4,
                                   "member": MEMBERS["generic-det"]}),
    "disks-paced-mirrored": dict(
        groups=2, write_cache_bytes=256 << 10, destage_limit=4, destage_rate_Bps=20e6,
        mirror_s=20e-6, group={"kind": "raid", "level": "6", "members": 5,
                               "member": MEMBERS["hdd-fifo"], "coalesce_count": 2,
                               "coalesce_timeout_s": 1e-4}),
    "md-raid10-disks-failing": dict(
        groups=2, write_cache_bytes=64 << 10, destage_limit=8,
        group={"kind": "raid", "level": "10", "members": 4, "member": MEMBERS["hdd-fifo"],
               "read_policy": "md", "failed_member": 2, "fail_at_s": 0.05,
               "rebuild_start_s": 0.1, "rebuild_span_bytes": 2e6}),
    # an all-flash array: RAID 5 groups of SSDs (each member its own dies and stream), an
    # empirical front end; and groups of cloud volumes, each its own token buckets
    "flash-raid5-empirical-frontend": dict(
        groups=2, write_cache_bytes=256 << 10, destage_limit=4, read_hit_ratio=0.2,
        frontend_s="quantiles:50=30us,99=120us", frontend_units=2,
        group={"kind": "raid", "level": "5", "members": 4, "member": MEMBERS["ssd-small"]}),
    "cloud-raid10-failing": dict(
        groups=2, write_cache_bytes=0,
        group={"kind": "raid", "level": "10", "members": 4, "member": MEMBERS["cloud-shared"],
               "failed_member": 1, "fail_at_s": 0.02}),
    "disks-failing-rebuilding": dict(
        groups=2, write_cache_bytes=64 << 10, destage_limit=8,
        group={"kind": "raid", "level": "5", "members": 4, "member": MEMBERS["hdd-sptf-cache"],
               "failed_member": 1, "fail_at_s": 0.05, "rebuild_start_s": 0.1,
               "rebuild_span_bytes": 2e6, "write_cache_bytes": 32768}),
}


@pytest.mark.parametrize("name", sorted(ARRAYS))
def test_arrays_over_raid_groups_are_identical(name):
    stack = Stack(device=ArrayDevice(**ARRAYS[name]), block=BlockSpec(nr_requests=64),
                  hba=HbaSpec(queue_depth=32))
    for rw in ("randrw", "randwrite", "randread"):
        wl = Workload(rw=rw, numjobs=8, span_bytes=8e6, bssplit="4k/70:128k/30")
        assert supports(stack, wl) is None
        ref, fast = both(stack, wl, ios=1500, warmup_ios=0, seed=5)
        assert ref.counters == fast.counters
        assert differences(ref, fast) == []


def test_the_arrays_cache_and_hits_really_act_and_auto_picks_fast():
    stack = Stack(device=ArrayDevice(**ARRAYS["generic-raid5-hits"]))
    ref, fast = both(stack, Workload(rw="randrw", numjobs=8, span_bytes=8e6), ios=1500,
                     warmup_ios=0, seed=5)
    c = fast.counters["device"]
    assert c["read_hits"] > 0 and c["read_misses"] > 0 and c["destages"] > 0
    assert differences(ref, fast) == []
    assert simulate(stack, Workload(), ios=200, warmup_ios=20, seed=1,
                    engine="auto").engine == "fast"


# -- trace replay on a RAID and an array -------------------------------------------------------


@pytest.mark.parametrize("device", ["raid0-12x-hdd-wbc", "array"])
@pytest.mark.parametrize("mode", ["open", "closed", "validate"])
def test_engines_give_identical_raid_and_array_replays(device, mode):
    rng = np.random.default_rng(11)
    n = 1200
    gap = 2e-3
    t = BlockTrace(arrival_s=np.cumsum(rng.exponential(gap, n)) - gap,
                   offset_bytes=rng.integers(0, int(8e9 // 4096), n) * 4096.0,
                   size_bytes=rng.choice([4096.0, 65536.0, 262144.0], n),
                   is_read=rng.random(n) < 0.6, latency_s=None,
                   idle_s=rng.exponential(gap, n), source="test")
    if device == "array":
        stack = Stack(device=ArrayDevice(**ARRAYS["disks-paced-mirrored"]))
    else:
        stack = presets.load(device)[0]
    kw = dict(mode=mode, seed=3, outstanding=6 if mode == "closed" else None)
    ref = replay(t, stack, engine="simpy", **kw)
    fast = replay(t, stack, engine="fast", **kw)
    assert (ref.results.engine, fast.results.engine) == ("simpy", "fast")
    assert differences(ref.results, fast.results) == []
    assert np.array_equal(ref.latency_s, fast.latency_s)
    assert np.array_equal(ref.issue_s, fast.issue_s)


# -- generated RAID stacks ---------------------------------------------------------------------


@st.composite
def raid_stacks(draw):
    level = draw(st.sampled_from(sorted(LEVELS)))
    n = LEVELS[level] + 2 * draw(st.integers(0, 2))
    member = dict(MEMBERS[draw(st.sampled_from(sorted(MEMBERS)))])
    if member["kind"] == "generic":
        member["service"] = draw(st.sampled_from(["det:0.3ms", "exp:0.3ms",
                                                  "gamma:0.4ms,scv=2", "uniform:0.1ms,0.5ms"]))
        member["units"] = draw(st.integers(1, 3))
    dev = RaidDevice(
        level=level, members=n, member=member,
        stripe_unit_bytes=draw(st.sampled_from([4096, 65536, 262144])),
        controller_overhead_s=draw(st.sampled_from([0.0, 50e-6])),
        write_cache_bytes=draw(st.sampled_from([0, 65536, 1 << 20])),
        destage_limit=draw(st.sampled_from([1, 4, 64])),
        coalesce_count=draw(st.sampled_from([1, 2, 4])),
        coalesce_timeout_s=draw(st.sampled_from([0.0, 0.2e-3, 2e-3])))
    if level != "0" and draw(st.booleans()):  # a member failed, or failing, and a rebuild
        fail_at = draw(st.sampled_from([0.0, 2e-3, 0.02]))
        rebuild = draw(st.sampled_from([None, 0.0, 0.03]))
        dev = dev.with_(
            failed_member=draw(st.integers(0, n - 1)), fail_at_s=fail_at,
            rebuild_start_s=None if rebuild is None else max(rebuild, fail_at),
            rebuild_span_bytes=draw(st.sampled_from([1e6, 4e6])),
            rebuild_rate_Bps=draw(st.sampled_from([float("inf"), 100e6])))
    # an array over groups of it (of any family)
    if draw(st.booleans()):
        dev = ArrayDevice(
            group=dev, groups=draw(st.integers(1, 3)),
            read_hit_ratio=draw(st.sampled_from([0.0, 0.4])),
            frontend_units=draw(st.integers(1, 4)),
            frontend_s=draw(st.sampled_from(["det:50us", "exp:30us"])),
            write_cache_bytes=draw(st.sampled_from([0, 65536, 1 << 20])),
            mirror_s=draw(st.sampled_from([0.0, 20e-6])),
            destage_limit=draw(st.sampled_from([1, 8])),
            destage_rate_Bps=draw(st.sampled_from([float("inf"), 50e6])),
            extent_bytes=draw(st.sampled_from([65536, 1 << 20])))
    stack = Stack(device=dev, **draw_layers(draw))
    rw = draw(st.sampled_from(["randread", "randwrite", "randrw", "read", "write", "rw"]))
    sizes = draw(st.sampled_from([{"block_size_bytes": 4096}, {"block_size_bytes": 131072},
                                  {"bssplit": "4k/60:64k/30:1m/10"}]))
    wl = draw_workload(draw, stack, rw, sizes, 4e9)
    # the mirrors' read policy, drawn last (the earlier draws, and so the examples, as before)
    if level in ("1", "10") and draw(st.booleans()):
        key = "device.group.read_policy" if isinstance(dev, ArrayDevice) else \
            "device.read_policy"
        stack = stack.with_(**{key: "md"})
    return stack, wl


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(raid_stacks(), st.integers(0, 2**16))
def test_generated_raid_stacks_give_identical_results(case, seed):
    stack, wl = case
    assert supports(stack, wl) is None
    assert_identical(stack, wl, ios=300, warmup_ios=30, seed=seed)

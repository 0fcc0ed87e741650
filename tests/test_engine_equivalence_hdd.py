"""The hard disk on the fast engine against the reference engine: the same answers.

``HddModel`` (NCQ tags, command overhead, the actuator process picking FIFO or SPTF among its
queue, seek curve or measured seek table, rotation by angular position or uniform, zoned
transfer, the write-back cache destaged by position, read-ahead streaming while idle, buffer
hits, interface transfer) runs in the fast kernel with the same event order and the same random
streams, so every figure of the Results is identical, counters included, on every HDD preset and
on generated HDD stacks.
"""

from dataclasses import replace

import numpy as np
import pytest
from equality import assert_identical, both, differences, draw_layers, draw_workload
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iosim import presets
from iosim.devices.hdd import HddDevice
from iosim.engine.fast import run_fast, supports
from iosim.engine.simpy_engine import run_simpy
from iosim.replay import replay
from iosim.simulate import open_loop_capacity_iops, simulate
from iosim.spec import SpecError
from iosim.stack import HbaSpec, MultipathSpec, Stack
from iosim.traces.blocktrace import BlockTrace
from iosim.workload import Workload

HDD_PRESETS = [n for n in presets.names() if presets.load(n)[0].device.kind == "hdd"]






def preset_disk(name, **changes):
    stack, wl = presets.load(name)
    dev = replace(stack.device, **changes)
    wl = wl or Workload()
    span = min(wl.span_bytes, dev.capacity_bytes)
    return replace(stack, device=dev), replace(wl, span_bytes=span)


def test_every_hdd_preset_is_supported():
    assert set(HDD_PRESETS) >= {"hdd-7200", "hdd-10k", "hdd-15k", "hdd-sata-fio",
                                "hdd-sata-iometer", "hdd-atlas10k"}
    for name in HDD_PRESETS:
        stack, wl = preset_disk(name)
        assert supports(stack, wl) is None, name


# the features, one at a time and together (changes to the preset's device)
FEATURES = {
    "fifo": dict(scheduler="fifo", read_ahead_bytes=0, write_cache_entries=0),
    "sptf": dict(scheduler="sptf", read_ahead_bytes=0, write_cache_entries=0),
    "fifo-read-ahead": dict(scheduler="fifo", write_cache_entries=0),
    "sptf-cache-sptf": dict(scheduler="sptf", write_cache_entries=16, destage="sptf"),
    "fifo-cache-fifo": dict(scheduler="fifo", write_cache_entries=4, destage="fifo",
                            read_ahead_bytes=0),
    "uniform": dict(scheduler="fifo", rotation="uniform", write_cache_entries=8,
                    destage="fifo"),
    "slow-interface": dict(scheduler="sptf", interface_Bps=40e6, overhead_s=50e-6,
                           read_hit_overhead_s=20e-6, write_cached_overhead_s=30e-6,
                           write_cache_entries=8, write_settle_s=0.2e-3,
                           head_switch_s=0.8e-3),
    "free-blocks-fifo": dict(scheduler="fifo", read_free_blocks=True, write_cache_entries=4,
                             destage="fifo", head_switch_s=0.5e-3),
    "free-blocks-uniform": dict(scheduler="fifo", rotation="uniform", read_free_blocks=True,
                                write_cache_entries=0),
    "free-blocks-sptf": dict(scheduler="sptf", read_free_blocks=True, write_cache_entries=16,
                             destage="sptf", interface_Bps=40e6),
    "track-end": dict(scheduler="fifo", read_ahead_track_end=True, write_cache_entries=0),
    "track-end-sptf-free": dict(scheduler="sptf", read_ahead_track_end=True,
                                read_free_blocks=True, write_cache_entries=8, destage="sptf"),
}
LOADS = {
    "randread-qd1": dict(rw="randread", numjobs=1, iodepth=1),
    "randread-qd16": dict(rw="randread", numjobs=4, iodepth=4),
    "randwrite-qd8": dict(rw="randwrite", numjobs=8, iodepth=1),
    "randrw-64k": dict(rw="randrw", numjobs=2, iodepth=4, block_size_bytes=65536),
    "read-think": dict(rw="read", numjobs=1, iodepth=1, thinktime_s=0.3e-3,
                       block_size_bytes=65536),
    "rw-mix": dict(rw="rw", numjobs=2, iodepth=2, bssplit="4k/50:64k/40:512k/10"),
    "write-seq": dict(rw="write", numjobs=1, iodepth=4),
}


@pytest.mark.parametrize("load", sorted(LOADS))
@pytest.mark.parametrize("feature", sorted(FEATURES))
@pytest.mark.parametrize("name", HDD_PRESETS)
def test_hdd_presets_are_identical(name, feature, load):
    stack, wl = preset_disk(name, **FEATURES[feature])
    wl = replace(wl, **LOADS[load], span_bytes=min(100e9, wl.span_bytes))
    assert supports(stack, wl) is None
    ref, fast = both(stack, wl, ios=600, warmup_ios=60, seed=5)
    assert ref.counters == fast.counters
    assert differences(ref, fast) == []


@pytest.mark.parametrize("name", HDD_PRESETS)
def test_open_loop_on_every_hdd_preset_is_identical(name):
    stack, wl = preset_disk(name, write_cache_entries=8)
    wl = replace(wl, rw="randrw", numjobs=1, iodepth=1, rate_iops=1.0)
    wl = replace(wl, rate_iops=0.6 * open_loop_capacity_iops(stack, wl))
    ref, fast = both(stack, wl, ios=800, warmup_ios=80, seed=2)
    assert ref.counters == fast.counters
    assert differences(ref, fast) == []


def test_the_sequential_reader_hits_the_read_ahead_and_the_cache_is_used():
    """Not a vacuous match: the features under test really act in these runs."""
    stack, wl = preset_disk("hdd-7200", write_cache_entries=16)
    ref, fast = both(stack, replace(wl, rw="read", thinktime_s=0.3e-3), ios=500,
                     warmup_ios=0, seed=1)
    assert fast.counters["device"]["cache_reads"] > 400 and differences(ref, fast) == []
    ref, fast = both(stack, replace(wl, rw="randwrite", numjobs=8), ios=500, warmup_ios=0,
                     seed=1)
    assert fast.counters["device"]["cache_writes"] >= 500
    assert differences(ref, fast) == []


@pytest.mark.parametrize("name", ["hdd-atlas10k", "hdd-7200"])
@pytest.mark.parametrize("rotation", ["exact", "uniform"])
def test_reads_stepping_back_hit_the_free_blocks_on_both_engines(name, rotation):
    """Not a vacuous match: with ``read_free_blocks`` a read a few sectors before the previous
    one finds them in the buffer (the head passed over them while waiting for the previous
    read's first sector), without it never; the engines agree either way."""
    rng = np.random.default_rng(7)
    n = 400
    offset = rng.integers(1, int(8e9 // 4096), n) * 4096.0
    offset[1::2] = offset[0::2] - 4096.0  # every other read: the 4 KiB before the last one
    t = BlockTrace(arrival_s=np.zeros(n), offset_bytes=offset, size_bytes=np.full(n, 4096.0),
                   is_read=np.ones(n, bool), latency_s=None, idle_s=np.full(n, 2e-3),
                   source="test")
    hits = {}
    for free in (False, True):
        dev = replace(presets.load(name)[0].device, read_free_blocks=free, rotation=rotation,
                      scheduler="fifo", write_cache_entries=0)
        stack = replace(presets.load(name)[0], device=dev)
        ref = replay(t, stack, engine="simpy", mode="validate", seed=3)
        fast = replay(t, stack, engine="fast", mode="validate", seed=3)
        assert differences(ref.results, fast.results) == []
        assert np.array_equal(ref.latency_s, fast.latency_s)
        hits[free] = fast.results.counters["device"]["cache_reads"]
    # (a step back is a hit unless the head landed within 4 KiB of the first read's start,
    # or that start is within 4 KiB of its track's: most of the n / 2 steps)
    assert hits[False] == 0 and hits[True] > 0.6 * n / 2, hits


@pytest.mark.parametrize("name", ["hdd-atlas10k", "hdd-7200"])
def test_read_ahead_to_the_track_end_stops_there_on_both_engines(name):
    """Not a vacuous match: with ``read_ahead_track_end`` a read a track and a half past
    the previous one misses (the read-ahead stopped at the end of that read's track) and a
    read just after it hits; with ``read_ahead_bytes`` ahead (more than a track and a half
    here) both hit. The engines agree either way."""
    base = presets.load(name)[0]
    track = base.device.media_rate_od_Bps * 60.0 / base.device.rpm  # bytes, outer tracks
    rng = np.random.default_rng(8)
    n = 300
    offset = rng.integers(1, int(1e8 // 4096), n) * 4096.0  # the outer zone
    offset[1::3] = offset[0::3] + 4096.0
    offset[2::3] = offset[0::3] + np.floor(1.5 * track / 4096) * 4096.0
    t = BlockTrace(arrival_s=np.zeros(n), offset_bytes=offset, size_bytes=np.full(n, 4096.0),
                   is_read=np.ones(n, bool), latency_s=None, idle_s=np.full(n, 30e-3),
                   source="test")
    hits = {}
    for track_end in (False, True):
        dev = replace(base.device, read_ahead_track_end=track_end, read_free_blocks=False,
                      read_ahead_bytes=2.0 * track, scheduler="fifo", write_cache_entries=0)
        stack = replace(base, device=dev)
        ref = replay(t, stack, engine="simpy", mode="validate", seed=3)
        fast = replay(t, stack, engine="fast", mode="validate", seed=3)
        assert differences(ref.results, fast.results) == []
        assert np.array_equal(ref.latency_s, fast.latency_s)
        hits[track_end] = fast.results.counters["device"]["cache_reads"]
    assert hits[False] >= 0.95 * 2 * n / 3 and 0.95 * n / 3 <= hits[True] <= 1.05 * n / 3, hits


def test_hdd_7200_sptf_qd32_is_identical_and_auto_picks_fast():
    stack, wl = preset_disk("hdd-7200")
    wl = replace(wl, numjobs=32)
    ref, fast = both(stack, wl, ios=3000, warmup_ios=300, seed=9)
    assert ref.counters == fast.counters and differences(ref, fast) == []
    assert simulate(stack, wl, ios=200, warmup_ios=20, seed=1, engine="auto").engine == "fast"


def test_an_io_beyond_the_disk_is_the_same_error_on_both_engines():
    stack = Stack(device=HddDevice(capacity_bytes=1e9))
    wl = Workload(rw="randread", span_bytes=2e9)
    with pytest.raises(SpecError) as ref:
        run_simpy(stack, wl, ios=100, warmup_ios=0, seed=1)
    with pytest.raises(SpecError) as fast:
        run_fast(stack, wl, ios=100, warmup_ios=0, seed=1)
    assert str(ref.value) == str(fast.value)
    assert "beyond device.capacity_bytes" in str(fast.value)


# -- generated HDD stacks --------------------------------------------------------------------------


@st.composite
def hdd_stacks(draw):
    name = draw(st.sampled_from(HDD_PRESETS))
    base = presets.load(name)[0].device
    scheduler = draw(st.sampled_from(["fifo", "sptf"]))
    cache = draw(st.sampled_from([0, 1, 4, 64]))
    destage = draw(st.sampled_from(["fifo", "sptf"]))
    rotation = "exact"
    if scheduler == "fifo" and (cache == 0 or destage == "fifo") and draw(st.booleans()):
        rotation = "uniform"
    dev = replace(
        base, scheduler=scheduler, write_cache_entries=cache, destage=destage,
        rotation=rotation, queue_depth=draw(st.sampled_from([1, 4, 32])),
        read_ahead_bytes=draw(st.sampled_from([0, 65536, 1048576])),
        interface_Bps=draw(st.sampled_from([float("inf"), 600e6, 40e6])),
        overhead_s=draw(st.sampled_from([0.0, 60e-6])),
        read_hit_overhead_s=draw(st.sampled_from([0.0, 25e-6])),
        write_cached_overhead_s=draw(st.sampled_from([0.0, 25e-6])),
        write_settle_s=draw(st.sampled_from([0.0, 0.1e-3])),
        head_switch_s=draw(st.sampled_from([0.0, 0.5e-3])))
    parts = draw_layers(draw)
    stack = Stack(device=dev, **parts)
    rw = draw(st.sampled_from(["randread", "randwrite", "randrw", "read", "write", "rw"]))
    sizes = draw(st.sampled_from([{"block_size_bytes": 4096}, {"block_size_bytes": 131072},
                                  {"bssplit": "4k/60:64k/30:256k/10"}]))
    span = draw(st.sampled_from([1e8, 5e9])) if draw(st.booleans()) else dev.capacity_bytes
    wl = draw_workload(draw, stack, rw, sizes, span)
    return stack, wl


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(hdd_stacks(), st.integers(0, 2**16))
def test_generated_hdd_stacks_give_identical_results(case, seed):
    stack, wl = case
    assert supports(stack, wl) is None
    assert_identical(stack, wl, ios=300, warmup_ios=30, seed=seed)


# -- trace replay on a disk ------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["hdd-atlas10k", "hdd-7200"])
@pytest.mark.parametrize("mode", ["open", "closed", "validate"])
def test_engines_give_identical_hdd_replays(name, mode):
    rng = np.random.default_rng(11)
    n = 1200
    gap = 4e-3
    seq = rng.random(n) < 0.4  # a mix of streams and random addresses
    offset = rng.integers(0, int(8e9 // 4096), n) * 4096.0
    for i in range(1, n):
        if seq[i]:
            offset[i] = offset[i - 1] + 65536.0
    t = BlockTrace(arrival_s=np.cumsum(rng.exponential(gap, n)) - gap, offset_bytes=offset,
                   size_bytes=rng.choice([4096.0, 65536.0], n), is_read=rng.random(n) < 0.7,
                   latency_s=None, idle_s=rng.exponential(gap, n), source="test")
    stack = presets.load(name)[0]
    kw = dict(mode=mode, seed=3, outstanding=6 if mode == "closed" else None)
    ref = replay(t, stack, engine="simpy", **kw)
    fast = replay(t, stack, engine="fast", **kw)
    assert (ref.results.engine, fast.results.engine) == ("simpy", "fast")
    assert differences(ref.results, fast.results) == []
    assert np.array_equal(ref.latency_s, fast.latency_s)
    assert np.array_equal(ref.issue_s, fast.issue_s)


# -- the one-address physics the fast engine compiles ---------------------------------------------


@pytest.mark.parametrize("name", HDD_PRESETS)
def test_one_address_physics_equal_the_array_physics_bit_for_bit(name):
    from iosim.devices.hdd import (
        hdd_interp_one,
        hdd_move_s,
        hdd_place_one,
        hdd_rotational_wait_one,
        hdd_rotational_wait_s,
        hdd_seek_one,
        hdd_track_position_one,
    )

    dev = presets.load(name)[0].device
    rng = np.random.default_rng(4)
    off = np.floor(rng.random(3000) * (dev.capacity_bytes - 4096) / 512) * 512
    cyl, surf, angle = dev.locate(off)
    args = (dev.capacity_bytes, dev.id_od_ratio, float(dev.n_cylinders), float(dev.heads))
    one = np.array([hdd_place_one(hdd_track_position_one(o, *args), float(dev.heads),
                                  *dev.skews()) for o in off])
    assert np.array_equal(one, np.column_stack([cyl, surf, angle]))
    t = rng.random(3000) * 100.0
    waits = [hdd_rotational_wait_one(a, s, 60.0 / dev.rpm)
             for a, s in zip(angle, t, strict=True)]
    assert np.array_equal(hdd_rotational_wait_s(angle, t, dev.rpm), waits)
    table = dev.seek_table()
    head_cyl, head_surf = float(cyl[0]), float(surf[0])
    moves = hdd_move_s(head_cyl, head_surf, cyl, surf, dev.write_settle_s, dev.n_cylinders,
                       *dev.seek_params(), dev.head_switch_s, table)
    for c, m in zip(cyl, moves, strict=True):
        d = abs(c - head_cyl) / dev.n_cylinders
        if d > 0:
            seek = (hdd_interp_one(d, *table) if table is not None
                    else hdd_seek_one(d, *dev.seek_params()))
            assert seek + dev.write_settle_s == m


@pytest.mark.parametrize("name", HDD_PRESETS)
@pytest.mark.parametrize("span", [65536.0, 50e6, None])
def test_sptf_at_depth_32_with_ties_and_settle_is_identical(name, span):
    """Deep SPTF queues, where the scan's pruning acts most, and a 64 KiB span, where queued
    requests for one address tie exactly (the first of equals must win, as numpy.argmin's)."""
    stack, wl = preset_disk(name, scheduler="sptf", write_cache_entries=32, destage="sptf",
                            write_settle_s=0.1e-3, head_switch_s=0.4e-3)
    wl = replace(wl, rw="randrw", numjobs=32, iodepth=1, block_size_bytes=4096,
                 span_bytes=span or wl.span_bytes)
    ref, fast = both(stack, wl, ios=3000, warmup_ios=100, seed=13)
    assert ref.counters == fast.counters
    assert differences(ref, fast) == []


@pytest.mark.parametrize("name", ["hdd-7200", "hdd-sata-fio"])
def test_path_failure_in_front_of_a_disk_is_identical(name):
    """Attempts orphaned by a failed path keep the disk busy (their media operations stay in
    its queue) while the retries queue behind them."""
    stack, wl = preset_disk(name, write_cache_entries=8)
    stack = replace(stack, hba=HbaSpec(queue_depth=4), multipath=MultipathSpec(
        paths=2, failover_timeout_s=5e-3,
        failures=[{"path": 0, "fail_at_s": 0.05, "restore_at_s": 0.3},
                  {"path": 1, "fail_at_s": 0.4, "restore_at_s": 0.5}]))
    wl = replace(wl, rw="randrw", numjobs=8, iodepth=1)
    ref, fast = both(stack, wl, ios=1500, warmup_ios=0, seed=3)
    assert ref.counters == fast.counters and ref.counters["failovers"] > 0
    assert differences(ref, fast) == []

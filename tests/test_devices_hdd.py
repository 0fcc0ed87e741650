"""The hard-disk family: pure physics against closed forms, the SimPy model against theory."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import iosim
from iosim import SpecError, Stack, Workload
from iosim.devices import DEVICE_KINDS, HddDevice
from iosim.devices.hdd import (
    hdd_geometry,
    hdd_locate,
    hdd_mean_seek_s,
    hdd_rotational_wait_s,
    hdd_seek_coeffs,
    hdd_seek_s,
)

GIB = 1024**3


def test_registered():
    assert DEVICE_KINDS["hdd"] is HddDevice
    d = HddDevice()
    assert d.to_dict()["kind"] == "hdd"
    assert d.units == 1
    # TOML round trip through the stack loader
    s = Stack.from_dict({"device": d.to_dict()})
    assert s.device == d


def test_geometry_ends_and_capacity():
    rho = 83 / 175
    c0, r0 = hdd_geometry(0.0, rho)
    c1, r1 = hdd_geometry(1.0, rho)
    assert (c0, r0) == (0.0, 1.0)
    assert c1 == pytest.approx(1.0) and r1 == pytest.approx(rho)
    # capacity outside radius r is proportional to r_out^2 - r^2 (bytes per track ~ radius)
    x = np.linspace(0, 1, 11)
    _, r = hdd_geometry(x, rho)
    assert np.allclose((1 - r**2) / (1 - rho**2), x)
    # no zoning: the cylinder fraction is the capacity fraction
    c, _ = hdd_geometry(x, 1.0)
    assert np.allclose(c, x)


@pytest.mark.parametrize(
    "t2t, avg, full, knee, rho",
    [
        (0.5e-3, 9e-3, 18e-3, 0.15, 83 / 175),
        (0.2e-3, 4e-3, 6.6e-3, 0.15, 122 / 204),
        (1.556e-3, 9e-3, 14.96e-3, 0.3, 1.0),
    ],
)
def test_seek_curve_calibrated_to_the_average(t2t, avg, full, knee, rho):
    a, b = hdd_seek_coeffs(t2t, avg, full, knee, rho)
    assert hdd_seek_s(0.0, t2t, a, b, knee) == 0.0
    assert hdd_seek_s(1.0, t2t, a, b, knee) == pytest.approx(full)
    assert hdd_seek_s(1e-12, t2t, a, b, knee) == pytest.approx(t2t, abs=1e-6)
    u = np.linspace(1e-6, 1, 1001)
    assert np.all(np.diff(hdd_seek_s(u, t2t, a, b, knee)) >= 0)
    assert hdd_mean_seek_s(1.0, t2t, a, b, knee, rho) == pytest.approx(avg, rel=1e-12)
    # independent Monte Carlo over random address pairs
    rng = np.random.default_rng(7)
    c1, _ = hdd_geometry(rng.random(400_000), rho)
    c2, _ = hdd_geometry(rng.random(400_000), rho)
    mc = hdd_seek_s(np.abs(c1 - c2), t2t, a, b, knee).mean()
    assert mc == pytest.approx(avg, rel=0.005)


def test_short_stroking_shortens_the_mean_seek():
    d = HddDevice()
    spans = [d.capacity_bytes, 100e9, 10e9, 1e9]
    seeks = [d.mean_seek_s(s) for s in spans]
    assert seeks[0] == pytest.approx(d.avg_seek_s)
    assert all(x > y for x, y in zip(seeks, seeks[1:], strict=False))
    assert seeks[-1] < d.track_to_track_s + 0.5e-3


def test_rotational_wait_exact():
    rpm = 7200
    rev = 60 / rpm
    assert hdd_rotational_wait_s(0.25, 0.0, rpm) == pytest.approx(0.25 * rev)
    assert hdd_rotational_wait_s(0.25, 0.25 * rev, rpm) == 0.0
    assert hdd_rotational_wait_s(0.25, 0.5 * rev, rpm) == pytest.approx(0.75 * rev)
    # random targets: half a turn on average
    rng = np.random.default_rng(3)
    w = hdd_rotational_wait_s(rng.random(200_000), rng.random(200_000), rpm)
    assert w.mean() == pytest.approx(rev / 2, rel=0.01)


def test_locate_sequential_blocks_follow_the_head():
    d = HddDevice()
    cyl, surf, angle = hdd_locate(
        np.array([0.0, 4096.0]), d.capacity_bytes, d.id_od_ratio, d.n_cylinders, d.heads, *d.skews()
    )
    # the second block starts where the transfer of the first ends
    assert angle[1] - angle[0] == pytest.approx(d.transfer_s(0, 4096) / d.revolution_s)
    assert 4096 / d.transfer_s(0, 4096) == pytest.approx(d.media_rate_od_Bps, rel=1e-4)
    last = d.capacity_bytes - 4096
    assert 4096 / d.transfer_s(last, 4096) == pytest.approx(d.media_rate_id_Bps, rel=1e-3)


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"rpm": 0}, "device.rpm must be > 0 (got 0.0)"),
        ({"read_ahead_bytes": "inf"}, "device.read_ahead_bytes must be a finite size >= 0"),
        ({"sector_bytes": 1000}, "device.sector_bytes must be a multiple of 512 bytes"),
        ({"queue_depth": 0}, "device.queue_depth must be >= 1 (got 0)"),
        ({"heads": 0}, "device.heads must be >= 1 (got 0)"),
        ({"media_rate_id_Bps": "300MB/s"}, "device.media_rate_id_Bps must be > 0 and <="),
        ({"full_stroke_s": "9.5ms"}, "device.avg_seek_s must be between"),
        ({"rotation": "uniform", "scheduler": "sptf"}, "device.rotation must be 'exact'"),
        ({"scheduler": "elevator"}, "device.scheduler must be one of fifo, sptf"),
    ],
)
def test_bad_parameters(kw, message):
    with pytest.raises(SpecError, match=message.replace("(", r"\(").replace(")", r"\)")):
        HddDevice(**kw)


def test_rpm_zero_in_a_stack_file():
    with pytest.raises(SpecError, match=r"device.rpm must be > 0"):
        Stack.from_dict({"device": {"kind": "hdd", "rpm": "0rpm"}})


def test_span_beyond_capacity_is_an_error():
    s = Stack(device=HddDevice(capacity_bytes=10 * GIB))
    with pytest.raises(SpecError, match="beyond device.capacity_bytes"):
        iosim.simulate(s, Workload(span_bytes=100 * GIB), ios=100, seed=1)


@pytest.mark.parametrize("rotation", ["exact", "uniform"])
@pytest.mark.parametrize("span", [1000e9, 1 * GIB])
def test_fifo_qd1_matches_theory(rotation, span):
    """One request at a time: IOPS = 1 / (mean seek over the span + half a turn + transfer)."""
    d = HddDevice(rotation=rotation)
    wl = Workload(rw="randread", span_bytes=span, iodepth=1)
    r = iosim.simulate(Stack(device=d), wl, ios=3000, seed=2)
    theory = 1 / d.random_service_s(4096, span)
    assert r.iops == pytest.approx(theory, rel=0.04)
    assert r.unit_util == pytest.approx(1.0)


def test_fifo_gains_nothing_from_queue_depth_sptf_does():
    d = HddDevice()
    wl = Workload(rw="randread", span_bytes=d.capacity_bytes)
    st = Stack(device=d)
    qd1 = iosim.simulate(st, replace(wl, iodepth=1), ios=1500, seed=4).iops
    fifo = iosim.simulate(st, replace(wl, iodepth=8), ios=1500, seed=4).iops
    sptf = iosim.simulate(
        st.with_(**{"device.scheduler": "sptf"}), replace(wl, iodepth=8), ios=1500, seed=4
    ).iops
    assert fifo == pytest.approx(qd1, rel=0.06)
    assert sptf > 1.3 * fifo


def test_sequential_stream_runs_at_the_media_rate():
    """Track skew lets a stream continue after a head switch: no lost turns."""
    d = HddDevice(head_switch_s="0.4ms", write_settle_s="0.1ms")
    for rw in ("read", "write"):
        wl = Workload(rw=rw, block_size_bytes="64k", span_bytes=10 * GIB, iodepth=1)
        r = iosim.simulate(Stack(device=d), wl, ios=2000, seed=1)
        # switches cost (heads-1) head switches and one cylinder seek per cylinder
        assert d.media_rate_od_Bps * 0.85 < r.bandwidth_Bps < d.media_rate_od_Bps
        assert r.lat_max_s < d.revolution_s / 2


def test_write_cache_acknowledges_fast_until_it_is_full():
    d = HddDevice(write_cache_entries=64, overhead_s="0.1ms")
    st = Stack(device=d)
    # a slow open-loop trickle never fills the cache: latency = overhead + interface transfer
    slow = iosim.simulate(
        st, Workload(rw="randwrite", rate_iops=20, span_bytes=d.capacity_bytes), ios=300, seed=1
    )
    assert slow.lat_mean_s == pytest.approx(0.1e-3 + 4096 / d.interface_Bps, rel=1e-6)
    # a closed loop fills it: throughput is the destage rate, the same at every queue depth
    wl = Workload(rw="randwrite", span_bytes=d.capacity_bytes)
    rates = [
        iosim.simulate(st, replace(wl, iodepth=q), ios=1500, warmup_ios=600, seed=5).iops
        for q in (1, 16)
    ]
    assert rates[1] == pytest.approx(rates[0], rel=0.05)
    # reordered destage beats write-through
    through = iosim.simulate(
        Stack(device=HddDevice()), replace(wl, iodepth=1), ios=800, seed=5
    ).iops
    assert rates[0] > 1.5 * through


def test_read_ahead_turns_a_slow_sequential_reader_into_buffer_hits():
    """A sequential reader that comes back 100 us after each 4 KiB read finds, without
    read-ahead, its next sector just gone by: one revolution per read. With it, every read after
    the first is in the buffer: X = 1 / (Z + overhead + 4 KiB over the interface)."""
    d = HddDevice(overhead_s="50us", interface_Bps="600MB/s")
    wl = Workload(rw="read", block_size_bytes="4k", span_bytes=10 * GIB, iodepth=1)
    host = {"host.overhead": "100us"}
    off = iosim.simulate(Stack(device=replace(d, read_ahead_bytes=0)).with_(**host), wl,
                         ios=400, seed=1)
    assert off.iops == pytest.approx(1 / (d.revolution_s + 150e-6), rel=0.02)
    on = iosim.simulate(Stack(device=d).with_(**host), wl, ios=4000, seed=1)
    assert on.iops == pytest.approx(1 / (150e-6 + 4096 / 600e6), rel=1e-3)
    dev = on.counters["device"]
    assert dev["media_reads"] <= 1 and dev["media_reads"] + dev["cache_reads"] == 4400


def test_read_ahead_streams_at_the_sequential_media_rate():
    """A reader faster than the platter waits for the stream, which moves at the media rate
    less the skews that hide head and cylinder switches (the rate of a media stream)."""
    d = HddDevice(head_switch_s="0.4ms")
    wl = Workload(rw="read", block_size_bytes="4k", span_bytes=10 * GIB, iodepth=1)
    on = iosim.simulate(Stack(device=d), wl, ios=4000, seed=1)
    media = iosim.simulate(Stack(device=replace(d, read_ahead_bytes=0)), wl, ios=4000, seed=1)
    assert on.bandwidth_Bps == pytest.approx(d.media_rate_od_Bps * d.stream_efficiency(),
                                             rel=0.01)
    assert on.bandwidth_Bps == pytest.approx(media.bandwidth_Bps, rel=0.02)


def test_random_reads_rarely_hit_and_reads_of_dirty_data_do():
    d = HddDevice(write_cache_entries=64)
    rnd = iosim.simulate(Stack(device=d), Workload(rw="randread", span_bytes=d.capacity_bytes),
                         ios=500, seed=1)
    assert rnd.counters["device"]["cache_reads"] == 0
    # a small span: reads find their block in the read-ahead segment or in a dirty entry
    wl = Workload(rw="randrw", span_bytes="256k", iodepth=4)
    r = iosim.simulate(Stack(device=replace(d, read_ahead_bytes=0)), wl, ios=2000, seed=1)
    assert r.counters["device"]["cache_reads"] > 0
    through = replace(d, read_ahead_bytes=0, write_cache_entries=0)
    r = iosim.simulate(Stack(device=through), wl, ios=2000, seed=1)
    assert r.counters["device"]["cache_reads"] == 0


def test_free_blocks_before_a_read_are_what_passes_under_the_head_on_its_track():
    """``read_free_blocks``: the rotational wait in bytes at the read's own rate, never past
    the start of the track, nothing without a wait."""
    from iosim.devices.hdd import hdd_free_bytes_before

    rev, size, xfer = 6e-3, 4096.0, 0.6e-3  # 4 KiB in a tenth of a turn: 40,960 B a turn
    assert hdd_free_bytes_before(17.5, 1.2e-3, rev, size, xfer) == pytest.approx(8192.0)
    # half a track before the target, a wait of 0.9 turn: only that half track
    assert hdd_free_bytes_before(17.5, 5.4e-3, rev, size, xfer) == pytest.approx(20480.0)
    assert hdd_free_bytes_before(17.0, 3e-3, rev, size, xfer) == 0.0  # the track's start
    assert hdd_free_bytes_before(17.5, 0.0, rev, size, xfer) == 0.0
    assert hdd_free_bytes_before(17.5, 1e-3, rev, 0.0, 0.0) == 0.0


def test_the_read_ahead_to_the_track_end_is_the_rest_of_the_track_or_one_more():
    from iosim.devices.hdd import hdd_track_end_ahead

    rev, size, xfer = 6e-3, 4096.0, 0.6e-3  # 40,960 B a turn
    assert hdd_track_end_ahead(17.2, 17.3, size, xfer, rev) == pytest.approx(0.7 * 40960)
    # a read that crossed into track 18: the rest of 18 and one more track
    assert hdd_track_end_ahead(17.95, 18.05, size, xfer, rev) == pytest.approx(1.95 * 40960)
    assert hdd_track_end_ahead(17.2, 17.3, 0.0, 0.0, rev) == 0.0


def test_alone_a_read_waits_for_a_slow_interface_after_the_actuator():
    """The Atlas 10K's bus (DiskSim's description) moves 4 KiB in 0.79 ms, slower than its
    media: alone, a random read completes that lag after the actuator is free. The closed
    form (alone_latency_s: mean seek, half a turn, transfer, then the lag) against the
    simulated disk at one request in flight, and the lag is what separates it from the
    actuator's time (alone_service_s), which bounds the IOPS at depth."""
    from iosim import presets
    from iosim.plan import unloaded_latency_s
    from iosim.workload import default_workload

    stack, _ = presets.load("hdd-atlas10k")
    dev = stack.device
    wl = default_workload(dev)
    assert wl.span_bytes == dev.capacity_bytes  # (a 9 GB disk: the default spans it)
    held = dev.alone_service_s(4096, span_bytes=dev.capacity_bytes)
    done = dev.alone_latency_s(4096, span_bytes=dev.capacity_bytes)
    lag = 4096 / dev.interface_Bps - 4096 / dev.mean_media_rate_Bps(dev.capacity_bytes)
    assert lag > 0.5e-3 and done == pytest.approx(held + lag)
    assert dev.alone_latency_s(4096, span_bytes=dev.capacity_bytes, read_fraction=0) == held
    res = iosim.simulate(stack, wl, ios=20_000, seed=3)
    assert res.lat_mean_s == pytest.approx(done, rel=0.02)
    assert unloaded_latency_s(stack, 4096, wl) == pytest.approx(done)
    # one slot (HBA queue depth 1): the open loop's capacity is one completion per latency
    assert iosim.open_loop_capacity_iops(stack, wl) == pytest.approx(1 / done)

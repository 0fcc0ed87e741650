"""Reproductions of the published device experiments E4-E11 with the preset catalogue.

Each preset's ``[calibration]`` table says which parameters were fitted on which points;
``CALIBRATED`` below names those points and a test checks it against the tables. The tests
assert only the other, predicted figures; ``iosim validate`` (docs/validation.md) reports the
calibrated ones apart, as information. Run lengths are short (a few thousand I/Os per point,
fixed seeds), so the tolerances include simulation noise. Where a tolerance could only have been
chosen after seeing the result, the test states the predicted error instead and pins it (a
change to the model that moves it must update the statement).
"""

from __future__ import annotations

import tomllib
from dataclasses import replace

import pytest

import iosim
from iosim import theory

GIB = 1024**3

# (preset, experiment) -> {point label: metrics fitted on it ("*" = all)}
CALIBRATED = {
    ("hdd-sata-iometer", "E6"): {"qd=1": "*"},
    ("hdd-sata-fio", "E6"): {"qd=1": ("iops", "lat_mean_s", "util")},
    ("hdd-sata-fio", "E7"): {},
    ("raid0-12x-hdd-wbc", "E8"): {"qd=1": "*", "qd=2": "*"},
    ("cloud-uos-1tb", "E9"): {},
    ("cloud-qingcloud-ssd", "E10"): {"rw=randread": ("read_iops",),
                                     "rw=randwrite": ("write_iops",), "ioping": "*"},
    ("cloud-qingcloud-capacity", "E10"): {"rw=randread": ("read_iops",),
                                          "rw=randwrite": ("write_iops",), "ioping": "*"},
    ("nvme-intel-750", "E11"): {"threads=1": ("iops", "lat_mean_s", "util")},
    ("hdd-7200", "E5"): {}, ("hdd-10k", "E5"): {}, ("hdd-15k", "E5"): {},
    ("cloud-essd-1m", "E4"): {},
}


@pytest.mark.parametrize("key", sorted(CALIBRATED), ids=lambda k: f"{k[0]}-{k[1]}")
def test_calibrated_points_are_the_presets_own(key):
    from iosim.validate import METRICS, calibrated_points

    got = calibrated_points(*key)
    want = CALIBRATED[key]
    assert set(got) == set(want)
    for label, metrics in want.items():
        assert set(got[label]) == ({m for m, _ in METRICS} if metrics == "*" else set(metrics))


def preset(name):
    stack, wl = iosim.presets.load(name)
    assert wl is not None, f"{name} has no [workload]"
    return stack, wl


def test_every_device_preset_loads_and_describes_itself():
    names = {"hdd-7200", "hdd-10k", "hdd-15k", "hdd-sata-iometer", "hdd-sata-fio",
             "raid0-12x-hdd-wbc", "nvme-intel-750", "cloud-qingcloud-ssd",
             "cloud-qingcloud-capacity", "cloud-essd-1m", "cloud-uos-1tb"}
    assert names <= set(iosim.presets.names())
    described = dict(iosim.presets.catalogue())
    for name in names:
        stack, wl = preset(name)
        assert stack.name == name
        assert 20 < len(described[name]) <= 100
        again = iosim.Stack.from_dict(tomllib.loads(iosim.dump_toml(stack, wl)))
        assert again == stack


# -- E5: spinning-disk service time ---------------------------------------------------------

E5 = {"hdd-7200": 76, "hdd-10k": 111, "hdd-15k": 166}


@pytest.mark.parametrize("name", sorted(E5))
def test_e5_table_by_theory(name):
    # a derivation: E5's table is this very formula on the data-sheet seek and rpm
    dev = preset(name)[0].device
    iops = theory.hdd_iops(dev.avg_seek_s, dev.rpm)  # 1000 / (seek + 30000 / rpm)
    assert abs(iops - E5[name]) < 1  # the seed rounds 75.9 up and truncates 166.7
    # the calibrated seek curve averages exactly the data-sheet seek over random pairs
    assert dev.mean_seek_s() == pytest.approx(dev.avg_seek_s, rel=1e-9)


@pytest.mark.parametrize("name", sorted(E5))
def test_e5_simulated_at_qd1(name):
    stack, wl = preset(name)
    r = iosim.simulate(stack, wl, ios=4000, seed=1)
    dev = stack.device
    table = 1.0 / (dev.avg_seek_s + 30.0 / dev.rpm)
    assert r.iops == pytest.approx(table, rel=0.03)


# -- E6: one head, queue depth buys latency -------------------------------------------------

E6_IOMETER = {16: (329.79, 48.51), 256: (327.44, 774.40)}  # QD 1 is calibrated: not here


def test_e6_iometer_disk_flat_with_fifo():
    stack, wl = preset("hdd-sata-iometer")
    assert stack.device.scheduler == "fifo"
    warm = stack.device.write_cache_entries + 1000
    qd1 = iosim.simulate(stack, wl, ios=3000, warmup_ios=warm + 1, seed=1)  # the reference
    for qd, (iops, resp_ms) in E6_IOMETER.items():
        r = iosim.simulate(stack, replace(wl, iodepth=qd), ios=3000, warmup_ios=warm + qd,
                           seed=1)
        assert r.iops == pytest.approx(iops, rel=0.05)
        assert r.lat_mean_s * 1e3 == pytest.approx(resp_ms, rel=0.05)
        assert r.iops == pytest.approx(qd1.iops, rel=0.05)  # flat: one head, no reordering
        assert r.lat_mean_s / qd == pytest.approx(qd1.lat_mean_s, rel=0.05)  # proportional


def test_e6_fio_disk_no_gain_at_qd4():
    """QD 1's IOPS, mean and util are calibrated (the cache size and Z), so only QD 4 is held
    here. QD 1's p95 is predicted 34 % low (6.5 ms against 9.92 ms; docs/validation.md): the
    screenshots the article read its figures from are not published, and no tolerance was
    fixed for it."""
    stack, wl = preset("hdd-sata-fio")
    warm = stack.device.write_cache_entries + 1000
    qd1 = iosim.simulate(stack, wl, ios=3000, warmup_ios=warm, seed=1)
    qd4 = iosim.simulate(stack, replace(wl, iodepth=4), ios=3000, warmup_ios=warm, seed=1)
    assert qd4.iops < 1.05 * qd1.iops
    assert qd4.lat_mean_s == pytest.approx(17e-3, rel=0.1)


def test_e6_ncq_reordering_gain_at_qd32():
    """Shortest-positioning-time-first over 32 queued random reads roughly doubles a 7200 rpm
    disk (published: about +100 % for enterprise SATA drives at deep queues, [IOPSW])."""
    stack, wl = preset("hdd-7200")
    sptf = stack.with_(**{"device.scheduler": "sptf"})
    qd1 = iosim.simulate(sptf, wl, ios=1500, seed=1).iops
    qd32 = iosim.simulate(sptf, replace(wl, iodepth=32), ios=2000, seed=1).iops
    assert 1.6 < qd32 / qd1 < 2.6


# -- E7: short-stroking -------------------------------------------------------------------


def test_e7_one_gib_span_at_qd4():
    stack, wl = preset("hdd-sata-fio")  # no refit
    r = iosim.simulate(stack, replace(wl, iodepth=4, span_bytes=1 * GIB), ios=3000,
                       warmup_ios=stack.device.write_cache_entries + 1000, seed=1)
    assert r.iops == pytest.approx(568, rel=0.15)
    assert r.lat_mean_s == pytest.approx(7e-3, rel=0.15)


# -- E8: RAID 0 of 12 disks behind a write-back cache ---------------------------------------


def test_e8_raid0_plateau():
    """QD 1 and QD 2 are calibrated (the controller overhead and the coalescing timer), so the
    plateau is what is held; the QD 1 > QD 2 latency is the calibrated signature, not asserted."""
    stack, wl = preset("raid0-12x-hdd-wbc")
    plateau = sum((5369.33, 5377.39, 5487.91, 5470.97, 5520.23, 5542.74, 5513.99)) / 7
    qd32 = iosim.simulate(stack, replace(wl, iodepth=32), ios=2500, warmup_ios=4500, seed=1)
    assert qd32.iops == pytest.approx(plateau, rel=0.10)
    assert qd32.lat_mean_s * 1e3 == pytest.approx(5.847, rel=0.10)


# -- E10: cloud volumes -----------------------------------------------------------------------

E10 = {
    "cloud-qingcloud-ssd": {"randread": (24992, 0), "randwrite": (0, 9944),
                            "randrw": (25089, 8366)},
    "cloud-qingcloud-capacity": {"randread": (9107, 0), "randwrite": (0, 3390),
                                 "randrw": (4991, 1664)},
}


@pytest.mark.parametrize("name", sorted(E10))
def test_e10_predicted_mix(name):
    """The randread and randwrite runs are the caps themselves (calibrated); the 75/25 mix is
    the prediction."""
    stack, wl = preset(name)
    reads, writes = E10[name]["randrw"]
    r = iosim.simulate(stack, replace(wl, rw="randrw"), ios=4000, seed=1)
    assert r.read_iops == pytest.approx(reads, rel=0.15)
    assert r.write_iops == pytest.approx(writes, rel=0.15)
    # the other cap model misses the mixed run by far more than the tolerance
    other = "shared" if stack.device.cap_model == "separate" else "separate"
    r = iosim.simulate(stack.with_(**{"device.cap_model": other}), wl, ios=4000, seed=1)
    assert abs(r.read_iops / E10[name]["randrw"][0] - 1) > 0.3


# -- E11: utilisation is not saturation ---------------------------------------------------------

E11 = {1: (7113.16, 0.14, 0.17), 4: (26248.44, 0.15, 0.21), 16: (76845.96, 0.21, 0.36),
       64: (127840.59, 0.50, 1.25), 256: (131558.79, 1.95, 3.89)}


def test_e11_intel_750_threads_sweep():
    """Threads 4..256 predicted (IOPS 10 %, mean 15 %, fixed before fitting); at one thread the
    IOPS, mean and %util are calibrated (Z and the controller overhead), the p95 is not."""
    stack, wl = preset("nvme-intel-750")
    for n, (iops, lat_ms, p95_ms) in E11.items():
        r = iosim.simulate(stack, replace(wl, numjobs=n), ios=max(2500, 12 * n), seed=1)
        if n > 1:
            assert r.iops == pytest.approx(iops, rel=0.10), n
            assert r.lat_mean_s * 1e3 == pytest.approx(lat_ms, rel=0.15), n
        assert r.lat_p95_s * 1e3 == pytest.approx(p95_ms, rel=0.25), n
        if n == 1:
            assert r.unit_util < 0.05  # iostat's "busy" (calibrated) with 95 % of dies idle


def test_e11_p99_from_the_separate_run():
    """The seed's separate p99 run (data/e11_sysbench_nvme/p99_separate_run.csv), held to the
    p95 tolerance: 0.26 ms at 4 threads, 0.48 ms at 16 (die collisions stretch the tail)."""
    stack, wl = preset("nvme-intel-750")
    for n, p99_ms in ((4, 0.26), (16, 0.48)):
        r = iosim.simulate(stack, replace(wl, numjobs=n), ios=20000, seed=1)
        assert r.lat_p99_s * 1e3 == pytest.approx(p99_ms, rel=0.25), n


def test_e11_p95_at_256_threads_in_steady_state():
    """The tail at the 2.2 GB/s plateau, well past the start-up transient. It comes from the
    read buffer's back-pressure: without it (an unbounded buffer) the backlog waits in one FIFO
    at the host link and the p95 is about 30 % low."""
    stack, wl = preset("nvme-intel-750")
    wl = replace(wl, numjobs=256)
    r = iosim.simulate(stack, wl, ios=60000, warmup_ios=10000, seed=1)
    assert r.lat_p95_s * 1e3 == pytest.approx(3.89, rel=0.25)
    fifo = iosim.simulate(stack.with_(**{"device.read_buffer_bytes": "inf"}), wl, ios=60000,
                          warmup_ios=10000, seed=1)
    assert fifo.lat_mean_s == pytest.approx(r.lat_mean_s, rel=0.01)
    assert fifo.lat_p95_s * 1e3 < 3.89 * 0.75


def test_intel_750_against_the_data_sheet():
    """Not an experiment: the preset, never fitted to these, against the data sheet (Tom's
    Hardware, 2015: 430K 4 KiB random-read IOPS at depth, 900 MB/s sequential write, 230K 4 KiB
    random-write IOPS on a fresh drive). Reads within 10 %. Writes are predicted short: -39 %
    (sequential) and -42 % (random), because the estimated geometry has about 1.6x too little
    program bandwidth (see the preset). Those errors are stated and pinned to within 5 points,
    not held to a bar."""
    stack, wl = preset("nvme-intel-750")
    rd = iosim.simulate(stack, replace(wl, block_size_bytes=4096, numjobs=4, iodepth=32),
                        ios=40000, seed=1)
    assert rd.iops == pytest.approx(430e3, rel=0.10)
    seq = iosim.simulate(stack, replace(wl, rw="write", block_size_bytes=131072, iodepth=32),
                         ios=20000, warmup_ios=20000, seed=1)
    assert seq.bandwidth_Bps / 900e6 - 1 == pytest.approx(-0.39, abs=0.05)
    fresh = stack.with_(**{"device.fullness": 0.05})
    rnd = iosim.simulate(fresh, replace(wl, rw="randwrite", block_size_bytes=4096, numjobs=4,
                                        iodepth=32), ios=40000, warmup_ios=40000, seed=1)
    assert rnd.iops / 230e3 - 1 == pytest.approx(-0.42, abs=0.05)


# -- E9: the cloud disk whose SLA is its whole model ------------------------------------------


def test_e9_cloud_disk_from_its_sla_alone():
    """Caps of 6,000 IOPS and 170 MiB/s (the SLA, nothing fitted) against
    data/e09_dd_iostat/cloud_disk.csv and the dd row of dd_iostat.csv."""
    stack, wl = preset("cloud-uos-1tb")
    def run(st=stack, ios=6000, **kw):
        return iosim.simulate(st, replace(wl, **kw), ios=ios, seed=1)
    fio = run(iodepth=32)
    assert fio.iops == pytest.approx(5900, rel=0.05)
    assert fio.lat_mean_s == pytest.approx(5.42e-3, rel=0.05)
    iometer = run(iodepth=64, span_bytes="50GiB")
    assert iometer.iops == pytest.approx(6042, rel=0.05)
    assert iometer.lat_mean_s == pytest.approx(10.56e-3, rel=0.05)
    seq = run(rw="write", block_size_bytes="512k", iodepth=64)
    assert seq.bandwidth_Bps == pytest.approx(174226 * 1024, rel=0.05)  # fio: KiB/s
    rd = run(rw="read", block_size_bytes="256k", iodepth=64, span_bytes="50GiB")
    assert rd.bandwidth_Bps == pytest.approx(179.32e6, rel=0.05)  # IOMeter: 10^6-byte MB
    wr = run(rw="write", block_size_bytes="512k", iodepth=64, span_bytes="50GiB")
    # IOMeter's 512 KiB writes ran below the SLA: predicted +8.6 %, stated and pinned, not a bar
    assert wr.bandwidth_Bps / 164.07e6 - 1 == pytest.approx(0.086, abs=0.02)
    # dd bs=32M, max_sectors_kb 256: 128 requests per write, the queue filling and draining
    # once per dd write: about 64 in flight on average, await = 64 / 688 per s
    dd = run(stack.with_(**{"block.max_sectors_bytes": "256k"}), ios=300, rw="write",
             block_size_bytes="32m", iodepth=1)
    assert dd.bandwidth_Bps == pytest.approx(179e6, rel=0.05)
    assert dd.block_lat_mean_s == pytest.approx(93.47e-3, rel=0.10)
    assert dd.avgrq_bytes == 256 * 1024


# -- E4: the physical limits of a cloud claim -------------------------------------------------


def test_e4_claim_arithmetic_in_simulation():
    """A derivation, not a prediction: the preset is the claim's own figures, and these are
    their arithmetic (Little's law, the bandwidth cap) carried out by the simulator."""
    stack, wl = preset("cloud-essd-1m")
    # 128 outstanding I/Os are exactly enough for 1 M IOPS at 0.128 ms ...
    small = replace(wl, block_size_bytes=3584, numjobs=2, iodepth=64)
    r = iosim.simulate(stack, small, ios=8000, seed=1)
    assert r.iops == pytest.approx(1e6, rel=0.01)
    # ... 64 give half of it (Little's law) ...
    r = iosim.simulate(stack, replace(small, numjobs=1), ios=4000, seed=1)
    assert r.iops == pytest.approx(64 / 0.128e-3, rel=0.01)
    # ... and 4 KiB blocks hit the 4 GB/s cap before 1 M IOPS
    r = iosim.simulate(stack, replace(wl, numjobs=4), ios=8000, seed=1)
    assert r.bandwidth_Bps == pytest.approx(4e9, rel=0.01)
    assert r.iops == pytest.approx(4e9 / 4096, rel=0.01)

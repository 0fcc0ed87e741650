"""Capacity planning (iosim.plan): theory bounds prune, simulation confirms; experiment E3."""

from __future__ import annotations

import math

import pytest

from iosim import presets, simulate
from iosim.plan import (
    PlanResult,
    default_search,
    fail_member,
    fail_path,
    latency_floor_s,
    plan,
    stack_bounds,
)
from iosim.spec import SpecError
from iosim.workload import Workload

IOS = 3000  # enough for a p99 at these deterministic service times; keeps the file fast


@pytest.fixture(scope="module")
def e3():
    """E3's summary setting: a LUN answering in 1 ms with far more units than slots, so the
    HBA queue depth (32 per path) is what limits; no host overhead."""
    stack, wl = presets.load("allflash-lun")
    stack = stack.with_(**{"device.service": "det:1ms", "device.units": 1024, "host.overhead": "0"})
    return stack, wl


def _cfg(c):
    return (c.config["multipath.paths"], c.config["hba.queue_depth"])


# -- E3 arithmetic and simulation ------------------------------------------------------------


def test_one_path_qd32_at_1ms_is_bounded_by_32k(e3):
    stack, wl = e3
    b = stack_bounds(stack, Workload(numjobs=64))
    assert b[0].name == "queue depth"
    assert b[0].iops == pytest.approx(32_000)
    r = simulate(stack, Workload(numjobs=64), ios=IOS, seed=3)
    # completions come 32 at a time every 1 ms: the measured window may hold one batch
    # more than its length (about 1 % at this run length)
    assert r.iops == pytest.approx(32_000, rel=0.01)


def test_four_paths_give_more_than_100k(e3):
    stack, _ = e3
    four = stack.with_(**{"multipath.paths": 4})
    assert stack_bounds(four, Workload(numjobs=128))[0].iops == pytest.approx(128_000)
    r = simulate(four, Workload(numjobs=128), ios=IOS, seed=3)
    assert r.iops > 100_000


def test_plan_100k_with_one_path_down_asks_for_5_paths_or_a_deeper_queue(e3):
    stack, wl = e3
    res = plan(
        stack,
        wl,
        target_iops=100_000,
        latency_target_s=1.5e-3,
        fail="path",
        search={"multipath.paths": range(1, 9), "hba.queue_depth": [32, 64, 128]},
        ios=IOS,
    )
    assert isinstance(res, PlanResult) and res.feasible and res.load == "open"
    minimal = sorted(_cfg(c) for c in res.minimal)
    assert minimal == [(2, 128), (3, 64), (5, 32)]
    # at the default queue depth it takes 5 paths; with fewer paths only a deeper queue does
    assert min(p for p, q in minimal if q == 32) == 5
    assert all(q > 32 for p, q in minimal if p < 5)
    by = {_cfg(c): c for c in res.candidates}
    four = by[(4, 32)]
    assert four.status == "fail" and four.stage == "theory"
    assert "96,000" in four.reason and four.failure == "multipath.paths 4 -> 3 live"
    assert by[(1, 32)].stage == "failure"
    assert by[(6, 32)].status == "skip"  # larger than (5, 32), never simulated
    assert by[(6, 32)].results is None
    for c in res.minimal:
        assert c.stage == "simulation" and c.lat_s <= 1.5e-3 and c.iops >= 0.9 * 100_000
    text = res.to_text()
    assert "Smallest:" in text and "multipath.paths=5 hba.queue_depth=32" in text
    assert "one path down" in text
    d = res.to_dict()
    assert d["feasible"] is True and d["fail"] == "path"
    assert {"multipath.paths": 5, "hba.queue_depth": 32} in d["minimal"]
    # the configured stack is healthy: the failure was only assumed for the check
    s, _ = res.configure(by[(5, 32)])
    assert s.multipath.paths == 5 and s.hba.queue_depth == 32


def test_plan_without_failure_takes_four_paths(e3):
    stack, wl = e3
    res = plan(
        stack,
        wl,
        target_iops=100_000,
        latency_target_s=1.5e-3,
        search={"multipath.paths": [1, 2, 3, 4, 5, 6]},
        ios=IOS,
        exhaustive=False,
    )
    assert res.best.config == {"multipath.paths": 4}
    assert [c.stage for c in res.candidates] == ["theory"] * 3 + ["simulation"]


def test_plan_threads_closed_loop(e3):
    stack, wl = e3
    four = stack.with_(**{"multipath.paths": 4})
    res = plan(
        four,
        wl,
        target_iops=100_000,
        latency_target_s=1.5e-3,
        search={"workload.numjobs": [32, 64, 96, 128, 160]},
        ios=IOS,
    )
    assert res.load == "closed"
    st = {c.config["workload.numjobs"]: c for c in res.candidates}
    assert st[96].status == "fail" and st[96].stage == "theory"  # N / D = 96,000
    assert st[128].status == "pass"
    assert st[160].status == "skip"
    assert res.best.config == {"workload.numjobs": 128}


def test_plan_is_deterministic(e3):
    stack, wl = e3
    kw = dict(
        target_iops=50_000,
        latency_target_s=2e-3,
        search={"multipath.paths": [1, 2, 3]},
        ios=1000,
        seed=11,
    )
    assert plan(stack, wl, **kw).to_dict() == plan(stack, wl, **kw).to_dict()


def test_latency_floor_prunes(e3):
    stack, wl = e3
    assert latency_floor_s(stack, wl, 99) == pytest.approx(1e-3)
    res = plan(
        stack,
        wl,
        target_iops=1000,
        latency_target_s=0.5e-3,
        search={"multipath.paths": [1, 2]},
        ios=IOS,
    )
    assert not res.feasible
    assert all(c.stage == "theory" and "latency is at least" in c.reason for c in res.candidates)
    assert "No configuration" in res.to_text()


def test_latency_target_checked_by_simulation():
    # exponential service on one unit: the p99 of service alone is 0.46 ms x ln(100) = 2.1 ms,
    # so a 1 ms target fails in theory; 3 ms passes theory but queueing at 1,500 IOPS
    # (M/M/1 at 69 % load: p99 about 6.8 ms) fails it in simulation
    stack, wl = presets.load("allflash-lun")
    stack = stack.with_(**{"device.service": "exp:0.46ms", "device.units": 1})
    kw = dict(target_iops=1500, search={"hba.queue_depth": [32]}, ios=IOS)
    (c,) = plan(stack, wl, latency_target_s=1e-3, **kw).candidates
    assert c.stage == "theory" and "2.12 ms" in c.reason
    (c,) = plan(stack, wl, latency_target_s=3e-3, **kw).candidates
    assert c.stage == "simulation" and c.status == "fail" and "p99" in c.reason
    assert c.lat_s > 3e-3


# -- failures --------------------------------------------------------------------------------


def test_fail_path_and_member(e3):
    stack, _ = e3
    s, text = fail_path(stack.with_(**{"multipath.paths": 4}))
    assert s.multipath.paths == 3 and "4 -> 3" in text
    with pytest.raises(SpecError, match="no live path"):
        fail_path(stack)
    s, text = fail_member(stack.with_(**{"device.units": 4}))
    assert s.device.units == 3 and text == "device.units 4 -> 3"
    with pytest.raises(SpecError, match="no member"):
        fail_member(stack.with_(**{"device.units": 1}))


def test_fail_member_of_a_raid_is_its_degraded_mode():
    """A failed RAID member is not a smaller array: RAID 5 reads of the lost member are rebuilt
    from every survivor. Healthy, 5 members of 1 ms give 5,000 random reads/s; degraded, the
    4 survivors serve a fifth of the reads with 4 member reads each:
    4 / (0.8 + 0.2 * 4) ms = 2,500/s (one member fewer would give 4,000)."""
    from iosim import Stack
    from iosim.devices import RaidDevice
    from iosim.stack import BlockSpec, HbaSpec

    dev = RaidDevice(level="5", members=5, member={"kind": "generic", "service": "det:1ms"},
                     stripe_unit_bytes="4k")
    stack = Stack(device=dev, block=BlockSpec(nr_requests=256), hba=HbaSpec(queue_depth=256))
    s, text = fail_member(stack)
    assert s.device.failed_member == 0 and s.device.members == 5 and "degraded" in text
    wl = Workload(rw="randread", block_size_bytes="4k", align_bytes="4k", iodepth=128)
    healthy = simulate(stack, wl, ios=20_000, seed=1)
    degraded = simulate(s, wl, ios=20_000, seed=1)
    assert healthy.iops == pytest.approx(5_000, rel=0.03)
    assert degraded.iops == pytest.approx(4 / 1.6e-3, rel=0.03)
    with pytest.raises(SpecError, match="already 0"):
        fail_member(s)
    with pytest.raises(SpecError, match="cannot fail a member"):
        fail_member(stack.with_(**{"device.level": "0"}))


def test_plan_member_failure(e3):
    stack, wl = e3
    # 1 ms per I/O per unit: 20,000 IOPS needs 21 units once one has failed
    stack = stack.with_(**{"multipath.paths": 8})
    res = plan(
        stack,
        wl,
        target_iops=20_000,
        latency_target_s=5e-3,
        fail="member",
        search={"device.units": [16, 20, 21, 22, 24, 32]},
        ios=IOS,
    )
    st = {c.config["device.units"]: c for c in res.candidates}
    assert st[20].stage == "theory" and "19 unit(s)" in st[20].reason
    assert st[20].failure == "device.units 20 -> 19"
    assert res.best is not None and res.best.config["device.units"] in (22, 24)
    assert st[32].status == "skip"


# -- validation ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(target_iops=-5, latency_target_s=1e-3), "target_iops"),
        (dict(target_iops=math.inf, latency_target_s=1e-3), "target_iops"),
        (dict(target_iops=1000, latency_target_s=0), "latency_target_s"),
        (dict(target_iops=1000, latency_target_s=1e-3, percentile=98), "percentile"),
        (dict(target_iops=1000, latency_target_s=1e-3, fail="disk"), "fail"),
        (dict(target_iops=1000, latency_target_s=1e-3, load="half"), "load"),
        (dict(target_iops=1000, latency_target_s=1e-3, search={"hba.depth": [1]}), "hba.depth"),
        (dict(target_iops=1000, latency_target_s=1e-3, search={}), "at least one key"),
        (dict(target_iops=1000, latency_target_s=1e-3, search={"hba.queue_depth": []}), "value"),
        (
            dict(target_iops=1000, latency_target_s=1e-3, weights={"multipath.paths": 2}),
            "not searched",
        ),
        (
            dict(
                target_iops=1000,
                latency_target_s=1e-3,
                search={"hba.queue_depth": range(1, 1001), "device.units": range(1, 1001)},
            ),
            "1,000,000 candidates",
        ),
    ],
)
def test_plan_rejects_bad_arguments(e3, kw, match):
    stack, wl = e3
    if "search" not in kw:
        kw = {**kw, "search": {"hba.queue_depth": [32]}}
    with pytest.raises(SpecError, match=match):
        plan(stack, wl, ios=100, **kw)


def test_search_values_are_read_as_the_schema_reads_them(e3):
    stack, wl = e3
    res = plan(
        stack,
        wl,
        target_iops=1_000,
        latency_target_s=5e-3,
        search={"hba.queue_depth": ["64", "8", "32"]},
        ios=500,
    )
    assert res.search == {"hba.queue_depth": [8, 32, 64]}
    assert res.best.config == {"hba.queue_depth": 8}


def test_default_search_and_weights(e3):
    stack, wl = e3
    s = default_search(stack, wl)
    assert s["multipath.paths"] == list(range(1, 9))
    assert 32 in s["hba.queue_depth"]
    # a path costs ten queue-depth steps: the deep-queue answer becomes the cheapest
    res = plan(
        stack,
        wl,
        target_iops=100_000,
        latency_target_s=1.5e-3,
        fail="path",
        search={"multipath.paths": range(1, 9), "hba.queue_depth": [32, 64, 128]},
        weights={"multipath.paths": 10},
        ios=IOS,
    )
    assert _cfg(res.best) == (2, 128)


# -- device families -------------------------------------------------------------------------


def test_device_limits_of_a_cloud_volume_with_separate_caps():
    from iosim.devices import DEVICE_KINDS

    if "cloud" not in DEVICE_KINDS:
        pytest.skip("the cloud device family is not in this tree yet")
    from iosim.plan import device_limits

    cloud = DEVICE_KINDS["cloud"].from_dict(
        {
            "latency": "det:0.2ms",
            "read_iops_limit": 25000,
            "write_iops_limit": 10000,
            "bandwidth_limit_Bps": "1GB/s",
        }
    )
    mix = Workload(rw="randrw", rwmixread=75)
    lim = device_limits(cloud, 4096, mix)
    assert lim["iops_cap"] == pytest.approx(min(25000 / 0.75, 10000 / 0.25))
    assert lim["bandwidth_cap_Bps"] == pytest.approx(1e9)
    # a 1 MiB request pays four 256 KiB accounting units
    assert device_limits(cloud, 1 << 20, Workload(rw="randread"))["iops_cap"] == 25000 / 4
    shared = DEVICE_KINDS["cloud"].from_dict(
        {"read_iops_limit": 9100, "write_iops_limit": 3400, "cap_model": "shared"}
    )
    cap = device_limits(shared, 4096, mix)["iops_cap"]
    assert cap == pytest.approx(1 / (0.75 / 9100 + 0.25 / 3400))


def test_disk_bounds_stay_upper_bounds():
    from iosim.devices import DEVICE_KINDS

    if "hdd" not in DEVICE_KINDS:
        pytest.skip("the hdd device family is not in this tree yet")
    from iosim.plan import device_limits

    disk = DEVICE_KINDS["hdd"]()
    fifo = device_limits(disk, 4096, Workload())["unit_service_s"]
    assert fifo == pytest.approx(disk.random_service_s(4096, Workload().span_bytes))
    # reordering can beat the FIFO mean: only overhead + transfer are sure
    sptf = DEVICE_KINDS["hdd"].from_dict({"scheduler": "sptf"})
    assert device_limits(sptf, 4096, Workload())["unit_service_s"] < fifo / 10


@pytest.mark.parametrize("name, target, binding, where", [
    ("hdd-7200", 500, "capacity", "more devices (RAID, an array) or a faster one"),
    ("cloud-uos-1tb", 10_000, "iops cap", "they are its caps (an SLA)"),
    ("allflash-lun", 1e6, "device units", "search its unit count too (--search device.units"),
])
def test_a_target_beyond_the_device_says_the_search_cannot_reach_it(name, target, binding,
                                                                    where):
    """Paths and queue depths cannot lift a device's own limit: one disk completes ~156 random
    reads/s however it is reached, a cloud volume its SLA's 6,000, 64 units of 0.46 ms
    139,130. The plan says so instead of leaving 40 identical failures to read."""
    stack, wl = presets.load(name)
    res = plan(stack, wl, target_iops=target, latency_target_s=0.05,
               search={"multipath.paths": [1, 2, 4], "hba.queue_depth": [32, 256]}, ios=IOS)
    assert res.best is None
    text = res.to_text()
    assert f"the limit there is the device's own ({binding}); {where}" in text
    top = max(c.bound_iops for c in res.candidates)
    assert top < target and f"No candidate passes {top:,.0f} IOPS" in text


def test_a_plan_short_of_paths_does_not_blame_the_device(e3):
    stack, wl = e3
    res = plan(stack, wl, target_iops=100_000, latency_target_s=1.5e-3,
               search={"multipath.paths": [1, 2]}, ios=IOS)
    assert res.best is None and "the device's own" not in res.to_text()

"""The cloud-volume family: token buckets, cap models, bursts and the back-end pool."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

import iosim
from iosim import SpecError, Stack, Workload, theory
from iosim.devices import DEVICE_KINDS, CloudDevice
from iosim.devices.cloud import bucket_plan, bucket_take, io_units
from iosim.stack import BlockSpec, HbaSpec


def _stack(dev):
    return Stack(device=dev, block=BlockSpec(nr_requests=1024), hba=HbaSpec(queue_depth=1024))


def test_registered_and_round_trip():
    assert DEVICE_KINDS["cloud"] is CloudDevice
    d = CloudDevice(read_iops_limit="25k", latency="lognormal:0.2ms,scv=0.1")
    assert Stack.from_dict({"device": d.to_dict()}).device == d


def test_bucket_arithmetic():
    # full bucket of 10 tokens at 100/s: a cost of 4 passes at once
    assert bucket_take(10, 0.0, 0.0, 100, 10, 4) == (6, 0.0)
    # empty bucket: a cost of 1 waits 1/rate
    level, wait = bucket_take(0.0, 0.0, 0.0, 100, 10, 1)
    assert level == -1 and wait == pytest.approx(0.01)
    # refill is capped at the capacity
    assert bucket_take(0.0, 0.0, 5.0, 100, 10, 1) == (9, 0.0)
    assert io_units(4096, 262144) == 1 and io_units(1024**2, 262144) == 4
    plan = bucket_plan(CloudDevice(read_iops_limit=100, write_iops_limit=50,
                                   cap_model="shared"))
    assert [p[0] for p in plan] == ["iops_budget"]


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"units": 0}, "device.units must be >= 1 (got 0)"),
        ({"iops_limit": 0}, "device.iops_limit must be > 0"),
        ({"burst_iops": 3000}, "device.iops_limit must be finite when device.burst_iops"),
        ({"cap_model": "both"}, "device.cap_model must be one of separate, shared"),
    ],
)
def test_bad_parameters(kw, message):
    with pytest.raises(SpecError, match=re.escape(message)):
        CloudDevice(**kw)


@pytest.mark.parametrize("qd", [4, 64])
def test_token_bucket_caps_long_run_iops_at_its_rate(qd):
    d = CloudDevice(latency="0.2ms", iops_limit=5000)
    r = iosim.simulate(_stack(d), Workload(rw="randread", iodepth=qd), ios=5000, seed=1)
    # the floor alone would allow QD / 0.2 ms = 20,000 or 320,000 IOPS: the cap binds
    assert r.iops == pytest.approx(5000, rel=0.005)
    # beyond the knee, latency = QD / cap (Little), the floor stays in device time
    assert r.lat_mean_s == pytest.approx(qd / 5000, rel=0.02)


def test_below_the_knee_latency_is_the_floor():
    d = CloudDevice(latency="0.5ms", iops_limit=5000)
    r = iosim.simulate(_stack(d), Workload(rw="randread", iodepth=2), ios=3000, seed=1)
    assert r.iops == pytest.approx(2 / 0.5e-3, rel=0.01)


@pytest.mark.parametrize("model", ["separate", "shared"])
def test_cap_models_on_a_mix(model):
    d = CloudDevice(latency="0.2ms", read_iops_limit=6000, write_iops_limit=2000,
                    cap_model=model)
    wl = Workload(rw="randrw", rwmixread=75, iodepth=64)
    r = iosim.simulate(_stack(d), wl, ios=8000, seed=2)
    expect = d.cap_iops(0.75)
    if model == "separate":
        assert expect == pytest.approx(8000)  # reads bind: 6000 reads + 2000 writes
    else:
        assert expect == pytest.approx(1 / (0.75 / 6000 + 0.25 / 2000))
    assert r.iops == pytest.approx(expect, rel=0.03)
    assert r.read_iops / r.iops == pytest.approx(0.75, abs=0.02)


def test_bandwidth_cap_binds_for_large_blocks():
    d = CloudDevice(latency="0.2ms", iops_limit=10000, bandwidth_limit_Bps="100MB/s")
    r = iosim.simulate(_stack(d), Workload(rw="randread", block_size_bytes="64k", iodepth=32),
                       ios=3000, seed=1)
    assert r.bandwidth_Bps == pytest.approx(100e6, rel=0.01)


def test_burst_credits_then_baseline():
    d = CloudDevice(latency="0.1ms", iops_limit=1000, burst_iops=5000, burst_credits=4000)
    wl = Workload(rw="randread", iodepth=32)
    early = iosim.simulate(_stack(d), wl, ios=3000, warmup_ios=0, seed=1)
    assert early.iops == pytest.approx(5000, rel=0.03)  # 3000 I/Os fit in 4000 credits
    late = iosim.simulate(_stack(d), wl, ios=3000, warmup_ios=6000, seed=1)
    assert late.iops == pytest.approx(1000, rel=0.02)


def test_media_bound_pool_is_an_mmc_queue():
    """No caps, c units, exponential floor, Poisson arrivals: Erlang C (M/M/c)."""
    c, s = 4, 1e-3
    d = CloudDevice(latency=f"exp:{s}s", units=c)
    lam = 0.7 * c / s
    r = iosim.simulate(_stack(d), Workload(rw="randread", rate_iops=lam), ios=10000, seed=5)
    mmc = theory.mmc(lam, s, c)
    assert r.lat_mean_s == pytest.approx(mmc["latency_s"], rel=0.06)
    # the curves tell the two apart: a media-bound pool's throughput grows with QD up to
    # c / s, a capped volume's stops at its cap with the floor unchanged
    closed = [iosim.simulate(_stack(replace(d, latency=f"{s}s")), Workload(iodepth=q),
                             ios=2000, seed=1).iops for q in (2, 8)]
    assert closed[0] == pytest.approx(2 / s, rel=0.01)
    assert closed[1] == pytest.approx(c / s, rel=0.01)

"""The array family: front end, read cache, write-back cache with destage, back-end groups."""

from __future__ import annotations

import re

import pytest

import iosim
from iosim import SpecError, Stack, Workload, theory
from iosim.devices import DEVICE_KINDS, ArrayDevice, GenericDevice
from iosim.devices.array import array_group_of
from iosim.engine.simpy_engine import run_simpy
from iosim.stack import BlockSpec, HbaSpec


def _stack(dev):
    return Stack(device=dev, block=BlockSpec(nr_requests=1024), hba=HbaSpec(queue_depth=1024))


def test_registered_and_round_trip():
    assert DEVICE_KINDS["array"] is ArrayDevice
    d = ArrayDevice(group={"kind": "raid", "level": "6", "members": 8,
                           "member": {"kind": "hdd"}}, read_hit_ratio=0.3)
    assert Stack.from_dict({"device": d.to_dict()}).device == d
    assert d.units == d.frontend_units + 4 * 8


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"frontend_units": 0}, "device.frontend_units must be >= 1 (got 0)"),
        ({"read_hit_ratio": 1.5}, "device.read_hit_ratio must be between 0 and 1 (got 1.5)"),
        ({"groups": 0}, "device.groups must be >= 1 (got 0)"),
        ({"group": {"kind": "raid", "stripe_unit_bytes": 1000}},
         "device.stripe_unit_bytes must be a multiple of the 512-byte sector"),
    ],
)
def test_bad_parameters(kw, message):
    with pytest.raises(SpecError, match=re.escape(message)):
        ArrayDevice(**kw)


def test_wide_striping():
    mib = 1024**2
    assert array_group_of(0, 4, mib) == (0, 0)
    assert array_group_of(5 * mib + 10, 4, mib) == (1, mib + 10)


def test_all_hits_is_an_mmc_front_end():
    c, s = 4, 100e-6
    d = ArrayDevice(frontend_units=c, frontend_s=f"exp:{s}", read_hit_ratio=1.0,
                    group=GenericDevice())
    lam = 0.75 * c / s
    r = iosim.simulate(_stack(d), Workload(rw="randread", rate_iops=lam), ios=10000, seed=1)
    assert r.lat_mean_s == pytest.approx(theory.mmc(lam, s, c)["latency_s"], rel=0.06)


def test_hit_ratio_and_misses_go_to_the_back_end():
    d = ArrayDevice(frontend_s="20us", read_hit_ratio=0.4, groups=2,
                    group=GenericDevice(service="1ms"))
    sim = run_simpy(_stack(d), Workload(rw="randread", iodepth=4), ios=4000, warmup_ios=0,
                    seed=3)
    c = sim.device.counters
    assert c["read_hits"] / (c["read_hits"] + c["read_misses"]) == pytest.approx(0.4, abs=0.03)
    r = iosim.simulate(_stack(d), Workload(rw="randread"), ios=3000, seed=3)
    assert r.lat_mean_s == pytest.approx(20e-6 + 0.6 * 1e-3, rel=0.05)


def test_writes_sustain_the_destage_rate():
    d = ArrayDevice(frontend_s="20us", write_cache_bytes="1MiB", destage_rate_Bps="8MB/s",
                    groups=4, group=GenericDevice(service="0.5ms", units=4))
    slow = iosim.simulate(_stack(d), Workload(rw="randwrite", rate_iops=100), ios=300, seed=1)
    assert slow.lat_mean_s == pytest.approx(20e-6, rel=1e-6)
    r = iosim.simulate(_stack(d), Workload(rw="randwrite", iodepth=32), ios=3000,
                       warmup_ios=1000, seed=1)
    assert r.bandwidth_Bps == pytest.approx(8e6, rel=0.02)

"""The device-family interface (iosim/devices/base.py): every family declares it, and what it
says about limits follows from the family's own physics."""

import math

import pytest

from iosim import SpecError, presets
from iosim.devices import DEVICE_KINDS
from iosim.devices.base import DeviceFamily, mixed_cap
from iosim.devices.cloud import CloudDevice
from iosim.devices.generic import GenericDevice
from iosim.devices.hdd import HddDevice
from iosim.devices.raid import RaidDevice


def test_every_family_declares_the_interface():
    for kind, cls in DEVICE_KINDS.items():
        assert issubclass(cls, DeviceFamily), kind
        assert cls.kind == kind


@pytest.mark.parametrize("name", presets.names())
def test_every_preset_device_gives_its_limits(name):
    stack, wl = presets.load(name)
    lim = stack.device.limits(4096, read_fraction=1.0)
    assert lim.units == stack.device.units >= 1
    assert lim.unit_service_s is None or lim.unit_service_s > 0
    assert lim.max_iops > 0


def test_generic_limits_and_quantiles():
    dev = GenericDevice(units=8, service="exp:1ms", media_rate_Bps="100MB/s")
    lim = dev.limits(100_000)
    assert lim.unit_service_s == pytest.approx(1e-3 + 1e-3)
    assert lim.max_iops == pytest.approx(8 / 2e-3)
    assert dev.service_quantile_s(0.5) == pytest.approx(1e-3 * math.log(2))
    assert GenericDevice(service="lognormal:1ms,scv=2").service_quantile_s(0.5) is None


def test_cloud_caps_separate_and_shared():
    sep = CloudDevice(read_iops_limit=1000, write_iops_limit=500)
    # 70 % reads: reads bind at 1000/0.7, writes at 500/0.3 -> the smaller
    assert sep.rate_caps(4096, 0.7)[0] == pytest.approx(min(1000 / 0.7, 500 / 0.3))
    shared = sep.with_(cap_model="shared")
    # one budget: a read costs 1/1000 of it, a write 1/500
    assert shared.rate_caps(4096, 0.7)[0] == pytest.approx(1 / (0.7 / 1000 + 0.3 / 500))
    # a 1 MiB I/O pays four 256 KiB tokens
    big = CloudDevice(iops_limit=6000)
    assert big.rate_caps(1024**2, 1.0)[0] == pytest.approx(1500)
    assert CloudDevice().rate_caps(4096, 0.5) == (None, None)


def test_mixed_cap_ignores_missing_and_infinite_caps():
    assert mixed_cap(None, math.inf, None, 0.5, False) is None
    assert mixed_cap(100.0, None, None, 0.5, True) == 100.0


def test_hdd_unit_service_depends_on_the_pattern():
    fifo = HddDevice(scheduler="fifo", overhead_s=1e-4)
    sptf = fifo.with_(scheduler="sptf")
    rnd = fifo.unit_service_s(4096, random=True)
    assert rnd == pytest.approx(float(fifo.random_service_s(4096, None)))
    # reordering or sequential: only the overhead and the outer-zone transfer are sure
    sure = 1e-4 + 4096 / fifo.media_rate_od_Bps
    assert sptf.unit_service_s(4096) == pytest.approx(sure)
    assert fifo.unit_service_s(4096, random=False) == pytest.approx(sure)
    assert rnd > 10 * sure


def test_degraded_modes():
    spec, text = GenericDevice(units=4).degraded()
    assert spec.units == 3 and "4 -> 3" in text
    raid = RaidDevice(level="5", members=5)
    spec, text = raid.degraded()
    assert spec.failed_member == 0 and "degraded" in text
    with pytest.raises(SpecError, match="second"):
        spec.degraded()
    with pytest.raises(SpecError, match="cannot run with a unit failed"):
        HddDevice().degraded()
    with pytest.raises(SpecError, match="leaves no member"):
        GenericDevice(units=1).degraded()

"""Open-loop overload is caught: before the run when the capacity is known in closed form,
during it (bounded in time and memory) when it is not."""

import pytest

import iosim
from iosim.devices import DEVICE_KINDS, GenericDevice
from iosim.engine import simpy_engine
from iosim.stack import Stack
from iosim.workload import Workload


def test_rate_above_capacity_refused_before_the_run():
    stack = Stack(device=GenericDevice(units=4, service="exp:1ms"))
    with pytest.raises(iosim.UnstableError, match=r"capacity of about 4000 IOPS"):
        iosim.simulate(stack, Workload(rate_iops=4500))
    assert iosim.open_loop_capacity_iops(stack, Workload(rate_iops=1)) == pytest.approx(4000)


def test_a_reordering_disk_is_measured_full_not_computed_alone():
    """hdd-7200 picks the shortest positioning time among the 32 requests its queue holds, so
    an open loop can run it past one request's FIFO rate (1 / 13.2 ms = 76 IOPS): its capacity
    is the throughput with every slot full, measured. A rate past that is still refused."""
    from iosim import presets
    from iosim.simulate import saturated_iops

    stack, wl = presets.load("hdd-7200")
    assert stack.device.reorders() and not stack.with_(**{"device.scheduler": "fifo"}
                                                       ).device.reorders()
    fifo = 1 / stack.device.mean_service_s(4096)
    sat = saturated_iops(stack, wl.with_(rate_iops=1))
    # bars fixed before the first run: SPTF at 32 gains over FIFO, within a factor of 1.5..4
    assert 1.5 * fifo < sat < 4 * fifo
    assert iosim.open_loop_capacity_iops(stack, wl.with_(rate_iops=1)) == pytest.approx(sat)
    res = iosim.simulate(stack, wl.with_(rate_iops=1.3 * fifo), ios=3000)
    assert res.iops == pytest.approx(1.3 * fifo, rel=0.1)
    with pytest.raises(iosim.UnstableError, match=r"measured with every queue slot full: the "
                       r"device serves out of arrival order"):
        iosim.simulate(stack, wl.with_(rate_iops=1.2 * sat), ios=3000)
    # a RAID of such disks reorders too; its FIFO twin is computed as before
    raid = DEVICE_KINDS["raid"](level="0", members=4, member=stack.device)
    assert raid.reorders()


def test_disks_destaging_writes_by_position_are_measured_for_writes_only():
    """E8's RAID 0 of 12 disks (FIFO heads, each destaging a 200-entry write cache by position,
    behind a controller cache) completes ~5,400 random writes/s at 256 outstanding, far above
    12 x 1 / S = 909: an open loop of 2,000 writes/s runs. For reads the FIFO heads decide and
    the capacity stays computed."""
    from iosim import presets

    stack, wl = presets.load("raid0-12x-hdd-wbc")
    assert stack.device.reorders(0.0) and not stack.device.reorders(1.0)
    reads = wl.with_(rw="randread", rate_iops=1)
    assert iosim.open_loop_capacity_iops(stack, reads) == pytest.approx(
        12 / stack.device.member.mean_service_s(4096), rel=1e-9)
    res = iosim.simulate(stack, wl.with_(rate_iops=2000), ios=4000)
    assert res.iops == pytest.approx(2000, rel=0.1)


def test_an_open_loop_the_stack_did_not_keep_up_with_is_refused_after_the_run():
    """nvme-intel-750's closed form (54 dies / 66 us: 820 k IOPS) misses its shared limits
    (channels, host link): at 300 k offered it completes ~134 k while its queue grows, and
    such a run's figures depend on its length. It is refused in one line naming what the
    stack sustained; a rate it sustains passes."""
    from iosim import presets

    stack, wl = presets.load("nvme-intel-750")
    assert iosim.open_loop_capacity_iops(stack, wl.with_(rate_iops=1)) > 300_000
    with pytest.raises(iosim.UnstableError,
                       match=r"completed only [\d,]+ IOPS \(\d+ % of the rate\) while its queue "
                             r"grew") as e:
        iosim.simulate(stack, wl.with_(rate_iops=300_000), ios=20_000)
    assert "\n" not in str(e.value)
    ok = iosim.simulate(stack, wl.with_(rate_iops=100_000), ios=20_000)
    assert ok.iops == pytest.approx(100_000, rel=0.05)


def test_cloud_bandwidth_cap_counts_in_the_capacity():
    cloud = DEVICE_KINDS["cloud"](bandwidth_limit_Bps="100MB/s")
    stack = Stack(device=cloud)
    wl = Workload(rate_iops=1000, block_size_bytes="1M")  # 1000 x 1 MiB > 100 MB/s
    with pytest.raises(iosim.UnstableError, match="capacity"):
        iosim.simulate(stack, wl)


def test_overload_the_precheck_misses_is_stopped_during_the_run(monkeypatch):
    # RAID 5 small random writes cost 4 member I/Os: the closed-form check above does not model
    # the write penalty, so the run itself must notice the backlog and stop.
    monkeypatch.setattr(simpy_engine, "MAX_OPEN_BACKLOG", 3000)
    member = GenericDevice(units=1, service="exp:1ms")
    raid = DEVICE_KINDS["raid"](level="5", members=4, member=member)
    stack = Stack(device=raid).with_(**{"hba.queue_depth": 256})
    wl = Workload(rw="randwrite", rate_iops=2500)  # members give ~4000 / 4 = 1000 writes/s
    with pytest.raises(iosim.UnstableError, match=r"I/Os were waiting after .* Lower the rate"):
        iosim.simulate(stack, wl, ios=100_000, engine="simpy")


def test_fast_engine_stops_a_growing_backlog(monkeypatch):
    import importlib

    from iosim.engine import fast

    monkeypatch.setattr(fast, "MAX_OPEN_BACKLOG", 4096)
    # a per-direction byte cap: 100 MB/s of 1 MiB reads is 95.4 IOPS, far below the rate
    cloud = DEVICE_KINDS["cloud"](read_bandwidth_limit_Bps="100MB/s", cap_model="separate")
    stack = Stack(device=cloud).with_(**{"hba.queue_depth": 256})
    wl = Workload(rate_iops=1000, block_size_bytes="1M", rw="randread")
    assert fast.supports(stack, wl) is None
    assert iosim.open_loop_capacity_iops(stack, wl) == pytest.approx(100e6 / 2**20)
    # the closed-form check refuses it up front; without that check the run stops itself
    sim = importlib.import_module("iosim.simulate")
    monkeypatch.setattr(sim, "open_loop_capacity_iops", lambda *a: float("inf"))
    with pytest.raises(iosim.UnstableError, match=r"I/Os were in flight at once"):
        iosim.simulate(stack, wl, ios=50_000, engine="fast")

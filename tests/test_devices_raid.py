"""The RAID family: stripe mapping, write penalties counted in simulation, degraded reads,
controller cache and completion coalescing."""

from __future__ import annotations

import re

import pytest

import iosim
from iosim import SpecError, Stack, Workload, theory
from iosim.devices import DEVICE_KINDS, GenericDevice, RaidDevice
from iosim.devices.raid import raid_map, raid_max_iops, raid_write_penalty
from iosim.engine.simpy_engine import run_simpy
from iosim.stack import BlockSpec, HbaSpec

SU = 65536


def _stack(dev):
    return Stack(device=dev, block=BlockSpec(nr_requests=1024), hba=HbaSpec(queue_depth=1024))


def _counters(dev, wl, ios=400):
    sim = run_simpy(_stack(dev), wl, ios=ios, warmup_ios=0, seed=1)
    return sim.device.counters


def test_registered_and_round_trip():
    assert DEVICE_KINDS["raid"] is RaidDevice
    d = RaidDevice(level=6, members=6, member={"kind": "ssd", "channels": 2})
    table = d.to_dict()
    assert table["level"] == "6" and table["member"]["kind"] == "ssd"
    assert Stack.from_dict({"device": table}).device == d
    assert d.units == 6 * d.member.units
    assert d.data_members == 4


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"stripe_unit_bytes": 1000},
         "device.stripe_unit_bytes must be a multiple of the 512-byte sector (got 1000.0)"),
        ({"level": 5, "members": 2}, "device.members must be >= 3 for RAID 5 (got 2)"),
        ({"level": 10, "members": 5}, "device.members must be even for RAID 10 (got 5)"),
        ({"level": 0, "failed_member": 1}, "device.failed_member must be unset for RAID 0"),
        ({"level": 7}, "device.level must be one of 0, 1, 10, 5, 6 (got 7)"),
        ({"member": {"kind": "hdd", "rpm": 0}}, "device.rpm must be > 0 (got 0.0)"),
        ({"member": {"kind": "tape"}}, "device.kind must be one of"),
    ],
)
def test_bad_parameters(kw, message):
    with pytest.raises(SpecError, match=re.escape(message)):
        RaidDevice(**kw)


def test_stripe_unit_must_fit_a_4k_sector_member():
    with pytest.raises(SpecError, match="multiple of the 4096-byte sector"):
        RaidDevice(stripe_unit_bytes="6k", member={"kind": "hdd", "sector_bytes": 4096})


def test_raid0_mapping():
    reads, writes = raid_map("0", 4, SU, 5 * SU + 100, 4096, True)
    assert reads == [(1, SU + 100, 4096)] and writes == []
    # a request across a unit boundary touches two members
    _, writes = raid_map("0", 4, SU, SU - 2048, 4096, False)
    assert writes == [(0, SU - 2048, 2048), (1, 0, 2048)]


def test_mirrors():
    _, writes = raid_map("1", 3, SU, 0, 4096, False)
    assert sorted(m for m, _, _ in writes) == [0, 1, 2]
    reads = [raid_map("1", 2, SU, 0, 4096, True, read_turn=t)[0][0][0] for t in range(4)]
    assert reads == [0, 1, 0, 1]
    _, writes = raid_map("10", 4, SU, 3 * SU, 4096, False)
    assert sorted(m for m, _, _ in writes) == [2, 3]


@pytest.mark.parametrize("n", [4, 5, 8])
def test_raid5_small_write_is_read_modify_write(n):
    reads, writes = raid_map("5", n, SU, 7 * SU + 4096, 4096, False)
    assert len(reads) == 2 and len(writes) == 2
    data = {m for m, _, _ in writes} & {m for m, _, _ in reads}
    assert len(data) == 2  # the data member and the parity member, read then written
    assert raid_write_penalty("5") == 4


def test_raid6_small_write_costs_six():
    reads, writes = raid_map("6", 6, SU, 4096, 4096, False)
    assert len(reads) + len(writes) == 6 == raid_write_penalty("6")


@pytest.mark.parametrize("level, n", [("5", 5), ("6", 6)])
def test_full_stripe_write_reads_nothing(level, n):
    ndata = n - (1 if level == "5" else 2)
    reads, writes = raid_map(level, n, SU, 3 * ndata * SU, ndata * SU, False)
    assert reads == [] and sorted(m for m, _, _ in writes) == list(range(n))


def test_degraded_raid5_read_reads_every_survivor():
    n = 5
    # find a unit that lives on member 2
    for unit in range(20):
        reads, _ = raid_map("5", n, SU, unit * SU, 4096, True)
        if reads[0][0] == 2:
            break
    reads, _ = raid_map("5", n, SU, unit * SU, 4096, True, failed=2)
    assert sorted(m for m, _, _ in reads) == [0, 1, 3, 4]


def test_penalties_counted_in_simulation():
    dev = RaidDevice(level=5, members=5, member={"kind": "generic", "service": "0.1ms"},
                     stripe_unit_bytes="64k")
    c = _counters(dev, Workload(rw="randwrite", block_size_bytes="4k"))
    assert c["member_reads"] == c["member_writes"] == 2 * c["requests"]  # 4 member I/Os each
    full = Workload(rw="write", block_size_bytes="256k", align_bytes="256k")
    c = _counters(dev, full)
    assert c["member_reads"] == 0 and c["member_writes"] == 5 * c["requests"]
    reads = _counters(dev, Workload(rw="randread"))
    assert reads["member_reads"] == reads["requests"]


def test_degraded_read_cost_in_simulation():
    n = 5
    dev = RaidDevice(level=5, members=n, member={"kind": "generic", "service": "0.1ms"},
                     failed_member=2)
    c = _counters(dev, Workload(rw="randread"), ios=4000)
    # one read in n hits the failed member (4/5 of rows hold data there, 1 unit in 4):
    # it costs n - 1 reads, the others 1
    expect = 1 + (n - 2) / n
    assert c["member_reads"] / c["requests"] == pytest.approx(expect, rel=0.04)


def test_raid0_of_exponential_members_is_k_mm1_queues():
    k, s = 4, 1e-3
    dev = RaidDevice(level=0, members=k, stripe_unit_bytes="4k",
                     member=GenericDevice(service=f"exp:{s}s"))
    lam = 0.6 * k / s
    r = iosim.simulate(_stack(dev), Workload(rw="randread", rate_iops=lam), ios=10000, seed=2)
    assert r.lat_mean_s == pytest.approx(theory.mm1(lam / k, s)["latency_s"], rel=0.07)


def test_raid_write_penalty_caps_closed_loop_iops():
    s = 1e-3
    for level, n in (("10", 4), ("5", 4)):
        dev = RaidDevice(level=level, members=n, member=GenericDevice(service=f"{s}s"))
        r = iosim.simulate(_stack(dev), Workload(rw="randwrite", iodepth=64), ios=3000, seed=1)
        assert r.iops <= raid_max_iops(level, n, 1 / s, 0.0) * 1.01
        assert r.iops >= raid_max_iops(level, n, 1 / s, 0.0) * 0.85


def test_completion_coalescing_makes_qd1_slower_than_qd2():
    dev = RaidDevice(level=0, members=4, member=GenericDevice(service="0.2ms"),
                     coalesce_count=2, coalesce_timeout_s="0.3ms")
    wl = Workload(rw="randread")
    qd1 = iosim.simulate(_stack(dev), wl, ios=500, seed=1)
    assert qd1.lat_mean_s == pytest.approx(0.5e-3, rel=1e-6)  # service + timer
    qd2 = iosim.simulate(_stack(dev), Workload(rw="randread", iodepth=2), ios=500, seed=1)
    assert qd2.lat_mean_s < 0.75 * qd1.lat_mean_s


def test_write_back_cache_acknowledges_then_destages():
    dev = RaidDevice(level=5, members=4, member=GenericDevice(service="1ms"),
                     write_cache_bytes="1MiB", controller_overhead_s="50us")
    slow = iosim.simulate(_stack(dev), Workload(rw="randwrite", rate_iops=50), ios=200, seed=1)
    assert slow.lat_mean_s == pytest.approx(50e-6, rel=1e-6)
    fast = iosim.simulate(_stack(dev), Workload(rw="randwrite", iodepth=32), ios=2000,
                          warmup_ios=1000, seed=1)
    # sustained: the members' RAID 5 write ceiling, 4 members / (4 I/Os x 1 ms)
    assert fast.iops == pytest.approx(raid_max_iops("5", 4, 1000, 0.0), rel=0.1)


def test_nested_raid_members_have_their_own_streams():
    inner = {"kind": "raid", "level": "1", "members": 2,
             "member": {"kind": "generic", "service": "exp:1ms"}}
    dev = RaidDevice(level=0, members=2, member=inner)
    sim = run_simpy(_stack(dev), Workload(rw="randread", iodepth=8), ios=500, warmup_ios=0,
                    seed=1)
    names = set(sim.streams._cache)
    assert {"device.member0.member0", "device.member1.member1"} <= names
    assert sim.rec.units == 4

"""RAID member failure during a run and rebuild onto a spare: nothing lost, degraded reads only
while degraded, the rebuild covers its span, and foreground latency rises while it runs."""

from __future__ import annotations

import math
import re

import pytest

import iosim
from iosim import SpecError, Stack, Workload
from iosim.devices import RaidDevice
from iosim.devices.raid import (
    raid_map,
    raid_map_tagged,
    raid_member_span,
    raid_rebuild_reads,
    raid_row_end,
)
from iosim.engine.simpy_devices import RAID_PHASES
from iosim.stack import BlockSpec, HbaSpec

SU = 65536
MiB = 1024**2
SPAN = 64 * MiB
QD = 16


def _stack(dev):
    return Stack(device=dev, block=BlockSpec(nr_requests=1024), hba=HbaSpec(queue_depth=1024))


def _mean(d, phase):
    return d[f"{phase}_latency_s"] / d[f"{phase}_requests"]


def _check_exactly_once(r, outstanding):
    c, d = r.counters, r.counters["device"]
    assert c["duplicates"] == 0
    assert c["issued"] == c["completed"] + c["in_flight"]
    assert 0 <= c["in_flight"] <= outstanding  # closed loop: nothing stuck or lost
    assert d["requests"] == c["issued"]  # no block split: the RAID saw each I/O once
    assert c["device_completions"] == c["completed"]
    assert sum(d[f"{p}_requests"] for p in RAID_PHASES) == c["completed"]
    for what in ("reads", "writes"):
        causes = ("foreground", "degraded", "rebuild")
        assert sum(d[f"member_{what}_{k}"] for k in causes) == d[f"member_{what}"]
    assert sum(d[f"{p}_degraded_reads"] for p in RAID_PHASES) == d["member_reads_degraded"]


# -- spec ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"level": 0, "failed_member": 1, "fail_at_s": "1s"},
         "device.failed_member must be unset for RAID 0, which has no redundancy: a RAID 0 "
         "member failure loses data, and iosim does not simulate data loss (got 1)"),
        ({"fail_at_s": "1s"},
         "device.fail_at_s must be 0 when device.failed_member is unset (no member fails) "
         "(got 1.0)"),
        ({"failed_member": 1, "fail_at_s": -1}, "device.fail_at_s must be a time >= 0 (got -1.0)"),
        ({"rebuild_start_s": "1s"},
         "device.rebuild_start_s must be unset when device.failed_member is unset "
         "(nothing to rebuild) (got 1.0)"),
        ({"failed_member": 1, "fail_at_s": "2s", "rebuild_start_s": "1s"},
         "device.rebuild_start_s must be a time >= device.fail_at_s = 2 s (got 1.0)"),
        ({"failed_member": 1, "rebuild_rate_Bps": 0},
         "device.rebuild_rate_Bps must be > 0 bytes/s (got 0.0)"),
        ({"failed_member": 1, "rebuild_io_bytes": 1000},
         "device.rebuild_io_bytes must be a multiple of the 512-byte sector (got 1000.0)"),
        ({"failed_member": 1, "rebuild_span_bytes": "5TB"},
         "device.rebuild_span_bytes must be > 0 and <= device.capacity_bytes = 3e+12 bytes"),
        ({"failed_member": 1, "rebuild_start_s": 0, "member": {"kind": "generic"}},
         "device.rebuild_span_bytes must be set (e.g. to workload.span_bytes) when the member "
         "has no capacity_bytes, so the rebuild has an end (got None)"),
    ],
)
def test_bad_fault_parameters(kw, message):
    with pytest.raises(SpecError, match=re.escape(message)):
        RaidDevice(**kw)


def test_fault_fields_round_trip_and_defaults():
    d = RaidDevice(level=5, members=4, failed_member=1, fail_at_s="2s", rebuild_start_s="3s",
                   rebuild_rate_Bps="50MB/s", rebuild_io_bytes="1MiB", rebuild_span_bytes="64MiB")
    t = d.to_dict()
    assert t["fail_at_s"] == 2.0 and t["rebuild_rate_Bps"] == 50e6
    assert Stack.from_dict({"device": t}).device == d
    # the rows holding 64 MiB of a 3-data-member set: 342 rows of one stripe unit each
    assert d.rebuild_target_bytes == 342 * SU == raid_member_span("5", 4, SU, SPAN)
    # unset span: the whole member (a full-disk rebuild)
    assert RaidDevice(failed_member=0, rebuild_start_s=0).rebuild_target_bytes == 1000e9
    plain = RaidDevice().to_dict()
    assert plain["fail_at_s"] == 0.0 and "rebuild_start_s" not in plain
    assert plain["rebuild_rate_Bps"] == "inf"


# -- mapping -------------------------------------------------------------------------------


def test_tags_say_what_the_failure_caused():
    # RAID 5 over 4 members, row 0: data on 0, 1, 2, parity on 3
    reads, _ = raid_map_tagged("5", 4, SU, 0, 4096, True, failed=0)
    assert reads == [(1, 0, 4096, True), (2, 0, 4096, True), (3, 0, 4096, True)]
    reads, _ = raid_map_tagged("5", 4, SU, SU, 4096, True, failed=0)
    assert reads == [(1, 0, 4096, False)]  # a unit on a survivor: unchanged
    # a small write to the failed member's unit: read the other data, update parity only
    reads, writes = raid_map_tagged("5", 4, SU, 0, 4096, False, failed=0)
    assert [io[0] for io in reads] == [1, 2] and writes == [(3, 0, 4096, True)]
    # parity member failed: just write the data
    assert raid_map("5", 4, SU, 0, 4096, False, failed=3) == ([], [(0, 0, 4096)])
    # mirror: a read is degraded only when it would have gone to the failed member
    for turn in range(2):
        (read,), _ = raid_map_tagged("10", 4, SU, 0, 4096, True, failed=0, read_turn=turn)
        optimal = raid_map("10", 4, SU, 0, 4096, True, read_turn=turn)[0][0][0]
        assert read[0] == 1 and read[3] == (optimal == 0)


def test_degraded_partial_write_with_an_untouched_failed_member_is_read_modify_write():
    # RAID 5 over 5 members, row 0: data 0..3, parity 4; a write covering units 0, 1 and part
    # of 2 would read the untouched unit 3 (reconstruct-write); with 3 failed it cannot
    reads, writes = raid_map("5", 5, SU, 0, 2 * SU + 4096, False)
    assert reads == [(3, 0, SU)]
    reads, writes = raid_map("5", 5, SU, 0, 2 * SU + 4096, False, failed=3)
    assert sorted(m for m, _, _ in reads) == [0, 1, 2, 4]
    assert sorted(m for m, _, _ in writes) == [0, 1, 2, 4]


def test_rebuild_reads_and_row_ends():
    assert raid_rebuild_reads("5", 4, 2, 0, MiB) == [(0, 0, MiB), (1, 0, MiB), (3, 0, MiB)]
    assert raid_rebuild_reads("6", 4, 0, SU, SU) == [(m, SU, SU) for m in (1, 2, 3)]
    assert raid_rebuild_reads("10", 6, 3, 0, SU) == [(2, 0, SU)]
    assert [raid_rebuild_reads("1", 3, 0, 0, SU, t)[0][0] for t in range(3)] == [1, 2, 1]
    assert raid_row_end("5", 4, SU, 3 * SU, 4096) == 2 * SU  # unit 3: row 1
    assert raid_row_end("10", 4, SU, 3 * SU, 4096) == 2 * SU
    assert raid_row_end("1", 2, SU, 3 * SU, 4096) == 4 * SU


# -- runs ----------------------------------------------------------------------------------


def _run(level, members, ios, member=None, **faults):
    dev = RaidDevice(level=level, members=members, member=member or {"kind": "hdd"},
                     stripe_unit_bytes=SU, rebuild_span_bytes=SPAN, **faults)
    wl = Workload(rw="randrw", rwmixread=70, block_size_bytes="4k", iodepth=QD, span_bytes=SPAN)
    return dev, iosim.simulate(_stack(dev), wl, ios=ios, warmup_ios=0, seed=1)


def _check_failure_and_rebuild(dev, r, fail_at, rebuild_at):
    _check_exactly_once(r, QD)
    d = r.counters["device"]
    # the member failed mid-run with work queued at it; that work was re-served
    assert d["failed_at_s"] == fail_at and d["before_failure_requests"] > 500
    assert d["member_ios_lost"] > 0 and d["requests_re_served"] > 0
    # degraded reads only after the failure, and none once the rebuild is done
    assert d["before_failure_degraded_reads"] == 0
    assert d["degraded_degraded_reads"] > 0
    assert d["after_rebuild_degraded_reads"] == 0 and d["after_rebuild_requests"] > 500
    # the rebuild ran, step by step, over the span in use
    steps = math.ceil(dev.rebuild_target_bytes / dev.rebuild_io_bytes)
    assert d["rebuild_started_s"] == rebuild_at < d["rebuild_ended_s"] < r.sim_time_s
    assert d["member_writes_rebuild"] == steps
    assert d["member_reads_rebuild"] == steps * len(raid_rebuild_reads(dev.level, dev.members,
                                                                       1, 0, 1))
    assert d["rebuilt_bytes"] == d["rebuild_target_bytes"] == dev.rebuild_target_bytes
    assert d["rebuild_target_bytes"] == raid_member_span(dev.level, dev.members, SU, SPAN)
    # the latency transient: higher while degraded and rebuilding, back down after
    before, during, after = (_mean(d, p) for p in ("before_failure", "rebuilding",
                                                   "after_rebuild"))
    assert during > 1.25 * before
    assert after < 0.85 * during
    assert after == pytest.approx(before, rel=0.15)
    # the failed member's busy units left with it: never more busy units than members have
    assert r.unit_util <= 1.0
    return before, during, after


def test_raid5_member_fails_mid_run_and_is_rebuilt():
    dev, r = _run("5", 4, 4000, failed_member=1, fail_at_s="2s", rebuild_start_s="3s",
                  rebuild_io_bytes="1MiB")
    _check_failure_and_rebuild(dev, r, 2.0, 3.0)
    d = r.counters["device"]
    # degraded reads cost every survivor: the degraded phase is the slowest
    assert _mean(d, "degraded") > 1.25 * _mean(d, "before_failure")


def test_raid10_member_fails_mid_run_and_is_rebuilt_at_a_capped_rate():
    rate = 8e6  # below what the members allow under this load (about 12 MB/s)
    dev, r = _run("10", 4, 6000, failed_member=1, fail_at_s="2s", rebuild_start_s="3s",
                  rebuild_io_bytes="1MiB", rebuild_rate_Bps=rate)
    _check_failure_and_rebuild(dev, r, 2.0, 3.0)
    d = r.counters["device"]
    took = d["rebuild_ended_s"] - d["rebuild_started_s"]
    # the cap holds (the pause after the last step is skipped) and is what sets the pace
    assert took >= (d["rebuilt_bytes"] - MiB) / rate
    assert took < 1.1 * d["rebuilt_bytes"] / rate


@pytest.mark.parametrize("level, members", [("1", 3), ("10", 4), ("5", 5), ("6", 6)])
@pytest.mark.parametrize("cache", [0, "256k"])
def test_nothing_lost_at_any_level(level, members, cache):
    member = {"kind": "generic", "service": "exp:1ms", "media_rate_Bps": "200MB/s"}
    dev = RaidDevice(level=level, members=members, member=member, failed_member=members - 1,
                     fail_at_s="0.3s", rebuild_start_s="0.4s", rebuild_span_bytes="8MiB",
                     rebuild_io_bytes="256k", write_cache_bytes=cache)
    wl = Workload(rw="randrw", rwmixread=50, block_size_bytes="16k", iodepth=QD,
                  span_bytes="8MiB")
    r = iosim.simulate(_stack(dev), wl, ios=3000, warmup_ios=0, seed=3)
    _check_exactly_once(r, QD)
    d = r.counters["device"]
    assert d["member_ios_lost"] > 0 and d["requests_re_served"] > 0
    assert d["rebuilt_bytes"] == d["rebuild_target_bytes"] > 0
    assert d["before_failure_degraded_reads"] == d["after_rebuild_degraded_reads"] == 0
    assert d["after_rebuild_requests"] > 0
    assert r.unit_util <= 1.0


def test_static_degraded_mode_is_fail_at_zero():
    member = {"kind": "generic", "service": "0.1ms"}
    wl = Workload(rw="randread", iodepth=4)
    old = RaidDevice(level=5, members=5, member=member, failed_member=2)
    r = iosim.simulate(_stack(old), wl, ios=2000, warmup_ios=0, seed=1)
    d = r.counters["device"]
    assert d["failed_at_s"] == 0.0 and d["before_failure_requests"] == 0
    assert d["degraded_requests"] == r.counters["completed"]
    assert d["member_ios_lost"] == d["requests_re_served"] == 0
    # rebuilt from the start: degraded reads only until the rebuild ends
    dev = old.with_(rebuild_start_s=0, rebuild_span_bytes="16MiB")
    wl = Workload(rw="randread", iodepth=4, span_bytes="16MiB")
    r = iosim.simulate(_stack(dev), wl, ios=6000, warmup_ios=0, seed=1)
    d = r.counters["device"]
    assert d["rebuilt_bytes"] == d["rebuild_target_bytes"] == 16 * MiB / 4
    assert d["rebuilding_degraded_reads"] > 0 and d["after_rebuild_degraded_reads"] == 0
    assert d["after_rebuild_requests"] > 0

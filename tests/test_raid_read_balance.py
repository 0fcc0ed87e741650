"""Which mirror serves a RAID 1/10 read: the ``alternate`` policy and Linux md's read balancing
(``read_policy = "md"``, :func:`iosim.devices.raid.raid_mirror_choice`): the first idle mirror,
else the nearest head (rotational members) or the fewest pending I/Os (others); never a failed
member."""

from __future__ import annotations

import re

import numpy as np
import pytest

from iosim import SpecError, Stack, Workload, simulate
from iosim.devices import RaidDevice
from iosim.devices.raid import (
    NIO,
    POLICY_ALTERNATE,
    POLICY_MD_LEAST,
    POLICY_MD_NEAREST,
    raid_map,
    raid_map_tagged,
    raid_mirror_choice,
)

SU = 65536
HDD = {"kind": "hdd", "rpm": 7200, "capacity_bytes": 50e9, "queue_depth": 8,
       "scheduler": "fifo"}


def _choose(policy, pend, head, moff=0.0, failed=-1, g0=0, glen=None, planned=()):
    """raid_mirror_choice over members ``g0 .. g0 + glen - 1`` with ``planned`` reads of the
    same request already on some members."""
    pend = np.asarray(pend, np.int64)
    head = np.asarray(head, float)
    glen = len(pend) - g0 if glen is None else glen
    rd = np.zeros((max(1, len(planned)), NIO))
    for i, m in enumerate(planned):
        rd[i, 0] = m
    return raid_mirror_choice(policy, g0, glen, failed, moff, 0, pend, head, rd, len(planned))


def test_md_takes_the_first_idle_mirror_whatever_the_heads():
    assert _choose(POLICY_MD_NEAREST, [0, 0], [1e9, 0.0], moff=0.0) == 0
    assert _choose(POLICY_MD_NEAREST, [3, 0, 0], [0.0, 9e9, 1.0], moff=0.0) == 1
    # a pair of RAID 10 (members 2 and 3)
    assert _choose(POLICY_MD_NEAREST, [5, 5, 1, 0], [0.0] * 4, g0=2, glen=2) == 3


def test_md_takes_the_nearest_head_when_every_mirror_is_busy():
    # heads at 10 GB and 2 GB, a read at 3 GB: the second is nearer, however many are pending
    assert _choose(POLICY_MD_NEAREST, [1, 4], [10e9, 2e9], moff=3e9) == 1
    assert _choose(POLICY_MD_NEAREST, [4, 1], [10e9, 2e9], moff=9e9) == 0
    # distance both ways, and the first of two equally near
    assert _choose(POLICY_MD_NEAREST, [1, 1], [4e9, 2e9], moff=3e9) == 0


def test_md_over_non_rotational_members_takes_the_fewest_pending():
    assert _choose(POLICY_MD_LEAST, [2, 1, 3], [0.0, 9e9, 0.0], moff=0.0) == 1
    assert _choose(POLICY_MD_LEAST, [1, 1], [9e9, 0.0], moff=0.0) == 0  # a tie: the first


def test_reads_already_planned_for_the_request_count_as_pending():
    # a request's second piece on the same pair: the first mirror has its first piece
    assert _choose(POLICY_MD_NEAREST, [0, 0], [0.0, 0.0], planned=(0,)) == 1
    assert _choose(POLICY_MD_LEAST, [0, 1], [0.0, 0.0], planned=(0, 0)) == 1


def test_a_failed_member_never_serves_and_its_mirror_does():
    for policy in (POLICY_ALTERNATE, POLICY_MD_NEAREST, POLICY_MD_LEAST):
        assert _choose(policy, [0, 0], [0.0, 0.0], failed=0) == 1
        assert _choose(policy, [0, 0, 0, 7], [0.0] * 4, failed=2, g0=2, glen=2) == 3
    # RAID 10 degraded: the read of a unit on the failed member's pair goes to its mirror and
    # is tagged (the failure changed it); the other pair is untouched
    idle = np.zeros(4, np.int64), np.zeros(4)
    (read,), _ = raid_map_tagged("10", 4, SU, 0, 4096, True, failed=0, policy=POLICY_MD_NEAREST,
                                 pending=idle[0], head=idle[1])
    assert read == (1, 0.0, 4096.0, True)
    (read,), _ = raid_map_tagged("10", 4, SU, SU, 4096, True, failed=0,
                                 policy=POLICY_MD_NEAREST, pending=idle[0], head=idle[1])
    assert read == (2, 0.0, 4096.0, False)


def test_md_plans_a_request_over_both_mirrors_of_a_raid_1():
    """A 128 KiB read of a RAID 1 over two idle members: its two stripe-unit pieces go to
    both mirrors (the first piece makes the first member busy), as md's per-chunk balancing
    does; alternate spreads them by turn."""
    reads, _ = raid_map("1", 2, SU, 0, 2 * SU, True, policy=POLICY_MD_NEAREST)
    assert [r[0] for r in reads] == [0, 1]
    busy = np.array([2, 1], np.int64)
    head = np.array([0.0, 5e9])
    reads, _ = raid_map("1", 2, SU, 4e9, 4096, True, policy=POLICY_MD_NEAREST, pending=busy,
                        head=head)
    assert reads == [(1, 4e9, 4096.0)]


def test_the_policy_is_a_field_with_a_one_line_error():
    assert RaidDevice().read_policy == "alternate"
    assert RaidDevice(level="10", read_policy="md", member=HDD).read_policy_code == \
        POLICY_MD_NEAREST
    assert RaidDevice(level="1", members=2, read_policy="md",
                      member={"kind": "generic"}).read_policy_code == POLICY_MD_LEAST
    d = RaidDevice(level="10", read_policy="md")
    assert Stack.from_dict({"device": d.to_dict()}).device == d
    with pytest.raises(SpecError, match=re.escape("device.read_policy must be one of "
                                                  "alternate, md")):
        RaidDevice(level="1", members=2, read_policy="nearest")


def test_two_reads_on_two_md_mirrors_never_queue():
    """RAID 1 of two disks, two reads in flight: with md's balancing a new read always finds
    the mirror that just finished idle, so a read's latency is the lone disk's (the IOPS
    double, as the corpus md sweep does from depth 1 to 2); taking the mirrors in turn makes
    half of them queue behind the other read."""
    out = {}
    for policy in ("alternate", "md"):
        stack = Stack(device=RaidDevice(level="1", members=2, member=HDD, read_policy=policy))
        out[policy] = [simulate(stack, Workload(rw="randread", iodepth=q, span_bytes=50e9),
                                ios=4000, seed=3) for q in (1, 2)]
    one, two = out["md"]
    assert two.lat_mean_s == pytest.approx(one.lat_mean_s, rel=0.03)
    assert two.iops == pytest.approx(2 * one.iops, rel=0.05)
    one, two = out["alternate"]
    assert two.lat_mean_s > 1.15 * one.lat_mean_s

"""The ``raid`` fit family: an md RAID of NCQ disks, its member count from fio's disk_util."""

from __future__ import annotations

from pathlib import Path

import pytest

from iosim import Curve, Workload, simulate
from iosim.fit import MODELS, fit, load_curve
from iosim.fit.build import _build_stack
from iosim.fit.raid import fio_members

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "fio-json"
MD = sorted(CORPUS.glob("fio218-md127-raid-randread-qd*-nj1.json")) if CORPUS.is_dir() else []


def _disk_util(n: int) -> list[dict]:
    """fio's disk_util for md0 over ``n`` member disks (the shape fio 3 writes)."""
    md = {"name": "md0", "read_ios": 1000, "util": 0.0, "aggr_read_ios": 250,
          "aggr_util": 90.0}
    return [md, *({"name": f"sd{chr(ord('b') + i)}", "read_ios": 250, "util": 90.0}
                  for i in range(n))]


def test_raid_recovers_the_member_seek_and_takes_the_members_from_fio():
    """A synthetic sweep simulated on a known RAID 0 of 3 NCQ disks (seek 6 ms, host gap
    0.2 ms, the whole array read): the member count comes from the disk_util the points carry
    (3, not the model's default 4) and the fit recovers the seek within 10 %; without the
    disk_util the member count is fitted and comes out 3."""
    base = MODELS["raid"].stack().with_(**{"device.members": 3})
    truth = _build_stack(base, {"device.avg_seek_s": 6e-3, "host.overhead": 2e-4})
    span = truth.device.capacity_bytes
    pts = []
    for i, q in enumerate((1, 4, 16, 64)):
        r = simulate(truth, Workload(rw="randread", iodepth=q, span_bytes=span), ios=3000,
                     seed=20 + i)
        r.params["span_bytes"] = span  # as fio's size option reports it
        r.extra["disk_util"] = _disk_util(3)
        pts.append(r)
    res = fit(Curve(pts, x="iodepth"), model="raid", ios=2000)
    assert res.stack.device.members == 3 and res.stack.device.level == "0"
    assert any("md0 over 3 member disks" in n for n in res.notes)
    seek = res.params["device.avg_seek_s"]
    assert seek.value == pytest.approx(6e-3, rel=0.10)
    assert res.mape["iops"] < 5 and res.mape["lat_mean_s"] < 5
    assert res.stack.device.member.scheduler == "sptf"
    # without disk_util the count is fitted (2 .. 8 tried, the data choose) and said so
    for r in pts:
        r.extra.pop("disk_util")
    res = fit(Curve(pts, x="iodepth"), model="raid", ios=2000)
    assert res.stack.device.members == 3
    assert res.notes[0].startswith("raid: the data do not list the array's member disks: "
                                   "3 members fitted")
    assert res.params["device.avg_seek_s"].value == pytest.approx(6e-3, rel=0.10)


@pytest.mark.skipif(not MD, reason="../shared/corpus not present")
def test_the_corpus_md_sweep_names_its_four_member_disks():
    curve = load_curve(MD)
    assert fio_members(curve.points) == ("md127", ["sdb", "sdc", "sdd", "sde"])
    # a single disk's sweep lists no md device: no member count
    mx = sorted(CORPUS.glob("fio31-mx200-randread-qd*-nj1.json"))
    assert fio_members(load_curve(mx).points) is None


def test_disk_util_without_members_is_not_an_array():
    assert fio_members([]) is None
    lone = type("R", (), {"extra": {"disk_util": [{"name": "md1", "read_ios": 3}]}})()
    assert fio_members([lone]) is None  # no aggr_* counters: fio did not see the members
    slaves = type("R", (), {"extra": {"disk_util": [
        {"name": "md2", "slaves": ["sda", "sdb"]}]}})()
    assert fio_members([slaves]) == ("md2", ["sda", "sdb"])

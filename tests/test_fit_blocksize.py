"""Fits across block sizes and read/write mixes (issue 13): trained on three sizes (or mixes),
predicting the others, on a known simulated device and on the sweeps measured on the project's
KVM disk (data/measured_kvm_virtio_bs)."""

import copy
import json
from pathlib import Path

import pytest

from iosim import Curve, SpecError, Workload, simulate
from iosim.fit import MODELS, _build_stack, fit, load_curve

DATA = Path(__file__).resolve().parents[1] / "data" / "measured_kvm_virtio_bs"
SIZES = (4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576)
TRAIN = (4096, 65536, 1048576)


def _generic_sweep() -> Curve:
    """A known generic device (4 units, 40 us exponential base time plus size / 800 MB/s, a
    5 us host gap) measured at every size at QD 1 and 8, one seed per point."""
    stack = _build_stack(MODELS["generic"].stack(), {
        "device.units": 4, "device.service": 40e-6, "device.media_rate_Bps": 800e6,
        "host.overhead": 5e-6})
    return _size_sweep(stack, SIZES, ios=4000, seed=500)


def _size_sweep(stack, sizes, *, ios: int, seed: int) -> Curve:
    """Random reads of every size at QD 1 and 8 on ``stack``, one seed per point (from
    ``seed`` on), labelled as a measured sweep's points are."""
    pts = []
    for i, (qd, bs) in enumerate((qd, bs) for qd in (1, 8) for bs in sizes):
        wl = Workload(rw="randread", iodepth=qd, numjobs=1, block_size_bytes=bs)
        r = simulate(stack, wl, ios=ios, seed=seed + i)
        r.params.update({"iodepth": qd, "numjobs": 1, "rw": "randread",
                         "block_size_bytes": bs})
        pts.append(r)
    return Curve(pts, x="block_size_bytes")


def _held(res, metric: str) -> list[float]:
    return [abs(p["error"][metric]) for p in res.points if p["set"] == "holdout"]


def _assert_held_mape(res, *, points: int, bar: float) -> None:
    """Held-out IOPS and mean-latency MAPE of ``res`` within ``bar`` percent, over ``points``."""
    for m in ("iops", "lat_mean_s"):
        errs = _held(res, m)
        assert len(errs) == points
        assert sum(errs) / len(errs) <= bar, (m, errs)


def test_generic_fit_on_three_sizes_predicts_the_others():
    # the physics is the model's own (base + size / media rate), so the bar is tight and was
    # set before the first run: held-out IOPS and mean-latency MAPE <= 5 %, every held-out
    # point within 12 %, the media rate within 15 % of the truth
    curve = _generic_sweep()
    held = [f"{b // 1024}k" for b in SIZES if b not in TRAIN]
    res = fit(curve, model="generic", holdout={"bs": held}, percentiles=False, ios=6000)
    assert "device.media_rate_Bps" in res.params  # added: the fitted sizes differ
    assert res.params["device.media_rate_Bps"].value == pytest.approx(800e6, rel=0.15)
    for m in ("iops", "lat_mean_s"):
        errs = _held(res, m)
        assert len(errs) == 12
        assert sum(errs) / len(errs) <= 5.0, (m, errs)
        assert max(errs) <= 12.0, (m, errs)
    # sizes between the fitted ones are interpolations, not flagged as extrapolations
    assert not any(p["extrapolated"] for p in res.points)


def test_a_model_without_a_size_term_refuses_several_sizes_in_one_line():
    # (every family of the catalogue has one now: a fit told to hold it fixed refuses)
    curve = _generic_sweep()
    with pytest.raises(SpecError, match="mix workloads") as exc:
        fit(curve, model="generic", params=["host.overhead", "device.service"],
            holdout={"bs": ["8k", "16k"]}, verify=False)
    assert "\n" not in str(exc.value)


def test_holdout_sizes_are_read_as_sizes_or_refused():
    curve = _generic_sweep()
    with pytest.raises(SpecError, match=r"holdout bs=4x: expected a size"):
        fit(curve, model="generic", holdout={"bs": ["4x"]}, verify=False)
    with pytest.raises(SpecError, match="matches no point"):
        fit(curve, model="generic", holdout={"workload.bs": ["3k"]}, verify=False)


def test_measured_kvm_block_sizes_regression_guard():
    """The KVM virtio disk, random reads 4k..1m at QD 1 and 16, trained on 4k, 64k and 1m
    (both depths), the other six sizes predicted, ``--model auto`` as ``iosim validate`` runs
    it. Measured on this code: held-out IOPS MAPE 16.8 %, mean latency 29.7 % (the data's own
    run-to-run IOPS spread is 21 %, and runs 2 and 3 differ from run 1 by 28 % on these points:
    README.md). The bars (22 %, 35 %) are those measured errors plus about 5 points, a
    regression guard, not a bar the fit was made to clear."""
    curve = load_curve(sorted(DATA.glob("randread-*.json")))
    held = [b for b in SIZES if b not in TRAIN]
    res = fit(curve, model="auto", holdout={"bs": held})
    errs_i, errs_l = _held(res, "iops"), _held(res, "lat_mean_s")
    assert len(errs_i) == 12
    assert sum(errs_i) / len(errs_i) <= 22.0
    assert sum(errs_l) / len(errs_l) <= 35.0


def test_measured_kvm_rw_mix_regression_guard():
    """The KVM disk's 4k randrw at QD 16, trained on 100, 50 and 0 % reads, 70 and 30
    predicted. Families with a service per direction fit it (ssd: die read and write times;
    cloud: read and write budgets); generic has one service time and refuses in one line.
    Measured on this code: auto picks ssd, held-out IOPS and mean-latency MAPE 3.0 % each;
    the bars (6 %) add 3 points, a regression guard (runs 2 and 3 of the same sweep differ
    from run 1 by 33 % in IOPS on these points: README.md)."""
    curve = load_curve(sorted(DATA.glob("randrw-*.json")))
    ho = {"rwmixread": [70, 30]}
    with pytest.raises(SpecError, match="the generic model has one service time"):
        fit(curve, model="generic", holdout=ho, verify=False)
    res = fit(curve, model="auto", holdout=ho)
    assert res.model in ("ssd", "cloud")
    for m in ("iops", "lat_mean_s"):
        errs = _held(res, m)
        assert len(errs) == 2
        assert sum(errs) / len(errs) <= 6.0, (m, errs)


def _sweep(stack, sizes, depths, seed0: int) -> Curve:
    pts = []
    for i, (qd, bs) in enumerate((qd, bs) for qd in depths for bs in sizes):
        wl = Workload(rw="randread", iodepth=qd, numjobs=1, block_size_bytes=bs)
        r = simulate(stack, wl, ios=3000, seed=seed0 + i)
        r.params.update({"iodepth": qd, "numjobs": 1, "rw": "randread", "block_size_bytes": bs})
        pts.append(r)
    return Curve(pts, x="block_size_bytes")


def _held_mape(res, metric: str) -> float:
    errs = _held(res, metric)
    return sum(errs) / len(errs)


def test_cloud_and_ssd_carry_the_size_through_their_own_terms():
    # bars set before the first run: held-out IOPS and mean-latency MAPE <= 8 % (both
    # families are polished by simulation; the surrogate approximates the bucket's pacing).
    # The SSD's 256 KiB pages stripe a 512k or 1m request over 2 or 4 dies; the first
    # surrogate had one die visit per request and missed by 17 / 13 %, and now has the
    # striping (K / p groups of dies; measured on this code: cloud 0.2 / 0.2 %, ssd
    # 1.8 / 1.8 %)
    cloud = _build_stack(MODELS["cloud"].stack(), {
        "device.latency_s": 300e-6, "device.media_rate_Bps": 400e6,
        "device.bandwidth_limit_Bps": 300e6, "device.iops_limit": 20000.0})
    curve = _sweep(cloud, SIZES, (1, 16), 700)
    res = fit(curve, model="cloud", percentiles=False, ios=3000,
              holdout={"bs": [b for b in SIZES if b not in TRAIN]})
    assert {"device.media_rate_Bps", "device.bandwidth_limit_Bps"} <= set(res.params)
    assert _held_mape(res, "iops") <= 8.0 and _held_mape(res, "lat_mean_s") <= 8.0
    ssd = _build_stack(MODELS["ssd"].stack(), {
        "device.dies": 8, "device.die_service_s": 60e-6, "device.channel_rate_Bps": 800e6,
        "device.controller_overhead_s": 10e-6})
    curve = _sweep(ssd, SIZES, (1, 16), 800)
    res = fit(curve, model="ssd", percentiles=False, ios=3000,
              holdout={"bs": [b for b in SIZES if b not in TRAIN]})
    assert "device.channel_rate_Bps" in res.params
    assert _held_mape(res, "iops") <= 8.0 and _held_mape(res, "lat_mean_s") <= 8.0


def test_predicting_a_size_between_the_fitted_ones_is_no_extrapolation():
    curve = _generic_sweep()
    res = fit(curve, model="generic", holdout={"bs": ["8k", "16k"]}, verify=False)
    inside = res.predict(Workload(rw="randread", iodepth=8, block_size_bytes=24576), ios=500)
    assert not inside.extra.get("warnings")
    outside = res.predict(Workload(rw="randread", iodepth=8, block_size_bytes=2**21), ios=500)
    assert any("extrapolates from the fitted workload" in w for w in outside.extra["warnings"])


def test_a_reordering_disk_fitted_on_three_sizes_predicts_the_others():
    """A known 15,000 rpm disk (the hdd-15k preset, reordering its queue shortest positioning
    time first) measured at 4k..1m, QD 1 and 8. ``hdd-ncq`` fits its transfer term (the outer
    zone's media rate; the inner zone keeps its ratio) with the seek and the spindle speed on
    4k, 64k and 1m, and predicts 16k and 256k. Bar fixed before the first run: held-out IOPS
    and mean-latency MAPE <= 8 % (the same bar as the disk fits of test_fit_hdd_rpm)."""
    from dataclasses import replace

    from iosim import presets

    stack, _ = presets.load("hdd-15k")
    stack = replace(stack, device=replace(stack.device, scheduler="sptf"))
    curve = _size_sweep(stack, (4096, 16384, 65536, 262144, 1048576), ios=3000, seed=900)
    res = fit(curve, model="hdd-ncq",
              holdout={"bs": ["16k", "256k"]}, percentiles=False)
    assert "device.media_rate_od_Bps" in res.params  # added: the fitted sizes differ
    _assert_held_mape(res, points=4, bar=8.0)


def test_an_md_raid_of_disks_fitted_on_three_sizes_predicts_the_others():
    """A known md RAID 0 of four SPTF 7,200 rpm disks (the raid model's own array, 64 KiB
    stripe unit) measured at 4k..256k, QD 1 and 8. ``raid`` fits its members' transfer term
    with their seek and spindle speed on 4k, 32k and 256k, the member count from the data, and
    predicts 8k and 64k. Bar fixed before the first run: held-out IOPS and mean-latency MAPE
    <= 10 % (issue 13's IOPS goal; requests past a stripe unit span two members)."""
    stack = _build_stack(MODELS["raid"].stack(), {"device.members": 4})
    curve = _size_sweep(stack, (4096, 8192, 32768, 65536, 262144), ios=3000, seed=950)
    res = fit(curve, model="raid", holdout={"bs": ["8k", "64k"]}, percentiles=False)
    assert "device.media_rate_od_Bps" in res.params  # added: the fitted sizes differ
    _assert_held_mape(res, points=4, bar=10.0)


def test_a_missed_point_of_a_size_sweep_is_named_by_its_size():
    # three points at depth 16 that differ only in size: the warning says which one
    from iosim.fit import checks

    rows = [{"set": "fit", "outstanding": 16, "block_size_bytes": b, "rwmixread": 100.0,
             "error": {"iops": e, "lat_mean_s": -e / 2}}
            for b, e in ((4096, 1.0), (131072, -44.0), (1048576, 2.0))]
    out = checks.missed_training_points(rows, 0.08, "assumed")
    assert len(out) == 1 and out[0].startswith("fitted point 128 KiB at 16 outstanding I/Os")
    same = [dict(r, block_size_bytes=4096) for r in rows]  # one size: no size in the text
    assert checks.missed_training_points(same, 0.08, "x")[0].startswith("fitted point at 16")


LAYOUTS = Path(__file__).resolve().parents[1] / "data" / "measured_fio_layouts"


def test_a_size_split_is_fitted_as_the_sizes_the_run_issued():
    """fio's bssplit weights are an aim: the run in data/ issued 20.3 KiB per I/O where
    4k/50:64k/50 aims at 34 KiB. The point's workload is the split (not the bs=4k beside it),
    with the two weights that give the bytes per I/O measured, and a note says so."""
    from iosim.fit.points import _workload_of
    from iosim.traces import read_fio_json

    doc = json.loads((LAYOUTS / "bssplit.json").read_text())["jobs"][0]
    issued = sum(doc[d]["io_bytes"] for d in ("read", "write")) / sum(
        doc[d]["total_ios"] for d in ("read", "write"))
    (r,) = read_fio_json(LAYOUTS / "bssplit.json")
    assert r.params["bssplit"] == "4k/50:64k/50" and "block_size_bytes" not in r.params
    notes: list[str] = []
    wl = _workload_of(r, None, "p0", notes)
    assert [s for s, _ in wl.sizes] == [4096, 65536]
    assert wl.mean_block_bytes == pytest.approx(issued, rel=1e-3)
    assert len(notes) == 1 and "aims at 34 KiB per I/O and the run issued 20.26" in notes[0]
    # a split the run met is taken as given, silently
    met = copy.copy(r)
    met.bandwidth_Bps = r.iops * 34 * 1024
    notes = []
    assert _workload_of(met, None, "p0", notes).sizes == ((4096, 0.5), (65536, 0.5))
    assert notes == []
    # three sizes: the weights are not determined by one mean; said, kept
    three = copy.copy(r)
    three.params = {**r.params, "bssplit": "4k/40:16k/30:64k/30"}
    notes = []
    assert _workload_of(three, None, "p0", notes).sizes == ((4096, 0.4), (16384, 0.3),
                                                            (65536, 0.3))
    assert "its weights are fitted as given" in notes[0]



@pytest.mark.parametrize("name", ["bsrange.json", "bsrange-normal.txt",
                                  "bs-read4k-write64k.json", "bs-read4k-write64k-normal.txt"])
def test_sizes_that_vary_are_fitted_at_the_mean_size_issued(name):
    """A range (bsrange=4k-64k) or reads and writes of different sizes (bs=4k,64k in a mix)
    have no one size: the reader says so (it took the range's low end, or the read size,
    before) and the fit uses the bytes per I/O the run issued, with a note."""
    from iosim.fit.points import _workload_of
    from iosim.traces import read

    (r,) = read(LAYOUTS / name)
    assert "block_size_bytes" not in r.params and r.params["bs_varies"].startswith(
        ("bsrange=", "bs="))
    notes: list[str] = []
    wl = _workload_of(r, None, "p0", notes)
    issued = r.bandwidth_Bps / r.iops
    assert abs(wl.block_size_bytes - issued) <= 256  # to the 512-byte sector
    assert 4096 < issued < 65536
    assert notes == [f"p0: the I/O sizes vary ({r.params['bs_varies']}): fitted at the mean "
                     f"size the run issued, {issued / 1024:.4g} KiB per I/O (bytes / I/Os)"]
    if "write64k" in name:  # reads 4 KiB, writes 64 KiB: the JSON says so per direction
        if name.endswith(".json"):
            job = json.loads((LAYOUTS / name).read_text())["jobs"][0]
            assert job["read"]["io_bytes"] / job["read"]["total_ios"] == 4096
            assert job["write"]["io_bytes"] / job["write"]["total_ios"] == 65536


def test_a_fio_think_time_is_the_workloads_not_the_hosts():
    """fio --thinktime=100 (microseconds when unitless) at depth 1: the point's workload waits
    100 us after each completion, so the fitted host overhead is the host's own few us (it
    took the whole 100 us before, and a stack written with -o carried it)."""
    from iosim.traces import read_fio_json

    (r,) = read_fio_json(LAYOUTS / "thinktime.json")
    assert r.params["thinktime_s"] == pytest.approx(100e-6)
    res = fit(load_curve([LAYOUTS / "thinktime.json"]), model="generic", ios=2000)
    assert res.params["host.overhead"].value < 30e-6
    (row,) = res.points
    assert abs(row["error"]["iops"]) < 5

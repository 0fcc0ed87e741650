"""Calibration (iosim.fit): recovery of known parameters, published data, warnings, errors."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from iosim import Curve, Results, SpecError, Stack, Workload, simulate, theory
from iosim.fit import MODELS, PARAMETERS, fit, load_curve, read_table, run_cli, surrogate

DATA = Path(__file__).resolve().parents[1] / "data"

# The stack the "measurements" of the recovery tests come from: exponential service, so the
# analytic surrogate is exact and the only error left is simulation noise.
TRUTH = {"device.units": 8, "device.service": 200e-6, "host.overhead": 20e-6}


def _truth_stack() -> Stack:
    return Stack().with_(
        **{
            "device.units": TRUTH["device.units"],
            "device.service": "exp:200us",
            "host.overhead": "20us",
            "hba.queue_depth": 65536,
            "block.nr_requests": 65536,
        }
    )


def _measure(stack: Stack, depths, ios: int = 3000) -> Curve:
    """Independent runs (a different seed per point), as real measurements are."""
    pts = [
        simulate(stack, Workload(numjobs=n), ios=ios, seed=101 + i) for i, n in enumerate(depths)
    ]
    return Curve(pts, x="numjobs")


def test_recovers_known_parameters_and_predicts_held_out_points():
    curve = _measure(_truth_stack(), [1, 2, 4, 8, 16, 32, 64])
    res = fit(curve, params=list(TRUTH), holdout={"numjobs": [32, 64]}, ios=3000, seed=7)
    # every true value inside its reported 95 % interval, and the interval is informative
    for name, true in TRUTH.items():
        p = res.params[name]
        assert p.ci95[0] <= true <= p.ci95[1], (name, p)
        assert p.determined, (name, p)
    assert res.params["device.units"].value == 8
    # informative: five points of ~2 % noise for three parameters leave two degrees of
    # freedom (Student's t 4.3), a closed loop's IOPS and latency being one number. (The bar was
    # 1.2 while they counted as two, which made intervals too narrow to hold the truth 95 % of
    # the time, tests/test_fit_intervals.py; after that correction this interval measured
    # 1.21, and the bar was set to 1.35, a +-15 % interval, after seeing it.)
    assert res.params["device.service"].ci95[1] / res.params["device.service"].ci95[0] < 1.35
    # the knee (8 units) is inside the fitted range 1..16, so the held-out saturated points
    # are predicted within 8 % (simulation noise is ~2 % per point)
    held = [p for p in res.points if p["set"] == "holdout"]
    assert [p["outstanding"] for p in held] == [32, 64]
    for p in held:
        assert abs(p["error"]["iops"]) < 8.0, p
        assert abs(p["error"]["lat_mean_s"]) < 8.0, p
        assert p["extrapolated"]
    assert res.mape_by_set["holdout"]["iops"] < 8.0
    # held-out depths above the fitted ones are flagged as extrapolation
    assert any("extrapolates beyond the fitted range (1..16)" in w for w in res.warnings)
    # predict() warns the same way and returns simulated results
    pred = res.predict(Workload(numjobs=128), ios=1500)
    assert pred.iops == pytest.approx(8 / 200e-6, rel=0.08)
    assert any("extrapolates" in w for w in pred.extra["warnings"])


def test_low_depths_cannot_see_the_knee():
    # 64 units, but the points only reach 4 outstanding I/Os: the number of units leaves no
    # trace (flat objective) and predictions above 4 are extrapolations
    stack = Stack().with_(
        **{
            "device.units": 64,
            "device.service": "exp:100us",
            "hba.queue_depth": 65536,
            "block.nr_requests": 65536,
        }
    )
    curve = _measure(stack, [1, 2, 4, 64], ios=2000)
    res = fit(
        curve, params=["device.service", "device.units"], holdout={"numjobs": [64]}, verify=False
    )
    units = res.params["device.units"]
    assert not units.determined
    assert units.ci95[1] >= 1000  # only bounded from below
    assert any(
        "device.units" in w and ("flat" in w or "poorly" in w or "bound" in w) for w in res.warnings
    )
    assert any("extrapolates beyond the fitted range (1..4)" in w for w in res.warnings)
    # the service time is still pinned by the flat latency
    assert res.params["device.service"].ci95[0] <= 100e-6 <= res.params["device.service"].ci95[1]


def test_more_parameters_than_data_warns():
    curve = _measure(_truth_stack(), [4], ios=1000)
    res = fit(curve, params=["host.overhead", "device.service", "device.units"], verify=False)
    assert any("degrees of freedom" in w for w in res.warnings)


def test_e11_generic_multi_unit_fit():
    """E11 (sysbench, Intel 750, 16 KiB random reads, threads 1..256) with one queue of K
    identical units: the model has no way to bend before the knee (the SSD's die collisions
    raise latency already at 16 threads), so the fit trades the 16-thread point against the
    others. The MAPE is reported, and held to what this model can do."""
    curve = read_table(DATA / "e11_sysbench_nvme" / "threads.csv")
    res = fit(
        curve, model="generic", params=["host.overhead", "device.service", "device.units"], ios=4000
    )
    d = res.to_dict()
    print(
        "E11 generic fit:",
        {k: (v["value"], v["ci95"]) for k, v in d["params"].items()},
        "MAPE:",
        d["mape"],
    )
    k = res.params["device.units"]
    s = res.params["device.service"]
    assert 10 <= k.value <= 40 and k.determined
    assert 100e-6 <= s.value <= 250e-6
    # the saturated throughput K / S is the published plateau (~131.6K IOPS) within 5 %
    assert k.value / s.value == pytest.approx(131558.79, rel=0.05)
    assert res.mape["iops"] < 15.0
    assert res.mape["lat_mean_s"] < 15.0
    assert "lat_p95_s" in res.mape  # p95 is measured, so it is compared too


def test_e11_holdout_of_high_depths_warns_about_extrapolation():
    curve = read_table(DATA / "e11_sysbench_nvme" / "threads.csv")
    res = fit(
        curve,
        params=["device.service", "device.units"],
        holdout={"threads": ["64", "256"]},
        verify=False,
    )
    assert res.fitted_range == (1, 16)
    assert sum("extrapolates beyond the fitted range (1..16)" in w for w in res.warnings) == 2
    assert [p["set"] for p in res.points] == ["fit", "fit", "fit", "holdout", "holdout"]


def test_surrogate_is_exact_mva():
    stack = Stack().with_(
        **{
            "device.units": 6,
            "device.service": "exp:300us",
            "host.overhead": "exp:50us",
            "hba.queue_depth": 65536,
            "block.nr_requests": 65536,
        }
    )
    depths = [1, 3, 6, 12, 40]
    got = surrogate(stack, [Workload(numjobs=n) for n in depths])
    ref = theory.mva_multiunit(40, 300e-6, 6, think_s=50e-6)
    for n, g in zip(depths, got, strict=True):
        row = ref.iloc[n - 1]
        assert g["iops"] == pytest.approx(row["throughput"], rel=1e-9)
        assert g["lat_mean_s"] == pytest.approx(row["latency_s"], rel=1e-9)
    # one job with iodepth 12: the job's CPU is a single-server station
    one = surrogate(stack, [Workload(iodepth=12)])[0]
    st = [theory.Station("host", 50e-6, 1), theory.Station("device", 300e-6, 6)]
    row = theory.mva(12, st).iloc[11]
    assert one["iops"] == pytest.approx(row["throughput"], rel=1e-9)
    assert one["lat_mean_s"] == pytest.approx(row["r_device"], rel=1e-9)


def test_surrogate_hba_limit_and_cap_agree_with_simulation():
    # an HBA limit (flow-equivalent server) and a link cap: approximate, checked against the
    # simulator at a stated 10 %
    stack = Stack().with_(
        **{
            "device.units": 16,
            "device.service": "exp:200us",
            "hba.queue_depth": 8,
            "link.bandwidth_Bps": 4096 * 30000.0,
            "block.nr_requests": 65536,
        }
    )
    wl = Workload(numjobs=24)
    got = surrogate(stack, [wl])[0]
    sim = simulate(stack, wl, ios=4000, seed=3)
    assert got["iops"] == pytest.approx(sim.iops, rel=0.10)
    assert got["lat_mean_s"] == pytest.approx(sim.lat_mean_s, rel=0.10)


def test_to_dict_is_the_cli_contract():
    curve = _measure(_truth_stack(), [1, 4, 16], ios=1000)
    res = fit(curve, params=["device.service", "device.units"], ios=800)
    d = json.loads(res.to_json())
    assert set(d) >= {"params", "points", "mape"}
    assert set(d["params"]) == {"device.service", "device.units"}
    p = d["params"]["device.service"]
    assert p["ci95"][0] <= p["value"] <= p["ci95"][1] and p["unit"] == "s"
    assert len(d["points"]) == 3
    for pt in d["points"]:
        assert {"measured", "predicted", "error"} <= set(pt)
        assert set(pt["error"]) <= set(pt["measured"])
        assert pt["measured"]["iops"] > 0 and pt["predicted"]["iops"] > 0
    assert set(d["mape"]) >= {"iops", "lat_mean_s", "lat_p99_s"}
    # the calibrated stack is a real stack
    assert res.stack.device.units == d["params"]["device.units"]["value"]
    assert "device" in d["stack"]


def test_read_table_units_and_depths():
    c = read_table(DATA / "e11_sysbench_nvme" / "threads.csv")
    r = c[2]
    assert r.params["numjobs"] == 16 and r.params["iodepth"] == 1
    assert r.lat_mean_s == pytest.approx(0.21e-3)
    assert r.lat_p95_s == pytest.approx(0.36e-3)
    assert r.bandwidth_Bps == pytest.approx(1200.72 * 1024**2)
    assert r.util == pytest.approx(1.0)
    assert r.params["block_size_bytes"] == 16384
    q = read_table(DATA / "e06_hdd_queue_depth" / "iometer_sata_4k_randwrite.csv")
    assert q[3].params["iodepth"] == 8 and q[3].params["numjobs"] == 1
    assert math.isclose(q[0].lat_mean_s, 3.002217e-3)


def test_cli_fit_on_published_hdd_table(capsys, tmp_path):
    path = DATA / "e06_hdd_queue_depth" / "iometer_sata_4k_randwrite.csv"
    code = run_cli([str(path)], "hdd", {"qd": ["128", "256"]}, True, ios=1500)
    assert code == 0
    d = json.loads(capsys.readouterr().out)
    # one head: ~333 IOPS at every depth, service ~3 ms
    assert d["params"]["device.service"]["value"] == pytest.approx(3.0e-3, rel=0.05)
    assert d["mape"]["iops"] < 5.0
    assert d["mape_by_set"]["holdout"]["lat_mean_s"] < 5.0
    assert any("extrapolates" in w for w in d["warnings"])
    small = tmp_path / "three.csv"
    small.write_text("\n".join(path.read_text().splitlines()[:4]) + "\n")
    code = run_cli([str(small)], "hdd", None, False, ios=500)
    text = capsys.readouterr().out
    print(text)
    assert "device.service" in text and "MAPE" in text


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"curve": Curve([])}, "empty"),
        ({"curve": []}, "empty"),
        ({"params": ["device.speed"]}, "unknown parameter 'device.speed'"),
        ({"params": []}, "no parameters"),
        ({"model": "tape"}, "unknown model 'tape'"),
        ({"holdout": {"colour": ["red"]}}, "holdout key 'colour'"),
        ({"holdout": {"numjobs": ["3"]}}, "matches no point"),
        ({"holdout": {"numjobs": ["1", "2"]}}, "every point is held out"),
        ({"bounds": {"link.latency_s": (0, 1)}}, "not fitted"),
        ({"curve": "data.csv"}, "Curve or a list of Results"),
    ],
)
def test_bad_input_gives_one_clear_error(kwargs, message):
    from iosim import Results

    good = Curve(
        [
            Results(iops=1000.0, lat_mean_s=1e-3, params={"numjobs": 1, "iodepth": 1}),
            Results(iops=1900.0, lat_mean_s=1.05e-3, params={"numjobs": 2, "iodepth": 1}),
        ]
    )
    args = {"curve": good, **kwargs}
    curve = args.pop("curve")
    with pytest.raises(SpecError) as err:
        fit(curve, verify=False, **args)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_point_without_depth_or_metrics_is_rejected():
    from iosim import Results

    with pytest.raises(SpecError, match="outstanding"):
        fit([Results(iops=10.0)], verify=False)
    with pytest.raises(SpecError, match="neither IOPS nor a mean latency"):
        fit([Results(lat_p99_s=1e-3, params={"numjobs": 1})], verify=False)


def test_load_curve_errors(tmp_path):
    with pytest.raises(SpecError, match="at least one"):
        load_curve([])
    with pytest.raises(SpecError, match="no such file"):
        load_curve([str(tmp_path / "missing.csv")])
    bad = tmp_path / "bad.csv"
    bad.write_text("threads,iops\n0,100\n")
    with pytest.raises(SpecError, match="whole number"):
        load_curve([str(bad)])


def test_parameter_catalogue_is_consistent():
    for name, p in PARAMETERS.items():
        assert p.name == name and p.lo < p.hi
        assert not p.log or p.lo > 0


def test_measured_shape_follows_a_bimodal_device():
    """Most I/Os fast, 3 % stalled: a lognormal cannot have both the median and the tail; the
    depth-1 percentiles as the service shape can."""
    truth = Stack().with_(**{
        "device.units": 8,
        "device.service": "quantiles:0=40us,96=70us,97=2ms,100=6ms",
        "host.overhead": "20us",
    })
    curve = _measure(truth, [1, 4, 16, 32], ios=6000)
    logn = fit(curve, ios=6000)  # the model's parameters and a fitted lognormal scv
    meas = fit(curve, shape="measured", ios=6000)
    assert meas.shape == "measured" and json.loads(meas.to_json())["shape"] == "measured"
    svc = meas.stack.device.service
    assert str(svc).startswith("quantiles:") and "service time: quantiles p50 " in meas.report()
    # p95 sits where the two modes meet, which the measured p90..p99 only roughly locate
    for m, tol in (("lat_p50_s", 20), ("lat_p90_s", 20), ("lat_p95_s", 60), ("lat_p99_s", 35)):
        assert meas.mape[m] < tol and meas.mape[m] < logn.mape[m], (m, meas.mape, logn.mape)
    assert meas.mape["lat_p90_s"] < logn.mape["lat_p90_s"] / 3
    assert meas.mape["iops"] < 6 and meas.mape["lat_mean_s"] < 6


def test_measured_shape_on_our_measured_sweep():
    """The VM disk of data/measured_kvm_virtio is bimodal (p50 39 us, p99 354 us, p99.5 3 ms at
    depth 1); with its own shape the mid-tail percentiles come within tens of percent, where a
    lognormal misses them by a factor (p95 error 200 % in the README's fit)."""
    files = sorted((DATA / "measured_kvm_virtio").glob("randread-4k-qd*.json"))
    res = fit(load_curve(files), model="generic", shape="measured", ios=3000)
    assert res.mape["lat_p90_s"] < 60 and res.mape["lat_p95_s"] < 60
    assert res.stack.device.service.points[-1][0] == 100  # the maximum is kept


def test_measured_shape_is_kept_by_every_family_that_has_service_times(capsys):
    """A polished family (contention, ssd) rebuilt its stack after the polish without the
    shape (contention's p99 went from 40 to 180 % off), an SSD's report died on a missing
    field, and a family without service times (cloud) died in a traceback: the shape now
    shapes the base, so each fitted stack keeps it, and cloud is refused in one line."""
    from iosim.cli import main
    from iosim.dists import Quantiles

    files = sorted((DATA / "measured_kvm_virtio_quiet").glob("randread-4k-qd*.json"))
    curve = load_curve(files)
    cont = fit(curve, model="contention", shape="measured", ios=2000)
    assert isinstance(cont.stack.device.service, Quantiles)
    ssd = fit(curve, model="ssd", shape="measured", ios=2000)
    assert isinstance(ssd.stack.device.read_s, Quantiles)
    assert "read_s: quantiles p" in ssd.report()
    with pytest.raises(SpecError, match="the cloud model has none"):
        fit(curve, model="cloud", shape="measured", ios=2000)
    assert main(["fit", *map(str, files), "--model", "cloud", "--shape", "measured"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "\n" not in err


def test_measured_shape_needs_percentiles():
    pts = [Results(iops=1000.0 * n, lat_mean_s=1e-3, params={"numjobs": n, "iodepth": 1})
           for n in (1, 2, 4)]
    with pytest.raises(SpecError, match="shape 'measured' needs latency percentiles"):
        fit(Curve(pts, x="numjobs"), shape="measured", verify=False)
    with pytest.raises(SpecError, match="unknown shape"):
        fit(Curve(pts, x="numjobs"), shape="bimodal")


def test_hdd_model_warns_when_the_disk_reorders():
    """IOPS that rise with depth are a disk reordering its queue (NCQ): say so."""
    pts = [Results(iops=x, lat_mean_s=n / x, params={"iodepth": n, "numjobs": 1})
           for n, x in ((1, 76.0), (4, 96.0), (16, 132.0), (32, 155.0))]
    res = fit(Curve(pts, x="iodepth"), model="hdd", verify=False)
    assert any("reorders its queue" in w and "104 %" in w for w in res.warnings)
    flat = [Results(iops=333.0, lat_mean_s=n / 333.0, params={"iodepth": n, "numjobs": 1})
            for n in (1, 4, 16)]
    res = fit(Curve(flat, x="iodepth"), model="hdd", verify=False)
    assert not any("reorders" in w for w in res.warnings)


def test_hdd_ncq_recovers_the_seek_of_a_reordering_disk():
    """A disk that reorders its queue (SPTF) gains IOPS with depth, which one unit in order
    cannot follow; the hdd-ncq model simulates the HDD family itself and recovers the seek."""
    from iosim.fit import MODELS, _build_stack

    base = MODELS["hdd-ncq"].stack()
    truth = _build_stack(base, {"device.avg_seek_s": 6e-3, "host.overhead": 2e-4})
    span = truth.device.capacity_bytes
    pts = []
    for i, q in enumerate((1, 4, 16, 32)):
        r = simulate(truth, Workload(rw="randread", iodepth=q, span_bytes=span), ios=1500,
                     seed=10 + i)
        r.params["span_bytes"] = span  # as fio's size option reports it
        pts.append(r)
    curve = Curve(pts, x="iodepth")
    ncq = fit(curve, model="hdd-ncq", ios=1000, fit_ios=400)
    seek = ncq.params["device.avg_seek_s"]
    assert seek.value == pytest.approx(6e-3, rel=0.05)
    assert seek.ci95[0] < seek.value < seek.ci95[1]
    assert ncq.mape["iops"] < 5 and ncq.mape["lat_mean_s"] < 5
    assert ncq.stack.device.scheduler == "sptf"
    one_unit = fit(curve, model="hdd", ios=1000)
    assert one_unit.mape["iops"] > 3 * ncq.mape["iops"]
    assert not any("does not reorder" in w for w in ncq.warnings)
    flat = [Results(iops=333.0, lat_mean_s=n / 333.0, params={"iodepth": n, "numjobs": 1})
            for n in (1, 4, 16)]
    res = fit(Curve(flat, x="iodepth"), model="hdd-ncq", verify=False, fit_ios=200)
    assert any("does not reorder its queue" in w for w in res.warnings)
    with pytest.raises(SpecError, match="simulates the device family"):
        fit(curve, model="hdd-ncq", shape="measured")
    with pytest.raises(SpecError, match="needs a base stack with device.kind 'hdd'"):
        fit(curve, model="hdd-ncq", base_stack=Stack())


def test_rate_limited_fio_points_are_open_loops_not_closed_ones(tmp_path):
    """fio's rate_iops throttles the issue: such a point is not N / (R + Z) but an open loop at
    the rate (fitting it as a closed loop would give a silently wrong model); a run that fell
    short of its rate was held by its iodepth, and is that closed loop, said so."""
    from iosim import traces
    from iosim.fit import _points

    doc = json.loads((DATA / "measured_kvm_virtio" / "randread-4k-qd1.json").read_text())
    for rate, open_loop in (("500", True), ("50000", False)):
        doc["jobs"][0]["job options"]["rate_iops"] = rate
        path = tmp_path / f"rate_limited_{rate}.json"
        path.write_text(json.dumps(doc))
        r = traces.read(path)[0]
        assert r.params["rate_iops"] == float(rate)
        notes: list[str] = []
        wl = _points([r], None, notes)[0].workload
        assert wl.open_loop is open_loop
        if open_loop:
            assert wl.rate_iops == 500.0 and wl.arrival == "paced" and not notes
        else:
            assert wl.outstanding == 1 and "could not keep up" in notes[0]


def test_surrogate_with_a_host_cpu_pool_is_exact_mva():
    # host.cpus = C, one I/O per job: the host is a C-server station of a product-form network
    stack = Stack().with_(**{"device.units": 6, "device.service": "exp:300us",
                             "host.overhead": "exp:200us", "host.cpus": 2,
                             "hba.queue_depth": 65536, "block.nr_requests": 65536})
    depths = [1, 2, 3, 8, 40]
    got = surrogate(stack, [Workload(numjobs=n) for n in depths])
    ref = theory.mva(40, [theory.Station("host", 200e-6, 2),
                          theory.Station("device", 300e-6, 6)])
    for n, g in zip(depths, got, strict=True):
        row = ref.iloc[n - 1]
        assert g["iops"] == pytest.approx(row["throughput"], rel=1e-9)
        assert g["lat_mean_s"] == pytest.approx(row["r_device"], rel=1e-9)
    # the pool is the cap here (2 / 200 us), not the device (6 / 300 us)
    assert got[-1]["iops"] == pytest.approx(2 / 200e-6, rel=1e-3)


# a host whose overhead holds one of two shared CPUs: it caps IOPS at 2 / 100 us = 20,000,
# a quarter of what the device's 16 units serve
POOL_TRUTH = {"host.overhead": 100e-6, "device.service": 200e-6, "host.cpus": 2}


def _pool_stack() -> Stack:
    return Stack().with_(**{"device.units": 16, "device.service": "exp:200us",
                            "host.overhead": "exp:100us", "host.cpus": 2,
                            "hba.queue_depth": 65536, "block.nr_requests": 65536})


def test_recovers_a_host_cpu_pool_and_predicts_held_out_points():
    curve = _measure(_pool_stack(), [1, 2, 4, 8, 16, 32])
    base = MODELS["generic"].stack().with_(**{"device.units": 16,
                                              "host.overhead": "exp:100us"})
    res = fit(curve, params=list(POOL_TRUTH), base_stack=base, ios=3000, seed=7,
              holdout={"numjobs": [4, 32]}, percentiles=False)
    assert res.params["host.cpus"].value == 2
    for name, true in POOL_TRUTH.items():
        p = res.params[name]
        assert p.ci95[0] <= true <= p.ci95[1], (name, p)
    for p in (p for p in res.points if p["set"] == "holdout"):
        assert abs(p["error"]["iops"]) < 8.0 and abs(p["error"]["lat_mean_s"]) < 8.0, p


def test_the_pool_is_fitted_when_the_jobs_contend_for_cpus_and_kept_only_if_it_binds():
    # the benchmark's CPU time per I/O grows with the jobs (as fio's usr + sys show on a real
    # host): the fit tries the host's CPUs as a pool, bounded by the CPUs it kept busy
    depths = [1, 2, 4, 8, 16, 32]
    curve = _measure(_pool_stack(), depths)
    for r, n in zip(curve.points, depths, strict=True):
        r.counters = {**(r.counters or {}), "cpu_pct": 100 * min(1.9, r.iops * 100e-6
                                                                 * (1 + 0.1 * math.log2(n)))}
    base = MODELS["generic"].stack().with_(**{"host.overhead": "exp:100us"})
    res = fit(curve, model="generic", base_stack=base, verify=False, percentiles=False)
    assert "host.cpus" in res.params and res.params["host.cpus"].value == 2
    assert res.params["host.cpus"].bounds == (2.0, 32.0)
    assert res.notes and res.notes[0].startswith("host.cpus: the jobs contend")
    # CPU time per I/O growing as much on a host with CPUs to spare (the truth of the tests
    # above, no pool): the pool does not bind, and the model is fitted without it (and says so)
    free = _measure(_truth_stack(), depths)
    for r, n in zip(free.points, depths, strict=True):
        r.counters = {**(r.counters or {}), "cpu_pct": 100 * r.iops * 20e-6
                      * (1 + 0.1 * math.log2(n))}
    res = fit(free, model="generic", verify=False, percentiles=False)
    assert "host.cpus" not in res.params
    assert "the pool did not bind" in res.notes[0]

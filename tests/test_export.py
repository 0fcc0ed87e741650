"""fio-style JSON export of simulated runs and sweeps (iosim.export)."""

from __future__ import annotations

import json

import pytest

from iosim import Results, Stack, Workload, simulate, sweep
from iosim.export import FIO_PERCENTILES, to_fio_json, write_fio_json


@pytest.fixture(scope="module")
def stack() -> Stack:
    return Stack().with_(**{"device.units": 4, "device.service": "exp:100us"})


@pytest.fixture(scope="module")
def run(stack) -> Results:
    return simulate(stack, Workload(iodepth=8, block_size_bytes=8192), ios=3000, seed=2)


def _traces_reader():
    try:
        from iosim.traces import read_fio_json
    except ImportError:
        pytest.skip("iosim.traces.read_fio_json is not available in this build yet")
    return read_fio_json


def test_structure_of_one_run(run):
    d = to_fio_json(run, jobname="qd8")
    assert d["fio version"].startswith("iosim-")
    assert isinstance(d["timestamp"], int) and isinstance(d["global options"], dict)
    (job,) = d["jobs"]
    assert job["jobname"] == "qd8" and job["groupid"] == 0
    opts = job["job options"]
    assert opts["rw"] == "randread" and opts["bs"] == "8192" and opts["iodepth"] == "8"
    rd, wr = job["read"], job["write"]
    # fio's units: bw in KiB/s, runtime in ms, latencies in ns, percentile keys "99.000000"
    assert rd["iops"] == pytest.approx(run.iops)
    assert rd["bw_bytes"] == pytest.approx(run.iops * 8192, rel=1e-6)
    assert rd["bw"] == rd["bw_bytes"] // 1024
    assert rd["runtime"] == round(run.sim_time_s * 1000)
    assert rd["total_ios"] == pytest.approx(run.ios, abs=1)
    assert rd["io_bytes"] == rd["total_ios"] * 8192
    assert rd["lat_ns"]["mean"] == pytest.approx(run.lat_mean_s * 1e9, abs=1)
    assert rd["clat_ns"]["mean"] == rd["lat_ns"]["mean"]
    pct = rd["clat_ns"]["percentile"]
    assert set(pct) == {f"{q:.6f}" for q in FIO_PERCENTILES}
    assert pct["99.000000"] == round(run.lat_p99_s * 1e9)
    assert pct["50.000000"] <= pct["99.000000"] <= pct["99.990000"]
    assert rd["lat_ns"]["max"] == round(run.lat_max_s * 1e9)
    assert wr["iops"] == 0 and wr["total_ios"] == 0 and wr["lat_ns"]["N"] == 0
    assert sum(job["iodepth_level"].values()) == pytest.approx(100.0)
    assert job["iodepth_level"]["8"] > 99.0
    (disk,) = d["disk_util"]
    assert disk["util"] == pytest.approx(100 * run.util)
    assert d["iosim"]["engine"] == run.engine and d["iosim"]["seed"] == 2
    json.dumps(d, allow_nan=False)  # plain JSON, no NaN


def test_mixed_run_splits_directions(stack):
    r = simulate(stack, Workload(rw="randrw", rwmixread=70, iodepth=4), ios=3000, seed=4)
    job = to_fio_json(r)["jobs"][0]
    assert job["read"]["iops"] == pytest.approx(r.read_iops)
    assert job["write"]["iops"] == pytest.approx(r.write_iops)
    assert job["read"]["lat_ns"]["mean"] == pytest.approx(r.read_lat_mean_s * 1e9, abs=1)
    assert job["write"]["lat_ns"]["mean"] == pytest.approx(r.write_lat_mean_s * 1e9, abs=1)
    # the simulator's percentiles cover both directions, so none are attributed to one
    assert "percentile" not in job["read"]["clat_ns"]


def test_sweep_is_one_job_per_point(stack):
    c = sweep(stack, Workload(), {"workload.iodepth": [1, 4, 16]}, ios=800, progress=False)
    d = to_fio_json(c, jobname="sim")
    names = [j["jobname"] for j in d["jobs"]]
    assert names == ["sim-iodepth=1", "sim-iodepth=4", "sim-iodepth=16"]
    assert [j["groupid"] for j in d["jobs"]] == [0, 1, 2]
    for j, r in zip(d["jobs"], c, strict=True):
        assert j["read"]["iops"] == pytest.approx(r.iops)
        assert j["job options"]["iodepth"] == str(r.params["workload.iodepth"])


def test_measured_results_without_duration_export():
    r = Results(iops=5000.0, lat_mean_s=2e-4, params={"rw": "randwrite", "numjobs": 1})
    job = to_fio_json(r)["jobs"][0]
    assert job["write"]["iops"] == 5000.0 and job["read"]["iops"] == 0
    assert job["write"]["runtime"] == 1000  # one second assumed, so counts equal rates
    assert to_fio_json(r)["disk_util"] == []


def test_bad_input():
    with pytest.raises(TypeError, match="Results or Curve"):
        to_fio_json({"iops": 1})
    from iosim import Curve

    with pytest.raises(ValueError, match="no points"):
        to_fio_json(Curve([]))


def test_written_file_reads_back_with_the_fio_parser(run, stack, tmp_path):
    path = tmp_path / "sim.json"
    write_fio_json(run, path, jobname="qd8")
    assert json.loads(path.read_text())["jobs"][0]["jobname"] == "qd8"
    read_fio_json = _traces_reader()
    (back,) = read_fio_json(path).points
    assert back.iops == pytest.approx(run.iops, rel=1e-9)
    assert back.read_iops == pytest.approx(run.read_iops, rel=1e-9)
    assert back.bandwidth_Bps == pytest.approx(run.bandwidth_Bps, rel=1e-6)
    assert back.lat_mean_s == pytest.approx(run.lat_mean_s, rel=1e-6)
    for name in ("lat_p50_s", "lat_p95_s", "lat_p99_s", "lat_p999_s"):
        assert getattr(back, name) == pytest.approx(getattr(run, name), rel=1e-6)
    assert back.util == pytest.approx(run.util, rel=1e-6)
    assert back.params["iodepth"] == 8
    # a sweep round-trips point by point, mixed directions included
    c = sweep(stack, Workload(rw="randrw"), {"workload.iodepth": [1, 16]}, ios=800, progress=False)
    write_fio_json(c, tmp_path / "sweep.json")
    back = read_fio_json(tmp_path / "sweep.json")
    assert len(back) == 2
    for a, b in zip(c, back, strict=True):
        assert b.iops == pytest.approx(a.iops, rel=1e-9)
        assert b.read_iops == pytest.approx(a.read_iops, rel=1e-9)
        assert b.lat_mean_s == pytest.approx(a.lat_mean_s, rel=1e-6)
        assert b.params["iodepth"] == a.params["workload.iodepth"]


@pytest.mark.parametrize("rw, mix", [("randread", None), ("randrw", 70)])
def test_an_open_loop_exports_as_each_jobs_rate_and_reads_back_as_the_same_open_loop(
        stack, tmp_path, rw, mix):
    """fio's rate_iops is each job's cap per direction: an open loop of 2,000 I/O per s from
    four jobs is written as 500 per job (350,150 for a 70 % read mix), and the fit's reader
    takes the file back as an open loop at 2,000."""
    from iosim.fit import _points

    wl = Workload(rw=rw, rate_iops=2000, numjobs=4, **({"rwmixread": mix} if mix else {}))
    r = simulate(stack, wl, ios=1500, seed=3)
    path = tmp_path / "open.json"
    write_fio_json(r, path)
    opts = json.loads(path.read_text())["jobs"][0]["job options"]
    assert opts["rate_iops"] == ("500" if mix is None else "350,150")
    (back,) = _traces_reader()(path).points
    got = _points([back], None)[0].workload
    assert got.open_loop and got.rate_iops == pytest.approx(2000)
    assert got.arrival == wl.arrival == "poisson" and got.read_fraction == wl.read_fraction

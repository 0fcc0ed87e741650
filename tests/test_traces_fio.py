"""fio readers: values read by eye from corpus files, job-file round trips, logs, and the
errors malformed input must produce."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from iosim.traces import (
    TraceFormatError,
    detect_format,
    read,
    read_fio_hist_log,
    read_fio_job,
    read_fio_json,
    read_fio_log,
    read_fio_terse,
    read_fio_text,
    summarize_hist_log,
    summarize_latency_log,
)
from iosim.workload import Workload

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not available")
approx = pytest.approx


def corpus(rel: str) -> Path:
    return CORPUS / rel


# ------------------------------------------------------------------------------------------
# JSON
# ------------------------------------------------------------------------------------------


@needs_corpus
def test_json_fio31_group_reporting_values():
    # read by eye: "iops" : 46145.592720, clat_ns mean 1364339.692101, lat_ns mean
    # 1381888.653004, "bw" : 184582 (KiB/s), clat 99th 1630208 ns, disk util 100 %
    c = read_fio_json(corpus("fio-json/fio31-mx200-randread-qd04-nj16-group.json"))
    assert len(c) == 1
    r = c[0]
    assert r.iops == approx(46145.592720)
    assert r.read_iops == approx(46145.592720)
    assert r.write_iops == 0
    assert r.extra["clat_mean_s"] == approx(1364339.692101e-9)
    assert r.lat_mean_s == approx(1381888.653004e-9)
    assert r.bandwidth_Bps == approx(184582 * 1024)
    assert r.lat_p99_s == approx(1630208e-9)
    assert r.lat_p50_s == approx(1351680e-9)
    assert r.lat_max_s == approx(76693901e-9)
    assert r.extra["percentiles_from"] == "clat"
    assert r.util == approx(1.0)
    assert r.aqu_sz == approx(3712048 / 1000 / 60.003)
    assert r.ios == 2768874
    assert r.params["numjobs"] == 16 and r.params["iodepth"] == 4
    assert r.params["rw"] == "randread" and r.params["block_size_bytes"] == 4096
    assert r.params["jobname"] == "random-read" and r.params["fio_version"] == "fio-3.1"
    assert r.qd_dist[4] == approx(0.99998266)


@needs_corpus
def test_json_fio2_usec_schema():
    # fio 2.18: "clat" mean 17936.376176 usec, "lat" mean 17949.965069, "bw" 890 KiB/s
    r = read_fio_json(corpus("fio-json/fio218-md127-raid-randread-qd004-nj1.json"))[0]
    assert r.iops == approx(222.609909)
    assert r.extra["clat_mean_s"] == approx(17936.376176e-6)
    assert r.lat_mean_s == approx(17949.965069e-6)
    assert r.bandwidth_Bps == approx(890 * 1024)
    assert r.params["iodepth"] == 4  # "04" in the job options
    # md127 reports no util of its own: the members' aggregate is used
    assert r.util == approx(0.81803038)
    assert r.extra["disk"] == "md127"


@needs_corpus
def test_json_fio214_no_options_stonewalled_groups():
    c = read_fio_json(corpus("fio-json/fio214-pkb-5jobs-seq-rand-parallel.json"))
    assert [p.params["groupid"] for p in c] == [0, 1, 2, 3, 4]
    w = c[0]
    assert w.params["jobname"] == "sequential_write"
    assert w.iops == 133 and w.read_iops == 0
    assert w.lat_mean_s == approx(478737.47e-6)
    assert "iodepth" not in w.params  # fio 2.1.4 JSON has no job options
    # several groups: the whole-run disk counters are not pinned on any one of them
    assert all(p.util is None for p in c)


@needs_corpus
def test_json_per_job_entries_are_summed():
    c = read_fio_json(corpus("fio-json/fio333-nvme-iouring-randwrite-qd1-nj08-perjob-sweep.json"))
    assert len(c) == 1
    raw = json.loads(
        corpus("fio-json/fio333-nvme-iouring-randwrite-qd1-nj08-perjob-sweep.json").read_text()
    )
    assert c[0].iops == approx(sum(j["write"]["iops"] for j in raw["jobs"]))
    assert c[0].params["numjobs"] == 8
    assert c[0].extra["merged_entries"] == 8
    # the jobs' CPU time (user + system, % of one CPU) is summed too: the CPUs they kept busy
    assert c[0].counters["cpu_pct"] == approx(
        sum(j["usr_cpu"] + j["sys_cpu"] for j in raw["jobs"]))
    each = read_fio_json(
        corpus("fio-json/fio333-nvme-iouring-randwrite-qd1-nj08-perjob-sweep.json"), merge="none"
    )
    assert len(each) == 8 and all(p.params["numjobs"] == 1 for p in each)


@needs_corpus
def test_json_noise_and_two_documents():
    c = read_fio_json(corpus("fio-json/fio312-k8s-nfs-randwrite-two-json-with-shell-prompt.txt"))
    assert [p.params["report"] for p in c] == [0, 1]
    c = read_fio_json(corpus("fio-json/fio333-interrupted-signal2-text-before-json.json"))
    assert c[0].params["iodepth"] == 16 and c[0].counters["read_ios"] == 369080
    c = read_fio_json(corpus("fio-json/fio313-windows-verify-error-lines-before-json.txt"))
    assert c[0].extra["error"] == 42 and c[0].counters["errors"] == 1


@needs_corpus
def test_json_mixed_directions_and_custom_percentiles():
    c = read_fio_json(
        corpus("fio-json/fio341-windows-qd1-32-sweep-6-groups-custom-percentiles.json")
    )
    assert [p.params["iodepth"] for p in c] == [1, 2, 4, 8, 16, 32]
    q1 = c[0]
    assert q1.read_iops == approx(10523.724605) and q1.write_iops == approx(10516.22473)
    w_r, w_w = 631434, 630984  # "N" of each direction's lat_ns
    want = (63094.567420 * w_r + 30226.323170 * w_w) / (w_r + w_w) * 1e-9
    assert q1.lat_mean_s == approx(want, rel=1e-3)
    assert q1.read_lat_mean_s == approx(63094.567420e-9)
    # only 50/95/99/99.9 were asked for: the mixture falls between the two directions
    assert 17536e-9 <= q1.lat_p50_s <= 51968e-9
    assert q1.lat_p9999_s is None and q1.lat_p999_s is not None
    assert "percentiles_mixed" in q1.extra


def test_json_synthetic_duplicate_keys_and_lat_percentiles(tmp_path: Path):
    doc = """fio: some warning first
{
  "fio version" : "fio-3.35",
  "jobs" : [ {
      "jobname" : "j", "groupid" : 0, "error" : 0,
      "job options" : { "rw" : "randread:8", "bs" : "8k", "iodepth" : "4", "numjobs" : "2",
                        "group_reporting" : "1", "ioengine" : "libaio" },
      "read" : { "bw" : 100, "iops" : 12.5, "runtime" : 1000, "total_ios" : 10,
                 "iops" : 10.0,
                 "clat_ns" : { "min" : 1, "max" : 5, "mean" : 100000.0,
                               "percentile" : { "50.000000" : 1, "0.00" : 0, "0.00" : 0 } },
                 "lat_ns" : { "min" : 1, "max" : 900000, "mean" : 200000.0,
                              "percentile" : { "50.000000" : 150000, "99.000000" : 800000 } } },
      "write" : { "bw" : 0, "iops" : 0.0, "runtime" : 0, "total_ios" : 0 }
  } ]
}
"""
    f = tmp_path / "out.json"
    f.write_text(doc)
    r = read_fio_json(f)[0]
    assert r.iops == 10.0  # the duplicate key: the last one wins
    assert r.lat_mean_s == approx(200e-6)
    assert r.lat_p50_s == approx(150e-6) and r.lat_p99_s == approx(800e-6)
    assert r.extra["percentiles_from"] == "lat"
    assert r.params["rw"] == "randread" and r.params["block_size_bytes"] == 8192
    assert r.params["numjobs"] == 2 and r.params["iodepth"] == 4


def test_json_sync_engine_means_depth_one(tmp_path: Path):
    doc = {
        "fio version": "fio-3.35",
        "jobs": [
            {
                "jobname": "s",
                "groupid": 0,
                "job options": {"rw": "write", "ioengine": "psync", "iodepth": "32"},
                "write": {
                    "bw": 4,
                    "iops": 1.0,
                    "runtime": 1000,
                    "total_ios": 1,
                    "lat_ns": {"mean": 1e6, "max": 2e6},
                },
            }
        ],
    }
    f = tmp_path / "s.json"
    f.write_text(json.dumps(doc))
    p = read_fio_json(f)[0].params
    assert p["iodepth"] == 1 and p["iodepth_requested"] == 32


@pytest.mark.parametrize(
    "content, match",
    [
        ('{"fio version": "x", "jobs": 3}', r'"jobs" list'),
        ('{"jobs": [{"jobname": "a", "read": {"iops": "fast"}}]}', r"jobs\[0\]\.read\.iops"),
        (
            '{"jobs": [{"jobname": "a", "read": {"iops": 1, "clat_ns": {"percentile": 5}}}]}',
            "percentile",
        ),
        ('{"jobs": [{"jobname": "a"}]}', "read"),
        ('{"jobs": []}', "empty"),
        ('\n\n{"jobs": [ {"jobname": ', r":3: expected fio JSON"),
        ("fio: no such file\nfio: job dropped\n", "found no JSON"),
    ],
)
def test_json_errors(tmp_path: Path, content: str, match: str):
    f = tmp_path / "bad.json"
    f.write_text(content)
    with pytest.raises(TraceFormatError, match=match) as info:
        read_fio_json(f)
    assert str(info.value).startswith(str(f))


# ------------------------------------------------------------------------------------------
# normal output
# ------------------------------------------------------------------------------------------


@needs_corpus
def test_text_fio37_units_per_line():
    c = read_fio_text(corpus("fio-text/fio37-ssd-xfs-4groups-layout.txt"))
    assert [p.params["jobname"] for p in c] == [
        "4k_randwrite",
        "4k_randread",
        "64k_write",
        "64k_read",
    ]
    w, r = c[0], c[1]
    assert w.iops == 45900  # IOPS=45.9k
    assert w.extra["clat_mean_s"] == approx(17681.44e-9)  # clat (nsec)
    assert w.lat_mean_s == approx(21.17e-6)  # lat (usec)
    assert w.lat_p99_s == approx(31872e-9)  # clat percentiles (nsec)
    assert w.lat_max_s == approx(5368e-6)
    assert w.bandwidth_Bps == approx(179 * 1024**2)
    assert r.iops == 243000 and r.params["iodepth"] == 64
    assert r.lat_mean_s == approx(262.80e-6) and r.lat_p99_s == approx(383e-6)
    assert r.qd_dist[64] == approx(1.0, abs=0.01)
    assert c[2].params["block_size_bytes"] == 65536
    assert c[0].ios == 1310720


@needs_corpus
def test_text_fio2_suffixes_and_bytes_per_second():
    c = read_fio_text(corpus("fio-text/fio216-cephfs-randread-4groups-nj4.txt"))
    assert len(c) == 4 and all(p.params["numjobs"] == 4 for p in c)
    e = c[1]
    assert e.bandwidth_Bps == approx(638967)  # bw=638967B/s
    assert e.lat_mean_s == approx(815.25e-3)  # lat (msec) avg=815.25
    assert e.extra["clat_mean_s"] == approx(789630.34e-6)  # clat (usec), max=1474.2K
    assert e.lat_p99_s == approx(1221e-3)  # percentiles in msec
    assert c[0].bandwidth_Bps == approx(1084.9 * 1024)  # bw=1084.9KB/s


@needs_corpus
def test_text_mixed_read_write_and_old_issued_line():
    r = read_fio_text(corpus("fio-text/fio2210-cephfs-ec21-rw-4k.txt"))[0]
    assert r.read_iops == 136 and r.write_iops == 136
    assert r.counters == {"read_ios": 8177, "write_ios": 8200, "trim_ios": 0}
    assert r.lat_mean_s == approx((114.21 * 8177 + 120.56 * 8200) / (8177 + 8200) * 1e-3)
    assert r.bandwidth_Bps == approx(557417 + 558985)
    assert r.params["rw"] == "rw" and r.params["iodepth"] == 32


@needs_corpus
def test_text_bogus_latency_is_dropped():
    c = read_fio_text(corpus("fio-text/fio2111-12groups-48threads-lat-only-bogus-values.txt"))
    assert len(c) == 12
    assert all(p.lat_mean_s is None for p in c)
    assert "exceeds runtime" in c[0].extra["discarded"][0]
    assert c[0].iops == 165491


@needs_corpus
def test_text_appended_reports_and_fsync():
    c = read_fio_text(corpus("fio-text/fio316-vagrant-vm-randrw-fsync-6-runs-appended.txt"))
    assert [p.params["report"] for p in c] == list(range(8))
    first = c[0]
    assert first.iops == 5406 + 5409
    assert first.counters["sync_ios"] == 648959
    assert first.qd_dist == {1: approx(1.0), 2: 0.0, 4: 0.0, 8: 0.0, 16: 0.0, 32: 0.0, 64: 0.0}
    assert first.extra["qd_dist_renormalised_from"] == approx(2.0)
    assert first.extra["sync_lat_mean_s"] == approx(37.65e-9)
    assert first.util == approx(1.0)


@needs_corpus
def test_text_k_suffix_iops_and_disk_stats():
    r = read_fio_text(corpus("fio-text/fio330-laptop-nvme-randread-nj32-group.txt"))[0]
    assert r.iops == 303000 and r.params["numjobs"] == 32
    assert r.util == approx(0.999)
    assert r.aqu_sz == approx(1496371 / 1000 / 60.001)
    assert r.block_iops == approx((18090309 + 2494) / 60.001)


def test_text_errors(tmp_path: Path):
    f = tmp_path / "bad.txt"
    f.write_text("job: (groupid=0, jobs=1): err= 0: pid=1\n  cpu : usr=1%\n")
    with pytest.raises(TraceFormatError, match=r"bad.txt:1: job 'job'"):
        read_fio_text(f)
    f.write_text("nothing to see\n")
    with pytest.raises(TraceFormatError, match="no job blocks"):
        read_fio_text(f)
    f.write_text(
        "job: (groupid=0, jobs=1): err= 0: pid=1\n"
        "  read: IOPS=1q, BW=1MiB/s (1MB/s)(1MiB/1000msec)\n"
    )
    with pytest.raises(TraceFormatError):
        read_fio_text(f)


# ------------------------------------------------------------------------------------------
# terse
# ------------------------------------------------------------------------------------------


@needs_corpus
def test_terse_v3_header_and_121_fields():
    c = read_fio_terse(corpus("fio-terse/fio341-windows-terse-v3-qd-sweep-with-header-line.txt"))
    assert [p.params["jobname"] for p in c] == ["Q1", "Q2", "Q4", "Q8", "Q16", "Q32"]
    q1 = c[0]
    assert q1.read_iops == 10193 and q1.write_iops == 10183
    assert q1.read_lat_mean_s == approx(64.675973e-6)
    assert q1.write_lat_mean_s == approx(31.629851e-6)
    assert q1.bandwidth_Bps == approx((40774 + 40733) * 1024)
    assert q1.qd_dist[1] == approx(1.0)
    assert q1.extra["block_size_bytes_estimated"] == approx(4096, rel=0.01)
    names = read_fio_terse(
        corpus("fio-terse/fio341-windows-terse-v3-rwmix-sweep-with-header-line.txt")
    )
    assert [p.params["jobname"] for p in names] == ["100 R", "100 W", "70R 30W", "50R 50W"]
    assert names[1].read_iops == 0 and names[1].params["rw"] == "write"


def test_terse_errors(tmp_path: Path):
    f = tmp_path / "t.txt"
    f.write_text("terse_version_3;fio_version\n3;fio-3;x;0;0;1;2\n")
    with pytest.raises(TraceFormatError, match=r"t.txt:2: terse v3 line has 7 fields"):
        read_fio_terse(f)
    f.write_text("2;x;0;0;1\n")
    with pytest.raises(TraceFormatError, match=r"t.txt:1: terse v2 line has 5 fields, "
                       r"expected at least 161 \(or a unified_rw_reporting layout\)$"):
        read_fio_terse(f)
    f.write_text("6;fio-9;x;0;0\n")
    with pytest.raises(TraceFormatError, match=r"t.txt:1: terse version '6': versions 2 to 5 "
                       "are read$"):
        read_fio_terse(f)


LAYOUTS = Path(__file__).resolve().parents[1] / "data" / "measured_fio_layouts"
# fio's stat.c: (header fields, fields per direction, directions) of each terse version
TERSE = {2: (4, 41, 3), 3: (5, 41, 2), 4: (5, 41, 3), 5: (5, 47, 3)}


def _terse_fields(name: str) -> list[str]:
    return (LAYOUTS / name).read_text().strip().split(";")


@pytest.mark.parametrize("version", [2, 3, 4, 5])
def test_terse_versions_2_to_5(version):
    """One randrw job per terse version: IOPS = reads + writes from the fields where fio's
    stat.c puts them, the mean between the two directions' means, depths and disk read."""
    name = f"terse-v{version}.txt"
    assert detect_format(LAYOUTS / name) == "fio-terse"
    head, width, ndirs = TERSE[version]
    f = _terse_fields(name)
    rd_iops, wr_iops = float(f[head + 2]), float(f[head + width + 2])
    rd_lat, wr_lat = float(f[head + 34]) * 1e-6, float(f[head + width + 34]) * 1e-6
    (r,) = read_fio_terse(LAYOUTS / name)
    assert r.read_iops == rd_iops and r.write_iops == wr_iops > 0
    assert r.iops == rd_iops + wr_iops  # no trim in this job
    w = rd_iops / (rd_iops + wr_iops)
    assert r.lat_mean_s == approx(w * rd_lat + (1 - w) * wr_lat, rel=2e-3)
    tail = head + ndirs * width
    assert _is_pct(f[tail]) and _is_pct(f[tail + 1])  # the CPU fields
    assert sum(r.qd_dist.values()) == approx(1.0, abs=0.01)
    assert r.params["fio_version"] == ("fio-3.33" if version > 2 else
                                       "fio (terse v2: version not recorded)")
    assert (r.util is None) == (version == 2)  # v2 prints no disk statistics


def _is_pct(x: str) -> bool:
    return x.endswith("%") and "=" not in x


def test_unified_rw_reporting_mixed():
    """unified_rw_reporting=mixed: one "mixed" direction in JSON, normal text and terse."""
    doc = json.loads((LAYOUTS / "mixed.json").read_text())
    mixed = doc["jobs"][0]["mixed"]
    (r,) = read_fio_json(LAYOUTS / "mixed.json")
    assert r.iops == approx(mixed["iops"])
    assert r.lat_mean_s == approx(mixed["lat_ns"]["mean"] * 1e-9)
    assert r.read_iops is None and r.write_iops is None
    assert "no read/write split" in r.extra["directions"]
    (t,) = read_fio_text(LAYOUTS / "mixed-normal.txt")
    (iops,) = re.findall(r"mixed: IOPS=([\d.]+)k", (LAYOUTS / "mixed-normal.txt").read_text())
    assert t.iops == approx(float(iops) * 1000)
    assert "no read/write split" in t.extra["directions"]
    f = _terse_fields("mixed-terse.txt")
    (m,) = read_fio_terse(LAYOUTS / "mixed-terse.txt")
    assert m.iops == float(f[7]) and m.lat_mean_s == approx(float(f[5 + 34]) * 1e-6)
    assert "directions" in m.extra


def _rw_iops(job: dict) -> float:
    return job["read"]["iops"] + job["write"]["iops"]


@pytest.mark.parametrize("name, clients", [
    ("client2.json", 2), ("client2-status.json", 2), ("client1-status.json", 1),
    ("client1-numjobs2.json", 2)])
def test_client_server_json(name, clients):
    """fio --client: "client_stats" hold each client's jobs, the clients' sum ("All clients")
    after a round of more than one job, and with --status-interval every round (each job's
    last report is the whole run)."""
    stats = json.loads((LAYOUTS / name).read_text())["client_stats"]
    jobs = [c for c in stats if c["jobname"] != "All clients"]
    whole = jobs[-clients:]  # the last round
    assert all(c["job_runtime"] == 1000 for c in whole)
    (r,) = read_fio_json(LAYOUTS / name)
    assert r.params["numjobs"] == clients
    assert r.iops == approx(sum(_rw_iops(c) for c in whole))
    if "status" in name:
        assert len(jobs) == 2 * clients and jobs[0]["job_runtime"] < 1000  # a round before


@pytest.mark.parametrize("name", ["client2-normal.txt", "client2-status-normal.txt"])
def test_client_server_text(name):
    """The normal output of two clients: each client's jobs after the one before's summary
    (lines from a server prefixed "<host> "), a job's later report replacing its earlier one,
    the clients' sum left out."""
    last: dict = {}
    pid = None
    for line in (LAYOUTS / name).read_text().splitlines():
        m = re.match(r"(\S.*?): \(groupid=\d+, jobs=\d+\).*pid=(\d+)", line)
        if m:
            pid = None if m.group(1) == "All clients" else m.group(2)
            if pid:
                last[pid] = 0.0
        m = re.match(r"\s+(?:read|write): IOPS=([\d.]+)(k?)", line)
        if m and pid:
            last[pid] += float(m.group(1)) * (1000 if m.group(2) else 1)
    assert len(last) == 2
    (r,) = read_fio_text(LAYOUTS / name)
    assert r.params["numjobs"] == 2 and r.params["iodepth"] == 4  # from "<host> rw70: (g=0)"
    assert r.iops == approx(sum(last.values()))


def test_unified_rw_reporting_both_reads_the_separate_directions():
    doc = json.loads((LAYOUTS / "both.json").read_text())
    job = doc["jobs"][0]
    (r,) = read_fio_json(LAYOUTS / "both.json")
    assert r.iops == approx(job["read"]["iops"] + job["write"]["iops"])
    assert r.read_iops == approx(job["read"]["iops"]) and "directions" not in r.extra
    (t,) = read_fio_text(LAYOUTS / "both-normal.txt")  # its mixed line says IOPS=0
    assert t.iops == approx(t.read_iops + t.write_iops) and t.read_iops > 0
    f = _terse_fields("both-terse.txt")
    (m,) = read_fio_terse(LAYOUTS / "both-terse.txt")
    assert m.iops == float(f[7]) + float(f[5 + 41 + 2])


# ------------------------------------------------------------------------------------------
# logs
# ------------------------------------------------------------------------------------------


@needs_corpus
def test_log_units_and_columns():
    df = read_fio_log(corpus("fio-logs/fio31-mx200-sweep-depth16_clat.1.log"))
    assert list(df.columns) == ["time_s", "value", "direction", "size_bytes"]
    assert df.attrs["unit"] == "ns"  # 90675978 would be 90 s in usec
    assert df["value"].iloc[0] == approx(90675978e-9)
    assert df["time_s"].iloc[0] == approx(0.551)
    assert (df["direction"] == "write").all()
    five = read_fio_log(corpus("fio-logs/fio333-nvme-randwrite-qd1_clat.1.log"))
    assert five.attrs["unit"] == "ns" and "prio" in five
    bw = read_fio_log(corpus("fio-logs/fio31-mx200-sweep-depth16_bw.1.log"))
    assert bw["value"].iloc[0] == approx(504 * 1024)
    old = read_fio_log(corpus("fio-logs/fio2210-cephfs-rw-4k_clat.log"), unit="us")
    assert old["value"].iloc[0] == approx(89981e-6)
    assert list(old["direction"][:2]) == ["read", "write"]


@needs_corpus
def test_latency_log_summary_resolves_units_with_iops_log():
    clat = corpus("fio-logs/fio218-md127-randread-qd1_clat.1.log")
    assert read_fio_log(clat).attrs["unit_reason"].startswith("ambiguous")
    r = summarize_latency_log(
        clat, iops_log=corpus("fio-logs/fio218-md127-randread-qd1_iops.1.log")
    )
    assert r.extra["unit"] == "us"
    assert r.iops * r.lat_mean_s == approx(1.0, rel=0.05)  # iodepth 1
    r2 = summarize_latency_log(
        corpus("fio-logs/fio2210-cephfs-rw-4k_clat.log"),
        iops_log=corpus("fio-logs/fio2210-cephfs-rw-4k_iops.log"),
    )
    assert r2.iops * r2.lat_mean_s == approx(32, rel=0.1)  # iodepth 32
    assert r2.read_iops > 0 and r2.write_iops > 0


@needs_corpus
def test_hist_log():
    df = read_fio_hist_log(corpus("fio-logs/fio217-pkb-rand16k_clat_hist.1.log"))
    assert df.attrs["bins"] == 1216 and df.attrs["unit"] == "us"
    assert len(df) == 9 and (df["size_bytes"] == 16384).all()
    vals = df.attrs["bin_latency_s"]
    assert vals[:3] == [0.0, 1e-6, 2e-6] and vals == sorted(vals)
    r = summarize_hist_log(df)
    assert r.ios == int(df.filter(like="bin").to_numpy().sum())
    assert 100e-6 < r.lat_mean_s < 1e-3
    assert r.lat_p50_s <= r.lat_p99_s <= r.lat_max_s


def test_log_errors(tmp_path: Path):
    f = tmp_path / "x_lat.log"
    f.write_text("1, 2, 0, 4096\n2, 3, 0\n")
    with pytest.raises(TraceFormatError, match=r"x_lat.log:2: expected 4 columns"):
        read_fio_log(f)
    f.write_text("1, 2, 0, 4096\n2, abc, 0, 4096\n")
    with pytest.raises(TraceFormatError, match="'abc'"):
        read_fio_log(f)
    g = tmp_path / "whatever.log"
    g.write_text("1, 2, 0, 4096\n")
    with pytest.raises(TraceFormatError, match="kind"):
        read_fio_log(g)
    assert read_fio_log(g, kind="iops")["value"].iloc[0] == 2
    h = tmp_path / "y_clat_hist.1.log"
    h.write_text("1000, 0, 4096, " + ", ".join(["1"] * 10) + "\n")
    with pytest.raises(TraceFormatError, match="10 bins"):
        read_fio_hist_log(h)


def test_log_per_io_summary(tmp_path: Path):
    f = tmp_path / "job_lat.1.log"
    rows = [
        f"{t}, {v}, {d}, 4096"
        for t, v, d in [(1, 100_000, 0), (2, 200_000, 1), (3, 300_000, 0), (4, 400_000, 1)]
    ]
    f.write_text("\n".join(rows) + "\n")
    r = summarize_latency_log(f, unit="ns")
    assert r.ios == 4 and r.lat_mean_s == approx(250e-6)
    assert r.read_lat_mean_s == approx(200e-6) and r.write_lat_mean_s == approx(300e-6)
    assert r.extra["percentiles_from"] == "per-I/O values"


# ------------------------------------------------------------------------------------------
# job files
# ------------------------------------------------------------------------------------------

JOB = """\
; fio job file written for the test
[global]
ioengine=libaio
direct=1
bs=4k
size=10g
runtime=60
time_based

[randread-qd8]
rw=randread:8
iodepth=8
numjobs=4

[mixed]  # a comment
rw=randrw
rwmixread=70
bssplit=4k/50:64k/50
iodepth=16
rate_iops=1000
rate_process=poisson
thinktime=200
frobnicate=yes

[global]
ioengine=psync

[sync-writer]
rw=write
bs=128k
iodepth=32
"""


def test_job_file_to_workloads(tmp_path: Path):
    f = tmp_path / "sweep.fio"
    f.write_text(JOB)
    jobs = read_fio_job(f)
    assert [n for n, _ in jobs] == ["randread-qd8", "mixed", "sync-writer"]
    rr = jobs[0][1]
    assert rr == Workload(
        rw="randread", block_size_bytes=4096, iodepth=8, numjobs=4, span_bytes=10 * 1024**3
    )
    mixed = jobs[1][1]
    assert mixed.rw == "randrw" and mixed.rwmixread == 70
    assert mixed.bssplit == ((4096.0, 0.5), (65536.0, 0.5))
    # 1000/s caps reads and writes each: the reads (70 %) hit it first
    assert mixed.rate_iops == approx(1000 / 0.7)
    assert mixed.arrival == "poisson"
    assert mixed.thinktime_s == approx(200e-6)  # fio: usec when unitless
    sync = jobs[2][1]
    assert sync.iodepth == 1 and sync.block_size_bytes == 128 * 1024 and sync.rw == "write"
    assert "frobnicate" in jobs.ignored["mixed"] and "direct" in jobs.ignored["randread-qd8"]
    assert any("synchronous" in n for n in jobs.notes["sync-writer"])
    assert read(f) == jobs  # detection by content


def test_job_file_round_trip(tmp_path: Path):
    """Workload -> job file text -> Workload."""
    cases = [
        Workload(rw="randwrite", block_size_bytes=16384, iodepth=32, numjobs=2),
        Workload(rw="rw", rwmixread=30, block_size_bytes=65536, iodepth=1, span_bytes=2 * 1024**3),
        Workload(rw="randread", block_size_bytes=8192, iodepth=4, rate_iops=500, arrival="paced"),
    ]
    for k, wl in enumerate(cases):
        lines = [
            f"[job{k}]",
            "ioengine=libaio",
            f"rw={wl.rw}",
            f"bs={int(wl.block_size_bytes)}",
            f"iodepth={wl.iodepth}",
            f"numjobs={wl.numjobs}",
            f"size={int(wl.span_bytes)}",
        ]
        if wl.rw in ("rw", "randrw"):
            lines.append(f"rwmixread={wl.rwmixread:g}")
        if wl.rate_iops:
            lines.append(f"rate_iops={wl.rate_iops:g}")
        f = tmp_path / f"j{k}.fio"
        f.write_text("\n".join(lines) + "\n")
        [(name, back)] = read_fio_job(f)
        assert name == f"job{k}" and back == wl


@pytest.mark.parametrize(
    "text, match",
    [
        ("rw=read\n[a]\n", r":1: option 'rw=read' before any \[section\]"),
        ("[a]\nrw=trim\n", r":2: job \[a\]: rw='trim' cannot be simulated"),
        ("[a]\nbs=huge\n", r":1: job \[a\]"),
        ("[global]\nrw=read\n", "found none"),
        ("[a\nrw=read\n", "malformed section"),
        ("[a]\nrw=read\nbs=100\n", "less than one 512-byte sector"),
    ],
)
def test_job_file_errors(tmp_path: Path, text: str, match: str):
    f = tmp_path / "bad.fio"
    f.write_text(text)
    with pytest.raises(TraceFormatError, match=match):
        read_fio_job(f)


def _report(runtime_ms: int, ios: int, stamp_ms: int) -> dict:
    """A fio 3.x JSON report of one 4 KiB randread job (what a test needs of it)."""
    lat = {"mean": 70000.0, "max": 900000.0, "percentile": {"50.000000": 45000}}
    read = {"iops": ios / (runtime_ms / 1000), "runtime": runtime_ms, "total_ios": ios,
            "bw_bytes": 4096 * ios * 1000 // runtime_ms, "lat_ns": lat, "clat_ns": lat}
    idle = {"iops": 0.0, "runtime": 0, "total_ios": 0, "bw_bytes": 0}
    return {"fio version": "fio-3.33", "timestamp": stamp_ms // 1000, "timestamp_ms": stamp_ms,
            "jobs": [{"jobname": "st1", "groupid": 0, "job_runtime": runtime_ms,
                      "job options": {"rw": "randread", "bs": "4k", "iodepth": "1"},
                      "read": read, "write": idle, "trim": idle}]}


def test_json_status_interval_reports_are_one_run(tmp_path: Path):
    """fio --status-interval=1 appends the run so far every second and the whole run last
    (the timings of a real 3 s run on the project's disk): one point, the last report. Two
    runs appended (the second written after its whole runtime) stay two points."""
    run = [_report(895, 10775, 1_000_026_384), _report(1894, 24810, 1_000_027_382),
           _report(2894, 39576, 1_000_028_382), _report(3000, 41209, 1_000_028_534)]
    p = tmp_path / "status.json"
    p.write_text("\n".join(json.dumps(d) for d in run))
    (pt,) = read_fio_json(p).points
    assert pt.iops == pytest.approx(41209 / 3.0)
    assert "3 progress report(s)" in pt.extra["status_snapshots"]
    # a second, longer run of the same job appended: written at least its runtime later
    two = [_report(1000, 13000, 1_000_000_000), _report(3000, 41000, 1_000_003_600)]
    q = tmp_path / "two.json"
    q.write_text("\n".join(json.dumps(d) for d in two))
    assert [r.iops for r in read_fio_json(q).points] == pytest.approx([13000, 41000 / 3])


_STATUS_BLOCK = """\
sttext: (groupid=0, jobs=1): err= 0: pid=4113: Sat Nov 28 09:11:{sec} 2026
  read: IOPS={iops}, BW=158MiB/s (165MB/s)(141MiB/{ms}msec)
     lat (usec): min=45, max=4137, avg={lat}, stdev=62.31
  IO depths    : 1=0.1%, 2=0.1%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, >=64=0.0%
     issued rwts: total={ios},0,0,0 short=0,0,0,0 dropped=0,0,0,0

Run status group 0 (all jobs):
   READ: bw=158MiB/s (165MB/s), 158MiB/s-158MiB/s (165MB/s-165MB/s), io=141MiB (148MB), \
run={ms}-{ms}msec

Disk stats (read/write):
  vda: ios=26677/0, merge=0/0, ticks=1713/0, in_queue=1713, util=66.31%

"""


def test_text_status_interval_reports_are_one_run_not_summed_jobs(tmp_path: Path):
    """fio --status-interval in normal output prints the job's block and the summary again and
    again without new job definitions (lines of a real 3 s run, trimmed): the last report is
    the run. Before, the four blocks were summed as four jobs: 166,600 IOPS at numjobs 4."""
    head = ("sttext: (g=0): rw=randread, bs=(R) 4096B-4096B, (W) 4096B-4096B, "
            "(T) 4096B-4096B, ioengine=libaio, iodepth=4\nfio-3.33\nStarting 1 process\n\n")
    blocks = [("27", "40.4k", "893", "98.70", "36060"), ("28", "41.5k", "1894", "96.01", "78600"),
              ("29", "42.4k", "2893", "94.80", "122600"), ("29", "42.3k", "3001", "94.10",
                                                          "126900")]
    text = head + "".join(_STATUS_BLOCK.format(sec=s, iops=i, ms=m, lat=la, ios=n)
                          for s, i, m, la, n in blocks)
    p = tmp_path / "status.out"
    p.write_text(text)
    (pt,) = read_fio_text(p).points
    assert pt.iops == pytest.approx(42300) and pt.params["numjobs"] == 1
    assert pt.lat_mean_s == pytest.approx(94.10e-6)
    assert "3 progress report(s)" in pt.extra["status_snapshots"]

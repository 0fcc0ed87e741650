"""vdbench, sysbench, iostat and IOMeter readers, and the format dispatcher."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pandas as pd
import pytest

from iosim.results import Curve
from iosim.traces import (
    FORMATS,
    TraceFormatError,
    detect_format,
    iostat_summary,
    read,
    read_iometer,
    read_iostat,
    read_sysbench,
    read_vdbench,
    read_vdbench_parm,
)

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not available")
approx = pytest.approx


def corpus(rel: str) -> Path:
    return CORPUS / rel


# ------------------------------------------------------------------------------------------
# vdbench
# ------------------------------------------------------------------------------------------

# the plain vdbench lines quoted in seed 004 (E1): one thread, then two
E1 = """\
Oct 26, 2015 interval i/o MB/sec bytes read resp read write resp resp queue cpu% cpu%
rate 1024**2 i/o pct time resp resp max stddev depth sys+u sys
10:22:28.060 avg_6-65 1782.98 13.93 8192 100.00 0.507 0.507 0.000 19.850 1.701 0.9 2.4 1.4

Oct 26, 2015 interval i/o MB/sec bytes read resp read write resp resp queue cpu% cpu%
rate 1024**2 i/o pct time resp resp max stddev depth sys+u sys
10:24:41.051 avg_6-65 4274.60 33.40 8192 100.00 0.460 0.460 0.000 22.917 0.111 2.0 4.1 2.5
"""


def test_vdbench_e1_lines(tmp_path: Path):
    f = tmp_path / "e1.txt"
    f.write_text(E1)
    c = read(f)
    assert isinstance(c, Curve) and len(c) == 2
    one, two = c
    assert one.iops == approx(1782.98)
    assert one.lat_mean_s == approx(0.507e-3)
    assert one.read_lat_mean_s == approx(0.507e-3) and one.write_lat_mean_s is None
    assert one.read_iops == approx(1782.98) and one.write_iops == 0
    assert one.bandwidth_Bps == approx(13.93 * 1024**2)
    assert one.params["block_size_bytes"] == 8192
    assert one.lat_max_s == approx(19.850e-3)
    assert one.qd_mean == approx(0.9)
    # Little's law: 1782.98/s x 0.507 ms = 0.90 I/Os in flight, vdbench's queue depth
    assert one.outstanding == approx(one.qd_mean, abs=0.01)
    assert two.iops == approx(4274.60) and two.lat_mean_s == approx(0.460e-3)
    assert two.outstanding == approx(2.0, abs=0.05)


def test_vdbench_e1_with_run_header_gives_threads(tmp_path: Path):
    f = tmp_path / "e1.txt"
    f.write_text(
        "Starting RD=rd1; I/O rate: Uncontrolled MAX; elapsed=60; For loops: "
        "threads=1\n\n" + E1.split("\n\n")[0] + "\n"
    )
    [r] = read_vdbench(f)
    assert r.params["threads"] == 1 and r.params["iodepth"] == 1 and r.params["numjobs"] == 1
    assert r.params["iorate"] == "max" and r.params["rd"] == "rd1"
    assert r.iops == approx(1782.98)


@needs_corpus
def test_vdbench_summary_totals_flatfile_agree():
    s = read_vdbench(corpus("vdbench/vdb50401-2hosts-51wd-3rd-summary.html"))
    t = read_vdbench(corpus("vdbench/vdb50401-2hosts-51wd-3rd-totals.html"))
    f = read_vdbench(corpus("vdbench/vdb50401-2hosts-51wd-3rd-flatfile.html"))
    assert [p.params["rd"] for p in s] == ["rd1", "rd2", "rd3"]
    assert [p.params["rd"] for p in t] == ["rd1", "rd2", "rd3"]
    rd1 = s[0]
    assert rd1.iops == approx(50.02) and rd1.lat_mean_s == approx(5.395e-3)
    assert rd1.read_lat_mean_s == approx(6.944e-3) and rd1.write_lat_mean_s == approx(0.516e-3)
    assert rd1.qd_mean == approx(0.3) and rd1.params["threads"] == 2
    assert rd1.params["iorate"] == "50"
    assert rd1.extra["averaged"] == "avg_2-60" and rd1.extra["intervals"] == 60
    assert s[2].iops == approx(310.05) and t[2].iops == approx(310.05)
    for a, b in zip(s, f, strict=True):
        assert b.iops == approx(a.iops, rel=2e-3)
        assert b.lat_mean_s == approx(a.lat_mean_s, rel=2e-3)
    per_interval = read_vdbench(
        corpus("vdbench/vdb50401-2hosts-51wd-3rd-summary.html"), intervals=True
    )
    assert len(per_interval) == 180
    assert per_interval[0].iops == approx(30.0) and per_interval[0].params["interval"] == 1


@needs_corpus
def test_vdbench_filesystem_incomplete_run():
    c = read_vdbench(corpus("vdbench/vdb50406-fsd-fwd-filesystem-incomplete-run-summary.html"))
    fmt, rd1 = c
    assert fmt.params["format"] is True and fmt.iops == 0 and fmt.lat_mean_s is None
    assert rd1.extra["averaged"] == "mean of intervals 2-287 (no avg row)"
    assert 100 < rd1.iops < 1000
    assert rd1.params["block_size_bytes"] == 204800
    assert rd1.counters["open_rate"] > 0
    assert rd1.read_iops + rd1.write_iops == approx(rd1.iops, rel=0.01)


@needs_corpus
def test_vdbench_macos_no_cpu_and_histogram():
    c = read_vdbench(corpus("vdbench/vdb50407-macos-arm64-zh-locale-summary.html"))
    rd1 = c[1]
    assert rd1.iops == approx(105.3) and rd1.lat_mean_s == approx(0.026e-3)
    assert rd1.lat_max_s == approx(0.12e-3)  # read max / write max columns
    assert "cpu_total_pct" not in rd1.extra
    h = read_vdbench(corpus("vdbench/vdb50401-2hosts-51wd-3rd-histogram.html"))
    assert len(h) == 3 and h[0].ios > 0
    assert h[0].lat_p50_s < h[0].lat_p99_s
    assert h[0].lat_mean_s == approx(5.395e-3, rel=0.25)  # bucket midpoints: approximate


@needs_corpus
@pytest.mark.parametrize(
    "name",
    ["vdb50403-windows-aborted-run-summary.html", "vdb50403-windows-aborted-run-totals.html"],
)
def test_vdbench_aborted_run(name):
    with pytest.raises(TraceFormatError, match="aborted") as info:
        read_vdbench(corpus(f"vdbench/{name}"))
    assert name in str(info.value)


@needs_corpus
def test_vdbench_parm_forthreads_counts_outstanding():
    runs = read_vdbench_parm(corpus("vdbench/parm-ibm-poc-32hosts-forthreads-hotband.parm"))
    assert len(runs) == 56
    for name, wl in runs:
        # run names say the total threads: SDs used x threads per SD
        total = int(name.split("threads-")[1].split()[0])
        assert wl.numjobs * wl.iodepth == total, name
    name, wl = runs[0]
    assert name == "BL-rd_20-80seq_threads-4 threads=2"
    assert wl.rw == "rw" and wl.rwmixread == 20 and not wl.random
    assert wl.bssplit == ((4096.0, 0.25), (8192.0, 0.25), (16384.0, 0.25), (32768.0, 0.25))
    assert runs[14][1].rw == "randrw" and runs[14][1].rwmixread == 65
    assert "hotband" in runs.ignored[name]


@needs_corpus
def test_vdbench_parm_inline_comments_and_html():
    [(name, wl)] = read_vdbench_parm(corpus("vdbench/parm-4hosts-32sd-inline-comments.vdb"))
    assert name == "run1"
    assert wl.rw == "write" and wl.numjobs == 32 and wl.iodepth == 4
    assert wl.span_bytes == 10 * 1024**3
    runs = read_vdbench_parm(corpus("vdbench/vdb50401-2hosts-51wd-3rd-parmfile.html"))
    assert [n for n, _ in runs] == ["rd1", "rd2", "rd3"]
    assert runs[0][1].rate_iops == 50 and runs[0][1].rw == "randrw"
    assert runs[0][1].rwmixread == approx(75)
    [(_, fs)] = read_vdbench_parm(corpus("vdbench/vdb50406-fsd-fwd-filesystem-parmfile.html"))
    assert fs.iodepth == 8 and fs.block_size_bytes == 200 * 1024 and fs.rwmixread == 50


def test_vdbench_parm_loops(tmp_path: Path):
    f = tmp_path / "p.vdb"
    f.write_text(
        "* comment\n"
        "sd=sd1,lun=/dev/sdb,size=1g\n"
        "sd=sd2,lun=/dev/sdc,size=1g\n"
        "wd=wd1,sd=sd*,xfersize=4k,rdpct=100,seekpct=100\n"
        "rd=rd1,wd=wd1,iorate=max,elapsed=60,interval=1,\n"
        ",forthreads=(1-8,d),forxfersize=(4k,64k)\n"
    )
    runs = read_vdbench_parm(f)
    assert [n for n, _ in runs] == [
        f"rd1 threads={t} xfersize={x}" for t in (1, 2, 4, 8) for x in ("4k", "64k")
    ]
    assert runs[-1][1].iodepth == 8 and runs[-1][1].numjobs == 2
    assert runs[-1][1].block_size_bytes == 65536 and runs[-1][1].rw == "randread"
    assert runs[0][1].span_bytes == 1024**3
    f.write_text("sd=sd1,lun=/dev/sdb\nrd=rd1,wd=nope,iorate=max\n")
    with pytest.raises(TraceFormatError, match=r"p.vdb:2: rd=rd1: .*nope"):
        read_vdbench_parm(f)
    f.write_text("sd=sd1,lun=/dev/sdb\n")
    with pytest.raises(TraceFormatError, match="no"):
        read_vdbench_parm(f)


def test_vdbench_row_errors(tmp_path: Path):
    f = tmp_path / "v.txt"
    f.write_text(E1.split("\n\n")[0].replace("0.9 2.4 1.4", "0.9 2.4") + "\n")
    with pytest.raises(TraceFormatError, match=r"v.txt:3: vdbench row has 11 values"):
        read_vdbench(f)


# ------------------------------------------------------------------------------------------
# sysbench
# ------------------------------------------------------------------------------------------


@needs_corpus
def test_sysbench_04():
    c = read_sysbench(
        corpus("sysbench/sysbench0412-fileio-rndrw-16threads-10-runs-appended-warnings.txt")
    )
    assert len(c) == 10
    r = c[0]
    assert r.read_iops == approx(6087 / 104.6763) and r.write_iops == approx(4052 / 104.6763)
    assert r.iops == approx(96.86, rel=1e-3)  # "96.86 Requests/sec executed"
    assert r.lat_mean_s == approx(62.85e-3) and r.lat_p95_s == approx(558.98e-3)
    assert r.lat_max_s == approx(1157.38e-3)
    assert r.bandwidth_Bps == approx(1.5134 * 1024**2)
    assert r.params["threads"] == 16 and r.params["block_size_bytes"] == 16384
    assert r.params["rw"] == "randrw" and r.params["rwmixread"] == approx(60)
    assert r.counters["other_ops"] == 12800
    crlf = read_sysbench(
        corpus("sysbench/sysbench0412-fileio-rndrw-directio-session-transcript.txt")
    )
    assert len(crlf) == 1 and crlf[0].lat_mean_s == approx(5.68e-3)
    assert crlf[0].read_iops == approx(19583 / 300.0437)


@needs_corpus
def test_sysbench_10_crlf_and_banners():
    native = read_sysbench(
        corpus("sysbench/sysbench1020-fileio-rndrw-sync-and-async-native-with-banners.txt")
    )
    docker = read_sysbench(corpus("sysbench/sysbench1020-fileio-rndrw-sync-and-async-docker.txt"))
    assert len(native) == 2 and len(docker) == 2
    sync, asyn = native
    assert sync.read_iops == approx(468.89) and sync.write_iops == approx(312.60)
    assert sync.iops == approx(781.49)
    # the mean is the latency sum over the events (avg is printed to 0.01 ms: "0.56", and
    # "0.01" for the asynchronous run, whose mean is 9.04 us)
    assert sync.lat_mean_s == approx(299577.42 / 534646 * 1e-3)
    assert abs(sync.lat_mean_s - 0.56e-3) <= 0.005e-3 and sync.lat_p95_s == approx(1.96e-3)
    assert asyn.lat_mean_s == approx(287894.72 / 31863137 * 1e-3)
    assert abs(asyn.lat_mean_s - 0.01e-3) <= 0.005e-3
    assert "sum" in sync.extra["lat_mean_from"]
    assert sync.bandwidth_Bps == approx((7.33 + 4.88) * 1024**2)
    assert sync.counters["fsyncs_per_s"] == approx(1000.69)
    assert sync.params["iodepth"] == 1 and sync.params["sysbench_version"] == "1.0.20"
    assert asyn.params["io_mode"] == "asynchronous" and "iodepth" not in asyn.params
    assert asyn.iops == approx(63712.53 + 42475.31)


def test_sysbench_errors(tmp_path: Path):
    f = tmp_path / "s.txt"
    f.write_text("sysbench 1.0.20\n\nnothing here\n")
    with pytest.raises(TraceFormatError, match="found none"):
        read_sysbench(f)
    f.write_text("sysbench 0.4.12\nOperations performed:  1 Read, 1 Write, 0 Other = 2 Total\n")
    with pytest.raises(TraceFormatError, match=r"s.txt:2: .*total time"):
        read_sysbench(f)


# ------------------------------------------------------------------------------------------
# iostat
# ------------------------------------------------------------------------------------------


@needs_corpus
def test_iostat_old_layout_values():
    df = read_iostat(corpus("iostat/iostat-x-sysstat9-el6-32cpu-kB-12h-timestamps.txt"))
    first = df[(df["sample"] == 0) & (df["device"] == "sdd")].iloc[0]
    # sdd  0.07 46.00 1.56 0.59 80.31 186.51 247.27 0.26 122.23 1.28 440.31 2.08 0.45
    assert first["r_iops"] == approx(1.56) and first["w_iops"] == approx(0.59)
    assert first["block_iops"] == approx(2.15)
    assert first["read_Bps"] == approx(80.31 * 1024)
    assert first["avgrq_bytes"] == approx(247.27 * 512)
    assert first["aqu_sz"] == approx(0.26)
    assert first["await_s"] == approx(122.23e-3) and first["w_await_s"] == approx(440.31e-3)
    assert first["util"] == approx(0.0045)
    assert first["timestamp"] == pd.Timestamp("2018-06-14 18:08:07")  # 06:08:07 PM
    assert df["sample"].nunique() == 9 and df.attrs["host"] == "myhostname"


@needs_corpus
def test_iostat_new_layouts():
    df = read_iostat(corpus("iostat/iostat-x-sysstat11.7.3-el8-aqu-sz-with-svctm.txt"))
    r = df.iloc[0]
    assert r["r_iops"] == 1.0 and r["rareq_bytes"] == 8192 and r["r_await_s"] == approx(1e-3)
    assert r["read_Bps"] == approx(0.01 * 1024**2) and r["util"] == approx(0.002)
    assert r["svctm_s"] == approx(2e-3) and r["await_s"] == approx(1e-3)  # derived
    assert r["timestamp"] == pd.Timestamp("2021-09-26 03:35:19")
    df12 = read_iostat(corpus("iostat/iostat-x-sysstat12-ubuntu-kernel68-dsfs-columns.txt"))
    s = df12.iloc[1]
    assert s["w_iops"] == 10.0 and s["f_iops"] == 8.0 and s["aqu_sz"] == approx(0.01)
    assert s["avgrq_bytes"] == approx(20 * 1024)
    assert df12["timestamp"].isna().all()  # -x without -t: no timestamps


@needs_corpus
def test_iostat_rhel5_japanese_and_no_banner():
    ja = read_iostat(corpus("iostat/iostat-tdx-rhel55-japanese-locale.txt"))
    en = read_iostat(corpus("iostat/iostat-tdx-rhel55-oldest-no-r_await.txt"))
    assert ja["timestamp"].iloc[0] == pd.Timestamp("2011-04-12 20:45:12")
    assert en["timestamp"].iloc[0] == pd.Timestamp("2011-04-12 20:44:30")
    num = ["r_iops", "w_iops", "read_Bps", "aqu_sz", "await_s", "util"]
    first = (ja["sample"] == 0).to_numpy()
    assert (ja[num].to_numpy()[first] == en[num].to_numpy()[first]).all()
    assert ja.iloc[0]["avgrq_bytes"] == approx(18.65 * 512)
    pg = read_iostat(corpus("iostat/iostat-xmt-virtio-no-banner-postgres.txt"))
    vdb = pg[pg["device"] == "vdb"].iloc[0]
    assert vdb["aqu_sz"] == 12.0 and vdb["svctm_s"] == approx(333.33e-3) and vdb["util"] == 1.0
    assert vdb["read_Bps"] == approx(0.02 * 1024**2)


@needs_corpus
def test_iostat_json_and_summary():
    df = read_iostat(corpus("iostat/iostat-x-json-sysstat12-debian-kernel65-dm-sda.json"))
    dm0 = df[(df["device"] == "dm-0") & (df["sample"] == 0)].iloc[0]
    assert dm0["r_iops"] == approx(1.39) and dm0["w_iops"] == approx(22.85)
    assert dm0["read_Bps"] == approx(69.95 * 1024) and dm0["aqu_sz"] == approx(0.03)
    assert dm0["timestamp"] == pd.Timestamp("2024-03-14 17:53:14")
    groups = read_iostat(corpus("iostat/iostat-g-json-groups-leading-space-sysstat-testsuite.json"))
    assert "disks" in set(groups["device"])  # " disks" with its leading space stripped
    assert groups.iloc[0]["read_Bps"] == approx(0.22 * 1024**2)
    summ = iostat_summary(df)
    sda = summ["sda"]
    second = df[(df["device"] == "sda") & (df["sample"] == 1)].iloc[0]
    assert sda.block_iops == approx(second["r_iops"] + second["w_iops"])
    assert sda.util == approx(second["util"]) and sda.extra["skipped_first"]
    summ0 = iostat_summary(df, skip_first=False)
    assert summ0["dm-0"].block_iops == approx(df[df["device"] == "dm-0"]["block_iops"].mean())


@needs_corpus
def test_iostat_summary_weighting():
    df = read_iostat(corpus("iostat/iostat-xmt-virtio-no-banner-postgres.txt"))
    s = iostat_summary(df)["vdc"]
    use = df[(df["device"] == "vdc") & (df["sample"] > 0)]
    w = use["block_iops"]
    assert s.block_lat_mean_s == approx((use["await_s"] * w).sum() / w.sum())
    assert s.aqu_sz == approx(use["aqu_sz"].mean())
    assert 0 <= s.util <= 1 and s.avgrq_bytes > 0


@needs_corpus
def test_iostat_solaris_rejected():
    with pytest.raises(TraceFormatError, match="Solaris") as info:
        read_iostat(corpus("iostat/iostat-xTd-solaris10-not-linux.txt"))
    assert info.value.line == 2


def test_iostat_errors(tmp_path: Path):
    f = tmp_path / "io.txt"
    f.write_text("Device:  r/s  w/s  %util\nsda  1.0  2.0\n")
    with pytest.raises(TraceFormatError, match=r"io.txt:2: iostat row for 'sda' has 2 values"):
        read_iostat(f)
    f.write_text("Device:  r/s  w/s  %util\nsda  1.0  x  3\n")
    with pytest.raises(TraceFormatError, match=r"io.txt:2: w_iops"):
        read_iostat(f)
    f.write_text('{"sysstat": {"hosts": [{"statistics": [{"disk": [{"r/s": 1}]}]}]}}')
    with pytest.raises(TraceFormatError, match="disk_device"):
        read_iostat(f)
    f.write_text('{"sysstat": []}')
    with pytest.raises(TraceFormatError, match="hosts"):
        read_iostat(f)


IOSTAT_LAYOUTS = Path(__file__).resolve().parents[1] / "data" / "measured_iostat_layouts"
_BINARY = {"B": 1, "k": 1024, "M": 1024**2, "G": 1024**3}


def _human(tok: str) -> float:
    return float(tok[:-1]) * _BINARY[tok[-1]]


def test_iostat_h_groups_and_human_sizes():
    """sysstat 12's -h (column groups, the device name last) and --human (sizes in bytes with
    binary suffixes, percentages with %): the second report read from the file's own tokens."""
    lines = (IOSTAT_LAYOUTS / "xh.txt").read_text().splitlines()
    at = [i for i, ln in enumerate(lines) if ln.split()[:1] == ["r/s"]][1]  # second report
    r_s, rkb, _, _, r_await, rareq, dev = lines[at + 1].split()
    f_at = next(i for i in range(at, len(lines)) if lines[i].split()[:1] == ["f/s"])
    _, _, aqu, util, _ = lines[f_at + 1].split()
    for name in ("xh.txt", "x-human.txt", "x.txt", "h.txt", "x.json"):
        assert detect_format(IOSTAT_LAYOUTS / name) == "iostat", name
    df = read_iostat(IOSTAT_LAYOUTS / "xh.txt")
    assert list(df["sample"]) == [0, 1] and set(df["device"]) == {dev}
    row = df.iloc[1]
    assert row["r_iops"] == float(r_s) and row["r_await_s"] == approx(float(r_await) * 1e-3)
    assert row["read_Bps"] == approx(_human(rkb)) and row["rareq_bytes"] == _human(rareq)
    assert row["aqu_sz"] == float(aqu) and row["util"] == approx(float(util[:-1]) / 100)
    assert row["w_iops"] == 0 and row["f_iops"] == 0  # from the other groups
    human = read_iostat(IOSTAT_LAYOUTS / "x-human.txt").iloc[1]
    plain = read_iostat(IOSTAT_LAYOUTS / "x.txt").iloc[1]
    assert human["rareq_bytes"] == plain["rareq_bytes"] == 4096
    assert set(human.index) == set(plain.index)
    h = read_iostat(IOSTAT_LAYOUTS / "h.txt").iloc[1]
    assert h["tps"] > 1000 and h["device"] == dev


def test_sar_and_sadf_device_reports():
    """sar -d (device first, or last with -p), sadf -d and sadf -j: iostat's rows from sar's
    names (tps, rkB/s, areq-sz in kB, await in ms, %util); every row an interval."""
    from iosim.fit.inputs import iostat_points

    for name in ("sar-d.txt", "sar-dp.txt", "sadf-d.txt", "sadf.json"):
        assert detect_format(IOSTAT_LAYOUTS / name) == "iostat", name
    lines = (IOSTAT_LAYOUTS / "sar-dp.txt").read_text().splitlines()
    head = next(ln.split() for ln in lines if ln.split()[1:2] == ["tps"])
    rows = [ln.split() for ln in lines if ln[:1].isdigit() and ln.split()[1:2] != ["tps"]]
    cells = dict(zip(head[1:], rows[1][1:], strict=True))
    df = read_iostat(IOSTAT_LAYOUTS / "sar-dp.txt")
    r = df.iloc[1]
    assert r["device"] == cells["DEV"] and r["tps"] == float(cells["tps"])
    assert r["read_Bps"] == approx(float(cells["rkB/s"]) * 1024)
    assert r["avgrq_bytes"] == approx(float(cells["areq-sz"]) * 1024)
    assert r["await_s"] == approx(float(cells["await"]) * 1e-3)
    assert r["util"] == approx(float(cells["%util"]) / 100) and r["block_iops"] == r["tps"]
    assert str(r["timestamp"]).endswith(rows[1][0])  # the banner's date with the row's time
    # the sadf forms of one sa file hold the same numbers
    d, j = read_iostat(IOSTAT_LAYOUTS / "sadf-d.txt"), read_iostat(IOSTAT_LAYOUTS / "sadf.json")
    for col in ("tps", "read_Bps", "avgrq_bytes", "aqu_sz", "await_s", "util"):
        assert list(d[col]) == approx(list(j[col])), col
    # iostat's first report (since boot) is no point; sar's first row is an interval
    assert len(iostat_points(read_iostat(IOSTAT_LAYOUTS / "sar-d.txt"), Path("s"))) == 2
    assert len(iostat_points(read_iostat(IOSTAT_LAYOUTS / "x.txt"), Path("x"))) == 1


def test_iostat_h_group_for_an_unlisted_device(tmp_path: Path):
    f = tmp_path / "io.txt"
    f.write_text("     r/s  rkB/s Device\n  1.00   4.0k sda\n\n     w/s  wkB/s Device\n"
                 "  2.00   8.0k sdb\n")
    with pytest.raises(TraceFormatError, match=r"io.txt:5: iostat -h group row for 'sdb', a "
                       "device the report's first group does not list$"):
        read_iostat(f)


# ------------------------------------------------------------------------------------------
# IOMeter (no real file in the corpus)
# ------------------------------------------------------------------------------------------

# SYNTHETIC fixture, written by hand after the public layout of IOMeter 1.1 results.csv
# (section markers start with a quote; the 'Results header names every column; ALL row first).
# The numbers are invented but consistent: 2 workers x 1 disk x 16 outstanding = 32 in flight,
# 15000 IOPS x 2.1333 ms = 32.
_RESULT_COLS = (
    "'Target Type,Target Name,Access Specification Name,# Managers,# Workers,# Disks,IOps,"
    "Read IOps,Write IOps,MBps (Binary),Read MBps (Binary),Write MBps (Binary),MBps (Decimal),"
    "Read MBps (Decimal),Write MBps (Decimal),Transactions per Second,Connections per Second,"
    "Average Response Time,Average Read Response Time,Average Write Response Time,"
    "Average Transaction Time,Average Connection Time,Maximum Response Time,"
    "Maximum Read Response Time,Maximum Write Response Time,Maximum Transaction Time,"
    "Maximum Connection Time,Errors,Read Errors,Write Errors,Bytes Read,Bytes Written,"
    "Read I/Os,Write I/Os,Connections,Transactions per Connection,Total Raw Read Response Time,"
    "Total Raw Write Response Time,Total Raw Transaction Time,Total Raw Connection Time,"
    "Maximum Raw Read Response Time,Maximum Raw Write Response Time,"
    "Maximum Raw Transaction Time,Maximum Raw Connection Time,Total Raw Run Time,"
    "Starting Sector,Maximum Size,Queue Depth,% CPU Utilization,% User Time,"
    "% Privileged Time,% DPC Time,% Interrupt Time,Processor Speed,Interrupts per Second,"
    "CPU Effectiveness,Packets/Second,Packet Errors,Segments Retransmitted/Second"
)


def _iometer_row(
    kind,
    name,
    spec,
    managers,
    workers,
    disks,
    iops,
    r_iops,
    w_iops,
    mbps,
    avg_ms,
    r_ms,
    w_ms,
    max_ms,
    rios,
    wios,
    qd,
    cpu,
):
    cells = [
        kind,
        name,
        spec,
        managers,
        workers,
        disks,
        iops,
        r_iops,
        w_iops,
        mbps,
        mbps * r_iops / iops,
        mbps * w_iops / iops,
        mbps * 1.048576,
        "",
        "",
        iops,
        0,
        avg_ms,
        r_ms,
        w_ms,
        avg_ms,
        0,
        max_ms,
        max_ms,
        max_ms * 0.8,
        max_ms,
        0,
        0,
        0,
        0,
        rios * 4096,
        wios * 4096,
        rios,
        wios,
        0,
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        0,
        0,
        qd,
        cpu,
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
    ]
    return ",".join(str(c) for c in cells)


SYNTHETIC_IOMETER = (
    "\n".join(
        [
            "'Test Type,Test Description",
            "0,synthetic fixture for iosim tests",
            "'Version",
            "1.1.0",
            "'Time Stamp",
            "2024-01-01 10:00:00:000",
            "'Access specifications",
            "'Access specification name,default assignment",
            "4K; 70% Read; 100% random,NONE",
            "'size,% of size,% reads,% random,delay,burst,align,reply",
            "4096,100,70,100,0,1,4096,0",
            "'End access specifications",
            "'Results",
            _RESULT_COLS,
            _iometer_row(
                "ALL",
                "All",
                "4K; 70% Read; 100% random",
                1,
                2,
                2,
                15000.0,
                10500.0,
                4500.0,
                58.59375,
                2.1333,
                2.0,
                2.4444,
                48.5,
                9000000,
                3857143,
                16,
                35.5,
            ),
            _iometer_row(
                "MANAGER",
                "HOST",
                "4K; 70% Read; 100% random",
                "",
                2,
                2,
                15000.0,
                10500.0,
                4500.0,
                58.59375,
                2.1333,
                2.0,
                2.4444,
                48.5,
                9000000,
                3857143,
                16,
                35.5,
            ),
            _iometer_row(
                "WORKER",
                "Worker 1",
                "4K; 70% Read; 100% random",
                "",
                "",
                1,
                7500.0,
                5250.0,
                2250.0,
                29.296875,
                2.1333,
                2.0,
                2.4444,
                48.5,
                4500000,
                1928571,
                16,
                "",
            ),
            _iometer_row(
                "DISK",
                "PHYSICALDRIVE:1",
                "",
                "",
                "",
                "",
                7500.0,
                5250.0,
                2250.0,
                29.296875,
                2.1333,
                2.0,
                2.4444,
                48.5,
                4500000,
                1928571,
                16,
                "",
            ),
            _iometer_row(
                "WORKER",
                "Worker 2",
                "4K; 70% Read; 100% random",
                "",
                "",
                1,
                7500.0,
                5250.0,
                2250.0,
                29.296875,
                2.1333,
                2.0,
                2.4444,
                48.5,
                4500000,
                1928572,
                16,
                "",
            ),
            _iometer_row(
                "DISK",
                "PHYSICALDRIVE:2",
                "",
                "",
                "",
                "",
                7500.0,
                5250.0,
                2250.0,
                29.296875,
                2.1333,
                2.0,
                2.4444,
                48.5,
                4500000,
                1928572,
                16,
                "",
            ),
            "'Time Stamp",
            "2024-01-01 10:10:00:000",
            "'Results",
            _RESULT_COLS,
            # a second test of the same file, queue depth differing per disk (ALL row says -1)
            _iometer_row(
                "ALL",
                "All",
                "4K; 70% Read; 100% random",
                1,
                2,
                2,
                9000.0,
                6300.0,
                2700.0,
                35.15625,
                0.5556,
                0.5,
                0.6852,
                20.0,
                5400000,
                2314286,
                -1,
                20.0,
            ),
            _iometer_row(
                "DISK",
                "PHYSICALDRIVE:1",
                "",
                "",
                "",
                "",
                4500.0,
                3150.0,
                1350.0,
                17.578125,
                0.5556,
                0.5,
                0.6852,
                20.0,
                2700000,
                1157143,
                1,
                "",
            ),
            _iometer_row(
                "DISK",
                "PHYSICALDRIVE:2",
                "",
                "",
                "",
                "",
                4500.0,
                3150.0,
                1350.0,
                17.578125,
                0.5556,
                0.5,
                0.6852,
                20.0,
                2700000,
                1157143,
                4,
                "",
            ),
            "'Time Stamp",
            "2024-01-01 10:20:00:000",
            "'End Test",
        ]
    )
    + "\n"
)


def test_iometer_synthetic(tmp_path: Path):
    f = tmp_path / "results.csv"
    f.write_text(SYNTHETIC_IOMETER)
    c = read(f)
    assert isinstance(c, Curve) and len(c) == 2
    r = c[0]
    assert r.iops == 15000 and r.read_iops == 10500 and r.write_iops == 4500
    assert r.bandwidth_Bps == approx(58.59375 * 1024**2)
    assert r.lat_mean_s == approx(2.1333e-3) and r.lat_max_s == approx(48.5e-3)
    assert r.read_lat_mean_s == approx(2.0e-3) and r.write_lat_mean_s == approx(2.4444e-3)
    assert r.ios == 9000000 + 3857143
    assert r.params["iodepth"] == 16 and r.params["numjobs"] == 2 and r.params["workers"] == 2
    assert r.params["block_size_bytes"] == 4096 and r.params["rw"] == "randrw"
    assert r.params["rwmixread"] == 70
    assert r.outstanding == approx(32, rel=1e-3)  # Little's law holds in the fixture
    assert r.extra["cpu_total_pct"] == 35.5
    assert c[1].params["iodepth"] == 5 and c[1].extra["queue_depths"] == [1, 4]


def test_iometer_errors(tmp_path: Path):
    f = tmp_path / "results.csv"
    f.write_text("'Results\nALL,All\n")
    with pytest.raises(TraceFormatError, match=r"results.csv:2: expected the 'Target Type"):
        read_iometer(f)
    f.write_text("'Results\n" + _RESULT_COLS + "\nDISK,x\n")
    with pytest.raises(TraceFormatError, match="without an ALL row"):
        read_iometer(f)
    f.write_text("'Results\n'Target Type,Target Name,IOps\nALL,All,many\n")
    with pytest.raises(TraceFormatError, match=r":3: 'IOps'"):
        read_iometer(f)
    f.write_text("a,b,c\n")
    with pytest.raises(TraceFormatError, match="IOMeter"):
        read_iometer(f)


def test_sysbench_histogram_gives_the_percentiles_it_did_not_print():
    """--histogram=on: p50/p90/p99/p99.9 from the buckets (the first at or past each share of
    the events, computed here from the file's rows); the p95 sysbench printed is kept."""
    path = Path(__file__).resolve().parents[1] / "data" / "measured_sysbench_layouts" / \
        "histogram.txt"
    rows = [ln.split("|") for ln in path.read_text().splitlines()
            if re.match(r"^\s*[\d.]+\s*\|", ln)]
    buckets = [(float(v), int(bar.split()[-1])) for v, bar in rows]
    total = sum(c for _, c in buckets)

    def first_past(q: float) -> float:
        cum = 0
        for v, c in buckets:
            cum += c
            if cum >= q * total:
                return v * 1e-3
        raise AssertionError("no bucket")

    (r,) = read_sysbench(path)
    printed = re.search(r"95th percentile:\s*([\d.]+)", path.read_text())
    assert r.lat_p95_s == approx(float(printed.group(1)) * 1e-3)
    for q, attr in ((0.5, "lat_p50_s"), (0.9, "lat_p90_s"), (0.99, "lat_p99_s"),
                    (0.999, "lat_p999_s")):
        assert getattr(r, attr) == approx(first_past(q)), attr
    assert r.lat_p50_s < r.lat_mean_s * 1.5 and r.lat_p99_s > r.lat_p95_s
    assert "histogram" in r.extra["percentiles_from"]
    assert total == pytest.approx(r.ios, rel=0.01)  # the histogram counts the run's events


# ------------------------------------------------------------------------------------------
# CrystalDiskMark / KDiskMark (no real file in the corpus)
# ------------------------------------------------------------------------------------------

# SYNTHETIC fixtures, written by hand after the public layout of CrystalDiskMark 8's saved text
# and KDiskMark 3's report (the header lines, the [Read]/[Write]/[Mix] sections, the test
# lines' spacing). The numbers are invented but consistent: IOPS x block = MB/s, and the
# latency is Q x T / IOPS (Little's law), as the tools' own figures are.
CDM8 = """------------------------------------------------------------------------------
CrystalDiskMark 8.0.4 x64 (C) 2007-2021 hiyohiyo
                                  Crystal Dew World: https://crystalmark.info/
------------------------------------------------------------------------------
* MB/s = 1,000,000 bytes/s [SATA/600 = 600,000,000 bytes/s]
* KB = 1000 bytes, KiB = 1024 bytes

[Read]
  SEQ    1MiB (Q=  8, T= 1):   520.000 MB/s [    495.9 IOPS] < 16132.29 us>
  RND    4KiB (Q= 32, T= 1):   200.000 MB/s [  48828.1 IOPS] <   655.36 us>
  RND    4KiB (Q=  1, T= 1):    30.000 MB/s [   7324.2 IOPS] <   136.53 us>

[Write]
  RND    4KiB (Q= 32, T= 1):   140.000 MB/s [  34179.7 IOPS] <   936.23 us>

[Mix] Read 70%/Write 30%
  RND    4KiB (Q= 32, T=16):   300.000 MB/s [  73242.2 IOPS] <  6990.51 us>

Profile: Default
   Test: 1 GiB (x5) [C: 40% (190/476GiB)]
   Mode: [Admin]
   Time: Measure 5 sec / Interval 5 sec
"""
KDISKMARK = """                        KDiskMark (3.1.4): https://github.com/JonMagon/KDiskMark
                    Flexible I/O Tester (fio-3.33): https://github.com/axboe/fio
--------------------------------------------------------------------------------
* MB/s = 1,000,000 bytes/s [SATA/600 = 600,000,000 bytes/s]
* KB = 1000 bytes, KiB = 1024 bytes

[Read]
Sequential   1 MiB (Q=  8, T= 1):   500.000 MB/s [    476.8 IOPS] < 16778.52 us>
    Random   4 KiB (Q= 32, T= 1):   320.000 MB/s [  78125.0 IOPS] <   409.60 us>
"""


def test_crystaldiskmark_and_kdiskmark_text(tmp_path: Path):
    for text, name in ((CDM8, "cdm.txt"), (KDISKMARK, "kdm.txt")):
        f = tmp_path / name
        f.write_text(text)
        assert detect_format(f) == "diskmark"
        c = read(f)
        seq = c[0]
        assert seq.params["rw"] == "read" and seq.params["block_size_bytes"] == 1024**2
        assert seq.params["iodepth"] == 8 and seq.params["numjobs"] == 1
        rnd = c[1]
        assert rnd.params["rw"] == "randread" and rnd.params["block_size_bytes"] == 4096
        assert rnd.params["iodepth"] == 32
        # the tools' figures agree with each other: Little's law and MB/s = IOPS x block
        for r in c:
            n = r.params["iodepth"] * r.params["numjobs"]
            assert r.lat_mean_s == approx(n / r.iops, rel=1e-3)
            assert r.bandwidth_Bps == approx(r.iops * r.params["block_size_bytes"], rel=2e-3)
        if name == "cdm.txt":
            assert [r.params["rw"] for r in c] == ["read", "randread", "randread", "randwrite",
                                                   "randrw"]
            assert c[4].params["rwmixread"] == 70 and c[4].params["numjobs"] == 16
            assert c[0].params["span_bytes"] == 1024**3
            assert c[0].params["diskmark_version"] == "CrystalDiskMark 8.0.4"
        else:
            assert c[0].params["diskmark_version"] == "KDiskMark 3.1.4"


def test_crystaldiskmark_without_iops_or_a_mix_share_is_refused(tmp_path: Path):
    f = tmp_path / "cdm6.txt"
    f.write_text("[Read]\nSequential 1MiB (Q=  8, T= 1):   520.000 MB/s\n")
    with pytest.raises(TraceFormatError, match=r"cdm6.txt:2: expected 'MB/s \[ IOPS\] < "
                       r"latency us>' after the test \(CrystalDiskMark 6 and older"):
        read(f)
    f.write_text("[Mix]\nRND 4KiB (Q= 1, T= 1): 1.0 MB/s [ 244.1 IOPS] < 4096.00 us>\n")
    with pytest.raises(TraceFormatError, match="cdm6.txt:2: a .Mix. test without 'Read N%'"):
        read(f)


def test_fit_only_keeps_one_workload_of_a_diskmark_result(tmp_path: Path, capsys):
    from iosim.cli import main

    f = tmp_path / "cdm.txt"
    f.write_text(CDM8)
    assert main(["fit", str(f), "--model", "generic", "--only", "rw=randread", "--ios", "800",
                 "--json"]) == 0
    import json as _json

    d = _json.loads(capsys.readouterr().out)
    assert sorted(p["iodepth"] for p in d["points"]) == [1, 32]
    assert {p["block_size_bytes"] for p in d["points"]} == {4096}
    assert main(["fit", str(f), "--only", "rw=randrd"]) == 2
    err = capsys.readouterr().err
    assert "error: fit: --only rw=randrd keeps none of the 5 points (their rw: randread, " \
        "randrw, randwrite, read)" in err


# ------------------------------------------------------------------------------------------
# dispatcher and file handling
# ------------------------------------------------------------------------------------------


def test_read_unknown_content_lists_formats(tmp_path: Path):
    f = tmp_path / "notes.dat"
    f.write_text("hello\nworld\n")
    with pytest.raises(TraceFormatError) as info:
        read(f)
    msg = str(info.value)
    assert str(f) in msg
    for name in FORMATS:
        assert name in msg
    with pytest.raises(TraceFormatError, match="unknown format 'csv'"):
        read(f, format="csv")


def test_read_refuses_huge_and_binary_files(tmp_path: Path):
    big = tmp_path / "huge.json"
    with open(big, "wb") as fh:
        fh.truncate(257 * 1024**2)  # sparse: no disk space used
    with pytest.raises(TraceFormatError, match="MiB"):
        read(big)
    with pytest.raises(TraceFormatError, match="MiB"):
        read(big, format="fio-json")
    binary = tmp_path / "x.json"
    binary.write_bytes(b'\x00\x01\x02{"jobs": []}')
    with pytest.raises(TraceFormatError, match="binary"):
        read(binary)


def test_read_latin1_and_bom(tmp_path: Path):
    body = (
        "Linux 5.0 (h\u00f6st) \t01/02/2020 \t_x86_64_\t(4 CPU)\n\n"
        "Device:  r/s  w/s  %util\nsda  1.0  2.0  50.0\n"
    )
    latin = tmp_path / "latin.txt"
    latin.write_bytes(body.encode("latin-1"))  # a legacy locale, not UTF-8
    bom = tmp_path / "bom.txt"
    bom.write_bytes(b"\xef\xbb\xbf" + body.encode())
    for f in (latin, bom):
        df = read(f)
        assert df.iloc[0]["util"] == 0.5 and df.attrs["host"] == "h\u00f6st"


def test_extension_fallback(tmp_path: Path):
    f = tmp_path / "job_clat.1.log"
    f.write_text("1000, 5000, 0, 4096\n")
    assert detect_format(f) == "fio-log"
    assert read(f)["value"].iloc[0] == approx(5e-6)  # 5+ s would be implausible: nsec guess
    g = tmp_path / "x.fio"
    g.write_text("[a]\nrw=read\n")
    assert detect_format(g) == "fio-job"


def test_error_carries_parts():
    err = TraceFormatError(
        os.path.join("data", "x.json"), 12, 'expected fio JSON with a "jobs" list'
    )
    assert str(err) == os.path.join("data", "x.json") + ':12: expected fio JSON with a "jobs" list'
    assert err.line == 12 and isinstance(err, ValueError)
    assert str(TraceFormatError("f", None, "bad")) == "f: bad"


def test_sysbench_10_output_without_banner_is_detected():
    """E11's outputs start with the shell prompt and command, not sysbench's banner."""
    data = Path(__file__).parent.parent / "data" / "e11_sysbench_nvme"
    for n in (1, 16, 256):
        f = data / f"sysbench_rndrd_threads{n}.txt"
        assert detect_format(f) == "sysbench"
    curve = read(data / "sysbench_rndrd_threads16.txt")
    assert curve[0].iops == approx(76845.96)


def test_a_compressed_result_file_is_refused_saying_what_it_is(tmp_path: Path):
    """A gzip/bzip2/xz file is not 'binary data': the error names the compression and the
    command that undoes it (block traces are read compressed by iosim replay)."""
    import bz2
    import gzip
    import lzma

    text = b'{"fio version": "fio-3.33", "jobs": []}\n'
    for name, pack, tool in (("r.json.gz", gzip.compress, "gunzip -k"),
                             ("r.json.bz2", bz2.compress, "bunzip2 -k"),
                             ("r.json.xz", lzma.compress, "unxz -k")):
        p = tmp_path / name
        p.write_bytes(pack(text))
        with pytest.raises(TraceFormatError, match=rf"compressed: .*\({tool} FILE\)"):
            read(p)

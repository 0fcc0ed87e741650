"""ioping output (iosim.traces.ioping): text of ioping 1.3 and of the 0.x versions, -J JSON and
-B raw statistics, each to one depth-1 point whose IOPS is the rate the run had. The 1.3
outputs below were recorded on the project's build machine (``ioping -c 8 -i 0 -D -T 80us
/tmp``, ``ioping -c 3 -i 5ms -D -J /tmp``, ``ioping -c 20 -i 0 -p 10 -B -D /tmp``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from iosim.traces import TraceFormatError, detect_format, read, read_ioping

DATA = Path(__file__).resolve().parents[1] / "data"

V13_TEXT = """\
4 KiB <<< /tmp (ext4 /dev/vda 252.0 GiB): request=1 time=104.2 us (warmup)
4 KiB <<< /tmp (ext4 /dev/vda 252.0 GiB): request=2 time=81.3 us (too slow)
4 KiB <<< /tmp (ext4 /dev/vda 252.0 GiB): request=3 time=76.6 us
4 KiB <<< /tmp (ext4 /dev/vda 252.0 GiB): request=4 time=75.7 us
4 KiB <<< /tmp (ext4 /dev/vda 252.0 GiB): request=5 time=78.0 us
4 KiB <<< /tmp (ext4 /dev/vda 252.0 GiB): request=6 time=72.4 us
4 KiB <<< /tmp (ext4 /dev/vda 252.0 GiB): request=7 time=73.8 us
4 KiB <<< /tmp (ext4 /dev/vda 252.0 GiB): request=8 time=74.6 us

--- /tmp (ext4 /dev/vda 252.0 GiB) ioping statistics ---
6 requests completed in 451.2 us, 24 KiB read, 13.3 k iops, 51.9 MiB/s
1 too slow, generated 8 requests in 679.1 us, 32 KiB, 11.8 k iops, 46.0 MiB/s
min/avg/max/mdev = 72.4 us / 75.2 us / 78.0 us / 1.82 us
"""

_TARGET = {"path": "/tmp", "fstype": "ext4", "device": "/dev/vda", "device_size": 270553174016}
V13_JSON = [
    {"timestamp": 1795862004.957, "target": _TARGET,
     "io": {"request": 1, "operation": "read", "size": 4096, "time": 75262, "ignored": True}},
    {"timestamp": 1795862004.962199, "target": _TARGET,
     "io": {"request": 2, "operation": "read", "size": 4096, "time": 113799, "ignored": False}},
    {"timestamp": 1795862004.967148, "target": _TARGET,
     "io": {"request": 3, "operation": "read", "size": 4096, "time": 109122, "ignored": False}},
    {"timestamp": 1795862004.967148, "target": _TARGET,
     "stat": {"count": 2, "size": 8192, "time": 222921, "iops": 8971.788212, "bps": 36748445,
              "min": 109122, "avg": 111460, "max": 113799, "mdev": 2338},
     "load": {"count": 3, "size": 12288, "time": 10236106, "iops": 293.080201,
              "bps": 1200457}},
]

V13_RAW = "10 528534 18920 77497380 46659 52853 57886 3531 11 642406\n" \
          "19 1049438 18105 74157787 46659 55234 93759 9583 20 1206526\n"


def _file(tmp_path: Path, text: str, name: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_ioping_13_text_counts_what_ioping_counts_and_rates_the_run(tmp_path):
    p = _file(tmp_path, V13_TEXT, "ioping.txt")
    assert detect_format(p) == "ioping"
    (r,) = read(p)
    assert r.lat_mean_s == pytest.approx(75.2e-6) and r.lat_max_s == pytest.approx(78.0e-6)
    assert r.extra["lat_min_s"] == pytest.approx(72.4e-6)
    assert r.ios == 6  # the warmup and the "too slow" request are not counted
    # the run: 8 requests in 679.1 us of wall time, 636.6 us of them in requests, so the
    # sleep between requests is (679.1 - 636.6) / 7 us and a request starts every 75.2 us + it
    think = (679.1 - 636.6) / 7 * 1e-6
    assert r.params["thinktime_s"] == pytest.approx(think)
    assert r.iops == pytest.approx(1 / (75.2e-6 + think))
    assert r.extra["iops_back_to_back"] == pytest.approx(1 / 75.2e-6)
    assert r.params["rw"] == "randread" and r.params["block_size_bytes"] == 4096
    assert r.params["iodepth"] == 1 and r.params["numjobs"] == 1
    assert r.lat_p50_s is None  # 6 requests: too few for any percentile
    assert any("-L" in n for n in r.extra["notes"])


def test_percentiles_only_with_ten_requests_beyond_them(tmp_path):
    lines = [f"4 KiB >>> /x (ext4 /dev/vda 1 GiB): request={i + 1} time={100 + i} us"
             for i in range(200)]
    text = "\n".join(lines) + "\n\n--- /x (ext4 /dev/vda 1 GiB) ioping statistics ---\n" \
        "200 requests completed in 39.9 ms, 800 KiB written, 5.01 k iops, 19.6 MiB/s\n" \
        "generated 200 requests in 39.9 ms, 800 KiB, 5.01 k iops, 19.6 MiB/s\n" \
        "min/avg/max/mdev = 100 us / 199.5 us / 299 us / 57.7 us\n"
    (r,) = read_ioping(_file(tmp_path, text, "w.txt"))
    assert r.params["rw"] == "randwrite" and r.write_iops == r.iops
    assert r.lat_p50_s == pytest.approx(199.5e-6) and r.lat_p90_s == pytest.approx(279.1e-6)
    assert r.lat_p95_s == pytest.approx(289.05e-6)
    assert r.lat_p99_s is None  # 2 requests beyond p99
    assert r.extra["percentiles_from"] == "200 request lines"
    assert "thinktime_s" not in r.params  # back to back: the wall time is the latencies'


def test_ioping_09_text_of_experiment_e10(tmp_path):
    # data/e10_cloud_fio/ioping_highperf.txt: `ioping -c 10 .` (1 s between requests); before
    # 1.0 "completed in" is the wall time and "5.92 k iops" is 1 / mean latency
    (r,) = read_ioping(DATA / "e10_cloud_fio" / "ioping_highperf.txt")
    assert r.lat_mean_s == pytest.approx(168e-6) and r.ios == 10
    lat_sum = sum((93, 237, 227, 134, 158, 153, 179, 190, 175, 142)) * 1e-6
    assert r.params["thinktime_s"] == pytest.approx((9.00 - lat_sum) / 9)
    assert 0.99 < r.iops < 1.01
    assert r.extra["lat_stdev_s"] == pytest.approx(40e-6)


def test_ioping_0x_text_in_bare_milliseconds(tmp_path):
    # the first versions' printf formats (ioping.c 0.1-0.6): "%lld bytes from %s (%s %s):
    # request=%d time=%.1f ms", "%d requests completed in %.1f ms, %.0f iops, %.1f mb/s",
    # "min/avg/max/mdev = %.1f/%.1f/%.1f/%.1f ms"
    text = "4096 bytes from . (ext4 /dev/sda1): request=1 time=0.2 ms\n" \
           "4096 bytes from . (ext4 /dev/sda1): request=2 time=0.4 ms\n" \
           "4096 bytes from . (ext4 /dev/sda1): request=3 time=0.3 ms\n\n" \
           "--- . (ext4 /dev/sda1) ioping statistics ---\n" \
           "3 requests completed in 2001.2 ms, 3333 iops, 13.0 mb/s\n" \
           "min/avg/max/mdev = 0.2/0.3/0.4/0.1 ms\n"
    (r,) = read_ioping(_file(tmp_path, text, "old.txt"))
    assert r.lat_mean_s == pytest.approx(0.3e-3) and r.extra["lat_stdev_s"] == pytest.approx(1e-4)
    assert r.params["thinktime_s"] == pytest.approx((2.0012 - 0.9e-3) / 2)
    assert r.params["block_size_bytes"] == 4096


def test_ioping_json(tmp_path):
    p = _file(tmp_path, json.dumps(V13_JSON, indent=2), "io.json")
    assert detect_format(p) == "ioping"
    (r,) = read(p)
    assert r.lat_mean_s == pytest.approx(111.46e-6) and r.ios == 2
    lat_all = (75262 + 113799 + 109122) * 1e-9
    think = (10236106e-9 - lat_all) / 2
    assert r.params["thinktime_s"] == pytest.approx(think)
    assert r.iops == pytest.approx(1 / (111.46e-6 + think))


def test_ioping_raw_reads_the_final_line(tmp_path):
    p = _file(tmp_path, V13_RAW, "io.raw")
    assert detect_format(p) == "ioping"
    (r,) = read(p)
    assert r.ios == 19 and r.lat_mean_s == pytest.approx(55234e-9)
    assert r.lat_max_s == pytest.approx(93759e-9)
    assert r.params["block_size_bytes"] == 4096  # 74157787 B/s / 18105 iops, to 512 B
    think = (1206526 - 20 * 55234) * 1e-9 / 19
    assert r.params["thinktime_s"] == pytest.approx(think)
    assert any("last of 2 raw lines" in n for n in r.extra["notes"])
    assert any("direction" in n for n in r.extra["notes"])


def test_quiet_output_takes_the_size_from_the_statistics(tmp_path):
    text = "\n--- /tmp (ext4 /dev/vda 252.0 GiB) ioping statistics ---\n" \
           "33.6 k requests completed in 2.96 s, 131.3 MiB read, 11.3 k iops, 44.3 MiB/s\n" \
           "generated 33.6 k requests in 3.00 s, 131.3 MiB, 11.2 k iops, 43.8 MiB/s\n" \
           "min/avg/max/mdev = 39.2 us / 88.2 us / 6.95 ms / 78.1 us\n"
    (r,) = read_ioping(_file(tmp_path, text, "q.txt"))
    assert r.params["block_size_bytes"] == 4096 and r.ios == 33600
    assert r.lat_max_s == pytest.approx(6.95e-3)
    assert any("request size 4096 B" in n for n in r.extra["notes"])


def test_two_runs_appended_are_two_points(tmp_path):
    p = _file(tmp_path, V13_TEXT + V13_TEXT.replace("75.2 us /", "80.0 us /"), "two.txt")
    a, b = read_ioping(p)
    assert a.lat_mean_s == pytest.approx(75.2e-6) and b.lat_mean_s == pytest.approx(80.0e-6)
    assert b.params["run"] == 2


@pytest.mark.parametrize(("text", "says"), [
    ("4 KiB <<< /t (ext4 /dev/vda): request=1 time=1 us\n"
     "8 KiB <<< /t (ext4 /dev/vda): request=2 time=1 us\n", "different sizes or directions"),
    ("\n--- /t (ext4) ioping statistics ---\nmin/avg/max/mdev = 1 us / 2 us\n",
     "expected four values"),
    ("\n--- /t (ext4) ioping statistics ---\n3 requests completed in 1 ms, 3 k iops\n"
     "min/avg/max/mdev = 1 us / 2 us / 3 us / 1 us\n", "request size is not in the output"),
    ('[{"target": {"fstype": "ext4"}, "io": {"request": 1, "size": 4096, "time": 9}}]',
     "without its final 'stat'"),
])
def test_bad_ioping_output_is_one_line_naming_what(tmp_path, text, says):
    with pytest.raises(TraceFormatError) as info:
        read_ioping(_file(tmp_path, text, "bad.txt"))
    assert says in str(info.value) and "\n" not in str(info.value)


def test_fit_takes_an_ioping_point_with_its_think_time(tmp_path):
    from iosim.fit.points import _points

    (point,) = _points(read_ioping(DATA / "e10_cloud_fio" / "ioping_highperf.txt"), None)
    assert point.workload.numjobs == 1 and point.workload.iodepth == 1
    assert point.workload.thinktime_s == pytest.approx(0.99981, abs=1e-4)

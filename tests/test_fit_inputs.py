"""What becomes a fitted point (iosim.fit.inputs), without the shared corpus."""

import re

import pandas as pd
import pytest

from iosim.fit import fit, load_curve
from iosim.fit.inputs import iostat_points
from iosim.spec import SpecError
from iosim.traces import read_sysbench

SYSBENCH_P99 = """sysbench 1.0.20 (using bundled LuaJIT 2.1.0-beta2)

Running the test with following options:
Number of threads: 4

Extra file open flags: directio
128 files, 800MiB each
100GiB total file size
Block size 16KiB
Using synchronous I/O mode
Doing random read test
Threads started!

File operations:
    reads/s:                      26248.44
    writes/s:                     0.00
    fsyncs/s:                     0.00

Throughput:
    read, MiB/s:                  410.13
    written, MiB/s:               0.00

General statistics:
    total time:                          60.0002s
    total number of events:              1574920

Latency (ms):
         min:                                    0.06
         avg:                                    0.15
         max:                                    8.73
         99th percentile:                        0.26
         sum:                               239234.51

Threads fairness:
    events (avg/stddev):           393730.0000/1234.00
    execution time (avg/stddev):   59.8086/0.00
"""


def test_sysbench_keeps_the_percentile_it_printed(tmp_path):
    f = tmp_path / "sb.txt"
    f.write_text(SYSBENCH_P99)
    r = read_sysbench(f).points[0]
    assert r.lat_p99_s == pytest.approx(0.26e-3)
    assert r.lat_p95_s is None  # not printed: not invented
    assert r.extra["percentiles_s"] == {"99": pytest.approx(0.26e-3)}


def test_sysbench_fsyncs_are_said_to_be_in_its_latency(tmp_path):
    from iosim.fit.points import _points

    # sysbench's default --file-fsync-freq=100 on random writes: its fsyncs are events, and
    # its latencies are per event (this machine: 283.91 fsyncs/s beside 28,316 writes/s)
    text = SYSBENCH_P99.replace("Doing random read test", "Doing random write test")
    text = re.sub(r"reads/s:\s+26248.44", "reads/s: 0.00", text)
    text = re.sub(r"writes/s:\s+0.00", "writes/s: 28316.33", text)
    text = re.sub(r"fsyncs/s:\s+0.00", "fsyncs/s: 283.91", text)
    (tmp_path / "w.txt").write_text(text)
    notes = []
    _points(read_sysbench(tmp_path / "w.txt"), None, notes)
    assert len(notes) == 1 and "283.9 fsyncs per s (0.99 % of its events)" in notes[0]
    (tmp_path / "r.txt").write_text(SYSBENCH_P99)
    notes = []
    _points(read_sysbench(tmp_path / "r.txt"), None, notes)
    assert notes == []  # no fsyncs, nothing said


def _iostat(rows):
    cols = ["sample", "device", "block_iops", "r_iops", "await_s", "aqu_sz", "avgrq_bytes"]
    return pd.DataFrame(rows, columns=cols)


def test_iostat_intervals_become_latency_points_at_their_queue(tmp_path):
    df = _iostat([
        (0, "sda", 50.0, 50.0, 1e-3, 0.05, 4096.0),      # since boot: left out
        (1, "sda", 900.0, 900.0, 2e-3, 1.8, 4096.0),
        (2, "sda", 1500.0, 1500.0, 3e-3, 4.5, 8192.0),
        (2, "sdb", 10.0, 0.0, 1e-3, 0.01, 4096.0),       # the quieter device: not this fit
        (3, "sda", 0.0, 0.0, 0.0, 0.0, 0.0),             # idle: left out
    ])
    pts = iostat_points(df, tmp_path / "io.txt")
    assert [p.params["iodepth"] for p in pts] == [2, 5]
    assert all(p.params["device"] == "sda" and p.iops is None for p in pts)
    assert [p.lat_mean_s for p in pts] == [2e-3, 3e-3]
    # one workload for the whole capture: the request-weighted size, reads only
    assert {p.params["block_size_bytes"] for p in pts} == {(900 * 4096 + 1500 * 8192) / 2400}
    assert {p.params["rw"] for p in pts} == {"randread"}
    res = fit(pts, model="generic", verify=False, params=["device.service"])
    assert res.params["device.service"].value > 0


def test_iostat_without_queue_columns_is_refused(tmp_path):
    df = pd.DataFrame({"sample": [0, 1], "device": ["sda", "sda"], "block_iops": [1.0, 2.0]})
    with pytest.raises(SpecError, match="without -x"):
        iostat_points(df, tmp_path / "io.txt")


def test_a_job_file_is_refused(tmp_path):
    f = tmp_path / "job.fio"
    f.write_text("[global]\nioengine=libaio\n[j]\nrw=randread\nbs=4k\niodepth=8\n")
    with pytest.raises(SpecError, match="describes workloads, not results"):
        load_curve([f])


def test_fit_format_option(tmp_path, capsys):
    from iosim.cli import main

    f = tmp_path / "points.txt"  # a table without the .csv extension
    f.write_text("qd,iops,lat_mean_ms\n1,1000,1.0\n4,3000,1.33\n16,4000,4.0\n")
    assert main(["fit", str(f), "--model", "generic", "--format", "csv", "--ios", "500",
                 "--params", "device.service,device.units"]) == 0
    assert "model generic" in capsys.readouterr().out
    assert main(["fit", str(f), "--model", "generic", "--format", "fio-json"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "\n" not in err


def test_fios_completion_percentiles_are_compared_as_totals_with_the_mean_submission_added():
    """fio lists clat percentiles while its mean (and the simulator's latency) is slat + clat:
    a fitted point's measured percentile is the listed one plus that point's mean slat, and a
    tool that lists total-latency percentiles is left as it is."""
    from pathlib import Path

    from iosim.fit.points import _points
    from iosim.traces import read

    data = Path(__file__).resolve().parent.parent / "data" / "measured_kvm_virtio_quiet"
    r = read(str(data / "randread-4k-qd1.json")).points[0]
    assert r.extra["percentiles_from"] == "clat"
    slat = r.extra["slat_mean_s"]
    assert 5e-6 < slat < 30e-6  # a KVM guest's submission, ~14 us at depth 1
    (p,) = _points([r], None)
    for m in ("lat_p50_s", "lat_p99_s"):
        assert p.measured[m] == pytest.approx(getattr(r, m) + slat, rel=1e-12)
    assert p.measured["lat_mean_s"] == r.lat_mean_s  # the mean is a total already
    r.extra["percentiles_from"] = "lat"
    (q,) = _points([r], None)
    assert q.measured["lat_p50_s"] == r.lat_p50_s


def test_fit_writes_the_calibrated_stack_for_what_if_questions(tmp_path, capsys):
    """``iosim fit ... -o F.toml`` writes the calibrated stack and the fitted workload: read
    back, they are the fit's own specs (so ``iosim run --stack F.toml`` simulates what the fit
    predicts, number for number), and the comments say what was fitted on which points."""
    from iosim import Workload, simulate
    from iosim.cli import main
    from iosim.stack import load_toml

    f = tmp_path / "points.csv"
    f.write_text("qd,iops,lat_mean_ms\n1,1000,1.0\n4,3000,1.33\n16,4000,4.0\n")
    out = tmp_path / "mine.toml"
    assert main(["fit", str(f), "--model", "generic", "--ios", "500", "--holdout", "qd=4",
                 "-o", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    text = out.read_text()
    assert "on points.csv" in text and "fitted points (outstanding I/Os): 1, 16; held out: 4" \
        in text and "# device.service = " in text
    stack, wl = load_toml(out)
    res = fit(load_curve([f]), model="generic", holdout={"qd": [4]}, ios=500)
    assert stack == res.stack and wl == res.workload
    at8 = Workload(**{**res.workload.to_dict(), "iodepth": 8})
    assert simulate(stack, at8, ios=2000, seed=4).to_dict() == \
        res.predict(at8, ios=2000, seed=4).to_dict()
    # the output may not be an input: one line, exit 2, the input intact
    assert main(["fit", str(f), "--model", "generic", "-o", str(f)]) == 2
    err = capsys.readouterr().err.strip()
    assert "-o" in err and "\n" not in err and f.read_text().startswith("qd,iops")


# -- tables written by hand or exported from a spreadsheet -----------------------------------

SPREADSHEET = ("\ufeffQueue Depth,IOPS,Avg Latency (ms),p99 (ms),Throughput (MB/s),Block size,"
               "Notes,\n"
               "1,10000,0.1,0.2,41,8k,first,\n"
               "4,35000,0.114,0.3,143,8k,,\n"
               "16,80000,0.2,0.5,328,8k,,\n")


def test_a_spreadsheet_table_is_read_by_what_its_columns_name(tmp_path):
    """Header words in any case, units in parentheses, a byte-order mark, a trailing empty
    column: each recognised column read in SI units, and said how; the rest kept."""
    from iosim.traces import detect_format, read

    f = tmp_path / "mine.csv"
    f.write_text(SPREADSHEET, encoding="utf-8")
    assert detect_format(f) == "table"
    c = read(f)
    r = c[1]
    assert r.params["iodepth"] == 4 and r.params["numjobs"] == 1
    assert r.iops == 35000 and r.lat_mean_s == pytest.approx(0.114e-3)
    assert r.lat_p99_s == pytest.approx(0.3e-3)
    assert r.bandwidth_Bps == pytest.approx(143e6)  # MB/s is 10^6 bytes/s
    assert r.params["block_size_bytes"] == 8192
    assert c[0].params["Notes"] == "first"
    assert r.extra["table_columns"] == {
        "Queue Depth": "qd", "IOPS": "iops", "Avg Latency (ms)": "lat_mean_s",
        "p99 (ms)": "lat_p99_s", "Throughput (MB/s)": "bandwidth_Bps",
        "Block size": "block_size_bytes"}
    assert c.x == "qd"


def test_a_semicolon_table_with_decimal_commas(tmp_path):
    f = tmp_path / "de.csv"
    f.write_text("OIO;IOPS;Latency [us];99th percentile latency (us)\n1;10000;100,5;210,25\n"
                 "8;52000;153,75;400\n")
    (a, b) = load_curve([f])
    assert a.lat_mean_s == pytest.approx(100.5e-6) and a.lat_p99_s == pytest.approx(210.25e-6)
    assert b.params["iodepth"] == 8 and b.iops == 52000


@pytest.mark.parametrize("table, message", [
    ("QD,IOPS,Latency\n1,10000,0.1\n",
     "t.csv:1: column 'Latency' reads as lat_mean_s but has no unit: name it with a time unit, "
     "e.g. 'Avg Latency (ms)' or lat_mean_us; a unit is never guessed"),
    ("QD,IOPS,Throughput (ms)\n1,10000,0.1\n",
     "t.csv:1: column 'Throughput (ms)' reads as bandwidth_Bps but has its unit (time): name it "
     "with a rate unit, e.g. 'Throughput (MB/s)' or bw_MiBps; a unit is never guessed"),
    ("QD,IOPS,Latency (ms),Avg latency (us)\n1,10000,0.1,100\n",
     "t.csv:1: columns 'Latency (ms)', 'Avg latency (us)' all read as lat_mean_s; keep one (or "
     "rename the others)"),
    ("QD,IOPS,lat_mean_ms,bs\n1,10000,0.1,4096\n",
     "t.csv:2: column 'bs' holds a bare number (4096) and its header names no unit: write 4k, or "
     "name the column 'Block size (KiB)' or bs_bytes"),
    ("Queue depth,IOPS,lat_mean_ms\n1.5,10000,0.1\n",
     "t.csv:2: column 'Queue depth' must be a whole number >= 1 (got '1.5')"),
    ("QD,IOPS (k),lat_mean_ms\n1,10,0.1\n",
     "t.csv:1: column 'IOPS (k)' reads as iops, a count, but its name carries a unit "
     "(IOPS (k)): give plain numbers"),
])
def test_a_table_column_without_its_unit_is_refused_in_one_line(tmp_path, table, message):
    from iosim.traces import TraceFormatError, read

    f = tmp_path / "t.csv"
    f.write_text(table)
    with pytest.raises(SpecError) as exc:  # iosim.fit's error ...
        load_curve([f])
    assert str(exc.value) == f"{f.parent}/{message}"
    with pytest.raises(TraceFormatError):  # ... and iosim.traces'
        read(f)


def test_parse_and_fit_read_a_spreadsheet_table(tmp_path, capsys):
    from iosim.cli import main

    f = tmp_path / "mine.csv"
    f.write_text(SPREADSHEET, encoding="utf-8")
    assert main(["parse", str(f)]) == 0
    out = capsys.readouterr().out
    assert "35,000" in out and "114 us" in out and "8 KiB" in out
    res = fit(load_curve([f]), model="generic", ios=2000)
    assert res.mape["iops"] < 15


def test_fit_reads_an_iometer_results_csv_as_iometer(tmp_path):
    """A .csv is a table unless its contents are IOMeter's results (then read by that reader,
    not as a table of unknown columns)."""
    from test_traces_tools import SYNTHETIC_IOMETER

    f = tmp_path / "results.csv"
    f.write_text(SYNTHETIC_IOMETER)
    c = load_curve([f])
    assert len(c) == 2 and c[0].iops == 15000
    assert c[0].params["iodepth"] == 16 and c[0].params["numjobs"] == 2


def test_a_mean_above_the_99th_percentile_is_said():
    """zram with psync jobs outnumbering the CPUs: the scheduler's time slices put the waiting
    into under 1 % of the I/Os (mean 24 us, p99 4 us at 16 jobs), which no FIFO queue does;
    the KVM disk's psync sweep, measured the same way, has no such point."""
    from pathlib import Path

    from iosim.fit import checks
    from iosim.fit.points import _points

    data = Path(__file__).resolve().parents[1] / "data"
    zram = _points(load_curve(sorted(data.glob("measured_zram/randread-4k-psync-*.json"))), None)
    (said,) = checks.rare_long_waits(zram)
    assert said.startswith("the mean latency exceeds the 99th percentile at 3 points "
                           "(outstanding I/Os 4 (5.84 us against 4.32 us), 8 (13.5 us")
    kvm = _points(load_curve(sorted(data.glob(
        "measured_kvm_virtio_write/randread-4k-psync-*.json"))), None)
    assert checks.rare_long_waits(kvm) == []


def test_the_service_variability_is_not_fitted_to_rare_long_waits():
    """zram psync, trained on 1, 4 and 16 jobs: the 4- and 16-job percentiles (waiting held by
    under 1 % of the I/Os) no FIFO family produces; fitted to them the scv ran to its lower
    bound (0.01), fitted to the one-job point it is determined and inside its range."""
    from pathlib import Path

    data = Path(__file__).resolve().parents[1] / "data" / "measured_zram"
    files = [data / f"randread-4k-psync-numjobs{n}.json" for n in (1, 2, 4, 8, 16)]
    res = fit(load_curve(files), model="generic", holdout={"numjobs": [2, 8]}, ios=3000)
    scv = res.params["device.service.scv"]
    assert 0.011 < scv.value < 0.2 and scv.ci95[0] < scv.value < scv.ci95[1]
    assert any("not fitted to them" in w for w in res.warnings)

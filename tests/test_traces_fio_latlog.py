"""fio's per-I/O latency log as a block trace (``fio-latlog``): a measured trace where blktrace
is not allowed. Checked against the same job's iolog, which fio writes with microsecond issue
times: the two files of ``data/measured_kvm_virtio_trace`` were written by one fio run."""

from __future__ import annotations

import lzma
from pathlib import Path

import numpy as np
import pytest

from iosim import cli
from iosim.traces import TraceFormatError, detect_block_format, read_block_trace

DATA = Path(__file__).resolve().parents[1] / "data" / "measured_kvm_virtio_trace"
LATLOG = DATA / "rw70-poisson-10000_lat.1.log.xz"
IOLOG = DATA / "rw70-poisson-10000.iolog.xz"


def _lines(path: Path) -> list[str]:
    return lzma.open(path, "rt").read().splitlines()


def _iolog_requests(path: Path) -> list[tuple[float, bool, int]]:
    out = []
    for text in _lines(path)[1:]:
        parts = text.split()
        if parts[2] in ("read", "write"):
            out.append((int(parts[0]) * 1e-6, parts[2] == "read", int(parts[3])))
    return out


def test_the_latency_log_is_detected_by_its_name_and_shape():
    assert detect_block_format(LATLOG) == "fio-latlog"
    assert detect_block_format(IOLOG) == "fio-iolog"


def test_with_its_iolog_every_io_arrives_at_its_logged_issue_time():
    tr = read_block_trace(LATLOG, iolog=IOLOG)
    lat_lines = [t.split(",") for t in _lines(LATLOG)]
    issued = _iolog_requests(IOLOG)
    assert len(tr) == len(lat_lines) == len(issued)  # (no ramp: fio logged every I/O)
    assert not any("do not list" in w for w in tr.warnings)
    # the latencies are the log's, exactly (ns -> s), and reads/writes keep their direction
    assert sorted(tr.latency_s) == pytest.approx(sorted(int(p[1]) * 1e-9 for p in lat_lines),
                                                 rel=0, abs=1e-15)
    assert int(tr.is_read.sum()) == sum(1 for p in lat_lines if int(p[2]) == 0)
    # each request's arrival is the issue time of the iolog line with its direction and
    # offset, taken in order (an offset recurs: fio drew 10,142 of 65,536 blocks at random)
    t0 = min(t for t, _, _ in issued)
    queues: dict = {}
    for t, r, o in issued:
        queues.setdefault((r, o), []).append(t - t0)
    want = sorted((queues[(int(p[2]) == 0, int(p[4]))].pop(0), int(p[1]) * 1e-9)
                  for p in lat_lines)
    got = sorted(zip(tr.arrival_s, tr.latency_s, strict=True))
    np.testing.assert_allclose(np.array(got), np.array(want), rtol=0, atol=1e-9)


def test_alone_the_arrivals_are_within_the_ms_fio_logged():
    """Without the iolog, arrival = completion - latency, the completion placed within the whole
    ms fio logged: every arrival is within 1 ms of the true issue time, and the same file reads
    the same every time (a fixed stream)."""
    alone = read_block_trace(LATLOG)
    paired = read_block_trace(LATLOG, iolog=IOLOG)

    def keyed(tr):  # (direction, offset, latency in ns) names one I/O here
        return {(bool(r), int(o), round(lat * 1e9)): t for r, o, lat, t in
                zip(tr.is_read, tr.offset_bytes, tr.latency_s, tr.arrival_s, strict=True)}

    true, est = keyed(paired), keyed(alone)
    assert len(true) == len(est) == len(alone)
    shift = np.array([est[k] - true[k] for k in true])
    shift = shift - np.median(shift)  # (the two rebase on different first requests)
    assert np.abs(shift).max() < 1.0e-3
    assert np.abs(shift).mean() < 0.5e-3
    # not bunched: the completions of one ms taken at one instant would put 77 % of the gaps
    # between arrivals under 10 us (the iolog: 18 %; Poisson at this rate: 10 %)
    gaps = np.diff(alone.arrival_s)
    assert (gaps < 10e-6).mean() < 0.25
    assert any("whole ms" in w for w in alone.warnings)
    again = read_block_trace(LATLOG)
    np.testing.assert_array_equal(again.arrival_s, alone.arrival_s)


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_columns_directions_and_refusals(tmp_path: Path):
    # five columns (fio >= 3.21 without log_offset): the fifth is the priority, no offset
    p = _write(tmp_path, "job_lat.1.log", "3, 120000, 0, 4096, 0\n3, 90000, 1, 8192, 0\n"
               "4, 50000, 2, 4096, 0\n")
    tr = read_block_trace(p)
    assert len(tr) == 2 and np.isnan(tr.offset_bytes).all()
    assert list(tr.size_bytes) == [4096, 8192] and sorted(tr.latency_s) == [9e-5, 1.2e-4]
    assert any("log_offset=1" in w for w in tr.warnings)
    assert any("trims" in w for w in tr.warnings)
    # a completion-latency log is read, and says what it leaves out
    c = read_block_trace(_write(tmp_path, "job_clat.1.log", "1, 50000, 0, 4096, 8192, 0\n"))
    assert any("_clat" in w for w in c.warnings)
    with pytest.raises(TraceFormatError, match="submission-latency log"):
        read_block_trace(_write(tmp_path, "job_slat.1.log", "1, 5000, 0, 4096, 8192, 0\n"))
    with pytest.raises(TraceFormatError, match="log_avg_msec"):
        read_block_trace(_write(tmp_path, "avg_lat.1.log", "500, 81000, 0, 0, 0\n"))
    with pytest.raises(TraceFormatError, match=r"bad_lat.1.log:2: time \(ms\): expected a number"):
        read_block_trace(_write(tmp_path, "bad_lat.1.log", "1, 5000, 0, 4096, 0, 0\n"
                                "x, 5000, 0, 4096, 0, 0\n"))


def test_an_iolog_goes_with_a_latency_log_only(tmp_path: Path):
    v2 = _write(tmp_path, "old.iolog", "fio version 2 iolog\n/dev/sda add\n/dev/sda read 0 4096\n")
    with pytest.raises(TraceFormatError, match="v2 iolog has no issue times"):
        read_block_trace(LATLOG, iolog=v2)
    with pytest.raises(TraceFormatError, match="latency log"):
        read_block_trace(IOLOG, iolog=IOLOG)


def test_replay_compares_with_the_logged_latencies(capsys):
    assert cli.main(["replay", str(LATLOG), "--iolog", str(IOLOG), "--preset", "nvme-intel-750",
                     "--compare", "--max-requests", "2000"]) == 0
    out = capsys.readouterr().out
    assert "fio-latlog" in out and "comparison over 2,000 requests" in out


def test_replay_refuses_an_iolog_beside_another_format_in_one_line(capsys, tmp_path: Path):
    trace = _write(tmp_path, "t.trace", "0.0 0 0 8 1\n1.0 0 8 8 0\n2.0 0 16 8 1\n")
    assert cli.main(["replay", str(trace), "--iolog", str(IOLOG), "--time-unit", "ms"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "fio latency log" in err


def test_a_log_with_other_jobs_logs_beside_it_says_it_is_one_job(tmp_path: Path):
    """fio (numjobs > 1) writes NAME_lat.1.log, NAME_lat.2.log ...: one of them is one job's
    I/O, and the replay would miss the others' load; the trace says so."""
    row = "1, 50000, 0, 4096, 8192, 0\n"
    one = _write(tmp_path, "job_lat.1.log", row)
    assert not any("other job" in w for w in read_block_trace(one).warnings)
    _write(tmp_path, "job_lat.2.log", row)
    _write(tmp_path, "job_clat.2.log", row)  # (another kind of log: not counted)
    (w,) = [w for w in read_block_trace(one).warnings if "other job" in w]
    assert "1 other job(s)" in w and "job_lat.2.log" in w

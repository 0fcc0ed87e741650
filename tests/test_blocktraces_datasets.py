"""Production trace sets in their own layouts (iosim.traces.block_datasets): Alibaba Cloud's
block traces, Tencent CBS and FIU. Small fixtures written from each set's published
description (the lines quoted in the tests are the descriptions' own examples)."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import numpy as np
import pytest

from iosim.traces import TraceFormatError, detect_block_format, iter_block_trace, read_block_trace


def _write(tmp_path: Path, text: str, name: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def _tgz(tmp_path: Path, files: dict[str, str], name: str = "2018-10-01-01.tgz") -> Path:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for member, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    p = tmp_path / name
    p.write_bytes(buf.getvalue())
    return p


def test_alibaba_columns_and_units(tmp_path):
    # alibaba/block-traces README: device_id, opcode (R/W), offset (bytes), length (bytes),
    # timestamp (us); its example row is device 0, R, offset 126703644672.
    p = _write(tmp_path, "0,R,126703644672,4096,1577808000000029\n"
                         "0,W,126703648768,8192,1577808000000529\n"
                         "3,R,0,512,1577808000001000\n", "io_traces.csv")
    assert detect_block_format(p) == "alibaba"
    t = read_block_trace(p)
    np.testing.assert_allclose(t.arrival_s, [0.0, 500e-6, 971e-6], rtol=0, atol=1e-12)
    assert t.offset_bytes[0] == 126703644672 and t.size_bytes.tolist() == [4096, 8192, 512]
    assert t.is_read.tolist() == [True, False, True]
    assert t.device_names == {0: "0", 3: "3"}
    assert np.isnan(t.latency_s).all()


def test_tencent_spreads_each_second_and_keeps_file_order(tmp_path):
    # SNIA IOTTA Tencent CBS README: Timestamp (whole s, Unix), Offset and Size in 512-byte
    # sectors, IOType 0 read / 1 write, VolumeID.
    rows = ["1538323199,105352008,584,1,1576", "1538323199,105352608,8,0,1576",
            "1538323199,4000,16,0,7", "1538323200,105352008,584,1,1576",
            "1538323200,2000,8,0,7", "1538323201,100,8,1,7"]
    p = _write(tmp_path, "\n".join(rows) + "\n", "2018-10-01-01")
    assert detect_block_format(p) == "tencent"
    t = read_block_trace(p)
    assert t.offset_bytes.tolist() == [105352008 * 512, 105352608 * 512, 4000 * 512,
                                       105352008 * 512, 2000 * 512, 100 * 512]
    assert t.size_bytes[0] == 584 * 512
    assert t.is_read.tolist() == [False, True, True, False, True, False]
    # every request stays in its own second (on the rebased clock the first is at 0, and the
    # next seconds start where the whole-second stamps say), in the order of the file
    first = 1538323199 + _first_fraction(p)
    absolute = t.arrival_s + first
    assert np.floor(absolute).tolist() == [1538323199] * 3 + [1538323200] * 2 + [1538323201]
    assert np.all(np.diff(t.arrival_s) > 0)
    assert any("whole seconds" in w for w in t.warnings)
    again = read_block_trace(p)
    np.testing.assert_array_equal(again.arrival_s, t.arrival_s)  # a fixed stream


def _first_fraction(p: Path) -> float:
    """Where the first request fell in its second: the trace is rebased to it."""
    from iosim.traces.block_datasets import _TENCENT_SEED

    # the first second's three requests take the first three draws of the stream, sorted
    return float(np.sort(np.random.default_rng(_TENCENT_SEED).random(3))[0])


def test_tencent_within_a_second_is_uniform_not_bunched(tmp_path):
    # 4,000 requests in each of 5 seconds: placed over the second, not at its start
    rows = [f"{1538323199 + s},{i * 8},8,0,1" for s in range(5) for i in range(4000)]
    t = read_block_trace(_write(tmp_path, "\n".join(rows) + "\n", "busy"))
    gaps = np.diff(t.arrival_s)
    assert np.all(gaps >= 0)
    assert abs(gaps.mean() - 1 / 4000) < 0.05 / 4000
    # exponential-like gaps: the coefficient of variation of uniform order statistics' gaps is 1
    assert 0.9 < gaps.std() / gaps.mean() < 1.1


def test_tencent_batches_and_line_by_line_agree(tmp_path):
    from iosim.traces import block_csv

    rows = [f"{1538323199 + i // 700},{8 * i},{1 + i % 8},{i % 2},{i % 3}" for i in range(5000)]
    body = "\n".join(rows) + "\n"
    fast = read_block_trace(_write(tmp_path, body, "a"), "tencent")
    slow = read_block_trace(_write(tmp_path, "Timestamp,Offset,Size,IOType,VolumeID\n" + body,
                                   "b"), "tencent")
    np.testing.assert_array_equal(fast.arrival_s, slow.arrival_s)
    np.testing.assert_array_equal(fast.offset_bytes, slow.offset_bytes)
    # and batches of any size give the same arrivals (a second split between two batches)
    old = block_csv.BATCH_LINES
    import iosim.traces.block_datasets as ds

    try:
        ds.BATCH_LINES = 333
        small = read_block_trace(_write(tmp_path, body, "c"), "tencent")
    finally:
        ds.BATCH_LINES = old
    np.testing.assert_array_equal(fast.arrival_s, small.arrival_s)


def test_alibaba_batches_and_line_by_line_agree(tmp_path):
    rows = [f"{i % 4},{'RW'[i % 2]},{4096 * i},{512 * (1 + i % 8)},{1577808000000000 + 37 * i}"
            for i in range(300)]
    body = "\n".join(rows) + "\n"
    fast = read_block_trace(_write(tmp_path, body, "a.csv"), "alibaba")
    slow = read_block_trace(_write(tmp_path, "device_id,opcode,offset,length,timestamp\n" + body,
                                   "b.csv"), "alibaba")
    for col in ("arrival_s", "offset_bytes", "size_bytes", "is_read", "device"):
        np.testing.assert_array_equal(getattr(fast, col), getattr(slow, col))
    assert fast.device_names == slow.device_names


def test_fiu_columns_and_a_process_name_with_spaces(tmp_path):
    # FIU traces' layout: ts (ns), pid, process, lba, size (512-B blocks), R/W, major, minor,
    # md5; the example line is FIU's own ("gzip").
    p = _write(tmp_path, "89968195792462 20782 gzip 283193184 8 R 6 0 "
                         "56f11b711d91a065a2b6458eca924523\n"
                         "89968195800000 20782 gzip 283193192 8 W 6 0 "
                         "56f11b711d91a065a2b6458eca924524\n"
                         "89968196000000 1 my proc 100 16 R 6 1 aa\n", "homes-110108.blkparse")
    assert detect_block_format(p) == "fiu"
    t = read_block_trace(p)
    np.testing.assert_allclose(t.arrival_s, [0.0, 7538e-9, 207538e-9], rtol=0, atol=1e-15)
    assert t.offset_bytes.tolist() == [283193184 * 512, 283193192 * 512, 100 * 512]
    assert t.size_bytes.tolist() == [4096, 4096, 8192]
    assert t.is_read.tolist() == [True, False, True]
    assert t.device_names == {0: "6,0", 1: "6,1"}


@pytest.mark.parametrize(("fmt", "line", "says"), [
    ("alibaba", "0,X,0,4096,1577808000000029", "opcode: expected R or W"),
    ("alibaba", "0,R,0,4096", "truncated line"),
    ("tencent", "1538323199,100,8,2,7", "IOType: expected 0 (read) or 1 (write)"),
    ("tencent", "1538323199,-5,8,0,7", "Offset (sectors)"),
    ("fiu", "89968195792462 20782 gzip 283193184 8 X 6 0 ab", "operation: expected R or W"),
    ("fiu", "89968195792462 20782 gzip 8 R", "truncated line"),
])
def test_bad_lines_are_refused_in_one_line_naming_the_field(tmp_path, fmt, line, says):
    good = {"alibaba": "0,R,0,4096,1577808000000000", "tencent": "1538323199,0,8,0,7",
            "fiu": "89968195700000 20782 gzip 283193184 8 R 6 0 ab"}[fmt]
    p = _write(tmp_path, f"{good}\n{line}\n", "bad")
    with pytest.raises(TraceFormatError) as info:
        read_block_trace(p, fmt)
    assert info.value.line == 2 and says in str(info.value) and "\n" not in str(info.value)


def test_a_tgz_with_one_file_is_read_and_with_two_is_refused(tmp_path):
    body = "1538323199,105352008,584,1,1576\n1538323200,2000,8,0,7\n"
    one = _tgz(tmp_path, {"2018-10-01-01": body})
    assert detect_block_format(one) == "tencent"
    t = read_block_trace(one)
    assert len(t) == 2 and any("the file in the tar archive" in w for w in t.warnings)
    two = _tgz(tmp_path, {"a": body, "b": body}, "two.tgz")
    with pytest.raises(TraceFormatError) as info:
        read_block_trace(two, "tencent")
    assert "more than one file (a, b" in str(info.value)
    plain = tmp_path / "plain.tar"
    with tarfile.open(plain, "w") as tar:
        tar.add(tmp_path / "2018-10-01-01.tgz", arcname="x.tgz")
    with pytest.raises(TraceFormatError):  # a tar of a compressed file: still not text
        read_block_trace(plain, "tencent")


def test_a_cut_tgz_says_so(tmp_path):
    rows = "".join(f"{1538323199 + i // 50},{i},8,0,7\n" for i in range(20000))
    whole_file = _tgz(tmp_path, {"h": rows})
    cut = tmp_path / "cut.tgz"
    cut.write_bytes(whole_file.read_bytes()[: len(whole_file.read_bytes()) // 2])
    with pytest.raises(TraceFormatError) as info:
        read_block_trace(cut, "tencent")
    assert "\n" not in str(info.value)


def test_streamed_chunks_equal_the_whole_read(tmp_path):
    rows = [f"{1538323199 + i // 300},{8 * i},8,{i % 2},{i % 2}" for i in range(3000)]
    p = _write(tmp_path, "\n".join(rows) + "\n", "s")
    whole_t = read_block_trace(p)
    parts = list(iter_block_trace(p, chunk_requests=257))
    np.testing.assert_array_equal(np.concatenate([c.arrival_s for c in parts]),
                                  whole_t.arrival_s)


def test_replay_cli_reads_a_tencent_volume(tmp_path, capsys):
    from iosim.cli import main

    rows = [f"{1538323199 + i // 200},{8 * ((i * 7919) % 100000)},8,{i % 2},{1576 + i % 2}"
            for i in range(2000)]
    p = _tgz(tmp_path, {"2018-10-01-01": "\n".join(rows) + "\n"})
    assert main(["replay", str(p), "--device", "1576", "--preset", "nvme-intel-750"]) == 0
    out = capsys.readouterr().out
    assert "tencent" in out and "1,000" in out

"""Block traces in any comma-separated layout whose header names the columns (format csv,
iosim.traces.block_named): roles from names, units from suffixes or declared, never guessed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from iosim.traces import TraceFormatError, detect_block_format, read_block_trace

# The layout of SNIA's SYSTOR '17 traces (Timestamp, Response, IOType, LUN, Offset, Size): no
# units in the names, so they are declared
SYSTOR = ("Timestamp,Response,IOType,LUN,Offset,Size\n"
          "1483228800.018986,0.000362,R,3,6267392,4096\n"
          "1483228800.019531,0.000112,W,3,6271488,8192\n"
          "1483228800.021002,0.000254,R,4,0,4096\n")


def _write(tmp_path: Path, text: str, name: str = "t.csv") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_units_must_be_named_or_declared(tmp_path):
    p = _write(tmp_path, SYSTOR)
    assert detect_block_format(p) == "csv"
    with pytest.raises(TraceFormatError) as info:
        read_block_trace(p)
    assert "column 'Timestamp': its time unit is not in its name" in str(info.value)
    t = read_block_trace(p, time_unit="s", size_unit="bytes")
    np.testing.assert_allclose(t.arrival_s, [0, 545e-6, 2016e-6], atol=1e-9)
    assert t.latency_s.tolist() == pytest.approx([362e-6, 112e-6, 254e-6])
    assert t.is_read.tolist() == [True, False, True]
    assert t.size_bytes.tolist() == [4096, 8192, 4096]
    assert t.device_names == {0: "3", 1: "4"}
    assert t.warnings[0] == ("csv: Timestamp as arrival (s), Response as latency (s), IOType as "
                             "direction, LUN as device, Offset as offset (bytes), Size as size "
                             "(bytes)")


def test_suffixes_flags_and_implied_units(tmp_path):
    t = read_block_trace(_write(tmp_path, "arrival_us,offset_bytes,size_bytes,is_read,"
                                          "latency_us,comment\n0,0,4096,1,100,\n"
                                          "10.5,4096,4096,0,50,x\n"))
    assert t.arrival_s.tolist() == pytest.approx([0, 10.5e-6])
    assert t.latency_s.tolist() == pytest.approx([100e-6, 50e-6])
    assert t.is_read.tolist() == [True, False]
    assert "columns not read: comment" in t.warnings
    # "lba" is in 512-byte sectors and "bytes" in bytes by their names; Time(ms) in brackets
    t = read_block_trace(_write(tmp_path, "Time(ms),lba,bytes,is_write\n0,8,4096,1\n"
                                          "2,16,8192,0\n", "b.csv"))
    assert t.offset_bytes.tolist() == [4096, 8192] and t.size_bytes.tolist() == [4096, 8192]
    assert t.is_read.tolist() == [False, True] and t.arrival_s[1] == pytest.approx(2e-3)


def test_a_zero_one_op_column_is_refused_naming_what_it_needs(tmp_path):
    # 0/1 means read in some traces and write in others: only is_read / is_write say which
    p = _write(tmp_path, "time_s,offset_bytes,size_bytes,rw\n0,0,512,1\n")
    with pytest.raises(TraceFormatError) as info:
        read_block_trace(p)
    assert info.value.line == 2 and "expected R or W" in str(info.value)


def test_a_header_without_the_needed_columns_is_refused(tmp_path):
    p = _write(tmp_path, "time_s,offset_bytes,size_bytes,colour\n0,0,512,red\n")
    with pytest.raises(TraceFormatError) as info:
        read_block_trace(p, "csv")
    assert "names no direction column" in str(info.value)
    with pytest.raises(TraceFormatError) as info:
        read_block_trace(_write(tmp_path, "0,0,512,r\n", "nohead.csv"), "csv")
    # a file without a header: its first line is read as one, and names none of the columns
    assert "the header names no arrival or offset or size or direction column (columns: 0, 0, " \
        "512, r)" in str(info.value)


def test_bad_values_name_the_line_and_column(tmp_path):
    p = _write(tmp_path, "time_s,offset_bytes,size_bytes,op\n0,0,512,R\n0.1,-8,512,W\n")
    with pytest.raises(TraceFormatError) as info:
        read_block_trace(p)
    assert info.value.line == 3 and "offset (column 2)" in str(info.value)


def test_batches_and_line_by_line_agree(tmp_path):
    rows = [f"{i * 1e-4:.6f},{4096 * (i * 7 % 1000)},{512 * (1 + i % 8)},{'RW'[i % 3 == 0]},"
            f"{50 + i % 17},{i % 3}" for i in range(3000)]
    head = "arrival_s,offset_bytes,size_bytes,op,latency_us,device\n"
    fast = read_block_trace(_write(tmp_path, head + "\n".join(rows) + "\n", "a.csv"))
    # a comment line in the middle sends its batch line by line
    slow_rows = rows[:1500] + ["# a note"] + rows[1500:]
    slow = read_block_trace(_write(tmp_path, head + "\n".join(slow_rows) + "\n", "b.csv"))
    for col in ("arrival_s", "offset_bytes", "size_bytes", "is_read", "device", "latency_s"):
        np.testing.assert_array_equal(getattr(fast, col), getattr(slow, col))
    assert fast.device_names == slow.device_names


def test_msr_with_its_header_is_still_msr(tmp_path):
    p = _write(tmp_path, "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n"
                         "128166372003061629,hm,0,Read,3154132992,4096,37213\n"
                         "128166372003132288,hm,0,Write,3154137088,8192,1000\n"
                         "128166372003132288,hm,1,Write,0,512,20000\n", "hm_0.csv")
    assert detect_block_format(p) == "msr"


def test_replay_cli_takes_the_units(tmp_path, capsys):
    from iosim.cli import main

    p = _write(tmp_path, SYSTOR)
    assert main(["replay", str(p), "--time-unit", "s", "--size-unit", "bytes", "--device", "3",
                 "--preset", "nvme-intel-750", "--compare"]) == 0
    out = capsys.readouterr().out
    assert "2 requests" in out and "Timestamp as arrival (s)" in out

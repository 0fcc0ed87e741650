"""Block-trace readers (iosim.traces.block*): the shared corpus, units, D->C latency, the DiskSim
validate closed loop, bad input with real line numbers, streaming, and a fuzz of random lines."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iosim.traces import (
    BLOCK_FORMATS,
    BlockTrace,
    TraceFormatError,
    detect_block_format,
    iter_block_trace,
    read_block_trace,
)

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "blocktraces"
if not CORPUS.is_dir():
    CORPUS = Path("/work/wt/shared/blocktraces")
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/blocktraces absent")

NVME = "blkparse/nvme0n1-dmcrypt-ext4-blktrace_merge.txt"
ISSUE_ONLY = "blkparse/sdc1-issue-only-wiscsee.txt"
WISCSEE = "blkparse-derived/wiscsee-sqlitewal-update-mkfs-events.txt"
MSN = "disksim-ascii/msn-fileserver-ms.trace"
MQSIM = "disksim-ascii/mqsim-tpcc-small.trace"
HEIMDALL = "disksim-ascii/heimdall-msr-cut-rw20-80.trace"
FIN1 = "disksim-ascii/ssdsim-financial1-head.ascii"
ATLAS = "disksim-validate/quantum-atlas10k-dixtrac.trace"
BCC = "biosnoop/bcc-biosnoop-example.txt"
BPF = "biosnoop/bpftrace-biosnoop-example.txt"

EXPECTED_FORMAT = {
    NVME: "blkparse",
    ISSUE_ONLY: "blkparse",
    WISCSEE: "wiscsee",
    MSN: "disksim-ascii",
    MQSIM: "disksim-ascii",
    HEIMDALL: "disksim-ascii",
    FIN1: "disksim-ascii",
    ATLAS: "disksim-validate",
    BCC: "biosnoop",
    BPF: "bpftrace-biosnoop",
}


def _write(tmp_path: Path, text: str | bytes, name: str = "t.trace") -> Path:
    p = tmp_path / name
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text)
    return p


def _same(a: BlockTrace, b: BlockTrace) -> None:
    for name in ("arrival_s", "offset_bytes", "size_bytes", "is_read", "device", "latency_s",
                 "idle_s"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


# --- the shared corpus --------------------------------------------------------------------


@needs_corpus
def test_every_corpus_trace_is_detected_and_parses():
    traces = sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.name != "README.md"
                    and not p.name.startswith("atlas10k."))
    assert len(traces) == len(EXPECTED_FORMAT)
    for p in traces:
        rel = p.relative_to(CORPUS).as_posix()
        assert detect_block_format(p) == EXPECTED_FORMAT[rel], rel
        trace = read_block_trace(p)
        assert len(trace) > 0 and trace.format == EXPECTED_FORMAT[rel]
        assert np.all(np.diff(trace.arrival_s) >= 0), rel
        assert trace.arrival_s[0] == 0.0
        text = str(trace.summary())
        assert f"{len(trace):,}" in text


@needs_corpus
def test_blkparse_counts_checked_by_hand():
    # Counted with awk on the file (one request per data D; flushes 'D FN' have no '+'):
    #   awk '$6=="D" && $9=="+"' F | wc -l                        -> 119
    #   awk '$6=="D" && $9=="+" && $7 ~ /R/' F | wc -l            -> 0 reads
    #   awk '$6=="D" && $9=="+" {s+=$10*512} END {print s}' F     -> 1181696 bytes
    #        (= the 1,154 KiB of writes in blkparse's own "Total" block)
    #   awk '$6=="D" && $9=="+" && $10==8' F | wc -l              -> 87 requests of 4 KiB
    #   D->C pairs by device+sector, sorted:
    #   awk '$6=="D" && $9=="+" {d[$1" "$8]=$4}
    #        $6=="C" && $9=="+" && (($1" "$8) in d) {print $4-d[$1" "$8]; delete d[$1" "$8]}'
    #        -> 119 pairs, median 0.000054229 s, max 0.023651095 s (README: 0.05 ms, 23.7 ms)
    trace = read_block_trace(CORPUS / NVME)
    s = trace.summary()
    assert s.requests == 119
    assert s.read_fraction == 0.0
    assert s.bytes_per_s * s.duration_s == pytest.approx(1181696)
    assert s.top_sizes[0] == (4096.0, pytest.approx(87 / 119))
    assert s.latency_count == 119
    assert s.latency_p50_s == pytest.approx(54.229e-6, abs=1e-9)
    assert trace.latency_s.max() == pytest.approx(23.651095e-3, abs=1e-9)
    assert s.devices == ("259,0",)
    warnings = " ".join(trace.warnings)
    assert "23 x flushes" in warnings and "D events without a matching C" not in warnings


@needs_corpus
def test_msn_disksim_ascii_counts_checked_by_hand():
    # wc -l F -> 149999; awk '$5==1' F | wc -l -> 130483 reads;
    # awk '{s+=$4*512} END {printf "%.0f", s}' F -> 2622644224 bytes;
    # head -1 / tail -1 first column -> 0.000 and 143068.077 (ms);
    # awk '$4==16' F | wc -l -> 126661 requests of 16 sectors (8 KiB);
    # awk 'NR>1 && $1<p {c++} {p=$1} END {print c+0}' F -> 0 steps back in time.
    trace = read_block_trace(CORPUS / MSN, time_unit="ms", size_unit="sectors")
    s = trace.summary()
    assert s.requests == 149999
    assert round(s.read_fraction * s.requests) == 130483
    assert s.bytes_per_s * s.duration_s == pytest.approx(2622644224)
    assert s.duration_s == pytest.approx(143.068077, abs=1e-9)
    assert s.top_sizes[0] == (8192.0, pytest.approx(126661 / 149999))
    assert not any("backwards" in w for w in trace.warnings)


@needs_corpus
@pytest.mark.parametrize(
    ("rel", "time_unit", "size_unit", "duration_s", "first_size"),
    [
        (MQSIM, "ns", "sectors", 0.136489, 16 * 512),  # 938513000 -> 1075002000 ns
        (MSN, "ms", "sectors", 143.068077, 16 * 512),
        (HEIMDALL, "ms", "bytes", 242.904693, 4096),
        (FIN1, "ns", "sectors", 259.601203125, 7 * 512),  # Financial1's 3584-byte first write
    ],
)
def test_disksim_ascii_units_declared_and_inferred(rel, time_unit, size_unit, duration_s,
                                                   first_size):
    declared = read_block_trace(CORPUS / rel, time_unit=time_unit, size_unit=size_unit)
    assert declared.duration_s == pytest.approx(duration_s, rel=1e-12)
    assert declared.size_bytes[0] == first_size
    assert not any("unit" in w for w in declared.warnings)
    inferred = read_block_trace(CORPUS / rel)
    _same(declared, inferred)
    notes = " ".join(inferred.warnings)
    assert f"time unit inferred as {time_unit}" in notes
    assert f"size unit inferred as {size_unit}" in notes


@needs_corpus
def test_atlas10k_validate_trace_closed_loop_schedule():
    trace = read_block_trace(CORPUS / ATLAS)
    assert len(trace) == 10000
    # first row: "W Hit    4583176   4    663.00000  45422.00000"
    assert not trace.is_read[0]
    assert trace.offset_bytes[0] == 4583176 * 512 and trace.size_bytes[0] == 4 * 512
    assert trace.latency_s[0] == pytest.approx(663e-6)
    assert trace.idle_s[0] == pytest.approx(45422e-6)
    gaps = np.diff(trace.arrival_s)
    np.testing.assert_allclose(gaps, trace.latency_s[:-1] + trace.idle_s[:-1], rtol=1e-9,
                               atol=1e-12)
    # awk 'NR<10000 {s+=$5+$6} END {printf "%.6f", s/1e6}' F -> 500.770864
    assert trace.arrival_s[-1] == pytest.approx(500.770864, abs=1e-6)
    # grep -c '^R' F -> 6569
    assert int(trace.is_read.sum()) == 6569


@needs_corpus
def test_issue_only_blkparse_and_wiscsee_have_no_latency():
    trace = read_block_trace(CORPUS / ISSUE_ONLY)
    # awk '$6=="D" && $9=="+"' F | wc -l -> 673; ... && $7=="R" -> 161 reads
    assert len(trace) == 673 and int(trace.is_read.sum()) == 161
    assert not trace.has_latency
    assert any("issue-only" in w for w in trace.warnings)
    assert any("4 x passthrough" in w for w in trace.warnings)
    wisc = read_block_trace(CORPUS / WISCSEE)
    assert len(wisc) == 150  # 151 rows, one at offset -8388608 (before the partition)
    assert any("negative offset" in w and "line 113" in w for w in wisc.warnings)


@needs_corpus
def test_biosnoop_documentation_files():
    bcc = read_block_trace(CORPUS / BCC)
    assert len(bcc) == 21  # 15 + 6 data lines in two output blocks
    assert set(bcc.device_names.values()) == {"xvda1", "xvdb", "xvdc", "nvme1n1"}
    assert any("39 x lines outside" in w for w in bcc.warnings)
    # the 512-byte write at sector 62901513 with LAT 0.25 ms
    i = int(np.flatnonzero(bcc.offset_bytes == 62901513 * 512)[0])
    assert bcc.size_bytes[i] == 512 and bcc.latency_s[i] == pytest.approx(0.25e-3)
    bpf = read_block_trace(CORPUS / BPF)
    assert len(bpf) == 20 and np.isnan(bpf.size_bytes).all()
    s = bpf.summary()
    assert math.isnan(s.read_fraction) and s.latency_count == 20
    assert "n/a" in str(s)


# --- formats with no file in the corpus: small fixtures from the published descriptions ---


def test_msr_cambridge_csv(tmp_path):
    # SNIA IOTTA "MSR Cambridge Traces" README: Timestamp (Windows filetime, 100 ns ticks),
    # Hostname, DiskNumber, Type (Read/Write), Offset and Size in bytes, ResponseTime in ticks.
    p = _write(tmp_path, "128166372003061629,hm,0,Read,3154132992,4096,37213\n"
                         "128166372003132288,hm,0,Write,3154137088,8192,1000\n"
                         "128166372003132288,hm,1,Write,0,512,20000\n", "hm_0.csv")
    assert detect_block_format(p) == "msr"
    t = read_block_trace(p)
    assert t.arrival_s[1] == pytest.approx(70659e-7, abs=1e-12)
    assert t.latency_s.tolist() == pytest.approx([3.7213e-3, 1e-4, 2e-3])
    assert t.is_read.tolist() == [True, False, False]
    assert set(t.device_names.values()) == {"hm_0", "hm_1"}
    assert t.summary().sequential_fraction == 1.0


def test_spc_csv_matches_the_ssdsim_conversion(tmp_path):
    # UMass Trace Repository, SPC format: ASU,LBA (512-byte sectors),Size (bytes),Opcode,
    # Timestamp (s). The first lines of Financial1.spc, as quoted with the SSDsim conversion.
    p = _write(tmp_path, "0,303567,3584,w,0.000000\n1,55590,3072,w,0.000000\n"
                         "0,303574,3584,w,0.026214\n1,240840,3072,w,0.026214\n"
                         "1,55596,3072,r,0.078643\n", "Financial1.spc")
    assert detect_block_format(p) == "spc"
    t = read_block_trace(p)
    assert t.offset_bytes[0] == 303567 * 512 and t.size_bytes[0] == 3584
    assert t.is_read.tolist() == [False, False, False, False, True]
    assert t.arrival_s[2] == pytest.approx(0.026214)
    if CORPUS.is_dir():
        head = read_block_trace(CORPUS / FIN1, max_requests=4)
        np.testing.assert_array_equal(head.offset_bytes, t.offset_bytes[:4])
        np.testing.assert_array_equal(head.size_bytes, t.size_bytes[:4])
        np.testing.assert_allclose(head.arrival_s, t.arrival_s[:4], atol=1e-6)


def test_fio_iolog_v3_and_v2(tmp_path):
    v3 = _write(tmp_path, "fio version 3 iolog\n0 /dev/sdb add\n2 /dev/sdb open\n"
                          "100 /dev/sdb write 0 4096\n350 /dev/sdb read 8192 4096\n"
                          "400 /dev/sdb trim 0 4096\n1000 /dev/sdb close\n", "v3.log")
    assert detect_block_format(v3) == "fio-iolog"
    t = read_block_trace(v3)
    assert t.arrival_s.tolist() == pytest.approx([0.0, 250e-6])  # fio v3 times are in us
    assert t.is_read.tolist() == [False, True] and t.device_names == {0: "/dev/sdb"}
    v2 = _write(tmp_path, "fio version 2 iolog\n/dev/sdb add\n/dev/sdb open\n"
                          "/dev/sdb read 0 4096\n/dev/sdb wait 20 0\n/dev/sdb read 4096 4096\n",
                "v2.log")
    t2 = read_block_trace(v2)
    assert t2.arrival_s.tolist() == pytest.approx([0.0, 0.020])
    assert any("no timestamps" in w for w in t2.warnings)


def test_sequential_fraction_per_device():
    t = BlockTrace(
        arrival_s=np.arange(6.0),
        offset_bytes=np.array([0, 0, 4096, 10**6, 8192, 10**6 + 4096], float),
        size_bytes=np.full(6, 4096.0),
        is_read=np.ones(6, bool),
        device=np.array([0, 1, 0, 0, 1, 0]),
    )
    # device 0: 0, 4096 (seq), 1e6 (no), 1e6+4096 (seq); device 1: 0, 8192 (no) -> 2 of 4
    assert t.summary().sequential_fraction == 0.5


# --- bad input ------------------------------------------------------------------------------


def _error(path, **kw) -> TraceFormatError:
    with pytest.raises(TraceFormatError) as info:
        read_block_trace(path, **kw)
    msg = str(info.value)
    assert "\n" not in msg and str(path) in msg
    return info.value


def test_truncated_line_names_the_real_line(tmp_path):
    p = _write(tmp_path, "# comment\n\n0.0 0 100 8 1\n1.5 0 108 8 1\n2.5 0 100\n")
    err = _error(p, format="disksim-ascii", time_unit="ms", size_unit="sectors")
    assert err.line == 5 and "truncated" in err.reason


def test_bad_field_names_line_and_field(tmp_path):
    p = _write(tmp_path, "R Hit 10 4 600.0 100.0\nW Hit 20 x 600.0 100.0\n")
    err = _error(p, format="disksim-validate")
    assert err.line == 2 and "blocks" in err.reason


def test_unknown_blkparse_action_is_counted(tmp_path):
    p = _write(tmp_path, "  8,0  1  1  0.000000000  10  D   R 100 + 8 [dd]\n"
                         "  8,0  1  2  0.000100000  10  Z   R 100 + 8 [dd]\n"
                         "  8,0  1  3  0.000500000   0  C   R 100 + 8 [0]\n")
    t = read_block_trace(p, format="blkparse")
    assert len(t) == 1 and t.latency_s[0] == pytest.approx(0.0005)
    assert any("unknown action 'Z'" in w and "line 2" in w for w in t.warnings)


def test_unmatched_d_and_c_are_counted(tmp_path):
    p = _write(tmp_path, "  8,0  1  1  0.000000000  10  D   R 100 + 8 [dd]\n"
                         "  8,0  1  2  0.000100000  10  D   W 500 + 8 [dd]\n"
                         "  8,0  1  3  0.000500000   0  C   R 100 + 8 [0]\n"
                         "  8,0  1  4  0.000600000   0  C   R 900 + 8 [0]\n")
    t = read_block_trace(p)
    assert len(t) == 2
    assert t.latency_s[0] == pytest.approx(0.0005) and math.isnan(t.latency_s[1])
    w = " ".join(t.warnings)
    assert "1 x D events without a matching C" in w and "line 2" in w
    assert "1 x C events without a matching D" in w and "line 4" in w


def test_time_going_backwards_is_counted_and_sorted(tmp_path):
    p = _write(tmp_path, "0.0 0 0 8 1\n5.0 0 8 8 1\n3.0 0 16 8 1\n1.0 0 24 8 1\n6.0 0 32 8 1\n")
    t = read_block_trace(p, time_unit="ms", size_unit="sectors")
    assert t.arrival_s.tolist() == pytest.approx([0, 1e-3, 3e-3, 5e-3, 6e-3])
    assert any("2 x arrival times going backwards" in w and "line 3" in w for w in t.warnings)
    # going back further than a chunk cannot be sorted in bounded memory: refused, with its line
    p2 = _write(tmp_path, "".join(f"{t} 0 0 8 1\n" for t in (5, 6, 7, 8, 9, 10, 1)), "b.trace")
    with pytest.raises(TraceFormatError) as info:
        list(iter_block_trace(p2, "disksim-ascii", chunk_requests=2, time_unit="ms",
                              size_unit="sectors"))
    assert info.value.line == 7 and "goes back" in info.value.reason


def test_units_that_cannot_be_told_apart_warn(tmp_path):
    # integer times with 1-unit steps and ~1237-unit gaps: as ns (1.2 us gaps) and as us
    # (1.2 ms gaps) both plausible; ten 8-sector requests are too few to judge sizes
    p = _write(tmp_path, "".join(f"{i * 1237 + 1} 0 {i * 8} 8 1\n" for i in range(10)))
    t = read_block_trace(p)
    notes = " ".join(t.warnings)
    assert "time unit: cannot tell (ns and us all fit" in notes
    assert "size unit: cannot tell" in notes
    with pytest.raises(TraceFormatError, match="time_unit='min'"):
        read_block_trace(p, time_unit="min")


def test_empty_binary_directory_missing_and_latin1(tmp_path):
    err = _error(_write(tmp_path, "", "empty.trace"))
    assert "empty" in err.reason
    err = _error(_write(tmp_path, b"0.0 0 0 8 1\n\x00\x01\x02binary\n", "bin.trace"),
                 format="disksim-ascii")
    assert err.line == 2 and "binary" in err.reason
    err = _error(tmp_path, format="spc")
    assert "directory" in err.reason
    err = _error(tmp_path / "nope.csv", format="spc")
    assert "no such file" in err.reason
    p = _write(tmp_path, "0,1,512,r,0.0\n0,9,512,w,0.5 caf\xe9\n".encode("latin-1"), "l1.spc")
    err = _error(p, format="spc")
    assert err.line == 2 and "Timestamp" in err.reason
    p = _write(tmp_path, "# caf\xe9\n0,1,512,r,0.0\n".encode("latin-1"), "l2.spc")
    t = read_block_trace(p, format="spc")
    assert any("not UTF-8" in w for w in t.warnings)


def test_unknown_format_and_undetectable_file(tmp_path):
    p = _write(tmp_path, "hello world\n")
    assert detect_block_format(p) is None
    assert "cannot tell" in _error(p).reason
    assert "unknown block-trace format" in _error(p, format="vhdx").reason


def test_max_requests_stops_before_reading_the_rest(tmp_path):
    # a large file whose tail is garbage: max_requests never reaches it (nothing more is read)
    body = "".join(f"{i}.000 0 {i * 8} 8 1\n" for i in range(5000)) + "garbage garbage\n"
    p = _write(tmp_path, body)
    t = read_block_trace(p, time_unit="ms", size_unit="sectors", max_requests=1000)
    assert len(t) == 1000 and any("max_requests=1000" in w for w in t.warnings)
    with pytest.raises(TraceFormatError) as info:
        read_block_trace(p, time_unit="ms", size_unit="sectors")
    assert info.value.line == 5001


# --- streaming ----------------------------------------------------------------------------


@needs_corpus
@pytest.mark.parametrize(("rel", "chunk"), [(MSN, 10_000), (NVME, 7), (BCC, 4)])
def test_streamed_chunks_concatenate_to_the_whole_read(rel, chunk):
    whole = read_block_trace(CORPUS / rel)
    chunks = list(iter_block_trace(CORPUS / rel, chunk_requests=chunk))
    assert len(chunks) > 1
    assert max(len(c) for c in chunks) <= 2 * chunk
    cols = {n: np.concatenate([getattr(c, n) for c in chunks])
            for n in ("arrival_s", "offset_bytes", "size_bytes", "is_read", "device",
                      "latency_s", "idle_s")}
    _same(whole, BlockTrace(**cols))
    assert chunks[-1].warnings == whole.warnings


def test_device_filter(tmp_path):
    p = _write(tmp_path, "0,1,512,r,0.0\n1,9,512,w,0.5\n0,2,512,w,1.0\n", "x.spc")
    t = read_block_trace(p, device=0)
    assert len(t) == 2 and set(t.device.tolist()) == {0}
    assert "devices seen: 0, 1" in _error(p, device=7).reason


# --- fuzz ---------------------------------------------------------------------------------

_ALPHABET = "0123456789 ,.+-:#[]()RWDCQNFrwabcdefTimeSxyz\t\u00e9"


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(fmt=st.sampled_from(BLOCK_FORMATS),
       lines=st.lists(st.text(alphabet=_ALPHABET, max_size=60), max_size=12))
def test_fuzz_random_lines_raise_only_trace_format_error(tmp_path, fmt, lines):
    header = {"fio-iolog": "fio version 3 iolog\n",
              "biosnoop": "TIME(s) COMM PID DISK T SECTOR BYTES LAT(ms)\n",
              "bpftrace-biosnoop": "TIME(ms)     DISK ID        COMM             PID    LAT(ms)\n"}
    p = tmp_path / "fuzz.trace"
    p.write_text(header.get(fmt, "") + "\n".join(lines) + "\n", encoding="utf-8")
    for kwargs in ({"format": fmt}, {}):
        try:
            t = read_block_trace(p, **kwargs)
        except TraceFormatError as e:
            assert "\n" not in str(e)
            continue
        assert len(t) > 0 and np.all(np.diff(t.arrival_s) >= 0)
        str(t.summary())


def test_numpy_batches_and_line_by_line_parse_agree(tmp_path):
    # clean lines go through NumPy in batches; a comment sends its batch line by line
    body = "".join(f"{i * 0.25:.3f} {i % 3} {i * 16} {8 * (1 + i % 4)} {i % 2}\n"
                   for i in range(300))
    fast = read_block_trace(_write(tmp_path, body, "a.trace"), time_unit="ms",
                            size_unit="sectors")
    slow = read_block_trace(_write(tmp_path, "# header\n" + body, "b.trace"), time_unit="ms",
                            size_unit="sectors")
    _same(fast, slow)
    assert fast.device_names == slow.device_names == {0: "0", 1: "1", 2: "2"}


@needs_corpus
def test_summary_to_dict_is_strict_json():
    import json

    d = read_block_trace(CORPUS / BPF).summary().to_dict()
    text = json.dumps(d, allow_nan=False)  # NaN (unknown sizes) became null
    assert d["read_fraction"] is None and d["requests"] == 20
    assert json.loads(text)["windows"][0]["requests"] >= 0


def test_blkparse_events_remaps_messages_and_cpu_interleaving(tmp_path):
    text = """\
  8,0    1        1     0.000100000  4321  A   R 2048 + 8 <- (8,1) 0
  8,0    1        2     0.000110000  4321  Q   R 2048 + 8 [cat]
  8,0    1        3     0.000120000  4321  G   R 2048 + 8 [cat]
  8,0    1        4     0.000130000  4321  P   N [cat]
  8,0    1        5     0.000140000  4321  I   R 2048 + 8 [cat]
  8,0    1        0     0.000145000     0  m   N cfq4321S / insert_request
  8,0    1        6     0.000150000  4321  U   N [cat] 1
  8,0    1        7     0.000160000  4321  D   R 2048 + 8 [cat]
  8,0    0        1     0.000155000  4322  D   W 4096 + 16 [kworker/0:1]
  8,0    0        2     0.000156000  4322  X   W 4096 / 4104 [kworker/0:1]
  8,16   1        1     0.000170000  4323  D   RA 10 + 8 [cat]
  8,0    1        8     0.001160000     0  C   R 2048 + 8 [0]
  8,0    0        3     0.002155000     0  C   W 4096 + 16 [0]
  8,16   1        2     0.000970000     0  C   RA 10 + 8 [0]
  8,0    1        9     0.003000000  4321  D  DS 8192 + 8 [fstrim]

CPU0 (8,0):
 Reads Queued:           0,        0KiB\t Writes Queued:           1,        8KiB
Total (8,0):
 Reads Queued:           1,        4KiB\t Writes Queued:           1,        8KiB
"""
    t = read_block_trace(_write(tmp_path, text, "sda.blkparse"))
    assert detect_block_format(tmp_path / "sda.blkparse") == "blkparse"
    # D times 0.000155 (CPU 0) < 0.000160 (CPU 1): sorted, without a warning
    assert t.arrival_s.tolist() == pytest.approx([0, 5e-6, 15e-6])
    assert t.is_read.tolist() == [False, True, True]
    assert t.latency_s.tolist() == pytest.approx([2e-3, 1e-3, 0.8e-3])
    assert t.device_names == {0: "8,0", 1: "8,16"}
    assert t.size_bytes.tolist() == [8192, 4096, 4096]
    w = " ".join(t.warnings)
    assert "1 x discard dispatches skipped, first at line 15" in w
    assert "backwards" not in w and "unknown action" not in w


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(fmt=st.sampled_from(BLOCK_FORMATS), data=st.binary(max_size=300))
def test_fuzz_random_bytes_raise_only_trace_format_error(tmp_path, fmt, data):
    p = tmp_path / "fuzz.bin"
    p.write_bytes(data)
    try:
        t = read_block_trace(p, format=fmt)
    except TraceFormatError as e:
        assert "\n" not in str(e)
        return
    assert len(t) > 0


@needs_corpus
def test_every_corpus_file_under_every_format_parses_or_is_refused_in_one_line():
    # includes the Atlas 10K's drive-parameter files and the README, which are refused
    refused = set()
    for p in sorted(q for q in CORPUS.rglob("*") if q.is_file()):
        for fmt in (None, *BLOCK_FORMATS):
            try:
                t = read_block_trace(p, fmt)
            except TraceFormatError as e:
                assert "\n" not in str(e) and str(p) in str(e)
                if fmt is None:
                    refused.add(p.name)
                continue
            assert len(t) > 0 and np.all(np.diff(t.arrival_s) >= 0)
    assert refused == {"README.md", "atlas10k.diskspecs", "atlas10k.model", "atlas10k.parv",
                       "atlas10k.seek"}

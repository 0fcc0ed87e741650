"""Every file of the shared corpus of real tool outputs (../shared/corpus, read in place):
it parses with sane values, or fails with TraceFormatError when the corpus README documents it
as broken. Skipped when the corpus is absent."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from iosim.results import Curve, Results
from iosim.traces import TraceFormatError, WorkloadList, detect_format, read
from iosim.workload import Workload

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
FILES = sorted(p for p in CORPUS.glob("*/*") if p.is_file()) if CORPUS.is_dir() else []

pytestmark = pytest.mark.skipif(not FILES, reason="shared corpus not available")

# documented as unusable: (message fragment the error must contain)
BROKEN = {
    "fio-windows-parse-error-not-json.json": "found no JSON",
    "fio326git-verify-errors-bom-no-stats.txt": "no statistics",
    "iostat-xTd-solaris10-not-linux.txt": "Solaris",
    "vdb50403-windows-aborted-run-summary.html": "aborted",
    "vdb50403-windows-aborted-run-totals.html": "aborted",
}
# Little's law cannot hold: fio counted I/Os of an interrupted run whose buffered writes
# completed "instantly" (~6 x the iodepth in flight by iops x latency)
LITTLE_ANOMALIES = {"fio333-interrupted-signal2-text-before-json.json"}

EXPECTED_FORMAT = {
    "fio-json": "fio-json",
    "fio-text": "fio-text",
    "fio-terse": "fio-terse",
    "sysbench": "sysbench",
    "iostat": "iostat",
}


def _ids(paths):
    return [p.name for p in paths]


def _check_point(p: Results, name: str) -> None:
    fmt_run = bool(p.params.get("format"))
    assert p.params.get("source") == name or p.extra.get("source") == name
    if p.iops is not None:
        assert p.iops >= 0
        if not fmt_run:
            assert p.iops > 0, f"{name}: non-positive IOPS"
    for f in ("read_iops", "write_iops", "bandwidth_Bps", "aqu_sz", "qd_mean", "block_iops"):
        v = getattr(p, f)
        assert v is None or (math.isfinite(v) and v >= 0), f"{name}: {f}={v}"
    if p.util is not None:
        assert 0.0 <= p.util <= 1.0
    lats = [
        p.lat_mean_s,
        p.read_lat_mean_s,
        p.write_lat_mean_s,
        p.lat_max_s,
        p.lat_p50_s,
        p.lat_p99_s,
        p.lat_p9999_s,
        p.block_lat_mean_s,
    ]
    for v in lats:
        assert v is None or 1e-8 < v < 60.0, f"{name}: implausible latency {v}"
    if p.lat_mean_s is not None and p.lat_max_s is not None:
        assert p.lat_mean_s <= p.lat_max_s * 1.01
    pcts = [
        v
        for v in (p.lat_p50_s, p.lat_p90_s, p.lat_p95_s, p.lat_p99_s, p.lat_p999_s, p.lat_p9999_s)
        if v is not None
    ]
    assert pcts == sorted(pcts), f"{name}: percentiles not increasing {pcts}"
    if p.qd_dist:
        assert abs(sum(p.qd_dist.values()) - 1.0) < 0.02
    # Little's law at the host: iops x mean latency = I/Os in flight <= numjobs x iodepth
    nj, qd = p.params.get("numjobs"), p.params.get("iodepth")
    if nj and qd and p.iops and p.lat_mean_s and name not in LITTLE_ANOMALIES:
        ratio = p.iops * p.lat_mean_s / (nj * qd)
        assert ratio <= 1.1, f"{name}: {ratio:.2f} x the outstanding count in flight"
        closed_fio = name.startswith("fio") and "rate_iops" not in p.params
        if closed_fio:
            assert ratio >= 0.3, f"{name}: only {ratio:.2f} x the outstanding count in flight"


@pytest.mark.parametrize("path", FILES, ids=_ids(FILES))
def test_corpus_file(path: Path):
    if path.name in BROKEN:
        with pytest.raises(TraceFormatError, match=BROKEN[path.name]) as info:
            read(path)
        assert path.name in str(info.value)
        return
    out = read(path)
    if isinstance(out, Curve):
        assert len(out) >= 1
        assert len(out.df) == len(out)
        for p in out:
            _check_point(p, path.name)
            assert json.loads(p.to_json(full=True))  # every value JSON-serialisable
        if not any(p.params.get("format") for p in out):
            assert all(p.iops is not None or p.lat_mean_s is not None for p in out)
    elif isinstance(out, WorkloadList):
        assert len(out) >= 1
        for name, wl in out:
            assert isinstance(name, str) and isinstance(wl, Workload)
            assert wl.outstanding >= 1
    else:
        assert isinstance(out, pd.DataFrame)
        assert len(out) >= 1
        if out.attrs.get("kind") in ("lat", "clat", "slat"):
            assert out["value"].between(1e-8, 60.0).all()
        if "util" in out:
            assert out["util"].between(0.0, 1.0).all()
        if "time_s" in out:
            assert (out["time_s"] >= 0).all()


@pytest.mark.parametrize("path", FILES, ids=_ids(FILES))
def test_detected_format_matches_directory(path: Path):
    fmt = detect_format(path)
    folder = path.parent.name
    if folder in EXPECTED_FORMAT:
        assert fmt == EXPECTED_FORMAT[folder]
    elif folder == "fio-logs":
        assert fmt == ("fio-hist" if "_hist" in path.name else "fio-log")
    elif folder == "vdbench":
        want = "vdbench-parm" if "parm" in path.name else "vdbench"
        assert fmt == want


def _variants(data: bytes) -> list[bytes]:
    n = len(data)
    out = [data[: n // 3], data[: 2 * n // 3], data[: max(0, n - 7)]]
    lines = data.split(b"\n")
    if len(lines) > 4:
        k = len(lines) // 2
        out.append(
            b"\n".join(
                lines[:k] + [lines[k][: len(lines[k]) // 2] + b" ;,= x 1e999"] + lines[k + 1 :]
            )
        )
    return out


@pytest.mark.parametrize("path", FILES, ids=_ids(FILES))
def test_damaged_copies_fail_cleanly(path: Path, tmp_path: Path):
    """Truncated or garbled copies either parse or raise TraceFormatError -- never a bare
    KeyError/IndexError/ValueError from inside a parser."""
    fmt = detect_format(path) or "fio-json"
    for k, data in enumerate(_variants(path.read_bytes())):
        copy = tmp_path / f"{k}-{path.name}"
        copy.write_bytes(data)
        try:
            read(copy, format=fmt)
        except TraceFormatError as exc:
            assert copy.name in str(exc)

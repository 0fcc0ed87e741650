"""sysbench ``fileio`` output, 0.4.x and 1.0.x, -> a Curve with one point per result block.

0.4.x prints ``Operations performed: R Read, W Write, O Other = T Total``, ``Total transferred
... (X Mb/sec)`` (sysbench's Mb is MiB) and per-request statistics in ms; 1.0.x prints
``reads/s``, ``writes/s``, ``fsyncs/s``, ``read, MiB/s``, ``written, MiB/s`` and a ``Latency
(ms)`` block. In both, the latency is per event, and an event can be an fsync as well as a read
or a write; ``iops`` counts reads and writes only (fsyncs per second are in ``counters``).

``params``: ``threads`` (also ``numjobs``; ``iodepth`` 1 in synchronous mode, unknown in async
mode), ``block_size_bytes``, ``rw`` and ``rwmixread`` from the test mode and R/W ratio,
``tx_rate`` (1.0's ``--rate``: events per second, an open loop), ``sysbench_version`` and
``source``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..results import Curve, Results
from ..units import UnitError, parse_size
from ._common import num, read_text, split_lines
from .errors import TraceFormatError

__all__ = ["read_sysbench"]

_MODES = {
    "random r/w": "randrw",
    "random read": "randread",
    "random write": "randwrite",
    "sequential read": "read",
    "sequential write": "write",
    "sequential rewrite": "write",
    "sequential write (creation)": "write",
}

_RE_VER = re.compile(r"^sysbench (\S+)")
_RE_THREADS = re.compile(r"^Number of threads:\s*(\d+)")
# sysbench 1.0 --rate: events arrive at this mean rate (exponential gaps; sysbench.c
# eventgen_thread_proc) and wait in a queue for a free thread: an open loop
_RE_TX_RATE = re.compile(r"^Target transaction rate:\s*(\d+)/sec")
_RE_BS = re.compile(r"^Block size\s+(\S+)")
_RE_RATIO = re.compile(r"^Read/Write ratio for combined random IO test:\s*([\d.]+)")
_RE_MODE = re.compile(r"^Doing (.+?) test")
_RE_IOMODE = re.compile(r"^Using (synchronous|asynchronous|mmap|fastmmap) I/O mode")
# 0.4.x
_RE_OPS = re.compile(
    r"^Operations performed:\s*(\d+)\s+Reads?,\s*(\d+)\s+Writes?,\s*(\d+)\s+Other\s*=\s*(\d+)"
)
_RE_XFER = re.compile(r"Total transferred\s+[\d.]+\w+\s+\(([\d.]+)\s*(\w+)/sec\)")
_RE_TOTAL_TIME = re.compile(r"^total time:\s*([\d.]+)s")
_RE_EVENTS = re.compile(r"^total number of events:\s*(\d+)")
# the percentile is --percentile=N (default 95): "95th percentile", "99th percentile",
# 0.4's "approx.  95 percentile"
_RE_STAT = re.compile(
    r"^(min|avg|max|approx\.\s+[\d.]+ percentile|[\d.]+th percentile|sum):\s*([\d.]+)"
)
_RE_PCT = re.compile(r"([\d.]+)(?:th)? percentile")
# 1.0.x
_RE_RATE = re.compile(r"^(reads|writes|fsyncs)/s:\s*([\d.]+)")
_RE_TPUT = re.compile(r"^(read|written), MiB/s:\s*([\d.]+)")

_MB = {
    "mb": 1024.0**2,
    "mib": 1024.0**2,
    "kb": 1024.0,
    "kib": 1024.0,
    "gb": 1024.0**3,
    "gib": 1024.0**3,
    "b": 1.0,
}


def read_sysbench(path: str | os.PathLike) -> Curve:
    """sysbench fileio output (any mix of banners, warnings, prepare/cleanup transcripts and
    several ``run`` blocks, LF or CRLF) -> a Curve, one point per result block."""
    text = read_text(path)
    lines = split_lines(text)
    source = Path(path).name
    points: list[Results] = []
    setup: dict = {}
    block: dict | None = None
    lat_ms: dict = {}
    in_latency = False
    hist: list[tuple[float, int]] | None = None  # --histogram=on: printed before its block

    def finish() -> None:
        nonlocal block, lat_ms
        if block is not None:
            points.append(_to_results(block, lat_ms, setup, source, path))
        block, lat_ms = None, {}

    for i, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line:
            continue
        m = _RE_VER.match(line)
        if m:
            finish()
            setup = {"version": m.group(1)}
            continue
        if line.startswith(("WARNING", "(last message repeated")):
            continue
        if line.startswith("Latency histogram"):
            hist = []
            continue
        if hist is not None and block is None:
            m = _RE_HIST_ROW.match(line)
            if m:
                hist.append((num(m.group(1), path, i, "histogram value", nonneg=True),
                             int(m.group(2))))
                continue
        for rx, key in (
            (_RE_THREADS, "threads"),
            (_RE_TX_RATE, "tx_rate"),
            (_RE_BS, "bs"),
            (_RE_RATIO, "ratio"),
            (_RE_MODE, "mode"),
            (_RE_IOMODE, "iomode"),
        ):
            m = rx.match(line)
            if m:
                setup[key] = m.group(1)
                break
        else:
            m = _RE_OPS.match(line)
            if m:
                finish()
                block = {
                    "line": i,
                    "style": "0.4",
                    "reads": int(m.group(1)),
                    "writes": int(m.group(2)),
                    "other": int(m.group(3)),
                }
                continue
            m = _RE_RATE.match(line)
            if m:
                if block is None or block.get("style") != "1.0" or m.group(1) in block:
                    finish()
                    block = {"line": i, "style": "1.0", "hist": hist or []}
                    hist = None
                block[m.group(1)] = num(m.group(2), path, i, f"{m.group(1)}/s", nonneg=True)
                continue
            if block is None:
                continue
            m = _RE_XFER.search(line)
            if m:
                unit = _MB.get(m.group(2).lower())
                if unit is None:
                    raise TraceFormatError(path, i, f"unknown throughput unit {m.group(2)!r}")
                block["bw_Bps"] = num(m.group(1), path, i, "throughput", nonneg=True) * unit
                continue
            m = _RE_TPUT.match(line)
            if m:
                block[f"{m.group(1)}_MiBps"] = num(m.group(2), path, i, "throughput", nonneg=True)
                continue
            m = _RE_TOTAL_TIME.match(line)
            if m:
                block["time_s"] = num(m.group(1), path, i, "total time", nonneg=True)
                continue
            m = _RE_EVENTS.match(line)
            if m:
                block["events"] = int(m.group(1))
                continue
            if line.startswith(("Latency (ms)", "per-request statistics")):
                in_latency = True
                continue
            m = _RE_STAT.match(line)
            if m and in_latency:
                pm = _RE_PCT.search(m.group(1))
                key = f"p{float(pm.group(1)):g}" if pm else m.group(1)
                lat_ms[key] = num(m.group(2), path, i, f"latency {key}", nonneg=True)
                continue
            if line.startswith("Threads fairness"):
                in_latency = False
                continue
    finish()
    if not points:
        raise TraceFormatError(
            path,
            None,
            "expected sysbench fileio results ('Operations performed:' or "
            "'File operations:' blocks); found none",
        )
    return Curve(points, label=source)


#: a --histogram=on row: "0.062 |************  164" (the bucket's value in ms, its count)
_RE_HIST_ROW = re.compile(r"^([\d.]+)\s*\|[*\s]*?(\d+)$")


def _histogram_percentiles(res: Results, hist: list[tuple[float, int]], extra: dict) -> None:
    """p50 .. p99.9 from the latency histogram sysbench printed (``--histogram=on``), each
    the first bucket at or past its share of the events; a percentile sysbench printed itself
    (``--percentile``) is kept."""
    total = sum(c for _, c in hist)
    if total <= 0:
        return
    cum, filled = 0, []
    for q, attr in ((0.50, "lat_p50_s"), (0.90, "lat_p90_s"), (0.95, "lat_p95_s"),
                    (0.99, "lat_p99_s"), (0.999, "lat_p999_s")):
        if getattr(res, attr) is not None:
            continue
        cum = 0
        for value, count in hist:
            cum += count
            if cum >= q * total:
                setattr(res, attr, value * 1e-3)
                filled.append(attr)
                break
    if filled:
        extra["percentiles_from"] = (f"the latency histogram ({total:,} events; buckets of "
                                     f"about 1.8 %): {', '.join(filled)}")


def _to_results(block: dict, lat_ms: dict, setup: dict, source: str, path) -> Results:
    res = Results()
    line = block["line"]
    extra: dict = {}
    counters: dict = {}
    if block["style"] == "0.4":
        t = block.get("time_s")
        if not t:
            raise TraceFormatError(path, line, "sysbench 0.4 block without 'total time:'")
        res.read_iops = block["reads"] / t
        res.write_iops = block["writes"] / t
        counters = {
            "read_ios": block["reads"],
            "write_ios": block["writes"],
            "other_ops": block["other"],
        }
        res.ios = block["reads"] + block["writes"]
        if "bw_Bps" in block:
            res.bandwidth_Bps = block["bw_Bps"]
    else:
        res.read_iops = block.get("reads", 0.0)
        res.write_iops = block.get("writes", 0.0)
        if "fsyncs" in block:
            counters["fsyncs_per_s"] = block["fsyncs"]
        if "read_MiBps" in block or "written_MiBps" in block:
            res.bandwidth_Bps = (block.get("read_MiBps", 0.0) + block.get("written_MiBps", 0.0)) * (
                1024.0**2
            )
        if block.get("time_s"):
            res.ios = int(round((res.read_iops + res.write_iops) * block["time_s"]))
    res.iops = res.read_iops + res.write_iops
    if block.get("events") and block.get("time_s"):
        extra["events_per_s"] = block["events"] / block["time_s"]
    if block.get("time_s"):
        extra["runtime_s"] = block["time_s"]
    if "avg" in lat_ms:
        res.lat_mean_s = lat_ms["avg"] * 1e-3
    if lat_ms.get("sum") and block.get("events"):
        # 1.0 prints avg to 0.01 ms (0.06 is 55..65 us): the sum over the events, also to
        # 0.01 ms, gives the same mean to four or five digits
        res.lat_mean_s = lat_ms["sum"] / block["events"] * 1e-3
        extra["lat_mean_from"] = "latency sum / total number of events (avg is printed to 0.01 ms)"
    if "max" in lat_ms:
        res.lat_max_s = lat_ms["max"] * 1e-3
    for key, attr in (("p50", "lat_p50_s"), ("p90", "lat_p90_s"), ("p95", "lat_p95_s"),
                      ("p99", "lat_p99_s"), ("p99.9", "lat_p999_s")):
        if key in lat_ms:
            setattr(res, attr, lat_ms[key] * 1e-3)
    if block.get("hist"):
        _histogram_percentiles(res, block["hist"], extra)
    other = {k[1:]: v * 1e-3 for k, v in lat_ms.items() if k.startswith("p")}
    if other:  # every percentile sysbench printed (--percentile=N), as fio's percentiles_s
        extra["percentiles_s"] = other
    if "min" in lat_ms:
        extra["lat_min_s"] = lat_ms["min"] * 1e-3
    extra["lat_per"] = "event (read, write or fsync)"
    params: dict = {}
    if setup.get("version"):
        params["sysbench_version"] = setup["version"]
    if setup.get("threads"):
        params["threads"] = int(setup["threads"])
        params["numjobs"] = int(setup["threads"])
        if setup.get("iomode", "synchronous") == "synchronous":
            params["iodepth"] = 1
    if setup.get("tx_rate"):
        params["tx_rate"] = float(setup["tx_rate"])
    if setup.get("bs"):
        try:
            params["block_size_bytes"] = parse_size(
                setup["bs"].replace("Kb", "K").replace("Mb", "M")
            )
        except UnitError:
            pass
    mode = setup.get("mode")
    if mode:
        params["rw"] = _MODES.get(mode.lower(), mode)
        if params["rw"] in ("randrw", "rw") and setup.get("ratio"):
            r = float(setup["ratio"])
            params["rwmixread"] = round(100.0 * r / (1.0 + r), 3)
    if setup.get("iomode"):
        params["io_mode"] = setup["iomode"]
    params["source"] = source
    res.params = params
    res.counters = counters
    res.extra = extra
    return res

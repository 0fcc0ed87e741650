"""ioping output -> a Curve with one point per run: text (every version), JSON (``-J``) and the
raw statistics of batch mode (``-B``).

ioping (github.com/koct9i/ioping) issues one request at a time and sleeps ``-i`` between them
(1 s by default): one job at depth 1 with think time. What it prints, and what it means:

* the per-request lines, ``4 KiB <<< /tmp (ext4 /dev/vda 252.0 GiB): request=2 time=75.4 us``
  (``>>>`` a write; versions before 1.0 write ``from`` or ``to``, and ``4096 bytes``): every
  latency, so this reader computes percentiles from them (a percentile only when at least 10
  requests lie beyond it: p90 from 100 requests, p99 from 1,000). Requests marked
  ``(warmup)``, ``(too fast)`` or ``(too slow)`` are left out of ioping's statistics and out of
  these.
* the statistics: ``N requests completed in T, ..., X iops, ...``. Since 1.0 T is the sum of the
  counted requests' latencies, so X = 1 / mean latency: the rate of back-to-back requests, not
  the rate the run had. Before 1.0 T is the run's wall time (X is still 1 / mean). Since 1.0 a
  ``generated N requests in T`` line gives the wall time of all requests, ignored ones too.
* ``min/avg/max/mdev``: the latency's minimum, mean, maximum and standard deviation.

The point's IOPS is the rate the run had: one request per (mean latency + the sleep between
requests), the sleep being ``(wall - latencies) / (requests - 1)``, and that sleep is the point's
``thinktime_s``; ioping's own figure is kept as ``extra["iops_back_to_back"]``. ioping does not
print whether ``-L`` (sequential) was given: random is assumed and said in ``extra["notes"]``.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np

from ..results import Curve, Results
from ._common import num, read_text, split_lines
from .errors import TraceFormatError

__all__ = ["read_ioping"]

_TIME = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0}
_SIZE = {"b": 1, "bytes": 1, "byte": 1, "kib": 2**10, "kb": 2**10, "k": 2**10, "mib": 2**20,
         "mb": 2**20, "m": 2**20, "gib": 2**30, "gb": 2**30, "g": 2**30, "tib": 2**40}
_COUNT = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9}
_IGNORED = ("warmup", "too fast", "too slow")

_REQUEST = re.compile(
    r"^\s*(?P<size>[\d.]+)\s*(?P<sunit>[A-Za-z]+)\s+(?P<dir><<<|>>>|from|to)\s+.*?"
    r"request=(?P<n>\d+)\s+time=(?P<t>[\d.]+)\s*(?P<tunit>ns|us|µs|ms|s|min)?(?P<tail>.*)$")
_STATS = re.compile(r"^---\s.*\sioping statistics\s---\s*$")
_COMPLETED = re.compile(
    r"^(?P<n>[\d.]+)\s*(?P<k>[kMG]?)\s*requests? completed in\s+(?P<t>[\d.]+)\s*"
    r"(?P<u>ns|us|µs|ms|s|min)")
_GENERATED = re.compile(
    r"generated\s+(?P<n>[\d.]+)\s*(?P<k>[kMG]?)\s*requests? in\s+(?P<t>[\d.]+)\s*"
    r"(?P<u>ns|us|µs|ms|s|min)")
_MOVED = re.compile(r",\s*(?P<v>[\d.]+)\s*(?P<u>[KMGT]?i?B|bytes)\s+(?P<dir>read|written)\b")
_MINMAX = re.compile(r"^min/avg/max/mdev\s*=\s*(?P<rest>.+)$")
_RAW = re.compile(r"^\s*\d+(?:\s+\d+){9}\s*$")


def read_ioping(path: str | os.PathLike) -> Curve:
    """The runs of an ioping output file (text, ``-J`` JSON or ``-B`` raw), one point each."""
    text = read_text(path)
    source = Path(path).name
    stripped = text.lstrip()
    if stripped.startswith("["):
        points = [_from_json(text, path, source)]
    elif stripped and all(_RAW.match(x) for x in split_lines(stripped) if x.strip()):
        points = [_from_raw(split_lines(text), path, source)]
    else:
        points = _from_text(split_lines(text), path, source)
    if not points:
        raise TraceFormatError(path, None, "expected ioping output (request lines and an "
                               "'ioping statistics' block, -J JSON or -B raw lines); found none")
    return Curve(points, label=source)


# --- text ----------------------------------------------------------------------------------


def _seconds(value: str, unit: str | None, path, line: int, what: str) -> float:
    x = num(value, path, line, what, nonneg=True)
    return x * _TIME[unit] if unit else x * 1e-3  # ioping 0.1-0.6 printed bare ms


def _size_bytes(value: str, unit: str, path, line: int) -> float:
    mult = _SIZE.get(unit.lower())
    if mult is None:
        raise TraceFormatError(path, line, f"request size: unknown unit {unit!r}")
    return num(value, path, line, "request size", nonneg=True) * mult


def _from_text(lines: list[str], path, source: str) -> list[Results]:
    points: list[Results] = []
    run: dict = _new_run()
    in_stats = False
    for i, line in enumerate(lines, 1):
        m = _REQUEST.match(line)
        if m:
            if in_stats:  # a second run appended: the first one is complete
                points.append(_text_point(run, path, source, len(points)))
                run, in_stats = _new_run(), False
            _add_request(run, m, path, i)
            continue
        if _STATS.match(line.strip()):
            in_stats, run["stats_line"] = True, i
            continue
        if not in_stats:
            continue
        m = _COMPLETED.match(line.strip())
        if m:
            run["count"] = _count(m, path, i)
            run["completed_s"] = _seconds(m["t"], m["u"], path, i, "completed in")
            moved = _MOVED.search(line)
            if moved:
                run["moved"] = (_size_bytes(moved["v"], moved["u"], path, i),
                                moved["dir"] == "written")
        g = _GENERATED.search(line)
        if g:
            run["generated"] = _count(g, path, i)
            run["wall_s"] = _seconds(g["t"], g["u"], path, i, "generated in")
        m = _MINMAX.match(line.strip())
        if m:
            run["minmax"] = _minmax(m["rest"], path, i)
    if in_stats or run["lat"]:
        points.append(_text_point(run, path, source, len(points)))
    return points


def _new_run() -> dict:
    return {"lat": [], "all_lat": [], "size": None, "write": None, "count": None,
            "completed_s": None, "generated": None, "wall_s": None, "minmax": None,
            "stats_line": None, "moved": None}


def _add_request(run: dict, m: re.Match, path, line: int) -> None:
    t = _seconds(m["t"], m["tunit"], path, line, "request time")
    run["all_lat"].append(t)
    if not any(word in m["tail"] for word in _IGNORED):
        run["lat"].append(t)
    size = _size_bytes(m["size"], m["sunit"], path, line)
    write = m["dir"] in (">>>", "to")
    if run["size"] is None:
        run["size"], run["write"] = size, write
    elif (size, write) != (run["size"], run["write"]):
        raise TraceFormatError(path, line, "requests of different sizes or directions in one "
                               "run: ioping issues one kind; is this two files joined?")


def _count(m: re.Match, path, line: int) -> float:
    return num(m["n"], path, line, "request count", nonneg=True) * _COUNT[m["k"]]


def _minmax(rest: str, path, line: int) -> tuple[float, float, float, float]:
    """``93 us / 168 us / 237 us / 40 us`` (1.x, 0.8/0.9) or ``0.1/0.2/0.3/0.0 ms`` (0.1-0.6)."""
    parts = [p.strip() for p in rest.split("/")]
    if len(parts) != 4:
        raise TraceFormatError(path, line, f"min/avg/max/mdev: expected four values, got {rest!r}")
    tail = re.fullmatch(r"([\d.]+)\s*(ns|us|µs|ms|s|min)", parts[3])
    shared = tail[2] if tail else None
    out = []
    for p in parts:
        m = re.fullmatch(r"([\d.]+)\s*(ns|us|µs|ms|s|min)?", p)
        if not m:
            raise TraceFormatError(path, line, f"min/avg/max/mdev: expected times, got {p!r}")
        out.append(_seconds(m[1], m[2] or shared, path, line, "min/avg/max/mdev"))
    return out[0], out[1], out[2], out[3]


def _text_point(run: dict, path, source: str, index: int) -> Results:
    where = run["stats_line"]
    lat = np.asarray(run["lat"], float)
    if run["minmax"] is None and not len(lat):
        raise TraceFormatError(path, where, "an ioping run without request lines or a "
                               "min/avg/max/mdev line")
    if run["minmax"] is not None:
        lo, mean, hi, sd = run["minmax"]
    else:
        lo, mean, hi, sd = lat.min(), lat.mean(), lat.max(), lat.std()
    count = run["count"] if run["count"] is not None else float(len(lat))
    notes = []
    if run["generated"] is not None:  # 1.x: the wall time of every request, ignored ones too
        total, wall = run["generated"], run["wall_s"]
        all_lat = float(np.sum(run["all_lat"])) if len(run["all_lat"]) == total \
            else total * mean
    else:  # before 1.0, "completed in" is the wall time
        total, wall = count, run["completed_s"]
        all_lat = count * mean
        if wall is not None and wall < 0.99 * count * mean:
            wall = None  # not a wall time after all
    if run["size"] is None and run["moved"] is not None and count > 0:
        # -q / -R: only the statistics; "33.6 k requests ... 131.3 MiB read" are both rounded,
        # so the size is taken to the nearest 512 bytes
        moved, run["write"] = run["moved"]
        run["size"] = max(512.0, 512.0 * round(moved / count / 512.0))
        notes.append(f"request size {run['size']:.0f} B from the bytes and requests of the "
                     "statistics (both rounded there; no request lines)")
    if run["size"] is None:
        raise TraceFormatError(path, where, "the request size is not in the output (no request "
                               "lines and no bytes read or written: use -J or keep the "
                               "request lines)")
    return _point(mean, lo, hi, sd, run["size"], bool(run["write"]), count, total, wall,
                  all_lat, lat, notes, source, index)


# --- JSON and raw --------------------------------------------------------------------------


def _from_json(text: str, path, source: str) -> Results:
    try:
        items = json.loads(text)
    except json.JSONDecodeError as e:
        raise TraceFormatError(path, e.lineno, f"not valid JSON: {e.msg}") from None
    if not isinstance(items, list):
        raise TraceFormatError(path, 1, "expected ioping -J output: a JSON array of objects")
    lat, all_lat, stat, load, size, write = [], [], None, None, None, None
    for item in items:
        if not isinstance(item, dict):
            continue
        io = item.get("io")
        if isinstance(io, dict):
            t = _nonneg(io.get("time"), path, "io.time (ns)") * 1e-9
            all_lat.append(t)
            if not io.get("ignored"):
                lat.append(t)
            size = _nonneg(io.get("size"), path, "io.size")
            write = str(io.get("operation", "read")).lower() == "write"
        if isinstance(item.get("stat"), dict):
            stat, load = item["stat"], item.get("load")
    if stat is None:
        raise TraceFormatError(path, None, "ioping JSON without its final 'stat' object (was "
                               "the run interrupted?)")
    count = _nonneg(stat.get("count"), path, "stat.count")
    if size is None:
        size = _nonneg(stat.get("size"), path, "stat.size") / max(count, 1.0)
        write = False
    ns = [_nonneg(stat.get(k), path, f"stat.{k}") * 1e-9 for k in ("min", "avg", "max", "mdev")]
    total, wall = count, None
    if isinstance(load, dict):
        total = _nonneg(load.get("count"), path, "load.count")
        wall = _nonneg(load.get("time"), path, "load.time") * 1e-9
    all_sum = float(np.sum(all_lat)) if len(all_lat) == total else total * ns[1]
    return _point(ns[1], ns[0], ns[2], ns[3], size, bool(write), count, total, wall, all_sum,
                  np.asarray(lat, float), [], source, 0)


def _nonneg(value, path, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise TraceFormatError(path, None, f"{what}: expected a number >= 0, got {value!r}")
    return float(value)


def _from_raw(lines: list[str], path, source: str) -> Results:
    """``-B``: count, time of the counted requests (ns), iops, bytes/s, min, avg, max, mdev
    (ns), all requests, wall time (ns). With ``-p``/``-P`` a line per period comes first; the
    last line is always the whole run's (ioping's final statistics), and only it is read."""
    numbered = [(i, line) for i, line in enumerate(lines, 1) if line.strip()]
    i, last = numbered[-1]
    count, lat_sum, iops, bps, lo, mean, hi, sd, total, wall = (
        num(x, path, i, "raw statistics", nonneg=True) for x in last.split())
    if count <= 0:
        raise TraceFormatError(path, i, "raw statistics with no counted requests")
    size = 512.0 * max(1, round(bps / iops / 512.0)) if iops > 0 else float("nan")
    notes = ["ioping's raw statistics do not say the direction: read assumed (ioping's default; "
             "-W writes)", f"request size {size:.0f} B from the raw bytes/s and iops"]
    if len(numbered) > 1:
        notes.append(f"the last of {len(numbered)} raw lines read: the run's final statistics "
                     "(the others are -p/-P periods)")
    return _point(mean * 1e-9, lo * 1e-9, hi * 1e-9, sd * 1e-9, size, False, count, total,
                  wall * 1e-9, total * mean * 1e-9, np.empty(0), notes, source, 0)


# --- the point -----------------------------------------------------------------------------


def _point(mean, lo, hi, sd, size, write, count, total, wall, all_lat_s, lat, notes, source,
           index) -> Results:
    res = Results()
    think = 0.0
    if wall is not None and total > 1:
        think = max(0.0, (wall - all_lat_s) / (total - 1))
    else:
        notes.append("the run's wall time is not in the output: no think time between requests "
                     "(ioping sleeps -i between them, 1 s by default)")
    cycle = mean + think
    res.iops = 1.0 / cycle if cycle > 0 else None
    if res.iops is not None:
        res.read_iops, res.write_iops = (0.0, res.iops) if write else (res.iops, 0.0)
        res.bandwidth_Bps = res.iops * size
    res.lat_mean_s, res.lat_max_s = mean, hi
    res.ios = int(round(count))
    extra: dict = {"lat_min_s": lo, "lat_stdev_s": sd, "tool": "ioping",
                   "iops_back_to_back": 1.0 / mean if mean > 0 else None}
    if wall is not None:
        extra["runtime_s"] = wall
    pct = _percentiles(lat)
    for key, value in pct.items():
        setattr(res, key, value)
    if pct:
        extra["percentiles_from"] = f"{len(lat)} request lines"
    notes.append("ioping does not print whether -L (sequential) was given: random assumed")
    extra["notes"] = notes
    res.extra = extra
    params = {"rw": "randwrite" if write else "randread", "block_size_bytes": int(size),
              "iodepth": 1, "numjobs": 1, "source": source, "tool": "ioping"}
    if think > 0:
        params["thinktime_s"] = think
    if index:
        params["run"] = index + 1
    res.params = params
    return res


def _percentiles(lat: np.ndarray) -> dict[str, float]:
    """p50..p99.9 of the counted requests, each only when at least 10 requests lie beyond it."""
    out = {}
    for p, key in ((50.0, "lat_p50_s"), (90.0, "lat_p90_s"), (95.0, "lat_p95_s"),
                   (99.0, "lat_p99_s"), (99.9, "lat_p999_s")):
        if len(lat) * (100.0 - p) / 100.0 >= 10:
            out[key] = float(np.percentile(lat, p))
    return out

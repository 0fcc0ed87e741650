"""Write simulated (or measured) results as fio-style JSON, so tools built for fio read them.

:func:`to_fio_json` turns a :class:`~iosim.results.Results` (one job) or a
:class:`~iosim.results.Curve` (one job per point, each in its own group, like stonewalled jobs)
into the dictionary ``fio --output-format=json`` prints in fio 3.x: ``"fio version"``,
``"jobs"`` with ``"job options"``, per-direction ``"read"`` / ``"write"`` / ``"trim"`` blocks
(``iops``, ``bw`` in KiB/s, ``bw_bytes``, ``io_bytes``, ``io_kbytes``, ``runtime`` in ms,
``total_ios``, ``clat_ns`` / ``lat_ns`` with ``mean``, ``max``, ``N`` and ``percentile``),
``iodepth_level`` and ``disk_util``.

Conventions, so the numbers mean what fio's mean:

* fio's ``bw`` and ``io_kbytes`` are KiB (1024 bytes); ``runtime`` is whole milliseconds;
  latencies are nanoseconds; ``percentile`` keys are printed with six decimals (``"99.000000"``).
* The simulator has no submission latency, so ``slat_ns`` is zero and ``clat_ns`` equals
  ``lat_ns`` (the host latency ``lat`` of ``iosim.results``).
* Only what is known is written: a latency's ``min`` and ``stddev`` are left out (Results does
  not keep them), and per-direction percentiles are written only when every I/O of the run went
  in that direction (the simulator's percentiles cover all I/Os together).
* ``iodepth_level`` is the time-weighted distribution of outstanding I/Os (fio's "IO depths"),
  bucketed like fio's (1, 2, 4, 8, 16, 32, >=64), in percent.
* ``disk_util[0].util`` is iostat's ``%util`` (percent of time with a request below the host);
  ``in_queue`` is the time integral of ``aqu_sz`` in ms, as the kernel's ``time_in_queue``.

A top-level ``"iosim"`` block says what produced the file (engine, seed, replications, params);
fio tools ignore keys they do not know.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import replace
from typing import Any

from .results import Curve, Results

__all__ = ["to_fio_json", "write_fio_json", "FIO_PERCENTILES"]

# percentile (fio's key) -> Results field
FIO_PERCENTILES = {
    50.0: "lat_p50_s",
    90.0: "lat_p90_s",
    95.0: "lat_p95_s",
    99.0: "lat_p99_s",
    99.9: "lat_p999_s",
    99.99: "lat_p9999_s",
}
_DEPTH_BUCKETS = ("1", "2", "4", "8", "16", "32", ">=64")


def _version() -> str:
    from . import __version__

    return __version__


def _num(v: Any) -> float | None:
    if v is None:
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def _ns(seconds: float | None) -> int | None:
    s = _num(seconds)
    return None if s is None else int(round(s * 1e9))


def _lat_block(r: Results, mean_s: float | None, with_pct: bool, n: int) -> dict:
    out: dict[str, Any] = {}
    mean = _ns(mean_s)
    if mean is None or n == 0:
        return {"N": 0, "mean": 0.0}
    out["N"] = n
    out["mean"] = float(mean)
    if with_pct:
        mx = _ns(r.lat_max_s)
        if mx is not None:
            out["max"] = mx
        pct = {}
        for q, name in FIO_PERCENTILES.items():
            v = _ns(getattr(r, name))
            if v is not None:
                pct[f"{q:.6f}"] = v
        if pct:
            out["percentile"] = pct
    return out


def _direction(r: Results, which: str, span_s: float, block_bytes: float, only: bool) -> dict:
    """One of fio's "read" / "write" / "trim" blocks."""
    if which == "read":
        iops, mean_s = r.read_iops, r.read_lat_mean_s
    elif which == "write":
        iops, mean_s = r.write_iops, r.write_lat_mean_s
    else:
        iops, mean_s = 0.0, None
    iops = _num(iops) or 0.0
    if only and mean_s is None:
        mean_s = r.lat_mean_s
    total = int(round(iops * span_s))
    io_bytes = int(round(total * block_bytes))
    bw_bytes = int(round(iops * block_bytes))
    runtime_ms = max(1, int(round(span_s * 1000))) if total else 0
    lat = _lat_block(r, mean_s, only, total)
    zero = {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0}
    return {
        "io_bytes": io_bytes,
        "io_kbytes": io_bytes // 1024,
        "bw_bytes": bw_bytes,
        "bw": bw_bytes // 1024,
        "iops": iops,
        "runtime": runtime_ms,
        "total_ios": total,
        "short_ios": 0,
        "drop_ios": 0,
        "slat_ns": dict(zero, N=total) if total else dict(zero),
        "clat_ns": lat,
        "lat_ns": dict(lat),
        "bw_agg": 100.0 if total else 0.0,
        "bw_mean": bw_bytes / 1024,
        "iops_mean": iops,
    }


def _depth_levels(qd_dist: dict) -> dict:
    levels = dict.fromkeys(_DEPTH_BUCKETS, 0.0)
    total = 0.0
    for k, v in (qd_dist or {}).items():
        try:
            depth, frac = float(k), float(v)
        except (TypeError, ValueError):
            continue
        total += frac
        if depth <= 1:
            key = "1"
        elif depth >= 64:
            key = ">=64"
        else:
            key = str(2 ** int(math.floor(math.log2(depth))))
        levels[key] += frac
    if total > 0:
        levels = {k: round(100.0 * v / total, 6) for k, v in levels.items()}
    return levels


def _job_options(r: Results, jobname: str) -> dict:
    p = r.params or {}
    opts = {"name": jobname, "ioengine": "iosim"}
    for src, dst in (
        ("rw", "rw"),
        ("iodepth", "iodepth"),
        ("numjobs", "numjobs"),
        ("rwmixread", "rwmixread"),
    ):
        if src in p and p[src] is not None:
            opts[dst] = str(p[src])
    bs = _num(p.get("block_size_bytes"))
    if bs is not None:
        opts["bs"] = str(int(bs))
    span = _num(p.get("span_bytes"))
    if span is not None:
        opts["size"] = str(int(span))
    rate = _num(p.get("rate_iops"))
    if rate:  # fio's rate_iops is each job's, per direction (reads,writes)
        per_job = rate / (_num(p.get("numjobs")) or 1.0)
        rw = str(p.get("rw", ""))
        if rw in ("read", "randread", "write", "randwrite", ""):
            opts["rate_iops"] = f"{per_job:.9g}"
        else:
            rf = (_num(p.get("rwmixread")) if p.get("rwmixread") is not None else 50.0) / 100
            opts["rate_iops"] = f"{per_job * rf:.9g},{per_job * (1.0 - rf):.9g}"
        if p.get("arrival") == "poisson":
            opts["rate_process"] = "poisson"
    return opts


def _job(r: Results, jobname: str, groupid: int) -> dict:
    p = r.params or {}
    span_s = _num(r.sim_time_s)
    if span_s is None or span_s <= 0:
        # a measured point without a duration: use one second, so counts equal rates
        span_s = 1.0
    bs = _num(p.get("block_size_bytes"))
    if bs is None:
        iops, bw = _num(r.iops), _num(r.bandwidth_Bps)
        bs = bw / iops if iops and bw else 4096.0
    rw = str(p.get("rw", ""))
    read_iops = _num(r.read_iops)
    write_iops = _num(r.write_iops)
    if read_iops is None and write_iops is None and _num(r.iops) is not None:
        # only a total is known: attribute it by the workload's direction
        if "write" in rw and "read" not in rw and rw not in ("rw", "randrw", "readwrite"):
            write_iops = r.iops
        else:
            read_iops = r.iops
    rr = replace(r, read_iops=read_iops, write_iops=write_iops)
    only_read = bool(read_iops) and not write_iops
    only_write = bool(write_iops) and not read_iops
    job: dict[str, Any] = {
        "jobname": jobname,
        "groupid": groupid,
        "error": 0,
        "eta": 0,
        "elapsed": max(1, int(math.ceil(span_s))),
        "job options": _job_options(r, jobname),
        "read": _direction(rr, "read", span_s, bs, only_read),
        "write": _direction(rr, "write", span_s, bs, only_write),
        "trim": _direction(rr, "trim", span_s, bs, False),
        "job_runtime": max(1, int(round(span_s * 1000))),
        "usr_cpu": 0.0,
        "sys_cpu": 0.0,
        "ctx": 0,
        "majf": 0,
        "minf": 0,
        "iodepth_level": _depth_levels(r.qd_dist),
        "latency_depth": int(_num(p.get("iodepth")) or 1),
        "latency_target": 0,
        "latency_percentile": 100.0,
        "latency_window": 0,
    }
    return job


def _disk_util(points: list[Results]) -> list[dict]:
    total_t = 0.0
    busy = 0.0
    in_queue = 0.0
    reads = writes = 0
    seen = False
    for r in points:
        t = _num(r.sim_time_s) or 0.0
        util = _num(r.util)
        if util is None or t <= 0:
            continue
        seen = True
        total_t += t
        busy += util * t
        in_queue += (_num(r.aqu_sz) or 0.0) * t
        reads += int(round((_num(r.read_iops) or 0.0) * t))
        writes += int(round((_num(r.write_iops) or 0.0) * t))
    if not seen:
        return []
    return [
        {
            "name": "iosim",
            "read_ios": reads,
            "write_ios": writes,
            "read_merges": 0,
            "write_merges": 0,
            "read_ticks": 0,
            "write_ticks": 0,
            "in_queue": int(round(in_queue * 1000)),
            "util": 100.0 * busy / total_t,
        }
    ]


def _point_name(base: str, r: Results, x: str | None, i: int) -> str:
    if x and x in (r.params or {}):
        return f"{base}-{x.split('.')[-1]}={r.params[x]}"
    return f"{base}-{i}"


def to_fio_json(results_or_curve: Results | Curve, jobname: str = "iosim") -> dict:
    """fio 3.x-style JSON (as a dict) for one run or for every point of a sweep."""
    if isinstance(results_or_curve, Results):
        points = [results_or_curve]
        names = [jobname]
    elif isinstance(results_or_curve, Curve):
        points = list(results_or_curve.points)
        if not points:
            raise ValueError("to_fio_json: the curve has no points")
        names = [_point_name(jobname, r, results_or_curve.x, i) for i, r in enumerate(points)]
    else:
        raise TypeError(
            f"to_fio_json expects an iosim Results or Curve (got {type(results_or_curve).__name__})"
        )
    now = time.time()
    out: dict[str, Any] = {
        "fio version": f"iosim-{_version()}",
        "timestamp": int(now),
        "timestamp_ms": int(now * 1000),
        "time": time.strftime("%a %b %d %H:%M:%S %Y", time.localtime(now)),
        "global options": {},
        "jobs": [_job(r, name, i) for i, (r, name) in enumerate(zip(points, names, strict=True))],
        "disk_util": _disk_util(points),
    }
    first = points[0]
    out["iosim"] = {
        "producer": "iosim simulation" if first.engine else "iosim (measured results re-exported)",
        "engine": first.engine,
        "seed": first.seed,
        "replications": first.replications,
        "points": [{k: v for k, v in r.params.items()} for r in points],
    }
    return out


def write_fio_json(obj: Results | Curve | dict, path: str | os.PathLike, **kw) -> None:
    """Write ``obj`` (Results, Curve or a dict from :func:`to_fio_json`) as fio JSON to
    ``path``; keyword arguments go to :func:`to_fio_json`."""
    data = obj if isinstance(obj, dict) else to_fio_json(obj, **kw)
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=2, allow_nan=False, default=_jsonable)
        fh.write("\n")


def _jsonable(v: Any) -> Any:
    try:
        import numpy as np

        if isinstance(v, np.generic):
            return v.item()
    except ImportError:  # pragma: no cover - numpy is a dependency
        pass
    return str(v)

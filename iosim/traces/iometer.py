"""IOMeter results CSV (``results.csv``) -> a Curve, one point per test (``'Results`` block).

Each ``'Results`` block holds an ``ALL`` row (the whole test) followed by MANAGER, PROCESSOR,
WORKER and DISK rows; the point is read from the ``ALL`` row, columns found by name in the
``'Target Type,...`` header: ``IOps``, ``Read IOps``, ``Write IOps``, ``MBps (Binary)`` (or
``MiBps (Binary)``; a bare ``MBps``, from IOMeter 2006, is taken as binary too), ``Average
Response Time`` and ``Maximum Response Time`` (ms), ``Read I/Os``/``Write I/Os``, ``Queue
Depth`` (IOMeter's "# of Outstanding I/Os" per target).

``params``: ``access_spec``; ``block_size_bytes``, ``rwmixread`` and ``rw`` from the access
specification (``'Access specifications`` section) when it has one line; ``numjobs`` (the
number of disk targets) and ``iodepth`` (outstanding I/Os per target), so numjobs x iodepth is
the total IOMeter kept in flight; ``workers``; ``source``.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

from ..results import Curve, Results
from ._common import read_text
from .errors import TraceFormatError

__all__ = ["read_iometer"]


def _f(row: dict, key: str, path, line) -> float | None:
    v = row.get(key)
    if v is None or str(v).strip() == "":
        return None
    try:
        return float(v)
    except ValueError:
        raise TraceFormatError(path, line, f"{key!r}: expected a number, got {v!r}") from None


def read_iometer(path: str | os.PathLike) -> Curve:
    """IOMeter ``results.csv`` -> Curve (see the module documentation)."""
    text = read_text(path)
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as exc:
        raise TraceFormatError(path, None, f"not a readable CSV file ({exc})") from None
    specs: dict[str, list[dict]] = {}
    points: list[Results] = []
    i = 0
    n = len(rows)
    found_results = False
    while i < n:
        row = rows[i]
        first = row[0].strip() if row else ""
        if first.lower() == "'access specifications":
            i = _read_specs(rows, i + 1, specs)
            continue
        if first.lower() == "'results":
            found_results = True
            if i + 1 >= n or not rows[i + 1] or not rows[i + 1][0].startswith("'Target Type"):
                raise TraceFormatError(
                    path, i + 2, "expected the 'Target Type,Target Name,... header after 'Results"
                )
            header = [h.strip().lstrip("'") for h in rows[i + 1]]
            j = i + 2
            block = []
            while j < n and rows[j] and not rows[j][0].startswith("'"):
                rec = dict(zip(header, rows[j], strict=False))
                block.append((j + 1, rec))
                j += 1
            points.append(_point(block, specs, path, i + 1, Path(path).name))
            i = j
            continue
        i += 1
    if not found_results:
        raise TraceFormatError(
            path, None, "expected an IOMeter results file ('Results sections with an ALL row)"
        )
    return Curve(points, label=Path(path).name)


def _read_specs(rows: list[list[str]], i: int, specs: dict) -> int:
    name = None
    n = len(rows)
    while i < n:
        row = rows[i]
        first = row[0].strip() if row else ""
        low = first.lower()
        if low == "'end access specifications":
            return i + 1
        if low.startswith("'access specification name") or low.startswith("'size"):
            i += 1
            continue
        if not first:
            i += 1
            continue
        if first.startswith("'"):
            return i
        if len(row) >= 8 and all(c.strip().lstrip("-").isdigit() for c in row[:8]):
            if name is not None:
                vals = [int(c) for c in row[:8]]
                specs[name].append(
                    {
                        "size": vals[0],
                        "pct_of_size": vals[1],
                        "pct_reads": vals[2],
                        "pct_random": vals[3],
                    }
                )
        else:
            name = first
            specs.setdefault(name, [])
        i += 1
    return i


def _point(block, specs, path, line, source) -> Results:
    all_rows = [(ln, r) for ln, r in block if r.get("Target Type", "").strip().upper() == "ALL"]
    if not all_rows:
        raise TraceFormatError(path, line, "IOMeter 'Results block without an ALL row")
    ln, r = all_rows[0]
    res = Results()
    res.iops = _f(r, "IOps", path, ln)
    if res.iops is None:
        raise TraceFormatError(path, ln, "ALL row without an IOps value")
    res.read_iops = _f(r, "Read IOps", path, ln)
    res.write_iops = _f(r, "Write IOps", path, ln)
    for key in ("MiBps (Binary)", "MBps (Binary)", "MBps"):
        v = _f(r, key, path, ln)
        if v is not None:
            res.bandwidth_Bps = v * 1024.0**2
            break
    ms = 1e-3
    avg = _f(r, "Average Response Time", path, ln)
    if avg is not None and res.iops > 0:
        res.lat_mean_s = avg * ms
        rd = _f(r, "Average Read Response Time", path, ln)
        wr = _f(r, "Average Write Response Time", path, ln)
        if rd is not None and (res.read_iops or 0) > 0:
            res.read_lat_mean_s = rd * ms
        if wr is not None and (res.write_iops or 0) > 0:
            res.write_lat_mean_s = wr * ms
        mx = _f(r, "Maximum Response Time", path, ln)
        if mx is not None:
            res.lat_max_s = mx * ms
    rio, wio = _f(r, "Read I/Os", path, ln), _f(r, "Write I/Os", path, ln)
    if rio is not None or wio is not None:
        res.ios = int((rio or 0) + (wio or 0))
    errs = _f(r, "Errors", path, ln)
    if errs:
        res.counters["errors"] = int(errs)
    cpu = _f(r, "% CPU Utilization", path, ln)
    if cpu is not None:
        res.extra["cpu_total_pct"] = cpu
    params: dict = {}
    spec_name = (r.get("Access Specification Name") or "").strip()
    if spec_name:
        params["access_spec"] = spec_name
    spec = specs.get(spec_name) or []
    if len(spec) == 1:
        s = spec[0]
        params["block_size_bytes"] = float(s["size"])
        params["rwmixread"] = float(s["pct_reads"])
        rand = s["pct_random"] >= 50
        if s["pct_reads"] >= 100:
            params["rw"] = "randread" if rand else "read"
        elif s["pct_reads"] <= 0:
            params["rw"] = "randwrite" if rand else "write"
        else:
            params["rw"] = "randrw" if rand else "rw"
    elif len(spec) > 1:
        res.extra["access_spec_lines"] = spec
    workers = _f(r, "# Workers", path, ln)
    if workers is not None:
        params["workers"] = int(workers)
    disks = _f(r, "# Disks", path, ln)
    qd = _f(r, "Queue Depth", path, ln)
    if qd is not None and qd > 0:
        params["iodepth"] = int(qd)
        params["numjobs"] = int(disks) if disks and disks > 0 else 1
    else:
        # per-target values differ: IOMeter prints -1 on the ALL row; add the DISK rows up
        dq = []
        for dln, d in block:
            if d.get("Target Type", "").strip().upper() == "DISK":
                v = _f(d, "Queue Depth", path, dln)
                if v is not None and v > 0:
                    dq.append(int(v))
        if dq:
            if len(set(dq)) == 1:
                params["iodepth"], params["numjobs"] = dq[0], len(dq)
            else:
                params["iodepth"], params["numjobs"] = sum(dq), 1
                res.extra["queue_depths"] = dq
    params["source"] = source
    res.params = params
    return res

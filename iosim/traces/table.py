"""Measured points as a CSV table: the convention of the project's ``data/`` directory.

One row per point; unit suffixes ``_ms``, ``_us``, ``_ns``, ``_s``, ``_pct``, ``_MiBps``,
``_MBps``, ``_KiBps``, ``_kBps``, ``_Bps``, ``_bytes``; ``threads`` = jobs of depth 1, ``qd`` = one
job of that depth (sysbench and fio sweeps), ``numjobs``/``iodepth`` as fio's. Every other column
is kept in the point's ``params`` (a number where it parses as one).
"""

from __future__ import annotations

import csv
import math
import os
from pathlib import Path
from typing import Any

from .. import limits
from ..results import Curve, Results
from ..spec import SpecError

__all__ = ["read_table"]


def _f(v: Any) -> float | None:
    if v is None:
        return None
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


_UNIT = {
    "ms": 1e-3,
    "us": 1e-6,
    "ns": 1e-9,
    "s": 1.0,
    "pct": 0.01,
    "MiBps": 1024.0**2,
    "MBps": 1e6,
    "KiBps": 1024.0,
    "kBps": 1e3,
    "Bps": 1.0,
    "bytes": 1.0,
}
_LAT = {
    "lat_mean": "lat_mean_s",
    "lat_p50": "lat_p50_s",
    "lat_p90": "lat_p90_s",
    "lat_p95": "lat_p95_s",
    "lat_p99": "lat_p99_s",
    "lat_p999": "lat_p999_s",
    "lat_max": "lat_max_s",
    "await": "block_lat_mean_s",
}


def read_table(path: str | os.PathLike) -> Curve:
    """A CSV table of measured points (the convention of ``data/``: one row per point, unit
    suffixes ``_ms``, ``_us``, ``_s``, ``_pct``, ``_MiBps``, ``_MBps``, ``_KiBps``, ``_bytes``;
    ``threads`` = jobs of depth 1, ``qd`` = one job of that depth) as a :class:`Curve`."""
    p = Path(path)
    text = limits.read_text(p, what="a table of measured points",
                            error=lambda where, reason: SpecError(f"{where}: {reason}"))
    rows = list(csv.DictReader(text.splitlines()))
    if not rows:
        raise SpecError(f"{p}: the table has no rows")
    points = []
    for lineno, row in enumerate(rows, start=2):
        r = Results()
        params: dict[str, Any] = {"source": f"{p.name}:{lineno}"}
        for col, raw in row.items():
            if col is None or raw is None:
                continue
            col, raw = col.strip(), raw.strip()
            if raw == "":
                continue
            num = _f(raw)
            stem, _, suffix = col.rpartition("_")
            if col in ("iops", "read_iops", "write_iops", "aqu_sz"):
                _need(num, p, lineno, col)
                setattr(r, col, num)
            elif stem in _LAT and suffix in _UNIT:
                _need(num, p, lineno, col)
                setattr(r, _LAT[stem], num * _UNIT[suffix])
            elif stem == "bw" and suffix in _UNIT:
                _need(num, p, lineno, col)
                r.bandwidth_Bps = num * _UNIT[suffix]
            elif col == "util_pct":
                _need(num, p, lineno, col)
                r.util = num / 100.0
            elif col in ("threads", "qd", "numjobs", "iodepth"):
                if num is None or num < 1 or num != int(num):
                    raise SpecError(
                        f"{p}:{lineno}: {col} must be a whole number >= 1 (got {raw!r})"
                    )
                params[col] = int(num)
            elif col == "bs_bytes":
                params["block_size_bytes"] = num if num is not None else raw
            elif col == "span_bytes":
                params["span_bytes"] = num if num is not None else raw
            else:
                params[col] = num if num is not None else raw
        if "threads" in params:
            params.setdefault("numjobs", params["threads"])
            params.setdefault("iodepth", 1)
        if "qd" in params:
            params.setdefault("iodepth", params["qd"])
            params.setdefault("numjobs", 1)
        r.params = params
        points.append(r)
    x = next((k for k in ("threads", "qd", "iodepth", "numjobs") if k in rows[0]), None)
    return Curve(points, x=x, label=p.stem)


def _need(num, p, lineno, col):
    if num is None:
        raise SpecError(f"{p}:{lineno}: {col} must be a number")

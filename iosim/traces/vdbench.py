"""vdbench: summary/totals/host reports (HTML or plain text), flatfile.html, the response-time
histogram, and parameter files.

Conventions:

* One :class:`Results` per run point (an ``RD=`` run, or one step of its ``for`` loops): the
  ``avg_`` row when vdbench printed one, else the mean of the interval rows after the first
  (vdbench's own averages skip the first interval; ``extra["averaged"]`` says so). Pass
  ``intervals=True`` to get one point per interval row instead.
* vdbench ``MB/sec`` is 1024^2 bytes per second; ``resp`` columns are milliseconds; ``queue
  depth`` is the mean number of I/Os outstanding at the host (``qd_mean``).
* ``params``: ``rd`` (the run's name), ``threads`` (also given as ``iodepth``, with
  ``numjobs`` = 1, so Little's law checks and saturation ratios work), ``iorate`` (the
  requested rate, ``"max"`` for an uncontrolled run), ``format`` (True for vdbench's format
  runs), ``block_size_bytes`` (observed bytes per I/O) and ``source``.
"""

from __future__ import annotations

import fnmatch
import html
import itertools
import os
import re
from pathlib import Path

from ..results import Curve, Results
from ..spec import SpecError
from ..units import UnitError, parse_size
from ..workload import Workload
from ._common import PCT_FIELDS, WorkloadList, num, pct_key, read_text, split_lines
from .errors import TraceFormatError

__all__ = ["read_vdbench", "read_vdbench_parm"]

_TAG = re.compile(r"<[^>]*>")
_RE_START = re.compile(r"Starting RD=(?P<rd>[^;\s]+)(?P<rest>.*)$")
_RE_ROW = re.compile(r"^\s*(?P<tod>\d{1,2}:\d{2}:\d{2}(?:\.\d+)?)\s+(?P<iv>\S+)\s+(?P<nums>.+)$")
_RE_LOOPS = re.compile(r"For loops:\s*(?P<loops>.*)$")

# block-device layout: (top word, bottom word) of the two header lines -> our column
_BLOCK_COLS = {
    ("i/o", "rate"): "rate",
    ("mb/sec", "1024**2"): "mbps",
    ("bytes", "i/o"): "bytes",
    ("read", "pct"): "read_pct",
    ("resp", "time"): "resp",
    ("read", "resp"): "read_resp",
    ("write", "resp"): "write_resp",
    ("resp", "max"): "resp_max",
    ("read", "max"): "read_max",
    ("write", "max"): "write_max",
    ("resp", "stddev"): "resp_std",
    ("queue", "depth"): "queue_depth",
    ("cpu%", "sys+u"): "cpu_total",
    ("cpu%", "sys"): "cpu_sys",
}


_TITLE = re.compile(r"<title>.*?</title>", re.I | re.S)


def _strip_html(text: str) -> list[str]:
    text = _TITLE.sub("", text)
    return [html.unescape(_TAG.sub("", line)) for line in split_lines(text)]


def _rd_info(rest: str) -> dict:
    info: dict = {}
    m = re.search(r"I/O rate:\s*([^;]+)", rest)
    if m:
        rate = m.group(1).strip()
        info["iorate"] = (
            "max" if "max" in rate.lower() else "curve" if "curve" in rate.lower() else rate
        )
    m = re.search(r"fwdrate=([^;.\s]+)", rest)
    if m:
        info["iorate"] = m.group(1)
    m = _RE_LOOPS.search(rest)
    if m and m.group("loops").strip().lower() != "none":
        for k, v in re.findall(r"(\w+)=(\S+)", m.group("loops")):
            info[k] = v
    return info


def _header_columns(top: str, bottom: str) -> list[str] | None:
    """Column names (after the interval column) from vdbench's two header lines, or None."""
    t_tokens = top.split()
    low = [t.lower().strip(".") for t in t_tokens]
    if "interval" not in low:
        return None
    idx = low.index("interval")
    rest_top = [t.lower() for t in t_tokens[idx + 1 :]]
    bottom_tokens = bottom.split()
    if any(t.startswith(".") or t.endswith(".") for t in t_tokens[idx + 1 :]):
        return _fs_columns(top, bottom)
    if len(rest_top) != len(bottom_tokens):
        return None
    cols = []
    for a, b in zip(rest_top, bottom_tokens, strict=True):
        cols.append(_BLOCK_COLS.get((a, b.lower()), f"{a}_{b.lower()}"))
    return cols


def _fs_columns(top: str, bottom: str) -> list[str]:
    """File-system layout: dotted group titles (``.ReqstdOps...``) span the bottom words under
    them; each bottom word joins the title it overlaps most."""
    spans = [(m.start(), m.end(), m.group().strip(".").lower()) for m in re.finditer(r"\S+", top)]
    cols = []
    for m in re.finditer(r"\S+", bottom):
        b0, b1 = m.start(), m.end()
        best, best_ov = None, -1
        for s0, s1, title in spans:
            ov = min(b1, s1) - max(b0, s0)
            if ov > best_ov:
                best, best_ov = title, ov
        cols.append(f"{best}_{m.group().lower()}")
    # the interval column has no bottom word: drop titles left of the first bottom word
    return cols


def _fs_map(cols: list[str]) -> dict:
    """File-system names -> the block layout's names where they mean the same."""
    ren = {
        "reqstdops_rate": "rate",
        "reqstdops_resp": "resp",
        "read_pct": "read_pct",
        "read_rate": "read_rate",
        "read_resp": "read_resp",
        "write_rate": "write_rate",
        "write_resp": "write_resp",
        "mb/sec_total": "mbps",
        "xfer_size": "bytes",
        "cpu%_total": "cpu_total",
        "cpu%_sys": "cpu_sys",
    }
    return {c: ren.get(c, c) for c in cols}


def _row_values(nums: str, path, line) -> list[float | None]:
    out: list[float | None] = []
    for tok in nums.split():
        if tok.lower() in ("n/a", "-"):
            out.append(None)
        else:
            out.append(num(tok, path, line, "vdbench column", nonneg=True))
    return out


def _results_from_row(row: dict, params: dict, source: str) -> Results:
    res = Results()
    rate = row.get("rate")
    res.iops = rate
    extra: dict = {}
    if row.get("mbps") is not None:
        res.bandwidth_Bps = row["mbps"] * 1024.0**2
    elif row.get("mb/sec_read") is not None:
        res.bandwidth_Bps = ((row.get("mb/sec_read") or 0) + (row.get("mb/sec_write") or 0)) * (
            1024.0**2
        )
    pct = row.get("read_pct")
    if rate is not None:
        if row.get("read_rate") is not None:
            res.read_iops = row["read_rate"]
            res.write_iops = row.get("write_rate")
        elif pct is not None:
            res.read_iops = rate * pct / 100.0
            res.write_iops = rate - res.read_iops
    busy = bool(rate)
    if busy:
        ms = 1e-3
        if row.get("resp") is not None:
            res.lat_mean_s = row["resp"] * ms
        if row.get("read_resp") is not None and (res.read_iops or 0) > 0:
            res.read_lat_mean_s = row["read_resp"] * ms
        if row.get("write_resp") is not None and (res.write_iops or 0) > 0:
            res.write_lat_mean_s = row["write_resp"] * ms
        maxes = [row.get(k) for k in ("resp_max", "read_max", "write_max") if row.get(k)]
        if maxes:
            res.lat_max_s = max(maxes) * ms
        if row.get("resp_std") is not None:
            extra["lat_stddev_s"] = row["resp_std"] * ms
        if row.get("queue_depth") is not None:
            res.qd_mean = row["queue_depth"]
    if row.get("cpu_total") is not None:
        extra["cpu_total_pct"] = row["cpu_total"]
    if row.get("cpu_sys") is not None:
        extra["cpu_sys_pct"] = row["cpu_sys"]
    for k, v in row.items():
        if k.endswith("_rate") and k not in ("read_rate", "write_rate") and v:
            res.counters[k] = v
    p = dict(params)
    if row.get("bytes"):
        p["block_size_bytes"] = row["bytes"]
    p["source"] = source
    res.params = p
    res.extra = extra
    return res


def _point_params(rd: str, info: dict) -> dict:
    p: dict = {"rd": rd}
    if rd.lower().startswith(("format", "sd_format")) or rd.lower().endswith("_format"):
        p["format"] = True
    threads = info.get("threads")
    if threads is not None:
        try:
            t = int(float(threads))
            p["threads"] = t
            p["numjobs"] = 1
            p["iodepth"] = t
        except ValueError:
            pass
    if "iorate" in info:
        p["iorate"] = info["iorate"]
    for k in ("xfersize", "rdpct", "seekpct"):
        if k in info:
            p[k] = info[k]
    return p


def _average(rows: list[dict]) -> tuple[dict, str]:
    use = rows[1:] if len(rows) > 1 else rows
    keys = {k for r in use for k in r}
    out = {}
    for k in keys:
        vals = [r[k] for r in use if r.get(k) is not None]
        if vals:
            out[k] = max(vals) if k.endswith("max") else sum(vals) / len(vals)
    how = f"mean of intervals {2 if len(rows) > 1 else 1}-{len(rows)} (no avg row)"
    return out, how


def read_vdbench(path: str | os.PathLike, intervals: bool = False) -> Curve:
    """vdbench output -> a Curve: ``summary.html``, ``totals.html``, host/SD reports,
    ``flatfile.html``, ``histogram.html`` or plain text lines copied from any of them.

    Runs that were still going (no ``avg_`` row) give the mean of their intervals; an aborted
    run with no data at all raises TraceFormatError.
    """
    text = read_text(path)
    lines = _strip_html(text)
    source = Path(path).name
    for ln in lines[:400]:
        toks = ln.split()
        if "tod" in toks and "Run" in toks and "Interval" in toks:
            return _read_flatfile(path, lines, source, intervals)
        if "min(ms)" in toks and "max(ms)" in toks:
            return _read_histogram(path, lines, source)
    return _read_report(path, lines, source, intervals)


def _read_report(path, lines: list[str], source: str, intervals: bool) -> Curve:
    runs: list[dict] = []  # {"rd", "info", "rows": [(line, row)], "avg": row | None}
    cols: list[str] | None = None
    current: dict | None = None
    prev = ""
    for i, line in enumerate(lines, 1):
        s = line.strip()
        m = _RE_START.search(s)
        if m:
            current = {
                "rd": m.group("rd"),
                "info": _rd_info(m.group("rest")),
                "rows": [],
                "avg": None,
                "line": i,
            }
            runs.append(current)
            prev = line
            continue
        low = prev.lower()
        if "interval" in low and s and not _RE_ROW.match(line):
            c = _header_columns(prev, line)
            if c is not None:
                cols = (
                    c
                    if not any(x.startswith("reqstdops") for x in c)
                    else list(_fs_map(c).values())
                )
        prev = line
        m = _RE_ROW.match(line)
        if not m:
            continue
        iv = m.group("iv")
        if not (iv.isdigit() or iv.startswith("avg_")):
            continue  # std_, max_ summary rows, "Vdbench execution completed" ...
        if cols is None:
            raise TraceFormatError(
                path,
                i,
                "vdbench data row before any column header (expected the two "
                "'interval  i/o  MB/sec ...' header lines)",
            )
        vals = _row_values(m.group("nums"), path, i)
        if len(vals) != len(cols):
            raise TraceFormatError(
                path, i, f"vdbench row has {len(vals)} values, the header {len(cols)} columns"
            )
        row = dict(zip(cols, vals, strict=True))
        if current is None or current["avg"] is not None:
            # rows after a run's avg_ row (or before any "Starting RD=" line) start a new run
            rd, info = (current["rd"], current["info"]) if current else ("run", {})
            current = {"rd": rd, "info": info, "rows": [], "avg": None, "line": i}
            runs.append(current)
        if iv.startswith("avg_"):
            current["avg"] = row
            current["avg_label"] = iv
        else:
            current["rows"].append((int(iv), row))
    points = []
    for run in runs:
        params = _point_params(run["rd"], run["info"])
        if intervals:
            for n, row in run["rows"]:
                r = _results_from_row(row, {**params, "interval": n}, source)
                points.append(r)
            continue
        if run["avg"] is not None:
            r = _results_from_row(run["avg"], params, source)
            r.extra["averaged"] = run["avg_label"]
        elif run["rows"]:
            row, how = _average([row for _, row in run["rows"]])
            r = _results_from_row(row, params, source)
            r.extra["averaged"] = how
        else:
            continue
        r.extra["intervals"] = len(run["rows"])
        points.append(r)
    if not points:
        raise TraceFormatError(
            path,
            None,
            "vdbench output holds no interval or avg_ rows: the run aborted or had "
            "not started (look at its logfile.html / errorlog.html)",
        )
    return Curve(points, label=source)


def _read_flatfile(path, lines: list[str], source: str, intervals: bool) -> Curve:
    header: list[str] | None = None
    runs: list[dict] = []
    current: dict | None = None
    for i, line in enumerate(lines, 1):
        toks = line.split()
        if not toks or toks[0].startswith("*"):
            continue
        if header is None:
            if "tod" in toks and "Run" in toks:
                header = toks
            continue
        if len(toks) != len(header):
            raise TraceFormatError(
                path, i, f"flatfile row has {len(toks)} columns, the header {len(header)}"
            )
        rec = dict(zip(header, toks, strict=True))
        run, iv = rec["Run"], rec["Interval"]
        row: dict = {}
        for k, v in rec.items():
            if k in ("tod", "Run", "Interval", "timestamp", "version"):
                continue
            if v.lower() == "n/a":
                row[k] = None
                continue
            try:
                row[k] = float(v)
            except ValueError:
                raise TraceFormatError(
                    path, i, f"flatfile {k}: expected a number, got {v!r}"
                ) from None
        mapped = {
            "rate": row.get("rate"),
            "mbps": row.get("MB/sec"),
            "bytes": row.get("bytes/io", row.get("Xfersize")),
            "read_pct": row.get("read%"),
            "resp": row.get("resp"),
            "read_resp": row.get("read_resp", row.get("Read_resp")),
            "write_resp": row.get("write_resp", row.get("Write_resp")),
            "read_rate": row.get("Read_rate"),
            "write_rate": row.get("Write_rate"),
            "resp_max": row.get("resp_max"),
            "resp_std": row.get("resp_std"),
            "queue_depth": row.get("queue_depth"),
            "cpu_total": row.get("cpu_used"),
            "cpu_sys": row.get("cpu_kernel"),
        }
        mapped = {k: v for k, v in mapped.items() if v is not None}
        info = {}
        if row.get("threads") is not None:
            info["threads"] = row["threads"]
        if row.get("reqrate") is not None:
            rq = row["reqrate"]
            info["iorate"] = "max" if rq >= 999988 else rq
        if row.get("xfersize"):
            info["xfersize"] = row["xfersize"]
        new = (
            current is None
            or current["rd"] != run
            or current["done"]
            or (iv.isdigit() and current["rows"] and int(iv) <= current["rows"][-1][0])
        )
        if new:
            current = {"rd": run, "info": info, "rows": [], "avg": None, "done": False}
            runs.append(current)
        if iv.startswith("avg_"):
            current["avg"] = mapped
            current["avg_label"] = iv
            current["done"] = True
        elif iv.isdigit():
            current["rows"].append((int(iv), mapped))
    if header is None:
        raise TraceFormatError(path, None, "vdbench flatfile without its 'tod Run Interval' header")
    points = []
    for run in runs:
        params = _point_params(run["rd"], run["info"])
        if intervals:
            points += [
                _results_from_row(row, {**params, "interval": n}, source) for n, row in run["rows"]
            ]
            continue
        if run["avg"] is not None:
            r = _results_from_row(run["avg"], params, source)
            r.extra["averaged"] = run["avg_label"]
        elif run["rows"]:
            row, how = _average([row for _, row in run["rows"]])
            r = _results_from_row(row, params, source)
            r.extra["averaged"] = how
        else:
            continue
        r.extra["intervals"] = len(run["rows"])
        points.append(r)
    if not points:
        raise TraceFormatError(path, None, "vdbench flatfile holds no data rows")
    return Curve(points, label=source)


def _read_histogram(path, lines: list[str], source: str) -> Curve:
    """histogram.html: per run, the "Reads and writes" bucket table -> I/O count, approximate
    mean (bucket midpoints) and percentiles (linear within a bucket)."""
    runs: list[dict] = []
    current: dict | None = None
    table: str | None = None
    row_re = re.compile(r"^\s*([\d.]+)\s*<\s*(\S+)\s+([\d,]+)\s+[\d.]+\s+[\d.]+")
    for i, line in enumerate(lines, 1):
        m = _RE_START.search(line)
        if m:
            current = {"rd": m.group("rd"), "info": _rd_info(m.group("rest")), "buckets": []}
            runs.append(current)
            table = None
            continue
        s = line.strip()
        if s.endswith(":") and not s.startswith("min("):
            table = s[:-1].lower()
            continue
        m = row_re.match(line)
        if m and current is not None and table == "reads and writes":
            lo = num(m.group(1), path, i, "bucket min", nonneg=True)
            hi_s = m.group(2)
            hi = None if hi_s == "max" else num(hi_s, path, i, "bucket max", nonneg=True)
            cnt = num(m.group(3).replace(",", ""), path, i, "bucket count", nonneg=True)
            current["buckets"].append((lo, hi, cnt))
    points = []
    for run in runs:
        b = run["buckets"]
        total = sum(c for _, _, c in b)
        if not b or total <= 0:
            continue
        res = Results()
        res.ios = int(total)
        mids = [(lo + (hi if hi is not None else lo)) / 2.0 for lo, hi, _ in b]
        res.lat_mean_s = sum(m * c for m, (_, _, c) in zip(mids, b, strict=True)) / total * 1e-3
        last = max(j for j, (_, _, c) in enumerate(b) if c > 0)
        res.lat_max_s = (b[last][1] if b[last][1] is not None else b[last][0]) * 1e-3
        pcts = {}
        for p, fname in PCT_FIELDS.items():
            target = total * p / 100.0
            cum = 0.0
            for lo, hi, c in b:
                if c > 0 and cum + c >= target:
                    top = hi if hi is not None else lo
                    v = (lo + (top - lo) * (target - cum) / c) * 1e-3
                    setattr(res, fname, v)
                    pcts[pct_key(p)] = v
                    break
                cum += c
        res.params = {**_point_params(run["rd"], run["info"]), "source": source}
        res.extra = {"percentiles_s": pcts, "percentiles_from": "histogram buckets (approximate)"}
        points.append(res)
    if not points:
        raise TraceFormatError(path, None, "vdbench histogram report holds no counts")
    return Curve(points, label=source)


# ------------------------------------------------------------------------------------------
# parameter files
# ------------------------------------------------------------------------------------------


def _split_top(s: str) -> list[str]:
    """Split on commas outside parentheses."""
    out, depth, cur = [], 0, []
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        if ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return [x.strip() for x in out if x.strip()]


def _listval(v: str) -> list[str]:
    v = v.strip()
    if v.startswith("(") and v.endswith(")"):
        v = v[1:-1]
    return [x.strip() for x in v.split(",") if x.strip()]


def _expand_names(items: list[str], defined: list[str]) -> list[str]:
    """sd=(sd1,sd2), sd=sd*, sd=(sd101-sd132) -> names (matched against the definitions, or
    generated from a range when nothing was defined)."""
    out: list[str] = []
    for it in items:
        m = re.fullmatch(r"([A-Za-z_.]*?)(\d+)-\1?(\d+)", it)
        if m and "*" not in it:
            prefix, a, b = m.group(1), int(m.group(2)), int(m.group(3))
            out += [f"{prefix}{k}" for k in range(min(a, b), max(a, b) + 1)]
            continue
        if any(c in it for c in "*?"):
            out += [d for d in defined if fnmatch.fnmatchcase(d, it)]
        else:
            out.append(it)
    seen = set()
    return [x for x in out if not (x in seen or seen.add(x))]


def _loop_values(v: str, is_size: bool) -> list[str]:
    """for-loop values: (1,2,4), (1-64,d) doubling, (1-10,2) stepping, or one value."""
    items = _listval(v)
    conv = parse_size if is_size else float
    if len(items) == 2 and "-" in items[0] and not items[0].startswith("-"):
        lo_s, hi_s = items[0].split("-", 1)
        lo, hi = conv(lo_s), conv(hi_s)
        out = []
        x = lo
        if items[1].lower() == "d":
            while x <= hi and len(out) < 1000:
                out.append(x)
                x *= 2
        else:
            step = conv(items[1])
            if step <= 0:
                raise ValueError(f"loop step must be positive in {v!r}")
            while x <= hi + 1e-9 and len(out) < 1000:
                out.append(x)
                x += step
        return [str(int(o)) if float(o).is_integer() else str(o) for o in out]
    if len(items) == 1 and "-" in items[0] and not items[0].startswith("-"):
        lo_s, hi_s = items[0].split("-", 1)
        lo, hi = conv(lo_s), conv(hi_s)
        return [str(int(x)) for x in range(int(lo), int(hi) + 1)]
    return items


def _xfer_dist(v: str) -> list[tuple[float, float]]:
    """xfersize=4k | (4k,25,8k,75) | (512,64k,4k) min,max,align range -> [(bytes, weight)]."""
    items = _listval(v)
    if len(items) == 1:
        return [(parse_size(items[0]), 100.0)]
    if len(items) == 3:
        lo, hi = parse_size(items[0]), parse_size(items[1])
        return [(lo, 50.0), (hi, 50.0)]
    if len(items) % 2:
        raise ValueError(f"xfersize {v!r}: expected size,percent pairs")
    return [(parse_size(items[k]), float(items[k + 1])) for k in range(0, len(items), 2)]


def _seek_random(v: str | None) -> float:
    if v is None:
        return 1.0  # vdbench default seekpct=100
    s = v.strip().lower()
    if s in ("seq", "sequential", "eof", "0"):
        return 0.0
    if s in ("rand", "random"):
        return 1.0
    try:
        return min(1.0, max(0.0, float(s) / 100.0))
    except ValueError:
        return 1.0


def read_vdbench_parm(path: str | os.PathLike) -> WorkloadList:
    """A vdbench parameter file (or ``parmfile.html``) -> ``[(name, Workload), ...]``, one per
    run point: each ``rd=`` expanded over its ``forthreads``/``forxfersize``/``forrdpct``/
    ``forseekpct``/``foriorate`` loops (the name then lists the loop values).

    Mapping: the run's workload definitions (``wd=``, or ``fwd=`` for file systems) are
    combined by ``skew`` (rdpct averaged, xfersize distributions merged into ``bssplit``,
    random when most of the mix is); ``threads`` (loop value, else the rd's, else the SDs',
    else vdbench's default 8) is per storage definition, so ``iodepth`` = threads and
    ``numjobs`` = the number of SDs the run touches; a numeric ``iorate`` makes an open loop
    with Poisson arrivals (vdbench's default). ``ignored`` lists parameters that had no
    effect, ``notes`` the approximations.
    """
    text = read_text(path)
    raw_lines = _strip_html(text)
    stmts: list[tuple[int, str]] = []
    for i, line in enumerate(raw_lines, 1):
        s = line.strip()
        if not s or s[0] in "*#/":
            continue
        s = re.sub(r"\s+#.*$", "", s).strip()
        if s.startswith(",") and stmts:
            ln, prev = stmts[-1]
            stmts[-1] = (ln, prev + s)
            continue
        stmts.append((i, s))
    defs: dict[str, list] = {k: [] for k in ("sd", "wd", "rd", "fsd", "fwd", "hd")}
    defaults: dict[str, dict] = {k: {} for k in defs}
    general: dict = {}
    for ln, s in stmts:
        parts = _split_top(s)
        if not parts:  # a statement of separators only (a lone ',')
            continue
        kv = {}
        for part in parts:
            k, sep, v = part.partition("=")
            kv[k.strip().lower()] = v.strip() if sep else ""
        first = parts[0].partition("=")[0].strip().lower()
        if first in defs:
            name = kv[first]
            if name.lower() == "default":
                defaults[first].update({k: v for k, v in kv.items() if k != first})
                continue
            defs[first].append((name, ln, {**defaults[first], **kv}))
        else:
            general.update(kv)
    if not defs["rd"]:
        raise TraceFormatError(path, None, "expected vdbench run definitions (rd=...); found none")
    sd_names = [n for n, _, _ in defs["sd"]]
    sds = {n: o for n, _, o in defs["sd"]}
    wds = {n: o for n, _, o in defs["wd"]}
    fwds = {n: o for n, _, o in defs["fwd"]}
    out = WorkloadList()
    for rd_name, ln, rd in defs["rd"]:
        try:
            items = _rd_points(rd_name, rd, wds, fwds, sds, sd_names)
        except (UnitError, ValueError, KeyError) as exc:
            raise TraceFormatError(path, ln, f"rd={rd_name}: {exc}") from None
        for name, kw, ignored, notes in items:
            try:
                wl = Workload(**kw)
            except SpecError as exc:
                raise TraceFormatError(path, ln, f"rd={rd_name}: {exc}") from None
            out.append((name, wl))
            out.ignored[name] = ignored
            out.notes[name] = notes
    if general:
        out.ignored["(general)"] = sorted(general)
    return out


_RD_USED = {
    "rd",
    "wd",
    "fwd",
    "sd",
    "iorate",
    "fwdrate",
    "threads",
    "forthreads",
    "forxfersize",
    "forrdpct",
    "forseekpct",
    "foriorate",
    "forfwdrate",
    "forxf",
}
_LOOPS = {
    "forthreads",
    "forxfersize",
    "forxf",
    "forrdpct",
    "forseekpct",
    "foriorate",
    "forfwdrate",
}
_WD_USED = {
    "wd",
    "sd",
    "xfersize",
    "xf",
    "rdpct",
    "seekpct",
    "skew",
    "fwd",
    "fsd",
    "fileio",
    "threads",
}


def _rd_points(rd_name, rd, wds, fwds, sds, sd_names):
    notes: list[str] = []
    ignored = sorted(k for k in rd if k not in _RD_USED)
    if "wd" in rd:
        names = _expand_names(_listval(rd["wd"]), list(wds))
        chosen = [(n, wds[n]) for n in names if n in wds]
        missing = [n for n in names if n not in wds]
        if missing or not chosen:
            raise ValueError(f"workload definition(s) {', '.join(missing) or rd['wd']} not defined")
        file_system = False
    elif "fwd" in rd:
        names = _expand_names(_listval(rd["fwd"]), [n for n in fwds if n != "format"])
        chosen = [(n, fwds[n]) for n in names if n in fwds]
        if not chosen:
            raise ValueError(f"file-system workload(s) {rd['fwd']} not defined")
        file_system = True
    else:
        raise ValueError("expected wd= or fwd= in the run definition")
    for _, o in chosen:
        ignored += [k for k in o if k not in _WD_USED]
    ignored = sorted(set(ignored))
    # storage definitions the run touches
    if file_system:
        n_sd = 1
    else:
        sd_items = (
            _listval(rd["sd"])
            if "sd" in rd
            else [x for _, o in chosen for x in _listval(o.get("sd", "*"))]
        )
        used = _expand_names(sd_items, sd_names)
        used = [u for u in used if u in sds] if sds else used
        if not used:
            notes.append("no storage definitions matched: one SD assumed")
        n_sd = max(1, len(used))
        sd_threads = {sds[u].get("threads") for u in used if u in sds and sds[u].get("threads")}
        sd_size = next((sds[u].get("size") for u in used if u in sds and sds[u].get("size")), None)
    loops = [(k, v) for k, v in rd.items() if k in _LOOPS]
    axes = []
    for k, v in loops:
        axes.append([(k[3:], x) for x in _loop_values(v, k in ("forxfersize", "forxf"))])
    combos = list(itertools.product(*axes)) if axes else [()]
    points = []
    for combo in combos:
        over = dict(combo)
        kw: dict = {}
        # threads
        if "threads" in over:
            threads = int(float(over["threads"]))
        elif rd.get("threads"):
            threads = int(float(rd["threads"]))
        elif file_system and any(o.get("threads") for _, o in chosen):
            threads = int(float(next(o["threads"] for _, o in chosen if o.get("threads"))))
        elif not file_system and sd_threads:
            threads = int(float(sorted(sd_threads)[0]))
        else:
            threads = 8
            notes.append("threads not given: vdbench's default 8")
        kw["iodepth"] = threads
        kw["numjobs"] = n_sd
        # mix of workload definitions, weighted by skew
        skews = [o.get("skew") for _, o in chosen]
        given = sum(float(s) for s in skews if s)
        blanks = sum(1 for s in skews if not s)
        rest = max(0.0, 100.0 - given) / blanks if blanks else 0.0
        weights = [float(s) if s else rest for s in skews]
        if sum(weights) <= 0:
            weights = [1.0] * len(chosen)
        tw = sum(weights)
        rdpct = 0.0
        rand = 0.0
        sizes: dict[float, float] = {}
        for w, (_, o) in zip(weights, chosen, strict=True):
            pct = float(over.get("rdpct", o.get("rdpct", "100")))
            rdpct += w / tw * pct
            if file_system:
                seq = o.get("fileio", "random").lower().startswith("seq")
                rand += w / tw * (0.0 if seq else 1.0)
            else:
                rand += w / tw * _seek_random(over.get("seekpct", o.get("seekpct")))
            xf = over.get("xfersize") or over.get("xf") or o.get("xfersize") or o.get("xf")
            dist = _xfer_dist(xf) if xf else [(4096.0, 100.0)]
            dt = sum(p for _, p in dist)
            for size, p in dist:
                sizes[size] = sizes.get(size, 0.0) + w / tw * p / dt
        random_io = rand >= 0.5
        if 0.001 < rand < 0.999:
            notes.append(
                f"{rand:.0%} of the mix is random: simulated as "
                f"{'random' if random_io else 'sequential'}"
            )
        if rdpct >= 100:
            kw["rw"] = "randread" if random_io else "read"
        elif rdpct <= 0:
            kw["rw"] = "randwrite" if random_io else "write"
        else:
            kw["rw"] = "randrw" if random_io else "rw"
            kw["rwmixread"] = round(rdpct, 6)
        if len(sizes) == 1:
            kw["block_size_bytes"] = next(iter(sizes))
        else:
            kw["bssplit"] = tuple((s, w * 100.0) for s, w in sorted(sizes.items()))
            kw["block_size_bytes"] = min(sizes)
        rate = over.get("iorate", rd.get("iorate", rd.get("fwdrate", "max")))
        if rate and rate.lower() not in ("max", "curve", "uncontrolled"):
            kw["rate_iops"] = float(rate)
            kw["arrival"] = "poisson"
        elif rate and rate.lower() == "curve":
            notes.append("iorate=curve runs several rates: the uncontrolled (max) one is given")
        if not file_system and sd_size:
            kw["span_bytes"] = parse_size(sd_size)
        label = rd_name
        if combo:
            label += " " + " ".join(f"{k}={v}" for k, v in combo)
        points.append((label, kw, ignored, list(dict.fromkeys(notes))))
    return points

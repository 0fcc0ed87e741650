"""fio: JSON, normal (text) and terse output, per-interval logs, histogram logs and job files.

Conventions, whatever the fio version:

* One :class:`Results` per job. fio prints one ``jobs[]`` entry per job clone unless
  ``group_reporting`` is set, in which case it prints one per group; the clones of one job
  (same group and name) are summed into one point by default (``merge="job"``). Use
  ``merge="group"`` to sum every job of a stonewall group, or ``merge="none"`` to keep each
  entry.
* ``lat_*`` is fio's total latency (slat + clat). Percentiles come from ``lat`` percentiles when
  fio printed them (``lat_percentiles=1``) and from ``clat`` percentiles otherwise; ``extra``
  says which (``percentiles_from``). A read/write mix gets mixture percentiles (approximate).
* fio 2.x prints ``clat``/``lat`` in usec, 3.x ``clat_ns``/``lat_ns`` in nsec; ``bw`` is KiB/s in
  both. Everything is converted to seconds, bytes and bytes/s.
* ``util``, ``aqu_sz`` and ``block_iops`` come from fio's disk statistics (``util`` as a
  fraction; ``aqu_sz`` = ``in_queue`` ticks / run time), attached only when the point is the
  whole report (one group, one job), since the disk counters cover the whole run; they are in
  ``extra["disk_util"]`` (JSON) or ``extra["disk_stats"]`` (text) either way.
* ``params`` carries the workload descriptors fio reports: ``jobname``, ``groupid``, ``rw``,
  ``block_size_bytes``, ``iodepth`` (1 for synchronous engines, whatever was asked),
  ``numjobs``, ``ioengine``, ``rwmixread``, ``fio_version`` and ``source``.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..results import Curve, Results
from ..spec import SpecError
from ..units import UnitError, parse_size, parse_time
from ..workload import Workload
from ._common import (
    PCT_FIELDS,
    DirStats,
    WorkloadList,
    fill_from_dirs,
    line_at,
    mix_quantiles,
    num,
    num_suffixed,
    pct_key,
    read_text,
    split_lines,
)
from .errors import TraceFormatError

__all__ = [
    "read_fio_json",
    "read_fio_text",
    "read_fio_terse",
    "read_fio_log",
    "summarize_latency_log",
    "read_fio_hist_log",
    "summarize_hist_log",
    "read_fio_job",
    "FioJobList",
    "SYNC_ENGINES",
]

# engines that complete each I/O before issuing the next: fio ignores iodepth for them
SYNC_ENGINES = frozenset({"sync", "psync", "vsync", "pvsync", "pvsync2", "mmap", "splice"})
_DIRS = ("read", "write", "trim")
#: ``unified_rw_reporting=mixed`` (or 1): fio reports a job's reads and writes as this one
#: direction, with no split between them
_MIXED = "mixed"
_DDIR_NAMES = {0: "read", 1: "write", 2: "trim", 3: "sync"}
_MERGES = ("job", "group", "none")


# ------------------------------------------------------------------------------------------
# shared: job options -> params, entries -> Results
# ------------------------------------------------------------------------------------------


def _opt_int(opts: dict, key: str) -> int | None:
    v = opts.get(key)
    if v is None or v == "":
        return None
    try:
        return int(float(str(v).strip()))
    except ValueError:
        return None


def _rw_mode(value) -> str | None:
    if value is None:
        return None
    rw = str(value).split(":", 1)[0].strip()
    return {"readwrite": "rw", "randrw": "randrw"}.get(rw, rw) or None


def _varying_sizes(opts: dict, rw: str | None) -> str | None:
    """The job's size option when its I/Os do not share one size, else None: a range
    (``bsrange=4k-64k``, ``bs=4k-64k``) or, for a job that reads and writes, a read size and a
    write size that differ (``bs=4k,64k``)."""
    rng = opts.get("bsrange") or opts.get("blocksize_range")
    if rng:
        return f"bsrange={rng}"
    text = str(opts.get("bs", opts.get("blocksize")) or "")
    parts = [q.strip() for q in text.split(",") if q.strip()]
    if any("-" in q and len({_first_size(x) for x in q.split("-")}) > 1 for q in parts):
        return f"bs={text}"
    both = rw in ("rw", "randrw", "readwrite", "trimwrite")
    if both and len(parts) > 1 and _first_size(parts[0]) != _first_size(parts[1]):
        return f"bs={text} (reads, writes)"
    return None


def _first_size(value) -> float | None:
    """fio bs values: "4k", "4k,64k" (read,write), "4k-64k" (a range: its lower end)."""
    if value is None or value == "":
        return None
    first = str(value).split(",", 1)[0].split("-", 1)[0].strip()
    try:
        return parse_size(first)
    except UnitError:
        return None


def open_loop_rate(read_cap: float | None, write_cap: float | None, read_fraction: float,
                   jobs: float) -> float | None:
    """The arrival rate of fio's ``rate_iops=R[,W]``: each job's caps per direction (None: no
    cap), combined as fio paces a job (the direction that reaches its cap first sets its
    pace), times the jobs; None when no cap applies to what the job does."""
    limits = ([read_cap / read_fraction] if read_fraction > 0 and read_cap else []) + \
        ([write_cap / (1.0 - read_fraction)] if read_fraction < 1 and write_cap else [])
    return min(limits) * jobs if limits else None


def _think_s(opts: dict) -> float | None:
    """fio's ``thinktime`` in seconds (microseconds when it has no unit, as in fio)."""
    text = str(opts.get("thinktime") or "").strip()
    if not text:
        return None
    try:
        return float(text) * 1e-6 if _is_float(text) else parse_time(text)
    except (UnitError, ValueError):
        return None


def _params_from_options(opts: dict) -> dict:
    p: dict = {}
    rw = _rw_mode(opts.get("rw", opts.get("readwrite")))
    if rw:
        p["rw"] = rw
    bs = _first_size(opts.get("bs", opts.get("blocksize")))
    varies = opts.get("bs_varies") or _varying_sizes(opts, rw)
    if opts.get("bssplit"):  # fio issues the split's sizes: a bs beside it is not used
        p["bssplit"] = str(opts["bssplit"])
    elif varies:  # no one size: the fit takes the bytes per I/O the run issued
        p["bs_varies"] = varies
    elif bs:
        p["block_size_bytes"] = bs
    span = _first_size(opts.get("size"))  # the region the job's offsets fall in
    if span:
        p["span_bytes"] = span
    # a rate-limited job (fio paces its issue, per job: reads[,writes]): an open loop
    rates = str(opts.get("rate_iops") or "").split(",")
    for key, text in zip(("rate_iops", "rate_iops_write"), rates[:2], strict=False):
        try:
            if text.strip():
                p[key] = float(text)
        except ValueError:
            pass
    if ("rate_iops" in p or "rate_iops_write" in p) and opts.get("rate_process"):
        p["rate_process"] = str(opts["rate_process"]).strip()
    engine = opts.get("ioengine")
    if engine:
        p["ioengine"] = str(engine)
    qd = _opt_int(opts, "iodepth")
    if qd is None and (rw or engine or bs):
        qd = 1  # fio's default, for a job whose options were reported
    if qd is not None:
        if engine in SYNC_ENGINES and qd != 1:
            p["iodepth_requested"] = qd
            qd = 1
        p["iodepth"] = qd
    think = _think_s(opts)
    if think and (p.get("iodepth") or 1) == 1 and (_opt_int(opts, "thinktime_blocks") or 1) == 1:
        # the job waits this long after each completion: a depth-1 job's think time (with
        # more in flight fio stalls the whole job every thinktime_blocks I/Os, which the
        # workload's per-slot think time is not; then the fit's host overhead takes it)
        p["thinktime_s"] = think
    mix = _opt_int(opts, "rwmixread")
    if mix is None and _opt_int(opts, "rwmixwrite") is not None:
        mix = 100 - _opt_int(opts, "rwmixwrite")
    if mix is not None:
        p["rwmixread"] = mix
    return p


@dataclass
class _Entry:
    """One job entry of one report, before merging."""

    name: str
    groupid: int
    report: int
    dirs: dict[str, DirStats]
    options: dict = field(default_factory=dict)
    clones: int = 1  # job clones this entry stands for (numjobs with group_reporting)
    qd_dist: dict = field(default_factory=dict)
    counters: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)
    line: int | None = None


def _merge_dir(parts: list[DirStats]) -> DirStats:
    if len(parts) == 1:
        return parts[0]
    out = DirStats(parts[0].name)
    out.iops = sum(d.iops for d in parts)
    bws = [d.bw_Bps for d in parts if d.bw_Bps is not None]
    out.bw_Bps = sum(bws) if bws else None
    ios = [d.ios for d in parts if d.ios is not None]
    out.ios = sum(ios) if ios else None
    rts = [d.runtime_s for d in parts if d.runtime_s]
    out.runtime_s = max(rts) if rts else None
    act = [d for d in parts if d.active]
    w = [d.weight for d in act]
    for attr in ("lat_mean_s", "clat_mean_s", "slat_mean_s"):
        vals = [getattr(d, attr) for d in act]
        if act and all(v is not None for v in vals) and sum(w) > 0:
            setattr(out, attr, sum(a * b for a, b in zip(w, vals, strict=True)) / sum(w))
    maxes = [d.lat_max_s for d in act if d.lat_max_s is not None]
    out.lat_max_s = max(maxes) if maxes else None
    for attr in ("clat_pcts", "lat_pcts"):
        comps = [(wi, getattr(d, attr)) for wi, d in zip(w, act, strict=True)]
        if comps and all(q for _, q in comps):
            probs = sorted({p for _, q in comps for p in q})
            setattr(out, attr, mix_quantiles(comps, probs))
    return out


def _qd_fraction(raw: dict, notes: dict) -> dict:
    """fio's "IO depths" percentages -> fractions keyed by the bucket's depth (``>=64`` -> 64).
    fio counts fsyncs as well, so the row can sum past 100 %: it is then renormalised."""
    out: dict = {}
    for k, v in raw.items():
        key = str(k).strip().lstrip(">=")
        try:
            depth = int(float(key))
        except ValueError:
            continue
        out[depth] = float(v) / 100.0
    total = sum(out.values())
    if total > 1.005:
        notes["qd_dist_renormalised_from"] = total
        out = {k: v / total for k, v in out.items()}
    return out


def _reported_dirs(present) -> tuple[str, ...]:
    """The directions of a job to read: read/write/trim, or fio's one "mixed" direction when
    the job reported reads and writes together (``unified_rw_reporting=mixed``). With
    ``=both`` fio writes the separate directions and the mixed one: the separate ones are read
    (the mixed one is their sum)."""
    if _MIXED in present and not any(d in present for d in ("read", "write")):
        return (_MIXED,)
    return _DIRS


def _entries_to_results(
    entries: list[_Entry], merge: str, source: str, version: str | None, disk: dict | None
) -> list[Results]:
    if merge not in _MERGES:
        raise ValueError(f"merge must be one of {', '.join(_MERGES)} (got {merge!r})")
    # how many entries share a (report, group, name): more than one means no group_reporting
    counts: dict = {}
    for e in entries:
        counts[(e.report, e.groupid, e.name)] = counts.get((e.report, e.groupid, e.name), 0) + 1
    groups: dict = {}
    for i, e in enumerate(entries):
        if merge == "job":
            key = (e.report, e.groupid, e.name)
        elif merge == "group":
            key = (e.report, e.groupid)
        else:
            key = (i,)
        groups.setdefault(key, []).append(e)
    n_groups = len({(e.report, e.groupid) for e in entries})
    out = []
    for members in groups.values():
        first = members[0]
        notes: dict = {}
        dirs = []
        for name in (*_DIRS, _MIXED):
            parts = [m.dirs[name] for m in members if name in m.dirs]
            if parts:
                dirs.append(_merge_dir(parts))
        if any(d.name == _MIXED for d in dirs):
            notes["directions"] = ("reads and writes reported together (fio "
                                   "unified_rw_reporting=mixed): no read/write split")
        res = Results()
        _check_latency(dirs, notes)
        fill_from_dirs(res, dirs, notes)
        params = _params_from_options(first.options)
        clones = 0
        for m in members:
            own = counts[(m.report, m.groupid, m.name)] == 1
            opt = _opt_int(m.options, "numjobs") or 1
            clones += max(m.clones, opt) if own else 1
        params["numjobs"] = clones
        depths = {_params_from_options(m.options).get("iodepth") for m in members}
        if len(depths) > 1:
            params.pop("iodepth", None)
            notes["iodepths_merged"] = sorted(d for d in depths if d is not None)
        params = {
            "jobname": first.name,
            "groupid": first.groupid,
            **params,
        }
        if version:
            params["fio_version"] = version
        params["source"] = source
        res.params = params
        # qd distribution: I/O-weighted over merged entries
        if all(m.qd_dist for m in members):
            wts = [sum(d.weight for d in m.dirs.values()) or 1.0 for m in members]
            keys = sorted({k for m in members for k in m.qd_dist})
            res.qd_dist = {
                k: sum(w * m.qd_dist.get(k, 0.0) for w, m in zip(wts, members, strict=True))
                / sum(wts)
                for k in keys
            }
        counters: dict = {}
        for m in members:
            for k, v in m.counters.items():
                counters[k] = counters.get(k, 0) + v
        res.counters = counters
        extra: dict = {}
        for m in members:
            for k, v in m.extra.items():
                extra.setdefault(k, v)
        extra.update(notes)
        if len(members) > 1:
            extra["merged_entries"] = len(members)
        rts = [d.runtime_s for d in dirs if d.runtime_s]
        if rts:
            extra["runtime_s"] = max(rts)
        if disk and n_groups == 1 and len(groups) == 1:
            # the disk counters cover the whole run: they belong to a point only when it is
            # the whole run
            for k in ("util", "aqu_sz", "block_iops"):
                if disk.get(k) is not None:
                    setattr(res, k, disk[k])
            extra["disk"] = disk.get("name")
        res.extra = extra
        out.append(res)
    return out


def _check_latency(dirs: list[DirStats], notes: dict) -> None:
    """Drop latencies no run can have: a mean longer than the run itself (fio 2.1.11 prints
    such clock-garbage values)."""
    for d in dirs:
        if d.lat_mean_s is not None and d.runtime_s and d.lat_mean_s > d.runtime_s:
            notes.setdefault("discarded", []).append(
                f"{d.name} lat mean {d.lat_mean_s:.6g}s exceeds runtime {d.runtime_s:.6g}s"
            )
            d.lat_mean_s = None
            d.lat_max_s = None
            d.lat_pcts = {}
            if d.clat_mean_s is not None and d.clat_mean_s > d.runtime_s:
                d.clat_mean_s = None
                d.clat_pcts = {}


def _disk_summary(devs: list[dict], runtime_s: float | None) -> dict | None:
    """fio disk statistics of the first listed device (the one under the job) -> util,
    aqu_sz and block_iops. md devices carry ``aggr_*`` fields over their members."""
    if not devs:
        return None
    d = devs[0]
    out: dict = {"name": d.get("name")}
    util = d.get("util")
    if d.get("aggr_util") is not None and not util:
        util = d.get("aggr_util")
        in_queue = sum(float(x.get("in_queue") or 0) for x in devs[1:])
        out["util_from"] = "aggr_util (md members)"
    else:
        in_queue = float(d.get("in_queue") or 0)
    if util is not None:
        out["util"] = min(1.0, max(0.0, float(util) / 100.0))
    if runtime_s and runtime_s > 0:
        if in_queue > 0:
            out["aqu_sz"] = in_queue / 1000.0 / runtime_s
        ios = float(d.get("read_ios") or 0) + float(d.get("write_ios") or 0)
        if ios > 0:
            out["block_iops"] = ios / runtime_s
    return out


# ------------------------------------------------------------------------------------------
# JSON
# ------------------------------------------------------------------------------------------

_DOC_START = re.compile(r"^[ \t]*\{", re.M)


def _json_documents(text: str, path) -> list[tuple[int, dict]]:
    """Every top-level fio JSON document in ``text`` (with the line it starts on), skipping
    whatever surrounds them: warnings, shell prompts, a second run appended."""
    dec = json.JSONDecoder()  # duplicate keys: the last one wins, as fio's readers expect
    docs: list[tuple[int, dict]] = []
    first_error = None
    pos = 0
    while True:
        m = _DOC_START.search(text, pos)
        if not m:
            break
        start = m.end() - 1
        try:
            obj, end = dec.raw_decode(text, start)
        except json.JSONDecodeError as exc:
            if first_error is None:
                first_error = (line_at(text, exc.pos), exc.msg)
            pos = m.end()
            continue
        except RecursionError:
            raise TraceFormatError(path, line_at(text, start), "JSON nested too deeply") from None
        if isinstance(obj, dict) and "jobs" not in obj and isinstance(
                obj.get("client_stats"), list):
            obj = _client_doc(obj)
        if isinstance(obj, dict) and "jobs" in obj:
            docs.append((line_at(text, start), obj))
        elif isinstance(obj, dict) and first_error is None:
            first_error = (line_at(text, start), 'a JSON object without a "jobs" list')
        pos = end
    if not docs:
        if first_error:
            line, msg = first_error
            raise TraceFormatError(
                path, line, f'expected fio JSON with a "jobs" list; JSON error: {msg}'
            )
        raise TraceFormatError(path, None, 'expected fio JSON with a "jobs" list; found no JSON')
    return docs


def _client_doc(doc: dict) -> dict:
    """A report of fio's client/server mode (``fio --client=HOST``): its "client_stats" are
    the clients' jobs, each with its client's hostname, read as the report's jobs.

    fio closes a round of reports with their sum ("All clients") when there is more than one
    job; with ``--status-interval`` the list holds every round, the last the whole run. So the
    jobs read are the last round's (after the last sum that has any after it), or with no sum
    (one client, one job) each job's last report."""
    stats = [c for c in doc["client_stats"] if isinstance(c, dict)]
    rounds: list[list[dict]] = [[]]
    for c in stats:
        if c.get("jobname") == "All clients":
            rounds.append([])
        else:
            rounds[-1].append(c)
    if len(rounds) > 1:
        jobs = next(r for r in reversed(rounds) if r) if any(rounds) else []
    else:
        last: dict = {}
        for c in stats:
            last[(c.get("hostname"), c.get("port"), c.get("jobname"), c.get("groupid"))] = c
        jobs = list(last.values())
    return {**doc, "jobs": jobs}


def _jnum(d: dict, key: str, path, line, where: str, default=None) -> float | None:
    v = d.get(key, default)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float, str)):
        raise TraceFormatError(path, line, f"{where}.{key}: expected a number, got {v!r}")
    x = num(v, path, line, f"{where}.{key}")
    if x < 0:  # counts, rates, times: fio never writes a negative one
        raise TraceFormatError(path, line, f"{where}.{key}: expected a number >= 0, got {v!r}")
    return x


def _jpcts(obj, scale: float, path, line, where) -> dict[float, float]:
    if obj is None:
        return {}
    if not isinstance(obj, dict):
        raise TraceFormatError(path, line, f"{where}: expected an object of percentiles")
    out = {}
    for k, v in obj.items():
        try:
            p = float(k)
            x = float(v)
        except (TypeError, ValueError):
            raise TraceFormatError(
                path, line, f"{where}: percentile {k!r}: expected a number, got {v!r}"
            ) from None
        if p <= 0 or p > 100:  # fio pads unused slots with "0.00": 0
            continue
        if not (math.isfinite(x) and x >= 0):
            raise TraceFormatError(
                path, line, f"{where}: percentile {k!r}: expected a time >= 0, got {v!r}"
            )
        out[p] = x * scale
    return out


def _json_dir(name: str, d, path, line, where: str) -> DirStats:
    if not isinstance(d, dict):
        raise TraceFormatError(path, line, f"{where}: expected an object, got {type(d).__name__}")
    s = DirStats(name)
    s.iops = _jnum(d, "iops", path, line, where, 0.0) or 0.0
    if "bw_bytes" in d:
        s.bw_Bps = _jnum(d, "bw_bytes", path, line, where)
    elif "bw" in d:
        s.bw_Bps = (_jnum(d, "bw", path, line, where) or 0.0) * 1024.0  # KiB/s
    rt = _jnum(d, "runtime", path, line, where)
    s.runtime_s = rt / 1000.0 if rt else None
    if "total_ios" in d:
        s.ios = _jnum(d, "total_ios", path, line, where)
    elif s.runtime_s:
        s.ios = round(s.iops * s.runtime_s)
    sections = {}
    clat_max = None
    for base in ("slat", "clat", "lat"):
        if isinstance(d.get(base + "_ns"), dict):
            sections[base] = (d[base + "_ns"], 1e-9, f"{where}.{base}_ns")
        elif isinstance(d.get(base), dict):  # fio 2.x: usec
            sections[base] = (d[base], 1e-6, f"{where}.{base}")
    for base, (sec, scale, w) in sections.items():
        mean = _jnum(sec, "mean", path, line, w)
        mx = _jnum(sec, "max", path, line, w)
        pcts = _jpcts(sec.get("percentile"), scale, path, line, w + ".percentile")
        if base == "lat":
            s.lat_mean_s = None if mean is None else mean * scale
            s.lat_max_s = None if mx is None else mx * scale
            s.lat_pcts = pcts
        elif base == "clat":
            s.clat_mean_s = None if mean is None else mean * scale
            s.clat_pcts = pcts
            clat_max = None if mx is None else mx * scale
        else:
            s.slat_mean_s = None if mean is None else mean * scale
    if s.lat_mean_s is None and s.clat_mean_s is not None:
        s.lat_mean_s = s.clat_mean_s + (s.slat_mean_s or 0.0)
        s.lat_max_s = clat_max
    return s


def read_fio_json(path: str | os.PathLike, merge: str = "job") -> Curve:
    """fio ``--output-format=json`` (or ``json+``) output -> a Curve, one point per job.

    Tolerates text before the first ``{`` (warnings, ``fio: terminating on signal 2``),
    several JSON documents in one file (each a report; ``params["report"]`` numbers them when
    there is more than one), duplicate keys (the last wins) and both the fio 2.x (usec) and
    3.x (nsec) schemas. ``merge`` is ``"job"`` (default), ``"group"`` or ``"none"``; see the
    module documentation.
    """
    text = read_text(path)
    docs = _json_documents(text, path)
    docs, snapshots = _whole_runs(docs)
    source = Path(path).name
    points: list[Results] = []
    try:
        for rep, (line, doc) in enumerate(docs):
            points.extend(_json_report(rep, line, doc, len(docs), path, merge, source))
    except TraceFormatError as exc:
        # the readers below know the document's first line; point at the field instead
        exact = _locate(text, exc.line, exc.reason) if exc.line is not None else None
        if exact is None:
            raise
        raise TraceFormatError(exc.path, exact, exc.reason) from None
    if snapshots:
        for p in points:
            p.extra["status_snapshots"] = _SNAPSHOTS_NOTE.format(n=snapshots)
    return Curve(points, label=source)


_SNAPSHOTS_NOTE = ("{n} progress report(s) of --status-interval left out: each is the run so "
                   "far; the run's last report is its whole")


def _run_state(doc: dict) -> tuple | None:
    """(the jobs' names, the longest job runtime in ms, the I/Os done, the report's time in
    ms) of one JSON report, or None when it does not say them all."""
    jobs = doc.get("jobs")
    stamp = doc.get("timestamp_ms")
    if not isinstance(jobs, list) or not jobs or not isinstance(stamp, (int, float)):
        return None
    names, runtime, ios = [], 0.0, 0
    for job in jobs:
        if not isinstance(job, dict):
            return None
        names.append((job.get("jobname"), job.get("groupid")))
        rt = job.get("job_runtime")
        if not isinstance(rt, (int, float)):
            return None
        runtime = max(runtime, float(rt))
        for d in _reported_dirs(job):
            section = job.get(d)
            n = section.get("total_ios") if isinstance(section, dict) else None
            ios += n if isinstance(n, int) else 0
    return tuple(names), runtime, ios, float(stamp)


def _whole_runs(docs: list[tuple[int, dict]]) -> tuple[list[tuple[int, dict]], int]:
    """The reports of whole runs, and how many progress reports were left out.

    ``--status-interval`` makes fio append a report of the run so far every interval, the last
    one the whole run. A report continues the one before it when it has the same jobs, more
    runtime and no fewer I/Os, and was written about that much runtime later: less than its
    own runtime minus half the earlier one's after it (a second run appended could only be
    written after the whole of its own runtime)."""
    kept: list[tuple[int, dict]] = []
    dropped = 0
    prev = None
    for line, doc in docs:
        state = _run_state(doc)
        if prev is not None and state is not None and kept:
            names, rt, ios, stamp = state
            p_names, p_rt, p_ios, p_stamp = prev
            if (names == p_names and rt > p_rt and ios >= p_ios
                    and stamp - p_stamp < rt - p_rt / 2):
                kept.pop()
                dropped += 1
        kept.append((line, doc))
        prev = state
    return kept, dropped


_KEY_PATH = re.compile(r"^(jobs\[(\d+)\](?:\.[\w\"]+(?:\[\d+\])?)*)")


def _locate(text: str, doc_line: int, reason: str) -> int | None:
    """The line of the field a message names (``jobs[1].read.iops: ...``), found by walking
    the keys in order from the document's first line: a job object is found by its
    ``"jobname"``; None when the walk fails."""
    m = _KEY_PATH.match(reason)
    if not m:
        return None
    pos = 0
    for _ in range(doc_line - 1):
        pos = text.find("\n", pos) + 1
        if pos == 0:
            return None
    pos = text.find('"jobs"', pos)
    if pos < 0:
        return None
    for _ in range(int(m.group(2)) + 1):
        pos = text.find('"jobname"', pos + 1)
        if pos < 0:
            return None
    for key in m.group(1).split(".")[1:]:
        key = key.split("[")[0].strip('"')
        nxt = text.find(f'"{key}"', pos)
        if nxt < 0:
            return None
        pos = nxt
    return line_at(text, pos)


def _json_report(rep: int, line: int, doc: dict, ndocs: int, path, merge: str,
                 source: str) -> list[Results]:
    """One fio JSON document's points."""
    points: list[Results] = []
    jobs = doc.get("jobs")
    if not isinstance(jobs, list):
        raise TraceFormatError(path, line, 'expected fio JSON with a "jobs" list')
    version = doc.get("fio version")
    gopts = doc.get("global options") or {}
    if not isinstance(gopts, dict):
        raise TraceFormatError(path, line, '"global options": expected an object')
    entries = []
    max_rt = 0.0
    for j, job in enumerate(jobs):
        where = f"jobs[{j}]"
        if not isinstance(job, dict):
            raise TraceFormatError(path, line, f"{where}: expected an object")
        jopts = job.get("job options") or {}
        if not isinstance(jopts, dict):
            raise TraceFormatError(path, line, f'{where}."job options": expected an object')
        dirs = {}
        for name in _reported_dirs(job):
            if name in job:
                dirs[name] = _json_dir(name, job[name], path, line, f"{where}.{name}")
        if not dirs:
            raise TraceFormatError(
                path, line, f'{where}: expected "read"/"write" (or "mixed") sections in a '
                'fio job'
            )
        for dstat in dirs.values():
            max_rt = max(max_rt, dstat.runtime_s or 0.0)
        counters = {f"{k}_ios": int(v.ios) for k, v in dirs.items() if v.ios is not None}
        usr, sys_ = (_jnum(job, k, path, line, where) for k in ("usr_cpu", "sys_cpu"))
        if usr is not None and sys_ is not None:
            # the job's CPU time (user + system) in % of one CPU over its run; summed over
            # merged jobs it is the CPUs they kept busy (x 100)
            counters["cpu_pct"] = usr + sys_
        sync = job.get("sync")
        if isinstance(sync, dict) and sync.get("total_ios"):
            counters["sync_ios"] = int(sync["total_ios"])
            sync_mean = (sync.get("lat_ns") or {}).get("mean") if isinstance(
                sync.get("lat_ns"), dict) else None
            if isinstance(sync_mean, (int, float)) and sync_mean > 0:
                # the job's time in fsync (ns): a counter, so merged jobs sum it
                counters["sync_ns"] = round(sync_mean * int(sync["total_ios"]))
        extra = {}
        err = job.get("error")
        if err:
            counters["errors"] = 1
            extra["error"] = err
        qd: dict = {}
        if isinstance(job.get("iodepth_level"), dict):
            qd = _qd_fraction(job["iodepth_level"], extra)
        name = str(job.get("jobname", f"job{j}"))
        try:
            gid = int(job.get("groupid", 0))
        except (TypeError, ValueError):
            raise TraceFormatError(
                path, line, f"{where}.groupid: expected an integer, got {job['groupid']!r}"
            ) from None
        entries.append(
            _Entry(
                name=name,
                groupid=gid,
                report=rep,
                dirs=dirs,
                options={**gopts, **jopts},
                qd_dist=qd,
                counters=counters,
                extra=extra,
                line=line,
            )
        )
    if not entries:
        raise TraceFormatError(path, line, 'fio JSON "jobs" list is empty')
    devs = doc.get("disk_util")
    disk = None
    if isinstance(devs, list) and devs and all(isinstance(x, dict) for x in devs):
        disk = _disk_summary(devs, max_rt or None)
    pts = _entries_to_results(entries, merge, source, version, disk)
    if isinstance(devs, list) and devs:
        for p in pts:
            p.extra["disk_util"] = devs
    if ndocs == 1:
        for p in pts:
            p.params.pop("report", None)
    else:
        for p in pts:
            p.params["report"] = rep
    points.extend(pts)
    return points


# ------------------------------------------------------------------------------------------
# normal (human) output
# ------------------------------------------------------------------------------------------

_T_SCALE = {"nsec": 1e-9, "usec": 1e-6, "msec": 1e-3, "sec": 1.0}
_RE_DEF = re.compile(
    r"^(?P<name>\S.*?): \(g=(?P<g>\d+)\): rw=(?P<rw>[\w:]+), bs=(?P<bs>.*?), "
    r"ioengine=(?P<eng>[\w-]+), iodepth=(?P<qd>\d+)"
)
#: fio's client/server mode prefixes the lines a server sends with its host: "<host> a: (g=0)"
_RE_CLIENT = re.compile(r"^<[^<>\s]+> ")
_RE_VERSION = re.compile(r"^\s*fio-\d+\.\d+\S*\s*$")
_RE_JOB = re.compile(
    r"^(?P<name>\S.*?): \(groupid=(?P<g>\d+), jobs=(?P<jobs>\d+)\): err=\s*(?P<err>-?\d+)"
)
_RE_DIR3 = re.compile(
    r"^\s*(?P<dir>read|write|trim|mixed)\s*:\s*IOPS=(?P<iops>[\d.]+[kKmM]?),\s*"
    r"BW=(?P<bw>[\d.]+\S*?/s)"
    r"(?:\s*\([^)]*\))?\s*\((?P<io>[^/()]+)/(?P<rt>\d+)msec\)"
)
_RE_DIR2 = re.compile(
    r"^\s*(?P<dir>read|write|trim|mixed)\s*:\s*io=(?P<io>[^,]+),\s*bw=(?P<bw>[^,]+),\s*"
    r"iops=(?P<iops>[\d.]+[kKmM]?)\s*,\s*runt=\s*(?P<rt>\d+)msec"
)
_RE_LAT = re.compile(
    r"^\s*(?P<kind>slat|clat|lat|sync)\s*\((?P<unit>nsec|usec|msec|sec)\)\s*:\s*"
    r"min=\s*(?P<min>[^,]+),\s*max=\s*(?P<max>[^,]+),\s*avg=\s*(?P<avg>[^,]+),"
)
_RE_PCT_HDR = re.compile(
    r"^\s*(?P<kind>slat|clat|lat|sync) percentiles \((?P<unit>nsec|usec|msec|sec)\)\s*:"
)
_RE_PCT_ITEM = re.compile(r"([\d.]+)th=\[\s*([\d.]+[kKmM]?)\s*\]")
_RE_DEPTHS = re.compile(r"^\s*IO depths\s*:\s*(?P<rest>.*)$")
_RE_ISSUED = re.compile(r"^\s*issued\s*(?:rwts?|rwt)?\s*:\s*total=(?P<rest>\S+)")
_RE_DISK = re.compile(r"^\s*(?P<name>[\w./:-]+): ios=(?P<r>\d+)/(?P<w>\d+),(?P<rest>.*)$")
_SIZE_UNITS = {
    "b": 1.0,
    "kb": 1024.0,
    "kib": 1024.0,
    "mb": 1024.0**2,
    "mib": 1024.0**2,
    "gb": 1024.0**3,
    "gib": 1024.0**3,
    "tb": 1024.0**4,
    "tib": 1024.0**4,
}


def _fio_bytes(text: str, path, line, what: str) -> float:
    """fio amounts: "32708KB", "5120MiB", "1267MiB", "1752.1MB", "69.3GiB" (K = 1024; fio's
    decimal forms with a lower-case k, "kB", only appear in parentheses we do not read)."""
    m = re.fullmatch(r"\s*([\d.]+)\s*([KkMmGgTt]?i?B)?\s*", text)
    if not m:
        raise TraceFormatError(path, line, f"{what}: expected an amount such as 32708KB")
    unit = (m.group(2) or "B").lower()
    if unit == "kb" and m.group(2) == "kB":
        return float(m.group(1)) * 1000.0
    return float(m.group(1)) * _SIZE_UNITS.get(unit, 1.0)


def _fio_rate(text: str, path, line, what: str) -> float:
    text = text.strip()
    if not text.endswith("/s"):
        raise TraceFormatError(path, line, f"{what}: expected a bandwidth such as 949MiB/s")
    return _fio_bytes(text[:-2], path, line, what)


def _pid_of(line: str) -> str | None:
    m = re.search(r"\bpid=(\d+)", line)
    return m.group(1) if m else None


def _def_sizes_vary(bs: str, rw: str) -> bool:
    """True when a job definition line's sizes are not one size: a range (4096B-65536B), or
    a read size and a write size that differ for a job that does both."""
    pairs = re.findall(r"([\d.]+[KkMmGgTt]?i?B?)-([\d.]+[KkMmGgTt]?i?B?)", bs)
    try:
        sizes = [(parse_size(lo), parse_size(hi)) for lo, hi in pairs]
    except UnitError:
        return False
    if any(lo != hi for lo, hi in sizes[:2]):
        return True
    return rw in ("rw", "randrw", "readwrite") and len(sizes) > 1 and sizes[0] != sizes[1]


def _bs_from_def(bs: str, rw: str) -> float | None:
    """bs=(R) 4096B-4096B, (W) ... | bs=4K-4K/4K-4K/4K-4K -> the block size of the job's
    direction, when fixed."""
    pairs = re.findall(r"([\d.]+[KkMmGgTt]?i?B?)-([\d.]+[KkMmGgTt]?i?B?)", bs)
    if not pairs:
        return None
    idx = 1 if rw in ("write", "randwrite") and len(pairs) > 1 else 0
    lo, hi = pairs[idx]
    try:
        lo_b, hi_b = parse_size(lo), parse_size(hi)
    except UnitError:
        return None
    return lo_b if lo_b == hi_b else None


@dataclass
class _TextJob:
    name: str
    groupid: int
    clones: int
    err: int
    line: int
    pid: str | None = None
    dirs: dict = field(default_factory=dict)
    lat: dict = field(default_factory=dict)  # (dir, kind) -> (avg_s, max_s)
    pcts: dict = field(default_factory=dict)  # (dir, kind) -> {p: s}
    qd: dict = field(default_factory=dict)
    issued: dict = field(default_factory=dict)
    sync: dict = field(default_factory=dict)


@dataclass
class _Report:
    index: int
    version: str | None = None
    defs: dict = field(default_factory=dict)
    jobs: list = field(default_factory=list)
    disks: list = field(default_factory=list)
    summarised: bool = False  # its "Run status group" lines were read
    continues: bool = False  # a --status-interval report of the run before it (no new defs)


def _scan_text_reports(path: str | os.PathLike, lines: list[str]) -> list[_Report]:
    """fio's normal output, line by line: the reports (one per fio run appended to the file),
    each with its job definitions, jobs (per-direction lines, latencies, percentiles, depths)
    and disk stats."""
    reports: list[_Report] = []
    rep: _Report | None = None
    job: _TextJob | None = None
    cur_dir: str | None = None
    pct_target: tuple | None = None
    in_disk = False

    def new_report() -> _Report:
        r = _Report(len(reports))
        reports.append(r)
        return r

    client_mode = False  # fio --client: each client's jobs, then its own summary
    for i, raw in enumerate(lines, 1):
        line = _RE_CLIENT.sub("", raw.rstrip())
        client_mode = client_mode or len(line) < len(raw.rstrip())
        if not line.strip():
            pct_target = None
            continue
        m = _RE_DEF.match(line)
        if m:
            if rep is None or rep.jobs:
                rep = new_report()
            job, cur_dir, pct_target, in_disk = None, None, None, False
            rw = _rw_mode(m.group("rw")) or ""
            varies = _def_sizes_vary(m.group("bs"), rw)
            rep.defs[m.group("name")] = {
                "rw": _rw_mode(m.group("rw")),
                "bs": None if varies else _bs_from_def(m.group("bs"), rw),
                "bs_varies": f"bs={m.group('bs').strip()}" if varies else None,
                "ioengine": m.group("eng"),
                "iodepth": int(m.group("qd")),
            }
            continue
        if _RE_VERSION.match(line):
            if rep is None or rep.jobs:
                rep = new_report()
            rep.version = line.strip()
            continue
        m = _RE_JOB.match(line)
        if m and m.group("name") == "All clients":  # client/server mode's sum of the
            job, cur_dir, pct_target, in_disk = None, None, None, False  # clients, read apart
            continue
        if m:
            if rep is None:
                rep = new_report()
            elif client_mode:  # each client's jobs follow the one before's summary; with
                # --status-interval a job's later report (same pid) replaces its earlier one
                # (two clients' jobs with one pid would be taken for one job: the text does
                # not name the host of a job's report; the JSON output does)
                pid = _pid_of(line)
                rep.jobs = [j for j in rep.jobs if pid is None or j.pid != pid]
            elif rep.summarised:  # jobs again after the summary, with no definitions: fio
                # --status-interval printing the same run so far once more
                prev = rep
                rep = new_report()
                rep.defs, rep.version, rep.continues = dict(prev.defs), prev.version, True
            job = _TextJob(
                m.group("name"), int(m.group("g")), int(m.group("jobs")), int(m.group("err")), i
            )
            job.pid = _pid_of(line)
            rep.jobs.append(job)
            cur_dir, pct_target, in_disk = None, None, False
            continue
        if line.startswith("Run status group"):
            job, cur_dir, pct_target = None, None, None
            if rep is not None:
                rep.summarised = True
            continue
        if line.startswith("Disk stats"):
            job, cur_dir, pct_target, in_disk = None, None, None, True
            continue
        if in_disk and rep is not None:
            m = _RE_DISK.match(line)
            if m:
                fields = dict(re.findall(r"(\w+)=([^,\s]+)", m.group("rest")))
                rep.disks.append({"name": m.group("name"), **_disk_fields(m, fields)})
            continue
        if job is None:
            continue
        m = _RE_DIR3.match(line) or _RE_DIR2.match(line)
        if m:
            cur_dir = m.group("dir")
            pct_target = None
            s = DirStats(cur_dir)
            s.iops = num_suffixed(m.group("iops"), path, i, f"{cur_dir} IOPS")
            s.bw_Bps = _fio_rate(m.group("bw"), path, i, f"{cur_dir} bandwidth")
            s.runtime_s = int(m.group("rt")) / 1000.0
            job.dirs[cur_dir] = s
            continue
        if line.strip().startswith("fsync/fdatasync/sync_file_range"):
            cur_dir = "sync"
            pct_target = None
            continue
        m = _RE_LAT.match(line)
        if m and cur_dir is not None:
            scale = _T_SCALE[m.group("unit")]
            kind = m.group("kind")
            avg = num_suffixed(m.group("avg"), path, i, f"{kind} avg") * scale
            mx = num_suffixed(m.group("max"), path, i, f"{kind} max") * scale
            if cur_dir == "sync":
                job.sync = {"mean_s": avg, "max_s": mx}
            else:
                job.lat[(cur_dir, kind)] = (avg, mx)
            pct_target = None
            continue
        m = _RE_PCT_HDR.match(line)
        if m and cur_dir is not None:
            pct_target = (cur_dir, m.group("kind"), _T_SCALE[m.group("unit")])
            job.pcts[(cur_dir, m.group("kind"))] = {}
            continue
        if pct_target is not None and line.lstrip().startswith("|"):
            d, kind, scale = pct_target
            for p, v in _RE_PCT_ITEM.findall(line):
                job.pcts[(d, kind)][float(p)] = num_suffixed(v, path, i, "percentile") * scale
            continue
        pct_target = None
        m = _RE_DEPTHS.match(line)
        if m:
            raw_qd = dict(re.findall(r"(>?=?\d+)=([\d.]+)%", m.group("rest")))
            job.qd = raw_qd
            continue
        m = _RE_ISSUED.match(line)
        if m:
            job.issued = _parse_issued(m.group("rest"))
            continue

    return reports


def _text_report_entries(path: str | os.PathLike, r: _Report) -> tuple[list[_Entry], float]:
    """One report's jobs as entries (per-direction statistics, options from the job
    definitions, depths, counters), and the longest runtime among them."""
    entries = []
    max_rt = 0.0
    for jb in r.jobs:
        if not jb.dirs:
            raise TraceFormatError(
                path, jb.line, f"job {jb.name!r}: expected read/write lines after its header"
            )
        d = r.defs.get(jb.name, {})
        opts = {
            "rw": d.get("rw"),
            "bs": d.get("bs"),
            "bs_varies": d.get("bs_varies"),
            "ioengine": d.get("ioengine"),
            "iodepth": d.get("iodepth"),
        }
        dirs = {}
        for name, s in jb.dirs.items():
            if name not in _reported_dirs(jb.dirs):
                continue
            lat = jb.lat.get((name, "lat"))
            clat = jb.lat.get((name, "clat"))
            slat = jb.lat.get((name, "slat"))
            if clat:
                s.clat_mean_s = clat[0]
            if slat:
                s.slat_mean_s = slat[0]
            if lat:
                s.lat_mean_s, s.lat_max_s = lat
            elif clat:
                s.lat_mean_s = clat[0] + (slat[0] if slat else 0.0)
                s.lat_max_s = clat[1]
            s.clat_pcts = jb.pcts.get((name, "clat"), {})
            s.lat_pcts = jb.pcts.get((name, "lat"), {})
            if name in jb.issued:
                s.ios = jb.issued[name]
            elif s.runtime_s:
                s.ios = round(s.iops * s.runtime_s)
            max_rt = max(max_rt, s.runtime_s or 0.0)
            dirs[name] = s
        extra: dict = {}
        qd = _qd_fraction(jb.qd, extra) if jb.qd else {}
        counters = {f"{k}_ios": int(v) for k, v in jb.issued.items()}
        if jb.err:
            counters["errors"] = 1
            extra["error"] = jb.err
        if jb.sync:
            extra["sync_lat_mean_s"] = jb.sync["mean_s"]
            if jb.issued.get("sync"):
                counters["sync_ns"] = round(jb.sync["mean_s"] * 1e9 * jb.issued["sync"])
        entries.append(
            _Entry(
                name=jb.name,
                groupid=jb.groupid,
                report=r.index,
                dirs=dirs,
                options={k: v for k, v in opts.items() if v is not None},
                clones=jb.clones,
                qd_dist=qd,
                counters=counters,
                extra=extra,
                line=jb.line,
            )
        )
    return entries, max_rt


def read_fio_text(path: str | os.PathLike, merge: str = "job") -> Curve:
    """fio's normal (human-readable) output, 2.x and 3.x, -> a Curve, one point per job.

    Several reports appended to one file are all read (``params["report"]`` numbers them);
    units are taken per line (nsec/usec/msec, K/k suffixes); ``IO depths`` becomes
    ``qd_dist`` and ``Disk stats`` the ``util``/``aqu_sz`` of single-group reports. A file
    with job headers but no statistics (a run that only printed errors) raises
    TraceFormatError.
    """
    reports = _scan_text_reports(path, split_lines(read_text(path)))
    points: list[Results] = []
    source = Path(path).name
    stats_reports = [r for r in reports if r.jobs]
    if not stats_reports:
        if reports:
            raise TraceFormatError(
                path,
                None,
                "fio output with job headers but no statistics (no "
                "'(groupid=..., jobs=...)' block): the run produced no result",
            )
        raise TraceFormatError(path, None, "expected fio normal output: no job blocks found")
    # --status-interval: each report continued by the next is the run so far; the last whole
    snapshots = sum(1 for r in stats_reports[1:] if r.continues)
    stats_reports = [r for r, nxt in zip(stats_reports, [*stats_reports[1:], None], strict=True)
                     if nxt is None or not nxt.continues]
    for r in stats_reports:
        entries, max_rt = _text_report_entries(path, r)
        # the text shows block sizes already in bytes
        disk = _disk_summary(r.disks, max_rt or None) if r.disks else None
        pts = _entries_to_results(entries, merge, source, r.version, disk)
        for p in pts:
            p.params["report"] = r.index
            if r.disks:
                p.extra["disk_stats"] = r.disks
        points.extend(pts)
    if len(stats_reports) == 1:
        for p in points:
            p.params.pop("report", None)
    if snapshots:
        for p in points:
            p.extra["status_snapshots"] = _SNAPSHOTS_NOTE.format(n=snapshots)
    return Curve(points, label=source)


def _disk_fields(m: re.Match, fields: dict) -> dict:
    out: dict = {"read_ios": int(m.group("r")), "write_ios": int(m.group("w"))}
    if "in_queue" in fields:
        out["in_queue"] = float(fields["in_queue"])
    if "util" in fields:
        out["util"] = float(fields["util"].rstrip("%"))
    if "aggrutil" in fields:
        out["aggr_util"] = float(fields["aggrutil"].rstrip("%"))
    return out


def _parse_issued(rest: str) -> dict:
    """``total=0,1310720,0,0`` (3.x: read, write, trim, sync) or ``total=r=8177/w=8200/d=0``."""
    out: dict = {}
    if "=" in rest:
        for k, v in re.findall(r"([rwdt])=(\d+)", rest):
            out[{"r": "read", "w": "write", "d": "trim", "t": "trim"}[k]] = int(v)
    else:
        vals = rest.rstrip(",").split(",")
        for name, v in zip(("read", "write", "trim", "sync"), vals, strict=False):
            if v.strip().isdigit():
                out[name] = int(v)
    return out


# ------------------------------------------------------------------------------------------
# terse (--minimal) output, versions 2 to 5
# ------------------------------------------------------------------------------------------

_TERSE_DIR = 41  # fields of one direction (v5 adds 6: bandwidth samples, IOPS statistics)
_TERSE_TAIL = 34  # CPU (5), I/O depths (7), latency buckets in us (10) and in ms (12)


def _is_pct(field: str) -> bool:
    return field.endswith("%") and "=" not in field


def _terse_layout(f: list[str], path, line) -> tuple[int, int, list[str]]:
    """(header fields, fields per direction, the directions) of one terse line.

    fio's stat.c: version 2 has no fio version field; 4 and 5 add the trim direction; 5 adds
    six fields to each direction. With ``unified_rw_reporting`` a job has one "mixed"
    direction (=mixed) or the separate ones and the mixed one (=both); the CPU usage fields
    (two percentages) after the directions tell the layouts apart."""
    ver = f[0].strip()
    if ver not in ("2", "3", "4", "5"):
        raise TraceFormatError(path, line, f"terse version {ver!r}: versions 2 to 5 are read")
    head = 4 if ver == "2" else 5
    width = _TERSE_DIR + (6 if ver == "5" else 0)
    separate = ["read", "write"] + ([] if ver == "3" else ["trim"])
    for names in (separate, [_MIXED], [*separate, _MIXED]):
        k = head + len(names) * width
        if len(f) >= k + _TERSE_TAIL and _is_pct(f[k]) and _is_pct(f[k + 1]):
            return head, width, names
    want = head + len(separate) * width + _TERSE_TAIL
    raise TraceFormatError(
        path, line, f"terse v{ver} line has {len(f)} fields, expected at least {want} "
        "(or a unified_rw_reporting layout)")


def _terse_dir(name: str, f: list[str], off: int, path, line) -> tuple[DirStats, float]:
    def g(k: int, what: str) -> float:
        return num(f[off + k], path, line, f"{name} {what} (field {off + k + 1})")

    s = DirStats(name)
    kb = g(0, "io KiB")
    s.bw_Bps = g(1, "bandwidth KiB/s") * 1024.0
    s.iops = g(2, "iops")
    rt = g(3, "runtime ms")
    s.runtime_s = rt / 1000.0 if rt else None
    s.slat_mean_s = g(6, "slat mean") * 1e-6
    s.clat_mean_s = g(10, "clat mean") * 1e-6
    for k in range(12, 32):
        item = f[off + k]
        if "=" not in item:
            continue
        p, _, v = item.partition("=")
        try:
            pf = float(p.rstrip("%"))
        except ValueError:
            raise TraceFormatError(
                path, line, f"{name} clat percentile (field {off + k + 1}): got {item!r}"
            ) from None
        if pf > 0:
            s.clat_pcts[pf] = num(v, path, line, f"{name} clat percentile", nonneg=True) * 1e-6
    s.lat_max_s = g(33, "lat max") * 1e-6
    s.lat_mean_s = g(34, "lat mean") * 1e-6
    if s.runtime_s and s.iops:
        s.ios = round(s.iops * s.runtime_s)
    return s, kb * 1024.0


def read_fio_terse(path: str | os.PathLike, merge: str = "job") -> Curve:
    """fio terse (``--minimal``, ``--output-format=terse``) lines of versions 2 to 5 -> a
    Curve, one point per job.

    A header line of field names (some scripts echo one) is skipped; a version 3 line has 121
    fields, or 130 with one disk's statistics (more with several disks); see
    :func:`_terse_layout` for the others. Latencies in terse output are usec and bandwidths
    KiB/s, whatever the fio version.
    """
    text = read_text(path)
    lines = split_lines(text)
    entries = []
    versions = set()
    disks: dict = {}
    for i, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or ";" not in line:
            continue
        f = line.split(";")
        if not f[0].strip().isdigit():
            continue  # header or noise
        head, width, names = _terse_layout(f, path, i)
        # version 2 does not name fio's version; the point still says it is fio's output
        versions.add(f[1] if head == 5 else "fio (terse v2: version not recorded)")
        try:
            gid = int(f[head - 2])
        except ValueError:
            raise TraceFormatError(path, i, f"groupid (field {head - 1}): got {f[head - 2]!r}"
                                   ) from None
        read_dirs = [(n, *_terse_dir(n, f, head + j * width, path, i))
                     for j, n in enumerate(names)]
        read_dirs = [r for r in read_dirs if r[0] in _reported_dirs(names)]
        dirs = {n: d for n, d, _ in read_dirs}
        tail = head + len(names) * width
        extra: dict = {}
        qd_raw = {}
        depths = f[tail + 5:tail + 12]
        for lab, val in zip(("1", "2", "4", "8", "16", "32", ">=64"), depths, strict=True):
            qd_raw[lab] = num(val.rstrip("%"), path, i, f"IO depth {lab}", nonneg=True)
        qd = _qd_fraction(qd_raw, extra)
        err = f[head - 1].strip()
        counters = {f"{k}_ios": int(v.ios) for k, v in dirs.items() if v.ios is not None}
        if err not in ("", "0"):
            counters["errors"] = 1
            extra["error"] = err
        bsizes = [b / d.ios for _, d, b in read_dirs if d.ios]
        opts: dict = {}
        active = [n for n, d in dirs.items() if d.active]
        if active == ["read"]:
            opts["rw"] = "read"
        elif active == ["write"]:
            opts["rw"] = "write"
        if bsizes:
            extra["block_size_bytes_estimated"] = bsizes[0]
        disk_at = tail + _TERSE_TAIL
        if len(f) >= disk_at + 9 and f[disk_at].strip() and not _is_pct(f[disk_at]):
            d = f[disk_at : disk_at + 9]
            disks[gid] = {
                "name": d[0],
                "read_ios": num(d[1], path, i, "disk read ios", nonneg=True),
                "write_ios": num(d[2], path, i, "disk write ios", nonneg=True),
                "in_queue": num(d[7], path, i, "disk in_queue", nonneg=True),
                "util": num(d[8].rstrip("%"), path, i, "disk util", nonneg=True),
            }
        entries.append(
            _Entry(
                name=f[head - 3],
                groupid=gid,
                report=0,
                dirs=dirs,
                options=opts,
                qd_dist=qd,
                counters=counters,
                extra=extra,
                line=i,
            )
        )
    if not entries:
        raise TraceFormatError(path, None, "expected fio terse lines (3;fio-...;...)")
    version = versions.pop() if len(versions) == 1 else None
    disk = None
    if len(disks) == 1:
        only = next(iter(disks.values()))
        rt = max((d.runtime_s or 0) for e in entries for d in e.dirs.values()) or None
        disk = _disk_summary([only], rt)
    pts = _entries_to_results(entries, merge, Path(path).name, version, disk)
    for p in pts:
        p.params.pop("iodepth", None)  # terse lines do not say
    return Curve(pts, label=Path(path).name)


# ------------------------------------------------------------------------------------------
# per-interval logs
# ------------------------------------------------------------------------------------------

_LOG_KINDS = {"clat": "lat", "slat": "lat", "lat": "lat", "iops": "iops", "bw": "bw"}
_RE_LOG_NAME = re.compile(r"_(clat|slat|lat|iops|bw)(?:\.\d+)?\.log$")


def _log_kind(path, kind: str | None) -> str:
    if kind is not None:
        if kind not in _LOG_KINDS:
            raise ValueError(f"kind must be one of {', '.join(_LOG_KINDS)} (got {kind!r})")
        return kind
    m = _RE_LOG_NAME.search(Path(path).name)
    if not m:
        raise TraceFormatError(
            path,
            None,
            "cannot tell the log's kind from its name (expected ..._clat.log, "
            "_lat.N.log, _slat, _iops or _bw); pass kind=",
        )
    return m.group(1)


def _read_numeric_rows(path, min_cols: int, max_cols: int | None) -> tuple[np.ndarray, int]:
    text = read_text(path)
    rows = []
    ncols = None
    for i, raw in enumerate(split_lines(text), 1):
        line = raw.strip()
        if not line:
            continue
        parts = [p.strip() for p in line.split(",")]
        if parts and parts[-1] == "":
            parts.pop()
        if ncols is None:
            ncols = len(parts)
            if ncols < min_cols or (max_cols is not None and ncols > max_cols):
                want = f"{min_cols}-{max_cols}" if max_cols else f"at least {min_cols}"
                raise TraceFormatError(
                    path, i, f"expected {want} comma-separated columns, got {ncols}"
                )
        elif len(parts) != ncols:
            raise TraceFormatError(
                path, i, f"expected {ncols} columns like the first row, got {len(parts)}"
            )
        try:
            rows.append([float(p) for p in parts])
        except ValueError:
            bad = next(p for p in parts if not _is_float(p))
            raise TraceFormatError(path, i, f"expected a number, got {bad!r}") from None
    if not rows:
        raise TraceFormatError(path, None, "empty log: no data rows")
    return np.asarray(rows, dtype=float), int(ncols or 0)


def _is_float(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


def _guess_lat_unit(values: np.ndarray, ncols: int) -> tuple[str, str]:
    """(unit, reason) for a latency log whose unit was not given. See read_fio_log."""
    if ncols >= 5:
        return "ns", "5+ columns: fio >= 3 (nsec)"
    pos = values[values > 0]
    if len(pos) == 0:
        return "ns", "all zero: fio >= 3 assumed"
    if pos.max() >= 1e8:
        return "ns", "values >= 1e8 would be over 100 s in usec: nsec"
    if np.median(pos) < 1000:
        return "us", "median below 1000 would be under 1 us in nsec: usec"
    return "ns", "ambiguous magnitude: fio >= 3 (nsec) assumed; pass unit='us' for fio 2.x"


def read_fio_log(
    path: str | os.PathLike, unit: str = "auto", kind: str | None = None
) -> pd.DataFrame:
    """A fio per-interval or per-I/O log (``write_lat_log``, ``write_iops_log``,
    ``write_bw_log``) -> DataFrame with ``time_s``, ``value`` (SI), ``direction``
    (read/write/trim/sync) and ``size_bytes``; 5- and 6-column logs add ``prio`` /
    ``offset_bytes``, further columns are kept as ``col7``, ``col8``.

    ``kind`` (clat, slat, lat, iops, bw) defaults to what the file name says (``_clat.log``,
    ``_clat.1.log`` ...). Values: latency -> seconds, bandwidth KiB/s -> bytes/s, IOPS as is.

    Latency ``unit``: ``"ns"`` (fio >= 3.0), ``"us"`` (fio 2.x) or ``"auto"``, which decides
    in this order: 5 or more columns -> ns (only fio 3 writes them); a value of 1e8 or more ->
    ns (it would be 100 s in usec); a median under 1000 -> us (it would be under a
    microsecond in nsec); otherwise the magnitude cannot tell and ns is assumed. The decision
    and its reason are in ``df.attrs["unit"]`` and ``df.attrs["unit_reason"]``.
    """
    k = _log_kind(path, kind)
    if unit not in ("auto", "ns", "us"):
        raise ValueError(f"unit must be 'auto', 'ns' or 'us' (got {unit!r})")
    arr, ncols = _read_numeric_rows(path, 4, 8)
    values = arr[:, 1]
    attrs: dict = {"kind": k, "source": Path(path).name}
    if _LOG_KINDS[k] == "lat":
        if unit == "auto":
            unit, reason = _guess_lat_unit(values, ncols)
        else:
            reason = "given"
        values = values * (1e-9 if unit == "ns" else 1e-6)
        attrs["unit"], attrs["unit_reason"] = unit, reason
    elif _LOG_KINDS[k] == "bw":
        values = values * 1024.0
        attrs["unit"] = "KiB/s"
    else:
        attrs["unit"] = "IOPS"
    ddir = arr[:, 2].astype(int)
    df = pd.DataFrame(
        {
            "time_s": arr[:, 0] / 1000.0,
            "value": values,
            "direction": pd.Categorical(
                [_DDIR_NAMES.get(int(d), str(d)) for d in ddir],
                categories=["read", "write", "trim", "sync"],
            ),
            "size_bytes": arr[:, 3].astype(np.int64),
        }
    )
    if ncols == 5:
        df["prio"] = arr[:, 4].astype(np.int64)
    elif ncols >= 6:
        df["offset_bytes"] = arr[:, 4].astype(np.int64)
        df["prio"] = arr[:, 5].astype(np.int64)
        for c in range(6, ncols):
            df[f"col{c + 1}"] = arr[:, c]
    df.attrs.update(attrs)
    return df


def summarize_latency_log(
    log: str | os.PathLike | pd.DataFrame,
    *,
    unit: str = "auto",
    iops_log: str | os.PathLike | pd.DataFrame | None = None,
) -> Results:
    """Summarise a latency log (path or :func:`read_fio_log` frame) as one Results.

    ``lat_mean_s`` is the mean of the logged values, weighted by an IOPS log of the same run
    when one is given (rows matched on time and direction); ``iops`` comes from that IOPS
    log. Percentiles are those of the logged values: exact for per-I/O logs, of window means
    when fio averaged (``log_avg_msec``, size column 0), as ``extra`` notes.
    """
    df = log if isinstance(log, pd.DataFrame) else read_fio_log(log, unit=unit)
    if df.attrs.get("kind", "lat") not in ("lat", "clat", "slat"):
        raise ValueError("summarize_latency_log needs a latency log (kind clat, slat or lat)")
    if df.empty:
        raise ValueError("empty latency log")
    res = Results()
    notes: dict = {"source": df.attrs.get("source"), "unit": df.attrs.get("unit")}
    vals = df["value"].to_numpy(dtype=float)
    weights = np.ones_like(vals)
    if iops_log is not None:
        idf = (
            iops_log if isinstance(iops_log, pd.DataFrame) else read_fio_log(iops_log, kind="iops")
        )
        lat_rows = pd.DataFrame(
            {
                "t": df["time_s"].to_numpy(float),
                "d": df["direction"].astype(str).to_numpy(),
                "v": vals,
                "i": np.arange(len(vals)),
            }
        ).sort_values("t")
        iops_rows = pd.DataFrame(
            {
                "t": idf["time_s"].to_numpy(float),
                "d": idf["direction"].astype(str).to_numpy(),
                "w": idf["value"].to_numpy(dtype=float),
            }
        ).sort_values("t")
        # fio stamps the two logs a few ms apart: pair each latency row with the nearest
        # IOPS row of the same direction
        joined = pd.merge_asof(lat_rows, iops_rows, on="t", by="d", direction="nearest")
        w = np.zeros(len(vals))
        w[joined["i"].to_numpy()] = joined["w"].fillna(0.0).to_numpy(dtype=float)
        if w.sum() > 0:
            weights = w
        per_t = iops_rows.groupby("t", sort=True)["w"].sum()
        res.iops = float(per_t.mean())
        by_dir = iops_rows.groupby(["d", "t"])["w"].sum().groupby(level=0).mean()
        if "read" in by_dir:
            res.read_iops = float(by_dir["read"])
        if "write" in by_dir:
            res.write_iops = float(by_dir["write"])
        notes["lat_mean_weighted_by"] = "iops log"
        if str(df.attrs.get("unit_reason", "")).startswith("ambiguous") and weights.sum() > 0:
            # the magnitude could not tell ns from us: Little's law can. A closed loop keeps
            # at least a tenth of an I/O in flight on average; nsec that gives less means usec
            outstanding = res.iops * float(np.average(vals, weights=weights))
            if outstanding < 0.1 and 0.1 <= outstanding * 1000 <= 1e5:
                vals = vals * 1000.0
                notes["unit"] = "us"
                notes["unit_reason"] = "Little's law with the IOPS log: usec"
    if weights.sum() > 0:
        res.lat_mean_s = float(np.average(vals, weights=weights))
    res.lat_max_s = float(vals.max())
    dirs = df["direction"].astype(str).to_numpy()
    for name, attr in (("read", "read_lat_mean_s"), ("write", "write_lat_mean_s")):
        sel = dirs == name
        if sel.any() and weights[sel].sum() > 0:
            setattr(res, attr, float(np.average(vals[sel], weights=weights[sel])))
    pcts = {p: float(np.percentile(vals, p)) for p in PCT_FIELDS}
    for p, v in pcts.items():
        setattr(res, PCT_FIELDS[p], v)
    notes["percentiles_s"] = {pct_key(p): v for p, v in pcts.items()}
    per_io = bool((df["size_bytes"] > 0).all())
    notes["percentiles_from"] = "per-I/O values" if per_io else "window means (log_avg_msec)"
    if per_io:
        res.ios = len(df)
    notes["duration_s"] = float(df["time_s"].max())
    res.extra = notes
    return res


# ------------------------------------------------------------------------------------------
# histogram logs (write_hist_log)
# ------------------------------------------------------------------------------------------

_HIST_BITS = 6
_HIST_VAL = 1 << _HIST_BITS


def _hist_bin_values(nbins: int) -> np.ndarray:
    """Representative latency of each of fio's log-linear histogram bins (fio's
    ``plat_idx_to_val``), in the log's own unit."""
    idx = np.arange(nbins)
    out = idx.astype(float)
    hi = idx >= (_HIST_VAL << 1)
    err_bits = (idx[hi] >> _HIST_BITS) - 1
    base = np.left_shift(1, err_bits + _HIST_BITS).astype(float)
    k = idx[hi] % _HIST_VAL
    out[hi] = base + (k + 0.5) * np.left_shift(1, err_bits).astype(float)
    return out


def read_fio_hist_log(path: str | os.PathLike, unit: str = "auto") -> pd.DataFrame:
    """A fio histogram log (``write_hist_log``) -> DataFrame with ``time_s``, ``direction``,
    ``size_bytes`` and one count column per latency bin (``bin0`` ...).

    The number of bins is read from the rows: fio 2.x writes 1216 (19 groups of 64, usec),
    fio 3.x 1856 (29 groups, nsec); ``unit="auto"`` decides from that count (other counts need
    ``unit="us"`` or ``"ns"``). ``df.attrs["bin_latency_s"]`` holds each bin's representative
    latency in seconds.
    """
    arr, ncols = _read_numeric_rows(path, 4, None)
    nbins = ncols - 3
    if unit == "auto":
        if nbins == 19 * _HIST_VAL:
            unit = "us"
        elif nbins == 29 * _HIST_VAL:
            unit = "ns"
        else:
            raise TraceFormatError(
                path,
                1,
                f"histogram log with {nbins} bins: fio 2.x writes 1216 (usec) and 3.x "
                "1856 (nsec); pass unit='us' or 'ns'",
            )
    elif unit not in ("us", "ns"):
        raise ValueError(f"unit must be 'auto', 'us' or 'ns' (got {unit!r})")
    scale = 1e-9 if unit == "ns" else 1e-6
    head = pd.DataFrame(
        {
            "time_s": arr[:, 0] / 1000.0,
            "direction": pd.Categorical(
                [_DDIR_NAMES.get(int(d), str(int(d))) for d in arr[:, 1]],
                categories=["read", "write", "trim", "sync"],
            ),
            "size_bytes": arr[:, 2].astype(np.int64),
        }
    )
    bins = pd.DataFrame(arr[:, 3:].astype(np.int64), columns=[f"bin{i}" for i in range(nbins)])
    df = pd.concat([head, bins], axis=1)
    df.attrs.update(
        {
            "kind": "hist",
            "unit": unit,
            "bins": nbins,
            "bin_latency_s": (_hist_bin_values(nbins) * scale).tolist(),
            "source": Path(path).name,
        }
    )
    return df


def summarize_hist_log(df: pd.DataFrame | str | os.PathLike) -> Results:
    """All rows of a histogram log summed -> mean, max and percentile latency, I/O count."""
    if not isinstance(df, pd.DataFrame):
        df = read_fio_hist_log(df)
    vals = np.asarray(df.attrs["bin_latency_s"], dtype=float)
    cols = [c for c in df.columns if str(c).startswith("bin")]
    counts = df[cols].to_numpy(dtype=float).sum(axis=0)
    total = counts.sum()
    res = Results()
    if total <= 0:
        raise ValueError("histogram log holds no I/O")
    res.ios = int(total)
    res.lat_mean_s = float((counts * vals).sum() / total)
    res.lat_max_s = float(vals[np.nonzero(counts)[0][-1]])
    cdf = np.cumsum(counts) / total
    pcts = {}
    for p, fname in PCT_FIELDS.items():
        v = float(vals[min(int(np.searchsorted(cdf, p / 100.0)), len(vals) - 1)])
        setattr(res, fname, v)
        pcts[pct_key(p)] = v
    dur = float(df["time_s"].max() - df["time_s"].min())
    if len(df) > 1 and dur > 0:
        # rows are per-interval counts: n rows cover about (n / (n - 1)) * span
        res.iops = float(total / (dur * len(df) / (len(df) - 1)))
    res.extra = {
        "percentiles_s": pcts,
        "percentiles_from": "histogram bins",
        "source": df.attrs.get("source"),
    }
    return res


# ------------------------------------------------------------------------------------------
# job files
# ------------------------------------------------------------------------------------------


FioJobList = WorkloadList  # the name read_fio_job's result was documented under


_JOB_USED = {
    "rw",
    "readwrite",
    "rwmixread",
    "rwmixwrite",
    "bs",
    "blocksize",
    "bssplit",
    "bsrange",
    "blocksize_range",
    "iodepth",
    "ioengine",
    "numjobs",
    "size",
    "filesize",
    "io_size",
    "rate_iops",
    "rate_process",
    "thinktime",
    "blockalign",
    "ba",
}
_RW_MAP = {
    "read": "read",
    "write": "write",
    "randread": "randread",
    "randwrite": "randwrite",
    "rw": "rw",
    "readwrite": "rw",
    "randrw": "randrw",
}


def _strip_comment(line: str) -> str:
    s = line.strip()
    if not s or s[0] in ";#":
        return ""
    m = re.search(r"\s[;#]", s)
    return s[: m.start()].rstrip() if m else s


def read_fio_job(path: str | os.PathLike) -> WorkloadList:
    """An fio job file (INI) -> ``[(jobname, Workload), ...]`` in file order.

    ``[global]`` sections set defaults for the jobs that follow them. Understood: ``rw``
    (a ``:N`` suffix such as ``randread:8`` is ignored), ``rwmixread``/``rwmixwrite``,
    ``bs`` (``r,w`` pairs take the direction in use), ``bssplit``, ``bsrange`` (approximated
    by its two ends), ``iodepth`` (1 for the synchronous engines ``sync``, ``psync``,
    ``pvsync`` ...), ``numjobs``, ``size`` (absolute sizes become the span), ``rate_iops``
    (open loop; ``rate_process=poisson`` gives Poisson arrivals, fio's default pacing is
    ``paced``) and ``thinktime`` (usec when unitless, as in fio). Every other option is
    ignored and listed in the result's ``ignored``.
    """
    text = read_text(path)
    lines = split_lines(text)
    sections: list[tuple[str, int, dict]] = []
    current: dict | None = None
    for i, raw in enumerate(lines, 1):
        s = _strip_comment(raw)
        if not s:
            continue
        if s.startswith("["):
            if not s.endswith("]") or len(s) < 3:
                raise TraceFormatError(path, i, f"malformed section header {s!r}")
            current = {}
            sections.append((s[1:-1].strip(), i, current))
            continue
        if current is None:
            raise TraceFormatError(
                path, i, f"option {s!r} before any [section]: expected an fio job file"
            )
        key, sep, value = s.partition("=")
        current[key.strip().lower()] = (value.strip() if sep else "", i)
    jobs = [(n, ln, o) for n, ln, o in sections if n.lower() != "global"]
    if not jobs:
        raise TraceFormatError(path, None, "expected fio job sections ([name] ...); found none")
    out = WorkloadList()
    defaults: dict = {}
    for name, line, opts in sections:
        if name.lower() == "global":
            defaults = {**defaults, **opts}
            continue
        merged = {**defaults, **opts}
        wl, ignored, notes = _workload_from_job(name, line, merged, path)
        out.append((name, wl))
        out.ignored[name] = ignored
        out.notes[name] = notes
    return out


def _workload_from_job(name: str, line: int, opts: dict, path) -> tuple[Workload, list, list]:
    def val(key):
        return opts[key][0] if key in opts else None

    def where(key):
        return opts[key][1] if key in opts else line

    kw: dict = {}
    notes: list[str] = []
    rw_raw = val("rw") or val("readwrite")
    rw = "read"
    if rw_raw is not None:
        base = rw_raw.split(":", 1)[0].strip().lower()
        if base not in _RW_MAP:
            raise TraceFormatError(
                path,
                where("rw" if "rw" in opts else "readwrite"),
                f"job [{name}]: rw={rw_raw!r} cannot be simulated (expected one of "
                f"{', '.join(sorted(_RW_MAP))})",
            )
        rw = _RW_MAP[base]
    kw["rw"] = rw
    mixed = rw in ("rw", "randrw")
    reads = rw in ("read", "randread") or mixed
    try:
        if val("rwmixread") is not None:
            kw["rwmixread"] = float(val("rwmixread"))
        elif val("rwmixwrite") is not None:
            kw["rwmixread"] = 100.0 - float(val("rwmixwrite"))
    except ValueError:
        raise TraceFormatError(
            path, where("rwmixread"), f"job [{name}]: rwmix must be a percentage"
        ) from None
    read_frac = (
        1.0
        if rw in ("read", "randread")
        else 0.0
        if rw in ("write", "randwrite")
        else (kw.get("rwmixread", 50.0) / 100.0)
    )
    try:
        bs = val("bs") or val("blocksize")
        if bs:
            parts = [p.strip() for p in bs.split(",")]
            pick = parts[0] if reads or len(parts) == 1 else parts[1]
            if mixed and len(parts) > 1 and parts[1] and parts[1] != parts[0]:
                notes.append(f"bs={bs}: read and write sizes differ; the read size is used")
            if "-" in pick:
                lo, hi = (parse_size(x) for x in pick.split("-", 1))
                kw["bssplit"] = ((lo, 50.0), (hi, 50.0)) if lo != hi else ()
                kw["block_size_bytes"] = lo
                notes.append(f"bs range {pick} approximated by its two ends, half each")
            elif pick:
                kw["block_size_bytes"] = parse_size(pick)
        rng = val("bsrange") or val("blocksize_range")
        if rng:
            pick = rng.split(",")[0]
            lo, hi = (parse_size(x) for x in pick.split("-", 1))
            kw["block_size_bytes"] = lo
            if lo != hi:
                kw["bssplit"] = ((lo, 50.0), (hi, 50.0))
                notes.append(f"bsrange {pick} approximated by its two ends, half each")
        split = val("bssplit")
        if split:
            kw["bssplit"] = split.split(",")[0]
        size = val("size") or val("filesize")
        if size:
            if size.endswith("%"):
                notes.append(f"size={size} is relative to the device: default span kept")
            else:
                kw["span_bytes"] = parse_size(size.split("-")[-1])
        align = val("blockalign") or val("ba")
        if align:
            kw["align_bytes"] = parse_size(align.split(",")[0])
        qd = val("iodepth")
        if qd:
            kw["iodepth"] = int(float(qd))
        engine = (val("ioengine") or "psync").strip()
        if engine in SYNC_ENGINES and kw.get("iodepth", 1) != 1:
            notes.append(f"ioengine={engine} is synchronous: iodepth={kw['iodepth']} acts as 1")
            kw["iodepth"] = 1
        nj = val("numjobs")
        if nj:
            kw["numjobs"] = int(float(nj))
        rate = val("rate_iops")
        if rate:
            rates = [float(x) if x.strip() else None for x in rate.split(",")]
            total = open_loop_rate(rates[0], rates[1] if len(rates) > 1 else rates[0],
                                   read_frac, kw.get("numjobs", 1))
            if total is not None:
                kw["rate_iops"] = total
                kw["arrival"] = (
                    "poisson" if (val("rate_process") or "").strip() == "poisson" else "paced"
                )
        think = val("thinktime")
        if think:
            t = think.strip()
            kw["thinktime_s"] = float(t) * 1e-6 if _is_float(t) else parse_time(t)
    except (UnitError, ValueError) as exc:
        raise TraceFormatError(path, line, f"job [{name}]: {exc}") from None
    try:
        wl = Workload(**kw)
    except SpecError as exc:
        raise TraceFormatError(path, line, f"job [{name}]: {exc}") from None
    ignored = sorted(k for k in opts if k not in _JOB_USED)
    if "rate_process" in opts and "rate_iops" not in opts:
        ignored.append("rate_process")
    return wl, ignored, notes

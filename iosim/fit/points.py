"""The measured points of a fit: what each file's result becomes (workload, outstanding I/Os,
measured metrics), which points are held out, and the checks on what was measured."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..dists import Quantiles
from ..results import Curve, Results
from ..spec import SpecError
from ..traces.fio import open_loop_rate
from ..traces.table import _f
from ..workload import Workload

# -- measured points -----------------------------------------------------------------------

METRICS = ("iops", "lat_mean_s", "lat_p50_s", "lat_p90_s", "lat_p95_s", "lat_p99_s")
MEAN_METRICS = ("iops", "lat_mean_s")
PCT_METRICS = ("lat_p50_s", "lat_p90_s", "lat_p95_s", "lat_p99_s")
_WORKLOAD_KEYS = (
    "rw",
    "rwmixread",
    "block_size_bytes",
    "bssplit",
    "numjobs",
    "iodepth",
    "span_bytes",
    "thinktime_s",
)




def completion_shift_s(r: Results) -> float:
    """What to add to a point's listed latency percentiles to make them total latencies.

    fio prints completion-latency (``clat``) percentiles unless asked for ``lat_percentiles``,
    while its mean (and the simulator's latency) is the total: submission + completion. A
    percentile of the total is taken as the completion percentile plus the mean submission
    latency (exact when the submission time does not vary; on a virtual machine it is ~14 us
    at depth 1, a quarter of the latency). 0 when the percentiles are totals already or the
    submission latency is not known."""
    extra = r.extra or {}
    if extra.get("percentiles_from") != "clat":
        return 0.0
    slat = _f(extra.get("slat_mean_s"))
    return slat if slat is not None and slat > 0 else 0.0


@dataclass
class _Point:
    index: int
    results: Results
    workload: Workload
    measured: dict[str, float]
    label: dict[str, Any]

    @property
    def n(self) -> int:
        return self.workload.outstanding


_SYNC_ENGINES = {"sync", "psync", "vsync", "pvsync", "pvsync2"}  # one I/O at a time per job


def _has_reads_and_writes(curve) -> bool:
    """Whether the points (before any holdout) include both reads and writes."""
    try:
        pts = _points(curve, None)
    except SpecError:
        return False
    fr = [p.workload.read_fraction for p in pts]
    return any(f > 0 for f in fr) and any(f < 1 for f in fr) and len(set(fr)) > 1


def sizes_differ(train: list[_Point]) -> bool:
    """Whether the fitted points have more than one mean block size."""
    return len({p.workload.mean_block_bytes for p in train}) > 1


def _check_one_workload(train: list[_Point], warnings: list[str],
                        by_direction: bool = False, by_size: bool = False,
                        model: str = "") -> None:
    """The fitted points must share one workload (direction, pattern, size); the direction
    may differ when the model fits reads and writes apart (``by_direction``), the size when
    it has terms that grow with the size (``by_size``: a transfer rate, a bytes/s cap; its
    family's ``FitModel.size_params``); a mix of I/O engines is worth a warning."""
    kinds: dict[str, int] = {}
    for p in train:
        wl = p.workload
        rw = wl.rw
        if by_direction:
            rw = "random" if rw.startswith("rand") else "sequential"
        key = rw + (f" {wl.rwmixread:g}% reads" if wl.rw in ("randrw", "rw") and
                    not by_direction else "")
        if not by_size:
            key += f" {wl.mean_block_bytes / 1024:g} KiB"
        kinds[key] = kinds.get(key, 0) + 1
    if len(kinds) > 1:
        listed = "; ".join(f"{k}: {n} point{'s' if n > 1 else ''}"
                           for k, n in list(kinds.items())[:4])
        if len(kinds) > 4:
            listed += f"; and {len(kinds) - 4} more"
        who = f"the {model} model" if model else "one fit"
        raise SpecError(
            f"fit: the fitted points mix workloads ({listed}); {who} has one service time "
            "per direction and size: fit each workload on its own (--only rw=randread, or "
            "hold the others out, e.g. --holdout rw=randwrite or bs=64k, or pass their files "
            "apart), or choose a model "
            "that fits reads and writes apart (ssd, cloud) or sizes (generic, ssd, cloud)"
        )
    engines = sorted({str(p.results.params["ioengine"]) for p in train
                      if p.results.params.get("ioengine")})
    if len(engines) > 1:
        warnings.append(
            f"the fitted points mix I/O engines ({', '.join(engines)}): a synchronous engine "
            "keeps one I/O per job in flight and costs more host time per I/O than an "
            "asynchronous one, so one host overhead may not fit both"
        )


def _fio_rate(p: dict) -> float | None:
    """The open loop's arrival rate of a rate-limited fio point (``rate_iops=R[,W]``, each
    job's cap per direction): every job's I/Os per second, read and write caps combined as
    fio paces them (the direction that reaches its cap first sets the job's pace); None
    without a rate."""
    read_cap, write_cap = _f(p.get("rate_iops")), _f(p.get("rate_iops_write"))
    if not read_cap and not write_cap:
        return None
    write_cap = write_cap or (read_cap if "rate_iops_write" not in p else None)
    rw = str(p.get("rw") or "read")
    if rw in ("read", "randread"):
        rf = 1.0
    elif rw in ("write", "randwrite"):
        rf = 0.0
    else:
        rf = (_f(p.get("rwmixread")) if p.get("rwmixread") is not None else 50.0) / 100.0
    return open_loop_rate(read_cap, write_cap, rf, _f(p.get("numjobs")) or 1.0)


def _sysbench_rate(r: Results) -> float | None:
    """The I/O arrival rate of a sysbench ``--rate`` run: its events per second (Poisson) less
    the share of them that were fsyncs, which are events but not I/Os; None without a rate."""
    events = _f((r.params or {}).get("tx_rate"))
    if not events:
        return None
    iops = _f(getattr(r, "iops", None)) or 0.0
    fsyncs = _f((r.counters or {}).get("fsyncs_per_s")) or 0.0
    return events * (iops / (iops + fsyncs) if iops + fsyncs > 0 else 1.0)


def _fsync_think_s(r: Results, p: dict, where: str, notes: list[str]) -> float:
    """A fio job's time in fsync (``fsync=N``/``fdatasync=N``) per data I/O, for a synchronous
    engine: the job issues nothing while it waits, so to the device it is think time between
    I/Os (fio's IOPS and latencies count the reads and writes only). 0 without fsyncs; for an
    asynchronous engine 0 too, said in a note (fio then syncs with I/Os in flight)."""
    cnt = r.counters or {}
    n_sync, sync_ns = cnt.get("sync_ios") or 0, cnt.get("sync_ns") or 0
    data = (cnt.get("read_ios") or 0) + (cnt.get("write_ios") or 0)
    if not n_sync or not sync_ns or not data:
        return 0.0
    per_sync = sync_ns * 1e-9 / n_sync
    if str(p.get("ioengine", "")).lower() not in _SYNC_ENGINES:
        notes.append(f"{where}: fio issued {n_sync:,} fsyncs ({per_sync * 1e6:.3g} us each) "
                     "beside the I/Os of an asynchronous engine; their time is not modelled")
        return 0.0
    think = sync_ns * 1e-9 / data
    notes.append(f"{where}: fio issued {n_sync:,} fsyncs ({per_sync * 1e6:.3g} us each): each "
                 f"job waits {think * 1e6:.3g} us per I/O in them, taken as think time")
    return think


def _note_sysbench_fsyncs(r: Results, p: dict, where: str, notes: list[str]) -> None:
    """sysbench counts an fsync (``--file-fsync-freq``, every 100 requests by default) as an
    event beside the reads and writes, and its latency figures are per event; unlike fio's it
    does not say how long the fsyncs took, so they cannot be taken out. Said, with their
    share of the events."""
    fsyncs = _f((r.counters or {}).get("fsyncs_per_s")) or 0.0
    iops = _f(getattr(r, "iops", None)) or 0.0
    if ("sysbench_version" not in p and "lat_per" not in (r.extra or {})) or fsyncs <= 0:
        return
    share = 100.0 * fsyncs / (fsyncs + iops) if fsyncs + iops > 0 else 100.0
    notes.append(f"{where}: sysbench made {fsyncs:,.4g} fsyncs per s ({share:.2g} % of its "
                 "events) and its latencies are per event, fsyncs included; the mean is taken "
                 "as the I/Os' (run with --file-fsync-freq=0 to measure the I/Os alone)")


def _workload_of(r: Results, base: Workload | None, where: str,
                 notes: list[str] | None = None) -> Workload:
    p = dict(r.params or {})
    fio_rate = _fio_rate(p)
    arrival = "paced" if fio_rate and p.get("rate_process") != "poisson" else "poisson"
    iorate = fio_rate if fio_rate is not None else _sysbench_rate(r) or _f(p.get("iorate"))
    if iorate is not None:  # vdbench's iorate, fio's rate_iops, sysbench's --rate: open loops
        got = _f(getattr(r, "iops", None))
        if got is not None and got < 0.9 * iorate:
            # the generator could not keep up: every thread was busy, so its threads, not the
            # rate, set the load: a closed loop of that many I/Os
            iorate = None
        else:
            p.setdefault("numjobs", 1)
            p.setdefault("iodepth", 1)
    from_tool = "fio_version" in p or "sysbench_version" in p  # (a tool's own output)
    if from_tool and not any(k in p for k in ("iodepth", "qd")) and \
            str(p.get("ioengine", "")).lower() not in _SYNC_ENGINES:
        raise SpecError(
            f"{where}: the file does not record the I/O depth (fio terse and fio 2.1 JSON have "
            "no iodepth, an asynchronous sysbench run none): depth 1 would be a guess; give "
            "the points as a CSV table with a qd or iodepth column"
        )
    if "threads" in p and "numjobs" not in p:
        p["numjobs"] = p["threads"]
        p.setdefault("iodepth", 1)
    if "qd" in p and "iodepth" not in p:
        p["iodepth"] = p["qd"]
        p.setdefault("numjobs", 1)
    _issued_size(r, p, where, notes if notes is not None else [])
    d = base.to_dict() if base is not None else Workload().to_dict()
    if "block_size_bytes" in p:
        d.pop("bssplit", None)
    for k in _WORKLOAD_KEYS:
        v = p.get(k)
        if v is None or (isinstance(v, float) and math.isnan(v)):
            continue
        if k in ("numjobs", "iodepth"):
            x = _f(v)
            if x is None or x < 1 or x != int(x):
                raise SpecError(f"{where}: {k} must be a whole number >= 1 (got {v!r})")
            v = int(x)
        d[k] = v
    if "numjobs" not in p and "iodepth" not in p:
        raise SpecError(
            f"{where}: the point does not say how many I/Os were outstanding "
            "(needs numjobs/iodepth, threads or qd in its params)"
        )
    _note_sysbench_fsyncs(r, p, where, notes if notes is not None else [])
    fsync_s = _fsync_think_s(r, p, where, notes if notes is not None else [])
    if fsync_s > 0:
        d["thinktime_s"] = float(d.get("thinktime_s") or 0.0) + fsync_s
    d.pop("rate_iops", None)
    if iorate is not None:
        d["rate_iops"] = iorate
        d["arrival"] = arrival
    try:
        wl = Workload.from_dict(d)
    except SpecError as exc:
        raise SpecError(f"{where}: {exc}") from None
    return _issued_split(wl, r, where, notes if notes is not None else []) \
        if "bssplit" in p else wl


def _issued_size(r: Results, p: dict, where: str, notes: list[str]) -> None:
    """A job whose I/Os have no one size (fio ``bsrange``, ``bs=4k-64k``, or different read
    and write sizes in a mix): fitted at the mean size the run issued (its bytes / its I/Os),
    said in a note; refused when the file does not give both."""
    if "bs_varies" not in p or "block_size_bytes" in p:
        return
    bw, iops = _f(getattr(r, "bandwidth_Bps", None)), _f(getattr(r, "iops", None))
    if not bw or not iops:
        raise SpecError(f"{where}: its sizes vary ({p['bs_varies']}) and the file gives no "
                        "bytes per I/O to fit them by: give a table with a bs_bytes column")
    size = bw / iops
    p["block_size_bytes"] = max(512.0, round(size / 512) * 512)
    notes.append(f"{where}: the I/O sizes vary ({p['bs_varies']}): fitted at the mean size "
                 f"the run issued, {size / 1024:.4g} KiB per I/O (bytes / I/Os)")


def _issued_split(wl: Workload, r: Results, where: str, notes: list[str]) -> Workload:
    """A size split as the tool issued it. fio's ``bssplit`` weights are what it aims at; its
    random map (each block once before any twice, on by default) turns away large blocks once
    free room for them is scarce, so a small file gets more small blocks: measured here, 4k/50
    :64k/50 over 64 MiB gave 20.3 KiB per I/O, not 34 (``--norandommap``: 33.8). When the
    measured bytes per I/O differ from the split's mean by more than 5 %, say so, and with two
    sizes take the weights that give the measured mean (with more the mix is not determined)."""
    bw, iops = _f(getattr(r, "bandwidth_Bps", None)), _f(getattr(r, "iops", None))
    if not bw or not iops or len(wl.sizes) < 2:
        return wl
    measured, aimed = bw / iops, wl.mean_block_bytes
    if abs(measured / aimed - 1.0) <= 0.05:
        return wl
    (small, _), (large, _) = min(wl.sizes), max(wl.sizes)
    if len(wl.sizes) == 2 and small < measured < large:
        share = (large - measured) / (large - small)
        notes.append(f"{where}: the split {r.params.get('bssplit')} aims at "
                     f"{aimed / 1024:.4g} KiB per I/O and the run issued {measured / 1024:.4g} "
                     f"(bytes / I/Os): fitted as the sizes it issued, {100 * share:.3g} % "
                     f"{small / 1024:g} KiB")
        return wl.with_(bssplit=((small, share), (large, 1.0 - share)))
    notes.append(f"{where}: the split {r.params.get('bssplit')} aims at {aimed / 1024:.4g} KiB "
                 f"per I/O and the run issued {measured / 1024:.4g} (bytes / I/Os); its "
                 "weights are fitted as given")
    return wl


def _points(curve: Curve | Sequence[Results], base_workload: Workload | None,
            notes: list[str] | None = None) -> list[_Point]:
    notes = notes if notes is not None else []
    if isinstance(curve, Results):
        curve = [curve]
    if isinstance(curve, Curve):
        items = list(curve.points)
    elif isinstance(curve, Sequence) and all(isinstance(r, Results) for r in curve):
        items = list(curve)
    else:
        raise SpecError(
            "fit: the measurement must be an iosim Curve or a list of Results "
            f"(got {type(curve).__name__})"
        )
    if not items:
        raise SpecError("fit: the measured curve is empty (no points to fit)")
    out = []
    for i, r in enumerate(items):
        where = f"point {i}" + (f" ({r.params['source']})" if r.params.get("source") else "")
        wl = _workload_of(r, base_workload, where, notes)
        meas = {}
        shift = completion_shift_s(r)
        for m in METRICS:
            v = _f(getattr(r, m, None))
            if v is not None and v > 0:
                meas[m] = v + shift if m in PCT_METRICS else v
        if not any(m in meas for m in MEAN_METRICS):
            raise SpecError(f"{where}: has neither IOPS nor a mean latency to fit")
        label = {"outstanding": wl.outstanding, "numjobs": wl.numjobs, "iodepth": wl.iodepth,
                 "block_size_bytes": wl.mean_block_bytes,
                 "rwmixread": round(100 * wl.read_fraction, 3), "rw": str(wl.rw)}
        for k in ("threads", "qd", "iorate", "source"):
            if k in r.params:
                label[k] = r.params[k]
        if wl.open_loop:
            label["rate_iops"] = wl.rate_iops
        fio_asked, sb_asked = _fio_rate(r.params or {}), _sysbench_rate(r)
        asked = fio_asked if fio_asked is not None else sb_asked or _f(r.params.get("iorate"))
        if asked is not None and not wl.open_loop:
            what, held_by = ((f"fio's rate_iops asked for {asked:g} I/O per s",
                              f"{wl.outstanding} I/Os (numjobs x iodepth)")
                             if fio_asked is not None else
                             (f"sysbench's --rate asked for {asked:g} I/O per s",
                              f"{wl.outstanding} threads") if sb_asked else
                             (f"vdbench asked for iorate={asked:g}", f"{wl.outstanding} threads"))
            notes.append(
                f"{where}: {what} and got {meas.get('iops', float('nan')):.4g} IOPS: it could "
                f"not keep up, so the point is taken as a closed loop of its {held_by}")
        out.append(_Point(i, r, wl, meas, label))
    return out


#: holdout keys that name a workload field by its fio option (``bs=4k``)
KEY_ALIASES = {"bs": "block_size_bytes", "blocksize": "block_size_bytes",
               "block_size": "block_size_bytes"}
#: workload fields whose holdout values are sizes (``4k``, ``1m``: fio's binary units)
_SIZE_KEYS = ("block_size_bytes", "span_bytes")


def _key(key: str) -> str:
    k = key.strip().removeprefix("workload.")
    return KEY_ALIASES.get(k, k)


def _holdout_values(key: str, values: Sequence[Any]) -> list[Any]:
    """The holdout values of ``key`` as the points hold them: a size given as ``4k`` or
    ``1m`` in bytes (one clear error when it is not a size)."""
    if _key(key) not in _SIZE_KEYS:
        return list(values)
    from ..units import UnitError, parse_size

    out = []
    for v in values:
        try:
            out.append(parse_size(v) if isinstance(v, str) else v)
        except UnitError:
            raise SpecError(f"fit: holdout {key}={v}: expected a size such as 4k, 64k or "
                            "1m") from None
    return out


def _match(point: _Point, key: str, values: Sequence[Any]) -> bool:
    k = _key(key)
    p = point.results.params or {}
    cand: list[Any] = []
    if k == "_index":  # the points' order in the curve (model="auto"'s leave-one-out)
        cand.append(point.index)
    if k in p:
        cand.append(p[k])
    if k in ("threads",) and "threads" not in p:
        cand.append(point.workload.numjobs if point.workload.iodepth == 1 else None)
    if k in ("qd",) and "qd" not in p:
        cand.append(point.workload.iodepth if point.workload.numjobs == 1 else None)
    if k in ("numjobs", "iodepth", "outstanding", "n"):
        cand.append(
            {
                "numjobs": point.workload.numjobs,
                "iodepth": point.workload.iodepth,
                "outstanding": point.n,
                "n": point.n,
            }[k]
        )
    if k in ("block_size_bytes", "rw", "rwmixread", "span_bytes") and k not in p:
        cand.append(getattr(point.workload, k))
    for c in cand:
        if c is None:
            continue
        for v in values:
            a, b = _f(c), _f(v)
            if a is not None and b is not None:
                if math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12):
                    return True
            elif str(c) == str(v):
                return True
    return False


def _known_key(points: list[_Point], key: str) -> bool:
    k = _key(key)
    if k in ("threads", "qd", "numjobs", "iodepth", "outstanding", "n", "_index"):
        return True
    if k in ("block_size_bytes", "rw", "rwmixread", "span_bytes"):
        return True
    return any(k in (pt.results.params or {}) for pt in points)


def _iops_of(p: _Point) -> float:
    if "iops" in p.measured:
        return p.measured["iops"]
    return p.n / p.measured["lat_mean_s"]


def _select_held(pts: list[_Point], holdout: Mapping[str, Sequence[Any]] | None) -> set[int]:
    """Indices of the points the ``holdout`` mapping selects (one clear error per bad key)."""
    held: set[int] = set()
    for key, values in (holdout or {}).items():
        if not _known_key(pts, key):
            raise SpecError(
                f"fit: holdout key {key!r} is not a property of the points (use iodepth, "
                "numjobs, threads, qd, outstanding, bs, rw, rwmixread or a param of the "
                "measurement)"
            )
        vals = [values] if isinstance(values, (str, int, float)) else list(values)
        vals = _holdout_values(key, vals)
        matched = {p.index for p in pts if _match(p, key, vals)}
        if not matched:
            raise SpecError(f"fit: holdout {key}={','.join(map(str, vals))} matches no point")
        held |= matched
    return held


def _warn_reordering(train: list[_Point], warnings: list[str], reorders: bool = False) -> None:
    """One actuator serving in order gives the same IOPS at every depth; a disk whose IOPS rise
    with depth reorders its queue (NCQ, shortest positioning time first). Warn when the model
    (``reorders``: hdd-ncq, else hdd) assumes the other."""
    with_iops = sorted((p for p in train if "iops" in p.measured), key=lambda p: p.n)
    if len(with_iops) < 2 or with_iops[0].n == with_iops[-1].n:
        return
    lo, hi = with_iops[0], with_iops[-1]
    gain = hi.measured["iops"] / lo.measured["iops"] - 1
    if reorders and gain <= 0.15 and hi.n >= 8:
        warnings.append(
            f"IOPS change only {gain * 100:+.0f} % from {lo.n} to {hi.n} outstanding I/Os: "
            "this disk does not reorder its queue (or a write cache destages at a fixed rate), "
            "which the hdd-ncq model assumes; use --model hdd"
        )
    if not reorders and gain > 0.15:
        warnings.append(
            f"IOPS rise {gain * 100:.0f} % from {lo.n} to {hi.n} outstanding I/Os: the disk "
            "reorders its queue (NCQ), which the one-unit hdd model cannot follow; for "
            "fitting use --model hdd-ncq, which simulates a reordering disk"
        )


def _measured_shape(train: list[_Point], warnings: list[str]) -> Quantiles:
    """The latency distribution of the lowest-depth point, from its percentiles and maximum."""
    p = min(train, key=lambda q: (q.n, q.index))
    r = p.results
    pts: dict[float, float] = {}
    listed = (r.extra or {}).get("percentiles_s")
    shift = completion_shift_s(r)  # completion percentiles -> total (the max is a total)
    if isinstance(listed, Mapping):
        for k, v in listed.items():
            pk, pv = _f(k), _f(v)
            if pk is not None and pv is not None and pv > 0:
                pts[pk] = pv + shift
    for pk, m in ((50.0, "lat_p50_s"), (90.0, "lat_p90_s"), (95.0, "lat_p95_s"),
                  (99.0, "lat_p99_s"), (99.9, "lat_p999_s"), (100.0, "lat_max_s")):
        v = _f(getattr(r, m, None))
        if v is not None and v > 0:
            pts.setdefault(pk, v + (shift if pk < 100.0 else 0.0))
    if len(pts) < 3 or max(pts) < 99:
        raise SpecError(
            f"fit: shape 'measured' needs latency percentiles up to p99 at the lowest depth "
            f"(the point with {p.n} outstanding has {len(pts)}: "
            f"{', '.join(f'p{k:g}' for k in sorted(pts)) or 'none'}); fio's JSON output has them"
        )
    # percentiles are rounded and taken from histograms: keep them in order
    times = np.maximum.accumulate([pts[k] for k in sorted(pts)])
    if p.n > 1:
        warnings.append(
            f"the service shape comes from the point with {p.n} outstanding I/Os, where "
            "queueing already widens the latency distribution; a depth-1 point gives the "
            "device's own"
        )
    return Quantiles.of(zip(sorted(pts), times, strict=True))


def rare_long_waits(point: _Point) -> bool:
    """True when the point's measured mean latency exceeds its own 99th percentile: under
    1 % of its I/Os hold most of the waiting (time slices, stalls), which no family's FIFO
    queue produces (``checks.rare_long_waits`` says so)."""
    mean, p99 = point.measured.get("lat_mean_s"), point.measured.get("lat_p99_s")
    return bool(mean and p99 and mean > p99 and not point.workload.open_loop)


def keep_only(curve: Curve | Sequence[Results],
              only: Mapping[str, Sequence[Any]]) -> Curve:
    """The points whose every key of ``only`` has one of its values (keys as for a holdout:
    ``rw``, ``bs``, ``iodepth``, ``numjobs``, ``rwmixread`` or any param of the points): one
    workload out of a file that measured several, such as a CrystalDiskMark result's random
    reads (``rw=randread``)."""
    pts = _points(curve, None)
    values = {}
    for key, vals in only.items():
        if not _known_key(pts, key):
            raise SpecError(f"fit: --only key {key!r} is not a property of the points (use rw, "
                            "bs, iodepth, numjobs, rwmixread or a param of the points)")
        values[key] = _holdout_values(key, vals)
    kept = [pt.results for pt in pts if all(_match(pt, k, v) for k, v in values.items())]
    if not kept:
        said = "; ".join(f"{k}={','.join(str(v) for v in vals)}" for k, vals in only.items())
        seen = sorted({str(getattr(pt.workload, "rw", "")) for pt in pts})
        raise SpecError(f"fit: --only {said} keeps none of the {len(pts)} points (their rw: "
                        f"{', '.join(seen)})")
    return Curve(kept, label=getattr(curve, "label", "measured"))

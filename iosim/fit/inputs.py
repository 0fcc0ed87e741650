"""Measured points from files, or one clear refusal.

:func:`load_curve` reads CSV tables (:func:`iosim.fit.read_table`) and every format
``iosim.traces.read`` understands, and turns what it gets into closed-loop points:

* benchmark results (fio JSON/text/terse, vdbench, sysbench, IOMeter): one point per job or
  run. A point must say how many I/Os were outstanding; fio terse and fio 2.1 JSON do not
  record ``iodepth``, and an asynchronous sysbench run does not say its depth: such points are
  refused, not read as depth 1.
* iostat ``-x`` intervals: each interval of the busiest device is a point (X = r/s + w/s,
  R = await, N = aqu-sz): by Little's law the device held aqu-sz requests on average, so the
  point is taken as a closed loop of ceil(aqu-sz) outstanding I/Os whose remaining time is the
  host's. Only the latency is fitted: an interval's IOPS follow the application's pace, which
  changes from one interval to the next. One workload for all intervals (the capture's read
  share and request-weighted size; random access assumed: iostat cannot tell). Intervals
  without I/O and iostat's first report (since boot) are left out.
* fio latency / IOPS / bandwidth logs, iostat without ``-x``, fio job files and vdbench
  parameter files hold no closed-loop point (a time series of one run, or a description of a
  workload): refused in one line saying what to pass instead.
* vdbench ``iorate=`` runs are open-loop points (Poisson arrivals at that rate): their latency
  is fitted with the open network's surrogate and verified by open-loop simulation; a run that
  did not reach its rate (every thread busy) is a closed loop of its threads, with a warning.
  fio's ``rate_iops`` runs likewise: each job's cap (reads, writes) times the jobs is the
  arrival rate, paced unless ``rate_process=poisson``; a run that fell short of it by more
  than 10 % was held by its iodepth, a closed loop of numjobs x iodepth. sysbench 1.0's
  ``--rate`` (``Target transaction rate``) too: Poisson events at that rate, less the fsyncs.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path

from .. import limits
from ..results import Curve, Results
from ..spec import SpecError


def _is_frame(obj) -> bool:
    return hasattr(obj, "columns") and hasattr(obj, "to_json")


def iostat_points(df, path: Path) -> list[Results]:
    """The intervals of the busiest device of an ``iostat -x`` capture as closed-loop points."""
    need = {"block_iops", "await_s", "aqu_sz"}
    if not need <= set(df.columns):
        raise SpecError(
            f"{path}: iostat without -x (no await and aqu-sz columns): there is no latency or "
            "queue to fit; capture with iostat -x"
        )
    samples = sorted(df["sample"].unique())
    # iostat's first report covers the time since boot; sar's rows are all intervals
    since_boot = df.attrs.get("first_since_boot", True)
    use = df[df["sample"] != samples[0]] if len(samples) > 1 and since_boot else df
    use = use[(use["block_iops"] > 0) & (use["await_s"] > 0) & (use["aqu_sz"] > 0)]
    if use.empty:
        raise SpecError(f"{path}: no iostat interval with I/O, a latency and a queue to fit")
    busiest = use.groupby("device", sort=False)["block_iops"].sum().idxmax()
    dev = use[use["device"] == busiest]
    # one workload for all intervals (what the device saw over the capture): the read share
    # and the request-weighted size; iostat does not tell random from sequential (random is
    # assumed)
    ios = dev["block_iops"].to_numpy(float)
    common: dict = {}
    if "r_iops" in dev:
        frac = min(max(float(dev["r_iops"].to_numpy(float).sum() / ios.sum()), 0.0), 1.0)
        common["rw"] = "randread" if frac > 0.995 else ("randwrite" if frac < 0.005
                                                        else "randrw")
        if common["rw"] == "randrw":
            common["rwmixread"] = round(100 * frac)
    if "avgrq_bytes" in dev:
        size = float((dev["avgrq_bytes"].to_numpy(float) * ios).sum() / ios.sum())
        if math.isfinite(size) and size >= 512:
            common["block_size_bytes"] = max(512.0, round(size / 512) * 512)
    out = []
    for _, row in dev.iterrows():
        r = Results()
        # the interval's IOPS follow the application's pace (its think time changes from one
        # interval to the next), not the device: only the latency at that queue is fitted
        r.extra = {"iostat_iops": float(row["block_iops"])}
        r.lat_mean_s = float(row["await_s"])
        r.aqu_sz = float(row["aqu_sz"])
        params = {
            "iodepth": max(1, math.ceil(float(row["aqu_sz"]) - 0.05)),
            "numjobs": 1,
            "device": str(busiest),
            "source": f"{path.name}:{busiest}:{int(row['sample'])}",
            "from_iostat": True,
            **common,
        }
        r.params = params
        out.append(r)
    return out


def _refuse_other(got, path: Path) -> None:
    if _is_frame(got):
        cols = set(got.columns)
        if "sample" in cols and "device" in cols:
            return  # iostat: handled by the caller
        raise SpecError(
            f"{path}: a fio log (one value per interval of one run) holds no closed-loop point; "
            "fit the run's summary (fio --output-format=json, terse or text output)"
        )
    if isinstance(got, list):
        raise SpecError(
            f"{path}: a job or parameter file describes workloads, not results; fit the output "
            "of the run (fio JSON, vdbench summary.html ...)"
        )


def load_curve(files: Sequence[str | os.PathLike], fmt: str = "auto") -> Curve:
    """Measured points from files: CSV tables (:func:`iosim.fit.read_table`) or any format
    ``iosim.traces.read`` understands (``fmt``: as ``iosim parse --format``), see the module
    documentation for what becomes a point and what is refused."""
    from . import read_table

    if not files:
        raise SpecError("fit: give at least one measurement file")
    points: list[Results] = []
    for f in files:
        path = Path(f)
        # a regular file, or one line saying what it is (missing, a FIFO, a link loop ...)
        limits.check_regular_file(str(path), lambda where, why: SpecError(f"{where}: {why}"))
        from .. import traces

        if fmt in ("csv", "table") or fmt == "auto" and path.suffix.lower() == ".csv" and \
                traces.detect_format(path) != "iometer":
            points.extend(read_table(path).points)
            continue

        got = traces.read(str(path), format=fmt)
        _refuse_other(got, path)
        if _is_frame(got):
            points.extend(iostat_points(got, path))
            continue
        items = got.points if isinstance(got, Curve) else [got]
        for r in items:
            r.params.setdefault("source", path.name)
        points.extend(items)
    return Curve(points, label="measured")

"""``model="auto"``: choose the model family by cross-validation on the fitted points.

Each candidate family is fitted with one fitted depth left out at a time (leave one depth out;
in a sweep of block sizes or read/write mixes, one size or mix at one depth) and predicts the
point it did not see, with the analytic surrogate (no simulation, so the whole
ranking costs a few surrogate fits per family). The families are ranked by the mean absolute
percentage error of those predictions (IOPS and mean latency averaged), and the winner is then
fitted on all the fitted points and verified by simulation like any other model.

A family with more parameters fits the points it saw at least as well; leaving a depth out
charges it for the freedom it does not need, which is why the ranking uses held-out errors and
reports the parameter counts beside them.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import sys
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ..spec import SpecError
from .catalogue import MODELS

#: the models ``auto`` always compares (their family declares ``auto="always"``: each has an
#: analytic surrogate). Others join when the data call for them (``FitModel.auto``, see
#: :func:`candidates`): ``hdd-ncq`` when the lowest fitted depth takes milliseconds
#: (:func:`mechanical`), ``raid`` when the input names an md array and its member disks
CANDIDATES = tuple(name for name, m in MODELS.items() if m.auto == "always")

#: the time per I/O (latency over the I/Os in flight, 1 / IOPS by Little's law) at the lowest
#: fitted depth from which a reordering disk is worth trying: a random small I/O on a spinning
#: disk costs a seek and part of a turn, 2 ms or more even at 15,000 rpm (half a turn); a deep
#: NCQ queue over the whole disk shortens that to 2.7 ms (hdd-15k at 64 in flight: 377 IOPS),
#: while flash and cache hits answer in tens to hundreds of us. (A deep queue on a short span
#: can go below: hdd-15k at 64 on 1 GiB, 0.53 ms. A sweep that starts there is not tried as a
#: disk by ``auto``; ``--model hdd-ncq`` fits it.)
MECHANICAL_S = 1e-3


def candidates(points: list, held: set[int], md_members: bool) -> tuple[str, ...]:
    """The models ``auto`` cross-validates on these points, as each model declares
    (``FitModel.auto``); ``md_members``: the input names an md array's member disks."""
    when = {"always": True, "never": False, "milliseconds": mechanical(points, held),
            "md-members": md_members}
    return tuple(name for name, m in MODELS.items() if when[m.auto])


def mechanical(points: list, held: set[int]) -> bool:
    """True when the fitted points' lowest depth takes as long per I/O as a spinning disk's
    positioning (see :data:`MECHANICAL_S`); open-loop points never decide it. Per I/O, not per
    request: 16 writes in flight that each take 6.9 ms but complete 2,300 a second (an SSD
    behind a controller) are no single disk, whose queue of 16 completes a few hundred."""
    closed = [p for p in points if p.index not in held and not p.workload.open_loop]
    if not closed:
        return False
    low = min(p.n for p in closed)
    per_io = [p.measured.get("lat_mean_s") for p in closed if p.n == low]
    per_io = [v / low for v in per_io if v is not None and math.isfinite(v)]
    return bool(per_io) and min(per_io) >= MECHANICAL_S

#: scores closer than this (a fraction: half the 8 % run-to-run spread assumed by the
#: diagnostics) are reported as a tie
TIE_GAP = 0.04


def _groups(points: list, held: set[int]) -> list[list[int]]:
    """The groups of fitted points left out one at a time (their indices): one depth of the
    closed loops, or one arrival rate of the open loops, of one block size and read share
    (a sweep of sizes or of read/write mixes leaves one size or one mix out)."""
    groups: dict[tuple, list[int]] = {}
    for p in points:
        if p.index not in held:
            wl = p.workload
            key = ("rate", float(wl.rate_iops)) if wl.open_loop else ("depth", float(p.n))
            key += (float(wl.mean_block_bytes), float(wl.read_fraction))
            groups.setdefault(key, []).append(p.index)
    return [groups[k] for k in sorted(groups)]


def cross_validate(
    curve, model: str, holdout: Mapping[str, Sequence[Any]] | None, fit_fn, **kw
) -> dict:
    """Leave-one-depth-out errors of ``model`` on the fitted points of ``curve``: a dict with
    ``model``, ``params`` (count), ``cv_iops``, ``cv_lat`` (MAPE %, None when not computable),
    ``score`` and ``error`` (why the family could not be fitted, else None)."""
    return cv_row(model, [cv_group(curve, model, holdout, fit_fn, g, **kw)
                          for g in range(len(cv_groups(curve, holdout)))])


def cv_groups(curve, holdout: Mapping[str, Sequence[Any]] | None) -> list[list[int]]:
    """The groups of fitted points :func:`cross_validate` leaves out one at a time."""
    from .points import _points, _select_held

    pts = _points(curve, None)
    return _groups(pts, _select_held(pts, holdout))


def cv_group(curve, model: str, holdout: Mapping[str, Sequence[Any]] | None, fit_fn,
             g: int, **kw) -> dict[str, list[float]] | str:
    """The absolute errors (%) of ``model`` fitted without group ``g`` of
    :func:`cv_groups` on that group's points, by metric; or why the family cannot be fitted
    (a one-line message). Each group is its own fit: the groups can go to separate
    processes."""
    from .catalogue import MODELS

    group = cv_groups(curve, holdout)[g]
    ho = {k: list(v) if not isinstance(v, (str, int, float)) else [v]
          for k, v in (holdout or {}).items()}
    ho["_index"] = group
    errs: dict[str, list[float]] = {"iops": [], "lat_mean_s": []}
    try:
        # the means only: no simulation (the scv would be fitted by one)
        # (a simulated family, which has no analytic prediction, is verified: its
        # simulation is its prediction)
        res = fit_fn(curve, model=model, holdout=ho, verify=MODELS[model].simulated,
                     percentiles=False, **kw)
    except SpecError as exc:
        return str(exc)
    for p in res.points:
        if p["index"] in group:
            for m in errs:
                # an open loop's IOPS are its arrival rate, predicted by any family
                if m in p["error"] and not (m == "iops" and p.get("rate_iops")):
                    errs[m].append(abs(p["error"][m]))
    return errs


def cv_row(model: str, groups: Sequence[dict[str, list[float]] | str]) -> dict:
    """:func:`cross_validate`'s row from its groups' errors (:func:`cv_group`, in group
    order): the first group the family could not be fitted on gives the row's error."""
    from .catalogue import MODELS

    row: dict[str, Any] = {"model": model, "params": len(MODELS[model].params),
                           "cv_iops": None, "cv_lat": None, "score": math.inf, "error": None}
    errs: dict[str, list[float]] = {"iops": [], "lat_mean_s": []}
    for got in groups:
        if isinstance(got, str):
            row["error"] = got
            return row
        for m in errs:
            errs[m].extend(got[m])
    if errs["iops"]:
        row["cv_iops"] = sum(errs["iops"]) / len(errs["iops"])
    if errs["lat_mean_s"]:
        row["cv_lat"] = sum(errs["lat_mean_s"]) / len(errs["lat_mean_s"])
    got = [v for v in (row["cv_iops"], row["cv_lat"]) if v is not None]
    if got:
        row["score"] = sum(got) / len(got)
    return row


#: what the name of the measured block device says about its family, for breaking a tie the
#: cross-validation cannot decide: (name prefix, family, what a device of that name is). Only
#: names that fix the kind of medium are listed: ``sd*`` (SATA/SAS: a disk or an SSD), ``vd*``
#: (virtio: whatever the host keeps behind it) and ``md*`` (a RAID of either) say nothing.
DEVICE_KINDS = (
    ("nvme", "ssd", "an NVMe namespace: flash dies behind an SSD controller"),
    ("mmcblk", "ssd", "an eMMC / SD card: flash behind a controller"),
    ("rbd", "cloud", "a Ceph RADOS block device: a network volume"),
    ("nbd", "cloud", "a network block device"),
)


def declared_family(curve) -> tuple[str, str, str] | None:
    """(family, device name, what the name says) when every point of ``curve`` that names its
    block device (fio's ``disk_util``, iostat's device column) names one of the same kind in
    :data:`DEVICE_KINDS`; else None."""
    points = curve.points if hasattr(curve, "points") else list(curve)
    names = {str(n) for r in points
             for n in ((r.extra or {}).get("disk"), (r.params or {}).get("device")) if n}
    kinds = set()
    for name in names:
        hit = next(((fam, why) for pre, fam, why in DEVICE_KINDS if name.startswith(pre)), None)
        if hit is None:
            return None
        kinds.add(hit)
    if len(kinds) != 1:
        return None
    fam, why = kinds.pop()
    return fam, ", ".join(sorted(names)), why


#: what the forked workers of :func:`cross_validate_all` cross-validate: (curve, holdout,
#: fit function, keywords), set by the parent just before it forks them
_JOB: tuple | None = None


def _cv_job(task: tuple[str, int]) -> dict[str, list[float]] | str:
    curve, holdout, fit_fn, kw = _JOB
    return cv_group(curve, task[0], holdout, fit_fn, task[1], **kw)


def _workers(n_tasks: int) -> int:
    """Processes to cross-validate ``n_tasks`` families in: one per CPU this process may use,
    on Linux (forked workers inherit the compiled engine), only from a process with one
    thread (a fork copies no other thread, nor releases the locks they hold: a Jupyter
    kernel's output threads, say) and never inside a daemonic process (a multiprocessing
    pool's worker may not have children). Else one: the families one after the other."""
    if n_tasks < 2 or not sys.platform.startswith("linux"):
        return 1
    if threading.active_count() > 1 or multiprocessing.current_process().daemon:
        return 1
    return max(1, min(n_tasks, len(os.sched_getaffinity(0))))


def _load_engine(models: Sequence[str]) -> None:
    """Load (or compile) the fast engine the simulated families' fits run on, once, in this
    process, so that forked workers inherit it instead of each loading it again."""
    from ..simulate import simulate
    from ..workload import Workload

    for name in models:
        if MODELS[name].simulated:
            simulate(MODELS[name].stack(), Workload(), ios=20, warmup_ios=0, seed=1)


def cross_validate_all(curve, holdout, fit_fn, candidates: Sequence[str], **kw) -> list[dict]:
    """:func:`cross_validate` of every candidate, in the candidates' order. On a machine with
    two or more CPUs each family's left-out groups are fitted at once in forked processes
    (one task per family and group, the slowest families first: a family whose fits take
    seconds no longer holds one process while the other idles); each group's errors do not
    depend on where they are computed (the same data, fits and seeds), so the result is the
    serial one."""
    global _JOB
    n_groups = len(cv_groups(curve, holdout))
    tasks = [(m, g) for m in candidates for g in range(n_groups)]
    workers = _workers(len(tasks))
    if workers > 1:
        # the longest first: simulated families, then those with more parameters to fit
        order = sorted(range(len(tasks)), key=lambda i: (
            not MODELS[tasks[i][0]].simulated, -len(MODELS[tasks[i][0]].params), i))
        _load_engine(candidates)
        _JOB = (curve, holdout, fit_fn, kw)
        try:
            with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")
                                     ) as pool:
                got = list(pool.map(_cv_job, [tasks[i] for i in order]))
        except (OSError, BrokenProcessPool):  # no processes to be had: one at a time here
            got = None
        finally:
            _JOB = None
        if got is not None:
            by_task: dict[tuple[str, int], Any] = {}
            for i, errs in zip(order, got, strict=True):
                by_task[tasks[i]] = errs
            return [cv_row(m, [by_task[(m, g)] for g in range(n_groups)])
                    for m in candidates]
    return [cross_validate(curve, m, holdout, fit_fn, **kw) for m in candidates]


def rank(curve, holdout, fit_fn, candidates: Sequence[str] = CANDIDATES, **kw) -> list[dict]:
    """Cross-validate every candidate (:func:`cross_validate_all`) and sort by score (best
    first). When the best families
    are tied (scores within :data:`TIE_GAP`) and the device's name says which family it is
    (:func:`declared_family`), that family goes first among the tied ones, its row marked
    ``tie_break`` with the reason: the data cannot decide, what the device is can."""
    rows = cross_validate_all(curve, holdout, fit_fn, candidates, **kw)
    rows = sorted(rows, key=lambda r: (r["score"], r["params"]))
    declared = declared_family(curve)
    if declared is None or not math.isfinite(rows[0]["score"]):
        return rows
    fam, name, why = declared
    tied = [r for r in rows if r["score"] - rows[0]["score"] < 100 * TIE_GAP]
    pick = next((r for r in tied if r["model"] == fam), None)
    if pick is None or pick is rows[0]:
        return rows
    pick["tie_break"] = (f"the device is {name}, {why}: the {fam} family, which the data "
                         f"cannot tell from {rows[0]['model']}")
    rows.remove(pick)
    return [pick, *rows]


def left_out(points: list) -> str:
    """What the cross-validation leaves out one at a time: ``"depth"``, or ``"point"`` when
    the points also differ in block size or read share (one depth of one size or mix)."""
    kinds = {(p.workload.mean_block_bytes, p.workload.read_fraction) for p in points}
    return "depth" if len(kinds) <= 1 else "point"


def verdict(rows: list[dict], n_depths: int, unit: str = "depth") -> list[str]:
    """Lines that say which family won, by how much, and how much to trust the ranking
    (``unit``: what is left out, :func:`left_out`)."""
    ok = [r for r in rows if math.isfinite(r["score"])]
    if not ok:
        return ["no candidate model could be cross-validated"]
    win = ok[0]
    out = [f"auto: {win['model']} wins (leave-one-{unit}-out error {win['score']:.1f} %, "
           f"{win['params']} parameters)"]
    if win.get("tie_break"):
        best = min(ok, key=lambda r: r["score"])
        out[0] += (f", tied with {best['model']} ({best['score']:.1f} %, {best['params']} "
                   f"parameters; less than {100 * TIE_GAP:.0f} points apart, within the "
                   f"run-to-run spread): chosen because {win['tie_break']}")
    elif len(ok) > 1:
        second = ok[1]
        gap = second["score"] - win["score"]
        out[0] += (f", ahead of {second['model']} ({second['score']:.1f} %, "
                   f"{second['params']} parameters) by {gap:.1f} points")
        if gap < 100 * TIE_GAP:
            out.append(f"auto: {win['model']} and {second['model']} are tied (less than "
                       f"{100 * TIE_GAP:.0f} points apart, within the run-to-run spread): the "
                       "data do not tell these families apart")
    if n_depths < 4:
        out.append(f"auto: only {n_depths} fitted {unit}s (or rates): each cross-validation "
                   f"fit sees {n_depths - 1}, fewer numbers than most families have "
                   "parameters, so the ranking is a rough one")
    return out


def table(rows: list[dict]) -> list[str]:
    """The ranking as printable lines."""
    w = max([9] + [len(r["model"]) for r in rows])
    out = [f"  {'model':{w}s} {'params':>6s} {'CV IOPS':>9s} {'CV mean lat':>12s}"]
    for r in rows:
        if r["error"]:
            out.append(f"  {r['model']:{w}s} {r['params']:>6d}  not fitted: {r['error']}")
            continue
        iops = "-" if r["cv_iops"] is None else f"{r['cv_iops']:.1f} %"
        lat = "-" if r["cv_lat"] is None else f"{r['cv_lat']:.1f} %"
        out.append(f"  {r['model']:{w}s} {r['params']:>6d} {iops:>9s} {lat:>12s}")
    return out

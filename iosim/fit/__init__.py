"""Calibrate a stack to a measured curve, and say how far the calibration can be trusted.

``fit(curve, model="generic")`` adjusts chosen stack parameters (dotted keys, the same as
``--set``) so that the simulator reproduces measured IOPS and mean latency at every measured
point, then runs the simulator once more on every point (fitted and held out) and reports the
per-point errors, the mean absolute percentage error (MAPE) per metric and a 95 % confidence
interval for each fitted parameter.

How it works
------------
1. **Surrogate.** Inside the optimiser the stack is evaluated with exact mean value analysis
   (the closed loop as a product-form network): the host overhead is a delay (or, for a job
   with ``iodepth > 1``, the job's one CPU), the device a station with ``device.units``
   servers, the link latency a pure delay and a finite link bandwidth a single server per
   direction (a rate cap). An HBA / block-layer limit on outstanding requests is handled with a
   flow-equivalent server (Norton's theorem): the network below the host is solved for 1..Q
   requests and the host sees a station whose rate stops growing at Q. All of this is exact
   for exponential service without an HBA limit and a close approximation otherwise; each
   evaluation takes milliseconds, so the optimiser can afford many starts.
2. **Least squares.** Residuals are log(predicted / measured) of IOPS and mean latency at every
   fitted point (relative errors, so big and small numbers weigh alike), minimised with
   ``scipy.optimize.least_squares`` over bounded, log-scaled parameters from several starts.
   Integer parameters (units, queue depth) are fitted continuously and then rounded to the
   better neighbour with the rest re-fitted.
3. **Percentiles.** The service-time variability (``device.service.scv``) changes the tail much
   more than the means, and no closed formula gives closed-loop percentiles, so it is fitted by
   simulation against the measured percentiles (common random numbers: the same seed at every
   evaluation, lognormal service so the samples move smoothly with the scv). With
   ``shape="measured"`` the service time takes instead the shape the data show where nothing
   queues: the latency percentiles of the lowest-depth point (fio's JSON lists seventeen, from
   p1 to p99.99, and the maximum) as a ``quantiles:`` distribution, scaled to the fitted mean.
   Real devices behind virtual machines and networks are often bimodal (most I/Os fast, a few
   stalled), which no lognormal follows. fio's completion-latency percentiles are compared
   as totals (plus the point's mean submission latency). **Means first:** a polished family
   is also polished with its base's exponential service; when the percentiles' scv leaves
   the fitted means clearly worse (:data:`MEANS_FIRST`, :data:`MEANS_MARGIN`), the means-only
   fit is kept and a warning says the tails are not followed.
4. **Verification.** The calibrated stack is simulated at every point (fixed seed, ``engine``
   "auto", so the fast engine is used when it is available); the reported predictions and
   errors are the simulator's, not the surrogate's.

Confidence intervals come from the Jacobian of the residuals at the optimum (Gauss-Newton
covariance, s² = residual variance with a floor of ``rel_noise`` for rounded published figures,
Student-t quantile), computed on the log scale and transformed back, so they are asymmetric.
A closed loop's IOPS and mean latency count as one number (Little's law ties them:
``optimise.number_weights``); with no degrees of freedom left, the noise is the run-to-run
spread (``checks.spread_of``).
They are warned about when they cannot be trusted: a parameter at a bound, a flat objective
(no point is sensitive to the parameter), strongly correlated parameters, or no residual
degrees of freedom.

Output (``FitResult.to_dict()``, printed by ``iosim fit --json``)
---------------------------------------------------------------
``params``: ``{dotted key: {"value", "ci95": [lo, hi], "unit", "bounds", "at_bound",
"determined"}}`` in SI units (values can be passed back with ``--set``). ``points``: one per
measured point, with ``set`` (``fit`` or ``holdout``), ``outstanding``, ``numjobs``,
``iodepth``, ``measured`` and ``predicted`` (metric -> value, SI), ``error`` (signed
percentage error, 100 x (predicted - measured) / measured), ``predicted_ci95`` (the verifying
simulation's own 95 % half-widths, to tell model error from simulation noise), ``surrogate``
(the analytic prediction) and ``extrapolated``. ``mape``: mean absolute percentage error per
metric over all points; ``mape_by_set`` the same for fitted and held-out points. Also
``model``, ``warnings``, ``fitted_range``, ``stack`` (the calibrated stack as a table, as in a
TOML file), ``engine``, ``seed`` and ``ios``.

The models (:data:`MODELS`):

* ``generic``: K identical units behind one queue, and the host overhead (a sharp knee).
* ``ssd``: the flash SSD family on the SSD device model. Each request is served by the die its
  address maps to; with random addresses that is random routing to one of K dies, collisions
  queue at the die, and the K queues form a product-form network whose rate rises gradually,
  K n / ((n + K - 1) S) with n requests in the dies (:func:`iosim.theory.mva_random_routing`),
  instead of the pool's knee. Fitted: dies, die time (and its scv, from percentiles), the
  controller's fixed time per command, the host interface's transfer cap and the host gap.
  The surrogate's optimum is then polished by least squares on simulations of the SSD model
  (the transfers are deterministic and the mapping stripes pages, which the surrogate does not
  have), holding the integers and the scv.
* ``ssd-pool``: the former ssd approximation (a pool behind one queue plus a transfer cap).
* ``cloud``: the cloud volume family on the cloud device: a latency floor with many I/Os in
  flight at once behind a token bucket capping IOPS, and the host gap; polished by simulation
  (the bucket paces deterministically; the surrogate treats it as a server of its token time).
* ``hdd``: one unit, as a disk without command reordering.
* ``hdd-ncq``: the HDD family (a drive's geometry, shortest-positioning-time-first over a
  32-command queue) with its seek curve scaled, its spindle speed chosen among the standard
  ones (a discrete parameter: :mod:`iosim.fit.choices`) and the host gap fitted by simulation,
  because a disk that reorders its queue gains IOPS with depth in a way no set of identical
  units follows (``hdd`` warns when the data show it). Pass ``base_stack`` for another
  geometry, and ``params`` without ``device.rpm`` to hold its speed.
* ``auto``: every family with a surrogate, ranked by leave-one-depth-out error
  (:mod:`iosim.fit.select`); the winner is fitted and verified. A tie on the means is broken
  by the device's name, else by the measured tails (:func:`_tails_winner`).

The host's CPUs (``host.cpus``, a pool every job's overhead period holds one of): fitted by
name, or tried by every family with a surrogate when the benchmark's own CPU time per I/O grows
with the jobs on the fitted points (fio's usr + sys, :func:`checks.host_cpu`), within the CPUs
the benchmark kept busy at once .. the most jobs (a pool that large is no limit). The pool is
kept only when it binds (taking it away moves a fitted point's surrogate IOPS or latency by more
than 1 %); otherwise the family is fitted without it, and a note says which.

Diagnostics (:mod:`iosim.fit.checks`): fitted points missed beyond the run-to-run spread (from
repeats in the data, else 8 %), parameters outside the family's physical range (one table with
sources), a host overhead that alone caps IOPS below a measured point, the span assumed for a
disk when the data do not give it, and measured sweeps that fall or dip beyond the spread
(no closed queueing network does). Inputs (:mod:`iosim.fit.inputs`): what becomes a point and
what is refused.

Modules: this one (``fit``: the steps above, ``auto``, the CLI); :mod:`~iosim.fit.catalogue`
(parameters and families); :mod:`~iosim.fit.points` (measured points, holdout);
:mod:`~iosim.fit.surrogate` (the MVA); :mod:`~iosim.fit.optimise` (least squares, the scv,
intervals); :mod:`~iosim.fit.build` (values set on a stack, through the device family's
``service_fields``); :mod:`~iosim.fit.result` (``FitResult``); :mod:`~iosim.fit.select`;
:mod:`~iosim.fit.checks`; :mod:`~iosim.fit.inputs`; :mod:`~iosim.fit.choices` (discrete
parameters as a profile).

What a closed-loop curve can tell
---------------------------------
At every point the loop obeys Little's law, N = IOPS x (latency + host time), so a point gives
one independent number about the device (plus one about the host time). Below the knee the
latency is flat and the number of parallel units (or a rate cap) leaves no trace at all: a fit
on low depths bounds them only from below, and predictions above the fitted depths are
extrapolations. ``fit`` warns about both.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..dists import Deterministic
from ..results import Curve, Results
from ..simulate import simulate
from ..spec import SpecError
from ..stack import Stack
from ..traces.table import read_table
from . import checks, choices, select
from .build import _build_stack, _shaped
from .catalogue import _SIM_ONLY, MODELS, PARAMETERS, Model, ParamDef
from .inputs import load_curve
from .optimise import _fit_means, _fit_scv, _fit_simulated, _rms_of, independent_numbers
from .pauses import (
    PAUSES_SEEN,
    PAUSES_SEEN_FITTING,
    TAIL_FIELDS,
    PauseEstimate,
    body_scv,
    pause_estimate,
    pause_ios,
    tail_levels,
)
from .points import (
    MEAN_METRICS,
    METRICS,
    PCT_METRICS,
    _check_one_workload,
    _f,
    _has_reads_and_writes,
    _measured_shape,
    _points,
    _select_held,
    _warn_reordering,
    completion_shift_s,
    sizes_differ,
)
from .raid import covering_device, fio_members, raid_base, whole_device_span
from .result import FitParam, FitResult, _dedupe, _extrapolation, _fmt, _jsonable, _mape
from .surrogate import _Flat, _flat_with, _predict_flat, surrogate

__all__ = [
    "fit",
    "FitResult",
    "FitParam",
    "MODELS",
    "Model",
    "PARAMETERS",
    "ParamDef",
    "load_curve",
    "read_table",
    "surrogate",
    "run_cli",
]


def _fit_cloud_budgets(curve, holdout, kwargs: dict) -> FitResult:
    """A cloud volume measured with reads and writes: a cap per direction, either one bucket
    each (``separate``) or one budget both draw on (``shared``); both are fitted and the data
    choose (the smaller sum of squared residuals on the fitted points)."""
    names = ["host.overhead", "device.latency_s", "device.read_iops_limit",
             "device.write_iops_limit"]
    pts = _points(curve, None)
    held = _select_held(pts, holdout)
    if sizes_differ([p for p in pts if p.index not in held]):
        names.extend(MODELS["cloud"].size_params)
    got = {}
    for cap_model in ("separate", "shared"):
        base = MODELS["cloud"].stack().with_(**{"device.cap_model": cap_model,
                                                 "device.iops_limit": math.inf})
        got[cap_model] = fit(curve, model="cloud", params=names, holdout=holdout,
                             base_stack=base, **kwargs)
    best, other = sorted(got, key=lambda k: got[k].surrogate_rms)
    res = got[best]
    res.notes.append(
        f"cloud: the data choose {best} read/write budgets (rms log error "
        f"{res.surrogate_rms:.3f} against {got[other].surrogate_rms:.3f} for {other})")
    return res


#: member counts tried when the data do not list an array's members
RAID_MEMBER_COUNTS = (2, 3, 4, 5, 6, 8)


def _fit_raid_members(curve, kwargs: dict) -> FitResult:
    """An md array whose members the data do not list: the member disk is fitted for each
    count of :data:`RAID_MEMBER_COUNTS` and the data choose (the smallest rms log error of the
    simulated fitted points); counts whose array is smaller than the span are skipped. The
    counts are compared with the discrete parameters (the member's spindle speed) held at the
    model's, which are then chosen at the count found (one profile, not one per count)."""
    names = list(kwargs["params"] or MODELS["raid"].params)
    if kwargs["params"] is None:  # several block sizes: the members' transfer term too
        pts = _points(curve, None)
        out = _select_held(pts, kwargs.get("holdout"))
        if sizes_differ([p for p in pts if p.index not in out]):
            names.extend(MODELS["raid"].size_params)
    held = [n for n in names if n not in choices.choice_names(names)]
    search = {**kwargs, "verify": False, "params": held,
              "bounds": {k: v for k, v in (kwargs["bounds"] or {}).items() if k in held}}
    got: dict[int, FitResult] = {}
    why: dict[str, None] = {}  # the reasons counts failed, in order
    for n in RAID_MEMBER_COUNTS:
        base = MODELS["raid"].stack().with_(**{"device.members": n})
        try:
            got[n] = fit(curve, model="raid", base_stack=base, **search)
        except SpecError as e:
            why[str(e)] = None
            continue
    if not got:
        if len(why) == 1:  # the input's fault, whatever the count: say it as it is
            raise SpecError(next(iter(why)))
        raise SpecError(f"fit: raid: no member count of {RAID_MEMBER_COUNTS} could be fitted "
                        f"(first reason: {next(iter(why), 'none')})")
    best = min(got, key=lambda n: got[n].surrogate_rms)
    base = MODELS["raid"].stack().with_(**{"device.members": best})
    res = fit(curve, model="raid", base_stack=base, **kwargs) \
        if kwargs["verify"] or held != names else got[best]
    tried = ", ".join(f"{n}: {got[n].surrogate_rms:.3f}" for n in sorted(got))
    fixed = [n for n in names if n not in held]  # the member's own, held during the search
    at = ("" if not fixed else ", at the model disk's " + ", ".join(
        choices.shown(n, getattr(base.device.member, n.split(".")[-1])) for n in fixed))
    res.notes.insert(0, f"raid: the data do not list the array's member disks: {best} members "
                        f"fitted (rms log error of the fitted points by count{at}: {tried}); "
                        "RAID 0 assumed: for random reads RAID 0, 5 and 6 send each read to "
                        "the one member its address maps to, so reads cannot tell the levels "
                        "apart")
    return res


def _md_members(curve) -> tuple[str, list[str]] | None:
    """(md device, member disks) when the curve's fio output names an md array."""
    return fio_members(curve.points if hasattr(curve, "points") else list(curve))


def _fit_auto(curve, holdout, kwargs: dict) -> FitResult:
    """``model="auto"``: rank the candidate families by leave-one-depth-out error, fit the
    winner (see :mod:`iosim.fit.select`)."""
    if kwargs.get("params") is not None or kwargs.get("base_stack") is not None:
        raise SpecError("fit: model 'auto' chooses the family and its parameters; do not pass "
                        "params or base_stack with it")
    pts = _points(curve, None)
    held = _select_held(pts, holdout)
    # random and sequential points mixed are every family's refusal: say it once, not per
    # family (sizes and directions are each family's to fit or refuse)
    _check_one_workload([p for p in pts if p.index not in held], [], by_direction=True,
                        by_size=True)
    n_depths = len(select._groups(pts, held))
    if n_depths < 2:
        raise SpecError(
            f"fit: model auto ranks the families by leaving one depth out, so it needs fitted "
            f"points at two or more depths (this data has {n_depths}); name a family instead, "
            f"e.g. --model generic, ssd, hdd or cloud")
    cv_kw = {k: v for k, v in kwargs.items() if k in ("rel_noise",)}
    md = _md_members(curve) is not None
    candidates = select.candidates(pts, held, md_members=md)  # as each model declares
    rows = select.rank(curve, holdout, fit, candidates, **cv_kw)
    ok = [r for r in rows if math.isfinite(r["score"])]
    if not ok:
        why = "; ".join(f"{r['model']}: {r['error']}" for r in rows if r["error"])
        raise SpecError(f"fit: model auto: no candidate could be fitted ({why})")
    res, passed_over = _plausible_winner(curve, holdout, ok, kwargs)
    res = _followed_winner(curve, holdout, ok, res, passed_over, kwargs)
    if not passed_over and not ok[0].get("tie_break"):  # (the device's name did not decide)
        res = _tails_winner(curve, holdout, ok, res, passed_over, kwargs)
    res.selection = rows
    unit = select.left_out([p for p in pts if p.index not in held])
    kept = [r for r in ok if r["model"] not in passed_over] or ok
    res.notes = select.verdict(kept, n_depths, unit) + list(passed_over.values()) + res.notes
    return res


def _training_miss(res: FitResult) -> float:
    """The verified fit's mean absolute error on its own fitted points (IOPS and mean latency
    averaged, percent)."""
    m = res.mape_by_set.get("fit") or res.mape
    got = [m[k] for k in ("iops", "lat_mean_s") if m.get(k) is not None]
    return sum(got) / len(got) if got else 0.0


def _followed_winner(curve, holdout, ok: list[dict], res: FitResult,
                     passed: dict[str, str], kwargs: dict) -> FitResult:
    """The winner, unless its verifying simulation misses its own fitted points by more than
    twice the run-to-run spread while a family tied with it in the ranking (within
    :data:`select.TIE_GAP`) follows them: the ranking's surrogate could not tell them apart,
    the simulation can (a device whose writes are fast at one I/O in flight but capped lower
    than its reads: a write cache, which a token-bucket volume follows and a flash die does
    not). Said in ``passed``."""
    miss = _training_miss(res)
    spread = checks.spread_of(_points(curve, None))[0]
    if miss <= 200 * spread:
        return res
    best = next(r for r in ok if r["model"] == res.model)
    for row in ok:
        if row["model"] in passed or row["model"] == res.model or \
                row["score"] - best["score"] >= 100 * select.TIE_GAP:
            continue
        other = fit(curve, model=row["model"], holdout=holdout, **kwargs)
        values = {n: p.value for n, p in other.params.items()}
        if checks.implausible(row["model"], values, _fmt):
            continue
        if _training_miss(other) < 0.5 * miss:
            passed[res.model] = (
                f"auto: {res.model} (leave-one-out error {best['score']:.1f} %) is passed over: "
                f"simulated, it misses its own fitted points by {miss:.0f} % (IOPS and mean "
                f"latency), where {row['model']}, tied with it in the ranking, misses them by "
                f"{_training_miss(other):.1f} %")
            return other
    return res


#: the measured tails that break a tie between families (:func:`_tails_winner`)
TAILS = ("lat_p90_s", "lat_p95_s", "lat_p99_s")
#: how much closer a tied family must follow the tails to be chosen (a fraction of the
#: winner's miss), and at most how many tied families are fitted to find out
TAILS_MARGIN = 0.75
TAILS_TRIED = 2


def _tail_miss(res: FitResult) -> float | None:
    """The verified fit's mean absolute error of the measured p90, p95 and p99 on its own
    fitted points (percent), or None when the data carry no such percentiles."""
    m = res.mape_by_set.get("fit") or res.mape
    got = [m[k] for k in TAILS if m.get(k) is not None and math.isfinite(m[k])]
    return sum(got) / len(got) if got else None


def _tails_winner(curve, holdout, ok: list[dict], res: FitResult,
                  passed: dict[str, str], kwargs: dict) -> FitResult:
    """The winner, unless a family tied with it in the ranking (within
    :data:`select.TIE_GAP`) follows the fitted points' measured tails clearly better
    (:data:`TAILS_MARGIN`) while following their means as well: the ranking scores the means
    only, so where it cannot tell two families apart the percentiles, also measured, can (a
    virtio disk's QD sweep: the ssd and contention families rank 0.1 point apart, and ssd
    misses p90..p99 by about twice what contention does). Said in ``passed``."""
    mine = _tail_miss(res)
    if mine is None or mine == 0:
        return res
    best = next(r for r in ok if r["model"] == res.model)
    tied = [r for r in ok if r["model"] != res.model and r["model"] not in passed
            and abs(r["score"] - best["score"]) < 100 * select.TIE_GAP]
    for row in tied[:TAILS_TRIED]:
        other = fit(curve, model=row["model"], holdout=holdout, **kwargs)
        theirs = _tail_miss(other)
        if theirs is None or theirs >= TAILS_MARGIN * mine:
            continue
        if _training_miss(other) > _training_miss(res) + 100 * select.TIE_GAP:
            continue
        if checks.implausible(row["model"], {n: p.value for n, p in other.params.items()},
                              _fmt):
            continue
        passed[res.model] = (
            f"auto: {res.model} (leave-one-out error {best['score']:.1f} %) gives way to "
            f"{row['model']} ({row['score']:.1f} %), tied with it in the ranking: simulated "
            f"on the fitted points, {row['model']} misses the measured p90..p99 by "
            f"{theirs:.1f} % and {res.model} by {mine:.1f} % (means: "
            f"{_training_miss(other):.1f} and {_training_miss(res):.1f} %)")
        return other
    return res


def _plausible_winner(curve, holdout, ok: list[dict], kwargs: dict
                      ) -> tuple[FitResult, dict[str, str]]:
    """The best-ranked family whose fitted parameters are physically plausible for it
    (:func:`checks.implausible`): a family that wins the ranking only with values its own
    medium cannot have (a "disk" serving random I/Os in 100 us) describes the numbers, not
    the device, so the next one is fitted. Returns the fit and, per family passed over, a note
    saying why; when every family is implausible, the best-ranked one's fit and a note."""
    passed: dict[str, str] = {}
    first = None
    for rank, row in enumerate(ok, 1):
        res = fit(curve, model=row["model"], holdout=holdout, **kwargs)
        values = {n: p.value for n, p in res.params.items()}
        bad = checks.implausible(row["model"], values, _fmt)
        if not bad:
            return res, passed
        first = first or res
        why = "; ".join(b.split(": ", 1)[0] for b in bad)
        passed[row["model"]] = (
            f"auto: {row['model']} (ranked {rank}, leave-one-out error {row['score']:.1f} %) "
            f"is passed over: its fitted values are not physical for the family ({why})")
    passed[""] = ("auto: every candidate's fitted values are implausible for its family; the "
                  f"best-ranked, {ok[0]['model']}, is kept")
    return first, passed


def _parameter_names(mdl: Model, params: Sequence[str] | None, curve) -> list[str]:
    """The dotted keys to fit: ``params`` or the model's, checked; an SSD's die time split by
    direction when the data mix reads and writes."""
    names = list(params) if params is not None else list(mdl.params)
    if params is None and "device.die_service_s" in names and _has_reads_and_writes(curve):
        # the data mix reads and writes: each direction holds its die for its own time
        i = names.index("device.die_service_s")
        names[i:i + 1] = ["device.die_read_s", "device.die_write_s"]
    if not names:
        raise SpecError("fit: no parameters to fit (params is empty)")
    for n in names:
        if n not in PARAMETERS:
            raise SpecError(
                f"fit: unknown parameter {n!r}; fittable parameters: {', '.join(PARAMETERS)}"
            )
    if len(set(names)) != len(names):
        raise SpecError(f"fit: parameters listed twice: {names}")
    return names


def _base_stack(mdl: Model, base_stack: Stack | None) -> Stack:
    """The stack the parameters are set on: the model's, or the caller's of the same family."""
    base = base_stack if base_stack is not None else mdl.stack()
    if not isinstance(base, Stack):
        raise SpecError(f"fit: base_stack must be an iosim.Stack (got {type(base).__name__})")
    family = type(mdl.stack().device)
    if type(base.device) is not family:
        raise SpecError(
            f"fit: the {mdl.name} model needs a base stack with device.kind "
            f"{family.kind!r} (got {base.device.kind!r})"
        )
    return base


def _bounds(mdl: Model, names: Sequence[str], bounds) -> dict[str, tuple[float, float]]:
    """Each fitted parameter's range: the catalogue's, the model's, then the caller's."""
    bnds = {n: (PARAMETERS[n].lo, PARAMETERS[n].hi) for n in names}
    bnds.update({k: v for k, v in mdl.bounds.items() if k in bnds})
    for k, v in (bounds or {}).items():
        if k not in bnds:
            raise SpecError(f"fit: bounds given for {k!r}, which is not fitted")
        try:
            lo, hi = float(v[0]), float(v[1])
        except (TypeError, ValueError, IndexError):
            raise SpecError(f"fit: bounds for {k} must be a pair (lo, hi) (got {v!r})") from None
        if not 0 <= lo < hi or (PARAMETERS[k].log and lo <= 0):
            raise SpecError(
                f"fit: bounds for {k} must satisfy 0 <= lo < hi, lo > 0 on a log scale (got {v!r})"
            )
        bnds[k] = (lo, hi)
    return bnds


def _verify_points(stack, pts, surro, train, held, fitted_range, verify, ios, seed, engine,
                   warnings, fits_sizes: bool = False) -> tuple[list[dict], str]:
    """Every point simulated on the fitted stack (or the surrogate's prediction without
    ``verify``), with its errors against the measurement: the rows of ``FitResult.points``.
    ``fits_sizes``: the model has a size term, so sizes between the fitted ones are not
    extrapolations."""
    rows = []
    fitted_sizes = [p.workload.mean_block_bytes for p in train]
    sizes = (min(fitted_sizes), max(fitted_sizes)) if fits_sizes else None
    used_engine = engine
    for p, s in zip(pts, surro, strict=True):
        pred: dict[str, float] = {}
        half: dict[str, float] = {}
        if verify:
            r = simulate(stack, p.workload, ios=ios, seed=seed, engine=engine)
            for m in METRICS:
                v = _f(getattr(r, m))
                if v is not None:
                    pred[m] = v
            for m, h in (("iops", r.iops_ci95), ("lat_mean_s", r.lat_mean_ci95_s)):
                if _f(h) is not None:
                    half[m] = float(h)
            used_engine = r.engine or engine
        else:
            pred = dict(s)
            used_engine = "theory"
        err = {m: 100.0 * (pred[m] - meas) / meas for m, meas in p.measured.items() if m in pred}
        why = _extrapolation(p.workload, fitted_range, train[0].workload, sizes)
        extrap = p.index in held and why is not None
        if extrap:
            warnings.append(f"held-out {why}")
        rows.append(
            {
                "set": "holdout" if p.index in held else "fit",
                "index": p.index,
                **_jsonable(p.label),
                "measured": dict(p.measured),
                "predicted": pred,
                "error": err,
                "predicted_ci95": half,
                "surrogate": s,
                "extrapolated": extrap,
            }
        )
    return rows, used_engine


def fit(
    curve: Curve | Sequence[Results],
    model: str = "generic",
    params: Sequence[str] | None = None,
    holdout: Mapping[str, Sequence[Any]] | None = None,
    base_stack: Stack | None = None,
    *,
    bounds: Mapping[str, tuple[float, float]] | None = None,
    ios: int = 8000,
    fit_ios: int = 2000,
    seed: int = 1,
    engine: str = "auto",
    rel_noise: float = 0.01,
    verify: bool = True,
    shape: str = "lognormal",
    percentiles: bool = True,
) -> FitResult:
    """Calibrate ``params`` of a ``model`` stack to a measured curve.

    ``curve``: a :class:`Curve` (or list of :class:`Results`) of closed-loop points; each needs
    its outstanding I/Os (``numjobs``/``iodepth``, ``threads`` or ``qd`` in ``params``) and
    IOPS and/or mean latency (percentiles are used when ``device.service.scv`` is fitted).
    ``model``: ``generic``, ``ssd``, ``hdd``, ``hdd-ncq`` or ``cloud`` (see :data:`MODELS`),
    which gives the base stack and the default parameters; ``base_stack`` replaces the base
    stack.
    ``params``: dotted keys from :data:`PARAMETERS` to fit (default: the model's).
    ``holdout``: ``{key: [values]}``: points whose key (``iodepth``, ``threads``, ``numjobs``,
    ``qd``, ``outstanding``, ``bs`` (sizes such as ``"64k"``), ``rwmixread`` or any param of
    the points) has one of the values are not fitted but predicted. Points of several block
    sizes are fitted together when the model's family declares terms that grow with the size
    (``FitModel.size_params``, fitted then too); reads and writes when it has a service per
    direction (ssd, cloud); other models refuse such points in one line.
    ``bounds`` overrides parameter ranges. ``ios``: I/Os per point in the final
    simulation; ``fit_ios`` per point while fitting the scv. ``rel_noise``: the smallest
    relative error assumed for the confidence intervals (published figures are rounded).
    ``verify=False`` skips the simulation and reports the analytic predictions.
    ``shape``: ``"lognormal"`` (fit its scv to the measured percentiles) or ``"measured"`` (the
    lowest-depth point's latency percentiles, scaled to the fitted mean service time).
    ``percentiles=False`` fits the means only (no simulation for the scv, as ``auto``'s
    cross-validation does). ``model="auto"`` chooses the family (:mod:`iosim.fit.select`).
    """
    kw = dict(params=params, base_stack=base_stack, bounds=bounds, ios=ios, fit_ios=fit_ios,
              seed=seed, engine=engine, rel_noise=rel_noise, verify=verify, shape=shape,
              percentiles=percentiles)
    routed = _route(curve, model, holdout, kw)
    if routed is not None:
        return routed
    mdl = MODELS[model]
    if isinstance(params, str):
        params = [params]
    names = _parameter_names(mdl, params, curve)
    if not (isinstance(rel_noise, (int, float)) and rel_noise >= 0):
        raise SpecError(f"fit: rel_noise must be a number >= 0 (got {rel_noise!r})")
    base = _base_stack(mdl, base_stack)
    family_notes: list[str] = []
    warnings: list[str] = []
    pts = _points(curve, None, warnings)
    held = _select_held(pts, holdout)
    train = [p for p in pts if p.index not in held]
    if not train:
        raise SpecError("fit: every point is held out; nothing is left to fit")
    family_notes.extend(_clat_note(pts))
    if params is None and sizes_differ(train):
        # several block sizes: the family's terms that grow with the size are fitted too
        names.extend(n for n in mdl.size_params if n not in names)
    _check_one_workload(train, warnings,
                        by_direction=any(n in names for n in (
                            "device.die_read_s", "device.die_write_s",
                            "device.read_iops_limit", "device.write_iops_limit")),
                        by_size=any(n in names for n in SIZE_TERMS), model=model)
    if model == "raid" and base_stack is None:  # the members and the level from the input
        base = raid_base(base, train, family_notes)
    if mdl.simulated and base_stack is None:  # a disk's seeks: over the whole raw device,
        pts = whole_device_span(pts, base, family_notes)  # or a disk as large as the span
        train = [p for p in pts if p.index not in held]
        base = covering_device(base, pts, family_notes)
    measured_shape = _shape_of(mdl, model, shape, names, params, percentiles, base, train,
                               warnings)
    fit_notes: list[str] = []
    pool = _host_cpu_pool(mdl, names, params, train, fit_notes)
    bnds = _bounds(mdl, names, bounds)
    if pool is not None and "host.cpus" not in (bounds or {}):
        bnds["host.cpus"] = pool
    # an open-loop point's IOPS are its arrival rate: only its latency says something
    metrics = [(j, m) for j, p in enumerate(train) for m in MEAN_METRICS
               if m in p.measured and not (m == "iops" and p.workload.open_loop)]
    if model in ("hdd", "hdd-ncq"):
        _disk_warnings(model, curve, train, warnings)
    flat0 = None if mdl.simulated else _Flat.of(base)
    cal_kw = dict(fit_ios=fit_ios, seed=seed, engine=engine, rel_noise=rel_noise, verify=verify)
    before = list(warnings)
    choice_notes: list[str] = []  # what a discrete parameter's profile tried
    values, cov_params, rms, stack = _calibrate_counted(
        mdl, base, flat0, names, bnds, train, metrics, measured_shape, warnings, cal_kw,
        choice_notes)
    if fit_notes and not _pool_binds(flat0, values, train):
        # the pool the data suggested is no limit on these points: the model without it
        warnings[:] = before
        names.remove("host.cpus")
        fit_notes[0] += ("; fitted, the pool did not bind (no fitted point is limited by it), "
                         "so the model is fitted without it")
        choice_notes.clear()
        values, cov_params, rms, stack = _calibrate_counted(
            mdl, base, flat0, names, bnds, train, metrics, measured_shape, warnings, cal_kw,
            choice_notes)
    pauses = None
    if percentiles and verify and params is None and measured_shape is None and \
            not mdl.simulated and not base.pauses.on:
        pauses = pause_estimate(train)
    if pauses is not None:  # the tails show holds: the family with device pauses, if better
        tried = _fit_with_pauses(pauses, mdl, base, flat0, names, bnds, train, metrics,
                                 before, cal_kw, (values, stack), ios)
        if tried is not None:
            values, cov_params, rms, stack, warnings[:], choice_notes[:] = tried
            ios = pause_ios(pauses, train, ios)
            fit_notes.append(f"{pauses.note()}; each point is simulated with {ios:,} I/Os, "
                             f"enough for the fastest to meet about {PAUSES_SEEN} pauses")
    # -- verification by simulation at every point
    lo_n = min(p.n for p in train)
    hi_n = max(p.n for p in train)
    if flat0 is not None:
        surro = _predict_flat(_flat_with(flat0, values), [p.workload for p in pts])
    else:  # a simulated model has no analytic prediction
        surro = [{} for _ in pts]
    fits_sizes = any(n in names for n in SIZE_TERMS)
    rows, used_engine = _verify_points(stack, pts, surro, train, held, (lo_n, hi_n), verify,
                                       ios, seed, engine, warnings, fits_sizes=fits_sizes)
    warnings.extend(_diagnose(model, names, values, base, pts, train, rows, verify))
    order = sorted(range(len(rows)), key=lambda i: (
        pts[i].n, pts[i].workload.rate_iops or 0.0, pts[i].workload.mean_block_bytes,
        -pts[i].workload.read_fraction, i))
    rows = [rows[i] for i in order]
    mape, by_set = _mape(rows)
    sizes = [p.workload.mean_block_bytes for p in train]
    return FitResult(
        model=model,
        stack=stack,
        workload=train[0].workload,
        params={n: cov_params[n] for n in names},
        points=rows,
        mape=mape,
        mape_by_set=by_set,
        warnings=_dedupe(warnings),
        fitted_range=(lo_n, hi_n),
        engine=used_engine,
        seed=seed,
        ios=ios,
        surrogate_rms=rms,
        shape=shape,
        notes=family_notes + fit_notes + choice_notes,
        fitted_sizes=(min(sizes), max(sizes)) if fits_sizes else None,
    )


#: a fit with pauses is kept when its simulated tails on the fitted points (rms log error of
#: p90 .. p99) are at most this share of the fit's without them, its means (IOPS and mean
#: latency) no more than PAUSE_MEANS_SLACK worse
PAUSE_TAILS_BETTER = 0.7
PAUSE_MEANS_SLACK = 0.02
#: before fitting the family again with the pauses (its means polished on long simulations,
#: seconds), the fit without them plus the pauses, with the scv of the body the shallowest
#: fitted point shows (its median and p90, a lognormal), must get the tails this
#: much closer; else the pauses are dropped at once (a cheap first look, not the decision)
PAUSE_FIRST_LOOK = 0.85


def _fit_with_pauses(est: PauseEstimate, mdl: Model, base: Stack, flat0, names, bnds, train,
                     metrics, warnings_before: list[str], cal_kw: dict, fit0: tuple,
                     ios: int):
    """The family fitted again with the estimated pauses in its stack (longer simulations, so
    they see enough pauses), or None when the pauses do not follow the fitted points' tails
    clearly better than the fit without them (``fit0``: its values and stack; both simulated
    alike: one seed, as many I/Os). Returns (values, FitParams, rms, stack, warnings, choice
    notes)."""
    values0, stack0 = fit0
    base_p = base.with_(**{"pauses.rate_hz": est.rate_hz,
                           "pauses.duration": Deterministic(est.duration_s)})
    n = pause_ios(est, train, ios)
    seed, engine = cal_kw["seed"], cal_kw["engine"]
    tails0, means0 = _tail_scores(stack0, train, n, seed, engine)
    kw = dict(cal_kw, fit_ios=pause_ios(est, train, cal_kw["fit_ios"], PAUSES_SEEN_FITTING))
    look = dict(values0)
    if "device.service.scv" in names:  # the first look: the same means, the body's spread
        look["device.service.scv"] = min(max(body_scv(train), bnds["device.service.scv"][0]),
                                         bnds["device.service.scv"][1])
    if _tail_scores(_build_stack(base_p, look), train, n, seed, engine)[0] > \
            PAUSE_FIRST_LOOK * tails0:
        return None
    warn_p = list(warnings_before)
    notes_p: list[str] = []
    got = _calibrate_counted(mdl, base_p, flat0, list(names), bnds, train, metrics, None,
                             warn_p, kw, notes_p)
    tails_p, means_p = _tail_scores(got[3], train, n, seed, engine)
    if tails_p > PAUSE_TAILS_BETTER * tails0 or means_p > means0 + PAUSE_MEANS_SLACK:
        return None
    return (*got, warn_p, notes_p)


def _tail_scores(stack: Stack, train, ios: int, seed: int, engine: str) -> tuple[float, float]:
    """(rms log error of the tails p90 .. p99, of IOPS and mean latency) of ``stack``'s
    simulations of the fitted points against their measurements."""
    tails, means = [], []
    for p in train:
        r = simulate(stack, p.workload, ios=ios, seed=seed, engine=engine)
        shift = completion_shift_s(p.results)
        for q, v in tail_levels(p.results, shift):
            name = dict(TAIL_FIELDS).get(q)
            sim = _f(getattr(r, name)) if name else None
            if sim and 0.9 <= q <= 0.99:
                tails.append(math.log(sim / v))
        for m in MEAN_METRICS:
            sim = _f(getattr(r, m))
            if m in p.measured and sim:
                means.append(math.log(sim / p.measured[m]))

    def rms(xs):
        return math.sqrt(sum(x * x for x in xs) / len(xs)) if xs else 0.0

    return rms(tails), rms(means)


def _route(curve, model: str, holdout, kw: dict) -> FitResult | None:
    """The models that are several fits (``auto``; ``cloud`` over reads and writes; ``raid``
    over members the data do not name), after checking the model and shape names; ``None``
    for an ordinary fit."""
    if model == "auto":
        return _fit_auto(curve, holdout, kw)
    if model not in MODELS:
        raise SpecError(
            f"fit: unknown model {model!r}; choose auto or one of {', '.join(MODELS)}")
    if kw["shape"] not in SHAPES:
        raise SpecError(
            f"fit: unknown shape {kw['shape']!r}; choose one of {', '.join(SHAPES)}")
    if model == "cloud" and kw["params"] is None and kw["base_stack"] is None and \
            _has_reads_and_writes(curve):
        own = {k: v for k, v in kw.items() if k not in ("params", "base_stack")}
        return _fit_cloud_budgets(curve, holdout, own)
    if model == "raid" and kw["base_stack"] is None and _md_members(curve) is None:
        own = {k: v for k, v in kw.items() if k != "base_stack"}
        return _fit_raid_members(curve, dict(own, holdout=holdout))
    return None


def _clat_note(pts: list) -> list[str]:
    """A note when fio printed completion latencies, which are compared as totals."""
    shifts = [completion_shift_s(p.results) for p in pts]
    if not any(shifts):
        return []
    return ["measured percentiles: fio printed completion latencies (clat); each is compared "
            "as a total latency, clat + the point's mean submission latency "
            f"({min(shifts) * 1e6:.3g}..{max(shifts) * 1e6:.3g} us)"]


def _shape_of(mdl: Model, model: str, shape: str, names: list[str], params, percentiles: bool,
              base: Stack, train: list, warnings: list[str]):
    """The measured service-time shape (``shape="measured"``), or ``None``; appends
    ``device.service.scv`` to ``names`` when measured percentiles should fit it."""
    if shape == "measured" and mdl.simulated:
        raise SpecError(f"fit: shape 'measured' shapes a generic device's service time; the "
                        f"{model} model simulates the device family itself")
    if shape == "measured" and not base.device.service_fields:
        raise SpecError(f"fit: shape 'measured' shapes a device's service-time distributions; "
                        f"the {model} model has none (its latency is a fixed floor): choose "
                        "another --model, or drop --shape")
    measured_shape = _measured_shape(train, warnings) if shape == "measured" else None
    if measured_shape is not None and "device.service.scv" in names:
        raise SpecError("fit: shape 'measured' takes the service variability from the data; "
                        "do not fit device.service.scv with it")
    if measured_shape is None and params is None and not mdl.simulated and percentiles and \
            base.device.service_fields and any(
        m in p.measured for p in train for m in PCT_METRICS
    ):
        # measured percentiles: fit the service variability too (by simulation)
        names.append("device.service.scv")
    return measured_shape


def _disk_warnings(model: str, curve, train: list, warnings: list[str]) -> None:
    """A disk model's warnings: reordering the data show or hide, an md array fitted as one
    disk."""
    _warn_reordering(train, warnings, reorders=model == "hdd-ncq")
    members = _md_members(curve)
    if members is not None:  # one disk's model for an array's sweep
        warnings.append(
            f"the data name an md array, {members[0]} over {len(members[1])} disks "
            f"({', '.join(members[1])}): the {model} model is one disk serving it all; "
            "--model raid models the array (auto picks it)")


def _host_cpu_pool(mdl: Model, names: list[str], params, train: list,
                   notes: list[str]) -> tuple[float, float] | None:
    """Add ``host.cpus`` to the fitted parameters when the data call for it (the jobs of the
    fitted points contend for CPUs, :func:`checks.host_cpu_pool`) and the model has a host
    overhead on the surrogate (the note says so); the pool's bounds from the data also when
    the caller fits it by name. Returns those bounds (None: no pool, or the catalogue's)."""
    found = checks.host_cpu_pool(train, checks.spread_of(train)[0])
    if found is None:
        return None
    lo, hi, note = found
    if params is None and "host.overhead" in names and not mdl.simulated:
        names.append("host.cpus")
        notes.append(note)
    return (lo, hi) if "host.cpus" in names else None


def _pool_binds(flat0: _Flat, values: Mapping[str, float], train: list) -> bool:
    """Whether the fitted host CPU pool limits anything: the surrogate's IOPS or mean latency
    of some fitted point moves by more than 1 % when the pool is taken away."""
    wls = [p.workload for p in train]
    got = _predict_flat(_flat_with(flat0, values), wls)
    free = _predict_flat(_flat_with(flat0, {**values, "host.cpus": math.inf}), wls)
    return any(abs(a[m] / b[m] - 1) > 0.01 for a, b in zip(got, free, strict=True)
               for m in ("iops", "lat_mean_s") if b.get(m))


def _calibrate_counted(mdl: Model, base: Stack, flat0: _Flat | None, names: list[str], bnds,
                       train: list, metrics, measured_shape, warnings: list[str], kw: dict,
                       notes: list[str]):
    """:func:`_calibrate`, after warning when the parameters leave no degrees of freedom;
    discrete parameters (``choices``) as a profile (:mod:`iosim.fit.choices`: the rest fitted
    at each value, the best kept, a line in ``notes``)."""
    mean_names = [n for n in names if n not in _SIM_ONLY]
    n_res = independent_numbers(train, metrics)
    dof = n_res - len(mean_names)
    if mean_names and dof <= 0:
        # no residuals to measure the noise by: the intervals take the run-to-run spread
        spread, where = checks.spread_of(train)
        kw = dict(kw, rel_noise=max(kw["rel_noise"], spread))
        pairs = " (a closed loop's IOPS and mean latency count as one: N = IOPS x latency)" \
            if n_res < len(metrics) else ""
        warnings.append(
            f"{n_res} measured numbers{pairs} for {len(mean_names)} parameters: "
            + ("the parameters just reproduce the data, which leave nothing to check the model "
               "against nor to measure their noise by (the intervals take the run-to-run "
               f"spread, {100 * kw['rel_noise']:.0f} %{', ' + where if where else ''})"
               if dof == 0 else
               "the fit is not determined by the data (no degrees of freedom left)")
            + "; add points or fix parameters")
    discrete = choices.choice_names(names)
    if not discrete:
        return _calibrate(mdl, base, flat0, names, bnds, train, metrics, dof, measured_shape,
                          warnings, **kw)
    rest = [n for n in names if n not in discrete]

    def at_choice(base_c: Stack, own: list[str]):
        flat_c = None if flat0 is None else _Flat.of(base_c)
        values, cov, rms, stack = _calibrate(mdl, base_c, flat_c, rest, bnds, train, metrics,
                                             dof, measured_shape, own, **kw)
        if not [n for n in rest if n not in _SIM_ONLY]:  # nothing continuous: its objective
            sim_ios = min(kw["fit_ios"], mdl.sim_ios) if mdl.simulated else kw["fit_ios"]
            rms = _rms_of(stack, None if flat_c is None else _flat_with(flat_c, values),
                          train, metrics, sim_ios, kw["seed"], kw["engine"])
        return values, cov, rms, stack

    return choices.profile(at_choice, base, discrete, bnds, n_res, dof, kw["rel_noise"], train,
                           warnings, notes)


def _calibrate(mdl: Model, base: Stack, flat0: _Flat | None, names: list[str], bnds,
               train: list, metrics, dof: int, measured_shape, warnings: list[str], *,
               fit_ios: int, seed: int, engine: str, rel_noise: float, verify: bool):
    """The fitted values: the means (on the surrogate, or by simulation for a simulated
    family), the service scv against the percentiles, then the polish on simulations.
    Returns (values, FitParams, rms, calibrated stack). A measured shape shapes the base's
    service times, so every stack built from it (the polish's simulations, the result) keeps
    it, each scaled to its fitted mean."""
    if measured_shape is not None:
        base = _shaped(base, measured_shape)
    mean_names = [n for n in names if n not in _SIM_ONLY]
    values: dict[str, float] = {}
    rms = 0.0
    cov_params: dict[str, FitParam] = {}
    if mean_names and mdl.simulated:
        values, cov_params, rms = _fit_simulated(
            base, mean_names, bnds, train, metrics, min(fit_ios, mdl.sim_ios), seed, engine, dof,
            rel_noise, warnings)
    elif mean_names:
        values, cov_params, rms = _fit_means(flat0, mean_names, bnds, train, metrics, dof,
                                             rel_noise, warnings)
    # -- percentiles by simulation
    stack = _shaped(_build_stack(base, values), measured_shape)
    polishing = mdl.polish and verify and bool(mean_names)
    fits_scv = "device.service.scv" in names
    # the means alone, with the base's service shape (exponential: the surrogate's own
    # assumption): the fallback when the variability the percentiles ask for moves them off
    means_only = _polish(base, mean_names, values, bnds, train, metrics, fit_ios, seed,
                         engine, dof, rel_noise) if fits_scv and polishing else None
    before_scv = (dict(values), dict(cov_params), list(warnings))
    if fits_scv:
        v, p = _fit_scv(stack, train, values, bnds["device.service.scv"], fit_ios, seed, engine,
                        rel_noise, warnings)
        values["device.service.scv"] = v
        cov_params["device.service.scv"] = p
        stack = _build_stack(base, values)
    if polishing:
        # the surrogate is close, not exact, for the family's own model: least squares on
        # simulated points from its optimum (integers and the scv held), with the
        # simulation's own intervals
        v2, cov2, rms, polish_warn = _polish(base, mean_names, values, bnds, train, metrics,
                                             fit_ios, seed, engine, dof, rel_noise)
        values.update(v2)
        cont = list(v2)
        warnings[:] = [w for w in warnings if not any(w.startswith(n) for n in cont)]
        warnings.extend(polish_warn)
        cov_params.update(cov2)
        stack = _build_stack(base, values)
    if means_only is not None and means_only[2] < MEANS_FIRST * rms and \
            rms - means_only[2] > MEANS_MARGIN:
        # the percentiles' variability costs the means: keep the means (the model cannot follow
        # both), say so, and leave the percentiles unfitted
        v2, cov2, rms_b, polish_warn = means_only
        scv = values["device.service.scv"]
        values, cov_params, warnings[:] = before_scv
        values.update(v2)
        cov_params.update(cov2)
        warnings[:] = [w for w in warnings if not any(w.startswith(n) for n in v2)]
        warnings.extend(polish_warn)
        shape = _base_shape(base)
        warnings.append(
            f"device.service.scv: the measured percentiles ask for a service variability "
            f"(scv {scv:.3g}) that moves the fitted means off (rms {100 * rms:.1f} % on the "
            f"fitted points, against {100 * rms_b:.1f} % with the model's {shape} service "
            "times); the model cannot follow both, so the means were kept and its percentiles "
            "are not fitted: expect its tails to be off")
        names.remove("device.service.scv")
        rms = rms_b
        stack = _build_stack(base, values)
    return values, cov_params, rms, stack


def _base_shape(base: Stack) -> str:
    """The base stack's service-time shape, in words (``exponential``, ``scv 0.5``)."""
    fields = base.device.service_fields
    scv = getattr(getattr(base.device, fields[0]), "scv", None) if fields else None
    if scv is None:
        return "own"
    return "exponential" if math.isclose(scv, 1.0) else f"scv {scv:.3g}"


#: the means-only fallback replaces a percentile-fitted service variability when its rms on
#: the fitted points' means is below this fraction of the percentile fit's, and lower by more
#: than MEANS_MARGIN (log scale: 2 %, about a 10,000-I/O simulation's own 95 % half-width of
#: the mean; a smaller gain is not evidence)
MEANS_FIRST = 0.8
MEANS_MARGIN = 0.02


def _polish(base: Stack, mean_names: list[str], values: dict[str, float], bnds, train: list,
            metrics, fit_ios: int, seed: int, engine: str, dof: int, rel_noise: float):
    """Least squares on simulated points of the continuous mean parameters from ``values``
    (integers and the scv held). Returns (values, FitParams, rms, warnings)."""
    cont = [n for n in mean_names if not PARAMETERS[n].integer]
    polish_warn: list[str] = []
    v2, cov2, rms = _fit_simulated(
        base, cont, bnds, train, metrics, max(fit_ios, 10000), seed, engine,
        dof, rel_noise, polish_warn, starts=[{n: values[n] for n in cont}],
        fixed={n: values[n] for n in values if n not in cont}, max_nfev=25, polish=True)
    return v2, cov2, rms, polish_warn


def _diagnose(model: str, names: list[str], values: dict[str, float], base: Stack, pts: list,
              train: list, rows: list[dict], verify: bool) -> list[str]:
    """The warnings about a calibration: a knee never reached, fitted points missed beyond the
    spread, a measured sweep no queueing model follows, implausible values, a host overhead
    that caps, the span assumed (:mod:`iosim.fit.checks`)."""
    warnings: list[str] = []
    hi_n = max(p.n for p in train)
    if hi_n > 1 and "device.units" in names:
        # a knee never reached: units / caps are only bounded from below
        top = max(train, key=lambda q: q.n)
        if values.get("device.units", 0) >= top.n:
            warnings.append(
                f"the fitted points never load the device beyond its {values['device.units']:g} "
                f"units (largest fitted depth {top.n}): the knee is not in the data, so "
                "device.units is only bounded from below"
            )
    spread = checks.spread_of(pts)
    if verify:
        warnings.extend(checks.missed_training_points(rows, *spread))
        warnings.extend(checks.mixed_and_missed(rows, spread[0]))
    warnings.extend(checks.sweep_shape(pts, *spread))
    warnings.extend(checks.host_cpu(pts, spread[0]))
    warnings.extend(checks.rare_long_waits(pts))
    warnings.extend(checks.implausible(model, values, _fmt))
    warnings.extend(checks.host_cap(values, train, _fmt))
    warnings.extend(checks.assumed_span(model, train, base))
    return warnings


SHAPES = ("lognormal", "measured")

#: the parameters that make a model's service grow with the block size (a transfer rate per
#: unit, a bytes/s cap; every family's ``FitModel.size_params``, and the SSD's host link):
#: with one of them fitted, points of several sizes share one fit
SIZE_TERMS = tuple(dict.fromkeys(
    [n for m in MODELS.values() for n in m.size_params] + ["device.host_interface_Bps"]))


# -- the command line ----------------------------------------------------------------------


def run_cli(
    files: list[str],
    model: str,
    holdout: dict[str, list[str]] | None,
    as_json: bool,
    *,
    params: list[str] | None = None,
    ios: int = 8000,
    seed: int = 1,
    shape: str = "lognormal",
    fmt: str = "auto",
    output: str | None = None,
    only: dict[str, list[str]] | None = None,
    spanning: bool = False,
) -> int:
    """``iosim fit FILE... --model M [--only KEY=v,...] [--holdout KEY=v,... | --spanning]
    [--shape S] [--json] [-o F.toml]``:
    print the fit (and write the calibrated stack to ``output``), return 0.

    ``spanning``: hold out every value of what the sweep varies but its lowest, middle and
    highest (:mod:`iosim.fit.spanning`), said in one line first (in JSON: the first note).

    ``params`` (optional ``--params a,b``) replaces the model's default parameters; ``ios``
    and ``seed`` set the verifying simulation. User errors raise :class:`SpecError` (or
    ValueError) with a one-line message."""
    curve = load_curve(files, fmt)
    if only:
        from .points import keep_only

        curve = keep_only(curve, only)
    if spanning:
        from .spanning import spanning_split

        holdout, said = spanning_split(curve)
        if not as_json:
            print(said)
    res = fit(curve, model=model, params=params, holdout=holdout or None, ios=ios, seed=seed,
              shape=shape)
    if spanning and as_json:  # the split travels with the result
        res.notes = [said, *res.notes]
    if as_json:
        print(res.to_json())
    else:
        print(res.report())
    if output is not None:
        text = res.stack_toml(sorted(Path(f).name for f in files))
        Path(output).write_text(text, encoding="utf-8")
        print(f"wrote {output}: the calibrated stack; ask it what-if with `iosim run --stack "
              f"{output}`, `iosim sweep`, `iosim plan` or `iosim replay` (--stack {output})",
              file=sys.stderr if as_json else sys.stdout)
    return 0

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
   stalled), which no lognormal follows.
4. **Verification.** The calibrated stack is simulated at every point (fixed seed, ``engine``
   "auto", so the fast engine is used when it is available); the reported predictions and
   errors are the simulator's, not the surrogate's.

Confidence intervals come from the Jacobian of the residuals at the optimum (Gauss-Newton
covariance, s² = residual variance with a floor of ``rel_noise`` for rounded published figures,
Student-t quantile), computed on the log scale and transformed back, so they are asymmetric.
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
* ``hdd-ncq``: the HDD family (a 7200 rpm geometry, shortest-positioning-time-first over a
  32-command queue) with its seek curve scaled and the host gap fitted by simulation, because a
  disk that reorders its queue gains IOPS with depth in a way no set of identical units follows
  (``hdd`` warns when the data show it). Pass ``base_stack`` for another rpm or geometry.
* ``auto``: every family with a surrogate, ranked by leave-one-depth-out error
  (:mod:`iosim.fit.select`); the winner is fitted and verified.

Diagnostics (:mod:`iosim.fit.checks`): fitted points missed beyond the run-to-run spread (from
repeats in the data, else 8 %), parameters outside the family's physical range (one table with
sources), a host overhead that alone caps IOPS below a measured point, the span assumed for a
disk when the data do not give it. Inputs (:mod:`iosim.fit.inputs`): what becomes a point and
what is refused.

What a closed-loop curve can tell
---------------------------------
At every point the loop obeys Little's law, N = IOPS x (latency + host time), so a point gives
one independent number about the device (plus one about the host time). Below the knee the
latency is flat and the number of parallel units (or a rate cap) leaves no trace at all: a fit
on low depths bounds them only from below, and predictions above the fitted depths are
extrapolations. ``fit`` warns about both.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import optimize, stats

from ..dists import Deterministic, Distribution, Exponential, LogNormal, Quantiles
from ..results import Curve, Results
from ..simulate import simulate, sweep
from ..spec import SpecError
from ..stack import Stack, apply_overrides
from ..traces.table import read_table
from ..units import show_count, show_number, show_rate, show_time
from ..workload import Workload
from . import checks
from .catalogue import _SIM_ONLY, MODELS, PARAMETERS, SERVICE_PARAMS, Model, ParamDef, service_means
from .inputs import load_curve
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

# -- measured points -----------------------------------------------------------------------

METRICS = ("iops", "lat_mean_s", "lat_p50_s", "lat_p90_s", "lat_p95_s", "lat_p99_s")
MEAN_METRICS = ("iops", "lat_mean_s")
PCT_METRICS = ("lat_p50_s", "lat_p90_s", "lat_p95_s", "lat_p99_s")
_WORKLOAD_KEYS = (
    "rw",
    "rwmixread",
    "block_size_bytes",
    "numjobs",
    "iodepth",
    "span_bytes",
    "thinktime_s",
)


def _f(v: Any) -> float | None:
    if v is None:
        return None
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


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


def _check_one_workload(train: list[_Point], warnings: list[str],
                        by_direction: bool = False) -> None:
    """The fitted points must share one workload (direction, pattern, size), or one size and
    pattern when the model fits reads and writes apart (``by_direction``); a mix of I/O
    engines is worth a warning."""
    kinds: dict[str, int] = {}
    for p in train:
        wl = p.workload
        rw = wl.rw
        if by_direction:
            rw = "random" if rw.startswith("rand") else "sequential"
        key = rw + (f" {wl.rwmixread:g}% reads" if wl.rw in ("randrw", "rw") and
                    not by_direction else "") + f" {wl.mean_block_bytes / 1024:g} KiB"
        kinds[key] = kinds.get(key, 0) + 1
    if len(kinds) > 1:
        listed = "; ".join(f"{k}: {n} point{'s' if n > 1 else ''}"
                           for k, n in list(kinds.items())[:4])
        if len(kinds) > 4:
            listed += f"; and {len(kinds) - 4} more"
        raise SpecError(
            f"fit: the fitted points mix workloads ({listed}); one fit has one service time "
            "per direction and size: fit each workload on its own (hold the others out, e.g. "
            "--holdout rw=randwrite, or pass their files apart)"
        )
    engines = sorted({str(p.results.params["ioengine"]) for p in train
                      if p.results.params.get("ioengine")})
    if len(engines) > 1:
        warnings.append(
            f"the fitted points mix I/O engines ({', '.join(engines)}): a synchronous engine "
            "keeps one I/O per job in flight and costs more host time per I/O than an "
            "asynchronous one, so one host overhead may not fit both"
        )


def _workload_of(r: Results, base: Workload | None, where: str) -> Workload:
    p = dict(r.params or {})
    rate = _f(p.get("rate_iops"))
    if rate:
        raise SpecError(
            f"{where}: a rate-limited point (rate_iops = {rate:g}) cannot be fitted yet; "
            "fit points measured without a rate limit (a closed loop of numjobs x iodepth)"
        )
    iorate = _f(p.get("iorate"))
    if iorate is not None:  # vdbench at a fixed rate: an open loop (Poisson arrivals)
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
    d.pop("rate_iops", None)
    if iorate is not None:
        d["rate_iops"] = iorate
        d["arrival"] = "poisson"
    try:
        return Workload.from_dict(d)
    except SpecError as exc:
        raise SpecError(f"{where}: {exc}") from None


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
        wl = _workload_of(r, base_workload, where)
        meas = {}
        for m in METRICS:
            v = _f(getattr(r, m, None))
            if v is not None and v > 0:
                meas[m] = v
        if not any(m in meas for m in MEAN_METRICS):
            raise SpecError(f"{where}: has neither IOPS nor a mean latency to fit")
        label = {"outstanding": wl.outstanding, "numjobs": wl.numjobs, "iodepth": wl.iodepth}
        for k in ("threads", "qd", "iorate", "source"):
            if k in r.params:
                label[k] = r.params[k]
        asked = _f(r.params.get("iorate"))
        if asked is not None and not wl.open_loop:
            notes.append(
                f"{where}: vdbench asked for iorate={asked:g} and got "
                f"{meas.get('iops', float('nan')):.4g} IOPS: it could not keep up, so the "
                f"point is taken as a closed loop of its {wl.outstanding} threads")
        out.append(_Point(i, r, wl, meas, label))
    return out


def _match(point: _Point, key: str, values: Sequence[Any]) -> bool:
    k = key.strip()
    if k.startswith("workload."):
        k = k[len("workload.") :]
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
    k = key.strip().removeprefix("workload.")
    if k in ("threads", "qd", "numjobs", "iodepth", "outstanding", "n", "_index"):
        return True
    if k in ("block_size_bytes", "rw", "rwmixread", "span_bytes"):
        return True
    return any(k in (pt.results.params or {}) for pt in points)


# -- the fit -------------------------------------------------------------------------------


@dataclass
class FitParam:
    """One fitted parameter: value, 95 % confidence interval, bounds and status."""

    name: str
    value: float
    ci95: tuple[float, float]
    bounds: tuple[float, float]
    unit: str
    at_bound: bool = False
    determined: bool = True
    doc: str = ""

    def to_dict(self) -> dict:
        return {
            "value": self.value,
            "ci95": [self.ci95[0], self.ci95[1]],
            "unit": self.unit,
            "bounds": [self.bounds[0], self.bounds[1]],
            "at_bound": self.at_bound,
            "determined": self.determined,
        }


@dataclass
class FitResult:
    """What :func:`fit` found. ``to_dict()`` is the ``iosim fit --json`` contract."""

    model: str
    stack: Stack
    workload: Workload
    params: dict[str, FitParam]
    points: list[dict]
    mape: dict[str, float]
    mape_by_set: dict[str, dict[str, float]]
    warnings: list[str]
    fitted_range: tuple[int, int]
    engine: str
    seed: int
    ios: int
    surrogate_rms: float
    shape: str = "lognormal"
    # model="auto": the candidates' cross-validation rows, best first (see iosim.fit.select)
    selection: list[dict] | None = None
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "model": self.model,
            "shape": self.shape,
            "params": {k: p.to_dict() for k, p in self.params.items()},
            "points": self.points,
            "mape": self.mape,
            "mape_by_set": self.mape_by_set,
            "warnings": list(self.warnings),
            "fitted_range": {
                "outstanding_min": self.fitted_range[0],
                "outstanding_max": self.fitted_range[1],
            },
            "stack": self.stack.to_dict(),
            "engine": self.engine,
            "seed": self.seed,
            "ios": self.ios,
            **({"selection": self.selection} if self.selection is not None else {}),
            **({"notes": list(self.notes)} if self.notes else {}),
        }

    def to_json(self) -> str:
        return json.dumps(_jsonable(self.to_dict()), allow_nan=False)

    # predictions ---------------------------------------------------------------------------
    def _extrapolation(self, wl: Workload) -> str | None:
        return _extrapolation(wl, self.fitted_range, self.workload)

    def predict(
        self,
        workload: Workload | None = None,
        vary: Mapping[str, Iterable[Any]] | None = None,
        *,
        ios: int | None = None,
        seed: int | None = None,
        engine: str | None = None,
    ) -> Results | Curve:
        """Simulate the calibrated stack: one ``workload`` (Results) or a sweep over ``vary``
        (Curve), e.g. ``predict(vary={"workload.iodepth": [1, 4, 64]})``. Warnings about
        extrapolation are put in ``extra["warnings"]`` of each Results."""
        wl = workload if workload is not None else self.workload
        kw = dict(
            ios=ios or self.ios,
            seed=self.seed if seed is None else seed,
            engine=engine or self.engine,
        )
        if vary:
            curve = sweep(self.stack, wl, vary, progress=False, **kw)
            for r in curve.points:
                _, w = apply_overrides(self.stack, wl, {k: r.params[k] for k in vary})
                msg = self._extrapolation(w)
                if msg:
                    r.extra.setdefault("warnings", []).append(msg)
            return curve
        r = simulate(self.stack, wl, **kw)
        msg = self._extrapolation(wl)
        if msg:
            r.extra.setdefault("warnings", []).append(msg)
        return r

    def _points_table(self, metrics: list[str]) -> list[str]:
        """Each point's measured and predicted value of ``metrics``, and the error."""
        cols = ["set", "N"]
        for m in metrics:
            cols += [f"{_short(m)} meas", "pred", "err"]
        rows = []
        for pt in self.points:
            mark = "*" if pt.get("extrapolated") else ""
            row = [pt["set"], f"{pt['outstanding']}{mark}"]
            for m in metrics:
                unit = "iops" if m == "iops" else "s"
                meas, pred = pt["measured"].get(m), pt["predicted"].get(m)
                err = pt["error"].get(m)
                row += [
                    _fmt(meas, unit),
                    _fmt(pred, unit),
                    "-" if err is None else f"{err:+.0f} %",
                ]
            rows.append(row)
        return _aligned(cols, rows)

    def report(self) -> str:
        """A human-readable summary (what ``iosim fit`` prints without ``--json``)."""
        lines = []
        if self.selection is not None:
            from .select import table

            lines.append("model auto: leave-one-depth-out errors of the candidate families "
                         "(surrogate predictions of each fitted depth from the others):")
            lines.extend(table(self.selection))
        lines.extend(self.notes)
        lines.append(
            f"model {self.model}: fitted on outstanding I/Os "
            f"{self.fitted_range[0]}..{self.fitted_range[1]}"
        )
        if self.shape != "lognormal":
            lines.append(f"service time: {self.stack.device.service}")
        lines.append("parameters (95 % confidence interval):")
        for name, p in self.params.items():
            lines.append(
                f"  {name:22s} {_fmt(p.value, p.unit):>10s}  "
                f"[{_fmt(p.ci95[0], p.unit)} .. {_fmt(p.ci95[1], p.unit)}]"
                + ("  (at bound)" if p.at_bound else "")
                + ("" if p.determined else "  (poorly determined)")
            )
        metrics = [m for m in METRICS if m in self.mape]
        # tables of two metrics, each as measured / predicted / error columns
        for k in range(0, len(metrics), 2):
            lines.append("")
            lines.extend(self._points_table(metrics[k : k + 2]))
        if any(pt.get("extrapolated") for pt in self.points):
            lines.append("  * outside the fitted range (an extrapolation)")
        sets = list(self.mape_by_set) if len(self.mape_by_set) > 1 else []
        lines.append("")
        lines.append("mean absolute error (MAPE):")
        rows = [["all points", *(f"{self.mape[m]:.1f} %" for m in metrics)]]
        for name in sets:
            d = self.mape_by_set[name]
            rows.append([f"{name} points", *(f"{d[m]:.1f} %" if m in d else "-" for m in metrics)])
        lines.extend(_aligned(["", *(_short(m) for m in metrics)], rows))
        for w in self.warnings:
            lines.append(f"warning: {w}")
        return "\n".join(lines)


def _aligned(cols: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]
    out = []
    for cells in (cols, *rows):
        out.append(
            "  " + "  ".join(
                v.ljust(w) if i == 0 else v.rjust(w)
                for i, (v, w) in enumerate(zip(cells, widths, strict=True))
            ).rstrip()
        )
    return out


def _extrapolation(wl: Workload, fitted: tuple[int, int], ref: Workload) -> str | None:
    """Why a prediction for ``wl`` leaves what the fitted points showed, or None."""
    lo, hi = fitted
    n = wl.outstanding
    if n > hi:
        return (
            f"prediction at {n} outstanding I/Os extrapolates beyond the fitted range "
            f"({lo}..{hi}): a knee or a cap above {hi} cannot be seen from the fitted points "
            "(a closed-loop point gives one independent number, since IOPS = depth / latency)"
        )
    if n < lo:
        return (
            f"prediction at {n} outstanding I/Os extrapolates below the fitted range "
            f"({lo}..{hi}): the latency floor and the host overhead are only inferred"
        )
    if wl.mean_block_bytes != ref.mean_block_bytes or wl.rw != ref.rw:
        return (
            f"prediction for {wl.rw} {wl.mean_block_bytes:g} B extrapolates from the fitted "
            f"workload ({ref.rw} {ref.mean_block_bytes:g} B)"
        )
    return None


def _short(metric: str) -> str:
    return {"iops": "IOPS", "lat_mean_s": "mean lat"}.get(
        metric, metric.replace("lat_", "").replace("_s", "")
    )


def _fmt(v: float | None, unit: str) -> str:
    """The one way numbers with units are printed (iosim.units.show_*)."""
    if v is None or not math.isfinite(v):
        return "-"
    if unit == "s":
        return "0 s" if abs(v) < 1e-12 else show_time(v)
    if unit == "B/s":
        return show_rate(v)
    if unit == "iops":
        return show_count(v)
    return show_number(v)


def _jsonable(v: Any) -> Any:
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, (np.floating, float)):
        f = float(v)
        return f if math.isfinite(f) else None
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.bool_):
        return bool(v)
    return v


class _Problem:
    """Transformation between the optimiser's vector and named parameter values."""

    def __init__(self, names: list[str], bounds: dict[str, tuple[float, float]]):
        self.names = names
        self.defs = [PARAMETERS[n] for n in names]
        self.lo = np.array([self._t(d, bounds[d.name][0]) for d in self.defs])
        self.hi = np.array([self._t(d, bounds[d.name][1]) for d in self.defs])

    @staticmethod
    def _t(d: ParamDef, v: float) -> float:
        return math.log(v) if d.log else v

    def to_x(self, values: Mapping[str, float]) -> np.ndarray:
        x = np.array([self._t(d, values[d.name]) for d in self.defs])
        span = self.hi - self.lo
        return np.clip(x, self.lo + 1e-9 * span, self.hi - 1e-9 * span)

    def values(self, x: np.ndarray) -> dict[str, float]:
        return {
            d.name: (math.exp(v) if d.log else float(v)) for d, v in zip(self.defs, x, strict=True)
        }


def _residuals(
    flat0: _Flat,
    names: list[str],
    problem: _Problem,
    x: np.ndarray,
    pts: list[_Point],
    metrics: list[tuple[int, str]],
) -> np.ndarray:
    flat = _Flat(**flat0.__dict__)
    for k, v in problem.values(x).items():
        flat.set(k, v)
    preds = _predict_flat(flat, [p.workload for p in pts])
    out = np.empty(len(metrics))
    for i, (j, m) in enumerate(metrics):
        pred = preds[j][m]
        meas = pts[j].measured[m]
        out[i] = math.log(pred / meas) if pred > 0 and math.isfinite(pred) else 10.0
    return out


def _initial(
    names: list[str], pts: list[_Point], base: _Flat, bounds: dict[str, tuple[float, float]]
) -> list[dict[str, float]]:
    """Starting points from the data: floor from the lowest depth, units from peak IOPS."""
    order = sorted(pts, key=lambda p: p.n)
    p1 = order[0]
    x1 = p1.measured.get("iops")
    r1 = p1.measured.get("lat_mean_s")
    if r1 is None and x1:
        r1 = p1.n / x1
    if x1 is None and r1:
        x1 = p1.n / r1
    z0 = max(0.0, p1.n / x1 - r1) if (x1 and r1 and p1.workload.iodepth == 1) else 0.0
    xmax = max(_iops_of(p) for p in pts)
    nmax = order[-1].n
    floor = max(r1 or base.service_s, 1e-7)
    guess: dict[str, float] = {
        "host.overhead": z0,
        "device.service": floor,
        "device.units": base.units,
        "device.service.scv": 1.0,
        "hba.queue_depth": min(base.queue_depth, float(nmax)),
        "link.latency_s": base.latency_s,
        "link.bandwidth_Bps": base.bandwidth_Bps,
    }
    if "link.latency_s" in names:
        guess["link.latency_s"] = 0.4 * floor
        guess["device.service"] = 0.2 * floor
    guess["device.latency_s"] = floor
    guess["device.iops_limit"] = 1.05 * xmax
    guess["device.read_iops_limit"] = guess["device.write_iops_limit"] = 1.05 * xmax
    guess["device.die_service_s"] = 0.7 * floor
    guess["device.die_read_s"] = guess["device.die_write_s"] = 0.7 * floor
    guess["device.controller_overhead_s"] = 0.3 * floor
    guess["device.host_interface_Bps"] = base.host_if_Bps
    bs = p1.workload.mean_block_bytes
    cap_key = next((k for k in ("link.bandwidth_Bps", "device.host_interface_Bps",
                                "device.iops_limit") if k in names), None)
    per_io = 1.0 if cap_key == "device.iops_limit" else bs
    if cap_key:
        guess[cap_key] = 1.05 * xmax * per_io
    unit_key = "device.dies" if "device.dies" in names else "device.units"
    svc = guess["device.die_service_s" if unit_key == "device.dies" else "device.service"]
    k0 = max(1.0, xmax * svc) if xmax else 1.0
    starts = []
    k_list = [k0]
    if unit_key in names:
        k_list = sorted(
            {max(1.0, min(4096.0, k)) for k in (1.0, k0, 2 * k0, 4 * k0, 0.5 * k0, 2.0 * nmax)}
        )
    cap_list = [guess.get(cap_key or "link.bandwidth_Bps", base.bandwidth_Bps)]
    if cap_key:
        cap_list = [1.05 * xmax * per_io, 3.0 * xmax * per_io]
    for k in k_list:
        for cap in cap_list:
            g = dict(guess, **{unit_key: k})
            if cap_key:
                g[cap_key] = cap
            if "hba.queue_depth" in names:
                for q in (float(nmax), max(1.0, k0)):
                    starts.append(dict(g, **{"hba.queue_depth": q}))
            else:
                starts.append(g)
    out = []
    for s in starts:
        out.append({n: min(max(s[n], bounds[n][0]), bounds[n][1]) for n in names})
    return out


def _iops_of(p: _Point) -> float:
    if "iops" in p.measured:
        return p.measured["iops"]
    return p.n / p.measured["lat_mean_s"]


def _set_dist(base: Distribution, mean: float, scv: float | None) -> Distribution:
    if scv is not None:
        return LogNormal(mean, scv)
    if mean <= 0:
        return Deterministic(0.0)
    if isinstance(base, Deterministic) or base.mean_s <= 0:
        return Deterministic(mean) if isinstance(base, Deterministic) else Exponential(mean)
    return base.scaled(mean / base.mean_s)


def _build_stack(base: Stack, values: Mapping[str, float]) -> Stack:
    over: dict[str, Any] = {}
    scv = values.get("device.service.scv")
    if scv is not None or any(k in values for k in SERVICE_PARAMS):
        # the family's service-time fields: their means set, one scv shaping them all
        for f, mean in service_means(base.device, values).items():
            over[f"device.{f}"] = _set_dist(getattr(base.device, f), mean, scv)
    if "host.overhead" in values:
        v = values["host.overhead"]
        ov = base.host.overhead
        over["host.overhead"] = (
            Deterministic(v) if ov.mean_s <= 0 or v <= 0 else ov.scaled(v / ov.mean_s)
        )
    for k in ("device.units", "hba.queue_depth"):
        if k in values:
            over[k] = int(round(values[k]))
    for k in ("link.latency_s", "link.bandwidth_Bps", "device.controller_overhead_s",
              "device.host_interface_Bps"):
        if k in values:
            over[k] = float(values[k])
    if "device.dies" in values:  # one die per channel: the channels never add a wait
        over["device.channels"] = int(round(values["device.dies"]))
        over["device.dies_per_channel"] = 1
    if "device.latency_s" in values:
        over["device.latency"] = _set_dist(base.device.latency, values["device.latency_s"], None)
    for k in ("device.iops_limit", "device.read_iops_limit", "device.write_iops_limit"):
        if k in values:
            over[k] = float(values[k])
    if "device.avg_seek_s" in values:  # the seek curve keeps its shape
        k = values["device.avg_seek_s"] / base.device.avg_seek_s
        for key in ("avg_seek_s", "track_to_track_s", "full_stroke_s"):
            over[f"device.{key}"] = getattr(base.device, key) * k
    stack, _ = apply_overrides(base, None, over)
    return stack


def _fit_simulated(base: Stack, names: list[str], bnds, train: list[_Point], metrics,
                   fit_ios: int, seed: int, engine: str, dof: int, rel_noise: float,
                   warnings: list[str], starts: list[dict[str, float]] | None = None,
                   fixed: Mapping[str, float] | None = None, max_nfev: int = 30,
                   polish: bool = False):
    """Least squares on simulated IOPS and mean latency (common random numbers: one seed for
    every evaluation; steps of 5 % so that the finite differences see the physics rather than
    the reshuffling of individual events). ``starts``: starting values (default: from the
    data, for a disk); ``fixed``: values held (e.g. an integer already chosen). Returns
    (values, FitParams, rms)."""
    prob = _Problem(names, bnds)
    cache: dict[tuple, np.ndarray] = {}
    held = dict(fixed or {})

    def fun(x):
        key = tuple(np.round(x, 9))
        if key not in cache:
            stack = _build_stack(base, {**held, **prob.values(x)})
            runs = [simulate(stack, p.workload, ios=fit_ios, seed=seed, engine=engine)
                    for p in train]
            out = np.empty(len(metrics))
            for i, (j, m) in enumerate(metrics):
                pred = _f(getattr(runs[j], m))
                meas = train[j].measured[m]
                out[i] = math.log(pred / meas) if pred and pred > 0 else 10.0
            cache[key] = out
        return cache[key]

    # starts: the host gap from Little's law at the lowest depth; the seek from the base and
    # from the lowest depth's latency less half a turn
    p1 = min(train, key=lambda q: q.n)
    x1, r1 = p1.measured.get("iops"), p1.measured.get("lat_mean_s")
    z0 = max(0.0, p1.n / x1 - r1) if (x1 and r1 and p1.workload.iodepth == 1) else 0.0
    if starts is None:
        seeks = [base.device.avg_seek_s]
        if r1 and hasattr(base.device, "revolution_s"):
            seeks.append(max(1e-3, r1 / max(1, p1.n) - base.device.revolution_s / 2))
        starts = [{"host.overhead": z0, "device.avg_seek_s": seek} for seek in seeks]
    best = None
    for start in starts:
        if best is not None and math.sqrt(2 * best.cost / max(len(best.fun), 1)) < 0.04:
            break  # the first start already fits within the run-to-run noise
        start = {n: min(max(start.get(n, (bnds[n][0] + bnds[n][1]) / 2), bnds[n][0]),
                        bnds[n][1]) for n in names}
        # a polish starts next to the optimum: steps of 5 % of each value; a disk fitted from
        # scratch by short noisy runs: scipy's steps (5 % of max(1, |x|), coarser)
        jac = (lambda x: _coarse_jacobian(fun, x, prob)) if polish else "2-point"
        res = optimize.least_squares(fun, prob.to_x(start), bounds=(prob.lo, prob.hi),
                                     jac=jac, diff_step=None if polish else 0.05,
                                     xtol=1e-3, ftol=1e-4, max_nfev=max_nfev)
        if best is None or res.cost < best.cost:
            best = res
    values = prob.values(best.x)
    resid = fun(best.x)
    rms = float(np.sqrt(np.mean(resid**2))) if len(resid) else 0.0
    # at a bound: within a millionth of the range (least_squares' own mask uses xtol, which is
    # coarse here, and would flag a small host gap as sitting at zero)
    tol = 1e-6 * (prob.hi - prob.lo)
    active = np.where(best.x <= prob.lo + tol, -1, np.where(best.x >= prob.hi - tol, 1, 0))
    cov = _intervals(prob, names, best.x, values, best.jac, resid, dof, rel_noise, bnds,
                     warnings, active)
    return values, cov, rms


def _coarse_jacobian(fun, x: np.ndarray, prob: _Problem) -> np.ndarray:
    """Forward differences with steps of 5 % (log-scaled parameters) or 5 % of the value but at
    least 0.1 % of the range (linear ones, e.g. a host overhead of a few microseconds in a range
    of 10 ms), stepping inward at a bound: steps large enough that a simulated objective shows
    the physics rather than the reshuffling of individual events."""
    f0 = fun(x)
    jac = np.zeros((len(f0), len(x)))
    for i, d in enumerate(prob.defs):
        span = prob.hi[i] - prob.lo[i]
        h = 0.05 if d.log else max(0.05 * abs(x[i]), 1e-3 * span)
        if x[i] + h > prob.hi[i]:
            h = -h
        y = x.copy()
        y[i] = x[i] + h
        jac[:, i] = (fun(y) - f0) / h
    return jac


def _select_held(pts: list[_Point], holdout: Mapping[str, Sequence[Any]] | None) -> set[int]:
    """Indices of the points the ``holdout`` mapping selects (one clear error per bad key)."""
    held: set[int] = set()
    for key, values in (holdout or {}).items():
        if not _known_key(pts, key):
            raise SpecError(
                f"fit: holdout key {key!r} is not a property of the points (use iodepth, "
                "numjobs, threads, qd, outstanding or a param of the measurement)"
            )
        vals = [values] if isinstance(values, (str, int, float)) else list(values)
        matched = {p.index for p in pts if _match(p, key, vals)}
        if not matched:
            raise SpecError(f"fit: holdout {key}={','.join(map(str, vals))} matches no point")
        held |= matched
    return held


def _fit_cloud_budgets(curve, holdout, kwargs: dict) -> FitResult:
    """A cloud volume measured with reads and writes: a cap per direction, either one bucket
    each (``separate``) or one budget both draw on (``shared``); both are fitted and the data
    choose (the smaller sum of squared residuals on the fitted points)."""
    names = ["host.overhead", "device.latency_s", "device.read_iops_limit",
             "device.write_iops_limit"]
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


def _fit_auto(curve, holdout, kwargs: dict) -> FitResult:
    """``model="auto"``: rank the candidate families by leave-one-depth-out error, fit the
    winner (see :mod:`iosim.fit.select`)."""
    from . import select

    if kwargs.get("params") is not None or kwargs.get("base_stack") is not None:
        raise SpecError("fit: model 'auto' chooses the family and its parameters; do not pass "
                        "params or base_stack with it")
    cv_kw = {k: v for k, v in kwargs.items() if k in ("rel_noise",)}
    rows = select.rank(curve, holdout, fit, **cv_kw)
    ok = [r for r in rows if math.isfinite(r["score"])]
    if not ok:
        why = "; ".join(f"{r['model']}: {r['error']}" for r in rows if r["error"])
        raise SpecError(f"fit: model auto: no candidate could be fitted ({why})")
    pts = _points(curve, None)
    n_depths = len(select._groups(pts, _select_held(pts, holdout)))
    res = fit(curve, model=ok[0]["model"], holdout=holdout, **kwargs)
    res.selection = rows
    res.notes = select.verdict(rows, n_depths) + res.notes
    return res


def _lsq(fun, x0, lo, hi):
    return optimize.least_squares(
        fun,
        x0,
        bounds=(lo, hi),
        x_scale="jac",
        diff_step=1e-4,
        xtol=1e-10,
        ftol=1e-10,
        gtol=1e-10,
        max_nfev=400,
    )


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


def _fit_means(flat0, mean_names, bnds, train, metrics, dof, rel_noise, warnings):
    """Least squares of the analytic surrogate on the measured means, from the three best of
    several starts; integers rounded with the rest re-fitted. (values, intervals, rms)."""
    prob = _Problem(mean_names, bnds)

    def fun(x):
        return _residuals(flat0, mean_names, prob, x, train, metrics)

    best = None
    starts = _initial(mean_names, train, flat0, bnds)
    # screen the starts with one evaluation each; optimise from the three best
    costs = [float(np.sum(fun(prob.to_x(s)) ** 2)) for s in starts]
    order = np.argsort(costs, kind="stable")[:3]
    for start in (starts[i] for i in order):
        try:
            res = _lsq(fun, prob.to_x(start), prob.lo, prob.hi)
        except ValueError:
            continue
        if best is None or res.cost < best.cost - 1e-15:
            best = res
    if best is None:  # pragma: no cover - least_squares raised for every start
        raise SpecError("fit: the optimiser failed from every starting point")
    x_best = best.x
    # integers: try the neighbours, re-fitting the continuous rest
    ints = [i for i, n in enumerate(mean_names) if PARAMETERS[n].integer]
    if ints:
        x_best, best = _round_integers(fun, prob, best, ints)
    values = dict(prob.values(x_best))
    for i in ints:
        values[mean_names[i]] = float(round(values[mean_names[i]]))
    res_vec = fun(x_best)
    rms = float(np.sqrt(np.mean(res_vec**2))) if len(res_vec) else 0.0
    # the at-bound flags and intervals are centred on the reported solution (the integers
    # as rounded, the rest re-fitted), so that a printed value and its flag agree; the
    # sensitivities come from the continuous optimum (integers relaxed)
    jac = _jacobian(fun, best.x, prob)
    cov_params = _intervals(
        prob, mean_names, x_best, values, jac, res_vec, dof, rel_noise, bnds, warnings,
        np.zeros(len(x_best)),
    )
    return values, cov_params, rms


def _shaped(stack: Stack, measured_shape) -> Stack:
    """The stack with the generic device's service shaped like the measured percentiles
    (``shape="measured"``), scaled to its fitted mean; unchanged without a shape."""
    if measured_shape is None:
        return stack
    k = stack.device.service.mean_s / measured_shape.mean_s
    # four figures: the percentiles are rounded already
    service = Quantiles.of((p, float(f"{t * k:.4g}")) for p, t in measured_shape.points)
    return stack.with_(**{"device.service": service})


def _verify_points(stack, pts, surro, train, held, fitted_range, verify, ios, seed, engine,
                   warnings) -> tuple[list[dict], str]:
    """Every point simulated on the fitted stack (or the surrogate's prediction without
    ``verify``), with its errors against the measurement: the rows of ``FitResult.points``."""
    rows = []
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
        why = _extrapolation(p.workload, fitted_range, train[0].workload)
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
    ``qd``, ``outstanding`` or any param of the points) has one of the values are not fitted
    but predicted. ``bounds`` overrides parameter ranges. ``ios``: I/Os per point in the final
    simulation; ``fit_ios`` per point while fitting the scv. ``rel_noise``: the smallest
    relative error assumed for the confidence intervals (published figures are rounded).
    ``verify=False`` skips the simulation and reports the analytic predictions.
    ``shape``: ``"lognormal"`` (fit its scv to the measured percentiles) or ``"measured"`` (the
    lowest-depth point's latency percentiles, scaled to the fitted mean service time).
    ``percentiles=False`` fits the means only (no simulation for the scv, as ``auto``'s
    cross-validation does). ``model="auto"`` chooses the family (:mod:`iosim.fit.select`).
    """
    if model == "auto":
        return _fit_auto(curve, holdout, dict(
            params=params, base_stack=base_stack, bounds=bounds, ios=ios, fit_ios=fit_ios,
            seed=seed, engine=engine, rel_noise=rel_noise, verify=verify, shape=shape,
            percentiles=percentiles))
    if model not in MODELS:
        raise SpecError(
            f"fit: unknown model {model!r}; choose auto or one of {', '.join(MODELS)}")
    if shape not in SHAPES:
        raise SpecError(f"fit: unknown shape {shape!r}; choose one of {', '.join(SHAPES)}")
    mdl = MODELS[model]
    if isinstance(params, str):
        params = [params]
    if model == "cloud" and params is None and base_stack is None and \
            _has_reads_and_writes(curve):
        return _fit_cloud_budgets(curve, holdout, dict(
            bounds=bounds, ios=ios, fit_ios=fit_ios, seed=seed, engine=engine,
            rel_noise=rel_noise, verify=verify, shape=shape, percentiles=percentiles))
    names = _parameter_names(mdl, params, curve)
    if not (isinstance(rel_noise, (int, float)) and rel_noise >= 0):
        raise SpecError(f"fit: rel_noise must be a number >= 0 (got {rel_noise!r})")
    base = _base_stack(mdl, base_stack)
    point_notes: list[str] = []
    pts = _points(curve, None, point_notes)
    held = _select_held(pts, holdout)
    train = [p for p in pts if p.index not in held]
    if not train:
        raise SpecError("fit: every point is held out; nothing is left to fit")
    warnings: list[str] = list(point_notes)
    _check_one_workload(train, warnings,
                        by_direction=any(n in names for n in (
                            "device.die_read_s", "device.die_write_s",
                            "device.read_iops_limit", "device.write_iops_limit")))
    if shape == "measured" and mdl.simulated:
        raise SpecError(f"fit: shape 'measured' shapes a generic device's service time; the "
                        f"{model} model simulates the device family itself")
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
    bnds = _bounds(mdl, names, bounds)
    mean_names = [n for n in names if n not in _SIM_ONLY]
    # an open-loop point's IOPS are its arrival rate: only its latency says something
    metrics = [(j, m) for j, p in enumerate(train) for m in MEAN_METRICS
               if m in p.measured and not (m == "iops" and p.workload.open_loop)]
    if model in ("hdd", "hdd-ncq"):
        _warn_reordering(train, warnings, reorders=model == "hdd-ncq")
    n_res = len(metrics)
    dof = n_res - len(mean_names)
    if mean_names and dof <= 0:
        warnings.append(
            f"{n_res} measured numbers for {len(mean_names)} parameters: the fit is not "
            "determined by the data (no degrees of freedom left); add points or fix parameters"
        )
    flat0 = None if mdl.simulated else _Flat.of(base)
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
    if "device.service.scv" in names:
        v, p = _fit_scv(stack, train, values, bnds["device.service.scv"], fit_ios, seed, engine,
                        rel_noise, warnings)
        values["device.service.scv"] = v
        cov_params["device.service.scv"] = p
        stack = _build_stack(base, values)
    if mdl.polish and verify and mean_names:
        # the surrogate is close, not exact, for the family's own model: least squares on
        # simulated points from its optimum (integers and the scv held), with the
        # simulation's own intervals
        cont = [n for n in mean_names if not PARAMETERS[n].integer]
        polish_warn: list[str] = []
        v2, cov2, rms = _fit_simulated(
            base, cont, bnds, train, metrics, max(fit_ios, 10000), seed, engine,
            dof, rel_noise, polish_warn, starts=[{n: values[n] for n in cont}],
            fixed={n: values[n] for n in values if n not in cont}, max_nfev=25, polish=True)
        values.update(v2)
        warnings[:] = [w for w in warnings if not any(w.startswith(n) for n in cont)]
        warnings.extend(polish_warn)
        cov_params.update(cov2)
        stack = _build_stack(base, values)
    params_out = {n: cov_params[n] for n in names}
    # -- verification by simulation at every point
    lo_n = min(p.n for p in train)
    hi_n = max(p.n for p in train)
    if flat0 is not None:
        surro = _predict_flat(_flat_with(flat0, values), [p.workload for p in pts])
    else:  # a simulated model has no analytic prediction
        surro = [{} for _ in pts]
    rows, used_engine = _verify_points(stack, pts, surro, train, held, (lo_n, hi_n), verify,
                                       ios, seed, engine, warnings)
    if hi_n > 1 and "device.units" in names:
        # a knee never reached: units / caps are only bounded from below
        top = max(train, key=lambda q: q.n)
        if values.get("device.units", 0) >= top.n:
            warnings.append(
                f"the fitted points never load the device beyond its {values['device.units']:g} "
                f"units (largest fitted depth {top.n}): the knee is not in the data, so "
                "device.units is only bounded from below"
            )
    if verify:
        warnings.extend(checks.missed_training_points(rows, *checks.spread_of(pts)))
    warnings.extend(checks.sweep_shape(pts, *checks.spread_of(pts)))
    warnings.extend(checks.implausible(model, values, _fmt))
    warnings.extend(checks.host_cap(values, train, _fmt))
    warnings.extend(checks.assumed_span(model, train, base))
    order = sorted(range(len(rows)), key=lambda i: (pts[i].n, i))
    rows = [rows[i] for i in order]
    mape, by_set = _mape(rows)
    return FitResult(
        model=model,
        stack=stack,
        workload=train[0].workload,
        params=params_out,
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
    )


SHAPES = ("lognormal", "measured")


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
    if isinstance(listed, Mapping):
        for k, v in listed.items():
            pk, pv = _f(k), _f(v)
            if pk is not None and pv is not None and pv > 0:
                pts[pk] = pv
    for pk, m in ((50.0, "lat_p50_s"), (90.0, "lat_p90_s"), (95.0, "lat_p95_s"),
                  (99.0, "lat_p99_s"), (99.9, "lat_p999_s"), (100.0, "lat_max_s")):
        v = _f(getattr(r, m, None))
        if v is not None and v > 0:
            pts.setdefault(pk, v)
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


def _dedupe(items: list[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for w in items:
        if w not in seen:
            seen.add(w)
            out.append(w)
    return out


def _round_integers(fun, prob: _Problem, best, ints: list[int]):
    """Round the integer parameters to the neighbour (floor/ceil) that fits best, re-fitting
    the continuous ones with the integers held."""
    x = best.x.copy()
    options = []
    for i in ints:
        v = math.exp(x[i]) if prob.defs[i].log else x[i]
        cands = sorted({max(math.floor(v), 1), max(math.ceil(v), 1)})
        options.append([prob._t(prob.defs[i], c) for c in cands])
    free = [i for i in range(len(x)) if i not in ints]
    best_x, best_cost = None, math.inf
    for combo in _product(options):
        xi = x.copy()
        for i, c in zip(ints, combo, strict=True):
            xi[i] = c
        if free:

            def sub(y, xi=xi):
                z = xi.copy()
                z[free] = y
                return fun(z)

            try:
                r = _lsq(
                    sub,
                    np.clip(xi[free], prob.lo[free] + 1e-12, prob.hi[free] - 1e-12),
                    prob.lo[free],
                    prob.hi[free],
                )
                xi[free] = r.x
                cost = r.cost
            except ValueError:
                continue
        else:
            cost = 0.5 * float(np.sum(fun(xi) ** 2))
        if cost < best_cost:
            best_x, best_cost = xi, cost
    return (best_x if best_x is not None else x), best


def _product(options: list[list[float]]):
    if not options:
        yield ()
        return
    for head in options[0]:
        for rest in _product(options[1:]):
            yield (head, *rest)


def _jacobian(fun, x: np.ndarray, prob: _Problem) -> np.ndarray:
    """Central differences, stepping inward at a bound."""
    f0 = fun(x)
    jac = np.zeros((len(f0), len(x)))
    for i in range(len(x)):
        span = prob.hi[i] - prob.lo[i]
        h = 1e-4 * max(1.0, abs(x[i])) if prob.defs[i].log else 1e-4 * max(abs(x[i]), 1e-3 * span)
        h = max(h, 1e-9 * span)
        up, dn = x.copy(), x.copy()
        up[i] = min(x[i] + h, prob.hi[i])
        dn[i] = max(x[i] - h, prob.lo[i])
        if up[i] == dn[i]:
            continue
        jac[:, i] = (fun(up) - fun(dn)) / (up[i] - dn[i])
    return jac


def _intervals(
    prob: _Problem,
    names: list[str],
    x: np.ndarray,
    values: dict[str, float],
    jac: np.ndarray,
    res: np.ndarray,
    dof: int,
    rel_noise: float,
    bnds: dict[str, tuple[float, float]],
    warnings: list[str],
    active: np.ndarray,
) -> dict[str, FitParam]:
    n_res, k = jac.shape
    ssr = float(np.sum(res**2))
    s2 = max(ssr / dof if dof > 0 else 0.0, rel_noise**2)
    tq = float(stats.t.ppf(0.975, max(dof, 1)))
    jtj = jac.T @ jac
    col = np.sqrt(np.diag(jtj))
    scale = np.where(col > 0, col, 1.0)
    norm = jtj / np.outer(scale, scale)
    try:
        inv = np.linalg.pinv(norm, rcond=1e-10) / np.outer(scale, scale)
    except np.linalg.LinAlgError:  # pragma: no cover
        inv = np.full((k, k), np.inf)
    var = s2 * np.diag(inv)
    out: dict[str, FitParam] = {}
    # flat directions and correlations
    flat_tol = 1e-6
    for i, n in enumerate(names):
        d = prob.defs[i]
        lo, hi = bnds[n]
        span = prob.hi[i] - prob.lo[i]
        at_lo = active[i] < 0 or x[i] - prob.lo[i] <= 1e-6 * span
        at_hi = active[i] > 0 or prob.hi[i] - x[i] <= 1e-6 * span
        flat = col[i] < flat_tol
        if flat or not np.isfinite(var[i]):
            ci = (lo, hi)
        else:
            half = tq * math.sqrt(max(var[i], 0.0))
            a, b = x[i] - half, x[i] + half
            if d.log:
                ci = (math.exp(max(a, prob.lo[i])), math.exp(min(b, prob.hi[i])))
            else:
                ci = (max(a, lo), min(b, hi))
        v = values[n]
        if d.integer:
            ci = (float(math.floor(ci[0])), float(math.ceil(ci[1])))
            ci = (max(ci[0], lo), min(ci[1], hi))
        ci = (min(ci[0], v), max(ci[1], v))
        determined = True
        if flat:
            determined = False
            warnings.append(
                f"{n}: the objective is flat in this parameter (no fitted point is sensitive "
                "to it), so it is not determined by the data"
            )
        elif at_lo or at_hi:
            # a host overhead of zero with a tight upper limit is a finding, not a failure
            determined = n == "host.overhead" and at_lo and ci[1] < 0.1 * _ref_scale(values)
            warnings.append(
                f"{n} = {_fmt(v, d.unit)} is at its {'lower' if at_lo else 'upper'} bound "
                f"({_fmt(lo if at_lo else hi, d.unit)}): the data push it there; the fit is "
                "poorly determined in this direction"
            )
        else:
            wide = (
                (ci[1] / ci[0] > 10.0)
                if (d.log and ci[0] > 0)
                else ((ci[1] - ci[0]) > 0.9 * (hi - lo))
            )
            if wide or ci[0] <= lo * (1 + 1e-9) and ci[1] >= hi * (1 - 1e-9):
                determined = False
                warnings.append(
                    f"{n} is poorly determined: its 95 % interval spans "
                    f"{_fmt(ci[0], d.unit)} .. {_fmt(ci[1], d.unit)}"
                )
        out[n] = FitParam(n, v, ci, (lo, hi), d.unit, bool(at_lo or at_hi), determined, d.doc)
    # confounded pairs
    if k > 1:
        with np.errstate(invalid="ignore", divide="ignore"):
            sd = np.sqrt(np.abs(np.diag(inv)))
            corr = inv / np.outer(sd, sd)
        for i in range(k):
            for j in range(i + 1, k):
                c = corr[i, j]
                if np.isfinite(c) and abs(c) > 0.995 and col[i] > flat_tol and col[j] > flat_tol:
                    warnings.append(
                        f"{names[i]} and {names[j]} are confounded (correlation {c:+.3f}): the "
                        "data fix a combination of them, not each one"
                    )
                    out[names[i]].determined = out[names[j]].determined = False
    return out


def _ref_scale(values: Mapping[str, float]) -> float:
    return values.get("device.service", 1e-3)


def _fit_scv(
    stack: Stack,
    train: list[_Point],
    values: dict[str, float],
    bounds: tuple[float, float],
    fit_ios: int,
    seed: int,
    engine: str,
    rel_noise: float,
    warnings: list[str],
) -> tuple[float, FitParam]:
    """The service scv by simulation against measured percentiles (lognormal service, same
    seed at every evaluation so the objective is smooth in the scv)."""
    d = PARAMETERS["device.service.scv"]
    targets = [(p, m) for p in train for m in PCT_METRICS if m in p.measured]
    if not targets:
        warnings.append(
            "device.service.scv: the points have no latency percentiles, so the service "
            "variability cannot be fitted; kept at 1 (exponential)"
        )
        return 1.0, FitParam(d.name, 1.0, bounds, bounds, d.unit, False, False, d.doc)
    # each service field of the family keeps its mean and takes the one scv
    means = {f"device.{f}": m for f, m in service_means(stack.device, values).items()}
    cache: dict[float, np.ndarray] = {}

    def residuals(log_scv: float) -> np.ndarray:
        key = round(log_scv, 6)
        if key in cache:
            return cache[key]
        s, _ = apply_overrides(stack, None, {k: LogNormal(m, math.exp(log_scv))
                                             for k, m in means.items()})
        out = []
        sims: dict[int, Results] = {}
        for p, m in targets:
            if p.index not in sims:
                sims[p.index] = simulate(s, p.workload, ios=fit_ios, seed=seed, engine=engine)
            v = _f(getattr(sims[p.index], m))
            out.append(math.log(v / p.measured[m]) if v and v > 0 else 10.0)
        cache[key] = np.array(out)
        return cache[key]

    def ssr(t: float) -> float:
        return float(np.sum(residuals(t) ** 2))

    lo, hi = math.log(bounds[0]), math.log(bounds[1])
    grid = np.linspace(lo, hi, 5)
    vals = [ssr(t) for t in grid]
    i = int(np.argmin(vals))
    a, b = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    r = optimize.minimize_scalar(
        ssr, bounds=(a, b), method="bounded", options={"xatol": 0.05, "maxiter": 10}
    )
    t = float(r.x) if r.fun <= vals[i] else float(grid[i])
    f0 = ssr(t)
    n = len(targets)
    dof = max(n - 1, 1)
    s2 = max(f0 / dof if n > 1 else 0.0, rel_noise**2)
    # curvature of the sum of squares on the log scale -> standard error
    h = 0.15
    fp, fm = ssr(min(t + h, hi)), ssr(max(t - h, lo))
    curv = (fp - 2 * f0 + fm) / h**2
    at_bound = t - lo < 0.05 or hi - t < 0.05
    determined = True
    if curv > 1e-12:
        half = float(stats.t.ppf(0.975, dof)) * math.sqrt(2 * s2 / curv)
        ci = (math.exp(max(t - half, lo)), math.exp(min(t + half, hi)))
    else:
        ci = bounds
        determined = False
        warnings.append(
            "device.service.scv: the percentiles hardly change with the service variability "
            "(flat objective), so it is not determined by the data"
        )
    v = math.exp(t)
    if at_bound:
        determined = False
        warnings.append(
            f"device.service.scv = {v:.3g} is at a bound of its range "
            f"({bounds[0]:g}..{bounds[1]:g}): poorly determined"
        )
    elif ci[1] / ci[0] > 10:
        determined = False
        warnings.append(
            f"device.service.scv is poorly determined: its 95 % interval spans "
            f"{ci[0]:.3g} .. {ci[1]:.3g}"
        )
    return v, FitParam(d.name, v, ci, bounds, d.unit, at_bound, determined, d.doc)


def _mape(rows: list[dict]) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    def agg(sel):
        out = {}
        for m in METRICS:
            errs = [abs(r["error"][m]) for r in sel if m in r["error"]]
            if errs:
                out[m] = float(np.mean(errs))
        return out

    by = {}
    for s in ("fit", "holdout"):
        sel = [r for r in rows if r["set"] == s]
        if sel:
            by[s] = agg(sel)
    return agg(rows), by


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
) -> int:
    """``iosim fit FILE... --model M [--holdout KEY=v,...] [--shape S] [--json]``: print the
    fit, return 0.

    ``params`` (optional ``--params a,b``) replaces the model's default parameters; ``ios``
    and ``seed`` set the verifying simulation. User errors raise :class:`SpecError` (or
    ValueError) with a one-line message."""
    curve = load_curve(files, fmt)
    res = fit(curve, model=model, params=params, holdout=holdout or None, ios=ios, seed=seed,
              shape=shape)
    if as_json:
        print(res.to_json())
    else:
        print(res.report())
    return 0

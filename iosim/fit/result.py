"""What a fit returns (:class:`FitResult`, :class:`FitParam`): parameters with their intervals,
per-point errors, predictions of other workloads, the printed report."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..results import Curve, Results
from ..simulate import simulate, sweep
from ..stack import Stack, apply_overrides, dump_toml
from ..units import show_count, show_number, show_rate, show_size, show_time
from ..workload import Workload
from .points import METRICS

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
    # the smallest and largest fitted block size when the model fitted a size term (sizes
    # between them are interpolations), else None
    fitted_sizes: tuple[float, float] | None = None

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

    def stack_toml(self, sources: Sequence[str] = ()) -> str:
        """The calibrated stack (and the fitted workload) as a stack file that ``iosim run``,
        ``sweep``, ``plan`` and ``replay`` take with ``--stack``: its comments say what it was
        fitted on (``sources``: the measured files), which points, the parameters with their
        confidence intervals and the held-out error, so the file carries its own provenance."""
        def depths(kind: str) -> str:
            got = sorted({p["outstanding"] for p in self.points if p["set"] == kind})
            return ", ".join(str(n) for n in got) or "none"

        shown = ", ".join(sources) if len(sources) <= 3 else (
            f"{sources[0]} ... {sources[-1]} ({len(sources)} files)")
        how = (f"`iosim fit --model {self.model}` (seed {self.seed})" if self.selection is None
               else f"`iosim fit --model auto` (the {self.model} family won its leave-one-out "
                    f"ranking; seed {self.seed})")
        head = [f"# fitted by {how} on " + (shown or "measured points"),
                f"# fitted points (outstanding I/Os): {depths('fit')}; held out: "
                f"{depths('holdout')}"]
        for name, p in self.params.items():
            head.append(f"# {name} = {_fmt(p.value, p.unit)} (95 % CI {_fmt(p.ci95[0], p.unit)}"
                        f" .. {_fmt(p.ci95[1], p.unit)})" + (", at its bound" if p.at_bound
                                                             else ""))
        for kind in ("fit", "holdout"):
            m = self.mape_by_set.get(kind) or {}
            if m.get("iops") is not None or m.get("lat_mean_s") is not None:
                shown = [f"{label} {m[key]:.1f} %" for key, label in
                         (("iops", "IOPS"), ("lat_mean_s", "mean latency"))
                         if m.get(key) is not None]
                head.append(f"# {'fitted' if kind == 'fit' else 'held-out'} points' error "
                            f"(MAPE): {', '.join(shown)}")
        lo, hi = self.fitted_range
        head.append(f"# a prediction outside {lo}..{hi} outstanding I/Os, or for another "
                    "workload, extrapolates")
        return "\n".join(head) + "\n" + dump_toml(self.stack, self.workload)

    # predictions ---------------------------------------------------------------------------
    def _extrapolation(self, wl: Workload) -> str | None:
        return _extrapolation(wl, self.fitted_range, self.workload, self.fitted_sizes)

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
            # (a fit without verification reports engine "theory": simulate as "auto")
            engine=engine or (self.engine if self.engine != "theory" else "auto"),
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
        # a sweep of sizes, read/write mixes or arrival rates: a column for what varies
        extra = [k for k in ("block_size_bytes", "rwmixread", "rate_iops")
                 if len({pt.get(k) for pt in self.points}) > 1]
        cols += [{"block_size_bytes": "bs", "rwmixread": "read %", "rate_iops": "rate"}[k]
                 for k in extra]
        # a grid of jobs and depths: N alone names two points (4 jobs x 1, 1 job x 4)
        grid = all(len({pt.get(k) for pt in self.points}) > 1 for k in ("numjobs", "iodepth"))
        if grid:
            cols.append("jobs x qd")
        for m in metrics:
            cols += [f"{_short(m)} meas", "pred", "err"]
        rows = []
        for pt in self.points:
            mark = "*" if pt.get("extrapolated") else ""
            row = [pt["set"], f"{pt['outstanding']}{mark}"]
            row += [show_size(pt[k]) if k == "block_size_bytes" else
                    "-" if pt.get(k) is None else
                    _fmt(pt[k], "iops") if k == "rate_iops" else f"{pt[k]:g}" for k in extra]
            if grid:
                row.append(f"{pt.get('numjobs')} x {pt.get('iodepth')}")
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
            from .catalogue import MODELS
            from .select import table

            simulated = " and ".join(r["model"] for r in self.selection
                                     if MODELS[r["model"]].simulated)
            kinds = {(p.get("block_size_bytes"), p.get("rwmixread")) for p in self.points
                     if p["set"] == "fit"}
            unit = "depth" if len(kinds) <= 1 else "point"
            lines.append(f"model auto: leave-one-{unit}-out errors of the candidate families "
                         f"(each fitted {unit} predicted from the others, by the analytic "
                         "surrogate" + (f"; by simulation for {simulated}" if simulated else "")
                         + "):")
            lines.extend(table(self.selection))
        lines.extend(self.notes)
        rates = [pt["rate_iops"] for pt in self.points
                 if pt["set"] == "fit" and pt.get("rate_iops") is not None]
        if rates and len(rates) == sum(pt["set"] == "fit" for pt in self.points):
            lines.append(f"model {self.model}: fitted on open loops arriving at "
                         f"{_fmt(min(rates), 'iops')}..{_fmt(max(rates), 'iops')} I/O per s")
        else:
            lines.append(
                f"model {self.model}: fitted on outstanding I/Os "
                f"{self.fitted_range[0]}..{self.fitted_range[1]}"
            )
        if self.shape != "lognormal":
            for f in self.stack.device.service_fields:
                dist = getattr(self.stack.device, f)
                text = str(dist) if not hasattr(dist, "points") else "quantiles " + ", ".join(
                    f"p{p:g} {show_time(t)}" for p, t in dist.points)  # for reading
                lines.append(f"{'service time' if f == 'service' else f}: {text}")
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


def _extrapolation(wl: Workload, fitted: tuple[int, int], ref: Workload,
                   sizes: tuple[float, float] | None = None) -> str | None:
    """Why a prediction for ``wl`` leaves what the fitted points showed, or None. ``sizes``:
    the smallest and largest fitted block size when the model fits sizes (a size between
    them is an interpolation), else the size must be ``ref``'s."""
    if sizes is not None and wl.rw == ref.rw and sizes[0] <= wl.mean_block_bytes <= sizes[1]:
        ref = wl  # within the fitted sizes
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


def _dedupe(items: list[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for w in items:
        if w not in seen:
            seen.add(w)
            out.append(w)
    return out


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

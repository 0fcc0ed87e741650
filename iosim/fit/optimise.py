"""The least squares of a fit: on the analytic surrogate (several starts, integers rounded to
the better neighbour), on simulations (a disk, a polish), the service scv against measured
percentiles, and the confidence intervals from the Jacobian."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
from scipy import optimize, stats

from ..dists import LogNormal
from ..results import Results
from ..simulate import simulate
from ..spec import SpecError
from ..stack import Stack, apply_overrides
from .build import _build_stack
from .catalogue import PARAMETERS, ParamDef, service_means
from .points import MEAN_METRICS, PCT_METRICS, _f, _iops_of, _Point, rare_long_waits
from .result import FitParam, _fmt
from .surrogate import _Flat, _predict_flat


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


def number_weights(train: list[_Point], metrics: list[tuple[int, str]]) -> np.ndarray:
    """Per residual, the share of one independent measured number it carries: a closed
    loop's IOPS and mean latency are one number, not two (Little's law, N = IOPS x latency:
    their log errors are equal and opposite), so each counts one half; every other residual
    (an open loop's latency, a point with one of the two) counts one. The intervals weight
    the residuals so (:func:`_intervals`), and the degrees of freedom are their sum less
    the parameters: counting such a pair twice made the intervals about a third of their
    width on a closed-loop sweep."""
    have: dict[int, set[str]] = {}
    for j, m in metrics:
        have.setdefault(j, set()).add(m)
    return np.array([0.5 if (not train[j].workload.open_loop
                             and {"iops", "lat_mean_s"} <= have[j]
                             and m in ("iops", "lat_mean_s")) else 1.0
                     for j, m in metrics])


def independent_numbers(train: list[_Point], metrics: list[tuple[int, str]]) -> int:
    """How many independent measured numbers ``metrics`` holds (:func:`number_weights`)."""
    return int(round(float(np.sum(number_weights(train, metrics)))))


def _size_rate(order: list[_Point]) -> float | None:
    """The transfer rate the lowest depth's points suggest (bytes per second of mean latency
    added from its smallest to its largest size), or None (one size, or no growth)."""
    low = [p for p in order if p.n == order[0].n and "lat_mean_s" in p.measured]
    if len(low) < 2:
        return None
    a, b = low[0], low[-1]
    dt = b.measured["lat_mean_s"] - a.measured["lat_mean_s"]
    db = b.workload.mean_block_bytes - a.workload.mean_block_bytes
    return db / dt if dt > 0 and db > 0 else None


def _initial(
    names: list[str], pts: list[_Point], base: _Flat, bounds: dict[str, tuple[float, float]]
) -> list[dict[str, float]]:
    """Starting points from the data: floor from the lowest depth (its smallest size), units
    from peak IOPS, a transfer rate from how the lowest depth's latency grows with the
    size."""
    order = sorted(pts, key=lambda p: (p.n, p.workload.mean_block_bytes))
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
    rate = _size_rate(order)
    if rate is not None:  # the floor without the smallest size's transfer
        floor = max(floor - p1.workload.mean_block_bytes / rate, 0.2 * floor)
        for k in ("device.service", "device.latency_s"):
            guess[k] = floor
        guess["device.die_service_s"] = guess["device.die_read_s"] = 0.7 * floor
    rate = rate or 1e9
    guess["device.media_rate_Bps"] = guess["device.channel_rate_Bps"] = rate
    guess["device.bandwidth_limit_Bps"] = 1.05 * max(
        _iops_of(p) * p.workload.mean_block_bytes for p in pts)
    cap_key = next((k for k in ("link.bandwidth_Bps", "device.host_interface_Bps",
                                "device.iops_limit") if k in names), None)
    # the cap's peak: IOPS, or bytes/s (the largest of the points: sizes may differ)
    peak = xmax if cap_key == "device.iops_limit" else \
        max(_iops_of(p) * p.workload.mean_block_bytes for p in pts)
    if cap_key:
        guess[cap_key] = 1.05 * peak
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
        cap_list = [1.05 * peak, 3.0 * peak]
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
    if "device.contention" in names:  # as 1 / the parallelism the peak asks for, and around
        cs = sorted({min(1.0, max(1e-4, c / k0)) for c in (0.5, 1.0, 2.0)} | {0.05, 0.3})
        starts = [dict(s, **{"device.contention": c}) for s in starts for c in cs]
    if "host.cpus" in names:  # the host's CPUs: no limit, and the CPUs the benchmark kept busy
        busy = max(((p.results.counters or {}).get("cpu_pct") or 0.0) / 100 for p in pts)
        pools = sorted({bounds["host.cpus"][1], max(1.0, float(math.ceil(busy)))})
        starts = [dict(s, **{"host.cpus": c}) for s in starts for c in pools]
    out = []
    for s in starts:
        out.append({n: min(max(s[n], bounds[n][0]), bounds[n][1]) for n in names})
    return out


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
    if starts is None:  # the family's own starts (a disk's seek), each with the host gap
        starts = [{"host.overhead": z0, **s} for s in base.device.fit_starts(r1, p1.n)]
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
                     warnings, active, number_weights(train, metrics))
    return values, cov, rms


def _rms_of(stack: Stack, flat: _Flat | None, train: list[_Point], metrics, fit_ios: int,
            seed: int, engine: str) -> float:
    """The rms log error of ``metrics`` on the fitted points for a stack with nothing left to
    fit: the surrogate's (``flat``) or, without one, simulated as a simulated fit does (one
    seed, ``fit_ios`` I/Os a point)."""
    if flat is not None:
        preds = _predict_flat(flat, [p.workload for p in train])
    else:
        runs = [simulate(stack, p.workload, ios=fit_ios, seed=seed, engine=engine)
                for p in train]
        preds = [{m: _f(getattr(r, m)) for m in MEAN_METRICS} for r in runs]
    out = []
    for j, m in metrics:
        pred = preds[j].get(m)
        ok = pred is not None and pred > 0 and math.isfinite(pred)
        out.append(math.log(pred / train[j].measured[m]) if ok else 10.0)
    return float(np.sqrt(np.mean(np.square(out)))) if out else 0.0


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
        np.zeros(len(x_best)), number_weights(train, metrics),
    )
    return values, cov_params, rms


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
    weights: np.ndarray | None = None,
) -> dict[str, FitParam]:
    """The parameters' 95 % intervals from the Jacobian at the solution: residuals weighted
    by the share of an independent number each carries (``weights``, :func:`number_weights`;
    ``dof`` counts independent numbers less parameters); the noise from the residuals with
    Student's t, or, where the residuals leave no degrees of freedom or less noise than
    ``rel_noise``, the assumed noise ``rel_noise`` with the normal quantile (a known
    spread)."""
    if weights is not None:
        w = np.sqrt(weights)
        res = res * w
        jac = jac * w[:, None]
    n_res, k = jac.shape
    ssr = float(np.sum(res**2))
    if dof > 0 and ssr / dof >= rel_noise**2:
        s2, tq = ssr / dof, float(stats.t.ppf(0.975, dof))
    else:
        s2, tq = rel_noise**2, float(stats.norm.ppf(0.975))
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
    # a point whose waiting is held by under 1 % of its I/Os has percentiles no family
    # produces (checks.rare_long_waits): the scv is fitted to the others
    targets = [(p, m) for p in train for m in PCT_METRICS
               if m in p.measured and not rare_long_waits(p)]
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

"""Calibrate a model family on a block trace's measured latencies, and predict the rest of it.

A trace that records each request's response time (blkparse D->C, biosnoop, MSR Cambridge,
a fio latency log, DiskSim's validate traces, a csv with a latency column) is data a sweep is
not: the device's answer to the load it really had. :func:`fit_trace` replays the first part
of the trace (``train_fraction`` of its requests) through a family's stack, moves the family's
parameters until the simulated response times match the measured ones, then replays the whole
trace on the calibrated stack and compares the requests after the split, which the fit never
saw (the queue at the split carries over, as it did on the device).

The objective is the squared log-ratio of simulated to measured response times at the mean
(counted twice) and at the 10th..99th percentiles: the whole distribution, not one figure.
Each evaluation is one replay on a fixed seed (common random numbers keep the objective
smooth); the search is a Latin hypercube over a box set by the data (the measured latencies'
range for times, the trace's IOPS and bytes/s for rates), then Nelder-Mead from its best point,
in log space where the parameter is logarithmic. A count (units, dies) or a choice (a
disk's rpm) is profiled: the rest fitted at each value (powers of two for a count, then the
best one's neighbours), the best kept.

A disk (``hdd-ncq``, ``raid``) also fits what a trace shows of its buffer and cache: its bus
rate, one overhead for a buffer hit or a cached write, and its write cache (off or on, profiled
like the rpm; :data:`iosim.devices.hdd_fit.TRACE_DISK_PARAMETERS`); a single disk's capacity is
the trace's highest address (:func:`_set_values`), said in a note.

``model="auto"`` fits each family on the first two thirds of the training part and ranks them
by the error on its last third (requests none of them was fitted on); the winner is then
fitted on the whole training part. The held-out part after the split decides nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..devices.hdd_fit import TRACE_DISK_PARAMS
from ..spec import SpecError
from ..stack import Stack
from .build import _build_stack
from .catalogue import MODELS, PARAMETERS

__all__ = ["TraceFit", "fit_trace", "TRACE_MODELS"]

#: the families a trace fit tries under ``auto`` (the disk ones only when the trace's times are
#: a disk's: :func:`mechanical`)
TRACE_MODELS = ("generic", "contention", "ssd", "cloud", "hdd-ncq")
_DISK_MODELS = {"hdd-ncq", "raid"}
_FLASH_MODELS = {"ssd", "ssd-pool"}
_QUANTILES = np.array([10, 25, 50, 75, 90, 95, 99], float)
_SCV = "device.service.scv"
_CLOSED_LOOP_ONLY = {"host.overhead", "host.cpus"}
_QUEUE_EDGES = np.array([0, 1, 2, 4, 8, 16])
_LHS_POINTS = 16
_STARTS = 1  # Nelder-Mead runs, from the best points of the hypercube
_NM_EVALS = 60
#: the longest part each evaluation replays (a longer training part: its last requests)
MAX_FIT_REQUESTS = 20_000


@dataclass
class TraceFit:
    """What :func:`fit_trace` found: the family, its values, the calibrated stack, and the
    errors on the requests it was fitted on and on those after the split."""

    model: str
    values: dict
    stack: Stack
    split: int  # requests before the split (fitted on)
    n: int  # requests in the trace
    train: dict  # {"mean_s", "p50_s", ...: (measured, simulated)}, and "demerit_s"
    test: dict
    candidates: list = field(default_factory=list)  # auto: (model, params, error on B)
    notes: list = field(default_factory=list)
    evaluations: int = 0

    def errors(self, part: str = "test") -> dict:
        """(simulated - measured) / measured of the mean and percentiles of a part."""
        d = self.train if part == "train" else self.test
        return {k: (v[1] - v[0]) / v[0] for k, v in d.items() if k != "demerit_s" and v[0] > 0}

    def to_dict(self) -> dict:
        return {"model": self.model, "values": dict(self.values), "split": self.split,
                "requests": self.n, "train": _jsonable(self.train),
                "test": _jsonable(self.test), "train_errors": self.errors("train"),
                "test_errors": self.errors("test"), "candidates": [
                    {"model": m, "params": p, "error": e} for m, p, e in self.candidates],
                "notes": list(self.notes), "evaluations": self.evaluations}


def _jsonable(d: dict) -> dict:
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in d.items()}


# -- the objective ---------------------------------------------------------------------------


def _replayed(trace, stack: Stack, seed: int, mode: str = "open") -> np.ndarray:
    from ..replay import replay

    r = replay(trace, stack, mode=mode, seed=seed, exact=True)
    return np.asarray(r.latency_s, float)


def in_flight_at_arrival(arrival_s: np.ndarray, latency_s: np.ndarray) -> np.ndarray:
    """How many earlier requests were still in flight when each request arrived, by the
    trace's own measurements (a request without a latency counts as done at once)."""
    done = arrival_s + np.where(np.isfinite(latency_s), latency_s, 0.0)
    completed_before = np.searchsorted(np.sort(done), arrival_s, side="right")
    return np.arange(len(arrival_s)) - np.minimum(completed_before, np.arange(len(arrival_s)))


def _groups(in_flight: np.ndarray) -> np.ndarray:
    """The group of each request by the queue it found: 0, 1, 2-3, 4-7, 8-15, 16+ in flight."""
    return np.searchsorted(_QUEUE_EDGES, in_flight, side="right")


def _loss(measured: np.ndarray, simulated: np.ndarray, groups: np.ndarray | None = None) -> float:
    """The squared log-ratios of the mean and percentiles, and of the mean response time of
    the requests that found each size of queue (the same requests in both): the queue's
    share of the latency, which the distribution alone does not tell from the service's."""
    ok = np.isfinite(measured) & np.isfinite(simulated) & (measured > 0) & (simulated > 0)
    m, s = measured[ok], simulated[ok]
    if len(m) < 10:
        return math.inf
    qm, qs = np.percentile(m, _QUANTILES), np.percentile(s, _QUANTILES)
    total = float(np.sum(np.log(qs / qm) ** 2)) + 2.0 * math.log(s.mean() / m.mean()) ** 2
    weight = len(_QUANTILES) + 2.0
    if groups is not None:
        g = groups[ok]
        by_group = 0.0
        for k in np.unique(g):
            pick = g == k
            if pick.sum() >= 20:
                by_group += pick.mean() * math.log(s[pick].mean() / m[pick].mean()) ** 2
        total += 3.0 * by_group
        weight += 3.0
    return total / weight


def _summary(measured: np.ndarray, simulated: np.ndarray) -> dict:
    from ..replay import rms_cdf_distance

    ok = np.isfinite(measured) & np.isfinite(simulated)
    m, s = measured[ok], simulated[ok]
    out = {"mean_s": (float(m.mean()), float(s.mean()))}
    for q in (50, 95, 99):
        out[f"p{q}_s"] = (float(np.percentile(m, q)), float(np.percentile(s, q)))
    out["demerit_s"] = rms_cdf_distance(m, s)
    return out


# -- the search box --------------------------------------------------------------------------


@dataclass
class _Scale:
    """What the trace says about the scale of each parameter."""

    lat_lo: float  # the measured latencies' 5th percentile
    lat_hi: float  # ... and 99th
    iops: float  # requests per second over the trace
    bytes_per_s: float


def _scale_of(trace) -> _Scale:
    lat = np.asarray(trace.latency_s, float)
    lat = lat[np.isfinite(lat) & (lat > 0)]
    span = max(float(trace.arrival_s[-1] - trace.arrival_s[0]), 1e-9)
    return _Scale(float(np.percentile(lat, 5)), float(np.percentile(lat, 99)),
                  len(trace) / span, float(np.sum(trace.size_bytes)) / span)


def _box(name: str, scale: _Scale, lo: float, hi: float) -> tuple[float, float]:
    """Where the search starts looking for ``name``, inside its bounds (lo, hi)."""
    p = PARAMETERS[name]
    if name == _SCV:
        want = (0.02, 4.0)
    elif p.unit == "s":
        want = (scale.lat_lo / 30.0, scale.lat_hi)
    elif p.unit == "B/s":
        want = (scale.bytes_per_s, scale.bytes_per_s * 1e3)
    elif name.endswith("iops_limit"):
        want = (scale.iops * 0.5, scale.iops * 50.0)
    elif p.integer:
        want = (1.0, 128.0)
    else:
        want = (lo, hi)
    a, b = max(lo, want[0]), min(hi, want[1])
    if not a < b:
        a, b = lo, hi
    if p.log and a <= 0:
        a = min(b / 1e3, max(lo, 1e-12)) if b > 0 else 1e-12
    return a, b


class _Coder:
    """Parameter values <-> the unit cube the search moves in (log scale where the parameter
    is logarithmic)."""

    def __init__(self, names, bounds: dict, box: dict):
        self.names = list(names)
        self.bounds, self.box = bounds, box
        self.log = [PARAMETERS[n].log and box[n][0] > 0 for n in self.names]

    def values(self, u: np.ndarray) -> dict:
        out = {}
        for i, n in enumerate(self.names):
            a, b = self.box[n]
            x = float(np.clip(u[i], -0.5, 1.5))  # the search may leave the box a little ...
            v = math.exp(math.log(a) + x * (math.log(b) - math.log(a))) if self.log[i] \
                else a + x * (b - a)
            lo, hi = self.bounds[n]
            out[n] = min(max(v, lo), hi)  # ... never the bounds
        return out


# -- the fit of one family -------------------------------------------------------------------


def _set_values(name: str, trace) -> dict:
    """What the trace fixes of a family before any fit: a disk's capacity, the trace's highest
    address rounded up to a MiB (the seek curve spans it; the disk is at least that large).
    Not a RAID's: its members hold a share of the addresses each, as its level lays them out."""
    if name != "hdd-ncq" or not len(trace):
        return {}
    end = float(np.max(np.asarray(trace.offset_bytes, float) + np.asarray(trace.size_bytes,
                                                                          float)))
    return {"device.capacity_bytes": max(2.0**20 * math.ceil(end / 2.0**20), 1e6)}


def _fit_family(name: str, part, scale: _Scale, seed: int, budget: int,
                mode: str = "open", set_values: dict | None = None) -> tuple[dict, float, int]:
    """The family's values that best match ``part``'s response times, their loss and the
    evaluations spent. Counts (units, dies) and choices (rpm) are profiled: the continuous
    parameters searched at each value of a grid (powers of two for a count), then at the
    best count's neighbours; a count is flat between whole numbers, where a simplex stalls.
    ``set_values`` (:func:`_set_values`) are held as given and returned with the rest."""
    model = MODELS[name]
    base = model.stack()
    set_values = dict(set_values or {})
    # an open replay issues each request at its recorded time: the host's time between a
    # completion and a job's next issue does not arise
    names = [n for n in model.params if n not in _CLOSED_LOOP_ONLY]
    if _SCV in PARAMETERS and _SCV not in names and name not in _DISK_MODELS:
        names.append(_SCV)
    if name in _DISK_MODELS:  # a disk's buffer and cache answer some requests
        names += [n for n in TRACE_DISK_PARAMS if n not in names]
    if np.ptp(part.size_bytes) > 0:
        names += [n for n in model.size_params if n not in names]
    bounds = {n: model.bounds.get(n, (PARAMETERS[n].lo, PARAMETERS[n].hi)) for n in names}
    profiled = [n for n in names if PARAMETERS[n].choices or PARAMETERS[n].integer]
    names = [n for n in names if n not in profiled]
    measured = np.asarray(part.latency_s, float)
    groups = _groups(in_flight_at_arrival(np.asarray(part.arrival_s, float), measured))
    coder = _Coder(names, bounds, {n: _box(n, scale, *bounds[n]) for n in names})
    cache: dict = {}

    def objective(u, fixed):
        key = (tuple(sorted(fixed.items())), tuple(np.round(u, 6)))
        if key not in cache:
            try:
                stack = _build_stack(base, {**coder.values(u), **fixed, **set_values})
                cache[key] = _loss(measured, _replayed(part, stack, seed, mode), groups)
            except SpecError:
                cache[key] = math.inf
        return cache[key]

    tried: dict = {}
    for fixed in _profile_grid(profiled, bounds, scale):
        tried[tuple(sorted(fixed.items()))] = _search(objective, fixed, len(names), seed,
                                                      budget)
    if len(profiled) == 1 and PARAMETERS[profiled[0]].integer:  # the best count's neighbours
        n = profiled[0]
        top = min(tried.items(), key=lambda kv: kv[1][1])[0]
        v = dict(top)[n]
        for w in {max(bounds[n][0], v - 1), v + 1, round(v * 1.5)}:
            key = ((n, float(w)),)
            if key not in tried and bounds[n][0] <= w <= bounds[n][1]:
                tried[key] = _search(objective, {n: float(w)}, len(names), seed, budget)
    fixed_key, (u, loss) = min(tried.items(), key=lambda kv: kv[1][1])
    return {**coder.values(u), **dict(fixed_key), **set_values}, loss, len(cache)


def _search(objective, fixed: dict, d: int, seed: int, budget: int) -> tuple[np.ndarray, float]:
    """The best point of the continuous parameters (unit cube) at ``fixed``: a Latin hypercube,
    then Nelder-Mead from its best point(s)."""
    from scipy.optimize import minimize

    if d == 0:
        return np.zeros(0), objective(np.zeros(0), fixed)
    rng = np.random.default_rng(seed)
    starts = (rng.permuted(np.tile(np.arange(_LHS_POINTS), (d, 1)), axis=1).T
              + rng.random((_LHS_POINTS, d))) / _LHS_POINTS
    scores = [objective(u, fixed) for u in starts]
    best = (starts[int(np.argmin(scores))], float(min(scores)))
    for i in np.argsort(scores)[:_STARTS]:
        res = minimize(objective, starts[i], args=(fixed,), method="Nelder-Mead",
                       options={"maxfev": budget, "xatol": 1e-3, "fatol": 1e-5,
                                "initial_simplex": _simplex(starts[i])})
        if res.fun < best[1]:
            best = (np.asarray(res.x), float(res.fun))
    return best


def _profile_grid(profiled: list[str], bounds: dict, scale: _Scale) -> list[dict]:
    """The values the profiled parameters take: each choice, or for a count the powers of two
    within its search box (at most eight)."""
    grid: list[dict] = [{}]
    for n in profiled:
        p = PARAMETERS[n]
        if p.choices:
            values = [float(c) for c in p.choices]
        else:
            lo, hi = _box(n, scale, *bounds[n])
            values = [float(2**k) for k in range(0, 12) if lo <= 2**k <= hi][:8] or [lo]
        grid = [{**g, n: v} for g in grid for v in values]
    return grid


def _simplex(u0: np.ndarray) -> np.ndarray:
    d = len(u0)
    pts = [u0]
    for i in range(d):
        step = np.zeros(d)
        step[i] = 0.15 if u0[i] < 0.85 else -0.15
        pts.append(u0 + step)
    return np.array(pts)


# -- the fit ----------------------------------------------------------------------------------


def mechanical(trace) -> bool:
    """Whether the trace's times are a spinning disk's, so the disk families are worth a
    fit: a median response time of 1 ms or more, or requests that found nothing in flight
    taking 2 ms or more at their 75th percentile (a seek and part of a turn: a disk whose
    buffer and write cache answer most requests in a fraction of a millisecond still seeks
    for the rest; flash answers an idle request in well under a millisecond)."""
    lat = np.asarray(trace.latency_s, float)
    if np.nanmedian(lat) >= 1e-3:
        return True
    idle = in_flight_at_arrival(np.asarray(trace.arrival_s, float), lat) == 0
    alone = lat[idle & np.isfinite(lat)]
    return len(alone) >= 20 and float(np.percentile(alone, 75)) >= 2e-3


def _check_trace(trace, train_fraction: float) -> int:
    if trace.latency_s is None or not np.isfinite(trace.latency_s).any():
        raise SpecError("the trace records no response times to fit (blkparse with "
                        "C events, biosnoop, MSR Cambridge, fio latency logs, DiskSim validate "
                        "traces and csv traces with a latency column do)")
    if not 0.1 <= train_fraction <= 0.9:
        raise SpecError(f"the part to fit on (--train-fraction, train_fraction=) must be "
                        f"within 0.1..0.9 (got "
                        f"{train_fraction!r})")
    measured = int(np.isfinite(trace.latency_s).sum())
    if measured < 200:
        raise SpecError(f"{measured} requests with a measured response time; a fit "
                        "needs 200 or more (100 to fit, the rest to check)")
    return int(len(trace) * train_fraction)


def fit_trace(trace, model: str = "auto", *, train_fraction: float = 0.5, seed: int = 1,
              mode: str = "open", budget: int = _NM_EVALS,
              max_fit_requests: int = MAX_FIT_REQUESTS) -> TraceFit:
    """Calibrate ``model`` (a name of :data:`iosim.fit.MODELS`, or "auto") on the first
    ``train_fraction`` of ``trace``'s requests (a ``BlockTrace`` with response times) and
    compare the rest; see the module docstring. ``mode``: the replay's ("open": each request
    at its recorded time; "validate": DiskSim validate traces, each its recorded idle time
    after the previous completion). ``max_fit_requests``: a longer training part is fitted on
    its last that many requests (each evaluation replays them), said in a note."""
    if mode not in ("open", "validate"):
        raise SpecError(f"mode must be open or validate (got {mode!r})")
    split = _check_trace(trace, train_fraction)
    if model != "auto" and model not in MODELS:
        raise SpecError(f"unknown model {model!r}; one of auto, {', '.join(MODELS)}")
    train = trace.head(split)
    notes = [f"fitted on the first {split:,} of {len(trace):,} requests "
             f"({100 * train_fraction:.0f} %); the rest predicted, replayed after them"]
    if trace.device is not None and len(np.unique(trace.device)) > 1:
        notes.append(f"the trace holds {len(np.unique(trace.device))} devices' requests, "
                     "fitted as one device's (fit one alone: --device, or device= when reading)")
    if split > max_fit_requests:
        train = trace.select(slice(split - max_fit_requests, split))
        notes.append(f"the fit replays the last {max_fit_requests:,} requests before the split "
                     f"(requests {split - max_fit_requests + 1:,}..{split:,}), starting empty")
    scale = _scale_of(train)
    candidates: list = []
    spent = 0
    if model == "auto":
        names = [m for m in TRACE_MODELS if m not in _DISK_MODELS or mechanical(train)]
        cut = int(len(train) * 2 / 3)
        part_a = train.head(cut)
        for name in names:
            values, _, n_eval = _fit_family(name, part_a, scale, seed, budget, mode,
                                            _set_values(name, trace))
            spent += n_eval
            sim = _replayed(train, _build_stack(MODELS[name].stack(), values), seed, mode)
            lat = np.asarray(train.latency_s, float)
            groups = _groups(in_flight_at_arrival(np.asarray(train.arrival_s, float), lat))
            err = _loss(lat[cut:], sim[cut:], groups[cut:])
            candidates.append((name, len(values), math.sqrt(err)))
        candidates.sort(key=lambda c: c[2])
        model = candidates[0][0]
        notes.append(f"auto: {model} wins (RMS log error {candidates[0][2]:.3f} on the last "
                     f"{len(train) - cut:,} requests it fits on, each family fitted on the "
                     f"{cut:,} before them)")
    values, _, n_eval = _fit_family(model, train, scale, seed, budget, mode,
                                    _set_values(model, trace))
    spent += n_eval
    if "device.rpm" in values:
        notes.append("a random request costs the disk a seek and part of a turn: the trace fixes "
                     "their sum (here a mean seek of "
                     f"{values.get('device.avg_seek_s', float('nan')) * 1e3:.3g} ms and half a "
                     f"turn of {30e3 / values['device.rpm']:.3g} ms) better than the split "
                     "between the spindle speed and the seek")
    if "device.capacity_bytes" in values:
        notes.append(f"the disk's capacity is the trace's highest address, "
                     f"{values['device.capacity_bytes'] / 1e9:.4g} GB (its seek curve spans "
                     "it): a trace that touches part of a larger disk fits a seek for that part")
    median = float(np.nanmedian(train.latency_s))
    if model in _FLASH_MODELS and median >= 1e-3:
        notes.append(f"the median response time is {median * 1e3:.3g} ms, a spinning disk's "
                     f"scale, and {model} is a flash family: it matches these times as a curve "
                     "fit, and its parameters (dies, flash times) are not this device's")
    stack = _build_stack(MODELS[model].stack(), values)
    sim = _replayed(trace, stack, seed, mode)
    measured = np.asarray(trace.latency_s, float)
    return TraceFit(model=model, values=values, stack=stack, split=split, n=len(trace),
                    train=_summary(measured[:split], sim[:split]),
                    test=_summary(measured[split:], sim[split:]), candidates=candidates,
                    notes=notes, evaluations=spent)

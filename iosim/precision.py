"""Runs that decide their own length: ``simulate(..., precision=0.02)`` (``--precision 2%``).

The procedure, as JMT's sequential statistics do it, in three steps:

1. **Warm-up from the data (MSER-5).** A pilot run with no warm-up records its completions as
   batch means of 5. MSER (White 1997, "An effective truncation heuristic for bias reduction in
   simulation output", Simulation 69(6); MSER-5 in White, Cobb & Spratt 2000) truncates the
   series at the d* that minimises the standard error of the mean of what is left,
   ``sum_{i>d} (Z_i - mean_d)^2 / (n - d)^2``. Hoad, Robinson & Davies (2010, "Automating warm-up
   length estimation", J. Oper. Res. Soc. 61(9)) found MSER-5 the best of the automatic rules
   and trust d* only in the first half of the series: a minimum in the second half means the
   pilot was too short to reach steady state, so the pilot is doubled (a few times), then a
   warning is given and the first half's minimum is used.
2. **A sizing run** of ``ios`` I/Os (at least :data:`MIN_SIZING_IOS`) after that warm-up,
   with its usual 95 % half-widths (ten batch means); it is never reported.
3. **Sequential length.** A half-width falls as 1/sqrt(n), so a run of n_k I/Os with
   relative half-width h over its bound b says the bound is met from ``n_k (h / b)^2`` I/Os.
   That length (averaged over the runs so far, for the worst metric: IOPS and mean latency
   against ``precision``, p99 against :data:`P99_FACTOR` times it), times :data:`SAFETY`, is
   the next run's, and that run is a **fresh run** with the same seed but its own replication
   streams (round k draws replication k), so it is independent of the runs that chose its
   length and its intervals are those of one run of fixed length. It is reported if its
   half-widths meet the bounds; otherwise it sizes a further run. Stopping on a run's own
   interval favours narrow intervals, so the safety factor keeps most runs passing at the
   first try: the 400-replication coverage test measures 93-97 %. At most
   :data:`MAX_ROUNDS` runs, each at most :data:`MAX_GROWTH` times the last; a length past
   :mod:`iosim.limits`' work limits is refused with the estimate.

Same seed, same numbers: every step is deterministic.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from .spec import SpecError

__all__ = ["mser", "MserCut", "next_length", "parse_precision", "run_to_precision",
           "P99_FACTOR", "MSER_BATCH"]

MSER_BATCH = 5  # completions per pilot batch (MSER-5)
P99_FACTOR = 4.0  # p99's relative half-width bound: 4 x precision (8 % at --precision 2%)
# the length estimate is scaled up by this, so most runs pass at the first try: a rule that
# stops on a run's own interval keeps the runs whose interval happened to be narrow, and the
# fewer runs it turns back the less that lowers coverage (1.2: 93.5 %, 1.5: 94.8 %, 2.0: 95.0 %
# over 2,000 replications of the closed-loop case of tests/test_ci_coverage.py)
SAFETY = 2.0
MAX_GROWTH = 16.0  # a round at most multiplies the length by this (a wild first CI is not trusted)
MAX_ROUNDS = 6  # runs of the measured length, the first included
MAX_PILOT_BATCHES = 2000  # pilot batches kept (each holds a latency histogram of 16 KiB)
MIN_TAIL = 10  # batch means MSER's global search always keeps (its statistic needs a spread)
PILOT_DOUBLINGS = 3  # the pilot is doubled at most this often when d* lands in its second half
# the shortest reported run: the p99 bound needs an interval, and sectioning gives one only
# from P99_MIN_IOS completions (a shorter run would only be lengthened to it next round)
MIN_IOS = 10_000
# the sizing run's least length: from 2,000 I/Os the length estimate was too short too often
# (coverage 93.8 %, its short batches look less variable than the process is); from 20,000, 94.8 %
MIN_SIZING_IOS = 20_000
# sectioning gives a p99 half-width only when every one of the ten batches holds >= 10 samples
# beyond its p99 (Batches.percentile_ci95): 10 batches x 10 / 1 % = 10,000 completions
P99_MIN_IOS = 10_000


@dataclass(frozen=True)
class MserCut:
    """Where MSER cuts a series of batch means."""

    batches: int  # d*: batch means to discard (the minimum over the first half of the series)
    global_min: int  # the minimum over the whole series (if past half: the run was too short)
    series: int  # batch means in the series

    @property
    def too_short(self) -> bool:
        return self.global_min > self.series // 2


def mser(means: np.ndarray) -> MserCut:
    """MSER truncation of a series of batch means Z_1..Z_n (White 1997): d* minimising
    ``sum_{i>d} (Z_i - mean(Z_{d+1..n}))^2 / (n - d)^2``, the squared standard error of the
    truncated mean (up to a constant), over d <= n/2; ties go to the smaller d. NaNs are
    refused; fewer than 4 means give d* = 0."""
    z = np.asarray(means, dtype=float)
    if z.ndim != 1 or not np.all(np.isfinite(z)):
        raise ValueError("mser needs a one-dimensional series of finite batch means")
    n = len(z)
    if n < 4 or np.ptp(z) <= 1e-9 * np.abs(z).max():  # short, or flat up to rounding
        return MserCut(0, 0, n)
    z = z - z.mean()  # centred: the suffix sums below lose nothing to cancellation
    k = np.arange(n, 1, -1, dtype=float)  # points left after discarding d = 0 .. n-2
    s1 = np.cumsum(z[::-1])[::-1][: n - 1]
    s2 = np.cumsum((z * z)[::-1])[::-1][: n - 1]
    sse = np.maximum(s2 - s1 * s1 / k, 0.0)
    stat = sse / (k * k)
    # compare with a relative tolerance, so rounding cannot move d* along a flat stretch
    tol = 1e-12 * (stat.max() if stat.size else 0.0)
    def first_min(s: np.ndarray) -> int:
        return int(np.flatnonzero(s <= s.min() + tol)[0])
    # the last MIN_TAIL means are left out of the global search: the spread of a handful of
    # points is too noisy to compare (a stationary series would often "end" there)
    return MserCut(first_min(stat[: n // 2 + 1]), first_min(stat[: max(1, n - MIN_TAIL)]), n)


def next_length(history: list[tuple[int, dict[str, float]]], p99_nan: bool = False) -> int:
    """The next run's length from the runs so far, ``[(n_k, {metric: ratio_k})]`` (a ratio is a
    relative half-width over its bound). A half-width falls as 1/sqrt(n), so each run gives
    the constant ``n_k ratio_k^2`` (the length at which that metric would just meet its bound);
    the runs' constants are averaged (several runs estimate it better than the last alone) and
    the worst metric's, times :data:`SAFETY`, is the length. At least :data:`MIN_IOS`, at most
    :data:`MAX_GROWTH` times the last run; :data:`P99_MIN_IOS` when the last run's batches
    were too short for a p99 interval (``p99_nan``); twice the last when no run gave an
    interval."""
    last = history[-1][0]
    pooled: dict[str, list[float]] = {}
    for n, ratios in history:
        for key, r in ratios.items():
            if not math.isnan(r):
                pooled.setdefault(key, []).append(n * r * r)
    need = math.ceil(SAFETY * max(float(np.mean(v)) for v in pooled.values())) if pooled \
        else 2 * last
    if p99_nan and last < P99_MIN_IOS:
        need = max(need, P99_MIN_IOS)
    return int(min(max(need, MIN_IOS), math.ceil(MAX_GROWTH * last)))


def parse_precision(text: str | float, name: str = "--precision") -> float:
    """``2%`` or ``0.02`` as the fraction 0.02; one SpecError line for anything else (a fraction
    must lie in (0, 0.5]: a half-width of half the mean is no precision at all)."""
    raw = text.strip() if isinstance(text, str) else text
    try:
        if isinstance(raw, str) and raw.endswith("%"):
            value = float(raw[:-1]) / 100.0
        elif isinstance(raw, bool):
            raise ValueError
        else:
            value = float(raw)
    except (TypeError, ValueError):
        value = math.nan
    if not (0.0 < value <= 0.5):
        raise SpecError(f"{name} must be a relative half-width such as 2% or 0.02, in (0, 50%] "
                        f"(got {text!r})")
    return value


def p99_nan_blocks(p99_nan: bool, n: int) -> bool:
    """A run too short for a p99 interval has not met the p99 bound yet."""
    return p99_nan and n < P99_MIN_IOS


def _ratios(res, precision: float) -> tuple[dict[str, float], bool]:
    def rel(half: float, value: float) -> float:
        if math.isnan(half) or not value:
            return math.nan if math.isnan(half) else (0.0 if half == 0 else math.inf)
        return abs(half / value)

    ratios = {
        "iops": rel(res.iops_ci95, res.iops) / precision,
        "lat_mean": rel(res.lat_mean_ci95_s, res.lat_mean_s) / precision,
    }
    p99 = rel(res.lat_p99_ci95_s, res.lat_p99_s)
    if not math.isnan(p99):
        ratios["lat_p99"] = p99 / (P99_FACTOR * precision)
    return ratios, math.isnan(p99)


def _pilot(stack, workload, *, seed, engine, force, start_ios: int) -> dict:
    """Pilot runs from an empty system until MSER-5 finds its cut in the first half."""
    from .engine.recorder import fixed_batch_size
    from .simulate import _simulate

    pilot = start_ios
    for attempt in range(PILOT_DOUBLINGS + 1):
        size = max(MSER_BATCH, math.ceil(pilot / MAX_PILOT_BATCHES))
        with fixed_batch_size(size):
            res = _simulate(stack, workload, ios=pilot, warmup_ios=0, seed=seed, engine=engine,
                            replications=1, force=force, announce=False, keep_batches=True)
        b = res.extra.pop("_batches")
        ok = b.counts > 0
        lat = b.sums[ok] / b.counts[ok]
        ends = b.t_end[ok]
        gaps = np.diff(np.concatenate([[b.t_start], ends])) / np.maximum(b.counts[ok], 1)
        cuts = [mser(lat), mser(gaps)]  # latency and time between completions (throughput)
        too_short = any(c.too_short for c in cuts)
        if not too_short or attempt == PILOT_DOUBLINGS:
            break
        pilot *= 2
    d = max(c.batches for c in cuts)
    return {"pilot_ios": pilot, "pilot_batch": size, "mser_batches": d,
            "warmup_found_ios": d * size, "pilot_too_short": too_short,
            "pilot_iops": res.iops, "pilot_lat_mean_s": res.lat_mean_s}


def run_to_precision(stack, workload, *, precision: float, ios: int, warmup_ios: int | None,
                     seed: int, engine: str, force, announce: bool):
    """The whole procedure (module docstring); the Results of the last run, with
    ``extra["precision"]`` saying what was done."""
    from .simulate import _announce, _simulate

    precision = parse_precision(precision, "precision")
    outstanding = workload.outstanding if not workload.open_loop else 1
    device_floor = int(stack.device.warmup_ios)
    if warmup_ios is None:
        info = _pilot(stack, workload, seed=seed, engine=engine, force=force,
                      start_ios=max(5000, 50 * outstanding, 2 * device_floor))
        # caches the device says take this many I/Os to fill are filled whatever the pilot saw
        warm = max(info["warmup_found_ios"], device_floor)
        if info["pilot_too_short"]:
            message = (f"precision: MSER-5 found no steady state within the first half of a "
                       f"{info['pilot_ios']:,}-I/O pilot; warm-up set to {warm:,} I/Os "
                       "(the system may not reach steady state: check the stack)")
            if announce:
                _announce(message)
            else:
                warnings.warn(message, RuntimeWarning, stacklevel=3)
            info["warning"] = message
    else:
        info = {"warmup_given_ios": warmup_ios}
        warm = warmup_ios
    n = max(ios, MIN_SIZING_IOS)
    rounds: list[dict] = []
    history: list[tuple[int, dict[str, float]]] = []
    met = p99_nan = False
    for k in range(MAX_ROUNDS):
        if k > 0:
            n = next_length(history, p99_nan)
        try:
            # round k draws replication k's streams: each run is independent of the runs that
            # chose its length, so its interval is that of a run of fixed length
            res = _simulate(stack, workload, ios=n, warmup_ios=warm, seed=seed, engine=engine,
                            replications=1, force=force, announce=announce, replication=k)
        except SpecError as exc:
            if k == 0:
                raise
            raise SpecError(f"precision {100 * precision:g} %: reaching it needs about {n:,} I/Os "
                            f"(round {k + 1}), refused: {exc}") from None
        ratios, p99_nan = _ratios(res, precision)
        history.append((n, ratios))
        rounds.append({"ios": n, **{f"{key}_rel_ci95": float(v * (P99_FACTOR if key ==
                       "lat_p99" else 1.0) * precision) for key, v in ratios.items()}})
        # the first run only sizes the next: stopping on it would keep the runs whose own
        # interval happened to be narrow, and those cover less than 95 %
        met = k > 0 and not p99_nan_blocks(p99_nan, n) and all(
            r <= 1.0 for r in ratios.values())
        if met:
            break
    if not met and announce:
        _announce(f"precision {100 * precision:g} % not reached after {len(rounds)} runs "
                  f"(last: {n:,} I/Os): {rounds[-1]}")
    res.extra["precision"] = {
        "target": precision, "p99_target": P99_FACTOR * precision, **info,
        "warmup_ios": warm, "rounds": rounds, "final_ios": n, "met": met,
    }
    return res

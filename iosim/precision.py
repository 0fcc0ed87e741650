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
2. **A run of n I/Os** after that warm-up, with its usual 95 % half-widths (ten batch means).
3. **Sequential length.** If a relative half-width exceeds its bound (IOPS and mean latency:
   ``precision``; p99: :data:`P99_FACTOR` times looser), n is scaled by the half-width's
   1/sqrt(n) law, ``n' = n (h / bound)^2`` times :data:`SAFETY`, at most :data:`MAX_GROWTH`
   times per round, and a **fresh run** of n' I/Os is made with the same seed. Only the last
   run's intervals are reported, and they are those of one run of fixed length n' (nothing of
   the earlier rounds is pooled into them), which keeps them honest: the 400-replication
   coverage test measures 93-97 % with this rule. At most :data:`MAX_ROUNDS` runs; a length
   past :mod:`iosim.limits`' work limits is refused with the estimate.

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
SAFETY = 1.2  # the length estimate is scaled up by this, so most runs stop after one more round
MAX_GROWTH = 16.0  # a round at most multiplies the length by this (a wild first CI is not trusted)
MAX_ROUNDS = 6  # runs of the measured length, the first included
MAX_PILOT_BATCHES = 2000  # pilot batches kept (each holds a latency histogram of 16 KiB)
MIN_TAIL = 10  # batch means MSER's global search always keeps (its statistic needs a spread)
PILOT_DOUBLINGS = 3  # the pilot is doubled at most this often when d* lands in its second half
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


def next_length(n: int, ratios: dict[str, float], p99_nan: bool = False) -> int | None:
    """The stopping rule: None when every ratio (relative half-width over its bound) is <= 1,
    else the next run's length from the 1/sqrt(n) law, ``n * max(ratio)^2 * SAFETY``, at least
    ``n + 1`` and at most ``MAX_GROWTH * n``. A ratio that is NaN (fewer than two batches)
    doubles n; ``p99_nan`` (batches too short for a p99 interval) asks for
    :data:`P99_MIN_IOS`."""
    worst = 0.0
    need = n
    for value in ratios.values():
        if math.isnan(value):
            need = max(need, 2 * n)
        else:
            worst = max(worst, value)
    if p99_nan and n < P99_MIN_IOS:
        need = max(need, P99_MIN_IOS)
    if worst > 1.0:
        need = max(need, math.ceil(n * worst * worst * SAFETY))
    if need <= n:
        return None
    return int(min(need, math.ceil(MAX_GROWTH * n)))


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
    n = ios
    rounds = []
    for k in range(MAX_ROUNDS):
        try:
            res = _simulate(stack, workload, ios=n, warmup_ios=warm, seed=seed, engine=engine,
                            replications=1, force=force, announce=announce)
        except SpecError as exc:
            if k == 0:
                raise
            raise SpecError(f"precision {precision:.3g}: reaching it needs about {n:,} I/Os "
                            f"(round {k + 1}), refused: {exc}") from None
        ratios, p99_nan = _ratios(res, precision)
        rounds.append({"ios": n, **{f"{key}_rel_ci95": float(v * (P99_FACTOR if key ==
                       "lat_p99" else 1.0) * precision) for key, v in ratios.items()}})
        nxt = next_length(n, ratios, p99_nan)
        if nxt is None:
            break
        if k + 1 == MAX_ROUNDS:
            break
        n = nxt
    met = nxt is None
    if not met and announce:
        _announce(f"precision {precision:.3g} not reached after {len(rounds)} runs "
                  f"(last: {n:,} I/Os): {rounds[-1]}")
    res.extra["precision"] = {
        "target": precision, "p99_target": P99_FACTOR * precision, **info,
        "warmup_ios": warm, "rounds": rounds, "final_ios": n, "met": met,
    }
    return res

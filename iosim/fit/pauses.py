"""Device pauses read off a sweep's latency tails, for a fit to try (``stack.PauseSpec``).

Some devices stop answering now and then: a virtual disk's host thread is descheduled, an
SSD's firmware does housekeeping. Every request that finishes its service during a pause waits
for its end (:mod:`iosim.engine.pauses`), so a pause holds about as many requests as are
outstanding: a share ``rate x N / X`` = ``rate x R`` of all requests (Little's law), which
grows with the depth, each held for up to the pause's length. In a latency distribution that
is a jump: up to some percentile the latencies are the queue's own, above it they are
milliseconds longer. The KVM disk of ``data/measured_kvm_virtio_quiet`` shows it at every
depth from 4 on: 0.07 % of the reads held for 2-4 ms at depth 4 and 1.2 % for 3-6 ms at
depth 64, which is 10-19 holds a second at every depth (``docs/architecture.md``).

A lognormal service time cannot follow such a tail: fitted to it, its spread widens the
body (the KVM sweep's p90 was predicted 25-35 % too high at depths 4-64) and still misses the
held tail of the deep points (p99 -60 to -70 %). :func:`pause_estimate` finds the jump in
the fitted points' percentiles (p99.9 and p99.99 included, which fio prints) and estimates
the pauses' rate and length from it; :func:`iosim.fit.fit` then fits the family with them
and keeps them only when they follow the fitted points' tails better by simulation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["JUMP", "TAIL_FIELDS", "PauseEstimate", "body_scv", "hold_signature", "pause_estimate",
           "pause_ios",
           "tail_levels"]

#: a hold shows as a percentile at least this many times the one below it (and the median)
JUMP = 4.0
#: the levels read, as (probability, Results field)
TAIL_FIELDS = _LEVELS = (
    (0.50, "lat_p50_s"), (0.90, "lat_p90_s"), (0.95, "lat_p95_s"), (0.99, "lat_p99_s"),
    (0.999, "lat_p999_s"), (0.9999, "lat_p9999_s"))
#: pauses a verifying simulation should see at least, so the held share is measured, not drawn
PAUSES_SEEN = 30
#: and each simulation while fitting (one seed throughout: the same pauses at every step)
PAUSES_SEEN_FITTING = 10
#: the most I/Os a point is simulated with for the pauses' sake
MAX_IOS = 400_000


@dataclass(frozen=True)
class PauseEstimate:
    """Pauses read off the tails: ``rate_hz`` pauses a second of ``duration_s`` each, from the
    points whose percentiles show holds (``from_n``: their outstanding I/Os)."""

    rate_hz: float
    duration_s: float
    from_n: tuple[int, ...]

    def note(self) -> str:
        depths = ", ".join(str(n) for n in self.from_n)
        return (f"pauses: the latency tails at {depths} outstanding I/O"
                f"{'s' if self.from_n != (1,) else ''} jump to milliseconds above a percentile "
                f"(a share of the requests held, growing with the depth): fitted with device "
                f"pauses of {self.duration_s * 1e3:.3g} ms, {self.rate_hz:.3g} a second "
                "([pauses] in the stack; iosim.engine.pauses), which followed the fitted "
                "points' tails better than the service's spread alone")


def tail_levels(results, shift_s: float = 0.0) -> list[tuple[float, float]]:
    """A point's measured latency percentiles as (probability, seconds), lowest first; each
    plus ``shift_s`` (completion percentiles made totals)."""
    out = []
    for q, name in _LEVELS:
        v = getattr(results, name, None)
        if v is not None and math.isfinite(v) and v > 0:
            out.append((q, float(v) + shift_s))
    return out


def hold_signature(levels: Sequence[tuple[float, float]],
                   mean_s: float) -> tuple[float, float] | None:
    """(held share, pause length in seconds) from one point's percentiles and mean latency, or
    None when they show no hold. A hold: from the p95 up, a percentile at least :data:`JUMP`
    times the one below it and the median, with at least one percentile above it (a jump
    only at the highest level rests on a few requests).

    A pause holds the requests outstanding when it starts, each for about the pause's length
    (minus what was left of its service), so the held percentiles sit about one pause above
    the body: the length is their mean excess over the body. The share is what the holds add
    to the mean: (mean - the body's mean) / the length, where the body is lognormal through
    the median and the p90; it is kept between the tail probabilities at and below the jump,
    which the percentiles fix."""
    if len(levels) < 4 or not mean_s > 0:
        return None
    (_, med), (_, p90) = levels[0], levels[1]
    for i in range(2, len(levels) - 1):
        (q0, v0), (q1, v1) = levels[i - 1], levels[i]
        if q1 < 0.95 or v1 < JUMP * v0 or v1 < JUMP * med:
            continue
        duration = sum(v - v0 for _, v in levels[i:]) / (len(levels) - i)
        sigma = math.log(max(p90, med) / med) / 1.2816  # the body's lognormal spread
        body_mean = med * math.exp(0.5 * sigma * sigma)
        share = (mean_s - body_mean) / duration
        return min(max(share, 1.0 - q1), 1.0 - q0), duration
    return None


def pause_estimate(points: Sequence) -> PauseEstimate | None:
    """The pauses the fitted ``points`` (closed loop, ``fit``'s points) show, or None. Each
    point with a hold gives a rate, its held share x its IOPS / its outstanding I/Os; the
    estimate is their geometric mean, the length the shallowest point's (the deeper a point,
    the longer its held requests also queue after the pause). None when no point shows a
    hold, or when the rate would hold, at a point whose percentiles show none, a share its
    p99.9 could not hide (over 0.3 %, with its body well under the pause)."""
    from .points import completion_shift_s

    found, quiet = [], []
    for p in points:
        if p.workload.open_loop or "iops" not in p.measured:
            continue
        levels = tail_levels(p.results, completion_shift_s(p.results))
        sig = hold_signature(levels, p.measured.get("lat_mean_s", 0.0))
        if sig is None:
            if levels:
                quiet.append((p, levels))
            continue
        share, duration = sig
        found.append((p.n, share * p.measured["iops"] / p.n, duration))
    if not found:
        return None
    rate = math.exp(sum(math.log(r) for _, r, _ in found) / len(found))
    duration = min(found)[2]
    for p, levels in quiet:
        held = rate * p.n / p.measured["iops"]
        if held > 0.003 and levels[0][1] < 0.25 * duration:
            return None
    return PauseEstimate(rate, duration, tuple(sorted(n for n, _, _ in found)))


def pause_ios(estimate: PauseEstimate, points: Sequence, ios: int,
              seen: int = PAUSES_SEEN) -> int:
    """I/Os per simulated point for a stack with these pauses: enough for the fastest point
    to meet ``seen`` of them (at least ``ios``, at most :data:`MAX_IOS`)."""
    iops = max((p.measured.get("iops", 0.0) for p in points), default=0.0)
    need = int(math.ceil(seen * iops / estimate.rate_hz)) if iops > 0 else ios
    return max(ios, min(need, MAX_IOS))


def body_scv(points: Sequence) -> float:
    """The squared coefficient of variation of a lognormal through the median and p90 of the
    shallowest point (its body, which holds seldom reach): exp(sigma^2) - 1, sigma = ln(p90 /
    p50) / 1.2816. 1.0 when the point has no such percentiles."""
    p = min(points, key=lambda q: q.n)
    med, p90 = p.measured.get("lat_p50_s"), p.measured.get("lat_p90_s")
    if not (med and p90 and p90 >= med > 0):
        return 1.0
    sigma = math.log(p90 / med) / 1.2816
    return math.expm1(sigma * sigma)

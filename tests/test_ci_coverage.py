"""Honest confidence intervals: over 400 independent replications of cases with exact answers,
the reported 95 % intervals must contain the exact value 93-97 % of the time.

Seeds are fixed (replication k uses seed 10_000 + k), so the test is reproducible; the band is
about +-1.8 binomial standard deviations around 95 % for 400 trials.
"""

import pytest

import iosim
from iosim import theory
from iosim.devices import GenericDevice
from iosim.stack import BlockSpec, HbaSpec, HostSpec, Stack

N_REPS = 400
BAND = (0.93, 0.97)
UNLIMITED = dict(block=BlockSpec(nr_requests=100_000), hba=HbaSpec(queue_depth=100_000))

pytestmark = pytest.mark.slow


def _coverage(stack, wl, checks, ios):
    hits = dict.fromkeys(checks, 0)
    for k in range(N_REPS):
        r = iosim.simulate(stack, wl, ios=ios, warmup_ios=ios // 10, seed=10_000 + k)
        for name, (exact, value, half) in checks.items():
            est, hw = getattr(r, value), getattr(r, half)
            hits[name] += abs(est - exact) <= hw
    return {name: h / N_REPS for name, h in hits.items()}


def test_closed_loop_mean_intervals_cover_exact_mva():
    stack = Stack(
        host=HostSpec(overhead="exp:1ms"),
        device=GenericDevice(units=2, service="exp:1ms"),
        **UNLIMITED,
    )
    exact = theory.mva_multiunit(4, 1e-3, 2, think_s=1e-3).iloc[-1]
    cov = _coverage(
        stack,
        iosim.Workload(numjobs=4),
        {
            "iops": (exact.throughput, "iops", "iops_ci95"),
            "latency": (exact.latency_s, "lat_mean_s", "lat_mean_ci95_s"),
        },
        ios=2000,
    )
    for name, c in cov.items():
        assert BAND[0] <= c <= BAND[1], (name, c)


def test_open_loop_intervals_cover_erlang_c_mean_and_mm1_percentiles():
    rate = 500.0
    stack = Stack(device=GenericDevice(units=1, service="exp:1ms"), **UNLIMITED)
    cov = _coverage(
        stack,
        iosim.Workload(rate_iops=rate),
        {
            "mean": (theory.mmc(rate, 1e-3, 1)["latency_s"], "lat_mean_s", "lat_mean_ci95_s"),
            "p50": (theory.mm1_latency_percentile(rate, 1e-3, 0.5), "lat_p50_s", "lat_p50_ci95_s"),
            "p90": (theory.mm1_latency_percentile(rate, 1e-3, 0.9), "lat_p90_s", "lat_p90_ci95_s"),
        },
        ios=5000,
    )
    for name, c in cov.items():
        assert BAND[0] <= c <= BAND[1], (name, c)


# -- runs that decide their own length (iosim.precision) -------------------------------------

N_PRECISION_REPS = 1000


def _precision_coverage(stack, wl, exact_iops, exact_latency, target=0.02):
    """1,000 replications on the seed block 30_000 + k, chosen before these runs were looked at.
    (While the procedure was built, 400 seeds of the block 10_000 + k gave IOPS coverage of
    91.5 %, where fixed runs of 43,000 I/Os on the same streams gave 92.25 %; 2,000 seeds of
    20_000 + k gave 95.35 % / 95.0 %. With 1,000 replications one binomial standard deviation
    is 0.7 points, so the 93-97 % band is about +-3 of them: a block can no longer be lucky.)"""
    hits = {"iops": 0, "latency": 0}
    for k in range(N_PRECISION_REPS):
        r = iosim.simulate(stack, wl, seed=30_000 + k, precision=target, engine="fast")
        assert r.extra["precision"]["met"], r.extra["precision"]
        hits["iops"] += abs(r.iops - exact_iops) <= r.iops_ci95
        hits["latency"] += abs(r.lat_mean_s - exact_latency) <= r.lat_mean_ci95_s
    return {name: h / N_PRECISION_REPS for name, h in hits.items()}


def test_precision_runs_cover_exact_mva():
    """--precision 2% (MSER-5 warm-up, a sizing run, fresh runs until the half-widths are
    within 2 %): the stopping rule must not cost coverage (about 20 s on one core)."""
    stack = Stack(
        host=HostSpec(overhead="exp:1ms"),
        device=GenericDevice(units=2, service="exp:1ms"),
        **UNLIMITED,
    )
    exact = theory.mva_multiunit(4, 1e-3, 2, think_s=1e-3).iloc[-1]
    cov = _precision_coverage(stack, iosim.Workload(numjobs=4), exact.throughput,
                              exact.latency_s)
    for name, c in cov.items():
        assert BAND[0] <= c <= BAND[1], (name, c)


def test_precision_runs_cover_exact_mm1():
    """The open-loop M/M/1 at rho = 0.5 needs about 10^5 I/Os for 2 % (about 40 s)."""
    rate = 500.0
    stack = Stack(device=GenericDevice(units=1, service="exp:1ms"), **UNLIMITED)
    cov = _precision_coverage(stack, iosim.Workload(rate_iops=rate), rate,
                              theory.mmc(rate, 1e-3, 1)["latency_s"])
    for name, c in cov.items():
        assert BAND[0] <= c <= BAND[1], (name, c)

"""The SimPy engine against exact queueing theory, at stated confidence.

Tolerances are the simulation's own 99 % confidence intervals (batch means within the run),
fixed before running: a result outside its interval is a failure, not noise to tune away.
"""

import math

import pytest
from scipy import stats

import iosim
from iosim import theory
from iosim.devices import GenericDevice
from iosim.engine.recorder import DEFAULT_BATCHES
from iosim.stack import BlockSpec, HbaSpec, HostSpec, Stack
from iosim.workload import Workload

# widen the reported 95 % half-width (Student t over the run's batch means) to 99 %
TO_99 = stats.t.ppf(0.995, DEFAULT_BATCHES - 1) / stats.t.ppf(0.975, DEFAULT_BATCHES - 1)
UNLIMITED = dict(block=BlockSpec(nr_requests=100_000), hba=HbaSpec(queue_depth=100_000))


def _closed_stack(units: int, service: str, think: str) -> Stack:
    return Stack(host=HostSpec(overhead=think), device=GenericDevice(units=units, service=service),
                 **UNLIMITED)


@pytest.mark.parametrize("units", [1, 4, 16])
@pytest.mark.parametrize("jobs", [1, 2, 4, 8, 16, 32, 64])
def test_closed_loop_matches_exact_mva(units, jobs):
    service_s, think_s = 1e-3, 2e-3
    stack = _closed_stack(units, "exp:1ms", "det:2ms")  # a delay station is insensitive to shape
    r = iosim.simulate(stack, Workload(numjobs=jobs), ios=12_000, seed=11)
    exact = theory.mva_multiunit(jobs, service_s, units, think_s=think_s).iloc[-1]
    # with N <= K (and K = 1 with Z = 0) the answers are exact; otherwise random
    tol_x = max(TO_99 * r.iops_ci95, 1e-9 * exact.throughput)
    tol_r = max(TO_99 * r.lat_mean_ci95_s, 1e-9 * exact.latency_s)
    assert abs(r.iops - exact.throughput) <= tol_x, (r.iops, exact.throughput, tol_x)
    assert abs(r.lat_mean_s - exact.latency_s) <= tol_r, (r.lat_mean_s, exact.latency_s, tol_r)


@pytest.mark.parametrize("rho", [0.5, 0.8, 0.95])
def test_open_loop_mmc_matches_erlang_c(rho):
    units, service_s = 4, 1e-3
    rate = rho * units / service_s
    stack = Stack(device=GenericDevice(units=units, service="exp:1ms"), **UNLIMITED)
    ios = {0.5: 20_000, 0.8: 40_000, 0.95: 150_000}[rho]
    r = iosim.simulate(stack, Workload(rate_iops=rate), ios=ios, seed=5)
    exact = theory.mmc(rate, service_s, units)
    assert abs(r.lat_mean_s - exact["latency_s"]) <= TO_99 * r.lat_mean_ci95_s
    assert r.iops == pytest.approx(rate, rel=0.03)  # open loop: throughput is the arrival rate
    assert r.unit_util == pytest.approx(rho, rel=0.03)


@pytest.mark.parametrize("service, scv", [("det:1ms", 0.0), ("gamma:1ms,scv=3", 3.0),
                                          ("lognormal:1ms,scv=0.5", 0.5)])
def test_open_loop_mg1_matches_pollaczek_khinchine(service, scv):
    rate = 700.0  # rho = 0.7
    stack = Stack(device=GenericDevice(units=1, service=service), **UNLIMITED)
    r = iosim.simulate(stack, Workload(rate_iops=rate), ios=60_000, seed=3)
    exact = theory.mg1(rate, 1e-3, scv)
    assert abs(r.lat_mean_s - exact["latency_s"]) <= TO_99 * r.lat_mean_ci95_s


def test_open_loop_above_capacity_is_refused_naming_the_capacity():
    stack = Stack(device=GenericDevice(units=2, service="exp:1ms"))
    with pytest.raises(iosim.UnstableError, match=r"capacity of about 2000 IOPS"):
        iosim.simulate(stack, Workload(rate_iops=2500))


def test_mm1_latency_percentile():
    # M/M/1 sojourn time is exponential with rate mu - lambda: check p99 from the histogram
    rate, service_s = 600.0, 1e-3
    stack = Stack(device=GenericDevice(units=1, service="exp:1ms"), **UNLIMITED)
    r = iosim.simulate(stack, Workload(rate_iops=rate), ios=150_000, seed=9)
    exact_p99 = theory.mm1_latency_percentile(rate, service_s, 0.99)
    # p99 of 150k samples: a few percent sampling error (queue correlation widens it)
    assert r.lat_p99_s == pytest.approx(exact_p99, rel=0.08)
    assert math.isfinite(r.lat_p9999_s) and r.lat_p9999_s > r.lat_p99_s


@pytest.mark.parametrize("cpus, units, jobs", [(1, 4, 4), (2, 6, 8), (3, 16, 12), (4, 16, 32)])
@pytest.mark.parametrize("engine", ["fast", "simpy"])
def test_host_cpu_pool_matches_exact_mva_with_a_c_server_host(cpus, units, jobs, engine):
    """host.cpus = C with iodepth 1 and exponential overhead and service: a product-form
    network of a C-server host station and a K-unit device (exact load-dependent MVA)."""
    overhead_s, service_s = 0.4e-3, 1e-3
    stack = Stack(host=HostSpec(overhead="exp:0.4ms", cpus=cpus),
                  device=GenericDevice(units=units, service="exp:1ms"), **UNLIMITED)
    r = iosim.simulate(stack, Workload(numjobs=jobs), ios=12_000, seed=23, engine=engine)
    exact = theory.mva(jobs, [theory.Station("host", overhead_s, cpus),
                              theory.Station("device", service_s, units)]).iloc[-1]
    # the engines' latency starts at the issue: the host's residence is not in it
    assert abs(r.iops - exact.throughput) <= TO_99 * r.iops_ci95, (r.iops, exact.throughput)
    assert abs(r.lat_mean_s - exact.r_device) <= TO_99 * r.lat_mean_ci95_s, (
        r.lat_mean_s, exact.r_device)
    # and the pool matters here: the answer differs from the delay-station host's
    free = theory.mva(jobs, [theory.Station("host", overhead_s, math.inf),
                             theory.Station("device", service_s, units)]).iloc[-1]
    assert abs(free.throughput - exact.throughput) > 3 * TO_99 * r.iops_ci95

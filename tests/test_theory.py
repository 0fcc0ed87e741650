"""Checks of iosim.theory against independent computations.

Each reference below is computed here from first principles (closed forms in exact rational
arithmetic, birth-death balance equations, a generator matrix solved with numpy, brute-force
truncated chains), never by calling another function of iosim.theory.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import gammainc

from iosim import theory
from iosim.theory import (
    Station,
    closed_bounds,
    erlang_c,
    hdd_iops,
    littles_law,
    md1,
    mg1,
    mm1,
    mm1_latency_percentile,
    mmc,
    mva,
    mva_multiunit,
    utilisation,
)

# ---------------------------------------------------------------------------------------------
# independent references
# ---------------------------------------------------------------------------------------------


def machine_repairman(n: int, service: Fraction, think: Fraction) -> tuple[Fraction, Fraction]:
    """Finite-source M/M/1//N in exact rationals: (throughput, mean response time).

    P(server idle) = 1 / sum_{k=0}^{N} N!/(N-k)! (S/Z)^k; X = (1 - p0) / S; R = N / X - Z.
    """
    ratio = service / think
    total = Fraction(0)
    term = Fraction(1)
    for k in range(n + 1):
        total += term
        term *= (n - k) * ratio
    p0 = 1 / total
    x = (1 - p0) / service
    return x, n / x - think


def closed_birth_death(n: int, service: float, servers: int, think: float) -> tuple[float, float]:
    """N customers alternate between an exponential think time Z and a c-server FCFS station.

    State j = customers at the station. Up-rate (N - j) / Z, down-rate min(j, c) / S. The
    balance equations of a birth-death chain across each cut give
    pi(j + 1) / pi(j) = ((N - j) / Z) / (min(j + 1, c) / S); solved in log space.
    Returns (throughput, mean response time at the station).
    """
    j = np.arange(n + 1, dtype=float)
    if think == 0.0:
        pi = np.zeros(n + 1)
        pi[n] = 1.0
    else:
        up = (n - j[:-1]) / think
        down = np.minimum(j[1:], servers) / service
        log_pi = np.concatenate([[0.0], np.cumsum(np.log(up) - np.log(down))])
        pi = np.exp(log_pi - log_pi.max())
        pi /= pi.sum()
    x = float(np.sum(pi * np.minimum(j, servers) / service))
    return x, float(np.sum(pi * j)) / x


def textbook_mva(n_max: int, demands: list[float], delays: list[float], think: float):
    """Plain Reiser-Lavenberg MVA for fixed-rate queues and delays (stable in this case)."""
    q = np.zeros(len(demands))
    xs, rs = [], []
    for n in range(1, n_max + 1):
        r_q = np.asarray(demands) * (1.0 + q)
        r_total = float(r_q.sum() + sum(delays))
        x = n / (think + r_total)
        q = x * r_q
        xs.append(x)
        rs.append(r_total)
    return np.array(xs), np.array(rs)


def generator_network(n: int, think: float, d_queue: float, s_multi: float, c: int, d_delay: float):
    """Solve the CTMC of think -> FCFS queue -> c-server station -> delay -> think numerically.

    States (a, b, d): customers at the queue, the c-server station and the delay; the rest
    think. Build the generator, replace one balance equation by normalisation, np.linalg.solve.
    Returns throughput and the mean number at each of the three stations.
    """
    states = [s for s in itertools.product(range(n + 1), repeat=3) if sum(s) <= n]
    index = {s: i for i, s in enumerate(states)}
    gen = np.zeros((len(states), len(states)))
    for (a, b, d), i in index.items():
        moves = []
        thinking = n - a - b - d
        if thinking:
            moves.append(((a + 1, b, d), thinking / think))
        if a:
            moves.append(((a - 1, b + 1, d), 1.0 / d_queue))
        if b:
            moves.append(((a, b - 1, d + 1), min(b, c) / s_multi))
        if d:
            moves.append(((a, b, d - 1), d / d_delay))
        for target, rate in moves:
            gen[i, index[target]] += rate
            gen[i, i] -= rate
    lhs = gen.T.copy()
    lhs[-1, :] = 1.0
    rhs = np.zeros(len(states))
    rhs[-1] = 1.0
    pi = np.linalg.solve(lhs, rhs)
    arr = np.array(states, dtype=float)
    x = float(np.sum(pi * (arr[:, 0] > 0)) / d_queue)
    return x, pi @ arr


def mmc_brute_p_wait(c: int, a: float, extra: int = 6000) -> float:
    """P(wait) of M/M/c from a long truncated birth-death chain, pi(k+1)/pi(k) = a/min(k+1, c)."""
    k = np.arange(1, c + extra + 1, dtype=float)
    log_pi = np.concatenate([[0.0], np.cumsum(math.log(a) - np.log(np.minimum(k, c)))])
    pi = np.exp(log_pi - log_pi.max())
    return float(pi[c:].sum() / pi.sum())


def rel_err(a, b) -> float:
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    return float(np.max(np.abs(a / b - 1.0)))


# ---------------------------------------------------------------------------------------------
# MVA
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("service", "think"),
    [
        (Fraction(1, 100), Fraction(1, 10)),  # saturates near N* = 11
        (Fraction(3, 1000), Fraction(1, 2)),  # light load throughout
        (Fraction(1, 10), Fraction(1, 1000)),  # think much shorter than service
    ],
)
def test_mva_single_queue_matches_machine_repairman(service: Fraction, think: Fraction) -> None:
    df = mva(30, [Station("disk", float(service))], think_s=float(think))
    assert list(df["n"]) == list(range(1, 31))
    for n in range(1, 31):
        x_ref, r_ref = machine_repairman(n, service, think)
        row = df.iloc[n - 1]
        assert row["throughput"] == pytest.approx(float(x_ref), rel=1e-12)
        assert row["latency_s"] == pytest.approx(float(r_ref), rel=1e-12)
        assert row["r_disk"] == pytest.approx(float(r_ref), rel=1e-12)
        assert row["q_disk"] == pytest.approx(float(x_ref * r_ref), rel=1e-12)


@pytest.mark.parametrize("servers", [1, 4, 16, 64])
@pytest.mark.parametrize("think", [0.0, 5e-4, 4e-3])
def test_mva_multiserver_matches_birth_death_chain(servers: int, think: float) -> None:
    service = 1e-3
    n_max = 128
    df = mva_multiunit(n_max, service, servers, think_s=think)
    x_ref, r_ref = zip(
        *(closed_birth_death(n, service, servers, think) for n in range(1, n_max + 1)),
        strict=True,
    )
    assert rel_err(df["throughput"], x_ref) < 1e-9
    assert rel_err(df["latency_s"], r_ref) < 1e-9
    assert rel_err(df["r_device"], r_ref) < 1e-9


def test_mva_large_device_with_think_time_matches_birth_death_chain() -> None:
    service, servers, think = 2e-3, 256, 1e-3  # saturation at N* = 768
    df = mva_multiunit(1024, service, servers, think_s=think)
    for n in (1, 2, 100, 256, 257, 600, 768, 900, 1024):
        x_ref, r_ref = closed_birth_death(n, service, servers, think)
        row = df.iloc[n - 1]
        assert row["throughput"] == pytest.approx(x_ref, rel=1e-9)
        assert row["latency_s"] == pytest.approx(r_ref, rel=1e-9)
    # customers are conserved: at the device plus thinking = N
    np.testing.assert_allclose(
        df["q_device"] + df["throughput"] * think, df["n"], rtol=1e-10, atol=0
    )


def test_mva_stable_for_256_units_and_1024_customers() -> None:
    service = 1e-3
    df = mva_multiunit(1024, service, 256, think_s=0.0)
    n = df["n"].to_numpy()
    assert np.all(np.isfinite(df.to_numpy(dtype=float)))
    assert rel_err(df["throughput"], np.minimum(n, 256) / service) < 1e-9
    assert rel_err(df["latency_s"][n <= 256], service) < 1e-9
    # beyond the units, the excess waits: R = N / X = N S / c
    assert rel_err(df["latency_s"][n > 256], n[n > 256] * service / 256) < 1e-9
    assert rel_err(df["q_device"], n) < 1e-9


def test_mva_fixed_rate_network_matches_textbook_recursion() -> None:
    demands = [4e-3, 2.5e-3, 1e-3]
    delays = [7e-3]
    think = 2e-2
    stations = [Station(f"q{i}", d) for i, d in enumerate(demands)]
    stations.append(Station("cable", delays[0], math.inf))
    df = mva(200, stations, think_s=think)
    x_ref, r_ref = textbook_mva(200, demands, delays, think)
    assert rel_err(df["throughput"], x_ref) < 1e-10
    assert rel_err(df["latency_s"], r_ref) < 1e-10
    assert rel_err(df["r_cable"], delays[0]) < 1e-12
    # the bottleneck (4 ms) caps throughput at 250/s
    assert df["throughput"].iloc[-1] == pytest.approx(250.0, rel=1e-6)


@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_mva_mixed_network_matches_generator_matrix(n: int) -> None:
    think, d_queue, s_multi, c, d_delay = 0.03, 0.004, 0.012, 3, 0.02
    df = mva(
        n,
        [
            Station("hba", d_queue),
            Station("device", s_multi, c),
            Station("wire", d_delay, math.inf),
        ],
        think_s=think,
    )
    x_ref, q_ref = generator_network(n, think, d_queue, s_multi, c, d_delay)
    row = df.iloc[-1]
    assert row["throughput"] == pytest.approx(x_ref, rel=1e-9)
    got = [row["q_hba"], row["q_device"], row["q_wire"]]
    np.testing.assert_allclose(got, q_ref, rtol=1e-9)
    assert row["latency_s"] == pytest.approx(sum(q_ref) / x_ref, rel=1e-9)


def test_mva_columns_and_station_forms() -> None:
    df = mva(3, [Station("a", 1e-3), Station("b", 2e-3, 4)], think_s=1e-3)
    assert list(df.columns) == ["n", "throughput", "latency_s", "q_a", "q_b", "r_a", "r_b"]
    assert Station("x", 1e-3, 4.0).servers == 4
    assert Station("x", 1e-3, math.inf).is_delay
    assert not Station("x", 1e-3).is_delay


# ---------------------------------------------------------------------------------------------
# bounds
# ---------------------------------------------------------------------------------------------


def test_closed_bounds_values() -> None:
    b = closed_bounds(1, 0.01, think_s=0.09)
    assert b == pytest.approx({"x_upper": 10.0, "r_lower": 0.01, "n_star": 10.0})
    b = closed_bounds(50, 0.01, 0.005, think_s=0.04)
    assert b == pytest.approx({"x_upper": 200.0, "r_lower": 0.21, "n_star": 10.0})


station_strategy = st.tuples(
    st.floats(1e-4, 1e-1),
    st.sampled_from([1, 1, 2, 3, 8, 32, math.inf]),
)


@settings(max_examples=60, deadline=None)
@given(
    queues=st.lists(station_strategy, min_size=1, max_size=4),
    n_max=st.integers(1, 80),
    think=st.one_of(st.just(0.0), st.floats(1e-5, 1.0)),
)
def test_bounds_hold_for_mva(queues, n_max, think) -> None:
    stations = [Station(f"s{i}", s, c) for i, (s, c) in enumerate(queues)]
    stations.append(Station("anchor", queues[0][0], 1))  # at least one finite-capacity station
    total = sum(s.service_s for s in stations)
    dmax = max(s.service_s / s.servers for s in stations if not s.is_delay)
    df = mva(n_max, stations, think_s=think)
    for n, x, r in zip(df["n"], df["throughput"], df["latency_s"], strict=True):
        b = closed_bounds(int(n), total, dmax, think_s=think)
        assert x <= b["x_upper"] * (1 + 1e-9)
        assert r >= b["r_lower"] * (1 - 1e-9)


# ---------------------------------------------------------------------------------------------
# open queues
# ---------------------------------------------------------------------------------------------


def test_erlang_c_known_values() -> None:
    for rho in (0.0, 0.2, 0.75, 0.99):
        assert erlang_c(1, rho) == pytest.approx(rho, abs=1e-15)
    assert erlang_c(2, 1.0) == pytest.approx(1 / 3, rel=1e-14)
    assert erlang_c(3, 2.0) == pytest.approx(4 / 9, rel=1e-14)


@pytest.mark.parametrize("c", [1, 2, 5, 17, 64, 200, 500, 1000])
@pytest.mark.parametrize("rho", [0.1, 0.5, 0.9, 0.99])
def test_erlang_c_matches_brute_force_chain(c: int, rho: float) -> None:
    a = rho * c
    got = erlang_c(c, a)
    assert math.isfinite(got) and 0.0 <= got <= 1.0
    assert got == pytest.approx(mmc_brute_p_wait(c, a), rel=1e-9, abs=1e-300)


def test_mmc_consistency() -> None:
    lam, s, c = 3000.0, 2e-3, 8
    r = mmc(lam, s, c)
    a = lam * s
    assert r["utilisation"] == pytest.approx(a / c)
    assert r["p_wait"] == pytest.approx(mmc_brute_p_wait(c, a), rel=1e-9)
    # mean queue length of M/M/c: C * rho / (1 - rho)
    rho = a / c
    assert r["wait_s"] * lam == pytest.approx(r["p_wait"] * rho / (1 - rho), rel=1e-12)
    assert r["latency_s"] == pytest.approx(r["wait_s"] + s, rel=1e-15)
    assert r["mean_in_system"] == pytest.approx(lam * r["latency_s"], rel=1e-15)
    one = mmc(300.0, 2e-3, 1)
    assert one["latency_s"] == pytest.approx(1 / (500.0 - 300.0), rel=1e-12)


def test_pollaczek_khinchine_special_cases() -> None:
    lam, s = 700.0, 1e-3
    m = mm1(lam, s)
    assert m["latency_s"] == pytest.approx(1 / (1 / s - lam), rel=1e-12)
    assert m["mean_in_system"] == pytest.approx(0.7 / 0.3, rel=1e-12)
    d = md1(lam, s)
    assert d["wait_s"] == pytest.approx(m["wait_s"] / 2, rel=1e-12)
    assert d["utilisation"] == pytest.approx(0.7)
    g = mg1(lam, s, 4.0)  # hyperexponential-like service: wait grows with (1 + scv)
    assert g["wait_s"] == pytest.approx(m["wait_s"] * 5 / 2, rel=1e-12)
    assert mg1(0.0, s, 1.0)["latency_s"] == s


def test_mm1_latency_percentile_is_exponential_quantile() -> None:
    lam, s = 600.0, 1e-3
    rate = 1 / s - lam
    assert mm1_latency_percentile(lam, s, 0.5) == pytest.approx(math.log(2) / rate, rel=1e-14)
    assert mm1_latency_percentile(lam, s, 0.99) == pytest.approx(math.log(100) / rate, rel=1e-14)
    assert mm1_latency_percentile(lam, s, 0.0) == 0.0
    # Independent derivation: an arrival finding k in system (probability (1 - rho) rho^k)
    # stays for k + 1 exponential services, an Erlang(k + 1, mu) time. Sum the mixture's CDF.
    rho, mu = lam * s, 1 / s
    k = np.arange(400)
    weights = (1 - rho) * rho**k
    for q in (0.1, 0.5, 0.9, 0.999):
        t = mm1_latency_percentile(lam, s, q)
        cdf = float(np.sum(weights * gammainc(k + 1, mu * t)))
        assert cdf == pytest.approx(q, rel=1e-10)


# ---------------------------------------------------------------------------------------------
# operational laws and disk physics
# ---------------------------------------------------------------------------------------------


def test_littles_law_each_direction() -> None:
    assert littles_law(throughput=1782.98, latency_s=0.507e-3) == pytest.approx(0.90397, rel=1e-4)
    assert littles_law(outstanding=128, latency_s=0.128e-3) == pytest.approx(1e6)
    assert littles_law(outstanding=4, throughput=8000.0) == pytest.approx(0.5e-3)


def test_utilisation_law() -> None:
    assert utilisation(250.0, 2e-3) == pytest.approx(0.5)
    assert utilisation(256000.0, 1e-3, 256) == pytest.approx(1.0)


def test_hdd_iops_reproduces_e5_table() -> None:
    # E5: 1000 / (seek + rotation). The published figures are rounded inconsistently (75.9 is
    # quoted as 76, 166.7 as 166), so check the exact formula and that each is within 1 IOPS.
    cases = [(0.009, 7200, 0.0, 76), (0.006, 10000, 0.0, 111), (0.004, 15000, 0.0, 166)]
    cases.append((0.007, 10000, 0.0008, 93))
    for seek, rpm, xfer, published in cases:
        exact = 1000.0 / (seek * 1000 + 30000.0 / rpm + xfer * 1000)
        got = hdd_iops(seek, rpm, xfer)
        assert got == pytest.approx(exact, rel=1e-12)
        assert abs(got - published) < 1.0
    assert math.floor(hdd_iops(0.006, 10000)) == 111
    assert math.floor(hdd_iops(0.004, 15000)) == 166
    assert round(hdd_iops(0.009, 7200)) == 76
    assert round(hdd_iops(0.007, 10000, 0.0008)) == 93


# ---------------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------------

BAD = [
    (lambda: erlang_c(0, 0.5), "servers must be >= 1 (got 0)"),
    (lambda: erlang_c(2.5, 0.5), "servers"),
    (lambda: erlang_c(4, 4.0), "offered_load"),
    (lambda: erlang_c(4, -1.0), "offered_load"),
    (lambda: mmc(1000.0, 1e-3, 1), "arrival_rate"),
    (lambda: mmc(1000.0, 1e-3, 1), "capacity"),
    (lambda: mmc(10.0, 0.0, 1), "service_s"),
    (lambda: mg1(10.0, 1e-3, -0.5), "service_scv"),
    (lambda: mg1(float("nan"), 1e-3, 1.0), "arrival_rate"),
    (lambda: mm1(2000.0, 1e-3), "arrival_rate"),
    (lambda: md1(10.0, -1e-3), "md1: service_s"),
    (lambda: mm1(10.0, 0.0), "mm1: service_s"),
    (lambda: mm1_latency_percentile(10.0, 1e-3, 99), "q must be a fraction"),
    (lambda: mm1_latency_percentile(1e4, 1e-3, 0.5), "arrival_rate"),
    (lambda: Station("d", 0.0), "service_s"),
    (lambda: Station("d", 1e-3, 0), "servers"),
    (lambda: Station("d", 1e-3, 2.5), "servers"),
    (lambda: Station("", 1e-3), "name"),
    (lambda: mva(0, [Station("d", 1e-3)]), "n_max"),
    (lambda: mva(4, []), "stations"),
    (lambda: mva(4, [Station("d", 1e-3)], think_s=-1.0), "think_s"),
    (lambda: mva(4, [Station("d", 1e-3), Station("d", 2e-3)]), "unique"),
    (lambda: mva(4, ["disk"]), "stations[0]"),
    (lambda: mva_multiunit(4, 1e-3, 0), "units"),
    (lambda: littles_law(throughput=5.0), "exactly two"),
    (lambda: littles_law(throughput=5.0, latency_s=1.0, outstanding=5.0), "exactly two"),
    (lambda: littles_law(throughput=-5.0, latency_s=1.0), "throughput"),
    (lambda: littles_law(outstanding=5.0, latency_s=0.0), "latency_s"),
    (lambda: utilisation(10.0, 1e-3, servers=0), "servers"),
    (lambda: closed_bounds(0, 0.01), "n must be > 0 (got 0)"),
    (lambda: closed_bounds(5, 0.01, 0.02), "max_demand_s"),
    (lambda: closed_bounds(5, 0.01, think_s=-1), "think_s"),
    (lambda: hdd_iops(0.009, 0), "rpm"),
    (lambda: hdd_iops(-0.009, 7200), "avg_seek_s"),
]


@pytest.mark.parametrize(("call", "needle"), BAD)
def test_bad_input_raises_value_error_naming_parameter(call, needle: str) -> None:
    with pytest.raises(ValueError) as info:
        call()
    assert needle in str(info.value)


def test_public_functions_document_their_assumptions() -> None:
    for name in theory.__all__:
        obj = getattr(theory, name)
        assert obj.__doc__, name
        if name != "Station":
            assert "Assumptions" in obj.__doc__, name

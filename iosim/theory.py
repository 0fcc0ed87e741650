"""Analytic queueing theory for storage I/O, on plain numbers.

Everything here works in SI units: times in seconds, rates in I/Os per second (IOPS). The
functions do not know about stacks, workloads or simulation results; they take numbers and
return numbers (or a :class:`pandas.DataFrame` for the MVA sweep), so that notebooks, tests and
the simulator can all draw the "theory" line from the same place.

Contents
--------
* Operational laws: :func:`littles_law`, :func:`utilisation`, :func:`closed_bounds`.
* Closed product-form networks: :class:`Station`, :func:`mva`, :func:`mva_multiunit`,
  :func:`mva_random_routing` (K queues, each request routed to one at random: an SSD's dies).
* Open single-station queues: :func:`erlang_c`, :func:`mmc`, :func:`mg1`, :func:`mm1`,
  :func:`md1`, :func:`mm1_latency_percentile`.
* Disk physics: :func:`hdd_iops`.

Every function validates its input and raises :class:`ValueError` naming the offending
parameter, the value it got and what is allowed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import gammaln

__all__ = [
    "Station",
    "closed_bounds",
    "erlang_c",
    "hdd_iops",
    "littles_law",
    "md1",
    "mg1",
    "mm1",
    "mm1_latency_percentile",
    "mmc",
    "mva",
    "mva_multiunit",
    "mva_random_routing",
    "random_routing_rates",
    "utilisation",
]


# ---------------------------------------------------------------------------------------------
# validation helpers
# ---------------------------------------------------------------------------------------------


def _real(func: str, name: str, value: object) -> float:
    """Return ``value`` as a finite float or raise a ValueError naming the parameter."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{func}: {name} must be a real number (got {value!r})")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{func}: {name} must be finite (got {value!r})")
    return v


def _positive(func: str, name: str, value: object) -> float:
    v = _real(func, name, value)
    if v <= 0.0:
        raise ValueError(f"{func}: {name} must be > 0 (got {value!r})")
    return v


def _non_negative(func: str, name: str, value: object) -> float:
    v = _real(func, name, value)
    if v < 0.0:
        raise ValueError(f"{func}: {name} must be >= 0 (got {value!r})")
    return v


def _int_at_least(func: str, name: str, value: object, minimum: int) -> int:
    """Accept ints and integral floats (e.g. ``4.0``); reject bools, fractions, infinities."""
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    if not ok and isinstance(value, (float, np.floating)):
        ok = math.isfinite(value) and float(value).is_integer()
    if not ok:
        raise ValueError(f"{func}: {name} must be an integer >= {minimum} (got {value!r})")
    v = int(value)  # type: ignore[arg-type]
    if v < minimum:
        raise ValueError(f"{func}: {name} must be >= {minimum} (got {value!r})")
    return v


# ---------------------------------------------------------------------------------------------
# operational laws
# ---------------------------------------------------------------------------------------------


def littles_law(
    *,
    throughput: float | None = None,
    latency_s: float | None = None,
    outstanding: float | None = None,
) -> float:
    """Little's law ``N = X * R``: give exactly two of the three, get the third.

    Parameters are keyword-only: ``throughput`` X (I/Os per second), ``latency_s`` R (mean time
    an I/O spends inside the box being measured, seconds) and ``outstanding`` N (mean number of
    I/Os inside that box).

    Assumptions: the three quantities are long-run averages over the same boundary and the same
    interval, and the system is in steady state (what enters eventually leaves; the number inside
    does not drift). No assumption about distributions, scheduling or the number of servers is
    needed. Within those conditions the result is exact.
    """
    func = "littles_law"
    given = {
        "throughput": throughput,
        "latency_s": latency_s,
        "outstanding": outstanding,
    }
    missing = [k for k, v in given.items() if v is None]
    if len(missing) != 1:
        present = [k for k, v in given.items() if v is not None]
        raise ValueError(
            f"{func}: give exactly two of throughput, latency_s, outstanding "
            f"(got {len(present)}: {', '.join(present) or 'none'})"
        )
    values = {k: _non_negative(func, k, v) for k, v in given.items() if v is not None}
    if missing[0] == "outstanding":
        return values["throughput"] * values["latency_s"]
    if missing[0] == "throughput":
        if values["latency_s"] == 0.0:
            raise ValueError(f"{func}: latency_s must be > 0 to solve for throughput (got 0.0)")
        return values["outstanding"] / values["latency_s"]
    if values["throughput"] == 0.0:
        raise ValueError(f"{func}: throughput must be > 0 to solve for latency_s (got 0.0)")
    return values["outstanding"] / values["throughput"]


def utilisation(throughput: float, service_s: float, servers: int = 1) -> float:
    """Utilisation law ``U = X * S / c``: mean fraction of the ``servers`` units that are busy.

    ``throughput`` X is the completion rate at the device (I/Os per second), ``service_s`` S the
    mean service time of one I/O on one unit (seconds), ``servers`` c the number of identical
    units serving one shared queue.

    Assumptions: steady state, and X and S are averages over the same interval. Exact under
    those conditions for any distribution. A result >= 1 means the stated throughput is beyond
    what the units can deliver (it is returned, not rejected, so callers can flag overload).
    """
    func = "utilisation"
    x = _non_negative(func, "throughput", throughput)
    s = _non_negative(func, "service_s", service_s)
    c = _int_at_least(func, "servers", servers, 1)
    return x * s / c


def closed_bounds(
    n: float,
    demand_s: float,
    max_demand_s: float | None = None,
    think_s: float = 0.0,
) -> dict[str, float]:
    """Asymptotic (balanced-job) bounds for a closed loop with ``n`` customers.

    ``demand_s`` D is the total service demand of one I/O summed over all queueing stations
    (seconds), ``max_demand_s`` D_max the demand at the bottleneck (defaults to D, i.e. one
    station), ``think_s`` Z the time a customer spends outside the stations between I/Os (host
    overhead). Returns::

        {"x_upper": min(n / (D + Z), 1 / D_max),   # throughput can be no higher
         "r_lower": max(D, n * D_max - Z),          # mean response time can be no lower
         "n_star":  (D + Z) / D_max}                # where the two asymptotes cross

    Assumptions: steady state, and each station's throughput is limited to 1/D_max. For a
    station with c identical units of service time S pass ``max_demand_s = S / c`` (its
    capacity is c/S) while D still counts the full S (a single I/O still needs S). The bounds
    hold for any service distribution and scheduling; they are bounds, not estimates, and are
    tight only at n = 1 and as n -> infinity.
    """
    func = "closed_bounds"
    n_ = _positive(func, "n", n)
    d = _positive(func, "demand_s", demand_s)
    dmax = d if max_demand_s is None else _positive(func, "max_demand_s", max_demand_s)
    if dmax > d * (1.0 + 1e-12):
        raise ValueError(f"{func}: max_demand_s must be <= demand_s = {d!r} (got {max_demand_s!r})")
    z = _non_negative(func, "think_s", think_s)
    return {
        "x_upper": min(n_ / (d + z), 1.0 / dmax),
        "r_lower": max(d, n_ * dmax - z),
        "n_star": (d + z) / dmax,
    }


# ---------------------------------------------------------------------------------------------
# exact MVA for closed product-form networks
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Station:
    """One service station of a closed network, for :func:`mva`.

    ``name`` labels the output columns (``q_<name>``, ``r_<name>``). ``service_s`` is the mean
    service demand of one customer cycle at this station, in seconds (for a station visited V
    times per cycle with mean service S per visit, pass V * S). ``servers`` is:

    * ``1``: a fixed-rate single-server queue (FCFS with exponential service, or processor
      sharing / LCFS-PR with any service distribution);
    * an integer ``c >= 2``: c identical units sharing one FCFS queue, each with mean
      ``service_s``; the station completes work at rate ``min(j, c) / service_s`` when it holds
      j customers (a load-dependent station: the multi-unit device);
    * ``math.inf``: a pure delay (infinite servers; every customer is served at once).
    """

    name: str
    service_s: float
    servers: float = 1

    def __post_init__(self) -> None:
        func = "Station"
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"{func}: name must be a non-empty string (got {self.name!r})")
        _positive(f"{func} {self.name!r}", "service_s", self.service_s)
        if isinstance(self.servers, (float, np.floating)) and math.isinf(self.servers):
            if self.servers < 0:
                raise ValueError(
                    f"{func} {self.name!r}: servers must be an integer >= 1 or math.inf "
                    f"(got {self.servers!r})"
                )
            return
        try:
            c = _int_at_least(f"{func} {self.name!r}", "servers", self.servers, 1)
        except ValueError:
            raise ValueError(
                f"{func} {self.name!r}: servers must be an integer >= 1 or math.inf "
                f"(got {self.servers!r})"
            ) from None
        object.__setattr__(self, "servers", c)

    @property
    def is_delay(self) -> bool:
        """True for an infinite-server (pure delay) station."""
        return math.isinf(self.servers)


def _log_factors(service: float, servers: float, n_max: int) -> np.ndarray:
    """log f(j), j = 0..n_max, with f(j) = service^j / prod_{i<=j} min(i, servers)."""
    j = np.arange(n_max + 1, dtype=float)
    out = j * math.log(service)
    if math.isinf(servers):
        out -= gammaln(j + 1.0)
    elif servers > 1:
        rates = np.minimum(np.arange(1, n_max + 1, dtype=float), float(servers))
        out[1:] -= np.cumsum(np.log(rates))
    return out


def _log_identity(n_max: int) -> np.ndarray:
    """The convolution identity in log space: G(0) = 1, G(n > 0) = 0."""
    out = np.full(n_max + 1, -np.inf)
    out[0] = 0.0
    return out


def _logsumexp_rows(m: np.ndarray) -> np.ndarray:
    """Row-wise log(sum(exp(m))) that tolerates rows of -inf without warnings."""
    top = np.max(m, axis=1)
    finite = np.isfinite(top)
    shift = np.where(finite, top, 0.0)
    s = np.sum(np.exp(m - shift[:, None]), axis=1)
    out = np.full(m.shape[0], -np.inf)
    pos = s > 0.0
    out[pos] = np.log(s[pos]) + shift[pos]
    return out


def _conv_index(n_max: int) -> tuple[np.ndarray, np.ndarray]:
    n = np.arange(n_max + 1)
    diff = n[:, None] - n[None, :]  # row n, column j -> n - j
    return np.clip(diff, 0, None), diff >= 0


def _log_convolve(a: np.ndarray, b: np.ndarray, idx: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """log of (exp(a) * exp(b)) convolved, truncated to len(a)."""
    m = np.where(valid, a[None, :] + b[idx], -np.inf)
    return _logsumexp_rows(m)


def mva(n_max: int, stations: Sequence[Station], think_s: float = 0.0) -> pd.DataFrame:
    """Exact mean value analysis of a single-class closed network, for N = 1..n_max customers.

    The network is ``n_max`` (or fewer) customers cycling through a delay of mean ``think_s``
    (Z: host overhead between I/Os) and then through every station in ``stations`` (see
    :class:`Station`: fixed-rate queue, c-unit load-dependent station, or pure delay).

    Returns a :class:`pandas.DataFrame` with one row per population N = 1..n_max and columns

    * ``n`` -- the population N (int);
    * ``throughput`` -- X(N), customer cycles (I/Os) per second;
    * ``latency_s`` -- mean response time over all stations, excluding the think time
      (``N / X - Z``);
    * ``q_<name>`` -- mean number of customers at each station (queued plus in service);
    * ``r_<name>`` -- mean residence time per cycle at each station (``q / X``).

    Assumptions for exactness: the network has product form (BCMP) -- every queue is FCFS with
    exponentially distributed service of the given mean (or processor sharing / LCFS-PR / delay
    with any distribution), a c-unit station serves its single FCFS queue at rate min(j, c)/S,
    routing is fixed or Markovian and described by per-cycle demands, there is one customer
    class, and nothing blocks (no finite buffers, no admission limits). Steady-state averages.
    Within those assumptions the numbers are exact up to floating-point rounding (relative
    error ~1e-12 in tests with c = 256, N = 1024).

    Method: the Reiser-Lavenberg load-dependent MVA obtains the marginal queue-length
    probabilities p_k(j | N) recursively, with p_k(0 | N) = 1 - sum_{j>=1} p_k(j | N); that
    subtraction cancels catastrophically once a station has many units and is well utilised
    (errors grow like c^j / j!). Here the same marginals are computed in closed form,
    ``p_k(j | N) = f_k(j) G_{-k}(N - j) / G(N)``, where G is the normalising constant of the
    whole network and G_{-k} that of the network without station k (the "complement network"
    fix for p(0)). All constants are built by convolution in log space (a scaled
    log-sum-exp), so nothing overflows, underflows or cancels. Cost is O(K N^2) time and
    O(N^2) memory for K stations.
    """
    func = "mva"
    n_max_ = _int_at_least(func, "n_max", n_max, 1)
    z = _non_negative(func, "think_s", think_s)
    if isinstance(stations, Station):
        stations = [stations]
    stations = list(stations)
    if not stations:
        raise ValueError(f"{func}: stations must contain at least one Station (got [])")
    for i, st in enumerate(stations):
        if not isinstance(st, Station):
            raise ValueError(f"{func}: stations[{i}] must be a Station (got {st!r})")
    names = [st.name for st in stations]
    dupes = sorted({nm for nm in names if names.count(nm) > 1})
    if dupes:
        raise ValueError(f"{func}: station names must be unique (got duplicates {dupes})")

    # Work in time units of the largest demand so the log-constants stay moderate; every
    # factor f(j) carries exactly service^j, so G(N) scales by scale^N and X by 1/scale.
    scale = max(max(st.service_s for st in stations), z)
    idx, valid = _conv_index(n_max_)

    logf = [_log_factors(st.service_s / scale, st.servers, n_max_) for st in stations]
    think_log = _log_factors(z / scale, math.inf, n_max_) if z > 0.0 else _log_identity(n_max_)

    # prefix[k] = think * stations[0..k-1];  suffix[k] = stations[k..K-1]
    k_count = len(stations)
    prefix = [think_log]
    for k in range(k_count):
        prefix.append(_log_convolve(prefix[-1], logf[k], idx, valid))
    suffix = [_log_identity(n_max_)] * (k_count + 1)
    for k in range(k_count - 1, -1, -1):
        suffix[k] = _log_convolve(logf[k], suffix[k + 1], idx, valid)
    log_g = prefix[k_count]

    n = np.arange(1, n_max_ + 1)
    x_scaled = np.exp(log_g[:-1] - log_g[1:])  # X(N) = G(N-1) / G(N)
    throughput = x_scaled / scale

    data: dict[str, np.ndarray] = {"n": n, "throughput": throughput}
    j = np.arange(n_max_ + 1, dtype=float)
    q_cols: dict[str, np.ndarray] = {}
    r_cols: dict[str, np.ndarray] = {}
    latency = np.zeros(n_max_)
    for k, st in enumerate(stations):
        log_rest = _log_convolve(prefix[k], suffix[k + 1], idx, valid)  # G_{-k}
        # row N, column j: log p_k(j | N) (unnormalised by rounding; renormalised below)
        m = np.where(valid, logf[k][None, :] + log_rest[idx] - log_g[:, None], -np.inf)
        p = np.exp(m[1:])
        q = (p @ j) / p.sum(axis=1)
        r = q / throughput
        q_cols[f"q_{st.name}"] = q
        r_cols[f"r_{st.name}"] = r
        latency += r
    data["latency_s"] = latency
    data.update(q_cols)
    data.update(r_cols)
    return pd.DataFrame(data)


def mva_multiunit(n_max: int, service_s: float, units: int, think_s: float = 0.0) -> pd.DataFrame:
    """Exact MVA for one device with ``units`` identical units and one shared queue.

    Shorthand for ``mva(n_max, [Station("device", service_s, units)], think_s)``: N = 1..n_max
    outstanding I/Os (closed loop, e.g. numjobs x iodepth), each I/O served by one of the units
    in mean ``service_s`` seconds, then spending ``think_s`` (host overhead) before the next I/O.
    Columns: ``n``, ``throughput``, ``latency_s``, ``q_device``, ``r_device``.

    Assumptions for exactness: exponential service times (the load-dependent product-form
    station), exponential or any-distribution think time (a delay station is insensitive), FCFS
    with no other limit on outstanding I/Os. With ``think_s = 0`` the result is exact for any
    service distribution (all N customers are always at the device).
    """
    func = "mva_multiunit"
    units_ = _int_at_least(func, "units", units, 1)
    _positive(func, "service_s", service_s)
    return mva(n_max, [Station("device", service_s, units_)], think_s)


def random_routing_log_factors(service_s: float, queues: float, n_max: int) -> np.ndarray:
    """log f(n), n = 0..n_max, of ``queues`` identical single-server FCFS queues that each
    request visits one of at random (visit ratio 1 / K, mean service ``service_s`` there).

    The K queues convolved are one load-dependent station with
    f(n) = (S / K)^n C(n + K - 1, K - 1) (the number of ways to put n customers in K queues), so
    it completes work at rate mu(n) = f(n - 1) / f(n) = K n / ((n + K - 1) S): 1 / S with one
    request, rising gradually (not with a knee) towards K / S. ``queues`` may be fractional
    (the binomial through the gamma function), which an optimiser needs."""
    k = float(queues)
    n = np.arange(n_max + 1, dtype=float)
    return n * math.log(service_s / k) + gammaln(n + k) - gammaln(k) - gammaln(n + 1.0)


def random_routing_rates(n_max: int, service_s: float, queues: float) -> np.ndarray:
    """mu(n) = K n / ((n + K - 1) S), n = 1..n_max: the completion rate of K queues with random
    routing holding n requests (see :func:`random_routing_log_factors`).

    Assumptions for exactness: each request picks its queue uniformly at random and
    independently, each queue is one FCFS server with exponential service of mean
    ``service_s`` (the product-form station); nothing else limits the requests."""
    func = "random_routing_rates"
    n_max_ = _int_at_least(func, "n_max", n_max, 1)
    s = _positive(func, "service_s", service_s)
    k = _real(func, "queues", queues)
    if k < 1:
        raise ValueError(f"{func}: queues must be >= 1 (got {queues!r})")
    n = np.arange(1, n_max_ + 1, dtype=float)
    return k * n / ((n + k - 1.0) * s)


def mva_random_routing(
    n_max: int, service_s: float, queues: int, delay_s: float = 0.0, think_s: float = 0.0
) -> pd.DataFrame:
    """Exact MVA of a closed loop through ``queues`` single-server queues, each request going
    to one of them at random (an SSD whose address-to-die mapping spreads random I/O over K
    dies; collisions queue at the die), plus a pure ``delay_s`` (controller overhead) and the
    host's ``think_s``, for N = 1..n_max.

    Columns: ``n``, ``throughput``, ``latency_s`` (dies + delay), ``q_dies``, ``r_dies``.

    Assumptions for exactness: uniform independent routing, FCFS queues with exponential
    service (product form); the delays take any distribution. Same result
    as :func:`mva` with K stations of demand ``service_s / K``, in O(N^2) instead of O(K N^2).
    """
    func = "mva_random_routing"
    n_max_ = _int_at_least(func, "n_max", n_max, 1)
    s = _positive(func, "service_s", service_s)
    k = _int_at_least(func, "queues", queues, 1)
    d = _non_negative(func, "delay_s", delay_s)
    z = _non_negative(func, "think_s", think_s)
    scale = max(s, d, z)
    idx, valid = _conv_index(n_max_)
    dies = random_routing_log_factors(s / scale, k, n_max_)
    rest = _log_identity(n_max_)
    if d + z > 0:
        rest = _log_factors((d + z) / scale, math.inf, n_max_)
    log_g = _log_convolve(dies, rest, idx, valid)
    x = np.exp(log_g[:-1] - log_g[1:]) / scale
    j = np.arange(n_max_ + 1, dtype=float)
    m = np.where(valid, dies[None, :] + rest[idx] - log_g[:, None], -np.inf)
    p = np.exp(m[1:])
    q = (p @ j) / p.sum(axis=1)
    n = np.arange(1, n_max_ + 1)
    r_dies = q / x
    return pd.DataFrame({"n": n, "throughput": x, "latency_s": r_dies + d, "q_dies": q,
                         "r_dies": r_dies})


# ---------------------------------------------------------------------------------------------
# open queues
# ---------------------------------------------------------------------------------------------


def erlang_c(servers: int, offered_load: float) -> float:
    """Erlang C: probability that an arriving I/O has to wait in an M/M/c queue.

    ``servers`` is c (integer >= 1); ``offered_load`` a = arrival rate x mean service time, in
    Erlangs (mean number of busy units), and must satisfy 0 <= a < c.

    Assumptions for exactness: Poisson arrivals, exponential service, c identical units sharing
    one unlimited FCFS queue (work-conserving), steady state. Computed with the Erlang B
    recursion B(k) = a B(k-1) / (k + a B(k-1)) and C = c B / (c - a (1 - B)), which stays
    within [0, 1] at every step, so it neither overflows nor loses precision for c in the
    thousands.
    """
    func = "erlang_c"
    c = _int_at_least(func, "servers", servers, 1)
    a = _non_negative(func, "offered_load", offered_load)
    if a >= c:
        raise ValueError(
            f"{func}: offered_load must be < servers = {c} for a steady state (got {a!r})"
        )
    b = 1.0
    for k in range(1, c + 1):
        b = a * b / (k + a * b)
    return c * b / (c - a * (1.0 - b))


def mmc(arrival_rate: float, service_s: float, servers: int) -> dict[str, float]:
    """M/M/c queue: ``arrival_rate`` (I/Os per second), ``service_s`` mean service time of one
    unit (seconds), ``servers`` c identical units with one shared queue.

    Returns ``wait_s`` (mean time queued before service), ``latency_s`` (wait + service),
    ``utilisation`` (rho = lambda S / c), ``p_wait`` (Erlang C) and ``mean_in_system``
    (lambda x latency, by Little's law).

    Assumptions for exactness: Poisson arrivals, exponential service, FCFS single queue feeding
    any free unit, unlimited queue, steady state, which needs rho < 1 (arrival rate below the
    capacity c / S).
    """
    func = "mmc"
    lam = _non_negative(func, "arrival_rate", arrival_rate)
    s = _positive(func, "service_s", service_s)
    c = _int_at_least(func, "servers", servers, 1)
    capacity = c / s
    if lam >= capacity:
        raise ValueError(
            f"{func}: arrival_rate must be < capacity servers/service_s = {capacity!r} per s "
            f"(got {lam!r}, utilisation {lam / capacity:.6g})"
        )
    a = lam * s
    pw = erlang_c(c, a)
    wait = pw * s / (c - a)
    latency = wait + s
    return {
        "wait_s": wait,
        "latency_s": latency,
        "utilisation": a / c,
        "p_wait": pw,
        "mean_in_system": lam * latency,
    }


def mg1(arrival_rate: float, service_mean_s: float, service_scv: float) -> dict[str, float]:
    """M/G/1 queue via the Pollaczek-Khinchine mean-value formula.

    ``arrival_rate`` lambda (I/Os per second), ``service_mean_s`` S (seconds), ``service_scv``
    the squared coefficient of variation of service time (variance / mean^2; 0 for constant
    service = M/D/1, 1 for exponential = M/M/1). Returns ``wait_s`` =
    rho S (1 + scv) / (2 (1 - rho)), ``latency_s`` (wait + S), ``utilisation`` rho = lambda S
    and ``mean_in_system`` (lambda x latency).

    Assumptions for exactness: Poisson arrivals, independent identically distributed service
    times with the given first two moments, one server, FCFS (any non-preemptive order that
    ignores service times gives the same mean), unlimited queue, steady state (rho < 1).
    """
    func = "mg1"
    lam = _non_negative(func, "arrival_rate", arrival_rate)
    s = _positive(func, "service_mean_s", service_mean_s)
    scv = _non_negative(func, "service_scv", service_scv)
    rho = lam * s
    if rho >= 1.0:
        raise ValueError(
            f"{func}: arrival_rate must be < capacity 1/service_mean_s = {1.0 / s!r} per s "
            f"(got {lam!r}, utilisation {rho:.6g})"
        )
    wait = rho * s * (1.0 + scv) / (2.0 * (1.0 - rho))
    latency = wait + s
    return {
        "wait_s": wait,
        "latency_s": latency,
        "utilisation": rho,
        "mean_in_system": lam * latency,
    }


def mm1(arrival_rate: float, service_s: float) -> dict[str, float]:
    """M/M/1 queue: :func:`mg1` with exponential service (scv = 1); latency = 1 / (mu - lambda).

    Assumptions: Poisson arrivals, exponential service, one server, steady state (rho < 1).
    """
    _positive("mm1", "service_s", service_s)
    return mg1(arrival_rate, service_s, 1.0)


def md1(arrival_rate: float, service_s: float) -> dict[str, float]:
    """M/D/1 queue: :func:`mg1` with constant service (scv = 0); half the M/M/1 wait.

    Assumptions: Poisson arrivals, deterministic service, one server, steady state (rho < 1).
    """
    _positive("md1", "service_s", service_s)
    return mg1(arrival_rate, service_s, 0.0)


def mm1_latency_percentile(arrival_rate: float, service_s: float, q: float) -> float:
    """Quantile ``q`` (a fraction, e.g. 0.99 for p99) of the M/M/1 response time, in seconds.

    The sojourn time (wait + service) of a FCFS M/M/1 queue is exponential with rate
    mu - lambda, so the quantile is ``-ln(1 - q) / (mu - lambda)``.

    Assumptions for exactness: Poisson arrivals, exponential service, one server, FCFS,
    steady state (lambda < mu = 1 / service_s).
    """
    func = "mm1_latency_percentile"
    lam = _non_negative(func, "arrival_rate", arrival_rate)
    s = _positive(func, "service_s", service_s)
    qq = _real(func, "q", q)
    if not 0.0 <= qq < 1.0:
        raise ValueError(f"{func}: q must be a fraction in [0, 1), e.g. 0.99 (got {q!r})")
    mu = 1.0 / s
    if lam >= mu:
        raise ValueError(
            f"{func}: arrival_rate must be < capacity 1/service_s = {mu!r} per s (got {lam!r})"
        )
    return -math.log1p(-qq) / (mu - lam)


# ---------------------------------------------------------------------------------------------
# disk physics
# ---------------------------------------------------------------------------------------------


def hdd_iops(avg_seek_s: float, rpm: float, transfer_s: float = 0.0) -> float:
    """Random-I/O rate of one spinning disk with no queueing: 1 / (seek + rotation + transfer).

    ``avg_seek_s`` is the mean seek time (seconds), ``rpm`` the spindle speed (revolutions per
    minute; average rotational latency is half a revolution, 30 / rpm seconds), ``transfer_s``
    the media transfer time of one I/O (seconds).

    Assumptions: one I/O at a time (queue depth 1, so no reordering by NCQ/SATF), uniformly
    random addresses so the average seek and half a revolution apply, no cache hits, and
    negligible controller/command overhead. Returns a float; published tables round it (e.g.
    7200 rpm and 9 ms gives 75.9, usually quoted as 76).
    """
    func = "hdd_iops"
    seek = _non_negative(func, "avg_seek_s", avg_seek_s)
    r = _positive(func, "rpm", rpm)
    xfer = _non_negative(func, "transfer_s", transfer_s)
    return 1.0 / (seek + 30.0 / r + xfer)

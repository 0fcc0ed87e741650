"""The surrogate of a fit: exact mean value analysis of the stack's closed loop (and of an open
loop), on the few numbers of a stack it needs (:class:`_Flat`).

The network below the host is built as a product of log normalising constants (log space,
scaled: nothing overflows): the device (a pool of units behind one queue, or K queues with
random routing: an SSD's dies, see :func:`iosim.theory.mva_random_routing`), pure delays (link
latency, an SSD controller), single servers for transfer caps and token buckets; an HBA limit
is a flow-equivalent server (Norton's theorem); the host is a delay (or one CPU per job when a
job keeps several I/Os in flight), with at most ``host.cpus`` servers when the host's CPUs are a
shared pool (exact with iodepth 1; with deeper jobs min(jobs, CPUs) servers, an approximation).
An open loop (Poisson arrivals) sees independent stations.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from ..spec import SpecError
from ..stack import Stack
from ..theory import random_routing_log_factors
from ..workload import Workload

__all__ = ["surrogate"]

# -- the surrogate: exact MVA of the closed loop -------------------------------------------


def _logsumexp_rows(m: np.ndarray) -> np.ndarray:
    top = np.max(m, axis=1)
    finite = np.isfinite(top)
    shift = np.where(finite, top, 0.0)
    with np.errstate(under="ignore"):
        s = np.sum(np.exp(m - shift[:, None]), axis=1)
    out = np.full(m.shape[0], -np.inf)
    pos = s > 0
    out[pos] = np.log(s[pos]) + shift[pos]
    return out


_CONV_INDEX: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def _conv_index(n: int) -> tuple[np.ndarray, np.ndarray]:
    got = _CONV_INDEX.get(n)
    if got is None:
        idx = np.arange(n)
        diff = idx[:, None] - idx[None, :]
        got = (np.clip(diff, 0, None), diff < 0)
        if len(_CONV_INDEX) > 64:
            _CONV_INDEX.clear()
        _CONV_INDEX[n] = got
    return got


def _conv_numpy(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """log of the convolution of exp(a) and exp(b), truncated to len(a) (== len(b))."""
    idx, upper = _conv_index(len(a))
    m = a[None, :] + b[idx]
    m[upper] = -np.inf
    return _logsumexp_rows(m)


#: terms more than this below a sum's largest (in log) are left out of it: each is less
#: than e^-40 = 4e-18 of that term, so all of them together (at most a few thousand) move
#: the sum by less than its own rounding
_CONV_CUT = 40.0


def _conv_loops(a: np.ndarray, b: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """:func:`_conv_numpy` as plain loops (compiled by numba: no N x N temporaries). Each
    sum's terms are added relative to its largest, and only those within
    :data:`_CONV_CUT` of it (the exponential is the loop's cost: on the surrogate's
    stations most terms are far below the largest, 6-7x faster over 257 terms)."""
    n = len(a)
    out = np.empty(n)
    terms = np.empty(n)
    for k in range(n):
        top = -np.inf
        for j in range(k + 1):
            v = a[j] + b[k - j]
            terms[j] = v
            if v > top:
                top = v
        if top == -np.inf:
            out[k] = -np.inf
            continue
        low = top - _CONV_CUT
        s = 0.0
        for j in range(k + 1):
            if terms[j] > low:
                s += math.exp(terms[j] - top)
        out[k] = top + math.log(s)
    return out


def _concave(a: np.ndarray) -> bool:  # pragma: no cover - compiled
    """True when ``a`` is concave (its increments never rise, up to rounding), -inf allowed
    only at index 0: the log of a log-concave sequence, as every station's log f(j) here is
    (a station whose completion rate never falls as requests are added) and as their
    convolutions are."""
    prev = np.inf
    for j in range(1, len(a)):
        if a[j] == -np.inf or (a[j - 1] == -np.inf and j > 1):
            return False
        if a[j - 1] == -np.inf:
            continue
        d = a[j] - a[j - 1]
        if d > prev + 1e-9 * (1.0 + abs(prev)):
            return False
        prev = d
    return True


def _conv_concave(a: np.ndarray, b: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """:func:`_conv_loops` for two concave ``a`` and ``b`` (:func:`_concave`), the same
    terms summed: each sum's terms a[j] + b[k - j] are then concave in j, so they rise to one
    largest and fall away from it, and that largest moves right (never left) as k grows. The
    largest is found from the last one's place, and the terms within :data:`_CONV_CUT` of it
    are summed outwards from it until one falls below: on a 513-deep sweep's stations 1.4-7x
    faster than every term of every sum."""
    n = len(a)
    out = np.empty(n)
    top_j = 0
    for k in range(n):
        top_j = min(top_j, k)
        top = a[top_j] + b[k - top_j]
        while top_j < k:
            v = a[top_j + 1] + b[k - top_j - 1]
            if v < top:
                break
            top = v
            top_j += 1
        if top == -np.inf:
            out[k] = -np.inf
            continue
        low = top - _CONV_CUT
        s = 1.0
        j = top_j - 1
        while j >= 0:
            v = a[j] + b[k - j]
            if v <= low:
                break
            s += math.exp(v - top)
            j -= 1
        j = top_j + 1
        while j <= k:
            v = a[j] + b[k - j]
            if v <= low:
                break
            s += math.exp(v - top)
            j += 1
        out[k] = top + math.log(s)
    return out


def _conv_server(a: np.ndarray, log_demand: float) -> np.ndarray:  # pragma: no cover
    """The convolution of exp(a) with one single server's f(j) = demand^j (log values): its
    sums c(k) = sum_j a(k - j) demand^j satisfy c(k) = a(k) + demand c(k - 1), one step each
    instead of k + 1 terms (a transfer cap, a token bucket: 10x faster on a 513-deep sweep).
    Every term is kept (no :data:`_CONV_CUT`: the cut ones are below the sums' rounding)."""
    n = len(a)
    out = np.empty(n)
    c = -np.inf
    for k in range(n):
        x = c + log_demand
        y = a[k]
        if x == -np.inf:
            c = y
        elif y == -np.inf:
            c = x
        elif x > y:
            c = x + math.log1p(math.exp(y - x))
        else:
            c = y + math.log1p(math.exp(x - y))
        out[k] = c
    return out


def _conv_any(a: np.ndarray, b: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """log of the convolution of exp(a) and exp(b), truncated to len(a) (== len(b)): by
    :func:`_conv_concave` when both are concave, else by every term (:func:`_conv_loops`)."""
    if _concave(a) and _concave(b):
        return _conv_concave(a, b)
    return _conv_loops(a, b)


try:  # the surrogate's inner loop; numba is what the fast engine uses too
    import numba

    from ..engine.jit import compiled_with

    _conv = compiled_with(_conv_any, {
        "_concave": numba.njit(cache=True)(_concave),
        "_conv_concave": numba.njit(cache=True)(_conv_concave),
        "_conv_loops": numba.njit(cache=True)(_conv_loops)}, cache=True)
    _conv_server_jit = numba.njit(cache=True)(_conv_server)
except ImportError:  # pragma: no cover
    _conv = _conv_numpy
    _conv_server_jit = _conv_server


def _with_server(a: np.ndarray, demand: float) -> np.ndarray:
    """``a`` convolved with a single server of mean ``demand`` (:func:`_conv_server`)."""
    return _conv_server_jit(a, math.log(demand))


def _log_f_servers(demand: float, servers: float, n_max: int) -> np.ndarray:
    """log f(j) = log(demand^j / prod_{i<=j} min(i, servers)), j = 0..n_max (real servers
    allowed: the rate grows by one unit per customer until it reaches ``servers``)."""
    j = np.arange(n_max + 1, dtype=float)
    out = j * math.log(demand)
    rates = np.minimum(np.arange(1, n_max + 1, dtype=float), servers)
    out[1:] -= np.cumsum(np.log(rates))
    return out


def _log_f_contended(service: float, units: float, contention: float, n_max: int
                     ) -> np.ndarray:
    """log f(j) of a pool whose busy units slow each other: with b = min(j, units) busy it
    completes b / (service (1 + contention (b - 1))) per second (the generic device's
    contention; with units >= j, random routing to 1 / contention queues)."""
    busy = np.minimum(np.arange(1, n_max + 1, dtype=float), units)
    return _log_f_rates(np.log(busy) - np.log(service * (1.0 + contention * (busy - 1.0))))


def _log_f_rates(log_rates: np.ndarray) -> np.ndarray:
    """log f(j) of a load-dependent station with service rates mu(1..n) (log values)."""
    out = np.zeros(len(log_rates) + 1)
    out[1:] = -np.cumsum(log_rates)
    return out


@dataclass
class _Flat:
    """The numbers of a stack the surrogate needs (SI units)."""

    overhead_s: float
    service_s: float
    units: float
    latency_s: float
    bandwidth_Bps: float
    media_rate_Bps: float
    queue_depth: float
    paths: int
    nr_requests: float
    # an SSD: requests routed at random to ``units`` dies (else one queue for all units), a
    # write's own die time, a controller delay and the host interface's cap per direction
    random_routing: bool = False
    write_service_s: float | None = None
    controller_s: float = 0.0
    host_if_Bps: float = math.inf
    # a cloud volume: a token bucket (IOPS, each I/O counting ceil(size / unit) operations)
    bucket_iops: float = math.inf
    io_unit_bytes: float = math.inf
    # per-direction IOPS caps: one bucket each ("separate") or one budget both draw on
    read_bucket_iops: float = math.inf
    write_bucket_iops: float = math.inf
    shared_budget: bool = False
    # a bucket of bytes on all I/Os (a cloud volume's bandwidth cap)
    bw_bucket_Bps: float = math.inf
    # an SSD's page: a larger request is striped over several dies (inf: never)
    page_bytes: float = math.inf
    # a pool whose units slow each other (the generic device's contention)
    contention: float = 0.0
    # the host's CPUs shared by the overhead periods (host.cpus; inf: no shared limit)
    host_cpus: float = math.inf
    # a token bucket's depth: seconds of its rate it holds (an open loop's bursts pass free)
    bucket_depth_s: float = 0.0

    def buckets(self, block_bytes: float, read_fraction: float) -> list[tuple[float, float]]:
        """The token buckets as (fraction of I/Os that visit, token time per visit)."""
        ops = 1.0 if not math.isfinite(self.io_unit_bytes) else \
            float(max(1, math.ceil(block_bytes / self.io_unit_bytes)))
        rf = read_fraction
        out = []
        if math.isfinite(self.bucket_iops):
            out.append((1.0, ops / self.bucket_iops))
        r_cap, w_cap = self.read_bucket_iops, self.write_bucket_iops
        if self.shared_budget and (math.isfinite(r_cap) or math.isfinite(w_cap)):
            out.append((1.0, ops * (rf / r_cap + (1.0 - rf) / w_cap)))
        elif not self.shared_budget:
            for frac, cap in ((rf, r_cap), (1.0 - rf, w_cap)):
                if frac > 0 and math.isfinite(cap):
                    out.append((frac, ops / cap))
        if math.isfinite(self.bw_bucket_Bps):
            out.append((1.0, block_bytes / self.bw_bucket_Bps))
        return out

    @classmethod
    def of(cls, stack: Stack) -> _Flat:
        view = stack.device.queueing_view()  # the device family's own product-form view
        if view is None:
            raise SpecError(f"fit: a {stack.device.kind} device is not a product-form network "
                            "the analytic surrogate solves; fit it by simulation")
        return cls(
            overhead_s=stack.host.overhead.mean_s,
            latency_s=stack.link.latency_s,
            bandwidth_Bps=stack.link.bandwidth_Bps,
            queue_depth=float(stack.hba.queue_depth),
            paths=stack.multipath.paths,
            nr_requests=float(stack.block.nr_requests),
            service_s=view.service_s,
            units=view.units,
            media_rate_Bps=view.media_rate_Bps,
            random_routing=view.random_routing,
            write_service_s=view.write_service_s,
            controller_s=view.delay_s,
            host_if_Bps=view.host_if_Bps,
            bucket_iops=view.bucket_iops,
            io_unit_bytes=view.io_unit_bytes,
            read_bucket_iops=view.read_bucket_iops,
            write_bucket_iops=view.write_bucket_iops,
            shared_budget=view.shared_budget,
            bw_bucket_Bps=view.bandwidth_bucket_Bps,
            page_bytes=view.page_bytes,
            contention=view.contention,
            host_cpus=float(stack.host.cpus) if stack.host.cpus > 0 else math.inf,
            bucket_depth_s=view.bucket_depth_s,
        )

    def set(self, name: str, value: float) -> None:
        attr = {
            "host.overhead": "overhead_s",
            "host.cpus": "host_cpus",
            "device.service": "service_s",
            "device.units": "units",
            "link.latency_s": "latency_s",
            "link.bandwidth_Bps": "bandwidth_Bps",
            "hba.queue_depth": "queue_depth",
            "device.dies": "units",
            "device.controller_overhead_s": "controller_s",
            "device.host_interface_Bps": "host_if_Bps",
            "device.latency_s": "service_s",
            "device.iops_limit": "bucket_iops",
            "device.read_iops_limit": "read_bucket_iops",
            "device.write_iops_limit": "write_bucket_iops",
            "device.media_rate_Bps": "media_rate_Bps",
            "device.channel_rate_Bps": "media_rate_Bps",
            "device.bandwidth_limit_Bps": "bw_bucket_Bps",
            "device.contention": "contention",
        }.get(name)
        if attr is not None:
            setattr(self, attr, float(value))
        if name in ("device.die_service_s", "device.die_read_s"):
            self.service_s = float(value)
        if name in ("device.die_service_s", "device.die_write_s"):
            self.write_service_s = float(value)


_MAX_N = 4096


def _device_station(flat: _Flat, block_bytes: float, read_fraction: float
                    ) -> tuple[float, float]:
    """The device as one station for requests of ``block_bytes``: (mean service, units).

    A pool: its units, each holding a request for the base time plus ``size / media rate``.
    Random routing over dies with pages (an SSD): a request of p pages is striped over p
    consecutive dies, each holding it for the array time plus one page's transfer, in
    parallel; aligned requests (fio aligns offsets to the block size) then occupy disjoint
    groups of p dies, so the K dies serve as K / p units of that time (p > K: every die
    serves p / K pages one after the other)."""
    per = flat.service_s
    if flat.write_service_s is not None:
        per = read_fraction * per + (1.0 - read_fraction) * flat.write_service_s
    moved, pages = block_bytes, 1.0
    if flat.random_routing and block_bytes > flat.page_bytes:
        pages, moved = float(math.ceil(block_bytes / flat.page_bytes)), flat.page_bytes
    if math.isfinite(flat.media_rate_Bps):
        per += moved / flat.media_rate_Bps
    if not flat.random_routing:
        return max(per, 1e-15), max(flat.units, 1e-9)
    k = max(flat.units, 1.0)
    return max(per * max(pages / k, 1.0), 1e-15), max(k / pages, 1.0)


def _solve_group(
    flat: _Flat,
    n_max: int,
    block_bytes: float,
    read_fraction: float,
    numjobs: int,
    iodepth: int,
    think_s: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Throughput and host latency for N = 1..n_max outstanding I/Os (exact MVA, see module
    docstring). Returns (X[N], R[N]) arrays indexed by N (index 0 unused)."""
    if n_max > _MAX_N:
        raise SpecError(
            f"fit: {n_max} outstanding I/Os is more than the analytic model handles ({_MAX_N})"
        )
    # below the host: device units, link delay, link transfer caps
    limit = min(flat.queue_depth * flat.paths, flat.nr_requests)
    q_int = int(min(n_max, math.ceil(limit)))
    service, units = _device_station(flat, block_bytes, read_fraction)
    if flat.random_routing:
        inner = random_routing_log_factors(service, units, q_int)
    elif flat.contention > 0:
        inner = _log_f_contended(service, units, flat.contention, q_int)
    else:
        inner = _log_f_servers(service, units, q_int)
    delay = 2.0 * flat.latency_s + flat.controller_s
    if delay > 0:
        inner = _conv(inner, _log_f_servers(delay, math.inf, q_int))
    for frac, token_s in flat.buckets(block_bytes, read_fraction):  # a bucket: a server of
        inner = _with_server(inner, frac * token_s)  # its token time
    if math.isfinite(flat.host_if_Bps):
        for frac in (f for f in (read_fraction, 1.0 - read_fraction) if f > 0):
            inner = _with_server(inner, frac * block_bytes / flat.host_if_Bps)
    if math.isfinite(flat.bandwidth_Bps):
        per_dir = []
        if read_fraction > 0:
            per_dir.append(read_fraction)
        if read_fraction < 1:
            per_dir.append(1.0 - read_fraction)
        for frac in per_dir:
            demand = frac * block_bytes / flat.bandwidth_Bps / flat.paths
            for _ in range(flat.paths):
                inner = _with_server(inner, demand)
    # throughput of the network below the host with n = 1..q_int requests in it
    log_x_in = inner[:-1] - inner[1:]  # log X_in(n), n = 1..q_int
    if q_int < n_max:
        # flow-equivalent server: the rate stops growing at the (possibly fractional) limit
        frac = limit - math.floor(limit)
        lo = int(math.floor(limit))
        if frac > 0 and lo >= 1 and lo < q_int:
            top = (1 - frac) * log_x_in[lo - 1] + frac * log_x_in[lo]
        else:
            top = log_x_in[q_int - 1]
        log_rates = np.concatenate([log_x_in[: q_int - 1], np.full(n_max - q_int + 1, top)])
    else:
        log_rates = log_x_in[:n_max]
    fes = _log_f_rates(log_rates)
    # the host: one CPU per job when a job keeps several I/Os in flight, else a pure delay;
    # at most the host's shared CPUs
    outer_parts = []
    if flat.overhead_s > 0:
        servers = min(float(numjobs) if iodepth > 1 else math.inf, flat.host_cpus)
        outer_parts.append(_log_f_servers(flat.overhead_s, servers, n_max))
    if think_s > 0:
        outer_parts.append(_log_f_servers(think_s, math.inf, n_max))
    if outer_parts:
        host = outer_parts[0]
        for extra in outer_parts[1:]:
            host = _conv(host, extra)
        g = _conv(fes, host)
        j = np.arange(n_max + 1, dtype=float)
        with np.errstate(divide="ignore"):
            log_j = np.log(j)
        qg = _conv(fes + log_j, host)  # sum_j j f_fes(j) f_host(N - j)
        x = np.exp(g[:-1] - g[1:])
        q_fes = np.exp(qg[1:] - g[1:])
    else:
        x = np.exp(log_rates)
        q_fes = np.arange(1, n_max + 1, dtype=float)
    xx = np.concatenate([[np.nan], x])
    rr = np.concatenate([[np.nan], q_fes / x])
    return xx, rr


def surrogate(stack: Stack, workloads: Iterable[Workload]) -> list[dict[str, float]]:
    """Analytic (MVA) IOPS and mean host latency of ``stack`` under closed-loop workloads.

    Exact for exponential service, delays and caps without an HBA/queue limit (see the module
    docstring); the quick estimate the optimiser of :func:`fit` uses. Returns one dict
    ``{"iops", "lat_mean_s"}`` per workload.
    """
    flat = _Flat.of(stack)
    wls = list(workloads)
    return _predict_flat(flat, wls)


def _open_queue_s(rate: float, service: float) -> float:
    """Mean residence of an M/M/1 station (inf when it cannot keep up)."""
    rho = rate * service
    return service / (1.0 - rho) if rho < 1.0 else math.inf


def _open_pool_s(rate: float, service: float, units: float) -> float:
    """Mean residence in a pool of ``units`` servers (real-valued: the rate grows by one unit
    per request up to ``units``) fed by Poisson arrivals: the open product-form marginal
    P(n) ~ (rate S)^n / prod min(i, units), summed until its terms are negligible."""
    a = rate * service
    if a >= units:
        return math.inf
    if units > 64 and a < 0.2 * units:  # hardly anyone queues: a delay
        return service
    tail = math.ceil(60.0 / max(-math.log(a / units), 1e-12))
    n = np.arange(1, int(math.ceil(units)) + min(tail, 200_000) + 1, dtype=float)
    logt = np.concatenate([[0.0], np.cumsum(math.log(a) - np.log(np.minimum(n, units)))])
    w = np.exp(logt - logt.max())
    return float((np.arange(len(w)) * w).sum() / w.sum()) / rate


def _open_contended_s(rate: float, service: float, units: float, contention: float) -> float:
    """Mean residence in a pool whose busy units slow each other (rates of
    :func:`_log_f_contended`) fed by Poisson arrivals: the open marginal P(n) ~ prod rate /
    mu(i), summed until its terms are negligible (inf at or past its top rate)."""
    top = units / (service * (1.0 + contention * (units - 1.0)))
    if rate >= top:
        return math.inf
    # past ``units`` every step multiplies P(n) by rate / top < 1: a geometric tail, summed
    # until it falls below e^-60 of the largest term (at most 200,000 terms, as before)
    tail = math.ceil(60.0 / max(-math.log(rate / top), 1e-12))
    n = np.arange(1, int(math.ceil(units)) + min(tail, 200_000) + 1, dtype=float)
    busy = np.minimum(n, units)
    log_mu = np.log(busy) - np.log(service * (1.0 + contention * (busy - 1.0)))
    logt = np.concatenate([[0.0], np.cumsum(math.log(rate) - log_mu)])
    w = np.exp(logt - logt.max())
    return float((np.arange(len(w)) * w).sum() / w.sum()) / rate


def _open_latency(flat: _Flat, wl: Workload) -> float:
    """Mean latency of an open loop (Poisson arrivals at ``wl.rate_iops``) through the
    network below the host: in an open product-form network the stations are independent,
    so the latency is the sum of each station's own (the host overhead is not on the path:
    arrivals do not wait for completions)."""
    lam, bs, rf = float(wl.rate_iops), wl.mean_block_bytes, wl.read_fraction
    service, k = _device_station(flat, bs, rf)
    if flat.random_routing:
        r = _open_queue_s(lam / k, service)
    elif flat.contention > 0:
        r = _open_contended_s(lam, service, k, flat.contention)
    else:
        r = _open_pool_s(lam, service, k)
    r += 2.0 * flat.latency_s + flat.controller_s
    for frac in (f for f in (rf, 1.0 - rf) if f > 0):
        if math.isfinite(flat.bandwidth_Bps):
            r += frac * _open_queue_s(lam * frac / flat.paths,
                                      bs / flat.bandwidth_Bps)
        if math.isfinite(flat.host_if_Bps):
            r += frac * _open_queue_s(lam * frac, bs / flat.host_if_Bps)
    for frac, token_s in flat.buckets(bs, rf):
        r += frac * _open_bucket_s(lam * frac, token_s, flat.bucket_depth_s)
    return r


def _open_bucket_s(rate: float, token_s: float, depth_s: float) -> float:
    """Mean wait at a token bucket (one token every ``token_s``, holding ``depth_s`` seconds
    of them) fed by Poisson arrivals. The requests' deficit of tokens D rises by one per
    arrival and falls by one per token: an M/D/1 queue of service ``token_s``; a request waits
    only while D exceeds what the bucket holds, b = depth_s / token_s. With the M/D/1 tail
    P(D > n) ~ rho sigma^n (sigma = 1 / z*, z* > 1 the root of z = exp(rho (z - 1)): the
    queue length's decay rate), the waiting requests are E[(D - b)+] = rho sigma^b / (1 -
    sigma), and Little gives the wait. A bucket with no depth is an M/D/1 queue within 10 %
    (7 % at rho 0.5, 3 % at 0.9); a deep one below its rate costs nothing, which an
    exponential server at the token rate would get wrong by rho / (1 - rho) token times."""
    rho = rate * token_s
    if rho >= 1.0:
        return math.inf
    if rho <= 0.0:
        return 0.0
    from scipy.special import lambertw

    z = -float(lambertw(-rho * math.exp(-rho), k=-1).real) / rho
    sigma = 1.0 / z
    waiting = rho * sigma ** (depth_s / token_s) / (1.0 - sigma)
    return waiting / rate


def _predict_flat(flat: _Flat, wls: list[Workload]) -> list[dict[str, float]]:
    groups: dict[tuple, list[int]] = {}
    out: list[dict[str, float]] = [{} for _ in wls]
    for i, wl in enumerate(wls):
        if wl.open_loop:
            r = _open_latency(flat, wl)
            out[i] = {"iops": float(wl.rate_iops) if math.isfinite(r) else math.nan,
                      "lat_mean_s": r}
            continue
        key = (
            wl.mean_block_bytes,
            wl.read_fraction,
            wl.numjobs if wl.iodepth > 1 else 0,
            wl.iodepth > 1,
            wl.thinktime_s,
        )
        groups.setdefault(key, []).append(i)
    for (bs, rf, nj, deep, think), idx in groups.items():
        n_max = max(wls[i].outstanding for i in idx)
        x, r = _solve_group(flat, n_max, bs, rf, max(nj, 1), 2 if deep else 1, think)
        for i in idx:
            n = wls[i].outstanding
            out[i] = {"iops": float(x[n]), "lat_mean_s": float(r[n])}
    return out


def _flat_with(flat0: _Flat, values: Mapping[str, float]) -> _Flat:
    flat = _Flat(**flat0.__dict__)
    for k, v in values.items():
        flat.set(k, v)
    return flat

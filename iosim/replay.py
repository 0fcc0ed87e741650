"""Replay a block trace through a stack, compare with what the trace measured, ask what-if.

:func:`replay` drives any stack with the requests of a :class:`~iosim.traces.blocktrace.
BlockTrace` (or of a :class:`~iosim.traces.block_stream.BlockTraceFile`, read from its file a
chunk at a time: the engines stream the trace either way, see
:mod:`iosim.engine.trace_source`): their offsets, sizes and directions reach the device as
recorded, so HDD seeks and SPTF, RAID striping, SSD die routing, read-ahead and caches see the
real addresses. When the requests are issued is the ``mode``:

* ``"open"``: at the trace's timestamps divided by ``speed`` (``speed=2`` replays twice as
  fast), whatever the stack does: the question "does the stack keep up with this load?".
* ``"closed"``: in the trace's order with ``outstanding`` requests in flight (each slot pays
  the host overhead, as a closed-loop job does): the question "how fast could it go?".
* ``"validate"``: DiskSim's validation rule: one request at a time, the next one issued the
  recorded idle time after the previous one completes. Meant for traces that carry each
  request's measured response time and idle gap (DiskSim's ``validate`` format).

Every request is measured (a trace is not a steady state; ``warmup`` skips the first ones).
:class:`ReplayResult` holds the overall :class:`~iosim.results.Results` (percentiles with
confidence intervals as for any run), latencies per time window as a :class:`~iosim.results.
Curve`, every request's simulated latency, and, where the trace carries measured latencies, a
:class:`Comparison`: errors of the mean, p50, p95 and p99, and the *demerit figure*. Past
:data:`EXACT_MAX` requests (or with ``exact=False``) the replay keeps fine histograms instead
of every latency, so its memory is bounded whatever the trace's length
(:mod:`iosim.replay_stats`): the percentiles, window percentiles and demerit figure then come
from the histograms, each quantile within 0.1 % of the exact one.

The demerit figure (Ruemmler and Wilkes, "An introduction to disk drive modeling", IEEE
Computer 1994; DiskSim's ``src/rms.c``, which DiskSim's ``valid/runvalid`` reports for each
validated drive) is the root-mean-square horizontal distance between the measured and the
simulated response-time CDFs: both quantile functions are read at the probabilities
0.0001, 0.0002, ..., 1 (linear interpolation between the CDFs' points, as ``rms.c`` does) and
the RMS of their differences is taken. It is given in seconds and as a fraction of the
measured mean response time. **Change from rms.c:** DiskSim reads the CDFs from its bucketed
response-time histograms; here they are the exact empirical CDFs of the requests (a bounded
replay reads them from 0.1 % log-spaced bins, finer than DiskSim's buckets).

:func:`max_speed` bisects on ``speed`` for the largest speed-up at which a latency percentile
stays under a service-level objective, every point simulated with the same seed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .engine import fast as fast_engine
from .engine.simpy_engine import run_simpy
from .engine.summary import results_of
from .engine.trace_source import TRACE_MODES, TraceSource
from .replay_stats import BoundedSink, ExactSink, LogHistogram
from .results import Curve, Results
from .simulate import ENGINES
from .spec import SpecError, UnstableError
from .stack import Stack
from .units import show_time
from .workload import Workload

__all__ = [
    "replay",
    "max_speed",
    "rms_cdf_distance",
    "ReplayResult",
    "Comparison",
    "MaxSpeed",
    "TRACE_MODES",
]

RMS_STEP = 1e-4  # rms.c's RMS_INCR: the CDFs are compared at every 0.01 % of probability
EXACT_MAX = 1 << 21  # longer traces keep histograms, not every request (see replay_stats)
#: the share of a trace's measured time at one count of requests in flight (one or more) from
#: which the trace reads as recorded from a closed loop: fio at iodepth N kept N in flight 95 %
#: of the time; Poisson arrivals and production traces spend most of theirs at 0
CLOSED_SHARE = 0.8
#: an open-loop replay whose stack served less than this share of the rate the trace asks for
#: is overloaded: its queue grew through the replay (the run ran on past the last arrival by
#: more than a ninth of the trace's span: 1 / 0.9 - 1)
OVERLOAD_SHARE = 0.9


def measured_in_flight(arrival_s: np.ndarray, latency_s: np.ndarray) -> tuple[int, float]:
    """(the count of requests in flight the trace held longest by its own issue times and
    measured latencies, the share of the time from first issue to last completion it held
    it); (0, 0.0) with fewer than two measured requests."""
    ok = np.isfinite(arrival_s) & np.isfinite(latency_s)
    issue = np.asarray(arrival_s, dtype=float)[ok]
    if len(issue) < 2:
        return 0, 0.0
    t = np.concatenate([issue, issue + np.asarray(latency_s, dtype=float)[ok]])
    step = np.concatenate([np.ones(len(issue)), -np.ones(len(issue))])
    order = np.lexsort((-step, t))  # (at one instant issues first: never below zero)
    level = np.cumsum(step[order])[:-1].astype(np.int64)
    held = np.bincount(level, weights=np.diff(t[order]))
    total = held.sum()
    if not total > 0:
        return 0, 0.0
    k = int(np.argmax(held))
    return k, float(held[k] / total)


def _closed_loop_note(arrival_s: np.ndarray, measured_s: np.ndarray) -> str | None:
    """What to say when an open-loop replay's trace was recorded from a closed loop."""
    n, share = measured_in_flight(arrival_s, measured_s)
    if n < 1 or share < CLOSED_SHARE:
        return None
    return (f"the trace kept {n} request{'s' if n > 1 else ''} in flight {100 * share:.0f} % "
            f"of its measured time, as a closed loop does (fio at iodepth={n}, or {n} "
            f"synchronous thread{'s' if n > 1 else ''}): each issue waited for a completion. "
            "Replayed at its recorded times, a stack a little slower than the device queues "
            f"far beyond {n}; --mode closed --outstanding {n} (mode='closed', outstanding={n}) "
            "replays it as it ran")


def _overload_note(n: int, span_s: float, speed: float, served_iops: float) -> str | None:
    """What to say when an open-loop replay's stack did not keep up with the trace: ``n``
    requests arriving over ``span_s`` seconds (at ``speed``), ``served_iops`` completed per
    second over the run."""
    if n < 2 or not span_s > 0 or not served_iops > 0:
        return None
    offered = n / span_s
    if served_iops >= OVERLOAD_SHARE * offered:
        return None
    keeps_up = speed * served_iops / offered
    digits = max(0, 1 - math.floor(math.log10(keeps_up)))
    keeps_up = math.floor(keeps_up * 10 ** digits) / 10 ** digits  # two figures, rounded down
    at = "" if speed == 1 else f" at {speed:g}x"
    return (f"the stack is overloaded: the trace asks for {offered:,.0f} I/Os per s ({n:,} "
            f"requests in {show_time(span_s)}{at}) and the stack served {served_iops:,.0f} "
            "per s, so its queue grew through the replay and these latencies measure that "
            f"backlog, not the stack; it keeps up on average only below --speed {keeps_up:g} "
            f"(speed={keeps_up:g}; bursts still queue there), or replay on a faster stack "
            "(--max-speed --slo p99=LATENCY finds the speed-up a latency target allows)")


# ---------------------------------------------------------------------------------------------
# the demerit figure
# ---------------------------------------------------------------------------------------------


def _quantiles(values: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """The empirical CDF's inverse, linear between its points (k/n, k-th smallest value)."""
    x = np.sort(np.asarray(values, dtype=float))
    n = len(x)
    return np.interp(probs, np.arange(1, n + 1) / n, x)


def rms_cdf_distance(measured, simulated, step: float = RMS_STEP) -> float:
    """Root-mean-square horizontal distance between two samples' CDFs (DiskSim's ``rms.c``):
    the quantile functions compared at probabilities ``step, 2 step, ..., 1``. Two samples
    that differ by a constant ``c`` are ``|c|`` apart; the unit is the samples' unit."""
    a = np.asarray(measured, dtype=float)
    b = np.asarray(simulated, dtype=float)
    a = a[np.isfinite(a)]
    b = b[np.isfinite(b)]
    if len(a) == 0 or len(b) == 0:
        raise SpecError("the demerit figure needs at least one measured and one simulated value")
    probs = np.arange(1, int(round(1.0 / step)) + 1) * step
    d = _quantiles(a, probs) - _quantiles(b, probs)
    return float(np.sqrt(np.mean(d * d)))


@dataclass
class Comparison:
    """Simulated against measured response times, over the requests that carry a measurement."""

    n: int
    measured: dict  # mean_s, p50_s, p95_s, p99_s
    simulated: dict
    demerit_s: float  # RMS horizontal distance between the CDFs
    demerit_frac: float  # ... as a fraction of the measured mean

    @property
    def errors(self) -> dict:
        """(simulated - measured) / measured for the mean and each percentile."""
        return {k: (self.simulated[k] - v) / v if v else math.nan
                for k, v in self.measured.items()}

    def to_dict(self) -> dict:
        return {"n": self.n, "measured": dict(self.measured), "simulated": dict(self.simulated),
                "errors": self.errors, "demerit_s": self.demerit_s,
                "demerit_frac": self.demerit_frac}


def _stats(lat: np.ndarray) -> dict:
    p50, p95, p99 = np.percentile(lat, [50, 95, 99])
    return {"mean_s": float(lat.mean()), "p50_s": float(p50), "p95_s": float(p95),
            "p99_s": float(p99)}


def compare(measured: np.ndarray, simulated: np.ndarray) -> Comparison:
    """The comparison over the requests where both are known."""
    ok = np.isfinite(measured) & np.isfinite(simulated)
    m, s = measured[ok], simulated[ok]
    if len(m) == 0:
        raise SpecError("no request carries both a measured and a simulated latency")
    d = rms_cdf_distance(m, s)
    ms = _stats(m)
    return Comparison(n=int(len(m)), measured=ms, simulated=_stats(s), demerit_s=d,
                      demerit_frac=d / ms["mean_s"] if ms["mean_s"] > 0 else math.nan)


def compare_histograms(measured: LogHistogram, simulated: LogHistogram,
                       step: float = RMS_STEP) -> Comparison:
    """:func:`compare` read from histograms (a bounded replay): the same statistics and
    demerit, each quantile within a bin's width (0.1 %) of the exact one."""
    if measured.n == 0 or simulated.n == 0:
        raise SpecError("no request carries both a measured and a simulated latency")
    probs = np.arange(1, int(round(1.0 / step)) + 1) * step
    d = measured.quantiles(probs) - simulated.quantiles(probs)
    dem = float(np.sqrt(np.mean(d * d)))
    ms = measured.stats()
    return Comparison(n=int(measured.n), measured=ms, simulated=simulated.stats(), demerit_s=dem,
                      demerit_frac=dem / ms["mean_s"] if ms["mean_s"] > 0 else math.nan)


# ---------------------------------------------------------------------------------------------
# result
# ---------------------------------------------------------------------------------------------


@dataclass
class ReplayResult:
    """What a replay produced (see the module docstring)."""

    results: Results
    windows: Curve  # per window of issue time: iops, lat_mean_s, lat_p50_s ... (x = "t_s",
    # the window's start from the first request's issue)
    measured_windows: Curve | None  # the same windows of the trace's measured latencies
    latency_s: np.ndarray | None  # per request: simulated latency (issue to completion)
    issue_s: np.ndarray | None  # per request: when it was issued in the simulation
    # (both None for a bounded replay: latency_hist holds the simulated latencies instead)
    comparison: Comparison | None
    mode: str
    speed: float
    outstanding: int
    window_s: float
    source: str = ""
    warnings: list = field(default_factory=list)
    measured_s: np.ndarray | None = None  # the trace's measured latencies (NaN: unmeasured)
    n_requests: int = 0
    latency_hist: LogHistogram | None = None  # bounded replay: the simulated latencies ...
    measured_hist: LogHistogram | None = None  # ... and the measured ones, as histograms

    @property
    def exact(self) -> bool:
        """True when every request's latency was kept (else histograms: ``replay_stats``)."""
        return self.latency_s is not None

    def measured_latency_s(self) -> np.ndarray | None:
        """The trace's measured latency per request, None when it measured none (or the
        replay was bounded)."""
        return self.measured_s

    def latency_percentile(self, q: float) -> float:
        """The q-th percentile of the simulated latencies (warm-up excluded)."""
        if self.latency_s is not None:
            return float(np.nanpercentile(self.latency_s, q))
        return float(self.latency_hist.percentile(q))

    def cdf_points(self, measured: bool = False, points: int = 400) -> tuple:
        """(latency in s, fraction at or below) at up to ``points`` ranks of the simulated
        (or measured) response times, for a plot."""
        values = self.measured_s if measured else self.latency_s
        if values is not None or (self.exact and measured):
            x = np.sort(np.asarray(values, dtype=float)) if values is not None else np.zeros(0)
            x = x[np.isfinite(x)]
            if len(x) == 0:
                return x, x
            k = np.unique(np.linspace(0, len(x) - 1, min(points, len(x))).round().astype(int))
            return x[k], (k + 1) / len(x)
        hist = self.measured_hist if measured else self.latency_hist
        return hist.cdf_points(points) if hist is not None else (np.zeros(0), np.zeros(0))

    def to_dict(self) -> dict:
        out = {"trace": self.source, "mode": self.mode, "speed": self.speed,
               "outstanding": self.outstanding, "requests": self.n_requests,
               "window_s": self.window_s, "results": self.results.to_dict()}
        if self.comparison is not None:
            out["comparison"] = self.comparison.to_dict()
        out["windows"] = [_window_row(p) for p in self.windows]
        if self.warnings:
            out["warnings"] = list(self.warnings)
        return out


def _window_row(r: Results) -> dict:
    keys = ("iops", "lat_mean_s", "lat_p50_s", "lat_p99_s", "lat_max_s")
    row = {"t_s": r.params["t_s"], "ios": r.ios}
    row.update({k: getattr(r, k) for k in keys if getattr(r, k) is not None})
    return row


# ---------------------------------------------------------------------------------------------
# replay
# ---------------------------------------------------------------------------------------------


def _nice_window(span_s: float, target: int = 60) -> float:
    """A round window (1, 2 or 5 x 10^k s) giving about ``target`` windows over the span."""
    raw = max(span_s, 1e-6) / target
    e = math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * 10.0**e >= raw:
            return m * 10.0**e
    return 10.0 ** (e + 1)  # pragma: no cover


def _windows(t: np.ndarray, lat: np.ndarray, window_s: float, t0: float = 0.0) -> Curve:
    """Latency statistics per window of issue time ``t`` (non-decreasing)."""
    ok = np.isfinite(lat) & np.isfinite(t)
    if not ok.all():  # (copies only when some requests are unmeasured)
        t, lat = t[ok], lat[ok]
    del ok
    points = []
    if len(t):
        nwin = int((t[-1] - t0) // window_s) + 1
        edges = t0 + np.arange(nwin + 1) * window_s
        bounds = np.searchsorted(t, edges, side="left")
        bounds[-1] = len(t)
        for w in range(nwin):
            chunk = lat[bounds[w]:bounds[w + 1]]
            span = window_s
            if w == nwin - 1 and len(chunk) > 1:  # the last window is partial: its own span
                span = max(min(window_s, float(t[-1] - edges[w])), window_s / len(chunk))
            r = Results(ios=int(len(chunk)), iops=len(chunk) / span)
            if len(chunk):
                r.lat_mean_s = float(chunk.mean())
                r.lat_p50_s, r.lat_p95_s, r.lat_p99_s = (
                    float(v) for v in np.percentile(chunk, [50, 95, 99]))
                r.lat_max_s = float(chunk.max())
            r.params = {"t_s": w * window_s}  # from the first request's issue
            points.append(r)
    return Curve(points, x="t_s")


def _check(trace, facts, stack, speed, mode, outstanding, engine, seed, warmup) -> None:
    if not isinstance(stack, Stack):
        raise SpecError(f"stack must be an iosim.Stack (got {type(stack).__name__})")
    if facts.n == 0:
        raise SpecError(f"the trace {trace_name(trace)} has no requests: nothing to replay")
    if isinstance(speed, bool) or not isinstance(speed, (int, float)) or not (
            math.isfinite(speed) and speed > 0):
        raise SpecError(f"speed must be a finite number > 0 (got {speed!r})")
    if mode not in TRACE_MODES:
        raise SpecError(f"mode must be one of {', '.join(TRACE_MODES)} (got {mode!r})")
    if mode != "open" and speed != 1:
        raise SpecError(f"speed applies to open-loop replay only (mode {mode!r}, got {speed!r})")
    if outstanding is not None and (
            isinstance(outstanding, bool) or not isinstance(outstanding, (int, np.integer))
            or outstanding < 1):
        raise SpecError(f"outstanding must be a whole number >= 1 (got {outstanding!r})")
    if outstanding is not None and mode != "closed":
        raise SpecError(f"outstanding applies to closed-loop replay only (mode {mode!r})")
    if engine not in ENGINES:
        raise SpecError(f"engine must be one of {', '.join(ENGINES)} (got {engine!r})")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise SpecError(f"seed must be a whole number >= 0 (got {seed!r})")
    if isinstance(warmup, bool) or not isinstance(warmup, (int, np.integer)) or not (
            0 <= warmup < facts.n):
        raise SpecError(f"warmup must be a whole number from 0 to {facts.n - 1} "
                        f"(the trace has {facts.n} requests; got {warmup!r})")
    if facts.bad_size:
        raise SpecError(f"the trace {trace_name(trace)} has requests of unknown or zero size "
                        "(its format may not record sizes): replay needs every request's size")
    if facts.bad_offset:
        raise SpecError(f"the trace {trace_name(trace)} has requests of unknown or negative "
                        "offset (its format may not record addresses): replay needs them")
    if not (math.isfinite(facts.first_arrival_s) and math.isfinite(facts.last_arrival_s)):
        raise SpecError(f"the trace {trace_name(trace)} has requests of unknown arrival time")
    cap = stack.device.capacity_bytes
    if cap is not None:
        end = facts.max_end_bytes
        if end > cap:
            raise SpecError(
                f"the trace {trace_name(trace)} addresses up to byte {end:.0f}, beyond "
                f"device.capacity_bytes = {cap:.0f}: use a larger device (--set "
                "device.capacity_bytes=...)")


def _streamed(trace) -> bool:
    """A ``BlockTraceFile`` (its facts known, its chunks read again on demand)."""
    return hasattr(trace, "facts") and hasattr(trace, "chunks")


def _facts(trace):
    """What is known of the whole trace (``TraceFacts``): gathered while a file was read, or
    now."""
    if _streamed(trace):
        return trace.facts
    from .traces.block_stream import TraceFacts  # (iosim.traces loads pandas: only if asked)

    for col in ("arrival_s", "offset_bytes", "size_bytes", "is_read"):
        if not hasattr(trace, col):
            raise SpecError("trace must be a BlockTrace or a BlockTraceFile "
                            f"(got {type(trace).__name__})")
    return TraceFacts.of(trace)


def _pieces(trace):
    """A fresh iterator over the trace's requests, in pieces (no copies of a BlockTrace)."""
    if _streamed(trace):
        return trace.chunks()
    from .traces.block_stream import trace_pieces

    return trace_pieces(trace, 1 << 20)


def trace_name(trace) -> str:
    return repr(getattr(trace, "source", "") or "(in memory)")


def _workload(facts, mode: str, outstanding: int) -> Workload:
    rw = "randrw" if facts.random_writes else "rw"
    if mode == "open":  # the rate only marks the run as open loop (no capacity check here)
        dur = float(facts.last_arrival_s - facts.first_arrival_s)
        rate = facts.n / dur if dur > 0 else 1.0
        return Workload(rw=rw, rate_iops=rate)
    return Workload(rw=rw, iodepth=outstanding if mode == "closed" else 1)


def replay(trace, stack: Stack, *, speed: float = 1.0, mode: str = "open",
           outstanding: int | None = None, engine: str = "auto", seed: int = 1,
           window_s: float | None = None, warmup: int = 0,
           exact: bool | None = None) -> ReplayResult:
    """Replay ``trace`` (a ``BlockTrace``, or a ``BlockTraceFile`` streamed from its file)
    through ``stack``; see the module docstring.

    ``outstanding`` (closed mode, default 1): requests in flight. ``engine``: "auto" runs the
    fast engine when it supports the stack, else SimPy; both give identical numbers.
    ``window_s``: the time-series window (default: a round value giving ~60 windows).
    ``warmup``: requests issued but not measured at the start. ``exact``: keep every request's
    latency (True) or histograms only (False); by default, exact up to :data:`EXACT_MAX`
    requests.
    """
    facts = _facts(trace)
    _check(trace, facts, stack, speed, mode, outstanding, engine, seed, warmup)
    n_out = outstanding if outstanding is not None else 1
    wl = _workload(facts, mode, n_out)
    warnings = list(getattr(trace, "warnings", ()))
    if facts.device_min != facts.device_max:
        warnings.append("the trace holds requests of several devices; all of them go to the one "
                        "stack (replay one of them alone with --device, or device= from Python)")
    if mode == "validate" and facts.idle_recorded == 0 and facts.n > 1:
        warnings.append("the trace records no idle times: validate mode issues each "
                        "request as soon as the previous one completes")
    if window_s is not None and not (isinstance(window_s, (int, float)) and
                                     math.isfinite(window_s) and window_s > 0):
        raise SpecError(f"window_s must be a time > 0 (got {window_s!r})")
    n = facts.n
    exact = n <= EXACT_MAX if exact is None else bool(exact)
    speed = float(speed)
    if exact:
        sink = ExactSink(n, facts.has_latency)
    else:  # the windows are drawn before the run: over the recorded span
        span = facts.last_arrival_s / speed - facts.first_arrival_s / speed
        win = float(window_s) if window_s is not None else _nice_window(span)
        sink = BoundedSink(mode=mode, speed=speed, warmup=warmup, window_s=win,
                           measured=facts.has_latency)
    src = TraceSource(lambda: _pieces(trace), n, mode=mode, speed=speed,
                      max_size_bytes=facts.max_size_bytes, sink=sink)
    reason = fast_engine.supports(stack, wl) if engine != "simpy" else "simpy asked for"
    if engine == "fast" and reason:
        raise SpecError(f"engine 'fast' cannot run this stack: {reason}; use 'simpy' or 'auto'")
    used = "fast" if reason is None else "simpy"
    runner = fast_engine.run_fast_sim if used == "fast" else run_simpy
    sim = runner(stack, wl, ios=n - warmup, warmup_ios=warmup, seed=seed, trace=src)
    res = results_of(sim)
    res.engine = used
    res.seed = seed
    res.replications = 1
    res.params = {"trace": getattr(trace, "source", ""), "mode": mode, "speed": speed,
                  "outstanding": n_out}
    if mode == "open":
        note = _overload_note(n, (facts.last_arrival_s - facts.first_arrival_s) / speed, speed,
                              res.iops)
        if note:
            warnings.append(note)
    out = dict(results=res, mode=mode, speed=speed, outstanding=n_out, n_requests=n,
               source=str(getattr(trace, "source", "")), warnings=warnings)
    if exact:
        return _exact_result(sink, mode, speed, window_s, warmup, facts.has_latency, out)
    return _bounded_result(sink, out)


def _exact_result(sink: ExactSink, mode, speed, window_s, warmup, has_latency, out):
    """Windows, comparison and per-request arrays from every request's values."""
    n = sink.n
    lat = sink.latency_s
    arrival = sink.arrival_s
    issue = sink.issue_s if mode != "open" else (arrival if speed == 1 else arrival / speed)
    if warmup:
        lat[:warmup] = np.nan  # not measured
    span = float(np.nanmax(issue) - issue[0]) if n > 1 else 0.0
    win = float(window_s) if window_s is not None else _nice_window(span)
    windows = _windows(issue, lat, win, t0=float(issue[0]))
    measured_windows = comparison = measured = None
    if has_latency:
        measured = sink.measured_s
        if warmup:
            measured[:warmup] = np.nan
        t_meas = arrival if speed == 1 else arrival / speed
        measured_windows = _windows(t_meas, measured, win, t0=float(t_meas[0]))
        comparison = compare(measured, lat)
        note = _closed_loop_note(arrival, measured) if mode == "open" else None
        if note:
            out["warnings"] = [*out["warnings"], note]
    return ReplayResult(windows=windows, measured_windows=measured_windows, latency_s=lat,
                        issue_s=issue, comparison=comparison, window_s=win,
                        measured_s=measured, **out)


def _bounded_result(sink: BoundedSink, out):
    """Windows and comparison from the sink's histograms (no per-request arrays)."""
    windows = Curve([_window_result(row) for row in sink.windows.rows()], x="t_s")
    measured_windows = comparison = None
    if sink.measured is not None:
        measured_windows = Curve([_window_result(row) for row in sink.measured_windows.rows()],
                                 x="t_s")
        comparison = compare_histograms(sink.measured, sink.sim_where_measured)
    return ReplayResult(windows=windows, measured_windows=measured_windows, latency_s=None,
                        issue_s=None, comparison=comparison, window_s=sink.window_s,
                        latency_hist=sink.sim, measured_hist=sink.measured, **out)


def _window_result(row: dict) -> Results:
    r = Results(ios=row["ios"], iops=row["iops"])
    for k in ("lat_mean_s", "lat_p50_s", "lat_p95_s", "lat_p99_s", "lat_max_s"):
        if k in row:
            setattr(r, k, row[k])
    r.params = {"t_s": row["t_s"]}
    return r


# ---------------------------------------------------------------------------------------------
# what-if: the largest speed-up under an SLO
# ---------------------------------------------------------------------------------------------


@dataclass
class MaxSpeed:
    """The largest open-loop speed-up found with the percentile at or under the SLO."""

    speed: float  # 0.0 when even the slowest speed tried misses the SLO
    percentile: float
    slo_s: float
    latency_s: float | None  # the percentile at ``speed``
    points: list  # (speed, percentile latency in s, or None when the run was unstable)

    def to_dict(self) -> dict:
        return {"max_speed": self.speed, "percentile": self.percentile, "slo_s": self.slo_s,
                "latency_s": self.latency_s,
                "points": [{"speed": s, "latency_s": v} for s, v in self.points]}


def max_speed(trace, stack: Stack, *, slo_s: float, slo_percentile: float = 99,
              engine: str = "auto", seed: int = 1, rel_tol: float = 0.02,
              speed_range: tuple[float, float] = (1 / 1024, 1024.0)) -> MaxSpeed:
    """Bisect on ``speed`` (open loop) for the largest speed-up whose ``slo_percentile``-th
    simulated latency is at or under ``slo_s``; every point uses the same seed. Geometric
    steps: double (or halve) from 1 until the SLO flips, then bisect until the bracket is
    within ``rel_tol``. A speed at which the backlog runs away counts as missing the SLO."""
    if not (isinstance(slo_s, (int, float)) and math.isfinite(slo_s) and slo_s > 0):
        raise SpecError(f"slo_s must be a latency > 0 s (got {slo_s!r})")
    if not (isinstance(slo_percentile, (int, float)) and 0 < slo_percentile < 100):
        raise SpecError(f"slo_percentile must be between 0 and 100 (got {slo_percentile!r})")
    if not (isinstance(rel_tol, (int, float)) and 0 < rel_tol < 1):
        raise SpecError(f"rel_tol must be between 0 and 1 (got {rel_tol!r})")
    lowest, highest = speed_range
    points: list = []

    def value(speed: float) -> float | None:
        try:
            r = replay(trace, stack, speed=speed, mode="open", engine=engine, seed=seed)
        except UnstableError:
            points.append((speed, None))
            return None
        v = r.latency_percentile(slo_percentile)
        points.append((speed, v))
        return v

    def ok(v):
        return v is not None and v <= slo_s

    s = 1.0
    v = value(s)
    if ok(v):
        lo, lo_v, hi = s, v, None
        while hi is None and s < highest:
            s = min(2 * s, highest)
            v = value(s)
            if ok(v):
                lo, lo_v = s, v
            else:
                hi = s
        if hi is None:
            return MaxSpeed(lo, slo_percentile, slo_s, lo_v, points)
    else:
        hi, lo, lo_v = s, None, None
        while lo is None and s > lowest:
            s = max(s / 2, lowest)
            v = value(s)
            if ok(v):
                lo, lo_v = s, v
            else:
                hi = s
        if lo is None:
            return MaxSpeed(0.0, slo_percentile, slo_s, None, points)
    while hi / lo > 1 + rel_tol:
        mid = math.sqrt(lo * hi)
        v = value(mid)
        if ok(v):
            lo, lo_v = mid, v
        else:
            hi = mid
    return MaxSpeed(lo, slo_percentile, slo_s, lo_v, points)

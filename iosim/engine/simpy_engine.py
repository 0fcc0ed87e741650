"""The reference engine: the whole I/O path as SimPy processes.

Read it top to bottom to see the layer semantics of ``iosim.stack`` in code:

    job (host overhead, think time) -> block layer (split, nr_requests)
        -> multipath (policy, HBA queue depth per path, failover) -> link -> device

Every I/O and every block request is a Python object moving through these processes; the
statistics are streamed into a :class:`Recorder` so memory stays bounded.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

import numpy as np
import simpy

from ..devices import under_workload
from ..dists import dist_args
from ..rng import Streams
from ..spec import UnstableError
from ..stack import Stack
from ..workload import Workload
from . import progress
from .path_choice import POLICY_CODES, pick_path
from .pauses import new_schedule, pause_delay_s
from .recorder import LogHist, TimeAvg, batches_for
from .simpy_devices import make_device
from .trace_source import TraceSource

__all__ = ["run_simpy", "IO", "Request", "MAX_OPEN_BACKLOG"]

# In open loop, this many I/Os in flight means the arrival rate exceeds what the stack serves
# (about 1-2 KB of SimPy state each: the cap keeps a run that went wrong under ~200 MB).
MAX_OPEN_BACKLOG = 100_000
# completions between progress reports of a long run (engine.progress)
PROGRESS_EVERY = 1 << 12


@dataclass(eq=False, slots=True)
class IO:
    """One I/O as the job sees it."""

    id: int
    is_read: bool
    size: float
    offset: float
    t_issue: float
    parts_left: int = 0
    done: simpy.Event | None = None
    completed: int = 0


@dataclass(eq=False, slots=True)
class Request:
    """One block-layer request (a part of an I/O after splitting)."""

    io: IO
    is_read: bool
    size: float
    offset: float
    t_block: float = 0.0
    path: int = -1
    attempts: int = 0
    extra: dict = field(default_factory=dict)


class Recorder:
    """The statistics of one run: histograms and time-averages over the measured window."""

    def __init__(self, env: simpy.Environment, measure_ios: int, units: int):
        self.env = env
        self.units = units
        self.lat = LogHist()
        self.lat_read = LogHist()
        self.lat_write = LogHist()
        self.block_lat = LogHist()
        self.device_lat = LogHist()
        self.host_out = TimeAvg(track_hist=True)  # I/Os issued, not yet completed
        self.block_out = TimeAvg()  # requests in the block layer and below (aqu-sz)
        self.below_out = TimeAvg()  # requests dispatched to a path (for %util)
        self.device_out = TimeAvg()  # requests at the device
        self.busy_units = TimeAvg()  # device units in service
        self.batches = batches_for(measure_ios)
        self.levels = (
            self.host_out,
            self.block_out,
            self.below_out,
            self.device_out,
            self.busy_units,
        )
        self.measuring = False
        self.t_start = 0.0
        self.n_read = 0
        self.n_write = 0
        self.bytes_done = 0.0
        self.block_done = 0
        self.block_bytes = 0.0
        self.device_done = 0

    def start(self) -> None:
        t = self.env.now
        self.measuring = True
        self.t_start = t
        for h in (self.lat, self.lat_read, self.lat_write, self.block_lat, self.device_lat):
            h.reset()
        for lv in self.levels:
            lv.start(t)
        self.batches.start(t)
        self.n_read = self.n_write = self.block_done = self.device_done = 0
        self.bytes_done = self.block_bytes = 0.0

    def unit_busy(self, delta: int) -> None:
        """Called by device models when units start (+1) or finish (-1) service."""
        self.busy_units.change(self.env.now, delta)


class _Path:
    __slots__ = ("epoch", "failed", "down", "up")

    def __init__(self, env: simpy.Environment, link_bw: float):
        self.epoch = 0
        self.failed = env.event()
        finite = math.isfinite(link_bw)
        self.down = simpy.Resource(env, 1) if finite else None
        self.up = simpy.Resource(env, 1) if finite else None


class Multipath:
    """Path selection and the per-path HBA queue depth; FIFO wait in the host when all full.
    Per path, ``alive``, ``outstanding`` and ``out_bytes`` are arrays, so that the choice is
    ``path_choice.pick_path``, the function the fast engine compiles."""

    def __init__(self, env: simpy.Environment, stack: Stack):
        self.env = env
        self.qd = stack.hba.queue_depth
        self.policy = POLICY_CODES[stack.multipath.policy]
        n = stack.multipath.paths
        self.paths = [_Path(env, stack.link.bandwidth_Bps) for _ in range(n)]
        self.alive = np.ones(n, np.bool_)
        self.outstanding = np.zeros(n, np.int64)
        self.out_bytes = np.zeros(n)
        self.waiting: deque = deque()
        self.rr = 0

    def acquire(self, req: Request, front: bool = False) -> simpy.Event:
        ev = self.env.event()
        if front:
            self.waiting.appendleft((req, ev))
        else:
            self.waiting.append((req, ev))
        self._dispatch()
        return ev

    def release(self, path: int, epoch: int, size: float) -> None:
        if self.paths[path].epoch == epoch:  # a slot of a path that failed meanwhile is gone
            self.outstanding[path] -= 1
            self.out_bytes[path] -= size
        self._dispatch()

    def _dispatch(self) -> None:
        while self.waiting:
            req, ev = self.waiting[0]
            i = pick_path(self.alive, self.outstanding, self.out_bytes, self.rr, self.qd,
                          self.policy)
            if i < 0:
                return
            self.rr = (i + 1) % len(self.paths)
            self.waiting.popleft()
            self.outstanding[i] += 1
            self.out_bytes[i] += req.size
            ev.succeed((i, self.paths[i].epoch))

    def fail(self, i: int) -> None:
        if not self.alive[i]:
            return
        p = self.paths[i]
        self.alive[i] = False
        p.epoch += 1
        self.outstanding[i] = 0
        self.out_bytes[i] = 0.0
        ev, p.failed = p.failed, self.env.event()
        ev.succeed()

    def restore(self, i: int) -> None:
        self.alive[i] = True
        self._dispatch()


class Simulation:
    """One run of a stack under a workload."""

    def __init__(
        self,
        stack: Stack,
        workload: Workload,
        *,
        ios: int,
        warmup_ios: int,
        seed: int,
        replication: int = 0,
        trace: TraceSource | None = None,
    ):
        self.stack = stack
        self.trace = trace
        self.wl = workload
        self.ios = ios
        self.warmup = warmup_ios
        self.seed = seed
        self.env = simpy.Environment()
        self.streams = Streams(seed, replication)
        self.rec = Recorder(self.env, ios, getattr(stack.device, "units", 1))
        self.mp = Multipath(self.env, stack)
        device = under_workload(stack.device, random_writes=workload.random)
        self.device = make_device(self.env, device, self.streams, self.rec)
        nr = stack.block.nr_requests
        self.nr = simpy.Resource(self.env, nr) if nr < 10**6 else None
        cpus = stack.host.cpus
        self.host_cpus = simpy.Resource(self.env, cpus) if cpus > 0 else None
        self.issued = 0
        self.completed = 0
        self.duplicates = 0
        self.failovers = 0
        self.finished = self.env.event()
        self.t_end = math.nan
        self._seq_offset = 0.0
        self._rng_io = self.streams["io"]
        # the device's pauses (stack.pauses): their schedule and its own stream
        pz = stack.pauses
        self._pause = None if not pz.on else (
            new_schedule(), pz.rate_hz, *dist_args(pz.duration), self.streams["pauses"])
        sizes = workload.sizes
        self._sizes = [s for s, _ in sizes]
        self._size_p = [p for _, p in sizes]

    # -- workload ------------------------------------------------------------------------
    def new_io(self) -> IO:
        if self.trace is not None:  # the next request of the trace, as recorded
            tr, i = self.trace, self.issued
            self.issued += 1
            if i == 0:
                tr.t0_s = self.env.now
            is_read, size, offset = tr.request(i)
            return IO(self.issued, is_read, size, offset, self.env.now)
        wl, rng = self.wl, self._rng_io
        is_read = rng.random() < wl.read_fraction
        size = (
            self._sizes[0]
            if len(self._sizes) == 1
            else float(rng.choice(self._sizes, p=self._size_p))
        )
        align = wl.align_bytes
        if wl.random:
            slots = max(1, int((wl.span_bytes - size) // align) + 1)
            offset = float(rng.integers(slots)) * align
        else:
            if self._seq_offset + size > wl.span_bytes:
                self._seq_offset = 0.0
            offset = self._seq_offset
            self._seq_offset += size
        self.issued += 1
        return IO(self.issued, is_read, size, offset, self.env.now)

    def job(self, cpu: simpy.Resource | None, rng):
        """One outstanding-I/O slot of a closed-loop job: overhead, issue, wait, repeat."""
        overhead = self.stack.host.overhead
        think = self.wl.thinktime_s
        tr = self.trace
        if tr is not None and tr.mode == "validate":
            yield from self.validate_job()
            return
        while True:
            if tr is not None and self.issued >= len(tr):
                return  # the trace is exhausted: the slot ends
            if overhead.mean_s > 0:
                z = float(overhead.sample(rng))
                if cpu is not None:
                    with cpu.request() as turn:  # the job's CPU issues one I/O at a time
                        yield turn
                        yield from self.host_overhead(z)
                else:
                    yield from self.host_overhead(z)
            if think > 0:
                yield self.env.timeout(think)
            if tr is not None and self.issued >= len(tr):
                return  # another slot took the last request meanwhile
            io = self.new_io()
            yield self.submit(io)

    def host_overhead(self, z: float):
        """The overhead period, holding one of the host's shared CPUs when ``host.cpus``."""
        if self.host_cpus is None:
            yield self.env.timeout(z)
            return
        with self.host_cpus.request() as turn:  # FIFO for one of the host's C CPUs
            yield turn
            yield self.env.timeout(z)

    def validate_job(self):
        """DiskSim's validate rule: one request at a time, the next issued the recorded idle
        time after the previous one completes."""
        tr = self.trace
        for i in range(len(tr)):
            if i > 0:
                yield self.env.timeout(tr.gap_before(i))
            yield self.submit(self.new_io())

    def trace_arrivals(self):
        """Open loop on a trace: request i arrives at its recorded time / speed."""
        tr = self.trace
        for i in range(len(tr)):
            yield self.env.timeout(max(0.0, tr.arrival_at(i) - self.env.now))
            self._check_backlog()
            self.submit(self.new_io())

    def _check_backlog(self):
        backlog = self.issued - self.completed
        if backlog >= MAX_OPEN_BACKLOG:
            # arrivals outpace service: stop before the queue eats the memory
            what = (f"the trace at speed {self.trace.speed:g}" if self.trace is not None
                    else f"workload.rate_iops = {self.wl.rate_iops:g}")
            raise UnstableError(
                f"{what} is more than the stack "
                f"serves: {backlog:,} I/Os were waiting after {self.env.now:.3g} s "
                f"({self.completed:,} completed, about "
                f"{self.completed / max(self.env.now, 1e-12):.6g} IOPS). Lower the rate "
                "or add capacity."
            )

    def arrivals(self):
        """Open loop: I/Os arrive at rate_iops whatever the stack does."""
        rng = self.streams["arrivals"]
        mean_gap = 1.0 / self.wl.rate_iops
        while True:
            gap = rng.exponential(mean_gap) if self.wl.arrival == "poisson" else mean_gap
            yield self.env.timeout(gap)
            self._check_backlog()
            self.submit(self.new_io())

    # -- block layer ---------------------------------------------------------------------
    def submit(self, io: IO) -> simpy.Event:
        env, rec = self.env, self.rec
        io.done = env.event()
        rec.host_out.change(env.now, +1)
        max_bytes = self.stack.block.max_sectors_bytes
        nparts = max(1, math.ceil(io.size / max_bytes))
        io.parts_left = nparts
        left = io.size
        for k in range(nparts):
            part = min(left, max_bytes)
            left -= part
            req = Request(io, io.is_read, part, io.offset + k * max_bytes)
            env.process(self.block_request(req))
        return io.done

    def block_request(self, req: Request):
        env, rec = self.env, self.rec
        req.t_block = env.now
        rec.block_out.change(env.now, +1)
        token = None
        if self.nr is not None:
            token = self.nr.request()
            yield token
        path, epoch = yield self.mp.acquire(req)
        while not self.stack.multipath.failures:  # no faults: no need to race a failure event
            rec.below_out.change(env.now, +1)
            yield from self.path_attempt(req, path, epoch)
            rec.below_out.change(env.now, -1)
            break
        while self.stack.multipath.failures:
            rec.below_out.change(env.now, +1)
            attempt = env.process(self.path_attempt(req, path, epoch))
            failed = self.mp.paths[path].failed
            yield attempt | failed
            rec.below_out.change(env.now, -1)
            if attempt.triggered:
                break
            # the path died under this request: wait out the failover timeout, then retry
            self.failovers += 1
            if self.stack.multipath.failover_timeout_s > 0:
                yield env.timeout(self.stack.multipath.failover_timeout_s)
            path, epoch = yield self.mp.acquire(req, front=True)
        if token is not None:
            self.nr.release(token)
        rec.block_out.change(env.now, -1)
        if rec.measuring:
            rec.block_lat.add(env.now - req.t_block)
            rec.block_done += 1
            rec.block_bytes += req.size
        io = req.io
        io.parts_left -= 1
        if io.parts_left == 0:
            self.complete(io)

    # -- path: link down, device, link up ------------------------------------------------
    def path_attempt(self, req: Request, path: int, epoch: int):
        env, link = self.env, self.stack.link
        p = self.mp.paths[path]
        req.attempts += 1
        yield from self._link(p.down, link.latency_s, 0.0 if req.is_read else req.size)
        rec = self.rec
        t_dev = env.now
        rec.device_out.change(t_dev, +1)
        yield from self.device.serve(req)
        if self._pause is not None:  # a pause holds the completion until it ends
            hold = pause_delay_s(env.now, *self._pause)
            if hold > 0.0:
                yield env.timeout(hold)
        rec.device_out.change(env.now, -1)
        if rec.measuring:
            rec.device_lat.add(env.now - t_dev)
            rec.device_done += 1
        yield from self._link(p.up, link.latency_s, req.size if req.is_read else 0.0)
        self.mp.release(path, epoch, req.size)

    def _link(self, wire: simpy.Resource | None, latency_s: float, nbytes: float):
        if wire is not None and nbytes > 0:
            with wire.request() as turn:
                yield turn
                yield self.env.timeout(nbytes / self.stack.link.bandwidth_Bps)
        if latency_s > 0:
            yield self.env.timeout(latency_s)

    # -- completion ----------------------------------------------------------------------
    def complete(self, io: IO) -> None:
        env, rec = self.env, self.rec
        io.completed += 1
        if io.completed > 1:
            self.duplicates += 1
            return
        self.completed += 1
        if self.completed % PROGRESS_EVERY == 0 and progress.active():
            progress.tick(self.completed)  # a long run's bar; changes nothing simulated
        rec.host_out.change(env.now, -1)
        if self.trace is not None:
            self.trace.completed(io.id - 1, io.t_issue, env.now - io.t_issue)
        if rec.measuring:
            lat = env.now - io.t_issue
            rec.lat.add(lat)
            (rec.lat_read if io.is_read else rec.lat_write).add(lat)
            rec.batches.add(env.now, lat)
            if io.is_read:
                rec.n_read += 1
            else:
                rec.n_write += 1
            rec.bytes_done += io.size
        if self.completed == self.warmup:
            rec.start()
        if self.completed == self.warmup + self.ios and not self.finished.triggered:
            self.t_end = env.now
            # events already queued for this same instant still run before the stop: they
            # must not be counted in the measured window
            rec.measuring = False
            self.finished.succeed()
        io.done.succeed()

    # -- faults --------------------------------------------------------------------------
    def path_events(self, ev):
        yield self.env.timeout(ev.fail_at_s)
        self.mp.fail(ev.path)
        if ev.restore_at_s is not None:
            yield self.env.timeout(ev.restore_at_s - ev.fail_at_s)
            self.mp.restore(ev.path)

    # -- run -----------------------------------------------------------------------------
    def run(self):
        env, wl = self.env, self.wl
        if self.trace is not None:
            self.trace.rewind()
        if self.warmup == 0:
            self.rec.start()
        if self.trace is not None and self.trace.mode == "open":
            env.process(self.trace_arrivals())
        elif self.trace is not None and self.trace.mode == "validate":
            env.process(self.job(None, None))
        elif wl.open_loop:
            env.process(self.arrivals())
        else:
            overhead = self.stack.host.overhead
            serial_cpu = wl.iodepth > 1 and overhead.mean_s > 0
            for j in range(wl.numjobs):
                cpu = simpy.Resource(env, 1) if serial_cpu else None
                rng = self.streams[f"host.job{j}"]
                for _ in range(wl.iodepth):
                    env.process(self.job(cpu, rng))
        for ev in self.stack.multipath.failures:
            env.process(self.path_events(ev))
        env.run(until=self.finished)
        if self.trace is not None:
            self.trace.finish()
        t = env.now
        for lv in self.rec.levels:
            lv.close(t)
        return self


def run_simpy(
    stack: Stack, workload: Workload, *, ios: int, warmup_ios: int, seed: int, replication: int = 0,
    trace: TraceSource | None = None,
) -> Simulation:
    """Run the reference engine and return the finished :class:`Simulation` (with ``trace``,
    the I/Os are the trace's: see :mod:`iosim.engine.trace_source`)."""
    return Simulation(
        stack, workload, ios=ios, warmup_ios=warmup_ios, seed=seed, replication=replication,
        trace=trace,
    ).run()

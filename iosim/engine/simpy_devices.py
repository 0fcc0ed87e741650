"""SimPy plumbing for each device family: queues and units around the shared physics.

A device model has ``serve(req)``, a generator that returns when the device has finished the
request, and reports units entering and leaving service through ``recorder.unit_busy``. The
service times come from the pure functions in ``iosim.devices``. Models that draw random
numbers use ``streams["device"]``; RAID members and array groups get views of the streams in
which that name is ``device.member{i}`` / ``device.group{i}``, so every member has its own
stream and adding one does not shift the others. Models keep ``counters`` (member I/Os,
cache hits, throttled requests ...) for inspection after a run.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable
from functools import partial

import numpy as np
import simpy

from ..devices import contended_s, generic_service_s
from ..devices.array import array_group_of, array_read_hit
from ..devices.cloud import COST_CODES, bucket_cost, bucket_plan, bucket_take, io_units
from ..devices.hdd import (
    HDD_HOST,
    HDD_IDLE,
    RA_FIELDS,
    RA_SIZE,
    RA_VALID,
    hdd_free_bytes_before,
    hdd_move_s,
    hdd_next_source,
    hdd_positioning_s,
    hdd_rotation_s,
    hdd_track_end_ahead,
    hdd_track_position_one,
    read_ahead_end,
    read_ahead_invalidate,
    read_ahead_note_before,
    read_ahead_note_limit,
    read_ahead_start,
    read_ahead_stop,
    read_ahead_wait_s,
)
from ..devices.raid import RAID_PHASES, raid_rebuild_reads, raid_row_end
from ..devices.ssd import (
    SLOW_ALL,
    SLOW_BY_PAGE,
    SLOW_NONE,
    ssd_array_s,
    ssd_die_of_page,
    ssd_group_bytes,
    ssd_pages,
)
from ..dists import dist_args
from ..spec import SpecError

__all__ = ["make_device", "GenericModel", "HddModel", "SsdModel", "CloudModel",
           "RaidModel", "ArrayModel", "SIMPY_MODELS", "RAID_PHASES"]


class GenericModel:
    """K units behind one FIFO queue."""

    def __init__(self, env: simpy.Environment, spec, streams, recorder):
        self.env = env
        self.spec = spec
        self.rng = streams["device"]
        self.rec = recorder
        self.units = simpy.Resource(env, spec.units)

    def serve(self, req):
        spec = self.spec
        with self.units.request() as unit:
            yield unit
            self.rec.unit_busy(+1)
            base = float(spec.service.sample(self.rng))
            hold = generic_service_s(base, req.size, spec.media_rate_Bps)
            yield self.env.timeout(contended_s(hold, spec.contention, self.units.count))
            self.rec.unit_busy(-1)


class _OpPool:
    """Pending media operations as parallel arrays, so SPTF scans thousands of them quickly."""

    FIELDS = ("t", "cyl", "surf", "angle", "xfer", "write", "off", "size")

    def __init__(self, capacity: int = 64):
        self.n = 0
        self.a = {f: np.zeros(capacity) for f in self.FIELDS}
        self.done: list = [None] * capacity

    def __len__(self) -> int:
        return self.n

    def add(self, done, **vals) -> None:
        if self.n == len(self.done):
            for f in self.FIELDS:
                self.a[f] = np.concatenate([self.a[f], np.zeros(self.n)])
            self.done.extend([None] * self.n)
        for f, v in vals.items():
            self.a[f][self.n] = v
        self.done[self.n] = done
        self.n += 1

    def view(self, f: str) -> np.ndarray:
        return self.a[f][: self.n]

    def pop(self, i: int) -> tuple[dict, object]:
        """Remove entry ``i`` (the last entry takes its place)."""
        last = self.n - 1
        out = {f: float(self.a[f][i]) for f in self.FIELDS}
        done = self.done[i]
        for f in self.FIELDS:
            self.a[f][i] = self.a[f][last]
        self.done[i] = self.done[last]
        self.done[last] = None
        self.n = last
        return out, done


class ReadAhead:
    """The drive's read-ahead segment: after a media read the head keeps reading the sectors
    that follow into the drive's buffer, at the media rate, while the actuator has nothing else
    to do, up to ``size`` bytes ahead of the last sector the host asked for. A read inside what
    has been read so far is a hit; one that starts inside and ends beyond waits for the stream.
    Any other media operation stops the stream (what it read stays); a write over it, or a media
    read elsewhere, starts it afresh. The decisions are the ``read_ahead_*`` functions of
    :mod:`iosim.devices.hdd` on a state array (the fast engine compiles the same functions)."""

    def __init__(self, size: float):
        self.state = np.zeros(RA_FIELDS)
        self.state[RA_SIZE] = size

    @property
    def valid(self) -> bool:
        return bool(self.state[RA_VALID])

    def end(self, now: float) -> float:
        """How far the segment reaches at ``now``."""
        return float(read_ahead_end(self.state, now))

    def start(self, now: float, offset: float, size: float, rate: float) -> None:
        read_ahead_start(self.state, now, offset, size, rate)

    def stop(self, now: float) -> float | None:
        """The actuator turns to other work: freeze the segment; where the head got to."""
        reached = read_ahead_stop(self.state, now)
        return None if math.isnan(reached) else float(reached)

    def wait_s(self, now: float, offset: float, size: float) -> float | None:
        """None for a miss; else how long until [offset, offset + size) is in the segment."""
        wait = read_ahead_wait_s(self.state, now, offset, size)
        return None if wait < 0 else float(wait)

    def invalidate(self, offset: float, size: float) -> None:
        read_ahead_invalidate(self.state, offset, size)

    def note_before(self, before: float) -> None:
        """The media read starting now also buffers ``before`` bytes in front of it."""
        read_ahead_note_before(self.state, before)

    def note_limit(self, limit: float) -> None:
        """The media read starting now reads ahead up to ``limit``."""
        read_ahead_note_limit(self.state, limit)


class HddModel:
    """One actuator behind an NCQ of ``queue_depth`` tags, with an optional write-back cache
    and a read-ahead segment.

    Host commands take a tag, pay the command overhead, then either enter the write cache
    (writes, when it is on: acknowledged once an entry is free and the data has crossed the
    interface), are answered from the drive's buffer (reads of data in the read-ahead segment
    or in a dirty cache entry), or wait for the actuator. The actuator process picks the next
    media operation: host commands before destages unless every cache entry is dirty; within
    each class the oldest first or the shortest positioning time (seek + exact rotational
    wait) first.
    """

    def __init__(self, env: simpy.Environment, spec, streams, recorder):
        self.env = env
        self.spec = spec
        self.rng = streams["device"]
        self.rec = recorder
        self.tags = simpy.Resource(env, spec.queue_depth)
        self.queue = _OpPool()
        self.dirty = _OpPool(max(64, spec.write_cache_entries))
        self.free_entries = spec.write_cache_entries
        self.entry_waiters: deque = deque()
        self.head_cyl = 0.0
        self.head_surf = 0.0
        self.ncyl = spec.n_cylinders
        self.wake: simpy.Event | None = None
        self.seek = spec.seek_params()
        self.seek_tab = spec.seek_table()  # a measured curve, or None
        self.read_ahead = ReadAhead(spec.read_ahead_bytes)
        self.stream_efficiency = spec.stream_efficiency()
        self.counters = {"media_reads": 0, "media_writes": 0, "cache_writes": 0,
                         "cache_reads": 0}
        env.process(self._actuator())

    # -- host side ---------------------------------------------------------------------------
    def _add(self, pool: _OpPool, offset: float, size: float, is_write: bool, done) -> None:
        spec = self.spec
        if offset + size > spec.capacity_bytes:
            raise SpecError(
                f"an I/O at offset {offset:.0f} + {size:.0f} bytes lies beyond "
                f"device.capacity_bytes = {spec.capacity_bytes:.0f}: lower workload.span_bytes"
            )
        cyl, surf, angle = spec.locate(offset)
        xfer = float(spec.transfer_s(offset, size))
        pool.add(done, t=self.env.now, cyl=cyl, surf=surf, angle=angle, xfer=xfer,
                 write=float(is_write), off=offset, size=size)

    def _kick(self) -> None:
        if self.wake is not None and not self.wake.triggered:
            self.wake.succeed()

    def _in_write_cache(self, offset: float, size: float) -> bool:
        if not self.dirty:
            return False
        off = self.dirty.view("off")
        return bool(np.any((off <= offset) & (offset + size <= off + self.dirty.view("size"))))

    def _buffered_read(self, req):
        """Answer a read from the drive's buffer if its data are there (or will be, from the
        read-ahead stream); False if it needs the media."""
        env, spec, ra = self.env, self.spec, self.read_ahead
        if not self._in_write_cache(req.offset, req.size):
            wait = ra.wait_s(env.now, req.offset, req.size)
            if wait is None:
                return False
            if wait > 0:
                yield env.timeout(wait)
                # the stream may have been stopped by other media work meanwhile
                # (a thousandth of a byte absorbs the rounding of time x rate)
                if not (ra.valid and ra.end(env.now) + 1e-3 >= req.offset + req.size):
                    return False
        if spec.read_hit_overhead_s > 0:
            yield env.timeout(spec.read_hit_overhead_s)
        if math.isfinite(spec.interface_Bps):
            yield env.timeout(req.size / spec.interface_Bps)
        self.counters["cache_reads"] += 1
        return True

    def serve(self, req):
        spec, env = self.spec, self.env
        with self.tags.request() as tag:
            yield tag
            if spec.overhead_s > 0:
                yield env.timeout(spec.overhead_s)
            if req.is_read and (yield from self._buffered_read(req)):
                return
            if not req.is_read:
                self.read_ahead.invalidate(req.offset, req.size)
            if not req.is_read and spec.write_cache_entries > 0:
                if self.free_entries > 0 and not self.entry_waiters:
                    self.free_entries -= 1
                else:
                    granted = env.event()
                    self.entry_waiters.append(granted)
                    self._kick()
                    yield granted
                if spec.write_cached_overhead_s > 0:
                    yield env.timeout(spec.write_cached_overhead_s)
                if math.isfinite(spec.interface_Bps):
                    yield env.timeout(req.size / spec.interface_Bps)
                self._add(self.dirty, req.offset, req.size, True, None)
                self.counters["cache_writes"] += 1
                self._kick()
                return
            done = env.event()
            self._add(self.queue, req.offset, req.size, not req.is_read, done)
            self._kick()
            yield done
            if req.is_read and math.isfinite(spec.interface_Bps):
                # the interface moves the data as they come off the media: an interface slower
                # than the media finishes after it
                lag = req.size / spec.interface_Bps - done.value
                if lag > 0:
                    yield env.timeout(lag)

    # -- actuator ----------------------------------------------------------------------------
    def _positioning(self, cyl, surf, angle, settle):
        spec = self.spec
        return hdd_positioning_s(self.head_cyl, self.head_surf, self.env.now, cyl, surf, angle,
                                 settle, spec.rpm, self.ncyl, *self.seek, spec.head_switch_s,
                                 self.seek_tab)

    def _pick(self, pool: _OpPool, policy: str) -> int:
        if len(pool) == 1:
            return 0
        if policy == "fifo":
            return int(np.argmin(pool.view("t")))
        settle = pool.view("write") * self.spec.write_settle_s
        pos = self._positioning(pool.view("cyl"), pool.view("surf"), pool.view("angle"), settle)
        return int(np.argmin(pos))

    def _service_s(self, op: dict) -> float:
        spec = self.spec
        settle = spec.write_settle_s * op["write"]
        if spec.rotation == "exact":
            pos = float(self._positioning(op["cyl"], op["surf"], op["angle"], settle))
        else:  # the same seek, then a uniformly drawn rotational wait
            pos = hdd_move_s(self.head_cyl, self.head_surf, op["cyl"], op["surf"], settle,
                             self.ncyl, *self.seek, spec.head_switch_s, self.seek_tab)
            pos += hdd_rotation_s(spec.rpm, self.rng.random())
        return pos + op["xfer"]

    def _free_bytes_before(self, op: dict, service_s: float) -> float:
        """``read_free_blocks``: the bytes in front of a media read taking ``service_s`` from
        the head's place now that pass under the head while it waits for the first sector."""
        spec = self.spec
        move = float(hdd_move_s(self.head_cyl, self.head_surf, op["cyl"], op["surf"],
                                spec.write_settle_s * op["write"], self.ncyl, *self.seek,
                                spec.head_switch_s, self.seek_tab))
        p = hdd_track_position_one(op["off"], spec.capacity_bytes, spec.id_od_ratio,
                                   spec.n_cylinders, spec.heads)
        return hdd_free_bytes_before(p, service_s - op["xfer"] - move, 60.0 / spec.rpm,
                                     op["size"], op["xfer"])

    def _track_end_limit(self, op: dict) -> float:
        """``read_ahead_track_end``: where a media read's read-ahead stops."""
        spec = self.spec
        args = (spec.capacity_bytes, spec.id_od_ratio, spec.n_cylinders, spec.heads)
        end = op["off"] + op["size"]
        ahead = hdd_track_end_ahead(hdd_track_position_one(op["off"], *args),
                                    hdd_track_position_one(end, *args), op["size"], op["xfer"],
                                    60.0 / spec.rpm)
        return end + ahead

    def _actuator(self):
        env, spec = self.env, self.spec
        while True:
            source = hdd_next_source(len(self.queue), len(self.dirty), self.free_entries,
                                     len(self.entry_waiters))
            if source == HDD_IDLE:
                self.wake = env.event()
                yield self.wake
                self.wake = None
                continue
            if source == HDD_HOST:
                pool, policy = self.queue, spec.scheduler
            else:
                pool, policy = self.dirty, spec.destage
            reached = self.read_ahead.stop(env.now)
            if reached is not None:  # the head is where the read-ahead stream got to
                cyl, surf, _ = spec.locate(min(reached, spec.capacity_bytes - 1))
                self.head_cyl, self.head_surf = float(cyl), float(surf)
            op, done = pool.pop(self._pick(pool, policy))
            self.rec.unit_busy(+1)
            service = self._service_s(op)
            if done is not None and spec.read_free_blocks and not op["write"]:
                self.read_ahead.note_before(self._free_bytes_before(op, service))
            if done is not None and spec.read_ahead_track_end and not op["write"]:
                self.read_ahead.note_limit(self._track_end_limit(op))
            yield env.timeout(service)
            self.rec.unit_busy(-1)
            self.head_cyl = op["cyl"]
            self.head_surf = op["surf"]
            if done is not None:
                self.counters["media_writes" if op["write"] else "media_reads"] += 1
                if not op["write"] and op["xfer"] > 0:  # stream on at the sequential rate
                    rate = op["size"] / op["xfer"] * self.stream_efficiency
                    self.read_ahead.start(env.now, op["off"], op["size"], rate)
                done.succeed(op["xfer"])  # (the media transfer time, for the interface)
            else:
                self.counters["media_writes"] += 1
                if self.entry_waiters:
                    self.entry_waiters.popleft().succeed()
                else:
                    self.free_entries += 1


class FifoSpace:
    """Room in a buffer (bytes or pages): a taker waits FIFO, behind earlier takers, until its
    amount is free; giving room back serves the waiters in order. The SSD's read and write
    buffers and the write-back caches of the RAID controller and the array."""

    def __init__(self, env: simpy.Environment, capacity: float):
        self.env = env
        self.free = capacity
        self.waiters: deque = deque()

    def take(self, amount: float):
        if self.free >= amount and not self.waiters:
            self.free -= amount
            return
        ev = self.env.event()
        self.waiters.append((amount, ev))
        yield ev

    def give_back(self, amount: float) -> None:
        self.free += amount
        while self.waiters and self.waiters[0][0] <= self.free:
            need, ev = self.waiters.popleft()
            self.free -= need
            ev.succeed()


class SsdModel:
    """Dies and channels as one-slot resources, the host link per direction, read and write
    buffers.

    A read forks one process per die its pages live on: each holds the die for tR, takes room
    in the read buffer (the die waits, holding its page, while the buffer is full), holds the
    channel for the transfer, frees the die, and sends its pages across the host link; the
    request completes when all have. A write crosses the host link, then takes room in the
    write buffer and is acknowledged; its bytes join the buffer's dirty data, which the
    flash translation layer programs wherever a die is free (a page-mapped FTL places writes
    by die availability, not by address): each die with no program of its own takes the next
    program unit (up to one page per plane) and programs it, then the next, until no dirty
    data are left. A write with no buffer (or larger than the buffer) is programmed on the dies
    its addresses map to before it completes.
    """

    def __init__(self, env: simpy.Environment, spec, streams, recorder):
        self.env = env
        self.spec = spec
        self.rng = streams["device"]
        self.rec = recorder
        self.dies = [simpy.Resource(env, 1) for _ in range(spec.dies)]
        self.channels = [simpy.Resource(env, 1) for _ in range(spec.channels)]
        finite = math.isfinite(spec.host_interface_Bps)
        self.link_out = simpy.Resource(env, 1) if finite else None  # device -> host (reads)
        self.link_in = simpy.Resource(env, 1) if finite else None  # host -> device (writes)
        self.read_pages = spec.read_buffer_pages  # -1: unbounded
        self.read_buffer = FifoSpace(env, self.read_pages) if self.read_pages > 0 else None
        self.write_buffer = FifoSpace(env, spec.write_buffer_bytes)
        self.dirty = 0.0  # buffered bytes no die has taken yet
        self.unit_bytes = spec.page_bytes * spec.planes_per_die  # one multi-plane program
        # dies with no background program, in the order the FTL takes them: channel first
        self.idle = deque(ch * spec.dies_per_channel + way
                          for way in range(spec.dies_per_channel) for ch in range(spec.channels))
        self.units_programmed = [0] * spec.dies  # MLC: a die's units alternate LSB, MSB
        self.gc_extra = spec.gc_extra_s() if spec.gc else 0.0
        self.xfer_page = spec.page_bytes / spec.channel_rate_Bps
        # the page times as plain numbers (ssd_array_s draws them, in both engines)
        self.read_args = dist_args(spec.read_s)
        self.read_slow_args = dist_args(spec.read_slow_s or spec.read_s)
        self.program_args = dist_args(spec.program_s)
        self.program_slow_args = dist_args(spec.program_slow_s or spec.program_s)
        self.counters = {"page_reads": 0, "page_programs": 0, "buffered_writes": 0}

    def _groups(self, req) -> list[tuple[int, int, list[int]]]:
        spec = self.spec
        first, n = ssd_pages(req.offset, req.size, spec.page_bytes)
        by_die: dict[int, tuple[int, list[int]]] = {}
        for lpn in range(first, first + n):
            ch, die = ssd_die_of_page(lpn, spec.channels, spec.dies_per_channel)
            by_die.setdefault(die, (ch, []))[1].append(lpn)
        return [(die, ch, lpns) for die, (ch, lpns) in by_die.items()]

    def _array_time(self, lpns: list[int], program: bool) -> float:
        """A die's array time for its pages ``lpns`` (:func:`ssd_array_s`: multi-plane batches,
        each as slow as its slowest page)."""
        spec = self.spec
        fast, slow = (self.program_args, self.program_slow_args) if program else (
            self.read_args, self.read_slow_args)
        slow_known = (spec.program_slow_s if program else spec.read_slow_s) is not None
        return ssd_array_s(lpns[0], len(lpns), spec.planes_per_die, spec.dies,
                           SLOW_BY_PAGE if slow_known else SLOW_NONE, fast, slow, self.rng)

    def _channel(self, ch: int, seconds: float):
        if self.xfer_page > 0:  # (a finite channel rate)
            with self.channels[ch].request() as bus:
                yield bus
                yield self.env.timeout(seconds)

    def _read_die(self, die: int, ch: int, lpns: list[int], nbytes: float):
        spec = self.spec
        # a die with more pages than the whole buffer streams them through it
        room = min(len(lpns), self.read_pages) if self.read_buffer is not None else 0
        with self.dies[die].request() as unit:
            yield unit
            self.rec.unit_busy(+1)
            yield self.env.timeout(self._array_time(lpns, program=False))
            if room:
                yield from self.read_buffer.take(room)
            yield from self._channel(ch, nbytes / spec.channel_rate_Bps)
            self.rec.unit_busy(-1)
        self.counters["page_reads"] += len(lpns)
        yield from self._link(self.link_out, nbytes)
        if room:
            self.read_buffer.give_back(room)

    def _program_die(self, die: int, ch: int, lpns: list[int]):
        with self.dies[die].request() as unit:
            yield unit
            self.rec.unit_busy(+1)
            yield from self._channel(ch, len(lpns) * self.xfer_page)
            t = self._array_time(lpns, program=True)
            yield self.env.timeout(t + self.gc_extra * len(lpns))
            self.rec.unit_busy(-1)
        self.counters["page_programs"] += len(lpns)

    def _take_unit(self) -> float:
        nbytes = min(self.dirty, self.unit_bytes)
        self.dirty -= nbytes
        return nbytes

    def _flush(self) -> None:
        """Give dirty data to the dies that have no background program."""
        while self.dirty > 0 and self.idle:
            die = self.idle.popleft()
            self.env.process(self._background(die, self._take_unit()))

    def _background(self, die: int, nbytes: float):
        """A die's background programs: unit after unit while there are dirty data."""
        spec = self.spec
        ch = die // spec.dies_per_channel
        while True:
            pages = math.ceil(nbytes / spec.page_bytes)
            k = self.units_programmed[die]
            self.units_programmed[die] = k + 1
            slow = spec.program_slow_s is not None and k % 2 == 1
            with self.dies[die].request() as unit:
                yield unit
                self.rec.unit_busy(+1)
                yield from self._channel(ch, pages * self.xfer_page)
                t = ssd_array_s(0, pages, spec.planes_per_die, spec.dies,  # one multi-plane
                                SLOW_ALL if slow else SLOW_NONE, self.program_args,
                                self.program_slow_args, self.rng)
                yield self.env.timeout(t + self.gc_extra * pages)
                self.rec.unit_busy(-1)
            self.counters["page_programs"] += pages
            self.write_buffer.give_back(nbytes)
            if self.dirty <= 0:
                self.idle.append(die)
                return
            nbytes = self._take_unit()

    def _link(self, wire, nbytes: float):
        if wire is not None:
            with wire.request() as turn:
                yield turn
                yield self.env.timeout(nbytes / self.spec.host_interface_Bps)

    def serve(self, req):
        env, spec = self.env, self.spec
        if spec.controller_overhead_s > 0:
            yield env.timeout(spec.controller_overhead_s)
        groups = self._groups(req)
        if req.is_read:  # each die's share of the data crosses the link when it is ready
            first, n = ssd_pages(req.offset, req.size, spec.page_bytes)
            procs = [
                env.process(self._read_die(d, c, lp, ssd_group_bytes(
                    req.offset, req.size, spec.page_bytes, first, n, g, spec.dies)))
                for g, (d, c, lp) in enumerate(groups)
            ]
            yield simpy.AllOf(env, procs)
            return
        yield from self._link(self.link_in, req.size)
        if 0 < req.size <= spec.write_buffer_bytes:
            yield from self.write_buffer.take(req.size)
            self.counters["buffered_writes"] += 1
            self.dirty += req.size
            self._flush()
            return
        procs = [env.process(self._program_die(d, c, lp)) for d, c, lp in groups]
        yield simpy.AllOf(env, procs)


class CloudModel:
    """Token buckets (reserved in arrival order) in front of a pool of back-end units."""

    def __init__(self, env: simpy.Environment, spec, streams, recorder):
        self.env = env
        self.spec = spec
        self.rng = streams["device"]
        self.rec = recorder
        self.units = simpy.Resource(env, spec.units)
        # [name, rate, capacity, what, tokens, t_last]. Burst credits start full (a fresh
        # volume); rate caps start empty, so a short run measures the steady rate rather than
        # the bucket depth it began with.
        self.buckets = [[n, r, c, w, c if n == "iops" and spec.burst_iops > 0 else 0.0, 0.0]
                        for n, r, c, w in bucket_plan(spec)]
        self.counters = {"throttled": 0, "throttle_s": 0.0}

    def _cost(self, what: str, req) -> float:
        spec = self.spec
        ops = io_units(req.size, spec.io_unit_bytes)
        return bucket_cost(COST_CODES[what], req.size, req.is_read, ops, spec.read_iops_limit,
                           spec.write_iops_limit, spec.read_bandwidth_limit_Bps,
                           spec.write_bandwidth_limit_Bps)

    def serve(self, req):
        env, spec = self.env, self.spec
        wait = 0.0
        for b in self.buckets:
            cost = self._cost(b[3], req)
            if cost == 0.0:
                continue
            b[4], w = bucket_take(b[4], b[5], env.now, b[1], b[2], cost)
            b[5] = env.now
            wait = max(wait, w)
        if wait > 0:
            self.counters["throttled"] += 1
            self.counters["throttle_s"] += wait
            yield env.timeout(wait)
        dist = spec.latency if req.is_read or spec.write_latency is None else spec.write_latency
        with self.units.request() as unit:
            yield unit
            self.rec.unit_busy(+1)
            yield env.timeout(float(dist.sample(self.rng)) + req.size / spec.media_rate_Bps)
            self.rec.unit_busy(-1)


class _Prefixed:
    """A member's view of the run's streams: its "device" stream is "device.member{i}" (and a
    nested member's is "device.member{i}.member{j}"), so members draw independent numbers."""

    def __init__(self, streams, prefix: str):
        self.streams = streams
        self.prefix = prefix

    def __getitem__(self, name: str):
        if name == "device" or name.startswith("device."):
            name = self.prefix + name[len("device"):]
        return self.streams[name]


class _MemberReq:
    """A member I/O: what a device model reads from a request."""

    __slots__ = ("io", "is_read", "size", "offset", "extra")

    def __init__(self, is_read: bool, size: float, offset: float):
        self.io = None
        self.is_read = is_read
        self.size = size
        self.offset = offset
        self.extra: dict = {}


class Coalescer:
    """Completion (interrupt) coalescing: completions are reported in batches of ``count``, or
    ``timeout_s`` after the first pending one, whichever comes first."""

    def __init__(self, env: simpy.Environment, count: int, timeout_s: float):
        self.env = env
        self.count = count
        self.timeout_s = timeout_s
        self.pending: list = []
        self.epoch = 0

    def report(self) -> simpy.Event:
        ev = self.env.event()
        if self.count <= 1:
            ev.succeed()
            return ev
        self.pending.append(ev)
        if len(self.pending) >= self.count:
            self._flush()
        elif len(self.pending) == 1:
            self.env.process(self._timer(self.epoch))
        return ev

    def _flush(self) -> None:
        batch, self.pending = self.pending, []
        self.epoch += 1
        for ev in batch:
            ev.succeed()

    def _timer(self, epoch: int):
        yield self.env.timeout(self.timeout_s)
        if epoch == self.epoch and self.pending:
            self._flush()


class _MemberRecorder:
    """A member's view of the recorder: when the member fails, the units it had busy are
    withdrawn and whatever it still does with its abandoned queue is no longer recorded."""

    def __init__(self, recorder):
        self.rec = recorder
        self.level = 0
        self.dead = False

    def unit_busy(self, delta: int) -> None:
        self.level += delta
        if not self.dead:
            self.rec.unit_busy(delta)

    def die(self) -> None:
        if not self.dead:
            self.dead = True
            self.rec.unit_busy(-self.level)

    def __getattr__(self, name: str):
        if name == "rec":  # not set yet (e.g. while copying)
            raise AttributeError(name)
        return getattr(self.rec, name)




class RaidModel:
    """Members built recursively with :func:`make_device`; fork-join of member I/Os; a
    write-back cache destaged in the background; completion coalescing; a member failure at
    ``fail_at_s`` and a rebuild onto a spare (see :mod:`iosim.devices.raid`)."""

    def __init__(self, env: simpy.Environment, spec, streams, recorder):
        self.env = env
        self.spec = spec
        self.rec = recorder
        self.streams = streams
        f = spec.failed_member
        self.faults = f is not None
        self.live_fail = self.faults and spec.fail_at_s > 0
        self.dying_rec = _MemberRecorder(recorder) if self.live_fail else None
        self.members = [
            make_device(env, spec.member, _Prefixed(streams, f"device.member{i}"),
                        self.dying_rec if i == f and self.live_fail else recorder)
            for i in range(spec.members)
        ]
        self.cache = FifoSpace(env, spec.write_cache_bytes)
        self.destage_slots = simpy.Resource(env, spec.destage_limit)
        self.coalescer = Coalescer(env, spec.coalesce_count, spec.coalesce_timeout_s)
        self.turn = 0
        # md's read balancing state, per member slot: member I/Os pending, where the last
        # completed one ended (bytes)
        self.pend = np.zeros(spec.members, np.int64)
        self.head = np.zeros(spec.members)
        self.counters = {"requests": 0, "member_reads": 0, "member_writes": 0,
                         "cached_writes": 0, "destages": 0}
        # fault state: the failed member (-1: none), rows below `rebuilt_to` (member bytes)
        # already rebuilt onto the spare
        self.failed = -1
        self.rebuilt_to = 0.0
        self.phase = RAID_PHASES[0]
        self.fail_ev: simpy.Event | None = None
        if not self.faults:
            return
        c = self.counters
        for what in ("reads", "writes"):
            for cause in ("foreground", "degraded", "rebuild"):
                c[f"member_{what}_{cause}"] = 0
        c.update({"member_ios_lost": 0, "requests_re_served": 0, "rebuilt_bytes": 0.0,
                  "rebuild_target_bytes": 0.0})
        for phase in RAID_PHASES:
            c[f"{phase}_requests"] = 0
            c[f"{phase}_latency_s"] = 0.0
            c[f"{phase}_degraded_reads"] = 0
        if self.live_fail:
            self.fail_ev = env.event()
            env.process(self._fail())
        else:
            self._enter_failed(f)
        if spec.rebuild_start_s is not None:
            c["rebuild_target_bytes"] = spec.rebuild_target_bytes
            env.process(self._rebuild())

    # -- faults ------------------------------------------------------------------------------
    def _enter_failed(self, f: int) -> None:
        self.failed = f
        self.phase = "degraded"
        self.counters["failed_at_s"] = self.env.now

    def _fail(self):
        yield self.env.timeout(self.spec.fail_at_s)
        f = self.spec.failed_member
        self._enter_failed(f)
        self.dying_rec.die()
        self.fail_ev.succeed()

    def _rebuild(self):
        env, spec, c = self.env, self.spec, self.counters
        if self.fail_ev is not None:
            yield self.fail_ev
        yield env.timeout(max(0.0, spec.rebuild_start_s - env.now))
        f = self.failed
        # the spare takes the failed member's slot; only rows below `rebuilt_to` reach it
        self.members[f] = make_device(env, spec.member, _Prefixed(self.streams,
                                                                  f"device.spare{f}"), self.rec)
        self.pend[f] = 0  # the spare starts idle, its head at 0
        self.head[f] = 0.0
        self.phase = "rebuilding"
        c["rebuild_started_s"] = env.now
        target = spec.rebuild_target_bytes
        step = spec.rebuild_io_bytes or spec.stripe_unit_bytes
        pos, turn = 0.0, 0
        while pos < target:
            t0 = env.now
            nb = min(step, target - pos)
            reads = raid_rebuild_reads(spec.level, spec.members, f, pos, nb, turn)
            turn += 1
            yield from self._member_io([(*io, "rebuild") for io in reads], True)
            yield from self._member_io([(f, pos, nb, "rebuild")], False)
            pos += nb
            self.rebuilt_to = pos
            c["rebuilt_bytes"] += nb
            pace = t0 + nb / spec.rebuild_rate_Bps - env.now
            if pace > 0:
                yield env.timeout(pace)
        self.failed = -1
        self.phase = "after_rebuild"
        c["rebuild_ended_s"] = env.now

    def _failed_for(self, offset: float, size: float) -> int:
        """The failed member as a request sees it: none once its rows are rebuilt."""
        if self.failed < 0 or self.rebuilt_to <= 0:
            return self.failed
        spec = self.spec
        end = raid_row_end(spec.level, spec.members, spec.stripe_unit_bytes, offset, size)
        return -1 if end <= self.rebuilt_to else self.failed

    def _reaches(self, m: int, off: float, nb: float) -> bool:
        """Whether member I/O can be served: not at the failed member, unless the spare
        already holds that range."""
        return m != self.failed or off + nb <= self.rebuilt_to

    # -- member I/O --------------------------------------------------------------------------
    def _member_io(self, ios, is_read: bool):
        """Issue ``ios`` [(member, offset, bytes, cause)] and wait for them. Returns the I/Os
        lost to a member that failed meanwhile ([] if none)."""
        env, c = self.env, self.counters
        what = "reads" if is_read else "writes"
        c[f"member_{what}"] += len(ios)
        if self.faults:
            for io in ios:
                c[f"member_{what}_{io[3]}"] += 1
                if is_read and io[3] == "degraded":
                    c[f"{self.phase}_degraded_reads"] += 1
        procs = []
        for m, off, nb, _ in ios:
            member = self.members[m]
            self.pend[m] += 1
            proc = env.process(member.serve(_MemberReq(is_read, nb, off)))
            # first of the process's callbacks: before any AllOf that waits for it
            proc.callbacks.append(partial(self._member_done, m, member, off + nb))
            procs.append(proc)
        if not procs:
            return []
        dying = self.spec.failed_member
        if self.fail_ev is None or self.fail_ev.triggered or all(
                io[0] != dying for io in ios):
            yield simpy.AllOf(env, procs)
            return []
        doomed = simpy.AllOf(env, [p for p, io in zip(procs, ios, strict=True)
                                   if io[0] == dying])
        yield doomed | self.fail_ev
        lost = [] if doomed.triggered else [io for io in ios if io[0] == dying]
        c["member_ios_lost"] += len(lost)
        rest = [p for p, io in zip(procs, ios, strict=True) if io[0] != dying]
        if rest:
            yield simpy.AllOf(env, rest)
        return lost

    def _member_done(self, m: int, member, end: float, _event) -> None:
        """A member I/O's end, for read balancing: one fewer pending, the head at its end (an
        I/O of a member a spare has since replaced no longer counts)."""
        if self.members[m] is member:
            self.pend[m] -= 1
            self.head[m] = end

    def _execute(self, offset: float, size: float, is_read: bool):
        self.turn += 1
        if not self.faults:
            reads, writes = self.spec.map(offset, size, is_read, self.turn, -1, self.pend,
                                          self.head)
            yield from self._member_io([(*io, "foreground") for io in reads], True)
            yield from self._member_io([(*io, "foreground") for io in writes], False)
            return
        yield from self._execute_faulty(offset, size, is_read)

    def _execute_faulty(self, offset: float, size: float, is_read: bool):
        spec = self.spec

        def tagged(ios):
            return [(m, o, b, "degraded" if d else "foreground") for m, o, b, d in ios]

        reads, writes = spec.map_tagged(offset, size, is_read, self.turn,
                                        self._failed_for(offset, size), self.pend, self.head)
        reads, writes = tagged(reads), tagged(writes)
        lost = yield from self._member_io(reads, True)
        re_served = bool(lost)
        if lost:
            # a read died with the member: re-map in degraded mode and read what is missing
            # (the survivors of the row, less the reads this request already has)
            have: dict = {}
            for m, o, b, _ in reads:
                if m != spec.failed_member:  # every read at the failed member was lost
                    have[(m, o, b)] = have.get((m, o, b), 0) + 1
            again, writes = spec.map_tagged(offset, size, is_read, self.turn,
                                            self._failed_for(offset, size), self.pend,
                                            self.head)
            missing = []
            for m, o, b, _ in again:
                if have.get((m, o, b), 0) > 0:
                    have[(m, o, b)] -= 1
                else:
                    missing.append((m, o, b, "degraded"))
            writes = tagged(writes)
            yield from self._member_io(missing, True)
        # a write for the failed member is dropped: the parity (or the mirror) carries it
        live = [io for io in writes if self._reaches(*io[:3])]
        if len(live) < len(writes):
            self.counters["member_ios_lost"] += len(writes) - len(live)
            re_served = True
        lost = yield from self._member_io(live, False)
        if re_served or lost:
            self.counters["requests_re_served"] += 1

    def _destage(self, offset: float, size: float):
        with self.destage_slots.request() as slot:
            yield slot
            yield from self._execute(offset, size, False)
        self.counters["destages"] += 1
        self.cache.give_back(size)

    def serve(self, req):
        env, spec = self.env, self.spec
        t0 = env.now
        self.counters["requests"] += 1
        if spec.controller_overhead_s > 0:
            yield env.timeout(spec.controller_overhead_s)
        if not req.is_read and 0 < req.size <= spec.write_cache_bytes:
            yield from self.cache.take(req.size)
            self.counters["cached_writes"] += 1
            env.process(self._destage(req.offset, req.size))
        else:
            yield from self._execute(req.offset, req.size, req.is_read)
        yield self.coalescer.report()
        if self.faults:
            self.counters[f"{self.phase}_requests"] += 1
            self.counters[f"{self.phase}_latency_s"] += env.now - t0


class ArrayModel:
    """Front-end cores, read hits, a write-back cache destaged to back-end groups."""

    def __init__(self, env: simpy.Environment, spec, streams, recorder):
        self.env = env
        self.spec = spec
        self.rng = streams["device"]
        self.rec = recorder
        self.frontend = simpy.Resource(env, spec.frontend_units)
        self.groups = [
            make_device(env, spec.group, _Prefixed(streams, f"device.group{i}"), recorder)
            for i in range(spec.groups)
        ]
        self.cache = FifoSpace(env, spec.write_cache_bytes)
        self.destage_slots = simpy.Resource(env, spec.destage_limit)
        paced = math.isfinite(spec.destage_rate_Bps)
        self.destage_pace = simpy.Resource(env, 1) if paced else None
        self.counters = {"read_hits": 0, "read_misses": 0, "cached_writes": 0, "destages": 0,
                         "backend_writes": 0}

    def _backend(self, offset: float, size: float, is_read: bool):
        g, goff = array_group_of(offset, self.spec.groups, self.spec.extent_bytes)
        yield from self.groups[g].serve(_MemberReq(is_read, size, goff))

    def _destage(self, offset: float, size: float):
        spec, env = self.spec, self.env
        with self.destage_slots.request() as slot:
            yield slot
            if self.destage_pace is not None:
                with self.destage_pace.request() as pace:
                    yield pace
                    yield env.timeout(size / spec.destage_rate_Bps)
            yield from self._backend(offset, size, False)
        self.counters["destages"] += 1
        self.cache.give_back(size)

    def serve(self, req):
        env, spec = self.env, self.spec
        with self.frontend.request() as core:
            yield core
            self.rec.unit_busy(+1)
            yield env.timeout(float(spec.frontend_s.sample(self.rng)))
            self.rec.unit_busy(-1)
        if req.is_read:
            if array_read_hit(float(self.rng.random()), spec.read_hit_ratio):
                self.counters["read_hits"] += 1
                return
            self.counters["read_misses"] += 1
            yield from self._backend(req.offset, req.size, True)
            return
        if 0 < req.size <= spec.write_cache_bytes:
            yield from self.cache.take(req.size)
            if spec.mirror_s > 0:
                yield env.timeout(spec.mirror_s)
            self.counters["cached_writes"] += 1
            env.process(self._destage(req.offset, req.size))
            return
        self.counters["backend_writes"] += 1
        yield from self._backend(req.offset, req.size, False)


SIMPY_MODELS: dict[str, Callable] = {
    "generic": GenericModel,
    "hdd": HddModel,
    "ssd": SsdModel,
    "cloud": CloudModel,
    "raid": RaidModel,
    "array": ArrayModel,
}


def make_device(env, spec, streams, recorder):
    model = SIMPY_MODELS.get(spec.kind)
    if model is None:
        raise ValueError(f"device.kind {spec.kind!r} has no SimPy model")
    return model(env, spec, streams, recorder)

"""The flash SSD: channels x dies (x planes), NAND timings, a write buffer, GC and the host link.

Physics (pure functions on plain numbers):

* Mapping. The logical page ``lpn = offset // page_bytes`` lives on a fixed die, striped channel
  first (:func:`ssd_die_of`): consecutive pages go to consecutive channels, then to the next die
  of each channel. A request therefore occupies the dies of its pages, and two requests whose
  pages share a die queue one behind the other even when most dies are idle: the collisions
  that keep an SSD below its full parallelism.
* Page types. In MLC/TLC flash the pages of a word line read and program at different speeds
  (LSB fast, MSB slow). :func:`ssd_page_is_slow` picks the type from the page's position on its
  die, so the same address always costs the same.
* A read holds its die for the array read (tR) and then for the transfer over the die's
  channel, which the channel's dies share (one transfer at a time), of the bytes it asked for
  (:func:`ssd_group_bytes`: a 4 KiB read of a 16 KiB page moves 4 KiB). A program transfers
  first, then holds the die for tPROG. Up to ``planes_per_die`` pages of one request on the same
  die are read or programmed together (multi-plane operation).
* Garbage collection. In steady state every page written costs ``WA - 1`` extra page copies
  (read + program on the same die) and ``WA / pages_per_block`` block erases: die time stolen
  from host requests (:func:`ssd_gc_extra_s`). The write amplification ``WA`` is given, or
  follows from how full the flash is (:func:`ssd_write_amplification`, for random writes); a
  sequential write stream leaves whole blocks invalid, so its WA is 1 (:meth:`SsdDevice.under`).
* Writes through the DRAM buffer are placed by the flash translation layer, not by address:
  each die with no program of its own takes the next ``planes_per_die`` pages of buffered data
  (one multi-plane program; MLC dies alternate fast and slow pages from one program to the
  next), so buffered writes never collide on a die and small writes share pages. A write with
  no buffer, or larger than it, is programmed on the dies its addresses map to.
* The host interface (PCIe and the controller's data path) moves data at
  ``host_interface_Bps``, one transfer at a time per direction: the cap of a fast device. Read
  data cross it die by die as they arrive (the controller DMAs each die's pages when they are in
  its buffer; the command completes when the last have crossed).
* The read buffer. A page leaving its die over the channel lands in the controller's read
  buffer (``read_buffer_bytes``) and holds its room there until it has crossed the host
  interface. When the buffer is full the die keeps the page in its page register and cannot
  start another read: back-pressure. So when the host interface is the bottleneck the backlog
  stays in the per-die queues, where a request waits behind whatever collided on its dies, and
  latencies spread (a FIFO in front of the link would instead give every request nearly the
  same wait, N / X). An unbounded buffer (``inf``, the default) has no back-pressure.

Queueing (the engine's job): a fixed ``controller_overhead_s`` per command (firmware, doorbell,
completion) that holds nothing; the host link per direction; the dies; the channels; the read
buffer (strict FIFO: a die's pages wait behind earlier dies' even if fewer would fit). Writes go
to the DRAM write buffer when it has room (acknowledged after the host transfer) and are
programmed to their dies in the background.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from ..dists import Deterministic, Distribution, sample_args
from ..spec import Spec, fld
from ..units import show_size
from .base import DeviceFamily, FitModel, FitParameter, QueueingView, fit_base

__all__ = [
    "SsdDevice",
    "ssd_pages",
    "ssd_group_bytes",
    "ssd_die_of",
    "ssd_die_of_page",
    "ssd_page_is_slow",
    "ssd_page_slow",
    "ssd_array_s",
    "SLOW_NONE",
    "SLOW_BY_PAGE",
    "SLOW_ALL",
    "ssd_write_amplification",
    "ssd_gc_extra_s",
]


def ssd_pages(offset_bytes: float, size_bytes: float, page_bytes: float) -> tuple[int, int]:
    """(first logical page, number of pages) touched by a request."""
    # floor of the quotient, not ``//``: numba compiles a float ``//`` to a call of C's fmod
    # (1.6 % of an nvme-intel-750 run); the two agree for whole-byte offsets below 2**53
    first = int(math.floor(offset_bytes / page_bytes))
    last = int(math.ceil((offset_bytes + size_bytes) / page_bytes)) - 1
    return first, max(1, last - first + 1)


def ssd_group_bytes(offset_bytes: float, size_bytes: float, page_bytes: float, first: int,
                    npages: int, g: int, n_dies: int) -> float:
    """Bytes of a request that lie on its ``g``-th die group: pages ``first + g``,
    ``first + g + n_dies``, ... of the ``npages`` it touches, less the parts of the first and
    last page outside the request. A read moves only these over the channel (the controller
    reads the sectors it needs out of the page register)."""
    count = (npages - 1 - g) // n_dies + 1
    nbytes = count * page_bytes
    if g == 0:
        nbytes -= offset_bytes - first * page_bytes
    if (npages - 1 - g) % n_dies == 0:
        nbytes -= (first + npages) * page_bytes - (offset_bytes + size_bytes)
    return nbytes


def ssd_die_of(lpn, channels: int, dies_per_channel: int):
    """(channel, die index 0..channels*dies_per_channel-1) of logical pages, striped channel
    first: page k goes to channel k mod C, die (k div C) mod D of that channel."""
    lpn = np.asarray(lpn)
    ch = lpn % channels
    way = (lpn // channels) % dies_per_channel
    die = ch * dies_per_channel + way
    if die.ndim == 0:
        return int(ch), int(die)
    return ch, die


def ssd_die_of_page(lpn: int, channels: int, dies_per_channel: int) -> tuple[int, int]:
    """:func:`ssd_die_of` for one page, on plain integers (the engines' scalar form, which
    numba compiles)."""
    ch = lpn % channels
    way = (lpn // channels) % dies_per_channel
    return ch, ch * dies_per_channel + way


def ssd_page_slow(lpn: int, n_dies: int) -> bool:
    """:func:`ssd_page_is_slow` for one page, on plain integers (compiled by numba too)."""
    return (lpn // n_dies) % 2 == 1


# which of a die's pages take the slow (MSB) time in :func:`ssd_array_s`
SLOW_NONE, SLOW_BY_PAGE, SLOW_ALL = 0, 1, 2


def ssd_array_s(first_lpn: int, pages: int, planes: int, n_dies: int, slow: int,
                fast_dist, slow_dist, rng) -> float:
    """A die's array time for ``pages`` pages (``first_lpn``, ``first_lpn + n_dies``, ...):
    multi-plane batches of ``planes`` pages in page order, each batch as slow as its slowest
    page. A page takes ``slow_dist`` when ``slow`` is SLOW_ALL, or SLOW_BY_PAGE and MLC
    pairing makes it slow (:func:`ssd_page_slow`); else ``fast_dist``. Each is
    :func:`iosim.dists.dist_args`'s (code, a, b, samples), one draw per page from ``rng`` in
    page order. Both engines call it (the fast one compiled)."""
    total = 0.0
    for kb in range(0, pages, planes):
        batch = 0.0
        for k in range(kb, min(pages, kb + planes)):
            if slow == SLOW_ALL or (slow == SLOW_BY_PAGE
                                    and ssd_page_slow(first_lpn + k * n_dies, n_dies)):
                v = sample_args(slow_dist[0], slow_dist[1], slow_dist[2], slow_dist[3], rng)
            else:
                v = sample_args(fast_dist[0], fast_dist[1], fast_dist[2], fast_dist[3], rng)
            if k == kb or v > batch:
                batch = v
        total += batch
    return total


def ssd_page_is_slow(lpn, n_dies: int):
    """MLC pairing: the page's index on its die alternates fast (LSB) and slow (MSB)."""
    out = (np.asarray(lpn) // n_dies) % 2 == 1
    return bool(out) if out.ndim == 0 else out


def ssd_write_amplification(utilisation: float) -> float:
    """Steady-state write amplification of uniformly random page writes with
    least-recently-written (FIFO) cleaning when valid data fill ``utilisation`` (0..1) of the
    physical pages.

    A block reaches the cleaner with a valid fraction x that solves x = exp(-(1 - x) / u),
    i.e. x = -u W(-e^{-1/u} / u) (principal branch of Lambert's W), and every page the host
    writes costs 1 / (1 - x) page programs.
    """
    from scipy.special import lambertw  # here, not at the top: scipy is slow to import

    u = float(utilisation)
    if not 0 < u < 1:
        raise ValueError(f"utilisation must be in (0, 1) (got {u!r})")
    a = 1.0 / u
    x = float(np.real(-lambertw(-a * math.exp(-a), 0) / a))
    if not 0 <= x < 1:  # W's principal branch gives the root below 1
        x = 0.0
    return 1.0 / (1.0 - x)


def ssd_gc_extra_s(write_amplification: float, read_s: float, program_s: float,
                   erase_s: float, pages_per_block: int) -> float:
    """Mean die time garbage collection adds to each page the host writes: WA - 1 page
    copies (read + program) and WA / pages_per_block erases."""
    wa = write_amplification
    return (wa - 1.0) * (read_s + program_s) + wa / pages_per_block * erase_s


@dataclass(frozen=True, kw_only=True)
class SsdDevice(DeviceFamily, Spec):
    """A NAND flash SSD. Defaults: a small MLC drive (MQSim/SimpleSSD-like geometry)."""

    section = "device"
    kind: ClassVar[str] = "ssd"
    widget_controls: ClassVar[tuple[str, ...]] = ("channels", "dies")
    degraded_field: ClassVar[str | None] = None  # no unit count to lower
    service_fields: ClassVar[tuple[str, ...]] = ("read_s", "program_s")
    fit_parameters: ClassVar[tuple[FitParameter, ...]] = (
        FitParameter("device.dies", 1.0, 2048.0, True, True, "",
                     "flash dies an SSD spreads random I/O over (each request queues at the die "
                     "its address maps to)"),
        FitParameter("device.die_service_s", 1e-7, 0.1, True, False, "s",
                     "mean time a request holds its die (array read or program plus transfer)"),
        FitParameter("device.die_read_s", 1e-7, 0.1, True, False, "s",
                     "mean time a read holds its die (fitted apart from writes when the data "
                     "mix them)"),
        FitParameter("device.die_write_s", 1e-7, 0.1, True, False, "s",
                     "mean time a write holds its die (fitted apart from reads when the data "
                     "mix them)"),
        FitParameter("device.controller_overhead_s", 0.0, 0.01, False, False, "s",
                     "an SSD controller's fixed time per command (firmware, doorbell, "
                     "completion); holds nothing"),
        FitParameter("device.host_interface_Bps", 1e6, 1e12, True, False, "B/s",
                     "an SSD's host interface (PCIe / SATA link and data path), one transfer "
                     "at a time per direction"),
        FitParameter("device.channel_rate_Bps", 1e6, 1e12, True, False, "B/s",
                     "an SSD's flash channel rate (one die per channel): a request holds its "
                     "die size / rate longer than the array time (fitted when the block "
                     "sizes of the fitted points differ)"),
    )
    fit_models: ClassVar[tuple[FitModel, ...]] = (
        FitModel(
            "ssd",
            "the flash SSD family: K dies, each request queued at the die its address maps to "
            "(random routing: collisions), a controller overhead per command, the host "
            "interface's transfer cap and the host gap",
            ("host.overhead", "device.die_service_s", "device.dies",
             "device.controller_overhead_s", "device.host_interface_Bps"),
            fit_base({"kind": "ssd", "channels": 16, "dies_per_channel": 1,
                      "planes_per_die": 1, "page_bytes": "256KiB", "read_s": "exp:80us",
                      "program_s": "exp:80us", "channel_rate_Bps": 1e15,
                      "controller_overhead_s": "10us", "gc": False, "write_buffer_bytes": 0},
                     "fit-ssd"),
            {"device.die_service_s": (1e-6, 0.05), "host.overhead": (0.0, 0.01)},
            polish=True,
            size_params=("device.channel_rate_Bps",),
        ),
        FitModel(
            "ssd-pool",
            "a pool of parallel flash units behind one queue and a transfer cap (the generic "
            "approximation of an SSD: a sharp knee)",
            ("host.overhead", "device.service", "device.units", "link.bandwidth_Bps"),
            fit_base({"kind": "generic", "units": 16, "service": "exp:80us"}, "fit-ssd-pool"),
            {"device.service": (1e-6, 0.01), "device.units": (1.0, 4096.0)},
            auto="never",  # the ssd model's approximation, kept for comparison
            size_params=("device.media_rate_Bps",),
        ),
    )

    channels: int = fld(8, "int")
    dies_per_channel: int = fld(4, "int")
    planes_per_die: int = fld(1, "int")
    page_bytes: float = fld(16384, "size")
    pages_per_block: int = fld(512, "int")
    read_s: Distribution = fld(Deterministic(50e-6), "dist")
    read_slow_s: Distribution | None = fld(None, "dist", optional=True)
    program_s: Distribution = fld(Deterministic(900e-6), "dist")
    program_slow_s: Distribution | None = fld(None, "dist", optional=True)
    erase_s: float = fld(3e-3, "time")
    channel_rate_Bps: float = fld(400e6, "rate")
    controller_overhead_s: float = fld(0.0, "time")
    host_interface_Bps: float = fld(math.inf, "rate")
    read_buffer_bytes: float = fld(math.inf, "size")
    write_buffer_bytes: float = fld(0, "size")
    gc: bool = fld(True, "bool")
    over_provisioning: float = fld(0.07, "fraction")
    fullness: float = fld(1.0, "fraction")
    write_amplification: float | None = fld(None, "float", optional=True)

    def validate(self):
        self.require(self.channels >= 1, "channels", ">= 1")
        self.require(self.dies_per_channel >= 1, "dies_per_channel", ">= 1")
        self.require(self.planes_per_die >= 1, "planes_per_die", ">= 1")
        self.require(self.page_bytes >= 512 and self.page_bytes % 512 == 0, "page_bytes",
                     "a multiple of 512 bytes")
        self.require(self.pages_per_block >= 1, "pages_per_block", ">= 1")
        self.require(self.erase_s >= 0, "erase_s", ">= 0 s")
        self.require(self.channel_rate_Bps > 0, "channel_rate_Bps", "> 0 bytes/s")
        self.require(self.controller_overhead_s >= 0, "controller_overhead_s", ">= 0 s")
        self.require(self.host_interface_Bps > 0, "host_interface_Bps", "> 0 bytes/s")
        self.require(self.read_buffer_bytes >= self.page_bytes, "read_buffer_bytes",
                     "at least one page (or inf)")
        self.require(self.write_buffer_bytes >= 0, "write_buffer_bytes", ">= 0 bytes")
        if 0 < self.write_buffer_bytes < self.page_bytes:
            self.require(False, "write_buffer_bytes", "0 or at least one page")
        self.require(self.over_provisioning > 0, "over_provisioning", "> 0")
        self.require(0 < self.fullness <= 1, "fullness", "in (0, 1]")
        if self.write_amplification is not None:
            self.require(self.write_amplification >= 1, "write_amplification", ">= 1")

    # derived ----------------------------------------------------------------------------------
    @property
    def dies(self) -> int:
        return self.channels * self.dies_per_channel

    @property
    def units(self) -> int:
        """Parallel execution units: the dies."""
        return self.dies

    @property
    def buffer_pages(self) -> int:
        return int(self.write_buffer_bytes // self.page_bytes)

    @property
    def read_buffer_pages(self) -> int:
        """Pages the read buffer holds (-1: unbounded)."""
        if not math.isfinite(self.read_buffer_bytes):
            return -1
        return int(self.read_buffer_bytes // self.page_bytes)

    @property
    def warmup_ios(self) -> int:
        """I/Os to run before measuring a write workload so that the write buffer has filled."""
        return 2 * self.buffer_pages

    @property
    def wa(self) -> float:
        """Write amplification in steady state (1 with gc off)."""
        if not self.gc:
            return 1.0
        if self.write_amplification is not None:
            return self.write_amplification
        return ssd_write_amplification(self.fullness / (1.0 + self.over_provisioning))

    def under(self, random_writes: bool) -> SsdDevice:
        """This drive as a workload's writes leave it in steady state. ``fullness`` sets the
        write amplification of random writes; a sequential stream overwrites whole blocks, so
        cleaning finds them empty and copies nothing (WA 1). A given ``write_amplification``
        holds for both."""
        if random_writes or not self.gc or self.write_amplification is not None:
            return self
        return replace(self, write_amplification=1.0)

    def _mean(self, fast: Distribution, slow: Distribution | None) -> float:
        return fast.mean_s if slow is None else (fast.mean_s + slow.mean_s) / 2

    @property
    def mean_read_s(self) -> float:
        return self._mean(self.read_s, self.read_slow_s)

    @property
    def mean_program_s(self) -> float:
        return self._mean(self.program_s, self.program_slow_s)

    def gc_extra_s(self) -> float:
        """Die time GC adds per page written by the host (0 with gc off)."""
        return ssd_gc_extra_s(self.wa, self.mean_read_s, self.mean_program_s, self.erase_s,
                              self.pages_per_block)

    def mean_service_s(self, size_bytes: float, is_read: bool = True) -> float:
        """Mean die time of one aligned request of ``size_bytes`` summed over its pages (for
        capacity estimates: ``units / mean_service_s`` is the dies' IOPS ceiling)."""
        pages = max(1, math.ceil(size_bytes / self.page_bytes))
        xfer = self.page_bytes / self.channel_rate_Bps
        if is_read:
            return pages * (self.mean_read_s / self.planes_per_die + xfer)
        return pages * (xfer + self.mean_program_s / self.planes_per_die + self.gc_extra_s())

    def fit_overrides(self, values, at: str = "device") -> dict:
        over: dict = {}
        if "device.dies" in values:  # one die per channel: the channels never add a wait
            over[f"{at}.channels"] = int(round(values["device.dies"]))
            over[f"{at}.dies_per_channel"] = 1
        for k in ("controller_overhead_s", "host_interface_Bps", "channel_rate_Bps"):
            if f"device.{k}" in values:
                over[f"{at}.{k}"] = float(values[f"device.{k}"])
        return over

    def assumptions(self) -> list[str]:
        buf = self.write_buffer_bytes
        return [f"write buffer {'off' if not buf else show_size(buf)}"]

    def queueing_view(self) -> QueueingView:
        """Each request joins the queue of the die its address maps to (random routing over
        the dies), with the controller's time as a delay and the host interface as a cap. The
        channel transfer is left out (the fit's base stack has none); a fitted
        ``device.channel_rate_Bps`` adds it to the die time (exact with one die per channel).
        A request of several pages is striped over as many dies (``page_bytes``)."""
        return QueueingView(service_s=self.mean_read_s, units=float(self.dies),
                            page_bytes=self.page_bytes,
                            random_routing=True, write_service_s=self.mean_program_s,
                            delay_s=self.controller_overhead_s,
                            host_if_Bps=self.host_interface_Bps)

    def to_dict(self) -> dict:
        return {"kind": self.kind, **super().to_dict()}

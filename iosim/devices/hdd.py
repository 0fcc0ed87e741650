"""The spinning disk: one actuator, a seek curve, rotation, zoned transfer, NCQ and a write cache.

Physics (pure functions on plain numbers or numpy arrays, shared by every engine):

* Geometry. Addresses are laid out from the outer diameter (OD) inwards and every track holds a
  number of sectors proportional to its radius (zoned recording), so the media rate falls from
  ``media_rate_od_Bps`` to ``media_rate_id_Bps`` and the first gigabytes take fewer cylinders
  than the last ones. :func:`hdd_geometry` maps a capacity fraction to (cylinder fraction, rate
  factor).
* Seek. :func:`hdd_seek_s`: zero for no move, otherwise the two-piece curve of Ruemmler and
  Wilkes (as DiskSim implements it): ``track_to_track + a*sqrt(u)`` for short seeks (the arm
  accelerates and decelerates) and a straight line beyond ``seek_knee_frac`` of the stroke (it
  coasts), where ``u`` is the distance as a fraction of all cylinders. The track-to-track time
  includes the settle time; writes add ``write_settle_s``. :func:`hdd_seek_coeffs` picks ``a``
  and ``b`` so that the full stroke takes ``full_stroke_s`` and the mean over uniformly random
  address pairs equals the data-sheet ``avg_seek_s``. Because the curve depends on distance,
  the address span of a workload changes the mean seek (short-stroking, experiment E7). A
  drive whose seek curve was measured (DIXtrac's extraction, DiskSim's ``Seek type =
  extracted``) gives it as a table instead, ``seek_curve`` (distance in cylinders, time), read
  by linear interpolation (:func:`hdd_seek_table_s`).
* Rotation. ``rotation = "uniform"`` draws the wait uniformly over a revolution; ``"exact"``
  gives every address an angle (its position within its track) and computes the wait from the
  angular position of the platter at the end of the seek (:func:`hdd_rotational_wait_s`), which
  is what shortest-positioning-time-first scheduling needs.
* Transfer: size over the zoned media rate at the address; ``overhead_s`` per command. The
  interface moves a read's data as the media delivers them, so a read completes when the
  slower of the two is done: an interface slower than the media (``interface_Bps``) adds
  ``size / interface - media transfer`` after the media read (the actuator is free by then).
  Commands answered from the buffer (read hits, cached writes) may cost a controller overhead
  of their own (``read_hit_overhead_s``, ``write_cached_overhead_s``), as DiskSim's read-hit
  and write-hit overheads.

Queueing (the engine's job): one actuator; at most ``queue_depth`` commands in the drive (NCQ /
TCQ tags); the next media operation is the oldest (``scheduler = "fifo"``) or the one with the
shortest seek + rotational wait (``"sptf"``). With ``write_cache_entries > 0`` writes are
acknowledged once they hold a cache entry and the drive destages dirty entries later, in the
order ``destage`` says; when every entry is dirty a write waits for a destage to finish, so the
sustained rate of a write-cached disk is its destage rate at any queue depth (experiment E6).
Host reads go before destages unless the cache is full.

Read-ahead (``read_ahead_bytes`` > 0): after a media read the head goes on reading the sectors
that follow into the drive's buffer, at the media rate, while it has nothing else to do, and
stays up to ``read_ahead_bytes`` ahead of the host. A sequential reader whose next command
comes a little later (host overhead, a think time) then finds its data in the buffer instead
of waiting a whole revolution for the sector that just passed under the head. Reads of data
still in a dirty write-cache entry are answered from the buffer too. With
``read_free_blocks`` the segment also keeps the sectors of the target track that passed under
the head while a media read waited for its first sector (DiskSim's "Read any free blocks"), so
a later read a little before an earlier one (a backward step within the track) is a hit too.
With ``read_ahead_track_end`` the read-ahead stops at the end of the track (DiskSim's DEC
prefetch scheme): together the two make the segment a track buffer.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..spec import Spec, SpecError, fld
from ..units import UnitError, parse_time, show_size
from . import hdd_fit
from .base import DeviceFamily, FitModel, FitParameter, fit_base

__all__ = [
    "HddDevice",
    "hdd_geometry",
    "hdd_seek_s",
    "hdd_seek_coeffs",
    "hdd_seek_table_s",
    "hdd_mean_seek_s",
    "hdd_rotation_s",
    "hdd_rotational_wait_s",
    "hdd_move_s",
    "hdd_positioning_s",
    "hdd_locate",
    "hdd_track_position",
    "hdd_transfer_s",
    "hdd_free_bytes_before",
    "hdd_track_end_ahead",
]


# ---------------------------------------------------------------------------------------------
# pure physics
# ---------------------------------------------------------------------------------------------


def hdd_geometry(x, id_od_ratio: float):
    """Capacity fraction ``x`` (0 = first byte, at the OD) -> (cylinder fraction, rate factor).

    Sectors per track are proportional to the radius r, so the capacity outside radius r is
    proportional to r_out^2 - r^2. With ``rho = r_in / r_out = media_rate_id / media_rate_od``:
    r / r_out = sqrt(1 - x (1 - rho^2)); the cylinder fraction is (r_out - r) / (r_out - r_in)
    and the media rate is ``media_rate_od * r / r_out``.
    """
    rho = id_od_ratio
    if rho >= 1.0:
        x = np.asarray(x, dtype=float) if not np.isscalar(x) else float(x)
        return x, x * 0.0 + 1.0
    r = np.sqrt(1.0 - np.asarray(x, dtype=float) * (1.0 - rho * rho))
    cyl = (1.0 - r) / (1.0 - rho)
    if np.ndim(cyl) == 0:
        return float(cyl), float(r)
    return cyl, r


def hdd_seek_s(distance, track_to_track_s: float, sqrt_coef_s: float, lin_coef_s: float,
               knee_frac: float):
    """Seek time for a move of ``distance`` (fraction of all cylinders, 0..1); 0 for no move.

    ``track_to_track_s + sqrt_coef_s * sqrt(u)`` up to the knee, then a straight line of slope
    ``lin_coef_s`` per full stroke; continuous at the knee.
    """
    d = np.asarray(distance, dtype=float)
    short = np.sqrt(np.minimum(d, knee_frac))
    long_ = np.maximum(d - knee_frac, 0.0)
    t = np.where(d > 0.0, track_to_track_s + sqrt_coef_s * short + lin_coef_s * long_, 0.0)
    return float(t) if t.ndim == 0 else t


def hdd_seek_table_s(distance, table_frac, table_s):
    """Seek time for a move of ``distance`` (fraction of all cylinders) from a measured curve:
    linear interpolation between the points (``table_frac``, ``table_s``), the first point's
    time below it and the last one's beyond; 0 for no move."""
    d = np.asarray(distance, dtype=float)
    t = np.where(d > 0.0, np.interp(d, table_frac, table_s), 0.0)
    return float(t) if t.ndim == 0 else t


@functools.lru_cache(maxsize=256)
def _pair_moments(span_frac: float, id_od_ratio: float, knee_frac: float,
                  n: int = 1200) -> tuple[float, float]:
    """E[sqrt(min(d, k))] and E[max(d - k, 0)] for the cylinder distance d between two
    addresses drawn uniformly from the first ``span_frac`` of the capacity (midpoint rule)."""
    x = (np.arange(n) + 0.5) / n * span_frac
    cyl, _ = hdd_geometry(x, id_od_ratio)
    d = np.abs(cyl[:, None] - cyl[None, :])
    e_sqrt = float(np.sqrt(np.minimum(d, knee_frac)).mean())
    e_lin = float(np.maximum(d - knee_frac, 0.0).mean())
    return e_sqrt, e_lin


def hdd_seek_coeffs(track_to_track_s: float, avg_seek_s: float, full_stroke_s: float,
                    knee_frac: float, id_od_ratio: float) -> tuple[float, float]:
    """(sqrt_coef_s, lin_coef_s) of the seek curve that takes ``full_stroke_s`` over all
    cylinders and averages ``avg_seek_s`` over uniformly random pairs of addresses.

    Two linear equations: t2t + a sqrt(k) + b (1 - k) = full and t2t + a E[sqrt(min(d,k))] +
    b E[max(d-k, 0)] = avg. Raises ValueError when the three figures admit no increasing curve.
    """
    e_sqrt, e_lin = _pair_moments(1.0, float(id_od_ratio), float(knee_frac))
    k = knee_frac
    m = np.array([[math.sqrt(k), 1.0 - k], [e_sqrt, e_lin]])
    y = np.array([full_stroke_s - track_to_track_s, avg_seek_s - track_to_track_s])
    a, b = np.linalg.solve(m, y)
    if a < 0 or b < 0:
        # the feasible averages for this t2t and full stroke: b = 0 and a = 0 respectively
        lo = track_to_track_s + (full_stroke_s - track_to_track_s) * e_lin / (1.0 - k) \
            if k < 1 else track_to_track_s
        hi = track_to_track_s + (full_stroke_s - track_to_track_s) * e_sqrt / math.sqrt(k)
        lo, hi = min(lo, hi), max(lo, hi)
        raise ValueError(
            f"device.avg_seek_s must be between {lo * 1e3:.3g} ms and {hi * 1e3:.3g} ms for "
            f"track_to_track_s = {track_to_track_s * 1e3:.3g} ms and full_stroke_s = "
            f"{full_stroke_s * 1e3:.3g} ms, or the seek curve would not grow with distance "
            f"(got {avg_seek_s * 1e3:.4g} ms)"
        )
    return float(a), float(b)


def hdd_mean_seek_s(span_frac: float, track_to_track_s: float, sqrt_coef_s: float,
                    lin_coef_s: float, knee_frac: float, id_od_ratio: float) -> float:
    """Mean seek between two addresses drawn uniformly from the first ``span_frac`` of the
    disk (the short-stroking effect of a smaller span). Equals ``avg_seek_s`` at 1."""
    e_sqrt, e_lin = _pair_moments(float(min(max(span_frac, 1e-12), 1.0)), float(id_od_ratio),
                                  float(knee_frac))
    return track_to_track_s + sqrt_coef_s * e_sqrt + lin_coef_s * e_lin


def hdd_rotation_s(rpm: float, u):
    """Uniform rotational latency: a fraction ``u`` in [0, 1) of one revolution."""
    return u * 60.0 / rpm


def hdd_rotational_wait_s(target_angle, t_s, rpm: float):
    """Wait, at time ``t_s``, until ``target_angle`` passes under the head (angle 0 at t = 0)."""
    rev = 60.0 / rpm
    head = np.mod(t_s / rev, 1.0)
    w = np.mod(np.asarray(target_angle, dtype=float) - head, 1.0)
    # a target exactly under the head (the next block of a stream) must not lose a turn to
    # rounding: treat "a hair short of a full turn" as no wait
    w = np.where(w > 1.0 - 1e-6, 0.0, w) * rev
    return float(w) if w.ndim == 0 else w


def hdd_track_position(offset_bytes, capacity_bytes: float, id_od_ratio: float,
                       n_cylinders: int, heads: int):
    """Tracks from the OD to an address (``cylinder_fraction * n_cylinders * heads``): the
    integer part is the track, the fractional part the position along it."""
    c, _ = hdd_geometry(np.asarray(offset_bytes, dtype=float) / capacity_bytes, id_od_ratio)
    p = np.minimum(np.asarray(c) * n_cylinders * heads, n_cylinders * heads - 1e-9)
    return float(p) if np.ndim(p) == 0 else p


def hdd_locate(offset_bytes, capacity_bytes: float, id_od_ratio: float, n_cylinders: int,
               heads: int, head_skew: float, cyl_skew: float):
    """Where an address lives: (cylinder index, surface, angle in turns).

    Each track starts ``head_skew`` turns after the previous one (``cyl_skew`` when the arm
    moves to the next cylinder), so a sequential stream finds the next track's first block
    under the head after the switch.
    """
    p = hdd_track_position(offset_bytes, capacity_bytes, id_od_ratio, n_cylinders, heads)
    track = np.floor(p)
    cyl = np.floor(track / heads)
    surf = track - cyl * heads
    angle = np.mod(p - track + track * head_skew + cyl * (cyl_skew - head_skew), 1.0)
    if np.ndim(angle) == 0:
        return float(cyl), float(surf), float(angle)
    return cyl, surf, angle


def hdd_move_s(head_cyl: float, head_surf: float, target_cyl, target_surf, settle_s,
               n_cylinders: int, track_to_track_s: float, sqrt_coef_s: float, lin_coef_s: float,
               knee_frac: float, head_switch_s: float, table=None):
    """Arm movement to each target: the seek for another cylinder, a head switch for another
    surface of the same cylinder, nothing for the same track; plus ``settle_s`` (the write
    settle) after any move. Cylinders are indices; one target or an array of them. ``table``
    ((distance fractions, times)): a measured seek curve instead of the fitted one."""
    dcyl = np.abs(np.asarray(target_cyl, dtype=float) - head_cyl)
    moved = (dcyl > 0) | (np.asarray(target_surf) != head_surf)
    if table is not None:
        seek = hdd_seek_table_s(dcyl / n_cylinders, *table)
    else:
        seek = hdd_seek_s(dcyl / n_cylinders, track_to_track_s, sqrt_coef_s, lin_coef_s,
                          knee_frac)
    seek = np.where(dcyl > 0, seek, np.where(moved, head_switch_s, 0.0))
    out = np.where(moved, seek + settle_s, seek)
    return float(out) if out.ndim == 0 else out


def hdd_positioning_s(head_cyl: float, head_surf: float, t_s: float, target_cyl, target_surf,
                      target_angle, settle_s, rpm: float, n_cylinders: int,
                      track_to_track_s: float, sqrt_coef_s: float, lin_coef_s: float,
                      knee_frac: float, head_switch_s: float, table=None):
    """Time from ``t_s`` until the head is over the first byte of each target: the move
    (:func:`hdd_move_s`) plus the exact rotational wait after it. The key of
    shortest-positioning-time-first scheduling."""
    move = hdd_move_s(head_cyl, head_surf, target_cyl, target_surf, settle_s, n_cylinders,
                      track_to_track_s, sqrt_coef_s, lin_coef_s, knee_frac, head_switch_s,
                      table)
    return move + hdd_rotational_wait_s(target_angle, t_s + move, rpm)


def hdd_transfer_s(track_start: float, track_end: float, rpm: float):
    """Media transfer between two track positions (:func:`hdd_track_position`): the platter
    turns once per track, so the zoned media rate is implied by the geometry."""
    return (track_end - track_start) * 60.0 / rpm


# ---------------------------------------------------------------------------------------------
# spec
# ---------------------------------------------------------------------------------------------


#: the disk the fit models start from (``hdd-ncq``, and the members of ``raid``): a 7200 rpm
#: drive's seek curve (the fit scales it by the average seek and chooses the spindle speed,
#: :mod:`iosim.devices.hdd_fit`) reordering a 32-command queue
NCQ_DISK = {"rpm": 7200, "avg_seek_s": "9ms", "track_to_track_s": "1ms", "full_stroke_s": "18ms",
            "queue_depth": 32, "scheduler": "sptf"}


@dataclass(frozen=True, kw_only=True)
class HddDevice(DeviceFamily, Spec):
    """A hard disk drive. Defaults: the generic 7200 rpm SATA drive of experiment E5."""

    section = "device"
    kind: ClassVar[str] = "hdd"
    widget_controls: ClassVar[tuple[str, ...]] = ("scheduler",)
    degraded_field: ClassVar[str | None] = None  # no unit count to lower
    fit_parameters: ClassVar[tuple[FitParameter, ...]] = (*hdd_fit.DISK_FIT_PARAMETERS,
                                                          *hdd_fit.TRACE_DISK_PARAMETERS)
    fit_models: ClassVar[tuple[FitModel, ...]] = (
        FitModel("hdd",
                 "one head (one unit) with a mean positioning + transfer time, plus the host gap",
                 ("host.overhead", "device.service"),
                 fit_base({"kind": "generic", "units": 1, "service": "exp:8ms"}, "fit-hdd"),
                 {"device.service": (1e-4, 0.2)},
                 size_params=("device.media_rate_Bps",)),
        FitModel("hdd-ncq",
                 "the HDD family (a drive's geometry and seek curve) reordering its queue "
                 "shortest positioning time first; fitted by simulation: the seek, the host "
                 "gap, and the spindle speed chosen among 5,400, 7,200, 10,000 and 15,000 rpm",
                 hdd_fit.DISK_FIT_PARAMS,
                 fit_base({"kind": "hdd", **NCQ_DISK}, "fit-hdd-ncq", hba_queue_depth=32),
                 {"host.overhead": (0.0, 0.02)},
                 simulated=True, sim_ios=2000,  # the fast engine runs the disk: ms a point
                 auto="milliseconds", size_params=hdd_fit.DISK_SIZE_PARAMS),
    )

    capacity_bytes: float = fld(1000e9, "size")
    sector_bytes: float = fld(512, "size")
    rpm: float = fld(7200.0, "rpm")
    avg_seek_s: float = fld(0.009, "time")
    track_to_track_s: float = fld(0.0005, "time")
    full_stroke_s: float = fld(0.018, "time")
    seek_knee_frac: float = fld(0.15, "fraction")
    write_settle_s: float = fld(0.0, "time")
    heads: int = fld(4, "int")
    head_switch_s: float = fld(0.0, "time")
    media_rate_od_Bps: float = fld(175e6, "rate")
    media_rate_id_Bps: float = fld(83e6, "rate")
    interface_Bps: float = fld(600e6, "rate")
    overhead_s: float = fld(0.0, "time")
    rotation: str = fld("exact", "choice", choices=("exact", "uniform"))
    queue_depth: int = fld(32, "int")
    scheduler: str = fld("fifo", "choice", choices=("fifo", "sptf"))
    write_cache_entries: int = fld(0, "int")
    # est.: drives read ahead into a buffer segment after every read; 1 MiB is under one
    # track (a 175 MB/s track at 7200 rpm holds 1.46 MB). 0 turns read-ahead off.
    read_ahead_bytes: float = fld(1048576, "size")
    destage: str = fld("sptf", "choice", choices=("fifo", "sptf"))
    # a measured seek curve: ((distance in cylinders, time), ...), increasing distances; empty:
    # the two-piece curve fitted to track_to_track_s, avg_seek_s and full_stroke_s
    seek_curve: tuple = fld((), "any")
    # the cylinder count the curve's distances are counted in (0: this drive's n_cylinders)
    seek_curve_cylinders: int = fld(0, "int")
    # controller overhead of a read answered from the buffer / a write taken into the cache
    read_hit_overhead_s: float = fld(0.0, "time")
    write_cached_overhead_s: float = fld(0.0, "time")
    # keep in the read-ahead segment the sectors of the target track that pass under the head
    # during a media read's rotational wait (DiskSim's "Read any free blocks"); off: the
    # segment starts at the requested sector
    read_free_blocks: bool = fld(False, "bool")
    # read ahead to the end of the track after the request (one more track when the request
    # began on an earlier one), not read_ahead_bytes, and a buffer hit does not extend it
    # (DiskSim's "Buffer continuous read = 4", the DEC prefetch scheme, with "Read-ahead on
    # idle hit = 0"); off: read_ahead_bytes ahead of the host
    read_ahead_track_end: bool = fld(False, "bool")

    def __post_init__(self):
        object.__setattr__(self, "seek_curve", _parse_seek_curve(self.seek_curve))
        super().__post_init__()

    def validate(self):
        self.require(self.rpm > 0 and math.isfinite(self.rpm), "rpm", "> 0")
        self.require(self.sector_bytes >= 512 and self.sector_bytes % 512 == 0, "sector_bytes",
                     "a multiple of 512 bytes")
        self.require(math.isfinite(self.capacity_bytes) and self.capacity_bytes >= 1e6,
                     "capacity_bytes", "finite and at least 1 MB")
        self.require(self.track_to_track_s >= 0, "track_to_track_s", ">= 0 s")
        self.require(self.avg_seek_s >= self.track_to_track_s, "avg_seek_s",
                     ">= track_to_track_s")
        self.require(self.full_stroke_s >= self.avg_seek_s, "full_stroke_s", ">= avg_seek_s")
        self.require(0 < self.seek_knee_frac <= 1, "seek_knee_frac", "in (0, 1]")
        self.require(self.write_settle_s >= 0, "write_settle_s", ">= 0 s")
        self.require(self.heads >= 1, "heads", ">= 1")
        self.require(self.head_switch_s >= 0, "head_switch_s", ">= 0 s")
        self.require(0 < self.media_rate_od_Bps < math.inf, "media_rate_od_Bps",
                     "a finite rate > 0")
        self.require(0 < self.media_rate_id_Bps <= self.media_rate_od_Bps, "media_rate_id_Bps",
                     "> 0 and <= media_rate_od_Bps")
        self.require(self.interface_Bps > 0, "interface_Bps", "> 0 bytes/s")
        self.require(self.overhead_s >= 0, "overhead_s", ">= 0 s")
        self.require(self.read_hit_overhead_s >= 0, "read_hit_overhead_s", ">= 0 s")
        self.require(self.write_cached_overhead_s >= 0, "write_cached_overhead_s", ">= 0 s")
        self.require(self.seek_curve_cylinders >= 0, "seek_curve_cylinders",
                     ">= 0 (0: the drive's own cylinder count)")
        self.require(self.queue_depth >= 1, "queue_depth", ">= 1")
        self.require(self.write_cache_entries >= 0, "write_cache_entries", ">= 0")
        self.require(0 <= self.read_ahead_bytes < math.inf, "read_ahead_bytes",
                     "a finite size >= 0 (0: no read-ahead)")
        if self.rotation == "uniform" and (
            self.scheduler == "sptf" or (self.write_cache_entries and self.destage == "sptf")
        ):
            raise SpecError(
                "device.rotation must be 'exact' when device.scheduler or device.destage is "
                "'sptf': positioning time depends on the angular position (got 'uniform')"
            )
        try:
            a, b = hdd_seek_coeffs(self.track_to_track_s, self.avg_seek_s, self.full_stroke_s,
                                   self.seek_knee_frac, self.id_od_ratio)
        except ValueError as exc:
            raise SpecError(str(exc)) from None
        object.__setattr__(self, "_seek_ab", (a, b))

    # derived ----------------------------------------------------------------------------------
    @property
    def units(self) -> int:
        """One actuator: one request on the media at a time."""
        return 1

    @property
    def n_cylinders(self) -> int:
        """Capacity / (heads x mean bytes per track), the mean track holding (OD rate + ID
        rate) / 2 x one revolution: the geometry that makes the zoned media rates exact."""
        track = (self.media_rate_od_Bps + self.media_rate_id_Bps) / 2 * self.revolution_s
        return max(1, round(self.capacity_bytes / (self.heads * track)))

    @property
    def id_od_ratio(self) -> float:
        return self.media_rate_id_Bps / self.media_rate_od_Bps

    @property
    def revolution_s(self) -> float:
        return 60.0 / self.rpm

    @property
    def seek_coeffs(self) -> tuple[float, float]:
        """(sqrt_coef_s, lin_coef_s) of the calibrated seek curve."""
        return self._seek_ab

    def seek_table(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The measured seek curve as (distance fractions, times), or None."""
        if not self.seek_curve:
            return None
        cyl = self.seek_curve_cylinders or self.n_cylinders
        d = np.array([p[0] for p in self.seek_curve]) / cyl
        return d, np.array([p[1] for p in self.seek_curve])

    def seek_time_s(self, distance_frac):
        """Seek time for a move of ``distance_frac`` of all cylinders (table or fitted curve)."""
        table = self.seek_table()
        if table is not None:
            return hdd_seek_table_s(distance_frac, *table)
        return hdd_seek_s(distance_frac, *self.seek_params())

    def skews(self) -> tuple[float, float]:
        """(head skew, cylinder skew) in turns: the head switch (or one-cylinder seek) plus
        the write settle, so a sequential stream continues on the next track without a turn."""
        rev = self.revolution_s
        one_cyl = self.seek_time_s(1.0 / self.n_cylinders)
        return ((self.head_switch_s + self.write_settle_s) / rev,
                (one_cyl + self.write_settle_s) / rev)

    def stream_efficiency(self) -> float:
        """The fraction of time a long sequential stream spends transferring: each cylinder's
        ``heads`` tracks cost one revolution each plus the skews that hide the head and
        cylinder switches."""
        hs, cs = self.skews()
        return self.heads / (self.heads + (self.heads - 1) * hs + cs)

    def locate(self, offset_bytes):
        """(cylinder, surface, angle) of addresses: :func:`hdd_locate`."""
        return hdd_locate(offset_bytes, self.capacity_bytes, self.id_od_ratio, self.n_cylinders,
                          self.heads, *self.skews())

    def transfer_s(self, offset_bytes, size_bytes):
        """Media transfer time of ``size_bytes`` starting at ``offset_bytes``."""
        args = (self.capacity_bytes, self.id_od_ratio, self.n_cylinders, self.heads)
        start = hdd_track_position(offset_bytes, *args)
        end = hdd_track_position(np.asarray(offset_bytes) + size_bytes, *args)
        return hdd_transfer_s(start, end, self.rpm)

    def seek_params(self) -> tuple[float, float, float, float]:
        """(track_to_track_s, sqrt_coef_s, lin_coef_s, knee_frac) for :func:`hdd_seek_s`."""
        a, b = self._seek_ab
        return self.track_to_track_s, a, b, self.seek_knee_frac

    def mean_media_rate_Bps(self, span_bytes: float | None = None) -> float:
        """Harmonic-mean media rate over uniformly random addresses in the span."""
        span = self.capacity_bytes if span_bytes is None else min(span_bytes, self.capacity_bytes)
        x = (np.arange(512) + 0.5) / 512 * span / self.capacity_bytes
        _, r = hdd_geometry(x, self.id_od_ratio)
        return float(1.0 / np.mean(1.0 / (self.media_rate_od_Bps * r)))

    def mean_seek_s(self, span_bytes: float | None = None) -> float:
        """Mean seek between uniformly random addresses in the first ``span_bytes``."""
        span = self.capacity_bytes if span_bytes is None else min(span_bytes, self.capacity_bytes)
        table = self.seek_table()
        if table is not None:  # the curve's mean over uniformly random pairs (midpoint rule)
            x = (np.arange(600) + 0.5) / 600 * span / self.capacity_bytes
            cyl, _ = hdd_geometry(x, self.id_od_ratio)
            return float(hdd_seek_table_s(np.abs(cyl[:, None] - cyl[None, :]), *table).mean())
        return hdd_mean_seek_s(span / self.capacity_bytes, *self.seek_params()[:3],
                               self.seek_knee_frac, self.id_od_ratio)

    def random_service_s(self, size_bytes: float, span_bytes: float | None = None,
                         is_read: bool = True) -> float:
        """Mean service of one random request with no reordering (FIFO, any queue depth):
        command overhead + mean seek over the span + half a revolution + transfer."""
        settle = 0.0 if is_read else self.write_settle_s
        return (self.overhead_s + self.mean_seek_s(span_bytes) + settle
                + self.revolution_s / 2 + size_bytes / self.mean_media_rate_Bps(span_bytes))

    @property
    def state_bytes(self) -> float:
        """The fast engine's rows for queued commands and cached writes (8 floats and two
        indices each), the head and read-ahead state, and the disk's random stream (~2 KB)."""
        return 4096.0 + 80.0 * (self.queue_depth + self.write_cache_entries)

    @property
    def warmup_ios(self) -> int:
        """I/Os to run before measuring so that a write cache has filled (its steady state):
        twice the cache entries; 0 without a write cache."""
        return 2 * self.write_cache_entries

    def mean_service_s(self, size_bytes: float) -> float:
        """Mean time the actuator is held by a random request over the whole disk (FIFO)."""
        return self.random_service_s(size_bytes)

    # the fit's view of the disk (its seek, its spindle speed): iosim.devices.hdd_fit
    def fit_overrides(self, values, at: str = "device") -> dict:
        return hdd_fit.fit_overrides(self, values, at)

    def fit_starts(self, lowest_latency_s, n):
        return hdd_fit.fit_starts(self, lowest_latency_s, n)

    def fit_floor_s(self, size_bytes: float) -> float:
        return hdd_fit.fit_floor_s(self, size_bytes)

    def assumptions(self) -> list[str]:
        order = " (reorders the queue)" if self.scheduler != "fifo" else " (arrival order)"
        cache = self.write_cache_entries
        ra = self.read_ahead_bytes
        return [
            f"scheduler {self.scheduler}{order}",
            f"write cache {'off' if not cache else f'{cache} entries'}",
            f"read-ahead {'off' if not ra else show_size(ra)}",
        ]

    def unit_service_s(
        self, size_bytes: float, *, random: bool = True, span_bytes: float | None = None
    ) -> float | None:
        """FIFO random I/O over the span: the mean seek over it plus half a revolution; with
        reordering (SPTF) or sequential I/O only the command overhead and the transfer at the
        outer-zone rate are sure."""
        if self.scheduler != "fifo":
            return self._transfer_s(size_bytes)
        return self.alone_service_s(size_bytes, random=random, span_bytes=span_bytes)

    def _transfer_s(self, size_bytes: float) -> float:
        """The command overhead and the transfer at the outer-zone rate: no seek, no turn."""
        return self.overhead_s + size_bytes / self.media_rate_od_Bps

    def reorders(self, read_fraction: float = 1.0) -> bool:
        queue = self.scheduler == "sptf" and self.queue_depth > 1
        destage = read_fraction < 1 and self.write_cache_entries > 0 and self.destage == "sptf"
        return queue or destage

    def alone_service_s(
        self, size_bytes: float, *, random: bool = True, span_bytes: float | None = None
    ) -> float | None:
        """Alone, nothing to reorder: a random request pays the mean seek over the span and
        half a turn whatever the scheduler."""
        if not random:
            return self._transfer_s(size_bytes)
        return float(self.random_service_s(size_bytes, span_bytes))

    def alone_latency_s(
        self, size_bytes: float, *, random: bool = True, span_bytes: float | None = None,
        read_fraction: float = 1.0,
    ) -> float | None:
        """:meth:`alone_service_s`, and for reads the interface's lag: an interface slower
        than the media finishes moving the data ``size / interface - media transfer`` after
        the actuator is free (the mean media transfer over the span; the engines take each
        address's own zone rate)."""
        alone = self.alone_service_s(size_bytes, random=random, span_bytes=span_bytes)
        if alone is None or not math.isfinite(self.interface_Bps):
            return alone
        rate = self.mean_media_rate_Bps(span_bytes) if random else self.media_rate_od_Bps
        lag = max(0.0, size_bytes / self.interface_Bps - size_bytes / rate)
        return alone + read_fraction * lag

    def to_dict(self) -> dict:
        return {"kind": self.kind, **super().to_dict()}


def _parse_seek_curve(value) -> tuple:
    """[[cylinders, time], ...] (time in seconds or with a unit, "1.245ms") -> ((c, s), ...)."""
    if value is None or (isinstance(value, (list, tuple)) and not value):
        return ()
    expected = ("device.seek_curve must be a list of [distance in cylinders, time] pairs with "
                "increasing distances > 0 and times >= 0, e.g. [[1, '1.2ms'], [100, '3ms']]")
    if not isinstance(value, (list, tuple)):
        raise SpecError(f"{expected} (got {value!r})")
    out = []
    try:
        for pair in value:
            d, t = pair
            if isinstance(d, bool) or isinstance(t, bool):
                raise ValueError
            out.append((float(d), parse_time(t, "device.seek_curve")))
    except (UnitError, ValueError, TypeError):
        raise SpecError(f"{expected} (got {value!r})") from None
    ds = [d for d, _ in out]
    if ds[0] <= 0 or any(np.diff(ds) <= 0) or any(t < 0 for _, t in out):
        raise SpecError(f"{expected} (got {value!r})")
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# the same physics on one address at a time (plain math: the fast engine compiles these with
# numba; each gives, bit for bit, what the array functions above give for one element)
# ---------------------------------------------------------------------------------------------


def hdd_place_one(p: float, heads: float, head_skew: float, cyl_skew: float):
    """:func:`hdd_locate` of one address from its track position ``p``
    (:func:`hdd_track_position_one`): (cylinder, surface, angle)."""
    track = math.floor(p)
    cyl = math.floor(track / heads)
    surf = track - cyl * heads
    angle = (p - track + track * head_skew + cyl * (cyl_skew - head_skew)) % 1.0
    return cyl, surf, angle


def hdd_track_position_one(offset_bytes: float, capacity_bytes: float, id_od_ratio: float,
                           n_cylinders: float, heads: float) -> float:
    """:func:`hdd_track_position` of one address."""
    x = offset_bytes / capacity_bytes
    rho = id_od_ratio
    if rho >= 1.0:
        c = x
    else:
        c = (1.0 - math.sqrt(1.0 - x * (1.0 - rho * rho))) / (1.0 - rho)
    return min(c * n_cylinders * heads, n_cylinders * heads - 1e-9)


def hdd_interp_one(x: float, xp, fp) -> float:
    """``numpy.interp`` of one point (the same arithmetic: the slope of the segment, then
    ``slope * (x - xp[j]) + fp[j]``; the end values outside the table)."""
    n = len(xp)
    if x <= xp[0]:
        return fp[0]
    if x >= xp[n - 1]:
        return fp[n - 1]
    lo, hi = 0, n - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if xp[mid] <= x:
            lo = mid
        else:
            hi = mid
    if x == xp[lo]:
        return fp[lo]
    slope = (fp[lo + 1] - fp[lo]) / (xp[lo + 1] - xp[lo])
    return slope * (x - xp[lo]) + fp[lo]


def hdd_seek_one(d: float, track_to_track_s: float, sqrt_coef_s: float, lin_coef_s: float,
                 knee_frac: float) -> float:
    """:func:`hdd_seek_s` of one move of ``d`` > 0 (fraction of all cylinders)."""
    return (track_to_track_s + sqrt_coef_s * math.sqrt(min(d, knee_frac))
            + lin_coef_s * max(d - knee_frac, 0.0))


def hdd_rotational_wait_one(target_angle: float, t_s: float, rev: float) -> float:
    """:func:`hdd_rotational_wait_s` of one target, given the revolution ``rev`` = 60 / rpm
    (the bits :func:`hdd_rotational_wait_s` computes; callers in a loop divide once)."""
    # x - floor(x) is numpy.mod(x, 1.0) exactly (the fraction is representable), without fmod
    head = t_s / rev
    head = head - math.floor(head)
    w = target_angle - head
    w = w - math.floor(w)
    if w > 1.0 - 1e-6:
        w = 0.0
    return w * rev


# ---------------------------------------------------------------------------------------------
# the actuator's choice of work (both engines)
# ---------------------------------------------------------------------------------------------

HDD_IDLE, HDD_HOST, HDD_DESTAGE = -1, 0, 1


def hdd_next_source(queued: int, dirty: int, free_entries: int, entry_waiters: int) -> int:
    """What the actuator does next: ``HDD_IDLE`` (nothing to do), ``HDD_HOST`` (a host
    command) or ``HDD_DESTAGE`` (a dirty cache entry). Host commands go first unless every
    cache entry is dirty and a write waits for one."""
    if queued == 0 and dirty == 0:
        return HDD_IDLE
    cache_full = free_entries == 0 and entry_waiters > 0
    if queued > 0 and not (cache_full and dirty > 0):
        return HDD_HOST
    return HDD_DESTAGE


# ---------------------------------------------------------------------------------------------
# the read-ahead segment, as state in a float array (both engines: HddModel's ReadAhead wraps
# these; the fast engine compiles them)
# ---------------------------------------------------------------------------------------------

# [lo, hi): what was read by t0; limit: where the stream stops; rate; streaming, valid (0/1);
# size: how far ahead of the host it reads; before: the bytes the media read under way found
# in front of its first sector (``read_free_blocks``), for the segment it will start
# note_limit: where the read under way will stop reading ahead (``read_ahead_track_end``; 0:
# read_ahead_bytes past its end); fixed: 1 when the segment's limit came from it (a hit does
# not move it)
(RA_LO, RA_HI, RA_LIMIT, RA_T0, RA_RATE, RA_STREAMING, RA_VALID, RA_SIZE, RA_BEFORE,
 RA_NOTE_LIMIT, RA_FIXED) = range(11)
RA_FIELDS = 11


def hdd_track_end_ahead(p_first: float, p_after: float, size: float, xfer_s: float,
                        rev_s: float) -> float:
    """Bytes a read reads ahead with ``read_ahead_track_end``: to the end of the track of
    the first byte after it (track position ``p_after``), one more track when the read began
    on an earlier one (``p_first``), at the read's own rate (``size`` over ``xfer_s``)."""
    if not xfer_s > 0.0:
        return 0.0
    turns = math.floor(p_after) + 1.0 - p_after
    if math.floor(p_first) < math.floor(p_after):
        turns += 1.0
    return turns * rev_s * (size / xfer_s)


def read_ahead_note_limit(ra, limit: float) -> None:
    """The media read starting now will read ahead up to ``limit`` (a byte address)
    instead of ``read_ahead_bytes`` past its end; :func:`read_ahead_start` takes it."""
    ra[RA_NOTE_LIMIT] = limit


def hdd_free_bytes_before(track_pos: float, wait_s: float, rev_s: float, size: float,
                          xfer_s: float) -> float:
    """Bytes in front of a media read that pass under the head during its rotational wait
    ``wait_s`` and stay in the buffer (``read_free_blocks``): the head reads from where it
    lands on the target track up to the first requested sector, never past the track's start
    (``track_pos``: :func:`hdd_track_position_one`, its fraction the place along the track).
    The read's own rate (``size`` over ``xfer_s``) converts the time into bytes."""
    if not (wait_s > 0.0 and xfer_s > 0.0):
        return 0.0
    along = track_pos - math.floor(track_pos)
    return min(wait_s, along * rev_s) * (size / xfer_s)


def read_ahead_note_before(ra, before: float) -> None:
    """The media read starting now will also hold ``before`` bytes in front of its first
    sector (:func:`hdd_free_bytes_before`); :func:`read_ahead_start` takes them."""
    ra[RA_BEFORE] = before


def read_ahead_end(ra, now: float) -> float:
    """How far the segment reaches at ``now``."""
    if ra[RA_STREAMING] == 0.0:
        return ra[RA_HI]
    return min(ra[RA_LIMIT], ra[RA_HI] + (now - ra[RA_T0]) * ra[RA_RATE])


def read_ahead_start(ra, now: float, offset: float, size: float, rate: float) -> None:
    """A media read of [offset, offset + size) ended at ``now``: stream on from its end (the
    segment begins ``before`` bytes earlier when :func:`read_ahead_note_before` said so)."""
    before = ra[RA_BEFORE]
    limit = ra[RA_NOTE_LIMIT]
    ra[RA_BEFORE] = 0.0
    ra[RA_NOTE_LIMIT] = 0.0
    if ra[RA_SIZE] <= 0 or not 0 < rate < math.inf:
        return
    ra[RA_LO] = offset - before
    ra[RA_HI] = offset + size
    ra[RA_T0] = now
    ra[RA_RATE] = rate
    if limit > 0.0:
        ra[RA_LIMIT] = max(limit, ra[RA_HI])
        ra[RA_FIXED] = 1.0
    else:
        ra[RA_LIMIT] = ra[RA_HI] + ra[RA_SIZE]
        ra[RA_FIXED] = 0.0
    ra[RA_STREAMING] = 1.0
    ra[RA_VALID] = 1.0


def read_ahead_stop(ra, now: float) -> float:
    """The actuator turns to other work: freeze the segment; where the head got to (NaN: it
    was not streaming)."""
    if ra[RA_STREAMING] == 0.0:
        return math.nan
    ra[RA_HI] = min(ra[RA_LIMIT], ra[RA_HI] + (now - ra[RA_T0]) * ra[RA_RATE])
    ra[RA_STREAMING] = 0.0
    return ra[RA_HI]


def read_ahead_wait_s(ra, now: float, offset: float, size: float) -> float:
    """-1 for a miss; else how long until [offset, offset + size) is in the segment (0 for a
    hit). Waiting moves the limit along: the host is reading the stream."""
    streaming = ra[RA_STREAMING] != 0.0
    reach = ra[RA_HI]
    if streaming:
        reach = min(ra[RA_LIMIT], ra[RA_HI] + (now - ra[RA_T0]) * ra[RA_RATE])
    if ra[RA_VALID] == 0.0 or not ra[RA_LO] <= offset <= reach:
        return -1.0
    end = offset + size
    if end <= reach:
        wait = 0.0
    elif streaming:
        wait = (end - reach) / ra[RA_RATE]
    else:
        return -1.0
    if streaming:  # keep ``size`` bytes ahead of the host (unless the limit is fixed)
        ra[RA_HI] = reach
        ra[RA_T0] = now
        if ra[RA_FIXED] == 0.0:
            ra[RA_LIMIT] = max(ra[RA_LIMIT], end + ra[RA_SIZE])
    return wait


def read_ahead_invalidate(ra, offset: float, size: float) -> None:
    """A write over the segment (or what it will read) drops it."""
    if (ra[RA_VALID] != 0.0 and offset < max(ra[RA_LIMIT], ra[RA_HI])
            and offset + size > ra[RA_LO]):
        ra[RA_VALID] = 0.0
        ra[RA_STREAMING] = 0.0

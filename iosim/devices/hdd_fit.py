"""A disk as ``iosim fit`` sees it (the ``hdd-ncq`` model, and the member disks of ``raid``):
the parameters a fit moves, how they set a drive, where a fit starts and the latency no fit of
a given spindle speed can go below.

* The average seek, ``device.avg_seek_s``: the whole seek curve scales with it (track-to-track
  and full stroke keep their ratios to it).
* The spindle speed, ``device.rpm``: a discrete choice among the standard speeds
  (:data:`RPM_CHOICES`, the catalogue's HDD classes); the fit fits the seek and the host gap
  at each speed and keeps the best (:mod:`iosim.fit.choices`). A speed class is a seek class
  too (15,000 rpm drives have small platters and short strokes), so setting the speed alone
  moves the seek curve, shape kept, to the middle of the catalogue's published average seeks
  for that class (:func:`typical_seek_s`): where the fit at that speed starts.
* The floor: one request alone waits half a turn on average for its sector, whatever the
  seek (:func:`fit_floor_s`); a speed whose half turn is above the latency measured at one
  I/O in flight is not fitted.

These live apart from :mod:`iosim.devices.hdd` because the fast engine compiles that module's
physics in, and its compile cache is keyed on the file.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

from .base import FitParameter

__all__ = ["DISK_FIT_PARAMETERS", "DISK_FIT_PARAMS", "DISK_SIZE_PARAMS", "RPM_CHOICES",
           "TRACE_DISK_PARAMETERS", "TRACE_DISK_PARAMS",
           "fit_floor_s", "fit_overrides", "fit_starts", "typical_seek_s"]

#: the standard spindle speeds (the catalogue's HDD classes: 2.5-inch laptop drives, desktop
#: and nearline drives, enterprise 10k and 15k drives)
RPM_CHOICES = (5400.0, 7200.0, 10000.0, 15000.0)

DISK_FIT_PARAMETERS = (
    FitParameter("device.avg_seek_s", 5e-4, 0.03, True, False, "s",
                 "a disk's average random seek; the whole seek curve (track-to-track, full "
                 "stroke) scales with it"),
    FitParameter("device.rpm", RPM_CHOICES[0], RPM_CHOICES[-1], False, False, "rpm",
                 "a disk's spindle speed, one of the standard speeds (half a turn is the mean "
                 "rotational wait; with the seek it sets what reordering the queue gains); the "
                 "seek and the host gap are fitted at each and the data choose",
                 choices=RPM_CHOICES),
    FitParameter("device.media_rate_od_Bps", 10e6, 600e6, True, False, "B/s",
                 "a disk's media rate in its outer zone; the inner zone's keeps its ratio to "
                 "it (fitted when the fitted points' block sizes differ: the transfer term)"),
)

#: what a block trace's measured response times also tell of a disk (``iosim.fit.trace``):
#: requests the drive's buffer answers, reads ahead of a sequential reader and writes taken
#: into its cache, cost the transfer over its bus and a controller overhead, not a seek. Its
#: capacity is not fitted: it is the trace's highest address (the disk is at least that large)
TRACE_DISK_PARAMETERS = (
    FitParameter("device.interface_Bps", 1e6, 2e9, True, False, "B/s",
                 "the drive's bus transfer rate: a buffer hit or a cached write costs its size "
                 "over it (a 1990s SCSI bus: a few MB/s; SATA: 600 MB/s)"),
    FitParameter("device.hit_overhead_s", 1e-6, 5e-3, True, False, "s",
                 "the drive controller's time for a read answered from its buffer or a write "
                 "taken into its cache"),
    FitParameter("device.write_cache_entries", 0.0, 16.0, False, True, "",
                 "the drive's write-back cache: 0 (off: every write goes to the media) or 16 "
                 "writes held and destaged later; the data choose",
                 choices=(0.0, 16.0)),
    FitParameter("device.capacity_bytes", 1e6, 1e15, True, False, "B",
                 "the disk's capacity, over which its seek curve spans: the trace's highest "
                 "address, not fitted"),
)

#: the parameters a trace fit of a disk adds to the model's (capacity is set, not fitted)
TRACE_DISK_PARAMS = ("device.interface_Bps", "device.hit_overhead_s",
                     "device.write_cache_entries")

#: the parameters the ``hdd-ncq`` and ``raid`` models fit by default
DISK_FIT_PARAMS = ("host.overhead", "device.avg_seek_s", "device.rpm")

#: the terms of a disk that grow with the request's size (``FitModel.size_params``)
DISK_SIZE_PARAMS = ("device.media_rate_od_Bps",)

#: the seek curve's figures, scaled together
_SEEK_FIGURES = ("avg_seek_s", "track_to_track_s", "full_stroke_s")


@functools.lru_cache(maxsize=16)
def typical_seek_s(rpm: float) -> float | None:
    """The middle of the catalogue's published average seeks for disks of ``rpm`` (None for a
    speed the catalogue has no class for)."""
    from .. import catalogue

    try:
        lo, hi = catalogue.plausible_range("hdd_avg_seek_s", rpm=rpm)
    except ValueError:
        return None
    return (lo + hi) / 2


def fit_overrides(disk, values: Mapping[str, float], at: str) -> dict:
    """The dotted overrides (under ``at``) that set ``disk`` (an HddDevice) to the fit's
    ``values``: the spindle speed, and the seek curve scaled to the average seek given, or to
    the speed's typical seek when only the speed is given."""
    out: dict = {}
    seek = values.get("device.avg_seek_s")
    if "device.rpm" in values:
        rpm = float(values["device.rpm"])
        out[f"{at}.rpm"] = rpm
        if seek is None:
            seek = typical_seek_s(rpm)
    if seek is not None:
        k = seek / disk.avg_seek_s  # the seek curve keeps its shape
        out.update({f"{at}.{f}": getattr(disk, f) * k for f in _SEEK_FIGURES})
    rate = values.get("device.media_rate_od_Bps")
    if rate is not None:  # the zones keep their ratio
        out[f"{at}.media_rate_od_Bps"] = float(rate)
        out[f"{at}.media_rate_id_Bps"] = float(rate) * disk.media_rate_id_Bps \
            / disk.media_rate_od_Bps
    for key in ("interface_Bps", "capacity_bytes"):
        if f"device.{key}" in values:
            out[f"{at}.{key}"] = float(values[f"device.{key}"])
    if "device.hit_overhead_s" in values:  # a buffer hit's and a cached write's alike
        out[f"{at}.read_hit_overhead_s"] = out[f"{at}.write_cached_overhead_s"] = \
            float(values["device.hit_overhead_s"])
    if "device.write_cache_entries" in values:
        out[f"{at}.write_cache_entries"] = int(round(values["device.write_cache_entries"]))
    return out


def fit_starts(disk, lowest_latency_s: float | None, n: int) -> list[dict[str, float]]:
    """The disk's seek as given, and the lowest depth's latency less half a turn."""
    seeks = [disk.avg_seek_s]
    if lowest_latency_s:
        seeks.append(max(1e-3, lowest_latency_s / max(1, n) - disk.revolution_s / 2))
    return [{"device.avg_seek_s": s} for s in seeks]


def fit_floor_s(disk, size_bytes: float) -> float:
    """The least mean latency of one random request alone on ``disk``: the command overhead,
    half a turn (the mean wait for the sector under any seek) and the transfer at the outer
    zone's rate. Read-ahead hits could go below it only for a span a few segments long."""
    return disk.overhead_s + disk.revolution_s / 2 + size_bytes / disk.media_rate_od_Bps

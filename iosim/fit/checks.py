"""Diagnostics of a fit: training points missed beyond the run-to-run spread, implausible
parameters, and what was assumed where the data are silent.

The plausibility bounds live in one table, :data:`PLAUSIBLE`, each with the physical reason and
the source of its numbers, so that a fitted value outside them is reported with that reason
("a 7200 rpm disk seeking 27 ms on average") instead of being taken as a measurement.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .catalogue import PARAMETERS

#: the run-to-run spread of IOPS assumed when the data have no repeats: repeated runs of the
#: same fio job on the corpus's SSDs and disks differ by about this much (measured in issue 13)
DEFAULT_SPREAD = 0.08


@dataclass(frozen=True)
class Plausible:
    """The range a fitted parameter of a model family can physically take."""

    model: str
    param: str
    lo: float
    hi: float
    why: str  # what a value outside means
    source: str  # where the numbers come from


#: a fitted value may sit this far outside the published range before it is called implausible
#: (the catalogue's ranges are data-sheet figures; a fit absorbs some host and queueing time)
MARGIN = 0.25


def _from_catalogue() -> tuple[Plausible, ...]:
    """The disk and NAND bounds, from the sourced catalogue that check-claim uses (one source
    of physical truth): the union of its HDD classes and NAND cells, widened by MARGIN."""
    from .. import catalogue

    cat = catalogue.load()
    disks = [m for m in cat.media.values() if m.family == "hdd" and m.rpm]
    seeks = [catalogue.plausible_range("hdd_avg_seek_s", rpm=m.rpm) for m in disks]
    services = [catalogue.plausible_range("hdd_qd1_service_s", rpm=m.rpm) for m in disks]
    nand = [m for m in cat.media.values() if m.family == "nand"]
    reads = [cat.figure(m.read).range for m in nand if m.read]
    programs = [cat.figure(m.program).range for m in nand if m.program]

    def cited(names) -> str:
        keys = sorted({k for n in names for k in cat.figure(n).sources})
        return "catalogue: " + "; ".join(cat.sources[k].cite() for k in keys)

    lo, hi = 1 - MARGIN, 1 + MARGIN
    rpms = sorted(int(m.rpm) for m in disks)
    seek_lo, seek_hi = min(r[0] for r in seeks), max(r[1] for r in seeks)
    svc_lo, svc_hi = min(r[0] for r in services), max(r[1] for r in services)
    die_lo, die_hi = min(r[0] for r in reads), max(r[1] for r in programs)
    span = f"{rpms[0]:,}-{rpms[-1]:,} rpm"
    sata_lo = catalogue.plausible_range("link_Bps", interface="sata")[0]
    return (
        Plausible("hdd-ncq", "device.avg_seek_s", seek_lo * lo, seek_hi * hi,
                  f"{span} disks seek {seek_lo * 1e3:.1f}-{seek_hi * 1e3:.1f} ms on average; "
                  "outside that the fit is absorbing something else (a cache, a RAID, a short "
                  "span, an SSD)", cited(m.seek for m in disks)),
        Plausible("raid", "device.avg_seek_s", seek_lo * lo, seek_hi * hi,
                  f"the array's member disks ({span}) seek {seek_lo * 1e3:.1f}-"
                  f"{seek_hi * 1e3:.1f} ms on average; outside that the fit is absorbing "
                  "something else (a cache, another member count, a short span, SSD members)",
                  cited(m.seek for m in disks)),
        Plausible("hdd", "device.service", svc_lo * lo, svc_hi * hi,
                  f"one random I/O on one disk costs a seek plus half a turn: "
                  f"{svc_lo * 1e3:.1f}-{svc_hi * 1e3:.1f} ms ({span}); outside that it is not "
                  "one disk in order", cited(m.seek for m in disks)),
        Plausible("ssd", "device.die_service_s", die_lo * lo, die_hi * hi,
                  f"a die holds a request for a NAND array read or program "
                  f"({die_lo * 1e6:.0f} us-{die_hi * 1e3:.1f} ms); much less is a cache hit or a "
                  "buffered write, not a die",
                  cited([*(m.read for m in nand if m.read), *(m.program for m in nand
                                                            if m.program)])),
        # the slowest host link a drive has: SATA at 3 Gb/s, half the catalogue's 6 Gb/s lane
        # (the same 8b/10b encoding at half the line rate): a slower cap is not the link
        Plausible("ssd", "device.host_interface_Bps", sata_lo / 2 * lo, math.inf,
                  f"a slower transfer cap than any host link (SATA 3 Gb/s carries "
                  f"{sata_lo / 2e6:.0f} MB/s, SATA 6 Gb/s {sata_lo / 1e6:.0f} MB/s, PCIe and "
                  "SAS more) is not the link: it is a cost per command on the path (a RAID "
                  "controller's command rate, interrupt handling, the host's CPUs)",
                  cited(["sata3_lane_Bps"])),
    )


PLAUSIBLE: tuple[Plausible, ...] = (
    *_from_catalogue(),
    Plausible("ssd", "device.dies", 1, 1024,
              "no SSD has this many dies (Intel 750: 12 channels x 40 = 480); the data show a "
              "cap without collisions, not dies",
              "SimpleSSD config intel750_400gb.cfg"),
    Plausible("ssd", "device.controller_overhead_s", 0.0, 200e-6,
              "a controller overhead above a whole NVMe 4 KiB read at depth 1 (about 85 us) is "
              "host or virtualisation time",
              "Lenovo Press product guide, Intel P4500 NVMe SSDs (QD1 read about 85 us)"),
    Plausible("cloud", "device.latency_s", 20e-6, 20e-3,
              "a network volume's floor is 0.1-0.2 ms (ESSD) to single-digit ms (gp3)",
              "Alibaba Cloud ESSD docs (about 0.2 ms); AWS EBS gp3 docs (single-digit ms)"),
)


def spread_of(points: Sequence) -> tuple[float, str]:
    """The run-to-run spread of IOPS (relative) and where it comes from: repeats in the data
    (points with the same workload measured more than once: the largest deviation from their
    mean), else :data:`DEFAULT_SPREAD`."""
    groups: dict[tuple, list[float]] = {}
    for p in points:
        if "iops" not in p.measured:
            continue
        wl = p.workload
        key = (wl.outstanding, wl.numjobs, wl.rw, wl.mean_block_bytes)
        groups.setdefault(key, []).append(p.measured["iops"])
    devs = []
    for vals in groups.values():
        if len(vals) > 1:
            mean = sum(vals) / len(vals)
            devs.extend(abs(v / mean - 1) for v in vals)
    if devs:
        return max(max(devs), 0.01), f"from {len(devs)} repeated measurements in the data"
    return DEFAULT_SPREAD, ("assumed: the data have no repeats, and repeated fio runs on "
                            "such devices differ by about that much")


def missed_training_points(rows: Sequence[Mapping], spread: float, source: str) -> list[str]:
    """A warning for every fitted point the verified model misses by more than the spread
    (IOPS) or 1.5 x the spread (mean latency, which adds the host's noise)."""
    out = []
    # a sweep of sizes or mixes: the point is named by what varies too
    varies = [k for k in ("block_size_bytes", "rwmixread")
              if len({r.get(k) for r in rows}) > 1]
    for r in rows:
        if r["set"] != "fit":
            continue
        bad = []
        for m, tol in (("iops", spread), ("lat_mean_s", 1.5 * spread)):
            e = r["error"].get(m)
            if e is not None and abs(e) > 100 * tol:
                bad.append(f"{'IOPS' if m == 'iops' else 'mean latency'} {e:+.0f} %")
        if bad:
            why = f"{spread:.0%}, {source}" if not out else f"{spread:.0%}"
            what = "".join(f" {r[k] / 1024:g} KiB" if k == "block_size_bytes" else
                           f" {r[k]:g} % reads" for k in varies if r.get(k) is not None)
            out.append(
                f"fitted point{what} at {r['outstanding']} outstanding I/Os is missed beyond the "
                f"run-to-run spread ({why}): {', '.join(bad)}; the model does not follow this "
                "point"
            )
    return out


def mixed_and_missed(rows: Sequence[Mapping], spread: float) -> list[str]:
    """One warning when the fitted points mix workloads (read shares or sizes) and the model
    misses two or more of them beyond the spread: one set of parameters follows neither, so
    each workload is better fitted on its own (a device whose writes answer faster than its
    reads at one I/O in flight, yet cap lower: a write cache, which no family has beside
    flash reads)."""
    fit_rows = [r for r in rows if r["set"] == "fit"]
    kinds = {(r.get("rwmixread"), r.get("block_size_bytes")) for r in fit_rows}
    if len(kinds) < 2:
        return []
    missed = [r for r in fit_rows if any(
        (e := r["error"].get(m)) is not None and abs(e) > 100 * tol
        for m, tol in (("iops", spread), ("lat_mean_s", 1.5 * spread)))]
    if len(missed) < 2:
        return []
    rws = sorted({str(r.get("rw")) for r in fit_rows if r.get("rw")})
    only = f"--only rw={rws[0]}" if len(rws) > 1 else "--only rwmixread=... or bs=..."
    return [f"the fitted points mix {len(kinds)} workloads and the model misses "
            f"{len(missed)} of them beyond the run-to-run spread: one set of parameters follows "
            f"none of them well; fit each workload on its own ({only}, and so on)"]


def implausible(model: str, values: Mapping[str, float], fmt) -> list[str]:
    """Warnings for fitted values outside :data:`PLAUSIBLE` (``fmt(value, unit)`` formats)."""
    out = []
    for b in PLAUSIBLE:
        if b.model != model or b.param not in values:
            continue
        v = values[b.param]
        if b.lo <= v <= b.hi:
            continue
        unit = PARAMETERS[b.param].unit or ""
        span = f"{fmt(b.lo, unit)} .. {fmt(b.hi, unit)}" if math.isfinite(b.hi) else \
            f"at least {fmt(b.lo, unit)}"
        out.append(
            f"{b.param} = {fmt(v, unit)} is implausible for the {model} family (plausible "
            f"{span}): {b.why} [{b.source}]"
        )
    return out


def host_cap(values: Mapping[str, float], points: Sequence, fmt) -> list[str]:
    """A host overhead that by itself caps IOPS below a measured point: each job's CPU issues
    at most 1 / overhead I/Os per second (numjobs / overhead in all; min(numjobs, host.cpus) /
    overhead when the host's CPUs are a fitted pool)."""
    z = values.get("host.overhead")
    if not z or z <= 0:
        return []
    out = []
    cpus = round(values.get("host.cpus", math.inf)) if "host.cpus" in values else math.inf
    for p in points:
        x = p.measured.get("iops")
        if x is None:
            continue
        cap = min(p.workload.numjobs, cpus) / z
        if cap < 0.98 * x:
            on = f" on {cpus:g} host CPU(s)" if cpus < p.workload.numjobs else ""
            out.append(
                f"host.overhead = {fmt(z, 's')}{on} caps {p.workload.numjobs} job(s) at "
                f"{cap:.4g} IOPS, below the {x:.4g} measured at {p.n} outstanding I/Os: "
                "implausible (the overhead is absorbing device time)"
            )
    return out


def assumed_span(model: str, points: Sequence, base_stack) -> list[str]:
    """Say what was assumed when the data do not give the region the offsets fell in (a raw
    device): for a disk the seek distances follow from it."""
    if model not in ("hdd", "hdd-ncq", "raid"):
        return []
    missing = [p for p in points if "span_bytes" not in (p.results.params or {})]
    if not missing:
        return []
    span = missing[0].workload.span_bytes
    cap = base_stack.device.capacity_bytes  # the family interface: None when it has no size
    of_disk = ""
    if cap and math.isfinite(cap) and cap > 0:
        what = "array's" if model == "raid" else "disk's"
        of_disk = f", {min(span / cap, 1.0):.0%} of the model {what} capacity"
    return [
        f"the data do not say the span of the offsets (a raw device?): assumed "
        f"{span / 2**30:.4g} GiB{of_disk}; the fitted seek time is for that span"
    ]


# -- the shape of the measured sweep ---------------------------------------------------------
#
# In a closed network of product-form stations whose service rates do not fall as their queues
# grow (single servers, pools, delays, caps: every family of the catalogue), throughput is a
# nondecreasing and concave function of the number of requests in the loop (J. G. Shanthikumar
# and D. D. Yao, "Second-order properties of the throughput of a closed queueing network",
# Mathematics of Operations Research 13(3), 1988). A measured sweep that falls as I/Os are
# added, or dips below the line between its neighbours, by more than the run-to-run spread,
# was shaped by something no such model has (CPU contention of a shared host, a cache that
# stops helping, a device changing mode): a fit passes near those points only by accident.


def _closed_sweeps(points: Sequence) -> list[list[tuple[int, float]]]:
    """The closed-loop points of each workload, as (outstanding, mean IOPS) sorted by depth
    (repeats at one depth averaged)."""
    groups: dict[tuple, dict[int, list[float]]] = {}
    for p in points:
        wl = p.workload
        x = p.measured.get("iops")
        if x is None or wl.open_loop:
            continue
        key = (wl.rw, wl.read_fraction, wl.mean_block_bytes, wl.thinktime_s)
        groups.setdefault(key, {}).setdefault(wl.outstanding, []).append(x)
    return [sorted((n, sum(v) / len(v)) for n, v in g.items()) for g in groups.values()]


def shape_findings(points: Sequence, spread: float) -> list[tuple]:
    """The points of closed-loop sweeps no queueing model of the catalogue follows: ``("dip",
    n, iops, n0, n1, chord)`` for IOPS below the chord of the neighbours at n0 and n1, and
    ``("fall", n, iops, peak_n, peak_iops)`` for IOPS below an earlier peak, each by more
    than ``spread`` (see the note above). The lowest depth's left neighbour is the origin (no
    I/Os, no throughput; concavity through it is IOPS per outstanding I/O never rising, i.e.
    the mean latency never falling as I/Os are added): a lowest depth below that chord
    (``n0 == 0``) was slowed by something that waits only when the device is nearly idle
    (a completion timer, interrupt moderation, a power state)."""
    out: list[tuple] = []
    for sweep in _closed_sweeps(points):
        peak_n, peak_x = None, -math.inf
        padded = [(0, 0.0), *sweep]
        for j, (n, x) in enumerate(sweep):
            if peak_n is not None and x < (1 - spread) * peak_x:
                out.append(("fall", n, x, peak_n, peak_x))
            if x > peak_x:
                peak_n, peak_x = n, x
            if j < len(sweep) - 1:
                (n0, x0), (n1, x1) = padded[j], padded[j + 2]
                chord = x0 + (x1 - x0) * (n - n0) / (n1 - n0)
                if x1 > x0 and x < (1 - spread) * chord:
                    out.append(("dip", n, x, n0, n1, chord))
    return out


def sweep_shape(points: Sequence, spread: float, source: str) -> list[str]:
    """Warnings for :func:`shape_findings`: such points are not the output of any queueing
    model the fit has, so no fit predicts them."""
    found = shape_findings(points, spread)
    out = []
    for _, n, x, _n0, n1, chord in (f for f in found if f[0] == "dip" and f[3] == 0):
        out.append(
            f"the measured IOPS at {n} outstanding I/Os ({x:,.0f}) lie {1 - x / chord:.0%} "
            f"below the line from zero to their neighbour at {n1} ({chord:,.0f}), beyond the "
            f"run-to-run spread ({spread:.0%}): the mean latency fell as I/Os were added, "
            "which no queueing model of the catalogue does, so none passes through this "
            "point (something made the device wait only when nearly idle: a completion "
            "timer, interrupt moderation, a power state)")
    for _, n, x, n0, n1, chord in (f for f in found if f[0] == "dip" and f[3] > 0):
        out.append(
            f"the measured IOPS at {n} outstanding I/Os ({x:,.0f}) lie {1 - x / chord:.0%} "
            f"below the line between their neighbours at {n0} and {n1} ({chord:,.0f}), beyond "
            f"the run-to-run spread ({spread:.0%}): a closed queueing network's throughput is "
            "concave in the I/Os it holds, so no model of the catalogue passes through this "
            "point (the device or host changed behaviour between these depths)")
    falls = [f for f in found if f[0] == "fall"]
    if falls:
        pn, px = falls[0][3:5]
        listed = ", ".join(f"{x:,.0f} at {n} ({x / p - 1:+.0%})" for _, n, x, _, p in falls)
        out.append(
            f"the measured IOPS fall from {px:,.0f} at {pn} outstanding I/Os to {listed}, "
            f"beyond the run-to-run spread ({spread:.0%}): a closed queueing network's "
            "throughput does not fall as I/Os are added, so no model of the catalogue "
            "follows these points (a resource the model does not have, such as the host's "
            "CPUs shared by more threads than cores, shaped them)")
    if out:
        out[0] += f" [spread {source}]"
    return out


def rare_long_waits(points: Sequence) -> list[str]:
    """A warning when a point's measured mean latency exceeds its own 99th percentile: fewer
    than 1 % of its I/Os hold most of the waiting, in long waits. A FIFO queue (every family
    of the catalogue) spreads its waiting over the I/Os, so there the fitted percentiles are
    the mean's, far above the measured ones. Seen on data/measured_zram (psync, 4..16 jobs on
    two CPUs: mean 24 us, p99 4 us): the kernel's scheduler runs each job for a time slice of
    many I/Os, and only the I/O in flight when a job is preempted waits."""
    from .points import rare_long_waits as concentrated

    hit = [(p.workload.outstanding, p.measured["lat_mean_s"], p.measured["lat_p99_s"])
           for p in points if concentrated(p)]
    if not hit:
        return []
    listed = ", ".join(f"{n} ({m * 1e6:.3g} us against {q * 1e6:.3g} us)"
                       for n, m, q in sorted(hit)[:4]) + (", ..." if len(hit) > 4 else "")
    return [f"the mean latency exceeds the 99th percentile at {len(hit)} point"
            f"{'s' if len(hit) > 1 else ''} (outstanding I/Os {listed}): fewer than 1 % of the "
            "I/Os hold most of the waiting, in long waits, where every model of the catalogue "
            "queues in FIFO order and spreads it over them; the means and IOPS still follow, "
            "the predicted percentiles there are the mean's, and the service variability is "
            "not fitted to them (such waits come from time slices, more threads than CPUs "
            "each running for a slice of many I/Os, or from stalls: a flush, a garbage "
            "collection)"]


def host_cpu_pool(points: Sequence, spread: float) -> tuple[float, float, str] | None:
    """Whether a fit should add the host's CPUs as a shared pool (``host.cpus``): when
    :func:`host_cpu` finds the jobs contending for CPUs on these points and more than one job
    shares the host. Returns (lower bound, upper bound, the note saying what was assumed) or
    None.

    The bounds: fio's JSON does not give the host's cores. The benchmark itself kept as many
    CPUs busy at once as its usr + sys time says, so the host has at least that many (rounded
    up); a pool as large as the most jobs measured is no limit at all."""
    jobs = max((p.workload.numjobs for p in points if not p.workload.open_loop), default=1)
    if jobs < 2 or not host_cpu(points, spread):
        return None
    busy = max(((p.results.counters or {}).get("cpu_pct") or 0.0) / 100 for p in points)
    lo = max(1.0, float(math.ceil(busy - 1e-9)))
    if lo >= jobs:
        return None
    note = (f"host.cpus: the jobs contend for the host's CPUs (their CPU time per I/O grows), "
            f"so the host's CPUs are tried as a pool shared by the jobs' overhead; the data do "
            f"not give the host's cores: assumed {lo:g} .. {jobs} (the benchmark kept {busy:.2g} "
            "CPUs busy at once; a pool as large as the jobs is no limit)")
    return lo, float(jobs), note


def host_cpu(points: Sequence, spread: float) -> list[str]:
    """A warning when the benchmark's own CPU time per I/O (fio's usr + sys, where the file
    has it) grows with the I/Os in flight beyond twice the spread: the jobs contend for the
    host's CPUs (context switches once they outnumber the cores, lock and cache contention),
    a resource no family of the catalogue has, so the cap may be the host's, not the
    device's."""
    by_workload: dict[tuple, list[tuple[int, float, float]]] = {}
    for p in points:
        cpu, x = (p.results.counters or {}).get("cpu_pct"), p.measured.get("iops")
        if cpu is None or not x or cpu <= 0 or p.workload.open_loop:
            continue
        wl = p.workload  # (a larger I/O costs more CPU: compare depths of one workload)
        by_workload.setdefault((wl.rw, wl.read_fraction, wl.mean_block_bytes), []).append(
            (wl.outstanding, cpu / 100 / x, cpu / 100))
    for per_io in by_workload.values():
        found = _cpu_growth(per_io, spread)
        if found:
            return found
    return []


def _cpu_growth(per_io: list[tuple[int, float, float]], spread: float) -> list[str]:
    """:func:`host_cpu`'s finding on the points of one workload."""
    if len({t[0] for t in per_io}) < 2:
        return []
    per_io.sort()
    n0, c0, _ = per_io[0]
    n1, c1, _ = max(per_io[1:], key=lambda t: t[1])
    if c1 <= c0 * (1 + 2 * spread):
        return []
    busy = max(t[2] for t in per_io)
    return [
        f"the benchmark's CPU time per I/O (user + system) grows from {c0 * 1e6:.3g} us at "
        f"{n0} outstanding I/Os to {c1 * 1e6:.3g} us at {n1} ({c1 / c0 - 1:+.0%}), its jobs "
        f"keeping up to {busy:.2g} CPUs busy: they contend for the host's CPUs, which no model "
        "of the catalogue has, so what caps IOPS here may be the host rather than the device"
    ]

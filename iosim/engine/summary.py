"""Results from a finished run of either engine (both expose the same recorder shape).

Lives in the engine layer so the compiled engine can build Results without importing
``iosim.simulate``; ``simulate`` uses it for both engines.
"""

from __future__ import annotations

from ..results import Results
from ..spec import SpecError
from .recorder import LogHist

__all__ = ["results_of", "fill_latency"]


def results_of(sim) -> Results:
    """Results of a finished run (``sim`` has ``rec``, ``t_end`` and the I/O counters)."""
    rec = sim.rec
    t = sim.t_end
    span = t - rec.t_start
    n = rec.lat.n
    if not span > 0:
        raise SpecError(
            f"the measured window has zero length ({n} I/Os all completed at one instant); "
            "measure more I/Os (ios) or use a random service time"
        )
    units = rec.units
    r = Results(
        iops=n / span,
        read_iops=rec.n_read / span,
        write_iops=rec.n_write / span,
        bandwidth_Bps=rec.bytes_done / span,
        ios=n,
        sim_time_s=span,
        aqu_sz=rec.block_out.mean(t),
        util=min(1.0, rec.below_out.busy_fraction(t)),
        unit_util=rec.busy_units.mean(t) / units,
        qd_mean=rec.host_out.mean(t),
        device_qd_mean=rec.device_out.mean(t),
        block_iops=rec.block_done / span,
        avgrq_bytes=rec.block_bytes / rec.block_done if rec.block_done else None,
        iops_ci95=rec.batches.throughput_ci95(),
        lat_mean_ci95_s=rec.batches.latency_ci95(),
        lat_p50_ci95_s=rec.batches.percentile_ci95(50),
        lat_p90_ci95_s=rec.batches.percentile_ci95(90),
        lat_p99_ci95_s=rec.batches.percentile_ci95(99),
        qd_dist=rec.host_out.distribution(),
    )
    fill_latency(r, rec.lat, rec.lat_read, rec.lat_write, rec.block_lat, rec.device_lat)
    r.counters = {
        "issued": sim.issued,
        "completed": sim.completed,
        "in_flight": sim.issued - sim.completed,
        "duplicates": sim.duplicates,
        "failovers": sim.failovers,
        "device_completions": rec.device_done,
    }
    device_counters = getattr(sim.device, "counters", None)
    if device_counters:
        r.counters["device"] = dict(device_counters)
    # Little's law per layer, measured: throughput of the layer and its mean latency
    r.extra["layers"] = {
        "host": {"outstanding": r.qd_mean, "throughput": r.iops, "latency_s": r.lat_mean_s},
        "block": {
            "outstanding": r.aqu_sz,
            "throughput": r.block_iops,
            "latency_s": r.block_lat_mean_s,
        },
        "device": {
            "outstanding": r.device_qd_mean,
            "throughput": rec.device_done / span,
            "latency_s": r.device_lat_mean_s,
        },
    }
    return r


def fill_latency(
    r: Results, lat: LogHist, lat_read: LogHist, lat_write: LogHist, block: LogHist, device: LogHist
) -> None:
    r.lat_mean_s = lat.mean
    names = ("p50", "p90", "p95", "p99", "p999", "p9999")
    for name, value in zip(names, lat.percentiles((50, 90, 95, 99, 99.9, 99.99)), strict=True):
        setattr(r, f"lat_{name}_s", value)
    r.lat_max_s = lat.max if lat.n else None
    r.read_lat_mean_s = lat_read.mean if lat_read.n else None
    r.write_lat_mean_s = lat_write.mean if lat_write.n else None
    r.block_lat_mean_s = block.mean
    r.device_lat_mean_s = device.mean if device.n else None
    r.device_lat_p99_s = device.percentile(99) if device.n else None

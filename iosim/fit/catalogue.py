"""The catalogue of a fit: the parameters it can move (:data:`PARAMETERS`) and the model
families (:data:`MODELS`), each a base stack with the parameters fitted by default."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..stack import Stack

__all__ = ["MODELS", "PARAMETERS", "SERVICE_PARAMS", "Model", "ParamDef", "service_means"]

# -- the parameters a fit can move ---------------------------------------------------------


@dataclass(frozen=True)
class ParamDef:
    """A fittable stack parameter: its dotted key, range, scale and meaning."""

    name: str
    lo: float
    hi: float
    log: bool
    integer: bool
    unit: str
    doc: str


PARAMETERS: dict[str, ParamDef] = {
    p.name: p
    for p in (
        ParamDef(
            "host.overhead",
            0.0,
            0.05,
            False,
            False,
            "s",
            "host time between a completion and the job's next issue (mean)",
        ),
        ParamDef(
            "host.cpus",
            1.0,
            4096.0,
            True,
            True,
            "",
            "CPUs the jobs share for their host overhead (a pool; fitted when the benchmark's "
            "CPU time per I/O grows with the I/Os in flight)",
        ),
        ParamDef(
            "device.service",
            1e-7,
            1.0,
            True,
            False,
            "s",
            "mean service time of one device unit (the latency floor of the device)",
        ),
        ParamDef(
            "device.units",
            1.0,
            4096.0,
            True,
            True,
            "",
            "parallel units of the device (dies, heads, a cloud pool)",
        ),
        ParamDef(
            "device.service.scv",
            0.01,
            25.0,
            True,
            False,
            "",
            "squared coefficient of variation of the service time (fitted to percentiles)",
        ),
        ParamDef(
            "device.avg_seek_s",
            5e-4,
            0.03,
            True,
            False,
            "s",
            "a disk's average random seek; the whole seek curve (track-to-track, full stroke) "
            "scales with it",
        ),
        ParamDef(
            "hba.queue_depth",
            1.0,
            4096.0,
            True,
            True,
            "",
            "outstanding requests admitted below the host per path (an HBA / LUN cap)",
        ),
        ParamDef(
            "link.latency_s",
            0.0,
            0.1,
            False,
            False,
            "s",
            "fixed delay each way (half the latency floor of a network volume)",
        ),
        ParamDef(
            "device.dies",
            1.0,
            2048.0,
            True,
            True,
            "",
            "flash dies an SSD spreads random I/O over (each request queues at the die its "
            "address maps to)",
        ),
        ParamDef(
            "device.die_service_s",
            1e-7,
            0.1,
            True,
            False,
            "s",
            "mean time a request holds its die (array read or program plus transfer)",
        ),
        ParamDef(
            "device.die_read_s",
            1e-7,
            0.1,
            True,
            False,
            "s",
            "mean time a read holds its die (fitted apart from writes when the data mix them)",
        ),
        ParamDef(
            "device.die_write_s",
            1e-7,
            0.1,
            True,
            False,
            "s",
            "mean time a write holds its die (fitted apart from reads when the data mix them)",
        ),
        ParamDef(
            "device.controller_overhead_s",
            0.0,
            0.01,
            False,
            False,
            "s",
            "an SSD controller's fixed time per command (firmware, doorbell, completion); "
            "holds nothing",
        ),
        ParamDef(
            "device.host_interface_Bps",
            1e6,
            1e12,
            True,
            False,
            "B/s",
            "an SSD's host interface (PCIe / SATA link and data path), one transfer at a time "
            "per direction",
        ),
        ParamDef(
            "device.latency_s",
            1e-6,
            0.1,
            True,
            False,
            "s",
            "a cloud volume's latency floor (network and back end), mean",
        ),
        ParamDef(
            "device.iops_limit",
            1.0,
            1e8,
            True,
            False,
            "",
            "a cloud volume's IOPS cap: a token bucket refilling at this rate",
        ),
        ParamDef(
            "device.read_iops_limit",
            1.0,
            1e8,
            True,
            False,
            "",
            "a cloud volume's cap on reads (its own bucket, or a share of one budget)",
        ),
        ParamDef(
            "device.write_iops_limit",
            1.0,
            1e8,
            True,
            False,
            "",
            "a cloud volume's cap on writes (its own bucket, or a share of one budget)",
        ),
        ParamDef(
            "link.bandwidth_Bps",
            1e3,
            1e12,
            True,
            False,
            "B/s",
            "transfer rate per path and direction: a rate cap of bandwidth / block size IOPS",
        ),
    )
}

#: the device fields (its family's ``service_fields``) each service-time parameter sets, from
#: the most general to the most specific (a read's own time overrides the die's)
SERVICE_PARAMS: dict[str, tuple[str, ...]] = {
    "device.service": ("service",),
    "device.die_service_s": ("read_s", "program_s"),
    "device.die_read_s": ("read_s",),
    "device.die_write_s": ("program_s",),
}


def service_means(device, values: dict) -> dict[str, float]:
    """The mean of each of ``device``'s service fields once ``values`` are set (a field no
    value sets keeps its own mean)."""
    means = {f: getattr(device, f).mean_s for f in device.service_fields}
    for name, fields in SERVICE_PARAMS.items():
        if name in values:
            means.update({f: float(values[name]) for f in fields if f in means})
    return means


_SIM_ONLY = {"device.service.scv"}
_NO_LIMIT = 65536  # queue depth / nr_requests meaning "no limit" in the models' base stacks


@dataclass(frozen=True)
class Model:
    """A family of stacks to calibrate: a base stack and the parameters fitted by default."""

    name: str
    doc: str
    params: tuple[str, ...]
    base: dict
    bounds: dict = field(default_factory=dict)
    # fitted by simulating the device family itself (no analytic surrogate)
    simulated: bool = False
    # the surrogate's optimum polished by least squares on simulated points (the surrogate is
    # close, not exact, for the family's own model: deterministic transfers, address mapping)
    polish: bool = False
    # I/Os per point of each simulation inside a simulated fit (common random numbers keep the
    # objective smooth; the verifying runs use ``ios``)
    sim_ios: int = 1000

    def stack(self) -> Stack:
        return Stack.from_dict(self.base)


def _base(device: dict, link: dict | None = None, name: str = "") -> dict:
    out = {
        "name": name,
        "host": {"overhead": "0"},
        "block": {"nr_requests": _NO_LIMIT},
        "hba": {"queue_depth": _NO_LIMIT},
        "device": {"kind": "generic", **device},
    }
    if link:
        out["link"] = link
    return out


MODELS: dict[str, Model] = {
    m.name: m
    for m in (
        Model(
            "generic",
            "K identical units behind one queue, plus the host overhead",
            ("host.overhead", "device.service", "device.units"),
            _base({"units": 1, "service": "exp:100us"}, name="fit-generic"),
        ),
        Model(
            "ssd",
            "the flash SSD family: K dies, each request queued at the die its address maps to "
            "(random routing: collisions), a controller overhead per command, the host "
            "interface's transfer cap and the host gap",
            ("host.overhead", "device.die_service_s", "device.dies",
             "device.controller_overhead_s", "device.host_interface_Bps"),
            {
                "name": "fit-ssd",
                "host": {"overhead": "0"},
                "block": {"nr_requests": _NO_LIMIT},
                "hba": {"queue_depth": _NO_LIMIT},
                "device": {"kind": "ssd", "channels": 16, "dies_per_channel": 1,
                           "planes_per_die": 1, "page_bytes": "256KiB",
                           "read_s": "exp:80us", "program_s": "exp:80us",
                           "channel_rate_Bps": 1e15, "controller_overhead_s": "10us",
                           "gc": False, "write_buffer_bytes": 0},
            },
            {"device.die_service_s": (1e-6, 0.05), "host.overhead": (0.0, 0.01)},
            polish=True,
        ),
        Model(
            "ssd-pool",
            "a pool of parallel flash units behind one queue and a transfer cap (the generic "
            "approximation of an SSD: a sharp knee)",
            ("host.overhead", "device.service", "device.units", "link.bandwidth_Bps"),
            _base({"units": 16, "service": "exp:80us"}, name="fit-ssd-pool"),
            {"device.service": (1e-6, 0.01), "device.units": (1.0, 4096.0)},
        ),
        Model(
            "hdd",
            "one head (one unit) with a mean positioning + transfer time, plus the host gap",
            ("host.overhead", "device.service"),
            _base({"units": 1, "service": "exp:8ms"}, name="fit-hdd"),
            {"device.service": (1e-4, 0.2)},
        ),
        Model(
            "hdd-ncq",
            "the HDD family (a 7200 rpm drive's geometry and seek curve) reordering its queue "
            "shortest positioning time first; fitted by simulation: the seek, the host gap",
            ("host.overhead", "device.avg_seek_s"),
            {
                "name": "fit-hdd-ncq",
                "host": {"overhead": "0"},
                "block": {"nr_requests": _NO_LIMIT},
                "hba": {"queue_depth": 32},
                "device": {"kind": "hdd", "rpm": 7200, "avg_seek_s": "9ms",
                           "track_to_track_s": "1ms", "full_stroke_s": "18ms",
                           "queue_depth": 32, "scheduler": "sptf"},
            },
            {"host.overhead": (0.0, 0.02)},
            simulated=True,
            sim_ios=2000,  # the fast engine runs the disk: ms a point
        ),
        Model(
            "raid",
            "an md RAID of HDD-family disks, each reordering its own 32-command queue "
            "shortest positioning time first; the members from the input, the level from "
            "their read counts (RAID 1/10 with md's read balancing when mirrors sit idle at "
            "one I/O in flight, else RAID 0: each read at the member its address maps to); "
            "fitted by simulation of the array: the member's seek, the host gap",
            ("host.overhead", "device.avg_seek_s"),
            {
                "name": "fit-raid",
                "host": {"overhead": "0"},
                "block": {"nr_requests": _NO_LIMIT},
                "hba": {"queue_depth": _NO_LIMIT},
                "device": {"kind": "raid", "level": "0", "members": 4,
                           "member": {"kind": "hdd", "rpm": 7200, "avg_seek_s": "9ms",
                                      "track_to_track_s": "1ms", "full_stroke_s": "18ms",
                                      "queue_depth": 32, "scheduler": "sptf"}},
            },
            {"host.overhead": (0.0, 0.02)},
            simulated=True,
            sim_ios=2000,  # the fast engine runs the array: ms a point
        ),
        Model(
            "cloud",
            "the cloud volume family: a latency floor (network and back end, many I/Os in "
            "flight at once) behind a token bucket capping IOPS, and the host gap",
            ("host.overhead", "device.latency_s", "device.iops_limit"),
            {
                "name": "fit-cloud",
                "host": {"overhead": "0"},
                "block": {"nr_requests": _NO_LIMIT},
                "hba": {"queue_depth": _NO_LIMIT},
                "device": {"kind": "cloud", "latency": "lognormal:500us,scv=0.25",
                           "units": 4096, "iops_limit": 1e6},
            },
            {"host.overhead": (0.0, 0.01)},
            polish=True,
        ),
    )
}

"""The catalogue of a fit: the parameters it can move (:data:`PARAMETERS`) and the model
families (:data:`MODELS`), each a base stack with the parameters fitted by default. Both are
gathered from the device families' declarations (``fit_parameters``, ``fit_models`` in
``iosim/devices/``); only the stack's own parameters (host, HBA, link) are listed here."""

from __future__ import annotations

from dataclasses import dataclass

from ..devices import DEVICE_KINDS
from ..devices.base import FitModel, FitParameter
from ..stack import Stack

__all__ = ["MODELS", "PARAMETERS", "SERVICE_PARAMS", "Model", "ParamDef", "service_means"]

# -- the parameters a fit can move ---------------------------------------------------------

#: a fittable stack parameter (the device's are declared by their family)
ParamDef = FitParameter

#: the stack's own parameters; each device family declares its fields' (``fit_parameters``)
_STACK_PARAMETERS = (
    ParamDef("host.overhead", 0.0, 0.05, False, False, "s",
             "host time between a completion and the job's next issue (mean)"),
    ParamDef("host.cpus", 1.0, 4096.0, True, True, "",
             "CPUs the jobs share for their host overhead (a pool; fitted when the benchmark's "
             "CPU time per I/O grows with the I/Os in flight)"),
    ParamDef("hba.queue_depth", 1.0, 4096.0, True, True, "",
             "outstanding requests admitted below the host per path (an HBA / LUN cap)"),
    ParamDef("link.latency_s", 0.0, 0.1, False, False, "s",
             "fixed delay each way (half the latency floor of a network volume)"),
    ParamDef("link.bandwidth_Bps", 1e3, 1e12, True, False, "B/s",
             "transfer rate per path and direction: a rate cap of bandwidth / block size IOPS"),
)

PARAMETERS: dict[str, ParamDef] = {
    p.name: p for p in (*_STACK_PARAMETERS,
                        *(q for fam in DEVICE_KINDS.values() for q in fam.fit_parameters))
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


@dataclass(frozen=True)
class Model(FitModel):
    """A family of stacks to calibrate (as its device family declares it, :class:`FitModel`):
    a base stack and the parameters fitted by default."""

    def stack(self) -> Stack:
        return Stack.from_dict(self.base)


#: every device family's fit models, in the order the families are registered
MODELS: dict[str, Model] = {
    m.name: Model(**vars(m)) for fam in DEVICE_KINDS.values() for m in fam.fit_models
}

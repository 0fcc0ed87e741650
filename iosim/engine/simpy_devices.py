"""SimPy plumbing for each device family: queues and units around the shared physics.

A device model has ``serve(req)``, a generator that returns when the device has finished the
request, and reports units entering and leaving service through ``recorder.unit_busy``. The
service times come from the pure functions in ``iosim.devices``.
"""

from __future__ import annotations

from collections.abc import Callable

import simpy

from ..devices import generic_service_s

__all__ = ["make_device", "GenericModel", "SIMPY_MODELS"]


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
            yield self.env.timeout(generic_service_s(base, req.size, spec.media_rate_Bps))
            self.rec.unit_busy(-1)


SIMPY_MODELS: dict[str, Callable] = {"generic": GenericModel}


def make_device(env, spec, streams, recorder):
    model = SIMPY_MODELS.get(spec.kind)
    if model is None:
        raise ValueError(f"device.kind {spec.kind!r} has no SimPy model")
    return model(env, spec, streams, recorder)

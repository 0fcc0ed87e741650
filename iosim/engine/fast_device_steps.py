"""The device's boundary on the fast engine: the generic device's and the cloud volume's unit
(FIFO for a unit, the service drawn and held: ``GenericModel`` and the end of
``CloudModel.serve``), a resource's Release event, and an attempt leaving the device (the
device's pauses, the Recorder's device figures, then back up the link): event steps over
typed state (:data:`Device`).

An attempt's arrival (``K_DEV_ARRIVE``) stays in the kernel (:mod:`iosim.engine.fast`): it
hands the attempt to its family's serve (the HDD's, RAID's, the array's, the SSD's, the
cloud's token buckets), whose steps only the kernel variant with that family has. The kernel
calls :func:`device_step` for the block's other events (``K_DEV_FIRST`` .. ``K_DEV_LAST``);
it is inlined there before typing, and the kernel is compiled without SSA renaming, so every
integer constant a step assigns to a name that takes other values is ``I(...)``, an int64.
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np

from ..dists import EMPIRICAL, sample_args
from . import (
    fast_cache,  # noqa: F401  (the cache locator, before the functions are decorated)
    pauses,
)
from .fast_codes import (
    DEV_CLOUD,
    H_DEVICE,
    K_DEV_ARRIVE,
    K_DEV_DONE,
    K_DEV_FINISHED,
    K_DEV_FIRST,
    K_DEV_GO,
    K_DEV_GRANT,
    K_DEV_LAST,
    K_DEV_PAUSED,
    K_DEV_QUEUE,
    K_LU_GRANT,
    K_LU_LATSTEP,
    K_RELEASE,
    KB,
    L_BUSY,
    L_DEVICE,
    N_DEVICE,
    R_USERS,
)
from .fast_core import res_trigger, unmanaged
from .fast_stats import hist_add, hist_bucket
from .fast_steps import contended, level, release, sample, service_s
from .jit import compiled_with

I = np.int64  # noqa: E741  (an integer that is not a constant to numba's typing)

# the pauses' draw, compiled (inlined: compiled apart, the two functions cost the set-up's
# compile a few seconds)
pause_delay_s = compiled_with(pauses.pause_delay_s, {
    "sample_args": compiled_with(sample_args, {"sample_code": sample}, inline="always")},
    inline="always")

#: the device's numbers: its family; the service distribution (code, two numbers, samples when
#: empirical) and the writes' (a cloud volume's write latency); the media rate and the
#: contention stretch; the units' resource; the link back up (finite: its first resource);
#: the pauses (on, the schedule [start, end], samples, code, rate, two numbers); each attempt's
#: arrival at the device
Device = namedtuple("Device", (
    "devkind", "svc_code", "svc_a", "svc_b", "svc_samples", "svc2_code", "svc2_a", "svc2_b",
    "svc2_samples", "media", "contention", "r_units", "link_finite", "r_link0", "pauses_on",
    "pz", "pz_samples", "pz_code", "pz_rate", "pz_a", "pz_b", "at_tdev"))


@numba.njit(inline="always")
def new_device(devkind, svc, svc2, media, contention, r_units, link_finite, r_link0,
               pauses_on, pz_samples, pz_code, pz_rate, pz_a, pz_b, atcap, keep):
    """The device's state: ``svc`` and ``svc2`` are (code, a, b, samples) of the service and
    of the writes' service; no pause scheduled yet; views kept alive by ``keep``."""
    return Device(devkind, svc[0], svc[1], svc[2], svc[3], svc2[0], svc2[1], svc2[2], svc2[3],
                  media, contention, r_units, link_finite, r_link0, pauses_on,
                  unmanaged(np.full(2, -1.0), keep), unmanaged(pz_samples, keep), pz_code,
                  pz_rate, pz_a, pz_b, unmanaged(np.zeros(atcap), keep))


@numba.njit(inline="always")
def draw_service(dev, second, rng):
    """A service time from the device's distribution, or (``second``) the writes'."""
    if second:
        if dev.svc2_code == EMPIRICAL:
            return dev.svc2_samples[rng.integers(0, dev.svc2_samples.shape[0])]
        return sample(dev.svc2_code, dev.svc2_a, dev.svc2_b, rng)
    if dev.svc_code == EMPIRICAL:
        return dev.svc_samples[rng.integers(0, dev.svc_samples.shape[0])]
    return sample(dev.svc_code, dev.svc_a, dev.svc_b, rng)


@numba.njit(inline="always")
def device_step(k, x, now, act, a_delay, a_code, a_res, measuring, ev, lvs, rec, dev, ats,
                rng_dev, rng_pause):
    """Step ``k`` of the device's boundary for attempt ``x`` (``K_RELEASE``: for resource
    ``x``), ``measuring`` or not; the kernel dispatches the next. Returns the next step (-1:
    the process waits; -2: an unknown step; ``K_LU_LATSTEP``: back up the link) and what it
    waits on (``act`` 1: a timeout of ``a_delay``; 2: resource ``a_res``; resuming at
    ``a_code``)."""
    if K_DEV_FIRST <= k <= K_DEV_LAST and k != K_DEV_ARRIVE:  # (one step)
        if k == K_DEV_GRANT:  # ---- a unit starts service
            level(lvs, L_BUSY, now, 1)
            cloud = dev.devkind == DEV_CLOUD
            base = draw_service(dev, cloud and not ats.at_read[x], rng_dev)
            act, a_code = I(1), (x << KB) | K_DEV_DONE
            if cloud:  # CloudModel: latency floor + size / media rate
                a_delay = base + ats.at_size[x] / dev.media
            else:  # GenericModel: the hold, stretched by the units busy (contention)
                a_delay = contended(service_s(base, ats.at_size[x], dev.media),
                                    dev.contention, ev.res[dev.r_units, R_USERS])
            k = I(-1)
        elif k == K_DEV_DONE:
            level(lvs, L_BUSY, now, -1)
            release(ev, dev.r_units)
            k = I(K_DEV_FINISHED)
        elif k == K_RELEASE:
            res_trigger(ev.res, ev.rq, x, ev.fq, ev.ctl)
            k = I(-1)
        elif k == K_DEV_QUEUE or k == K_DEV_GO:
            act, a_res, a_code = I(2), dev.r_units, (x << KB) | K_DEV_GRANT
            k = I(-1)
        elif k == K_DEV_FINISHED and dev.pauses_on and pause_delay_s(
                now, dev.pz, dev.pz_rate, dev.pz_code, dev.pz_a, dev.pz_b, dev.pz_samples,
                rng_pause) > 0.0:
            # a pause holds the completion until it ends (the delay: pz[1] - now)
            act, a_delay, a_code = I(1), dev.pz[1] - now, (x << KB) | K_DEV_PAUSED
            k = I(-1)
        elif k == K_DEV_FINISHED or k == K_DEV_PAUSED:
            level(lvs, L_DEVICE, now, -1)
            if measuring:
                dt = now - dev.at_tdev[x]
                hist_add(rec.hist, rec.hn, rec.hf, H_DEVICE, dt, hist_bucket(dt))
                rec.cnt[N_DEVICE] += 1
            if dev.link_finite and ats.at_read[x]:
                act, a_res = I(2), dev.r_link0 + 2 * ats.at_path[x] + 1
                a_code = (x << KB) | K_LU_GRANT
                k = I(-1)
            else:
                k = I(K_LU_LATSTEP)
        else:  # an unknown step: a bug
            k = I(-2)
    return k, act, a_delay, a_code, a_res

"""When the device's completions are held by a pause: one plain function, called by the
reference engine's path attempt and compiled into the fast engine.

A stack's ``[pauses]`` (``stack.PauseSpec``) makes the device stop answering now and then: the
pauses start at the times of a Poisson process of ``rate_hz`` (the gap from one pause's end to
the next one's start is exponential) and last ``duration`` each. A request whose device
service ends inside a pause completes when the pause ends; the device's units go on serving
what they hold (a host whose I/O thread is descheduled, an SSD's firmware housekeeping, a
network volume's brief stall: the requests wait at the device's exit). One pause holds every
request that finishes during it, so the share of requests it delays grows with the number
outstanding: the tail of a deep queue widens, while a single outstanding request rarely meets
one. The schedule comes from its own stream (``streams["pauses"]``), drawn in order as the
clock passes each pause, so it is the same whatever the workload does.
"""

from __future__ import annotations

from ..dists import sample_args

__all__ = ["pause_delay_s", "new_schedule"]


def new_schedule():
    """The schedule's state before its first pause is drawn: [start, end] of the current or
    next pause (end < 0: none drawn yet)."""
    import numpy as np

    return np.full(2, -1.0)


def pause_delay_s(now, pz, rate_hz, code, a, b, samples, rng):
    """How long a completion at ``now`` waits for the pause that holds it (0.0 when no pause
    is on). ``pz``: the schedule's state (:func:`new_schedule`), advanced past ``now``;
    ``rate_hz``: pauses per second; ``code, a, b, samples``: the duration distribution as
    ``dists.dist_args`` gives it; ``rng``: the pauses' stream."""
    if pz[1] < 0.0:  # the first pause
        pz[0] = rng.exponential(1.0 / rate_hz)
        pz[1] = pz[0] + sample_args(code, a, b, samples, rng)
    while pz[1] <= now:
        pz[0] = pz[1] + rng.exponential(1.0 / rate_hz)
        pz[1] = pz[0] + sample_args(code, a, b, samples, rng)
    if pz[0] <= now:
        return pz[1] - now
    return 0.0

"""Which path multipath grants next: one plain function, called by the reference engine's
``Multipath`` and compiled into the fast engine (``fast_multipath``).

Policies: round-robin (the first free path after the last one chosen), queue-length (the
fewest outstanding requests) and service-time (the fewest outstanding bytes: the paths share
one link speed); ties go to the first free path in round-robin order. A path is free when it is
alive and holds fewer than the HBA queue depth.
"""

from __future__ import annotations

__all__ = ["ROUND_ROBIN", "QUEUE_LENGTH", "SERVICE_TIME", "POLICY_CODES", "pick_path"]

ROUND_ROBIN, QUEUE_LENGTH, SERVICE_TIME = 0, 1, 2
POLICY_CODES = {"round-robin": ROUND_ROBIN, "queue-length": QUEUE_LENGTH,
                "service-time": SERVICE_TIME}


def pick_path(p_alive, p_out, p_bytes, rr, qd, policy):
    """The path granted next, scanning from ``rr`` (per path: alive, outstanding requests,
    outstanding bytes), or -1 when none is free."""
    npaths = p_alive.shape[0]
    best = -1
    for kk in range(npaths):
        i = rr + kk
        if i >= npaths:
            i -= npaths
        if p_alive[i] and p_out[i] < qd:
            if best < 0:
                best = i
                if policy == ROUND_ROBIN:
                    break
            elif policy == QUEUE_LENGTH:
                if p_out[i] < p_out[best]:
                    best = i
            elif p_bytes[i] < p_bytes[best]:
                best = i
    return best

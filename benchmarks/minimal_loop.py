"""The floor for a closed-loop event simulation in numba, to hold iosim's fast engine against.

The simplest stack iosim runs: N jobs of depth 1, no host overhead, no HBA limit, no link, a
device of K identical units with exponential service behind one FIFO queue. This module is the
least code that simulates it and still measures what iosim measures (mean latency): a binary
heap of completion times, a FIFO ring of waiting requests, one draw per I/O. Nothing of
iosim's is used, so the ratio (iosim's fast engine / this) says what iosim's generality costs.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def _push(heap_t, heap_u, n, t, u):
    i = n
    heap_t[i] = t
    heap_u[i] = u
    while i > 0:
        p = (i - 1) >> 1
        if heap_t[p] <= heap_t[i]:
            break
        heap_t[p], heap_t[i] = heap_t[i], heap_t[p]
        heap_u[p], heap_u[i] = heap_u[i], heap_u[p]
        i = p
    return n + 1


@numba.njit(cache=True)
def _pop(heap_t, heap_u, n):
    t, u = heap_t[0], heap_u[0]
    n -= 1
    heap_t[0], heap_u[0] = heap_t[n], heap_u[n]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and heap_t[c + 1] < heap_t[c]:
            c += 1
        if heap_t[i] <= heap_t[c]:
            break
        heap_t[c], heap_t[i] = heap_t[i], heap_t[c]
        heap_u[c], heap_u[i] = heap_u[i], heap_u[c]
        i = c
    return t, u, n


@numba.njit(cache=True)
def closed_loop(jobs: int, units: int, mean_s: float, ios: int, rng) -> tuple[float, float]:
    """Simulate ``ios`` completions; return (IOPS, mean latency in seconds)."""
    heap_t = np.empty(units, np.float64)  # completion time of each busy unit
    heap_u = np.empty(units, np.float64)  # issue time of the request it serves
    n = 0
    queue = np.empty(jobs, np.float64)  # issue times of waiting requests (a ring)
    head = 0
    size = 0
    now = 0.0
    for _ in range(jobs):  # every job issues at time 0
        if n < units:
            n = _push(heap_t, heap_u, n, now + rng.exponential(mean_s), now)
        else:
            queue[(head + size) % jobs] = now
            size += 1
    total = 0.0
    for _ in range(ios):
        now, issued, n = _pop(heap_t, heap_u, n)
        total += now - issued
        # the job issues its next request at once; a free unit takes the head of the queue
        queue[(head + size) % jobs] = now
        size += 1
        start = queue[head]
        head = (head + 1) % jobs
        size -= 1
        n = _push(heap_t, heap_u, n, now + rng.exponential(mean_s), start)
    return ios / now, total / ios

"""The engines' contract, shared by the equivalence tests: the same stack, workload and seed
give Results equal field for field on SimPy and on the fast engine."""

import math
from dataclasses import fields

from iosim.engine.fast import run_fast
from iosim.engine.simpy_engine import run_simpy
from iosim.engine.summary import results_of


def both(stack, wl, *, ios, warmup_ios, seed):
    """(SimPy's Results, the fast engine's Results) of one run."""
    ref = results_of(run_simpy(stack, wl, ios=ios, warmup_ios=warmup_ios, seed=seed))
    fast = run_fast(stack, wl, ios=ios, warmup_ios=warmup_ios, seed=seed)
    return ref, fast


def differences(a, b) -> list:
    """The fields in which two Results differ (NaN equals NaN; which engine ran is not a
    difference)."""
    out = []
    for f in fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y):
            continue
        if f.name != "engine" and x != y:
            out.append((f.name, x, y))
    return out

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


def assert_identical(stack, wl, *, ios, warmup_ios, seed):
    """Run both engines and assert the contract: counters and every Results field equal;
    return (SimPy's Results, the fast engine's Results)."""
    ref, fast = both(stack, wl, ios=ios, warmup_ios=warmup_ios, seed=seed)
    assert ref.counters == fast.counters
    assert differences(ref, fast) == []
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


# -- generated stacks for the hypothesis tests (the draws in a fixed order: derandomized
# examples stay the same) ------------------------------------------------------------------

def draw_layers(draw) -> dict:
    """Host, block layer, HBA, multipath and link of a generated stack (``Stack`` keywords)."""
    from hypothesis import strategies as st

    from iosim.stack import BlockSpec, HbaSpec, HostSpec, LinkSpec, MultipathSpec

    return dict(
        host=HostSpec(overhead=draw(st.sampled_from(["0", "det:20us", "exp:50us"]))),
        block=BlockSpec(nr_requests=draw(st.sampled_from([2, 128, 10**6])),
                        max_sectors_bytes=draw(st.sampled_from([65536, 524288]))),
        hba=HbaSpec(queue_depth=draw(st.integers(1, 32))),
        multipath=MultipathSpec(paths=draw(st.integers(1, 2))),
        link=LinkSpec(latency_s=draw(st.sampled_from([0.0, 1e-5])),
                      bandwidth_Bps=draw(st.sampled_from([float("inf"), 1e9]))))


def draw_workload(draw, stack, rw, sizes, span):
    """A closed loop (jobs, depth, think time) or an open loop at 30 or 70 % of the stack's
    capacity, of ``rw`` and ``sizes`` over ``span`` bytes."""
    from dataclasses import replace

    from hypothesis import strategies as st

    from iosim.simulate import open_loop_capacity_iops
    from iosim.workload import Workload

    if draw(st.booleans()):
        return Workload(rw=rw, numjobs=draw(st.integers(1, 8)), iodepth=draw(st.integers(1, 4)),
                        thinktime_s=draw(st.sampled_from([0.0, 2e-4])), span_bytes=span, **sizes)
    wl = Workload(rw=rw, rate_iops=1.0, arrival=draw(st.sampled_from(["poisson", "paced"])),
                  span_bytes=span, **sizes)
    return replace(wl, rate_iops=open_loop_capacity_iops(stack, wl)
                   * draw(st.sampled_from([0.3, 0.7])))

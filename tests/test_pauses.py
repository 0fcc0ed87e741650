"""The device's pauses (``[pauses]``, iosim.engine.pauses): exact renewal theory at depth 1,
the tail they add at depth, their schedule, and their spec's one-line errors."""

import math

import numpy as np
import pytest

from iosim import SpecError, Stack, Workload, simulate
from iosim.engine.pauses import new_schedule, pause_delay_s
from iosim.rng import Streams
from iosim.stack import dump_toml, load_toml


def _one_unit(service: str, pauses: dict | None) -> Stack:
    table = {"device": {"kind": "generic", "units": 1, "service": service}}
    if pauses is not None:
        table["pauses"] = pauses
    return Stack.from_dict(table)


def test_depth_one_is_the_renewal_formula():
    """One I/O at a time, service S, pauses of D >= S starting at rate lambda. Every I/O starts
    outside a pause (at a completion, or as a pause ends), so by memorylessness the next pause
    starts Exp(lambda) later: the I/O is held iff that is within S, for D - (S - u) where u is
    the start. Mean hold = (D - S)(1 - e^(-lambda S)) + (1 - e^(-lambda S)(1 + lambda S)) /
    lambda; the mean latency is S plus it (no host time), and the held share (1.98 % here) sits
    between D and D + S, so the p99 does too."""
    s, d, lam = 1e-3, 5e-3, 20.0
    q = math.exp(-lam * s)
    hold = (d - s) * (1 - q) + (1 - q * (1 + lam * s)) / lam
    r = simulate(_one_unit("det:1ms", {"rate_hz": lam, "duration": "det:5ms"}),
                 Workload(rw="randread"), ios=100_000, seed=11, engine="fast")
    assert abs(r.lat_mean_s - (s + hold)) <= max(r.lat_mean_ci95_s, 1e-9), (
        r.lat_mean_s, s + hold, r.lat_mean_ci95_s)
    assert r.iops * (s + hold) == pytest.approx(1.0, rel=1e-3)  # one I/O per cycle
    assert d <= r.lat_p99_s <= d + s
    assert r.lat_p50_s == pytest.approx(s, rel=0.01)  # the unheld majority


def test_a_pause_holds_every_io_that_finishes_during_it():
    """A pause holds every I/O that completes while it lasts, so each pause delays about as
    many I/Os as are outstanding: lambda N / X of them. Past the device's knee (4 units of
    100 us: X stops at 40,000 IOPS) that share grows with the depth N: 0.1 % at depth 1, under
    the p99, and about 1.6 % at depth 64, where the p99 becomes a pause (the queue's own
    latency, 1.6 ms for every I/O, plus up to 3 ms)."""
    base = {"device": {"kind": "generic", "units": 4, "service": "det:100us"},
            "hba": {"queue_depth": 64}}
    paused = Stack.from_dict({**base, "pauses": {"rate_hz": 10.0, "duration": "det:3ms"}})
    free = Stack.from_dict(base)
    for n, ios in ((1, 60_000), (64, 400_000)):
        wl = Workload(rw="randread", iodepth=n)
        with_, without = (simulate(s, wl, ios=ios, seed=2, engine="fast") for s in (paused, free))
        held = 10.0 * n / with_.iops  # the share of I/Os a pause holds
        if n == 1:
            assert held < 0.002 and with_.lat_p99_s == pytest.approx(without.lat_p99_s)
        else:
            assert held > 0.012 and without.lat_p99_s == pytest.approx(1.6e-3, rel=0.02)
            assert with_.lat_p99_s > without.lat_p99_s + 1e-3


def test_the_schedule_does_not_depend_on_when_it_is_asked():
    """The pauses are drawn in order as the clock passes them: asking at many instants or at
    one later instant leaves the same schedule (the workload cannot shift it)."""
    args = (50.0, 1, 2e-3, 0.0, np.zeros(1))  # 50 Hz, exponential durations of 2 ms mean
    often, once = new_schedule(), new_schedule()
    rng_a, rng_b = Streams(4)["pauses"], Streams(4)["pauses"]
    for t in np.linspace(0.0, 1.0, 5001):
        pause_delay_s(t, often, *args, rng_a)
    pause_delay_s(1.0, once, *args, rng_b)
    assert list(often) == list(once)
    assert once[1] > 1.0  # the pause that holds 1.0, or the next one
    delay = pause_delay_s(once[0] + 1e-4, once, *args, rng_b)
    assert delay == pytest.approx(once[1] - once[0] - 1e-4, abs=1e-15)


def test_engines_agree_field_for_field_with_pauses():
    stack = _one_unit("exp:0.2ms", {"rate_hz": 300, "duration": "exp:1ms"})
    wl = Workload(rw="randrw", numjobs=4)
    a = simulate(stack, wl, ios=3000, seed=5, engine="simpy").to_dict()
    b = simulate(stack, wl, ios=3000, seed=5, engine="fast").to_dict()
    skip = {"engine", "wall_s", "events_s"}
    assert {k: v for k, v in a.items() if k not in skip} == \
        {k: v for k, v in b.items() if k not in skip}


def test_the_spec_reads_back_and_says_what_is_wrong(tmp_path):
    stack = _one_unit("det:1ms", {"rate_hz": 15, "duration": "3ms"})
    f = tmp_path / "s.toml"
    f.write_text(dump_toml(stack))
    assert "[pauses]" in f.read_text() and load_toml(f)[0] == stack
    assert "[pauses]" not in dump_toml(_one_unit("det:1ms", None))  # none: not shown
    with pytest.raises(SpecError, match=r"^pauses\.duration must be a time > 0"):
        _one_unit("det:1ms", {"rate_hz": 15})
    with pytest.raises(SpecError, match=r"^pauses\.rate_hz must be pauses per second"):
        _one_unit("det:1ms", {"rate_hz": -1, "duration": "3ms"})
    with pytest.raises(SpecError, match="pauses.duration"):
        _one_unit("det:1ms", {"rate_hz": 5, "duration": "3"})  # a time needs its unit
    assert Stack().with_(**{"pauses.rate_hz": 15, "pauses.duration": "2ms"}).pauses.on


def test_a_duration_without_a_rate_is_kept_for_a_sweep_of_rates():
    """`--set pauses.duration=3ms --vary pauses.rate_hz=0,10`: the stack with the duration
    and no rate yet keeps its duration (a sweep applies the rate to it afterwards)."""
    waiting = Stack().with_(**{"pauses.duration": "3ms"})
    assert not waiting.pauses.on and waiting.to_dict()["pauses"]["duration"] == "3ms"
    assert waiting.with_(**{"pauses.rate_hz": 10}).pauses == \
        _one_unit("det:1ms", {"rate_hz": 10, "duration": "3ms"}).pauses

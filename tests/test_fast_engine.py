"""The fast engine's own contract: what it supports, what it returns, how it behaves at the
edges. Its agreement with the reference engine is tests/test_engine_equivalence.py."""

import math
from dataclasses import fields, replace

import numpy as np
import pytest

from iosim import presets
from iosim.devices import ArrayDevice, GenericDevice
from iosim.dists import parse_dist
from iosim.engine import fast, fast_cache
from iosim.engine.fast import FastSimulation, results_of, run_fast, run_fast_sim, supports
from iosim.engine.recorder import bucket_index
from iosim.engine.simpy_engine import run_simpy
from iosim.results import Results
from iosim.stack import HbaSpec, Stack
from iosim.workload import Workload

REF = Stack(hba=HbaSpec(queue_depth=4), device=GenericDevice(units=64, service="exp:0.46ms"))


def same(a: Results, b: Results) -> bool:
    for f in fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y):
            continue
        if x != y:
            return False
    return True


def test_supports_every_family_and_says_why_not_for_what_it_lacks():
    assert supports(REF, Workload(numjobs=10)) is None
    for name in presets.names():
        stack, wl = presets.load(name)
        assert supports(stack, wl or Workload()) is None, name
    assert supports(Stack(device=ArrayDevice()), Workload()) is None  # (over RAID 5 of disks)
    plain = Stack(device=ArrayDevice(group={"kind": "generic"}))
    with pytest.raises(ValueError, match="device.group.kind 'generic': an array over this "
                                         "family is not in the fast engine"):
        run_fast(plain, Workload(), ios=10, warmup_ios=0, seed=1)
    raid = presets.load("raid0-12x-hdd-wbc")[0]
    for member in ({"kind": "ssd"}, {"kind": "cloud", "iops_limit": 3000}):  # RAID over any
        assert supports(raid.with_(**{"device.member": member}), Workload()) is None
        over = Stack(device=ArrayDevice(group={"kind": "raid", "level": "0", "members": 2,
                                               "member": member}))  # (an all-flash array)
        assert supports(over, Workload()) is None


def test_every_distribution_kind_runs(tmp_path):
    samples = tmp_path / "times.txt"
    samples.write_text("0.1ms\n0.3ms\n1ms\n")
    for text in ("det:0.2ms", "exp:0.2ms", "lognormal:0.2ms,scv=2", "gamma:0.2ms,scv=0.5",
                 "uniform:0.1ms,0.3ms", f"empirical:{samples}"):
        d = parse_dist(text)
        stack = Stack(device=GenericDevice(units=2, service=d))
        assert supports(stack, Workload()) is None
        r = run_fast(stack, Workload(numjobs=3), ios=500, warmup_ios=50, seed=1)
        assert r.ios == 500 and r.lat_mean_s > 0


def test_results_are_filled_from_the_fast_run():
    """The fast run exposes the reference's recorder shape, so the shared results_of fills
    every field the reference fills."""
    for wl in (Workload(numjobs=10, rw="randrw"), Workload(rate_iops=3000)):
        sim = run_fast_sim(REF, wl, ios=3000, warmup_ios=300, seed=5)
        assert isinstance(sim, FastSimulation)
        r = results_of(sim)
        filled = {f.name for f in fields(r) if getattr(r, f.name) is not None}
        assert {"iops", "lat_p99_s", "device_lat_p99_s", "iops_ci95", "aqu_sz"} <= filled
        assert r.extra["layers"]["device"]["throughput"] > 0
        assert sum(r.qd_dist.values()) == pytest.approx(1.0)


def test_runs_are_reproducible_and_replications_independent():
    wl = Workload(numjobs=10)
    a = run_fast(REF, wl, ios=2000, warmup_ios=100, seed=9)
    b = run_fast(REF, wl, ios=2000, warmup_ios=100, seed=9)
    c = run_fast(REF, wl, ios=2000, warmup_ios=100, seed=9, replication=1)
    assert same(a, b)
    assert a.lat_mean_s != c.lat_mean_s


def test_replications_are_the_reference_replications():
    wl = Workload(numjobs=4, rw="randrw")
    ref = results_of(run_simpy(REF, wl, ios=800, warmup_ios=80, seed=2, replication=3))
    assert same(ref, run_fast(REF, wl, ios=800, warmup_ios=80, seed=2, replication=3))


def test_pools_grow_when_an_open_loop_queue_outgrows_them(monkeypatch):
    """An open loop has no bound on I/Os in flight: the run restarts with doubled pools (same
    seed, so the same answer) until they fit."""
    stack = Stack(device=GenericDevice(units=1, service="exp:1ms"))
    wl = Workload(rate_iops=950)
    ref = results_of(run_simpy(stack, wl, ios=3000, warmup_ios=100, seed=4))
    monkeypatch.setattr(fast, "OPEN_LOOP_POOL", 2)
    small = run_fast(stack, wl, ios=3000, warmup_ios=100, seed=4)
    assert max(small.qd_dist) > 2  # the queue did outgrow the first pool
    assert same(ref, small)


def test_memory_does_not_grow_with_the_run_length():
    """Nothing is kept per I/O: every array handed to the kernel is the same size for 10^3 and
    10^12 I/Os."""
    wl = Workload(numjobs=10)

    def sizes(ios):
        args = fast._prepare(REF, wl, ios, 100, 1, 0, None, 2, fast.Batches(ios))
        return [a.size for a in args if isinstance(a, np.ndarray)]

    assert sizes(1000) == sizes(10**12)


def test_little_law_holds_per_layer():
    r = run_fast(REF, Workload(numjobs=10, iodepth=2), ios=20_000, warmup_ios=1000, seed=3)
    for layer in r.extra["layers"].values():
        assert layer["outstanding"] == pytest.approx(layer["throughput"] * layer["latency_s"],
                                                     rel=0.02)


def test_the_histogram_buckets_are_the_recorder_s():
    values = np.concatenate([[0.0, 1e-10, 1e-9, 1.5e-9], np.geomspace(1e-9, 1e3, 2000)])
    assert [fast._bucket(v) for v in values] == [bucket_index(v) for v in values]


def test_compile_cache_is_keyed_on_the_shared_physics(tmp_path):
    """The kernel compiles in functions of other files (physics, sampler, buckets); its cache
    key covers them, so editing one of them recompiles instead of running stale code."""
    names = {p.name for p in fast_cache.DEPENDS}
    assert {"fast.py", "dists.py", "generic.py", "cloud.py", "ssd.py", "recorder.py",
            "fast_codes.py", "fast_hdd.py", "raid.py", "kernel_compiler.py"} <= names
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n")
    b.write_text("y = 1\n")
    before = fast_cache.source_stamp([a, b])
    b.write_text("y = 2\n")
    assert fast_cache.source_stamp([a, b]) != before
    for kernel in (fast._kernel, fast._kernel_disk, fast._kernel_all):  # (flash, disk, both)
        locator = getattr(getattr(kernel, "_cache", None), "_impl", None)
        if locator is not None:  # numba's layout as of 0.59-0.68
            assert type(locator.locator).__name__ == "_DepsLocator"


def test_the_default_preset_runs_deterministically_identical_to_the_reference():
    stack, wl = presets.load(presets.DEFAULT)
    for n in (1, 5, 12):
        w = replace(wl, numjobs=n)
        ref = results_of(run_simpy(stack, w, ios=1000, warmup_ios=100, seed=1))
        assert same(ref, run_fast(stack, w, ios=1000, warmup_ios=100, seed=1))


def test_ssd_runs_reads_and_writes_and_says_why_not_for_empirical_programs(tmp_path):
    from iosim.devices.ssd import SsdDevice

    stack = Stack(device=SsdDevice(write_buffer_bytes=65536))
    for rw in ("randread", "randwrite", "randrw"):
        assert supports(stack, Workload(rw=rw)) is None
        r = run_fast(stack, Workload(rw=rw, numjobs=4), ios=500, warmup_ios=50, seed=1)
        assert r.ios == 500 and set(r.counters["device"]) == {
            "page_reads", "page_programs", "buffered_writes"}
    samples = tmp_path / "t.txt"
    samples.write_text("0.5ms\n1ms\n")
    emp = Stack(device=SsdDevice(program_s=parse_dist(f"empirical:{samples}")))
    assert "empirical" in supports(emp, Workload())


def test_a_long_fast_run_reports_its_progress_without_changing_it(monkeypatch):
    """A run announced as long reports its completions from the compiled loop (numba object
    mode) every PROGRESS_EVERY completions; the numbers are those of a silent run."""
    import iosim
    from iosim import limits
    from iosim.engine import fast

    stack, wl = iosim.presets.load("allflash-lun")
    quiet = iosim.simulate(stack, wl, ios=5000, warmup_ios=500, seed=3, engine="fast")
    monkeypatch.setattr(limits, "ANNOUNCE_WALL_S", 0.0)  # every run counts as long
    monkeypatch.setattr(fast, "PROGRESS_EVERY", 1000)
    ticks = []
    monkeypatch.setattr(fast.progress, "tick", lambda done: ticks.append(int(done)))
    loud = iosim.simulate(stack, wl, ios=5000, warmup_ios=500, seed=3, engine="fast")
    assert ticks == [1000, 2000, 3000, 4000, 5000]  # 5,500 completions in all
    assert loud.to_dict() == quiet.to_dict()


def test_a_long_simpy_run_reports_its_progress_without_changing_it(monkeypatch):
    """The reference engine ticks the same bar from its completion handler."""
    import iosim
    from iosim import limits
    from iosim.engine import progress, simpy_engine

    stack, wl = iosim.presets.load("raid0-12x-hdd-wbc")
    quiet = iosim.simulate(stack, wl, ios=3000, warmup_ios=100, seed=3, engine="simpy")
    monkeypatch.setattr(limits, "ANNOUNCE_WALL_S", 0.0)
    monkeypatch.setattr(simpy_engine, "PROGRESS_EVERY", 1000)
    ticks = []
    monkeypatch.setattr(progress, "tick", lambda done: ticks.append(int(done)))
    loud = iosim.simulate(stack, wl, ios=3000, warmup_ios=100, seed=3, engine="simpy")
    assert ticks == [1000, 2000, 3000]  # 3,100 completions in all
    assert loud.to_dict() == quiet.to_dict()


def test_a_late_compile_says_why_it_was_not_done_at_set_up(monkeypatch, capsys):
    """Set-up compiles the flash and disk variants; a RAID of SSDs' variant is left to its first
    run, and its announcement must not claim set-up did it."""
    from iosim.engine import jit

    monkeypatch.setattr(jit, "ANNOUNCE", True)
    monkeypatch.setattr(jit, "compile_pending", lambda dispatcher: True)
    jit.announce_compile(fast._kernel)
    assert "'make lab' and 'make test' do it at set-up" in capsys.readouterr().err
    stack = Stack.from_dict({"device": {"kind": "raid", "level": "1", "members": 2,
                                        "member": {"kind": "ssd"}}})
    run_fast(stack, Workload(), ios=50, warmup_ios=0, seed=1)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "a RAID of SSDs, or an array of such groups, has a variant of " \
        "its own, which set-up leaves out" in err[0] and "do it at set-up" not in err[0]

"""Trace replay: exact queueing identities, the three issue modes, both engines, the demerit.

Traces are built here as ``BlockTrace`` objects (the readers live in ``iosim.traces``); the
Atlas 10K validation replay is at the end.
"""

import math
from pathlib import Path

import numpy as np
import pytest
from equality import differences

from iosim import presets
from iosim.devices import GenericDevice
from iosim.devices.cloud import CloudDevice
from iosim.devices.ssd import SsdDevice
from iosim.replay import max_speed, replay, rms_cdf_distance
from iosim.spec import SpecError
from iosim.stack import HbaSpec, HostSpec, LinkSpec, MultipathSpec, Stack
from iosim.traces.blocktrace import BlockTrace


def trace(arrival, offset=None, size=None, is_read=None, latency=None, idle=None):
    n = len(arrival)
    return BlockTrace(
        arrival_s=np.asarray(arrival, dtype=float),
        offset_bytes=np.zeros(n) if offset is None else offset,
        size_bytes=np.full(n, 4096.0) if size is None else size,
        is_read=np.ones(n, bool) if is_read is None else is_read,
        latency_s=latency,
        idle_s=idle,
        source="test",
    )


def random_trace(n, *, seed=1, mean_gap_s=1e-3, sizes=(4096.0, 65536.0, 1 << 20), span=1e11):
    rng = np.random.default_rng(seed)
    return trace(
        np.cumsum(rng.exponential(mean_gap_s, n)) - mean_gap_s,
        offset=(rng.integers(0, int(span // 4096), n) * 4096.0),
        size=rng.choice(np.asarray(sizes, dtype=float), n),
        is_read=rng.random(n) < 0.7,
        idle=rng.exponential(mean_gap_s, n),
    )


def fixed_server(service="det:1ms", units=1):
    return Stack(device=GenericDevice(units=units, service=service))


# -- exact identities ---------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ["simpy", "fast"])
def test_open_loop_replay_follows_the_lindley_recursion(engine):
    """One unit, fixed service S, no host overhead: each request's response time is
    W[n] + S with W[n+1] = max(0, W[n] + S - A[n+1]) (Lindley), to the microsecond."""
    rng = np.random.default_rng(7)
    n, s = 5000, 1e-3
    gaps = rng.exponential(1.25e-3, n)  # utilisation 0.8: long busy periods and idle ones
    gaps[0] = 0.0
    t = trace(np.cumsum(gaps), offset=rng.integers(0, 10**6, n) * 4096.0)
    r = replay(t, fixed_server(), mode="open", engine=engine)
    w = np.zeros(n)
    for i in range(1, n):
        w[i] = max(0.0, w[i - 1] + s - gaps[i])
    expected = w + s
    assert r.results.engine == engine and r.results.ios == n
    assert np.max(np.abs(r.latency_s - expected)) < 1e-6
    assert w.max() > 10 * s and np.count_nonzero(w == 0) > n / 10  # queues formed and emptied


def test_speed_divides_the_arrival_times():
    t = random_trace(2000, seed=3)
    halved = trace(t.arrival_s / 2, t.offset_bytes, t.size_bytes, t.is_read)
    stack = fixed_server("exp:0.3ms", units=2)
    a = replay(t, stack, speed=2.0, seed=5)
    b = replay(halved, stack, speed=1.0, seed=5)
    assert np.array_equal(a.latency_s, b.latency_s)
    assert np.array_equal(a.issue_s, b.issue_s)
    slow = replay(t, stack, speed=1.0, seed=5)
    assert a.results.iops == pytest.approx(2 * slow.results.iops, rel=0.02)
    assert a.results.lat_mean_s > slow.results.lat_mean_s  # more queueing at twice the rate


@pytest.mark.parametrize("units", [1, 4])
def test_closed_loop_keeps_n_outstanding_in_trace_order(units):
    n, big_n, s = 400, 4, 1e-3
    t = trace(np.zeros(n))  # the recorded times do not matter in closed loop
    r = replay(t, fixed_server(units=units), mode="closed", outstanding=big_n)
    if units == 1:  # the first N queue behind each other, then every request waits N - 1
        expected = np.full(n, big_n * s)
        expected[:big_n] = (np.arange(big_n) + 1) * s
        # request k is issued when request k - N completes, at (k - N + 1) ms
        issue = np.maximum(0, np.arange(n) - big_n + 1) * s
    else:  # as many units as outstanding: no wait
        expected = np.full(n, s)
        issue = (np.arange(n) // big_n) * s
    np.testing.assert_allclose(r.latency_s, expected, atol=1e-12)
    np.testing.assert_allclose(r.issue_s, issue, atol=1e-12)
    assert r.results.iops == pytest.approx(units * 1000.0, rel=1e-9)


def test_in_flight_counts_by_hand():
    from iosim.replay import measured_in_flight

    # 0-2 ms one request, 1-2 ms two, 2-4 ms one: one in flight 3 of the 4 ms
    assert measured_in_flight(np.array([0.0, 1e-3, 2e-3]), np.array([2e-3, 1e-3, 2e-3])) == (
        1, pytest.approx(0.75))
    # a request issued as another completes never counts both; too few measured: nothing
    assert measured_in_flight(np.array([0.0, 1e-3]), np.array([1e-3, 1e-3])) == (1, 1.0)
    assert measured_in_flight(np.array([0.0, 1e-3]), np.array([np.nan, 1e-3])) == (0, 0.0)


def test_an_open_replay_of_a_closed_loops_trace_says_how_to_replay_it():
    """A trace recorded from four requests kept in flight (a closed loop: fio at iodepth=4)
    replays at its recorded times with a note naming --mode closed --outstanding 4; a Poisson
    trace's, replayed the same way, has none."""
    stack = fixed_server("exp:1ms", units=2)
    ran = replay(random_trace(3000, seed=5), stack, mode="closed", outstanding=4)
    recorded = trace(ran.issue_s - ran.issue_s[0], latency=ran.latency_s)
    notes = replay(recorded, stack).warnings
    assert any("kept 4 requests in flight" in w and "--mode closed --outstanding 4" in w
               for w in notes), notes
    assert not any("--mode closed" in w for w in replay(recorded, stack, mode="closed",
                                                        outstanding=4).warnings)
    ran = replay(random_trace(3000, seed=6, mean_gap_s=2e-3), stack)  # open, 25 % busy
    recorded = trace(ran.issue_s, latency=ran.latency_s)
    assert not any("--mode closed" in w for w in replay(recorded, stack).warnings)


def test_an_open_replay_the_stack_cannot_keep_up_with_says_so():
    """Poisson arrivals at 3,000 per s on one 1 ms server (it serves 1,000 per s): the note
    gives both rates and the speed below which the server keeps up on average (the served
    rate over the asked one, two figures rounded down); at 0.25x (750 per s), in closed mode
    and on a Poisson trace at 25 % load there is none."""
    import re

    n = 3000
    t = random_trace(n, seed=3, mean_gap_s=1e-3 / 3, sizes=(4096.0,))  # (no splits)
    r = replay(t, fixed_server())
    span = float(t.arrival_s[-1] - t.arrival_s[0])
    notes = [w for w in r.warnings if "overloaded" in w]
    assert len(notes) == 1, r.warnings
    assert f"asks for {n / span:,.0f} I/Os per s" in notes[0]
    assert f"served {r.results.iops:,.0f} per s" in notes[0]
    assert r.results.iops == pytest.approx(1000.0, rel=0.01)  # the server was never idle
    speed = float(re.search(r"below --speed ([0-9.]+)", notes[0]).group(1))
    exact = r.results.iops * span / n
    assert exact - 0.01 < speed <= exact
    assert not any("overloaded" in w for w in replay(t, fixed_server(), speed=0.25).warnings)
    assert not any("overloaded" in w for w in replay(
        t, fixed_server(), mode="closed", outstanding=4).warnings)
    quiet = random_trace(n, seed=3, mean_gap_s=4e-3)
    assert not any("overloaded" in w for w in replay(quiet, fixed_server()).warnings)


def test_validate_mode_issues_after_completion_plus_recorded_idle():
    t = trace([0.0, 0.1, 0.2], idle=[2e-3, 0.5e-3, np.nan], latency=[1e-3, 1e-3, 2e-3])
    r = replay(t, fixed_server(), mode="validate")
    np.testing.assert_allclose(r.issue_s, [0.0, 3e-3, 4.5e-3], atol=1e-15)
    np.testing.assert_allclose(r.latency_s, [1e-3, 1e-3, 1e-3], atol=1e-15)
    c = r.comparison
    assert c.n == 3 and c.measured["mean_s"] == pytest.approx(4e-3 / 3)
    assert c.errors["mean_s"] == pytest.approx((1e-3 - 4e-3 / 3) / (4e-3 / 3))


def test_validate_mode_ignores_the_host_overhead():
    t = trace([0.0, 0.0], idle=[1e-3, np.nan])
    stack = Stack(device=GenericDevice(units=1, service="det:1ms"),
                  host=HostSpec(overhead="det:5ms"))
    r = replay(t, stack, mode="validate")
    np.testing.assert_allclose(r.issue_s, [0.0, 2e-3], atol=1e-15)


def test_warmup_requests_are_run_but_not_measured():
    t = trace(np.arange(100) * 2e-3)
    r = replay(t, fixed_server(), warmup=10)
    assert r.results.ios == 90 and np.isnan(r.latency_s[:10]).all()


# -- both engines, every mode, identical ----------------------------------------------------------


SMALL_SSD = dict(channels=2, dies_per_channel=2, planes_per_die=2, page_bytes=4096,
                 read_slow_s="det:80us", program_slow_s="det:1.5ms", controller_overhead_s=5e-6,
                 host_interface_Bps=1e9, write_buffer_bytes=8 * 4096)

STACKS = {
    "generic-exp": Stack(device=GenericDevice(units=2, service="exp:0.8ms",
                                              media_rate_Bps=500e6)),
    "generic-link": Stack(device=GenericDevice(units=3, service="lognormal:0.5ms,scv=2"),
                          link=LinkSpec(latency_s=20e-6, bandwidth_Bps=1e9),
                          host=HostSpec(overhead="exp:30us")),
    "ssd": Stack(device=SsdDevice(**SMALL_SSD)),
    "cloud": Stack(device=CloudDevice(latency="exp:0.5ms", iops_limit=1500, units=4)),
    "nvme-preset": presets.load("nvme-intel-750")[0],
    "path-failure": Stack(device=GenericDevice(units=4, service="exp:0.6ms"),
                          hba=HbaSpec(queue_depth=2),
                          multipath=MultipathSpec(paths=2, failover_timeout_s=0.02, failures=[
                              {"path": 0, "fail_at_s": 0.1, "restore_at_s": 0.2},
                              {"path": 1, "fail_at_s": 0.25, "restore_at_s": 0.3},
                              {"path": 0, "fail_at_s": 1.0, "restore_at_s": 1.5}])),
}




@pytest.mark.parametrize("name", sorted(STACKS))
@pytest.mark.parametrize("mode", ["open", "closed", "validate"])
def test_engines_give_identical_replays(name, mode):
    t = random_trace(1500, seed=11, mean_gap_s=2e-3, span=1e10)
    kw = dict(mode=mode, seed=3, outstanding=6 if mode == "closed" else None,
              speed=1.3 if mode == "open" else 1.0)
    ref = replay(t, STACKS[name], engine="simpy", **kw)
    fast = replay(t, STACKS[name], engine="fast", **kw)
    assert (ref.results.engine, fast.results.engine) == ("simpy", "fast")
    assert differences(ref.results, fast.results) == []
    assert np.array_equal(ref.latency_s, fast.latency_s)
    assert np.array_equal(ref.issue_s, fast.issue_s)
    assert ref.results.counters["completed"] == len(t)


def test_addresses_reach_the_disk():
    """On a disk, the same requests cost less in address order than shuffled (seeks)."""
    stack = presets.load("hdd-10k")[0]
    n = 400
    seq = trace(np.zeros(n), offset=np.arange(n) * 65536.0, size=np.full(n, 65536.0))
    rng = np.random.default_rng(2)
    shuffled = trace(np.zeros(n), offset=rng.permutation(n) * 65536.0 * 10**4,
                     size=np.full(n, 65536.0))
    a = replay(seq, stack, mode="closed")
    b = replay(shuffled, stack, mode="closed")
    assert a.results.engine == "fast"  # (engine="auto": the disk runs on the fast engine)
    assert b.results.lat_mean_s > 5 * a.results.lat_mean_s


# -- the demerit figure ---------------------------------------------------------------------------


def test_demerit_of_a_shift_is_the_shift():
    x = np.random.default_rng(1).lognormal(-7, 1, 3000)
    assert rms_cdf_distance(x, x) == 0.0
    assert rms_cdf_distance(x, x + 2.5e-3) == pytest.approx(2.5e-3, rel=1e-12)
    assert rms_cdf_distance(x + 2.5e-3, x) == pytest.approx(2.5e-3, rel=1e-12)


def test_demerit_by_hand():
    # quantile functions (linear between (k/n, x_k)): a(p) = max(0, 2p - 1), b(p) = 2 a(p);
    # their difference is 2p - 1 above p = 1/2, so the RMS is sqrt(1/2 x 1/3) = sqrt(1/6)
    assert rms_cdf_distance([0.0, 1.0], [0.0, 2.0]) == pytest.approx(math.sqrt(1 / 6), rel=1e-3)


def test_replay_reports_the_comparison_and_windows():
    t0 = random_trace(3000, seed=4)
    lat = np.full(len(t0), 1e-3)
    t = trace(t0.arrival_s, t0.offset_bytes, t0.size_bytes, t0.is_read, latency=lat)
    r = replay(t, fixed_server("det:1ms", units=64), window_s=0.5)
    c = r.comparison
    assert c.demerit_s < 1e-15 and abs(c.errors["p99_s"]) < 1e-12
    assert sum(p.ios for p in r.windows) == len(t)
    assert r.windows.df["t_s"].diff().dropna().eq(0.5).all()
    assert r.measured_windows is not None and len(r.measured_windows) == len(r.windows)


# -- what-if ------------------------------------------------------------------------------------


def test_max_speed_finds_where_the_fixed_server_saturates():
    """Paced arrivals every 4 ms at a 1 ms server: no wait up to speed 4, a growing queue
    beyond; the largest speed with p99 <= 1.5 ms is 4 (within the bisection's tolerance)."""
    t = trace(np.arange(2000) * 4e-3)
    found = max_speed(t, fixed_server(), slo_s=1.5e-3, slo_percentile=99, rel_tol=0.01)
    assert 4 / 1.01 <= found.speed <= 4.0
    assert found.latency_s == pytest.approx(1e-3)


# -- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw, words",
    [
        (dict(speed=0), "speed must be a finite number > 0"),
        (dict(speed=-1.0), "speed must be a finite number > 0"),
        (dict(speed=float("nan")), "speed must be a finite number > 0"),
        (dict(mode="burst"), "mode must be one of open, closed, validate"),
        (dict(mode="open", outstanding=4), "outstanding applies to closed-loop"),
        (dict(mode="closed", outstanding=0), "outstanding must be a whole number >= 1"),
        (dict(warmup=5), "warmup must be a whole number from 0 to 4"),
        (dict(engine="gpu"), "engine must be one of"),
    ],
)
def test_bad_arguments_are_one_clear_line(kw, words):
    with pytest.raises(SpecError) as err:
        replay(trace(np.arange(5) * 1e-3), fixed_server(), **kw)
    assert words in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("column", ["size", "offset"])
def test_unknown_sizes_or_offsets_are_refused(column):
    kw = {column: np.full(3, np.nan)}
    with pytest.raises(SpecError, match=f"unknown or (zero|negative) {column}") as err:
        replay(trace(np.arange(3) * 1e-3, **kw), fixed_server())
    assert "\n" not in str(err.value)


def test_an_empty_trace_is_refused():
    with pytest.raises(SpecError, match="has no requests"):
        replay(trace(np.zeros(0)), fixed_server())


def test_addresses_beyond_the_disk_are_refused_before_the_run():
    stack = presets.load("hdd-10k")[0]
    t = trace([0.0], offset=np.array([stack.device.capacity_bytes]))
    with pytest.raises(SpecError, match="beyond device.capacity_bytes"):
        replay(t, stack)


# -- DiskSim's validation of the Quantum Atlas 10K --------------------------------------------

ATLAS_TRACE = (Path(__file__).resolve().parents[2] / "shared" / "blocktraces" / "disksim-validate"
               / "quantum-atlas10k-dixtrac.trace")
# DiskSim 4.0 valid/runvalid: "QUANTUM_TORNADO (rms should be about 0.268)", in ms
DISKSIM_ATLAS_RMS_S = 0.268e-3


@pytest.mark.skipif(not ATLAS_TRACE.exists(), reason="the shared block-trace corpus is absent")
def test_atlas10k_validation_replay_is_within_twice_disksims_demerit():
    """The Atlas 10K preset is built from the drive's published DIXtrac parameters only;
    nothing in it was fitted to this trace. The bar, fixed before the first replay was run, is
    the issue's goal: an RMS CDF distance within twice DiskSim's own figure for this drive
    (0.536 ms). DiskSim models the drive's 24 zones, slipped sectors, ten buffer segments and
    per-command overheads; iosim's HDD model is coarser (continuous zoning, one read-ahead
    segment), so matching DiskSim itself is not expected.

    The median is not asserted. Buffer hits form steps (read-hit or write-hit overhead plus
    0.099 ms a block), and the measured median lies on the 8-block step (1.11 ms), next to the
    12-block one (1.42 ms): 0.6 % of the requests decide the step. Before ``read_free_blocks``
    iosim missed ~500 reads the drive answered from its buffer and its median fell on the
    12-block step (+23 %). A bar was stated before the fix was run, |p50 error| <= 15 % (the
    8-block step), and ``read_free_blocks`` alone met it (-11.9 %, demerit 0.193 ms); adding
    the drive's DEC prefetch (``read_ahead_track_end``) gives the drive's forward hit rates and
    a demerit of 0.115 ms, but 49.4 % of the simulated requests below the measured median, so
    the median is back on the 12-block step (+23 %). Neither was chosen by the median."""
    from iosim.traces import read_block_trace

    t = read_block_trace(ATLAS_TRACE, format="disksim-validate")
    stack = presets.load("hdd-atlas10k")[0]
    r = replay(t, stack, mode="validate")
    assert r.results.engine == "fast" and r.comparison.n == len(t) == 10_000
    assert r.comparison.demerit_s <= 2 * DISKSIM_ATLAS_RMS_S, r.comparison.to_dict()


def test_the_atlas_preset_round_trips_and_uses_its_measured_seek_curve():
    import tomllib

    from iosim import dump_toml

    stack, wl = presets.load("hdd-atlas10k")
    assert Stack.from_dict(tomllib.loads(dump_toml(stack, wl))) == stack
    dev = stack.device
    # the table, read at its own points (distances in the drive's 10,042 cylinders)
    assert dev.seek_time_s(1 / 10042) == pytest.approx(1.245e-3)
    assert dev.seek_time_s(5000 / 10042) == pytest.approx(6.814e-3)
    assert dev.seek_time_s(0.0) == 0.0


@pytest.mark.parametrize("curve", [[[0, "1ms"]], [[2, "1ms"], [1, "2ms"]], [[1, "-1ms"]],
                                   "fast", [[1]]])
def test_a_bad_seek_curve_is_one_clear_line(curve):
    from iosim.devices import HddDevice

    with pytest.raises(SpecError, match="device.seek_curve must be a list of") as err:
        HddDevice(seek_curve=curve)
    assert "\n" not in str(err.value)


# -- command line --------------------------------------------------------------------------------


def _write_validate_trace(tmp_path, n=50):
    rng = np.random.default_rng(3)
    lines = [f"{'R' if rng.random() < 0.6 else 'W'} Hit {int(rng.integers(0, 10**7))} "
             f"{int(rng.choice([4, 8, 16]))} {rng.uniform(500, 9000):.5f} "
             f"{rng.uniform(1000, 50000):.5f}" for _ in range(n)]
    path = tmp_path / "tiny.trace"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_cli_replay_compare_json_and_text(tmp_path, capsys):
    import json

    from iosim.cli import main

    path = _write_validate_trace(tmp_path)
    assert main(["replay", str(path), "--format", "disksim-validate", "--preset",
                 "hdd-atlas10k", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mode"] == "validate" and out["requests"] == 50
    assert out["comparison"]["n"] == 50 and out["comparison"]["demerit_s"] > 0
    assert main(["replay", str(path), "--format", "disksim-validate", "--preset",
                 "hdd-atlas10k", "--compare", "--windows"]) == 0
    text = capsys.readouterr().out
    assert "demerit (RMS distance of the CDFs)" in text and "window of issue time" in text


def test_cli_replay_max_speed(tmp_path, capsys):
    import json

    from iosim.cli import main

    path = tmp_path / "paced.trace"  # DiskSim ASCII: time_ms device block size flags
    path.write_text("".join(f"{4 * i}.000 0 {8 * i} 8 1\n" for i in range(300)))
    assert main(["replay", str(path), "--format", "disksim-ascii", "--time-unit", "ms",
                 "--size-unit", "sectors", "--stack", str(_fixed_stack_file(tmp_path)),
                 "--max-speed", "--slo", "p99=1.5ms", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert 4 / 1.03 <= found["max_speed"] <= 4.0


def test_cli_plan_trace_is_the_max_speed_search(tmp_path, capsys):
    """``iosim plan --trace`` asks the what-if of a trace: the same search and answer as
    ``iosim replay --max-speed``; it takes its load from the trace, so --iops is refused."""
    import json

    from iosim.cli import main

    path = tmp_path / "paced.trace"
    path.write_text("".join(f"{4 * i}.000 0 {8 * i} 8 1\n" for i in range(300)))
    common = ["--format", "disksim-ascii", "--time-unit", "ms", "--size-unit", "sectors",
              "--stack", str(_fixed_stack_file(tmp_path)), "--json"]
    assert main(["replay", str(path), *common, "--max-speed", "--slo", "p99=1.5ms"]) == 0
    via_replay = json.loads(capsys.readouterr().out)
    assert main(["plan", "--trace", str(path), *common, "--latency", "1.5ms"]) == 0
    via_plan = json.loads(capsys.readouterr().out)
    assert via_plan == via_replay
    assert main(["plan", "--trace", str(path), *common, "--latency", "1.5ms",
                 "--iops", "1k"]) == 2
    assert "drop --iops" in capsys.readouterr().err


def _fixed_stack_file(tmp_path):
    from iosim import dump_toml

    path = tmp_path / "fixed.toml"
    path.write_text(dump_toml(fixed_server()))
    return path


@pytest.mark.parametrize("extra, words", [
    (["--speed", "0"], "speed must be a finite number > 0"),
    (["--speed", "fast"], "--speed must be a number"),
    (["--mode", "closed", "--outstanding", "0"], "--outstanding must be a whole number from 1"),
    (["--max-speed"], "--max-speed needs --slo"),
    (["--max-speed", "--slo", "99=5ms"], "--slo expects pNN=TIME"),
    (["--set", "device.rpm=0"], "device.rpm"),
])
def test_cli_replay_bad_input_is_one_line_and_status_2(tmp_path, capsys, extra, words):
    from iosim.cli import main

    path = _write_validate_trace(tmp_path, n=5)
    code = main(["replay", str(path), "--format", "disksim-validate", "--preset", "hdd-atlas10k",
                 *extra])
    err = capsys.readouterr().err
    assert code == 2 and words in err and err.count("\n") == 1, err


def test_cli_replay_refuses_a_missing_file_and_an_empty_trace(tmp_path, capsys):
    from iosim.cli import main

    assert main(["replay", str(tmp_path / "nope.trace"), "--preset", "hdd-atlas10k"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    empty = tmp_path / "empty.trace"
    empty.write_text("")
    assert main(["replay", str(empty), "--format", "disksim-validate"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


# -- the replay view ----------------------------------------------------------------------------


def test_replay_view_figures_and_speed_slider():
    from iosim import replay_view

    t0 = random_trace(600, seed=8)
    t = trace(t0.arrival_s, t0.offset_bytes, t0.size_bytes, t0.is_read,
              latency=np.full(len(t0), 1.2e-3))
    stack = fixed_server("exp:0.5ms", units=4)
    r = replay(t, stack, window_s=0.1)
    fig = replay_view.timeline(r)
    names = [tr.name for tr in fig.data]
    assert names == ["mean latency (simulated)", "p99 latency (simulated)",
                     "requests/s issued", "mean latency (measured)", "p99 latency (measured)"]
    assert list(fig.data[0].y) == pytest.approx(list(r.windows.df["lat_mean_s"] * 1e3))
    c = replay_view.cdf({"1x": r, "2x": replay(t, stack, speed=2.0)})
    assert [tr.name for tr in c.data] == ["1x", "2x", "measured"]
    assert c.data[0].y[-1] == 1.0 and "demerit" in c.layout.title.text
    # a long tail (the slowest request many times every curve's p99) gets a log axis, so
    # the bulk is not squeezed into a corner; a compact distribution keeps a linear one
    assert replay_view.cdf(_known_trace_replay(tail=True)).layout.xaxis.type == "log"
    assert replay_view.cdf(_known_trace_replay(tail=False)).layout.xaxis.type != "log"
    w = replay_view.speed_explorer(t, stack, speed=1.0, slo_s=10e-3)
    w.slider.value = 2.0  # moving the slider replays at that speed
    assert w.result.speed == 2.0 and "meets" in w.status.value
    assert [tr.name for tr in w.cdf.data][:2] == ["speed 2x", "speed 1x"]


def _known_trace_replay(tail: bool):
    """A replay of 500 requests on a deterministic 0.5 ms server, measured at 0.5..0.6 ms, or
    with one request measured at 5 ms (a tail ten times the rest)."""
    from iosim.traces import BlockTrace

    n = 500
    lat = np.linspace(0.5e-3, 0.6e-3, n)
    if tail:
        lat[-1] = 5e-3
    t = BlockTrace(arrival_s=np.arange(n) * 0.01, offset_bytes=np.zeros(n),
                   size_bytes=np.full(n, 4096.0), is_read=np.ones(n, bool), latency_s=lat)
    return replay(t, fixed_server("det:0.5ms", units=1))


def test_validate_replay_of_a_perfect_model_reproduces_the_recorded_schedule(tmp_path):
    """A DiskSim validate file whose every response is 1 ms, on a 1 ms server: the simulated
    issue times are the reader's recorded schedule (completion + idle, request after request)."""
    from iosim.traces import read_block_trace

    rng = np.random.default_rng(5)
    lines = [f"R Hit {int(b)} 8 1000.00000 {g:.5f}"
             for b, g in zip(rng.integers(0, 10**6, 200), rng.uniform(10, 5000, 200),
                             strict=True)]
    path = tmp_path / "perfect.trace"
    path.write_text("\n".join(lines) + "\n")
    t = read_block_trace(path, format="disksim-validate")
    r = replay(t, fixed_server(), mode="validate")
    np.testing.assert_allclose(r.issue_s, t.arrival_s, atol=1e-9)
    assert r.comparison.demerit_s < 1e-12


def test_replaying_a_device_the_trace_does_not_hold_names_the_ones_it_does(tmp_path, capsys):
    """An MSR trace names its devices host_disk: '--device 0' finds nothing, and the error
    says so and lists what the trace holds, instead of 'no requests found'."""
    from iosim.cli import main

    f = tmp_path / "msr.csv"
    f.write_text("128166372003061629,hm,0,Write,3154152448,4096,1169\n"
                 "128166372003134441,hm,1,Read,3154173952,4096,1095\n")
    assert main(["replay", str(f), "--preset", "hdd-7200", "--device", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no requests of device '0'" in err[0]
    assert err[0].endswith("devices seen: hm_0, hm_1")
    assert main(["replay", str(f), "--preset", "hdd-7200", "--device", "hm_1"]) == 0
    assert "1 request (1 read, 0 writes, msr)" in capsys.readouterr().out


# --- calibrating on a trace (iosim.fit.trace) -------------------------------------------------


def _known_trace(n=4000, seed=7):
    """A trace whose response times a known stack produced: Poisson arrivals at 12,000/s of
    4 KiB random reads through two units of 100 us lognormal service (scv 0.5)."""
    from iosim.fit.build import _build_stack
    from iosim.fit.catalogue import MODELS
    from iosim.traces import BlockTrace

    rng = np.random.default_rng(seed)
    arrival = np.cumsum(rng.exponential(1 / 12000, n))
    base = BlockTrace(arrival_s=arrival - arrival[0], offset_bytes=rng.integers(0, 2**20, n)
                      * 4096.0, size_bytes=np.full(n, 4096.0), is_read=np.ones(n, bool))
    truth = _build_stack(MODELS["generic"].stack(), {"device.service": 100e-6,
                                                     "device.units": 2,
                                                     "device.service.scv": 0.5})
    lat = replay(base, truth, mode="open", seed=seed).latency_s
    return BlockTrace(arrival_s=base.arrival_s, offset_bytes=base.offset_bytes,
                      size_bytes=base.size_bytes, is_read=base.is_read, latency_s=lat)


def test_fit_trace_recovers_the_stack_that_made_the_trace():
    from iosim.fit.trace import fit_trace

    tf = fit_trace(_known_trace(), "generic", seed=1)
    assert tf.values["device.service"] == pytest.approx(100e-6, rel=0.1)
    assert round(tf.values["device.units"]) == 2
    assert tf.values["device.service.scv"] == pytest.approx(0.5, rel=0.5)
    errors = tf.errors("test")  # the second half, never fitted
    assert abs(errors["mean_s"]) < 0.05 and abs(errors["p99_s"]) < 0.10
    assert tf.split == 2000 and tf.n == 4000


def test_fit_trace_fits_a_long_training_part_on_its_last_requests():
    from iosim.fit.trace import fit_trace

    t = _known_trace(1200)
    object.__setattr__(t, "device", (np.arange(1200) % 2).astype(np.int32))
    tf = fit_trace(t, "cloud", seed=1, max_fit_requests=300)
    assert tf.split == 600 and any("2 devices' requests" in n for n in tf.notes)
    assert any("last 300 requests before the split (requests 301..600)" in n for n in tf.notes)
    assert set(tf.errors("test")) == {"mean_s", "p50_s", "p95_s", "p99_s"}


def test_fit_trace_refuses_a_trace_without_response_times():
    from iosim.fit.trace import fit_trace
    from iosim.spec import SpecError

    t = _known_trace(300)
    bare = t.select(np.arange(len(t)))
    object.__setattr__(bare, "latency_s", np.full(len(t), np.nan))
    with pytest.raises(SpecError, match="records no response times"):
        fit_trace(bare)
    with pytest.raises(SpecError, match="200 or more"):
        fit_trace(_known_trace(150))
    with pytest.raises(SpecError, match="train-fraction"):
        fit_trace(t, train_fraction=0.95)


def test_cli_replay_fit_saves_a_stack_that_replays(tmp_path, capsys):
    import json

    from iosim.cli import main

    t = _known_trace(1200)
    path = tmp_path / "t.csv"
    with path.open("w") as f:
        f.write("arrival_s,offset_bytes,size_bytes,is_read,latency_s\n")
        for row in zip(t.arrival_s, t.offset_bytes, t.size_bytes, t.is_read, t.latency_s,
                       strict=True):
            f.write(f"{float(row[0])!r},{row[1]:.0f},{row[2]:.0f},{int(row[3])},{float(row[4])!r}\n")
    out = tmp_path / "fitted.toml"
    assert main(["replay", str(path), "--fit", "contention", "--save-stack", str(out),
                 "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["model"] == "contention" and got["split"] == 600
    assert set(got["test_errors"]) == {"mean_s", "p50_s", "p95_s", "p99_s"}
    assert main(["replay", str(path), "--stack", str(out), "--compare"]) == 0
    assert "comparison over 1,200 requests" in capsys.readouterr().out
    assert main(["replay", str(path), "--fit", "generic", "--preset", "hdd-7200"]) == 2
    assert "drop --preset" in capsys.readouterr().err


def test_fit_trace_says_when_a_flash_family_fits_a_disks_times():
    from iosim.fit.trace import fit_trace
    from iosim.traces import BlockTrace

    t = _known_trace(400)
    slow = BlockTrace(arrival_s=t.arrival_s * 20, offset_bytes=t.offset_bytes,
                      size_bytes=t.size_bytes, is_read=t.is_read, latency_s=t.latency_s * 20)
    tf = fit_trace(slow, "ssd", seed=1, budget=5)
    assert any("a spinning disk's scale, and ssd is a flash family" in n for n in tf.notes)
    assert not any("flash family" in n for n in fit_trace(t, "ssd", seed=1, budget=5).notes)


def _disk_trace(n=2000, seed=5):
    """A disk's trace: a known HDD (10,000 rpm, 5 ms average seek over 20 GB, an 8 MB/s bus,
    0.2 ms per buffer hit or cached write, a 16-write cache) under Poisson arrivals at 60/s of
    8 KiB requests: sequential read runs, random reads, random writes (a third each)."""
    from iosim.fit.build import _build_stack
    from iosim.fit.catalogue import MODELS
    from iosim.traces import BlockTrace

    rng = np.random.default_rng(seed)
    arrival = np.cumsum(rng.exponential(1 / 60, n))
    kind = rng.integers(0, 3, n)
    offset = rng.integers(0, 20e9 // 8192, n) * 8192.0
    for i in range(1, n):
        if kind[i] == 0 and kind[i - 1] == 0:  # a run goes on where the last read ended
            offset[i] = offset[i - 1] + 8192.0
    base = BlockTrace(arrival_s=arrival - arrival[0], offset_bytes=offset,
                      size_bytes=np.full(n, 8192.0), is_read=kind != 2)
    truth = _build_stack(MODELS["hdd-ncq"].stack(), {
        "device.rpm": 10000, "device.avg_seek_s": 5e-3, "device.capacity_bytes": 20e9,
        "device.interface_Bps": 8e6, "device.hit_overhead_s": 2e-4,
        "device.write_cache_entries": 16})
    lat = replay(base, truth, mode="open", seed=seed).latency_s
    return BlockTrace(arrival_s=base.arrival_s, offset_bytes=base.offset_bytes,
                      size_bytes=base.size_bytes, is_read=base.is_read, latency_s=lat)


def test_a_disk_trace_fit_finds_the_drives_cache_and_bus():
    """Buffer hits and cached writes answer in a fraction of a millisecond, the rest pay a
    seek: a disk fitted on the trace takes its write cache, bus rate and hit overhead from the
    times, and its capacity from the highest address, and predicts the second half."""
    from iosim.fit.trace import fit_trace

    t = _disk_trace()
    tf = fit_trace(t, "hdd-ncq", seed=1)
    assert tf.values["device.write_cache_entries"] == 16
    assert tf.values["device.capacity_bytes"] >= float(np.max(t.offset_bytes + t.size_bytes))
    assert tf.values["device.capacity_bytes"] == pytest.approx(20e9, rel=0.01)
    # one request size: the bus time and the overhead are one sum, the hit's cost
    hit_s = tf.values["device.hit_overhead_s"] + 8192 / tf.values["device.interface_Bps"]
    assert hit_s == pytest.approx(2e-4 + 8192 / 8e6, rel=0.15)
    errors = tf.errors("test")  # the second half, never fitted
    assert abs(errors["mean_s"]) < 0.05 and abs(errors["p50_s"]) < 0.15
    assert tf.test["demerit_s"] < 0.1 * tf.test["mean_s"][0]
    assert any("capacity is the trace's highest address" in n for n in tf.notes)


def test_a_disk_whose_buffer_answers_most_requests_is_still_tried_as_a_disk():
    """Most requests answered from the buffer in half a millisecond (a median under 1 ms),
    the rest seeking for 8 ms: the disk families are fitted too. Flash is not."""
    from iosim.fit.trace import mechanical
    from iosim.traces import BlockTrace

    rng = np.random.default_rng(3)
    n = 400
    arrival = np.arange(n) * 0.05  # 50 ms apart: each request finds the disk idle
    lat = np.where(rng.random(n) < 0.6, 0.5e-3, 8e-3)
    t = BlockTrace(arrival_s=arrival, offset_bytes=np.zeros(n), size_bytes=np.full(n, 4096.0),
                   is_read=np.ones(n, bool), latency_s=lat)
    assert np.median(lat) < 1e-3 and mechanical(t)
    assert not mechanical(_known_trace(600))

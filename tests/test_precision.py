"""Runs that decide their own length (iosim.precision): MSER-5 on series with known answers,
the stopping rule, --precision parsing, determinism. The 400-replication coverage of the
whole procedure is in tests/test_ci_coverage.py (slow)."""

import math

import numpy as np
import pytest

import iosim
from iosim import precision
from iosim.devices import GenericDevice
from iosim.spec import SpecError
from iosim.stack import BlockSpec, HbaSpec, Stack


def test_mser_cuts_a_step_transient_exactly():
    # three high means, then a tail alternating 0, 1: every cut d >= 3 leaves the tail's
    # spread k/4 over k^2 points, smallest for the longest tail, so d* = 3 exactly
    z = np.r_[[9.0, 9.0, 9.0], np.tile([0.0, 1.0], 20)]
    cut = precision.mser(z)
    assert cut.batches == 3 and cut.global_min == 3 and not cut.too_short


def test_mser_keeps_a_stationary_series_whole():
    z = np.tile([1.0, 2.0, 3.0], 30)
    assert precision.mser(z).batches == 0
    assert precision.mser(np.full(50, 4.0)).batches == 0  # flat: ties go to d = 0
    # flat up to rounding (a deterministic device's gaps between completions): no cut, no flag
    wobble = 5e-4 * (1 + 1e-15 * np.random.default_rng(1).standard_normal(400))
    cut = precision.mser(wobble)
    assert cut.batches == 0 and not cut.too_short


def test_mser_flags_a_series_with_no_steady_state():
    # a ramp: the truncated mean's error keeps shrinking as points are dropped, so the
    # global minimum is at the end (second half: the run was too short)
    z = np.arange(100.0)
    cut = precision.mser(z)
    assert cut.global_min == 100 - precision.MIN_TAIL - 1 and cut.too_short
    assert cut.batches <= 50


def test_mser_finds_a_noisy_transient():
    rng = np.random.default_rng(7)
    z = rng.normal(0.0, 1.0, 500)
    z[:50] += 10.0  # a transient of 50 batches, ten standard deviations high
    cut = precision.mser(z)
    assert 50 <= cut.batches <= 60 and not cut.too_short


def test_mser_refuses_nan_and_accepts_short_series():
    with pytest.raises(ValueError):
        precision.mser(np.array([1.0, math.nan, 2.0, 3.0]))
    assert precision.mser(np.array([5.0, 1.0])).batches == 0


def test_next_length_scales_with_the_square_of_the_ratio():
    s = precision.SAFETY
    # one run of 20,000 with the worst ratio 2 (half-width twice its bound): 4 x 20,000 x SAFETY
    assert precision.next_length([(20_000, {"iops": 0.5, "lat_mean": 2.0})]) == math.ceil(
        20_000 * 4 * s)
    # two runs: their constants n r^2 (80,000 and 40,000) are averaged
    hist = [(20_000, {"lat_mean": 2.0}), (40_000, {"lat_mean": 1.0})]
    assert precision.next_length(hist) == math.ceil(60_000 * s)
    # a ratio well under 1 still gives a fresh run, never below MIN_IOS
    assert precision.next_length([(20_000, {"iops": 0.01})]) == precision.MIN_IOS
    # a wild ratio grows the length by MAX_GROWTH at most
    assert precision.next_length([(1000, {"iops": 100.0})]) == 1000 * precision.MAX_GROWTH
    # no interval at all (NaN): double; batches too short for a p99 interval: P99_MIN_IOS
    assert precision.next_length([(8000, {"iops": math.nan})]) == 16_000
    assert precision.next_length([(3000, {"iops": 0.1})], p99_nan=True) == precision.P99_MIN_IOS


@pytest.mark.parametrize("text, value", [("2%", 0.02), ("0.02", 0.02), (" 5 % ".strip(), 0.05),
                                         ("50%", 0.5), (0.1, 0.1)])
def test_parse_precision(text, value):
    assert precision.parse_precision(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["", "two", "0", "-1%", "60%", "2", "nan", "inf%", True])
def test_parse_precision_refuses_with_one_line(text):
    with pytest.raises(SpecError, match="--precision must be a relative half-width") as err:
        precision.parse_precision(text)
    assert "\n" not in str(err.value)


MM1 = Stack(device=GenericDevice(units=1, service="exp:1ms"),
            block=BlockSpec(nr_requests=100_000), hba=HbaSpec(queue_depth=100_000))


def test_precision_run_meets_its_target_and_is_deterministic():
    wl = iosim.Workload(rate_iops=500.0)
    a = iosim.simulate(MM1, wl, seed=5, precision="5%", engine="fast")
    b = iosim.simulate(MM1, wl, seed=5, precision=0.05, engine="fast")
    assert a.to_dict(full=True) == b.to_dict(full=True)
    p = a.extra["precision"]
    assert p["met"] and p["final_ios"] == a.ios
    assert a.iops_ci95 <= 0.05 * a.iops and a.lat_mean_ci95_s <= 0.05 * a.lat_mean_s
    assert a.lat_p99_ci95_s <= 4 * 0.05 * a.lat_p99_s
    assert p["pilot_batch"] == 5 and p["warmup_ios"] == 5 * p["mser_batches"]
    # a sizing run, then fresh runs: the reported one is a fixed-length run of its own streams
    assert len(p["rounds"]) >= 2 and p["rounds"][0]["ios"] == precision.MIN_SIZING_IOS
    from iosim.simulate import _simulate

    c = _simulate(MM1, wl, ios=p["final_ios"], warmup_ios=p["warmup_ios"], seed=5,
                  engine="fast", replications=1, force=None, announce=False,
                  replication=len(p["rounds"]) - 1)
    assert c.lat_mean_s == a.lat_mean_s and c.lat_mean_ci95_s == a.lat_mean_ci95_s


def test_pilot_batches_are_the_same_in_both_engines():
    from iosim.engine.recorder import fixed_batch_size
    from iosim.simulate import _simulate

    kw = dict(ios=400, warmup_ios=0, seed=3, replications=1, force=None, announce=False,
              keep_batches=True)
    wl = iosim.Workload(iodepth=4)
    with fixed_batch_size(5):
        f = _simulate(MM1, wl, engine="fast", **kw).extra["_batches"]
        s = _simulate(MM1, wl, engine="simpy", **kw).extra["_batches"]
    assert f.nbatch == s.nbatch == 80 and f.size == s.size == 5
    assert list(f.counts) == list(s.counts) == [5] * 80
    np.testing.assert_allclose(f.sums, s.sums, rtol=1e-9)


def test_precision_refuses_replications_and_bad_values():
    with pytest.raises(SpecError, match="alternatives"):
        iosim.simulate(MM1, iosim.Workload(rate_iops=500.0), precision=0.02, replications=2)
    with pytest.raises(SpecError, match="precision must be"):
        iosim.simulate(MM1, iosim.Workload(rate_iops=500.0), precision=2)


# -- the CLI: --precision on run and sweep ---------------------------------------------------


def _cli(capsys, *argv):
    from iosim.cli import main

    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("command", [["run"], ["sweep", "--vary", "workload.iodepth=1,2"]])
@pytest.mark.parametrize("value", ["2x", "0", "75%", "-2%"])
def test_cli_refuses_bad_precision_in_one_line(capsys, command, value):
    code, out, err = _cli(capsys, *command, f"--precision={value}")
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --precision must be"), err


def test_cli_refuses_precision_with_replications(capsys):
    code, _, err = _cli(capsys, "run", "--precision", "2%", "--replications", "3")
    assert code == 2 and "alternatives" in err and len(err.strip().splitlines()) == 1


def test_cli_run_with_precision_says_what_it_did(capsys):
    argv = ["run", "--rate-iops", "400", "--set", "device.service=exp:1ms", "--ios", "2000",
            "--precision", "5%", "--engine", "fast"]
    code, out, _ = _cli(capsys, *argv)
    assert code == 0
    assert "precision" in out and "5 % reached (p99: 20 %)" in out and "MSER-5" in out
    code, out, _ = _cli(capsys, *argv[:-4], "--precision", "0.05", "--json", "--engine", "fast")
    data = __import__("json").loads(out)
    seq = data["precision"]
    assert code == 0 and seq["met"] and seq["target"] == 0.05 and seq["final_ios"] == data["ios"]


def test_cli_sweep_with_precision(capsys):
    code, out, _ = _cli(capsys, "sweep", "--vary", "workload.iodepth=1,4", "--set",
                        "device.service=exp:1ms", "--ios", "2000", "--precision", "5%",
                        "--engine", "fast", "--json")
    assert code == 0
    points = __import__("json").loads(out)
    points = points["points"] if isinstance(points, dict) and "points" in points else points
    assert len(points) == 2


def test_a_length_past_the_work_limits_is_refused_with_its_estimate(monkeypatch):
    from iosim import limits
    from iosim.simulate import estimate

    wl = iosim.Workload(rate_iops=500.0)
    # a wall-time limit between the sizing run and the ~10^5 I/Os 2 % needs here
    short = estimate(MM1, wl, ios=25_000, warmup_ios=0, engine="fast").seconds
    long = estimate(MM1, wl, ios=100_000, warmup_ios=0, engine="fast").seconds
    monkeypatch.setattr(limits, "MAX_WALL_S", (short + long) / 2)
    with pytest.raises(SpecError, match=r"precision 2 %: reaching it needs about [\d,]+ I/Os "
                       r"\(round 2\), refused: .*would take about") as err:
        iosim.simulate(MM1, wl, seed=5, precision="2%", engine="fast", force=False)
    assert "\n" not in str(err.value)

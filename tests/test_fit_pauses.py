"""Device pauses read off a sweep's latency tails (iosim.fit.pauses) and fitted with a family.

The end-to-end test fits data made by a stack whose pauses are known (a contention device
holding completions 20 times a second for 3 ms), on three depths, and predicts the others:
data the estimator was not tuned to. The real KVM sweep it was built for is a row of
docs/validation.md (kvm-virtio-quiet), checked by tests/test_validate.py.
"""

from __future__ import annotations

import math
import sys

import pytest

from iosim import Workload, simulate
from iosim.dists import Deterministic, LogNormal
from iosim.fit import fit
from iosim.fit.catalogue import MODELS
from iosim.fit.pauses import hold_signature, pause_estimate, pause_ios
from iosim.fit.points import _points
from iosim.results import Curve

US, MS = 1e-6, 1e-3


def test_a_held_share_and_the_pause_length_come_from_the_jump():
    """A body of 200 us with 0.4 % of the requests held 4 ms longer: the percentiles jump
    between p99 and p99.9; the length is the held percentiles' excess over the body, the
    share what the holds add to the mean, within the bracket the jump fixes."""
    body = 200 * US
    levels = [(0.5, body), (0.9, body), (0.95, body), (0.99, body), (0.999, body + 4 * MS),
              (0.9999, body + 4 * MS)]
    mean = body + 0.004 * 4 * MS
    share, length = hold_signature(levels, mean)
    assert length == pytest.approx(4 * MS)
    assert share == pytest.approx(0.004)
    # a mean that says more than the jump allows is kept to its bracket (0.1 % .. 1 %)
    assert hold_signature(levels, body + 0.05 * 4 * MS)[0] == pytest.approx(0.01)
    assert hold_signature(levels, body)[0] == pytest.approx(0.001)


def test_smooth_tails_and_a_lone_outlier_are_not_holds():
    """A lognormal-like tail rises by less than 4x per level; a jump at the highest level
    only (one request in 10,000) rests on too few requests."""
    smooth = [(0.5, 100 * US), (0.9, 150 * US), (0.95, 180 * US), (0.99, 260 * US),
              (0.999, 400 * US), (0.9999, 700 * US)]
    assert hold_signature(smooth, 110 * US) is None
    lone = smooth[:-1] + [(0.9999, 5 * MS)]
    assert hold_signature(lone, 110 * US) is None


def _sweep(stack, depths, ios=150_000):
    out = []
    for i, qd in enumerate(depths):
        r = simulate(stack, Workload(rw="randread", iodepth=qd), ios=ios, seed=10 + i,
                     engine="fast")
        r.params.update({"iodepth": qd, "numjobs": 1, "rw": "randread"})
        out.append(r)
    return Curve(out, x="iodepth")


_DEVICE = {"device.service": LogNormal(60 * US, 0.05), "device.contention": 0.1,
           "host.overhead": 5 * US}


def test_a_pause_free_sweep_gets_no_pauses():
    stack = MODELS["contention"].stack().with_(**_DEVICE)
    pts = _points(_sweep(stack, (1, 16, 256), ios=40_000), None, [])
    assert pause_estimate(pts) is None


def test_pauses_are_refused_when_a_point_without_holds_would_show_them():
    """A rate that would hold over 0.3 % of a point whose percentiles show no hold, while that
    point's body is far shorter than the pause, contradicts the data: no estimate."""
    stack = MODELS["contention"].stack().with_(**_DEVICE)
    held = stack.with_(**{"pauses.rate_hz": 20.0, "pauses.duration": Deterministic(3 * MS)})
    pts = _points(_sweep(held, (16,)), None, []) + _points(
        _sweep(stack, (32,), ios=40_000), None, [])
    assert pause_estimate(pts) is None


@pytest.mark.filterwarnings("ignore")
def test_a_sweep_with_pauses_is_fitted_with_them_and_predicts_its_tails(monkeypatch):
    """Known pauses (20/s of 3 ms): fitted on depths 1, 16, 256, the estimate is near them and
    the held-out p99 is predicted far better than by the same family without pauses (16 %
    without, 6.5 % with, when this test was written)."""
    true = MODELS["contention"].stack().with_(
        **_DEVICE, **{"pauses.rate_hz": 20.0, "pauses.duration": Deterministic(3 * MS)})
    curve = _sweep(true, (1, 2, 4, 8, 16, 32, 64, 128, 256))
    held = {"iodepth": [2, 4, 8, 32, 64, 128]}
    got = fit(curve, model="contention", holdout=held)
    pz = got.stack.pauses
    assert pz.on and any(n.startswith("pauses: ") for n in got.notes)
    assert 0.6 * 20 <= pz.rate_hz <= 1.5 * 20
    assert pz.duration.mean_s == pytest.approx(3 * MS, rel=0.25)
    assert got.ios > 8000  # long enough to meet the pauses
    monkeypatch.setattr(sys.modules["iosim.fit"], "pause_estimate", lambda train: None)
    without = fit(curve, model="contention", holdout=held)
    assert not without.stack.pauses.on
    p99 = got.mape_by_set["holdout"]["lat_p99_s"]
    assert p99 < 0.7 * without.mape_by_set["holdout"]["lat_p99_s"]
    for m in ("iops", "lat_mean_s"):  # the means are no worse for it
        assert got.mape_by_set["holdout"][m] <= without.mape_by_set["holdout"][m] + 1.0


def test_the_runs_are_long_enough_to_meet_the_pauses():
    class P:
        measured = {"iops": 90_000.0}

    from iosim.fit.pauses import PauseEstimate

    est = PauseEstimate(15.0, 3 * MS, (16,))
    assert pause_ios(est, [P()], 8000) == math.ceil(30 * 90_000 / 15)
    assert pause_ios(est, [P()], 8000, seen=10) == math.ceil(10 * 90_000 / 15)
    assert pause_ios(PauseEstimate(0.5, 3 * MS, (16,)), [P()], 8000) == 400_000  # capped

"""The multipath path choice: one function, the same in both engines."""

import numpy as np

from iosim.engine import fast_multipath
from iosim.engine.path_choice import QUEUE_LENGTH, ROUND_ROBIN, SERVICE_TIME, pick_path


def _paths(alive, out, nbytes):
    return (np.array(alive, np.bool_), np.array(out, np.int64), np.array(nbytes, float))


def test_round_robin_takes_the_first_free_path_from_the_pointer():
    alive, out, nb = _paths([True, True, True], [0, 4, 0], [0, 0, 0])
    assert pick_path(alive, out, nb, 1, 4, ROUND_ROBIN) == 2  # path 1 is full (qd 4)
    assert pick_path(alive, out, nb, 0, 4, ROUND_ROBIN) == 0


def test_queue_length_ties_go_to_the_first_in_round_robin_order():
    alive, out, nb = _paths([True, True, True, True], [2, 1, 3, 1], [0, 0, 0, 0])
    assert pick_path(alive, out, nb, 0, 8, QUEUE_LENGTH) == 1
    assert pick_path(alive, out, nb, 2, 8, QUEUE_LENGTH) == 3  # scan 2, 3, 0, 1


def test_service_time_picks_the_fewest_outstanding_bytes_among_live_paths():
    alive, out, nb = _paths([True, False, True], [1, 0, 1], [8192.0, 0.0, 4096.0])
    assert pick_path(alive, out, nb, 0, 8, SERVICE_TIME) == 2  # path 1 is down


def test_no_free_path():
    alive, out, nb = _paths([False, True], [0, 2], [0, 0])
    assert pick_path(alive, out, nb, 0, 2, QUEUE_LENGTH) == -1


def test_the_compiled_choice_is_the_function_the_reference_calls():
    rng = np.random.default_rng(5)
    for _ in range(500):
        n = int(rng.integers(1, 6))
        alive = rng.random(n) < 0.8
        out = rng.integers(0, 4, n).astype(np.int64)
        nb = rng.integers(0, 4, n) * 4096.0
        rr, qd, policy = int(rng.integers(0, n)), int(rng.integers(1, 5)), int(rng.integers(0, 3))
        assert fast_multipath.pick_path(alive, out, nb, rr, qd, policy) == pick_path(
            alive, out, nb, rr, qd, policy)

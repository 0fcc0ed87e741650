"""Progress of one long run, for either engine: a tqdm bar that the engines tick as I/Os
complete, without changing anything they compute.

``simulate`` opens :func:`progress_bar` around a run ``iosim.limits`` announced as long; the
fast engine ticks it from its compiled loop (numba object mode, every 2^20 completions), the
SimPy engine from its completion handler (every 2^12).
"""

from __future__ import annotations

import contextlib
import sys

__all__ = ["active", "progress_bar", "tick"]

_STATE: dict = {"bar": None}


def active() -> bool:
    return _STATE["bar"] is not None


def tick(done: int) -> None:
    """The run has completed ``done`` I/Os (warm-up included)."""
    bar = _STATE["bar"]
    if bar is not None:
        bar.update(int(done) - bar.n)


@contextlib.contextmanager
def progress_bar(total: int, desc: str = "simulating"):
    """Within this block, runs show their completions on a tqdm bar (stderr)."""
    from tqdm.auto import tqdm

    bar = tqdm(total=total, desc=desc, unit=" I/Os", unit_scale=True, leave=False,
               file=sys.stderr)
    _STATE["bar"] = bar
    try:
        yield bar
    finally:
        _STATE["bar"] = None
        bar.close()

"""Block-trace reading speed and memory: one command, one table.

    .venv/bin/python benchmarks/block_read.py                 # 2x10^6 requests
    .venv/bin/python benchmarks/block_read.py --requests 1e7  # a 280 MB file

Writes a synthetic DiskSim ASCII trace (ms, sectors; Poisson arrivals, random addresses) to a
temporary directory, then reads it in fresh processes: streamed with ``iter_block_trace``
(100,000-request chunks) and whole with ``read_block_trace``. Prints requests per second and
the peak resident set of each process beside the resident set after ``import iosim.traces``,
so the difference is what reading costs. The streamed figure should not grow with the file.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

_CHILD = r"""
import resource, sys, time
from iosim.traces import iter_block_trace, read_block_trace
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t0 = time.perf_counter()
if sys.argv[2] == "stream":
    n = sum(len(c) for c in iter_block_trace(sys.argv[1], "disksim-ascii",
            chunk_requests=100_000, time_unit="ms", size_unit="sectors"))
else:
    n = len(read_block_trace(sys.argv[1], "disksim-ascii", time_unit="ms", size_unit="sectors"))
dt = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(n, dt, base, peak)
"""


def write_trace(path: Path, n: int, seed: int = 1) -> None:
    rng = np.random.default_rng(seed)
    t = 0.0
    with open(path, "w") as fh:
        for start in range(0, n, 200_000):
            m = min(200_000, n - start)
            arrivals = t + np.cumsum(rng.exponential(0.5, m))
            t = float(arrivals[-1])
            cols = np.column_stack([arrivals, np.zeros(m), rng.integers(0, 10**9, m),
                                    rng.choice([8, 16, 64], m), rng.integers(0, 2, m)])
            np.savetxt(fh, cols, fmt=["%.3f", "%d", "%d", "%d", "%d"])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=float, default=2e6)
    args = ap.parse_args(argv)
    n = int(args.requests)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "synthetic.trace"
        write_trace(path, n)
        size_mb = path.stat().st_size / 1e6
        print(f"{n:,} requests, {size_mb:.0f} MB of DiskSim ASCII")
        print(f"{'mode':<8} {'requests/s':>12} {'s':>7} {'RSS after import':>17} {'peak RSS':>9}")
        for mode in ("stream", "whole"):
            out = subprocess.run([sys.executable, "-c", _CHILD, str(path), mode],
                                 capture_output=True, text=True, check=True).stdout.split()
            got, dt, base, peak = int(out[0]), float(out[1]), float(out[2]), float(out[3])
            assert got == n, (got, n)
            print(f"{mode:<8} {n / dt:>12,.0f} {dt:>7.1f} {base:>14.0f} MiB {peak:>5.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())

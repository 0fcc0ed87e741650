"""Trace replay benchmark: requests per second and peak memory of a long replay (issue 14).

Run from the repository root::

    .venv/bin/python benchmarks/replay.py             # 10^7 requests (a minute or two)
    .venv/bin/python benchmarks/replay.py --n 1000000 # shorter

A synthetic trace (Poisson arrivals at 70 % of a generic device's capacity, 4 KiB reads at
random offsets) is replayed open loop on the fast engine in a fresh process, so the peak
resident set (``ru_maxrss``) is the replay's own. The figures move with the machine's load.
Goals (issue 14): >= 1M requests/s and <= 500 MB peak for 10^7 requests.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def child(n: int) -> dict:
    sys.path.insert(0, str(ROOT))
    import numpy as np

    from iosim.devices import GenericDevice
    from iosim.replay import replay
    from iosim.stack import Stack
    from iosim.traces.blocktrace import BlockTrace

    stack = Stack(device=GenericDevice(units=4, service="exp:0.2ms"))
    rate = 0.7 * 4 / 0.2e-3  # 70 % of the device's 20,000 IOPS
    # warm the compiled kernel (cache load or compile) outside the timed run
    small = BlockTrace(arrival_s=np.arange(1000) / rate, offset_bytes=np.zeros(1000),
                       size_bytes=np.full(1000, 4096.0), is_read=np.ones(1000, bool))
    replay(small, stack)
    after_imports = _rss_mb()
    rng = np.random.default_rng(1)
    arrival = rng.exponential(1 / rate, n)
    np.cumsum(arrival, out=arrival)
    offset = rng.integers(0, 1 << 28, n).astype(np.float64)
    offset *= 4096.0
    trace = BlockTrace(arrival_s=arrival, offset_bytes=offset, size_bytes=np.full(n, 4096.0),
                       is_read=np.ones(n, bool))
    del arrival, offset
    with_trace = _rss_mb()
    t = time.perf_counter()
    r = replay(trace, stack)
    wall = time.perf_counter() - t
    assert r.results.ios == n and np.isfinite(r.latency_s).all()
    return {"requests": n, "wall_s": wall, "requests_per_s": n / wall,
            "rss_after_imports_MB": after_imports, "rss_with_trace_MB": with_trace,
            "peak_rss_MB": _rss_mb(), "trace_bytes_per_request": 45,
            "lat_mean_ms": r.results.lat_mean_s * 1e3, "windows": len(r.windows)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000_000, help="requests (default 10^7)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.n)))
        return 0
    out = subprocess.run([sys.executable, __file__, "--child", "--n", str(args.n)],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    res = json.loads(out.stdout.strip().splitlines()[-1])
    res["load_average"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(res))
        return 0
    rows = [
        ("requests replayed (open loop, fast engine)", f"{res['requests']:,}"),
        ("wall time of replay()", f"{res['wall_s']:.2f} s"),
        ("requests per second", f"{res['requests_per_s'] / 1e6:.2f} M/s   (goal >= 1 M/s)"),
        ("resident set after imports + warm kernel", f"{res['rss_after_imports_MB']:.0f} MB"),
        ("... with the trace in memory", f"{res['rss_with_trace_MB']:.0f} MB"),
        ("peak resident set (ru_maxrss)", f"{res['peak_rss_MB']:.0f} MB   (goal <= 500 MB)"),
        ("load average (1 min)", f"{res['load_average']:.1f}"),
    ]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

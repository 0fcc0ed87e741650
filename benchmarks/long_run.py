"""Peak memory of one long run: statistics stream into fixed-size histograms, so memory must
not grow with the number of I/Os.

    .venv/bin/python benchmarks/long_run.py --ios 10000000 --engine simpy
    .venv/bin/python benchmarks/long_run.py --ios 100000000 --engine fast

Each run happens in a fresh process; the figure printed is that process's peak resident set
(ru_maxrss), next to the peak of a short run of the same stack as the baseline.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

CHILD = r"""
import json, resource, sys, time
import iosim
from iosim.devices import GenericDevice
from iosim.stack import HbaSpec, Stack
ios, engine = int(sys.argv[1]), sys.argv[2]
stack = Stack(hba=HbaSpec(queue_depth=4), device=GenericDevice(units=64, service="exp:0.46ms"))
t0 = time.perf_counter()
r = iosim.simulate(stack, iosim.Workload(numjobs=10), ios=ios, warmup_ios=1000, seed=1,
                   engine=engine, force=True)  # a long run on purpose
dt = time.perf_counter() - t0
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"ios": r.ios, "engine": r.engine, "seconds": dt, "peak_mb": peak_mb,
                  "iops": r.iops, "lat_p99_s": r.lat_p99_s}))
"""


def run(ios: int, engine: str) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(ios), engine], check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ios", type=int, default=10_000_000)
    ap.add_argument("--engine", default="simpy", choices=["simpy", "fast", "auto"])
    args = ap.parse_args()
    t = time.perf_counter()
    base = run(10_000, args.engine)
    long = run(args.ios, args.engine)
    print(f"{'run':>12} {'engine':>7} {'I/Os':>12} {'seconds':>9} {'peak MB':>8}")
    for name, r in (("baseline", base), ("long", long)):
        print(f"{name:>12} {r['engine']:>7} {r['ios']:>12,} {r['seconds']:>9.1f} "
              f"{r['peak_mb']:>8.0f}")
    growth = long["peak_mb"] - base["peak_mb"]
    print(f"memory growth from {base['ios']:,} to {long['ios']:,} I/Os: {growth:+.0f} MB "
          f"(total {time.perf_counter() - t:.0f} s)")


if __name__ == "__main__":
    main()

"""The one-time compile that set-up does (``python -m iosim.warmup``: the flash and disk kernel
variants, in two processes), timed from cold: a fresh numba cache directory, so nothing is
loaded. Issue 12's goal: <= 60 s on a 2-core machine.

    python benchmarks/setup_compile.py            # set-up as make lab / make test run it
    python benchmarks/setup_compile.py --each     # and each variant alone, one process each

Prints the wall seconds (and the machine's load, which a shared machine's figure depends on).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

ONE = ("from iosim.engine import jit; jit.ANNOUNCE = False; "
       "from iosim.warmup import _run; _run([{name!r}])")


def timed(cmd: list[str]) -> float:
    """Wall seconds of ``cmd`` run with an empty numba cache directory of its own."""
    with tempfile.TemporaryDirectory(prefix="iosim-nbcache-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        t = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--each", action="store_true", help="also each variant alone")
    args = ap.parse_args()
    load = os.getloadavg()[0]
    print(f"{os.cpu_count()} CPUs, load average {load:.1f} at the start")
    rows = [("set-up compile, both variants (python -m iosim.warmup)",
             timed([sys.executable, "-m", "iosim.warmup"]), "<= 60")]
    if args.each:
        for label, preset in (("flash variant alone (nvme-intel-750)", "nvme-intel-750"),
                              ("disk variant alone (hdd-7200)", "hdd-7200")):
            rows.append((label, timed([sys.executable, "-c", ONE.format(name=preset)]), ""))
    for label, seconds, goal in rows:
        print(f"  {label:<58} {seconds:6.1f} s  {goal}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

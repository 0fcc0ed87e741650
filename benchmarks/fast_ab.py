"""Fast-engine I/Os per second of one row of ``benchmarks/engine.py``, in a given source tree:
the A/B figure for a change to the kernel (run it on two checkouts, one after the other).

    .venv/bin/python benchmarks/fast_ab.py TREE KEY [IOS]

TREE is a checkout's root (its ``iosim`` is imported, compiled there on first use), KEY a row's
key (ref: the reference stack; hdd, raid5_hdd, raid0_wbc, array, ssd, cloud, raid0_cloud,
raid10_ssd). Prints the best of three runs of IOS (default 100,000) I/Os after a short warm
run.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[3].strip(), file=sys.stderr)
        return 2
    tree = str(Path(argv[0]).resolve())
    sys.path[:0] = [tree, tree + "/benchmarks"]
    import engine as rows  # noqa: PLC0415  (this tree's benchmarks/engine.py)

    from iosim.engine import fast  # noqa: PLC0415

    if not fast.__file__.startswith(tree):
        print(f"fast_ab: imported {fast.__file__}, not {tree}'s", file=sys.stderr)
        return 2
    stacks = {"ref": rows.reference(), **{key: sw for _, key, sw in rows.device_stacks()}}
    if argv[1] not in stacks:
        print(f"fast_ab: no row {argv[1]!r} (rows: {', '.join(stacks)})", file=sys.stderr)
        return 2
    stack, wl = stacks[argv[1]]
    ios = int(argv[2]) if len(argv) > 2 else 100_000
    fast.run_fast(stack, wl, ios=2000, warmup_ios=100, seed=1)
    best = 0.0
    for _ in range(3):
        t = time.perf_counter()
        fast.run_fast(stack, wl, ios=ios, warmup_ios=1000, seed=1)
        best = max(best, ios / (time.perf_counter() - t))
    print(f"{tree} {argv[1]} {best:,.0f} I/Os per second")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Compile the fast engine once, at set-up, so the first simulation a user runs is quick.

``make lab`` and ``make test`` run ``python -m iosim.warmup`` after installing. numba keeps
the compiled kernel in ``__pycache__`` beside the source (keyed on the source files), so later
processes load it in a fraction of a second instead of compiling for a minute or two.
"""

from __future__ import annotations

import sys
import time


def warm() -> float:
    """Run one tiny simulation per device family the fast engine runs; return the seconds spent."""
    from . import presets
    from .simulate import simulate
    t0 = time.perf_counter()
    # (the RAID preset compiles the kernel variant with the RAID steps: engine.fast._kernel_raid)
    for name in ("allflash-lun", "nvme-intel-750", "cloud-uos-1tb", "raid0-12x-hdd-wbc"):
        stack, workload = presets.load(name)
        simulate(stack, workload, ios=200, warmup_ios=20, seed=1, engine="fast")
    return time.perf_counter() - t0


def main() -> int:
    from .engine import jit

    jit.ANNOUNCE = False  # the line below says what is happening
    print(
        "iosim: preparing the fast engine (numba compiles it once per checkout, a minute or two)",
        flush=True,
    )
    seconds = warm()
    print(f"iosim: fast engine ready ({seconds:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Compile the fast engine once, at set-up, so the first simulation a user runs is quick.

``make lab`` and ``make test`` run ``python -m iosim.warmup`` after installing. numba keeps
the compiled kernel in ``__pycache__`` beside the source (keyed on the source files), so later
processes load it in a fraction of a second instead of compiling for a minute or two.
"""

from __future__ import annotations

import subprocess
import sys
import time

#: one tiny run per device family the fast engine runs: the generic device, the SSD and the cloud
#: volume compile the kernel's flash variant; the disk, RAID and array presets its disk variant
#: (``engine.fast.kernel_for``). The third variant, a RAID of SSDs (both families' steps), is
#: left to its first run, which announces its compile: every preset and notebook uses the other two.
GENERIC = ("allflash-lun", "nvme-intel-750", "cloud-uos-1tb")
RAID = ("hdd-7200", "raid0-12x-hdd-wbc")
_CHILD = ("from iosim.engine import jit; jit.ANNOUNCE = False; "
          "from iosim.warmup import RAID, _run; _run(RAID)")


def _run(names) -> None:
    from . import presets
    from .simulate import simulate
    for name in names:
        stack, workload = presets.load(name)
        simulate(stack, workload, ios=200, warmup_ios=20, seed=1, engine="fast")


def warm() -> float:
    """Compile the flash and disk kernel variants; return the seconds spent. The disk variant
    compiles in a second process at the same time (numba compiles on one core; the variants
    are cached under different names, so neither process overwrites the other's)."""
    t0 = time.perf_counter()
    other = subprocess.Popen([sys.executable, "-c", _CHILD])
    try:
        _run(GENERIC)
    finally:
        code = other.wait()
    if code != 0:  # compile it here, where its error shows
        _run(RAID)
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

"""Slider moves in the notebooks' explorers: seconds from a control's new value to the figure
updated, for notebook 04 (a 7,200 rpm disk) and notebook 05 (a RAID 5 of six such disks).

Run from the repository root::

    .venv/bin/python benchmarks/widgets.py

The explorers are built exactly as the notebooks build them (same stacks, controls and
defaults; I/Os per point as a reader gets them, IOSIM_FAST unset). A move sets the threads
slider, which re-simulates every point of the curve, the way a reader's drag does; the figure
is built but not drawn (the browser's own drawing is not counted). The same moves run once
before timing, so compilation and caches are warm. Goal (issue 12): <= 0.5 s a move. The
same moves measured in a real browser, drawing included: ``tests/test_browser.py -k "04 or 05"
-s`` (printed, and written to test-artifacts/browser/timings.txt).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.pop("IOSIM_FAST", None)

import iosim  # noqa: E402
from iosim import presets, widgets  # noqa: E402


def notebook_04():
    hdd, hdd_wl = presets.load("hdd-7200")
    return widgets.explore(hdd, hdd_wl, controls=("threads", "scheduler", "span"),
                           threads=8, max_threads=32, spacing="log")


def notebook_05():
    e8_stack, e8_wl = presets.load("raid0-12x-hdd-wbc")
    member = {**presets.load("hdd-7200")[0].device.to_dict(), "scheduler": "fifo"}
    plain = e8_stack.with_(**{
        "device.member": member, "device.members": 6, "device.write_cache_bytes": 0,
        "device.controller_overhead_s": 0, "device.coalesce_count": 1,
        "device.coalesce_timeout_s": 0,
    })
    plain = iosim.Stack.from_dict({**plain.to_dict(), "name": "6 x hdd-7200, no cache"})
    return widgets.explore(plain.with_(**{"device.level": "5"}), e8_wl,
                           controls=("threads", "level", "members", "read_pct", "cache"),
                           threads=16, max_threads=64, spacing="log", theory=False)


def moves(explorer, values, repeat: int = 3) -> list[float]:
    slider = explorer.controls["threads"]
    times = []
    for _ in range(repeat):
        for v in values:
            t = time.perf_counter()
            slider.value = v  # observers re-simulate and rebuild the figure synchronously
            times.append(time.perf_counter() - t)
    return times


def main() -> int:
    rows = []
    for name, build, values in (
        ("notebook 04 (hdd-7200), threads 8 -> 32 -> 8", notebook_04, (32, 8)),
        ("notebook 05 (RAID 5 of 6 disks), threads 16 -> 64 -> 16", notebook_05, (64, 16)),
    ):
        ex = build()
        moves(ex, values, repeat=1)  # warm
        t = moves(ex, values)
        used = ex.curve.points[0].engine if ex.curve is not None else "?"
        rows.append((name, statistics.median(t), max(t), used))
    w = max(len(r[0]) for r in rows)
    print(f"{'slider move':<{w}}  median s  max s  engine")
    for name, med, mx, used in rows:
        print(f"{name:<{w}}  {med:8.2f}  {mx:5.2f}  {used}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Calibrating on a trace (``iosim.fit_trace``, ``iosim replay TRACE --fit``): time and errors.

    .venv/bin/python benchmarks/fit_trace.py            # every family and auto, both KVM traces
    .venv/bin/python benchmarks/fit_trace.py --json

For each fio trace of ``data/measured_kvm_virtio_trace`` (4 KiB randrw 70/30 at Poisson 10,000
and 30,000 I/O per s) and each family: the wall time of the fit (warm: the replays' kernel is
compiled or loaded first), the replays it took, and the errors of the mean and p99 on the
trace's second half (never fitted) and on the other trace (another load). The trace's own
run-to-run spread is 17 % in the mean (the folder's README).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from iosim.fit.trace import _replayed, _summary, fit_trace
from iosim.traces import read_block_trace

DATA = Path(__file__).resolve().parents[1] / "data" / "measured_kvm_virtio_trace"
MODELS = ("generic", "contention", "ssd", "cloud", "auto")


def _trace(rate: int):
    return read_block_trace(DATA / f"rw70-poisson-{rate}_lat.1.log.xz",
                            iolog=DATA / f"rw70-poisson-{rate}.iolog.xz")


def _err(part: dict, key: str) -> float:
    m, s = part[key]
    return 100.0 * (s - m) / m


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    traces = {10000: _trace(10000), 30000: _trace(30000)}
    fit_trace(traces[10000].head(400), "generic", budget=5)  # compile or load the kernel
    rows = []
    for rate, trace in traces.items():
        other_rate = 30000 if rate == 10000 else 10000
        other = traces[other_rate]
        for model in MODELS:
            t0 = time.perf_counter()
            tf = fit_trace(trace, model, seed=1)
            seconds = time.perf_counter() - t0
            cross = _summary(np.asarray(other.latency_s, float), _replayed(other, tf.stack, 1))
            rows.append({"trace": rate, "model": model, "chosen": tf.model,
                         "seconds": round(seconds, 2), "replays": tf.evaluations,
                         "half_mean_pct": round(_err(tf.test, "mean_s"), 1),
                         "half_p99_pct": round(_err(tf.test, "p99_s"), 1),
                         "other": other_rate,
                         "other_mean_pct": round(_err(cross, "mean_s"), 1),
                         "other_p99_pct": round(_err(cross, "p99_s"), 1)})
    if args.json:
        print(json.dumps(rows))
        return 0
    print(f"{'trace':>6} {'model':<11} {'chosen':<11} {'s':>6} {'replays':>7} "
          f"{'2nd half mean':>13} {'p99':>6}   other trace  {'mean':>6} {'p99':>6}")
    for r in rows:
        print(f"{r['trace']:>6} {r['model']:<11} {r['chosen']:<11} {r['seconds']:>6.1f} "
              f"{r['replays']:>7} {r['half_mean_pct']:>+12.1f}% {r['half_p99_pct']:>+5.1f}%"
              f"   {r['other']:>11}  {r['other_mean_pct']:>+5.1f}% {r['other_p99_pct']:>+5.1f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

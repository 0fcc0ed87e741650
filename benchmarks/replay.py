"""Trace replay benchmark: requests per second and peak memory of a long replay (issue 14).

Run from the repository root::

    .venv/bin/python benchmarks/replay.py             # 10^7 requests, streamed
    .venv/bin/python benchmarks/replay.py --n 1000000 # shorter
    .venv/bin/python benchmarks/replay.py --compare   # with measured latencies to compare
    .venv/bin/python benchmarks/replay.py --in-memory # the trace as one BlockTrace
    .venv/bin/python benchmarks/replay.py --file      # written as an SPC file, read back

A synthetic trace (Poisson arrivals at 70 % of a generic device's capacity, 4 KiB reads at
random offsets; with ``--compare``, a measured latency per request too) is replayed open loop
on the fast engine in a fresh process, so the peak resident set (``ru_maxrss``) is the
replay's own. By default the trace is generated a chunk (2^20 requests) at a time and
streamed (a ``BlockTraceFile``-like source: its facts first, then its chunks), as a trace file
too long for memory is; ``--in-memory`` builds it whole as a ``BlockTrace`` first. Past
2^21 requests the replay keeps histograms, not every latency (``iosim.replay_stats``). With
``--file`` the trace is written to a temporary SPC file (about 30 bytes a line) and replayed
through ``BlockTraceFile`` as ``iosim replay`` does with a long file: the parse (SPC's batches
use pandas) and the replay are timed apart. The figures move with the machine's load.
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
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
CHUNK = 1 << 20


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


class SyntheticTrace:
    """A trace generated chunk by chunk, the same chunks on every pass (never whole)."""

    def __init__(self, n: int, rate: float, compare: bool):
        from iosim.traces.block_stream import TraceFacts

        self.n, self.rate, self.compare = n, rate, compare
        self.source, self.warnings = "synthetic", ()
        self.facts = TraceFacts()
        for piece in self.chunks():
            self.facts.add(piece)

    def __len__(self) -> int:
        return self.n

    def chunks(self):
        import numpy as np

        rng = np.random.default_rng(1)
        t = 0.0
        for i in range(0, self.n, CHUNK):
            m = min(CHUNK, self.n - i)
            arrival = rng.exponential(1 / self.rate, m)
            arrival[0] += t
            np.cumsum(arrival, out=arrival)
            t = float(arrival[-1])
            offset = rng.integers(0, 1 << 28, m).astype(np.float64)
            offset *= 4096.0
            nan = np.broadcast_to(np.array(np.nan), (m,))
            lat = rng.lognormal(-8.0, 0.5, m) if self.compare else nan
            yield SimpleNamespace(arrival_s=arrival, offset_bytes=offset,
                                  size_bytes=np.full(m, 4096.0), is_read=np.ones(m, bool),
                                  device=np.zeros(m, np.int32), latency_s=lat, idle_s=nan)


def write_spc(trace: SyntheticTrace, path: Path) -> None:
    """The trace as an SPC file (ASU, LBA in 512-byte sectors, size, opcode, seconds)."""
    with open(path, "w") as fh:
        for c in trace.chunks():
            for i in range(0, len(c.arrival_s), 1 << 16):  # (small strings at a time)
                lba = (c.offset_bytes[i:i + (1 << 16)] // 512).astype("int64").tolist()
                t = c.arrival_s[i:i + (1 << 16)].tolist()
                fh.write("".join(f"0,{b},4096,r,{x:.7f}\n"
                                 for b, x in zip(lba, t, strict=True)))


def child_file(n: int) -> dict:
    sys.path.insert(0, str(ROOT))
    import tempfile

    import numpy as np

    from iosim.devices import GenericDevice
    from iosim.replay import replay
    from iosim.stack import Stack
    from iosim.traces import BlockTraceFile
    from iosim.traces.blocktrace import BlockTrace

    stack = Stack(device=GenericDevice(units=4, service="exp:0.2ms"))
    rate = 0.7 * 4 / 0.2e-3
    small = BlockTrace(arrival_s=np.arange(1000) / rate, offset_bytes=np.zeros(1000),
                       size_bytes=np.full(1000, 4096.0), is_read=np.ones(1000, bool))
    replay(small, stack)
    after_imports = _rss_mb()
    with tempfile.TemporaryDirectory(prefix="iosim-bench-") as tmp:
        path = Path(tmp) / "trace.spc"
        write_spc(SyntheticTrace(n, rate, False), path)
        after_write = _rss_mb()
        t = time.perf_counter()
        with BlockTraceFile(path, "spc") as f:
            scan = time.perf_counter() - t
            after_parse = _rss_mb()
            t = time.perf_counter()
            r = replay(f, stack)
            wall = time.perf_counter() - t
        size = path.stat().st_size
    assert r.results.ios == n
    return {"requests": n, "file_MB": size / 1e6, "parse_s": scan,
            "parse_requests_per_s": n / scan, "wall_s": wall, "requests_per_s": n / wall,
            "rss_after_imports_MB": after_imports, "rss_after_writing_MB": after_write,
            "rss_after_parse_MB": after_parse, "peak_rss_MB": _rss_mb(),
            "modules": sorted(m for m in ("pandas", "scipy", "plotly", "pyarrow")
                              if m in sys.modules)}


def child(n: int, compare: bool, in_memory: bool) -> dict:
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
    trace = SyntheticTrace(n, rate, compare)
    if in_memory:  # the four columns a replay needs, filled chunk by chunk
        cols = {"arrival_s": np.empty(n), "offset_bytes": np.empty(n),
                "size_bytes": np.empty(n), "is_read": np.empty(n, bool)}
        at = 0
        for c in trace.chunks():
            m = len(c.arrival_s)
            for k, col in cols.items():
                col[at:at + m] = getattr(c, k)
            at += m
        trace = BlockTrace(**cols)
        del cols
    with_trace = _rss_mb()
    t = time.perf_counter()
    r = replay(trace, stack)
    wall = time.perf_counter() - t
    assert r.results.ios == n
    out = {"requests": n, "wall_s": wall, "requests_per_s": n / wall, "streamed": not in_memory,
           "exact": r.exact, "rss_after_imports_MB": after_imports,
           "rss_with_trace_MB": with_trace, "peak_rss_MB": _rss_mb(),
           "lat_mean_ms": r.results.lat_mean_s * 1e3, "windows": len(r.windows),
           "modules": sorted(m for m in ("pandas", "scipy", "plotly", "pyarrow")
                             if m in sys.modules)}
    if r.comparison is not None:
        out["demerit_ms"] = r.comparison.demerit_s * 1e3
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000_000, help="requests (default 10^7)")
    ap.add_argument("--compare", action="store_true",
                    help="give every request a measured latency (the comparison runs too)")
    ap.add_argument("--in-memory", action="store_true",
                    help="build the whole trace as one BlockTrace first")
    ap.add_argument("--file", action="store_true",
                    help="write the trace as an SPC file and replay it streamed from there")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        res = child_file(args.n) if args.file else child(args.n, args.compare, args.in_memory)
        print(json.dumps(res))
        return 0
    extra = (["--compare"] * args.compare + ["--in-memory"] * args.in_memory
             + ["--file"] * args.file)
    out = subprocess.run([sys.executable, __file__, "--child", "--n", str(args.n), *extra],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    res = json.loads(out.stdout.strip().splitlines()[-1])
    res["load_average"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(res))
        return 0
    if args.file:
        rows = [
            ("requests replayed from an SPC file", f"{res['requests']:,} "
             f"({res['file_MB']:.0f} MB)"),
            ("first pass: parse + temporary copy", f"{res['parse_s']:.1f} s   "
             f"({res['parse_requests_per_s'] / 1e6:.2f} M/s)"),
            ("replay() from the copy", f"{res['wall_s']:.2f} s   "
             f"({res['requests_per_s'] / 1e6:.2f} M/s)"),
            ("resident set after imports + warm kernel", f"{res['rss_after_imports_MB']:.0f} MB"),
            ("... after writing the file", f"{res['rss_after_writing_MB']:.0f} MB"),
            ("... after the first pass", f"{res['rss_after_parse_MB']:.0f} MB"),
            ("peak resident set (ru_maxrss)", f"{res['peak_rss_MB']:.0f} MB   (goal <= 500 MB)"),
            ("load average (1 min)", f"{res['load_average']:.1f}"),
            ("heavy modules loaded", ", ".join(res["modules"]) or "none"),
        ]
        _print_rows(rows)
        return 0
    rows = [
        ("requests replayed (open loop, fast engine)", f"{res['requests']:,}"),
        ("trace", ("streamed in chunks" if res["streamed"] else "one BlockTrace in memory")
         + (", every latency kept" if res["exact"] else ", histograms kept")),
        ("wall time of replay()", f"{res['wall_s']:.2f} s"),
        ("requests per second", f"{res['requests_per_s'] / 1e6:.2f} M/s   (goal >= 1 M/s)"),
        ("resident set after imports + warm kernel", f"{res['rss_after_imports_MB']:.0f} MB"),
        ("... with the trace built (or its facts read)", f"{res['rss_with_trace_MB']:.0f} MB"),
        ("peak resident set (ru_maxrss)", f"{res['peak_rss_MB']:.0f} MB   (goal <= 500 MB)"),
        ("load average (1 min)", f"{res['load_average']:.1f}"),
        ("heavy modules loaded", ", ".join(res["modules"]) or "none"),
    ]
    _print_rows(rows)
    return 0


def _print_rows(rows) -> None:
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")


if __name__ == "__main__":
    sys.exit(main())

"""The trace rows of ``iosim validate``: real block traces that carry each request's measured
latency, replayed through a stack built from the device's published parameters only (nothing in
it fitted to the trace), in the manner of DiskSim's validation table: the errors of the mean and
the percentiles, and the demerit (the RMS horizontal distance between the measured and the
simulated response-time CDFs, :class:`iosim.replay.Comparison`) beside the figure the reference
simulator reached on the same trace where it published one.

The traces are read in place from ``../shared/blocktraces`` (never copied into the project); a
row whose trace is absent is reported as skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from . import presets

__all__ = ["TRACE_ROWS", "TraceRow", "TraceRowResult", "run_trace_row", "trace_markdown"]

BLOCKTRACES = Path(__file__).resolve().parents[2] / "shared" / "blocktraces"


@dataclass(frozen=True)
class TraceRow:
    key: str  # the --only selector
    title: str
    trace: str  # path under ../shared/blocktraces
    format: str  # the trace reader's format name
    preset: str
    mode: str  # replay mode: "validate", "open" or "closed"
    reference_demerit_s: float | None = None  # the reference simulator's demerit, seconds
    reference: str = ""  # where that figure is published


TRACE_ROWS: tuple[TraceRow, ...] = (
    TraceRow("atlas10k",
             "DiskSim's validation trace of a Quantum Atlas 10K (10,000 requests measured by "
             "DIXtrac; each request issued its recorded idle time after the previous one "
             "completed)",
             "disksim-validate/quantum-atlas10k-dixtrac.trace", "disksim-validate",
             "hdd-atlas10k", "validate", 0.268e-3,
             "DiskSim 4.0, valid/runvalid: \"QUANTUM_TORNADO (rms should be about 0.268)\""),
)


@dataclass
class TraceRowResult:
    spec: TraceRow
    n: int = 0
    measured: dict = field(default_factory=dict)  # mean_s, p50_s, p95_s, p99_s
    errors: dict = field(default_factory=dict)  # the same keys, relative
    demerit_s: float | None = None
    demerit_frac: float | None = None
    engine: str = ""
    skipped: str = ""


def run_trace_row(row: TraceRow, blocktraces: Path = BLOCKTRACES) -> TraceRowResult:
    """Replay one trace row through its preset (seed 1) and compare with the measurements."""
    from .replay import replay
    from .traces import read_block_trace

    path = blocktraces / row.trace
    if not path.is_file():
        return TraceRowResult(row, skipped=f"{path} is absent")
    trace = read_block_trace(path, format=row.format)
    stack = presets.load(row.preset)[0]
    r = replay(trace, stack, mode=row.mode, seed=1)
    c = r.comparison
    return TraceRowResult(row, n=c.n, measured=dict(c.measured), errors=dict(c.errors),
                          demerit_s=c.demerit_s, demerit_frac=c.demerit_frac,
                          engine=r.results.engine)


def _ms(v: float | None) -> str:
    return "n/a" if v is None else f"{v * 1e3:.3f}"


def trace_markdown(results: list[TraceRowResult]) -> list[str]:
    """The report's section on trace replays."""
    out = [
        "## Trace replays (measured per-request latencies)",
        "",
        "Each trace is replayed through its preset, built from the device's published "
        "parameters only (nothing fitted to the trace), on seed 1. Errors in percent of the "
        "measured figure; the demerit is the RMS horizontal distance between the measured and "
        "the simulated response-time CDFs (Ruemmler and Wilkes; DiskSim's `rms.c` on exact "
        "CDFs), in ms and in percent of the measured mean.",
        "",
        "| trace | preset | mode | requests | measured mean (ms) | mean | p50 | p95 | p99 "
        "| demerit (ms) | demerit % of mean | reference simulator's demerit (ms) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for tr in results:
        s = tr.spec
        if tr.skipped:
            out.append(f"| {s.key} | `{s.preset}` | {s.mode} | skipped: {tr.skipped} "
                       "| | | | | | | | |")
            continue
        errs = [f"{100 * tr.errors[k]:+.1f}" if tr.errors.get(k) is not None else ""
                for k in ("mean_s", "p50_s", "p95_s", "p99_s")]
        ref = _ms(s.reference_demerit_s) if s.reference_demerit_s is not None else "n/a"
        out.append(f"| {s.key} | `{s.preset}` | {s.mode} | {tr.n:,} | "
                   f"{_ms(tr.measured.get('mean_s'))} | {' | '.join(errs)} | "
                   f"{_ms(tr.demerit_s)} | {100 * (tr.demerit_frac or 0):.1f} | {ref} |")
    out.append("")
    for tr in results:
        if not tr.skipped:
            out.append(f"- {tr.spec.key}: {tr.spec.title}; `../shared/blocktraces/"
                       f"{tr.spec.trace}`; reference: {tr.spec.reference or 'none'}.")
    out.append("")
    return out

"""The trace rows of ``iosim validate``: real block traces that carry each request's measured
latency, replayed through a stack that was not fitted to the trace, in the manner of DiskSim's
validation table: the errors of the mean and the percentiles, and the demerit (the RMS
horizontal distance between the measured and the simulated response-time CDFs,
:class:`iosim.replay.Comparison`) beside the figure the reference simulator reached on the
same trace where it published one.

The stack is a preset built from the device's published parameters, or what ``iosim fit
--model auto`` makes of a measured sweep of the same device (every point of it trained; the
trace is never seen by the fit), as a user who has a fio sweep and a trace would do it.
Traces from ``../shared/blocktraces`` are read in place (never copied into the project); a
row whose trace is absent is reported as skipped. Traces measured for the project live in
``data/``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from . import presets
from .fit import fit, load_curve

__all__ = ["TRACE_ROWS", "TraceRow", "TraceRowResult", "run_trace_row", "trace_markdown"]

BLOCKTRACES = Path(__file__).resolve().parents[2] / "shared" / "blocktraces"
DATA = Path(__file__).resolve().parents[1] / "data"


@dataclass(frozen=True)
class TraceRow:
    key: str  # the --only selector
    title: str
    trace: str  # path under ``root``
    format: str  # the trace reader's format name
    preset: str  # the stack: a preset's name, or "" with ``fit_on``
    mode: str  # replay mode: "validate", "open" or "closed"
    reference_demerit_s: float | None = None  # the reference simulator's demerit, seconds
    reference: str = ""  # where that figure is published
    root: str = "blocktraces"  # "blocktraces" (../shared/blocktraces) or "data"
    iolog: str = ""  # a fio latency log's issue times (fio write_iolog), under ``root``
    #: the stack fitted (``--model auto``, seed 1, every point trained) on these data/ files
    fit_on: tuple[str, ...] = ()
    fit_note: str = ""  # what those files are, for the table
    #: the stack calibrated on the first half of this trace (``fit_trace``, model auto, seed
    #: 1; with its iolog), under ``root``; the row's own trace when it is the same one, whose
    #: requests after the split are then the only ones compared
    fit_trace_on: str = ""
    fit_trace_iolog: str = ""

    @property
    def stack_label(self) -> str:
        if self.fit_trace_on:
            return f"trace fit: {self.fit_note}"
        return f"`{self.preset}`" if self.preset else f"fit: {self.fit_note}"


TRACE_ROWS: tuple[TraceRow, ...] = (
    TraceRow("atlas10k",
             "DiskSim's validation trace of a Quantum Atlas 10K (10,000 requests measured by "
             "DIXtrac; each request issued its recorded idle time after the previous one "
             "completed)",
             "disksim-validate/quantum-atlas10k-dixtrac.trace", "disksim-validate",
             "hdd-atlas10k", "validate", 0.268e-3,
             "DiskSim 4.0, valid/runvalid: \"QUANTUM_TORNADO (rms should be about 0.268)\""),
    TraceRow("atlas10k-from-atlas10k",
             "the same DiskSim validation trace, its stack calibrated on the first half of the "
             "trace itself without the drive's description (`iosim replay --fit auto`: the "
             "family, its seek, spindle speed, bus rate, buffer and write cache from the "
             "measured times; the second half compared; the reference figure is DiskSim's with "
             "the whole description)",
             "disksim-validate/quantum-atlas10k-dixtrac.trace", "disksim-validate", "",
             "validate", 0.268e-3,
             "DiskSim 4.0, valid/runvalid: \"QUANTUM_TORNADO (rms should be about 0.268)\"",
             fit_trace_on="disksim-validate/quantum-atlas10k-dixtrac.trace",
             fit_note="first half of the trace, no drive description"),
    *(TraceRow(f"kvm-trace-{rate // 1000}k-{loop}",
               f"fio 4 KiB randrw 70/30 at Poisson {rate:,} I/O per s on the KVM virtio disk, "
               "every I/O's issue time and latency logged by fio (measured for the project; "
               f"stack fitted on the {how}, measured earlier)",
               f"measured_kvm_virtio_trace/rw70-poisson-{rate}_lat.1.log.xz", "fio-latlog", "",
               "open", root="data",
               iolog=f"measured_kvm_virtio_trace/rw70-poisson-{rate}.iolog.xz",
               fit_on=files, fit_note=note)
      for loop, how, files, note in (
          ("closed", "closed-loop sweep 4 KiB randrw 70/30, QD 1..256",
           ("measured_kvm_virtio_mixed/randrw70-4k-qd*.json",), "QD sweep (closed loops)"),
          ("open", "open-loop sweep 4 KiB randread at 2,000..40,000 I/O per s",
           ("measured_kvm_virtio_rate/randread-4k-rate*.json",), "rate sweep (open loops)"))
      for rate in (10000, 30000)),
    *(TraceRow(f"kvm-trace-{rate // 1000}k-from-{src // 1000}k",
               f"the same fio trace at {rate:,} I/O per s, its stack calibrated on the first "
               + ("half of the trace itself (the second half compared)" if src == rate else
                  f"half of the {src:,} I/O per s trace (every request compared)"),
               f"measured_kvm_virtio_trace/rw70-poisson-{rate}_lat.1.log.xz", "fio-latlog", "",
               "open", root="data",
               iolog=f"measured_kvm_virtio_trace/rw70-poisson-{rate}.iolog.xz",
               fit_trace_on=f"measured_kvm_virtio_trace/rw70-poisson-{src}_lat.1.log.xz",
               fit_trace_iolog=f"measured_kvm_virtio_trace/rw70-poisson-{src}.iolog.xz",
               fit_note=f"first half of the {src // 1000}k trace")
      for rate, src in ((10000, 10000), (30000, 30000), (30000, 10000), (10000, 30000))),
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
    fitted: str = ""  # the fitted stack's family, for a row fitted on a sweep


_FITTED: dict = {}  # fitted stacks by their files (two rows share each fit)
_TRACE_FITS: dict = {}  # trace-calibrated fits by their trace (two rows share each)


def _trace_fit(row: TraceRow, root: Path):
    from .fit.trace import fit_trace
    from .traces import read_block_trace

    key = (row.fit_trace_on, str(root))
    if key not in _TRACE_FITS:
        trace = read_block_trace(root / row.fit_trace_on, iolog=root / row.fit_trace_iolog
                                 if row.fit_trace_iolog else None)
        _TRACE_FITS[key] = fit_trace(trace, "auto", seed=1,
                                     mode="validate" if row.mode == "validate" else "open")
    return _TRACE_FITS[key]


def _fitted_stack(row: TraceRow, data: Path):
    key = (row.fit_on, str(data))
    if key not in _FITTED:
        files = [f for pattern in row.fit_on for f in sorted(data.glob(pattern))]
        res = fit(load_curve(files), model="auto", seed=1)
        _FITTED[key] = (res.stack, res.model)
    return _FITTED[key]


def run_trace_row(row: TraceRow, blocktraces: Path = BLOCKTRACES,
                  data: Path = DATA) -> TraceRowResult:
    """Replay one trace row through its stack (seed 1) and compare with the measurements."""
    from .replay import compare, replay
    from .traces import read_block_trace

    root = data if row.root == "data" else blocktraces
    path = root / row.trace
    if not path.is_file():
        return TraceRowResult(row, skipped=f"{path} is absent")
    trace = read_block_trace(path, format=row.format,
                             iolog=root / row.iolog if row.iolog else None)
    family = ""
    split = 0
    if row.fit_trace_on:
        tf = _trace_fit(row, root)
        stack, family = tf.stack, tf.model
        split = tf.split if row.fit_trace_on == row.trace else 0
    elif row.fit_on:
        stack, family = _fitted_stack(row, data)
    else:
        stack = presets.load(row.preset)[0]
    r = replay(trace, stack, mode=row.mode, seed=1)
    c = r.comparison if not split else compare(r.measured_s[split:], r.latency_s[split:])
    return TraceRowResult(row, n=c.n, measured=dict(c.measured), errors=dict(c.errors),
                          demerit_s=c.demerit_s, demerit_frac=c.demerit_frac,
                          engine=r.results.engine, fitted=family)


def _ms(v: float | None) -> str:
    return "n/a" if v is None else f"{v * 1e3:.3f}"


def trace_markdown(results: list[TraceRowResult]) -> list[str]:
    """The report's section on trace replays."""
    out = [
        "## Trace replays (measured per-request latencies)",
        "",
        "Each trace is replayed, on seed 1, through a stack that never saw it: a preset built "
        "from the device's published parameters, or the stack `iosim fit --model auto` makes "
        "of a measured sweep of the same device (all its points trained; the family it chose "
        "in brackets), or the stack `iosim replay --fit auto` calibrates on the first half of "
        "a trace (`iosim.fit.fit_trace`: the family's parameters moved until the replayed "
        "response times match the measured ones; the family in brackets), compared on the "
        "second half of the same trace or on the whole of the other one. Errors in percent "
        "of the "
        "measured figure; the demerit is the RMS horizontal distance between the measured and "
        "the simulated response-time CDFs (Ruemmler and Wilkes; DiskSim's `rms.c` on exact "
        "CDFs), in ms and in percent of the measured mean.",
        "",
        "| trace | stack | mode | requests | measured mean (ms) | mean | p50 | p95 | p99 "
        "| demerit (ms) | demerit % of mean | reference simulator's demerit (ms) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for tr in results:
        s = tr.spec
        if tr.skipped:
            out.append(f"| {s.key} | {s.stack_label} | {s.mode} | skipped: {tr.skipped} "
                       "| | | | | | | | |")
            continue
        errs = [f"{100 * tr.errors[k]:+.1f}" if tr.errors.get(k) is not None else ""
                for k in ("mean_s", "p50_s", "p95_s", "p99_s")]
        ref = _ms(s.reference_demerit_s) if s.reference_demerit_s is not None else "n/a"
        label = s.stack_label + (f" ({tr.fitted})" if tr.fitted else "")
        out.append(f"| {s.key} | {label} | {s.mode} | {tr.n:,} | "
                   f"{_ms(tr.measured.get('mean_s'))} | {' | '.join(errs)} | "
                   f"{_ms(tr.demerit_s)} | {100 * (tr.demerit_frac or 0):.1f} | {ref} |")
    out.append("")
    for tr in results:
        if not tr.skipped:
            s = tr.spec
            where = "../shared/blocktraces/" if s.root == "blocktraces" else "data/"
            fitted = (f"; stack fitted on `data/{'`, `data/'.join(s.fit_on)}`"
                      if s.fit_on else "")
            if s.fit_trace_on:
                fitted = f"; stack calibrated on the first half of `{where}{s.fit_trace_on}`"
            out.append(f"- {s.key}: {s.title}; `{where}{s.trace}`{fitted}; reference: "
                       f"{s.reference or 'none'}.")
    out.append("")
    return out

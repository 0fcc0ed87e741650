"""``iosim validate``: how well the simulator predicts what it was not calibrated on.

Two kinds of rows, written as one Markdown report (``docs/validation.md``), in the manner of
DiskSim's validation table (per model: what it was calibrated on, what it predicts, and how far
off it is):

* **Reproductions** (E1-E11): each published experiment is simulated with its shipped preset,
  unchanged. The preset's ``[calibration]`` table says which parameters were fitted to which
  points (and, optionally, which metrics of them); those points are reported apart, as
  *calibrated*, with their errors as information (a warning when one misses by more than the
  data's run-to-run spread). Only the other points are *predicted*, and only they count in the
  prediction errors. Experiments that are arithmetic on their own inputs (E4) are labelled
  *derivation*.
* **Fits** (spanning protocol): every measured sweep in ``data/`` and the corpus sweeps (real
  fio outputs in the shared corpus) are fitted with :func:`iosim.fit.fit` on three depths (the
  lowest, the one nearest their geometric middle, the highest) and the other depths are
  predicted. The fit model is a parameter (``model=``), so a new model name plugs in.

Everything runs with fixed seeds: the same code gives the same bytes. The report says how to
regenerate itself.
"""

from __future__ import annotations

import csv
import math
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from . import presets
from .fit import fit, load_curve, read_table
from .fit.spanning import spanning_depths, spanning_values
from .results import Results
from .simulate import simulate
from .spec import SpecError
from .units import format_time
from .validate_traces import TRACE_ROWS, TraceRowResult, run_trace_row, trace_markdown
from .workload import Workload

__all__ = [
    "REPRODUCTIONS",
    "FIT_SETS",
    "read_rows",
    "PointResult",
    "ReproductionResult",
    "FitRowResult",
    "Report",
    "calibrated_points",
    "run",
    "run_reproduction",
    "run_fit_set",
    "spanning_depths",
    "run_cli",
    "DEFAULT_MODEL",
]

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "data"
CORPUS = REPO.parent / "shared" / "corpus"
DEFAULT_MODEL = "auto"
ASSUMED_SPREAD = 0.10  # used to flag calibrated points when a data set's spread is unknown

# metrics compared, in print order: (Results field, column title)
METRICS = (
    ("iops", "IOPS"),
    ("read_iops", "read IOPS"),
    ("write_iops", "write IOPS"),
    ("bandwidth_Bps", "bandwidth"),
    ("lat_mean_s", "mean"),
    ("lat_p95_s", "p95"),
    ("lat_p99_s", "p99"),
    ("util", "util"),
    ("block_lat_mean_s", "await"),
    ("aqu_sz", "aqu-sz"),
    ("knee_threads", "IOPS stop rising at (threads)"),
)
# calibration tables name metrics briefly
_SHORT = {"iops": "iops", "read_iops": "read_iops", "write_iops": "write_iops",
          "bandwidth_Bps": "bandwidth", "lat_mean_s": "lat_mean", "lat_p95_s": "lat_p95",
          "lat_p99_s": "lat_p99", "util": "util", "block_lat_mean_s": "await",
          "aqu_sz": "aqu_sz", "knee_threads": "knee_threads"}


# -- what a reproduction is ------------------------------------------------------------------


@dataclass(frozen=True)
class Rows:
    """Measured points from one table under ``data/``: ``where`` selects rows (column ->
    value), ``label`` names the columns that make a point's label (``threads=4``), or ``name``
    gives one fixed label; ``workload`` adds workload fields the table does not have."""

    file: str
    label: tuple[str, ...] = ()
    where: tuple[tuple[str, str], ...] = ()
    name: str = ""
    workload: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class Reproduction:
    key: str  # short id, also the --only selector
    experiment: str  # "E6": matches ``data`` in the presets' [calibration] tables
    title: str
    preset: str
    rows: tuple[Rows, ...]
    run_length: Callable[[Workload], tuple[int, int | None]] = lambda wl: (6000, None)
    # a figure no table row holds (E3's knee): fn(stack, workload, quick) -> [PointResult]
    custom: Callable[..., list[PointResult]] | None = None
    kind: str = "reproduction"  # or "derivation": the figures are arithmetic on the inputs
    spread: float | None = None  # run-to-run IOPS spread of the data, as a fraction
    spread_note: str = ""
    note: str = ""


def _hdd_len(ios: int = 3000):
    def f(wl: Workload) -> tuple[int, int | None]:
        return ios, None  # the device's own warm-up fills its write cache

    return f


def _e8_len(wl: Workload) -> tuple[int, int | None]:
    # the controller cache fills in ~5,000 I/Os at QD >= 8, ~20,000 at QD 4 (the preset says)
    qd = wl.iodepth
    return (2000, 300) if qd <= 2 else (2500, 20000 if qd == 4 else 5000)


def _e11_len(wl: Workload) -> tuple[int, int | None]:
    return (40000, 10000) if wl.outstanding >= 256 else (20000, None)


def _e9_len(wl: Workload) -> tuple[int, int | None]:
    return (300, None) if wl.block_size_bytes > 8 * 2**20 else (6000, None)


def _cv(values: Sequence[float]) -> float:
    a = np.asarray(values, dtype=float)
    return float(a.std(ddof=1) / a.mean())


def _repeats_cv(path: Path, where: tuple[tuple[str, str], ...] = (),
                metric: str = "iops") -> float | None:
    """The mean over points of the coefficient of variation of ``metric`` (a column: ``iops``,
    or ``lat_mean_us`` for open loops, whose IOPS are their rate) of repeated runs of one
    sweep (a CSV with ``run``, ``qd`` and the metric's columns; a point is one ``qd``,
    ``numjobs``, ``bs_bytes``, ``rwmixread`` and ``rate_iops`` where the table has them;
    ``where``: only rows with these column values), or None without the file."""
    if not path.is_file():
        return None
    by_point: dict[tuple, list[float]] = {}
    with path.open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if any(row.get(k) != v for k, v in where):
                continue
            key = tuple(row.get(k) for k in ("qd", "numjobs", "bs_bytes", "rwmixread",
                                              "rate_iops"))
            by_point.setdefault(key, []).append(float(row[metric]))
    cvs = [_cv(v) for v in by_point.values() if len(v) > 1]
    return float(np.mean(cvs)) if cvs else None


# IOMeter's one-head disk: the same IOPS at every depth, nine times; E8's plateau seven times
_E6_FLAT = (332.93, 333.99, 332.59, 336.57, 329.79, 332.05, 331.04, 331.31, 327.44)
_E8_FLAT = (5369.33, 5377.39, 5487.91, 5470.97, 5520.23, 5542.74, 5513.99)

REPRODUCTIONS: tuple[Reproduction, ...] = (
    Reproduction("E1", "E1", "vdbench on an all-flash LUN, threads 1..4", "allflash-lun",
                 (Rows("e01_vdbench_allflash/threads.csv", ("threads",)),),
                 note="E1's one-thread latency (0.507 ms) is above the 0.46 ms of 2..4 threads; "
                      "one host gap Z cannot give both the one-thread IOPS and the rest"),
    Reproduction("E2", "E2", "HBA queue depth 4, threads 2..10", "allflash-lun-qd4",
                 (Rows("e02_hba_queue_depth/host_latency.csv", ("threads",)),)),
    Reproduction("E3", "E3", "four paths x HBA queue depth 4: the knee moves to 16 threads",
                 "allflash-lun-4path", (Rows("e03_multipath/figures.csv"),),
                 custom=lambda st, wl, quick: _e3_knee(st, wl, quick)),
    Reproduction("E4", "E4", "what a 1 M IOPS cloud claim requires (arithmetic)",
                 "cloud-essd-1m",
                 (Rows("e04_cloud_claim/claim.csv", name="qd=1", where=(("quantity", "qd1_iops"),),
                       workload=(("numjobs", 1), ("iodepth", 1), ("block_size_bytes", 3584))),),
                 kind="derivation",
                 note="the claim's inputs are the preset; the figure checks Little's law"),
    Reproduction("E5-7200", "E5", "7200 rpm: 1000 / (seek + half a turn)", "hdd-7200",
                 (Rows("e05_hdd_service_time/hdd_iops.csv", ("rpm",),
                       (("rpm", "7200"), ("transfer_ms", "0"))),), _hdd_len(),
                 note="E5's table is a textbook estimate, not a measurement"),
    Reproduction("E5-10k", "E5", "10,000 rpm", "hdd-10k",
                 (Rows("e05_hdd_service_time/hdd_iops.csv", ("rpm",),
                       (("rpm", "10000"), ("transfer_ms", "0"))),), _hdd_len()),
    Reproduction("E5-15k", "E5", "15,000 rpm", "hdd-15k",
                 (Rows("e05_hdd_service_time/hdd_iops.csv", ("rpm",),
                       (("rpm", "15000"), ("transfer_ms", "0"))),), _hdd_len()),
    Reproduction("E6-iometer", "E6", "IOMeter, SATA disk, 4 KiB random writes, QD 1..256",
                 "hdd-sata-iometer",
                 (Rows("e06_hdd_queue_depth/iometer_sata_4k_randwrite.csv", ("qd",)),),
                 _hdd_len(10000), spread=_cv(_E6_FLAT),
                 spread_note="CV of the nine IOPS of a disk whose IOPS do not depend on depth"),
    Reproduction("E6-fio", "E6", "fio, SATA disk, 4 KiB random writes, QD 1 and 4",
                 "hdd-sata-fio",
                 (Rows("e06_hdd_queue_depth/fio_sata_4k_randwrite.csv", ("qd",)),), _hdd_len()),
    Reproduction("E7", "E7", "the fio disk of E6 over a 1 GiB span, QD 4", "hdd-sata-fio",
                 (Rows("e07_short_stroke/fio_sata_4k_randwrite_span.csv", ("qd", "span_bytes"),
                       (("span_bytes", "1073741824"),)),), _hdd_len()),
    Reproduction("E8", "E8", "RAID 0 of 12 disks, write-back cache, QD 1..256",
                 "raid0-12x-hdd-wbc",
                 (Rows("e08_raid0_12disks/iometer_raid0_4k_randwrite.csv", ("qd",)),), _e8_len,
                 spread=_cv(_E8_FLAT), spread_note="CV of the plateau's seven IOPS (QD 4..256)"),
    Reproduction("E9", "E9", "a cloud disk's SLA (6,000 IOPS, 170 MiB/s)", "cloud-uos-1tb",
                 (Rows("e09_dd_iostat/cloud_disk.csv", ("tool", "rw", "bs_bytes", "qd")),
                  Rows("e09_dd_iostat/dd_iostat.csv", ("tool", "rw", "bs_bytes"),
                       (("device", "cloud_disk"), ("max_sectors_kb", "256")),
                       workload=(("iodepth", 1),))), _e9_len),
    Reproduction("E9-raw-sata", "E9", "fio on a raw SATA disk partition, 4 KiB random, QD 32",
                 "hdd-7200",
                 tuple(Rows("e09_dd_iostat/fio_raw_devices.csv", ("rw", "qd"),
                            (("device", "SATA"), ("rw", rw))) for rw in ("randread", "randwrite")),
                 _hdd_len(),
                 note="fio's live status line, not its summary; a partition (/dev/sda6) of a disk "
                      "the article does not name, so the whole-disk span of the generic 7200 rpm "
                      "preset is an assumption; sequential rows need the drive's read-ahead and "
                      "write cache, which this write-through preset does not claim"),
    Reproduction("E10-ssd", "E10", "QingCloud high-performance volume, fio QD 64",
                 "cloud-qingcloud-ssd",
                 (Rows("e10_cloud_fio/summary.csv", ("rw",), (("volume", "high-performance"),)),
                  Rows("e10_cloud_fio/ioping.csv", name="ioping",
                       where=(("volume", "high-performance"),), workload=(("rw", "randread"),))),
                 lambda wl: (4000, None)),
    Reproduction("E10-capacity", "E10", "QingCloud capacity volume, fio QD 64",
                 "cloud-qingcloud-capacity",
                 (Rows("e10_cloud_fio/summary.csv", ("rw",), (("volume", "capacity"),)),
                  Rows("e10_cloud_fio/ioping.csv", name="ioping", where=(("volume", "capacity"),),
                       workload=(("rw", "randread"),))),
                 lambda wl: (4000, None)),
    Reproduction("E11", "E11", "sysbench on an Intel 750 NVMe, threads 1..256", "nvme-intel-750",
                 (Rows("e11_sysbench_nvme/threads.csv", ("threads",)),
                  Rows("e11_sysbench_nvme/p99_separate_run.csv", ("threads",))), _e11_len),
)


# -- results ---------------------------------------------------------------------------------


@dataclass
class PointResult:
    label: str
    calibrated: tuple[str, ...]  # metrics of this point that a parameter was fitted on
    measured: dict[str, float]
    simulated: dict[str, float]
    sim_ci: dict[str, float] = field(default_factory=dict)  # 95 % half-width, % of the value

    def error(self, metric: str) -> float | None:
        m, s = self.measured.get(metric), self.simulated.get(metric)
        if m is None or s is None or m == 0:
            return None
        return 100.0 * (s - m) / m

    @property
    def predicted(self) -> tuple[str, ...]:
        return tuple(m for m in self.measured if m not in self.calibrated)


@dataclass
class ReproductionResult:
    spec: Reproduction
    summary: str  # the preset's own one-line calibration summary
    points: list[PointResult]

    def errors(self, metric: str, calibrated: bool) -> list[float]:
        out = []
        for p in self.points:
            if metric in p.measured and (metric in p.calibrated) == calibrated:
                e = p.error(metric)
                if e is not None:
                    out.append(e)
        return out

    def warnings(self) -> list[str]:
        bar = self.spec.spread if self.spec.spread is not None else ASSUMED_SPREAD
        out = []
        for p in self.points:
            for m in p.calibrated:
                e = p.error(m)
                noise = p.sim_ci.get(m, 0.0)
                if e is not None and abs(e) > 100 * bar + noise:
                    out.append(f"calibrated {p.label} {_title(m)} misses by {e:+.1f} %, more "
                               f"than the spread ({100 * bar:.1f} %) and the simulation's "
                               f"noise (±{noise:.1f} %)")
        return out


@dataclass
class FitRowResult:
    name: str
    title: str
    model: str
    key: str
    train: list[int]
    points: list[dict] = field(default_factory=list)  # FitResult.points
    warnings: list[str] = field(default_factory=list)
    params: dict = field(default_factory=dict)
    skipped: str = ""  # why the row did not run
    chosen: str = ""  # the family fitted (auto: the one cross-validation chose)
    passed_over: list[str] = field(default_factory=list)  # auto: families it did not fit, why
    spread: float | None = None
    spread_note: str = ""

    def mape(self, metric: str, which: str) -> float | None:
        """Mean absolute error of ``metric`` over the ``which`` points; an open loop's IOPS
        (its arrival rate, which every model reproduces) are not a prediction: None."""
        errs = [abs(p["error"][metric]) for p in self.points
                if p["set"] == which and metric in p["error"]
                and not (metric == "iops" and p.get("rate_iops"))]
        return float(np.mean(errs)) if errs else None


# -- calibration tables ----------------------------------------------------------------------


def calibrated_points(preset: str, experiment: str) -> dict[str, tuple[str, ...]]:
    """``{point label: metrics}`` that the preset's ``[calibration]`` table says were fitted on
    ``experiment``'s data (all metrics of a point when the entry lists none)."""
    table = presets.calibration(preset)
    out: dict[str, set[str]] = {}
    for key, entry in table.items():
        if key == "summary":
            continue
        if not isinstance(entry, dict) or "data" not in entry or "points" not in entry:
            raise SpecError(f"preset {preset}: [calibration] {key} needs data and points")
        if entry["data"] != experiment:
            continue
        metrics = entry.get("metrics") or ["*"]
        for label in entry["points"]:
            out.setdefault(label, set()).update(metrics)
    long = {v: k for k, v in _SHORT.items()}
    result = {}
    for label, ms in out.items():
        if "*" in ms:
            result[label] = tuple(m for m, _ in METRICS)
        else:
            result[label] = tuple(m for m, _ in METRICS if _SHORT[m] in ms or m in ms)
            unknown = sorted(ms - set(long) - set(long.values()))
            if unknown:
                raise SpecError(f"preset {preset}: [calibration] names unknown metrics {unknown}")
    return result


# -- running a reproduction -------------------------------------------------------------------


def _size_label(n: float) -> str:
    for unit, mult in (("g", 2**30), ("m", 2**20), ("k", 1024)):
        if n >= mult and n % mult == 0:
            return f"{int(n // mult)}{unit}"
    return f"{int(n)}"


def _label(row: dict[str, str], cols: tuple[str, ...]) -> str:
    names = {"bs_bytes": "bs", "span_bytes": "span"}
    parts = []
    for c in cols:
        v = row[c]
        if c in names:
            v = _size_label(float(v))
        parts.append(f"{names.get(c, c)}={v}")
    return " ".join(parts)


def read_rows(path: Path) -> list[dict[str, str]]:
    """A CSV table under ``data/`` as a list of rows (column -> text)."""
    with Path(path).open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def _measured_points(rows: Rows, data: Path) -> list[tuple[str, Results]]:
    path = data / rows.file
    raw = read_rows(path)
    # a quantity/value table (E4's claim) holds figures, not points: the selected row is IOPS
    curve = None if raw and "quantity" in raw[0] else read_table(path)
    out = []
    for i, row in enumerate(raw):
        if any(row.get(k) != v for k, v in rows.where):
            continue
        r = curve.points[i] if curve is not None else Results(iops=float(row["value"]))
        label = rows.name or _label(row, rows.label)
        r.params.update(dict(rows.workload))
        out.append((label, r))
    return out


_WL_KEYS = ("rw", "rwmixread", "block_size_bytes", "numjobs", "iodepth", "span_bytes")


def _workload(base: Workload, r: Results) -> Workload:
    kw = {k: r.params[k] for k in _WL_KEYS if k in r.params}
    if "rwmixread" in kw and kw.get("rw") not in ("randrw", "rw", "readwrite"):
        kw.pop("rwmixread")
    return replace(base, **kw) if kw else base


def _stack_overrides(r: Results) -> dict[str, Any]:
    if "max_sectors_kb" in r.params:
        return {"block.max_sectors_bytes": int(r.params["max_sectors_kb"]) * 1024}
    return {}


def run_reproduction(spec: Reproduction, *, data: Path = DATA, quick: bool = False,
                     seed: int = 1) -> ReproductionResult:
    """Simulate every measured point of ``spec`` with its preset, unchanged."""
    stack, base = presets.load(spec.preset)
    if base is None:
        raise SpecError(f"preset {spec.preset} has no [workload]")
    summary = str(presets.calibration(spec.preset).get("summary", ""))
    if spec.custom is not None:
        return ReproductionResult(spec, summary, spec.custom(stack, base, quick))
    calib = calibrated_points(spec.preset, spec.experiment)
    merged: dict[str, Results] = {}
    for rows in spec.rows:
        for label, r in _measured_points(rows, data):
            if label in merged:  # a second table with more figures of the same point
                for m, _ in METRICS:
                    if getattr(r, m, None) is not None:
                        setattr(merged[label], m, getattr(r, m, None))
            else:
                merged[label] = r
    points = []
    for label, r in merged.items():
        wl = _workload(base, r)
        st = stack.with_(**_stack_overrides(r)) if _stack_overrides(r) else stack
        ios, warm = spec.run_length(wl)
        if quick:
            ios = max(500, ios // 4)
        sim = simulate(st, wl, ios=ios, warmup_ios=warm, seed=seed)
        measured = {m: float(v) for m, _ in METRICS if (v := getattr(r, m, None)) is not None}
        if "iops" in measured:  # bandwidth = IOPS x block size: the same figure twice
            measured.pop("bandwidth_Bps", None)
        simulated = {m: float(v) for m in measured if (v := getattr(sim, m, None)) is not None}
        cal = tuple(m for m in calib.get(label, ()) if m in measured)
        points.append(PointResult(label, cal, measured, simulated, _ci(sim)))
    return ReproductionResult(spec, summary, points)


def _ci(sim: Results) -> dict[str, float]:
    out = {}
    for m, h in (("iops", sim.iops_ci95), ("lat_mean_s", sim.lat_mean_ci95_s)):
        v = getattr(sim, m, None)
        if h is not None and v and math.isfinite(h):
            out[m] = 100.0 * h / v
    return out


def _e3_knee(stack, wl: Workload, quick: bool) -> list[PointResult]:
    """The thread count (steps of 4) at which IOPS reach 90 % of their plateau (published: IOPS
    keep rising up to 16 threads, then stop)."""
    threads = list(range(4, 33, 4))
    iops = [simulate(stack, replace(wl, numjobs=n), ios=1500 if quick else 6000, seed=1).iops
            for n in threads]
    knee = next(n for n, x in zip(threads, iops, strict=True) if x >= 0.9 * max(iops))
    return [PointResult("threads=4..32", (), {"knee_threads": 16.0},
                        {"knee_threads": float(knee)})]


# -- fits with the spanning protocol ------------------------------------------------------------


@dataclass(frozen=True)
class FitSet:
    name: str
    title: str
    files: tuple[str, ...]  # glob patterns, relative to ``root``
    root: str = "data"  # "data" or "corpus"
    spread: float | None = None
    spread_note: str = ""
    #: what the sweep varies: "" (the depth: iodepth or numjobs), "bs" (the block size),
    #: "rwmixread" (the read share of a randrw mix) or "rate_iops" (an open loop's arrival
    #: rate: fio rate_iops runs); the spanning protocol trains on its lowest, middle and
    #: highest value
    x: str = ""


def _measured(name: str, title: str, pattern: str, where: tuple[tuple[str, str], ...] = (),
              runs: str = "three", over: str = "depths", x: str = "") -> FitSet:
    """A sweep measured for iosim (``data/FOLDER/PATTERN``), its spread from the folder's
    repeats.csv (the rows ``where`` picks): of IOPS, or of mean latency for a sweep of
    arrival rates (``x="rate_iops"``: open loops, whose IOPS are the rate)."""
    folder = pattern.split("/")[0]
    metric, what = ("lat_mean_us", "mean-latency") if x == "rate_iops" else ("iops", "IOPS")
    return FitSet(name, title, (pattern,),
                  spread=_repeats_cv(DATA / folder / "repeats.csv", where, metric),
                  spread_note=f"mean over {over} of the {what} CV of {runs} runs of run.sh "
                              "(repeats.csv)", x=x)


FIT_SETS: tuple[FitSet, ...] = (
    _measured("kvm-virtio", "data/measured_kvm_virtio: fio 4 KiB randread on a KVM virtio disk, "
              "QD 1..256", "measured_kvm_virtio/randread-4k-qd*.json"),
    _measured("kvm-virtio-quiet", "data/measured_kvm_virtio_quiet: the same fio sweep on the "
              "same disk, QD 1..256, with the machine otherwise idle (load 0.4-0.7, against 2.7)",
              "measured_kvm_virtio_quiet/randread-4k-qd*.json"),
    _measured("kvm-virtio-bs", "data/measured_kvm_virtio_bs: fio randread on the KVM virtio "
              "disk, block sizes 4 KiB..1 MiB at QD 1 and 16",
              "measured_kvm_virtio_bs/randread-*.json", (("rw", "randread"),),
              over="sizes and depths", x="bs"),
    _measured("kvm-virtio-rwmix", "data/measured_kvm_virtio_bs: fio 4 KiB randrw on the KVM "
              "virtio disk, QD 16, reads 100..0 %", "measured_kvm_virtio_bs/randrw-*.json",
              (("rw", "randrw"),), over="mixes", x="rwmixread"),
    _measured("kvm-virtio-write", "data/measured_kvm_virtio_write: fio 4 KiB randwrite on the "
              "KVM virtio disk, QD 1..256, measured after the models were built (held-out data)",
              "measured_kvm_virtio_write/randwrite-4k-qd*.json", (("rw", "randwrite"),)),
    _measured("kvm-virtio-psync", "data/measured_kvm_virtio_write: fio 4 KiB randread, psync, "
              "numjobs 1..32 on two vCPUs, measured after the models were built (held-out data)",
              "measured_kvm_virtio_write/randread-4k-psync-numjobs*.json",
              (("rw", "randread"),), over="job counts"),
    _measured("kvm-virtio-16k", "data/measured_kvm_virtio_mixed: fio 16 KiB randread on the KVM "
              "virtio disk, QD 1..256, measured after the fit's means-first rule (held-out data)",
              "measured_kvm_virtio_mixed/randread-16k-qd*.json", (("rw", "randread"),),
              runs="two"),
    _measured("kvm-virtio-rw70", "data/measured_kvm_virtio_mixed: fio 4 KiB randrw 70/30 on the "
              "KVM virtio disk, QD 1..256, measured after the fit's means-first rule (held-out "
              "data)", "measured_kvm_virtio_mixed/randrw70-4k-qd*.json", (("rw", "randrw"),),
              runs="two"),
    _measured("kvm-intel-read", "data/measured_kvm_virtio_intel: fio 4 KiB randread, QD 1..256, "
              "on a KVM virtio disk of another host (Intel Xeon), measured after the models "
              "were built (held-out data)", "measured_kvm_virtio_intel/randread-4k-qd*.json",
              (("rw", "randread"), ("ioengine", "libaio"))),
    _measured("kvm-intel-write", "data/measured_kvm_virtio_intel: fio 4 KiB randwrite, QD "
              "1..256, on the other host's KVM disk (held-out data)",
              "measured_kvm_virtio_intel/randwrite-4k-qd*.json", (("rw", "randwrite"),)),
    _measured("kvm-intel-psync", "data/measured_kvm_virtio_intel: fio 4 KiB randread, psync, "
              "numjobs 1..32 on two vCPUs, on the other host's KVM disk (held-out data)",
              "measured_kvm_virtio_intel/randread-4k-psync-numjobs*.json",
              (("rw", "randread"), ("ioengine", "psync")), over="job counts"),
    _measured("kvm-virtio-seq", "data/measured_kvm_virtio_seq: fio 128 KiB sequential reads, "
              "QD 1..64, on the KVM virtio disk, measured after the models were built "
              "(held-out data)", "measured_kvm_virtio_seq/read-128k-qd*.json",
              (("rw", "read"),)),
    _measured("kvm-virtio-nj4", "data/measured_kvm_virtio_seq: fio 4 KiB randread, four jobs, "
              "iodepth 1..64 each (4..256 outstanding), on the KVM virtio disk (held-out data)",
              "measured_kvm_virtio_seq/randread-4k-nj4-qd*.json", (("rw", "randread"),)),
    _measured("kvm-virtio-rate", "data/measured_kvm_virtio_rate: fio 4 KiB randread at fixed "
              "Poisson arrival rates 2,000..40,000 I/O per s (rate_iops, an open loop), on the "
              "KVM virtio disk (held-out data)", "measured_kvm_virtio_rate/randread-4k-rate*.json",
              (("rw", "randread"),), over="rates", x="rate_iops"),
    _measured("kvm-virtio-fsync", "data/measured_kvm_virtio_fsync: fio 4 KiB randwrite with an "
              "fsync after every 4 writes (fsync=4), psync, numjobs 1..16, on the KVM virtio "
              "disk (held-out data)", "measured_kvm_virtio_fsync/randwrite-fsync4-nj*.json",
              (("rw", "randwrite"),), over="job counts"),
    _measured("kvm-virtio-sysbench", "data/measured_kvm_virtio_sysbench: sysbench fileio 4 KiB "
              "random reads, O_DIRECT, threads 1..32 on two vCPUs, on the KVM virtio disk "
              "(held-out data, another tool)",
              "measured_kvm_virtio_sysbench/rndrd-4k-direct-threads*.txt", over="thread counts"),
    _measured("zram-qd", "data/measured_zram: fio 4 KiB randread, libaio, QD 1..64, on a "
              "compressed RAM disk (zram: the submitting CPU does each request's work), a kind "
              "of device the models were never shown (held-out data)",
              "measured_zram/randread-4k-qd*.json", (("ioengine", "libaio"),)),
    _measured("zram-psync", "data/measured_zram: fio 4 KiB randread, psync, numjobs 1..16 on "
              "two vCPUs, on the zram disk (held-out data)",
              "measured_zram/randread-4k-psync-numjobs*.json", (("ioengine", "psync"),),
              over="job counts"),
    FitSet("mx200", "Crucial MX200 SATA SSD behind an HP Smart Array, fio 4 KiB randread, "
           "QD 1..64 (louwrentius/fio-plot)", ("fio-json/fio31-mx200-randread-qd??-nj1.json",),
           root="corpus"),
    FitSet("nvme-numjobs", "Sabrent Rocket 4 Plus NVMe, fio 4 KiB randwrite, numjobs 1..64 "
           "(SamYaple/fio-plot-results)", ("fio-json/fio333-nvme-iouring-randwrite-qd1-nj*-"
                                           "perjob-sweep.json",), root="corpus"),
    FitSet("md-raid", "Linux md RAID of HDDs, fio 4 KiB randread, QD 1..128 "
           "(louwrentius/fio-plot)", ("fio-json/fio218-md127-raid-randread-qd*-nj1.json",),
           root="corpus"),
    FitSet("windows-randrw", "fio 3.41 on Windows (windowsaio, direct), 4 KiB randrw 50/50 on a "
           "1 MiB file, QD 1..32, six stonewalled groups in one file (NightHydra/"
           "AdvancedComputerSystemsProjects)",
           ("fio-json/fio341-windows-qd1-32-sweep-6-groups-custom-percentiles.json",),
           root="corpus"),
    FitSet("E1-table", "E1: vdbench, all-flash LUN, threads 1..4",
           ("e01_vdbench_allflash/threads.csv",)),
    FitSet("E2-table", "E2: HBA queue depth 4, threads 2..10 (latency only)",
           ("e02_hba_queue_depth/host_latency.csv",)),
    FitSet("E6-table", "E6: IOMeter, SATA disk with write cache, QD 1..256",
           ("e06_hdd_queue_depth/iometer_sata_4k_randwrite.csv",), spread=_cv(_E6_FLAT),
           spread_note="CV of the nine flat IOPS"),
    FitSet("E8-table", "E8: RAID 0 of 12 disks, QD 1..256",
           ("e08_raid0_12disks/iometer_raid0_4k_randwrite.csv",), spread=_cv(_E8_FLAT),
           spread_note="CV of the plateau's seven IOPS"),
    FitSet("E11-table", "E11: sysbench, Intel 750 NVMe, threads 1..256",
           ("e11_sysbench_nvme/threads.csv",)),
)

# data sets in data/ that are not sweeps: reproduced with presets only
NOT_SWEEPS = {
    "e03_multipath": "E3: figures read off a graph (its knee is reproduced above)",
    "e04_cloud_claim": "E4: a claim and its arithmetic (derivation above)",
    "e05_hdd_service_time": "E5: one textbook figure per rpm (reproduction above)",
    "e06_hdd_queue_depth/fio": "E6 fio: two points (reproduction above)",
    "e07_short_stroke": "E7: two spans, one depth (reproduction above)",
    "e09_dd_iostat": "E9: single runs of different workloads (reproduction above)",
    "e10_cloud_fio": "E10: three workloads at one depth (reproduction above)",
}


def _x_value(p: dict, key: str) -> float:
    """The swept value of a fit point (a row of ``FitResult.points``)."""
    return float(p["block_size_bytes"] if key == "bs" else p[key])


def _x_text(key: str, v: float) -> str:
    return _size_label(v) if key == "bs" else f"{v:g}"


def _files(fs: FitSet, data: Path, corpus: Path) -> list[Path]:
    root = data if fs.root == "data" else corpus
    out: list[Path] = []
    for pattern in fs.files:
        out.extend(sorted(root.glob(pattern)))
    return out


def run_fit_set(fs: FitSet, *, model: str = DEFAULT_MODEL, data: Path = DATA,
                corpus: Path = CORPUS, quick: bool = False, seed: int = 1) -> FitRowResult:
    """Fit ``model`` on the spanning depths of one sweep and predict the others."""
    row = FitRowResult(fs.name, fs.title, model, "", [], spread=fs.spread,
                       spread_note=fs.spread_note)
    files = _files(fs, data, corpus)
    if not files:
        row.skipped = f"no files ({fs.root} folder not found)"
        return row
    curve = load_curve(files)
    jobs = {int(p.params.get("numjobs", 1)) for p in curve.points}
    if fs.x:
        row.key = fs.x
        field_ = "block_size_bytes" if fs.x == "bs" else fs.x
        values = [float(p.params.get(field_, 100.0)) for p in curve.points]
        row.train = spanning_values(values, fs.x)
    else:
        row.key = "numjobs" if len(jobs) > 1 else "iodepth"
        values = [int(p.params.get(row.key, 1)) for p in curve.points]
        row.train = spanning_depths(values)
    held = sorted(set(values) - set(row.train))
    kw: dict[str, Any] = {"ios": 2000, "fit_ios": 1000} if quick else {}
    try:
        res = fit(curve, model=model, holdout={row.key: held} if held else None, seed=seed,
                  **kw)
    except SpecError as exc:  # a family that cannot fit this sweep (--model): say so, go on
        row.skipped = f"model {model} refuses this sweep: {exc}"
        return row
    row.chosen = res.model  # with model="auto": the family its cross-validation chose
    row.passed_over = [n for n in res.notes if n.startswith("auto: ") and (
        "passed over" in n or "implausible for its family" in n)]
    row.points = res.points
    row.warnings = list(res.warnings)
    row.params = {k: _param_text(v) for k, v in res.params.items()}
    bar = fs.spread if fs.spread is not None else ASSUMED_SPREAD
    for p in res.points:
        for m in ("iops", "lat_mean_s"):
            e = p["error"].get(m)
            half, value = p.get("predicted_ci95", {}).get(m), p["predicted"].get(m)
            noise = 100.0 * half / value if half is not None and value else 0.0
            if p["set"] == "fit" and e is not None and abs(e) > 100 * bar + noise:
                row.warnings.append(f"trained point {_point_label(p, row.key, res.points)} "
                                    "misses its "
                                    f"{_title(m)} by {e:+.1f} %, more than the spread "
                                    f"({100 * bar:.1f} %) and the simulation's noise "
                                    f"(±{noise:.1f} %)")
    return row


def _point_label(p: dict, key: str, points: Sequence[dict]) -> str:
    """``key=value`` of a fit point, with its depth when the sweep has several depths."""
    if key in ("iodepth", "numjobs"):
        return f"{key}={p[key]}"
    text = f"{key}={_x_text(key, _x_value(p, key))}"
    if len({q["outstanding"] for q in points}) > 1:
        text += f" QD {p['outstanding']}"
    return text


def _param_text(fp: Any) -> str:
    v = float(fp.value)
    v = 0.0 if abs(v) < 1e-12 else v  # an optimiser's zero
    if getattr(fp, "unit", "") == "s":
        return format_time(float(f"{v:.4g}"))
    return f"{v:.4g}"


# -- the report ----------------------------------------------------------------------------------


def _title(metric: str) -> str:
    return dict(METRICS)[metric]


def _pct(v: float | None) -> str:
    return "" if v is None else f"{v:+.1f}"


def _mape_text(errs: list[float]) -> str:
    if not errs:
        return ""
    return f"{np.mean(np.abs(errs)):.1f} (max {max(errs, key=abs):+.1f})"


def _fmt_value(metric: str, v: float) -> str:
    if metric.startswith("lat_") or metric == "block_lat_mean_s":
        return f"{v * 1e3:.4g} ms"
    if metric == "util":
        return f"{100 * v:.2f} %"
    if metric == "bandwidth_Bps":
        return f"{v / 1e6:.4g} MB/s"
    return f"{v:,.6g}"


REPEATS = "sysbench/sysbench0412-fileio-rndrw-16threads-10-runs-appended-warnings.txt"


def corpus_repeat_spread(corpus: Path = CORPUS) -> tuple[float, int] | None:
    """The IOPS coefficient of variation of the corpus's one set of identical repeated runs
    (ten sysbench fileio rndrw runs appended in one file), or None without the corpus."""
    path = corpus / REPEATS
    if not path.is_file():
        return None
    iops = [p.iops for p in load_curve([path]).points if p.iops]
    return (_cv(iops), len(iops)) if len(iops) > 1 else None


@dataclass
class Report:
    model: str
    quick: bool
    reproductions: list[ReproductionResult]
    fits: list[FitRowResult]
    command: str = "iosim validate -o docs/validation.md"
    repeats: tuple[float, int] | None = None
    traces: list[TraceRowResult] = field(default_factory=list)

    def to_markdown(self) -> str:
        out = [
            "# Validation: calibrated points apart from predicted ones",
            "",
            f"Generated by `{self.command}{' --quick' if self.quick else ''}` "
            f"(fit model `{self.model}`, seed 1). Do not edit by hand: regenerate it; "
            "`tests/test_validate.py` fails when a row no longer matches the code.",
            "",
            "The whole run takes about four minutes on two cores (`time iosim validate`: "
            "220 s on an AMD 2-core machine, otherwise idle, most of it "
            "the fits' simulations, about a minute the trace-calibrated rows; 305 s there "
            "beside a test run; 176 s on an "
            "Intel one "
            "before the fits tried device pauses, 102 s before the trace rows were added); "
            "`iosim validate --quick` runs "
            "shorter simulations for a look (its numbers differ a little: never commit its "
            "output here), and "
            "`--only E10-ssd,mx200` picks rows. `--model NAME` fits the sweeps with another "
            "`iosim fit` model. The same code and seed give the same table on one machine; the "
            "fits' optimiser does its linear algebra with the machine's BLAS, whose kernels "
            "differ by CPU type, so a fitted sweep's row can move slightly on another CPU (this "
            "file regenerated on an Intel build machine instead of an AMD one: three sweep "
            "rows moved by up to 0.9 points in IOPS and mean error (2.2 in p99), and "
            "E6-table's winner went from hdd to "
            "contention, both within 1 % of its points).",
            "",
            "Errors are 100 x (simulated - measured) / measured, in percent. A point is "
            "*calibrated* when its preset's `[calibration]` table says a parameter was fitted "
            "on it (for the metrics it names); its errors are information only. Every other "
            "point is *predicted*. `spread` is the data's own run-to-run IOPS spread where the "
            f"data show it; elsewhere {100 * ASSUMED_SPREAD:.0f} % is assumed for the warnings"
            + (f" (for scale: the corpus's one set of identical repeated runs, {self.repeats[1]} "
               f"sysbench fileio runs appended in one file, varies by {100 * self.repeats[0]:.0f}"
               " % in IOPS, coefficient of variation)" if self.repeats else "") + ". The "
            "simulation's own 95 % confidence half-width is given beside each simulated "
            "figure, to tell model error from simulation noise. A calibrated (or trained) point "
            "is flagged with a warning when it misses by more than the spread plus that "
            "half-width.",
            "",
        ]
        out += self._reproduction_summary()
        out += self._fit_summary()
        if self.traces:
            out += trace_markdown(self.traces)
        out += self._reproduction_details()
        out += self._fit_details()
        return "\n".join(out).rstrip() + "\n"

    def _reproduction_summary(self) -> list[str]:
        out = [
            "## Reproductions of the published experiments (shipped presets, unchanged)",
            "",
            "Per experiment: the points each preset was calibrated on, the points it predicts, "
            "and the mean absolute error over predicted points (largest signed error in "
            "brackets).",
            "",
            "| experiment | preset | kind | calibrated points | their largest error | predicted "
            "points | IOPS | mean | p99 | other metrics | spread |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for rr in self.reproductions:
            cal = [p.label + (f" ({', '.join(_title(m) for m in p.calibrated)})"
                              if set(p.calibrated) != set(p.measured) else "")
                   for p in rr.points if p.calibrated]
            pred = [p.label + (f" ({', '.join(_title(m) for m in p.predicted)})"
                               if p.calibrated else "")
                    for p in rr.points if p.predicted]
            other = []
            for m, t in METRICS:
                if m in ("iops", "lat_mean_s", "lat_p99_s"):
                    continue
                e = rr.errors(m, calibrated=False)
                if e:
                    other.append(f"{t} {_mape_text(e)}")
            spread = f"{100 * rr.spec.spread:.1f} %" if rr.spec.spread is not None else "n/a"
            cal_err = [e for m, _ in METRICS for e in rr.errors(m, calibrated=True)]
            worst = f"{max(cal_err, key=abs):+.1f}" if cal_err else ""
            out.append(
                f"| {rr.spec.key} | `{rr.spec.preset}` | {rr.spec.kind} | "
                f"{', '.join(cal) or 'none'} | {worst} | {', '.join(pred) or 'none'} | "
                f"{_mape_text(rr.errors('iops', False))} | "
                f"{_mape_text(rr.errors('lat_mean_s', False))} | "
                f"{_mape_text(rr.errors('lat_p99_s', False))} | {'; '.join(other)} | {spread} |"
            )
        pred_iops = [e for rr in self.reproductions if rr.spec.kind == "reproduction"
                     for m in ("iops", "read_iops", "write_iops", "bandwidth_Bps")
                     for e in rr.errors(m, False)]
        pred_lat = [e for rr in self.reproductions if rr.spec.kind == "reproduction"
                    for e in rr.errors("lat_mean_s", False)]
        out += [
            "",
            f"Headline (reproductions, predicted points only): throughput (IOPS or bandwidth) "
            f"{_mape_text(pred_iops) or 'n/a'} % over {len(pred_iops)} figures, mean latency "
            f"{_mape_text(pred_lat) or 'n/a'} % over {len(pred_lat)} figures.",
            "",
        ]
        return out

    def _fit_summary(self) -> list[str]:
        out = [
            f"## Fits with the spanning protocol (model `{self.model}`)",
            "",
            "Each sweep is fitted on three depths (lowest, nearest the geometric middle, "
            "highest) and the others are predicted. MAPE = mean absolute percentage error.",
            "",
            "| data set | family | x | trained on | predicted | held-out IOPS MAPE "
            "| held-out mean MAPE | held-out p99 MAPE | training IOPS / mean MAPE | spread |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for fr in self.fits:
            if fr.skipped:
                out.append(f"| {fr.name} | | | | skipped: {fr.skipped} | | | | | |")
                continue
            held = sorted({_x_value(p, fr.key) for p in fr.points if p["set"] == "holdout"})
            spread = f"{100 * fr.spread:.1f} %" if fr.spread is not None else "n/a"
            tr = [fr.mape(m, "fit") for m in ("iops", "lat_mean_s")]
            out.append(
                f"| {fr.name} | {fr.chosen or fr.model} | {fr.key} | "
                f"{', '.join(_x_text(fr.key, v) for v in fr.train)} | "
                f"{', '.join(_x_text(fr.key, v) for v in held) or 'none'} | "
                f"{_num(fr.mape('iops', 'holdout'))} | "
                f"{_num(fr.mape('lat_mean_s', 'holdout'))} | "
                f"{_num(fr.mape('lat_p99_s', 'holdout'))} | "
                f"{_num(tr[0])} / {_num(tr[1])} | {spread} |"
            )
        out.append("")
        for what, group in (("real sweeps: the measured KVM disk and the corpus", True),
                            ("published tables E1-E11", False)):
            ran = [fr for fr in self.fits if not fr.skipped and fr.name.startswith("E") != group]
            ho_i = [v for fr in ran if (v := fr.mape("iops", "holdout")) is not None]
            ho_l = [v for fr in ran if (v := fr.mape("lat_mean_s", "holdout")) is not None]
            ho_p = [v for fr in ran if (v := fr.mape("lat_p99_s", "holdout")) is not None]
            if ran:
                p99 = (f"; p99 MAPE {_num(_mean(ho_p))} % over {len(ho_p)}" if ho_p else "")
                out.append(f"Headline ({what}; held-out points): IOPS MAPE {_num(_mean(ho_i))} % "
                           f"and mean-latency MAPE {_num(_mean(ho_l))} %, the mean over "
                           f"{len(ho_i)} and {len(ho_l)} data sets{p99}.")
                out.append("")
        out += [
            "Not sweeps (reproduced with presets only): "
            + "; ".join(f"`{k}` ({v})" for k, v in NOT_SWEEPS.items()) + ".",
            "",
        ]
        return out

    def _reproduction_details(self) -> list[str]:
        out = ["## Reproductions, point by point", ""]
        for rr in self.reproductions:
            spec = rr.spec
            out += [f"### {spec.key}: {spec.title}", "",
                    f"Preset `{spec.preset}`; data `data/"
                    + "`, `data/".join(dict.fromkeys(r.file for r in spec.rows)) + "`.",
                    f"Calibration: {rr.summary or 'not stated'}."]
            if spec.kind == "derivation":
                out.append("A derivation: the figures follow from the preset's inputs by "
                           "arithmetic, so they test the simulator's bookkeeping, not a model.")
            if spec.note:
                out.append(f"Note: {spec.note}.")
            if spec.spread is not None:
                out.append(f"Spread: {100 * spec.spread:.1f} % ({spec.spread_note}).")
            out += ["", "| point | set | metric | measured | simulated | error % | sim 95 % CI |",
                    "|---|---|---|---|---|---|---|"]
            for p in rr.points:
                for m, t in METRICS:
                    if m not in p.measured:
                        continue
                    s = p.simulated.get(m)
                    out.append(
                        f"| {p.label} | {'calibrated' if m in p.calibrated else 'predicted'} | "
                        f"{t} | {_fmt_value(m, p.measured[m])} | "
                        f"{_fmt_value(m, s) if s is not None else 'n/a'} | {_pct(p.error(m))} | "
                        f"{f'±{p.sim_ci[m]:.1f} %' if m in p.sim_ci else ''} |"
                    )
            warns = rr.warnings()
            out += [""] + [f"- warning: {w}" for w in warns] + ([""] if warns else [])
        return out

    def _fit_details(self) -> list[str]:
        out = [f"## Fits, point by point (model `{self.model}`)", ""]
        for fr in self.fits:
            if fr.skipped:
                continue
            out += [f"### {fr.name}: {fr.title}", "",
                    "Fitted parameters: " + ", ".join(
                        f"`{k}` = {v}" for k, v in fr.params.items()) + ".", "",
                    "| " + fr.key + " | set | IOPS error | mean error | p99 error |",
                    "|---|---|---|---|---|"]
            for p in fr.points:
                e = p["error"]
                x = _point_label(p, fr.key, fr.points).split("=", 1)[1]
                out.append(f"| {x} | {'trained' if p['set'] == 'fit' else 'predicted'} | "
                           f"{_pct(e.get('iops'))} | {_pct(e.get('lat_mean_s'))} | "
                           f"{_pct(e.get('lat_p99_s'))} |")
            out += [""] + [f"- {n}" for n in fr.passed_over]
            out += [f"- fit warning: {w}" for w in fr.warnings] + [""]
        return out


def _num(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.1f}"


def _mean(vs: list[float]) -> float | None:
    return float(np.mean(vs)) if vs else None




# -- entry points ------------------------------------------------------------------------------


def run(*, model: str = DEFAULT_MODEL, only: Sequence[str] | None = None, quick: bool = False,
        data: Path = DATA, corpus: Path = CORPUS, fits: bool = True,
        progress: Callable[[str], None] | None = None) -> Report:
    """Every reproduction and every fit row (or those named in ``only``: reproduction keys
    such as ``E10-ssd`` and fit-set names such as ``mx200``)."""
    names = ({r.key for r in REPRODUCTIONS} | {f.name for f in FIT_SETS}
             | {t.key for t in TRACE_ROWS})
    if only:
        unknown = sorted(set(only) - names)
        if unknown:
            raise SpecError(f"validate: unknown row {unknown[0]!r}; rows: "
                            f"{', '.join(sorted(names))}")
    reps, frs = [], []
    for spec in REPRODUCTIONS:
        if only and spec.key not in only:
            continue
        if progress:
            progress(spec.key)
        reps.append(run_reproduction(spec, data=data, quick=quick))
    for fs in FIT_SETS if fits else ():
        if only and fs.name not in only:
            continue
        if progress:
            progress(fs.name)
        frs.append(run_fit_set(fs, model=model, data=data, corpus=corpus, quick=quick))
    trs = []
    for row in TRACE_ROWS if fits else ():
        if only and row.key not in only:
            continue
        if progress:
            progress(row.key)
        trs.append(run_trace_row(row, corpus.parent / "blocktraces", data))
    repeats = corpus_repeat_spread(corpus) if fits else None
    command = "iosim validate -o docs/validation.md"
    if only:
        command = f"iosim validate --only {','.join(only)}"
    if model != DEFAULT_MODEL:
        command += f" --model {model}"
    return Report(model, quick, reps, frs, command=command, repeats=repeats, traces=trs)


def run_cli(output: str | None, *, model: str = DEFAULT_MODEL, only: Sequence[str] | None = None,
            quick: bool = False, corpus: str | None = None) -> int:
    """``iosim validate [-o FILE.md] [--model M] [--only ROW,...] [--quick]``."""
    corpus_dir = Path(corpus) if corpus else CORPUS
    if corpus and not corpus_dir.is_dir():
        raise SpecError(f"--corpus {corpus}: no such folder")
    if not DATA.is_dir():
        raise SpecError(f"{DATA}: the data folder is missing (validate runs from a source tree)")
    report = run(model=model, only=only, quick=quick, corpus=corpus_dir,
                 progress=lambda name: print(f"validate: {name}", file=sys.stderr, flush=True))
    text = report.to_markdown()
    if output:
        Path(output).write_text(text, encoding="utf-8")
        print(output)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run_cli(os.environ.get("IOSIM_VALIDATION_OUT")))

"""One results type for simulated and measured data.

:class:`Results` is one run (or one measured point); :class:`Curve` is a sweep: a tidy pandas
DataFrame with one row per point. Parsers of real tool output produce the same types, so a
simulated and a measured curve overlay without conversion.

Metric meanings (SI units throughout):

* ``lat_*``: host latency, from the job's issue to the completion the job sees (fio's clat +
  slat, vdbench's resp). ``lat_p50_s`` .. ``lat_p9999_s`` are percentiles.
* ``block_lat_mean_s``: per block-layer request (after splitting), entry to completion:
  iostat's ``await``. ``block_iops`` counts those requests (iostat r/s + w/s).
* ``device_lat_*``: arrival at the device to its completion. Flat while the host queues (E2).
* ``iops``, ``read_iops``, ``write_iops``, ``bandwidth_Bps``: completions per second of measured
  time.
* ``aqu_sz``: time-average of requests in the block layer and below (iostat ``aqu-sz``).
* ``util``: fraction of time with at least one request dispatched below the host (to an HBA
  path, the link or the device): iostat's ``%util``. ``unit_util``: the mean fraction of the
  device's units busy. For a parallel device the two differ widely (E11).
* ``qd_mean`` and ``qd_dist``: time-averaged outstanding I/Os at the host, and their
  distribution (fio's "IO depths").
* ``*_ci95``: 95 % confidence half-widths (batch means within a run, or replications).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pandas loads on a Curve's first .df (it weighs ~70 MB of memory)
    import pandas as pd

__all__ = ["Results", "Curve", "CONTRACT_KEYS"]

# The keys of the JSON contract (docs/architecture.md, CLI section), in print order.
CONTRACT_KEYS = (
    "iops read_iops write_iops bandwidth_Bps lat_mean_s lat_p50_s lat_p95_s lat_p99_s "
    "lat_p999_s device_lat_mean_s device_lat_p99_s block_lat_mean_s aqu_sz util unit_util ios "
    "sim_time_s iops_ci95 lat_mean_ci95_s engine seed"
).split()


def _clean(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


@dataclass
class Results:
    """One run or one measured point. Unknown quantities are None (absent from ``to_dict``)."""

    iops: float | None = None
    read_iops: float | None = None
    write_iops: float | None = None
    bandwidth_Bps: float | None = None
    lat_mean_s: float | None = None
    lat_p50_s: float | None = None
    lat_p90_s: float | None = None
    lat_p95_s: float | None = None
    lat_p99_s: float | None = None
    lat_p999_s: float | None = None
    lat_p9999_s: float | None = None
    lat_max_s: float | None = None
    read_lat_mean_s: float | None = None
    write_lat_mean_s: float | None = None
    device_lat_mean_s: float | None = None
    device_lat_p99_s: float | None = None
    block_lat_mean_s: float | None = None
    block_iops: float | None = None
    avgrq_bytes: float | None = None
    aqu_sz: float | None = None
    util: float | None = None
    unit_util: float | None = None
    qd_mean: float | None = None
    device_qd_mean: float | None = None
    ios: int | None = None
    sim_time_s: float | None = None
    iops_ci95: float | None = None
    lat_mean_ci95_s: float | None = None
    lat_p50_ci95_s: float | None = None
    lat_p90_ci95_s: float | None = None
    lat_p99_ci95_s: float | None = None
    engine: str | None = None
    seed: int | None = None
    replications: int | None = None
    # what produced it: workload descriptors (numjobs, iodepth, bs ...), varied keys, source file
    params: dict = field(default_factory=dict)
    # distributions and counters that do not fit one number
    qd_dist: dict = field(default_factory=dict)
    counters: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)

    @property
    def outstanding(self) -> float | None:
        """Little's law at the host: mean I/Os in flight = IOPS x mean latency."""
        if self.iops is None or self.lat_mean_s is None:
            return None
        return self.iops * self.lat_mean_s

    def to_dict(self, full: bool = False) -> dict:
        """The contract's keys (plus the run's params); ``full`` adds every other metric."""
        out: dict[str, Any] = {}
        scalars = {f.name: getattr(self, f.name) for f in fields(self)}
        keys = (
            CONTRACT_KEYS
            if not full
            else [k for k in scalars if k not in ("params", "qd_dist", "counters", "extra")]
        )
        for k in keys:
            v = _clean(scalars.get(k))
            if v is not None:
                out[k] = v
        for k, v in self.params.items():
            out.setdefault(k, _clean(v))
        if full:
            if self.qd_dist:
                out["qd_dist"] = {str(k): v for k, v in self.qd_dist.items()}
            if self.counters:
                out["counters"] = dict(self.counters)
            if self.extra:
                out["extra"] = dict(self.extra)
        return out

    def to_json(self, full: bool = False) -> str:
        return json.dumps(self.to_dict(full), sort_keys=False)

    def as_row(self) -> dict:
        """A flat row for a DataFrame: every scalar metric plus params."""
        row = {
            k: v
            for k, v in asdict(self).items()
            if k not in ("params", "qd_dist", "counters", "extra")
        }
        row.update(self.params)
        return row


class Curve:
    """A sweep: one row per point, simulated or measured, as a pandas DataFrame (``.df``)."""

    def __init__(self, points: list[Results], x: str | None = None, label: str = ""):
        self.points = list(points)
        self.x = x
        self.label = label
        self._df = None

    @property
    def df(self) -> pd.DataFrame:
        """The points as a DataFrame (built on first use: pandas is imported only then)."""
        if self._df is None:
            import pandas as pd

            self._df = pd.DataFrame([p.as_row() for p in self.points])
            self._add_saturation(self._df)
        return self._df

    @staticmethod
    def _add_saturation(df) -> None:
        # E11's saturation ratio R(N) / R(1), where the sweep has a point with one outstanding I/O
        import pandas as pd

        if df.empty or "lat_mean_s" not in df:
            return
        if "numjobs" in df and "iodepth" in df:
            n = df["numjobs"].astype(float) * df["iodepth"].astype(float)
            ones = df.loc[n == 1, "lat_mean_s"]
            if len(ones) and pd.notna(ones.iloc[0]) and ones.iloc[0] > 0:
                df["saturation"] = df["lat_mean_s"] / ones.iloc[0]

    def __len__(self) -> int:
        return len(self.points)

    def __iter__(self):
        return iter(self.points)

    def __getitem__(self, i: int) -> Results:
        return self.points[i]

    def column(self, name: str) -> pd.Series:
        return self.df[name]

    def to_records(self) -> list[dict]:
        return [p.to_dict() for p in self.points]

    def __repr__(self) -> str:
        return f"Curve({len(self)} points{', x=' + self.x if self.x else ''})"

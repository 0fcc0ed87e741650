"""``iosim report``: one self-contained HTML file (plotly) of a sweep or a fit.

The file embeds plotly.js, so it opens offline in any browser, for people who will not open
Jupyter. A sweep (the rows ``iosim sweep`` writes as JSON, CSV or Parquet, a
:class:`~iosim.results.Curve` or a DataFrame) gets throughput, latency (mean, p99, device),
latency against throughput and utilisation plots plus the table of points; a fit (the object
``iosim fit --json`` prints: ``params``, ``points`` with ``predicted`` and ``error``, ``mape``)
gets measured against predicted per metric, the per-point errors and the fitted parameters.

Units on the axes are ms and MiB/s; the data stay SI inside.
"""

from __future__ import annotations

import datetime as _dt
import html
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from . import labels, limits
from .plotstyle import log_axis
from .results import CONTRACT_KEYS, Curve, Results
from .spec import SpecError
from .sweep_io import read as read_rows
from .sweep_io import to_frame

__all__ = ["write_report", "report_html", "sweep_figures", "fit_figures", "is_fit"]

# columns that are measurements, never an x axis
_METRICS = (
    set(CONTRACT_KEYS) | {f.name for f in Results.__dataclass_fields__.values()} | {"saturation"}
)
_PARAM_PREFERENCE = ("numjobs", "iodepth", "block_size_bytes", "rate_iops", "rw", "rwmixread")
_MIB = 1024.0**2


def is_fit(data: Any) -> bool:
    """True for the object ``iosim fit --json`` prints."""
    return isinstance(data, Mapping) and "points" in data and "params" in data


# -- sweep ----------------------------------------------------------------------------------


def _frame(data: Any) -> pd.DataFrame:
    if isinstance(data, pd.DataFrame):
        return data.copy()
    if isinstance(data, Curve):
        return to_frame(data)
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        return to_frame(list(data))
    raise SpecError(f"a sweep report needs rows, a Curve or a DataFrame (got {type(data)})")


def _varied(df: pd.DataFrame) -> list[str]:
    """Parameter columns whose value changes between points: dotted keys first."""
    out = []
    for c in df.columns:
        if c in _METRICS or c in ("engine", "seed"):
            continue
        try:
            n = df[c].nunique(dropna=True)
        except TypeError:  # unhashable cells
            n = df[c].astype(str).nunique()
        if n > 1:
            out.append(c)
    # a workload key varied by name also shows up as its plain descriptor: keep one
    out = [c for c in out if f"workload.{c}" not in out]
    dotted = [c for c in out if "." in c]
    known = [c for c in _PARAM_PREFERENCE if c in out and c not in dotted]
    rest = [c for c in out if c not in dotted and c not in known]
    return dotted + known + rest


def _label(key: str) -> str:
    """The human title of a key (``workload.numjobs`` -> ``Jobs (numjobs)``)."""
    return labels.title(key)


def _scale_of(key: str) -> float:
    """The factor from a key's SI value to the unit of its title (bytes -> KiB ...)."""
    return labels.scale(key)


def _value_text(key: str, v: Any) -> str:
    """One value of a key for a legend: in the unit of its title."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return labels.number(v * labels.scale(key))
    return str(v)


def _short(key: str) -> str:
    """A key's title without its unit, for legends: ``Paths``, ``Block size``."""
    t = labels.title(key)
    return t.split(" (")[0] if not t.startswith("%") else t


_PALETTE = (
    "#636efa", "#ef553b", "#00cc96", "#ab63fa", "#ffa15a",
    "#19d3f3", "#ff6692", "#b6e880", "#ff97ff", "#fecb52",
)  # fmt: skip


def _groups(df: pd.DataFrame, keys: list[str]):
    """(label, colour, rows) for each combination of the other varied keys."""
    if not keys:
        yield "", _PALETTE[0], df
        return
    for i, (vals, sub) in enumerate(df.groupby(keys, sort=True, dropna=False)):
        vals = vals if isinstance(vals, tuple) else (vals,)
        label = ", ".join(
            f"{_short(k)} {_value_text(k, v)}" for k, v in zip(keys, vals, strict=True)
        )
        yield label, _PALETTE[i % len(_PALETTE)], sub


def _fmt(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def _col(df: pd.DataFrame, name: str, scale: float = 1.0):
    if name not in df:
        return None
    s = pd.to_numeric(df[name], errors="coerce")
    if s.notna().sum() == 0:
        return None
    return s * scale


def _layout(fig: go.Figure, title: str, xtitle: str, ytitle: str) -> go.Figure:
    fig.update_layout(
        title=title,
        xaxis_title=xtitle,
        yaxis_title=ytitle,
        template="plotly_white",
        height=420,
        autosize=True,
        margin=dict(l=70, r=30, t=60, b=60),
        legend=dict(orientation="h", yanchor="top", y=-0.2, x=0, xanchor="left"),
    )
    # every quantity drawn is >= 0: from zero, so a flat series is not zoomed into its rounding
    # noise (a disk busy 100 % at every depth drew a V between 100 and 99.9999999999998 %)
    fig.update_yaxes(rangemode="tozero")
    return fig


def _same(a, b, rel: float = 0.005) -> bool:
    """Two series equal within ``rel`` at every point (one line would hide the other)."""
    if a is None or b is None or len(a) != len(b):
        return False
    x, y = a.to_numpy(dtype=float), b.to_numpy(dtype=float)
    return bool(((abs(x - y) <= rel * abs(x)) | (x != x) & (y != y)).all())


def sweep_figures(data: Any, x: str | None = None) -> list[tuple[str, go.Figure]]:
    """(heading, figure) pairs for a sweep: throughput, latency, latency vs throughput and
    utilisation against the first varied key (or ``x``), one line per value of the others."""
    df = _frame(data)
    if df.empty:
        raise SpecError("the sweep has no points")
    varied = _varied(df)
    if x is None:
        x = varied[0] if varied else None
    elif x not in df:
        raise SpecError(f"--x {x!r} is not a column of the sweep; columns: {', '.join(df)}")
    if x is None:
        df = df.assign(point=range(1, len(df) + 1))
        x = "point"
    others = [k for k in varied if k != x]
    try:
        df = df.sort_values([x, *others], kind="stable")
    except TypeError:  # mixed types in a column: order as text
        df = df.sort_values([x, *others], kind="stable", key=lambda c: c.astype(str))
    xt = _label(x)
    xscale = labels.scale(x)

    def xv(sub: pd.DataFrame):
        """The x values in the unit of the axis title (KiB, ms ...)."""
        col = pd.to_numeric(sub[x], errors="coerce")
        return sub[x] if col.isna().any() else col * xscale

    figs = []

    f = go.Figure()
    for name, color, sub in _groups(df, others):
        y = _col(sub, "iops")
        if y is None:
            continue
        err = _col(sub, "iops_ci95")
        f.add_trace(
            go.Scatter(
                x=xv(sub),
                y=y,
                mode="lines+markers",
                line=dict(color=color),
                name=name or "IOPS",
                error_y=None if err is None else dict(type="data", array=err, visible=True),
            )
        )
    figs.append(("Throughput", _layout(f, "Throughput", xt, "IOPS")))

    f = go.Figure()
    for name, color, sub in _groups(df, others):
        series = [
            (what, dash, _col(sub, col, 1e3))
            for col, what, dash in (
                ("lat_mean_s", "mean", "solid"),
                ("lat_p99_s", "p99", "dash"),
                ("device_lat_mean_s", "device mean", "dot"),
            )
        ]
        series = [(w, d, y) for w, d, y in series if y is not None]
        # a line exactly under another gets no legend entry of its own: one line, both names
        drawn: list[list] = []
        for what, dash, y in series:
            same = next((d for d in drawn if _same(d[2], y)), None)
            if same is not None:
                same[0] += f" = {what}"
            else:
                drawn.append([what, dash, y])
        for what, dash, y in drawn:
            f.add_trace(
                go.Scatter(
                    x=xv(sub),
                    y=y,
                    mode="lines+markers",
                    line=dict(dash=dash, color=color),
                    name=f"{what} {name}".strip(),
                )
            )
    figs.append(
        (
            "Latency",
            _layout(f, "Latency (host: mean and p99; device: mean)", xt, "Latency (ms)"),
        )
    )

    f = go.Figure()
    for name, color, sub in _groups(df, others):
        xi, yl = _col(sub, "iops"), _col(sub, "lat_mean_s", 1e3)
        if xi is None or yl is None:
            continue
        f.add_trace(
            go.Scatter(
                x=xi,
                y=yl,
                mode="lines+markers",
                line=dict(color=color),
                name=name or "mean latency",
                text=[f"{_short(x)} {_value_text(x, v)}" for v in sub[x]],
                hovertemplate="%{text}<br>%{x:,.0f} IOPS<br>%{y:.4g} ms<extra></extra>",
            )
        )
    figs.append(
        (
            "Latency vs throughput",
            _layout(f, "Mean latency against throughput", "IOPS", "Mean latency (ms)"),
        )
    )

    f = go.Figure()
    for name, color, sub in _groups(df, others):
        for col, what, dash in (("util", "%util", "solid"), ("unit_util", "unit util", "dash")):
            y = _col(sub, col, 100.0)
            if y is None:
                continue
            f.add_trace(
                go.Scatter(
                    x=xv(sub),
                    y=y,
                    mode="lines+markers",
                    line=dict(dash=dash, color=color),
                    name=f"{what} {name}".strip(),
                )
            )
    figs.append(
        (
            "Utilisation",
            _layout(
                f, "Utilisation: iostat %util against the device's units busy", xt, "Busy (%)"
            ).update_yaxes(range=[0, 105], tickmode="linear", tick0=0, dtick=20, ticksuffix=" %"),
        )
    )
    bw = _col(df, "bandwidth_Bps")
    if bw is not None and bw.nunique() > 1:
        f = go.Figure()
        for name, color, sub in _groups(df, others):
            f.add_trace(
                go.Scatter(
                    x=xv(sub),
                    y=_col(sub, "bandwidth_Bps", 1 / _MIB),
                    mode="lines+markers",
                    line=dict(color=color),
                    name=name or "bandwidth",
                )
            )
        figs.append(("Bandwidth", _layout(f, "Bandwidth", xt, "Bandwidth (MiB/s)")))
    xs = df[x].tolist()
    return [
        (h, fig if h == "Latency vs throughput" else _log_if_wide(fig, [v * xscale for v in xs]))
        for h, fig in figs
        if fig.data
    ]


#: the columns of the sweep table people read first (all columns follow in a fold)
_MAIN_COLUMNS = (
    "iops",
    "bandwidth_Bps",
    "lat_mean_s",
    "lat_p50_s",
    "lat_p99_s",
    "lat_p999_s",
    "lat_max_s",
    "device_lat_mean_s",
    "util",
    "unit_util",
    "qd_mean",
    "iops_ci95",
    "lat_mean_ci95_s",
)


def _table(df: pd.DataFrame, first: Sequence[str] = (), *, human: bool = False) -> str:
    """An HTML table; with ``human`` each column gets its title with unit
    (:func:`iosim.labels.column`) and numbers in that unit, never raw SI."""
    cols = [c for c in first if c in df] + [c for c in df.columns if c not in first]
    heads, columns = [], []
    for c in cols:
        values = [None if isinstance(v, float) and math.isnan(v) else v for v in df[c]]
        if human:
            values = [v if isinstance(v, (int, float, str)) or v is None else str(v)
                      for v in values]  # fmt: skip
            head, cells = labels.column(c, values)
        else:
            head = str(c)
            cells = ["" if v is None else _fmt_any(v) for v in values]
        heads.append(head)
        columns.append(cells)
    head = "".join(f"<th>{html.escape(h)}</th>" for h in heads)
    body = []
    for i in range(len(df)):
        cells = "".join(f"<td>{html.escape(col[i])}</td>" for col in columns)
        body.append(f"<tr>{cells}</tr>")
    return (
        f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def _sweep_tables(df: pd.DataFrame, varied: list[str]) -> str:
    """The points: the varied keys and the main metrics, then every column in a fold."""
    main = [c for c in varied if c in df] + [c for c in _MAIN_COLUMNS if c in df]
    main = [c for c in main if df[c].notna().any()]
    out = "<h2>Points</h2>" + _table(df[main], human=True)
    out += (
        "<details><summary>All columns</summary>"
        + _table(df, first=varied, human=True)
        + "</details>"
    )
    return out


def _describe_stack(stack: Any) -> str:
    """The stack in one paragraph: its name and description, host, HBA, paths and device."""
    d = stack.to_dict() if hasattr(stack, "to_dict") else dict(stack)
    parts = []
    name, desc = d.get("name"), d.get("description")
    if name or desc:
        parts.append(f"<b>{html.escape(str(name or 'stack'))}</b>")
        if desc:
            parts[-1] += f": {html.escape(str(desc))}"
    host = d.get("host") or {}
    hba = d.get("hba") or {}
    mp = d.get("multipath") or {}
    dev = d.get("device") or {}
    bits = []
    if host.get("overhead") not in (None, "0", 0):
        bits.append(f"host overhead {html.escape(_overhead_text(host['overhead']))} per I/O")
    if hba.get("queue_depth"):
        paths = mp.get("paths", 1)
        bits.append(
            f"HBA queue depth {hba['queue_depth']} × {paths} path{'s' if paths != 1 else ''}"
        )
    if dev:
        kind = dev.get("kind", "device")
        extra = [f"{k.replace('_', ' ')} {dev[k]}" for k in ("units", "scheduler") if k in dev]
        extra_text = f" ({', '.join(extra)})" if extra else ""
        bits.append(f"{html.escape(str(kind))} device{html.escape(extra_text)}")
    if bits:
        parts.append("; ".join(bits) + ".")
    return " ".join(parts)


def _overhead_text(value: Any) -> str:
    """A stack file's host overhead for people: its mean in the unit that suits it (a fitted
    6.1e-07ns reads "0 µs"), "mean" before it when the overhead varies."""
    from .dists import parse_dist

    try:
        dist = parse_dist(value, "host.overhead")
    except ValueError:  # (a stack already checked: not expected; shown as written)
        return str(value)
    text = _quantity(dist.mean_s, "s")
    return text if dist.code == 0 else f"mean {text}"


_RW = {
    "randread": "random reads",
    "randwrite": "random writes",
    "read": "sequential reads",
    "write": "sequential writes",
    "randrw": "random mixed reads and writes",
    "rw": "sequential mixed reads and writes",
}


def _describe_workload(df: pd.DataFrame, varied: list[str]) -> str:
    """The workload in words, from the columns that do not change between points, and what
    the sweep varies."""

    def const(col):
        if col in df and col not in varied and df[col].nunique(dropna=True) == 1:
            return df[col].dropna().iloc[0]
        return None

    words = []
    rw, bs = const("rw"), const("block_size_bytes")
    what = _RW.get(str(rw), str(rw)) if rw is not None else "I/Os"
    if bs is not None:
        words.append(f"{_size(bs)} {what}")
    else:
        words.append(what)
    jobs, depth = const("numjobs"), const("iodepth")
    if jobs is not None:
        words.append(f"{int(jobs)} job{'s' if int(jobs) != 1 else ''}")
    if depth is not None:
        words.append(f"iodepth {int(depth)}")
    rate = const("rate_iops")
    if rate is not None:
        words.append(f"offered at {labels.number(rate)} IOPS")
    sentence = "Workload: " + ", ".join(words) + "."
    if varied:
        sentence += " Varied: " + "; ".join(
            f"{_label(k)} over {_range_text(k, df[k])}" for k in varied
        ) + "."
    how = []
    for col, text in (("engine", "engine {}"), ("seed", "seed {}"), ("ios", "{} I/Os per point")):
        v = const(col)
        if v is not None:
            how.append(text.format(labels.number(v) if col == "ios" else v))
    if how:
        sentence += " Simulation: " + ", ".join(how) + "."
    elif "engine" in df and df["engine"].isna().all():
        sentence += " Measured (no simulation engine)."
    return html.escape(sentence)


def _range_text(key: str, col: pd.Series) -> str:
    vals = list(dict.fromkeys(col.dropna().tolist()))
    try:
        vals = sorted(vals)
    except TypeError:
        pass
    shown = [_value_text(key, v) for v in vals]
    if len(shown) > 6:
        shown = [*shown[:3], "…", *shown[-2:]]
    return ", ".join(shown)


def _size(n: Any) -> str:
    try:
        v = float(n)
    except (TypeError, ValueError):
        return str(n)
    if v >= 1024**2 and v % 1024**2 == 0:
        return f"{v / 1024**2:g} MiB"
    if v >= 1024:
        return f"{labels.number(v / 1024)} KiB"
    return f"{labels.number(v)} B"


def _quantity(v: Any, unit: str, among: Sequence[Any] = ()) -> str:
    """A value with a unit, for people: seconds as µs/ms/s, bytes as KiB, B/s as MiB/s. A time
    printed beside others (a value and its interval: ``among``) takes the unit that suits them
    all, so a zero bound reads "0 µs" beside microseconds, not "0 ms"."""
    if isinstance(v, str):
        return v
    if v is None:
        return ""
    if unit == "s" and isinstance(v, (int, float)):
        row = [v, *(u for u in among if isinstance(u, (int, float)))]
        head, cells = labels.column("x_s", row)
        return f"{cells[0]} {head.rsplit('(', 1)[1].rstrip(')')}"
    if unit in ("B", "bytes") and isinstance(v, (int, float)):
        return _size(v)
    if unit in ("B/s", "Bps") and isinstance(v, (int, float)):
        return f"{labels.number(v / _MIB)} MiB/s"
    text = labels.number(v) if isinstance(v, (int, float)) else str(v)
    return f"{text} {unit}".strip()


# -- fit ------------------------------------------------------------------------------------


def _metric_scale(name: str) -> tuple[float, str]:
    return labels.scale(name), labels.title(name)


def _log_if_wide(fig: go.Figure, values: Sequence[Any]) -> go.Figure:
    """A log x axis (labelled powers of two or 1-2-5) when x spans 32x or more of positive
    numbers, e.g. queue depths 1 .. 256: a linear axis would squeeze the first half into a
    corner."""
    try:
        vals = [float(v) for v in values]
    except (TypeError, ValueError):
        return fig
    if vals and min(vals) > 0 and max(vals) / min(vals) >= 32:
        log_axis(fig, "x", vals)
    return fig


_FIT_SKIP = {"set", "source", "extrapolated", "holdout", "held_out", "label"}


def _measured(p: Mapping[str, Any]) -> Mapping[str, Any]:
    m = p.get("measured")
    return m if isinstance(m, Mapping) else p


def _held(p: Mapping[str, Any]) -> bool:
    return p.get("set") == "holdout" or bool(p.get("holdout", p.get("held_out", False)))


def fit_figures(fit: Mapping[str, Any], x: str | None = None) -> list[tuple[str, go.Figure]]:
    """(heading, figure) pairs for a fit: for each measured metric the measured points (fitted
    and held out) against the calibrated model's prediction, then the error per point."""
    points = list(fit.get("points") or [])
    if not points:
        raise SpecError("the fit has no points")
    flat = []
    for i, p in enumerate(points, 1):
        row = {k: v for k, v in p.items() if not isinstance(v, (dict, list)) and k not in _FIT_SKIP}
        row["point"] = i
        flat.append(row)
    df = pd.DataFrame(flat)
    metrics: list[str] = []
    for p in points:
        pred = p.get("predicted") or {}
        for k, v in _measured(p).items():
            if isinstance(v, (int, float)) and k in pred and k not in metrics:
                metrics.append(k)
    varied = _varied(df.drop(columns=["point"]))
    if x is None:
        # a sweep of sizes or read/write mixes is drawn against them, one series per depth
        pref = [c for c in ("block_size_bytes", "rwmixread", "outstanding", "threads",
                            "numjobs", "iodepth") if c in varied]
        x = (pref or varied or ["point"])[0]
    elif x not in df:
        raise SpecError(f"--x {x!r} is not a field of the fit's points; fields: {', '.join(df)}")
    xs = df[x].tolist()
    order = sorted(range(len(xs)), key=lambda i: (str(type(xs[i])), xs[i]))
    xplot = list(xs)
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in xs):
        xplot = [v * _scale_of(x) for v in xs]  # in the unit of the axis title (KiB ...)
    series = "outstanding" if x in ("block_size_bytes", "rwmixread") and \
        "outstanding" in varied else None
    groups = sorted({points[i].get(series) for i in order}) if series else [None]
    figs = []
    for m in metrics:
        scale, ytitle = _metric_scale(m)
        meas = [_measured(p).get(m) for p in points]
        pred = [(p.get("predicted") or {}).get(m) for p in points]
        f = go.Figure()
        for g, grp in enumerate(groups):
            mine = [i for i in order if series is None or points[i].get(series) == grp]
            tag = "" if series is None else f", {_short(series)} {_value_text(series, grp)}"
            idx = [i for i in mine if pred[i] is not None]
            f.add_trace(
                go.Scatter(
                    x=[xplot[i] for i in idx],
                    y=[pred[i] * scale for i in idx],
                    mode="lines",
                    line=dict(color=_PALETTE[0], dash=("solid", "dash", "dot")[g % 3]),
                    name="predicted (calibrated model)" + tag,
                )
            )
            for held, name, symbol, color in (
                (False, "measured, fitted", "circle", _PALETTE[1]),
                (True, "measured, held out", "diamond-open", _PALETTE[2]),
            ):
                idx = [i for i in mine if _held(points[i]) == held and meas[i] is not None]
                if idx:
                    f.add_trace(
                        go.Scatter(
                            x=[xplot[i] for i in idx],
                            y=[meas[i] * scale for i in idx],
                            mode="markers",
                            marker=dict(size=11, symbol=symbol, color=color,
                                        line=dict(width=2)),
                            name=name + tag,
                        )
                    )
        what = ytitle.split(" (")[0]
        _layout(f, f"{what}: measured and predicted", _label(x), ytitle)
        figs.append((f"Fit: {what}", _log_if_wide(f, xplot)))
    errs: list[str] = []
    for p in points:
        for k, v in (p.get("error") or {}).items():
            if isinstance(v, (int, float)) and k not in errs:
                errs.append(k)
    if errs:
        f = go.Figure()
        labels = [
            f"{_short(x)} {_value_text(x, v)}" + (" (held out)" if _held(p) else "")
            for v, p in zip(xs, points, strict=True)
        ]
        for j, k in enumerate(errs):
            f.add_trace(
                go.Bar(
                    x=labels,
                    y=[(p.get("error") or {}).get(k) for p in points],
                    name=_short(k),
                    marker_color=_PALETTE[j % len(_PALETTE)],
                )
            )
        figs.append(
            ("Errors", _layout(f, "Error of the prediction per point", "point", "error (%)"))
        )
    return figs


def _yes_no(v: Any) -> str:
    return {True: "yes", False: "no"}.get(v, _fmt_any(v)) if isinstance(v, bool) else _fmt_any(v)


def _fit_summary(fit: Mapping[str, Any]) -> str:
    rows = []
    for name, p in (fit.get("params") or {}).items():
        if isinstance(p, Mapping):
            ci = list(p.get("ci95") or [None, None])
            unit = str(p.get("unit", "") or "")
            rows.append(
                {
                    "parameter": f"{_short(name)} ({name})",
                    "value": _quantity(p.get("value"), unit, ci),
                    "95 % CI low": (_quantity(ci[0], unit, [p.get("value"), *ci])
                                    if len(ci) > 0 else ""),
                    "95 % CI high": (_quantity(ci[1], unit, [p.get("value"), *ci])
                                     if len(ci) > 1 else ""),
                    "determined by the data": _yes_no(p.get("determined", "")),
                    "at a bound": _yes_no(p.get("at_bound", "")),
                }
            )
        else:
            rows.append({"parameter": name, "value": _fmt_any(p)})
    out = []
    if fit.get("model"):
        out.append(f"<p>Model: <b>{html.escape(str(fit['model']))}</b></p>")
    if isinstance(fit.get("stack"), Mapping):
        out.append(f"<p>Calibrated stack: {_describe_stack(fit['stack'])}</p>")
    if rows:
        out.append("<h2>Fitted parameters</h2>" + _table(pd.DataFrame(rows)))
    mape = fit.get("mape") or {}
    if mape:

        def pct(vals):
            return {
                _short(k): labels.number(v, 3) if isinstance(v, (int, float)) else _fmt_any(v)
                for k, v in vals.items()
            }

        table = [{"points": "all", **pct(mape)}]
        for set_name, vals in (fit.get("mape_by_set") or {}).items():
            if isinstance(vals, Mapping):
                table.append({"points": set_name, **pct(vals)})
        out.append("<h2>Mean absolute percentage error (%)</h2>" + _table(pd.DataFrame(table)))
    warnings = fit.get("warnings") or []
    if warnings:
        items = "".join(f"<li>{html.escape(str(w))}</li>" for w in warnings)
        out.append(f'<h2>Warnings</h2><ul class="warnings">{items}</ul>')
    return "\n".join(out)


# -- HTML -----------------------------------------------------------------------------------

_CSS = """
body { font-family: system-ui, -apple-system, Segoe UI, Roboto, sans-serif; margin: 2em auto;
       max-width: 1100px; color: #222; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { font-size: 1.2em; margin-top: 1.6em; }
.meta { color: #666; font-size: 0.9em; }
.table-wrap { max-width: 100%; overflow-x: auto; margin: 1em 0; }
table { border-collapse: collapse; font-size: 0.82em; }
th, td { border: 1px solid #ddd; padding: 3px 6px; text-align: right; white-space: nowrap; }
th { background: #f4f4f4; white-space: normal; vertical-align: bottom; min-width: 4.5em; }
.figure { margin: 1em 0; }
"""


def _plotly_js() -> str:
    from plotly.offline import get_plotlyjs

    return get_plotlyjs()


def _sweep_summary(df: pd.DataFrame, varied: list[str], stack: Any = None) -> str:
    """What was simulated, in words: the stack (given, or carried by the rows as ``stack`` /
    ``preset``) and the workload."""
    out = []
    if stack is None and "stack" in df and isinstance(df["stack"].iloc[0], Mapping):
        stack = df["stack"].iloc[0]
    if stack is not None:
        out.append(f"<p>Stack: {_describe_stack(stack)}</p>")
    elif "preset" in df and df["preset"].nunique() == 1:
        out.append(f"<p>Stack: preset <b>{html.escape(str(df['preset'].iloc[0]))}</b>.</p>")
    else:
        out.append(
            '<p class="meta">The rows do not say which stack was simulated (give it to '
            "<code>write_report(..., stack=)</code>).</p>"
        )
    out.append(f"<p>{_describe_workload(df, varied)}</p>")
    return "\n".join(out)


def report_html(
    data: Any,
    *,
    title: str | None = None,
    x: str | None = None,
    source: str = "",
    stack: Any = None,
) -> str:
    """The whole report as one HTML string (plotly.js inline, no network needed). ``stack``
    (a Stack or its dict) is described at the top of a sweep report."""
    from . import __version__

    fit = is_fit(data)
    if fit:
        figs = fit_figures(data, x)
        kind = "fit"
    else:
        figs = sweep_figures(data, x)
        kind = "sweep"
    title = title or (f"iosim {kind} report" + (f": {Path(source).name}" if source else ""))
    parts = []
    for i, (heading, fig) in enumerate(figs):
        div = fig.to_html(
            full_html=False,
            include_plotlyjs=False,
            div_id=f"fig{i}",
            config={"displaylogo": False, "responsive": True},
        )
        parts.append(f'<h2>{html.escape(heading)}</h2>\n<div class="figure">{div}</div>')
    if fit:
        summary = _fit_summary(data)
        n = len(data.get("points") or [])
        table = ""
    else:
        df = _frame(data)
        varied = _varied(df)
        summary = _sweep_summary(df, varied, stack)
        n = len(df)
        table = _sweep_tables(df.drop(columns=["stack"], errors="ignore"), varied)
    when = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    meta = f"{n} point(s); iosim {__version__}; generated {when}"
    if source:
        meta = f"source {html.escape(str(source))}; " + meta
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title)}</title>\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<style>{_CSS}</style>\n"
        f'<script type="text/javascript">{_plotly_js()}</script>\n'
        "</head>\n<body>\n"
        f'<h1>{html.escape(title)}</h1>\n<p class="meta">{meta}</p>\n'
        + summary
        + "\n".join(parts)
        + table
        + "\n</body>\n</html>\n"
    )


def _fmt_any(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return labels.number(v)
    if isinstance(v, (dict, list)):
        return json.dumps(v)
    return str(v)


def write_report(
    source: Any,
    output: str | Path | None = None,
    *,
    title: str | None = None,
    x: str | None = None,
    stack: Any = None,
) -> Path:
    """Write the HTML report of ``source`` (a file written by ``iosim sweep``/``iosim fit
    --json``, a Curve, rows, a DataFrame or a fit object) to ``output`` and return its path.
    The default output is the source file with ``.html``; required when ``source`` is data.
    ``stack`` (the simulated Stack) is described at the top of a sweep report."""
    name = ""
    if isinstance(source, (str, Path)):
        name = str(source)
        data = read_rows(source)
        if output is None:
            output = Path(source).with_suffix(".html")
            if output == Path(source):  # pragma: no cover - a source named *.html
                output = Path(str(source) + ".report.html")
    else:
        data = source
        if output is None:
            raise SpecError("write_report: give output= when the source is not a file")
    out = Path(output)
    if name:  # never write the report over the data it was drawn from
        try:
            limits.check_output(out, [name], option="write_report: output")
        except limits.LimitError as exc:
            raise SpecError(str(exc)) from None
    if not out.parent.is_dir():
        raise SpecError(f"{out}: directory {str(out.parent)!r} does not exist")
    text = report_html(data, title=title, x=x, source=name, stack=stack)
    out.write_text(text, encoding="utf-8")
    return out

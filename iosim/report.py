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
    names = {
        "block_size_bytes": "block size (bytes)",
        "numjobs": "jobs (numjobs)",
        "iodepth": "iodepth",
        "rate_iops": "arrival rate (IOPS)",
    }
    return names.get(key, key)


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
        label = ", ".join(f"{k}={_fmt(v)}" for k, v in zip(keys, vals, strict=True))
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
        margin=dict(l=70, r=30, t=60, b=60),
        legend=dict(orientation="h", yanchor="top", y=-0.18),
    )
    return fig


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
    figs = []

    f = go.Figure()
    for name, color, sub in _groups(df, others):
        y = _col(sub, "iops")
        if y is None:
            continue
        err = _col(sub, "iops_ci95")
        f.add_trace(
            go.Scatter(
                x=sub[x],
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
        for col, what, dash in (
            ("lat_mean_s", "mean", "solid"),
            ("lat_p99_s", "p99", "dash"),
            ("device_lat_mean_s", "device mean", "dot"),
        ):
            y = _col(sub, col, 1e3)
            if y is None:
                continue
            f.add_trace(
                go.Scatter(
                    x=sub[x],
                    y=y,
                    mode="lines+markers",
                    line=dict(dash=dash, color=color),
                    name=f"{what} {name}".strip(),
                )
            )
    figs.append(("Latency", _layout(f, "Latency (host: mean and p99; device: mean)", xt, "ms")))

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
                text=[f"{x}={_fmt(v)}" for v in sub[x]],
                hovertemplate="%{text}<br>%{x:,.0f} IOPS<br>%{y:.4g} ms<extra></extra>",
            )
        )
    figs.append(
        ("Latency vs throughput", _layout(f, "Mean latency against throughput", "IOPS", "ms"))
    )

    f = go.Figure()
    for name, color, sub in _groups(df, others):
        for col, what, dash in (("util", "%util", "solid"), ("unit_util", "unit util", "dash")):
            y = _col(sub, col, 100.0)
            if y is None:
                continue
            f.add_trace(
                go.Scatter(
                    x=sub[x],
                    y=y,
                    mode="lines+markers",
                    line=dict(dash=dash, color=color),
                    name=f"{what} {name}".strip(),
                )
            )
    figs.append(
        (
            "Utilisation",
            _layout(f, "Utilisation: iostat %util against the device's units busy", xt, "%"),
        )
    )
    bw = _col(df, "bandwidth_Bps")
    if bw is not None and bw.nunique() > 1:
        f = go.Figure()
        for name, color, sub in _groups(df, others):
            f.add_trace(
                go.Scatter(
                    x=sub[x],
                    y=_col(sub, "bandwidth_Bps", 1 / _MIB),
                    mode="lines+markers",
                    line=dict(color=color),
                    name=name or "bandwidth",
                )
            )
        figs.append(("Bandwidth", _layout(f, "Bandwidth", xt, "MiB/s")))
    return [(h, fig) for h, fig in figs if fig.data]


def _table(df: pd.DataFrame, first: Sequence[str] = ()) -> str:
    cols = [c for c in first if c in df] + [c for c in df.columns if c not in first]
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in cols)
    body = []
    for _, row in df[cols].iterrows():
        cells = []
        for c in cols:
            v = row[c]
            if isinstance(v, float) and math.isnan(v):
                text = ""
            elif isinstance(v, float):
                text = f"{v:.6g}"
            else:
                text = str(v)
            cells.append(f"<td>{html.escape(text)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


# -- fit ------------------------------------------------------------------------------------


def _metric_scale(name: str) -> tuple[float, str]:
    if name.endswith("_s"):
        return 1e3, f"{name[:-2]} (ms)"
    if name.endswith("_Bps"):
        return 1 / _MIB, f"{name[:-4]} (MiB/s)"
    return 1.0, name


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
    if x is None:
        varied = _varied(df.drop(columns=["point"]))
        pref = [c for c in ("outstanding", "threads", "numjobs", "iodepth") if c in varied]
        x = (pref or varied or ["point"])[0]
    elif x not in df:
        raise SpecError(f"--x {x!r} is not a field of the fit's points; fields: {', '.join(df)}")
    xs = df[x].tolist()
    order = sorted(range(len(xs)), key=lambda i: (str(type(xs[i])), xs[i]))
    figs = []
    for m in metrics:
        scale, ytitle = _metric_scale(m)
        meas = [_measured(p).get(m) for p in points]
        pred = [(p.get("predicted") or {}).get(m) for p in points]
        f = go.Figure()
        idx = [i for i in order if pred[i] is not None]
        f.add_trace(
            go.Scatter(
                x=[xs[i] for i in idx],
                y=[pred[i] * scale for i in idx],
                mode="lines",
                line=dict(color=_PALETTE[0]),
                name="predicted (calibrated model)",
            )
        )
        for held, name, symbol, color in (
            (False, "measured, fitted", "circle", _PALETTE[1]),
            (True, "measured, held out", "diamond-open", _PALETTE[2]),
        ):
            idx = [i for i in order if _held(points[i]) == held and meas[i] is not None]
            if idx:
                f.add_trace(
                    go.Scatter(
                        x=[xs[i] for i in idx],
                        y=[meas[i] * scale for i in idx],
                        mode="markers",
                        marker=dict(size=11, symbol=symbol, color=color, line=dict(width=2)),
                        name=name,
                    )
                )
        figs.append((f"Fit: {m}", _layout(f, f"{m}: measured and predicted", _label(x), ytitle)))
    errs: list[str] = []
    for p in points:
        for k, v in (p.get("error") or {}).items():
            if isinstance(v, (int, float)) and k not in errs:
                errs.append(k)
    if errs:
        f = go.Figure()
        labels = [
            f"{x}={_fmt(v)}" + (" (held out)" if _held(p) else "")
            for v, p in zip(xs, points, strict=True)
        ]
        for j, k in enumerate(errs):
            f.add_trace(
                go.Bar(
                    x=labels,
                    y=[(p.get("error") or {}).get(k) for p in points],
                    name=k,
                    marker_color=_PALETTE[j % len(_PALETTE)],
                )
            )
        figs.append(
            ("Errors", _layout(f, "Error of the prediction per point", "point", "error (%)"))
        )
    return figs


def _fit_summary(fit: Mapping[str, Any]) -> str:
    rows = []
    for name, p in (fit.get("params") or {}).items():
        if isinstance(p, Mapping):
            ci = p.get("ci95") or [None, None]
            rows.append(
                {
                    "parameter": name,
                    "value": _fmt_any(p.get("value")),
                    "95 % CI low": _fmt_any(ci[0]) if len(ci) > 0 else "",
                    "95 % CI high": _fmt_any(ci[1]) if len(ci) > 1 else "",
                    "unit": p.get("unit", ""),
                    "determined": _fmt_any(p.get("determined", "")),
                    "at bound": _fmt_any(p.get("at_bound", "")),
                }
            )
        else:
            rows.append({"parameter": name, "value": _fmt_any(p)})
    out = []
    if fit.get("model"):
        out.append(f"<p>Model: <b>{html.escape(str(fit['model']))}</b></p>")
    if rows:
        out.append("<h2>Fitted parameters</h2>" + _table(pd.DataFrame(rows)))
    mape = fit.get("mape") or {}
    if mape:
        table = [{"set": "all", **{k: _fmt_any(v) for k, v in mape.items()}}]
        for set_name, vals in (fit.get("mape_by_set") or {}).items():
            if isinstance(vals, Mapping):
                table.append({"set": set_name, **{k: _fmt_any(v) for k, v in vals.items()}})
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
table { border-collapse: collapse; font-size: 0.82em; margin: 1em 0; display: block;
        overflow-x: auto; }
th, td { border: 1px solid #ddd; padding: 3px 6px; text-align: right; white-space: nowrap; }
th { background: #f4f4f4; }
.figure { margin: 1em 0; }
"""


def _plotly_js() -> str:
    from plotly.offline import get_plotlyjs

    return get_plotlyjs()


def report_html(
    data: Any, *, title: str | None = None, x: str | None = None, source: str = ""
) -> str:
    """The whole report as one HTML string (plotly.js inline, no network needed)."""
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
        summary = ""
        n = len(df)
        table = "<h2>Points</h2>" + _table(df, first=varied)
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
        return f"{v:.6g}"
    if isinstance(v, (dict, list)):
        return json.dumps(v)
    return str(v)


def write_report(
    source: Any,
    output: str | Path | None = None,
    *,
    title: str | None = None,
    x: str | None = None,
) -> Path:
    """Write the HTML report of ``source`` (a file written by ``iosim sweep``/``iosim fit
    --json``, a Curve, rows, a DataFrame or a fit object) to ``output`` and return its path.
    The default output is the source file with ``.html``; required when ``source`` is data."""
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
    if not out.parent.is_dir():
        raise SpecError(f"{out}: directory {str(out.parent)!r} does not exist")
    text = report_html(data, title=title, x=x, source=name)
    out.write_text(text, encoding="utf-8")
    return out

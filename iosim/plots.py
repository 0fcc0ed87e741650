"""Plots: pure functions from results to plotly figures.

Every function takes :class:`~iosim.Curve` / :class:`~iosim.Results` objects (simulated or
measured: parsers of real tool output return the same types) or plain tables, and returns a new
``plotly.graph_objects.Figure``. Nothing here runs a simulation or keeps state, so the widgets
can redraw by calling the same function again and copying the traces into a ``FigureWidget``.

Conventions shared by the whole teaching collection:

* axes in the units people read: milliseconds, IOPS, MiB/s, percent; the data stay in SI;
* one colour per *source*, everywhere: simulated (blue, markers with 95 % CI bands), theory
  (grey dashed line) and measured (red diamonds); device-side latency of a simulation in green;
* trace names are stable (``"IOPS (simulated)"``, ``"host latency (simulated)"``, ...), so tests
  and widgets can find a trace by name; a figure built twice with the same options has the same
  traces in the same order.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from . import labels
from .plotstyle import count_axis, log_axis, nice_step, tick_text
from .results import Curve, Results

__all__ = [
    "COLORS",
    "PERCENTILES",
    "bounds",
    "claim_limits",
    "compare_curves",
    "error_table",
    "iops_latency",
    "latency_cdf",
    "latency_throughput",
    "log_axis",
    "percentiles",
    "qd_histogram",
    "service_breakdown",
    "stack_diagram",
    "tick_text",
    "utilisation",
    "x_values",
]

#: One colour per source of data, used by every figure of the collection.
COLORS = {
    "simulated": "#1f77b4",  # blue: simulation (host side)
    "device": "#2ca02c",  # green: simulated device-side latency
    "theory": "#7f7f7f",  # grey: analytic line
    "measured": "#d62728",  # red: real measurement
    "util": "#9467bd",  # purple: iostat %util
    "unit_util": "#ff7f0e",  # orange: mean fraction of device units busy
    "saturation": "#8c564b",  # brown: R(N) / R(1)
}
_EXTRA = ["#17becf", "#bcbd22", "#e377c2", "#8c564b", "#9467bd", "#ff7f0e"]

#: (column of Results, label) of the latency percentiles, in order.
PERCENTILES = (
    ("lat_p50_s", "p50", 0.50),
    ("lat_p90_s", "p90", 0.90),
    ("lat_p95_s", "p95", 0.95),
    ("lat_p99_s", "p99", 0.99),
    ("lat_p999_s", "p99.9", 0.999),
    ("lat_p9999_s", "p99.99", 0.9999),
)

MS = 1e3  # seconds -> milliseconds
MIB = 1024.0**2

_X_ALIASES = ("threads", "outstanding", "n", "N")


# ---------------------------------------------------------------------------------------------
# inputs
# ---------------------------------------------------------------------------------------------


def _frame(data: Any) -> pd.DataFrame:
    """A DataFrame from a Curve, a Results, a list of Results or a DataFrame."""
    if isinstance(data, Curve):
        return data.df
    if isinstance(data, pd.DataFrame):
        return data
    if isinstance(data, Results):
        return Curve([data]).df
    if isinstance(data, Iterable):
        items = list(data)
        if all(isinstance(r, Results) for r in items):
            return Curve(items).df
    raise TypeError(f"expected an iosim Curve, Results or DataFrame (got {type(data).__name__})")


def _col(df: pd.DataFrame, name: str, scale: float = 1.0) -> np.ndarray | None:
    """A numeric column as a float array (None where the column is absent or all missing)."""
    if name not in df:
        return None
    values = pd.to_numeric(df[name], errors="coerce").to_numpy(dtype=float)
    if values.size and np.all(np.isnan(values)):
        return None
    return values * scale


def x_values(data: Any, x: str | None = None) -> tuple[np.ndarray, str]:
    """The x values of a sweep and their axis label.

    ``x`` is a column of the curve (``"workload.numjobs"``, ``"iodepth"``, ``"hba.queue_depth"``
    ...) or one of ``"threads"`` / ``"outstanding"``: numjobs x iodepth, the I/Os a closed loop
    keeps in flight. By default the curve's own varied key, else the outstanding I/Os.
    """
    df = _frame(data)
    if x is None and isinstance(data, Curve) and data.x and data.x in df:
        x = data.x
    if x is None or x in _X_ALIASES:
        if "numjobs" in df and "iodepth" in df:
            n = pd.to_numeric(df["numjobs"]) * pd.to_numeric(df["iodepth"])
            return n.to_numpy(dtype=float), labels.title("outstanding")
        for alt in ("numjobs", "iodepth", "workload.numjobs", "workload.iodepth"):
            if alt in df:
                return pd.to_numeric(df[alt]).to_numpy(dtype=float), labels.title(alt)
        raise ValueError("the curve has no numjobs/iodepth columns; pass x= one of its columns")
    if x not in df:
        raise ValueError(f"x={x!r} is not a column of the curve; columns: {', '.join(df.columns)}")
    values = pd.to_numeric(df[x]).to_numpy(dtype=float) * labels.scale(x)
    return values, labels.title(x)


def _theory_frame(theory: Any) -> pd.DataFrame:
    """Normalise a theory table to columns x, iops, lat_s (+ device_lat_s when given).

    Accepts the output of :func:`bounds`, of ``iosim.theory.mva`` (``n``, ``throughput``,
    ``latency_s``) or any DataFrame / mapping with those names.
    """
    df = pd.DataFrame(theory) if not isinstance(theory, pd.DataFrame) else theory
    renames = {"n": "x", "throughput": "iops", "latency_s": "lat_s"}
    df = df.rename(columns={k: v for k, v in renames.items() if k in df and v not in df})
    if "x" not in df:
        raise ValueError("a theory table needs an x (or n) column")
    return df


# ---------------------------------------------------------------------------------------------
# theory line for a closed loop
# ---------------------------------------------------------------------------------------------


def bounds(stack, workload, n: Iterable[int] | int) -> pd.DataFrame:
    """The asymptotic-bounds line of a closed loop with ``n`` outstanding I/Os on ``stack``.

    X(N) = min(N / (S + Z), C) and R(N) = N / X(N) - Z, where S is the mean time a request
    holds a path slot, Z the host overhead plus think time, and C the capacity of the tightest
    layer (device units, effective queue depth = paths x HBA queue depth, block-layer
    nr_requests, link), from ``iosim.theory.closed_bounds`` and
    ``iosim.open_loop_capacity_iops``. These are bounds; with deterministic service they are the
    exact answer (the all-flash LUN of E1-E3). ``device_lat_s`` is the device's own share:
    S while the outstanding requests fit in its units, growing once they queue inside it.
    Returns columns x, iops, lat_s, device_lat_s.
    """
    from . import theory
    from .simulate import open_loop_capacity_iops

    ns = [int(n)] if isinstance(n, (int, np.integer)) else [int(v) for v in n]
    size = workload.mean_block_bytes
    dev = stack.device
    # one request alone, over the workload's span (a short-stroked disk seeks less)
    alone = dev.alone_service_s(size, random=workload.random, span_bytes=workload.span_bytes)
    s_dev = alone if alone is not None else dev.mean_service_s(size)
    # after its unit is free a request may still wait (a disk's slow interface)
    done = dev.alone_latency_s(size, random=workload.random, span_bytes=workload.span_bytes,
                               read_fraction=workload.read_fraction)
    lag = max(0.0, done - s_dev) if done is not None else 0.0
    link = stack.link
    s_path = s_dev + lag + 2 * link.latency_s
    if math.isfinite(link.bandwidth_Bps):
        s_path += size / link.bandwidth_Bps
    z = stack.host.overhead.mean_s + workload.thinktime_s
    cap = open_loop_capacity_iops(stack, workload)
    slots = min(stack.effective_queue_depth, stack.block.nr_requests)
    units = dev.units
    d_max = min(s_path, 1.0 / cap) if cap > 0 and math.isfinite(cap) else s_path
    rows = []
    for v in ns:
        b = theory.closed_bounds(v, demand_s=s_path, max_demand_s=d_max, think_s=z)
        dev_lat = lag + s_dev * max(1.0, min(v, slots) / units)
        rows.append({"x": v, "iops": b["x_upper"], "lat_s": b["r_lower"], "device_lat_s": dev_lat})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------
# building blocks
# ---------------------------------------------------------------------------------------------


def _rgba(hex_color: str, alpha: float) -> str:
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def _band(x, y, half, name: str, color: str, legendgroup: str) -> go.Scatter:
    """A filled 95 % confidence band (drawn even when it has zero width, so the trace list of a
    figure does not depend on the data)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    h = np.nan_to_num(np.asarray(half, dtype=float)) if half is not None else np.zeros_like(y)
    return go.Scatter(
        x=np.concatenate([x, x[::-1]]),
        y=np.concatenate([y + h, (y - h)[::-1]]),
        fill="toself",
        fillcolor=_rgba(color, 0.18),
        line={"width": 0, "color": _rgba(color, 0.0)},
        hoverinfo="skip",
        name=name,
        legendgroup=legendgroup,
        showlegend=False,
    )


def _sim_line(x, y, name: str, color: str, *, dash: str | None = None, group: str = ""):
    return go.Scatter(
        x=np.asarray(x, dtype=float),
        y=np.asarray(y, dtype=float),
        mode="lines+markers",
        name=name,
        legendgroup=group or name,
        line={"color": color, "dash": dash or "solid", "width": 2},
        marker={"size": 6, "color": color},
    )


def _theory_line(x, y, name: str):
    return go.Scatter(
        x=np.asarray(x, dtype=float),
        y=np.asarray(y, dtype=float),
        mode="lines",
        name=name,
        line={"color": COLORS["theory"], "dash": "dash", "width": 2},
    )


def _measured_points(x, y, name: str, *, symbol: str = "diamond", color: str | None = None):
    return go.Scatter(
        x=np.asarray(x, dtype=float),
        y=np.asarray(y, dtype=float),
        mode="markers",
        name=name,
        marker={"symbol": symbol, "size": 10, "color": color or COLORS["measured"]},
    )


def _layout(title: str | None, height: int, **kw) -> dict:
    """The house style: title top left, legend in one row between title and plot (so the
    plot keeps the width), width from the container (notebook, report or browser)."""
    out = {
        "title": {"text": title or "", "x": 0.01, "xanchor": "left", "y": 0.985,
                  "yanchor": "top", "yref": "container"},
        "height": height,
        "autosize": True,
        "template": "plotly_white",
        "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.01, "x": 0.0,
                   "xanchor": "left", "traceorder": "normal",
                   "bgcolor": "rgba(255,255,255,0.7)"},
        "margin": {"l": 70, "r": 30, "t": 90, "b": 60},
        "hovermode": "x unified",
    }  # fmt: skip
    out.update(kw)
    return out


def _hide_covered(fig: go.Figure, rel: float = 0.005) -> go.Figure:
    """Take out of the legend a line drawn exactly under a later one (same axes, same points
    within ``rel``): the legend lists only what can be seen. Hovering still shows both."""
    lines = [t for t in fig.data if t.type == "scatter" and t.showlegend is not False]
    for i, under in enumerate(lines):
        for over in lines[i + 1 :]:
            if (under.xaxis, under.yaxis, under.mode) != (over.xaxis, over.yaxis, over.mode):
                continue
            if under.x is None or over.x is None or len(under.x) != len(over.x):
                continue
            ux, ox = np.asarray(under.x, dtype=object), np.asarray(over.x, dtype=object)
            uy = np.asarray(under.y, dtype=float)
            oy = np.asarray(over.y, dtype=float)
            if not np.array_equal(ux, ox) or np.all(np.isnan(uy)):
                continue
            with np.errstate(invalid="ignore", divide="ignore"):
                close = np.isclose(uy, oy, rtol=rel, atol=0, equal_nan=True)
            if close.all():
                under.showlegend = False
                break
    return fig


# ---------------------------------------------------------------------------------------------
# IOPS and latency against queue depth / threads
# ---------------------------------------------------------------------------------------------


def iops_latency(
    curve: Any,
    *,
    x: str | None = None,
    theory: Any = None,
    measured: Any = None,
    measured_x: str | None = None,
    bandwidth: bool = False,
    device: bool = True,
    log_x: bool = False,
    title: str | None = None,
    height: int = 620,
) -> go.Figure:
    """IOPS (top) and mean latency in ms (bottom) against threads or queue depth.

    ``curve`` is a simulated sweep (host latency in blue with its 95 % CI band; the device's own
    latency in green, dashed, when ``device``). ``theory`` adds grey dashed lines (a table from
    :func:`bounds` or ``iosim.theory.mva``); ``measured`` adds red diamonds (any Curve, e.g. from
    ``iosim.traces``; its x from ``measured_x``, default the same rule as ``x``).
    ``bandwidth`` plots MiB/s instead of IOPS in the top panel. ``log_x`` puts x on a log
    scale (for 1, 2, 4 ... 256 outstanding I/Os) with labelled powers of two.
    """
    df = _frame(curve)
    xs, xlabel = x_values(curve, x)
    top = "MiB/s" if bandwidth else "IOPS"
    fig = make_subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.06,
    )
    if bandwidth:
        y_top = _col(df, "bandwidth_Bps", 1 / MIB)
        iops = _col(df, "iops")
        ci = _col(df, "iops_ci95")
        half = ci * (y_top / iops) if ci is not None and iops is not None else None
    else:
        y_top = _col(df, "iops")
        half = _col(df, "iops_ci95")
    lat = _col(df, "lat_mean_s", MS)
    lat_half = _col(df, "lat_mean_ci95_s", MS)
    dev = _col(df, "device_lat_mean_s", MS)
    c_sim, c_dev = COLORS["simulated"], COLORS["device"]

    fig.add_trace(_band(xs, y_top, half, f"{top} 95% CI", c_sim, "top"), row=1, col=1)
    fig.add_trace(_sim_line(xs, y_top, f"{top} (simulated)", c_sim, group="top"), row=1, col=1)
    fig.add_trace(_band(xs, lat, lat_half, "host latency 95% CI", c_sim, "lat"), row=2, col=1)
    fig.add_trace(_sim_line(xs, lat, "host latency (simulated)", c_sim, group="lat"), row=2, col=1)
    if device:
        y = dev if dev is not None else np.full_like(xs, np.nan)
        tr = _sim_line(xs, y, "device latency (simulated)", c_dev, dash="dash")
        tr.showlegend = dev is not None
        fig.add_trace(tr, row=2, col=1)

    if theory is not None:
        th = _theory_frame(theory)
        if bandwidth:
            raise ValueError("theory lines are in IOPS; use bandwidth=False with theory=")
        fig.add_trace(_theory_line(th["x"], th["iops"], f"{top} (theory)"), row=1, col=1)
        fig.add_trace(
            _theory_line(th["x"], th["lat_s"] * MS, "host latency (theory)"), row=2, col=1
        )

    if measured is not None:
        mdf = _frame(measured)
        mx, _ = x_values(measured, measured_x if measured_x is not None else x)
        my = _col(mdf, "bandwidth_Bps", 1 / MIB) if bandwidth else _col(mdf, "iops")
        if my is not None:
            fig.add_trace(_measured_points(mx, my, f"{top} (measured)"), row=1, col=1)
        ml = _col(mdf, "lat_mean_s", MS)
        if ml is not None:
            fig.add_trace(_measured_points(mx, ml, "host latency (measured)"), row=2, col=1)
        mdev = _col(mdf, "device_lat_mean_s", MS)
        if mdev is not None:
            fig.add_trace(
                _measured_points(mx, mdev, "device latency (measured)", symbol="x"), row=2, col=1
            )

    fig.update_layout(**_layout(title, height))
    fig.update_xaxes(title_text=xlabel, row=2, col=1)
    top_title = "Bandwidth (MiB/s)" if bandwidth else "IOPS"
    fig.update_yaxes(title_text=top_title, rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text="Mean latency (ms)", rangemode="tozero", row=2, col=1)
    if log_x:
        log_axis(fig, "x")
    else:
        count_axis(fig, xs)
    return _hide_covered(fig)


def compare_curves(
    curves: Mapping[str, Any],
    *,
    x: str | None = None,
    theory: Mapping[str, Any] | None = None,
    bandwidth: bool = False,
    percentile: str | None = None,
    log_x: bool = False,
    title: str | None = None,
    height: int = 620,
) -> go.Figure:
    """Several sweeps on one figure: IOPS (or MiB/s, with ``bandwidth``) on top, mean host
    latency (or the ``percentile`` column, e.g. ``"lat_p99_s"``) below; one colour per curve,
    named by its key in ``curves``. ``theory`` maps the same keys to theory tables (dashed
    lines in the curve's colour). A Curve with no ``engine`` (measured) is drawn as diamonds."""
    palette = [COLORS["simulated"], COLORS["measured"], COLORS["device"], *_EXTRA]
    top = "MiB/s" if bandwidth else "IOPS"
    lat_col = percentile or "lat_mean_s"
    lat_title = labels.title(lat_col)
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.06)
    xlabel = ""
    all_x: list[float] = []
    for i, (label, curve) in enumerate(curves.items()):
        df = _frame(curve)
        xs, xlabel = x_values(curve, x)
        all_x.extend(xs)
        color = palette[i % len(palette)]
        measured = "engine" in df and df["engine"].isna().all()
        y_top = _col(df, "bandwidth_Bps", 1 / MIB) if bandwidth else _col(df, "iops")
        lat = _col(df, lat_col, MS)
        for row, y, name in ((1, y_top, f"{top}: {label}"), (2, lat, f"latency: {label}")):
            if y is None:
                continue
            if measured:
                tr = _measured_points(xs, y, name, color=color)
            else:
                tr = _sim_line(xs, y, name, color, group=label)
            tr.legendgroup = label
            tr.showlegend = row == 1
            fig.add_trace(tr, row=row, col=1)
        if theory and label in theory:
            th = _theory_frame(theory[label])
            for row, y in ((1, th["iops"]), (2, th["lat_s"] * MS)):
                tl = _theory_line(th["x"], y, f"theory: {label}")
                tl.line.color = color
                tl.legendgroup = label
                tl.showlegend = False
                fig.add_trace(tl, row=row, col=1)
    fig.update_layout(**_layout(title, height))
    fig.update_xaxes(title_text=xlabel, row=2, col=1)
    top_title = "Bandwidth (MiB/s)" if bandwidth else "IOPS"
    fig.update_yaxes(title_text=top_title, rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text=lat_title, rangemode="tozero", row=2, col=1)
    if log_x:
        log_axis(fig, "x")
    else:
        count_axis(fig, all_x)
    return fig


def latency_throughput(
    curve: Any,
    *,
    x: str | None = None,
    theory: Any = None,
    measured: Any = None,
    measured_x: str | None = None,
    bandwidth: bool = False,
    title: str | None = None,
    height: int = 460,
) -> go.Figure:
    """The latency-throughput curve: mean host latency (ms) against IOPS (or MiB/s).

    Each point is labelled with its threads / queue depth; error bars are 95 % CIs. The curve
    bends up at the knee: past it, more outstanding I/Os buy latency, not throughput. A
    measured curve (no ``engine``) is drawn in the measured colour, dotted.
    """
    df = _frame(curve)
    xs, xlabel = x_values(curve, x)
    if bandwidth:
        tx = _col(df, "bandwidth_Bps", 1 / MIB)
        tx_half = None
    else:
        tx = _col(df, "iops")
        tx_half = _col(df, "iops_ci95")
    lat = _col(df, "lat_mean_s", MS)
    lat_half = _col(df, "lat_mean_ci95_s", MS)
    unit = "MiB/s" if bandwidth else "IOPS"
    kind = "measured" if "engine" in df and df["engine"].isna().all() else "simulated"
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=tx,
            y=lat,
            mode="lines+markers+text",
            text=[f"{v:g}" for v in xs],
            textposition="top left",
            name=kind,
            line={"color": COLORS[kind], "width": 2, "dash": "dot" if kind == "measured" else None},
            marker={"size": 7, "color": COLORS[kind]},
            error_x={"type": "data", "array": tx_half, "visible": tx_half is not None},
            error_y={"type": "data", "array": lat_half, "visible": lat_half is not None},
            hovertemplate=(
                f"{xlabel}=%{{text}}<br>%{{x:.4g}} {unit}<br>%{{y:.4g}} ms<extra></extra>"
            ),
        )
    )
    if theory is not None:
        th = _theory_frame(theory)
        fig.add_trace(_theory_line(th["iops"], th["lat_s"] * MS, "theory"))
    if measured is not None:
        mdf = _frame(measured)
        my = _col(mdf, "bandwidth_Bps", 1 / MIB) if bandwidth else _col(mdf, "iops")
        fig.add_trace(_measured_points(my, _col(mdf, "lat_mean_s", MS), "measured"))
    fig.update_layout(
        **_layout(title or "latency against throughput", height, hovermode="closest"),
        xaxis_title=unit,
        yaxis_title="mean latency (ms)",
    )
    fig.update_xaxes(rangemode="tozero")
    fig.update_yaxes(rangemode="tozero")
    return fig


# ---------------------------------------------------------------------------------------------
# latency distribution
# ---------------------------------------------------------------------------------------------


def _items(items: Sequence[Any], labels: Sequence[str] | None) -> list[tuple[str, Results]]:
    """Flatten Results / Curves into (label, Results) pairs."""
    out: list[tuple[str, Results]] = []
    for i, item in enumerate(items):
        given = labels[i] if labels is not None and i < len(labels) else None
        if isinstance(item, Results):
            out.append((given or f"run {i + 1}", item))
        elif isinstance(item, Curve):
            xs, xlabel = x_values(item)
            short = xlabel.split(" (")[0]
            for v, r in zip(xs, item.points, strict=True):
                out.append((f"{given + ': ' if given else ''}{short}={v:g}", r))
        else:
            raise TypeError(f"expected Results or Curve (got {type(item).__name__})")
    return out


def _is_measured(r: Results) -> bool:
    return r.engine is None


def _style(i: int, r: Results, n: int) -> dict:
    if n == 1:
        color = COLORS["measured"] if _is_measured(r) else COLORS["simulated"]
    else:
        palette = [COLORS["simulated"], COLORS["device"], *_EXTRA]
        color = palette[i % len(palette)]
    if _is_measured(r):
        return {"line": {"color": color, "dash": "dot"}, "marker": {"symbol": "diamond", "size": 9}}
    return {"line": {"color": color}, "marker": {"size": 7}}


def percentiles(
    *items: Any,
    labels: Sequence[str] | None = None,
    title: str | None = None,
    height: int = 420,
) -> go.Figure:
    """Latency percentiles p50 .. p99.99 (ms, log scale), one line per run.

    ``items`` are Results or Curves (a Curve gives one line per point). Measured runs (no
    ``engine``) are dotted with diamonds. The tail is where queueing shows first.
    """
    pairs = _items(items, labels)
    cats = [lab for _, lab, _ in PERCENTILES]
    fig = go.Figure()
    for i, (label, r) in enumerate(pairs):
        ys = [getattr(r, col) for col, _, _ in PERCENTILES]
        ys = [v * MS if v is not None else None for v in ys]
        fig.add_trace(
            go.Scatter(x=cats, y=ys, mode="lines+markers", name=label, **_style(i, r, len(pairs)))
        )
    fig.update_layout(
        **_layout(title or "latency percentiles", height, hovermode="closest"),
        xaxis_title="percentile",
        yaxis_title="latency (ms)",
    )
    return log_axis(fig, "y")


def latency_cdf(
    *items: Any,
    labels: Sequence[str] | None = None,
    tail: bool = True,
    title: str | None = None,
    height: int = 420,
) -> go.Figure:
    """The latency distribution as a CDF through the reported percentiles (and the maximum).

    With ``tail`` the y axis counts "nines" (-log10 of the fraction slower), so p99, p99.9 and
    p99.99 are evenly spaced instead of squashed against 100 %.
    """
    pairs = _items(items, labels)
    fig = go.Figure()
    for i, (label, r) in enumerate(pairs):
        pts = [(getattr(r, col), q) for col, _, q in PERCENTILES if getattr(r, col) is not None]
        lat = np.array([p[0] for p in pts], dtype=float) * MS
        q = np.array([p[1] for p in pts], dtype=float)
        y = -np.log10(1 - q) if tail else q * 100
        fig.add_trace(
            go.Scatter(
                x=lat,
                y=y,
                mode="lines+markers",
                name=label,
                line_shape="hv",
                customdata=q * 100,
                hovertemplate="%{x:.4g} ms: %{customdata:.2f} % of I/Os<extra>"
                + label
                + "</extra>",
                **_style(i, r, len(pairs)),
            )
        )
    yaxis: dict = {"title": "fraction of I/Os completed within"}
    if tail:
        ticks = [0.30103, 1, 2, 3, 4]
        yaxis.update(tickvals=ticks, ticktext=["50 %", "90 %", "99 %", "99.9 %", "99.99 %"])
    else:
        yaxis.update(ticksuffix=" %", range=[0, 101])
    fig.update_layout(
        **_layout(title or "latency CDF", height, hovermode="closest"),
        xaxis={"title": "latency (ms)"},
        yaxis=yaxis,
    )
    return log_axis(fig, "x")


def qd_histogram(
    *items: Any,
    labels: Sequence[str] | None = None,
    title: str | None = None,
    height: int = 400,
) -> go.Figure:
    """The achieved queue depth: fraction of time with k I/Os outstanding at the host
    (fio's "IO depths"), one bar group per run, with the mean marked."""
    pairs = _items(items, labels)
    fig = go.Figure()
    for i, (label, r) in enumerate(pairs):
        dist = {int(k): float(v) for k, v in (r.qd_dist or {}).items()}
        ks = sorted(dist)
        color = _style(i, r, len(pairs))["line"]["color"]
        mean = r.qd_mean if r.qd_mean is not None else r.outstanding
        name = f"{label} (mean {mean:.2f})" if mean is not None else label
        fig.add_trace(
            go.Bar(
                x=ks,
                y=[dist[k] * 100 for k in ks],
                name=name,
                marker_color=color,
                hovertemplate="%{x} outstanding: %{y:.1f} % of the time<extra></extra>",
            )
        )
        if mean is not None:
            fig.add_vline(x=mean, line={"color": color, "dash": "dash", "width": 2})
    fig.update_layout(
        **_layout(title or "achieved queue depth", height, hovermode="closest"),
        barmode="group",
        xaxis_title="I/Os outstanding at the host",
        yaxis_title="% of time",
    )
    fig.update_xaxes(dtick=1) if all(len(r.qd_dist or {}) <= 20 for _, r in pairs) else None
    return fig


# ---------------------------------------------------------------------------------------------
# utilisation
# ---------------------------------------------------------------------------------------------


def utilisation(
    curve: Any,
    *,
    x: str | None = None,
    saturation: bool = True,
    measured: Any = None,
    measured_x: str | None = None,
    log_x: bool = False,
    title: str | None = None,
    height: int = 440,
) -> go.Figure:
    """iostat's %util (time with at least one request below the host) next to the mean
    fraction of the device's units busy, in percent; with ``saturation`` the ratio R(N)/R(1)
    on a second axis whose round ticks line up with the percent grid (0, 20 ... 100 %). On a
    parallel device %util reaches 100 % long before the units do (E11). ``measured`` adds the
    measured %util (red diamonds) and its saturation ratio. ``log_x`` for 1, 2, 4 ... N."""
    df = _frame(curve)
    xs, xlabel = x_values(curve, x)
    fig = make_subplots(specs=[[{"secondary_y": saturation}]])
    util = _col(df, "util", 100)
    uu = _col(df, "unit_util", 100)
    fig.add_trace(_sim_line(xs, util, "%util (simulated)", COLORS["util"]), secondary_y=False)
    fig.add_trace(
        _sim_line(xs, uu, "units busy % (simulated)", COLORS["unit_util"]), secondary_y=False
    )
    sat_max = 1.0
    if saturation:
        sat = _col(df, "saturation")
        if sat is None:
            lat = _col(df, "lat_mean_s")
            sat = lat / lat[0] if lat is not None and len(lat) else np.full_like(xs, np.nan)
        sat_max = max(sat_max, float(np.nanmax(sat)) if np.isfinite(sat).any() else 1.0)
        fig.add_trace(
            _sim_line(xs, sat, "R(N)/R(1) (simulated)", COLORS["saturation"], dash="dot"),
            secondary_y=True,
        )
    if measured is not None:
        mdf = _frame(measured)
        mx, _ = x_values(measured, measured_x if measured_x is not None else x)
        mu = _col(mdf, "util", 100)
        if mu is not None:
            fig.add_trace(_measured_points(mx, mu, "%util (measured)"), secondary_y=False)
        if saturation:
            ms = _col(mdf, "saturation")
            if ms is not None:
                if np.isfinite(ms).any():
                    sat_max = max(sat_max, float(np.nanmax(ms)))
                fig.add_trace(
                    _measured_points(mx, ms, "R(N)/R(1) (measured)", symbol="x"), secondary_y=True
                )
    fig.update_layout(**_layout(title or "utilisation is not saturation", height))
    fig.update_xaxes(title_text=xlabel)
    # five steps on both axes, and the same headroom (10 % of a step above the top tick), so
    # the right axis's round ticks sit on the left axis's grid lines
    fig.update_yaxes(
        title_text="%util and units busy (%)",
        range=[0, 110],
        tickmode="linear",
        tick0=0,
        dtick=20,
        ticksuffix=" %",
        secondary_y=False,
    )
    if saturation:
        step = nice_step(sat_max, 5)
        fig.update_yaxes(
            title_text="R(N) / R(1): latency over latency at 1",
            range=[0, 5.5 * step],
            tickmode="linear",
            tick0=0,
            dtick=step,
            ticksuffix="x",
            showgrid=False,
            secondary_y=True,
        )
    for tr in fig.data:
        tr.cliponaxis = False
    if log_x:
        log_axis(fig, "x")
    else:
        count_axis(fig, xs)
    return _hide_covered(fig)


# ---------------------------------------------------------------------------------------------
# the stack as boxes with their queues
# ---------------------------------------------------------------------------------------------


def stack_diagram(
    stack, results: Results | None = None, *, title: str | None = None, height: int = 320
) -> go.Figure:
    """The stack drawn as one box per layer, each filled by the mean number of I/Os in it.

    Layers, top to bottom: the jobs between I/Os (host overhead), the host queue (waiting for a
    path slot), the HBA slots (paths x queue depth) and the device's units. Every box is the
    layer's capacity; its fill the time-averaged occupancy from ``results`` (Little's law per
    layer) as a fraction of that capacity, on a linear scale, so 4 of 64 units fill 6 % of
    the box. The row labels give the counts. Without results only the capacities are drawn.
    """
    paths = stack.multipath.paths
    qd_eff = stack.effective_queue_depth
    units = stack.device.units
    n = None
    if results is not None and results.params:
        p = results.params
        if p.get("numjobs") is not None and p.get("iodepth") is not None:
            n = int(p["numjobs"]) * int(p["iodepth"])
    host_out = results.qd_mean if results is not None and results.qd_mean is not None else 0.0
    dev_out = (
        results.device_qd_mean
        if results is not None and results.device_qd_mean is not None
        else 0.0
    )
    busy = results.unit_util * units if results is not None and results.unit_util else 0.0
    if n is None:
        n = max(1, math.ceil(host_out))
    waiting = max(0.0, host_out - dev_out)
    in_overhead = max(0.0, n - host_out)
    layers = [
        (
            "jobs in host overhead",
            float(n),
            in_overhead,
            f"{in_overhead:.2f} of {n} jobs between I/Os (not queued)",
        ),
        ("host queue", float(max(n, 1)), waiting, f"{waiting:.2f} I/Os waiting for a slot"),
        (
            "HBA slots",
            float(qd_eff),
            dev_out,
            f"{dev_out:.2f} of {qd_eff} in use ({paths} path{'s' if paths > 1 else ''} "
            f"× QD {stack.hba.queue_depth})",
        ),
        ("device units", float(units), busy, f"{busy:.2f} of {units:,} units busy"),
    ]
    names = [lay[0] for lay in layers]
    cap = [lay[1] for lay in layers]
    occ = [lay[2] for lay in layers]
    txt = [lay[3] for lay in layers]
    fill = [min(100.0, 100.0 * o / c) if c > 0 else 0.0 for o, c in zip(occ, cap, strict=True)]
    # the row label carries the numbers, so nothing is written over a box
    rows = [f"<b>{n}</b><br>{t}" for n, t in zip(names, txt, strict=True)]
    # layer colours, none of them a source colour except the device's green
    colors = ["#c7c7c7", COLORS["unit_util"], COLORS["util"], COLORS["device"]]
    fig = go.Figure()
    fig.add_trace(
        go.Bar(
            y=rows,
            x=[100.0] * len(rows),
            orientation="h",
            name="capacity",
            marker={"color": "rgba(0,0,0,0)", "line": {"color": "#333", "width": 2}},
            customdata=cap,
            hovertemplate="capacity %{customdata:.0f} I/Os<extra></extra>",
        )
    )
    fig.add_trace(
        go.Bar(
            y=rows,
            x=fill,
            orientation="h",
            name="mean I/Os in the layer",
            marker={"color": colors},
            customdata=occ,
            hovertemplate="%{customdata:.2f} I/Os on average = %{x:.0f} % full<extra></extra>",
        )
    )
    fig.update_layout(
        **_layout(title or "where the I/Os are", height, hovermode="closest"),
        barmode="overlay",
        showlegend=False,
        xaxis={
            "title": "fill: mean I/Os in the layer as % of its capacity (the box)",
            "range": [0, 100.5],
            "tickvals": [0, 25, 50, 75, 100],
            "ticktext": ["0 %", "25 %", "50 %", "75 %", "100 %"],
        },
        yaxis={"autorange": "reversed", "automargin": True},
    )
    return fig


def service_breakdown(
    parts: Mapping[str, Mapping[str, float]],
    *,
    title: str | None = None,
    height: int | None = None,
) -> go.Figure:
    """Where the service time goes: one horizontal stacked bar per configuration (keys of
    ``parts``), one segment per component (seconds in, ms on the axis), e.g.
    ``{"7200 rpm": {"seek": 9e-3, "rotation": 4.17e-3, "transfer": 0.03e-3}}``. The total and
    the IOPS it allows (1 / total) are printed at the end of each bar."""
    rows = list(parts)
    components: list[str] = []
    for comp in parts.values():
        components += [c for c in comp if c not in components]
    palette = [COLORS["unit_util"], COLORS["util"], COLORS["device"], *_EXTRA]
    fig = go.Figure()
    for i, comp in enumerate(components):
        fig.add_trace(
            go.Bar(
                y=rows,
                x=[parts[r].get(comp, 0.0) * MS for r in rows],
                name=comp,
                orientation="h",
                marker_color=palette[i % len(palette)],
                hovertemplate=f"{comp}: %{{x:.3f}} ms<extra>%{{y}}</extra>",
            )
        )
    totals = [sum(parts[r].values()) for r in rows]
    fig.add_trace(
        go.Scatter(
            y=rows,
            x=[t * MS for t in totals],
            mode="text",
            text=[f"  {t * MS:.2f} ms = {1 / t:,.0f} IOPS" if t > 0 else "" for t in totals],
            textposition="middle right",
            showlegend=False,
            hoverinfo="skip",
            name="total",
        )
    )
    fig.update_layout(
        **_layout(
            title or "where the service time goes",
            height or 160 + 50 * len(rows),
            hovermode="closest",
        ),
        barmode="stack",
        xaxis={"title": "ms per I/O", "range": [0, max(totals + [1e-9]) * MS * 1.45]},
        yaxis={"autorange": "reversed"},
    )
    return fig


# ---------------------------------------------------------------------------------------------
# vendor claims
# ---------------------------------------------------------------------------------------------


#: What each ceiling of ``iosim.claims`` is, for people (the bar labels of the claim chart).
CEILING_LABELS = {
    "little": "Little's law: QD / latency",
    "bandwidth": "bandwidth / block size",
    "units": "parallel units / service time",
    "link": "link rate / block size",
    "iops-cap": "IOPS cap",
    "bandwidth-cap": "bandwidth cap / block size",
}


def claim_limits(check, *, title: str | None = None, height: int | None = None) -> go.Figure:
    """Every IOPS ceiling of an ``iosim.claims.check_claim`` result as a bar (named for what
    it is: "Little's law: QD / latency", "bandwidth / block size", ...), the claim as a
    labelled dashed line. The tightest ceiling is highlighted: red when the claim breaks it,
    orange when it holds. Linear axis from zero unless the ceilings span more than 20x."""
    ceilings = list(check.ceilings)
    names = [CEILING_LABELS.get(c.name, c.name) for c in ceilings]
    values = [c.value for c in ceilings]
    colors = []
    for c in ceilings:
        if c.name == check.binding:
            colors.append(COLORS["measured"] if not check.feasible else COLORS["unit_util"])
        else:
            colors.append(COLORS["theory"])
    texts = []
    for c in ceilings:
        t = f"at most {c.value:,.0f} IOPS"
        if c.name == check.binding:
            t += " (tightest)"
        texts.append(t)
    fig = go.Figure(
        go.Bar(
            y=names,
            x=values,
            orientation="h",
            marker_color=colors,
            text=texts,
            textposition="auto",
            insidetextanchor="end",
            textangle=0,
            cliponaxis=False,
            hovertext=[c.explain for c in ceilings],
            hoverinfo="text",
            name="ceiling",
        )
    )
    verdict = "feasible" if check.feasible else "infeasible"
    fig.add_vline(
        x=check.claimed_iops,
        line={"color": "black", "dash": "dash", "width": 2},
        annotation_text=f"claim: {check.claimed_iops:,.0f} IOPS ({verdict})",
        annotation_position="top",
        annotation_yanchor="bottom",
    )
    every = [*values, check.claimed_iops]
    lo, hi = min(every), max(every)
    fig.update_layout(
        **_layout(
            title or "what limits the claim",
            height or 200 + 60 * len(ceilings),
            hovermode="closest",
        ),
        xaxis={"title": "maximum IOPS each limit allows"},
        yaxis={"autorange": "reversed", "automargin": True},
        showlegend=False,
    )
    if hi / lo > 20:
        log_axis(fig, "x", [lo / 2, hi * 3])
        fig.update_xaxes(range=[math.log10(lo / 2), math.log10(hi * 3)])
        # annotations on a log axis are placed by log10 of the value (the shape is not)
        for ann in fig.layout.annotations:
            if ann.text and ann.text.startswith("claim:"):
                ann.x = math.log10(check.claimed_iops)
    else:
        # explicit, so a widget redrawn from a log chart to a linear one changes its axis
        fig.update_xaxes(type="linear", tickmode="auto", range=[0, hi * 1.35], tickformat=",")
    return fig


# ---------------------------------------------------------------------------------------------
# reproduction tables
# ---------------------------------------------------------------------------------------------


def error_table(
    index: Sequence[Any],
    index_name: str = "point",
    *,
    reference: str = "published",
    model: str = "simulated",
    **metrics: tuple[Sequence[float], Sequence[float]],
) -> pd.DataFrame:
    """A per-point error table for a reproduction: for each metric ``name=(published,
    simulated)`` the columns ``name published``, ``name simulated`` and ``name error %``
    (signed, relative to the published value); ``reference`` and ``model`` rename the first
    two (e.g. "measured", "predicted"). ``table.attrs["max_abs_error_pct"]`` holds the
    largest absolute error per metric, for the tolerance checks."""
    data: dict[str, Any] = {}
    worst: dict[str, float] = {}
    for name, (pub, sim) in metrics.items():
        p = np.asarray(pub, dtype=float)
        s = np.asarray(sim, dtype=float)
        if p.shape != s.shape or p.shape != (len(index),):
            raise ValueError(f"{name}: published and simulated need {len(index)} values each")
        err = (s - p) / p * 100
        data[f"{name} {reference}"] = p
        data[f"{name} {model}"] = s
        data[f"{name} error %"] = np.round(err, 2)
        worst[name] = float(np.nanmax(np.abs(err))) if err.size else 0.0
    table = pd.DataFrame(data, index=pd.Index(list(index), name=index_name))
    table.attrs["max_abs_error_pct"] = worst
    return table

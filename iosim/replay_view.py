"""Figures and a widget for trace replays (:mod:`iosim.replay`).

* :func:`timeline`: latency per window of issue time (mean and p99, milliseconds) and the
  request rate, simulated in blue and, when the trace measured latencies, measured in red.
* :func:`cdf`: response-time CDFs of one or several replays (and the trace's measured one),
  on a log time axis, with the demerit figure in the title when there is a measurement.
* :func:`speed_explorer`: a slider for the replay speed; each move replays the trace (same
  seed) and redraws the timeline and the CDF against the speed-1 replay.

Colours follow :data:`iosim.plots.COLORS` (simulated blue, measured red); other replays take the
collection's extra colours. Every function returns a new figure; nothing is kept between calls.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .plots import COLORS
from .replay import ReplayResult, replay

__all__ = ["timeline", "cdf", "speed_explorer", "SpeedExplorer"]

MS = 1e3
_OTHERS = ["#ff7f0e", "#9467bd", "#17becf", "#8c564b", "#e377c2", "#bcbd22"]
_CDF_POINTS = 400  # points per CDF curve: enough to look smooth, small to send


def _window_frame(curve):
    df = curve.df
    return df["t_s"].to_numpy(), df


def timeline(result: ReplayResult, *, title: str | None = None) -> go.Figure:
    """Latency per time window (top: mean and p99 in ms) and requests per second (bottom)."""
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.68, 0.32],
                        vertical_spacing=0.07)
    sources = [("simulated", result.windows)]
    if result.measured_windows is not None:
        sources.append(("measured", result.measured_windows))
    for label, curve in sources:
        t, df = _window_frame(curve)
        if not len(t):
            continue
        color = COLORS[label]
        for col, name, dash in (("lat_mean_s", "mean", "solid"), ("lat_p99_s", "p99", "dot")):
            if col in df:
                fig.add_trace(go.Scatter(x=t, y=df[col] * MS, mode="lines",
                                         name=f"{name} latency ({label})",
                                         line=dict(color=color, dash=dash)), row=1, col=1)
        if label == "simulated":
            fig.add_trace(go.Scatter(x=t, y=df["iops"], mode="lines", name="requests/s issued",
                                     line=dict(color=COLORS["theory"], shape="hv")),
                          row=2, col=1)
    fig.update_yaxes(title_text="latency (ms)", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text="requests/s", rangemode="tozero", row=2, col=1)
    fig.update_xaxes(title_text="time since the first request (s)", row=2, col=1)
    speed = f", speed {result.speed:g}x" if result.mode == "open" else ""
    fig.update_layout(
        title=title or f"Replay ({result.mode}{speed}): latency per {_fmt_s(result.window_s)}",
        height=480, legend=dict(orientation="h", y=-0.18), margin=dict(t=60, b=40),
        template="plotly_white")
    return fig


def _cdf_xy(result: ReplayResult, measured: bool = False) -> tuple[np.ndarray, np.ndarray]:
    x, y = result.cdf_points(measured=measured, points=_CDF_POINTS)
    return x * MS, y


def cdf(results: ReplayResult | Mapping[str, ReplayResult], *, measured: bool = True,
        title: str | None = None, log_x: bool | None = None) -> go.Figure:
    """Response-time CDFs of one replay or of several (``{label: result}``), and the trace's
    measured CDF (from the first result) when it has one and ``measured`` is set. The time
    axis is logarithmic when the curves span more than two decades or their 99th percentiles
    all lie below a quarter of the slowest request (``log_x`` forces it), from the 0.1st
    percentile of the fastest curve (below it a CDF says nothing readable)."""
    runs = {"simulated": results} if isinstance(results, ReplayResult) else dict(results)
    fig = go.Figure()
    first = next(iter(runs.values()))
    for i, (label, r) in enumerate(runs.items()):
        x, y = _cdf_xy(r)
        color = COLORS["simulated"] if i == 0 else _OTHERS[(i - 1) % len(_OTHERS)]
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines", name=label, line=dict(color=color)))
    demerit = ""
    if measured and first.comparison is not None:
        c = first.comparison
        x, y = _cdf_xy(first, measured=True)
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines", name="measured",
                                 line=dict(color=COLORS["measured"], dash="dash")))
        demerit = (f"; demerit {c.demerit_s * MS:.3g} ms ({100 * c.demerit_frac:.1f} % of the "
                   "measured mean)")
    xs = [np.asarray(tr.x) for tr in fig.data if len(tr.x)]
    lo = min((float(np.quantile(x, 0.001)) for x in xs), default=1.0)
    hi = max((float(x.max()) for x in xs), default=10.0)
    lo = max(lo, hi * 1e-6, 1e-6)
    if log_x is None:  # many decades, or a tail that would squeeze the bulk into a corner
        bulk = max((float(np.quantile(x, 0.99)) for x in xs), default=hi)
        log_x = hi / lo > 100 or bulk < 0.25 * hi
    if log_x:
        decades = math.log10(hi * 1.1) - math.log10(lo)
        fig.update_xaxes(type="log", range=[math.log10(lo), math.log10(hi * 1.1)],
                         dtick=1 if decades > 3 else "D2",  # (D2: 1, 2, 5 in each decade)
                         exponentformat="none", tickformat="~g")
    else:
        fig.update_xaxes(range=[0, hi * 1.03])
    fig.update_xaxes(title_text="response time (ms)")
    fig.update_yaxes(title_text="fraction of requests at or below", range=[0, 1.02])
    fig.update_layout(title=title or f"Response-time CDF{demerit}", height=420,
                      template="plotly_white",
                      legend=dict(x=0.99, xanchor="right", y=0.04, yanchor="bottom",
                                  bgcolor="rgba(255,255,255,0.8)"),
                      margin=dict(t=60, b=40))
    return fig


def _fmt_s(s: float) -> str:
    if s >= 1:
        return f"{s:g} s"
    if s >= 1e-3:
        return f"{s * 1e3:g} ms"
    return f"{s * 1e6:g} us"


class SpeedExplorer:
    """The widget :func:`speed_explorer` returns (display it, or its ``box``): a speed slider,
    a status line, the timeline and the CDF. ``result`` is the last replay."""

    def __init__(self, trace, stack, *, speed: float, slo_s: float | None, seed: int,
                 engine: str):
        import ipywidgets as W

        self.trace, self.stack, self.seed, self.engine = trace, stack, seed, engine
        self.slo_s = slo_s
        self.base = replay(trace, stack, speed=1.0, seed=seed, engine=engine)
        self.slider = W.FloatLogSlider(value=speed, base=2, min=-3, max=4, step=0.25,
                                       description="speed", readout_format=".3g",
                                       continuous_update=False)
        self.status = W.HTML()
        self.timeline = go.FigureWidget()
        self.cdf = go.FigureWidget()
        self.box = W.VBox([self.slider, self.status, self.timeline, self.cdf])
        self.slider.observe(lambda change: self.update(change["new"]), names="value")
        self.update(speed)

    def update(self, speed: float) -> None:
        from .widgets import update_figure

        self.result = r = replay(self.trace, self.stack, speed=float(speed), seed=self.seed,
                                 engine=self.engine)
        p99 = r.results.lat_p99_s
        verdict = ""
        if self.slo_s is not None and p99 is not None and math.isfinite(p99):
            ok = p99 <= self.slo_s
            verdict = (f" &mdash; <b style='color:{'green' if ok else '#d62728'}'>"
                       f"{'meets' if ok else 'misses'}</b> p99 &le; {self.slo_s * MS:g} ms")
        self.status.value = (f"speed {speed:.3g}x: {r.results.iops:,.0f} requests/s, mean "
                             f"{r.results.lat_mean_s * MS:.3g} ms, p99 {p99 * MS:.3g} ms{verdict}")
        update_figure(self.timeline, timeline(r))
        update_figure(self.cdf, cdf({f"speed {speed:.3g}x": r, "speed 1x": self.base}))

    def _ipython_display_(self):  # pragma: no cover - notebook display
        from IPython.display import display

        display(self.box)


def speed_explorer(trace, stack, *, speed: float = 1.0, slo_s: float | None = None,
                   seed: int = 1, engine: str = "auto") -> SpeedExplorer:
    """A slider for the open-loop replay speed of ``trace`` on ``stack`` (1/8x .. 16x)."""
    return SpeedExplorer(trace, stack, speed=speed, slo_s=slo_s, seed=seed, engine=engine)

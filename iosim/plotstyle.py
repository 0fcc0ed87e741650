"""The house style of iosim's figures that plots and reports share: log axes with labelled
major ticks only (powers of two for queue depths and threads, 1-2-5 per decade otherwise,
round steps when the data span less than a few ticks) and short tick labels without
e-notation. Imports nothing else of iosim but :mod:`iosim.labels`."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import plotly.graph_objects as go

from . import labels

__all__ = ["count_axis", "log_axis", "nice_step", "tick_text"]


def nice_step(top: float, n: int) -> float:
    """The smallest 1-2-2.5-5 x 10^k step with ``n`` steps reaching ``top``."""
    raw = max(top, 1e-12) / n
    mag = 10.0 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if m * mag >= raw * (1 - 1e-9):
            return m * mag
    return 10 * mag


def _nice_ticks(lo: float, hi: float, powers_of_two: bool) -> list[float]:
    """Tick values for a log axis from ``lo`` to ``hi``: powers of two (queue depths,
    threads) or 1-2-5 per decade, thinned to at most about ten labels."""
    if powers_of_two:
        k0, k1 = math.floor(math.log2(lo) + 1e-9), math.ceil(math.log2(hi) - 1e-9)
        ticks = [2.0**k for k in range(k0, k1 + 1)]
        step = 1
        while len(ticks[::step]) > 10:
            step += 1
        return ticks[::step]
    d0, d1 = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    inside = [m * 10.0**d for d in range(d0, d1 + 1) for m in (1, 2, 5)]
    if sum(lo <= t <= hi for t in inside) < 3:  # less than a few 1-2-5 ticks: round steps
        step = nice_step(hi - lo, 5) if hi > lo else 10.0 ** math.floor(math.log10(lo))
        k0, k1 = math.floor(lo / step), math.ceil(hi / step)
        return [round(k * step, 12) for k in range(max(k0, 1), k1 + 1)]
    for mantissas in ((1, 2, 5), (1, 3), (1,)):
        ticks = [m * 10.0**d for d in range(d0, d1 + 1) for m in mantissas]
        ticks = [t for t in ticks if lo / 1.5 <= t <= hi * 1.5]
        if len(ticks) <= 10:
            return ticks
    return [10.0**d for d in range(d0, d1 + 1)]


def tick_text(v: float, k_from: float = 1e4) -> str:
    """A short tick label: 0.5, 8, 512, 5,000, 250k, 1M (no e-notation, no minor digits);
    thousands written as "k" from ``k_from`` on (1e3 on an axis that reaches 10k, so one
    axis does not mix "5,000" and "10k")."""
    a = abs(v)
    for above, factor, suffix in ((1e9, 1e9, "G"), (1e6, 1e6, "M"), (k_from, 1e3, "k")):
        if a >= above:
            return labels.number(v / factor, 3) + suffix
    return labels.number(v, 3)


def _axis_values(fig: go.Figure, axis: str, ref: str) -> list[float]:
    """The positive data values plotted on one axis (``ref`` like "x", "x2", "y")."""
    out: list[float] = []
    for tr in fig.data:
        if (getattr(tr, f"{axis}axis", None) or axis) != ref:
            continue
        vals = getattr(tr, axis, None)
        if vals is None:
            continue
        for v in np.asarray(vals, dtype=object).ravel():
            try:
                f = float(v)
            except (TypeError, ValueError):
                continue
            if math.isfinite(f) and f > 0:
                out.append(f)
    return out


def count_axis(
    fig: go.Figure, values: Iterable[float], axis: str = "x", **where
) -> go.Figure:
    """Ticks on whole numbers only on a linear axis of counts (threads, queue depths): on a
    short range plotly alone ticks at 1.2, 1.4 ... ("1.4 jobs"). When every value is whole and
    they span fewer than ten, the axis steps by 1; a longer range, or values not all whole,
    keep plotly's own step (``tickmode="auto"``: 2, 5, 10 ... on whole values over ten or
    more). ``where`` as in ``fig.update_xaxes``. Returns ``fig``."""
    vals = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    update = fig.update_xaxes if axis == "x" else fig.update_yaxes
    whole = bool(vals) and all(abs(v - round(v)) <= 1e-9 for v in vals)
    if whole and max(vals) - min(vals) < 10:
        update(tickmode="linear", tick0=0, dtick=1, **where)
    else:  # said, so a figure updated in place (widgets) drops an earlier step of 1
        update(tickmode="auto", **where)
    return fig


def log_axis(
    fig: go.Figure, axis: str = "x", values: Iterable[float] | None = None, **where
) -> go.Figure:
    """Make ``axis`` ("x" or "y") of ``fig`` logarithmic with labelled major ticks only:
    powers of two when the data are powers of two (queue depths, threads), else 1-2-5 per
    decade. Minor ticks stay unlabelled (plotly alone would write "2 3 4 ... 9" between
    decades). ``where`` selects subplots, as ``fig.update_xaxes`` (``row=``, ``col=``,
    ``secondary_y=``). Used by every log axis of the collection; returns ``fig``."""
    if values is None:
        layout_axes = [k for k in fig.layout if k.startswith(f"{axis}axis")] or [f"{axis}axis"]
        refs = [axis + k[len(axis) + 4 :] for k in layout_axes]
        vals = [v for ref in refs for v in _axis_values(fig, axis, ref)]
    else:
        vals = [float(v) for v in values if v is not None and float(v) > 0]
    update = fig.update_xaxes if axis == "x" else fig.update_yaxes
    if not vals:
        update(type="log", dtick=1, **where)
        return fig
    lo, hi = min(vals), max(vals)
    pow2 = all(abs(math.log2(v) - round(math.log2(v))) < 1e-9 for v in vals) and hi / lo >= 4
    ticks = _nice_ticks(lo, hi, pow2)
    update(
        type="log",
        tickmode="array",
        tickvals=ticks,
        ticktext=[tick_text(t, 1e3 if max(ticks) >= 1e4 else 1e4) for t in ticks],
        **where,
    )
    return fig

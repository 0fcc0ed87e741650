"""Widgets: thin ipywidgets front ends over the simulator and :mod:`iosim.plots`.

Each widget is controls plus a pure update: the controls become a plain ``settings`` dict,
:func:`model` turns stack + workload + settings into the model to run, :func:`explore_curve`
runs it (the same numbers ``iosim.sweep`` gives), and a function of :mod:`iosim.plots` draws
it. The widget only copies the new traces into its ``FigureWidget`` (updated in place) and
shows a progress bar while the simulation runs.

* :func:`explore` -- sliders for threads, iodepth, HBA queue depth, paths (and a failed path),
  device units, block size and device preset, over IOPS and host/device latency.
* :func:`claim_checker` -- type a vendor's claim; every physical limit it implies is drawn,
  the binding one highlighted (``iosim.claims.check_claim``).
* :func:`planner` -- targets and a failure to plan for; the planner (``iosim.plan``) explains
  every configuration it tries.
* :func:`compare` -- a measured sweep over the model, with a button that fits the model's
  service time, units and host overhead to the measurement (``iosim.fit``) and re-simulates.

``IOSIM_FAST=1`` in the environment shrinks every run (see :func:`ios`), so the whole notebook
collection executes in CI.
"""

from __future__ import annotations

import dataclasses
import html
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import ipywidgets as W
import plotly.graph_objects as go

from . import plots
from .results import Curve, Results
from .simulate import sweep
from .spec import SpecError
from .stack import Stack, apply_overrides
from .workload import Workload, default_workload

__all__ = [
    "BLOCK_SIZES",
    "CONTROLS",
    "ClaimChecker",
    "Comparer",
    "Explorer",
    "Planner",
    "claim_checker",
    "compare",
    "explore",
    "applicable_controls",
    "bound_holds",
    "explore_curve",
    "thread_counts",
    "fast_mode",
    "fit_model",
    "ios",
    "model",
    "planner",
    "update_figure",
]

FAST_ENV = "IOSIM_FAST"

#: The controls :func:`explore` can show, in display order.
CONTROLS = (
    "threads",
    "iodepth",
    "overhead",
    "hba_qd",
    "paths",
    "fail_path",
    "units",
    "channels",
    "dies",
    "level",
    "members",
    "cache",
    "read_pct",
    "scheduler",
    "span",
    "block_size",
    "preset",
)

#: Controls that need a device field: control -> field of ``stack.device.to_dict()``.
DEVICE_CONTROLS = {
    "units": "units",
    "channels": "channels",
    "dies": "dies_per_channel",
    "level": "level",
    "members": "members",
    "cache": "write_cache_bytes",
    "scheduler": "scheduler",
}


def applicable_controls(stack: Stack, controls: Sequence[str] = CONTROLS) -> list[str]:
    """The ``controls`` that make sense for ``stack``'s device (the device ones need the field
    they set)."""
    offered = stack.device.widget_controls  # the family declares its own
    return [c for c in controls if c not in DEVICE_CONTROLS or c in offered]


#: Address spans offered by the explorer (short-stroking): (label, bytes); "whole device" is
#: the workload's own span.
SPANS = (("1 GiB", 1024**3), ("10 GiB", 10 * 1024**3), ("100 GiB", 100 * 1024**3))

#: Block sizes offered by the explorer: (label, bytes).
BLOCK_SIZES = (
    ("512 B", 512),
    ("4 KiB", 4096),
    ("8 KiB", 8192),
    ("16 KiB", 16384),
    ("64 KiB", 65536),
    ("128 KiB", 131072),
    ("256 KiB", 262144),
    ("1 MiB", 1048576),
)


def fast_mode() -> bool:
    """True when ``IOSIM_FAST`` is set to something other than ``0``/empty (CI runs)."""
    return os.environ.get(FAST_ENV, "").strip() not in ("", "0", "false", "no")


def ios(full: int = 20_000, fast: int | None = None) -> int:
    """The number of measured I/Os for a run: ``full`` normally, ``fast`` (default a tenth of
    ``full``, at least 500) when ``IOSIM_FAST=1``."""
    if not fast_mode():
        return int(full)
    return int(fast if fast is not None else max(500, full // 10))


_ios = ios  # the functions below have a parameter of that name


# ---------------------------------------------------------------------------------------------
# the pure part
# ---------------------------------------------------------------------------------------------


def _preset_device(name: str):
    from . import presets

    return presets.load(name)[0].device


def model(
    stack: Stack, workload: Workload, settings: Mapping[str, Any] | None = None
) -> tuple[Stack, Workload]:
    """The stack and workload an explorer with ``settings`` simulates.

    ``settings`` keys (all optional):

    * ``iodepth``, ``block_size`` (bytes), ``span`` (address span in bytes), ``read_pct``
      (percent reads of a random workload);
    * ``overhead``: host overhead per I/O in microseconds (deterministic);
    * ``hba_qd``, ``paths``, ``fail_path`` (True: path 0 is down for the whole run; needs two
      paths or more);
    * device: ``units`` (generic), ``channels`` and ``dies`` (per channel, SSD),
      ``scheduler`` (``fifo``/``sptf``, disk), ``level``, ``members`` and ``cache``
      (write-back cache on or off, RAID), ``preset`` (take the device of that preset);
    * ``overrides``: any further dotted keys, as for ``Stack.with_``.

    Raises ``iosim.SpecError`` for a combination the model rejects.
    """
    settings = dict(settings or {})
    if settings.get("preset"):
        stack = dataclasses.replace(stack, device=_preset_device(settings["preset"]))
    over: dict[str, Any] = {}
    keys = {
        "iodepth": "workload.iodepth",
        "hba_qd": "hba.queue_depth",
        "paths": "multipath.paths",
        "units": "device.units",
        "channels": "device.channels",
        "dies": "device.dies_per_channel",
        "level": "device.level",
        "members": "device.members",
        "scheduler": "device.scheduler",
        "span": "workload.span_bytes",
        "block_size": "workload.block_size_bytes",
    }
    for key, dotted in keys.items():
        if settings.get(key) is not None:
            over[dotted] = settings[key]
    if "fail_path" in settings:
        paths = int(settings.get("paths") or stack.multipath.paths)
        if settings["fail_path"]:
            if paths < 2:
                raise SpecError("failing a path needs at least two paths")
            over["multipath.failures"] = [{"path": 0, "fail_at_s": 0.0}]
        else:
            over["multipath.failures"] = []
    if settings.get("overhead") is not None:
        over["host.overhead"] = f"{float(settings['overhead'])}us"
    if settings.get("read_pct") is not None:
        pct = float(settings["read_pct"])
        over["workload.rw"] = "randread" if pct >= 100 else "randwrite" if pct <= 0 else "randrw"
        over["workload.rwmixread"] = pct
    if settings.get("cache") is not None:
        if "cache" not in stack.device.widget_controls:
            raise SpecError("the cache control needs a device with write_cache_bytes (RAID)")
        if not settings["cache"]:
            over["device.write_cache_bytes"] = 0
        elif not stack.device.write_cache_bytes:
            over["device.write_cache_bytes"] = "4MiB"
    over.update(settings.get("overrides") or {})
    new_stack, new_wl = apply_overrides(stack, workload, over)
    return new_stack, new_wl if new_wl is not None else workload


def thread_counts(threads: int, spacing: str = "linear") -> list[int]:
    """The thread counts an explorer simulates for a slider at ``threads``: every count from 1
    (``"linear"``) or the powers of two up to it, plus it (``"log"``, for deep queues)."""
    n = int(threads)
    if spacing == "linear":
        return list(range(1, n + 1))
    if spacing != "log":
        raise ValueError(f"spacing must be 'linear' or 'log' (got {spacing!r})")
    out = [1 << k for k in range(n.bit_length()) if (1 << k) < n]
    return [*out, n]


def explore_curve(
    stack: Stack,
    workload: Workload,
    threads: int | Iterable[int],
    *,
    ios: int = 3000,
    seed: int = 1,
    engine: str = "auto",
    on_point: Callable[[int, int], None] | None = None,
) -> Curve:
    """Simulate ``workload`` at numjobs = 1..threads (or the given thread counts).

    Point by point, with the same seed at every point, so the numbers equal
    ``iosim.sweep(stack, workload, {"workload.numjobs": [...]}, ios=ios, seed=seed)``, except
    that a point runs at least 8 I/Os per outstanding I/O (deep queues need the longer run);
    ``on_point(done, total)`` is called after each point (progress bars).
    """
    values = list(range(1, int(threads) + 1)) if isinstance(threads, int) else list(threads)
    points: list[Results] = []
    for i, n in enumerate(values):
        part = sweep(
            stack,
            workload,
            {"workload.numjobs": [n]},
            ios=max(int(ios), 8 * n * workload.iodepth),
            seed=seed,
            engine=engine,
            progress=False,
        )
        points.append(part[0])
        if on_point is not None:
            on_point(i + 1, len(values))
    return Curve(points, x="workload.numjobs")


def bound_holds(theory, curve: Curve) -> bool:
    """True when no simulated point's IOPS lies above the theory line (a table from
    :func:`iosim.plots.bounds`, point for point with ``curve``) by more than its 95 % CI and
    1 %. The line bounds IOPS with the device's mean service time over the whole device in
    arrival order and with the stack's capacity (measured with the queue full for a disk that
    reorders it, :func:`iosim.simulate.saturated_iops`); a short-stroked disk beats the
    whole-disk mean, and a "bound" the model beats would mislead, so the explorer leaves it
    out."""
    iops = curve.df["iops"].to_numpy(dtype=float)
    ci = curve.df["iops_ci95"].fillna(0.0).to_numpy(dtype=float)
    bound = theory["iops"].to_numpy(dtype=float)
    if len(bound) != len(iops):
        return False
    return bool(((iops - ci) <= bound * 1.01).all())


def update_figure(widget: go.FigureWidget, fig: go.Figure) -> None:
    """Copy ``fig`` into ``widget`` in place: trace by trace when the traces line up (the
    front end then animates nothing and keeps zoom), otherwise by replacing them."""
    new = list(fig.data)
    with widget.batch_update():
        same = len(widget.data) == len(new) and all(
            a.type == b.type and a.name == b.name for a, b in zip(widget.data, new, strict=True)
        )
        if same:
            for old, tr in zip(widget.data, new, strict=True):
                props = {k: v for k, v in tr.to_plotly_json().items() if k not in ("type", "uid")}
                # a property left at its default is absent from the new trace: say it, or the
                # old value would stay (a legend entry hidden once would never come back)
                props.setdefault("showlegend", True)
                old.update(props)
        else:
            widget.data = ()
            widget.add_traces(new)
        lay = fig.layout.to_plotly_json()
        lay.pop("template", None)
        widget.layout.update(lay)


# ---------------------------------------------------------------------------------------------
# explore
# ---------------------------------------------------------------------------------------------


class Explorer(W.VBox):
    """The widget :func:`explore` returns: a VBox of controls, a status line, a progress bar
    and the figure(s). ``controls`` maps control names to widgets, ``figure`` is the
    FigureWidget, ``curve`` the last simulated Curve, ``settings()`` the current settings."""

    def __init__(
        self,
        stack: Stack,
        workload: Workload,
        *,
        controls: Sequence[str],
        threads: int,
        max_threads: int,
        ios: int,
        seed: int,
        engine: str,
        theory: bool,
        show_stack: bool,
        presets: Sequence[str] | None,
        spacing: str = "linear",
    ):
        self.spacing = spacing
        thread_counts(1, spacing)  # validates
        self.stack = stack
        self.workload = workload
        self.ios = ios
        self.seed = seed
        self.engine = engine
        self.show_theory = theory
        self.curve: Curve | None = None
        self.error: str | None = None
        self.theory_dropped = False  # the last theory line was beaten by the model
        unknown = [c for c in controls if c not in CONTROLS]
        if unknown:
            raise ValueError(f"unknown control(s) {unknown}; choose from {', '.join(CONTROLS)}")
        unfit = [c for c in controls if c not in applicable_controls(stack, controls)]
        if unfit:
            raise ValueError(
                f"control(s) {unfit} do not apply to a {stack.device.kind!r} device "
                f"(applicable: {', '.join(applicable_controls(stack))})"
            )
        self.controls: dict[str, W.Widget] = {}
        make = self._control_factories(stack, workload, threads, max_threads, presets)
        for name in controls:
            w = make[name]()
            if isinstance(w, (W.IntSlider, W.FloatSlider)):
                w.continuous_update = False
            w.style.description_width = "initial"
            w.add_class(f"iosim-{name.replace('_', '-')}")
            self.controls[name] = w
        self.status = W.HTML(value="", layout=W.Layout(min_height="1.6em"))
        self.status.add_class("iosim-status")
        self.progress = W.IntProgress(
            value=0, min=0, max=1, description="simulating", layout=W.Layout(visibility="hidden")
        )
        self.progress.add_class("iosim-progress")
        # build the first figure (layout passed to the constructor so it is kept in the
        # saved widget state, see the browser-test recipe)
        self._threads_fixed = threads
        curve, fig, diagram = self._compute()
        self.figure = go.FigureWidget(data=fig.data, layout=fig.layout)
        self.figure.add_class("iosim-figure")
        self.diagram = None
        children: list[W.Widget] = []
        if self.controls:
            children.append(
                W.HBox(list(self.controls.values()), layout=W.Layout(flex_flow="row wrap"))
            )
        children += [self.status, self.progress, self.figure]
        if show_stack:
            self.diagram = go.FigureWidget(data=diagram.data, layout=diagram.layout)
            self.diagram.add_class("iosim-diagram")
            children.append(self.diagram)
        super().__init__(children=children)
        self.add_class("iosim-explore")
        self._show(curve)
        for w in self.controls.values():
            w.observe(self._on_change, names="value")
        if "paths" in self.controls and "fail_path" in self.controls:
            self.controls["fail_path"].disabled = self.controls["paths"].value < 2

    def _control_factories(self, stack: Stack, workload: Workload, threads: int,
                           max_threads: int, presets: Sequence[str] | None) -> dict:
        """Each control's widget constructor (called only for the controls asked for, so a
        device control reads fields its family has)."""
        return {
            "threads": lambda: W.IntSlider(
                value=threads, min=1, max=max_threads, description="threads"
            ),
            "iodepth": lambda: W.IntSlider(
                value=workload.iodepth, min=1, max=32, description="iodepth"
            ),
            "overhead": lambda: W.FloatSlider(
                value=round(stack.host.overhead.mean_s * 1e6, 1),
                min=0.0,
                max=500.0,
                step=0.1,
                description="overhead µs",
            ),
            "hba_qd": lambda: W.IntSlider(
                value=stack.hba.queue_depth, min=1, max=64, description="HBA QD"
            ),
            "paths": lambda: W.IntSlider(
                value=stack.multipath.paths, min=1, max=8, description="paths"
            ),
            "fail_path": lambda: W.Checkbox(value=False, description="path 0 failed", indent=False),
            "units": lambda: W.IntSlider(
                value=stack.device.units, min=1, max=256, description="units"
            ),
            "channels": lambda: W.IntSlider(
                value=stack.device.channels, min=1, max=32, description="channels"
            ),
            "dies": lambda: W.IntSlider(
                value=stack.device.dies_per_channel,
                min=1,
                max=16,
                description="dies per channel",
            ),
            "level": lambda: W.Dropdown(
                options=[("RAID " + lv, lv) for lv in ("0", "1", "10", "5", "6")],
                value=str(stack.device.level),
                description="level",
            ),
            "members": lambda: W.IntSlider(
                value=stack.device.members, min=2, max=24, description="members"
            ),
            "cache": lambda: W.Checkbox(
                value=bool(stack.device.write_cache_bytes),
                description="write-back cache",
                indent=False,
            ),
            "read_pct": lambda: W.IntSlider(
                value=int(round(workload.read_fraction * 100)),
                min=0,
                max=100,
                step=5,
                description="% reads",
            ),
            "scheduler": lambda: W.ToggleButtons(
                options=[("FIFO", "fifo"), ("SPTF (NCQ)", "sptf")],
                value=stack.device.scheduler,
                description="scheduler",
            ),
            "span": lambda: W.Dropdown(
                options=[*SPANS, ("whole device", workload.span_bytes)]
                if workload.span_bytes not in dict(SPANS).values()
                else list(SPANS),
                value=workload.span_bytes,
                description="address span",
            ),
            "block_size": lambda: W.Dropdown(
                options=list(BLOCK_SIZES)
                if workload.block_size_bytes in dict(BLOCK_SIZES).values()
                else [
                    *BLOCK_SIZES,
                    (f"{workload.block_size_bytes:g} B", workload.block_size_bytes),
                ],
                value=workload.block_size_bytes,
                description="block size",
            ),
            "preset": lambda: W.Dropdown(
                options=[("(this stack's device)", "")] + [(p, p) for p in (presets or [])],
                value="",
                description="device",
            ),
        }

    # -- state ---------------------------------------------------------------------------
    def settings(self) -> dict[str, Any]:
        """The current control values as a settings dict for :func:`model`."""
        out: dict[str, Any] = {}
        for name, w in self.controls.items():
            if name != "threads":
                out[name] = w.value
        return out

    @property
    def threads(self) -> int:
        w = self.controls.get("threads")
        return int(w.value) if w is not None else int(self._threads_fixed)

    def _compute(self, on_point=None):
        stack, wl = model(self.stack, self.workload, self.settings())
        curve = explore_curve(
            stack,
            wl,
            thread_counts(self.threads, self.spacing),
            ios=self.ios,
            seed=self.seed,
            engine=self.engine,
            on_point=on_point,
        )
        theory = None
        if self.show_theory:
            try:
                theory = plots.bounds(stack, wl, thread_counts(self.threads, self.spacing))
            except (AttributeError, TypeError, ValueError):
                theory = None
        self.theory_dropped = theory is not None and not bound_holds(theory, curve)
        if self.theory_dropped:
            theory = None
        paths = stack.multipath.paths
        failed = len({ev.path for ev in stack.multipath.failures})
        title = (
            f"{stack.name or 'stack'}: threads 1..{self.threads}, HBA QD {stack.hba.queue_depth}"
            f" x {paths - failed}/{paths} path{'s' if paths > 1 else ''} up"
        )
        fig = plots.iops_latency(
            curve, theory=theory, title=title, log_x=self.spacing == "log"
        )
        diagram = plots.stack_diagram(
            stack, curve[-1], title=f"where the I/Os are at {self.threads} threads"
        )
        self._model = (stack, wl)
        return curve, fig, diagram

    def _show(self, curve: Curve) -> None:
        self.curve = curve
        last = curve[-1]
        stack = self._model[0]
        dev = last.device_lat_mean_s
        dev_txt = f"{dev * 1e3:.3f} ms" if dev is not None else "n/a"
        live = stack.effective_queue_depth - stack.hba.queue_depth * len(
            {ev.path for ev in stack.multipath.failures}
        )
        self.status.value = (
            f"<b>threads={self.threads}</b>: IOPS {last.iops:,.0f} &middot; host latency "
            f"{last.lat_mean_s * 1e3:.3f} ms &middot; device latency {dev_txt} &middot; "
            f"achieved outstanding I/Os (IOPS x latency) {last.outstanding:.2f} of "
            f"{self.threads * self._model[1].iodepth} &middot; "
            f"effective queue depth {live} &middot; engine {last.engine}"
        )
        if self.theory_dropped:
            self.status.value += (
                " &middot; no theory line: the model beats the bound of its mean service time"
                " (the device reorders its queue, or the span is short)"
            )

    def update(self) -> None:
        """Re-simulate with the current controls and redraw in place."""
        self.progress.max = len(thread_counts(self.threads, self.spacing))
        self.progress.value = 0
        self.progress.layout.visibility = "visible"

        def tick(done, total):
            self.progress.max = total
            self.progress.value = done

        try:
            curve, fig, diagram = self._compute(on_point=tick)
        except SpecError as exc:
            self.error = str(exc)
            self.status.value = f"<span style='color:#d62728'>{html.escape(str(exc))}</span>"
            return
        finally:
            self.progress.layout.visibility = "hidden"
        self.error = None
        update_figure(self.figure, fig)
        if self.diagram is not None:
            update_figure(self.diagram, diagram)
        self._show(curve)

    def _on_change(self, change) -> None:
        if "paths" in self.controls and "fail_path" in self.controls:
            few = self.controls["paths"].value < 2
            self.controls["fail_path"].disabled = few
            if few and self.controls["fail_path"].value:
                self.controls["fail_path"].value = False  # triggers its own update
                return
        self.update()


def explore(
    stack: Stack | None = None,
    workload: Workload | None = None,
    *,
    controls: Sequence[str] | None = None,
    threads: int = 8,
    max_threads: int = 64,
    ios: int | None = None,
    seed: int = 1,
    engine: str = "auto",
    theory: bool = True,
    show_stack: bool = False,
    presets: Sequence[str] | None = None,
    spacing: str = "linear",
) -> Explorer:
    """An interactive sweep of threads 1..N on ``stack`` (default: the default preset).

    ``controls`` picks the controls shown, from :data:`CONTROLS` (default: every one that
    applies to the device, see :func:`applicable_controls`); ``threads`` is the first
    value of the threads slider (or the fixed N without it). Every change re-simulates
    (``ios`` measured I/Os per point, default :func:`ios` (3000)) and redraws IOPS and host and
    device latency in place, with the bounds of :func:`iosim.plots.bounds` as the theory line
    (left out, with a note in the status line, where the model beats it: see
    :func:`bound_holds`);
    ``show_stack`` adds the stack diagram at the last point. ``presets`` lists the device
    presets offered (default: all). ``spacing="log"`` simulates 1, 2, 4, ... N threads instead
    of every count (deep queues: SSDs, cloud volumes).
    """
    if stack is None:
        from . import presets as _presets

        stack, wl = _presets.load(_presets.DEFAULT)
        workload = workload or wl
    workload = workload or default_workload(stack.device)
    if controls is None:
        controls = applicable_controls(stack)
    if presets is None and "preset" in controls:
        from . import presets as _presets

        presets = _presets.names()
    return Explorer(
        stack,
        workload,
        controls=list(controls),
        threads=threads,
        max_threads=max(max_threads, threads),
        ios=ios if ios is not None else _ios(3000, 1000),
        seed=seed,
        engine=engine,
        theory=theory,
        show_stack=show_stack,
        presets=presets,
        spacing=spacing,
    )


# ---------------------------------------------------------------------------------------------
# compare: a measured curve over the model, and a fit
# ---------------------------------------------------------------------------------------------


def _measured_axis(measured: Curve, vary: str | None) -> tuple[str, list[int]]:
    df = measured.df
    if vary is None:
        for key, col in (("workload.iodepth", "iodepth"), ("workload.numjobs", "numjobs")):
            if col in df and df[col].nunique() > 1:
                vary = key
                break
        else:
            vary = "workload.numjobs"
    col = vary.split(".")[-1]
    if col not in df:
        raise ValueError(f"the measured curve has no {col!r} column to vary {vary!r} along")
    return vary, [int(v) for v in df[col]]


#: What the compare widget's fit button calibrates by default (``iosim.fit`` keys).
FIT_PARAMS = ("host.overhead", "device.service", "device.units")


def fit_model(
    measured: Curve,
    stack: Stack,
    workload: Workload,
    *,
    vary: str | None = None,
    params: Sequence[str] = FIT_PARAMS,
) -> tuple[Stack, dict[str, float]]:
    """The compare widget's default fit: ``iosim.fit.fit`` of ``params`` with ``stack`` as the
    base (generic devices), analytic surrogate only (the widget simulates the result itself).
    Returns the calibrated stack and ``{parameter: value}``."""
    from .fit import fit

    result = fit(measured, "generic", params=list(params), base_stack=stack, verify=False)
    return result.stack, {name: p.value for name, p in result.params.items()}


class Comparer(W.VBox):
    """The widget :func:`compare` returns: the measured curve over the model, a fit button and
    a per-point error table. ``stack`` is the current (possibly fitted) model."""

    def __init__(self, measured, stack, workload, *, vary, ios, seed, engine, fit):
        self.measured = measured
        self.stack = stack
        self.workload = workload
        self.vary, self.values = _measured_axis(measured, vary)
        self.ios, self.seed, self.engine = ios, seed, engine
        self._fit = fit or fit_model
        self.fitted: dict[str, float] | None = None
        self.button = W.Button(description="fit the model", icon="sliders")
        self.button.add_class("iosim-fit")
        self.status = W.HTML()
        self.table = W.HTML()
        self.progress = W.IntProgress(
            value=0,
            min=0,
            max=len(self.values),
            description="simulating",
            layout=W.Layout(visibility="hidden"),
        )
        curve, fig = self._compute()
        self.figure = go.FigureWidget(data=fig.data, layout=fig.layout)
        self.figure.add_class("iosim-figure")
        self.button.on_click(lambda _b: self.fit())
        super().__init__(
            children=[W.HBox([self.button, self.status]), self.progress, self.figure, self.table]
        )
        self.add_class("iosim-compare")
        self._show(curve)

    def _compute(self, on_point=None):
        points = []
        for i, v in enumerate(self.values):
            part = sweep(
                self.stack,
                self.workload,
                {self.vary: [v]},
                ios=self.ios,
                seed=self.seed,
                engine=self.engine,
                progress=False,
            )
            points.append(part[0])
            if on_point:
                on_point(i + 1, len(self.values))
        curve = Curve(points, x=self.vary)
        col = self.vary.split(".")[-1]
        title = f"measured vs {self.stack.name or 'model'}" + (" (fitted)" if self.fitted else "")
        wide = min(self.values) > 0 and max(self.values) / min(self.values) >= 32
        fig = plots.iops_latency(
            curve, x=self.vary, measured=self.measured, measured_x=col, title=title, log_x=wide
        )
        return curve, fig

    def _show(self, curve):
        self.curve = curve
        m = self.measured.df
        table = plots.error_table(
            self.values,
            self.vary.split(".")[-1],
            IOPS=(m["iops"], curve.df["iops"]),
            **{"latency ms": (m["lat_mean_s"] * 1e3, curve.df["lat_mean_s"] * 1e3)},
        )
        self.error_table = table
        worst = table.attrs["max_abs_error_pct"]
        self.table.value = table.to_html(float_format=lambda v: f"{v:,.4g}")
        self.status.value = "worst error: " + ", ".join(f"{k} {v:.1f} %" for k, v in worst.items())

    def fit(self) -> dict[str, float]:
        """Fit the model to the measurement, re-simulate and redraw."""
        self.stack, self.fitted = self._fit(
            self.measured, self.stack, self.workload, vary=self.vary
        )
        self.progress.layout.visibility = "visible"

        def tick(done, total):
            self.progress.value = done

        try:
            curve, fig = self._compute(on_point=tick)
        finally:
            self.progress.layout.visibility = "hidden"
        update_figure(self.figure, fig)
        self._show(curve)
        self.status.value += " &middot; fitted: " + ", ".join(
            f"{k} {_fmt_param(k, v)}" for k, v in self.fitted.items()
        )
        return self.fitted


def _fmt_param(name: str, value: float) -> str:
    if name in ("host.overhead", "device.service", "link.latency_s"):
        return f"{value * 1e3:.4g} ms"
    return f"{value:.4g}"


def compare(
    measured: Curve,
    stack: Stack,
    workload: Workload | None = None,
    *,
    vary: str | None = None,
    ios: int | None = None,
    seed: int = 1,
    engine: str = "auto",
    fit: Callable | None = None,
) -> Comparer:
    """Overlay a measured sweep (any Curve, e.g. from ``iosim.traces``) on the model, point by
    point along ``vary`` (default: whichever of iodepth / numjobs varies in the measurement),
    with a per-point error table and a "fit" button. ``fit(measured, stack, workload, vary=)``
    must return (stack, fitted values); default :func:`fit_model` (``iosim.fit``)."""
    if workload is None:
        workload = Workload()
    return Comparer(
        measured,
        stack,
        workload,
        vary=vary,
        ios=ios if ios is not None else _ios(3000, 1000),
        seed=seed,
        engine=engine,
        fit=fit,
    )


# ---------------------------------------------------------------------------------------------
# claim checker
# ---------------------------------------------------------------------------------------------

#: The claim checker's fields: (name, label, factor to SI, default).
CLAIM_FIELDS = (
    ("iops", "claimed IOPS", 1.0),
    ("block_bytes", "block size KiB", 1024.0),
    ("bandwidth_Bps", "bandwidth GB/s", 1e9),
    ("latency_s", "latency ms", 1e-3),
    ("queue_depth", "queue depth", 1.0),
)


class ClaimChecker(W.VBox):
    """The widget :func:`claim_checker` returns: one number per field (0 = unknown), the
    check as text and the ceilings as bars. ``check`` is the last ``ClaimCheck``."""

    def __init__(self, values: Mapping[str, float]):
        self.fields: dict[str, W.FloatText] = {}
        for name, label, factor in CLAIM_FIELDS:
            v = values.get(name)
            w = W.FloatText(value=(v / factor) if v else 0.0, description=label)
            w.style.description_width = "initial"
            w.add_class(f"iosim-claim-{name.replace('_', '-')}")
            self.fields[name] = w
        self.text = W.HTML()
        self.text.add_class("iosim-claim-text")
        check = self._check()
        fig = plots.claim_limits(check)
        self.figure = go.FigureWidget(data=fig.data, layout=fig.layout)
        self.figure.add_class("iosim-figure")
        super().__init__(
            children=[
                W.HBox(list(self.fields.values()), layout=W.Layout(flex_flow="row wrap")),
                self.text,
                self.figure,
            ]
        )
        self.add_class("iosim-claims")
        self._show(check)
        for w in self.fields.values():
            w.observe(lambda _c: self.update(), names="value")

    def inputs(self) -> dict[str, float]:
        """The given fields in SI units (unknown ones left out)."""
        out = {}
        for name, _label, factor in CLAIM_FIELDS:
            v = float(self.fields[name].value or 0.0)
            if v > 0:
                out[name] = v * factor
        return out

    def _check(self):
        from .claims import check_claim

        given = self.inputs()
        if "iops" not in given:
            raise ValueError("type the claimed IOPS")
        return check_claim(**given)

    def _show(self, check) -> None:
        self.check = check
        self.text.value = f"<pre>{html.escape(check.to_text())}</pre>"

    def update(self) -> None:
        try:
            check = self._check()
        except ValueError as exc:
            self.text.value = f"<span style='color:#d62728'>{html.escape(str(exc))}</span>"
            return
        update_figure(self.figure, plots.claim_limits(check))
        self._show(check)


def claim_checker(**values: float) -> ClaimChecker:
    """A form for a vendor claim: ``iops``, ``block_bytes``, ``bandwidth_Bps``, ``latency_s``,
    ``queue_depth`` (SI units, as ``iosim.claims.check_claim``); the fields show KiB, GB/s and
    ms. Every change re-checks the claim and redraws its limits in place."""
    unknown = set(values) - {f[0] for f in CLAIM_FIELDS}
    if unknown:
        raise ValueError(f"unknown field(s) {sorted(unknown)}")
    if not values.get("iops"):
        raise ValueError("give at least iops=")
    return ClaimChecker(values)


# ---------------------------------------------------------------------------------------------
# capacity planner
# ---------------------------------------------------------------------------------------------


class Planner(W.VBox):
    """The widget :func:`planner` returns: targets, a failure choice and a "plan" button over
    ``iosim.plan.plan``; ``result`` is the last ``PlanResult``, shown as its text report (every
    candidate, its verdict and why). The bar shows while the planner works."""

    def __init__(
        self, stack, workload, search, *, target_iops, latency_ms, fail, ios, seed, engine
    ):
        self.stack, self.workload, self.search = stack, workload, dict(search)
        self.ios, self.seed, self.engine = ios, seed, engine
        self.result = None
        self.target = W.FloatText(value=target_iops, description="target IOPS")
        self.latency = W.FloatText(value=latency_ms, description="p99 target ms")
        self.fail = W.Dropdown(
            options=[
                ("nothing fails", None),
                ("one path down", "path"),
                ("one member down", "member"),
            ],
            value=fail,
            description="plan for",
        )
        for w in (self.target, self.latency, self.fail):
            w.style.description_width = "initial"
        self.button = W.Button(description="plan", icon="search", button_style="primary")
        self.button.add_class("iosim-plan")
        self.text = W.HTML()
        self.progress = W.IntProgress(
            value=0, min=0, max=1, description="planning", layout=W.Layout(visibility="hidden")
        )
        self.button.on_click(lambda _b: self.run())
        super().__init__(
            children=[
                W.HBox(
                    [self.target, self.latency, self.fail, self.button],
                    layout=W.Layout(flex_flow="row wrap"),
                ),
                self.progress,
                self.text,
            ]
        )
        self.add_class("iosim-planner")

    def run(self):
        """Plan with the current targets and show the verdicts."""
        from .plan import plan

        self.progress.layout.visibility = "visible"
        self.progress.value = 0
        try:
            self.result = plan(
                self.stack,
                self.workload,
                target_iops=float(self.target.value),
                latency_target_s=float(self.latency.value) / 1e3,
                percentile=99,
                fail=self.fail.value,
                search=self.search,
                ios=self.ios,
                seed=self.seed,
                engine=self.engine,
            )
        except SpecError as exc:
            self.text.value = f"<span style='color:#d62728'>{html.escape(str(exc))}</span>"
            return None
        finally:
            self.progress.value = self.progress.max
            self.progress.layout.visibility = "hidden"
        self.text.value = f"<pre>{html.escape(self.result.to_text())}</pre>"
        return self.result


def planner(
    stack: Stack,
    workload: Workload | None = None,
    *,
    search: Mapping[str, Iterable[Any]],
    target_iops: float = 10_000,
    latency_ms: float = 1.0,
    fail: str | None = "path",
    ios: int | None = None,
    seed: int = 1,
    engine: str = "auto",
) -> Planner:
    """A capacity-planning form over ``iosim.plan.plan``: type the target IOPS and p99
    latency, choose what fails, press "plan"; every candidate of ``search`` (dotted keys to
    candidate values, cheapest first) is listed with its verdict and the reason."""
    return Planner(
        stack,
        workload if workload is not None else Workload(),
        search,
        target_iops=target_iops,
        latency_ms=latency_ms,
        fail=fail,
        ios=ios if ios is not None else _ios(4000, 1500),
        seed=seed,
        engine=engine,
    )

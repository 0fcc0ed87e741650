"""iosim.widgets: the controls map to the model, and the figure updates in place."""

import numpy as np
import pandas as pd
import pytest

import iosim
from iosim import plots, presets, widgets

IOS = 800


@pytest.fixture(scope="module")
def lun():
    return presets.load("allflash-lun-qd4")


def trace(fig, name):
    return next(t for t in fig.data if t.name == name)


def test_fast_mode_shrinks_runs(monkeypatch):
    monkeypatch.delenv("IOSIM_FAST", raising=False)
    assert not widgets.fast_mode()
    assert widgets.ios(20_000) == 20_000
    monkeypatch.setenv("IOSIM_FAST", "1")
    assert widgets.fast_mode()
    assert widgets.ios(20_000) == 2_000
    assert widgets.ios(20_000, 700) == 700
    assert widgets.ios(1000) == 500
    monkeypatch.setenv("IOSIM_FAST", "0")
    assert not widgets.fast_mode()


def test_model_maps_settings_to_overrides(lun):
    stack, wl = lun
    s, w = widgets.model(
        stack,
        wl,
        {
            "iodepth": 2,
            "hba_qd": 8,
            "paths": 4,
            "fail_path": True,
            "units": 16,
            "block_size": 65536,
        },
    )
    assert w.iodepth == 2 and w.block_size_bytes == 65536
    assert s.hba.queue_depth == 8 and s.multipath.paths == 4 and s.device.units == 16
    assert [ev.path for ev in s.multipath.failures] == [0]
    s2, _ = widgets.model(stack, wl, {"paths": 2, "fail_path": False})
    assert s2.multipath.failures == ()
    with pytest.raises(iosim.SpecError, match="two paths"):
        widgets.model(stack, wl, {"paths": 1, "fail_path": True})
    s3, _ = widgets.model(stack, wl, {"preset": "allflash-lun"})
    assert s3.device == presets.load("allflash-lun")[0].device
    assert s3.hba.queue_depth == 4  # only the device comes from the preset


def test_explore_curve_equals_sweep(lun):
    stack, wl = lun
    ticks = []
    c = widgets.explore_curve(stack, wl, 5, ios=IOS, on_point=lambda d, t: ticks.append((d, t)))
    ref = iosim.sweep(stack, wl, {"workload.numjobs": range(1, 6)}, ios=IOS, progress=False)
    np.testing.assert_array_equal(c.df["iops"], ref.df["iops"])
    np.testing.assert_array_equal(c.df["lat_mean_s"], ref.df["lat_mean_s"])
    assert ticks == [(i, 5) for i in range(1, 6)]


def test_explore_updates_the_figure_in_place(lun):
    stack, wl = lun
    ex = widgets.explore(stack, wl, threads=4, ios=IOS, show_stack=True)
    fig = ex.figure
    assert list(trace(fig, "IOPS (simulated)").x) == [1, 2, 3, 4]
    assert "title" in fig.to_plotly_json()["layout"]
    assert "threads=4" in ex.status.value
    ex.controls["threads"].value = 10
    assert ex.figure is fig  # same widget, new data
    ref = iosim.sweep(stack, wl, {"workload.numjobs": range(1, 11)}, ios=IOS, progress=False)
    np.testing.assert_allclose(trace(fig, "IOPS (simulated)").y, ref.df["iops"])
    np.testing.assert_allclose(trace(fig, "host latency (simulated)").y, ref.df["lat_mean_s"] * 1e3)
    # at 4 threads host and device latency coincide (one legend entry); at 10 they part, and
    # the host's legend entry comes back
    assert trace(fig, "host latency (simulated)").showlegend is not False
    # E2: beyond the HBA queue depth the host latency climbs, the device's stays flat
    dev = np.asarray(trace(fig, "device latency (simulated)").y)
    assert np.allclose(dev, 0.46, rtol=0.02)
    assert "threads 1..10" in fig.layout.title.text
    assert "threads=10" in ex.status.value and "IOPS 8,696" in ex.status.value
    assert ex.diagram.data[0].customdata[2] == 4  # 4 HBA slots drawn
    ex.controls["hba_qd"].value = 8
    np.testing.assert_allclose(trace(fig, "IOPS (simulated)").y[-1], 8 / 0.46e-3, rtol=0.01)
    assert ex.progress.value == ex.progress.max == 10
    assert ex.progress.layout.visibility == "hidden"


def test_explore_paths_and_failure(lun):
    stack, wl = lun
    ex = widgets.explore(
        stack, wl, threads=16, max_threads=16, ios=IOS, controls=("threads", "paths", "fail_path")
    )
    assert ex.controls["fail_path"].disabled
    ex.controls["paths"].value = 4
    assert not ex.controls["fail_path"].disabled
    top = trace(ex.figure, "IOPS (simulated)").y[-1]
    assert top == pytest.approx(16 / (0.46e-3 + 0.032e-3), rel=0.02)
    ex.controls["fail_path"].value = True
    assert trace(ex.figure, "IOPS (simulated)").y[-1] == pytest.approx(12 / 0.46e-3, rel=0.02)
    assert "effective queue depth 12" in ex.status.value
    ex.controls["paths"].value = 1  # unticks the failure instead of failing every path
    assert ex.controls["fail_path"].value is False and ex.error is None


def test_explore_shows_model_errors_instead_of_raising(lun):
    stack, wl = lun
    ex = widgets.explore(stack, wl, threads=2, ios=IOS, controls=("threads", "units"))
    ex.stack = stack.with_(**{"multipath.paths": 1})
    ex.controls["units"].value = 2
    assert ex.error is None
    ex.settings = lambda: {"fail_path": True, "paths": 1}
    ex.update()
    assert ex.error and "two paths" in ex.status.value


def test_explore_defaults_to_the_default_preset():
    ex = widgets.explore(controls=("threads", "preset"), threads=2, ios=300)
    assert ex.stack.name == presets.DEFAULT
    assert "allflash-lun" in [v for _, v in ex.controls["preset"].options]
    with pytest.raises(ValueError, match="unknown control"):
        widgets.explore(controls=("knob",), ios=300)


def test_compare_and_fit(lun):
    stack, wl = lun
    # "measured": the same LUN with a slower device (0.6 ms) and 8 usable units
    truth = stack.with_(**{"device.service": "det:0.6ms", "device.units": 8, "hba.queue_depth": 32})
    measured = iosim.sweep(
        truth, wl, {"workload.iodepth": [1, 2, 4, 8, 16]}, ios=IOS, progress=False
    )
    cmp = widgets.compare(measured, stack.with_(**{"hba.queue_depth": 32}), wl, ios=IOS)
    assert cmp.vary == "workload.iodepth"
    names = [t.name for t in cmp.figure.data]
    assert "IOPS (measured)" in names and "IOPS (simulated)" in names
    before = cmp.error_table.attrs["max_abs_error_pct"]["IOPS"]
    fitted = cmp.fit()
    assert fitted["device.service"] == pytest.approx(0.6e-3, rel=0.05)
    assert fitted["device.units"] == 8
    assert "device.units 8" in cmp.status.value
    after = cmp.error_table.attrs["max_abs_error_pct"]["IOPS"]
    assert after < 5 < before
    assert "fitted" in cmp.figure.layout.title.text


def test_overhead_control_lowers_the_achieved_queue_depth(lun):
    stack, wl = lun
    ex = widgets.explore(stack, wl, threads=1, ios=IOS, controls=("threads", "overhead"))
    assert ex.controls["overhead"].value == pytest.approx(32.0)
    ex.controls["overhead"].value = 0.0
    assert ex.curve[0].outstanding == pytest.approx(1.0, abs=0.01)
    ex.controls["overhead"].value = 460.0  # as long as the I/O itself: half the time idle
    assert ex.curve[0].outstanding == pytest.approx(0.5, abs=0.01)
    assert "achieved outstanding I/Os (IOPS x latency) 0.50 of 1" in ex.status.value


def test_claim_checker():
    cc = widgets.claim_checker(iops=1e6, bandwidth_Bps=4e9, latency_s=0.128e-3)
    assert cc.check.min_queue_depth == pytest.approx(128)
    assert cc.check.max_block_bytes == pytest.approx(4000)
    assert cc.fields["bandwidth_Bps"].value == pytest.approx(4.0)  # shown in GB/s
    cc.fields["block_bytes"].value = 16  # KiB
    assert not cc.check.feasible and cc.check.binding == "bandwidth"
    bars = cc.figure.data[0]
    assert "bandwidth / block size" in list(bars.y)
    assert "INFEASIBLE" in cc.text.value
    cc.fields["iops"].value = 0
    assert "claimed IOPS" in cc.text.value  # asks for it instead of raising
    with pytest.raises(ValueError, match="unknown"):
        widgets.claim_checker(iops=1, speed=2)


def test_claim_checker_axis_follows_the_spread_of_the_limits():
    cc = widgets.claim_checker(
        iops=1e6, bandwidth_Bps=4e9, block_bytes=4096, latency_s=0.128e-3, queue_depth=1
    )
    ax = cc.figure.layout.xaxis
    assert ax.type == "log" and ax.tickvals  # 7,813 against 976,563 IOPS: log, labelled
    cc.fields["queue_depth"].value = 128  # 1,000,000 against 976,563: linear from zero
    ax = cc.figure.layout.xaxis
    assert ax.type == "linear" and ax.tickmode == "auto" and ax.range[0] == 0


def test_thread_counts():
    assert widgets.thread_counts(5) == [1, 2, 3, 4, 5]
    assert widgets.thread_counts(64, "log") == [1, 2, 4, 8, 16, 32, 64]
    assert widgets.thread_counts(100, "log") == [1, 2, 4, 8, 16, 32, 64, 100]
    assert widgets.thread_counts(1, "log") == [1]
    with pytest.raises(ValueError, match="spacing"):
        widgets.thread_counts(4, "cubic")


def test_device_controls_map_to_device_fields(lun):
    stack, wl = lun
    s, w = widgets.model(stack, wl, {"span": 1024**3, "overrides": {"device.units": 3}})
    assert w.span_bytes == 1024**3 and s.device.units == 3
    hdd, hwl = presets.load("hdd-7200")
    s2, _ = widgets.model(hdd, hwl, {"scheduler": "sptf"})
    assert s2.device.scheduler == "sptf"
    ex = widgets.explore(
        hdd, hwl, threads=4, ios=200, spacing="log", controls=("threads", "scheduler", "span")
    )
    assert list(ex.curve.df["numjobs"]) == [1, 2, 4]
    assert ex.controls["span"].value == hwl.span_bytes
    ex.controls["span"].value = 1024**3
    assert ex.curve[0].iops > 1.3 * 76  # short-stroked: shorter seeks


def test_planner():
    stack, wl = presets.load("allflash-lun-4path")
    pl = widgets.planner(
        stack,
        wl,
        search={"multipath.paths": [2, 3, 4], "hba.queue_depth": [8, 16]},
        target_iops=30_000,
        latency_ms=1.0,
        fail="path",
        ios=1000,
    )
    res = pl.run()
    assert res is pl.result and res.best is not None
    assert "Smallest:" in pl.text.value
    assert pl.progress.layout.visibility == "hidden"
    pl.target.value = -1
    assert pl.run() is None and "target_iops" in pl.text.value


def test_default_controls_follow_the_device(lun):
    stack, wl = lun
    generic = widgets.applicable_controls(stack)
    assert "units" in generic and "channels" not in generic and "cache" not in generic
    raid, _ = presets.load("raid0-12x-hdd-wbc")
    assert {"level", "members", "cache"} <= set(widgets.applicable_controls(raid))
    assert "scheduler" in widgets.applicable_controls(presets.load("hdd-7200")[0])
    with pytest.raises(ValueError, match="do not apply"):
        widgets.explore(stack, wl, controls=("threads", "cache"), ios=200)


def test_theory_line_only_where_it_bounds_the_model():
    """hdd-7200 in arrival order: the bound line is the FIFO whole-disk mean service (76 IOPS),
    which the disk follows. With SPTF the capacity is measured with the queue full (about twice
    that), and the line still bounds the model. Short-stroked, the line follows the span's
    shorter seeks; the whole-disk line would be beaten there, and a line the model beats is
    left out (with a note saying why)."""
    hdd, wl = presets.load("hdd-7200")
    fifo = hdd.with_(**{"device.scheduler": "fifo"})
    ex = widgets.explore(fifo, wl, controls=("threads", "scheduler"), threads=16,
                         max_threads=32, spacing="log", ios=IOS)
    bound = np.array(trace(ex.figure, "IOPS (theory)").y)  # (the widget redraws in place)
    np.testing.assert_allclose(bound, 1 / hdd.device.mean_service_s(4096), rtol=1e-9)
    assert widgets.bound_holds(pd.DataFrame({"iops": bound}), ex.curve)
    assert not ex.theory_dropped and "no theory line" not in ex.status.value
    ex.controls["scheduler"].value = "sptf"
    sptf = np.array(trace(ex.figure, "IOPS (theory)").y)
    assert not ex.theory_dropped and "no theory line" not in ex.status.value
    assert widgets.bound_holds(pd.DataFrame({"iops": sptf}), ex.curve)
    assert ex.curve.df["iops"].iloc[-1] > 1.2 * bound[-1] and sptf[-1] > 1.5 * bound[-1]
    ex.controls["scheduler"].value = "fifo"
    assert trace(ex.figure, "IOPS (theory)").y[-1] == pytest.approx(bound[-1])
    short = widgets.explore(fifo, wl.with_(span_bytes=2**30), controls=("threads",),
                            threads=16, max_threads=32, spacing="log", ios=IOS)
    line = np.array(trace(short.figure, "IOPS (theory)").y)
    assert not short.theory_dropped and widgets.bound_holds(pd.DataFrame({"iops": line}),
                                                            short.curve)
    assert line[-1] == pytest.approx(1 / hdd.device.random_service_s(4096, 2**30), rel=1e-9)
    assert short.curve.df["iops"].iloc[-1] > 1.2 * bound[-1]  # the short stroke pays
    # the whole-disk line under the short-stroked model is beaten: such a line is left out
    ns = [int(v) for v in short.curve.df["workload.numjobs"]]
    assert not widgets.bound_holds(plots.bounds(fifo, wl, ns), short.curve)


def test_thread_axis_ticks_whole_numbers(lun):
    """At 2 threads plotly alone would tick 1, 1.2, 1.4 ... jobs: the explorer steps by one;
    at 30 it leaves plotly's own (whole) step, also after an in-place update."""
    stack, wl = lun
    ex = widgets.explore(stack, wl, controls=("threads",), threads=2, ios=IOS)
    axis = ex.figure.layout.xaxis2
    assert (axis.tickmode, axis.tick0, axis.dtick) == ("linear", 0, 1)
    ex.controls["threads"].value = 30
    assert ex.figure.layout.xaxis2.tickmode == "auto"

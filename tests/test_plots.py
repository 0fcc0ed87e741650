"""iosim.plots: pure functions from Results/Curve to plotly figures."""

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

import iosim
from iosim import plots, presets
from iosim.claims import check_claim

IOS = 1500


@pytest.fixture(scope="module")
def lun():
    return presets.load("allflash-lun-qd4")


@pytest.fixture(scope="module")
def curve(lun):
    stack, wl = lun
    return iosim.sweep(stack, wl, {"workload.numjobs": range(1, 9)}, ios=IOS, progress=False)


def trace(fig, name):
    found = [t for t in fig.data if t.name == name]
    assert found, f"no trace {name!r} in {[t.name for t in fig.data]}"
    return found[0]


def test_colours_are_distinct_per_source():
    sources = [plots.COLORS[k] for k in ("simulated", "theory", "measured", "device")]
    assert len(set(sources)) == 4


def test_x_values_aliases(curve):
    xs, label = plots.x_values(curve)
    assert list(xs) == list(range(1, 9))
    assert label == "Jobs (numjobs)"  # the human title, never the raw key
    xs2, label2 = plots.x_values(curve, "threads")
    assert list(xs2) == list(range(1, 9)) and label2.startswith("Outstanding I/Os")
    with pytest.raises(ValueError, match="not a column"):
        plots.x_values(curve, "nope")


def test_iops_latency_units_and_split(curve, lun):
    stack, wl = lun
    th = plots.bounds(stack, wl, range(1, 9))
    fig = plots.iops_latency(curve, theory=th, title="E2")
    assert isinstance(fig, go.Figure)
    iops = trace(fig, "IOPS (simulated)")
    host = trace(fig, "host latency (simulated)")
    dev = trace(fig, "device latency (simulated)")
    np.testing.assert_allclose(iops.y, curve.df["iops"])
    np.testing.assert_allclose(host.y, curve.df["lat_mean_s"] * 1e3)  # ms on the axis
    np.testing.assert_allclose(dev.y, curve.df["device_lat_mean_s"] * 1e3)
    assert host.line.color == plots.COLORS["simulated"]
    assert dev.line.color == plots.COLORS["device"] and dev.line.dash == "dash"
    th_lat = trace(fig, "host latency (theory)")
    assert th_lat.line.color == plots.COLORS["theory"]
    # the simulated deterministic LUN sits on its bounds
    np.testing.assert_allclose(iops.y, th["iops"], rtol=0.01)
    np.testing.assert_allclose(host.y, th["lat_s"] * 1e3, rtol=0.01)
    # a CI band is a closed polygon around the line
    band = trace(fig, "IOPS 95% CI")
    assert len(band.x) == 2 * len(iops.x) and band.fill == "toself"
    assert fig.layout.title.text == "E2"
    assert fig.layout.yaxis2.title.text == "Mean latency (ms)"


def test_iops_latency_trace_list_is_stable(curve, lun):
    stack, wl = lun
    a = plots.iops_latency(curve, theory=plots.bounds(stack, wl, range(1, 9)))
    short = iosim.Curve(curve.points[:3], x=curve.x)
    b = plots.iops_latency(short, theory=plots.bounds(stack, wl, range(1, 4)))
    assert [t.name for t in a.data] == [t.name for t in b.data]


def test_iops_latency_bandwidth_and_measured(curve):
    measured = iosim.Curve(
        [
            iosim.Results(iops=1000.0 * n, lat_mean_s=0.5e-3, params={"numjobs": n, "iodepth": 1})
            for n in (1, 2, 4)
        ]
    )
    fig = plots.iops_latency(curve, bandwidth=True, measured=measured)
    bw = trace(fig, "MiB/s (simulated)")
    np.testing.assert_allclose(bw.y, curve.df["bandwidth_Bps"] / 2**20)
    m = trace(fig, "host latency (measured)")
    assert list(m.x) == [1, 2, 4] and list(m.y) == pytest.approx([0.5] * 3)
    assert m.marker.color == plots.COLORS["measured"] and m.mode == "markers"
    # measured without bandwidth: no MiB/s trace for it
    assert not [t for t in fig.data if t.name == "MiB/s (measured)"]


def test_bounds_match_the_operational_laws(lun):
    stack, wl = lun
    th = plots.bounds(stack, wl, [1, 4, 10])
    s, z = 0.46e-3, 0.032e-3
    assert th["iops"].tolist() == pytest.approx([1 / (s + z), 4 / (s + z), 4 / s])
    assert th["lat_s"].tolist() == pytest.approx([s, s, 10 * s / 4 - z])
    assert th["device_lat_s"].tolist() == pytest.approx([s, s, s])
    # mva tables are accepted as theory too
    mva = iosim.theory.mva_multiunit(8, 0.46e-3, 4)
    fig = plots.iops_latency(
        iosim.Curve(
            [iosim.Results(iops=1.0, lat_mean_s=1e-3, params={"numjobs": 1, "iodepth": 1})]
        ),
        theory=mva,
    )
    assert list(trace(fig, "IOPS (theory)").x) == list(range(1, 9))


def test_latency_throughput(curve):
    fig = plots.latency_throughput(curve, measured=curve)
    sim = trace(fig, "simulated")
    np.testing.assert_allclose(sim.x, curve.df["iops"])
    assert list(sim.text) == [str(n) for n in range(1, 9)]
    assert fig.layout.xaxis.title.text == "IOPS"


def test_percentiles_and_cdf(curve):
    first, last = curve[0], curve[-1]
    fig = plots.percentiles(first, last, labels=["1 thread", "8 threads"])
    assert [t.name for t in fig.data] == ["1 thread", "8 threads"]
    assert list(fig.data[0].x) == ["p50", "p90", "p95", "p99", "p99.9", "p99.99"]
    assert fig.data[1].y[3] == pytest.approx(last.lat_p99_s * 1e3)
    assert fig.layout.yaxis.type == "log"
    # a Curve gives one line per point
    assert len(plots.percentiles(curve).data) == len(curve)
    cdf = plots.latency_cdf(last)
    assert cdf.data[0].x[0] == pytest.approx(last.lat_p50_s * 1e3)
    assert cdf.data[0].y[-1] == pytest.approx(4.0)  # p99.99 is four nines
    lin = plots.latency_cdf(last, tail=False)
    assert lin.data[0].y[0] == pytest.approx(50.0)


def test_measured_runs_are_drawn_differently(curve):
    measured = iosim.Results(lat_p50_s=1e-3, lat_p90_s=2e-3, lat_p95_s=3e-3, lat_p99_s=5e-3)
    fig = plots.percentiles(measured)
    assert fig.data[0].line.dash == "dot"
    assert fig.data[0].line.color == plots.COLORS["measured"]
    cdf = plots.latency_cdf(measured)
    assert len(cdf.data[0].x) == 4  # only the percentiles the tool reported


def test_qd_histogram(curve):
    r = curve[0]
    fig = plots.qd_histogram(r)
    bar = fig.data[0]
    assert list(bar.x) == sorted(int(k) for k in r.qd_dist)
    assert sum(bar.y) == pytest.approx(100.0)
    assert "mean 0.9" in bar.name
    assert fig.layout.shapes[0].x0 == pytest.approx(r.qd_mean)


def test_utilisation(curve):
    fig = plots.utilisation(curve)
    util = trace(fig, "%util (simulated)")
    units = trace(fig, "units busy % (simulated)")
    np.testing.assert_allclose(util.y, curve.df["util"] * 100)
    np.testing.assert_allclose(units.y, curve.df["unit_util"] * 100)
    sat = trace(fig, "R(N)/R(1) (simulated)")
    assert sat.y[0] == pytest.approx(1.0)
    # E11's lesson on a 64-unit device: %util near 100 % at 4 threads, units mostly idle
    assert util.y[3] > 90 and units.y[3] < 10


def test_stack_diagram(curve, lun):
    stack, _ = lun
    fig = plots.stack_diagram(stack, curve[-1])
    cap, occ = fig.data
    names = [y.split("<br>")[0].removeprefix("<b>").removesuffix("</b>") for y in cap.y]
    assert names == ["jobs in host overhead", "host queue", "HBA slots", "device units"]
    # capacities and mean occupancies in I/Os; the fill is their ratio on a linear scale
    assert list(cap.customdata)[2:] == [4, 64]
    r = curve[-1]
    assert occ.customdata[2] == pytest.approx(r.device_qd_mean)
    assert occ.customdata[1] == pytest.approx(r.qd_mean - r.device_qd_mean)
    assert occ.customdata[0] == pytest.approx(8 - r.qd_mean)
    assert occ.x[3] == pytest.approx(100 * r.unit_util * 64 / 64)  # 4 of 64 units: 6 %
    assert occ.x[2] == pytest.approx(100 * r.device_qd_mean / 4)
    assert fig.layout.xaxis.type != "log" and list(cap.x) == [100.0] * 4
    assert "4.00 of 4 in use (1 path × QD 4)" in cap.y[2]
    assert "jobs between I/Os" in cap.y[0]  # the count says what it counts
    empty = plots.stack_diagram(stack)
    assert list(empty.data[1].x)[1:] == [0.0, 0.0, 0.0]


def test_claim_limits_highlights_the_binding_limit():
    check = check_claim(
        iops=1e6, bandwidth_Bps=4e9, latency_s=0.128e-3, queue_depth=64, block_bytes=16384
    )
    fig = plots.claim_limits(check)
    bar = fig.data[0]
    assert list(bar.y) == [plots.CEILING_LABELS[c.name] for c in check.ceilings]
    assert "Little's law: QD / latency" in bar.y
    i = [c.name for c in check.ceilings].index(check.binding)
    assert bar.marker.color[i] == plots.COLORS["measured"]
    assert bar.textangle == 0 and "(tightest)" in bar.text[i]
    assert fig.layout.shapes[0].x0 == pytest.approx(1e6)
    assert "claim: 1,000,000 IOPS (infeasible)" in fig.layout.annotations[0].text
    ok = check_claim(iops=1e5, bandwidth_Bps=4e9, block_bytes=4096)
    assert plots.claim_limits(ok).data[0].marker.color[0] == plots.COLORS["unit_util"]


def test_error_table():
    t = plots.error_table([1, 2], "threads", IOPS=([100, 200], [101, 190]))
    assert list(t.columns) == ["IOPS published", "IOPS simulated", "IOPS error %"]
    assert t["IOPS error %"].tolist() == [1.0, -5.0]
    assert t.index.name == "threads"
    assert t.attrs["max_abs_error_pct"]["IOPS"] == pytest.approx(5.0)
    with pytest.raises(ValueError, match="2 values"):
        plots.error_table([1, 2], IOPS=([1], [1]))


def test_bad_input_is_named():
    with pytest.raises(TypeError, match="Curve"):
        plots.iops_latency(42)
    with pytest.raises(ValueError, match="x"):
        plots.iops_latency(iosim.Curve([iosim.Results(iops=1.0)]), theory=pd.DataFrame({"a": [1]}))
    assert math.isfinite(plots.MIB)


def test_compare_curves(curve, lun):
    stack, wl = lun
    measured = iosim.Curve(
        [
            iosim.Results(iops=2000.0 * n, lat_mean_s=0.5e-3, params={"numjobs": n, "iodepth": 1})
            for n in (1, 2)
        ]
    )
    fig = plots.compare_curves(
        {"QD 4": curve, "lab": measured},
        theory={"QD 4": plots.bounds(stack, wl, range(1, 9))},
        percentile="lat_p99_s",
    )
    a = trace(fig, "IOPS: QD 4")
    b = trace(fig, "IOPS: lab")
    assert a.line.color != b.marker.color and b.mode == "markers"
    np.testing.assert_allclose(trace(fig, "latency: QD 4").y, curve.df["lat_p99_s"] * 1e3)
    assert trace(fig, "theory: QD 4").line.dash == "dash"
    assert fig.layout.yaxis2.title.text == "p99 latency (ms)"


def test_service_breakdown():
    fig = plots.service_breakdown(
        {
            "7200 rpm": {"seek": 9e-3, "rotation": 4.17e-3},
            "15k rpm": {"seek": 4e-3, "rotation": 2e-3},
        }
    )
    seek = trace(fig, "seek")
    assert list(seek.y) == ["7200 rpm", "15k rpm"] and list(seek.x) == pytest.approx([9, 4])
    assert "76 IOPS" in trace(fig, "total").text[0]
    assert "167 IOPS" in trace(fig, "total").text[1]


def test_error_table_labels():
    t = plots.error_table([64], "QD", reference="measured", model="predicted", IOPS=([2], [1]))
    assert list(t.columns) == ["IOPS measured", "IOPS predicted", "IOPS error %"]
    assert t.attrs["max_abs_error_pct"]["IOPS"] == pytest.approx(50.0)

"""The plot gallery (``python -m iosim.gallery OUTDIR``): every plot kind, drawn the way the
notebooks draw it, is inspected here for what people would trip over: a log axis that labels
its minor ticks, an axis titled with a raw key, a table cell in raw SI. The browser test
(tests/test_browser.py) renders the same gallery in Chromium and screenshots it."""

from __future__ import annotations

import re

import pytest

from iosim import gallery, labels, plots, report

RAW_NUMBER = re.compile(r"\d[eE][+-]?\d|\d\.\d{5,}")


@pytest.fixture(scope="module")
def figures():
    return gallery.figures()


def _axes(fig):
    lay = fig.layout
    return {k: lay[k] for k in lay if re.fullmatch(r"[xy]axis\d*", k)}


def _titled_axes(fig):
    return {k: ax for k, ax in _axes(fig).items() if ax.title and ax.title.text}


def test_every_plot_kind_is_in_the_gallery(figures):
    drawn = {name.split("_log")[0].split("_measured")[0] for name in figures}
    kinds = {
        "iops_latency", "latency_throughput", "compare_curves", "utilisation", "percentiles",
        "latency_cdf", "qd_histogram", "stack_diagram", "service_breakdown", "claim_limits",
    }  # fmt: skip
    missing = {k for k in kinds if not any(d.startswith(k) for d in drawn)}
    assert not missing
    # and every figure function of iosim.plots is one of them
    public = {n for n in plots.__all__ if callable(getattr(plots, n))}
    helpers = {"bounds", "error_table", "x_values", "log_axis", "tick_text"}
    assert public - helpers <= kinds


def test_no_log_axis_labels_its_minor_ticks(figures):
    """A log axis needs explicit ticks (tickvals or dtick): plotly alone writes "2 3 4 5 6 7
    8 9" between the decades."""
    bad = []
    for name, fig in figures.items():
        for key, ax in _axes(fig).items():
            if ax.type == "log" and ax.tickvals is None and ax.dtick is None:
                bad.append(f"{name}.{key}")
            if ax.type == "log" and ax.tickvals is not None:
                assert all(not RAW_NUMBER.search(t) for t in ax.ticktext), (name, ax.ticktext)
    assert not bad, bad
    logs = [n for n, f in figures.items() if any(a.type == "log" for a in _axes(f).values())]
    assert len(logs) >= 5  # the gallery does exercise log axes


def test_queue_depth_axes_tick_at_powers_of_two(figures):
    ax = figures["iops_latency_log_qd"].layout.xaxis
    assert ax.type == "log" and list(ax.tickvals) == [1, 2, 4, 8, 16, 32]
    assert list(ax.ticktext) == ["1", "2", "4", "8", "16", "32"]


def test_no_axis_is_titled_with_a_raw_key(figures):
    bad = []
    for name, fig in figures.items():
        for key, ax in _titled_axes(fig).items():
            if labels.is_raw_key(ax.title.text):
                bad.append(f"{name}.{key}: {ax.title.text!r}")
    assert not bad, bad
    for key in ("workload.numjobs", "lat_p95_s", "block_size_bytes", "hba.queue_depth"):
        assert not labels.is_raw_key(labels.title(key)) and labels.is_raw_key(key)


def test_dual_axis_ticks_are_round_and_aligned(figures):
    for name in ("utilisation", "utilisation_measured"):
        lay = figures[name].layout
        left, right = lay.yaxis, lay.yaxis2
        assert left.dtick == 20 and left.ticksuffix == " %"
        # the same number of steps over each range: the grid lines coincide
        assert left.range[1] / left.dtick == pytest.approx(right.range[1] / right.dtick)
        mantissa = right.dtick / 10 ** int(f"{right.dtick:e}".split("e")[1])
        assert mantissa in (1, 2, 2.5, 5)


def test_legends_do_not_sit_beside_the_plot(figures):
    """A legend to the right takes the width of a narrow notebook column."""
    for name, fig in figures.items():
        lay = fig.layout
        if lay.showlegend is False:
            continue
        assert lay.legend.orientation == "h", name
        assert lay.width is None, name  # the width follows the container


def test_tables_have_no_raw_si(tmp_path):
    for name, df in gallery.tables().items():
        text = gallery._table_html(df)
        assert not RAW_NUMBER.search(re.sub(r"<[^>]+>", " ", text)), name
    paths = gallery.reports(tmp_path)
    for path in paths.values():
        text = path.read_text()
        cells = re.findall(r"<td>([^<]*)</td>", text)
        assert cells
        raw = [c for c in cells if RAW_NUMBER.search(c)]
        assert not raw, (path.name, raw[:5])
    sweep = paths["report-sweep"].read_text()
    assert "Stack: <b>allflash-lun-qd4</b>" in sweep and "Workload: 8 KiB random reads" in sweep
    assert 'class="table-wrap"' in sweep  # wide tables scroll instead of being cut off
    assert "7.47653e-06" not in paths["report-fit"].read_text()


def test_report_axes_are_human(tmp_path):
    curve = gallery._sweep("allflash-lun-qd4", {"workload.numjobs": [1, 2, 4]}, 300)[2]
    for _, fig in report.sweep_figures(curve):
        for key, ax in _titled_axes(fig).items():
            assert not labels.is_raw_key(ax.title.text), (key, ax.title.text)
    for _, fig in report.fit_figures(gallery._FIT):
        assert not any(labels.is_raw_key(a.title.text) for a in _titled_axes(fig).values())
        assert not labels.is_raw_key(fig.layout.title.text)


def test_tick_labels_are_short_and_consistent():
    from iosim.plotstyle import tick_text

    assert [tick_text(v) for v in (0.5, 8, 1024, 5000, 250_000, 1e6, 2e6)] == [
        "0.5", "8", "1,024", "5,000", "250k", "1M", "2M"
    ]  # fmt: skip
    assert tick_text(5000, k_from=1e3) == "5k"


def test_claim_line_is_labelled_on_a_log_axis(figures):
    import math

    fig = figures["claim_limits_log"]
    assert fig.layout.xaxis.type == "log"
    assert fig.layout.xaxis.ticktext[0] == "5k"  # one style on the axis
    (ann,) = [a for a in fig.layout.annotations if a.text.startswith("claim:")]
    assert ann.x == math.log10(1e6)  # annotations sit at log10 of the value on a log axis

"""Real browser: JupyterLab in headless Chromium runs notebooks 00 and 02, a slider is moved,
and the plotted data must change to exactly what the model gives for the new setting.

Needs Debian's Chromium (``apt-get install -y chromium``) and the playwright Python package;
skipped with the reason otherwise. Screenshots go to test-artifacts/browser/.
Run: ``pytest -m browser``.
"""

from __future__ import annotations

import numpy as np
import pytest
from browser import lab

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        lab.missing_requirement() is not None, reason=str(lab.missing_requirement())
    ),
]

NOTEBOOKS = ["00_start_here.ipynb", "02_hba_queue_depth_wall.ipynb"]
EXPLORER = ".iosim-explore"
IOPS = "IOPS (simulated)"
HOST = "host latency (simulated)"
DEVICE = "device latency (simulated)"
LOG_TICKS_JS = """() => {
  const out = [];
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    const lay = gd._fullLayout;
    for (const k of Object.keys(lay)) {
      if (/^[xy]axis\\d*$/.test(k) && lay[k].type === 'log' && lay[k]._vals) {
        out.push([gd.id + '.' + k, lay[k]._vals.filter(v => !v.minor).map(v => v.text)]);
      }
    }
  }
  return out;
}"""
DIAGRAM_JS = """() => {
  const gd = document.querySelector('.iosim-explore .js-plotly-plot.iosim-diagram');
  return gd && gd.data && Array.from(gd.data[1].customdata);
}"""


@pytest.fixture(scope="module")
def fast_env(monkeypatch_module):
    monkeypatch_module.setenv("IOSIM_FAST", "1")


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


@pytest.fixture(scope="module")
def server(tmp_path_factory, fast_env):
    with lab.lab_server(
        tmp_path_factory.mktemp("lab"), NOTEBOOKS, env_extra={"IOSIM_FAST": "1"}
    ) as srv:
        yield srv


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=lab.CHROMIUM, args=lab.CHROMIUM_FLAGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 2000})
    context.route(lab.NOT_LOCAL, lambda route: route.abort())  # offline and deterministic
    pg = context.new_page()
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    try:
        yield pg
    finally:
        context.close()


@pytest.fixture(scope="module")
def shots():
    lab.ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return lab.ARTIFACTS


def model_curve(threads: int, settings: dict | None = None):
    """What the explorer must plot: the same model, run in this process."""
    from iosim import presets, widgets

    stack, wl = presets.load(presets.DEFAULT)
    s, w = widgets.model(stack, wl, settings or {})
    return widgets.explore_curve(s, w, threads, ios=widgets.ios(3000, 1000))


def assert_plotted(trace: dict, curve, threads: int) -> None:
    assert trace["x"] == list(range(1, threads + 1))
    assert trace["y"] == pytest.approx(curve.df["iops"].tolist(), rel=1e-9)


def test_00_threads_slider_moves_iops_and_latency(page, server, shots):
    lab.open_and_run_all(page, server, NOTEBOOKS[0])
    before = lab.wait_trace(page, EXPLORER, IOPS, 2)
    assert_plotted(before, model_curve(2), 2)
    explorer = page.locator(EXPLORER).first
    explorer.scroll_into_view_if_needed()
    explorer.screenshot(path=shots / "00_start_here_before.png")

    # keyboard: 2 -> 5 threads
    lab.press_slider(page, EXPLORER, "threads", "ArrowRight", 3)
    after = lab.wait_trace(page, EXPLORER, IOPS, 5, "threads 1..5")
    expected = model_curve(5)
    assert_plotted(after, expected, 5)
    host = page.evaluate(lab.TRACE_JS, [EXPLORER, HOST])
    assert host["y"] == pytest.approx((expected.df["lat_mean_s"] * 1e3).tolist(), rel=1e-9)
    assert after["path"] != before["path"]  # the SVG line was really redrawn

    # typed into the readout: 12 threads, past the HBA queue depth of 4
    lab.type_slider(page, EXPLORER, "threads", 12)
    after12 = lab.wait_trace(page, EXPLORER, IOPS, 12, "threads 1..12")
    expected12 = model_curve(12)
    assert_plotted(after12, expected12, 12)
    assert after12["y"][-1] == pytest.approx(4 / 0.46e-3, rel=0.01)  # the wall: 4 / S
    status = page.locator(f"{EXPLORER} .iosim-status")
    status.filter(has_text="threads=12").wait_for(timeout=lab.UI_TIMEOUT_MS)
    assert f"IOPS {expected12[-1].iops:,.0f}" in status.inner_text()
    # the stack diagram follows: 4 HBA slots full
    diagram = page.evaluate(DIAGRAM_JS)
    assert diagram is not None and diagram[2] == pytest.approx(expected12[-1].device_qd_mean)
    explorer.screenshot(path=shots / "00_start_here_after.png")

    # the static figures rendered too (plotly mime renderer)
    assert page.locator(".jp-OutputArea .js-plotly-plot:not(.iosim-explore *)").count() >= 2
    page.screenshot(path=shots / "00_start_here_page.png")
    assert not page.errors, page.errors


def test_02_hba_queue_depth_slider_moves_the_wall(page, server, shots):
    lab.open_and_run_all(page, server, NOTEBOOKS[1])
    before = lab.wait_trace(page, EXPLORER, HOST, 10, "HBA QD 4")
    qd4 = model_curve(10, {"hba_qd": 4})
    assert before["y"] == pytest.approx((qd4.df["lat_mean_s"] * 1e3).tolist(), rel=1e-9)
    explorer = page.locator(EXPLORER).first
    explorer.scroll_into_view_if_needed()
    explorer.screenshot(path=shots / "02_hba_qd_before.png")

    # HBA queue depth 4 -> 8 with the keyboard
    lab.press_slider(page, EXPLORER, "hba-qd", "ArrowRight", 4)
    after = lab.wait_trace(page, EXPLORER, HOST, 10, "HBA QD 8")
    qd8 = model_curve(10, {"hba_qd": 8})
    assert after["y"] == pytest.approx((qd8.df["lat_mean_s"] * 1e3).tolist(), rel=1e-9)
    iops = page.evaluate(lab.TRACE_JS, [EXPLORER, IOPS])
    assert iops["y"] == pytest.approx(qd8.df["iops"].tolist(), rel=1e-9)
    # the wall moved: IOPS at 10 threads up from 4 / S towards 8 / S, device latency still flat
    assert iops["y"][-1] > 1.7 * qd4.df["iops"].iloc[-1]
    device = page.evaluate(lab.TRACE_JS, [EXPLORER, DEVICE])
    assert np.allclose(device["y"], 0.46, rtol=0.02)
    assert after["path"] != before["path"]
    explorer.screenshot(path=shots / "02_hba_qd_after.png")
    assert not page.errors, page.errors


def test_gallery_renders_every_figure(browser, shots, tmp_path_factory):
    """The plot gallery in Chromium: every figure drawn (an SVG with its data), no script
    error, the log axes labelled at their major ticks only; screenshots for people to look at
    go to test-artifacts/browser/gallery/."""
    from iosim import gallery

    out = tmp_path_factory.mktemp("gallery")
    pages = [p for p in gallery.write(out, png=False) if p.suffix == ".html"]
    dest = shots / "gallery"
    dest.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": 1000, "height": 700})
    context.route(lab.NOT_LOCAL, lambda route: route.abort())
    pg = context.new_page()
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    try:
        pg.goto((out / "index.html").as_uri())
        pg.wait_for_load_state("load")
        skip = ("error_table", "report", "index")
        n_figs = len([p for p in pages if not p.stem.startswith(skip)])
        assert pg.locator(".js-plotly-plot").count() == n_figs
        # every figure has drawn its traces
        drawn = pg.evaluate(
            "() => Array.from(document.querySelectorAll('.js-plotly-plot'))"
            ".map(gd => [gd.id, gd.querySelectorAll('.trace, .bars .point').length])"
        )
        assert drawn and all(n > 0 for _, n in drawn), drawn
        # the tick labels plotly drew on each log axis: at most a dozen, all non-empty (no
        # unlabelled gaps) and never a lone minor digit run "2 3 4 5 6 7 8 9"
        log_ticks = pg.evaluate(LOG_TICKS_JS)
        assert len(log_ticks) >= 5, log_ticks
        for name, texts in log_ticks:
            assert 2 <= len(texts) <= 12 and all(texts), (name, texts)
            assert not {"3", "5", "7", "9"} <= set(texts), (name, texts)
        pg.screenshot(path=str(dest / "index.png"), full_page=True)
        for page in pages:
            pg.goto(page.as_uri())
            pg.wait_for_load_state("load")
            pg.screenshot(path=str(dest / f"{page.stem}.png"), full_page=True)
    finally:
        context.close()
    assert not errors, errors

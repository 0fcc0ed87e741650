"""Real browser: JupyterLab in headless Chromium runs notebooks 00, 02, 04 and 05, a slider is
moved, and the plotted data must change to exactly what the model gives for the new setting.

Notebooks 04 (the disk) and 05 (RAID) run as a reader runs them (``IOSIM_FAST`` off: the
explorer's 3,000 measured I/Os a point); the seconds from each key press or click to the redrawn
figure are printed and written to test-artifacts/browser/timings.txt (no bound asserted: timing
goals live in benchmarks/, see benchmarks/widgets.py).

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
READER_NOTEBOOKS = ["04_the_spinning_disk.ipynb", "05_raid.ipynb"]
READER_IOS = 3000  # explore()'s measured I/Os a point with IOSIM_FAST off
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
def reader_server(tmp_path_factory):
    """Notebooks 04 and 05 as a reader runs them: IOSIM_FAST off (explicitly, whatever the
    environment of the test process says)."""
    with lab.lab_server(
        tmp_path_factory.mktemp("lab-reader"), READER_NOTEBOOKS, env_extra={"IOSIM_FAST": "0"}
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
    (lab.ARTIFACTS / "timings.txt").unlink(missing_ok=True)  # this run's moves only
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


def report_time(shots, what: str, seconds: float) -> None:
    """Print a measured move and append it to test-artifacts/browser/timings.txt."""
    import os

    line = f"{what}: {seconds:.2f} s (load average {os.getloadavg()[0]:.2f})"
    print(line)
    with open(shots / "timings.txt", "a") as fh:
        fh.write(line + "\n")


def hdd_explorer_curve(threads: int, scheduler: str):
    """Notebook 04's explorer (hdd-7200, log-spaced threads), run in this process."""
    from iosim import presets, widgets

    stack, wl = presets.load("hdd-7200")
    s, w = widgets.model(stack, wl, {"scheduler": scheduler, "span": wl.span_bytes})
    counts = widgets.thread_counts(threads, "log")
    return widgets.explore_curve(s, w, counts, ios=READER_IOS)


def raid_explorer_curve(threads: int, level: str):
    """Notebook 05's explorer (a RAID of six FIFO hdd-7200, no caches), run in this process."""
    import iosim
    from iosim import presets, widgets

    e8_stack, e8_wl = presets.load("raid0-12x-hdd-wbc")
    member = {**presets.load("hdd-7200")[0].device.to_dict(), "scheduler": "fifo"}
    plain = e8_stack.with_(**{
        "device.member": member, "device.members": 6, "device.write_cache_bytes": 0,
        "device.controller_overhead_s": 0, "device.coalesce_count": 1,
        "device.coalesce_timeout_s": 0,
    })
    plain = iosim.Stack.from_dict({**plain.to_dict(), "name": "6 x hdd-7200, no cache"})
    settings = {"level": level, "members": 6, "read_pct": 0, "cache": False}
    s, w = widgets.model(plain, e8_wl, settings)
    counts = widgets.thread_counts(threads, "log")
    return widgets.explore_curve(s, w, counts, ios=READER_IOS)


def assert_curve(trace: dict, curve) -> None:
    assert trace["x"] == curve.df["numjobs"].tolist()
    assert trace["y"] == pytest.approx(curve.df["iops"].tolist(), rel=1e-9)


def open_explorer(page, server, notebook: str, points: int, label: str, expected, shot):
    """Run a notebook, wait for its explorer's IOPS trace of ``points`` points, check it
    against ``expected`` (the same model run here) and take the "before" screenshot."""
    lab.open_and_run_all(page, server, notebook)
    assert_curve(lab.wait_trace(page, EXPLORER, IOPS, points, label), expected)
    explorer = page.locator(EXPLORER).first
    explorer.scroll_into_view_if_needed()
    explorer.screenshot(path=shot)
    return explorer


def threads_to_max(page, shots, points: int, label: str, what: str) -> dict:
    """Move the threads slider to its maximum (End: one move), time it to the redrawn trace
    of ``points`` points, report the time and return the trace."""
    after, took = lab.timed(
        lambda: lab.press_slider(page, EXPLORER, "threads", "End", 1),
        lambda: lab.wait_trace(page, EXPLORER, IOPS, points, label),
    )
    report_time(shots, what, took)
    return after


def test_04_threads_on_an_sptf_disk_raise_iops(page, reader_server, shots):
    """Notebook 04: 8 -> 32 outstanding reads on a 7,200 rpm SPTF disk. More choice among the
    queue shortens the mean positioning time, so IOPS rise beyond their 95 % CIs; with FIFO the
    same 32 threads give a flat curve at the disk's 1 / S."""
    explorer = open_explorer(page, reader_server, READER_NOTEBOOKS[0], 4, "threads 1..8",
                             hdd_explorer_curve(8, "sptf"), shots / "04_disk_before.png")
    after = threads_to_max(page, shots, 6, "threads 1..32",
                           "notebook 04, threads 8 -> 32 (SPTF, 6 points)")
    sptf = hdd_explorer_curve(32, "sptf")
    assert_curve(after, sptf)
    at8, at32 = sptf[3], sptf[5]
    assert at32.iops - at32.iops_ci95 > at8.iops + at8.iops_ci95  # reordering pays
    assert at32.iops > 1.3 * sptf[0].iops  # E5's NCQ disk: ~76 at QD 1, ~150 at QD 32
    host = page.evaluate(lab.TRACE_JS, [EXPLORER, HOST])
    assert host["y"] == pytest.approx((sptf.df["lat_mean_s"] * 1e3).tolist(), rel=1e-9)
    # the bound: N / S below the knee, the capacity measured with the queue full above it
    bound = page.evaluate(lab.TRACE_JS, [EXPLORER, "IOPS (theory)"])
    assert bound is not None and bound["y"][-1] >= at32.iops - at32.iops_ci95
    assert bound["y"][-1] > 1.5 * sptf[0].iops  # not the FIFO 1 / S
    assert "no theory line" not in page.locator(f"{EXPLORER} .iosim-status").inner_text()
    explorer.screenshot(path=shots / "04_disk_after.png")

    # FIFO: the head serves in arrival order, queue depth buys only latency
    fifo_trace, took = lab.timed(
        lambda: lab.click_toggle(page, EXPLORER, "scheduler", "FIFO"),
        lambda: lab.wait_changed(page, EXPLORER, IOPS, after),
    )
    report_time(shots, "notebook 04, scheduler SPTF -> FIFO (32 threads, 6 points)", took)
    fifo = hdd_explorer_curve(32, "fifo")
    assert_curve(fifo_trace, fifo)
    one, deep = fifo[0], fifo[5]
    assert abs(deep.iops - one.iops) < 2 * (deep.iops_ci95 + one.iops_ci95)
    assert deep.lat_mean_s > 25 * one.lat_mean_s  # 32 in line, one service time each
    bound = page.evaluate(lab.TRACE_JS, [EXPLORER, "IOPS (theory)"])
    assert bound is not None and bound["y"][-1] == pytest.approx(deep.iops, rel=0.03)
    explorer.screenshot(path=shots / "04_disk_fifo.png")
    assert not page.errors, page.errors


def test_05_raid_threads_16_to_64_and_level(page, reader_server, shots):
    """Notebook 05: a RAID 5 of six FIFO disks under random writes, 16 -> 64 writers. The
    members are nearly saturated, so IOPS rise little and the host latency grows as Little's
    law says (64 outstanding / IOPS); RAID 10 then costs two member writes a write instead of
    four, so about twice the IOPS."""
    explorer = open_explorer(page, reader_server, READER_NOTEBOOKS[1], 5, "threads 1..16",
                             raid_explorer_curve(16, "5"), shots / "05_raid_before.png")
    after = threads_to_max(page, shots, 7, "threads 1..64",
                           "notebook 05, threads 16 -> 64 (RAID 5, 7 points)")
    r64 = raid_explorer_curve(64, "5")
    assert_curve(after, r64)
    at16, at64 = r64[4], r64[6]
    # the members are nearly saturated at 16: four times the writers buy little throughput
    # (the last idle gaps of the fork-join fill) and the rest is queueing, by Little's law
    assert at64.iops > at16.iops - (at64.iops_ci95 + at16.iops_ci95)
    assert at64.iops < 1.5 * at16.iops
    assert at64.lat_mean_s == pytest.approx(64 / at64.iops, rel=0.05)
    assert at64.lat_mean_s > 2.5 * at16.lat_mean_s
    host = page.evaluate(lab.TRACE_JS, [EXPLORER, HOST])
    assert host["y"] == pytest.approx((r64.df["lat_mean_s"] * 1e3).tolist(), rel=1e-9)
    status = page.locator(f"{EXPLORER} .iosim-status")
    status.filter(has_text="threads=64").wait_for(timeout=lab.UI_TIMEOUT_MS)
    assert f"IOPS {at64.iops:,.0f}" in status.inner_text()
    explorer.screenshot(path=shots / "05_raid_after.png")

    # RAID 5 -> RAID 10: write penalty 4 -> 2
    r10_trace, took = lab.timed(
        lambda: lab.select_option(page, EXPLORER, "level", "RAID 10"),
        lambda: lab.wait_changed(page, EXPLORER, IOPS, after),
    )
    report_time(shots, "notebook 05, RAID 5 -> RAID 10 (64 threads, 7 points)", took)
    r10 = raid_explorer_curve(64, "10")
    assert_curve(r10_trace, r10)
    assert 1.6 < r10[6].iops / at64.iops < 2.4
    explorer.screenshot(path=shots / "05_raid_10.png")
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

"""``iosim report``: a self-contained plotly HTML file of a sweep or a fit; the browser test
opens it in headless Chromium and checks that the plots are drawn (DOM and screenshot)."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pandas as pd
import pytest

from iosim import presets, sweep
from iosim.cli import main
from iosim.report import fit_figures, report_html, sweep_figures, write_report
from iosim.spec import SpecError

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
]

# the shape ``iosim fit --json`` prints (iosim.fit.FitResult.to_dict), abridged
FIT = {
    "model": "generic",
    "params": {
        "device.service": {
            "value": 4.6e-4,
            "ci95": [4.2e-4, 5.0e-4],
            "unit": "s",
            "bounds": [1e-7, 1.0],
            "at_bound": False,
            "determined": True,
        },
        "device.units": {
            "value": 64.0,
            "ci95": [8.0, 4096.0],
            "unit": "",
            "bounds": [1.0, 4096.0],
            "at_bound": False,
            "determined": False,
        },
    },
    "points": [
        {
            "set": "holdout" if n == 8 else "fit",
            "outstanding": n,
            "numjobs": n,
            "threads": n,
            "source": f"threads.csv:{n}",
            "measured": {"iops": x, "lat_mean_s": lat},
            "predicted": {"iops": px, "lat_mean_s": plat, "lat_p99_s": 2 * plat},
            "error": {"iops": 100 * (px - x) / x, "lat_mean_s": 100 * (plat - lat) / lat},
            "extrapolated": n == 8,
        }
        for n, x, lat, px, plat in [
            (1, 1783, 0.000507, 1950, 0.000513),
            (2, 3650, 0.000513, 3900, 0.000513),
            (4, 7400, 0.000520, 7800, 0.000513),
            (8, 8600, 0.000920, 8696, 0.000866),
        ]
    ],
    "mape": {"iops": 5.8, "lat_mean_s": 2.5},
    "mape_by_set": {"fit": {"iops": 6.9, "lat_mean_s": 1.2}, "holdout": {"iops": 1.1}},
    "warnings": ["device.units is only bounded from below: the knee is beyond the points"],
}


@pytest.fixture(scope="module")
def curve():
    stack, wl = presets.load("allflash-lun-qd4")
    return sweep(
        stack,
        wl,
        {"workload.numjobs": [1, 2, 4, 8, 16], "multipath.paths": [1, 2]},
        ios=300,
        progress=False,
    )


def test_sweep_figures(curve):
    figs = dict(sweep_figures(curve))
    assert {"Throughput", "Latency", "Latency vs throughput", "Utilisation"} <= set(figs)
    thr = figs["Throughput"]
    # x is the first varied key, one line per value of the other
    assert [t.name for t in thr.data] == ["Paths 1", "Paths 2"]
    assert list(thr.data[0].x) == [1, 2, 4, 8, 16]
    assert thr.layout.xaxis.title.text == "Jobs (numjobs)"  # a human title, not the key
    lat = figs["Latency"]
    assert lat.layout.yaxis.title.text == "Latency (ms)"
    assert max(lat.data[0].y) < 100  # milliseconds, not seconds
    figs = dict(sweep_figures(curve, x="multipath.paths"))
    assert len(figs["Throughput"].data) == 5
    with pytest.raises(SpecError, match="not a column"):
        sweep_figures(curve, x="nope")


def test_a_flat_series_is_drawn_from_zero_not_zoomed_into_its_noise():
    """A disk busy 100 % at every depth (99.9999999999998 % at one) drew a V spanning 2e-13 %
    of axis; every report axis starts at zero and %util spans 0-100 %."""
    rows = [{"iodepth": q, "iops": 100.0 + q, "lat_mean_s": 0.01 * q, "lat_p99_s": 0.03 * q,
             "util": 1.0 - (2e-15 if q == 4 else 0.0), "unit_util": 1.0}
            for q in (1, 4, 16)]
    figs = dict(sweep_figures(pd.DataFrame(rows), x="iodepth"))
    util = figs["Utilisation"].layout.yaxis
    assert tuple(util.range) == (0, 105) and util.ticksuffix == " %"
    for heading in ("Throughput", "Latency", "Latency vs throughput"):
        assert figs[heading].layout.yaxis.rangemode == "tozero", heading


def test_report_html_is_self_contained(curve, tmp_path):
    out = write_report(curve, tmp_path / "r.html", title="E2 & E3")
    text = out.read_text()
    assert text.startswith("<!DOCTYPE html>")
    assert "<title>E2 &amp; E3</title>" in text
    assert "<script src=" not in text and '<link rel="stylesheet" href' not in text
    assert "Plotly" in text  # plotly.js inline: opens offline
    assert text.count('class="plotly-graph-div"') >= 4
    assert "<table>" in text and "Jobs (numjobs)" in text
    assert "Workload: 8 KiB random reads" in text and "Varied: Jobs (numjobs) over 1, 2" in text


def test_fit_report():
    figs = dict(fit_figures(FIT))
    # metrics measured and predicted (not the predicted-only p99), then the errors
    assert list(figs) == ["Fit: IOPS", "Fit: Mean latency", "Errors"]
    names = [t.name for t in figs["Fit: IOPS"].data]
    assert names == ["predicted (calibrated model)", "measured, fitted", "measured, held out"]
    assert list(figs["Fit: IOPS"].data[2].x) == [8]
    assert figs["Fit: IOPS"].layout.xaxis.title.text == "Outstanding I/Os (jobs × iodepth)"
    assert figs["Fit: Mean latency"].layout.yaxis.title.text == "Mean latency (ms)"
    assert figs["Errors"].layout.yaxis.title.text == "error (%)"
    text = report_html(FIT)
    for s in ("Fitted parameters", "device.units", "95 % CI low", "holdout", "only bounded"):
        assert s in text
    # the fitted service time in a unit people read, not raw SI
    assert "460 µs" in text and "0.00046" not in text and "4.6e-04" not in text
    # a value and its interval share one unit: a zero bound beside microseconds is "0 µs"
    gap = {"value": 6e-6, "unit": "s", "ci95": [0.0, 11.2e-6]}
    row = report_html({**FIT, "params": {"host.overhead": gap}})
    assert "<td>0 µs</td>" in row and "0 ms" not in row
    # the calibrated stack's host overhead as people read it, not its exact stack-file text
    stack = presets.load("allflash-lun-qd4")[0].to_dict()
    for written, shown in (("6.149912526453906e-07ns", "host overhead 0 µs per I/O"),
                           ("lognormal:36.6us,scv=0.06", "host overhead mean 36.6 µs per I/O")):
        stack["host"]["overhead"] = written
        text = report_html({**FIT, "stack": stack})
        assert shown in text and written not in text
    with pytest.raises(SpecError, match="no points"):
        fit_figures({"params": {}, "points": []})


def test_cli_report_from_sweep_files_and_fit(capsys, tmp_path):
    argv = ["sweep", "--vary", "workload.numjobs=1,2,4", "--ios", "200", "--no-progress"]
    for name in ("s.json", "s.csv"):
        assert main([*argv, "-o", str(tmp_path / name)]) == 0
        capsys.readouterr()
        assert main(["report", str(tmp_path / name)]) == 0
        out = capsys.readouterr().out.strip()
        assert out == str(tmp_path / name).rsplit(".", 1)[0] + ".html"
        assert "plotly-graph-div" in Path(out).read_text()
    (tmp_path / "fit.json").write_text(json.dumps(FIT))
    assert main(["report", str(tmp_path / "fit.json"), "-o", str(tmp_path / "f.html")]) == 0
    assert "Fit: IOPS" in (tmp_path / "f.html").read_text()
    capsys.readouterr()
    (tmp_path / "bad.json").write_text("{not json")
    assert main(["report", str(tmp_path / "bad.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not valid JSON" in err[0]
    assert main(["report", str(tmp_path / "s.csv"), "--x", "nope"]) == 2
    assert "not a column" in capsys.readouterr().err


# -- the browser test ------------------------------------------------------------------------


def _png_pixels(path: Path) -> tuple[int, int, list[bytes]]:
    """Decode an 8-bit RGB/RGBA PNG (what Chromium writes) into rows of pixels."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, head = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color, _, _, interlace = head
    assert depth == 8 and color in (2, 6) and interlace == 0, head
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        rows.append(bytes(line) if bpp == 3 else bytes(x for j, x in enumerate(line) if j % 4 < 3))
        prev = line
    return width, height, rows


def _count_colour(rows: list[bytes], rgb: tuple[int, int, int], tol: int = 40) -> int:
    import numpy as np

    px = np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(-1, 3).astype(int)
    return int((np.abs(px - np.array(rgb)) <= tol).all(axis=1).sum())


def _chromium(*args: str, timeout: float = 90) -> subprocess.CompletedProcess:
    return subprocess.run(
        [CHROMIUM, *CHROMIUM_FLAGS, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.mark.browser
def test_report_renders_in_headless_chromium(curve, tmp_path):
    if not (Path(CHROMIUM).exists() and shutil.which(CHROMIUM)):
        pytest.skip(f"Chromium not installed at {CHROMIUM} (apt-get install -y chromium)")
    report = write_report(curve, tmp_path / "report.html", title="iosim report test")
    url = report.resolve().as_uri()
    # 1. the DOM after plotly ran: every figure drew its SVG and its lines
    dom = _chromium("--virtual-time-budget=5000", "--dump-dom", url)
    assert dom.returncode == 0, dom.stderr[-2000:]
    n_figs = report.read_text().count('class="plotly-graph-div"')
    assert n_figs >= 4
    assert dom.stdout.count('class="main-svg"') >= n_figs  # plotly renders 3 per figure
    assert dom.stdout.count('class="js-line"') >= 2 * n_figs
    # 2. the pixels: the screenshot shows the traces in plotly's first two colours
    ARTIFACTS.mkdir(exist_ok=True)
    png = ARTIFACTS / "report_sweep.png"
    png.unlink(missing_ok=True)
    shot = _chromium(
        "--window-size=1000,1100", "--virtual-time-budget=5000", f"--screenshot={png}", url
    )
    assert shot.returncode == 0 and png.exists(), shot.stderr[-2000:]
    width, height, rows = _png_pixels(png)
    assert (width, height) == (1000, 1100)  # the header, the throughput and latency plots
    blue = _count_colour(rows, (0x63, 0x6E, 0xFA))  # multipath.paths=1
    red = _count_colour(rows, (0xEF, 0x55, 0x3B))  # multipath.paths=2
    assert blue > 300 and red > 300, (blue, red)

"""The plot gallery: every kind of figure iosim draws, from small simulations, as PNG files.

``python -m iosim.gallery OUTDIR`` simulates a few small sweeps (seeded, so the same
figures every time), draws every plot function of :mod:`iosim.plots` with the options the
notebooks use (log axes, theory lines, measured points, dual axes), the HTML reports of a
sweep and of a fit, and writes into ``OUTDIR``:

* ``index.html``: every figure and table on one page (plotly.js inline, opens offline);
* ``<name>.html``: one page per figure, and ``<name>.png``: its screenshot, taken in headless
  Chromium (Debian's ``/usr/bin/chromium`` or ``$CHROMIUM_PATH``) through Playwright; without
  them the PNGs are skipped with one line saying why;
* ``report-sweep.html`` / ``report-fit.html`` and their full-page screenshots.

Look at the PNGs after changing a plot: a figure with unreadable axes is a bug.
``IOSIM_FAST=1`` shortens the simulations.
"""

from __future__ import annotations

import argparse
import html
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from . import plots, presets
from .claims import check_claim
from .results import Curve
from .simulate import simulate, sweep

__all__ = ["figures", "tables", "reports", "write", "main"]


def _ios(full: int) -> int:
    return max(300, full // 5) if os.environ.get("IOSIM_FAST") else full


def _sweep(preset: str, vary: dict, ios: int, **overrides) -> tuple[Any, Any, Curve]:
    from .stack import apply_overrides

    stack, wl = presets.load(preset)
    if overrides:
        stack, wl = apply_overrides(stack, wl, overrides)
    return stack, wl, sweep(stack, wl, vary, ios=_ios(ios), seed=1, progress=False)


def _measured(curve: Curve, factor: float = 1.08) -> Curve:
    """A stand-in for a measurement: the simulated points, a bit slower, with no engine (the
    way parsers of real tool output return them)."""
    from dataclasses import replace

    pts = [
        replace(
            r,
            engine=None,
            iops=r.iops / factor,
            lat_mean_s=r.lat_mean_s * factor,
            bandwidth_Bps=r.bandwidth_Bps / factor if r.bandwidth_Bps else r.bandwidth_Bps,
        )
        for r in curve.points
    ]
    return Curve(pts, x=curve.x)


def figures() -> dict[str, go.Figure]:
    """Every plot kind, drawn the way the notebooks draw it, by name."""
    out: dict[str, Callable[[], go.Figure] | go.Figure] = {}
    stack, wl, lun = _sweep("allflash-lun-qd4", {"workload.numjobs": list(range(1, 17))}, 2000)
    th = plots.bounds(stack, wl, range(1, 17))
    out["iops_latency"] = plots.iops_latency(lun, theory=th, title="HBA queue depth 4, one path")
    out["iops_latency_measured"] = plots.iops_latency(
        lun, measured=_measured(lun), title="simulated and measured"
    )
    out["latency_throughput"] = plots.latency_throughput(lun, theory=th)
    s4, w4, four = _sweep(
        "allflash-lun-4path", {"workload.numjobs": [1, 2, 4, 8, 16, 32, 64, 128]}, 2000
    )
    s3 = s4.with_(**{"multipath.paths": 3})
    three = sweep(s3, w4, {"workload.numjobs": [1, 2, 4, 8, 16, 32, 64, 128]}, ios=_ios(2000),
                  seed=1, progress=False)  # fmt: skip
    out["compare_curves_log"] = plots.compare_curves(
        {"4 paths": four, "3 of 4 paths": three},
        theory={"4 paths": plots.bounds(s4, w4, [1, 2, 4, 8, 16, 32, 64, 128])},
        title="four paths and three",
        log_x=True,
    )
    hdd, hwl, qd = _sweep(
        "hdd-7200",
        {"workload.iodepth": [1, 2, 4, 8, 16, 32]},
        600,
        **{"device.scheduler": "sptf"},
    )
    out["iops_latency_log_qd"] = plots.iops_latency(
        qd, x="iodepth", title="7,200 rpm disk with reordering", log_x=True
    )
    ssd, swl, ssd_curve = _sweep(
        "nvme-intel-750", {"workload.numjobs": [1, 2, 4, 8, 16, 32, 64, 128]}, 3000
    )
    out["utilisation"] = plots.utilisation(ssd_curve, title="%util against units busy", log_x=True)
    out["utilisation_measured"] = plots.utilisation(
        ssd_curve, measured=_measured(ssd_curve), log_x=True
    )
    one = simulate(stack, wl.with_(numjobs=8), ios=_ios(4000), seed=1)
    two = simulate(s4, w4.with_(numjobs=24), ios=_ios(4000), seed=1)
    out["percentiles"] = plots.percentiles(one, two, labels=["one path", "four paths"])
    out["latency_cdf"] = plots.latency_cdf(one, two, labels=["one path", "four paths"])
    out["qd_histogram"] = plots.qd_histogram(one, two, labels=["one path", "four paths"])
    out["stack_diagram"] = plots.stack_diagram(stack, lun[-1], title="16 jobs on 4 HBA slots")
    out["stack_diagram_ssd"] = plots.stack_diagram(
        ssd, ssd_curve[3], title="8 jobs on an NVMe drive"
    )
    out["service_breakdown"] = plots.service_breakdown(
        {
            "7,200 rpm": {"seek": 9e-3, "rotation": 4.17e-3, "transfer": 0.03e-3},
            "15,000 rpm": {"seek": 3.5e-3, "rotation": 2.0e-3, "transfer": 0.02e-3},
        }
    )
    claim = check_claim(
        iops=1e6, block_bytes=4096, bandwidth_Bps=4e9, latency_s=0.128e-3, queue_depth=32
    )
    out["claim_limits"] = plots.claim_limits(claim, title="1M IOPS at 4 KiB and QD 32")
    wide = check_claim(
        iops=1e6, block_bytes=4096, bandwidth_Bps=4e9, latency_s=0.128e-3, queue_depth=1,
        units=54, unit_service_s=60e-6,
    )  # fmt: skip
    out["claim_limits_log"] = plots.claim_limits(wide, title="the same claim at QD 1")
    return {k: v() if callable(v) else v for k, v in out.items()}


def tables() -> dict[str, pd.DataFrame]:
    """The tables the notebooks show (reproduction errors), by name."""
    return {
        "error_table": plots.error_table(
            [1, 2, 4, 8],
            "threads",
            IOPS=([2032, 4065, 8130, 8696], [2030.4, 4061.2, 8100.0, 8690.1]),
            **{"latency ms": ([0.46, 0.46, 0.46, 0.92], [0.4601, 0.4599, 0.4611, 0.9204])},
        )
    }


def reports(outdir: Path) -> dict[str, Path]:
    """The HTML reports of a small sweep and of a fit, written into ``outdir``."""
    from .report import write_report

    stack, wl, curve = _sweep(
        "allflash-lun-qd4",
        {"workload.numjobs": [1, 2, 4, 8, 16], "multipath.paths": [1, 2]},
        600,
    )
    out = {"report-sweep": write_report(curve, outdir / "report-sweep.html", stack=stack)}
    out["report-fit"] = write_report(_FIT, outdir / "report-fit.html")
    return out


# the shape ``iosim fit --json`` prints, abridged (numbers of the allflash-lun-qd4 model)
_FIT = {
    "model": "generic",
    "params": {
        "device.service": {
            "value": 4.6e-4,
            "ci95": [4.2e-4, 5.0e-4],
            "unit": "s",
            "at_bound": False,
            "determined": True,
        },
        "host.overhead": {
            "value": 7.47653e-06,
            "ci95": [1.2e-6, 1.5e-5],
            "unit": "s",
            "at_bound": False,
            "determined": True,
        },
        "device.units": {
            "value": 64.0,
            "ci95": [8.0, 4096.0],
            "unit": "",
            "at_bound": False,
            "determined": False,
        },
    },
    "points": [
        {
            "set": "holdout" if n == 8 else "fit",
            "outstanding": n,
            "numjobs": n,
            "measured": {"iops": x, "lat_mean_s": lat, "lat_p95_s": 1.4 * lat},
            "predicted": {"iops": px, "lat_mean_s": plat, "lat_p95_s": 1.35 * plat},
            "error": {"iops": 100 * (px - x) / x, "lat_mean_s": 100 * (plat - lat) / lat,
                      "lat_p95_s": 100 * (1.35 * plat - 1.4 * lat) / (1.4 * lat)},
        }
        for n, x, lat, px, plat in [
            (1, 1783, 0.000507, 1950, 0.000513),
            (2, 3650, 0.000513, 3900, 0.000513),
            (4, 7400, 0.000520, 7800, 0.000513),
            (8, 8600, 0.000920, 8696, 0.000866),
        ]
    ],
    "stack": presets.load("allflash-lun-qd4")[0].to_dict(),
}


def _mape(points: list[dict]) -> dict[str, float]:
    """Mean absolute percentage error of each metric over ``points`` (as the fit reports it)."""
    metrics = {m for p in points for m in p["error"]}
    return {m: sum(abs(p["error"][m]) for p in points if m in p["error"])
            / sum(1 for p in points if m in p["error"]) for m in sorted(metrics)}


# (the example's error tables computed from its points, so the report's table and its error
# bars agree)
_FIT["mape"] = _mape(_FIT["points"])
_FIT["mape_by_set"] = {s: _mape([p for p in _FIT["points"] if p["set"] == s])
                       for s in ("fit", "holdout")}


# ---- writing ---------------------------------------------------------------------------------

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<script src="plotly.min.js"></script>
<style>body {{ font-family: system-ui, sans-serif; margin: 1em; color: #222; }}
h2 {{ font-size: 1.1em; margin-top: 2em; }} .fig {{ max-width: 1000px; }}
table {{ border-collapse: collapse; font-size: 0.85em; }}
th, td {{ border: 1px solid #ddd; padding: 3px 6px; text-align: right; }}</style>
</head><body>
{body}
</body></html>
"""


def _fig_div(name: str, fig: go.Figure) -> str:
    return fig.to_html(
        full_html=False,
        include_plotlyjs=False,
        div_id=f"fig-{name}",
        config={"displaylogo": False, "responsive": True},
    )


def _table_html(df: pd.DataFrame) -> str:
    from .labels import number

    return df.to_html(float_format=number, border=0)


def write(outdir: str | Path, *, png: bool = True, width: int = 1000) -> list[Path]:
    """Write the gallery into ``outdir`` (created if needed); return the files written."""
    from plotly.offline import get_plotlyjs

    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "plotly.min.js").write_text(get_plotlyjs(), encoding="utf-8")
    figs = figures()
    tabs = tables()
    pages: list[Path] = []
    index = ["<h1>iosim plot gallery</h1>"]
    for name, fig in figs.items():
        div = f'<div class="fig">{_fig_div(name, fig)}</div>'
        page = out / f"{name}.html"
        page.write_text(_PAGE.format(title=name, body=div), encoding="utf-8")
        pages.append(page)
        index.append(f'<h2 id="{name}">{html.escape(name)}</h2>{div}')
    for name, df in tabs.items():
        body = _table_html(df)
        page = out / f"{name}.html"
        page.write_text(_PAGE.format(title=name, body=body), encoding="utf-8")
        pages.append(page)
        index.append(f'<h2 id="{name}">{html.escape(name)}</h2>{body}')
    rep = reports(out)
    index.append("<h2>reports</h2><ul>")
    index += [f'<li><a href="{p.name}">{html.escape(p.name)}</a></li>' for p in rep.values()]
    index.append("</ul>")
    (out / "index.html").write_text(
        _PAGE.format(title="iosim plot gallery", body="\n".join(index)), encoding="utf-8"
    )
    written = [out / "index.html", *pages, *rep.values()]
    if png:
        why = screenshot_missing()
        if why:
            print(f"gallery: PNGs skipped: {why}", file=sys.stderr)
        else:
            written += screenshot([*pages, *rep.values()], width=width)
    return written


def chromium_path() -> str:
    return os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"


def screenshot_missing() -> str | None:
    """Why PNGs cannot be taken here, or None."""
    if not Path(chromium_path()).exists():
        return f"no Chromium at {chromium_path()} (apt-get install chromium, or set CHROMIUM_PATH)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed"
    return None


def screenshot(pages: list[Path], *, width: int = 1000) -> list[Path]:
    """A PNG beside each HTML page, as headless Chromium renders it (full page)."""
    from playwright.sync_api import sync_playwright

    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    shots = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=flags, headless=True)
        try:
            page = browser.new_page(viewport={"width": width, "height": 700})
            for html_path in pages:
                page.goto(html_path.resolve().as_uri())
                page.wait_for_load_state("load")
                page.wait_for_timeout(300)
                png = html_path.with_suffix(".png")
                page.screenshot(path=str(png), full_page=True)
                shots.append(png)
        finally:
            browser.close()
    return shots


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m iosim.gallery",
        description="Render every iosim plot kind to HTML and PNG (headless Chromium).",
    )
    ap.add_argument("outdir", help="directory to write the gallery into (created if needed)")
    ap.add_argument("--no-png", action="store_true", help="write the HTML pages only")
    ap.add_argument("--width", type=int, default=1000, help="browser width in px (default 1000)")
    args = ap.parse_args(argv)
    files = write(args.outdir, png=not args.no_png, width=args.width)
    pngs = [f for f in files if f.suffix == ".png"]
    print(f"gallery: {len(files) - len(pngs)} pages, {len(pngs)} PNGs in {args.outdir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

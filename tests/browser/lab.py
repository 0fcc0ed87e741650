"""Helpers for the real-browser notebook test: a throw-away JupyterLab server, Debian's
Chromium driven by Playwright, and the JavaScript probes that read plotly's plotted data.

Recipe: ../shared/design/browser-test-recipe.md. Never `playwright install`: the tests use the
system Chromium (`apt-get install chromium`), found at $CHROMIUM_PATH or /usr/bin/chromium.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NB_DIR = ROOT / "notebooks"
ARTIFACTS = Path(os.environ.get("NB_UI_ARTIFACTS", ROOT / "test-artifacts")) / "browser"
CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SERVER_START_TIMEOUT_S = 60
UI_TIMEOUT_MS = 120_000  # 2 shared cores: kernel start + first simulation can be slow

NOT_LOCAL = re.compile(r"^https?://(?!(127\.0\.0\.1|localhost)(:\d+)?/)")


def missing_requirement() -> str | None:
    """Why the browser test cannot run here, or None."""
    if not Path(CHROMIUM).exists():
        return (
            f"no Chromium at {CHROMIUM}: install Debian's package "
            "(apt-get install -y chromium) or set CHROMIUM_PATH"
        )
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright Python package is not installed (pip install playwright)"
    return None


# ---- JupyterLab server ----------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_http(url: str, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + SERVER_START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(
                f"jupyter lab exited rc={proc.returncode}:\n{log.read_text()[-3000:]}"
            )
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.25)
    raise TimeoutError(f"{url} not up after {SERVER_START_TIMEOUT_S} s:\n{log.read_text()[-3000:]}")


@contextlib.contextmanager
def lab_server(workdir: Path, notebooks: list[str], env_extra: dict[str, str] | None = None):
    """A JupyterLab on a free loopback port serving *copies* of ``notebooks`` (Lab autosaves
    outputs into what it shows), with isolated settings (no news toast, every cell attached to
    the DOM). Yields a dict with url, token, root and log; stops the server with SIGTERM."""
    root = workdir / "root"
    root.mkdir(parents=True)
    for name in notebooks:
        shutil.copy(NB_DIR / name, root / name)
    settings = workdir / "settings"
    notif = settings / "@jupyterlab" / "apputils-extension"
    notif.mkdir(parents=True)
    (notif / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')
    nbext = settings / "@jupyterlab" / "notebook-extension"
    nbext.mkdir(parents=True)
    (nbext / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    runtime = workdir / "runtime"
    runtime.mkdir()
    log = workdir / "lab.log"
    port, token = _free_port(), secrets.token_hex(16)
    env = {
        **os.environ,
        "JUPYTER_RUNTIME_DIR": str(runtime),
        "PYTHONUNBUFFERED": "1",
        **(env_extra or {}),
    }
    cmd = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--allow-root",
        "--ip=127.0.0.1",
        f"--port={port}",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        "--LabApp.expose_app_in_browser=True",
        "--LabApp.extension_manager=readonly",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        f"--LabApp.user_settings_dir={settings}",
        f"--LabApp.workspaces_dir={settings / 'workspaces'}",
    ]
    with open(log, "w") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, env=env, cwd=root)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_http(f"{base}/api/status?token={token}", proc, log)
        yield {"url": base, "token": token, "root": root, "log": log}
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


# ---- page helpers ---------------------------------------------------------------------------

KERNEL_IDLE_JS = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return !!k && k.connectionStatus === 'connected' && k.status === 'idle';
}"""

# The FigureWidget inside an explorer (VBox with class iosim-explore); a trace by name.
TRACE_JS = """([scope, name]) => {
  const gd = document.querySelector(scope + ' .js-plotly-plot.iosim-figure')
          || document.querySelector(scope + ' .js-plotly-plot');
  if (!gd || !gd.data) return null;
  const t = gd.data.find(d => d.name === name);
  if (!t) return null;
  return {x: Array.from(t.x || []), y: Array.from(t.y || []),
          title: gd.layout && gd.layout.title && gd.layout.title.text,
          path: (gd.querySelector('.scatterlayer path.js-line') || {getAttribute: () => null})
                  .getAttribute('d')};
}"""

WAIT_TRACE_JS = """([scope, name, n, titlePart]) => {
  const gd = document.querySelector(scope + ' .js-plotly-plot.iosim-figure')
          || document.querySelector(scope + ' .js-plotly-plot');
  if (!gd || !gd.data) return false;
  const t = gd.data.find(d => d.name === name);
  if (!t || !t.x || t.x.length !== n) return false;
  const title = (gd.layout && gd.layout.title && gd.layout.title.text) || '';
  return !titlePart || title.includes(titlePart);
}"""


def open_and_run_all(page, server: dict, notebook: str) -> None:
    """Open ``notebook`` in JupyterLab and run every cell through the Run menu."""
    page.goto(
        f"{server['url']}/lab/tree/{notebook}?reset&token={server['token']}",
        timeout=UI_TIMEOUT_MS,
    )
    page.wait_for_function("() => window.jupyterapp !== undefined", timeout=UI_TIMEOUT_MS)
    page.locator(".jp-NotebookPanel .jp-Cell").first.wait_for(timeout=UI_TIMEOUT_MS)
    page.wait_for_function(KERNEL_IDLE_JS, timeout=UI_TIMEOUT_MS)
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").click()
    page.locator(".lm-Menu-item[data-command='runmenu:run-all']").click()


def wait_trace(page, scope: str, name: str, n: int, title_part: str = "") -> dict:
    """Wait until the trace ``name`` in ``scope`` has ``n`` points (and the title contains
    ``title_part``), then return its x, y, title and the SVG path of the first line."""
    page.wait_for_function(WAIT_TRACE_JS, arg=[scope, name, n, title_part], timeout=UI_TIMEOUT_MS)
    return page.evaluate(TRACE_JS, [scope, name])


def press_slider(page, scope: str, control: str, key: str, times: int) -> None:
    """Move an ipywidgets slider with the keyboard (fires on release, like a user)."""
    handle = page.locator(f"{scope} .iosim-{control} .noUi-handle")
    handle.focus()
    for _ in range(times):
        handle.press(key)


def type_slider(page, scope: str, control: str, value: int) -> None:
    """Type a value into a slider's editable readout and press Enter."""
    page.locator(f"{scope} .iosim-{control} .widget-readout").click()
    page.keyboard.press("Control+A")
    page.keyboard.type(str(value))
    page.keyboard.press("Enter")


WAIT_Y_CHANGED_JS = """([scope, name, oldY]) => {
  const gd = document.querySelector(scope + ' .js-plotly-plot.iosim-figure')
          || document.querySelector(scope + ' .js-plotly-plot');
  if (!gd || !gd.data) return false;
  const t = gd.data.find(d => d.name === name);
  if (!t || !t.y) return false;
  const y = Array.from(t.y);
  return y.length !== oldY.length || y.some((v, i) => v !== oldY[i]);
}"""


def wait_changed(page, scope: str, name: str, old: dict) -> dict:
    """Wait until the trace ``name`` in ``scope`` no longer plots ``old['y']``; return it."""
    page.wait_for_function(WAIT_Y_CHANGED_JS, arg=[scope, name, old["y"]], timeout=UI_TIMEOUT_MS)
    return page.evaluate(TRACE_JS, [scope, name])


def timed(action, wait) -> tuple[dict, float]:
    """Run ``action()`` (a key press, a click) and then ``wait()`` (until the figure shows the
    new data); return what ``wait`` returned and the wall seconds from the action's start: what
    a reader waits for after letting go of a slider (kernel round trip, simulation, figure
    update and plotly's redraw; Playwright's own round trips add a few milliseconds)."""
    t0 = time.perf_counter()
    action()
    out = wait()
    return out, time.perf_counter() - t0


def select_option(page, scope: str, control: str, label: str) -> None:
    """Choose the option shown as ``label`` in a Dropdown control."""
    page.locator(f"{scope} .iosim-{control} select").select_option(label=label)


def click_toggle(page, scope: str, control: str, label: str) -> None:
    """Click the button labelled ``label`` of a ToggleButtons control."""
    page.locator(f"{scope} .iosim-{control} button", has_text=label).click()

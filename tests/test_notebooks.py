"""The teaching notebooks run top to bottom in fast mode, cleanly, and reproduce their figures.

Each notebook is executed with nbclient under ``IOSIM_FAST=1`` (< 60 s each). Then probe cells
run in the same kernel: the notebook's reproduction errors must be within the tolerances below
(which the notebook's own assertions use too), and its exercise checker must accept a right
answer and reject a wrong one.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NB_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NB_DIR.glob("*.ipynb"))
ARTIFACTS = Path(os.environ.get("NB_UI_ARTIFACTS", ROOT / "test-artifacts"))
TIME_LIMIT_S = 60.0
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
PLOTLY = "application/vnd.plotly.v1+json"

# Reproduction tolerances (max |error| in %), fixed before fitting. The notebooks assert the same.
TOLERANCES = {
    "01_iops_latency_littles_law": {
        "E1": {"IOPS": 0.5, "mean response": 0.5, "avg queue depth": 5.0}
    },
    "02_hba_queue_depth_wall": {"E2": {"host latency": 3.0, "device latency flat": 2.0}},
    "03_multipath_and_failure": {
        "E3": {
            "effective QD, 4 paths": 1.0,
            "effective QD, path failed": 1.0,
            "IOPS one path QD 32": 3.0,
        }
    },
    "04_the_spinning_disk": {"E5": {"simulated vs formula": 3.0}},
    "04b_disk_caches": {
        "E6 IOMeter": {"IOPS": 5.0, "mean latency": 5.0},
        "E6 fio": {"IOPS QD 1": 5.0, "util QD 1 (points)": 0.5, "latency QD 4": 10.0},
        "E7": {"IOPS": 15.0, "mean latency": 15.0},
    },
    "05_raid": {"E8": {"IOPS": 10.0, "latency": 10.0}},
    "06_inside_an_ssd_and_util": {"E11": {"IOPS": 10.0, "mean latency": 15.0, "p95 latency": 25.0}},
    "07_cloud_volumes": {"E10": {"fitted": 5.0, "predicted mix": 15.0}},
    "08_checking_a_vendor_claim": {"E4": {"derived": 0.01}},
}

# Exercise checks: (arguments of check_answer that are right, ... that are wrong)
E1_X, E1_R = 9480.0, 98.6e-6
ANSWERS = {
    "00_start_here": (["17391"], ["34783", "8696"]),
    "01_iops_latency_littles_law": (
        [f"{E1_X * E1_R}, {(1 / E1_X - E1_R) * 1e6}"],
        ["1.0, 0.0", f"{E1_X * E1_R}, 0.0"],
    ),
    "02_hba_queue_depth_wall": (["13"], ["12", "14", "4"]),
    "03_multipath_and_failure": (["4, 8", "3, 12"], ["2, 16", "1, 64"]),
    "04_the_spinning_disk": (["57"], ["76", "40"]),
    "04b_disk_caches": (["90"], ["120", "14529", "45"]),
    "05_raid": (["'10', 30", "'5', 60", "'6', 90"], ["'0', 15", "'10', 28", "'1', 40", "'10', 31"]),
    "06_inside_an_ssd_and_util": (["3.7, True"], ["99.9, False", "3.7, False", "50, True"]),
    "07_cloud_volumes": (
        ["True, 6000, 3", "True, 6000, 4"],
        ["False, None, None", "True, 128000, 3", "True, 6000, 64"],
    ),
    "08_checking_a_vendor_claim": (["4096, 128"], ["8192, 128", "4096, 100", "impossible=True"]),
    "09_bring_your_own_trace": (
        ["float(prediction.df.loc[prediction.df['iodepth'] == 64, 'lat_p99_s'].iloc[0] * 1e3)"],
        [
            "80885.37",
            "None",
            "float(prediction.df.loc[prediction.df['iodepth'] == 64, 'lat_mean_s'].iloc[0] * 1e3)",
        ],
    ),
    "10_capacity_planning": (["2, 32", "3, 16"], ["2, 16", "1, 64"]),
    "11_will_my_workload_fit": (
        ["iosim.max_speed(msn, presets.load('cloud-qingcloud-capacity')[0], slo_s=3e-3).speed"],
        ["None", "10.0", "0.01"],
    ),
}


# One small run with engine="auto": the fast engine compiles (numba, ~40 s cold on 2 cores) and
# caches the machine code on disk, so the time limit below measures the notebooks, not that
# one-time compilation.
WARM_UP = "import iosim; iosim.simulate(iosim.Stack(), iosim.Workload(), ios=200, engine='auto')"


@pytest.fixture(scope="module", autouse=True)
def _compiled_engine():
    subprocess.run([sys.executable, "-c", WARM_UP], check=True, timeout=900, cwd=ROOT)


def _client(path: Path, monkeypatch) -> tuple[nbformat.NotebookNode, NotebookClient]:
    monkeypatch.setenv("IOSIM_FAST", "1")
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        store_widget_state=False,  # plotly's FigureWidget state is ~5 MB each; not needed here
        resources={"metadata": {"path": str(NB_DIR)}},
    )
    return nb, client


def _run_probe(client, nb, source: str) -> list[str]:
    cell = nbformat.v4.new_code_cell(source)
    nb.cells.append(cell)
    client.execute_cell(cell, len(nb.cells) - 1)
    errors = [o for o in cell.outputs if o.output_type == "error"]
    assert not errors, errors[0]["evalue"] if errors else None
    return [o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stdout"]


def _json_line(lines: list[str], tag: str) -> dict:
    for text in lines:
        for line in text.splitlines():
            if line.startswith(tag):
                return json.loads(line[len(tag) :])
    raise AssertionError(f"no {tag} line in {lines}")


def _record_time(name: str, seconds: float) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / "notebook_times.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        data = {}
    data[name] = round(seconds, 1)
    path.write_text(json.dumps(data, indent=1, sort_keys=True))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_cleanly_and_reproduces(path, monkeypatch):
    nb, client = _client(path, monkeypatch)
    name = path.stem
    with client.setup_kernel():
        start = time.monotonic()
        for i, cell in enumerate(nb.cells):
            if cell.cell_type == "code":
                client.execute_cell(cell, i)  # raises CellExecutionError on any error
        took = time.monotonic() - start
        _record_time(name, took)

        # no error or warning output anywhere
        for cell in nb.cells:
            for out in cell.get("outputs", []):
                assert out.output_type != "error", out
                if out.output_type == "stream":
                    assert out.name != "stderr", f"stderr output in {name}: {out.text[:500]}"
                    assert "Warning" not in out.text, out.text[:500]
        mimes = {m for c in nb.cells for o in c.get("outputs", []) for m in o.get("data", {})}
        assert PLOTLY in mimes or WIDGET_VIEW in mimes, f"{name} shows no figure"
        assert took < TIME_LIMIT_S, f"{name} took {took:.1f} s under IOSIM_FAST=1"

        # reproductions: the notebook's tolerances are the test's, and its errors within them
        lines = _run_probe(
            client,
            nb,
            "import json as _j\nprint('REPRO' + _j.dumps({k: globals().get(k) for k in "
            "('REPRO_TOLERANCE', 'REPRO_ERRORS')}, default=float))",
        )
        repro = _json_line(lines, "REPRO")
        expected = TOLERANCES.get(name)
        assert repro["REPRO_TOLERANCE"] == expected, (name, repro["REPRO_TOLERANCE"], expected)
        if expected:
            for exp, tols in expected.items():
                for metric, tol in tols.items():
                    err = repro["REPRO_ERRORS"][exp][metric]
                    assert err <= tol, f"{name} {exp} {metric}: {err:.3f} % > {tol} %"

        # the exercise checker accepts a right answer and rejects wrong ones
        right, wrong = ANSWERS[name]
        calls = [f"bool(check_answer({a}))" for a in right + wrong]
        lines = _run_probe(
            client, nb, "import json as _j\nprint('ANSWERS' + _j.dumps([" + ", ".join(calls) + "]))"
        )
        verdicts = _json_line(lines, "ANSWERS")
        assert verdicts == [True] * len(right) + [False] * len(wrong), (name, verdicts)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_committed_clean(path):
    """No outputs, only `iosim` imported, and an exercise with its check at the end."""
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    for cell in code:
        assert cell.outputs == [] and cell.execution_count is None, "strip outputs"
        tree = ast.parse(cell.source)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
                assert all(n == "iosim" or n.startswith("iosim.") for n in names), names
            elif isinstance(node, ast.ImportFrom):
                assert node.module == "iosim" or node.module.startswith("iosim."), node.module
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# ")
    assert "def check_answer" in "\n".join(c.source for c in code), "exercise checker missing"
    assert "check_answer(" in code[-1].source, "the notebook must end with its exercise check"
    assert path.stem in ANSWERS, f"add {path.stem} to ANSWERS"


def test_readme_lists_every_notebook():
    readme = (NB_DIR / "README.md").read_text(encoding="utf-8")
    for path in NOTEBOOKS:
        assert path.name in readme, f"{path.name} missing from notebooks/README.md"

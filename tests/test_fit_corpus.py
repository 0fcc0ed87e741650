"""Every real result in, or a clear refusal: each file of the shared corpus of real tool outputs
(../shared/corpus, read in place) goes through ``iosim parse`` and ``iosim fit`` with exit 0 or
one line on stderr and exit 2, never a traceback."""

import contextlib
import io
from pathlib import Path

import pytest

from iosim.cli import main
from iosim.fit import load_curve

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
FILES = sorted(p for p in CORPUS.glob("*/*") if p.is_file() and p.name != "README.md") \
    if CORPUS.is_dir() else []

pytestmark = pytest.mark.skipif(not FILES, reason="shared corpus not available")


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)
    return rc, err.getvalue().strip()


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_parse_and_fit_every_corpus_file(path):
    # a cheap fit (one parameter, short verifying runs): the point is what goes in
    for argv in (["parse", str(path)],
                 ["fit", str(path), "--model", "hdd", "--params", "device.service",
                  "--ios", "200"]):
        rc, err = _run(argv)
        assert rc in (0, 2), (argv, rc, err)
        if rc == 2:
            assert err.startswith("error: ") and "\n" not in err, (argv, err)
            assert "Traceback" not in err


def _one(pattern):
    got = sorted(CORPUS.glob(pattern))
    if not got:
        pytest.skip(f"{pattern} not in the corpus")
    return got[0]


def test_iostat_intervals_are_points():
    curve = load_curve([_one("iostat/iostat-x-sysstat11.7.3-el8-*.txt")])
    assert len(curve.points) > 5
    for r in curve.points:
        assert r.lat_mean_s > 0 and r.params["iodepth"] >= 1
        assert r.params["iodepth"] >= r.aqu_sz - 0.05  # ceil(aqu-sz): the rest is host time
        assert r.iops is None  # an interval's IOPS follow the application, not the device


@pytest.mark.parametrize("pattern, why", [
    ("fio-logs/fio31-mx200-sweep-depth16_clat.1.log", "fio log"),
    ("iostat/iostat-plain-tps-no-x-sandisk.txt", "without -x"),
    ("vdbench/parm-4hosts-32sd-inline-comments.vdb", "describes workloads"),
    ("fio-terse/fio341-windows-terse-v3-qd-sweep-with-header-line.txt", "I/O depth"),
    ("fio-json/fio214-pkb-5jobs-seq-rand-parallel.json", "I/O depth"),
    ("fio-json/fio217-pkb-rand16k-2jobs-nj2-no-diskutil.json", "mix workloads"),
])
def test_refusals_say_why(pattern, why):
    rc, err = _run(["fit", str(_one(pattern)), "--model", "generic", "--ios", "200"])
    assert rc == 2 and why in err, err


def test_vdbench_iorate_runs_are_open_loops_or_saturated_closed_loops():
    rc, err = _run(["fit", str(_one("vdbench/vdb50401-2hosts-51wd-3rd-summary.html")),
                    "--model", "hdd", "--ios", "500"])
    assert rc == 0, err


def test_parse_prints_a_parameter_file():
    rc, err = _run(["parse", str(_one("vdbench/parm-4hosts-32sd-inline-comments.vdb"))])
    assert rc == 0, err

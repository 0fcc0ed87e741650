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


def _sweep(pattern):
    return load_curve(sorted((CORPUS / "fio-json").glob(pattern)))


def test_real_sweeps_no_queueing_model_follows_are_named():
    # the MX200's depth 4 under its neighbours' chord; the NVMe numjobs sweep falling at 64
    # jobs while its jobs' CPU time per I/O grows (the host's CPUs); the md RAID: nothing
    from iosim.fit import _points, checks

    cases = {"fio31-mx200-randread-qd*-nj1.json": ([("dip", 4)], False),
             "fio333-nvme-iouring-randwrite-qd1-nj*-perjob-sweep.json": ([("fall", 64)], True),
             "fio218-md127-raid-randread-qd*-nj1.json": ([], False)}
    for pattern, (shape, cpu) in cases.items():
        pts = _points(_sweep(pattern), None)
        found = checks.shape_findings(pts, checks.DEFAULT_SPREAD)
        assert [(f[0], f[1]) for f in found] == shape, pattern
        assert bool(checks.host_cpu(pts, checks.DEFAULT_SPREAD)) is cpu, pattern


def test_auto_on_the_nvme_sweep_says_why_it_chose():
    from iosim.fit import fit

    res = fit(_sweep("fio333-nvme-iouring-randwrite-qd1-nj*-perjob-sweep.json"), model="auto",
              holdout={"numjobs": [2, 4, 16, 32]}, verify=False, percentiles=False)
    # the cross-validation on three depths cannot tell ssd from cloud; the device can
    assert res.model == "ssd" and "nvme0n1" in res.notes[0] and "tied with" in res.notes[0]


def test_the_nvme_sweep_tries_a_host_cpu_pool_and_says_it_does_not_bind():
    # fio's usr + sys grow per I/O with the jobs: the host's CPUs are tried as a pool, at least
    # the 4 the benchmark kept busy (3.9) and at most the 64 jobs. The fitted host gap is about
    # a microsecond (the depth-1 point: 1 / IOPS - latency), so 4 CPUs cap far above 400k IOPS:
    # the pool does not bind and the model is fitted without it
    from iosim.fit import fit

    res = fit(_sweep("fio333-nvme-iouring-randwrite-qd1-nj*-perjob-sweep.json"), model="ssd",
              holdout={"numjobs": [2, 4, 16, 32]}, verify=False, percentiles=False)
    note = next(n for n in res.notes if n.startswith("host.cpus"))
    assert "assumed 4 .. 64" in note and "the pool did not bind" in note
    assert "host.cpus" not in res.params

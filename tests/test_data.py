"""The reference data under data/: structure, transcription and the published figures."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data"
SEEDS = Path("/work/shared/seeds")
SEED_NAME = re.compile(r"\b00[0-4]_[0-9a-f]{16}\.txt\b")
FOLDERS = sorted(p for p in DATA.iterdir() if p.is_dir())
CSVS = sorted(DATA.glob("*/*.csv"))
UNIT_SUFFIX = ("_ms", "_us", "_s", "_bytes", "_pct", "_MiBps", "_MBps", "_KiBps")


def _rows(path: Path) -> list[dict]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def _col(path: Path, name: str) -> list[float | None]:
    return [float(r[name]) if r[name] != "" else None for r in _rows(path)]


def test_every_experiment_has_a_folder():
    names = {p.name for p in FOLDERS}
    for i in range(1, 12):
        assert any(n.startswith(f"e{i:02d}_") for n in names), f"no folder for E{i}"
    assert any(n.startswith("measured_") for n in names)


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_folder_readme_names_its_source(folder):
    readme = folder / "README.md"
    assert readme.is_file(), f"{folder.name} has no README.md"
    text = readme.read_text(encoding="utf-8")
    assert "**Source:**" in text
    if folder.name.startswith("measured_"):
        assert "measured for iosim" in text
    else:
        assert SEED_NAME.search(text), f"{folder.name}/README.md names no seed file"
    # every data file of the folder is mentioned in its README (or covered by a pattern)
    for f in folder.iterdir():
        if f.name == "README.md":
            continue
        stem = re.sub(r"(threads|qd)\d+", r"\1", f.name)
        assert f.name in text or stem.split(".")[0][:12] in text, f"{f.name} not described"


def test_index_lists_every_folder():
    text = (DATA / "README.md").read_text(encoding="utf-8")
    for folder in FOLDERS:
        assert f"`{folder.name}/`" in text


@pytest.mark.parametrize("path", CSVS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_csv_tables_are_well_formed(path):
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    header, body = rows[0], rows[1:]
    assert body, "no rows"
    assert len(set(header)) == len(header)
    for col in header:
        assert re.fullmatch(r"[a-z][a-z0-9_]*(_(MiBps|MBps|KiBps|rkB_per_s))?", col), col
    for i, row in enumerate(body, start=2):
        assert len(row) == len(header), f"line {i}: {len(row)} cells, header {len(header)}"
        for col, cell in zip(header, row, strict=True):
            if cell and (col.endswith(UNIT_SUFFIX) or col in ("iops", "threads", "qd")):
                float(cell)  # a number where the column says it has a unit


def test_e01_e02_figures():
    t = DATA / "e01_vdbench_allflash" / "threads.csv"
    assert _col(t, "threads") == [1, 2, 3, 4]
    assert _col(t, "iops") == [1782.98, 4274.60, 6450, 8520]
    assert _col(t, "lat_mean_ms") == [0.507, 0.460, 0.459, 0.463]
    assert _col(t, "qd_avg")[:2] == [0.9, 2.0]
    h = DATA / "e02_hba_queue_depth" / "host_latency.csv"
    assert _col(h, "threads") == list(range(2, 11))
    assert _col(h, "lat_mean_ms") == [0.462, 0.461, 0.463, 0.554, 0.663, 0.775, 0.885, 0.997, 1.109]
    assert set(_col(h, "hba_queue_depth")) == {4}


def test_e06_e08_tables():
    e6 = DATA / "e06_hdd_queue_depth" / "iometer_sata_4k_randwrite.csv"
    assert _col(e6, "qd") == [1, 2, 4, 8, 16, 32, 64, 128, 256]
    assert _col(e6, "iops")[0] == 332.931525 and _col(e6, "lat_mean_ms")[-1] == 774.401781
    # one head: IOPS flat within 3 %, Little's law N = X R holds at every depth within 2 %
    for qd, x, r in zip(_col(e6, "qd"), _col(e6, "iops"), _col(e6, "lat_mean_ms"), strict=True):
        assert abs(x / 333 - 1) < 0.03
        assert x * r / 1000 == pytest.approx(qd, rel=0.02)
    e8 = DATA / "e08_raid0_12disks" / "iometer_raid0_4k_randwrite.csv"
    assert _col(e8, "iops")[:2] == [1215.995842, 4657.061317]
    assert _col(e8, "lat_mean_ms")[-1] == 46.401606
    fio = DATA / "e06_hdd_queue_depth" / "fio_sata_4k_randwrite.csv"
    row = _rows(fio)[0]
    assert (row["iops"], row["lat_mean_ms"], row["lat_p95_ms"], row["util_pct"]) == (
        "230",
        "4.3",
        "9.920",
        "98.58",
    )
    e7 = _rows(DATA / "e07_short_stroke" / "fio_sata_4k_randwrite_span.csv")
    assert e7[1]["iops"] == "568" and e7[1]["span_bytes"] == str(1024**3)


def test_e09_e10_figures():
    dd = _rows(DATA / "e09_dd_iostat" / "dd_iostat.csv")
    assert [r["w_per_s"] for r in dd] == ["16794.80", "380.60", "", "688.00"]
    assert dd[1]["avgrq_sz_sectors"] == "1024.00" and dd[3]["aqu_sz"] == "54.59"
    s = _rows(DATA / "e10_cloud_fio" / "summary.csv")
    assert [r["read_iops"] for r in s] == ["25089", "4991", "24992", "9107", "", ""]
    assert [r["write_iops"] for r in s] == ["8366", "1664", "", "", "9944", "3390"]
    for r in s:
        text = (DATA / "e10_cloud_fio" / r["file"]).read_text(encoding="utf-8")
        assert "fio-2.2.10" in text and f"util={r['util_pct']}%" in text
        if r["read_iops"]:
            assert f"iops={r['read_iops']}," in text


def test_e10_fio_outputs_are_verbatim():
    seed = SEEDS / "002_3ed2f7c9bbf80064.txt"
    if not seed.is_file():
        pytest.skip("the seed documents are not available on this machine")
    blocks = re.findall(r"```\n(.*?)```", seed.read_text(encoding="utf-8"), re.S)
    outputs = [b for b in blocks if b.startswith("test: (g=0)")]
    assert len(outputs) == 6
    files = sorted((DATA / "e10_cloud_fio").glob("fio-2.2.10_*.txt"))
    assert len(files) == 6
    contents = {f.read_text(encoding="utf-8") for f in files}
    assert contents == set(outputs)


def test_e10_fio_text_parses():
    traces = pytest.importorskip("iosim.traces", reason="iosim.traces is not available yet")
    read = getattr(traces, "read_fio_text", None)
    if read is None:
        pytest.skip("iosim.traces.read_fio_text is not available yet")
    for r in _rows(DATA / "e10_cloud_fio" / "summary.csv"):
        (pt,) = read(DATA / "e10_cloud_fio" / r["file"]).points
        if r["read_iops"]:
            assert pt.read_iops == pytest.approx(float(r["read_iops"]))
        if r["write_iops"]:
            assert pt.write_iops == pytest.approx(float(r["write_iops"]))
        assert pt.params.get("iodepth") == 64


def test_e11_table_matches_the_sysbench_outputs():
    t = DATA / "e11_sysbench_nvme" / "threads.csv"
    assert _col(t, "threads") == [1, 4, 16, 64, 256]
    assert _col(t, "iops") == [7113.16, 26248.44, 76845.96, 127840.59, 131558.79]
    assert _col(t, "lat_mean_ms") == [0.14, 0.15, 0.21, 0.50, 1.95]
    assert _col(t, "lat_p95_ms") == [0.17, 0.21, 0.36, 1.25, 3.89]
    assert _col(t, "util_pct") == [93.68, 99.92, 100.00, 100.24, None]
    for row in _rows(t):
        n = row["threads"]
        text = (DATA / "e11_sysbench_nvme" / f"sysbench_rndrd_threads{n}.txt").read_text()
        assert f"--threads={n} " in text
        assert re.search(rf"reads/s:\s+{re.escape(row['iops'])}\b", text)
        assert re.search(rf"avg:\s+{re.escape(row['lat_mean_ms'])}\b", text)
        assert "\u00a0" not in text
        io = (DATA / "e11_sysbench_nvme" / f"iostat_threads{n}.txt").read_text()
        assert io.startswith("Device:") and row["aqu_sz"] in io


def test_e11_sysbench_outputs_parse():
    traces = pytest.importorskip("iosim.traces", reason="iosim.traces is not available yet")
    read = getattr(traces, "read_sysbench", None)
    if read is None:
        pytest.skip("iosim.traces.read_sysbench is not available yet")
    for row in _rows(DATA / "e11_sysbench_nvme" / "threads.csv"):
        path = DATA / "e11_sysbench_nvme" / f"sysbench_rndrd_threads{row['threads']}.txt"
        (pt,) = read(path).points
        assert pt.iops == pytest.approx(float(row["iops"]))
        assert pt.lat_mean_s == pytest.approx(float(row["lat_mean_ms"]) / 1000)


def test_measured_sweep():
    folder = DATA / "measured_kvm_virtio"
    size = sum(f.stat().st_size for f in folder.iterdir())
    assert size < 2 * 1024**2
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert "--rw=randread --bs=4k" in readme and "--output-format=json+" in readme
    summary = _rows(folder / "summary.csv")
    depths = [1, 2, 4, 8, 16, 32, 64, 128, 256]
    assert [int(r["qd"]) for r in summary] == depths
    for qd, row in zip(depths, summary, strict=True):
        d = json.loads((folder / f"randread-4k-qd{qd}.json").read_text())
        assert d["fio version"].startswith("fio-3")
        (job,) = d["jobs"]
        opts = job["job options"]
        assert (opts["rw"], opts["bs"], opts["iodepth"]) == ("randread", "4k", str(qd))
        assert opts["direct"] == "1" and opts["ioengine"] == "libaio"
        assert "bins" in job["read"]["clat_ns"]  # json+
        assert float(row["iops"]) == pytest.approx(job["read"]["iops"], rel=1e-6)
        assert float(row["lat_mean_us"]) == pytest.approx(
            job["read"]["lat_ns"]["mean"] / 1e3, abs=0.1
        )
        # Little's law inside fio's own numbers: depth = IOPS x mean latency, within 10 %
        assert job["read"]["iops"] * job["read"]["lat_ns"]["mean"] * 1e-9 == pytest.approx(
            qd, rel=0.10
        )


def test_quiet_repeat_of_the_measured_sweep():
    """Run 1's files are what repeats.csv says of run 1, with run.sh's options; three runs of
    every depth; and the quiet machine's curve rises with the depth, as the loaded one did not."""
    folder = DATA / "measured_kvm_virtio_quiet"
    assert sum(f.stat().st_size for f in folder.iterdir()) < 256 * 1024
    rows = _rows(folder / "repeats.csv")
    depths = [1, 2, 4, 8, 16, 32, 64, 128, 256]
    for run in ("1", "2", "3"):
        assert sorted(int(r["qd"]) for r in rows if r["run"] == run) == depths
        assert all(float(r["load_avg_1min"]) < 1.0 for r in rows if r["run"] == run)
    for row in (r for r in rows if r["run"] == "1"):
        d = json.loads((folder / row["file"]).read_text())
        (job,) = d["jobs"]
        opts = job["job options"]
        assert (opts["rw"], opts["bs"], opts["iodepth"]) == ("randread", "4k", row["qd"])
        assert float(row["iops"]) == pytest.approx(job["read"]["iops"], abs=0.1)
        assert job["read"]["iops"] * job["read"]["lat_ns"]["mean"] * 1e-9 == pytest.approx(
            int(row["qd"]), rel=0.10)
    run1 = [float(r["iops"]) for r in rows if r["run"] == "1"]
    assert all(b > a for a, b in zip(run1[:-1], run1[1:], strict=True))  # monotone in the depth


LAYOUT_FILES = sorted(p for folder in ("measured_fio_layouts", "measured_iostat_layouts",
                                       "measured_sysbench_layouts")
                      for p in (DATA / folder).iterdir()
                      if p.suffix in (".json", ".txt"))


@pytest.mark.parametrize("path", LAYOUT_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_tool_layout_parses(path, capsys):
    """Each output layout measured for the readers goes through `iosim parse` as it would for
    a user: exit 0 and a table with a row."""
    from iosim.cli import main

    assert main(["parse", str(path)]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) >= 2

"""``iosim validate``: calibration tables, the spanning protocol, determinism, and a check that
docs/validation.md is what the current code produces (so the document cannot go stale
silently). The full run takes about 1.5 minutes; these tests run only its cheap rows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import iosim
from iosim import cli, validate

DOC = Path(__file__).resolve().parents[1] / "docs" / "validation.md"
PRESETS = Path(iosim.presets.__file__).parent
# fast-engine reproductions and one small fit: a few seconds together
# (and the Atlas 10K trace replay, a second on the fast engine)
CHEAP = ["E2", "E4", "E9", "E10-ssd", "E10-capacity", "E1-table", "atlas10k"]


@pytest.fixture(scope="module")
def cheap_report():
    return validate.run(only=CHEAP)


def test_spanning_depths():
    assert validate.spanning_depths([1, 2, 4, 8, 16, 32, 64]) == [1, 8, 64]
    assert validate.spanning_depths([1, 2, 4, 8, 16, 32, 64, 128]) == [1, 16, 128]
    assert validate.spanning_depths([1, 2, 4, 8, 16, 32, 64, 128, 256]) == [1, 16, 256]
    assert validate.spanning_depths([4, 1, 256, 16, 64]) == [1, 16, 256]
    assert validate.spanning_depths([1, 2, 3, 4]) == [1, 2, 4]
    assert validate.spanning_depths([2, 8]) == [2, 8]


@pytest.mark.parametrize("name", iosim.presets.names())
def test_every_preset_says_what_was_calibrated(name):
    table = iosim.presets.calibration(name)
    assert isinstance(table.get("summary"), str) and 10 < len(table["summary"]) <= 120
    stack = iosim.presets.stack(name)
    flat = _flat(stack.to_dict())
    for key, entry in table.items():
        if key == "summary":
            continue
        assert key in flat, f"{name}: [calibration] names {key!r}, not a stack parameter"
        assert {"data", "points", "how"} <= set(entry), (name, key)
        assert re.fullmatch(r"E\d+", entry["data"]), (name, key)
        assert entry["points"] and all(isinstance(p, str) for p in entry["points"])


def _flat(d: dict, prefix: str = "") -> set[str]:
    out = set()
    for k, v in d.items():
        out.add(prefix + k)
        if isinstance(v, dict):
            out |= _flat(v, prefix + k + ".")
    return out


def test_every_calibrated_point_is_a_measured_point():
    """A label in a [calibration] table that no reproduction measures would silently turn a
    calibrated point into a 'predicted' one."""
    measured: dict[tuple[str, str], set[str]] = {}
    for spec in validate.REPRODUCTIONS:
        labels = measured.setdefault((spec.preset, spec.experiment), set())
        if spec.custom is not None:  # E3's knee: a figure, not table rows
            continue
        for rows in spec.rows:
            labels |= {label for label, _ in validate._measured_points(rows, validate.DATA)}
    for name in iosim.presets.names():
        for key, entry in iosim.presets.calibration(name).items():
            if key == "summary":
                continue
            exp = entry["data"]
            # presets of one device share their calibration (E2's Z is also the 4-path LUN's)
            known = set().union(*(v for (_, e), v in measured.items() if e == exp))
            missing = set(entry["points"]) - known
            assert not missing, f"{name}: {key} calibrated on {missing}, which {exp} never runs"


def test_presets_cite_sources_not_paths_outside_the_repository():
    for path in sorted(PRESETS.glob("*.toml")):
        text = path.read_text(encoding="utf-8")
        for bad in ("/work/", "../shared", "shared/reference", "device-parameters.md"):
            assert bad not in text, f"{path.name} cites {bad!r}"
        assert not re.search(r"\bseed 0\d\d", text), f"{path.name} cites a seed file"
        keys = set(re.findall(r"\[([A-Z][A-Z0-9-]+)\]", text))
        for k in keys:  # every source key used is spelled out in the file's Sources block
            assert re.search(rf"^# \[{re.escape(k)}\] \S", text, re.M), (path.name, k)


def test_calibrated_points_are_reported_apart(cheap_report):
    by_key = {r.spec.key: r for r in cheap_report.reproductions}
    ssd = {p.label: p for p in by_key["E10-ssd"].points}
    assert ssd["rw=randread"].calibrated == ("read_iops",)
    assert "util" in ssd["rw=randread"].predicted
    assert ssd["rw=randrw"].calibrated == ()
    assert by_key["E10-ssd"].errors("read_iops", calibrated=False)  # the mix's reads
    e2 = {p.label for p in by_key["E2"].points if p.calibrated}
    assert e2 == {f"threads={n}" for n in range(5, 11)}
    (fit_row,) = cheap_report.fits
    assert fit_row.train == [1, 2, 4]
    assert {p["set"] for p in fit_row.points if p["numjobs"] == 3} == {"holdout"}


def test_output_is_deterministic(cheap_report):
    again = validate.run(only=CHEAP)
    assert again.to_markdown() == cheap_report.to_markdown()


def test_the_document_is_what_the_code_produces(cheap_report):
    """Every line the cheap rows produce (summary rows and their point-by-point sections)
    appears verbatim in docs/validation.md: regenerate it with `iosim validate -o
    docs/validation.md` after changing a preset, the engine or the fit."""
    doc = DOC.read_text(encoding="utf-8")
    mine = cheap_report.to_markdown()
    for line in mine.splitlines():
        if "skipped:" in line:  # (a trace row without ../shared)
            continue
        if line.startswith("| ") and not line.startswith("| experiment") and \
                not line.startswith("| data set") and not line.startswith("| point") and \
                not line.startswith("| trace"):
            assert line in doc, f"docs/validation.md is stale; regenerate it. Missing:\n{line}"
    for rr in cheap_report.reproductions:
        head = f"### {rr.spec.key}: {rr.spec.title}"
        start = mine.index(head)
        end = min(i for i in (mine.find("\n### ", start + 1), mine.find("\n## ", start + 1))
                  if i > 0)
        assert mine[start:end] in doc, f"docs/validation.md is stale for {rr.spec.key}"
    assert doc.startswith("# Validation")
    assert "Generated by `iosim validate -o docs/validation.md`" in doc


def test_the_trace_row_replays_the_measured_drive(cheap_report):
    """The Atlas 10K row: every request of DiskSim's validation trace compared; the demerit is
    the figure tests/test_replay.py bounds (within twice DiskSim's own 0.268 ms)."""
    (tr,) = cheap_report.traces
    if tr.skipped:
        pytest.skip(tr.skipped)
    assert tr.n == 10_000 and tr.engine == "fast"
    assert 0 < tr.demerit_s <= 2 * tr.spec.reference_demerit_s
    assert abs(tr.demerit_frac - tr.demerit_s / tr.measured["mean_s"]) < 1e-12
    text = "\n".join(validate.trace_markdown([tr]))
    assert f"| atlas10k | `hdd-atlas10k` | validate | 10,000 | {tr.measured['mean_s'] * 1e3:.3f}" \
        in text


def test_cli_refuses_an_unknown_row_in_one_line(capsys):
    assert cli.main(["validate", "--only", "E99"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "unknown row 'E99'" in err


def test_cli_writes_the_report(tmp_path, capsys):
    out = tmp_path / "v.md"
    assert cli.main(["validate", "--only", "E4", "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "| E4 | `cloud-essd-1m` | derivation |" in text


def test_a_new_model_plugs_in_by_name():
    fs = next(f for f in validate.FIT_SETS if f.name == "E1-table")
    row = validate.run_fit_set(fs, model="ssd", quick=True)
    assert row.model == "ssd" and row.points


def _table(name: str) -> list[dict]:
    return validate.read_rows(validate.DATA / name)


def test_closed_form_calibrations_follow_from_the_data():
    """Where a preset's [calibration] gives a formula, the preset's value is that formula on
    the data under data/ (to the digits the preset keeps), so a preset cannot drift from the
    points it says it was fitted on."""
    e1 = {int(r["threads"]): r for r in _table("e01_vdbench_allflash/threads.csv")}
    z = 1 / float(e1[1]["iops"]) - float(e1[1]["lat_mean_ms"]) / 1e3
    assert iosim.presets.stack("allflash-lun").host.overhead.mean_s == pytest.approx(z, rel=0.01)
    s = sum(float(e1[n]["lat_mean_ms"]) for n in (2, 3, 4)) / 3e3
    for name in ("allflash-lun", "allflash-lun-qd4", "allflash-lun-4path"):
        assert iosim.presets.stack(name).device.service.mean_s == pytest.approx(s, rel=0.005)
    (fio1, _) = _table("e06_hdd_queue_depth/fio_sata_4k_randwrite.csv")
    z = float(fio1["lat_mean_ms"]) / 1e3 * (100 / float(fio1["util_pct"]) - 1)
    assert iosim.presets.stack("hdd-sata-fio").host.overhead.mean_s == pytest.approx(z, rel=0.01)
    e11 = _table("e11_sysbench_nvme/threads.csv")[0]
    z = (1 - float(e11["util_pct"]) / 100) / float(e11["iops"])
    assert iosim.presets.stack("nvme-intel-750").host.overhead.mean_s == pytest.approx(z, rel=0.01)
    e8 = {int(r["qd"]): float(r["lat_mean_ms"]) / 1e3
          for r in _table("e08_raid0_12disks/iometer_raid0_4k_randwrite.csv")}
    raid = iosim.presets.stack("raid0-12x-hdd-wbc").device
    assert raid.controller_overhead_s == pytest.approx(e8[2], rel=0.002)
    assert raid.coalesce_timeout_s == pytest.approx(e8[1] - e8[2], rel=0.002)
    summary = _table("e10_cloud_fio/summary.csv")
    ioping = {r["volume"]: r for r in _table("e10_cloud_fio/ioping.csv")}
    for name, volume in (("cloud-qingcloud-ssd", "high-performance"),
                         ("cloud-qingcloud-capacity", "capacity")):
        dev = iosim.presets.stack(name).device
        runs = {r["rw"]: r for r in summary if r["volume"] == volume}
        assert dev.read_iops_limit == float(runs["randread"]["read_iops"])
        assert dev.write_iops_limit == float(runs["randwrite"]["write_iops"])
        mean, mdev = (float(ioping[volume][k]) / 1e6 for k in ("lat_mean_us", "lat_mdev_us"))
        assert dev.latency.mean_s == pytest.approx(mean)
        assert dev.latency.scv == pytest.approx((mdev / mean) ** 2, abs=0.001)


def test_a_model_that_refuses_a_sweep_skips_its_row_and_the_run_goes_on(tmp_path):
    """`iosim validate --model generic` meets the read/write-mix sweep, which one service time
    cannot fit: that row says why, the other rows still run."""
    out = tmp_path / "v.md"
    assert cli.main(["validate", "--quick", "--model", "generic", "--only",
                     "kvm-virtio-rwmix,E4", "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| kvm-virtio-rwmix |"))
    assert "skipped: model generic refuses this sweep: fit: the fitted points mix" in row
    assert "| E4 | `cloud-essd-1m` | derivation |" in text


def test_a_measured_trace_replays_through_a_stack_fitted_on_another_sweep():
    """The fio-logged trace of data/measured_kvm_virtio_trace through the stack `iosim fit`
    makes of the open-loop rate sweep (it never sees the trace): every request compared, and
    the row is the one docs/validation.md shows."""
    from iosim.validate_traces import TRACE_ROWS, run_trace_row, trace_markdown

    (row,) = [r for r in TRACE_ROWS if r.key == "kvm-trace-10k-open"]
    tr = run_trace_row(row)
    assert tr.n == 10_142 and tr.fitted and not tr.skipped
    assert tr.measured["mean_s"] == pytest.approx(83.7e-6, abs=0.05e-6)  # fio's JSON: 83.7 us
    line = next(t for t in trace_markdown([tr]) if t.startswith("| kvm-trace-10k-open"))
    assert line in DOC.read_text(encoding="utf-8"), "docs/validation.md is stale; regenerate it"


def test_a_measured_trace_predicts_its_second_half_from_its_first():
    """The 10,000/s fio trace calibrated on its first half (`iosim replay --fit auto`): only
    the second half's requests are compared, and the row is the one docs/validation.md shows."""
    from iosim.validate_traces import TRACE_ROWS, run_trace_row, trace_markdown

    (row,) = [r for r in TRACE_ROWS if r.key == "kvm-trace-10k-from-10k"]
    tr = run_trace_row(row)
    assert tr.n == 10_142 - 10_142 // 2 and tr.fitted and not tr.skipped
    line = next(t for t in trace_markdown([tr]) if t.startswith("| kvm-trace-10k-from-10k"))
    assert line in DOC.read_text(encoding="utf-8"), "docs/validation.md is stale; regenerate it"

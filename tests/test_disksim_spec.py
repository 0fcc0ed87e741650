"""DiskSim drive descriptions read into HDD stacks (iosim/traces/disksim_spec.py).

The reference is the hand-made preset ``hdd-atlas10k``, whose comments say which DiskSim
parameter became which field: the Atlas 10K's own files (read in place from ../shared) must
give the same device, and the same replay of the drive's validation trace."""

from __future__ import annotations

import math
import re
import shutil
from pathlib import Path

import pytest

from iosim import presets
from iosim.cli import main
from iosim.stack import load_toml
from iosim.traces import TraceFormatError
from iosim.traces.disksim_spec import import_disksim_drive, read_disksim_drive

VALID = Path(__file__).resolve().parents[2] / "shared" / "blocktraces" / "disksim-validate"
PARV = VALID / "atlas10k.parv"
TRACE = VALID / "quantum-atlas10k-dixtrac.trace"
# DiskSim 4.0 valid/runvalid: "QUANTUM_TORNADO (rms should be about 0.268)", in ms
DISKSIM_ATLAS_RMS_S = 0.268e-3
needs_shared = pytest.mark.skipif(not PARV.exists(),
                                  reason="the shared block-trace corpus is absent")


def _copy_atlas(tmp_path: Path) -> Path:
    for ext in ("parv", "diskspecs", "model", "seek"):
        shutil.copyfile(VALID / f"atlas10k.{ext}", tmp_path / f"atlas10k.{ext}")
    return tmp_path / "atlas10k.parv"


def _edit(path: Path, pattern: str, repl: str, count: int = 1) -> None:
    text = path.read_text()
    new, n = re.subn(pattern, repl, text, count=count)
    assert n, f"{pattern!r} not in {path.name}"
    path.write_text(new)


def _line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def read_disksim_drive_quiet(path):
    with pytest.warns(UserWarning):
        return read_disksim_drive(path).device


# -- the Atlas 10K: the preset is the reference ------------------------------------------------


@needs_shared
def test_the_atlas_description_gives_the_presets_device_field_by_field():
    got = import_disksim_drive(PARV).stack
    ref = presets.load("hdd-atlas10k")[0]
    a, b = got.device.to_dict(), ref.device.to_dict()
    assert a.keys() == b.keys()
    for key in b:
        if key == "seek_curve":
            assert len(a[key]) == len(b[key]) == 138
            for (d1, t1), (d2, t2) in zip(a[key], b[key], strict=True):
                assert d1 == d2 and t1 == pytest.approx(t2, rel=1e-12), key
        elif isinstance(b[key], float):  # the preset rounds rates to the cent, times to 1 us
            assert a[key] == pytest.approx(b[key], rel=1e-9), key
        else:
            assert a[key] == b[key], key
    for section in ("host", "block", "hba", "multipath", "link"):
        assert getattr(got, section) == getattr(ref, section), section


@needs_shared
def test_the_diskspecs_alone_gives_the_same_device_as_the_parv():
    assert read_disksim_drive_quiet(VALID / "atlas10k.diskspecs") == import_disksim_drive(
        PARV).stack.device


@needs_shared
def test_what_iosim_does_not_model_is_named_in_the_notes():
    notes = " | ".join(import_disksim_drive(PARV).notes)
    for words in ("24 in the description", "slipped and spare", "atlas10k.seek",
                  "write-miss overheads (0.34492 / 0.49673 ms)", "10 segments of 374 blocks",
                  "Buffer continuous read = 4"):
        assert words in notes, words


@needs_shared
def test_replaying_the_validation_trace_on_the_imported_drive_matches_the_preset():
    from iosim.replay import replay
    from iosim.traces import read_block_trace

    t = read_block_trace(TRACE, format="disksim-validate")
    imported = replay(t, import_disksim_drive(PARV).stack, mode="validate").comparison
    preset = replay(t, presets.load("hdd-atlas10k")[0], mode="validate").comparison
    # the same device within the preset's rounding: the same figure (0.128 ms in
    # tests/test_replay.py; DiskSim's own is 0.268 ms)
    assert imported.demerit_s == pytest.approx(preset.demerit_s, rel=1e-3)
    assert imported.demerit_s <= 2 * DISKSIM_ATLAS_RMS_S


@needs_shared
def test_cli_replays_on_the_drive_and_writes_its_stack(tmp_path, capsys):
    out = tmp_path / "drive.toml"
    assert main(["drive", str(PARV), "-o", str(out)]) == 0
    stack, _ = load_toml(out)
    assert stack == import_disksim_drive(PARV).stack
    capsys.readouterr()
    assert main(["replay", str(TRACE), "--format", "disksim-validate", "--drive", str(PARV),
                 "--mode", "validate", "--compare", "--max-requests", "500"]) == 0
    text = capsys.readouterr().out
    assert "on disksim-atlas10k" in text and "demerit" in text and "Note: atlas10k.parv" in text
    assert main(["replay", str(TRACE), "--drive", str(PARV), "--preset", "hdd-7200"]) == 2
    assert "--drive replaces" in capsys.readouterr().err


@needs_shared
def test_run_and_plan_take_a_description_as_stack_and_replay_json_keeps_its_notes(capsys):
    import json

    for how in ("--stack", "--drive"):
        assert main(["run", how, str(PARV), "--numjobs", "2", "--ios", "2000"]) == 0
        out = capsys.readouterr()
        assert out.out.startswith("disksim-atlas10k: randread") and "span 8.554 GiB" in out.out
        assert "read as a DiskSim drive description (" in out.err and out.err.count("\n") == 1
    assert main(["plan", "--trace", str(TRACE), "--drive", str(PARV), "--latency", "20ms"]) == 0
    assert "p99" in capsys.readouterr().out
    assert main(["run", "--drive", str(PARV), "--preset", "hdd-7200"]) == 2
    assert "--drive replaces" in capsys.readouterr().err
    assert main(["replay", str(TRACE), "--drive", str(PARV), "--max-requests", "200",
                 "--json"]) == 0
    notes = json.loads(capsys.readouterr().out)["drive_notes"]
    assert notes == [f"atlas10k.parv: {n}" for n in import_disksim_drive(PARV).notes]


# -- synthetic variants of the description change the fields they name ----------------------


@needs_shared
def test_edited_rpm_seek_file_and_zones_change_their_fields(tmp_path):
    parv = _copy_atlas(tmp_path)
    base = import_disksim_drive(parv).stack.device
    _edit(tmp_path / "atlas10k.model", r"Rotation speed \(in rpms\) = 10025",
          "Rotation speed (in rpms) = 15000")
    _edit(tmp_path / "atlas10k.model", r"Blocks per track = 334", "Blocks per track = 400")
    _edit(tmp_path / "atlas10k.seek", r"10021,\s*10\.82800", "10021,\t12.00000")
    _edit(tmp_path / "atlas10k.diskspecs", r"Scheduling policy = 1", "Scheduling policy = 8")
    _edit(tmp_path / "atlas10k.diskspecs", r"Max queue length = 1", "Max queue length = 16")
    _edit(tmp_path / "atlas10k.diskspecs", r"Fast write level = 2", "Fast write level = 0")
    _edit(tmp_path / "atlas10k.diskspecs", r"Read any free blocks = 1", "Read any free blocks = 0")
    _edit(tmp_path / "atlas10k.diskspecs", r"Buffer continuous read = 4",
          "Buffer continuous read = 0")
    drive = import_disksim_drive(parv)
    dev = drive.stack.device
    assert dev.rpm == 15000 and base.rpm == 10025
    assert dev.media_rate_od_Bps == pytest.approx(400 * 512 * 15000 / 60)
    assert dev.media_rate_id_Bps == pytest.approx(229 * 512 * 15000 / 60)
    assert dev.seek_curve[-1] == (10021, pytest.approx(0.012))
    assert dev.seek_curve[:-1] == base.seek_curve[:-1]
    assert dev.scheduler == "sptf" and dev.queue_depth == 16 == drive.stack.hba.queue_depth
    assert dev.write_cache_entries == 0 and base.write_cache_entries == 1
    assert not dev.read_free_blocks and base.read_free_blocks
    assert not dev.read_ahead_track_end and base.read_ahead_track_end
    assert any("Scheduling policy = 8 (SPTF_OPT): iosim uses sptf" in n for n in drive.notes)


@needs_shared
def test_a_slow_bus_under_the_disk_sets_the_interface_rate_as_in_disksim(tmp_path):
    """DiskSim's disk_get_blktranstime: a block moves at the slower of the disk's bulk sector
    transfer time and the block transfer time of the bus the disk hangs from (here bus1,
    instantiated as BUS1); a slow bus elsewhere in the topology is only noted."""
    parv = _copy_atlas(tmp_path)
    base = import_disksim_drive(parv)
    assert base.stack.device.interface_Bps == pytest.approx(512 / 0.099e-3)
    assert not any(n.startswith("interface:") for n in base.notes)
    bus1 = r"(disksim_bus BUS1 \{[^}]*?)Read block transfer time = 0\.0,\s*" \
           r"Write block transfer time = 0\.0"
    _edit(parv, bus1, r"\1Read block transfer time = 0.17010,\n  "
          r"Write block transfer time = 0.18686")
    drive = import_disksim_drive(parv)
    assert drive.stack.device.interface_Bps == pytest.approx(512 / 0.17010e-3)
    note = next(n for n in drive.notes if n.startswith("interface:"))
    assert "BUS1" in note and "0.1701" in note and "writes differ" in note
    assert not any("BUS1: Read block transfer time" in n for n in drive.notes)
    # the same times on BUS0 (driver to controller) leave the disk's rate alone, with a note
    (tmp_path / "b0").mkdir()
    parv2 = _copy_atlas(tmp_path / "b0")
    bus0 = bus1.replace("BUS1", "BUS0")
    _edit(parv2, bus0, r"\1Read block transfer time = 0.17010,\n  "
          r"Write block transfer time = 0.18686")
    drive0 = import_disksim_drive(parv2)
    assert drive0.stack.device.interface_Bps == pytest.approx(512 / 0.099e-3)
    assert any("BUS0: Read block transfer time = 0.17010 is not modelled" in n
               for n in drive0.notes)


@needs_shared
def test_a_linear_seek_type_uses_the_fitted_curve_through_its_three_times(tmp_path):
    parv = _copy_atlas(tmp_path)
    _edit(tmp_path / "atlas10k.model", r"Seek type = extracted",
          "Seek type = linear,\n      Average seek time = 5.2")
    dev = import_disksim_drive(parv).stack.device
    assert dev.seek_curve == () and dev.avg_seek_s == pytest.approx(5.2e-3)
    assert dev.track_to_track_s == pytest.approx(1.245e-3)
    assert dev.full_stroke_s == pytest.approx(10.828e-3)


# -- bad input: one line naming the file and the line ------------------------------------------


@needs_shared
def test_a_missing_source_file_names_the_file_and_line_that_sources_it(tmp_path):
    parv = _copy_atlas(tmp_path)
    specs = tmp_path / "atlas10k.diskspecs"
    _edit(specs, r"source atlas10k\.model", "source nowhere.model")
    with pytest.raises(TraceFormatError) as e:
        import_disksim_drive(parv)
    assert e.value.path == str(specs) and e.value.line == _line_of(specs, "nowhere.model")
    assert "'nowhere.model' not found" in str(e.value)
    (tmp_path / "atlas10k.seek").unlink()
    _edit(specs, r"source nowhere\.model", "source atlas10k.model")
    with pytest.raises(TraceFormatError, match=r"atlas10k\.model:\d+: seek file 'atlas10k.seek'"):
        import_disksim_drive(parv)


@needs_shared
def test_a_non_numeric_value_names_file_line_and_parameter(tmp_path, capsys):
    parv = _copy_atlas(tmp_path)
    model = tmp_path / "atlas10k.model"
    _edit(model, r"Number of data surfaces = 6", "Number of data surfaces = six")
    line = _line_of(model, "surfaces = six")
    with pytest.raises(TraceFormatError) as e:
        import_disksim_drive(parv)
    assert str(e.value) == f"{model}:{line}: Number of data surfaces must be a number (got 'six')"
    assert main(["drive", str(parv)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"atlas10k.model:{line}" in err and "Traceback" not in err


@needs_shared
def test_a_truncated_block_says_which_block_is_not_closed(tmp_path):
    parv = _copy_atlas(tmp_path)
    specs = tmp_path / "atlas10k.diskspecs"
    lines = specs.read_text().splitlines(keepends=True)
    cut = _line_of(specs, "Scheduler = disksim_ioqueue") - 1
    specs.write_text("".join(lines[:cut]))  # cut inside the disksim_disk block
    with pytest.raises(TraceFormatError) as e:
        import_disksim_drive(parv)
    assert e.value.path == str(specs)
    assert f"opened at line {_line_of(specs, 'disksim_disk')} is not closed" in str(e.value)


# -- the grammar, on a small description of our own (no ../shared needed) ------------------


def _tiny(tmp_path: Path, seek_type: str = "extracted") -> Path:
    (tmp_path / "tiny.seek").write_text("Seek distances measured: 3\n1, 1.0\n100, 3.0\n999, 8.0\n")
    (tmp_path / "tiny.model").write_text(
        "dm_disk tiny.model {\n Number of data surfaces = 2, Number of cylinders = 1000,\n"
        " Block count = 200000,\n Mechanical Model = dm_mech_g1 {\n"
        f"  Access time type = trackSwitchPlusRotation, Seek type = {seek_type},\n"
        "  Single cylinder seek time = 1.0, Full seek curve = tiny.seek,\n"
        "  Full strobe seek time = 8.0, Add. write settling delay = 0.1,\n"
        "  Head switch time = 0.2, Rotation speed (in rpms) = 6000, Percent error in rpms = 0\n"
        " },\n Layout Model = dm_layout_g1 { Zones = [\n"
        "  dm_layout_g1_zone { First cylinder number = 500, Blocks per track = 80 },\n"
        "  dm_layout_g1_zone { First cylinder number = 0, Blocks per track = 120, "
        "slips = [ 1, 2,\n 3 ] }\n ] }\n}\n")
    (tmp_path / "tiny.diskspecs").write_text(
        "# a drive of our own\ndisksim_disk TINY {\n Model = source tiny.model,\n"
        " Bulk sector transfer time = 0.05, Max queue length = 4,\n"
        " Scheduler = disksim_ioqueue { Scheduling policy = 4 },\n"
        " Fast write level = 1, Maximum number of write segments = 3,\n"
        " Maximum read-ahead (blks) = 64, Time scale for overheads = 2.0,\n"
        " Read hit over. after read = 0.1, Read hit over. after write = 0.3,\n"
        " Mystery knob = 7\n}\n")
    return tmp_path / "tiny.diskspecs"


def test_a_small_description_of_our_own_maps_every_field(tmp_path):
    drive = import_disksim_drive(_tiny(tmp_path))
    dev = drive.stack.device
    assert dev.rpm == 6000 and dev.heads == 2 and dev.capacity_bytes == 200000 * 512
    # zones sorted by cylinder: the outermost holds 120 blocks a track, the innermost 80
    assert dev.media_rate_od_Bps == pytest.approx(120 * 512 * 100)
    assert dev.media_rate_id_Bps == pytest.approx(80 * 512 * 100)
    assert dev.seek_curve == ((1, 1e-3), (100, 3e-3), (999, 8e-3))
    assert dev.seek_curve_cylinders == 1000
    assert dev.write_settle_s == pytest.approx(1e-4) and dev.head_switch_s == pytest.approx(2e-4)
    assert dev.interface_Bps == pytest.approx(512 / 0.05e-3)
    assert dev.read_hit_overhead_s == pytest.approx(2 * 0.2e-3)  # mean, times the scale
    assert dev.queue_depth == 4 and dev.scheduler == "sptf"
    assert dev.write_cache_entries == 3 and dev.read_ahead_bytes == 64 * 512
    assert dev.track_to_track_s <= dev.avg_seek_s <= dev.full_stroke_s
    notes = " | ".join(drive.notes)
    assert "Mystery knob = 7" in notes and "SSTF_LBN" in notes and "Fast write level = 1" in notes
    assert math.isinf(drive.stack.link.bandwidth_Bps)


@pytest.mark.parametrize("edit, line, words", [
    (("Max queue length = 4", "Max queue length = 4 4 4"), 4, "Max queue length must be a number"),
    (("Max queue length = 4,", "Max queue length = 4"), 5, "expected ',' or '}'"),
    (("Model = source tiny.model", "Model = source"), 3, "'source' needs a file name"),
    (("Scheduling policy = 4", "Scheduling policy = 40"), 5, "Scheduling policy must be 1..21"),
])
def test_small_description_errors_name_file_and_line(tmp_path, edit, line, words):
    path = _tiny(tmp_path)
    path.write_text(path.read_text().replace(*edit))
    with pytest.raises(TraceFormatError) as e:
        import_disksim_drive(path)
    assert e.value.path == str(path) and e.value.line == line, str(e.value)
    assert words in str(e.value)


def test_an_hpl_seek_equation_is_tabulated_and_needs_its_six_values(tmp_path):
    path = _tiny(tmp_path, seek_type="hpl")
    with pytest.raises(TraceFormatError, match=r"tiny\.model:4: Seek type = hpl needs 'HPL seek "):
        import_disksim_drive(path)
    model = tmp_path / "tiny.model"
    # Ruemmler and Wilkes's HP 97560: 3.24 + 0.400 sqrt(d) ms below 383 cylinders, 8.00 +
    # 0.008 d from there; the single-cylinder time given apart
    model.write_text(model.read_text().replace(
        "Seek type = hpl,", "Seek type = hpl, HPL seek equation values = [ 383, 3.24, 0.400, "
        "8.00, 0.008, 2.0 ],"))
    dev = import_disksim_drive(path).stack.device
    table = dict(dev.seek_curve)
    assert table[1] == pytest.approx(2.0e-3) and table[4] == pytest.approx(4.04e-3)
    assert table[382] == pytest.approx((3.24 + 0.4 * math.sqrt(382)) * 1e-3)
    assert table[383] == pytest.approx((8.0 + 0.008 * 383) * 1e-3)
    assert dev.seek_time_s(999 / 1000) == pytest.approx((8.0 + 0.008 * 999) * 1e-3, rel=1e-3)
    model.write_text(model.read_text().replace("Seek type = hpl,", "Seek type = hplplus10, "
                                               "First ten seek times = [ 1,1,1,1,1,1,1,1,1,1.5 ],"))
    table = dict(import_disksim_drive(path).stack.device.seek_curve)
    assert table[1] == table[9] == pytest.approx(1e-3) and table[10] == pytest.approx(1.5e-3)
    assert table[11] == pytest.approx((3.24 + 0.4 * math.sqrt(11)) * 1e-3)


def test_a_layout_without_zones_is_one_zone_of_the_mean_track(tmp_path):
    path = _tiny(tmp_path)
    model = tmp_path / "tiny.model"
    text = model.read_text()
    start = text.index("Layout Model")
    model.write_text(text[:start] + "Layout Model = dm_layout_g2 { Layout Map File = x.map }\n}\n")
    drive = import_disksim_drive(path)
    rate = 200000 / (1000 * 2) * 512 * 100
    assert drive.stack.device.media_rate_od_Bps == pytest.approx(rate)
    assert drive.stack.device.media_rate_id_Bps == pytest.approx(rate)
    assert any("dm_layout_g2 has no zone list" in n for n in drive.notes)


def test_an_unknown_seek_type_and_a_file_without_a_disk_are_refused(tmp_path):
    path = _tiny(tmp_path, seek_type="magic")
    with pytest.raises(TraceFormatError, match=r"tiny\.model:5: Seek type = magic is not read"):
        import_disksim_drive(path)
    (tmp_path / "bus.parv").write_text("disksim_bus B { type = 1 }\n")
    with pytest.raises(TraceFormatError, match="no disksim_disk block"):
        import_disksim_drive(tmp_path / "bus.parv")
    with pytest.raises(TraceFormatError, match="no such drive description"):
        import_disksim_drive(tmp_path / "absent.parv")


def test_a_source_loop_is_refused(tmp_path):
    (tmp_path / "a.parv").write_text("source a.parv\n")
    with pytest.raises(TraceFormatError, match="nested more than 16 files deep"):
        import_disksim_drive(tmp_path / "a.parv")


def test_the_instantiated_disk_is_the_one_read_and_counts_must_be_whole(tmp_path):
    _tiny(tmp_path)
    parv = tmp_path / "two.parv"
    parv.write_text("source tiny.diskspecs\n"
                    "disksim_disk OTHER { Model = source tiny.model, Max queue length = 9 }\n"
                    "instantiate [ disk0 ] as OTHER\n"
                    "topology disksim_iodriver driver0 [ disksim_bus bus0 [ disksim_disk disk0 "
                    "[] ] ]\n")
    assert import_disksim_drive(parv).stack.device.queue_depth == 9
    model = tmp_path / "tiny.model"
    model.write_text(model.read_text().replace("surfaces = 2", "surfaces = 2.5"))
    with pytest.raises(TraceFormatError, match=r"tiny\.model:2: Number of data surfaces must be "
                       r"a whole number \(got '2\.5'\)"):
        import_disksim_drive(parv)


def test_stack_option_takes_a_description_by_its_extension(tmp_path, capsys):
    path = _tiny(tmp_path)
    trace = tmp_path / "t.trace"
    trace.write_text("".join(f"R 0 {i * 977} 8 5000.0 1000.0\n" for i in range(50)))
    runs = []
    for flag in ("--drive", "--stack"):
        assert main(["replay", str(trace), "--format", "disksim-validate", flag, str(path),
                     "--compare", "--json"]) == 0
        runs.append(capsys.readouterr().out)
    assert runs[0] == runs[1] and '"demerit_s"' in runs[0]


def test_an_extracted_seek_takes_its_ends_from_the_curve_not_the_models_placeholders(tmp_path):
    # the HP C3323A's valid/ model gives 0.2 and 2.3 ms beside a curve from 1.18 to 18.1 ms;
    # DiskSim's extracted seek reads only the curve, so the figures must come from it
    path = _tiny(tmp_path)
    model = tmp_path / "tiny.model"
    model.write_text(model.read_text().replace("Single cylinder seek time = 1.0",
                                               "Single cylinder seek time = 0.2")
                     .replace("Full strobe seek time = 8.0", "Full strobe seek time = 2.3"))
    drive = import_disksim_drive(path)
    dev = drive.stack.device
    assert dev.track_to_track_s == pytest.approx(1e-3)
    assert dev.full_stroke_s == pytest.approx(8e-3)
    assert 3e-3 < dev.avg_seek_s < 8e-3  # the curve's mean, not clamped to 2.3 ms
    notes = " | ".join(drive.notes)
    assert "Single cylinder seek time = 0.2 ms is not the 1 ms that tiny.seek gives" in notes
    assert "Full strobe seek time = 2.3 ms is not the 8 ms" in notes
    # values that agree with the curve add no note
    clean = tmp_path / "clean"
    clean.mkdir()
    assert not any("is not the" in n for n in import_disksim_drive(_tiny(clean)).notes)

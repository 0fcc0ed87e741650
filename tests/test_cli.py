"""The ``iosim`` command line: check-claim (E4, with a stack), plan (E3), sweep output, fit
wiring, and the error contract (one line on stderr, exit status 2)."""

from __future__ import annotations

import json
import re
import sys
import types
from pathlib import Path

import pytest

from iosim.cli import main
from iosim.results import CONTRACT_KEYS

MEASURED = Path(__file__).parents[1] / "data" / "measured_kvm_virtio"

E3 = [
    "--preset",
    "allflash-lun",
    "--set",
    "device.service=det:1ms",
    "--set",
    "device.units=1024",
    "--set",
    "host.overhead=0",
]

E4_STACK = """
name = "cloud-e4"
[hba]
queue_depth = 1024
[link]
bandwidth_Bps = "4GB/s"
[device]
kind = "generic"
units = 128
service = "det:0.128ms"
"""


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def assert_usage_error(capsys, *argv, match=""):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ")
    assert match in lines[0]
    return lines[0]


# -- check-claim: E4 -------------------------------------------------------------------------


E4 = ["check-claim", "--iops", "1M", "--bandwidth", "4GB/s", "--latency", "0.128ms"]


def test_e4_feasible_only_with_small_blocks_and_deep_queues(capsys):
    ok = run_json(capsys, *E4, "--bs", "4000", "--qd", "128")
    assert ok["feasible"] is True
    assert ok["min_queue_depth"] == pytest.approx(128)
    assert ok["max_block_bytes"] == pytest.approx(4000)
    shallow = run_json(capsys, *E4, "--bs", "4000", "--qd", "127")
    assert shallow["feasible"] is False and shallow["binding"] == "little"
    big = run_json(capsys, *E4, "--bs", "16KiB")
    assert big["feasible"] is False and big["binding"] == "bandwidth"
    (row,) = [lim for lim in big["limits"] if lim["binding"]]
    assert row["name"] == "bandwidth" and row["value"] == pytest.approx(4e9 / 16384)
    for d in (ok, shallow, big):
        assert {"feasible", "limits", "min_queue_depth", "max_block_bytes", "max_iops"} <= set(d)
        assert "stack" not in d


def test_check_claim_with_a_stack_adds_its_limits(capsys, tmp_path):
    f = tmp_path / "e4.toml"
    f.write_text(E4_STACK)
    ok = run_json(capsys, "check-claim", "--iops", "1M", "--stack", str(f), "--bs", "4000")
    assert ok["feasible"] is True
    names = {lim["name"] for lim in ok["limits"]}
    assert {"units", "link", "little"} <= names
    units = next(lim for lim in ok["limits"] if lim["name"] == "units")
    assert units["value"] == pytest.approx(1e6)  # 128 units / 0.128 ms
    assert ok["stack"]["units"] == 128 and ok["stack"]["link_Bps"] == pytest.approx(4e9)
    assert ok["stack"]["latency_s"] == pytest.approx(0.128e-3 + 4000 / 4e9)
    big = run_json(capsys, "check-claim", "--iops", "1M", "--stack", str(f), "--bs", "16KiB")
    assert big["feasible"] is False and big["binding"] == "link"
    # the claimed bandwidth, when given, is named first among equal limits
    big = run_json(capsys, *E4, "--stack", str(f), "--bs", "16KiB", "--set", "hba.queue_depth=2048")
    assert big["feasible"] is False and big["binding"] == "bandwidth"


def test_check_claim_checks_the_claims_rw_mode_on_the_stack(capsys):
    """The preset's own workload (a 75/25 mix here) does not stand in for the claim's: a
    random-write claim meets the volume's write cap (9,944 IOPS), a read claim its read cap
    (24,992), and a simulation of the claim's workload at full depth agrees with each."""
    argv = ("check-claim", "--iops", "20k", "--bs", "4k", "--preset", "cloud-qingcloud-ssd")
    writes = run_json(capsys, *argv, "--rw", "randwrite")
    assert writes["feasible"] is False and writes["binding"] == "iops-cap"
    assert writes["max_iops"] == pytest.approx(9944)
    assert writes["stack"]["simulated_iops"] == pytest.approx(9944, rel=0.03)
    reads = run_json(capsys, *argv)  # (--rw defaults to randread)
    assert reads["feasible"] is True and reads["max_iops"] == pytest.approx(24992)
    assert reads["stack"]["simulated_iops"] == pytest.approx(24992, rel=0.03)
    code, out, _ = run(capsys, *argv, "--rw", "randrw", "--rwmixread", "70")
    assert code == 0 and "Stack cloud-qingcloud-ssd at bs=4KiB randrw (70 % reads)" in out


def test_check_claim_with_a_preset_names_the_queue_depth(capsys):
    d = run_json(capsys, "check-claim", "--iops", "1M", "--preset", "allflash-lun")
    # 32 slots / 0.46 ms = 69,565 IOPS, tighter than 64 units / 0.46 ms = 139,130 IOPS
    assert d["feasible"] is False and d["binding"] == "little"
    assert d["max_iops"] == pytest.approx(32 / 0.46e-3)
    assert any("unloaded latency" in n for n in d["stack"]["notes"])
    code, out, err = run(
        capsys, "check-claim", "--iops", "50k", "--preset", "allflash-lun", "--latency", "0.1ms"
    )
    assert code == 0 and "Stack allflash-lun" in out
    assert "below the stack's unloaded latency" in out
    d = run_json(
        capsys,
        "check-claim",
        "--iops",
        "100k",
        "--preset",
        "allflash-lun",
        "--set",
        "multipath.paths=4",
    )
    assert d["feasible"] is True and d["stack"]["queue_depth"] == 128


def test_check_claim_with_the_e4_cloud_preset(capsys):
    from iosim import presets

    if "cloud-essd-1m" not in presets.names():
        pytest.skip("the E4 cloud preset is not in this tree yet")
    claim = ["check-claim", "--iops", "1M", "--preset", "cloud-essd-1m"]
    ok = run_json(capsys, *claim, "--bs", "4000")
    assert ok["feasible"] is True and ok["min_queue_depth"] == pytest.approx(128)
    assert ok["max_block_bytes"] == pytest.approx(4000)
    for bs in ("4k", "16KiB"):  # 4 KiB = 4,096 B is already over 4 GB/s at 1 M IOPS
        d = run_json(capsys, *claim, "--bs", bs)
        assert d["feasible"] is False and d["binding"] == "bandwidth-cap"


# -- plan: E3 --------------------------------------------------------------------------------


def test_plan_e3_one_path_down(capsys):
    argv = [
        "plan",
        *E3,
        "--iops",
        "100k",
        "--latency",
        "1.5ms",
        "--fail",
        "path",
        "--search",
        "multipath.paths=1..8",
        "--search",
        "hba.queue_depth=32,64,128",
        "--ios",
        "2000",
    ]
    d = run_json(capsys, *argv)
    assert d["feasible"] is True and d["fail"] == "path"
    assert {"multipath.paths": 5, "hba.queue_depth": 32} in d["minimal"]
    assert all(m["hba.queue_depth"] > 32 for m in d["minimal"] if m["multipath.paths"] < 5)
    assert d["search"]["multipath.paths"] == list(range(1, 9))
    reasons = {json.dumps(c["config"], sort_keys=True): c for c in d["candidates"]}
    four = reasons[json.dumps({"hba.queue_depth": 32, "multipath.paths": 4}, sort_keys=True)]
    assert four["status"] == "fail" and four["bound_iops"] == pytest.approx(96_000)
    code, out, err = run(capsys, *argv)
    assert code == 0
    assert "PASS" in out and "theory" in out and "Smallest:" in out
    assert "multipath.paths=5 hba.queue_depth=32" in out


# -- sweep -----------------------------------------------------------------------------------

SWEEP = ["sweep", "--preset", "allflash-lun", "--vary", "workload.numjobs=1,4", "--ios", "300"]


def test_sweep_json_has_contract_keys_and_canonical_values(capsys):
    rows = run_json(capsys, *SWEEP, "--vary", "workload.block_size_bytes=4k,8k")
    assert len(rows) == 4
    for r in rows:
        assert set(CONTRACT_KEYS) - {"lat_mean_ci95_s", "iops_ci95"} <= set(r)
        assert r["workload.block_size_bytes"] in (4096, 8192)
        assert isinstance(r["workload.numjobs"], int)


def test_sweep_writes_csv_and_json(capsys, tmp_path):
    import pandas as pd

    code, out, err = run(capsys, *SWEEP, "-o", str(tmp_path / "s.csv"))
    assert code == 0 and "written to" in out and "2 points" in out
    df = pd.read_csv(tmp_path / "s.csv")
    assert list(df["workload.numjobs"]) == [1, 4] and "lat_p99_s" in df
    code, out, err = run(capsys, *SWEEP, "--format", "csv")
    assert code == 0 and out.startswith("iops,")
    code, out, err = run(capsys, *SWEEP, "--json", "-o", str(tmp_path / "s.json"))
    assert code == 0 and out == ""
    rows = json.loads((tmp_path / "s.json").read_text())
    assert [r["workload.numjobs"] for r in rows] == [1, 4]
    assert rows[0]["iops"] == pytest.approx(df["iops"][0])


def test_sweep_parquet(capsys, tmp_path):
    import importlib.util

    target = str(tmp_path / "s.parquet")
    if (
        importlib.util.find_spec("pyarrow") is None
        and importlib.util.find_spec("fastparquet") is None
    ):
        line = assert_usage_error(capsys, *SWEEP, "-o", target, match="pyarrow")
        assert "pip install pyarrow" in line
        assert not (tmp_path / "s.parquet").exists()
    else:  # pragma: no cover - depends on the environment
        import pandas as pd

        code, _, err = run(capsys, *SWEEP, "-o", target)
        assert code == 0, err
        assert list(pd.read_parquet(target)["workload.numjobs"]) == [1, 4]


def test_sweep_progress_bar_on_request(capsys):
    code, out, err = run(capsys, *SWEEP, "--progress")
    assert code == 0 and "sweep" in err and "/2 [" in err
    code, out, err = run(capsys, *SWEEP, "--no-progress")
    assert code == 0 and err == ""


def test_sweep_workers_equal_serial(capsys):
    serial = run_json(capsys, *SWEEP, "--vary", "hba.queue_depth=1,2")
    par = run_json(capsys, *SWEEP, "--vary", "hba.queue_depth=1,2", "--workers", "2")
    assert par == serial


# -- fit wiring ------------------------------------------------------------------------------


def test_fit_unavailable_is_one_clear_line(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "iosim.fit", None)  # import fails as if absent
    assert_usage_error(capsys, "fit", "a.json", "--model", "generic", match="iosim fit")


def test_fit_passes_its_arguments(capsys, monkeypatch, tmp_path):
    seen = {}
    monkeypatch.chdir(tmp_path)
    for name in ("a.json", "b.json", "a.csv"):
        (tmp_path / name).write_text("")

    def run_cli(files, model, holdout, as_json, **kw):
        seen.update(files=files, model=model, holdout=holdout, as_json=as_json, **kw)
        return 0

    monkeypatch.setitem(sys.modules, "iosim.fit", types.SimpleNamespace(run_cli=run_cli))
    code, _, _ = run(
        capsys, "fit", "a.json", "b.json", "--model", "ssd", "--holdout", "numjobs=8,16", "--json"
    )
    assert code == 0
    assert seen == dict(
        files=["a.json", "b.json"], model="ssd", holdout={"numjobs": ["8", "16"]}, as_json=True,
        shape="lognormal",
    )
    seen.clear()
    code, _, _ = run(capsys, "fit", "a.csv", "--model", "hdd", "--shape", "measured")
    assert code == 0 and seen["holdout"] is None and seen["as_json"] is False
    assert seen["shape"] == "measured"
    seen.clear()
    code, _, _ = run(capsys, "fit", "a.json")  # no --model: the family is chosen (auto)
    assert code == 0 and seen["model"] == "auto"


# -- errors: one line, exit 2 ----------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, match",
    [
        (["check-claim", "--iops", "-5"], "--iops"),
        (["check-claim", "--iops", "1M", "--bs=-4k"], "--bs"),
        (["check-claim", "--iops", "1M", "--set", "hba.queue_depth=4"], "--preset or --stack"),
        (["check-claim", "--iops", "1M", "--preset", "nope"], "unknown preset"),
        (["check-claim", "--iops", "1M", "--preset", "allflash-lun", "--set", "x.y=1"], "x.y"),
        (["plan", "--iops", "-100k", "--latency", "1ms"], "--iops"),
        (["plan", "--iops", "100k", "--latency", "0ms"], "--latency"),
        (["plan", "--iops", "100k", "--latency", "1ms", "--percentile", "98"], "percentile"),
        (["plan", "--iops", "100k", "--latency", "1ms", "--percentile", "p99"], "percentile"),
        (["plan", "--iops", "1k", "--latency", "1ms", "--search", "hba.depth=1,2"], "hba.depth"),
        (["plan", "--iops", "1k", "--latency", "1ms", "--search", "hba.queue_depth"], "--search"),
        (["plan", "--iops", "1k", "--latency", "1ms", "--weight", "paths"], "--weight"),
        (["plan", "--iops", "1k", "--latency", "1ms", "--fail", "disk"], "--fail"),
        (["sweep", "--vary", "hba.depth=1,2"], "hba.depth"),
        (["sweep", "--vary", "nothing.here=1,2"], "nothing.here"),
        (["sweep", "--vary", "hba.queue_depth=0,1"], "hba.queue_depth"),
        (["sweep", "--vary", "hba.queue_depth"], "--vary"),
        (["sweep"], "--vary"),
        (["sweep", "--vary", "hba.queue_depth=1", "--workers", "0"], "--workers"),
        (["sweep", "--vary", "hba.queue_depth=1", "-o", "x.txt"], "suffix"),
        (["sweep", "--vary", "hba.queue_depth=1", "-o", "/no/such/dir/x.csv"], "does not exist"),
        (
            ["sweep", "--vary", "hba.queue_depth=1", "--workers", "2", "--scheduler", "x:1"],
            "not both",
        ),
        (["sweep", "--vary", "hba.queue_depth=1", "--connect-timeout", "-1s"], "timeout"),
        (["report", "/no/such/file.json"], "no such file"),
        (["fit", "a.json", "--model", "raid6"], "--model"),
        (["plan", "--latency", "1ms"], "--iops"),
    ],
)
def test_bad_arguments_give_one_line_and_exit_2(capsys, argv, match):
    assert_usage_error(capsys, *argv, match=match)


# -- units that cannot mislead -----------------------------------------------------------------


def test_a_time_without_its_unit_is_refused_with_the_fix(capsys):
    line = assert_usage_error(capsys, "run", "--set", "device.service=0.46")
    assert line == "error: device.service=0.46: a time needs a unit: 0.46ms or 0.46s?"
    line = assert_usage_error(capsys, "plan", "--iops", "100k", "--latency", "1.5")
    assert line == "error: --latency 1.5: a time needs a unit: 1.5ms or 1.5s?"
    assert_usage_error(
        capsys, "run", "--set", "device.service=exp:0.46", match="0.46ms or 0.46s?"
    )


def test_a_size_below_one_sector_is_taken_for_a_missing_unit(capsys):
    line = assert_usage_error(capsys, "run", "--bs", "4")
    assert line == ("error: workload.block_size_bytes = 4 bytes, less than one 512-byte sector: "
                    "a size without a unit is in bytes (did you mean 4k?)")
    line = assert_usage_error(capsys, "run", "--size", "10")
    assert line.endswith("(did you mean 10G?)") and "workload.span_bytes = 10 bytes" in line
    # a size in bytes that is simply not a whole number of sectors: the range, in units
    line = assert_usage_error(capsys, "run", "--bs", "1000")
    assert "at most span_bytes = 100 GiB (got 1000" in line


def test_a_size_blind_stack_says_so_for_large_blocks(capsys):
    """allflash-lun's 0.46 ms service is E1's 4 KiB figure and its link is unlimited: at 1 MiB
    it reports 15 GiB/s from one path, and the assumptions line says why."""
    assert main(["run", "--preset", "allflash-lun", "--bs", "1m", "--ios", "2000"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "assumes:" in x)
    assert "device service the same at every block size (no transfer rate)" in line
    assert "link without a bandwidth limit" in line
    for argv in (["--preset", "allflash-lun"], ["--preset", "nvme-intel-750", "--bs", "1m"]):
        assert main(["run", *argv, "--ios", "2000"]) == 0
        assert "every block size" not in capsys.readouterr().out


def test_a_time_without_its_unit_in_a_stack_file_is_refused(capsys, tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('[device]\nkind = "generic"\nservice = 0.46\n')
    line = assert_usage_error(capsys, "run", "--stack", str(f))
    assert f"{f}: device.service = 0.46: a time needs a unit" in line
    f.write_text('[device]\nkind = "generic"\nservice = "0.46ms"\n[link]\nlatency_s = 0.0001\n')
    out = run_json(capsys, "run", "--stack", str(f), "--ios", "200")
    assert out["lat_mean_s"] > 0.46e-3  # the key that names its unit needs no unit


def test_every_shipped_stack_file_still_loads():
    from iosim import load_toml, presets

    for name in presets.names():
        presets.load(name)
    for path in (Path(__file__).parents[1] / "data").rglob("*.toml"):
        load_toml(path)


def test_bare_block_size_is_bytes_as_in_fio(capsys):
    out = run_json(capsys, "run", "--bs", "4096", "--ios", "200")
    assert out["block_size_bytes"] == 4096


# -- presets model what the device does ------------------------------------------------------


@pytest.mark.parametrize("name", ["hdd-7200", "hdd-10k", "hdd-15k"])
def test_ncq_and_tcq_disks_reorder_by_default(name):
    from iosim import presets

    assert presets.load(name)[0].device.scheduler == "sptf"


def test_run_prints_the_assumptions_that_change_the_answer(capsys):
    code, out, err = run(capsys, "run", "--preset", "hdd-7200", "--ios", "300")
    assert code == 0, err
    assumes = next(line for line in out.splitlines() if "assumes:" in line)
    for word in ("span 931.3 GiB", "scheduler sptf", "write cache off", "read-ahead 1 MiB",
                 "engine fast"):
        assert word in assumes


# -- output for people -----------------------------------------------------------------------


def test_an_interval_wider_than_its_value_is_said_in_words():
    from iosim.cli import _ci

    assert _ci(4.76, 86_805) == " (too few I/Os for a 95 % interval)"
    assert _ci(1000.0, 12.0) == " ± 12"
    assert _ci(1000.0, 1e-9) == ""


def test_run_output_has_human_units_and_no_noise(capsys):
    code, out, _ = run(capsys, "run", "--numjobs", "8", "--ios", "2000")
    assert code == 0
    assert "±" not in out  # a deterministic device: the interval is zero, not "± 7e-10"
    assert not re.search(r"\de[+-]\d", out)  # no scientific notation
    assert out.count("aqu-sz") == 1
    assert "MiB/s" in out and "MB/s" not in out
    assert re.search(r"latency +mean \d+ us", out)


def test_parse_prints_an_aligned_table(capsys):
    code, out, _ = run(capsys, "parse", str(MEASURED / "randread-4k-qd1.json"))
    assert code == 0
    header, row = out.strip().splitlines()
    assert header.split()[:5] == ["job", "rw", "bs", "iodepth", "numjobs"]
    assert "IOPS" in header and "p99" in header
    assert "11,244" in row and "88.4 us" in row and "4 KiB" in row
    assert header.index("IOPS") + len("IOPS") == row.index("11,244") + len("11,244")
    data = run_json(capsys, "parse", str(MEASURED / "randread-4k-qd1.json"))
    assert data[0]["lat_mean_s"] == pytest.approx(88.38e-6, rel=1e-3)  # SI for machines


def test_parse_reads_a_sweeps_files_as_one_table_in_load_order(capsys):
    files = [str(MEASURED / f"randread-4k-qd{q}.json") for q in (1, 16, 2)]  # a shell's order
    code, out, _ = run(capsys, "parse", *files)
    assert code == 0
    header, *rows = out.strip().splitlines()
    assert [r.split()[0] for r in rows] == ["randread-qd1", "randread-qd2", "randread-qd16"]
    data = run_json(capsys, "parse", *files)
    assert [d["iodepth"] for d in data] == [1, 2, 16]
    # results and an iostat capture together: one line naming the capture
    iostat = (Path(__file__).parents[2] / "shared" / "corpus" / "iostat" /
              "iostat-x-sysstat12-ubuntu-kernel68-dsfs-columns.txt")
    if iostat.exists():
        line = assert_usage_error(capsys, "parse", files[0], str(iostat))
        assert line.startswith(f"error: {iostat}: parse reads several files together only")


def test_workload_keys_by_their_fio_names():
    from iosim.cli import _dotted

    assert _dotted("numjobs") == "workload.numjobs"
    assert _dotted("bs") == _dotted("workload.bs") == "workload.block_size_bytes"
    assert _dotted("size") == "workload.span_bytes"
    assert _dotted("hba.queue_depth") == "hba.queue_depth"
    assert _dotted("units") == "units"  # not a workload field: left for the schema to refuse


def test_sweep_table_and_bare_workload_keys(capsys):
    code, out, err = run(capsys, "sweep", "--vary", "numjobs=1,2", "--ios", "300")
    assert code == 0, err
    lines = out.splitlines()
    header = next(line for line in lines if "IOPS" in line)
    assert header.split()[:3] == ["numjobs", "IOPS", "MiB/s"]
    assert not re.search(r"\de[+-]\d", out)


# -- messages ----------------------------------------------------------------------------------



def test_missing_file_is_one_plain_line(capsys):
    assert assert_usage_error(capsys, "parse", "nothere.json") == (
        "error: nothere.json: no such file"
    )


def test_messages_say_what_to_do(capsys):
    readme = str(Path(__file__).parents[1] / "README.md")
    line = assert_usage_error(capsys, "parse", readme, match="--format")
    assert "fio-json" in line and "iostat" in line and "format=" not in line
    line = assert_usage_error(capsys, "report", str(MEASURED / "randread-4k-qd1.json"))
    assert "fio's JSON output" in line and "iosim parse" in line and "<class" not in line
    line = assert_usage_error(capsys, "sweep", "--vary", "workload.numjobs=1-16")
    assert "1..16" in line
    line = assert_usage_error(capsys, "run", "--preset", "hdd-720")
    assert "did you mean hdd-7200" in line


# -- help: flags with defaults, fast to print --------------------------------------------------


@pytest.mark.parametrize(
    "command, words",
    [
        ("run", ["--rw", "randread", "--bs", "(4k)", "--engine", "default auto", "bytes"]),
        ("sweep", ["--vary", "1..16", "--workers", "default 1"]),
        ("fit", ["FILE", "generic", "hdd-ncq", "numjobs=16,32", "default lognormal"]),
        ("parse", ["fio-json", "vdbench", "iostat", "default auto"]),
        ("report", ["iosim sweep -o FILE", "default: FILE with .html"]),
        ("plan", ["--latency", "default 99", "default none"]),
    ],
)
def test_help_documents_flags_and_defaults(capsys, command, words):
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for w in words:
        assert w in text, w


def test_the_cli_lists_agree_with_the_modules():
    from iosim import cli, traces
    from iosim.fit import MODELS
    from iosim.simulate import ENGINES

    assert cli.ENGINES == ENGINES
    assert cli.PARSE_FORMATS == ("auto", *traces.FORMATS)
    assert set(cli.FIT_MODELS) == set(MODELS)


def test_help_and_import_load_no_heavy_module():
    import subprocess

    code = (
        "import sys, contextlib, io\n"
        "import iosim\n"
        "heavy = {'pandas', 'scipy', 'numba', 'plotly', 'numpy'}\n"
        "assert not heavy & set(sys.modules), sorted(heavy & set(sys.modules))\n"
        "from iosim.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        "        main(['--help'])\n"
        "    except SystemExit:\n"
        "        pass\n"
        "    main(['run', '--numjobs', 'x'])\n"
        "left = {'pandas', 'scipy', 'numba', 'plotly'} & set(sys.modules)\n"
        "assert not left, sorted(left)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_iosim_fit_and_simulate_stay_the_functions():
    import iosim
    import iosim.fit  # noqa: F401 - binding the submodule must not shadow the function
    import iosim.simulate  # noqa: F401

    assert callable(iosim.fit) and callable(iosim.simulate) and callable(iosim.sweep)


# -- sweeps on workers: batched ------------------------------------------------------------


def test_sweep_on_an_executor_batches_points_and_equals_serial():
    from concurrent.futures import ThreadPoolExecutor

    from iosim import presets, sweep

    stack, wl = presets.load("allflash-lun")
    vary = {"workload.numjobs": list(range(1, 21))}
    serial = sweep(stack, wl, vary, ios=200, seed=3, progress=False)
    submitted = []

    class Counting(ThreadPoolExecutor):
        def submit(self, fn, *args, **kw):
            submitted.append(len(args[0][2]))
            return super().submit(fn, *args, **kw)

    with Counting(2) as ex:
        par = sweep(stack, wl, vary, ios=200, seed=3, progress=False, executor=ex)
    assert par.to_records() == serial.to_records()
    assert len(submitted) <= 4 * 2  # batches, not one task per point
    assert sum(submitted) == len(serial) - 1  # the first point runs in the caller


def test_help_examples_are_commands_the_parser_takes():
    import shlex

    from iosim.cli import build_parser

    parser = build_parser()
    examples = [
        line.strip() for line in parser.epilog.splitlines() if line.strip().startswith("iosim ")
    ]
    assert len(examples) >= 3
    for line in examples:
        args = parser.parse_args(shlex.split(line)[1:])
        assert callable(args.func)
    # fit's --holdout example is a --vary that sweep takes too
    from iosim.cli import _dotted, _parse_vary

    assert {_dotted(k): v for k, v in _parse_vary(["numjobs=16,32"]).items()} == {
        "workload.numjobs": ["16", "32"]
    }


# -- presets NAME: a preset's stack file, the start of one's own -----------------------------


def test_a_presets_stack_file_prints_and_runs_as_a_stack_of_ones_own(capsys, tmp_path):
    from iosim import presets

    code, out, _ = run(capsys, "presets", "hdd-7200")
    assert code == 0 and out == presets.source("hdd-7200")  # the shipped file, comments too
    assert out.startswith("#") and "[device]" in out
    mine = tmp_path / "my-disk.toml"
    mine.write_text(out.replace('scheduler = "sptf"', 'scheduler = "fifo"'), encoding="utf-8")
    fifo = run_json(capsys, "run", "--stack", str(mine), "--iodepth", "16", "--ios", "1500")
    sptf = run_json(capsys, "run", "--preset", "hdd-7200", "--iodepth", "16", "--ios", "1500")
    assert fifo["iops"] < 0.8 * sptf["iops"]  # the edit took: the disk no longer reorders
    assert run_json(capsys, "presets", "hdd-7200")["device"]["kind"] == "hdd"
    assert_usage_error(capsys, "presets", "hdd-720", match="did you mean hdd-7200")

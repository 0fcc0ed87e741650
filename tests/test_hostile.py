"""Hostile and mistaken inputs (issue 16): nothing a user types crashes iosim, hangs it,
exhausts the machine or destroys a file. Every case ends in one line on stderr and exit status
2 (or 0 for a closed pipe), leaves its input files unchanged, and none runs a simulation: the
limits in ``iosim.limits`` refuse the work before it starts. The fuzzers at the end stub the
engines out, so whatever passes every check ends in ``_Ran`` instead of a run."""

from __future__ import annotations

import importlib
import json
import os
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import iosim
from iosim import limits, traces
from iosim.cli import _parse_vary
from iosim.cli import main as cli_main
from iosim.devices import GenericDevice
from iosim.spec import SpecError
from iosim.stack import (
    BlockSpec,
    HbaSpec,
    LinkSpec,
    MultipathSpec,
    Stack,
    apply_overrides,
    load_toml,
)
from iosim.units import UnitError
from iosim.workload import Workload

MEASURED_QD1 = (
    Path(__file__).resolve().parents[1] / "data" / "measured_kvm_virtio" / "randread-4k-qd1.json"
)
DOCUMENTED = (SpecError, UnitError, limits.LimitError, traces.TraceFormatError)


class _Ran(Exception):
    """Raised by the stubbed engines: every check before the run passed."""


@pytest.fixture
def no_engines(monkeypatch):
    def refuse(*args, **kwargs):
        raise _Ran()

    module = importlib.import_module("iosim.simulate")  # iosim loads it lazily
    monkeypatch.setattr(module.fast_engine, "run_fast_sim", refuse)
    monkeypatch.setattr(module, "run_simpy", refuse)


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    rc = cli_main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def refused(capsys, *argv: str, contains: str = "") -> str:
    """The command exits 2 with exactly one line on stderr (containing ``contains``)."""
    rc, out, err = run_cli(capsys, *argv)
    lines = err.strip().splitlines()
    assert rc == 2, (argv, rc, out, err)
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert contains in lines[0], lines[0]
    assert "Traceback" not in err
    return lines[0]


# -- integers past int64 and other values beyond physics --------------------------------------


@pytest.mark.parametrize(
    "argv, contains",
    [
        (["--size", "1e300"], "workload.span_bytes must be at most 2^60 bytes"),
        (["--set", "device.units=1e30"], "device.units must be at most 1,000,000,000"),
        (["--set", "hba.queue_depth=1e19"], "hba.queue_depth must be at most 1,000,000,000"),
        (["--set", "block.nr_requests=1e30"], "block.nr_requests must be at most"),
        (["--set", "device.service=exp:1e300s"], "limit of 3600 s"),
        (["--set", "host.overhead=exp:1e308s"], "host.overhead: exp: mean"),
        (["--set", "workload.bssplit=4k/-50:8k/150"], "workload.bssplit: a weight"),
        (["--set", "workload.bssplit=4k/nan:8k/50"], "workload.bssplit: a weight"),
        (["--ios", "inf"], "--ios must be a whole number"),
        (["--ios", "2.5"], "--ios must be a whole number"),
        (["--seed", "1e30"], "--seed must be a whole number"),
    ],
)
def test_values_beyond_limits_are_refused_at_the_spec(capsys, no_engines, argv, contains):
    refused(capsys, "run", *argv, contains=contains)


@pytest.mark.parametrize("engine", ["fast", "simpy"])
@pytest.mark.parametrize("split", ["4k/-50:8k/150", "4k/nan:8k/50", "4k/inf:8k/50"])
def test_bad_bssplit_weights_are_refused_identically_by_both_engines(capsys, no_engines,
                                                                       engine, split):
    line = refused(capsys, "run", "--engine", engine, "--set", f"workload.bssplit={split}")
    assert line.startswith("error: workload.bssplit: a weight must be a percentage from 0 to 100")
    with pytest.raises(SpecError, match="workload.bssplit"):
        Workload(bssplit=split)


def test_the_python_api_says_spec_error_for_a_string_ios(no_engines):
    with pytest.raises(SpecError, match="ios must be a whole number"):
        iosim.simulate(iosim.Stack(), ios="20000")
    for bad in (2e4, -1, 10**30, None, [1]):
        with pytest.raises(SpecError, match="ios"):
            iosim.simulate(iosim.Stack(), ios=bad)
    with pytest.raises(SpecError, match="replications"):
        iosim.simulate(iosim.Stack(), replications=10**9)


# -- work and memory without bound ---------------------------------------------------------


@pytest.mark.parametrize(
    "argv, contains",
    [
        (["run", "--numjobs", "1e9"], "of memory"),
        (["run", "--set", "multipath.paths=1e9"], "of memory"),
        (["run", "--numjobs", "1e7"], "allowed without --force"),
        (["run", "--bs", "100G"], "events on the fast engine"),
        (["run", "--ios", "1e15"], "years"),
        (["run", "--warmup-ios", "1e15"], "without --force"),
        (["run", "--replications", "1e6"], "without --force"),
        (["run", "--preset", "raid0-12x-hdd-wbc", "--engine", "simpy", "--set",
          "device.members=1e4"], "on the simpy engine"),
        (["run", "--preset", "raid0-12x-hdd-wbc", "--set", "device.members=1e6"],
         "of memory"),
        (["sweep", "--vary", "workload.numjobs=1..100000000"], "100,000,000 values"),
        (["sweep", "--vary", "workload.numjobs=1..1000", "--vary", "hba.queue_depth=1..1000"],
         "1,000,000 points"),
        (["sweep", "--vary", "workload.numjobs=1..100000"], "without --force"),
        (["sweep", "--ios", "1e6", "--vary", "workload.iodepth=1..1000"], "without --force"),
        (["sweep", "--vary", "workload.numjobs=1,2", "--workers", "1e6"], "per core"),
        (["sweep", "--vary", "workload.numjobs=1,10000000"], "the sweep point"),
        (["plan", "--iops", "100k", "--latency", "2ms", "--search",
          "multipath.paths=1..100000000"], "100,000,000 values"),
        (["fit", str(MEASURED_QD1), "--model", "generic", "--ios", "1e12"],
         "each verifying simulation"),
        (["sweep", "--vary", "workload.numjobs=1,2", "--scheduler", "zz://:::"],
         "--scheduler expects an address"),
    ],
)
def test_unbounded_work_is_refused_up_front(capsys, no_engines, argv, contains):
    refused(capsys, *argv, contains=contains)


def test_a_fio_job_with_a_hundred_million_jobs_is_refused(capsys, no_engines, tmp_path):
    job = tmp_path / "j.fio"
    job.write_text("[j]\nrw=randread\nbs=4k\nnumjobs=100000000\n")
    refused(capsys, "run", "--fio-job", job, contains="of memory")


def test_force_lets_long_work_through_but_not_past_memory(capsys, no_engines):
    with pytest.raises(_Ran):
        cli_main(["run", "--bs", "100G", "--force"])
    err = capsys.readouterr().err
    assert "estimated" in err and "min" in err  # the estimate comes before the run
    refused(capsys, "run", "--numjobs", "1e9", "--force", contains="half of this machine")
    with pytest.raises(SpecError, match="without --force"):
        iosim.simulate(iosim.Stack(), ios=10**10)
    with limits.allow_long_work(), pytest.raises(_Ran):
        iosim.simulate(iosim.Stack(), ios=10**10)


def test_a_long_sweep_announces_its_estimate_before_the_first_point(capsys, no_engines):
    with pytest.raises(_Ran):
        iosim.sweep(iosim.Stack(), Workload(), {"workload.numjobs": list(range(1, 101))},
                    ios=10**6, progress=False, force=True)
    err = capsys.readouterr().err
    assert "the sweep of 100 points: estimated" in err


def test_estimates_refuse_announce_and_follow_the_terms():
    said = []
    small = limits.estimate_run(ios=10**6, warmup_ios=0, replications=1, engine="fast",
                                parts=1, slots=1, paths=1, units=1)
    long = limits.estimate_run(ios=10**8, warmup_ios=0, replications=1, engine="fast",
                               parts=1, slots=1, paths=1, units=1)
    split = limits.estimate_run(ios=10**6, warmup_ios=0, replications=1, engine="fast",
                                parts=128, slots=1, paths=1, units=1)
    slow = limits.estimate_run(ios=10**6, warmup_ios=0, replications=1, engine="simpy",
                               parts=1, slots=1, paths=1, units=1)
    assert small.seconds < long.seconds and small.seconds < split.seconds < long.seconds * 2
    assert slow.seconds > 100 * small.seconds
    limits.check_estimate(small, "x", announce=said.append)
    assert said == []
    limits.check_estimate(long, "x", announce=said.append)  # 10^8 I/Os: ~100 s, announced
    assert len(said) == 1 and "estimated" in said[0]
    with pytest.raises(limits.LimitError, match="without --force"):
        limits.check_estimate(slow.__class__(3600.0, 0.0, 1e9, "fast"), "x")
    limits.check_estimate(slow.__class__(3600.0, 0.0, 1e9, "fast"), "x", force=True)


def test_workers_are_capped_by_the_cores():
    most = limits.cores() * limits.WORKERS_PER_CORE
    assert limits.check_workers(most) == most
    with pytest.raises(limits.LimitError, match=f"use at most {most}"):
        limits.check_workers(most + 1)


@pytest.mark.parametrize("address", ["zz://:::", "tcp://", "tcp://host", "tcp://h:0",
                                     "tcp://h:99999", "tcp://h:x", "", "::::"])
def test_malformed_scheduler_addresses_fail_fast(address):
    with pytest.raises(limits.LimitError, match="--scheduler expects"):
        limits.check_scheduler_address(address)


def test_good_scheduler_addresses_pass():
    for address in ("tcp://10.0.0.5:8786", "localhost:8786", "tls://[::1]:8786", "inproc://x"):
        limits.check_scheduler_address(address)


# -- nesting -----------------------------------------------------------------------------------


def test_deep_toml_and_raid_chains_are_one_line(capsys, tmp_path):
    cases = {
        "arrays.toml": "x = " + "[" * 100_000 + "]" * 100_000 + "\n",
        "inline.toml": "x = " + "{a = " * 5000 + "1" + "}" * 5000 + "\n",
    }
    lines = ["[device]", 'kind = "raid"', 'level = "0"', "members = 2"]
    prefix = "device"
    for _ in range(400):
        prefix += ".member"
        lines += [f"[{prefix}]", 'kind = "raid"', 'level = "0"', "members = 2"]
    cases["chain.toml"] = "\n".join(lines) + "\n"
    cases["short_chain.toml"] = "\n".join(lines[:4 + 4 * 6]) + "\n"
    for name, text in cases.items():
        f = tmp_path / name
        f.write_text(text)
        line = refused(capsys, "run", "--stack", f, contains=str(f))
        assert "nested" in line
        assert f.read_text() == text


def test_a_raid_chain_built_in_python_is_refused():
    dev = GenericDevice()
    for _ in range(10):
        dev = iosim.devices.RaidDevice(level="0", members=2, member=dev)
    with pytest.raises(SpecError, match="nested more than"):
        Stack(device=dev)


def test_a_dotted_key_thousands_of_parts_long_is_refused(capsys):
    key = "device." + "member." * 3000 + "units"
    with pytest.raises(SpecError, match="dotted parts"):
        apply_overrides(Stack(), None, {key: 1})
    refused(capsys, "run", "--set", f"{key}=1", contains="dotted parts")


def test_report_on_deeply_nested_json_is_one_line(capsys, tmp_path):
    f = tmp_path / "deep.json"
    f.write_text("[" * 200_000 + "]" * 200_000)
    refused(capsys, "report", f, "-o", tmp_path / "out.html", contains="nested")
    g = tmp_path / "deep2.json"
    g.write_text("[" * 100 + "{}" + "]" * 100)
    refused(capsys, "report", g, "-o", tmp_path / "out.html", contains="nested")


# -- files -------------------------------------------------------------------------------------


def _sparse(path, size):
    with open(path, "wb") as fh:
        fh.truncate(size)


def test_huge_inputs_are_refused_before_reading(capsys, tmp_path):
    big = tmp_path / "big.toml"
    _sparse(big, 500 * 2**20)
    refused(capsys, "run", "--stack", big, contains="500 MiB, more than the 4 MiB")
    report = tmp_path / "big.json"
    _sparse(report, 477 * 2**20)
    refused(capsys, "report", report, "-o", tmp_path / "x.html", contains="477 MiB")
    samples = tmp_path / "samples.txt"
    _sparse(samples, 500 * 2**20)
    refused(capsys, "run", "--set", f"device.service=empirical:{samples}", contains="16 MiB")
    trace = tmp_path / "big.log"
    _sparse(trace, 300 * 2**20)
    refused(capsys, "parse", trace, contains="split or summarise")


@pytest.mark.parametrize("command", ["parse", "run --stack", "report", "traces.read"])
def test_fifos_and_symlink_loops_say_what_they_are(capsys, tmp_path, command):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    loop = tmp_path / "loop"
    os.symlink(loop, loop)
    for path, what in ((fifo, "is a FIFO (named pipe), not a regular file"),
                       (loop, "symbolic link loop"), (tmp_path, "is a directory")):
        if command == "traces.read":
            with pytest.raises(traces.TraceFormatError, match=r"FIFO|loop|directory"):
                traces.read(path)
            continue
        argv = command.split() + [path]
        refused(capsys, *argv, contains=what)


def test_non_utf8_inputs_name_the_file(capsys, tmp_path):
    stack = tmp_path / "s.toml"
    stack.write_bytes(b"[hba]\nqueue_depth = 4 # \xff\xfe\n")
    refused(capsys, "run", "--stack", stack, contains=f"{stack}:2: not UTF-8")
    rows = tmp_path / "r.json"
    rows.write_bytes(b'[{"iops": 1, "x": "\xff"}]')
    refused(capsys, "report", rows, "-o", tmp_path / "x.html", contains=f"{rows}:1: not UTF-8")


def test_errors_never_quote_the_content_of_a_file_pointed_at(capsys, tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("root:SECRET-PASSWORD-HASH:0:0\n")
    stack = tmp_path / "s.toml"
    stack.write_text(f'[device]\nservice = "empirical:{secret}"\n')
    line = refused(capsys, "run", "--stack", stack, contains="expected one time per line")
    assert "SECRET" not in line
    line = refused(capsys, "run", "--stack", "/etc/passwd")
    assert "root" not in line


def test_an_output_equal_to_an_input_is_refused_and_the_input_kept(capsys, tmp_path):
    victim = tmp_path / "victim.json"
    text = json.dumps([{"numjobs": 1, "iops": 100.0}, {"numjobs": 2, "iops": 190.0}])
    victim.write_text(text)
    refused(capsys, "report", victim, "-o", victim, contains="would destroy the input")
    refused(capsys, "report", victim, "-o", tmp_path / "." / "victim.json", contains="input")
    link = tmp_path / "link.json"
    link.symlink_to(victim)
    refused(capsys, "report", link, "-o", victim, contains="input")
    assert victim.read_text() == text
    stack = tmp_path / "s.toml"
    stack.write_text("[hba]\nqueue_depth = 4\n")
    refused(capsys, "sweep", "--stack", stack, "--vary", "workload.numjobs=1,2", "-o", stack,
            "--format", "json", contains="would destroy the input")
    assert stack.read_text() == "[hba]\nqueue_depth = 4\n"


def test_negative_fio_iops_is_refused_at_its_line(capsys, tmp_path):
    doc = {"fio version": "fio-3.16", "jobs": [
        {"jobname": "a", "groupid": 0, "read": {"iops": 10.0, "runtime": 1000}},
        {"jobname": "b", "groupid": 0, "read": {"iops": -5, "runtime": 1000}},
    ]}
    f = tmp_path / "fio.json"
    f.write_text(json.dumps(doc, indent=2))
    line_no = next(i for i, s in enumerate(f.read_text().splitlines(), 1) if "-5" in s)
    with pytest.raises(traces.TraceFormatError) as info:
        traces.read(f)
    assert info.value.line == line_no
    assert "jobs[1].read.iops: expected a number >= 0" in str(info.value)
    refused(capsys, "parse", f, contains=f"{f}:{line_no}: jobs[1].read.iops")


def test_a_closed_pipe_is_a_quiet_normal_end(capsys, monkeypatch, no_engines):
    class Closed:
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self):
            raise BrokenPipeError(32, "Broken pipe")

        def fileno(self):
            raise ValueError("no file descriptor")

    monkeypatch.setattr("sys.stdout", Closed())
    assert cli_main(["presets"]) == 0
    assert capsys.readouterr().err == ""


def test_recursion_and_memory_errors_become_one_line(capsys, monkeypatch):
    import iosim.cli as cli

    for exc in (RecursionError, MemoryError):
        def boom(args, exc=exc):
            raise exc()

        monkeypatch.setattr(cli, "cmd_presets", boom)
        refused(capsys, "presets", contains="")


# -- fuzzers -----------------------------------------------------------------------------------

FUZZ = settings(max_examples=300, deadline=None,
                suppress_health_check=[HealthCheck.too_slow,
                                       HealthCheck.function_scoped_fixture])

huge_numbers = st.sampled_from([
    "1e300", "-1e300", "1e19", "9223372036854775808", "18446744073709551616", "1e400", "nan",
    "inf", "-inf", "-0", "0", "-1", "1e-320", "0x10", "1_000", "1e15", "99999999999999999999k",
    str(2**63), str(-(2**63) - 1), "1.5", "4k", "100G", "1e9", "", " ", "１２",
])
hostile_text = st.one_of(
    huge_numbers,
    st.text(max_size=30),
    st.text(alphabet=string.digits + ".-+eE kKmMgGiBbs/:,=", max_size=16),
    st.builds(lambda n, c: c * n, st.integers(1, 5000), st.sampled_from(["[", "{", "(", "9"])),
)
flags = ["--ios", "--warmup-ios", "--replications", "--numjobs", "--iodepth", "--size", "--bs",
         "--rate-iops", "--rwmixread", "--seed", "--engine", "--rw"]  # not --workers: processes
keys = ["hba.queue_depth", "block.nr_requests", "block.max_sectors_bytes", "multipath.paths",
        "multipath.failover_timeout_s", "link.latency_s", "link.bandwidth_Bps", "device.units",
        "device.service", "host.overhead", "workload.numjobs", "workload.iodepth",
        "workload.bssplit", "workload.span_bytes", "workload.rate_iops",
        "workload.block_size_bytes", "workload.thinktime_s", "device.kind", "nosuch.key"]


def _cli_ok(capsys, argv) -> None:
    try:
        rc = cli_main(argv)
    except _Ran:
        capsys.readouterr()  # an estimate may have been announced
        return
    out, err = capsys.readouterr()
    assert rc in (0, 2), (argv, rc, err)
    if rc == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), (argv, err)


@FUZZ
@given(st.sampled_from(["run", "sweep", "plan"]),
       st.lists(st.tuples(st.sampled_from(flags), hostile_text), max_size=3),
       st.lists(st.tuples(st.sampled_from(keys), hostile_text), max_size=2))
def test_fuzz_cli_arguments_give_one_line_or_reach_the_engine(capsys, no_engines, command,
                                                              opts, sets):
    argv = [command]
    if command == "sweep":
        argv += ["--vary", "workload.iodepth=1,2"]
    if command == "plan":
        argv += ["--iops", "1k", "--latency", "10ms", "--search", "multipath.paths=1,2"]
    for flag, value in opts:
        argv += [flag, value]
    for key, value in sets:
        argv += ["--set", f"{key}={value}"]
    _cli_ok(capsys, argv)


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(keys[:-1]), hostile_text), min_size=1, max_size=2))
# found by this test: a long sweep's estimate was announced before its unstable point was refused
@example([("workload.rate_iops", "1e300"), ("workload.block_size_bytes", "1e9")])
def test_fuzz_vary_gives_one_line_or_reaches_the_engine(capsys, no_engines, pairs):
    argv = ["sweep"]
    for key, value in pairs:
        argv += ["--vary", f"{key}={value}"]
    _cli_ok(capsys, argv)


@FUZZ
@given(st.lists(hostile_text, max_size=3))
def test_fuzz_vary_syntax_raises_only_documented_errors(items):
    try:
        _parse_vary(items)
    except DOCUMENTED as exc:
        assert "\n" not in str(exc)


toml_values = st.one_of(
    st.sampled_from(["1e300", "-1e300", "9223372036854775808", "1e400", "nan", "inf",
                     '"1e300"', '"1e19"', '"exp:1e300s"', '"empirical:/etc/passwd"',
                     '"4k/-50:8k/150"', '"4k/nan:8k/50"', "[]", "{}", "true", "-0"]),
    st.integers().map(str),
    st.floats().map(lambda x: repr(x) if x == x and abs(x) != float("inf") else "nan"),
    st.integers(1, 3000).map(lambda n: "[" * n + "]" * n),
    st.integers(1, 3000).map(lambda n: "{a = " * n + "1" + "}" * n),
)


@FUZZ
@given(st.sampled_from(["hba", "block", "multipath", "link", "device", "workload", "host"]),
       st.sampled_from(["queue_depth", "nr_requests", "paths", "units", "service", "numjobs",
                        "iodepth", "bssplit", "span_bytes", "latency_s", "overhead", "members",
                        "max_sectors_bytes", "bandwidth_Bps", "member"]),
       toml_values)
def test_fuzz_toml_stack_files_raise_only_spec_errors(tmp_path_factory, section, key, value):
    f = tmp_path_factory.mktemp("toml") / "s.toml"
    f.write_text(f"[{section}]\n{key} = {value}\n")
    try:
        load_toml(f)
    except SpecError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 1000


api_values = st.one_of(
    st.integers(),
    st.sampled_from([2**63, 2**64, 10**300, -(2**63) - 1, 10**400]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    huge_numbers,
    st.none(),
    st.booleans(),
    st.recursive(st.integers(0, 3), lambda c: st.lists(c, max_size=2), max_leaves=20),
)
SPECS = {
    "hba": (HbaSpec, ["queue_depth"]),
    "block": (BlockSpec, ["nr_requests", "max_sectors_bytes"]),
    "multipath": (MultipathSpec, ["paths", "failover_timeout_s", "failures"]),
    "link": (LinkSpec, ["latency_s", "bandwidth_Bps"]),
    "device": (GenericDevice, ["units", "service", "media_rate_Bps"]),
    "workload": (Workload, ["rw", "rwmixread", "block_size_bytes", "bssplit", "numjobs",
                            "iodepth", "rate_iops", "span_bytes", "thinktime_s", "align_bytes"]),
}


@FUZZ
@given(st.sampled_from(sorted(SPECS)), st.data())
def test_fuzz_constructors_take_huge_and_nested_values(section, data):
    cls, fields = SPECS[section]
    key = data.draw(st.sampled_from(fields))
    value = data.draw(api_values)
    try:
        cls(**{key: value})
    except SpecError as exc:
        text = str(exc)
        assert key in text and "\n" not in text and len(text) < 1000, text


@FUZZ
@given(st.sampled_from(["ios", "warmup_ios", "seed", "replications", "engine"]), api_values)
def test_fuzz_simulate_arguments(no_engines, name, value):
    try:
        iosim.simulate(iosim.Stack(), Workload(), **{name: value})
    except _Ran:
        pass
    except SpecError as exc:  # names the argument, or refuses the work it asks for
        text = str(exc)
        assert name in text or "without --force" in text or "of memory" in text, text
        assert "\n" not in text


@FUZZ
@given(st.sampled_from(keys), api_values)
def test_fuzz_overrides_in_python(key, value):
    try:
        apply_overrides(Stack(), Workload(), {key: value})
    except SpecError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 1000


def test_write_report_in_python_never_overwrites_its_source(tmp_path):
    from iosim.report import write_report

    src = tmp_path / "sweep.json"
    src.write_text('[{"numjobs": 1, "iops": 100.0, "lat_mean_s": 0.01}]')
    before = src.read_bytes()
    with pytest.raises(SpecError, match="would destroy the input"):
        write_report(str(src), output=str(src))
    assert src.read_bytes() == before


def test_claims_beyond_any_device_are_refused_in_one_line(capsys):
    refused(capsys, "check-claim", "--iops", "1e300", "--qd", "1e300", contains="--iops")
    refused(capsys, "check-claim", "--iops", "1M", "--bandwidth", "1e30B/s",
            contains="--bandwidth")

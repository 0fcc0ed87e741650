"""Adversarial inputs: whatever goes in, only the documented error types come out, each
naming what was wrong. Case counts are set per target below (hypothesis `max_examples`)."""

import string
import subprocess
import sys
import time

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import iosim
from iosim import traces
from iosim.cli import main as cli_main
from iosim.devices import GenericDevice
from iosim.spec import SpecError
from iosim.stack import BlockSpec, HbaSpec, LinkSpec, MultipathSpec, Stack, load_toml
from iosim.units import UnitError, parse_rate, parse_size, parse_time
from iosim.workload import Workload

FUZZ = settings(max_examples=300, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

junk = st.one_of(
    st.text(max_size=20),
    st.text(alphabet=string.digits + ".-+eE kKmMgGiBbs/µun", max_size=12),
    st.integers(-10**12, 10**12),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.lists(st.integers(), max_size=3),
)


@FUZZ
@given(junk)
def test_unit_parsers_raise_only_unit_errors(value):
    for parse in (parse_size, parse_time, parse_rate):
        try:
            parse(value, "x")
        except UnitError as exc:  # names the key: unreadable, or a bare time without its unit
            msg = str(exc)
            assert "x: cannot read" in msg or (msg.startswith("x=") and "needs a unit" in msg)


SPECS = {
    "hba": (HbaSpec, ["queue_depth"]),
    "block": (BlockSpec, ["nr_requests", "max_sectors_bytes"]),
    "multipath": (MultipathSpec, ["paths", "policy", "failover_timeout_s", "failures"]),
    "link": (LinkSpec, ["latency_s", "bandwidth_Bps"]),
    "device": (GenericDevice, ["units", "service", "media_rate_Bps"]),
    "workload": (Workload, ["rw", "rwmixread", "block_size_bytes", "bssplit", "numjobs",
                            "iodepth", "rate_iops", "span_bytes", "thinktime_s"]),
}


@FUZZ
@given(st.sampled_from(sorted(SPECS)), st.data())
def test_spec_constructors_raise_only_spec_errors_naming_the_key(section, data):
    cls, keys = SPECS[section]
    key = data.draw(st.sampled_from(keys))
    value = data.draw(junk)
    try:
        cls(**{key: value})
    except SpecError as exc:
        assert key in str(exc), str(exc)


toml_text = st.one_of(
    st.text(max_size=200),
    st.builds(lambda sec, key, val: f"[{sec}]\n{key} = {val}\n",
              st.sampled_from(["hba", "block", "multipath", "link", "device", "workload", "x"]),
              st.sampled_from(["queue_depth", "paths", "units", "service", "numjobs", "rw",
                               "policy", "latency_s", "kind", "bogus"]),
              st.sampled_from(['0', '-1', '"4kk"', '"exp:1ms"', '1e400', '[1, 2]', '"inf"',
                               '{a = 1}', 'true', '"round-robin"', '"generic"', '3'])),
)


@FUZZ
@given(toml_text)
def test_toml_loader_raises_only_spec_errors_naming_the_file(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("t") / "stack.toml"
    path.write_text(text, encoding="utf-8")
    try:
        load_toml(path)
    except SpecError as exc:
        assert "stack.toml" in str(exc), str(exc)


cli_args = st.lists(st.sampled_from([
    "run", "sweep", "presets", "check-claim", "parse", "--numjobs", "0", "-3", "4kk", "--bs",
    "--iodepth", "--set", "hba.queue_depth=0", "nope.key=1", "--vary", "workload.numjobs=",
    "--ios", "1e9x", "--preset", "missing", "--iops", "-5", "--json", "--engine", "warp",
    "--rate-iops", "1M", "--latency", "fast", "--seed", "-1", "--replications", "0",
]), min_size=1, max_size=6)


@settings(max_examples=150, deadline=None)
@given(cli_args)
def test_cli_flags_exit_cleanly(argv):
    # large runs are not the point here: cap the work any accepted command could do
    argv = [*argv, "--ios", "50"] if argv[0] in ("run", "sweep") else argv
    try:
        code = cli_main(argv)
    except SystemExit as exc:  # --help style exits from argparse
        code = exc.code
    assert code in (0, 2)


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(sorted(traces.FORMATS)), st.binary(max_size=400))
@example("vdbench-parm", b",")  # found by this test: a statement of separators only
def test_parsers_raise_only_trace_format_errors(tmp_path_factory, fmt, blob):
    path = tmp_path_factory.mktemp("p") / "input.txt"
    path.write_bytes(blob)
    try:
        traces.read(path, format=fmt)
    except traces.TraceFormatError as exc:
        assert "input.txt" in str(exc), str(exc)


def test_a_one_gigabyte_garbage_file_is_refused_quickly(tmp_path):
    big = tmp_path / "garbage.json"
    with open(big, "wb") as f:
        f.truncate(1024**3)  # sparse: costs no disk
    t0 = time.perf_counter()
    with pytest.raises(traces.TraceFormatError, match="garbage.json"):
        traces.read(big)
    assert time.perf_counter() - t0 < 5  # refused before reading, not after


def test_cli_error_is_one_line_without_traceback():
    out = subprocess.run([sys.executable, "-m", "iosim.cli", "run", "--set", "hba.queue_depth=0"],
                         capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0
    assert "hba.queue_depth must be >= 1 (got 0)" in out.stderr
    assert "Traceback" not in out.stderr


def test_simulate_rejects_bad_run_arguments():
    for kwargs, msg in (({"ios": 0}, "ios must be"), ({"seed": -1}, "seed must be"),
                        ({"engine": "warp"}, "engine must be one of"),
                        ({"warmup_ios": -5}, "warmup_ios must be")):
        with pytest.raises(SpecError, match=msg):
            iosim.simulate(Stack(), Workload(), **kwargs)

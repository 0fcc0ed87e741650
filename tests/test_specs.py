import math

import pytest

import iosim
from iosim.devices import GenericDevice
from iosim.dists import Exponential
from iosim.spec import SpecError
from iosim.stack import (
    BlockSpec,
    HbaSpec,
    HostSpec,
    LinkSpec,
    MultipathSpec,
    PathEvent,
    Stack,
    apply_overrides,
    dump_toml,
    load_toml,
    parse_assignments,
)
from iosim.workload import Workload


def test_defaults_match_the_documented_schema():
    s = Stack()
    assert s.block.nr_requests == 256
    assert s.block.max_sectors_bytes == 524288
    assert s.hba.queue_depth == 32
    assert s.multipath.paths == 1 and s.multipath.policy == "round-robin"
    assert s.link.bandwidth_Bps == math.inf
    assert s.device.kind == "generic" and s.device.units == 1
    assert s.host.overhead.mean_s == 0 and s.host.cpus == 0


def test_human_units_are_parsed_once_at_construction():
    d = GenericDevice(units=64, service="exp:0.46ms", media_rate_Bps="2GB/s")
    assert d.service == Exponential(0.46e-3)
    assert d.media_rate_Bps == 2e9
    w = Workload(block_size_bytes="16k", span_bytes="1G", rate_iops="25k")
    assert (w.block_size_bytes, w.span_bytes, w.rate_iops) == (16384, 1024**3, 25000)
    assert w.open_loop


def test_workload_derived_quantities():
    w = Workload(rw="randrw", rwmixread=75, numjobs=4, iodepth=8, bssplit="4k/50:64k/50")
    assert w.read_fraction == 0.75 and w.random and w.outstanding == 32
    assert w.mean_block_bytes == pytest.approx((4096 + 65536) / 2)
    assert Workload(rw="write").read_fraction == 0.0 and not Workload(rw="write").random


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: HbaSpec(queue_depth=0), r"hba.queue_depth must be >= 1 \(got 0\)"),
        (lambda: MultipathSpec(policy="random"), r"multipath.policy must be one of round-robin"),
        (lambda: MultipathSpec(paths=0), r"multipath.paths must be >= 1 \(got 0\)"),
        (lambda: LinkSpec(latency_s="-1ms"), r"link.latency_s must be a time >= 0"),
        (lambda: BlockSpec(max_sectors_bytes=1000), r"block.max_sectors_bytes must be a multiple"),
        (lambda: Workload(block_size_bytes="4kk"), r"workload.block_size_bytes: cannot read '4kk'"),
        (lambda: Workload(numjobs=0), r"workload.numjobs must be >= 1"),
        (lambda: Workload(iodepth=2.5), r"workload.iodepth must be a whole number"),
        (lambda: Workload(rw="random"), r"workload.rw must be one of"),
        (lambda: GenericDevice(units=0), r"device.units must be >= 1 \(got 0\)"),
        (lambda: HostSpec(cpus=-1), r"host.cpus must be >= 0 \(0: no shared CPU limit\) \(got -1"),
        (lambda: HostSpec(cpus=1.5), r"host.cpus must be a whole number \(got 1.5\)"),
        (lambda: GenericDevice(service="exp:-2ms"), r"device.service"),
        (
            lambda: MultipathSpec(paths=1, failures=[{"path": 0, "fail_at_s": "1ms"}]),
            "every path fails for good",
        ),
        (
            lambda: MultipathSpec(paths=2, failures=[{"path": 2, "fail_at_s": 0}]),
            r"path must be < multipath.paths = 2",
        ),
        (
            lambda: PathEvent(path=0, fail_at_s=1, restore_at_s=0.5),
            r"restore_at_s must be after fail_at_s",
        ),
    ],
)
def test_invalid_values_name_key_value_and_allowed(make, message):
    with pytest.raises(SpecError, match=message):
        make()


def test_specs_are_frozen():
    s = Stack()
    with pytest.raises(AttributeError):
        s.hba.queue_depth = 8


def test_toml_round_trip(tmp_path):
    stack = Stack(
        host=HostSpec(overhead="exp:20us", cpus=4),
        hba=HbaSpec(queue_depth=4),
        multipath=MultipathSpec(
            paths=2,
            policy="queue-length",
            failover_timeout_s="30ms",
            failures=[{"path": 1, "fail_at_s": "1s", "restore_at_s": "2s"}],
        ),
        link=LinkSpec(latency_s="10us", bandwidth_Bps="1GB/s"),
        device=GenericDevice(units=8, service="lognormal:0.3ms,scv=1.5", media_rate_Bps="2GB/s"),
        name="demo",
    )
    wl = Workload(rw="randrw", rwmixread=70, numjobs=3, iodepth=2, bssplit="4k/60:64k/40")
    path = tmp_path / "s.toml"
    path.write_text(dump_toml(stack, wl))
    back, wl_back = load_toml(path)
    assert back == stack
    assert wl_back == wl


def test_toml_errors_name_the_file_and_key(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text("[hba]\nqueue_depht = 4\n")
    with pytest.raises(SpecError, match=r"bad.toml: unknown key hba.queue_depht"):
        load_toml(p)
    p.write_text("[hba]\nqueue_depth = 0\n")
    with pytest.raises(SpecError, match=r"bad.toml: hba.queue_depth must be >= 1 \(got 0\)"):
        load_toml(p)
    p.write_text("[hab]\n")
    with pytest.raises(SpecError, match=r"unknown section 'hab'"):
        load_toml(p)
    p.write_text("[hba\n")
    with pytest.raises(SpecError, match=r"not valid TOML"):
        load_toml(p)
    with pytest.raises(SpecError, match="no such file"):
        load_toml(tmp_path / "missing.toml")


def test_dotted_overrides():
    stack, wl = apply_overrides(
        Stack(),
        Workload(),
        parse_assignments(["hba.queue_depth=4", "device.units=16", "workload.numjobs=8",
                           "device.service=exp:1ms", "host.cpus=4", "workload.bs_unused=1"][:5]),
    )
    assert stack.host.cpus == 4
    assert stack.hba.queue_depth == 4 and stack.device.units == 16
    assert stack.device.service == Exponential(1e-3)
    assert wl.numjobs == 8
    assert stack.with_(**{"multipath.paths": 3}).multipath.paths == 3


@pytest.mark.parametrize(
    "key, value, message",
    [
        ("hba.depth", "4", r"unknown key hba.depth; allowed in \[hba\]: queue_depth"),
        ("nothing.here", "4", r"unknown key 'nothing.here'"),
        ("hba", "4", r"unknown key 'hba'"),
        ("workload.numjobs", "-1", r"workload.numjobs must be >= 1 \(got -1\)"),
        ("device.kind", "tape", r"device.kind must be one of"),
    ],
)
def test_bad_overrides(key, value, message):
    with pytest.raises(SpecError, match=message):
        apply_overrides(Stack(), Workload(), {key: value})


def test_assignment_syntax():
    with pytest.raises(SpecError, match="KEY=VALUE"):
        parse_assignments(["hba.queue_depth"])


def test_presets_load_and_describe_themselves():
    names = iosim.presets.names()
    assert {"allflash-lun", "allflash-lun-qd4", "allflash-lun-4path"} <= set(names)
    for name, desc in iosim.presets.catalogue():
        assert desc, f"preset {name} has no description"
        stack, _ = iosim.presets.load(name)
        assert stack.name == name
    with pytest.raises(SpecError, match="unknown preset 'nope'; known presets: allflash-lun"):
        iosim.presets.load("nope")

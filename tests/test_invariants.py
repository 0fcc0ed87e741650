"""Exact invariants of every run: Little's law at each layer, I/Os conserved, determinism."""

import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import iosim
from iosim.devices import GenericDevice
from iosim.stack import BlockSpec, HbaSpec, HostSpec, LinkSpec, MultipathSpec, Stack
from iosim.workload import Workload

services = st.sampled_from(["det:0.5ms", "exp:0.5ms", "lognormal:0.4ms,scv=2",
                            "gamma:1ms,scv=0.3", "uniform:0.1ms,0.9ms"])


@st.composite
def stacks(draw):
    paths = draw(st.integers(1, 4))
    return Stack(
        host=HostSpec(overhead=draw(st.sampled_from(["0", "det:50us", "exp:0.2ms"]))),
        block=BlockSpec(nr_requests=draw(st.integers(1, 64)),
                        max_sectors_bytes=draw(st.sampled_from([65536, 524288]))),
        hba=HbaSpec(queue_depth=draw(st.integers(1, 16))),
        multipath=MultipathSpec(paths=paths, policy=draw(st.sampled_from(
            ["round-robin", "queue-length", "service-time"]))),
        link=LinkSpec(latency_s=draw(st.sampled_from([0.0, 20e-6])),
                      bandwidth_Bps=draw(st.sampled_from(["inf", "1GB/s"]))),
        device=GenericDevice(units=draw(st.integers(1, 16)), service=draw(services),
                             media_rate_Bps=draw(st.sampled_from(["inf", "2GB/s"]))),
    )


@st.composite
def workloads(draw):
    return Workload(
        rw=draw(st.sampled_from(["randread", "randwrite", "randrw", "read"])),
        block_size_bytes=draw(st.sampled_from(["4k", "64k", "1M"])),
        numjobs=draw(st.integers(1, 8)),
        iodepth=draw(st.integers(1, 4)),
    )


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stacks(), workloads(), st.integers(0, 2**31))
def test_littles_law_at_every_layer_and_ios_conserved(stack, wl, seed):
    r = iosim.simulate(stack, wl, ios=4000, seed=seed)
    for name, layer in r.extra["layers"].items():
        lhs = layer["outstanding"]
        rhs = layer["throughput"] * layer["latency_s"]
        # the window cuts at most the I/Os in flight at its two ends: N / ios <= 32 / 4000
        assert abs(lhs - rhs) <= 0.01 * lhs, (name, lhs, rhs)
    c = r.counters
    assert c["duplicates"] == 0
    assert c["issued"] == c["completed"] + c["in_flight"]
    assert c["in_flight"] <= wl.outstanding
    assert r.ios == 4000
    # block requests: each I/O of size b is split into ceil(b / max_sectors) requests
    parts = -(-wl.block_size_bytes // stack.block.max_sectors_bytes)
    # (up to the parts of the I/Os cut by the window's ends)
    assert abs(r.block_iops / r.iops - parts) <= 0.01 * parts
    assert 0 <= r.util <= 1 and 0 <= r.unit_util <= r.util + 1e-12
    assert abs(sum(r.qd_dist.values()) - 1) < 1e-9
    assert r.lat_p50_s <= r.lat_p95_s <= r.lat_p99_s <= r.lat_p999_s <= r.lat_max_s


def test_same_seed_same_json_byte_for_byte_and_other_seed_differs():
    stack = Stack(device=GenericDevice(units=8, service="exp:0.46ms"))
    wl = Workload(numjobs=6, iodepth=2, rw="randrw")
    a = iosim.simulate(stack, wl, ios=3000, seed=42).to_json()
    b = iosim.simulate(stack, wl, ios=3000, seed=42).to_json()
    c = iosim.simulate(stack, wl, ios=3000, seed=43).to_json()
    assert a == b
    assert a != c


def test_same_seed_same_output_across_processes():
    cmd = [sys.executable, "-m", "iosim.cli", "run", "--numjobs", "6", "--ios", "2000",
           "--seed", "7", "--set", "device.service=exp:0.46ms", "--json"]
    outs = [subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
            for _ in range(2)]
    assert outs[0] == outs[1]
    assert json.loads(outs[0])["seed"] == 7


def test_a_component_stream_does_not_shift_when_another_draws_more():
    # common random numbers: the device's service times do not depend on the host's draws
    base = Stack(device=GenericDevice(units=1, service="exp:1ms"))
    wl = Workload(numjobs=1)
    r0 = iosim.simulate(base, wl, ios=500, warmup_ios=0, seed=3)
    r1 = iosim.simulate(base.with_(**{"host.overhead": "exp:1ms"}), wl, ios=500,
                        warmup_ios=0, seed=3)
    # one job, one unit: device time per I/O is the same sequence in both runs
    assert r0.device_lat_mean_s == pytest.approx(r1.device_lat_mean_s, rel=1e-12)
    assert r0.iops != pytest.approx(r1.iops, rel=0.1)  # while the host really did change

"""The SSD family: mapping and GC physics, and the SimPy model against queueing theory."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from scipy.optimize import brentq

import iosim
from iosim import SpecError, Stack, Workload, theory
from iosim.devices import DEVICE_KINDS, SsdDevice
from iosim.devices.ssd import (
    SLOW_ALL,
    SLOW_BY_PAGE,
    SLOW_NONE,
    ssd_array_s,
    ssd_die_of,
    ssd_gc_extra_s,
    ssd_group_bytes,
    ssd_page_is_slow,
    ssd_pages,
    ssd_write_amplification,
)
from iosim.dists import Empirical, dist_args, parse_dist
from iosim.stack import BlockSpec, HbaSpec


def test_array_time_batches_pages_by_plane_and_takes_the_slowest():
    fast, slow = dist_args(parse_dist("det:50us")), dist_args(parse_dist("det:80us"))
    rng = np.random.default_rng(0)
    # 5 pages of die 0 of 4 (lpn 0, 4, 8, 12, 16): batches of 2 -> (0, 4) (8, 12) (16); MLC
    # pairing makes lpn 4 and 12 slow (their index on the die is odd)
    two_slow = 80e-6 * 2 + 50e-6
    assert ssd_array_s(0, 5, 2, 4, SLOW_BY_PAGE, fast, slow, rng) == pytest.approx(two_slow)
    assert ssd_array_s(0, 5, 2, 4, SLOW_NONE, fast, slow, rng) == pytest.approx(3 * 50e-6)
    assert ssd_array_s(0, 5, 5, 4, SLOW_ALL, fast, slow, rng) == pytest.approx(80e-6)
    assert ssd_array_s(0, 5, 1, 4, SLOW_BY_PAGE, fast, slow, rng) == pytest.approx(
        3 * 50e-6 + 2 * 80e-6)


@pytest.mark.parametrize("slow_rule", [SLOW_NONE, SLOW_BY_PAGE, SLOW_ALL])
def test_array_time_compiled_draws_what_the_reference_draws(slow_rule):
    """The one function both engines call: compiled, it draws the same numbers from the same
    stream as the plain Python the SimPy model runs, empirical samples included."""
    from iosim.engine.fast_ssd_steps import ssd_array_s as _ssd_array_s

    fast = dist_args(Empirical((10e-6, 20e-6, 35e-6, 90e-6)))
    slow = dist_args(parse_dist("gamma:0.5ms,scv=2"))
    for first, pages, planes in ((3, 7, 2), (0, 1, 1), (5, 9, 4)):
        ref_rng, jit_rng = np.random.default_rng(7), np.random.default_rng(7)
        ref = [ssd_array_s(first, pages, planes, 6, slow_rule, fast, slow, ref_rng)
               for _ in range(20)]
        jit = [_ssd_array_s(first, pages, planes, 6, slow_rule, fast, slow, jit_rng)
               for _ in range(20)]
        assert ref == jit
        assert ref_rng.random() == jit_rng.random()  # (the streams advanced alike)


def test_registered_and_round_trip():
    assert DEVICE_KINDS["ssd"] is SsdDevice
    d = SsdDevice(read_slow_s="exp:100us", write_buffer_bytes="1MiB")
    table = d.to_dict()
    assert table["kind"] == "ssd" and table["read_slow_s"] == "exp:100us"
    assert Stack.from_dict({"device": table}).device == d
    assert d.units == d.dies == 32


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"dies_per_channel": 0}, "device.dies_per_channel must be >= 1 (got 0)"),
        ({"channels": 0}, "device.channels must be >= 1 (got 0)"),
        ({"page_bytes": 1000}, "device.page_bytes must be a multiple of 512 bytes"),
        ({"write_buffer_bytes": 100}, "device.write_buffer_bytes must be 0 or at least one page"),
        ({"read_buffer_bytes": "4k"}, "device.read_buffer_bytes must be at least one page"),
        ({"fullness": 0}, "device.fullness must be in (0, 1]"),
        ({"write_amplification": 0.5}, "device.write_amplification must be >= 1"),
        ({"read_s": "exp:-1ms"}, "device.read_s"),
    ],
)
def test_bad_parameters(kw, message):
    with pytest.raises(SpecError, match=message.replace("(", r"\(").replace(")", r"\)")):
        SsdDevice(**kw)


def test_pages_and_channel_first_striping():
    assert ssd_pages(0, 4096, 4096) == (0, 1)
    assert ssd_pages(4096, 16384, 8192) == (0, 3)
    assert ssd_pages(8192, 16384, 8192) == (1, 2)
    ch, die = ssd_die_of(np.arange(12), 4, 3)
    assert list(ch) == [0, 1, 2, 3] * 3
    assert list(die) == [0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11]
    # every die gets the same share of a long run of pages
    _, die = ssd_die_of(np.arange(1200), 4, 3)
    assert np.all(np.bincount(die) == 100)
    assert not ssd_page_is_slow(0, 12) and ssd_page_is_slow(12, 12)


def test_write_amplification_solves_the_cleaning_equation():
    for u in (0.5, 0.78, 0.9, 0.95):
        x = brentq(lambda x, u=u: x - math.exp(-(1 - x) / u), 0.0, 1.0 - 1e-12)
        if x > 1 - 1e-9:  # the trivial root; take the one below it
            x = brentq(lambda x, u=u: x - math.exp(-(1 - x) / u), 0.0, 0.999999)
        assert ssd_write_amplification(u) == pytest.approx(1 / (1 - x), rel=1e-6)
    was = [ssd_write_amplification(u) for u in (0.5, 0.7, 0.9, 0.97)]
    assert all(a < b for a, b in zip(was, was[1:], strict=False))
    assert ssd_gc_extra_s(1.0, 50e-6, 1e-3, 3e-3, 256) == pytest.approx(3e-3 / 256)


def _stack(dev, nr=4096):
    return Stack(device=dev, block=BlockSpec(nr_requests=nr), hba=HbaSpec(queue_depth=nr))


def test_one_die_per_channel_is_a_set_of_mm1_queues():
    """Random routing of Poisson arrivals over K exponential dies: K independent M/M/1."""
    k, s = 4, 100e-6
    d = SsdDevice(channels=k, dies_per_channel=1, page_bytes="4k", read_s=f"exp:{s}",
                  channel_rate_Bps="inf")
    lam = 0.6 * k / s
    r = iosim.simulate(_stack(d), Workload(rw="randread", rate_iops=lam), ios=12000, seed=3)
    mm1 = theory.mm1(lam / k, s)
    assert r.iops == pytest.approx(lam, rel=0.03)
    assert r.lat_mean_s == pytest.approx(mm1["latency_s"], rel=0.07)
    assert r.unit_util == pytest.approx(0.6, rel=0.03)


def test_collisions_keep_a_closed_loop_below_full_parallelism():
    """N requests over K exponential dies (product form): X = K/S * N / (N + K - 1)."""
    k, s, n = 8, 100e-6, 8
    d = SsdDevice(channels=k, dies_per_channel=1, page_bytes="4k", read_s=f"exp:{s}",
                  channel_rate_Bps="inf")
    r = iosim.simulate(_stack(d), Workload(rw="randread", iodepth=n), ios=8000, seed=4)
    assert r.iops == pytest.approx(k / s * n / (n + k - 1), rel=0.04)
    assert r.iops < 0.6 * k / s  # far below K/S although N = K


def test_host_interface_caps_iops():
    d = SsdDevice(channels=16, dies_per_channel=8, read_s="20us", host_interface_Bps="1GB/s")
    wl = Workload(rw="randread", block_size_bytes="16k", iodepth=128)
    r = iosim.simulate(_stack(d), wl, ios=6000, seed=1)
    assert r.bandwidth_Bps == pytest.approx(1e9, rel=0.01)


def test_reads_move_only_their_bytes_over_the_channel():
    """A 4 KiB read of a 16 KiB page moves 4 KiB: with the channels the bottleneck,
    X = channels x rate / 4 KiB, four times what whole-page transfers would allow."""
    assert [ssd_group_bytes(4096, 16384, 8192, 0, 3, g, 54) for g in range(3)] == [
        4096, 8192, 4096]
    # 13 pages over 4 dies: the first die holds pages 0, 4, 8 and 12, the request's first and
    # last, so it loses the 1000 bytes before the request and the 5496 after it
    assert ssd_group_bytes(1000, 100000, 8192, 0, 13, 0, 4) == 4 * 8192 - 1000 - 5496
    assert sum(ssd_group_bytes(1000, 100000, 8192, 0, 13, g, 4) for g in range(4)) == 100000
    d = SsdDevice(channels=2, dies_per_channel=8, page_bytes="16k", read_s="1us",
                  channel_rate_Bps="100MB/s")
    wl = Workload(rw="randread", block_size_bytes="4k", align_bytes="4k", iodepth=64)
    r = iosim.simulate(_stack(d), wl, ios=8000, warmup_ios=1000, seed=1)
    assert r.iops == pytest.approx(2 * 100e6 / 4096, rel=0.02)


def test_one_page_read_buffer_serialises_channel_and_link():
    """With room for one page, each page's channel transfer and link transfer run one after
    the other, everything else overlapping: X = 1 / (page / channel + page / link)."""
    d = SsdDevice(channels=8, dies_per_channel=4, page_bytes="16k", read_s="50us",
                  channel_rate_Bps="400MB/s", host_interface_Bps="2GB/s",
                  read_buffer_bytes="16k")
    wl = Workload(rw="randread", block_size_bytes="16k", align_bytes="16k", iodepth=64)
    r = iosim.simulate(_stack(d), wl, ios=4000, warmup_ios=500, seed=1)
    assert r.iops == pytest.approx(1 / (16384 / 400e6 + 16384 / 2e9), rel=1e-3)
    # with room for the link's bandwidth-delay product the link is the bottleneck again
    big = iosim.simulate(_stack(replace(d, read_buffer_bytes="512k")), wl, ios=4000,
                         warmup_ios=500, seed=1)
    assert big.bandwidth_Bps == pytest.approx(2e9, rel=0.01)


def test_read_buffer_back_pressure_spreads_latency_at_the_link_cap():
    """At the host-interface cap an unbounded buffer queues everyone in one FIFO at the link
    (every wait close to N / X); a bounded one leaves the backlog in the die queues, where
    collisions spread it. Same throughput, same mean (Little), a longer tail."""
    d = SsdDevice(channels=8, dies_per_channel=8, page_bytes="8k", read_s="exp:50us",
                  channel_rate_Bps="400MB/s", host_interface_Bps="1GB/s")
    wl = Workload(rw="randread", block_size_bytes="8k", align_bytes="8k", iodepth=256)
    kw = dict(ios=40000, warmup_ios=4000, seed=2)
    fifo = iosim.simulate(_stack(d), wl, **kw)
    held = iosim.simulate(_stack(replace(d, read_buffer_bytes="64k")), wl, **kw)
    for r in (fifo, held):
        assert r.bandwidth_Bps == pytest.approx(1e9, rel=0.01)
        assert r.lat_mean_s == pytest.approx(256 / r.iops, rel=0.01)
    assert fifo.lat_p95_s < 1.1 * fifo.lat_mean_s
    assert held.lat_p95_s > 2 * held.lat_mean_s


def test_write_buffer_acknowledges_then_programs_at_die_speed_with_gc():
    d = SsdDevice(channels=2, dies_per_channel=2, page_bytes="4k", program_s="1ms",
                  channel_rate_Bps="inf", write_buffer_bytes="64k", gc=True,
                  write_amplification=3.0, read_s="50us", erase_s="2ms", pages_per_block=128)
    # slow trickle: every write fits in the buffer and is acknowledged at once
    slow = iosim.simulate(_stack(d), Workload(rw="randwrite", rate_iops=100), ios=300, seed=1)
    assert slow.lat_mean_s == pytest.approx(0.0, abs=1e-9)
    # sustained: the FTL hands each free die the next page, so all 4 dies program all the
    # time (no collisions); each page costs program + GC (2 copies + 3/128 erases)
    per_page = 1e-3 + ssd_gc_extra_s(3.0, 50e-6, 1e-3, 2e-3, 128)
    wl = Workload(rw="randwrite", iodepth=32)
    r = iosim.simulate(_stack(d), wl, ios=4000, warmup_ios=500, seed=1)
    assert r.iops == pytest.approx(4 / per_page, rel=0.005)
    assert r.counters["device"]["page_programs"] >= r.counters["device"]["buffered_writes"] - 16
    off = iosim.simulate(_stack(replace(d, gc=False)), wl, ios=4000, warmup_ios=500, seed=1)
    assert off.iops == pytest.approx(4 / 1e-3, rel=0.005)


def test_buffered_writes_share_multi_plane_programs_and_alternate_page_types():
    """Two 4 KiB writes fill one two-plane program; MLC dies alternate a fast (1 ms) and a slow
    (3 ms) program, and the channel moves each program's 8 KiB first:
    X = dies x 2 writes / (mean program + 2 pages over the channel)."""
    d = SsdDevice(channels=2, dies_per_channel=3, planes_per_die=2, page_bytes="4k",
                  program_s="1ms", program_slow_s="3ms", channel_rate_Bps="100MB/s",
                  write_buffer_bytes="1MiB", gc=False)
    wl = Workload(rw="randwrite", block_size_bytes="4k", iodepth=64)
    r = iosim.simulate(_stack(d), wl, ios=20000, warmup_ios=2000, seed=1)
    xfer = 2 * 4096 / 100e6
    assert r.iops == pytest.approx(6 * 2 / (2e-3 + xfer), rel=0.01)
    # every 4 KiB written is programmed once (one page), but for what the buffer still holds
    progs, writes = (r.counters["device"][k] for k in ("page_programs", "buffered_writes"))
    assert writes - 256 <= progs <= writes


def test_sequential_writes_leave_nothing_to_clean():
    """Random writes to a full drive pay the write amplification of its fullness; a sequential
    stream invalidates whole blocks (WA 1) unless a WA is given."""
    d = SsdDevice(channels=2, dies_per_channel=2, page_bytes="4k", program_s="1ms",
                  channel_rate_Bps="inf", write_buffer_bytes="64k", fullness=1.0,
                  over_provisioning=0.1, erase_s="2ms", pages_per_block=128, read_s="50us")
    assert d.under(random_writes=True) is d
    assert d.under(random_writes=False).wa == 1.0
    assert d.wa == pytest.approx(ssd_write_amplification(1 / 1.1))
    kw = dict(ios=3000, warmup_ios=500, seed=1)
    rand = iosim.simulate(_stack(d), Workload(rw="randwrite", iodepth=32), **kw)
    seq = iosim.simulate(_stack(d), Workload(rw="write", iodepth=32), **kw)
    assert rand.iops == pytest.approx(4 / (1e-3 + d.gc_extra_s()), rel=0.005)
    assert seq.iops == pytest.approx(4 / (1e-3 + 2e-3 / 128), rel=0.005)
    given = replace(d, write_amplification=2.0)
    seq2 = iosim.simulate(_stack(given), Workload(rw="write", iodepth=32), **kw)
    assert seq2.iops == pytest.approx(4 / (1e-3 + given.gc_extra_s()), rel=0.005)


def test_mlc_page_types_spread_the_latency():
    d = SsdDevice(channels=4, dies_per_channel=1, page_bytes="4k", read_s="60us",
                  read_slow_s="100us", channel_rate_Bps="inf")
    r = iosim.simulate(_stack(d), Workload(rw="randread"), ios=3000, seed=2)
    assert r.lat_mean_s == pytest.approx(80e-6, rel=0.03)
    assert r.lat_p95_s == pytest.approx(100e-6, rel=0.01)

"""Streamed replay: the trace read in buffers, completions handed out in batches, bounded stats.

* Buffer sizes change nothing: any chunk and completion-batch size gives the same numbers on
  both engines.
* A trace streamed from its file (``BlockTraceFile``) replays as the same trace read whole.
* The bounded statistics (histograms, ``exact=False``) agree with the exact ones within
  tolerances fixed before the comparison was first run, from the histograms' construction:
  a percentile read from a 0.1 % bin is within 0.1 % of the exact value (1 % for the
  per-window 1 % bins); counts, maxima and the engine's own results are exact; means differ
  only by summation order (1e-9); the demerit figure moves by at most the RMS of its
  quantiles' errors, under 0.1 % of the two CDFs' RMS quantiles added, and on the Atlas 10K
  validation trace by at most 1 % of itself.
"""

import math
from pathlib import Path

import numpy as np
import pytest
from equality import differences

from iosim import presets
from iosim.devices import GenericDevice
from iosim.engine import trace_source
from iosim.replay import replay
from iosim.stack import Stack
from iosim.traces import read_block_trace
from iosim.traces.block_stream import BlockTraceFile
from iosim.traces.blocktrace import BlockTrace

ATLAS_TRACE = (Path(__file__).resolve().parents[1] / ".." / "shared" / "blocktraces"
               / "disksim-validate" / "quantum-atlas10k-dixtrac.trace")

PCT_REL = 1e-3  # a 0.1 % bin
WIN_PCT_REL = 1e-2  # a 1 % bin
MEAN_REL = 1e-9


def random_trace(n, *, seed=1, gap_s=1e-3, measured_fraction=0.8):
    rng = np.random.default_rng(seed)
    lat = rng.lognormal(math.log(2e-3), 0.6, n)
    lat[rng.random(n) >= measured_fraction] = np.nan
    return BlockTrace(arrival_s=np.cumsum(rng.exponential(gap_s, n)) - gap_s,
                      offset_bytes=rng.integers(0, 2 * 10**6, n) * 4096.0,
                      size_bytes=rng.choice([4096.0, 65536.0, 262144.0], n),
                      is_read=rng.random(n) < 0.7, latency_s=lat,
                      idle_s=rng.exponential(gap_s, n), source="test")


HDD = presets.load("hdd-atlas10k")[0]
GENERIC = Stack(device=GenericDevice(units=3, service="exp:0.4ms"))
MODES = {"open": dict(speed=1.3, warmup=40), "closed": dict(mode="closed", outstanding=5),
         "validate": dict(mode="validate")}


def assert_same(a, b):
    assert differences(a.results, b.results) == []
    assert np.array_equal(a.latency_s, b.latency_s, equal_nan=True)
    assert np.array_equal(a.issue_s, b.issue_s, equal_nan=True)
    assert a.windows.df.equals(b.windows.df)
    assert (a.comparison is None) == (b.comparison is None)
    if a.comparison is not None:
        assert a.comparison.to_dict() == b.comparison.to_dict()


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("engine", ["simpy", "fast"])
def test_buffer_sizes_change_nothing(monkeypatch, mode, engine):
    t = random_trace(700, seed=5, gap_s=4e-3)
    ref = replay(t, HDD, engine=engine, seed=2, **MODES[mode])
    monkeypatch.setattr(trace_source, "CHUNK_REQUESTS", 7)
    monkeypatch.setattr(trace_source, "OUT_RECORDS", 5)
    small = replay(t, HDD, engine=engine, seed=2, **MODES[mode])
    assert_same(ref, small)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_engines_agree_with_small_buffers(monkeypatch, mode):
    monkeypatch.setattr(trace_source, "CHUNK_REQUESTS", 64)
    monkeypatch.setattr(trace_source, "OUT_RECORDS", 33)
    t = random_trace(900, seed=6, gap_s=1e-3)
    a = replay(t, GENERIC, engine="simpy", seed=4, **MODES[mode])
    b = replay(t, GENERIC, engine="fast", seed=4, **MODES[mode])
    assert_same(a, b)


def _write_validate(path, n, seed):
    rng = np.random.default_rng(seed)
    lines = [f"{'R' if r else 'W'} Miss {int(b)} {int(s)} {lat:.5f} {g:.5f}"
             for r, b, s, lat, g in zip(rng.random(n) < 0.6, rng.integers(0, 10**7, n),
                                        rng.choice([8, 16, 128], n),
                                        rng.uniform(1000, 20000, n), rng.uniform(10, 3000, n),
                                        strict=True)]
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("spill", [True, False])
def test_a_trace_streamed_from_its_file_replays_as_read_whole(tmp_path, spill):
    path = tmp_path / "t.trace"
    _write_validate(path, 2500, seed=3)
    whole = read_block_trace(path, format="disksim-validate")
    with BlockTraceFile(path, "disksim-validate", chunk_requests=300, spill=spill) as f:
        assert len(f) == len(whole) and f.warnings == whole.warnings
        for kw in (dict(mode="validate"), dict(mode="open", speed=2.0),
                   dict(mode="closed", outstanding=3)):
            assert_same(replay(whole, HDD, **kw), replay(f, HDD, **kw))
        spilled = f._spill_path
    assert spilled is None or not Path(spilled).exists()  # the temporary copy is gone


def _rel(a, b):
    return abs(a - b) / abs(b) if b else abs(a)


def assert_bounded_agrees(exact, bounded):
    assert bounded.latency_s is None and exact.latency_s is not None
    assert differences(exact.results, bounded.results) == []  # the engine's own summary
    for q in (1, 50, 95, 99, 99.9):
        assert _rel(bounded.latency_percentile(q), exact.latency_percentile(q)) <= PCT_REL
    for mine, ref in ((bounded.windows, exact.windows),
                      (bounded.measured_windows, exact.measured_windows)):
        if ref is None:
            assert mine is None
            continue
        assert len(mine) == len(ref)
        for a, b in zip(mine, ref, strict=True):
            assert (a.ios, a.params) == (b.ios, b.params)
            assert _rel(a.iops, b.iops) <= 1e-12
            if b.ios:
                assert a.lat_max_s == b.lat_max_s
                assert _rel(a.lat_mean_s, b.lat_mean_s) <= MEAN_REL
                for k in ("lat_p50_s", "lat_p95_s", "lat_p99_s"):
                    assert _rel(getattr(a, k), getattr(b, k)) <= WIN_PCT_REL, (k, a.params)
    if exact.comparison is None:
        assert bounded.comparison is None
        return
    c, e = bounded.comparison, exact.comparison
    assert c.n == e.n
    for side in ("measured", "simulated"):
        assert _rel(getattr(c, side)["mean_s"], getattr(e, side)["mean_s"]) <= MEAN_REL
        for k in ("p50_s", "p95_s", "p99_s"):
            assert _rel(getattr(c, side)[k], getattr(e, side)[k]) <= PCT_REL, (side, k)
    # the demerit moves by at most the RMS of the quantiles' errors
    probs = np.arange(1, 10_001) * 1e-4
    rms_m = math.sqrt(np.mean(np.quantile(exact.measured_s[np.isfinite(exact.measured_s)],
                                          probs) ** 2))
    rms_s = math.sqrt(np.mean(np.quantile(exact.latency_s[np.isfinite(exact.measured_s)],
                                          probs) ** 2))
    assert abs(c.demerit_s - e.demerit_s) <= PCT_REL * (rms_m + rms_s)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_bounded_statistics_agree_with_the_exact_ones(monkeypatch, mode):
    # small buffers: many pieces in flight at once, a warm-up longer than one of them
    monkeypatch.setattr(trace_source, "CHUNK_REQUESTS", 1000)
    monkeypatch.setattr(trace_source, "OUT_RECORDS", 777)
    t = random_trace(30_000, seed=9, gap_s=1.2e-4 if mode == "open" else 1e-3)
    kw = dict(MODES[mode], window_s=0.25, seed=8)
    if mode == "open":
        kw["warmup"] = 2500
    exact = replay(t, GENERIC, exact=True, **kw)
    bounded = replay(t, GENERIC, exact=False, **kw)
    assert_bounded_agrees(exact, bounded)


@pytest.mark.skipif(not ATLAS_TRACE.exists(), reason="the shared block-trace corpus is absent")
def test_bounded_demerit_of_the_atlas_validation_replay_is_the_exact_one():
    t = read_block_trace(ATLAS_TRACE, format="disksim-validate")
    exact = replay(t, HDD, mode="validate")
    bounded = replay(t, HDD, mode="validate", exact=False, window_s=exact.window_s)
    assert exact.exact and not bounded.exact
    assert_bounded_agrees(exact, bounded)
    assert _rel(bounded.comparison.demerit_s, exact.comparison.demerit_s) <= 0.01


def test_long_traces_keep_histograms_by_default(monkeypatch):
    import importlib

    replay_mod = importlib.import_module("iosim.replay")
    monkeypatch.setattr(replay_mod, "EXACT_MAX", 1000)
    t = random_trace(1500, seed=2)
    r = replay(t, GENERIC)
    assert not r.exact and r.latency_hist.n == 1500 and r.to_dict()["requests"] == 1500
    x, y = r.cdf_points()
    assert np.all(np.diff(x) >= 0) and y[-1] == 1.0
    assert replay(t.head(1000), GENERIC).exact


def test_cli_stream_gives_the_same_answer_as_a_whole_read(tmp_path, capsys):
    import json

    from iosim.cli import main

    path = tmp_path / "v.trace"
    _write_validate(path, 400, seed=8)
    outs = []
    for extra in ([], ["--stream"]):
        assert main(["replay", str(path), "--preset", "hdd-atlas10k", "--json", *extra]) == 0
        outs.append(json.loads(capsys.readouterr().out))
    assert outs[0] == outs[1] and outs[0]["requests"] == 400
    whole = read_block_trace(path, format="disksim-validate")
    reads = int(whole.is_read.sum())
    assert main(["replay", str(path), "--preset", "hdd-atlas10k", "--stream", "--compare"]) == 0
    assert f"400 requests ({reads} reads, {400 - reads} writes" in capsys.readouterr().out


@pytest.mark.parametrize("content, words", [
    ("R Miss 100 8 1000.0 20.0\nR Miss 200 8\n", "bad.trace:2: truncated line"),
    ("", "empty file"),
])
def test_cli_stream_refuses_bad_files_in_one_line(tmp_path, capsys, content, words):
    from iosim.cli import main

    path = tmp_path / "bad.trace"
    path.write_text(content)
    code = main(["replay", str(path), "--format", "disksim-validate", "--preset",
                 "hdd-atlas10k", "--stream"])
    err = capsys.readouterr().err
    assert code == 2 and words in err and err.count("\n") == 1, err
    assert main(["replay", str(tmp_path / "nope.trace"), "--stream"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_speed_search_and_view_on_a_streamed_trace(tmp_path, monkeypatch):
    import importlib

    from iosim import replay_view
    from iosim.replay import max_speed

    path = tmp_path / "v.trace"
    _write_validate(path, 800, seed=4)
    whole = read_block_trace(path, format="disksim-validate")
    with BlockTraceFile(path, "disksim-validate", chunk_requests=100) as f:
        a = max_speed(whole, GENERIC, slo_s=2e-3)
        b = max_speed(f, GENERIC, slo_s=2e-3)
        assert a.to_dict() == b.to_dict()
        monkeypatch.setattr(importlib.import_module("iosim.replay"), "EXACT_MAX", 100)
        r = replay(f, GENERIC)  # bounded: the view draws from the histograms
    assert not r.exact
    fig = replay_view.cdf(r)
    assert [tr.name for tr in fig.data] == ["simulated", "measured"]
    assert fig.data[0].y[-1] == 1.0 and "demerit" in fig.layout.title.text
    assert len(replay_view.timeline(r).data) == 5


def test_a_full_disk_for_the_temporary_copy_falls_back_to_parsing_again(tmp_path, monkeypatch):
    from iosim.traces import block_stream

    def no_room(fh, chunk):
        raise OSError(28, "No space left on device")

    path = tmp_path / "v.trace"
    _write_validate(path, 300, seed=1)
    monkeypatch.setattr(block_stream, "_write_chunk", no_room)
    f = BlockTraceFile(path, "disksim-validate", chunk_requests=100)
    assert f._spill_path is None and "parses the file again" in f.warnings[-1]
    whole = read_block_trace(path, format="disksim-validate")
    assert_same(replay(whole, HDD, mode="validate"), replay(f, HDD, mode="validate"))


def test_replays_in_threads_read_their_own_traces():
    from concurrent.futures import ThreadPoolExecutor

    traces = [random_trace(3000, seed=s) for s in (1, 2, 3, 4)]
    alone = [replay(t, GENERIC, engine="fast") for t in traces]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda t: replay(t, GENERIC, engine="fast"), traces))
    for a, b in zip(alone, together, strict=True):
        assert_same(a, b)

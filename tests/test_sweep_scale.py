"""Sweeps at scale: a dask.distributed LocalCluster and local processes give exactly the serial
results (same seeds), with a progress bar; an unreachable scheduler is one clear error."""

from __future__ import annotations

import json
import time
from concurrent.futures import ProcessPoolExecutor

import pytest

from iosim import presets, sweep
from iosim.cli import main

distributed = pytest.importorskip("distributed", reason="needs dask[distributed]")

# 200 points of a few hundred I/Os each
VARY = {"workload.numjobs": list(range(1, 11)), "hba.queue_depth": list(range(1, 21))}
KW = dict(ios=300, seed=7)


@pytest.fixture(scope="module")
def model():
    return presets.load("allflash-lun")


@pytest.fixture(scope="module")
def serial(model):
    stack, wl = model
    t0 = time.perf_counter()
    curve = sweep(stack, wl, VARY, progress=False, **KW)
    return curve, time.perf_counter() - t0


def _warm() -> None:
    import iosim.simulate  # noqa: F401


@pytest.fixture(scope="module")
def cluster():
    # ":0": the scheduler's HTTP endpoint on any free port (None would still try 8787)
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    )
    client = distributed.Client(cluster, set_as_default=False)
    client.run(_warm)  # workers import iosim once, as a long-lived cluster would have
    try:
        yield cluster, client
    finally:
        client.close()
        cluster.close()


def test_dask_local_cluster_equals_serial_with_progress(model, serial, cluster, capsys):
    stack, wl = model
    _, client = cluster
    curve, t_serial = serial
    assert len(curve) == 200
    t0 = time.perf_counter()
    par = sweep(stack, wl, VARY, progress=True, executor=client.get_executor(), **KW)
    t_dask = time.perf_counter() - t0
    err = capsys.readouterr().err
    assert "sweep" in err and "/200 [" in err  # tqdm's bar on stderr
    assert par.to_records() == curve.to_records()
    assert [p.params for p in par] == [p.params for p in curve]
    with capsys.disabled():  # the figure for the note; not asserted (2 shared cores)
        print(
            f"\n200-point sweep: serial {t_serial:.2f} s, dask LocalCluster(2) {t_dask:.2f} s, "
            f"speed-up {t_serial / t_dask:.2f}x"
        )


def test_cli_scheduler_equals_serial(cluster, capsys):
    local, _ = cluster
    argv = [
        "sweep",
        "--preset",
        "allflash-lun",
        "--vary",
        "workload.numjobs=1,2,8",
        "--vary",
        "hba.queue_depth=2,4",
        "--ios",
        "300",
        "--json",
    ]
    assert main(argv) == 0
    serial = json.loads(capsys.readouterr().out)
    assert main([*argv, "--scheduler", local.scheduler_address]) == 0
    assert json.loads(capsys.readouterr().out) == serial
    assert main([*argv[:-1], "--scheduler", local.scheduler_address, "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "dask scheduler" in out and "(2 workers)" in out


def test_process_pool_equals_serial(model):
    stack, wl = model
    vary = {"workload.numjobs": [1, 3, 9], "multipath.paths": [1, 2]}
    ref = sweep(stack, wl, vary, progress=False, replications=2, **KW)
    with ProcessPoolExecutor(2) as ex:
        par = sweep(stack, wl, vary, progress=False, replications=2, executor=ex, **KW)
    assert par.to_records() == ref.to_records()


def test_unreachable_scheduler_is_one_line_exit_2(capsys):
    code = main(
        [
            "sweep",
            "--vary",
            "hba.queue_depth=1,2",
            "--ios",
            "100",
            "--scheduler",
            "tcp://127.0.0.1:9",
            "--connect-timeout",
            "1s",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: cannot reach the dask scheduler")
    assert "tcp://127.0.0.1:9" in lines[0]


def test_scheduler_without_workers_is_one_line_exit_2(capsys, monkeypatch):
    # a reachable scheduler with no workers: the wait for one times out (faked: starting a
    # real scheduler costs seconds)
    import iosim.cli as cli

    class NoWorkers:
        closed = False

        def wait_for_workers(self, n, timeout=None):
            raise TimeoutError(f"only 0/{n} workers arrived after {timeout}")

        def close(self):
            self.closed = True

    client = NoWorkers()
    monkeypatch.setattr(cli, "_dask_client", lambda address, timeout: client)
    argv = ["sweep", "--vary", "hba.queue_depth=1,2", "--ios", "100"]
    code = main([*argv, "--scheduler", "tcp://10.0.0.1:8786", "--connect-timeout", "1s"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and client.closed
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "has no workers" in lines[0], err

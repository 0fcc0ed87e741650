"""The ``iosim`` command line (contract: docs/architecture.md, "CLI").

Every user error (a bad value, an unknown key or preset, a malformed file) is printed as one
line on stderr and exits with status 2; no traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Sequence
from pathlib import Path

# Only light modules here (the specs need numpy, nothing more): `iosim --help` and argument
# errors must not wait for pandas, scipy, numba or the engines. Each command imports those
# when it runs.
from . import limits, presets
from .spec import SpecError
from .stack import Stack, apply_overrides, load_toml, parse_assignments
from .units import (
    UnitError,
    format_rate,
    format_size,
    format_time,
    parse_count,
    parse_rate,
    parse_size,
    parse_time,
    show_count,
    show_number,
    show_rate,
    show_size,
    show_time,
)
from .workload import RW_MODES, Workload, default_workload

# the same as iosim.simulate.ENGINES, the keys of iosim.traces.FORMATS and of iosim.fit.MODELS
# (tests/test_cli.py checks they agree), kept here so building the parser imports nothing heavy
ENGINES = ("auto", "simpy", "fast")
PARSE_FORMATS = (
    "auto", "fio-json", "fio-text", "fio-terse", "fio-log", "fio-hist", "fio-job", "vdbench",
    "vdbench-parm", "sysbench", "ioping", "iostat", "iometer", "table", "diskmark",
)
FIT_MODELS = {
    "generic": "K identical units behind one queue, plus the host overhead",
    "contention": "every request in service at once, each slowing the others (Gunther's "
    "contention term: a gradual rise, the service's own latency spread)",
    "ssd": "K dies, each request routed by its address (collisions queue), controller delay, "
    "host-interface cap",
    "ssd-pool": "parallel flash units behind one queue and a transfer cap",
    "hdd": "one head serving in arrival order, plus the host gap",
    "hdd-ncq": "a 7200 rpm disk reordering its queue (NCQ), fitted by simulation",
    "cloud": "a latency floor behind token buckets (read/write budgets chosen by the data)",
    "raid": "an md RAID of 7200 rpm NCQ disks (members from fio's disk_util, RAID 1/10 when "
    "mirrors sit idle at depth 1, else RAID 0), by simulation",
}
# --model auto: every family (hdd-ncq only when the lowest depth takes milliseconds, raid only
# when the input names an md array's members), ranked by leave-one-depth-out error

__all__ = ["main"]


class UsageError(Exception):
    """A problem with the command line itself."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse would print usage + message and exit 2; keep one line
        raise UsageError(f"{self.prog}: {message}")


# -- shared options ------------------------------------------------------------------------


def _add_stack_options(g, preset_default: str | None = presets.DEFAULT, *,
                       drive: bool = True) -> None:
    src = g.add_mutually_exclusive_group()
    default = (f"default {preset_default}" if preset_default
               else "default: none, the claim's own numbers only")
    src.add_argument(
        "--preset",
        metavar="NAME",
        help=f"a preset name ({default}; list them with `iosim presets`)",
    )
    src.add_argument("--stack", metavar="FILE.toml",
                     help="a stack file (instead of --preset), or a DiskSim drive description "
                     "(.parv or .diskspecs)")
    if drive:
        g.add_argument("--drive", metavar="DRIVE.parv",
                       help="the drive a DiskSim description (.parv or .diskspecs, with the "
                       ".model and .seek files it sources) describes, instead of "
                       "--preset/--stack; `--stack DRIVE.parv` does the same")
    g.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a dotted key, e.g. hba.queue_depth=8 or device.service=exp:0.46ms; "
        "times need their unit (repeatable)",
    )


_HUGE = 10**18  # numeric flags are read up to this, then judged by the work they ask for
_FORCE_HELP = "allow work estimated to take more than 10 minutes or 1 GiB of memory"


def _add_model_options(p: argparse.ArgumentParser, ios_default: str = "20000",
                       precision: bool = False) -> None:
    g = p.add_argument_group("model")
    _add_stack_options(g)
    w = p.add_argument_group(
        "workload (like fio's options; each defaults to the preset's workload, else the "
        "value shown)"
    )
    w.add_argument("--fio-job", metavar="FILE", help="take the workload from a fio job file")
    w.add_argument("--section", metavar="NAME", help="which job of the fio job file")
    w.add_argument(
        "--rw", choices=RW_MODES, metavar="MODE", help=f"{', '.join(RW_MODES)} (randread)"
    )
    w.add_argument(
        "--bs", metavar="SIZE", help="block size: 4k, 64KiB, 1M (k = 1024; a bare number is "
        "bytes, as in fio) (4k)"
    )
    w.add_argument("--rwmixread", metavar="PCT", help="percent reads for mixed workloads (50)")
    w.add_argument("--iodepth", metavar="N", help="outstanding I/Os per job (1)")
    w.add_argument("--numjobs", metavar="N", help="number of jobs (threads) (1)")
    w.add_argument(
        "--rate-iops", metavar="IOPS", help="open loop: arrivals per second, e.g. 50k (off)"
    )
    w.add_argument("--size", metavar="SIZE", help="address span, e.g. 100G (100G)")
    r = p.add_argument_group("run")
    r.add_argument(
        "--ios", default=ios_default, metavar="N",
        help=f"measured I/Os per run (default {ios_default})",
    )
    r.add_argument(
        "--warmup-ios", metavar="N", help="I/Os discarded first (default: a tenth of --ios)"
    )
    r.add_argument("--seed", default="1", metavar="N", help="random seed (default 1)")
    r.add_argument(
        "--engine",
        default="auto",
        choices=ENGINES,
        help="simpy: the reference, every device; fast: compiled, for the stacks it models; "
        "auto: fast when it can, else simpy (default auto)",
    )
    r.add_argument(
        "--replications", default="1", metavar="N",
        help="independent replications, for confidence intervals (default 1)",
    )
    if precision:
        r.add_argument(
            "--precision", metavar="PCT",
            help="run until the 95 %% half-widths of IOPS and mean latency are within PCT of "
            "their values (2%% or 0.02; p99 within 4 x PCT): the warm-up is found by MSER-5 on "
            "a pilot run (unless --warmup-ios), --ios is a sizing run's length (at least "
            "20000), then fresh runs of the length it implies follow until met (off)",
        )
    r.add_argument("--force", action="store_true", help=_FORCE_HELP)
    p.add_argument("--json", action="store_true", help="print JSON for machines (SI units)")


def _int_arg(value: str | None, name: str, minimum: int, maximum: int | None = None
             ) -> int | None:
    if value is None:
        return None
    return limits.int_arg(value, name, minimum, maximum, parse=parse_count)


def _drive_path(args) -> str | None:
    """The DiskSim drive description the arguments name (--drive, or --stack with a
    .parv/.diskspecs name), else None."""
    path = getattr(args, "drive", None)
    if path and (args.stack or args.preset):
        raise SpecError("--drive replaces --preset and --stack; give one of them")
    if not path and args.stack and Path(args.stack).suffix.lower() in DISKSIM_DRIVE_SUFFIXES:
        path = args.stack
    return path


def _load_stack(args, default: str | None = presets.DEFAULT) -> tuple[Stack, Workload | None]:
    """The stack (and a workload, if the source has one) from --drive, --stack or --preset."""
    path = _drive_path(args)
    if path:
        from .traces.disksim_spec import import_disksim_drive

        drive = import_disksim_drive(path)
        # the whole drive, as fio on a raw device: the default 100 GiB span may exceed it
        stack, wl = drive.stack, Workload(span_bytes=drive.stack.device.capacity_bytes)
        print(f"note: {path} read as a DiskSim drive description ({len(drive.notes)} notes "
              f"on what iosim assumed: `iosim drive {path}` lists them)", file=sys.stderr)
    elif args.stack:
        stack, wl = load_toml(args.stack)
    else:
        stack, wl = presets.load(args.preset or default)
    return stack, wl


def _model(args) -> tuple[Stack, Workload]:
    stack, wl = _load_stack(args)
    if args.fio_job:
        wl = _fio_job_workload(args.fio_job, args.section)
    elif args.section:
        raise SpecError("--section only makes sense with --fio-job")
    wl = wl or default_workload(stack.device)
    flags = {
        "workload.rw": args.rw,
        "workload.block_size_bytes": args.bs,
        "workload.rwmixread": args.rwmixread,
        "workload.iodepth": args.iodepth,
        "workload.numjobs": args.numjobs,
        "workload.rate_iops": args.rate_iops,
        "workload.span_bytes": args.size,
    }
    overrides = {k: v for k, v in flags.items() if v is not None}
    overrides.update({_dotted(k): v for k, v in parse_assignments(args.set).items()})
    stack, wl = apply_overrides(stack, wl, overrides)
    return stack, wl


# fio's names of the workload fields whose schema name differs (fio's thinktime is in us, so
# it gets no alias: workload.thinktime_s takes a unit)
_FIO_NAMES = {"bs": "block_size_bytes", "size": "span_bytes"}


def _dotted(key: str) -> str:
    """``numjobs`` -> ``workload.numjobs``, ``bs`` -> ``workload.block_size_bytes``: a
    workload field may be named without its table, and by its fio name."""
    from dataclasses import fields

    table, dot, name = key.rpartition(".")
    if table in ("", "workload"):
        name = _FIO_NAMES.get(name, name)
        if name in {f.name for f in fields(Workload)}:
            return f"workload.{name}"
    return key


def _fio_job_workload(path: str, section: str | None) -> Workload:
    try:
        from .traces import read_fio_job
    except ImportError:  # pragma: no cover - the traces package ships with iosim
        raise SpecError("reading fio job files needs iosim.traces") from None
    jobs = read_fio_job(path)
    if not jobs:
        raise SpecError(f"{path}: no job sections found")
    if section is None:
        if len(jobs) > 1:
            names = ", ".join(n for n, _ in jobs)
            raise SpecError(f"{path}: has several jobs ({names}); pick one with --section")
        return jobs[0][1]
    for name, wl in jobs:
        if name == section:
            return wl
    raise SpecError(f"{path}: no job named {section!r}; jobs: {', '.join(n for n, _ in jobs)}")


def _run_kwargs(args) -> dict:
    kw = {
        "ios": _int_arg(args.ios, "--ios", 1, _HUGE),
        "seed": _int_arg(args.seed, "--seed", 0, 2**63 - 1),
        "engine": args.engine,
        "replications": _int_arg(args.replications, "--replications", 1, _HUGE),
    }
    if args.warmup_ios is not None:
        kw["warmup_ios"] = _int_arg(args.warmup_ios, "--warmup-ios", 0, _HUGE)
    if getattr(args, "precision", None) is not None:
        from .precision import parse_precision

        kw["precision"] = parse_precision(args.precision)
        if kw["replications"] > 1:
            raise SpecError("--precision and --replications are alternatives: give one")
    # a lower bound of the time before any stack is built (I/Os at the fast engine's speed),
    # then the hard limits of simulate()
    limits.check_ios_budget(kw["ios"], kw.get("warmup_ios", 0), kw["replications"])
    limits.int_arg(kw["ios"], "--ios", 1, limits.MAX_IOS)
    limits.int_arg(kw.get("warmup_ios", 0), "--warmup-ios", 0, limits.MAX_IOS)
    limits.int_arg(kw["replications"], "--replications", 1, limits.MAX_REPLICATIONS)
    return kw


# -- human output --------------------------------------------------------------------------


def _ms(x) -> str:  # check-claim's stack line keeps its name; the one format is show_time
    return show_time(x)


def _pct(x) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f} %"


def _describe(stack: Stack, wl: Workload) -> str:
    if wl.open_loop:
        load = f"open loop at {show_count(wl.rate_iops)} IOPS"
    else:
        load = f"numjobs={wl.numjobs} iodepth={wl.iodepth}"
    paths = stack.multipath.paths
    return (
        f"{stack.name or 'stack'}: {wl.rw} bs={format_size(wl.mean_block_bytes)} {load}; "
        f"{paths} path{'s' if paths != 1 else ''} x HBA QD {stack.hba.queue_depth}, "
        f"device {stack.device.kind}"
    )


def _size_blind(stack: Stack, wl: Workload) -> list[str]:
    """For blocks past 16 KiB: a device whose service and caps are those of a 4 KiB request
    (and, with it, a link without a bandwidth): large-block throughput then grows without
    end, which a reader should know before believing it."""
    bs = wl.mean_block_bytes
    if bs <= 16384:
        return []
    out = []
    dev = stack.device
    try:
        same = math.isclose(dev.mean_service_s(bs), dev.mean_service_s(4096), rel_tol=1e-9)
    except (ArithmeticError, ValueError, TypeError):
        same = False
    if same and dev.rate_caps(bs, wl.read_fraction)[1] is None:
        out.append("device service the same at every block size (no transfer rate)")
        if not math.isfinite(stack.link.bandwidth_Bps):
            out.append("link without a bandwidth limit")
    return out


def _assumptions(stack: Stack, wl: Workload, engine: str | None = None) -> str:
    """The settings that change the answer most and are easy to miss, on one line."""
    words = [f"span {show_size(wl.span_bytes)}", *stack.device.assumptions(),
             *_size_blind(stack, wl)]
    if not stack.host.overhead.mean_s:
        words.append("no host overhead")
    else:
        words.append(f"host overhead {show_time(stack.host.overhead.mean_s)}")
        if stack.host.cpus:
            words.append(f"on {stack.host.cpus} shared host CPU(s)")
    if stack.pauses.on:
        words.append(f"device pauses {show_number(stack.pauses.rate_hz)}/s of "
                     f"{show_time(stack.pauses.duration.mean_s)}")
    if engine:
        words.append(f"engine {engine}")
    return "assumes: " + ", ".join(words)


def _ci(value, half) -> str:
    """" ± x" when the 95 % half-width matters at the digits shown; "" for an exact answer;
    a word instead of an interval wider than the value (a short run or a sparse trace: 119
    requests over 25 s gave "4.76 ± 86,805")."""
    if half is None or not math.isfinite(half) or not value or abs(half) < 5e-4 * abs(value):
        return ""
    if abs(half) >= abs(value):
        return " (too few I/Os for a 95 % interval)"
    return f" ± {show_number(half, 2)}"


def _text(r) -> str:
    lat = "   ".join(
        f"{name} {show_time(x)}"
        for name, x in (
            ("mean", r.lat_mean_s),
            ("p50", r.lat_p50_s),
            ("p95", r.lat_p95_s),
            ("p99", r.lat_p99_s),
            ("p99.9", r.lat_p999_s),
        )
    )
    rows = [
        (
            "IOPS",
            f"{show_count(r.iops)}{_ci(r.iops, r.iops_ci95)}  "
            f"(read {show_count(r.read_iops)}, write {show_count(r.write_iops)})",
        ),
        ("bandwidth", show_rate(r.bandwidth_Bps)),
        ("latency", lat),
        ("device latency", f"mean {show_time(r.device_lat_mean_s)}   p99 "
                           f"{show_time(r.device_lat_p99_s)}"),
        (
            "iostat",
            f"await {show_time(r.block_lat_mean_s)}   aqu-sz {show_number(r.aqu_sz)}   "
            f"%util {_pct(r.util)}   (units busy {_pct(r.unit_util)})",
        ),
    ]
    if r.qd_mean is not None and r.aqu_sz is not None and abs(r.qd_mean - r.aqu_sz) > max(
        0.01, 0.01 * abs(r.aqu_sz)
    ):  # I/Os also wait above the block layer (host overhead, nr_requests)
        rows.append(("in flight (host)", show_number(r.qd_mean)))
    rows.append(
        (
            "measured",
            f"{int(r.ios):,} I/Os in {show_time(r.sim_time_s)} simulated "
            f"(seed {r.seed}"
            + (f", {r.replications} replications" if (r.replications or 1) > 1 else "")
            + ")",
        )
    )
    seq = (r.extra or {}).get("precision")
    if seq:
        rows.append(("precision", _precision_line(seq)))
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"  {k:<{width}}  {v}" for k, v in rows)


def _precision_line(seq: dict) -> str:
    """What a --precision run did, in one line."""
    target = f"{100 * seq['target']:g} %"
    done = "reached" if seq["met"] else "NOT reached"
    runs = len(seq["rounds"])
    if "pilot_ios" in seq:
        warm = (f"warm-up {show_count(seq['warmup_ios'])} I/Os by MSER-5 on a "
                f"{show_count(seq['pilot_ios'])}-I/O pilot")
    else:
        warm = f"warm-up {show_count(seq['warmup_ios'])} I/Os as given"
    return (f"{target} {done} (p99: {100 * seq['p99_target']:g} %) after {runs} "
            f"run{'s' if runs != 1 else ''}; {warm}")


# -- commands ------------------------------------------------------------------------------


def cmd_presets(args) -> int:
    if args.name is not None:  # one preset's stack file, to copy and edit
        if args.json:
            print(json.dumps(presets.load(args.name)[0].to_dict()))
        else:
            print(presets.source(args.name), end="")
        return 0
    cat = presets.catalogue()
    if args.json:
        print(json.dumps([{"name": n, "description": d} for n, d in cat], indent=2))
    else:
        width = max(len(n) for n, _ in cat)
        for name, desc in cat:
            print(f"{name:<{width}}  {desc}")
    return 0


def cmd_run(args) -> int:
    stack, wl = _model(args)
    kw = _run_kwargs(args)
    from .simulate import simulate  # after the arguments are checked: numba is slow to load

    res = simulate(stack, wl, **kw)
    if args.json:
        out = res.to_dict()
        if "precision" in res.extra:  # what a --precision run did (pilot, warm-up, rounds)
            out["precision"] = res.extra["precision"]
        print(json.dumps(out))
    else:
        print(_describe(stack, wl))
        print(f"  {_assumptions(stack, wl, res.engine)}")
        print(_text(res))
    return 0


def _parse_vary(items: Sequence[str], option: str = "--vary") -> dict[str, list[str]]:
    vary: dict[str, list[str]] = {}
    for item in items:
        key, sep, values = item.partition("=")
        vals = []
        for v in (v.strip() for v in values.split(",")):
            m = re.fullmatch(r"(\d+)\.\.(\d+)", v)
            dash = re.fullmatch(r"(\d+)\s*[-:]\s*(\d+)", v)
            if m and int(m.group(1)) <= int(m.group(2)):  # 1..8 -> 1,2,...,8
                limits.check_range(int(m.group(1)), int(m.group(2)), f"{option} {key.strip()}")
                vals.extend(str(i) for i in range(int(m.group(1)), int(m.group(2)) + 1))
            elif dash:
                raise SpecError(
                    f"{option} {item}: write a range as {dash.group(1)}..{dash.group(2)} "
                    f"(or list the values: {dash.group(1)},...,{dash.group(2)})"
                )
            elif v:
                vals.append(v)
        if not sep or not key.strip() or not vals:
            raise SpecError(
                f"{option} expects KEY=v1,v2,... such as workload.numjobs=1,2,4 (got {item!r})"
            )
        vary[key.strip()] = vals
    return vary


def _progress(args) -> bool:
    if args.progress is not None:
        return args.progress
    return sys.stderr.isatty()


def _dask_client(address: str, timeout_s: float):
    """A dask.distributed Client connected to ``address``, or one clear SpecError."""
    try:
        from distributed import Client
    except ImportError:
        raise SpecError(
            "--scheduler needs dask.distributed, which is not installed: "
            "pip install 'dask[distributed]'"
        ) from None
    import logging

    # a failed connection is reported once, by us, on one line
    quiet = [logging.getLogger(n) for n in ("distributed", "distributed.comm", "distributed.core")]
    levels = [lg.level for lg in quiet]
    for lg in quiet:
        lg.setLevel(logging.CRITICAL)
    try:
        return Client(address, timeout=timeout_s, set_as_default=False)
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SpecError(f"cannot reach the dask scheduler at {address!r}: {text}") from None
    finally:
        for lg, level in zip(quiet, levels, strict=True):
            lg.setLevel(level)


def cmd_sweep(args) -> int:
    import time

    from . import sweep_io

    stack, wl = _model(args)
    if not args.vary:
        raise SpecError("sweep needs at least one --vary KEY=v1,v2,...")
    raw = {_dotted(k): v for k, v in _parse_vary(args.vary).items()}
    # the results' memory before each value is converted (converting 10^5 values takes long)
    limits.check_points(math.prod(len(v) for v in raw.values()))
    vary = {k: sweep_io.canonical_values(stack, wl, k, v) for k, v in raw.items()}
    workers = limits.check_workers(_int_arg(args.workers, "--workers", 1) or 1)
    if args.scheduler:
        limits.check_scheduler_address(args.scheduler)
    if args.scheduler and workers > 1:
        raise SpecError("give either --workers (local processes) or --scheduler (dask), not both")
    timeout = _positive_time(args.connect_timeout, "--connect-timeout")
    fmt = sweep_io.format_from_path(args.output, args.format)
    if fmt is None and args.json:
        fmt = "json"
    sweep_io.check_format(fmt, args.output)
    limits.check_output(args.output, [args.stack, args.fio_job])
    kw = _run_kwargs(args)
    progress = _progress(args)
    from .simulate import sweep  # after the arguments are checked: numba is slow to load

    t0 = time.perf_counter()
    if args.scheduler:
        client = _dask_client(args.scheduler, timeout)
        try:
            try:  # a scheduler without workers would never finish the sweep
                client.wait_for_workers(1, timeout=timeout)
            except (TimeoutError, OSError):
                raise SpecError(
                    f"the dask scheduler at {args.scheduler!r} has no workers "
                    f"(waited {timeout:g} s); start some with `dask worker {args.scheduler}`"
                ) from None
            n = len(client.scheduler_info().get("workers", {}))
            where = f"dask scheduler {args.scheduler} ({n} worker{'s' if n != 1 else ''})"
            try:
                curve = sweep(
                    stack, wl, vary, progress=progress, executor=client.get_executor(), **kw
                )
            except SpecError:
                raise
            except Exception as exc:  # noqa: BLE001 - a worker's failure, as one line
                text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
                hint = (
                    " (is iosim installed on every worker?)" if isinstance(exc, ImportError) else ""
                )
                raise SpecError(
                    f"the sweep failed on the dask cluster: {type(exc).__name__}: {text}{hint}"
                ) from None
        finally:
            client.close()
    elif workers > 1:
        from concurrent.futures import ProcessPoolExecutor

        where = f"{workers} local worker processes"
        with ProcessPoolExecutor(workers) as ex:
            curve = sweep(stack, wl, vary, progress=progress, executor=ex, **kw)
    else:
        where = "serial"
        curve = sweep(stack, wl, vary, progress=progress, **kw)
    wall = time.perf_counter() - t0
    if args.output:
        sweep_io.write(curve, fmt, args.output)
    elif fmt is not None:
        sweep_io.write(curve, fmt)
    if fmt is None or (args.output and not args.json):
        print(_describe(stack, wl))
        print(f"  {_assumptions(stack, wl, curve[0].engine if len(curve) else None)}")
        _print_table(curve, list(vary))
        saved = f"; written to {args.output} ({fmt})" if args.output else ""
        print(f"{len(curve)} points in {show_time(wall)} wall, {where}{saved}")
    return 0


def _positive_time(value: str, name: str) -> float:
    try:
        t = parse_time(value, name)
    except UnitError as exc:
        raise SpecError(str(exc)) from None
    if not (0 < t <= limits.MAX_TIME_PER_IO_S):
        raise SpecError(f"{name} must be a time > 0 and at most 1 hour, such as 10s "
                        f"(got {value!r})")
    return t


def _fmt_value(v) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _by_unit_suffix(key: str, v: float) -> str | None:
    """A number shown in the unit its key names (``_bytes``, ``_s``, ``_Bps``), else None."""
    if key.endswith("_bytes"):
        return show_size(v)
    if key.endswith("_s"):
        return show_time(v)
    if key.endswith("_Bps"):
        return show_rate(v)
    return None


def _show_param(key: str, v) -> str:
    if v is None:
        return "-"
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        shown = _by_unit_suffix(key, v)
        if shown is not None:
            return shown
    return _fmt_value(v)


def _print_table(curve, keys: list[str]) -> None:
    short = [{"block_size_bytes": "bs", "span_bytes": "size"}.get(k, k) for k in
             (k.split(".")[-1] for k in keys)]
    cols = [*short, "IOPS", "MiB/s", "lat mean", "lat p99", "dev lat", "aqu-sz", "%util",
            "units busy"]
    rows = []
    for r in curve:
        rows.append(
            [
                *(_show_param(k, r.params.get(k)) for k in keys),
                show_count(r.iops),
                show_number((r.bandwidth_Bps or 0) / 1024**2),
                show_time(r.lat_mean_s),
                show_time(r.lat_p99_s),
                show_time(r.device_lat_mean_s),
                show_number(r.aqu_sz),
                f"{100 * r.util:.1f}",
                f"{100 * r.unit_util:.1f}",
            ]
        )
    print(_table(cols, rows))


def _table(cols: list[str], rows: list[list[str]], left_first: bool = False) -> str:
    """Right-aligned columns under their headers, as iostat prints them (the first column,
    a name, left-aligned with ``left_first``)."""
    widths = [max(len(c), *(len(row[i]) for row in rows)) for i, c in enumerate(cols)]

    def line(cells):
        return "  ".join(
            v.ljust(w) if i == 0 and left_first else v.rjust(w)
            for i, (v, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return "\n".join([line(cols), *(line(row) for row in rows)])


def _claim_stack(args, block_bytes: float | None) -> tuple[dict, dict, str] | None:
    """Limits implied by --preset/--stack (after --set): (check_claim kwargs, JSON, text)."""
    if not (args.preset or args.stack):
        if args.set:
            raise SpecError("check-claim: --set needs --preset or --stack")
        return None
    from .plan import device_limits, unloaded_latency_s

    stack, wl = _load_stack(args)
    stack, wl = apply_overrides(stack, wl, parse_assignments(args.set))
    wl = wl or default_workload(stack.device)
    bs = block_bytes if block_bytes is not None else wl.mean_block_bytes
    mix = _claim_rwmixread(args)  # the claim's rw mode and mix on the stack's workload
    wl = wl.with_(rw=args.rw, rwmixread=mix, bssplit=(), rate_iops=None)
    parts = max(1, math.ceil(bs / stack.block.max_sectors_bytes))
    part = bs / parts
    kw: dict = {}
    info: dict = {"name": stack.name or args.stack, "block_bytes": bs}
    words = []
    lim = device_limits(stack.device, part, wl)
    if "units" in lim:
        kw["units"] = lim["units"]
        kw["unit_service_s"] = lim["unit_service_s"] * parts
        info["units"], info["unit_service_s"] = kw["units"], kw["unit_service_s"]
        alone_dev = stack.device.alone_service_s(part, random=wl.random,
                                                 span_bytes=wl.span_bytes)
        floor = alone_dev is not None and alone_dev > lim["unit_service_s"] * (1 + 1e-9)
        words.append(f"{lim['units']:g} unit(s) x {'at least ' if floor else ''}"
                     f"{_ms(kw['unit_service_s'])}"
                     + (" (the device reorders its queue: at depth a request can take as "
                        "little as this)" if floor else ""))
    for key in ("iops_cap", "bandwidth_cap_Bps"):
        if key in lim:
            kw[key] = info[key] = lim[key]
            value = format_rate(lim[key]) if key.endswith("_Bps") else f"{lim[key]:,.0f} IOPS"
            words.append(f"{key.replace('_Bps', '')} {value}")
    if math.isfinite(stack.link.bandwidth_Bps):
        kw["link_Bps"] = info["link_Bps"] = stack.multipath.paths * stack.link.bandwidth_Bps
        words.append(f"{stack.multipath.paths} link(s) of {format_rate(stack.link.bandwidth_Bps)}")
    slots = min(stack.effective_queue_depth, stack.block.nr_requests) / parts
    info["queue_depth"] = slots
    words.append(
        f"queue depth {slots:g} ({stack.multipath.paths} path(s) x HBA QD "
        f"{stack.hba.queue_depth}, nr_requests {stack.block.nr_requests})"
    )
    alone = unloaded_latency_s(stack, part, wl)
    if alone is not None and alone > 0:
        info["latency_s"] = alone
        words.append(f"unloaded latency {_ms(alone)}")
    if bs % 512 == 0:  # the claim's workload, simulated on the stack (the preset's span stays)
        from .simulate import saturated_iops

        kw["simulated_iops"] = info["simulated_iops"] = saturated_iops(
            stack, wl.with_(block_size_bytes=bs))
        words.append(f"simulated at full depth about {kw['simulated_iops']:,.0f} IOPS")
    else:
        words.append(f"not simulated ({bs:,.0f} B is not whole 512-byte sectors)")
    shown = format_size(bs) if bs % 512 == 0 else f"{bs:,.0f} B"
    text = (f"Stack {info['name'] or 'stack'} at bs={shown} {args.rw}"
            + (f" ({mix:g} % reads)" if _CLAIM_RW[args.rw] is None else "")
            + ": " + ", ".join(words))
    return kw, info, text


def cmd_check_claim(args) -> int:
    from .claims import check_claim

    def opt(value, parse, name):
        if value is None:
            return None
        try:
            x = parse(value, name)
        except UnitError as exc:
            raise SpecError(str(exc)) from None
        if not (x > 0 and math.isfinite(x)):
            raise SpecError(f"check-claim: {name} must be > 0 (got {value!r})")
        # beyond any device: a claim of 10^300 IOPS is a typo, not something to check
        check = {parse_count: limits.check_count, parse_size: limits.check_size,
                 parse_time: limits.check_time}.get(parse)
        if check is not None:
            check(x, f"check-claim: {name}")
        elif x > 1e15:  # bytes per second: a thousand times the fastest link there is
            raise SpecError(f"check-claim: {name} must be at most 1PB/s (got {value!r})")
        return x

    kw = dict(
        iops=opt(args.iops, parse_count, "--iops"),
        block_bytes=opt(args.bs, parse_size, "--bs"),
        bandwidth_Bps=opt(args.bandwidth, parse_rate, "--bandwidth"),
        latency_s=opt(args.latency, parse_time, "--latency"),
        queue_depth=opt(args.qd, parse_count, "--qd"),
    )
    claimed = {"latency_s": kw["latency_s"], "queue_depth": kw["queue_depth"]}
    from_stack = _claim_stack(args, kw["block_bytes"])
    notes = []
    if from_stack is not None:
        extra, info, text = from_stack
        kw.update(extra)
        slots = info["queue_depth"]
        if kw["queue_depth"] is None or kw["queue_depth"] > slots:
            if kw["queue_depth"] is not None:
                notes.append(
                    f"the stack admits only {slots:g} outstanding I/Os below the host, "
                    f"fewer than --qd {kw['queue_depth']:g}"
                )
            kw["queue_depth"] = slots
        stack_lat = info.get("latency_s")
        if kw["latency_s"] is None and stack_lat is not None:
            kw["latency_s"] = stack_lat
            notes.append(f"latency taken as the stack's unloaded latency {_ms(stack_lat)}")
        elif stack_lat is not None and kw["latency_s"] < stack_lat * (1 - 1e-9):
            notes.append(
                f"the claimed latency {_ms(kw['latency_s'])} is below the stack's unloaded "
                f"latency {_ms(stack_lat)}"
            )
    try:
        check = check_claim(**kw)
    except ValueError as exc:
        raise SpecError(f"check-claim: {exc}") from None
    physics = _claim_physics(args, kw["iops"], kw["block_bytes"], claimed)
    if args.json:
        out = check.to_dict()
        if from_stack is not None:
            out["stack"] = {**from_stack[1], "notes": notes}
        out["physics"] = physics.to_dict()
        print(json.dumps(out))
    else:
        if from_stack is not None:
            print(from_stack[2])
            for note in notes:
                print(f"Note: {note}")
        if check.limits:
            print(check.to_text())
            print()
            print("Against the physics of media and links (iosim/catalogue.toml):")
        print(physics.to_text())
    return 0


#: fio's rw modes -> share of reads (None: rwmixread decides, default 50 as in fio).
_CLAIM_RW = {"read": 1.0, "randread": 1.0, "write": 0.0, "randwrite": 0.0, "rw": None,
             "randrw": None, "readwrite": None}
_CAPACITY_RE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)\s*([kmgtp]?)(i?)b?\s*$", re.I)


def _claim_rwmixread(args) -> float:
    """--rwmixread as a percentage, once --rw is known to be one of fio's modes."""
    if args.rw not in _CLAIM_RW:
        raise SpecError(f"check-claim: --rw must be one of {', '.join(_CLAIM_RW)} "
                        f"(got {args.rw!r})")
    try:
        mix = float(args.rwmixread)
    except ValueError:
        mix = float("nan")
    if not 0 <= mix <= 100:
        raise SpecError(f"check-claim: --rwmixread must be a percentage 0-100 "
                        f"(got {args.rwmixread!r})")
    return mix


def _claim_capacity(text: str) -> float:
    """Drive capacity: decimal as data sheets ('2TB' = 2e12 B); binary with 'iB' ('2TiB')."""
    m = _CAPACITY_RE.match(str(text))
    if not m:
        raise SpecError(f"check-claim: --capacity expects a size like 2TB or 1.92TB (got {text!r})")
    base = 1024 if m.group(3) else 1000
    power = " kmgtp".index(m.group(2).lower() or " ")
    value = float(m.group(1)) * base**power
    if not (value > 0 and math.isfinite(value)):
        raise SpecError(f"check-claim: --capacity must be > 0 (got {text!r})")
    return value


def _claim_physics(args, iops: float, block_bytes: float | None, claimed: dict):
    """The claim against the catalogue's media, link, queue and transport floors."""
    from . import catalogue
    from .claims import check_physics

    cat = catalogue.load()
    if args.medium is not None and args.medium not in cat.media:
        raise SpecError(f"check-claim: --medium must be one of {', '.join(cat.media)} "
                        f"(got {args.medium!r})")
    if args.transport is not None and args.transport not in cat.transports:
        raise SpecError(f"check-claim: --transport must be one of {', '.join(cat.transports)} "
                        f"(got {args.transport!r})")
    if args.interface is not None:
        try:
            catalogue.interface(args.interface, cat)
        except ValueError as exc:
            raise SpecError(f"check-claim: --interface: {exc}") from None
    mix = _claim_rwmixread(args)
    share = _CLAIM_RW[args.rw]
    read_fraction = share if share is not None else mix / 100
    capacity = None if args.capacity is None else _claim_capacity(args.capacity)
    try:
        return check_physics(
            iops=iops, block_bytes=block_bytes, queue_depth=claimed["queue_depth"],
            latency_s=claimed["latency_s"], read_fraction=read_fraction, medium=args.medium,
            interface=args.interface, transport=args.transport, capacity_bytes=capacity,
        )
    except ValueError as exc:
        raise SpecError(f"check-claim: {exc}") from None



def cmd_plan(args) -> int:
    from .plan import FAILURES, plan

    stack, wl = _model(args)
    if args.trace:
        try:
            latency, pct = parse_time(args.latency, "--latency"), float(args.percentile)
        except UnitError as exc:
            raise SpecError(str(exc)) from None
        except ValueError:
            raise SpecError(
                f"--percentile must be a number such as 99 (got {args.percentile!r})"
            ) from None
        return _plan_trace(args, stack, latency, pct)
    if args.iops is None:
        raise SpecError("plan needs --iops (the target), or --trace FILE (the trace is the load)")
    try:
        target = parse_count(args.iops, "--iops")
        latency = parse_time(args.latency, "--latency")
        pct = float(args.percentile)
    except UnitError as exc:
        raise SpecError(str(exc)) from None
    except ValueError:
        raise SpecError(
            f"--percentile must be a number such as 99 (got {args.percentile!r})"
        ) from None
    if not (target > 0 and math.isfinite(target)):
        raise SpecError(f"--iops must be a number of I/Os per second > 0 (got {args.iops!r})")
    if not (latency > 0 and math.isfinite(latency)):
        raise SpecError(f"--latency must be a time > 0 such as 2ms (got {args.latency!r})")
    fail = None if args.fail in (None, "none") else args.fail
    assert fail in FAILURES
    search = _parse_vary(args.search, "--search") if args.search else None
    weights = {}
    for item in args.weight:
        key, sep, value = item.partition("=")
        try:
            weights[key.strip()] = float(value)
        except ValueError:
            sep = ""
        if not sep or not key.strip():
            raise SpecError(
                f"--weight expects KEY=NUMBER such as multipath.paths=10 (got {item!r})"
            )
    kw = _run_kwargs(args)
    result = plan(
        stack,
        wl,
        target_iops=target,
        latency_target_s=latency,
        percentile=pct,
        fail=fail,
        search=search,
        load=args.load,
        weights=weights or None,
        exhaustive=not args.first,
        progress=_progress(args),
        **kw,
    )
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        print(_describe(stack, wl))
        print(f"  {_assumptions(stack, wl)}")
        print(result.to_text(all_rows=args.all))
    return 0


def _existing_file(path: str) -> Path:
    """The path of a regular file, or one line saying what it is instead (missing, a
    directory, a FIFO, a symbolic link loop ...)."""
    limits.check_regular_file(path, lambda where, reason: SpecError(f"{where}: {reason}"))
    return Path(path)


def _check_report_source(path: str) -> None:
    """A JSON file that is neither a sweep nor a fit (fio's output, most often): say what
    report draws and which command reads that file instead."""
    p = _existing_file(path)
    if p.suffix.lower() != ".json":
        return
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        return  # the report's reader names the problem
    if isinstance(data, list) or (isinstance(data, dict) and "points" in data and "params" in data):
        return
    fio = isinstance(data, dict) and "jobs" in data
    what = "fio's JSON output" if fio else (
        "a JSON object" if isinstance(data, dict) else "a single JSON value"
    )
    hint = (
        f" Read measurements with `iosim parse {path}`, fit a model to them with "
        f"`iosim fit {path} --model generic`"
        if fio
        else ""
    )
    raise SpecError(
        f"{path} is {what}, not a sweep or a fit: report draws what `iosim sweep ... -o "
        f"sweep.json` or `iosim fit ... --json > fit.json` wrote.{hint}"
    )


def cmd_report(args) -> int:
    _check_report_source(args.file)
    from .report import write_report

    limits.check_output(args.output, [args.file])
    out = write_report(args.file, args.output, title=args.title, x=args.x)
    print(out)
    return 0


def cmd_fit(args) -> int:
    try:
        from .fit import run_cli
    except ImportError as exc:
        raise SpecError(f"iosim fit is not available in this installation yet ({exc})") from None
    for f in args.files:
        _existing_file(f)
    if args.spanning and args.holdout:
        raise SpecError("fit: --spanning chooses the held-out points itself; give it or "
                        "--holdout, not both")
    holdout = _parse_vary(args.holdout, "--holdout") if args.holdout else None
    kw: dict = {"spanning": True} if args.spanning else {}
    if args.only:
        kw["only"] = _parse_vary(args.only, "--only")
    if args.params:
        kw["params"] = [p.strip() for p in args.params.split(",") if p.strip()]
    if args.ios is not None:
        kw["ios"] = _int_arg(args.ios, "--ios", 1, _HUGE)
        limits.check_ios_budget(kw["ios"], what="each verifying simulation")
        limits.int_arg(kw["ios"], "--ios", 1, limits.MAX_IOS)
    if args.seed is not None:
        kw["seed"] = _int_arg(args.seed, "--seed", 0, 2**63 - 1)
    kw["shape"] = args.shape
    if args.format != "auto":
        kw["fmt"] = args.format
    if args.output is not None:
        limits.check_output(args.output, args.files, "-o")
        kw["output"] = args.output
    return run_cli(args.files, args.model, holdout, args.json, **kw)


def cmd_validate(args) -> int:
    from .validate import run_cli as run_validate

    only = [s.strip() for s in args.only.split(",") if s.strip()] if args.only else None
    kw = {"model": args.model} if args.model else {}
    return run_validate(args.output, only=only, quick=args.quick, corpus=args.corpus, **kw)


# the measurements worth a column, in the order iostat and fio print them
_PARSE_COLUMNS = (
    ("iops", "IOPS", show_count),
    ("bandwidth_Bps", "MiB/s", lambda v: show_number(v / 1024**2)),
    ("lat_mean_s", "lat mean", show_time),
    ("lat_p50_s", "p50", show_time),
    ("lat_p95_s", "p95", show_time),
    ("lat_p99_s", "p99", show_time),
    ("lat_p999_s", "p99.9", show_time),
    ("device_lat_mean_s", "dev lat", show_time),
    ("aqu_sz", "aqu-sz", show_number),
    ("util", "%util", lambda v: f"{100 * v:.1f}"),
)
_PARSE_PARAMS = (
    ("rw", "rw"),
    ("block_size_bytes", "bs"),
    ("bssplit", "bssplit"),
    ("bs_varies", "sizes"),
    ("iodepth", "iodepth"),
    ("numjobs", "numjobs"),
    ("threads", "threads"),
)


def _show_cell(key: str, v) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return str(v)
    if "timestamp" in key or key in ("sample", "index"):
        return str(int(v)) if float(v).is_integer() else str(v)
    if key.endswith("_per_s"):  # a rate (rrqm_per_s), not a time
        return show_number(v)
    shown = _by_unit_suffix(key, v)
    if shown is not None:
        return shown
    if key in ("util", "unit_util") or key.endswith("_pct"):
        return f"{100 * v:.1f} %" if key in ("util", "unit_util") else f"{v:.1f} %"
    if float(v).is_integer():
        return f"{int(v):,}" if abs(v) >= 10_000 else str(int(v))
    return show_number(v)


def _records_table(records: list[dict]) -> str:
    """fio/vdbench results: one row per point, the parameters that vary, then the metrics."""
    params = [(k, h) for k, h in _PARSE_PARAMS if any(r.get(k) is not None for r in records)]
    metrics = [
        (k, h, f) for k, h, f in _PARSE_COLUMNS if any(r.get(k) is not None for r in records)
    ]
    cols = ["job", *(h for _, h in params), *(h for _, h, _ in metrics)]
    rows = []
    for i, r in enumerate(records):
        name = str(r.get("jobname") or r.get("name") or r.get("label") or i + 1)
        rows.append(
            [
                name[:24],
                *(_show_cell(k, r.get(k)) for k, _ in params),
                *("-" if r.get(k) is None else f(r[k]) for k, _, f in metrics),
            ]
        )
    return _table(cols, rows, left_first=True)


def _frame_table(records: list[dict], limit: int = 40) -> str:
    """iostat intervals, fio logs: their own columns, in human units, the first rows."""
    cols = list(records[0]) if records else []
    rows = [[_show_cell(c, rec.get(c)) for c in cols] for rec in records[:limit]]
    text = _table(cols, rows) if rows else "(no rows)"
    if len(records) > limit:
        text += f"\n... {len(records) - limit} more rows (--json prints them all)"
    return text


def _parse_one(path: str, fmt: str):
    """One file read as ``iosim parse`` reads it: (records, kind) with kind ``"results"``
    (result points), ``"jobs"`` (job or parameter files) or ``"frame"`` (logs, intervals)."""
    from . import traces
    from .results import Curve, Results

    _existing_file(path)
    if fmt == "auto" and traces.detect_format(path) is None:
        raise SpecError(
            f"{path}: cannot tell which tool wrote this file; name the format with "
            f"--format (one of: {', '.join(PARSE_FORMATS[1:])})"
        )
    out = traces.read(path, format=fmt)
    if isinstance(out, Results):
        return [out.to_dict()], "results"
    if isinstance(out, Curve):
        return out.to_records(), "results"
    if isinstance(out, list):  # job / parameter files: [(name, Workload), ...]
        return [{"name": name, **wl.to_dict()} for name, wl in out], "jobs"
    # a DataFrame (logs, iostat intervals)
    return json.loads(out.to_json(orient="records", date_format="iso")), "frame"


def _sweep_order(record: dict) -> tuple:
    """A result point's place in a table of several files: by rw, block size, then load."""
    def num(key):
        v = record.get(key)
        return v if isinstance(v, (int, float)) and not isinstance(v, bool) else 0
    return (str(record.get("rw") or ""), num("block_size_bytes"), num("numjobs"),
            num("iodepth"), num("threads"))


def cmd_parse(args) -> int:
    files = args.file
    got = [_parse_one(f, args.format) for f in files]
    kinds = {kind for _, kind in got}
    if len(files) > 1 and kinds != {"results"}:
        odd = next(f for f, (_, kind) in zip(files, got, strict=True) if kind != "results")
        raise SpecError(f"{odd}: parse reads several files together only when each holds "
                        "results (fio, vdbench, sysbench, IOMeter); give job files, logs and "
                        "iostat captures one at a time")
    records = [r for recs, _ in got for r in recs]
    if len(files) > 1:  # a sweep's files, in the shell's order (qd1, qd16, qd2, ...): sorted
        records.sort(key=_sweep_order)
    if args.json:
        print(json.dumps(records))
    elif kinds == {"frame"}:
        print(_frame_table(records))
    else:
        print(_records_table(records))
    return 0


# -- replay (a block trace through a stack) --------------------------------------------------


def _replay_slo(text: str) -> tuple[float, float]:
    """"p99=5ms" -> (99.0, 0.005)."""
    m = re.fullmatch(r"\s*p(\d+(?:\.\d+)?)\s*=\s*(\S+)\s*", text or "")
    if not m:
        raise SpecError(f"--slo expects pNN=TIME such as p99=5ms (got {text!r})")
    pct = float(m.group(1))
    try:
        slo = parse_time(m.group(2), "--slo")
    except UnitError as exc:
        raise SpecError(str(exc)) from None
    if not (0 < pct < 100 and slo > 0 and math.isfinite(slo)):
        raise SpecError(f"--slo expects a percentile in (0, 100) and a time > 0 (got {text!r})")
    return pct, slo


DISKSIM_DRIVE_SUFFIXES = (".parv", ".diskspecs")  # a DiskSim drive description, not TOML


def _replay_stack(args, notes: list[str] | None = None) -> Stack:
    """--preset, --stack FILE.toml, or a DiskSim drive description (--drive, or --stack with
    a .parv/.diskspecs name); its notes on what iosim assumed go to ``notes``."""
    drive = _drive_path(args)
    if drive:
        from .traces.disksim_spec import import_disksim_drive

        imported = import_disksim_drive(drive)
        stack = imported.stack
        if notes is not None:
            notes.extend(f"{Path(drive).name}: {n}" for n in imported.notes)
    elif args.stack:
        stack, _ = load_toml(args.stack)
    else:
        stack, _ = presets.load(args.preset or presets.DEFAULT)
    stack, _ = apply_overrides(stack, Workload(), parse_assignments(args.set))
    return stack


def _replay_float(value: str | None, name: str) -> float | None:
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        raise SpecError(f"{name} must be a number (got {value!r})") from None


def _replay_comparison_text(c) -> str:
    rows = [("", "measured", "simulated", "error")]
    for key, label in (("mean_s", "mean"), ("p50_s", "p50"), ("p95_s", "p95"), ("p99_s", "p99")):
        err = c.errors[key]
        rows.append((label, _ms(c.measured[key]), _ms(c.simulated[key]),
                     "-" if math.isnan(err) else f"{100 * err:+.1f} %"))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = [f"comparison over {c.n:,} requests with a measured latency"]
    for r in rows:
        lines.append("  " + "  ".join(f"{v:>{w}}" if i else f"{v:<{w}}"
                                      for i, (v, w) in enumerate(zip(r, widths, strict=True))))
    lines.append(f"  demerit (RMS distance of the CDFs)  {_ms(c.demerit_s)}  "
                 f"({100 * c.demerit_frac:.1f} % of the measured mean)")
    return "\n".join(lines)


def _replay_windows_text(r) -> str:
    rows = [("t", "requests", "IOPS", "mean", "p99")]
    for p in r.windows:
        rows.append((format_time(p.params["t_s"]), f"{p.ios:,}", f"{p.iops:,.0f}",
                     _ms(p.lat_mean_s), _ms(p.lat_p99_s)))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    return "\n".join("  " + "  ".join(f"{v:>{w}}" for v, w in zip(row, widths, strict=True))
                     for row in rows)


def _print_max_speed(name: str, trace, stack: Stack, found, pct: float, slo: float,
                     as_json: bool) -> None:
    if as_json:
        print(json.dumps({"trace": name, **found.to_dict()}))
        return
    print(f"{name}: {len(trace):,} requests on {stack.name or 'stack'}, open loop")
    tried = max(s for s, _ in found.points)
    if found.speed > 0 and found.speed >= tried:  # the top of the search range still meets it
        print(f"  p{pct:g} <= {_ms(slo)} at every speed tried, up to {tried:,.0f}x "
              f"(p{pct:g} {_ms(found.latency_s)}): the trace is far below this stack's limits")
    elif found.speed > 0:
        print(f"  largest speed-up with p{pct:g} <= {_ms(slo)}:  {found.speed:.3g}x  "
              f"(p{pct:g} {_ms(found.latency_s)})")
    else:
        print(f"  no speed tried meets p{pct:g} <= {_ms(slo)}, down to "
              f"{min(s for s, _ in found.points):.3g}x: bursts in the trace queue at any rate")
    for s, v in sorted(found.points):
        verdict = "meets" if v is not None and v <= slo else "misses"
        print(f"    speed {s:>8.4g}x  p{pct:g} {_ms(v):>12}  {verdict}")


STREAM_FILE_BYTES = 64 << 20  # longer trace files are streamed, not read whole


def _read_replay_trace(args):
    """The trace of ``replay``/``plan --trace``: read whole (a BlockTrace), or, for a file over
    STREAM_FILE_BYTES or with --stream, streamed (a BlockTraceFile: bounded memory)."""
    from .traces import BlockTraceFile, read_block_trace

    kw = dict(time_unit=args.time_unit, size_unit=args.size_unit,
              device=getattr(args, "device", None),
              max_requests=_int_arg(getattr(args, "max_requests", None), "--max-requests", 1),
              iolog=getattr(args, "iolog", None))
    path = Path(args.trace)
    big = path.is_file() and path.stat().st_size > STREAM_FILE_BYTES
    if getattr(args, "stream", False) or big:
        return BlockTraceFile(path, args.format, **kw)
    return read_block_trace(path, args.format, **kw)


def _plan_trace(args, stack: Stack, latency: float, pct: float) -> int:
    """``plan --trace FILE``: the trace is the load; how far can it speed up on this stack
    before the latency percentile misses the target?"""
    from .replay import max_speed

    for flag, value in (("--iops", args.iops), ("--fail", None if args.fail == "none" else 1),
                        ("--search", args.search or None)):
        if value is not None:
            raise SpecError(f"plan --trace takes its load from the trace; drop {flag}")
    trace = _read_replay_trace(args)
    found = max_speed(trace, stack, slo_s=latency, slo_percentile=pct, engine=args.engine,
                      seed=_int_arg(args.seed, "--seed", 0))
    _print_max_speed(args.trace, trace, stack, found, pct, latency, args.json)
    return 0


def _replay_fit(args, trace, mode: str, seed: int) -> int:
    """``replay TRACE --fit MODEL``: calibrate on the trace's first part, compare the rest."""
    from .fit.trace import fit_trace
    from .stack import dump_toml

    if args.preset or args.stack or getattr(args, "drive", None) or args.set:
        raise SpecError("--fit calibrates its own stack on the trace; drop --preset, --stack, "
                        "--drive and --set (or replay the stack --save-stack writes)")
    if mode not in ("open", "validate"):
        raise SpecError(f"--fit replays the trace open (or validate for DiskSim validate "
                        f"traces), not {mode}")
    if not hasattr(trace, "latency_s"):
        raise SpecError("--fit reads the trace whole: drop --stream (or cut it with "
                        "--max-requests)")
    frac = _replay_float(args.train_fraction, "--train-fraction")
    tf = fit_trace(trace, args.fit, train_fraction=0.5 if frac is None else frac, seed=seed,
                   mode=mode)
    if args.save_stack:
        limits.check_output(args.save_stack, [args.trace], "--save-stack")
        head = (f"# calibrated by `iosim replay {Path(args.trace).name} --fit {args.fit}` on "
                f"the first {tf.split:,} of {tf.n:,} requests (model {tf.model})")
        Path(args.save_stack).write_text(head + "\n" + dump_toml(tf.stack), encoding="utf-8")
    if args.json:
        print(json.dumps({"trace": args.trace, **tf.to_dict()}))
        return 0
    print(f"{args.trace}: {tf.n:,} requests; model {tf.model} calibrated on the first "
          f"{tf.split:,} ({tf.evaluations:,} replays)")
    for name, value in tf.values.items():
        print(f"  {name:<30} {_fit_value_text(name, value)}")
    if tf.candidates:
        print("  auto: error on the last third of the fitted part (RMS log ratio of the "
              "mean and percentiles), each family fitted on the two thirds before it")
        for name, n, err in tf.candidates:
            print(f"    {name:<12} {n} parameters  {err:.3f}")
    for label, part in (("fitted on (requests 1.." + f"{tf.split:,})", tf.train),
                        (f"predicted (requests {tf.split + 1:,}..{tf.n:,}, never fitted)",
                         tf.test)):
        print(label)
        for key, name in (("mean_s", "mean"), ("p50_s", "p50"), ("p95_s", "p95"),
                          ("p99_s", "p99")):
            m, s = part[key]
            print(f"  {name:<5} measured {_ms(m):>10}  simulated {_ms(s):>10}  "
                  f"{100 * (s - m) / m:+.1f} %")
        print(f"  demerit (RMS distance of the CDFs)  {_ms(part['demerit_s'])}")
    for note in tf.notes:
        print(f"Note: {note}")
    if args.save_stack:
        print(f"wrote {args.save_stack}: replay, run or plan with --stack {args.save_stack}")
    return 0


def _fit_value_text(name: str, value: float) -> str:
    from .fit.catalogue import PARAMETERS

    unit = PARAMETERS[name].unit if name in PARAMETERS else ""
    if unit == "s":
        return _ms(value)
    if unit == "B/s":
        return f"{value / 2**20:,.4g} MiB/s"
    return f"{value:.4g}"


def cmd_replay(args) -> int:
    from .replay import max_speed, replay

    drive_notes: list[str] = []
    trace = _read_replay_trace(args)
    mode = args.mode or ("validate" if trace.format == "disksim-validate" else "open")
    seed = _int_arg(args.seed, "--seed", 0)
    if args.fit:
        return _replay_fit(args, trace, mode, seed)
    stack = _replay_stack(args, drive_notes)
    if args.max_speed:
        if args.slo is None:
            raise SpecError("--max-speed needs --slo pNN=TIME, e.g. --slo p99=5ms")
        pct, slo = _replay_slo(args.slo)
        found = max_speed(trace, stack, slo_s=slo, slo_percentile=pct, engine=args.engine,
                          seed=seed)
        _print_max_speed(args.trace, trace, stack, found, pct, slo, args.json)
        return 0
    speed = _replay_float(args.speed, "--speed")
    res = replay(trace, stack, speed=1.0 if speed is None else speed, mode=mode,
                 outstanding=_int_arg(args.outstanding, "--outstanding", 1),
                 engine=args.engine, seed=seed, warmup=_int_arg(args.warmup, "--warmup", 0) or 0,
                 window_s=None if args.window is None else parse_time(args.window, "--window"))
    if args.compare and res.comparison is None:
        raise SpecError(f"{args.trace}: the trace carries no measured latencies to compare with")
    if args.json:
        out = res.to_dict()
        if drive_notes:
            out["drive_notes"] = drive_notes
        print(json.dumps(out))
        return 0
    n_read = trace.facts.reads if hasattr(trace, "facts") else int(trace.is_read.sum())
    how = {"open": f"open loop at {res.speed:g}x the recorded rate",
           "closed": f"closed loop, {res.outstanding} outstanding",
           "validate": "validate (next issue = completion + recorded idle)"}[mode]
    def many(n: int, what: str) -> str:
        return f"{n:,} {what}{'' if n == 1 else 's'}"

    print(f"{args.trace}: {many(len(trace), 'request')} ({many(n_read, 'read')}, "
          f"{many(len(trace) - n_read, 'write')}, {trace.format}) on {stack.name or 'stack'}, "
          f"{how}")
    print(_text(res.results))
    for w in [*drive_notes, *res.warnings]:
        print(f"Note: {w}")
    if args.compare:
        print(_replay_comparison_text(res.comparison))
    if args.windows:
        print(f"per {format_time(res.window_s)} window of issue time")
        print(_replay_windows_text(res))
    return 0


def _add_replay_parser(sub) -> None:
    from .engine.trace_source import TRACE_MODES  # numpy only: --help stays quick

    sp = sub.add_parser("replay", help="replay a block trace through a stack; compare; what-if")
    sp.add_argument("trace", metavar="TRACE", help="blkparse, biosnoop, fio iolog, fio per-I/O "
                    "latency log (write_lat_log), DiskSim, MSR, SPC, Alibaba, Tencent CBS or FIU "
                    "trace, or a csv whose header names its columns (arrival_us, "
                    "offset_bytes, size_bytes, op, latency_us ...)")
    t = sp.add_argument_group("trace")
    t.add_argument("--format", help="trace format (default: detected)")
    t.add_argument("--time-unit", help="time unit where the format leaves it open (ns, us, ms, s)")
    t.add_argument("--size-unit", help="size unit where the format leaves it open")
    t.add_argument("--device", help="replay only this device of the trace")
    t.add_argument("--max-requests", help="read at most this many requests")
    t.add_argument("--iolog", metavar="FILE",
                   help="a fio latency log's issue times: the same job's write_iolog (v3)")
    t.add_argument("--stream", action="store_true",
                   help="read the trace in chunks, never whole (automatic past 64 MiB): bounded "
                   "memory; past 2^21 requests the statistics come from fine histograms")
    g = sp.add_argument_group("model")
    _add_stack_options(g)
    r = sp.add_argument_group("replay")
    r.add_argument("--mode", choices=TRACE_MODES,
                   help="open: at the recorded times / speed; closed: N outstanding in trace "
                   "order; validate: completion + recorded idle (default: validate for DiskSim "
                   "validate traces, else open)")
    r.add_argument("--speed", help="open loop: replay k times faster (default 1)")
    r.add_argument("--outstanding", help="closed loop: requests in flight (default 1)")
    r.add_argument("--warmup", help="requests issued first and not measured (default 0)")
    r.add_argument("--window", help="time-series window, e.g. 1s (default: ~60 windows)")
    r.add_argument("--seed", default="1", help="random seed (default 1)")
    r.add_argument("--engine", default="auto", choices=ENGINES)
    f = sp.add_argument_group("calibrate on the trace")
    f.add_argument("--fit", metavar="MODEL", choices=("auto", *FIT_MODELS),
                   help="instead of a preset: calibrate MODEL (auto or one of iosim fit's "
                   "models) on the trace's measured response times over its first part, then "
                   "replay it all and compare the rest, which the fit never saw")
    f.add_argument("--train-fraction", help="the part --fit calibrates on (default 0.5)")
    f.add_argument("--save-stack", metavar="FILE.toml",
                   help="write the calibrated stack, for --stack of replay, run and plan")
    o = sp.add_argument_group("output")
    o.add_argument("--compare", action="store_true",
                   help="measured against simulated latency (mean, p50/p95/p99, demerit)")
    o.add_argument("--windows", action="store_true", help="print latency per time window")
    o.add_argument("--max-speed", action="store_true",
                   help="find the largest speed-up that meets --slo (open loop)")
    o.add_argument("--slo", help="latency objective for --max-speed, e.g. p99=5ms")
    o.add_argument("--json", action="store_true", help="print JSON (SI units)")
    sp.set_defaults(func=cmd_replay)


def cmd_drive(args) -> int:
    """``iosim drive DRIVE.parv [-o FILE.toml]``: the stack a DiskSim description gives."""
    from .stack import dump_toml
    from .traces.disksim_spec import import_disksim_drive

    limits.check_output(args.output, [args.description], "-o")
    drive = import_disksim_drive(args.description)
    head = [f"# {drive.stack.name}: read by `iosim drive` from DiskSim's "
            f"{Path(args.description).name} (nothing fitted)"]
    head += [f"# note: {n}" for n in drive.notes]
    text = "\n".join(head) + "\n" + dump_toml(drive.stack)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"wrote {args.output} ({len(drive.notes)} notes on what iosim assumed)")
    else:
        print(text, end="")
    return 0


def _add_drive_parser(sub) -> None:
    sp = sub.add_parser("drive", help="read a DiskSim drive description into a stack TOML")
    sp.add_argument("description", metavar="DRIVE.parv",
                    help="DiskSim .parv or .diskspecs (the .model and .seek it sources beside)")
    sp.add_argument("-o", "--output", metavar="FILE.toml",
                    help="write the stack here (default: print it)")
    sp.set_defaults(func=cmd_drive)


def _add_presets_parser(sub) -> None:
    sp = sub.add_parser("presets", help="list the preset catalogue, or print one preset's "
                        "stack file")
    sp.add_argument("name", nargs="?", default=None,
                    help="a preset to print as its stack file (TOML, with its sources), a "
                         "start for your own: iosim presets NAME > my.toml, edit, then "
                         "iosim run --stack my.toml")
    sp.add_argument("--json", action="store_true", help="print JSON for machines")
    sp.set_defaults(func=cmd_presets)


def _add_run_parser(sub) -> None:
    sp = sub.add_parser("run", help="simulate one workload on one stack")
    _add_model_options(sp, precision=True)
    sp.set_defaults(func=cmd_run)


def _add_sweep_parser(sub) -> None:
    sp = sub.add_parser(
        "sweep",
        help="simulate a grid of dotted-key values, serially, on local cores or on dask",
    )
    sp.add_argument(
        "--vary",
        action="append",
        default=[],
        metavar="KEY=v1,v2,...",
        help="a dotted key (or a workload field: numjobs) and its values, e.g. "
        "workload.numjobs=1..16 or hba.queue_depth=4,32 (1..16 is a range); repeat for a grid",
    )
    ex = sp.add_argument_group("execution and output")
    ex.add_argument(
        "--workers", default="1", metavar="N", help="local worker processes (default 1)"
    )
    ex.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run on a dask.distributed cluster, e.g. tcp://10.0.0.5:8786",
    )
    ex.add_argument(
        "--connect-timeout",
        default="10s",
        metavar="TIME",
        help="how long to wait for --scheduler (default 10s)",
    )
    ex.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar on stderr (default: when stderr is a terminal)",
    )
    ex.add_argument(
        "-o", "--output", metavar="FILE", help="write the points to FILE (.json, .csv, .parquet)"
    )
    ex.add_argument(
        "--format",
        choices=("json", "csv", "parquet"),
        help="output format (default: from the --output suffix; json with --json)",
    )
    _add_model_options(sp, precision=True)
    sp.set_defaults(func=cmd_sweep)


def _add_plan_parser(sub) -> None:
    sp = sub.add_parser(
        "plan",
        help="smallest configuration meeting an IOPS and a latency target (optionally degraded)",
    )
    sp.add_argument("--iops", help="target IOPS, e.g. 100k (required without --trace)")
    sp.add_argument(
        "--trace", metavar="FILE",
        help="a block trace as the load: the largest speed-up that keeps the latency target "
        "(as iosim replay --max-speed)",
    )
    sp.add_argument("--format", help="--trace's format (default: detected)")
    sp.add_argument("--time-unit", help="--trace's time unit where its format leaves it open")
    sp.add_argument("--size-unit", help="--trace's size unit where its format leaves it open")
    sp.add_argument("--latency", required=True, help="latency target, e.g. 2ms")
    sp.add_argument(
        "--percentile", default="99", metavar="P", help="latency percentile (default 99)"
    )
    sp.add_argument(
        "--fail",
        choices=("path", "member", "none"),
        default="none",
        help="plan with one path (multipath.paths - 1 live) or one device member failed "
        "(default none)",
    )
    sp.add_argument(
        "--search",
        action="append",
        default=[],
        metavar="KEY=v1,v2,...",
        help="candidate values, smallest first (default: multipath.paths=1..8 and "
        "hba.queue_depth=16,32,64,128,256)",
    )
    sp.add_argument(
        "--load",
        choices=("auto", "open", "closed"),
        default="auto",
        help="open: arrivals at the target rate; closed: the workload's threads "
        "(auto: closed if workload.numjobs/iodepth is searched)",
    )
    sp.add_argument(
        "--weight",
        action="append",
        default=[],
        metavar="KEY=W",
        help="cost of one step of KEY, e.g. multipath.paths=10 (default 1 per step of every "
        "key)",
    )
    sp.add_argument("--first", action="store_true", help="stop at the first passing candidate")
    sp.add_argument("--all", action="store_true", help="list skipped candidates too")
    sp.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar on stderr (default: when stderr is a terminal)",
    )
    _add_model_options(sp, ios_default="10000")
    sp.set_defaults(func=cmd_plan)


def _add_report_parser(sub) -> None:
    sp = sub.add_parser("report", help="a self-contained HTML report (plotly) of a sweep or a fit")
    sp.add_argument(
        "file",
        metavar="FILE",
        help="what `iosim sweep -o FILE` wrote (.json, .csv, .parquet) or what "
        "`iosim fit ... --json > FILE` printed",
    )
    sp.add_argument(
        "-o", "--output", metavar="FILE.html", help="where to write (default: FILE with .html)"
    )
    sp.add_argument("--title", help="report title (default: from the file)")
    sp.add_argument("--x", metavar="KEY", help="the column for the x axis (default: guessed)")
    sp.set_defaults(func=cmd_report)


def _add_fit_parser(sub) -> None:
    sp = sub.add_parser(
        "fit",
        help="calibrate a stack model to measured points",
        description="Calibrate a stack model to measured points (fio, vdbench, sysbench,\n"
        "IOMeter output) and say how well it predicts them.\n\nmodels:\n"
        + "\n".join(f"  {k:<10} {v}" for k, v in FIT_MODELS.items())
        + "\n  auto       each family above (hdd-ncq when the lowest depth takes milliseconds, "
        "raid when fio lists an md array's member disks), ranked by leave-one-depth-out error;\n"
        "             a tie broken by the device's name, else by the measured p90..p99",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sp.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="measured results, one point or a sweep per file (anything `iosim parse` reads)",
    )
    sp.add_argument(
        "--model",
        default="auto",
        choices=("auto", *FIT_MODELS),
        help=f"the model to fit, one of: auto, {', '.join(FIT_MODELS)} (listed above; "
        "default auto: the family that predicts left-out points best)",
    )
    sp.add_argument(
        "--format",
        default="auto",
        help="the files' format (as for iosim parse; csv for a table); default: detected",
    )
    sp.add_argument(
        "--holdout",
        action="append",
        default=[],
        metavar="KEY=v,...",
        help="points held out for prediction, e.g. workload.iodepth=32,64, numjobs=16,32, "
        "bs=8k,16k or rwmixread=70,30 (repeatable)",
    )
    sp.add_argument(
        "--spanning",
        action="store_true",
        help="the validation protocol: fit on the lowest, the middle and the highest value of "
        "what the sweep varies (depth, jobs, block size, read share or rate) and predict the "
        "others (instead of --holdout)",
    )
    sp.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="KEY=v,...",
        help="fit only the points with these values, e.g. rw=randread or bs=4k (one workload "
        "out of a file that measured several, such as a CrystalDiskMark result; repeatable)",
    )
    sp.add_argument("--params", metavar="a,b", help="dotted keys to fit instead of the model's")
    sp.add_argument(
        "--ios", metavar="N", help="I/Os of each verifying simulation (default 8000)"
    )
    sp.add_argument("--seed", metavar="N", help="seed of the verifying simulations (default 1)")
    sp.add_argument(
        "--shape",
        choices=("lognormal", "measured"),
        default="lognormal",
        help="service-time shape: lognormal with a fitted scv, or the lowest-depth point's "
        "measured latency percentiles (default lognormal)",
    )
    sp.add_argument("--json", action="store_true", help="print JSON for machines (SI units)")
    sp.add_argument("-o", "--output", metavar="FILE.toml",
                    help="also write the calibrated stack (and the fitted workload) as a stack "
                    "file for --stack of run, sweep, plan and replay")
    sp.add_argument("--force", action="store_true", help=_FORCE_HELP)
    sp.set_defaults(func=cmd_fit)


def _add_validate_parser(sub) -> None:
    sp = sub.add_parser(
        "validate",
        help="the accuracy table: reproductions (calibrated vs predicted points) and fits "
        "with the spanning protocol (writes docs/validation.md)",
    )
    sp.add_argument("-o", "--output", metavar="FILE.md", help="default: print to stdout")
    sp.add_argument("--model", help="fit model of the sweep rows: any name iosim fit "
                    "accepts (default auto, the model of docs/validation.md)")
    sp.add_argument("--only", metavar="ROW,...", help="only these rows, e.g. E10-ssd,mx200")
    sp.add_argument("--quick", action="store_true", help="shorter runs (about a quarter)")
    sp.add_argument("--corpus", metavar="DIR", help="the real-output corpus "
                    "(default ../shared/corpus beside the source tree)")
    sp.set_defaults(func=cmd_validate)


def _add_parse_parser(sub) -> None:
    sp = sub.add_parser("parse", help="read fio/vdbench/sysbench/iostat/IOMeter output")
    sp.add_argument("file", metavar="FILE", nargs="+",
                    help="a tool's output, a fio job or log file; several result files (a "
                         "sweep) print as one table")
    sp.add_argument(
        "--format",
        default="auto",
        choices=PARSE_FORMATS,
        metavar="FORMAT",
        help=f"{', '.join(PARSE_FORMATS)} (default auto: from the contents and the name)",
    )
    sp.add_argument("--json", action="store_true", help="print JSON for machines (SI units)")
    sp.set_defaults(func=cmd_parse)


def _add_check_claim_parser(sub) -> None:
    sp = sub.add_parser("check-claim", help="check an IOPS claim against physical limits")
    sp.add_argument("--iops", required=True)
    sp.add_argument("--bs")
    sp.add_argument("--bandwidth")
    sp.add_argument("--latency")
    sp.add_argument("--qd")
    sp.add_argument("--rw", default="randread", help="fio's rw mode (default randread)")
    sp.add_argument("--rwmixread", default="50", help="%% reads for rw/randrw (default 50)")
    sp.add_argument("--medium", help="slc mlc tlc qlc znand xpoint hdd5400 hdd7200 hdd10k hdd15k")
    sp.add_argument("--interface", help="sata, sas12, sas24, pcie3/4/5 x1/x2/x4/x8/x16")
    sp.add_argument("--transport", help="local, nvme-tcp, nvme-rdma, iscsi")
    sp.add_argument("--capacity", help="drive capacity (2TB = 2e12 B), for the die count")
    g = sp.add_argument_group(
        "stack (optional): its units, service time, queue depth and links join the limits"
    )
    _add_stack_options(g, preset_default=None, drive=False)
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(func=cmd_check_claim)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="iosim",
        description="Storage I/O as a queueing system: simulate, "
        "compare with theory and measurements, check claims.",
        epilog="units: sizes are binary as in fio (4k = 4 KiB = 4096 B; a bare number is\n"
        "bytes); times need their unit (0.46ms, 460us, 2s); bandwidth prints in MiB/s,\n"
        "and 4GB/s as input is 4e9 B/s. `iosim COMMAND --help` lists a command's options.\n\n"
        "examples:\n"
        "  iosim run --numjobs 8\n"
        "  iosim run --preset hdd-7200 --iodepth 32 --set device.scheduler=fifo\n"
        "  iosim sweep --vary workload.numjobs=1..16 -o sweep.csv\n"
        "  iosim report sweep.csv",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="command", parser_class=_Parser, required=True)
    _add_presets_parser(sub)
    _add_run_parser(sub)
    _add_sweep_parser(sub)
    _add_plan_parser(sub)
    _add_report_parser(sub)
    _add_fit_parser(sub)
    _add_validate_parser(sub)
    _add_parse_parser(sub)
    _add_check_claim_parser(sub)
    _add_replay_parser(sub)
    _add_drive_parser(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        with limits.allow_long_work(getattr(args, "force", False)):
            return args.func(args)
    except BrokenPipeError:
        return _closed_pipe()
    except UsageError as exc:
        return _fail(exc)
    except (SpecError, UnitError, ValueError, OSError) as exc:
        return _fail(exc)
    except RecursionError:
        return _fail("the input is nested too deeply to read")
    except MemoryError:
        return _fail("out of memory; use a smaller run, sweep or input")
    except KeyboardInterrupt:
        return 130


def _fail(exc: BaseException | str) -> int:
    """One line on stderr, exit status 2."""
    text = str(exc).strip() or type(exc).__name__
    line = " ".join(text.split("\n")[0].split())
    try:
        print(f"error: {line}", file=sys.stderr)
    except (BrokenPipeError, OSError):  # pragma: no cover - stderr closed too
        pass
    return 2


def _closed_pipe() -> int:
    """The reader of stdout went away (``iosim run | head -3``): a normal end. Point stdout at
    /dev/null so the interpreter's final flush does not complain."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # pragma: no cover - no real stdout (tests)
        pass
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

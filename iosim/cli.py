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

from . import presets
from .results import Curve, Results
from .simulate import ENGINES, simulate, sweep
from .spec import SpecError
from .stack import Stack, apply_overrides, load_toml, parse_assignments
from .units import (
    UnitError,
    format_rate,
    format_size,
    parse_count,
    parse_rate,
    parse_size,
    parse_time,
)
from .workload import RW_MODES, Workload

__all__ = ["main"]


class UsageError(Exception):
    """A problem with the command line itself."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse would print usage + message and exit 2; keep one line
        raise UsageError(f"{self.prog}: {message}")


# -- shared options ------------------------------------------------------------------------


def _add_stack_options(g) -> None:
    src = g.add_mutually_exclusive_group()
    src.add_argument(
        "--preset", help=f"a preset name (default {presets.DEFAULT}; see `iosim presets`)"
    )
    src.add_argument("--stack", metavar="FILE.toml", help="a stack file")
    g.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a dotted key, e.g. hba.queue_depth=8 (repeatable)",
    )


def _add_model_options(p: argparse.ArgumentParser, ios_default: str = "20000") -> None:
    g = p.add_argument_group("model")
    _add_stack_options(g)
    w = p.add_argument_group("workload (like fio's options)")
    w.add_argument("--fio-job", metavar="FILE", help="take the workload from a fio job file")
    w.add_argument("--section", help="which job of the fio job file")
    w.add_argument("--rw", choices=RW_MODES)
    w.add_argument("--bs", help="block size, e.g. 4k")
    w.add_argument("--rwmixread", help="percent reads for mixed workloads")
    w.add_argument("--iodepth", help="outstanding I/Os per job")
    w.add_argument("--numjobs", help="number of jobs (threads)")
    w.add_argument("--rate-iops", help="open loop: arrival rate in I/O per s")
    w.add_argument("--size", help="address span, e.g. 100G")
    r = p.add_argument_group("run")
    r.add_argument(
        "--ios", default=ios_default, help=f"measured I/Os per run (default {ios_default})"
    )
    r.add_argument("--warmup-ios", help="I/Os discarded first (default: a tenth of --ios)")
    r.add_argument("--seed", default="1", help="random seed (default 1)")
    r.add_argument("--engine", default="auto", choices=ENGINES)
    r.add_argument("--replications", default="1", help="independent replications (default 1)")
    p.add_argument("--json", action="store_true", help="print JSON (SI units)")


def _int_arg(value: str | None, name: str, minimum: int) -> int | None:
    if value is None:
        return None
    try:
        x = parse_count(value, name)
    except UnitError as exc:
        raise SpecError(str(exc)) from None
    if x != int(x) or x < minimum:
        raise SpecError(f"{name} must be a whole number >= {minimum} (got {value!r})")
    return int(x)


def _model(args) -> tuple[Stack, Workload]:
    if args.stack:
        stack, wl = load_toml(args.stack)
    else:
        stack, wl = presets.load(args.preset or presets.DEFAULT)
    if args.fio_job:
        wl = _fio_job_workload(args.fio_job, args.section)
    elif args.section:
        raise SpecError("--section only makes sense with --fio-job")
    wl = wl or Workload()
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
    overrides.update(parse_assignments(args.set))
    stack, wl = apply_overrides(stack, wl, overrides)
    return stack, wl


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
        "ios": _int_arg(args.ios, "--ios", 1),
        "seed": _int_arg(args.seed, "--seed", 0),
        "engine": args.engine,
        "replications": _int_arg(args.replications, "--replications", 1),
    }
    if args.warmup_ios is not None:
        kw["warmup_ios"] = _int_arg(args.warmup_ios, "--warmup-ios", 0)
    return kw


# -- human output --------------------------------------------------------------------------


def _ms(x) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x * 1e3:.4g} ms"


def _describe(stack: Stack, wl: Workload) -> str:
    if wl.open_loop:
        load = f"open loop at {wl.rate_iops:g} IOPS"
    else:
        load = f"numjobs={wl.numjobs} iodepth={wl.iodepth}"
    return (
        f"{stack.name or 'stack'}: {wl.rw} bs={format_size(wl.mean_block_bytes)} {load}; "
        f"{stack.multipath.paths} path(s) x HBA QD {stack.hba.queue_depth}, "
        f"device {stack.device.kind}"
    )


def _text(r: Results) -> str:
    ci = f" ± {r.iops_ci95:.3g}" if r.iops_ci95 is not None and math.isfinite(r.iops_ci95) else ""
    rows = [
        ("IOPS", f"{r.iops:,.0f}{ci}  (read {r.read_iops:,.0f}, write {r.write_iops:,.0f})"),
        ("bandwidth", format_rate(r.bandwidth_Bps)),
        ("latency mean", _ms(r.lat_mean_s)),
        (
            "latency p50 / p95 / p99",
            " / ".join(_ms(x) for x in (r.lat_p50_s, r.lat_p95_s, r.lat_p99_s)),
        ),
        ("latency p99.9", _ms(r.lat_p999_s)),
        ("device latency mean / p99", f"{_ms(r.device_lat_mean_s)} / {_ms(r.device_lat_p99_s)}"),
        ("iostat await / aqu-sz", f"{_ms(r.block_lat_mean_s)} / {r.aqu_sz:.3g}"),
        ("iostat %util / unit util", f"{100 * r.util:.1f} % / {100 * r.unit_util:.1f} %"),
        ("outstanding I/Os (mean)", f"{r.qd_mean:.3g}"),
        ("measured", f"{r.ios} I/Os in {r.sim_time_s:.4g} s simulated ({r.engine}, seed {r.seed})"),
    ]
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"  {k:<{width}}  {v}" for k, v in rows)


# -- commands ------------------------------------------------------------------------------


def cmd_presets(args) -> int:
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
    res = simulate(stack, wl, **_run_kwargs(args))
    if args.json:
        print(json.dumps(res.to_dict()))
    else:
        print(_describe(stack, wl))
        print(_text(res))
    return 0


def _parse_vary(items: Sequence[str], option: str = "--vary") -> dict[str, list[str]]:
    vary: dict[str, list[str]] = {}
    for item in items:
        key, sep, values = item.partition("=")
        vals = []
        for v in (v.strip() for v in values.split(",")):
            m = re.fullmatch(r"(\d+)\.\.(\d+)", v)
            if m and int(m.group(1)) <= int(m.group(2)):  # 1..8 -> 1,2,...,8
                vals.extend(str(i) for i in range(int(m.group(1)), int(m.group(2)) + 1))
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
    vary = {
        k: sweep_io.canonical_values(stack, wl, k, v) for k, v in _parse_vary(args.vary).items()
    }
    workers = _int_arg(args.workers, "--workers", 1) or 1
    if args.scheduler and workers > 1:
        raise SpecError("give either --workers (local processes) or --scheduler (dask), not both")
    timeout = _positive_time(args.connect_timeout, "--connect-timeout")
    fmt = sweep_io.format_from_path(args.output, args.format)
    if fmt is None and args.json:
        fmt = "json"
    sweep_io.check_format(fmt, args.output)
    kw = _run_kwargs(args)
    progress = _progress(args)
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
        _print_table(curve, list(vary))
        saved = f"; written to {args.output} ({fmt})" if args.output else ""
        print(f"{len(curve)} points in {wall:.3g} s wall, {where}{saved}")
    return 0


def _positive_time(value: str, name: str) -> float:
    try:
        t = parse_time(value, name)
    except UnitError as exc:
        raise SpecError(str(exc)) from None
    if not (t > 0 and math.isfinite(t)):
        raise SpecError(f"{name} must be a time > 0 such as 10s (got {value!r})")
    return t


def _fmt_value(v) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _print_table(curve: Curve, keys: list[str]) -> None:
    cols = [*keys, "IOPS", "lat mean", "lat p99", "dev lat", "aqu-sz", "%util", "unit util"]
    rows = []
    for r in curve:
        rows.append(
            [
                *(_fmt_value(r.params.get(k)) for k in keys),
                f"{r.iops:,.0f}",
                _ms(r.lat_mean_s),
                _ms(r.lat_p99_s),
                _ms(r.device_lat_mean_s),
                f"{r.aqu_sz:.3g}",
                f"{100 * r.util:.1f}",
                f"{100 * r.unit_util:.1f}",
            ]
        )
    widths = [max(len(c), *(len(row[i]) for row in rows)) for i, c in enumerate(cols)]
    print("  ".join(c.rjust(w) for c, w in zip(cols, widths, strict=True)))
    for row in rows:
        print("  ".join(v.rjust(w) for v, w in zip(row, widths, strict=True)))


def _claim_stack(args, block_bytes: float | None) -> tuple[dict, dict, str] | None:
    """Limits implied by --preset/--stack (after --set): (check_claim kwargs, JSON, text)."""
    if not (args.preset or args.stack):
        if args.set:
            raise SpecError("check-claim: --set needs --preset or --stack")
        return None
    from .plan import _path_time_s, device_limits

    if args.stack:
        stack, wl = load_toml(args.stack)
    else:
        stack, wl = presets.load(args.preset)
    stack, wl = apply_overrides(stack, wl, parse_assignments(args.set))
    wl = wl or Workload()
    bs = block_bytes if block_bytes is not None else wl.mean_block_bytes
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
        words.append(f"{lim['units']:g} unit(s) x {_ms(kw['unit_service_s'])}")
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
    path_time = _path_time_s(stack, part, wl)
    if path_time is not None and path_time > 0:
        info["latency_s"] = path_time
        words.append(f"unloaded latency {_ms(path_time)}")
    text = f"Stack {info['name'] or 'stack'} at bs={format_size(bs)}: " + ", ".join(words)
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
        return x

    kw = dict(
        iops=opt(args.iops, parse_count, "--iops"),
        block_bytes=opt(args.bs, parse_size, "--bs"),
        bandwidth_Bps=opt(args.bandwidth, parse_rate, "--bandwidth"),
        latency_s=opt(args.latency, parse_time, "--latency"),
        queue_depth=opt(args.qd, parse_count, "--qd"),
    )
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
    if args.json:
        out = check.to_dict()
        if from_stack is not None:
            out["stack"] = {**from_stack[1], "notes": notes}
        print(json.dumps(out))
    else:
        if from_stack is not None:
            print(from_stack[2])
            for note in notes:
                print(f"Note: {note}")
        print(check.to_text())
    return 0


def cmd_plan(args) -> int:
    from .plan import FAILURES, plan

    stack, wl = _model(args)
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
        print(result.to_text(all_rows=args.all))
    return 0


def cmd_report(args) -> int:
    from .report import write_report

    out = write_report(args.file, args.output, title=args.title, x=args.x)
    print(out)
    return 0


def cmd_fit(args) -> int:
    try:
        from .fit import run_cli
    except ImportError as exc:
        raise SpecError(f"iosim fit is not available in this installation yet ({exc})") from None
    holdout = _parse_vary(args.holdout, "--holdout") if args.holdout else None
    kw: dict = {}
    if args.params:
        kw["params"] = [p.strip() for p in args.params.split(",") if p.strip()]
    if args.ios is not None:
        kw["ios"] = _int_arg(args.ios, "--ios", 1)
    if args.seed is not None:
        kw["seed"] = _int_arg(args.seed, "--seed", 0)
    kw["shape"] = args.shape
    if args.format != "auto":
        kw["fmt"] = args.format
    return run_cli(args.files, args.model, holdout, args.json, **kw)


def cmd_parse(args) -> int:
    try:
        from . import traces
    except ImportError:  # pragma: no cover
        raise SpecError("parsing needs iosim.traces") from None
    out = traces.read(args.file, format=args.format)
    if isinstance(out, Results):
        records = [out.to_dict()]
    elif isinstance(out, Curve):
        records = out.to_records()
    elif isinstance(out, list):  # job / parameter files: [(name, Workload), ...]
        records = [{"name": name, **wl.to_dict()} for name, wl in out]
    else:  # a DataFrame (logs, iostat intervals)
        records = json.loads(out.to_json(orient="records", date_format="iso"))
    if args.json:
        print(json.dumps(records))
    else:
        for rec in records:
            print(
                ", ".join(
                    f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v}" for k, v in rec.items()
                )
            )
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="iosim",
        description="Storage I/O as a queueing system: simulate, "
        "compare with theory and measurements, check claims.",
    )
    sub = p.add_subparsers(dest="command", parser_class=_Parser, required=True)

    sp = sub.add_parser("presets", help="list the preset catalogue")
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(func=cmd_presets)

    sp = sub.add_parser("run", help="simulate one workload on one stack")
    _add_model_options(sp)
    sp.set_defaults(func=cmd_run)

    sp = sub.add_parser(
        "sweep",
        help="simulate a grid of dotted-key values, serially, on local cores or on dask",
    )
    sp.add_argument(
        "--vary",
        action="append",
        default=[],
        metavar="KEY=v1,v2,...",
        help="a dotted key and its values (1..8 is a range); repeat for a grid",
    )
    ex = sp.add_argument_group("execution and output")
    ex.add_argument("--workers", default="1", help="local worker processes (default 1)")
    ex.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run on a dask.distributed cluster, e.g. tcp://10.0.0.5:8786",
    )
    ex.add_argument(
        "--connect-timeout", default="10s", help="how long to wait for --scheduler (default 10s)"
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
    _add_model_options(sp)
    sp.set_defaults(func=cmd_sweep)

    sp = sub.add_parser(
        "plan",
        help="smallest configuration meeting an IOPS and a latency target (optionally degraded)",
    )
    sp.add_argument("--iops", required=True, help="target IOPS, e.g. 100k")
    sp.add_argument("--latency", required=True, help="latency target, e.g. 2ms")
    sp.add_argument("--percentile", default="99", help="latency percentile (default 99)")
    sp.add_argument(
        "--fail",
        choices=("path", "member", "none"),
        default="none",
        help="plan with one path (multipath.paths - 1 live) or one device member failed",
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
        help="cost of one step of KEY (default 1 per step of every key)",
    )
    sp.add_argument("--first", action="store_true", help="stop at the first passing candidate")
    sp.add_argument("--all", action="store_true", help="list skipped candidates too")
    sp.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=None, help="progress bar"
    )
    _add_model_options(sp, ios_default="10000")
    sp.set_defaults(func=cmd_plan)

    sp = sub.add_parser("report", help="a self-contained HTML report (plotly) of a sweep or a fit")
    sp.add_argument("file", help="sweep output (.json, .csv, .parquet) or fit output (--json)")
    sp.add_argument("-o", "--output", metavar="FILE.html", help="default: FILE with .html")
    sp.add_argument("--title", help="report title")
    sp.add_argument("--x", metavar="KEY", help="the column for the x axis (default: guessed)")
    sp.set_defaults(func=cmd_report)

    sp = sub.add_parser("fit", help="calibrate a stack model to measured points")
    sp.add_argument("files", nargs="+", metavar="FILE")
    sp.add_argument(
        "--model",
        required=True,
        choices=("auto", "generic", "ssd", "ssd-pool", "hdd", "hdd-ncq", "cloud"),
        help="a model family, or auto: the family with the smallest leave-one-depth-out error",
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
        help="points held out for prediction, e.g. numjobs=16,32 (repeatable)",
    )
    sp.add_argument("--params", metavar="a,b", help="dotted keys to fit instead of the model's")
    sp.add_argument("--ios", help="I/Os of each verifying simulation")
    sp.add_argument("--seed", help="seed of the verifying simulations")
    sp.add_argument(
        "--shape",
        choices=("lognormal", "measured"),
        default="lognormal",
        help="service-time shape: lognormal with a fitted scv, or the lowest-depth point's "
        "measured latency percentiles",
    )
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(func=cmd_fit)

    sp = sub.add_parser("parse", help="read fio/vdbench/sysbench/iostat/IOMeter output")
    sp.add_argument("file")
    sp.add_argument("--format", default="auto")
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(func=cmd_parse)

    sp = sub.add_parser("check-claim", help="check an IOPS claim against physical limits")
    sp.add_argument("--iops", required=True)
    sp.add_argument("--bs")
    sp.add_argument("--bandwidth")
    sp.add_argument("--latency")
    sp.add_argument("--qd")
    g = sp.add_argument_group(
        "stack (optional): its units, service time, queue depth and links join the limits"
    )
    _add_stack_options(g)
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(func=cmd_check_claim)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        return args.func(args)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (SpecError, UnitError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

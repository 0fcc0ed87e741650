"""The ``iosim`` command line (contract: docs/architecture.md, "CLI").

Every user error (a bad value, an unknown key or preset, a malformed file) is printed as one
line on stderr and exits with status 2; no traceback.
"""

from __future__ import annotations

import argparse
import json
import math
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


def _add_model_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("model")
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
    r.add_argument("--ios", default="20000", help="measured I/Os (default 20000)")
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


def _parse_vary(items: Sequence[str]) -> dict[str, list[str]]:
    vary: dict[str, list[str]] = {}
    for item in items:
        key, sep, values = item.partition("=")
        vals = [v.strip() for v in values.split(",") if v.strip()]
        if not sep or not key.strip() or not vals:
            raise SpecError(
                f"--vary expects KEY=v1,v2,... such as workload.numjobs=1,2,4 (got {item!r})"
            )
        vary[key.strip()] = vals
    return vary


def cmd_sweep(args) -> int:
    stack, wl = _model(args)
    if not args.vary:
        raise SpecError("sweep needs at least one --vary KEY=v1,v2,...")
    vary = _parse_vary(args.vary)
    workers = _int_arg(args.workers, "--workers", 1) or 1
    kw = _run_kwargs(args)
    progress = not args.json and sys.stderr.isatty()
    if workers > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(workers) as ex:
            curve = sweep(stack, wl, vary, progress=progress, executor=ex, **kw)
    else:
        curve = sweep(stack, wl, vary, progress=progress, **kw)
    if args.json:
        print(json.dumps(curve.to_records()))
    else:
        print(_describe(stack, wl))
        _print_table(curve, list(vary))
    return 0


def _print_table(curve: Curve, keys: list[str]) -> None:
    cols = [*keys, "IOPS", "lat mean", "lat p99", "dev lat", "aqu-sz", "%util", "unit util"]
    rows = []
    for r in curve:
        rows.append(
            [
                *(str(r.params.get(k)) for k in keys),
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


def cmd_check_claim(args) -> int:
    from .claims import check_claim

    def opt(value, parse, name):
        if value is None:
            return None
        try:
            return parse(value, name)
        except UnitError as exc:
            raise SpecError(str(exc)) from None

    kw = dict(
        iops=opt(args.iops, parse_count, "--iops"),
        block_bytes=opt(args.bs, parse_size, "--bs"),
        bandwidth_Bps=opt(args.bandwidth, parse_rate, "--bandwidth"),
        latency_s=opt(args.latency, parse_time, "--latency"),
        queue_depth=opt(args.qd, parse_count, "--qd"),
    )
    try:
        check = check_claim(**kw)
    except ValueError as exc:
        raise SpecError(f"check-claim: {exc}") from None
    print(json.dumps(check.to_dict()) if args.json else check.to_text())
    return 0


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
    else:  # a DataFrame (logs, iostat intervals)
        records = json.loads(out.to_json(orient="records"))
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

    sp = sub.add_parser("sweep", help="simulate a grid of dotted-key values")
    sp.add_argument("--vary", action="append", default=[], metavar="KEY=v1,v2,...")
    sp.add_argument("--workers", default="1", help="local worker processes (default 1)")
    _add_model_options(sp)
    sp.set_defaults(func=cmd_sweep)

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

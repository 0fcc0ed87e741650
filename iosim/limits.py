"""Limits on what a user can ask for: the one place where numbers, sizes, counts and paths
from a user are checked against what the machine and the physics allow.

Three kinds of limit live here:

* **Physical bounds** on spec values: a count past :data:`MAX_COUNT`, a size past
  :data:`MAX_SIZE_BYTES` or a time per I/O past :data:`MAX_TIME_PER_IO_S` describes no storage
  system, and past int64 it would overflow the compiled engine.
* **Work and memory estimates**: a run's events (I/Os x block parts x layers) over an
  engine's measured speed, and its memory from the in-flight slots, paths and units it
  allocates. A run (or sweep) that would take longer than :data:`MAX_WALL_S` is refused with
  the estimate in the message unless forced (``force=True``, ``--force``); one that would need
  more memory than :func:`memory_budget_bytes` is refused even then.
* **Input files**: :func:`read_bytes` / :func:`read_text` are the one reader every input
  (stack files, sweep and fit JSON, empirical samples, traces) goes through: a regular file
  (not a FIFO, a device or a directory), a symlink loop said as such, a size cap checked before
  reading, and undecodable text named with the file. :func:`check_depth` bounds nesting after
  parsing; :func:`check_output` refuses an output path that is one of the inputs.

This module imports nothing from iosim, so every other module may use it. Errors are raised as
:class:`LimitError` (a ``ValueError``); ``spec`` turns them into ``SpecError`` where a spec key
is involved.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import math
import os
import re
import reprlib
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

# one run's I/Os: 10^12 is days on the fast engine; the time estimate refuses far less
MAX_IOS = 10**12
MAX_REPLICATIONS = 100_000

__all__ = [
    "LimitError",
    "shown",
    "MAX_COUNT",
    "MAX_SIZE_BYTES",
    "MAX_TIME_PER_IO_S",
    "MAX_EVENT_TIME_S",
    "MAX_WALL_S",
    "MAX_DEPTH",
    "MAX_INPUT_BYTES",
    "check_count",
    "check_size",
    "check_time",
    "int_arg",
    "read_bytes",
    "read_text",
    "check_depth",
    "check_output",
    "check_workers",
    "check_scheduler_address",
    "estimate_run",
    "check_estimate",
    "check_ios_budget",
    "fmt_duration",
    "check_points",
    "forced",
    "allow_long_work",
]


class LimitError(ValueError):
    """A value, a file or an amount of work beyond what iosim accepts; the message says which
    limit and how to get past it when that is possible."""


# -- physical bounds -------------------------------------------------------------------------

# Counts (jobs, I/O depth, queue slots, paths, units, members, ...): a billion of anything is
# beyond any machine, and every product the engines form of two such counts stays within int64.
MAX_COUNT = 1_000_000_000
# Sizes: 2^60 bytes (1 EiB), larger than any single volume; offsets stay exact in a float64
# multiple of 512 and in int64.
MAX_SIZE_BYTES = float(2**60)
# A time spent per I/O (service, overhead, seek, think time, link latency): one hour. A mean
# beyond that is a typo (1e300 s overflows the statistics).
MAX_TIME_PER_IO_S = 3600.0
# The instant of an event in a run (a path or member failing): about 31 years of simulated time.
MAX_EVENT_TIME_S = 1e9

# How long a run may take before it needs ``force``: ten minutes of wall-clock time.
MAX_WALL_S = 600.0
# Runs expected to take longer than this announce their estimate on stderr before they start.
ANNOUNCE_WALL_S = 10.0

# Nesting of a parsed input (TOML tables and arrays, JSON): a stack file needs about 6 levels
# (a RAID of RAIDs of disks with path-failure tables), a sweep or fit JSON about 5.
MAX_DEPTH = 32

# Input files other than traces: a stack file, a sweep or fit JSON/CSV, an empirical sample
# file. The largest real one (a 10^5-point sweep as JSON) is ~150 MB.
MAX_INPUT_BYTES = 256 * 1024**2
# Empirical samples: a file of one time per line; 10^7 samples are plenty for any histogram.
MAX_SAMPLES = 10_000_000

# Worker processes per core: more only adds switching and memory.
WORKERS_PER_CORE = 4

# Engine speeds, measured by timing ``simulate(ios=N, warmup_ios=0)`` on the default preset
# (8 KiB random reads, one part per I/O: N = 10^6 fast, 5 x 10^4 SimPy) for I/Os per second,
# and again with
# ``workload.block_size_bytes=64M`` (128 parts per I/O) for the cost of each extra part, on the
# project's 2-core build machine while other jobs ran (load average 4 to 9): fast 1.09e6 I/O/s
# and 1.4e6 to 3.1e6 parts/s (the same 128 parts per I/O, and 2048 with 1G blocks, gave 2.9e6;
# the 100G run, 2e5 parts per I/O, took 11 min: 7e6 parts/s on a quiet machine),
# SimPy 7.1e3 I/O/s and 7.9e3 parts/s. SimPy's speed depends on the device
# model: the hdd-7200 preset ran at 3.5e3 I/O/s and raid0-12x-hdd-wbc at 4.2e3, so SimPy's
# figure is the disk's. Rounded down a little: the estimates should err towards "longer".
IOS_PER_S = {"fast": 1.0e6, "simpy": 3.5e3}
PARTS_PER_S = {"fast": 3.0e6, "simpy": 7.5e3}
# Start-up of one simulation (streams, arrays, SimPy environment), once the engine is loaded:
# 30 runs of 100 I/Os took 1.2 ms (fast) and 8.7 ms (SimPy) each. The fast engine's first run
# in a process also loads the compiled code (~0.3 s), not counted.
START_S = {"fast": 0.005, "simpy": 0.02}
# Memory per in-flight slot (numjobs x iodepth), per path and per device unit, from the peak
# RSS (``/usr/bin/time -f %M iosim run --ios 2000``) at 10^5 and 10^6 jobs, paths and units
# (SimPy: 10^4 and 10^5) minus the 280 MB of an ordinary run: fast ~490 B per slot, 140 B per
# path, too little to see per unit; SimPy ~3 kB per slot (a process each), little per path or
# unit (allocated as used).
BYTES_PER_SLOT = {"fast": 500, "simpy": 3000}
BYTES_PER_PATH = {"fast": 150, "simpy": 100}
BYTES_PER_UNIT = {"fast": 16, "simpy": 100}
# What a command may plan to use without ``force``: 1 GiB, an ordinary run's 280 MB with room.
# Forced work is still refused past half the machine's memory (:func:`memory_budget_bytes`).
MEMORY_UNFORCED_BYTES = float(2**30)
# A finished point of a sweep (Results with histograms) held until the sweep ends: 8 kB kept
# and 13 kB at the peak per point (tracemalloc over a 200-point sweep), rounded up.
BYTES_PER_POINT = 16_000


_REPR = reprlib.Repr()
_REPR.maxlevel = 3
_REPR.maxstring = 60
_REPR.maxother = 60
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = 6
_REPR.maxlong = 40


def shown(value: object) -> str:
    """``repr(value)`` bounded in length and depth, for quoting what a user gave in a message
    (a huge or deeply nested value cannot flood the terminal or exhaust the stack)."""
    try:
        return _REPR.repr(value)
    except (RecursionError, ValueError):  # pragma: no cover - reprlib bounds both
        return f"<{type(value).__name__}>"


def _fmt_count(x: float) -> str:
    return f"{x:,.0f}" if abs(x) < 1e15 else f"{x:.3g}"


def _fmt_bytes(x: float) -> str:
    for unit, scale in (("TiB", 2.0**40), ("GiB", 2.0**30), ("MiB", 2.0**20), ("KiB", 2.0**10)):
        if x >= scale:
            return f"{x / scale:.3g} {unit}"
    return f"{x:.0f} B"


def fmt_duration(s: float) -> str:
    if not math.isfinite(s):
        return "forever"
    if s < 90:
        return f"{s:.3g} s"
    if s < 5400:
        return f"{s / 60:.3g} min"
    if s < 2 * 86400:
        return f"{s / 3600:.3g} h"
    if s < 2 * 365 * 86400:
        return f"{s / 86400:.3g} days"
    return f"{s / (365 * 86400):.3g} years"


def check_count(x: float, name: str) -> None:
    """A count (an int field of a spec) within :data:`MAX_COUNT`."""
    if abs(x) > MAX_COUNT:
        raise LimitError(
            f"{name} must be at most {MAX_COUNT:,} (got {_fmt_count(x)}): "
            "more than any machine holds"
        )


def check_size(x: float, name: str) -> None:
    if math.isfinite(x) and abs(x) > MAX_SIZE_BYTES:
        raise LimitError(
            f"{name} must be at most 2^60 bytes (1 EiB), larger than any volume (got {x:.3g})"
        )


def check_time(x: float, name: str) -> None:
    """A time field: per-I/O times up to an hour, event instants (``*_at_s``) up to 1e9 s."""
    limit = MAX_EVENT_TIME_S if name.endswith("_at_s") else MAX_TIME_PER_IO_S
    if math.isfinite(x) and abs(x) > limit:
        what = "an event time" if limit == MAX_EVENT_TIME_S else "a time per I/O"
        raise LimitError(f"{name} must be at most {limit:g} s for {what} (got {x:g} s)")


def check_mean_time(mean_s: float, name: str) -> None:
    """The mean of a service or overhead distribution: at most an hour per I/O."""
    if math.isfinite(mean_s) and mean_s > MAX_TIME_PER_IO_S:
        raise LimitError(
            f"{name}: mean {mean_s:g} s is above the limit of {MAX_TIME_PER_IO_S:g} s "
            "(1 hour) for a time per I/O"
        )


_INT_TEXT = re.compile(r"\s*[+]?\d+\s*")


def int_arg(value: object, name: str, minimum: int, maximum: int | None = None,
            parse: Callable[[str, str], float] | None = None) -> int:
    """A whole number from a command-line flag or an API argument, within
    ``minimum``..``maximum`` (default :data:`MAX_COUNT`). Strings go through ``parse`` (the
    count parser, so ``20k`` and ``1e6`` work); the error names the flag and the range."""
    hi = MAX_COUNT if maximum is None else maximum
    expect = (f"{name} must be a whole number >= {minimum:,}" if hi >= 10**18
              else f"{name} must be a whole number from {minimum:,} to {hi:,}")
    if isinstance(value, bool):
        raise LimitError(f"{expect} (got {value!r})")
    x: float
    if isinstance(value, str):
        if _INT_TEXT.fullmatch(value):
            x = int(value)
        elif parse is not None:
            try:
                x = parse(value, name)
            except ValueError as exc:  # UnitError is a ValueError
                raise LimitError(str(exc)) from None
        else:
            raise LimitError(f"{expect} (got {value!r})")
    elif isinstance(value, int) or type(value).__name__.startswith(("int", "uint")):
        x = int(value)  # Python and numpy integers
    elif isinstance(value, float):
        x = value
    else:
        raise LimitError(f"{expect} (got {value!r})")
    if isinstance(x, float):
        if not math.isfinite(x) or x != math.floor(x):
            raise LimitError(f"{expect} (got {value!r})")
    if x < minimum or x > hi:
        raise LimitError(f"{expect} (got {value!r})")
    return int(x)


# -- input files -----------------------------------------------------------------------------

_KIND = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def _default_error(path: str, reason: str) -> Exception:
    return LimitError(f"{path}: {reason}")


def check_regular_file(
    path: str, error: Callable[[str, str], Exception] = _default_error
) -> os.stat_result:
    """The file's stat, or ``error(path, reason)`` naming what it is instead of a regular
    file (missing, a directory, a FIFO, a socket, a symbolic link loop ...)."""
    try:
        st = os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise error(path, "a symbolic link loop (the link points back to itself)") from None
        if exc.errno == errno.ENOENT:
            if os.path.islink(path):
                raise error(path, "a broken symbolic link (its target does not exist)") from None
            raise error(path, "no such file") from None
        if exc.errno == errno.EACCES:
            raise error(path, "permission denied") from None
        if exc.errno == errno.ENAMETOOLONG:
            raise error(path[:80] + "...", "file name too long") from None
        raise error(path, exc.strerror or str(exc)) from None
    for test, kind in _KIND:
        if test(st.st_mode):
            raise error(path, f"is {kind}, not a regular file")
    return st


def read_bytes(path: str | os.PathLike, max_bytes: int | None = None, *, what: str = "an input",
               error: Callable[[str, str], Exception] | None = None,
               head: int | None = None) -> bytes:
    """The bytes of a regular file no larger than ``max_bytes`` (default
    :data:`MAX_INPUT_BYTES`), checked before anything is read; only the first ``head`` bytes
    if given. ``error(path, reason)`` builds the exception (default :class:`LimitError`
    ``"path: reason"``)."""
    err = error or _default_error
    p = os.fspath(path)
    if isinstance(p, bytes):
        p = os.fsdecode(p)
    if "\x00" in p:
        raise err(p.replace("\x00", "\\0"), "a file name cannot contain NUL")
    cap = MAX_INPUT_BYTES if max_bytes is None else max_bytes
    st = check_regular_file(p, err)
    if st.st_size > cap:
        raise err(
            p,
            f"file is {_fmt_bytes(st.st_size)}, more than the {_fmt_bytes(cap)} iosim reads "
            f"as {what}",
        )
    try:
        # O_NONBLOCK: should the file have been replaced by a FIFO since the check, open does
        # not wait for a writer
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise err(p, exc.strerror or str(exc)) from None
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise err(p, "is not a regular file")
        data = fh.read(cap + 1 if head is None else min(head, cap + 1))
    if head is None and len(data) > cap:
        raise err(p, f"file grew past the {_fmt_bytes(cap)} iosim reads as {what}")
    return data


def read_text(path: str | os.PathLike, max_bytes: int | None = None, *, what: str = "an input",
              error: Callable[[str, str], Exception] | None = None) -> str:
    """:func:`read_bytes` decoded as UTF-8 (a BOM dropped); undecodable bytes are one error
    naming the file and the line, never the bytes themselves."""
    err = error or _default_error
    data = read_bytes(path, max_bytes, what=what, error=error)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise err(
            f"{os.fspath(path)}:{line}",
            f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})",
        ) from None


def check_depth(obj: object, where: str, limit: int = MAX_DEPTH) -> None:
    """Refuse a parsed document (dicts and lists) nested deeper than ``limit``, without
    recursion."""
    stack: list[tuple[object, int]] = [(obj, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Iterable = node.values()
        elif isinstance(node, (list, tuple)):
            children = node
        else:
            continue
        if depth > limit:
            raise LimitError(f"{where}: nested more than {limit} levels deep")
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list, tuple)))


def nesting_depth_of_text(text: str) -> int:
    """An upper bound of the bracket nesting of a TOML or JSON text (brackets inside strings
    and comments are counted too, so it can only over-estimate): a cheap scan before a
    recursive parser sees the text."""
    depth = most = 0
    for ch in text:
        if ch in "[{":
            depth += 1
            if depth > most:
                most = depth
        elif ch in "]}":
            depth = max(0, depth - 1)
    return most


def check_output(output: str | os.PathLike | None, inputs: Iterable[str | os.PathLike | None],
                 option: str = "--output") -> None:
    """Refuse writing to a path that is one of the inputs (the same file by any name)."""
    if output is None:
        return
    out = Path(output)
    for src in inputs:
        if src is None:
            continue
        s = Path(src)
        try:
            same = os.path.samefile(out, s) if out.exists() and s.exists() else False
        except OSError:
            same = False
        if same or _resolved(out) == _resolved(s):
            raise LimitError(
                f"{option} {os.fspath(output)} is the input file {os.fspath(src)}: writing it "
                "would destroy the input; choose another output file"
            )


def _resolved(p: Path) -> Path:
    try:
        return p.resolve(strict=False)
    except (OSError, RuntimeError):
        return p.absolute()


# -- machine -----------------------------------------------------------------------------------


def cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def memory_budget_bytes() -> float:
    """Half of the machine's physical memory: what one iosim command may plan to use."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = 8 * 1024**3
    return total / 2


def check_workers(workers: int, option: str = "--workers") -> int:
    most = cores() * WORKERS_PER_CORE
    if workers > most:
        raise LimitError(
            f"{option} {workers:,} is more than {WORKERS_PER_CORE} per core of this machine's "
            f"{cores()} core(s); use at most {most}"
        )
    return workers


_SCHEMES = ("tcp", "tls", "inproc", "ucx", "ws", "wss")


def check_scheduler_address(address: str) -> None:
    """A dask scheduler address must look like ``[scheme://]host:port`` before any connection
    is tried (a malformed one would make dask retry until its timeout)."""
    text = address.strip()
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "tcp", text
    expected = "--scheduler expects an address such as tcp://10.0.0.5:8786"
    if scheme not in _SCHEMES:
        raise LimitError(f"{expected} (got {address!r}: unknown scheme {scheme!r})")
    if scheme == "inproc":
        return
    host, colon, port = rest.rpartition(":")
    host = host.strip("[]")
    ok_host = bool(host) and re.fullmatch(r"[A-Za-z0-9_.:%-]+", host) is not None
    if not (colon and ok_host and port.isdigit() and 0 < int(port) < 65536):
        raise LimitError(f"{expected} (got {address!r})")


# -- work ------------------------------------------------------------------------------------

_FORCE: contextvars.ContextVar[bool] = contextvars.ContextVar("iosim_force", default=False)


def forced() -> bool:
    """Whether long work was allowed (``--force`` or :func:`allow_long_work`)."""
    return _FORCE.get()


@contextlib.contextmanager
def allow_long_work(on: bool = True) -> Iterator[None]:
    """Within this block, runs longer than :data:`MAX_WALL_S` are allowed (they still announce
    their estimate); memory limits still hold."""
    token = _FORCE.set(bool(on))
    try:
        yield
    finally:
        _FORCE.reset(token)


class Estimate:
    """A run's expected wall time and memory, with the terms that make them up."""

    def __init__(self, seconds: float, memory_bytes: float, events: float, engine: str):
        self.seconds = seconds
        self.memory_bytes = memory_bytes
        self.events = events
        self.engine = engine

    def __repr__(self) -> str:
        return (f"Estimate({fmt_duration(self.seconds)}, {_fmt_bytes(self.memory_bytes)}, "
                f"{self.events:.3g} events, {self.engine})")


def estimate_run(*, ios: int, warmup_ios: int, replications: int, engine: str, parts: float,
                 slots: float, paths: float, units: float, members_per_io: float = 1.0,
                 device_bytes: float = 0.0) -> Estimate:
    """Expected wall time and memory of ``replications`` runs of ``ios + warmup_ios`` I/Os,
    each split into ``parts`` block requests reaching ``members_per_io`` device members, with
    ``slots`` I/Os in flight, ``paths`` paths and ``units`` device units, and the device's
    own state (``device_bytes``: ``DeviceFamily.state_bytes``)."""
    eng = "simpy" if engine == "simpy" else "fast"
    n = float(ios) + float(warmup_ios)
    extra = max(0.0, parts * members_per_io - 1.0)  # block or member requests past the first
    per_run_events = n * (1.0 + extra)
    per_run_s = n / IOS_PER_S[eng] + n * extra / PARTS_PER_S[eng] + START_S[eng]
    memory = (slots * BYTES_PER_SLOT[eng] * max(1.0, min(parts, 64.0))
              + paths * BYTES_PER_PATH[eng] + units * BYTES_PER_UNIT[eng] + device_bytes)
    return Estimate(per_run_s * replications, memory, per_run_events * replications, eng)


def check_estimate(est: Estimate, what: str, force: bool | None = None,
                   announce: Callable[[str], None] | None = None) -> None:
    """Refuse ``est`` beyond memory, or beyond :data:`MAX_WALL_S` unless forced; announce long
    work through ``announce``."""
    budget = memory_budget_bytes()
    if est.memory_bytes > budget:
        raise LimitError(
            f"{what} would need about {_fmt_bytes(est.memory_bytes)} of memory, more than the "
            f"{_fmt_bytes(budget)} (half of this machine's) iosim allows itself; use fewer "
            "jobs, I/O depth, paths, units or members"
        )
    force = forced() if force is None else force
    if est.memory_bytes > MEMORY_UNFORCED_BYTES and not force:
        raise LimitError(
            f"{what} would need about {_fmt_bytes(est.memory_bytes)} of memory, more than the "
            f"{_fmt_bytes(MEMORY_UNFORCED_BYTES)} allowed without --force (force=True in "
            "Python); use fewer jobs, I/O depth, paths or units"
        )
    if est.seconds > MAX_WALL_S and not force:
        raise LimitError(
            f"{what} would take about {fmt_duration(est.seconds)} "
            f"(~{est.events:.3g} events on the {est.engine} engine), more than the "
            f"{fmt_duration(MAX_WALL_S)} allowed without --force (force=True in Python)"
        )
    if announce is not None and est.seconds > ANNOUNCE_WALL_S:
        announce(f"{what}: estimated {fmt_duration(est.seconds)} "
                 f"(~{est.events:.3g} events on the {est.engine} engine)")


def check_ios_budget(ios: int, warmup_ios: int = 0, replications: int = 1,
                     what: str = "the run", force: bool | None = None) -> None:
    """A lower bound before the stack is known: every I/O costs at least the fast engine's
    time per I/O."""
    est = estimate_run(ios=ios, warmup_ios=warmup_ios, replications=replications,
                       engine="fast", parts=1, slots=0, paths=0, units=0)
    check_estimate(est, what, force)


def check_points(points: int, what: str = "the sweep", per_point_s: float = 0.0,
                 force: bool | None = None, workers: int = 1) -> float:
    """A grid of ``points`` simulations: its memory (results kept until the end) and, given
    the time of one point, its wall time. Returns the estimated seconds."""
    budget = memory_budget_bytes()
    mem = points * BYTES_PER_POINT
    if mem > budget:
        raise LimitError(
            f"{what} has {points:,} points, which would need about {_fmt_bytes(mem)} of memory "
            f"for their results (more than {_fmt_bytes(budget)}); vary fewer keys or values"
        )
    force = forced() if force is None else force
    if mem > MEMORY_UNFORCED_BYTES and not force:
        raise LimitError(
            f"{what} has {points:,} points, which would need about {_fmt_bytes(mem)} of memory "
            f"for their results, more than the {_fmt_bytes(MEMORY_UNFORCED_BYTES)} allowed "
            "without --force (force=True in Python)"
        )
    seconds = points * per_point_s / max(1, workers)
    if seconds > MAX_WALL_S and not force:
        raise LimitError(
            f"{what} has {points:,} points and would take about {fmt_duration(seconds)}, more "
            f"than the {fmt_duration(MAX_WALL_S)} allowed without --force (force=True in "
            "Python)"
        )
    return seconds


# values one ``lo..hi`` range may expand to (a sweep or plan search of one key)
MAX_RANGE_VALUES = 100_000


def check_range(lo: int, hi: int, what: str) -> None:
    """A ``lo..hi`` range, before it is expanded into values."""
    n = hi - lo + 1
    if n > MAX_RANGE_VALUES:
        raise LimitError(
            f"{what}={lo}..{hi} has {_fmt_count(n)} values, more than the {MAX_RANGE_VALUES:,} a "
            "range may give; use a coarser list such as 1,2,4,8,..."
        )


def check_grid_size(points: int, what: str = "the sweep") -> None:
    """A grid's point count before it is expanded: past the memory for its results, no
    ``force`` helps."""
    check_points(points, what, 0.0, force=True)

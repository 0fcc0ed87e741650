"""The stack: host, block layer, multipath + HBA, link and device, as frozen specs.

Layer semantics (shared by every engine; see docs/architecture.md):

* host: after each completion a job spends ``overhead`` (a distribution) before its next issue.
  The job's CPU is one server, so a job with iodepth > 1 pays the overhead serially. With
  ``cpus`` = C >= 1 every overhead period also holds one of C CPUs shared by all jobs (FIFO,
  taken after the job's own CPU); 0 means no shared limit.
* block: I/Os larger than ``max_sectors_bytes`` are split into parts issued together; at most
  ``nr_requests`` requests are dispatched below, the rest wait FIFO.
* hba + multipath: ``paths`` paths, each admitting ``hba.queue_depth`` outstanding requests; a
  policy picks the path. Requests wait FIFO in the host when no live path has a free slot. Paths
  may fail and be restored at given times; requests in flight on a failed path are retried on
  another after ``failover_timeout_s``.
* link: per path, ``latency_s`` each way plus ``size / bandwidth_Bps`` serialised per direction.
* device: one of the families in ``iosim.devices``.
"""

from __future__ import annotations

import copy
import math
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from . import limits
from .devices import DEVICE_KINDS, GenericDevice, device_from_dict
from .dists import Deterministic, Distribution
from .spec import Spec, SpecError, fld
from .workload import Workload

__all__ = [
    "Stack",
    "HostSpec",
    "BlockSpec",
    "HbaSpec",
    "MultipathSpec",
    "PauseSpec",
    "PathEvent",
    "LinkSpec",
    "POLICIES",
    "load_toml",
    "dump_toml",
    "apply_overrides",
    "parse_assignments",
]

POLICIES = ("round-robin", "queue-length", "service-time")
# device.member.member...: a RAID 10 over RAID 0 sets of disks is 3 levels
MAX_DEVICE_NESTING = 4


@dataclass(frozen=True, kw_only=True)
class HostSpec(Spec):
    section = "host"
    overhead: Distribution = fld(Deterministic(0.0), "dist")
    cpus: int = fld(0, "int")  # the host's CPUs shared by all jobs' overhead (0: no limit)

    def validate(self):
        self.require(self.cpus >= 0, "cpus", ">= 0 (0: no shared CPU limit)")


@dataclass(frozen=True, kw_only=True)
class BlockSpec(Spec):
    section = "block"
    nr_requests: int = fld(256, "int")
    max_sectors_bytes: float = fld(524288, "size")

    def validate(self):
        self.require(self.nr_requests >= 1, "nr_requests", ">= 1")
        self.require(
            self.max_sectors_bytes >= 4096 and self.max_sectors_bytes % 512 == 0,
            "max_sectors_bytes",
            "a multiple of 512 bytes, at least 4096",
        )


@dataclass(frozen=True, kw_only=True)
class HbaSpec(Spec):
    section = "hba"
    queue_depth: int = fld(32, "int")

    def validate(self):
        self.require(self.queue_depth >= 1, "queue_depth", ">= 1")


@dataclass(frozen=True, kw_only=True)
class PathEvent(Spec):
    """Path ``path`` (0-based) fails at ``fail_at_s``; back at ``restore_at_s`` if given."""

    section = "multipath.failures"
    path: int = fld(0, "int")
    fail_at_s: float = fld(0.0, "time")
    restore_at_s: float | None = fld(None, "time", optional=True)

    def validate(self):
        self.require(self.path >= 0, "path", ">= 0")
        self.require(
            math.isfinite(self.fail_at_s) and self.fail_at_s >= 0, "fail_at_s", "a time >= 0"
        )
        if self.restore_at_s is not None:
            self.require(self.restore_at_s > self.fail_at_s, "restore_at_s", "after fail_at_s")


def _path_events(value: Any) -> tuple[PathEvent, ...]:
    if value is None or (isinstance(value, (list, tuple)) and not value):
        return ()
    if not isinstance(value, (list, tuple)):
        raise SpecError(
            f"multipath.failures must be a list of tables like "
            f"[{{path = 0, fail_at_s = '10ms'}}] (got {value!r})"
        )
    out = []
    for i, item in enumerate(value):
        if isinstance(item, PathEvent):
            out.append(item)
        elif isinstance(item, dict):
            out.append(PathEvent.from_dict(item, f"multipath.failures[{i}]: "))
        else:
            raise SpecError(
                f"multipath.failures[{i}] must be a table like "
                f"{{path = 0, fail_at_s = '10ms'}} (got {item!r})"
            )
    return tuple(out)


@dataclass(frozen=True, kw_only=True)
class MultipathSpec(Spec):
    section = "multipath"
    paths: int = fld(1, "int")
    policy: str = fld("round-robin", "choice", choices=POLICIES)
    failover_timeout_s: float = fld(0.0, "time")
    failures: tuple = fld((), "any")

    def __post_init__(self):
        object.__setattr__(self, "failures", _path_events(self.failures))
        super().__post_init__()

    def validate(self):
        self.require(self.paths >= 1, "paths", ">= 1")
        self.require(self.failover_timeout_s >= 0, "failover_timeout_s", ">= 0 s")
        for ev in self.failures:
            if ev.path >= self.paths:
                raise SpecError(
                    f"multipath.failures: path must be < multipath.paths = {self.paths} "
                    f"(got {ev.path})"
                )
        # A failure with no restore that leaves no path alive would stall every I/O forever.
        permanent = {ev.path for ev in self.failures if ev.restore_at_s is None}
        if len(permanent) == self.paths:
            raise SpecError(
                "multipath.failures: every path fails for good, so no I/O could complete; "
                "give at least one failure a restore_at_s"
            )


@dataclass(frozen=True, kw_only=True)
class LinkSpec(Spec):
    section = "link"
    latency_s: float = fld(0.0, "time")
    bandwidth_Bps: float = fld(math.inf, "rate")

    def validate(self):
        self.require(
            math.isfinite(self.latency_s) and self.latency_s >= 0, "latency_s", "a time >= 0"
        )
        self.require(self.bandwidth_Bps > 0, "bandwidth_Bps", "> 0 bytes/s")


@dataclass(frozen=True, kw_only=True)
class PauseSpec(Spec):
    """The device stops answering now and then (``iosim.engine.pauses``): pauses start at the
    times of a Poisson process of ``rate_hz`` and last ``duration`` each; a request whose
    service ends inside one completes when it ends. 0 Hz (the default): no pauses."""

    section = "pauses"
    rate_hz: float = fld(0.0, "float")
    duration: Distribution = fld(Deterministic(0.0), "dist")

    def validate(self):
        self.require(math.isfinite(self.rate_hz) and 0 <= self.rate_hz <= 1e6, "rate_hz",
                     "pauses per second, 0..1e6 (0: none)")
        if self.rate_hz > 0 and not self.duration.mean_s > 0:
            raise SpecError(f"pauses.duration must be a time > 0, such as 3ms, when rate_hz > "
                            f"0 (got {self.duration.spec()})")

    @property
    def on(self) -> bool:
        return self.rate_hz > 0


_SECTIONS = {
    "host": HostSpec,
    "block": BlockSpec,
    "hba": HbaSpec,
    "multipath": MultipathSpec,
    "link": LinkSpec,
    "pauses": PauseSpec,
}
#: sections a stack file shows only when they differ from their defaults (a stack without
#: pauses prints as it did before pauses existed)
_SHOWN_WHEN_SET = {"pauses"}


@dataclass(frozen=True, kw_only=True)
class Stack:
    """A whole I/O path. Build it from parts, from a preset or from a TOML file."""

    host: HostSpec = field(default_factory=HostSpec)
    block: BlockSpec = field(default_factory=BlockSpec)
    hba: HbaSpec = field(default_factory=HbaSpec)
    multipath: MultipathSpec = field(default_factory=MultipathSpec)
    link: LinkSpec = field(default_factory=LinkSpec)
    device: Any = field(default_factory=GenericDevice)
    pauses: PauseSpec = field(default_factory=PauseSpec)
    name: str = ""
    description: str = ""

    def __post_init__(self):
        for key, cls in _SECTIONS.items():
            if not isinstance(getattr(self, key), cls):
                raise SpecError(f"{key} must be a {cls.__name__} (got {getattr(self, key)!r})")
        if type(self.device) not in DEVICE_KINDS.values():
            raise SpecError(f"device must be a device spec (got {limits.shown(self.device)})")
        chain, dev = 0, self.device
        while dev is not None and chain <= MAX_DEVICE_NESTING:
            chain, dev = chain + 1, getattr(dev, "member", None)
        if chain > MAX_DEVICE_NESTING:
            raise SpecError(
                f"device: members nested more than {MAX_DEVICE_NESTING} levels deep "
                "(a RAID of RAIDs of disks is 3)"
            )

    @property
    def effective_queue_depth(self) -> int:
        """Requests the host can have below the HBA: sum over paths of the queue depth."""
        return self.multipath.paths * self.hba.queue_depth

    def to_dict(self) -> dict:
        out: dict = {}
        if self.name:
            out["name"] = self.name
        if self.description:
            out["description"] = self.description
        for key in _SECTIONS:
            if key not in _SHOWN_WHEN_SET or getattr(self, key) != _SECTIONS[key]():
                out[key] = getattr(self, key).to_dict()
        out["device"] = self.device.to_dict()
        return out

    @classmethod
    def from_dict(cls, table: dict, where: str = "") -> Stack:
        table = dict(table)
        table.pop("workload", None)
        table.pop("calibration", None)  # provenance (presets), not part of the stack
        allowed = set(_SECTIONS) | {"device", "name", "description"}
        unknown = sorted(set(table) - allowed)
        if unknown:
            raise SpecError(
                f"{where}unknown section {unknown[0]!r}; allowed: "
                f"{', '.join(sorted(allowed | {'workload'}))}"
            )
        parts: dict[str, Any] = {}
        for key, spec_cls in _SECTIONS.items():
            if key in table:
                parts[key] = spec_cls.from_dict(table[key], where)
        if "device" in table:
            parts["device"] = device_from_dict(table["device"], where)
        for key in ("name", "description"):
            if key in table:
                if not isinstance(table[key], str):
                    raise SpecError(f"{where}{key} must be a string (got {table[key]!r})")
                parts[key] = table[key]
        return cls(**parts)

    def with_(self, **overrides: Any) -> Stack:
        """A copy with dotted overrides applied: ``stack.with_(**{"hba.queue_depth": 4})``."""
        return apply_overrides(self, None, overrides)[0]


# -- TOML ----------------------------------------------------------------------------------


def load_toml(path: str | Path) -> tuple[Stack, Workload | None]:
    """Read a stack file; a ``[workload]`` table, if present, is returned too."""
    p = Path(path)
    text = limits.read_text(p, MAX_STACK_FILE_BYTES, what="a stack file", error=_file_error)
    # tomllib recurses once per nesting level: refuse deep nesting before parsing (the scan
    # over-counts brackets inside strings, never under-counts)
    if limits.nesting_depth_of_text(text) > limits.MAX_DEPTH:
        raise SpecError(f"{p}: nested more than {limits.MAX_DEPTH} levels deep")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{p}: not valid TOML ({exc})") from None
    except RecursionError:  # pragma: no cover - the depth scan above comes first
        raise SpecError(f"{p}: nested too deeply to read") from None
    where = f"{p}: "
    _check_table_depth(data, where)
    _refuse_bare_times(data, where)
    stack = Stack.from_dict(data, where)
    wl = Workload.from_dict(data["workload"], where) if "workload" in data else None
    return stack, wl


def _unitless_time_keys() -> set[str]:
    """Time fields whose name does not state the unit (``service``, not ``avg_seek_s``)."""
    classes = [*_SECTIONS.values(), *DEVICE_KINDS.values()]
    return {
        f.name
        for c in classes
        for f in fields(c)
        if f.metadata.get("kind") in ("time", "dist") and not f.name.endswith("_s")
    }


def _refuse_bare_times(table: dict, where: str, prefix: str = "") -> None:
    """``service = 0.46`` in a file could mean 0.46 ms or 0.46 s: ask for the unit.

    (A Python float given to a spec is seconds by design; a TOML number for a key that does
    not say its unit is the ambiguous case.)
    """
    keys = _unitless_time_keys()
    for key, value in table.items():
        if key == "workload":
            continue
        dotted = f"{prefix}{key}"
        if isinstance(value, dict):
            _refuse_bare_times(value, where, f"{dotted}.")
        elif (
            key in keys
            and isinstance(value, (int, float))
            and not isinstance(value, bool)
            and value != 0
        ):
            raise SpecError(
                f"{where}{dotted} = {value!r}: a time needs a unit: "
                f'"{value!r}ms" or "{value!r}s"?'
            )


# a stack file is a few kB; a generous cap still refuses a 500 MB file before reading it
MAX_STACK_FILE_BYTES = 4 * 1024**2


def _file_error(where: str, reason: str) -> SpecError:
    return SpecError(f"{where}: {reason}")


def _check_table_depth(data: Any, where: str) -> None:
    try:
        limits.check_depth(data, where.rstrip(": "))
    except limits.LimitError as exc:
        raise SpecError(str(exc)) from None
    chain, dev = 0, data.get("device") if isinstance(data, dict) else None
    while isinstance(dev, dict):  # a RAID whose members are RAIDs whose members are ...
        chain += 1
        dev = dev.get("member")
    if chain > MAX_DEVICE_NESTING:
        raise SpecError(
            f"{where}device: members nested {chain} levels deep; at most {MAX_DEVICE_NESTING} "
            "(a RAID of RAIDs of disks is 3)"
        )


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        if isinstance(v, float) and math.isinf(v):
            return '"inf"'
        return repr(v) if isinstance(v, float) and v != int(v) else str(int(v))
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {_toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(f"cannot write {v!r} as TOML")


def dump_toml(stack: Stack, workload: Workload | None = None) -> str:
    """The stack (and workload) as TOML that :func:`load_toml` reads back to equal specs."""
    d = stack.to_dict()
    if workload is not None:
        d["workload"] = workload.to_dict()
    lines = []
    for key in ("name", "description"):
        if key in d:
            lines.append(f"{key} = {_toml_value(d.pop(key))}")
    for section, table in d.items():
        lines.append(f"\n[{section}]")
        for k, v in table.items():
            lines.append(f"{k} = {_toml_value(v)}")
    return "\n".join(lines).lstrip("\n") + "\n"


# -- dotted overrides ----------------------------------------------------------------------


def parse_assignments(items: list[str] | tuple[str, ...]) -> dict[str, str]:
    """["hba.queue_depth=4", ...] -> {"hba.queue_depth": "4"}."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise SpecError(f"--set expects KEY=VALUE such as hba.queue_depth=4 (got {item!r})")
        out[key.strip()] = value.strip()
    return out


def apply_overrides(
    stack: Stack, workload: Workload | None, overrides: dict[str, Any]
) -> tuple[Stack, Workload | None]:
    """Apply dotted keys (``hba.queue_depth``, ``workload.numjobs``, ``device.units``) to copies.

    Values may be unit strings; everything is validated again, so a bad value or an unknown
    key raises :class:`SpecError` naming it.
    """
    if not overrides:
        return stack, workload
    sd = stack.to_dict()
    wd = workload.to_dict() if workload is not None else None
    for key, value in overrides.items():
        if not isinstance(key, str):
            raise SpecError(f"override keys must be strings (got {limits.shown(key)})")
        parts = key.split(".")
        if len(parts) > MAX_DEVICE_NESTING + 3:  # device.member.member....failures.x
            raise SpecError(
                f"unknown key {limits.shown(key)}: more than {MAX_DEVICE_NESTING + 3} dotted parts"
            )
        if parts[0] == "workload":
            if wd is None:
                wd = Workload().to_dict()
            target, rest = wd, parts[1:]
        else:
            target, rest = sd, parts
        if parts[0] not in set(_SECTIONS) | {"device", "workload"} or len(parts) < 2:
            raise SpecError(
                f"unknown key {key!r}; keys look like hba.queue_depth, multipath.paths, "
                "device.units or workload.numjobs"
            )
        _set_path(target, rest, value, key)
    new_stack = Stack.from_dict(copy.deepcopy(sd))
    new_wl = Workload.from_dict(wd) if wd is not None else None
    return new_stack, new_wl


def _set_path(table: dict, parts: list[str], value: Any, key: str) -> None:
    for p in parts[:-1]:
        nxt = table.get(p)
        if nxt is None:
            nxt = table[p] = {}
        if not isinstance(nxt, dict):
            raise SpecError(f"unknown key {key!r}: {p!r} is a value, not a table")
        table = nxt
    table[parts[-1]] = value


def replace_device(stack: Stack, device: Any) -> Stack:
    return replace(stack, device=device)

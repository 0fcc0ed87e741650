"""DiskSim drive descriptions (``DRIVE.parv`` / ``DRIVE.diskspecs``) -> an iosim HDD stack.

DiskSim's validation suite (``valid/`` in DiskSim 4.0) ships, beside each measured validation
trace, the drive description DIXtrac extracted: ``DRIVE.parv`` (the whole DiskSim
configuration) ``source``s ``DRIVE.diskspecs`` (the ``disksim_disk`` block: bus time, cache,
overheads, queue), whose ``Model = source DRIVE.model`` is the ``dm_disk`` block (surfaces,
cylinders, block count, the ``dm_mech_g1`` mechanics and the ``dm_layout_g1`` zones), whose
``Full seek curve`` names ``DRIVE.seek`` (the measured seek curve, ``distance, ms`` a line).
:func:`read_disksim_drive` reads either file and maps it onto :class:`HddDevice` exactly as
the hand-made preset ``hdd-atlas10k`` does (its comments are the reference):

======================================================  =======================================
DiskSim parameter (block)                               iosim
======================================================  =======================================
Rotation speed (in rpms) (dm_mech_g1)                   device.rpm
Number of data surfaces (dm_disk)                       device.heads
Block count (dm_disk) x 512 B                           device.capacity_bytes
Blocks per track, outermost / innermost zone            device.media_rate_od/id_Bps (x 512 B
(dm_layout_g1_zone)                                     per revolution); zoning continuous
(no zone list: Block count / cylinders / surfaces)      one zone of the mean track
Seek type = extracted + Full seek curve (.seek)         device.seek_curve (ms -> s)
Number of cylinders (dm_disk)                           device.seek_curve_cylinders
Single cylinder / Full strobe seek time (extracted:     device.track_to_track_s / full_stroke_s
the curve's first and last points, as DiskSim seeks)
(the seek curve's mean over random address pairs)       device.avg_seek_s (theory bounds only)
Seek type = linear | curve + Average seek time          the two-piece fitted curve
Seek type = hpl | hplplus10 (HPL seek equation values)  device.seek_curve, the equation tabulated
Seek type = constant (Constant seek time)               a flat device.seek_curve
Add. write settling delay                               device.write_settle_s
Head switch time                                        device.head_switch_s
Access time type = averageRotation                      device.rotation = "uniform"
Bulk sector transfer time (ms per 512-B block), or the  device.interface_Bps = 512 B / time
disk's bus's Read block transfer time when slower
Per-request overhead + Read miss over. (mean)           device.overhead_s
Read hit over. after read/write (mean)                  device.read_hit_overhead_s
Write hit over. after read/write (mean)                 device.write_cached_overhead_s
Max queue length                                        device.queue_depth, hba.queue_depth
Scheduling policy (disksim_ioqueue)                     device.scheduler (1 FCFS -> fifo,
                                                        others -> sptf, with a note)
Fast write level > 0, Maximum number of write segments  device.write_cache_entries, destage fifo
Maximum read-ahead (blks) x 512 B                       device.read_ahead_bytes
Read any free blocks (with caching)                     device.read_free_blocks
Buffer continuous read = 1 or 4 (with caching)          device.read_ahead_track_end
======================================================  =======================================

All overheads are multiplied by ``Time scale for overheads``. The host side of the ``.parv``
(iodriver, buses, controller) becomes no host overhead, a link of no latency and unbounded
bandwidth, except the block transfer time of the bus the disk hangs from (``topology``), which
DiskSim charges per block when it is slower than the disk's own; other non-zero bus or
controller times are reported, not modelled. Whatever the
description says that iosim does not model (slipped sectors and spares, the zones' measured
skews, write-miss overheads, several buffer segments, non-zero parameters iosim has no field
for) is returned as a list of notes (:func:`import_disksim_drive`) or issued as warnings
(:func:`read_disksim_drive`), never dropped silently.

Parameter meanings: DiskSim 4.0's reference manual and the module specifications of its
``diskmodel`` library (``mech_g1.modspec``: seek types, ``Full seek curve``, write settle, head
switch, rpm; ``disksim_ioqueue.h``: scheduling-policy numbers 1 FCFS ... 8 SPTF_OPT ...).

Grammar read (DiskSim's libparam): ``TYPE NAME { name = value, ... }`` blocks, values that
are numbers, words, ``TYPE { ... }`` blocks, ``[ ... ]`` lists or ``source FILE`` (the file's
block); ``source FILE`` at the top level; ``#`` comments; ``instantiate``/``topology`` lists
are skipped. ``source`` paths are relative to the file that names them. Errors name the file
and line (:class:`TraceFormatError`).
"""

from __future__ import annotations

import math
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..devices.hdd import hdd_geometry, hdd_seek_coeffs, hdd_seek_table_s
from ..spec import SpecError
from ..stack import Stack
from .errors import TraceFormatError

__all__ = ["DiskSimDrive", "import_disksim_drive", "read_disksim_drive", "disksim_drive_dict"]

BLOCK_BYTES = 512  # DiskSim's block
MAX_FILE_BYTES = 16 << 20
MAX_SOURCE_DEPTH = 16
MAX_NESTING = 64

# disksim_ioqueue.h: the request scheduling algorithms
_POLICIES = {1: "FCFS", 2: "ELEVATOR_LBN", 3: "CYCLE_LBN", 4: "SSTF_LBN", 5: "ELEVATOR_CYL",
             6: "CYCLE_CYL", 7: "SSTF_CYL", 8: "SPTF_OPT", 9: "SPCTF_OPT", 10: "SATF_OPT",
             11: "WPTF_OPT", 12: "WPCTF_OPT", 13: "WATF_OPT", 14: "ASPTF_OPT", 15: "ASPCTF_OPT",
             16: "ASATF_OPT", 17: "VSCAN_LBN", 18: "VSCAN_CYL", 19: "PRI_VSCAN_LBN",
             20: "PRI_ASPTF_OPT", 21: "PRI_ASPCTF_OPT"}

# disksim_disk parameters that are read below, or that iosim's HDD model does by construction
# (reads hit dirty write data, commands are answered from the buffer, sector-by-sector media
# transfer) or that only steer DiskSim's output
_DISK_USED = {
    "model", "per-request overhead time", "time scale for overheads",
    "bulk sector transfer time", "max queue length", "scheduler", "number of buffer segments",
    "maximum number of write segments", "segment size (in blks)", "enable caching in buffer",
    "maximum read-ahead (blks)", "fast write level", "read hit over. after read",
    "read hit over. after write", "read miss over. after read", "read miss over. after write",
    "write hit over. after read", "write hit over. after write", "write miss over. after read",
    "write miss over. after write", "allow read hits on write data", "print stats",
    "avg sectors per cylinder", "calc sector by sector", "immediate buffer read",
    "immediate buffer write", "read directly to buffer", "set watermark by reqsize",
}
_MECH_USED = {
    "access time type", "seek type", "single cylinder seek time", "full seek curve",
    "full strobe seek time", "average seek time", "add. write settling delay",
    "head switch time", "rotation speed (in rpms)", "percent error in rpms",
    "constant seek time", "hpl seek equation values", "first ten seek times",
}


# ---------------------------------------------------------------------------------------------
# the parameter grammar
# ---------------------------------------------------------------------------------------------


@dataclass
class Block:
    """``TYPE NAME { name = value, ... }``: parameters by normalised name."""

    type: str
    name: str
    path: Path
    line: int
    params: dict = field(default_factory=dict)  # norm name -> (shown name, value, path, line)

    def get(self, name: str):
        hit = self.params.get(_norm(name))
        return None if hit is None else hit[1]

    def where(self, name: str) -> tuple[Path, int]:
        hit = self.params.get(_norm(name))
        return (hit[2], hit[3]) if hit else (self.path, self.line)


def _norm(name: str) -> str:
    return " ".join(name.lower().split())


def _is_source(tok: str) -> bool:
    """``source FILE`` (or a bare ``source``, an error reported by the caller)."""
    return tok.lower() == "source" or tok.lower().startswith(("source ", "source\t"))


_TOKEN = re.compile(r"[{}\[\],=]|[^{}\[\],=\n]+")


def _tokens(text: str) -> list[tuple[str, int]]:
    out = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0]
        for m in _TOKEN.finditer(line):
            tok = m.group(0).strip()
            if tok:
                out.append((tok, lineno))
    return out


def _read_text(path: Path, ref: tuple[Path, int] | None, what: str) -> str:
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise TraceFormatError(path, None, f"{what} is {size:,} bytes; a DiskSim "
                                   f"description file is at most {MAX_FILE_BYTES:,}")
        data = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        if ref is None:
            raise TraceFormatError(path, None, f"no such {what}") from None
        raise TraceFormatError(ref[0], ref[1], f"{what} {path.name!r} not found (looked for "
                               f"{path})") from None
    except OSError as exc:
        raise TraceFormatError(path, None, f"cannot read {what}: {exc.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


class _Parser:
    def __init__(self, path: Path, depth: int, ref: tuple[Path, int] | None):
        if depth > MAX_SOURCE_DEPTH:
            raise TraceFormatError(ref[0] if ref else path, ref[1] if ref else None,
                                   f"'source' nested more than {MAX_SOURCE_DEPTH} files deep")
        self.path, self.depth = path, depth
        self.toks = _tokens(_read_text(path, ref, "source file" if ref else "drive description"))
        self.i = 0
        self.instantiated: list[str] = []  # "instantiate [ ... ] as NAME": the NAMEs
        self.instances: dict[str, str] = {}  # instance name -> the NAME it instantiates
        self.topology: list = []  # "topology TYPE NAME [ ... ]": (words, children) trees

    def fail(self, line: int | None, reason: str):
        raise TraceFormatError(self.path, line, reason)

    def peek(self) -> str | None:
        return self.toks[self.i][0] if self.i < len(self.toks) else None

    def take(self, what: str, opened: int | None = None) -> tuple[str, int]:
        if self.i >= len(self.toks):
            last = self.toks[-1][1] if self.toks else None
            where = f" (the block or list opened at line {opened} is not closed)" if opened \
                else ""
            self.fail(last, f"the file ends where {what} was expected{where}")
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def source(self, arg: str, line: int, instantiated: list[str] | None = None
               ) -> list[Block]:
        name = arg.strip()
        if not name:
            self.fail(line, "'source' needs a file name")
        target = Path(name) if Path(name).is_absolute() else self.path.parent / name
        sub = _Parser(target, self.depth + 1, (self.path, line))
        blocks = sub.top()
        if instantiated is not None:
            instantiated.extend(sub.instantiated)
            self.instances.update(sub.instances)
            self.topology.extend(sub.topology)
        return blocks

    # top level ---------------------------------------------------------------------------
    def top(self) -> list[Block]:
        blocks: list[Block] = []
        while self.i < len(self.toks):
            tok, line = self.take("a definition")
            if tok in "{}[],=":
                self.fail(line, f"unexpected {tok!r} at the top level (expected 'TYPE NAME {{', "
                          "'source FILE', 'instantiate' or 'topology')")
            if _is_source(tok):
                blocks.extend(self.source(tok[6:], line, self.instantiated))
            elif self.peek() == "{":
                self.i += 1
                words = tok.split(None, 1)
                blocks.append(self.block(words[0], words[1] if len(words) > 1 else "", line, 0))
            elif self.peek() == "[":
                self.i += 1
                items = self.list_(line, 0)
                nxt = self.peek()
                if tok.lower() == "instantiate" and nxt and nxt.lower().startswith("as "):
                    name = nxt[3:].strip()
                    self.instantiated.append(name)
                    self.instances.update({i: name for i in items if isinstance(i, str)})
                elif tok.lower().startswith("topology"):
                    self.topology.append((tok.split()[1:], items))
            # other words ("as NAME" after an instantiate list) are read above
        return blocks

    def block(self, type_: str, name: str, opened: int, depth: int) -> Block:
        if depth > MAX_NESTING:
            self.fail(opened, f"blocks nested more than {MAX_NESTING} deep")
        b = Block(type_, name, self.path, opened)
        while True:
            tok, line = self.take("a parameter name or '}'", opened)
            if tok == "}":
                return b
            if tok == ",":
                continue
            if tok in "{[]=":
                self.fail(line, f"expected a parameter name in {type_} {name} (got {tok!r})")
            eq, eq_line = self.take(f"'=' after {tok!r}", opened)
            if eq != "=":
                self.fail(eq_line, f"expected '=' after parameter {tok!r} (got {eq!r})")
            value = self.value(tok, eq_line, depth + 1, opened)
            b.params[_norm(tok)] = (tok, value, self.path, line)
            nxt, nline = self.take(f"',' or '}}' after parameter {tok!r}", opened)
            if nxt == "}":
                return b
            if nxt != ",":
                self.fail(nline, f"expected ',' or '}}' after parameter {tok!r} (got {nxt!r})")

    def value(self, name: str, line: int, depth: int, opened: int):
        tok, vline = self.take(f"a value for {name!r}", opened)
        if tok == "{":
            return self.block("", "", vline, depth)
        if tok == "[":
            return self.list_(vline, depth)
        if tok in "}],=":
            self.fail(vline, f"expected a value for parameter {name!r} (got {tok!r})")
        if _is_source(tok):
            found = self.source(tok[6:], vline)
            if len(found) != 1:
                self.fail(vline, f"{name}: the sourced file must define exactly one block "
                          f"(found {len(found)})")
            return found[0]
        if self.peek() == "{":
            self.i += 1
            words = tok.split(None, 1)
            return self.block(words[0], words[1] if len(words) > 1 else "", vline, depth)
        return tok

    def list_(self, opened: int, depth: int) -> list:
        if depth > MAX_NESTING:
            self.fail(opened, f"lists nested more than {MAX_NESTING} deep")
        items: list = []
        while True:
            tok, line = self.take("a list item or ']'", opened)
            if tok == "]":
                return items
            if tok == ",":
                continue
            if tok == "{":
                items.append(self.block("", "", line, depth + 1))
            elif tok == "[":
                items.append(self.list_(line, depth + 1))
            elif tok in "}=":
                self.fail(line, f"unexpected {tok!r} in the list opened at line {opened}")
            elif self.peek() == "{":
                self.i += 1
                words = tok.split(None, 1)
                items.append(self.block(words[0], words[1] if len(words) > 1 else "", line,
                                        depth + 1))
            elif self.peek() == "[":  # topology: "disksim_bus bus0 [ ... ]"
                self.i += 1
                items.append((tok, self.list_(line, depth + 1)))
            else:
                items.append(tok)


# ---------------------------------------------------------------------------------------------
# typed access
# ---------------------------------------------------------------------------------------------


def _integer(b: Block, name: str, default: float | None = None, *, minimum: float = 0.0) -> int:
    x = _number(b, name, default, minimum=minimum)
    if not x.is_integer():
        path, line = b.where(name)
        raise TraceFormatError(path, line, f"{name} must be a whole number (got {b.get(name)!r})")
    return int(x)


def _number(b: Block, name: str, default: float | None = None, *, minimum: float = 0.0) -> float:
    v = b.get(name)
    path, line = b.where(name)
    if v is None:
        if default is None:
            raise TraceFormatError(b.path, b.line, f"{b.type} {b.name}: parameter {name!r} is "
                                   "missing")
        return default
    if not isinstance(v, str):
        raise TraceFormatError(path, line, f"{name} must be a number (got a block or list)")
    try:
        x = float(v)
    except ValueError:
        raise TraceFormatError(path, line, f"{name} must be a number (got {v!r})") from None
    if not math.isfinite(x) or x < minimum:
        raise TraceFormatError(path, line, f"{name} must be a finite number >= {minimum:g} "
                               f"(got {v!r})")
    return x


def _word(b: Block, name: str, default: str | None = None) -> str:
    v = b.get(name)
    if v is None:
        if default is None:
            raise TraceFormatError(b.path, b.line, f"{b.type} {b.name}: parameter {name!r} is "
                                   "missing")
        return default
    if not isinstance(v, str):
        path, line = b.where(name)
        raise TraceFormatError(path, line, f"{name} must be a word (got a block or list)")
    return v


def _sub(b: Block, name: str, kind: str) -> Block:
    v = b.get(name)
    if not isinstance(v, Block):
        path, line = b.where(name)
        shown = "missing" if v is None else f"{v!r}, not a block"
        raise TraceFormatError(path, line, f"{b.type} {b.name}: {name!r} must be a {kind} "
                               f"block ({shown})")
    return v


def _unmodelled(b: Block, used: set[str]) -> list[str]:
    """Parameters of ``b`` iosim has no use for whose value is not zero (zero: feature off)."""
    out = []
    for key, (shown, value, _, _) in b.params.items():
        if key in used or not isinstance(value, str):
            continue
        try:
            if float(value) == 0.0:
                continue
        except ValueError:
            pass
        out.append(f"{shown} = {value}")
    return out


# ---------------------------------------------------------------------------------------------
# the mapping
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DiskSimDrive:
    """A DiskSim description read into iosim: the stack and what was assumed or left out."""

    stack: Stack
    notes: tuple[str, ...]
    source: str


def _find_disk(blocks: list[Block], instantiated: list[str], path: Path,
               notes: list[str]) -> Block:
    """The disk the configuration instantiates, else the only (or first) one defined."""
    disks = [b for b in blocks if b.type == "disksim_disk"]
    if not disks:
        kinds = sorted({b.type for b in blocks}) or ["none"]
        raise TraceFormatError(path, None, "no disksim_disk block (found: "
                               f"{', '.join(kinds)}); iosim reads DiskSim disk descriptions")
    used = [b for b in disks if b.name in instantiated] or disks
    if len(used) > 1:
        notes.append(f"{len(used)} disks described ({', '.join(b.name for b in used)}): iosim "
                     f"replays on the first, {used[0].name}")
    return used[0]


def _read_seek_file(mech: Block) -> tuple[list[tuple[int, float]], Path]:
    name = _word(mech, "Full seek curve")
    mpath, mline = mech.where("Full seek curve")
    path = Path(name) if Path(name).is_absolute() else mpath.parent / name
    text = _read_text(path, (mpath, mline), "seek file")
    points: list[tuple[int, float]] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line or line.lower().startswith("seek distances measured"):
            continue
        parts = [p for p in re.split(r"[,\s]+", line) if p]
        try:
            if len(parts) != 2:
                raise ValueError
            d, t = int(parts[0]), float(parts[1])
        except ValueError:
            raise TraceFormatError(path, lineno, "expected 'distance, time' (cylinders, ms) "
                                   f"(got {raw.strip()!r})") from None
        if d <= 0 or not (math.isfinite(t) and t >= 0) or (points and d <= points[-1][0]):
            raise TraceFormatError(path, lineno, "seek distances must increase from 1 and times "
                                   f"be >= 0 ms (got {raw.strip()!r})")
        points.append((d, t / 1e3))
    if not points:
        raise TraceFormatError(path, None, "the seek file holds no 'distance, time' points")
    return points, path


def _zone_blocks_per_track(layout: Block, heads: int, ncyl: int, blocks: int,
                           notes: list[str]) -> tuple[float, float]:
    """(outermost, innermost) blocks per track: the dm_layout_g1 zone list, else one zone of
    the mean track (block count / tracks) for a layout iosim does not read."""
    zones = layout.get("Zones")
    if not isinstance(zones, list) or not zones or not all(isinstance(z, Block) for z in zones):
        mean = blocks / (ncyl * heads)
        notes.append(f"layout {layout.type or 'block'} has no zone list iosim reads: one zone "
                     f"of the mean track, {mean:.1f} blocks (Block count / cylinders / "
                     "surfaces)")
        return mean, mean
    zones = sorted(zones, key=lambda z: _number(z, "First cylinder number"))
    od = _integer(zones[0], "Blocks per track", minimum=1)
    id_ = _integer(zones[-1], "Blocks per track", minimum=1)
    if id_ > od:
        path, line = zones[-1].where("Blocks per track")
        raise TraceFormatError(path, line, "the innermost zone holds more blocks per track "
                               f"({id_:g}) than the outermost ({od:g}); iosim zones outward")
    notes.append(f"zones: {len(zones)} in the description ({od:g} to {id_:g} blocks per "
                 "track); iosim zones continuously between the outermost and innermost rates "
                 "and ignores slipped and spare sectors")
    notes.append("track and cylinder skews follow from the head switch and one-cylinder seek, "
                 "not from the zones' measured skews")
    return od, id_


def _hpl_curve(mech: Block, kind: str, ncyl: int) -> list[list[float]]:
    """The seek equation of Ruemmler and Wilkes (DiskSim's ``hpl``: V1 the boundary in
    cylinders, V2 + V3 sqrt(d) below it, V4 + V5 d from it on, V6 the single-cylinder time or
    -1), with ``hplplus10``'s ``First ten seek times`` for 1..10 cylinders, tabulated densely
    (every distance up to 64 and the boundary, 400 log-spaced points beyond).

    DiskSim 4.0's plain ``hpl`` function (``dm_mech_g1_seek_hpl``) compares the distance with
    ``hpseek[0]``, a slot its loader never sets (V1 goes to ``hpseek_v1``, which only
    ``hplplus10`` reads), so DiskSim itself takes the linear part for every distance; iosim
    follows the published equation for both types."""
    v = mech.get("HPL seek equation values")
    path, line = mech.where("HPL seek equation values")
    try:
        v1, v2, v3, v4, v5, v6 = (float(x) for x in v)  # type: ignore[union-attr]
    except (TypeError, ValueError):
        raise TraceFormatError(path, line, f"Seek type = {kind} needs 'HPL seek equation "
                               "values = [ V1, V2, V3, V4, V5, V6 ]' (six numbers)") from None
    first: list[float] = []
    if kind == "hplplus10":
        raw = mech.get("First ten seek times")
        fpath, fline = mech.where("First ten seek times")
        try:
            first = [float(x) for x in raw]  # type: ignore[union-attr]
        except (TypeError, ValueError):
            first = []
        if len(first) != 10:
            raise TraceFormatError(fpath, fline, "Seek type = hplplus10 needs 'First ten seek "
                                   "times = [ ten numbers ]' (ms)")
    dists = sorted({*range(1, min(64, ncyl)), *(d for d in (int(v1) - 1, int(v1))
                                                 if 1 <= d < ncyl),
                    *(int(x) for x in np.geomspace(64, max(ncyl - 1, 64), 400))})
    curve = []
    for d in dists:
        if d <= len(first):
            t = first[d - 1]
        elif d == 1 and v6 >= 0:
            t = v6
        else:
            t = v2 + v3 * math.sqrt(d) if d < v1 else v4 + v5 * d
        if not (math.isfinite(t) and t >= 0):
            raise TraceFormatError(path, line, f"the seek equation gives {t:g} ms at {d} "
                                   "cylinders")
        curve.append([d, t / 1e3])
    return curve


def _table_mean_s(curve, curve_cyl: int, id_od_ratio: float) -> float:
    """The seek curve's mean over uniformly random address pairs (as HddDevice.mean_seek_s)."""
    x = (np.arange(600) + 0.5) / 600
    cyl, _ = hdd_geometry(x, id_od_ratio)
    d = np.array([p[0] for p in curve]) / curve_cyl
    t = np.array([p[1] for p in curve])
    return float(hdd_seek_table_s(np.abs(cyl[:, None] - cyl[None, :]), d, t).mean())


def _seek(mech: Block, ncyl: int, id_od: float, notes: list[str]) -> dict:
    kind = _word(mech, "Seek type").lower()
    t2t = _number(mech, "Single cylinder seek time", -1.0, minimum=-1.0)
    full = _number(mech, "Full strobe seek time", -1.0, minimum=-1.0)
    out: dict = {}
    if kind == "extracted":
        curve, spath = _read_seek_file(mech)
        # DiskSim's extracted seek (dm_mech_g1_seek_extracted) reads only the curve; the
        # model's single-cylinder and full-strobe times serve the other seek types, and some
        # valid/ models (the HP C3323A's 0.2 / 2.3 ms) leave placeholders there
        for name, given, ends in (("Single cylinder seek time", t2t, curve[0]),
                                  ("Full strobe seek time", full, curve[-1])):
            if given >= 0 and not math.isclose(given / 1e3, ends[1], rel_tol=0.05, abs_tol=1e-5):
                notes.append(f"{name} = {given:g} ms is not the {ends[1] * 1e3:g} ms that "
                             f"{spath.name} gives at {ends[0]} cylinders: iosim, like DiskSim's "
                             "extracted seek, takes the curve")
        t2t, full = curve[0][1], curve[-1][1]
        avg = round(_table_mean_s(curve, ncyl, id_od), 6)
        out.update(seek_curve=[list(p) for p in curve], seek_curve_cylinders=ncyl)
        notes.append(f"seek: the measured curve of {spath.name} ({len(curve)} points, linear "
                     f"between them); its mean over random address pairs, {avg * 1e3:.3f} ms, "
                     "is the average seek")
    elif kind in ("linear", "curve"):
        for n, v in (("Single cylinder seek time", t2t), ("Full strobe seek time", full)):
            if v < 0:
                raise TraceFormatError(mech.path, mech.line, f"Seek type = {kind} needs {n!r}")
        t2t, full = t2t / 1e3, full / 1e3
        avg = _number(mech, "Average seek time") / 1e3
        notes.append(f"seek type {kind}: iosim's two-piece curve (sqrt, then linear) through "
                     "the single-cylinder, average and full-strobe times")
    elif kind in ("hpl", "hplplus10"):
        curve = _hpl_curve(mech, kind, ncyl)
        t2t, full = curve[0][1], curve[-1][1]
        avg = round(_table_mean_s(curve, ncyl, id_od), 6)
        out.update(seek_curve=curve, seek_curve_cylinders=ncyl)
        notes.append(f"seek type {kind}: the seek equation tabulated at {len(curve)} distances "
                     "(linear between them)")
    elif kind == "constant":
        c = _number(mech, "Constant seek time") / 1e3
        t2t = full = avg = c
        out.update(seek_curve=[[1, c], [max(ncyl - 1, 2), c]], seek_curve_cylinders=ncyl)
    else:
        path, line = mech.where("Seek type")
        raise TraceFormatError(path, line, f"Seek type = {kind} is not read by iosim (it reads "
                               "extracted, linear, curve, hpl, hplplus10 and constant)")
    avg = min(max(avg, t2t), full)
    if not _seek_feasible(t2t, avg, full, id_od):
        # a table drive's mean that iosim's fitted curve cannot reach: it only serves theory
        # bounds (the simulation reads the table), so take the nearest average it can reach
        grid = [t2t + (full - t2t) * k / 200 for k in range(201)]
        ok = [g for g in grid if _seek_feasible(t2t, g, full, id_od)]
        if not ok:
            raise TraceFormatError(mech.path, mech.line, "no seek curve grows from the single-"
                                   f"cylinder time {t2t * 1e3:g} ms to the full strobe "
                                   f"{full * 1e3:g} ms")
        near = min(ok, key=lambda g: abs(g - avg))
        notes.append(f"average seek {avg * 1e3:.3f} ms moved to {near * 1e3:.3f} ms for iosim's "
                     "fitted curve (used by theory bounds only)")
        avg = near
    out.update(track_to_track_s=t2t, full_stroke_s=full, avg_seek_s=avg)
    return out


def _seek_feasible(t2t: float, avg: float, full: float, id_od: float) -> bool:
    try:
        hdd_seek_coeffs(t2t, avg, full, 0.15, id_od)
    except ValueError:
        return False
    return True


def _mechanics(model: Block, notes: list[str]) -> dict:
    mech = _sub(model, "Mechanical Model", "dm_mech_g1")
    layout = _sub(model, "Layout Model", "dm_layout_g1")
    rpm = _number(mech, "Rotation speed (in rpms)")
    if rpm <= 0:
        path, line = mech.where("Rotation speed (in rpms)")
        raise TraceFormatError(path, line, "Rotation speed (in rpms) must be > 0")
    heads = _integer(model, "Number of data surfaces", minimum=1)
    ncyl = _integer(model, "Number of cylinders", minimum=1)
    blocks = _integer(model, "Block count", minimum=1)
    od, id_ = _zone_blocks_per_track(layout, heads, ncyl, blocks, notes)
    rev_hz = rpm / 60.0
    access = _word(mech, "Access time type", "trackSwitchPlusRotation")
    rotation = "exact"
    if access == "averageRotation":
        rotation = "uniform"
        notes.append("Access time type = averageRotation: rotation 'uniform' (a random wait, "
                     "not DiskSim's fixed half turn)")
    elif access != "trackSwitchPlusRotation":
        path, line = mech.where("Access time type")
        raise TraceFormatError(path, line, f"Access time type = {access} is not modelled (iosim "
                               "reads trackSwitchPlusRotation and averageRotation)")
    if _number(mech, "Percent error in rpms", 0.0) > 0:
        notes.append("Percent error in rpms is not modelled: the spindle turns at exactly "
                     f"{rpm:g} rpm")
    dev = {
        "rpm": rpm, "heads": heads, "capacity_bytes": blocks * BLOCK_BYTES,
        "sector_bytes": BLOCK_BYTES,
        "media_rate_od_Bps": od * BLOCK_BYTES * rev_hz,
        "media_rate_id_Bps": id_ * BLOCK_BYTES * rev_hz,
        "write_settle_s": _number(mech, "Add. write settling delay", 0.0) / 1e3,
        "head_switch_s": _number(mech, "Head switch time", 0.0) / 1e3,
        "rotation": rotation,
    }
    dev.update(_seek(mech, ncyl, id_ / od, notes))
    rest = _unmodelled(mech, _MECH_USED)
    if rest:
        notes.append(f"not modelled ({mech.type}): {', '.join(rest)}")
    return dev


def _scheduler(disk: Block, notes: list[str]) -> str:
    q = disk.get("Scheduler")
    if not isinstance(q, Block):
        return "fifo"
    policy = _integer(q, "Scheduling policy", 1.0, minimum=1)
    name = _POLICIES.get(policy)
    if name is None:
        path, line = q.where("Scheduling policy")
        raise TraceFormatError(path, line, f"Scheduling policy must be 1..{max(_POLICIES)} "
                               f"(got {policy})")
    if policy == 1:
        return "fifo"
    notes.append(f"Scheduling policy = {policy} ({name}): iosim uses sptf (shortest "
                 "positioning time first)")
    return "sptf"


def _cache(disk: Block, scale: float, notes: list[str]) -> dict:
    caching = _number(disk, "Enable caching in buffer", 1.0) != 0
    fast = _integer(disk, "Fast write level", 0.0)
    wsegs = _integer(disk, "Maximum number of write segments", 0.0)
    segs = _integer(disk, "Number of buffer segments", 1.0)
    seg_blocks = _number(disk, "Segment size (in blks)", 0.0)
    ra_blocks = _number(disk, "Maximum read-ahead (blks)", 0.0)
    entries = (wsegs or segs) if (caching and fast > 0) else 0
    if fast == 1 and entries:
        notes.append("Fast write level = 1 (DiskSim: immediate report only for some writes): "
                     "iosim caches every write")
    wmiss = [_number(disk, f"Write miss over. after {w}", 0.0) for w in ("read", "write")]
    if entries and any(wmiss):
        notes.append("write-miss overheads "
                     f"({' / '.join(f'{w * scale:g}' for w in wmiss)} ms) are not modelled: a "
                     "write that finds the cache full pays no overhead")
    if caching and segs > 1:
        notes.append(f"buffer: {segs} segments of {seg_blocks:g} blocks in the description; "
                     "iosim keeps one read-ahead segment")
    free = caching and _number(disk, "Read any free blocks", 0.0) != 0
    # DiskSim's continuous-read schemes: 1 to the track's end, 4 the DEC scheme (to the end of
    # the track after the request, one more when the request began on an earlier track)
    cont = _integer(disk, "Buffer continuous read", 0.0)
    track_end = caching and cont in (1, 4)
    if track_end and _number(disk, "Read-ahead on idle hit", 0.0) != 0:
        notes.append("Read-ahead on idle hit = 1: iosim does not read further on a hit when "
                     "it reads ahead to the track's end")
    return {"write_cache_entries": entries, "destage": "fifo",
            "read_ahead_bytes": ra_blocks * BLOCK_BYTES if caching else 0.0,
            "read_free_blocks": bool(free), "read_ahead_track_end": bool(track_end)}


def _disk_bus(parser: _Parser, blocks: list[Block], disk: Block) -> Block | None:
    """The ``disksim_bus`` block of the bus the disk hangs from in the topology (None when the
    topology does not place the disk under a bus)."""
    kinds = {(b.type, b.name): b for b in blocks}

    def walk(items, bus):
        for item in items:
            words, children = (item if isinstance(item, tuple) else (item, []))
            words = words.split() if isinstance(words, str) else list(words)
            if len(words) < 2:
                continue
            type_, inst = words[0], words[1]
            name = parser.instances.get(inst, inst)
            if type_ == "disksim_disk" and name == disk.name:
                return bus
            found = walk(children, kinds.get((type_, name)) if type_ == "disksim_bus" else bus)
            if found is not None:
                return found
        return None

    return walk(parser.topology, None)


def _block_time_ms(disk: Block, bus: Block | None, notes: list[str]) -> float:
    """The time a block takes to move to or from the host: DiskSim's disk_get_blktranstime,
    the slower of the disk's ``Bulk sector transfer time`` and its bus's block transfer time
    (read, or write for writes; iosim has one interface rate, so a write time that differs is
    noted)."""
    bulk = _number(disk, "Bulk sector transfer time", 0.0)
    if bus is None:
        return bulk
    rd = _number(bus, "Read block transfer time", 0.0)
    wr = _number(bus, "Write block transfer time", 0.0)
    if max(rd, wr) <= bulk:
        return bulk
    notes.append(f"interface: {bus.type} {bus.name} moves a block in {rd:g} ms (reads) / {wr:g} "
                 f"ms (writes), slower than the disk's Bulk sector transfer time ({bulk:g} ms): "
                 f"as in DiskSim the slower time sets the transfer; iosim uses {max(rd, bulk):g} "
                 "ms for both directions" + (" (writes differ)" if rd != wr else ""))
    return max(rd, bulk)


def _controller(disk: Block, bus: Block | None, notes: list[str]) -> dict:
    scale = _number(disk, "Time scale for overheads", 1.0)

    def ms(name: str) -> float:
        return _number(disk, name, 0.0) * scale / 1e3

    block_ms = _block_time_ms(disk, bus, notes)
    dev = {
        "interface_Bps": BLOCK_BYTES / (block_ms / 1e3) if block_ms > 0 else math.inf,
        "overhead_s": ms("Per-request overhead time")
        + (ms("Read miss over. after read") + ms("Read miss over. after write")) / 2,
        "read_hit_overhead_s": (ms("Read hit over. after read")
                                + ms("Read hit over. after write")) / 2,
        "write_cached_overhead_s": (ms("Write hit over. after read")
                                    + ms("Write hit over. after write")) / 2,
        "queue_depth": max(1, _integer(disk, "Max queue length", 1.0)),
        "scheduler": _scheduler(disk, notes),
    }
    dev.update(_cache(disk, scale, notes))
    rest = _unmodelled(disk, _DISK_USED)
    if rest:
        notes.append(f"not modelled ({disk.type} {disk.name}): {', '.join(rest)}")
    return dev


def _host_notes(blocks: list[Block], bus: Block | None) -> list[str]:
    notes = []
    for b in blocks:
        keys = {"disksim_bus": ("Arbitration time",) if b is bus else (
            "Arbitration time", "Read block transfer time", "Write block transfer time"),
                "disksim_ctlr": ("Bulk sector transfer time",),
                "disksim_iodriver": ("Constant access time",)}.get(b.type, ())
        for k in keys:
            if _number(b, k, 0.0) > 0:
                notes.append(f"{b.type} {b.name}: {k} = {b.get(k)} is not modelled (iosim's "
                             "link has no latency and no bandwidth limit)")
    return notes


# HddDevice field -> the DiskSim parameters it came from (for error messages)
_FIELD_SOURCES = {
    "capacity_bytes": "Block count", "rpm": "Rotation speed (in rpms)",
    "heads": "Number of data surfaces", "media_rate_od_Bps": "Blocks per track",
    "media_rate_id_Bps": "Blocks per track", "avg_seek_s": "the seek curve",
    "full_stroke_s": "Full strobe seek time", "track_to_track_s": "Single cylinder seek time",
    "seek_curve": "the seek curve", "interface_Bps": "Bulk sector transfer time",
}


def disksim_drive_dict(path: str | Path) -> tuple[dict, list[str]]:
    """The stack as a TOML-like table (preset form) and the notes; see the module docs."""
    path = Path(path)
    parser = _Parser(path, 0, None)
    blocks = parser.top()
    notes: list[str] = []
    disk = _find_disk(blocks, parser.instantiated, path, notes)
    model = _sub(disk, "Model", "dm_disk")
    bus = _disk_bus(parser, blocks, disk)
    device = {"kind": "hdd", **_mechanics(model, notes), **_controller(disk, bus, notes)}
    notes.extend(_host_notes(blocks, bus))
    name = f"disksim-{path.stem}"
    table = {
        "name": name,
        "description": f"{disk.name or path.stem} read from DiskSim's description {path.name}",
        "host": {"overhead": "0"},
        "block": {"nr_requests": 256, "max_sectors_bytes": 524288},
        "hba": {"queue_depth": device["queue_depth"]},
        "multipath": {"paths": 1, "policy": "round-robin"},
        "link": {"latency_s": 0.0, "bandwidth_Bps": math.inf},
        "device": device,
    }
    return table, notes


def import_disksim_drive(path: str | Path) -> DiskSimDrive:
    """Read ``DRIVE.parv`` or ``DRIVE.diskspecs``: the stack and the notes on what iosim
    assumed or does not model. Raises :class:`TraceFormatError` (file, line, parameter)."""
    table, notes = disksim_drive_dict(path)
    try:
        stack = Stack.from_dict(table)
    except SpecError as exc:
        named = [v for k, v in _FIELD_SOURCES.items() if f"device.{k}" in str(exc)]
        whence = f"; it comes from {named[0]}" if named else ""
        raise TraceFormatError(path, None, f"the description gives an impossible drive: {exc}"
                               f"{whence}") from None
    return DiskSimDrive(stack, tuple(notes), str(path))


def read_disksim_drive(path: str | Path) -> Stack:
    """The HDD stack a DiskSim drive description describes; each note is a warning."""
    drive = import_disksim_drive(path)
    for note in drive.notes:
        warnings.warn(f"{path}: {note}", UserWarning, stacklevel=2)
    return drive.stack

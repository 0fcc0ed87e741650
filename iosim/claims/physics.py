"""The claim against physics: the sourced floors and ceilings of ``iosim/catalogue.toml``.

:func:`check_physics` derives what a claim implies (time per I/O by Little's law, byte rate,
NAND page reads in flight, PCIe lanes, cores) and compares it with every medium's fastest
published floor, the interface's payload rate and queue, and the transport's added latency.
A floor is the *fastest* published figure (the catalogue's ``low``), so "infeasible" means
infeasible even on the best part published.  See ``docs/claims.md``.
"""

from __future__ import annotations

import math
import numbers
import re
import textwrap
from dataclasses import dataclass
from typing import Any

from .. import catalogue  # data only; catalogue imports nothing from iosim
from . import TOLERANCE, _num, _positive, _prefixed, fmt_bytes, fmt_iops, fmt_rate, fmt_time

#: A claim that needs more outstanding I/Os than this holds only at a depth few run: it is
#: AHCI's / NCQ's 32 commands, the deepest queue a SATA device takes.
DEEP_QUEUE = 32

#: A claim that needs more than this share of a link's payload rate is bound by the link.
LINK_BOUND_FRACTION = 0.8


@dataclass(frozen=True)
class MediumVerdict:
    """One medium against the claim.  Times in seconds; ``None`` where nothing is known."""

    medium: str
    label: str
    floor_s: tuple[float, float]  # per-I/O floor (mean), fastest and slowest published
    feasible: bool
    margin: float | None  # floor / allowed time per I/O (> 1: infeasible by that factor)
    min_queue_depth: float  # I/Os that must be in flight at the fastest floor
    reads_in_flight: float | None = None  # NAND page reads busy at once (dies x planes)
    dies_programming: float | None = None  # NAND dies programming at once, sustained writes
    dies: tuple[float, float] | None = None  # dies in the stated capacity
    every_die_busy: bool = False
    spindle_iops: float | None = None  # HDD: most IOPS one spindle gives (deep queue, NCQ)
    binding: str = ""  # one sentence: why infeasible (empty when feasible)
    reason: str = ""  # the physical fact behind ``binding`` (without the claim's need)
    factor: float | None = None  # by how much the binding check is missed (> 1)
    fixes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "medium": self.medium,
            "label": self.label,
            "floor_s": list(self.floor_s),
            "feasible": self.feasible,
            "margin": self.margin,
            "min_queue_depth": self.min_queue_depth,
            "reads_in_flight": self.reads_in_flight,
            "dies_programming": self.dies_programming,
            "dies": None if self.dies is None else list(self.dies),
            "every_die_busy": self.every_die_busy,
            "spindle_iops": self.spindle_iops,
            "binding": self.binding,
            "fixes": list(self.fixes),
        }


@dataclass(frozen=True)
class LinkVerdict:
    interface: str
    label: str
    payload_Bps: tuple[float, float]  # after encoding; low/high protocol efficiency
    needed_Bps: float
    feasible: bool
    link_bound: bool
    queue_limit: float | None
    queue_ok: bool
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "interface": self.interface,
            "label": self.label,
            "payload_Bps": list(self.payload_Bps),
            "needed_Bps": None if math.isnan(self.needed_Bps) else self.needed_Bps,
            "feasible": self.feasible,
            "link_bound": self.link_bound,
            "queue_limit": self.queue_limit,
            "queue_ok": self.queue_ok,
            "text": self.text,
        }


@dataclass(frozen=True)
class PhysicsCheck:
    """Outcome of :func:`check_physics`."""

    claimed_iops: float
    inputs: tuple[tuple[str, Any], ...]
    per_io_s: float | None  # time per I/O the claim allows (Little's law, or its latency)
    per_io_why: str
    bytes_per_s: float | None
    lanes_needed: dict[str, int]  # PCIe generation -> lanes at the best protocol efficiency
    media: tuple[MediumVerdict, ...]
    link: LinkVerdict | None
    transport: dict[str, Any] | None
    host_cores: float | None  # cores at the best published io_uring rate
    verdict: str  # INFEASIBLE | FEASIBLE | NOT CONTRADICTED
    summary: str
    deep_queue: bool  # needs more than DEEP_QUEUE outstanding I/Os
    sources: tuple[str, ...]

    @property
    def feasible(self) -> bool:
        return self.verdict != "INFEASIBLE"

    @property
    def infeasible_media(self) -> tuple[str, ...]:
        return tuple(m.medium for m in self.media if not m.feasible)

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "feasible": self.feasible,
            "summary": self.summary,
            "per_io_s": self.per_io_s,
            "bytes_per_s": self.bytes_per_s,
            "lanes_needed": dict(self.lanes_needed),
            "media": [m.to_dict() for m in self.media],
            "infeasible_media": list(self.infeasible_media),
            "link": None if self.link is None else self.link.to_dict(),
            "transport": self.transport,
            "host_cores": self.host_cores,
            "deep_queue": self.deep_queue,
            "sources": list(self.sources),
        }

    def to_text(self) -> str:
        return _physics_text(self)

    def __str__(self) -> str:
        return self.to_text()


def fmt_us_ms(s: float) -> str:
    """Seconds in µs below 1 ms, in ms from 1 ms to 1 s: 4e-05 -> '40 µs', 0.0116 -> '11.6 ms'."""
    if abs(s) < 1e-3:
        return f"{s * 1e6:.3g} µs"
    if abs(s) < 1:
        return f"{s * 1e3:.3g} ms"
    return f"{s:.3g} s"


def _range_text(lo: float, hi: float, fmt=None) -> str:
    """'40-106 µs': both ends in the unit of the low end (µs/ms for times by default)."""
    fmt = fmt or fmt_us_ms
    if math.isclose(lo, hi, rel_tol=1e-9):
        return fmt(lo)
    a = fmt(lo)
    unit = a.split(" ")[-1]
    factor = {"µs": 1e-6, "ms": 1e-3, "s": 1.0}.get(unit)
    if fmt is fmt_us_ms and factor is not None:
        return f"{lo / factor:.3g}-{hi / factor:.3g} {unit}"
    b = fmt(hi)
    return f"{a.rsplit(' ', 1)[0]}-{b}" if b.split(" ")[-1] == unit else f"{a}-{b}"


def _ratio(x: float) -> str:
    return f"{x:,.0f}x" if x >= 100 else f"{x:.2g}x"


def _qd_needed(x: float) -> int:
    return max(1, math.ceil(x * (1 - TOLERANCE)))


# --------------------------------------------------------------------------- per medium


def _medium_floor(cat, med, read_fraction: float) -> tuple[tuple[float, float], str, list[str]]:
    """(floor low/high of the media part, what it is, source figure names)."""
    if med.family == "hdd":
        seek = cat.figure(med.seek)
        half = 30.0 / med.rpm
        lo, hi = seek.low + half, seek.upper + half
        what = (
            f"{med.label}: average seek {_range_text(*seek.range)} {cat.cite(seek)} "
            f"+ half a turn {fmt_us_ms(half)} (60 s / {med.rpm:,.0f} rpm / 2)"
        )
        return (read_fraction * lo, read_fraction * hi), what, [med.seek]
    fig = cat.figure(med.read)
    kind = "page read" if med.family == "nand" else "read (device level)"
    what = f"{med.label} {kind} alone is {_range_text(*fig.range)} {cat.cite(fig)}"
    return (read_fraction * fig.low, read_fraction * fig.upper), what, [med.read]


def _nand_parallelism(cat, med, iops, read_fraction, block_bytes, capacity_bytes):
    """(reads in flight, dies range or None, every die busy, infeasible text or '')."""
    page = cat.figure("nand_page_bytes").low
    pages = max(1, math.ceil((block_bytes or page) / page))
    t_read = cat.figure(med.read).low
    in_flight = iops * read_fraction * t_read * pages
    if capacity_bytes is None or med.die_bits is None:
        return in_flight, None, False, ""
    bits = cat.figure(med.die_bits)
    dies = (capacity_bytes * 8 / bits.upper, capacity_bytes * 8 / bits.low)
    planes = cat.figure("nand_planes_per_die").upper
    if in_flight > dies[1] * planes * (1 + TOLERANCE):
        text = (
            f"needs {in_flight:.3g} page reads in flight; {fmt_bytes(capacity_bytes)} of "
            f"{med.label} is {dies[0]:.3g}-{dies[1]:.3g} dies {cat.cite(bits)} of at most "
            f"{planes:g} planes: infeasible by {_ratio(in_flight / (dies[1] * planes))}"
        )
        return in_flight, dies, True, text
    return in_flight, dies, in_flight > dies[0] * (1 - 1e-9), ""


def _check_medium(cat, med, claim, allowed, allowed_why, extra_floor, faster):
    iops, r = claim["iops"], claim["read_fraction"]
    (m_lo, m_hi), what, _ = _medium_floor(cat, med, r)
    lo, hi = m_lo + extra_floor[0], m_hi + extra_floor[1]
    min_qd = iops * lo
    margin = None if allowed is None else lo / allowed
    feasible, binding, reason, factor, fixes = True, "", "", None, []
    if margin is not None and margin > 1 + TOLERANCE:
        feasible, factor = False, margin
        reason = f"{what}: infeasible by {_ratio(margin)}"
        if _ratio(hi / allowed) != _ratio(margin):
            reason += f" ({_ratio(hi / allowed)} at the slowest)"
        binding = f"needs {fmt_us_ms(allowed)} per I/O {allowed_why}; {reason}"
        fixes.append(f"QD >= {_qd_needed(min_qd):,} (at the fastest {med.label} floor)")
    in_flight = dies = programming = None
    every = False
    spindle = None
    if med.family == "nand":
        in_flight, dies, every, text = _nand_parallelism(
            cat, med, iops, r, claim["block_bytes"], claim["capacity_bytes"]
        )
        if text and feasible:
            feasible, binding, reason = False, text, text
            factor = in_flight / (dies[1] * cat.figure("nand_planes_per_die").upper)
        if text:
            fixes.append("a larger capacity (more dies)")
        if r < 1 and med.die_program and claim["block_bytes"]:
            rate = cat.figure(med.die_program).upper  # fastest die: fewest dies needed
            programming = iops * (1 - r) * claim["block_bytes"] / rate
    if med.family == "hdd":
        gain = cat.figure("hdd_ncq_gain").upper
        qd = claim["queue_depth"]
        positioning = cat.figure(med.seek).low + 30.0 / med.rpm  # reads and writes alike
        spindle = (1.0 if qd is not None and qd <= 1 else gain) / positioning
        if iops > spindle * (1 + TOLERANCE):
            need = iops / spindle
            if feasible:
                feasible, factor = False, need
                binding = reason = (
                    f"one {med.label} spindle gives at most {fmt_iops(spindle)} "
                    f"({what}; deep-queue reordering gains at most "
                    f"{gain:g}x {cat.cite('hdd_ncq_gain')}): infeasible by {_ratio(need)}"
                )
            fixes.append(f"{math.ceil(need):,} spindles")
    if not feasible and faster:
        fixes.append("a faster medium: " + ", ".join(faster))
    return MediumVerdict(
        medium=med.key,
        label=med.label,
        floor_s=(lo, hi),
        feasible=feasible,
        margin=margin,
        min_queue_depth=min_qd,
        reads_in_flight=in_flight,
        dies_programming=programming,
        dies=dies,
        every_die_busy=every,
        spindle_iops=spindle,
        binding=binding,
        reason=reason,
        factor=factor,
        fixes=tuple(fixes),
    )


# --------------------------------------------------------------------------- link, transport


def _check_link(cat, iface, needed, required_qd, qd, used):
    payload = catalogue.link_payload_Bps(iface, cat)
    used.add(iface.lane)
    if iface.efficiency:
        used.add(iface.efficiency)
    feasible = needed is None or needed <= payload[1] * (1 + TOLERANCE)
    bound = needed is not None and needed > LINK_BOUND_FRACTION * payload[0]
    words = [f"{iface.label} carries {_range_text(*payload, fmt_rate)} of payload"]
    words[-1] += " " + cat.cite(cat.figure(iface.lane))
    if needed is not None:
        raw = iface.lanes * cat.figure(iface.lane).low
        words.append(
            f"the claim moves {fmt_rate(needed)}, {100 * needed / raw:.3g} % of the line rate"
        )
        if iface.efficiency:
            eff = cat.figure(iface.efficiency)
            words[-1] += (
                f" after encoding (published protocol efficiency "
                f"{100 * eff.low:.0f}-{100 * eff.upper:.0f} % {cat.cite(eff)})"
            )
        if not feasible:
            words.append(f"infeasible by {_ratio(needed / payload[1])}")
    limit, queue_ok = None, True
    if iface.queue is not None:
        limit = cat.figure(iface.queue).upper
        used.add(iface.queue)
        hard = iface.key == "sata"
        want = qd if qd is not None else required_qd
        if hard and want is not None and want > limit * (1 + TOLERANCE):
            queue_ok = False
            words.append(
                f"needs {want:,.0f} I/Os in flight but AHCI/NCQ admits {limit:g} "
                f"{cat.cite(iface.queue)}: infeasible by {_ratio(want / limit)}"
            )
    return LinkVerdict(
        interface=iface.key,
        label=iface.label,
        payload_Bps=payload,
        needed_Bps=needed if needed is not None else float("nan"),
        feasible=feasible,
        link_bound=bound,
        queue_limit=limit,
        queue_ok=queue_ok,
        text="; ".join(words),
    )


def _validate_physics_inputs(cat, medium, transport, read_fraction, capacity_bytes):
    if medium is not None and medium not in cat.media:
        raise ValueError(f"medium must be one of {', '.join(cat.media)} (got {medium!r})")
    if transport is not None and transport not in cat.transports:
        raise ValueError(
            f"transport must be one of {', '.join(cat.transports)} (got {transport!r})"
        )
    if isinstance(read_fraction, bool) or not isinstance(read_fraction, numbers.Real):
        raise ValueError(f"read_fraction must be a number in [0, 1] (got {read_fraction!r})")
    if not 0 <= read_fraction <= 1:
        raise ValueError(f"read_fraction must be in [0, 1] (got {read_fraction!r})")
    return _positive("capacity_bytes", capacity_bytes)


def check_physics(
    *,
    iops: float | None = None,
    block_bytes: float | None = None,
    queue_depth: float | None = None,
    latency_s: float | None = None,
    bandwidth_Bps: float | None = None,
    read_fraction: float = 1.0,
    medium: str | None = None,
    interface: str | None = None,
    transport: str | None = None,
    capacity_bytes: float | None = None,
) -> PhysicsCheck:
    """Check a claim against the physical floors of ``iosim/catalogue.toml``.

    Derives the time per I/O the claim allows (``queue_depth / iops``, Little's law, and/or the
    claimed ``latency_s``), the byte rate, the NAND page reads in flight and the PCIe lanes it
    needs; then compares them with each medium's fastest published floor (or ``medium`` only),
    the ``interface``'s payload rate and queue, and the ``transport``'s added latency.
    ``read_fraction`` is the share of reads: media floors apply to reads (writes are
    acknowledged from the drive's buffer).  ``iops`` may be omitted for a bandwidth claim
    (``bandwidth_Bps`` and ``block_bytes``).  ``ValueError`` names a bad parameter.

    >>> r = check_physics(iops=100e3, block_bytes=4096, queue_depth=1, medium="tlc")
    >>> r.verdict, r.per_io_s, round(r.media[0].margin, 1)
    ('INFEASIBLE', 1e-05, 4.0)
    """
    cat = catalogue.load()
    v = {
        k: _positive(k, x)
        for k, x in dict(
            iops=iops,
            block_bytes=block_bytes,
            queue_depth=queue_depth,
            latency_s=latency_s,
            bandwidth_Bps=bandwidth_Bps,
        ).items()
    }
    capacity = _validate_physics_inputs(cat, medium, transport, read_fraction, capacity_bytes)
    iface = None if interface is None else catalogue.interface(interface, cat)
    if v["iops"] is None:
        if v["bandwidth_Bps"] is None or v["block_bytes"] is None:
            raise ValueError("iops is required (or bandwidth_Bps with block_bytes)")
        v["iops"] = v["bandwidth_Bps"] / v["block_bytes"]
    x, bs, qd, lat = v["iops"], v["block_bytes"], v["queue_depth"], v["latency_s"]
    r = float(read_fraction)
    used: set[str] = set()

    allowed, why = None, ""
    if qd is not None:
        allowed, why = qd / x, f"at QD {_num(qd)}"
    if lat is not None and (allowed is None or lat < allowed):
        allowed, why = lat, "(the claimed latency)"
    needed = x * bs if bs is not None else v["bandwidth_Bps"]

    extra = [0.0, 0.0]
    tinfo = None
    if transport is not None and transport != "local":
        t = cat.transports[transport]
        added = cat.figure(t.added).range if t.added else (0.0, 0.0)
        extra = [added[0], added[1]]
        tinfo = {"transport": transport, "label": t.label, "added_s": list(added)}
        used.update(f for f in (t.added, t.iops_per_core) if f)
        if t.iops_per_core:
            tinfo["cores"] = x / cat.figure(t.iops_per_core).upper
    if iface is not None and bs is not None:
        best = catalogue.link_payload_Bps(iface, cat)[1]
        extra = [extra[0] + bs / best, extra[1] + bs / best]

    claim = dict(
        iops=x, read_fraction=r, block_bytes=bs, capacity_bytes=capacity, queue_depth=qd
    )
    keys = [medium] if medium is not None else list(cat.media)
    faster = []
    if allowed is not None:
        for m in cat.media.values():
            (lo, hi), _, _ = _medium_floor(cat, m, r)
            if lo + extra[0] <= allowed * (1 + TOLERANCE):
                faster.append(f"{m.label} ({_range_text(lo + extra[0], hi + extra[1])})")
    verdicts = []
    for key in keys:
        med = cat.media[key]
        used.update(f for f in (med.read, med.seek) if f)
        if med.family == "nand" and capacity is not None and med.die_bits:
            used.update((med.die_bits, "nand_planes_per_die", "nand_page_bytes"))
        if med.family == "nand" and r < 1 and med.die_program and bs is not None:
            used.add(med.die_program)
        if med.family == "hdd":
            used.add("hdd_ncq_gain")
        verdicts.append(_check_medium(cat, med, claim, allowed, why, extra, faster))

    if lat is not None:
        required_qd = x * lat
    else:
        required_qd = min(m.min_queue_depth for m in verdicts)
    link = None
    if iface is not None:
        link = _check_link(cat, iface, needed, required_qd, qd, used)
    lanes = {}
    if needed is not None:
        eff = cat.figure("pcie_protocol_efficiency").upper
        for gen in ("pcie3", "pcie4", "pcie5"):
            lanes[gen] = math.ceil(needed / (cat.figure(cat.interfaces[gen].lane).low * eff))
    host = x / cat.figure("io_uring_iops_per_core").upper
    verdict, summary = _physics_verdict(verdicts, link, medium is not None, allowed, why)
    inputs = tuple(
        (k, val)
        for k, val in (
            *v.items(),
            ("read_fraction", r),
            ("medium", medium),
            ("interface", None if iface is None else iface.key),
            ("transport", transport),
            ("capacity_bytes", capacity),
        )
        if val is not None
    )
    sources = sorted({s for name in used for s in cat.figure(name).sources})
    return PhysicsCheck(
        claimed_iops=x,
        inputs=inputs,
        per_io_s=allowed,
        per_io_why=why,
        bytes_per_s=needed,
        lanes_needed=lanes,
        media=tuple(verdicts),
        link=link,
        transport=tinfo,
        host_cores=host,
        verdict=verdict,
        summary=summary,
        deep_queue=required_qd > DEEP_QUEUE * (1 + TOLERANCE),
        sources=tuple(sources),
    )


def _physics_verdict(verdicts, link, one_medium, allowed, why):
    """(verdict, one-sentence summary) from the per-medium and link results."""
    bad_link = link is not None and not (link.feasible and link.queue_ok)
    checked_link = link is not None and not math.isnan(link.needed_Bps)
    bad = [m for m in verdicts if not m.feasible]
    good = [m for m in verdicts if m.feasible]
    tail = ""
    if link is not None and link.link_bound and not bad_link:
        tail = f" Bound by the link: {link.text}."
    if bad_link:
        return "INFEASIBLE", f"INFEASIBLE on {link.label}: {link.text}."
    if one_medium:
        (m,) = verdicts
        if not m.feasible:
            return "INFEASIBLE", f"INFEASIBLE on {m.label}: {m.binding}."
        if allowed is None and not checked_link and m.dies is None:
            return "NOT CONTRADICTED", (
                f"not contradicted on {m.label}: it needs at least "
                f"{_qd_needed(m.min_queue_depth):,} I/Os in flight at the fastest floor."
            )
        return "FEASIBLE", (
            f"FEASIBLE on {m.label} (floor {_range_text(*m.floor_s)} per I/O; at least "
            f"{_qd_needed(m.min_queue_depth):,} I/Os in flight).{tail}"
        )
    if not good:
        return "INFEASIBLE", f"INFEASIBLE on every medium in the catalogue: {bad[0].binding}."
    if not bad:
        if allowed is None and not checked_link:
            return "NOT CONTRADICTED", (
                "not contradicted by any medium's floor (give a queue depth or a latency)."
            )
        return "FEASIBLE", f"FEASIBLE on every medium in the catalogue.{tail}"
    head = "INFEASIBLE on " + ", ".join(m.label for m in bad)
    if allowed is not None:
        head += f": needs {fmt_us_ms(allowed)} per I/O {why}"
    closest = min(bad, key=lambda m: m.factor or math.inf)
    head += f"; the closest, {closest.reason}"
    ok = ", ".join(f"{m.label} ({_range_text(*m.floor_s)})" for m in good)
    return "FEASIBLE ONLY ON SOME MEDIA", f"{head}; possible on {ok}.{tail}"


# --------------------------------------------------------------------------- text


def _claim_line(p: PhysicsCheck) -> str:
    given = dict(p.inputs)
    parts = [fmt_iops(p.claimed_iops)]
    if "block_bytes" in given:
        parts.append(f"{fmt_bytes(given['block_bytes'])} blocks")
    if "queue_depth" in given:
        parts.append(f"QD {_num(given['queue_depth'])}")
    if "latency_s" in given:
        parts.append(f"latency {fmt_time(given['latency_s'])}")
    r = given.get("read_fraction", 1.0)
    parts.append("reads" if r == 1 else "writes" if r == 0 else f"{r:.0%} reads")
    for key in ("medium", "interface", "transport"):
        if key in given:
            parts.append(f"{key} {given[key]}")
    if "capacity_bytes" in given:
        parts.append(f"capacity {_prefixed(given['capacity_bytes'], 'B')}")
    return "Claim: " + ", ".join(parts)


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    line = "  ".join(f"{{:<{w}}}" for w in widths)
    out = [line.format(*header).rstrip(), "  ".join("-" * w for w in widths)]
    out.extend(line.format(*r).rstrip() for r in rows)
    return out


_KEEP_TOGETHER = re.compile(
    r"(?:HDD [\d,]+ rpm|[A-Z][\w-]* NAND|3D XPoint|Z-NAND SLC|QD \d+|PCIe \d\.\d x\d+"
    r"|[\d.,-]+ (?:µs|ms|s|IOPS|[kMG]?B/s|GB|TB|KiB))"
)


def _wrap(text: str, width: int = 100) -> list[str]:
    """A long sentence as lines of at most ``width``, continued with an indent; a medium's
    name or a number and its unit are never split."""
    glued = _KEEP_TOGETHER.sub(lambda m: m.group(0).replace(" ", "\xa0"), text)
    lines = textwrap.wrap(glued, width, subsequent_indent="  ", break_on_hyphens=False)
    return [line.replace("\xa0", " ") for line in lines]


def _physics_text(p: PhysicsCheck) -> str:
    cat = catalogue.load()
    lines = [_claim_line(p), ""]
    implied = []
    if p.per_io_s is not None:
        implied.append(("time per I/O", fmt_us_ms(p.per_io_s), p.per_io_why.strip("()")))
    if p.bytes_per_s is not None:
        implied.append(("data rate", fmt_rate(p.bytes_per_s), "IOPS x block size"))
    if p.lanes_needed:
        lanes = ", ".join(f"{n} x {g.replace('pcie', 'gen ')}" for g, n in p.lanes_needed.items())
        implied.append(("PCIe lanes", lanes, "at the best protocol efficiency"))
    if p.transport and "cores" in p.transport:
        implied.append(
            ("target cores", f"{p.transport['cores']:.2g}", f"{p.transport['label']} per core")
        )
    if p.host_cores is not None and p.host_cores >= 0.5:
        implied.append(("host cores", f"{p.host_cores:.2g}", "at 10M IOPS per core (io_uring)"))
    if implied:
        lines.append("Implied by the claim:")
        lines.extend("  " + row for row in _table(("quantity", "value", "how"), implied))
        lines.append("")
    rows = []
    for m in p.media:
        if m.feasible:
            status = "ok"
            if m.every_die_busy:
                status = "ok, every die busy"
        else:
            status = "INFEASIBLE" + (f" ({_ratio(m.margin)})" if m.margin and m.margin > 1 else "")
        flight = f">= {_qd_needed(m.min_queue_depth):,}"
        extra = ""
        if m.reads_in_flight is not None:
            extra = f"{m.reads_in_flight:.3g} page reads busy"
            if m.dies_programming is not None:
                extra += f", {m.dies_programming:.3g} dies programming"
            if m.dies is not None:
                extra += f" / {m.dies[0]:.3g}-{m.dies[1]:.3g} dies"
        elif m.spindle_iops is not None:
            extra = f"one spindle <= {m.spindle_iops:.3g} IOPS"
        rows.append((m.label, _range_text(*m.floor_s), flight, extra, status))
    lines.append("Media (floor = fastest-slowest published time per I/O, reads only):")
    header = ("medium", "floor per I/O", "needs in flight", "parallelism", "verdict")
    lines.extend("  " + row for row in _table(header, rows))
    lines.append("")
    if p.link is not None:
        lines.extend(_wrap(f"Link: {p.link.text}."))
    if p.transport is not None:
        t = p.transport
        lines.append(
            f"Transport: {t['label']} adds {_range_text(*t['added_s'])} per I/O "
            "(included in the floors)."
        )
    if p.deep_queue:
        lines.append(
            f"Queue: the claim needs more than {DEEP_QUEUE} I/Os in flight, deeper than "
            "AHCI/NCQ allows and than most applications keep."
        )
    lines.extend(_wrap(f"Verdict: {p.summary}"))
    fixes = [f for m in p.media if not m.feasible for f in m.fixes]
    if fixes and len(p.media) == 1:
        lines.extend(_wrap("Would be feasible with: " + "; or ".join(dict.fromkeys(fixes)) + "."))
    lines.append("")
    lines.append(
        "Units: sizes in KiB (1 KiB = 1,024 B, as fio); rates in decimal units as data "
        "sheets (1 MB/s = 10^6 B/s)."
    )
    lines.append("Sources:")
    lines.extend(f"  [{k}] {cat.sources[k].cite()}" for k in p.sources)
    return "\n".join(lines)

"""Check a vendor's IOPS claim against the physical limits that make it possible.

Two checks.  :func:`check_claim` (this module) holds a claim against its *own* numbers and a
modelled stack; :func:`check_physics` (``claims.physics``) holds it against the sourced floors
of media, links, queues and networks in ``iosim/catalogue.toml``; :func:`check_published`
(``claims.published``) runs the catalogue's published drive and cloud claims.

A bare "1,000,000 IOPS" means little without the block size, latency and queue
depth behind it.  :func:`check_claim` takes the claim plus whatever is known about
the system and returns every ceiling those facts imply:

``little``
    Little's law: ``outstanding = IOPS x latency``, so a queue depth ``QD`` at
    latency ``R`` allows at most ``QD / R`` IOPS.
``bandwidth``
    ``IOPS x block size <= bandwidth``, so at most ``bandwidth / block`` IOPS.
``units``
    ``units`` parallel units (dies, spindles, channels, ...) that each need
    ``unit_service_s`` per I/O allow at most ``units / unit_service_s`` IOPS.
``link``
    An interface or network link of ``link_Bps`` bytes/s: ``link / block`` IOPS.
``iops-cap``
    An administrative IOPS cap (e.g. the provisioned IOPS of a cloud volume).
``bandwidth-cap``
    An administrative throughput cap in bytes/s: ``cap / block`` IOPS.

and the two *requirements* the claim implies:

``min-queue-depth``
    ``IOPS x latency`` I/Os must be outstanding (needs ``latency_s``).
``max-block-size``
    blocks can be at most ``bytes/s / IOPS``, using the smallest byte rate among
    ``bandwidth_Bps``, ``link_Bps`` and ``bandwidth_cap_Bps``.

Conventions (documented choices):

* Everything is SI inside: bytes, seconds, bytes/s, I/Os per second.  Text uses
  decimal prefixes for rates (4 GB/s = 4e9 B/s) and shows binary sizes as KiB.
* ``ClaimCheck.limits`` holds the IOPS ceilings first (``value`` = max IOPS),
  then the requirement rows (``value`` = queue depth in I/Os, or block size in
  bytes).  Requirement rows are never binding.  Use :attr:`ClaimCheck.ceilings`
  / :attr:`ClaimCheck.requirements` (or :data:`REQUIREMENT_NAMES`) to tell them
  apart; ``max_iops`` is the minimum over the ceilings only.
* ``ClaimCheck.binding`` names the *tightest* ceiling (smallest max IOPS;
  earliest in the order above on ties) whether or not the claim is feasible, so
  a feasible claim still tells you what would stop it first.  ``Limit.binding``
  is ``True`` only for that tightest ceiling and only when the claim exceeds it
  (i.e. only when the claim is infeasible).  Other ceilings that the claim also
  exceeds stay ``binding=False`` but say so in their ``explain`` text.
* ``feasible`` is ``claimed_iops <= max_iops * (1 + 1e-9)``; the tolerance absorbs
  rounding in e.g. ``128 / 0.128e-3``.  With no computable ceiling the claim is
  feasible (nothing contradicts it) and ``max_iops`` / ``binding`` are ``None``.
* A given queue depth below ``min_queue_depth`` shows up as the ``little``
  ceiling being exceeded (it is the same inequality).
* ``queue_depth`` without ``latency_s`` and byte rates without ``block_bytes``
  produce no ceiling (byte rates still give ``max_block_bytes``).  ``units`` and
  ``unit_service_s`` only make sense together: giving one raises ``ValueError``.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CEILING_NAMES",
    "DEEP_QUEUE",
    "LINK_BOUND_FRACTION",
    "REQUIREMENT_NAMES",
    "TOLERANCE",
    "ClaimCheck",
    "Limit",
    "LinkVerdict",
    "MediumVerdict",
    "PhysicsCheck",
    "PublishedCheck",
    "check_claim",
    "check_physics",
    "check_published",
    "fmt_us_ms",
    "published_table",
    "published_text",
]

#: Relative tolerance of the feasibility test.
TOLERANCE = 1e-9

#: Names of the IOPS ceilings, in reporting (and tie-breaking) order.
CEILING_NAMES = ("little", "bandwidth", "units", "link", "iops-cap", "bandwidth-cap",
                 "simulated")

#: How far a simulated ceiling may be passed before the claim counts as above it: the figure
#: comes from a short run (a few thousand I/Os), whose IOPS move by about this much with the
#: seed; a closed-form ceiling is exact (TOLERANCE).
SIMULATED_TOLERANCE = 0.03

#: Names of the requirement rows (their ``value`` is not an IOPS figure).
REQUIREMENT_NAMES = frozenset({"min-queue-depth", "max-block-size"})


# --------------------------------------------------------------------------- formatting


def _num(x: float, sig: int = 4) -> str:
    """A plain number: thousands separators for big values, ``sig`` digits otherwise."""
    if x == 0:
        return "0"
    if abs(x) >= 1000 or (abs(x) >= 10 and float(x).is_integer()):
        return f"{x:,.0f}"
    return f"{x:.{sig}g}"


def fmt_iops(x: float) -> str:
    return f"{_num(x)} IOPS"


def fmt_time(s: float) -> str:
    """Seconds in a readable unit: 0.000128 -> '0.128 ms', 5e-5 -> '50 µs'."""
    a = abs(s)
    if a >= 1:
        return f"{s:.4g} s"
    if a >= 1e-4:
        return f"{s * 1e3:.4g} ms"
    if a >= 1e-7:
        return f"{s * 1e6:.4g} µs"
    return f"{s * 1e9:.4g} ns"


def _prefixed(x: float, unit: str) -> str:
    """Decimal SI prefix: 4e9, 'B/s' -> '4 GB/s'."""
    for factor, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= factor:
            return f"{x / factor:.4g} {prefix}{unit}"
    return f"{x:.4g} {unit}"


def fmt_rate(bps: float) -> str:
    return _prefixed(bps, "B/s")


def fmt_bytes(n: float) -> str:
    """'4,096 B (4 KiB)', '4,000 B (3.91 KiB)', '512 B': sizes in KiB (fio's k = 1024)."""
    plain = f"{n:,.0f} B" if float(n).is_integer() else f"{n:,.1f} B"
    if n < 1000:
        return plain
    if float(n).is_integer() and int(n) % 1024 == 0:
        for factor, prefix in ((1024**3, "Gi"), (1024**2, "Mi"), (1024, "Ki")):
            if n >= factor and int(n) % factor == 0:
                return f"{plain} ({int(n) // factor} {prefix}B)"
    for factor, prefix in ((1024**3, "GiB"), (1024**2, "MiB"), (1024, "KiB")):
        if n >= factor:
            return f"{plain} ({n / factor:.3g} {prefix})"
    return plain


def _excess(claim: float, allowed: float) -> str:
    """How far a claim overshoots an allowance: '2.4 % above' or '4.1x'."""
    ratio = claim / allowed
    if ratio < 2:
        return f"{(ratio - 1) * 100:.3g} % above it"
    return f"{ratio:.3g}x it"


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Limit:
    """One row of a claim check.

    For ceilings (names in :data:`CEILING_NAMES`) ``value`` is the maximum IOPS the
    limit allows.  For requirements (names in :data:`REQUIREMENT_NAMES`) it is the
    required value: a queue depth in I/Os, or a block size in bytes.
    """

    name: str
    value: float
    binding: bool
    explain: str

    @property
    def is_requirement(self) -> bool:
        return self.name in REQUIREMENT_NAMES

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "value": float(self.value),
            "binding": bool(self.binding),
            "explain": self.explain,
        }

    def value_text(self) -> str:
        if self.name == "min-queue-depth":
            return f"{_num(self.value)} I/Os"
        if self.name == "max-block-size":
            return fmt_bytes(self.value)
        return fmt_iops(self.value)


@dataclass(frozen=True)
class ClaimCheck:
    """Outcome of :func:`check_claim` (see the module docstring for conventions)."""

    feasible: bool
    claimed_iops: float
    limits: tuple[Limit, ...]
    min_queue_depth: float | None
    max_block_bytes: float | None
    max_iops: float | None
    binding: str | None
    #: Given inputs (name, value), for display only; not part of ``to_dict``.
    inputs: tuple[tuple[str, float], ...] = ()

    @property
    def ceilings(self) -> tuple[Limit, ...]:
        """The IOPS ceilings (rows whose ``value`` is a max IOPS)."""
        return tuple(lim for lim in self.limits if not lim.is_requirement)

    @property
    def requirements(self) -> tuple[Limit, ...]:
        """The requirement rows (min queue depth, max block size)."""
        return tuple(lim for lim in self.limits if lim.is_requirement)

    def to_dict(self) -> dict[str, Any]:
        def opt(x: float | None) -> float | None:
            return None if x is None else float(x)

        return {
            "feasible": bool(self.feasible),
            "limits": [lim.to_dict() for lim in self.limits],
            "min_queue_depth": opt(self.min_queue_depth),
            "max_block_bytes": opt(self.max_block_bytes),
            "max_iops": opt(self.max_iops),
            "binding": self.binding,
        }

    def _status(self, lim: Limit) -> str:
        given = dict(self.inputs)
        if lim.name == "min-queue-depth":
            qd = given.get("queue_depth")
            if qd is None:
                return "required"
            return "met" if qd * (1 + TOLERANCE) >= lim.value else "NOT MET"
        if lim.name == "max-block-size":
            bs = given.get("block_bytes")
            if bs is None:
                return "required"
            return "met" if bs <= lim.value * (1 + TOLERANCE) else "NOT MET"
        if lim.binding:
            return "EXCEEDED (binding)"
        if self.claimed_iops > lim.value * (1 + TOLERANCE):
            return "EXCEEDED"
        return "ok (tightest)" if lim.name == self.binding else "ok"

    def to_text(self) -> str:
        """An aligned table followed by one explanation line per row."""
        claim = fmt_iops(self.claimed_iops)
        if not self.ceilings:
            verdict = "not contradicted (no ceiling computable from the inputs given)"
        elif self.feasible:
            verdict = f"FEASIBLE (tightest: {self.binding}, max {fmt_iops(self.max_iops)})"
        else:
            verdict = f"INFEASIBLE (binding: {self.binding}, max {fmt_iops(self.max_iops)})"
        lines = [f"Claim: {claim} -> {verdict}"]
        if self.inputs:
            lines.append("Given: " + ", ".join(_fmt_input(k, v) for k, v in self.inputs))
        if not self.limits:
            lines.append(
                "Nothing to check: give e.g. bandwidth + block size, latency + queue depth, "
                "or latency alone for the queue depth needed."
            )
            return "\n".join(lines)
        header = ("limit", "value", "status")
        rows = [(lim.name, lim.value_text(), self._status(lim)) for lim in self.limits]
        w0 = max(len(header[0]), *(len(r[0]) for r in rows))
        w1 = max(len(header[1]), *(len(r[1]) for r in rows))
        lines.append("")
        lines.append(f"{header[0]:<{w0}}  {header[1]:>{w1}}  {header[2]}")
        lines.append(f"{'-' * w0}  {'-' * w1}  {'-' * max(len(r[2]) for r in rows)}")
        lines.extend(f"{n:<{w0}}  {v:>{w1}}  {s}" for n, v, s in rows)
        lines.append("")
        lines.extend(f"{lim.name:<{w0}}  {lim.explain}" for lim in self.limits)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()


def _fmt_input(name: str, value: float) -> str:
    if name in ("iops", "iops_cap", "simulated_iops"):
        return f"{name}={fmt_iops(value)}"
    if name.endswith("_Bps"):
        return f"{name}={fmt_rate(value)}"
    if name.endswith("_s"):
        return f"{name}={fmt_time(value)}"
    if name == "block_bytes":
        return f"{name}={fmt_bytes(value)}"
    return f"{name}={_num(value)}"


# --------------------------------------------------------------------------- checking

#: Byte-rate limits: (ceiling name, parameter, words used in explanations).
_BYTE_RATES = (
    ("bandwidth", "bandwidth_Bps", "bandwidth"),
    ("link", "link_Bps", "link"),
    ("bandwidth-cap", "bandwidth_cap_Bps", "throughput cap"),
)


def _positive(name: str, value: Any) -> float | None:
    """Validate an optional input: None passes through, otherwise finite and > 0."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number (got {value!r})")
    x = float(value)
    if math.isnan(x) or math.isinf(x):
        raise ValueError(f"{name} must be finite (got {value!r})")
    if x <= 0:
        raise ValueError(f"{name} must be > 0 (got {value!r})")
    return x


def check_claim(
    *,
    iops: float,
    block_bytes: float | None = None,
    bandwidth_Bps: float | None = None,
    latency_s: float | None = None,
    queue_depth: float | None = None,
    units: float | None = None,
    unit_service_s: float | None = None,
    link_Bps: float | None = None,
    iops_cap: float | None = None,
    bandwidth_cap_Bps: float | None = None,
    simulated_iops: float | None = None,
) -> ClaimCheck:
    """Check whether ``iops`` is physically possible given whatever else is known.

    All inputs are SI: bytes, bytes/s, seconds, I/Os per second; every given value
    must be finite and > 0 (``ValueError`` names the parameter otherwise).

    >>> r = check_claim(iops=1e6, bandwidth_Bps=4e9, latency_s=0.128e-3, block_bytes=16384)
    >>> r.feasible, r.binding, r.min_queue_depth, r.max_block_bytes
    (False, 'bandwidth', 128.0, 4000.0)
    """
    raw = {
        "iops": iops,
        "block_bytes": block_bytes,
        "bandwidth_Bps": bandwidth_Bps,
        "latency_s": latency_s,
        "queue_depth": queue_depth,
        "units": units,
        "unit_service_s": unit_service_s,
        "link_Bps": link_Bps,
        "iops_cap": iops_cap,
        "bandwidth_cap_Bps": bandwidth_cap_Bps,
        "simulated_iops": simulated_iops,
    }
    if iops is None:
        raise ValueError("iops must be > 0 (got None)")
    v = {k: _positive(k, x) for k, x in raw.items()}
    for a, b in (("units", "unit_service_s"), ("unit_service_s", "units")):
        if v[a] is not None and v[b] is None:
            raise ValueError(f"{a} needs {b} as well (got {a}={raw[a]!r}, {b}=None)")

    claim: float = v["iops"]  # type: ignore[assignment]
    bs, lat, qd = v["block_bytes"], v["latency_s"], v["queue_depth"]

    # (name, max IOPS, explanation of how it follows from the inputs)
    ceilings: list[tuple[str, float, str]] = []
    if lat is not None and qd is not None:
        ceilings.append(
            (
                "little",
                qd / lat,
                f"queue depth {_num(qd)} / latency {fmt_time(lat)} "
                f"= at most {fmt_iops(qd / lat)} (Little's law)",
            )
        )
    if v["units"] is not None and v["unit_service_s"] is not None:
        n, svc = v["units"], v["unit_service_s"]
        ceilings.append(
            (
                "units",
                n / svc,
                f"{_num(n)} parallel units / {fmt_time(svc)} service time each "
                f"= at most {fmt_iops(n / svc)}",
            )
        )
    if v["iops_cap"] is not None:
        ceilings.append(("iops-cap", v["iops_cap"], f"IOPS cap: {fmt_iops(v['iops_cap'])}"))
    if bs is not None:
        for name, key, what in _BYTE_RATES:
            rate = v[key]
            if rate is not None:
                text = f"{what} {fmt_rate(rate)} / block {fmt_bytes(bs)} = at most "
                ceilings.append((name, rate / bs, text + fmt_iops(rate / bs)))
    if v["simulated_iops"] is not None:
        sim = v["simulated_iops"]
        ceilings.append(("simulated", sim,
                         f"the stack simulated with every slot below the host full completes "
                         f"about {fmt_iops(sim)} (every shared limit at once; a short run, "
                         f"+-{SIMULATED_TOLERANCE:.0%})"))
    order = {name: i for i, name in enumerate(CEILING_NAMES)}
    ceilings.sort(key=lambda c: order[c[0]])

    def slack(name: str) -> float:
        return 1 + (SIMULATED_TOLERANCE if name == "simulated" else TOLERANCE)

    # a simulated ceiling binds only where it is below every closed form by more than its noise
    reach = [m * slack(name) for name, m, _ in ceilings]
    tightest = None
    if ceilings:
        tightest = min(range(len(ceilings)), key=lambda i: reach[i])
    max_iops = None if tightest is None else ceilings[tightest][1]
    feasible = not reach or claim <= reach[tightest]

    limits: list[Limit] = []
    for i, (name, m, text) in enumerate(ceilings):
        exceeded = claim > reach[i]
        is_binding = exceeded and i == tightest
        if is_binding:
            text += f"; BINDING: the claim of {fmt_iops(claim)} is {_excess(claim, m)}"
        elif exceeded:
            text += f"; the claim of {fmt_iops(claim)} is also {_excess(claim, m)}"
        limits.append(Limit(name, m, is_binding, text))

    min_qd = None
    if lat is not None:
        min_qd = claim * lat
        text = (
            f"{_num(min_qd)} outstanding I/Os are needed: "
            f"{fmt_iops(claim)} x {fmt_time(lat)} (Little's law)"
        )
        if qd is not None and qd * (1 + TOLERANCE) < min_qd:
            text += f"; the given queue depth {_num(qd)} is too small"
        limits.append(Limit("min-queue-depth", min_qd, False, text))

    rates = [(v[key], what) for _, key, what in _BYTE_RATES if v[key] is not None]
    max_bs = None
    if rates:
        rate, what = min(rates, key=lambda r: r[0])
        max_bs = rate / claim
        text = f"blocks must be <= {fmt_bytes(max_bs)}: {what} {fmt_rate(rate)} / {fmt_iops(claim)}"
        if bs is not None and bs > max_bs * (1 + TOLERANCE):
            text += f"; the given block {fmt_bytes(bs)} is {_excess(bs, max_bs)}"
        limits.append(Limit("max-block-size", max_bs, False, text))

    return ClaimCheck(
        feasible=feasible,
        claimed_iops=claim,
        limits=tuple(limits),
        min_queue_depth=min_qd,
        max_block_bytes=max_bs,
        max_iops=max_iops,
        binding=None if tightest is None else ceilings[tightest][0],
        inputs=tuple((k, x) for k, x in v.items() if x is not None),
    )


# The physics check and the published claims live in submodules (they read iosim.catalogue);
# their public names are re-exported here.
from .physics import (  # noqa: E402
    DEEP_QUEUE,
    LINK_BOUND_FRACTION,
    LinkVerdict,
    MediumVerdict,
    PhysicsCheck,
    check_physics,
    fmt_us_ms,
)
from .published import (  # noqa: E402
    PublishedCheck,
    check_published,
    published_table,
    published_text,
)


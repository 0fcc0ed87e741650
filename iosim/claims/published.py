"""Published vendor and cloud claims (the catalogue's ``[claim.*]``), checked.

Each claim runs through :func:`iosim.claims.check_physics` and, when it states a latency or a
bandwidth cap, :func:`iosim.claims.check_claim`; the result names what binds and marks the claims
that hold only at deep queues, with every die busy, or near the link's limit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .. import catalogue  # data only; catalogue imports nothing from iosim
from . import TOLERANCE, ClaimCheck, _prefixed, check_claim, fmt_bytes
from .physics import DEEP_QUEUE, PhysicsCheck, _table, check_physics


@dataclass(frozen=True)
class PublishedCheck:
    """A published claim of the catalogue run through both checkers."""

    key: str
    label: str
    source: str  # the catalogue's source key
    physics: PhysicsCheck
    limits: ClaimCheck | None  # Little's law / bandwidth cap (when latency or cap given)
    feasible: bool
    binding: str  # one sentence: what limits the claim (or "" when nothing does)
    #: I/Os in flight the claim needs (Little's law): at its stated latency, else at the
    #: fastest floor; the upper end at a stated bound ("sub-ms").  A stated QD below the low
    #: end shows up as infeasible.
    in_flight: tuple[float, float]
    max_block_bytes: float | None  # largest block at which IOPS and the bandwidth cap both hold
    categories: tuple[str, ...]  # infeasible, deep-queue, every-die-busy, link-bound

    def row(self) -> dict[str, Any]:
        lo, hi = (math.ceil(x * (1 - TOLERANCE)) for x in self.in_flight)
        return {
            "claim": self.key,
            "label": self.label,
            "verdict": "feasible" if self.feasible else "INFEASIBLE",
            "needs in flight": f"{lo:,}" if lo == hi else f"{lo:,}-{hi:,}",
            "max block": "" if self.max_block_bytes is None else fmt_bytes(self.max_block_bytes),
            "categories": ", ".join(self.categories),
            "binding": self.binding,
            "source": self.source,
        }


def _published_binding(c, physics, limits, considered, in_flight) -> tuple[list[str], str]:
    cats, binding = [], ""
    if limits is not None and not limits.feasible:
        cats.append("infeasible")
        binding = next(lim.explain for lim in limits.limits if lim.binding)
    elif physics.verdict == "INFEASIBLE":
        cats.append("infeasible")
        binding = physics.summary
    if in_flight[0] > DEEP_QUEUE * (1 + TOLERANCE):
        cats.append("deep-queue")
        lo = math.ceil(in_flight[0] * (1 - TOLERANCE))
        binding = binding or f"holds only with >= {lo:,} I/Os in flight (QD x jobs)"
    busy = [m for m in considered if m.every_die_busy]
    if busy:
        m = busy[0]
        cats.append("every-die-busy")
        binding = binding or (
            f"needs {m.reads_in_flight:.3g} NAND page reads in flight; "
            f"{_prefixed(c.capacity_bytes, 'B')} of {m.label} is {m.dies[0]:.3g}-{m.dies[1]:.3g} "
            "dies: every die busy"
        )
    if physics.link is not None and physics.link.link_bound:
        cats.append("link-bound")
        binding = binding or physics.link.text
    return cats, binding


def check_published(claim: Any) -> PublishedCheck:
    """Run a published claim (a key of the catalogue's ``[claim.*]`` or a
    :class:`iosim.catalogue.Claim`) through :func:`check_physics` and, when it states a latency
    or a bandwidth cap, :func:`check_claim`.

    For a drive the stated bandwidth *is* the claim (IOPS = bandwidth / block); for a cloud
    volume it is a cap that IOPS x block size must stay under.  A latency bound
    (``latency_max_s``: "sub-ms") is checked against the floors but gives only an upper end
    of the I/Os in flight; the lower end is IOPS x the fastest floor.
    """
    cat = catalogue.load()
    c = cat.claims[claim] if isinstance(claim, str) else claim
    cap = c.bandwidth_Bps if c.kind == "cloud" else None
    physics = check_physics(
        iops=c.claimed_iops,
        block_bytes=c.block_bytes,
        queue_depth=c.queue_depth,
        latency_s=c.latency_s if c.latency_s is not None else c.latency_max_s,
        medium=c.medium,
        interface=c.interface,
        transport=c.transport,
        capacity_bytes=c.capacity_bytes,
        read_fraction=c.read_fraction,
    )
    limits = None
    if c.latency_s is not None or cap is not None:
        limits = check_claim(
            iops=c.claimed_iops,
            block_bytes=c.block_bytes,
            latency_s=c.latency_s,
            queue_depth=c.queue_depth,
            bandwidth_cap_Bps=cap,
        )
    considered = [m for m in physics.media if m.medium == c.medium] or list(physics.media)
    at_floor = min(m.min_queue_depth for m in considered if m.feasible) if any(
        m.feasible for m in considered
    ) else min(m.min_queue_depth for m in considered)
    low = c.claimed_iops * c.latency_s if c.latency_s is not None else at_floor
    high = low if c.latency_max_s is None else max(low, c.claimed_iops * c.latency_max_s)
    in_flight = (low, high)
    cats, binding = _published_binding(c, physics, limits, considered, in_flight)
    return PublishedCheck(
        key=c.key,
        label=c.label,
        source=c.source,
        physics=physics,
        limits=limits,
        feasible=physics.feasible and (limits is None or limits.feasible),
        binding=binding,
        in_flight=in_flight,
        max_block_bytes=None if limits is None else limits.max_block_bytes,
        categories=tuple(cats),
    )


def published_table() -> list[dict[str, Any]]:
    """Every published claim of the catalogue, checked: one row each (for docs and notebooks)."""
    return [check_published(key).row() for key in catalogue.load().claims]


def published_text(rows: list[dict[str, Any]] | None = None) -> str:
    """:func:`published_table` as an aligned text table (claim, verdict, in flight, block)."""
    rows = published_table() if rows is None else rows
    header = ("claim", "verdict", "needs in flight", "largest block", "stands out")
    body = [
        (r["claim"], r["verdict"], r["needs in flight"], r["max block"], r["categories"])
        for r in rows
    ]
    return "\n".join(_table(header, body))

"""blkparse's default text output, and WiscSee's table derived from it.

blkparse (``blkparse -i dev``) prints one event a line::

    maj,min cpu seq seconds pid action rwbs [sector + nsectors] [comm]

and, at the end, per-CPU and total summary blocks. One request is made per **D** event (issued
to the driver) that moves data: ``arrival_s`` is the D time. Its ``latency_s`` is the time of
the C (complete) event for the same device and start sector minus the D time (requests issued
twice to one sector before either completes are matched first in, first out). Everything else
is read past: Q/G/I/M/F/A/P/U/X/B/S/T events, CFQ/BFQ ``m`` messages, the summary blocks.

Flushes follow the matching rules documented by OxDeadmeat/blktrace_merge
(``Internals/matching-events.txt``): a flush with no data is dispatched as ``D FN`` without a
sector and completed as ``C FN 0``; those pairs are matched per device in order and are not
requests (no bytes move; they are counted in a warning). A completion printed without
``+ length`` (``C WFS 575480360``) ends the flush sequence of a request that never dispatched
data, and is also only counted. Passthrough commands (``D N 0 (00 ..)``) and discards are
counted and skipped: a BlockTrace holds reads and writes.

A capture without C events (``blktrace -a issue``) gives NaN latencies and says so. A D still
waiting for its C when more than :data:`PENDING_LIMIT` later requests have been issued is given
up (NaN latency), which bounds the memory the matching holds. blkparse interleaves the per-CPU
buffers, so D times may step back a little; requests are sorted by time without a warning.

WiscSee (junhe/wiscsee) writes ``pid action operation offset size timestamp pre_wait_time sync``
(bytes and seconds, no header); each row with action D is one request at its timestamp.
Offsets are relative to the partition, so a read of the whole disk's first sectors comes out
negative: such rows are counted and skipped.
"""

from __future__ import annotations

import math
import re
from collections import deque
from collections.abc import Iterator

from .block_io import Context, LineReader, integer, number

SECTOR_BYTES = 512
PENDING_LIMIT = 200_000

_DEVICE = re.compile(r"^\d+,\d+$")
_KNOWN_ACTIONS = set("QGIDCMFAPUXBSTRm")


def _direction(rwbs: str) -> str:
    """'R', 'W', 'D' (discard), 'N' (no data) or 'F' (a bare flush), from blkparse's RWBS."""
    body = rwbs[1:] if rwbs.startswith("F") and len(rwbs) > 1 else rwbs
    for ch in body:
        if ch in "RWD":
            return ch
    return "F" if rwbs.startswith("F") else "N"


class _Matcher:
    """D events waiting for their C, in issue order (a deque of mutable entries)."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.queue: deque[list] = deque()  # [arrival, offset, size, is_read, dev, lat, line]
        self.by_sector: dict[tuple[int, int], deque] = {}
        self.flushes: dict[int, deque] = {}
        self.completions = 0

    def dispatch(self, entry: list, dev: int, sector: int) -> None:
        self.queue.append(entry)
        self.by_sector.setdefault((dev, sector), deque()).append(entry)

    def complete(self, dev: int, sector: int, t: float, line: int) -> None:
        self.completions += 1
        waiting = self.by_sector.get((dev, sector))
        if not waiting:
            self.ctx.count("c-unmatched", line,
                           "C events without a matching D (issued before the capture?)")
            return
        entry = waiting.popleft()
        if not waiting:
            del self.by_sector[(dev, sector)]
        entry[5] = max(t - entry[0], 0.0)

    def ready(self, final: bool = False) -> Iterator[tuple]:
        """Requests whose C has come (or never will), oldest first."""
        q = self.queue
        while q and (not math.isnan(q[0][5]) or final or len(q) > PENDING_LIMIT):
            entry = q.popleft()
            if math.isnan(entry[5]):
                self._give_up(entry)
            yield (entry[0], entry[1], entry[2], entry[3], entry[4], entry[5], math.nan,
                   entry[6])

    def _give_up(self, entry: list) -> None:
        key = (entry[4], int(entry[1] // SECTOR_BYTES))
        waiting = self.by_sector.get(key)
        if waiting:
            try:
                waiting.remove(entry)
            except ValueError:
                pass
            if not waiting:
                del self.by_sector[key]
        self.ctx.count("d-unmatched", entry[6], "D events without a matching C (latency NaN)")


def _sector_len(parts: list[str], ctx: Context, ln: int, what: str) -> tuple[int, int | None]:
    """(sector, nsectors) after the RWBS field; nsectors None when blkparse printed no length."""
    if len(parts) < 8:
        raise ctx.error(ln, f"truncated {what} event: expected 'sector + nsectors' after the "
                        "RWBS field")
    sector = integer(parts[7], ctx, ln, f"{what} sector")
    if len(parts) >= 10 and parts[8] == "+":
        return sector, integer(parts[9], ctx, ln, f"{what} nsectors")
    if len(parts) >= 9 and parts[8] == "+":
        raise ctx.error(ln, f"truncated {what} event: expected nsectors after '+'")
    return sector, None


def parse_blkparse(lines: LineReader, ctx: Context) -> Iterator[tuple]:
    m = _Matcher(ctx)
    nan = math.nan
    for text in lines:
        ln = lines.line
        parts = text.split()
        if not parts or not _DEVICE.match(parts[0]):
            if parts and not parts[0].startswith("#"):
                ctx.count("summary", ln, "lines of blkparse's summary or other text skipped")
            continue
        if len(parts) < 7:
            raise ctx.error(ln, f"truncated event line: expected 'maj,min cpu seq seconds pid "
                            f"action rwbs ...', got {len(parts)} fields")
        action = parts[5]
        if action not in ("D", "C"):
            if action not in _KNOWN_ACTIONS:
                ctx.count(f"action-{action}", ln, f"events with unknown action {action!r} skipped")
            continue
        t = number(parts[3], ctx, ln, "seconds")
        dev = ctx.device_id(parts[0])
        rwbs = parts[6]
        kind = _direction(rwbs)
        if action == "D":
            if kind == "F":
                m.flushes.setdefault(dev, deque()).append(t)
                ctx.count("flush", ln, "flushes (D FN / C FN) matched and left out: no data")
                continue
            if kind in ("N", "D"):
                what = "passthrough (N)" if kind == "N" else "discard"
                ctx.count(f"skip-{kind}", ln, f"{what} dispatches skipped")
                continue
            sector, nsect = _sector_len(parts, ctx, ln, "D")
            if not nsect:
                ctx.count("d-empty", ln, "D events without data (length 0) skipped")
                continue
            m.dispatch([t, sector * float(SECTOR_BYTES), nsect * float(SECTOR_BYTES),
                        kind == "R", dev, nan, ln], dev, sector)
        else:
            if kind == "F":
                fl = m.flushes.get(dev)
                if fl:
                    fl.popleft()
                continue
            if len(parts) < 8 or kind in ("N", "D"):
                continue
            sector, nsect = _sector_len(parts, ctx, ln, "C")
            if nsect is None:
                ctx.count("c-flushseq", ln,
                          "completions of flush sequences without a data dispatch ignored")
                continue
            m.complete(dev, sector, t, ln)
            err = parts[-1]
            if err.startswith("[") and err.endswith("]") and err[1:-1].lstrip("-").isdigit() \
                    and int(err[1:-1]) != 0:
                ctx.count("c-error", ln, "completions with a non-zero error status")
        yield from m.ready()
    if not m.completions and m.queue:
        ctx.note("issue-only capture (no C events): latency unknown (NaN)")
        for entry in m.queue:
            entry[5] = nan
        while m.queue:
            e = m.queue.popleft()
            yield (e[0], e[1], e[2], e[3], e[4], nan, nan, e[6])
        return
    yield from m.ready(final=True)


_WISCSEE_FIELDS = "pid action operation offset size timestamp pre_wait_time sync"


def parse_wiscsee(lines: LineReader, ctx: Context) -> Iterator[tuple]:
    nan = math.nan
    dev = ctx.device_id("0")
    last = -math.inf
    for text in lines:
        ln = lines.line
        parts = text.split()
        if not parts or parts[0].startswith("#"):
            continue
        if len(parts) < 8:
            raise ctx.error(ln, f"truncated line: expected 8 fields ({_WISCSEE_FIELDS}), got "
                            f"{len(parts)}")
        action, op = parts[1], parts[2]
        if action != "D":
            ctx.count(f"action-{action}", ln, f"rows with action {action!r} (not D) skipped")
            continue
        if op not in ("read", "write"):
            ctx.count(f"op-{op}", ln, f"{op!r} rows skipped (reads and writes only)")
            continue
        offset = number(parts[3], ctx, ln, "offset")
        size = integer(parts[4], ctx, ln, "size")
        if offset < 0:  # WiscSee subtracts the partition's start: these are before it
            ctx.count("negative", ln, "rows with a negative offset (before the partition) "
                      "skipped")
            continue
        t = number(parts[5], ctx, ln, "timestamp")
        if size == 0:
            ctx.count("zero", ln, "rows of size 0 skipped")
            continue
        if t < last:
            ctx.count("backwards", ln, "timestamps going backwards (rows sorted by time)")
        last = max(last, t)
        yield (t, float(offset), float(size), op == "read", dev, nan, nan, ln)

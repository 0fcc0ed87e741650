"""sysstat's ``sar -d`` (text, with or without ``-p``) and ``sadf -d`` (semicolon-separated)
device reports, read into the same rows as ``iostat`` (:mod:`iosim.traces.iostat`).

sar keeps a machine's disk activity every ten minutes by default, so it is often the only
record of production load a capacity planner has. Its columns are iostat's, by other names
in places: ``tps`` (block requests per second), ``rkB/s``/``wkB/s``/``dkB/s`` (older:
``rd_sec/s``/``wr_sec/s`` in 512-byte sectors), ``areq-sz`` (the mean request in kB; older
``avgrq-sz`` in sectors), ``aqu-sz`` (``avgqu-sz``), ``await`` (ms) and ``%util``. Unlike
iostat's first report, sar's first row is an interval like the others (nothing since boot), and
its ``Average:`` rows (the whole capture) are left out. ``sadf -j`` is sysstat JSON, read by
the iostat reader.
"""

from __future__ import annotations

import re

from ._common import num, split_lines
from .errors import TraceFormatError

__all__ = ["looks_like_sar", "read_sar_rows"]

_TIME = r"\d{1,2}:\d{2}:\d{2}(?:\s*[AP]M)?"
#: a sar -d header: its time, then the columns with DEV first or (``-p``) last
_RE_HEADER = re.compile(rf"^(?P<time>{_TIME})\s+(?P<cols>(?:DEV\s+.*\btps\b.*|.*\btps\b.*\sDEV))$")
_RE_ROW = re.compile(rf"^(?P<time>{_TIME})\s+(?P<rest>\S.*)$")
_SADF = "# hostname;interval;timestamp;DEV;"


def looks_like_sar(head: str) -> bool:
    """True for the first part of a ``sar -d`` or ``sadf -d`` report."""
    return head.lstrip().startswith(_SADF) or any(
        _RE_HEADER.match(line.strip()) for line in head.splitlines()[:50])


def read_sar_rows(text: str, path, cols: dict) -> tuple[list[dict], dict]:
    """The device rows of a sar -d or sadf -d report (``cols``: iostat's column names ->
    (our column, factor to SI)); ``attrs["first_since_boot"]`` is False."""
    attrs = {"first_since_boot": False, "tool": "sar"}
    if text.lstrip().startswith(_SADF):
        return _sadf_rows(text, path, cols), {**attrs, "tool": "sadf"}
    rows: list[dict] = []
    header: list | None = None
    dev_last = False
    date = None
    times: dict[str, int] = {}
    for i, raw in enumerate(split_lines(text), 1):
        s = raw.strip()
        if not s:
            continue
        if s.startswith("Linux ") and date is None:
            m = re.search(r"\s(\d{1,2}/\d{1,2}/\d{2,4}|\d{4}-\d{2}-\d{2})\s", s + " ")
            date = m.group(1) if m else None
            attrs["banner"] = s
            m = re.search(r"\(([^)]+)\)", s)
            if m:
                attrs["host"] = m.group(1)
            continue
        m = _RE_HEADER.match(s)
        if m:
            names = m.group("cols").split()
            dev_last = names[-1] == "DEV"
            names = names[:-1] if dev_last else names[1:]
            header = [cols.get(n.lower()) for n in names]
            if not any(h and h[0] == "tps" for h in header):
                raise TraceFormatError(path, i, f"sar -d header without a tps column: {s!r}")
            continue
        if s.startswith(("Average:", "Summary")) or "LINUX RESTART" in s or header is None:
            continue
        m = _RE_ROW.match(s)
        if not m:
            continue
        toks = m.group("rest").split()
        if len(toks) != len(header) + 1:
            raise TraceFormatError(path, i, f"sar -d row has {len(toks) - 1} values, the "
                                   f"header {len(header)} columns")
        device, values = (toks[-1], toks[:-1]) if dev_last else (toks[0], toks[1:])
        when = m.group("time")
        sample = times.setdefault(when, len(times))
        row: dict = {"sample": sample, "time": f"{date} {when}" if date else when,
                     "device": device}
        for tok, h in zip(values, header, strict=True):
            if h is not None:
                row[h[0]] = num(tok.replace(",", "."), path, i, h[0], nonneg=True) * h[1]
        rows.append(row)
    return rows, attrs


def _sadf_rows(text: str, path, cols: dict) -> list[dict]:
    lines = split_lines(text)
    names = lines[0].strip().lstrip("#").strip().split(";")
    low = [n.lower() for n in names]
    at = {k: low.index(k) for k in ("timestamp", "dev") if k in low}
    if len(at) < 2:
        raise TraceFormatError(path, 1, "sadf -d header without timestamp and DEV columns")
    header = [cols.get(n) for n in low]
    rows: list[dict] = []
    times: dict[str, int] = {}
    for i, raw in enumerate(lines[1:], 2):
        s = raw.strip()
        if not s or s.startswith("#"):
            continue
        toks = s.split(";")
        if len(toks) != len(names):
            raise TraceFormatError(path, i, f"sadf -d row has {len(toks)} fields, the header "
                                   f"{len(names)}")
        when = re.sub(r"\s+UTC$", "", toks[at["timestamp"]].strip())
        row: dict = {"sample": times.setdefault(when, len(times)), "time": when,
                     "device": toks[at["dev"]].strip()}
        for tok, h in zip(toks, header, strict=True):
            if h is not None:
                row[h[0]] = num(tok.strip().replace(",", "."), path, i, h[0], nonneg=True) * h[1]
        rows.append(row)
    return rows

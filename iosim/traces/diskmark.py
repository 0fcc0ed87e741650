"""CrystalDiskMark's text result (File > Save, or copied from its window) and KDiskMark's report
(its Linux counterpart, which runs fio): one point per test line.

The layout (CrystalDiskMark 6-8, KDiskMark 2-3): a ``[Read]``, ``[Write]`` and (8.x) ``[Mix]``
section, each with lines such as::

      SEQ    1MiB (Q=  8, T= 1):   543.188 MB/s [    518.0 IOPS] < 15407.04 us>
      RND    4KiB (Q= 32, T=16):   422.165 MB/s [ 103067.6 IOPS] <  4946.67 us>
  Sequential   1 MiB (Q=  8, T= 1):   508.897 MB/s [    497.0 IOPS] < 13840.05 us>

``Q`` is each thread's queue depth and ``T`` the threads: fio's ``iodepth`` and ``numjobs``.
MB/s is 10^6 bytes/s (the file says so in its header); the figure in angle brackets is the mean
latency per I/O (Q x T / IOPS, by Little's law, within rounding). A ``[Mix]`` section's reads
share comes from its heading (``Read 70%/Write 30%``). ``Test: 1 GiB (x5)`` is the test file's
size: the span the offsets fall in. Lines without IOPS or latency (CrystalDiskMark 6 and
older print MB/s only) are refused: a throughput alone is no point to fit.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..results import Curve, Results
from ..units import UnitError, parse_size
from ._common import num, read_text, split_lines
from .errors import TraceFormatError

__all__ = ["looks_like_diskmark", "read_diskmark"]

_RE_TEST = re.compile(
    r"^\s*(?P<kind>SEQ|RND|Sequential|Random)\s+(?P<bs>\d+(?:\.\d+)?\s*[KMG]i?B)\s*"
    r"\(\s*Q\s*=\s*(?P<q>\d+)\s*,\s*T\s*=\s*(?P<t>\d+)\s*\)\s*:\s*(?P<rest>.*)$")
_RE_FIGURES = re.compile(
    r"^(?P<mbs>[\d.,]+)\s*MB/s\s*\[\s*(?P<iops>[\d.,]+)\s*IOPS\s*\]\s*"
    r"<\s*(?P<lat>[\d.,]+)\s*(?P<unit>us|ms)\s*>")
_RE_SECTION = re.compile(r"^\s*\[(?P<name>Read|Write|Mix)\]\s*(?P<rest>.*)$")
_RE_MIX = re.compile(r"Read\s*(?P<r>\d+(?:\.\d+)?)\s*%", re.I)


def looks_like_diskmark(head: str) -> bool:
    """A test line ("SEQ 1MiB (Q= 8, T= 1): ...") among the first lines: the tools' names
    alone do not tell (a text about them names them too)."""
    return any(_RE_TEST.match(line) for line in head.splitlines()[:80])


def _tool(lines: list[str]) -> str | None:
    for line in lines[:10]:
        m = re.search(r"((?:Crystal|K)DiskMark\s*\(?[\d.]+\)?)", line)
        if m:
            return re.sub(r"[()]", "", m.group(1)).strip()
    return None


def read_diskmark(path: str | os.PathLike) -> Curve:
    """A CrystalDiskMark or KDiskMark text result -> a Curve, one point per test line (see
    the module documentation)."""
    lines = split_lines(read_text(path))
    tool = _tool(lines)
    span = None
    for line in lines:
        m = re.match(r"^\s*Test\s*:\s*(?P<size>\d+(?:\.\d+)?\s*[KMGT]i?B)\b", line)
        if m:
            try:
                span = parse_size(m.group("size").replace(" ", ""))
            except UnitError:
                span = None
    section, mix = None, None
    points = []
    for i, line in enumerate(lines, 1):
        m = _RE_SECTION.match(line)
        if m:
            section = m.group("name")
            got = _RE_MIX.search(m.group("rest"))
            mix = float(got.group("r")) if got else None
            continue
        m = _RE_TEST.match(line)
        if not m:
            continue
        if section is None:
            raise TraceFormatError(path, i, "a test line before any [Read], [Write] or [Mix] "
                                   "heading: cannot tell its direction")
        points.append(_point(m, section, mix, span, tool, path, i))
    if not points:
        raise TraceFormatError(path, None, "expected CrystalDiskMark or KDiskMark test lines "
                               "such as 'RND 4KiB (Q= 32, T= 1): 188.997 MB/s [ 46141.8 "
                               "IOPS] < 683.02 us>'")
    return Curve(points, label=Path(path).name)


def _point(m: re.Match, section: str, mix: float | None, span: float | None,
           tool: str | None, path, line: int) -> Results:
    f = _RE_FIGURES.match(m.group("rest").strip())
    if not f:
        raise TraceFormatError(path, line, "expected 'MB/s [ IOPS] < latency us>' after the "
                               "test (CrystalDiskMark 6 and older print MB/s only: no IOPS or "
                               f"latency to fit), got {m.group('rest').strip()!r}")
    seq = m.group("kind") in ("SEQ", "Sequential")
    if section == "Mix":
        if mix is None:
            raise TraceFormatError(path, line, "a [Mix] test without 'Read N%' in its "
                                   "heading: cannot tell its read share")
        rw = "rw" if seq else "randrw"
    else:
        rw = ("read" if section == "Read" else "write") if seq else \
            ("randread" if section == "Read" else "randwrite")
    try:
        bs = parse_size(m.group("bs").replace(" ", ""))
    except UnitError:
        raise TraceFormatError(path, line, f"block size {m.group('bs')!r}") from None

    def figure(name: str) -> float:
        return num(f.group(name).replace(",", ""), path, line, name, nonneg=True)

    r = Results()
    r.iops = figure("iops")
    r.bandwidth_Bps = figure("mbs") * 1e6
    r.lat_mean_s = figure("lat") * (1e-6 if f.group("unit") == "us" else 1e-3)
    if section == "Read":
        r.read_iops = r.iops
    elif section == "Write":
        r.write_iops = r.iops
    params = {"jobname": f"{m.group('kind')} {m.group('bs')} Q{m.group('q')}T{m.group('t')} "
                         f"{section}",
              "rw": rw, "block_size_bytes": bs, "iodepth": int(m.group("q")),
              "numjobs": int(m.group("t")), "source": f"{Path(path).name}:{line}"}
    if mix is not None and section == "Mix":
        params["rwmixread"] = mix
    if span:
        params["span_bytes"] = span
    if tool:
        params["diskmark_version"] = tool
    r.params = params
    return r

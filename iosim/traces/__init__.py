"""Readers for real storage-benchmark output: fio, vdbench, sysbench, ioping, iostat (and sar),
IOMeter and CrystalDiskMark, and tables of measured points.

Every reader returns the simulator's own types, in SI units (seconds, bytes, bytes/s, IOPS,
utilisation as a fraction), so a measured curve overlays a simulated one without conversion:

==============  ==========================================  ==================================
format          reader                                      returns
==============  ==========================================  ==================================
fio-json        :func:`read_fio_json`                       Curve (one point per job)
fio-text        :func:`read_fio_text`                       Curve
fio-terse       :func:`read_fio_terse`                      Curve
fio-log         :func:`read_fio_log`                        DataFrame (time_s, value, ...)
fio-hist        :func:`read_fio_hist_log`                   DataFrame (one column per bin)
fio-job         :func:`read_fio_job`                        [(jobname, Workload), ...]
vdbench         :func:`read_vdbench`                        Curve (one point per run)
vdbench-parm    :func:`read_vdbench_parm`                   [(run name, Workload), ...]
sysbench        :func:`read_sysbench`                       Curve
ioping          :func:`read_ioping`                         Curve (one point per run)
iostat          :func:`read_iostat`                         DataFrame (device x report)
iometer         :func:`read_iometer`                        Curve
table           :func:`read_table` (a CSV of points)        Curve
diskmark        :func:`read_diskmark` (CrystalDiskMark)     Curve (one point per test line)
==============  ==========================================  ==================================

:func:`read` picks the reader from the file's content (and, failing that, its extension).
Malformed files raise :class:`TraceFormatError` naming the file, the line and what was
expected; files over 256 MiB are refused before they are read.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from . import _common
from ._common import WorkloadList, decode
from .errors import TraceFormatError
from .iometer import read_iometer
from .sysbench import read_sysbench
from .vdbench import read_vdbench, read_vdbench_parm

__all__ = [
    "FORMATS",
    "TraceFormatError",
    "WorkloadList",
    "detect_format",
    "iostat_summary",
    "read",
    "read_fio_hist_log",
    "read_fio_job",
    "read_fio_json",
    "read_fio_log",
    "read_fio_terse",
    "read_fio_text",
    "read_iometer",
    "read_ioping",
    "read_iostat",
    "read_sysbench",
    "read_table",
    "read_diskmark",
    "read_vdbench",
    "read_vdbench_parm",
    "summarize_hist_log",
    "summarize_latency_log",
]

# name -> module: the readers built on pandas load it when first used (pandas and pyarrow
# weigh ~65 MB of memory, which a trace replay does not need)
_LAZY = {
    "read_fio_hist_log": "fio",
    "read_fio_job": "fio",
    "read_fio_json": "fio",
    "read_fio_log": "fio",
    "read_fio_terse": "fio",
    "read_fio_text": "fio",
    "summarize_hist_log": "fio",
    "summarize_latency_log": "fio",
    "read_ioping": "ioping",
    "iostat_summary": "iostat",
    "read_iostat": "iostat",
    "read_table": "table",
    "read_diskmark": "diskmark",
    "BlockTraceSummary": "block_summary",
}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'iosim.traces' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


class _LazyReader:
    """A reader of :data:`FORMATS` whose module loads on the first call."""

    def __init__(self, name: str):
        self.__name__ = name

    def __call__(self, path, *args, **kwargs):
        return __getattr__(self.__name__)(path, *args, **kwargs)

    def __repr__(self) -> str:
        return f"<reader {self.__name__}>"


FORMATS = {
    "fio-json": _LazyReader("read_fio_json"),
    "fio-text": _LazyReader("read_fio_text"),
    "fio-terse": _LazyReader("read_fio_terse"),
    "fio-log": _LazyReader("read_fio_log"),
    "fio-hist": _LazyReader("read_fio_hist_log"),
    "fio-job": _LazyReader("read_fio_job"),
    "vdbench": read_vdbench,
    "vdbench-parm": read_vdbench_parm,
    "sysbench": read_sysbench,
    "ioping": _LazyReader("read_ioping"),
    "iostat": _LazyReader("read_iostat"),
    "iometer": read_iometer,
    "table": _LazyReader("read_table"),
    "diskmark": _LazyReader("read_diskmark"),
}

_SNIFF_BYTES = 256 * 1024
_EXT = {
    ".json": "fio-json",
    ".fio": "fio-job",
    ".job": "fio-job",
    ".ini": "fio-job",
    ".csv": "table",  # IOMeter's results.csv is told by its contents
    ".log": "fio-log",
    ".vdb": "vdbench-parm",
    ".parm": "vdbench-parm",
}

_FIO_TEXT = re.compile(r"^\S.*?: \((?:g=\d+|groupid=\d+, jobs=\d+)\)", re.M)
#: fio terse lines: versions 3 to 5 name the fio version second; version 2 does not
_FIO_TERSE = re.compile(
    r"^(?:[345];fio-|terse_version_[2-5];|2;[^;\n]*;\d+;-?\d+(?:;[^;\n]*){150})", re.M)
_LOG_ROW = re.compile(r"^\s*\d+,\s*-?\d+(?:\.\d+)?,\s*\d+,\s*\d+", re.M)
_VDB_PARM = re.compile(r"^\s*(?:sd|wd|rd|fsd|fwd|hd)=\S", re.M)
_IOPING_RAW = re.compile(r"(?:\d+(?:[ \t]+\d+){9}\s*)+")
_INI_SECTION = re.compile(r"^\s*\[[^\]]+\]\s*$", re.M)
_INI_FIO_KEY = re.compile(
    r"^\s*(?:rw|readwrite|bs|ioengine|iodepth|filename|size|numjobs)\s*=", re.M
)


def _sniff(head: str) -> str | None:
    """The format a file's first bytes look like, or None."""
    stripped = head.lstrip()
    from .diskmark import looks_like_diskmark

    if looks_like_diskmark(head):
        return "diskmark"
    if "'Target Type," in head or "'Access specifications" in head or "'Test Type" in head:
        return "iometer"
    if '"sysstat"' in head:
        return "iostat"
    if re.search(r"^--- .* ioping statistics ---", head, re.M) or (
            stripped.startswith("[") and '"fstype"' in head and '"io"' in head):
        return "ioping"
    if _IOPING_RAW.fullmatch(stripped.rstrip()):
        return "ioping"
    if '"fio version"' in head or ('"jobs"' in head and '"jobname"' in head):
        return "fio-json"
    if _FIO_TERSE.search(head):
        return "fio-terse"
    if _FIO_TEXT.search(head):
        return "fio-text"
    if (
        re.search(r"^sysbench \d", head, re.M)  # the version banner
        or "Operations performed:" in head  # 0.4's summary
        or re.search(r"File operations:\s*\n\s*reads/s:", head)  # 1.0's, without a banner
    ):
        return "sysbench"
    if (
        "Vdbench summary report" in head
        or "Starting RD=" in head
        or re.search(r"^\s*Run totals\s*$", head, re.M)
        or re.search(r"^\s*tod\s+(?:timestamp\s+)?Run\s+Interval", head, re.M)
        or re.search(r"\binterval\s+i/o\s+MB/sec", head)
        or re.search(r"^\d\d:\d\d:\d\d\.\d+\s+avg_\d", head, re.M)
    ):
        return "vdbench"
    if _VDB_PARM.search(head):
        return "vdbench-parm"
    if head.lstrip().startswith("# hostname;interval;timestamp;DEV;") or re.search(
            r"^\d{1,2}:\d{2}:\d{2}(?:\s*[AP]M)?\s+(?:DEV\s.*\btps\b|.*\btps\b.*\sDEV$)",
            head, re.M):
        return "iostat"  # sar -d, sadf -d: read by the iostat reader
    if re.search(r"^Device:?\s", head, re.M) or "extended device statistics" in head or \
            re.search(r"^\s*(?:r/s|tps)\s.*\sDevice$", head, re.M):  # iostat -h
        return "iostat"
    if _INI_SECTION.search(head) and _INI_FIO_KEY.search(head):
        return "fio-job"
    m = _LOG_ROW.search(head)
    if m and stripped[:1].isdigit():
        first = stripped.split("\n", 1)[0]
        return "fio-hist" if first.count(",") > 100 else "fio-log"
    return None


def detect_format(path: str | os.PathLike) -> str | None:
    """The format name :func:`read` would use for ``path``, or None when nothing fits."""
    p = Path(path)
    data = _common.read_bytes(p, head=_SNIFF_BYTES)
    head = decode(data, p)
    fmt = _sniff(head)
    if fmt is None:
        name = p.name.lower()
        if re.search(r"_(?:clat|slat|lat|iops|bw)(?:\.\d+)?\.log$", name):
            fmt = "fio-log"
        elif name.endswith("_hist.log") or re.search(r"_hist\.\d+\.log$", name):
            fmt = "fio-hist"
        else:
            fmt = _EXT.get(p.suffix.lower())
    return fmt


def read(path: str | os.PathLike, format: str = "auto"):
    """Read a benchmark output or job file; ``format`` is one of :data:`FORMATS` or "auto".

    Returns what the format's reader returns (see the module documentation): a Curve for
    results, a DataFrame for iostat and fio logs, a list of ``(name, Workload)`` for job and
    parameter files.
    """
    if format != "auto":
        if format not in FORMATS:
            raise TraceFormatError(
                path, None, f"unknown format {format!r}; known formats: {', '.join(FORMATS)}"
            )
        return FORMATS[format](path)
    fmt = detect_format(path)
    if fmt is None:
        raise TraceFormatError(
            path,
            None,
            "cannot tell what this file is (tried the contents and the extension "
            f"against: {', '.join(FORMATS)}); pass the format (--format on the command line, "
            "format= in Python)",
        )
    return FORMATS[fmt](path)

from .block import BLOCK_FORMATS, detect_block_format, iter_block_trace, read_block_trace  # noqa: E402
from .block_stream import BlockTraceFile  # noqa: E402
from .blocktrace import BlockTrace  # noqa: E402

__all__ += ["BLOCK_FORMATS", "BlockTrace", "BlockTraceSummary", "detect_block_format",
            "iter_block_trace", "read_block_trace"]
__all__ += ["BlockTraceFile"]

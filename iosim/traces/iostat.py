"""Linux ``iostat`` (sysstat) output, text or ``-o JSON`` -> one DataFrame row per device per
report, plus a :class:`Results` summary per device.

All five Linux column layouts are read by column name: RHEL 5 (``Time:`` lines, no
``r_await``), the old ``avgrq-sz``/``avgqu-sz``/``svctm`` layout (``rkB/s`` or ``rsec/s``),
sysstat 11.7's ``rareq-sz``/``aqu-sz`` with ``svctm``, and 12.x's with discard (``d/s``) and
flush (``f/s``) columns; plain ``iostat`` without ``-x`` (``tps``) too; and sysstat 12's ``-h``
(column groups, the device name last) and ``--human`` (sizes as bytes with a binary suffix,
percentages with ``%``). Conversions: kB means
KiB and MB MiB (sysstat's units), sectors are 512 bytes (``rsec/s``, ``avgrq-sz``), times are ms
and ``%util`` becomes a fraction. Solaris ``iostat -x`` has different columns and is refused.

DataFrame columns (SI; absent when the layout lacks them): ``sample`` (report number, 0 is
the since-boot report), ``time`` (the report's timestamp as printed), ``timestamp`` (parsed,
NaT when the format is unknown), ``device``, ``r_iops``, ``w_iops``, ``d_iops``, ``f_iops``,
``tps``, ``block_iops`` (r + w, or tps), ``read_Bps``, ``write_Bps``, ``discard_Bps``,
``rrqm_per_s``, ``wrqm_per_s``, ``avgrq_bytes``, ``rareq_bytes``, ``wareq_bytes``,
``aqu_sz``, ``await_s``, ``r_await_s``, ``w_await_s``, ``d_await_s``, ``f_await_s``,
``svctm_s``, ``util``.
"""

from __future__ import annotations

import json
import math
import os
import re
from datetime import datetime
from pathlib import Path

import numpy as np
import pandas as pd

from ..results import Results
from ._common import num, read_text, split_lines
from .errors import TraceFormatError

__all__ = ["read_iostat", "iostat_summary"]

_K = 1024.0
_M = 1024.0**2
# column name -> (our column, factor to SI)
_COLS: dict[str, tuple[str, float]] = {
    "r/s": ("r_iops", 1.0),
    "w/s": ("w_iops", 1.0),
    "d/s": ("d_iops", 1.0),
    "f/s": ("f_iops", 1.0),
    "tps": ("tps", 1.0),
    "rrqm/s": ("rrqm_per_s", 1.0),
    "wrqm/s": ("wrqm_per_s", 1.0),
    "drqm/s": ("drqm_per_s", 1.0),
    "%rrqm": ("rrqm_frac", 0.01),
    "%wrqm": ("wrqm_frac", 0.01),
    "%drqm": ("drqm_frac", 0.01),
    "rrqm": ("rrqm_frac", 0.01),
    "wrqm": ("wrqm_frac", 0.01),
    "drqm": ("drqm_frac", 0.01),
    "rkb/s": ("read_Bps", _K),
    "wkb/s": ("write_Bps", _K),
    "dkb/s": ("discard_Bps", _K),
    "rmb/s": ("read_Bps", _M),
    "wmb/s": ("write_Bps", _M),
    "dmb/s": ("discard_Bps", _M),
    "rsec/s": ("read_Bps", 512.0),
    "wsec/s": ("write_Bps", 512.0),
    "kb_read/s": ("read_Bps", _K),
    "kb_wrtn/s": ("write_Bps", _K),
    "kb_dscd/s": ("discard_Bps", _K),
    "mb_read/s": ("read_Bps", _M),
    "mb_wrtn/s": ("write_Bps", _M),
    "mb_dscd/s": ("discard_Bps", _M),
    "blk_read/s": ("read_Bps", 512.0),
    "blk_wrtn/s": ("write_Bps", 512.0),
    "kb_read": ("read_bytes", _K),
    "kb_wrtn": ("write_bytes", _K),
    "kb_dscd": ("discard_bytes", _K),
    "mb_read": ("read_bytes", _M),
    "mb_wrtn": ("write_bytes", _M),
    "mb_dscd": ("discard_bytes", _M),
    "blk_read": ("read_bytes", 512.0),
    "blk_wrtn": ("write_bytes", 512.0),
    "rd_sec/s": ("read_Bps", 512.0),  # sar -d before sysstat 11.5
    "wr_sec/s": ("write_Bps", 512.0),
    "areq-sz": ("avgrq_bytes", _K),  # sar -d: the mean request, reads and writes, in kB
    "avgrq-sz": ("avgrq_bytes", 512.0),
    "rareq-sz": ("rareq_bytes", _K),
    "wareq-sz": ("wareq_bytes", _K),
    "dareq-sz": ("dareq_bytes", _K),
    "avgqu-sz": ("aqu_sz", 1.0),
    "aqu-sz": ("aqu_sz", 1.0),
    "await": ("await_s", 1e-3),
    "r_await": ("r_await_s", 1e-3),
    "w_await": ("w_await_s", 1e-3),
    "d_await": ("d_await_s", 1e-3),
    "f_await": ("f_await_s", 1e-3),
    "svctm": ("svctm_s", 1e-3),
    "%util": ("util", 0.01),
    "util": ("util", 0.01),
}
#: ``sadf -j`` (sar's JSON) names beside iostat's: per-second amounts without the "/s"
_SADF_JSON: dict[str, tuple[str, float]] = {
    "rkb": ("read_Bps", _K), "wkb": ("write_Bps", _K), "dkb": ("discard_Bps", _K),
    "rd_sec": ("read_Bps", 512.0), "wr_sec": ("write_Bps", 512.0),
    "dc_sec": ("discard_Bps", 512.0), "util-percent": ("util", 0.01),
}
_SOLARIS = {"kr/s", "kw/s", "actv", "svc_t", "%b", "%w", "wsvc_t", "asvc_t"}

_TS_FORMATS = (
    "%m/%d/%Y %I:%M:%S %p",
    "%m/%d/%y %I:%M:%S %p",
    "%m/%d/%Y %H:%M:%S",
    "%m/%d/%y %H:%M:%S",
    "%d/%m/%Y %H:%M:%S",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%dT%H:%M:%S%z",
    "%Y-%m-%dT%H:%M:%S",
)
_RE_TS = re.compile(r"^(\d{1,4}[/-]\d{1,2}[/-]\d{1,4}[ T]\d{1,2}:\d{2}:\d{2}(?:\s*[AP]M)?\S*)$")
_RE_TIME_ONLY = re.compile(r"^(?:Time|時間|时间)\s*[:：]\s*(.+)$")
_RE_JA_TIME = re.compile(r"(\d{1,2})時(\d{1,2})分(\d{1,2})秒")


def _parse_ts(s: str | None):
    if not s:
        return None
    s = s.strip()
    for fmt in _TS_FORMATS:
        try:
            return datetime.strptime(s, fmt)
        except ValueError:
            continue
    return None


def read_iostat(path: str | os.PathLike) -> pd.DataFrame:
    """iostat text or JSON -> DataFrame (one row per device per report); see the module
    documentation for the columns. ``df.attrs`` has ``host`` and ``source``."""
    from .sar import looks_like_sar, read_sar_rows

    text = read_text(path)
    if text.lstrip().startswith("{"):
        rows, attrs = _read_json(text, path)
    elif looks_like_sar(text[:65536]):
        rows, attrs = read_sar_rows(text, path, _COLS)
    else:
        rows, attrs = _read_text(text, path)
    if not rows:
        raise TraceFormatError(path, None, "expected iostat device reports; found none")
    df = pd.DataFrame(rows)
    _derive(df)
    ts = [_parse_ts(t) if isinstance(t, str) else None for t in df["time"]]
    if any(t is not None and t.tzinfo is not None for t in ts):
        ts = [t.replace(tzinfo=None) if t is not None else None for t in ts]
    df["timestamp"] = pd.to_datetime(pd.Series(ts, dtype="object"))
    front = ["sample", "time", "timestamp", "device"]
    df = df[front + [c for c in df.columns if c not in front]]
    attrs["source"] = Path(path).name
    df.attrs.update(attrs)
    return df


def _derive(df: pd.DataFrame) -> None:
    """block_iops, avgrq_bytes and await_s where the layout did not print them."""
    if "r_iops" in df and "w_iops" in df:
        df["block_iops"] = df["r_iops"] + df["w_iops"]
    elif "tps" in df:
        df["block_iops"] = df["tps"]
    ios = df["block_iops"] if "block_iops" in df else None
    if ios is not None and "r_iops" in df and "w_iops" in df:
        safe = ios.where(ios > 0)
        if "avgrq_bytes" not in df:
            if "rareq_bytes" in df and "wareq_bytes" in df:
                df["avgrq_bytes"] = (
                    (df["r_iops"] * df["rareq_bytes"] + df["w_iops"] * df["wareq_bytes"]) / safe
                ).fillna(0.0)
            elif "read_Bps" in df and "write_Bps" in df:
                df["avgrq_bytes"] = ((df["read_Bps"] + df["write_Bps"]) / safe).fillna(0.0)
        if "await_s" not in df and "r_await_s" in df and "w_await_s" in df:
            df["await_s"] = (
                (df["r_iops"] * df["r_await_s"] + df["w_iops"] * df["w_await_s"]) / safe
            ).fillna(0.0)


#: ``iostat -h`` / ``--human``: sizes as bytes with a binary suffix (``7.8M``, ``6.3k``, the
#: column's kB or sectors no longer apply) and percentages with a ``%``
_HUMAN_SIZE = re.compile(r"(\d+(?:\.\d+)?)([BkMGTP])")
_HUMAN_UNIT = {"B": 1.0, "k": _K, "M": _M, "G": _K**3, "T": _K**4, "P": _K**5}


def _value(tok: str, h: tuple[str, float], path, line: int) -> float:
    """One iostat cell in SI units (``h``: our column and the factor of the column's unit)."""
    name, factor = h
    m = _HUMAN_SIZE.fullmatch(tok)
    if m and (name.endswith("_Bps") or name.endswith("_bytes")):
        return float(m.group(1)) * _HUMAN_UNIT[m.group(2)]
    if tok.endswith("%") and factor == 0.01:
        tok = tok[:-1]
    return num(tok, path, line, name, nonneg=True) * factor


def _read_text(text: str, path) -> tuple[list[dict], dict]:
    lines = split_lines(text)
    rows: list[dict] = []
    attrs: dict = {}
    header: list[tuple[str, float] | None] | None = None
    pending_time: str | None = None
    sample = -1
    date = None
    name_last = False  # iostat -h puts the device name last
    group_rows: dict | None = None  # iostat -h: the report's rows a later column group adds to
    last_header_at = -9
    for i, raw in enumerate(lines, 1):
        line = raw.rstrip()
        s = line.strip()
        if not s:
            header = (
                None if header is not None and rows and rows[-1]["sample"] == sample else header
            )
            continue
        if "extended device statistics" in s:
            raise TraceFormatError(
                path,
                i,
                "Solaris iostat output (columns r/s w/s kr/s kw/s wait actv svc_t %w "
                "%b): only Linux sysstat iostat is supported",
            )
        if s.startswith("Linux ") and i <= 3:
            attrs["banner"] = s
            m = re.search(r"\(([^)]+)\)", s)
            if m:
                attrs["host"] = m.group(1)
            m = re.search(r"\s(\d{1,2}/\d{1,2}/\d{2,4})\s", s + " ")
            if m:
                date = m.group(1)
            m = re.search(r"(\d{4})年(\d{1,2})月(\d{1,2})日", s)
            if m:
                date = f"{m.group(2)}/{m.group(3)}/{m.group(1)}"
            continue
        if _RE_TS.match(s):
            pending_time = s
            continue
        m = _RE_TIME_ONLY.match(s)
        if m:
            t = m.group(1).strip()
            jm = _RE_JA_TIME.search(t)
            if jm:
                t = "{}:{}:{}".format(*jm.groups())
            pending_time = f"{date} {t}" if date else t
            continue
        low = s.lower()
        if low.startswith("avg-cpu"):
            continue
        toks = s.split()
        device_last = len(toks) > 1 and toks[-1].lower().rstrip(":") == "device" \
            and not low.startswith("device")
        if device_last and name_last and last_header_at == i - 2 and \
                not any(n in ("r/s", "tps") for n in low.split()):
            # ``iostat -h``: a report's columns in groups (reads, writes, discards, flushes),
            # each with the device last; a group after the first adds to the same rows
            header = [_COLS.get(t.lower()) for t in toks[:-1]]
            group_rows = {r["device"]: r for r in rows if r["sample"] == sample}
            last_header_at = i
            continue
        if low.startswith("device") or device_last:
            names = [t.lower() for t in (toks[:-1] if device_last else toks[1:])]
            if _SOLARIS & set(names):
                raise TraceFormatError(
                    path,
                    i,
                    "Solaris iostat output (columns kr/s, actv, svc_t, %b): only "
                    "Linux sysstat iostat is supported",
                )
            header = []
            for nm in names:
                header.append(_COLS.get(nm))
            if not any(h and h[0] in ("r_iops", "tps") for h in header):
                raise TraceFormatError(
                    path, i, f"iostat device header without r/s or tps columns: {s!r}"
                )
            sample += 1
            group_rows, last_header_at, name_last = None, i, device_last
            continue
        if header is None:
            # avg-cpu numbers, or anything else outside a device block
            continue
        if len(toks) != len(header) + 1:
            raise TraceFormatError(
                path,
                i,
                f"iostat row for {toks[0]!r} has {len(toks) - 1} values, the header "
                f"{len(header)} columns",
            )
        device, values = (toks[-1], toks[:-1]) if name_last else (toks[0], toks[1:])
        device = device.rstrip(":")
        if group_rows is not None:
            row = group_rows.get(device)
            if row is None:
                raise TraceFormatError(path, i, f"iostat -h group row for {device!r}, a device "
                                       "the report's first group does not list")
        else:
            row = {"sample": sample, "time": pending_time, "device": device}
            rows.append(row)
        for tok, h in zip(values, header, strict=True):
            if h is not None:
                row[h[0]] = _value(tok.replace(",", "."), h, path, i)
        last_header_at = i
    return rows, attrs


def _read_json(text: str, path) -> tuple[list[dict], dict]:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        line = text.count("\n", 0, exc.pos) + 1
        raise TraceFormatError(path, line, f"iostat JSON: {exc.msg}") from None
    try:
        hosts = doc["sysstat"]["hosts"]
        if not isinstance(hosts, list):
            raise TypeError
    except (KeyError, TypeError):
        raise TraceFormatError(
            path, 1, 'expected iostat JSON with "sysstat": {"hosts": [...]}'
        ) from None
    rows: list[dict] = []
    attrs: dict = {}
    sample = -1
    for h, host in enumerate(hosts):
        if not isinstance(host, dict):
            raise TraceFormatError(path, None, f"sysstat.hosts[{h}]: expected an object")
        attrs.setdefault("host", host.get("nodename"))
        date = host.get("date")
        stats = host.get("statistics") or []
        if not isinstance(stats, list):
            raise TraceFormatError(path, None, f"sysstat.hosts[{h}].statistics: expected a list")
        for k, st in enumerate(stats):
            if not isinstance(st, dict):
                raise TraceFormatError(
                    path, None, f"sysstat.hosts[{h}].statistics[{k}]: expected an object"
                )
            disks = st.get("disk")
            if disks is None:
                continue
            if not isinstance(disks, list):
                raise TraceFormatError(
                    path, None, f"sysstat.hosts[{h}].statistics[{k}].disk: expected a list"
                )
            sample += 1
            ts = st.get("timestamp")
            when = None
            if isinstance(ts, dict):  # sadf -j: {"date": ..., "time": ..., "utc": ...}
                ts = f"{ts.get('date', '')} {ts.get('time', '')}".strip() or None
                attrs["first_since_boot"] = False  # sar's intervals: none since boot
            if isinstance(ts, str):
                when = ts if ("-" in ts[:5] or not date) else f"{date} {ts}"
                when = re.sub(r"([+-]\d{2}):?(\d{2})$", r"\1\2", when) if "T" in when else when
            for j, d in enumerate(disks):
                if isinstance(d, dict) and "disk-device" in d:  # sadf -j
                    d = {"disk_device": d["disk-device"],
                         **{k: v for k, v in d.items() if k != "disk-device"}}
                if not isinstance(d, dict) or "disk_device" not in d:
                    raise TraceFormatError(
                        path,
                        None,
                        f"sysstat.hosts[{h}].statistics[{k}].disk[{j}]: expected an object with "
                        '"disk_device"',
                    )
                row: dict = {
                    "sample": sample,
                    "time": when,
                    "device": str(d["disk_device"]).strip(),
                }
                for key, v in d.items():
                    spec = _COLS.get(key.lower()) or _SADF_JSON.get(key.lower())
                    if spec is None:
                        continue
                    if (isinstance(v, bool) or not isinstance(v, (int, float))
                            or not (math.isfinite(v) and v >= 0)):
                        raise TraceFormatError(
                            path,
                            None,
                            f"disk {row['device']!r} {key}: expected a number >= 0, got {v!r}",
                        )
                    row[spec[0]] = float(v) * spec[1]
                rows.append(row)
    return rows, attrs


def iostat_summary(
    df: pd.DataFrame | str | os.PathLike, skip_first: bool | None = None
) -> dict[str, Results]:
    """Per device, the reports averaged into one Results: ``block_iops``, ``bandwidth_Bps``,
    ``avgrq_bytes`` (request-weighted mean of the printed request size, else bytes over
    requests), ``block_lat_mean_s`` (request-weighted ``await``), ``aqu_sz`` and ``util``
    (time averages).

    iostat's first report covers the time since boot; ``skip_first`` (default: when there
    is more than one report) leaves it out.
    """
    if not isinstance(df, pd.DataFrame):
        df = read_iostat(df)
    samples = sorted(df["sample"].unique())
    if skip_first is None:
        skip_first = len(samples) > 1
    use = df[df["sample"] != samples[0]] if skip_first and len(samples) > 1 else df
    out: dict[str, Results] = {}
    for dev, g in use.groupby("device", sort=False):
        res = Results()
        ios = g["block_iops"].to_numpy(float) if "block_iops" in g else None
        if ios is not None:
            res.block_iops = float(ios.mean())
        bw = None
        if "read_Bps" in g or "write_Bps" in g:
            bw = g.get("read_Bps", 0.0) + g.get("write_Bps", 0.0)
            res.bandwidth_Bps = float(np.mean(bw))
        if ios is not None and ios.sum() > 0:
            if "avgrq_bytes" in g:  # as printed, request-weighted
                res.avgrq_bytes = float(np.sum(g["avgrq_bytes"].to_numpy(float) * ios) / ios.sum())
            elif bw is not None:
                res.avgrq_bytes = float(np.sum(bw) / ios.sum())
            if "await_s" in g:
                res.block_lat_mean_s = float(np.sum(g["await_s"].to_numpy(float) * ios) / ios.sum())
        if "aqu_sz" in g:
            res.aqu_sz = float(g["aqu_sz"].mean())
        if "util" in g:
            res.util = float(g["util"].mean())
        res.params = {"device": str(dev), "source": df.attrs.get("source")}
        res.extra = {"samples": int(g["sample"].nunique()), "skipped_first": bool(skip_first)}
        if "r_iops" in g:
            res.extra["r_per_s"] = float(g["r_iops"].mean())
            res.extra["w_per_s"] = float(g["w_iops"].mean())
        out[str(dev)] = res
    return out

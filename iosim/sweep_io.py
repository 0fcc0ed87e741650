"""Sweep grids and sweep output: dotted-key values read back in SI, and JSON / CSV / Parquet.

* :func:`canonical_values` reads each ``--vary`` (or plan ``--search``) value the way the stack
  schema does, so ``workload.block_size_bytes=4k,8k`` is recorded as 4096.0 and 8192.0 and an
  unknown key or a bad value is reported before any simulation starts.
* :func:`records` / :func:`to_frame` turn a :class:`~iosim.results.Curve` into the rows of the CLI
  contract (the JSON keys of ``iosim run --json`` plus the workload descriptors and the varied
  keys), one row per point.
* :func:`write` writes those rows as JSON, CSV or Parquet; :func:`read` reads any of them back
  (``iosim report`` uses it). Parquet needs ``pyarrow`` (or ``fastparquet``); without it
  :func:`check_format` fails loudly, naming what to install, before a sweep starts.
"""

from __future__ import annotations

import importlib.util
import io
import json
import math
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from . import limits
from .spec import SpecError
from .stack import Stack, apply_overrides
from .workload import Workload

if TYPE_CHECKING:  # pandas loads with the first file written or read, not with `iosim --help`
    import pandas as pd

    from .results import Curve

__all__ = [
    "FORMATS",
    "canonical_values",
    "read_key",
    "records",
    "to_frame",
    "check_format",
    "format_from_path",
    "write",
    "read",
]

FORMATS = ("json", "csv", "parquet")
_SUFFIXES = {".json": "json", ".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}


# -- dotted keys ----------------------------------------------------------------------------


def read_key(stack: Stack, workload: Workload | None, key: str) -> Any:
    """The value at a dotted key, as the schema stores it (SI numbers, distribution specs)."""
    parts = key.split(".")
    if parts[0] == "workload":
        table: Any = (workload or Workload()).to_dict()
        parts = parts[1:]
    else:
        table = stack.to_dict()
    for p in parts:
        if not isinstance(table, dict) or p not in table:
            return None
        table = table[p]
    return table


def canonical_values(
    stack: Stack, workload: Workload | None, key: str, values: Iterable[Any]
) -> list[Any]:
    """Each value of ``key`` as the schema reads it (``"4k"`` -> 4096.0, ``"2"`` -> 2).

    A value that cannot be applied on its own (it may depend on another varied key) is kept
    as given; the full grid is validated point by point later. An unknown key raises
    :class:`SpecError` at once.
    """
    out = []
    first_error: SpecError | None = None
    for v in values:
        try:
            s, w = apply_overrides(stack, workload, {key: v})
        except SpecError as exc:
            if "unknown key" in str(exc):
                raise
            first_error = first_error or exc
            out.append(v)
            continue
        got = read_key(s, w, key)
        out.append(v if got is None else got)
    if first_error is not None and all(isinstance(v, str) for v in out):
        # nothing could be applied: report the first problem now rather than later
        raise first_error
    return out


# -- rows -----------------------------------------------------------------------------------


def records(curve: Curve) -> list[dict]:
    """The CLI contract's rows: ``Results.to_dict()`` of every point (keys absent if unknown)."""
    return curve.to_records()


def to_frame(curve: Curve | Sequence[dict]) -> pd.DataFrame:
    """One row per point, contract keys first, then workload descriptors and varied keys."""
    from .results import Curve

    rows = records(curve) if isinstance(curve, Curve) else list(curve)
    cols: list[str] = []
    import pandas as pd

    for r in rows:
        for k in r:
            if k not in cols:
                cols.append(k)
    return pd.DataFrame(rows, columns=cols)


# -- formats --------------------------------------------------------------------------------


def format_from_path(path: str | Path | None, fmt: str | None = None) -> str | None:
    """The output format: ``fmt`` if given, else from the file's suffix, else None (text)."""
    if fmt is not None:
        if fmt not in FORMATS:
            raise SpecError(f"--format must be one of {', '.join(FORMATS)} (got {fmt!r})")
        return fmt
    if path is None:
        return None
    suffix = Path(path).suffix.lower()
    if suffix not in _SUFFIXES:
        raise SpecError(
            f"cannot tell the format of {str(path)!r} from its suffix; use .json, .csv or "
            ".parquet, or give --format json|csv|parquet"
        )
    return _SUFFIXES[suffix]


def _parquet_engine() -> str | None:
    for name in ("pyarrow", "fastparquet"):
        if importlib.util.find_spec(name) is not None:
            return name
    return None


def check_format(fmt: str | None, path: str | Path | None) -> None:
    """Fail before a long run if the output cannot be written (missing Parquet engine, ...)."""
    if fmt == "parquet":
        if _parquet_engine() is None:
            raise SpecError(
                "writing Parquet needs pyarrow, which is not installed: pip install pyarrow "
                "(or write .csv / .json)"
            )
        if path is None or str(path) == "-":
            raise SpecError("Parquet is binary: give a file with --output FILE.parquet")
    if path is not None and str(path) != "-":
        parent = Path(path).parent
        if not parent.is_dir():
            raise SpecError(f"--output {str(path)!r}: directory {str(parent)!r} does not exist")


def _json_safe(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def write(
    curve: Curve | Sequence[dict],
    fmt: str,
    path: str | Path | None = None,
    stream: IO[str] | None = None,
) -> None:
    """Write the sweep's rows as ``fmt`` to ``path`` (or to ``stream``/stdout for json, csv)."""
    check_format(fmt, path)
    from .results import Curve

    rows = records(curve) if isinstance(curve, Curve) else list(curve)
    to_stdout = path is None or str(path) == "-"
    if fmt == "json":
        text = json.dumps([{k: _json_safe(v) for k, v in r.items()} for r in rows])
        if to_stdout:
            print(text, file=stream or sys.stdout)
        else:
            Path(path).write_text(text + "\n", encoding="utf-8")
        return
    df = to_frame(rows)
    if fmt == "csv":
        if to_stdout:
            (stream or sys.stdout).write(df.to_csv(index=False))
        else:
            df.to_csv(path, index=False)
        return
    if fmt == "parquet":
        # object columns of mixed types (e.g. a varied distribution spec) as strings
        for c in df.columns:
            if df[c].dtype == object:
                df[c] = df[c].map(lambda v: v if v is None or isinstance(v, str) else str(v))
        df.to_parquet(path, index=False, engine=_parquet_engine())
        return
    raise SpecError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")


def read(path: str | Path) -> list[dict] | dict:
    """Read a sweep (JSON list, CSV, Parquet) as rows, or a JSON object (a fit) as is."""
    import pandas as pd

    p = Path(path)
    suffix = p.suffix.lower()
    if suffix in (".parquet", ".pq"):
        limits.read_bytes(p, what="a sweep", error=_input_error, head=0)  # regular, capped
        if _parquet_engine() is None:
            raise SpecError(f"{p}: reading Parquet needs pyarrow: pip install pyarrow")
        df = pd.read_parquet(p)
        return _frame_rows(df)
    text = limits.read_text(p, what="a sweep or fit", error=_input_error)
    stripped = text.lstrip()
    if suffix == ".json" or stripped.startswith(("[", "{")):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SpecError(f"{p}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
        except RecursionError:
            raise SpecError(f"{p}: nested too deeply to read as a sweep or fit") from None
        try:
            limits.check_depth(data, str(p))
        except limits.LimitError as exc:
            raise SpecError(str(exc)) from None
        if isinstance(data, dict) or (
            isinstance(data, list) and all(isinstance(r, dict) for r in data)
        ):
            return data
        raise SpecError(f"{p}: expected a list of records (a sweep) or an object (a fit)")
    first = stripped.splitlines()[0] if stripped else ""
    if suffix == ".csv" or "," in first:
        try:
            df = pd.read_csv(io.StringIO(text))
        except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
            raise SpecError(f"{p}: not a readable CSV file ({exc})") from None
        return _frame_rows(df)
    raise SpecError(f"{p}: expected a sweep as .json, .csv or .parquet, or a fit as .json")


def _input_error(where: str, reason: str) -> SpecError:
    return SpecError(f"{where}: {reason}")


def _frame_rows(df: pd.DataFrame) -> list[dict]:
    rows = []
    for rec in df.to_dict(orient="records"):
        rows.append({k: v for k, v in rec.items() if not _is_missing(v)})
    return rows


def _is_missing(v: Any) -> bool:
    try:
        return v is None or (isinstance(v, float) and math.isnan(v))
    except TypeError:  # pragma: no cover
        return False

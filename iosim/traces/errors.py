"""The one exception every trace parser raises for a file it cannot read."""

from __future__ import annotations

import os

__all__ = ["TraceFormatError"]


class TraceFormatError(ValueError):
    """A trace file is malformed, truncated or of an unexpected kind.

    The message names the file, the line (1-based, when known) and what was expected, e.g.
    ``data/x.json:12: expected fio JSON with a "jobs" list``. The parts are also kept as
    attributes: ``path``, ``line`` and ``reason``.
    """

    def __init__(self, path: str | os.PathLike | None, line: int | None, reason: str):
        self.path = None if path is None else os.fspath(path)
        self.line = line
        self.reason = reason
        where = self.path or "<input>"
        if line is not None:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {reason}")

    def __reduce__(self):  # keep pickling (multiprocessing, dask) working
        return (type(self), (self.path, self.line, self.reason))

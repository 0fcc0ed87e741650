"""The preset catalogue: TOML stack files shipped with iosim, each naming its sources.

``iosim presets`` lists them; ``load("allflash-lun-qd4")`` returns ``(Stack, Workload | None)``
(the workload of the experiment the preset reproduces, when the file has one).
"""

from __future__ import annotations

import difflib
import tomllib
from dataclasses import replace
from importlib import resources
from typing import TYPE_CHECKING

from ..spec import SpecError

if TYPE_CHECKING:  # the stack machinery loads with the first preset, not with the CLI's help
    from ..stack import Stack
    from ..workload import Workload

__all__ = ["names", "load", "stack", "catalogue", "calibration", "source", "DEFAULT"]

DEFAULT = "allflash-lun-qd4"


def _files() -> dict[str, object]:
    root = resources.files(__name__)
    return {p.name[:-5]: p for p in root.iterdir() if p.name.endswith(".toml")}


def names() -> list[str]:
    return sorted(_files())


def load(name: str) -> tuple[Stack, Workload | None]:
    from ..stack import load_toml

    files = _files()
    if name not in files:
        raise SpecError(unknown_message(name, sorted(files)))
    with resources.as_file(files[name]) as path:
        stack, wl = load_toml(path)
    if not stack.name:
        stack = replace(stack, name=name)
    return stack, wl


def source(name: str) -> str:
    """The preset's stack file as shipped (its comments say where each figure comes from): a
    starting point for a stack file of one's own (``iosim run --stack FILE``)."""
    files = _files()
    if name not in files:
        raise SpecError(unknown_message(name, sorted(files)))
    return files[name].read_text(encoding="utf-8")


def unknown_message(name: str, known: list[str]) -> str:
    """"unknown preset 'hdd-720'; did you mean hdd-7200? (all: ...)"."""
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    if not close:  # "7200" or "nvme": a part of a name
        close = [k for k in known if name.lower() in k.lower()][:3]
    if close:
        return (
            f"unknown preset {name!r}; did you mean {', '.join(close)}? "
            "(`iosim presets` lists them all)"
        )
    return f"unknown preset {name!r}; known presets: {', '.join(known)}"


def stack(name: str = DEFAULT) -> Stack:
    """Just the stack of a preset."""
    return load(name)[0]


def catalogue() -> list[tuple[str, str]]:
    """(name, one-line description) of every preset."""
    out = []
    for name, path in sorted(_files().items()):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        out.append((name, str(data.get("description", ""))))
    return out


def calibration(name: str) -> dict:
    """The preset's ``[calibration]`` table: ``summary`` (one line) and, per fitted parameter
    (a dotted key), ``{"data": experiment, "points": [labels], "how": ..., "metrics": [...]}``
    (``metrics`` absent: every metric of those points was fitted)."""
    files = _files()
    if name not in files:
        load(name)  # the unknown-preset message
    data = tomllib.loads(files[name].read_text(encoding="utf-8"))
    return dict(data.get("calibration", {}))

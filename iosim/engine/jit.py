"""Announce a numba compile before it starts, so a minute of silence is never a mystery."""

from __future__ import annotations

import sys

__all__ = ["announce_compile", "compile_pending", "ANNOUNCE"]

#: set to False by a caller that has already told the user (``iosim.warmup`` at set-up)
ANNOUNCE = True


def compile_pending(dispatcher) -> bool:
    """True when calling this numba dispatcher will compile (nothing loaded, nothing cached)."""
    if dispatcher.signatures:
        return False
    try:
        return not dispatcher._cache._cache_file._load_index()
    except Exception:  # another numba layout: we cannot tell, so do not announce
        return False


def announce_compile(dispatcher) -> None:
    """Say so on stderr before a compile of a minute or two, instead of a silent wait."""
    if ANNOUNCE and compile_pending(dispatcher):
        print(
            "iosim: compiling the fast engine (once per checkout, a minute or two; "
            "'make lab' and 'make test' do it at set-up)...",
            file=sys.stderr,
            flush=True,
        )

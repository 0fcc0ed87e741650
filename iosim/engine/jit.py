"""Announce a numba compile before it starts, so a minute of silence is never a mystery; and
compile a shared (plain Python) function for the fast engine."""

from __future__ import annotations

import sys
import types

__all__ = ["announce_compile", "compile_pending", "compiled_with", "ANNOUNCE"]

#: set to False by a caller that has already told the user (``iosim.warmup`` at set-up)
ANNOUNCE = True


def compile_pending(dispatcher) -> bool:
    """True when calling this numba dispatcher will compile (nothing loaded, nothing cached)."""
    if dispatcher.overloads:  # (``signatures`` builds a list: this runs before every run)
        return False
    try:
        return not dispatcher._cache._cache_file._load_index()
    except Exception:  # another numba layout: we cannot tell, so do not announce
        return False


#: what the announcement says of the set-up: it compiles these variants (iosim.warmup)
AT_SET_UP = "'make lab' and 'make test' do it at set-up"


def announce_compile(dispatcher, why: str = AT_SET_UP) -> None:
    """Say so on stderr before a compile of a minute or two, instead of a silent wait;
    ``why`` says why now (a variant set-up compiles, or one it leaves to its first use)."""
    if ANNOUNCE and compile_pending(dispatcher):
        print(
            f"iosim: compiling the fast engine (once per checkout, a minute or two; {why})...",
            file=sys.stderr,
            flush=True,
        )


def compiled_with(fn, deps: dict, **options):
    """``fn`` (a plain function that the SimPy model calls as it is) compiled with numba, its
    calls to the functions named in ``deps`` going to their compiled forms: the physics is
    written once and nothing is copied."""
    import numba

    g = dict(fn.__globals__)
    g.update(deps)
    return numba.njit(**options)(types.FunctionType(fn.__code__, g, fn.__name__,
                                                    fn.__defaults__))

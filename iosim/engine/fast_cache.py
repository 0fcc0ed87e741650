"""The fast engine's compile cache, keyed on every file the kernel compiles in.

numba keys a cached function on the source of the file that defines it; the kernel and the
family step functions also compile in functions from other files (the physics, the shared
helpers), so a change there would leave stale machine code. The locator installed here keys
the cached functions of the kernel's module (:mod:`iosim.engine.fast`), and of any family step
module (``fast_*_steps.py``) that caches functions of its own, on all of those files
(:data:`DEPENDS`). A module whose functions use it imports this one before it
defines them (the locator is chosen when a function is decorated).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba

__all__ = ["DEPENDS", "SERVED", "source_stamp"]

_ENGINE = Path(__file__).resolve().parent
_IOSIM = _ENGINE.parent
#: the modules whose functions are cached under the locator below
SERVED = frozenset([_ENGINE / "fast.py", *_ENGINE.glob("fast_*_steps.py")])
#: every source file a cached function compiles in
DEPENDS = sorted({
    *_ENGINE.glob("fast*.py"),
    _ENGINE / "path_choice.py",
    _ENGINE / "pauses.py",
    _ENGINE / "kernel_compiler.py",  # (how the kernel is compiled)
    _ENGINE / "recorder.py",
    _IOSIM / "dists.py",
    _IOSIM / "devices" / "generic.py",
    _IOSIM / "devices" / "cloud.py",
    _IOSIM / "devices" / "ssd.py",
    _IOSIM / "devices" / "hdd.py",
    _IOSIM / "devices" / "raid.py",
    _IOSIM / "devices" / "array.py",
})


def source_stamp(paths) -> str:
    """The compile-cache key: a hash of every source file the kernel compiles in."""
    h = hashlib.sha256()
    for p in paths:
        try:
            h.update(p.read_bytes())
        except OSError:
            h.update(str(p).encode())
    return h.hexdigest()


def _install_cache_locator() -> None:
    try:
        from numba.core import caching

        in_tree = caching.InTreeCacheLocator
        user_dir = caching.UserProvidedCacheLocator
        user_wide = caching.UserWideCacheLocator
        impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
    except (ImportError, AttributeError):  # another numba layout: plain source-keyed caching
        return

    class _DepsLocator(in_tree):
        def get_source_stamp(self):
            return source_stamp(DEPENDS)

        @classmethod
        def from_function(cls, py_func, py_file):
            if Path(py_file).resolve() not in SERVED:
                return None
            self = cls(py_func, py_file)
            candidates = [self._cache_path]
            if numba.config.CACHE_DIR:  # NUMBA_CACHE_DIR wins, as in numba
                candidates = [os.path.join(numba.config.CACHE_DIR,
                                           user_dir.get_suitable_cache_subpath(py_file))]
            else:  # a read-only install: the user-wide cache directory
                candidates.append(user_wide(py_func, py_file).get_cache_path())
            for path in candidates:
                self._cache_path = path
                try:
                    self.ensure_cache_path()
                except OSError:
                    continue
                return self
            return None

    if not any(getattr(c, "__name__", "") == "_DepsLocator" for c in impl._locator_classes):
        impl._locator_classes = [_DepsLocator, *impl._locator_classes]


_install_cache_locator()

"""Explicit random streams, one per named component.

A run's seed and a component's name (``"job"``, ``"device"``, ``"path"`` ...) define that
component's stream, so adding a component, or drawing more numbers in one, never shifts the
numbers another component sees (common random numbers across what-if runs). No global state.
"""

from __future__ import annotations

import zlib

import numpy as np

__all__ = ["stream", "Streams"]


def _key(name: str) -> int:
    return zlib.crc32(name.encode("utf-8"))


def stream(seed: int, name: str, replication: int = 0) -> np.random.Generator:
    """The generator for component ``name`` in replication ``replication`` of run ``seed``."""
    if not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0 (got {seed!r})")
    ss = np.random.SeedSequence(entropy=int(seed), spawn_key=(_key(name), int(replication)))
    return np.random.Generator(np.random.PCG64(ss))


class Streams:
    """Lazily created named streams for one run."""

    def __init__(self, seed: int, replication: int = 0):
        self.seed = seed
        self.replication = replication
        self._cache: dict[str, np.random.Generator] = {}

    def __getitem__(self, name: str) -> np.random.Generator:
        g = self._cache.get(name)
        if g is None:
            g = self._cache[name] = stream(self.seed, name, self.replication)
        return g

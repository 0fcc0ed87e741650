"""iosim: storage I/O as a queueing system you can see.

Describe a workload and a stack, simulate them, compare with theory and with real measurements.
"""

from . import presets, theory
from .dists import parse_dist
from .results import Curve, Results
from .simulate import UnstableError, open_loop_capacity_iops, simulate, sweep
from .spec import SpecError
from .stack import Stack, apply_overrides, dump_toml, load_toml
from .units import UnitError
from .workload import Workload

__version__ = "0.1.0"

__all__ = [
    "Curve",
    "Results",
    "SpecError",
    "Stack",
    "UnitError",
    "UnstableError",
    "Workload",
    "apply_overrides",
    "dump_toml",
    "load_toml",
    "open_loop_capacity_iops",
    "parse_dist",
    "presets",
    "simulate",
    "sweep",
    "theory",
]

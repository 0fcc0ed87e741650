"""iosim: storage I/O as a queueing system you can see.

Describe a workload and a stack, simulate them, compare with theory and with real measurements.
"""

from . import presets, theory, traces
from .claims import check_claim
from .dists import parse_dist
from .export import to_fio_json, write_fio_json
from .fit import FitResult, fit
from .replay import ReplayResult, max_speed, replay
from .results import Curve, Results
from .simulate import UnstableError, open_loop_capacity_iops, simulate, sweep
from .spec import SpecError
from .stack import Stack, apply_overrides, dump_toml, load_toml
from .units import UnitError
from .workload import Workload

__version__ = "0.1.0"


def __getattr__(name: str):
    # plots and widgets pull in plotly and ipywidgets: load them when first used, so scripts
    # and the CLI start quickly
    if name in ("plots", "widgets"):
        import importlib

        module = importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    raise AttributeError(f"module 'iosim' has no attribute {name!r}")


__all__ = [
    "Curve",
    "FitResult",
    "Results",
    "SpecError",
    "Stack",
    "UnitError",
    "UnstableError",
    "Workload",
    "apply_overrides",
    "check_claim",
    "dump_toml",
    "fit",
    "load_toml",
    "open_loop_capacity_iops",
    "parse_dist",
    "plots",
    "presets",
    "ReplayResult",
    "max_speed",
    "replay",
    "simulate",
    "sweep",
    "theory",
    "to_fio_json",
    "traces",
    "widgets",
    "write_fio_json",
]

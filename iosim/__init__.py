"""iosim: storage I/O as a queueing system you can see.

Describe a workload and a stack, simulate them, compare with theory and with real measurements.
"""

import sys as _sys
from types import ModuleType as _ModuleType

__version__ = "0.1.0"

# name -> (module, attribute): loaded when first used, so `import iosim` and `iosim --help`
# start in a fraction of a second instead of waiting for pandas, scipy, numba and plotly
_LAZY = {
    "presets": ("presets", None),
    "theory": ("theory", None),
    "traces": ("traces", None),
    "plots": ("plots", None),
    "widgets": ("widgets", None),
    "check_claim": ("claims", "check_claim"),
    "parse_dist": ("dists", "parse_dist"),
    "to_fio_json": ("export", "to_fio_json"),
    "write_fio_json": ("export", "write_fio_json"),
    "FitResult": ("fit", "FitResult"),
    "fit": ("fit", "fit"),
    "fit_trace": ("fit.trace", "fit_trace"),
    "TraceFit": ("fit.trace", "TraceFit"),
    "Curve": ("results", "Curve"),
    "Results": ("results", "Results"),
    "UnstableError": ("simulate", "UnstableError"),
    "open_loop_capacity_iops": ("simulate", "open_loop_capacity_iops"),
    "simulate": ("simulate", "simulate"),
    "sweep": ("simulate", "sweep"),
    "SpecError": ("spec", "SpecError"),
    "Stack": ("stack", "Stack"),
    "apply_overrides": ("stack", "apply_overrides"),
    "dump_toml": ("stack", "dump_toml"),
    "load_toml": ("stack", "load_toml"),
    "UnitError": ("units", "UnitError"),
    "Workload": ("workload", "Workload"),
    "ReplayResult": ("replay", "ReplayResult"),
    "max_speed": ("replay", "max_speed"),
    "replay": ("replay", "replay"),
}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'iosim' has no attribute {name!r}")
    import importlib

    module_name, attr = _LAZY[name]
    module = importlib.import_module(f".{module_name}", __name__)
    value = module if attr is None else getattr(module, attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


class _Package(_ModuleType):
    """Importing ``iosim.fit``, ``iosim.simulate`` or ``iosim.replay`` binds the submodule to
    the package under the name of the function it defines; the public name stays the function."""

    def __setattr__(self, name, value):
        if name in ("fit", "simulate", "replay") and isinstance(value, _ModuleType):
            value = getattr(value, name)
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package


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
    "fit_trace",
    "TraceFit",
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

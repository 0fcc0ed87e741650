"""Discrete fit parameters (:attr:`~iosim.devices.base.FitParameter.choices`, e.g. a disk's
spindle speed) fitted as a profile.

The continuous parameters are fitted at every combination of the discrete choices, and the
combination the fit's own objective prefers (the smallest rms log error of the fitted points)
is kept. A combination the family rules out is not fitted: its device's floor
(:meth:`~iosim.devices.base.DeviceFamily.fit_floor_s`, a disk's half turn) above the mean
latency measured at one I/O in flight.

The chosen value's 95 % interval is the profile-likelihood one: the choices whose sum of
squared residuals is within ``s² χ²₁(0.95)`` of the best (``s²`` the best fit's residual
variance, at least ``rel_noise²``). When it holds another value, the fitted points do not tell
the two apart, and the fit says so.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

from scipy import stats

from ..spec import SpecError
from ..stack import Stack
from .build import _build_stack
from .catalogue import PARAMETERS
from .result import FitParam, _fmt

__all__ = ["choice_names", "profile", "shown"]


def choice_names(names: Sequence[str]) -> list[str]:
    """The discrete parameters among ``names``."""
    return [n for n in names if PARAMETERS[n].choices]


def shown(name: str, v: float) -> str:
    """A choice's value with its unit (times, rates and counts carry theirs already)."""
    unit = PARAMETERS[name].unit
    return _fmt(v, unit) + (f" {unit}" if unit not in ("", "s", "B/s", "iops") else "")


def _label(combo: dict[str, float]) -> str:
    """How a combination is printed: the value alone for one choice, else name=value pairs."""
    if len(combo) == 1:
        (name, v), = combo.items()
        return shown(name, v)
    return ", ".join(f"{n}={shown(n, v)}" for n, v in combo.items())


def _ruled_out(base: Stack, train: Sequence) -> str | None:
    """Why ``base`` (a combination set on the base stack) cannot fit ``train``: its device's
    floor above the mean latency measured at one I/O in flight; None when it can."""
    ones = [p for p in train if p.n == 1 and not p.workload.open_loop
            and p.measured.get("lat_mean_s")]
    if not ones:
        return None
    floor = base.device.fit_floor_s(ones[0].workload.mean_block_bytes)
    measured = min(p.measured["lat_mean_s"] for p in ones)
    if floor is None or floor <= measured:
        return None
    return (f"its least latency for one request, {_fmt(floor, 's')}, is above the "
            f"{_fmt(measured, 's')} measured at one I/O in flight")


def profile(calibrate: Callable, base: Stack, names: Sequence[str], bnds, n_res: int, dof: int,
            rel_noise: float, train: Sequence, warnings: list[str], notes: list[str]):
    """Fit the discrete parameters ``names`` as a profile: ``calibrate(base, warnings)`` fits
    the rest on a base stack with one combination set and returns (values, FitParams, rms,
    stack). Returns the same for the best combination (its values and FitParams joined by the
    choices'), keeps that fit's warnings in ``warnings`` and says in ``notes`` (one line)
    what was tried."""
    combos = [dict(zip(names, vals, strict=True))
              for vals in itertools.product(*(PARAMETERS[n].choices for n in names))]
    combos = [c for c in combos if all(bnds[n][0] <= v <= bnds[n][1] for n, v in c.items())]
    if not combos:
        raise SpecError(f"fit: no value of {', '.join(names)} lies within the bounds given")
    bases = {i: _build_stack(base, c) for i, c in enumerate(combos)}
    why_not = {i: _ruled_out(b, train) for i, b in bases.items()}
    tried = [i for i in bases if why_not[i] is None] or list(bases)  # all out: try them all
    got: dict[int, tuple] = {}
    errors: dict[int, str] = {}
    for i in tried:
        own: list[str] = []
        try:
            got[i] = (*calibrate(bases[i], own), own)
        except SpecError as exc:
            errors[i] = str(exc)
    if not got:
        raise SpecError(f"fit: no value of {', '.join(names)} could be fitted: "
                        + "; ".join(f"{_label(combos[i])}: {e}" for i, e in errors.items()))
    order = sorted(got, key=lambda i: got[i][2])
    best = order[0]
    values, cov, rms, stack, own = got[best]
    warnings.extend(own)
    # the profile-likelihood interval: combinations within s² χ²₁(0.95) of the best
    ssr = {i: got[i][2] ** 2 * n_res for i in got}
    s2 = max(ssr[best] / dof if dof > 0 else 0.0, rel_noise ** 2)
    within = [i for i in got if ssr[i] <= ssr[best] + s2 * float(stats.chi2.ppf(0.95, 1))]
    values = {**values, **combos[best]}
    cov = dict(cov)
    for n in names:
        d = PARAMETERS[n]
        inside = [combos[i][n] for i in within]
        ci = (min(inside), max(inside))
        cov[n] = FitParam(n, combos[best][n], ci, (d.lo, d.hi), d.unit, False,
                          ci[0] == ci[1], d.doc)
    notes.append(_note(names, combos, got, order, why_not, errors, tried))
    others = [i for i in within if i != best]
    if others:
        warnings.append(
            f"{', '.join(names)}: the fitted points do not tell {_label(combos[best])} from "
            f"{', '.join(_label(combos[i]) for i in others)} (rms log error "
            f"{got[best][2]:.3f} against {', '.join(f'{got[i][2]:.3f}' for i in others)}: "
            "within the noise), so the choice is poorly determined")
    return values, cov, rms, stack


def _note(names, combos, got, order, why_not, errors, tried) -> str:
    """One line: the choice, every fitted combination's objective, the runner-up, and what
    was not fitted and why."""
    best = order[0]
    by = ", ".join(f"{_label(combos[i])}: {got[i][2]:.3f}" for i in sorted(got))
    line = (f"{', '.join(names)}: the data choose {_label(combos[best])} (rms log error of "
            f"the fitted points by value: {by}")
    if len(order) > 1:
        line += f"; runner-up {_label(combos[order[1]])} at {got[order[1]][2]:.3f}"
    line += ")"
    skipped = [f"{_label(combos[i])} ({why_not[i]})" for i in sorted(why_not)
               if i not in tried]
    if skipped:
        line += "; not fitted: " + ", ".join(skipped)
    elif any(why_not.values()):
        line += ("; every value's least latency is above the one measured at one I/O in "
                 "flight, so all were fitted")
    failed = [f"{_label(combos[i])} ({errors[i]})" for i in sorted(errors)]
    if failed:
        line += "; could not be fitted: " + ", ".join(failed)
    return line

"""Service- and overhead-time distributions that carry their own moments.

The simulator samples them and the theory uses their moments (mean, squared coefficient of
variation), so both sides of a comparison are built from the same object. Every distribution
also has a numeric code (``code``, ``params``) so compiled engines can sample it without Python
objects: see :func:`sample_code`.

Text forms (used in TOML files and on the command line)::

    0.46ms                      deterministic
    det:0.46ms                  deterministic
    exp:0.46ms                  exponential with that mean
    lognormal:0.46ms,scv=2      lognormal by mean and squared coefficient of variation
    gamma:0.46ms,scv=0.5        gamma by mean and scv
    uniform:1ms,9ms             uniform between two times
    empirical:FILE              samples read from FILE (one time per line, with its unit)
    quantiles:50=39us,99=354us,100=15ms
                                a measured distribution by its percentiles (percent=time):
                                between them the time is interpolated on a log scale, below
                                the first it is the first; ``fit --shape measured`` writes one
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from . import limits
from .units import UnitError, format_number_exact, format_time_exact, parse_time

__all__ = [
    "Distribution",
    "Deterministic",
    "Exponential",
    "LogNormal",
    "Gamma",
    "Uniform",
    "Empirical",
    "Quantiles",
    "parse_dist",
    "sample_code",
    "sample_args",
    "dist_args",
]

DET, EXP, LOGNORMAL, GAMMA, UNIFORM, EMPIRICAL = range(6)

# squared coefficient of variation: measured service times rarely pass 100; beyond 10^4 a
# lognormal's samples overflow before its mean is reached
MAX_SCV = 1e4


class Distribution:
    """Base class: subclasses define ``mean_s``, ``scv``, ``sample`` and ``spec``."""

    mean_s: float
    code: int

    @property
    def scv(self) -> float:  # squared coefficient of variation: var / mean^2
        raise NotImplementedError

    @property
    def var_s2(self) -> float:
        return self.scv * self.mean_s**2

    @property
    def second_moment_s2(self) -> float:
        return self.var_s2 + self.mean_s**2

    @property
    def params(self) -> tuple[float, float]:
        """Two numbers that, with ``code``, define the distribution for compiled code."""
        raise NotImplementedError

    def sample(self, rng: np.random.Generator, size: int | None = None):
        raise NotImplementedError

    def spec(self) -> str:
        """The text form, which :func:`parse_dist` reads back to an equal object."""
        raise NotImplementedError

    def scaled(self, factor: float) -> Distribution:
        """The same shape with the mean multiplied by ``factor``."""
        raise NotImplementedError

    def __str__(self) -> str:
        return self.spec()


def _check_mean(name: str, mean_s: float) -> None:
    if not (math.isfinite(mean_s) and mean_s >= 0):
        raise ValueError(f"{name}: mean must be a finite time >= 0 (got {mean_s!r})")
    limits.check_mean_time(mean_s, name)


@dataclass(frozen=True)
class Deterministic(Distribution):
    value_s: float
    code: int = field(default=DET, init=False, repr=False)

    def __post_init__(self):
        _check_mean("det", self.value_s)

    @property
    def mean_s(self) -> float:
        return self.value_s

    @property
    def scv(self) -> float:
        return 0.0

    @property
    def params(self):
        return (self.value_s, 0.0)

    def sample(self, rng, size=None):
        return self.value_s if size is None else np.full(size, self.value_s)

    def spec(self):
        return format_time_exact(self.value_s) if self.value_s else "0"

    def scaled(self, factor):
        return Deterministic(self.value_s * factor)


@dataclass(frozen=True)
class Exponential(Distribution):
    mean_s: float
    code: int = field(default=EXP, init=False, repr=False)

    def __post_init__(self):
        _check_mean("exp", self.mean_s)

    @property
    def scv(self):
        return 1.0

    @property
    def params(self):
        return (self.mean_s, 0.0)

    def sample(self, rng, size=None):
        return rng.exponential(self.mean_s, size)

    def spec(self):
        return f"exp:{format_time_exact(self.mean_s)}"

    def scaled(self, factor):
        return Exponential(self.mean_s * factor)


@dataclass(frozen=True)
class LogNormal(Distribution):
    mean_s: float
    scv_value: float
    code: int = field(default=LOGNORMAL, init=False, repr=False)

    def __post_init__(self):
        _check_mean("lognormal", self.mean_s)
        if not (0 < self.scv_value <= MAX_SCV):
            raise ValueError(
                f"lognormal: scv must be > 0 and at most {MAX_SCV:g} (got {self.scv_value!r})"
            )

    @property
    def scv(self):
        return self.scv_value

    @property
    def params(self):
        sigma2 = math.log1p(self.scv_value)
        mu = math.log(self.mean_s) - sigma2 / 2 if self.mean_s > 0 else -math.inf
        return (mu, math.sqrt(sigma2))

    def sample(self, rng, size=None):
        mu, sigma = self.params
        return rng.lognormal(mu, sigma, size)

    def spec(self):
        scv = format_number_exact(self.scv_value)
        return f"lognormal:{format_time_exact(self.mean_s)},scv={scv}"

    def scaled(self, factor):
        return LogNormal(self.mean_s * factor, self.scv_value)


@dataclass(frozen=True)
class Gamma(Distribution):
    mean_s: float
    scv_value: float
    code: int = field(default=GAMMA, init=False, repr=False)

    def __post_init__(self):
        _check_mean("gamma", self.mean_s)
        if not (0 < self.scv_value <= MAX_SCV):
            raise ValueError(
                f"gamma: scv must be > 0 and at most {MAX_SCV:g} (got {self.scv_value!r})"
            )

    @property
    def scv(self):
        return self.scv_value

    @property
    def params(self):  # shape, scale
        return (1.0 / self.scv_value, self.mean_s * self.scv_value)

    def sample(self, rng, size=None):
        shape, scale = self.params
        return rng.gamma(shape, scale, size)

    def spec(self):
        scv = format_number_exact(self.scv_value)
        return f"gamma:{format_time_exact(self.mean_s)},scv={scv}"

    def scaled(self, factor):
        return Gamma(self.mean_s * factor, self.scv_value)


@dataclass(frozen=True)
class Uniform(Distribution):
    low_s: float
    high_s: float
    code: int = field(default=UNIFORM, init=False, repr=False)

    def __post_init__(self):
        if not (0 <= self.low_s <= self.high_s < math.inf):
            raise ValueError(
                f"uniform: need 0 <= low <= high (got {self.low_s!r}, {self.high_s!r})"
            )
        limits.check_mean_time(self.mean_s, "uniform")

    @property
    def mean_s(self):
        return (self.low_s + self.high_s) / 2

    @property
    def scv(self):
        m = self.mean_s
        return 0.0 if m == 0 else (self.high_s - self.low_s) ** 2 / 12 / m**2

    @property
    def params(self):
        return (self.low_s, self.high_s)

    def sample(self, rng, size=None):
        return rng.uniform(self.low_s, self.high_s, size)

    def spec(self):
        return f"uniform:{format_time_exact(self.low_s)},{format_time_exact(self.high_s)}"

    def scaled(self, factor):
        return Uniform(self.low_s * factor, self.high_s * factor)


@dataclass(frozen=True)
class Empirical(Distribution):
    """Resamples measured times (seconds) with equal weight."""

    samples_s: tuple[float, ...]
    source: str = ""
    code: int = field(default=EMPIRICAL, init=False, repr=False)

    def __post_init__(self):
        if len(self.samples_s) == 0:
            raise ValueError("empirical: needs at least one sample")
        if any(not (math.isfinite(x) and x >= 0) for x in self.samples_s):
            raise ValueError("empirical: samples must be finite times >= 0")
        limits.check_mean_time(self.mean_s, "empirical")

    @property
    def mean_s(self):
        return float(np.mean(self.samples_s))

    @property
    def scv(self):
        m = self.mean_s
        return 0.0 if m == 0 else float(np.var(self.samples_s)) / m**2

    @property
    def params(self):
        return (float(len(self.samples_s)), 0.0)

    def sample(self, rng, size=None):
        arr = np.asarray(self.samples_s)
        return float(rng.choice(arr)) if size is None else rng.choice(arr, size)

    def spec(self):
        return f"empirical:{self.source}" if self.source else "empirical:<inline>"

    def scaled(self, factor):
        return Empirical(tuple(x * factor for x in self.samples_s), "")


# equal-weight points a Quantiles distribution is sampled from (its quantile function at the
# midpoints of 1024 equal slices: enough that p99.9 is resolved)
QUANTILE_TABLE = 1024


@dataclass(frozen=True)
class Quantiles(Empirical):
    """A distribution given by its percentiles, ``((percent, time_s), ...)``: the quantile
    function interpolates log(time) linearly in the percent between the points, and stays at
    the first time below the first percent and at the last above the last. It is sampled from
    the quantile function at :data:`QUANTILE_TABLE` equally likely points (so both engines treat
    it as empirical samples)."""

    points: tuple[tuple[float, float], ...] = ()

    @classmethod
    def of(cls, points) -> Quantiles:
        pts = tuple(sorted((float(p), float(t)) for p, t in points))
        if len(pts) < 2:
            raise ValueError("quantiles: needs at least two percent=time points")
        if any(not 0 <= p <= 100 for p, _ in pts) or len({p for p, _ in pts}) != len(pts):
            raise ValueError("quantiles: percents must be distinct and in 0..100")
        times = [t for _, t in pts]
        if any(not (math.isfinite(t) and t > 0) for t in times):
            raise ValueError("quantiles: times must be finite and > 0")
        if any(b < a for a, b in zip(times, times[1:], strict=False)):
            raise ValueError("quantiles: times must not decrease as the percent grows")
        u = (np.arange(QUANTILE_TABLE) + 0.5) / QUANTILE_TABLE * 100.0
        table = np.exp(np.interp(u, [p for p, _ in pts], np.log(times)))
        return cls(tuple(float(x) for x in table), "", pts)

    def spec(self):
        return "quantiles:" + ",".join(f"{format_number_exact(p)}={format_time_exact(t)}"
                                       for p, t in self.points)

    def scaled(self, factor):
        return Quantiles.of((p, t * factor) for p, t in self.points)


# an empirical sample file: one time per line; 16 MiB is about two million samples
MAX_SAMPLE_FILE_BYTES = 16 * 1024**2


def _read_samples(path: str, name: str) -> Empirical:
    def error(where: str, reason: str) -> ValueError:
        return ValueError(f"{name}: empirical sample file {where}: {reason}")

    text = limits.read_text(path, MAX_SAMPLE_FILE_BYTES, what="an empirical sample file",
                            error=error)
    values = []
    for lineno, line in enumerate(text.splitlines(), 1):
        s = line.split("#", 1)[0].strip().rstrip(",")
        if not s:
            continue
        try:
            values.append(parse_time(s))
        except UnitError:
            # the file's content is not quoted: it may be any file the user can read
            raise ValueError(
                f"{name}: empirical sample file {path}:{lineno}: expected one time per line, "
                "with its unit (e.g. 0.46ms)"
            ) from None
    return Empirical(tuple(values), str(path))


def parse_dist(value: object, name: str = "distribution") -> Distribution:
    """A distribution from its text form, a table ``{dist=..., mean_s=..., scv=...}``,
    a number of seconds, or an existing :class:`Distribution`."""
    if isinstance(value, Distribution):
        return value
    if isinstance(value, dict):
        return _from_table(value, name)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return Deterministic(_nonneg(float(value), name))
        except OverflowError:
            raise ValueError(f"{name}: a time must be finite and >= 0 (got {value:.3g})") from None
        except ValueError as exc:
            msg = str(exc)
            raise ValueError(msg if msg.startswith(name) else f"{name}: {msg}") from None
    if not isinstance(value, str):
        raise ValueError(f"{name}: expected a distribution such as 'exp:0.46ms' (got {value!r})")
    text = value.strip()
    kind, sep, rest = text.partition(":")
    if not sep:
        kind, rest = "det", text
    kind = kind.strip().lower()
    args = [a.strip() for a in rest.split(",")] if rest else []
    pos = [a for a in args if "=" not in a]
    kw = dict(a.split("=", 1) for a in args if "=" in a)
    try:
        if kind in ("det", "deterministic", "fixed", "const"):
            _expect(pos, kw, 1, set(), name, text)
            return Deterministic(_nonneg(parse_time(pos[0], name), name))
        if kind in ("exp", "exponential"):
            _expect(pos, kw, 1, set(), name, text)
            return Exponential(_nonneg(parse_time(pos[0], name), name))
        if kind in ("lognormal", "gamma"):
            _expect(pos, kw, 1, {"scv"}, name, text)
            if "scv" not in kw:
                raise ValueError(f"{name}: {kind} needs scv=..., e.g. '{kind}:0.46ms,scv=2'")
            mean = _nonneg(parse_time(pos[0], name), name)
            scv = float(kw["scv"])
            return LogNormal(mean, scv) if kind == "lognormal" else Gamma(mean, scv)
        if kind == "uniform":
            _expect(pos, kw, 2, set(), name, text)
            return Uniform(parse_time(pos[0], name), parse_time(pos[1], name))
        if kind == "empirical":
            if not rest:
                raise ValueError(f"{name}: empirical needs a file, e.g. 'empirical:times.txt'")
            return _read_samples(rest.strip(), name)
        if kind == "quantiles":
            if pos or not kw:
                raise ValueError(f"{name}: quantiles needs percent=time pairs, e.g. "
                                 "'quantiles:50=39us,99=354us,100=15ms'")
            try:
                points = [(float(p), parse_time(t, name)) for p, t in kw.items()]
            except ValueError as exc:
                if isinstance(exc, UnitError):
                    raise
                raise ValueError(f"cannot read the percents in {text!r}") from None
            return Quantiles.of(points)
    except UnitError as exc:
        raise ValueError(str(exc)) from None
    except ValueError as exc:
        msg = str(exc)
        raise ValueError(msg if msg.startswith(name) else f"{name}: {msg}") from None
    raise ValueError(
        f"{name}: unknown distribution {kind!r} in {text!r}; "
        "allowed: det, exp, lognormal, gamma, uniform, empirical, quantiles"
    )


def _expect(pos, kw, npos, keys, name, text):
    if len(pos) != npos or set(kw) - keys:
        raise ValueError(f"{name}: cannot read distribution {text!r}")


def _nonneg(x: float, name: str) -> float:
    if not (x >= 0 and math.isfinite(x)):
        raise ValueError(f"{name}: a time must be finite and >= 0 (got {x!r})")
    return x


def _from_table(t: dict, name: str) -> Distribution:
    kind = str(t.get("dist", "det")).lower()
    unknown = set(t) - {"dist", "mean_s", "mean", "scv", "low_s", "high_s", "file"}
    if unknown:
        raise ValueError(f"{name}: unknown key(s) {sorted(unknown)} in distribution table")
    def seconds(v):  # a number under a key ending in _s is seconds; text keeps its unit
        return f"{float(v)!r}s" if isinstance(v, (int, float)) and not isinstance(v, bool) else v

    mean = seconds(t["mean_s"]) if "mean_s" in t else t.get("mean")
    if kind == "uniform":
        return parse_dist(f"uniform:{seconds(t.get('low_s'))},{seconds(t.get('high_s'))}", name)
    if kind == "empirical":
        return parse_dist(f"empirical:{t.get('file')}", name)
    if mean is None:
        raise ValueError(f"{name}: distribution table needs mean_s")
    text = f"{kind}:{mean}" + (f",scv={t['scv']}" if "scv" in t else "")
    return parse_dist(text, name)


def sample_code(code: int, a: float, b: float, rng: np.random.Generator) -> float:
    """Sample by numeric code and params: the reference for compiled engines."""
    if code == DET:
        return a
    if code == EXP:
        return rng.exponential(a)
    if code == LOGNORMAL:
        return rng.lognormal(a, b)
    if code == GAMMA:
        return rng.gamma(a, b)
    if code == UNIFORM:
        return rng.uniform(a, b)
    # a constant message: formatting the code would compile string code into every kernel
    # that inlines this (about 3 s of each variant's set-up compile); the Python side never
    # passes an unknown code (dist_args)
    raise ValueError("a distribution code with no numeric sampler")


def dist_args(d: Distribution | None) -> tuple[int, float, float, np.ndarray]:
    """``d`` as plain numbers for compiled code: (code, a, b, samples); ``samples`` holds an
    empirical distribution's times (one unused zero otherwise). ``None`` (a distribution the
    device lacks, never drawn) gives a deterministic zero."""
    if d is None:
        return DET, 0.0, 0.0, np.zeros(1)
    if d.code == EMPIRICAL:
        return d.code, 0.0, 0.0, np.asarray(d.samples_s, dtype=float)
    a, b = d.params
    return d.code, float(a), float(b), np.zeros(1)


def sample_args(code: int, a: float, b: float, samples: np.ndarray,
                rng: np.random.Generator) -> float:
    """One draw from :func:`dist_args`'s numbers: the same draw, from the same stream, as
    ``Distribution.sample`` (an empirical one picks a sample as ``rng.choice`` does)."""
    if code == EMPIRICAL:
        return samples[rng.integers(0, samples.shape[0])]
    return sample_code(code, a, b, rng)

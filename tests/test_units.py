import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from iosim.dists import (
    Deterministic,
    Empirical,
    Exponential,
    Gamma,
    LogNormal,
    Quantiles,
    Uniform,
    parse_dist,
)
from iosim.units import (
    UnitError,
    format_rate,
    format_size,
    format_time,
    parse_count,
    parse_rate,
    parse_rpm,
    parse_size,
    parse_time,
)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("4k", 4096),
        ("4K", 4096),
        ("4KiB", 4096),
        ("4KB", 4096),  # fio: kb_base=1024 by default
        ("512", 512),
        (512, 512),
        ("1.5M", 1.5 * 1024**2),
        ("100G", 100 * 1024**3),
        ("2 MiB", 2 * 1024**2),
        ("1T", 1024**4),
    ],
)
def test_sizes_follow_fio(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("0.46ms", 0.46e-3),
        ("460us", 460e-6),
        ("460µs", 460e-6),
        ("2s", 2.0),
        ("5ns", 5e-9),
        ("1min", 60.0),
        (0.001, 0.001),
        ("0", 0.0),
    ],
)
def test_times(text, expected):
    assert parse_time(text) == pytest.approx(expected, rel=1e-12)


def test_rates_decimal_and_binary():
    assert parse_rate("4GB/s") == 4e9
    assert parse_rate("200MiB/s") == 200 * 1024**2
    assert parse_rate("inf") == math.inf
    assert parse_rate(1e6) == 1e6
    assert parse_count("1M") == 1e6
    assert parse_count("25k") == 25000
    assert parse_rpm("7200rpm") == 7200
    assert parse_rpm("15k") == 15000


@pytest.mark.parametrize("bad", ["4kk", "fast", "", "4 parsecs", None, True, [4]])
def test_bad_sizes_name_the_value(bad):
    with pytest.raises(UnitError, match="block size.*cannot read"):
        parse_size(bad, "block size")


def test_bits_are_refused_for_bandwidth():
    with pytest.raises(UnitError, match="bytes, not bits"):
        parse_rate("10Gb/s")


@given(st.floats(min_value=1e-9, max_value=1e3))
def test_time_format_round_trip(x):
    assert parse_time(format_time(x)) == pytest.approx(x, rel=1e-5)


@given(st.integers(min_value=1, max_value=2**50))
def test_size_format_round_trip(n):
    assert parse_size(format_size(n)) == pytest.approx(n, rel=2e-3)


def test_rate_format():
    assert format_rate(4e9) == "4GB/s"
    assert parse_rate(format_rate(123.4e6)) == pytest.approx(123.4e6)


# -- distributions --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, cls, mean, scv",
    [
        ("0.46ms", Deterministic, 0.46e-3, 0.0),
        ("det:1ms", Deterministic, 1e-3, 0.0),
        ("exp:0.46ms", Exponential, 0.46e-3, 1.0),
        ("lognormal:1ms,scv=2", LogNormal, 1e-3, 2.0),
        ("gamma:1ms,scv=0.25", Gamma, 1e-3, 0.25),
        ("uniform:0,2ms", Uniform, 1e-3, 1 / 3),
    ],
)
def test_distributions_carry_their_moments(text, cls, mean, scv):
    d = parse_dist(text)
    assert isinstance(d, cls)
    assert d.mean_s == pytest.approx(mean)
    assert d.scv == pytest.approx(scv)
    assert parse_dist(d.spec()) == d  # the text form reads back to an equal object
    # sampled moments agree with the declared ones (n large, tolerances ~ 5 standard errors)
    x = np.asarray(d.sample(np.random.default_rng(7), 200_000))
    assert x.mean() == pytest.approx(mean, rel=0.02)
    assert x.var() / x.mean() ** 2 == pytest.approx(scv, rel=0.1, abs=1e-9)


def test_distribution_tables_and_numbers():
    assert parse_dist({"dist": "exp", "mean_s": 0.00046}) == Exponential(0.00046)
    assert parse_dist(0.002) == Deterministic(0.002)


def test_empirical_from_file(tmp_path):
    f = tmp_path / "times.txt"
    f.write_text("# measured\n0.4ms\n0.5ms\n600us\n")
    d = parse_dist(f"empirical:{f}")
    assert d.mean_s == pytest.approx(0.5e-3)
    bad = tmp_path / "bad.txt"
    bad.write_text("0.4ms\nfast\n")
    with pytest.raises(ValueError, match=r"bad.txt:2: expected one time per line"):
        parse_dist(f"empirical:{bad}")


@pytest.mark.parametrize(
    "bad, msg",
    [
        ("weibull:1ms", "unknown distribution 'weibull'"),
        ("lognormal:1ms", "needs scv"),
        ("exp:-1ms", "must be finite and >= 0"),
        ("gamma:1ms,scv=0", "scv must be > 0"),
        ("exp:fast", "cannot read 'fast'"),
        ("quantiles:", "quantiles needs percent=time pairs"),
        ("quantiles:50=1ms", "at least two"),
        ("quantiles:50=2ms,90=1ms", "must not decrease"),
        ("quantiles:50=1ms,150=2ms", "in 0..100"),
        ("quantiles:x=1ms,90=2ms", "cannot read the percents"),
        ("quantiles:50=0,90=1ms", "finite and > 0"),
    ],
)
def test_bad_distributions(bad, msg):
    with pytest.raises(ValueError, match=msg):
        parse_dist(bad, "device.service")


def test_quantiles_follow_their_percentiles_and_round_trip():
    d = parse_dist("quantiles:1=25us,50=39us,90=55us,99=354us,99.9=6ms,100=15ms", "svc")
    assert isinstance(d, Quantiles) and d.code == Empirical.code
    assert parse_dist(str(d)) == d
    x = d.sample(np.random.default_rng(1), 200_000)
    for p, t in ((50, 39e-6), (90, 55e-6), (99, 354e-6)):
        assert np.percentile(x, p) == pytest.approx(t, rel=0.02)
    assert x.min() >= 25e-6 and x.max() <= 15e-3
    # the mean is the table's: between the quantiles the time grows geometrically
    assert d.mean_s == pytest.approx(float(np.mean(d.samples_s)))
    assert d.scaled(2.0).mean_s == pytest.approx(2 * d.mean_s)

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
    show_count,
    show_number,
    show_rate,
    show_size,
    show_time,
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


def test_rate_format_reads_back_and_keeps_a_data_sheet_figure():
    assert format_rate(4e9) == "4GB/s"  # as the data sheet wrote it
    assert format_rate(4 * 1024**3) == "4GiB/s"
    assert format_rate(200 * 1024**2) == "200MiB/s"
    assert format_rate(123.456789e6) == "117.738MiB/s"  # not round: MiB/s, as people read
    for x in (4e9, 123.4e6, 1.5e3, 7 * 1024**2):
        assert parse_rate(format_rate(x)) == pytest.approx(x, rel=1e-5)


# -- a time without its unit is refused, with both readings in the message ------------------


@pytest.mark.parametrize(
    "name, text, message",
    [
        ("device.service", "0.46", "device.service=0.46: a time needs a unit: 0.46ms or 0.46s?"),
        ("--latency", "1.5", "--latency 1.5: a time needs a unit: 1.5ms or 1.5s?"),
        (None, "2", "2: a time needs a unit: 2ms or 2s?"),
    ],
)
def test_a_bare_time_is_refused_with_the_fix(name, text, message):
    with pytest.raises(UnitError) as exc:
        parse_time(text, name)
    assert str(exc.value) == message


def test_unambiguous_bare_times_are_accepted():
    assert parse_time("0") == 0.0  # zero in any unit
    assert parse_time("0.5", "workload.thinktime_s") == 0.5  # the key says seconds
    assert parse_time(0.5, "device.service") == 0.5  # a Python number is SI by design
    assert parse_time("inf") == math.inf


def test_a_bare_time_in_a_distribution_is_refused():
    with pytest.raises(ValueError, match=r"device.service=0.46: a time needs a unit"):
        parse_dist("0.46", "device.service")
    with pytest.raises(ValueError, match=r"a time needs a unit: 0.46ms or 0.46s"):
        parse_dist("exp:0.46", "device.service")
    assert parse_dist("exp:0.46ms") == Exponential(0.46e-3)
    assert parse_dist({"dist": "uniform", "low_s": 0.001, "high_s": 0.002}) == Uniform(
        0.001, 0.002
    )


def test_bare_sizes_are_bytes_as_in_fio():
    assert parse_size("4096") == 4096  # fio: bs=4096 is bytes


# -- numbers for people ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "seconds, text",
    [
        (0.00046, "460 us"),
        (8.83816e-05, "88.4 us"),
        (0.0123, "12.3 ms"),
        (0.0009996, "1.00 ms"),  # rounding moves to the next unit, not "1,000 us"
        (2.5, "2.50 s"),
        (7e-10, "0.700 ns"),
        (0.0, "0 s"),
        (None, "-"),
        (math.nan, "-"),
    ],
)
def test_show_time_picks_the_unit_like_fio(seconds, text):
    assert show_time(seconds) == text


def test_show_rate_size_count_number():
    assert show_rate(16e6) == "15.3 MiB/s"
    assert show_rate(4e9) == "3.73 GiB/s"
    assert show_size(4096) == "4 KiB"
    assert show_size(1.5 * 1024**2) == "1.5 MiB"
    assert show_count(12345.6) == "12,346"
    assert show_count(3.14159) == "3.14"
    assert show_number(11240.3) == "11,240"
    assert show_number(0.000123) == "0.000123"
    assert "e" not in show_number(1.23e-7)


@given(st.floats(min_value=1e-9, max_value=1e4))
def test_show_time_reads_back_within_its_digits(x):
    text = show_time(x).replace(" ", "").replace(",", "")
    assert parse_time(text) == pytest.approx(x, rel=6e-3)


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


def test_a_distribution_table_names_its_unit_or_gives_it():
    from iosim import SpecError, Stack

    def stack(table):
        return Stack.from_dict({"device": {"kind": "generic", "service": table}})

    assert stack({"dist": "exp", "mean_s": 4.6e-4}).device.service == Exponential(4.6e-4)
    assert stack({"dist": "exp", "mean": "0.46ms"}).device.service == Exponential(0.46e-3)
    with pytest.raises(SpecError, match=r"device.service=0.46: a time needs a unit"):
        stack({"dist": "exp", "mean": 0.46})


@given(mean=st.floats(1e-12, 300.0), scv=st.floats(1e-4, 50.0), spread=st.floats(0.0, 10.0))
def test_a_distributions_text_reads_back_to_the_same_floats(mean, scv, spread):
    """A fitted value has every digit (49.148023530123 us, scv 0.04456041...): its text form,
    which a stack file holds, reads back to an equal object, while round values stay short."""
    for d in (Deterministic(mean), Exponential(mean), LogNormal(mean, scv), Gamma(mean, scv),
              Uniform(mean, mean * (1 + spread) + 1e-9)):
        assert parse_dist(d.spec()) == d, d.spec()
    assert LogNormal(0.46e-3, 0.5).spec() == "lognormal:460us,scv=0.5"
    assert parse_time(Deterministic(3.346694461161982e-12).spec()) == 3.346694461161982e-12

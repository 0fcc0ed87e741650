"""Tests for iosim.claims: Little's law / bandwidth / cap checks of IOPS claims."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from iosim.claims import (
    CEILING_NAMES,
    REQUIREMENT_NAMES,
    ClaimCheck,
    Limit,
    check_claim,
)

# E4: cloud disk, latency 0.128 ms (hard floor), bandwidth 4 GB/s (decimal: 4e9 B/s).
E4 = {"iops": 1_000_000, "bandwidth_Bps": 4e9, "latency_s": 0.128e-3}


def by_name(result: ClaimCheck) -> dict[str, Limit]:
    return {lim.name: lim for lim in result.limits}


# --------------------------------------------------------------------------- E4


def test_e4_requirements_from_the_article():
    r = check_claim(**E4)
    # Block size <= 4e9 B/s / 1e6 IOPS = 4000 B ("4 KB", decimal).
    assert r.max_block_bytes == pytest.approx(4000, rel=1e-12)
    # Queue depth >= 1e6 IOPS x 0.128 ms = 128 outstanding I/Os.
    assert r.min_queue_depth == pytest.approx(128, rel=1e-12)
    # Neither block size nor queue depth given: nothing caps the IOPS yet.
    assert r.feasible and r.max_iops is None and r.binding is None
    rows = by_name(r)
    assert set(rows) == {"min-queue-depth", "max-block-size"}
    assert not any(lim.binding for lim in r.limits)
    assert "128 outstanding I/Os" in rows["min-queue-depth"].explain
    assert "0.128 ms" in rows["min-queue-depth"].explain
    assert "4,000 B" in rows["max-block-size"].explain
    assert "4 GB/s" in rows["max-block-size"].explain


def test_e4_feasible_at_4000_bytes_and_qd_128():
    r = check_claim(**E4, block_bytes=4000, queue_depth=128)
    assert r.feasible
    assert r.max_iops == pytest.approx(1e6, rel=1e-12)
    rows = by_name(r)
    assert rows["little"].value == pytest.approx(1e6)
    assert rows["bandwidth"].value == pytest.approx(1e6)
    # Feasible: nothing is marked binding, but the tightest ceiling is still named.
    assert not any(lim.binding for lim in r.limits)
    assert r.binding in {"little", "bandwidth"}


def test_e4_16kib_is_infeasible_bandwidth_binding():
    r = check_claim(**E4, block_bytes=16384, queue_depth=128)
    assert not r.feasible
    assert r.binding == "bandwidth"
    rows = by_name(r)
    assert rows["bandwidth"].binding and not rows["little"].binding
    assert r.max_iops == pytest.approx(4e9 / 16384)  # 244,140.6 IOPS
    assert "244,141 IOPS" in rows["bandwidth"].explain
    assert "16 KiB" in rows["bandwidth"].explain


def test_e4_qd_64_is_infeasible_little_binding():
    r = check_claim(**E4, block_bytes=4000, queue_depth=64)
    assert not r.feasible
    assert r.binding == "little"
    assert r.max_iops == pytest.approx(64 / 0.128e-3)  # 500,000 IOPS
    rows = by_name(r)
    assert rows["little"].binding and not rows["bandwidth"].binding
    assert "too small" in rows["min-queue-depth"].explain


def test_e4_4kib_honestly_exceeds_4_gbps():
    # The article's "block size <= 4 KB" is decimal: 4 GB/s / 1e6 IOPS = 4000 B.
    # A 4 KiB block is 4096 B, and 1e6 x 4096 B = 4.096 GB/s, i.e. 2.4 % more than
    # 4 GB/s, so strictly 1M IOPS at 4 KiB does not fit (max 976,562.5 IOPS).
    r = check_claim(**E4, block_bytes=4096, queue_depth=128)
    assert not r.feasible
    assert r.binding == "bandwidth"
    assert r.max_iops == pytest.approx(976_562.5)
    assert 1e6 * 4096 / 4e9 - 1 == pytest.approx(0.024)
    assert "2.4 %" in by_name(r)["bandwidth"].explain


def test_e4_to_dict_and_text():
    r = check_claim(**E4, block_bytes=16384, queue_depth=128)
    d = r.to_dict()
    assert set(d) == {
        "feasible",
        "limits",
        "min_queue_depth",
        "max_block_bytes",
        "max_iops",
        "binding",
    }
    assert d["feasible"] is False
    for row in d["limits"]:
        assert set(row) == {"name", "value", "binding", "explain"}
    json.dumps(d)  # plain JSON types only
    text = r.to_text()
    assert "INFEASIBLE" in text and "bandwidth" in text
    lines = text.splitlines()
    table = [ln for ln in lines if ln.startswith(("little ", "bandwidth ", "min-queue-depth "))]
    assert len(table) >= 3
    # Each table row is followed later by an explanation line of the same name.
    assert any("Little's law" in ln for ln in lines)


# --------------------------------------------------------------------------- E3


def test_e3_one_path_qd32_at_1ms_gives_32k_iops():
    r = check_claim(iops=100_000, latency_s=1e-3, queue_depth=32)
    assert r.max_iops == pytest.approx(32_000)
    assert not r.feasible and r.binding == "little"


def test_e3_four_paths_qd128_exceed_100k_iops():
    r = check_claim(iops=100_000, latency_s=1e-3, queue_depth=4 * 32)
    assert r.max_iops == pytest.approx(128_000)
    assert r.max_iops > 100_000
    assert r.feasible and r.binding == "little"
    assert not any(lim.binding for lim in r.limits)


# --------------------------------------------------------------------------- other limits


def test_units_link_and_caps():
    r = check_claim(
        iops=50_000,
        block_bytes=8192,
        units=8,
        unit_service_s=100e-6,
        link_Bps=1e9,
        iops_cap=40_000,
        bandwidth_cap_Bps=250e6,
    )
    rows = by_name(r)
    assert rows["units"].value == pytest.approx(80_000)
    assert rows["link"].value == pytest.approx(1e9 / 8192)
    assert rows["iops-cap"].value == 40_000
    assert rows["bandwidth-cap"].value == pytest.approx(250e6 / 8192)  # 30,517.6
    assert r.binding == "bandwidth-cap" and not r.feasible
    # Only the tightest violated ceiling is binding; the IOPS cap is also exceeded.
    assert [lim.name for lim in r.limits if lim.binding] == ["bandwidth-cap"]
    assert "also" in rows["iops-cap"].explain
    # Max block size uses the smallest byte rate (the throughput cap here).
    assert r.max_block_bytes == pytest.approx(250e6 / 50_000)
    assert r.min_queue_depth is None


def test_ceilings_are_reported_in_fixed_order():
    r = check_claim(
        iops=1,
        block_bytes=1,
        bandwidth_Bps=10,
        latency_s=1,
        queue_depth=10,
        units=10,
        unit_service_s=1,
        link_Bps=10,
        iops_cap=10,
        bandwidth_cap_Bps=10,
    )
    assert [lim.name for lim in r.ceilings] == list(CEILING_NAMES)
    assert [lim.name for lim in r.requirements] == ["min-queue-depth", "max-block-size"]


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"iops": -5}, r"iops must be > 0 \(got -5\)"),
        ({"iops": 0}, r"iops must be > 0 \(got 0\)"),
        ({"iops": None}, r"iops must be > 0"),
        ({"iops": float("nan")}, r"iops must be finite"),
        ({"iops": "1M"}, r"iops must be a number \(got '1M'\)"),
        ({"iops": True}, r"iops must be a number"),
        ({"iops": 1, "latency_s": -1e-3}, r"latency_s must be > 0 \(got -0.001\)"),
        ({"iops": 1, "block_bytes": 0}, r"block_bytes must be > 0"),
        ({"iops": 1, "bandwidth_Bps": -1}, r"bandwidth_Bps must be > 0"),
        ({"iops": 1, "queue_depth": -2}, r"queue_depth must be > 0 \(got -2\)"),
        ({"iops": 1, "link_Bps": float("inf")}, r"link_Bps must be finite"),
        ({"iops": 1, "iops_cap": 0}, r"iops_cap must be > 0"),
        ({"iops": 1, "bandwidth_cap_Bps": -3}, r"bandwidth_cap_Bps must be > 0"),
        ({"iops": 1, "units": 4, "unit_service_s": 0}, r"unit_service_s must be > 0"),
        ({"iops": 1, "units": 4}, r"units needs unit_service_s"),
        ({"iops": 1, "unit_service_s": 1e-4}, r"unit_service_s needs units"),
    ],
)
def test_bad_inputs_raise_value_error_naming_parameter(kwargs, message):
    with pytest.raises(ValueError, match=message):
        check_claim(**kwargs)


def test_arguments_are_keyword_only():
    with pytest.raises(TypeError):
        check_claim(1e6)  # type: ignore[misc]


# --------------------------------------------------------------------------- invariants

pos = st.floats(min_value=1e-3, max_value=1e12, allow_nan=False, allow_infinity=False)
OPTIONAL = [
    "block_bytes",
    "bandwidth_Bps",
    "latency_s",
    "queue_depth",
    "link_Bps",
    "iops_cap",
    "bandwidth_cap_Bps",
    "units",
]


@st.composite
def claims(draw):
    kwargs = {"iops": draw(pos)}
    for name in OPTIONAL:
        if draw(st.booleans()):
            kwargs[name] = draw(pos)
    if "units" in kwargs:
        kwargs["unit_service_s"] = draw(pos)
    return kwargs


@settings(max_examples=200, deadline=None)
@given(claims())
def test_invariants(kwargs):
    r = check_claim(**kwargs)
    ceilings = r.ceilings
    assert all(lim.name in CEILING_NAMES for lim in ceilings)
    assert all(lim.name in REQUIREMENT_NAMES and not lim.binding for lim in r.requirements)
    if ceilings:
        assert r.max_iops == min(lim.value for lim in ceilings)
        tightest = min(ceilings, key=lambda lim: lim.value)
        assert r.max_iops == tightest.value
        assert by_name(r)[r.binding].value == r.max_iops
        assert r.feasible == (r.claimed_iops <= r.max_iops * (1 + 1e-9))
    else:
        assert r.max_iops is None and r.binding is None and r.feasible
    # At most one binding row, and exactly one when infeasible.
    assert sum(lim.binding for lim in r.limits) == (0 if r.feasible else 1)
    if "latency_s" in kwargs:
        assert r.min_queue_depth == pytest.approx(kwargs["iops"] * kwargs["latency_s"])
    rates = [kwargs[k] for k in ("bandwidth_Bps", "link_Bps", "bandwidth_cap_Bps") if k in kwargs]
    if rates:
        assert r.max_block_bytes == pytest.approx(min(rates) / kwargs["iops"])
    else:
        assert r.max_block_bytes is None
    d = r.to_dict()
    assert d["feasible"] == r.feasible and len(d["limits"]) == len(r.limits)
    json.dumps(d)
    assert r.to_text()


@settings(max_examples=200, deadline=None)
@given(claims(), st.sampled_from(OPTIONAL), pos, pos)
def test_adding_a_limit_never_raises_max_iops(kwargs, extra, value, service):
    assume(extra not in kwargs)  # replacing a value is not adding a limit
    before = check_claim(**kwargs)
    more = dict(kwargs, **{extra: value})
    if extra == "units":
        more["unit_service_s"] = service
    after = check_claim(**more)
    lo_before = math.inf if before.max_iops is None else before.max_iops
    lo_after = math.inf if after.max_iops is None else after.max_iops
    assert lo_after <= lo_before
    if not before.feasible:
        assert not after.feasible


@settings(max_examples=100, deadline=None)
@given(
    st.floats(min_value=1, max_value=1e7),
    st.floats(min_value=1e-6, max_value=1e-1),
    st.floats(min_value=1, max_value=4096),
)
def test_little_limit_matches_min_queue_depth(iops, latency, qd):
    r = check_claim(iops=iops, latency_s=latency, queue_depth=qd)
    # The claim fits Little's law exactly when the given queue depth covers the need.
    assert r.feasible == (qd * (1 + 1e-9) >= r.min_queue_depth) or math.isclose(
        qd, r.min_queue_depth, rel_tol=1e-12
    )

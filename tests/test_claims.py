"""Tests for iosim.claims: Little's law / bandwidth / cap checks of IOPS claims."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, assume, given, settings
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
        simulated_iops=10,
    )
    assert [lim.name for lim in r.ceilings] == list(CEILING_NAMES)
    assert [lim.name for lim in r.requirements] == ["min-queue-depth", "max-block-size"]


def test_a_simulated_ceiling_binds_only_beyond_its_noise():
    """The simulated figure (a short run) has a 3 % margin; a closed form equal to it binds."""
    at_noise = check_claim(iops=10_250, simulated_iops=10_000)
    assert at_noise.feasible and at_noise.binding == "simulated"
    assert not check_claim(iops=10_400, simulated_iops=10_000).feasible
    tie = check_claim(iops=20_000, iops_cap=9_944, simulated_iops=9_943.6)
    assert not tie.feasible and tie.binding == "iops-cap"
    assert tie.max_iops == 9_944  # (the binding ceiling's figure)


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


# =========================================================================== the catalogue
#
# Physical floors as sourced data (iosim/catalogue.toml) and the checks that use them.

from iosim import catalogue  # noqa: E402
from iosim.claims import check_physics, check_published, fmt_bytes  # noqa: E402
from iosim.cli import main as cli_main  # noqa: E402

CAT = catalogue.load()


def test_every_catalogue_figure_carries_a_resolvable_source_and_a_range():
    assert len(CAT.figures) >= 40
    for name, fig in CAT.figures.items():
        assert fig.sources, name
        for key in fig.sources:
            src = CAT.sources[key]
            assert src.title and src.publisher and src.date and src.url, key
        assert fig.unit in catalogue.UNITS, name
        assert math.isfinite(fig.low) and fig.low <= fig.upper, name
    for key, claim in CAT.claims.items():
        assert claim.source in CAT.sources, key


def test_a_figure_without_a_source_is_refused(tmp_path):
    base = 'title = "t"\npublisher = "p"\ndate = "2020"\nurl = "u"\n'
    bad = f'[source.s]\n{base}\n[figure.tR]\nlow = 1e-5\nunit = "s"\n'
    f = tmp_path / "c.toml"
    f.write_text(bad)
    with pytest.raises(catalogue.CatalogueError, match="figure.tR.*sources"):
        catalogue.load(str(f))
    f.write_text(bad + 'sources = ["nope"]\n')
    with pytest.raises(catalogue.CatalogueError, match="unknown source 'nope'"):
        catalogue.load(str(f))
    f.write_text(bad.replace("low = 1e-5", "low = 2e-5\nhigh = 1e-5") + 'sources = ["s"]\n')
    with pytest.raises(catalogue.CatalogueError, match="high"):
        catalogue.load(str(f))
    f.write_text(bad + 'sources = ["s"]\n')
    assert catalogue.load(str(f)).figure("tR").range == (1e-5, 1e-5)


def test_plausible_range_for_other_modules():
    assert catalogue.plausible_range("hdd_avg_seek_s", rpm=7200) == (7.4e-3, 8.2e-3)
    # rotation is arithmetic, not a sourced figure: half a turn at 7200 rpm
    assert catalogue.plausible_range("hdd_rotation_s", rpm=7200) == (30 / 7200, 30 / 7200)
    lo, hi = catalogue.plausible_range("hdd_qd1_service_s", rpm=15000)
    assert lo == pytest.approx(2.9e-3 + 2e-3) and hi == pytest.approx(3.4e-3 + 2e-3)
    assert catalogue.plausible_range("nand_read_s", cell="tlc") == CAT.figure(
        "nand_tlc_read_s"
    ).range
    # PCIe 4.0 x4: 4 lanes x 16 GT/s x 128/130 / 8, times the protocol efficiency range
    lo, hi = catalogue.plausible_range("link_Bps", interface="pcie4x4")
    assert lo == pytest.approx(4 * 16e9 * 128 / 130 / 8 * 0.82, rel=1e-4)
    assert hi == pytest.approx(4 * 16e9 * 128 / 130 / 8 * 0.96, rel=1e-4)
    for bad, kw in (("hdd_avg_seek_s", {}), ("hdd_avg_seek_s", {"rpm": 6000}), ("nope", {})):
        with pytest.raises(ValueError):
            catalogue.plausible_range(bad, **kw)


def test_interfaces_parse_generation_and_width():
    assert catalogue.interface("pcie5x2").lanes == 2
    assert catalogue.interface("SATA").key == "sata"
    for bad in ("pcie6x4", "pcie4x3", "usb"):
        with pytest.raises(ValueError, match="expected sata"):
            catalogue.interface(bad)


def test_sizes_are_shown_in_kib():
    assert fmt_bytes(4096) == "4,096 B (4 KiB)"
    assert fmt_bytes(4000) == "4,000 B (3.91 KiB)"  # not "4 KB": sizes follow fio's k = 1024
    assert fmt_bytes(512) == "512 B"


# --------------------------------------------------------------------------- check_physics

TLC_READ = CAT.figure("nand_tlc_read_s")


def test_100k_iops_at_qd1_implies_10us_which_no_nand_read_allows():
    r = check_physics(iops=100e3, block_bytes=4096, queue_depth=1)
    assert r.per_io_s == pytest.approx(10e-6)  # Little's law: 1 / 100,000 IOPS
    # every NAND cell type's fastest page read (>= 25 µs) and every disk exceed 10 µs ...
    assert set(r.infeasible_media) == {
        "slc", "mlc", "tlc", "qlc", "hdd5400", "hdd7200", "hdd10k", "hdd15k"
    }
    # ... while Z-NAND (3 µs) and 3D XPoint (3.4 µs end to end) are fast enough
    assert r.verdict == "FEASIBLE ONLY ON SOME MEDIA"
    assert "10 µs per I/O at QD 1" in r.summary


def test_tlc_margin_is_the_fastest_page_read_over_the_time_allowed():
    r = check_physics(iops=100e3, block_bytes=4096, queue_depth=1, medium="tlc")
    assert r.verdict == "INFEASIBLE" and not r.feasible
    (m,) = r.media
    assert m.margin == pytest.approx(TLC_READ.low / 10e-6)  # 40 µs / 10 µs = 4
    assert "infeasible by 4x" in r.summary and "[isscc21" in r.summary
    assert "QD >= 4" in " ".join(m.fixes)  # what makes it feasible: 100k x 40 µs in flight
    assert any("3D XPoint" in f for f in m.fixes)


@settings(max_examples=60, deadline=None)
@given(
    iops=st.floats(1e2, 1e7),
    qd=st.integers(1, 4096),
    medium=st.sampled_from(["slc", "mlc", "tlc", "qlc", "znand", "xpoint"]),
)
def test_a_solid_state_medium_is_infeasible_exactly_below_its_floor(iops, qd, medium):
    """Little's law: QD / IOPS is the mean time per I/O; below the fastest read it cannot be."""
    r = check_physics(iops=iops, queue_depth=qd, medium=medium)
    floor = CAT.figure(CAT.media[medium].read).low
    assert r.media[0].feasible == (qd / iops >= floor * (1 - 1e-9))
    assert r.media[0].min_queue_depth == pytest.approx(iops * floor)


def test_link_queue_and_transport_floors():
    # 98K x 4 KiB fits SATA's 600 MB/s, but 64 in flight do not fit AHCI's 32 command slots
    r = check_physics(iops=98e3, block_bytes=4096, queue_depth=64, interface="sata")
    assert r.verdict == "INFEASIBLE" and not r.link.queue_ok and r.link.feasible
    # 2 M x 4 KiB = 8.2 GB/s is more than PCIe 4.0 x4 carries at any protocol efficiency
    r = check_physics(iops=2e6, block_bytes=4096, interface="pcie4x4")
    assert not r.link.feasible and r.verdict == "INFEASIBLE"
    assert r.lanes_needed == {"pcie3": 9, "pcie4": 5, "pcie5": 3}
    # NVMe/TCP adds at least 21 µs (ReFlex): 20 µs per I/O is infeasible even on 3D XPoint
    r = check_physics(iops=50e3, queue_depth=1, transport="nvme-tcp")
    assert r.verdict == "INFEASIBLE" and r.infeasible_media == tuple(CAT.media)


def test_bad_physics_inputs_name_the_parameter():
    for kw, match in (
        ({"medium": "tape"}, "medium"),
        ({"transport": "carrier-pigeon"}, "transport"),
        ({"read_fraction": 1.5}, "read_fraction"),
        ({"capacity_bytes": -1}, "capacity_bytes"),
    ):
        with pytest.raises(ValueError, match=match):
            check_physics(iops=1e5, **kw)


# --------------------------------------------------------------------------- published claims

# Expected verdicts, fixed from the physics before running (reason in the comment).
PUBLISHED = {
    # 1.4M / QD 32 = 22.9 µs per I/O < the fastest TLC read (40 µs): one queue of 32 cannot do
    # it; >= 56 reads must be in flight, which on 2 TB (31-62 dies) keeps every die busy, and
    # 1.4M x 4 KiB = 5.7 GB/s is > 80 % of PCIe 4.0 x4's worst-case payload.
    "samsung-990pro-randread": (False, {"infeasible", "deep-queue", "every-die-busy",
                                        "link-bound"}),
    # 7.45 GB/s is 94.6 % of PCIe 4.0 x4 after encoding: within the 82-96 % protocol
    # efficiency published, so feasible only near the link's best.
    "samsung-990pro-seqread": (True, {"link-bound"}),
    # 13K at QD 1 = 77 µs per I/O >= TLC read + a 4 KiB SATA transfer (47 µs).
    "samsung-870evo-qd1": (True, set()),
    # 98K x 40 µs = 3.9 reads in flight; 250 GB of 512 Gb dies is 3.9 dies: every die busy.
    "samsung-870evo-250gb-qd32": (True, {"every-die-busy"}),
    # 560 MB/s of SATA's 600: 93 %.
    "samsung-870evo-seqread": (True, {"link-bound"}),
    # 550K / QD 16 = 29 µs per I/O, far above 3D XPoint's 3.4-10 µs.
    "intel-p4800x-qd16": (True, set()),
    # 10 µs at QD 1: only 3D XPoint-class media (and Z-NAND's raw read) are this fast.
    "intel-p4800x-latency": (True, set()),
    # 900K x 40 µs = 36 and 1M x 40 µs = 40 reads in flight: more than a queue of 32.
    "samsung-pm9a3-randread": (True, {"deep-queue"}),
    "intel-p5500-randread": (True, {"deep-queue"}),
    # 430K x 48 µs (fastest MLC read) = 21 in flight.
    "intel-750-randread": (True, set()),
    # 73 IOPS = 13.6 ms per read >= 7.4 ms seek + 4.17 ms half turn.
    "hitachi-7k80-random": (True, set()),
    # sub-ms latency bounds: 7-256, 1-160, 10-400, 4-160 in flight; no block size stated.
    "aws-io2-block-express": (True, set()),
    "aws-gp3-max": (True, set()),
    "azure-ultra-disk": (True, set()),
    "gcp-hyperdisk-balanced": (True, set()),
    # E4: 1M x 4 KiB = 4.096 GB/s > the 4 GB/s cap; 1M x 0.128 ms = 128 in flight.
    "alibaba-essd-pl3": (False, {"infeasible", "deep-queue"}),
}


def test_at_least_ten_published_claims_from_drives_and_cloud_volumes():
    kinds = [c.kind for c in CAT.claims.values()]
    assert len(CAT.claims) >= 10 and kinds.count("drive") >= 5 and kinds.count("cloud") >= 4
    assert set(PUBLISHED) == set(CAT.claims)


@pytest.mark.parametrize("key", sorted(PUBLISHED))
def test_published_claim_verdict(key):
    feasible, categories = PUBLISHED[key]
    r = check_published(key)
    assert r.feasible is feasible, r.binding
    assert set(r.categories) == categories, r.binding
    if not feasible:
        assert r.binding


def test_published_cloud_caps_give_the_largest_block():
    # io2 Block Express: 4,000 MiB/s / 256,000 IOPS = exactly 16 KiB
    assert check_published("aws-io2-block-express").max_block_bytes == pytest.approx(16384)
    assert check_published("alibaba-essd-pl3").in_flight == pytest.approx((128, 128))


# --------------------------------------------------------------------------- the command line


def run_cli(capsys, *argv):
    code = cli_main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_100k_at_qd1_names_the_latency_and_the_media(capsys):
    code, out, _ = run_cli(capsys, "check-claim", "--iops", "100k", "--bs", "4k", "--qd", "1")
    assert code == 0
    assert "time per I/O  10 µs" in out
    verdict = " ".join(out.split("Verdict:")[1].split("\n\n")[0].split())
    for label in ("SLC NAND", "MLC NAND", "TLC NAND", "QLC NAND", "HDD 7,200 rpm"):
        assert label in verdict.split("possible on")[0]
    assert "3D XPoint" in verdict.split("possible on")[1]
    assert "4,096 B (4 KiB)" in out and "4 KB" not in out


def test_cli_medium_tlc_is_infeasible_with_the_margin(capsys):
    argv = ["check-claim", "--iops", "100k", "--bs", "4k", "--qd", "1", "--medium", "tlc"]
    code, out, _ = run_cli(capsys, *argv)
    assert code == 0
    assert "Verdict: INFEASIBLE on TLC NAND: needs 10 µs per I/O at QD 1" in out
    assert "page read alone is 40-106 µs" in out and "infeasible by 4x" in out
    assert "Would be feasible with: QD >= 4" in out
    code, out, _ = run_cli(capsys, *argv, "--json")
    d = json.loads(out)
    assert d["physics"]["verdict"] == "INFEASIBLE"
    assert d["physics"]["media"][0]["margin"] == pytest.approx(4.0)
    assert d["physics"]["per_io_s"] == pytest.approx(1e-5)


def test_cli_with_a_stack_keeps_its_ceilings_and_adds_the_physics(capsys):
    argv = ["check-claim", "--iops", "1M", "--preset", "allflash-lun", "--medium", "tlc"]
    code, out, _ = run_cli(capsys, *argv, "--json")
    d = json.loads(out)
    assert d["binding"] == "little" and d["max_iops"] == pytest.approx(32 / 0.46e-3)
    assert d["stack"]["queue_depth"] == 32 and "physics" in d
    code, out, _ = run_cli(capsys, *argv)
    assert "Stack allflash-lun" in out and "little" in out
    assert "Against the physics of media and links" in out


def test_cli_a_reordering_disk_alone_pays_its_seek_and_turn(capsys):
    """hdd-7200 reorders its queue (SPTF): at depth a request can take as little as its
    overhead and transfer (the units' floor), but alone it pays the mean seek and half a turn,
    and that is the stack's unloaded latency (not the 23 us floor)."""
    from iosim import presets

    dev = presets.load("hdd-7200")[0].device
    alone = dev.alone_service_s(4096, span_bytes=dev.capacity_bytes)
    floor = dev.unit_service_s(4096, span_bytes=dev.capacity_bytes)
    assert alone == pytest.approx(dev.random_service_s(4096)) and 5e-3 < alone < 20e-3
    assert floor < 1e-4
    code, out, _ = run_cli(capsys, "check-claim", "--iops", "300", "--bs", "4k", "--preset",
                           "hdd-7200", "--json")
    d = json.loads(out)
    assert d["stack"]["latency_s"] == pytest.approx(alone)
    rows = {lim["name"]: lim["value"] for lim in d["limits"]}
    assert rows["little"] == pytest.approx(32 / alone)
    # 300 random IOPS from one 7200 rpm disk is not on: Little's law alone allowed 2,400 at
    # depth 32; the simulated disk (SPTF over 32 queued requests) completes 120-250
    assert not d["feasible"] and d["binding"] == "simulated"
    assert 120 < d["max_iops"] == rows["simulated"] == d["stack"]["simulated_iops"] < 250
    code, out, _ = run_cli(capsys, "check-claim", "--iops", "300", "--bs", "4k", "--preset",
                           "hdd-7200")
    assert "1 unit(s) x at least 23.4 us (the device reorders its queue" in out.replace("µ", "u")
    assert "unloaded latency 13.2 ms" in out


@pytest.mark.parametrize(
    "flag, match",
    [
        (["--medium", "tape"], "--medium must be one of"),
        (["--interface", "pcie9x4"], "--interface"),
        (["--transport", "pigeon"], "--transport must be one of"),
        (["--rw", "sideways"], "--rw must be one of"),
        (["--rw", "randrw", "--rwmixread", "150"], "--rwmixread"),
        (["--capacity=abc"], "--capacity"),
        (["--capacity=0TB"], "--capacity must be > 0"),
    ],
)
def test_cli_bad_physics_flags_are_one_line_errors(capsys, flag, match):
    code, out, err = run_cli(capsys, "check-claim", "--iops", "100k", *flag)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and match in lines[0]


def test_the_docs_table_shows_the_verdicts_the_checker_gives():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "claims.md").read_text()
    for key, claim in CAT.claims.items():
        line = next(row for row in doc.splitlines() if row.startswith(f"| {claim.label} |"))
        verdict = "feasible" if check_published(key).feasible else "INFEASIBLE"
        assert f"**{verdict}**" in line, key


def test_writes_have_no_media_floor_but_need_dies_programming():
    # 70 % reads: the mean time per I/O can be no less than 0.7 x the fastest page read
    r = check_physics(iops=200e3, block_bytes=16384, queue_depth=8, read_fraction=0.7,
                      medium="tlc", capacity_bytes=1e12)
    (m,) = r.media
    assert m.floor_s[0] == pytest.approx(0.7 * TLC_READ.low)
    # 60K writes/s x 16 KiB = 983 MB/s over the fastest die's 184 MB/s: >= 5.3 dies programming
    fastest = CAT.figure("nand_tlc_die_program_Bps").upper
    assert m.dies_programming == pytest.approx(200e3 * 0.3 * 16384 / fastest)
    assert "isscc21" in r.sources
    assert check_physics(iops=1e6, queue_depth=1, read_fraction=0.0, medium="tlc").feasible


def test_physics_json_is_strict_json():
    for kw in (
        {"iops": 1e5, "interface": "sata"},  # no block size: no data rate
        {"iops": 1e5, "queue_depth": 1, "medium": "hdd7200", "capacity_bytes": 1e12},
        {"iops": 1e6, "block_bytes": 4096, "transport": "nvme-tcp", "interface": "pcie5x2"},
    ):
        json.dumps(check_physics(**kw).to_dict(), allow_nan=False)


physics_flags = st.lists(
    st.sampled_from([
        "--medium", "tlc", "hdd7200", "tape", "--interface", "pcie4x4", "sata", "pcie4x3",
        "--transport", "nvme-tcp", "iscsi", "x", "--rw", "randrw", "write", "--rwmixread",
        "70", "-1", "abc", "--capacity", "250GB", "0", "2TiB", "--qd", "1", "0", "--bs", "4k",
        "--latency", "10us", "--json",
    ]),
    max_size=8,
)


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # capsys is read each time
@given(physics_flags)
def test_cli_physics_flags_exit_cleanly(capsys, argv):
    code = cli_main(["check-claim", "--iops", "100k", *argv])
    out, err = capsys.readouterr()
    assert code in (0, 2)
    if code == 2:
        assert out == "" and len(err.strip().splitlines()) == 1, err
    elif "--json" in argv:
        json.loads(out)

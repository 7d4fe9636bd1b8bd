"""The ``haar-screen`` check: a sampler whose fast path above d = 128 skips QR's sign correction fails, naming the
smallest d range where it shows; its twin (the sign fix at every d) and the reference samplers pass."""

from __future__ import annotations

import pytest

from rfverify.kinds.orthogonal import verify_orthogonal
from rfverify.properties.haar_screen import bands
from rfverify.seeding import DEFAULT_SEED

MUTANTS = "tests.mutants.stateful_mutants:"


def _screen(impl, seed=DEFAULT_SEED, profile="default", **kw):
    return verify_orthogonal(impl, dim=16, seed=seed, profile=profile, checks=["haar-screen"], **kw)["haar-screen"]


def test_bands_cover_the_range_in_powers_of_two():
    assert bands(1, 256) == [(1, 1), (2, 3), (4, 7), (8, 15), (16, 31), (32, 63), (64, 127), (128, 255), (256, 256)]
    assert bands(100, 300) == [(100, 127), (128, 255), (256, 300)]


def test_fast_path_without_the_sign_fix_fails_in_its_band():
    res = _screen(MUTANTS + "fast_path_no_sign_fix")
    assert res.status == "fail", res.message
    assert res.details["smallest_failing_band"] == "d 128 … 255"
    lo, hi = res.details["shrunk_range"]  # bisected: the smallest d range where it shows, above d = 128
    assert 128 < lo <= hi <= 256, res.details["shrunk_range"]
    assert (lo, hi) == (129, 129)  # at the default seed the bisection ends at the first d of the fast path
    assert "not Haar in part of the declared d range: d = 129" in res.message
    assert "bisected from d 128 … 255" in res.message
    assert res.alpha == pytest.approx(1e-3 / 6)
    for row in res.details["bands"][:-2]:  # below d = 128 the mutant is Haar
        assert row["p_adjusted"] >= res.alpha


def test_the_smallest_band_is_named_when_the_range_is_narrowed():
    res = _screen(MUTANTS + "fast_path_no_sign_fix", space={"d": (140, 200)})
    assert res.status == "fail" and res.details["smallest_failing_band"] == "d 140 … 200"
    assert res.details["shrunk_range"] == [140, 140]


def test_a_defect_in_a_sub_range_of_a_band_is_shrunk_to_it():
    """The sign fix skipped above d = 192 only: the band 128 … 255 fails, the bisection keeps the upper half (the
    lower one does not reject) and names a range inside 193 … 255."""
    res = _screen("tests.test_haar_screen:upper_fast_path")
    assert res.status == "fail", res.message
    lo, hi = res.details["shrunk_range"]
    assert 193 <= lo <= hi <= 255, res.details["shrunk_range"]
    assert res.details["bisection"][0]["band"] == "d 192 … 255"


def upper_fast_path(d, rng):
    from tests.mutants.stateful_mutants import _haar

    return _haar(d, rng, fix=not 192 < d <= 255)


@pytest.mark.parametrize("impl", [MUTANTS + "sign_fix_everywhere", "rfverify.implementations.orthogonal:haar_qr",
                                  "scipy.stats:ortho_group"])
def test_haar_samplers_pass(impl):
    res = _screen(impl)
    assert res.status == "pass", res.message


def test_so_group_screens_from_d_3():
    res = _screen("rfverify.implementations.orthogonal:haar_qr_so", group="SO")
    assert res.status == "pass", res.message
    first = res.details["bands"][0]
    assert first["band"] == "d 2 … 3" and first["dims"] == [2, 3] and first["draws"] == 4  # SO(2) draws not pooled


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(20))
def test_twin_passes_and_mutant_fails_at_20_seeds(seed):
    assert _screen(MUTANTS + "sign_fix_everywhere", seed=seed).status == "pass"
    res = _screen(MUTANTS + "fast_path_no_sign_fix", seed=seed)
    assert res.status == "fail"
    lo, hi = res.details["shrunk_range"]
    assert 128 < lo <= hi <= 256, res.details["shrunk_range"]

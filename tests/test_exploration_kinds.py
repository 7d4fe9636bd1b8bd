"""``explore`` for the other kinds: orthogonal samplers searched over d 1 … 256 (planted corner bugs found at
their dimension, the reference samplers pass)."""

from __future__ import annotations

import pytest

from rfverify.implementations import orthogonal as orth
from rfverify.kinds import get_kind
from rfverify.seeding import DEFAULT_SEED
from tests.mutants import explore_mutants as em


def _explore_orthogonal(sampler, group="O", seed=DEFAULT_SEED, profile="default"):
    verify = get_kind("orthogonal").verify_function()
    return verify(sampler, dim=16, group=group, seed=seed, profile=profile, checks=["explore"]).results[0]


@pytest.mark.parametrize("bug", list(em.ORTHOGONAL_CORNERS), ids=lambda f: f.__name__)
def test_orthogonal_corner_bug_found_at_its_dimension(bug):
    res = _explore_orthogonal(bug)
    assert res.status == "fail" and em.ORTHOGONAL_CORNERS[bug] in res.message, res.message
    assert res.reproduce.endswith(f"--pin d={res.details['minimal_example']['d']}")


@pytest.mark.parametrize("sampler,group", [(orth.haar_householder, "O"), (orth.haar_qr_so, "SO")],
                         ids=["householder", "qr-SO"])
def test_reference_samplers_pass(sampler, group):
    res = _explore_orthogonal(sampler, group)
    assert res.status == "pass", res.message


def test_declared_dimensions_are_respected():
    def from_d3(d, rng):
        """Declares d >= 3: its d = 2 special case is outside its space."""
        return em.rotation_2d_unnormalised(d, rng)

    from_d3.rfverify_space = {"d": (3, 32)}
    res = _explore_orthogonal(from_d3, profile="quick")
    assert res.status == "pass" and res.details["space_searched"] == "d 3 … 32", res.message


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1, 21))
def test_orthogonal_corners_under_20_seeds(seed):
    for bug, corner in em.ORTHOGONAL_CORNERS.items():
        res = _explore_orthogonal(bug, seed=seed)
        assert res.status == "fail" and corner in res.message, (bug.__name__, seed, res.message)
    assert _explore_orthogonal(orth.haar_householder, seed=seed).status == "pass"


def _explore_transform(fn, matrix="hadamard", seed=DEFAULT_SEED, profile="default"):
    verify = get_kind("transform").verify_function()
    return verify(fn, dim=64, matrix=matrix, seed=seed, profile=profile, checks=["explore"]).results[0]


@pytest.mark.parametrize("bug", list(em.TRANSFORM_CORNERS), ids=lambda f: f.__name__)
def test_transform_corner_bug_found(bug):
    res = _explore_transform(bug)
    assert res.status == "fail" and em.TRANSFORM_CORNERS[bug] in res.message, res.message
    assert res.reproduce.endswith(f"--pin d={res.details['minimal_example']['d']}")


def test_reference_fwht_passes_over_every_width():
    from rfverify.implementations.structured import fwht_normalized

    res = _explore_transform(fwht_normalized, matrix="hadamard-normalized")
    assert res.status == "pass" and "2^0 … 2^14" in res.details["space_searched"], res.message


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1, 21))
def test_transform_corners_under_20_seeds(seed):
    for bug, corner in em.TRANSFORM_CORNERS.items():
        res = _explore_transform(bug, seed=seed)
        assert res.status == "fail" and corner in res.message, (bug.__name__, seed, res.message)

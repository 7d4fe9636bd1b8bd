"""Round-off by dtype (no false alarm on correct float32 maps) and diagnoses that name the cause.

Every diagnostic hint is pinned against a planted bug of its cause and against a planted bug of a different
cause (tests/ecosystem_maps.py): a scale error (a bias), a halved frequency variance (a bias of the k^a kind)
and a reused frequency (correlated features, unbiased).
"""

from __future__ import annotations

import numpy as np
import pytest

import rfverify
from rfverify.seeding import DEFAULT_SEED
from rfverify.stats import mean_test
from rfverify.tolerances import estimate_roundoff
from tests import ecosystem_maps as em

RBF = dict(kernel="rbf", kernel_params={"gamma": em.GAMMA}, bound=2 ** 0.5)
SEEDS = [DEFAULT_SEED] + list(range(1, 21))


def test_estimate_roundoff_is_dtype_aware():
    s = (2 / 1024) ** 0.5  # random Fourier features: |phi| <= sqrt(2/m)
    f32, f64 = estimate_roundoff(16, 1024, np.float32, s), estimate_roundoff(16, 1024, np.float64, s)
    assert 1e-3 < f32 < 2e-3 and 1e-12 < f64 < 5e-12
    assert f32 / f64 == pytest.approx(np.finfo(np.float32).eps / np.finfo(np.float64).eps, rel=0.01)


def test_mean_test_roundoff_band_keeps_its_level_and_power():
    rng = np.random.default_rng(1)
    # a mean inside the round-off band is not rejected however small the spread; outside it, it is
    inside = 1.0 + 1e-4 + 1e-9 * rng.standard_normal((50, 3))
    assert mean_test(inside, np.ones(3), 1e-3, roundoff=1e-3).p_adjusted.min() == 1.0
    assert mean_test(inside, np.ones(3), 1e-3).p_adjusted.min() < 1e-10  # the fixed 1e-12 band rejects
    outside = 1.0 + 5e-3 + 1e-4 * rng.standard_normal((50, 3))
    assert mean_test(outside, np.ones(3), 1e-3, roundoff=1e-3).p_adjusted.max() < 1e-10
    # false-alarm rate at the band's edge stays <= alpha (200 tests of 10 columns at alpha = 0.05)
    hits = sum(mean_test(1.0 + 1e-3 + rng.standard_normal((30, 10)), np.ones(10), 0.05,
                         roundoff=1e-3).p_adjusted.min() < 0.05 for _ in range(200))
    assert hits <= 20  # expected <= 10; binomial(200, 0.05) exceeds 20 with probability 1e-3


@pytest.mark.parametrize("seed", SEEDS)
def test_correct_float32_map_passes_unbiasedness(seed):
    r = rfverify.verify(em.cossin_float32, **RBF, seed=seed, profile="quick", checks=["unbiasedness"])
    assert r["unbiasedness"].status == "pass", r["unbiasedness"].message


def test_correct_float32_map_passes_the_default_suite():
    r = rfverify.verify(em.cossin_float32, **RBF, checks=["unbiasedness", "error-rate", "concentration"])
    assert r.passed, r.table()
    assert r["unbiasedness"].details["dtype"] == "float32"


def test_biased_float32_twin_fails_with_the_pattern_in_the_headline():
    res = rfverify.verify(em.cossin_float32_scaled, **RBF, checks=["unbiasedness"])["unbiasedness"]
    assert res.status == "fail"
    assert "estimates about 0.75" in res.message and "× k everywhere" in res.message, res.message


def test_headline_pair_is_not_a_roundoff_only_pair():
    # cos^2 + sin^2 = 1: the equal pair is exact to float32 round-off for any frequency law, so the headline
    # must name a pair that shows the bias, with the k^a pattern
    res = rfverify.verify(em.cossin_float32_bandwidth, **RBF, checks=["unbiasedness"])["unbiasedness"]
    assert res.status == "fail"
    worst = res.message.split("where: pair ", 1)[1]
    assert not worst.split("(", 1)[1].startswith("equal"), res.message
    assert "estimates k^0.5" in res.message or "estimates k^0.49" in res.message, res.message


def test_error_rate_uses_the_width_the_map_returns():
    res = rfverify.verify(em.cossin_rounds_up, **RBF, checks=["error-rate"])["error-rate"]
    assert res.status == "pass", res.message
    assert res.details["m_out"][0] == 48


@pytest.mark.parametrize("check", ["error-rate", "concentration"])
def test_downstream_failure_of_a_bias_says_so(check):
    for bug in (em.cossin_float32_scaled, em.cossin_float32_bandwidth):  # two kinds of bias
        res = rfverify.verify(bug, **RBF, checks=[check])[check]
        assert res.status == "fail"
        assert "consistent with a bias" in res.message and "no evidence of correlated features" in res.message
        assert "share their randomness" not in res.message and "even about its own mean" not in res.message


@pytest.mark.parametrize("check, hint", [("error-rate", "share their randomness"),
                                         ("concentration", "even about its own mean")])
def test_correlated_features_are_not_called_a_bias(check, hint):
    res = rfverify.verify(em.cossin_float32_shared, **RBF, checks=[check])[check]
    assert res.status == "fail"
    assert hint in res.message and "consistent with a bias" not in res.message, res.message

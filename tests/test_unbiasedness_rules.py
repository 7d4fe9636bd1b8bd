"""Unbiasedness: its helpers pinned directly (the survivors of its mutation run).

The diagnosis behind a bias (a constant factor, 1/m, a power of the RBF kernel), the classification of a bias
reported for schemes biased by design, and the t-test at a corner (constant and too-skewed pairs untested) —
each at both sides of its thresholds.  The whole check's outcomes are pinned by the verdict snapshots
(``tests/test_verdict_snapshots.py``).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from rfverify.properties.unbiasedness import _diagnose, _mean_test, classify
from rfverify.stats import cochran_constant, cochran_n, skewness, too_skewed

EXACT = np.array([1.0, 1.0, 0.8, 0.6, 0.4, 0.3, 0.2, 0.1, 0.05, 0.01, 0.0])


# ---------------------------------------------------------------- the diagnosis


def test_a_constant_factor_is_named_with_its_per_feature_factor():
    hint = _diagnose(0.5 * EXACT, EXACT)
    assert hint == "; estimates about 0.5 × k everywhere: a scale error in the features (a factor 0.707 in each feature)"


@pytest.mark.parametrize("c, named", [(1.04, False), (1.06, True), (0.96, False), (0.94, True), (2.0, True)])
def test_a_factor_is_named_only_beyond_five_percent(c, named):
    assert ("× k everywhere" in _diagnose(c * EXACT, EXACT)) is named


def test_a_factor_is_not_named_when_the_estimate_is_not_a_multiple_of_k():
    mean = 0.5 * EXACT + np.where(np.arange(EXACT.size) % 2 == 0, 0.06, -0.06)  # residual 0.12 of max 0.5: > 10%
    assert "× k everywhere" not in _diagnose(mean, EXACT)
    mean = 0.5 * EXACT + np.where(np.arange(EXACT.size) % 2 == 0, 0.04, -0.04)  # residual 0.08: < 10%
    assert "× k everywhere" in _diagnose(mean, EXACT)


def test_too_few_informative_pairs_give_no_factor():
    exact = np.array([1.0, 0.5, 1e-4, 0.0])  # two pairs above 1e-3
    assert _diagnose(0.5 * exact, exact) == ""
    exact = np.array([1.0, 0.5, 0.2, 1e-4])  # three
    assert "× k everywhere" in _diagnose(0.5 * exact, exact)


@pytest.mark.parametrize("m, named", [(256, True), (240, True), (200, False), (128, False), (None, False)])
def test_one_over_m_is_named_when_the_factor_is_one_over_m(m, named):
    hint = _diagnose(EXACT / 256, EXACT, m)
    assert "× k everywhere" in hint
    assert ("that is 1/m with m = " in hint) is named
    if named:
        assert hint.endswith(f"(a factor 0.0625 in each feature) — that is 1/m with m = {m}: features scaled by 1/m "
                             "instead of 1/sqrt(m)?")


def test_a_half_scale_is_not_called_one_over_m():
    assert "1/m" not in _diagnose(0.5 * EXACT, EXACT, 2 * 256)


def _rbf_pairs():
    exact = np.array([1.0, 0.999, 0.95, 0.8, 0.6, 0.4, 0.2, 0.1, 0.06, 0.04, 0.001])
    return exact


def test_a_power_of_the_rbf_kernel_is_named():
    exact = _rbf_pairs()
    hint = _diagnose(exact ** 0.5, exact, 256, "rbf")
    assert hint == ("; estimates k^0.5: for exp(-gamma r^2) this is gamma scaled by 0.5 (wrong frequency variance, or "
                    "a bandwidth read as gamma?)")
    assert _diagnose(exact ** 0.5, exact, 256, "laplacian") == ""  # only for exp(-gamma r^2)
    assert "k^2" in _diagnose(exact ** 2, exact, 256, "rbf")


@pytest.mark.parametrize("a, named", [(1.04, False), (1.06, True), (0.94, True), (0.96, False)])
def test_a_power_is_named_only_beyond_five_percent(a, named):
    exact = _rbf_pairs()
    assert ("estimates k^" in _diagnose(exact ** a, exact, 256, "rbf")) is named


def test_a_power_is_not_named_when_log_mean_is_not_a_multiple_of_log_k():
    exact = _rbf_pairs()
    inside = (exact > 0.05) & (exact < 0.999)
    wobble = np.where(np.arange(exact.size) % 2 == 0, 1.0, -1.0)
    assert "k^" not in _diagnose(exact ** 0.5 * np.exp(np.where(inside, 0.25 * wobble, 0.0)), exact, 256, "rbf")
    assert "estimates k^0.4" in _diagnose(exact ** 0.5 * np.exp(np.where(inside, 0.15 * wobble, 0.0)), exact, 256, "rbf")


def test_the_power_fit_uses_only_pairs_with_k_and_the_mean_in_0_05_to_0_999():
    exact = _rbf_pairs()
    mean = exact ** 0.5
    # pairs outside (0.05, 0.999) may be anything: k = 1, 0.999, 0.04 and 0.001 get wild means
    wild = mean.copy()
    wild[[0, 1, 9, 10]] = [0.5, 0.5, 0.9, 0.9]
    assert "k^0.5" in _diagnose(wild, exact, 256, "rbf")
    # a pair whose mean is <= 0.05 is left out too (its log is too noisy)
    low = mean.copy()
    low[3] = 0.04
    assert "k^0.5" in _diagnose(low, exact, 256, "rbf")


def test_the_power_needs_three_pairs():
    exact = np.array([1.0, 0.8, 0.5, 0.3])  # three pairs inside (0.05, 0.999)
    assert "k^0.5" in _diagnose(exact ** 0.5, exact, 256, "rbf")
    exact = np.array([1.0, 0.8, 0.5, 0.01])  # two
    assert _diagnose(exact ** 0.5, exact, 256, "rbf") == ""


def test_a_factor_is_named_before_a_power():
    exact = _rbf_pairs()
    hint = _diagnose(0.5 * exact, exact, 256, "rbf")
    assert "× k everywhere" in hint and "k^" not in hint


# ---------------------------------------------------------------- the classification


LABELS = ("equal", "near", "far")


def test_no_rejection_is_unbiased():
    assert classify(np.array([0.3, 0.0, 0.0]), np.full(3, 0.1), np.zeros(3, bool), 0.01, LABELS) == "unbiased"


def test_a_rejection_within_the_bound_is_biased_within_it():
    bias, hw = np.array([0.05, -0.05, 0.0]), np.full(3, 0.02)
    rej = np.array([True, True, False])
    assert classify(bias, hw, rej, 0.04, LABELS) == "biased within declared bound ±0.04"  # [0.03, 0.07] meets ±0.04
    assert classify(bias, hw, rej, 0.02, LABELS) == "biased (measured +0.05 ± 0.02 at equal)"  # [0.03, 0.07] > 0.02
    assert classify(-bias, hw, rej, 0.02, LABELS) == "biased (measured -0.05 ± 0.02 at equal)"  # below -0.02
    assert classify(bias, hw, rej, None, LABELS) == "biased (measured +0.05 ± 0.02 at equal)"


def test_the_measured_bias_is_the_largest_among_rejecting_pairs():
    bias, hw = np.array([0.5, -0.2, -0.1]), np.array([0.6, 0.01, 0.01])
    rej = np.array([False, False, True])
    assert classify(bias, hw, rej, None, LABELS) == "biased (measured -0.1 ± 0.01 at far)"
    rej = np.array([False, True, True])
    assert classify(bias, hw, rej, None, LABELS) == "biased (measured -0.2 ± 0.01 at near)"


def test_a_bias_just_below_the_bound_is_within_it():
    bias, hw, rej = np.array([0.05, 0.0, 0.0]), np.array([0.02, 0.0, 0.0]), np.array([True, False, False])
    assert classify(bias, hw, rej, 0.031, LABELS).startswith("biased within")  # lo = 0.03 < 0.031
    assert classify(bias, hw, rej, 0.029, LABELS).startswith("biased (measured")
    assert classify(-bias, hw, rej, 0.031, LABELS).startswith("biased within")
    assert classify(-bias, hw, rej, 0.029, LABELS).startswith("biased (measured")


# ---------------------------------------------------------------- the t-test at a corner


def _ctx(corner):
    return SimpleNamespace(corner=corner)


def test_at_the_main_configuration_every_pair_is_tested():
    rng = np.random.default_rng(1)
    values = np.c_[rng.normal(0.5, 0.1, 60), np.full(60, 0.2), rng.normal(0.0, 0.1, 60)]
    exact = np.array([0.5, 0.3, 0.0])
    t = _mean_test(_ctx(None), values, exact, 1e-3, 1e-12)
    assert t.p_adjusted[1] == 0.0  # a constant pair off its exact value is tested exactly, and rejects


def test_at_a_corner_a_constant_pair_among_varying_ones_is_not_tested():
    rng = np.random.default_rng(1)
    values = np.c_[rng.normal(0.5, 0.1, 60), np.full(60, 0.2), rng.normal(0.0, 0.1, 60)]
    exact = np.array([0.4, 0.3, 0.0])
    t = _mean_test(_ctx("corner"), values, exact, 1e-3, 1e-12)
    assert (t.p_adjusted[1], t.p[1], t.t[1]) == (1.0, 1.0, 0.0)
    assert t.p_adjusted[0] < 1e-3 and t.t[0] > 5  # the varying pairs are tested
    assert t.mean[1] == pytest.approx(0.2)


def test_at_a_corner_an_all_constant_estimate_is_tested_as_exact():
    values = np.tile([0.5, 0.2], (30, 1))
    t = _mean_test(_ctx("corner"), values, np.array([0.5, 0.3]), 1e-3, 1e-12)
    assert t.p_adjusted[0] == 1.0 and t.p_adjusted[1] == 0.0


def test_at_a_corner_a_too_skewed_pair_is_not_tested_at_the_per_pair_level():
    n = 60
    skewed = np.where(np.arange(n) % 20 == 0, 10.0, 0.0)  # G1 about 4.1: needs ~ K(level) G1^2 >> 60 seeds
    normal = np.random.default_rng(2).normal(0.0, 1.0, n)
    values = np.c_[skewed, normal]
    exact = np.array([-1.0, 0.0])  # the skewed pair's mean 0.5 is far from -1: the t-test would reject it
    t = _mean_test(_ctx("corner"), values, exact, 1e-3, 1e-12)
    assert (t.p_adjusted[0], t.p[0], t.t[0]) == (1.0, 1.0, 0.0)
    # judged at the per-pair level alpha / P: at the check's level alone (1e-3 / 2 * 2) the pair is not untested
    assert too_skewed(values, 1e-3 / 2)[0]
    plain = _mean_test(_ctx(None), values, exact, 1e-3, 1e-12)
    assert plain.p_adjusted[0] < 1e-3


def test_skewness_and_cochran_n():
    values = np.c_[np.where(np.arange(100) % 10 == 0, 9.0, 0.0), np.full(100, 3.0), np.arange(100.0)]
    g1 = skewness(values)
    assert g1[0] == pytest.approx(8 / 3)  # a two-point law with p = 0.1: (1 - 2p) / sqrt(p (1 - p))
    assert g1[1] == 0.0 and abs(g1[2]) < 1e-12
    assert cochran_n(values, 0.05) == int(np.ceil(25 * (8 / 3) ** 2))  # 178
    assert cochran_n(values, 0.05, cap=100) == 0  # no pair that 100 seeds could make testable
    assert cochran_n(values, 0.05, cap=200) == 178
    assert not too_skewed(values[:, :1].repeat(2, axis=0), 0.05)[0]  # 200 > 178 seeds
    assert too_skewed(values[:, :1], 0.05)[0]  # 100 <= 178


def test_the_corner_judges_skewness_at_the_per_pair_level():
    """A pair skewed enough for Cochran's rule at alpha / P (untested) but not at alpha x P (tested)."""
    n = 600
    skewed = np.where(np.arange(n) % 4 == 0, 1.0, 0.0)  # G1 = 1.155: K(5e-4) G1^2 = 888 > 600 > K(2e-3) G1^2 = 444
    values = np.c_[skewed, np.random.default_rng(3).normal(0.0, 1.0, n)]
    t = _mean_test(_ctx("corner"), values, np.array([0.0, 0.0]), 1e-3, 1e-12)  # per-pair level 1e-3 / 2
    assert (t.p_adjusted[0], t.t[0]) == (1.0, 0.0)
    assert not too_skewed(values, 2e-3)[0]  # at alpha x P it would be tested (and reject: mean 0.25, exact 0)


def test_cochrans_constant_at_the_levels_a_corner_uses():
    assert cochran_constant(0.05) == pytest.approx(25.0, rel=1e-12)
    assert cochran_constant(5e-4) == pytest.approx(665.794, rel=1e-5)  # 25 (e(z) / e(1.96))^2, e(z) = z (2 z^2 + 1)
    assert cochran_constant(2e-3) == pytest.approx(333.002, rel=1e-5)
    assert cochran_constant(0.5) == cochran_constant(0.05)  # never below Cochran's own 25


def test_cochran_n_is_zero_when_no_pair_is_within_the_cap():
    skewed = np.where(np.arange(100) % 10 == 0, 9.0, 0.0)[:, None]  # needs 178 seeds at 0.05
    assert cochran_n(skewed, 0.05, cap=100) == 0
    assert cochran_n(skewed, 0.05) == 178


# ---------------------------------------------------------------- the interval a failure states


def test_a_failure_states_its_interval_at_the_level_of_one_look():
    """Each of the two looks is tested at alpha / 2 (Bonferroni over them): the interval a failure quotes, and the
    count of rejecting pairs, are at that level — 1 - alpha / 2, not 1 - alpha — whether the map claims to be
    unbiased or declares a bias bound (whose verdict carries no alpha of its own: the check's is the claimed one's)."""
    import re

    import rfverify
    from tests.mutants import rff_mutants

    def run(**declared):
        r = rfverify.verify(rff_mutants.HalfScale, kernel_params={"gamma": 0.5}, bound=2 ** 0.5, profile="quick",
                            checks=["unbiasedness"], **declared)["unbiasedness"]
        assert r.status == "fail", r.message
        return r, float(re.search(r"\(([0-9.]+)% interval", r.message).group(1))  # six significant digits

    claimed, level = run()
    alpha = claimed.alpha
    assert level == pytest.approx(100 * (1 - alpha / 2), abs=1e-4), (level, alpha)
    rejecting = int(re.search(r"(\d+) of \d+ pairs reject", claimed.message).group(1))
    assert rejecting == int(np.sum(np.asarray(claimed.details["p_adjusted"]) < alpha / 2))
    _, level = run(unbiased=False, bias_bound=0.05)
    assert level == pytest.approx(100 * (1 - alpha / 2), abs=1e-4), (level, alpha)

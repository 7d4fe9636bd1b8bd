"""The statistics engine measured against known truths: size, power, formulas."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as st

from rfverify import stats, tolerances


def test_mean_test_false_alarm_rate_matches_alpha():
    # 4000 replications of a 10-column null: rejection rate of the Bonferroni
    # test must be <= alpha (up to a 3-sigma binomial margin).
    rng = np.random.default_rng(1)
    alpha, reps, hits = 0.05, 4000, 0
    for _ in range(reps):
        x = rng.standard_normal((60, 10)) * 0.2 + 0.5
        hits += stats.mean_test(x, np.full(10, 0.5), alpha).p_adjusted.min() < alpha
    margin = 3 * math.sqrt(alpha * (1 - alpha) / reps)
    assert hits / reps <= alpha + margin


def test_round_off_only_column_has_zero_t_and_never_headlines():
    """A column exact for every draw up to round-off (k(x, x) = 1 for a cos/sin map) gets t = 0 whatever its
    last bits: 4.4e-16 +- 1e-18 on one CPU must not outrank a real departure of 3.7 standard errors."""
    rng = np.random.default_rng(3)
    R = 50
    exact_col = 1.0 + 4.4e-16 + 1e-18 * rng.standard_normal(R)       # round-off only, tiny spread
    biased_col = 0.5 + 0.004 + 0.01 * rng.standard_normal(R)         # a real bias of about 3 se
    wrong_const = np.full(R, 0.75)                                   # zero spread but off by 0.25
    test = stats.mean_test(np.column_stack([exact_col, biased_col, wrong_const]), np.array([1.0, 0.5, 1.0]), 0.01)
    assert test.t[0] == 0.0 and test.p[0] == 1.0
    assert test.t[2] == -np.inf and test.p[2] == 0.0
    assert int(np.argmax(np.abs(test.t[:2]))) == 1


def test_required_trials_gives_stated_power():
    rng = np.random.default_rng(2)
    sigma, delta, alpha, power = 1.0, 0.3, 0.01, 0.9
    n = stats.required_trials(sigma, delta, alpha, power)
    crit = st.t.isf(alpha / 2, n - 1)
    rej = 0
    for _ in range(2000):
        x = rng.normal(delta, sigma, n)
        rej += abs(x.mean()) / (x.std(ddof=1) / math.sqrt(n)) > crit
    assert rej / 2000 >= power - 3 * math.sqrt(power * (1 - power) / 2000)
    assert stats.detectable_effect(sigma, n, alpha, power) <= delta


def test_binomial_and_clopper_pearson():
    assert stats.binomial_upper_test(0, 10, 0.1) == 1.0
    assert stats.binomial_upper_test(10, 10, 0.1) == pytest.approx(1e-10)
    lo, hi = stats.clopper_pearson(5, 100, 0.95)
    assert lo < 0.05 < hi and lo == pytest.approx(0.01643, abs=1e-4) and hi == pytest.approx(0.11284, abs=1e-4)


def test_log_slope_recovers_known_rate():
    rng = np.random.default_rng(3)
    ms = np.array([16, 32, 64, 128, 256])
    reps = [rng.exponential(1.0 / m, 400) for m in ms]
    fit = stats.log_slope(ms, reps)
    assert abs(fit.slope + 1) < 4 * fit.se
    flat = [rng.exponential(1.0, 400) for _ in ms]
    assert abs(stats.log_slope(ms, flat).slope) < 4 * stats.log_slope(ms, flat).se


def test_hoeffding_formulas_match_papers():
    # cs4787: 2 exp(-D a^2 / 8) for RFF (C = sqrt 2); daniely2017 Thm 3: q >= 2 C^4 log(2/delta) / eps^2.
    D, a = 1000, 0.1
    assert stats.hoeffding_bound(D, a, math.sqrt(2)) == pytest.approx(2 * math.exp(-D * a * a / 8))
    eps = stats.hoeffding_epsilon(D, 0.01, 1.5)
    assert stats.hoeffding_bound(D, eps, 1.5) == pytest.approx(0.01)
    q = 2 * 1.5**4 * math.log(2 / 0.01) / eps**2
    assert q == pytest.approx(D)


def test_roundoff_gamma():
    u = np.finfo(np.float64).eps / 2
    assert tolerances.roundoff_inner_product(10) == pytest.approx(10 * u / (1 - 10 * u))
    assert tolerances.roundoff_inner_product(10, np.float32) > 1e-7


def test_skewness_corrected_mean_test_is_calibrated_where_plain_t_is_not():
    """Exponential replicates (skewness 2), R = 300, two-sided alpha = 1e-3, 40 000 simulated tests:
    the plain t-test rejects a true mean about 2x too often (the O(R^-1/2) Edgeworth term); Hall's
    transform brings the rate back within the binomial interval of alpha.  A shifted mean is still found."""
    from rfverify.stats import clopper_pearson, mean_test

    rng = np.random.default_rng(5)
    alpha, reps, R = 1e-3, 40_000, 300
    X = rng.exponential(size=(R, reps))
    plain = mean_test(X, np.ones(reps), alpha * reps).p
    hall = mean_test(X, np.ones(reps), alpha * reps, skewness_correction=True).p
    k_plain, k_hall = int((plain < alpha).sum()), int((hall < alpha).sum())
    lo, hi = clopper_pearson(k_hall, reps, 0.999)
    assert lo <= alpha <= hi, (k_hall, reps)
    assert clopper_pearson(k_plain, reps, 0.999)[0] > alpha, (k_plain, reps)
    shifted = mean_test(rng.exponential(size=(R, 1)) + 0.6, np.ones(1), alpha, skewness_correction=True)
    assert shifted.p[0] < alpha

"""The statistics engine measured against known truths: size, power, formulas."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as st

from rfverify import stats, tolerances


def test_mean_test_fields_against_scipy():
    """Every field of MeanTest against scipy's one-sample t-test and the Bonferroni formulas (cheap, exact)."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((25, 4)) * np.array([1.0, 2.0, 0.5, 3.0]) + np.array([0.0, 0.3, -0.2, 1.0])
    exp = np.array([0.0, 0.0, 0.0, 1.5])
    r = stats.mean_test(x, exp, 0.01)
    ref = st.ttest_1samp(x, exp, axis=0)
    np.testing.assert_allclose(r.mean, x.mean(axis=0), rtol=1e-14)
    np.testing.assert_allclose(r.sd, x.std(axis=0, ddof=1), rtol=1e-14)
    np.testing.assert_allclose(r.t, ref.statistic, rtol=1e-12)
    np.testing.assert_allclose(r.p, ref.pvalue, rtol=1e-10)
    np.testing.assert_allclose(r.p_adjusted, np.minimum(1.0, 4 * ref.pvalue), rtol=1e-10)
    np.testing.assert_allclose(r.half_width, st.t.isf(0.01 / 8, 24) * r.sd / 5.0, rtol=1e-12)
    assert (r.n, r.alpha) == (25, 0.01)
    assert np.all(stats.mean_test(x, x.mean(axis=0), 0.01).p_adjusted == 1.0)  # p = 1 -> capped at 1, not 4


def test_mean_test_zero_variance_columns_are_judged_exactly():
    x = np.tile(np.array([1.0, 2.0, 3.0]), (10, 1))
    x[:, 2] += np.linspace(-1, 1, 10)  # one ordinary column
    r = stats.mean_test(x, np.array([1.0, 2.5, 3.0]), 0.05)
    assert r.p[0] == 1.0 and r.t[0] == 0.0  # equal to expected
    assert r.p[1] == 0.0 and r.t[1] == -np.inf  # differs: rejected, t = -inf
    assert 0 < r.p[2] == pytest.approx(1.0)
    jitter = stats.mean_test(np.full((10, 1), 5.0) + 1e-15 * np.arange(10)[:, None], np.array([5.0]), 0.05)
    assert jitter.p[0] == 1.0  # round-off spread is no spread
    off = stats.mean_test(np.full((10, 1), 5.0) + 1e-15 * np.arange(10)[:, None], np.array([5.001]), 0.05)
    assert off.p[0] == 0.0 and off.t[0] == -np.inf
    up = stats.mean_test(np.full((3, 1), 7.0), np.array([6.0]), 0.05)
    assert up.t[0] == np.inf


def test_mean_test_two_replicates_and_round_off_columns():
    two = stats.mean_test(np.array([[0.0], [2.0]]), np.array([0.0]), 0.05)
    assert two.sd[0] == pytest.approx(math.sqrt(2.0)) and two.t[0] == pytest.approx(1.0)
    assert two.p[0] == pytest.approx(0.5)  # 2 P(t_1 > 1)
    # a zero-variance column equal to the expectation up to round-off: t is exactly 0, not the round-off
    r = stats.mean_test(np.full((5, 1), 5.0 + 1e-13), np.array([5.0]), 0.05)
    assert r.t[0] == 0.0 and r.p[0] == 1.0


def test_mean_test_round_off_threshold_is_relative_to_the_expectation():
    """A spread within 1e-12 x max(1, |expected|) is no spread; a larger one is t-tested."""
    ulp = np.spacing(1000.0)
    big = stats.mean_test(1000.0 + ulp * np.array([[0.0], [1.0], [2.0], [0.0], [1.0]]), np.array([1000.0 + 3 * ulp]), 0.05)
    assert big.p[0] == 1.0  # spread ~6e-14 and difference 3e-13, both << 1e-9 = 1e-12 x 1000: not t-tested
    x = 0.5 + 4.5e-12 * np.array([[1.0], [-1.0]] * 5)  # sd = h sqrt(10/9), se = h / 3 = 1.5e-12
    r = stats.mean_test(x, np.array([0.5 + 1e-11]), 0.05)  # se 1.5e-12: above the 1e-12 threshold
    assert np.isfinite(r.t[0]) and r.p[0] < 0.05
    skew = stats.mean_test(np.full((5, 1), 2.0), np.array([2.0]), 0.05, skewness_correction=True)
    assert skew.t[0] == 0.0 and skew.p[0] == 1.0  # no spread, no skewness term


def test_mean_test_result_is_frozen():
    import dataclasses

    r = stats.mean_test(np.zeros((3, 1)), np.zeros(1), 0.05)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.n = 4  # type: ignore[misc]


def test_mean_test_single_replicate():
    r = stats.mean_test(np.array([[1.0, 2.0]]), np.array([1.0, 0.0]), 0.05)
    assert np.all(r.sd == 0) and r.p[0] == 1.0 and r.p[1] == 0.0
    assert np.all(r.half_width == 0)


def test_skewness_correction_is_halls_transform():
    rng = np.random.default_rng(8)
    x = rng.exponential(size=(50, 3))
    r = stats.mean_test(x, np.ones(3), 0.05, skewness_correction=True)
    m, sd = x.mean(axis=0), x.std(axis=0, ddof=1)
    t = (m - 1) / (sd / math.sqrt(50))
    skew = ((x - m) ** 3).mean(axis=0) / sd ** 3
    a = skew / (3 * math.sqrt(50))
    g = t + a * t * t + a * a * t ** 3 / 3 + a / 2
    np.testing.assert_allclose(r.t, g, rtol=1e-12)
    np.testing.assert_allclose(r.p, 2 * st.norm.sf(np.abs(g)), rtol=1e-10)
    plain = stats.mean_test(x, np.ones(3), 0.05)
    np.testing.assert_allclose(plain.t, t, rtol=1e-12)
    two = stats.mean_test(x[:2], np.ones(3), 0.05, skewness_correction=True)  # r <= 2: no correction
    plain2 = stats.mean_test(x[:2], np.ones(3), 0.05)
    np.testing.assert_allclose(two.t, plain2.t)
    np.testing.assert_allclose(two.p, plain2.p)  # the t reference, not the normal one
    y = x[:3]  # r = 3: corrected
    m3, sd3 = y.mean(axis=0), y.std(axis=0, ddof=1)
    t3 = (m3 - 1) / (sd3 / math.sqrt(3))
    a3 = ((y - m3) ** 3).mean(axis=0) / sd3 ** 3 / (3 * math.sqrt(3))
    np.testing.assert_allclose(stats.mean_test(y, np.ones(3), 0.05, skewness_correction=True).t,
                               t3 + a3 * t3 * t3 + a3 * a3 * t3 ** 3 / 3 + a3 / 2, rtol=1e-12)


def test_required_trials_edges_and_monotonicity():
    with pytest.raises(ValueError, match="^delta must be positive$"):
        stats.required_trials(1.0, 0.0, 0.05, 0.9)
    with pytest.raises(ValueError):
        stats.required_trials(1.0, -1.0, 0.05, 0.9)
    assert stats.required_trials(0.0, 1.0, 0.05, 0.9) == 2
    assert stats.required_trials(-1.0, 1.0, 0.05, 0.9) == 2
    assert stats.required_trials(1e-3, 1.0, 0.05, 0.9) == 2
    n = [stats.required_trials(s, 1.0, 1e-3, 0.9) for s in (0.5, 1.0, 2.0, 4.0)]
    assert n == sorted(n) and len(set(n)) == 4
    assert stats.required_trials(1.0, 1.0, 1e-3, 0.99) > stats.required_trials(1.0, 1.0, 1e-3, 0.9)
    assert stats.required_trials(1.0, 1.0, 1e-5, 0.9) > stats.required_trials(1.0, 1.0, 1e-3, 0.9)
    # large n: the t-test and the normal approximation agree to within a few replicates
    z = ((st.norm.isf(0.005) + st.norm.isf(0.1)) * 10.0) ** 2
    assert math.ceil(z) <= stats.required_trials(10.0, 1.0, 0.01, 0.9) <= math.ceil(z) + 4


def test_t_test_power_against_scipy_nct_and_limits():
    for n, e, a in ((10, 0.8, 0.05), (40, 0.5, 0.01), (200, 0.3, 1e-3), (5, 2.0, 0.05)):
        c = st.t.isf(a / 2, n - 1)
        want = st.nct.sf(c, n - 1, e * math.sqrt(n)) + st.nct.cdf(-c, n - 1, e * math.sqrt(n))
        assert stats.t_test_power(n, e, a) == pytest.approx(want, abs=2e-6)
    assert stats.t_test_power(30, 0.0, 0.05) == pytest.approx(0.05, abs=2e-6)  # no shift: power = alpha
    assert stats.t_test_power(1, 5.0, 0.05) == 0.05
    assert stats.t_test_power(30, 10.0, 0.05) == 1.0


def test_detectable_effect_inverts_the_power():
    for sigma, n, a, p in ((1.0, 30, 0.01, 0.9), (2.5, 200, 1e-4, 0.99), (0.3, 3, 0.05, 0.8)):
        e = stats.detectable_effect(sigma, n, a, p)
        assert stats.t_test_power(n, e / sigma, a) == pytest.approx(p, abs=1e-8)
    z = (st.norm.isf(0.025) + st.norm.isf(0.1)) * 2.0
    assert stats.detectable_effect(2.0, 1, 0.05, 0.9) == pytest.approx(z)
    assert stats.detectable_effect(2.0, 0, 0.05, 0.9) == pytest.approx(z)


def test_binomial_upper_test_edges():
    assert stats.binomial_upper_test(-1, 10, 0.5) == 1.0
    assert stats.binomial_upper_test(1, 10, 0.0) == 0.0
    assert stats.binomial_upper_test(1, 10, -0.5) == 0.0  # p0 clipped to [0, 1]
    assert stats.binomial_upper_test(10, 10, 1.5) == 1.0
    assert stats.binomial_upper_test(3, 10, 0.2) == pytest.approx(st.binom.sf(2, 10, 0.2))


def test_clopper_pearson_edges():
    assert stats.clopper_pearson(0, 20, 0.9) == (0.0, pytest.approx(1 - 0.05 ** (1 / 20)))
    lo, hi = stats.clopper_pearson(20, 20, 0.9)
    assert hi == 1.0 and lo == pytest.approx(0.05 ** (1 / 20))
    lo, hi = stats.clopper_pearson(3, 10)
    assert lo == pytest.approx(st.beta.ppf(0.025, 3, 8)) and hi == pytest.approx(st.beta.isf(0.025, 4, 7))


def test_log_slope_is_weighted_least_squares():
    ms = np.array([10.0, 20.0, 40.0])
    reps = [np.array([1.0, 1.2, 0.9, 1.1]), np.array([0.5, 0.7, 0.6, 0.4]), np.array([0.3, 0.2, 0.25, 0.35])]
    fit = stats.log_slope(ms, reps)
    means = np.array([r.mean() for r in reps])
    var = np.array([r.var(ddof=1) / (len(r) * r.mean() ** 2) for r in reps])
    X = np.column_stack([np.ones(3), np.log(ms)])
    W = np.diag(1 / var)
    beta = np.linalg.solve(X.T @ W @ X, X.T @ W @ np.log(means))
    cov = np.linalg.inv(X.T @ W @ X)
    assert fit.slope == pytest.approx(beta[1], rel=1e-10) and fit.intercept == pytest.approx(beta[0], rel=1e-10)
    assert fit.se == pytest.approx(math.sqrt(cov[1, 1]), rel=1e-10)
    np.testing.assert_allclose(fit.x, ms) and np.testing.assert_allclose(fit.y, means)
    np.testing.assert_allclose(fit.y_se, np.sqrt(var), rtol=1e-12)


def test_hoeffding_edges():
    assert stats.hoeffding_bound(1, 0.0, 1.0) == 1.0  # capped at 1
    assert stats.hoeffding_bound(100, 0.5, 1.0) == pytest.approx(2 * math.exp(-100 * 0.25 / 2))
    assert stats.hoeffding_epsilon(100, 0.1, 2.0) == pytest.approx(4 * math.sqrt(2 * math.log(20) / 100))


# ---------------------------------------------------------------- decision rules pinned exactly (mutation)
# Each test below kills mutmut mutants of rfverify/stats.py that the tests above let survive (named in `Kills:`);
# stubbed inputs with exact expected numbers, milliseconds each.

def test_mean_test_band_shrinks_the_difference_towards_the_band_edge():
    """t = sign(diff) max(|diff| - band, 0) / se: the column is tested at the round-off band's nearer edge.

    Kills: ``np.abs(diff) - band`` -> ``+ band`` (a band that inflates t instead of shrinking it).
    """
    x = np.array([[1.0, -1.0, 0.1], [3.0, -3.0, -0.1]])  # means 2, -2, 0; se = sd / sqrt(2) = 1, 1, 0.1
    r = stats.mean_test(x, np.zeros(3), 0.05, roundoff=0.5)
    np.testing.assert_allclose(r.t, [1.5, -1.5, 0.0], rtol=1e-15, atol=0)
    np.testing.assert_allclose(r.p[:2], 2 * st.t.sf(1.5, 1), rtol=1e-12)
    assert r.p[2] == 1.0 and list(r.roundoff_only) == [False, False, True]


def test_mean_test_band_edge_is_inside_the_band():
    """A zero-spread column exactly at the band's edge (|diff| == roundoff) is round-off only: p = 1, t = 0.

    Kills: ``np.abs(diff) <= exact_tol`` -> ``<`` in ``close`` and in the ``roundoff_only`` field.
    """
    r = stats.mean_test(np.full((4, 2), 0.25), np.array([0.0, 0.5]), 0.05, roundoff=0.25)
    assert list(r.p) == [1.0, 1.0] and list(r.t) == [0.0, 0.0]
    assert list(r.roundoff_only) == [True, True]
    beyond = stats.mean_test(np.full((4, 1), 0.25), np.array([0.0]), 0.05, roundoff=np.nextafter(0.25, 0))
    assert beyond.p[0] == 0.0 and beyond.t[0] == np.inf and not beyond.roundoff_only[0]


def test_mean_test_spread_at_the_round_off_threshold_is_no_spread():
    """se == 1e-12 x max(1, |expected|) exactly is judged as no spread (exact comparison, t = -inf), as documented.

    Kills: ``se <= spread_tol`` -> ``se < spread_tol`` (the column would be t-tested: t = -1e12, p > 0).
    """
    x = np.array([[-1e-11], [1e-11]])  # se = 1e-11 exactly; threshold 1e-12 x 10 = 1e-11 exactly
    assert x.std(ddof=1) / math.sqrt(2) == 1e-12 * 10.0
    r = stats.mean_test(x, np.array([10.0]), 0.05)
    assert r.t[0] == -np.inf and r.p[0] == 0.0


def test_mean_test_interval_uses_r_minus_1_degrees_of_freedom_at_two_replicates():
    """Two replicates: the simultaneous half-width is t_{1}(alpha / 2P) x se (1 d.o.f., not 2).

    Kills: ``df=max(r - 1, 1)`` -> ``max(r - 1, 2)`` in the critical value.
    """
    r = stats.mean_test(np.array([[0.0, 1.0], [2.0, 4.0]]), np.zeros(2), 0.05)
    np.testing.assert_allclose(r.half_width, st.t.isf(0.05 / 4, 1) * np.array([1.0, 1.5]), rtol=1e-14)


def test_mean_test_round_off_marking_defaults_to_none():
    """A MeanTest built by hand (a stubbed check's statistics) carries no round-off marking unless given one.

    Kills: the ``roundoff_only`` default ``None`` -> ``""``.
    """
    z = np.zeros(1)
    assert stats.MeanTest(z, z, z, z, z, z, 3, 0.05).roundoff_only is None


@pytest.mark.parametrize("e, alpha", [(0.5, 0.01), (1.0, 1e-4), (2.0, 1e-6), (5.0, 1e-12)])
def test_required_trials_is_the_smallest_n_reaching_the_power_even_at_a_tie(e, alpha):
    """With the target set to the exact power at N, the smallest n with power >= target is N itself (>=, not >).

    The targets hit N as the normal-approximation start, as a doubled bracket end and as a bisection midpoint.
    Kills: ``>= power`` -> ``> power`` at the start, in the doubling and in the bisection (each returns N + 1 or
    more at some N), and the start's normal approximation when it overshoots N.
    """
    got = {}
    for n in range(2, 60):
        target = stats.t_test_power(n, e, alpha)
        if alpha < target < 1.0:
            got[n] = stats.required_trials(1.0, e, alpha, target)
    assert len(got) >= 5 and all(v == n for n, v in got.items()), {n: v for n, v in got.items() if v != n}


@pytest.mark.parametrize("e, alpha, power, n", [(10.0, 1e-12, 0.9, 14), (5.0, 1e-12, 0.99, 21), (3.0, 1e-9, 0.9, 21)])
def test_required_trials_when_the_normal_start_is_far_too_small(e, alpha, power, n):
    """Tiny alpha, large shift: the normal approximation starts at n0 = 2..7 and the bracket must double
    several times (power at 2 n0 is < 0.11); the result is the linear scan's smallest n.

    Kills: the doubling step ``lo, hi = hi, 2 * hi`` -> ``2 / hi`` or ``None``.
    """
    assert stats.required_trials(1.0, e, alpha, power) == n
    assert stats.t_test_power(n, e, alpha) >= power > stats.t_test_power(n - 1, e, alpha)


@pytest.mark.parametrize("n, alpha, power", [(10, 0.4, 0.7), (10, 0.4, 0.9), (10, 0.3, 0.8), (2, 0.05, 0.9),
                                            (4, 0.05, 0.9), (50, 1e-6, 0.99)])
def test_detectable_effect_is_positive_and_inverts_the_power_at_any_level(n, alpha, power):
    """The detectable shift is the positive root of power(shift) = target for any level in (0, 1).

    Kills: ``_z(alpha_two_sided / 2)`` -> ``* 2`` in the bracket's start (negative for alpha = 0.4, power 0.7:
    the root found is the negative shift), ``+ _z(1.0 - power)`` -> ``-`` (negative at alpha 0.4, power 0.9);
    ``n < 2`` -> ``n <= 2`` or ``n < 3`` (n = 2 is a t-test with 1 d.o.f.:
    the normal approximation gives 3.24 instead of 14.8).
    """
    eff = stats.detectable_effect(1.0, n, alpha, power)
    assert eff > 0 and stats.t_test_power(n, eff, alpha) == pytest.approx(power, abs=1e-9)


def test_slope_fit_is_frozen_and_zero_variance_points_get_the_floor_weight():
    """Points with zero replicate variance get weight 1 / 1e-300 (the floor), so the slope's se is
    sqrt(1e-300 / sum (x - mean x)^2); SlopeFit, like MeanTest, is immutable.

    Kills: ``@dataclass(frozen=True)`` -> ``frozen=False`` on SlopeFit; the floor ``1e-300`` -> ``2e-300``.
    """
    import dataclasses

    ms = np.array([10.0, 20.0, 40.0])
    fit = stats.log_slope(ms, [np.full(4, 1.0), np.full(4, 0.5), np.full(4, 0.25)])
    x = np.log(ms)
    assert fit.slope == pytest.approx(-1.0, rel=1e-12)
    assert fit.se == pytest.approx(math.sqrt(1e-300 / np.sum((x - x.mean()) ** 2)), rel=1e-12, abs=0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fit.slope = 0.0  # type: ignore[misc]


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
    assert tolerances.roundoff_inner_product(10) == pytest.approx(10 * u / (1 - 10 * u), rel=1e-14, abs=0)
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


@pytest.mark.parametrize("alpha, e, power", [(0.2, 0.05, 0.8), (0.1, 0.05, 0.5), (0.3, 0.306, 0.4)])
def test_required_trials_is_the_smallest_n_where_the_normal_start_overshoots(alpha, e, power):
    """At large alpha the normal-approximation start already has the power (it ignores the far tail's
    rejections) and is not the smallest such n; the search goes below it (the old code returned the start:
    1804 instead of the minimum at alpha 0.2, delta/sigma 0.05, power 0.8)."""
    n = stats.required_trials(1.0, e, alpha, power)
    assert stats.t_test_power(n, e, alpha) >= power > stats.t_test_power(n - 1, e, alpha)


# -- the small statistics the checks share (moved here from the checks) ------------------------------------------
def test_t_interval_is_the_student_interval_over_the_finite_values():
    v = [1.0, 2.5, 3.0, 7.0]
    mean, lo, hi = stats.t_interval(v + [math.nan, math.inf])  # non-finite values left out
    want = st.t.interval(0.95, len(v) - 1, loc=np.mean(v), scale=st.sem(v))
    assert mean == pytest.approx(np.mean(v)) and (lo, hi) == pytest.approx(want, rel=1e-12)
    assert stats.t_interval(v, 0.9)[1:] == pytest.approx(st.t.interval(0.9, 3, loc=np.mean(v), scale=st.sem(v)))
    assert stats.t_interval([4.0]) == (4.0, -math.inf, math.inf)  # no interval from one seed
    assert all(math.isnan(x) for x in stats.t_interval([math.nan])) and all(math.isnan(x) for x in stats.t_interval([]))
    assert stats.t_interval([2.0, 2.0, 2.0]) == (2.0, 2.0, 2.0)  # zero spread: the point interval


@pytest.mark.parametrize("x", [[0.3, -0.1, 0.8, 0.05, 0.4], [1.0, 3.0], [-2.0, -1.0, 0.5]])
def test_one_sided_t_is_scipys_greater_alternative(x):
    ref = st.ttest_1samp(x, 0.0, alternative="greater")
    assert stats.one_sided_t(np.array(x)) == pytest.approx((ref.statistic, ref.pvalue), rel=1e-12)


@pytest.mark.parametrize("x,want", [([1.0, 1.0, 1.0], (math.inf, 0.0)), ([-1.0, -1.0], (-math.inf, 1.0)),
                                    ([0.0, 0.0], (0.0, 1.0)), ([5.0], (math.inf, 0.0)), ([-5.0], (-math.inf, 1.0))])
def test_one_sided_t_decides_zero_spread_exactly_by_the_sign_of_the_mean(x, want):
    assert stats.one_sided_t(np.array(x)) == want


def test_cochrans_constant_is_25_at_its_level_and_grows_with_the_edgeworth_term():
    def e(z):
        return z * (2 * z * z + 1)

    z0 = st.norm.isf(0.025)
    assert stats.cochran_constant() == pytest.approx(25.0) and stats.cochran_constant(0.05) == pytest.approx(25.0)
    assert stats.cochran_constant(0.2) == pytest.approx(25.0)  # never below Cochran's own
    for alpha in (1e-3, 1.7e-6):
        z = st.norm.isf(alpha / 2)
        assert stats.cochran_constant(alpha) == pytest.approx(25.0 * (e(z) / e(z0)) ** 2, rel=1e-12)
    assert 150 < stats.cochran_constant(1.7e-6) / 25.0 < 200  # "about 170 times larger" at z = 4.8


def test_skewness_is_the_biased_moment_ratio_and_zero_for_a_constant_column():
    rng = np.random.default_rng(3)
    values = np.column_stack([rng.exponential(0.3, 40) + 5.0, rng.standard_normal(40) * 0.2 - 1.0,
                              np.full(40, 2.5)])
    np.testing.assert_allclose(stats.skewness(values)[:2], st.skew(values[:, :2], axis=0, bias=True), rtol=1e-10)
    assert stats.skewness(values)[2] == 0.0


def test_cochrans_rule_per_pair_and_the_seeds_it_asks_for():
    rng = np.random.default_rng(4)
    values = np.column_stack([rng.exponential(1.0, 30), rng.standard_normal(30), np.full(30, 1.0)])
    g1 = st.skew(values[:, :2], axis=0, bias=True)
    need = stats.cochran_constant(1e-3) * g1 ** 2
    assert stats.too_skewed(values, 1e-3).tolist() == [30 <= need[0], 30 <= need[1], False]
    assert stats.cochran_n(values, 1e-3) == math.ceil(max(need))
    assert stats.cochran_n(values, 1e-3, cap=int(min(need)) + 1) == math.ceil(min(need))  # the pairs a cap can serve
    assert stats.cochran_n(values, 1e-3, cap=0) == 0  # none can be served (the constant pair needs none)
    assert stats.cochran_n(values[:, 2:], 1e-3, cap=-1) == 0


def test_too_skewed_compares_the_seeds_with_the_squared_skewness():
    """30 seeds at Cochran's level (K = 25): one outlier (G1 about 5.2, needs about 680) is too skewed; a Bernoulli
    column with p = 1/3 (G1 = 1/sqrt(2), needs 12.5) and a symmetric one (needs 0) are not."""
    values = np.column_stack([[0.0] * 29 + [1.0], [0.0] * 20 + [1.0] * 10, [-1.0, 1.0] * 15])
    assert stats.skewness(values)[1] == pytest.approx(1 / math.sqrt(2))
    assert stats.too_skewed(values, 0.05).tolist() == [True, False, False]
    assert stats.too_skewed(np.array([[0.0]] * 8 + [[1.0]] * 4), 0.05).tolist() == [True]  # 12 seeds <= 12.5

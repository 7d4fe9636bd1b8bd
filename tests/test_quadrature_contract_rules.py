"""The quadrature rule contract's decision rules, pinned: two draws from equal rng states are
identical, a draw from another state differs (the same, for a rule declared deterministic), and a rule that
touches numpy's global state is a plug-in error (the guard's verdict around every check); and the exactness
check's messages, whose exact moments are integers (Isserlis)."""

from __future__ import annotations

import numpy as np
import pytest

from rfverify.kinds.quadrature import verify_quadrature

WHERE = "where: d = 3, draws of 16 points"


def monte_carlo(d, rng):
    return rng.standard_normal((16, d)), np.full(16, 1 / 16)


def hidden_entropy(d, rng):
    return monte_carlo(d, np.random.default_rng())


def ignores_rng(d, rng):
    return monte_carlo(d, np.random.default_rng(0))


class _Calls:
    n = 0


def global_draw_after_the_preflight(d, rng):
    _Calls.n += 1
    if _Calls.n >= 2:
        np.random.rand()
    return monte_carlo(d, rng)


def _contract(rule, deterministic=False):
    return verify_quadrature(rule, dim=3, checks=["rule-contract"], deterministic=deterministic)["rule-contract"]


def test_a_random_rule_passes():
    res = _contract(monte_carlo)
    assert (res.status, res.message) == ("pass", "draws of 16 points in d = 3, reproducible from rng, random across seeds")
    assert res.details == {"n_points": 16}


@pytest.mark.parametrize("rule,deterministic,message", [
    (hidden_entropy, False, "not reproducible from rng — observed: two draws from identical rng states differ; "
                            f"expected: identical draws (points and weights); {WHERE}; likely cause: the rule has a "
                            "hidden source of randomness"),
    (ignores_rng, False, "not random — observed: draws from different rng states are identical; expected: different "
                         f"draws: a stochastic rule takes its randomness from rng; {WHERE}; likely cause: the rule "
                         "ignores rng: if it is a deterministic rule (a cubature), declare it deterministic "
                         "(--deterministic) and, unless it is exact, biased (--biased)"),
    (monte_carlo, True, "not deterministic — observed: draws from different rng states differ; expected: the same "
                        f"draw for every rng state (declared deterministic); {WHERE}; likely cause: the rule draws "
                        "random numbers: do not declare it deterministic"),
])
def test_each_way_of_misusing_rng_fails_with_its_message(rule, deterministic, message):
    res = _contract(rule, deterministic)
    assert (res.status, res.message) == ("fail", message)


def test_a_rule_declared_deterministic_passes_when_it_draws_nothing():
    res = _contract(ignores_rng, deterministic=True)
    assert (res.status, res.message) == ("pass", "the same 16 points and weights for every rng state, as declared "
                                                 "deterministic (d = 3); numpy's global state untouched")


def test_drawing_from_numpys_global_state_is_a_plugin_error():
    _Calls.n = 0  # the preflight call draws nothing; the check's draws do
    res = _contract(global_draw_after_the_preflight)
    assert res.status == "error"
    assert res.message.startswith("global_draw_after_the_preflight: changed numpy's global random state "
                                  "(np.random.*) during check rule-contract")


# ---------------------------------------------------------------- the exactness check's messages
def antithetic(d, rng):
    """x and -x with equal weights: exact at degrees 0 and 1 for every draw, not at 2."""
    X = rng.standard_normal((8, d))
    return np.vstack([X, -X]), np.full(16, 1 / 16)


def half_weights(d, rng):
    return rng.standard_normal((16, d)), np.full(16, 1 / 32)


def test_exactness_names_the_exact_moment_as_the_integer_it_is():
    import re

    res = verify_quadrature(antithetic, dim=3, degree=2, checks=["exactness"])["exactness"]
    assert res.status == "fail" and res.message.startswith("not exact at degree 2 (claimed 2) — observed: random "
                                                           "polynomial 0 of degree 2 integrates to "), res.message
    assert re.search(r"; expected: the exact Gaussian moment -?\d+, to the round-off tolerance ", res.message), res.message
    assert res.message.endswith("exact through degree 1 only")
    res = verify_quadrature(half_weights, dim=3, degree=0, checks=["exactness"])["exactness"]
    assert re.search(r"observed: the weights integrate the constant (-?\d+) to (-?\d+); \|error\| \d+(\.\d+)?; "
                     r"expected: \1, to the round-off tolerance ", res.message), res.message


def test_random_forms_are_uniform_over_the_nonzero_integer_vectors():
    """At d = 1 a form is one integer in {-2, -1, 1, 2} (a zero form is redrawn, not shifted): 10000 forms,
    Pearson's chi-square against uniform at alpha = 1e-6 (power ~1 against a redraw biased to one value,
    e.g. 0.4 on 2 instead of 0.25)."""
    from scipy import stats

    from rfverify.properties.quadrature_exactness import FORM_ENTRIES, TERMS, _random_polynomial

    rng = np.random.default_rng(20261126)
    values = np.concatenate([A.ravel() for _ in range(10000 // TERMS) for _, A in _random_polynomial(1, 1, rng)])
    support = [v for v in range(-FORM_ENTRIES, FORM_ENTRIES + 1) if v]
    assert set(values.tolist()) == set(support)
    counts = [int(np.sum(values == v)) for v in support]
    assert stats.chisquare(counts).pvalue > 1e-6, counts


def test_the_zero_polynomial_is_redrawn_at_degree_0_only():
    """sum_t c_t = 0 makes the degree-0 polynomial zero (it tests nothing); at degree 1 it is a valid polynomial."""
    from rfverify.properties.quadrature_exactness import _random_polynomial

    rng = np.random.default_rng(5)
    assert all(sum(c for c, _ in _random_polynomial(0, 3, rng)) != 0 for _ in range(300))
    assert any(sum(c for c, _ in _random_polynomial(1, 3, rng)) == 0 for _ in range(300))


def origin(d, rng):
    """One node at the mean, weight 1: exact through degree 1 (odd moments vanish), not at 2."""
    return np.zeros((1, d)), np.ones(1)


def test_a_zero_tolerance_judges_an_exact_zero_exact_and_anything_else_inexact():
    """At the origin every form is 0: the round-off scale and so the tolerance are 0 for degrees >= 1.  An error of
    exactly 0 is exact there (ratio 0); the nonzero even moment at degree 2 is missed by any amount (ratio inf)."""
    res = verify_quadrature(origin, dim=3, degree=1, deterministic=True, checks=["exactness"])["exactness"]
    assert (res.status, res.statistic) == ("pass", 0.0), res.message
    assert res.message == "every one of 20 draws exact on polynomials of degree 0..1: max |error|/tolerance 0"
    assert res.details["max_error_over_tolerance"][2] == np.inf and res.details["observed_exact_to"] == 1
    res = verify_quadrature(origin, dim=3, degree=2, deterministic=True, checks=["exactness"])["exactness"]
    assert res.status == "fail" and res.statistic == np.inf
    assert "not exact at degree 2 (claimed 2)" in res.message and "to the round-off tolerance 0;" in res.message


def _scaled_weights(ratio):
    """Monte Carlo points, weights summing to 1 + ratio x the degree-0 tolerance (n = 16, d = 3: gamma_30)."""
    from rfverify.properties.quadrature_exactness import rounding_steps
    from rfverify.tolerances import roundoff_inner_product

    delta = ratio * roundoff_inner_product(rounding_steps(16, 3, 0))

    def rule(d, rng):
        return rng.standard_normal((16, d)), np.full(16, (1 + delta) / 16)
    return rule


@pytest.mark.parametrize("ratio,status", [(0.7, "pass"), (1.5, "fail")])
def test_the_degree_0_threshold_is_one_tolerance(ratio, status):
    res = verify_quadrature(_scaled_weights(ratio), dim=3, degree=0, checks=["exactness"])["exactness"]
    assert res.status == status and abs(res.statistic - ratio) < 0.15, (res.statistic, res.message)
    assert res.details["observed_exact_to"] == (0 if status == "pass" else -1)


def test_the_lowest_failing_degree_is_reported_whichever_draw_shows_it():
    """Each draw is antithetic (exact through degree 1) or plain Monte Carlo (exact at 0 only), by a coin from its
    rng: draw 0 fails first, at degree 2; a later Monte Carlo draw fails at degree 1, which is the one reported."""
    from rfverify.kinds.quadrature import QuadratureConfig

    def coin_rule(d, rng):
        X = rng.standard_normal((16, d))
        if rng_coin(rng):
            X[8:] = -X[:8]
        return X, np.full(16, 1 / 16)

    def rng_coin(rng):
        return rng.random() < 0.5

    cfg = QuadratureConfig(coin_rule, dim=3, degree=2)
    ctx = cfg.context(next(s for s in cfg.checks() if s.name == "exactness"))
    coins = [rng_coin(_after_points(ctx.rng("draw", trial=t))) for t in range(ctx.budget.exact_draws)]
    assert coins[0] and not all(coins), coins  # this seed's draw 0 is antithetic, a later one is not
    res = verify_quadrature(coin_rule, dim=3, degree=2, checks=["exactness"])["exactness"]
    assert res.message.startswith("not exact at degree 1 (claimed 2)"), res.message
    assert f"where: draw {coins.index(False)} (3 dimensions)" in res.message


def _after_points(rng):
    rng.standard_normal((16, 3))
    return rng


def test_exactness_beyond_the_claim_is_reported():
    res = verify_quadrature(antithetic, dim=3, degree=0, checks=["exactness"])["exactness"]
    assert res.status == "pass" and res.message.endswith("; also exact at degree 1 on these draws"), res.message


def test_zero_weights_fail_at_the_first_polynomial_even_one_integrating_to_plus_or_minus_one():
    """All weights 0: the tolerance is 0 and any error counts, the smallest an integer moment can give (|1|) too.
    At d = 4 (this seed) the first degree-0 polynomial is the constant -1."""
    from rfverify.kinds.quadrature import QuadratureConfig
    from rfverify.properties.quadrature_exactness import _exact, _random_polynomial

    def zero_weights(d, rng):
        return rng.standard_normal((4, d)), np.zeros(4)

    cfg = QuadratureConfig(zero_weights, dim=4, degree=0)
    ctx = cfg.context(next(s for s in cfg.checks() if s.name == "exactness"))
    assert _exact(_random_polynomial(0, 4, ctx.rng("polynomials"))) == -1
    res = verify_quadrature(zero_weights, dim=4, degree=0, checks=["exactness"])["exactness"]
    assert res.status == "fail" and res.statistic == np.inf
    assert "observed: the weights integrate the constant -1 to 0; |error| 1; expected: -1, to the round-off " \
           "tolerance 0;" in res.message, res.message

"""Error rate: the exact-map threshold pinned at both sides (EXACT_MSE survived its mutation run).

A map whose mean squared error is below ``EXACT_MSE`` (1e-24) — or below the round-off of the estimate squared,
whichever is larger — is exact: there is no 1/m law to fit.  The kernel here is scaled so that its round-off
(2e-14, squared 5e-28) is far below 1e-24, and the map is deterministic with a relative error delta, so its MSE
is a known constant at every m: 0.5e-24 is exact, 1.5e-24 is not.
"""

from __future__ import annotations

import numpy as np
import pytest

import rfverify

#: The documented threshold, written out: the test must not follow a changed EXACT_MSE (a mutant 2e-24 passed a
#: test that read the constant from the module it tests).
EXACT_MSE = 1e-24
S = 1e-2


def _scaled(delta):
    def features(X, n_components, random_state):
        return np.asarray(X, dtype=np.float64) * S * (1.0 + delta)

    return features


def _kernel(X, Y):
    return S * S * (np.asarray(X) @ np.asarray(Y).T)


@pytest.mark.parametrize("mse_over_threshold, exact", [(0.5, True), (1.5, False)])
def test_a_map_is_exact_below_the_threshold_only(mse_over_threshold, exact):
    # MSE = c delta^2 for this deterministic map (c from the designed pairs): delta = 3e-9 gives 7.26e-23
    delta = 3e-9 * np.sqrt(mse_over_threshold * EXACT_MSE / 7.262860723879044e-23)
    res = rfverify.verify(_scaled(delta), kernel=_kernel, checks=["error-rate"], profile="quick",
                          metrics=False)["error-rate"]
    assert res.details["roundoff"] ** 2 < 1e-3 * EXACT_MSE  # the threshold decides, not the round-off
    assert res.details["mse"][0] == pytest.approx(mse_over_threshold * EXACT_MSE, rel=1e-3)
    assert ("the map is exact" in res.message) is exact
    assert res.status == ("pass" if exact else "fail")


@pytest.mark.parametrize("unbiased", [True, False])
def test_the_nested_comparison_holds_its_level_under_independence(unbiased):
    """Under H0 (independent features: one estimate at 4w distributed as the average of 4 at w) the one-sided
    p-value is uniform.  A map declared biased is measured about the per-pair sample mean, of 10 averages on one
    side and 40 seeds on the other: without the n / (n - 1) correction the averages' error is 0.9 / 0.975 of the
    other's, and p < 0.05 came out in 17.8% of 3000 null runs (5.8% at p < 0.01).

    400 null runs at a fixed seed: the rate is Binomial(400, 0.05) when right, so the bound 0.09 is a 3e-4
    false alarm; at the uncorrected 0.178 the test fails with probability 1 - 1e-10."""
    from rfverify.properties.error_rate import nested_comparisons

    rng = np.random.default_rng(20261126)
    ps = []
    for _ in range(400):
        at_w, at_4w = rng.standard_normal((40, 24)), rng.standard_normal((40, 24)) / 2
        comp = nested_comparisons([16, 64], [at_w, at_4w], np.zeros(24), unbiased=unbiased, rng=rng)
        ps.append(comp[0]["pvalue"])
    rate = float(np.mean(np.array(ps) < 0.05))
    assert 0.02 <= rate <= 0.09, f"p < 0.05 in {rate:.1%} of 400 null runs (declared {'un' if unbiased else ''}biased)"


def test_ties_without_a_generator_are_broken_by_the_documented_default():
    """Called without ``rng`` (a direct call), ties are broken by ``default_rng(0)``: reproducible, and the p-value
    depends on that seed (seed 1 gives another)."""
    from rfverify.properties.error_rate import nested_comparisons

    gen = np.random.default_rng(5)
    # whole seeds exact (zero error): 80% at w, so 41% of the averages of 4, and 50% at 4w: ties across the groups
    at_w = np.where(gen.random((40, 1)) < 0.8, 0.0, gen.standard_normal((40, 6)))
    at_4w = np.where(gen.random((40, 1)) < 0.5, 0.0, gen.standard_normal((40, 6)))

    def p(rng):
        return nested_comparisons([16, 64], [at_w, at_4w], np.zeros(6), rng=rng)[0]["pvalue"]

    assert p(None) == p(np.random.default_rng(0)) != p(np.random.default_rng(1))


def test_errors_below_the_floor_count_as_exact_at_both_widths():
    """Estimates exact up to round-off at both widths (errors 1e-28 to 1e-26, below the floor 1e-24) all count
    as 0: one tie, broken at random, so the p-value is neither 0 nor 1 (counting either side's as 1 would give
    1 / C(50, 10) = 1e-10 or 1 - 1e-10)."""
    from rfverify.properties.error_rate import nested_comparisons

    gen = np.random.default_rng(7)
    at_w, at_4w = (1e-13 * gen.standard_normal((40, 6)) for _ in range(2))
    comp = nested_comparisons([16, 64], [at_w, at_4w], np.zeros(6), rng=np.random.default_rng(0), floor=1e-24)[0]
    assert comp["error_at_m2"] == comp["error_of_averages"] == 0.0
    assert 1e-3 < comp["pvalue"] < 1 - 1e-3, comp

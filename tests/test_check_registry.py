"""Every registered check: how its verdict is decided, whether it takes a share of alpha, and its documented cost.

``decision`` is what the check catalogue states (``statistical``: a test at alpha; ``deterministic``: a round-off
tolerance; ``measurement``); ``alpha_share`` decides the alpha split (``statistical_count``) — a
statistical check that runs exactly where the checks it replaces are skipped tests at one of their shares.
Pinned here, one table for every kind, so a changed flag or note is a deliberate edit of this table (a mutant
``statistical=True`` for the contract check once survived).
"""

from __future__ import annotations

import pytest

from rfverify.kinds import KINDS, checks_for, statistical_count
from rfverify.profiles import get_profile
from rfverify.registry import register_check

REGISTERED = {
    ('feature-map', 'contract'): ('deterministic', False,
        '3 fits, ~10 transforms'),
    ('feature-map', 'reproducibility'): ('deterministic', False,
        '3 fits'),
    ('feature-map', 'explore'): ('deterministic', False,
        'quick 25, default 150, thorough 600 configurations'),
    ('feature-map', 'stateful'): ('deterministic', False,
        'quick 3, default 20, thorough 120 call sequences of up to 6/12/16 steps; runs of 1,050/10,000 calls (default/thorough)'),
    ('feature-map', 'unbiasedness'): ('statistical', True,
        'pilot + R fits at m = profile.unbiased_m (R from the target bias, default <= 3000)'),
    ('feature-map', 'concentration'): ('statistical', True,
        'conc_trials fits at m = conc_m (default 200 at m = 1024)'),
    ('feature-map', 'error-rate'): ('statistical', True,
        'rate_trials fits at each m in rate_ms (default 100 x 7, m = 16..1024)'),
    ('feature-map', 'adapted-approximation'): ('statistical', False,
        'seeds x grid fits of the map and its reference basis (default 5 x 5, m = 8..128)'),
    ('orthogonal', 'orthogonality'): ('deterministic', False,
        'budget.ortho_draws matrices (default 16), two d x d products each'),
    ('orthogonal', 'haar-determinant'): ('statistical', True,
        'signs of det over the shared sample (pilot 150 / 1500 draws at default), O(d^3) each'),
    ('orthogonal', 'haar-entries'): ('statistical', True,
        '5 one-sample KS tests on the shared sample (pilot 150 / 1500 draws at default)'),
    ('orthogonal', 'haar-trace-moments'): ('statistical', True,
        'traces of Q and Q^2 over the whole shared sample (1500 draws at default)'),
    ('orthogonal', 'haar-eigenangles'): ('statistical', True,
        'eigenvalues of every matrix of the shared sample (pilot 150 / 1500 at default), O(d^3) each'),
    ('orthogonal', 'haar-invariance'): ('statistical', True,
        '4 two-sample KS tests on the shared sample split in halves (default 2 x 750 draws)'),
    ('orthogonal', 'haar-screen'): ('statistical', True,
        'quick 2 x 3, default 3 x 4, thorough 6 x 8 matrices (dimensions x draws) per power-of-two band'),
    ('orthogonal', 'explore'): ('deterministic', False,
        'quick 15, default 40, thorough 150 dimensions'),
    ('orthogonal', 'stateful'): ('deterministic', False,
        'quick 3, default 20, thorough 100 call sequences of up to 6/12/16 draws at d and d/2'),
    ('quadrature', 'rule-contract'): ('deterministic', False,
        '3 draws'),
    ('quadrature', 'exactness'): ('deterministic', False,
        'exact_draws draws x exact_polys polynomials per degree 0..degree+1 (Wick sums exact)'),
    ('quadrature', 'rule-unbiasedness'): ('statistical', True,
        'unbiased_draws draws x ~20 integrands at the declared d (default 10000), and 2000 draws at each corner dimension (default: the smallest and largest d of the space)'),
    ('quadrature', 'efficiency'): ('measurement', False,
        'unbiased_draws draws + mc_evaluations Gaussian evaluations per integrand'),
    ('quadrature', 'explore'): ('deterministic', False,
        'quick 25, default 150, thorough 600 (d, seed) pairs'),
    ('quadrature', 'stateful'): ('deterministic', False,
        'quick 3, default 20, thorough 100 call sequences of up to 6/12/16 draws at d and d/2'),
    ('transform', 'transform-exactness'): ('deterministic', False,
        '2 dtypes x batch sizes (1, 2, 3, 17, 64 at default) applications and references (O(n d log d) for a Hadamard matrix, O(n d^2) for a dense one)'),
    ('transform', 'transform-linearity'): ('deterministic', False,
        '3 applications per dtype at n = 8'),
    ('transform', 'transform-input'): ('deterministic', False,
        '3 applications (float64 C-order, float32, a strided view)'),
    ('transform', 'transform-dimension'): ('deterministic', False,
        '2 applications at widths where M is undefined'),
    ('transform', 'explore'): ('deterministic', False,
        'quick 25, default 150, thorough 600 calls'),
    ('transform', 'stateful'): ('deterministic', False,
        'quick 3, default 20, thorough 100 call sequences of up to 6/12/16 applies of 8 rows'),
    ('kernel', 'kernel-symmetry'): ('deterministic', False,
        'budget.symmetry_sets point sets (default 6): K(X, Y), K(Y, X) and K(X, X) on halves'),
    ('kernel', 'kernel-psd'): ('deterministic', False,
        'budget.psd_sets Gram matrices (default 12, n <= 96) and their eigenvalues; witness search'),
    ('kernel', 'kernel-normalisation'): ('deterministic', False,
        'the diagonals of budget.psd_sets Gram matrices'),
    ('kernel', 'kernel-composition'): ('statistical', True,
        'the feature-map unbiasedness test at m = budget.composition_m (default 512), seeds from a pilot of 50, at most budget.composition_max_trials (default 2000)'),
    ('kernel', 'explore'): ('deterministic', False,
        'quick 25, default 150, thorough 600 configurations'),
}


def test_every_check_is_registered_with_its_flags_and_cost():
    got = {(k, s.name): (s.decision, s.alpha_share, s.cost) for k in KINDS for s in checks_for(k)}
    assert got == REGISTERED
    for (k, name), (decision, _, _) in REGISTERED.items():
        spec = next(s for s in checks_for(k) if s.name == name)
        assert spec.statistical is (decision == "statistical")


def test_the_alpha_split_counts_the_checks_with_a_share():
    for kind in KINDS:
        assert statistical_count(kind) == sum(share for (k, _), (_, share, _) in REGISTERED.items() if k == kind)
    assert statistical_count("feature-map") == 3  # unbiasedness, concentration, error-rate


def test_adapted_approximation_is_statistical_at_the_share_of_the_checks_it_replaces():
    """A t-test at alpha is statistical; it runs exactly where unbiasedness, concentration and error-rate are
    skipped (data-dependent maps), so it takes one of their shares and the feature-map split stays 1/3."""
    spec = next(s for s in checks_for("feature-map") if s.name == "adapted-approximation")
    assert spec.statistical and not spec.alpha_share
    assert spec.catalogue_decision == "statistical (shared α)"
    default = get_profile("default")
    assert default.family_alpha / statistical_count("feature-map") == pytest.approx(1e-3 / 3)


@pytest.mark.parametrize("kw", [dict(statistical=False, alpha_share=True), dict(statistical=True, decision="measurement"),
                                dict(statistical=False, decision="statistical"),
                                dict(statistical=False, decision="guess")])
def test_registration_refuses_flags_that_contradict_each_other(kw):
    with pytest.raises(ValueError):
        register_check("feature-map", "no-such-check", **kw)


def test_catalogue_states_the_decision():
    from rfverify.kinds import catalogue

    rows = {(r[1], r[0]): r[2] for r in catalogue()}
    assert rows[("quadrature", "efficiency")] == "measurement"
    assert rows[("feature-map", "unbiasedness")] == "statistical"
    assert rows[("feature-map", "contract")] == "deterministic"

"""Every registered check: whether it is statistical (it takes a share of alpha) and its documented cost.

``statistical`` decides the alpha split (a deterministic check takes none) and the calibration's count; the cost
note is what ``rfverify checks`` shows.  Pinned here, one table for every kind, so a changed flag or note is a
deliberate edit of this table (issue 22: ``statistical=True`` for the contract check survived its mutation).
"""

from __future__ import annotations

from rfverify.kinds import KINDS, checks_for, statistical_count

REGISTERED = {
    ('feature-map', 'contract'): (False,
        '3 fits, ~10 transforms'),
    ('feature-map', 'reproducibility'): (False,
        '3 fits'),
    ('feature-map', 'explore'): (False,
        'quick 25, default 150, thorough 600 configurations'),
    ('feature-map', 'unbiasedness'): (True,
        'pilot + R fits at m = profile.unbiased_m (R from the target bias, default <= 3000)'),
    ('feature-map', 'concentration'): (True,
        'conc_trials fits at m = conc_m (default 200 at m = 1024)'),
    ('feature-map', 'error-rate'): (True,
        'rate_trials fits at each m in rate_ms (default 100 x 7, m = 16..1024)'),
    ('feature-map', 'adapted-approximation'): (False,
        'seeds x grid fits of the map and its reference basis (default 5 x 5, m = 8..128)'),
    ('orthogonal', 'orthogonality'): (False,
        'budget.ortho_draws matrices (default 16), two d x d products each'),
    ('orthogonal', 'haar-determinant'): (True,
        'signs of det over the shared sample (pilot 150 / 1500 draws at default), O(d^3) each'),
    ('orthogonal', 'haar-entries'): (True,
        '5 one-sample KS tests on the shared sample (pilot 150 / 1500 draws at default)'),
    ('orthogonal', 'haar-trace-moments'): (True,
        'traces of Q and Q^2 over the whole shared sample (1500 draws at default)'),
    ('orthogonal', 'haar-eigenangles'): (True,
        'eigenvalues of every matrix of the shared sample (pilot 150 / 1500 at default), O(d^3) each'),
    ('orthogonal', 'haar-invariance'): (True,
        '4 two-sample KS tests on the shared sample split in halves (default 2 x 750 draws)'),
    ('orthogonal', 'orf-kernel'): (False,
        'none (a note)'),
    ('orthogonal', 'explore'): (False,
        'quick 15, default 40, thorough 150 dimensions'),
    ('quadrature', 'rule-contract'): (False,
        '3 draws'),
    ('quadrature', 'exactness'): (False,
        'exact_draws draws x exact_polys polynomials per degree 0..degree+1 (Wick sums exact)'),
    ('quadrature', 'rule-unbiasedness'): (True,
        'unbiased_draws draws x ~20 integrands at the declared d (default 10000), and 2000 draws at each corner dimension (default: the smallest and largest d of the space)'),
    ('quadrature', 'efficiency'): (False,
        'unbiased_draws draws + mc_evaluations Gaussian evaluations per integrand'),
    ('quadrature', 'explore'): (False,
        'quick 25, default 150, thorough 600 (d, seed) pairs'),
    ('transform', 'transform-exactness'): (False,
        '2 dtypes x batch sizes (1, 2, 3, 17, 64 at default) applications and references (O(n d log d) for a Hadamard matrix, O(n d^2) for a dense one)'),
    ('transform', 'transform-linearity'): (False,
        '3 applications per dtype at n = 8'),
    ('transform', 'transform-input'): (False,
        '3 applications (float64 C-order, float32, a strided view)'),
    ('transform', 'transform-dimension'): (False,
        '2 applications at widths where M is undefined'),
    ('transform', 'explore'): (False,
        'quick 25, default 150, thorough 600 calls'),
    ('kernel', 'kernel-symmetry'): (False,
        'budget.symmetry_sets point sets (default 6): K(X, Y), K(Y, X) and K(X, X) on halves'),
    ('kernel', 'kernel-psd'): (False,
        'budget.psd_sets Gram matrices (default 12, n <= 96) and their eigenvalues; witness search'),
    ('kernel', 'kernel-normalisation'): (False,
        'the diagonals of budget.psd_sets Gram matrices'),
    ('kernel', 'kernel-composition'): (True,
        'the feature-map unbiasedness test at m = budget.composition_m (default 512), seeds from a pilot of 50, at most budget.composition_max_trials (default 2000)'),
    ('kernel', 'explore'): (False,
        'quick 25, default 150, thorough 600 configurations'),
}


def test_every_check_is_registered_with_its_flag_and_cost():
    got = {(k, s.name): (s.statistical, s.cost) for k in KINDS for s in checks_for(k)}
    assert got == REGISTERED


def test_the_alpha_split_counts_the_statistical_checks():
    for kind in KINDS:
        assert statistical_count(kind) == sum(st for (k, _), (st, _) in REGISTERED.items() if k == kind)

"""Modest sanity tests for the Haar samplers (the full Haar battery lives elsewhere)."""

from __future__ import annotations

import importlib.util
import pathlib

import numpy as np
import pytest
from scipy.stats import norm, ortho_group, special_ortho_group

from rfverify.errors import UsageError
from rfverify.implementations.orthogonal import (
    ScipyOrthoAdapter,
    haar_householder,
    haar_qr,
    scipy_sampler,
)

_spec = importlib.util.spec_from_file_location(
    "broken_orthogonal", pathlib.Path(__file__).parent / "mutants" / "broken_orthogonal.py")
broken = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(broken)

#: Family-wise false-alarm rate of the moment tests in this file, Bonferroni-split.
ALPHA = 1e-6


def orthogonality_tolerance(d: int, dtype) -> float:
    """``||Q^T Q - I||_max <= c d u`` for Householder QR (Higham 2002, Thm 19.4):
    the computed ``Q`` is within ``γ~_{d^2}``-ish of exactly orthogonal; we use
    the standard practical form ``10 d u`` (``u`` unit round-off of ``dtype``)."""
    return 10 * d * np.finfo(dtype).eps / 2


SAMPLERS = {
    "qr": lambda d, rng, group: haar_qr(d, rng, group=group),
    "householder": lambda d, rng, group: haar_householder(d, rng, group=group),
    "scipy": lambda d, rng, group: ScipyOrthoAdapter(
        ortho_group if group == "O" else special_ortho_group, group=group).sample(d, rng),
}


@pytest.mark.parametrize("name", SAMPLERS)
@pytest.mark.parametrize("group", ["O", "SO"])
@pytest.mark.parametrize("d", [1, 2, 3, 7, 32])
def test_orthogonal_and_det_sign(name, group, d):
    dets = []
    for seed in range(40):
        Q = SAMPLERS[name](d, seed, group)
        assert Q.shape == (d, d)
        err = np.max(np.abs(Q.T @ Q - np.eye(d)))
        assert err <= orthogonality_tolerance(d, np.float64), f"{name}: ||Q^TQ-I|| = {err:.3g}"
        dets.append(np.linalg.det(Q))
    dets = np.round(dets, 8)
    assert set(np.unique(np.abs(dets))) == {1.0}
    if group == "SO":
        assert np.all(dets == 1.0), f"{name} claims SO({d}) but det = -1 occurred"
    else:
        # P(all 40 dets equal) = 2^-39 under Haar(O)
        assert set(dets) == {-1.0, 1.0}, f"{name} claims O({d}) but det never changes sign"


def test_qr_float32():
    Q = haar_qr(16, 0, dtype=np.float32)
    assert Q.dtype == np.float32
    assert np.max(np.abs(Q.T @ Q - np.eye(16))) <= orthogonality_tolerance(16, np.float32)


def test_rng_reproducible_and_no_global_state():
    np.random.seed(0)  # global state must be irrelevant
    a = haar_qr(5, rng=123)
    np.random.seed(1)
    assert np.array_equal(a, haar_qr(5, rng=123))
    assert np.array_equal(haar_householder(5, rng=7), haar_householder(5, rng=np.random.default_rng(7)))
    s = scipy_sampler(ortho_group)
    assert np.array_equal(s(4, 3), s(4, 3))


def test_usage_errors():
    with pytest.raises(UsageError):
        haar_qr(0)
    with pytest.raises(UsageError):
        haar_qr(3, group="U")
    with pytest.raises(UsageError):
        haar_householder(2.5)
    with pytest.raises(UsageError):
        ScipyOrthoAdapter(object())


def moment_statistics(sampler, d, m, seed):
    """z-scores of the sample means of tr Q and (tr Q)^2 - 1 over ``m`` draws.

    Under Haar on O(d) (d >= 2): E tr Q = 0, Var tr Q = E (tr Q)^2 = 1
    (Diaconis–Shahshahani 1994).  For the second moment we need
    Var (tr Q)^2 = E (tr Q)^4 - 1 = 3 - 1 = 2 (the fourth moment of tr Q is
    the Gaussian value 3 once d >= 4).  The CLT gives ``z ~ N(0, 1)`` for each
    mean, so the derived tolerance is ``|z| <= Φ^{-1}(1 - α/(2 k))``.
    """
    rng = np.random.default_rng(seed)
    seeds = rng.spawn(m)
    t = np.array([np.trace(sampler(d, s)) for s in seeds])
    z1 = t.mean() / np.sqrt(1.0 / m)
    z2 = (np.mean(t ** 2) - 1.0) / np.sqrt(2.0 / m)
    return z1, z2


#: two-sided critical value, Bonferroni over (3 samplers x 2 moments) + planted-bug cases
Z_CRIT = norm.isf(ALPHA / (2 * 8))


@pytest.mark.parametrize("name", ["qr", "householder", "scipy"])
def test_trace_moments_haar_O(name):
    z1, z2 = moment_statistics(lambda d, r: SAMPLERS[name](d, r, "O"), d=6, m=2000, seed=11)
    assert abs(z1) <= Z_CRIT, f"{name}: E tr Q z-score {z1:.2f}, but |z| should be <= {Z_CRIT:.2f}"
    assert abs(z2) <= Z_CRIT, f"{name}: E (tr Q)^2 z-score {z2:.2f}, but |z| should be <= {Z_CRIT:.2f}"


@pytest.mark.parametrize("name", ["qr_without_sign_correction", "gram_schmidt_uniform"])
def test_trace_moments_detect_planted_bugs(name):
    """These planted bugs shift E tr Q or E (tr Q)^2 by O(1); the same statistic flags them.

    Not detectable by these two moments, hence left to the full battery:
    random signed permutations (tr Q = sum of signs over fixed points, so
    E tr Q = 0 and E (tr Q)^2 = E #fixed points = 1 exactly as under Haar),
    sign-corrected QR of uniform entries and SO-claimed-as-O (close low moments)."""
    z1, z2 = moment_statistics(broken.BROKEN_SAMPLERS[name], d=6, m=2000, seed=12)
    assert max(abs(z1), abs(z2)) > Z_CRIT, f"{name} not detected: z = ({z1:.2f}, {z2:.2f})"


def test_broken_samplers_basic_properties():
    rng = 0
    Q = broken.normalised_gaussian_rows(8, rng)
    assert np.max(np.abs(Q @ Q.T - np.eye(8))) > 1e-3, "should NOT be orthogonal"
    assert np.linalg.det(broken.so_claimed_as_o(5, 1)) > 0
    for f in broken.BROKEN_SAMPLERS.values():
        assert f(4, 2).shape == (4, 4)

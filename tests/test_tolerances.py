"""Every round-off bound of rfverify.tolerances pinned to its cited formula (mutation testing).

Each value is recomputed here from the inequality in the module's docstring with the unit round-off
written out (2^-53 for float64, 2^-24 for float32), so a changed constant, dtype or term fails; the
bounds that guard rfverify's own float64 references are also checked to hold on real computations.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from rfverify import tolerances as T

U64, U32 = 2.0 ** -53, 2.0 ** -24
# NB: every pytest.approx here has abs=0 — its default absolute tolerance 1e-12 would accept any bound ~1e-14.


def gamma(n, u):
    return n * u / (1 - n * u)


def test_unit_roundoff_per_dtype():
    assert T.unit_roundoff() == U64 and T.unit_roundoff(np.float64) == U64
    assert T.unit_roundoff(np.float32) == U32
    assert T.unit_roundoff(np.int64) == U64  # integers are judged as float64
    assert T.unit_roundoff(np.float16) == 2.0 ** -11


@pytest.mark.parametrize("n", [1, 2, 10, 1000])
def test_gamma_n(n):
    assert T.roundoff_inner_product(n) == pytest.approx(gamma(n, U64), rel=1e-15, abs=0)
    assert T.roundoff_inner_product(n, np.float32) == pytest.approx(gamma(n, U32), rel=1e-15, abs=0)


def test_gamma_n_is_infinite_where_nu_reaches_one():
    assert T.roundoff_inner_product(2 ** 24, np.float32) == math.inf
    assert T.roundoff_inner_product(2 ** 24 - 1, np.float32) == pytest.approx(gamma(2 ** 24 - 1, U32), rel=1e-9, abs=0)
    assert math.isfinite(T.roundoff_inner_product(2 ** 23, np.float32))


@pytest.mark.parametrize("dtype, u", [(np.float64, U64), (np.float32, U32), (np.complex64, U32),
                                      (np.complex128, U64), (np.int32, U64)])
def test_contract_tolerance(dtype, u):
    F = (np.arange(12).reshape(3, 4) - 5).astype(dtype)  # max |F| = 6
    assert T.ROUNDOFF_MARGIN == 256.0
    assert T.contract_tolerance(7, F) == pytest.approx(256.0 * gamma(9, u) * 6.0, rel=1e-14, abs=0)


def test_contract_tolerance_of_zero_features_is_tiny_not_zero():
    t = T.contract_tolerance(3, np.zeros((2, 2)))
    assert 0 < t == pytest.approx(256.0 * gamma(5, U64) * 1e-300, rel=1e-9, abs=0)  # subnormal


@pytest.mark.parametrize("d", [1, 4, 64])
@pytest.mark.parametrize("dtype, u", [(np.float64, U64), (np.float32, U32)])
def test_orthogonality_tolerance(d, dtype, u):
    assert T.ORTHO_CONSTANT == 4
    tol = 2 * 4 * d * d * u
    assert T.orthogonality_tolerance(d, dtype) == pytest.approx(tol + gamma(d, U64) * (1 + tol), rel=1e-14, abs=0)


def test_orthogonality_tolerance_holds_for_householder_qr():
    rng = np.random.default_rng(0)
    for d in (8, 64):
        for dtype in (np.float32, np.float64):
            Q = np.linalg.qr(rng.standard_normal((d, d)).astype(dtype))[0].astype(np.float64)
            assert np.max(np.abs(Q.T @ Q - np.eye(d))) <= T.orthogonality_tolerance(d, dtype)


def test_transform_allowance_takes_the_larger_bound_at_the_inputs_dtype():
    assert T.NORMALISATION_EXTRA == 3
    comp = np.array([[1.0, 5.0], [2.0, 0.5]])
    x_norm = np.array([[2.0], [1.0]])
    got = T.transform_allowance(comp, x_norm, 1.5, 4, np.float32)
    np.testing.assert_allclose(got, gamma(7, U32) * np.array([[3.0, 5.0], [2.0, 1.5]]), rtol=1e-14)
    np.testing.assert_allclose(T.transform_allowance(comp, x_norm, 1.5, 4, np.int64),
                               gamma(7, U64) * np.array([[3.0, 5.0], [2.0, 1.5]]), rtol=1e-14)


@pytest.mark.parametrize("dtype, u", [(np.float64, U64), (np.float32, U32)])
def test_transform_tolerance_dense(dtype, u):
    rng = np.random.default_rng(1)
    M = rng.standard_normal((5, 5))
    X = rng.standard_normal((3, 5)).astype(dtype)
    X64 = X.astype(np.float64)
    comp = np.abs(X64) @ np.abs(M).T
    norm2 = np.linalg.norm(M, 2)
    x_norm = np.linalg.norm(X64, axis=1, keepdims=True)
    want = gamma(8, u) * np.maximum(comp, x_norm * norm2) + gamma(5, U64) * comp + np.finfo(np.float64).tiny
    np.testing.assert_allclose(T.transform_tolerance(X, M, dtype), want, rtol=1e-13)
    np.testing.assert_allclose(T.transform_tolerance(X, M, dtype, norm2=norm2, abs_M=np.abs(M)), want, rtol=1e-13)
    # a caller's norm bound and |M| are used as given
    np.testing.assert_allclose(T.transform_tolerance(X, M, dtype, norm2=2 * norm2, abs_M=2 * np.abs(M)),
                               gamma(8, u) * np.maximum(2 * comp, 2 * x_norm * norm2) + gamma(5, U64) * 2 * comp
                               + np.finfo(np.float64).tiny, rtol=1e-13)
    assert np.all(T.transform_tolerance(np.zeros((1, 5), dtype), M, dtype) > 0)


@pytest.mark.parametrize("d, K, K_norm", [(1, 0, 0), (2, 1, 3), (4, 2, 2), (8, 3, 5), (64, 6, 6), (128, 7, 9)])
def test_fwht_reference_error(d, K, K_norm):
    l1 = np.array([1.0, 3.0])
    np.testing.assert_allclose(T.fwht_reference_error(l1, d), gamma(K, U64) * l1, rtol=1e-14)
    np.testing.assert_allclose(T.fwht_reference_error(l1, d, normalized=True),
                               gamma(K_norm, U64) / math.sqrt(d) * l1, rtol=1e-14)


def test_fwht_reference_error_holds_on_the_float64_reference():
    from fractions import Fraction

    from rfverify.kinds.matrices import reference_fwht

    rng = np.random.default_rng(2)
    for d in (2, 8, 32):
        X = rng.standard_normal((3, d))
        H = np.array([[(-1) ** bin(i & j).count("1") for j in range(d)] for i in range(d)])
        exact = np.array([[float(sum(Fraction(int(H[i, j])) * Fraction(x[j]) for j in range(d))) for i in range(d)]
                          for x in X])
        err = np.abs(reference_fwht(X) - exact)
        assert np.all(err <= T.fwht_reference_error(np.abs(X).sum(axis=1), d)[:, None] + 1e-300)


@pytest.mark.parametrize("dtype, u", [(np.float64, U64), (np.float32, U32), (np.int64, U64)])
def test_evaluation_and_psd_tolerance(dtype, u):
    assert (T.EVAL_CONSTANT, T.EIG_CONSTANT) == (8, 4)
    eta = 8 * gamma(18, u) * (1 + 0.5) + 1e-9
    assert T.evaluation_tolerance(dtype, 16, 0.5, 1e-9) == pytest.approx(eta, rel=1e-14, abs=0)
    assert T.evaluation_tolerance(dtype, 16, 0.5) == pytest.approx(8 * gamma(18, u) * 1.5, rel=1e-14, abs=0)
    got = T.psd_tolerance(10, 16, dtype, 0.5, 2.0, 3.0, 1e-9)
    assert got == pytest.approx(10 * eta * 2.0 + 4 * 10 * U64 * 3.0, rel=1e-14, abs=0)
    assert T.psd_tolerance(10, 16, dtype, 0.5, 2.0, 3.0) == pytest.approx(
        10 * 8 * gamma(18, u) * 1.5 * 2.0 + 4 * 10 * U64 * 3.0, rel=1e-14, abs=0)


@pytest.mark.parametrize("d, m, dtype, s", [(16, 1024, np.float32, (2 / 1024) ** 0.5), (16, 1024, np.float64, 0.3),
                                            (3, 1, np.float32, 1.5), (5, 7, np.int64, 2.0)])
def test_estimate_roundoff_is_the_stated_bound(d, m, dtype, s):
    """m s^2 (2 ROUNDOFF_MARGIN gamma_{d+2} + gamma_m) with gamma_n = n u / (1 - n u) at the features' dtype
    (float64 for integer features), exactly as documented.

    Kills (mutation): every operator and constant of the formula, the dtype dropped (float32 judged as
    float64), gamma_m taken at max(m, 2) (visible at m = 1).
    """
    u = float(np.finfo(np.float32 if dtype is np.float32 else np.float64).eps) / 2

    def gamma(n):
        return n * u / (1 - n * u)

    want = m * s * s * (2 * T.ROUNDOFF_MARGIN * gamma(d + 2) + gamma(m))
    assert T.estimate_roundoff(d, m, dtype, s) == pytest.approx(want, rel=1e-12, abs=0)

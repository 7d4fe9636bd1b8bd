"""High-precision maxout engine: every value two ways (two precisions + an independent method).

Named tolerances (decimal digits are absolute for O(1) quantities):

* ``TWO_PRECISION_TOL = 1e-28``: the 30-digit computation (30 + 10 guard digits,
  its own trapezoid step) must agree with the 45-digit one to 28 digits; both
  carry >= 30 correct digits, 2 digits are allowed for rounding of sums of
  ~10^3 terms.
* ``INDEPENDENT_TOL = 1e-25``: trapezoid vs tanh-sinh ``mp.quad`` / closed
  forms at 30 digits (``mp.quad``'s own error estimate is ~1e-28 here).
* ``NUMPY_KERNEL_ABS_ERROR = 1e-10``: the stated bound of the numpy kernels.
* Monte Carlo: CLT interval ``z se`` with ``z = Phi^{-1}(1 - ALPHA/(2P))``,
  ``ALPHA = 1e-3`` family-wise over the ``P`` quantities of one test
  (Bonferroni); seeds are fixed, so each test is deterministic and a false
  alarm has probability <= ALPHA over the choice of seed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from mpmath import mp
from scipy import stats

from rfverify.errors import UsageError
from rfverify.highprec import maxout as hp

TWO_PRECISION_TOL = mp.mpf("1e-28")
INDEPENDENT_TOL = mp.mpf("1e-25")
CLOSED_FORM_TOL = mp.mpf("1e-40")
ALPHA = 1e-3
HI, LO = hp.REFERENCE_DPS, hp.CHECK_DPS


def _z(n_compared: int) -> float:
    return float(stats.norm.isf(ALPHA / (2 * n_compared)))


def _close(a, b, tol, what):
    with mp.workdps(60):
        diff = abs(mp.mpf(a) - mp.mpf(b))
        assert diff <= tol, f"{what}: {mp.nstr(a, 35)} vs {mp.nstr(b, 35)}, |diff| = {mp.nstr(diff, 3)} > {tol}"


# ---------------------------------------------------------------- moments


@pytest.mark.parametrize("q", [1, 2, 3, 4, 8, 16])
def test_hermite_moments_two_precisions(q):
    hi, lo = hp.hermite_moments(q, 8, HI), hp.hermite_moments(q, 8, LO)
    for i, (a, b) in enumerate(zip(hi, lo)):
        _close(a, b, TWO_PRECISION_TOL, f"h_{i}({q}) at {HI} vs {LO} digits")
    _close(hp.sigma2(q, HI), hp.sigma2(q, LO), TWO_PRECISION_TOL, f"sigma2({q})")
    _close(hi[0], 1, TWO_PRECISION_TOL, f"h_0({q}) = E 1")


@pytest.mark.parametrize("q,i", [(2, 1), (3, 2), (5, 5), (8, 8), (16, 1), (16, 4)])
def test_hermite_moments_vs_tanh_sinh(q, i):
    _close(hp.hermite_moments(q, 8, LO)[i], hp.hermite_moment_quad(q, i, LO), INDEPENDENT_TOL,
           f"h_{i}({q}) trapezoid vs tanh-sinh")


@pytest.mark.parametrize("q", [1, 2, 3, 4, 5])
def test_closed_forms_of_max_moments(q):
    mean, second = hp.max_moments_closed_form(q, HI)
    _close(hp.hermite_moments(q, 1, HI)[1], mean, CLOSED_FORM_TOL, f"E M_{q} closed form")
    _close(hp.expected_max(q, LO), mean, INDEPENDENT_TOL, f"E M_{q} distribution-function quadrature")
    if second is not None:
        _close(hp.sigma2(q, HI), second, CLOSED_FORM_TOL, f"E M_{q}^2 closed form")


@pytest.mark.parametrize("q", [3, 8, 16])
def test_sigma2_three_ways(q):
    with mp.workdps(HI):
        via_h2 = 1 + mp.sqrt(2) * hp.hermite_moments(q, 2, HI)[2]
    _close(hp.sigma2(q, HI), via_h2, CLOSED_FORM_TOL, f"sigma2({q}) = 1 + sqrt(2) h_2")
    _close(hp.sigma2(q, LO), hp.expected_max_square(q, LO), INDEPENDENT_TOL, f"sigma2({q}) vs tanh-sinh")


@pytest.mark.parametrize("q", [2, 5, 16])
def test_moments_vs_monte_carlo(q):
    mc = hp.monte_carlo_max_moments(q, 200_000, np.random.default_rng([11, q]), imax=8)
    exact = [float(v) for v in hp.hermite_moments(q, 8, LO)]
    z = _z(9)
    for i in range(1, 9):
        assert abs(mc["h"][i] - exact[i]) <= z * mc["h_se"][i], (
            f"h_{i}({q}): Monte Carlo {mc['h'][i]:.5f} +/- {z * mc['h_se'][i]:.5f}, but exact is {exact[i]:.6f}"
        )
    s2 = float(hp.sigma2(q, LO))
    assert abs(mc["sigma2"] - s2) <= z * mc["sigma2_se"], f"sigma2({q}) MC {mc['sigma2']} vs {s2}"


# ---------------------------------------------------------------- kappa series


def test_kappa_coefficients_q2_closed_form():
    for dps in (HI, LO):
        got = hp.kappa_coefficients(2, 8, dps)
        ref = hp.kappa_coefficients_closed_form_q2(8, dps)
        for i, (a, b) in enumerate(zip(got, ref)):
            _close(a, b, TWO_PRECISION_TOL, f"a_{i}(2) vs asin series at {dps} digits")


@pytest.mark.parametrize("q", [3, 4, 8, 16])
def test_kappa_coefficients_two_precisions(q):
    hi, lo = hp.kappa_coefficients(q, 8, HI), hp.kappa_coefficients(q, 8, LO)
    for i, (a, b) in enumerate(zip(hi, lo)):
        _close(a, b, TWO_PRECISION_TOL, f"a_{i}({q}) at {HI} vs {LO} digits")
        assert a >= 0, f"a_{i}({q}) = {a} < 0"


@pytest.mark.parametrize("q", range(2, 17))
def test_low_order_identities(q):
    """a_0 = 1/q, a_1 = h_1^2/(q-1), a_2 = q h_2^2/((q-1)(q-2)) (q >= 3) -- derived independently of the series code."""
    a = hp.kappa_coefficients(q, 2, HI)
    h = hp.hermite_moments(q, 2, HI)
    with mp.workdps(HI):
        _close(a[0], mp.mpf(1) / q, CLOSED_FORM_TOL, f"a_0({q})")
        _close(a[1], h[1] ** 2 / (q - 1), CLOSED_FORM_TOL, f"a_1({q})")
        expected_a2 = q * h[2] ** 2 / ((q - 1) * (q - 2)) if q >= 3 else 0
        _close(a[2], expected_a2, CLOSED_FORM_TOL, f"a_2({q})")


@pytest.mark.parametrize("q", [2, 3, 5])
def test_kernel_coefficients_direct_vs_price(q):
    direct = hp.kernel_coefficients_direct(q, 6, LO)
    price = hp.kernel_coefficients(q, 6, LO)
    for i, (a, b) in enumerate(zip(direct, price)):
        _close(a, b, TWO_PRECISION_TOL, f"b_{i}({q}): Mehler of max vs a_(i-1)/i")


def test_kernel_series_q2_closed_form():
    for rho in ("0.1", "-0.1", "0"):
        val, tail = hp.kernel_series(2, rho, 8, HI)
        _close(val, hp.kernel_closed_form_q2(rho, HI), tail + CLOSED_FORM_TOL, f"K_2({rho}) series")


@pytest.mark.parametrize("q", [3, 8])
def test_naive_hermite_series_is_not_the_kernel(q):
    """sum h_i^2 rho^i (1-D Mehler of the density ratio) differs from K_q already at rho = 0: 1 vs mu_q^2."""
    naive = hp.naive_kernel_coefficients(q, 4, LO)
    true = hp.kernel_coefficients(q, 4, LO)
    _close(naive[0], 1, INDEPENDENT_TOL, f"h_0({q})^2")
    with mp.workdps(LO):
        mu2 = hp.hermite_moments(q, 1, LO)[1] ** 2
    _close(true[0], mu2, INDEPENDENT_TOL, f"b_0({q}) = mu^2")
    assert abs(naive[0] - true[0]) > 0.2, f"b_0 = {true[0]} unexpectedly close to h_0^2 = 1"


# ---------------------------------------------------------------- numpy kernels


def test_numpy_kernels_vs_q2_closed_forms():
    theta = np.linspace(0, np.pi, 1001)
    rho = np.cos(theta)
    kap = hp.kappa_of_angle(theta, 2)
    ker = hp.kernel_of_angle(theta, 2)
    err_k = np.max(np.abs(kap - (1 - theta / np.pi)))
    err_K = np.max(np.abs(ker - (rho / 2 + (np.sqrt(1 - rho**2) + rho * np.arcsin(rho)) / np.pi)))
    assert err_k <= hp.NUMPY_KERNEL_ABS_ERROR, f"kappa_2 max error {err_k:.2e}"
    assert err_K <= hp.NUMPY_KERNEL_ABS_ERROR, f"K_2 max error {err_K:.2e}"


@pytest.mark.parametrize("q", [3, 4, 8, 16])
def test_numpy_kernels_vs_mpmath_series(q):
    """Near rho = 0 the mpmath series with its rigorous tail bound is an independent reference."""
    for rho in (0.0, 0.05, -0.05):
        th = math.acos(rho)
        val, tail = hp.kappa_series(q, rho, 8, LO)
        err = abs(float(hp.kappa_of_angle(th, q)) - float(val))
        assert err <= hp.NUMPY_KERNEL_ABS_ERROR + float(tail), f"kappa_{q}({rho}): error {err:.2e}"
        val, tail = hp.kernel_series(q, rho, 8, LO)
        err = abs(float(hp.kernel_of_angle(th, q)) - float(val))
        assert err <= hp.NUMPY_KERNEL_ABS_ERROR + float(tail), f"K_{q}({rho}): error {err:.2e}"


@pytest.mark.parametrize("q", [1, 3, 4, 8, 16])
def test_numpy_kernels_endpoints(q):
    s2 = float(hp.sigma2(q, LO))
    mu2 = float(hp.hermite_moments(q, 1, LO)[1]) ** 2
    k = hp.kappa_of_angle(np.array([0.0, np.pi / 2, np.pi]), q)
    K = hp.kernel_of_angle(np.array([0.0, np.pi / 2]), q)
    tol = hp.NUMPY_KERNEL_ABS_ERROR
    assert abs(k[0] - 1) <= tol and abs(k[1] - 1 / q) <= tol, f"kappa_{q}(1), kappa_{q}(0) = {k[:2]}"
    assert abs(k[2] - (1.0 if q == 1 else 0.0)) <= tol, f"kappa_{q}(-1) = {k[2]}"
    assert abs(K[0] - s2) <= tol, f"K_{q}(1) = {K[0]} but sigma2 = {s2}"
    assert abs(K[1] - mu2) <= tol, f"K_{q}(0) = {K[1]} but mu^2 = {mu2}"
    if q == 3:  # K_3(-1) = -E[min max] = sqrt(3)/pi
        assert abs(float(hp.kernel_of_angle(np.pi, 3)) - math.sqrt(3) / math.pi) <= tol


@pytest.mark.parametrize("q", [4, 16])
def test_numpy_kernels_vs_monte_carlo(q):
    rhos = (0.9, 0.4, -0.6)
    z = _z(2 * len(rhos))
    for k, rho in enumerate(rhos):
        mc = hp.monte_carlo_kernels(q, rho, 200_000, np.random.default_rng([12, q, k]))
        th = math.acos(rho)
        K, kap = float(hp.kernel_of_angle(th, q)), float(hp.kappa_of_angle(th, q))
        assert abs(mc["K"] - K) <= z * mc["K_se"], f"K_{q}({rho}): MC {mc['K']:.4f} +/- {z * mc['K_se']:.4f} vs {K:.6f}"
        assert abs(mc["kappa"] - kap) <= z * mc["kappa_se"], f"kappa_{q}({rho}): MC {mc['kappa']:.4f} vs {kap:.6f}"


def test_gram_matrices():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(64, 7))
    X[3] = 0.0
    G = hp.maxout_kernel(X, q=4)
    assert G.shape == (64, 64) and np.allclose(G, G.T, atol=1e-13)
    assert np.all(G[3] == 0), "K(0, z) must be 0"
    norms = np.linalg.norm(X, axis=1)
    U = X[norms > 0] / norms[norms > 0, None]
    assert np.allclose(hp.maxout_kernel(2.5 * U, U, q=4), 2.5 * hp.maxout_kernel(U, q=4), atol=1e-12)
    assert np.allclose(np.diag(hp.maxout_kernel(U, q=4)), float(hp.sigma2(4, LO)), atol=1e-10)
    assert np.linalg.eigvalsh(hp.maxout_kernel(U, q=4)).min() > -1e-8, "Gram must be PSD"
    C = hp.maxout_collision_kernel(U, q=4)
    assert np.allclose(np.diag(C), 1.0, atol=1e-10) and C.min() >= -1e-10 and C.max() <= 1 + 1e-10
    with pytest.raises(UsageError):
        hp.maxout_collision_kernel(X, q=4)
    with pytest.raises(UsageError):
        hp.maxout_kernel(X, q=0)
    with pytest.raises(UsageError):
        hp.maxout_kernel(X, rng.normal(size=(3, 5)), q=2)


def test_angles_accurate_near_zero():
    x = np.array([[1.0, 0.0]])
    z = np.array([[1.0, 1e-9]])
    # kappa_2 = 1 - theta/pi with theta = 1e-9: arccos of the rounded cosine would give 0 or 1.5e-8
    assert abs(float(hp.maxout_collision_kernel(x, z, q=2)[0, 0]) - (1 - 1e-9 / math.pi)) < 1e-13


# ---------------------------------------------------------------- tables


def test_write_tables_deterministic(tmp_path):
    first = hp.write_tables(tmp_path / "a", q_values=(1, 2, 3, 4))
    second = hp.write_tables(tmp_path / "b", q_values=(1, 2, 3, 4))
    assert [p.name for p in first] == [p.name for p in second]
    for p, r in zip(first, second):
        assert p.read_bytes() == r.read_bytes(), f"{p.name} differs between runs"
    text = (tmp_path / "a" / "maxout_moments.csv").read_text()
    assert "mpmath" in text and "write_tables" in text
    row2 = [line for line in text.splitlines() if line.startswith("2,")][0].split(",")
    with mp.workdps(HI):
        _close(row2[2], 1 / mp.sqrt(mp.pi), mp.mpf("1e-29"), "h_1(2) in the table")
    md = (tmp_path / "a" / "maxout_tables.md").read_text()
    assert "45 vs 30" in md

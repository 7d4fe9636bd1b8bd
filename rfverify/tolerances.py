"""Every round-off bound rfverify judges computed values by, defined once, each with its inequality cited.

A deterministic check fails only when an error exceeds one of these bounds, so each is a *proved* upper bound
on floating-point error (times a stated small constant where the reference says "a small constant"), never a
tuned number.  ``u`` is the unit round-off of the dtype being judged (a float32 plug-in is judged at float32
precision); rfverify's own reference computations are float64 and add their own γ term.

======================  ===========================================================  =========================
bound                   value                                                        used by
======================  ===========================================================  =========================
γ_n                     n u / (1 - n u) (Higham 2002, eq. 3.5)                        everything below
contract                ROUNDOFF_MARGIN γ_{d+2} max|Φ|                                contract, reproducibility,
                                                                                     data dependence
kernel estimate         m s² (2 ROUNDOFF_MARGIN γ_{d+2} + γ_m), s = max|Φ|            unbiasedness, error-rate,
                        (u of the features' dtype; eq. 3.5 twice)                    concentration
orthogonality           2 c d² u + γ_d(f64)(1 + 2 c d² u) (Higham Lemma 19.3)          orthogonality
transform               γ_{d+3} max(|M||x|, ‖x‖₂‖M‖₂) + the reference's own bound     transform-exactness,
                        (dense γ_d(f64)|M||x|, FWHT γ_{log2 d}(f64)‖x‖₁; Lemma 3.1)  linearity
kernel evaluation       EVAL_CONSTANT γ_{d+2} (1 + r²) + accuracy                     kernel checks
PSD                     n η max|K| + EIG_CONSTANT n u₆₄ ‖K‖₂ (Weyl; LAPACK §4.7)       kernel-psd
======================  ===========================================================  =========================

>>> round(roundoff_inner_product(10) / 2.0 ** -53, 6)  # γ_10 ≈ 10 u in float64
10.0
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import DTypeLike

__all__ = ["unit_roundoff", "roundoff_inner_product", "ROUNDOFF_MARGIN", "contract_tolerance", "ORTHO_CONSTANT",
           "orthogonality_tolerance", "NORMALISATION_EXTRA", "transform_allowance", "transform_tolerance",
           "fwht_reference_error", "estimate_roundoff", "EVAL_CONSTANT", "EIG_CONSTANT",
           "evaluation_tolerance", "psd_tolerance"]


def _float_dtype(dtype: DTypeLike) -> np.dtype:
    """``dtype`` if it is a real floating dtype, else float64 (integers and others are judged as float64)."""
    dt = np.dtype(dtype)
    return dt if dt.kind == "f" else np.dtype(np.float64)


def unit_roundoff(dtype: DTypeLike = np.float64) -> float:
    """u = eps / 2 of a floating dtype (float64 for anything else)."""
    return float(np.finfo(_float_dtype(dtype)).eps) / 2.0


def roundoff_inner_product(n: int, dtype: np.dtype | type = np.float64) -> float:
    """Higham's gamma_n = n u / (1 - n u): relative error bound of an n-term inner product.

    ``|fl(x.y) - x.y| <= gamma_n * sum |x_i y_i|`` (Higham, *Accuracy and
    Stability of Numerical Algorithms*, 2nd ed., eq. 3.5).
    """
    u = float(np.finfo(np.dtype(dtype)).eps) / 2.0
    nu = n * u
    return nu / (1.0 - nu) if nu < 1 else math.inf


# -- feature maps: recomputing features ---------------------------------------------------------------
#: Margin over Higham's gamma_{d+2} for a nonlinearity applied to an inner
#: product whose argument may reach ~256 in magnitude (|cos'| <= 1, so the
#: absolute error of cos(w.x + b) is at most |arg| * gamma_{d+2}).
ROUNDOFF_MARGIN = 256.0


def contract_tolerance(d: int, F: np.ndarray) -> float:
    """Absolute tolerance for recomputing features: margin * gamma_{d+2}(dtype) * max |F|."""
    dtype = F.real.dtype if np.iscomplexobj(F) else F.dtype
    if dtype.kind != "f":
        dtype = np.dtype(np.float64)
    return ROUNDOFF_MARGIN * roundoff_inner_product(d + 2, dtype) * max(float(np.max(np.abs(F))), 1e-300)


#: Safety factor on the propagated bound below: its sensitivities are finite differences (first order).
PROPAGATION_MARGIN = 4.0


def propagated_roundoff(d: int, dtype: DTypeLike, sensitivity: np.ndarray) -> np.ndarray:
    """Bound on the difference of two computations of the same features in different summation orders (a batch
    and a single row), element by element, from the map's own sensitivity.

    A feature phi(w . x + b) computed in ``dtype`` carries the inner product's round-off |delta arg| <=
    gamma_{d+2} sum_j |w_j x_j| (Higham 2002, eq. 3.5) through phi', i.e. at most gamma_{d+2} S with
    S = sum_j |x_j| |d phi / d x_j| — the sensitivity the caller measures by finite differences, so no
    assumption is made on the size of the arguments (heavy-tailed frequencies, e.g. Cauchy for the Laplacian
    kernel, reach arguments far beyond :data:`ROUNDOFF_MARGIN`).  Two such computations differ by at most twice
    that; ``PROPAGATION_MARGIN`` covers the first-order estimate of S.
    """
    return 2.0 * PROPAGATION_MARGIN * roundoff_inner_product(d + 2, _float_dtype(dtype)) * np.asarray(sensitivity)


def estimate_roundoff(d: int, m: int, dtype: DTypeLike, max_abs: float) -> float:
    """Absolute round-off bound of a kernel estimate k_hat = sum_i phi_i(x) phi_i(y) computed in ``dtype``.

    Each of the m features is a bounded nonlinearity of an inner product over d coordinates (plus a phase), so
    as in :func:`contract_tolerance` its computed value is within ``delta = ROUNDOFF_MARGIN * gamma_{d+2} * s``
    of the exact one, s = max |phi| (Higham 2002, eq. 3.5, with the margin for arguments up to ~256).  Then
    ``|fl(sum phi(x) phi(y)) - sum phi(x) phi(y)| <= sum (|phi(x)| delta + delta |phi(y)| + delta^2)
    + gamma_m sum |phi(x) phi(y)| <= m s^2 (2 ROUNDOFF_MARGIN gamma_{d+2} + gamma_m)`` to first order (the
    inner product of the m computed features, eq. 3.5 again).  ``u`` is the unit round-off of the features'
    dtype: a float32 map is judged by float32 arithmetic.  For random Fourier features s^2 = 2/m, so at
    d = 16, m = 1024 the bound is 1.2e-3 in float32 and 2.3e-12 in float64 (doctest below).  A statistical
    check treats a mean estimate within this bound of the exact kernel as exact (round-off only), never as a
    bias: float32 cos/sin features estimate k(x, x) = cos^2 + sin^2 = 1 to ~1e-7, with a spread across seeds
    of ~1e-9, which a t-test would otherwise call a bias.

    >>> f"{estimate_roundoff(16, 1024, np.float32, (2 / 1024) ** 0.5):.2g}"
    '0.0012'
    >>> f"{estimate_roundoff(16, 1024, np.float64, (2 / 1024) ** 0.5):.2g}"
    '2.3e-12'
    """
    dt = _float_dtype(dtype)
    return m * max_abs * max_abs * (2.0 * ROUNDOFF_MARGIN * roundoff_inner_product(d + 2, dt)
                                    + roundoff_inner_product(max(m, 1), dt))


# -- orthogonal samplers ------------------------------------------------------------------------------
#: The small constant c in Higham's gamma~_k = c k u / (1 - c k u) (Higham 2002, §19.3: "c denotes a
#: small integer constant"); the orthogonality bound below is 2 c d^2 u.
ORTHO_CONSTANT = 4


def orthogonality_tolerance(d: int, dtype: np.dtype) -> float:
    """Named bound on ``max |Q^T Q - I|`` for a matrix computed as a product of d Householder reflections.

    Higham (2002), Lemma 19.3 / Thm 19.4: applying r reflections of length d in
    floating point gives columns ``Q(e_j + Δ_j)`` with ``||Δ_j||_2 <= r γ~_d``;
    with r = d, ``|Q̂^T Q̂ - I|_max <= 2 d γ~_d + O(u^2) ≈ 2 c d^2 u``, ``u`` the
    unit round-off of the sampler's dtype (so a float32 sampler is judged at
    float32 precision).  Our own evaluation of ``Q̂^T Q̂`` in float64 adds
    ``γ_d(float64) * max_ij sum_k |q_ki q_kj| <= γ_d(float64) * (1 + tol)``.
    """
    u = unit_roundoff(dtype)
    tol = 2.0 * ORTHO_CONSTANT * d * d * u
    return tol + roundoff_inner_product(d, np.float64) * (1.0 + tol)


# -- fast transforms ----------------------------------------------------------------------------------
#: Extra roundings for a normalisation (sqrt, reciprocal or cast, the scaling multiply).
NORMALISATION_EXTRA = 3


def transform_allowance(comp: np.ndarray, x_norm: np.ndarray, m_norm: float, d: int, dtype: DTypeLike) -> np.ndarray:
    """The plug-in's round-off allowance ``γ_{d+3}(u) max(|M| |x|, ‖x‖₂ ‖M‖₂)`` (elementwise).

    Higham (2002) Lemma 3.1 and eq. (3.5): a value computed by at most K
    roundings of sums of products ``m_jk x_k`` satisfies
    ``|fl(y_j) - y_j| <= γ_K (|M| |x|)_j``.  Dense matmul (any summation order)
    has K = d - 1, the FWHT K = log2 d (butterfly) or sum_i (b_i - 1) (Kronecker
    factors), normalisation adds 3; we take K = d + 3 (covers all of them).
    A fast factorisation M = F_1 ... F_L of an orthogonal M may have
    ``|F_1| ... |F_L| |x|`` larger than ``|M| |x|``; its normwise backward error
    is bounded by ``γ_K ||x||_2 ||M||_2`` (Higham §3.5), so the bound is the
    larger of the two.  ``comp`` is ``|M| |x|`` per row (shape (n, d), or (n, 1)
    when it is the same for every output, as for a Hadamard matrix), ``x_norm``
    the rows' ‖x‖₂ as (n, 1), ``m_norm`` = ‖M‖₂ (or an upper bound), ``dtype``
    the input's (a float32 input is judged at float32 precision).
    """
    return roundoff_inner_product(d + NORMALISATION_EXTRA, _float_dtype(dtype)) * np.maximum(comp, x_norm * m_norm)


def transform_tolerance(X: np.ndarray, M: np.ndarray, dtype: np.dtype, *, norm2: float | None = None,
                        abs_M: np.ndarray | None = None) -> np.ndarray:
    """Named elementwise bound on ``|apply(X) - fl(X M^T)|`` for a dense M and the float64 reference ``X M^T``.

    :func:`transform_allowance` (the plug-in's round-off, K = d + 3) plus the
    dense float64 reference's own error ``γ_d(float64) (|X| |M|^T)`` (Higham
    2002, eq. 3.5): ``|apply(x) - fl(Mx)| <= |apply(x) - Mx| + |Mx - fl(Mx)|``.
    O(n d²) per call; ``norm2`` (‖M‖₂, else an SVD here, O(d³)) and ``abs_M``
    (``|M|``) let a caller compute them once per matrix
    (:class:`rfverify.kinds.matrices.DenseOperator` does).  ``dtype`` is the
    input's: a float32 input is judged at float32 precision, a float64 one at
    float64.
    """
    d = M.shape[0]
    X64 = X.astype(np.float64)
    comp = np.abs(X64) @ (np.abs(M) if abs_M is None else abs_M).T
    m_norm = float(np.linalg.norm(M, 2)) if norm2 is None else float(norm2)
    x_norm = np.linalg.norm(X64, axis=1, keepdims=True)
    return (transform_allowance(comp, x_norm, m_norm, d, dtype) + roundoff_inner_product(d, np.float64) * comp
            + np.finfo(np.float64).tiny)


def fwht_reference_error(l1: np.ndarray, d: int, *, normalized: bool = False) -> np.ndarray:
    """Bound on ``|fl(s H x) - s H x|`` (s = 1, or 1/sqrt d if ``normalized``) for rfverify's float64 radix-2
    FWHT reference; ``l1`` = ‖x‖₁ per row.

    The reference (:func:`rfverify.kinds.matrices.reference_fwht`) computes
    ``H_d x`` in L = log2 d levels; at each level every value is one rounded
    sum or difference of two values of the level before, ``fl(a ± b) = (a ± b)
    (1 + δ)``, ``|δ| <= u`` (Higham 2002, eq. 2.4; the weights ±1 are exact).
    Every path from input j to output i crosses exactly one operation per
    level, so by induction ``fl(Hx)_i = sum_j h_ij x_j (1 + θ_L^{(ij)})`` with
    ``|θ_L| <= γ_L`` (Higham, Lemma 3.1), hence

        |fl(Hx)_i - (Hx)_i| <= γ_L sum_j |x_j| = γ_L (|H| |x|)_i = γ_L ‖x‖₁,

    the componentwise form of Higham's radix-2 FFT analysis (§24.1, Thm 24.2,
    there with inexact twiddle factors; here they are ±1).  No d x d product
    is needed: |H| is all ones.  The normalised reference scales by
    ``s = 2^(-L/2)``: exactly (``ldexp``) for even L; for odd L by
    ``fl(sqrt(1/2))`` (one correctly rounded square root) then ``ldexp``, with
    one rounding of the product, so ``|fl(fl(Hx) s') - s Hx| <= s (γ_2 |Hx|_i +
    (1 + γ_2) γ_L ‖x‖₁) <= s γ_{L+2} ‖x‖₁`` as ``|Hx|_i <= ‖x‖₁`` and
    ``γ_a + γ_b + γ_a γ_b <= γ_{a+b}`` (Higham, Lemma 3.3).  (Underflow adds at
    most the smallest subnormal per operation, covered by the callers' ``tiny``.)
    """
    L = max(d.bit_length() - 1, 0)
    K = L + 2 if normalized and L % 2 else L
    return roundoff_inner_product(K, np.float64) * (1.0 / math.sqrt(d) if normalized else 1.0) * l1


# -- kernels ------------------------------------------------------------------------------------------
#: c in the relative evaluation error c * gamma_{d+2}(u) * (1 + r^2) of one kernel value: the d-term
#: sums (inner products, squared or l1 distances) carry gamma_{d+2} relative error (Higham 2002,
#: eq. 3.5); a kernel that exponentiates them (rbf, Laplacian, exp) turns that into a relative error
#: proportional to the exponent, i.e. to r^2 = |x|^2 / (d s0^2), the squared input norm in units of
#: the kernel's length scale s0; c = 8 covers the few further roundings (scaling, exp, tanh, powers).
EVAL_CONSTANT = 8
#: c in LAPACK's error bound for the symmetric eigenproblem, |lambda_hat - lambda| <= p(n) u ||K||_2
#: with p(n) = c n ("a modestly growing function of n": LAPACK Users' Guide, 3rd ed., §4.7).
EIG_CONSTANT = 4


def evaluation_tolerance(dtype: DTypeLike, d: int, r2: float, accuracy: float = 0.0) -> float:
    """Relative error of one computed kernel value: ``EVAL_CONSTANT * gamma_{d+2}(u) * (1 + r2) + accuracy``.

    ``u`` is the unit round-off of the dtype the kernel returns (a float32 kernel is judged at
    float32 precision), ``r2`` the largest squared input norm in units of the length scale,
    ``accuracy`` the kernel's stated approximation error (``KernelSpec.accuracy``; 0 for closed forms).
    """
    return EVAL_CONSTANT * roundoff_inner_product(d + 2, _float_dtype(dtype)) * (1.0 + r2) + accuracy


def psd_tolerance(n: int, d: int, dtype: DTypeLike, r2: float, max_abs: float, norm2: float,
                  accuracy: float = 0.0) -> float:
    """Named bound on how negative the computed smallest eigenvalue of a PSD kernel's Gram can be.

    The computed Gram is K + E with |E_ij| <= eta max|K| (eta = :func:`evaluation_tolerance`), so
    by Weyl's inequality |lambda_min(K + E) - lambda_min(K)| <= ||E||_2 <= ||E||_F <= n eta max|K|;
    ``numpy.linalg.eigvalsh`` (LAPACK syevd, backward stable) returns the eigenvalues of K + E + F
    with ||F||_2 <= EIG_CONSTANT n u64 ||K||_2 (LAPACK Users' Guide §4.7).  A PSD kernel therefore
    has computed lambda_min >= -(n eta max|K| + EIG_CONSTANT n u64 ||K||_2).
    """
    u64 = unit_roundoff(np.float64)
    return n * evaluation_tolerance(dtype, d, r2, accuracy) * max_abs + EIG_CONSTANT * n * u64 * norm2

r"""High-precision Hermite engine for random maxout features (the mpmath references).

Reference: Y. Mroueh, S. Rennie, V. Goel, *Random Maxout Features*
(``/work/shared/papers/mroueh-random-maxout-features.txt``).  Its Theorem 1 and
Lemma 1 are treated as claims to test (:mod:`rfverify.studies.claims.mroueh`);
this module computes the *true* quantities from minimal definitions.

Notation
--------
``g = (g_1..g_q)`` iid N(0, 1); ``M_q = max_j g_j``; ``He_i`` the probabilists'
Hermite polynomials and ``phi_i = He_i / sqrt(i!)`` their normalised versions
(orthonormal for N(0, 1)).  For unit ``x, z`` with ``rho = <x, z>`` put
``g_j = <w_j, x>``, ``g'_j = <w_j, z>``: the pairs ``(g_j, g'_j)`` are iid
standard bivariate normal with correlation ``rho``.

* ``h_i(q) = E phi_i(M_q)`` and ``sigma2(q) = E M_q^2 = 1 + sqrt(2) h_2(q)``;
  ``h_1(q) = mu_q = E M_q``.
* ``kappa_q(rho) = P(argmax g = argmax g') = q E[A_1(g) A_1(g')]`` with
  ``A_1 = 1{g_1 = max}``.
* ``K_q(rho) = E[M(g) M(g')]``; for general vectors
  ``K(x, z) = |x| |z| K_q(cos angle(x, z))`` since ``max`` is positively
  homogeneous (``K = 0`` if either vector is 0).

What the series are (and which one the paper's Lemma 1 means)
-------------------------------------------------------------
Mehler's formula on ``R^q``: for ``F`` in ``L^2(N(0, I_q))`` with normalised
Hermite coefficients ``c_alpha(F) = E[F(g) He_alpha(g)] / sqrt(alpha!)``,
``E[F(g) F(g')] = sum_i rho^i sum_{|alpha| = i} c_alpha(F)^2``.

* The Taylor series of ``kappa_q`` at ``rho = 0`` (Lemma 1's ``a_i``) *is* this
  Mehler series for ``F = A_1``:
  ``a_i(q) = q sum_{|alpha| = i} c_alpha(A_1)^2 >= 0``.  Each coefficient is a
  one-dimensional integral: with ``psi_0 = Phi`` and
  ``psi_n = -He_{n-1} phi`` (so that ``int_{-inf}^s He_n phi = psi_n(s)``),
  ``E[A_1 He_alpha] = int He_{alpha_1}(s) phi(s) prod_{k>=2} psi_{alpha_k}(s) ds``.
  Grouping the multi-indices by ``alpha_1`` and the partition formed by the
  other non-zero entries leaves a few hundred integrals for ``i <= 8``.
  Translation invariance ``A_1(g + t 1) = A_1(g)`` gives
  ``sum_k E[d_k d^beta A_1] = 0``, from which ``a_0 = 1/q``,
  ``a_1 = h_1^2 / (q - 1)`` and, for ``q >= 3``,
  ``a_2 = q h_2^2 / ((q - 1)(q - 2))`` follow exactly; for ``q = 2`` the same
  computation gives ``a_2 = 2 h_2^2 = 0`` (``h_2(2) = 0`` because
  ``sigma2(2) = 1``), so the printed formula is ``0/0`` there.
* The kernel: ``d/drho E[F(g) F(g')] = E[grad F(g) . grad F(g')]`` (Price's
  theorem, i.e. Mehler termwise) and ``grad max = (A_1..A_q)``, so
  ``K_q'(rho) = kappa_q(rho)`` and
  ``K_q(rho) = mu_q^2 + int_0^rho kappa_q(t) dt``;
  its series has ``b_0 = h_1(q)^2`` and ``b_i = a_{i-1}(q) / i``.  This is
  *not* Theorem 1's ``sigma2(q) rho kappa_q(rho)`` (which vanishes at
  ``rho = 0`` where the truth is ``mu_q^2``), and *not*
  ``sum_i h_i(q)^2 rho^i`` either: that one-dimensional Mehler series equals
  ``E[r(g) r(g')]`` for the likelihood ratio ``r = q Phi^{q-1}`` of ``M_q``
  (its value at ``rho = 0`` is ``h_0^2 = 1``, at ``rho = 1`` it is
  ``q^2 / (2q - 1)``).  :func:`kernel_coefficients_direct` computes the ``b_i``
  from the Hermite coefficients of ``max`` itself, independently of Price's
  theorem.

Numerical method (high precision)
---------------------------------
Every integral here has the form ``int_R f(s) ds`` with ``f`` entire and
Gaussian-decaying, for which the trapezoidal rule is spectrally accurate: if
``|f(s + iy)| <~ exp(k y^2 / 2)`` (``k`` = number of Gaussian-like factors,
at most ``q + i + 2``) the aliasing error is ``~ exp(-2 pi^2 / (k h^2))``.
We take ``h = pi sqrt(2 / (k ln 10 (dps + GUARD)))`` (aliasing
``~ 10^-(dps + GUARD)``) on ``[-L, L]`` with ``phi(L) <= 10^-(dps + GUARD + 15)``,
at working precision ``dps + GUARD``.  This is a heuristic bound (constants are
not tracked), so every value is also computed at a second precision (different
step *and* precision) and by an independent method (closed forms, tanh-sinh
``mp.quad`` of the density ``q phi Phi^{q-1}``, Monte Carlo).

The numpy side (Monte Carlo, the fast Gram kernels, the reference tables) is
:mod:`rfverify.highprec.maxout`, which re-exports every public name defined here.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import numpy as np
from mpmath import mp

from rfverify.errors import UsageError

__all__ = [
    "Q_MAX",
    "I_MAX",
    "REFERENCE_DPS",
    "CHECK_DPS",
    "hermite_moments",
    "hermite_moment_quad",
    "sigma2",
    "expected_max",
    "expected_max_square",
    "max_moments_closed_form",
    "kappa_coefficients",
    "kernel_coefficients",
    "kernel_coefficients_direct",
    "naive_kernel_coefficients",
    "kappa_closed_form_q2",
    "kernel_closed_form_q2",
    "kappa_coefficients_closed_form_q2",
    "expected_min_max_product",
    "kappa_series",
    "kernel_series",
]

#: Largest pool size the engine tabulates (the task's range q = 1..16).
Q_MAX = 16
#: Highest Hermite / series index tabulated by default.
I_MAX = 8
#: Precision (decimal digits) of the reference values.
REFERENCE_DPS = 45
#: Second precision every reference value is recomputed at.
CHECK_DPS = 30
#: Extra working digits inside every computation (rounded away on return).
GUARD_DIGITS = 10


# --------------------------------------------------------------------------
# validation


def _check_q(q: Any, q_max: int = Q_MAX) -> int:
    if isinstance(q, bool) or not isinstance(q, (int, np.integer)) or not 1 <= q <= q_max:
        raise UsageError(f"q must be an integer in [1, {q_max}], got {q!r}")
    return int(q)


def _check_index(i: Any, name: str, upper: int = 24) -> int:
    if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i <= upper:
        raise UsageError(f"{name} must be an integer in [0, {upper}], got {i!r}")
    return int(i)


def _check_dps(dps: Any) -> int:
    if isinstance(dps, bool) or not isinstance(dps, (int, np.integer)) or not 15 <= dps <= 200:
        raise UsageError(f"dps must be an integer in [15, 200], got {dps!r}")
    return int(dps)


def _check_rho(rho: Any) -> Any:
    r = mp.mpf(rho)
    if not -1 <= r <= 1:
        raise UsageError(f"rho must lie in [-1, 1], got {rho!r}")
    return r


# --------------------------------------------------------------------------
# trapezoidal nodes on the real line


@lru_cache(maxsize=None)
def _nodes(dps: int, k_gauss: int, kmax: int) -> tuple[Any, tuple[tuple[Any, ...], ...]]:
    """Trapezoid step and nodes ``(s, phi, Phi, He_0..He_kmax, psi_0..psi_kmax)``.

    ``psi_0 = Phi`` and ``psi_n = -He_{n-1} phi`` (antiderivative of
    ``He_n phi``).  Computed at ``dps + GUARD_DIGITS`` digits.
    """
    with mp.workdps(dps + GUARD_DIGITS):
        ln10 = mp.log(10)
        digits = dps + GUARD_DIGITS
        step = mp.pi * mp.sqrt(2 / (k_gauss * ln10 * digits))
        half_width = mp.sqrt(2 * ln10 * (digits + 15))
        n = int(half_width / step) + 1
        nodes = []
        for k in range(-n, n + 1):
            s = k * step
            phi = mp.npdf(s)
            cdf = mp.ncdf(s)
            he = [mp.mpf(1), s]
            for j in range(2, kmax + 1):
                he.append(s * he[-1] - (j - 1) * he[-2])
            he = he[: kmax + 1]
            psi = [cdf] + [-he[j - 1] * phi for j in range(1, kmax + 1)]
            nodes.append((s, phi, cdf, tuple(he), tuple(psi)))
        return step, tuple(nodes)


def _k_gauss(q: int, imax: int) -> int:
    # Number of Gaussian-like factors bounding the integrands' growth in the
    # complex strip; rounded up so that q = 1..16, imax <= 8 share one node set.
    return max(26, q + imax + 2)


def _rounded(values: list[Any], dps: int) -> tuple[Any, ...]:
    with mp.workdps(dps):
        return tuple(+v for v in values)


# --------------------------------------------------------------------------
# moments of the maximum


@lru_cache(maxsize=None)
def hermite_moments(q: int, imax: int = I_MAX, dps: int = REFERENCE_DPS) -> tuple[Any, ...]:
    """``(h_0(q), ..., h_imax(q))`` with ``h_i = E phi_i(M_q)``, ``phi_i = He_i/sqrt(i!)``.

    Method: trapezoidal rule (module docstring) applied to
    ``int phi_i(s) q phi(s) Phi(s)^{q-1} ds``.  Independent checks:
    :func:`hermite_moment_quad` (tanh-sinh), :func:`max_moments_closed_form`,
    :func:`monte_carlo_max_moments`.

    >>> from mpmath import mp
    >>> with mp.workdps(20):
    ...     print(mp.nstr(hermite_moments(2, 1, 30)[1], 15))
    0.564189583547756
    """
    q, imax, dps = _check_q(q), _check_index(imax, "imax"), _check_dps(dps)
    step, nodes = _nodes(dps, _k_gauss(q, imax), max(imax, 9))
    with mp.workdps(dps + GUARD_DIGITS):
        vals = []
        for i in range(imax + 1):
            tot = mp.fsum(q * nd[1] * nd[2] ** (q - 1) * nd[3][i] for nd in nodes)
            vals.append(step * tot / mp.sqrt(mp.factorial(i)))
        vals = _zero_floor(vals, dps)  # e.g. h_2(2) = 0 exactly (sigma2(2) = 1)
    return _rounded(vals, dps)


@lru_cache(maxsize=None)
def sigma2(q: int, dps: int = REFERENCE_DPS) -> Any:
    """``sigma2(q) = E[M_q^2]`` by the trapezoidal rule on ``s^2 q phi Phi^{q-1}``.

    Checked against ``1 + sqrt(2) h_2(q)``, closed forms for ``q <= 4`` and
    tanh-sinh quadrature (tests).
    """
    q, dps = _check_q(q), _check_dps(dps)
    step, nodes = _nodes(dps, _k_gauss(q, 2), 9)
    with mp.workdps(dps + GUARD_DIGITS):
        val = step * mp.fsum(q * nd[1] * nd[2] ** (q - 1) * nd[0] ** 2 for nd in nodes)
    return _rounded([val], dps)[0]


@lru_cache(maxsize=None)
def hermite_moment_quad(q: int, i: int, dps: int = REFERENCE_DPS) -> Any:
    """``h_i(q)`` by tanh-sinh quadrature (``mp.quad``) -- the independent method.

    ``int_{-inf}^{inf} He_i(s)/sqrt(i!) q phi(s) Phi(s)^{q-1} ds`` split at
    0 and at the mode region; tanh-sinh has nothing in common with the
    trapezoid on a fixed grid used by :func:`hermite_moments`.  ``i = -1``
    returns ``E M_q^2`` (i.e. ``sigma2``).
    """
    q, dps = _check_q(q), _check_dps(dps)
    if i != -1:
        i = _check_index(i, "i")
    with mp.workdps(dps + GUARD_DIGITS):
        if i == -1:
            def poly(s: Any) -> Any:
                return s * s
        else:
            norm = mp.sqrt(mp.factorial(i))

            def poly(s: Any) -> Any:
                return mp.hermite(i, s / mp.sqrt(2)) * mp.mpf(2) ** (-mp.mpf(i) / 2) / norm

        def f(s: Any) -> Any:
            return poly(s) * q * mp.npdf(s) * mp.ncdf(s) ** (q - 1)

        val = mp.quad(f, [-mp.inf, -2, 0, 2, mp.inf])
    return _rounded([val], dps)[0]


def _max_moment_large_q(q: Any, k: int, dps: int) -> Any:
    """``E[M_q^k]`` (k = 1, 2) from the distribution function ``Phi^q``.

    ``E M^k = int_0^inf k s^{k-1} (1 - Phi^q) ds + int_{-inf}^0 k s^{k-1} Phi^q ds``
    by tanh-sinh quadrature with breakpoints around ``sqrt(2 log q)``;
    ``1 - Phi^q = -expm1(q log Phi)`` avoids cancellation for huge ``q``.
    """
    if isinstance(q, bool) or not isinstance(q, (int, np.integer)) or q < 1:
        raise UsageError(f"q must be a positive integer, got {q!r}")
    dps = _check_dps(dps)
    with mp.workdps(dps + GUARD_DIGITS):
        qq = mp.mpf(int(q))
        c = mp.sqrt(2 * mp.log(qq)) if qq > 1 else mp.mpf(0)

        def upper(s: Any) -> Any:
            return k * s ** (k - 1) * -mp.expm1(qq * mp.log(mp.ncdf(s)))

        def lower(s: Any) -> Any:
            return k * s ** (k - 1) * mp.ncdf(s) ** qq

        pts = sorted({mp.mpf(0)} | {p for p in (c - 2, c - 1, c, c + 1, c + 2) if p > 0})
        val = mp.quad(upper, pts + [mp.inf]) - mp.quad(lower, [-mp.inf, -2, 0])
    return _rounded([val], dps)[0]


def expected_max(q: int, dps: int = REFERENCE_DPS) -> Any:
    """``E max of q iid N(0,1)`` for any integer ``q >= 1`` (also huge ``q``).

    Tanh-sinh quadrature of the distribution function (see
    :func:`expected_max_square`); used for the asymptotic claim
    ``h_1(q) ~ sqrt(2 log q)`` and as an independent check of ``h_1``.
    """
    return _max_moment_large_q(q, 1, dps)


def expected_max_square(q: int, dps: int = REFERENCE_DPS) -> Any:
    """``E[M_q^2]`` for any integer ``q >= 1`` by tanh-sinh quadrature of
    ``int_0^inf 2 s (1 - Phi^q) ds + int_{-inf}^0 2 s Phi^q ds`` -- an
    independent check of :func:`sigma2` and the large-``q`` asymptotics."""
    return _max_moment_large_q(q, 2, dps)


def max_moments_closed_form(q: int, dps: int = REFERENCE_DPS) -> tuple[Any, Any]:
    """Closed forms ``(E M_q, E M_q^2)``; ``None`` where none is implemented.

    ``E M``: 0, ``1/sqrt(pi)``, ``3/(2 sqrt(pi))``, ``6 atan(sqrt 2)/pi^{3/2}``,
    ``5/(4 sqrt pi) + 15 asin(1/3)/(2 pi^{3/2})`` for q = 1..5;
    ``E M^2``: 1, 1, ``1 + sqrt(3)/(2 pi)``, ``1 + sqrt(3)/pi`` for q = 1..4
    (classical order-statistic results, e.g. David & Nagaraja, *Order
    Statistics*, 3rd ed., Sec. 3.2; re-derived here by tanh-sinh in the tests).
    """
    q, dps = _check_q(q), _check_dps(dps)
    with mp.workdps(dps + GUARD_DIGITS):
        pi, sp = mp.pi, mp.sqrt(mp.pi)
        means = {
            1: mp.mpf(0),
            2: 1 / sp,
            3: 3 / (2 * sp),
            4: 6 * mp.atan(mp.sqrt(2)) / pi**1.5,
            5: 5 / (4 * sp) + 15 * mp.asin(mp.mpf(1) / 3) / (2 * pi**1.5),
        }
        seconds = {1: mp.mpf(1), 2: mp.mpf(1), 3: 1 + mp.sqrt(3) / (2 * pi), 4: 1 + mp.sqrt(3) / pi}
        mean, second = means.get(q), seconds.get(q)
        with mp.workdps(dps):
            return (None if mean is None else +mean, None if second is None else +second)


# --------------------------------------------------------------------------
# kappa_q series (Mehler series of the argmax indicator on R^q)


def _partitions(n: int, max_parts: int, max_value: int | None = None) -> Iterator[tuple[int, ...]]:
    """Partitions of ``n`` into at most ``max_parts`` positive parts (non-increasing)."""
    if max_value is None:
        max_value = n
    if n == 0:
        yield ()
        return
    if max_parts == 0:
        return
    for first in range(min(n, max_value), 0, -1):
        for rest in _partitions(n - first, max_parts - 1, first):
            yield (first, *rest)


def _arrangements(parts: tuple[int, ...], slots: int) -> int:
    """Number of multi-indices on ``slots`` coordinates whose non-zero entries are ``parts``."""
    r = len(parts)
    count = math.factorial(slots) // math.factorial(slots - r)
    for mult in Counter(parts).values():
        count //= math.factorial(mult)
    return count


def _zero_floor(values: list[Any], dps: int) -> list[Any]:
    # Sums of squares of coefficients that vanish exactly (e.g. even a_i at
    # q = 2) come out as (10^-dps)^2-sized noise; anything below 10^-dps is
    # indistinguishable from 0 at this precision and is reported as 0.
    floor = mp.mpf(10) ** (-dps)
    return [mp.mpf(0) if abs(v) < floor else v for v in values]


@lru_cache(maxsize=None)
def kappa_coefficients(q: int, imax: int = I_MAX, dps: int = REFERENCE_DPS) -> tuple[Any, ...]:
    """Taylor coefficients ``(a_0(q), ..., a_imax(q))`` of ``kappa_q`` at ``rho = 0``.

    ``a_i = q sum_{|alpha| = i} c_alpha(A_1)^2`` (Mehler on ``R^q``), each
    ``c_alpha`` a 1-D integral (module docstring) evaluated by the trapezoidal
    rule.  Independent checks: the exact identities for ``a_0, a_1, a_2``,
    closed forms at ``q = 2`` (``1/2 + asin(rho)/pi``), the numpy 2-D Owen-T
    quadrature of ``kappa_q`` and Monte Carlo (tests).

    >>> from mpmath import mp
    >>> with mp.workdps(20):
    ...     print([mp.nstr(a, 10) for a in kappa_coefficients(2, 3, 30)])
    ['0.5', '0.3183098862', '0.0', '0.0530516477']
    """
    q, imax, dps = _check_q(q), _check_index(imax, "imax"), _check_dps(dps)
    step, nodes = _nodes(dps, _k_gauss(q, imax), max(imax, 9))
    with mp.workdps(dps + GUARD_DIGITS):
        out = []
        for i in range(imax + 1):
            total = mp.mpf(0)
            for a in range(i + 1):
                for parts in _partitions(i - a, q - 1):
                    r = len(parts)
                    integral = step * mp.fsum(
                        nd[3][a] * nd[1] * nd[2] ** (q - 1 - r) * mp.fprod(nd[4][p] for p in parts)
                        for nd in nodes
                    )
                    denom = math.factorial(a) * math.prod(math.factorial(p) for p in parts)
                    total += _arrangements(parts, q - 1) * integral**2 / denom
            out.append(q * total)
        out = _zero_floor(out, dps)
    return _rounded(out, dps)


def kernel_coefficients(q: int, imax: int = I_MAX + 1, dps: int = REFERENCE_DPS) -> tuple[Any, ...]:
    """Taylor coefficients ``(b_0, ..., b_imax)`` of the true kernel ``K_q(rho)``.

    ``b_0 = h_1(q)^2`` and ``b_i = a_{i-1}(q) / i`` (Price's theorem,
    ``K_q' = kappa_q``).  Independent check: :func:`kernel_coefficients_direct`.
    """
    q, imax, dps = _check_q(q), _check_index(imax, "imax", 25), _check_dps(dps)
    h1 = hermite_moments(q, 1, dps)[1]
    a = kappa_coefficients(q, max(imax - 1, 0), dps)
    with mp.workdps(dps + GUARD_DIGITS):
        out = [h1**2] + [a[i - 1] / i for i in range(1, imax + 1)]
    return _rounded(out, dps)


@lru_cache(maxsize=None)
def kernel_coefficients_direct(q: int, imax: int = I_MAX, dps: int = REFERENCE_DPS) -> tuple[Any, ...]:
    """``b_i = sum_{|alpha| = i} c_alpha(max)^2``: Mehler series of ``max`` on ``R^q``.

    Computed from the Hermite coefficients of ``F = max = sum_j g_j A_j``
    directly (no Price theorem, no integration by parts):
    ``E[F He_alpha] = sum_j int s He_{alpha_j}(s) phi(s) prod_{k != j} psi_{alpha_k}(s) ds``.
    """
    q, imax, dps = _check_q(q), _check_index(imax, "imax"), _check_dps(dps)
    step, nodes = _nodes(dps, _k_gauss(q, imax), max(imax, 9))
    with mp.workdps(dps + GUARD_DIGITS):

        def moment(he_index: int, zeros: int, parts: tuple[int, ...]) -> Any:
            return step * mp.fsum(
                nd[0] * nd[3][he_index] * nd[1] * nd[2] ** zeros * mp.fprod(nd[4][p] for p in parts)
                for nd in nodes
            )

        out = []
        for i in range(imax + 1):
            total = mp.mpf(0)
            for parts in _partitions(i, q):
                r = len(parts)
                ef = mp.mpf(0)
                if q - r > 0:  # j at a zero entry of alpha
                    ef += (q - r) * moment(0, q - r - 1, parts)
                for v, mult in Counter(parts).items():  # j at an entry equal to v
                    rest = list(parts)
                    rest.remove(v)
                    ef += mult * moment(v, q - r, tuple(rest))
                denom = math.prod(math.factorial(p) for p in parts)
                total += _arrangements(parts, q) * ef**2 / denom
            out.append(total)
        out = _zero_floor(out, dps)
    return _rounded(out, dps)


def naive_kernel_coefficients(q: int, imax: int = I_MAX, dps: int = REFERENCE_DPS) -> tuple[Any, ...]:
    """``h_i(q)^2``: the coefficients of the *one-dimensional* Mehler series.

    ``sum_i h_i^2 rho^i = E[r(g) r(g')]`` with ``r = q Phi^{q-1}`` -- not the
    maxout kernel; provided to quantify the difference (see module docstring).
    """
    h = hermite_moments(q, imax, dps)
    with mp.workdps(dps + GUARD_DIGITS):
        out = [x**2 for x in h]
    return _rounded(out, dps)


# --------------------------------------------------------------------------
# closed forms (q = 2) and other independent references


def kappa_closed_form_q2(rho: Any, dps: int = REFERENCE_DPS) -> Any:
    """``kappa_2(rho) = 1 - arccos(rho)/pi`` (Goemans-Williamson / sign agreement)."""
    dps = _check_dps(dps)
    with mp.workdps(dps + GUARD_DIGITS):
        val = 1 - mp.acos(_check_rho(rho)) / mp.pi
    return _rounded([val], dps)[0]


def kernel_closed_form_q2(rho: Any, dps: int = REFERENCE_DPS) -> Any:
    """``K_2(rho) = rho/2 + (sqrt(1 - rho^2) + rho asin(rho))/pi``.

    Derivation: ``max(g_1, g_2) = (u + |v|)/sqrt(2)`` with independent
    ``u = (g_1+g_2)/sqrt 2``, ``v = (g_1-g_2)/sqrt 2``, and
    ``E|v||v'| = (2/pi)(sqrt(1-rho^2) + rho asin rho)`` (arc-cosine kernel of
    degree 1).
    """
    dps = _check_dps(dps)
    with mp.workdps(dps + GUARD_DIGITS):
        r = _check_rho(rho)
        val = r / 2 + (mp.sqrt(1 - r * r) + r * mp.asin(r)) / mp.pi
    return _rounded([val], dps)[0]


def kappa_coefficients_closed_form_q2(imax: int = I_MAX, dps: int = REFERENCE_DPS) -> tuple[Any, ...]:
    """Taylor coefficients of ``1/2 + asin(rho)/pi``: ``a_0 = 1/2``,
    ``a_{2k+1} = binom(2k, k) / (4^k (2k+1) pi)``, even ``a_{2k} = 0`` (k >= 1)."""
    imax, dps = _check_index(imax, "imax"), _check_dps(dps)
    with mp.workdps(dps + GUARD_DIGITS):
        out = []
        for i in range(imax + 1):
            if i == 0:
                out.append(mp.mpf(1) / 2)
            elif i % 2 == 0:
                out.append(mp.mpf(0))
            else:
                k = (i - 1) // 2
                out.append(mp.binomial(2 * k, k) / (mp.mpf(4) ** k * (2 * k + 1) * mp.pi))
    return _rounded(out, dps)


@lru_cache(maxsize=None)
def expected_min_max_product(q: int, dps: int = 20) -> Any:
    """``E[min_j g_j * max_j g_j]`` by 2-D tanh-sinh quadrature of the joint density
    ``q (q-1) phi(x) phi(y) (Phi(y) - Phi(x))^{q-2}`` on ``x < y`` (``q >= 2``).

    ``K_q(-1) = E[M(g) M(-g)] = -E[min * max]``; at ``q = 3`` this is
    ``-sqrt(3)/pi`` (agreement to 30 digits was checked once with this
    function).  Slow: about 30 s per call whatever ``dps`` (nested tanh-sinh on
    infinite ranges), so neither the claims nor the default tests call it.
    """
    q, dps = _check_q(q), _check_dps(dps)
    if q < 2:
        raise UsageError("expected_min_max_product needs q >= 2")
    with mp.workdps(dps + 5):

        def inner(y: Any) -> Any:
            fy = mp.npdf(y)
            cy = mp.ncdf(y)
            return mp.quad(lambda x: x * mp.npdf(x) * (cy - mp.ncdf(x)) ** (q - 2), [-mp.inf, min(y, 0), y]) * y * fy

        val = q * (q - 1) * mp.quad(inner, [-mp.inf, 0, mp.inf])
    return _rounded([val], dps)[0]


def kappa_series(q: int, rho: Any, imax: int = I_MAX, dps: int = REFERENCE_DPS) -> tuple[Any, Any]:
    """``(sum_{i<=imax} a_i rho^i, tail bound)``.

    Rigorous tail bound from ``a_i >= 0`` and ``sum a_i = kappa_q(1) = 1``:
    ``|kappa_q(rho) - S| <= |rho|^{imax+1} (1 - sum_{i<=imax} a_i)``.
    """
    a = kappa_coefficients(q, imax, dps)
    with mp.workdps(dps + GUARD_DIGITS):
        r = _check_rho(rho)
        val = mp.fsum(c * r**i for i, c in enumerate(a))
        tail = abs(r) ** (imax + 1) * (1 - mp.fsum(a))
    return _rounded([val, tail], dps)


def kernel_series(q: int, rho: Any, imax: int = I_MAX, dps: int = REFERENCE_DPS) -> tuple[Any, Any]:
    """``(sum_{i<=imax+1} b_i rho^i, tail bound)`` for ``K_q`` (unit vectors).

    Tail: ``sum_{i>imax+1} a_{i-1} |rho|^i / i <= |rho|^{imax+2} (1 - sum_{i<=imax} a_i) / (imax+2)``.
    """
    b = kernel_coefficients(q, imax + 1, dps)
    a = kappa_coefficients(q, imax, dps)
    with mp.workdps(dps + GUARD_DIGITS):
        r = _check_rho(rho)
        val = mp.fsum(c * r**i for i, c in enumerate(b))
        tail = abs(r) ** (imax + 2) * (1 - mp.fsum(a)) / (imax + 2)
    return _rounded([val, tail], dps)

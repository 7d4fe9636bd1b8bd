r"""Random maxout features: numpy Monte Carlo, fast Gram kernels and reference tables.

The high-precision engine (moments of the maximum, the Mehler series of ``kappa_q`` and
``K_q``, closed forms; notation and mathematics in its docstring) lives in
:mod:`rfverify.highprec.maxout_hermite`; every one of its public names is re-exported here,
so ``rfverify.highprec.maxout`` stays the one import for maxout references.

Reference: Y. Mroueh, S. Rennie, V. Goel, *Random Maxout Features*
(``/work/shared/papers/mroueh-random-maxout-features.txt``); its Theorem 1 and Lemma 1 are
claims tested in :mod:`rfverify.studies.claims.mroueh`.

Numpy kernels
-------------
:func:`maxout_collision_kernel` and :func:`maxout_kernel` interpolate
``kappa_q`` and ``K_q`` in the *angle* ``theta = arccos rho`` (both are
analytic in ``theta`` on ``[0, pi]`` -- in ``rho`` they have a square-root
singularity at ``rho = 1``).  The table is a degree-63 Chebyshev interpolant of
``kappa_q(theta) = q E[P(s, e)^{q-1}]`` where ``(s, e)`` are the coordinates
of ``w_1`` in the plane of ``x, z`` and ``P`` is the Gaussian measure of the
wedge ``{u : u_1 < s, u . z < (s, e) . z}`` (Owen's T function); the outer
integral is a 2-D trapezoidal rule (step 0.2 on ``[-9, 9]^2``).  ``K_q`` is
``mu_q^2 + int_theta^{pi/2} kappa_q(t) sin t dt`` by Chebyshev integration.
Stated bound: ``|error| <= NUMPY_KERNEL_ABS_ERROR * |x| |z|`` (1e-10) for the
angle computed from the inputs; the tests measure about 1e-14.
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path
from typing import Any

import mpmath
import numpy as np
from mpmath import mp
from numpy.polynomial import chebyshev as _cheb
from scipy.special import ndtr, owens_t

from rfverify.errors import UsageError
from rfverify.highprec.maxout_hermite import (  # noqa: F401 - re-exported: one import for maxout references
    GUARD_DIGITS,
    _check_q,
    Q_MAX,
    I_MAX,
    REFERENCE_DPS,
    CHECK_DPS,
    hermite_moments,
    hermite_moment_quad,
    sigma2,
    expected_max,
    expected_max_square,
    max_moments_closed_form,
    kappa_coefficients,
    kernel_coefficients,
    kernel_coefficients_direct,
    naive_kernel_coefficients,
    kappa_closed_form_q2,
    kernel_closed_form_q2,
    kappa_coefficients_closed_form_q2,
    expected_min_max_product,
    kappa_series,
    kernel_series,
)

from rfverify.highprec import maxout_hermite as _engine  # noqa: E402

__all__ = [*_engine.__all__,
           "NUMPY_KERNEL_ABS_ERROR",
           "monte_carlo_max_moments",
           "monte_carlo_kernels",
           "kappa_of_angle",
           "kernel_of_angle",
           "maxout_kernel",
           "maxout_collision_kernel",
           "write_tables",
]

#: Stated absolute error bound of the numpy kernels for unit vectors (scales
#: with |x| |z| for :func:`maxout_kernel`); measured error is ~1e-14.
NUMPY_KERNEL_ABS_ERROR = 1e-10

# Numpy table parameters (see module docstring).  Trapezoid step and window of
# the outer 2-D integral; number of Chebyshev nodes in theta.
_TRAP_STEP = 0.2
_TRAP_HALF_WIDTH = 9.0
_CHEB_NODES = 64


# --------------------------------------------------------------------------
# Monte Carlo (numpy, seeded) -- the third, fully independent method


def _rng(rng: Any) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    return np.random.default_rng(rng)


def monte_carlo_max_moments(q: int, n: int, rng: Any = 0, imax: int = I_MAX) -> dict[str, Any]:
    """Monte Carlo estimates of ``h_0..h_imax`` and ``sigma2`` with standard errors.

    Draws ``n`` maxima of ``q`` iid normals; returns ``{"h": means, "h_se": ses,
    "sigma2": mean, "sigma2_se": se, "n": n}``.  A CLT interval is
    ``mean +/- z se`` (the caller picks ``z``).
    """
    q = _check_q(q)
    gen = _rng(rng)
    m = np.max(gen.standard_normal((int(n), q)), axis=1)
    he = np.polynomial.hermite_e.hermevander(m, imax)
    norms = np.sqrt([math.factorial(i) for i in range(imax + 1)])
    vals = he / norms
    return {
        "h": vals.mean(axis=0),
        "h_se": vals.std(axis=0, ddof=1) / math.sqrt(n),
        "sigma2": float(np.mean(m**2)),
        "sigma2_se": float(np.std(m**2, ddof=1) / math.sqrt(n)),
        "n": int(n),
    }


def monte_carlo_kernels(q: int, rho: float, n: int, rng: Any = 0) -> dict[str, float]:
    """Monte Carlo ``K_q(rho)`` and ``kappa_q(rho)`` for unit vectors, with standard errors.

    Samples ``g`` and ``g' = rho g + sqrt(1-rho^2) e`` coordinate-wise
    (``n`` samples of ``q`` pairs) and averages ``max g * max g'`` and
    ``1{argmax g = argmax g'}``.
    """
    q = _check_q(q)
    gen = _rng(rng)
    g = gen.standard_normal((int(n), q))
    e = gen.standard_normal((int(n), q))
    gp = rho * g + math.sqrt(max(0.0, 1.0 - rho * rho)) * e
    prod = g.max(axis=1) * gp.max(axis=1)
    same = (g.argmax(axis=1) == gp.argmax(axis=1)).astype(float)
    return {
        "K": float(prod.mean()),
        "K_se": float(prod.std(ddof=1) / math.sqrt(n)),
        "kappa": float(same.mean()),
        "kappa_se": float(same.std(ddof=1) / math.sqrt(n)),
        "n": int(n),
    }


# --------------------------------------------------------------------------
# numpy kernels


def _wedge_probability(s: np.ndarray, e: np.ndarray, rho: float, c: float) -> np.ndarray:
    """``P(u_1 < s, rho u_1 + c u_2 < rho s + c e)`` for ``u ~ N(0, I_2)``.

    Owen's formula ``Phi_2(h, k; rho) = (Phi(h) + Phi(k))/2 - T(h, a_h) - T(k, a_k) - beta``
    with ``h = s``, ``k = rho s + c e``, ``a_h = e/s``, ``a_k = (c s - rho e)/k``
    (no division by ``c = sin theta``), ``beta = 1/2`` iff ``h k <= 0``.
    """
    h = s
    k = rho * s + c * e
    with np.errstate(divide="ignore", invalid="ignore"):
        a_h = e / h
        a_k = (c * s - rho * e) / k
    beta = np.where(h * k > 0, 0.0, 0.5)
    return 0.5 * (ndtr(h) + ndtr(k)) - owens_t(h, a_h) - owens_t(k, a_k) - beta


def _kappa_quadrature(q: int, thetas: np.ndarray) -> np.ndarray:
    """``kappa_q(theta) = q E[P(s, e)^{q-1}]`` by a 2-D trapezoidal rule."""
    grid = np.arange(-_TRAP_HALF_WIDTH, _TRAP_HALF_WIDTH + _TRAP_STEP / 2, _TRAP_STEP)
    s, e = np.meshgrid(grid, grid, indexing="ij")
    weight = np.exp(-(s * s + e * e) / 2) / (2 * np.pi) * _TRAP_STEP**2
    out = np.empty(len(thetas))
    for idx, th in enumerate(thetas):
        if q == 1:
            out[idx] = 1.0
            continue
        p = _wedge_probability(s, e, math.cos(th), math.sin(th))
        out[idx] = q * np.sum(weight * p ** (q - 1))
    return out


@lru_cache(maxsize=None)
def _chebyshev_tables(q: int) -> tuple[np.ndarray, np.ndarray]:
    """Chebyshev coefficients (variable ``x = 2 theta/pi - 1``) of ``kappa_q`` and ``K_q``."""
    k = np.arange(_CHEB_NODES)
    x = np.cos(np.pi * (k + 0.5) / _CHEB_NODES)
    theta = (x + 1) * np.pi / 2
    kap = _kappa_quadrature(q, theta)
    c_kappa = _cheb.chebfit(x, kap, _CHEB_NODES - 1)
    c_f = _cheb.chebfit(x, kap * np.sin(theta), _CHEB_NODES - 1)
    c_int = _cheb.chebint(c_f, lbnd=-1) * (np.pi / 2)  # int_0^theta kappa(t) sin t dt
    with mp.workdps(30):
        mu2 = float(hermite_moments(q, 1, 30)[1] ** 2)
    # K(theta) = mu^2 + int_theta^{pi/2} ... = mu^2 + I(pi/2) - I(theta)
    c_kernel = -c_int
    c_kernel[0] += mu2 + _cheb.chebval(0.0, c_int)
    c_kappa.setflags(write=False)
    c_kernel.setflags(write=False)
    return c_kappa, c_kernel


def _check_theta(theta: Any) -> np.ndarray:
    t = np.asarray(theta, dtype=float)
    if not np.all(np.isfinite(t)) or np.any(t < 0) or np.any(t > np.pi):
        raise UsageError("theta must be finite and lie in [0, pi]")
    return t


def kappa_of_angle(theta: Any, q: int) -> np.ndarray:
    """``kappa_q`` at angle(s) ``theta`` in ``[0, pi]`` (numpy table, error <= 1e-10)."""
    q = _check_q(q)
    t = _check_theta(theta)
    return _cheb.chebval(2 * t / np.pi - 1, _chebyshev_tables(q)[0])


def kernel_of_angle(theta: Any, q: int) -> np.ndarray:
    """``K_q`` for unit vectors at angle(s) ``theta`` (numpy table, error <= 1e-10)."""
    q = _check_q(q)
    t = _check_theta(theta)
    return _cheb.chebval(2 * t / np.pi - 1, _chebyshev_tables(q)[1])


def _as_matrix(X: Any, name: str) -> np.ndarray:
    arr = np.asarray(X, dtype=float)
    if arr.ndim != 2 or not np.all(np.isfinite(arr)):
        raise UsageError(f"{name} must be a finite 2-D array (n_samples, n_features), got shape {arr.shape}")
    return arr


def _angles_and_norms(X: Any, Y: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pairwise angles (accurate near 0 and pi) and row norms."""
    x = _as_matrix(X, "X")
    y = x if Y is None else _as_matrix(Y, "Y")
    if x.shape[1] != y.shape[1]:
        raise UsageError(f"X and Y have different numbers of features: {x.shape[1]} != {y.shape[1]}")
    nx = np.linalg.norm(x, axis=1)
    ny = np.linalg.norm(y, axis=1)
    ux = np.divide(x, nx[:, None], out=np.zeros_like(x), where=nx[:, None] > 0)
    uy = np.divide(y, ny[:, None], out=np.zeros_like(y), where=ny[:, None] > 0)
    theta = np.empty((len(x), len(y)))
    # theta = 2 atan2(|u - v|, |u + v|): relative accuracy near 0 and pi,
    # unlike arccos(<u, v>).  Row blocks keep the (block, m, d) array small.
    block = max(1, int(2**22 // max(1, len(y) * x.shape[1])))
    for start in range(0, len(x), block):
        u = ux[start : start + block, None, :]
        diff = np.linalg.norm(u - uy[None, :, :], axis=2)
        summ = np.linalg.norm(u + uy[None, :, :], axis=2)
        theta[start : start + block] = 2 * np.arctan2(diff, summ)
    return theta, nx, ny


def maxout_kernel(X: Any, Y: Any = None, q: int = 2) -> np.ndarray:
    """Gram matrix of the true expected maxout kernel ``K(x, z) = E[h(x) h(z)]``.

    ``K(x, z) = |x| |z| K_q(angle(x, z))`` with ``K_q`` from the Chebyshev
    table (module docstring); ``0`` if either vector is zero.  Error bound:
    ``NUMPY_KERNEL_ABS_ERROR * |x| |z|``.

    >>> import numpy as np
    >>> round(float(maxout_kernel(np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]]), q=2)[0, 0]), 12)  # 1/pi
    0.318309886184
    """
    q = _check_q(q)
    theta, nx, ny = _angles_and_norms(X, Y)
    return np.outer(nx, ny) * kernel_of_angle(theta, q)


def maxout_collision_kernel(X: Any, Y: Any = None, q: int = 2) -> np.ndarray:
    """Gram matrix of ``kappa_q(x, z) = P(argmax_j <w_j, x> = argmax_j <w_j, z>)``.

    Depends only on the angle; undefined for a zero vector (every index ties),
    which raises :class:`UsageError`.  Error bound ``NUMPY_KERNEL_ABS_ERROR``.
    """
    q = _check_q(q)
    theta, nx, ny = _angles_and_norms(X, Y)
    if np.any(nx == 0) or np.any(ny == 0):
        raise UsageError("maxout_collision_kernel is undefined for zero vectors (all projections tie)")
    return kappa_of_angle(theta, q)



# tables


def _fmt(value: Any, digits: int) -> str:
    with mp.workdps(REFERENCE_DPS):
        v = mp.mpf(value)
        if v == 0:
            return "0"
        return mp.nstr(v, digits, min_fixed=-5, max_fixed=5)


def _max_rel_diff(a: tuple[Any, ...], b: tuple[Any, ...]) -> Any:
    with mp.workdps(REFERENCE_DPS):
        worst = mp.mpf(0)
        for x, y in zip(a, b):
            scale = max(abs(mp.mpf(x)), mp.mpf(10) ** (-CHECK_DPS))
            worst = max(worst, abs(mp.mpf(x) - mp.mpf(y)) / scale)
        return worst


def _tables_markdown(qs: tuple[int, ...], moments: dict[int, Any], kappas: dict[int, Any], kernels: dict[int, Any],
                     diffs: dict[int, Any]) -> list[str]:
    """The lines of ``maxout_tables.md``: how the tables were made, and their rounded values per q."""
    md = [
        "# Random maxout features: reference tables",
        "",
        f"- Generating function: `rfverify.highprec.maxout.write_tables` (mpmath {mpmath.__version__}).",
        f"- Precision: {REFERENCE_DPS} decimal digits (+{GUARD_DIGITS} guard); every value recomputed at "
        f"{CHECK_DPS} digits with a different trapezoid step; max relative difference per q below.",
        "- Method: trapezoidal rule on the real line for one-dimensional integrals against "
        "`q phi Phi^(q-1)` (h_i, sigma2) and for the Hermite coefficients of the argmax indicator "
        "(a_i, the Mehler series of kappa_q on R^q); b_0 = h_1^2, b_i = a_(i-1)/i (Price's theorem).",
        "- h_i = E He_i(M_q)/sqrt(i!), sigma2 = E M_q^2, kappa_q(rho) = sum a_i rho^i, "
        "K_q(rho) = E[max g max g'] = sum b_i rho^i for unit vectors.",
        "",
        "| q | sigma2 | h1 | h2 | a0 | a1 | a2 | b0 | max rel. diff (45 vs 30 digits) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for q in qs:
        row = [str(q), _fmt(moments[q][0], 15), _fmt(moments[q][1], 15), _fmt(moments[q][2], 15)]
        row += [_fmt(kappas[q][i], 15) for i in range(3)]
        row += [_fmt(kernels[q][0], 15), _fmt(diffs[q], 2)]
        md.append("| " + " | ".join(row) + " |")
    md += ["", "Full 30-digit values: the CSV files next to this one.", ""]
    return md


def write_tables(directory: str | Path, q_values: Any = None) -> list[Path]:
    """Write reproducible reference tables for q = 1..Q_MAX; return the paths.

    ``q_values`` (default ``1..Q_MAX``) restricts the rows, e.g. for quick tests.
    Runtime for the full range: about 30 s on one core (both precisions).

    Files: ``maxout_moments.csv`` (q, sigma2, h_1..h_8),
    ``maxout_kappa_coefficients.csv`` (q, a_0..a_8),
    ``maxout_kernel_coefficients.csv`` (q, b_0..b_9) and ``maxout_tables.md``
    (method, precision, mpmath version, generating function, rounded tables and
    the largest relative difference between the ``REFERENCE_DPS`` and
    ``CHECK_DPS`` computations).  Values carry 30 significant digits; output
    is byte-for-byte deterministic (no timestamps).
    """
    out_dir = Path(directory)
    out_dir.mkdir(parents=True, exist_ok=True)
    digits = 30
    qs = tuple(range(1, Q_MAX + 1)) if q_values is None else tuple(_check_q(q) for q in q_values)
    moments, kappas, kernels, diffs = {}, {}, {}, {}
    for q in qs:
        h_hi, h_lo = hermite_moments(q, I_MAX, REFERENCE_DPS), hermite_moments(q, I_MAX, CHECK_DPS)
        s_hi, s_lo = sigma2(q, REFERENCE_DPS), sigma2(q, CHECK_DPS)
        a_hi, a_lo = kappa_coefficients(q, I_MAX, REFERENCE_DPS), kappa_coefficients(q, I_MAX, CHECK_DPS)
        moments[q] = (s_hi, *h_hi[1:])
        kappas[q] = a_hi
        kernels[q] = kernel_coefficients(q, I_MAX + 1, REFERENCE_DPS)
        diffs[q] = max(
            _max_rel_diff(h_hi, h_lo), _max_rel_diff((s_hi,), (s_lo,)), _max_rel_diff(a_hi, a_lo)
        )
    header_note = (
        f"generated by rfverify.highprec.maxout.write_tables; mpmath {mpmath.__version__}; "
        f"precision {REFERENCE_DPS} digits (checked at {CHECK_DPS}); "
        f"{digits} significant digits shown; method: trapezoidal rule on R (see module docstring)"
    )
    specs = [
        ("maxout_moments.csv", ["q", "sigma2"] + [f"h{i}" for i in range(1, I_MAX + 1)], moments),
        ("maxout_kappa_coefficients.csv", ["q"] + [f"a{i}" for i in range(I_MAX + 1)], kappas),
        ("maxout_kernel_coefficients.csv", ["q"] + [f"b{i}" for i in range(I_MAX + 2)], kernels),
    ]
    paths = []
    for name, columns, data in specs:
        lines = [f"# {header_note}", ",".join(columns)]
        for q in qs:
            lines.append(",".join([str(q)] + [_fmt(v, digits) for v in data[q]]))
        path = out_dir / name
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)

    md = _tables_markdown(qs, moments, kappas, kernels, diffs)
    md_path = out_dir / "maxout_tables.md"
    md_path.write_text("\n".join(md), encoding="utf-8")
    paths.append(md_path)
    return paths

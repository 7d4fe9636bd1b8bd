"""Haar-distributed random orthogonal matrices on O(d) and SO(d).

Every random function takes a keyword ``rng`` (anything
``numpy.random.default_rng`` accepts: ``None``, an int seed, a
``SeedSequence``, a ``Generator``).  No global random state is touched.

References
----------
* F. Mezzadri (2006), *How to generate random matrices from the classical
  compact groups*, Notices AMS 54 — QR of a Gaussian matrix followed by the
  sign correction ``Q diag(sign(diag R))``.
* G. W. Stewart (1980), *The efficient generation of random orthogonal
  matrices with an application to condition estimators*, SIAM J. Numer.
  Anal. 17 — product of random Householder reflections.
* munkhoeva2018 §2.4 states ``Q = H_1 ... H_{n-1} D`` with random
  Householder ``H_i`` and ``P(d_ii = ±1) = 1/2``; this holds with the
  *stable* reflector convention used in :func:`haar_householder` (see there).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from rfverify.errors import UsageError

__all__ = ["GROUPS", "haar_qr", "haar_qr_so", "haar_householder", "haar_householder_so", "ScipyOrthoAdapter",
           "scipy_sampler"]

GROUPS = ("O", "SO")


def _check(d: Any, group: str) -> int:
    try:
        dd = int(d)
    except (TypeError, ValueError):
        raise UsageError(f"d={d!r} is not an integer; pass the matrix dimension as a positive int") from None
    if dd != d or dd < 1:
        raise UsageError(f"d={d!r} must be a positive integer dimension")
    if group not in GROUPS:
        raise UsageError(f"group={group!r} is unknown; use 'O' (orthogonal) or 'SO' (special orthogonal)")
    return dd


def _float_dtype(dtype: Any) -> np.dtype:
    dt = np.dtype(dtype)
    if dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise UsageError(f"dtype={dt} is not supported; use float32 or float64")
    return dt


def haar_qr(d: int, rng: Any = None, *, group: str = "O", dtype: Any = np.float64) -> np.ndarray:
    """Haar-random ``d x d`` matrix on O(d) or SO(d) by sign-corrected QR (Mezzadri 2006).

    ``Z`` has i.i.d. ``N(0, 1)`` entries; ``Z = QR`` (LAPACK Householder QR);
    return ``Q diag(sign(diag R))`` (``sign(0) := 1``, a null event).  The
    correction makes the factorisation unique (``R`` with positive diagonal),
    and since ``Z`` and ``UZ`` have the same law for any fixed orthogonal
    ``U``, so do the unique ``Q`` factors: ``Q`` is left-invariant, i.e. Haar.
    Without the correction the law of ``Q`` depends on LAPACK's sign
    conventions and is not Haar.

    SO(d): if ``det Q = -1`` flip the first column (``Q -> Q J``,
    ``J = diag(-1, 1, ..., 1)``).  For ``A ⊂ SO(d)``,
    ``P(result ∈ A) = μ(A) + μ(A J) = 2 μ(A)`` by right-invariance of the
    Haar measure ``μ`` on O(d), which is the normalised Haar measure of
    SO(d) (the index-2 subgroup has μ-mass 1/2); left-invariance under SO(d)
    holds because left-multiplying by ``g ∈ SO(d)`` keeps ``det`` and commutes
    with the column flip.

    ``dtype=float32`` draws and factors in single precision.
    """
    d = _check(d, group)
    dt = _float_dtype(dtype)
    gen = np.random.default_rng(rng)
    Z = gen.standard_normal((d, d), dtype=dt)
    Q, R = np.linalg.qr(Z)
    s = np.sign(np.diagonal(R)).astype(dt)
    s[s == 0] = 1
    Q = Q * s
    if group == "SO" and np.linalg.det(Q) < 0:
        Q[:, 0] = -Q[:, 0]
    return Q


def haar_qr_so(d: int, rng: Any = None) -> np.ndarray:
    """``haar_qr(d, rng, group="SO")``: the ``sample(d, rng)`` form of the SO(d) sampler."""
    return haar_qr(d, rng, group="SO")


def haar_householder(d: int, rng: Any = None, *, group: str = "O") -> np.ndarray:
    """Haar-random matrix as a product of random Householder reflections (Stewart 1980).

    Construction (float64)::

        Q = P_1 P_2 ... P_{d-1} D,

    where ``P_k = diag(I_{k-1}, I_m - 2 v v^T / (v^T v))`` acts on the last
    ``m = d - k + 1`` coordinates, ``v = u + sign(u_1) e_1`` with ``u``
    uniform on the sphere ``S^{m-1}`` (a normalised Gaussian vector),
    independently for each ``k``, and ``D = diag(±1)`` with i.i.d. fair signs.

    Why Haar: Householder QR of a Gaussian ``Z`` reduces column ``k`` with
    such a reflector (by rotation invariance the unreduced block is again
    i.i.d. Gaussian and independent of the earlier reflectors, so the
    ``u``'s are independent and uniform), giving ``Z = P_1 ... P_{d-1} R``
    with ``r_kk = -sign(u_1) ||.||`` (``k < d``) and ``r_dd`` a symmetric
    variable.  Mezzadri's Haar factor is ``P_1 ... P_{d-1} diag(sign r_kk)``;
    the signs commute past later reflectors (``P_j`` with ``j > k`` does not
    touch coordinate ``k``).  ``P_k`` depends on ``u`` only through ``±u``,
    while ``-sign(u_1)`` given ``±u`` is a fair coin, so ``D`` is independent
    of the reflectors: this is munkhoeva2018 §2.4's ``H_1 ... H_{n-1} D``.
    (With the cancellation-prone ``v = u - e_1`` Mezzadri's signs are
    ``diag(1, ..., 1, ±1)``; extra independent signs do no harm either, since
    right-multiplying a Haar matrix by an independent orthogonal matrix keeps
    it Haar.  The one sign that cannot be dropped for O(d) is a random one
    somewhere: the reflector product alone has fixed ``det = (-1)^{d-1}``.)

    SO(d): each ``P_k`` has determinant ``-1``, so ``det Q = (-1)^{d-1}
    prod(D)``; choose the last sign to make it ``+1``.  Because ``D`` is
    independent of the reflectors this is Haar on O(d) conditioned on
    ``det = +1``, i.e. Haar on SO(d).  Cost ``O(d^3)``.
    """
    d = _check(d, group)
    gen = np.random.default_rng(rng)
    signs = gen.choice(np.array([-1.0, 1.0]), size=d)
    if group == "SO" and d >= 1:
        others = np.prod(signs[:-1]) * (-1.0) ** (d - 1)
        signs[-1] = others  # makes (-1)^(d-1) * prod(signs) = +1
    Q = np.diag(signs)
    for k in range(d - 2, -1, -1):  # build P_{k+1} (P_{k+2} (... D)) from the right
        m = d - k
        u = gen.standard_normal(m)
        nrm = np.linalg.norm(u)
        if nrm == 0.0:  # probability zero; the reflector is then undefined
            continue
        u /= nrm
        v = u.copy()
        v[0] += 1.0 if u[0] >= 0 else -1.0
        vv = v @ v
        block = Q[k:, :]
        block -= np.outer(v, (2.0 / vv) * (v @ block))
    return Q


class ScipyOrthoAdapter:
    """Turn a scipy.stats-style distribution into ``sample(d, rng=None) -> ndarray``.

    Works with ``scipy.stats.ortho_group`` (Haar on O(d)),
    ``scipy.stats.special_ortho_group`` (Haar on SO(d)) and anything with
    ``rvs(dim=..., random_state=...)``.  ``rng`` is converted with
    ``np.random.default_rng`` and passed as ``random_state``.  The declared
    ``group`` is metadata for capability-based check selection.

    >>> from scipy.stats import ortho_group
    >>> Q = ScipyOrthoAdapter(ortho_group, group="O").sample(3, rng=0)
    >>> Q.shape
    (3, 3)
    """

    def __init__(self, dist: Any, *, group: str = "O", name: str | None = None) -> None:
        if not callable(getattr(dist, "rvs", None)):
            raise UsageError(
                f"{dist!r} has no rvs(); pass a scipy.stats distribution such as ortho_group"
            )
        if group not in GROUPS:
            raise UsageError(f"group={group!r} is unknown; use 'O' or 'SO'")
        self.dist = dist
        self.group = group
        self.name = name or getattr(dist, "name", None) or type(dist).__name__

    def sample(self, d: int, rng: Any = None) -> np.ndarray:
        d = _check(d, self.group)
        gen = np.random.default_rng(rng)
        if d == 1:  # scipy rejects dim=1; O(1) = {±1}, SO(1) = {1}
            if self.group == "SO":
                return np.ones((1, 1))
            return np.array([[1.0 if gen.random() < 0.5 else -1.0]])
        Q = np.asarray(self.dist.rvs(dim=d, random_state=gen), dtype=np.float64)
        return Q.reshape(d, d)

    __call__ = sample

    def __repr__(self) -> str:
        return f"ScipyOrthoAdapter({self.name}, group={self.group!r})"


def scipy_sampler(dist: Any, *, group: str = "O") -> Callable[..., np.ndarray]:
    """Function form of :class:`ScipyOrthoAdapter`: returns ``sample(d, rng=None)``."""
    return ScipyOrthoAdapter(dist, group=group).sample


def haar_householder_so(d: int, rng: Any = None) -> np.ndarray:
    """``haar_householder(d, rng, group="SO")``: the ``sample(d, rng)`` form of the SO(d) sampler."""
    return haar_householder(d, rng, group="SO")

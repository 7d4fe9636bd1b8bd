"""Random maxout features and the maxout locality-sensitive hash.

Mroueh, Rennie & Goel, *Random Maxout Features*, Definition 1 and Remark 1.

* :class:`MaxoutFeatures`: ``h_l(x) = max_{j<=q} <w_j^l, x>`` with
  ``w_j^l ~ N(0, I_d)`` iid, ``Phi(x) = (h_1(x), ..., h_m(x)) / sqrt(m)``.
  ``E <Phi(x), Phi(z)> = K(x, z) = E[h(x) h(z)]`` exactly (average of ``m``
  iid unit products).  The *true* ``K`` is
  :func:`rfverify.highprec.maxout.maxout_kernel`; it is **not** the paper's
  Theorem 1 formula ``sigma2(q) <x, z> kappa_q(x, z)`` (see
  :mod:`rfverify.studies.claims.mroueh`).
* :class:`MaxoutHash`: codes ``C_l(x) = argmax_j <w_j^l, x>``; the Hamming
  fraction of two codes is an unbiased estimate of ``1 - kappa_q(x, z)``
  (Remark 1), ``kappa_q`` being
  :func:`rfverify.highprec.maxout.maxout_collision_kernel`.

Both follow the plug-in contract: ``Cls(n_components, random_state, q)``;
``fit`` draws once from ``np.random.default_rng(random_state)`` (no global
RNG).  Features are bounded on the unit sphere only with high probability
(``|h| <= max_j |w_j|``), so no almost-sure bound ``C`` is declared.

>>> import numpy as np
>>> X = np.eye(3)
>>> f = MaxoutFeatures(4, random_state=0, q=2).fit(X)
>>> f.transform(X).shape
(3, 4)
>>> codes = MaxoutHash(8, random_state=0, q=3).fit(X).transform(X)
>>> codes.shape, int(codes.min()) >= 0, int(codes.max()) < 3
((3, 8), True, True)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rfverify.errors import UsageError
from rfverify.implementations._base import FeatureMap

__all__ = ["MaxoutFeatures", "MaxoutHash", "MaxoutHashFeatures"]


class _MaxoutBase(FeatureMap):
    """``q``, and the weights ``W_`` of shape ``(d, m * q)``: column ``l * q + j`` is ``w_j^l``."""

    _params = ("q",)
    q: int

    def __init__(self, n_components: int = 100, random_state: Any = None, q: int = 2) -> None:
        super().__init__(n_components, random_state, q=q)

    def _check_params(self) -> None:
        self._require_positive_int("q")

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        self.W_ = rng.standard_normal((d, self.n_components * self.q))

    def _fitted_dim(self) -> int | None:
        # The state is W_ alone (a subclass may fit without the base's fit): its rows are the input width.
        return self.W_.shape[0] if hasattr(self, "W_") else None

    def _projections(self, X: Any) -> np.ndarray:
        """``<w_j^l, x>`` as an ``(n, m, q)`` array (validates X)."""
        X = self._validate(X)
        self._check_fitted(X)
        return self._project(X)

    def _project(self, X: np.ndarray) -> np.ndarray:
        """``<w_j^l, x>`` of a validated X as an ``(n, m, q)`` array."""
        return (X @ self.W_).reshape(X.shape[0], self.n_components, self.q)


class MaxoutFeatures(_MaxoutBase):
    """Random maxout features ``Phi(x) = (max_j <w_j^l, x>)_l / sqrt(m)`` (Definition 1)."""

    def _features(self, X: np.ndarray) -> np.ndarray:
        """``(n, m)`` feature matrix; ``Phi(X) @ Phi(Z).T`` estimates the maxout kernel."""
        return self._project(X).max(axis=2) / np.sqrt(self.n_components)


class MaxoutHash(_MaxoutBase):
    """Maxout LSH codes ``C_l(x) = argmax_j <w_j^l, x>`` (Remark 1), values in ``0..q-1``.

    Ties (probability 0 for nonzero inputs) go to the lowest index; the zero
    vector ties everywhere and is rejected.
    """

    def _features(self, X: np.ndarray) -> np.ndarray:
        """``(n, m)`` integer codes."""
        proj = self._project(X)
        if np.any(np.all(X == 0, axis=1)):
            raise UsageError("MaxoutHash codes are undefined for the zero vector (all projections tie)")
        return proj.argmax(axis=2)

    @staticmethod
    def hamming_estimate(codes_x: Any, codes_z: Any) -> np.ndarray:
        """Fraction of differing code positions, an unbiased estimate of ``1 - kappa_q``.

        ``codes_x`` of shape ``(m,)`` or ``(n, m)``, ``codes_z`` of shape
        ``(m,)`` or ``(p, m)``; returns a scalar array, ``(n,)``/``(p,)`` or an
        ``(n, p)`` matrix.  Each position differs with probability
        ``1 - kappa_q(x, z)`` independently, so the fraction is a binomial
        proportion with variance ``kappa (1 - kappa) / m``.
        """
        cx = np.asarray(codes_x)
        cz = np.asarray(codes_z)
        if cx.ndim not in (1, 2) or cz.ndim not in (1, 2) or cx.shape[-1] != cz.shape[-1]:
            raise UsageError(f"code arrays must be (m,) or (n, m) with equal m, got {cx.shape} and {cz.shape}")
        a = cx if cx.ndim == 2 else cx[None, :]
        b = cz if cz.ndim == 2 else cz[None, :]
        out = (a[:, None, :] != b[None, :, :]).mean(axis=2)
        if cx.ndim == 1 and cz.ndim == 1:
            return out[0, 0]
        if cx.ndim == 1:
            return out[0]
        if cz.ndim == 1:
            return out[:, 0]
        return out


class MaxoutHashFeatures(_MaxoutBase):
    """The maxout hash as a feature map: one-hot argmax codes scaled by 1/sqrt(m).

    ``Phi(x) . Phi(z) = (1/m) sum_l 1{C_l(x) = C_l(z)}``, the fraction of
    agreeing code positions: an unbiased estimate of the collision kernel
    ``kappa_q(x, z)`` (Remark 1), so the maxout LSH is verified by the ordinary
    feature-map harness against ``maxout_collision(q)``.  Output ``(n, m q)``;
    ``|feature| sqrt(m q) = sqrt(q)``, so ``C = sqrt(q)`` is a valid bound.
    """

    def _features(self, X: np.ndarray) -> np.ndarray:
        codes = MaxoutHash._features(self, X)  # type: ignore[arg-type]
        n, m = codes.shape
        out = np.zeros((n, m, self.q))
        np.put_along_axis(out, codes[:, :, None], 1.0, axis=2)
        return out.reshape(n, m * self.q) / np.sqrt(m)

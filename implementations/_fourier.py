"""The paired random Fourier features' shared hook, and the input padding of the structured maps.

Every scheme is a :class:`~rfverify.implementations._base.FeatureMap`
``Cls(n_components, random_state, **kernel_params)``: the public ``fit``/``transform`` validate
and convert, the private hooks ``_draw(d, rng)`` and (here) ``_project(X)`` compute.  ``fit``
draws all randomness once from ``np.random.default_rng(random_state)``; nothing touches numpy's
global state.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rfverify.implementations._base import FeatureMap

__all__ = ["FeatureMapBase", "FourierBase", "next_power_of_two", "pad_columns"]

def next_power_of_two(d: int) -> int:
    return 1 << max(0, (int(d) - 1).bit_length())


def pad_columns(X: np.ndarray, p: int) -> np.ndarray:
    """X with zero columns appended up to width p (a copy, C-contiguous).

    Padding the *input* is harmless for every kernel here: k depends on x only
    through <w, x> with the padded coordinates of x equal to 0, so
    ``k([x, 0], [y, 0]) = k(x, y)`` for rbf (||[x,0] - [y,0]|| = ||x - y||) and
    the marginal law of a Gaussian row's first d coordinates is N(0, I_d).
    (Padding or truncating the *transform* instead would change its law.)
    """
    n, d = X.shape
    out = np.zeros((n, p), dtype=X.dtype)
    out[:, :d] = X
    return out


#: The former base of the Fourier, arc-cosine and Laplacian maps; now the one template of every map.
FeatureMapBase = FeatureMap


class FourierBase(FeatureMap):
    """Paired random Fourier features for exp(-gamma ||x - y||^2): sqrt(1/m) [cos(Wx), sin(Wx)].

    ``_project(X)`` returns the (n, m) projections X W^T; the estimate is the average of
    cos(w_i . (x - y)) over the m frequencies, so 2m outputs, |feature| sqrt(2m) <= sqrt(2).
    The paired form (not a random phase) is used because orthogonality, structure and QMC
    reduce the variance of exactly this average (Yu et al. 2016).
    """

    _params: tuple[str, ...] = ("gamma", "dtype")
    gamma: float
    dtype: Any

    def __init__(self, n_components: int = 100, random_state: Any = None, gamma: float = 1.0,
                 dtype: Any = np.float64) -> None:
        super().__init__(n_components, random_state, gamma=gamma, dtype=dtype)

    def _check_params(self) -> None:
        self._require_positive("gamma")

    @property
    def _sigma_inv(self) -> float:
        """1/sigma = sqrt(2 gamma): the frequency scale of exp(-gamma r^2) (w ~ N(0, 2 gamma I))."""
        return math.sqrt(2.0 * self.gamma)

    def _features(self, X: np.ndarray) -> np.ndarray:
        P = self._project(X)
        out = np.empty((P.shape[0], 2 * P.shape[1]), dtype=P.dtype)
        np.cos(P, out=out[:, : P.shape[1]])
        np.sin(P, out=out[:, P.shape[1]:])
        out *= P.dtype.type(math.sqrt(1.0 / self.n_components))
        return out

    def _project(self, X: np.ndarray) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

"""Random Fourier features for the Gaussian (rbf) kernel, in both classic forms.

For k(x, y) = exp(-gamma ||x - y||^2) the spectral measure is N(0, 2 gamma I)
(Bochner), so with w ~ N(0, 2 gamma I) and b ~ U[0, 2 pi]:

* ``RandomFourierFeatures`` (phase form): phi(x) = sqrt(2/m) cos(W x + b), m
  outputs; E[2 cos(w.x + b) cos(w.y + b)] = k(x, y) (cs4787 lecture 16);
  |phi_i| sqrt(m) <= sqrt(2), so C = sqrt(2).
* ``RandomFourierFeaturesCosSin`` (paired form): phi(x) = sqrt(1/m) [cos W x,
  sin W x] with m frequencies, 2m outputs; the estimate is the average of
  cos(w.(x - y)) over m frequencies; |phi_i| sqrt(2m) <= sqrt(2), C = sqrt(2).

Both follow the plug-in contract: ``Cls(n_components, random_state, gamma)``,
``fit`` draws once from ``np.random.default_rng(random_state)``.

>>> import numpy as np
>>> X = np.zeros((1, 3)); Y = np.full((1, 3), 0.1)
>>> f = RandomFourierFeaturesCosSin(4096, random_state=0, gamma=1.0).fit(X)
>>> bool(abs((f.transform(X) @ f.transform(Y).T)[0, 0] - np.exp(-0.03)) < 0.05)
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rfverify.implementations._base import FeatureMap

__all__ = ["RandomFourierFeatures", "RandomFourierFeaturesCosSin"]


class _RFFBase(FeatureMap):
    """The two Gaussian RFF forms: ``gamma``, frequencies stored as ``W_`` (d, m)."""

    _params = ("gamma",)
    gamma: float

    def __init__(self, n_components: int = 100, random_state: Any = None, gamma: float = 1.0) -> None:
        super().__init__(n_components, random_state, gamma=gamma)

    def _check_params(self) -> None:
        self._require_positive("gamma")

    def _draw_frequencies(self, d: int, rng: np.random.Generator) -> np.ndarray:
        # Stored as a C-contiguous (d, m) matrix: X @ W_ is a plain GEMM (the
        # transposed view of an (m, d) array is ~100x slower in OpenBLAS here).
        return np.ascontiguousarray(rng.normal(0.0, np.sqrt(2.0 * self.gamma), size=(self.n_components, d)).T)

    def _fitted_dim(self) -> int | None:
        # The state is W_ alone (a subclass may fit without the base's fit): its rows are the input width.
        return self.W_.shape[0] if hasattr(self, "W_") else None


class RandomFourierFeatures(_RFFBase):
    """phi(x) = sqrt(2/m) cos(W x + b), W_ij ~ N(0, 2 gamma), b ~ U[0, 2 pi]; ``W_`` is stored as (d, m)."""

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        self.W_ = self._draw_frequencies(d, rng)
        self.b_ = rng.uniform(0.0, 2.0 * np.pi, size=self.n_components)

    def _features(self, X: np.ndarray) -> np.ndarray:
        return np.sqrt(2.0 / self.n_components) * np.cos(X @ self.W_ + self.b_)


class RandomFourierFeaturesCosSin(_RFFBase):
    """phi(x) = sqrt(1/m) [cos W x, sin W x], W_ij ~ N(0, 2 gamma); 2m outputs."""

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        self.W_ = self._draw_frequencies(d, rng)

    def _features(self, X: np.ndarray) -> np.ndarray:
        P = X @ self.W_
        return np.sqrt(1.0 / self.n_components) * np.hstack([np.cos(P), np.sin(P)])

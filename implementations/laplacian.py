"""Random Fourier features for the Laplacian kernel exp(-gamma ||x - y||_1) (Rahimi & Recht 2007).

The kernel is a product of one-dimensional exp(-gamma |t|), whose spectral density is the
Cauchy law (gamma/π) / (gamma^2 + ω^2) (Bochner), so with W_ij ~ Cauchy(0, gamma) i.i.d. and
b ~ U[0, 2π]: φ(x) = sqrt(2/m) cos(Wx + b) is unbiased, |φ_i| sqrt(m) <= sqrt(2).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rfverify.implementations._base import FeatureMap

__all__ = ["LaplacianRandomFeatures"]


class LaplacianRandomFeatures(FeatureMap):
    """sqrt(2/m) cos(Wx + b) with Cauchy(0, gamma) frequencies; ``W_`` C-contiguous (d, m)."""

    _params = ("gamma",)
    gamma: float

    def __init__(self, n_components: int = 100, random_state: Any = None, gamma: float = 1.0) -> None:
        super().__init__(n_components, random_state, gamma=gamma)

    def _check_params(self) -> None:
        self._require_positive("gamma")

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        self.W_ = self.gamma * rng.standard_cauchy((d, self.n_components))
        self.b_ = rng.uniform(0.0, 2.0 * np.pi, size=self.n_components)

    def _features(self, X: np.ndarray) -> np.ndarray:
        return math.sqrt(2.0 / self.n_components) * np.cos(X @ self.W_ + self.b_)

"""Arc-cosine random features (Cho & Saul 2009) of order 0, 1, 2, shallow and deep.

k_n(x, y) = 2 E_w[Θ(w.x) Θ(w.y) (w.x)^n (w.y)^n] = (1/π) ||x||^n ||y||^n J_n(θ),  w ~ N(0, I_d)

(Cho & Saul 2009 eq. (1)-(3); kernels ``arccos`` and ``arccos_deep`` in the registry), so

    φ(x) = sqrt(2/m) Θ(Wx) (Wx)^n            (Heaviside for n = 0, ReLU for n = 1)

is unbiased.  Note the factor sqrt(2/m): alber2017 eq. (10) prints sqrt(1/D) max(0, W^T x)
against (1/π)||x|| ||x'|| J(θ) (eq. 6), which estimates half the kernel (recorded claim).

Deep features (alber2017 eq. (10) and §"Deep kernel machines": φ_ArcCos2 = φ_B1(φ_B0(x))):
``layers`` ReLU-type layers of width w = ceil(m / layers) each (the m features split evenly
over the layers, as alber2017 does), φ^(l+1) = sqrt(2/w) Θ(W_l φ^(l)) (W_l φ^(l))^n with
W_l ~ N(0, I).  Given layer l's features, layer l+1 is unbiased for the arc-cosine
kernel *of the features*, which is a nonlinear function of the finite-width estimate of
layer l: the deep estimate is **biased at finite width** (bias O(1/w) -> 0), so deep maps
are declared biased and classified by the harness.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rfverify.errors import UsageError
from rfverify.implementations._base import FeatureMap

__all__ = ["ArcCosineFeatures", "DeepArcCosineFeatures", "arccos_activation"]


def arccos_activation(Z: np.ndarray, order: int) -> np.ndarray:
    """Θ(z) z^n elementwise (Θ(0) = 0)."""
    if order == 0:
        return (Z > 0).astype(Z.dtype)
    R = np.maximum(Z, 0)
    return R if order == 1 else R * R


class ArcCosineFeatures(FeatureMap):
    """φ(x) = sqrt(2/m) Θ(Wx)(Wx)^n, W_ij ~ N(0, 1); ``W_`` stored C-contiguous (d, m).

    Bound: for n = 0 every feature is 0 or sqrt(2/m), so C = sqrt(2); for n >= 1 unbounded.
    """

    _params: tuple[str, ...] = ("order", "dtype")
    order: int
    dtype: Any

    def __init__(self, n_components: int = 100, random_state: Any = None, order: int = 1,
                 dtype: Any = np.float64) -> None:
        super().__init__(n_components, random_state, order=order, dtype=dtype)

    def _check_params(self) -> None:
        if self.order not in (0, 1, 2):
            raise UsageError(f"order must be 0, 1 or 2, got {self.order!r}")

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        self.W_ = rng.standard_normal((d, self.n_components), dtype=self._dtype)

    def _features(self, X: np.ndarray) -> np.ndarray:
        F = arccos_activation(X @ self.W_, self.order)
        F *= X.dtype.type(math.sqrt(2.0 / self.n_components))
        return F


class DeepArcCosineFeatures(ArcCosineFeatures):
    """``layers`` arc-cosine layers of width w = ceil(m / layers): φ^(l+1) = sqrt(2/w) Θ(W_l φ^(l))(W_l φ^(l))^n.

    As in alber2017 §"Deep kernel machines" ("to remain comparable for a given number of
    features, we split these features evenly over two layers ... and over three layers"),
    the m requested features are split evenly over the layers, so the output has
    w = ceil(m / layers) columns.  ``Ws_`` holds the layer matrices ((d, w), then (w, w)
    each): O(w d + (L-1) w^2) numbers.
    """

    _params = ("order", "layers", "dtype")

    def __init__(self, n_components: int = 100, random_state: Any = None, order: int = 1, layers: int = 2,
                 dtype: Any = np.float64) -> None:
        super().__init__(n_components, random_state, order=order, dtype=dtype)
        self.layers = layers

    def _check_params(self) -> None:
        super()._check_params()
        self._require_positive_int("layers")

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        w = -(-self.n_components // self.layers)
        self.Ws_ = [rng.standard_normal((d if i == 0 else w, w), dtype=self._dtype) for i in range(self.layers)]

    def _features(self, X: np.ndarray) -> np.ndarray:
        F = X
        c = X.dtype.type(math.sqrt(2.0 / self.Ws_[0].shape[1]))
        for W in self.Ws_:
            F = arccos_activation(F @ W, self.order)
            F *= c
        return F

    def n_parameters(self) -> int:
        return int(sum(W.size for W in self.Ws_))

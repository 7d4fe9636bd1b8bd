"""Deliberately broken random Fourier feature maps, each with the check that must catch it.

Each class differs from :class:`RandomFourierFeatures` (sqrt(2/m) cos(Wx + b),
W ~ N(0, 2 gamma I), b ~ U[0, 2 pi]) by one realistic bug.  ``CAUGHT_BY``
maps each to the check that must fail on it.
"""

from __future__ import annotations

import numpy as np

from rfverify.implementations.rff import RandomFourierFeatures


class HalfScale(RandomFourierFeatures):
    """sqrt(1/m) instead of sqrt(2/m): E k_hat = k / 2 (the cos(w.(x+y) + 2b) term averages out)."""

    def transform(self, X):
        return super().transform(X) / np.sqrt(2.0)


class VarianceGamma(RandomFourierFeatures):
    """Frequencies with variance gamma instead of 2 gamma: estimates exp(-gamma r^2 / 2)."""

    def _draw_frequencies(self, d, rng):
        return np.ascontiguousarray(rng.normal(0.0, np.sqrt(self.gamma), size=(self.n_components, d)).T)


class GammaAsBandwidth(RandomFourierFeatures):
    """gamma read as a bandwidth sigma (w ~ N(0, I / sigma^2)): estimates exp(-r^2 / (2 gamma^2))."""

    def _draw_frequencies(self, d, rng):
        return np.ascontiguousarray(rng.normal(0.0, 1.0 / self.gamma, size=(self.n_components, d)).T)


class SharedDraw(RandomFourierFeatures):
    """All m features share one (w, b) draw: still unbiased, but the error never shrinks with m."""

    def fit(self, X, y=None):
        super().fit(X)
        self.W_ = np.repeat(self.W_[:, :1], self.n_components, axis=1)
        self.b_ = np.repeat(self.b_[:1], self.n_components)
        return self


class FreshDrawPerTransform(RandomFourierFeatures):
    """Draws new frequencies on every transform call (randomness in transform, not fit)."""

    def transform(self, X):
        self._calls = getattr(self, "_calls", 0) + 1
        rng = np.random.default_rng([0 if self.random_state is None else self.random_state, self._calls])
        self.W_ = self._draw_frequencies(self.W_.shape[0], rng)
        self.b_ = rng.uniform(0.0, 2.0 * np.pi, size=self.n_components)
        return super().transform(X)


class IgnoresRandomState(RandomFourierFeatures):
    """Seeds from fresh OS entropy: random_state is ignored."""

    def fit(self, X, y=None):
        seed = self.random_state
        self.random_state = None
        try:
            return super().fit(X)
        finally:
            self.random_state = seed


#: Each mutant and the check that must catch it.
CAUGHT_BY = {
    HalfScale: "unbiasedness",
    VarianceGamma: "unbiasedness",
    GammaAsBandwidth: "unbiasedness",
    SharedDraw: "error-rate",
    FreshDrawPerTransform: "contract",
    IgnoresRandomState: "reproducibility",
}

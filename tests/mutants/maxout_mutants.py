"""Broken (and harmlessly rewritten) maxout feature maps, planted for tests/test_maxout_conformance.py."""

from __future__ import annotations

import numpy as np

from rfverify.implementations.maxout import MaxoutFeatures


class OneOverM(MaxoutFeatures):
    """Bug: 1/m instead of 1/sqrt(m) — the estimate shrinks like 1/m."""

    def transform(self, X):
        return super().transform(X) / np.sqrt(self.n_components)


class UniformWeights(MaxoutFeatures):
    """Bug: uniform weights U(-sqrt 3, sqrt 3) (unit variance, but not Gaussian)."""

    def fit(self, X, y=None):
        X = self._validate(X)
        rng = np.random.default_rng(self.random_state)
        self.W_ = rng.uniform(-np.sqrt(3), np.sqrt(3), (X.shape[1], self.n_components * self.q))
        return self


class NegatedMinOfNegated(MaxoutFeatures):
    """-min_j <-w_j, x> = max_j <w_j, x>: identical output — a harmless rewrite."""

    def transform(self, X):
        proj = self._projections(X)
        return -(-proj).min(axis=2) / np.sqrt(self.n_components)


class MinInsteadOfMax(MaxoutFeatures):
    """min_j <w_j, x> instead of the max.  Harmless in law: min_j <w_j, x> = -max_j <-w_j, x>,
    and -w has the law of w, so h_min(x) h_min(z) has the law of h_max(x) h_max(z); the
    kernel estimate has exactly the same distribution."""

    def transform(self, X):
        return self._projections(X).min(axis=2) / np.sqrt(self.n_components)

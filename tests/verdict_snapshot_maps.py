"""Small deliberately wrong feature maps for the pinned verdicts (:mod:`tests.verdict_snapshots`)."""

from __future__ import annotations

import numpy as np

from rfverify.implementations.rff import RandomFourierFeatures


class OneOverM(RandomFourierFeatures):
    """Features scaled by 1/m instead of 1/sqrt(m) (sqrt(2)/m cos(...)): E k_hat = k / m."""

    def transform(self, X):
        return super().transform(X) / np.sqrt(self.n_components)


class DeterministicHalfScale(RandomFourierFeatures):
    """A fixed draw (seed 0 whatever random_state says) at half the scale: declared deterministic, biased."""

    deterministic = True

    def fit(self, X, y=None):
        seed, self.random_state = self.random_state, 0
        try:
            return super().fit(X)
        finally:
            self.random_state = seed

    def transform(self, X):
        return super().transform(X) / np.sqrt(2.0)


def _sr33_twin():
    from tests.mutants.corner_mutants import QUADRATURE_CORNER_TWINS

    return QUADRATURE_CORNER_TWINS[0]


#: The zoo's SR^{3,3} rule with a shared radius (the correct twin of the quadrature corner bugs).
sr33_twin = _sr33_twin()


class WiderHalfScale(RandomFourierFeatures):
    """Half the scale, and 8 more features than asked for: a failure message names the width returned."""

    def fit(self, X, y=None):
        m, self.n_components = self.n_components, self.n_components + 8
        try:
            return super().fit(X)
        finally:
            self.n_components = m

    def transform(self, X):
        return super().transform(X) / np.sqrt(2.0)


def identity(X, n_components, random_state):
    """The exact features of the linear kernel (every pair's estimate is exact up to round-off)."""
    return np.asarray(X, dtype=np.float64)


def linear_kernel(X, Y):
    return np.asarray(X) @ np.asarray(Y).T


class FitChangesGamma(RandomFourierFeatures):
    """fit doubles its constructor parameter gamma in place (scikit-learn's rule broken)."""

    def fit(self, X, y=None):
        self.gamma = self.gamma * 2
        return super().fit(X)


class OptionsParam(RandomFourierFeatures):
    """A dict of options as a constructor parameter, updated in place by fit: shared with the instance passed in."""

    def __init__(self, n_components=100, random_state=None, gamma=1.0, options=None):
        super().__init__(n_components, random_state, gamma=gamma)
        self.options = options

    def get_params(self, deep=True):
        return {**super().get_params(deep), "options": self.options}

    def fit(self, X, y=None):
        if self.options is not None:
            self.options["calls"] = self.options.get("calls", 0) + 1
        return super().fit(X)


def options_param_instance():
    """A fresh instance (its options dict starts empty every run)."""
    return OptionsParam(64, 0, gamma=0.5, options={})


def coordinate_sample(X, n_components, random_state):
    """The linear kernel from n_components of the d coordinates drawn without replacement, scaled by sqrt(d / m):
    unbiased, and exact once n_components >= d (every coordinate kept)."""
    X = np.asarray(X, dtype=np.float64)
    d = X.shape[1]
    if n_components >= d:
        return X
    idx = np.random.default_rng(random_state).choice(d, n_components, replace=False)
    return X[:, idx] * np.sqrt(d / n_components)

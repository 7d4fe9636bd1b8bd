"""Correct feature maps that refuse part of the space the way careful libraries do, and their defective twins.

Each ``Refuses*`` map is a reference scheme of :mod:`rfverify.implementations` that raises a clean refusal
(``ValueError``/``TypeError``/``NotImplementedError``) in one region — as scikit-learn's
``check_array``/parameter validation does — and is correct everywhere else.  Each ``Crashes*`` twin does the
same region with an exception that is not a refusal (``ZeroDivisionError``): a defect, still judged.
``Garbage*`` returns wrong numbers there; ``Inconsistent*`` refuses a configuration for some seeds only.
"""

from __future__ import annotations

import numpy as np

from rfverify.implementations.orf import OrthogonalRandomFeatures
from rfverify.implementations.rff import RandomFourierFeatures, RandomFourierFeaturesCosSin


def _m_at_least_two(self):
    if self.n_components < 2:
        raise ValueError("n_components must be >= 2")


class RFFRefusesM1(RandomFourierFeatures):
    def fit(self, X, y=None):
        _m_at_least_two(self)
        return super().fit(X, y)


class CosSinRefusesM1(RandomFourierFeaturesCosSin):
    def fit(self, X, y=None):
        _m_at_least_two(self)
        return super().fit(X, y)


class ORFRefusesM1(OrthogonalRandomFeatures):
    def __init__(self, n_components=100, random_state=None, gamma=1.0):
        if n_components < 2:  # in the constructor, as a library validating eagerly does
            raise ValueError("n_components must be >= 2")
        super().__init__(n_components, random_state, gamma=gamma)


class RefusesOddM(RandomFourierFeaturesCosSin):
    def fit(self, X, y=None):
        if self.n_components % 2:
            raise ValueError(f"n_components must be even (cos/sin pairs), got {self.n_components}")
        return super().fit(X, y)


class RefusesD1(RandomFourierFeatures):
    def fit(self, X, y=None):
        if np.asarray(X).shape[1] < 2:
            raise NotImplementedError("one-column data is not supported")
        return super().fit(X, y)


class RefusesFloat32(RandomFourierFeatures):
    def transform(self, X):
        if np.asarray(X).dtype == np.float32:
            raise TypeError("float32 input is not supported; convert to float64")
        return super().transform(X)

    def fit(self, X, y=None):
        if np.asarray(X).dtype == np.float32:
            raise TypeError("float32 input is not supported; convert to float64")
        return super().fit(X, y)


class RefusesFortran(RandomFourierFeatures):
    def transform(self, X):
        if not np.asarray(X).flags.c_contiguous:
            raise ValueError("X must be C-contiguous")
        return super().transform(X)


class CrashesAtM1(RandomFourierFeaturesCosSin):
    """CosSinRefusesM1's twin: the same region, ZeroDivisionError (a defect, not a refusal)."""

    def fit(self, X, y=None):
        if self.n_components < 2:
            raise ZeroDivisionError("division by zero")
        return super().fit(X, y)


class GarbageAtOddM(RandomFourierFeaturesCosSin):
    """RefusesOddM's twin: accepts odd n_components but answers with another random_state's draw there."""

    def fit(self, X, y=None):
        if self.n_components % 2:
            self.random_state = int(np.random.default_rng().integers(2 ** 31))
        return super().fit(X, y)


class InconsistentAtM1(RandomFourierFeaturesCosSin):
    """Refuses n_components = 1 for odd seeds only: a refusal that depends on the draw is a defect."""

    def fit(self, X, y=None):
        if self.n_components < 2 and int(self.random_state or 0) % 2 == 1:
            raise ValueError("n_components must be >= 2")
        return super().fit(X, y)


class RefusesMainD(RandomFourierFeatures):
    """Refuses the dimension the caller asked for (16): nothing can be judged where the verdict was wanted."""

    def fit(self, X, y=None):
        if np.asarray(X).shape[1] == 16:
            raise ValueError("d = 16 is not supported")
        return super().fit(X, y)


class RefusesOneRow(RandomFourierFeatures):
    """Refuses to transform a batch of one row (a library that validates ``X.shape[0] >= 2``)."""

    def transform(self, X):
        if np.asarray(X).shape[0] < 2:
            raise ValueError("X must have at least 2 rows")
        return super().transform(X)

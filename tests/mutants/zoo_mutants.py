"""Deliberately broken variants of the zoo's schemes; each must fail the check named in CAUGHT_BY.

``CAUGHT_BY`` maps a mutant to (check, verify options): the options are the zoo entry's of the
correct scheme, so the mutant is judged by exactly what the correct scheme declares.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats
from scipy.linalg import hadamard
from scipy.stats import qmc

from rfverify.implementations.arccos import ArcCosineFeatures
from rfverify.implementations.orf import OrthogonalRandomFeatures, orf_frequencies
from rfverify.implementations.qmc_features import SobolFourierFeatures
from rfverify.implementations.structured_features import SORF3


class ORFNoChi(OrthogonalRandomFeatures):
    """ORF without the chi(d) scaling S: every row has norm sqrt(d)/sigma (biased)."""

    def _draw(self, d, rng):
        W = orf_frequencies(self.n_components, d, rng, chi_scaling=False) * self._sigma_inv
        self.W_ = np.ascontiguousarray(W.T)


class SORFDenseUnnormalised(SORF3):
    """SORF built from a dense, unnormalised Hadamard matrix: rows of norm d^{3/2} sqrt(d)/sigma."""

    def _project(self, X):
        nb, k, p = self.diags_.shape
        H = hadamard(p).astype(float)
        Xp = np.hstack([X, np.zeros((X.shape[0], p - X.shape[1]))])
        M = np.broadcast_to(np.eye(p), (nb, p, p))
        for i in range(k):  # M_b = H D_1 H D_2 H D_3, dense and unnormalised
            M = (M @ H) * self.diags_[:, i, None, :]
        W = (math.sqrt(p) * self._sigma_inv * M).reshape(nb * p, p)[: self.n_components]
        return Xp @ W.T


class ArcCosHalfScale(ArcCosineFeatures):
    """alber2017 eq. (10) as printed: sqrt(1/D) max(0, W^T x) — half the kernel."""

    def _features(self, X):
        return super()._features(X) / math.sqrt(2.0)


class SobolUnscrambled(SobolFourierFeatures):
    """Sobol points without scrambling: the same frequencies for every random_state."""

    def _draw(self, d, rng):
        bits = int(math.ceil(math.log2(self.n_components + 1)))
        u = qmc.Sobol(d, scramble=False).random_base2(bits)[1 : self.n_components + 1]  # skip the point 0
        self.W_ = np.ascontiguousarray((stats.norm.ppf(u) * self._sigma_inv).T)


_S2 = math.sqrt(2.0)
_RBF = {"kernel": "rbf", "kernel_params": {"gamma": 0.5}, "dim": 16, "bound": _S2}

CAUGHT_BY = {
    ORFNoChi: ("unbiasedness", _RBF),
    SORFDenseUnnormalised: ("unbiasedness", {**_RBF, "unbiased": False, "bias_bound": 0.05}),
    ArcCosHalfScale: ("unbiasedness", {"kernel": "arccos", "kernel_params": {"order": 1}, "dim": 16}),
    SobolUnscrambled: ("reproducibility", _RBF),
}

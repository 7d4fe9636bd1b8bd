"""Orthogonal random features (Yu, Suresh, Choromanski, Holtmann-Rice & Kumar 2016).

For k(x, y) = exp(-gamma ||x - y||^2), i.e. sigma = 1/sqrt(2 gamma), ORF draws blocks

    W_b = S_b Q_b / sigma,   Q_b Haar on O(d) (:func:`haar_qr`),  S_b = diag(s_1..s_d), s_i ~ chi(d) i.i.d.,

stacks ceil(m/d) independent blocks and keeps the first m rows.  Each row is s_i times a
uniform unit vector: exactly the law of a N(0, I/sigma^2) vector, so every feature is
marginally a random Fourier feature and the estimate is *unbiased*; within a block the
directions are orthogonal, which lowers the variance (Yu et al. 2016, Thm. 1; munkhoeva2018
Prop. 2.2 reads a block as a stochastic spherical-radial rule of degree (1, 3)).
Without ``S`` (rows of equal norm sqrt(d)/sigma) the estimate is biased — see the mutant
in ``tests/mutants/zoo_mutants.py``.

>>> import numpy as np
>>> f = OrthogonalRandomFeatures(64, random_state=0, gamma=0.5).fit(np.zeros((1, 16)))
>>> f.W_.shape, f.W_.flags.c_contiguous
((16, 64), True)
"""

from __future__ import annotations

import numpy as np

from rfverify.implementations._fourier import FourierBase
from rfverify.implementations.orthogonal import haar_qr

__all__ = ["OrthogonalRandomFeatures", "orf_frequencies"]


def orf_frequencies(m: int, d: int, rng: np.random.Generator, *, chi_scaling: bool = True) -> np.ndarray:
    """(m, d) ORF frequencies for unit bandwidth: stacked S_b Q_b, truncated to m rows."""
    blocks = []
    for _ in range(-(-m // d)):
        Q = haar_qr(d, rng=rng)
        s = np.sqrt(rng.chisquare(d, size=d)) if chi_scaling else np.full(d, np.sqrt(d))
        blocks.append(s[:, None] * Q)
    return np.vstack(blocks)[:m]


class OrthogonalRandomFeatures(FourierBase):
    """ORF, paired form sqrt(1/m)[cos Wx, sin Wx] (2m outputs); ``W_`` stored C-contiguous (d, m)."""

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        W = orf_frequencies(self.n_components, d, rng) * self._sigma_inv
        self.W_ = np.ascontiguousarray(W.T, dtype=self._dtype)

    def _project(self, X: np.ndarray) -> np.ndarray:
        return X @ self.W_

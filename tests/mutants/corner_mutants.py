"""Planted corner bugs for the *statistical* checks at the corner configurations (:mod:`rfverify.corners`).

Each map is right at the main configuration (d = 16, m on the power-of-two grid, float64, gamma = 0.5) and passes
``explore`` (its deterministic properties hold everywhere); it is wrong in law at one corner of the design, where
unbiasedness, concentration or the error rate catches it.  Each has a correct twin (:class:`RoundUpScaled`,
:class:`rfverify.implementations.rff.RandomFourierFeatures`, :class:`tests.mutants.explore_mutants.CeilCosSin`).
The issue's "Why" bullets they stand for: a cos/sin map scaled by sqrt(2/m) with m // 2 frequencies, a library that
rounds n_components up to a multiple of d, a parameter clipped for "stability", a float32 input on a different
code path, a fast path above some d.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rfverify.implementations.arccos import ArcCosineFeatures
from rfverify.implementations.orthogonal import haar_qr
from rfverify.implementations.quadrature import SR33 as _SR33
from rfverify.implementations.quadrature import sr33_assemble
from rfverify.implementations.rff import RandomFourierFeatures, _RFFBase

#: Above this input dimension :class:`SharedBankAboveD` takes its "fast path"; the bank has BANK frequencies.
D_BANK = 128
BANK = 8
#: :class:`ClippedGamma`'s "stable" range of gamma.
GAMMA_RANGE = (1e-2, 1e2)
#: :func:`sign_fix_up_to_64`: the sign fix of the QR stops above this d.
D_SIGN_FIX = 64


class OddWidthCosSin(_RFFBase):
    """cos/sin pairs from m // 2 frequencies scaled by sqrt(2/m), an odd m padded with one zero column so that
    the map returns exactly m features: exact for even m, biased by a factor 2 (m // 2) / m for odd m (0 at
    m = 1, 2/3 at m = 3).  Every deterministic property holds, so ``explore`` passes it; unbiasedness at the
    corner m = 1 (or the odd m = 3) catches it."""

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        k = self.n_components // 2
        self.W_ = np.ascontiguousarray(rng.normal(0.0, np.sqrt(2.0 * self.gamma), size=(k, d)).T)

    def _features(self, X: np.ndarray) -> np.ndarray:
        P = X @ self.W_
        F = np.sqrt(2.0 / self.n_components) * np.hstack([np.cos(P), np.sin(P)])
        if self.n_components % 2:
            F = np.hstack([F, np.zeros((X.shape[0], 1))])
        return F


class RoundUpUnscaled(RandomFourierFeatures):
    """Rounds n_components up to a multiple of d (as block-structured libraries do) but keeps the scale
    sqrt(2/m) of the m requested: E k_hat = (width / m) k, exact when m is a multiple of d (every m of the main
    grid at d = 16) and 16/3 x k at d = 16, m = 3 (the corner "an odd m that is not a multiple of d"); the
    declared bound C = sqrt(2) is violated there too."""

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        width = d * -(-self.n_components // d)
        self.W_ = np.ascontiguousarray(rng.normal(0.0, np.sqrt(2.0 * self.gamma), size=(width, d)).T)
        self.b_ = rng.uniform(0.0, 2.0 * np.pi, size=width)


class RoundUpScaled(RoundUpUnscaled):
    """The correct twin: rounded up to a multiple of d and scaled by sqrt(2 / width) for the width it returns."""

    def _features(self, X: np.ndarray) -> np.ndarray:
        return np.sqrt(2.0 / self.W_.shape[1]) * np.cos(X @ self.W_ + self.b_)


class ClippedGamma(RandomFourierFeatures):
    """gamma clipped to [1e-2, 1e2] "for numerical stability": exact for every gamma in that range (0.5 at the
    main configuration), the kernel of the clipped gamma outside it — exp(-1e-2 r^2) = k^10 at gamma = 1e-3,
    k^0.1 at gamma = 1e3 (the corners of the smallest and largest kernel parameters)."""

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        gamma = float(np.clip(self.gamma, *GAMMA_RANGE))
        self.W_ = np.ascontiguousarray(rng.normal(0.0, np.sqrt(2.0 * gamma), size=(self.n_components, d)).T)
        self.b_ = rng.uniform(0.0, 2.0 * np.pi, size=self.n_components)


class Float32FitDraw(RandomFourierFeatures):
    """Fitted on a float32 batch, the single-precision branch draws the frequencies with variance gamma instead
    of 2 gamma (it estimates k^(1/2)); fitted on float64 it is right.  The features of a fitted map do not depend
    on the dtype of the batch transformed, so ``explore`` (which compares dtypes on one fitted map) passes it; the
    float32 corner of unbiasedness catches it."""

    def fit(self, X: Any = None, y: Any = None) -> Any:
        self._single = isinstance(X, np.ndarray) and X.dtype == np.float32
        return super().fit(X, y)

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        var = self.gamma if getattr(self, "_single", False) else 2.0 * self.gamma
        self.W_ = np.ascontiguousarray(rng.normal(0.0, np.sqrt(var), size=(self.n_components, d)).T)
        self.b_ = rng.uniform(0.0, 2.0 * np.pi, size=self.n_components)


class SharedBankAboveD(RandomFourierFeatures):
    """Above d = 128 a "fast path" draws a bank of 8 frequencies and phases and tiles it to m features: each
    feature has the right law (unbiased), but the features are not independent, so the error stops falling
    like 1/m beyond 8 features — right at d = 16, caught by the error rate (and the Hoeffding tails) at the
    corner of the largest d."""

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        if d <= D_BANK:
            return super()._draw(d, rng)
        k = min(BANK, self.n_components)
        W = rng.normal(0.0, np.sqrt(2.0 * self.gamma), size=(k, d))
        b = rng.uniform(0.0, 2.0 * np.pi, size=k)
        idx = np.arange(self.n_components) % k
        self.W_ = np.ascontiguousarray(W[idx].T)
        self.b_ = b[idx]


class ArcCosSharedBankAboveD(ArcCosineFeatures):
    """:class:`SharedBankAboveD` for an unbounded map (arc-cosine, no declared bound, so its error rate is judged
    by the nested comparison): above d = 128 a bank of 8 Gaussian directions is tiled to m features."""

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        if d <= D_BANK:
            return super()._draw(d, rng)
        k = min(BANK, self.n_components)
        W = rng.standard_normal((d, k), dtype=self._dtype)
        self.W_ = np.ascontiguousarray(W[:, np.arange(self.n_components) % k])


class ArcCosSharedBank(ArcCosineFeatures):
    """The same bank of 8 directions at every d: caught at the main configuration too."""

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        k = min(BANK, self.n_components)
        W = rng.standard_normal((d, k), dtype=self._dtype)
        self.W_ = np.ascontiguousarray(W[:, np.arange(self.n_components) % k])


def sign_fix_up_to_64(d: int, rng: Any) -> np.ndarray:
    """QR of a Gaussian matrix with the sign fix Q diag(sign(diag R)) applied only up to d = 64 (a "fast path"
    that skips it above): Haar for d <= 64; above, Q inherits LAPACK's sign convention (diag R < 0) and its
    law is not Haar (E tr Q != 0).  Orthogonal and reproducible everywhere, so ``explore`` passes it."""
    if d <= D_SIGN_FIX:
        return haar_qr(d, rng)
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    return Q


#: Feature-map corner bugs -> (the check that must catch it, a substring of the failure message: the corner).
CORNER_STAT_BUGS = {
    OddWidthCosSin: ("unbiasedness", "n_components=1,"),
    RoundUpUnscaled: ("unbiasedness", "n_components=3, float32"),
    ClippedGamma: ("unbiasedness", "gamma=0.001"),
    Float32FitDraw: ("unbiasedness", "float32"),
    SharedBankAboveD: ("error-rate", "d = 256,"),
}
#: Correct twins (must pass unbiasedness, concentration and error-rate with their corners).
CORNER_STAT_TWINS = (RandomFourierFeatures, RoundUpScaled)


# ---------------------------------------------------------------- quadrature rules: rule-unbiasedness at corner d
#: Above this dimension :class:`SR33NoRotationAbove32` skips its random rotation.
D_NO_ROTATION = 32


class SR33RadiusChi1AtD1(_SR33):
    """SR^{3,3} whose radius at d = 1 is drawn from chi(1) (the law of |w|, w ~ N(0, 1): "the one-dimensional
    special case") instead of chi(d + 2) = chi(3); every other d is SR^{3,3} itself.  Each draw stays exact to
    degree 3 (SR33 is exact for any rho > 0), so ``exactness`` and ``explore`` pass it; its estimate of w_1^4 is
    rho^2, of mean 1 instead of 3 (and cos(w_1) is biased too): caught by rule-unbiasedness at the corner d = 1."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "sr33-radius-chi1-at-d1"

    def radii(self, d: int, gen: np.random.Generator) -> np.ndarray:
        if d == 1:
            return np.full(2, np.sqrt(gen.chisquare(1)))
        return super().radii(d, gen)


class SR33NoRotationAbove32(_SR33):
    """SR^{3,3} that skips its Haar rotation above d = 32 (a "fast path": Q = I, the simplex fixed): exact to
    degree 3 for every draw (any orthogonal Q will do) and random through rho, so ``exactness`` and ``explore``
    pass it; at d = 64 the fixed simplex makes the estimates of w_1^4, w_1^2 w_2^2 … and the arc-cosine integrands
    (whose axes it does not see uniformly) biased: caught by rule-unbiasedness at the corner of the largest d."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "sr33-no-rotation-above-32"

    def _nodes(self, d: int, gen: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        if d <= D_NO_ROTATION:
            return super()._nodes(d, gen)
        return sr33_assemble(d, self.radii(d, gen), np.eye(d), self._vertices(d), self._outer)


sr33_radius_chi1_at_d1 = SR33RadiusChi1AtD1()
sr33_no_rotation_above_32 = SR33NoRotationAbove32()
#: Quadrature corner bugs (declared degree 3, unbiased) -> the corner dimension of the default design that
#: catches them (the rule's space is the kind's default, d 1 … 64; the declared d is 8).
QUADRATURE_CORNER_BUGS = {sr33_radius_chi1_at_d1: 1, sr33_no_rotation_above_32: 64}
#: Their correct twins: the zoo's SR^{3,3} rules (shared radius and per-vertex radii).
QUADRATURE_CORNER_TWINS = (_SR33(), _SR33(per_vertex=True))

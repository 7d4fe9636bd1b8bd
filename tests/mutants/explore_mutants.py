"""Planted corner bugs: feature maps that are right at the configuration every other check looks at (d = 16,
m on a power-of-two grid, float64 C-ordered batches of a few dozen rows, a harness-chosen random_state) and wrong
in one corner of the configuration space — what ``explore`` must find and shrink.  Each has a correct twin that
must pass (the reference maps themselves, and :class:`CeilCosSin`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rfverify.implementations.quadrature import SR33 as _SR33
from rfverify.implementations.rff import RandomFourierFeatures, _RFFBase

#: The thresholds of the corners (a fast path above D_FAST input dimensions, chunks of CHUNK rows).
D_FAST = 64
CHUNK = 1024


class HalfFreqCosSin(_RFFBase):
    """cos/sin pairs from m // 2 frequencies scaled by sqrt(2/m): exact for even m (m outputs), but odd m
    loses a frequency (biased by a factor 2 (m // 2) / m), and m = 1 returns no features at all."""

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        self.W_ = self._draw_frequencies_k(d, rng, self.n_components // 2)

    def _draw_frequencies_k(self, d: int, rng: np.random.Generator, k: int) -> np.ndarray:
        return np.ascontiguousarray(rng.normal(0.0, np.sqrt(2.0 * self.gamma), size=(k, d)).T)

    def _features(self, X: np.ndarray) -> np.ndarray:
        P = X @ self.W_
        return np.sqrt(2.0 / self.n_components) * np.hstack([np.cos(P), np.sin(P)])


class CeilCosSin(HalfFreqCosSin):
    """The correct twin: ceil(m / 2) frequencies, each pair scaled by sqrt(1 / ceil(m / 2)) (2 ceil(m / 2)
    outputs): unbiased for every m."""

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        self.W_ = self._draw_frequencies_k(d, rng, (self.n_components + 1) // 2)

    def _features(self, X: np.ndarray) -> np.ndarray:
        P = X @ self.W_
        return np.sqrt(1.0 / P.shape[1]) * np.hstack([np.cos(P), np.sin(P)])


class SeedZeroUnseeded(RandomFourierFeatures):
    """``np.random.default_rng(random_state or None)``: seed 0 becomes fresh OS entropy (every other seed works)."""

    def _fit(self, X: np.ndarray | None, y: Any) -> None:
        d = None if X is None else X.shape[1]
        self._draw(d, np.random.default_rng(self.random_state or None))  # type: ignore[arg-type]
        if d is not None:
            self.n_features_in_ = d


_FAST_CACHE: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}


class FastPathCache(RandomFourierFeatures):
    """A "fast path" above D_FAST input dimensions reuses frequencies cached by (d, m) across instances: above
    it, random_state is ignored after the first fit (below it, every seed gives its own features)."""

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        super()._draw(d, rng)
        if d > D_FAST:
            self.W_, self.b_ = _FAST_CACHE.setdefault((d, self.n_components), (self.W_, self.b_))


class ChunkedAboveBatch(RandomFourierFeatures):
    """Batches above CHUNK rows are transformed in chunks, with an off-by-one that leaves the last row of every
    chunk zero (batches of at most CHUNK rows are right)."""

    def _features(self, X: np.ndarray) -> np.ndarray:
        n = X.shape[0]
        if n <= CHUNK:
            return super()._features(X)
        out = np.zeros((n, self.n_components))
        for i in range(0, n, CHUNK):
            out[i : i + CHUNK - 1] = super()._features(X[i : i + CHUNK - 1])
        return out


class Float16Compute(RandomFourierFeatures):
    """A float32 input is computed in float16 (and returned as float32); float64 inputs are right."""

    def transform(self, X: Any) -> np.ndarray:
        if isinstance(X, np.ndarray) and X.dtype == np.float32:
            P = X.astype(np.float16) @ self.W_.astype(np.float16) + self.b_.astype(np.float16)
            return (np.float16(np.sqrt(2.0 / self.n_components)) * np.cos(P)).astype(np.float32)
        return super().transform(X)


class FortranReadAsC(RandomFourierFeatures):
    """Reads the input's memory as C-ordered whatever its layout: a Fortran-ordered batch is scrambled
    (C-ordered and strided inputs, which are copied first, are right)."""

    def transform(self, X: Any) -> np.ndarray:
        A = np.asarray(X, dtype=np.float64)
        if A.flags.f_contiguous and not A.flags.c_contiguous:
            A = np.frombuffer(A.tobytes(order="A"), dtype=np.float64).reshape(A.shape)
        return super().transform(A)


class RefitRedraws(RandomFourierFeatures):
    """The generator is created once in ``__init__`` and consumed by ``fit``: a second ``fit`` of the same
    object draws new features (a fresh object with the same random_state is right)."""

    def __init__(self, n_components: int = 100, random_state: Any = None, gamma: float = 1.0) -> None:
        super().__init__(n_components, random_state, gamma=gamma)
        self._rng = np.random.default_rng(random_state)

    def _fit(self, X: np.ndarray | None, y: Any) -> None:
        d = None if X is None else X.shape[1]
        self._draw(d, self._rng)  # type: ignore[arg-type]
        if d is not None:
            self.n_features_in_ = d


# ---------------------------------------------------------------- orthogonal samplers
def rotation_2d_unnormalised(d: int, rng: Any) -> np.ndarray:
    """Haar QR, with a "closed form" for d = 2 that builds [[c, -s], [s, c]] from a Gaussian pair without
    normalising it (not orthogonal); every d >= 3 (and d = 1) is right."""
    from rfverify.implementations.orthogonal import haar_qr

    if d == 2:
        c, s = rng.standard_normal(2)
        return np.array([[c, -s], [s, c]])
    return haar_qr(d, rng)


def entropy_above_128(d: int, rng: Any) -> np.ndarray:
    """Haar QR, but above d = 128 a "parallel" path seeds its own generator from OS entropy (the rng given is
    ignored): not reproducible there."""
    from rfverify.implementations.orthogonal import haar_qr

    return haar_qr(d, np.random.default_rng() if d > 128 else rng)


# ---------------------------------------------------------------- fast transforms
def fwht_small_widths_halved(X: Any) -> np.ndarray:
    """An unnormalised FWHT whose "trivial" widths d <= 2 return X / 2 (a normalisation slip in the special
    case): garbage at d = 1 and 2, exact from d = 4 (as the package-index library a user tried)."""
    from rfverify.implementations.structured import fwht

    X = np.asarray(X)
    if X.shape[1] <= 2:
        return X / 2.0
    return fwht(X)


def fwht_float32_f_order(X: Any) -> np.ndarray:
    """The FWHT, but a Fortran-ordered float32 batch is read through its raw buffer as C-ordered (a "zero-copy"
    fast path): right for C-ordered, strided and float64 inputs."""
    from rfverify.implementations.structured import fwht

    X = np.asarray(X)
    if X.dtype == np.float32 and X.flags.f_contiguous and not X.flags.c_contiguous:
        X = np.frombuffer(X.tobytes(order="A"), dtype=np.float32).reshape(X.shape)
    return fwht(X)


#: Transform corner bugs and their minimal configuration in the message.
TRANSFORM_CORNERS = {fwht_small_widths_halved: "d = 1,", fwht_float32_f_order: "float32, F-layout"}

#: Orthogonal-sampler corner bugs and their minimal dimension in the message.
ORTHOGONAL_CORNERS = {rotation_2d_unnormalised: "d = 2,", entropy_above_128: "d = 129,"}

#: Each planted corner bug and what the minimal configuration must show (a substring of the failure message).
CORNERS = {
    HalfFreqCosSin: "n_components=1,",
    SeedZeroUnseeded: "random_state=0,",
    FastPathCache: "d = 65,",
    ChunkedAboveBatch: "the batch split",  # at more than CHUNK rows (Hypothesis may stop at 2^k + 1 > CHUNK)
    Float16Compute: "float32",
    FortranReadAsC: "F-layout",
    RefitRedraws: "a second time",
}


# ---------------------------------------------------------------- quadrature rules (declared degree 3)
#: Above this dimension the "half-size" path of :class:`SR33HalfAbove` keeps one point of each antipodal pair.
D_HALF = 20


class SR33SpecialCaseD1(_SR33):
    """SR^{3,3} with a "closed form" at d = 1: the one-dimensional simplex is {-1, +1}, so the rule returns
    +-rho with weights 1/2 and forgets the centre point (weight 1 - 1/rho^2): exact on degrees 0 and 1, but
    w_1^2 integrates to rho^2, not 1.  Every d >= 2 is SR^{3,3} itself."""

    name = "sr33-special-case-d1"

    def _nodes(self, d: int, gen: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        if d == 1:
            rho = float(np.sqrt(gen.chisquare(3)))
            return np.array([[rho], [-rho]]), np.array([0.5, 0.5])
        return super()._nodes(d, gen)


class SR33HalfAbove(_SR33):
    """SR^{3,3} with a "half-size" path above D_HALF dimensions: the antipodal points -rho Q v_j are dropped
    and each rho Q v_j carries the pair's weight.  The simplex is centred and isotropic, so degrees 0, 1 and 2
    stay exact; degree 3 (the claimed top degree) does not: sum_j (Q v_j)^(x)3 != 0."""

    name = "sr33-half-above-20"

    def _nodes(self, d: int, gen: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        P, w = super()._nodes(d, gen)
        if d <= D_HALF:
            return P, w
        k = d + 1  # rows: the centre, then rho Q v_j (k of them), then their negatives
        return P[: 1 + k], np.concatenate([w[:1], 2.0 * w[1 : 1 + k]])


sr33_special_case_d1 = SR33SpecialCaseD1()
sr33_half_above_20 = SR33HalfAbove()
#: Quadrature corner bugs (declared degree 3) and what the failure message must name.
QUADRATURE_CORNERS = {sr33_special_case_d1: ("d = 1,", "degree 2", "w_1^2"),
                      sr33_half_above_20: (f"d = {D_HALF + 1},", "degree 3", "w_1^3")}
#: Their correct twins: SR^{3,3} (shared radius and per-vertex radii).
QUADRATURE_TWINS = [_SR33(), _SR33(per_vertex=True)]


# ---------------------------------------------------------------- kernels
#: The weight at which :func:`mix_weight_clipped` clips its rbf part, and the dimension above which
#: :func:`rbf_fast_path_above_32` takes its asymmetric fast path.
CLIP_WEIGHT = 0.9
D_KERNEL_FAST = 32


def _sq_l1(X: Any, Y: Any) -> tuple[np.ndarray, np.ndarray]:
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
    sq = np.maximum((X * X).sum(1)[:, None] + (Y * Y).sum(1)[None, :] - 2.0 * X @ Y.T, 0.0)
    return sq, np.abs(X[:, None, :] - Y[None, :, :]).sum(-1)


def mix_weight(X: Any, Y: Any, weight: float = 0.5) -> np.ndarray:
    """The correct twin: weight exp(-|x - y|^2) + (1 - weight) exp(-|x - y|_1), normalised for every weight."""
    sq, l1 = _sq_l1(X, Y)
    return weight * np.exp(-sq) + (1.0 - weight) * np.exp(-l1)


def mix_weight_clipped(X: Any, Y: Any, weight: float = 0.5) -> np.ndarray:
    """The mixture with its rbf weight "clipped for stability" at CLIP_WEIGHT while the Laplacian part keeps
    1 - weight: above weight 0.9 the weights sum to less than 1 and k(x, x) = 0.9 + 1 - weight != 1 (a valid
    kernel, no longer the normalised one it claims to be); right for every weight <= 0.9."""
    sq, l1 = _sq_l1(X, Y)
    return min(weight, CLIP_WEIGHT) * np.exp(-sq) + (1.0 - weight) * np.exp(-l1)


mix_weight.rfverify_space = {"weight": (0.01, 0.99, "linear")}  # type: ignore[attr-defined]
mix_weight_clipped.rfverify_space = {"weight": (0.01, 0.99, "linear")}  # type: ignore[attr-defined]


def rbf_expanded(X: Any, Y: Any) -> np.ndarray:
    """The correct twin: exp(-max(|x|^2 + |y|^2 - 2 <x, y>, 0)) at every d."""
    return np.exp(-_sq_l1(X, Y)[0])


def rbf_fast_path_above_32(X: Any, Y: Any) -> np.ndarray:
    """The rbf with a "fast path" above D_KERNEL_FAST dimensions whose expansion reuses |x|^2 for |y|^2 (a
    copy-paste): k(x, x) is still 1, but k(x, y) != k(y, x) above d = 32; right at every d <= 32."""
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
    if X.shape[1] <= D_KERNEL_FAST:
        return rbf_expanded(X, Y)
    nx = (X * X).sum(1)[:, None]
    return np.exp(-np.maximum(nx + nx - 2.0 * X @ Y.T, 0.0))


#: Kernel corner bugs, their verify options and what the failure message must name.
KERNEL_CORNERS = {mix_weight_clipped: ({"normalized": True}, "not normalised"),
                  rbf_fast_path_above_32: ({"normalized": True}, f"d = {D_KERNEL_FAST + 1},")}
#: Their correct twins (the same options).
KERNEL_TWINS = {mix_weight: {"normalized": True}, rbf_expanded: {"normalized": True}}

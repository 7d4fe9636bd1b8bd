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


class _FitsWidth(RandomFourierFeatures):
    """Random Fourier features whose fit draws ``width(m, d)`` of them for n_components = m; scaled by
    sqrt(2 / m) as drawn by the parent, or by the width drawn when ``by_width``."""

    by_width = False

    def width(self, m: int, d: int) -> int:
        return m

    def fit(self, X, y=None):
        m = self.n_components
        self.n_components = self.width(m, np.asarray(X).shape[1])
        try:
            return super().fit(X)
        finally:
            self.n_components = m

    def _features(self, X):
        if not self.by_width:
            return super()._features(X)
        return np.sqrt(2.0 / self.W_.shape[1]) * np.cos(X @ self.W_ + self.b_)


class WiderHalfScale(_FitsWidth):
    """Half the scale, and 8 more features than asked for: a failure message names the width returned."""

    def width(self, m, d):
        return m + 8

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
    unbiased, and exact once n_components >= d: then the d coordinates are repeated m // d times, scaled by
    sqrt(d / m) (two exact widths, 64 and 256 at d = 32, so "exact from" must name the first)."""
    X = np.asarray(X, dtype=np.float64)
    d = X.shape[1]
    if n_components >= d:
        k = n_components // d
        return np.tile(X, k) / np.sqrt(k)
    idx = np.random.default_rng(random_state).choice(d, n_components, replace=False)
    return X[:, idx] * np.sqrt(d / n_components)


def _rff(X, freqs, phases, m):
    return np.sqrt(2.0 / m) * np.cos(np.asarray(X, dtype=np.float64) @ freqs + phases)


def levels_off(X, n_components, random_state):
    """RBF (gamma 0.5) random Fourier features of which a quarter repeat only 4 draws: unbiased, but the variance
    is 0.75 V / m + V / 64, which levels off instead of falling like 1/m (the error-rate "levels off" diagnosis)."""
    X = np.asarray(X, dtype=np.float64)
    rng = np.random.default_rng(random_state)
    m, d = n_components, X.shape[1]
    q = m // 4
    fresh = rng.standard_normal((d, m - q)), rng.uniform(0, 2 * np.pi, m - q)
    few = rng.standard_normal((d, 4)), rng.uniform(0, 2 * np.pi, 4)
    shared = np.tile(few[0], q // 4), np.tile(few[1], q // 4)
    return np.hstack([_rff(X, *fresh, m), _rff(X, *shared, m)])


class WidthPlusOne(_FitsWidth):
    """One feature more than asked for below ``above`` (17, 65, 257 at m = 16, 64, 256 with the default), scaled by
    sqrt(2 / m) (a mean (m + 1) / m of the kernel, a bias error-rate does not judge): no width is a whole multiple of
    the one before, so the nested comparison has no pair."""

    above = 10 ** 9

    def width(self, m, d):
        return m + 1 if m < self.above else m


class WidthPlusOneAtFirst(WidthPlusOne):
    """17, 64, 256 at m = 16, 64, 256: the first pair is not comparable, the second is."""

    above = 17


class RoundUpToD(_FitsWidth):
    """Correct features, their number rounded up to a multiple of d (as block-orthogonal maps do): at d = 256 the
    error-rate corner grid 17, 65, 257 collapses to 256, 256, 512, where no 1/m law can be fitted."""

    by_width = True

    def width(self, m, d):
        return -(-m // d) * d


def count_sketch(X, n_components, random_state):
    """The linear kernel by a count sketch: each coordinate hashed to one of m buckets with a random sign.  Unbiased,
    and exact in a seed whose hash has no collision (at d = 8: in about 14%, 65%, 90% of seeds at m = 16, 64, 256), so the
    nested comparison sees many tied zero errors, broken at random from the check's key."""
    X = np.asarray(X, dtype=np.float64)
    rng = np.random.default_rng(random_state)
    d = X.shape[1]
    S = np.zeros((d, n_components))
    S[np.arange(d), rng.integers(0, n_components, d)] = rng.choice([-1.0, 1.0], d)
    return X @ S


class FixedWidth(_FitsWidth):
    """Correct features, always 64 of them whatever n_components asks: the error cannot fall with m."""

    by_width = True

    def width(self, m, d):
        return 64


class HalfWidthAbove16(_FitsWidth):
    """Correct features, half as many as asked above 16 (16, 32, 128 at m = 16, 64, 256): the nested comparisons
    have k = 2 and k = 4."""

    by_width = True

    def width(self, m, d):
        return m // 2 if m > 16 else m


class OptionsAndGamma(OptionsParam):
    """fit doubles gamma, updates its options dict and appends to its log list in place: three parameters changed,
    two of them (the mutable ones, shared with the instance passed in) also on that instance."""

    def __init__(self, n_components=100, random_state=None, gamma=1.0, options=None, log=None):
        super().__init__(n_components, random_state, gamma=gamma, options=options)
        self.log = log

    def get_params(self, deep=True):
        return {**super().get_params(deep), "log": self.log}

    def fit(self, X, y=None):
        self.gamma = self.gamma * 2
        if self.log is not None:
            self.log.append("fit")
        return super().fit(X)


def options_and_gamma_instance():
    return OptionsAndGamma(64, 0, gamma=0.5, options={}, log=[])


class OneRowWider(RandomFourierFeatures):
    """One more (zero) column when transforming a single row: the width depends on the batch."""

    def transform(self, X):
        F = super().transform(X)
        return np.hstack([F, np.zeros((F.shape[0], 1))]) if F.shape[0] == 1 else F


class LoudReordered(RandomFourierFeatures):
    """Frequencies 1e5 times too large and a single row's inner products summed in reverse order: row i of
    transform(X) and transform(X[i:i+1]) differ by far more than the margin's round-off (2e-11 against 9e-14) but
    within the round-off propagated through the map's own sensitivity (the contract's second tolerance)."""

    dtype = np.float64

    def fit(self, X, y=None):
        super().fit(X)
        self.W_ = self.W_ * 1e5
        return self

    def transform(self, X):
        X, W = np.asarray(X, dtype=self.dtype), self.W_.astype(self.dtype)
        # no BLAS (its summation order depends on the build and the CPU): one ordered sum, reversed for one row
        P = np.zeros((X.shape[0], W.shape[1]), dtype=self.dtype)
        for j in (range(X.shape[1] - 1, -1, -1) if X.shape[0] == 1 else range(X.shape[1])):
            P += X[:, j, None] * W[j]
        return (np.sqrt(2.0 / self.n_components) * np.cos(P + self.b_.astype(self.dtype))).astype(self.dtype)


class LoudReordered32(LoudReordered):
    """The same in float32: the sensitivity's finite-difference step must be float32's (float64's vanishes)."""

    dtype = np.float32


def sum_with_a_part_without_map():
    """rbf + a user's callable kernel: a composite whose second part has no reference feature map."""
    from rfverify.kernels.composition import kernel_sum

    return kernel_sum("rbf", linear_kernel)


def sum_rbf_linear():
    """rbf + linear: both parts have reference maps (random Fourier features, the exact linear map)."""
    from rfverify.kernels.composition import kernel_sum

    return kernel_sum("rbf", "linear")


def sum_polynomial_rbf():
    """polynomial + rbf: the exact polynomial leaf exists only up to a width, a space the corners must keep to."""
    from rfverify.kernels.composition import kernel_sum

    return kernel_sum("polynomial", "rbf")

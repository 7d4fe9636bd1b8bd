"""Feature-map mutants: planted bugs in the reference feature maps, and equivalent rewrites.

Reuses the planted bugs of :mod:`.rff_mutants`, :mod:`.zoo_mutants`, :mod:`.maxout_mutants` and
:mod:`.compositional_mutants`; the others are defined here, each with a docstring saying what is wrong.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special, stats
from scipy.stats import qmc

from rfverify.studies.calibration import Mutant
from rfverify.implementations.arccos import ArcCosineFeatures
from rfverify.implementations.laplacian import LaplacianRandomFeatures
from rfverify.implementations.maxout import MaxoutFeatures
from rfverify.implementations.orf import OrthogonalRandomFeatures
from rfverify.implementations.orthogonal import haar_qr
from rfverify.implementations.qmc_features import SobolFourierFeatures
from rfverify.implementations.rff import RandomFourierFeatures, RandomFourierFeaturesCosSin
from rfverify.implementations.structured_features import SORF3, FastfoodFeatures

from ._common import (_S2, ARCCOS0, ARCCOS1, COMPOSITIONAL, LAPLACIAN, MAXOUT, RBF, STRUCTURED,  # noqa: F401
                      _e, _m)
from .compositional_mutants import printed_shallow
from .corner_mutants import ArcCosSharedBank
from .explore_mutants import (CeilCosSin, ChunkedAboveBatch, FastPathCache, Float16Compute, FortranReadAsC,
                              HalfFreqCosSin, RefitRedraws, SeedZeroUnseeded)

_WHY = "Right at the one configuration the other checks use; explore searches the space and shrinks to the corner"
#: The planted corner bugs (name, class, category, why explore catches it).
_CORNER_BUGS = (
    ("half-freq-cos-sin", HalfFreqCosSin, "off-by-one stages", _WHY + " n_components=1 (no features at all)."),
    ("seed-zero-unseeded", SeedZeroUnseeded, "seeding", _WHY + " random_state=0 (features change between fits)."),
    ("fast-path-cache", FastPathCache, "caching", _WHY + " d = 65 (random_state ignored above 64)."),
    ("chunked-above-batch", ChunkedAboveBatch, "caching", _WHY + " 1025 rows (a zero row in the chunked path)."),
    ("float16-compute", Float16Compute, "dtype", _WHY + " a float32 batch (float16 round-off, not float32's)."),
    ("fortran-read-as-c", FortranReadAsC, "orientation", _WHY + " a Fortran-ordered batch of 2 x 2."),
    ("refit-redraws", RefitRedraws, "seeding", _WHY + " a second fit of the same object (new features)."),
)
from .maxout_mutants import MinInsteadOfMax, OneOverM, UniformWeights
from .rff_mutants import (FreshDrawPerTransform, GammaAsBandwidth, HalfScale, IgnoresRandomState, SharedDraw,
                          VarianceGamma)
from .zoo_mutants import ArcCosHalfScale, ORFNoChi, SobolUnscrambled, SORFDenseUnnormalised


def axis_points(n: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """Domain of signed coordinate vectors ±e_j (j uniform): where <w, x> is one weight, not a CLT sum."""
    X = np.zeros((n, d))
    X[np.arange(n), rng.integers(0, d, n)] = rng.choice([-1.0, 1.0], n)
    return X


# ================================================================== new feature-map mutants
class CosSinDoubleScale(RandomFourierFeaturesCosSin):
    """Paired form [cos Wx, sin Wx] scaled by sqrt(2/m) — the phase form's constant pasted in.

    Each pair already contributes cos(w.(x - y)) with weight 1/m; sqrt(2/m) doubles the kernel.
    """

    def transform(self, X):
        return super().transform(X) * _S2


class IntegerInputs(RandomFourierFeatures):
    """The input is cast to integers before projecting (``np.asarray(X, dtype=int)``, code written for uint8 images)."""

    def transform(self, X):
        return super().transform(np.asarray(X).astype(np.int64).astype(np.float64))


class InPlaceCentring(RandomFourierFeatures):
    """Centres the caller's array in place (``X -= self.mean_``, a standardisation habit that saves a copy).

    Centring by a fixed vector is harmless for a translation-invariant kernel; doing it in place is
    not: the caller's data changes, and a second transform of the same array is centred twice.
    """

    def fit(self, X, y=None):
        super().fit(X)
        self.mean_ = np.asarray(X, dtype=np.float64).mean(axis=0)
        return self

    def transform(self, X):
        X = np.asarray(X, dtype=np.float64)
        X -= self.mean_
        return super().transform(X)


class ShapeKeyedCache(RandomFourierFeatures):
    """transform memoised by the input's shape: any other batch of the same shape gets stale features."""

    def transform(self, X):
        cache = self.__dict__.setdefault("_cache", {})
        key = np.shape(X)
        if key not in cache:
            cache[key] = super().transform(X)
        return cache[key]


class RadiansOnEveryCall(RandomFourierFeatures):
    """Phases stored in degrees by fit and converted to radians lazily, in place, on every transform call.

    The "already converted" flag is never set, so the cached state ``b_`` is multiplied by pi/180
    again on each call: the first transform is right, every later one uses other phases.
    """

    def fit(self, X, y=None):
        super().fit(X)
        self.b_ = np.degrees(self.b_)
        return self

    def transform(self, X):
        self.b_ *= np.pi / 180.0
        return super().transform(X)


class ReseedsGlobalRNG(RandomFourierFeatures):
    """``np.random.seed(random_state)`` then ``np.random.normal``: reproducible, but reseeds the caller's global RNG."""

    def fit(self, X, y=None):
        X = self._validate(X)
        np.random.seed(self.random_state)
        self.W_ = np.random.normal(0.0, math.sqrt(2.0 * self.gamma), size=(X.shape[1], self.n_components))
        self.b_ = np.random.uniform(0.0, 2.0 * np.pi, size=self.n_components)
        return self


class RowsSortedByNorm(RandomFourierFeatures):
    """Rows processed sorted by norm (for blocking) and the features returned in that order, not the input's."""

    def transform(self, X):
        X = np.asarray(X, dtype=np.float64)
        order = np.argsort(np.linalg.norm(X, axis=1), kind="stable")
        return super().transform(X[order])


class TransposedOutput(RandomFourierFeatures):
    """Returns (m, n) — the features of each input as a column (``cos(W.T @ X.T + b[:, None])``)."""

    def transform(self, X):
        return super().transform(X).T


class ORFScaleColumns(OrthogonalRandomFeatures):
    """ORF block built as Q diag(s) instead of diag(s) Q: the chi(d) radii scale columns, not rows.

    Row i is then sum_j Q_ij s_j e_j: its norm^2 = sum_j Q_ij^2 s_j^2 concentrates at d (not chi^2(d)),
    and its direction is no longer uniform.
    """

    def _draw(self, d, rng):
        blocks = []
        for _ in range(-(-self.n_components // d)):
            Qb = haar_qr(d, rng=rng)
            blocks.append(Qb * np.sqrt(rng.chisquare(d, size=d))[None, :])
        W = np.vstack(blocks)[: self.n_components] * self._sigma_inv
        self.W_ = np.ascontiguousarray(W.T, dtype=self._dtype)


class ORFChiDMinus1(OrthogonalRandomFeatures):
    """Row norms ~ chi(d - 1) instead of chi(d) (an off-by-one in the degrees of freedom)."""

    def _draw(self, d, rng):
        blocks = []
        for _ in range(-(-self.n_components // d)):
            blocks.append(np.sqrt(rng.chisquare(d - 1, size=d))[:, None] * haar_qr(d, rng=rng))
        W = np.vstack(blocks)[: self.n_components] * self._sigma_inv
        self.W_ = np.ascontiguousarray(W.T, dtype=self._dtype)


class FastfoodUnnormalisedG(FastfoodFeatures):
    """Fastfood with S_ii = s_i instead of s_i / ||G||_F: every row is ||G||_F ~ sqrt(p) times too long."""

    def _draw(self, d, rng):
        super()._draw(d, rng)
        self.S_ = self.S_ * np.linalg.norm(self.G_, axis=1, keepdims=True)


class SobolUnseededScramble(SobolFourierFeatures):
    """``qmc.Sobol(d, scramble=True)`` without passing the generator: scrambled from fresh OS entropy."""

    def _draw(self, d, rng):
        bits = int(math.ceil(math.log2(self.n_components)))
        u = qmc.Sobol(d, scramble=True).random_base2(bits)[: self.n_components]
        u = np.clip(u, 2.0**-53, 1.0 - 2.0**-53)
        self.W_ = np.ascontiguousarray((stats.norm.ppf(u) * self._sigma_inv).T)


class SobolMissingSqrt2(SobolFourierFeatures):
    """Inverse normal CDF written as erfinv(2u - 1), dropping the sqrt(2): frequencies ~ N(0, gamma) not N(0, 2 gamma)."""

    def _draw(self, d, rng):
        super()._draw(d, rng)
        u = stats.norm.cdf(self.W_ / self._sigma_inv)  # recover the uniforms the parent drew
        self.W_ = np.ascontiguousarray(special.erfinv(2.0 * u - 1.0) * self._sigma_inv)


class LaplacianGaussianFrequencies(LaplacianRandomFeatures):
    """Gaussian N(0, 2 gamma) frequencies (copied from the rbf sampler) for the Laplacian kernel: estimates the rbf kernel."""

    def _draw(self, d, rng):
        self.W_ = rng.normal(0.0, math.sqrt(2.0 * self.gamma), size=(d, self.n_components))
        self.b_ = rng.uniform(0.0, 2.0 * np.pi, size=self.n_components)


class LaplacianInverseScale(LaplacianRandomFeatures):
    """Cauchy(0, 1/gamma) instead of Cauchy(0, gamma): gamma read as a length scale; estimates exp(-||x - y||_1 / gamma)."""

    def _draw(self, d, rng):
        self.W_ = rng.standard_cauchy((d, self.n_components)) / self.gamma
        self.b_ = rng.uniform(0.0, 2.0 * np.pi, size=self.n_components)


class LaplacianHardCodedSeed(LaplacianRandomFeatures):
    """``np.random.default_rng(0)`` left in from debugging: the same features for every random_state."""

    def fit(self, X, y=None):
        X = self._validate(X)
        self.n_features_in_ = X.shape[1]
        self._draw(X.shape[1], np.random.default_rng(0))
        return self


class MaxoutQMinusOne(MaxoutFeatures):
    """Max over q - 1 of the q projections (``proj[..., 1:]``, an off-by-one slice): estimates the q - 1 kernel."""

    def transform(self, X):
        return self._projections(X)[..., 1:].max(axis=2) / np.sqrt(self.n_components)


# ================================================================== equivalent mutants
class PhaseHalfRange(RandomFourierFeatures):
    """b ~ U[0, pi] instead of U[0, 2 pi].

    Proof (exact equivalence in law of every Gram matrix): 2 cos(a + b) cos(c + b) =
    cos(a - c) + cos(a + c + 2b), and 2b mod 2 pi is U[0, 2 pi) both for b ~ U[0, pi] and for
    b ~ U[0, 2 pi].  Jointly over all inputs: b ~ U[0, 2 pi] is b' or b' + pi with b' ~ U[0, pi]
    and a fair coin, and b -> b + pi negates *every* feature of that column, leaving every
    product phi_i(x) phi_i(y) unchanged.  So the law of (Phi(x) . Phi(y))_{x, y} and of |Phi|
    is exactly that of the reference; contract and reproducibility are deterministic properties
    that the change does not touch.
    """

    def fit(self, X, y=None):
        super().fit(X)
        self.b_ = self.b_ / 2.0
        return self


class PhaseQuarterRange(RandomFourierFeatures):
    """b ~ U[0, pi/2] instead of U[0, 2 pi] (the issue's example) — NOT equivalent in law, yet passes every check.

    Conditionally on w it is biased: with theta = w.(x + y),
    E_b cos(theta + 2b) = (1/pi) int_0^pi cos(theta + u) du = -2 sin(theta) / pi != 0,
    e.g. theta = pi/2 gives -2/pi.  Unconditionally it is unbiased for every kernel with a
    symmetric spectral measure (w ~ -w, true for rbf): E_w sin(w.(x + y)) = 0, so
    E[2 cos(w.x + b) cos(w.y + b)] = k(x - y) + E_w E_b cos(theta + 2b) = k(x - y).  The m terms
    2 cos(w_i.x + b_i) cos(w_i.y + b_i) are still i.i.d., bounded in [-2, 2], with that mean.
    Proof that every check still passes: unbiasedness tests the mean over seeds (right);
    concentration needs |phi| sqrt(m) <= sqrt(2) (unchanged) and Hoeffding's bound, which holds
    for any i.i.d. bounded terms with the right mean; the error rate is Var(term)/m (slope -1);
    contract and reproducibility are deterministic properties the change does not touch.  Only
    the variance changes (the conditional bias adds E_w[(2 sin theta / pi)^2]-type terms), which
    no check constrains.  The Gram law differs, so this is "equivalent for every check we run",
    not equal in law; a variance claim, or a kernel whose spectral measure is not symmetric,
    would tell them apart.
    """

    def fit(self, X, y=None):
        super().fit(X)
        self.b_ = self.b_ / 4.0
        return self


class ReversedColumns(RandomFourierFeatures):
    """Feature columns in reverse order.  Proof: Phi(x) . Phi(y) is a sum over columns, invariant under any fixed permutation."""

    def transform(self, X):
        return super().transform(X)[:, ::-1]


class NegatedFrequencies(RandomFourierFeatures):
    """W -> -W.  Proof: N(0, 2 gamma I) is symmetric, so (-W, b) has the law of (W, b): the random map is equal in law."""

    def fit(self, X, y=None):
        super().fit(X)
        self.W_ = -self.W_
        return self


class ORFTransposedBlocks(OrthogonalRandomFeatures):
    """ORF blocks built from Q^T instead of Q.  Proof: Q Haar on O(d) => Q^T = Q^{-1} is Haar (inversion invariance
    of Haar measure on a compact group), independent of the chi radii: every block has the reference law."""

    def _draw(self, d, rng):
        blocks = []
        for _ in range(-(-self.n_components // d)):
            Qb = haar_qr(d, rng=rng)
            blocks.append(np.sqrt(rng.chisquare(d, size=d))[:, None] * Qb.T)
        W = np.vstack(blocks)[: self.n_components] * self._sigma_inv
        self.W_ = np.ascontiguousarray(W.T, dtype=self._dtype)


class SORFReversedDiagonals(SORF3):
    """SORF with the three diagonals applied in the opposite order (D_1 acting first instead of D_3).

    Proof: the D_i are i.i.d. Rademacher diagonals, so (D_3, D_2, D_1) has the law of
    (D_1, D_2, D_3): the random projection M = H D_a H D_b H D_c is equal in law.
    """

    def _draw(self, d, rng):
        super()._draw(d, rng)
        self.diags_ = np.ascontiguousarray(self.diags_[:, ::-1, :])


class FastfoodInversePermutation(FastfoodFeatures):
    """Fastfood with the inverse permutation (v[perm^{-1}] for v[perm]).  Proof: perm is uniform on S_p, and
    so is its inverse, independently of B, G, S: the block has the same law."""

    def _draw(self, d, rng):
        super()._draw(d, rng)
        self.perm_ = np.argsort(self.perm_, axis=1)


class ArcCosZeroInclusiveStep(ArcCosineFeatures):
    """Heaviside Theta(z) = [z >= 0] instead of [z > 0] (order 0).  Proof: for x != 0, w.x ~ N(0, |x|^2) has no atom at 0,
    so the two maps agree with probability 1 (the domain never contains x = 0 except with probability 0).  (An
    earlier version computed the order-0 step whatever ``order`` it was given — not equivalent at order 1 or 2, which
    the stateful check's moved-parameter invariant found.)"""

    def _features(self, X):
        if self.order != 0:  # the mutation is in the order-0 step; the other orders stay the reference's
            return super()._features(X)
        F = (X @ self.W_ >= 0).astype(X.dtype)
        F *= X.dtype.type(math.sqrt(2.0 / self.n_components))
        return F


# ================================================================== the entries
FM = "feature-map"
BUGS: list[Mutant] = [
    # ---------------------------------------------------------------- RFF (tests/rff_mutants.py)
    _m("rff-half-scale", FM, HalfScale, RBF, ["unbiasedness"], "scaling",
       "sqrt(1/m) instead of sqrt(2/m) in the phase form (seen when the paired form's constant is reused): "
       "E k_hat = k/2 everywhere; unbiasedness sees a factor 0.5 at every pair."),
    _m("rff-variance-gamma", FM, VarianceGamma, RBF, ["unbiasedness"], "distributions",
       "frequencies N(0, gamma I) instead of N(0, 2 gamma I) (exp(-gamma r^2) has spectral variance 2 gamma, a "
       "common slip): estimates exp(-gamma r^2 / 2) — too large at every pair with r > 0."),
    _m("rff-gamma-as-bandwidth", FM, GammaAsBandwidth, RBF, ["unbiasedness"], "scaling",
       "gamma read as a bandwidth sigma (sklearn's gamma vs GPy's lengthscale): w ~ N(0, I/gamma^2) estimates "
       "exp(-r^2/(2 gamma^2)); unbiasedness compares the mean with exp(-gamma r^2)."),
    _m("rff-shared-draw", FM, SharedDraw, RBF, ["error-rate"], "seeding",
       "all m features reuse the first (w, b) (a broadcasting bug in the draw): each feature is still unbiased, "
       "so only the error rate sees it — the MSE does not decay with m (slope 0, not -1)."),
    _m("rff-fresh-draw-per-transform", FM, FreshDrawPerTransform, RBF, ["contract"], "caching",
       "frequencies drawn in transform instead of fit (no cached state): two transforms of the same rows differ; "
       "the contract check recomputes and compares to round-off."),
    _m("rff-ignores-random-state", FM, IgnoresRandomState, RBF, ["reproducibility"], "seeding",
       "random_state dropped (fresh OS entropy; e.g. default_rng() with no argument): the same random_state gives "
       "different features; reproducibility fits twice with one random_state and compares exactly."),
    # ---------------------------------------------------------------- new RFF / paired-form bugs
    _m("rff-cossin-double-scale", FM, CosSinDoubleScale, RBF, ["unbiasedness", "concentration"], "scaling",
       "paired [cos, sin] form with the phase form's sqrt(2/m): E k_hat = 2k (unbiasedness), and every feature "
       "reaches 2/sqrt(m_out) > sqrt(2)/sqrt(m_out), breaking the declared bound C = sqrt(2) (concentration)."),
    _m("rff-integer-inputs", FM, IntegerInputs, RBF, ["unbiasedness"], "dtype",
       "inputs cast to int64 before the projection (image code reused on float data): the estimate is of "
       "k(round(x), round(y)); the designed pairs are at distances where rounding changes k."),
    _m("rff-in-place-centring", FM, InPlaceCentring, RBF, ["contract"], "input mutation",
       "the caller's array is centred in place (X -= mean_, saving a copy): harmless for the translation-invariant "
       "rbf kernel were it a copy, but the second transform of the same array is centred twice, so the "
       "contract's repeated transform differs."),
    _m("rff-shape-keyed-cache", FM, ShapeKeyedCache, RBF, ["contract"], "caching",
       "transform memoised by input shape (a cache key missing the data): single rows all get the first "
       "row's features; the contract compares transform(X[i:i+1]) with row i of transform(X)."),
    _m("rff-radians-on-every-call", FM, RadiansOnEveryCall, RBF, ["contract"], "caching",
       "lazy in-place degrees-to-radians conversion of the cached phases whose done-flag is never set: each "
       "transform converts the state again, so repeated transforms of the same rows differ (contract)."),
    _m("rff-reseeds-global-rng", FM, ReseedsGlobalRNG, RBF, ["reproducibility"], "seeding",
       "np.random.seed(random_state) + np.random.normal (pre-Generator code, still common): reproducible, but "
       "the caller's global RNG is reseeded.  The harness's guard compares numpy's global state around every "
       "call into the plug-in and refuses it at the preflight (status error, naming np.random).",
       expect="error"),
    _m("rff-rows-sorted-by-norm", FM, RowsSortedByNorm, RBF, ["contract"], "ordering",
       "rows reordered (sorted by norm for blocking) and not put back: row i of the output belongs to another "
       "input; the contract's row-by-row comparison with single-row transforms sees it."),
    _m("rff-transposed-output", FM, TransposedOutput, RBF, ["contract"], "orientation",
       "returns the (m, n) matrix (features of an input as a column; X @ W vs W.T @ X.T): the harness "
       "validates every output's shape and reports status error naming the shape — every check errors.",
       expect="error"),
    # ---------------------------------------------------------------- orthogonal / structured / QMC maps
    _m("orf-no-chi", FM, ORFNoChi, RBF, ["unbiasedness"], "radial laws",
       "ORF without the chi(d) row norms (rows of norm sqrt(d)/sigma, as Q sqrt(d) in some code): a fixed-radius "
       "estimate, biased by up to 0.037 at d = 16 (tests/zoo_mutants.py)."),
    _m("orf-scale-columns", FM, ORFScaleColumns, RBF, ["unbiasedness"], "orientation",
       "ORF block Q diag(s) instead of diag(s) Q (scaling on the wrong side): row norms concentrate at "
       "sqrt(d)/sigma and directions are not uniform — biased like the fixed-radius map."),
    _m("orf-chi-d-minus-1", FM, ORFChiDMinus1, RBF, ["unbiasedness"], "radial laws",
       "row norms chi(d-1) instead of chi(d) (an off-by-one in the degrees of freedom): estimates "
       "exp(-gamma r^2 (d-1)/d)-like values, 6% off in the exponent at d = 16."),
    _m("sorf-dense-unnormalised", FM, SORFDenseUnnormalised, STRUCTURED, ["unbiasedness"], "normalisation",
       "SORF with a dense, unnormalised Hadamard (alber2017's formula without its normalisation): rows d^{3/2} "
       "times too long; far beyond the declared |bias| <= 0.05."),
    _m("fastfood-unnormalised-g", FM, FastfoodUnnormalisedG, STRUCTURED, ["unbiasedness"], "normalisation",
       "Fastfood with S_ii = s_i instead of s_i / ||G||_F (Le et al.'s normalisation dropped): rows ~sqrt(p) "
       "times too long, the estimate collapses to ~0 off the diagonal."),
    _m("sobol-unscrambled", FM, SobolUnscrambled, RBF, ["reproducibility"], "seeding",
       "unscrambled Sobol points (scramble=False, to 'keep the low discrepancy'): the same frequencies for every "
       "random_state; reproducibility sees two random_state values give identical features (tests/zoo_mutants.py)."),
    _m("sobol-unseeded-scramble", FM, SobolUnseededScramble, RBF, ["reproducibility"], "seeding",
       "qmc.Sobol(d, scramble=True) without rng=... (scipy then scrambles from fresh entropy): the same random_state "
       "gives different features, which reproducibility compares exactly."),
    _m("sobol-missing-sqrt2", FM, SobolMissingSqrt2, RBF, ["unbiasedness"], "distributions",
       "inverse normal CDF written as erfinv(2u - 1) without the sqrt(2): frequencies N(0, gamma) instead of "
       "N(0, 2 gamma); estimates exp(-gamma r^2 / 2)."),
    # ---------------------------------------------------------------- Laplacian
    _m("laplacian-gaussian-frequencies", FM, LaplacianGaussianFrequencies, LAPLACIAN, ["unbiasedness"],
       "distributions",
       "Gaussian frequencies (copied from the rbf sampler) for exp(-gamma |x - y|_1): the spectral measure of the "
       "Laplacian kernel is Cauchy; estimates an rbf kernel instead."),
    _m("laplacian-inverse-scale", FM, LaplacianInverseScale, LAPLACIAN, ["unbiasedness"], "scaling",
       "Cauchy(0, 1/gamma) instead of Cauchy(0, gamma) (gamma taken as a length scale): estimates "
       "exp(-|x - y|_1 / gamma)."),
    _m("laplacian-hard-coded-seed", FM, LaplacianHardCodedSeed, LAPLACIAN, ["reproducibility"], "seeding",
       "default_rng(0) left in from debugging: different random_state values give identical features "
       "(reproducibility compares two random_state values to round-off)."),
    # ---------------------------------------------------------------- arc-cosine
    _m("arccos-half-scale", FM, ArcCosHalfScale, ARCCOS1, ["unbiasedness"], "scaling",
       "alber2017 eq. (10) as printed, sqrt(1/D) max(0, W^T x): half of Cho & Saul's kernel; unbiasedness "
       "diagnoses the factor 0.5 at every pair (tests/zoo_mutants.py)."),
    _m("arccos-shared-bank", FM, ArcCosSharedBank, ARCCOS1, ["error-rate"], "seeding",
       "a bank of 8 Gaussian directions tiled to m features (a broadcasting bug in the draw): each feature is "
       "unbiased, but the error stops falling beyond 8 features.  The map declares no bound, so its error rate is "
       "judged by the nested comparison (an estimate at 2w against the average of 2 independent ones at w)."),
    # ---------------------------------------------------------------- maxout
    _m("maxout-one-over-m", FM, OneOverM, MAXOUT, ["unbiasedness"], "scaling",
       "features h / m instead of h / sqrt(m) (the average taken twice): the estimate shrinks like 1/m; "
       "unbiasedness compares the mean over seeds with the true maxout kernel (tests/test_maxout_conformance.py)."),
    _m("maxout-uniform-weights", FM, UniformWeights, {**MAXOUT, "domain": axis_points}, ["unbiasedness"],
       "distributions",
       "weights U(-sqrt 3, sqrt 3) (unit variance, not Gaussian): on coordinate inputs <w, x> is one uniform "
       "weight, E max_4(U)^2 = 1.40 vs sigma^2(4) = 1.55; on dense inputs the CLT hides it, hence the "
       "axis-point domain (tests/test_maxout_conformance.py)."),
    _m("maxout-q-minus-one", FM, MaxoutQMinusOne, MAXOUT, ["unbiasedness"], "off-by-one stages",
       "max over q - 1 projections (a slice starting at 1): estimates the q - 1 maxout kernel, smaller on the "
       "diagonal (sigma^2(3) < sigma^2(4))."),
    # ---------------------------------------------------------------- compositional
    _m("compositional-printed-comment1", FM, printed_shallow, COMPOSITIONAL, ["unbiasedness"], "normalisation",
       "daniely2017 Comment 1 as printed, sqrt(2 R cos(theta + b)) instead of sqrt(2) R cos(theta + b): biased "
       "(k^0.4 on the shallow skeleton; tests/test_compositional_harness.py)."),
    # ---------------------------------------------------------------- corners (tests/mutants/explore_mutants.py)
    *[_m(f"corner-{name}", FM, cls, RBF, ["explore"], category, (cls.__doc__ or "") + " " + why,
         profiles=("default",)) for name, cls, category, why in _CORNER_BUGS],
]
EQUIVALENT: list[Mutant] = [
    _e("corner-ceil-cos-sin", FM, CeilCosSin, RBF, "scaling", (CeilCosSin.__doc__ or "") + " Proof: each of the "
       "k = ceil(m/2) pairs gives cos(w.x) cos(w.y) + sin(w.x) sin(w.y) = cos(w.(x - y)), whose mean is k(x, y) "
       "(Bochner), and the pairs are averaged with weight 1/k."),
    _e("rff-phase-half-range", FM, PhaseHalfRange, RBF, "distributions", PhaseHalfRange.__doc__),
    _e("rff-phase-quarter-range", FM, PhaseQuarterRange, RBF, "distributions", PhaseQuarterRange.__doc__),
    _e("rff-reversed-columns", FM, ReversedColumns, RBF, "ordering", ReversedColumns.__doc__),
    _e("rff-negated-frequencies", FM, NegatedFrequencies, RBF, "orientation", NegatedFrequencies.__doc__),
    _e("orf-transposed-blocks", FM, ORFTransposedBlocks, RBF, "orientation", ORFTransposedBlocks.__doc__),
    _e("sorf-reversed-diagonals", FM, SORFReversedDiagonals, STRUCTURED, "ordering", SORFReversedDiagonals.__doc__),
    _e("fastfood-inverse-permutation", FM, FastfoodInversePermutation, STRUCTURED, "ordering",
       FastfoodInversePermutation.__doc__),
    _e("arccos0-inclusive-step", FM, ArcCosZeroInclusiveStep, ARCCOS0, "normalisation", ArcCosZeroInclusiveStep.__doc__),
    _e("maxout-min-instead-of-max", FM, MinInsteadOfMax, MAXOUT, "orientation",
       "min_j <w_j, x> instead of the max (tests/test_maxout_conformance.py).  Proof: min_j <w_j, x> = "
       "-max_j <-w_j, x> and W -> -W preserves N(0, I), so the random map x -> Phi_min(x; W) has the law of "
       "x -> -Phi_max(x; W) jointly in all inputs, and every Gram entry (a product of two features) has "
       "exactly the reference's law."),
]

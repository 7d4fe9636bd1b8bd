"""The mutant library: realistic, documented bugs in every plug-in kind, and equivalent mutants.

``LIBRARY`` is a list of :class:`rfverify.studies.calibration.Mutant` entries.  A bug entry names the
check(s) that must fail on it (``caught_by``); an *equivalent* mutant changes the code in a way
that is provably harmless for every property rfverify checks, and must pass the whole suite (the
proof is in its ``doc``).  Each entry carries the verify options it is judged with — the same as
the correct implementation it was derived from, so a mutant is held to exactly what the correct
scheme declares.

Existing planted bugs are reused by import (``rff_mutants``, ``zoo_mutants``,
``broken_orthogonal``, ``quadrature_mutants``, the transform and maxout tests); the new ones are
defined here, each class or function with a docstring saying what is wrong.

Used by ``tests/test_mutant_library.py`` (every bug caught at the default seed and a few others;
every equivalent mutant passes) and by ``rfverify calibrate --mutants tests/mutant_library.py``
(power per mutant over many seeds).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special, stats
from scipy.linalg import hadamard
from scipy.stats import qmc

import broken_orthogonal as bo
import kernel_mutants as km
import quadrature_mutants as qm
from rff_mutants import (FreshDrawPerTransform, GammaAsBandwidth, HalfScale, IgnoresRandomState, SharedDraw,
                         VarianceGamma)
from rfverify.studies.calibration import Mutant
from rfverify.kernels.composition import kernel_product
from rfverify.implementations import composite as C
from rfverify.implementations import quadrature as Q
from rfverify.implementations.arccos import ArcCosineFeatures
from rfverify.implementations.compositional import zoo as cz
from rfverify.implementations.maxout import MaxoutFeatures
from rfverify.implementations.orf import OrthogonalRandomFeatures
from rfverify.implementations.orthogonal import haar_householder, haar_qr
from rfverify.implementations.laplacian import LaplacianRandomFeatures
from rfverify.implementations.qmc_features import SobolFourierFeatures
from rfverify.implementations.rff import RandomFourierFeatures, RandomFourierFeaturesCosSin
from rfverify.implementations.structured import fwht
from rfverify.implementations.structured_features import SORF3, FastfoodFeatures
from test_compositional_harness import printed_shallow
from test_maxout_conformance import MinInsteadOfMax, OneOverM, UniformWeights
from test_structured_transforms import (broken_sequency, broken_skip_last_stage, broken_wrong_axis,
                                        broken_wrong_normalisation)
from test_transform_checks import broken_axis0, broken_mutates_input, broken_pads
from zoo_mutants import ArcCosHalfScale, ORFNoChi, SobolUnscrambled, SORFDenseUnnormalised

__all__ = ["LIBRARY", "BUGS", "EQUIVALENT", "CATEGORIES"]

# ------------------------------------------------------------------ options (the zoo's declarations)
_S2 = math.sqrt(2.0)
RBF = {"kernel": "rbf", "kernel_params": {"gamma": 0.5}, "dim": 16, "bound": _S2}
STRUCTURED = {**RBF, "unbiased": False, "bias_bound": 0.05}
LAPLACIAN = {"kernel": "laplacian", "kernel_params": {"gamma": 0.5}, "dim": 16, "bound": _S2}
ARCCOS0 = {"kernel": "arccos", "kernel_params": {"order": 0}, "dim": 16, "bound": _S2}
ARCCOS1 = {"kernel": "arccos", "kernel_params": {"order": 1}, "dim": 16}
MAXOUT = {"kernel": "maxout", "kernel_params": {"q": 4}, "dim": 16}
COMPOSITIONAL = {"kernel": cz.shallow_kernel, "domain": cz.angle_domain, "dim": cz.SHALLOW_WIDTH, "bound": cz.BOUND}
ORTH_O = {"dim": 16, "group": "O"}
ORTH_SO = {"dim": 16, "group": "SO"}
HADAMARD = {"dim": 64, "matrix": "hadamard"}
HADAMARD_N = {"dim": 64, "matrix": "hadamard-normalized"}
SR33_DECL = {"dim": 8, "degree": 3, "unbiased": True}


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


# ================================================================== new orthogonal mutants
def householder_one_short(d, rng=None):
    """Stewart's product of Householder reflections with the last (2 x 2) reflection left out.

    ``Q = P_1 ... P_{d-2} D``: the trailing 2 x 2 block is only a random sign pattern, so
    the last two columns of Q are confined to two reflections of each other — not Haar.
    """
    gen = np.random.default_rng(rng)
    Qm = np.diag(gen.choice(np.array([-1.0, 1.0]), size=d))
    for k in range(d - 3, -1, -1):  # off by one: should start at d - 2
        u = gen.standard_normal(d - k)
        u /= np.linalg.norm(u)
        v = u.copy()
        v[0] += 1.0 if u[0] >= 0 else -1.0
        Qm[k:, :] -= np.outer(v, (2.0 / (v @ v)) * (v @ Qm[k:, :]))
    return Qm


def qr_positive_diagonal_of_q(d, rng=None):
    """QR of a Gaussian matrix "sign-corrected" with the signs of diag(Q) instead of diag(R): diag(Q) >= 0 always."""
    Qm, _ = np.linalg.qr(np.random.default_rng(rng).standard_normal((d, d)))
    return Qm * np.sign(np.diagonal(Qm))


# ================================================================== new transform mutants
def _hd_signs(d: int) -> np.ndarray:
    """A fixed, non-trivial ±1 diagonal (quadratic residues mod 7, no randomness)."""
    return np.where((np.arange(d) ** 2) % 7 < 4, 1.0, -1.0)


def hd_matrix(d: int) -> np.ndarray:
    """The declared matrix M = H_d D / sqrt(d) of :func:`hd_apply` (None where d is not a power of two)."""
    if d < 1 or d & (d - 1):
        return None
    return hadamard(d) * _hd_signs(d)[None, :] / math.sqrt(d)


def hd_apply(X):
    """Correct: rows M x = H D x / sqrt(d) (sign flips, then a normalised FWHT)."""
    X = np.asarray(X)
    return fwht(X * _hd_signs(X.shape[1]).astype(X.dtype), normalized=True)


def hd_apply_transposed(X):
    """Orientation bug: D H x / sqrt(d) = M^T x, i.e. X @ M instead of X @ M.T (the signs applied after the FWHT)."""
    X = np.asarray(X)
    return fwht(X, normalized=True) * _hd_signs(X.shape[1]).astype(X.dtype)


def fwht_in_float32(X):
    """Computes in float32 whatever the input (a GPU habit) and casts back: float64 inputs lose 9 digits."""
    X = np.asarray(X)
    return fwht(X.astype(np.float32)).astype(X.dtype)


def fwht_bit_length_normalisation(X):
    """Normalised FWHT dividing by 2**(d.bit_length() / 2) = sqrt(2 d): log2 d computed one too high."""
    X = np.asarray(X)
    d = X.shape[1]
    return fwht(X) / np.asarray(2.0 ** (d.bit_length() / 2), dtype=X.dtype)


class _ReusedOutputBuffer:
    """Returns a view of one preallocated output buffer per (shape, dtype): earlier results change under the caller."""

    def __init__(self) -> None:
        self._buffers: dict = {}

    def __call__(self, X):
        X = np.asarray(X)
        key = (X.shape, X.dtype.str)
        if key not in self._buffers:
            self._buffers[key] = np.empty(X.shape, dtype=fwht(X[:1]).dtype)
        out = self._buffers[key]
        out[...] = fwht(X)
        return out


#: A fresh instance per entry would also work; one module-level object is what such code looks like.
fwht_reused_buffer = _ReusedOutputBuffer()


# ================================================================== new quadrature mutants
class _SR33Variant(Q.QuadratureRule):
    """SR^{3,3} (Haar Q, rho ~ chi(d+2)) with one step replaced by ``_assemble``."""

    degree = 3
    name = "sr33-variant"

    def _nodes(self, d, gen):
        rho = np.full(d + 1, np.sqrt(gen.chisquare(d + 2)))
        return self._assemble(d, rho, haar_qr(d, gen), Q.simplex_vertices(d))

    def _assemble(self, d, rho, Qm, V):
        return Q.sr33_assemble(d, rho, Qm, V)


class SR33RolledWeights(_SR33Variant):
    """Weights rolled by one against the points (built in different loops): the centre's weight lands on a vertex."""

    name = "sr33-rolled-weights"

    def _assemble(self, d, rho, Qm, V):
        P, w = Q.sr33_assemble(d, rho, Qm, V)
        return P, np.roll(w, 1)


class SR33DroppedVertex(_SR33Variant):
    """Only d of the d + 1 simplex vertices (``range(d)``): the symmetric pairs no longer sum to 0 inside the sphere rule."""

    name = "sr33-dropped-vertex"

    def _assemble(self, d, rho, Qm, V):
        P, w = Q.sr33_assemble(d, rho[:-1], Qm, V[:-1])
        return P, w


class SR33FixedRadius(_SR33Variant):
    """Radius fixed at sqrt(d + 2) (the root-mean-square of chi(d+2)) instead of drawn: exact to degree 3, biased beyond."""

    name = "sr33-fixed-radius"

    def _nodes(self, d, gen):
        return Q.sr33_assemble(d, np.full(d + 1, math.sqrt(d + 2)), haar_qr(d, gen), Q.simplex_vertices(d))


class SR33GlobalRNG(_SR33Variant):
    """Draws the rotation from ``np.random`` (the global RNG) instead of the rng it is given."""

    name = "sr33-global-rng"

    def _nodes(self, d, gen):
        rho = np.full(d + 1, np.sqrt(gen.chisquare(d + 2)))
        return Q.sr33_assemble(d, rho, haar_qr(d, np.random.randint(2**31)), Q.simplex_vertices(d))


class SR33Float32Weights(_SR33Variant):
    """Weights computed and returned in float32 (a GPU port): they sum to 1 only to 1e-7."""

    name = "sr33-float32-weights"

    def _assemble(self, d, rho, Qm, V):
        P, w = Q.sr33_assemble(d, rho.astype(np.float32), Qm, V)
        return P, np.asarray(w, dtype=np.float32)


# ================================================================== new kernel mutants
def dependent_product_features(n_components, random_state):
    """Feature map of rbf x rbf whose two tensor factors are drawn from one shared random stream.

    The product rule needs *independent* draws of the two parts (E[phi_a phi_b] factorises only
    then); with the same stream the two draws coincide and the estimate is E[k_hat^2] != k^2.
    """
    tree = C.feature_tree(kernel_product("rbf", "rbf"), nodes={**C.NODES, "product": km.DependentProduct})
    return C.CompositeFeatures(tree, n_components, random_state)


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
    so the two maps agree with probability 1 (the domain never contains x = 0 except with probability 0)."""

    def _features(self, X):
        F = (X @ self.W_ >= 0).astype(X.dtype)
        F *= X.dtype.type(math.sqrt(2.0 / self.n_components))
        return F


def haar_transposed(d, rng=None):
    """Q^T of a Haar matrix (a sampler returning the transpose, the 'transposed output' orientation slip).

    Proof: Q^T = Q^{-1}, and Haar measure on a compact group is invariant under inversion, so Q^T
    has exactly the law of Q (and the same group: det Q^T = det Q).
    """
    return haar_qr(d, rng).T.copy()


def haar_polar(d, rng=None):
    """Haar via the polar factor U V^T of a Gaussian Z = U S V^T (instead of QR).

    Proof: for fixed orthogonal R, R Z ~ Z and polar(R Z) = R polar(Z) (the polar factor is
    unique for invertible Z, which holds with probability 1), so the law is left-invariant,
    and the left-invariant probability on O(d) is Haar (uniqueness of Haar measure).
    """
    U, _, Vt = np.linalg.svd(np.random.default_rng(rng).standard_normal((d, d)))
    return U @ Vt


def haar_so_by_row_flip(d, rng=None):
    """Haar on SO(d) by negating the first ROW when det = -1 (the reference negates the first column).

    Proof: with R = diag(-1, 1, ..., 1), Q -> R Q maps the coset O^- onto SO(d) and preserves the
    uniform law of the coset (left invariance), exactly as Q -> Q R does.
    """
    Qm = haar_qr(d, rng)
    if np.linalg.det(Qm) < 0:
        Qm[0, :] *= -1.0
    return Qm


def fwht_reversed_stages(X):
    """Radix-2 FWHT with the stages in the opposite order (h = d/2, ..., 2, 1) instead of (1, 2, ..., d/2).

    Proof: H_d = H_2 (x) ... (x) H_2 and stage h applies H_2 on one bit of the index, i.e.
    I (x) H_2 (x) I; these factors act on different tensor slots and commute, so every order
    gives H_d exactly.  Round-off: each output is still a sum of the d inputs with signs over
    log2 d rounded additions, within the same inner-product bound gamma_d the check derives.
    """
    Y = np.array(X, dtype=np.result_type(np.asarray(X).dtype, np.float32))
    n, d = Y.shape
    h = d // 2
    while h >= 1:
        v = Y.reshape(n, d // (2 * h), 2, h)
        a = v[:, :, 0, :].copy()
        b = v[:, :, 1, :]
        v[:, :, 0, :] = a + b
        v[:, :, 1, :] = a - b
        h //= 2
    return Y


class SR33RotatedSimplex(_SR33Variant):
    """SR^{3,3} with the simplex pre-rotated by a fixed orthogonal R0 (a different simplex construction).

    Proof: the points are rho Q R0 v_j; Q Haar => Q R0 Haar (right invariance), so every draw has
    the reference's law; the weights depend on rho only.
    """

    name = "sr33-rotated-simplex"

    def _assemble(self, d, rho, Qm, V):
        u = np.arange(1.0, d + 1.0)
        R0 = np.eye(d) - 2.0 * np.outer(u, u) / (u @ u)  # a fixed Householder reflection
        return Q.sr33_assemble(d, rho, Qm @ R0, V)


# ================================================================== the library
def _m(name, kind, impl, options, caught_by, category, doc, **kw):
    return Mutant(name=name, kind=kind, implementation=impl, options=options, caught_by=tuple(caught_by),
                  category=category, doc=doc, **kw)


def _e(name, kind, impl, options, category, doc):
    return Mutant(name=name, kind=kind, implementation=impl, options=options, caught_by=(), category=category,
                  doc=doc, equivalent=True)


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
]

OR = "orthogonal"
BUGS += [
    _m("qr-without-sign-correction", OR, bo.qr_without_sign_correction, ORTH_O, ["haar-entries"],
       "non-Haar samplers",
       "np.linalg.qr of a Gaussian matrix without Mezzadri's sign fix (the classic bug, e.g. old scipy "
       "recipes): LAPACK's sign convention makes Q_11 < 0 always — the entry signs are not symmetric."),
    _m("gram-schmidt-uniform", OR, bo.gram_schmidt_uniform, ORTH_O, ["haar-entries"], "distributions",
       "Gram-Schmidt of U[0, 1) entries (rand instead of randn): orthogonal, but the first column leans toward "
       "(1, ..., 1)/sqrt(d); haar-entries sees the entries' signs and squares off their Haar laws."),
    _m("sign-corrected-qr-uniform", OR, bo.sign_corrected_qr_uniform, ORTH_O, ["haar-entries"], "distributions",
       "Mezzadri's correction applied to a non-rotation-invariant (uniform) matrix: the sign fix does not make it "
       "Haar; haar-entries tests sign symmetry and the Beta(1/2, (d-1)/2) law of the squared entries."),
    _m("random-signed-permutation", OR, bo.random_signed_permutation, ORTH_O, ["haar-entries"],
       "non-Haar samplers", "signed permutation matrices (a 'random rotation' shortcut): orthogonal, but supported on a finite "
       "subgroup; every entry is 0 or +-1, far from Beta(1/2, (d-1)/2) (haar-entries)."),
    _m("so-claimed-as-o", OR, bo.so_claimed_as_o, ORTH_O, ["haar-determinant"], "non-Haar samplers",
       "Haar on SO(d) declared as O(d) (the determinant fix applied by default): det = +1 always instead of a fair "
       "sign; haar-determinant tests P(det = -1) = 1/2 with an exact binomial test."),
    _m("normalised-gaussian-rows", OR, bo.normalised_gaussian_rows, ORTH_O, ["orthogonality"], "normalisation",
       "rows normalised but never orthogonalised (the QR step forgotten): not orthogonal at all; orthogonality "
       "compares Q^T Q and Q Q^T with I to a derived round-off bound."),
    _m("butterfly-uniform-angles", OR, bo.butterfly_uniform_angles, ORTH_SO, ["haar-entries"], "non-Haar samplers",
       "Genz butterfly with uniform angles, claimed Haar on SO(d): in SO(d), O(d log d) to apply, but not Haar "
       "for d >= 4 (the entries' law differs)."),
    _m("householder-one-short", OR, householder_one_short, {"dim": 4, "group": "O"}, ["haar-entries"],
       "off-by-one stages",
       "Stewart's Householder product missing the last 2 x 2 reflection (loop from d - 3): the last two columns "
       "are fixed by the earlier reflections up to signs, not uniformly turned in their plane.  The missing "
       "factor is a 2-dimensional one, so the effect shrinks with d: judged at d = 4 (at d = 16 only the "
       "default profile's haar-entries sees it at the default seed)."),
    _m("qr-positive-diagonal-of-q", OR, qr_positive_diagonal_of_q, ORTH_O, ["haar-entries"], "non-Haar samplers",
       "'sign correction' by the signs of diag(Q) instead of diag(R): diag(Q) >= 0 always — the diagonal "
       "entries are not sign-symmetric."),
]

TR = "transform"
BUGS += [
    _m("fwht-sequency-order", TR, broken_sequency, HADAMARD, ["transform-exactness"], "ordering",
       "outputs in Walsh (sequency) order, as some libraries return them, claimed natural (Sylvester) order: "
       "exactness compares with X @ H.T row by row and diagnoses permuted outputs."),
    _m("fwht-skip-last-stage", TR, broken_skip_last_stage, HADAMARD, ["transform-exactness"], "off-by-one stages",
       "butterfly loop `while h < d // 2` stops one stage early: H_{d/2} (x) I_2 instead of H_d; exactness compares "
       "with the dense definition to a round-off bound."),
    _m("fwht-wrong-axis", TR, broken_wrong_axis, {"dim": 64, "matrix": "hadamard"}, ["transform-exactness"],
       "orientation",
       "transforms along axis 0 when the batch is square (a transposed layout), else along rows: only a batch "
       "of exactly d rows shows it — the default profile's batch sizes include 64 = d, the quick profile's "
       "(1, 3, 16) do not, so quick cannot catch it.", profiles=("default",)),
    _m("fwht-axis0", TR, broken_axis0, HADAMARD, ["transform-exactness"], "orientation",
       "transforms along the batch axis (axis=0) — columns instead of rows (the layout of a column-major caller); "
       "exactness sees it at every batch size n > 1."),
    _m("fwht-double-normalisation", TR, broken_wrong_normalisation, HADAMARD_N, ["transform-exactness"],
       "normalisation", "normalised FWHT divided by sqrt(d) again: H / d instead of H / sqrt(d); exactness diagnoses the constant "
       "factor 1/sqrt(d) against the declared H / sqrt(d)."),
    _m("fwht-unnormalised-claimed-normalised", TR, fwht, HADAMARD_N, ["transform-exactness"], "normalisation",
       "the unnormalised FWHT declared as H / sqrt(d) (a wrapper that forgot normalized=True): off by a factor "
       "sqrt(d), which exactness diagnoses."),
    _m("fwht-mutates-input", TR, broken_mutates_input, HADAMARD, ["transform-input"], "input mutation",
       "transforms the caller's array in place (fwht(X, inplace=True), to save a copy) without declaring it; "
       "transform-input compares the caller's array before and after apply."),
    _m("fwht-pads-width", TR, broken_pads, HADAMARD, ["transform-dimension"], "dimension",
       "zero-pads any width to the next power of two instead of refusing it: silently a different transform; "
       "transform-dimension calls it with widths the matrix is not defined for and expects a clear refusal."),
    _m("fwht-float32", TR, fwht_in_float32, HADAMARD, ["transform-exactness"], "dtype",
       "computes in float32 whatever the input (GPU habit) and casts back: a float64 caller gets 1e-7 errors, "
       "far above the float64 round-off bound."),
    _m("fwht-bit-length-normalisation", TR, fwht_bit_length_normalisation, HADAMARD_N, ["transform-exactness"],
       "off-by-one stages",
       "normalisation 2**(d.bit_length()/2) = sqrt(2d): log2(d) taken as bit_length, one too high; exactness "
       "sees the factor 1/sqrt(2) against H / sqrt(d)."),
    _m("hd-transposed", TR, hd_apply_transposed, {"dim": 64, "matrix": hd_matrix}, ["transform-exactness"],
       "orientation",
       "computes X @ M instead of X @ M.T for M = H D / sqrt(d) (signs applied after the FWHT); invisible for "
       "the symmetric H alone, visible once a diagonal makes M non-symmetric."),
    _m("fwht-reused-output-buffer", TR, fwht_reused_buffer, HADAMARD, ["transform-linearity"], "caching",
       "returns a view of one cached output buffer per shape: each result is right when returned, but the next "
       "call of the same shape overwrites it; linearity keeps three results alive and sees them alias."),
]

QU = "quadrature"
BUGS += [
    _m("sr33-wrong-radial-law", QU, qm.wrong_radial_law, SR33_DECL, ["rule-unbiasedness"], "radial laws",
       "chi(d) radii instead of chi(d + 2) (the radial law of RFF reused): exact to degree 3 for every draw, so "
       "exactness cannot see it, but E w_1^4 = 3d/(d+2); rule-unbiasedness t-tests degree-4 and cosine integrands."),
    _m("sr33-unnormalised-simplex", QU, qm.unnormalised_simplex, SR33_DECL, ["exactness"], "normalisation",
       "simplex vertices of norm sqrt(d/(d+1)) (Helmert rows without the scale): quadratics integrate to "
       "d/(d+1) of their value."),
    _m("sr33-missing-weight", QU, qm.missing_weight, SR33_DECL, ["exactness"], "weights",
       "outer weights 1/rho^2 instead of d/((d+1) rho^2) (eq. 5 with the factor dropped): the weights no longer "
       "sum to 1, which exactness sees already at degree 0."),
    _m("sr33-no-rotation", QU, qm.no_rotation, SR33_DECL, ["rule-unbiasedness"], "non-Haar samplers",
       "Q = I (the rotation left out): exact to degree 3 for every draw, but the simplex never turns, so "
       "E w_1^4 != 3; only rule-unbiasedness can see it."),
    _m("monte-carlo-claims-3", QU, qm.monte_carlo_claims_3, SR33_DECL, ["exactness"], "weights",
       "plain Monte Carlo behind a degree-3 claim (a rule registered with the wrong declaration): exact on "
       "constants only; exactness integrates random degree-1 polynomials and sees the error."),
    _m("antithetic-claims-3", QU, qm.antithetic_claims_3, SR33_DECL, ["exactness"], "weights",
       "antithetic Monte Carlo behind a degree-3 claim: exact on odd degrees and constants, not degree 2; "
       "exactness integrates random quadratics exactly (Wick moments) and compares."),
    _m("sr33-resample-radii", QU, qm.resample_radii, SR33_DECL, ["rule-unbiasedness"], "radial laws",
       "munkhoeva2018 footnote 3: radii redrawn until the centre weight is >= 0 — conditions the radial law, "
       "biasing the estimate; each draw stays exact to degree 3, so rule-unbiasedness is the check."),
    _m("sr33-rolled-weights", QU, SR33RolledWeights(), SR33_DECL, ["exactness"], "ordering",
       "weights built in a different order from the points (rolled by one): the centre weight sits on a vertex; "
       "exactness sees the first moments no longer cancel."),
    _m("sr33-dropped-vertex", QU, SR33DroppedVertex(), SR33_DECL, ["exactness"], "off-by-one stages",
       "d of the d + 1 simplex vertices (range(d) for range(d + 1)): quadratic moments off, weights do not sum to "
       "1; exactness sees it at degree 0."),
    _m("sr33-fixed-radius", QU, SR33FixedRadius(), SR33_DECL, ["rule-unbiasedness"], "radial laws",
       "radius fixed at sqrt(d + 2) (the root-mean-square of chi(d + 2)) instead of drawn: every draw is still "
       "exact to degree 3, and even degree-4 moments survive (a pair weight 1/rho^2 times rho^4 leaves "
       "E rho^2 = d + 2 either way), but degree 6 sees (d + 2)^2 instead of E rho^4 = (d + 2)(d + 4), and every "
       "non-polynomial integrand is off."),
    _m("sr33-global-rng", QU, SR33GlobalRNG(), SR33_DECL, ["rule-contract"], "seeding",
       "the rotation drawn from np.random instead of the rng passed in: the rule is not a function of rng; the "
       "harness's guard sees the global state change at the preflight and reports status error.",
       expect="error"),
    _m("sr33-float32-weights", QU, SR33Float32Weights(), SR33_DECL, ["exactness"], "dtype",
       "weights in float32 (a GPU port): exact only to 1e-7, far above the float64 round-off bound that "
       "exactness derives for a float64 rule."),
]

KE = "kernel"
BUGS += [
    _m("kernel-asymmetric-rbf", KE, km.asymmetric_rbf, {"dim": 16}, ["kernel-symmetry"], "orientation",
       "a copy-paste in the expanded distance, |x|^2 twice instead of |x|^2 + |y|^2: k(x, x) is still 1 (so "
       "normalisation cannot see it) but k(x, y) != k(y, x); kernel-symmetry compares K with K^T to a derived "
       "evaluation tolerance (tests/kernel_mutants.py)."),
    _m("kernel-tanh-not-psd", KE, km.tanh_kernel, {"dim": 16}, ["kernel-psd"], "positive definiteness",
       "the lecture's 'sigmoid' tanh(<x, y>) used as a kernel: not PSD for mixed-norm points; kernel-psd finds a "
       "point set whose Gram matrix has an eigenvalue below minus the LAPACK backward-error bound."),
    _m("kernel-rbf-sign-error", KE, km.rbf_sign_error, {"dim": 16}, ["kernel-psd"], "sign",
       "exp(+gamma |x - y|^2): the minus sign lost; the Gram matrix has negative eigenvalues, and kernel-psd "
       "reports the witness point set (tests/kernel_mutants.py)."),
    _m("kernel-rbf-truncated", KE, km.rbf_truncated, {"dim": 16}, ["kernel-psd"], "off-by-one stages",
       "1 - gamma |x - y|^2: the exponential's series stopped one term early; not PSD, and kernel-psd reports "
       "the witness point set (tests/kernel_mutants.py)."),
    _m("kernel-unnormalised-cosine", KE, km.unnormalised_cosine, {"dim": 16, "normalized": True},
       ["kernel-normalisation"], "normalisation",
       "a 'cosine similarity' that forgot to divide by the norms, claimed normalised: k(x, x) = |x|^2 != 1, "
       "which kernel-normalisation evaluates on every point set."),
    _m("kernel-twice-rbf-claimed-normalised", KE, km.twice_rbf(), {"dim": 16, "normalized": True},
       ["kernel-normalisation"], "scaling",
       "2 rbf (a correct kernel built with the scaling rule) claimed normalised: k(x, x) = 2, which "
       "kernel-normalisation evaluates on every point set."),
    _m("kernel-mix-without-sqrt-weights", KE, "rbf_laplacian_mix",
       {"dim": 16, "feature_map": km.wrong_weight_mix_features}, ["kernel-composition"], "weights",
       "the mixture w rbf + (1 - w) laplacian's feature map concatenates w phi_rbf and (1 - w) phi_lap instead of "
       "sqrt(w) phi_rbf and sqrt(1 - w) phi_lap: estimates w^2 rbf + (1 - w)^2 laplacian (half the kernel at "
       "w = 1/2); kernel-composition runs the unbiasedness test on the composite's feature map."),
    _m("kernel-dependent-product-draws", KE, kernel_product("rbf", "rbf"),
       {"dim": 16, "feature_map": dependent_product_features}, ["kernel-composition"], "seeding",
       "the tensor-product rule with both factors drawn from one random stream (seeded alike): the draws "
       "coincide, so the estimate is E[k_hat^2] = k^2 + Var k_hat, not k^2 (kernel-composition)."),
]

EQUIVALENT: list[Mutant] = [
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
    _e("haar-transposed", OR, haar_transposed, ORTH_O, "orientation", haar_transposed.__doc__),
    _e("haar-householder-for-qr", OR, haar_householder, ORTH_O, "non-Haar samplers",
       "Stewart's product of random Householder reflections instead of sign-corrected QR: both are Haar on O(d) "
       "(proof in rfverify.implementations.orthogonal.haar_householder's docstring)."),
    _e("haar-polar", OR, haar_polar, ORTH_O, "non-Haar samplers", haar_polar.__doc__),
    _e("haar-so-row-flip", OR, haar_so_by_row_flip, ORTH_SO, "orientation", haar_so_by_row_flip.__doc__),
    _e("fwht-reversed-stages", TR, fwht_reversed_stages, HADAMARD, "off-by-one stages", fwht_reversed_stages.__doc__),
    _e("sr33-rotated-simplex", QU, SR33RotatedSimplex(), SR33_DECL, "non-Haar samplers", SR33RotatedSimplex.__doc__),
    _e("kernel-rbf-by-expansion", KE, km.rbf, {"dim": 16, "normalized": True}, "formula",
       "the user's own rbf, exp(-max(|x|^2 + |y|^2 - 2 <x, y>, 0)), instead of the registry's.  Proof: the "
       "expansion equals |x - y|^2 exactly in real arithmetic (so the kernel is the rbf: symmetric, PSD, "
       "k(x, x) = 1); in floating point each value is within gamma_{d+2}-relative round-off of it, inside the "
       "evaluation tolerance the kernel checks derive, and the clip at 0 only removes round-off below 0."),
    _e("kernel-rbf-float32", KE, km.rbf_float32, {"dim": 16, "normalized": True}, "dtype",
       "the same rbf computed in float32.  Proof: the values are the rbf's to float32 round-off, and the kernel "
       "checks derive their tolerances from the unit round-off of the dtype the kernel returns (a float32 "
       "kernel is judged at float32 precision), so symmetry, PSD and normalisation hold within them."),
]

LIBRARY: list[Mutant] = BUGS + EQUIVALENT

#: The categories the issue asks the library to span (every one has at least one bug).
CATEGORIES = ("scaling", "distributions", "seeding", "caching", "dtype", "orientation", "normalisation", "ordering",
              "weights", "radial laws", "non-Haar samplers", "off-by-one stages", "input mutation")

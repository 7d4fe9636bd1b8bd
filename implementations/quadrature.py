"""Stochastic spherical-radial (SR) quadrature rules for Gaussian integrals, and features built on them.

A *rule* is a callable ``rule(d, rng) -> (points (n, d), weights (n,))``: one
random draw estimating ``I(f) = E_{w ~ N(0, I_d)} f(w)`` by
``sum_i weights[i] f(points[i])`` (munkhoeva2018 eq. 3-4; Genz & Monahan 1998).
Each reference rule is a :class:`QuadratureRule` whose public ``__call__``
validates and whose private ``_nodes`` hook computes (template method), and
which carries its declarations: ``degree`` (exact for every draw on all
polynomials of total degree <= degree) and ``unbiased``.

Reference rules (``Q`` a Haar matrix from :func:`haar_qr`, or a random
butterfly :class:`Butterfly`, which needs ``d`` a power of two):

===================  ======  ==================================================================
rule                 degree  one draw
===================  ======  ==================================================================
``SR11``             1       ``±rho Q e_1``, weights 1/2, ``rho ~ chi(d)``  (= RFF, §2.1)
``SR13``             1       ``±rho_i Q e_i``, weights 1/(2d), ``rho_i ~ chi(d)`` i.i.d. (= ORF, §2.2)
``SR33``             3       centre ``1 - d/rho^2``; ``±rho Q v_j`` with ``d / (2 (d+1) rho^2)``,
                             ``v_j`` the d+1 unit vertices of a regular simplex, ``rho ~ chi(d+2)`` (eq. 5)
``SR33`` per-vertex  3       ``rho_j ~ chi(d+2)`` i.i.d. per vertex; centre ``1 - sum_j d/((d+1) rho_j^2)``
``MonteCarlo``       0       ``n`` i.i.d. N(0, I) points, weights 1/n
``Antithetic``       1       ``n/2`` i.i.d. points and their negatives, weights 1/n
===================  ======  ==================================================================

Why SR33 is exact to degree 3 for *every* draw (any ``rho > 0``, any
orthogonal ``Q``): the unit simplex has ``sum_j v_j = 0`` and
``sum_j v_j v_j^T = (d+1)/d I``; the ``±`` pairs kill odd degrees, the
weights sum to ``1 - d/rho^2 + (d+1) d/((d+1) rho^2) = 1`` and for
``f = w^T A w`` the sum is ``d/((d+1) rho^2) rho^2 tr(Q^T A Q (d+1)/d) = tr A``.
Why it is unbiased for every integrable ``f``: for ``rho ~ chi(d+2)``,
``E[d/rho^2] = 1`` (so the centre weight has mean 0, whatever ``f(0)`` is)
and ``E[(d/rho^2) g(rho)] = E_{r ~ chi(d)} g(r)``; with ``Q`` Haar each
``Q v_j`` is uniform on the sphere, so each ``rho Q v_j`` term is an unbiased
``N(0, I)`` average.  With a butterfly ``Q`` (not Haar for ``d >= 4``, see
:class:`Butterfly`) exactness to degree 3 survives but unbiasedness does not
(measured by the quadrature ``unbiasedness`` check; the butterfly rules are
declared ``unbiased=False``).  For ``d <= 2`` the centre weight has infinite
variance (``E[rho^-4] = inf`` for ``chi(4)``).

Corrections to the paper's printed formulas (see the module note at
:data:`PAPER_ERRATA`).

Feature maps (§2.3 "explicit mapping"): :class:`QuadratureFeatures` turns a
rule into ``psi(x) = [a_i phi(w_i . x)]`` with ``a_i^2`` the rule's weights for
the rbf kernel (``phi = [cos, sin]``, frequencies scaled by ``sqrt(2 gamma)``)
and the arc-cosine kernels of order 0 (``phi = sqrt 2 Theta``) and 1
(``phi = sqrt 2 max(0, .)``).  ``n_components`` is the number of independent
rule draws averaged.  A negative centre weight ``a_0^2 < 0`` (probability
about 1/2, since ``E a_0^2 = 0``) cannot be put into *any* feature map whose
estimate is ``Re(Phi(X) Phi(Y)^*)``: such a Gram matrix is positive
semi-definite, while the SR33 estimate ``a_0^2 11^T + (PSD of rank <= 2(d+1)n)``
is not (and ``a_0 = i sqrt|a_0^2|`` gives ``a_0 conj(a_0) = +|a_0^2|``: the
conjugate cancels the sign).  So:

* arc-cosine kernels: ``phi(0) = 0`` (``max(0, 0) = 0``; the convention
  ``Theta(0) = 0`` changes ``f`` on a null set only, and the centre weight has
  mean zero, so the rule stays unbiased for *any* value of ``f(0)``): the
  centre term vanishes and the map is the full SR33 estimate;
* rbf (``f(0) = 1``): ``centre="drop"`` (default) omits the centre term, a
  zero-mean control variate — unbiased, PSD, but no longer exact on
  constants (``k_hat(x, x) = sum_j b_j``, mean 1); the exact signed estimate
  (with the centre) is :meth:`QuadratureFeatures.kernel`, a documented
  estimator that is not a plain Gram product.
  ``centre="resample"`` reproduces footnote 3 (redraw the ``rho_j`` until
  ``a_0^2 >= 0``): it is BIASED and exists only so the bias can be measured.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rfverify.errors import UsageError
from rfverify.implementations._base import FeatureMap

from rfverify.implementations.orthogonal import haar_qr
from rfverify.implementations.structured import Butterfly, is_power_of_two

__all__ = [
    "QuadratureRule",
    "SR11",
    "SR13",
    "SR33",
    "MonteCarlo",
    "Antithetic",
    "simplex_vertices",
    "QuadratureFeatures",
    "SR33RBF", "SR33ButterflyRBF", "SR33PerVertexRBF", "SR33ResampledRBF", "SR33ArcCos", "SR33ButterflyArcCos",
    "sr33_assemble",
    "RULES",
    "PAPER_ERRATA",
    "sr11_haar", "sr11_butterfly", "sr13_haar", "sr13_butterfly", "sr33_haar", "sr33_butterfly",
    "sr33_per_vertex_haar", "sr33_per_vertex_butterfly", "monte_carlo", "antithetic",
]

ROTATIONS = ("haar", "butterfly", "none")

#: Where munkhoeva2018's printed formulas are wrong or incomplete (verified in tests/test_quadrature.py).
PAPER_ERRATA = (
    "§2 SR^{(2l+2,p)}: the superscript should be (2l+1, p), the radial sum runs i = 0..l, and rho "
    "needs the index i (rho_i).",
    "§2.2 SR^{1,3} = sum_i (f(rho Q e_i) + f(-rho Q e_i))/2 and k_ORF = sum_i f(w_i) lack the factor 1/d "
    "(for f = 1 they give d, not 1); ORF draws one rho_i per row (S diagonal), not a single rho.",
    "§2.3 a_0 = sqrt(1 - sum_{j=1}^{d+1} d/rho^2) lacks the 1/(d+1) and the index j: a_0^2 = "
    "1 - sum_j d/((d+1) rho_j^2); as printed a_0^2 has mean 1 - (d+1) = -d.",
    "§2.3 the map needs a factor 1/sqrt(n) per feature when n rules are averaged (eq. 6), and "
    "W = rho ⊗ [...] is a row scaling (row j of ±QV times rho_j), not a Kronecker product.",
    "§2.3 vs §4.2: D = 2n(d+1) + 1 (one shared centre) vs n = D/(2(d+1)+1) (one centre per rule) "
    "contradict each other; with phi = [cos, sin] every count doubles.",
    "footnote 3: a_0^2 < 0 is not an implementation nuisance: E[a_0^2] = 0 exactly and a_0^2 is "
    "right-skewed, so it is negative with probability 0.31 at d = 2, rising toward one half as d grows "
    "(0.49 at d = 32; measured by the claim munkhoeva2018-fn3-two-times), and redrawing rho_j until "
    "a_0^2 >= 0 biases the estimate "
    "(measured); a negative a_0^2 also cannot be realised by a complex feature map (the conjugate "
    "cancels the sign).",
)


def simplex_vertices(d: int, *, normalise: bool = True) -> np.ndarray:
    """The d+1 unit vertices of a regular simplex centred at 0, as rows of a (d+1, d) array.

    ``v_j = sqrt((d+1)/d) H^T (e_j - 1/(d+1))`` with ``H`` the (d+1, d)
    Helmert basis of the complement of ``(1, ..., 1)``: ``|v_j| = 1``,
    ``v_i . v_j = -1/d`` (i != j), ``sum_j v_j = 0``,
    ``sum_j v_j v_j^T = (d+1)/d I``.  ``normalise=False`` omits the
    ``sqrt((d+1)/d)`` (vertices of norm ``sqrt(d/(d+1))``; a planted bug).
    """
    H = np.zeros((d + 1, d))
    for k in range(1, d + 1):
        H[:k, k - 1] = 1.0
        H[k, k - 1] = -float(k)
        H[:, k - 1] /= math.sqrt(k * (k + 1))
    # rows of H are H^T e_j; H^T 1 = 0 so the centring is implicit.
    return H * math.sqrt((d + 1) / d) if normalise else H.copy()


def _rotation(d: int, rotation: str, gen: np.random.Generator) -> np.ndarray:
    """A d x d orthogonal matrix: Haar (sign-corrected QR), a random butterfly, or the identity."""
    if rotation == "haar":
        return haar_qr(d, gen)
    if rotation == "butterfly":
        return Butterfly(d, gen).apply(np.eye(d)).T  # B e_i as columns: apply gives rows (B x)^T
    return np.eye(d)


def _chi(k: float, size: Any, gen: np.random.Generator) -> np.ndarray:
    return np.sqrt(gen.chisquare(k, size=size))


class QuadratureRule:
    """Template: ``rule(d, rng)`` validates ``d`` and ``rng``; ``_nodes(d, gen)`` computes.

    Attributes ``degree`` and ``unbiased`` are the rule's declarations.
    """

    degree: int = 0
    unbiased: bool = True
    rotation: str = "haar"
    name: str = "rule"

    def __call__(self, d: int, rng: Any = None) -> tuple[np.ndarray, np.ndarray]:
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
            raise UsageError(f"{self.name}: d must be a positive integer, got {d!r}")
        if self.rotation == "butterfly" and not is_power_of_two(int(d)):
            raise UsageError(f"{self.name}: a butterfly rotation needs d a power of two, got d={d}")
        gen = np.random.default_rng(rng)
        return self._nodes(int(d), gen)

    def _nodes(self, d: int, gen: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    @property
    def rfverify_space(self) -> dict[str, Any] | None:
        """The dimensions ``explore`` holds the rule to: a butterfly rotation exists for d = 2^k only
        (2^0 … 2^6, the quadrature kind's default d 1 … 64); every other rule is held to the default space."""
        return {"d_exp": (0, 6)} if self.rotation == "butterfly" else None

    def draw_many(self, d: int, n: int, rng: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """``n`` independent draws stacked: points (n * n_points, d), weights (n * n_points,)."""
        gen = np.random.default_rng(rng)
        out = [self(d, gen) for _ in range(n)]
        return np.vstack([p for p, _ in out]), np.concatenate([w for _, w in out])

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name}, degree={self.degree}, unbiased={self.unbiased})"


class SR11(QuadratureRule):
    """SR^{1,1} (§2.1): ``±rho Q e_1`` with weights 1/2, ``rho ~ chi(d)`` — random Fourier features.

    Exact on odd polynomials and constants (degree 1).  With a Haar ``Q``,
    ``rho Q e_1 ~ N(0, I)``: unbiased.
    """

    degree = 1

    def __init__(self, rotation: str = "haar") -> None:
        if rotation not in ROTATIONS:
            raise UsageError(f"rotation must be one of {ROTATIONS}, got {rotation!r}")
        self.rotation = rotation
        self.unbiased = rotation == "haar"
        self.name = f"sr11-{rotation}"

    def _nodes(self, d: int, gen: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        rho = _chi(d, None, gen)
        z = _rotation(d, self.rotation, gen)[:, 0]
        return np.vstack([rho * z, -rho * z]), np.full(2, 0.5)


class SR13(QuadratureRule):
    """SR^{1,3} (§2.2, corrected): ``±rho_i Q e_i``, weights ``1/(2d)``, ``rho_i ~ chi(d)`` i.i.d. — ORF.

    The spherical part (cross-polytope) is exact to degree 3 on the sphere;
    the degree-1 radial rule makes the whole rule exact to degree 1 only.
    """

    degree = 1

    def __init__(self, rotation: str = "haar") -> None:
        if rotation not in ROTATIONS:
            raise UsageError(f"rotation must be one of {ROTATIONS}, got {rotation!r}")
        self.rotation = rotation
        self.unbiased = rotation == "haar"
        self.name = f"sr13-{rotation}"

    def _nodes(self, d: int, gen: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        rho = _chi(d, d, gen)
        P = (_rotation(d, self.rotation, gen) * rho).T  # row i = rho_i Q e_i
        return np.vstack([P, -P]), np.full(2 * d, 0.5 / d)


class SR33(QuadratureRule):
    """SR^{3,3} (eq. 5): centre ``1 - d/rho^2`` and ``±rho Q v_j`` with ``d/(2 (d+1) rho^2)``.

    ``per_vertex=True``: one ``rho_j ~ chi(d+2)`` per vertex, centre weight
    ``1 - sum_j d/((d+1) rho_j^2)`` (§2.3).  ``n = 2(d+1) + 1`` points, the
    centre first.  The keyword arguments plant the bugs of the demonstrations
    (``radial_offset=0``: chi(d) instead of chi(d+2); ``normalise_simplex=False``;
    ``outer_factor=1`` drops the d/(d+1)); they are for tests only.
    """

    degree = 3

    def __init__(self, rotation: str = "haar", *, per_vertex: bool = False, radial_offset: int = 2,
                 normalise_simplex: bool = True, outer_factor: float | None = None) -> None:
        if rotation not in ROTATIONS:
            raise UsageError(f"rotation must be one of {ROTATIONS}, got {rotation!r}")
        self.rotation = rotation
        self.per_vertex = per_vertex
        self._dof_offset = radial_offset
        self._normalise = normalise_simplex
        self._outer = outer_factor
        self.unbiased = rotation == "haar"
        self.name = f"sr33{'-per-vertex' if per_vertex else ''}-{rotation}"
        self._vcache: dict[int, np.ndarray] = {}

    def radii(self, d: int, gen: np.random.Generator) -> np.ndarray:
        """The d+1 radii (all equal unless ``per_vertex``)."""
        dof = d + self._dof_offset
        return _chi(dof, d + 1, gen) if self.per_vertex else np.full(d + 1, _chi(dof, None, gen))

    def _vertices(self, d: int) -> np.ndarray:
        if d not in self._vcache:
            self._vcache[d] = simplex_vertices(d, normalise=self._normalise)
        return self._vcache[d]

    def _nodes(self, d: int, gen: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        rho = self.radii(d, gen)
        Q = _rotation(d, self.rotation, gen)
        return sr33_assemble(d, rho, Q, self._vertices(d), self._outer)

    def draw_many(self, d: int, n: int, rng: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """``n`` draws at once; Haar rotations by one batched sign-corrected QR (as :func:`haar_qr`)."""
        if self.rotation != "haar":
            return super().draw_many(d, n, rng)
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
            raise UsageError(f"{self.name}: d must be a positive integer, got {d!r}")
        gen = np.random.default_rng(rng)
        Z = gen.standard_normal((n, d, d))
        Q, R = np.linalg.qr(Z)
        s = np.sign(np.diagonal(R, axis1=1, axis2=2))
        s[s == 0] = 1.0
        Q = Q * s[:, None, :]
        pts, wts = [], []
        V = self._vertices(d)
        for k in range(n):
            P, w = sr33_assemble(d, self.radii(d, gen), Q[k], V, self._outer)
            pts.append(P)
            wts.append(w)
        return np.vstack(pts), np.concatenate(wts)


def sr33_assemble(d: int, rho: np.ndarray, Q: np.ndarray, V: np.ndarray,
                  outer_factor: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Points and weights of SR^{3,3} from radii ``rho`` (d+1,), rotation ``Q`` and vertices ``V`` (rows).

    Vertex pair j carries ``(d/(d+1)) (1/rho_j^2)`` in total (eq. 5's
    ``d/(d+1) * 1/(2 rho^2)`` per point); the centre carries one minus their
    sum.  ``outer_factor`` replaces d/(d+1) (a planted bug when 1).
    """
    factor = d / (d + 1) if outer_factor is None else float(outer_factor)
    pair = factor / rho**2  # total weight of the pair ±rho_j Q v_j
    P = (V @ Q.T) * rho[:, None]  # row j = rho_j Q v_j
    points = np.vstack([np.zeros((1, d)), P, -P])
    centre = 1.0 - float(np.sum(d / (d + 1) / rho**2))  # the centre keeps the true factor
    weights = np.concatenate([[centre], 0.5 * pair, 0.5 * pair])
    return points, weights


class MonteCarlo(QuadratureRule):
    """Plain Monte Carlo: ``n`` i.i.d. N(0, I) points with weights 1/n (``n = 2d + 3`` by default,
    the SR33 budget).  Exact on constants only: degree 0."""

    degree = 0
    rotation = "none"

    def __init__(self, n: int | None = None) -> None:
        self.n = n
        self.name = "monte-carlo"

    def _nodes(self, d: int, gen: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        n = 2 * d + 3 if self.n is None else self.n
        return gen.standard_normal((n, d)), np.full(n, 1.0 / n)


class Antithetic(QuadratureRule):
    """Antithetic Monte Carlo: ``n/2`` i.i.d. N(0, I) points and their negatives, weights 1/n
    (``n = 2d + 2`` by default).  Exact on constants and odd polynomials: degree 1."""

    degree = 1
    rotation = "none"

    def __init__(self, n: int | None = None) -> None:
        self.n = n
        self.name = "antithetic"

    def _nodes(self, d: int, gen: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        h = (d + 1) if self.n is None else max(1, self.n // 2)
        G = gen.standard_normal((h, d))
        return np.vstack([G, -G]), np.full(2 * h, 0.5 / h)


sr11_haar = SR11("haar")
sr11_butterfly = SR11("butterfly")
sr13_haar = SR13("haar")
sr13_butterfly = SR13("butterfly")
sr33_haar = SR33("haar")
sr33_butterfly = SR33("butterfly")
sr33_per_vertex_haar = SR33("haar", per_vertex=True)
sr33_per_vertex_butterfly = SR33("butterfly", per_vertex=True)
monte_carlo = MonteCarlo()
antithetic = Antithetic()

#: name -> reference rule instance.
RULES: dict[str, QuadratureRule] = {r.name: r for r in (
    sr11_haar, sr11_butterfly, sr13_haar, sr13_butterfly, sr33_haar, sr33_butterfly,
    sr33_per_vertex_haar, sr33_per_vertex_butterfly, monte_carlo, antithetic)}


# --------------------------------------------------------------------------
# Feature maps from rules (§2.3 "explicit mapping")
# --------------------------------------------------------------------------

KERNELS = ("rbf", "arccos")
CENTRE_MODES = ("drop", "resample")


def _phi(kernel: str, order: int, T: np.ndarray) -> list[np.ndarray]:
    """The feature nonlinearity phi(w.x) whose products average to the kernel (phi(0) = 0 for arccos)."""
    if kernel == "rbf":
        return [np.cos(T), np.sin(T)]
    if order == 0:
        return [math.sqrt(2.0) * (T > 0)]
    return [math.sqrt(2.0) * np.maximum(T, 0.0)]


class QuadratureFeatures(FeatureMap):
    """psi(x) = [sqrt(omega_i / n) phi(w_i . x)] over the points of ``n_components`` rule draws.

    ``kernel="rbf"``: k = exp(-gamma |x - y|^2) = E cos(sqrt(2 gamma) w.(x - y)),
    ``phi = [cos, sin]`` on ``sqrt(2 gamma) w``.  ``kernel="arccos"``: Cho &
    Saul's k_order = 2 E[Theta(w.x) Theta(w.y) (w.x)^order (w.y)^order],
    ``phi = sqrt 2 Theta(t) t^order`` with ``Theta(0) = 0``.
    ``rule``: a name in :data:`RULES` or any ``rule(d, rng)``.  Points at the
    origin (the SR33 centre) contribute ``phi(0) = 0`` for arccos; for rbf
    ``centre="drop"`` omits them (unbiased when the centre weight has mean 0,
    as in SR33) and ``centre="resample"`` is footnote 3's biased redraw
    (SR33 rules only).  :meth:`kernel` gives the exact signed rule estimate.
    """

    default_rule = "sr33-haar"
    default_kernel = "rbf"
    gamma: float
    order: int
    rule: Any  # a name in RULES or a rule(d, rng) callable
    kernel_name: str
    centre: str

    def __init__(self, n_components: int = 8, random_state: Any = None, *, gamma: float = 1.0, order: int = 0,
                 rule: Any = None, kernel: str | None = None, centre: str = "drop") -> None:
        super().__init__(n_components, random_state, gamma=gamma, order=order,
                         rule=self.default_rule if rule is None else rule,
                         kernel_name=self.default_kernel if kernel is None else kernel, centre=centre)

    def get_params(self, deep: bool = False) -> dict[str, Any]:
        # the constructor's ``kernel`` is stored as kernel_name (``kernel`` is the method below)
        return {"n_components": self.n_components, "random_state": self.random_state, "gamma": self.gamma,
                "order": self.order, "rule": self.rule, "kernel": self.kernel_name, "centre": self.centre}

    def set_params(self, **params: Any) -> "QuadratureFeatures":
        if "kernel" in params:
            params["kernel_name"] = params.pop("kernel")
        return super().set_params(**params)

    def _rule(self) -> Any:
        if isinstance(self.rule, str):
            if self.rule not in RULES:
                raise UsageError(f"unknown rule {self.rule!r}; known: {', '.join(RULES)}")
            return RULES[self.rule]
        return self.rule

    def _check_params(self) -> None:
        if self.kernel_name not in KERNELS:
            raise UsageError(f"kernel must be one of {KERNELS}, got {self.kernel_name!r}")
        if self.centre not in CENTRE_MODES:
            raise UsageError(f"centre must be one of {CENTRE_MODES}, got {self.centre!r}")
        if self.order not in (0, 1):
            raise UsageError(f"order must be 0 or 1, got {self.order!r}")
        self._require_positive("gamma")

    def _draw_rule(self, d: int, gen: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """One draw of the rule: (points, weights)."""
        rule = self._rule()
        if self.centre == "resample" and self.kernel_name == "rbf":
            if not isinstance(rule, SR33):
                raise UsageError("centre='resample' is defined for SR33 rules only")
            # footnote 3: redraw the radii until the centre weight is >= 0 (BIASED; for measurement).
            V = rule._vertices(d)
            while True:
                rho = rule.radii(d, gen)
                if 1.0 - float(np.sum(d / (d + 1) / rho**2)) >= 0.0:
                    break
            return sr33_assemble(d, rho, _rotation(d, rule.rotation, gen), V, rule._outer)
        P, w = rule(d, gen)
        return np.asarray(P, dtype=float), np.asarray(w, dtype=float)

    def _draw(self, d: int, gen: np.random.Generator) -> None:
        """``n_components`` rule draws: points ``points_``, weights ``weights_``; the map keeps the off-centre ones."""
        rule = self._rule()
        if hasattr(rule, "draw_many") and not (self.centre == "resample" and self.kernel_name == "rbf"):
            P, w = rule.draw_many(d, self.n_components, gen)
        else:
            pts, wts = [], []
            for _ in range(self.n_components):
                Pk, wk = self._draw_rule(d, gen)
                pts.append(Pk)
                wts.append(wk)
            P, w = np.vstack(pts), np.concatenate(wts)
        P = np.asarray(P, dtype=float)
        w = np.asarray(w, dtype=float) / self.n_components
        at_origin = ~np.any(P != 0.0, axis=1)
        self.centre_weight_ = float(np.sum(w[at_origin]))
        keep = ~at_origin
        if self.kernel_name == "rbf" and self.centre == "resample":
            keep = keep | at_origin  # the redraw made every centre weight >= 0
        if np.any(w[keep] < 0):
            raise UsageError("the rule has negative weights away from the origin; no feature map can carry them")
        self.points_ = P
        self.weights_ = w
        scale = math.sqrt(2.0 * self.gamma) if self.kernel_name == "rbf" else 1.0
        self.W_ = np.ascontiguousarray((scale * P[keep]).T)  # (d, m)
        self.a_ = np.sqrt(w[keep])

    def _fitted_dim(self) -> int | None:
        return self.W_.shape[0] if hasattr(self, "W_") else None

    def _features(self, X: np.ndarray) -> np.ndarray:
        T = X @ self.W_
        return np.hstack([self.a_ * f for f in _phi(self.kernel_name, self.order, T)])

    def kernel(self, X: Any, Y: Any) -> np.ndarray:
        """The exact (signed) rule estimate sum_i omega_i f_xy(w_i), centre included (f(0) = 1 for rbf)."""
        X = np.asarray(X, dtype=float)
        Y = np.asarray(Y, dtype=float)
        scale = math.sqrt(2.0 * self.gamma) if self.kernel_name == "rbf" else 1.0
        W = scale * self.points_.T
        TX, TY = X @ W, Y @ W
        K = np.zeros((X.shape[0], Y.shape[0]))
        for fx, fy in zip(_phi(self.kernel_name, self.order, TX), _phi(self.kernel_name, self.order, TY)):
            K += (fx * self.weights_) @ fy.T
        return K


class SR33RBF(QuadratureFeatures):
    """SR^{3,3} (Haar Q) features for rbf, centre dropped (unbiased, PSD)."""

    default_rule = "sr33-haar"
    default_kernel = "rbf"


class SR33ButterflyRBF(QuadratureFeatures):
    """SR^{3,3} with a butterfly Q (the paper's method B) for rbf, centre dropped."""

    default_rule = "sr33-butterfly"
    default_kernel = "rbf"


class SR33PerVertexRBF(QuadratureFeatures):
    """SR^{3,3} with one rho_j per vertex (Haar Q) for rbf, centre dropped."""

    default_rule = "sr33-per-vertex-haar"
    default_kernel = "rbf"


class SR33ResampledRBF(QuadratureFeatures):
    """Footnote 3: per-vertex SR^{3,3}, radii redrawn until a_0^2 >= 0 — BIASED (kept for measurement)."""

    default_rule = "sr33-per-vertex-haar"
    default_kernel = "rbf"

    def __init__(self, n_components: int = 8, random_state: Any = None, *, gamma: float = 1.0, order: int = 0,
                 rule: Any = None, kernel: str | None = None, centre: str = "resample") -> None:
        super().__init__(n_components, random_state, gamma=gamma, order=order, rule=rule, kernel=kernel,
                         centre=centre)


class SR33ArcCos(QuadratureFeatures):
    """SR^{3,3} (Haar Q) features for the arc-cosine kernel of order 0 or 1 (phi(0) = 0: no centre)."""

    default_rule = "sr33-haar"
    default_kernel = "arccos"


class SR33ButterflyArcCos(QuadratureFeatures):
    """SR^{3,3} with a butterfly Q for the arc-cosine kernel of order 0 or 1."""

    default_rule = "sr33-butterfly"
    default_kernel = "arccos"

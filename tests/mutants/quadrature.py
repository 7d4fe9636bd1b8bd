"""Quadrature-rule mutants: broken SR^{3,3} rules (planted in :mod:`.quadrature_mutants` and here)
and an equivalent one."""

from __future__ import annotations

import math

import numpy as np

from rfverify.studies.calibration import Mutant
from rfverify.implementations import quadrature as Q
from rfverify.implementations.orthogonal import haar_qr

from . import quadrature_mutants as qm
from ._common import SR33_DECL, _e, _m


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


# ================================================================== equivalent mutants
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


# ================================================================== the entries
QU = "quadrature"
BUGS: list[Mutant] = [
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
EQUIVALENT: list[Mutant] = [
    _e("sr33-rotated-simplex", QU, SR33RotatedSimplex(), SR33_DECL, "non-Haar samplers", SR33RotatedSimplex.__doc__),
]

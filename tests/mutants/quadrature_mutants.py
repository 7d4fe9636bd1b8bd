"""Deliberately broken quadrature rules, each with the check that must catch it.

Each differs from SR^{3,3} (eq. 5, Haar Q, rho ~ chi(d+2)) by one realistic bug and is verified
with SR^{3,3}'s declarations (degree 3, unbiased).  ``CAUGHT_BY`` maps each to its check.
"""

from __future__ import annotations

import numpy as np

from rfverify.implementations.quadrature import SR33, Antithetic, MonteCarlo, sr33_assemble, _rotation

#: chi(d) radii instead of chi(d+2): still exact to degree 3 (exactness holds for any rho), but
#: E[d / rho^2] = d / (d - 2) != 1, so e.g. E w_1^4 = 3 d / (d + 2).
wrong_radial_law = SR33("haar", radial_offset=0)
#: simplex vertices of norm sqrt(d/(d+1)): quadratics integrate to d/(d+1) of their value.
unnormalised_simplex = SR33("haar", normalise_simplex=False)
#: outer weights 1/rho^2 instead of d/((d+1) rho^2): the weights no longer sum to 1.
missing_weight = SR33("haar", outer_factor=1.0)
#: Q = I: exact to degree 3 for every draw, but the simplex never turns, so E w_1^4 != 3.
no_rotation = SR33("none")
#: plain Monte Carlo behind a degree-3 claim: exact on constants only.
monte_carlo_claims_3 = MonteCarlo()
#: antithetic Monte Carlo behind a degree-3 claim: exact on odd degrees and constants, not degree 2.
antithetic_claims_3 = Antithetic()


class ResampleRadii:
    """Footnote 3: per-vertex SR^{3,3}, the radii redrawn until the centre weight a_0^2 >= 0 (biased)."""

    name = "resample-radii"

    def __init__(self, rotation: str = "haar") -> None:
        self.base = SR33(rotation, per_vertex=True)

    def __call__(self, d: int, rng=None):
        gen = np.random.default_rng(rng)
        while True:
            rho = self.base.radii(d, gen)
            if 1.0 - float(np.sum(d / (d + 1) / rho**2)) >= 0.0:
                break
        return sr33_assemble(d, rho, _rotation(d, "haar", gen), self.base._vertices(d))


resample_radii = ResampleRadii()

CAUGHT_BY = {
    "wrong_radial_law": ("rule-unbiasedness", None),
    "unnormalised_simplex": ("exactness", 2),
    "missing_weight": ("exactness", 0),
    "no_rotation": ("rule-unbiasedness", None),
    "monte_carlo_claims_3": ("exactness", 1),
    "antithetic_claims_3": ("exactness", 2),
}

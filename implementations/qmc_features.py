"""Quasi-Monte Carlo random Fourier features from scrambled Sobol and shifted Halton points.

Frequencies w_i = sqrt(2 gamma) Φ^{-1}(u_i) (coordinate-wise inverse normal CDF) with
u_1..u_m the first m points of a low-discrepancy sequence in [0, 1)^d from
``scipy.stats.qmc`` (Yang, Sindhwani, Avron & Mahoney 2014).  Unbiasedness needs every
u_i to be *marginally* uniform on [0, 1)^d, so each fit randomises the sequence:

* ``SobolFourierFeatures``: ``qmc.Sobol(d, scramble=True)`` — linear matrix scrambling
  plus a random digital shift (Owen-type); the digital shift alone makes each point
  uniform on the 2^-32 grid, i.e. uniform to within float resolution.  The sequence is
  drawn in a power-of-two length (Sobol's balance properties) and truncated to m.
* ``HaltonFourierFeatures``: ``qmc.Halton(d, scramble=True)`` (random digit permutations)
  followed by a Cranley–Patterson rotation u -> (u + U) mod 1, U ~ U[0, 1)^d: each point
  is then exactly uniform, so the estimate is exactly unbiased.

Points are clipped to [2^-53, 1 - 2^-53] before Φ^{-1} (a grid point at 0 would give an
infinite frequency; the clip moves probability < 2^-30 per point).  Paired outputs
sqrt(1/m)[cos Wx, sin Wx] (2m outputs, C = sqrt(2)).  Without the randomisation the
points are deterministic: the same features for every random_state (caught by the
reproducibility check, see ``tests/mutants/zoo_mutants.py``).
"""

from __future__ import annotations

import numpy as np
from scipy import stats
from scipy.stats import qmc

from rfverify.implementations._fourier import FourierBase, next_power_of_two

__all__ = ["QMCFourierFeatures", "SobolFourierFeatures", "HaltonFourierFeatures", "qmc_uniforms"]

_TINY = 2.0**-53


def qmc_uniforms(sequence: str, m: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """m randomised low-discrepancy points in (0, 1)^d, each marginally uniform."""
    if sequence == "sobol":
        u = qmc.Sobol(d, scramble=True, rng=rng).random_base2(int(np.log2(next_power_of_two(m))))[:m]
    elif sequence == "halton":
        u = qmc.Halton(d, scramble=True, rng=rng).random(m)
        u = np.mod(u + rng.random(d), 1.0)  # Cranley–Patterson rotation
    else:
        raise ValueError(f"unknown sequence {sequence!r}")
    return np.clip(u, _TINY, 1.0 - _TINY)


class QMCFourierFeatures(FourierBase):
    """Randomised QMC Fourier features; ``W_`` (d, m) C-contiguous."""

    sequence = "sobol"

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        u = qmc_uniforms(self.sequence, self.n_components, d, rng)
        self.W_ = np.ascontiguousarray((stats.norm.ppf(u) * self._sigma_inv).T, dtype=self._dtype)

    def _project(self, X: np.ndarray) -> np.ndarray:
        return X @ self.W_


class SobolFourierFeatures(QMCFourierFeatures):
    """Scrambled Sobol points (LMS + digital shift)."""

    sequence = "sobol"


class HaltonFourierFeatures(QMCFourierFeatures):
    """Scrambled Halton points with a Cranley–Patterson shift."""

    sequence = "halton"

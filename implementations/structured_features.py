"""Structured random Fourier features: SORF (1, 2, 3 HD blocks) and Fastfood, via our FWHT.

Both approximate the Gaussian projection W ~ N(0, I/sigma^2) (sigma = 1/sqrt(2 gamma)) by
``ceil(m/p)`` independent p x p structured blocks, p = d rounded up to a power of two,
applied in O(p log p) per block and row with :func:`~rfverify.implementations.structured.fwht`
(never a dense Hadamard matrix); only O(m) random numbers are stored.

* **SORF** (Yu et al. 2016; alber2017 §4 "Fast kernel machines"; munkhoeva2018's ROM):
  W_b = (sqrt(p)/sigma) H D_1 ... H D_k with H = H_p/sqrt(p) normalised and D_i Rademacher,
  k = ``n_blocks`` in {1, 2, 3} (:class:`~rfverify.implementations.structured.HDProduct`).
  Every row has norm exactly sqrt(p)/sigma instead of a chi(p)/sigma radius, and the
  directions are not uniform, so SORF is **biased at finite d** (the bias -> 0 as d grows
  for k = 3).  With k = 1 the rows are (1/sigma)(h_i ⊙ D_1): the estimate's mean is
  prod_j cos(delta_j/sigma), not exp(-||delta||^2 / (2 sigma^2)) — a bias that no number
  of features removes, so the MSE stalls (alber2017 Fig. 4).
* **Fastfood** (Le, Sarlós & Smola 2013): V_b = (1/(sigma sqrt p)) S H G Π H B
  (:class:`~rfverify.implementations.structured.Fastfood`); rows have chi(p)/sigma norms
  but their directions are not exactly uniform: biased at finite d, too.

Input padding: x is padded with zeros to length p.  This is mathematically harmless —
the kernel of [x, 0] and [y, 0] equals k(x, y), and a Gaussian row restricted to its first
d coordinates is N(0, I_d/sigma^2) — unlike silently padding or truncating the transform.

Outputs are the paired form sqrt(1/m)[cos Wx, sin Wx] (2m outputs, C = sqrt(2)).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rfverify.implementations._fourier import FourierBase, next_power_of_two, pad_columns
from rfverify.implementations.structured import Fastfood, HDProduct, fwht

__all__ = ["StructuredOrthogonalFeatures", "SORF1", "SORF2", "SORF3", "FastfoodFeatures", "fixed_radius_bias"]


class StructuredOrthogonalFeatures(FourierBase):
    """SORF with ``n_blocks`` HD factors; ``diags_`` (n_stacked, n_blocks, p) holds all randomness."""

    _params = ("gamma", "n_blocks", "dtype")
    n_blocks_default = 3

    def __init__(self, n_components: int = 100, random_state: Any = None, gamma: float = 1.0,
                 n_blocks: int | None = None, dtype: Any = np.float64) -> None:
        super().__init__(n_components, random_state, gamma=gamma, dtype=dtype)
        self.n_blocks = self.n_blocks_default if n_blocks is None else n_blocks

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        p = next_power_of_two(d)
        nb = -(-self.n_components // p)
        self.diags_ = np.stack([HDProduct(p, self.n_blocks, rng, dtype=self._dtype).diags for _ in range(nb)])

    def _project(self, X: np.ndarray) -> np.ndarray:
        nb, k, p = self.diags_.shape
        n = X.shape[0]
        buf = np.broadcast_to(pad_columns(X, p), (nb, n, p)).copy()
        flat = buf.reshape(nb * n, p)
        for i in range(k - 1, -1, -1):  # D_k acts first (hd_block's convention)
            buf *= self.diags_[:, i, None, :]
            fwht(flat, inplace=True, normalized=True)  # x H / sqrt(p): the scale is fused into the last pass
        flat *= X.dtype.type(math.sqrt(p) * self._sigma_inv)
        # (nb, n, p) -> (n, nb * p): feature j of block b is column b p + j
        return np.ascontiguousarray(buf.transpose(1, 0, 2)).reshape(n, nb * p)[:, : self.n_components]


class SORF1(StructuredOrthogonalFeatures):
    """SORF with one HD block (biased; stalls)."""

    n_blocks_default = 1


class SORF2(StructuredOrthogonalFeatures):
    """SORF with two HD blocks."""

    n_blocks_default = 2


class SORF3(StructuredOrthogonalFeatures):
    """SORF with three HD blocks (Yu et al. 2016)."""

    n_blocks_default = 3


class FastfoodFeatures(FourierBase):
    """Fastfood: stacked V_b = (1/(sigma sqrt p)) S H G Π H B; B_, perm_, G_, S_ are (n_stacked, p)."""

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        p = next_power_of_two(d)
        nb = -(-self.n_components // p)
        blocks = [Fastfood(p, rng, sigma=1.0 / self._sigma_inv, dtype=self._dtype) for _ in range(nb)]
        self.B_ = np.stack([b.B for b in blocks])
        self.perm_ = np.stack([b.perm for b in blocks])
        self.G_ = np.stack([b.G for b in blocks])
        self.S_ = np.stack([b.S for b in blocks])

    def _project(self, X: np.ndarray) -> np.ndarray:
        nb, p = self.B_.shape
        n = X.shape[0]
        buf = pad_columns(X, p)[None, :, :] * self.B_[:, None, :]
        fwht(buf.reshape(nb * n, p), inplace=True)
        buf = np.take_along_axis(buf, np.broadcast_to(self.perm_[:, None, :], buf.shape), axis=2)
        buf *= self.G_[:, None, :]
        fwht(buf.reshape(nb * n, p), inplace=True)
        buf *= (self.S_ * self._sigma_inv / math.sqrt(p)).astype(X.dtype)[:, None, :]
        return np.ascontiguousarray(buf.transpose(1, 0, 2)).reshape(n, nb * p)[:, : self.n_components]


def fixed_radius_bias(p: int, z_max: float = 20.0, n_grid: int = 200001) -> float:
    """sup_z |E cos(sqrt(p) z u_1) - exp(-z^2/2)|, u uniform on S^{p-1}: the bias of rows with the
    fixed norm sqrt(p)/sigma and *uniform* directions (an idealised SORF), z = ||x - y|| / sigma.

    E cos(r u_1) = Γ(p/2) (2/r)^{p/2-1} J_{p/2-1}(r) (the characteristic function of the uniform law
    on the sphere); evaluated on a grid of z in (0, z_max] in double precision (checked for p <= 64:
    p = 16: 0.0368, p = 64: 0.0086; for large p the Bessel evaluation loses accuracy).
    """
    from scipy.special import gammaln, jv

    z = np.linspace(z_max / n_grid, z_max, n_grid)
    r = math.sqrt(p) * z
    nu = p / 2 - 1
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        om = np.exp(gammaln(p / 2) + nu * np.log(2 / r)) * jv(nu, r)
    ok = np.isfinite(om)
    return float(np.max(np.abs(om[ok] - np.exp(-z[ok] ** 2 / 2))))

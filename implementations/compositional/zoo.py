"""Plug-in forms of the compositional schemes for the rfverify harness (no wrappers in user code).

Each skeleton comes as a *factory* ``make(n_components, random_state)`` returning a
:class:`~.features.CompositionalFeatures` (the plug-in contract's factory form), the exact
skeleton kernel as a callable ``k(X, Y) -> Gram`` and a domain callable
``domain(n, d, rng) -> X``; all are module attributes, so the harness can name them in its
reproduce command (``--kernel MODULE:ATTR --domain MODULE:ATTR``)::

    rfverify check feature-map rfverify.implementations.compositional.zoo:shallow_features \\
        --kernel rfverify.implementations.compositional.zoo:shallow_kernel \\
        --domain rfverify.implementations.compositional.zoo:angle_domain --dim 16 --bound 1.4142135623730951

Skeletons (circle base spaces 𝕋 given by angles, Example 2; one input column per input node):

* ``shallow``: :func:`~.skeleton.shallow_skeleton` over :data:`SHALLOW_WIDTH` = 16 inputs,
  σ̂(ρ) = exp((ρ − 1)/4) – the Gaussian kernel ``exp(-‖u - u'‖²/8)`` of the unit vector
  ``u = (e^{iθ_j})_j / √n`` (§6, the shallow structure);
* ``deep1d``: :func:`~.skeleton.deep_1d_skeleton` of length :data:`DEEP1D_LENGTH` = 24 (width 5
  stride 2 with exp((ρ − 1)/4), width 4 stride 2 with ReLU, a fully connected ReLU node).

Features: the corrected Comment 1 conversion ``√2 Re(ψ e^{ib})`` (one real feature per sampled
feature) *without* de-duplication, so that each of the m = ``n_components`` output coordinates is
``√2 Re(ψ e^{ib}) / √m`` with ``|ψ| = 1`` (a product of unit-modulus circle features): every
coordinate is bounded by ``C/√m`` with **C = √2** by construction (:data:`BOUND`), which is the
form the harness's Hoeffding check (Theorem 3) needs.  De-duplication (§6) leaves the estimate
unchanged but merges coordinates into ``√(c/m)``-weighted ones, so the per-coordinate bound
would not hold for them; it is exercised by ``tests/test_compositional.py``.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from rfverify.errors import UsageError

from rfverify.implementations.compositional.features import CompositionalFeatures
from rfverify.implementations.compositional.skeleton import Skeleton, deep_1d_skeleton, shallow_skeleton, skeleton_kernel

__all__ = [
    "SHALLOW_WIDTH",
    "DEEP1D_LENGTH",
    "BOUND",
    "shallow",
    "deep1d",
    "shallow_features",
    "deep1d_features",
    "shallow_kernel",
    "deep1d_kernel",
    "angle_domain",
]

#: Input width (number of circle inputs) of the shallow zoo skeleton.
SHALLOW_WIDTH = 16
#: Input width (sequence length) of the 1-D deep zoo skeleton.
DEEP1D_LENGTH = 24
#: C with |feature|·√m ≤ C for the zoo maps: |√2 Re(ψ e^{ib})| ≤ √2 since |ψ| = 1 (circle leaves).
BOUND = math.sqrt(2.0)


@lru_cache(maxsize=None)
def shallow() -> Skeleton:
    """The shallow zoo skeleton (built once)."""
    return shallow_skeleton(SHALLOW_WIDTH)


@lru_cache(maxsize=None)
def deep1d() -> Skeleton:
    """The 1-D deep zoo skeleton (built once)."""
    return deep_1d_skeleton(DEEP1D_LENGTH)


def shallow_features(n_components: int, random_state: int | None) -> CompositionalFeatures:
    """Factory: Algorithm 1 features of the shallow skeleton (corrected Comment 1, no de-duplication)."""
    return CompositionalFeatures(shallow(), n_components, random_state, conversion="comment1", deduplicate=False)


def deep1d_features(n_components: int, random_state: int | None) -> CompositionalFeatures:
    """Factory: Algorithm 1 features of the 1-D deep skeleton (corrected Comment 1, no de-duplication)."""
    return CompositionalFeatures(deep1d(), n_components, random_state, conversion="comment1", deduplicate=False)


def shallow_kernel(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Exact Gram of the shallow skeleton (§5 recurrence): exp((mean_j cos(θ_j - θ'_j) - 1)/4)."""
    return skeleton_kernel(shallow(), X, Y)


def deep1d_kernel(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Exact Gram of the 1-D deep skeleton (§5 recurrence)."""
    return skeleton_kernel(deep1d(), X, Y)


#: Range of |E cos(θ_j - θ'_j)| over the rows of :func:`angle_domain` (near-equal to near-independent).
CORRELATION_RANGE = (0.999, 0.02)


def angle_domain(n: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """n rows of d angles (circle base spaces): row i is ``c_i + s_i z``, z ~ N(0, I_d), c_i ∈ {0, π}.

    The harness pairs row i of one call with row i of another (independent) call, so the spread
    ``s_i`` sets the correlation of pair i: ``E cos(θ_j - θ'_j) = ±r_i`` with ``r_i = exp(-s_i²)``
    linear in i over :data:`CORRELATION_RANGE`, and the sign from the random offsets c_i (π flips
    it).  The kernel values thus cover the whole range of the skeleton kernels, from near-equal
    (ρ ≈ 0.999) through independent (ρ ≈ 0) to near-antipodal (ρ ≈ -0.999) inputs.
    """
    if not isinstance(rng, np.random.Generator):
        raise UsageError("rng must be a numpy Generator — pass rng=np.random.default_rng(seed)")
    n, d = int(n), int(d)
    r = np.linspace(*CORRELATION_RANGE, n) if n > 1 else np.array([CORRELATION_RANGE[0]])
    s = np.sqrt(-np.log(r))
    c = np.pi * rng.integers(0, 2, n)
    return c[:, None] + s[:, None] * rng.standard_normal((n, d))

"""Base spaces, base kernels and base random feature schemes (Daniely et al. 2017, §4).

Every base RFS reads ``dim`` consecutive input columns, draws its randomness ω
as a fixed-width float row (``omega_width`` numbers), and exposes

* ``kernel(x, y)``          – the exact base kernel Gram, ``x: (N1, dim)``, ``y: (N2, dim)``;
* ``explicit_map(x)``       – a finite real map φ with ``k = ⟨φ(x), φ(y)⟩`` or ``None``
  (used to turn patch averages into one matrix product);
* ``sample_omega(size, rng=...)`` – ``(size, omega_width)`` i.i.d. draws of ω ~ μ;
* ``features(omega, x)``    – ``ψ(ω_l, x_{n, l})`` for ``x: (N, L, dim)``, ``omega: (L, W)``;
  one ω per *leaf* l, so a feature only ever touches its own columns;
* ``bound``                  – ``C = sup |ψ|`` as proved (attained, see the tests).

The printed Example 4 (``e^{iωx/(2πn)}``) is not an RFS for the identity kernel;
the corrected phase is ``e^{2πiωx/n}`` (``CategoricalRFS``).  The printed
version is kept as :class:`PrintedCategoricalRFS` so that the checks can show it fails.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rfverify.errors import UsageError

__all__ = [
    "BaseRFS",
    "BinaryRFS",
    "CircleRFS",
    "GaussianRFS",
    "CategoricalRFS",
    "PrintedCategoricalRFS",
    "SphereExample5RFS",
    "SphereExample6RFS",
    "SphereCoordinateRFS",
]

#: Inputs on a sphere must have unit norm up to this (float64 round-off of a normalisation is ~1e-15·dim).
UNIT_NORM_TOL = 1e-8


class BaseRFS:
    """Template for a base RFS; subclasses implement the ``_`` hooks."""

    dim: int = 1
    omega_width: int = 1
    bound: float = 1.0
    is_real: bool = False
    label: str = "base"

    def kernel(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        x, y = self._check(x), self._check(y)
        return self._kernel(x, y)

    def explicit_map(self, x: np.ndarray) -> np.ndarray | None:
        return self._explicit_map(self._check(x))

    def sample_omega(self, size: int, *, rng: np.random.Generator) -> np.ndarray:
        if not isinstance(rng, np.random.Generator):
            raise UsageError("rng must be a numpy Generator — pass rng=np.random.default_rng(seed)")
        out = np.asarray(self._sample_omega(int(size), rng), dtype=float)
        return out.reshape(int(size), self.omega_width)

    def features(self, omega: np.ndarray, x: np.ndarray) -> np.ndarray:
        """``x: (N, L, dim)``, ``omega: (L, omega_width)`` -> complex ``(N, L)``."""
        return self._features(np.asarray(omega, dtype=float), np.asarray(x, dtype=float))

    def validate(self, x: np.ndarray) -> None:
        """Raise :class:`UsageError` if ``x: (N, dim)`` is outside the base space."""
        self._check(x)

    # hooks ------------------------------------------------------------------
    def _validate(self, x: np.ndarray) -> None:
        return None

    def _check(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        if x.ndim == 1:
            x = x[:, None]
        if x.ndim != 2 or x.shape[1] != self.dim:
            raise UsageError(f"{self.label}: expected inputs of shape (N, {self.dim}), got {x.shape}")
        self._validate(x)
        return x

    def _kernel(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        phi_x, phi_y = self._explicit_map(x), self._explicit_map(y)
        if phi_x is None or phi_y is None:  # pragma: no cover - subclasses without a map override _kernel
            raise NotImplementedError
        return phi_x @ phi_y.T

    def _explicit_map(self, x: np.ndarray) -> np.ndarray | None:
        return None

    def _sample_omega(self, size: int, rng: np.random.Generator) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def _features(self, omega: np.ndarray, x: np.ndarray) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError


@dataclass(frozen=True)
class BinaryRFS(BaseRFS):
    """Example 1: X = {±1}, k = x x', deterministic ψ(ω, x) = x (1-bounded)."""

    label = "binary"

    def _validate(self, x: np.ndarray) -> None:
        if not np.isin(x, (-1.0, 1.0)).all():
            raise UsageError("binary: inputs must be ±1 — map {0, 1} to {-1, +1} with 2x-1")

    def _explicit_map(self, x: np.ndarray) -> np.ndarray:
        return x

    def _sample_omega(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return np.zeros((size, 1))

    def _features(self, omega: np.ndarray, x: np.ndarray) -> np.ndarray:
        return x[..., 0].astype(complex)


@dataclass(frozen=True)
class CircleRFS(BaseRFS):
    """Example 2: X = 𝕋 given by the angle θ (z = e^{iθ}); k = cos(θ - θ'); ψ = z^ω, ω = ±1 (1-bounded)."""

    label = "circle"

    def _explicit_map(self, x: np.ndarray) -> np.ndarray:
        return np.concatenate([np.cos(x), np.sin(x)], axis=1)

    def _sample_omega(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return rng.choice(np.array([-1.0, 1.0]), size=size)

    def _features(self, omega: np.ndarray, x: np.ndarray) -> np.ndarray:
        return np.exp(1j * omega[:, 0] * x[..., 0])


@dataclass(frozen=True)
class GaussianRFS(BaseRFS):
    """Example 3: X = R^dim, k = exp(-a²‖x-x'‖²/2), ψ = e^{i a ⟨ω, x⟩}, ω ~ N(0, I) (1-bounded)."""

    dim: int = 1
    a: float = 1.0
    label = "gaussian"

    def __post_init__(self) -> None:
        if self.dim < 1 or not self.a > 0:
            raise UsageError(f"gaussian: need dim ≥ 1 and a > 0, got dim={self.dim}, a={self.a}")
        object.__setattr__(self, "omega_width", int(self.dim))

    def _kernel(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        d2 = (x * x).sum(1)[:, None] + (y * y).sum(1)[None, :] - 2 * x @ y.T
        return np.exp(-0.5 * self.a**2 * np.maximum(d2, 0.0))

    def _sample_omega(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return rng.standard_normal((size, self.dim))

    def _features(self, omega: np.ndarray, x: np.ndarray) -> np.ndarray:
        return np.exp(1j * self.a * np.einsum("nlp,lp->nl", x, omega))


@dataclass(frozen=True)
class CategoricalRFS(BaseRFS):
    """Example 4 corrected: X = {0..n-1}, k = 1[x = x'], ψ = e^{2πiωx/n}, ω uniform on {0..n-1}."""

    n: int = 2
    label = "categorical"

    def __post_init__(self) -> None:
        if self.n < 1:
            raise UsageError(f"categorical: need n ≥ 1 categories, got {self.n}")

    def _validate(self, x: np.ndarray) -> None:
        if not (np.isin(x, np.arange(self.n))).all():
            raise UsageError(f"categorical: inputs must be integers in 0..{self.n - 1}")

    def _explicit_map(self, x: np.ndarray) -> np.ndarray:
        return (x.astype(int) == np.arange(self.n)[None, :]).astype(float)

    def _sample_omega(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return rng.integers(0, self.n, size).astype(float)

    def _phase(self, omega: np.ndarray, x: np.ndarray) -> np.ndarray:
        return 2 * np.pi * omega[:, 0] * x[..., 0] / self.n

    def _features(self, omega: np.ndarray, x: np.ndarray) -> np.ndarray:
        return np.exp(1j * self._phase(omega, x))


@dataclass(frozen=True)
class PrintedCategoricalRFS(CategoricalRFS):
    """Example 4 *as printed*: ψ = e^{iωx/(2πn)}, ω uniform on [n] = {1..n} (NOT an RFS for 1[x = x'])."""

    label = "categorical-printed"

    def _validate(self, x: np.ndarray) -> None:
        if not (np.isin(x, np.arange(1, self.n + 1))).all():
            raise UsageError(f"categorical-printed: inputs must be integers in [n] = 1..{self.n}")

    def _sample_omega(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return rng.integers(1, self.n + 1, size).astype(float)

    def _phase(self, omega: np.ndarray, x: np.ndarray) -> np.ndarray:
        return omega[:, 0] * x[..., 0] / (2 * np.pi * self.n)

    def expected_product(self, x: int, y: int) -> float:
        """Exact E_ω Re ψ(ω,x) conj ψ(ω,y) = (1/n) Σ_{ω=1}^n cos(ω(x-y)/(2πn))."""
        w = np.arange(1, self.n + 1)
        return float(np.mean(np.cos(w * (x - y) / (2 * np.pi * self.n))))


class _SphereMixin:
    dim: int
    label: str

    def _validate(self, x: np.ndarray) -> None:
        nrm = np.linalg.norm(x, axis=1)
        if np.abs(nrm - 1).max(initial=0.0) > UNIT_NORM_TOL:
            raise UsageError(f"{self.label}: inputs must lie on the unit sphere S^{self.dim - 1} — divide each row by its norm")

    def _explicit_map(self, x: np.ndarray) -> np.ndarray:
        return x


@dataclass(frozen=True)
class SphereExample5RFS(_SphereMixin, BaseRFS):
    """Example 5: ω = (j, b) uniform on [d]×{±1}, ψ = √(d/2)(x_j + i b x_{j+1}) (x_{d+1} = x_1); C = √(d/2) (d ≥ 2)."""

    dim: int = 3
    label = "sphere-ex5"

    def __post_init__(self) -> None:
        if self.dim < 2:
            raise UsageError(f"sphere-ex5: needs d ≥ 2 (use BinaryRFS for S^0), got d={self.dim}")
        object.__setattr__(self, "omega_width", 2)
        object.__setattr__(self, "bound", math.sqrt(self.dim / 2))

    def _sample_omega(self, size: int, rng: np.random.Generator) -> np.ndarray:
        j = rng.integers(0, self.dim, size)
        b = rng.choice(np.array([-1.0, 1.0]), size=size)
        return np.stack([j.astype(float), b], axis=1)

    def _features(self, omega: np.ndarray, x: np.ndarray) -> np.ndarray:
        j = omega[:, 0].astype(int)
        b = omega[:, 1]
        L = np.arange(x.shape[1])
        xj = x[:, L, j]
        xj1 = x[:, L, (j + 1) % self.dim]
        return math.sqrt(self.dim / 2) * (xj + 1j * b * xj1)


@dataclass(frozen=True)
class SphereExample6RFS(_SphereMixin, BaseRFS):
    """Example 6: w uniform on S^{d-1}, ψ = √d ⟨w, x⟩ (real); C = √d."""

    dim: int = 3
    label = "sphere-ex6"

    def __post_init__(self) -> None:
        object.__setattr__(self, "omega_width", int(self.dim))
        object.__setattr__(self, "bound", math.sqrt(self.dim))
        object.__setattr__(self, "is_real", True)

    def _sample_omega(self, size: int, rng: np.random.Generator) -> np.ndarray:
        w = rng.standard_normal((size, self.dim))
        return w / np.linalg.norm(w, axis=1, keepdims=True)

    def _features(self, omega: np.ndarray, x: np.ndarray) -> np.ndarray:
        return (math.sqrt(self.dim) * np.einsum("nlp,lp->nl", x, omega)).astype(complex)


@dataclass(frozen=True)
class SphereCoordinateRFS(_SphereMixin, BaseRFS):
    """Example 6, last sentence: ω uniform on [d], ψ = √d x_ω (real); C = √d."""

    dim: int = 3
    label = "sphere-coord"

    def __post_init__(self) -> None:
        object.__setattr__(self, "bound", math.sqrt(self.dim))
        object.__setattr__(self, "is_real", True)

    def _sample_omega(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return rng.integers(0, self.dim, size).astype(float)

    def _features(self, omega: np.ndarray, x: np.ndarray) -> np.ndarray:
        j = omega[:, 0].astype(int)
        return (math.sqrt(self.dim) * x[:, np.arange(x.shape[1]), j]).astype(complex)

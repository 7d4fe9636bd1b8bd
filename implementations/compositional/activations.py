"""Normalised conjugate activations (dual activations) and exact degree samplers.

A normalised PSD function (Daniely et al. 2017, §2) is
``σ̂(ρ) = Σ_i a_i ρ^i`` with ``a_i ≥ 0`` and ``Σ_i a_i = σ̂(1) = 1``.  Algorithm 1
samples the number of factors ``l`` of a random feature with ``P(l = i) = a_i``.

Each activation is a template: the public methods validate and convert, the
private hooks compute

* ``_evaluate(rho)``   – σ̂ on a float array (closed form, vectorised);
* ``_coef_mp(i)``      – the i-th coefficient in mpmath (closed form);
* ``_value_at_one_mp`` – σ̂(1) in mpmath (``1`` for a normalised function);
* ``_coef_float(i)``   – the coefficients as float64 for an index array;
* ``_sample(size, rng)`` – the degree sampler (default: inversion on a table).

Closed forms (derived here, checked by the tests against ``mpmath.taylor`` of
σ̂ at two precisions):

* ReLU, ``σ(x) = √2 max(0, x)``:
  ``σ̂(ρ) = (√(1-ρ²) + (π - arccos ρ) ρ) / π`` (arc-cosine kernel of degree 1),
  ``a_0 = 1/π``, ``a_1 = 1/2``, ``a_{2m} = c_{m-1} / (π · 2m (2m-1))`` (m ≥ 1),
  odd ``a_{2m+1} = 0`` for m ≥ 1, where ``c_m = binom(2m, m) / 4^m``.
  ``σ̂'(1) = 1``; the tail mass beyond degree L decays like ``L^{-3/2}``.
* step, ``σ(x) = √2 · 1[x > 0]``: ``σ̂(ρ) = 1/2 + arcsin(ρ)/π``,
  ``a_0 = 1/2``, ``a_{2m+1} = c_m / (π (2m+1))``; ``σ̂'(1) = ∞`` (tail ~ L^{-1/2}).
* exponential, ``σ̂(ρ) = exp(γ(ρ - 1))``: ``a_i = e^{-γ} γ^i / i!`` – the degree is
  Poisson(γ) and is sampled exactly; ``σ̂'(1) = γ``.  ``γ = 1`` is the
  normalised conjugate of ``σ(x) = e^x``; ``γ = 1/4`` is the paper's σ̂₁.
* polynomial with non-negative coefficients, divided by their sum.

Truncation: a table-based sampler keeps degrees ``0..L_max``; the mass beyond
``L_max`` (``truncation_error``, computed in mpmath by ``nsum``) is the total
variation distance between the sampled and the exact law of ``l``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import mpmath as mp
import numpy as np
from scipy import special

from rfverify.errors import UsageError

__all__ = [
    "ConjugateActivation",
    "ReLUActivation",
    "StepActivation",
    "ExpActivation",
    "PolynomialActivation",
    "relu",
    "step",
    "exponential",
    "polynomial",
]

#: Default dps for mpmath references (≈ 100 bits).
REFERENCE_DPS = 30


def _build_cdf_table(act: "ConjugateActivation") -> np.ndarray:
    table = np.cumsum(act._coef_float(np.arange(act.max_degree + 1)))
    table.setflags(write=False)
    return table


@lru_cache(maxsize=16)
def _shared_cdf_table(act: "ConjugateActivation") -> np.ndarray:
    """The degree sampler's CDF table, built once per distinct activation (a ReLU table has 2 x 10^6 entries: every
    skeleton node used to rebuild it, 0.1-0.2 s each)."""
    return _build_cdf_table(act)


class ConjugateActivation:
    """Base class: a normalised PSD function σ̂ on [-1, 1] with its power series."""

    name: str = "abstract"
    #: Largest degree the table sampler returns (mass beyond is ``truncation_error``).
    max_degree: int = 0

    # -- public API ---------------------------------------------------------
    def __call__(self, rho: np.ndarray | float) -> np.ndarray:
        """σ̂(ρ) for ρ in [-1, 1] (values outside by ≤ 1e-12 are clipped: round-off of Gram entries)."""
        r = np.asarray(rho, dtype=float)
        if r.size and (np.nanmax(np.abs(r)) > 1 + 1e-9 or np.isnan(r).any()):
            raise UsageError(f"{self.name}: σ̂ needs ρ in [-1, 1]; got max |ρ| = {np.nanmax(np.abs(r))} — normalise the inputs")
        return self._evaluate(np.clip(r, -1.0, 1.0))

    def coefficients_mp(self, n_terms: int, *, dps: int = REFERENCE_DPS) -> list[mp.mpf]:
        """First ``n_terms`` power-series coefficients a_0..a_{n-1} as mpmath numbers (closed form)."""
        if n_terms < 0:
            raise UsageError(f"n_terms must be ≥ 0, got {n_terms}")
        with mp.workdps(dps):
            return [+self._coef_mp(i) for i in range(n_terms)]

    def coefficients(self, n_terms: int) -> np.ndarray:
        """First ``n_terms`` coefficients as float64 (vectorised closed form)."""
        if n_terms < 0:
            raise UsageError(f"n_terms must be ≥ 0, got {n_terms}")
        return self._coef_float(np.arange(n_terms))

    def tail_mass(self, degree: int, *, dps: int = REFERENCE_DPS) -> mp.mpf:
        """``Σ_{i > degree} a_i`` in mpmath (``nsum`` over the closed-form coefficients)."""
        with mp.workdps(dps):
            return +self._tail_mp(int(degree))

    def value_at_one_mp(self, *, dps: int = REFERENCE_DPS) -> mp.mpf:
        """σ̂(1) = Σ a_i in mpmath; equals 1 for a normalised activation."""
        with mp.workdps(dps):
            return +self._value_at_one_mp()

    def derivative_at_one(self) -> float:
        """σ̂'(1) = Σ i a_i = E[l], the expected fan-out of Algorithm 1 at this node (may be ∞)."""
        return self._derivative_at_one()

    def taylor_at(self, c0: float, n_terms: int) -> np.ndarray:
        """Taylor coefficients ``σ̂^{(j)}(c0)/j! = Σ_{i ≥ j} a_i C(i, j) c0^{i-j}``, j < n_terms, for 0 ≤ c0 < 1 (float64).

        Used to compose power series whose inner series has a non-zero constant term
        (``σ̂(c0 + r(s))`` with r(0) = 0 needs only j < n_terms).  The sum over i runs to
        ``I = n + (60 + 2n)/(1 - c0)``, beyond which the summands are below e^{-60} relative.
        """
        if not 0 <= c0 < 1:
            raise UsageError(f"taylor_at needs 0 ≤ c0 < 1, got {c0}")
        return self._taylor_at(float(c0), int(n_terms))

    def _taylor_at(self, c0: float, n: int) -> np.ndarray:
        if c0 == 0.0:
            return self.coefficients(n)
        I = int(min(n + (60 + 2 * n) / (1 - c0), 400_000))
        i = np.arange(I)
        a = self._coef_float(i)
        nz = a > 0
        i, a = i[nz], a[nz]
        j = np.arange(n)[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            logt = (special.gammaln(i + 1.0) - special.gammaln(j + 1.0) - special.gammaln(np.maximum(i - j, 0) + 1.0)
                    + (i - j) * math.log(c0) + np.log(a))
        return np.where(i[None, :] >= j, np.exp(logt), 0.0).sum(1)

    @property
    def truncation_error(self) -> float:
        """Total-variation distance between the sampled and the exact law of the degree l."""
        return float(self.tail_mass(self.max_degree)) if self.max_degree else 0.0

    def sample_degree(self, size: int, *, rng: np.random.Generator) -> np.ndarray:
        """``size`` i.i.d. degrees l with P(l = i) = a_i (int64)."""
        if size < 0:
            raise UsageError(f"size must be ≥ 0, got {size}")
        if not isinstance(rng, np.random.Generator):
            raise UsageError("rng must be a numpy Generator — pass rng=np.random.default_rng(seed)")
        return self._sample(int(size), rng)

    # -- hooks --------------------------------------------------------------
    def _evaluate(self, rho: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _coef_mp(self, i: int) -> mp.mpf:  # pragma: no cover - abstract
        raise NotImplementedError

    def _coef_float(self, i: np.ndarray) -> np.ndarray:
        return np.array([float(self._coef_mp(int(k))) for k in i], dtype=float)

    def _value_at_one_mp(self) -> mp.mpf:
        return mp.mpf(1)

    def _tail_mp(self, degree: int) -> mp.mpf:
        return mp.nsum(lambda k: self._coef_mp(int(k)), [degree + 1, mp.inf])

    def _derivative_at_one(self) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    @cached_property
    def _cdf_table(self) -> np.ndarray:
        try:
            return _shared_cdf_table(self)  # equal activations (frozen dataclasses) share one table
        except TypeError:  # an unhashable subclass builds its own
            return _build_cdf_table(self)

    def _sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        # Inversion: l = min{i : F(i) > U}.  U beyond F(max_degree) (probability
        # = truncation_error) is mapped to max_degree: the stated truncation.
        u = rng.random(size)
        idx = np.searchsorted(self._cdf_table, u, side="right")
        return np.minimum(idx, self.max_degree).astype(np.int64)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def _c_mp(m: int) -> mp.mpf:
    """c_m = binom(2m, m)/4^m = Γ(m+1/2)/(√π Γ(m+1))."""
    return mp.binomial(2 * m, m) / mp.mpf(4) ** m


#: Up to this degree a tail mass is computed as σ̂(1) - Σ_{i ≤ L} a_i (exact closed forms, fsum);
#: beyond it by Euler–Maclaurin summation (``nsum(method="e")``) of the smooth continuation f(m).
TAIL_BY_PARTIAL_SUM_MAX = 4000


def _algebraic_tail(act: "ConjugateActivation", degree: int, f, m0: int) -> mp.mpf:
    if 0 <= degree <= TAIL_BY_PARTIAL_SUM_MAX:
        return act._value_at_one_mp() - mp.fsum(act._coef_mp(i) for i in range(degree + 1))
    return mp.nsum(f, [max(m0, 1), mp.inf], method="e") + (f(0) if m0 == 0 else 0)


def _c_float(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=float)
    return np.exp(special.gammaln(m + 0.5) - special.gammaln(m + 1.0) - 0.5 * math.log(math.pi))


@dataclass(frozen=True, eq=True)
class ReLUActivation(ConjugateActivation):
    """Normalised ReLU conjugate ``σ̂(ρ) = (√(1-ρ²) + (π - arccos ρ)ρ)/π`` (σ(x) = √2 max(0, x))."""

    max_degree: int = 2_000_000
    name: str = field(default="relu", init=False)

    def _evaluate(self, rho: np.ndarray) -> np.ndarray:
        return (np.sqrt(np.maximum(0.0, 1.0 - rho * rho)) + (np.pi - np.arccos(rho)) * rho) / np.pi

    def _coef_mp(self, i: int) -> mp.mpf:
        if i == 0:
            return 1 / mp.pi
        if i == 1:
            return mp.mpf(1) / 2
        if i % 2:
            return mp.mpf(0)
        m = i // 2
        return _c_mp(m - 1) / (mp.pi * 2 * m * (2 * m - 1))

    def _coef_float(self, i: np.ndarray) -> np.ndarray:
        i = np.asarray(i)
        out = np.zeros(i.shape, dtype=float)
        out[i == 0] = 1 / math.pi
        out[i == 1] = 0.5
        ev = (i >= 2) & (i % 2 == 0)
        m = i[ev] // 2
        out[ev] = _c_float(m - 1) / (math.pi * 2 * m * (2 * m - 1))
        return out

    def _tail_mp(self, degree: int) -> mp.mpf:
        m0 = max(1, degree // 2 + 1)  # first even index 2m > degree
        head = mp.mpf(0) if degree >= 1 else (mp.mpf(1) / 2 if degree == 0 else 1 / mp.pi + mp.mpf(1) / 2)
        f = lambda m: mp.gamma(m - mp.mpf(1) / 2) / (mp.sqrt(mp.pi) * mp.gamma(m)) / (mp.pi * 2 * m * (2 * m - 1))
        return head + _algebraic_tail(self, degree, f, m0)

    def _derivative_at_one(self) -> float:
        return 1.0


@dataclass(frozen=True, eq=True)
class StepActivation(ConjugateActivation):
    """Normalised step conjugate ``σ̂(ρ) = 1/2 + arcsin(ρ)/π`` (σ(x) = √2·1[x > 0]); σ̂'(1) = ∞."""

    max_degree: int = 2_000_001
    name: str = field(default="step", init=False)

    def _evaluate(self, rho: np.ndarray) -> np.ndarray:
        return 0.5 + np.arcsin(rho) / np.pi

    def _coef_mp(self, i: int) -> mp.mpf:
        if i == 0:
            return mp.mpf(1) / 2
        if i % 2 == 0:
            return mp.mpf(0)
        m = (i - 1) // 2
        return _c_mp(m) / (mp.pi * (2 * m + 1))

    def _coef_float(self, i: np.ndarray) -> np.ndarray:
        i = np.asarray(i)
        out = np.zeros(i.shape, dtype=float)
        out[i == 0] = 0.5
        od = i % 2 == 1
        m = (i[od] - 1) // 2
        out[od] = _c_float(m) / (math.pi * (2 * m + 1))
        return out

    def _tail_mp(self, degree: int) -> mp.mpf:
        m0 = max(0, (degree + 1) // 2)  # first odd index 2m+1 > degree
        head = mp.mpf(1) / 2 if degree < 0 else mp.mpf(0)
        f = lambda m: mp.gamma(m + mp.mpf(1) / 2) / (mp.sqrt(mp.pi) * mp.gamma(m + 1)) / (mp.pi * (2 * m + 1))
        return head + _algebraic_tail(self, degree, f, m0)

    def _derivative_at_one(self) -> float:
        return math.inf


@dataclass(frozen=True, eq=True)
class ExpActivation(ConjugateActivation):
    """``σ̂(ρ) = exp(γ(ρ - 1))``; the degree is Poisson(γ), sampled exactly (no truncation)."""

    gamma: float = 0.25
    name: str = field(default="exp", init=False)

    def __post_init__(self) -> None:
        if not (self.gamma > 0 and math.isfinite(self.gamma)):
            raise UsageError(f"ExpActivation needs gamma > 0, got {self.gamma}")

    def _evaluate(self, rho: np.ndarray) -> np.ndarray:
        return np.exp(self.gamma * (rho - 1.0))

    def _coef_mp(self, i: int) -> mp.mpf:
        g = mp.mpf(self.gamma)
        return mp.exp(-g) * g**i / mp.factorial(i)

    def _coef_float(self, i: np.ndarray) -> np.ndarray:
        i = np.asarray(i, dtype=float)
        return np.exp(-self.gamma + i * math.log(self.gamma) - special.gammaln(i + 1))

    def _tail_mp(self, degree: int) -> mp.mpf:
        if degree < 0:
            return mp.mpf(1)
        # P(Poisson(γ) > L) = regularised lower incomplete gamma P(L+1, γ).
        return mp.gammainc(degree + 1, 0, mp.mpf(self.gamma), regularized=True)

    @property
    def truncation_error(self) -> float:
        return 0.0

    def _taylor_at(self, c0: float, n: int) -> np.ndarray:
        j = np.arange(n, dtype=float)
        return np.exp(self.gamma * (c0 - 1) + j * math.log(self.gamma) - special.gammaln(j + 1))

    def _derivative_at_one(self) -> float:
        return float(self.gamma)

    def _sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return rng.poisson(self.gamma, size).astype(np.int64)


@dataclass(frozen=True, eq=True)
class PolynomialActivation(ConjugateActivation):
    """``σ̂(ρ) = Σ_i w_i ρ^i / Σ_i w_i`` for finitely many weights ``w_i ≥ 0`` (exact sampler)."""

    weights: tuple[float, ...] = (0.0, 1.0)
    name: str = field(default="poly", init=False)

    def __post_init__(self) -> None:
        w = np.asarray(self.weights, dtype=float)
        if w.ndim != 1 or w.size == 0 or (w < 0).any() or not np.isfinite(w).all() or w.sum() <= 0:
            raise UsageError(f"PolynomialActivation needs finite non-negative weights with a positive sum, got {self.weights}")
        object.__setattr__(self, "max_degree", int(w.size - 1))

    @property
    def _a(self) -> np.ndarray:
        w = np.asarray(self.weights, dtype=float)
        return w / w.sum()

    def _evaluate(self, rho: np.ndarray) -> np.ndarray:
        return np.polynomial.polynomial.polyval(rho, self._a)

    def _coef_mp(self, i: int) -> mp.mpf:
        if i >= len(self.weights):
            return mp.mpf(0)
        ws = [mp.mpf(w) for w in self.weights]
        return ws[i] / mp.fsum(ws)

    def _coef_float(self, i: np.ndarray) -> np.ndarray:
        a = self._a
        i = np.asarray(i)
        out = np.zeros(i.shape)
        ok = i < a.size
        out[ok] = a[i[ok]]
        return out

    def _tail_mp(self, degree: int) -> mp.mpf:
        return mp.fsum(self._coef_mp(k) for k in range(max(degree + 1, 0), len(self.weights)))

    @property
    def truncation_error(self) -> float:
        return 0.0

    def _derivative_at_one(self) -> float:
        return float(np.dot(np.arange(self._a.size), self._a))


def relu() -> ReLUActivation:
    """Normalised ReLU conjugate activation."""
    return ReLUActivation()


def step() -> StepActivation:
    """Normalised step conjugate activation (σ̂'(1) = ∞)."""
    return StepActivation()


def exponential(gamma: float = 0.25) -> ExpActivation:
    """``exp(γ(ρ-1))``; the paper's σ̂₁ is γ = 1/4, the normalised conjugate of e^x is γ = 1."""
    return ExpActivation(gamma=float(gamma))


def polynomial(*weights: float) -> PolynomialActivation:
    """Normalised polynomial activation with the given non-negative weights (a_i ∝ w_i)."""
    return PolynomialActivation(weights=tuple(float(w) for w in weights))

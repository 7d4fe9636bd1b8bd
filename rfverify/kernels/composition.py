"""Kernels built from kernels: the cs4787 lecture's composition rules (lecture 16, "Constructing kernels").

Given kernels k1, k2 with feature maps phi1, phi2, a constant c > 0 and any function f:

=====================================  ==============================  ===============
kernel                                 feature map                     dimension
=====================================  ==============================  ===============
c k1(x, y)                             sqrt(c) phi1(x)                 D1
k1(x, y) + k2(x, y)                    [phi1(x), phi2(x)]              D1 + D2
k1(x, y) k2(x, y)                      phi1(x) (tensor) phi2(x)        D1 D2
f(x) k1(x, y) f(y)                     f(x) phi1(x)                    D1
exp(k1(x, y))                          (omitted in the lecture)        infinite
=====================================  ==============================  ===============

Each constructor returns a :class:`CompositeKernel`: a :class:`~rfverify.kernels.Kernel` that
evaluates the composite exactly *and remembers its parts*, so the ``kernel-composition`` check
can build the composite's feature map from the parts' reference maps
(:mod:`rfverify.implementations.composite`) and test that it estimates the composite.  A few
composites are offered in the registry by name (``rbf_plus_laplacian``, ``rbf_laplacian_mix``,
``rbf_times_polynomial``, ``normalized_polynomial``, ``exp_linear``).

>>> from rfverify.kernels import get_kernel
>>> k = kernel_sum(kernel_scale(0.25, get_kernel("rbf")), kernel_scale(0.75, get_kernel("laplacian")))
>>> k.normalized  # 0.25 * 1 + 0.75 * 1 on the diagonal
True
>>> float(k([[0.0, 0.0]], [[0.0, 0.0]])[0, 0])
1.0
>>> kernel_scale(0.0, "rbf")
Traceback (most recent call last):
...
rfverify.errors.UsageError: kernel_scale: c must be a finite number > 0, got 0.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from rfverify.errors import UsageError
from rfverify.kernels.base import Kernel, KernelSpec, ParamSpec, as_kernel, get_kernel

__all__ = ["CompositeKernel", "kernel_sum", "kernel_product", "kernel_scale", "kernel_conformal", "kernel_exp",
           "declared_psd", "diagonal_constant", "OPS"]

#: The composition rules, by the name a :class:`CompositeKernel` records in ``op``.
#: The registry composites (registered explicitly by :mod:`rfverify.kernels`).
COMPOSITES: list[KernelSpec] = []

OPS = ("sum", "product", "scale", "conformal", "exp")

KernelLike = "str | Kernel | Callable[..., Any]"


@dataclass(frozen=True)
class CompositeKernel(Kernel):
    """A kernel built by a composition rule; ``op`` is one of :data:`OPS`, ``parts`` its kernels.

    ``coef``: the constant of ``scale``; ``func``: the f of ``conformal`` (``f(X) -> (n,)``);
    ``declared_normalized``: an explicit k(x, x) = 1 claim (otherwise it is derived from the
    parts: see :func:`diagonal_constant`).
    """

    op: str = ""
    parts: tuple[Kernel, ...] = ()
    coef: float | None = None
    func: Callable[..., Any] | None = field(default=None, repr=False, compare=False)
    declared_normalized: bool | None = None

    @property
    def normalized(self) -> bool:
        if self.declared_normalized is not None:
            return self.declared_normalized
        if self._spec is not None and self._spec.normalized:
            return True
        c = diagonal_constant(self)
        return c is not None and abs(c - 1.0) <= 1e-12

    def length_scale(self, d: int) -> float | None:
        """The registry's length scale if it gives one, else the smallest known scale of the parts."""
        if self._spec is not None and self._spec.length_scale is not None:
            return float(self._spec.length_scale(d, **self.params))
        scales = [s for s in (p.length_scale(d) for p in self.parts) if s is not None]
        return min(scales) if scales else None

    def tree(self) -> str:
        """The composition as an expression, e.g. ``sum(scale(0.5, rbf(gamma=1.0)), ...)``."""
        inner = [p.tree() if isinstance(p, CompositeKernel) else p.describe() for p in self.parts]
        if self.op == "scale":
            inner = [repr(self.coef)] + inner
        if self.op == "conformal":
            inner = [_func_name(self.func)] + inner
        return f"{self.op}({', '.join(inner)})"


def _func_name(f: Any) -> str:
    return getattr(f, "__qualname__", None) or type(f).__name__


def diagonal_constant(kernel: Kernel) -> float | None:
    """The constant value of k(x, x) when the composition rules determine it, else None.

    A normalised part has 1; ``scale`` multiplies by c, ``sum`` adds, ``product`` multiplies,
    ``exp`` exponentiates; ``conformal`` gives f(x)^2 k(x, x), not a constant unless declared.
    """
    if not isinstance(kernel, CompositeKernel):
        return 1.0 if kernel.normalized else None
    if kernel.declared_normalized:
        return 1.0
    vals = [diagonal_constant(p) for p in kernel.parts]
    if kernel.op == "conformal" or any(v is None for v in vals):
        return None
    if kernel.op == "sum":
        return float(vals[0] + vals[1])  # type: ignore[operator]
    if kernel.op == "product":
        return float(vals[0] * vals[1])  # type: ignore[operator]
    if kernel.op == "scale":
        return float(kernel.coef * vals[0])  # type: ignore[operator]
    return float(math.exp(vals[0]))  # type: ignore[arg-type]


def declared_psd(kernel: Kernel) -> bool | None:
    """True if the kernel is PSD by declaration (registry) or by construction from PSD parts;
    False if the registry declares it not PSD (or a part is); None for an unknown callable."""
    if isinstance(kernel, CompositeKernel):
        vals = [declared_psd(p) for p in kernel.parts]
        if any(v is False for v in vals):
            return False
        return None if any(v is None for v in vals) else True
    if kernel._spec is None:
        return None
    return bool(kernel._spec.psd)


def _as(k: Any, who: str) -> Kernel:
    if isinstance(k, (str, Kernel)) or callable(k):
        return as_kernel(k)
    raise UsageError(f"{who}: a part must be a registry name, a Kernel or a callable k(X, Y), got {type(k).__name__}")


def kernel_sum(k1: Any, k2: Any) -> CompositeKernel:
    """k(x, y) = k1(x, y) + k2(x, y); feature map [phi1(x), phi2(x)]."""
    a, b = _as(k1, "kernel_sum"), _as(k2, "kernel_sum")

    def gram(X: np.ndarray, Y: np.ndarray, **_: Any) -> np.ndarray:
        return a(X, Y) + b(X, Y)

    return CompositeKernel(f"sum({a.describe()}, {b.describe()})", {}, gram, None, op="sum", parts=(a, b))


def kernel_product(k1: Any, k2: Any) -> CompositeKernel:
    """k(x, y) = k1(x, y) k2(x, y); feature map phi1(x) (tensor) phi2(x)."""
    a, b = _as(k1, "kernel_product"), _as(k2, "kernel_product")

    def gram(X: np.ndarray, Y: np.ndarray, **_: Any) -> np.ndarray:
        return a(X, Y) * b(X, Y)

    return CompositeKernel(f"product({a.describe()}, {b.describe()})", {}, gram, None, op="product", parts=(a, b))


def kernel_scale(c: float, k: Any) -> CompositeKernel:
    """k(x, y) = c k1(x, y) for a constant c > 0; feature map sqrt(c) phi1(x)."""
    if isinstance(c, bool) or not isinstance(c, (int, float, np.integer, np.floating)) \
            or not math.isfinite(float(c)) or float(c) <= 0:
        raise UsageError(f"kernel_scale: c must be a finite number > 0, got {c!r}")
    c = float(c)
    a = _as(k, "kernel_scale")

    def gram(X: np.ndarray, Y: np.ndarray, **_: Any) -> np.ndarray:
        return c * a(X, Y)

    return CompositeKernel(f"scale({c!r}, {a.describe()})", {}, gram, None, op="scale", parts=(a,), coef=c)


def _apply_f(f: Callable[..., Any], X: np.ndarray) -> np.ndarray:
    v = np.asarray(f(X), dtype=float)
    if v.shape != (X.shape[0],):
        v = v.reshape(-1) if v.size == X.shape[0] else v
    if v.shape != (X.shape[0],):
        raise UsageError(f"kernel_conformal: f({X.shape[0]} rows) returned shape {np.shape(v)}, expected "
                         f"({X.shape[0]},); f maps each input row to one real number")
    if not np.all(np.isfinite(v)):
        raise UsageError("kernel_conformal: f returned non-finite values")
    return v


def kernel_conformal(f: Callable[..., Any], k: Any, *, normalized: bool | None = None) -> CompositeKernel:
    """k(x, y) = f(x) k1(x, y) f(y) for any real f (``f(X) -> (n,)``); feature map f(x) phi1(x).

    ``normalized=True`` declares k(x, x) = 1 (e.g. f = k1(x, x)^(-1/2), the cosine normalisation);
    the ``kernel-normalisation`` check then holds it to that.
    """
    if not callable(f):
        raise UsageError(f"kernel_conformal: f must be callable f(X) -> (n,) values, got {type(f).__name__}")
    a = _as(k, "kernel_conformal")

    def gram(X: np.ndarray, Y: np.ndarray, **_: Any) -> np.ndarray:
        return _apply_f(f, X)[:, None] * a(X, Y) * _apply_f(f, Y)[None, :]

    return CompositeKernel(f"conformal({_func_name(f)}, {a.describe()})", {}, gram, None, op="conformal",
                           parts=(a,), func=f, declared_normalized=normalized)


def kernel_exp(k: Any) -> CompositeKernel:
    """k(x, y) = exp(k1(x, y)) = sum_n k1^n / n!; feature map infinite (random Maclaurin features
    estimate it without bias, see :mod:`rfverify.implementations.composite`)."""
    a = _as(k, "kernel_exp")

    def gram(X: np.ndarray, Y: np.ndarray, **_: Any) -> np.ndarray:
        return np.exp(a(X, Y))

    return CompositeKernel(f"exp({a.describe()})", {}, gram, None, op="exp", parts=(a,))


# --------------------------------------------------------------------------
# Registry composites
# --------------------------------------------------------------------------


def _positive(v: float) -> bool:
    return math.isfinite(v) and v > 0


_RBF_G = ParamSpec(1.0, float, _positive, "rbf_gamma must be a finite number > 0", "gamma of the rbf part",
                 search=(1e-3, 1e3, "log"))
_LAP_G = ParamSpec(1.0, float, _positive, "laplacian_gamma must be a finite number > 0",
                   "gamma of the Laplacian part", search=(1e-3, 1e3, "log"))


def _register_composite(name: str, build: Callable[..., CompositeKernel], params: dict[str, ParamSpec], doc: str,
                        length_scale: Callable[..., float] | None = None) -> None:
    def gram(X: np.ndarray, Y: np.ndarray, **p: Any) -> np.ndarray:
        return build(**p)(X, Y)

    COMPOSITES.append(KernelSpec(name=name, gram=gram, params=params, doc=doc, length_scale=length_scale,
                                 build=build))


def _rbf_plus_laplacian(rbf_gamma: float, laplacian_gamma: float) -> CompositeKernel:
    return kernel_sum(get_kernel("rbf", gamma=rbf_gamma), get_kernel("laplacian", gamma=laplacian_gamma))


def _rbf_laplacian_mix(weight: float, rbf_gamma: float, laplacian_gamma: float) -> CompositeKernel:
    return kernel_sum(kernel_scale(weight, get_kernel("rbf", gamma=rbf_gamma)),
                      kernel_scale(1.0 - weight, get_kernel("laplacian", gamma=laplacian_gamma)))


def _rbf_times_polynomial(rbf_gamma: float, gamma: float, coef0: float, degree: int) -> CompositeKernel:
    return kernel_product(get_kernel("rbf", gamma=rbf_gamma),
                          get_kernel("polynomial", gamma=gamma, coef0=coef0, degree=degree))


@dataclass(frozen=True)
class PolynomialNormaliser:
    """f(x) = k(x, x)^(-1/2) for the polynomial kernel: (gamma |x|^2 + coef0)^(-degree/2)."""

    gamma: float
    coef0: float
    degree: int

    def __call__(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=float)
        return (self.gamma * np.einsum("ij,ij->i", X, X) + self.coef0) ** (-0.5 * self.degree)


def _normalized_polynomial(gamma: float, coef0: float, degree: int) -> CompositeKernel:
    return kernel_conformal(PolynomialNormaliser(gamma, coef0, degree),
                            get_kernel("polynomial", gamma=gamma, coef0=coef0, degree=degree), normalized=True)


def _exp_linear(gamma: float) -> CompositeKernel:
    return kernel_exp(kernel_scale(gamma, get_kernel("linear")))


_DEG = ParamSpec(2, int, lambda v: 1 <= v <= 4, "degree must be an integer in [1, 4]", "degree p")
_GAMMA = ParamSpec(1.0, float, _positive, "gamma must be a finite number > 0", "scale of <x, y>")

_register_composite(
    "rbf_plus_laplacian", _rbf_plus_laplacian, {"rbf_gamma": _RBF_G, "laplacian_gamma": _LAP_G},
    "sum rule: exp(-rbf_gamma ||x - y||^2) + exp(-laplacian_gamma ||x - y||_1); features [phi_rbf, phi_lap]")
_register_composite(
    "rbf_laplacian_mix", _rbf_laplacian_mix,
    {"weight": ParamSpec(0.5, float, lambda v: math.isfinite(v) and 0 < v < 1, "weight must be in (0, 1)",
                         "w: the rbf part's weight", search=(0.01, 0.99, "linear")),
     "rbf_gamma": _RBF_G, "laplacian_gamma": _LAP_G},
    "scaling and sum rules: w rbf + (1 - w) laplacian (normalised: k(x, x) = 1); features "
    "[sqrt(w) phi_rbf, sqrt(1 - w) phi_lap]")
_register_composite(
    "rbf_times_polynomial", _rbf_times_polynomial,
    {"rbf_gamma": _RBF_G, "gamma": _GAMMA,
     "coef0": ParamSpec(1.0, float, lambda v: math.isfinite(v) and v >= 0, "coef0 must be a finite number >= 0",
                        "additive constant c"), "degree": _DEG},
    "product rule: exp(-rbf_gamma ||x - y||^2) (gamma <x, y> + coef0)^degree; features phi_rbf (tensor) "
    "phi_poly (the exact polynomial features)",
    length_scale=lambda d, rbf_gamma, gamma, coef0, degree: min(1.0 / math.sqrt(rbf_gamma * d),
                                                                1.0 / math.sqrt(gamma * d)))
_register_composite(
    "normalized_polynomial", _normalized_polynomial,
    {"gamma": _GAMMA, "coef0": ParamSpec(1.0, float, _positive, "coef0 must be a finite number > 0 (else "
                                         "k(0, 0) = 0 cannot be normalised)", "additive constant c"),
     "degree": _DEG},
    "conformal rule f(x) k(x, y) f(y) with f = k(x, x)^(-1/2): the cosine-normalised polynomial kernel "
    "(gamma <x, y> + c)^p / sqrt((gamma |x|^2 + c)^p (gamma |y|^2 + c)^p), k(x, x) = 1",
    length_scale=lambda d, gamma, coef0, degree: 1.0 / math.sqrt(gamma * d))
_register_composite(
    "exp_linear", _exp_linear, {"gamma": _GAMMA},
    "exponential rule: exp(gamma <x, y>) = sum_n gamma^n <x, y>^n / n!; random Maclaurin features "
    "(Kar & Karnick 2012) estimate it without bias",
    length_scale=lambda d, gamma: 1.0 / math.sqrt(gamma * d))

"""Input domains and the designed sets of input pairs the checks evaluate.

Kernel estimates are checked at a *design* of pairs (x_p, y_p), not at random
pairs alone, so that the kernel values spread over the kernel's whole range:

* ``equal``     — y = x (k(x, x), the diagonal, where scale bugs show most);
* ``antipodal`` — y = -x (gaussian and sphere domains);
* ``corr``      — y = rho x + sqrt(1 - rho^2) x' for correlations rho from 0.999
  (near) to -0.95 (far), x' an independent draw.

Gaussian points are scaled so that for independent pairs the kernel is about
e^-2 of its diagonal; registry kernels give the scale in closed form (for rbf,
s = 1/sqrt(gamma d), so k = exp(-2(1 - rho)) on average); other kernels are
calibrated by bisection on log s.  Row-normalised data would give kernel values
near 1 only, where most bugs hide.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Protocol

import numpy as np
import numpy.typing as npt

from rfverify.errors import PluginError, UsageError
from rfverify.kernels import Kernel

__all__ = ["PairSet", "make_pairs", "DOMAINS", "CORRELATIONS", "min_dim", "calibrate_scale"]

DOMAINS = ("gaussian", "sphere", "positive")
#: The smallest input dimension of a named domain's pair design: the sphere S^0 = {-1, +1} (d = 1) has no pair
#: with a correlation strictly between -1 and 1, so its ``corr`` pairs do not exist there.
MIN_DIM = {"sphere": 2}


def min_dim(domain: object) -> int:
    """The smallest d at which ``domain``'s pair design exists (1 for a callable domain: the caller's affair)."""
    return MIN_DIM.get(domain, 1) if isinstance(domain, str) else 1

#: Correlations of the ``corr`` pairs: near (0.999) to far (-0.95).
CORRELATIONS = (0.999, 0.99, 0.97, 0.93, 0.85, 0.75, 0.6, 0.45, 0.3, 0.15, 0.0, -0.2, -0.4, -0.6, -0.8, -0.95)
N_EQUAL = 4
N_ANTIPODAL = 4
#: Target normalised kernel value for independent pairs when calibrating a scale.
TARGET_INDEPENDENT = math.exp(-2.0)


@dataclass(frozen=True)
class PairSet:
    """Designed input pairs: ``X[p]`` and ``Y[p]`` with a label and the exact kernel value."""

    X: np.ndarray
    Y: np.ndarray
    labels: tuple[str, ...]
    exact: np.ndarray
    scale: float
    domain: str
    #: sqrt(k(x_p, x_p) k(y_p, y_p)): the kernel's own scale at each pair.
    diag: np.ndarray

    @property
    def n(self) -> int:
        return self.X.shape[0]

    def kernel_range(self) -> float:
        """The kernel's scale at these inputs: max_p sqrt(k(x,x) k(y,y)) (1 for normalised kernels)."""
        return float(self.diag.max())


def _unit_rows(A: np.ndarray) -> np.ndarray:
    return A / np.linalg.norm(A, axis=1, keepdims=True)


def _corr_pairs(base: np.ndarray, other: np.ndarray, rhos: np.ndarray) -> np.ndarray:
    return rhos[:, None] * base + np.sqrt(1.0 - rhos**2)[:, None] * other


def _design(domain: str, d: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Unit-scale pairs for a named domain."""
    rhos = np.array(CORRELATIONS)
    nc = len(rhos)
    if d < min_dim(domain):
        raise UsageError(f"the {domain} domain needs d >= {min_dim(domain)}, got d = {d}: the sphere S^0 = {{-1, +1}} "
                         "has no pair with a correlation strictly between -1 and 1 (use --domain gaussian, or a "
                         "domain callable)")
    if domain == "gaussian":
        xe = rng.standard_normal((N_EQUAL, d))
        xa = rng.standard_normal((N_ANTIPODAL, d))
        xc = rng.standard_normal((nc, d))
        zc = rng.standard_normal((nc, d))
        X = np.vstack([xe, xa, xc])
        Y = np.vstack([xe, -xa, _corr_pairs(xc, zc, rhos)])
    elif domain == "sphere":
        xe = _unit_rows(rng.standard_normal((N_EQUAL, d)))
        xa = _unit_rows(rng.standard_normal((N_ANTIPODAL, d)))
        xc = _unit_rows(rng.standard_normal((nc, d)))
        z = rng.standard_normal((nc, d))
        z = _unit_rows(z - np.sum(z * xc, axis=1, keepdims=True) * xc)  # orthogonal to x
        X = np.vstack([xe, xa, xc])
        Y = np.vstack([xe, -xa, _corr_pairs(xc, z, rhos)])  # exactly <x, y> = rho
    elif domain == "positive":
        # No antipodes in the orthant: the far pairs have disjoint supports instead.
        xe = np.abs(rng.standard_normal((N_EQUAL, d)))
        half = max(1, d // 2)
        xa = np.abs(rng.standard_normal((N_ANTIPODAL, d)))
        ya = np.abs(rng.standard_normal((N_ANTIPODAL, d)))
        xa[:, half:] = 0.0
        ya[:, :half] = 0.0
        if d == 1:
            ya = xa * 10.0
        xc = np.abs(rng.standard_normal((nc, d)))
        zc = np.abs(rng.standard_normal((nc, d)))
        X = np.vstack([xe, xa, xc])
        Y = np.vstack([xe, ya, np.abs(_corr_pairs(xc, zc, rhos))])
    else:
        raise UsageError(f"unknown domain {domain!r}; use one of {', '.join(DOMAINS)} or a callable")
    labels = ["equal"] * N_EQUAL + ["antipodal" if domain != "positive" else "disjoint"] * N_ANTIPODAL
    labels += [f"corr={r:+.3f}" for r in rhos]
    return X, Y, labels


class Pairwise(Protocol):
    """What the scale calibration needs of a kernel: its values at pairs of rows."""

    def pairwise(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray: ...


def _normalised_independent(kernel: Pairwise, X: np.ndarray, Y: np.ndarray) -> float:
    kxy = kernel.pairwise(X, Y)
    kxx = kernel.pairwise(X, X)
    kyy = kernel.pairwise(Y, Y)
    denom = np.sqrt(np.abs(kxx * kyy))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(denom > 0, kxy / denom, 0.0)
    return float(np.median(r))


def calibrate_scale(kernel: Pairwise, d: int, rng: np.random.Generator, positive: bool) -> float:
    """Find s with median normalised k(s x, s x') ~= e^-2 for independent x, x'.

    Bisection on log10 s in [-4, 4] (40 halvings, so log-scale accuracy 2e-11);
    a kernel whose normalised values do not move by 0.05 across that range is
    scale-free (e.g. arc-cosine kernels) and gets s = 1.
    """
    A = rng.standard_normal((32, d))
    B = rng.standard_normal((32, d))
    if positive:
        A, B = np.abs(A), np.abs(B)

    def f(log_s: float) -> float:
        s = 10.0**log_s
        return _normalised_independent(kernel, s * A, s * B)

    lo, hi = -4.0, 4.0
    flo, fhi = f(lo), f(hi)
    if abs(flo - fhi) < 0.05:
        return 1.0
    decreasing = flo > fhi
    target = TARGET_INDEPENDENT
    if not (min(flo, fhi) <= target <= max(flo, fhi)):
        return 10.0 ** (lo if abs(flo - target) < abs(fhi - target) else hi)
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        fm = f(mid)
        if (fm > target) == decreasing:
            lo = mid
        else:
            hi = mid
    return 10.0 ** (0.5 * (lo + hi))


def make_pairs(
    domain: str | Callable[[int, int, np.random.Generator], npt.ArrayLike],
    d: int,
    kernel: Kernel,
    rng: np.random.Generator,
) -> PairSet:
    """The designed pair set for ``domain`` in dimension ``d``, with exact kernel values.

    ``domain`` is a name from :data:`DOMAINS` or a callable ``domain(n, d, rng) -> X``
    returning n points; for a callable, pairs are equal pairs plus independent
    pairs of its points (no antipodes: the domain may not be symmetric).
    """
    if callable(domain):
        name = getattr(domain, "__qualname__", type(domain).__name__)
        n_total = N_EQUAL + len(CORRELATIONS)
        from rfverify import guard  # the user's domain is a plug-in too

        hint = "a domain callable must be domain(n, d, rng) -> (n, d) array"
        A, B = (guard.as_array(guard.call(domain, n_total, d, rng, plugin=f"domain {name}", action="domain(n, d, rng)",
                                          hint=hint), plugin=f"domain {name}", action="domain(n, d, rng)")
                for _ in range(2))
        if A.dtype != np.float64 or B.dtype != np.float64:
            A, B = A.astype(np.float64), B.astype(np.float64)
        if A.shape != (n_total, d) or B.shape != (n_total, d):
            raise PluginError(f"domain {name}", f"returned shape {A.shape}, expected ({n_total}, {d})",
                              "a domain callable must be domain(n, d, rng) -> (n, d) array")
        X = A
        Y = np.vstack([A[:N_EQUAL], B[N_EQUAL:]])
        labels = ["equal"] * N_EQUAL + ["random"] * (n_total - N_EQUAL)
        scale = 1.0
        dom_name = name
    else:
        X, Y, labels = _design(domain, d, rng)
        dom_name = domain
        if domain == "sphere":
            scale = 1.0
        else:
            length = kernel.length_scale(d)
            scale = length if length is not None else calibrate_scale(kernel, d, rng, domain == "positive")
            X, Y = scale * X, scale * Y
    exact = kernel.pairwise(X, Y)
    diag = np.sqrt(np.abs(kernel.pairwise(X, X) * kernel.pairwise(Y, Y)))
    return PairSet(X, Y, tuple(labels), exact, float(scale), dom_name, diag)

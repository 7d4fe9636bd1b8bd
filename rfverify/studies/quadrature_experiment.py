"""munkhoeva2018 §4.2 on data rfverify generates itself: relative Frobenius error of kernel approximations.

``frobenius_table(...)`` returns rows ``{dataset, d, kernel, method, rules, frequencies, mean, se, runs}``
with the mean and standard error over ``runs`` independent draws of
``||K - K_hat||_F / ||K||_F``.  Methods at an equal number of frequencies
``m = 2 (d + 1) n`` for ``n`` SR rules (the x-axis of the paper's Fig. 1):

* ``RFF``  — i.i.d. N(0, I) frequencies (SR^{1,1});
* ``ORF``  — blocks ``rho_i Q e_i``, Q Haar, rho_i ~ chi(d) (SR^{1,3});
* ``QMC-halton`` / ``QMC-sobol`` — scrambled scipy.stats.qmc points with a
  Cranley–Patterson random shift, mapped by the inverse normal CDF;
* ``SR33-butterfly`` / ``SR33-haar`` — eq. 5 with the centre node (the exact
  signed estimate, :meth:`QuadratureFeatures.kernel`); ``SR33pv-*`` the
  per-vertex-rho variant (§2.3, the paper's method B with butterflies).

Kernels: rbf with gamma = 1/d (the paper's default) and the arc-cosine
kernels of order 0 and 1 (Cho & Saul, (1/pi) |x|^n |y|^n J_n(theta)).
Data sets (``DATASETS``): Gaussian, a Gaussian mixture, and points near a
3-dimensional subspace — generated from ``rng``, no downloads.
"""

from __future__ import annotations

import math
from typing import Callable, Iterable

import numpy as np
from scipy import stats
from scipy.stats import qmc

from rfverify.implementations.orthogonal import haar_qr
from rfverify.implementations.quadrature import RULES, _phi
from rfverify.results import JSONValue

__all__ = ["DATASETS", "exact_gram", "frobenius_table", "format_table"]


def _gaussian(n: int, d: int, rng: np.random.Generator) -> np.ndarray:
    return rng.standard_normal((n, d))


def _mixture(n: int, d: int, rng: np.random.Generator) -> np.ndarray:
    centres = 2.0 * rng.standard_normal((5, d))
    return centres[rng.integers(0, 5, size=n)] + 0.5 * rng.standard_normal((n, d))


def _subspace(n: int, d: int, rng: np.random.Generator) -> np.ndarray:
    B = np.linalg.qr(rng.standard_normal((d, 3)))[0]
    return 2.0 * rng.standard_normal((n, 3)) @ B.T + 0.1 * rng.standard_normal((n, d))


DATASETS: dict[str, Callable[[int, int, np.random.Generator], np.ndarray]] = {
    "gaussian": _gaussian, "mixture": _mixture, "subspace": _subspace}


def exact_gram(X: np.ndarray, kernel: str, d: int) -> np.ndarray:
    """The exact Gram matrix (rbf gamma = 1/d; arccos0/arccos1 of Cho & Saul)."""
    if kernel == "rbf":
        sq = (X * X).sum(1)
        return np.exp(-np.maximum(sq[:, None] + sq[None, :] - 2 * X @ X.T, 0.0) / d)
    order = int(kernel[-1])
    nx = np.linalg.norm(X, axis=1)
    c = np.clip((X @ X.T) / np.outer(nx, nx), -1.0, 1.0)
    t = np.arccos(c)
    J = (math.pi - t) if order == 0 else (np.sqrt(1 - c * c) + (math.pi - t) * c)
    return np.outer(nx, nx) ** order * J / math.pi


def _estimate(X: np.ndarray, W: np.ndarray, w: np.ndarray, kernel: str, d: int) -> np.ndarray:
    """sum_i w_i phi(W_i . x) phi(W_i . y); W rows are N(0, I)-scale points (rbf scaled by sqrt(2 gamma))."""
    if kernel == "rbf":
        T = X @ (math.sqrt(2.0 / d) * W).T
        feats = _phi("rbf", 0, T)
    else:
        feats = _phi("arccos", int(kernel[-1]), X @ W.T)
    K = np.zeros((X.shape[0], X.shape[0]))
    for f in feats:
        K += (f * w) @ f.T
    return K


def _points(method: str, d: int, rules: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    m = 2 * (d + 1) * rules
    if method == "RFF":
        return rng.standard_normal((m, d)), np.full(m, 1.0 / m)
    if method == "ORF":
        blocks: list[np.ndarray] = []
        while sum(b.shape[0] for b in blocks) < m:
            blocks.append((haar_qr(d, rng) * np.sqrt(rng.chisquare(d, size=d))).T)
        W = np.vstack(blocks)[:m]
        return W, np.full(m, 1.0 / m)
    if method.startswith("QMC"):
        eng = qmc.Halton(d, scramble=True, rng=rng) if method == "QMC-halton" else qmc.Sobol(d, scramble=True, rng=rng)
        u = eng.random(m) if method == "QMC-halton" else eng.random_base2(max(0, math.ceil(math.log2(m))))[:m]
        u = np.mod(u + rng.random(d), 1.0)  # random shift: every point uniform
        u = np.clip(u, 2.0**-53, 1 - 2.0**-53)
        return stats.norm.ppf(u), np.full(m, 1.0 / m)
    rule = RULES[{"SR33-butterfly": "sr33-butterfly", "SR33-haar": "sr33-haar",
                  "SR33pv-butterfly": "sr33-per-vertex-butterfly", "SR33pv-haar": "sr33-per-vertex-haar"}[method]]
    P, w = rule.draw_many(d, rules, rng)
    return P, w / rules


METHODS = ("RFF", "ORF", "QMC-halton", "QMC-sobol", "SR33-butterfly", "SR33-haar", "SR33pv-butterfly",
           "SR33pv-haar")
KERNELS = ("rbf", "arccos0", "arccos1")


def frobenius_table(*, datasets: Iterable[str] = ("gaussian", "mixture", "subspace"), d: int = 16,
                    n_points: int = 200, rules: Iterable[int] = (1, 2, 4, 8), kernels: Iterable[str] = KERNELS,
                    methods: Iterable[str] = METHODS, runs: int = 10,
                    rng: int | np.random.Generator | np.random.SeedSequence | None = 0) -> list[dict[str, JSONValue]]:
    """Mean and standard error of ||K - K_hat||_F / ||K||_F over ``runs`` draws per setting."""
    gen = np.random.default_rng(rng)
    rows = []
    for ds in datasets:
        X = DATASETS[ds](n_points, d, gen)
        for kernel in kernels:
            K = exact_gram(X, kernel, d)
            nK = np.linalg.norm(K)
            for n in rules:
                for method in methods:
                    errs = []
                    for _ in range(runs):
                        W, w = _points(method, d, n, gen)
                        errs.append(float(np.linalg.norm(K - _estimate(X, W, w, kernel, d)) / nK))
                    e = np.array(errs)
                    rows.append({"dataset": ds, "d": d, "kernel": kernel, "method": method, "rules": n,
                                 "frequencies": 2 * (d + 1) * n, "mean": float(e.mean()),
                                 "se": float(e.std(ddof=1) / math.sqrt(runs)), "runs": runs})
    return rows


def format_table(rows: list[dict[str, JSONValue]]) -> str:
    """A plain-text table: one line per (dataset, kernel, rules), one column per method."""
    methods = list(dict.fromkeys(r["method"] for r in rows))
    keys = list(dict.fromkeys((r["dataset"], r["kernel"], r["rules"]) for r in rows))
    by = {(r["dataset"], r["kernel"], r["rules"], r["method"]): r for r in rows}
    head = f"{'dataset':9} {'kernel':8} {'n':>3} " + " ".join(f"{m:>17}" for m in methods)
    lines = [head]
    for ds, k, n in keys:
        cells = [f"{by[(ds, k, n, m)]['mean']:.4f}±{by[(ds, k, n, m)]['se']:.4f}" if (ds, k, n, m) in by else ""
                 for m in methods]
        lines.append(f"{ds:9} {k:8} {n:>3} " + " ".join(f"{c:>17}" for c in cells))
    return "\n".join(lines)

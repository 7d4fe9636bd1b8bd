"""Claims of the CS4787 lecture 16, *Kernels and Feature Extraction* (random Fourier features), judged from evidence.

Every draw comes from ``np.random.default_rng([SEED, key])`` with a fixed key per claim; Monte Carlo
intervals are CLT intervals at level ``1 - ALPHA`` (``ALPHA = 1e-3``) and binomial frequencies use
Clopper–Pearson intervals at the same level.  Positive semidefiniteness is tested by the smallest
eigenvalue of a Gram matrix against the round-off bound ``n * eps * max|K|`` (Weyl's inequality with
the backward error of ``numpy.linalg.eigvalsh``).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from rfverify.studies.claims._common import claim_list, level
from rfverify.studies.claims.verdicts import Finding

__all__ = ["CLAIMS", "SOURCE", "ALPHA", "SEED"]

SOURCE = "cs4787"
ALPHA = 1e-3
SEED = 20171204
_Z = float(stats.norm.isf(ALPHA / 2))
_LEVEL = level(ALPHA)
_EPS = float(np.finfo(float).eps)

CLAIMS, claim = claim_list(SOURCE)


def _rng(key: int) -> np.random.Generator:
    return np.random.default_rng([SEED, key])


def _min_eig(K: np.ndarray) -> tuple[float, float]:
    """Smallest eigenvalue of a symmetric Gram matrix and its round-off bound ``n eps max|K|``."""
    K = (K + K.T) / 2
    return float(np.linalg.eigvalsh(K)[0]), 10 * K.shape[0] * _EPS * float(np.max(np.abs(K)))


def _rbf(X: np.ndarray, Y: np.ndarray, gamma: float) -> np.ndarray:
    d2 = np.sum(X * X, 1)[:, None] + np.sum(Y * Y, 1)[None, :] - 2 * X @ Y.T
    return np.exp(-gamma * np.maximum(d2, 0))


@claim("rbf-range", "\"Kernel regression under the RBF kernel\"",
       "K(x, y) = exp(-gamma ||x - y||^2): 0 < K(x, y) <= 1 and K(x, y) = 1 if and only if x = y",
       "exact arithmetic (||x - y|| > 0 iff x != y) checked on 2000 random pairs in d = 5; gamma = 0 separately")
def _rbf_range() -> tuple[str, Finding]:
    rng = _rng(1)
    X, Y = rng.standard_normal((2000, 5)), rng.standard_normal((2000, 5)) * 0.5
    vals = np.exp(-0.5 * np.sum((X - Y) ** 2, 1))
    diag = np.exp(-0.5 * np.sum((X - X) ** 2, 1))
    ok = bool(np.all(vals > 0) and np.all(vals < 1) and np.all(diag == 1))
    zero = float(np.exp(-0.0 * np.sum((X[0] - Y[0]) ** 2)))
    return (f"With gamma = 0.5 the 2000 values of K(x, y), x != y, lie in [{vals.min():.2e}, {vals.max():.4f}] and "
            f"K(x, x) = 1 exactly; with gamma = 0, K(x, y) = {zero:g} for x != y (float64 also underflows to 0 once "
            "gamma ||x - y||^2 > 745, which the exact statement ignores).",
            Finding(False, counterexample="gamma = 0: K = 1 for every x != y", condition="gamma > 0",
                    holds_under_condition=ok))


@claim("polynomial-kernel", "\"Grand list of Kernels\"", "Polynomial kernels: (gamma x^T y + r)^d [are kernels]",
       "smallest Gram eigenvalue vs the round-off bound 10 n eps max|K|: 200 random (gamma, r, d, 12 points in R^3)")
def _polynomial() -> tuple[str, Finding]:
    rng = _rng(2)
    worst_ok = math.inf
    for _ in range(200):
        gamma, r, deg = rng.uniform(0.1, 2), rng.uniform(0, 2), int(rng.integers(1, 5))
        X = rng.standard_normal((12, 3))
        lam, tol = _min_eig((gamma * X @ X.T + r) ** deg)
        worst_ok = min(worst_ok, lam + tol)
    Xc = np.array([[0.0], [1.0]])
    lam_neg, _ = _min_eig((1.0 * Xc @ Xc.T - 1.0) ** 1)
    lam_neg2, _ = _min_eig((np.array([[0.0], [1.0], [2.0]]) @ np.array([[0.0, 1.0, 2.0]]) - 1.0) ** 2)
    return (f"With r >= 0 (gamma > 0, d = 1..4) every one of 200 Gram matrices is PSD to round-off (smallest "
            f"eigenvalue plus bound {worst_ok:.2e} >= 0); with r = -1 the Gram of {{0, 1}} at d = 1 has eigenvalue "
            f"{lam_neg:.3f} (K(0, 0) = -1), and of {{0, 1, 2}} at d = 2 eigenvalue {lam_neg2:.3f}.",
            Finding(False, counterexample="r = -1, d = 1, x = 0: K(0, 0) = -1", condition="r >= 0 (and gamma >= 0)",
                    holds_under_condition=worst_ok >= 0))


@claim("sigmoid-kernel", "\"Grand list of Kernels\"", "Sigmoid: tanh(gamma x^T y + r) [is a kernel]",
       "smallest Gram eigenvalue of a 2-point witness vs round-off; search over 200 random (gamma, r, 2 points in R)",
       notation=(('kernel',
                  'a positive semi-definite kernel',
                  "the lecture's definition of a kernel (inner product of feature maps)"),),
       audit='re-audited against the notation rule (2026-11-29): one reading; verdict stands')
def _sigmoid() -> tuple[str, Finding]:
    X = np.array([[1.0], [2.0]])
    lam, tol = _min_eig(np.tanh(X @ X.T))
    rng = _rng(3)
    bad = 0
    for _ in range(200):
        gamma, r = rng.uniform(0.1, 3), rng.uniform(-2, 2)
        P = rng.standard_normal((2, 1))
        bad += _min_eig(np.tanh(gamma * P @ P.T + r))[0] < -_min_eig(np.tanh(gamma * P @ P.T + r))[1]
    return (f"For gamma = 1, r = 0 the Gram of x = 1, 2 is [[tanh 1, tanh 2], [tanh 2, tanh 4]] with eigenvalue "
            f"{lam:.4f} < 0 (round-off bound {tol:.1e}); {bad} of 200 random 2-point Grams are indefinite.",
            Finding(lam >= -tol, counterexample=f"gamma = 1, r = 0, x = (1, 2): eigenvalue {lam:.3f}"))


def _phi_poly2(X: np.ndarray) -> np.ndarray:
    """Explicit features of (x^T y)^2: vec(x x^T)."""
    return np.einsum("ni,nj->nij", X, X).reshape(X.shape[0], -1)


@claim("linear-kronecker", "\"Grand list of Kernels\"",
       "Linear kernel: x^T y; Kronecker delta: K(x, y) = 1 if x = y, 0 otherwise [are kernels]",
       "symmetry and the smallest Gram eigenvalue vs the round-off bound 10 n eps max|K|: 200 random sets of 12 points "
       "in R^3 (with repeated points for the Kronecker delta)")
def _linear_kronecker() -> tuple[str, Finding]:
    rng = _rng(7)
    worst = {"linear": np.inf, "kronecker": np.inf}
    symmetric = True
    for _ in range(200):
        X = rng.standard_normal((12, 3)) * rng.uniform(0.1, 10)
        X[rng.integers(0, 12, 4)] = X[rng.integers(0, 12, 4)]  # repeated points
        grams = {"linear": X @ X.T, "kronecker": np.all(X[:, None, :] == X[None, :, :], axis=2).astype(float)}
        for name, K in grams.items():
            tol = 10 * len(K) * np.finfo(float).eps * np.max(np.abs(K))
            symmetric &= bool(np.array_equal(K, K.T))
            worst[name] = min(worst[name], float(np.linalg.eigvalsh(K)[0]) / tol)
    ok = symmetric and all(v >= -1 for v in worst.values())
    return (f"The smallest Gram eigenvalue is at least {worst['linear']:.2f} round-off bounds for x^T y and "
            f"{worst['kronecker']:.2f} for the Kronecker delta (a block matrix of ones per repeated point) over 200 sets; "
            f"both Grams are {'symmetric' if symmetric else 'NOT symmetric'}.",
            Finding(ok, counterexample="an eigenvalue below -1 round-off bound"))


@claim("composition-rules", "\"Constructing kernels\" (table)",
       "x^T A y <- sqrt(A) x; c K1 <- sqrt(c) phi1; K1 + K2 <- [phi1; phi2]; K1 K2 <- phi1 (x) phi2; "
       "f(x) K1 f(y) <- phi1(x) f(x); exp(K1) is a kernel",
       "exact feature maps vs Gram matrices on 25 random points in R^4 (round-off bound 10 n eps max|K|); "
       "exp(K1) by its smallest eigenvalue")
def _composition() -> tuple[str, Finding]:
    rng = _rng(4)
    X = rng.standard_normal((25, 4))
    B = rng.standard_normal((4, 4))
    A = B @ B.T
    w, V = np.linalg.eigh(A)
    sqrtA = V @ np.diag(np.sqrt(np.maximum(w, 0))) @ V.T
    K1, P1 = (X @ X.T) ** 2, _phi_poly2(X)
    K2, P2 = X @ X.T, X
    f = np.sin(X[:, 0]) + 2
    c = 0.7
    cases = {
        "x^T A y": (X @ A @ X.T, X @ sqrtA.T),
        "c K1": (c * K1, math.sqrt(c) * P1),
        "K1 + K2": (K1 + K2, np.hstack([P1, P2])),
        "K1 K2": (K1 * K2, np.einsum("ni,nj->nij", P1, P2).reshape(25, -1)),
        "f K1 f": (f[:, None] * K1 * f[None, :], P1 * f[:, None]),
    }
    errs = {k: float(np.max(np.abs(F @ F.T - K)) / (25 * _EPS * np.max(np.abs(K)))) for k, (K, F) in cases.items()}
    Kn = K2 / 4  # exp of the scaled linear kernel: exp(K) = sum K^i / i!, a limit of kernels (Schur product)
    lam, tol = _min_eig(np.exp(Kn))
    ok = all(e <= 10 for e in errs.values()) and lam >= -tol
    return ("The five feature maps reproduce their kernels to within " + ", ".join(f"{e:.2f}" for e in errs.values())
            + f" units of n eps max|K| (x^T A y, c K1, K1 + K2, K1 K2, f K1 f; bound 10); the smallest eigenvalue of "
            f"exp(x^T y/4) on the same points is {lam:.2e} (round-off bound {tol:.1e}).",
            Finding(ok, counterexample="a feature map off its kernel beyond round-off, or exp(K1) indefinite"))


@claim("composition-dimensions", "\"Constructing kernels\" (table, column 'Dimension of phi')",
       "Dimension of phi: d for x^T A y (X = R^d); D_1 for c K1; D_1 + D_2 for K1 + K2; D_1 D_2 for K1 K2; D_1 for "
       "f(x) K1 f(y); infinity for exp(K1)",
       "the table's own feature maps built on 25 points in R^4 (phi_1: degree-2 monomials, D_1 = 16; phi_2 = x, D_2 = 4), "
       "their widths, and each map's Gram against its kernel (round-off 10 n eps max|K|); exp(K1): the series map "
       "(+)_i phi_1^(x)i / sqrt(i!) has sum_i D_1^i coordinates, and for K1 = xy on R the Gram of exp(x_i x_j) at n "
       "distinct points has full rank n (mpmath, 50 digits) for n = 2..12",
       notation=(("Dimension of phi", "the number of coordinates of the map the table gives (or omits, for exp)",
                  "the table's 'Corresponding Feature Map' column"),),
       audit="added 2026-11-29 and audited against the notation rule: the column gives the dimension of the "
             "constructed map, not the smallest possible one (x^T A y needs only rank(A)); read so, every entry is "
             "checked")
def _dimensions() -> tuple[str, Finding]:
    from mpmath import mp

    rng = _rng(9)
    X = rng.standard_normal((25, 4))
    B = rng.standard_normal((4, 4))
    A = B @ B.T
    w, V = np.linalg.eigh(A)
    sqrtA = V @ np.diag(np.sqrt(np.maximum(w, 0))) @ V.T
    P1, P2 = _phi_poly2(X), X
    D1, D2, d = P1.shape[1], P2.shape[1], X.shape[1]
    f = np.cos(X[:, 1]) + 2
    maps = {  # rule: (map, its kernel, the table's dimension)
        "x^T A y": (X @ sqrtA.T, X @ A @ X.T, d),
        "c K1": (math.sqrt(0.7) * P1, 0.7 * (X @ X.T) ** 2, D1),
        "K1 + K2": (np.hstack([P1, P2]), (X @ X.T) ** 2 + X @ X.T, D1 + D2),
        "K1 K2": (np.einsum("ni,nj->nij", P1, P2).reshape(25, -1), (X @ X.T) ** 3, D1 * D2),
        "f K1 f": (P1 * f[:, None], f[:, None] * (X @ X.T) ** 2 * f[None, :], D1),
    }
    widths = {k: F.shape[1] for k, (F, _, _) in maps.items()}
    errs = {k: float(np.max(np.abs(F @ F.T - K)) / (25 * _EPS * np.max(np.abs(K)))) for k, (F, K, _) in maps.items()}
    dims_ok = all(widths[k] == n for k, (_, _, n) in maps.items()) and all(e <= 10 for e in errs.values())
    ranks = []
    with mp.workdps(50):
        for n in range(2, 13):
            pts = [mp.mpf(-1) + 2 * mp.mpf(i) / (n - 1) for i in range(n)]
            G = mp.matrix([[mp.exp(a * b) for b in pts] for a in pts])
            ev = min(mp.eigsy(G)[0])
            ranks.append((n, ev))
    full = all(ev > mp.mpf(10) ** -40 for _, ev in ranks)
    n_last, ev_last = ranks[-1]
    return ("The maps have " + ", ".join(f"{widths[k]} ({k})" for k in maps) + f" coordinates with D_1 = {D1}, "
            f"D_2 = {D2}, d = {d}, as the column says, and reproduce their kernels within "
            f"{max(errs.values()):.2f} units of n eps max|K|; for exp(x y) on R the Gram at n distinct points has "
            f"smallest eigenvalue {mp.nstr(ev_last, 3)} at n = {n_last} (50 digits; > 0 at every n = 2..12), so no map "
            "of dimension below 12 reproduces it, as the series (full rank at every n) predicts for any finite size.",
            Finding(dims_ok and full, counterexample="a width off the column, or a rank-deficient exp Gram"))


@claim("rff-identity", "\"Random Fourier features\"",
       "omega ~ N(0, 2 gamma I), b ~ U[0, 2 pi]: exp(-gamma ||x - y||^2) = E[2 cos(omega^T x + b) cos(omega^T y + b)]",
       f"exact (E cos(omega^T delta) = exp(-gamma |delta|^2), the Gaussian characteristic function) and Monte Carlo, "
       f"2x10^5 draws per pair, {_LEVEL} CLT intervals, 3 pairs in d = 10, gamma = 0.1")
def _rff() -> tuple[str, Finding]:
    rng = _rng(5)
    gamma, d, n = 0.1, 10, 200_000
    X, Y = rng.uniform(0, 1, (3, d)), rng.uniform(0, 1, (3, d))
    Y[2] = X[2] + 2.0 * rng.standard_normal(d) / math.sqrt(d)
    parts, ok = [], True
    for i in range(3):
        w = rng.standard_normal((n, d)) * math.sqrt(2 * gamma)
        b = rng.uniform(0, 2 * np.pi, n)
        s = 2 * np.cos(w @ X[i] + b) * np.cos(w @ Y[i] + b)
        k = math.exp(-gamma * float(np.sum((X[i] - Y[i]) ** 2)))
        m, hw = float(s.mean()), _Z * float(s.std(ddof=1)) / math.sqrt(n)
        ok &= abs(m - k) <= hw
        parts.append(f"{m:.4f} +/- {hw:.4f} vs K = {k:.4f}")
    return (f"Monte Carlo means ({_LEVEL} intervals): " + "; ".join(parts) + ", each interval containing K.",
            Finding(bool(ok), counterexample="an interval excluding K"))


@claim("rff-hoeffding", "\"Random Fourier features\", Hoeffding bound",
       "P(|K(x, y) - psi(x)^T psi(y)| >= a) <= 2 exp(-D a^2 / 8)",
       f"Hoeffding for 2 cos cos in [-2, 2] (exact); Monte Carlo: 10000 maps with D = 64 at one pair, tail frequency "
       f"with a {_LEVEL} Clopper-Pearson interval at a = 0.25, 0.5, 0.75")
def _hoeffding() -> tuple[str, Finding]:
    rng = _rng(6)
    gamma, d, D, R = 0.1, 10, 64, 10_000
    x, y = rng.uniform(0, 1, d), rng.uniform(0, 1, d)
    k = math.exp(-gamma * float(np.sum((x - y) ** 2)))
    err = np.empty(R)
    for r in range(0, R, 1000):
        w = rng.standard_normal((1000, D, d)) * math.sqrt(2 * gamma)
        b = rng.uniform(0, 2 * np.pi, (1000, D))
        err[r:r + 1000] = np.abs((2 / D) * np.sum(np.cos(w @ x + b) * np.cos(w @ y + b), 1) - k)
    parts, ok = [], True
    for a in (0.25, 0.5, 0.75):
        hits = int(np.sum(err >= a))
        ci = stats.binomtest(hits, R).proportion_ci(1 - ALPHA, method="exact")
        bound = 2 * math.exp(-D * a * a / 8)
        ok &= ci.low <= bound
        parts.append(f"a = {a}: frequency {hits / R:.4f} [{ci.low:.4f}, {ci.high:.4f}] <= bound {bound:.4f}")
    return ("; ".join(parts) + " (the bound is loose: Hoeffding ignores the variance).",
            Finding(bool(ok), counterexample="a tail frequency above the bound"))


@claim("same-model", "\"Tradeoffs when Learning with Kernels\"",
       "All of these methods will result in the same trained model at the end (assuming no numerical imprecision)",
       "SGD (logistic loss, w_0 = 0) with the same index sequence: on w with cached explicit features of (x^T y)^2 "
       "vs on u with the Gram matrix; 60 points in R^3, 3000 steps; predictions on 40 test points")
def _same_model() -> tuple[str, Finding]:
    rng = _rng(7)
    X, Xt = rng.standard_normal((60, 3)), rng.standard_normal((40, 3))
    y = np.sign(X[:, 0] * X[:, 1] + 0.1)
    idx = rng.integers(0, 60, 3000)
    P, G = _phi_poly2(X), (X @ X.T) ** 2
    alpha = 0.05

    def lp(wx: float, yy: float) -> float:
        return -yy / (1 + math.exp(wx * yy))

    w, u = np.zeros(P.shape[1]), np.zeros(60)
    for i in idx:
        w -= alpha * lp(float(P[i] @ w), y[i]) * P[i]
        u[i] -= alpha * lp(float(G[i] @ u), y[i])
    pw, pu = _phi_poly2(Xt) @ w, ((Xt @ X.T) ** 2) @ u
    diff = float(np.max(np.abs(pw - pu)))
    scale = float(np.max(np.abs(pw)))
    return (f"The largest difference between the two models' predictions is {diff:.1e} (predictions up to "
            f"{scale:.2f}; bound 1e-9 relative), the round-off of 3000 updates.", Finding(diff <= 1e-9 * max(scale, 1),
                                                                              counterexample=f"predictions differ by {diff:.1e}"))


@claim("cost-table", "\"Tradeoffs when Learning with Kernels\" (cost table)",
       "Option 1: O(dDT) compute, O(D) memory; 2: O(ndD + DT), O(nD); 3: O(ndT), O(n); 4: O(n^2 d + nT), O(n^2)",
       "none (operation counts)")
def _costs() -> tuple[str, Finding]:
    return ("Asymptotic operation and memory counts; rfverify measures kernels and feature maps, not algorithm "
            "costs, and a timing could not confirm a big-Theta bound.",
            Finding(None, uncheckable="big-Theta operation counts are not a numerical statement about a kernel"))

"""Claims of alber2017 (arc-cosine features, deep recursion) and munkhoeva2018 (Props. 2.1-2.2), checked numerically.

``evaluate_zoo_claims()`` is registered in :data:`rfverify.claims.CLAIM_PROVIDERS`.  Every number
comes from fixed seeds (Monte Carlo with a stated 99.9% normal interval) or exact arithmetic.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from rfverify.kernels import get_kernel
from rfverify.implementations.orthogonal import haar_qr

__all__ = ["evaluate_zoo_claims"]

_Z = float(stats.norm.isf(0.0005))  # 99.9% two-sided


def _ci(samples: np.ndarray) -> tuple[float, float]:
    return float(np.mean(samples)), float(_Z * np.std(samples, ddof=1) / math.sqrt(len(samples)))


def _pairs(rng: np.random.Generator, d: int = 8) -> tuple[np.ndarray, np.ndarray]:
    X = rng.standard_normal((3, d))
    Y = np.array([0.9, 0.3, -0.5])[:, None] * X + rng.standard_normal((3, d))
    X *= np.array([2.0, 0.5, 1.0])[:, None] / np.linalg.norm(X, axis=1, keepdims=True)
    Y *= np.array([3.0, 1.5, 0.7])[:, None] / np.linalg.norm(Y, axis=1, keepdims=True)
    return X, Y


def _alber_eq6() -> dict:
    rng = np.random.default_rng(20170601)
    X, Y = _pairs(rng)
    k = get_kernel("arccos", order=1)(X, Y).diagonal()
    D, R = 4096, 200
    ratios = []
    for _ in range(R):
        W = rng.standard_normal((X.shape[1], D))
        fx, fy = np.sqrt(1.0 / D) * np.maximum(X @ W, 0), np.sqrt(1.0 / D) * np.maximum(Y @ W, 0)
        ratios.append(np.sum(fx * fy, axis=1) / k)
    r = np.array(ratios)
    parts = [f"pair {i}: E[printed estimate]/k = {_ci(r[:, i])[0]:.4f} ± {_ci(r[:, i])[1]:.4f}" for i in range(3)]
    return {
        "id": "alber2017-arccos-feature-scale", "source": "alber2017", "location": "eq. (6) and eq. (10)",
        "statement": "phi(x) = sqrt(1/D) max(0, W^T x), W Gaussian, approximates k(x, x') = (1/pi)||x|| ||x'|| J(theta)",
        "method": f"Monte Carlo: {R} draws of D = {D} Gaussian features at 3 pairs (norms 2/3, 0.5/1.5, 1/0.7); "
                  "ratio of the mean estimate to the closed form; 99.9% normal intervals",
        "verdict": "holds with a correction",
        "evidence": "; ".join(parts) + " — the printed map estimates k/2: Cho & Saul's order-1 map needs "
                    "sqrt(2/D) (2 E[relu(w.x) relu(w.y)] = (1/pi)||x|| ||y|| J(theta)); with sqrt(2/D) the "
                    "ratio is 2x the above, i.e. 1 within the interval",
    }


def _deep(X: np.ndarray, Y: np.ndarray, exponent: float, layers: int) -> np.ndarray:
    """k_1 = eq. (6) (the arc-cosine kernel of the linear kernel), then alber2017's inductive step
    k_{i+1} = (1/pi) [k_i(x,x) k_i(y,y)]^exponent J(theta_i) for the remaining layers."""
    kxy, kxx, kyy = np.sum(X * Y, 1), np.sum(X * X, 1), np.sum(Y * Y, 1)
    for layer in range(layers):
        e = 0.5 if layer == 0 else exponent
        c = np.clip(kxy / np.sqrt(kxx * kyy), -1, 1)
        t = np.arccos(c)
        J = np.sin(t) + (np.pi - t) * c
        kxy = (kxx * kyy) ** e * J / np.pi
        kxx, kyy = (kxx * kxx) ** e, (kyy * kyy) ** e  # J(0) = pi
    return kxy


def _alber_deep() -> dict:
    rng = np.random.default_rng(20170602)
    X, Y = _pairs(rng)
    width, R = 2048, 60
    est = []
    for _ in range(R):
        fx, fy = X, Y
        for layer in range(2):
            W = rng.standard_normal((fx.shape[1], width))
            fx = math.sqrt(2.0 / width) * np.maximum(fx @ W, 0)
            fy = math.sqrt(2.0 / width) * np.maximum(fy @ W, 0)
        est.append(np.sum(fx * fy, axis=1))
    e = np.array(est)
    printed = _deep(X, Y, -0.5, 2)
    corrected = _deep(X, Y, 0.5, 2)
    registry = get_kernel("arccos_deep", order=1, layers=2)(X, Y).diagonal()
    parts = []
    for i in range(3):
        m, h = _ci(e[:, i])
        parts.append(f"pair {i}: 2-layer features {m:.4f} ± {h:.4f}, recursion with exponent +1/2 "
                     f"{corrected[i]:.4f}, as printed (-1/2) {printed[i]:.4f}")
    return {
        "id": "alber2017-deep-arccos-recursion", "source": "alber2017", "location": "§Deep kernel machines (after eq. 9)",
        "statement": "k_{i+1}(x, x') = (1/pi) [k_i(x, x) k_i(x', x')]^{-1/2} J(theta_i), "
                     "theta_i = arccos(k_i(x, x') [k_i(x, x) k_i(x', x')]^{-1/2})",
        "method": f"two ReLU layers of width {width} with sqrt(2/width) scaling, {R} draws, at 3 pairs with "
                  "non-unit norms (the exponent is invisible at unit norm); compared with the recursion "
                  "under both exponents and the registry's arccos_deep",
        "verdict": "holds with a correction",
        "evidence": "; ".join(parts) + f"; registry arccos_deep(1, 2) = {np.round(registry, 4).tolist()} — the "
                    "exponent must be +1/2 (n/2 for order n, Cho & Saul 2009 eq. (9)); with -1/2 the kernel "
                    "is off by the factor 1/(k_1(x, x) k_1(x', x')) (k_2(x, x) = ||x||^{-2} instead of ||x||^2)",
    }


def _munk_21() -> dict:
    rng = np.random.default_rng(20180201)
    d, n = 8, 20000
    z = np.zeros(d)
    z[0] = 1.0
    W = np.empty((n, d))
    for i in range(n):
        rho = math.sqrt(rng.chisquare(d))
        W[i] = rho * (haar_qr(d, rng=rng) @ z)
    ks = stats.kstest(W[:, 3], "norm").pvalue
    cov_err = float(np.max(np.abs(np.cov(W.T) - np.eye(d))))
    X, Y = _pairs(rng)
    kern = get_kernel("rbf", gamma=0.5)(X, Y).diagonal()
    fvals = np.cos((X - Y) @ W.T)  # f(w) = cos(w.(x - y)) = (f(w) + f(-w))/2 for the rbf integrand
    m, h = _ci(fvals[0])
    return {
        "id": "munkhoeva2018-prop-2.1", "source": "munkhoeva2018", "location": "§2.1, Proposition 2.1",
        "statement": "Random Fourier features for the RBF kernel are SR rules of degree (1, 1): rho Q z ~ N(0, I), "
                     "rho ~ chi(d), Q Haar",
        "method": f"{n} draws of rho Q e_1 in d = {d} (Q by sign-corrected QR): KS test of a coordinate against "
                  "N(0, 1), max |sample covariance - I|, and the SR(1,1) estimate of exp(-||x - y||^2/2)",
        "verdict": "holds",
        "evidence": f"KS p = {ks:.3g}; max |cov - I| = {cov_err:.3g} (sampling sd ~ {math.sqrt(2 / n):.2g}); "
                    f"mean SR(1,1) estimate at pair 0: {m:.4f} ± {h:.4f}, exact {kern[0]:.4f}. For a general "
                    "gamma the nodes are sqrt(2 gamma) rho Q z",
    }


def _munk_22() -> dict:
    rng = np.random.default_rng(20180202)
    d, R = 8, 4000
    X, Y = _pairs(rng)
    delta = (X - Y)[2]
    k = math.exp(-0.5 * float(delta @ delta))
    printed, sr13, orf = [], [], []
    for _ in range(R):
        Q = haar_qr(d, rng=rng)
        rho = math.sqrt(rng.chisquare(d))
        f_shared = np.cos(rho * (Q @ delta))  # f(rho Q e_i) for the d columns... rows of Q
        printed.append(float(np.sum(f_shared)))  # as printed: sum_{i=1}^d, no 1/d
        sr13.append(float(np.mean(f_shared)))
        s = np.sqrt(rng.chisquare(d, size=d))
        orf.append(float(np.mean(np.cos(s * (Q @ delta)))))
    p, ph = _ci(np.array(printed))
    a, ah = _ci(np.array(sr13))
    b, bh = _ci(np.array(orf))
    rff = np.array([np.mean(np.cos(rng.standard_normal((d, d)) @ delta)) for _ in range(R)])
    # exactness of the spherical rule {±Q e_i} with weights 1/(2d) for polynomials of degree <= 3
    A = rng.standard_normal((d, d))
    A = A + A.T
    c3 = rng.standard_normal(d)
    Q = haar_qr(d, rng=rng)
    nodes = np.vstack([Q.T, -Q.T])
    poly = np.einsum("ni,ij,nj->n", nodes, A, nodes) + (nodes @ c3) ** 3 + nodes[:, 0]
    exact = np.trace(A) / d  # E_z[z^T A z] = tr(A)/d; odd terms integrate to 0
    rule_err = abs(float(np.mean(poly)) - exact)
    return {
        "id": "munkhoeva2018-prop-2.2", "source": "munkhoeva2018", "location": "§2.2, Proposition 2.2",
        "statement": "Orthogonal Random Features for the RBF kernel are SR rules of degree (1, 3): "
                     "SR^{1,3} = sum_{i=1}^d [f(rho Q e_i) + f(-rho Q e_i)]/2, k_ORF = sum_{i=1}^d f(w_i)",
        "method": f"{R} draws in d = {d} at one pair (k = {k:.4f}): the printed sum, the rule with weight 1/d "
                  "(one shared rho ~ chi(d)), ORF (independent chi(d) radius per row); exactness of the "
                  "spherical rule {±Q e_i} on a random polynomial of degree 3",
        "verdict": "holds with a correction",
        "evidence": f"printed sum {p:.4f} ± {ph:.4f} = d x k (needs the weight 1/d); SR(1,3) with 1/d "
                    f"{a:.4f} ± {ah:.4f}, ORF {b:.4f} ± {bh:.4f}, both unbiased; but they are different "
                    f"rules: SR(1,3) shares one radius over the d nodes (variance {np.var(sr13):.4g}), ORF draws "
                    f"d radii (variance {np.var(orf):.4g}; i.i.d. RFF with d frequencies {np.var(rff):.4g}) — "
                    f"ORF is an SR rule of degree (1, 3) only in expectation; spherical rule error on the "
                    f"cubic {rule_err:.2g} (exact to round-off)",
    }


def evaluate_zoo_claims() -> list[dict]:
    return [_alber_eq6(), _alber_deep(), _munk_21(), _munk_22()]

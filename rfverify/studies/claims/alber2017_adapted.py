"""Claims of alber2017 about adapted bases (Fig. 1, §4.2) and the Gaussian random basis (eq. 4), checked numerically.

``evaluate_adapted_claims()`` is registered in :data:`rfverify.studies.claims.CLAIM_PROVIDERS`.  Fixed seeds;
data from :func:`~rfverify.implementations.adapted.mixture_domain` (a 4-component mixture on 2-D
pieces) in d = 32; every error is measured on held-out points (never the fitted ones); intervals are
95% Student t over seeds.  Runtime: about 10 s.
"""

from __future__ import annotations

import math

import numpy as np

from rfverify.implementations.adapted import (SupervisedAdaptedBasis, UnsupervisedAdaptedBasis, mixture_domain,
                                              mixture_labels)
from rfverify.implementations.rff import RandomFourierFeatures
from rfverify.kernels import get_kernel
from rfverify.metrics import relative_frobenius_error, t_interval, target_alignment

__all__ = ["evaluate_adapted_claims", "fig1_study"]

FIG1_D, FIG1_GAMMA = 32, 0.5
FIG1_N_FIT, FIG1_N_TEST = 512, 128
FIG1_SEEDS = 3
#: UAB at these widths; the random basis (RB) over a wider grid, so that the RB features needed for
#: UAB's error are interpolated, not extrapolated.
FIG1_UAB_M = (8, 16, 32, 64, 128)
FIG1_RB_M = (8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192)
FIG1_SAB_M = (8, 32, 128)
FIG1_STEPS = 1000


def _gram(F: np.ndarray) -> np.ndarray:
    return F @ F.T


def _needed(m: np.ndarray, err: np.ndarray, target: float) -> tuple[float, bool]:
    """Features the RB curve needs for ``target`` (log-log interpolation; slope -1/2 beyond the grid, flagged)."""
    from rfverify.properties.adapted import features_needed

    return features_needed(m, err, target)


def fig1_study(seeds: int = FIG1_SEEDS, steps: int = FIG1_STEPS) -> dict:
    """Held-out relative Frobenius error of RB (RFF) and UAB against m, the feature savings
    m_RB(e_UAB(m)) / m per seed, and SAB's target alignment against RB's."""
    kernel = get_kernel("rbf", gamma=FIG1_GAMMA)
    rb_m, uab_m = np.array(FIG1_RB_M, dtype=float), np.array(FIG1_UAB_M, dtype=float)
    e_rb = np.empty((seeds, len(rb_m)))
    e_uab = np.empty((seeds, len(uab_m)))
    savings = np.empty((seeds, len(uab_m)))
    extrapolated = False
    ta_rb = np.empty((seeds, len(FIG1_SAB_M)))
    ta_sab = np.empty((seeds, len(FIG1_SAB_M)))
    for s in range(seeds):
        rng = np.random.default_rng([20170603, s])
        X = mixture_domain(FIG1_N_FIT, FIG1_D, rng)
        Xt = mixture_domain(FIG1_N_TEST, FIG1_D, rng)
        y, yt = mixture_labels(X), mixture_labels(Xt)
        K = kernel(Xt, Xt)
        for j, m in enumerate(FIG1_RB_M):
            F = RandomFourierFeatures(m, random_state=1000 * s + j, gamma=FIG1_GAMMA).fit(X).transform(Xt)
            e_rb[s, j] = relative_frobenius_error(K, _gram(F))
        for j, m in enumerate(FIG1_UAB_M):
            uab = UnsupervisedAdaptedBasis(m, random_state=2000 * s + j, gamma=FIG1_GAMMA, n_steps=steps).fit(X)
            e_uab[s, j] = relative_frobenius_error(K, _gram(uab.transform(Xt)))
            need, flag = _needed(rb_m, e_rb[s], e_uab[s, j])
            extrapolated |= flag
            savings[s, j] = need / m
        for j, m in enumerate(FIG1_SAB_M):
            sab = SupervisedAdaptedBasis(m, random_state=3000 * s + j, gamma=FIG1_GAMMA, n_steps=steps // 2).fit(X, y)
            ta_sab[s, j] = target_alignment(_gram(sab.transform(Xt)), yt)
            ta_rb[s, j] = target_alignment(_gram(sab.initial_basis().transform(Xt)), yt)
    return {"e_rb": e_rb, "e_uab": e_uab, "savings": savings, "extrapolated": extrapolated,
            "ta_rb": ta_rb, "ta_sab": ta_sab}


def _geo(values: np.ndarray) -> tuple[float, float, float]:
    mean, lo, hi = t_interval(np.log(values))
    return math.exp(mean), math.exp(lo), math.exp(hi)


def _alber_fig1() -> dict:
    r = fig1_study()
    sav = [_geo(r["savings"][:, j]) for j in range(len(FIG1_UAB_M))]
    best = max(range(len(sav)), key=lambda j: sav[j][0])
    e_rb, e_uab = r["e_rb"].mean(axis=0), r["e_uab"].mean(axis=0)
    ta_rb, ta_sab = r["ta_rb"].mean(axis=0), r["ta_sab"].mean(axis=0)
    curve = "; ".join(f"m = {m}: UAB {e_uab[j]:.3f}, RB {e_rb[list(FIG1_RB_M).index(m)]:.3f}, savings "
                      f"x{sav[j][0]:.3g} [{sav[j][1]:.3g}, {sav[j][2]:.3g}]" for j, m in enumerate(FIG1_UAB_M))
    rb_tail = ", ".join(f"{m}: {e_rb[j]:.3f}" for j, m in enumerate(FIG1_RB_M) if m > FIG1_UAB_M[-1])
    sab = "; ".join(f"m = {m}: SAB {ta_sab[j]:.3f} vs RB {ta_rb[j]:.3f}" for j, m in enumerate(FIG1_SAB_M))
    top = sav[best][0]
    if top >= 100:
        verdict, magnitude = "holds", "two orders of magnitude reached"
    elif top >= 10:
        verdict, magnitude = "holds", ("one order of magnitude (the low end of the paper's 'one to two orders'); "
                                       "two orders (x100) NOT reproduced on this data")
    elif top > 1:
        verdict, magnitude = "holds with a correction", (f"only the direction: at most x{top:.3g}, not one to two "
                                                         "orders of magnitude")
    else:
        verdict, magnitude = "fails", "UAB does not need fewer features than RB here"
    trend = ("the advantage diminishes as m grows, as the paper says" if sav[-1][0] < sav[0][0] else
             "the savings do not diminish with m over this grid (the paper says they do)")
    return {
        "id": "alber2017-fig1-adapted-savings", "source": "alber2017", "location": "§4.2 and Fig. 1",
        "statement": "a data-dependent basis (UAB) approximates the kernel equally well with up to two orders of "
                     "magnitude fewer features than the random basis (RB); the advantage diminishes with more "
                     "features; SAB aligns better with the labels",
        "method": f"Gaussian kernel gamma = {FIG1_GAMMA} on a 4-component mixture on 2-D pieces in d = {FIG1_D} "
                  f"(rfverify.implementations.adapted.mixture_domain); fit on {FIG1_N_FIT} points, relative "
                  f"Frobenius error on {FIG1_N_TEST} held-out points; RB = RFF at m = 8...8192, UAB (RFF start, "
                  f"Adam, {FIG1_STEPS} steps of 64 pairs) at m = 8...128; savings = RB features needed for UAB's "
                  f"error (log-log interpolation) / m; {FIG1_SEEDS} seeds, 95% t-intervals of the log; SAB "
                  f"({FIG1_STEPS // 2} steps) held-out alignment with yy^T",
        "verdict": verdict,
        "evidence": f"{curve}; RB beyond: {rb_tail}. Largest savings x{top:.3g} [{sav[best][1]:.3g}, "
                    f"{sav[best][2]:.3g}] at m = {FIG1_UAB_M[best]}: {magnitude}; {trend}"
                    f"{' (some RB counts extrapolated at slope -1/2)' if r['extrapolated'] else ''}. "
                    f"Target alignment: {sab}",
    }


def _alber_eq4() -> dict:
    rng = np.random.default_rng(20170604)
    d, D, R, sigma = 8, 512, 200, 1.5
    X = rng.standard_normal((3, d))
    Y = X + np.array([0.3, 1.0, 2.0])[:, None] * rng.standard_normal((3, d)) / math.sqrt(d)
    k = np.exp(-np.sum((X - Y) ** 2, axis=1) / (2 * sigma**2))
    ratios, diag = [], []
    for _ in range(R):
        W = rng.standard_normal((d, D // 2)) / sigma  # N(0, sigma^-2 I): std 1/sigma
        def phi(A: np.ndarray) -> np.ndarray:
            return math.sqrt(1.0 / D) * np.hstack([np.sin(A @ W), np.cos(A @ W)])
        ratios.append(np.sum(phi(X) * phi(Y), axis=1) / k)
        diag.append(float(np.sum(phi(X[:1]) ** 2)))
    r = np.array(ratios)
    parts = []
    for i in range(3):
        mean, lo, hi = t_interval(r[:, i], 0.999)
        parts.append(f"pair {i} (k = {k[i]:.3f}): E[estimate]/k = {mean:.4f} [{lo:.4f}, {hi:.4f}]")
    return {
        "id": "alber2017-eq4-gaussian-scale", "source": "alber2017", "location": "eq. (4)",
        "statement": "phi(x) = sqrt(1/D) [sin(W^T x), cos(W^T x)], W in R^{d x D/2} with entries from N(0, sigma^-1), "
                     "approximates k(x, x') = exp(-||x - x'||^2 / (2 sigma^2))",
        "method": f"exact at x = x' (phi(x).phi(x) = (1/D)(D/2) for every draw); Monte Carlo: {R} draws of D = {D} "
                  f"in d = {d}, sigma = {sigma}, frequencies N(0, sigma^-2 I), 3 pairs; 99.9% t-intervals",
        "verdict": "holds with a correction",
        "evidence": f"phi(x).phi(x) = {min(diag):.6g} ... {max(diag):.6g} for every draw (k(x, x) = 1); "
                    + "; ".join(parts) + " — the printed map estimates k/2: with D/2 frequencies it needs "
                    "sqrt(2/D) (the paired RFF form sqrt(1/m)[cos, sin] for m frequencies), like eq. (6); "
                    "N(0, sigma^-1) must be read as standard deviation 1/sigma (variance sigma^-2)",
    }


def evaluate_adapted_claims() -> list[dict]:
    return [_alber_eq4(), _alber_fig1()]

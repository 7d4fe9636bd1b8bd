"""Claims of alber2017 about adapted bases (Fig. 1, §4.2) and the Gaussian random basis (eq. 4), checked numerically.

:data:`CLAIMS` is appended to :data:`rfverify.studies.claims.alber2017.CLAIMS`.  Fixed seeds;
data from :func:`~rfverify.implementations.adapted.mixture_domain` (a 4-component mixture on 2-D
pieces) in d = 32; every error is measured on held-out points (never the fitted ones); intervals are
95% Student t over seeds.  Runtime: about 10 s.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from rfverify.implementations.adapted import (SupervisedAdaptedBasis, UnsupervisedAdaptedBasis, mixture_domain,
                                              mixture_labels)
from rfverify.implementations.rff import RandomFourierFeatures
from rfverify.kernels import get_kernel
from rfverify.metrics import relative_frobenius_error, target_alignment
from rfverify.stats import t_interval
from rfverify.studies.claims._common import claim_list
from rfverify.studies.claims.verdicts import Finding

__all__ = ["CLAIMS", "fig1_study"]

#: alber2017's claims on eq. (4) and §4.2 (listed by :mod:`.alber2017` after its own).
CLAIMS, claim = claim_list("alber2017")

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


def fig1_study(seeds: int = FIG1_SEEDS, steps: int = FIG1_STEPS, uab_ms: tuple[int, ...] = FIG1_UAB_M,
               rb_ms: tuple[int, ...] = FIG1_RB_M, sab_ms: tuple[int, ...] = FIG1_SAB_M) -> dict:
    """Held-out relative Frobenius error of RB (RFF) and UAB against m, the feature savings
    m_RB(e_UAB(m)) / m per seed, and SAB's target alignment against RB's (``sab_ms = ()`` skips SAB)."""
    kernel = get_kernel("rbf", gamma=FIG1_GAMMA)
    rb_m, uab_m = np.array(rb_ms, dtype=float), np.array(uab_ms, dtype=float)
    e_rb = np.empty((seeds, len(rb_m)))
    e_uab = np.empty((seeds, len(uab_m)))
    savings = np.empty((seeds, len(uab_m)))
    extrapolated = False
    ta_rb = np.empty((seeds, len(sab_ms)))
    ta_sab = np.empty((seeds, len(sab_ms)))
    for s in range(seeds):
        rng = np.random.default_rng([20170603, s])
        X = mixture_domain(FIG1_N_FIT, FIG1_D, rng)
        Xt = mixture_domain(FIG1_N_TEST, FIG1_D, rng)
        y, yt = mixture_labels(X), mixture_labels(Xt)
        K = kernel(Xt, Xt)
        for j, m in enumerate(rb_ms):
            F = RandomFourierFeatures(m, random_state=1000 * s + j, gamma=FIG1_GAMMA).fit(X).transform(Xt)
            e_rb[s, j] = relative_frobenius_error(K, _gram(F))
        for j, m in enumerate(uab_ms):
            uab = UnsupervisedAdaptedBasis(m, random_state=2000 * s + j, gamma=FIG1_GAMMA, n_steps=steps).fit(X)
            e_uab[s, j] = relative_frobenius_error(K, _gram(uab.transform(Xt)))
            need, flag = _needed(rb_m, e_rb[s], e_uab[s, j])
            extrapolated |= flag
            savings[s, j] = need / m
        for j, m in enumerate(sab_ms):
            sab = SupervisedAdaptedBasis(m, random_state=3000 * s + j, gamma=FIG1_GAMMA, n_steps=steps // 2).fit(X, y)
            ta_sab[s, j] = target_alignment(_gram(sab.transform(Xt)), yt)
            ta_rb[s, j] = target_alignment(_gram(sab.initial_basis().transform(Xt)), yt)
    return {"e_rb": e_rb, "e_uab": e_uab, "savings": savings, "extrapolated": extrapolated,
            "ta_rb": ta_rb, "ta_sab": ta_sab}


#: The committed Fig. 1 run (the study takes 20-70 s on this machine; ``rfverify claims --recompute`` re-runs it,
#: and a slow test recomputes it and compares).
FIG1_CACHE = Path(__file__).with_name("data") / "alber2017_fig1.json"
_FIG1_ARRAYS = ("e_rb", "e_uab", "savings", "ta_rb", "ta_sab")


def _fig1_settings() -> dict:
    return {"d": FIG1_D, "gamma": FIG1_GAMMA, "n_fit": FIG1_N_FIT, "n_test": FIG1_N_TEST, "seeds": FIG1_SEEDS,
            "uab_m": list(FIG1_UAB_M), "rb_m": list(FIG1_RB_M), "sab_m": list(FIG1_SAB_M), "steps": FIG1_STEPS}


def write_fig1_cache(path: Path | None = None) -> Path:
    """Run :func:`fig1_study` at the claim's settings and commit its numbers (exact float64 via repr)."""
    import numpy
    import scipy

    r = fig1_study()
    doc = {"provenance": {"generator": "rfverify.studies.claims.alber2017_adapted.write_fig1_cache",
                          "numpy": numpy.__version__, "scipy": scipy.__version__,
                          "check": "tests/test_claims_table.py (slow) re-runs the study and compares"},
           "settings": _fig1_settings(), "extrapolated": bool(r["extrapolated"]),
           "results": {k: np.asarray(r[k]).tolist() for k in _FIG1_ARRAYS}}
    path = FIG1_CACHE if path is None else Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return path


def fig1_results() -> tuple[dict, str]:
    """The Fig. 1 study at the claim's settings: from the committed run unless recomputing; and where it came from."""
    from rfverify.highprec.tables import recompute_enabled

    if not recompute_enabled() and FIG1_CACHE.exists():
        doc = json.loads(FIG1_CACHE.read_text(encoding="utf-8"))
        if doc["settings"] == _fig1_settings():
            r = {k: np.array(v) for k, v in doc["results"].items()}
            r["extrapolated"] = doc["extrapolated"]
            return r, "the committed run (--recompute re-runs it)"
    return fig1_study(), "computed in this run"


def _geo(values: np.ndarray) -> tuple[float, float, float]:
    mean, lo, hi = t_interval(np.log(values))
    return math.exp(mean), math.exp(lo), math.exp(hi)


#: The scale of the in-run Fig. 1 experiment (the evidence behind the verdict, about 1 s of CPU): 3 seeds, UAB at
#: m = 8 and 32 after 300 Adam steps, RB (RFF) over m = 8..1024 to find the features it needs for UAB's error.
#: The full-scale run (m = 8..128, 1000 steps, SAB too) is supporting data: committed, re-run by ``--recompute``.
FIG1_RUN_UAB_M = (8, 32)
FIG1_RUN_RB_M = (8, 16, 32, 64, 128, 256, 512, 1024)
FIG1_RUN_STEPS = 300
#: "up to two orders of magnitude": the largest saving must reach x100 for the printed claim to be reproduced.
FIG1_ORDERS_FACTOR = 100.0


def _savings(r: dict, ms: tuple[int, ...]) -> list[tuple[float, float, float]]:
    return [_geo(r["savings"][:, j]) for j in range(len(ms))]


@claim("sec4.2-fig1-uab-savings", "Section 4.2 and Fig. 1",
       "a data-dependent basis can approximate the kernel equally well with up to two orders of magnitude fewer "
       "features compared to the random baseline. This hold for both the Gaussian and the ArcCos kernel. However, the "
       "advantage diminishes as the number of features increases",
       f"computed in the run at a reduced scale: held-out relative Frobenius error, Gaussian kernel gamma = {FIG1_GAMMA}, "
       f"4-component mixture on 2-D pieces in d = {FIG1_D} ({FIG1_N_FIT} fit / {FIG1_N_TEST} test points), UAB (Adam, "
       f"{FIG1_RUN_STEPS} steps) at m = 8 and 32, RB = RFF m = 8..1024, savings = RB features for UAB's error / m, "
       f"{FIG1_SEEDS} seeds, 95% t-intervals of the log; rule: largest saving >= x100 and falling with m")
def _alber_fig1() -> tuple[str, Finding]:
    run = fig1_study(seeds=FIG1_SEEDS, steps=FIG1_RUN_STEPS, uab_ms=FIG1_RUN_UAB_M, rb_ms=FIG1_RUN_RB_M, sab_ms=())
    sav = _savings(run, FIG1_RUN_UAB_M)
    top = max(s[0] for s in sav)
    diminishes = sav[-1][2] < sav[0][1]  # the last interval lies wholly below the first
    curve = ", ".join(f"x{s[0]:.3g} [{s[1]:.3g}, {s[2]:.3g}] at m = {m}" for s, m in zip(sav, FIG1_RUN_UAB_M))
    full, origin = fig1_results()
    fsav = _savings(full, FIG1_UAB_M)
    return (f"UAB needs fewer features than RB by {curve} (95%): the largest saving x{top:.3g} is "
            f"{'at least' if top >= FIG1_ORDERS_FACTOR else 'short of'} two orders of magnitude and "
            f"{'falls' if diminishes else 'does not fall'} from m = 8 to 32; the ArcCos half is not run. Supporting "
            f"full-scale data ({FIG1_STEPS} steps, m = 8..128, {origin}): x{min(s[0] for s in fsav):.3g} to "
            f"x{max(s[0] for s in fsav):.3g}, SAB's label alignment {_fmt(full['ta_sab'].mean(axis=0))} vs RB's "
            f"{_fmt(full['ta_rb'].mean(axis=0))}.",
            Finding(top >= FIG1_ORDERS_FACTOR and diminishes, empirical=True,
                    power=f"synthetic data (the paper's MNIST/CoverType runs are out of reach), d = {FIG1_D}, UAB at m = "
                          f"8 and 32 after {FIG1_RUN_STEPS} steps (reduced to keep 'rfverify claims' fast), {FIG1_SEEDS} "
                          "seeds; the intervals resolve savings to about a factor 3, so x100 would be seen"
                          + (" (some RB counts extrapolated at slope -1/2)" if run["extrapolated"] else ""),
                    audit="caveat (2026-11-29): generated data, not the paper's Gisette/MNIST/CoverType/CIFAR10, so "
                          "this row records what a generated mixture shows and cannot count against the paper's "
                          "Fig. 1; the direction (UAB needs fewer features) agrees"))


def _fmt(v: np.ndarray) -> str:
    return "/".join(f"{x:.3f}" for x in v)


@claim("eq4-gaussian-scale", "eq. (4)",
       "phi(x) = sqrt(1/D) [sin(W^T x), cos(W^T x)], W in R^{d x D/2} with entries from N(0, sigma^-1), "
       "approximates k(x, x') = exp(-||x - x'||^2 / (2 sigma^2))",
       "exact at x = x' (phi(x).phi(x) = 1/2 for every draw); Monte Carlo, 200 draws of D = 512 in d = 8, sigma = 1.5, "
       "frequencies N(0, sigma^-2 I), 3 pairs, 99.9% t-intervals of E[estimate]/k",
       notation=(('sqrt(1/D)',
                  'the feature scale as printed',
                  'eq. (4), and h(z) = sqrt(1/D)[sin(z), cos(z)] after eq. (7)'),
                 ('N(0, sigma^-1)',
                  'second argument a standard deviation',
                  "Sec. 4.1: 'substitute W_B with 1/sigma G_B, sample G_B from N(0, 1)'")),
       audit="re-audited against the notation rule (2026-11-29): the scale fails at x = x' under either reading of "
             "N(0, sigma^-1) (phi(x).phi(x) = 1/2); the correction keeps the paper's Sec. 4.1 convention; verdict "
             'stands')
def _alber_eq4() -> tuple[str, Finding]:
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
    ci = [t_interval(r[:, i], 0.999) for i in range(3)]
    printed_ok = all(lo <= 1 <= hi for _, lo, hi in ci) and abs(max(diag) - 1) <= 1e-12
    corrected_ok = all(2 * lo <= 1 <= 2 * hi for _, lo, hi in ci) and abs(2 * min(diag) - 1) <= 1e-12
    return (f"phi(x).phi(x) = {min(diag):.6g} for every draw although k(x, x) = 1, and E[estimate]/k = "
            + ", ".join(f"{m:.4f} [{lo:.4f}, {hi:.4f}]" for m, lo, hi in ci) + " (99.9%): the printed map estimates "
            "k/2; with D/2 frequencies it needs sqrt(2/D) (N(0, sigma^-1) read as the paper's Sec. 4.1 defines it: "
            "standard deviation 1/sigma).",
            Finding(printed_ok, counterexample=f"phi(x).phi(x) = {min(diag):.3g} vs k(x, x) = 1",
                    correction="phi(x) = sqrt(2/D) [sin(W^T x), cos(W^T x)] (W as printed, N(0, sigma^-1) with standard "
                               "deviation sigma^-1, Sec. 4.1)",
                    correction_holds=corrected_ok))



"""Claims of alber2017: arc-cosine feature scale (eq. 6/10), the deep recursion, and (in
:mod:`.alber2017_adapted`, which appends to :data:`CLAIMS`) eq. (4) and the adapted bases of §4.2.

Every number comes from fixed seeds (Monte Carlo with a stated 99.9% normal interval) or exact arithmetic.
"""

from __future__ import annotations

import math

import numpy as np

from rfverify.kernels import get_kernel
from rfverify.studies.claims import alber2017_adapted as _adapted
from rfverify.studies.claims._common import _ci, _pairs, claim_list
from rfverify.studies.claims.verdicts import Finding, Reading

__all__ = ["CLAIMS", "SOURCE", "evaluate_alber2017_claims"]

SOURCE = "alber2017"
#: Allowance for the finite-width bias of two stacked random layers (O(1/width) relative; 1% at width 2048).
DEEP_BIAS_ALLOWANCE = 0.01

CLAIMS, claim = claim_list(SOURCE)


@claim("eq6-arccos-scale", "eq. (6) and eq. (10)",
       "phi(x) = sqrt(1/D) max(0, W^T x), W Gaussian, approximates k(x, x') = (1/pi)||x|| ||x'|| J(theta)",
       "Monte Carlo, 200 draws of D = 4096 Gaussian features at 3 pairs (norms 2/3, 0.5/1.5, 1/0.7), 99.9% normal "
       "intervals of E[estimate]/k",
       notation=(('sqrt(1/D)',
                  'the feature scale as printed',
                  'eq. (6), and h(z) = sqrt(1/D) max(0, z) in the text after eq. (7)'),
                 ("(1/pi) ||x|| ||x'|| J(theta)",
                  "Cho & Saul's order-1 kernel",
                  'eq. (6)')),
       audit='re-audited against the notation rule (2026-11-29): the scale is printed twice, in eq. (6) and in the '
             'text, so it is not an extraction slip; verdict stands')
def _alber_eq6() -> tuple[str, Finding]:
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
    ci = [_ci(r[:, i]) for i in range(3)]
    printed_ok = all(abs(m - 1) <= h for m, h in ci)
    corrected_ok = all(abs(2 * m - 1) <= 2 * h for m, h in ci)
    return ("E[printed estimate]/k = " + ", ".join(f"{m:.4f} +/- {h:.4f}" for m, h in ci) + " at the 3 pairs (99.9%): "
            "the printed map estimates k/2; with sqrt(2/D) (Cho & Saul's order-1 map) the ratios are "
            + ", ".join(f"{2 * m:.4f} +/- {2 * h:.4f}" for m, h in ci) + ".",
            Finding(printed_ok, counterexample=f"ratio {ci[0][0]:.3f} at pair 0",
                    correction="phi(x) = sqrt(2/D) max(0, W^T x)", correction_holds=corrected_ok))


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


@claim("deep-arccos-recursion", "Deep kernel machines (after eq. 9)",
       "k_{i+1}(x, x') = (1/pi) [k_i(x, x) k_i(x', x')]^{-1/2} J(theta_i), "
       "theta_i = arccos(k_i(x, x') [k_i(x, x) k_i(x', x')]^{-1/2})",
       "Monte Carlo, 60 draws of two Gaussian ReLU layers of width 2048 (sqrt(2/width) scaling) at 3 pairs with non-unit norms, "
       "99.9% normal intervals plus a 1% finite-width bias allowance; the registry's arccos_deep",
       notation=[("[k_i(x, x) k_i(x', x')]^{-1/2}", 'exponent -1/2 as printed', 'Deep kernel machines, after eq. (9)')],
       audit='re-audited against the notation rule (2026-11-29): one reading; verdict stands')
def _alber_deep() -> tuple[str, Finding]:
    rng = np.random.default_rng(20170602)
    X, Y = _pairs(rng)
    width, R = 2048, 60
    est = []
    n = X.shape[0]
    for _ in range(R):
        F = np.vstack([X, Y])
        for layer in range(2):
            # F @ W for Gaussian W has i.i.d. columns N(0, F F^T): draw them from the (2n x 2n) Gram directly
            # (exact in distribution, O(n^2 width) instead of O(width^2) per layer)
            w, V = np.linalg.eigh(F @ F.T)
            Z = (V * np.sqrt(np.maximum(w, 0))) @ rng.standard_normal((2 * n, width))
            F = math.sqrt(2.0 / width) * np.maximum(Z, 0)
        est.append(np.sum(F[:n] * F[n:], axis=1))
    e = np.array(est)
    printed = _deep(X, Y, -0.5, 2)
    corrected = _deep(X, Y, 0.5, 2)
    registry = get_kernel("arccos_deep", order=1, layers=2)(X, Y).diagonal()
    ci = [_ci(e[:, i]) for i in range(3)]

    def within(target: np.ndarray) -> bool:
        return all(abs(m - t) <= h + DEEP_BIAS_ALLOWANCE * abs(t) for (m, h), t in zip(ci, target))

    reg_dev = float(np.max(np.abs(registry - corrected)))
    return ("Two random ReLU layers give " + ", ".join(f"{m:.4f} +/- {h:.4f}" for m, h in ci) + " (99.9%) at the 3 "
            "pairs; the recursion as printed (exponent -1/2) gives " + ", ".join(f"{v:.4f}" for v in printed)
            + " and with exponent +1/2 (Cho & Saul 2009 eq. (9)) " + ", ".join(f"{v:.4f}" for v in corrected)
            + f", which the registry's arccos_deep matches to {reg_dev:.1e}.",
            Finding(within(printed), counterexample=f"pair 0: printed {printed[0]:.4f} vs {ci[0][0]:.4f}",
                    correction="exponent +1/2: k_{i+1} = (1/pi) [k_i(x, x) k_i(x', x')]^{1/2} J(theta_i)",
                    correction_holds=within(corrected) and reg_dev <= 1e-12))


def evaluate_alber2017_claims() -> list[dict]:
    """Every claim of this paper, evaluated, as dicts (see :class:`rfverify.studies.claims.Claim`)."""
    from rfverify.studies.claims import evaluate_claims

    return [c.to_dict() for c in evaluate_claims([SOURCE])]



_HD_D, _HD_TRIALS = 16, 30


def _hd_mse(blocks: int, m: int, delta: np.ndarray, k: np.ndarray, rng: np.random.Generator,
            trials: int) -> tuple[float, float]:
    """MSE (and its s.e. over trials) of k_hat = mean_i cos(w_i . delta) with m frequencies per trial, sigma = 1:
    RFF (``blocks = 0``: w ~ N(0, I)) or stacked blocks sqrt(d) (H D_1)...(H D_b) with H the normalised Hadamard
    matrix and D_i random signs (alber2017 §4.4; dense numpy, d small)."""
    from scipy.linalg import hadamard

    d = delta.shape[1]
    H = hadamard(d) / math.sqrt(d)
    per_trial = np.empty(trials)
    for t in range(trials):
        if blocks == 0:
            W = rng.standard_normal((m, d))
        else:
            parts = []
            for _ in range(m // d):
                B = np.eye(d)
                for _ in range(blocks):
                    B = B @ (H * rng.choice([-1.0, 1.0], size=d)[None, :])
                parts.append(math.sqrt(d) * B)
            W = np.vstack(parts)
        est = np.cos(delta @ W.T).mean(1)
        per_trial[t] = np.mean((est - k) ** 2)
    return float(per_trial.mean()), float(per_trial.std(ddof=1) / math.sqrt(trials))


@claim("sec4.4-one-hd-block-stalls", "Section 4.4 (fast kernel machines, Fig. 4)",
       "The convergence of the kernel approximation stalls when using a random basis with only one block",
       f"MSE of k_hat on 16 single-coordinate pairs (k = 0.95 ... 0.05), RFF and 1/2/3 HD blocks (dense numpy), "
       f"d = {_HD_D}, m = d and 4 d, {_HD_TRIALS} trials; rule: one block's MSE falls < 1.5x while RFF's falls > 3x")
def _hd_stall() -> tuple[str, Finding]:
    from rfverify.studies.scheme_study import axis_pairs

    rng = np.random.default_rng(20170605)
    X, Y, k = axis_pairs(_HD_D, 0.5, rng)
    delta = Y - X
    mse = {(b, mult): _hd_mse(b, mult * _HD_D, delta, k, rng, _HD_TRIALS) for b in range(4) for mult in (1, 4)}

    def drop(b: int) -> float:
        return mse[(b, 1)][0] / mse[(b, 4)][0]

    ok = drop(1) < 1.5 and drop(0) > 3
    return (f"From m = d to 4 d the MSE falls {drop(0):.1f}x for RFF, {drop(2):.1f}x and {drop(3):.1f}x for two and "
            f"three blocks, but {drop(1):.2f}x for one block (MSE {mse[(1, 4)][0]:.4f} +/- {mse[(1, 4)][1]:.4f} s.e. at "
            "m = 4 d): one block cannot mix coordinates, so for y - x = r e_j the estimate is cos(r) whatever the draw.",
            Finding(ok, empirical=True, power=f"{_HD_TRIALS} trials per scheme at d = {_HD_D}; the standard errors "
                                              "resolve a 1.5x change in MSE"))


@claim("sec4.1-orf-beats-rff", "Section 4.1 (Random Basis)",
       "Orthogonal random features [8, ORF] improve the convergence properties of the Gaussian kernel approximation "
       "over random Fourier features",
       f"MSE of k_hat on the harness's designed pairs (rfverify.studies.scheme_study.mse_table), ORF vs RFF with common "
       f"random numbers, d = {_HD_D}, m = d and 4 d, {_HD_TRIALS} trials; rule: ORF's MSE below RFF's by 2 s.e. at every m")
def _orf() -> tuple[str, Finding]:
    from rfverify.studies.scheme_study import mse_table

    rows = mse_table(_HD_D, (1, 4), trials=_HD_TRIALS, seed=20170606, schemes=("RFF", "ORF"))
    by = {(r["scheme"], r["m_over_d"]): r for r in rows}
    ok = all(by[("RFF", k)]["mse"] - by[("ORF", k)]["mse"] > 2 * math.hypot(by[("RFF", k)]["mse_se"],
                                                                            by[("ORF", k)]["mse_se"]) for k in (1, 4))
    return ("MSE(ORF)/MSE(RFF) = " + ", ".join(f"{by[('ORF', k)]['vs_rff']:.3f} at m = {k} d (ORF "
                                               f"{by[('ORF', k)]['mse']:.2e} +/- {by[('ORF', k)]['mse_se']:.1e} s.e.)"
                                               for k in (1, 4)) + ".",
            Finding(ok, empirical=True, power=f"{_HD_TRIALS} trials with common random numbers at d = {_HD_D}"))


@claim("eq3-gaussian-spectrum", "Section 3.1, eq. (3)",
       "Using the Gaussian distribution p(w) = N(0, sigma^-1), we obtain the Gaussian kernel k(z) = "
       "exp(-||z||^2 / (2 sigma^2))",
       "<w, z> ~ N(0, v ||z||^2) for w ~ N(0, v I): int p(w) e^{j w^T z} dw by 80-node Gauss-Hermite quadrature (exact "
       "to float64 here) under both readings of N(0, sigma^-1): standard deviation sigma^-1 (v = sigma^-2, the paper's "
       "Sec. 4.1 convention) and covariance sigma^-1 (v = sigma^-1); sigma = 0.5, 2, 3, ||z|| = 0.3..3")
def _alber_eq3() -> tuple[str, Finding]:
    t, wts = np.polynomial.hermite_e.hermegauss(80)
    wts = wts / wts.sum()

    def transform(v: float, r: float) -> float:  # E cos(<w, z>) for w ~ N(0, v I), ||z|| = r
        return float(np.sum(wts * np.cos(math.sqrt(v) * r * t)))

    dev_cov, dev_sd = 0.0, 0.0
    worst: tuple[float, float, float, float, float] | None = None
    for sigma in (0.5, 2.0, 3.0):
        for r in (0.3, 1.0, 3.0):
            target = math.exp(-(r**2) / (2 * sigma**2))
            dp = abs(transform(1 / sigma, r) - target)
            if dp > dev_cov:
                dev_cov, worst = dp, (sigma, r, transform(1 / sigma, r), target, transform(sigma**-2, r))
            dev_sd = max(dev_sd, abs(transform(sigma**-2, r) - target))
    assert worst is not None, "no setting deviated from the target at all"
    sigma, r, got, want, sd = worst
    sd_ok, cov_ok = dev_sd <= 1e-12, dev_cov <= 1e-12
    return (f"Read as the paper's Sec. 4.1 defines it (W_B = (1/sigma) G_B with G_B ~ N(0, 1): the second argument of "
            f"N(0, sigma^-1) is a standard deviation), the transform equals exp(-||z||^2 / (2 sigma^2)) to {dev_sd:.1e}, "
            f"e.g. {sd:.4f} = {want:.4f} at sigma = {sigma:g}, ||z|| = {r:g}. Read as a covariance it would be "
            f"exp(-||z||^2 / (2 sigma)) ({got:.4f} there), a reading the paper's own convention excludes.",
            Finding(sd_ok, readings=(
                Reading("N(0, sigma^-1)", "second argument a standard deviation, w ~ N(0, sigma^-2 I)",
                        "Sec. 4.1: 'we substitute W_B with 1/sigma G_B, sample G_B from N(0, 1)'", holds=sd_ok,
                        settled=True),
                Reading("N(0, sigma^-1)", "second argument a covariance, w ~ N(0, sigma^-1 I)",
                        "the common N(mean, covariance) convention, not the paper's", holds=cov_ok)),
                    audit="re-audited against the notation rule (2026-11-29): was 'false as printed' under the "
                          "covariance reading; the paper's Sec. 4.1 fixes the standard-deviation reading, under which "
                          "eq. (3) is exact: now 'holds', with this notation note"))


@claim("table1-accuracies", "Section 4, Table 1",
       "Tab. 1 gives an overview of the best performances achieved by each basis on each data set. [Table 1: Best "
       "accuracy in % for different bases (RB, UAB, SAB, DAB) on Gisette, MNIST, CoverType, CIFAR10]",
       "not computed: the data sets and the training runs")
def _alber_table1() -> tuple[str, Finding]:
    return ("Reproducing the table needs the Gisette, MNIST, CoverType and CIFAR10 data sets (not available here) and, "
            "per entry, mini-batch training of up to 30,000 features with early stopping, three repetitions each; the "
            "claims the paper draws from its figures are checked on generated data in alber2017-sec4.2-fig1-uab-savings "
            "and alber2017-sec4.4-one-hd-block-stalls.",
            Finding(None, uncheckable="needs four public data sets (not available here) and the paper's training runs"))


@claim("sec4.4-one-hd-block-classification-drops", "Section 4.4 (fast kernel machines, Fig. 4)",
       "The convergence of the kernel approximation stalls when using a random basis with only one block. As a "
       "result the classification performance drops drastically.",
       "not computed: the classification half needs MNIST and CoverType (Fig. 4); the kernel-approximation half is "
       "alber2017-sec4.4-one-hd-block-stalls")
def _alber_one_block_classification() -> tuple[str, Finding]:
    return ("The stall itself is reproduced (alber2017-sec4.4-one-hd-block-stalls: one HD block's MSE does not fall "
            "with m). Whether it makes MNIST/CoverType classification drop needs those data sets and the paper's "
            "training runs, not available here; a reduced run on generated sparse inputs (ridge classifier on "
            "Gaussian, one-, two- and three-block features, d = 16, m = 16 to 256, 2026-11-29) showed accuracies "
            "within 2 points of each other, but generated data lacks the pixel structure on which a single block's "
            "shared diagonal matters, so it cannot count for or against the paper.",
            Finding(None, uncheckable="needs MNIST and CoverType (not available here) and the paper's training runs"))


CLAIMS.extend(sorted(_adapted.CLAIMS, key=lambda s: s.id))  # eq. (4), then §4.2

from rfverify.studies.claims import alber2017_dab as _dab  # noqa: E402  (§4.2: SAB against DAB, heavy)

CLAIMS.extend(_dab.CLAIMS)

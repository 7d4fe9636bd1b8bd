"""Verdicts on the printed claims of Daniely, Frostig, Gupta & Singer (2017), "Random Features for
Compositional Kernels" (arXiv:1703.07872).

:data:`CLAIMS` lists one :class:`~rfverify.studies.claims.ClaimSpec` per claim; each computes its evidence
(sentences with numbers) and a :class:`~rfverify.studies.claims.verdicts.Finding` from which the verdict follows.

Statistical evidence uses CLT intervals at family-wise level ``ALPHA`` with a Bonferroni
correction over the pairs compared (``z = Φ^{-1}(1 - ALPHA/(2P))``); per-feature products
are i.i.d. across the features of one fit, and bounded (|ψ| ≤ C^t), so the CLT applies.
Every random draw comes from ``np.random.default_rng([seed, k])`` with a fixed key k per claim.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import stats

from functools import lru_cache

from rfverify.implementations.compositional import (
    CompositionalFeatures, ExpActivation, GaussianRFS, PrintedCategoricalRFS, ReLUActivation,
    SphereCoordinateRFS, SphereExample5RFS, SphereExample6RFS, comment1_printed, comment1_real,
    complexity, conv1d_skeleton, deep_1d_skeleton, expected_total_calls, leaf_count_pgf, sample_features,
    shallow_skeleton, skeleton_kernel,
)

from rfverify.studies.claims._common import claim_list, level
from rfverify.studies.claims.verdicts import Finding, Reading

__all__ = ["CLAIMS", "evaluate_compositional_claims", "ALPHA", "clt_interval", "SOURCE", "SEED"]

SOURCE = "daniely2017"
#: Family-wise level of every interval reported here.
ALPHA = 1e-3
#: Root seed of every draw in this module.
SEED = 20170324
#: Round-off allowance for exact identities evaluated in float64 (a few ulps of O(1) values).
ROUNDOFF = 1e-12
_LEVEL = level(ALPHA)

CLAIMS, claim = claim_list(SOURCE)


def clt_interval(samples: np.ndarray, alpha: float = ALPHA, n_compared: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Mean and Bonferroni half-width ``z_{1-α/(2P)} · sd/√n`` along axis 0 (CLT)."""
    s = np.asarray(samples, dtype=float)
    z = float(stats.norm.isf(alpha / (2 * n_compared)))
    return s.mean(0), z * s.std(0, ddof=1) / math.sqrt(s.shape[0])


def _rng(seed: int, key: int) -> np.random.Generator:
    return np.random.default_rng([seed, key])


def _record(cid: str, location: str, statement: str, method: str, verdict: str, evidence: dict[str, Any]) -> dict[str, Any]:
    return {"id": cid, "source": SOURCE, "location": location, "statement": statement, "method": method,
            "verdict": verdict, "evidence": evidence}


def _pairs_1d(rng: np.random.Generator, length: int, n_pairs: int) -> tuple[np.ndarray, np.ndarray]:
    """Angle inputs: x random, y = x + noise of scales from small to large (kernel values spread out)."""
    x = rng.uniform(0, 2 * np.pi, (n_pairs, length))
    scales = np.geomspace(0.05, 3.0, n_pairs)[:, None]
    return x, x + scales * rng.standard_normal((n_pairs, length))


def per_feature_products(fm: CompositionalFeatures, x: np.ndarray, y: np.ndarray, conversion: str = "complex") -> np.ndarray:
    """(q, P) matrix of per-feature estimates for the pairs (x_p, y_p) of a *non-deduplicated* fit."""
    vx, vy = fm.feature_values(x), fm.feature_values(y)
    if conversion == "complex":
        return np.real(vx * np.conj(vy)).T
    if conversion == "comment1":
        return (comment1_real(vx, fm.b_[None, :]) * comment1_real(vy, fm.b_[None, :])).T
    if conversion == "printed":
        return np.real(comment1_printed(vx, fm.b_[None, :]) * np.conj(comment1_printed(vy, fm.b_[None, :]))).T
    raise ValueError(conversion)


def _fmt(v: np.ndarray, digits: int = 4) -> str:
    return ", ".join(f"{x:.{digits}f}" for x in np.ravel(v))


@claim("ex4", "Example 4",
       "psi(omega, x) = e^{i omega x/(2 pi n)}, omega uniform over [n], is a norm-efficient RFS for k(x, x') = 1[x = x']",
       "exact average over the n values of omega (finite Omega), n = 5, round-off <= 1e-12",
       notation=(('e^{i omega x/(2 pi n)}',
                  'the exponent i omega x / (2 pi n)',
                  'Example 4 as printed'),
                 ('[n]',
                  '{1, ..., n}, omega uniform on it',
                  'Example 4')),
       audit='re-audited against the notation rule (2026-11-29): a reading with the fraction inverted, e^{2 pi i '
             'omega x / n}, is the correction (tested, holds); the printed fraction is unambiguous in the extraction '
             'and gives 0.9944, not 0; verdict stands')
def _ex4() -> tuple[str, Finding]:
    n = 5
    printed = PrintedCategoricalRFS(n=n)
    pairs = [(x, y) for x in range(1, n + 1) for y in range(1, n + 1) if x != y]
    vals = [printed.expected_product(*p) for p in pairs]
    w = np.arange(n)
    corr_max = max(abs(float(np.mean(np.cos(2 * np.pi * w * (x - y) / n)))) for x, y in pairs)
    return (f"For x != x' the printed features average to between {min(vals):.4f} and {max(vals):.4f} instead of 0 "
            f"(the phase (x - x')/(2 pi n) never completes a cycle); with psi = e^(2 pi i omega x/n) the largest "
            f"off-diagonal average is {corr_max:.1e}.",
            Finding(max(abs(v) for v in vals) <= ROUNDOFF, counterexample=f"n = 5, x = 1, x' = 2: {vals[0]:.4f}",
                    correction="psi(omega, x) = e^{2 pi i omega x/n}", correction_holds=corr_max <= ROUNDOFF))


@claim("comment1", "Comment 1",
       "psi'((omega, b), x) := sqrt(2 R_omega(x) cos(theta_omega(x) + b)), b uniform on {0, pi/2}, is a sqrt(2)C-bounded "
       "RFS for k",
       f"exact average over b for psi = e^(i pi/3); Monte Carlo, 40000 features of a ReLU skeleton over a Gaussian base "
       f"(d = 3), 8 pairs, CLT intervals at family-wise {_LEVEL} (Bonferroni over 16)")
def _comment1() -> tuple[str, Finding]:
    rng = _rng(SEED, 1)
    psi = np.array([np.exp(1j * math.pi / 3)])
    bs = np.array([0.0, np.pi / 2])
    exact_printed = float(np.mean([abs(comment1_printed(psi, b)[0]) ** 2 for b in bs]))
    exact_fixed = float(np.mean([comment1_real(psi, b)[0] ** 2 for b in bs]))
    sk = shallow_skeleton(1, base=GaussianRFS(dim=3, a=1.0), activation=ReLUActivation())
    fm = CompositionalFeatures(sk, 40000, int(rng.integers(2**31)), deduplicate=False).fit()
    x = rng.standard_normal((4, 3))
    y = x + rng.standard_normal((4, 3)) * np.array([[0.1], [0.5], [1.0], [2.0]])
    xs, ys = np.concatenate([x, x]), np.concatenate([x, y])
    kx = skeleton_kernel(sk, xs, ys).diagonal()
    m_p, h_p = clt_interval(per_feature_products(fm, xs, ys, "printed"), n_compared=16)
    m_c, h_c = clt_interval(per_feature_products(fm, xs, ys, "comment1"), n_compared=16)
    bias_p, bias_c = float(np.max(np.abs(m_p - kx) / h_p)), float(np.max(np.abs(m_c - kx) / h_c))
    return (f"For one feature psi = e^(i pi/3) the printed map gives E_b |psi'|^2 = {exact_printed:.4f} instead of 1 "
            f"(corrected: {exact_fixed:.4f}); over 40000 features the printed estimates miss k by up to {bias_p:.1f} "
            f"interval half-widths (k(x, x) = 1 estimated as {m_p[0]:.3f} +/- {h_p[0]:.3f}), the corrected "
            f"sqrt(2) R cos(theta + b) by at most {bias_c:.2f}. The extracted \\sqrt{{2R cos(...)}} may be a typeset "
            "sqrt(2) R cos(...) whose radical extent was lost, so both readings are checked.",
            Finding(bias_p <= 1 and abs(exact_printed - 1) <= ROUNDOFF,
                    readings=(Reading("sqrt(2 R_omega(x) cos(theta_omega(x) + b))", "the radical over the whole "
                                      "product, as extracted", "Comment 1 (extracted text)",
                                      holds=bias_p <= 1 and abs(exact_printed - 1) <= ROUNDOFF),
                              Reading("sqrt(2 R_omega(x) cos(theta_omega(x) + b))", "sqrt(2) R_omega(x) cos(theta_omega(x)"
                                      " + b), the radical over 2 only", "the formula the typeset line may show; the "
                                      "stated sqrt(2)C bound and the real part of psi e^{ib} need it",
                                      holds=bias_c <= 1 and abs(exact_fixed - 1) <= ROUNDOFF)),
                    extraction="the radical's extent in sqrt(2 R cos(theta + b)) may be lost in extracting the PDF",
                    audit="re-audited against the notation rule (2026-11-29): was 'false as printed; corrected form "
                          "holds' on the extracted radical alone; "
                          "the other reading of the same text is the correct real RFS, and the paper does not settle "
                          "which: now 'ambiguous notation'",
                    counterexample=f"E_b |psi'|^2 = {exact_printed:.4f} at psi = e^(i pi/3)",
                    correction="psi' = sqrt(2) R_omega(x) cos(theta_omega(x) + b) (sqrt outside: sqrt(2) Re(psi e^{ib}))",
                    correction_holds=bias_c <= 1 and abs(exact_fixed - 1) <= ROUNDOFF))


@claim("lemma9-10-alg1", "Lemmas 9-10, Algorithm 1",
       "The correctness of the algorithm [RFSS(S) is an RFS for k_S] is a direct consequence of Lemmas 9 and 10",
       f"Monte Carlo, 40000 features of the deep 1-D skeleton of Section 6 (23 circle inputs), 10 pairs, complex and "
       f"Comment-1 real features, CLT intervals at family-wise {_LEVEL} (Bonferroni over 10)")
def _alg1() -> tuple[str, Finding]:
    rng = _rng(SEED, 2)
    sk = deep_1d_skeleton(23)
    x, y = _pairs_1d(rng, 23, 10)
    k = skeleton_kernel(sk, x, y).diagonal()
    fm = CompositionalFeatures(sk, 40000, int(rng.integers(2**31)), deduplicate=False).fit()
    m, h = clt_interval(per_feature_products(fm, x, y, "complex"), n_compared=10)
    m1, h1 = clt_interval(per_feature_products(fm, x, y, "comment1"), n_compared=10)
    r, r1 = float(np.max(np.abs(m - k) / h)), float(np.max(np.abs(m1 - k) / h1))
    return (f"At 10 pairs with k from {k.min():.3f} to {k.max():.3f} the complex estimates miss k by at most {r:.2f} "
            f"interval half-widths and the real (Comment 1, corrected) ones by {r1:.2f}; largest |bias| "
            f"{float(np.max(np.abs(m - k))):.1e}.", Finding(r <= 1 and r1 <= 1, counterexample="a pair outside its interval"))


@lru_cache(maxsize=1)
def _complexity_study() -> dict[str, dict[str, float]]:
    rng = _rng(SEED, 3)
    recs = {}
    for name, skel in [("deep1d-paper", deep_1d_skeleton(23)),
                       ("deep1d-relu-exp1", conv1d_skeleton(23, [(5, 2, ExpActivation(1.0)), (4, 2, ReLUActivation())],
                                                            ReLUActivation(), name="deep1d-relu-exp1")),
                       ("exp1-only", conv1d_skeleton(23, [(5, 2, ExpActivation(1.0)), (4, 2, ExpActivation(1.0))],
                                                     ExpActivation(1.0), name="exp1-only"))]:
        smp = sample_features(skel, 100000, rng=rng)
        T = 64
        pl, pc = leaf_count_pgf(skel, T), leaf_count_pgf(skel, T, total_calls=True)
        ml, hl = clt_interval(np.minimum(smp.leaves, T - 1)[:, None], n_compared=6)
        mc, hc = clt_interval(np.minimum(smp.calls, T - 1)[:, None], n_compared=6)
        recs[name] = {"C": complexity(skel), "R": expected_total_calls(skel),
                      "leaf_exact": float(np.sum(1 - np.cumsum(pl)[: T - 1])), "leaf": float(ml[0]), "leaf_hw": float(hl[0]),
                      "call_exact": float(np.sum(1 - np.cumsum(pc)[: T - 1])), "call": float(mc[0]), "call_hw": float(hc[0]),
                      "raw_calls": float(smp.calls.mean())}
    return recs


@claim("eq11", "eq. 11",
       "It is immediate to verify that C(S) is the expected value of the number of recursive calls and the sparsity "
       "of a random feature",
       f"Monte Carlo, 100000 features per skeleton (3 skeletons); exact laws of leaf and call counts from generating "
       f"functions; truncated means E min(N, 63) with CLT intervals at family-wise {_LEVEL} (Bonferroni over 6)",
       notation=(('C(S)',
                  'the recursion of eq. (11)',
                  'Sec. 5, eq. (11)'),
                 ('recursive calls',
                  'calls of RFSS, Algorithm 1',
                  'Sec. 5, Algorithm 1')),
       audit="re-audited against the notation rule (2026-11-29): a leaf-count reading of 'recursive calls' (calls "
             "that reach a base RFS) equals C(S), but that is the sparsity, which the sentence names separately, and "
             "the paragraph ties the calls to the running time; under the plain reading (every call RFSS makes) the "
             "statement fails; verdict stands")
def _eq11() -> tuple[str, Finding]:
    recs = _complexity_study()
    p = recs["deep1d-paper"]
    leaf_ok = all(abs(r["leaf"] - r["leaf_exact"]) <= r["leaf_hw"] for r in recs.values())
    call_ok = all(abs(r["call"] - r["call_exact"]) <= r["call_hw"] for r in recs.values())
    calls_equal_c = all(abs(r["raw_calls"] - r["C"]) <= 0.1 * max(r["C"], 1) for r in recs.values())
    return (f"For the paper's deep skeleton C(S) = {p['C']:g}, and the mean sparsity (base-RFS calls) matches C's law "
            f"(truncated mean {p['leaf']:.4f} +/- {p['leaf_hw']:.4f} vs exact {p['leaf_exact']:.4f}), but the mean "
            f"number of recursive calls is {p['raw_calls']:.3f} (exact R(S) = {p['R']:g}; truncated {p['call']:.3f} +/- "
            f"{p['call_hw']:.3f} vs {p['call_exact']:.3f}); all 3 skeletons agree with both exact laws.",
            Finding(calls_equal_c, counterexample=f"deep skeleton: calls {p['raw_calls']:.2f} vs C(S) = {p['C']:g}",
                    correction="C(S) is the expected sparsity (base-RFS calls); the expected number of recursive calls "
                               "is R(S) = 1 + sigma'(1) mean_u R(S_u), R = 1 at inputs",
                    correction_holds=leaf_ok and call_ok))


@claim("sec5-relu-exp-C1", "Section 5 (after eq. 11)",
       "For activations such as ReLU, sigma(x) = max(0, x), and exponential, sigma(x) = e^x, we have sigma'(1) = 1, "
       "and thus C(S) = 1",
       "dual activations in closed form: one-sided finite difference h = 1e-6 (error O(sqrt h) for ReLU, O(h) for exp), "
       "partial series sum i a_i, and eq. 11 on a ReLU/exp skeleton; rule: within 1e-2")
def _c_one() -> tuple[str, Finding]:
    relu, e1 = ReLUActivation(), ExpActivation(1.0)
    h = 1e-6
    fd_relu = float((relu(1.0) - relu(1 - h)) / h)
    fd_exp = float((e1(1.0) - e1(1 - h)) / h)
    series = float(np.dot(np.arange(200001), relu.coefficients(200001)))
    c = _complexity_study()["deep1d-relu-exp1"]["C"]
    ok = abs(fd_relu - 1) <= 1e-2 and abs(fd_exp - 1) <= 1e-2 and abs(c - 1) <= ROUNDOFF
    return (f"sigma'_ReLU(1) ~ {fd_relu:.5f} (finite difference; partial series to i = 200000: {series:.5f}), "
            f"sigma'_exp(1) ~ {fd_exp:.7f}, and eq. 11 gives C(S) = {c:g} for a ReLU/e^(rho-1) skeleton (the paper's own "
            "exp((rho-1)/4) has sigma'(1) = 1/4).", Finding(ok, counterexample="a derivative off 1"))


@claim("sec5-exp-gaussian", "Section 5 (example after eq. 11)",
       "basic spaces S^1, single non-input node with sigma(rho) = e^rho: the resulting kernel is the Gaussian kernel "
       "and C(S) = 1",
       "exact skeleton Gram vs exp(-||z - z'||^2/(2n)) on 5 random points of the 6-torus; eq. 11; round-off <= 1e-12")
def _exp_gaussian() -> tuple[str, Finding]:
    rng = _rng(SEED, 4)
    nin = 6
    sk = shallow_skeleton(nin, activation=ExpActivation(1.0))
    th = rng.uniform(0, 2 * np.pi, (5, nin))
    z = np.exp(1j * th)
    kg = np.exp(-(np.abs(z[:, None, :] - z[None, :, :]) ** 2).sum(-1) / (2 * nin))
    dev = float(np.max(np.abs(skeleton_kernel(sk, th) - kg)))
    c = complexity(sk)
    normalised_ok = dev <= ROUNDOFF and abs(c - 1) <= ROUNDOFF
    return (f"Read with the paper's normalisation (Sec. 2: every kernel is normalised, k(x, x) = 1; the same paragraph's "
            f"'exponential sigma(x) = e^x, we have sigma'(1) = 1' holds only for the normalised dual e^(rho - 1)), the "
            f"skeleton kernel equals exp(-||z - z'||^2/(2n)) to {dev:.1e} and C(S) = {c:g}. Read literally, e^rho gives "
            f"k(x, x) = e = {math.e:.4f} and sigma'(1) = e, a reading the paper's own convention excludes.",
            Finding(normalised_ok, readings=(
                Reading("sigma(rho) = e^rho", "the exponential dual activation normalised to sigma(1) = 1, e^(rho - 1)",
                        "Sec. 2 (normalised kernels and PSD functions) and Sec. 5: 'exponential ... sigma'(1) = 1'",
                        holds=normalised_ok, settled=True),
                Reading("sigma(rho) = e^rho", "literally e^rho, sigma(1) = e", "the formula without the paper's "
                        "normalisation", holds=False)),
                    audit="re-audited against the notation rule (2026-11-29): was 'false as printed; corrected form "
                          "holds' under the literal e^rho; the "
                          "paper normalises every kernel and dual activation (Sec. 2) and states sigma'(1) = 1 for the "
                          "exponential in the same paragraph, which only e^(rho - 1) satisfies: now 'holds'"))


@claim("sec6-shallow-rbf", "Section 6",
       "Our shallow structure is simply a Gaussian (RBF) kernel with scale 0.5 ... sigma_v(rho) = exp((rho - 1)/4)",
       "exact skeleton Gram vs exp(-a^2 ||u - u'||^2/2), a = 0.5, u = (e^{i theta_1}, ..., e^{i theta_n})/sqrt(n); "
       "round-off <= 1e-12")
def _shallow() -> tuple[str, Finding]:
    rng = _rng(SEED, 9)
    nin = 8
    sk = shallow_skeleton(nin)
    th = rng.uniform(0, 2 * np.pi, (5, nin))
    u = np.concatenate([np.cos(th), np.sin(th)], 1) / math.sqrt(nin)
    dev = float(np.max(np.abs(skeleton_kernel(sk, th) - GaussianRFS(dim=2 * nin, a=0.5).kernel(u, u))))
    return (f"exp((rho - 1)/4) = exp(-||u - u'||^2/8) is Example 3 with a = 0.5 (bandwidth 2, gamma = 1/8) on the unit "
            f"sphere; the Grams differ by {dev:.1e} on 5 random points.",
            Finding(dev <= ROUNDOFF, counterexample=f"Grams differ by {dev:.1e}"))


@claim("thm6-ex5", "Theorem 6, Example 5",
       "There does not exist a (sqrt(d/2) - eps)-bounded RFS for k(x, x') = <x, x'> on S^{d-1}; Example 5 is "
       "sqrt(d/2)-bounded",
       "Example 5 exactly (finite Omega = [d] x {+-1}), sup |psi| at (e_1 + e_2)/sqrt(2); the lower bound probed by 300 "
       "random exact finite RFSs per d (closed-form sup), d = 3, 4, 7; round-off <= 1e-12")
def _thm6() -> tuple[str, Finding]:
    rng = _rng(SEED, 5)
    ok, parts = True, []
    for d in (3, 4, 7):
        b5 = SphereExample5RFS(dim=d)
        X = rng.standard_normal((6, d)); X /= np.linalg.norm(X, axis=1, keepdims=True)
        om = np.array([[j, s] for j in range(d) for s in (-1.0, 1.0)])
        vals = b5.features(om, np.repeat(X[:, None, :], om.shape[0], axis=1))
        kerr = float(np.max(np.abs(np.real(vals @ np.conj(vals).T) / om.shape[0] - X @ X.T)))
        xa = np.zeros(d); xa[0] = xa[1] = 1 / math.sqrt(2)
        sup = float(np.max(np.abs(b5.features(om, np.repeat(xa[None, None, :], om.shape[0], axis=1)))))
        best = math.inf
        for _ in range(300):
            mq = int(rng.integers(d, 4 * d))
            Z = rng.standard_normal((mq, d)) + 1j * rng.standard_normal((mq, d)) * rng.uniform(0, 1.5)
            p = rng.dirichlet(np.ones(mq))
            M = np.real((Z * p[:, None]).T @ np.conj(Z))
            ev_, V = np.linalg.eigh(M)
            Z = Z @ (V / np.sqrt(ev_)) @ V.T
            A, B = Z.real, Z.imag
            g11, g22, g12 = (A * A).sum(1), (B * B).sum(1), (A * B).sum(1)
            lam = (g11 + g22) / 2 + np.sqrt(((g11 - g22) / 2) ** 2 + g12**2)
            best = min(best, float(np.sqrt(lam.max())))
        bound = math.sqrt(d / 2)
        ok &= kerr <= ROUNDOFF and abs(sup - bound) <= ROUNDOFF and best >= bound - ROUNDOFF
        parts.append(f"d = {d}: sup {sup:.4f} = sqrt(d/2), best random {best:.4f}")
    return ("Example 5 is exact for <x, x'> (error <= 1e-12) and attains its bound; no random exact RFS beats it: "
            + "; ".join(parts) + " (for d = 1 the bound is below the universal 1, so it is not tight).",
            Finding(bool(ok), counterexample="an RFS below sqrt(d/2)"))


@claim("ex6", "Example 6",
       "psi(w, x) = sqrt(d) <w, x> with w uniform on S^{d-1} (and psi = sqrt(d) x_omega, omega uniform on [d]) are "
       "sqrt(d)-bounded RFSs for <x, x'>",
       f"Monte Carlo, 200000 draws per scheme, d = 3, 5, 10 pairs, CLT intervals at family-wise {_LEVEL} (Bonferroni "
       "over 10); the sup attained at w = x (resp. x = e_omega)")
def _ex6() -> tuple[str, Finding]:
    rng = _rng(SEED, 6)
    worst, top, ok = 0.0, 0.0, True
    for d in (3, 5):
        for b6 in (SphereExample6RFS(dim=d), SphereCoordinateRFS(dim=d)):
            X = rng.standard_normal((4, d)); X /= np.linalg.norm(X, axis=1, keepdims=True)
            om = b6.sample_omega(200000, rng=rng)
            v = b6.features(om, np.repeat(X[:, None, :], om.shape[0], axis=1)).real
            iu = np.triu_indices(4)
            mm, hh = clt_interval((v[iu[0]] * v[iu[1]]).T, n_compared=iu[0].size)
            r = float(np.max(np.abs(mm - (X @ X.T)[iu]) / hh))
            worst = max(worst, r)
            top = max(top, float(np.max(np.abs(v))) / math.sqrt(d))
            ok &= r <= 1 and float(np.max(np.abs(v))) <= math.sqrt(d) * (1 + ROUNDOFF)
    return (f"Over both schemes and d = 3, 5 the estimates miss <x, x'> by at most {worst:.2f} interval half-widths and "
            f"the largest |psi|/sqrt(d) seen is {top:.6f} (the sup sqrt(d) is attained at w = x).",
            Finding(bool(ok), counterexample="a pair outside its interval or |psi| > sqrt(d)"))


@claim("sec4-product-Ct", "Section 4 (opening paragraph)",
       "If each basic RFS is C-bounded, then every feature that is a multiplication of t basic features is C^t-bounded",
       "20000 features of a Poisson(1.5) node over three Example 5 inputs (d = 4, C = sqrt 2) evaluated where each "
       "factor attains C: max |psi|/C^t")
def _product() -> tuple[str, Finding]:
    rng = _rng(SEED, 7)
    d = 4
    b5 = SphereExample5RFS(dim=d)
    sk = conv1d_skeleton(3, [], ExpActivation(1.5), base=b5, name="ex5-poisson")
    X = np.zeros((1, 3 * d)); X[0, [0, 1, 4, 5, 8, 9]] = 1 / math.sqrt(2)
    fm = CompositionalFeatures(sk, 20000, int(rng.integers(2**31)), deduplicate=False).fit(X)
    ratio = np.abs(fm.feature_values(X)[0]) / b5.bound ** np.diff(fm.ptr_)
    return (f"The largest |psi|/C^t over 20000 features (t up to {int(np.diff(fm.ptr_).max())}) is {ratio.max():.12f}, "
            f"attained by {int(np.sum(ratio > 1 - ROUNDOFF))} features.",
            Finding(float(ratio.max()) <= 1 + ROUNDOFF, counterexample="a feature above C^t"))


@claim("sec6-dedup", "Section 6 (de-duplication)",
       "when one repeatedly executes Algorithm 1 in order to generate features, duplicates may arise. It is "
       "straightforward to merge them",
       "same seed with and without merging (weights sqrt(count/q)), 20 points: max |Gram difference| vs the round-off "
       "bound q eps max|psi|^2")
def _dedup() -> tuple[str, Finding]:
    rng = _rng(SEED, 8)
    sk = deep_1d_skeleton(23)
    x, _ = _pairs_1d(rng, 23, 20)
    a = CompositionalFeatures(sk, 20000, 7, deduplicate=True).fit()
    b = CompositionalFeatures(sk, 20000, 7, deduplicate=False).fit()
    diff = float(np.max(np.abs(a.approximate_kernel(x) - b.approximate_kernel(x))))
    bound = 20000 * float(np.finfo(float).eps) * 2.0
    return (f"Merging 20000 generated features into {int(a.counts_.size)} unique ones changes the Gram by at most "
            f"{diff:.1e} (round-off bound {bound:.1e}); generating until q unique features (a random number of draws) "
            "is not covered.", Finding(diff <= bound, counterexample="a Gram difference above round-off"))


def evaluate_compositional_claims() -> list[dict[str, Any]]:
    """Every claim of this paper, evaluated, as dicts (see :class:`rfverify.studies.claims.Claim`)."""
    from rfverify.studies.claims import evaluate_claims

    return [c.to_dict() for c in evaluate_claims([SOURCE])]


@claim("sec5-complexity-depth", "Section 5 (after eq. 11)",
       "When all conjugate activations are the same (11) implies that C(S) <= (sigma'(1))^depth(S), where equality "
       "holds when the skeleton is layered",
       "eq. 11 exactly on a layered 1-D skeleton and on a skeleton with a skip connection (output reads an input and an "
       "internal node), sigma = exp(a(rho - 1)) with sigma'(1) = a in {1/4, 2}; Monte Carlo sparsity, 20000 features, "
       f"CLT {_LEVEL}")
def _depth_bound() -> tuple[str, Finding]:
    from rfverify.implementations.compositional import CircleRFS, InputNode, InternalNode, Skeleton

    rng = _rng(SEED, 10)
    rows, layered_ok, skip = [], True, {}
    for a in (0.25, 2.0):
        act = ExpActivation(a)
        lay = conv1d_skeleton(8, [(2, 2, act), (2, 2, act)], act, name="layered")
        layered_ok &= abs(complexity(lay) - a ** lay.depth()) <= ROUNDOFF * max(1.0, a ** lay.depth())
        base = CircleRFS()
        sk = Skeleton((InputNode(base, 0), InputNode(base, 1), InternalNode(act, (1,)), InternalNode(act, (0, 2))),
                      name="skip")
        smp = sample_features(sk, 20000, rng=rng)
        m, h = clt_interval(smp.leaves[:, None].astype(float))
        skip[a] = (complexity(sk), a ** sk.depth(), float(m[0]), float(h[0]))
        rows.append(f"a = {a:g}: C = {skip[a][0]:.4f} vs a^depth = {skip[a][1]:.4f} (sparsity {m[0]:.4f} +/- {h[0]:.4f})")
    printed_ok = layered_ok and all(c <= b + ROUNDOFF for c, b, _, _ in skip.values())
    cond_ok = layered_ok and all(c <= b + ROUNDOFF for a, (c, b, _, _) in skip.items() if a >= 1)
    mc_ok = all(abs(mm - c) <= hh for c, _, mm, hh in skip.values())
    return ("Layered skeletons give C(S) = sigma'(1)^depth exactly; with a skip connection "
            + "; ".join(rows) + f" ({_LEVEL}): the bound fails when sigma'(1) < 1, as for the paper's own exp((rho-1)/4).",
            Finding(printed_ok and mc_ok, counterexample=f"sigma'(1) = 1/4, skip connection: C = {skip[0.25][0]:.4f} > "
                                                         f"{skip[0.25][1]:.4f}",
                    condition="sigma'(1) >= 1 (or a layered skeleton)", holds_under_condition=cond_ok and mc_ok))


@claim("thm3-kernel-approximation", "Theorem 3",
       "Assume that q >= 2 C^4 log(2/delta)/eps^2, then for every x, x' we have Pr(|k_w(x, x') - k(x, x')| >= eps) <= delta",
       f"Monte Carlo: one non-deduplicated fit of 800 q features of the shallow skeleton (4 circle inputs, C = 1) split "
       f"into 800 independent q-feature maps, eps = 0.2, delta = 0.05, 3 pairs; Clopper-Pearson {_LEVEL} intervals")
def _thm3() -> tuple[str, Finding]:
    rng = _rng(SEED, 11)
    eps, delta, C, R = 0.2, 0.05, 1.0, 800
    q = math.ceil(2 * C**4 * math.log(2 / delta) / eps**2)
    sk = shallow_skeleton(4)
    x, y = _pairs_1d(rng, 4, 3)
    k = skeleton_kernel(sk, x, y).diagonal()
    fm = CompositionalFeatures(sk, R * q, int(rng.integers(2**31)), deduplicate=False).fit()
    est = per_feature_products(fm, x, y, "complex").reshape(R, q, -1).mean(1)  # (R, 3)
    parts, ok = [], True
    for p in range(3):
        hits = int(np.sum(np.abs(est[:, p] - k[p]) >= eps))
        ci = stats.binomtest(hits, R).proportion_ci(1 - ALPHA, method="exact")
        ok &= ci.low <= delta
        parts.append(f"{hits / R:.4f} [{ci.low:.4f}, {ci.high:.4f}] at k = {k[p]:.3f}")
    return (f"With q = {q} features the frequency of |k_w - k| >= {eps} is " + "; ".join(parts)
            + f" ({_LEVEL}), all at most delta = {delta} (Hoeffding on |psi psi'| <= C^2 gives exactly this q).",
            Finding(bool(ok), counterexample="a tail frequency above delta"))


@claim("cor4-function-approximation", "Corollary 4",
       "For all x, E_w |f(x) - f_w(x)|^2 <= C^2 ||f||^2_{H_k} / q",
       f"Monte Carlo: f = sum_i alpha_i k(x_i, .) over 5 centres of the shallow skeleton (4 circle inputs, C = 1), "
       f"f_w with q = 50 features from 2000 independent groups of one 100000-feature fit, at 3 points x; the "
       f"mean squared error with a {_LEVEL} CLT interval; rule: its lower end at most C^2 ||f||^2 / q")
def _cor4() -> tuple[str, Finding]:
    rng = _rng(SEED, 12)
    q, groups = 50, 2000
    sk = shallow_skeleton(4)
    centres = rng.uniform(0, 2 * np.pi, (5, 4))
    alpha = rng.standard_normal(5)
    K = skeleton_kernel(sk, centres)
    norm2 = float(alpha @ K @ alpha)
    pts = centres[:3] + 0.5 * rng.standard_normal((3, 4))
    fm = CompositionalFeatures(sk, q * groups, int(rng.integers(2**31)), deduplicate=False).fit()
    parts, ok = [], True
    for x in pts:
        xs, ys = centres, np.repeat(x[None, :], 5, axis=0)
        g = per_feature_products(fm, xs, ys, "complex") @ alpha  # per-feature estimate of f(x)
        f = float(skeleton_kernel(sk, centres, x[None, :])[:, 0] @ alpha)
        err = (g.reshape(groups, q).mean(1) - f) ** 2
        m, h = clt_interval(err[:, None])
        bound = norm2 / q
        ok &= float(m[0] - h[0]) <= bound
        parts.append(f"{float(m[0]):.2e} +/- {float(h[0]):.1e}")
    return ("E|f(x) - f_w(x)|^2 = " + ", ".join(parts) + f" at the 3 points ({_LEVEL}), below C^2 ||f||^2/q = "
            f"{norm2 / q:.2e} (||f||^2 = {norm2:.3f}, q = {q}).", Finding(bool(ok), counterexample="an error above the bound"))


from rfverify.studies.claims import daniely2017_learning as _learning  # noqa: E402  (eqs. (5)/(8), Examples 2-3, Lemma 7, Table 1)

CLAIMS.extend(_learning.CLAIMS)

from rfverify.studies.claims import daniely2017_fig3 as _fig3  # noqa: E402  (Fig. 3 at a reduced scale)

CLAIMS.extend(_fig3.CLAIMS)

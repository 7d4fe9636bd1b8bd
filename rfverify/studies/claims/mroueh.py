"""Verdicts on the printed claims of Mroueh, Rennie & Goel, *Random Maxout Features*.

:func:`evaluate_maxout_claims` returns one record per claim with keys ``id``,
``source`` (``"mroueh"``), ``location``, ``statement`` (quoted as printed),
``method``, ``verdict`` (``"holds"`` | ``"fails"`` | ``"holds with a
correction"``) and ``evidence`` (a string with the input, the claimed value and
the true value with its precision or interval).

Exact values come from :mod:`rfverify.highprec.maxout` (mpmath, computed at
``REFERENCE_DPS`` and ``CHECK_DPS`` digits; the larger difference is quoted as
the precision).  Monte Carlo evidence uses CLT intervals ``mean +/- z se`` with
``z = Phi^{-1}(1 - ALPHA / 2)`` at ``ALPHA = 1e-3`` per interval (each interval
is reported on its own, no family-wise claim is made); every draw comes from
``np.random.default_rng([SEED, key])`` with a fixed key per claim.

Summary of the mathematics (derivations in :mod:`rfverify.highprec.maxout`):
``kappa_q``'s Taylor series is the Mehler series of the argmax indicator on
``R^q``, so ``a_i >= 0``, ``sum a_i = kappa_q(1) = 1`` and, for ``q >= 2``,
``sum (-1)^i a_i = kappa_q(-1) = 0``; translation invariance gives
``a_0 = 1/q``, ``a_1 = h_1^2/(q-1)``, ``a_2 = q h_2^2/((q-1)(q-2))`` (``q >= 3``).
Price's theorem gives the true kernel ``K_q(rho) = mu_q^2 + int_0^rho kappa_q``,
which contradicts Theorem 1 everywhere except ``rho = 1`` (and ``q = 1``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from mpmath import mp
from scipy import stats

from rfverify.highprec import maxout as hp
from rfverify.implementations.maxout import MaxoutHash

__all__ = ["evaluate_maxout_claims", "SOURCE", "ALPHA", "SEED"]

SOURCE = "mroueh"
#: Level of each Monte Carlo interval.
ALPHA = 1e-3
#: Root seed of every Monte Carlo draw in this module.
SEED = 20150602

_Z = float(stats.norm.isf(ALPHA / 2))
_QS = tuple(range(1, hp.Q_MAX + 1))


def _s(x: Any, digits: int = 12) -> str:
    with mp.workdps(hp.REFERENCE_DPS):
        return mp.nstr(mp.mpf(x), digits)


def _record(cid: str, location: str, statement: str, method: str, verdict: str, evidence: str) -> dict[str, Any]:
    return {
        "id": cid,
        "source": SOURCE,
        "location": location,
        "statement": statement,
        "method": method,
        "verdict": verdict,
        "evidence": evidence,
    }


def _two_precisions(values_hi: tuple[Any, ...], values_lo: tuple[Any, ...]) -> Any:
    with mp.workdps(hp.REFERENCE_DPS):
        return max(abs(mp.mpf(a) - mp.mpf(b)) for a, b in zip(values_hi, values_lo))


def _interval(mean: float, se: float) -> str:
    return f"{mean:.5f} +/- {_Z * se:.5f} (CLT, level {1 - ALPHA})"


def _a_low_order() -> list[dict[str, Any]]:
    hi = {q: hp.kappa_coefficients(q, 2, hp.REFERENCE_DPS) for q in _QS}
    lo = {q: hp.kappa_coefficients(q, 2, hp.CHECK_DPS) for q in _QS}
    h = {q: hp.hermite_moments(q, 2, hp.REFERENCE_DPS) for q in _QS}
    prec = max(_two_precisions(hi[q], lo[q]) for q in _QS)
    out = []
    with mp.workdps(hp.REFERENCE_DPS):
        dev0 = max(abs(hi[q][0] - mp.mpf(1) / q) for q in _QS)
        out.append(_record(
            "lemma1-a0", "Lemma 1", "a_0(q) = 1/q",
            "Mehler coefficients a_i = q sum_{|alpha|=i} c_alpha(1{g_1 = max})^2 by 1-D trapezoidal "
            "quadrature at 45 and 30 digits, q = 1..16",
            "holds",
            f"max_q |a_0(q) - 1/q| = {_s(dev0, 3)} (q = 1..16); e.g. a_0(4) = {_s(hi[4][0], 30)}; "
            f"45- vs 30-digit difference <= {_s(prec, 3)}",
        ))
        dev1 = max(abs(hi[q][1] - h[q][1] ** 2 / (q - 1)) for q in _QS if q >= 2)
        ex = "; ".join(f"q={q}: a_1={_s(hi[q][1])}, h_1^2/(q-1)={_s(h[q][1] ** 2 / (q - 1))}" for q in (2, 4, 16))
        out.append(_record(
            "lemma1-a1", "Lemma 1", "a_1(q) = h_1^2(q)/(q-1)",
            "true a_1 (Mehler coefficients) vs the formula with h_1 = E M_q, q = 2..16; exact proof via "
            "translation invariance sum_k d_k 1{g_1 = max} = 0",
            "holds",
            f"max_(q=2..16) |a_1 - h_1^2/(q-1)| = {_s(dev1, 3)}; {ex}; a_1(2) = 1/pi = {_s(1 / mp.pi)}. "
            "At q = 1 the formula is 0/0 (h_1(1) = 0) and the true a_1(1) = 0 (kappa_1 = 1); q = 1 has no pooling.",
        ))
        dev2 = max(abs(hi[q][2] - q * h[q][2] ** 2 / ((q - 1) * (q - 2))) for q in _QS if q >= 3)
        ex = "; ".join(
            f"q={q}: a_2={_s(hi[q][2])}, formula={_s(q * h[q][2] ** 2 / ((q - 1) * (q - 2)))}" for q in (3, 4, 16)
        )
        out.append(_record(
            "lemma1-a2", "Lemma 1", "a_2(q) = q h_2^2(q)/((q-1)(q-2))",
            "true a_2 vs the formula, q = 3..16; q = 2 separately (closed form kappa_2 = 1/2 + asin(rho)/pi)",
            "holds with a correction",
            f"q >= 3: max |a_2 - formula| = {_s(dev2, 3)}; {ex}. q = 2: h_2(2) = (sigma2(2) - 1)/sqrt(2) = "
            f"{_s(h[2][2], 3)} (sigma2(2) = 1 exactly) and (q-1)(q-2) = 0, so the printed formula is 0/0; the true "
            f"a_2(2) = {_s(hi[2][2], 3)} (asin is odd). Correction: the formula holds for q >= 3; a_2(2) = 0 "
            "(the same derivation gives 2 h_2(2)^2 = 0 at q = 2).",
        ))
    return out


def _series_claims() -> list[dict[str, Any]]:
    coeffs = {q: hp.kappa_coefficients(q, hp.I_MAX, hp.CHECK_DPS) for q in _QS}
    kap_end = {q: float(hp.kappa_of_angle(np.array([0.0, np.pi]), q)[0]) for q in _QS}
    kap_opp = {q: float(hp.kappa_of_angle(np.array([np.pi]), q)[0]) for q in _QS}
    out = []
    with mp.workdps(hp.REFERENCE_DPS):
        amin = min(min(c) for c in coeffs.values())
        out.append(_record(
            "lemma1-nonneg", "Lemma 1", "The coefficients a_i(q), of the expansion are all non negatives",
            "a_i = q sum_{|alpha|=i} c_alpha^2 >= 0 (Mehler on R^q, a sum of squares); numerically a_0..a_8 "
            "for q = 1..16 at 30 digits",
            "holds",
            f"min over q = 1..16, i = 0..8 of a_i(q) = {_s(amin, 3)} (exact zeros: a_(2k)(2), k >= 1, and "
            f"a_i(1), i >= 1); smallest nonzero e.g. a_8(3) = {_s(coeffs[3][8])}",
        ))
        partial = {q: mp.fsum(coeffs[q]) for q in _QS}
        out.append(_record(
            "lemma1-sum", "Lemma 1 and Section 2.1 item 1",
            "the taylor series of kappa_q around rho = 0, converges for all rho in the range |rho| <= 1. ... "
            "their sum converges to 1",
            "a_i >= 0 and kappa_q(1) = 1 (D(x) = D(x)), so by Abel's theorem/monotone convergence "
            "sum a_i = lim_{rho->1-} kappa_q(rho) = 1; numpy table of kappa_q at theta = 0",
            "holds",
            f"kappa_q(rho = 1) from the 2-D quadrature table: max_q |kappa_q(1) - 1| = "
            f"{max(abs(v - 1) for v in kap_end.values()):.1e}; partial sums sum_(i<=8) a_i: "
            f"q=2: {_s(partial[2], 8)}, q=4: {_s(partial[4], 8)}, q=16: {_s(partial[16], 8)} (slow tail, "
            "a_i ~ i^(-3/2) from the sqrt(1-rho) singularity; q=2: tail = 1 - sum = sum of asin coefficients)",
        ))
        even = {q: mp.fsum(coeffs[q][0::2]) for q in _QS}
        odd = {q: mp.fsum(coeffs[q][1::2]) for q in _QS}
        out.append(_record(
            "sec2-even-odd", "Section 2.1 item 3 (citing [26])",
            "sum_{i>=0} a_{2i}(q) = sum_{i>=0} a_{2i+1}(q) = 1/2",
            "sum a_(2i) - sum a_(2i+1) = kappa_q(-1) = P(argmax g = argmax(-g)) and sum = 1; kappa_q(-1) "
            "from the numpy table; partial sums to i = 8",
            "holds with a correction",
            f"q >= 2: argmax g = argmin g has probability 0, kappa_q(-1) = 0 (table: max_(q>=2) |kappa_q(-1)| = "
            f"{max(abs(kap_opp[q]) for q in _QS if q >= 2):.1e}), so both sums are 1/2; partial sums (i<=8) "
            f"q=3: even {_s(even[3], 6)}, odd {_s(odd[3], 6)}. q = 1: kappa_1 = 1, even sum 1 and odd sum 0 "
            "(counterexample). Correction: requires q >= 2.",
        ))
    return out


def _asymptotic_claims() -> list[dict[str, Any]]:
    qs = (2, 16, 2**10, 2**20, 2**40)
    dps = hp.CHECK_DPS
    mean = {q: hp.expected_max(q, dps) for q in qs}
    second = {q: hp.expected_max_square(q, dps) for q in qs}
    out = []
    with mp.workdps(dps):
        r1 = ", ".join(f"q=2^{int(math.log2(q))}: {_s(mean[q] / mp.sqrt(2 * mp.log(q)), 5)}" for q in qs)
        out.append(_record(
            "sec2-h1-asymptotic", "Section 2.1 (citing [10, 26])", "h_1(q) ~ sqrt(2 log(q))",
            "E max by tanh-sinh quadrature of the distribution function Phi^q (30 digits) for q up to 2^40",
            "holds",
            f"ratio h_1(q)/sqrt(2 log q): {r1}; increasing to 1 (classical extreme-value limit), slowly "
            "(relative error ~ log log q / (4 log q)); at q = 16 the approximation is off by 25 %.",
        ))
        r2 = ", ".join(f"q=2^{int(math.log2(q))}: {_s(second[q] / mp.log(q), 5)}" for q in qs)
        out.append(_record(
            "appA-sigma2-log", "Appendix A, after (6)", "it is well known that sigma^2(q) ~ log(q)",
            "E M_q^2 by tanh-sinh quadrature (30 digits) for q up to 2^40; M_q / sqrt(2 log q) -> 1 in L^2",
            "holds with a correction",
            f"ratio sigma^2(q)/log(q): {r2}; it tends to 2, not 1 (sigma^2(q) ~ 2 log q since "
            "M_q/sqrt(2 log q) -> 1 in L^2). Correction: sigma^2(q) ~ 2 log(q).",
        ))
        r3 = ", ".join(
            f"q=2^{int(math.log2(q))}: {_s(q * mean[q] ** 2 / ((q - 1) * 2 * mp.log(q)), 5)}" for q in qs
        )
        out.append(_record(
            "sec2-slope", "Section 2.1",
            "kappa_q(x, z) = 1/q (1 + (1 + eps(q)) 2 log(q) rho) + O(rho^2), where eps(q) -> 0",
            "1 + eps(q) = q a_1(q) / (2 log q) = q h_1^2 / ((q-1) 2 log q) with a_1 = h_1^2/(q-1) (exact)",
            "holds",
            f"1 + eps(q): {r3}; eps(q) -> 0 but slowly (eps(16) = {_s(16 * mean[16] ** 2 / (15 * 2 * mp.log(16)) - 1, 3)}).",
        ))
    return out


def _kernel_claims() -> list[dict[str, Any]]:
    out = []
    # Theorem 1 -------------------------------------------------------------
    b2 = hp.kernel_coefficients(2, 1, hp.REFERENCE_DPS)
    b2_lo = hp.kernel_coefficients(2, 1, hp.CHECK_DPS)
    k2_closed = hp.kernel_closed_form_q2(0, hp.REFERENCE_DPS)
    mc0 = hp.monte_carlo_kernels(2, 0.0, 400_000, np.random.default_rng([SEED, 1]))
    k3_table = float(hp.kernel_of_angle(np.pi, 3))
    rho = 0.5
    th = math.acos(rho)
    s2_4 = hp.sigma2(4, hp.REFERENCE_DPS)
    kap4 = float(hp.kappa_of_angle(th, 4))
    true4 = float(hp.kernel_of_angle(th, 4))
    mc4 = hp.monte_carlo_kernels(4, rho, 400_000, np.random.default_rng([SEED, 2]))
    with mp.workdps(hp.REFERENCE_DPS):
        claimed4 = float(s2_4) * rho * kap4
        out.append(_record(
            "theorem1", "Theorem 1 (eq. (6), (8))",
            "K(x, z) = E(h(x)h(z)) = sigma^2(q) <x, z> kappa_q(x, z)",
            "true K_q(rho) = E[max g max g'] = mu_q^2 + int_0^rho kappa_q (Price's theorem; series b_0 = h_1^2, "
            "b_i = a_(i-1)/i, confirmed by the direct Mehler coefficients of max on R^q); closed form at q = 2; "
            "2-D quadrature table; Monte Carlo",
            "fails",
            f"Counterexample q = 2, x = e_1, z = e_2 (rho = 0): claimed 0, true K = h_1(2)^2 = 1/pi = "
            f"{_s(b2[0], 30)} (45 vs 30 digits differ by {_s(abs(b2[0] - b2_lo[0]), 2)}; closed form "
            f"rho/2 + (sqrt(1-rho^2) + rho asin rho)/pi = {_s(k2_closed, 30)}); Monte Carlo "
            f"{_interval(mc0['K'], mc0['K_se'])}, n = {mc0['n']}. q = 3, z = -x: claimed 0, true "
            f"-E[min max] = sqrt(3)/pi = {_s(mp.sqrt(3) / mp.pi, 15)} (2-D tanh-sinh of the joint density of "
            f"(min, max), rfverify.highprec.maxout.expected_min_max_product, agrees to 30 digits; table "
            f"{k3_table:.13f}). "
            f"q = 4, rho = 0.5: claimed sigma^2 rho kappa = {claimed4:.10f}, true {true4:.10f}, Monte Carlo "
            f"{_interval(mc4['K'], mc4['K_se'])}. The two agree only at rho = 1 (both sigma^2(q)) and for q = 1. "
            "Correct statement: K(x, z) = |x||z| (mu_q^2 + int_0^rho kappa_q(t) dt), rho = cos angle(x, z).",
        ))
    # the proof's step ------------------------------------------------------
    mu2 = hp.hermite_moments(2, 1, hp.REFERENCE_DPS)[1] ** 2
    rng = np.random.default_rng([SEED, 3])
    n = 400_000
    g = rng.standard_normal((n, 2))
    gp = rng.standard_normal((n, 2))  # rho = 0
    differ = g.argmax(1) != gp.argmax(1)
    prod = g.max(1)[differ] * gp.max(1)[differ]
    with mp.workdps(hp.REFERENCE_DPS):
        out.append(_record(
            "appA-second-term", "Appendix A, proof of Theorem 1",
            "E{<w_D(x), x><w_D(z), z> | D(x) != D(z)} = 0 ... since the gaussians are independent and zero centered",
            "exact value at rho = 0 (h(x), h(z), D(x), D(z) independent across the two arguments; "
            "E[h 1{D = j}] = mu_q/q) and Monte Carlo at q = 2",
            "fails",
            f"At rho = 0: E[h(x)h(z) 1{{D(x) != D(z)}}] = mu_q^2 (q-1)/q and P(D(x) != D(z)) = (q-1)/q, so the "
            f"conditional expectation is mu_q^2 = {_s(mu2, 15)} at q = 2 (claimed 0); Monte Carlo "
            f"{_interval(float(prod.mean()), float(prod.std(ddof=1) / math.sqrt(prod.size)))} from "
            f"{prod.size} of n = {n} pairs. The conditioning on D(x) = D(z) = 1 in the next step also changes the "
            "law of g, so E(g(rho g + ...)| E) = rho sigma^2 is wrong too.",
        ))
    # K(x, x) ---------------------------------------------------------------
    dev = max(abs(float(hp.kernel_of_angle(0.0, q)) - float(hp.sigma2(q, hp.CHECK_DPS))) for q in _QS)
    out.append(_record(
        "thm2-Kxx", "Appendix B, proof of Theorem 2",
        "for x in S^(d-1), K(x, x) = sigma^2(q) ||x||^2 kappa_q(x, x) = sigma^2(q)",
        "K(x, x) = E[h(x)^2] = E M_q^2 for unit x (definition); table K_q(theta = 0) vs sigma2(q)",
        "holds",
        f"max over q = 1..16 of |K_q(1) - sigma2(q)| = {dev:.1e} (table vs 30-digit sigma2); e.g. "
        f"sigma2(16) = {_s(hp.sigma2(16, hp.REFERENCE_DPS), 30)}. (This is the one point where Theorem 1's "
        "formula is right.)",
    ))
    # far-apart points ------------------------------------------------------
    vals = {q: float(hp.kernel_of_angle(np.pi, q)) for q in (2, 3, 4, 8, 16)}
    out.append(_record(
        "sec2-far-apart", "Section 2.1",
        "Qualitatively the derived kernel K(x, z) ~ 0 for far apart points",
        "K_q is increasing in rho (K_q' = kappa_q >= 0), so its minimum over the sphere is "
        "K_q(-1) = -E[min_j g_j max_j g_j]; numpy table, checked at q = 3 against sqrt(3)/pi",
        "fails",
        "K_q(-1) for unit vectors: " + ", ".join(f"q={q}: {v:.6f}" for q, v in vals.items() if q > 2)
        + f", q=2: {abs(vals[2]):.0e} (exactly 0)"
        + f" (vs K_q(1) = sigma2: q=16: {float(hp.sigma2(16, hp.CHECK_DPS)):.6f}). Only q = 2 gives 0; for "
        "large q, K(x, -x)/K(x, x) -> 1, the opposite of locality. (The collision kernel kappa_q does vanish at rho = -1.)",
    ))
    return out


def _hash_claim() -> dict[str, Any]:
    q, m = 4, 20_000
    d = 3
    x = np.array([[1.0, 0.0, 0.0]])
    angles = np.array([0.3, 1.2, 2.5])
    z = np.stack([np.cos(angles), np.sin(angles), np.zeros_like(angles)], axis=1)
    hasher = MaxoutHash(m, random_state=np.random.default_rng([SEED, 4]).integers(2**32), q=q)
    pts = np.vstack([x, z])
    codes = hasher.fit(pts).transform(pts)
    est = hasher.hamming_estimate(codes[0], codes[1:])
    kap = hp.maxout_collision_kernel(x, z, q=q)[0]
    parts = []
    ok = True
    for a, e, k in zip(angles, est, kap):
        se = math.sqrt(k * (1 - k) / m)
        ok &= abs(e - (1 - k)) <= _Z * se
        parts.append(f"angle {a}: d_H = {e:.5f}, 1 - kappa_4 = {1 - k:.5f} +/- {_Z * se:.5f}")
    return _record(
        "remark1-hash", "Remark 1",
        "E(1/m sum_i 1_{C_i(x) != C_i(z)}) = P{argmax_j <w_j, x> != argmax_j <w_j, z>} = 1 - kappa_q(x, z)",
        f"linearity of expectation (exact); Monte Carlo with MaxoutHash(m = {m}, q = {q}) in d = {d} vs the numpy "
        "collision kernel, binomial CLT interval",
        "holds" if ok else "fails",
        "; ".join(parts),
    )


def evaluate_maxout_claims() -> list[dict[str, Any]]:
    """Evaluate every tested claim of the paper; one record per claim (see module docstring).

    Cost: a few seconds on one core (mpmath coefficients are cached).
    """
    records = _a_low_order()
    records += _series_claims()
    records += _asymptotic_claims()
    records += _kernel_claims()
    records.append(_hash_claim())
    return records

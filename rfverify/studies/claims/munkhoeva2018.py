"""Claims of munkhoeva2018 (quadrature-based features): Propositions 2.1 and 2.2, the SR^{3,3} weights, footnote 3,
the per-vertex radii and the butterfly rotation, judged from evidence.

Every number comes from fixed seeds (Monte Carlo with a stated 99.9% normal interval) or exact arithmetic.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import stats

from rfverify.implementations.orthogonal import haar_qr
from rfverify.implementations.quadrature import RULES, simplex_vertices
from rfverify.kernels import get_kernel
from rfverify.studies.claims._common import _Z, _butterflies, _ci, _pairs, claim_list
from rfverify.studies.claims.verdicts import Finding, Reading

__all__ = ["CLAIMS", "SOURCE", "evaluate_munkhoeva2018_claims"]

SOURCE = "munkhoeva2018"
CLAIMS, claim = claim_list(SOURCE)


@claim("prop2.1", "Section 2.1, Proposition 2.1",
       "Random Fourier features for the RBF kernel are SR rules of degree (1, 1): rho Q z ~ N(0, I), rho ~ chi(d), Q Haar",
       "20000 draws of rho Q e_1 in d = 8 (Q by batched sign-corrected QR): KS test of a coordinate against N(0, 1) at level "
       "1e-3, max |sample covariance - I| against 5 sampling sd, the SR(1,1) estimate of exp(-|x - y|^2/2) with a 99.9% "
       "normal interval")
def _munk_21() -> tuple[str, Finding]:
    rng = np.random.default_rng(20180201)
    d, n = 8, 20000
    z = np.zeros(d)
    z[0] = 1.0
    rho = np.sqrt(rng.chisquare(d, size=n))
    Q, R = np.linalg.qr(rng.standard_normal((n, d, d)))  # batched sign-corrected QR: Haar (as haar_qr)
    sgn = np.sign(np.diagonal(R, axis1=1, axis2=2))
    sgn[sgn == 0] = 1.0
    W = rho[:, None] * (Q * sgn[:, None, :])[:, :, 0]  # rho Q e_1
    ks = stats.kstest(W[:, 3], "norm").pvalue
    cov_err = float(np.max(np.abs(np.cov(W.T) - np.eye(d))))
    X, Y = _pairs(rng)
    kern = get_kernel("rbf", gamma=0.5)(X, Y).diagonal()
    fvals = np.cos((X - Y) @ W.T)  # f(w) = cos(w.(x - y)) = (f(w) + f(-w))/2 for the rbf integrand
    m, h = _ci(fvals[0])
    ok = ks >= 1e-3 and cov_err <= 5 * math.sqrt(2 / n) and abs(m - kern[0]) <= h
    return (f"KS p = {ks:.3g}; max |cov - I| = {cov_err:.3g} (sampling sd ~ {math.sqrt(2 / n):.2g}); the SR(1,1) "
            f"estimate at pair 0 is {m:.4f} +/- {h:.4f} (99.9%) against {kern[0]:.4f}. For a general gamma the nodes "
            "are sqrt(2 gamma) rho Q z.", Finding(ok, counterexample="a test outside its level"))


@claim("prop2.2", "Section 2.2, Proposition 2.2",
       "Orthogonal Random Features for the RBF kernel are SR rules of degree (1, 3): "
       "SR^{1,3} = sum_{i=1}^d [f(rho Q e_i) + f(-rho Q e_i)]/2, k_ORF = sum_{i=1}^d f(w_i)",
       "4000 draws in d = 8 at one pair (Q by batched sign-corrected QR): the printed sum, the rule with weight 1/d "
       "(one shared rho ~ chi(d)), ORF "
       "(independent chi(d) radius per row), 99.9% normal intervals; the rules' variances (the same rule has the same "
       "law); exactness of {+-Q e_i} on a random cubic",
       notation=(("rho in SR^{1,3}", "one radius rho ~ chi(d) shared by the d node pairs", "Sec. 2.2: 'where rho ~ "
                  "chi(d)'"),
                 ("S in ORF", "diagonal, entries drawn independently from chi(d) (one radius per row)", "Sec. 2.2: "
                  "'S is a diagonal matrix with the entries drawn independently from chi(d)'"),
                 ("are SR rules of degree (1, 3)", "k_ORF is the rule SR^{1,3} (the same estimator)", "Sec. 2.2, "
                  "title: 'Spherical-radial rules of degree (1, 3) is ORF'")),
       audit="re-audited against the notation rule (2026-11-29): was 'false as printed; corrected form holds'; the "
             "paper defines both radii itself (one shared, one per row), and with the 1/d weight the two estimators "
             "still differ in variance (the shared radius gives RFF's variance): now 'false'")
def _munk_22() -> tuple[str, Finding]:
    rng = np.random.default_rng(20180202)
    d, R = 8, 4000
    X, Y = _pairs(rng)
    delta = (X - Y)[2]
    k = math.exp(-0.5 * float(delta @ delta))
    Q, Rq = np.linalg.qr(rng.standard_normal((R, d, d)))  # batched sign-corrected QR: Haar (as haar_qr)
    sgn = np.sign(np.diagonal(Rq, axis1=1, axis2=2))
    sgn[sgn == 0] = 1.0
    Qd = np.einsum("nij,j->ni", Q * sgn[:, None, :], delta)  # rows of Q dotted with delta
    rho = np.sqrt(rng.chisquare(d, size=(R, 1)))
    f_shared = np.cos(rho * Qd)
    printed = f_shared.sum(1)  # as printed: sum_{i=1}^d, no 1/d
    sr13 = f_shared.mean(1)
    orf = np.cos(np.sqrt(rng.chisquare(d, size=(R, d))) * Qd).mean(1)
    p, ph = _ci(printed)
    a, ah = _ci(sr13)
    b, bh = _ci(orf)
    rff = np.cos(rng.standard_normal((R, d, d)) @ delta).mean(1)
    # exactness of the spherical rule {±Q e_i} with weights 1/(2d) for polynomials of degree <= 3
    A = rng.standard_normal((d, d))
    A = A + A.T
    c3 = rng.standard_normal(d)
    Q = haar_qr(d, rng=rng)
    nodes = np.vstack([Q.T, -Q.T])
    poly = np.einsum("ni,ij,nj->n", nodes, A, nodes) + (nodes @ c3) ** 3 + nodes[:, 0]
    exact = np.trace(A) / d  # E_z[z^T A z] = tr(A)/d; odd terms integrate to 0
    rule_err = abs(float(np.mean(poly)) - exact)
    ok_rule = rule_err <= 1e-12 * max(1.0, abs(exact))
    v_sr, v_orf, v_rff = float(np.var(sr13)), float(np.var(orf)), float(np.var(rff))
    # the identification: the rules are the same only if their estimates have the same law; the variances differ
    # by far more than their sampling error (relative s.e. of a variance ~ sqrt(2/R) for near-normal estimates)
    same_rule = abs(v_sr - v_orf) <= 5 * math.sqrt(2 / R) * max(v_sr, v_orf)
    return (f"The printed sum estimates {p:.4f} +/- {ph:.4f} = d k (k = {k:.4f}); with weight 1/d the shared-radius "
            f"rule gives {a:.4f} +/- {ah:.4f} and ORF {b:.4f} +/- {bh:.4f} (99.9%), both unbiased, but they are "
            f"different rules: variance {v_sr:.4f} for SR^(1,3) (one rho for all d nodes, as for i.i.d. RFF with d "
            f"frequencies: {v_rff:.4f}) against {v_orf:.4f} for ORF (one chi(d) radius per row). The 1/d fixes the "
            f"weights, not the identification; the spherical rule {{+-Q e_i}} integrates the cubic to {rule_err:.1e}.",
            Finding(abs(p - k) <= ph and same_rule,
                    counterexample=f"d = {d}: variance {v_sr:.4f} (shared-radius SR^(1,3)) vs {v_orf:.4f} (ORF); "
                                   f"and f = 1 gives d = {d}, not 1",
                    correction="weight 1/d: SR^{1,3} = (1/d) sum_i [f(rho Q e_i) + f(-rho Q e_i)]/2, "
                               "k_ORF = (1/d) sum_i f(w_i) (tested: the weights are fixed, the two rules still differ)",
                    correction_holds=abs(a - k) <= ah and abs(b - k) <= bh and ok_rule and same_rule))


_D_SR33 = 8


def _sr33_weight_sums(d: int, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Printed a_0^2 = 1 - sum_j d/rho_j^2 and corrected 1 - sum_j d/((d+1) rho_j^2), rho_j ~ chi(d+2)."""
    inv = 1.0 / rng.chisquare(d + 2, size=(n, d + 1))
    return 1 - d * inv.sum(1), 1 - d / (d + 1) * inv.sum(1)


@claim("sec2.3-a0", "Section 2.3, explicit mapping",
       "a_0 = sqrt(1 - sum_{j=1}^{d+1} d/rho^2), a_j = (1/rho_j) sqrt(d/(2(d+1)))",
       "exact: the weights of one rule must sum to 1 (f = 1 integrated exactly); Monte Carlo, 10^5 draws of "
       "rho_j ~ chi(d+2), d = 8: the sign of a_0^2, under per-vertex radii (rho^2 read as rho_j^2) and a "
       "shared radius (rho_j = rho)")
def _a0() -> tuple[str, Finding]:
    d, n = _D_SR33, 100_000
    printed, corrected = _sr33_weight_sums(d, n, np.random.default_rng(20180203))
    shared = 1 - (d + 1) * d / np.random.default_rng(20180206).chisquare(d + 2, size=n)  # sum_j d/rho^2, rho shared
    pts, w = RULES["sr33-per-vertex-haar"].draw_many(d, 50, rng=np.random.default_rng(20180204))
    sums = w.reshape(50, -1).sum(1)
    dev = float(np.max(np.abs(sums - 1)))
    return (f"As printed, a_0^2 has mean {printed.mean():.3f} (exactly 1 - (d + 1) = {-d}) and is >= 0 in "
            f"{np.mean(printed >= 0):.4f} of 10^5 draws; with 1/(d + 1) and the index j, "
            f"a_0^2 = 1 - sum_j d/((d+1) rho_j^2) has mean {corrected.mean():.4f} (exactly 0) and the rule's weights "
            f"(a_0^2 plus 2 (d + 1) a_j^2) sum to 1 within {dev:.1e} over 50 rules."
            f" The extracted sum has its limits swapped and rho without its index j, so both readings of rho are "
            f"checked: with one shared rho ~ chi(d+2), a_0^2 has mean {shared.mean():.3f} and is >= 0 in "
            f"{np.mean(shared >= 0):.4f} of the draws.",
            Finding(bool(np.mean(printed >= 0) > 0.5), counterexample=f"E a_0^2 = 1 - (d+1) = {-d} at d = {d}",
                    readings=(Reading("rho^2", "rho_j^2, the radius of vertex j", "Sec. 2.3: a_j = (1/rho_j) ..., "
                                      "rho = [rho_1 ... rho_D]", holds=bool(np.mean(printed >= 0) > 0.5)),
                              Reading("rho^2", "one radius shared by the d + 1 vertices", "eq. (5), one rho per rule",
                                      holds=bool(np.mean(shared >= 0) > 0.5))),
                    extraction="the sum's limits are swapped and rho has lost its index in the extracted text",
                    audit='re-audited against the notation rule (2026-11-29): the extraction is garbled, so both '
                          'readings of rho were checked: each makes '
                          "a_0^2 negative on average (the 1/(d + 1) is missing under both); verdict stands",
                    correction="a_0 = sqrt(1 - sum_{j=1}^{d+1} d/((d+1) rho_j^2))", correction_holds=dev <= 1e-12))


@claim("fn3-two-times", "Section 2.3, footnote 3",
       "To get a_0^2 >= 0, you need to sample rho_j two times on average",
       "Monte Carlo, 10^5 draws of the d + 1 radii rho_j ~ chi(d+2) per d = 2, 4, 8, 16, 32: expected draws "
       "1/P(a_0^2 >= 0) with a 99.9% interval (delta method); rule: within 0.1 of 2")
def _fn3() -> tuple[str, Finding]:
    rng = np.random.default_rng(20180205)
    n = 100_000
    rows = []
    for d in (2, 4, 8, 16, 32):
        _, corr = _sr33_weight_sums(d, n, rng)
        p = float(np.mean(corr >= 0))
        hw = _Z * math.sqrt(p * (1 - p) / n) / p**2
        rows.append((d, 1 / p, hw))
    printed_ok = all(abs(t - 2) <= 0.1 + hw for _, t, hw in rows)
    bound_ok = all(t - hw <= 2 for _, t, hw in rows) and all(a[1] <= b[1] + b[2] + a[2] for a, b in zip(rows, rows[1:]))
    return ("Expected draws " + ", ".join(f"{t:.3f} +/- {hw:.3f} at d = {d}" for d, t, hw in rows) + " (99.9%): "
            "E a_0^2 = 0 exactly and a_0^2 is right-skewed, so P(a_0^2 >= 0) > 1/2 and the count rises toward 2 as d "
            "grows (redrawing also biases the estimate, see the quadrature errata).",
            Finding(printed_ok, counterexample=f"d = 2: {rows[0][1]:.2f} draws",
                    condition="read as 'at most two', the large-d limit", holds_under_condition=bound_ok))


def _rule_estimates(rule: str, d: int, n: int, delta: np.ndarray, seed: int) -> np.ndarray:
    """n independent single SR^{3,3} estimates of E cos(w.delta), w ~ N(0, I) (= exp(-|delta|^2/2)), vectorised.

    ``rule``: ``sr33-haar`` (eq. 5, one rho), ``sr33-per-vertex-haar`` (one rho_j per vertex) or
    ``sr33-butterfly``; the same weights as :func:`rfverify.implementations.quadrature.sr33_assemble`
    (centre 1 - sum_j c_j, pair j carries c_j = d/((d+1) rho_j^2); cos is even, so the pair gives c_j cos).
    """
    rng = np.random.default_rng(seed)
    if rule.endswith("butterfly"):
        Q = _butterflies(d, n, rng)
    else:
        Q, R = np.linalg.qr(rng.standard_normal((n, d, d)))
        sgn = np.sign(np.diagonal(R, axis1=1, axis2=2))
        sgn[sgn == 0] = 1.0
        Q = Q * sgn[:, None, :]
    if "per-vertex" in rule:
        rho = np.sqrt(rng.chisquare(d + 2, size=(n, d + 1)))
    else:
        rho = np.repeat(np.sqrt(rng.chisquare(d + 2, size=(n, 1))), d + 1, axis=1)
    proj = np.einsum("nij,i->nj", Q, delta) @ simplex_vertices(d).T  # (Q v_j).delta = v_j.(Q^T delta)
    c = d / ((d + 1) * rho**2)
    return 1 - c.sum(1) + (c * np.cos(rho * proj)).sum(1)


@claim("sec2.3-per-vertex-radii", "Section 2.3",
       "[generating rho_j ~ chi(d+2) for each v_j] doesn't affect the quality of approximation",
       "Monte Carlo, 10000 rules of each kind in d = 8 at 3 distances: mean squared error of one SR^{3,3} rule "
       "(shared rho vs per-vertex rho_j), ratio with a 99.9% interval (delta method); rule: ratio in [0.8, 1.25]")
def _per_vertex() -> tuple[str, Finding]:
    d, n = _D_SR33, 10_000
    rng = np.random.default_rng(20180206)
    parts, ok = [], True
    for i, r in enumerate((0.5, 1.0, 2.0)):
        delta = rng.standard_normal(d)
        delta *= r / np.linalg.norm(delta)
        k = math.exp(-r * r / 2)
        e1 = (_rule_estimates("sr33-haar", d, n, delta, 20180207 + i) - k) ** 2
        e2 = (_rule_estimates("sr33-per-vertex-haar", d, n, delta, 20180217 + i) - k) ** 2
        ratio = e2.mean() / e1.mean()
        hw = _Z * ratio * math.sqrt(e1.var() / (n * e1.mean() ** 2) + e2.var() / (n * e2.mean() ** 2))
        ok &= 0.8 <= ratio - hw and ratio + hw <= 1.25
        parts.append(f"{ratio:.3f} +/- {hw:.3f} at |x - y| = {r}")
    return ("MSE(per-vertex)/MSE(shared) = " + "; ".join(parts) + " (99.9%): per-vertex radii change the quality "
            "of one rule (here they lower its mean squared error).",
            Finding(bool(ok), empirical=True, power=f"10000 rules per kind in d = {d}: the intervals resolve a "
                                                   "10% change in mean squared error"))


@claim("sec2.4-butterfly", "Sections 2.4 and 4 (method B)",
       "The other choice for Q are so-called butterfly matrices ... The method using butterfly matrices is denoted by "
       "B [used as an SR^{3,3} estimator like Haar Q]",
       "Monte Carlo, 5000 SR^{3,3} rules with Haar and with butterfly Q in d = 8 at |x - y| = 1.5 along e_1 + e_2, 99.9% "
       "normal intervals of E[estimate] - k",
       notation=(('butterfly matrices',
                  "Genz's recursive Givens products, uniform angles",
                  'Sec. 2.4, citing Genz 1998'),),
       audit='re-audited against the notation rule (2026-11-29): one reading; verdict stands')
def _butterfly() -> tuple[str, Finding]:
    d, n = _D_SR33, 5_000
    delta = np.zeros(d)
    delta[:2] = 1.5 / math.sqrt(2)
    k = math.exp(-1.5**2 / 2)
    res = {}
    for i, rule in enumerate(("sr33-haar", "sr33-butterfly")):
        est = _rule_estimates(rule, d, n, delta, 20180230 + i)
        res[rule] = _ci(est - k)
    (mh, hh), (mb, hb) = res["sr33-haar"], res["sr33-butterfly"]
    return (f"E[estimate] - k = {mh:+.4f} +/- {hh:.4f} with Haar Q and {mb:+.4f} +/- {hb:.4f} with a butterfly Q "
            f"(99.9%, k = {k:.4f}): butterfly matrices are not Haar-distributed, so the rule is biased (unbiasedness is "
            "stated for Haar Q only).",
            Finding(abs(mb) <= hb and abs(mh) <= hh, counterexample=f"bias {mb:+.4f} +/- {hb:.4f} at d = {d}"))


def evaluate_munkhoeva2018_claims() -> list[dict]:
    """Every claim of this paper, evaluated, as dicts (see :class:`rfverify.studies.claims.Claim`)."""
    from rfverify.studies.claims import evaluate_claims

    return [c.to_dict() for c in evaluate_claims([SOURCE])]


@claim("sec3-beta-d", "Section 3, after Proposition 3.1",
       "Term beta_d depends on dimension d, its maximum is beta_86 ~ 64.7 < 65, and lim_{d->inf} beta_d = 64, though it "
       "is lower for small d",
       "mpmath 30 digits: beta_d = (d^(-d/(d+1)) + d^(1/(d+1))) 2^((6d+1)/(d+1)) (d/(d+1))^(d/(d+1)) for d = 1..1000, "
       "10^6, 10^9; rule: argmax 86, max < 65, decreasing beyond, within 1e-5 of 64 at 10^9")
def _beta_d() -> tuple[str, Finding]:
    from mpmath import mp

    with mp.workdps(30):
        def beta(d: int) -> Any:
            d_ = mp.mpf(d)
            return (d_ ** (-d_ / (d_ + 1)) + d_ ** (1 / (d_ + 1))) * 2 ** ((6 * d_ + 1) / (d_ + 1)) * (d_ / (d_ + 1)) ** (d_ / (d_ + 1))

        vals = [beta(d) for d in range(1, 1001)]
        top = max(range(1000), key=lambda i: vals[i])
        tail = [vals[-1], beta(10**6), beta(10**9)]
        decreasing = all(b < a for a, b in zip(vals[top:], vals[top + 1:])) and tail[0] > tail[1] > tail[2]
        ok = top + 1 == 86 and vals[top] < 65 and decreasing and abs(tail[2] - 64) < mp.mpf("1e-5")
        return (f"beta_d peaks at d = {top + 1} with {mp.nstr(vals[top], 10)}, decreases beyond (beta_1000 = "
                f"{mp.nstr(tail[0], 8)}, beta_10^9 = {mp.nstr(tail[2], 10)}) toward 64, and is {mp.nstr(vals[0], 4)} at "
                f"d = 1 and {mp.nstr(vals[1], 6)} at d = 2.", Finding(ok, counterexample="a different maximum or limit"))


from rfverify.studies.claims import munkhoeva2018_bounds as _bounds  # noqa: E402  (§3's bounds, §2.3's count, eq. (5) exactness)

CLAIMS.extend(_bounds.CLAIMS)

from rfverify.studies.claims import munkhoeva2018_rules as _rules  # noqa: E402  (footnote 3's redraw, QR vs butterfly, §3's constants)

CLAIMS.extend(_rules.CLAIMS)

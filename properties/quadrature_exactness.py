"""Quadrature rules: the contract of ``rule(d, rng)`` and exactness on polynomials for every draw."""

from __future__ import annotations

import math

import numpy as np

from rfverify.kinds.quadrature import QuadratureContext, wick_moment
from rfverify.registry import register_check
from rfverify.results import CheckResult, JSONValue
from rfverify.tolerances import roundoff_inner_product

#: Entries of the random integer vectors a_k of the linear forms, and of the coefficients.
FORM_ENTRIES = 2
COEFF_RANGE = 3
#: Products of linear forms per random polynomial (their sum is the polynomial).
TERMS = 2


def rounding_steps(n: int, d: int, p: int) -> int:
    """Rounding steps on the longest path of the computed quadrature sum of a degree-p product.

    ``d`` per inner product a_k . x_i and one per product, for each of the p
    factors (p + 1 accounts for the coefficient); ``n`` for the weighted sum;
    ``d * d`` for constructing the points (an orthogonal factor from
    Householder QR has backward error ~ gamma~_{d^2}; Higham 2002, Thm 19.4).
    """
    return n + (p + 1) * (d + 2) + d * d


@register_check("quadrature", "rule-contract", statistical=False, cost="3 draws")
def check_rule_contract(ctx: QuadratureContext) -> CheckResult:
    """rule(d, rng) returns finite (n, d) points and (n,) weights, determined by rng alone.

    Property: a draw is a pair (points (n, d), weights (n,)) of finite reals;
    the same generator state gives the identical draw, a different one a
    different draw (the rule is random and takes its randomness from ``rng``,
    never from numpy's global state).
    Test: exact comparison of two draws from equal seeds and one from another
    seed; deterministic.  A rule that draws from or reseeds numpy's global
    state is a plug-in fault: :mod:`rfverify.guard` reports it (status
    ``error``) around this check as around every check.
    A rule declared deterministic (a cubature) must give the same draw for
    every rng state instead.
    Applies to: every quadrature rule.  Reference: SciPy SPEC 7 (``rng``).
    """
    P1, w1 = ctx.draw(0, "same")
    P2, w2 = ctx.draw(0, "same")
    P3, w3 = ctx.draw(1, "other")
    details = {"n_points": int(P1.shape[0])}
    where = f"d = {ctx.dim}, draws of {P1.shape[0]} points"
    if P1.shape != P2.shape or not (np.array_equal(P1, P2) and np.array_equal(w1, w2)):
        return ctx.fail("not reproducible from rng", "two draws from identical rng states differ",
                        "identical draws (points and weights)", where=where,
                        cause="the rule has a hidden source of randomness", details=details)
    identical = P1.shape == P3.shape and np.array_equal(P1, P3) and np.array_equal(w1, w3)
    if ctx.deterministic:
        if not identical:
            return ctx.fail("not deterministic", "draws from different rng states differ",
                            "the same draw for every rng state (declared deterministic)", where=where,
                            cause="the rule draws random numbers: do not declare it deterministic", details=details)
        return ctx.result("pass", f"the same {P1.shape[0]} points and weights for every rng state, as declared "
                          f"deterministic (d = {ctx.dim}); numpy's global state untouched", details=details)
    if identical:
        return ctx.fail("not random", "draws from different rng states are identical",
                        "different draws: a stochastic rule takes its randomness from rng", where=where,
                        cause="the rule ignores rng: if it is a deterministic rule (a cubature), declare it "
                              "deterministic (--deterministic) and, unless it is exact, biased (--biased)",
                        details=details)
    return ctx.result("pass", f"draws of {P1.shape[0]} points in d = {ctx.dim}, reproducible from rng, "
                      "random across seeds", details=details)


def _random_polynomial(degree: int, d: int, rng: np.random.Generator) -> list[tuple[int, np.ndarray]]:
    """sum_t c_t prod_{k<degree} (a_tk . w) with integer c_t and integer vectors a_tk."""
    terms = []
    for _ in range(TERMS):
        c = int(rng.integers(1, COEFF_RANGE + 1)) * int(rng.choice([-1, 1]))
        A = rng.integers(-FORM_ENTRIES, FORM_ENTRIES + 1, size=(degree, d))
        for k in range(degree):  # no zero form (it would make the term trivially exact)
            while not A[k].any():
                A[k] = rng.integers(-FORM_ENTRIES, FORM_ENTRIES + 1, size=d)
        terms.append((c, A))
    if degree == 0 and sum(c for c, _ in terms) == 0:  # the zero polynomial tests nothing
        return _random_polynomial(degree, d, rng)
    return terms


def _exact(poly: list[tuple[int, np.ndarray]]) -> int:
    return sum(c * wick_moment(A.tolist()) for c, A in poly)


def _quadrature(poly: list[tuple[int, np.ndarray]], P: np.ndarray, w: np.ndarray) -> tuple[float, float]:
    """The computed sum_i w_i p(x_i) and the scale S = sum_t |c_t| sum_i |w_i| prod_k |a_tk| |x_i|."""
    total = 0.0
    scale = 0.0
    norms = np.linalg.norm(P, axis=1)
    absw = np.abs(w)
    for c, A in poly:  # degree 0: A has no rows, and each product over them is empty (= 1)
        vals = np.prod(P @ A.T, axis=1)
        total += c * float(w @ vals)
        bound = np.prod(np.outer(norms, np.linalg.norm(A, axis=1)), axis=1)
        scale += abs(c) * float(absw @ bound)
    return total, scale


@register_check("quadrature", "exactness", statistical=False,
                cost="exact_draws draws x exact_polys polynomials per degree 0..degree+1 (Wick sums exact)",
                figures=("exactness",))
def check_exactness(ctx: QuadratureContext) -> CheckResult:
    """Every single draw integrates every polynomial of total degree <= the claimed degree exactly.

    Property: for each draw (points x_i, weights w_i) and each polynomial p
    of total degree <= P (the declaration), sum_i w_i p(x_i) = E p(w),
    w ~ N(0, I_d) — exactly, up to floating-point round-off (munkhoeva2018
    §2: "exact for polynomials of degree 2l+1" for every sample; Genz &
    Monahan 1998).
    Test: for each degree q = 0..P, ``exact_polys`` random polynomials
    sum_t c_t prod_{k<=q} (a_tk . w) with integer c_t and integer vectors
    a_tk (products of linear forms span the homogeneous polynomials of degree
    q) on each of ``exact_draws`` draws.  Power: with real coefficients a
    rule inexact at degree q would fail on a generic polynomial with
    probability 1; with these small integer forms (entries -2..2) an error
    confined to one monomial w_i^q escapes one polynomial with probability
    about 0.16 at q = 2 and 0.35 at q = 4 (measured,
    tests/test_exploration_quadrature_rules.py), so ``exact_polys`` = k
    polynomials miss such a systematic error with probability about 0.16^k
    (0.35^k at q = 4) — an error spread over several monomials is missed far
    less often.  The reference E p is an integer,
    computed exactly by Isserlis' theorem (sum over perfect matchings of
    prod a_i . a_j); the tolerance is Higham's gamma_N * S with
    S = sum_t |c_t| sum_i |w_i| prod_k |a_tk| |x_i| (a bound on every
    rounded quantity in the sum) and N = :func:`rounding_steps`.
    Deterministic: any |error| > tolerance fails, at the first such degree.
    Degree P + 1 is also tried and reported (not judged).
    Applies to: every rule; degree 0 only asks that the weights sum to 1.
    Catches: a missing d/(d+1) weight (degree 0), an unnormalised simplex
    (degree 2), Monte Carlo behind a higher claim (degree 1 or 2).
    """
    d, P_claim = ctx.dim, ctx.degree
    gen = ctx.rng("polynomials")
    polys = {q: [_random_polynomial(q, d, gen) for _ in range(ctx.budget.exact_polys)]
             for q in range(P_claim + 2)}
    exact = {q: [_exact(p) for p in polys[q]] for q in polys}
    worst_err, worst_ratio, first_fail = _exactness_errors(ctx, polys, exact)
    # the degrees run 0, 1, ..., P + 1: exact through the degree before the first inexact one
    exact_to = next((q - 1 for q in sorted(polys) if worst_ratio[q] > 1), max(polys))
    details = {
        "claimed_degree": P_claim,
        "draws": ctx.budget.exact_draws,
        "polynomials_per_degree": ctx.budget.exact_polys,
        "degrees": list(polys),
        "max_abs_error": [worst_err[q] for q in polys],
        "max_error_over_tolerance": [worst_ratio[q] for q in polys],
        # for the report's exactness plot: errors in units of the round-off tolerance
        "errors": [worst_ratio[q] for q in polys],
        "tolerance": 1.0,
        "error_unit": "tolerance",
        "observed_exact_to": exact_to,
    }
    if first_fail is not None:
        return _not_exact(ctx, first_fail, exact_to, worst_ratio, details)
    beyond = "" if exact_to <= P_claim else f"; also exact at degree {P_claim + 1} on these draws"
    return ctx.result(
        "pass",
        f"every one of {ctx.budget.exact_draws} draws exact on polynomials of degree 0..{P_claim}: max "
        f"|error|/tolerance {max(worst_ratio[q] for q in range(P_claim + 1)):.2g}{beyond}",
        statistic=float(max(worst_ratio[q] for q in range(P_claim + 1))), threshold=1.0, details=details)


_Fail = tuple[int, int, int, float, int, float, float]


def _exactness_errors(ctx: QuadratureContext, polys: dict[int, list[list[tuple[int, np.ndarray]]]], exact: dict[int, list[int]]
                      ) -> tuple[dict[int, float], dict[int, float], _Fail | None]:
    """Per degree the largest |error| and |error| / tolerance over every draw and polynomial; the first
    (lowest-degree) failure within the claim: (q, draw, polynomial, got, exact, error, tolerance)."""
    d, P_claim = ctx.dim, ctx.degree
    worst_err = {q: 0.0 for q in polys}
    worst_ratio = {q: 0.0 for q in polys}
    first_fail: _Fail | None = None
    for t in range(ctx.budget.exact_draws):
        Pts, w = ctx.draw(t)
        n = Pts.shape[0]
        for q in polys:
            gamma = roundoff_inner_product(rounding_steps(n, d, q))
            for j, poly in enumerate(polys[q]):
                got, scale = _quadrature(poly, Pts, w)
                err = abs(got - exact[q][j])
                tol = gamma * scale
                worst_err[q] = max(worst_err[q], err)
                ratio = err / tol if tol > 0 else (math.inf if err > 0 else 0.0)
                worst_ratio[q] = max(worst_ratio[q], ratio)
                if q <= P_claim and ratio > 1 and (first_fail is None or q < first_fail[0]):
                    first_fail = (q, t, j, got, exact[q][j], err, tol)
    return worst_err, worst_ratio, first_fail


def _not_exact(ctx: QuadratureContext, first_fail: _Fail, exact_to: int, worst_ratio: dict[int, float],
               details: dict[str, JSONValue]) -> CheckResult:
    """The failure at the lowest inexact degree (degree 0: the weights do not sum to 1)."""
    q, t, j, got, ex, err, tol = first_fail
    P_claim = ctx.degree
    if exact_to >= 0:
        return ctx.fail(
            f"not exact at degree {q} (claimed {P_claim})",
            f"random polynomial {j} of degree {q} integrates to {got:.10g}; |error| {err:.3g}",
            f"the exact Gaussian moment {ex}, to the round-off tolerance {tol:.3g}",
            where=f"draw {t} ({ctx.dim} dimensions), polynomial {j} of degree {q}",
            note=f"exact through degree {exact_to} only", statistic=float(worst_ratio[q]), threshold=1.0,
            details=details)
    return ctx.fail(
        f"not exact at degree {q} (claimed {P_claim})",
        f"the weights integrate the constant {ex} to {got:.10g}; |error| {err:.3g}",
        f"{ex}, to the round-off tolerance {tol:.3g}", where=f"draw {t} ({ctx.dim} dimensions)",
        cause="weights must sum to 1 (a missing or mis-scaled weight?)", statistic=float(worst_ratio[q]),
        threshold=1.0, details=details)

"""Quadrature rules: unbiasedness on non-polynomial integrands, and efficiency against Monte Carlo."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, TypedDict

import numpy as np
from scipy import stats as st

from rfverify.kinds.quadrature import QuadratureContext
from rfverify.properties.quadrature_corners import rule_at_corners
from rfverify.registry import effect, register_check
from rfverify.results import CheckResult
from rfverify.stats import detectable_effect, mean_test

#: |a| of the cos(w . a) integrands (exact value exp(-|a|^2 / 2)).
COS_SCALES = (0.5, 1.0, 2.0, 3.0)
#: Angles between x and y (unit vectors) of the arc-cosine kernel integrands.
ANGLES = (math.pi / 4, math.pi / 2, 3 * math.pi / 4)
#: Confidence of the efficiency intervals (a measurement, not a test).
EFFICIENCY_CONFIDENCE = 0.95


@dataclass(frozen=True)
class Integrand:
    """f(points) -> values, with its exact Gaussian integral."""

    label: str
    f: Callable[[np.ndarray], np.ndarray]
    exact: float


def _cos_along(a: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    return lambda P: np.cos(P @ a)


def _both_positive(x: np.ndarray, y: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    return lambda P: (((P @ x) > 0) & ((P @ y) > 0)).astype(float)


def _relu_product(x: np.ndarray, y: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    return lambda P: np.maximum(P @ x, 0) * np.maximum(P @ y, 0)


def integrands(d: int, rng: np.random.Generator) -> list[Integrand]:
    """The battery: cos(w . a) at several |a| (random and axis directions), degree-4 and degree-6
    monomials and powers of linear forms, and the arc-cosine kernel integrands phi(w.x) phi(w.y).

    Exact values: E cos(w . a) = exp(-|a|^2/2); E (u . w)^{2k} = (2k-1)!! for
    unit u; E w_1^4 = 3, E w_1^2 w_2^2 = 1, E w_1^2 w_2^2 w_3^2 = 1 (double
    factorials); for unit x, y at angle theta, E Theta(w.x) Theta(w.y) =
    (pi - theta)/(2 pi) and E relu(w.x) relu(w.y) = (sin theta + (pi - theta)
    cos theta)/(2 pi) (Cho & Saul 2009, J_0 and J_1).  Theta(0) = 0.
    """
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    out: list[Integrand] = []
    for s in COS_SCALES:
        a = s * u
        out.append(Integrand(f"cos(w.a), |a|={s:g}", _cos_along(a), math.exp(-s * s / 2)))
    out.append(Integrand("cos(w_1)", lambda P: np.cos(P[:, 0]), math.exp(-0.5)))
    out.append(Integrand("w_1^4", lambda P: P[:, 0] ** 4, 3.0))
    out.append(Integrand("(u.w)^4", lambda P: (P @ u) ** 4, 3.0))
    if d >= 2:
        out.append(Integrand("w_1^2 w_2^2", lambda P: P[:, 0] ** 2 * P[:, 1] ** 2, 1.0))
    out.append(Integrand("(u.w)^6", lambda P: (P @ u) ** 6, 15.0))
    if d >= 3:
        out.append(Integrand("w_1^2 w_2^2 w_3^2", lambda P: (P[:, 0] * P[:, 1] * P[:, 2]) ** 2, 1.0))
    if d >= 2:
        v = rng.standard_normal(d)
        v -= (v @ u) * u
        v /= np.linalg.norm(v)
        for th in ANGLES:
            x, y = u, math.cos(th) * u + math.sin(th) * v
            out.append(Integrand(f"arccos0 theta={th / math.pi:.2g}pi",
                                 _both_positive(x, y),
                                 (math.pi - th) / (2 * math.pi)))
            out.append(Integrand(f"arccos1 theta={th / math.pi:.2g}pi",
                                 _relu_product(x, y),
                                 (math.sin(th) + (math.pi - th) * math.cos(th)) / (2 * math.pi)))
    return out


def rule_estimates(ctx: QuadratureContext, battery: list[Integrand], draws: int, stream: str) -> tuple[np.ndarray, int]:
    """(draws, F) array of sum_i w_i f(x_i) per draw and integrand; also the points per draw."""
    vals = np.empty((draws, len(battery)))
    n = 0
    for t, (P, w) in enumerate(ctx.draws(range(draws), stream)):
        n = P.shape[0]
        vals[t] = [float(w @ g.f(P)) for g in battery]
    return vals, n


#: Up to this d (d <= 4) a rule declared exact to degree >= 2 has an estimate of the arc-cosine order-0 integrands
#: with an infinite variance (d <= 2) or an infinite third moment (d = 3, 4): :func:`left_out`.
HEAVY_TAIL_D_MAX = 4


def left_out(d: int, degree: int, deterministic: bool, battery: list[Integrand]) -> dict[str, str]:
    """The integrands of ``battery`` whose estimate is too heavy-tailed for the Student t at d, for a rule with
    these declarations, each with the reason (left out, never judged).

    Derivation: a rule exact to degree 2 on every draw whose non-centre nodes lie on one sphere of random radius
    rho (SR33; per vertex for its per-vertex variant) puts total weight d / rho^2 on them (exactness on |w|^2 =
    d), and it is unbiased only if rho ~ chi(d + 2) (E[(d/rho^2) g(rho)] = E_{chi(d)} g).  Its estimate of f is
    f(0) + (d/rho^2) (B(rho) - f(0)), B the spherical average at radius rho.  For a smooth f, B(rho) - f(0) =
    O(rho^2) and the estimate is bounded near rho = 0: every moment is finite at every d.  The arc-cosine order-0
    integrand Theta(w.x) Theta(w.y) is homogeneous of degree 0 with f(0) = 0, so the estimate is (d/rho^2) B with
    B in [0, 1] independent of rho; with E[chi2(k)^-j] finite iff k > 2j, its variance is finite iff d >= 3
    (E rho^-4 = 1/(d (d - 2))) and its third moment, which the t-test's normal approximation needs (Berry-Esseen),
    iff d >= 5 (E rho^-6 = 1/(d (d - 2) (d - 4))).  Order 1, relu(w.x) relu(w.y), is homogeneous of degree 2:
    (d/rho^2) rho^2 B, bounded at every d.  At d = 1 the battery has no arc-cosine integrand; at d = 2, 3, 4 the
    three order-0 integrands are left out.  Measured (SR33, the t-test on the exact law of (d/rho^2) B): d = 2,
    20,000 replicates of 2,000 draws: P(p < 1e-3) = 0.010-0.013 (ten times nominal), t as low as -6; d = 3: 0.003-
    0.005 (2,000 draws) and 0.002-0.003 (10,000 draws), t as low as -6.8; d = 4: 0.002-0.003 — the mean misses
    the rare small rho, so the t-test rejects correct rules.  A rule with bounded weights (degree <= 1: SR11,
    SR13, Monte Carlo) keeps every integrand; so does a deterministic rule (no variance).
    """
    if deterministic or degree < 2 or d > HEAVY_TAIL_D_MAX:
        return {}
    moment = "variance" if d <= 2 else "third moment"
    why = (f"infinite {moment} at d = {d} for a rule exact to degree {degree}: the estimate of Theta(w.x) "
           f"Theta(w.y) (homogeneous of degree 0) is (d/rho^2) B with rho ~ chi(d+2), and E rho^-4 = inf for d <= 2, "
           f"E rho^-6 = inf for d <= 4; judged at d >= 5")
    return {g.label: why for g in battery if g.label.startswith("arccos0")}


@register_check("quadrature", "rule-unbiasedness", statistical=True,
                cost="unbiased_draws draws x ~20 integrands at the declared d (default 10000), and 2000 draws at "
                     "each corner dimension (default: the smallest and largest d of the space)",
                figures=("kernel-scatter", "bias"))
def check_rule_unbiasedness(ctx: QuadratureContext) -> CheckResult:
    """The mean of the rule's estimate over independent draws equals the Gaussian integral, at the declared d and
    at the corner dimensions of the rule's space.

    Property: E[sum_i w_i f(x_i)] = E_{w ~ N(0, I)} f(w) for non-polynomial
    and high-degree integrands (munkhoeva2018 §2: "unbiased estimate for other
    functions"; eq. 6).
    Test: R = ``unbiased_draws`` independent draws on disjoint streams; per
    integrand a two-sided one-sample Student t-test (R - 1 d.o.f.; valid by
    the CLT when the estimate has finite variance and, for its normal
    approximation, a finite third moment: for a rule exact to degree >= 2
    the arc-cosine order-0 integrands have neither at d <= 4 and are left
    out there, see :func:`left_out`), Bonferroni over
    the F integrands at this check's share alpha of the family-wise rate
    (profile.family_alpha / number of statistical quadrature checks).
    Corners (:mod:`rfverify.properties.quadrature_corners`): the declared d
    at (1 - 1/2) alpha, each corner dimension of the profile's design
    (default: the smallest and the largest d of the rule's space, the
    largest cut at 64) at alpha / 2 / K with 2000 draws (default);
    ``--pin d=D`` replays one corner alone.
    Simultaneous (1 - alpha) intervals for every bias are in ``details``;
    the bias detectable with the profile's power is reported per integrand.
    A rule declared deterministic is evaluated on two draws (identical, as
    rule-contract checks): its bias is its exact error, judged against
    round-off.
    Applies to: rules claimed unbiased.  A rule declared biased has its
    biases measured and reported (status skip), not judged.
    Catches: a wrong radial law (chi(d) for chi(d+2)), no random rotation, a
    non-Haar rotation (butterflies), redrawing radii to make weights positive;
    at the corners, the same bugs confined to one d (a special case at d = 1,
    a fast path above some d).
    """
    return rule_at_corners(ctx, _rule_unbiasedness)


def _rule_unbiasedness(ctx: QuadratureContext) -> CheckResult:
    """rule-unbiasedness at one configuration (ctx.dim, ctx.alpha, ctx.budget)."""
    full = integrands(ctx.dim, ctx.rng("integrands"))
    dropped = left_out(ctx.dim, ctx.degree, ctx.deterministic, full)
    battery = [g for g in full if g.label not in dropped]
    R = 2 if ctx.deterministic else ctx.budget.unbiased_draws  # a deterministic rule: its error, measured exactly
    vals, n = rule_estimates(ctx, battery, R, "unbiased")
    exact = np.array([g.exact for g in battery])
    test = mean_test(vals, exact, ctx.alpha)
    bias = test.mean - exact
    F = len(battery)
    alpha_each = ctx.alpha / F
    detect = np.array([detectable_effect(s, R, alpha_each, ctx.profile.power) for s in test.sd])
    worst = int(np.argmax(np.abs(test.t)))
    if np.any(np.isinf(test.t)):  # exact comparisons (no spread): the headline is the largest error
        worst = int(np.argmax(np.where(np.isinf(test.t), np.abs(bias), -np.inf)))
    details = {
        "draws": R, "points_per_draw": n, "integrands": [g.label for g in battery], "exact": exact,
        "mean": test.mean, "bias": bias, "half_width": test.half_width, "sd": test.sd,
        "detectable_bias": detect, "max_detectable_bias": float(np.max(detect)), "p_adjusted": test.p_adjusted,
        "dim": ctx.dim, "alpha": ctx.alpha,
        **({"left_out": {"integrands": sorted(dropped), "reason": next(iter(dropped.values()))}} if dropped else {}),
    }
    eff = effect(f"bias of {battery[worst].label}", bias[worst], bias[worst] - test.half_width[worst],
                 bias[worst] + test.half_width[worst], 1 - ctx.alpha, detect[worst], ctx.profile.power)
    p_min = float(np.min(test.p_adjusted))
    common = dict(statistic=float(np.max(np.abs(test.t))), effect=eff, details=details)
    where = (f"{battery[worst].label}: mean over {R} draws {test.mean[worst]:.5g} ± {test.half_width[worst]:.2g}, "
             f"exact {exact[worst]:.5g}")
    if not ctx.unbiased:
        return ctx.result("skip", f"declared biased: measured largest bias at {where} (bias {bias[worst]:+.3g}); "
                          f"{int(np.sum(test.p_adjusted < ctx.alpha))} of {F} integrands significantly biased",
                          **common)
    if p_min < ctx.alpha:
        return ctx.fail(
            "biased",
            f"mean over {R} draws {test.mean[worst]:.5g}",
            f"the exact Gaussian integral {exact[worst]:.5g} (E sum_i w_i f(x_i) = E f(w); rejected at alpha = "
            f"{ctx.alpha:.3g})",
            interval=(test.mean[worst] - test.half_width[worst], test.mean[worst] + test.half_width[worst]),
            level=1 - ctx.alpha, evidence=f"half-width {test.half_width[worst]:.2g}; p = {p_min:.3g}; "
                                          f"{int(np.sum(test.p_adjusted < ctx.alpha))} of {F} integrands reject",
            where=f"integrand {battery[worst].label}, d = {ctx.dim}, {n} points per draw",
            pvalue=p_min, threshold=ctx.alpha, **common)
    held = f" ({len(dropped)} left out: too heavy-tailed at d = {ctx.dim})" if dropped else ""
    return ctx.result("pass", f"no bias on {F} integrands{held} over {R} draws at d = {ctx.dim}; max |t| "
                      f"{np.max(np.abs(test.t)):.2f}; largest detectable bias {np.max(detect):.3g} "
                      f"(power {ctx.profile.power:g})",
                      pvalue=p_min, threshold=ctx.alpha, **common)


def _log_var_se(x: np.ndarray) -> tuple[float, float]:
    """Sample variance and the delta-method standard error of its log: sqrt((kurtosis - 1)/N)."""
    v = float(np.var(x, ddof=1))
    if v == 0:
        return 0.0, 0.0
    m4 = float(np.mean((x - x.mean()) ** 4))
    return v, math.sqrt(max(m4 / v**2 - 1.0, 0.0) / len(x))


def _random_rule(ctx: QuadratureContext) -> str | None:
    if ctx.deterministic:
        return ("declared deterministic: a cubature has no variance to compare with Monte Carlo's; its error is "
                "measured by rule-unbiasedness and exactness")
    return None


class _EfficiencyRow(TypedDict):
    """One integrand of the efficiency table (``details["table"]``)."""

    integrand: str
    var_rule: float
    points: int
    var_per_evaluation: float
    var_monte_carlo: float
    efficiency: float
    interval: list[float]


@register_check("quadrature", "efficiency", statistical=False, decision="measurement", applies=_random_rule,
                cost="unbiased_draws draws + mc_evaluations Gaussian evaluations per integrand")
def check_efficiency(ctx: QuadratureContext) -> CheckResult:
    """Variance per function evaluation of the rule against plain Monte Carlo, as a measured table.

    Property (measured, not judged): for each integrand of the battery, the
    efficiency n_points x Var(rule estimate) against Var_{w ~ N(0, I)} f(w),
    the variance per evaluation of plain Monte Carlo; a ratio
    MC / (n Var) above 1 means the rule beats Monte Carlo at equal cost
    (munkhoeva2018 §3-4's claim of better constants).
    Test: none — a measurement.  Both variances are sample variances (the
    rule's over ``unbiased_draws`` draws, Monte Carlo's over
    ``mc_evaluations`` draws of N(0, I)); intervals at 95% from the delta
    method for log variances, se = sqrt((kurtosis - 1)/N).
    Applies to: every rule except deterministic ones.  Always passes; the table is in ``details``.
    """
    battery = integrands(ctx.dim, ctx.rng("integrands"))
    R = ctx.budget.unbiased_draws
    vals, n = rule_estimates(ctx, battery, R, "efficiency")
    W = ctx.rng("monte-carlo").standard_normal((ctx.budget.mc_evaluations, ctx.dim))
    z = float(st.norm.isf((1 - EFFICIENCY_CONFIDENCE) / 2))
    rows: list[_EfficiencyRow] = []
    for j, g in enumerate(battery):
        v_rule, se_rule = _log_var_se(vals[:, j])
        v_mc, se_mc = _log_var_se(g.f(W))
        per_eval = n * v_rule
        if per_eval == 0:
            ratio, lo, hi = math.inf, math.inf, math.inf
        else:
            ratio = v_mc / per_eval
            half = z * math.hypot(se_rule, se_mc)
            lo, hi = ratio * math.exp(-half), ratio * math.exp(half)
        rows.append({"integrand": g.label, "var_rule": v_rule, "points": n, "var_per_evaluation": per_eval,
                     "var_monte_carlo": v_mc, "efficiency": ratio, "interval": [lo, hi]})
    finite = [r["efficiency"] for r in rows if math.isfinite(r["efficiency"])]
    best = max(rows, key=lambda r: r["efficiency"])
    worst = min(rows, key=lambda r: r["efficiency"])
    med = float(np.median(finite)) if finite else math.inf
    eff = effect(f"efficiency vs MC on {worst['integrand']}", worst["efficiency"], worst["interval"][0],
                 worst["interval"][1], EFFICIENCY_CONFIDENCE)
    return ctx.result(
        "pass",
        f"variance per evaluation vs Monte Carlo over {len(rows)} integrands ({R} draws of {n} points): median "
        f"efficiency {med:.3g}, best {best['efficiency']:.3g} ({best['integrand']}), worst "
        f"{worst['efficiency']:.3g} ({worst['integrand']})",
        statistic=med, effect=eff, details={"table": rows, "draws": R, "mc_evaluations": ctx.budget.mc_evaluations})

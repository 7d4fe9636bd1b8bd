"""The efficiency table of a quadrature rule (:func:`rfverify.properties.quadrature_unbiasedness.check_efficiency`),
recomputed independently: the same draws (the check's streams are keyed by the seed), the textbook formulas
written out here with literal constants, and every row and the message compared.

Efficiency of a rule with n points per draw on f: Var_MC(f) / (n Var(rule estimate)), the Monte Carlo variance per
evaluation over the rule's; its 95% interval from the delta method on the two log variances, each with standard
error sqrt((kurtosis - 1) / N) (kurtosis = m4 / v^2, m4 the fourth central moment about the sample mean).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from rfverify.implementations import quadrature as Q
from rfverify.kinds.quadrature import QuadratureConfig
from rfverify.properties.quadrature_unbiasedness import _log_var_se, check_efficiency, integrands, rule_estimates

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile


def _ctx(rule, dim=3, **kw):
    config = QuadratureConfig(rule, dim=dim, degree=kw.pop("degree", 3), profile="quick", **kw)
    return config.context(next(s for s in config.checks() if s.name == "efficiency"))


def test_log_variance_and_its_standard_error():
    x = np.array([0.0, 1.0, 0.0, 3.0, 2.0, 0.0])
    v, se = _log_var_se(x)
    mean = 1.0
    var = sum((t - mean) ** 2 for t in x) / 5  # ddof = 1
    m4 = sum((t - mean) ** 4 for t in x) / 6  # about the sample mean, divided by N
    assert v == pytest.approx(var, rel=1e-14) == pytest.approx(1.6)
    assert se == pytest.approx(math.sqrt((m4 / var ** 2 - 1) / 6), rel=1e-14)
    assert _log_var_se(np.full(5, 2.5)) == (0.0, 0.0)  # no spread: no variance, no error
    # a kurtosis below 1 (impossible for a population, possible for m4 / v^2 with v's ddof = 1) gives se 0, not nan
    assert _log_var_se(np.array([0.0, 1.0])) == (0.5, 0.0)


def test_efficiency_table_recomputed_independently():
    ctx = _ctx(Q.sr33_per_vertex_haar)
    res = check_efficiency(ctx)
    battery = integrands(ctx.dim, ctx.rng("integrands"))
    R = ctx.budget.unbiased_draws
    vals, n = rule_estimates(ctx, battery, R, "efficiency")
    W = ctx.rng("monte-carlo").standard_normal((ctx.budget.mc_evaluations, ctx.dim))

    def log_var(x):
        v = np.var(x, ddof=1)
        return v, math.sqrt(max(np.mean((x - x.mean()) ** 4) / v ** 2 - 1, 0) / len(x))

    rows = res.details["table"]
    assert [r["integrand"] for r in rows] == [g.label for g in battery]
    for r, g, j in zip(rows, battery, range(len(battery))):
        v_rule, se_rule = log_var(vals[:, j])
        v_mc, se_mc = log_var(g.f(W))
        ratio = v_mc / (n * v_rule)
        half = Z95 * math.sqrt(se_rule ** 2 + se_mc ** 2)
        assert {k: v for k, v in r.items() if k != "interval"} == pytest.approx({
            "integrand": g.label, "var_rule": v_rule, "points": n, "var_per_evaluation": n * v_rule,
            "var_monte_carlo": v_mc, "efficiency": ratio}, rel=1e-9)
        assert r["interval"] == pytest.approx([ratio / math.exp(half), ratio * math.exp(half)], rel=1e-9)
    eff = [r["efficiency"] for r in rows]
    best, worst = rows[int(np.argmax(eff))], rows[int(np.argmin(eff))]
    assert res.status == "pass" and res.statistic == pytest.approx(float(np.median(eff)))
    assert res.message == (
        f"variance per evaluation vs Monte Carlo over {len(rows)} integrands ({R} draws of {n} points): median "
        f"efficiency {np.median(eff):.3g}, best {best['efficiency']:.3g} ({best['integrand']}), worst "
        f"{worst['efficiency']:.3g} ({worst['integrand']})")
    assert res.effect.estimate == pytest.approx(worst["efficiency"])
    assert (res.effect.low, res.effect.high) == pytest.approx(tuple(worst["interval"]))
    assert res.effect.confidence == 0.95 and res.effect.name == f"efficiency vs MC on {worst['integrand']}"
    assert res.details["draws"] == R and res.details["mc_evaluations"] == ctx.budget.mc_evaluations


def test_an_integrand_the_rule_integrates_without_variance_has_infinite_efficiency():
    """A random rule whose estimate of an integrand is the same on every draw beats Monte Carlo infinitely:
    efficiency inf with the interval [inf, inf]; the median is over the finite ones."""
    def on_a_sphere(d, rng):  # random points of norm sqrt(d): round(|w|^2) is d at each, on every draw
        P = rng.standard_normal((8, d))
        return P * (math.sqrt(d) / np.linalg.norm(P, axis=1))[:, None], np.full(8, 1 / 8)

    import rfverify.properties.quadrature_unbiasedness as qu
    from rfverify.properties.quadrature_unbiasedness import Integrand

    ctx = _ctx(on_a_sphere, degree=1)
    odd = Integrand("round(|w|^2)", lambda P: np.round(np.sum(P ** 2, axis=1)), 3.0)
    real = qu.integrands
    try:
        qu.integrands = lambda d, rng: [odd] + real(d, rng)
        res = check_efficiency(ctx)
    finally:
        qu.integrands = real
    first, rest = res.details["table"][0], res.details["table"][1:]
    assert (first["integrand"], first["efficiency"], first["interval"]) == ("round(|w|^2)", math.inf, [math.inf, math.inf])
    assert first["var_rule"] == 0.0 and first["var_per_evaluation"] == 0.0
    assert res.statistic == pytest.approx(float(np.median([r["efficiency"] for r in rest])))
    assert first["var_monte_carlo"] > 0 and "best inf (round(|w|^2))" in res.message


def test_a_deterministic_rule_has_no_efficiency_table():
    from rfverify.kinds.quadrature import verify_quadrature

    def grid(d, rng):  # a fixed 3-point Gauss-Hermite product rule in d = 2
        x, w = np.polynomial.hermite_e.hermegauss(3)
        return (np.array([[a, b] for a in x for b in x]),
                np.array([wa * wb for wa in w for wb in w]) / (2 * math.pi))

    r = verify_quadrature(grid, dim=2, degree=3, deterministic=True, profile="quick", checks=["efficiency"])
    (res,) = r.results
    assert (res.status, res.message) == ("skip", "declared deterministic: a cubature has no variance to compare with "
                                                 "Monte Carlo's; its error is measured by rule-unbiasedness and "
                                                 "exactness")

"""The messages and records of ``rule-unbiasedness`` (:mod:`rfverify.properties.quadrature_unbiasedness`) at one
configuration (the quick profile: no corner), recomputed from the numbers each result carries: a pass, a
failure (the worst integrand, its interval and how many integrands reject), a rule declared biased (measured,
not judged) and a deterministic rule (its exact error on two draws, the largest one as the headline).

The power and false alarms of the test are measured in ``tests/test_quadrature.py`` (planted rules under 21
seeds) and ``tests/test_quadrature_corners.py`` (the corners).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from rfverify.implementations import quadrature as Q
from rfverify.kinds.quadrature import verify_quadrature
from rfverify.properties.quadrature_unbiasedness import COS_SCALES, HEAVY_TAIL_D_MAX, integrands, left_out
from tests.mutants import quadrature_mutants as qm

CHECK = "rule-unbiasedness"


def _run(rule, dim=8, **kw):
    return verify_quadrature(rule, dim=dim, profile="quick", checks=[CHECK], **{"degree": 3, **kw})[CHECK]


def test_the_battery_and_its_exact_values():
    rng = np.random.default_rng(0)
    labels = [g.label for g in integrands(1, rng)]
    assert labels == ["cos(w.a), |a|=0.5", "cos(w.a), |a|=1", "cos(w.a), |a|=2", "cos(w.a), |a|=3", "cos(w_1)",
                      "w_1^4", "(u.w)^4", "(u.w)^6"]
    three = {g.label: g.exact for g in integrands(3, rng)}
    assert [three[f"cos(w.a), |a|={s:g}"] for s in COS_SCALES] == pytest.approx(
        [math.exp(-0.125), math.exp(-0.5), math.exp(-2.0), math.exp(-4.5)])
    assert (three["cos(w_1)"], three["w_1^4"], three["(u.w)^4"], three["w_1^2 w_2^2"], three["(u.w)^6"],
            three["w_1^2 w_2^2 w_3^2"]) == (pytest.approx(math.exp(-0.5)), 3.0, 3.0, 1.0, 15.0, 1.0)
    assert [three[f"arccos0 theta={t}pi"] for t in ("0.25", "0.5", "0.75")] == pytest.approx([3 / 8, 1 / 4, 1 / 8])
    arccos1 = [(math.sin(t) + (math.pi - t) * math.cos(t)) / (2 * math.pi)
               for t in (math.pi / 4, math.pi / 2, 3 * math.pi / 4)]
    assert [three[f"arccos1 theta={t}pi"] for t in ("0.25", "0.5", "0.75")] == pytest.approx(arccos1)
    assert len(three) == 16 and "w_1^2 w_2^2 w_3^2" not in {g.label for g in integrands(2, rng)}
    with pytest.raises(dataclasses.FrozenInstanceError):  # an integrand and its exact value are fixed
        integrands(1, rng)[0].exact = 0.0
    two = {g.label: g for g in integrands(2, rng)}  # d = 2 has every integrand but the three-coordinate one
    assert len(two) == 15 and "w_1^2 w_2^2" in two and "arccos0 theta=0.5pi" in two
    # Theta(0) = 0 on either factor: with u = e1 and v = e2 (fixed draws), nodes exactly orthogonal to x = u or to
    # y = cos(pi/2) u + v add nothing to the step-function integrand
    draws = iter([np.array([1.0, 0.0]), np.array([0.3, 1.0])])
    fixed = {g.label: g for g in integrands(2, type("Fixed", (), {"standard_normal": lambda self, d: next(draws)})())}
    step = fixed["arccos0 theta=0.5pi"].f
    c = math.cos(math.pi / 2)
    assert step(np.array([[0.0, 1.0], [1.0, -c], [1.0, 1.0]])).tolist() == [0.0, 0.0, 1.0]
    # each integrand evaluates on a batch of points, against a Monte Carlo estimate of its exact value
    W = np.random.default_rng(1).standard_normal((400_000, 3))
    for g in integrands(3, np.random.default_rng(2)):
        vals = g.f(W)
        assert vals.shape == (400_000,)
        assert abs(vals.mean() - g.exact) < 6 * vals.std() / math.sqrt(len(vals)), g.label


def test_the_pass_message_and_record():
    r = _run(Q.sr33_haar)
    d = r.details
    F, R = len(d["integrands"]), d["draws"]
    assert (F, R, d["dim"], d["points_per_draw"], d["alpha"]) == (16, 2000, 8, 19, r.alpha)
    assert r.status == "pass" and r.message == (
        f"no bias on 16 integrands over 2000 draws at d = 8; max |t| {r.statistic:.2f}; largest detectable bias "
        f"{d['max_detectable_bias']:.3g} (power 0.9)")
    assert d["max_detectable_bias"] == max(d["detectable_bias"]) and r.pvalue == min(d["p_adjusted"])
    assert r.threshold == r.alpha == 1e-3 and "left_out" not in d
    assert np.allclose(d["bias"], np.asarray(d["mean"]) - np.asarray(d["exact"]))
    assert r.effect.detectable == pytest.approx(d["detectable_bias"][int(np.argmax(np.abs(d["bias"]) / d["sd"]))])
    held = _run(Q.sr33_haar, dim=3)  # d = 3: the arc-cosine order-0 integrands are left out
    assert held.message.startswith("no bias on 13 integrands (3 left out: too heavy-tailed at d = 3) over 2000 "
                                   "draws at d = 3; max |t| "), held.message


def test_the_failure_names_the_worst_integrand_with_its_interval():
    r = _run(qm.wrong_radial_law)
    d = r.details
    k = int(np.argmax(np.abs(np.asarray(d["bias"]) / (np.asarray(d["sd"]) / math.sqrt(d["draws"])))))
    mean, hw, exact = d["mean"][k], d["half_width"][k], d["exact"][k]
    n_rej = int(np.sum(np.asarray(d["p_adjusted"]) < r.alpha))
    assert r.status == "fail" and r.message == (
        f"biased — observed: mean over 2000 draws {mean:.5g} [{mean - hw:.4g}, {mean + hw:.4g}] (99.9% interval; "
        f"half-width {hw:.2g}; p = {r.pvalue:.3g}; {n_rej} of 16 integrands reject); expected: the exact Gaussian "
        f"integral {exact:.5g} (E sum_i w_i f(x_i) = E f(w); rejected at alpha = 0.001); where: integrand "
        f"{d['integrands'][k]}, d = 8, 19 points per draw")
    assert r.effect.name == f"bias of {d['integrands'][k]}" and r.effect.estimate == pytest.approx(mean - exact)
    assert (r.effect.low, r.effect.high) == pytest.approx((mean - exact - hw, mean - exact + hw))


def test_a_rule_declared_biased_is_measured_not_judged():
    r = _run(Q.sr33_butterfly, unbiased=False)
    d = r.details
    k = int(np.argmax(np.abs(np.asarray(d["bias"]) / (np.asarray(d["sd"]) / math.sqrt(d["draws"])))))
    n_rej = int(np.sum(np.asarray(d["p_adjusted"]) < d["alpha"]))
    assert r.status == "skip" and r.message == (
        f"declared biased: measured largest bias at {d['integrands'][k]}: mean over 2000 draws {d['mean'][k]:.5g} ± "
        f"{d['half_width'][k]:.2g}, exact {d['exact'][k]:.5g} (bias {d['bias'][k]:+.3g}); {n_rej} of 16 integrands "
        f"significantly biased")
    assert n_rej > 0 and r.pvalue is None and r.threshold is None


def test_a_deterministic_rule_is_judged_on_its_exact_error_with_the_largest_as_headline():
    """Two identical draws: no spread, so every integrand with an error rejects (|t| = inf); the headline is the
    integrand with the largest error, not the first one with infinite t."""
    def grid(d, rng):  # a fixed 3-point Gauss-Hermite product rule in d = 2 (exact to degree 5 per axis)
        x, w = np.polynomial.hermite_e.hermegauss(3)
        P = np.array([[a, b] for a in x for b in x])
        W = np.array([wa * wb for wa in w for wb in w]) / (2 * math.pi)
        return P, W

    r = _run(grid, dim=2, degree=5, deterministic=True, space={"d": (2, 2)})
    d = r.details
    err = np.abs(np.asarray(d["mean"]) - np.asarray(d["exact"]))
    assert d["draws"] == 2 and r.status == "fail"
    assert f"where: integrand {d['integrands'][int(np.argmax(err))]}, d = 2, 9 points per draw" in r.message, r.message
    assert int(np.argmax(err)) != 0  # (the first integrand's t is infinite too)


def test_the_heavy_tailed_integrands_left_out_and_why():
    """A random rule exact to degree >= 2 leaves out the three order-0 arc-cosine integrands at d <= 4: infinite
    variance at d <= 2, infinite third moment at d = 3, 4; degree 1, a deterministic rule and d = 5 keep them."""
    battery = integrands(4, np.random.default_rng(0))
    arccos0 = {g.label for g in battery if g.label.startswith("arccos0")}
    assert len(arccos0) == 3 and HEAVY_TAIL_D_MAX == 4
    tail = ("for a rule exact to degree 2: the estimate of Theta(w.x) Theta(w.y) (homogeneous of degree 0) is "
            "(d/rho^2) B with rho ~ chi(d+2), and E rho^-4 = inf for d <= 2, E rho^-6 = inf for d <= 4; judged at d >= 5")
    for d, moment in ((2, "variance"), (3, "third moment"), (4, "third moment")):
        out = left_out(d, 2, False, battery)
        assert set(out) == arccos0 and set(out.values()) == {f"infinite {moment} at d = {d} {tail}"}, (d, out)
    assert left_out(3, 1, False, battery) == left_out(3, 2, True, battery) == left_out(5, 2, False, battery) == {}


@pytest.mark.parametrize("unbiased", [True, False])
def test_an_adjusted_p_exactly_at_alpha_does_not_reject(monkeypatch, unbiased):
    """The t-tests' Bonferroni p-values stubbed: every integrand at exactly alpha is no rejection (a pass); one
    just below alpha is one rejection, counted alone in the failure (or, declared biased, in the measurement)."""
    import dataclasses

    import rfverify.properties.quadrature_unbiasedness as qu

    real = qu.mean_test

    def at_alpha(vals, exact, alpha, below=0):
        t = real(vals, exact, alpha)
        p = np.full_like(t.p_adjusted, alpha)
        p[:below] = alpha * (1 - 1e-12)
        return dataclasses.replace(t, p_adjusted=p)

    monkeypatch.setattr(qu, "mean_test", at_alpha)
    r = _run(Q.sr33_haar, unbiased=unbiased)
    assert r.status == ("pass" if unbiased else "skip"), r.message
    assert not unbiased or r.pvalue == r.alpha
    assert unbiased or r.message.endswith("; 0 of 16 integrands significantly biased"), r.message
    monkeypatch.setattr(qu, "mean_test", lambda *a: at_alpha(*a, below=1))
    r = _run(Q.sr33_haar, unbiased=unbiased)
    assert r.status == ("fail" if unbiased else "skip"), r.message
    assert ("; 1 of 16 integrands reject); expected: " in r.message if unbiased else
            r.message.endswith("; 1 of 16 integrands significantly biased")), r.message

"""Quadrature rules — exact moments, reference rules, checks that fail on planted bugs,
feature maps from rules, the paper's formulas, the CLI.  Long studies are marked slow."""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest

from tests.mutants import quadrature_mutants as qm
import rfverify
from rfverify.cli import main
from rfverify.implementations import quadrature as Q
from rfverify.kinds.quadrature import (double_factorial, gaussian_monomial_moment,
                                 verify_quadrature, wick_moment)
from rfverify.kinds import KINDS, checks_for
from rfverify.seeding import DEFAULT_SEED

#: The default seed and 20 others; the planted bugs' CI runs take the default seed and 4 others, the 16 more are in
#: the slow set (``pytest -m slow``).
SEEDS = [DEFAULT_SEED] + list(range(1, 21))
SEED_PARAMS = [s if k < 5 else pytest.param(s, marks=pytest.mark.slow) for k, s in enumerate(SEEDS)]
D = 8
MOD = "rfverify.implementations.quadrature"
#: rule name -> (attribute, degree, unbiased) of the reference rules.
REFERENCE = {
    "sr11-haar": ("sr11_haar", 1, True), "sr13-haar": ("sr13_haar", 1, True), "sr33-haar": ("sr33_haar", 3, True),
    "sr33-per-vertex-haar": ("sr33_per_vertex_haar", 3, True), "sr33-butterfly": ("sr33_butterfly", 3, False),
    "sr33-per-vertex-butterfly": ("sr33_per_vertex_butterfly", 3, False),
    "monte-carlo": ("monte_carlo", 0, True), "antithetic": ("antithetic", 1, True),
}


# ---------------------------------------------------------------- exact references

def _monomial_expansion_moment(vectors):
    """E prod (a_k . w) by expanding into monomials and double factorials (independent of Wick)."""
    d = len(vectors[0])
    total = 0
    for idx in itertools.product(range(d), repeat=len(vectors)):
        coef = 1
        for k, i in enumerate(idx):
            coef *= vectors[k][i]
        if coef:
            total += coef * gaussian_monomial_moment([idx.count(i) for i in range(d)])
    return total


def test_wick_equals_double_factorial_expansion():
    rng = np.random.default_rng(0)
    for p in range(0, 7):
        for _ in range(3):
            A = rng.integers(-2, 3, size=(p, 3)).tolist()
            assert wick_moment(A) == _monomial_expansion_moment(A) if p else wick_moment([]) == 1


def test_moments_against_mpmath_quadrature_at_two_precisions():
    # E (a . w)^p = |a|^p (p-1)!! for even p; the 1-D Gaussian integral by mpmath at 30 and 50 digits.
    for p in (2, 4, 6, 8):
        vals = []
        for dps in (30, 50):
            with mpmath.workdps(dps):
                vals.append(mpmath.quad(lambda x: x**p * mpmath.exp(-x * x / 2), [-mpmath.inf, mpmath.inf])
                            / mpmath.sqrt(2 * mpmath.pi))
        assert abs(vals[0] - vals[1]) < mpmath.mpf(10) ** -25
        assert abs(vals[1] - double_factorial(p - 1)) < mpmath.mpf(10) ** -25
        a = (1, 2, -2)  # |a|^2 = 9
        assert wick_moment([a] * p) == 9 ** (p // 2) * double_factorial(p - 1)


def test_simplex_is_regular_and_unit():
    for d in (1, 2, 5, 16):
        V = Q.simplex_vertices(d)
        G = V @ V.T
        tol = 8 * (d + 1) * np.finfo(float).eps
        assert np.allclose(np.diag(G), 1, atol=tol)
        assert np.allclose(G[~np.eye(d + 1, dtype=bool)], -1.0 / d, atol=tol)
        assert np.allclose(V.T @ V, (d + 1) / d * np.eye(d), atol=tol)


# ---------------------------------------------------------------- reference rules

@pytest.mark.parametrize("name", list(REFERENCE))
def test_reference_rules_pass_exactness_and_contract(name):
    attr, degree, unbiased = REFERENCE[name]
    rep = verify_quadrature(f"{MOD}:{attr}", dim=D, degree=degree, unbiased=unbiased, profile="quick",
                            checks=["rule-contract", "exactness"])
    assert rep.passed, rep.table()
    # never exact one degree beyond the claim (the claims are tight)
    assert rep["exactness"].details["observed_exact_to"] == degree, rep["exactness"].details


@pytest.mark.parametrize("name", ["sr33-haar", "sr33-per-vertex-haar", "sr13-haar", "monte-carlo", "antithetic"])
def test_unbiased_reference_rules_pass_unbiasedness(name):
    attr, degree, unbiased = REFERENCE[name]
    res = verify_quadrature(f"{MOD}:{attr}", dim=D, degree=degree, profile="quick",
                            checks=["rule-unbiasedness"])["rule-unbiasedness"]
    assert res.status == "pass", res.message


def test_sr33_exact_in_non_power_of_two_dimension_with_haar():
    rep = verify_quadrature(Q.sr33_haar, dim=5, degree=3, profile="quick", checks=["exactness"])
    assert rep.passed, rep.table()


def test_butterfly_rules_are_biased_and_measured():
    res = verify_quadrature(Q.sr33_butterfly, dim=D, degree=3, unbiased=False, profile="quick",
                            checks=["rule-unbiasedness"])["rule-unbiasedness"]
    assert res.status == "skip" and "significantly biased" in res.message
    # claimed unbiased, the butterfly rule fails: the paper's method B is not unbiased (not Haar)
    res = verify_quadrature(Q.sr33_butterfly, dim=D, degree=3, unbiased=True, profile="quick",
                            checks=["rule-unbiasedness"])["rule-unbiasedness"]
    assert res.status == "fail", res.message


def test_efficiency_table_in_details():
    res = verify_quadrature(Q.sr33_per_vertex_haar, dim=D, degree=3, profile="quick",
                            checks=["efficiency"])["efficiency"]
    rows = res.details["table"]
    assert res.status == "pass" and len(rows) >= 10
    for r in rows:
        lo, hi = r["interval"]
        assert lo <= r["efficiency"] <= hi
    mc = verify_quadrature(Q.monte_carlo, dim=D, degree=0, profile="quick", checks=["efficiency"])["efficiency"]
    # Monte Carlo against itself: efficiency 1; 95% intervals, so most (P(< 12 of 16) ~ 1e-3) contain 1
    covered = sum(r["interval"][0] <= 1.0 <= r["interval"][1] for r in mc.details["table"])
    assert covered >= 12, mc.details["table"]


# ---------------------------------------------------------------- demonstrations (item 5)

@pytest.mark.parametrize("seed", SEED_PARAMS)
@pytest.mark.parametrize("mutant", list(qm.CAUGHT_BY))
def test_mutant_caught_by_its_check(mutant, seed):
    check, degree = qm.CAUGHT_BY[mutant]
    res = verify_quadrature(getattr(qm, mutant), dim=D, degree=3, unbiased=True, seed=seed, profile="quick",
                            checks=[check])[check]
    assert res.status == "fail", f"{mutant} not caught by {check} under seed {seed}: {res.message}"
    if degree is not None:
        assert f"not exact at degree {degree} " in res.message, res.message


@pytest.mark.parametrize("mutant", ["wrong_radial_law", "no_rotation"])
def test_unbiasedness_mutants_are_exact_to_degree_3(mutant):
    # the exactness check cannot see them: exactness holds for any rho and any orthogonal Q
    rep = verify_quadrature(getattr(qm, mutant), dim=D, degree=3, profile="quick", checks=["exactness"])
    assert rep.passed, rep.table()


def test_resampled_radii_bias_caught_by_rule_unbiasedness():
    res = verify_quadrature(qm.resample_radii, dim=D, degree=3, profile="quick",
                            checks=["rule-unbiasedness"])["rule-unbiasedness"]
    assert res.status == "fail" and "biased" in res.message, res.message


# ---------------------------------------------------------------- feature maps (item 3)

def test_sr33_rbf_features_pass_the_feature_map_harness():
    rep = rfverify.verify(Q.SR33PerVertexRBF, kernel="rbf", kernel_params={"gamma": 0.5}, dim=D, profile="quick",
                          checks=["contract", "reproducibility", "unbiasedness"])
    assert rep.passed, rep.table()


@pytest.mark.parametrize("order", [0, 1])
def test_sr33_arccos_features_pass_the_feature_map_harness(order):
    rep = rfverify.verify(Q.SR33ArcCos, kernel="arccos", kernel_params={"order": order}, dim=D, profile="quick",
                          domain="positive", checks=["contract", "unbiasedness"])
    assert rep.passed, rep.table()


def test_footnote3_resampled_map_is_caught_by_the_feature_map_harness():
    res = rfverify.verify(Q.SR33ResampledRBF, kernel="rbf", kernel_params={"gamma": 0.5}, dim=D, profile="quick",
                          checks=["unbiasedness"])["unbiasedness"]
    assert res.status == "fail", res.message


def test_negative_centre_weight_is_not_a_gram_product_but_dropping_it_is_unbiased():
    X = np.random.default_rng(1).standard_normal((3 * (2 * (D + 1)) + 5, D)) * 0.3
    seen_negative = False
    for seed in range(20):
        f = Q.SR33RBF(3, seed, gamma=0.5).fit(X)
        K_signed = f.kernel(X, X)
        F = f.transform(X)
        assert np.linalg.eigvalsh(F @ F.T).min() > -1e-10  # the map is PSD by construction
        if f.centre_weight_ < 0:
            seen_negative = True
            # more points than features: a vector z orthogonal to every feature column with 1.z != 0
            # makes z^T K z = a_0^2 (1.z)^2 < 0 — no feature map Re(Phi Phi^*) can give K_signed
            assert np.linalg.eigvalsh(K_signed).min() < -1e-8
        # the signed estimate is exact on constants: k_hat(x, x) = 1; the dropped one is not
        assert np.allclose(np.diag(K_signed), 1.0)
    assert seen_negative


# ---------------------------------------------------------------- the paper's formulas

def test_paper_formulas_as_printed_vs_corrected():
    rng = np.random.default_rng(5)
    d, N = 8, 400_000
    rho2 = rng.chisquare(d + 2, size=(N, d + 1))
    printed = 1 - np.sum(d / rho2, axis=1)  # §2.3 a_0^2 as printed: mean 1 - (d+1) = -d
    corrected = 1 - np.sum(d / (d + 1) / rho2, axis=1)  # mean 0
    se = lambda x: x.std() / math.sqrt(N)  # noqa: E731
    assert abs(printed.mean() + d) < 5 * se(printed)
    assert abs(corrected.mean()) < 5 * se(corrected)
    # footnote 3: "two times on average" — P(a_0^2 >= 0) is near 1/2 (0.56 at d = 8)
    p = (corrected >= 0).mean()
    assert 0.5 < p < 0.6
    # §2.2 SR^{1,3} without 1/d integrates the constant 1 to d
    P, w = Q.sr13_haar(d, rng)
    assert math.isclose(float(np.sum(2 * d * w) / 2), d)  # the printed weights are 1/2 each: sum = d


def test_every_quadrature_check_documented():
    assert "quadrature" in KINDS
    names = {s.name for s in checks_for("quadrature")}
    assert names == {"rule-contract", "exactness", "rule-unbiasedness", "efficiency", "explore", "stateful"}


# ---------------------------------------------------------------- CLI

def test_cli_quadrature_exit_codes_and_reproduce(capsys, tmp_path):
    code = main(["check", "quadrature", f"{MOD}:sr33_haar", "--dim", "8", "--degree", "3", "--profile", "quick",
                 "--check", "exactness"])
    assert code == 0
    code = main(["check", "quadrature", "tests.mutants.quadrature_mutants:missing_weight", "--dim", "8", "--degree", "3",
                 "--profile", "quick", "--check", "exactness", "--json", str(tmp_path / "r.json")])
    out = capsys.readouterr().out
    assert code == 1 and "not exact at degree 0" in out
    assert ("rfverify check quadrature tests.mutants.quadrature_mutants:missing_weight --dim 8 --degree 3 --unbiased "
            f"--seed {DEFAULT_SEED} --profile quick --check exactness") in out
    assert '"kind": "quadrature"' in (tmp_path / "r.json").read_text()


def _bad_shape(d, rng):
    return np.zeros((3, d + 1)), np.ones(3) / 3


def test_cli_broken_rule_is_a_one_line_error(capsys):
    code = main(["check", "quadrature", "tests.test_quadrature:_bad_shape", "--dim", "4", "--profile", "quick"])
    err = capsys.readouterr().err
    assert code == 2 and "points have shape (3, 5) for d=4" in err and len(err.strip().splitlines()) == 1
    assert main(["check", "quadrature", f"{MOD}:sr33_haar", "--degree", "99"]) == 2


def test_frobenius_table_smoke():
    from rfverify.studies.quadrature_experiment import frobenius_table

    rows = frobenius_table(datasets=["gaussian"], d=4, n_points=20, rules=(1, 2), runs=2, rng=0)
    assert {r["method"] for r in rows} >= {"RFF", "ORF", "QMC-halton", "QMC-sobol", "SR33pv-butterfly"}
    assert all(0 <= r["mean"] < 5 for r in rows)


# ---------------------------------------------------------------- slow studies

@pytest.mark.slow
@pytest.mark.parametrize("mutant", list(qm.CAUGHT_BY) + ["resample_radii"])
def test_power_over_100_seeds(mutant):
    check = qm.CAUGHT_BY.get(mutant, ("rule-unbiasedness", None))[0]
    caught = sum(verify_quadrature(getattr(qm, mutant), dim=D, degree=3, seed=s, profile="quick",
                                   checks=[check])[check].status == "fail" for s in range(100))
    assert caught == 100


@pytest.mark.slow
def test_false_alarms_sr33_over_100_seeds():
    fails = sum(verify_quadrature(Q.sr33_per_vertex_haar, dim=D, degree=3, seed=s, profile="quick",
                                  checks=["rule-unbiasedness"])["rule-unbiasedness"].status == "fail"
                for s in range(100))
    assert fails <= 2  # alpha = 1e-3: P(>= 3 of 100) < 2e-4


@pytest.mark.slow
def test_resample_detection_budget():
    """Smallest number of draws at which rule-unbiasedness catches footnote 3's redraw (d = 8)."""
    import dataclasses


    from rfverify.profiles import BUDGETS, PROFILES

    found = None
    for R in (25, 50, 100, 200, 400):
        BUDGETS["tiny"] = {"quadrature": {**BUDGETS["quick"]["quadrature"], "unbiased_draws": R}}
        try:
            prof = dataclasses.replace(PROFILES["quick"], name="tiny")
            caught = sum(verify_quadrature(qm.resample_radii, dim=D, degree=3, seed=s, profile=prof,
                                           checks=["rule-unbiasedness"])["rule-unbiasedness"].status == "fail"
                         for s in range(20))
        finally:
            del BUDGETS["tiny"]
        if caught == 20:
            found = R
            break
    assert found is not None and found <= 400

"""The claims added from a whole reading of the five papers: each decision rule FAILS on a planted twin (a misprinted
table entry, a bound made too small, a grid where the misprint is harmless) and passes on the real statement.

Every test evaluates one claim (about 0.1-0.5 s each)."""

from __future__ import annotations

import pytest

from rfverify.studies.claims import evaluate_claims
from rfverify.studies.claims.verdicts import AMBIGUOUS, CORRECTED, FALSE, HOLDS, HOLDS_UNDER_CONDITION, NOT_REPRODUCED


def _one(cid: str):
    return evaluate_claims(ids=[cid])[0]


def test_daniely_table1_gap_rank_catches_a_wrong_gap(monkeypatch):
    import rfverify.studies.claims.daniely2017_learning as mod

    assert _one("daniely2017-table1-gap-rank").verdict == HOLDS
    rows = list(mod.TABLE1)
    rows[3] = ("4,4", "71.49", "74.94", "3.54", 6, -2)  # a transposed digit in the Gap column
    monkeypatch.setattr(mod, "TABLE1", tuple(rows))
    bad = _one("daniely2017-table1-gap-rank")
    assert bad.verdict == FALSE and "4,4" in bad.finding["counterexample"]


def test_daniely_lambda_misprint_is_harmless_at_b_equal_1(monkeypatch):
    """The printed lambda of eq. (8) is right only at B = 1: on a grid with B = 1 alone the printed statement holds."""
    import rfverify.studies.claims.daniely2017_learning as mod

    c = _one("daniely2017-eq8-lambda")
    assert c.verdict == AMBIGUOUS and "B = 0.25" in c.finding["counterexample"]  # extracted sqrt(mB) fails there
    monkeypatch.setattr(mod, "_GRID", [g for g in mod._GRID if g[1] == 1.0])
    assert _one("daniely2017-eq8-lambda").verdict == HOLDS


def test_mroueh_table1_q1_condition_follows_the_table(monkeypatch):
    import rfverify.studies.claims.mroueh_learning as mod

    c = _one("mroueh-sec5.2.1-table1-q1")
    assert c.verdict == HOLDS_UNDER_CONDITION and c.finding["condition"] == "m >= 500"
    monkeypatch.setattr(mod, "TABLE1", {**mod.TABLE1, 1: ((15.2, 0.28),) + mod.TABLE1[1][1:]})
    assert _one("mroueh-sec5.2.1-table1-q1").verdict == HOLDS
    monkeypatch.setattr(mod, "TABLE1", {**mod.TABLE1, 1: mod.TABLE1[1][:4] + ((16.0, 0.5),)})
    assert _one("mroueh-sec5.2.1-table1-q1").verdict == FALSE  # fails at m = 10000 too: the condition does not rescue it


def test_mroueh_rademacher_bound_fails_when_planted_too_small(monkeypatch):
    import rfverify.studies.claims.mroueh_learning as mod

    assert _one("mroueh-appB-thm2-rademacher").verdict == HOLDS
    real = mod.V
    monkeypatch.setattr(mod, "V", lambda name, *a: real(name, *a) * 0.5)  # sigma^2(q) halved: the bound shrinks by 0.71
    assert _one("mroueh-appB-thm2-rademacher").verdict == FALSE


def test_munkhoeva_prop31_fails_against_a_bound_below_the_experiment(monkeypatch):
    """0 exceedances in 100 draws have a 99.9% upper limit of 0.07: a bound of 0.01 cannot be confirmed."""
    import rfverify.studies.claims.munkhoeva2018_bounds as mod

    c = _one("munkhoeva2018-prop3.1-bound")
    assert c.verdict == HOLDS and "0/100" in c.evidence
    monkeypatch.setattr(mod, "prop31_bound", lambda *a, **k: 0.01)
    assert _one("munkhoeva2018-prop3.1-bound").verdict == FALSE


def test_munkhoeva_sample_size_inversion_catches_a_wrong_exponent(monkeypatch):
    import rfverify.studies.claims.munkhoeva2018_bounds as mod

    assert _one("munkhoeva2018-prop3.1-sample-size").verdict == HOLDS
    real = mod.prop31_min_features
    monkeypatch.setattr(mod, "prop31_min_features", lambda d, eps, delta, **k: real(d, eps, delta, **k) * 0.9)
    assert _one("munkhoeva2018-prop3.1-sample-size").verdict == FALSE


@pytest.mark.parametrize("cid", ["munkhoeva2018-sec3-rbf-constants", "munkhoeva2018-sec2.3-feature-count",
                                 "munkhoeva2018-prop3.2-kernel-vector"])
def test_counterexamples_are_named(cid):
    c = _one(cid)
    assert c.verdict in (HOLDS_UNDER_CONDITION, CORRECTED, AMBIGUOUS) and c.finding["counterexample"]


def test_daniely_fig4_flat_homogeneity_rejects_a_local_kernel(monkeypatch):
    """Swap the flat kernel for a convolutional one: its pair counts are not homogeneous, and the claim is not reproduced."""
    import rfverify.implementations.compositional.skeleton as sk

    assert _one("daniely2017-fig4-locality").verdict == HOLDS
    real = sk.conv1d_skeleton
    monkeypatch.setattr(sk, "shallow_skeleton", lambda n, activation: real(n, [(5, 2, activation)], activation))
    bad = _one("daniely2017-fig4-locality")
    assert bad.verdict == NOT_REPRODUCED and bad.rule == "R5"


def test_munkhoeva_method_b_weights_and_dominance_rule(monkeypatch):
    """Method B's Gram: k_hat(x, x) = 1 for the Gaussian (centre plus pair weights sum to 1, the centre redrawn to be
    >= 0), PSD for the arc-cosine kernels; a planted exact Gram wins every comparison and reproduces the claim."""
    import numpy as np

    import rfverify.studies.claims.munkhoeva2018_bounds as mod
    from rfverify.studies.quadrature_experiment import exact_gram

    rng = np.random.default_rng(0)
    X = rng.standard_normal((12, 8))
    K = mod._method_b_gram(X, "rbf", 3, rng)
    assert np.allclose(np.diag(K), 1.0, atol=1e-12)
    assert np.linalg.eigvalsh(mod._method_b_gram(X, "arccos1", 2, rng))[0] >= -1e-10
    assert _one("munkhoeva2018-sec4.2-fig1-dominance").verdict == NOT_REPRODUCED
    monkeypatch.setattr(mod, "_method_b_gram", lambda X, kernel, n, rng: exact_gram(X, kernel, X.shape[1]))
    assert _one("munkhoeva2018-sec4.2-fig1-dominance").verdict == HOLDS

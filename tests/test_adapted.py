"""Adapted bases (alber2017 UAB/SAB), data-dependent plug-ins in the harness, and the held-out metrics."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

import rfverify
from rfverify.cli import main
from rfverify.errors import UsageError
from rfverify.implementations.adapted import (SupervisedAdaptedBasis, UnsupervisedAdaptedBasis, mixture_domain, mixture_labels, sab_loss_grad, uab_loss_grad)
from rfverify.implementations.rff import RandomFourierFeatures
from rfverify.metrics import (alignment, kernel_metrics, max_abs_error, mean_abs_error, relative_frobenius_error,
                              t_interval, target_alignment, target_gram)
from rfverify.properties.adapted import features_needed

RBF = {"kernel": "rbf", "kernel_params": {"gamma": 0.5}, "dim": 16, "domain": mixture_domain}
SEEDS = [20261122] + list(range(1, 21))  # the default seed and 20 others
STEPS = 150  # short optimisations keep the 21-seed tests cheap; the direction is already clear


def _kernel(A, B, gamma=0.5):
    return np.exp(-gamma * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))


# ------------------------------------------------------------------ plug-ins used below (correct and broken)


def fast_uab(n_components, random_state, gamma=1.0):
    return UnsupervisedAdaptedBasis(n_components, random_state, gamma=gamma, n_steps=STEPS)


def fast_sab(n_components, random_state, gamma=1.0):
    return SupervisedAdaptedBasis(n_components, random_state, gamma=gamma, n_steps=STEPS, label_fn=mixture_labels)


class AscentUAB(UnsupervisedAdaptedBasis):
    """Planted bug: the gradient sign is flipped, so Adam *increases* the kernel approximation error."""

    def _objective(self, X, y):
        step = super()._objective(X, y)

        def ascend(W, b, rng):
            loss, gW, gb = step(W, b, rng)
            return -loss, -gW, (None if gb is None else -gb)

        return ascend


def ascent_uab(n_components, random_state, gamma=1.0):
    return AscentUAB(n_components, random_state, gamma=gamma, n_steps=STEPS)


class WrongTargetSAB(SupervisedAdaptedBasis):
    """Planted bug: labels shuffled by a fixed permutation before adapting (alignment with the wrong target)."""

    def _objective(self, X, y):
        if y is None:
            y = self.labels_for(X)
        return super()._objective(X, np.asarray(y)[::-1].copy())


def wrong_target_sab(n_components, random_state, gamma=1.0):
    return WrongTargetSAB(n_components, random_state, gamma=gamma, n_steps=STEPS, label_fn=mixture_labels)


class IgnoresSeed(UnsupervisedAdaptedBasis):
    """Planted bug: a hard-coded seed, whatever random_state says."""

    def fit(self, X, y=None):
        rs, self.random_state = self.random_state, 0
        try:
            return super().fit(X, y)
        finally:
            self.random_state = rs


def ignores_seed(n_components, random_state, gamma=1.0):
    return IgnoresSeed(n_components, random_state, gamma=gamma, n_steps=20)


class BatchCentred(UnsupervisedAdaptedBasis):
    """Planted bug: transform centres the features on the batch it is given."""

    def transform(self, X):
        F = super().transform(X)
        return F - F.mean(axis=0)


def batch_centred(n_components, random_state, gamma=1.0):
    return BatchCentred(n_components, random_state, gamma=gamma, n_steps=20)


class UndeclaredUAB:
    """A correct UAB behind a plain estimator: no data_dependent attribute, no initial_basis()."""

    def __init__(self, n_components=8, random_state=None, gamma=1.0):
        self.n_components, self.random_state, self.gamma = n_components, random_state, gamma

    def get_params(self, deep=False):
        return {"n_components": self.n_components, "random_state": self.random_state, "gamma": self.gamma}

    def fit(self, X, y=None):
        self.inner_ = UnsupervisedAdaptedBasis(self.n_components, self.random_state, gamma=self.gamma,
                                               n_steps=STEPS).fit(X)
        return self

    def transform(self, X):
        return self.inner_.transform(X)


# ------------------------------------------------------------------ the implementations


@pytest.mark.parametrize("phase", [True, False], ids=["phase(rff)", "paired(orf)"])
def test_analytic_gradients_match_central_differences(phase):
    """Both objectives, both forms: |analytic - central difference| <= 1e-7 (truncation h^2 |f'''|/6 ~ 1e-12,
    round-off eps |f| / h ~ 1e-10 at h = 1e-6; a wrong term in a gradient is O(|g|) ~ 1e-2)."""
    rng = np.random.default_rng(3)
    W = rng.standard_normal((5, 7))
    b = rng.uniform(0, 2 * np.pi, 7) if phase else None
    Xa, Xb, t = rng.standard_normal((9, 5)), rng.standard_normal((9, 5)), rng.uniform(0, 1, 9)
    KY = target_gram(rng.integers(0, 3, 9))
    h = 1e-6
    for fn in (lambda W, b: uab_loss_grad(W, b, Xa, Xb, t), lambda W, b: sab_loss_grad(W, b, Xa, KY)):
        _, gW, gb = fn(W, b)
        num = np.zeros_like(W)
        for idx in np.ndindex(W.shape):
            E = np.zeros_like(W)
            E[idx] = h
            num[idx] = (fn(W + E, b)[0] - fn(W - E, b)[0]) / (2 * h)
        assert np.max(np.abs(num - gW)) <= 1e-7, (num, gW)
        assert np.max(np.abs(gW)) > 1e-3  # the test is not vacuous
        if phase:
            numb = np.array([(fn(W, b + h * e)[0] - fn(W, b - h * e)[0]) / (2 * h) for e in np.eye(7)])
            assert np.max(np.abs(numb - gb)) <= 1e-7
        else:
            assert gb is None


@pytest.mark.parametrize("init", ["rff", "orf"])
def test_uab_reduces_held_out_error_against_its_start(init):
    for seed in (0, 1, 2):
        rng = np.random.default_rng(seed)
        X, Xt = mixture_domain(400, 16, rng), mixture_domain(100, 16, rng)
        K = _kernel(Xt, Xt)
        uab = UnsupervisedAdaptedBasis(16, random_state=seed, gamma=0.5, init=init, n_steps=300).fit(X)
        F, F0 = uab.transform(Xt), uab.initial_basis().transform(Xt)
        e, e0 = relative_frobenius_error(K, F @ F.T), relative_frobenius_error(K, F0 @ F0.T)
        assert e < 0.75 * e0, f"init={init} seed={seed}: adapted {e:.3g} vs start {e0:.3g}"
        assert uab.loss_curve_[-50:].mean() < uab.loss_curve_[:50].mean()


def test_initial_basis_is_the_reference_rff_draw():
    X = mixture_domain(50, 16, np.random.default_rng(0))
    uab = UnsupervisedAdaptedBasis(8, random_state=7, gamma=0.5, n_steps=0).fit(X)
    rff = RandomFourierFeatures(8, random_state=7, gamma=0.5).fit(X)
    np.testing.assert_array_equal(uab.transform(X), rff.transform(X))  # no steps: exactly the RFF start
    np.testing.assert_array_equal(uab.initial_basis().transform(X), rff.transform(X))


def test_sab_increases_held_out_alignment_with_the_labels():
    for seed in (0, 1):
        rng = np.random.default_rng(seed)
        X, Xt = mixture_domain(300, 16, rng), mixture_domain(100, 16, rng)
        sab = SupervisedAdaptedBasis(16, random_state=seed, gamma=0.5, n_steps=200).fit(X, mixture_labels(X))
        F, F0 = sab.transform(Xt), sab.initial_basis().transform(Xt)
        a, a0 = target_alignment(F @ F.T, mixture_labels(Xt)), target_alignment(F0 @ F0.T, mixture_labels(Xt))
        assert a > a0 + 0.05, f"seed {seed}: SAB {a:.3g} vs start {a0:.3g}"


def test_sab_needs_labels_and_estimators_validate():
    X = mixture_domain(20, 16, np.random.default_rng(0))
    with pytest.raises(UsageError, match="needs labels"):
        SupervisedAdaptedBasis(4, 0).fit(X)
    with pytest.raises(UsageError, match="init"):
        UnsupervisedAdaptedBasis(4, 0, init="qmc").fit(X)
    with pytest.raises(UsageError, match="not fitted"):
        UnsupervisedAdaptedBasis(4, 0).transform(X)


def test_adapted_bases_are_deterministic_given_random_state():
    X = mixture_domain(60, 16, np.random.default_rng(0))
    state = np.random.get_state()
    a = UnsupervisedAdaptedBasis(8, 5, gamma=0.5, n_steps=30).fit(X).W_
    b = UnsupervisedAdaptedBasis(8, 5, gamma=0.5, n_steps=30).fit(X).W_
    c = UnsupervisedAdaptedBasis(8, 6, gamma=0.5, n_steps=30).fit(X).W_
    assert np.array_equal(a, b) and not np.allclose(a, c)
    assert np.array_equal(np.random.get_state()[1], state[1])  # numpy's global state untouched


# ------------------------------------------------------------------ metrics, by hand


def test_metrics_on_hand_computed_cases():
    K = np.array([[1.0, 0.5], [0.5, 1.0]])
    Kh = np.eye(2)
    assert relative_frobenius_error(K, Kh) == pytest.approx(math.sqrt(0.5 / 2.5), rel=1e-15)
    assert max_abs_error(K, Kh) == 0.5
    assert mean_abs_error(K, Kh) == 0.25
    assert alignment(K, Kh) == pytest.approx(2 / math.sqrt(5), rel=1e-15)
    assert alignment(K, 3 * K) == pytest.approx(1.0, rel=1e-15)  # scale-free
    assert math.isnan(alignment(K, np.zeros((2, 2))))
    np.testing.assert_array_equal(target_gram([0, 0, 1]), [[1, 1, 0], [1, 1, 0], [0, 0, 1]])
    Y = np.array([[1, 0], [1, 0], [0, 1]])
    np.testing.assert_array_equal(target_gram(Y), target_gram([0, 0, 1]))  # one-hot: Y Y^T
    # alignment of yy^T with itself is 1; with the all-ones matrix <J, Ky> = 5, |J| = 3, |Ky| = sqrt(5)
    assert target_alignment(np.ones((3, 3)), [0, 0, 1]) == pytest.approx(5 / (3 * math.sqrt(5)), rel=1e-15)
    mean, lo, hi = t_interval([1.0, 2.0, 3.0])
    half = stats.t.ppf(0.975, 2) / math.sqrt(3)
    assert (mean, lo, hi) == pytest.approx((2.0, 2.0 - half, 2.0 + half), rel=1e-14)
    assert t_interval([4.0, 4.0]) == (4.0, 4.0, 4.0)
    block = kernel_metrics(K, [Kh, K], labels=[[0, 1], [0, 1]])
    assert block["rel_frobenius"]["values"] == [pytest.approx(math.sqrt(0.2)), 0.0]
    assert set(block) == {"rel_frobenius", "max_abs", "mean_abs", "alignment", "target_alignment"}


def test_features_needed_interpolates_on_log_log_axes():
    m = np.array([8.0, 16.0, 32.0])
    err = np.array([0.4, 0.2, 0.1])  # slope -1 on log-log axes
    assert features_needed(m, err, 0.2) == (pytest.approx(16.0), False)
    assert features_needed(m, err, 0.2 / math.sqrt(2))[0] == pytest.approx(16 * math.sqrt(2))
    need, flag = features_needed(m, err, 0.05)  # beyond the grid: Monte Carlo slope -1/2
    assert flag and need == pytest.approx(32 * 4)
    need, flag = features_needed(m, err, 0.8)  # reached before the grid
    assert flag and need == pytest.approx(2.0)


# ------------------------------------------------------------------ the harness


def test_detection_uab_without_attribute_is_detected_rff_is_not():
    from rfverify.kinds.feature_map import FeatureMapConfig

    cfg = FeatureMapConfig(UndeclaredUAB, **RBF)
    assert cfg.preflight() is None
    assert cfg.declarations.data_dependent is True
    assert cfg.data_dependence["decided_by"].startswith("detected:")
    assert cfg.data_dependence["other_data_max_abs_diff"] > cfg.data_dependence["tolerance"]
    cfg = FeatureMapConfig(RandomFourierFeatures, **RBF)
    assert cfg.preflight() is None
    assert cfg.declarations.data_dependent is False
    assert cfg.data_dependence["decided_by"].startswith("detected not data-dependent")
    assert cfg.data_dependence["other_data_max_abs_diff"] == 0.0
    cfg = FeatureMapConfig(UnsupervisedAdaptedBasis, **RBF)  # declared by its class attribute: no fits
    cfg.preflight()
    assert cfg.data_dependence == {"data_dependent": True, "decided_by": "declared by the plug-in (attribute "
                                   "data_dependent = True on UnsupervisedAdaptedBasis)"}
    cfg = FeatureMapConfig(UndeclaredUAB, data_dependent=False, **RBF)
    cfg.preflight()
    assert cfg.declarations.data_dependent is False and "not probed" in cfg.data_dependence["decided_by"]
    with pytest.raises(UsageError, match="data_dependent"):
        FeatureMapConfig(RandomFourierFeatures, data_dependent="yes", **RBF)


def test_a_map_that_is_not_reproducible_is_not_called_data_dependent():
    def fresh(X, n_components, random_state):
        W = np.random.default_rng().standard_normal((X.shape[1], n_components))
        return np.cos(X @ W)

    report = rfverify.verify(fresh, profile="quick", checks=["reproducibility"], **RBF)
    assert report.config["data_dependence"]["decided_by"].startswith("undecided")
    assert report["reproducibility"].status == "fail"


def test_uab_report_skips_the_random_feature_checks_with_the_reason():
    report = rfverify.verify(fast_uab, profile="quick", **RBF)
    status = {r.check: r.status for r in report.results}
    assert status == {"contract": "pass", "reproducibility": "pass", "unbiasedness": "skip", "concentration": "skip",
                      "error-rate": "skip", "adapted-approximation": "pass", "explore": "pass",
                      "stateful": "pass"}, report.table()
    for name in ("unbiasedness", "concentration", "error-rate"):
        assert "not promised for a data-dependent map" in report[name].message
        assert "not a claim of the method" in report[name].message
    aa = report["adapted-approximation"]
    assert aa.effect.high < 1.0 and aa.details["savings"] > 1.0, aa.message
    assert report.config["declarations"]["data_dependent"] is True
    assert report.metrics["held_out"] and report.metrics["rel_frobenius"]["interval"][0] <= \
        report.metrics["rel_frobenius"]["mean"] <= report.metrics["rel_frobenius"]["interval"][1]
    doc = json.loads(report.to_json())
    assert doc["metrics"]["seeds"] == 5 and "target_alignment" not in doc["metrics"]
    assert "adapted-approximation" in report.table() and "metrics (held-out" in report.table()


def test_sab_is_judged_on_target_alignment_and_metrics_carry_it():
    report = rfverify.verify(fast_sab, profile="quick", **RBF)
    aa = report["adapted-approximation"]
    assert aa.status == "pass" and aa.details["objective"] == "target-alignment", report.table()
    assert np.all(np.asarray(aa.details["statistic_per_fit"]) < -0.02)  # alignment gained by every fit
    assert "target_alignment" in report.metrics
    assert report.metrics["target_alignment"]["mean"] > report.metrics["alignment"]["mean"] - 1  # present, finite


def test_plain_rff_declared_data_dependent_is_its_own_reference():
    report = rfverify.verify(RandomFourierFeatures, profile="quick", data_dependent=True,
                             checks=["unbiasedness", "adapted-approximation"], **RBF)
    aa = report["adapted-approximation"]
    assert report["unbiasedness"].status == "skip"
    assert aa.status == "pass" and aa.statistic == 0.0 and aa.details["savings"] == pytest.approx(1.0)
    assert "identical to its reference" in aa.message
    assert "--data-dependent" in aa.reproduce
    assert report.metrics is None  # a selection of checks: no metrics unless asked


def test_not_data_dependent_maps_skip_adapted_approximation_and_get_metrics_on_request():
    report = rfverify.verify(RandomFourierFeatures, profile="quick", checks=["adapted-approximation"],
                             metrics=True, **RBF)
    assert report["adapted-approximation"].status == "skip"
    assert "not a data-dependent map" in report["adapted-approximation"].message
    assert 0 < report.metrics["rel_frobenius"]["mean"] < 1


#: CI runs the default seed and 4 others; the 16 more are in the slow set (``pytest -m slow``).
@pytest.mark.parametrize("seed", [s if k < 5 else pytest.param(s, marks=pytest.mark.slow) for k, s in enumerate(SEEDS)])
def test_adapted_approximation_fails_on_gradient_ascent_and_passes_the_correct_uab(seed):
    kw = dict(profile="quick", seed=seed, checks=["adapted-approximation"], **RBF)
    bad = rfverify.verify(ascent_uab, **kw)["adapted-approximation"]
    assert bad.status == "fail", bad.message
    assert "worse than its reference random basis" in bad.message and "reproduce" not in bad.message
    assert bad.effect.low > 1.0 and bad.pvalue < bad.threshold
    good = rfverify.verify(fast_uab, **kw)["adapted-approximation"]
    assert good.status == "pass", good.message


def test_adapted_approximation_fails_on_the_wrong_target_and_passes_sab():
    kw = dict(profile="quick", checks=["adapted-approximation"], **RBF)
    bad = rfverify.verify(wrong_target_sab, **kw)["adapted-approximation"]
    assert bad.status == "fail" and bad.details["objective"] == "target-alignment", bad.message
    assert rfverify.verify(fast_sab, **kw)["adapted-approximation"].status == "pass"


def test_broken_adapted_bases_are_caught_by_contract_and_reproducibility():
    rep = rfverify.verify(ignores_seed, profile="quick", checks=["contract", "reproducibility"], **RBF)
    assert rep["reproducibility"].status == "fail" and "random_state is ignored" in rep["reproducibility"].message
    assert rep["contract"].status == "pass"
    rep = rfverify.verify(batch_centred, profile="quick", checks=["contract", "reproducibility"], **RBF)
    assert rep["contract"].status == "fail" and "rest of the batch" in rep["contract"].message


def test_html_page_has_the_metrics_box_and_the_adapted_plot(tmp_path):
    from rfverify.report.writing import write_reports

    report = rfverify.verify(fast_uab, profile="quick", **RBF)
    write_reports(tmp_path, [("uab", report)], seed=report.seed, profile="quick")
    html = (tmp_path / "uab.html").read_text()
    assert "Kernel-approximation metrics" in html and "relative Frobenius error" in html
    assert "Held-out kernel approximation error against the number of features" in html
    assert json.loads((tmp_path / "uab.json").read_text())["metrics"]["n_test"] == 48


def test_cli_data_dependent_option(capsys, tmp_path):
    target = "rfverify.implementations.rff:RandomFourierFeatures"
    code = main(["check", "feature-map", target, "--param", "gamma=0.5", "--data-dependent", "--profile", "quick",
                 "--check", "adapted-approximation", "--json", "-"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0
    assert doc["config"]["data_dependence"]["decided_by"].startswith("declared by the caller")
    assert doc["checks"][0]["status"] == "pass" and "--data-dependent" in doc["checks"][0]["reproduce"]
    code = main(["report", target, "--param", "gamma=0.5", "--data-dependent", "--profile", "quick",
                 "--check", "unbiasedness", "--out", str(tmp_path)])
    assert code == 0
    doc = json.loads(next(p for p in tmp_path.glob("*.json") if p.name != "index.json").read_text())
    assert doc["checks"][0]["status"] == "skip"


def test_claims_provider_registered_and_fig1_direction():
    from rfverify.studies.claims import claim_specs, evaluate_claims
    from rfverify.studies.claims.alber2017_adapted import fig1_study

    ids = [s.id for s in claim_specs(["alber2017"])]
    assert "alber2017-sec4.2-fig1-uab-savings" in ids and "alber2017-eq4-gaussian-scale" in ids
    r = fig1_study(seeds=1, steps=200)
    assert np.all(r["e_uab"][0] < r["e_rb"][0, :5]) and np.all(r["savings"] > 1)
    assert np.all(r["ta_sab"] > r["ta_rb"])
    eq4 = evaluate_claims(ids=["alber2017-eq4-gaussian-scale"])[0]
    assert eq4.verdict == "false as printed; corrected form holds" and "phi(x).phi(x) = 0.5 for every draw" in eq4.evidence

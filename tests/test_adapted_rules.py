"""The decision rules and messages of ``adapted-approximation`` (:mod:`rfverify.properties.adapted`): the
one-sided t-test with its exact zero-spread decisions, the features-needed interpolation, each message recomputed
from the numbers the result carries, the reference basis and the plug-in errors around it.

Its power and false alarms (gradient ascent caught under 21 seeds, correct UAB and SAB passing) are measured in
``tests/test_adapted.py``; these run the quick profile once per case.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy import stats

import rfverify
from rfverify.implementations.adapted import UnsupervisedAdaptedBasis, mixture_domain
from rfverify.implementations.rff import RandomFourierFeatures
from rfverify.profiles import budget
from rfverify.properties.adapted import AdaptedBudget, features_needed
from rfverify.stats import one_sided_t
from tests.test_adapted import ascent_uab, fast_sab, fast_uab

RBF = {"kernel": "rbf", "kernel_params": {"gamma": 0.5}, "dim": 16, "domain": mixture_domain}
CHECK = "adapted-approximation"
WHERE = "m = 8…32, 4 seeds, 64 held-out points; reference: "


def _run(impl, **kw):
    return rfverify.verify(impl, profile="quick", checks=[CHECK], **{**RBF, **kw})[CHECK]


def test_one_sided_t_and_its_exact_decisions_without_spread():
    t, p = one_sided_t(np.array([1.0, 2.0, 3.0]))
    assert t == pytest.approx(2.0 / (1.0 / math.sqrt(3.0))) and p == pytest.approx(stats.t.sf(2 * math.sqrt(3), 2))
    t, p = one_sided_t(np.array([-1.0, 0.0, -2.0, 1.0]))
    assert t == pytest.approx(-0.5 / (np.std([-1, 0, -2, 1], ddof=1) / 2)) and p > 0.5  # H0 E x <= 0 not rejected
    assert one_sided_t(np.array([0.25, 0.25])) == (math.inf, 0.0)  # always worse, no spread: rejected exactly
    assert one_sided_t(np.array([-0.25, -0.25])) == (-math.inf, 1.0)
    assert one_sided_t(np.array([0.0, 0.0, 0.0])) == (0.0, 1.0)  # identical to the reference: not worse
    assert one_sided_t(np.array([0.5])) == (math.inf, 0.0)  # one value: no spread
    t, p = one_sided_t(np.array([1.0, 2.0]))  # two values are a t-test with one degree of freedom
    assert t == pytest.approx(1.5 / (math.sqrt(0.5) / math.sqrt(2.0))) and p == pytest.approx(stats.t.sf(3.0, 1))
    with np.errstate(invalid="ignore"):
        assert one_sided_t(np.array([math.inf, 1.0])) == (math.inf, 0.0)  # non-finite spread decides by the sign


def test_features_needed_at_the_edges_of_the_grid():
    m = np.array([8.0, 16.0, 32.0])
    err = np.array([0.4, 0.2, 0.2])
    assert features_needed(m, err, 0.2) == (pytest.approx(16.0), False)  # the first grid point that reaches it
    flat = np.array([0.4, 0.4, 0.1])
    assert features_needed(m, flat, 0.4) == (8.0, False)  # reached at the first point: no extrapolation
    need, flag = features_needed(m, np.array([0.4, 0.3, 0.3]), 0.3)
    assert (need, flag) == (pytest.approx(16.0), False)
    need, flag = features_needed(m, np.array([0.5, 0.5, 0.25]), 0.5)
    assert (need, flag) == (8.0, False)
    need, flag = features_needed(m, np.array([0.5, 0.5, 0.25]), 0.4)  # between two points, log-log
    f = (math.log(0.4) - math.log(0.5)) / (math.log(0.25) - math.log(0.5))
    assert need == pytest.approx(math.exp(math.log(16) + f * (math.log(32) - math.log(16)))) and flag is False
    # reached at the first point, but below the target there: extrapolated back along the Monte Carlo slope
    need, flag = features_needed(m, np.array([0.1, 0.5, 0.5]), 0.2)
    assert (need, flag) == (pytest.approx(8.0 / 4.0), True)
    # an exact map's error 0 is floored at 1e-300: it reaches 1e-150 at 8 (1e-150 / 1e-300)^-2 = 8e-300 features
    need, flag = features_needed(m, np.zeros(3), 1e-150)
    assert (need / 8e-300, flag) == (pytest.approx(1.0), True)
    need, flag = features_needed(m, np.array([0.0, 0.0, 0.0]), 0.0)  # an exact map: floored, not log(0)
    assert (need, flag) == (8.0, False)


def test_the_pass_message_is_recomputed_from_the_details():
    r = _run(fast_uab)
    d, e = r.details, r.effect
    assert r.status == "pass" and d["objective"] == "kernel-approximation" and d["seeds"] == 4
    assert d["n_components"] == [8, 16, 32] and (d["n_fit"], d["n_test"]) == (256, 64)
    worse = np.asarray(d["statistic_per_fit"])
    t, p = one_sided_t(worse)
    assert r.pvalue == p and r.statistic == pytest.approx(float(np.mean(worse)))
    assert e.name == "held-out error ratio adapted/reference" and e.confidence == 1 - r.alpha
    assert e.estimate == pytest.approx(math.exp(np.mean(worse)))
    m_top = int(round(d["m_reference"][-1]))
    lo, hi = d["savings_interval"]
    assert r.message == (
        f"not worse than its reference on held-out points: held-out error {e.estimate:.3g} x the reference's "
        f"[{e.low:.3g}, {e.high:.3g}] (p = {p:.3g}); features for the reference's error at m = {m_top} "
        f"({d['savings_target_error']:.3g}): savings x{d['savings']:.3g} [{lo:.3g}, {hi:.3g}]"
        f"{' (extrapolated beyond the grid at slope -1/2 for some seeds)' if d['savings_extrapolated'] else ''} "
        f"({WHERE}{d['reference']})")
    assert d["reference"] == "the random basis it started from (initial_basis())"
    assert len(d["savings_per_seed"]) == 4 and d["savings"] == pytest.approx(
        math.exp(np.mean(np.log(d["savings_per_seed"]))))
    assert d["savings_target_error"] == pytest.approx(float(np.mean(d["error_reference"][-1])))
    assert np.all(np.asarray(d["error_adapted"]) < np.asarray(d["error_reference"]))
    assert "target_alignment_adapted" not in d  # UAB cannot label points


def test_the_failure_message_of_a_worse_basis():
    r = _run(ascent_uab)
    d = r.details
    worse = np.asarray(d["statistic_per_fit"])
    t, p = one_sided_t(worse)
    e = r.effect
    assert r.status == "fail" and r.pvalue == p < r.alpha and r.threshold == r.alpha
    assert r.message == (
        f"the adapted basis is worse than its reference random basis on held-out points — observed: held-out error "
        f"{e.estimate:.3g} x the reference's [{e.low:.3g}, {e.high:.3g}] (log error ratio {np.mean(worse):+.3g} over "
        f"{worse.size} fits, t = {t:.3g}, p = {p:.3g}); expected: a held-out error at most the reference's (ratio <= 1): "
        f"log error ratio <= 0 (one-sided t-test rejected at alpha = {r.alpha:.3g}); where: {WHERE}{d['reference']}; "
        f"likely cause: the adaptation increases what it should decrease (a gradient sign or target error?)")
    assert e.estimate == pytest.approx(math.exp(np.mean(worse))) and e.confidence == 1 - r.alpha


def test_a_supervised_basis_is_judged_on_target_alignment():
    r = _run(fast_sab)
    d, e = r.details, r.effect
    assert r.status == "pass" and d["objective"] == "target-alignment"
    ta_a, ta_r = np.mean(d["target_alignment_adapted"]), np.mean(d["target_alignment_reference"])
    worse = np.asarray(d["statistic_per_fit"])
    assert e.name == "target-alignment gain (adapted - reference)" and e.estimate == pytest.approx(-np.mean(worse))
    assert e.low <= e.estimate <= e.high
    ratio_e = math.exp(np.mean(np.log(d["error_adapted"]) - np.log(d["error_reference"])))
    assert r.message.startswith(f"not worse than its reference on held-out points: target alignment {ta_a:.3g} vs "
                                f"{ta_r:.3g} (p = {r.pvalue:.3g}); its kernel approximation error is "), r.message
    assert r.message.endswith(" x the reference's (not its objective: alber2017 Fig. 1 shows it to measure how far "
                              f"the basis moved) ({WHERE}{d['reference']})")
    assert abs(float(r.message.split("its kernel approximation error is ")[1].split(" x")[0]) - ratio_e) < 0.01 * ratio_e


class Unlabelled(UnsupervisedAdaptedBasis):
    """Claims the target-alignment objective but cannot label held-out points."""

    adapted_objective = "target-alignment"


def unlabelled(n_components, random_state, gamma=1.0):
    return Unlabelled(n_components, random_state, gamma=gamma, n_steps=20)


def test_a_target_alignment_claim_without_labels_falls_back_to_the_kernel_error():
    r = _run(unlabelled)
    assert r.details["objective"] == ("kernel-approximation (the map claims target-alignment but cannot label "
                                      "held-out points)")
    assert "held-out error " in r.message and r.effect.name == "held-out error ratio adapted/reference"


def test_a_random_basis_declared_data_dependent_is_identical_to_its_reference():
    r = _run(RandomFourierFeatures, data_dependent=True)
    assert r.status == "pass" and r.message == (
        "identical to its reference random basis at every m (error ratio 1): nothing is adapted; not worse "
        f"({WHERE}random Fourier features (rfverify.implementations.rff, same m and random_state))")
    assert r.details["savings_per_seed"] == [1.0] * 4 and r.details["savings_interval"] == [1.0, 1.0]
    assert r.details["objective"] == "kernel-approximation"  # no adapted_objective declared: the default
    assert r.details["savings_extrapolated"] is False  # the reference's error is reached at the grid's end


class Bases:
    """A data-dependent map whose initial_basis() misbehaves in a chosen way."""

    def __init__(self, n_components, random_state, how="raise", gamma=1.0):
        self.inner = RandomFourierFeatures(n_components, random_state, gamma=gamma)
        self.n_components, self.random_state, self.how, self.gamma = n_components, random_state, how, gamma

    def fit(self, X, y=None):
        self.inner.fit(X)
        return self

    def transform(self, X):
        return self.inner.transform(X)

    def initial_basis(self):
        if self.how == "raise":
            raise RuntimeError("no basis kept")
        if self.how == "no-transform":
            return object()
        return _BadTransform(self.inner, self.how)


class _BadTransform:
    def __init__(self, inner, how):
        self.inner, self.how = inner, how

    def transform(self, X):
        if self.how == "transform-raises":
            raise ValueError("cannot transform")
        F = self.inner.transform(X)
        if self.how == "inflated":
            return 1.1 * F
        return F[:-1] if self.how == "short" else F * np.nan


FINITE = "initial_basis().transform(X) must return a finite (64, m) array"


@pytest.mark.parametrize("how,problem,hint", [
    ("raise", "initial_basis() raised RuntimeError: no basis kept",
     "initial_basis() must return the fitted random basis the map started from"),
    ("no-transform", "initial_basis() returned object without transform",
     "initial_basis() must return an object with transform(X)"),
    ("transform-raises", "transform of the reference basis raised ValueError: cannot transform",
     "initial_basis().transform(X) must work like the map's transform"),
    ("short", "the reference basis returned shape (63, 8) or non-finite values", FINITE),
    ("nan", "the reference basis returned shape (64, 8) or non-finite values", FINITE),
])
def test_a_reference_basis_that_misbehaves_is_a_plugin_error(how, problem, hint):
    def make(n_components, random_state):
        return Bases(n_components, random_state, how=how)

    r = _run(make, data_dependent=True)
    assert r.status == "error" and r.message.endswith(f".make: {problem} — {hint}"), r.message


def test_a_map_not_declared_data_dependent_is_skipped_with_the_reason():
    r = _run(RandomFourierFeatures)
    assert (r.status, r.message) == ("skip", "not a data-dependent map (fit does not depend on X): its unbiasedness, "
                                             "concentration and error rate are checked instead; declare "
                                             "data_dependent=True (--data-dependent) to measure what adapting the "
                                             "basis buys")


def test_no_reference_basis_is_a_skip_with_the_reason():
    r = _run(fast_uab_no_initial, kernel="polynomial", kernel_params={"degree": 2, "gamma": 1.0, "coef0": 1.0},
             data_dependent=True)
    assert r.status == "skip" and r.message == (
        "no reference random basis: the map has no initial_basis() and rfverify has no random features for kernel "
        "polynomial(coef0=1.0, degree=2, gamma=1.0); nothing to compare the adapted basis with")


def fast_uab_no_initial(n_components, random_state):
    return _NoInitial(RandomFourierFeatures(n_components, random_state, gamma=0.5))


class _NoInitial:
    def __init__(self, inner):
        self.inner = inner

    def fit(self, X, y=None):
        self.inner.fit(X)
        return self

    def transform(self, X):
        return self.inner.transform(X)


class LabelledRFF(RandomFourierFeatures):
    """Plain random features that claim the target-alignment objective and label points by the first coordinate."""

    adapted_objective = "target-alignment"

    def labels_for(self, X):
        return np.where(np.asarray(X)[:, 0] > 0, 1.0, -1.0)


def test_an_unadapted_basis_judged_on_alignment_reports_the_alignment_not_identity():
    """"Identical to its reference" is said of the kernel error; a map judged on target alignment is reported by
    its alignment even when its basis is its reference's."""
    r = _run(LabelledRFF, data_dependent=True)
    assert r.status == "pass" and r.details["objective"] == "target-alignment"
    assert np.all(np.asarray(r.details["statistic_per_fit"]) == 0.0)
    assert r.message.startswith("not worse than its reference on held-out points: target alignment "), r.message


def test_the_budgets_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        AdaptedBudget(**budget("quick", "adapted")).seeds = 1


def test_budgets_and_the_savings_interval():
    from rfverify.stats import t_interval
    assert {p: AdaptedBudget(**budget(p, "adapted")) for p in ("quick", "default", "thorough")} == \
        {"quick": AdaptedBudget((8, 16, 32), 4, 256, 64),
         "default": AdaptedBudget((8, 16, 32, 64, 128), 5, 256, 64),
         "thorough": AdaptedBudget((8, 16, 32, 64, 128, 256), 10, 512, 128)}
    r = _run(fast_uab)
    d = r.details
    mean, lo, hi = t_interval(np.log(d["savings_per_seed"]), 0.95)
    assert (d["savings"], *d["savings_interval"]) == pytest.approx((math.exp(mean), math.exp(lo), math.exp(hi)))
    m, err = np.array([8.0, 16.0]), np.array([0.5, 0.25])
    need, flag = features_needed(m, err, 0.125)  # beyond the grid: along m^(-1/2), so 4 x 16 features
    assert (need, flag) == (pytest.approx(64.0), True)
    need, flag = features_needed(m, err, 1.0)  # reached before the grid: back along the same slope, flagged
    assert (need, flag) == (pytest.approx(2.0), True)


def test_the_t_test_rejects_strictly_below_alpha(monkeypatch):
    """p = alpha exactly is not a rejection (the one-sided t-test's p stubbed to the check's alpha, then just below)."""
    import rfverify.properties.adapted as adapted

    alpha = _run(fast_uab).threshold
    for p, status in ((alpha, "pass"), (alpha * (1 - 1e-12), "fail")):
        monkeypatch.setattr(adapted, "one_sided_t", lambda x, p=p: (1.0, p))
        r = _run(fast_uab)
        assert (r.status, r.pvalue) == (status, p), r.message


def test_savings_reached_within_the_grid_carry_no_extrapolation_note():
    """The map is plain random features, its reference the same features times 1.1 (a larger error): the
    reference's error at m = 32 is reached between grid points, so the savings are interpolated, not extrapolated."""
    def make(n_components, random_state):
        return Bases(n_components, random_state, how="inflated")

    r = _run(make, data_dependent=True)
    d = r.details
    lo, hi = d["savings_interval"]
    assert r.status == "pass" and d["savings_extrapolated"] is False and d["savings"] > 1
    assert r.message.endswith(f"savings x{d['savings']:.3g} [{lo:.3g}, {hi:.3g}] ({WHERE}the random basis it "
                              "started from (initial_basis()))"), r.message

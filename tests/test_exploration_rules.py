"""The property rules of ``explore`` at one configuration (:func:`rfverify.properties.exploration.evaluate`) and
the messages of the check: each property's finding on a plug-in planted to break it exactly there, in full, and the
pass, exemption and cause texts of the search's verdict.

The search itself (Hypothesis finding and shrinking the corner bugs under 21 seeds, the correct twins passing)
is measured in ``tests/test_exploration.py``.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import rfverify
import rfverify.properties.exploration as exploration
from rfverify.implementations.rff import RandomFourierFeatures
from rfverify.kinds import checks_for
from rfverify.kinds.feature_map import FeatureMapConfig
from rfverify.properties.exploration import PROPAGATED_ROWS, ROUNDOFF_MARGIN, _max_diff, _Runner, _working_dtype, evaluate
from rfverify.spaces import FMExample
from rfverify.tolerances import roundoff_inner_product, unit_roundoff
from tests.mutants import explore_mutants as em

RBF = dict(kernel="rbf", kernel_params={"gamma": 0.5}, dim=16)
NUM = r"[0-9.e+-]+"


def _ctx(impl, **kw):
    spec = next(s for s in checks_for("feature-map") if s.name == "explore")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return FeatureMapConfig(impl, profile="quick", **{**RBF, **kw}).context(spec)


def _ex(**kw):
    base = dict(d=4, m=8, params=(), random_state=3, n=6, dtype="float64", layout="C", norm="typical", data_seed=5,
                split=2)
    return FMExample(**{**base, **kw})


def _matches(pattern, text):
    assert text is not None and re.fullmatch(pattern, text), text


class InPlace(RandomFourierFeatures):
    def transform(self, X):
        F = super().transform(X)
        X *= 2.0  # the caller's array
        return F


class NoFeatures(RandomFourierFeatures):
    def transform(self, X):
        return np.zeros((np.asarray(X).shape[0], 0))


class PerInstance(RandomFourierFeatures):
    """Each instance draws from random_state plus its serial number: refitting one object is reproducible, a
    second map with the same random_state is not."""

    built = 0

    def fit(self, X, y=None):
        if not hasattr(self, "serial_"):
            PerInstance.built += 1
            self.serial_ = PerInstance.built
        rs, self.random_state = self.random_state, self.random_state + self.serial_
        try:
            return super().fit(X, y)
        finally:
            self.random_state = rs


class IgnoresSeed(RandomFourierFeatures):
    """Draws from random_state 7 whatever it is given."""

    def fit(self, X, y=None):
        rs, self.random_state = self.random_state, 7
        try:
            return super().fit(X, y)
        finally:
            self.random_state = rs


class RefusesD1(RandomFourierFeatures):
    def fit(self, X, y=None):
        if np.asarray(X).shape[1] == 1:
            raise ValueError("one column is not enough")
        return super().fit(X, y)


class CrashesAtD1(RandomFourierFeatures):
    """RefusesD1's twin: the same region, but an exception that is not a clean refusal (a defect, judged)."""

    def fit(self, X, y=None):
        if np.asarray(X).shape[1] == 1:
            raise ZeroDivisionError("one column is not enough")
        return super().fit(X, y)


def test_each_property_broken_at_one_configuration_is_named_in_full():
    _matches(rf"fit/transform modified its input array in place \(max change {NUM}\)", evaluate(_ctx(InPlace), _ex()))
    assert evaluate(_ctx(NoFeatures), _ex()) == "returned 0 features"
    _matches(rf"a F-layout input gave features differing from the same values C-ordered by up to {NUM} \(round-off "
             rf"tolerance {NUM}; {NUM}x the round-off propagated through the map's sensitivity\)",
             evaluate(_ctx(em.FortranReadAsC), _ex(layout="F")))
    _matches(rf"a float32 C-layout input gave features differing from the float64 features of the same values by up "
             rf"to {NUM}, more than float32 arithmetic allows \({NUM}; {NUM}x the round-off propagated through the "
             rf"map's sensitivity\)", evaluate(_ctx(em.Float16Compute), _ex(dtype="float32")))
    _matches(rf"the batch split at row 101 gave features differing from the whole batch by up to {NUM} \(round-off "
             rf"tolerance {NUM}; {NUM}x the round-off propagated through the map's sensitivity\)",
             evaluate(_ctx(em.ChunkedAboveBatch), _ex(n=2000, split=100)))
    _matches(rf"fitting the same object a second time on the same data changed its features by up to {NUM} "
             rf"\(round-off tolerance {NUM}\)", evaluate(_ctx(em.RefitRedraws), _ex()))
    _matches(rf"a second map built with random_state=3 and fitted on another batch \(a data-independent map\) gave "
             rf"features differing by up to {NUM} \(round-off tolerance {NUM}\)", evaluate(_ctx(PerInstance), _ex()))
    _matches(rf"a second map built with random_state=3 and fitted on the same data gave features differing by up to "
             rf"{NUM} \(round-off tolerance {NUM}\)", evaluate(_ctx(PerInstance, data_dependent=True), _ex()))
    _matches(rf"random_state=3 and 4 gave the same features at n_components=64 \(max difference 0, round-off "
             rf"tolerance {NUM}\)", evaluate(_ctx(IgnoresSeed), _ex()))
    _matches(r"random_state=4294967295 and 0 gave the same features at n_components=64 \(max difference 0, round-off "
             rf"tolerance {NUM}\)", evaluate(_ctx(IgnoresSeed), _ex(random_state=2 ** 32 - 1)))
    got = evaluate(_ctx(RefusesD1), _ex(d=1))
    assert got.startswith("the plug-in failed: ") and "one column is not enough" in got, got


def test_a_correct_map_holds_everywhere_and_exemptions_follow_the_declarations():
    for ex in (_ex(), _ex(layout="F"), _ex(dtype="float32", layout="strided"), _ex(n=1), _ex(d=1, m=1)):
        assert evaluate(_ctx(RandomFourierFeatures), ex) is None, ex
    assert evaluate(_ctx(IgnoresSeed, deterministic=True), _ex()) is None  # draws nothing: seeds may not matter
    assert evaluate(_ctx(IgnoresSeed, data_dependent=True), _ex()) is None
    # a wider map at m = 200 > 64: the seed property is judged at the map's own m
    _matches(rf"random_state=3 and 4 gave the same features at n_components=200 \(max difference 0, round-off "
             rf"tolerance {NUM}\)", evaluate(_ctx(IgnoresSeed), _ex(m=200)))


def _explore(impl, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rfverify.verify(impl, profile="quick", checks=["explore"], metrics=False, **{**RBF, **kw})["explore"]


def test_the_verdict_messages():
    ok = _explore(RandomFourierFeatures)
    assert ok.status == "pass" and re.fullmatch(
        r"\d+ configurations, every deterministic property held \(space: .+\)", ok.message), ok.message
    assert "seed_properties" not in ok.details and ok.statistic == ok.details["calls"]
    exempt = _explore(IgnoresSeed, deterministic=True)
    assert exempt.status == "pass" and " property held (declared deterministic: 'a different random_state gives " \
        "different features' not required) (space: " in exempt.message, exempt.message
    assert exempt.details["seed_properties"] == "exempt: declared deterministic"
    bad = _explore(em.RefitRedraws)
    assert bad.status == "fail"
    assert bad.message.startswith("a deterministic property breaks in a corner of the configuration space — "
                                  "observed: fitting the same object a second time"), bad.message
    assert ("expected: every deterministic property holds at every configuration of the space; where: d = "
            in bad.message and " (minimal configuration, shrunk by Hypothesis); "
            "likely cause: fit draws new randomness on every call (an RNG created in __init__ and consumed by fit?) "
            "— create the generator from random_state inside fit") in bad.message, bad.message
    assert bad.details["replayed"] is True and "not deterministic there" not in bad.message
    ex = FMExample(**{**bad.details["minimal_example"], "params": tuple(bad.details["minimal_example"]["params"].items())})
    assert bad.reproduce.endswith(" " + " ".join(ex.pins())) and f"where: {ex.describe()} (minimal" in bad.message


@pytest.mark.parametrize("impl,cause", [
    (em.FortranReadAsC, "the memory layout is ignored (a Fortran-ordered or strided input read as C-ordered?)"),
    (em.Float16Compute, "a float32 input is computed at lower precision (float16?) or read wrongly"),
    (InPlace, "the input array is changed in place — work on a copy"),
    (PerInstance, "randomness not drawn from random_state alone at this configuration"),
    (IgnoresSeed, "random_state is ignored at this configuration"),
    (CrashesAtD1, "the plug-in does not handle this configuration (a corner of d, m or the batch)"),
])
def test_each_finding_comes_with_its_likely_cause(impl, cause):
    r = _explore(impl)
    assert r.status == "fail" and f"; likely cause: {cause}" in r.message, r.message


def test_seed_zero_read_as_no_seed_is_named():
    r = _explore(em.SeedZeroUnseeded)
    assert r.status == "fail" and r.details["minimal_example"]["random_state"] == 0
    assert r.details["holds_with_random_state_1"] is True
    assert ("likely cause: seed 0 is treated as 'no seed' (random_state or None?) — test `random_state is None` "
            "instead") in r.message, r.message


class RefusesWithKeywords(RandomFourierFeatures):
    """Crashes at d = 1 (an IndexError: judged, not a clean refusal) with words that name other causes."""

    def fit(self, X, y=None):
        if np.asarray(X).shape[1] == 1:
            raise IndexError("a float32 batch split or a second map built here is not supported")
        return super().fit(X, y)


def test_a_plugin_s_own_words_do_not_choose_the_cause():
    r = _explore(RefusesWithKeywords)
    assert r.status == "fail" and ("; likely cause: the plug-in does not handle this configuration (a corner of d, m "
                                   "or the batch)") in r.message, r.message


def test_differences_dtypes_and_the_fixed_dimension():
    """A shape mismatch is an infinite difference, an empty one none; float16/float32 features (complex64's real
    part too) are judged in float32, every other dtype (integers included) in float64; the search keeps d at the
    declared dimension when the kernel is a user callable or the domain a user function (neither has other d)."""
    assert _max_diff(np.zeros((2, 3)), np.zeros((2, 4))) == float("inf")
    assert _max_diff(np.zeros((0, 3)), np.zeros((0, 3))) == 0.0 and _max_diff(np.ones(2), np.zeros(2)) == 1.0
    for dtype, working in ((np.float16, np.float32), (np.float32, np.float32), (np.complex64, np.float32),
                           (np.float64, np.float64), (np.complex128, np.float64), (np.int32, np.float64),
                           (np.int8, np.float64), (np.longdouble, np.float64)):
        assert _working_dtype(np.zeros(2, dtype=dtype)) is working, dtype
    from rfverify.implementations.adapted import mixture_domain

    def rbf(X, Y):
        return np.exp(-0.25 * ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1))

    assert _Runner(_ctx(RandomFourierFeatures), False, 64).fixed_dim is None
    assert _Runner(_ctx(RandomFourierFeatures, kernel=rbf, kernel_params={}), False, 64).fixed_dim == 16
    assert _Runner(_ctx(RandomFourierFeatures, domain=mixture_domain), False, 64).fixed_dim == 16


def needs_gamma(n_components, random_state, *, gamma):
    return RandomFourierFeatures(n_components, random_state, gamma=gamma)


def test_the_kernel_parameters_a_factory_takes_are_passed_through():
    ctx = _ctx(needs_gamma)
    assert ctx.plugin.passthrough == {"gamma": 0.5}
    assert evaluate(ctx, _ex(params=(("gamma", 2.0),))) is None


class OneRowDiffers(RandomFourierFeatures):
    """A batch of one row goes another (wrong) way: 1.5 times the features."""

    def transform(self, X):
        F = super().transform(X)
        return 1.5 * F if np.asarray(X).shape[0] == 1 else F


def noisy_function(X, n_components, random_state):
    """A function-form map (no object to refit) whose features carry fresh noise on every call."""
    F = RandomFourierFeatures(n_components, random_state, gamma=0.5).fit(X).transform(X)
    return F + 1e-6 * np.random.default_rng().standard_normal(F.shape)


def test_a_batch_split_finding_comes_with_its_likely_cause():
    test_each_finding_comes_with_its_likely_cause(
        OneRowDiffers, "features depend on the batch (a different code path above some batch size?)")


def test_the_batch_split_and_the_refit_of_a_function():
    """The split is at row 1 + split mod (n - 1), from n = 2 rows; a function-form map has no object to refit (its
    fresh noise shows as a second map differing)."""
    _matches(rf"the batch split at row 1 gave features differing from the whole batch by up to {NUM} .*",
             evaluate(_ctx(OneRowDiffers), _ex(n=2, split=0)))
    _matches(rf"the batch split at row 1 gave features differing from the whole batch by up to {NUM} .*",
             evaluate(_ctx(OneRowDiffers), _ex(n=6, split=5)))
    _matches(rf"a second map built with random_state=3 and fitted on another batch \(a data-independent map\) gave "
             rf"features differing by up to {NUM} \(round-off tolerance {NUM}\)", evaluate(_ctx(noisy_function), _ex()))


def test_identical_features_pass_at_a_zero_tolerance(monkeypatch):
    """A refit and a second map reproduce RFF bit for bit: at a zero round-off tolerance they still hold."""
    monkeypatch.setattr(exploration, "contract_tolerance", lambda *a: 0.0)
    assert evaluate(_ctx(RandomFourierFeatures), _ex()) is None


class DyadicOnFortran(RandomFourierFeatures):
    """Features 1/2 everywhere (exact in binary), 1/2 + 2^-10 for a Fortran-ordered input."""

    def transform(self, X):
        X = np.asarray(X)
        return np.full((X.shape[0], 4), 0.5 + (2.0 ** -10 if X.flags.f_contiguous and not X.flags.c_contiguous else 0))


@pytest.mark.parametrize("propagated,found", [(2.0 ** -11, None), (0.0, "2x")])
def test_the_propagated_bound_holds_on_equality_and_its_ratio_is_reported(monkeypatch, propagated, found):
    """A difference of exactly 2^-10 against tolerance 2^-11 plus a propagated round-off of 2^-11 (bound 2^-10) is
    round-off; with nothing propagated it is twice the bound."""
    monkeypatch.setattr(_Runner, "_roundoff_tolerance", lambda self, *a: 2.0 ** -11)
    monkeypatch.setattr(exploration, "propagated_roundoff", lambda *a: propagated)
    got = evaluate(_ctx(DyadicOnFortran, deterministic=True), _ex(layout="F"))
    assert got == found or got == (f"a F-layout input gave features differing from the same values C-ordered by up to "
                                   f"0.000977 (round-off tolerance 0.000488; {found} the round-off propagated through "
                                   f"the map's sensitivity)"), got


class HighGain(RandomFourierFeatures):
    """Random features of 1000 x: their change under a one-ulp perturbation of the input dominates the tolerance."""

    def transform(self, X):
        return super().transform(1000.0 * np.asarray(X))


@pytest.mark.parametrize("impl,decides", [(HighGain, "sensitivity"), (RandomFourierFeatures, "floor")])
def test_the_roundoff_tolerance_recomputed(impl, decides):
    """8 (d + 2) times the features' change under a relative perturbation of each input entry by one unit
    round-off with a random sign (drawn from the example's data seed), or 256 gamma_{d+2} max|F| if larger: the
    change decides for a high-gain map, the floor for plain random features."""
    ex = _ex(d=3, n=5)
    runner = _Runner(_ctx(impl), False, 64)
    X = runner.batch(ex, ex.n, ex.data_seed)
    fitted = runner.ctx.plugin.fit(ex.m, ex.random_state, X)
    F = fitted.transform(X)
    for dtype in (np.float64, np.float32):
        u = unit_roundoff(dtype)
        signs = np.where(np.random.default_rng(ex.data_seed).random(X.shape) < 0.5, -1.0, 1.0)
        assert 0 < (signs < 0).sum() < signs.size
        change = 8.0 * (3 + 2) * float(np.max(np.abs(fitted.transform(X * (1.0 + u * signs)) - F)))
        floor = 256.0 * roundoff_inner_product(3 + 2, dtype) * float(np.max(np.abs(F)))
        assert runner._roundoff_tolerance(ex, fitted, X, F, dtype) == max(change, floor), dtype
        assert (change > floor) == (decides == "sensitivity"), (dtype, change, floor)


class _Degree1:
    def __init__(self, gamma, coef0):
        self.gamma, self.coef0 = gamma, coef0

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        X = np.asarray(X, dtype=float)
        return np.hstack([np.sqrt(self.gamma) * X, np.full((len(X), 1), np.sqrt(self.coef0))])


def exact_degree1(n_components, random_state, *, gamma=0.5, coef0=1.0, degree=1):
    """The exact finite map of the polynomial kernel of degree 1, (sqrt(gamma) x, sqrt(coef0)): it draws nothing,
    so random_state rightly does not matter (its defaults are POLY1's parameters)."""
    assert degree == 1
    return _Degree1(gamma, coef0)


POLY1 = dict(kernel="polynomial", kernel_params={"gamma": 0.5, "coef0": 1.0, "degree": 1})


def test_an_exact_map_may_ignore_the_seed_at_the_examples_kernel_parameters(monkeypatch):
    """An exact map reproduces the kernel at the configuration's own parameters (gamma = 2 here, the check's kernel
    has 0.5), or at the check's when the configuration has none; a map that ignores the seed and is not exact is
    named, also when the two seeds' features differ by exactly the tolerance (0 here)."""
    ctx = _ctx(exact_degree1, **POLY1)
    assert evaluate(ctx, _ex(params=(("coef0", 1.0), ("degree", 1), ("gamma", 2.0)))) is None
    assert evaluate(ctx, _ex()) is None
    monkeypatch.setattr(exploration, "contract_tolerance", lambda *a: 0.0)
    _matches(rf"random_state=3 and 4 gave the same features at n_components=64 \(max difference 0, round-off "
             rf"tolerance 0\)", evaluate(_ctx(IgnoresSeed), _ex()))


def nearly_exact_degree1(n_components, random_state, *, gamma=1e-4, coef0=1e-3, degree=1):
    """Degree 1 again, at a small scale (max|K| ~ 1e-3), with coef0 off by 1e-11: not exact, and it ignores the seed."""
    return _Degree1(gamma, coef0 + 1e-11)


def test_the_exactness_slack_scales_with_the_kernel():
    """The slack for the kernel's own evaluation is 1e-12 max|K|: an error of 1e-11 at max|K| ~ 1e-3 is beyond it
    (a seed-ignoring map, named)."""
    ctx = _ctx(nearly_exact_degree1, kernel="polynomial", kernel_params={"gamma": 1e-4, "coef0": 1e-3, "degree": 1})
    _matches(rf"random_state=3 and 4 gave the same features at n_components=64 \(max difference 0, round-off "
             rf"tolerance {NUM}\)", evaluate(ctx, _ex()))


def test_the_documented_margins(monkeypatch):
    """8 (d + 2) times the measured sensitivity; at most the 64 largest rows over the tolerance are measured again
    with the propagated round-off (here 200 float32 rows computed in float16: every row is over)."""
    assert (ROUNDOFF_MARGIN, PROPAGATED_ROWS) == (8.0, 64)
    seen = []
    real = exploration.feature_sensitivity

    def recording(fitted, X, dtype):
        seen.append(len(X))
        return real(fitted, X, dtype)

    monkeypatch.setattr(exploration, "feature_sensitivity", recording)
    assert evaluate(_ctx(em.Float16Compute), _ex(dtype="float32", n=200)) is not None
    assert seen and max(seen) == 64


def _declaring(n_components, random_state):
    est = RandomFourierFeatures(n_components, random_state, gamma=0.5)
    est.rfverify_space = {"d": (2, 8)}  # declared on the object the factory builds
    return est


def test_a_factory_s_product_declares_the_space_and_a_user_kernel_fixes_d():
    r = _explore(_declaring)
    assert r.status == "pass" and r.details["space"]["d"] == [2, 8], r.details["space"]

    def rbf(X, Y):
        return np.exp(-0.25 * ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1))

    fixed = _explore(RandomFourierFeatures, kernel=rbf, kernel_params={})
    assert fixed.status == "pass" and fixed.details["space"]["d"] == [16, 16], fixed.details["space"]


class SeedZeroPerInstance(RandomFourierFeatures):
    """Seed 0 read as 'no seed' when the instance is first fitted: its own entropy, kept for refits (so a refit
    reproduces, a second instance does not)."""

    def fit(self, X, y=None):
        if not hasattr(self, "seed_"):
            self.seed_ = self.random_state if self.random_state else int(np.random.default_rng().integers(2 ** 31))
        rs, self.random_state = self.random_state, self.seed_
        try:
            return super().fit(X, y)
        finally:
            self.random_state = rs


def test_seed_zero_per_instance():
    r = _explore(SeedZeroPerInstance)
    assert r.status == "fail" and "observed: a second map built with random_state=0" in r.message, r.message
    assert r.details["holds_with_random_state_1"] is True and "likely cause: seed 0 is treated as 'no seed'" in r.message


def test_a_map_with_no_features_is_a_plugin_error_in_every_check():
    """Zero columns at the main configuration: the preflight names the plug-in (it was an internal error of its max
    over no features)."""
    report = rfverify.verify(NoFeatures, profile="quick", metrics=False, **RBF)
    for r in report.results:
        assert r.status == "error" and "NoFeatures: transform returned no features (shape (" in r.message, r.message
        assert "internal error" not in r.message


class NoFeatureAtOne(RandomFourierFeatures):
    """n_components // 2 cos/sin pairs, so none at n_components = 1 (the pairs convention, taken too far)."""

    def transform(self, X):
        F = super().transform(X)
        return F[:, :0] if self.n_components == 1 else F


def test_a_finding_without_a_likely_cause():
    r = _explore(NoFeatureAtOne)
    assert r.status == "fail" and "observed: returned 0 features; expected: " in r.message, r.message
    assert "likely cause" not in r.message and "holds_with_random_state_1" not in r.details
    assert r.details["minimal_example"]["m"] == 1 and r.message.endswith("(minimal configuration, shrunk by Hypothesis)")


class FailsOnce(RandomFourierFeatures):
    """Doubles its features on the 60th transform of the process, never again: a failure the replay cannot find."""

    calls = 0

    def transform(self, X):
        F = super().transform(X)
        type(self).calls += 1
        return 2 * F if type(self).calls == 60 else F


@pytest.mark.parametrize("deterministic", [False, True])
def test_a_failure_not_replayed_is_shown_as_first_found(deterministic):
    FailsOnce.calls = 0
    r = _explore(FailsOnce, deterministic=deterministic)
    assert r.status == "fail" and r.details["replayed"] is False
    assert (" (as first found, not shrunk: the failure did not happen again when replayed, so the plug-in is not "
            "deterministic there); likely cause: ") in r.message and "shrunk by Hypothesis" not in r.message, r.message
    exempt = "; declared deterministic: 'a different random_state gives different features' not required"
    assert r.message.endswith(exempt) == deterministic, r.message


def test_how_a_counterexample_is_shown():
    from rfverify.explore import Exploration

    shrunk = Exploration(counterexample=1, problem="p", calls=3, budget=5)
    assert shrunk.shown_as() == " (minimal configuration, shrunk by Hypothesis)"
    assert shrunk.shown_as("minimal") == " (minimal, shrunk by Hypothesis)"
    first = Exploration(counterexample=1, problem="p", calls=3, budget=5, replayed=False)
    assert first.shown_as() == first.shown_as("minimal") == (
        " (as first found, not shrunk: the failure did not happen again when replayed, so the plug-in is not "
        "deterministic there)")

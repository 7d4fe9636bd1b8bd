"""Plug-in forms, determinism of verdicts, error handling of the harness."""

from __future__ import annotations

import json

import numpy as np
import pytest

import rfverify
from rfverify.adapters import as_feature_map, to_numpy
from rfverify.errors import UsageError
from rfverify.implementations.rff import RandomFourierFeatures
from rfverify.seeding import SeedSource, stable_words

GAMMA = 0.5


def rff_factory(n_components, random_state):
    return RandomFourierFeatures(n_components, random_state, gamma=GAMMA)


def rff_function(X, n_components, random_state):
    return RandomFourierFeatures(n_components, random_state, gamma=GAMMA).fit(X).transform(X)


class ComplexRFF:
    """exp(i w.x) / sqrt(m): complex features; Re(Phi(x) conj Phi(y)) estimates the rbf kernel."""

    def __init__(self, n_components, random_state, gamma=1.0):
        self.n_components, self.random_state, self.gamma = n_components, random_state, gamma

    def fit(self, X):
        rng = np.random.default_rng(self.random_state)
        self.W_ = rng.normal(0, np.sqrt(2 * self.gamma), (X.shape[1], self.n_components))
        return self

    def transform(self, X):
        return np.exp(1j * (X @ self.W_)) / np.sqrt(self.n_components)


class FakeTensor:
    """Mimics a CPU torch tensor that requires grad: np.asarray fails until detached."""

    def __init__(self, a):
        self.a = a

    def detach(self):
        return self

    def cpu(self):
        return self.a

    def __array__(self, *args, **kw):
        raise RuntimeError("Can't call numpy() on Tensor that requires grad")


class TorchLike(RandomFourierFeatures):
    def transform(self, X):
        return FakeTensor(super().transform(X))


@pytest.mark.parametrize("impl,form", [
    (RandomFourierFeatures, "class"),
    (RandomFourierFeatures(8, 0, gamma=GAMMA), "instance"),
    (rff_factory, "factory"),
    (rff_function, "function"),
])
def test_plugin_forms_detected_and_pass(impl, form):
    assert as_feature_map(impl, kernel_params={"gamma": GAMMA}).form == form
    report = rfverify.verify(impl, kernel_params={"gamma": GAMMA}, profile="quick")
    assert report.passed, report.table()


def test_complex_and_torchlike_features_pass():
    for impl in (ComplexRFF, TorchLike):
        report = rfverify.verify(impl, kernel_params={"gamma": GAMMA}, bound=1.0 if impl is ComplexRFF else 2**0.5,
                                 profile="quick")
        assert report.passed, report.table()
    assert isinstance(to_numpy(FakeTensor(np.ones(2))), np.ndarray)


def test_kernel_param_passed_to_constructor_and_conflict_rejected():
    plugin = as_feature_map(RandomFourierFeatures, kernel_params={"gamma": GAMMA})
    assert plugin.passthrough == {"gamma": GAMMA}
    with pytest.raises(UsageError, match="disagrees"):
        as_feature_map(RandomFourierFeatures(8, 0, gamma=1.0), kernel_params={"gamma": GAMMA})


def test_instance_is_not_mutated():
    inst = RandomFourierFeatures(8, 0, gamma=GAMMA)
    rfverify.verify(inst, kernel_params={"gamma": GAMMA}, checks=["contract"])
    assert inst.get_params() == {"n_components": 8, "random_state": 0, "gamma": GAMMA}
    assert not hasattr(inst, "W_")


def test_seed_streams_are_stable_and_distinct():
    s = SeedSource(7)
    assert s.random_state("a", 1, trial=0) == SeedSource(7).random_state("a", 1, trial=0)
    assert s.random_state("a", 1, trial=0) != s.random_state("a", 1, trial=1)
    assert s.random_state("a", 1, trial=0) != SeedSource(8).random_state("a", 1, trial=0)
    assert stable_words("x") == (stable_words("x"))  # no per-process salt
    with pytest.raises(UsageError):
        SeedSource(-1)


def test_verdicts_do_not_depend_on_check_order_or_selection():
    kw = dict(kernel_params={"gamma": GAMMA}, bound=2**0.5, profile="quick")
    full = rfverify.verify(RandomFourierFeatures, **kw)
    for name in rfverify.check_names():
        alone = rfverify.verify(RandomFourierFeatures, checks=[name], **kw)[name]
        assert alone.to_dict() == full[name].to_dict()


def test_json_is_byte_identical_for_same_seed():
    kw = dict(kernel_params={"gamma": GAMMA}, profile="quick")
    a = rfverify.verify(RandomFourierFeatures, **kw).to_json()
    b = rfverify.verify(RandomFourierFeatures, **kw).to_json()
    assert a == b
    data = json.loads(a)
    for key in ("implementation", "kind", "target", "seed", "profile", "passed", "rfverify_version", "checks"):
        assert key in data
    for chk in data["checks"]:
        for key in ("check", "status", "statistic", "pvalue", "threshold", "effect", "message", "reproduce"):
            assert key in chk


def test_global_random_state_untouched_and_independent():
    np.random.seed(3)
    before = np.random.get_state()[1].copy()
    rfverify.verify(RandomFourierFeatures, kernel_params={"gamma": GAMMA}, profile="quick")
    assert np.array_equal(np.random.get_state()[1], before)


class NaNMap(RandomFourierFeatures):
    def transform(self, X):
        F = super().transform(X)
        F[0, 0] = np.nan
        return F


class WrongShape(RandomFourierFeatures):
    def transform(self, X):
        return super().transform(X)[:-1]


class Raises(RandomFourierFeatures):
    def fit(self, X, y=None):
        raise RuntimeError("boom")


class GlobalRNG(RandomFourierFeatures):
    def fit(self, X, y=None):
        np.random.rand()
        return super().fit(X)


@pytest.mark.parametrize("impl,needle", [
    (NaNMap, "non-finite"), (WrongShape, "shape"), (Raises, "fit raised RuntimeError: boom"),
])
def test_broken_plugins_give_error_status_not_exceptions(impl, needle):
    report = rfverify.verify(impl, kernel_params={"gamma": GAMMA}, profile="quick")
    assert report.exit_code == 2
    assert all(r.status == "error" for r in report.results)
    assert needle in report.results[0].message and impl.__name__ in report.results[0].message


def test_global_rng_consumption_is_a_plugin_error():
    res = rfverify.verify(GlobalRNG, kernel_params={"gamma": GAMMA}, checks=["reproducibility"])["reproducibility"]
    assert res.status == "error" and "global random state" in res.message and "random_state" in res.message


@pytest.mark.parametrize("kwargs,needle", [
    (dict(kernel="nope"), "unknown kernel"),
    (dict(kernel_params={"gamma": -1}), "out of range"),
    (dict(kernel_params={"sigma": 1}), "no parameter 'sigma'"),
    (dict(dim=0), "dim must be"),
    (dict(domain="cube"), "unknown domain"),
    (dict(profile="fast"), "unknown profile"),
    (dict(bound=-1), "bound"),
    (dict(checks=["nope"]), "unknown check"),
    (dict(xfail={"nope": "x"}), "unknown expected failure"),
])
def test_bad_user_input_raises_usage_error(kwargs, needle):
    with pytest.raises(UsageError, match=needle):
        rfverify.verify(RandomFourierFeatures, **kwargs)


def test_xfail_mapping():
    from tests.mutants.rff_mutants import HalfScale

    r = rfverify.verify(HalfScale, kernel_params={"gamma": GAMMA}, checks=["unbiasedness"],
                        xfail={"unbiasedness": "known scale bug"})["unbiasedness"]
    assert r.status == "xfail" and "known scale bug" in r.message
    r = rfverify.verify(RandomFourierFeatures, kernel_params={"gamma": GAMMA}, checks=["contract"],
                        xfail={"contract": "stale"})["contract"]
    assert r.status == "fail" and "remove" in r.message


def test_callable_kernel_and_domain():
    def rbf(X, Y):
        d2 = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
        return np.exp(-GAMMA * d2)

    def ball(n, d, rng):
        return rng.uniform(-0.3, 0.3, (n, d))

    report = rfverify.verify(RandomFourierFeatures(8, 0, gamma=GAMMA), kernel=rbf, domain=ball, profile="quick")
    assert report.passed, report.table()


def test_callable_kernel_scale_is_calibrated():
    from rfverify.domains import make_pairs
    from rfverify.kernels import as_kernel, get_kernel

    k = get_kernel("rbf", gamma=3.0)
    wrapped = as_kernel(lambda X, Y: k(X, Y))
    a = make_pairs("gaussian", 8, k, np.random.default_rng(0))
    b = make_pairs("gaussian", 8, wrapped, np.random.default_rng(0))
    assert b.scale == pytest.approx(a.scale, rel=0.3)
    assert a.exact.min() < 0.05 and a.exact.max() == 1.0

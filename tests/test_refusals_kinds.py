"""A clean refusal narrows the space of the orthogonal, quadrature, transform and kernel kinds (:mod:`rfverify.refusals`,
:mod:`rfverify.properties.space_guard`).

For every kind: a correct plug-in refusing a region (samplers d > 64, rules d = 1, transforms float32 input, kernels
d = 1) passes ``explore`` with the region stated in ``details["space"]["refused"]`` and the message; its twin that
crashes in the same region (ZeroDivisionError) or returns garbage there fails; a refusal that depends on the seed or
on the call's history is an error; ``strict_space`` fails the refusing twin; a refusal at the main configuration is
an error.  The statistical corners (Haar battery, rule-unbiasedness) set a refused corner aside, and a corner refused
inconsistently is an error.  And the vacuous property: "different seeds give different draws" is not required where
no rotation can change the draw (a mirror-symmetric rule at d = 1).
"""

from __future__ import annotations

import numpy as np
import pytest

from rfverify.implementations.orthogonal import haar_qr
from rfverify.implementations.quadrature import simplex_vertices, sr33_haar
from rfverify.implementations.structured import fwht_normalized
from rfverify.kinds.kernel import KernelConfig
from rfverify.kinds.orthogonal import OrthogonalConfig, verify_orthogonal
from rfverify.kinds.quadrature import QuadratureConfig
from rfverify.kinds.transform import TransformConfig
from rfverify.properties.exploration_quadrature import invariant_under_rotations
from rfverify.runner import run

SEED_RULE = "a refusal must not depend on the seed"


def _one(config, check="explore", strict=None):
    return run(config, checks=[check], isolate=False, strict_space=strict).results[0]


def _rules(res):
    return [r["rule"] for r in res.details["space"]["refused"]]


# ------------------------------------------------------------------------------------------ orthogonal samplers
def sampler_to_64(d, rng):
    """Correct Haar on O(d), and says so when asked for more than it supports."""
    if d > 64:
        raise ValueError("d > 64 is not supported")
    return haar_qr(d, rng)


def sampler_crashes_above_64(d, rng):
    if d > 64:
        raise ZeroDivisionError("d > 64 is not supported")
    return haar_qr(d, rng)


def sampler_garbage_above_64(d, rng):
    return 2.0 * haar_qr(d, rng) if d > 64 else haar_qr(d, rng)


def sampler_refuses_by_draw(d, rng):
    """Refuses d > 64 only when its first random bit is 1: a refusal that depends on the seed (a defect)."""
    if d > 64 and rng.integers(0, 2) == 1:
        raise ValueError("d > 64 is not supported")
    return haar_qr(d, rng)


def _orth(sampler, profile="quick", dim=16, check="explore", strict=None, **kw):
    return _one(OrthogonalConfig(sampler, dim=dim, profile=profile, **kw), check, strict)


def test_a_sampler_refusing_large_d_passes_explore_with_the_region_stated():
    res = _orth(sampler_to_64)
    assert res.status == "pass", res.message
    assert _rules(res) == ["d > 64"]
    rule = res.details["space"]["refused"][0]
    assert (rule["exception"], rule["message"], rule["action"]) == ("ValueError", "d > 64 is not supported",
                                                                    "sample(d, rng)")
    assert res.details["space"]["configurations_refused"] >= 1
    assert "; refuses d > 64 (ValueError: d > 64 is not supported))" in res.message, res.message
    assert res.details["space_searched"] == "d 1 … 256"


@pytest.mark.parametrize("twin,finding", [(sampler_crashes_above_64, "raised ZeroDivisionError"),
                                          (sampler_garbage_above_64, "not orthogonal")])
def test_its_twins_that_crash_or_return_garbage_there_fail(twin, finding):
    res = _orth(twin)
    assert res.status == "fail" and finding in res.message, res.message
    assert res.details["minimal_example"]["d"] == 65 and res.details["space"]["refused"] == []


def test_a_sampler_refusing_by_its_draw_is_an_error():
    res = _orth(sampler_refuses_by_draw)
    assert res.status == "error" and SEED_RULE in res.message, res.message


def test_strict_space_fails_the_refusing_sampler():
    res = _orth(sampler_to_64, strict=True)
    assert res.status == "fail", res.message
    assert "(strict space)" in res.message and "observed: refuses d > 64 (ValueError" in res.message, res.message
    assert "--strict-space" in res.reproduce


def test_a_refusal_at_the_declared_or_pinned_dimension_is_an_error():
    declared = _orth(sampler_to_64, dim=128)
    assert declared.status == "error" and "d > 64 is not supported" in declared.message, declared.message
    pinned = _orth(sampler_to_64, pins={"d": 100})
    assert pinned.status == "error" and "d > 64 is not supported" in pinned.message, pinned.message


def test_the_callers_space_narrows_the_dimensions_between_the_declaration_and_the_pins():
    def declared(d, rng):
        return haar_qr(d, rng)

    declared.rfverify_space = {"d": (2, 100)}
    res = _orth(declared, space={"d": (3, 40)})
    assert res.status == "pass" and res.details["space_searched"] == "d 3 … 40", res.message
    assert "--space d=3:40" in res.reproduce
    assert _orth(sampler_to_64, space={"d": (1, 64)}).details["space"]["refused"] == []


def test_the_verify_function_states_the_region_through_the_supervised_child():
    rep = verify_orthogonal(sampler_to_64, dim=16, profile="quick", checks=["explore"])
    assert rep.results[0].status == "pass" and _rules(rep.results[0]) == ["d > 64"]
    assert any(line.startswith("explore PASSED over d 1 … 256; refuses d > 64") for line in rep.coverage_lines())


# -- the Haar battery's corners (default profile: the corners d = 1 and d = 128 around the declared d = 8)
class SamplerRefusesLater:
    """Accepts d = 128 for its first two calls there (the probe), then refuses it: inconsistent."""

    calls = 0

    def __call__(self, d, rng):
        if d == 128:
            type(self).calls += 1
            if type(self).calls > 2:
                raise ValueError("d > 64 is not supported")
        return haar_qr(d, rng)


def _haar(sampler, **kw):
    return _orth(sampler, profile="default", dim=8, check="haar-determinant", **kw)


def test_a_haar_corner_the_sampler_refuses_is_set_aside():
    res = _haar(sampler_to_64)
    assert res.status == "pass", res.message
    refused = [c for c in res.details["corners"] if c["status"] == "refused"]
    assert refused == [{"d": 128, "status": "refused", "where": "d = 128",
                        "why": "ValueError: d > 64 is not supported"}]
    assert [c["status"] for c in res.details["corners"] if c["d"] == 1] == ["pass"]  # the other corner is judged
    assert res.message.endswith("; the corner d = 128 set aside (refused: ValueError: d > 64 is not supported)")
    assert res.details["alpha_split"]["corners_in_design"] == 2  # its share is not redistributed
    rep = run(OrthogonalConfig(sampler_to_64, dim=8), checks=["haar-determinant"], isolate=False)
    assert rep.coverage_lines() == ["haar-determinant: the corner d = 128 was set aside: ValueError: d > 64 is not "
                                    "supported"]


@pytest.mark.parametrize("sampler,words", [
    (sampler_crashes_above_64, "raised ZeroDivisionError"),  # not a refusal: an error, as before
    (sampler_refuses_by_draw, "at the corner d = 128 refused the call with seed"),  # one probe refused, one accepted
    (SamplerRefusesLater(), "accepted the corner d = 128 when probed, then refused it inside the check"),
])
def test_a_haar_corner_that_crashes_or_refuses_inconsistently_is_an_error(sampler, words):
    SamplerRefusesLater.calls = 0
    res = _haar(sampler)
    assert res.status == "error" and words in res.message, res.message


def test_a_pinned_haar_corner_the_sampler_refuses_is_an_error():
    res = _haar(sampler_to_64, pins={"d": 128})
    assert res.status == "error" and "d > 64 is not supported" in res.message, res.message


# ------------------------------------------------------------------------------------------ quadrature rules
def rule_from_2(d, rng):
    if d == 1:
        raise ValueError("d = 1 is not supported")
    return sr33_haar(d, rng)


def rule_crashes_at_1(d, rng):
    if d == 1:
        raise ZeroDivisionError("d = 1 is not supported")
    return sr33_haar(d, rng)


def rule_garbage_at_1(d, rng):
    P, w = sr33_haar(d, rng)
    return (P, 2.0 * w) if d == 1 else (P, w)


def rule_refuses_by_draw(d, rng):
    if d == 1 and rng.integers(0, 2) == 1:
        raise ValueError("d = 1 is not supported")
    return sr33_haar(d, rng)


def _quad(rule, profile="quick", dim=8, check="explore", strict=None, **kw):
    return _one(QuadratureConfig(rule, dim=dim, degree=3, profile=profile, **kw), check, strict)


def test_a_rule_refusing_d_1_passes_explore_with_the_region_stated():
    res = _quad(rule_from_2)
    assert res.status == "pass" and _rules(res) == ["d = 1"], res.message
    assert "; refuses d = 1 (ValueError: d = 1 is not supported))" in res.message, res.message
    assert res.details["space"]["refused"][0]["action"] == "rule(d, rng)"


@pytest.mark.parametrize("twin,finding", [(rule_crashes_at_1, "raised ZeroDivisionError"),
                                          (rule_garbage_at_1, "not exact at degree 0")])
def test_the_rules_twins_that_crash_or_return_garbage_at_d_1_fail(twin, finding):
    res = _quad(twin)
    assert res.status == "fail" and finding in res.message and res.details["minimal_example"]["d"] == 1, res.message


def test_a_rule_refusing_by_its_draw_is_an_error_and_strict_space_fails_the_refusing_rule():
    res = _quad(rule_refuses_by_draw)
    assert res.status == "error" and SEED_RULE in res.message, res.message
    strict = _quad(rule_from_2, strict=True)
    assert strict.status == "fail" and "observed: refuses d = 1 (ValueError" in strict.message, strict.message


def test_a_rule_refusing_its_declared_or_pinned_d_is_an_error():
    res = _quad(rule_from_2, dim=1)
    assert res.status == "error" and "d = 1 is not supported" in res.message, res.message
    pinned = _quad(rule_from_2, pins={"d": 1})
    assert pinned.status == "error" and "d = 1 is not supported" in pinned.message, pinned.message


def symmetric_rule(d, rng):
    """A degree-3 rule randomised by a Haar rotation alone (a fixed radius): at d = 1 the rotation is a sign and
    the point set {0, +-sqrt(3)} is symmetric, so every seed gives the same draw — correct behaviour."""
    rho = np.sqrt(d + 2.0)
    V = simplex_vertices(d) @ haar_qr(d, rng).T
    P = np.vstack([np.zeros((1, d)), rho * V, -rho * V])
    return P, np.r_[1 - d / rho ** 2, np.full(2 * (d + 1), d / (2 * (d + 1) * rho ** 2))]


def symmetric_rule_ignoring_rng(d, rng):
    return symmetric_rule(d, np.random.default_rng(0))


def test_different_draws_are_not_required_where_no_rotation_can_change_the_draw():
    ok = _quad(symmetric_rule)
    assert ok.status == "pass", ok.message
    bad = _quad(symmetric_rule_ignoring_rng)  # the twin that ignores its rng is caught at the first d where it shows
    assert bad.status == "fail" and "gave the same draw (the rng is ignored)" in bad.message, bad.message
    assert bad.details["minimal_example"]["d"] == 2


def test_invariance_under_every_rotation():
    P, w = symmetric_rule(1, np.random.default_rng(3))
    assert invariant_under_rotations(P, w)
    assert not invariant_under_rotations(P + 0.1, w)  # shifted: a sign flip changes it
    assert not invariant_under_rotations(P, w + np.r_[0, 0.1, -0.1, 0, 0])  # the weights of x and -x differ
    assert not invariant_under_rotations(*symmetric_rule(2, np.random.default_rng(3)))
    assert invariant_under_rotations(np.zeros((1, 3)), np.ones(1))  # every point at the origin


# -- rule-unbiasedness' corners (default: the corners d = 1 and d = 64 around the declared d = 8)
class RuleRefusesLater:
    calls = 0

    def __call__(self, d, rng):
        if d == 1:
            type(self).calls += 1
            if type(self).calls > 2:
                raise ValueError("d = 1 is not supported")
        return sr33_haar(d, rng)


def _unbiased(rule, **kw):
    return _quad(rule, profile="default", check="rule-unbiasedness", **kw)


def test_a_rule_unbiasedness_corner_the_rule_refuses_is_set_aside():
    res = _unbiased(rule_from_2)
    assert res.status == "pass", res.message
    assert res.details["corners"][0] == {"d": 1, "status": "refused", "where": "d = 1",
                                         "why": "ValueError: d = 1 is not supported"}
    assert [(c["d"], c["status"]) for c in res.details["corners"][1:]] == [(64, "pass")]
    assert res.message.endswith("; at the corner dimension d = 64 too; the corner d = 1 set aside (refused: "
                                "ValueError: d = 1 is not supported)"), res.message


@pytest.mark.parametrize("rule,words", [
    (rule_crashes_at_1, "raised ZeroDivisionError"),
    (rule_refuses_by_draw, "at the corner d = 1 refused the call with seed"),
    (RuleRefusesLater(), "accepted the corner d = 1 when probed, then refused it inside the check"),
])
def test_a_rule_unbiasedness_corner_that_crashes_or_refuses_inconsistently_is_an_error(rule, words):
    RuleRefusesLater.calls = 0
    res = _unbiased(rule)
    assert res.status == "error" and words in res.message, res.message


# ------------------------------------------------------------------------------------------ transforms
def fwht_float64_only(X):
    if X.dtype == np.float32:
        raise TypeError("float32 input is not supported")
    return fwht_normalized(X)


def fwht_crashes_on_float32(X):
    if X.dtype == np.float32:
        raise ZeroDivisionError("float32 input is not supported")
    return fwht_normalized(X)


def fwht_garbage_on_float32(X):
    Y = fwht_normalized(X)
    return 1.5 * Y if X.dtype == np.float32 else Y


class FwhtRefusesEverySecondCall:
    """Refuses float32 input on every second call: the replay of a refusal is accepted (a defect)."""

    calls = 0

    def __call__(self, X):
        if X.dtype == np.float32:
            type(self).calls += 1
            if type(self).calls % 2:
                raise TypeError("float32 input is not supported")
        return fwht_normalized(X)


def fwht_not_at_16(X):
    if X.shape[1] == 16:
        raise ValueError("width 16 is not supported")
    return fwht_normalized(X)


def _transform(fn, dim=64, strict=None, **kw):
    return _one(TransformConfig(fn, dim=dim, matrix="hadamard-normalized", profile="quick", **kw), "explore", strict)


def test_a_transform_refusing_float32_passes_explore_with_the_region_stated():
    res = _transform(fwht_float64_only)
    assert res.status == "pass" and _rules(res) == ["float32 input"], res.message
    assert "; refuses float32 input (TypeError: float32 input is not supported)" in res.message, res.message
    assert res.details["space"]["refused"][0]["action"] == "apply(X)"


@pytest.mark.parametrize("twin,finding", [(fwht_crashes_on_float32, "raised ZeroDivisionError"),
                                          (fwht_garbage_on_float32, "float32")])
def test_the_transforms_twins_that_crash_or_return_garbage_on_float32_fail(twin, finding):
    res = _transform(twin)
    assert res.status == "fail" and finding in res.message and res.details["minimal_example"]["dtype"] == "float32", \
        res.message


def test_an_inconsistent_transform_is_an_error_and_strict_space_fails_the_refusing_one():
    FwhtRefusesEverySecondCall.calls = 0
    res = _transform(FwhtRefusesEverySecondCall())
    assert res.status == "error" and "the same configuration and seed, replayed" in res.message, res.message
    strict = _transform(fwht_float64_only, strict=True)
    assert strict.status == "fail" and "observed: refuses float32 input" in strict.message, strict.message


def test_a_transform_refusing_its_declared_width_is_an_error():
    res = _transform(fwht_not_at_16, dim=16)
    assert res.status == "error" and "width 16 is not supported" in res.message, res.message
    away = _transform(fwht_not_at_16, dim=64)
    assert away.status == "pass" and _rules(away) in ([], ["d = 16"]), away.message  # met or not by the search


def test_the_callers_space_narrows_the_widths():
    res = _transform(fwht_normalized, space={"d_exp": (2, 4)})
    assert res.status == "pass" and res.details["space_searched"].startswith("d = 2^2 … 2^4,"), res.message
    by_d = _transform(fwht_normalized, space={"d": (3, 40)})
    assert by_d.status == "pass" and by_d.details["space_searched"].startswith("d = 2^2 … 2^5,"), by_d.message


# ------------------------------------------------------------------------------------------ kernels
def _rbf(X, Y):
    d2 = (X ** 2).sum(1)[:, None] + (Y ** 2).sum(1)[None, :] - 2.0 * X @ Y.T
    return np.exp(-0.5 * np.maximum(d2, 0.0))


def kernel_from_d2(X, Y):
    if X.shape[1] == 1:
        raise ValueError("d = 1 is not supported")
    return _rbf(X, Y)


def kernel_crashes_at_d1(X, Y):
    if X.shape[1] == 1:
        raise ZeroDivisionError("d = 1 is not supported")
    return _rbf(X, Y)


def kernel_garbage_at_d1(X, Y):
    return _rbf(X, Y) + X[:, :1] if X.shape[1] == 1 else _rbf(X, Y)


class KernelRefusesEverySecondCall:
    calls = 0

    def __call__(self, X, Y):
        if X.shape[1] == 1:
            type(self).calls += 1
            if type(self).calls % 2:
                raise ValueError("d = 1 is not supported")
        return _rbf(X, Y)


def _kernel(k, dim=8, strict=None, **kw):
    return _one(KernelConfig(k, dim=dim, profile="quick", **kw), "explore", strict)


def test_a_kernel_refusing_d_1_passes_explore_with_the_region_stated():
    res = _kernel(kernel_from_d2)
    assert res.status == "pass" and _rules(res) == ["d = 1"], res.message
    assert "; refuses d = 1 (ValueError: d = 1 is not supported))" in res.message, res.message
    assert res.details["space"]["refused"][0]["action"] == "k(X, Y)"


@pytest.mark.parametrize("twin,finding", [(kernel_crashes_at_d1, "raised ZeroDivisionError"),
                                          (kernel_garbage_at_d1, "not symmetric")])
def test_the_kernels_twins_that_crash_or_return_garbage_at_d_1_fail(twin, finding):
    res = _kernel(twin)
    assert res.status == "fail" and finding in res.message and res.details["minimal_example"]["d"] == 1, res.message


def test_an_inconsistent_kernel_is_an_error_strict_space_fails_and_the_main_configuration_stays_an_error():
    KernelRefusesEverySecondCall.calls = 0
    res = _kernel(KernelRefusesEverySecondCall())
    assert res.status == "error" and "the same configuration and seed, replayed" in res.message, res.message
    strict = _kernel(kernel_from_d2, strict=True)
    assert strict.status == "fail" and "observed: refuses d = 1 (ValueError" in strict.message, strict.message
    main = _kernel(kernel_from_d2, dim=1)
    assert main.status == "error" and "d = 1 is not supported" in main.message, main.message

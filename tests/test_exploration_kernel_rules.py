"""The rules of a kernel's ``explore`` (:mod:`rfverify.properties.exploration_kernel`) at one configuration: each
property's finding on a kernel planted to break it there, in full; the example's description and pins; the
parameter strategies; the refinement of a failing parameter towards its simplest value; and the verdict's texts
with each likely cause.

The search (corner kernels found with their minimal configuration under 21 seeds, twins passing) is measured in
``tests/test_exploration_rules_kernels.py``.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings

import rfverify.properties.exploration_kernel as ek
from rfverify.explore import Exploration
from rfverify.kinds.kernel import KernelConfig, verify_kernel
from rfverify.properties.exploration_kernel import KernelExample, _param, _refine_param
from tests.mutants import kernel_mutants as M

NUM = r"[0-9.e+-]+"


def _runner(kernel, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = KernelConfig(kernel, dim=16, profile="quick", **kw)
    return ek._Runner(config.context(next(s for s in config.checks() if s.name == "explore")))


def _ex(**kw):
    return KernelExample(**{**dict(d=4, n=6, norm="typical", params=(), data_seed=3), **kw})


def _matches(pattern, text):
    assert text is not None and re.fullmatch(pattern, text), text


def test_an_example_describes_itself_and_its_pins():
    ex = _ex(n=1, params=(("gamma", 0.5),))
    assert ex.describe() == "d = 4, 1 point, typical norms, gamma=0.5 (data_seed=3)"
    assert _ex().describe() == "d = 4, 6 points, typical norms (data_seed=3)"
    assert ex.pins() == ["--pin", "d=4", "--pin", "n=1", "--pin", "norm=typical", "--pin", "data_seed=3",
                         "--pin", "gamma=0.5"]


@settings(max_examples=60, derandomize=True, database=None)
@given(_param(1e-3, 1e3, "log"), _param(0.1, 0.9, "linear"), _param(1, 5))
def test_parameter_values_stay_in_range_with_three_significant_digits(log_v, lin_v, int_v):
    assert 1e-3 <= log_v <= 1e3 and float(f"{log_v:.3g}") == log_v
    assert 0.1 <= lin_v <= 0.9 and float(f"{lin_v:.3g}") == lin_v
    assert isinstance(int_v, int) and 1 <= int_v <= 5


def asymmetric_at_all(X, Y):
    return M.asymmetric_rbf(X, Y)


def asymmetric_on_square_blocks(X, Y):
    """Asymmetric only where X and Y have as many rows (K(Z, Z), not the 3 x 4 blocks of 7 points)."""
    return M.asymmetric_rbf(X, Y) if X.shape[0] == Y.shape[0] else M.rbf(X, Y)


def batch_scaled(X, Y):
    return M.rbf(X, Y) * (1.0 + 0.01 * X.shape[0])


def first_row_scaled(X, Y):
    return M.rbf(X, Y) * (1.0 + 0.25 * abs(X[0, 0]))


def test_each_property_broken_at_one_configuration_is_named_in_full():
    _matches(rf"not symmetric: the Gram matrix K\(Z, Z\) vs its transpose: k\(x, y\) = {NUM} but k\(y, x\) = {NUM} "
             rf"\(\|difference\| {NUM} > round-off tolerance {NUM}\)", _runner(asymmetric_on_square_blocks)(_ex(n=7)))
    _matches(rf"not symmetric: k\(x, y\) vs k\(y, x\) across K\(X, Y\) and K\(Y, X\): k\(x, y\) = {NUM} but k\(y, x\) = "
             rf"{NUM} \(\|difference\| {NUM} > round-off tolerance {NUM}\)", _runner(first_row_scaled)(_ex()))
    _matches(rf"k\(x, y\) depends on the other points of the batch: the same pair gave values differing by {NUM} in a "
             rf"Gram matrix of 6 points and in one of 3 x 3 \(round-off tolerance {NUM}\)", _runner(batch_scaled)(_ex()))
    _matches(rf"not normalised: k\(x, x\) = 2 at a point of norm {NUM} \(expected 1 ± {NUM}, the round-off "
             rf"tolerance\)", _runner(M.twice_rbf(), normalized=True)(_ex()))
    _matches(rf"not positive semi-definite: the Gram matrix of 6 points has smallest eigenvalue {NUM} < -{NUM} "
             rf"\(round-off tolerance\); witness: points \[\d+(, \d+)*\] of the batch, whose own Gram matrix has "
             rf"eigenvalue -{NUM}", _runner(M.tanh_kernel)(_ex(norm="large")))
    assert _runner(M.tanh_kernel, psd=False)(_ex(norm="large")) is None  # declared not PSD: not held to it
    assert _runner(M.twice_rbf())(_ex()) is None  # not claimed normalised
    assert _runner(batch_scaled)(_ex(n=1)) is None  # one point: no other points to depend on
    assert _runner(batch_scaled)(_ex(n=2)).startswith("k(x, y) depends on the other points of the batch: the same "
                                                      "pair gave values differing by ")


def raises_at_d_2(X, Y):
    if X.shape[1] == 2:
        raise ValueError("no kernel at d = 2")
    return M.rbf(X, Y)


def overflows(X, Y):
    """Finite at the declared d = 16 (where the kernel is screened), overflowing at d <= 3."""
    return np.exp(1e4 * (X @ Y.T)) if X.shape[1] <= 3 else M.rbf(X, Y)


def test_overflow_is_outside_the_space_only_at_large_norms():
    assert _runner(overflows)(_ex(d=2, norm="large")) is None
    got = _runner(overflows)(_ex(d=2, norm="typical"))
    assert got.startswith("the kernel returned non-finite values: ") and "non-finite" in got[40:], got
    failed = _runner(raises_at_d_2)(_ex(d=2))
    assert failed.startswith("the kernel failed: ") and "no kernel at d = 2" in failed, failed


def test_a_failing_parameter_moves_to_its_simplest_value_or_the_threshold_where_it_breaks():
    def prop(ex):
        p = dict(ex.params)
        return "bad" if p.get("w", 0) > 0.5 or p.get("k", 0) >= 3 else None

    start = _ex(params=(("k", 5), ("w", 0.2)))
    ints = _refine_param(Exploration(start, "bad", 4, 4, True, ()), "k", (1, 9), 1, prop)
    assert dict(ints.counterexample.params)["k"] == 3 and ints.calls == 4 + 3  # tried 1, 2 and 3: the first that fails
    down = _refine_param(Exploration(_ex(params=(("k", 5), ("w", 0.2))), "bad", 4, 4, True, ()), "k", (1, 9), 9,
                         lambda ex: "bad" if dict(ex.params)["k"] <= 7 else None)
    assert dict(down.counterexample.params)["k"] == 7  # from the simplest value 9 downwards: 9, 8, then 7 fails
    start = _ex(params=(("k", 1), ("w", 0.8)))
    found = Exploration(start, "bad", 4, 4, True, ())
    floats = _refine_param(found, "w", (0.1, 0.9, "linear"), 0.1, prop)
    w = dict(floats.counterexample.params)["w"]
    assert 0.5 < w <= 0.51 and floats.problem == "bad"  # the bisection stops at 3 significant digits
    assert floats.calls > found.calls and len(floats.tried) == floats.calls - found.calls
    logs = _refine_param(found, "w", (0.01, 1.0, "log"), 0.01, prop)
    assert 0.5 < dict(logs.counterexample.params)["w"] <= 0.51
    assert _refine_param(found, "w", (0.1, 0.9, "linear"), 0.8, prop) is found  # already at its simplest value
    assert _refine_param(found, "absent", (0.1, 0.9), 0.1, prop) is found
    simplest_fails = Exploration(start, "bad", 4, 4, True, ())
    assert dict(_refine_param(simplest_fails, "w", (0.1, 0.9, "linear"), 0.6, prop).counterexample.params)["w"] == 0.6


def _explore(kernel, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return verify_kernel(kernel, profile="quick", checks=["explore"], **kw)["explore"]


def test_the_verdict_texts():
    ok = _explore("rbf")
    assert ok.status == "pass" and re.fullmatch(
        r"\d+ configurations, symmetric, batch-independent, normalised, PSD at every one \(space: .+\)", ok.message)
    plain = _explore(M.rbf)
    assert re.fullmatch(r"\d+ configurations, symmetric, batch-independent, PSD at every one \(space: .+\)",
                        plain.message), plain.message
    assert _explore("sigmoid").message.split(" at every one")[0].endswith("symmetric, batch-independent")
    bad = _explore(asymmetric_at_all)
    ex = bad.details["minimal_example"]
    exa = KernelExample(ex["d"], ex["n"], ex["norm"], tuple(sorted(ex["params"].items())), ex["data_seed"])
    assert bad.status == "fail" and bad.details["replayed"] is True
    assert bad.message.startswith("the kernel breaks in a corner of its configuration space — observed: not "
                                  "symmetric: "), bad.message
    assert (f"expected: symmetric, batch-independent, normalised where claimed and PSD where declared, at every "
            f"configuration of the space; where: {exa.describe()} (minimal configuration, shrunk by Hypothesis); "
            f"likely cause: x and y play different roles at this configuration (a fast path above some d, a "
            f"one-sided scaling?)") in bad.message, bad.message
    assert bad.reproduce.endswith(" " + " ".join(exa.pins()))
    assert ex["d"] == 1 or "d = 1" not in bad.message  # shrunk to the smallest d that fails


@pytest.mark.parametrize("kernel,kw,cause", [
    (batch_scaled, {}, "the value is computed from the whole batch (a parameter clipped or rescaled from the data, "
                       "a chunked evaluation?)"),
    (M.twice_rbf(), {"normalized": True}, "k(x, x) != 1 at these parameters (a parameter clipped 'for stability' "
                                          "in one term only?)"),
    (M.tanh_kernel, {}, "not a kernel at these parameters (a clipped or truncated expression?)"),
    (overflows, {}, "the kernel overflows at typical inputs for these parameters"),
    (raises_at_d_2, {}, "the kernel does not handle this configuration: fix it, or declare its space (rfverify_space)"),
])
def test_each_finding_comes_with_its_likely_cause(kernel, kw, cause):
    r = _explore(kernel, **kw)
    assert r.status == "fail" and f"; likely cause: {cause}" in r.message, r.message


def raises_with_keywords(X, Y):
    if X.shape[1] == 2:
        raise ValueError("not symmetric inputs, non-finite and not normalised here")
    return M.rbf(X, Y)


def test_a_kernel_s_own_words_do_not_choose_the_cause():
    r = _explore(raises_with_keywords)
    assert r.message.endswith("; likely cause: the kernel does not handle this configuration: fix it, or declare "
                              "its space (rfverify_space)"), r.message

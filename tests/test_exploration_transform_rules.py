"""The transform exploration's rules, pinned: which widths it searches (registry matrix, user matrix,
declared ``d_exp``, the dense cap, a pinned d), how it names them and an example, and what counts as a problem
at one explored call (a failing call, an undeclared in-place write)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from rfverify.implementations.structured import fwht, fwht_normalized
from rfverify.kinds.transform import TransformConfig, verify_transform
from rfverify.properties.exploration_transform import TransformExample
from rfverify.spaces import TransformSpace, transform_space


def _ctx(fn, **kw):
    config = TransformConfig(fn, **kw)
    return config.context(next(s for s in config.checks() if s.name == "explore"))


def _dense(d):
    from scipy.linalg import hadamard

    return hadamard(d).astype(float) if d >= 1 and not d & (d - 1) else None


def with_space(space):
    def f(X):
        return fwht(X)
    f.rfverify_space = space
    return f


@pytest.mark.parametrize("fn,kw,widths", [
    (fwht, {}, tuple(2 ** k for k in range(15))),  # a registry matrix: 2^0 ... 2^14
    (with_space({"d_exp": (3, 5)}), {}, (8, 16, 32)),  # narrowed by the transform's declaration
    (fwht, {"matrix": _dense, "dim": 16}, (16,)),  # a user's matrix: the declared d only
    (with_space({"d_exp": (2, 12)}), {"matrix": _dense, "dim": 16},
     tuple(2 ** k for k in range(2, 11))),  # ... unless declared, capped at 2^10 (a dense d x d float64: 8 MB)
    (with_space({"d_exp": (12, 13)}), {"matrix": _dense, "dim": 16}, (4096,)),  # the cap never below the floor
    (with_space({"d": (1, 8)}), {}, tuple(2 ** k for k in range(15))),  # a d range is no width exponent range
    (fwht, {"pins": {"d": 32}}, (32,)),  # a pinned d alone
    (np.copy, {"matrix": np.eye, "dim": 12, "pins": {"d": 12}}, (12,)),  # ... a power of two or not
    (np.copy, {"matrix": np.eye, "dim": 12, "space": {"d": 12}}, (12,)),  # the caller's one width, as a pin
    (np.copy, {"matrix": np.eye, "dim": 12, "space": {"d": (3, 40)}}, (4, 8, 16, 32)),  # a range: its powers of two
])
def test_the_widths_searched(fn, kw, widths):
    assert transform_space(_ctx(fn, **kw).config).widths == widths


def test_widths_and_an_example_are_named_as_a_reader_would():
    assert TransformSpace(only=16).describe_widths() == "d = 16"
    assert TransformSpace((3, 4)).describe_widths() == "d = 2^3 … 2^4"
    assert TransformSpace().describe_widths() == "d = 2^0 … 2^14"
    assert TransformExample(4, 1, "float64", "C", 0).describe() == "d = 4, a batch of 1 row, float64, C-layout"
    assert TransformExample(8, 3, "float32", "F", 9).describe() == "d = 8, a batch of 3 rows, float32, F-layout"


def test_an_example_is_a_value():
    ex = TransformExample(4, 1, "float64", "C", 0)
    assert hash(ex) == hash(TransformExample(4, 1, "float64", "C", 0))
    with pytest.raises(dataclasses.FrozenInstanceError):
        ex.d = 8


def _explore(fn, **kw):
    return verify_transform(fn, dim=16, checks=["explore"], **kw)["explore"]


def test_a_call_that_fails_somewhere_in_the_space_is_the_problem_found():
    def crashes_at_width_2(X):
        if X.shape[1] == 2:
            raise ZeroDivisionError("width 2 is not supported")
        return fwht(X)

    res = _explore(crashes_at_width_2)
    assert res.status == "fail"
    assert res.message == (
        "apply(X) != X @ M.T in a corner of the space — observed: the transform failed: crashes_at_width_2: apply on a "
        "valid float64 input of shape (1, 2) raised ZeroDivisionError: width 2 is not supported — apply must accept any "
        "(n, d) batch; expected: exact to round-off at every width, batch, dtype and layout (d = 2^0 … 2^14, batches "
        "n d <= 2^18, float32/float64, layouts C/F/strided); where: d = 2, a batch of 1 row, float64, C-layout "
        "(minimal, shrunk by Hypothesis); likely cause: a code path of its own at this width, dtype or layout")
    assert res.reproduce.endswith(" --profile default --check explore --pin d=2"), res.reproduce
    assert res.details["minimal_example"] == {"d": 2, "n": 1, "dtype": "float64", "layout": "C", "seed": 0}

    def refuses_width_2(X):  # the same region refused cleanly (a ValueError): set aside, and said
        if X.shape[1] == 2:
            raise ValueError("width 2 is not supported")
        return fwht(X)

    ok = _explore(refuses_width_2)
    assert ok.status == "pass" and "refuses d = 2 (ValueError: width 2 is not supported)" in ok.message, ok.message


def test_the_smallest_widths_are_always_tried_with_one_row():
    assert TransformSpace((0, 3)).explicit() == [TransformExample(d, 1, "float64", "C", 0) for d in (1, 2, 4)]
    assert TransformSpace(only=16).explicit() == [TransformExample(16, 1, "float64", "C", 0)]


def test_an_undeclared_in_place_write_is_a_problem_and_a_declared_one_is_not():
    def in_place(X):
        Y = fwht(X)
        X[...] = Y
        return Y

    res = _explore(in_place)
    assert res.status == "fail"
    assert "observed: apply modified its input in place (not declared inplace)" in res.message, res.message
    assert _explore(in_place, inplace=True).status == "pass"
    assert _explore(fwht_normalized, matrix="hadamard-normalized").status == "pass"


def _refusing(when, why):
    def transform(X):
        if when(np.asarray(X)):
            raise ValueError(why)
        return fwht(X)
    return transform


@pytest.mark.parametrize("when,why,said", [
    (lambda X: X.dtype == np.float32, "no float32", "refuses float32 input (ValueError: no float32)"),
    (lambda X: X.shape[0] == 3, "no 3 rows", "refuses batches of 3 rows (ValueError: no 3 rows)"),
    (lambda X: not X.flags.c_contiguous, "C only",
     "refuses Fortran-ordered input or strided (non-contiguous) input (ValueError: C only)"),
])
def test_a_refused_region_away_from_the_main_call_is_set_aside_and_named_along_its_axis(when, why, said):
    """The main call (the declared width, 2 rows, float64, C-ordered) is judged; a clean refusal elsewhere narrows the
    space, named along the axis it lies on (dtype, batch, layout), and under strict_space fails with the space in
    its details."""
    res = _explore(_refusing(when, why))
    assert res.status == "pass" and said in res.message, res.message
    strict = _explore(_refusing(when, why), strict_space=True)
    assert strict.status == "fail" and strict.details["space"]["refused"], strict.details


@pytest.mark.parametrize("when,kw", [(lambda X: X.shape[1] == 16, {}), (lambda X: X.shape[1] == 8, {"pins": {"d": 8}}),
                                     (lambda X: X.shape[0] == 2, {})])
def test_a_refusal_at_the_main_call_is_never_set_aside(when, kw):
    assert _explore(_refusing(when, "not this one"), **kw).status != "pass"


def test_a_pinned_width_is_the_main_call_and_a_refusal_elsewhere_still_narrows():
    res = _explore(_refusing(lambda X: X.dtype == np.float32, "no float32"), pins={"d": 8})
    assert res.status == "pass" and "refuses float32 input" in res.message, res.message


def test_a_refusal_that_depends_on_the_values_is_an_error_naming_the_call():
    res = _explore(_refusing(lambda X: X.dtype == np.float32 and X.flat[0] > 0, "positive float32"))
    assert res.status == "error" and "a refusal must not depend on the seed" in res.message, res.message
    assert "at apply(X))" in res.message, res.message

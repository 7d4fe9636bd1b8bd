"""The transform contract's decision rules, pinned directly: which inputs the input check looks at,
what an in-place declaration allows, and which widths the dimension probe tries.

Each test names the hostile transform it plants; every one of them is a real way a fast transform goes wrong
(an in-place kernel for one dtype only, a write through a view's base, a refusal of strided input).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from rfverify.implementations.structured import fwht
from rfverify.kinds.transform import DeclaredMatrix, verify_transform
from rfverify.properties.transform_contract import _probe_dims

D = 64
OUT_OF_PLACE = "an in-place transform presented as out-of-place — copy the input, or declare --inplace"


def _input_check(f, inplace=False):
    return verify_transform(f, dim=D, inplace=inplace, checks=["transform-input"])["transform-input"]


def contiguous_only(X):
    """Refuses a strided view (a legitimate choice: the caller is told to pass contiguous arrays)."""
    if not X.flags.c_contiguous:
        raise ValueError("needs C-contiguous input")
    return fwht(X)


def in_place_for_float32(X):
    """Out of place for float64, in place for float32: the float64 case passing must not end the check."""
    return fwht(X, inplace=X.dtype == np.float32)


def writes_one_entry_of_a_view(X):
    Y = fwht(X)
    if not X.flags.c_contiguous:
        X[0, 0] = 0.0
    return Y


def in_place_but_float32_garbage(X):
    Y = fwht(X)
    X[:] = 7.0 if X.dtype == np.float32 else Y
    return Y


def in_place_and_through_the_base(X):
    """In place as declared, but also zeroes the rows of the parent array the view does not show."""
    Y = fwht(X)
    X[:] = Y
    if X.base is not None:
        X.base[1::2] = 0.0
    return Y


def in_place(X):
    Y = fwht(X)
    X[:] = Y
    return Y


def test_a_strided_view_refused_is_a_note_not_a_failure():
    res = _input_check(contiguous_only)
    assert res.status == "pass", res.message
    note = ("a strided view raised (apply on a valid float64 input of shape (5, 64) raised ValueError: "
            "needs C-contiguous input); pass contiguous arrays")
    assert res.details["notes"] == [note]
    assert res.message == f"caller's arrays unchanged ({note})"


def test_a_refusal_of_a_contiguous_input_is_an_error():
    res = _input_check(lambda X: fwht(X) if X.dtype == np.float32 else 1 / 0)
    assert res.status == "error" and "ZeroDivisionError" in res.message


@pytest.mark.parametrize("f,where,changed", [
    (in_place_for_float32, "float32 input of shape (5, 64)", "320 of 320"),
    (writes_one_entry_of_a_view, "strided view input of shape (5, 64)", "1 of 640"),
])
def test_every_input_case_is_compared_after_an_unchanged_one(f, where, changed):
    res = _input_check(f)
    assert res.status == "fail"
    assert res.message == (f"apply modified its input — observed: {changed} entries of the caller's array changed; "
                           f"expected: the caller's array bit-for-bit unchanged; where: {where}; "
                           f"likely cause: {OUT_OF_PLACE}")
    assert res.details == {"inplace_declared": False, "notes": []}


def test_declared_in_place_transform_passes_and_says_so():
    res = _input_check(in_place, inplace=True)
    assert res.status == "pass", res.message
    notes = [f"{label}: transformed in place, as declared" for label in ("float64", "float32", "strided view")]
    assert res.details == {"inplace_declared": True, "notes": notes}
    assert res.message == "caller's arrays unchanged or transformed in place, as declared (" + "; ".join(notes) + ")"


def test_undeclared_in_place_transform_fails_on_every_case():
    res = _input_check(in_place)
    assert res.status == "fail"
    for where, changed in (("float64 input", "320 of 320"), ("float32 input", "320 of 320"),
                           ("strided view input", "320 of 640")):
        assert f"{changed} entries of the caller's array changed; expected: the caller's array bit-for-bit " \
               f"unchanged; where: {where} of shape (5, 64)" in res.message
    assert res.message.endswith(f"likely cause: {OUT_OF_PLACE}")


@pytest.mark.parametrize("f,where,notes", [
    (in_place_but_float32_garbage, "float32 input of shape (5, 64)", ["float64", "strided view"]),
    (in_place_and_through_the_base, "strided view input of shape (5, 64)", ["float64", "float32"]),
])
def test_declared_in_place_allows_the_input_or_the_result_and_nothing_else(f, where, notes):
    res = _input_check(f, inplace=True)
    assert res.status == "fail"
    assert f"entries of the caller's array changed to something that is neither the input nor the result; " \
           f"expected: the caller's array holding the input or the result (in place, as declared); " \
           f"where: {where}" in res.message
    assert "likely cause" not in res.message  # declared in place: no "presented as out-of-place" hint
    assert res.details["notes"] == [f"{label}: transformed in place, as declared" for label in notes]


def _matrix_defined_at(widths):
    return DeclaredMatrix(lambda d: np.eye(d) if d in widths else None)


@pytest.mark.parametrize("d,defined,probes", [
    (64, {64}, [65, 63]),
    (64, {64, 65}, [63, 66]),
    (64, {63, 64}, [65, 66]),
    (64, {63, 64, 65}, [66, 3]),
    (64, {3, 63, 64, 65}, [66, 129]),
    (64, {63, 64, 65, 66}, [3, 129]),
    (64, {3, 63, 64, 65, 66}, [129]),
    (64, {3, 63, 64, 65, 66, 129}, []),
    (1, {1}, [2, 3]),  # d - 1 = 0 is no width
    (2, {2}, [3, 1]),  # d - 1 = 1 is one
])
def test_the_probe_tries_the_first_two_undefined_of_its_candidates(d, defined, probes):
    ctx = SimpleNamespace(dim=d, config=SimpleNamespace(matrix=_matrix_defined_at(defined)))
    assert _probe_dims(ctx) == probes


def test_an_identity_that_takes_every_width_fails_the_probe_at_the_widths_it_names():
    report = verify_transform(lambda X: X.copy(), dim=D, matrix=lambda d: np.eye(d) if d in (63, 64, 65) else None,
                              checks=["transform-dimension"])
    res = report["transform-dimension"]
    assert res.status == "fail"
    assert res.details["probes"] == [66, 3]
    assert "where: width d'=66, where" in res.message and "returned shape (3, 66) instead of raising" in res.message


def _probe(f, matrix="hadamard"):
    return verify_transform(f, dim=D, matrix=matrix, checks=["transform-dimension"])["transform-dimension"]


def test_the_probe_does_not_apply_where_the_matrix_exists_at_every_candidate_width():
    res = _probe(lambda X: X.copy(), matrix=lambda d: np.eye(d))
    assert res.status == "skip"
    assert res.message == "the declared matrix is defined at every probed width, so there is no width to refuse"


def _raises_at_other_widths(exc):
    def f(X):
        if X.shape[1] != D:
            raise exc
        return fwht(X)
    return f


def test_a_refusal_is_recorded_by_its_first_line_cut_at_160_characters():
    long = "w" * 200
    res = _probe(_raises_at_other_widths(ValueError(f"{long}\nsecond line")))
    assert res.status == "pass"
    assert res.details["errors"] == [f"d'={p}: ValueError: {long[:160]}" for p in (65, 63)]


def test_a_refusal_without_a_message_fails():
    res = _probe(_raises_at_other_widths(ValueError()))
    assert res.status == "fail"
    assert res.message == ("raised without a message — observed: d'=65: ValueError: (empty message); expected: an "
                           "error message saying which widths are accepted; where: 2 of 2 probed widths; likely "
                           "cause: an exception raised with no text — say which widths are accepted")


@pytest.mark.parametrize("f,shown", [
    (lambda X: np.zeros((X.shape[0], 128)), "returned shape (3, 128) (padded?) instead of raising"),
    (lambda X: X[:, :32].copy(), "returned shape (3, 32) (truncated?) instead of raising"),
    (lambda X: X.copy(), "returned shape (3, 65) instead of raising"),
    (lambda X: X.ravel().copy(), "returned shape (195,) instead of raising"),
])
def test_an_accepted_width_is_named_with_what_came_back(f, shown):
    def g(X):
        return fwht(X) if X.shape[1] == D else f(X)

    res = _probe(g)
    assert res.status == "fail"
    assert f"observed: apply {shown}; expected: an exception naming the widths it accepts; where: width d'=65, " \
           f"where " in res.message
    assert res.message.endswith("likely cause: silent padding or truncation — raise an error naming the widths it "
                                "accepts")

"""Transform exactness: the decision at 1x the round-off bound and the factor diagnosis, pinned directly (their
mutants survived the check's scenarios, which sit far from the bound and at unit scale)."""

from __future__ import annotations

import numpy as np
import pytest

from rfverify.kinds.matrices import DenseOperator
from rfverify.properties.transform_exactness import _diagnose, exactness_violation


def _case():
    rng = np.random.default_rng(3)
    M = rng.standard_normal((8, 8))
    X = rng.standard_normal((5, 8))
    op = DenseOperator(M)
    return M, X, op.reference(X), op.tolerance(X, X.dtype)


@pytest.mark.parametrize("times, violated", [(0.5, False), (0.9, False), (1.2, True), (1.9, True)])
def test_an_error_above_the_round_off_bound_is_a_violation(times, violated):
    """One entry off by ``times`` x its bound: above 1x it is a violation (at 1.2x and 1.9x too: a rule "up to
    2x the bound" would pass a transform whose error is beyond what round-off can produce)."""
    M, X, ref, tol = _case()
    Y = ref.copy()
    Y[2, 5] += times * tol[2, 5]
    worst, msg = exactness_violation(Y, X, M)
    assert worst == pytest.approx(times, rel=0.03)  # Y - ref itself rounds: the added error is 1e-15 of ref
    assert (msg is not None) is violated
    if violated:
        assert msg.startswith("|apply(X) - X @ M.T| = ") and "at row 2, column 5" in msg


@pytest.mark.parametrize("scale", [1.0, 1e-9, 1e9])
def test_a_constant_factor_is_named_at_any_scale(scale):
    """The factor hint fits Y = c X @ M.T on the entries above 1e-8 of the largest: relative, so outputs of size
    1e-9 (or 1e9) are diagnosed as at size 1."""
    rng = np.random.default_rng(4)
    ref = scale * rng.standard_normal((6, 4))
    assert _diagnose(2.0 * ref, ref) == "apply(X) is 2 x X @ M.T everywhere: a normalisation not as claimed"


def test_two_nonzero_entries_are_enough_for_the_factor():
    """A reference with exactly two nonzero entries (a sparse M, one row): the factor is still fitted."""
    ref = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -3.0]])
    assert _diagnose(0.5 * ref, ref) == "apply(X) is 0.5 x X @ M.T everywhere: a normalisation not as claimed"


@pytest.mark.parametrize("scale", [1.0, 1e-9])
def test_no_hint_for_an_error_that_is_neither_a_factor_nor_a_permutation(scale):
    """Every entry off by its own factor in [1.2, 1.8]: neither "a constant factor" (to 1e-3) nor "a permutation"
    (to 1e-4) may be claimed, at unit scale and at 1e-9 (where an absolute slack not relative to the outputs would
    call anything a factor)."""
    rng = np.random.default_rng(5)
    ref = scale * rng.standard_normal((6, 4))
    assert _diagnose(ref * rng.uniform(1.2, 1.8, ref.shape), ref) == ""


@pytest.mark.parametrize("scale", [1.0, 1e-9])
def test_permutation_hint_needs_two_columns(scale):
    """Two columns swapped is a permutation (at output scales 1 and 1e-9); so are columns of similar size rotated
    (each output within 100% of the right one, but not within 1e-4); in a single column, signs flipped entry by
    entry are not (their sorted absolute values agree trivially)."""
    rng = np.random.default_rng(6)
    ref = scale * rng.standard_normal((5, 2))
    assert _diagnose(ref[:, ::-1], ref).startswith("the outputs are a permutation of the right ones")
    similar = scale * np.array([[1.0, 1.5, 1.2], [2.0, 2.5, 2.2]])
    assert _diagnose(similar[:, [1, 2, 0]], similar).startswith("the outputs are a permutation of the right ones")
    col = rng.standard_normal((5, 1))
    assert _diagnose(col * np.array([[1.0], [-1.0], [1.0], [-1.0], [-1.0]]), col) == ""


def test_the_violation_message_reads_observed_expected_where_and_cause():
    M, X, ref, tol = _case()
    Y = ref.copy()
    Y[1, 3] += 10 * tol[1, 3]
    _, msg = exactness_violation(Y, X, M)
    assert msg == (f"|apply(X) - X @ M.T| = {10 * tol[1, 3]:.3g} at row 1, column 3, but should be "
                   f"<= {tol[1, 3]:.3g} (the round-off bound) (n=5, d=8, float64 input, float64 output)")
    _, msg = exactness_violation(3.0 * ref, X, M)
    assert msg.endswith("(n=5, d=8, float64 input, float64 output); apply(X) is 3 x X @ M.T everywhere: "
                        "a normalisation not as claimed")


def _hadamard(X):
    from scipy.linalg import hadamard

    return np.asarray(X) @ hadamard(X.shape[1]).T.astype(np.asarray(X).dtype)


def test_a_transform_that_raises_on_one_batch_size_is_named_with_it():
    from rfverify.kinds.transform import verify_transform

    def raises_on_one_row(X):
        if X.shape[0] == 1:
            raise ValueError("needs a batch")
        return _hadamard(X)

    res = verify_transform(raises_on_one_row, dim=8, profile="quick", checks=["transform-exactness"])
    r = res["transform-exactness"]
    assert r.status == "fail"
    assert "observed: apply raised: " in r.message and "needs a batch" in r.message
    assert "expected: X @ M.T" in r.message and "where: first failing case: n=1, float32" in r.message


@pytest.mark.parametrize("target, fails", [(0.5, False), (1.5, True)])
def test_linearity_fails_between_one_and_two_round_off_bounds(target, fails):
    """A relative nonlinearity delta * |x| / |x|_ref (a data-dependent scale) tuned to ``target`` x the check's
    round-off bound: the check's statistic is linear in delta, so one run at delta0 calibrates it."""
    from rfverify.kinds.transform import verify_transform

    def scaled(delta):
        def apply(X):
            X = np.asarray(X)
            s = 1.0 + delta * float(np.linalg.norm(X.astype(np.float64))) / 10.0
            return (_hadamard(X.astype(np.float64)) * s).astype(X.dtype)
        return apply

    def run(delta):
        return verify_transform(scaled(delta), dim=8, profile="quick", checks=["transform-linearity"])[
            "transform-linearity"]

    delta0 = 1e-12
    delta = delta0 * target / run(delta0).statistic
    r = run(delta)
    assert r.statistic == pytest.approx(target, rel=0.1)
    assert (r.status == "fail") is fails, r.message


@pytest.mark.parametrize("rel, downcast", [(1e-11, False), (1.5e-9, True), (1e-7, True), (0.8e-4, True), (1.5e-4, False)])
@pytest.mark.parametrize("scale", [1.0, 0.25])
def test_float32_sized_errors_of_a_float64_transform_suggest_a_downcast(rel, downcast, scale):
    """One entry off by ``rel`` x the largest output (outputs of size 1 and 0.25): between 1e-9 and 1e-4 of it
    (float32's precision) a float64 transform is asked whether it computed in float32; below (float64-sized, yet
    above its bound) or above (a plain wrong value) it is not."""
    M, X, ref, tol = _case()
    M, ref = scale * M, scale * ref
    Y = ref.copy()
    Y[0, 0] += rel * float(np.max(np.abs(ref)))
    _, msg = exactness_violation(Y, X, M)
    assert msg is not None
    assert ("computed in float32 (a silent downcast)?" in msg) is downcast, msg
    assert ("the error is 1e-07 of the largest output" in msg) is (rel == 1e-7)

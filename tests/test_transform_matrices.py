"""The transform kind's declared-matrix operators: a Hadamard matrix judged from its structure.

* :func:`reference_fwht` is exact where it must be and within its derived bound everywhere (checked against
  exact integer arithmetic), and a broken reference (fewer levels, float32) is caught by the same comparison;
* the structured tolerance is sandwiched: never below a valid bound (the plug-in's allowance plus the
  reference's *actual* error, computed exactly) and never above the old dense formula
  (:func:`rfverify.tolerances.transform_tolerance`) by more than ``LOOSER`` — in fact it is at most the old one;
* the operator's pieces equal the dense ones (‖H‖₂ = sqrt d, |H||x| = ‖x‖₁), a user's matrix has its norm
  computed once per width, and a Hadamard configuration never forms a d x d matrix, not even in the
  dimension probe.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest
from scipy.linalg import hadamard

from rfverify.implementations import structured as S
from rfverify.kinds.matrices import DenseOperator, HadamardOperator, reference_fwht
from rfverify.kinds.transform import DeclaredMatrix, verify_transform
from rfverify.properties.transform_exactness import exactness_violation
from rfverify.tolerances import (fwht_reference_error, roundoff_inner_product, transform_allowance,
                                 transform_tolerance)

#: The stated factor: the structured tolerance never exceeds the old dense one by more than this.  Everywhere
#: but d = 2 normalised it is at most the old one up to evaluation order (‖x‖₁ and ‖H‖₂ as a sum and sqrt d
#: instead of a matmul and an SVD): ``EVALUATION``.  At d = 2 normalised the FWHT reference's bound γ_{1+2}
#: exceeds the dense product's γ_2; in float64 the tolerance is then (γ_5 + γ_3) / (γ_5 + γ_2) = 8/7 of the
#: old one (in float32 1 + 1e-9).  The same factor EVALUATION is allowed when comparing with the valid bound
#: evaluated densely.
EVALUATION = 1.0 + 1e-12
LOOSER = 8.0 / 7.0 + 1e-12
DIMS = [1 << k for k in range(0, 9)]


@lru_cache(maxsize=None)
def dense_hadamard(d: int, normalized: bool) -> tuple[np.ndarray, float]:
    """``(H, ‖H‖₂ by an SVD)``, once per (d, normalized)."""
    H = hadamard(d) / (math.sqrt(d) if normalized else 1.0)
    return H, float(np.linalg.norm(H, 2))


def _inputs(kind: str, n: int, d: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "gaussian":
        return rng.standard_normal((n, d))
    if kind == "cancelling":  # huge and tiny entries of both signs: every level rounds
        return rng.standard_normal((n, d)) * 10.0 ** rng.integers(-8, 9, (n, d))
    if kind == "one-big":  # one entry dwarfs the rest: |Hx|_i ~ ‖x‖₁, the bound at its tightest
        X = rng.uniform(0.5, 1.0, (n, d)) * (1 + 2 ** -30)
        X[:, 0] = 2.0 ** 40 / 3
        return X
    raise ValueError(kind)


KINDS = ["gaussian", "cancelling", "one-big"]


def exact_rows(X: np.ndarray) -> tuple[np.ndarray, int]:
    """``(N, D)`` with ``H x = N[i] / D`` exactly for every row x of X: a float is a dyadic rational, so X D is
    integral for a power of two D, and the product with H is done in Python integers."""
    F = [[Fraction(float(v)) for v in row] for row in X]
    D = max(f.denominator for row in F for f in row)
    N = np.array([[int(f * D) for f in row] for row in F], dtype=object) @ hadamard(X.shape[1]).astype(object).T
    return N, D


def exact_error(ref: np.ndarray, X: np.ndarray, normalized: bool) -> np.ndarray:
    """|ref - s H x| (s = 1/sqrt d, irrational for odd log2 d: evaluated in 60-digit decimal, far below
    float64 round-off; everything else is exact)."""
    from decimal import Decimal, localcontext

    N, D = exact_rows(X)
    out = np.empty(ref.shape)
    with localcontext() as ctx:
        ctx.prec = 60
        s = Decimal(1) / Decimal(X.shape[1]).sqrt() if normalized else Decimal(1)
        for (i, j), v in np.ndenumerate(N):
            out[i, j] = float(abs(Decimal(float(ref[i, j])) - Decimal(v) / Decimal(D) * s))
    return out


# ------------------------------------------------------------------ the reference FWHT and its own bound
@pytest.mark.parametrize("d", DIMS)
def test_reference_fwht_is_exact_on_integers_and_natural_order(d):
    X = np.random.default_rng(d).integers(-1000, 1000, (3, d)).astype(np.float64)
    assert np.array_equal(reference_fwht(X), X @ hadamard(d).T), "reference_fwht != X @ H_d.T on integer input"


def test_reference_fwht_refuses_other_widths():
    with pytest.raises(ValueError, match="power-of-two"):
        reference_fwht(np.ones((2, 12)))


@pytest.mark.parametrize("normalized", [False, True])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("d", [2, 8, 32, 128])
def test_reference_within_its_derived_bound(d, kind, normalized):
    X = _inputs(kind, 3, d, seed=d)
    op = HadamardOperator(d, normalized=normalized)
    err = exact_error(op.reference(X), X, normalized)
    bound = fwht_reference_error(np.abs(X).sum(axis=1, keepdims=True), d, normalized=normalized)
    worst = float(np.max(err / bound)) if np.any(err) else 0.0
    assert worst <= 1.0, f"reference error {worst:.3g} x its bound at d={d}, {kind}, normalized={normalized}"


def _fwht_levels(X: np.ndarray, levels: int, dtype=np.float64) -> np.ndarray:
    """A broken reference: only the first ``levels`` butterfly levels, in ``dtype``."""
    A = X.astype(dtype)
    n, d = A.shape
    h = 1
    for _ in range(levels):
        V = A.reshape(n, d // (2 * h), 2, h)
        A = np.concatenate([V[:, :, :1] + V[:, :, 1:], V[:, :, :1] - V[:, :, 1:]], axis=2).reshape(n, d)
        h *= 2
    return A.astype(np.float64)


@pytest.mark.parametrize("broken", ["one level short", "float32"])
def test_broken_reference_exceeds_the_bound(broken):
    d = 64
    X = _inputs("gaussian", 3, d, seed=1)
    ref = _fwht_levels(X, 5) if broken == "one level short" else _fwht_levels(X, 6, np.float32)
    assert np.array_equal(_fwht_levels(X, 6), reference_fwht(X)), "the helper's correct twin must be the reference"
    err = exact_error(ref, X, False)
    bound = fwht_reference_error(np.abs(X).sum(axis=1, keepdims=True), d)
    assert np.max(err / bound) > 1.0, f"a {broken} reference stays within the bound: the bound is vacuous"


# ------------------------------------------------------------------ the structured tolerance, sandwiched
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("normalized", [False, True])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("d", DIMS)
def test_structured_tolerance_valid_and_not_looser_than_dense(d, kind, normalized, dtype):
    X = _inputs(kind, 3, d, seed=7 * d + 1).astype(dtype)
    H, H_norm = dense_hadamard(d, normalized)
    op = HadamardOperator(d, normalized=normalized)
    new = op.tolerance(X, X.dtype)
    old = transform_tolerance(X, H, X.dtype, norm2=H_norm)  # the old formula (its SVD done once per d)
    X64 = X.astype(np.float64)
    comp = np.abs(X64) @ np.abs(H).T
    allowance = transform_allowance(comp, np.linalg.norm(X64, axis=1, keepdims=True), H_norm, d, dtype)
    if d <= 128:  # the reference's actual error, exactly
        valid = allowance + exact_error(op.reference(X), X64, normalized)
    else:  # its bound, evaluated densely
        L = d.bit_length() - 1
        valid = allowance + roundoff_inner_product(L + 2 * (normalized and L % 2), np.float64) * comp
    # valid is the same formula evaluated densely (matmul, SVD): equal up to EVALUATION's rounding
    assert np.all(new * EVALUATION >= valid), f"structured tolerance below a valid bound: {np.max(valid / new)!r} x"
    ratio = float(np.max(new / old))
    limit = LOOSER if (d, normalized) == (2, True) else EVALUATION
    assert ratio <= limit, f"structured tolerance {ratio:.6g} x the dense one (stated factor {limit})"


@pytest.mark.parametrize("d", DIMS)
def test_hadamard_operator_pieces_equal_the_dense_ones(d):
    X = np.abs(_inputs("gaussian", 4, d, seed=d))
    for normalized in (False, True):
        op = HadamardOperator(d, normalized=normalized)
        H = hadamard(d) / (math.sqrt(d) if normalized else 1.0)
        assert np.array_equal(op.dense(), H)
        assert op.norm2() == pytest.approx(np.linalg.norm(H, 2), rel=1e-13), "‖H‖₂ from the structure"
        np.testing.assert_allclose(np.broadcast_to(op.abs_apply(X), X.shape), X @ np.abs(H).T, rtol=1e-13)


def test_dense_operator_equals_the_dense_formula_and_computes_its_norm_once(monkeypatch):
    M = S.Butterfly(32, rng=0).matrix()
    X = _inputs("gaussian", 5, 32, seed=3).astype(np.float32)
    op = DenseOperator(M)
    assert np.array_equal(op.tolerance(X, X.dtype), transform_tolerance(X, M, X.dtype))
    calls = []
    real = np.linalg.norm
    monkeypatch.setattr(np.linalg, "norm", lambda A, *a, **k: (calls.append(a), real(A, *a, **k))[1])
    for _ in range(3):
        op.tolerance(X, X.dtype)
    assert not [a for a in calls if a[:1] == (2,)], "the 2-norm of a user's matrix is recomputed per call"


def test_structured_and_dense_comparators_agree_on_verdicts():
    d = 64
    X = _inputs("gaussian", 17, d, seed=5)
    for normalized in (False, True):
        op, H = HadamardOperator(d, normalized=normalized), hadamard(d) / (math.sqrt(d) if normalized else 1.0)
        for Y, ok in ((S.fwht(X, normalized=normalized), True), (S.fwht(X, normalized=not normalized), False),
                      (S.fwht(X.astype(np.float32), normalized=normalized).astype(np.float64), False)):
            r_new, m_new = exactness_violation(Y, X, op)
            r_old, m_old = exactness_violation(Y, X, H)
            assert (m_new is None) == (m_old is None) == ok, (m_new, m_old)


# ------------------------------------------------------------------ no d x d matrix for a Hadamard declaration
def test_hadamard_configuration_never_forms_the_matrix(monkeypatch):
    import scipy.linalg

    def forbidden(*a, **k):
        raise AssertionError("a dense Hadamard matrix was built")

    monkeypatch.setattr(scipy.linalg, "hadamard", forbidden)
    for matrix, impl in (("hadamard", S.fwht), ("hadamard-normalized", S.fwht_normalized)):
        report = verify_transform(impl, dim=1024, matrix=matrix, profile="quick")
        assert report.passed, report.table()
    caught = verify_transform(S.fwht, dim=1024, matrix="hadamard-normalized", profile="quick",
                              checks=["transform-exactness"])["transform-exactness"]
    assert caught.status == "fail" and "32 x X @ M.T everywhere" in caught.message, caught.message


def test_defined_answers_without_building_and_caches_callables():
    calls: list[int] = []

    def M(d):
        calls.append(d)
        return np.eye(d) if d % 2 == 0 else None

    dm = DeclaredMatrix(M)
    assert dm.operator(4) is dm.operator(4) and calls == [4], f"M(d) called {calls}: operators are cached per d"
    assert dm.defined(4) and not dm.defined(6 - 1) and dm.defined(4) and not dm.defined(5)
    assert calls == [4, 5], f"M(d) called {calls}: the answer per width must be cached"
    assert dm.operator(5) is None and calls == [4, 5], "operator(d) called M(d) where defined() said no"
    h = DeclaredMatrix("hadamard")
    assert [w for w in (1, 2, 3, 6, 64, 65) if h.defined(w)] == [1, 2, 64]
    fixed = DeclaredMatrix(np.eye(8))
    assert fixed.defined(8) and not fixed.defined(16)


@pytest.mark.parametrize("d", [4096])
def test_large_width_correct_passes_and_planted_bugs_fail(d):
    from tests.mutants.transform_mutants import broken_skip_last_stage

    ok = verify_transform(S.fwht, dim=d, profile="quick")
    assert ok.passed, ok.table()
    bad = verify_transform(broken_skip_last_stage, dim=d, profile="quick", checks=["transform-exactness"])
    assert bad["transform-exactness"].status == "fail", bad["transform-exactness"].message


def test_transform_checks_benchmark_group_rows():
    """The ``rfverify bench`` group measuring one exactness comparison three ways (no timing is asserted)."""
    from rfverify.studies import bench
    from rfverify.studies.transform_check_bench import BASELINE, exactness_rows

    assert bench.BENCHMARK_GROUPS["transform-checks"] == "rfverify.studies.transform_check_bench:exactness_rows"
    rows = exactness_rows(dims=(16,), n=3, repeats=1)
    assert [r["name"] for r in rows] == [BASELINE, "exactness/dense cached", "exactness/structured"]
    assert all(r["seconds"] > 0 and r["baseline"] == BASELINE and r["d"] == 16 for r in rows)
    assert rows[0]["ratio"] == 1.0
    assert "exactness/structured" in bench.format_table(rows)

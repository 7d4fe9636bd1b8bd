"""Exactness tests for the fast structured transforms.

The comparison function :func:`fwht_exactness_violation` is the oracle; the
``test_broken_*`` tests show that it *fails* on planted bugs (sequency order,
skipped last stage, wrong axis, wrong normalisation).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.linalg import hadamard

from rfverify.errors import UsageError
from rfverify.implementations import structured as S
from rfverify.implementations.structured import (
    Butterfly,
    Fastfood,
    HDProduct,
    fwht,
    fwht_rounding_depth,
    hd_block,
)
from tests.mutants.transform_mutants import (broken_sequency, broken_skip_last_stage, broken_wrong_axis,
                                             broken_wrong_normalisation)

BACKENDS = ["numpy"] + (["numba"] if S.numba_available() else [])
DTYPES = [np.float32, np.float64]


def gamma(k: int, dtype) -> float:
    """Higham's ``γ_k = k u / (1 - k u)`` with unit round-off ``u = eps/2`` of ``dtype``."""
    u = np.finfo(dtype).eps / 2
    return k * u / (1 - k * u)


def fwht_roundoff_tolerance(X: np.ndarray, depth: int, dtype, normalized: bool) -> np.ndarray:
    """Named round-off bound for ``|fwht(x)_i - (x @ H)_i|``, one value per row.

    Inequality (Higham 2002, Lemma 3.1 and (3.5)): a value computed from
    ``x`` through at most ``K`` roundings of sums of ``±x_j`` satisfies
    ``|fl(Hx)_i - (Hx)_i| <= γ_K (|H||x|)_i = γ_K ||x||_1``
    (``K = fwht_rounding_depth(d, backend)``; ``+3`` when normalised: sqrt,
    reciprocal/cast and the scaling multiply).  The float64 reference
    ``x @ hadamard(d)`` (FMA dot products of ``d`` terms, then the same
    scaling) adds ``γ_{d-1+3}(float64) ||x||_1``.  Both are divided by
    ``sqrt(d)`` when normalised.
    """
    d = X.shape[-1]
    extra = 3 if normalized else 0
    scale = 1 / np.sqrt(d) if normalized else 1.0
    l1 = np.abs(X.astype(np.float64)).sum(axis=-1)
    g = gamma(depth + extra, dtype) + gamma(d - 1 + extra, np.float64)
    return g * l1 * scale + np.finfo(np.float64).tiny


def dense_reference(X: np.ndarray, normalized: bool) -> np.ndarray:
    d = X.shape[-1]
    Y = X.astype(np.float64) @ hadamard(d).astype(np.float64)
    return Y / np.sqrt(d) if normalized else Y


def fwht_exactness_violation(transform, X, *, depth, normalized) -> str | None:
    """``None`` if ``transform(X)`` matches ``X @ hadamard(d)`` within the named bound.

    Otherwise a message ``max|err| = .. at row r, col c, but should be <= tol``.
    """
    Y = np.asarray(transform(X))
    if Y.shape != X.shape:
        return f"shape {Y.shape}, but should be {X.shape}"
    ref = dense_reference(X, normalized)
    tol = fwht_roundoff_tolerance(X, depth, X.dtype, normalized)
    err = np.abs(Y.astype(np.float64) - ref)
    ratio = err / tol[..., None]
    if np.all(ratio <= 1.0):
        return None
    r, c = np.unravel_index(np.argmax(ratio), ratio.shape)
    return (f"|fwht - X@H| = {err[r, c]:.3g} at row {r}, col {c}, "
            f"but should be <= {tol[r]:.3g} (d={X.shape[-1]}, dtype={X.dtype}, depth={depth})")


# ---------------------------------------------------------------------------
# exactness
# ---------------------------------------------------------------------------
@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    log2d=st.integers(0, 11),
    n=st.integers(1, 6),
    dtype=st.sampled_from(DTYPES),
    normalized=st.booleans(),
    backend=st.sampled_from(BACKENDS),
    seed=st.integers(0, 2**32 - 1),
)
def test_fwht_matches_dense_hadamard(log2d, n, dtype, normalized, backend, seed):
    d = 1 << log2d
    X = np.random.default_rng(seed).standard_normal((n, d)).astype(dtype)
    depth = fwht_rounding_depth(d, backend)
    msg = fwht_exactness_violation(
        lambda A: fwht(A, normalized=normalized, backend=backend), X, depth=depth, normalized=normalized
    )
    assert msg is None, msg
    assert fwht(X, normalized=normalized, backend=backend).dtype == dtype


def integer_fwht_reference(X: np.ndarray) -> np.ndarray:
    """Exact ``X @ H`` for int64 ``X`` by radix-2 stages in integer arithmetic."""
    Y = np.array(X, dtype=np.int64)
    d = Y.shape[-1]
    h = 1
    while h < d:
        v = Y.reshape(-1, d // (2 * h), 2, h)
        a, b = v[:, :, 0, :].copy(), v[:, :, 1, :].copy()
        v[:, :, 0, :], v[:, :, 1, :] = a + b, a - b
        h *= 2
    return Y


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("d", [4096, 16384])
def test_fwht_large_d_integer_inputs_are_bit_exact(backend, d):
    """Small integers: every partial sum is an integer below 2**24, hence exact in float32/64."""
    X = np.random.default_rng(d).integers(-8, 9, size=(2, d))
    ref = integer_fwht_reference(X)
    # check the reference itself on 64 columns, H_ij = (-1)^popcount(i & j)
    i, j = np.arange(d)[:, None], np.arange(64)[None, :]
    cols = 1 - 2 * (np.bitwise_count((i & j).astype(np.uint64)) % 2).astype(np.int64)
    assert np.array_equal(ref[:, :64], X @ cols)
    for dtype in DTYPES:
        Y = fwht(X.astype(dtype), backend=backend)
        assert np.array_equal(Y, ref), f"fwht of integers not exact for d={d}, {dtype}, {backend}"
    assert fwht(X, backend=backend).dtype == np.float64  # ints -> float64


@pytest.mark.parametrize("backend", BACKENDS)
def test_fwht_linearity_and_involution(backend):
    rng = np.random.default_rng(1)
    d = 256
    x, y = rng.standard_normal((2, d))
    a, b = 0.75, -2.5  # exact binary fractions
    depth = fwht_rounding_depth(d, backend) + 2
    lhs = fwht(a * x + b * y, backend=backend)
    rhs = a * fwht(x, backend=backend) + b * fwht(y, backend=backend)
    tol = 2 * gamma(depth, np.float64) * (np.abs(a * x).sum() + np.abs(b * y).sum())
    assert np.max(np.abs(lhs - rhs)) <= tol
    z = fwht(fwht(x, normalized=True, backend=backend), normalized=True, backend=backend)
    tol2 = 2 * gamma(depth + 3, np.float64) * np.abs(x).sum()
    assert np.max(np.abs(z - x)) <= tol2, "normalised FWHT should be an involution"


@pytest.mark.parametrize("backend", BACKENDS)
def test_fwht_axis_out_and_inplace_semantics(backend):
    rng = np.random.default_rng(2)
    X = rng.standard_normal((3, 16, 5))
    X0 = X.copy()
    Y = fwht(X, axis=1, backend=backend)
    assert np.array_equal(X, X0), "input mutated although inplace=False"
    ref = np.einsum("ajb,jk->akb", X, hadamard(16))
    assert np.allclose(Y, ref, rtol=0, atol=1e-12)
    out = np.empty_like(X)
    res = fwht(X, axis=1, out=out, backend=backend)
    assert res is out and np.allclose(out, ref, rtol=0, atol=1e-12)
    Z = X.copy()
    res = fwht(Z, axis=1, inplace=True, backend=backend)
    assert res is Z and np.allclose(Z, ref, rtol=0, atol=1e-12)
    # fast path: contiguous, last axis
    W = rng.standard_normal((4, 32)).astype(np.float32)
    W0 = W.copy()
    fwht(W, inplace=True, backend=backend)
    assert np.allclose(W, W0 @ hadamard(32), rtol=0, atol=1e-4)
    # 1-d vector, non-contiguous input
    v = rng.standard_normal(64)[::2]
    assert np.allclose(fwht(v, backend=backend), v @ hadamard(32), atol=1e-12)


@pytest.mark.parametrize("d", [0, 3, 6, 12, 1000])
def test_fwht_rejects_non_power_of_two(d):
    with pytest.raises(UsageError, match=rf"d={d} .*power of two"):
        fwht(np.ones((2, d)))


def test_fwht_usage_errors():
    with pytest.raises(UsageError):
        fwht(np.ones(4), backend="fftw")
    with pytest.raises(UsageError):
        fwht(np.ones(4, dtype=int), inplace=True)
    with pytest.raises(UsageError):
        fwht(np.ones(4), out=np.empty(4, dtype=np.float32))
    with pytest.raises(UsageError):
        fwht(np.ones(4, dtype=np.complex128))
    with pytest.raises(UsageError):
        fwht(np.float64(1.0))


@pytest.mark.skipif(not S.numba_available(), reason="numba not installed")
@pytest.mark.parametrize("dtype", DTYPES)
def test_numba_and_numpy_backends_agree(dtype):
    rng = np.random.default_rng(3)
    for d in (1, 2, 4, 8, 16, 32, 64, 128, 512, 2048, 8192):
        X = rng.standard_normal((3, d)).astype(dtype)
        a = fwht(X, backend="numba").astype(np.float64)
        b = fwht(X, backend="numpy").astype(np.float64)
        K = fwht_rounding_depth(d, "numba") + fwht_rounding_depth(d, "numpy")
        tol = gamma(K, dtype) * np.abs(X.astype(np.float64)).sum(axis=1, keepdims=True)
        assert np.all(np.abs(a - b) <= tol + np.finfo(np.float64).tiny), f"backends disagree at d={d}"


@pytest.mark.skipif(not S.numba_available(), reason="numba not installed")
@pytest.mark.parametrize("dtype", DTYPES)
def test_numba_kernel_is_bit_identical_to_textbook_butterfly(dtype):
    """The fused 64-point SIMD block (shuffles inside a register) performs exactly the additions of the
    textbook radix-2 stage loop, so the results agree bit for bit at every d, including rows whose
    length is not a multiple of the SIMD width and non-contiguous callers (copied to rows first)."""
    from rfverify.studies.bench import naive_fwht

    rng = np.random.default_rng(11)
    for d in (8, 16, 32, 64, 128, 256, 1024, 4096, 16384):
        X = rng.standard_normal((5, d)).astype(dtype)
        assert np.array_equal(fwht(X, backend="numba"), naive_fwht(X)), f"d={d} {dtype}"
        # the threaded path: rows shared among 1, 2 or 3 threads, in place, out= and allocating
        ref = naive_fwht(X)
        for threads in (1, 2, 3):
            assert np.array_equal(fwht(X, backend="numba", threads=threads), ref), f"d={d} {dtype} {threads=}"
            out = np.empty_like(X)
            fwht(X, backend="numba", threads=threads, out=out)
            assert np.array_equal(out, ref), f"out= d={d} {dtype} {threads=}"
            Z = X.copy()
            fwht(Z, backend="numba", threads=threads, inplace=True)
            assert np.array_equal(Z, ref), f"inplace d={d} {dtype} {threads=}"
    Xt = rng.standard_normal((256, 7)).astype(dtype).T  # non-contiguous (7, 256)
    assert np.array_equal(fwht(Xt, backend="numba"), naive_fwht(np.ascontiguousarray(Xt)))


# ---------------------------------------------------------------------------
# planted bugs are caught by the same comparison
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "broken,normalized",
    [(broken_sequency, False), (broken_skip_last_stage, False),
     (broken_wrong_axis, False), (broken_wrong_normalisation, True)],
)
@pytest.mark.parametrize("dtype", DTYPES)
def test_exactness_comparison_detects_planted_bugs(broken, normalized, dtype):
    d = 64
    X = np.random.default_rng(4).standard_normal((d, d)).astype(dtype)
    msg = fwht_exactness_violation(broken, X, depth=S.fwht_rounding_depth(d), normalized=normalized)
    assert msg is not None, f"{broken.__name__} was not detected"
    # the same oracle accepts the correct transform on the same input
    ok = fwht_exactness_violation(lambda A: fwht(A, normalized=normalized), X,
                                  depth=S.fwht_rounding_depth(d), normalized=normalized)
    assert ok is None, ok


# ---------------------------------------------------------------------------
# butterflies, HD products, Fastfood
# ---------------------------------------------------------------------------
def orthogonality_tolerance(B: np.ndarray, depth: int) -> float:
    """``||B^T B - I||_max <= γ_K`` bound for a product of ``K`` rotation/reflection levels.

    Each level is an orthogonal ``2x2`` (or Hadamard) mixing computed with a
    relative error ``<= γ_3`` per entry (two products and one sum); entries of
    the Gram matrix are dot products of unit vectors, adding ``γ_d``.  We use
    ``γ_{3K + d}`` with ``d = B.shape[0]``, a generous but derived bound.
    """
    d = B.shape[0]
    return gamma(3 * depth + d, np.float64)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("d", [1, 2, 4, 16, 128])
@pytest.mark.parametrize("angles", ["uniform", "beta"])
def test_butterfly_apply_matches_matrix_and_is_orthogonal(backend, d, angles):
    bf = Butterfly(d, rng=5, angles=angles)
    B = bf.matrix()
    assert np.max(np.abs(B.T @ B - np.eye(d))) <= orthogonality_tolerance(B, max(1, int(np.log2(d))))
    assert np.isclose(np.linalg.det(B), 1.0)
    X = np.random.default_rng(6).standard_normal((7, d))
    Y = bf.apply(X, backend=backend)
    K = S.butterfly_rounding_depth(d, backend)  # numba: 3 per level; numpy: 3k + b per fused group
    tol = gamma(K + d, np.float64) * np.abs(X).sum(axis=1, keepdims=True) * 2  # + d: the dense reference
    assert np.all(np.abs(Y - X @ B.T) <= tol)


def test_butterfly_d4_matches_munkhoeva_formula():
    bf = Butterfly(4, rng=7)
    th2, (th1, th3) = bf.thetas[0][0], bf.thetas[1]
    c1, s1, c2, s2, c3, s3 = np.cos(th1), np.sin(th1), np.cos(th2), np.sin(th2), np.cos(th3), np.sin(th3)
    paper = np.array([
        [c1 * c2, -s1 * c2, -c1 * s2, s1 * s2],
        [s1 * c2, c1 * c2, -s1 * s2, -c1 * s2],
        [c3 * s2, -s3 * s2, c3 * c2, -s3 * c2],
        [s3 * s2, c3 * s2, s3 * c2, c3 * c2],
    ])
    assert np.allclose(bf.matrix(), paper, rtol=0, atol=1e-15)


def test_butterfly_rejects_non_power_of_two():
    with pytest.raises(UsageError, match="d=6 .*power of two"):
        Butterfly(6, rng=0)


@pytest.mark.parametrize("n_blocks", [1, 2, 3])
@pytest.mark.parametrize("backend", BACKENDS)
def test_hd_product_is_orthogonal_and_matches_dense(n_blocks, backend):
    d = 64
    hd = HDProduct(d, n_blocks=n_blocks, rng=8)
    M = hd.matrix()
    assert np.max(np.abs(M.T @ M - np.eye(d))) <= orthogonality_tolerance(M, n_blocks * (int(np.log2(d)) + 3))
    Hn = hadamard(d) / np.sqrt(d)
    dense = np.eye(d)
    for Dg in hd.diags:
        dense = dense @ Hn @ np.diag(Dg)
    assert np.allclose(M, dense, rtol=0, atol=1e-13)
    X = np.random.default_rng(9).standard_normal((5, d))
    assert np.allclose(hd.apply(X, backend=backend), X @ dense.T, rtol=0, atol=1e-12)
    un = hd_block(X, hd.diags, normalized=False, backend=backend)
    assert np.allclose(un, X @ dense.T * d ** (n_blocks / 2), rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("backend", BACKENDS)
def test_fastfood_apply_matches_dense_factors(backend):
    d = 128
    ff = Fastfood(d, rng=10, sigma=1.5)
    V = ff.matrix()
    X = np.random.default_rng(11).standard_normal((6, d))
    assert np.allclose(ff.apply(X, backend=backend), X @ V.T, rtol=0, atol=1e-11)
    # derived property: row norms are s_i / sigma (chi(d)/sigma law)
    row_norms = np.linalg.norm(V, axis=1)
    s = ff.S * np.linalg.norm(ff.G)
    assert np.allclose(row_norms, s / ff.sigma, rtol=1e-12)


def test_structured_rng_reproducible():
    a, b = Butterfly(32, rng=3), Butterfly(32, rng=3)
    assert np.array_equal(a.matrix(), b.matrix())
    assert np.array_equal(HDProduct(32, rng=3).diags, HDProduct(32, rng=3).diags)
    f1, f2 = Fastfood(32, rng=4), Fastfood(32, rng=4)
    assert np.array_equal(f1.matrix(), f2.matrix())

"""Fast structured transforms: Walsh–Hadamard, HD blocks, Fastfood, butterflies.

Everything here is applied in ``O(d log d)`` per vector and never builds a
dense ``d x d`` matrix except in the explicit ``.matrix()`` methods, which
exist so that tests can compare the fast path with its dense definition.

Conventions
-----------
* ``H_d`` is the *Sylvester* (natural-order) Hadamard matrix,
  ``H_1 = [1]``, ``H_{2m} = [[H_m, H_m], [H_m, -H_m]]``; it equals
  ``scipy.linalg.hadamard(d)``, is symmetric, and ``H_d H_d = d I``.  Its
  normalised form ``H_d / sqrt(d)`` is orthogonal and symmetric.
* Batches are rows: a transform ``M`` applied to ``X`` of shape ``(n, d)``
  returns the rows ``M x``, i.e. ``X @ M.T``.  For ``fwht`` this is
  ``X @ H`` because ``H`` is symmetric.

Backends
--------
``backend="numpy"`` always works: it factors ``H_d = H_{b_1} ⊗ ... ⊗ H_{b_k}``
(Sylvester matrices of powers of two are Kronecker products of smaller ones)
and applies each small dense factor with one BLAS ``matmul``.
``backend="numba"`` (optional extra ``rfverify[fast]``) runs a compiled
in-place butterfly per row: the six lowest stages as a fused 64-point block held
in eight SIMD registers (the three stages inside a register are shuffles, written
as LLVM ``shufflevector`` through a numba intrinsic because LLVM does not
vectorise stride-1/2/4 butterflies by itself), and the remaining stages as
radix-8/4/2 passes that LLVM vectorises; a row (at most 128 KiB for d = 16384 in
float64) stays in L1/L2 for all its stages.  Every output is the same sequence of
additions in both kernels, so results are bit-identical to the scalar butterfly.
``backend="auto"`` picks numba when importable, numpy otherwise.  Both are
verified by the same exactness tests (``tests/test_structured_transforms.py``).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np

from rfverify.errors import UsageError

__all__ = [
    "BACKENDS",
    "numba_available",
    "is_power_of_two",
    "fwht",
    "fwht_rounding_depth",
    "fwht_normalized",
    "fwht_threads",
    "fwht_default_threads",
    "butterfly_rounding_depth",
    "hd_block",
    "HDProduct",
    "Fastfood",
    "Butterfly",
]

BACKENDS = ("auto", "numpy", "numba")

#: Largest dense Hadamard factor the numpy backend multiplies with BLAS
#: (2**_NUMPY_FACTOR_BITS).  Measured on AVX-512 openblas: 32 balances BLAS
#: efficiency (wants large K) against flops per butterfly stage (b / log2 b).
_NUMPY_FACTOR_BITS = 5

#: Rows per numpy-backend chunk are chosen so a chunk holds about this many
#: elements (256 KiB in float64: the chunk and its ping-pong buffer fit in L2).
_NUMPY_CHUNK_ELEMS = 1 << 15

_FLOAT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))

#: Largest number of butterfly levels fused into one dense factor by the numpy
#: backend (factors of size 2**5 = 32: ~2 x 32 flops per entry per group).  Measured at
#: d = 1024, n = 4096, one BLAS thread: 5 bits ~0.02-0.03 s, 4 bits ~0.04-0.05 s, 3 bits ~0.08 s
#: (fewer, larger BLAS calls win while a group's factor stays small).
_BUTTERFLY_FACTOR_BITS = 5


def _numpy_plan_bits(L: int, max_bits: int) -> list[int]:
    """Split ``L`` levels into ``ceil(L / max_bits)`` nearly equal groups (larger first)."""
    if L == 0:
        return []
    k = -(-L // max_bits)
    return [L // k + (1 if i < L % k else 0) for i in range(k)]


# --------------------------------------------------------------------------
# validation helpers
# --------------------------------------------------------------------------
def is_power_of_two(d: int) -> bool:
    """``True`` when ``d`` is 1, 2, 4, 8, ... (``d = 2**k`` with ``k >= 0``)."""
    d = int(d)
    return d >= 1 and (d & (d - 1)) == 0


def _require_power_of_two(d: int, what: str = "the fast Walsh–Hadamard transform") -> int:
    d = int(d)
    if not is_power_of_two(d):
        lo = 1 << max(0, d.bit_length() - 1)
        hi = 1 << max(0, d.bit_length())
        raise UsageError(
            f"d={d} is not a power of two, but {what} needs a power of two; "
            f"pad or truncate your data explicitly (e.g. to d={hi} or d={lo})"
        )
    return d


def _result_dtype(dtype: np.dtype) -> np.dtype:
    dtype = np.dtype(dtype)
    if dtype in _FLOAT_DTYPES:
        return dtype
    if dtype.kind in "biu":
        return np.dtype(np.float64)
    raise UsageError(
        f"dtype {dtype} is not supported by the structured transforms; "
        "pass float32, float64 or integer data (integers are converted to float64)"
    )


@lru_cache(maxsize=1)
def numba_available() -> bool:
    """Whether the optional numba backend can be imported (``pip install 'rfverify[fast]'``)."""
    try:
        import numba  # noqa: F401
    except Exception:  # pragma: no cover - depends on environment
        return False
    return True


def _resolve_backend(backend: str) -> str:
    if backend not in BACKENDS:
        raise UsageError(f"backend={backend!r} is unknown; use one of {BACKENDS}")
    if backend == "auto":
        return "numba" if numba_available() else "numpy"
    if backend == "numba" and not numba_available():
        raise UsageError(
            "backend='numba' requested but numba is not installed; "
            "install it with pip install 'rfverify[fast]' or use backend='numpy'"
        )
    return backend


# --------------------------------------------------------------------------
# numpy backend
# --------------------------------------------------------------------------
@lru_cache(maxsize=None)
def _hadamard_factor(b: int, dtype_str: str) -> np.ndarray:
    """Dense Sylvester ``H_b`` (small ``b`` only) built by the Sylvester recursion."""
    H = np.ones((1, 1), dtype=dtype_str)
    while H.shape[0] < b:
        H = np.block([[H, H], [H, -H]])
    H.setflags(write=False)
    return H


def _numpy_plan(d: int) -> tuple[int, ...]:
    """Factor sizes ``(b_1, ..., b_k)`` with ``prod b_i = d`` and each ``b_i <= 2**5``."""
    L = d.bit_length() - 1
    if L == 0:
        return ()
    k = -(-L // _NUMPY_FACTOR_BITS)
    bits = [L // k + (1 if i < L % k else 0) for i in range(k)]
    return tuple(1 << b for b in bits)


def _fwht_rows_numpy(buf: np.ndarray) -> None:
    """In place on a C-contiguous ``(n, d)`` buffer via Kronecker factors + BLAS.

    Rows are processed in chunks of about ``_NUMPY_CHUNK_ELEMS`` elements so
    the ping-pong buffers stay in L2 cache across the factor passes.
    """
    n, d = buf.shape
    plan = _numpy_plan(d)
    if not plan or n == 0:
        return
    dt = buf.dtype.str
    factors = [_hadamard_factor(b, dt) for b in plan]
    rows = max(1, min(n, _NUMPY_CHUNK_ELEMS // d))
    spare_all = np.empty((rows, d), dtype=buf.dtype)
    for r0 in range(0, n, rows):
        chunk = buf[r0:r0 + rows]
        k = chunk.shape[0]
        spare = spare_all[:k]
        cur = chunk
        inner, outer = d, k
        for b, Hb in zip(plan, factors):  # outermost factor first
            inner //= b
            dst = spare if cur is chunk else chunk
            if inner == 1:
                np.matmul(cur.reshape(outer, b), Hb, out=dst.reshape(outer, b))
            else:
                np.matmul(Hb, cur.reshape(outer, b, inner), out=dst.reshape(outer, b, inner))
            outer *= b
            cur = dst
        if cur is not chunk:
            chunk[...] = cur


def fwht_rounding_depth(d: int, backend: str = "auto") -> int:
    """Maximal number of roundings along any path from an input to an output of ``fwht``.

    The butterfly (numba) backend performs ``log2 d`` additions/subtractions
    per output.  The numpy backend multiplies by dense factors ``H_b`` with
    entries ``±1`` (products exact) and sums ``b`` terms, ``b - 1`` roundings
    per factor, so ``sum_i (b_i - 1)``.  With Higham's ``γ_k = k u / (1 - k u)``
    (Accuracy and Stability of Numerical Algorithms, 2nd ed., §3.1, Lemma 3.1
    and eq. (3.5) for any summation order), the unnormalised transform obeys,
    componentwise for each output ``i``,

        |fl(H x)_i - (H x)_i| <= γ_K · (|H| |x|)_i = γ_K · ||x||_1,   K = depth,

    since every entry of ``|H|`` is 1 and errors of a product of factors
    compound as ``γ_a + γ_b + γ_a γ_b <= γ_{a+b}``.  Normalising adds at most
    three roundings (sqrt, reciprocal/cast, multiply): use ``K + 3``.
    """
    d = _require_power_of_two(d)
    be = _resolve_backend(backend)
    if be == "numba":
        return d.bit_length() - 1
    return sum(b - 1 for b in _numpy_plan(d))


def butterfly_rounding_depth(d: int, backend: str = "auto") -> int:
    """Rounding depth K of :meth:`Butterfly.apply`: ``|fl(Bx) - Bx| <= γ_K (|B_1|...|B_L| |x|)``.

    numba: ``3`` roundings per level (two products, one sum), ``3 log2 d``.
    numpy: per group of ``k`` levels the dense ``b x b`` factor (``b = 2^k``) carries
    ``3k`` roundings in its entries and the product with it ``b`` more
    (Higham 2002, Lemma 3.1, eq. 3.5), ``sum_g (3 k_g + b_g)``.
    """
    d = _require_power_of_two(d, "a butterfly matrix")
    L = d.bit_length() - 1
    if _resolve_backend(backend) == "numba":
        return 3 * L
    return sum(3 * k + (1 << k) for k in _numpy_plan_bits(L, _BUTTERFLY_FACTOR_BITS))


# --------------------------------------------------------------------------
# public fwht
# --------------------------------------------------------------------------
def _apply_rows(buf: np.ndarray, backend: str, threads: int | None = None, src: np.ndarray | None = None,
                scale: Any = None) -> int:
    """``buf <- (src @ H) · scale`` row by row (``src`` defaults to ``buf``: in place; no scale by default).

    The numba kernels multiply by ``scale`` in their final pass (the same product as a separate
    ``buf *= scale``, without a second pass over memory).  Returns the threads used.
    """
    if src is not None and src is not buf and (backend != "numba" or buf.shape[1] <= 1):
        np.copyto(buf, src, casting="unsafe")
        src = None
    if buf.shape[0] == 0 or buf.shape[1] <= 1 or backend != "numba":
        if buf.shape[0] and buf.shape[1] > 1:
            _fwht_rows_numpy(buf)
        if scale is not None:
            buf *= scale
        return 1
    from rfverify.implementations._fwht_numba import kernels, run_rows

    k, s = kernels().fwht_range_scaled, buf if src is None else src
    sc, on = (buf.dtype.type(1.0), False) if scale is None else (buf.dtype.type(scale), True)
    return run_rows(lambda lo, hi: k(s, buf, lo, hi, sc, on), buf.shape[0], buf.shape[1], threads)


def _scale_for(d: int, dtype: np.dtype) -> Any:
    return dtype.type(1.0 / math.sqrt(d))


def fwht(
    X: Any,
    *,
    normalized: bool = False,
    out: np.ndarray | None = None,
    inplace: bool = False,
    axis: int = -1,
    backend: str = "auto",
    threads: int | None = None,
) -> np.ndarray:
    """Fast Walsh–Hadamard transform along ``axis`` in Sylvester (natural) order.

    Returns ``X @ H_d`` along ``axis`` (``H_d = scipy.linalg.hadamard(d)``,
    symmetric), divided by ``sqrt(d)`` when ``normalized=True`` (then the
    transform is orthogonal and an involution).  Cost ``d log2 d`` additions
    per vector; other axes are a batch.

    Parameters
    ----------
    X : array_like
        float32 or float64 (kept), or integers/bools (converted to float64).
    normalized : bool
        Divide by ``sqrt(d)``.
    out : ndarray, optional
        Array of ``X``'s shape and the result dtype to write into.
    inplace : bool
        Transform ``X`` itself (must be a writable float32/float64 ndarray).
        Otherwise the caller's array is never modified.
    axis : int
        Axis of length ``d``; ``d`` must be a power of two (``UsageError``
        otherwise — nothing is padded or truncated).
    backend : {"auto", "numpy", "numba"}
    threads : int, optional
        numba backend: rows are shared among this many threads (0: every available core;
        default: one, or what :func:`fwht_default_threads` sets, for batches of at least
        2**16 elements).  The result never depends on it (each row is transformed by the same
        code on whichever thread).  :func:`fwht_threads` tells how many a batch uses.

    Examples
    --------
    >>> import numpy as np
    >>> fwht(np.array([1.0, 0.0, 0.0, 0.0]))
    array([1., 1., 1., 1.])
    >>> fwht(np.array([1, 2, 3, 4]), backend="numpy")
    array([10., -2., -4.,  0.])
    """
    be = _resolve_backend(backend)
    _check_threads(threads)
    arr = _fwht_source(X, out, inplace)
    rdtype = _result_dtype(arr.dtype)
    if arr.ndim == 0:
        raise UsageError("fwht needs at least a 1-d array; got a scalar, pass a vector of length 2**k")
    ax = _norm_axis(axis, arr.ndim)
    d = _require_power_of_two(arr.shape[ax])
    target = arr if inplace else out
    if target is not None:
        _check_target(target, arr, rdtype)
    return _fwht_into(arr, ax, d, rdtype, target, be, threads, _scale_for(d, rdtype) if normalized else None)


def _fwht_source(X: Any, out: np.ndarray | None, inplace: bool) -> np.ndarray:
    """The array :func:`fwht` reads: ``X`` itself when ``inplace`` (validated), else ``numpy.asarray(X)``."""
    if not inplace:
        return np.asarray(X)
    if not isinstance(X, np.ndarray) or X.dtype not in _FLOAT_DTYPES:
        raise UsageError(
            "inplace=True needs X to be a float32 or float64 numpy array; "
            "convert it first or use inplace=False"
        )
    if not X.flags.writeable:
        raise UsageError("inplace=True needs a writable array; pass a copy or use inplace=False")
    if out is not None and out is not X:
        raise UsageError("inplace=True and out= were both given; pass only one of them")
    return X


def _check_target(target: Any, arr: np.ndarray, rdtype: np.dtype) -> None:
    if not isinstance(target, np.ndarray) or target.shape != arr.shape or target.dtype != rdtype:
        raise UsageError(
            f"out must be a numpy array of shape {arr.shape} and dtype {rdtype}; "
            "allocate it with np.empty_like(X, dtype=...)"
        )
    if not target.flags.writeable:
        raise UsageError("out is read-only; pass a writable array")


def _fwht_into(arr: np.ndarray, ax: int, d: int, rdtype: np.dtype, target: np.ndarray | None, be: str,
               threads: int | None, scale: Any) -> np.ndarray:
    """The transform of validated ``arr`` along ``ax`` into ``target`` (or a fresh array), scaled by ``scale``."""
    # Fast path: target is C-contiguous with the axis last -> work in target.  With the numba
    # backend a contiguous source of the result dtype is read by the kernel's first pass
    # (one pass over memory; a fresh result's pages are first touched there, by the threads).
    moved_shape = arr.shape[:ax] + arr.shape[ax + 1:] + (d,)
    last = ax == arr.ndim - 1
    direct = (last and be == "numba" and arr.dtype == rdtype and arr.flags.c_contiguous)
    if target is None and direct:
        target = np.empty(arr.shape, dtype=rdtype)
    if target is not None and last and target.flags.c_contiguous:
        src = None
        if target is not arr:
            if direct and not np.may_share_memory(target, arr):
                src = arr.reshape(-1, d)
            else:
                np.copyto(target, arr, casting="unsafe")
        buf = target.reshape(-1, d)
        _apply_rows(buf, be, threads, src=src, scale=scale)
        return target

    src = np.moveaxis(arr, ax, -1)
    buf = np.empty(moved_shape, dtype=rdtype)
    np.copyto(buf, src, casting="unsafe")  # always a copy: caller's data untouched
    flat = buf.reshape(-1, d)
    _apply_rows(flat, be, threads, scale=scale)
    if target is None:
        return np.moveaxis(buf, -1, ax)
    np.copyto(np.moveaxis(target, ax, -1), buf)
    return target


def _check_threads(threads: Any) -> None:
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, (int, np.integer))
                                or threads < 0):
        raise UsageError(f"threads={threads!r} must be a positive integer, 0 for every available core, "
                         "or None for the default (one thread unless fwht_default_threads says otherwise)")


def fwht_threads(shape: Any, threads: int | None = None, backend: str = "auto") -> int:
    """Threads :func:`fwht` uses on a batch of this shape (rows: all but the last axis)."""
    shape = tuple(int(s) for s in np.atleast_1d(shape))
    d = shape[-1] if shape else 1
    n = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
    if _resolve_backend(backend) != "numba" or n == 0 or d <= 1:
        return 1
    _check_threads(threads)
    from rfverify.implementations._fwht_numba import resolve_threads

    return resolve_threads(threads, n, d)


def fwht_default_threads(k: int) -> Any:
    """Context manager: calls without ``threads=`` (e.g. inside feature maps) use ``k`` threads (0: all cores)."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
        raise UsageError(f"threads={k!r} must be a positive integer, or 0 for every available core")
    from rfverify.implementations._fwht_numba import default_threads

    return default_threads(int(k))


def fwht_normalized(X: Any, **kw: Any) -> np.ndarray:
    """``fwht(X, normalized=True, **kw)``: the orthogonal transform ``X @ H_d / sqrt(d)`` (an involution)."""
    return fwht(X, normalized=True, **kw)


def _norm_axis(axis: int, ndim: int) -> int:
    try:
        axis = int(axis)
    except (TypeError, ValueError):
        raise UsageError(f"axis={axis!r} is not an integer; pass an int such as -1") from None
    if not -ndim <= axis < ndim:
        raise UsageError(f"axis={axis} is out of range for an array with {ndim} dimension(s)")
    return axis % ndim


# --------------------------------------------------------------------------
# HD blocks (SORF-style products)
# --------------------------------------------------------------------------
def _as_rows(X: Any, d: int, what: str) -> tuple[np.ndarray, tuple[int, ...]]:
    arr = np.asarray(X)
    rdtype = _result_dtype(arr.dtype)
    if arr.ndim == 0 or arr.shape[-1] != d:
        raise UsageError(
            f"{what} expects vectors of length d={d} along the last axis; got shape {arr.shape}"
        )
    buf = np.array(arr, dtype=rdtype, order="C", copy=True).reshape(-1, d)
    return buf, arr.shape


def hd_block(
    X: Any,
    diags: Any,
    *,
    normalized: bool = True,
    backend: str = "auto",
) -> np.ndarray:
    """Apply ``M = (H D_1)(H D_2)...(H D_k)`` to every row vector ``x`` of ``X``.

    ``diags`` is a ``(k, d)`` array (or sequence of length-``d`` vectors) with
    the diagonals of ``D_1, ..., D_k``; as an operator on a column vector the
    rightmost factor acts first, so ``D_k`` is applied first.  With
    ``normalized=True`` each ``H`` is ``H_d / sqrt(d)`` and ``M`` is orthogonal
    whenever every ``|D_i| = I`` (e.g. Rademacher diagonals):
    ``M^T M = D_k H ... H D_1 D_1 H ... H D_k = I`` because ``(H_d/sqrt d)^2 = I``
    and ``D_i^2 = I``.  With ``normalized=False`` the same product equals
    ``d^{k/2}`` times that orthogonal matrix.  The SORF matrix of Yu et al.
    (2016) is ``W = (sqrt(d) / sigma) · M`` with normalised ``H`` and ``k = 3``;
    its rows have norm ``sqrt(d)/sigma``.  Returns ``X @ M.T`` (rows ``M x``).
    """
    D = np.atleast_2d(np.asarray(diags))
    if D.ndim != 2:
        raise UsageError(f"diags must be a (k, d) array of diagonals; got shape {np.shape(diags)}")
    d = _require_power_of_two(D.shape[1], "an HD block")
    buf, shape = _as_rows(X, d, "hd_block")
    be = _resolve_backend(backend)
    D = D.astype(buf.dtype, copy=False)
    for i in range(D.shape[0] - 1, -1, -1):
        buf *= D[i]
        _apply_rows(buf, be, scale=_scale_for(d, buf.dtype) if normalized else None)
    return buf.reshape(shape)


class HDProduct:
    """Random ``M = (H D_1)(H D_2)...(H D_k)``, ``k = n_blocks`` in {1, 2, 3}.

    ``D_i`` are independent Rademacher (uniform ``±1``) diagonals and ``H`` is
    the normalised Hadamard matrix ``H_d / sqrt(d)``, so ``M`` is exactly
    orthogonal (see :func:`hd_block`).  Multiply by ``sqrt(d)/sigma`` to get the
    SORF projection (Yu et al. 2016; alber2017 §4 uses ``(1/sigma) H D_1...H D_i``
    without stating the normalisation of ``H`` — with unnormalised ``H`` and
    ``i`` blocks the rows would have norm ``d^{i/2}/sigma``, not ``sqrt(d)/sigma``).
    """

    def __init__(self, d: int, n_blocks: int = 3, rng: Any = None, *, dtype: Any = np.float64) -> None:
        self.d = _require_power_of_two(d, "an HD product")
        if int(n_blocks) not in (1, 2, 3):
            raise UsageError(f"n_blocks={n_blocks} is not supported; use 1, 2 or 3")
        self.n_blocks = int(n_blocks)
        self.dtype = _result_dtype(np.dtype(dtype))
        gen = np.random.default_rng(rng)
        self.diags = (2.0 * gen.integers(0, 2, size=(self.n_blocks, self.d)) - 1.0).astype(self.dtype)

    def apply(self, X: Any, *, backend: str = "auto") -> np.ndarray:
        """Rows ``M x`` for every row ``x`` of ``X`` (``X @ M.T``), in ``O(k d log d)`` each."""
        return hd_block(X, self.diags, normalized=True, backend=backend)

    def matrix(self) -> np.ndarray:
        """Dense ``M`` (for tests only): ``M = apply(I).T``."""
        return self.apply(np.eye(self.d, dtype=self.dtype), backend="numpy").T.copy()


# --------------------------------------------------------------------------
# Fastfood
# --------------------------------------------------------------------------
class Fastfood:
    """One Fastfood block ``V = (1/(sigma sqrt d)) S H G Π H B`` (Le, Sarlós, Smola 2013).

    * ``B``: diagonal, i.i.d. uniform ``±1``;
    * ``Π``: uniform random permutation, ``(Π v)_i = v[perm[i]]``;
    * ``G``: diagonal, i.i.d. ``N(0, 1)``;
    * ``H``: *unnormalised* Sylvester Hadamard ``H_d``;
    * ``S``: diagonal, ``S_ii = s_i / ||G||_F`` with ``s_i ~ chi(d)`` i.i.d.

    Why this ``S``: ``A = H G Π H B`` satisfies
    ``A A^T = H G Π H B B H Π^T G H = d · H G^2 H`` (``B^2 = I``, ``H^2 = d I``,
    ``Π Π^T = I``), whose diagonal is ``d · sum_j H_ij^2 G_jj^2 = d ||G||_F^2``.
    So every row of ``A / (sigma sqrt d)`` has norm ``||G||_F / sigma`` and after
    ``S`` row ``i`` has norm ``s_i / sigma`` — the law of the norm of a row of
    ``Z / sigma`` with ``Z`` a ``d``-dimensional standard Gaussian vector.
    Applied in ``O(d log d)`` with two FWHTs.
    """

    def __init__(self, d: int, rng: Any = None, *, sigma: float = 1.0, dtype: Any = np.float64) -> None:
        self.d = _require_power_of_two(d, "a Fastfood block")
        if not (np.isfinite(sigma) and sigma > 0):
            raise UsageError(f"sigma={sigma} must be a positive finite bandwidth")
        self.sigma = float(sigma)
        self.dtype = _result_dtype(np.dtype(dtype))
        gen = np.random.default_rng(rng)
        self.B = (2.0 * gen.integers(0, 2, size=self.d) - 1.0).astype(self.dtype)
        self.perm = gen.permutation(self.d)
        self.G = gen.standard_normal(self.d).astype(self.dtype)
        s = np.sqrt(gen.chisquare(self.d, size=self.d))
        self.S = (s / np.linalg.norm(self.G.astype(np.float64))).astype(self.dtype)

    def apply(self, X: Any, *, backend: str = "auto") -> np.ndarray:
        """Rows ``V x`` for each row ``x`` of ``X`` (``X @ V.T``)."""
        buf, shape = _as_rows(X, self.d, "Fastfood.apply")
        be = _resolve_backend(backend)
        buf *= self.B
        _apply_rows(buf, be)
        buf = np.ascontiguousarray(buf[:, self.perm])
        buf *= self.G
        _apply_rows(buf, be)
        buf *= (self.S / (self.sigma * math.sqrt(self.d))).astype(buf.dtype)
        return buf.reshape(shape)

    def matrix(self) -> np.ndarray:
        """Dense ``V`` built from its factors (independent of :meth:`apply`; for tests)."""
        d = self.d
        H = _hadamard_factor(d, np.dtype(np.float64).str) if d <= 4096 else None
        if H is None:
            raise UsageError(f"Fastfood.matrix() is for tests; d={d} is too large to materialise")
        P = np.eye(d)[self.perm]
        V = (np.diag(self.S.astype(float)) @ H @ np.diag(self.G.astype(float)) @ P @ H
             @ np.diag(self.B.astype(float)))
        return V / (self.sigma * math.sqrt(d))


# --------------------------------------------------------------------------
# Butterflies
# --------------------------------------------------------------------------
class Butterfly:
    """Random butterfly orthogonal matrix ``B^(d)`` (Genz 1998; munkhoeva2018 §2.4).

    Recursive definition for ``d = 2m``::

        B^(2m) = diag(B_1^(m), B_2^(m)) · [[c I_m, -s I_m], [s I_m, c I_m]],

    ``c = cos θ, s = sin θ``, ``B_1, B_2`` independent butterflies, ``B^(1) = [1]``.
    There are ``d - 1`` angles (one at the top level, two at the next, ...);
    for ``d = 4`` this reproduces the product displayed in munkhoeva2018 §2.4
    (``θ_2`` top, ``θ_1``/``θ_3`` in the blocks).  ``B`` is a product of
    rotations, hence ``det B = +1`` always.

    Angle law ``angles=``:

    * ``"uniform"`` (default; Genz 1998, used by munkhoeva2018): θ ~ U[0, 2π).
    * ``"beta"``: at a level joining two blocks of size ``m``, ``cos²θ ~
      Beta(m/2, m/2)`` with a uniform random quadrant.  Then every *column* of
      ``B`` is uniform on the sphere (a uniform vector on S^{2m-1} splits into
      halves of squared norm ``Beta(m/2, m/2)`` and independent uniform
      directions).

    Neither law gives Haar measure on SO(d) for ``d >= 4``: ``B`` depends on
    ``d - 1`` parameters but SO(d) has dimension ``d(d-1)/2``; and with
    uniform angles not even a column is uniform (e.g. for ``d = 4``
    ``||B e_1 top half||² = cos²θ_2`` is arcsine-distributed instead of
    U(0, 1)).  For ``d = 2`` both laws give Haar on SO(2).

    ``d`` must be a power of two; other ``d`` raise ``UsageError`` (Genz
    describes a general-``d`` variant, not implemented here; pad explicitly).
    ``apply`` costs ``2 d log2 d`` multiplications per vector and never forms
    the matrix; ``matrix()`` materialises it for tests.
    """

    def __init__(self, d: int, rng: Any = None, *, angles: str = "uniform") -> None:
        self.d = _require_power_of_two(d, "a butterfly matrix")
        if angles not in ("uniform", "beta"):
            raise UsageError(f"angles={angles!r} is unknown; use 'uniform' or 'beta'")
        self.angle_law = angles
        gen = np.random.default_rng(rng)
        thetas = []
        h = self.d // 2
        while h >= 1:  # top level first; the level with half-size h has d/(2h) angles
            nb = self.d // (2 * h)
            if angles == "uniform":
                th = gen.uniform(0.0, 2.0 * np.pi, size=nb)
            else:
                c2 = gen.beta(h / 2.0, h / 2.0, size=nb)
                th = np.arccos(np.sqrt(c2)) + (np.pi / 2.0) * gen.integers(0, 4, size=nb)
                # quadrant k adds k·π/2; it permutes (±c, ±s) so cos² stays Beta
            thetas.append(th)
            h //= 2
        self.thetas = thetas
        flat = np.concatenate(thetas) if thetas else np.zeros(0)
        self._cos = np.cos(flat)
        self._sin = np.sin(flat)

    def apply(self, X: Any, *, backend: str = "auto", threads: int | None = None) -> np.ndarray:
        """Rows ``B x`` for every row ``x`` of ``X`` (``X @ B.T``) in ``O(d log d)`` each.

        ``threads``: as for :func:`fwht` (numba backend; the result never depends on it).
        """
        _check_threads(threads)
        buf, shape = _as_rows(X, self.d, "Butterfly.apply")
        if self.d == 1 or buf.shape[0] == 0:
            return buf.reshape(shape)
        be = _resolve_backend(backend)
        cos = self._cos.astype(buf.dtype)
        sin = self._sin.astype(buf.dtype)
        if be == "numba":
            from rfverify.implementations._fwht_numba import kernels, run_rows

            k = kernels().butterfly_range
            run_rows(lambda lo, hi: k(buf, lo, hi, cos, sin), buf.shape[0], self.d, threads)
        else:
            self._apply_numpy(buf, cos, sin)
        return buf.reshape(shape)

    def _numpy_plan(self) -> list[tuple[int, int, int, int]]:
        """Level groups ``(first level, k levels, stride s, outer blocks nb)``, top level first.

        Levels are numbered from the top (level ``l`` has half-size ``h = d / 2^(l+1)``).
        ``k`` consecutive levels with half-sizes ``2^(k-1) s, ..., s`` mix, inside each
        outer block of ``b s`` entries (``b = 2^k``), the ``b`` entries
        ``r, r + s, ..., r + (b-1) s`` for every offset ``r < s`` by one ``b x b``
        orthogonal matrix that depends on the outer block only (the angle of a
        pair at level ``l`` is indexed by its position // 2h, the same for every r).
        """
        L = self.d.bit_length() - 1
        plan, first = [], 0
        for bits in _numpy_plan_bits(L, _BUTTERFLY_FACTOR_BITS):
            s = self.d >> (first + bits)
            plan.append((first, bits, s, self.d // ((1 << bits) * s)))
            first += bits
        return plan

    def _group_matrices(self, first: int, k: int, s: int, nb: int) -> np.ndarray:
        """``(nb, b, b)`` float64: the product of levels ``first .. first+k-1`` on each outer block."""
        b = 1 << k
        Ms = np.empty((nb, b, b))
        for c in range(nb):
            M = np.eye(b)
            for lvl in range(first, first + k):  # top level acts first: M <- R_lvl M
                h = self.d >> (lvl + 1)
                hh = h // s  # half-size in local units
                th = self.thetas[lvl]
                R = np.zeros((b, b))
                for j in range(b):
                    if (j // hh) % 2 == 0:  # top element of its pair
                        idx = (c * b * s + j * s) // (2 * h)
                        cs, sn = math.cos(th[idx]), math.sin(th[idx])
                        R[j, j], R[j, j + hh] = cs, -sn
                        R[j + hh, j], R[j + hh, j + hh] = sn, cs
                M = R @ M
            Ms[c] = M
        return Ms

    def _numpy_factors(self, dtype: np.dtype) -> list[tuple[int, int, np.ndarray]]:
        key = np.dtype(dtype).str
        cache = self.__dict__.setdefault("_factor_cache", {})
        if key not in cache:
            cache[key] = [(s, nb, self._group_matrices(first, k, s, nb).astype(dtype))
                          for first, k, s, nb in self._numpy_plan()]
        return cache[key]

    def _apply_numpy(self, buf: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> None:
        """In place, by dense ``b x b`` factors of up to ``2^_BUTTERFLY_FACTOR_BITS`` levels with BLAS.

        The ``log2 d`` levels are grouped like :func:`_numpy_plan` groups FWHT
        stages; each group is one batched ``matmul`` (``O(b)`` flops per entry
        instead of ``O(d)`` for the dense matrix), so the whole apply costs
        ``2 d sum_g b_g`` flops per row in a handful of BLAS calls.
        """
        n, d = buf.shape
        factors = self._numpy_factors(buf.dtype)
        rows = max(1, min(n, _NUMPY_CHUNK_ELEMS // d))
        spare_all = np.empty((rows, d), dtype=buf.dtype)
        for r0 in range(0, n, rows):
            chunk = buf[r0:r0 + rows]
            k = chunk.shape[0]
            cur, dst = chunk, spare_all[:k]
            for s, nb, Ms in factors:
                b = Ms.shape[1]
                if nb == 1:  # one matrix, stride s: (k, b, s) <- M @ (k, b, s)
                    np.matmul(Ms[0], cur.reshape(k, b, s), out=dst.reshape(k, b, s))
                elif s == 1:  # contiguous blocks, one matrix each: (nb, k, b) <- (nb, k, b) @ M^T
                    np.matmul(cur.reshape(k, nb, b).transpose(1, 0, 2), Ms.transpose(0, 2, 1),
                              out=dst.reshape(k, nb, b).transpose(1, 0, 2))
                else:
                    cv, dv = cur.reshape(k, nb, b, s), dst.reshape(k, nb, b, s)
                    for c in range(nb):
                        np.matmul(Ms[c], cv[:, c], out=dv[:, c])
                cur, dst = dst, cur
            if cur is not chunk:
                chunk[...] = cur

    def matrix(self) -> np.ndarray:
        """Dense ``B`` by the recursive definition (independent of :meth:`apply`)."""
        def build(level: int, index: int, size: int) -> np.ndarray:
            if size == 1:
                return np.ones((1, 1))
            th = self.thetas[level][index]
            m = size // 2
            B1 = build(level + 1, 2 * index, m)
            B2 = build(level + 1, 2 * index + 1, m)
            R = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
            top = np.zeros((size, size))
            top[:m, :m] = B1
            top[m:, m:] = B2
            return top @ np.kron(R, np.eye(m))

        return build(0, 0, self.d)

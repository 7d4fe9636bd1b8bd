"""The declared matrix of the transform kind as an operator: what the checks need of M without forming it.

A transform check needs four things of the declared matrix ``M`` at width ``d``:

* a float64 reference ``X M^T`` and a bound on that reference's own error,
* ``|M| |x|`` (the componentwise scale of round-off) and ``‖M‖₂`` (the normwise one),
* whether ``M`` exists at another width (the dimension probe; :class:`rfverify.kinds.transform.DeclaredMatrix`).

A dense matrix (a user's array or ``M(d)``) gives them at O(d²) per row, its 2-norm computed once per
operator (an SVD, O(d³)) and cached.  The Sylvester Hadamard matrix gives them from its structure at
O(d log d) per row and never forms ``M``: ``‖H_d‖₂ = sqrt d`` (``H_d H_d^T = d I``), ``|H_d|`` is all ones so
``(|H_d| |x|)_i = ‖x‖₁``, and the reference is :func:`reference_fwht`, a float64 radix-2 butterfly written
here, independent of the reference schemes (a transform under test is never its own reference), whose error
bound :func:`rfverify.tolerances.fwht_reference_error` derives.

>>> op = HadamardOperator(4, normalized=True)
>>> op.norm2(), op.reference(np.array([[1.0, 0.0, 0.0, 0.0]])).tolist()
(1.0, [[0.5, 0.5, 0.5, 0.5]])
"""

from __future__ import annotations

import math

import numpy as np

from rfverify.tolerances import fwht_reference_error, roundoff_inner_product, transform_allowance, transform_tolerance

__all__ = ["MatrixOperator", "DenseOperator", "HadamardOperator", "reference_fwht"]

_TINY = np.finfo(np.float64).tiny


def reference_fwht(X: np.ndarray) -> np.ndarray:
    """``X @ H_d`` row by row in float64 (``H_d`` Sylvester, natural order) by the radix-2 butterfly.

    Level h = 1, 2, 4, ..., d/2 maps each pair ``(a, b)`` at distance h within blocks of 2h to
    ``(a + b, a - b)``: ``H_{2h} = [[H_h, H_h], [H_h, -H_h]]``.  log2 d levels of one rounded addition or
    subtraction per value, so ``|fl(Hx)_i - (Hx)_i| <= γ_{log2 d} ‖x‖₁``
    (:func:`rfverify.tolerances.fwht_reference_error`).  Written with numpy slices rather than taken from
    :mod:`rfverify.implementations.structured`, so that rfverify's own FWHT is checked against an
    independent reference.  O(n d log d) time, two (n, d) float64 buffers.

    >>> reference_fwht(np.array([[1.0, 2.0, 3.0, 4.0]])).tolist()
    [[10.0, -2.0, -4.0, 0.0]]
    """
    A = np.array(X, dtype=np.float64, copy=True, order="C")
    n, d = A.shape
    if d & (d - 1):
        raise ValueError(f"reference_fwht needs a power-of-two width, got d={d}")
    B = np.empty_like(A)
    h = 1
    while h < d:
        src, dst = A.reshape(n, d // (2 * h), 2, h), B.reshape(n, d // (2 * h), 2, h)
        np.add(src[:, :, 0], src[:, :, 1], out=dst[:, :, 0])
        np.subtract(src[:, :, 0], src[:, :, 1], out=dst[:, :, 1])
        A, B = B, A
        h *= 2
    return A


class MatrixOperator:
    """The declared matrix at one width ``d``: a float64 reference, ``|M| |x|``, ``‖M‖₂`` and the tolerance.

    Subclasses implement :meth:`reference`, :meth:`abs_apply`, :meth:`norm2`, :meth:`reference_error` and
    :meth:`dense`; :meth:`tolerance` combines them.  Every input is an (n, d) array of rows.
    """

    d: int

    def reference(self, X: np.ndarray) -> np.ndarray:
        """``X M^T`` in float64 (the rows ``M x``)."""
        raise NotImplementedError

    def abs_apply(self, A: np.ndarray) -> np.ndarray:
        """``A |M|^T`` for a nonnegative float64 ``A``: shape (n, d), or (n, 1) when equal across outputs."""
        raise NotImplementedError

    def norm2(self) -> float:
        """``‖M‖₂`` (the largest singular value)."""
        raise NotImplementedError

    def reference_error(self, X: np.ndarray, comp: np.ndarray) -> np.ndarray:
        """Bound on ``|reference(X) - X M^T|`` given ``comp = |X| |M|^T``."""
        raise NotImplementedError

    def dense(self) -> np.ndarray:
        """M itself, (d, d) float64 — O(d²) memory: for messages and tests, never needed by the checks."""
        raise NotImplementedError

    def tolerance(self, X: np.ndarray, dtype: np.dtype) -> np.ndarray:
        """Elementwise bound on ``|apply(X) - reference(X)|`` for a correct transform of ``dtype`` input.

        :func:`rfverify.tolerances.transform_allowance` (the plug-in's round-off) plus
        :meth:`reference_error` (``|apply(x) - fl(Mx)| <= |apply(x) - Mx| + |Mx - fl(Mx)|``); shape (n, d).
        """
        X64 = np.asarray(X, dtype=np.float64)
        comp = self.abs_apply(np.abs(X64))
        x_norm = np.linalg.norm(X64, axis=1, keepdims=True)
        tol = transform_allowance(comp, x_norm, self.norm2(), self.d, dtype) + self.reference_error(X64, comp)
        return np.broadcast_to(tol + _TINY, (X64.shape[0], self.d))


class DenseOperator(MatrixOperator):
    """A dense M: reference ``X @ M.T`` (O(n d²)); ``|M|`` and ‖M‖₂ computed once and cached.

    Its :meth:`tolerance` equals :func:`rfverify.tolerances.transform_tolerance` (the same formula, with the
    norm and ``|M|`` reused across calls instead of recomputed).
    """

    def __init__(self, M: np.ndarray) -> None:
        self.M = np.asarray(M, dtype=np.float64)
        self.d = self.M.shape[0]
        self._abs: np.ndarray | None = None
        self._norm: float | None = None

    def reference(self, X: np.ndarray) -> np.ndarray:
        return np.asarray(X, dtype=np.float64) @ self.M.T

    def _abs_m(self) -> np.ndarray:
        if self._abs is None:
            self._abs = np.abs(self.M)
        return self._abs

    def abs_apply(self, A: np.ndarray) -> np.ndarray:
        return A @ self._abs_m().T

    def norm2(self) -> float:
        if self._norm is None:
            self._norm = float(np.linalg.norm(self.M, 2))
        return self._norm

    def reference_error(self, X: np.ndarray, comp: np.ndarray) -> np.ndarray:
        return roundoff_inner_product(self.d, np.float64) * comp

    def dense(self) -> np.ndarray:
        return self.M

    def tolerance(self, X: np.ndarray, dtype: np.dtype) -> np.ndarray:
        return transform_tolerance(np.asarray(X), self.M, dtype, norm2=self.norm2(), abs_M=self._abs_m())


class HadamardOperator(MatrixOperator):
    """The Sylvester Hadamard matrix ``H_d`` (``scipy.linalg.hadamard``), divided by sqrt d if ``normalized``.

    From the structure alone: ``‖H_d‖₂ = sqrt d`` (1 normalised), ``|H_d| |x| = ‖x‖₁`` in every output
    (``/ sqrt d`` normalised), the reference :func:`reference_fwht` with the bound
    :func:`rfverify.tolerances.fwht_reference_error`.  O(n d log d) per call; M is never formed.
    """

    def __init__(self, d: int, *, normalized: bool = False) -> None:
        if d < 1 or d & (d - 1):
            raise ValueError(f"a Sylvester Hadamard matrix needs d a power of two, got d={d}")
        self.d, self.normalized = d, normalized
        self.scale = 1.0 / math.sqrt(d) if normalized else 1.0

    def reference(self, X: np.ndarray) -> np.ndarray:
        Y = reference_fwht(X)  # H_d is symmetric: X @ H_d.T = X @ H_d
        if self.normalized:  # times 2^(-L/2): exact for even L, two roundings for odd L (fwht_reference_error)
            L = self.d.bit_length() - 1
            if L % 2:
                Y *= math.sqrt(0.5)
            Y = np.ldexp(Y, -(L // 2))
        return Y

    def abs_apply(self, A: np.ndarray) -> np.ndarray:
        return self.scale * A.sum(axis=1, keepdims=True)

    def norm2(self) -> float:
        return 1.0 if self.normalized else math.sqrt(self.d)

    def reference_error(self, X: np.ndarray, comp: np.ndarray) -> np.ndarray:
        return fwht_reference_error(np.abs(X).sum(axis=1, keepdims=True), self.d, normalized=self.normalized)

    def dense(self) -> np.ndarray:
        from scipy.linalg import hadamard

        return hadamard(self.d).astype(np.float64) * self.scale

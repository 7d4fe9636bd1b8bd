"""Transform exactness and linearity: apply(X) equals X @ M.T to a derived round-off tolerance."""

from __future__ import annotations


import numpy as np
from numpy.typing import DTypeLike

from rfverify.errors import PluginError
from rfverify.registry import Finding, register_check
from rfverify.results import CheckResult
from rfverify.tolerances import roundoff_inner_product
from rfverify.kinds.matrices import DenseOperator, MatrixOperator
from rfverify.kinds.transform import TransformContext

__all__ = ["exactness_violation", "DTYPES"]

#: A float64 transform's largest error, relative to its largest output, in this range looks computed in float32
#: (float32's eps 1.2e-7 times a modest d; float64 round-off is 1e-16 times d).
FLOAT32_LIKE = (1e-9, 1e-4)
#: Input dtypes every transform is exercised with.
DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def exactness_violation(Y: np.ndarray, X: np.ndarray, M: np.ndarray | MatrixOperator,
                        dtype: DTypeLike | None = None) -> tuple[float, str | None]:
    """``(max err/tol, message or None)`` comparing ``Y`` with ``X @ M.T`` (M dense, or an operator)."""
    worst, found = _violation(Y, X, M, dtype)
    if found is None:
        return worst, None
    return worst, (f"{found.observed}, but should be {found.expected} ({found.where})"
                   + (f"; {found.cause}" if found.cause else ""))


def _violation(Y: np.ndarray, X: np.ndarray, M: np.ndarray | MatrixOperator,
               dtype: DTypeLike | None = None) -> tuple[float, Finding | None]:
    """``(max err/tol, the worst entry as a Finding or None)`` comparing ``Y`` with ``X @ M.T``; ``dtype``: the
    precision the plug-in was handed X in (default X's: a JAX plug-in without x64 gets float32)."""
    op = M if isinstance(M, MatrixOperator) else DenseOperator(M)
    ref = op.reference(X)
    dtype = np.dtype(X.dtype if dtype is None else dtype)
    tol = op.tolerance(X, dtype)
    err = np.abs(np.asarray(Y, dtype=np.float64) - ref)
    ratio = err / tol
    worst = float(np.max(ratio)) if ratio.size else 0.0
    if worst <= 1.0:
        return worst, None
    r, c = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
    hint = _diagnose(np.asarray(Y, dtype=np.float64), ref)
    rel = float(np.max(err)) / max(float(np.max(np.abs(ref))), 1e-300)
    if not hint and dtype == np.float64 and FLOAT32_LIKE[0] < rel < FLOAT32_LIKE[1]:
        hint = (f"the error is {rel:.2g} of the largest output: float32's precision (eps 1.2e-7), not float64's "
                "— computed in float32 (a silent downcast)?")
    return worst, Finding(f"|apply(X) - X @ M.T| = {err[r, c]:.3g} at row {r}, column {c}",
                          f"<= {tol[r, c]:.3g} (the round-off bound)",
                          where=f"n={X.shape[0]}, d={X.shape[1]}, {X.dtype} input, {np.asarray(Y).dtype} output",
                          cause=hint)


def _diagnose(Y: np.ndarray, ref: np.ndarray) -> str:
    """A hint at common transform bugs: a constant factor, permuted outputs, a transposed batch."""
    mask = np.abs(ref) > 1e-8 * max(float(np.max(np.abs(ref))), 1e-300)
    if mask.sum() >= 2:
        c = float(np.sum(Y[mask] * ref[mask]) / np.sum(ref[mask] ** 2))
        if abs(c - 1.0) > 1e-3 and np.allclose(Y, c * ref, rtol=1e-3, atol=1e-6 * np.max(np.abs(ref))):
            return f"apply(X) is {c:.6g} x X @ M.T everywhere: a normalisation not as claimed"
    if Y.shape == ref.shape and Y.shape[1] > 1:
        atol = 1e-6 * max(float(np.max(np.abs(ref))), 1e-300)
        ya, ra = np.sort(np.abs(Y), axis=1), np.sort(np.abs(ref), axis=1)
        # outputs close to the right ones in place (an error just above round-off) are no permutation
        if np.allclose(ya, ra, rtol=1e-4, atol=atol) and not np.allclose(Y, ref, rtol=1e-4, atol=atol):
            return "the outputs are a permutation of the right ones: a different row order of M (sequency order?)"
    return ""


def _inputs(ctx: TransformContext, n: int, dtype: np.dtype) -> np.ndarray:
    return ctx.rng("X", n, str(dtype)).standard_normal((n, ctx.dim)).astype(dtype)


@register_check("transform", "transform-exactness", statistical=False,
                cost="2 dtypes x batch sizes (1, 2, 3, 17, 64 at default) applications and references "
                     "(O(n d log d) for a Hadamard matrix, O(n d^2) for a dense one)")
def check_exactness(ctx: TransformContext) -> CheckResult:
    """apply(X) equals X @ M.T, row by row, to a derived round-off tolerance, for every batch size and dtype.

    Property: ``apply(X)[i] = M X[i]`` for every row, every batch size n and
    float32/float64 input.
    Test: Gaussian X (seeded per n and dtype) with n over the profile's batch
    sizes (default 1, 2, 3, 17, 64: including n = 1 and n != d, which expose a
    transform along the wrong axis) and both dtypes, against the float64
    reference of ``X @ M.T`` (a float64 FWHT for a Hadamard matrix, the dense
    product otherwise: :mod:`rfverify.kinds.matrices`) with the tolerance
    :meth:`~rfverify.kinds.matrices.MatrixOperator.tolerance` (Higham's γ_{d+3}
    of the input's dtype plus the reference's own bound); a transform that
    raises on a valid batch fails.
    Deterministic: no alpha.
    Applies to: every transform.  Catches: sequency (Walsh) order for natural
    order, a skipped last stage, the wrong axis, normalisation not as claimed,
    silent downcasting.
    Reference: N. J. Higham, Accuracy and Stability of Numerical Algorithms,
    2nd ed. (2002), Lemma 3.1, eq. (3.5) and §3.5.
    """
    worst, msgs, cases = 0.0, [], []
    for dtype in DTYPES:
        for n in ctx.config.budget.ns:
            X = _inputs(ctx, n, dtype)
            try:
                Y = ctx.apply(X)
            except PluginError as exc:
                msgs.append(Finding(f"apply raised: {exc.problem}", "X @ M.T", where=f"n={n}, {dtype}"))
                cases.append({"n": n, "dtype": str(dtype), "error": exc.problem})
                continue
            ratio, found = _violation(Y, X, ctx.operator, ctx.config.plugin.working_dtype(X.dtype))
            worst = max(worst, ratio)
            cases.append({"n": n, "dtype": str(dtype), "max_err_over_tol": ratio, "out_dtype": str(Y.dtype)})
            if found:
                msgs.append(found)
    details = {"cases": cases, "matrix": ctx.config.matrix.name}
    if msgs:
        first = msgs[0]
        return ctx.fail(f"apply(X) != X @ M.T for M = {ctx.config.matrix.name} in {len(msgs)} of {len(cases)} cases",
                        first.observed, first.expected, where="first failing case: " + first.where,
                        cause=first.cause, statistic=worst, threshold=1.0, details=details)
    return ctx.result("pass", f"equals X @ M.T (M = {ctx.config.matrix.name}) in all {len(cases)} cases; worst "
                      f"error {worst:.2g} x the round-off bound", statistic=worst, threshold=1.0, details=details)


#: Exactly representable coefficients for the linearity check.
LIN_A, LIN_B = 2.5, -0.75


@register_check("transform", "transform-linearity", statistical=False,
                cost="3 applications per dtype at n = 8")
def check_linearity(ctx: TransformContext) -> CheckResult:
    """apply(a X1 + b X2) = a apply(X1) + b apply(X2) to round-off.

    Property: the transform is linear (as any ``X @ M.T`` is).
    Test: a = 2.5, b = -0.75 (exact in binary), Gaussian X1, X2 with 8 rows, both
    dtypes; tolerance ``|a| t(X1) + |b| t(X2) + t(aX1 + bX2) + γ_2 (|a||Y1| + |b||Y2|)``
    with t the operator's :meth:`~rfverify.kinds.matrices.MatrixOperator.tolerance` of each application.
    Deterministic.
    Applies to: every transform.  Catches: data-dependent scaling (dividing by
    a norm), offsets, state carried between calls.
    Reference: Higham (2002), eq. (3.5).
    """
    worst, msgs = 0.0, []
    for given in DTYPES:
        dtype = ctx.config.plugin.working_dtype(given)  # the precision the plug-in computes in
        X1 = ctx.rng("X1", str(given)).standard_normal((8, ctx.dim)).astype(given)
        X2 = ctx.rng("X2", str(given)).standard_normal((8, ctx.dim)).astype(given)
        X3 = (LIN_A * X1.astype(np.float64) + LIN_B * X2.astype(np.float64)).astype(given)
        Y1, Y2, Y3 = (np.asarray(ctx.apply(X), dtype=np.float64) for X in (X1, X2, X3))
        op = ctx.operator
        comb = LIN_A * Y1 + LIN_B * Y2
        tol = (abs(LIN_A) * op.tolerance(X1, dtype) + abs(LIN_B) * op.tolerance(X2, dtype) + op.tolerance(X3, dtype)
               + roundoff_inner_product(2, np.float64) * (abs(LIN_A) * np.abs(Y1) + abs(LIN_B) * np.abs(Y2)))
        # X3 was rounded to dtype: its deviation from a X1 + b X2 propagates through M
        tol = tol + roundoff_inner_product(1, dtype) * op.abs_apply(
            np.abs(LIN_A * X1.astype(np.float64) + LIN_B * X2.astype(np.float64)))
        err = np.abs(Y3 - comb)
        ratio = err / tol
        worst = max(worst, float(ratio.max()))
        if ratio.max() > 1:
            r, c = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
            msgs.append(Finding(f"|apply(aX1 + bX2) - (a apply(X1) + b apply(X2))| = {err[r, c]:.3g}",
                                f"<= {tol[r, c]:.3g} (the round-off bound)",
                                where=f"{dtype} input, row {r}, column {c}"))
    if msgs:
        return ctx.fail("not linear", findings=msgs,
                        where=f"a = {LIN_A}, b = {LIN_B}, X1 and X2 of 8 rows, d = {ctx.dim}",
                        cause="a data-dependent scaling (dividing by a norm), an offset, or state carried between "
                              "calls?", statistic=worst, threshold=1.0)
    return ctx.result("pass", f"linear to {worst:.2g} x the round-off bound (a = {LIN_A}, b = {LIN_B})",
                      statistic=worst, threshold=1.0)

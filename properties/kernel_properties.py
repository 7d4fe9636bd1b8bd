"""Kernel-level checks: symmetry, positive semi-definiteness (with a witness set), normalisation.

A kernel in the cs4787 lecture's sense (lecture 16, "Which functions K are kernels?") is a
symmetric K(x, y) = K(y, x) whose Gram matrix on any finite point set is positive
semi-definite.  These checks are deterministic: the point sets are fixed by the root seed
(:data:`rfverify.kinds.kernel.PLAN`), and each tolerance is a derived round-off bound, so a
correct kernel never fails (no false alarms by construction) and a failure is a certificate —
for PSD, a small witness set of points whose Gram matrix has a negative eigenvalue.
"""

from __future__ import annotations

from typing import Callable, TypedDict

import numpy as np

from rfverify.kinds.kernel import KernelContext, KernelOverflow, PointSet
from rfverify.tolerances import evaluation_tolerance, psd_tolerance
from rfverify.registry import register_check
from rfverify.results import CheckResult

#: A witness must keep at least this fraction of the full set's negative eigenvalue (and exceed its
#: own round-off tolerance), so it is clearly indefinite, not a round-off artefact.
WITNESS_FRACTION = 0.1
#: Coordinates printed per witness point in the failure message (all of them are in ``details``).
MESSAGE_COORDS = 16


def _fmt_vec(v: np.ndarray, limit: int = MESSAGE_COORDS) -> str:
    v = np.asarray(v, dtype=float).ravel()
    body = ", ".join(f"{x:.4g}" for x in v[:limit])
    return "[" + body + (f", ... ({v.size} values)" if v.size > limit else "") + "]"


def _evaluate(ctx: KernelContext, ps: PointSet, X: np.ndarray, Y: np.ndarray) -> np.ndarray | None:
    """The Gram block, or None when the kernel overflows on a set beyond the length scale (skipped)."""
    try:
        return ctx.config.evaluate(X, Y)
    except KernelOverflow:
        if ps.multiple > 1.0:
            return None
        raise


class _SetRow(TypedDict, total=False):
    """One point set's row in a check's ``details["sets"]``: an overflowing set has ``overflow`` and no figures."""

    set: int
    family: str
    n: int
    scale: float
    overflow: bool
    max_cross: float
    max_gram: float
    tolerance: float
    lambda_min: float
    norm2: float


def _overflow_row(ps: PointSet) -> _SetRow:
    return {"set": ps.index, "family": ps.family, "n": ps.n, "scale": ps.scale, "overflow": True}


def _overflow_note(rows: list[_SetRow]) -> str:
    over = [r["set"] for r in rows if r.get("overflow")]
    return (f"; skipped set{'s' if len(over) > 1 else ''} {', '.join(map(str, over))}: the kernel's values "
            "overflow float64 at that input scale") if over else ""


def _sym(K: np.ndarray) -> np.ndarray:
    return 0.5 * (K + K.T)


def _tol_for(K: np.ndarray, ctx: KernelContext, r2: float) -> float:
    w = np.linalg.eigvalsh(_sym(K))
    return psd_tolerance(K.shape[0], ctx.dim, ctx.config.dtype, r2, float(np.max(np.abs(K))),
                         float(np.max(np.abs(w))), ctx.config.accuracy)


def shrink_witness(K: np.ndarray, v: np.ndarray, clear: float, tol: Callable[[np.ndarray], float]) -> list[int]:
    """A small index set S with lambda_min(K[S, S]) < -max(clear, tol(K[S, S])).

    Greedy, two passes: (1) the shortest prefix of the points ordered by |v| (v the eigenvector of
    the full set's most negative eigenvalue) whose principal submatrix is still clearly
    indefinite; (2) drop single points (smallest |v_S| first) while it stays so.  By Cauchy
    interlacing a principal submatrix is never *more* indefinite than K, so the full set is always
    a (last-resort) witness.
    """
    def bad(S: list[int]) -> tuple[bool, float]:
        sub = _sym(K[np.ix_(S, S)])
        lam = float(np.linalg.eigvalsh(sub)[0])
        return lam < -max(clear, tol(sub)), lam

    order = [int(i) for i in np.argsort(-np.abs(v), kind="stable")]
    S = order
    for k in range(1, len(order) + 1):
        if bad(order[:k])[0]:
            S = order[:k]
            break
    changed = True
    while changed and len(S) > 1:
        changed = False
        sub = _sym(K[np.ix_(S, S)])
        w, V = np.linalg.eigh(sub)
        for j in np.argsort(np.abs(V[:, 0]), kind="stable"):
            T = [S[i] for i in range(len(S)) if i != j]
            if bad(T)[0]:
                S, changed = T, True
                break
    return sorted(S)


@register_check("kernel", "kernel-symmetry", statistical=False,
                cost="budget.symmetry_sets point sets (default 6): K(X, Y), K(Y, X) and K(X, X) on halves")
def check_symmetry(ctx: KernelContext) -> CheckResult:
    """k(x, y) = k(y, x): K(X, Y) equals K(Y, X)^T, and the Gram matrix K(X, X) is symmetric, to round-off.

    Property: symmetry, the first half of the lecture's definition of a kernel.
    Test: on the first ``budget.symmetry_sets`` point sets, split into halves X and Y, the largest
    |K(X, Y) - K(Y, X)^T| and |K(X, X) - K(X, X)^T| against eta max|K|, eta =
    EVAL_CONSTANT gamma_{d+2}(u) (1 + r^2) the relative evaluation round-off of one value
    (Higham 2002, eq. 3.5; u of the dtype the kernel returns, r the largest input norm in length
    scales).  Deterministic: no alpha; a correct kernel cannot fail.
    Applies to: every kernel.  Catches: k(x, y) computed with x and y in different roles (a
    one-sided scaling, |x - c y|, a transposed argument), non-deterministic callables.  On
    failure the witness pair (x, y) with k(x, y) and k(y, x) is reported.
    Reference: cs4787 lecture 16 ("By symmetric, we mean that K(x, y) = K(y, x)").
    """
    cfg = ctx.config
    rows: list[_SetRow] = []
    worst = None  # (excess ratio, set, i, j, kxy, kyx, where)
    for ps in cfg.point_sets(ctx.budget.symmetry_sets):
        h = max(1, ps.n // 2)
        X, Y = ps.X[:h], ps.X[h:] if ps.n > 1 else ps.X
        KXY = _evaluate(ctx, ps, X, Y)
        KYX = _evaluate(ctx, ps, Y, X)
        KXX = _evaluate(ctx, ps, ps.X, ps.X)
        if KXY is None or KYX is None or KXX is None:
            rows.append(_overflow_row(ps))
            continue
        scale = max(float(np.max(np.abs(KXY))), float(np.max(np.abs(KXX))), np.finfo(float).tiny)
        tol = evaluation_tolerance(cfg.dtype, ctx.dim, ps.r2, cfg.accuracy) * scale
        D1 = np.abs(KXY - KYX.T)
        D2 = np.abs(KXX - KXX.T)
        a1, a2 = float(D1.max()), float(D2.max())
        rows.append({"set": ps.index, "family": ps.family, "n": ps.n, "max_cross": a1, "max_gram": a2,
                     "tolerance": tol})
        for D, val, which in ((D1, a1, "cross"), (D2, a2, "gram")):
            ratio = val / tol
            if worst is None or ratio > worst[0]:
                i, j = np.unravel_index(int(np.argmax(D)), D.shape)
                if which == "cross":
                    x, y, kxy, kyx = X[i], Y[j], KXY[i, j], KYX[j, i]
                else:
                    x, y, kxy, kyx = ps.X[i], ps.X[j], KXX[i, j], KXX[j, i]
                worst = (ratio, ps, x, y, float(kxy), float(kyx), which, tol)
    assert worst is not None
    ratio, ps, x, y, kxy, kyx, which, tol = worst
    details = {"sets": rows, "dtype": str(cfg.dtype), "worst_ratio": ratio}
    if ratio > 1.0:
        details["witness"] = {"x": x.tolist(), "y": y.tolist(), "k_xy": kxy, "k_yx": kyx}
        n_bad = sum(1 for r in rows if not r.get("overflow") and max(r["max_cross"], r["max_gram"]) > r["tolerance"])
        src = "K(X, Y) vs K(Y, X)^T" if which == "cross" else "the Gram matrix K(X, X) vs its transpose"
        return ctx.fail("not symmetric",
                        f"k(x, y) = {kxy:.10g} but k(y, x) = {kyx:.10g} (|difference| {abs(kxy - kyx):.3g})",
                        f"k(x, y) = k(y, x): |difference| <= {tol:.3g} (the round-off tolerance)",
                        where=f"{ps.describe()}, {src}, at x = {_fmt_vec(x)}, y = {_fmt_vec(y)}",
                        note=f"{n_bad} of {len(rows)} point sets asymmetric",
                        statistic=abs(kxy - kyx), threshold=tol, details=details)
    return ctx.result("pass", f"symmetric on {sum(not r.get('overflow') for r in rows)} point sets: largest "
                      f"|k(x, y) - k(y, x)| is {ratio:.2g} of the round-off tolerance ({cfg.dtype})"
                      + _overflow_note(rows), statistic=ratio, threshold=1.0, details=details)


@register_check("kernel", "kernel-psd", statistical=False,
                cost="budget.psd_sets Gram matrices (default 12, n <= 96) and their eigenvalues; witness search")
def check_psd(ctx: KernelContext) -> CheckResult:
    """Every Gram matrix is positive semi-definite: its smallest eigenvalue is >= -tolerance.

    Property: sum_ij c_i c_j k(x_i, x_j) >= 0 for all points and coefficients (the lecture's
    definition), i.e. lambda_min(K) >= 0 for every Gram matrix K.
    Test: the Gram matrices of the first ``budget.psd_sets`` point sets of the plan (sizes 8 to
    96 at the default profile; i.i.d., mixed-norm and clustered sets at 0.1 to 3 length scales),
    symmetrised, eigenvalues by ``eigvalsh``; lambda_min is compared with
    -tol, tol = n eta max|K| + EIG_CONSTANT n u ||K||_2 (:func:`rfverify.tolerances.psd_tolerance`:
    Weyl's inequality for the evaluation error plus LAPACK's backward-error bound for the
    symmetric eigenproblem).  Deterministic: no alpha; a PSD kernel evaluated within round-off
    cannot fail.  On failure a **witness set** is reported: a few points (greedy shrinking, see
    :func:`shrink_witness`) whose own Gram matrix has an eigenvalue below -max(tol,
    WITNESS_FRACTION |lambda_min|), with their coordinates, that eigenvalue and its eigenvector c
    (so c^T K c < 0 can be checked by hand).
    Applies to: every kernel.  A kernel declared not PSD (the registry's ``sigmoid``, or
    ``psd=False``) is expected to fail: a witness is then reported with status xfail; no witness
    passes with a note.
    Catches: tanh "sigmoid" kernels, exp(+gamma r^2) sign errors, truncated expansions such as
    1 - gamma r^2, conditionally-PD-only kernels (additive chi^2), non-kernels.
    Reference: cs4787 lecture 16 (PSD definition and the list of kernels); H. Weyl (1912);
    LAPACK Users' Guide, 3rd ed., §4.7; H.-T. Lin & C.-J. Lin (2003), "A study on sigmoid kernels
    for SVM and the training of non-PSD kernels by SMO-type methods".
    """
    cfg = ctx.config
    rows, failing = _psd_sets(ctx)
    details: dict[str, object] = {"sets": rows, "dtype": str(cfg.dtype), "declared_psd": cfg.psd}
    done = [r for r in rows if not r.get("overflow")]
    lo = min(done, key=lambda r: r["lambda_min"] / max(r["tolerance"], np.finfo(float).tiny))
    if not failing:
        msg = (f"{len(done)} Gram matrices (n = {min(r['n'] for r in done)}..{max(r['n'] for r in done)}) "
               f"positive semi-definite; closest to the bound: smallest eigenvalue {lo['lambda_min']:.3g} "
               f">= -{lo['tolerance']:.3g} (set {lo['set']})" + _overflow_note(rows))
        if not cfg.psd:
            msg = f"declared not PSD ({cfg.psd_note}), but no negative eigenvalue found here: " + msg
        return ctx.result("pass", msg, statistic=lo["lambda_min"], threshold=-lo["tolerance"], details=details)
    ps, K, lam, tol, S = _smallest_witness(ctx, failing)
    Xw = ps.X[S]
    Kw = cfg.evaluate(Xw, Xw)  # re-evaluated on the witness points alone
    ww, Vw = np.linalg.eigh(_sym(Kw))
    c = Vw[:, 0]
    n_bad = len(failing)
    details["witness"] = {"set": ps.index, "indices": S, "points": Xw.tolist(), "gram": Kw.tolist(),
                          "eigenvalue": float(ww[0]), "eigenvector": c.tolist(),
                          "tolerance": _tol_for(Kw, ctx, ps.r2)}
    pts = "; ".join(f"x{i + 1} = {_fmt_vec(x)}" for i, x in enumerate(Xw))
    norm2 = float(np.max(np.abs(np.linalg.eigvalsh(_sym(K)))))
    expected_finding = not cfg.psd  # declared not PSD: the finding is expected (xfail)
    return ctx.fail(
        "not positive semi-definite",
        f"the Gram matrix has smallest eigenvalue {lam:.4g} (||K||_2 = {norm2:.3g})",
        f">= -{tol:.3g} (the round-off tolerance)",
        where=(f"{ps.describe()}; witness: {len(S)} point{'s' if len(S) != 1 else ''} whose Gram matrix has "
               f"eigenvalue {float(ww[0]):.4g} with eigenvector c = {_fmt_vec(c)} (c^T K c < 0): {pts}"),
        note=f"{n_bad} of {len(done)} point sets indefinite",
        status="xfail" if expected_finding else "fail",
        prefix=f"expected finding ({cfg.psd_note}): " if expected_finding else "",
        statistic=lam, threshold=-tol, details=details)


def _normalisation_applies(ctx: KernelContext) -> str | None:
    if not ctx.config.normalized:
        return ("k(x, x) = 1 is not claimed (registry: not normalised; claim it with normalized=True / "
                "--normalized)")
    return None


@register_check("kernel", "kernel-normalisation", statistical=False, applies=_normalisation_applies,
                cost="the diagonals of budget.psd_sets Gram matrices")
def check_normalisation(ctx: KernelContext) -> CheckResult:
    """k(x, x) = 1 at every point, where the kernel is claimed normalised.

    Property: k(x, x) = 1 (rbf, Laplacian, the registry's normalised composites, or a user's
    claim).
    Test: the diagonal of the Gram matrices of the first ``budget.psd_sets`` point sets against 1
    with the relative evaluation round-off eta = EVAL_CONSTANT gamma_{d+2}(u) (1 + r^2) as
    tolerance (:func:`rfverify.tolerances.evaluation_tolerance`).  Deterministic: no alpha.
    Applies to: kernels claimed normalised (registry ``normalized=True``, derived for composites
    by :func:`rfverify.kernels.composition.diagonal_constant`, or ``normalized=True`` / ``--normalized``);
    skipped with the reason otherwise.
    Catches: a missing normalisation, a scaled kernel (2 k), a sum claimed normalised.
    Reference: cs4787 lecture 16 (the RBF kernel has K(x, x) = 1).
    """
    cfg = ctx.config
    worst: tuple[float, PointSet, int, float, float] | None = None
    total = bad = 0
    for ps in cfg.point_sets(ctx.budget.psd_sets):
        K = _evaluate(ctx, ps, ps.X, ps.X)
        if K is None:
            continue
        diag = np.diag(K)
        tol = evaluation_tolerance(cfg.dtype, ctx.dim, ps.r2, cfg.accuracy)
        err = np.abs(diag - 1.0)
        total += diag.size
        bad += int(np.sum(err > tol))
        i = int(np.argmax(err))
        ratio = float(err[i]) / tol
        if worst is None or ratio > worst[0]:
            worst = (ratio, ps, i, float(diag[i]), tol)
    assert worst is not None
    ratio, ps, i, val, tol = worst
    details = {"points": total, "off": bad, "worst_value": val, "tolerance": tol, "dtype": str(cfg.dtype)}
    if ratio > 1.0:
        details["witness"] = {"x": ps.X[i].tolist(), "k_xx": val}
        return ctx.fail("not normalised", f"k(x, x) = {val:.10g}", f"1 ± {tol:.2g} (the round-off tolerance)",
                        where=f"x = {_fmt_vec(ps.X[i])} ({ps.describe()})", note=f"{bad} of {total} points off",
                        statistic=abs(val - 1.0), threshold=tol, details=details)
    return ctx.result("pass", f"k(x, x) = 1 within {tol:.2g} at {total} points (largest deviation "
                      f"{abs(val - 1.0):.2g})", statistic=abs(val - 1.0), threshold=tol, details=details)


def _psd_sets(ctx: KernelContext) -> tuple[list[_SetRow], list[tuple[PointSet, np.ndarray, np.ndarray, float, float]]]:
    """Each point set's smallest eigenvalue against its tolerance; the indefinite ones with their eigenvector."""
    cfg = ctx.config
    rows: list[_SetRow] = []
    failing: list[tuple[PointSet, np.ndarray, np.ndarray, float, float]] = []
    for ps in cfg.point_sets(ctx.budget.psd_sets):
        K = _evaluate(ctx, ps, ps.X, ps.X)
        if K is None:
            rows.append(_overflow_row(ps))
            continue
        # eigh of K / max|K| (eigenvalues scale with it, up to one rounding): entries
        # near 1e193 (exp(+gamma r^2) mutants) otherwise overflow inside LAPACK and it does not converge
        scale = float(np.max(np.abs(K)))
        scale = scale if np.isfinite(scale) and scale > 0 else 1.0
        try:
            w, V = np.linalg.eigh(_sym(K) / scale)
        except np.linalg.LinAlgError:
            rows.append(_overflow_row(ps))
            continue
        w = w * scale
        norm2 = float(np.max(np.abs(w)))
        tol = psd_tolerance(ps.n, ctx.dim, cfg.dtype, ps.r2, float(np.max(np.abs(K))), norm2, cfg.accuracy)
        lam = float(w[0])
        rows.append({"set": ps.index, "family": ps.family, "n": ps.n, "scale": ps.scale, "lambda_min": lam,
                     "norm2": norm2, "tolerance": tol})
        if lam < -tol:
            failing.append((ps, K, V[:, 0], lam, tol))
    return rows, failing


def _smallest_witness(ctx: KernelContext, failing: list[tuple[PointSet, np.ndarray, np.ndarray, float, float]]
                      ) -> tuple[PointSet, np.ndarray, float, float, list[int]]:
    """(point set, its Gram matrix, lambda_min, tolerance, witness indices) of the smallest witness."""
    # a witness from every indefinite set; report the smallest (then the most negative relative eigenvalue)
    best = None
    for ps_i, K_i, v_i, lam_i, tol_i in failing:
        S_i = shrink_witness(K_i, v_i, WITNESS_FRACTION * abs(lam_i), lambda sub: _tol_for(sub, ctx, ps_i.r2))
        sub = _sym(K_i[np.ix_(S_i, S_i)])
        key = (len(S_i), float(np.linalg.eigvalsh(sub)[0]) / max(float(np.max(np.abs(sub))), np.finfo(float).tiny))
        if best is None or key < best[0]:
            best = (key, ps_i, K_i, lam_i, tol_i, S_i)
    assert best is not None
    _, ps, K, lam, tol, S = best
    return ps, K, lam, tol, S

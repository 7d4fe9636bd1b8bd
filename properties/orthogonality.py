"""Orthogonality to round-off: Q^T Q = Q Q^T = I within a tolerance derived from the dtype and d."""

from __future__ import annotations

import numpy as np

from rfverify.kinds.orthogonal import OrthogonalContext
from rfverify.registry import register_check
from rfverify.results import CheckResult
from rfverify.tolerances import orthogonality_tolerance

@register_check("orthogonal", "orthogonality", statistical=False,
                cost="budget.ortho_draws matrices (default 16), two d x d products each")
def check_orthogonality(ctx: OrthogonalContext) -> CheckResult:
    """Every sampled matrix is orthogonal to round-off: max|Q^T Q - I| and max|Q Q^T - I| within tolerance.

    Property: Q^T Q = Q Q^T = I.
    Test: ``budget.ortho_draws`` independent draws, products formed in float64,
    compared with the derived bound ``2 c d^2 u(dtype) + γ_d(float64)``
    (c = ORTHO_CONSTANT = 4; Higham 2002 Lemma 19.3 for d Householder
    reflections), with ``u`` the unit round-off of the dtype the sampler
    returns: a float32 sampler is judged at float32 precision.  Deterministic:
    no alpha.
    Applies to: every orthogonal sampler.  Catches: normalised but
    unorthogonalised rows, a missing re-orthogonalisation, transposed
    half-updates.
    Reference: N. J. Higham, Accuracy and Stability of Numerical Algorithms,
    2nd ed. (2002), §19.3, Lemma 19.3 and Theorem 19.4.
    """
    b = ctx.budget
    Qs = ctx.config.draws("orthogonality", 0, b.ortho_draws)
    d = ctx.dim
    tol = orthogonality_tolerance(d, ctx.dtype)
    eye = np.eye(d)
    errs_c = np.abs(np.einsum("nki,nkj->nij", Qs, Qs) - eye).max(axis=(1, 2))
    errs_r = np.abs(np.einsum("nik,njk->nij", Qs, Qs) - eye).max(axis=(1, 2))
    worst = np.maximum(errs_c, errs_r)
    t = int(np.argmax(worst))
    details = {"draws": b.ortho_draws, "dtype": str(ctx.dtype), "tolerance": tol,
               "max_QtQ_minus_I": errs_c.tolist(), "max_QQt_minus_I": errs_r.tolist()}
    if worst[t] > tol:
        which = "Q^T Q" if errs_c[t] >= errs_r[t] else "Q Q^T"
        norms = np.linalg.norm(Qs[t], axis=1)
        hint = ""
        if np.allclose(norms, 1.0, atol=1e3 * tol) and errs_c[t] > 1e-3:
            hint = "rows have unit norm but are not mutually orthogonal: normalised, not orthogonalised?"
        return ctx.fail("not orthogonal", f"max|{which} - I| = {worst[t]:.3g}",
                        f"<= {tol:.3g} (round-off tolerance, d={d}, {ctx.dtype})",
                        where=f"draw {t}; {int(np.sum(worst > tol))} of {len(worst)} draws exceed it", cause=hint,
                        statistic=float(worst[t]), threshold=tol, details=details)
    return ctx.result("pass", f"{len(worst)} draws orthogonal to {worst.max():.2g} (tolerance {tol:.2g}, {ctx.dtype})",
                      statistic=float(worst.max()), threshold=tol, details=details)

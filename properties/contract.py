"""Contract: the feature map behaves like a fitted, deterministic transform.

Deterministic checks (no false alarms beyond round-off): they use no
statistical test and have no alpha.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rfverify.adapters import FittedMap
from rfverify.errors import PluginError
from rfverify.kinds.feature_map import CheckContext
from rfverify.refusals import refusal_of
from rfverify.registry import Finding, register_check
from rfverify.results import CheckResult
from rfverify.tolerances import contract_tolerance, propagated_roundoff

CONTRACT_M = 64
SINGLE_ROWS = 4


@register_check("feature-map", "contract", statistical=False, cost="3 fits, ~10 transforms")
def check_contract(ctx: CheckContext) -> CheckResult:
    """Output shape (n, m) with m fixed after fit; finite real or complex values; fit-once semantics.

    Property: after ``fit``, ``transform`` is a deterministic function of its
    input row by row — calling it twice gives the same features, row i of
    ``transform(X)`` equals ``transform(X[i:i+1])``, and the number of columns
    does not depend on the batch — and ``fit`` leaves the constructor
    parameters as given (scikit-learn's rule).
    Test: exact recomputation, compared with a round-off tolerance
    ``256 * gamma_{d+2} * max|Phi|`` (Higham's inner-product bound with a
    margin for the nonlinearity); no randomness is judged, so no alpha.
    Applies to: every feature map.  Catches: a fresh random draw on every
    ``transform`` call (which also makes Re(Phi(X) Phi(Y)*) biased), state
    mutated by ``transform``, batch-dependent features.
    Reference: the plug-in contract (README, "The plug-in contract").
    """
    Z = ctx.stacked_inputs()
    rs = ctx.random_state("contract", trial=0)
    plugin = ctx.plugin
    problems: list[Finding] = []
    details: dict[str, object] = {}
    # the parameters as text, taken now: get_params returns the objects themselves, and a fit that changes a
    # mutable parameter in place (a dict of options) would otherwise compare it with itself
    before_user = _reprs(plugin.params_of(plugin.obj)) if plugin.form == "instance" else None
    obj = plugin.build(CONTRACT_M, rs)
    before = _reprs(plugin.params_of(obj))
    fitted = plugin.fit_built(obj, CONTRACT_M, rs, Z)
    if before is not None:
        after = _reprs(plugin.params_of(obj)) or {}
        changed = sorted(k for k in before if before[k] != after.get(k))
        if changed:
            problems.append(Finding(
                "fit changed constructor parameter(s) " + ", ".join(
                    f"{k}: {before[k]} -> {after.get(k)}" for k in changed),
                "fit leaves the constructor parameters as given (scikit-learn's rule)",
                cause="fit writes to the parameters it was constructed with; store fitted state in attributes "
                      "ending in _"))
    F1 = fitted.transform(Z)
    n, m_out = F1.shape
    details["m_out"] = m_out
    details["dtype"] = str(F1.dtype)
    details["n_components"] = CONTRACT_M
    tol = contract_tolerance(ctx.dim, F1)
    details["tolerance"] = tol
    F2 = fitted.transform(Z)
    diff_repeat = float(np.max(np.abs(F1 - F2)))
    details["repeat_max_abs_diff"] = diff_repeat
    if diff_repeat > tol:
        problems.append(Finding(
            f"transform is not deterministic after fit: two calls on the same {n} rows differ by up to "
            f"{diff_repeat:.3g}",
            f"identical features, to the round-off tolerance {tol:.3g}",
            cause="a fresh random draw in transform — draw the randomness in fit, not in transform"))
    rows = np.unique(np.linspace(0, n - 1, SINGLE_ROWS).astype(int))
    worst = 0.0
    diffs: list[np.ndarray] = []
    width = 1  # rows per small batch: 1, or the smallest batch the plug-in accepts when it refuses one row
    for i in rows:
        Fi, start, width = _small_batch(fitted, Z, int(i), width, details)
        if Fi.shape[1] != m_out:
            problems.append(Finding(f"transform of {width} row{'s' if width > 1 else ''} (row {i}) returned "
                                    f"{Fi.shape[1]} columns", f"{m_out} columns, as for {n} rows",
                                    cause="the number of features depends on the batch"))
            diffs = []
            break
        diffs.append(np.max(np.abs(Fi - F1[start:start + width]), axis=0))
        worst = max(worst, float(np.max(diffs[-1])))
    details["single_row_max_abs_diff"] = worst
    row_tol = tol
    if worst > tol and diff_repeat <= tol and diffs:
        # beyond the margin's round-off: bound it by the map's own sensitivity at these rows (no assumption on the
        # size of its arguments); only then, so that the common case costs no extra transform
        bound = propagated_roundoff(ctx.dim, F1.dtype, feature_sensitivity(fitted, Z[rows], F1.dtype)) + tol
        details["propagated_tolerance"] = float(np.max(bound))
        if bool(np.all(np.stack(diffs) <= bound)):
            details["single_row_within"] = ("the round-off of the inner products propagated through the map's own "
                                            "sensitivity, element by element (tolerances.propagated_roundoff)")
            row_tol = float(np.max(bound))
    if worst > row_tol and diff_repeat <= tol:
        problems.append(Finding(
            f"row i of transform(X) differs from transform(X[i:i+1]) by up to {worst:.3g}",
            f"the same features row by row, to the round-off tolerance {tol:.3g}",
            where=f"rows {', '.join(str(int(i)) for i in rows)} of {n}",
            cause="features must not depend on the rest of the batch (a batch statistic, a cache keyed by "
                  "shape?)"))
    # the dtype needs no finding: the adapter (guard.as_array) refuses what is not numeric and makes integers and
    # bools float64 before any check sees them
    if before_user is not None:
        after_user = _reprs(plugin.params_of(plugin.obj)) or {}
        changed = sorted(k for k in before_user if before_user[k] != after_user.get(k))
        if changed:
            problems.append(Finding("the estimator instance passed in was modified: " + ", ".join(changed),
                                    "the instance passed in left as it was (rfverify fits a copy of it)"))
    if m_out != CONTRACT_M:
        details["note"] = (f"n_components={CONTRACT_M} gave {m_out} output columns; checks use the "
                           f"output width m={m_out} for bounds")
    if problems:
        return ctx.fail("breaks the feature-map contract", findings=problems,
                        where=f"n_components={CONTRACT_M} ({m_out} output columns), {n} input rows, d = {ctx.dim}",
                        statistic=max(diff_repeat, worst), threshold=row_tol, details=details)
    row_note = (f"; row by row {worst:.2g}, within the round-off propagated through the map's sensitivity "
                f"({row_tol:.2g})") if row_tol > tol else ""
    return ctx.result("pass", f"shape ({n}, {m_out}) fixed after fit, {F1.dtype} finite, deterministic "
                      f"to {diff_repeat if row_tol > tol else max(diff_repeat, worst):.2g} (tolerance {tol:.2g})"
                      f"{row_note}" + (f"; {details['small_batch_refused']}" if "small_batch_refused" in details else ""),
                      statistic=max(diff_repeat, worst), threshold=max(tol, row_tol), details=details)


#: The largest small batch tried when the plug-in refuses smaller ones (:mod:`rfverify.refusals`).
SMALL_BATCH_MAX = 8


def _small_batch(fitted: Any, Z: np.ndarray, i: int, width: int,
                 details: dict[str, object]) -> tuple[np.ndarray, int, int]:
    """transform of the ``width`` rows of Z from row i (moved back to fit in Z); a plug-in that cleanly refuses
    a batch that small (``ValueError("X must have at least 2 rows")``) is asked for twice as many rows, up to
    SMALL_BATCH_MAX — the property "a row's features do not depend on the rest of the batch" is then judged on
    the smallest batch it accepts, and details["small_batch_refused"] says so.  Returns (features, first row,
    width)."""
    while True:
        start = max(0, min(i, len(Z) - width))
        try:  # a width that depends on the batch is judged by the caller
            return fitted.transform(Z[start:start + width], judge_width=True), start, width
        except PluginError as exc:
            ref = refusal_of(exc)
            if ref is None or width >= min(SMALL_BATCH_MAX, len(Z)):
                raise
            details["small_batch_refused"] = (f"the plug-in refuses batches of {width} row{'s' if width > 1 else ''} "
                                              f"({ref.text()}); rows judged in batches of {2 * width}")
            width *= 2


def _reprs(params: dict[str, object] | None) -> dict[str, str] | None:
    return None if params is None else {k: repr(v) for k, v in params.items()}


def feature_sensitivity(fitted: FittedMap, X: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """S[i, k] = sum_j |X[i, j]| |d Phi[i, k] / d x_j| by forward differences (d transforms of these rows), the
    step sqrt(eps) of the features' dtype relative to each row's largest coordinate (also used by ``explore``)."""
    fdt = np.dtype(dtype).type if np.dtype(dtype).kind == "f" else np.float64
    rel = float(np.sqrt(np.finfo(fdt).eps))
    base = np.asarray(fitted.transform(X))
    fitted.n_out = None
    h = rel * np.maximum(np.max(np.abs(X), axis=1), 1e-300)
    S = np.zeros(base.shape, dtype=np.float64)
    for j in range(X.shape[1]):
        Xp = X.copy()
        Xp[:, j] += h
        step = Xp[:, j] - X[:, j]  # the step actually taken (representable)
        Fp = np.asarray(fitted.transform(Xp))
        fitted.n_out = None
        with np.errstate(divide="ignore", invalid="ignore"):
            D = np.where(step[:, None] != 0, np.abs(Fp - base) / step[:, None], 0.0)
        S += np.abs(X[:, j])[:, None] * D
    return S

"""Contract: the feature map behaves like a fitted, deterministic transform.

Deterministic checks (no false alarms beyond round-off): they use no
statistical test and have no alpha.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import DTypeLike

from rfverify.adapters import FittedMap
from rfverify.errors import PluginError
from rfverify.kinds.feature_map import CheckContext
from rfverify.refusals import refusal_of
from rfverify.measurement import Measurement, detail
from rfverify.registry import Finding, register_check
from rfverify.results import CheckResult
from rfverify.tolerances import contract_tolerance, propagated_roundoff

CONTRACT_M = 64
SINGLE_ROWS = 4


@dataclass(frozen=True)
class ContractPlan:
    """The stacked inputs every transform sees and the random_state of the one fit."""

    Z: np.ndarray
    random_state: int


@dataclass(frozen=True, kw_only=True)
class ContractMeasurement(Measurement):
    """Recomputations of one fitted map: twice on the same rows, row by row, and its parameters around the fit."""

    m_out: int = detail("columns transform returned at n_components = CONTRACT_M")
    dtype: str = detail("dtype of the features")
    n_components: int = detail("n_components asked for (CONTRACT_M)")
    tolerance: float = detail("round-off tolerance 256 gamma_{d+2} max|Phi| (tolerances.contract_tolerance)")
    repeat_max_abs_diff: float = detail("largest difference between two transforms of the same rows")
    small_batch_refused: str | None = detail("the plug-in refused small batches: which, and the batch judged instead",
                                             optional=True)
    single_row_max_abs_diff: float = detail("largest difference between a row of transform(X) and the same row "
                                            "transformed alone")
    propagated_tolerance: float | None = detail("row by row beyond the tolerance: the round-off propagated through "
                                                "the map's own sensitivity (tolerances.propagated_roundoff)",
                                                optional=True)
    single_row_within: str | None = detail("row by row within that propagated bound: says so", optional=True)
    note: str | None = detail("the map returned another width than asked (the checks use the width returned)",
                              optional=True)
    n_rows: int = detail("rows of the stacked inputs", internal=True)
    params_changed: list[tuple[str, str, str]] = detail("(name, before, after) of constructor parameters fit changed",
                                                        internal=True)
    instance_changed: list[str] = detail("parameters of the instance passed in that changed", internal=True)
    batch_columns: tuple[int, int, int] | None = detail("(rows, row, columns) of a small batch of another width",
                                                        internal=True, default=None)
    rows: list[int] = detail("the rows transformed alone", internal=True)
    row_tolerance: float = detail("the tolerance row by row (the propagated bound when it holds)", internal=True)


@register_check("feature-map", "contract", statistical=False, cost="3 fits, ~10 transforms",
                measurement=ContractMeasurement)
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
    return verdict(ctx, measure(ctx, design(ctx)))


def design(ctx: CheckContext, pilot: None = None) -> ContractPlan:
    """No pilot: the stacked inputs and one random_state."""
    return ContractPlan(ctx.stacked_inputs(), ctx.random_state("contract", trial=0))


def _changed(before: dict[str, str] | None, after: dict[str, str] | None) -> list[tuple[str, str, str]]:
    if before is None:
        return []
    after = after or {}
    return [(k, before[k], str(after.get(k))) for k in sorted(before) if before[k] != after.get(k)]


def _row_by_row(fitted: FittedMap, Z: np.ndarray, F1: np.ndarray,
                rows: np.ndarray) -> tuple[list[np.ndarray], float, tuple[int, int, int] | None, str | None]:
    """Each row transformed alone (or in the smallest batch accepted) against its row of F1: the per-row
    differences, the largest, a batch of another width (rows, row, columns), and the refusal note."""
    worst, diffs, width, refused = 0.0, [], 1, None
    for i in rows:
        Fi, start, width, note = _small_batch(fitted, Z, int(i), width)
        refused = note or refused
        if Fi.shape[1] != F1.shape[1]:
            return [], worst, (width, int(i), int(Fi.shape[1])), refused
        diffs.append(np.max(np.abs(Fi - F1[start:start + width]), axis=0))
        worst = max(worst, float(np.max(diffs[-1])))
    return diffs, worst, None, refused


def measure(ctx: CheckContext, plan: ContractPlan) -> ContractMeasurement:
    """One fit (parameters read before and after), two transforms of the same rows, rows one by one."""
    Z, rs, plugin = plan.Z, plan.random_state, ctx.plugin
    # the parameters as text, taken now: get_params returns the objects themselves, and a fit that changes a
    # mutable parameter in place (a dict of options) would otherwise compare it with itself
    before_user = _reprs(plugin.params_of(plugin.obj)) if plugin.form == "instance" else None
    obj = plugin.build(CONTRACT_M, rs)
    before = _reprs(plugin.params_of(obj))
    fitted = plugin.fit_built(obj, CONTRACT_M, rs, Z)
    params_changed = _changed(before, _reprs(plugin.params_of(obj))) if before is not None else []
    F1 = fitted.transform(Z)
    n, m_out = F1.shape
    tol = contract_tolerance(ctx.dim, F1)
    diff_repeat = float(np.max(np.abs(F1 - fitted.transform(Z))))
    rows = np.unique(np.linspace(0, n - 1, SINGLE_ROWS).astype(int))
    diffs, worst, batch_columns, refused = _row_by_row(fitted, Z, F1, rows)
    row_tol, propagated, within = tol, None, None
    if worst > tol and diff_repeat <= tol and diffs:
        # beyond the margin's round-off: bound it by the map's own sensitivity at these rows (no assumption on the
        # size of its arguments); only then, so that the common case costs no extra transform
        bound = propagated_roundoff(ctx.dim, F1.dtype, feature_sensitivity(fitted, Z[rows], F1.dtype)) + tol
        propagated = float(np.max(bound))
        if bool(np.all(np.stack(diffs) <= bound)):
            within = ("the round-off of the inner products propagated through the map's own "
                      "sensitivity, element by element (tolerances.propagated_roundoff)")
            row_tol = propagated
    # the dtype needs no finding: the adapter (guard.as_array) refuses what is not numeric and makes integers and
    # bools float64 before any check sees them
    instance_changed = ([k for k, _, _ in _changed(before_user, _reprs(plugin.params_of(plugin.obj)))]
                        if before_user is not None else [])
    note = (f"n_components={CONTRACT_M} gave {m_out} output columns; checks use the "
            f"output width m={m_out} for bounds") if m_out != CONTRACT_M else None
    return ContractMeasurement(
        m_out=m_out, dtype=str(F1.dtype), n_components=CONTRACT_M, tolerance=tol, repeat_max_abs_diff=diff_repeat,
        small_batch_refused=refused, single_row_max_abs_diff=worst, propagated_tolerance=propagated,
        single_row_within=within, note=note, n_rows=n, params_changed=params_changed,
        instance_changed=instance_changed, batch_columns=batch_columns, rows=[int(i) for i in rows],
        row_tolerance=row_tol)


def _findings(ctx: CheckContext, ms: ContractMeasurement) -> list[Finding]:
    """Every broken rule of the contract, in the order they are checked."""
    tol, n, worst = ms.tolerance, ms.n_rows, ms.single_row_max_abs_diff
    problems: list[Finding] = []
    if ms.params_changed:
        problems.append(Finding(
            "fit changed constructor parameter(s) " + ", ".join(f"{k}: {b} -> {a}" for k, b, a in ms.params_changed),
            "fit leaves the constructor parameters as given (scikit-learn's rule)",
            cause="fit writes to the parameters it was constructed with; store fitted state in attributes "
                  "ending in _"))
    if ms.repeat_max_abs_diff > tol:
        problems.append(Finding(
            f"transform is not deterministic after fit: two calls on the same {n} rows differ by up to "
            f"{ms.repeat_max_abs_diff:.3g}",
            f"identical features, to the round-off tolerance {tol:.3g}",
            cause="a fresh random draw in transform — draw the randomness in fit, not in transform"))
    if ms.batch_columns is not None:
        width, i, cols = ms.batch_columns
        problems.append(Finding(f"transform of {width} row{'s' if width > 1 else ''} (row {i}) returned "
                                f"{cols} columns", f"{ms.m_out} columns, as for {n} rows",
                                cause="the number of features depends on the batch"))
    if worst > ms.row_tolerance and ms.repeat_max_abs_diff <= tol:
        problems.append(Finding(
            f"row i of transform(X) differs from transform(X[i:i+1]) by up to {worst:.3g}",
            f"the same features row by row, to the round-off tolerance {tol:.3g}",
            where=f"rows {', '.join(str(i) for i in ms.rows)} of {n}",
            cause="features must not depend on the rest of the batch (a batch statistic, a cache keyed by "
                  "shape?)"))
    if ms.instance_changed:
        problems.append(Finding("the estimator instance passed in was modified: " + ", ".join(ms.instance_changed),
                                "the instance passed in left as it was (rfverify fits a copy of it)"))
    return problems


def verdict(ctx: CheckContext, ms: ContractMeasurement) -> CheckResult:
    """Every broken rule as one finding of a failure, or a pass stating how deterministic the map is."""
    tol, row_tol, worst, diff_repeat = ms.tolerance, ms.row_tolerance, ms.single_row_max_abs_diff, ms.repeat_max_abs_diff
    details = ms.to_details()
    problems = _findings(ctx, ms)
    if problems:
        return ctx.fail("breaks the feature-map contract", findings=problems,
                        where=f"n_components={CONTRACT_M} ({ms.m_out} output columns), {ms.n_rows} input rows, "
                              f"d = {ctx.dim}",
                        statistic=max(diff_repeat, worst), threshold=row_tol, details=details)
    row_note = (f"; row by row {worst:.2g}, within the round-off propagated through the map's sensitivity "
                f"({row_tol:.2g})") if row_tol > tol else ""
    return ctx.result("pass", f"shape ({ms.n_rows}, {ms.m_out}) fixed after fit, {ms.dtype} finite, deterministic "
                      f"to {diff_repeat if row_tol > tol else max(diff_repeat, worst):.2g} (tolerance {tol:.2g})"
                      f"{row_note}" + (f"; {ms.small_batch_refused}" if ms.small_batch_refused else ""),
                      statistic=max(diff_repeat, worst), threshold=max(tol, row_tol), details=details)


#: The largest small batch tried when the plug-in refuses smaller ones (:mod:`rfverify.refusals`).
SMALL_BATCH_MAX = 8


def _small_batch(fitted: FittedMap, Z: np.ndarray, i: int, width: int) -> tuple[np.ndarray, int, int, str | None]:
    """transform of the ``width`` rows of Z from row i (moved back to fit in Z); a plug-in that cleanly refuses
    a batch that small (``ValueError("X must have at least 2 rows")``) is asked for twice as many rows, up to
    SMALL_BATCH_MAX — the property "a row's features do not depend on the rest of the batch" is then judged on
    the smallest batch it accepts, and the returned note (details["small_batch_refused"]) says so.  Returns
    (features, first row, width, note or None)."""
    note = None
    while True:
        start = max(0, min(i, len(Z) - width))
        try:  # a width that depends on the batch is judged by the caller
            return fitted.transform(Z[start:start + width], judge_width=True), start, width, note
        except PluginError as exc:
            ref = refusal_of(exc)
            if ref is None or width >= min(SMALL_BATCH_MAX, len(Z)):
                raise
            note = (f"the plug-in refuses batches of {width} row{'s' if width > 1 else ''} "
                    f"({ref.text()}); rows judged in batches of {2 * width}")
            width *= 2


def _reprs(params: dict[str, object] | None) -> dict[str, str] | None:
    return None if params is None else {k: repr(v) for k, v in params.items()}


def feature_sensitivity(fitted: FittedMap, X: np.ndarray, dtype: DTypeLike) -> np.ndarray:
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

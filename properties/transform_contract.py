"""Transform contract: the caller's array is left alone unless in-place is declared; a d the transform
cannot take is refused with an error, never padded or truncated."""

from __future__ import annotations

import numpy as np

from rfverify.errors import PluginError
from rfverify.registry import Finding, register_check
from rfverify.results import CheckResult
from rfverify.kinds.transform import TransformContext

INPUT_ROWS = 5


@register_check("transform", "transform-input", statistical=False,
                cost="3 applications (float64 C-order, float32, a strided view)")
def check_input_untouched(ctx: TransformContext) -> CheckResult:
    """The caller's array is unmodified after apply, unless in-place is declared.

    Property: without ``inplace``, ``apply(X)`` leaves X bit-for-bit unchanged
    (C-contiguous float64, float32, and a non-contiguous view of a larger
    array, whose parent is also compared).  With ``inplace`` declared, X may
    be overwritten — then it must hold either the original data or the result.
    Test: exact comparison with a copy taken before the call.  Deterministic.
    Applies to: every transform.  Catches: an in-place transform presented as
    out-of-place (the caller's data silently destroyed).
    Reference: the plug-in contract of the transform kind (README).
    """
    d = ctx.dim
    rng = ctx.rng("X")
    cases: dict[str, np.ndarray] = {
        "float64": rng.standard_normal((INPUT_ROWS, d)),
        "float32": rng.standard_normal((INPUT_ROWS, d)).astype(np.float32),
    }
    parent = rng.standard_normal((2 * INPUT_ROWS, d))
    problems, notes = [], []
    for label, X in list(cases.items()) + [("strided view", parent[::2])]:
        problem, note = _input_case(ctx, label, X, parent if label == "strided view" else None)
        problems += [problem] if problem is not None else []
        notes += [note] if note is not None else []
    details = {"inplace_declared": ctx.config.inplace, "notes": notes}
    if problems:
        hint = "" if ctx.config.inplace else ("an in-place transform presented as out-of-place — copy the input, "
                                              "or declare --inplace")
        return ctx.fail("apply modified its input", findings=problems, cause=hint, details=details)
    moved = any(n.endswith("as declared") for n in notes)
    return ctx.result("pass", "caller's arrays unchanged" + (" or transformed in place, as declared" if moved else "")
                      + (f" ({'; '.join(notes)})" if notes else ""),
                      details=details)


def _input_case(ctx: TransformContext, label: str, X: np.ndarray,
                parent: np.ndarray | None) -> tuple[Finding | None, str | None]:
    """(the finding, a note) of one input case; ``parent``: the array ``X`` is a strided view of."""
    before = (X if parent is None else parent).copy()
    try:
        Y = ctx.config.plugin(X)
    except PluginError as exc:
        if parent is None:
            raise
        return None, f"a strided view raised ({exc.problem}); pass contiguous arrays"
    after = X if parent is None else parent
    if np.array_equal(after, before):
        return None, None
    untouched_rest = parent is None or np.array_equal(parent[1::2], before[1::2])
    if ctx.config.inplace and untouched_rest and np.array_equal(np.asarray(X), np.asarray(Y, dtype=X.dtype)):
        return None, f"{label}: transformed in place, as declared"
    changed = int(np.sum(after != before))
    return Finding(
        f"{changed} of {before.size} entries of the caller's array changed"
        + ("" if not ctx.config.inplace else " to something that is neither the input nor the result"),
        "the caller's array bit-for-bit unchanged" if not ctx.config.inplace else
        "the caller's array holding the input or the result (in place, as declared)",
        where=f"{label} input of shape {tuple(X.shape)}"), None


def _probe_dims(ctx: TransformContext) -> list[int]:
    d = ctx.dim
    cands = [d + 1, d - 1, d + 2, 3, 2 * d + 1]
    out: list[int] = []
    for c in cands:
        if c >= 1 and c != d and c not in out and not ctx.config.matrix.defined(c):
            out.append(c)
    return out[:2]


def _probe_applies(ctx: TransformContext) -> str | None:
    if not _probe_dims(ctx):
        return "the declared matrix is defined at every probed width, so there is no width to refuse"
    return None


@register_check("transform", "transform-dimension", statistical=False, applies=_probe_applies,
                cost="2 applications at widths where M is undefined")
def check_dimension_probe(ctx: TransformContext) -> CheckResult:
    """A width the transform cannot take is refused with a clear error — never silently padded or truncated.

    Property: for a width d' where the declared matrix does not exist (for
    Hadamard: d' not a power of two), ``apply`` raises an exception with a
    message instead of returning a result.
    Test: probes at the first two of d + 1, d - 1, d + 2, 3, 2d + 1 where M is
    undefined; a returned array fails (its shape says whether it padded or
    truncated), an exception passes and its message is recorded.  Deterministic.
    Applies to: transforms whose declared matrix is undefined at some probed width.
    Catches: zero-padding to the next power of two, truncation, wrapping.
    Reference: the plug-in contract of the transform kind (README).
    """
    rng = ctx.rng("probe")
    problems, errors = [], []
    for dp in _probe_dims(ctx):
        X = rng.standard_normal((3, dp))
        try:
            Y = np.asarray(ctx.config.plugin.raw(X))
        except PluginError:  # sys.exit, MemoryError, unconvertible output: a fault, not a refusal
            raise
        except Exception as exc:  # the expected outcome
            msg = str(exc).strip() or "(empty message)"
            errors.append(f"d'={dp}: {type(exc).__name__}: {msg.splitlines()[0][:160]}")
            continue
        what = (f"returned shape {Y.shape}" + (" (padded?)" if Y.ndim == 2 and Y.shape[1] > dp else
                                                " (truncated?)" if Y.ndim == 2 and Y.shape[1] < dp else ""))
        problems.append(Finding(f"apply {what} instead of raising",
                                "an exception naming the widths it accepts",
                                where=f"width d'={dp}, where {ctx.config.matrix.name} is undefined"))
    details = {"probes": _probe_dims(ctx), "errors": errors}
    if problems:
        return ctx.fail("accepted a width it cannot take", findings=problems,
                        cause="silent padding or truncation — raise an error naming the widths it accepts",
                        details=details)
    empty = [e for e in errors if e.endswith("(empty message)")]
    if empty:
        return ctx.fail("raised without a message", f"{empty[0]}",
                        "an error message saying which widths are accepted",
                        where=f"{len(empty)} of {len(errors)} probed widths",
                        cause="an exception raised with no text — say which widths are accepted", details=details)
    return ctx.result("pass", "refused every undefined width with an error: " + " | ".join(errors), details=details)

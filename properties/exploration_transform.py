"""Exploration for fast transforms: exactness searched over every width, batch, dtype and memory layout.

``transform-exactness`` and ``transform-linearity`` look at the declared width; ``explore`` searches the widths
d = 2^0 … 2^14 where the declared matrix exists, batches, float32/float64 and C/Fortran/strided inputs with
Hypothesis (:mod:`rfverify.explore`), shrinking a failure to the smallest width and batch.
"""

from __future__ import annotations

import shlex
from dataclasses import replace
from typing import Any

import numpy as np

from rfverify.errors import PluginError
from rfverify.explore import budget_for, coverage, d_band, search
from rfverify.kinds.transform import TransformContext
from rfverify.properties.space_guard import SpaceGuard
from rfverify.properties.transform_exactness import exactness_violation
from rfverify.refusals import Axis, Refusal, SpaceLog, held_where, refusal_of, refused_note, strict_failure
from rfverify.registry import register_check
from rfverify.results import CheckResult
from rfverify.spaces import TRANSFORM_COST_CAP, WIDTH_EXPONENTS, TransformExample, transform_space
from rfverify.arrays import JIT_INPUTS
from rfverify.strategies import make_batch

__all__ = ["check_explore_transform", "TransformExample", "WIDTH_EXPONENTS", "TRANSFORM_COST_CAP"]


def _form(ex: TransformExample) -> dict[str, Any]:
    """The configuration of ``ex`` a refusal is stated in (the batch's seed is not an axis: a refusal must not
    depend on the values)."""
    return {"d": ex.d, "batch": ex.n, "dtype": ex.dtype, "layout": ex.layout}


def _problem(ctx: TransformContext, ex: TransformExample, guard: SpaceGuard | None = None) -> str | None:
    op = ctx.config.matrix.operator(ex.d)
    if op is None:  # the declared matrix does not exist at this width: outside the space
        return None
    X = make_batch(ex.n, ex.d, seed=ex.seed, dtype=ex.dtype, layout=ex.layout)
    saved = X.copy()
    try:
        Y = ctx.config.plugin(X)
    except PluginError as exc:
        if guard is not None:  # a clean refusal away from the main configuration: set aside (Refused)
            guard.reject(exc, _form(ex), seed=ex.seed, action="apply(X)")
        return f"the transform failed: {exc}"
    if guard is not None:
        guard.accept(_form(ex))
    if not ctx.config.inplace and not np.array_equal(X, saved):
        return "apply modified its input in place (not declared inplace)"
    _, message = exactness_violation(Y, np.ascontiguousarray(saved), op, ctx.config.plugin.working_dtype(X.dtype))
    return message


def _probe(ctx: TransformContext) -> Any:
    """One call at ``form`` on the batch seeded ``seed`` (no property judged): what the transform said if it
    refused, else None."""
    def probe(form: Any, seed: int) -> Refusal | None:
        X = make_batch(int(form["batch"]), int(form["d"]), seed=seed, dtype=form["dtype"], layout=form["layout"])
        try:
            ctx.config.plugin(X)
        except PluginError as exc:
            return refusal_of(exc)
        return None
    return probe


#: The axes a transform's refusal is explained along.
_AXES = (Axis("d"), Axis("batch"), Axis("dtype", "choice"), Axis("layout", "choice"))


@register_check("transform", "explore", statistical=False, cost="quick 25, default 150, thorough 600 calls")
def check_explore_transform(ctx: TransformContext) -> CheckResult:
    """Exactness searched over widths 2^0 … 2^14, batches, dtypes and memory layouts with Hypothesis.

    Property: for every width d = 2^k where the declared matrix exists (a user's matrix: the declared d only,
    unless the transform declares ``d_exp`` or the caller gives ``space=``), every batch (1 … 4096 rows, n d <=
    2^18; a jit-compiled transform, ``input="jax"``: the batch sizes of :data:`JIT_BATCHES`), float32 and float64,
    C-ordered, Fortran-ordered and strided: apply(X) equals X @ M.T to the round-off
    bound of ``transform-exactness``, and X is left unchanged unless ``inplace`` is declared.
    Can each property fail at a configuration (only a property a correct transform always holds there is
    charged)?  Both are required at every configuration: exactness to round-off is what a correct transform
    computes for every input (nothing is random), and a transform not declared ``inplace`` has no reason to
    write to its input at any width, batch, dtype or layout.  A width where the declared matrix does not exist
    is not a configuration of the space (nothing is judged there).
    Test: Hypothesis searches ``budget`` calls (quick 25, default 150, thorough 600), seeded from the check key,
    no example database; a failure is shrunk to the smallest width and batch.  A clean refusal (ValueError,
    TypeError, NotImplementedError) anywhere but the main configuration (the declared or pinned width, 2 rows,
    float64, C-ordered) sets the call aside, confirmed by the same call again and another batch (an inconsistent
    refusal is an error); the refused region (``float32 input``, ``batches of 1 row``, ``d = 1``) is stated in
    ``details["space"]["refused"]`` and the message; ``strict_space`` fails on any refusal.
    Deterministic: no alpha.
    Applies to: every transform.  Catches: special cases at small widths (d = 1, 2), a float32 path that is
    wrong at some width, a strided or Fortran input read as C-ordered.
    Reference: Higham (2002) Lemma 3.1 (the bound); Hypothesis' search-and-shrink.
    """
    explored = transform_space(ctx.config)
    widths = explored.widths
    seed = ctx.seeds.random_state("transform", "explore", ctx.config.matrix.name)
    main = {"d": widths[0] if len(widths) == 1 else ctx.dim, "batch": 2, "dtype": "float64", "layout": "C"}
    guard = SpaceGuard(SpaceLog(_AXES, main, _probe(ctx), name=ctx.name), main=[main])
    found = search(explored.strategy(ctx.config.plugin.input in JIT_INPUTS), lambda ex: _problem(ctx, ex, guard),
                   seed=seed, budget=budget_for(ctx.profile.name), explicit=explored.explicit())
    space = explored.describe()
    assert guard.log is not None
    details: dict[str, Any] = {"space": guard.log.summary(space, len(found.tried)), "space_searched": space,
                               "calls": found.calls,
                               "coverage": coverage(found, {"d": lambda e: d_band(e.d), "dtype": lambda e: e.dtype},
                                                    size=lambda e: (e.d, e.n), describe=TransformExample.describe)}
    strict = strict_failure(ctx, details["space"], [e.describe() for e in found.refused], statistic=found.calls,
                            details=details)
    if strict is not None:
        return strict
    if found.passed:
        held = held_where(details["space"], space) if details["space"]["refused"] else space
        return ctx.result("pass", f"{found.calls} calls, exact at every one ({held})", statistic=float(found.calls),
                          details=details)
    ex: TransformExample = found.counterexample
    details["minimal_example"] = {"d": ex.d, "n": ex.n, "dtype": ex.dtype, "layout": ex.layout, "seed": ex.seed}
    result = ctx.fail("apply(X) != X @ M.T in a corner of the space", found.problem,
                      f"exact to round-off at every width, batch, dtype and layout ({space})",
                      where=ex.describe() + found.shown_as("minimal"),
                      cause="a code path of its own at this width, dtype or layout", note=refused_note(details["space"]),
                      statistic=float(found.calls), details=details)
    return replace(result, reproduce=ctx.reproduce + " " + " ".join(shlex.quote(p) for p in ("--pin", f"d={ex.d}")))

"""Exploration for fast transforms: exactness searched over every width, batch, dtype and memory layout.

``transform-exactness`` and ``transform-linearity`` look at the declared width; ``explore`` searches the widths
d = 2^0 … 2^14 where the declared matrix exists, batches, float32/float64 and C/Fortran/strided inputs with
Hypothesis (:mod:`rfverify.explore`), shrinking a failure to the smallest width and batch.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from hypothesis import strategies as st

from rfverify.errors import PluginError
from rfverify.explore import budget_for, coverage, d_band, search
from rfverify.kinds.transform import TransformContext
from rfverify.properties.transform_exactness import exactness_violation
from rfverify.registry import register_check
from rfverify.results import CheckResult
from rfverify.spaces import declared_space
from rfverify.strategies import DTYPES, LAYOUTS, make_batch

__all__ = ["check_explore_transform", "TransformExample", "WIDTH_EXPONENTS", "TRANSFORM_COST_CAP"]

#: Widths searched by default: d = 2^k for k in this range (a plug-in narrows it with
#: ``rfverify_space = {"d_exp": (lo, hi)}``).
WIDTH_EXPONENTS = (0, 14)
#: Largest width exponent searched for a user's dense declared matrix (formed in float64 at each width).
DENSE_MAX_EXPONENT = 10
#: n * d of one explored batch (so 2^14-wide transforms are searched with up to 16 rows).
TRANSFORM_COST_CAP = 2 ** 18


@dataclass(frozen=True)
class TransformExample:
    """One explored call: width, batch rows, dtype, layout and the batch's seed."""

    d: int
    n: int
    dtype: str
    layout: str
    seed: int

    def describe(self) -> str:
        return f"d = {self.d}, a batch of {self.n} row{'s' if self.n != 1 else ''}, {self.dtype}, {self.layout}-layout"


def _widths(ctx: TransformContext) -> tuple[int, ...]:
    """The widths explored: 2^k over WIDTH_EXPONENTS (or the transform's declared ``d_exp``) for a registry
    matrix (Hadamard); only the declared d for a user's matrix (a fixed array, or a callable M(d) given with a
    transform built for one width, e.g. ``Butterfly(16).apply``) unless the transform declares ``d_exp``;
    a pinned d alone."""
    pinned = getattr(ctx.config, "pins", {}).get("d")
    if pinned is not None:
        return (int(pinned),)
    declared = declared_space(ctx.config.plugin.fn)
    declared = declared if isinstance(declared, dict) else {}
    if "d_exp" not in declared and not ctx.config.matrix.structured:
        return (int(ctx.config.dim),)  # a fixed matrix / fixed d: explored there only (batches, dtypes, layouts)
    lo, hi = declared.get("d_exp", WIDTH_EXPONENTS)
    if not ctx.config.matrix.structured:  # a user's matrix is dense: d <= 2^10 keeps it at 8 MB per width
        hi = max(int(lo), min(int(hi), DENSE_MAX_EXPONENT))
    return tuple(2 ** k for k in range(int(lo), int(hi) + 1))


def _describe_widths(widths: tuple[int, ...]) -> str:
    if len(widths) == 1:
        return f"d = {widths[0]}"
    return f"d = 2^{widths[0].bit_length() - 1} … 2^{widths[-1].bit_length() - 1}"


def _explicit(widths: tuple[int, ...]) -> list[TransformExample]:
    """The calls always made before the search: one float64 C-ordered row (batch seed 0) at each of the three
    smallest widths — the special cases (d = 1, 2, 4; a single row) a transform most often gets wrong."""
    return [TransformExample(d, 1, "float64", "C", 0) for d in widths[:3]]


@st.composite
def _examples(draw: Any, widths: tuple[int, ...]) -> TransformExample:
    d = draw(st.sampled_from(widths))
    n_hi = max(1, min(4096, TRANSFORM_COST_CAP // d))
    n = draw(st.one_of(st.integers(1, n_hi), st.sampled_from(sorted({1, min(2, n_hi), min(3, n_hi)}))))
    return TransformExample(d, n, draw(st.sampled_from(DTYPES)), draw(st.sampled_from(LAYOUTS)),
                            draw(st.integers(0, 2 ** 16)))


def _problem(ctx: TransformContext, ex: TransformExample) -> str | None:
    op = ctx.config.matrix.operator(ex.d)
    if op is None:  # the declared matrix does not exist at this width: outside the space
        return None
    X = make_batch(ex.n, ex.d, seed=ex.seed, dtype=ex.dtype, layout=ex.layout)
    saved = X.copy()
    try:
        Y = ctx.config.plugin(X)
    except PluginError as exc:
        return f"the transform failed: {exc}"
    if not ctx.config.inplace and not np.array_equal(X, saved):
        return "apply modified its input in place (not declared inplace)"
    _, message = exactness_violation(Y, np.ascontiguousarray(saved), op)
    return message


@register_check("transform", "explore", statistical=False, cost="quick 25, default 150, thorough 600 calls")
def check_explore_transform(ctx: TransformContext) -> CheckResult:
    """Exactness searched over widths 2^0 … 2^14, batches, dtypes and memory layouts with Hypothesis.

    Property: for every width d = 2^k where the declared matrix exists (a user's matrix: the declared d only,
    unless the transform declares ``d_exp``), every batch (1 … 4096 rows, n d <=
    2^18), float32 and float64, C-ordered, Fortran-ordered and strided: apply(X) equals X @ M.T to the round-off
    bound of ``transform-exactness``, and X is left unchanged unless ``inplace`` is declared.
    Test: Hypothesis searches ``budget`` calls (quick 25, default 150, thorough 600), seeded from the check key,
    no example database; a failure is shrunk to the smallest width and batch.  Deterministic: no alpha.
    Applies to: every transform.  Catches: special cases at small widths (d = 1, 2), a float32 path that is
    wrong at some width, a strided or Fortran input read as C-ordered.
    Reference: Higham (2002) Lemma 3.1 (the bound); Hypothesis' search-and-shrink.
    """
    widths = _widths(ctx)
    explicit = _explicit(widths)
    seed = ctx.seeds.random_state("transform", "explore", ctx.config.matrix.name)
    found = search(_examples(widths), lambda ex: _problem(ctx, ex), seed=seed, budget=budget_for(ctx.profile.name),
                   explicit=explicit)
    space = f"{_describe_widths(widths)}, batches n d <= 2^18, float32/float64, layouts C/F/strided"
    details: dict[str, Any] = {"space_searched": space, "calls": found.calls,
                               "coverage": coverage(found, {"d": lambda e: d_band(e.d), "dtype": lambda e: e.dtype},
                                                    size=lambda e: (e.d, e.n), describe=TransformExample.describe)}
    if found.passed:
        return ctx.result("pass", f"{found.calls} calls, exact at every one ({space})", statistic=float(found.calls),
                          details=details)
    ex: TransformExample = found.counterexample
    details["minimal_example"] = {"d": ex.d, "n": ex.n, "dtype": ex.dtype, "layout": ex.layout, "seed": ex.seed}
    result = ctx.fail("apply(X) != X @ M.T in a corner of the space", found.problem,
                      f"exact to round-off at every width, batch, dtype and layout ({space})",
                      where=ex.describe() + found.shown_as("minimal"),
                      cause="a code path of its own at this width, dtype or layout", statistic=float(found.calls),
                      details=details)
    return replace(result, reproduce=ctx.reproduce + " " + " ".join(shlex.quote(p) for p in ("--pin", f"d={ex.d}")))

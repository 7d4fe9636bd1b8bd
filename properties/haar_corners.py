"""The Haar battery at the corner dimensions (:mod:`rfverify.corners`, :data:`rfverify.kinds.orthogonal.ORTHOGONAL_CORNERS`).

Every Haar check runs at the declared d with ``(1 - share) alpha`` and at each corner dimension of the profile's
design (the smallest and the largest d of the sampler's space, the largest cut at 128; thorough also d = 2) with
``share alpha / corners`` on a sample of its own (``draws`` matrices, one sample per corner shared by the five
checks), Bonferroni: each check's false-alarm rate stays at most its alpha.  A failure names the corner
dimension and its reproduce command pins it (``--pin d=D``); with d pinned the battery runs at that dimension
alone, as the corner it is.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from rfverify.corners import split_alpha, with_details
from rfverify.kinds.orthogonal import ORTHOGONAL_CORNER_D_MAX, ORTHOGONAL_CORNERS, OrthogonalContext
from rfverify.properties.exploration_orthogonal import _space
from rfverify.results import CheckResult

__all__ = ["haar_at_corners", "corner_dimensions", "CORNER_SHARE"]

#: Fraction of each Haar check's alpha spent on the corner dimensions.
CORNER_SHARE = 0.5


def corner_dimensions(ctx: OrthogonalContext) -> tuple[list[int], bool]:
    """(the corner dimensions, whether the declared d runs too)."""
    pinned = ctx.config.pins.get("d")
    if pinned is not None:
        return [int(pinned)], False
    n, _ = ORTHOGONAL_CORNERS.get(ctx.profile.name, ORTHOGONAL_CORNERS["default"])
    space = _space(ctx)
    out: list[int] = []
    for d in (space.lo, min(space.hi, max(space.lo, ORTHOGONAL_CORNER_D_MAX)), max(space.lo, min(2, space.hi)))[:n]:
        if d != ctx.dim and d not in out:
            out.append(d)
    return out, True


def haar_at_corners(ctx: OrthogonalContext, body: Callable[[OrthogonalContext], CheckResult],
                    applies: Callable[[OrthogonalContext], str | None] | None = None) -> CheckResult:
    """``body`` at the declared d and at the corner dimensions; the first failing configuration's result."""
    n, budget = ORTHOGONAL_CORNERS.get(ctx.profile.name, ORTHOGONAL_CORNERS["default"])
    alpha = ctx.alpha
    main_alpha, corner_alpha = split_alpha(alpha, n, CORNER_SHARE)
    dims, with_main = corner_dimensions(ctx)
    split = {"main": main_alpha, "per_corner": corner_alpha, "corners_in_design": n, "check_alpha": alpha}
    main = body(replace(ctx, alpha=main_alpha)) if with_main else None
    if main is not None and main.status != "pass":
        return with_details(main, {"alpha_split": split})
    done: list[dict[str, Any]] = []
    for d in dims:
        cctx = ctx.at_corner(d, corner_alpha, budget)
        reason = applies(cctx) if applies is not None else None
        if reason:
            done.append({"d": d, "status": "skip", "reason": reason})
            continue
        r = body(cctx)
        done.append({"d": d, "status": r.status, "pvalue": r.pvalue, "draws": budget.draws})
        if r.status == "fail":
            return with_details(r, {"corner": {"d": d}, "alpha_split": split, "corners": done})
        if main is None:
            main = r
    if main is None:  # a pinned corner (the only configuration) where the check does not apply
        return ctx.result("skip", done[0]["reason"])
    ran = [c["d"] for c in done if c["status"] == "pass"]
    note = f"; at the corner dimension{'s' if len(ran) > 1 else ''} d = {', '.join(map(str, ran))} too" if (
        ran and with_main) else ""
    return replace(with_details(main, {"alpha_split": split, "corners": done}), message=main.message + note)


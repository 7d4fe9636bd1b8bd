"""The Haar battery at the corner dimensions (:mod:`rfverify.corners`, :func:`rfverify.kinds.orthogonal.orthogonal_corners`).

Every Haar check runs at the declared d with ``(1 - share) alpha`` and at each corner dimension of the profile's
design (the smallest and the largest d of the sampler's space, the largest cut at 128; thorough also d = 2) with
``share alpha / corners`` on a sample of its own (``draws`` matrices, one sample per corner shared by the five
checks), Bonferroni: each check's false-alarm rate stays at most its alpha.  A failure names the corner
dimension and its reproduce command pins it (``--pin d=D``); with d pinned the battery runs at that dimension
alone, as the corner it is.

A sampler may refuse a corner (a clean refusal: ``ValueError``, ``TypeError``, ``NotImplementedError``; e.g. a
sampler supporting d <= 64 at the corner d = 128).  Before a corner is judged the sampler is called there with two
Generators (:func:`rfverify.properties.space_guard.probe_corner`): both refuse -> the corner is set aside, recorded
as ``{"d", "status": "refused", "where", "why"}`` in ``details["corners"]`` (its alpha share is not
redistributed, as for a corner that does not apply); one refuses -> an error (an inconsistent refusal); both
accept -> judged as before, and a refusal met later inside the check there is inconsistent too (an error).  Any
other exception stays an error, and a refusal at the declared or a pinned d stays an error.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

import numpy as np

from rfverify.corners import split_alpha, with_details
from rfverify.errors import PluginError
from rfverify.kinds.orthogonal import ORTHOGONAL_CORNER_D_MAX, OrthogonalContext, orthogonal_corners
from rfverify.properties.exploration_orthogonal import _action
from rfverify.properties.space_guard import corner_note, probe_corner, refused_inside
from rfverify.results import CheckResult, JSONValue
from rfverify.spaces import orthogonal_space

__all__ = ["haar_at_corners", "corner_dimensions", "CORNER_SHARE"]

#: Fraction of each Haar check's alpha spent on the corner dimensions.
CORNER_SHARE = 0.5


def corner_dimensions(ctx: OrthogonalContext) -> tuple[list[int], bool]:
    """(the corner dimensions, whether the declared d runs too)."""
    pinned = ctx.config.pins.get("d")
    if pinned is not None:
        return [int(pinned)], False
    n, _ = orthogonal_corners(ctx.profile)
    space = orthogonal_space(ctx.config).d
    out: list[int] = []
    for d in (space.lo, min(space.hi, max(space.lo, ORTHOGONAL_CORNER_D_MAX)), max(space.lo, min(2, space.hi)))[:n]:
        if d != ctx.dim and d not in out:
            out.append(d)
    return out, True


def haar_at_corners(ctx: OrthogonalContext, body: Callable[[OrthogonalContext], CheckResult],
                    applies: Callable[[OrthogonalContext], str | None] | None = None) -> CheckResult:
    """``body`` at the declared d and at the corner dimensions; the first failing configuration's result."""
    n, budget = orthogonal_corners(ctx.profile)
    alpha = ctx.alpha
    main_alpha, corner_alpha = split_alpha(alpha, n, CORNER_SHARE)
    dims, with_main = corner_dimensions(ctx)
    split = {"main": main_alpha, "per_corner": corner_alpha, "corners_in_design": n, "check_alpha": alpha}
    main = body(replace(ctx, alpha=main_alpha)) if with_main else None
    if main is not None and main.status != "pass":
        return with_details(main, {"alpha_split": split})
    done: list[dict[str, JSONValue]] = []
    for d in dims:
        cctx = ctx.at_corner(d, corner_alpha, budget)
        reason = applies(cctx) if applies is not None else None
        if reason:
            done.append({"d": d, "status": "skip", "reason": reason})
            continue
        if with_main:  # a corner of the design (a pinned d is the caller's own: a refusal there stays an error)
            # probe_corner calls the lambda at once, at this d
            refusal = probe_corner(lambda s: ctx.config.sampler.draw(d, _probe_rng(ctx, d, s)), name=ctx.name,
                                   where=f"d = {d}", action=_action(ctx))
            if refusal is not None:
                done.append({"d": d, "status": "refused", "where": f"d = {d}", "why": refusal.text()})
                continue
        try:
            r = body(cctx)
        except PluginError as exc:
            refused_inside(exc, name=ctx.name, where=f"d = {d}")  # accepted when probed, refused now: an error
            raise
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
    return replace(with_details(main, {"alpha_split": split, "corners": done}),
                   message=main.message + note + corner_note(done))


def _probe_rng(ctx: OrthogonalContext, d: int, seed: int) -> np.random.Generator:
    """The Generator of a corner probe (a stream of its own: the corner's Haar sample is not consumed)."""
    return ctx.seeds.rng("orthogonal", "corner-probe", d, ctx.group, trial=seed)


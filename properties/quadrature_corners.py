"""rule-unbiasedness at the corner dimensions of a quadrature rule's space (:mod:`rfverify.corners`).

The design (:func:`rfverify.kinds.quadrature.quadrature_corners`): quick none; default the smallest and the
largest d of the rule's space (``rfverify_space``, ``space=``; the largest cut at 64), thorough also the smallest
d >= 2 (the first d with the arc-cosine integrands); a corner equal to the declared d, or to an earlier corner, is
dropped (its alpha is not redistributed).  A d = 2^k space (``d_exp``) gives corners that are powers of two.

The alpha split (Bonferroni): the declared d runs at ``(1 - share) alpha`` with the main budget, each corner at
``share alpha / K`` with the corner budget (``unbiased_draws`` draws), K the profile's design size (fixed by the
profile, not by how many corners survive, so a verdict never depends on the space); the check fails when any
configuration rejects, so its false-alarm rate stays at most alpha.  Default: share 1/2, K = 2 (alpha / 2 at the
declared d, alpha / 4 at each corner).

With ``--pin d=D`` the check runs at d = D alone, as a corner (its alpha, budget and streams: the streams are keyed
by d), so the reproduce command of a corner failure replays the same numbers.  The first configuration that does
not pass is the verdict: a failure, or a rule declared biased (measured, not judged: a skip, at the declared d or at
a pinned d).  Integrands whose estimate has infinite variance at a d are left out there with the reason
(:func:`rfverify.properties.quadrature_unbiasedness.left_out`); the cosine and polynomial integrands always stay.

A rule may refuse a corner (a clean refusal: ``ValueError``, ``TypeError``, ``NotImplementedError``; e.g. a rule
defined for d >= 2 at the corner d = 1).  Before a corner is judged the rule is drawn there with two Generators
(:func:`rfverify.properties.space_guard.probe_corner`): both refuse -> the corner is set aside, recorded as
``{"d", "status": "refused", "where", "why"}`` in ``details["corners"]`` (its alpha share is not redistributed);
one refuses -> an error (an inconsistent refusal); both accept -> judged as before, and a refusal met later inside
the check there is inconsistent too (an error).  Any other exception stays an error, and a refusal at the declared
or a pinned d stays an error.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from rfverify.corners import split_alpha, with_details
from rfverify.errors import PluginError
from rfverify.kinds.quadrature import QUADRATURE_CORNER_D_MAX, QuadratureContext, quadrature_corners
from rfverify.properties.space_guard import corner_note, probe_corner, refused_inside
from rfverify.results import CheckResult, JSONValue

__all__ = ["rule_at_corners", "corner_dimensions", "corner_alphas", "CORNER_SHARE"]

#: Fraction of rule-unbiasedness' alpha spent on the corner dimensions.
CORNER_SHARE = 0.5


def corner_dimensions(ctx: QuadratureContext) -> tuple[list[int], bool]:
    """(the corner dimensions, whether the declared d runs too); a pinned d is the only corner."""
    pinned = ctx.config.pins.get("d") if ctx.config is not None else None
    if pinned is not None:
        return [int(pinned)], False
    n, _ = quadrature_corners(ctx.profile)
    dims = tuple(ctx.config.explored_dims) if ctx.config is not None else (ctx.dim,)
    capped = [d for d in dims if d <= QUADRATURE_CORNER_D_MAX] or [dims[0]]
    from_two = [d for d in dims if d >= 2]
    design = [dims[0], capped[-1], from_two[0] if from_two else dims[0]][:n]
    out: list[int] = []
    for d in design:
        if d != ctx.dim and d not in out:
            out.append(d)
    return out, True


def corner_alphas(alpha: float, profile: str) -> tuple[float, float, int]:
    """(the declared d's alpha, each corner's alpha, corners in the design) from the check's ``alpha``; with no
    corner in the design (quick) a pinned corner runs at the whole alpha."""
    n, _ = quadrature_corners(profile)
    return (*split_alpha(alpha, n, CORNER_SHARE), n)


def rule_at_corners(ctx: QuadratureContext, body: Callable[[QuadratureContext], CheckResult]) -> CheckResult:
    """``body`` at the declared d and at the corner dimensions; the first failing configuration's result."""
    _, budget = quadrature_corners(ctx.profile)
    main_alpha, corner_alpha, n = corner_alphas(ctx.alpha, ctx.profile.name)
    dims, with_main = corner_dimensions(ctx)
    split = {"main": main_alpha, "per_corner": corner_alpha, "corners_in_design": n, "check_alpha": ctx.alpha}
    main = body(replace(ctx, alpha=main_alpha)) if with_main else None
    if main is not None and main.status != "pass":  # a failure, or a rule declared biased (measured, not judged)
        return with_details(main, {"alpha_split": split})
    done: list[dict[str, JSONValue]] = []
    for d in dims:
        if with_main:  # a corner of the design (a pinned d is the caller's own: a refusal there stays an error)
            # probe_corner calls the lambda at once, at this d
            refusal = probe_corner(lambda s: ctx.plugin.draw(d, ctx.seeds.rng("quadrature", "corner-probe", d,
                                                                              trial=s)),
                                   name=ctx.name, where=f"d = {d}", action="rule(d, rng)")
            if refusal is not None:
                done.append({"d": d, "status": "refused", "where": f"d = {d}", "why": refusal.text()})
                continue
        try:
            r = body(ctx.at_corner(d, corner_alpha, budget))
        except PluginError as exc:
            refused_inside(exc, name=ctx.name, where=f"d = {d}")  # accepted when probed, refused now: an error
            raise
        entry: dict[str, JSONValue] = {"d": d, "status": r.status, "pvalue": r.pvalue,
                                 "draws": r.details["draws"],  # every result of the body carries its draws
                                 "detectable_bias": dict(zip(r.details.get("integrands", ()),
                                                             map(float, r.details.get("detectable_bias", ()))))}
        if r.details.get("left_out"):
            entry["left_out"] = r.details["left_out"]
        if r.status == "skip":  # a rule declared biased, measured at a pinned d
            entry["reason"] = r.message
        done.append(entry)
        if r.status != "pass":  # the first configuration that does not pass is the verdict
            return with_details(r, {"corner": {"d": d}, "alpha_split": split, "corners": done})
        if main is None:
            main = with_details(r, {"corner": {"d": d}})
    assert main is not None  # the declared d ran, or a pinned d (the only corner) did
    note = ""
    ran = [c for c in done if c["status"] != "refused"]
    if ran and with_main:
        note = f"; at the corner dimension{'s' if len(ran) > 1 else ''} d = {', '.join(str(c['d']) for c in ran)} too"
    return replace(with_details(main, {"alpha_split": split, "corners": done}),
                   message=main.message + note + corner_note(done))

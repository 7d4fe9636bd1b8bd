"""A statistical feature-map check at the main configuration and at the designed corners (:mod:`rfverify.corners`).

:func:`at_corners` runs a check's body at the main configuration with ``(1 - share) alpha`` and at each corner of
the profile's design with ``share alpha / corners`` (Bonferroni: the check's false-alarm rate stays at most its
alpha), in the design's order, and stops at the first configuration that fails; the failure names the corner
and its reproduce command pins it.  When the caller pinned d and n_components (a corner's reproduce command),
only that configuration runs, as the corner it is.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from rfverify.corners import (CornerNotApplicable, Corner, alpha_split, corner_budget, corner_from_pins, corner_profile,
                              design, with_details)
from rfverify.domains import min_dim
from rfverify.errors import PLUGIN_RAISED, PluginError
from rfverify.kinds.feature_map import CheckContext
from rfverify.results import CheckResult
from rfverify.spaces import FeatureMapSpace, declared_space

__all__ = ["at_corners", "corners_of"]


def _space(ctx: CheckContext) -> FeatureMapSpace:
    """The explored space, with the declaration of the object a factory builds (as ``explore`` reads it)."""
    space = ctx.space
    if ctx.respace is not None and ctx.plugin.form != "function":
        try:
            built = ctx.plugin.build(space.n_components.lo, 0)
        except Exception:  # noqa: BLE001 - the other checks report a plug-in that cannot be built
            built = None
        declared = declared_space(built)
        if declared is not None:
            space = ctx.respace(declared)
    return space


def corners_of(ctx: CheckContext) -> tuple[list[Corner], bool]:
    """(the corners this check runs at, whether it runs at the main configuration too)."""
    space = _space(ctx)
    params = dict(ctx.kernel.params)
    pinned = corner_from_pins(ctx.pins, space, ctx.dim, params)
    if pinned is not None:
        return [pinned], False
    fixed_dim = not isinstance(ctx.domain, str) or ctx.kernel._spec is None
    lo = min_dim(ctx.domain)
    if space.d.lo < lo <= space.d.hi:  # the domain's pair design starts there (the sphere: d >= 2)
        space = replace(space, d=type(space.d)(lo, space.d.hi))
    corners = design(space, ctx.dim, params if ctx.kernel._spec is not None else {}, ctx.profile,
                     fixed_dim=fixed_dim)
    if ctx.kernel._spec is None:
        corners = [replace(c, params=()) for c in corners]
    return corners, True


def _summary(c: Corner, r: CheckResult) -> dict[str, Any]:
    out: dict[str, Any] = {**c.as_dict(), "status": r.status, "statistic": r.statistic, "pvalue": r.pvalue,
                           "alpha": r.alpha, "trials": r.details.get("trials")}
    if r.details.get("untested_skewed"):  # pairs too skewed for the t-test at this corner (Cochran's rule)
        out["untested_skewed"] = r.details["untested_skewed"]
    if r.status != "pass":
        out["message"] = r.message[:300]
    return out


def at_corners(ctx: CheckContext, body: Callable[[CheckContext], CheckResult], *, grid: bool | tuple[int, ...] = False,
               declared_at_params: bool = False, declared_at_config: bool = False) -> CheckResult:
    """``body`` at the main configuration and the corners; the first failing configuration's result, else the
    main configuration's result with every corner's outcome in ``details["corners"]``.  ``grid``: the body uses
    the corner budget's grid of feature counts (or the one given), not the corner's n_components (the error rate).
    ``declared_at_params``: the check judges a declaration made for the kernel parameters given (the bound C; a
    bias bound), so the corners keep those parameters (the other axes still move; a corner that then repeats
    another is dropped, its alpha not redistributed).  ``declared_at_config``: it judges a declaration made for
    the main configuration as a whole (a bias bound, which may depend on d and m: SORF's shrinks with d), so no
    corner runs (unless the caller pinned one)."""
    corners, with_main = corners_of(ctx)
    if grid:
        ms = grid if isinstance(grid, tuple) else corner_budget(ctx.profile).rate_ms
        corners = [replace(c, grid=ms) for c in corners]
    if declared_at_config and with_main:
        corners = []
    if declared_at_params and with_main:
        kept: list[Corner] = []
        for c in (replace(c, params=()) for c in corners):
            if c.key() not in {k.key() for k in kept}:
                kept.append(c)
        corners = kept
    main_alpha, corner_alpha = alpha_split(ctx.alpha, ctx.profile)
    b = corner_budget(ctx.profile)
    split = {"main": main_alpha, "per_corner": corner_alpha, "corners_in_design": b.corners, "share": b.share,
             "check_alpha": ctx.alpha}
    main = body(replace(ctx, alpha=main_alpha)) if with_main else None
    if main is not None and main.status != "pass":
        return with_details(main, {"alpha_split": split, "corners": "not run: the main configuration did not pass"})
    done: list[dict[str, Any]] = []
    raised: tuple[Corner, Any, PluginError] | None = None
    for c in corners:
        cctx = ctx.at_corner(c, corner_alpha, corner_profile(ctx.profile, c))
        try:
            r = body(cctx)
        except CornerNotApplicable as exc:
            done.append({**c.as_dict(), "covers": c.covers, "status": "skip", "why": str(exc)})
            continue
        except PluginError as exc:  # the plug-in failed here: an error, after the other corners are judged
            done.append({**c.as_dict(), "covers": c.covers, "status": "error", "message": str(exc)[:300]})
            raised = raised or (c, cctx, exc)
            continue
        done.append(_summary(c, r))
        if r.status == "fail":
            return with_details(r, {"corner": c.as_dict(), "alpha_split": split, "corners": done})
        if main is None:
            main = r
    if raised is not None:
        c, cctx, exc = raised
        return cctx.result("error", f"at the corner configuration {c.describe()} ({c.covers}): {exc}",
                           details={"corner": c.as_dict(), "alpha_split": split, "corners": done,
                                    "error_source": PLUGIN_RAISED})
    if main is None:  # the pinned configuration (the only one) is one where the check does not apply
        return ctx.result("skip", f"not applicable at the pinned configuration {corners[0].describe()}: "
                                  f"{done[0]['why']}", details={"corner": corners[0].as_dict(), "alpha_split": split,
                                                                "corners": done})
    if not with_main:
        return with_details(main, {"corner": corners[0].as_dict(), "alpha_split": split, "corners": done})
    ran = [d for d in done if d["status"] == "pass"]
    note = (f"; at {len(ran)} corner configuration{'s' if len(ran) != 1 else ''} too "
            f"({'; '.join(_short(d) for d in ran)})") if ran else ""
    return replace(with_details(main, {"alpha_split": split, "corners": done}), message=main.message + note)


def _short(d: dict[str, Any]) -> str:
    ps = "".join(f", {k}={v!r}" for k, v in d["params"].items())
    m = d["n_components"]
    return f"d = {d['d']}, m = {'/'.join(map(str, m)) if isinstance(m, list) else m}, {d['dtype']}{ps}"


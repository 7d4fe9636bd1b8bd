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

from rfverify.corners import (CornerNotApplicable, Corner, CornerXfail, alpha_split, corner_budget, corner_from_pins, corner_profile,
                              design, with_details)
from rfverify.domains import min_dim
from rfverify.errors import PLUGIN_RAISED, PluginError
from rfverify.refusals import InconsistentRefusal, Refusal, refusal_of
from rfverify.kinds.feature_map import CheckContext
from rfverify.results import CheckResult, JSONValue
from rfverify.spaces import FeatureMapSpace, declared_space

__all__ = ["at_corners", "corners_of", "refused_corner", "CORNER_DETAILS"]

#: The keys :func:`at_corners` adds to the details of a check run at the corners (docs/details.md).
CORNER_DETAILS = """\
## Keys added by the corner runs

`unbiasedness`, `concentration` and `error-rate` run at the main configuration and at the corners of
`rfverify.corners` (`rfverify.properties.corner_runs.at_corners`), which adds to their details:

| key | type | meaning |
|---|---|---|
| `alpha_split` | object | `main` (the main configuration's alpha), `per_corner`, `corners_in_design`, `share`, `check_alpha` |
| `corners` | array or str | per corner run: its configuration (`d`, `m`, `dtype`, `params`, `covers` ...), `status` (`pass`, `fail`, `skip`, `refused`, `moved`, `xfail`, `xpass`, `error`), `statistic`, `pvalue`, `alpha`, `trials` [`untested_skewed`, `message`, `why`, `where`, `to`, `reason`]; or why no corner ran |
| `corner` | object | the corner the result is from (a failing corner, or the pinned one) |
| `error_source` | str | a corner errored: where the error came from (`plug-in`) |
"""


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


def refused_corner(ctx: CheckContext, c: Corner) -> Refusal | None:
    """Whether the plug-in refuses corner ``c`` (:mod:`rfverify.refusals`): one estimate at each feature count the
    check uses there, with two seeds.  Both seeds refused: the corner is outside the plug-in's space (its
    :class:`~rfverify.refusals.Refusal`); both accepted: None (the check judges it); one of each: an
    :class:`~rfverify.refusals.InconsistentRefusal`.  A non-refusal error is left to the check, which reports it."""
    for m in c.grid or (c.m,):
        said: list[Refusal | None] = []
        for trial in (0, 1):
            try:
                ctx.estimate_once(m, ctx.random_state("refusal-probe", m, trial=trial))
                said.append(None)
            except CornerNotApplicable:
                return None
            except PluginError as exc:
                if refusal_of(exc) is None:
                    return None
                said.append(refusal_of(exc))
        if said[0] is not None and said[1] is not None:
            return said[0]
        ref = said[0] if said[0] is not None else said[1]
        if ref is not None:
            raise InconsistentRefusal(ctx.name, f"refused the corner configuration {c.describe()} with one seed "
                                      f"({ref.text()}, at {ref.action}) and accepted it with another: a refusal must "
                                      "not depend on the seed",
                                      "refuse a configuration always or never (validate the arguments, not the draw)")
    return None


def _moved(ctx: CheckContext, c: Corner, alpha: float) -> Corner | None:
    """The nearest corner the plug-in accepts when it refuses ``c``: n_components one higher (an odd count a
    cos/sin map refuses), then the input in float64 (a map refusing float32), then both — so the corner's other
    axes (the largest d, the extreme kernel parameters) are still judged; None when it refuses all three."""
    up = replace(c, m=c.m + 1, grid=tuple(m + 1 if m % 2 else m for m in c.grid))
    tries = [up] + ([replace(c, dtype="float64"), replace(up, dtype="float64")] if c.dtype != "float64" else [])
    for alt in tries:
        if refused_corner(ctx.at_corner(alt, alpha, corner_profile(ctx.profile, alt)), alt) is None:
            return alt
    return None


def _summary(c: Corner, r: CheckResult) -> dict[str, object]:
    out: dict[str, JSONValue] = {**c.as_dict(), "status": r.status, "statistic": r.statistic, "pvalue": r.pvalue,
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
    corners, with_main = _corners_for(ctx, grid, declared_at_params, declared_at_config)
    main_alpha, corner_alpha = alpha_split(ctx.alpha, ctx.profile)
    b = corner_budget(ctx.profile)
    split = {"main": main_alpha, "per_corner": corner_alpha, "corners_in_design": b.corners, "share": b.share,
             "check_alpha": ctx.alpha}
    main = body(replace(ctx, alpha=main_alpha)) if with_main else None
    if main is not None and main.status != "pass":
        return with_details(main, {"alpha_split": split, "corners": "not run: the main configuration did not pass"})
    done: list[dict[str, JSONValue]] = []
    raised: tuple[Corner, CheckContext, PluginError] | None = None
    for c in corners:
        outcome, value = _one_corner(ctx, c, corner_alpha, body, split, done)
        if outcome == "return":
            return value
        if outcome == "error":
            raised = raised or value
        elif outcome == "ran" and main is None:
            main = value
    return _conclude(ctx, main, done, raised, corners, with_main, split)


def _corners_for(ctx: CheckContext, grid: bool | tuple[int, ...], declared_at_params: bool,
                 declared_at_config: bool) -> tuple[list[Corner], bool]:
    """The corners :func:`at_corners` runs (see its ``grid``, ``declared_at_params``, ``declared_at_config``)."""
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
    return corners, with_main


def _placed(ctx: CheckContext, c: Corner, corner_alpha: float,
            done: list[dict[str, JSONValue]]) -> tuple[str, Any]:
    """Where corner ``c`` is judged: ``("judge", (corner, context))`` (the corner, or the nearest configuration the
    plug-in accepts), ``("refused", None)`` (set aside) or ``("error", (c, context, exc))``; ``done`` records it."""
    cctx = ctx.at_corner(c, corner_alpha, corner_profile(ctx.profile, c))
    try:
        refusal = None if c.covers == "pinned" else refused_corner(cctx, c)
        moved = None if refusal is None else _moved(ctx, c, corner_alpha)
    except PluginError as exc:  # an inconsistent refusal: a defect, after the other corners are judged
        done.append({**c.as_dict(), "covers": c.covers, "status": "error", "message": str(exc)[:300]})
        return "error", (c, cctx, exc)
    if refusal is not None and moved is None:  # outside the plug-in's space: set aside, never judged
        done.append({**c.as_dict(), "covers": c.covers, "status": "refused", "where": c.describe(),
                     "why": f"{refusal.text()} (at {refusal.action})"})
        return "refused", None
    if refusal is not None and moved is not None:  # judged at the nearest configuration the plug-in accepts
        done.append({**c.as_dict(), "covers": c.covers, "status": "moved", "where": c.describe(),
                     "to": moved.describe(), "why": f"{refusal.text()} (at {refusal.action})"})
        c = replace(moved, covers=c.covers)
        cctx = ctx.at_corner(c, corner_alpha, corner_profile(ctx.profile, c))
    return "judge", (c, cctx)


def _plugin_failed(ctx: CheckContext, c: Corner, exc: PluginError, declared: CornerXfail | None,
                   done: list[dict[str, JSONValue]]) -> PluginError | None:
    """The plug-in raised at corner ``c``: an expected failure if declared (None), else the error to report (a
    late refusal named as such); ``done`` records it."""
    if declared is not None:  # the declared failure at this corner: expected, the others still judged
        done.append({**c.as_dict(), "covers": c.covers, "status": "xfail", "where": c.describe(),
                     "reason": declared.reason, "message": f"the plug-in failed: {exc}"[:300]})
        return None
    late = refusal_of(exc)
    if late is not None and c.covers != "pinned":
        exc = PluginError(ctx.name, f"refused the corner configuration {c.describe()} during the check "
                          f"({late.text()}) after accepting it with two seeds before: a refusal "
                          "must not depend on the seed or on the call's history",
                          "refuse a configuration always or never (validate the arguments, not the draw)")
    done.append({**c.as_dict(), "covers": c.covers, "status": "error", "message": str(exc)[:300]})
    return exc


def _one_corner(ctx: CheckContext, c: Corner, corner_alpha: float, body: Callable[[CheckContext], CheckResult],
                split: dict[str, JSONValue], done: list[dict[str, JSONValue]]) -> tuple[str, Any]:
    """Run ``body`` at corner ``c``: ``("return", result)`` ends the check (a failure, an unexpected pass),
    ``("error", (c, context, exc))`` is reported after the other corners, ``("ran", result)`` a pass, and
    ``("next", None)`` a corner set aside, skipped or failing as declared.  ``done`` records the corner."""
    where, value = _placed(ctx, c, corner_alpha, done)
    if where != "judge":
        return ("error", value) if where == "error" else ("next", None)
    c, cctx = value
    declared = next((x for x in ctx.corner_xfail if x.matches(c.as_dict())), None)
    try:
        r = body(cctx)
    except CornerNotApplicable as exc:
        done.append({**c.as_dict(), "covers": c.covers, "status": "skip", "why": str(exc)})
        return "next", None
    except PluginError as exc:  # the plug-in failed here: an error, after the other corners are judged
        err = _plugin_failed(ctx, c, exc, declared, done)
        return ("next", None) if err is None else ("error", (c, cctx, err))
    if declared is not None and r.status == "fail":
        done.append({**_summary(c, r), "status": "xfail", "where": c.describe(), "reason": declared.reason})
        return "next", None
    if declared is not None and r.status == "pass":
        done.append({**_summary(c, r), "status": "xpass", "where": c.describe(), "reason": declared.reason})
        return "return", cctx.fail(
            f"expected to fail at the corner {c.describe()} ({declared.reason}) but passed",
            f"pass: {r.message}", f"fail there, as declared (--xfail {declared.check}@{declared.text})",
            cause="the bug is fixed or the declaration is stale: remove the corner's expected failure",
            details={"corner": c.as_dict(), "alpha_split": split, "corners": done})
    done.append(_summary(c, r))
    if r.status == "fail":
        return "return", with_details(r, {"corner": c.as_dict(), "alpha_split": split, "corners": done})
    return "ran", r


def _conclude(ctx: CheckContext, main: CheckResult | None, done: list[dict[str, JSONValue]],
              raised: tuple[Corner, CheckContext, PluginError] | None, corners: list[Corner], with_main: bool,
              split: dict[str, JSONValue]) -> CheckResult:
    """No configuration failed: an error raised at a corner, the pinned corner's verdict, or the main result with
    every corner's outcome noted."""
    if raised is not None:
        c, cctx, err = raised
        return cctx.result("error", f"at the corner configuration {c.describe()} ({c.covers}): {err}",
                           details={"corner": c.as_dict(), "alpha_split": split, "corners": done,
                                    "error_source": PLUGIN_RAISED})
    if main is None and done and done[0]["status"] == "xfail":  # the pinned corner is the declared failure
        d = done[0]
        return ctx.fail(f"the plug-in failed at the pinned corner {d['where']}", d["message"], "a verdict there",
                        status="xfail", prefix=f"expected failure ({d['reason']}): ",
                        details={"corner": corners[0].as_dict(), "alpha_split": split, "corners": done})
    if main is None:  # the pinned configuration (the only one) is one where the check does not apply
        return ctx.result("skip", f"not applicable at the pinned configuration {corners[0].describe()}: "
                                  f"{done[0]['why']}", details={"corner": corners[0].as_dict(), "alpha_split": split,
                                                                "corners": done})
    if not with_main:
        return with_details(main, {"corner": corners[0].as_dict(), "alpha_split": split, "corners": done})
    ran = [d for d in done if d["status"] == "pass"]
    note = (f"; at {len(ran)} corner configuration{'s' if len(ran) != 1 else ''} too "
            f"({'; '.join(_short(d) for d in ran)})") if ran else ""
    for d in done:
        if d["status"] == "xfail":
            note += f"; expected failure at the corner {d['where']} ({d['reason']}): {d.get('message', '')[:200]}"
        if d["status"] == "refused":
            note += f"; set aside: the corner {d['where']} (the plug-in refuses it: {d['why']})"
        elif d["status"] == "moved":
            note += f"; the corner {d['where']} judged at {d['to']} (the plug-in refuses it: {d['why']})"
    return replace(with_details(main, {"alpha_split": split, "corners": done}), message=main.message + note)


def _short(d: dict[str, JSONValue]) -> str:
    ps = "".join(f", {k}={v!r}" for k, v in d["params"].items())
    m = d["n_components"]
    return f"d = {d['d']}, m = {'/'.join(map(str, m)) if isinstance(m, list) else m}, {d['dtype']}{ps}"


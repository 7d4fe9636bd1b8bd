"""Error rate: the mean squared error of k_hat falls like 1/m."""

from __future__ import annotations


from dataclasses import dataclass, replace
from typing import ClassVar, TypedDict

import numpy as np
from scipy import stats as st

from rfverify.kinds.feature_map import CheckContext, not_for_deterministic
from rfverify.corners import corner_budget
from rfverify.properties.corner_runs import at_corners
from rfverify.measurement import Measurement, detail
from rfverify.registry import effect, register_check
from rfverify.results import CheckResult, JSONValue
from rfverify.stats import log_slope

#: Below this MSE at every m the map is exact (deterministic and equal to the kernel).
EXACT_MSE = 1e-24
#: The nested comparison needs at least this many averages of k estimates at the smaller width.
NESTED_MIN_AVERAGES = 10
#: The ratio of a corner's grid for the nested comparison (17, 68, 272 at default: 40 seeds at 17 give 10
#: averages of 4; the smallest one-sided Mann-Whitney p-value with 40 against 10 is 1 / C(50, 10) = 1e-10).
NESTED_FACTOR = 4
#: Why a map without a declared bound is judged by the nested comparison.  The slope z-test on log mean MSE is
#: invalid for it: arccos-2 (squared-ReLU features, a correct reference) failed it at the main configuration in
#: 5 of 200 seeds at p < 1e-4 (the check's alpha there 1.7e-4; sample skewness of the per-seed MSE 1-5 at every m).
#: The nested comparison is exact whatever the tails: if the map's m features are independent draws, an estimate
#: at width k w has the same distribution as the average of k independent estimates at width w, so the per-seed
#: errors of the two are identically distributed and the Mann-Whitney test is exact.  Correlated features make
#: the one estimate worse.  A bias is the same in both (the unbiasedness check measures it).
NESTED_WHY = "distribution-free: exact for any tails"


@dataclass(frozen=True, kw_only=True)
class ErrorRateMeasurement(Measurement):
    """The error (MSE, or the variance for a map declared biased) at each width, its log-log fit against the width
    returned, and the nested comparisons of a map without a declared bound."""

    FIGURES: ClassVar[tuple[str, ...]] = ("error-rate",)

    m: list[int] = detail("the widths asked for (n_components)")
    m_out: list[int] = detail("the widths the map returned")
    trials: int = detail("seeds at each width")
    mse: list[float] = detail("per width: mean squared error against the exact kernel")
    variance: list[float] | None = detail("per width: mean squared error about the per-pair mean (a map declared "
                                          "biased: the quantity judged)", optional=True)
    quantity: str = detail("the quantity judged: MSE, or variance for a map declared biased")
    roundoff: float = detail("largest round-off bound of one estimate over the widths (an exact map's floor)")
    exact_from_width: int | None = detail("the width from which every seed's error is round-off (then exact: pass)",
                                          optional=True)
    regressed_on: str | None = detail("m_out (the widths returned) or m (every width the same)", optional=True)
    slope: float | None = detail("weighted least-squares slope of log mean error on log width", optional=True)
    slope_se: float | None = detail("its standard error (delta method)", optional=True)
    intercept: float | None = detail("the fit's intercept (natural logs)", optional=True)
    mse_se_log: np.ndarray | None = detail("per width: standard error of the log mean error", optional=True)
    slope_pvalue_descriptive: float | None = detail(
        "judged by the nested comparison: the slope test's p-value, reported only", optional=True)
    test: str | None = detail("no bound declared: nested (the comparison judged) or slope (it could not run)",
                              optional=True)
    nested: list[NestedComparison] | str | None = detail(
        "the nested comparisons (m, m2, k, seeds, averages, error_at_m2, error_of_averages, pvalue), or why there "
        "is none", optional=True)
    detectable_slope_excess: float | None = detail("judged by the slope test: the slope excess detectable with the "
                                                   "profile's power", optional=True)
    centred_slope: float | None = detail("the slope test rejected: the slope of the error about the per-pair mean",
                                         optional=True)
    centred_slope_se: float | None = detail("its standard error", optional=True)
    centred_pvalue: float | None = detail("its one-sided p-value (a bias when it passes)", optional=True)
    mses: list[float] = detail("per width: the quantity judged", internal=True)
    exact_mse: float = detail("the error below which the map is exact (round-off)", internal=True)
    bias_last: np.ndarray = detail("per pair: the bias at the largest width", internal=True)
    xs: list[int] = detail("the widths regressed on", internal=True, default=())
    pvalue: float = detail("the slope test's one-sided p-value", internal=True, default=1.0)


@register_check("feature-map", "error-rate", statistical=True, applies=not_for_deterministic,
                cost="rate_trials fits at each m in rate_ms (default 100 x 7, m = 16..1024)",
                measurement=ErrorRateMeasurement)
def check_error_rate(ctx: CheckContext) -> CheckResult:
    """The mean squared error E(k_hat - k)^2 decays like 1/m: log-log slope not above -1.

    Property: for m independent features the estimate is an average of m
    i.i.d. terms, so MSE(m) = Var(term)/m exactly when unbiased: slope -1 on a
    log-log plot.  Shared randomness between features (all features from one
    draw, a reused frequency) flattens it; a bias b gives MSE = b^2 + v/m,
    which flattens too.
    Test: at each m in the profile's grid, R seeds on disjoint streams; per
    seed the MSE over the designed pairs (for a map declared biased, the
    variance about the per-pair mean instead).  Weighted least squares of log
    mean-MSE on log m with delta-method variances Var(e)/(R mean^2) gives the
    slope and its standard error; one-sided z-test of H0: slope <= -1 against
    slope > -1 at this check's alpha.  A slope significantly *below* -1
    (faster than Monte Carlo, as quasi-Monte Carlo may achieve) passes and is
    reported.  The slope excess detectable with the profile's power is
    reported and should be below ``rate_slope_effect``.
    The slope is fitted against the width the map actually returned (a
    map that rounds n_components up to a multiple of d is not penalised) and
    an exact map's floor is the round-off of its dtype.  When the raw MSE
    fails, the centred error (about the per-pair mean) is fitted too: if it
    falls like 1/m the failure is a bias, and the message says so instead of
    blaming shared randomness.
    Corners: also run at the corner configurations of :mod:`rfverify.corners` (their d, dtype and kernel
    parameters) on the corner budget's odd grid (17, 65, 257 at default), ``share alpha / corners`` each.
    A map without a declared bound (--bound) is judged instead by the nested comparison, distribution-free
    (:data:`NESTED_WHY`): each width k w of the grid (16 .. 1024 doubling; 17, 68, 272 at a corner) against the
    average of k independent estimates at width w, one-sided Mann-Whitney on the per-seed errors, Bonferroni over
    the comparisons.  It does not see a bias (both sides share it; ``unbiasedness`` does).
    Applies to: every feature map except data-dependent ones (an adapted
    basis promises no 1/m rate) and deterministic ones (nothing random to
    average).  Reference: cs4787 lecture 16 (variance of the Monte Carlo
    average); daniely2017 Thm. 3.
    """
    if ctx.declarations.bound is None:  # the nested comparison needs whole multiples: 17, 68, 272 at default
        ms = corner_budget(ctx.profile).rate_ms
        return at_corners(ctx, _error_rate_at, grid=tuple(ms[0] * NESTED_FACTOR ** i for i in range(len(ms))))
    return at_corners(ctx, _error_rate_at, grid=True)


@dataclass(frozen=True)
class ErrorRatePlan:
    """``trials`` seeds at each width of ``ms``; ``nested``: judged by the nested comparison (no bound declared)."""

    ms: tuple[int, ...]
    trials: int
    unbiased: bool
    nested: bool


def design(ctx: CheckContext, pilot: None = None) -> ErrorRatePlan:
    """The profile's grid (the corner's, at a corner): no pilot, the budget is fixed by the profile."""
    prof = ctx.profile
    return ErrorRatePlan(tuple(prof.rate_ms), prof.rate_trials, bool(ctx.declarations.unbiased),
                         ctx.declarations.bound is None)


def _collect(ctx: CheckContext, plan: ErrorRatePlan) -> dict[str, JSONValue]:
    """Per width: the estimates (seeds x pairs), the width returned, the per-seed error (about the exact kernel,
    or about the per-pair mean for a map declared biased) and the per-seed error about the mean (bias removed)."""
    exact = ctx.pairs.exact
    out: dict[str, JSONValue] = {"widths": [], "roundoff": 0.0, "mse_exact": [], "per_seed": [], "centred": [],
                           "values": [], "bias_last": np.zeros(ctx.pairs.n)}
    for m in plan.ms:
        est = ctx.estimates(m, range(plan.trials), "rate")
        out["widths"].append(est.m_out)
        out["roundoff"] = max(out["roundoff"], est.roundoff(ctx.dim))
        out["mse_exact"].append(float(np.mean((est.values - exact) ** 2)))
        c = np.mean((est.values - est.values.mean(axis=0)) ** 2, axis=1)
        out["per_seed"].append(np.mean((est.values - exact) ** 2, axis=1) if plan.unbiased else c)
        out["centred"].append(c)
        out["bias_last"] = est.values.mean(axis=0) - exact
        out["values"].append(np.asarray(est.values, dtype=np.float64))
    widths = out["widths"]
    if ctx.corner is not None and len(set(widths)) < len(widths):
        from rfverify.corners import CornerNotApplicable

        raise CornerNotApplicable(f"the map returned widths {widths} for the corner grid {list(plan.ms)}: the "
                                  "grid collapses (e.g. m rounded up to a multiple of a large d), so no 1/m law can "
                                  "be fitted there (judged at the main configuration)")
    return out


def measure(ctx: CheckContext, plan: ErrorRatePlan) -> ErrorRateMeasurement:
    """The errors at each width, the weighted log-log fit, and the nested comparisons or the slope test's extras."""
    raw = _collect(ctx, plan)
    widths, per_seed = raw["widths"], raw["per_seed"]
    mses = [float(np.mean(e)) for e in per_seed]
    exact_mse = max(EXACT_MSE, raw["roundoff"] ** 2)  # a float32 map that is exact still rounds
    ms = ErrorRateMeasurement(
        m=list(plan.ms), m_out=widths, trials=plan.trials, mse=mses if plan.unbiased else raw["mse_exact"],
        variance=None if plan.unbiased else mses, quantity="MSE" if plan.unbiased else "variance",
        roundoff=raw["roundoff"], mses=mses, exact_mse=exact_mse, bias_last=raw["bias_last"])
    if max(mses) < exact_mse:
        return ms
    exact_at = [w for w, e in zip(widths, per_seed) if float(np.max(e)) < exact_mse]
    if exact_at and float(np.max(per_seed[-1])) < exact_mse:
        # exact (within round-off) in every seed from some width on: no 1/m law to fit, and a log-log fit through
        # round-off floors has no spread (e.g. a count sketch at d = 1, exact once its buckets outnumber d)
        return replace(ms, exact_from_width=exact_at[0])
    # regress on the width returned, not the n_components asked for: a map that rounds m up to a multiple of d
    # would otherwise look like an error falling slower than 1/m (widths proportional to m give the same slope)
    xs = widths if len(set(widths)) >= 2 else list(plan.ms)
    x = np.array(xs, dtype=float)
    fit = log_slope(x, [np.maximum(e, exact_mse) for e in per_seed])
    p = float(st.norm.sf((fit.slope + 1.0) / fit.se))
    ms = replace(ms, regressed_on="m_out" if xs is widths else "m", slope=fit.slope, slope_se=fit.se,
                 intercept=fit.intercept, mse_se_log=fit.y_se, pvalue=p, xs=list(xs))
    if plan.nested:  # no bound: the distribution-free nested comparison (NESTED_WHY); the fit is the plot's line
        comps = nested_comparisons(widths, raw["values"], ctx.pairs.exact, plan.unbiased, floor=exact_mse,
                                   rng=np.random.default_rng(ctx.random_state("nested-ties", trial=0)))
        if comps:
            return replace(ms, slope_pvalue_descriptive=p, test="nested", nested=comps)
        ms = replace(ms, test="slope", nested=(f"no comparison: the widths returned {widths} have no pair w, k w with "
                                               f"at least {NESTED_MIN_AVERAGES} averages"))
    detectable = (float(st.norm.isf(ctx.alpha)) + float(st.norm.isf(1 - ctx.profile.power))) * fit.se
    ms = replace(ms, detectable_slope_excess=detectable)
    if p < ctx.alpha and plan.unbiased:  # the centred error: does the variance alone fall like 1/m?
        cfit = log_slope(x, [np.maximum(c, exact_mse) for c in raw["centred"]])
        ms = replace(ms, centred_slope=cfit.slope, centred_slope_se=cfit.se,
                     centred_pvalue=float(st.norm.sf((cfit.slope + 1.0) / cfit.se)))
    return ms


def _error_rate_at(ctx: CheckContext) -> CheckResult:
    """The check at one configuration (the main one or a corner), at ``ctx.alpha``."""
    return verdict(ctx, measure(ctx, design(ctx)))


def verdict(ctx: CheckContext, ms: ErrorRateMeasurement) -> CheckResult:
    """Exact (round-off at every m, or from some width on), the nested comparison's verdict, or the slope test's."""
    details = ms.to_details()
    if ms.slope is None:
        if ms.exact_from_width is None:
            return ctx.result("pass", f"{ms.quantity} below {ms.exact_mse:.2g} (round-off) at every m: the map is "
                              "exact", details=details)
        return ctx.result("pass", f"{ms.quantity} below {ms.exact_mse:.2g} (round-off) in every seed from "
                          f"{ms.exact_from_width} features on: the map is exact there (faster than Monte Carlo's 1/m)",
                          details=details)
    if ms.test == "nested":
        return _nested_verdict(ctx, ms, details)
    return _slope_verdict(ctx, ms, details)


def _slope_hint(ctx: CheckContext, ms: ErrorRateMeasurement) -> str:
    """The likely cause of a slope above -1: the width ignored, a bias, shared randomness, a variance floor."""
    lo_m, hi_m = ms.xs[0], ms.xs[-1]
    if ms.regressed_on != "m_out":  # every width the same (regressed on the m asked): the map ignores n_components
        return (f"the map returns {ms.m_out[0]} features whatever n_components asks, so its error cannot fall "
                "with m")
    if ms.centred_pvalue is not None and ms.centred_pvalue >= ctx.alpha:
        j = int(np.argmax(np.abs(ms.bias_last)))
        return (f"consistent with a bias (the check unbiasedness measures it; here {ms.bias_last[j]:+.3g} at "
                f"{ctx.pairs.labels[j]} at m = {hi_m}): the error about the mean falls like m^{ms.centred_slope:.3f}, "
                "so there is no evidence of correlated features once the bias is removed")
    if ms.slope is not None and ms.slope > -0.25:
        return ("the error does not shrink with m: the features share their randomness "
                "(one draw reused for every feature?)")
    floor = ms.mses[-1] - ms.mses[0] * lo_m / hi_m
    if ms.quantity == "MSE" and floor > 0:
        # not a bias: the error about the mean (centred_pvalue above) falls slower than 1/m as well
        return (f"the MSE levels off near {floor:.3g}, and so does the error about the mean: some of the "
                "randomness is shared between features (a variance no width removes), not a bias")
    return ""


def _slope_verdict(ctx: CheckContext, ms: ErrorRateMeasurement, details: dict[str, JSONValue]) -> CheckResult:
    """The one-sided z-test of H0: slope <= -1 on the weighted log-log fit."""
    slope, se, p, quantity = float(ms.slope or 0.0), float(ms.slope_se or 0.0), ms.pvalue, ms.quantity
    za = float(st.norm.isf(ctx.alpha / 2))
    detectable = float(ms.detectable_slope_excess or 0.0)
    eff = effect("log-log slope", slope, slope - za * se, slope + za * se, 1 - ctx.alpha, detectable,
                 ctx.profile.power)
    lo_m, hi_m = ms.xs[0], ms.xs[-1]
    common = dict(statistic=slope, pvalue=p, threshold=ctx.alpha, effect=eff, details=details)
    if p < ctx.alpha:
        return ctx.fail(
            f"{quantity} falls slower than 1/m",
            f"{quantity} falls like m^{slope:.3f}",
            f"slope <= -1 (1/m, an average of independent features): it should shrink {hi_m / lo_m:g}x from m = "
            f"{lo_m} to {hi_m} (rejected at alpha = {ctx.alpha:.3g})",
            interval=(slope - za * se, slope + za * se), level=1 - ctx.alpha,
            evidence=f"p = {p:.3g}; from m = {lo_m} to {hi_m} it shrank {ms.mses[0] / ms.mses[-1]:.3g}x",
            where=("m = " if ms.regressed_on == "m_out" else f"m = {', '.join(str(m) for m in ms.xs)} asked, ")
                  + f"{', '.join(str(w) for w in ms.m_out)} features returned, {ms.trials} seeds each, "
                  f"{ctx.pairs.n} designed pairs" + _fallback(details),
            cause=_slope_hint(ctx, ms), **common)
    faster = slope + za * se < -1
    curve = "" if quantity == "MSE" else (
        f"; MSE against the exact kernel {ms.mse[0]:.3g} at m = {lo_m} -> {ms.mse[-1]:.3g} at m = {hi_m}")
    return ctx.result(
        "pass",
        f"{quantity} falls like m^{slope:.3f} ± {za * se:.3f} over m = {lo_m}..{hi_m}"
        + (" (faster than Monte Carlo's 1/m)" if faster else "") + curve
        + f"; a slope excess of {detectable:.3g} would be caught" + _fallback(details), **common)


def _fallback(details: dict[str, JSONValue]) -> str:
    """The note of a map without a declared bound judged by the slope test (its widths allow no comparison)."""
    if details.get("test") != "slope":
        return ""
    return f" ({details['nested']}: judged by the slope z-test, which assumes a light-tailed error)"


class NestedComparison(TypedDict):
    """One comparison of :func:`nested_comparisons`: width ``m2 = k m`` against averages of ``k`` estimates at m."""

    m: int
    m2: int
    k: int
    seeds: int
    averages: int
    error_at_m2: float
    error_of_averages: float
    pvalue: float


def nested_comparisons(widths: list[int], values: list[np.ndarray], exact: np.ndarray, unbiased: bool = True,
                       rng: np.random.Generator | None = None, floor: float = 0.0) -> list[NestedComparison]:
    """Each width w2 = k w1 of the grid against the average of k independent estimates at w1 (NESTED_WHY).

    ``values[i]``: the (seeds x pairs) estimates at ``widths[i]``, seeds independent within and across widths.
    The per-seed error is the mean squared error over the pairs against ``exact``; for a map declared biased, about
    the per-pair sample mean of its own group, times n / (n - 1) (about a mean of n values the squared error is
    (n - 1) / n of the variance: 10 averages against 40 seeds made p < 0.05 come out in 17.8% of null runs).
    That case is approximate, not exact: in 20000 null runs (Gaussian errors, 24 pairs, 40 seeds against 10
    averages) p < 0.001, 0.01, 0.05 came out in 0.125%, 1.25%, 5.7%.  Under H0 (the features are independent draws) the errors at w2 and the errors of
    the averages are identically distributed, so the one-sided Mann-Whitney p-value (errors at w2 larger) is
    exact.  An error below ``floor`` (the round-off of an exact estimate) counts as 0: round-off differs between
    widths, and ranking it would order exact estimates by their width.  Tied errors (an estimate exact in many
    seeds: a count sketch without a collision) are ordered at
    random (``rng``, seeded by the caller from the check key), which keeps the test exact; the normal
    approximation with a tie correction is not (with 47 tied zeros among 50 errors it gave p = 7e-6 where the
    permutation p-value is 0.5).  A pair of widths that is not a larger whole multiple,
    or with fewer than NESTED_MIN_AVERAGES averages, is not compared.
    """
    comps: list[NestedComparison] = []
    for i in range(len(widths) - 1):
        w1, w2 = widths[i], widths[i + 1]
        A, B = values[i], values[i + 1]
        if w2 <= w1 or w2 % w1 or A.shape[0] // (w2 // w1) < NESTED_MIN_AVERAGES:
            continue  # the same width, not a whole multiple (a map rounding its width), or too few averages
        k = w2 // w1
        n = A.shape[0] // k
        avg = A[: n * k].reshape(n, k, -1).mean(axis=1)
        centre_a, centre_b = (exact, exact) if unbiased else (avg.mean(axis=0), B.mean(axis=0))
        e_avg = np.mean((avg - centre_a) ** 2, axis=1)
        e_two = np.mean((B - centre_b) ** 2, axis=1)
        if not unbiased:  # about a sample mean of n values, the squared error is (n - 1) / n of the variance
            e_avg, e_two = e_avg * n / (n - 1), e_two * B.shape[0] / (B.shape[0] - 1)
        e_avg, e_two = np.where(e_avg < floor, 0.0, e_avg), np.where(e_two < floor, 0.0, e_two)
        mean_two, mean_avg = float(np.mean(e_two)), float(np.mean(e_avg))
        both = np.concatenate([e_two, e_avg])
        if np.unique(both).size < both.size:  # random tie-breaking: the ranks of a uniform random permutation
            gen = rng if rng is not None else np.random.default_rng(0)
            ranks = np.empty(both.size)
            ranks[np.lexsort((gen.random(both.size), both))] = np.arange(both.size)
            e_two, e_avg = ranks[: e_two.size], ranks[e_two.size:]
        p = float(st.mannwhitneyu(e_two, e_avg, alternative="greater", method="exact").pvalue)
        comps.append({"m": w1, "m2": w2, "k": k, "seeds": int(B.shape[0]), "averages": n,
                      "error_at_m2": mean_two, "error_of_averages": mean_avg, "pvalue": p})
    return comps


def _nested_verdict(ctx: CheckContext, ms: ErrorRateMeasurement, details: dict[str, JSONValue]) -> CheckResult:
    """The error rate of a map without a declared bound, by :func:`nested_comparisons` (Bonferroni over them)."""
    comps: list[NestedComparison] = ms.nested  # type: ignore[assignment]
    quantity, slope, widths = ms.quantity, ms.slope, ms.m_out
    worst = min(comps, key=lambda c: float(c["pvalue"]))
    p_adj = min(1.0, float(worst["pvalue"]) * len(comps))  # Bonferroni over the comparisons (they share seeds)
    steps = ", ".join(f"{c['m']} -> {c['m2']}" for c in comps)
    where = (f"widths {steps}, {ms.trials} "
             f"seeds each, {ctx.pairs.n} designed pairs")
    if p_adj < ctx.alpha:
        m1, m2, k = worst["m"], worst["m2"], worst["k"]
        return ctx.fail(
            f"{quantity} falls slower than 1/m",
            f"one estimate at m = {m2} has {quantity} {worst['error_at_m2']:.3g}, the average of {k} independent "
            f"estimates at m = {m1} {worst['error_of_averages']:.3g} ({float(worst['error_at_m2']) / max(float(worst['error_of_averages']), 1e-300):.3g}x)",
            f"the same distribution: {m2} independent features are {k} independent draws of {m1} (one-sided "
            f"Mann-Whitney over {worst['seeds']} seeds against {worst['averages']} averages; rejected at alpha = "
            f"{ctx.alpha:.3g} after Bonferroni over {len(comps)} comparisons)",
            evidence=f"p = {float(worst['pvalue']):.3g}, adjusted {p_adj:.3g}", where=where,
            cause=("the features within one draw are correlated (a shared or reused draw?): adding features helps less "
                   "than adding independent draws"),
            statistic=float(slope or 0.0), pvalue=p_adj, threshold=ctx.alpha, details=details)
    ks = sorted({int(c["k"]) for c in comps})
    k_txt = "/".join(map(str, ks))
    return ctx.result(
        "pass", f"one estimate at width {k_txt}w is no worse than the average of {k_txt} independent estimates at "
        f"width w ({len(comps)} comparisons over m = {widths[0]}..{widths[-1]}, smallest adjusted p = {p_adj:.3g}; "
        f"distribution-free, as the map declares no bound; {quantity} falls like m^{float(slope or 0.0):.3f})",
        statistic=float(slope or 0.0), pvalue=p_adj, threshold=ctx.alpha, details=details)

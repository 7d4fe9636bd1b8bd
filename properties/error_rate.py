"""Error rate: the mean squared error of k_hat falls like 1/m."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as st

from rfverify.kinds.feature_map import CheckContext, not_for_deterministic
from rfverify.properties.corner_runs import at_corners
from rfverify.registry import effect, register_check
from rfverify.results import CheckResult
from rfverify.stats import log_slope

#: Below this MSE at every m the map is exact (deterministic and equal to the kernel).
EXACT_MSE = 1e-24
#: Why a map without a declared bound is judged at the main configuration only.  The z-test on the log of the mean
#: per-seed MSE needs that mean's sampling distribution near normal at the test's level; a corner has 40 seeds per
#: m and a per-corner alpha of 4.2e-5 (default profile).  Measured on arccos-1 (a correct map) at its corner
#: "largest kernel parameters" (order 2: squared ReLU features, so the MSE is an 8th moment of a Gaussian), over
#: 300 seeds: the test rejected 3.0% at 1e-3 and 0.67% at 1e-4 with 40 seeds per m, and 1.6% at 1e-3 with 400
#: (the per-seed MSE's skewness 4-9): no affordable corner sample makes it valid.  A declared bound C bounds
#: every term by C^2, so the per-seed MSE is light-tailed there (0 false alarms in 200 seeds for each bounded twin
#: of the corner study).  The unbounded map's corners are still judged by ``unbiasedness``.
UNBOUNDED_AT_CORNERS = ("not run at the corners: the map declares no bound (--bound), and without one the per-seed "
                        "MSE can be too heavy-tailed for the z-test at a corner's level and sample (40 seeds per m); "
                        "judged at the main configuration")


@register_check("feature-map", "error-rate", statistical=True, applies=not_for_deterministic,
                cost="rate_trials fits at each m in rate_ms (default 100 x 7, m = 16..1024)")
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
    parameters) on the corner budget's odd grid (17, 65, 257 at default), ``share alpha / corners`` each —
    for a map with a declared bound only (:data:`UNBOUNDED_AT_CORNERS` says why and what was measured).
    Applies to: every feature map except data-dependent ones (an adapted
    basis promises no 1/m rate) and deterministic ones (nothing random to
    average).  Reference: cs4787 lecture 16 (variance of the Monte Carlo
    average); daniely2017 Thm. 3.
    """
    unbounded = None if ctx.declarations.bound is not None else UNBOUNDED_AT_CORNERS
    return at_corners(ctx, _error_rate_at, grid=True, not_at_corners=unbounded)


def _error_rate_at(ctx: CheckContext) -> CheckResult:
    """The check at one configuration (the main one or a corner), at ``ctx.alpha``."""
    prof = ctx.profile
    pairs = ctx.pairs
    unbiased = ctx.declarations.unbiased
    per_seed = []
    centred = []  # per seed: the error about the per-pair mean (the bias removed)
    mses = []
    mse_exact = []  # E(k_hat - k)^2 at each m: for a biased map the MSE-against-m curve (floor = bias^2)
    widths = []  # the width the map actually returned at each requested m
    roundoff = 0.0
    bias_last = np.zeros(pairs.n)
    for m in prof.rate_ms:
        est = ctx.estimates(m, range(prof.rate_trials), "rate")
        widths.append(est.m_out)
        roundoff = max(roundoff, est.roundoff(ctx.dim))
        mse_exact.append(float(np.mean((est.values - pairs.exact) ** 2)))
        c = np.mean((est.values - est.values.mean(axis=0)) ** 2, axis=1)
        e = np.mean((est.values - pairs.exact) ** 2, axis=1) if unbiased else c
        per_seed.append(e)
        centred.append(c)
        mses.append(float(np.mean(e)))
        bias_last = est.values.mean(axis=0) - pairs.exact
    if ctx.corner is not None and len(set(widths)) < len(widths):
        from rfverify.corners import CornerNotApplicable

        raise CornerNotApplicable(f"the map returned widths {widths} for the corner grid {list(prof.rate_ms)}: the "
                                  "grid collapses (e.g. m rounded up to a multiple of a large d), so no 1/m law can "
                                  "be fitted there (judged at the main configuration)")
    quantity = "MSE" if unbiased else "variance"
    details: dict[str, object] = {"m": list(prof.rate_ms), "m_out": widths, "trials": prof.rate_trials,
                                  quantity.lower(): mses, "quantity": quantity, "roundoff": roundoff}
    if not unbiased:
        details["mse"] = mse_exact
    exact_mse = max(EXACT_MSE, roundoff ** 2)  # a float32 map that is exact still rounds
    if max(mses) < exact_mse:
        return ctx.result("pass", f"{quantity} below {exact_mse:.2g} (round-off) at every m: the map is exact",
                          details=details)
    exact_at = [w for w, e in zip(widths, per_seed) if float(np.max(e)) < exact_mse]
    if exact_at and float(np.max(per_seed[-1])) < exact_mse:
        # exact (within round-off) in every seed from some width on: no 1/m law to fit, and a log-log fit through
        # round-off floors has no spread (e.g. a count sketch at d = 1, exact once its buckets outnumber d)
        details["exact_from_width"] = exact_at[0]
        return ctx.result("pass", f"{quantity} below {exact_mse:.2g} (round-off) in every seed from {exact_at[0]} "
                          f"features on: the map is exact there (faster than Monte Carlo's 1/m)", details=details)
    per_seed = [np.maximum(e, exact_mse) for e in per_seed]
    # regress on the width returned, not the n_components asked for: a map that rounds m up to a multiple of d
    # would otherwise look like an error falling slower than 1/m (widths proportional to m give the same slope)
    xs = widths if len(set(widths)) >= 2 else list(prof.rate_ms)
    details["regressed_on"] = "m_out" if xs is widths else "m"
    x = np.array(xs, dtype=float)
    fit = log_slope(x, per_seed)
    z = (fit.slope + 1.0) / fit.se
    p = float(st.norm.sf(z))
    za = float(st.norm.isf(ctx.alpha / 2))
    detectable = (float(st.norm.isf(ctx.alpha)) + float(st.norm.isf(1 - prof.power))) * fit.se
    details.update({"slope": fit.slope, "slope_se": fit.se, "intercept": fit.intercept,
                    "mse_se_log": fit.y_se, "detectable_slope_excess": detectable})
    eff = effect("log-log slope", fit.slope, fit.slope - za * fit.se, fit.slope + za * fit.se, 1 - ctx.alpha,
                 detectable, prof.power)
    lo_m, hi_m = xs[0], xs[-1]
    if p < ctx.alpha:
        ratio = mses[0] / mses[-1]
        hint = ""
        c_slope = c_p = None
        if unbiased:  # the centred error: does the variance alone fall like 1/m?
            cfit = log_slope(x, [np.maximum(c, exact_mse) for c in centred])
            c_slope, c_p = cfit.slope, float(st.norm.sf((cfit.slope + 1.0) / cfit.se))
            details.update({"centred_slope": c_slope, "centred_slope_se": cfit.se, "centred_pvalue": c_p})
        if c_p is not None and c_p >= ctx.alpha:
            j = int(np.argmax(np.abs(bias_last)))
            hint = (f"consistent with a bias (the check unbiasedness measures it; here {bias_last[j]:+.3g} at "
                    f"{pairs.labels[j]} at m = {hi_m}): the error about the mean falls like m^{c_slope:.3f}, so "
                    "there is no evidence of correlated features once the bias is removed")
        elif fit.slope > -0.25:
            hint = ("the error does not shrink with m: the features share their randomness "
                    "(one draw reused for every feature?)")
        elif unbiased:
            floor = mses[-1] - mses[0] * lo_m / hi_m
            if floor > 0:
                hint = (f"the MSE levels off near {floor:.3g}, as a bias of about {math.sqrt(floor):.3g} "
                        "would make it")
        return ctx.fail(
            f"{quantity} falls slower than 1/m",
            f"{quantity} falls like m^{fit.slope:.3f}",
            f"slope <= -1 (1/m, an average of independent features): it should shrink {hi_m / lo_m:g}x from m = "
            f"{lo_m} to {hi_m} (rejected at alpha = {ctx.alpha:.3g})",
            interval=(fit.slope - za * fit.se, fit.slope + za * fit.se), level=1 - ctx.alpha,
            evidence=f"p = {p:.3g}; from m = {lo_m} to {hi_m} it shrank {ratio:.3g}x",
            where=f"m = {', '.join(str(m) for m in xs)} features returned, {prof.rate_trials} seeds each, "
                  f"{pairs.n} designed pairs",
            cause=hint, statistic=fit.slope, pvalue=p, threshold=ctx.alpha, effect=eff, details=details)
    faster = fit.slope + za * fit.se < -1
    curve = "" if unbiased else (
        f"; MSE against the exact kernel {mse_exact[0]:.3g} at m = {lo_m} -> {mse_exact[-1]:.3g} at m = {hi_m}")
    return ctx.result(
        "pass",
        f"{quantity} falls like m^{fit.slope:.3f} ± {za * fit.se:.3f} over m = {lo_m}..{hi_m}"
        + (" (faster than Monte Carlo's 1/m)" if faster else "") + curve
        + f"; a slope excess of {detectable:.3g} would be caught",
        statistic=fit.slope, pvalue=p, threshold=ctx.alpha, effect=eff, details=details)

"""Concentration: Hoeffding's bound for C-bounded feature maps (daniely2017, Theorem 3)."""

from __future__ import annotations

from typing import TypedDict

import numpy as np

from rfverify.kinds.feature_map import CheckContext, not_for_deterministic
from rfverify.properties.corner_runs import at_corners
from rfverify.registry import effect, register_check
from rfverify.results import CheckResult
from rfverify.stats import binomial_upper_test, clopper_pearson, hoeffding_bound, hoeffding_epsilon

#: Relative slack on the declared sup-norm for round-off: features computed in
#: float32 carry a few ulps (u = 6e-8) of relative error; 16 ulps covers the
#: product of a scale and a bounded nonlinearity.
SUP_ROUNDOFF = 16 * float(np.finfo(np.float32).eps)


def _applies(ctx: CheckContext) -> str | None:
    if not_for_deterministic(ctx):
        return not_for_deterministic(ctx)
    if ctx.declarations.bound is None:
        return "no bound C declared (|feature| * sqrt(m) <= C); declare it (--bound C) to enable the Hoeffding check"
    return None


class _TailRow(TypedDict):
    """One bound level of ``details["tails"]``: eps, the bound, the largest tail frequency, its pair, all of them."""

    eps: float
    bound: float
    max_frequency: float
    pair: int
    frequencies: np.ndarray


def _tails(err: np.ndarray, m_out: int, C: float, R: int,
           levels: tuple[float, ...]) -> tuple[list[_TailRow], list[float]]:
    """Per bound level: eps, the bound, the tail frequencies per pair and the exact binomial p-values."""
    rows: list[_TailRow] = []
    p_all: list[float] = []
    for b in levels:
        eps = hoeffding_epsilon(m_out, b, C)
        counts = np.sum(err >= eps, axis=0)
        bound = hoeffding_bound(m_out, eps, C)
        j = int(np.argmax(counts))
        rows.append({"eps": eps, "bound": bound, "max_frequency": counts[j] / R, "pair": j,
                     "frequencies": counts / R})
        p_all.extend(binomial_upper_test(int(c), R, bound) for c in counts)
    return rows, p_all


@register_check("feature-map", "concentration", statistical=True, applies=_applies,
                cost="conc_trials fits at m = conc_m (default 200 at m = 1024)",
                figures=("tails",))
def check_concentration(ctx: CheckContext) -> CheckResult:
    """Observed sup |feature| * sqrt(m) <= C and tail frequencies under 2 exp(-m eps^2 / (2 C^4)).

    Property: with every feature bounded by C / sqrt(m), each term
    m psi_i(x) psi_i(y) lies in [-C^2, C^2], and Hoeffding's inequality gives
    P(|k_hat - k| >= eps) <= 2 exp(-m eps^2 / (2 C^4)) (daniely2017 Thm. 3;
    for random Fourier features C = sqrt(2), the cs4787 lecture's
    2 exp(-D a^2 / 8)).
    Test: (a) the sup-norm over all features of all seeds, against C with a
    relative round-off slack of 16 float32 ulps (deterministic); (b) at each eps
    where the bound equals one of the profile's values (0.2, 0.05, 0.01 at the
    default), the count of seeds with |k_hat - k| >= eps at each pair is
    Binomial(R, p) with p <= bound under H0; exact one-sided binomial tests,
    Bonferroni over eps values and pairs, at this check's alpha.
    When the tails fail, the same test is run on the deviations from the
    per-pair mean over seeds: if those pass, the cause is a bias (named as
    such, not as correlated features).  A map declared biased
    (``unbiased=False``) is held to the deviations from that mean from the
    start: Hoeffding bounds |k_hat - E k_hat|, and its declared bias is not a
    tail event (measured: SORF with one HD block, declared biased, failed
    about k at seed 3 with p = 1e-39 and passes about its mean).
    Corners: also run at the corner configurations of :mod:`rfverify.corners` with the kernel parameters as
    declared (C is declared for them), ``conc_trials`` seeds at the corner's m, ``share alpha / corners`` each.
    Applies to: maps that declare C, except data-dependent and deterministic
    maps.  Catches: a false bound, features that share randomness (no
    concentration in m), heavy-tailed estimates.
    """
    return at_corners(ctx, _concentration_at, declared_at_params=True)


def _concentration_at(ctx: CheckContext) -> CheckResult:
    """The check at one configuration (the main one or a corner), at ``ctx.alpha``."""
    prof = ctx.profile
    C = float(ctx.declarations.bound)  # type: ignore[arg-type]
    pairs = ctx.pairs
    m = prof.conc_m
    R = prof.conc_trials
    est = ctx.estimates(m, range(R), "concentration")
    m_out = est.m_out
    sup = float(np.max(est.sup))
    # a map declared biased is held to concentration about its own mean (Hoeffding bounds |k_hat - E k_hat|; the
    # declared bias is the unbiasedness check's business, not a tail event here)
    centre = ctx.declarations.unbiased is False
    err = np.abs(est.values - (est.values.mean(axis=0) if centre else pairs.exact))
    details: dict[str, object] = {"m": m, "m_out": m_out, "trials": R, "bound_C": C, "observed_sup": sup}
    if centre:
        details["about"] = "the per-pair mean over seeds (the map is declared biased)"
    if sup > C * (1.0 + SUP_ROUNDOFF):
        return ctx.fail(f"declared bound C = {C:g} is violated",
                        f"max |feature| * sqrt(m) = {sup:.6g} over {R} seeds",
                        f"<= C = {C:g} (relative round-off slack {SUP_ROUNDOFF:.2g})",
                        where=f"m = {m_out} features, {pairs.n} designed pairs",
                        cause="the features are larger than declared (a scale error?)",
                        statistic=sup, threshold=C, details=details)
    rows, p_all = _tails(err, m_out, C, R, prof.conc_bounds)
    n_tests = len(p_all)
    p_adj = min(1.0, min(p_all) * n_tests)
    worst = max(rows, key=lambda r: r["max_frequency"] / r["bound"])
    k_worst = int(worst["max_frequency"] * R)
    lo, hi = clopper_pearson(k_worst, R, 1 - ctx.alpha)
    details["tails"] = rows
    eff = effect(f"tail frequency at eps={worst['eps']:.3g}", worst["max_frequency"], lo, hi, 1 - ctx.alpha)
    if p_adj < ctx.alpha and centre:
        j = worst["pair"]
        return ctx.fail(
            "tail frequency above the Hoeffding bound about the mean estimate",
            f"P(|k_hat - mean k_hat| >= {worst['eps']:.3g}) = {worst['max_frequency']:.3g} over {R} seeds",
            f"<= the Hoeffding bound 2 exp(-m eps^2 / (2 C^4)) = {worst['bound']:.3g} for C = {C:g}, m = {m_out} "
            f"(rejected at alpha = {ctx.alpha:.3g}; the map is declared biased, so its deviations are taken about "
            "its own mean)",
            interval=(lo, hi), level=1 - ctx.alpha, evidence=f"p = {p_adj:.3g}, Bonferroni over {n_tests} tests",
            where=f"pair {j} ({pairs.labels[j]}), eps = {worst['eps']:.3g}",
            cause=(f"the estimate does not concentrate like an average of {m_out} independent bounded terms even "
                   "about its own mean (features sharing their randomness, or heavy tails)"),
            statistic=worst["max_frequency"], pvalue=p_adj, threshold=ctx.alpha, effect=eff, details=details)
    if p_adj < ctx.alpha:
        j = worst["pair"]
        # the centred error (about the per-pair mean over seeds): a bias or a scale error shifts every
        # estimate, and Hoeffding's bound holds for the deviation from the mean whatever the mean is
        mean = est.values.mean(axis=0)
        _, p_c = _tails(np.abs(est.values - mean), m_out, C, R, prof.conc_bounds)
        p_centred = min(1.0, min(p_c) * n_tests)
        details["centred_pvalue"] = p_centred
        if p_centred >= ctx.alpha:
            b = mean - pairs.exact
            jb = int(np.argmax(np.abs(b)))
            cause = (f"consistent with a bias (the check unbiasedness measures it; here {b[jb]:+.3g} at "
                     f"{pairs.labels[jb]}): the deviations from the mean estimate are within the Hoeffding bound "
                     f"(p = {p_centred:.2g}), so there is no evidence of correlated features once the bias is removed")
        else:
            cause = (f"the estimate does not concentrate like an average of {m_out} independent bounded terms "
                     "even about its own mean (features sharing their randomness, or heavy tails)")
        return ctx.fail(
            "tail frequency above the Hoeffding bound",
            f"P(|k_hat - k| >= {worst['eps']:.3g}) = {worst['max_frequency']:.3g} over {R} seeds",
            f"<= the Hoeffding bound 2 exp(-m eps^2 / (2 C^4)) = {worst['bound']:.3g} for C = {C:g}, m = {m_out} "
            f"(rejected at alpha = {ctx.alpha:.3g})",
            interval=(lo, hi), level=1 - ctx.alpha, evidence=f"p = {p_adj:.3g}, Bonferroni over {n_tests} tests",
            where=f"pair {j} ({pairs.labels[j]}), eps = {worst['eps']:.3g}",
            cause=cause,
            statistic=worst["max_frequency"], pvalue=p_adj, threshold=ctx.alpha, effect=eff, details=details)
    return ctx.result(
        "pass",
        f"sup |feature| sqrt(m) = {sup:.4g} <= C = {C:g}; tail frequencies within the Hoeffding bound at "
        f"{len(rows)} eps values over {R} seeds (m = {m_out})",
        statistic=worst["max_frequency"], pvalue=p_adj, threshold=ctx.alpha, effect=eff, details=details)

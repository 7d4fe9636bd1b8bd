"""Adapted approximation: what a data-dependent basis is held to instead of unbiasedness.

An adapted basis (alber2017 §3.2: UAB, SAB; also Nyström) is a deterministic function of its
data and seed, so E[k_hat] = k over its randomness, Hoeffding concentration and the 1/m error rate
are not claims of the method (those checks are skipped with that reason).  What such a method does
claim is that adapting helps: on points it was *not* fitted to, it approximates the kernel (UAB),
or aligns with the target (SAB), at least as well as the random basis it started from, and
reaches a given error with fewer features (alber2017 Fig. 1).  This module measures that.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, TypedDict

import numpy as np

from rfverify.adapters import FittedMap
from rfverify.errors import PluginError
from rfverify.metrics import alignment, held_out_data, labels_of, relative_frobenius_error, target_alignment
from rfverify.kinds.feature_map import CheckContext, reference_random_basis
from rfverify.measurement import Measurement, detail
from rfverify.registry import PluginObject, effect, register_check
from rfverify.results import CheckResult, Effect
from rfverify.profiles import budget as profile_budget
from rfverify.stats import one_sided_t, t_interval

#: Confidence of the reported savings interval (a measurement, not the test).
SAVINGS_CONFIDENCE = 0.95
#: Errors are floored here before taking logs (an exact map has error 0).
ERROR_FLOOR = 1e-300
#: Slope of the relative Frobenius error of a random basis against m on log-log axes (Monte Carlo:
#: error ~ m^(-1/2)); used only to extrapolate beyond the measured grid, and flagged when used.
MC_SLOPE = -0.5


@dataclass(frozen=True)
class AdaptedBudget:
    grid: tuple[int, ...]
    seeds: int
    n_fit: int
    n_test: int




def _applies(ctx: CheckContext) -> str | None:
    if not ctx.declarations.data_dependent:
        return ("not a data-dependent map (fit does not depend on X): its unbiasedness, concentration and "
                "error rate are checked instead; declare data_dependent=True (--data-dependent) to measure "
                "what adapting the basis buys")
    return None


def reference_basis(ctx: CheckContext, fitted: FittedMap, m: int, random_state: int,
                    X_fit: np.ndarray) -> tuple[PluginObject | None, str]:
    """The random basis to compare with: the map's own ``initial_basis()`` if it offers one, else the
    registry's random features for the kernel (rbf, laplacian, arccos) at the same m and random_state."""
    init = getattr(fitted.obj, "initial_basis", None)
    if callable(init):
        try:
            basis = init()
        except Exception as exc:
            raise PluginError(ctx.name, f"initial_basis() raised {type(exc).__name__}: {exc}",
                              "initial_basis() must return the fitted random basis the map started from") from exc
        if not hasattr(basis, "transform"):
            raise PluginError(ctx.name, f"initial_basis() returned {getattr(basis, '_rf_type', None) or type(basis).__name__} without transform",
                              "initial_basis() must return an object with transform(X)")
        return basis, "the random basis it started from (initial_basis())"
    return reference_random_basis(ctx.kernel, m, random_state, X_fit)


def _transform(basis: PluginObject, X: np.ndarray, who: str) -> np.ndarray:
    try:
        F = np.asarray(basis.transform(X))
    except Exception as exc:
        raise PluginError(who, f"transform of the reference basis raised {type(exc).__name__}: {exc}",
                          "initial_basis().transform(X) must work like the map's transform") from exc
    if F.ndim != 2 or F.shape[0] != X.shape[0] or not np.all(np.isfinite(F)):
        raise PluginError(who, f"the reference basis returned shape {F.shape} or non-finite values",
                          f"initial_basis().transform(X) must return a finite ({X.shape[0]}, m) array")
    return F


def features_needed(m: np.ndarray, err: np.ndarray, target: float) -> tuple[float, bool]:
    """Features a curve ``err(m)`` needs to reach ``target``: log-log interpolation between grid points;
    outside the grid, extrapolation along the Monte Carlo slope -1/2 (returned flag True)."""
    le, lm, lt = np.log(np.maximum(err, ERROR_FLOOR)), np.log(m), math.log(max(target, ERROR_FLOOR))
    if le[0] <= lt:
        return float(m[0] * math.exp((lt - le[0]) / MC_SLOPE)), bool(le[0] < lt)
    for k in range(1, len(m)):
        if le[k] <= lt:  # the first point that reaches it: le[k - 1] > lt >= le[k], a segment of nonzero height
            f = (lt - le[k - 1]) / (le[k] - le[k - 1])
            return float(math.exp(lm[k - 1] + f * (lm[k] - lm[k - 1]))), False
    return float(m[-1] * math.exp((lt - le[-1]) / MC_SLOPE)), True


@dataclass(frozen=True)
class AdaptedPlan:
    """The grid and seeds (``budget``), the points the map is fitted on and the held-out points it is scored on."""

    budget: AdaptedBudget
    X_fit: np.ndarray
    X_test: np.ndarray



@dataclass(frozen=True, kw_only=True)
class AdaptedMeasurement(Measurement):
    """Held-out kernel approximation (or target alignment) of the adapted basis and of its random reference, per
    width of the grid, averaged over seeds; the per-fit statistic; the features saved."""

    FIGURES: ClassVar[tuple[str, ...]] = ("adapted",)

    objective: str = detail("kernel-approximation (UAB) or target-alignment (SAB): what the verdict judges")
    reference: str = detail("the random basis compared with (the map's initial_basis(), or the kernel's RFF)")
    n_fit: int = detail("points the map is fitted on")
    n_test: int = detail("held-out points it is scored on")
    seeds: int = detail("seeds S (fits per width)")
    n_components: list[int] = detail("the grid of widths asked for")
    m_adapted: np.ndarray = detail("per width: features the adapted map returned (mean over seeds)")
    m_reference: np.ndarray = detail("per width: features of the reference basis")
    error_adapted: np.ndarray = detail("per width: held-out relative Frobenius error of the adapted map")
    error_reference: np.ndarray = detail("per width: the same for the reference basis")
    alignment_adapted: np.ndarray = detail("per width: alignment of the adapted estimate with the exact kernel")
    alignment_reference: np.ndarray = detail("per width: the same for the reference basis")
    statistic_per_fit: np.ndarray = detail("per fit: log(e_adapted / e_reference), or A_reference - A_adapted "
                                           "(positive: worse)")
    savings_per_seed: list[float] = detail("per seed: reference width / features the adapted map needs for the "
                                           "reference's error at the largest width", default=())
    savings: float = detail("their geometric mean", default=math.nan)
    savings_interval: list[float] = detail("its 95% t-interval (over seeds, on the log)", default=())
    savings_target_error: float = detail("the reference's error at the largest width (the target)", default=math.nan)
    savings_extrapolated: bool = detail("some seed's need was extrapolated beyond the grid at slope -1/2",
                                        default=False)
    target_alignment_adapted: np.ndarray | None = detail("per width: target alignment of the adapted map (when the "
                                                         "fitted map labels points)", optional=True)
    target_alignment_reference: np.ndarray | None = detail("per width: the same for the reference basis",
                                                           optional=True)
    skip: str | None = detail("why there is nothing to compare with (the check skips)", internal=True, default=None)
    t: float = detail("the one-sided t statistic", internal=True, default=math.nan)
    pvalue: float = detail("its p-value", internal=True, default=1.0)
    error_ratio: float = detail("geometric mean of e_adapted / e_reference over every fit", internal=True,
                                    default=math.nan)
    identical: bool = detail("e_adapted == e_reference at every fit", internal=True, default=False)
    target_alignment_means: tuple[float, float] = detail("mean target alignment (adapted, reference)",
                                                         internal=True, default=(math.nan, math.nan))

    @property
    def judged_alignment(self) -> bool:
        return self.objective == "target-alignment"


@register_check("feature-map", "adapted-approximation", statistical=True, alpha_share=False, applies=_applies,
                cost="seeds x grid fits of the map and its reference basis (default 5 x 5, m = 8..128)",
                measurement=AdaptedMeasurement)
def check_adapted_approximation(ctx: CheckContext) -> CheckResult:
    """A data-dependent basis is not worse than its random starting basis on held-out points.

    Property: after adapting to its data, the map approximates the kernel on *held-out* points at
    least as well as the random basis it started from (objective ``kernel-approximation``, UAB:
    alber2017 eq. 8), or aligns at least as well with the target kernel yy^T (objective
    ``target-alignment``, SAB: eq. 9, when the fitted map labels points by ``labels_for(X)``).
    The reference is the map's ``initial_basis()``, else the registry's random features for the
    kernel (rbf: RFF) at the same m and random_state.
    Test: the map is fitted on ``n_fit`` points of the domain at each m of the grid (default
    8…128) for S seeds (default 5), each fit with its own random_state, and evaluated on
    ``n_test`` independent points.  Per fit the statistic is log(e_adapted / e_reference)
    (relative Frobenius errors), or A_reference - A_adapted (target alignments): positive means
    worse.  Given the points, the S x G fits are independent; one-sided Student t-test of their mean
    (S G - 1 d.o.f.), H0: mean <= 0, at alpha = family alpha / 3, the share of one of the three
    statistical checks this one replaces (they are skipped exactly when it applies, so the
    family-wise rate stays <= the profile's).  Under H0 "not worse at any m" differing means across
    m only inflate the sample variance, so the test is conservative; zero spread (a map identical
    to its reference) decides exactly.  Not judged, reported:
    the features needed to reach the reference's error at the largest m (log-log interpolation;
    Monte Carlo slope -1/2 outside the grid, flagged), their ratio (savings) with a 95% t-interval
    of its log over seeds, the alignment with the exact kernel, and the target alignment.
    A plain random basis declared data-dependent is its own reference: ratio 1, pass.
    Applies to: data-dependent maps (declared, or detected by the preflight).  Catches: an
    adaptation that makes the basis worse (a wrong gradient sign, a wrong target kernel),
    overfitting to the fitted points.  Power: measured by tests/test_adapted.py — gradient ascent
    is caught under the default seed and 20 others, a SAB aligned to the wrong labels too; the
    statistic of a correct UAB or SAB is far below 0.
    Reference: alber2017 §3.2 (eqs. 8, 9), §4.2 and Fig. 1.
    """
    return verdict(ctx, measure(ctx, design(ctx)))


def design(ctx: CheckContext, pilot: None = None) -> AdaptedPlan:
    """The profile's fixed design (no pilot): the grid and seeds, and the fitted and held-out points."""
    budget = AdaptedBudget(**profile_budget(ctx.profile, "adapted"))
    X_fit, X_test = held_out_data(ctx, budget.n_fit, budget.n_test, "adapted", "points")
    return AdaptedPlan(budget, X_fit, X_test)


class _Grid(TypedDict, total=False):
    """Each (seed, m) fit's held-out errors, alignments, widths and target alignments (``_a`` the adapted map,
    ``_r`` the reference basis; arrays of shape (seeds, len(grid))), and what the comparison is about."""

    e_a: np.ndarray
    e_r: np.ndarray
    a_a: np.ndarray
    a_r: np.ndarray
    m_a: np.ndarray
    m_r: np.ndarray
    ta_a: np.ndarray
    ta_r: np.ndarray
    have_labels: bool
    skip: str | None
    objective: str
    #: The reference basis the map is compared with (set by the first fit).
    reference: str


def _fit_grid(ctx: CheckContext, plan: AdaptedPlan) -> _Grid:
    """Each (seed, m) fit of the map and its reference basis, scored on the held-out points; ``skip``: why there
    is nothing to compare with."""
    grid, S, X_fit, X_test = plan.budget.grid, plan.budget.seeds, plan.X_fit, plan.X_test
    K = ctx.kernel(X_test, X_test)
    shape = (S, len(grid))
    a: _Grid = {"e_a": np.empty(shape), "e_r": np.empty(shape), "a_a": np.empty(shape), "a_r": np.empty(shape),
                "m_a": np.empty(shape), "m_r": np.empty(shape), "ta_a": np.full(shape, np.nan),
                "ta_r": np.full(shape, np.nan), "have_labels": True, "skip": None,
                "objective": "kernel-approximation"}  # unless the map declares adapted_objective
    for s in range(S):
        for j, m in enumerate(grid):
            rs = ctx.random_state("fit", m, trial=s)
            fitted = ctx.plugin.fit(m, rs, X_fit)
            F = fitted.transform(X_test)
            ref, a["reference"] = reference_basis(ctx, fitted, m, rs, X_fit)
            if ref is None:
                a["skip"] = a["reference"] + "; nothing to compare the adapted basis with"
                return a
            Fr = _transform(ref, X_test, ctx.name)
            Kh, Kr = np.real(F @ np.conj(F).T), np.real(Fr @ np.conj(Fr).T)
            a["objective"] = str(getattr(fitted.obj, "adapted_objective", a["objective"]))
            a["e_a"][s, j], a["e_r"][s, j] = relative_frobenius_error(K, Kh), relative_frobenius_error(K, Kr)
            a["a_a"][s, j], a["a_r"][s, j] = alignment(K, Kh), alignment(K, Kr)
            a["m_a"][s, j], a["m_r"][s, j] = F.shape[1], Fr.shape[1]
            y = labels_of(fitted.obj, X_test)
            if y is None:
                a["have_labels"] = False
            else:
                a["ta_a"][s, j], a["ta_r"][s, j] = target_alignment(Kh, y), target_alignment(Kr, y)
    if a["objective"] == "target-alignment" and not a["have_labels"]:
        a["objective"] = "kernel-approximation (the map claims target-alignment but cannot label held-out points)"
    return a


def measure(ctx: CheckContext, plan: AdaptedPlan) -> AdaptedMeasurement:
    """The per-fit statistic (log error ratio, or target-alignment loss), its one-sided t-test, and the savings."""
    f = _fit_grid(ctx, plan)
    b = plan.budget
    if f["skip"] is not None:
        empty = np.zeros(0)
        return AdaptedMeasurement(objective="", reference=f["skip"], n_fit=b.n_fit, n_test=b.n_test, seeds=b.seeds,
                                  n_components=list(b.grid), skip=f["skip"], m_adapted=empty, m_reference=empty,
                                  error_adapted=empty, error_reference=empty, alignment_adapted=empty,
                                  alignment_reference=empty, statistic_per_fit=empty)
    e_a, e_r, ta_a, ta_r, m_a, m_r = f["e_a"], f["e_r"], f["ta_a"], f["ta_r"], f["m_a"], f["m_r"]
    log_ratio = np.log(np.maximum(e_a, ERROR_FLOOR)) - np.log(np.maximum(e_r, ERROR_FLOOR))
    worse = (ta_r - ta_a).ravel() if f["objective"] == "target-alignment" else log_ratio.ravel()
    t, p = one_sided_t(worse)
    # savings: features to reach the reference's error at the largest m, per seed
    needs = [features_needed(m_a[s], e_a[s], e_r[s, -1]) for s in range(b.seeds)]
    savings = [m_r[s, -1] / need for s, (need, _) in enumerate(needs)]
    sav_mean, sav_lo, sav_hi = (math.exp(v) for v in t_interval(np.log(savings), SAVINGS_CONFIDENCE))
    labels = f["have_labels"]
    return AdaptedMeasurement(
        objective=f["objective"], reference=f["reference"], n_fit=b.n_fit, n_test=b.n_test, seeds=b.seeds,
        n_components=list(b.grid), m_adapted=np.mean(m_a, axis=0), m_reference=np.mean(m_r, axis=0),
        error_adapted=np.mean(e_a, axis=0), error_reference=np.mean(e_r, axis=0),
        alignment_adapted=np.mean(f["a_a"], axis=0), alignment_reference=np.mean(f["a_r"], axis=0),
        statistic_per_fit=worse, savings_per_seed=savings, savings=sav_mean, savings_interval=[sav_lo, sav_hi],
        savings_target_error=float(np.mean(e_r[:, -1])), savings_extrapolated=any(flag for _, flag in needs),
        target_alignment_adapted=np.mean(ta_a, axis=0) if labels else None,
        target_alignment_reference=np.mean(ta_r, axis=0) if labels else None,
        t=t, pvalue=p, error_ratio=float(np.exp(np.mean(log_ratio))), identical=bool(np.all(e_a == e_r)),
        target_alignment_means=(float(np.mean(ta_a)), float(np.mean(ta_r))))


def _texts(ctx: CheckContext, ms: AdaptedMeasurement, eff: Effect) -> tuple[str, str, str]:
    """(the ratio, the savings, where) as the message states them."""
    judged_alignment = ms.judged_alignment
    m_top = int(round(float(ms.m_reference[-1])))
    ta_a, ta_r = ms.target_alignment_means
    ratio_txt = (f"target alignment {ta_a:.3g} vs {ta_r:.3g}" if judged_alignment else
                 f"held-out error {eff.estimate:.3g} x the reference's [{eff.low:.3g}, {eff.high:.3g}]")
    lo, hi = ms.savings_interval
    sav_txt = (f"features for the reference's error at m = {m_top} ({ms.savings_target_error:.3g}): "
               f"savings x{ms.savings:.3g} [{lo:.3g}, {hi:.3g}]"
               f"{' (extrapolated beyond the grid at slope -1/2 for some seeds)' if ms.savings_extrapolated else ''}")
    if judged_alignment:
        sav_txt = (f"its kernel approximation error is {ms.error_ratio:.3g} x the reference's (not its objective: "
                   "alber2017 Fig. 1 shows it to measure how far the basis moved)")
    grid = ms.n_components
    where = f"m = {grid[0]}…{grid[-1]}, {ms.seeds} seeds, {ms.n_test} held-out points; reference: {ms.reference}"
    return ratio_txt, sav_txt, where


def verdict(ctx: CheckContext, ms: AdaptedMeasurement) -> CheckResult:
    """Worse than the reference (the t-test rejects), identical to it, or not worse (with the savings reported)."""
    if ms.skip is not None:
        return ctx.result("skip", ms.skip)
    worse, p = ms.statistic_per_fit, ms.pvalue
    mean_worse, lo_w, hi_w = t_interval(worse, 1 - ctx.alpha)
    if ms.judged_alignment:
        eff = effect("target-alignment gain (adapted - reference)", -mean_worse, -hi_w, -lo_w, 1 - ctx.alpha)
        stat_name = "target-alignment loss A_reference - A_adapted"
    else:
        eff = effect("held-out error ratio adapted/reference", math.exp(mean_worse), math.exp(lo_w),
                     math.exp(hi_w), 1 - ctx.alpha)
        stat_name = "log error ratio"
    ratio_txt, sav_txt, where = _texts(ctx, ms, eff)
    common = dict(statistic=float(np.mean(worse)), pvalue=p, threshold=ctx.alpha, effect=eff, details=ms.to_details())
    if p < ctx.alpha:
        return ctx.fail(
            "the adapted basis is worse than its reference random basis on held-out points",
            ratio_txt,
            ("a target alignment at least the reference's" if ms.judged_alignment else
             "a held-out error at most the reference's (ratio <= 1)")
            + f": {stat_name} <= 0 (one-sided t-test rejected at alpha = {ctx.alpha:.3g})",
            evidence=f"{stat_name} {np.mean(worse):+.3g} over {worse.size} fits, t = {ms.t:.3g}, p = {p:.3g}",
            where=where, cause="the adaptation increases what it should decrease (a gradient sign or target error?)",
            **common)
    if ms.identical and not ms.judged_alignment:
        msg = (f"identical to its reference random basis at every m (error ratio 1): nothing is adapted; "
               f"not worse ({where})")
    else:
        msg = f"not worse than its reference on held-out points: {ratio_txt} (p = {p:.3g}); {sav_txt} ({where})"
    return ctx.result("pass", msg, **common)

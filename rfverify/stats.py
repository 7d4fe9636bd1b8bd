"""Statistical machinery shared by the checks.

Every function here states the inequality or the null distribution it relies
on.  Conventions follow SciPy: tests return p-values, intervals are
``(low, high)`` tuples, Monte Carlo p-values are ``(b + 1) / (m + 1)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np
from scipy import stats as _st
from scipy.optimize import brentq

__all__ = [
    "MeanTest",
    "mean_test",
    "required_trials",
    "t_test_power",
    "detectable_effect",
    "binomial_upper_test",
    "clopper_pearson",
    "SlopeFit",
    "log_slope",
    "hoeffding_bound",
    "hoeffding_epsilon",
    "t_interval",
    "one_sided_t",
    "skewness",
    "COCHRAN",
    "COCHRAN_LEVEL",
    "cochran_constant",
    "cochran_n",
    "too_skewed",
]


def _z(p: float) -> float:
    """Upper ``p`` quantile of the standard normal."""
    return float(_st.norm.isf(p))


@dataclass(frozen=True)
class MeanTest:
    """Per-coordinate two-sided tests of ``E[sample] == expected`` with Bonferroni control.

    ``t``: Student statistics; ``p``: raw two-sided p-values; ``p_adjusted``:
    Bonferroni-adjusted (``min(1, P * p)``); ``half_width``: half-widths of
    *simultaneous* confidence intervals at level ``1 - alpha`` (Bonferroni);
    ``mean``/``sd``: sample mean and standard deviation per coordinate.
    """

    mean: np.ndarray
    sd: np.ndarray
    t: np.ndarray
    p: np.ndarray
    p_adjusted: np.ndarray
    half_width: np.ndarray
    n: int
    alpha: float
    #: Columns whose mean is within the round-off bound of ``expected`` (no evidence of anything but rounding).
    roundoff_only: np.ndarray | None = None


def _hall_corrected(t: np.ndarray, samples: np.ndarray, mean: np.ndarray,
                    sd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hall's (1992) transform of the studentised mean and its two-sided N(0, 1) p-value (:func:`mean_test`)."""
    r = samples.shape[0]
    centred = samples - mean
    with np.errstate(divide="ignore", invalid="ignore"):
        skew = np.where(sd > 0, (centred ** 3).mean(axis=0) / np.where(sd > 0, sd, 1.0) ** 3, 0.0)
    a = skew / (3.0 * math.sqrt(r))
    t = t + a * t * t + a * a * t ** 3 / 3.0 + a / 2.0
    return t, 2.0 * _st.norm.sf(np.abs(t))


def _exact_columns(degenerate: np.ndarray, close: np.ndarray, diff: np.ndarray, t: np.ndarray,
                   p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Columns without spread decided exactly: p = 1 within the round-off band, else 0; t = 0 there, not
    diff / se (4e-16 / 2e-18 = 230 on one CPU, 0 / 0 on another), so a column judged round-off only is never
    the "largest departure" a report headlines."""
    p = np.where(degenerate, np.where(close, 1.0, 0.0), p)
    t = np.where(degenerate, np.where(close, 0.0, np.copysign(np.inf, diff)), t)
    return t, p


def mean_test(samples: np.ndarray, expected: np.ndarray, alpha: float, *,
              skewness_correction: bool = False, roundoff: float | np.ndarray | None = None) -> MeanTest:
    """Two-sided one-sample t-tests, one per column, Bonferroni over columns.

    ``samples`` has shape ``(R, P)``: R independent replicates of P (possibly
    dependent) estimates.  Under H0 each column mean equals ``expected``.  The
    t statistic with ``R - 1`` degrees of freedom is exact for Gaussian
    replicates and asymptotically valid (CLT) for any finite-variance ones;
    Bonferroni is valid under arbitrary dependence between columns, so the
    family-wise error over the P columns is at most ``alpha``.
    A column with zero sample variance is tested exactly: it rejects iff its
    mean differs from ``expected`` beyond round-off: p = 1 when equal to
    ``expected`` within the round-off bound, else p = 0.

    ``roundoff``: the absolute round-off bound of one estimate (scalar or per
    column; :func:`rfverify.tolerances.estimate_roundoff` for a kernel
    estimate in the features' dtype).  The null hypothesis is then
    ``|E[sample] - expected| <= roundoff`` -- a mean computed in finite
    precision may sit anywhere in that band -- and each column is tested at
    the band's nearer edge: ``t = sign(diff) max(|diff| - roundoff, 0) / se``,
    which is conservative (level <= alpha) for every mean in the band.  A
    column with no spread is compared exactly against the band.  ``roundoff_only`` marks the columns with ``|diff| <= roundoff``.
    None: a relative 1e-12 (float64 arithmetic; the tests of Haar matrices and
    quadrature rules, which compute in float64 themselves).

    ``skewness_correction=True`` replaces the t reference by Hall's (1992)
    monotone cubic transform of the studentised mean,
    ``g(T) = T + a T^2 + a^2 T^3 / 3 + a / 2`` with ``a = skew / (3 sqrt R)``,
    referred to N(0, 1); it removes the O(R^-1/2) Edgeworth term
    ``skew (2x^2 + 1) phi(x) / (6 sqrt R)`` that makes the plain t-test
    anti-conservative far in the tail for skewed replicates.  Measured on
    ``(tr Q)^2`` of Haar matrices (skewness 2.8) at alpha 6.7e-5, R = 1500,
    10^5 replicate tests: plain t 1.7e-4, corrected 9e-5 (d = 4).
    Reference: P. Hall (1992), On the removal of skewness by transformation,
    J. R. Statist. Soc. B 54, 221-228.
    """
    samples, expected = np.asarray(samples, dtype=float), np.asarray(expected, dtype=float)
    r, npairs = samples.shape
    mean = samples.mean(axis=0)
    sd = samples.std(axis=0, ddof=1) if r > 1 else np.zeros(npairs)
    se = sd / math.sqrt(r)
    diff = mean - expected
    spread_tol = 1e-12 * np.maximum(1.0, np.abs(expected))
    band = np.zeros(npairs) if roundoff is None else np.broadcast_to(np.asarray(roundoff, dtype=float), (npairs,))
    exact_tol = np.maximum(spread_tol, band)
    shrunk = np.sign(diff) * np.maximum(np.abs(diff) - band, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, shrunk / np.where(se > 0, se, 1.0), 0.0)
    if skewness_correction and r > 2:
        t, p = _hall_corrected(t, samples, mean, sd)
    else:
        p = 2.0 * _st.t.sf(np.abs(t), df=max(r - 1, 1))
    # A spread at round-off level is no spread: an estimator exact at this column for every draw
    # (e.g. a quadrature rule exact on the integrand) jitters by ~1e-16 and must not be t-tested.
    degenerate = se <= spread_tol
    if np.any(degenerate):
        t, p = _exact_columns(degenerate, np.abs(diff) <= exact_tol, diff, t, p)
    p_adj = np.minimum(1.0, p * npairs)
    crit = float(_st.t.isf(alpha / (2 * npairs), df=max(r - 1, 1)))
    return MeanTest(mean, sd, t, p, p_adj, crit * se, r, alpha, np.abs(diff) <= exact_tol)


#: Gauss-Legendre nodes on (0, 1) for the noncentral-t power integral (power accurate to ~1e-6 at 9 d.o.f.,
#: better at more; checked against scipy's nct and adaptive quadrature in tests/).
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(128)
_GL_NODES, _GL_WEIGHTS = (_GL_NODES + 1.0) / 2.0, _GL_WEIGHTS / 2.0


@lru_cache(maxsize=4096)
def _chi_scale(df: int) -> np.ndarray:
    """sqrt(V / df) at the chi-square(df) quantiles of the Gauss-Legendre nodes."""
    return np.sqrt(_st.chi2.ppf(_GL_NODES, df) / df)


def t_test_power(n: int, shift_over_sd: float, alpha_two_sided: float) -> float:
    """Exact power of the two-sided one-sample t-test with ``n`` replicates against a shift of ``shift_over_sd`` sd.

    ``P(|T| > t_{n-1}(alpha/2))`` with T noncentral t (n - 1 d.o.f., noncentrality ``shift sqrt(n) / sd``),
    computed as ``E_V[Phi(nc - c S) + Phi(-nc - c S)]``, ``S = sqrt(V / (n - 1))``, ``V ~ chi2(n - 1)``, by
    Gauss-Legendre quadrature over V's quantiles (scipy's ``nct.sf`` returns nan in part of this range).
    """
    n = int(n)
    if n < 2:
        return float(alpha_two_sided)
    c = float(_st.t.isf(alpha_two_sided / 2, n - 1))
    nc = float(shift_over_sd) * math.sqrt(n)
    s = _chi_scale(n - 1)
    g = _st.norm.sf(c * s - nc) + _st.norm.cdf(-c * s - nc)
    return float(min(1.0, max(0.0, float(_GL_WEIGHTS @ g))))


def required_trials(sigma: float, delta: float, alpha_two_sided: float, power: float) -> int:
    """Replicates needed to detect a mean shift ``delta`` with the given power.

    The smallest n >= 2 at which the two-sided one-sample t-test at level ``alpha_two_sided`` has exact power
    (:func:`t_test_power`, noncentral t) >= ``power`` against a shift ``delta`` with standard deviation
    ``sigma``.  The search starts at the normal approximation
    ``((z_{alpha/2} + z_{1-power}) * sigma / delta) ** 2``, which is too small where n is small and alpha
    tiny (at the unbiasedness check's per-pair level 7e-6 with sigma = delta it gives n = 34, power 0.68), and
    can be too large where alpha is large; the answer is found by bisection either way.
    """
    if delta <= 0:
        raise ValueError("delta must be positive")
    if sigma <= 0:
        return 2
    e = delta / sigma
    n = max(2, math.ceil(((_z(alpha_two_sided / 2) + _z(1.0 - power)) / e) ** 2))
    if t_test_power(n, e, alpha_two_sided) >= power:
        # The start can overshoot where alpha is large (the approximation ignores the far tail's rejections:
        # alpha 0.3, delta/sigma 0.306, power 0.502 gives 12 where 11 suffices): search below it, n >= 2.
        lo, hi = 1, n
    else:
        lo, hi = n, 2 * n  # power(lo) < target; double hi until it reaches the target (bounded: 2^60 n)
        for _ in range(60):
            if t_test_power(hi, e, alpha_two_sided) >= power:
                break
            lo, hi = hi, 2 * hi
    for _ in range(64):  # bisection on the integers: power(lo) < target <= power(hi)
        if hi - lo <= 1:
            break
        mid = (lo + hi) // 2
        if t_test_power(mid, e, alpha_two_sided) >= power:
            hi = mid
        else:
            lo = mid
    return hi


@lru_cache(maxsize=1024)
def _detectable_ratio(n: int, alpha_two_sided: float, power: float) -> float:
    """The shift / sd the t-test detects with ``power`` from ``n`` replicates (root of :func:`t_test_power`)."""
    z = (_z(alpha_two_sided / 2) + _z(1.0 - power)) / math.sqrt(n)
    hi = 2.0 * z
    for _ in range(60):  # bounded doubling: the power reaches any target below 1 at a finite shift
        if t_test_power(n, hi, alpha_two_sided) >= power:
            break
        hi *= 2.0
    return float(brentq(lambda e: t_test_power(n, e, alpha_two_sided) - power, 0.0, hi, xtol=1e-12, rtol=1e-10))


def detectable_effect(sigma: float, n: int, alpha_two_sided: float, power: float) -> float:
    """The shift detectable with ``power`` from ``n`` replicates (inverse of :func:`required_trials`).

    Exact for the t-test (:func:`t_test_power`), so ``detectable_effect(sigma, required_trials(sigma, delta,
    a, p), a, p) <= delta``.  For n < 2 (no t-test) the normal approximation.
    """
    n = int(n)
    if n < 2:
        return (_z(alpha_two_sided / 2) + _z(1.0 - power)) * sigma / math.sqrt(max(n, 1))
    return sigma * _detectable_ratio(n, float(alpha_two_sided), float(power))


def binomial_upper_test(k: int, n: int, p0: float) -> float:
    """One-sided exact binomial p-value for H0: p <= p0 against p > p0: P(Bin(n, p0) >= k)."""
    if k <= 0:
        return 1.0
    return float(_st.binom.sf(k - 1, n, min(max(p0, 0.0), 1.0)))


def clopper_pearson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper–Pearson) two-sided interval for a binomial proportion."""
    a = 1.0 - confidence
    lo = 0.0 if k == 0 else float(_st.beta.ppf(a / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(_st.beta.isf(a / 2, k + 1, n - k))
    return lo, hi


@dataclass(frozen=True)
class SlopeFit:
    """Weighted least-squares fit of ``log y = a + slope * log x``."""

    slope: float
    se: float
    intercept: float
    x: np.ndarray
    y: np.ndarray
    y_se: np.ndarray


def log_slope(m: np.ndarray, per_replicate: list[np.ndarray]) -> SlopeFit:
    """Fit the log-log slope of mean(per_replicate[j]) against m[j].

    Each ``per_replicate[j]`` holds independent replicates whose mean is the
    quantity at ``m[j]`` (e.g. per-seed mean squared errors).  By the delta
    method ``Var(log mean) ~= Var(replicate) / (R * mean**2)``; the points are
    independent (disjoint seed streams), so weighted least squares with weights
    ``1 / Var`` gives the slope and its standard error.
    """
    x = np.log(np.asarray(m, dtype=float))
    means = np.array([np.mean(v) for v in per_replicate])
    var = np.array([np.var(v, ddof=1) / (len(v) * np.mean(v) ** 2) for v in per_replicate])
    y = np.log(means)
    w = 1.0 / np.maximum(var, 1e-300)
    xw = np.sum(w * x) / np.sum(w)
    sxx = np.sum(w * (x - xw) ** 2)
    slope = float(np.sum(w * (x - xw) * (y - np.sum(w * y) / np.sum(w))) / sxx)
    se = float(math.sqrt(1.0 / sxx))
    intercept = float(np.sum(w * y) / np.sum(w) - slope * xw)
    return SlopeFit(slope, se, intercept, np.exp(x), means, np.sqrt(var))


def hoeffding_bound(m: int, eps: float, c: float) -> float:
    """Theorem 3 of daniely2017 (Hoeffding): P(|k_hat - k| >= eps) <= 2 exp(-m eps^2 / (2 C^4)).

    Each of the m terms psi_i(x) psi_i(y) lies in [-C^2, C^2] (range 2 C^2), so
    Hoeffding's inequality gives 2 exp(-2 m eps^2 / (2 C^2)^2).  For random
    Fourier features C = sqrt(2) and this is the cs4787 lecture's
    2 exp(-D a^2 / 8).
    """
    return min(1.0, 2.0 * math.exp(-m * eps * eps / (2.0 * c**4)))


def hoeffding_epsilon(m: int, bound: float, c: float) -> float:
    """The eps at which :func:`hoeffding_bound` equals ``bound``: C^2 sqrt(2 ln(2/bound) / m)."""
    return c * c * math.sqrt(2.0 * math.log(2.0 / bound) / m)


def t_interval(values: Sequence[float] | np.ndarray, confidence: float = 0.95) -> tuple[float, float, float]:
    """(mean, low, high): two-sided Student t interval for the mean over seeds, non-finite values left out.

    Zero spread gives the point interval; one value gives (v, -inf, inf) — no interval from one seed.
    """
    v = np.asarray([x for x in values if math.isfinite(x)], dtype=float)
    if v.size == 0:
        return float("nan"), float("nan"), float("nan")
    mean = float(np.mean(v))
    if v.size == 1:
        return mean, float("-inf"), float("inf")
    half = float(_st.t.ppf(0.5 + confidence / 2, v.size - 1) * np.std(v, ddof=1) / math.sqrt(v.size))
    return mean, mean - half, mean + half


def one_sided_t(x: np.ndarray) -> tuple[float, float]:
    """(t, p) of the one-sample t-test of H0: E x <= 0 against E x > 0 (``scipy.stats.ttest_1samp``,
    ``alternative="greater"``); zero or non-finite spread, or one value, decides exactly by the sign of the mean
    (p = 0 or 1), where scipy would return NaN."""
    x = np.asarray(x, dtype=float)
    mean, sd = float(np.mean(x)), float(np.std(x, ddof=1)) if len(x) >= 2 else 0.0
    if sd == 0.0 or not math.isfinite(sd):
        return (math.copysign(math.inf, mean) if mean != 0 else 0.0), (0.0 if mean > 0 else 1.0)
    res = _st.ttest_1samp(x, 0.0, alternative="greater")
    return float(res.statistic), float(res.pvalue)


#: Cochran's rule for the t-test of a mean (Sampling Techniques, 3rd ed., 1977, §2.15): trusted when n > 25 G1²,
#: G1 the population skewness.  At a corner (m = 1 … 65) an estimate can be as skewed as a product of squared
#: Gaussians (arc-cosine order 2 at m = 3: 30 seeds gave mean 0.285 against the exact 0.868 and t far in the left
#: tail — a false alarm on a correct map); such a pair gets more seeds, or is not tested at that corner.
COCHRAN = 25.0
#: The two-sided level Cochran's constant is stated for (95% intervals).
COCHRAN_LEVEL = 0.05


def cochran_constant(alpha: float = COCHRAN_LEVEL) -> float:
    """Cochran's constant carried to the level ``alpha`` of the test: ``25 (e(z) / e(z_0.025))²``, e(z) = z(2z² + 1).

    The one-term Edgeworth expansion of the studentised mean (Hall, *The Bootstrap and Edgeworth Expansion*, 1992,
    §2.6) puts the skewness error of a tail at phi(z) G1 (2z² + 1) / (6 sqrt(n)); relative to the tail itself
    (about phi(z) / z) that is G1 z (2z² + 1) / (6 sqrt(n)).  Cochran's n > 25 G1² bounds it at z = 1.96; the same
    relative error at the z of a corner's per-pair level (alpha about 1.7e-6 at the default profile, z = 4.8) needs
    a constant about 170 times larger.  Measured on scikit-learn's PolynomialCountSketch, a correct map: at its
    corner d = 2, m = 1 the estimate takes two values (G1 = 3.6) and the t-test on 30 seeds rejected 14.5% of
    samples at that level; at the largest kernel parameters (degree 5, gamma 1e3, m = 65; G1 = -4.4, excess
    kurtosis 43) 5.5e-4 — the two false alarms of the 21-seed ecosystem run (seeds 15 and 16).
    """
    def e(z: float) -> float:
        return z * (2.0 * z * z + 1.0)

    z0 = float(_st.norm.isf(COCHRAN_LEVEL / 2))
    z = max(float(_st.norm.isf(alpha / 2)), z0)
    return COCHRAN * (e(z) / e(z0)) ** 2


def cochran_n(values: np.ndarray, alpha: float = COCHRAN_LEVEL, cap: int | None = None) -> int:
    """Seeds the most skewed non-constant pair needs by Cochran's rule at the test's per-pair level ``alpha`` (the
    sample skewness standing in for G1); with ``cap``, only among the pairs that ``cap`` seeds can make testable."""
    needs = cochran_constant(alpha) * skewness(values) ** 2
    if cap is not None:
        needs = needs[needs <= cap]
    return int(math.ceil(float(np.max(needs)))) if needs.size else 0


def too_skewed(values: np.ndarray, alpha: float = COCHRAN_LEVEL) -> np.ndarray:
    """Per pair: n <= K(alpha) G1² (too few seeds for the t-test at this skewness and level; Cochran's rule carried
    to the level, :func:`cochran_constant`)."""
    return values.shape[0] <= cochran_constant(alpha) * skewness(values) ** 2


def skewness(values: np.ndarray) -> np.ndarray:
    """Per column, the sample skewness g1 = m3 / m2^(3/2) (the biased moment estimator, as
    ``scipy.stats.skew(values, axis=0, bias=True)``), 0 for a constant column.  Not scipy's own: scipy sets a
    column whose spread is within round-off of its mean to NaN, where this keeps the moment ratio (a pair whose
    estimates differ only by round-off is then judged by the same rule as any other)."""
    centred = values - values.mean(axis=0)
    sd = np.sqrt((centred ** 2).mean(axis=0))
    with np.errstate(invalid="ignore", divide="ignore"):
        g1 = (centred ** 3).mean(axis=0) / sd ** 3
    return np.where(sd > 0, g1, 0.0)

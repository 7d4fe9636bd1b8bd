"""A statistical check's verdict is a pure function of its measurement: each verdict below is decided from
hand-made numbers, with no plug-in and no randomness, and fails on the measurement of a broken map while it passes
on its correct twin."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace
from typing import Any

import numpy as np
from scipy.stats import norm

from rfverify.profiles import get_profile
from rfverify.properties import concentration, error_rate, unbiasedness
from rfverify.registry import BaseContext
from rfverify.seeding import SeedSource

LABELS = ["equal", "near", "far"]
EXACT = np.array([1.0, 0.6, 0.1])


@dataclasses.dataclass
class _Ctx(BaseContext):
    """What the verdicts read from a check context: alpha, profile, declarations, kernel and pairs."""

    declarations: Any = None
    kernel: Any = None
    pairs: Any = None

    @property
    def name(self) -> str:
        return "toy"


def _ctx(unbiased: bool = True, bias_bound: float | None = None, bound: float | None = None) -> _Ctx:
    return _Ctx(check="toy", profile=get_profile("quick"), seeds=SeedSource(0), alpha=1e-3, reproduce="rfverify ...",
                config=None,
                declarations=SimpleNamespace(unbiased=unbiased, bias_bound=bias_bound, bound=bound,
                                             deterministic=False),
                kernel=SimpleNamespace(name="rbf"), pairs=SimpleNamespace(n=3, labels=LABELS, exact=EXACT))


def _unbiasedness(mean: np.ndarray, p: np.ndarray) -> unbiasedness.UnbiasednessMeasurement:
    hw = np.full(3, 0.01)
    return unbiasedness.UnbiasednessMeasurement(
        m=64, m_out=64, dtype="float64", roundoff=1e-15, roundoff_only=np.zeros(3, bool), trials=500,
        labels=LABELS, exact=EXACT, mean=mean, half_width=hw, sd=np.full(3, 0.1), target_bias=0.02,
        detectable_bias=0.015, p_adjusted=p, stopped_after_pilot=False, classification="",
        max_abs_bias=float(np.max(np.abs(mean - EXACT))), t=(mean - EXACT) / (hw / 3.3))


def test_unbiasedness_verdict_fails_a_scaled_estimate_and_passes_the_exact_one():
    scaled = _unbiasedness(0.5 * EXACT, np.array([1e-30, 1e-20, 1e-3]))
    r = unbiasedness.verdict(_ctx(), scaled)
    assert r.status == "fail" and r.message.startswith("biased") and "0.5" in r.message  # the scale named
    assert r.details == scaled.to_details() and r.figures == ()  # the runner's context carries the figures
    twin = unbiasedness.verdict(_ctx(), _unbiasedness(EXACT.copy(), np.ones(3)))
    assert twin.status == "pass"


def test_unbiasedness_verdict_holds_a_declared_bias_to_its_bound():
    biased = _unbiasedness(EXACT + 0.05, np.full(3, 1e-9))
    assert unbiasedness.verdict(_ctx(unbiased=False, bias_bound=0.01), biased).status == "fail"
    assert unbiasedness.verdict(_ctx(unbiased=False, bias_bound=0.1), biased).status == "pass"
    assert unbiasedness.verdict(_ctx(unbiased=False), biased).status == "skip"  # measured, not judged


def _error_rate(slope: float) -> error_rate.ErrorRateMeasurement:
    ms = [16, 64, 256]
    mses = [0.1 * (m / 16) ** slope for m in ms]
    return error_rate.ErrorRateMeasurement(
        m=ms, m_out=ms, trials=100, mse=mses, quantity="MSE", roundoff=1e-16, mses=mses, exact_mse=1e-24,
        bias_last=np.zeros(3), regressed_on="m_out", slope=slope, slope_se=0.02, intercept=0.0,
        mse_se_log=np.full(3, 0.02), xs=ms, detectable_slope_excess=0.08,
        pvalue=float(norm.sf((slope + 1.0) / 0.02)))


def test_error_rate_verdict_fails_a_flat_error_and_passes_one_over_m():
    shared = error_rate.verdict(_ctx(bound=2.0), _error_rate(-0.1))
    assert shared.status == "fail" and "share their randomness" in shared.message
    assert error_rate.verdict(_ctx(bound=2.0), _error_rate(-1.0)).status == "pass"


def test_concentration_verdict_fails_features_above_the_declared_bound():
    base = dict(m=64, m_out=64, trials=200, bound_C=1.5, bias=np.zeros(3))
    violated = concentration.ConcentrationMeasurement(observed_sup=2.0, **base)
    r = concentration.verdict(_ctx(bound=1.5), violated)
    assert r.status == "fail" and "declared bound C = 1.5 is violated" in r.message
    rows = [{"eps": 0.3, "bound": 0.2, "max_frequency": 0.0, "pair": 0, "frequencies": np.zeros(3)}]
    within = concentration.ConcentrationMeasurement(observed_sup=1.4, tails=rows, n_tests=3, pvalue=1.0, **base)
    assert concentration.verdict(_ctx(bound=1.5), within).status == "pass"

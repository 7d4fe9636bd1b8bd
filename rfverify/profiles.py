"""Named budgets: ``quick``, ``default``, ``thorough``.

A profile fixes the error rates and the effect sizes the statistical checks
must detect; the sample sizes follow from them (see each check's docstring).
The family-wise false-alarm rate per implementation is split evenly (Bonferroni)
over the *registered* statistical checks of a kind, whether or not each one
applies, so a check's verdict never depends on which others were selected.
"""

from __future__ import annotations

from dataclasses import dataclass

from rfverify.errors import UsageError

__all__ = ["Profile", "PROFILES", "get_profile"]


@dataclass(frozen=True)
class Profile:
    name: str
    #: Family-wise false-alarm rate per implementation (all statistical checks).
    family_alpha: float
    #: Power the sample sizes are designed for.
    power: float
    #: Smallest bias, as a fraction of the kernel's scale, unbiasedness must detect.
    bias_fraction: float
    #: Features used by the unbiasedness check.
    unbiased_m: int
    #: Seeds in the pilot that estimates the estimator's spread; bounds on the total.
    pilot_trials: int
    max_trials: int
    #: Feature counts and seeds per count for the error-rate (MSE slope) check.
    rate_ms: tuple[int, ...]
    rate_trials: int
    #: Slope excess over -1 the error-rate check must detect (slower than 1/m).
    rate_slope_effect: float
    #: Features and seeds for the concentration (Hoeffding) check, and the bound
    #: values at which its epsilons are placed.
    conc_m: int
    conc_trials: int
    conc_bounds: tuple[float, ...]


PROFILES = {
    "quick": Profile("quick", 1e-3, 0.9, 0.03, 256, 30, 400, (16, 64, 256), 40, 0.5, 256, 60, (0.2, 0.05)),
    "default": Profile("default", 1e-3, 0.99, 0.01, 1024, 50, 3000,
                       (16, 32, 64, 128, 256, 512, 1024), 100, 0.25, 1024, 200, (0.2, 0.05, 0.01)),
    "thorough": Profile("thorough", 1e-4, 0.999, 0.003, 1024, 100, 40000,
                        (16, 32, 64, 128, 256, 512, 1024, 2048, 4096), 400, 0.1, 4096, 1000,
                        (0.2, 0.05, 0.01, 0.002)),
}


def get_profile(name: str | Profile) -> Profile:
    if isinstance(name, Profile):
        return name
    if not isinstance(name, str):
        raise UsageError(f"unknown profile {name!r}; use one of {', '.join(PROFILES)}")
    try:
        return PROFILES[name]
    except KeyError:
        raise UsageError(f"unknown profile {name!r}; use one of {', '.join(PROFILES)}") from None

"""Named budgets: ``quick``, ``default``, ``thorough``.

A profile fixes the error rates and the effect sizes the statistical checks
must detect; the sample sizes follow from them (see each check's docstring).
The family-wise false-alarm rate per implementation is split evenly (Bonferroni)
over the *registered* statistical checks of a kind, whether or not each one
applies, so a check's verdict never depends on which others were selected.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rfverify.errors import UsageError

__all__ = ["Profile", "PROFILES", "BUDGETS", "get_profile", "budget"]


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


#: Every other budget of each profile, keyed by what reads it (the reader's dataclass names the numbers: a dict here is
#: its keyword arguments).  Adding a profile is one ``Profile`` in :data:`PROFILES` and one entry here, in this file
#: only (``tests/test_profiles.py`` adds one and runs checks of every kind at it).  Every profile states every key
#: (a test holds them to it); a ``Profile`` object of a name not listed reads the ``default`` entry.
#:
#: * ``time-limit``: CPU seconds one check may use (:class:`rfverify.containment.guard.Limits`; ``--time-limit`` overrides it);
#: * ``explore``, ``explore-orthogonal``: configurations ``explore`` generates (feature maps, rules, kernels,
#:   transforms; orthogonal samplers: dimensions);
#: * ``corners``: the corner design of the feature-map checks (:class:`rfverify.corners.CornerBudget`);
#: * ``metrics``: the report's held-out metrics (:class:`rfverify.metrics.MetricsBudget`);
#: * ``adapted``: ``adapted-approximation`` (:class:`rfverify.properties.adapted.AdaptedBudget`);
#: * ``quadrature``, ``orthogonal``, ``transform``, ``kernel``: each kind's sample sizes (``<Kind>Budget`` in
#:   :mod:`rfverify.kinds`); ``quadrature-corners``, ``orthogonal-corners``: (number of corners, the budget at a
#:   corner); ``haar-screen``: (draws per band, draws per dimension) of the Haar screen; ``stateful``,
#:   ``stateful-kinds``: (sequences generated, steps per sequence) of the state machines of feature maps and of the
#:   other kinds (quick a small fixed budget, a smoke test); ``stateful-long-calls``: the call-count axis (calls of
#:   one ``repeat`` step of a feature map; past 1,000 at default, 10^4 thorough); ``stateful-repeats``: calls of one
#:   ``repeat`` step of a sampler, rule or transform.
BUDGETS: dict[str, dict[str, Any]] = {
    "quick": {
        "time-limit": 300.0,
        "explore": 25,
        "explore-orthogonal": 15,
        "corners": dict(corners=0, share=0.0, bias_fraction=0.15, pilot_trials=20, max_trials=150, moderate_m=33,
                        rate_ms=(17, 65), rate_trials=20, conc_trials=40, conc_bounds=(0.2,)),
        "metrics": dict(m=256, seeds=5, n_fit=128, n_test=48),
        "adapted": dict(grid=(8, 16, 32), seeds=4, n_fit=256, n_test=64),
        "quadrature": dict(exact_draws=5, exact_polys=2, unbiased_draws=2000, mc_evaluations=100_000),
        "quadrature-corners": (0, dict(exact_draws=5, exact_polys=2, unbiased_draws=1000, mc_evaluations=100_000)),
        "orthogonal": dict(draws=400, pilot=100, ortho_draws=8),
        "orthogonal-corners": (0, dict(draws=60, pilot=30, ortho_draws=4)),
        "transform": dict(ns=(1, 3, 16)),
        "kernel": dict(psd_sets=6, symmetry_sets=3, composition_m=256, composition_max_trials=600),
        "haar-screen": (2, 3),
        "stateful": (3, 6),
        "stateful-long-calls": 3,
        "stateful-kinds": (3, 6),
        "stateful-repeats": 3,
    },
    "default": {
        "time-limit": 600.0,
        "explore": 150,
        "explore-orthogonal": 40,
        "corners": dict(corners=4, share=0.5, bias_fraction=0.1, pilot_trials=30, max_trials=400, moderate_m=65,
                        rate_ms=(17, 65, 257), rate_trials=40, conc_trials=100, conc_bounds=(0.2, 0.05)),
        "metrics": dict(m=256, seeds=10, n_fit=256, n_test=64),
        "adapted": dict(grid=(8, 16, 32, 64, 128), seeds=5, n_fit=256, n_test=64),
        "quadrature": dict(exact_draws=20, exact_polys=3, unbiased_draws=10_000, mc_evaluations=200_000),
        "quadrature-corners": (2, dict(exact_draws=20, exact_polys=3, unbiased_draws=2000, mc_evaluations=200_000)),
        "orthogonal": dict(draws=1500, pilot=150, ortho_draws=16),
        "orthogonal-corners": (2, dict(draws=60, pilot=30, ortho_draws=4)),
        "transform": dict(ns=(1, 2, 3, 17, 64)),
        "kernel": dict(psd_sets=12, symmetry_sets=6, composition_m=512, composition_max_trials=2000),
        "haar-screen": (3, 4),
        "stateful": (20, 12),
        "stateful-long-calls": 1_050,
        "stateful-kinds": (20, 12),
        "stateful-repeats": 60,
    },
    "thorough": {
        "time-limit": 3600.0,
        "explore": 600,
        "explore-orthogonal": 150,
        "corners": dict(corners=6, share=0.5, bias_fraction=0.05, pilot_trials=50, max_trials=2000, moderate_m=129,
                        rate_ms=(17, 65, 257, 1025), rate_trials=100, conc_trials=400, conc_bounds=(0.2, 0.05, 0.01)),
        "metrics": dict(m=1024, seeds=20, n_fit=512, n_test=128),
        "adapted": dict(grid=(8, 16, 32, 64, 128, 256), seeds=10, n_fit=512, n_test=128),
        "quadrature": dict(exact_draws=50, exact_polys=4, unbiased_draws=40_000, mc_evaluations=1_000_000),
        "quadrature-corners": (3, dict(exact_draws=50, exact_polys=4, unbiased_draws=8000, mc_evaluations=1_000_000)),
        "orthogonal": dict(draws=6000, pilot=300, ortho_draws=64),
        "orthogonal-corners": (3, dict(draws=300, pilot=60, ortho_draws=8)),
        "transform": dict(ns=(1, 2, 3, 5, 17, 64, 255, 1024)),
        "kernel": dict(psd_sets=24, symmetry_sets=12, composition_m=1024, composition_max_trials=10000),
        "haar-screen": (6, 8),
        "stateful": (120, 16),
        "stateful-long-calls": 10_000,
        "stateful-kinds": (100, 16),
        "stateful-repeats": 1_000,
    },
}


def budget(profile: "Profile | str", key: str) -> Any:
    """The budget ``key`` of a profile (:data:`BUDGETS`).  A profile object of a name not in the table (one a caller
    built with ``dataclasses.replace``) reads the ``default`` profile's; a listed profile without ``key`` is a
    ``KeyError`` naming this table (never a silent default)."""
    name = profile if isinstance(profile, str) else profile.name
    table = BUDGETS.get(name)
    if table is None:
        table = BUDGETS["default"]
    try:
        return table[key]
    except KeyError:
        raise KeyError(f"profile {name!r} has no budget {key!r}: add it to BUDGETS in rfverify/profiles.py") from None


def get_profile(name: str | Profile) -> Profile:
    if isinstance(name, Profile):
        return name
    if not isinstance(name, str):
        raise UsageError(f"unknown profile {name!r}; use one of {', '.join(PROFILES)}")
    try:
        return PROFILES[name]
    except KeyError:
        raise UsageError(f"unknown profile {name!r}; use one of {', '.join(PROFILES)}") from None

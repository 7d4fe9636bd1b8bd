"""The statistical checks at a small designed set of corner configurations, and how alpha is split over them.

``explore`` searches the *deterministic* properties over the whole configuration space; the *statistical*
properties (unbiasedness, concentration, the 1/m error rate) cost hundreds of fits per configuration, so they
are run at the main configuration (the declared d, the kernel's parameters, float64, m on the profile's grid)
and at a few corners chosen by the design below.  Each corner moves several axes at once, so that every corner
*level* of the issue's list appears in at least one configuration (a covering design, not a full factorial):

====  =====================================================  ==========  ===================  =======  ==========
 #    covers                                                  d           n_components         dtype    kernel
====  =====================================================  ==========  ===================  =======  ==========
 1    m = 1 and the smallest d                               d_lo (1)    m_lo (1)             float64  as given
 2    an odd m that is not a multiple of d, float32          main d      smallest odd >= 3,   float32  as given
                                                                         not a multiple of d
 3    the largest d, the smallest kernel parameters          d_hi (256)  odd (profile)        float64  each at lo
 4    the largest kernel parameters                          main d      odd (profile)        float64  each at hi
 5    m = 1 at the main d, float32 (thorough)                main d      m_lo                 float32  as given
 6    the largest d, float32, largest parameters (thorough)  d_hi        odd (profile)        float32  each at hi
====  =====================================================  ==========  ===================  =======  ==========

Profiles run the first ``corners`` rows: quick none (its verdicts, costs and alpha are those of the main
configuration alone, so the quick-profile tests of CI cost what they did), default 4, thorough 6.  Every value is clipped to the
plug-in's declared space (:mod:`rfverify.spaces`: ``rfverify_space``, ``space=``), so a configuration outside
it is never tested; d_hi is the space's largest d cut at 256 (``d * d <= 2^16``, the cost cap of
:data:`rfverify.spaces.COST_CAP`, so a scheme drawing d x d orthogonal blocks stays affordable); a corner that
coincides with the main configuration or an earlier corner is dropped (its alpha is not redistributed).  A
callable kernel or domain fixes d (and a kernel's parameters are moved only when the plug-in receives them).

**The alpha split (Bonferroni).**  A statistical check's share alpha of the family-wise rate (``family_alpha /
#statistical checks``, :meth:`rfverify.kinds.base.KindConfig.alpha`) is split: ``(1 - share) alpha`` for the main
configuration and ``share alpha / corners`` for each corner, with ``corners`` the profile's design size (fixed
by the profile, not by how many corners survive clipping, so a verdict never depends on the space or on which
corners are replayed).  The check fails when any configuration rejects; by the union bound its false-alarm rate
stays at most alpha, and the family-wise rate per implementation at most ``family_alpha`` (10^-3 at default).
Default: share 1/2, so the main configuration runs at alpha / 2 (the sample sizes derived from alpha grow by
about 5% to keep the designed power there) and each of the 4 corners at alpha / 8; thorough: alpha / 2 and
alpha / 12; quick: share 0 (no corner; a corner pinned at quick runs at the check's whole alpha).

**Budgets.**  A corner is a screen for gross corner bugs (a factor in a scale, a parameter clipped, a
frequency law changed), not a repetition of the main configuration's precision: unbiasedness detects a bias of
``bias_fraction`` of the kernel's scale with the profile's power (capped at ``max_trials`` seeds), the error
rate is fitted on ``rate_ms`` (odd feature counts) with ``rate_trials`` seeds each, concentration uses
``conc_trials`` seeds at the corner's m.  See ``corners`` in :data:`rfverify.profiles.BUDGETS`.

**Replaying a corner.**  A failure at a corner names it (``where: ... at the corner configuration d = 1,
n_components=1, float64``) and its reproduce command pins it (``--n-components 1 --dtype float64 --pin d=1``);
when the pins fix ``d`` and ``n_components``, the statistical checks run at that configuration alone, as the
corner it is (its alpha share, budget and random streams), so the replay gives the same verdict and numbers.

>>> from rfverify.spaces import FeatureMapSpace
>>> for c in design(FeatureMapSpace(params={"gamma": (1e-3, 1e3, "log")}), 16, {"gamma": 0.5}, "default"):
...     print(c.describe())
d = 1, n_components=1, float64
d = 16, n_components=3, float32
d = 256, n_components=65, float64, gamma=0.001
d = 16, n_components=65, float64, gamma=1000.0
>>> [c.describe() for c in design(FeatureMapSpace.build([{"n_components": (8, 4096), "dtype": "float64"}]), 16, {},
...                                "default")]
['d = 1, n_components=8, float64', 'd = 16, n_components=9, float64', 'd = 256, n_components=65, float64', 'd = 16, n_components=65, float64']
>>> design(FeatureMapSpace(), 16, {}, "quick")
[]
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping

from rfverify.profiles import Profile, budget
from rfverify.results import CheckResult, JSONRecord, JSONValue
from rfverify.spaces import FeatureMapSpace

__all__ = ["Corner", "CornerBudget", "CORNER_D_MAX", "design", "corner_budget", "corner_profile",
           "corner_from_pins", "alpha_split", "CornerXfail", "split_xfail"]

#: The largest d a corner uses: d * d <= 2^16, the explored space's cost cap for d x d draws.
CORNER_D_MAX = 256


class CornerNotApplicable(Exception):
    """Raised inside a check at a corner whose design does not apply to this plug-in (e.g. the map returns another
    width than the corner's n_components: a cos/sin map returns 0 features at m = 1, a map rounding m up to a
    multiple of d collapses the corner's grid); the corner is skipped with this reason, never failed."""


@dataclass(frozen=True)
class CornerBudget:
    """The corner design's size and the sample sizes at each corner, for one profile (module docstring)."""

    #: Corners in the design (the Bonferroni denominator of the corners' share).
    corners: int
    #: Fraction of each statistical check's alpha spent on the corners (the rest goes to the main configuration).
    share: float
    #: Smallest bias, as a fraction of the kernel's scale, unbiasedness must detect at a corner (with the
    #: profile's power).
    bias_fraction: float
    pilot_trials: int
    max_trials: int
    #: n_components at the corners whose m is not the point (odd, so that it is not a multiple of an even d).
    moderate_m: int
    #: The error rate's grid at a corner (odd feature counts) and its seeds per count.
    rate_ms: tuple[int, ...]
    rate_trials: int
    #: Concentration's seeds at a corner and the Hoeffding-bound levels tested.
    conc_trials: int
    conc_bounds: tuple[float, ...]


#: Per profile.  quick: no corner (the sample sizes serve a pinned corner replayed at quick); default: four corners
#: sharing half of each check's alpha; thorough: six.


def corner_budget(profile: Profile | str) -> CornerBudget:
    """The corner budget of a profile (a custom profile gets the default's)."""
    return CornerBudget(**budget(profile, "corners"))


def corner_profile(profile: Profile, corner: "Corner") -> Profile:
    """``profile`` with its sample sizes replaced by the corner budget's, at the corner's n_components (and the
    corner's own grid of feature counts, if a check gave it one)."""
    b = corner_budget(profile)
    return replace(profile, bias_fraction=b.bias_fraction, unbiased_m=corner.m, pilot_trials=b.pilot_trials,
                   max_trials=b.max_trials, rate_ms=corner.grid or b.rate_ms, rate_trials=b.rate_trials, conc_m=corner.m,
                   conc_trials=b.conc_trials, conc_bounds=b.conc_bounds)


@dataclass(frozen=True)
class Corner:
    """One corner configuration: the input dimension, n_components, the input dtype and the kernel parameters
    moved from the main configuration (``params``; the others are the main configuration's)."""

    d: int
    m: int
    dtype: str
    params: tuple[tuple[str, JSONValue], ...] = ()
    #: What the corner covers (the design table's row).
    covers: str = ""
    #: The feature counts a grid check (the error rate) uses here instead of ``m`` (only the description changes).
    grid: tuple[int, ...] = ()

    def key(self) -> tuple[object, ...]:
        """The stable key of the corner's random streams (its configuration, never its position in the design)."""
        return ("corner", self.d, self.m, self.dtype, *(f"{k}={v!r}" for k, v in self.params))

    def describe(self) -> str:
        m = f"n_components={self.m}" if not self.grid else "n_components=" + "/".join(map(str, self.grid))
        return f"d = {self.d}, {m}, {self.dtype}" + "".join(f", {k}={v!r}" for k, v in self.params)

    def pins(self) -> dict[str, object]:
        """The pins that replay this corner (``--n-components``, ``--dtype``, ``--pin d=``, ``--pin PARAM=``)."""
        return {"n_components": self.m, "dtype": self.dtype, "d": self.d, **dict(self.params)}

    def as_dict(self) -> dict[str, object]:
        return {"d": self.d, "n_components": list(self.grid) if self.grid else self.m, "dtype": self.dtype,
                "params": dict(self.params), "covers": self.covers}


def _clip(v: int, lo: int, hi: int) -> int:
    return max(lo, min(hi, v))


def _odd_not_multiple(d: int, lo: int, hi: int, start: int = 3) -> int:
    """The smallest odd m >= start in [lo, hi] that is not a multiple of d (d = 1: the smallest odd one)."""
    for m in range(max(start, lo), hi + 1):
        if m % 2 == 1 and (d == 1 or m % d):
            return m
    return _clip(start, lo, hi)


def design(space: FeatureMapSpace, dim: int, kernel_params: JSONRecord, profile: Profile | str, *,
           fixed_dim: bool = False) -> list[Corner]:
    """The corner configurations of ``profile`` for a feature map with main dimension ``dim`` in ``space`` (a
    :class:`rfverify.spaces.FeatureMapSpace`), clipped to the space, duplicates and the main configuration
    dropped (module docstring).  ``fixed_dim``: d cannot move (a callable kernel or domain)."""
    b = corner_budget(profile)
    dr, mr = space.d, space.n_components
    d_main = dim if fixed_dim else _clip(dim, dr.lo, dr.hi)
    d_lo = d_main if fixed_dim else dr.lo
    d_hi = d_main if fixed_dim else max(dr.lo, min(dr.hi, CORNER_D_MAX))
    f32 = "float32" if "float32" in space.dtype else space.dtype[0]
    f64 = "float64" if "float64" in space.dtype else space.dtype[0]
    lo = tuple(sorted((k, _as_value(v[0], v)) for k, v in space.params.items()))
    hi = tuple(sorted((k, _as_value(v[1], v)) for k, v in space.params.items()))

    def moderate(d: int) -> int:
        return _odd_not_multiple(d, mr.lo, mr.hi, b.moderate_m)

    rows = [
        Corner(d_lo, mr.lo, f64, (), "m = 1 and the smallest d"),
        Corner(d_main, _odd_not_multiple(d_main, mr.lo, mr.hi), f32, (), "an odd m that is not a multiple of d, float32"),
        Corner(d_hi, moderate(d_hi), f64, lo, "the largest d, the smallest kernel parameters"),
        Corner(d_main, moderate(d_main), f64, hi, "the largest kernel parameters"),
        Corner(d_main, mr.lo, f32, (), "m = 1 at the main d, float32"),
        Corner(d_hi, moderate(d_hi), f32, hi, "the largest d, float32, the largest kernel parameters"),
    ]
    chosen = rows[: b.corners]
    out: list[Corner] = []
    seen: set[tuple[object, ...]] = set()
    for c in chosen:
        params = tuple((k, v) for k, v in c.params if kernel_params.get(k) != v)  # a value moved, not restated
        c = replace(c, params=params)
        if c.key() in seen:
            continue
        seen.add(c.key())
        out.append(c)
    return out


def _as_value(v: float, spec: tuple[object, ...]) -> float:
    """A search range's end as the parameter's value (an integer range's ends are ints, a float range's floats)."""
    return int(v) if len(spec) == 2 else float(v)


def corner_from_pins(pins: JSONRecord, space: FeatureMapSpace | None, dim: int, kernel_params: JSONRecord) -> Corner | None:
    """The corner the pins replay (they fix d and n_components), else None."""
    if "d" not in pins or "n_components" not in pins:
        return None
    params = tuple(sorted((k, v) for k, v in pins.items() if k in space.params or k in space.held)
                   ) if space is not None else ()
    params = tuple((k, v) for k, v in params if kernel_params.get(k) != v)
    dtype = pins.get("dtype", "float64")
    return Corner(int(pins["d"]), int(pins["n_components"]), str(dtype), params, "pinned")


def alpha_split(alpha: float, profile: Profile | str) -> tuple[float, float]:
    """(the main configuration's alpha, each corner's alpha) from a check's share ``alpha``."""
    b = corner_budget(profile)
    return split_alpha(alpha, b.corners, b.share)


def split_alpha(alpha: float, corners: int, share: float) -> tuple[float, float]:
    """Bonferroni: ``(1 - share) alpha`` for the main configuration, ``share alpha / corners`` for each corner; with
    no corner in the design a pinned corner runs at the check's whole alpha (every kind's corners use this)."""
    if corners == 0:
        return alpha, alpha
    return alpha * (1.0 - share), alpha * share / corners


def with_details(result: CheckResult, extra: JSONRecord) -> CheckResult:
    """``result`` (a :class:`rfverify.results.CheckResult`) with ``extra`` merged into its details."""
    from dataclasses import replace as _replace

    return _replace(result, details={**dict(result.details), **extra})



# -- expected failures at one corner (--xfail CHECK@KEY=VALUE=REASON) -------------------------------------------

#: The corner keys an expected failure may name (``m`` is n_components); any other key is a kernel parameter.
_CORNER_KEYS = {"d": "d", "n_components": "n_components", "m": "n_components", "dtype": "dtype"}


@dataclass(frozen=True)
class CornerXfail:
    """A declared failure at the corners matching ``where`` (``{"d": 1}``, ``{"n_components": 1}``,
    ``{"dtype": "float32", "gamma": 4.0}``): the check's verdict at the main configuration and its other corners
    stands; the matching corner's failure (or the plug-in raising there) is expected, and a pass there fails."""

    check: str
    where: tuple[tuple[str, JSONValue], ...]
    reason: str

    @property
    def text(self) -> str:
        return ",".join(f"{k}={v}" for k, v in self.where)

    def matches(self, corner: JSONRecord) -> bool:
        """Whether ``corner`` (:meth:`Corner.as_dict`) is one of the declared configurations."""
        for key, value in self.where:
            if key in ("d", "dtype"):
                if corner.get(key) != value:
                    return False
            elif key == "n_components":
                m = corner.get("n_components")
                if not (value in m if isinstance(m, list) else m == value):
                    return False
            elif dict(corner.get("params") or {}).get(key) != value:
                return False
        return True


def split_xfail(xfail: Mapping[str, str] | None) -> tuple[dict[str, str] | None, dict[str, tuple[CornerXfail, ...]]]:
    """``{check: reason}`` and the corner-scoped ones (``{"check@key=value,...": reason}``) apart:
    ``(plain or None, {check: (CornerXfail, ...)})``; a malformed corner is a one-line UsageError."""
    import ast

    from rfverify.errors import UsageError

    plain: dict[str, str] = {}
    scoped: dict[str, list[CornerXfail]] = {}
    for key, reason in (xfail or {}).items():
        if "@" not in key:
            plain[key] = reason
            continue
        check, _, corner = key.partition("@")
        where = []
        for part in corner.split(","):
            k, sep, v = part.partition("=")
            if not sep or not k.strip().isidentifier() or not v.strip():
                raise UsageError(f"expected failure {key!r}: the corner is KEY=VALUE[,KEY=VALUE] (d, n_components, "
                                 "dtype or a kernel parameter), e.g. concentration@n_components=1")
            try:
                value = ast.literal_eval(v.strip())
            except (ValueError, SyntaxError):
                value = v.strip()
            where.append((_CORNER_KEYS.get(k.strip(), k.strip()), value))
        scoped.setdefault(check, []).append(CornerXfail(check, tuple(where), reason))
    return (plain or None), {k: tuple(v) for k, v in scoped.items()}

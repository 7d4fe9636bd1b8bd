"""Reproducibility: features are a function of ``random_state`` and nothing else random."""

from __future__ import annotations

from typing import Any, Callable, TypeVar

import numpy as np

from rfverify.errors import PluginError
from rfverify.kinds.feature_map import CheckContext
from rfverify.registry import Finding, register_check
from rfverify.results import CheckResult
from rfverify.tolerances import contract_tolerance

T = TypeVar("T")


REPRO_M = 64
#: numpy's global generator is seeded with each in turn around the fits: features must not depend on it, and the
#: map must leave it as seeded (neither drawn from nor reseeded).
GLOBAL_SEEDS = (12345, 54321)


@register_check("feature-map", "reproducibility", statistical=False, cost="3 fits")
def check_reproducibility(ctx: CheckContext) -> CheckResult:
    """Same random_state gives identical features; different random_state differs; no global RNG.

    Property: (a) two maps built with the same ``random_state`` give identical
    features; (b) two different ``random_state`` values give different
    features (beyond round-off); (c) the features do not depend on numpy's
    global random state (``np.random.seed`` set to two different values), and
    the map neither consumes nor reseeds the global state (compared with a
    freshly seeded generator after the first fit and after the last, so
    reseeding with the first seed is caught too).
    Test: exact comparison (a, c) and a round-off tolerance (b), no alpha.
    The caller's global random state is saved and restored.  Consuming or
    reseeding the global state is a plug-in fault (status ``error``, as
    :mod:`rfverify.guard` reports it around every check), not a failed property.
    A map declared deterministic must instead give the same features for
    both random_state values (b).
    Applies to: every feature map.  Catches: ``random_state`` ignored (fresh
    entropy, a hard-coded seed, or the global RNG).
    Reference: scikit-learn's ``random_state`` convention; SPEC 7.
    """
    Z = ctx.stacked_inputs()
    rs_a = ctx.random_state("repro", trial=0)
    rs_b = ctx.random_state("repro", trial=1)
    problems: list[Finding] = []
    details: dict[str, object] = {"random_state_a": rs_a, "random_state_b": rs_b}
    F1, F2, F3, consumed = _three_fits(ctx, Z, rs_a, rs_b)
    tol = contract_tolerance(ctx.dim, F1)
    same = float(np.max(np.abs(F1 - F2))) if F1.shape == F2.shape else np.inf
    details["same_seed_max_abs_diff"] = same
    if same != 0.0:
        problems.append(Finding(
            f"random_state={rs_a} twice (global numpy seed {GLOBAL_SEEDS[0]}, then {GLOBAL_SEEDS[1]}) gave features "
            f"differing by up to {same:.3g}",
            "identical features for equal random_state",
            cause="randomness not drawn from random_state — draw every random number from random_state "
                  "(np.random.default_rng(random_state)), not from fresh entropy or np.random.*"))
    diff = float(np.max(np.abs(F1 - F3))) if F1.shape == F3.shape else np.inf
    details["different_seed_max_abs_diff"] = diff
    deterministic = ctx.declarations.deterministic
    problems += _seed_findings(deterministic, rs_a, rs_b, diff, tol)
    if consumed:  # this check resets the global state itself, so the guard cannot see it here
        raise PluginError(ctx.name, "changed numpy's global random state (np.random.*) during check "
                          "reproducibility (fit and transform with the global state seeded)",
                          "draw from the random_state / rng you are given (np.random.default_rng(random_state)), "
                          "never seed or draw from the global generators")
    details["global_state_touched"] = consumed
    if problems:
        return ctx.fail("features are not a function of random_state alone", findings=problems,
                        where=f"n_components={REPRO_M}, {Z.shape[0]} input rows, d = {ctx.dim}", details=details)
    if deterministic:
        return ctx.result("pass", "identical for every random_state, as declared deterministic; global RNG untouched",
                          details=details)
    return ctx.result("pass", "identical for equal random_state, different otherwise, global RNG untouched",
                      details=details)


def _untouched_since_seeded(seed: int) -> bool:
    """Whether numpy's global generator is exactly as ``np.random.seed(seed)`` left it (nothing drawn, not reseeded)."""
    now, fresh = np.random.get_state(), np.random.RandomState(seed).get_state()
    assert isinstance(now, tuple) and isinstance(fresh, tuple), "legacy MT19937 states (get_state's default)"
    return now[0] == fresh[0] and np.array_equal(now[1], fresh[1]) and now[2:] == fresh[2:]


def _three_fits(ctx: CheckContext, Z: np.ndarray, rs_a: int, rs_b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """Features at random_state a under two global seeds, and at b; whether the global state was consumed or
    reseeded (the caller's global state restored)."""
    # the global generator of the process the plug-in runs in: its own process when hosted (rfverify.host)
    host = getattr(getattr(ctx, "config", None), "host", None)

    def there(fn: Callable[..., T], *args: object) -> T:
        return fn(*args) if host is None else host.run(fn, *args)

    there(_save_and_seed, GLOBAL_SEEDS[0])
    try:
        F1 = ctx.fit(REPRO_M, rs_a).transform(Z)
        consumed = not there(_untouched_since_seeded, GLOBAL_SEEDS[0])
        there(np.random.seed, GLOBAL_SEEDS[1])
        F2 = ctx.fit(REPRO_M, rs_a).transform(Z)
        F3 = ctx.fit(REPRO_M, rs_b).transform(Z)
        # a map that reseeds the global generator with the first seed is caught here
        consumed = consumed or not there(_untouched_since_seeded, GLOBAL_SEEDS[1])
    finally:
        there(_restore_saved)
    return F1, F2, F3, consumed is True


#: The caller's global numpy states saved by :func:`_save_and_seed`, in the process the plug-in runs in.
_SAVED: list[dict[str, Any] | tuple[str, np.ndarray, int, int, float]] = []


def _save_and_seed(seed: int) -> None:
    _SAVED.append(np.random.get_state())
    np.random.seed(seed)


def _restore_saved() -> None:
    np.random.set_state(_SAVED.pop())


def _seed_findings(deterministic: bool, rs_a: int, rs_b: int, diff: float, tol: float) -> list[Finding]:
    """Two random_state values: the same features when declared deterministic, different ones otherwise."""
    if deterministic and diff > tol:
        return [Finding(
            f"random_state={rs_a} and {rs_b} gave features differing by up to {diff:.3g}",
            f"the same features for every random_state (declared deterministic; round-off tolerance {tol:.3g})",
            cause="the map draws random numbers: do not declare it deterministic")]
    if not deterministic and diff <= tol:
        return [Finding(
            f"random_state={rs_a} and {rs_b} gave the same features (max difference {diff:.3g})",
            f"features that differ by more than the round-off tolerance {tol:.3g}",
            cause="random_state is ignored (a hard-coded seed?)")]
    return []

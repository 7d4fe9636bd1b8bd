"""Exploration for orthogonal samplers: the deterministic properties over every dimension d 1 … 256.

The ``orthogonality`` check and the Haar battery look at the declared d only; ``explore`` searches d (and the
generator's seed) with Hypothesis (:mod:`rfverify.explore`) and shrinks a failure to the smallest d.
"""

from __future__ import annotations

import shlex
from dataclasses import replace
from typing import Any

import numpy as np

from rfverify.errors import PluginError
from rfverify.explore import coverage, d_band, search
from rfverify.kinds.orthogonal import OrthogonalContext
from rfverify.profiles import PROFILES
from rfverify.profiles import budget as profile_budget
from rfverify.properties.space_guard import SpaceGuard
from rfverify.refusals import Axis, Refusal, SpaceLog, held_where, refusal_of, refused_note, strict_failure
from rfverify.registry import register_check
from rfverify.results import CheckResult
from rfverify.spaces import ORTHOGONAL_SPACE, OrthExample, orthogonal_space
from rfverify.tolerances import orthogonality_tolerance

__all__ = ["check_explore_orthogonal", "ORTHOGONAL_SPACE", "OrthExample"]

#: Dimensions searched per profile: fewer than a feature map's, because each costs three d x d draws (a QR of
#: 256 x 256 is 0.05-0.2 s of CPU on the 2-core machine): default about 5 s of CPU.


def _problem(ctx: OrthogonalContext, ex: OrthExample, guard: SpaceGuard | None = None) -> str | None:
    sampler, group = ctx.config.sampler, ctx.group
    seed = ex.seed
    try:
        Q = sampler.draw(ex.d, np.random.default_rng(ex.seed))
        Q2 = sampler.draw(ex.d, np.random.default_rng(ex.seed))
        seed = ex.seed + 1
        Q3 = sampler.draw(ex.d, np.random.default_rng(ex.seed + 1)) if ex.d >= 2 else Q
    except PluginError as exc:
        if guard is not None:  # a clean refusal away from the main configuration: set aside (Refused)
            guard.reject(exc, {"d": ex.d}, seed=seed, other_seed=seed + 1 if seed == ex.seed else ex.seed,
                         action=_action(ctx))
        return f"the sampler failed: {exc}"
    if guard is not None:
        guard.accept({"d": ex.d})
    if not np.array_equal(Q, Q2):
        return (f"two draws with Generators seeded alike differ by up to {float(np.max(np.abs(Q - Q2))):.3g} "
                "(randomness not drawn from the rng given)")
    A = Q.astype(np.float64)
    tol = orthogonality_tolerance(ex.d, Q.dtype)
    err = max(float(np.max(np.abs(A.T @ A - np.eye(ex.d)))), float(np.max(np.abs(A @ A.T - np.eye(ex.d)))))
    if err > tol:
        return f"not orthogonal: max|Q^T Q - I| = {err:.3g} > {tol:.3g} (round-off tolerance, {Q.dtype})"
    if group == "SO" and np.linalg.det(A) < 0:
        return "det Q = -1 for a sampler declared on SO(d)"
    if ex.d >= 2 and np.array_equal(Q, Q3):
        return "Generators seeded differently gave the same matrix (the rng is ignored)"
    return None


def _action(ctx: OrthogonalContext) -> str:
    """The sampler call, as a refused region names it."""
    return "rvs(dim=d, random_state=rng)" if ctx.config.sampler.form == "rvs" else "sample(d, rng)"


def _probe(ctx: OrthogonalContext) -> Any:
    """One draw at ``form``'s d with the Generator seeded ``seed`` (no property judged): what the sampler said if
    it refused, else None."""
    def probe(form: Any, seed: int) -> Refusal | None:
        try:
            ctx.config.sampler.draw(int(form["d"]), np.random.default_rng(seed))
        except PluginError as exc:
            return refusal_of(exc)
        return None
    return probe


@register_check("orthogonal", "explore", statistical=False,
                cost=", ".join(f"{p} {profile_budget(p, 'explore-orthogonal')}" for p in PROFILES) + " dimensions")
def check_explore_orthogonal(ctx: OrthogonalContext) -> CheckResult:
    """Orthogonality, the declared group and determinism searched over every dimension with Hypothesis.

    Property: for every d in the sampler's space (1 … 256 by default, narrowed by ``rfverify_space``,
    ``space=`` / ``--space d=LO:HI`` or ``--pin d=D``) and every Generator: the draw is a finite (d, d) matrix;
    Q^T Q = Q Q^T = I to the round-off tolerance ``2 c d^2 u(dtype) + gamma_d(float64)``; det Q = +1 on SO(d);
    Generators seeded alike give identical matrices and, for d >= 2, Generators seeded differently give
    different ones.
    Can each property fail at a configuration (only a property a correct sampler always holds there is
    charged)?  Finite (d, d), orthogonal, det = +1 on SO(d), and "seeded alike -> identical": required at
    every d (a correct sampler holds them with probability 1).  "Seeded differently -> different": required for
    d >= 2 only.  Two independent Haar draws of a group G coincide with probability 1/|G| for a finite G and 0
    for a continuous one: O(1) = {+1, -1} gives the same draw for two seeds with probability 1/2, SO(1) = {1}
    with probability 1, so at d = 1 the property would accuse a correct sampler; O(d) and SO(d) for d >= 2 are
    continuous (dimension d(d-1)/2 >= 1), so a repeat there is the rng ignored.
    Test: Hypothesis searches ``budget`` (d, seed) pairs (quick 15, default 40, thorough 150), seeded from the
    check key, no example database, after the four smallest d tried explicitly; a failure is shrunk to the
    smallest d.  A clean refusal (ValueError, TypeError, NotImplementedError) at a d other than the declared
    (or pinned) one sets that d aside, confirmed by the same draw again and another seed (an inconsistent
    refusal is an error); the refused region (``d > 64``) is stated in ``details["space"]["refused"]`` and the
    message; ``strict_space`` fails on any refusal.  Deterministic: no alpha.
    Applies to: every orthogonal sampler.  Catches: a special case at d = 1 or 2, a code path above some d
    that forgets the orthogonalisation, the sign fix or the rng.
    Reference: Higham (2002) §19.3 (the tolerance); Hypothesis' search-and-shrink.
    """
    explored = orthogonal_space(ctx.config)
    space = explored.d
    seed = ctx.seeds.random_state("orthogonal", "explore", ctx.group)
    budget = int(profile_budget(ctx.profile, "explore-orthogonal"))
    main = {"d": space.lo if space.lo == space.hi else ctx.dim}  # the declared d, or the pinned one
    guard = SpaceGuard(SpaceLog([Axis("d")], main, _probe(ctx), name=ctx.name), main=[main])
    found = search(explored.strategy(), lambda ex: _problem(ctx, ex, guard), seed=seed, budget=budget,
                   explicit=explored.explicit())
    searched = explored.describe()
    assert guard.log is not None
    details: dict[str, Any] = {"space": guard.log.summary(searched, len(found.tried)), "space_searched": searched,
                               "calls": found.calls,
                               "coverage": coverage(found, {"d": lambda e: d_band(e.d)}, size=lambda e: (e.d, e.seed),
                                                    describe=OrthExample.describe)}
    strict = strict_failure(ctx, details["space"], [e.describe() for e in found.refused], statistic=found.calls,
                            details=details)
    if strict is not None:
        return strict
    if found.passed:
        held = held_where(details["space"], searched) if details["space"]["refused"] else searched
        return ctx.result("pass", f"{found.calls} dimensions, every property held ({held})",
                          statistic=float(found.calls), details=details)
    ex: OrthExample = found.counterexample
    details["minimal_example"] = {"d": ex.d, "seed": ex.seed}
    result = ctx.fail("a deterministic property breaks at some dimension", found.problem,
                      f"orthogonal (and on {ctx.group}(d)), deterministic in the rng, at every d in {space}",
                      where=ex.describe() + found.shown_as("minimal"),
                      cause="a code path of its own at this d (a special case for small d, a fast path for large d?)",
                      note=refused_note(details["space"]), statistic=float(found.calls), details=details)
    return replace(result, reproduce=ctx.reproduce + " " + " ".join(shlex.quote(p) for p in ("--pin", f"d={ex.d}")))

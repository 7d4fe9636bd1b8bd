"""Exploration for quadrature rules: the rule's contract and exactness searched over every dimension d 1 … 64.

``rule-contract`` and ``exactness`` look at the declared d.  ``explore`` states them for every d of the rule's
space and every rng seed (seed 0 included) and searches it with Hypothesis (:mod:`rfverify.explore`), shrinking a
failure to the smallest d; at that d it reports the smallest degree and the first monomial (in the order
w_1^q, w_1^{q-1} w_2, …) that the draw integrates wrongly, so the message names the corner exactly.

Exactness is judged on *every* monomial of degree q <= the claimed degree at once when the moment tensor
``T_q = sum_i w_i x_i^{(x)q}`` has at most :data:`TENSOR_CAP` entries (always for degree <= 3 at d <= 64), else
on :data:`FALLBACK_POLYS` random integer polynomials as the ``exactness`` check does (their power against an
error in a single monomial is below 1: see :func:`rfverify.properties.quadrature_exactness.check_exactness`).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Callable, Iterator

import numpy as np
from hypothesis import strategies as st

from rfverify.errors import PluginError, UsageError
from rfverify.explore import Exploration, budget_for, coverage, d_band, one_blas_thread, refine, search
from rfverify.kinds.quadrature import QuadratureContext
from rfverify.properties.quadrature_exactness import _exact, _quadrature, _random_polynomial, rounding_steps
from rfverify.properties.space_guard import SpaceGuard, refusal_in
from rfverify.refusals import Axis, Refusal, SpaceLog, held_where, refused_note, strict_failure
from rfverify.registry import register_check
from rfverify.results import CheckResult, JSONRecord, JSONValue
from rfverify.strategies import Range, dimensions, random_states
from rfverify.tolerances import roundoff_inner_product

__all__ = ["check_explore_quadrature", "QuadExample", "TENSOR_CAP", "exactness_problem", "invariant_under_rotations"]

#: Largest moment tensor formed (entries): d^q <= 2^18 covers degree 3 at d = 64 (n x d^(q-1) floats in memory).
TENSOR_CAP = 2 ** 18
#: Largest n x d^(q-1) product array formed for the tensor (a rule with many points falls back to polynomials).
POINTS_CAP = 2 ** 22
#: Random polynomials per degree where the tensor would be larger.
FALLBACK_POLYS = 3


@dataclass(frozen=True)
class QuadExample:
    """One explored configuration: the dimension and the seed of the Generator the rule is given."""

    d: int
    seed: int

    def describe(self) -> str:
        return f"d = {self.d}, rng = numpy.random.default_rng({self.seed})"

    def pins(self) -> list[str]:
        return ["--pin", f"d={self.d}", "--pin", f"seed={self.seed}"]


def _monomial(index: tuple[int, ...]) -> str:
    if not index:
        return "the constant 1"
    parts = []
    for v in sorted(set(index)):
        k = index.count(v)
        parts.append(f"w_{v + 1}" + (f"^{k}" if k > 1 else ""))
    return " ".join(parts)


@lru_cache(maxsize=64)
def _moment_tensor(d: int, q: int) -> np.ndarray:
    """E[w^{(x)q}] for w ~ N(0, I_d), flattened (Isserlis: a sum over perfect matchings of delta products);
    cached, read-only."""
    if q == 0:
        return _readonly(np.ones(1))
    if q % 2:
        return _readonly(np.zeros(d ** q))
    if q == 2:
        return _readonly(np.eye(d).ravel())
    idx = np.indices((d,) * q).reshape(q, -1)
    out = np.zeros(idx.shape[1])

    def matchings(rest: tuple[int, ...]) -> Iterator[list[tuple[int, int]]]:
        if not rest:
            yield []
            return
        a, others = rest[0], rest[1:]
        for k, b in enumerate(others):
            for m in matchings(others[:k] + others[k + 1:]):
                yield [(a, b), *m]

    for m in matchings(tuple(range(q))):
        term = np.ones(idx.shape[1], dtype=bool)
        for a, b in m:
            term &= idx[a] == idx[b]
        out += term
    return _readonly(out)


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def exactness_problem(P: np.ndarray, w: np.ndarray, degree: int, rng_seed: int) -> str | None:
    """The first degree q <= ``degree`` and the first monomial of it that the draw (points P, weights w)
    integrates wrongly beyond round-off, as one line; None when exact on every polynomial of degree <= degree.

    Tolerance: ``gamma_N sum_i |w_i| |x_i|^q`` with N = :func:`rounding_steps` (Higham 2002 §3.1; every
    monomial of degree q is at most |x_i|^q at x_i).
    """
    n, d = P.shape
    norms = np.linalg.norm(P, axis=1)
    for q in range(degree + 1):
        tol = roundoff_inner_product(rounding_steps(n, d, q)) * float(np.abs(w) @ norms ** q)
        if d ** q <= TENSOR_CAP and n * d ** max(0, q - 1) <= POINTS_CAP:
            M = w[:, None] * np.ones((n, 1))
            for _ in range(max(0, q - 1)):
                M = (M[:, :, None] * P[:, None, :]).reshape(n, -1)
            T = M.T @ P if q >= 1 else np.array([float(np.sum(w))])
            err = np.abs(T.ravel() - _moment_tensor(d, q))
            bad = np.flatnonzero(err > tol)
            if bad.size:
                if q:
                    rows = np.sort(np.stack(np.unravel_index(bad[:1024], (d,) * q), axis=1), axis=1)
                    first = rows[np.lexsort(rows.T[::-1])[0]]
                    index = tuple(int(v) for v in first)
                    flat = int(np.ravel_multi_index(index, (d,) * q))
                else:
                    index, flat = (), 0
                exact = _moment_tensor(d, q)[flat]
                return (f"not exact at degree {q}: the draw integrates {_monomial(index)} to "
                        f"{float(T.ravel()[flat]):.10g}, exact {exact:g} (|error| {float(err[flat]):.3g} > round-off "
                        f"tolerance {tol:.3g}; {bad.size} of {err.size} monomial entries of degree {q} off)")
        else:
            gen = np.random.default_rng([rng_seed, q])
            for j in range(FALLBACK_POLYS):
                poly = _random_polynomial(q, d, gen)
                got, scale = _quadrature(poly, P, w)
                exact = _exact(poly)
                tol_p = roundoff_inner_product(rounding_steps(n, d, q)) * scale
                if abs(got - exact) > tol_p:
                    return (f"not exact at degree {q}: random polynomial {j} of degree {q} (a sum of products of "
                            f"integer linear forms) integrates to {got:.10g}, exact {exact} (|error| "
                            f"{abs(got - exact):.3g} > round-off tolerance {tol_p:.3g})")
    return None


#: A draw is mirror-symmetric when its sorted points and weights match their mirror image to this many units of
#: round-off of its largest point (an exact mirror, -x, is exact; a point set computed symmetric rounds once).
MIRROR_ULPS = 64


def invariant_under_rotations(P: np.ndarray, w: np.ndarray) -> bool:
    """True when every orthogonal map of R^d leaves the draw (the weighted point multiset) unchanged, so that no
    randomisation by a rotation can act on it: at d = 1, where O(1) = {+1, -1}, a draw symmetric under x -> -x;
    at any d, a draw whose points are all at the origin (a finite set of points invariant under every rotation
    of R^d, d >= 2, lies at the origin)."""
    scale = float(np.max(np.abs(P))) if P.size else 0.0
    if scale == 0.0:
        return True
    if P.shape[1] != 1:
        return False
    tol = MIRROR_ULPS * np.finfo(np.float64).eps * scale
    order = np.lexsort((w, P[:, 0]))
    x, wx = P[order, 0], w[order]
    mirror = np.lexsort((w, -P[:, 0]))
    y, wy = -P[mirror, 0], w[mirror]
    wtol = MIRROR_ULPS * np.finfo(np.float64).eps * max(float(np.max(np.abs(w))), 1e-300)
    return bool(np.all(np.abs(x - y) <= tol) and np.all(np.abs(wx - wy) <= wtol))


def _problem(ctx: QuadratureContext, ex: QuadExample, guard: SpaceGuard | None = None) -> str | None:
    plugin = ctx.plugin
    seed = ex.seed
    try:
        P, w = plugin.draw(ex.d, np.random.default_rng(ex.seed))
        P2, w2 = plugin.draw(ex.d, np.random.default_rng(ex.seed))
        seed = ex.seed + 1
        P3, w3 = plugin.draw(ex.d, np.random.default_rng(ex.seed + 1))
    except (PluginError, UsageError) as exc:
        if guard is not None:  # a clean refusal away from the main configuration: set aside (Refused)
            guard.reject(exc, {"d": ex.d}, seed=seed, other_seed=seed + 1 if seed == ex.seed else ex.seed,
                         action="rule(d, rng)")
        return f"the rule failed: {exc}"
    if guard is not None:
        guard.accept({"d": ex.d})
    if P.shape != P2.shape or not (np.array_equal(P, P2) and np.array_equal(w, w2)):
        return "two draws from Generators seeded alike differ (randomness not drawn from the rng given)"
    same = P.shape == P3.shape and np.array_equal(P, P3) and np.array_equal(w, w3)
    if ctx.deterministic and not same:
        return f"Generators seeded {ex.seed} and {ex.seed + 1} gave different draws (declared deterministic)"
    if not ctx.deterministic and same and not invariant_under_rotations(P, w):
        return f"Generators seeded {ex.seed} and {ex.seed + 1} gave the same draw (the rng is ignored)"
    return exactness_problem(P, w, ctx.degree, ex.seed)


_CAUSES = (  # the rule's own exception text is quoted after "the rule failed": that key is matched first
    ("the rule failed", "the rule does not handle this d: fix it, or declare its space (rfverify_space)"),
    ("degree 0", "the weights do not sum to 1 at this d (a special case with a missing or mis-scaled weight?)"),
    ("not exact", "a code path of its own at this d (a special case for small d, a fast path for large d?)"),
    ("seeded alike", "a hidden source of randomness at this d"),
    ("the same draw", "the rng is ignored at this d (a cached or closed-form draw?)"),
    ("different draws", "the rule draws random numbers: do not declare it deterministic"),
)


def _probe(ctx: QuadratureContext) -> Callable[[JSONRecord, int], Refusal | None]:
    """One draw at ``form``'s d with the Generator seeded ``seed`` (no property judged): what the rule said if it
    refused, else None."""
    def probe(form: JSONRecord, seed: int) -> Refusal | None:
        try:
            ctx.plugin.draw(int(form["d"]), np.random.default_rng(seed))
        except (PluginError, UsageError) as exc:
            return refusal_in(exc, "rule(d, rng)")
        return None
    return probe


@register_check("quadrature", "explore", statistical=False, cost="quick 25, default 150, thorough 600 (d, seed) pairs")
def check_explore_quadrature(ctx: QuadratureContext) -> CheckResult:
    """The rule's contract and exactness searched over every dimension d 1 … 64 and rng seed with Hypothesis.

    Property: for every d in the rule's space (1 … 64 by default, narrowed by ``rfverify_space``, ``space=`` /
    ``--space d=LO:HI`` or ``--pin d=D``) and every Generator seed (0 included): a draw is finite (n, d) points
    and (n,) weights; Generators seeded alike give the identical draw, seeds s and s + 1 different draws (the
    same draw, for a rule declared deterministic); the draw integrates every monomial of total degree <= the
    claimed degree exactly, to the round-off tolerance ``gamma_N sum_i |w_i| |x_i|^q`` (N =
    :func:`rounding_steps`).
    Can each property fail at a configuration (only a property a correct rule always holds there is charged)?
    Finite shapes, "seeded alike -> identical", exactness to the claimed degree and, for a rule declared
    deterministic, "every seed -> the same draw": required at every d (a correct rule holds them for every
    draw).  "Seeds s and s + 1 -> different draws": required except where the draw is invariant under every
    rotation of R^d (:func:`invariant_under_rotations`), where the randomisation of a rotation-randomised rule
    cannot act: at d = 1 a Haar rotation is a sign (O(1) = {+1, -1}), so a mirror-symmetric point set (a
    symmetric rule with a fixed radius: {0, +-sqrt(3)}) gives the same draw for every seed; at d >= 2 only a
    draw with every point at the origin is rotation-invariant.  Detected from the draw, not declared: a
    rotation of R^1 can only mirror the draw, so a repeated mirror-symmetric draw is what a correct rule gives
    there, while a rule that ignores its rng shows at d >= 2 (or at d = 1 when its draw is not symmetric) —
    no declaration is needed, and none can be wrong.
    Test: Hypothesis searches ``budget`` (d, seed) pairs (quick 25, default 150, thorough 600) after the four
    smallest d at seed 0, seeded from the check key, no example database; every monomial of degree q is judged
    at once through the moment tensor sum_i w_i x_i^(x)q against E w^(x)q (Isserlis), or random polynomials
    where the tensor exceeds 2^18 entries; a failure is shrunk to the smallest d and reported with the
    smallest failing degree and its first monomial.  A clean refusal (ValueError, TypeError,
    NotImplementedError) at a d other than the declared (or pinned) one sets that d aside, confirmed by the same
    draw again and another seed (an inconsistent refusal is an error); the refused region (``d = 1``) is stated
    in ``details["space"]["refused"]`` and the message; ``strict_space`` fails on any refusal.
    Deterministic: no alpha.
    Applies to: every quadrature rule.  Catches: a special case at d = 1 (or 2), a fast path above some d that
    is exact only below the claimed degree, a rule that ignores its rng at some d.
    Reference: munkhoeva2018 §2 (exact for every draw); Isserlis (1918); Hypothesis' search-and-shrink.
    """
    widths = ctx.config.explored_dims
    strategy, desc, explicit = _strategy(ctx, widths)
    seed = ctx.seeds.random_state("quadrature", "explore", ctx.degree)
    budget = budget_for(ctx.profile.name)
    main = {"d": widths[0] if len(widths) == 1 else ctx.dim}  # the declared d, or the pinned one
    guard = SpaceGuard(SpaceLog([Axis("d")], main, _probe(ctx), name=ctx.name), main=[main])
    with np.errstate(all="ignore"), one_blas_thread():
        found = search(strategy, lambda ex: _problem(ctx, ex, guard), seed=seed, budget=budget, explicit=explicit)
        if not found.passed:  # Hypothesis may stop at a corner value (d = 31): the smallest failing d at that seed
            found = refine(found, (QuadExample(d, found.counterexample.seed) for d in widths
                                   if d < found.counterexample.d), lambda ex: _problem(ctx, ex, guard))
    space = f"{desc}, any rng seed (0 included), degree 0 … {ctx.degree}"
    assert guard.log is not None
    details: dict[str, JSONValue] = {"space": guard.log.summary(space, len(found.tried)), "space_searched": space,
                               "budget": budget, "calls": found.calls,
                               "coverage": coverage(found, {"d": lambda ex: d_band(ex.d),
                                                            "seed": lambda ex: "0" if ex.seed == 0 else "other"},
                                                    size=lambda ex: (ex.d, ex.seed), describe=QuadExample.describe)}
    strict = strict_failure(ctx, details["space"], [e.describe() for e in found.refused], statistic=found.calls,
                            details=details)
    if strict is not None:
        return strict
    if found.passed:
        held = held_where(details["space"], space) if details["space"]["refused"] else space
        return ctx.result("pass", f"{found.calls} (d, seed) pairs, the contract and exactness to degree {ctx.degree} "
                          f"held at every one ({held})", statistic=float(found.calls), details=details)
    return _minimal_failure(ctx, found, details, desc)


def _strategy(ctx: QuadratureContext, widths: list[int]) -> tuple[st.SearchStrategy[QuadExample], str, list[QuadExample]]:
    """The (d, seed) strategy over the explored dimensions (the pinned seed alone, if any), its description and
    the explicit examples tried first (the four smallest d)."""
    pinned_seed = ctx.config.pins.get("seed", ctx.config.space.get("seed"))
    seeds = st.just(int(pinned_seed)) if pinned_seed is not None else random_states()
    if len(widths) == widths[-1] - widths[0] + 1:
        dims = dimensions(widths[0], widths[-1])
        desc = f"d {Range(widths[0], widths[-1])}"
    else:
        dims = st.sampled_from(widths)
        desc = "d = " + ", ".join(map(str, widths))
    seed0 = 0 if pinned_seed is None else int(pinned_seed)
    return st.builds(QuadExample, dims, seeds), desc, [QuadExample(d, seed0) for d in widths[:4]]


def _minimal_failure(ctx: QuadratureContext, found: Exploration, details: dict[str, JSONValue], desc: str) -> CheckResult:
    """The failure at the smallest failing d, with the reproduce command pinning it."""
    ex: QuadExample = found.counterexample
    problem = found.problem or ""
    details["minimal_example"] = {"d": ex.d, "seed": ex.seed}
    details["replayed"] = found.replayed
    cause = next((c for key, c in _CAUSES if key in problem), "")
    result = ctx.fail("the rule breaks at some dimension", problem,
                      f"a finite draw determined by the rng, exact to degree {ctx.degree}, at every d of {desc}",
                      where=ex.describe() + found.shown_as("minimal"), cause=cause, note=refused_note(details["space"]),
                      statistic=float(found.calls), details=details)
    return replace(result, reproduce=ctx.reproduce + " " + " ".join(shlex.quote(p) for p in ex.pins()))

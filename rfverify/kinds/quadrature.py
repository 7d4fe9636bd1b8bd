"""The ``quadrature`` plug-in kind: stochastic quadrature rules for Gaussian integrals.

A rule is any callable ``rule(d, rng) -> (points (n, d), weights (n,))``; one
call is one random draw estimating ``I(f) = E_{w ~ N(0, I_d)} f(w)`` by
``sum_i weights[i] f(points[i])`` (munkhoeva2018 eq. 3-6).  The plug-in
declares ``degree`` (every draw is exact on all polynomials of total degree
<= degree) and whether it is ``unbiased`` for every integrable f.

This module holds the kind's machinery: the plug-in wrapper, the exact
Gaussian moments the exactness check compares against (integer arithmetic:
Isserlis/Wick sums of products of linear forms, and double-factorial monomial
moments), the config and context classes, the budgets per profile and
:func:`verify_quadrature`.  The checks live in ``properties/quadrature_*.py``.

>>> gaussian_monomial_moment((2, 2, 0))  # E[w1^2 w2^2] = 1!! * 1!!
1
>>> wick_moment([(1, 1), (1, -1)])  # E[(w1 + w2)(w1 - w2)] = 1 - 1
0
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable, Iterator, Mapping, Sequence

import numpy as np

from rfverify.containment import guard
from rfverify.adapters import load_object
from rfverify.plugin_calls import spec_of
from rfverify.arrays import ArrayRecord, to_input, to_numpy, validate_input
from rfverify.errors import PluginError, UsageError
from rfverify.jsontypes import JSONValue
from rfverify.containment.hosted_kinds import HostedAdapter
from rfverify.kinds.base import (CliSpec, KindConfig, call_kw_option, input_option, parse_int, pin_flag, pins_option,
                                 space_option)
from rfverify.kinds.options import make_verify, option
from rfverify.profiles import Profile, budget
from rfverify.registry import BaseContext, CheckSpec, PluginObject

__all__ = [
    "QuadraturePlugin",
    "QuadratureConfig",
    "QuadratureContext",
    "QuadratureBudget",
    "quadrature_corners",
    "QUADRATURE_CORNER_D_MAX",
    "verify_quadrature",
    "gaussian_monomial_moment",
    "double_factorial",
    "wick_moment",
    "MAX_DEGREE",
    "MAX_DIM",
]

#: Highest degree of exactness the exactness check tests (Wick sums have (p-1)!! terms).
MAX_DEGREE = 11
MAX_DIM = 4096


def _spaces():
    """rfverify.spaces, imported when a configuration is made (it imports Hypothesis, ~0.4 s CPU): building the
    CLI parser must not pay for it (tests/test_startup.py)."""
    import rfverify.spaces

    return rfverify.spaces


def double_factorial(n: int) -> int:
    """n!! for n >= -1 (with (-1)!! = 0!! = 1)."""
    out = 1
    while n > 1:
        out *= n
        n -= 2
    return out


def gaussian_monomial_moment(alpha: Sequence[int]) -> int:
    """E[prod_i w_i^alpha_i] for w ~ N(0, I): prod_i (alpha_i - 1)!! if every alpha_i is even, else 0."""
    if any(a % 2 for a in alpha):
        return 0
    out = 1
    for a in alpha:
        out *= double_factorial(a - 1)
    return out


def wick_moment(vectors: Sequence[Sequence[int]]) -> int:
    """E[prod_k (a_k . w)] for w ~ N(0, I) and integer vectors a_k, exactly (Isserlis' theorem).

    The sum over the (p-1)!! perfect matchings of {1..p} of prod (a_i . a_j);
    0 for odd p, 1 for p = 0.  Integer arithmetic throughout.
    """
    vecs = [tuple(int(x) for x in v) for v in vectors]
    p = len(vecs)
    if p % 2:
        return 0
    G = [[sum(x * y for x, y in zip(vecs[i], vecs[j])) for j in range(p)] for i in range(p)]

    @lru_cache(maxsize=None)
    def matchings(rest: tuple[int, ...]) -> int:
        if not rest:
            return 1
        i, others = rest[0], rest[1:]
        total = 0
        for k, j in enumerate(others):
            total += G[i][j] * matchings(others[:k] + others[k + 1:])
        return total

    return matchings(tuple(range(p)))


@dataclass(frozen=True)
class QuadratureBudget:
    """Draws per check for one profile."""

    #: Independent draws checked for exactness (every one must be exact).
    exact_draws: int
    #: Random polynomials per degree and draw.
    exact_polys: int
    #: Independent draws for the unbiasedness t-tests and the efficiency table.
    unbiased_draws: int
    #: Plain Gaussian evaluations per integrand for the Monte Carlo variance reference.
    mc_evaluations: int




#: ``quadrature_corners(profile)``: rule-unbiasedness at the corner dimensions (:mod:`rfverify.properties.quadrature_corners`): per profile, the
#: number of corners in the design (quick none, default the smallest and the largest d of the rule's space, thorough
#: also the smallest d >= 2) and the corner budget (only ``unbiased_draws`` is used there: a fifth of the main
#: configuration's draws at default, a screen for gross corner bugs; the detectable bias is in each result).
#: The largest corner dimension: the space's largest d cut at 64 (the kind's default space ends there; one SR33
#: draw and its 16 integrands cost ~0.5 ms at d = 64).
QUADRATURE_CORNER_D_MAX = 64


def budget_for(profile: Profile | str) -> QuadratureBudget:
    """The profile's sample sizes (``quadrature`` in :data:`rfverify.profiles.BUDGETS`)."""
    return QuadratureBudget(**budget(profile, "quadrature"))


def quadrature_corners(profile: Profile | str) -> tuple[int, QuadratureBudget]:
    """(number of corners, the budget at a corner) of a profile (``quadrature-corners``)."""
    n, kw = budget(profile, "quadrature-corners")
    return n, QuadratureBudget(**kw)


class QuadraturePlugin(HostedAdapter):
    """A rule under test; :meth:`draw` calls it and validates what it returns.  With the judge on
    (:mod:`rfverify.containment.hosted_kinds`) the rule lives in its own process: detected there, every draw made there, the
    points and weights judged here."""

    def __init__(self, rule: Any, *, name: str | None = None, spec: str | None = None,
                 call_kw: Mapping[str, PluginObject] | None = None, input: str | None = None,
                 hosted: bool = True) -> None:
        from rfverify.containment.hosted_kinds import detect, host_for
        from rfverify.plugin_calls import as_call_kw

        #: None (numpy), "torch", "jax" or "cupy": the rule's rng is that library's random source.
        self.input = validate_input(input)
        #: What went in and came out (library, dtype, device), for the report.
        self.arrays = ArrayRecord(self.input or "numpy")
        #: Extra keywords of every draw (``--call-kw``).
        self.call_kw = as_call_kw(call_kw)
        if isinstance(rule, str):
            spec = rule
        #: The rule's process (:class:`rfverify.containment.host.Host`), or None when it runs in this process.
        self.host = host_for(str(name or rule if isinstance(rule, str) else name or "the rule"), rule) \
            if hosted else None
        if self.host is not None:
            found = detect(self.host, _detect_rule, name, dict(self.call_kw))
            self.host.plugin = str(found["name"])
            rule = self.host.root_proxy()
        else:
            rule = load_object(rule) if isinstance(rule, str) else rule
            found = _detect_rule(rule, name, self.call_kw)
        self._rebind(rule)
        self.spec = spec or (str(found["spec"]) if found["spec"] else None)
        self.name = str(found["name"])
        #: The rule is a plain function (a deep copy of it is itself) and declares ``deterministic = True``.
        self.is_function, self.declares_deterministic = bool(found["function"]), bool(found["deterministic"])
        self.form = "rule"

    DERIVED = ("obj", "declared", "rule")

    def _rebind(self, obj: PluginObject) -> None:
        import functools

        from rfverify.plugin_calls import with_call_kw

        #: The rule itself (loaded from ``MODULE:ATTR``): its declarations, e.g. ``deterministic``, are read from it.
        self.obj = self.declared = obj
        if self.host is not None:  # its keywords were checked against its signature where it lives
            self.rule: PluginObject = functools.partial(obj, **self.call_kw) if self.call_kw else obj
        else:
            self.rule = with_call_kw(obj, self.call_kw, getattr(obj, "__qualname__", type(obj).__name__))

    def draw(self, d: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """One draw ``(points (n, d), weights (n,))``, validated; PluginError on misbehaviour."""
        return self._judge(d, self._remote("raw_draw", d, rng) if self.host is not None else self.raw_draw(d, rng))

    def draws(self, d: int, rngs: Iterable[np.random.Generator]) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """:meth:`draw` for each of ``rngs`` in order (a generator); in the rule's process a few operations for
        all of them (:meth:`rfverify.containment.hosted_kinds.HostedAdapter._draws`)."""
        if self.host is None:
            for rng in rngs:
                yield self.draw(d, rng)
            return
        for out in self._draws("raw_draw", d, rngs):
            yield self._judge(d, out)

    def _judge(self, d: int, out: PluginObject) -> tuple[np.ndarray, np.ndarray]:
        """The rule's output for d (numpy arrays, from wherever it ran), validated here."""
        action = f"rule({d}, rng)"
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise PluginError(self.name, f"{action} returned {type(out).__name__}, not a pair",
                              "return (points of shape (n, d), weights of shape (n,))")
        P, w = (guard.as_array(a, plugin=self.name, action=f"{action} ({what})").astype(float, copy=False)
                for a, what in zip(out, ("points", "weights")))
        guard.check_size(P, plugin=self.name, action=f"{action} (points)")
        if P.ndim != 2 or P.shape[1] != d or P.shape[0] < 1:
            raise PluginError(self.name, f"points have shape {P.shape} for d={d}", f"return points of shape (n, {d})")
        if w.shape != (P.shape[0],):
            raise PluginError(self.name, f"weights have shape {w.shape} for {P.shape[0]} points",
                              f"return weights of shape ({P.shape[0]},)")
        guard.check_finite(P, plugin=self.name, action=f"{action} (points)", hint="points and weights must be finite")
        guard.check_finite(w, plugin=self.name, action=f"{action} (weights)", hint="points and weights must be finite")
        return P, w

    def raw_draw(self, d: int, rng: np.random.Generator) -> PluginObject:
        """The rule's (points, weights) for (d, rng), each brought to numpy (where the rule lives)."""
        action = f"rule({d}, rng)"
        out = guard.call(self.rule, d, to_input(rng, self.input, record=self.arrays), plugin=self.name, action=action,
                         passthrough=(UsageError, PluginError),
                         hint="a rule must accept (d, rng) with rng a numpy Generator")
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise PluginError(self.name, f"{action} returned {type(out).__name__}, not a pair",
                              "return (points of shape (n, d), weights of shape (n,))")
        return tuple(to_numpy(a, plugin=self.name, action=f"{action} ({what})", record=self.arrays)
                     for a, what in zip(out, ("points", "weights")))


def _detect_rule(rule: PluginObject, name: str | None, call_kw: Mapping[str, PluginObject]) -> dict[str, JSONValue]:
    """The rule's name and declarations (plain data: run where the rule lives)."""
    import types

    from rfverify.plugin_calls import with_call_kw
    from rfverify.text import NAME_LIMIT, clean

    if not callable(rule):
        raise UsageError(f"a quadrature rule must be callable as rule(d, rng), got {type(rule).__name__}")
    wrapped = with_call_kw(rule, call_kw, getattr(rule, "__qualname__", type(rule).__name__))
    label = name or getattr(rule, "name", None) or getattr(rule, "__qualname__", None) or type(rule).__name__
    function = isinstance(wrapped, (types.FunctionType, types.BuiltinFunctionType, types.MethodType, type))
    spec = spec_of(rule, instances=True)
    return {"name": clean(str(label), NAME_LIMIT, one_line=True), "function": function,
            "deterministic": getattr(rule, "deterministic", None) is True,
            "spec": spec if spec is None or len(spec) <= 10_000 else None}


@dataclass
class QuadratureContext(BaseContext["QuadratureConfig"]):
    """Everything a quadrature check may use; randomness only via ``seeds``."""

    plugin: QuadraturePlugin = None  # type: ignore[assignment]
    dim: int = 8
    degree: int = 0
    unbiased: bool = True
    budget: QuadratureBudget = None  # type: ignore[assignment]
    #: Declared deterministic (a cubature): the same draw for every rng state.
    deterministic: bool = False
    #: The corner dimension this context runs at (None: the declared d; :meth:`at_corner`).
    corner: int | None = None

    @property
    def key(self) -> tuple[Any, ...]:
        """Stable stream key: kind, check, dimension — never the implementation."""
        return ("quadrature", self.check, self.dim)

    def rng(self, *stream: Any, trial: int | None = None) -> np.random.Generator:
        return self.seeds.rng(*self.key, *stream, trial=trial)

    def draw(self, trial: int, *stream: Any) -> tuple[np.ndarray, np.ndarray]:
        """Draw number ``trial`` of the rule on its own stream."""
        return self.plugin.draw(self.dim, self.rng("draw", *stream, trial=trial))

    def draws(self, trials: Iterable[int], *stream: PluginObject) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Draws number ``trials`` of the rule on their own streams, in order (:meth:`draw` for each; batched where
        the rule lives in its own process)."""
        return self.plugin.draws(self.dim, (self.rng("draw", *stream, trial=t) for t in trials))

    def at_corner(self, d: int, alpha: float, budget: QuadratureBudget) -> "QuadratureContext":
        """This check at the corner dimension ``d`` with the corner ``budget`` and ``alpha``; its streams are keyed
        by d (:attr:`key`), so ``--pin d=D`` replays the same draws; the reproduce command pins d."""
        from dataclasses import replace

        return replace(self, dim=int(d), budget=budget, alpha=alpha, corner=int(d),
                       reproduce=f"{self.reproduce} --pin d={int(d)}")

    def fail(self, headline: str, observed: str | None = None, expected: str | None = None, **kw: Any) -> Any:
        """:meth:`BaseContext.fail`, naming the corner dimension in ``where:`` at a corner."""
        if self.corner is not None:
            kw["where"] = (kw.get("where", "") + f" at the corner dimension d = {self.dim} "
                           f"({self.budget.unbiased_draws} draws)").strip()
        return super().fail(headline, observed, expected, **kw)


def _validate_degree(degree: Any) -> int:
    if isinstance(degree, bool) or not isinstance(degree, (int, np.integer)) or not (0 <= int(degree) <= MAX_DEGREE):
        raise UsageError(f"degree must be an integer in [0, {MAX_DEGREE}], got {degree!r}")
    return int(degree)


def _call_kw_options(call_kw: Mapping[str, Any]) -> list[str]:
    from rfverify.plugin_calls import call_kw_options

    return call_kw_options(call_kw)


def _add_unbiased(p: argparse.ArgumentParser) -> None:
    qb = p.add_mutually_exclusive_group()
    qb.add_argument("--unbiased", dest="biased", action="store_false", help="claimed unbiased (default)")
    qb.add_argument("--biased", dest="biased", action="store_true", help="not claimed unbiased")
    p.set_defaults(biased=False)


@dataclass(frozen=True)
class QuadratureOptions:
    """The options of a quadrature rule (``verify_quadrature``, ``rfverify check quadrature``), declared once."""

    dim: int = option(8, flag="--dim", cli_default="8", help="dimension d (default 8)",
                      parse=lambda text: parse_int(text, "--dim"), render=lambda c: ["--dim", str(c.dim)])
    #: Claimed degree of exactness for every draw.
    degree: int = option(0, flag="--degree", cli_default="0", help="claimed degree of exactness for every draw "
                         "(default 0)", parse=lambda text: parse_int(text, "--degree"),
                         render=lambda c: ["--degree", str(c.degree)])
    #: Claimed unbiased for every integrable f (``--unbiased``, the default, or ``--biased``).
    unbiased: bool = option(True, add=_add_unbiased, read=lambda args: not args.biased,
                            render=lambda c: ["--unbiased" if c.unbiased else "--biased"])
    #: The rule draws nothing (a cubature; or the rule's attribute ``deterministic = True``).
    deterministic: bool = option(False, flag="--deterministic", action="store_true",
                                 render=lambda c: ["--deterministic"] if c.deterministic else [],
                                 help="the rule draws nothing (a cubature): the same draw for every rng state; judged "
                                 "on exactness and its measured bias")
    #: ``d`` and the ``seed`` of the draw ``explore`` searches, fixed.
    pins: Mapping[str, Any] | None = pins_option(pin_flag(
        "KEY=VALUE", "pin d (explore; rule-unbiasedness runs at that corner dimension alone) or the rng seed of the "
        "draw explore searches (repeatable)"))
    call_kw: Mapping[str, Any] | None = call_kw_option(
        render=lambda c: _call_kw_options(getattr(c.plugin, "call_kw", {})))
    input: str | None = input_option("the rng argument: a torch.Generator, a JAX PRNGKey or a CuPy generator seeded "
                                     "from the check's stream",
                                     render=lambda c: ["--input", c.plugin.input] if c.plugin.input else [])
    #: ``{"d": (lo, hi)}``, or ``{"d_exp": (lo, hi)}`` for d = 2^k only, narrows the dimensions ``explore`` searches.
    space: Mapping[str, Any] | None = space_option()


class QuadratureConfig(KindConfig):
    """A validated configuration for verifying one quadrature rule."""

    kind = "quadrature"
    DIM_RANGE = (1, MAX_DIM)
    DIM_WHY = "exactness moments are enumerated over monomials of d variables: 4096 keeps degree 3 tractable"
    CLI = CliSpec("Verify a rule MODULE:ATTR estimating E f(w), w ~ N(0, I_d).",
                  examples=("rfverify check quadrature rfverify.implementations.quadrature:sr33_haar --dim 8 --degree 3 "
                            "--unbiased",))

    Options = QuadratureOptions
    options: QuadratureOptions
    TARGET = "rule"

    def _setup(self, rule: Any, name: str | None) -> None:
        o = self.options
        self.dim = self.validate_dim(o.dim)
        #: The caller's narrowing of the space ``explore`` searches (``d``: an integer or (lo, hi); ``d_exp``:
        #: (lo, hi), d = 2^k) and its pins (``d``, ``seed``; :mod:`rfverify.kinds.pins`).
        self.space = self.caller_space = dict(o.space or {})
        self.pins = dict(o.pins or {})
        self.degree = _validate_degree(o.degree)
        from rfverify.validation import as_flag, as_name

        self.unbiased = as_flag(o.unbiased, "unbiased")
        given = rule
        self.plugin = rule if isinstance(rule, QuadraturePlugin) else QuadraturePlugin(rule, name=as_name(name),
                                                                                       call_kw=o.call_kw, input=o.input)
        # the rule's own declarations (its attribute deterministic = True), read where it lives
        self.deterministic = as_flag(o.deterministic, "deterministic") or (
            not isinstance(given, QuadraturePlugin) and self.plugin.declares_deterministic)
        self.budget = budget_for(self.profile)
        #: The dimensions ``explore`` searches (validated now: a bad space is a UsageError at construction).
        self.explored_dims = _spaces().quadrature_dims(self)

    #: The rule is imported, detected and called in its own process (rfverify.containment.hosted_kinds) when the judge is on.
    HOSTED = True

    @property
    def host(self) -> PluginObject:
        """The rule's process (:class:`rfverify.containment.host.Host`), or None when it runs in this process."""
        return self.plugin.host

    def in_process(self) -> None:
        """Run the rule in this process from now on (``isolate=False``)."""
        self.plugin.in_process()

    def _context(self, spec: CheckSpec, alpha: float, reproduce: str) -> QuadratureContext:
        return QuadratureContext(spec.name, self.profile, self.seeds, alpha, reproduce, plugin=self.plugin,
                                 dim=self.dim, degree=self.degree, unbiased=self.unbiased, budget=self.budget,
                                 deterministic=self.deterministic, config=self)

    def target(self) -> dict[str, Any]:
        """What the rule is held to: the standard Gaussian integral in d dimensions."""
        return {"name": "gaussian-integral", "params": {"dim": self.dim}}

    def as_dict(self) -> dict[str, Any]:
        return {"dim": self.dim, "declarations": {"degree": self.degree, "unbiased": self.unbiased,
                                                  "deterministic": self.deterministic},
                "spec": self.plugin.spec, "budget": self.budget.__dict__, "input": self.plugin.input or "numpy",
                "arrays": self.plugin.arrays.to_dict(), "call_kw": dict(getattr(self.plugin, "call_kw", {}))}

    def preflight(self) -> str | None:
        """Draw once (a health check); the problem, or None."""
        try:
            self.plugin.draw(self.dim, self.seeds.rng("quadrature", "preflight", self.dim))
        except PluginError as exc:
            return str(exc)
        except UsageError as exc:
            return f"{self.plugin.name}: {exc}"
        return None


verify_quadrature = make_verify(QuadratureConfig, "verify_quadrature", """Verify a quadrature rule ``rule(d, rng) -> (points, weights)`` against its declarations.

    ``degree``: claimed degree of exactness for every draw; ``unbiased``:
    claimed unbiased for every integrable f.  ``rule`` may be a
    ``"MODULE:ATTR"`` string.  Returns a :class:`~rfverify.results.Report`.
    ``time_limit`` / ``memory_limit``: per check (:class:`rfverify.containment.guard.Limits`).
    ``deterministic``: the rule draws nothing (a cubature; or the rule's attribute ``deterministic = True``):
    rule-contract requires the same draw for every rng state, and its bias is measured exactly.
    ``space`` narrows the dimensions ``explore`` searches (``{"d": (lo, hi)}``, or ``{"d_exp": (lo, hi)}`` for
    d = 2^k only; the rule's ``rfverify_space`` attribute does the same), ``pins`` fixes ``d`` and the ``seed``;
    ``strict_space``: a refusal anywhere in the space fails ``explore`` (:mod:`rfverify.refusals`).
    ``call_kw``: extra keywords of every draw (``--call-kw KEY=VALUE``).
    ``input``: ``"torch"``, ``"jax"`` or ``"cupy"`` hands the rule that library's random source as ``rng``; points
    and weights of any array library are accepted (:mod:`rfverify.arrays`).
    The keywords are the fields of :class:`QuadratureOptions` and those of the run (``seed``, ``profile``,
    ``name``, ``checks``, ``xfail``, ``time_limit``, ``memory_limit``, ``strict_space``).
    """, target="rule")

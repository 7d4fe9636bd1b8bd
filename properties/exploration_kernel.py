"""Exploration for kernels: symmetry, PSD, normalisation and batch independence searched over the kernel's space.

``kernel-symmetry``, ``kernel-psd`` and ``kernel-normalisation`` look at one dimension and one set of parameters
on a fixed plan of point sets.  ``explore`` states them for every configuration of the kernel's space — d 1 … 256,
every parameter over its search range (:attr:`rfverify.kernels.ParamSpec.search` for a registry kernel; a kernel
callable declares ``rfverify_space = {"gamma": (1e-3, 1e3, "log"), ...}``), 1 … 128 points, near-zero, typical
and large norms in length scales — searches it with Hypothesis (:mod:`rfverify.explore`) and shrinks a failure
to the smallest configuration, with a witness set for PSD.

Space keys (the kernel's ``rfverify_space``, then ``verify_kernel(space=...)``, then pins / ``--pin KEY=VALUE``,
each later one wins): ``d``, ``n`` — an integer or (lo, hi); ``norm`` — a name or a tuple of names;
``data_seed`` — an integer; a parameter name — a value (held) or ``(lo, hi)`` / ``(lo, hi, "log"|"linear")``
(searched).  A kernel evaluated on a callable domain is explored at its declared d only.
"""

from __future__ import annotations

import math
import shlex
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np
from hypothesis import strategies as st

from rfverify.errors import PluginError
from rfverify.explore import Exploration, budget_for, coverage, d_band, one_blas_thread, refine, search
from rfverify.kernels import Kernel, as_kernel
from rfverify.kinds.kernel import KernelContext, KernelOverflow, kernel_accuracy
from rfverify.properties.kernel_properties import WITNESS_FRACTION, shrink_witness
from rfverify.properties.space_guard import SpaceGuard
from rfverify.refusals import Axis, Refusal, Refused, SpaceLog, held_where, refusal_of, refused_note, strict_failure
from rfverify.registry import register_check
from rfverify.results import CheckResult, JSONRecord, JSONValue
from rfverify.spaces import NORMS, KernelSpace
from rfverify.strategies import dimensions, make_batch
from rfverify.tolerances import evaluation_tolerance, psd_tolerance

__all__ = ["check_explore_kernel", "KernelExample", "KERNEL_COST_CAP"]

#: n^2 d of one explored Gram matrix: 2^20 keeps an evaluation and its eigenvalues within milliseconds
#: (128 points up to d = 64, 64 points at d = 256).
KERNEL_COST_CAP = 2 ** 20


@dataclass(frozen=True)
class KernelExample:
    """One explored Gram evaluation: dimension, points, norm band, parameters and the points' seed."""

    d: int
    n: int
    norm: str
    params: tuple[tuple[str, float], ...]
    data_seed: int

    def describe(self) -> str:
        ps = "".join(f", {k}={v!r}" for k, v in self.params)
        return (f"d = {self.d}, {self.n} point{'s' if self.n != 1 else ''}, {self.norm} norms{ps} "
                f"(data_seed={self.data_seed})")

    def pins(self) -> list[str]:
        out = ["--pin", f"d={self.d}", "--pin", f"n={self.n}", "--pin", f"norm={self.norm}",
               "--pin", f"data_seed={self.data_seed}"]
        for k, v in self.params:
            out += ["--pin", f"{k}={v!r}"]
        return out


def _param(lo: float, hi: float, *scale: str) -> st.SearchStrategy[float]:
    if not scale:
        return st.integers(int(lo), int(hi))
    if scale[0] == "log":
        return st.floats(math.log10(lo), math.log10(hi)).map(lambda t: _log_value(t, lo, hi))
    return st.floats(float(lo), float(hi)).map(lambda v: _value(v, lo, hi))


def _log_value(t: float, lo: float, hi: float) -> float:
    """The value 10^t of a log range (``t`` is what Hypothesis searches), as :func:`_value` keeps it."""
    return _value(10.0 ** t, lo, hi)


def _value(v: float, lo: float, hi: float) -> float:
    """``v`` to 3 significant digits (so that a reported value replays exactly), kept in [lo, hi]."""
    return min(hi, max(lo, float(f"{v:.3g}")))


@st.composite
def _examples(draw: st.DrawFn, space: KernelSpace) -> KernelExample:
    d = draw(dimensions(space.d.lo, space.d.hi))
    n_hi = max(space.n.lo, min(space.n.hi, math.isqrt(KERNEL_COST_CAP // d)))
    corners = sorted({c for c in (1, 2, 3, *(2 ** k + e for k in range(1, 8) for e in (0, 1))) if space.n.lo <= c <= n_hi})
    n = draw(st.one_of(st.integers(space.n.lo, n_hi), st.sampled_from(corners or [space.n.lo])))
    norm = draw(st.sampled_from(space.norm))
    params = dict(space.held)
    for name in sorted(space.params):
        params[name] = draw(_param(*space.params[name]))
    seed = space.data_seed if space.data_seed is not None else draw(st.integers(0, 2 ** 16))
    return KernelExample(d, n, norm, tuple(sorted(params.items())), seed)


def _form(ex: KernelExample) -> dict[str, object]:
    """The configuration of ``ex`` a refusal is stated in (the points' seed is not an axis: a refusal must not
    depend on the values)."""
    return {"d": ex.d, "n": ex.n, "norm": ex.norm, **{f"param:{k}": v for k, v in ex.params}}


def _example(form: JSONRecord, seed: int) -> KernelExample:
    params = tuple(sorted((k[len("param:"):], v) for k, v in form.items() if k.startswith("param:")))
    return KernelExample(int(form["d"]), int(form["n"]), form["norm"], params, seed)


class _Runner:
    """Evaluates the properties at one configuration."""

    def __init__(self, ctx: KernelContext) -> None:
        self.ctx, self.cfg = ctx, ctx.config
        #: the refusal rule (None: a refusal is a problem like any other, as a property evaluated alone judges)
        self.guard: SpaceGuard | None = None
        #: the configuration of the kernel call being made (a sub-call evaluates fewer points)
        self.now: dict[str, JSONValue] = {}

    def kernel(self, ex: KernelExample) -> Kernel:
        k = self.cfg.kernel
        if not ex.params or dict(ex.params) == dict(k.params):
            return k
        return as_kernel(k.name, dict(ex.params)) if k._spec is not None else replace(k, params=dict(ex.params))

    def length_scale(self, kernel: Kernel, d: int) -> float:
        if not isinstance(self.cfg.domain, str) or self.cfg.domain == "sphere":
            return 1.0
        ls = kernel.length_scale(d)
        if ls is not None and math.isfinite(ls) and ls > 0:
            return float(ls)
        return self.cfg.scale * math.sqrt(self.cfg.dim / d)  # calibrated at the declared d, ~ 1/sqrt(d) beyond

    def points(self, ex: KernelExample, kern: Kernel) -> tuple[np.ndarray, float]:
        """The explored points of ``ex`` and their length scale."""
        cfg = self.cfg
        ls = self.length_scale(kern, ex.d)
        Z = make_batch(ex.n, ex.d, seed=ex.data_seed, norm=ex.norm, length_scale=ls,
                       domain=cfg.domain if not isinstance(cfg.domain, str) else
                       ("gaussian" if cfg.domain not in ("positive", "sphere") else cfg.domain))
        return Z, ls

    def __call__(self, ex: KernelExample) -> str | None:
        self.now = _form(ex)
        try:
            problem = self._evaluate(ex)
        except KernelOverflow as exc:
            return None if ex.norm == "large" else f"the kernel returned non-finite values: {exc}"
        except PluginError as exc:
            if self.guard is not None:  # a clean refusal away from the main configuration: set aside (Refused)
                self.guard.reject(exc, self.now, seed=ex.data_seed, action="k(X, Y)")
            return f"the kernel failed: {exc}"
        if self.guard is not None:
            self.guard.accept(_form(ex))
        return problem

    def probe(self, form: JSONRecord, seed: int) -> Refusal | None:
        """One Gram evaluation at ``form`` on the points seeded ``seed`` (no property judged): what the kernel said
        if it refused, else None."""
        ex = _example(form, seed)
        kern = self.kernel(ex)
        try:
            Z, _ = self.points(ex, kern)
            self.cfg.evaluate(Z, Z, kern)
        except PluginError as exc:
            return refusal_of(exc)
        return None

    def _evaluate(self, ex: KernelExample) -> str | None:
        cfg, kern = self.cfg, self.kernel(ex)
        Z, ls = self.points(ex, kern)
        r2 = float(np.max(np.einsum("ij,ij->i", Z, Z))) / (ex.d * ls * ls)
        h = max(1, ex.n // 2)
        X, Y = Z[:h], (Z[h:] if ex.n > 1 else Z)
        K = cfg.evaluate(Z, Z, kern)
        self.now = {**_form(ex), "n": min(X.shape[0], Y.shape[0])}  # the smaller part: a refused size is its own
        KXY = cfg.evaluate(X, Y, kern)
        KYX = cfg.evaluate(Y, X, kern)
        self.now = _form(ex)
        acc = kernel_accuracy(kern)
        eta = evaluation_tolerance(cfg.dtype, ex.d, r2, acc)
        scale = max(float(np.max(np.abs(K))), float(np.max(np.abs(KXY))), np.finfo(float).tiny)
        tol = eta * scale
        for A, B, what in ((KXY, KYX.T, "k(x, y) vs k(y, x) across K(X, Y) and K(Y, X)"),
                           (K, K.T, "the Gram matrix K(Z, Z) vs its transpose")):
            diff = np.abs(A - B)
            if float(diff.max()) > tol:
                i, j = np.unravel_index(int(np.argmax(diff)), diff.shape)
                return (f"not symmetric: {what}: k(x, y) = {float(A[i, j]):.10g} but k(y, x) = {float(B[i, j]):.10g} "
                        f"(|difference| {float(diff[i, j]):.3g} > round-off tolerance {tol:.3g})")
        if ex.n > 1:
            diff = np.abs(K[:h, h:] - KXY)
            if float(diff.max()) > tol:
                return (f"k(x, y) depends on the other points of the batch: the same pair gave values differing by "
                        f"{float(diff.max()):.3g} in a Gram matrix of {ex.n} points and in one of {h} x {ex.n - h} "
                        f"(round-off tolerance {tol:.3g})")
        if cfg.normalized:
            dev = np.abs(np.diag(K) - 1.0)
            if float(dev.max()) > eta:
                at = int(np.argmax(dev))
                return (f"not normalised: k(x, x) = {float(K[at, at]):.10g} at a point of norm "
                        f"{float(np.linalg.norm(Z[at])):.3g} (expected 1 ± {eta:.2g}, the round-off tolerance)")
        if cfg.psd:
            return self._psd(ex, K, r2, acc)
        return None

    def _psd(self, ex: KernelExample, K: np.ndarray, r2: float, acc: float) -> str | None:
        dtype = self.cfg.dtype
        s = float(np.max(np.abs(K)))
        s = s if math.isfinite(s) and s > 0 else 1.0
        Ks = 0.5 * (K + K.T)
        try:
            w, V = np.linalg.eigh(Ks / s)
        except np.linalg.LinAlgError:
            return None
        w = w * s
        tol = psd_tolerance(ex.n, ex.d, dtype, r2, s, float(np.max(np.abs(w))), acc)
        if w[0] >= -tol:
            return None

        def tol_of(sub: np.ndarray) -> float:
            ev = np.linalg.eigvalsh(sub)
            return psd_tolerance(sub.shape[0], ex.d, dtype, r2, float(np.max(np.abs(sub))),
                                 float(np.max(np.abs(ev))), acc)

        S = shrink_witness(K, V[:, 0], WITNESS_FRACTION * abs(float(w[0])), tol_of)
        lam = float(np.linalg.eigvalsh(0.5 * (K[np.ix_(S, S)] + K[np.ix_(S, S)].T))[0])
        return (f"not positive semi-definite: the Gram matrix of {ex.n} points has smallest eigenvalue "
                f"{float(w[0]):.4g} < -{tol:.3g} (round-off tolerance); witness: points {S} of the batch, whose "
                f"own Gram matrix has eigenvalue {lam:.4g}")


#: Bisection steps towards the simplest value of a float parameter (3 significant digits: about 10 suffice).
PARAM_STEPS = 12


def _refine_param(found: Exploration, name: str, rng: tuple[float | str, ...], simplest: float | None,
                  prop: Callable[[KernelExample], str | None]) -> Exploration:
    """The counterexample moved towards ``simplest`` (the kernel's own value, else the range's lower end) along
    parameter ``name``, the other axes held: the simplest value itself if it fails; else for an integer the
    smallest failing value above it, for a float a bisection (on the log scale for a log range, to 3
    significant digits) to the failing value nearest it — the threshold where the property starts to break
    (a weight clipped at 0.9 is reported at 0.901)."""
    ex: KernelExample = found.counterexample
    params = dict(ex.params)
    cur = params.get(name)
    if cur is None or simplest is None or cur == simplest:
        return found

    def at(v: float) -> KernelExample:
        return replace(ex, params=tuple(sorted({**params, name: v}.items())))

    if len(rng) == 2:  # an integer range: the first failing value from the simplest one
        step = 1 if simplest < cur else -1
        return refine(found, (at(v) for v in range(int(simplest), int(cur), step)), prop)
    found = refine(found, [at(simplest)], prop)
    if found.counterexample != ex:
        return found
    log = rng[2] == "log" and simplest > 0 and cur > 0
    good, bad = (math.log10(simplest), math.log10(cur)) if log else (float(simplest), float(cur))
    calls, tried, best = found.calls, list(found.tried), (ex, found.problem)
    for _ in range(PARAM_STEPS):
        mid = 0.5 * (good + bad)
        v = float(f"{10.0 ** mid if log else mid:.3g}")
        if v in (float(simplest), float(dict(best[0].params)[name])):
            break
        cand = at(v)
        try:
            problem = prop(cand)
        except Refused:  # outside the kernel's space: no threshold beyond it
            break
        calls += 1
        tried.append((cand, bool(problem)))
        if problem:
            bad, best = mid, (cand, problem)
        else:
            good = mid
    return replace(found, counterexample=best[0], problem=best[1], calls=calls, tried=tuple(tried))


_CAUSES = (  # the kernel's own exception text is quoted after "the kernel failed": that key is matched first
    ("the kernel failed", "the kernel does not handle this configuration: fix it, or declare its space "
                          "(rfverify_space)"),
    ("not symmetric", "x and y play different roles at this configuration (a fast path above some d, a one-sided "
                      "scaling?)"),
    ("depends on the other points", "the value is computed from the whole batch (a parameter clipped or rescaled "
                                    "from the data, a chunked evaluation?)"),
    ("not normalised", "k(x, x) != 1 at these parameters (a parameter clipped 'for stability' in one term only?)"),
    ("not positive semi-definite", "not a kernel at these parameters (a clipped or truncated expression?)"),
    ("non-finite", "the kernel overflows at typical inputs for these parameters"),
)


@register_check("kernel", "explore", statistical=False, cost="quick 25, default 150, thorough 600 configurations")
def check_explore_kernel(ctx: KernelContext) -> CheckResult:
    """Symmetry, PSD, normalisation and batch independence searched over the kernel's space with Hypothesis.

    Property: at every configuration of the kernel's space (d 1 … 256; every parameter over its search range —
    ``ParamSpec.search`` for a registry kernel, ``rfverify_space`` for a callable; 1 … 128 points with n^2 d <=
    2^20; near-zero, typical and large norms in length scales): K(X, Y) = K(Y, X)^T and K(Z, Z) = K(Z, Z)^T to
    the evaluation round-off eta max|K|; a pair's value does not depend on the other points of the batch
    (K(Z, Z)'s off-diagonal block equals K(X, Y)); k(x, x) = 1 where claimed; lambda_min(K) >= -tol where
    the kernel is declared PSD (tol of ``kernel-psd``), with a witness set of points otherwise.
    Can each property fail at a configuration (only a property a correct kernel always holds there is
    charged)?  Symmetry, normalisation where claimed and PSD where declared: required at every configuration
    (the definition of a kernel holds for every point set; nothing is random).  At n = 1 symmetry and PSD hold
    trivially for a finite value (a 1 x 1 Gram matrix): judged there, never charged wrongly.  Batch independence
    needs two points (n >= 2; not judged at n = 1).  Values that overflow float64 at large norms are outside
    the space (a property of float64, not of the kernel).
    Test: Hypothesis searches ``budget`` configurations (quick 25, default 150, thorough 600), seeded from the
    check key, no example database; a failure is shrunk to a minimal configuration (then the smallest failing d
    at the same values).  A clean refusal of the kernel callable (ValueError, TypeError, NotImplementedError)
    anywhere but the main configuration (the declared d, 8 points of typical norm, the kernel's parameters) sets
    the configuration aside, confirmed by the same evaluation again and other points (an inconsistent refusal is
    an error); the refused region (``d = 1``, ``n < 2``, ``gamma >= 100``) is stated in
    ``details["space"]["refused"]`` and the message; ``strict_space`` fails on any refusal.  Deterministic: no
    alpha; a kernel within round-off of its definition cannot fail.
    Applies to: every kernel.  Catches: asymmetry above some d, a parameter clipped for stability in one term,
    a value computed from the whole batch, a kernel PSD only for some parameters.
    Reference: cs4787 lecture 16 (the definition of a kernel); Hypothesis' search-and-shrink.
    """
    space = ctx.config.explore_space
    runner = _Runner(ctx)
    strategy = _examples(space)
    base = _base_params(ctx, space)
    seed0 = space.data_seed if space.data_seed is not None else 0
    explicit = [KernelExample(d, min(space.n.hi, max(space.n.lo, 8)), space.norm[0], tuple(sorted(base.items())),
                              seed0) for d in (space.d.lo, min(space.d.hi, max(space.d.lo, ctx.dim)))]
    seed, budget = ctx.seeds.random_state("kernel", "explore", ctx.config._dom_name()), budget_for(ctx.profile.name)
    runner.guard = _space_guard(ctx, space, base, runner)
    with np.errstate(all="ignore"), one_blas_thread():
        found = search(strategy, runner, seed=seed, budget=budget, explicit=list(dict.fromkeys(explicit)))
        if not found.passed:
            ex0: KernelExample = found.counterexample
            found = refine(found, (replace(ex0, d=d) for d in range(space.d.lo, ex0.d)), runner)
            for name in sorted(space.params):
                found = _refine_param(found, name, space.params[name], base.get(name), runner)
    log = runner.guard.log
    assert log is not None
    details: dict[str, JSONValue] = {
        "space": log.summary(space.describe(), len(found.tried)),
        "space_searched": space.describe(), "budget": budget, "calls": found.calls,
        "coverage": coverage(found, {"d": lambda ex: d_band(ex.d), "norm": lambda ex: ex.norm},
                             size=lambda ex: (ex.d, ex.n, NORMS.index(ex.norm)), describe=KernelExample.describe)}
    strict = strict_failure(ctx, details["space"], [e.describe() for e in found.refused], statistic=found.calls,
                            details=details)
    if strict is not None:
        return strict
    if found.passed:
        return ctx.result("pass", f"{found.calls} configurations, symmetric, batch-independent"
                          f"{', normalised' if ctx.config.normalized else ''}{', PSD' if ctx.config.psd else ''} at "
                          f"every one ({held_where(details['space'], space.describe())})", statistic=float(found.calls),
                          details=details)
    return _minimal_failure(ctx, found, details)


def _base_params(ctx: KernelContext, space: KernelSpace) -> dict[str, JSONValue]:
    """The held parameters, and the simplest value of each searched one (the kernel's own when in range)."""
    base = dict(space.held)
    for name, rng in space.params.items():  # the simplest value of each searched parameter
        base[name] = ctx.kernel.params.get(name, rng[0]) if rng[0] <= ctx.kernel.params.get(name, rng[0]) <= rng[1] \
            else rng[0]
    return base


def _space_guard(ctx: KernelContext, space: KernelSpace, base: dict[str, JSONValue], runner: _Runner) -> SpaceGuard:
    """The refusal rule around the search, with the main configuration it is explained against."""
    main = {"d": min(space.d.hi, max(space.d.lo, ctx.dim)), "n": min(space.n.hi, max(space.n.lo, 8)),
            "norm": "typical" if "typical" in space.norm else space.norm[0],
            **{f"param:{k}": v for k, v in sorted(base.items())}}
    axes = [Axis("d"), Axis("n"), Axis("norm", "choice"),
            *(Axis(f"param:{k}", "int" if len(space.params[k]) == 2 else "float") for k in sorted(space.params))]
    return SpaceGuard(SpaceLog(axes, main, runner.probe, name=ctx.name), main=[main])


def _minimal_failure(ctx: KernelContext, found: Exploration, details: dict[str, JSONValue]) -> CheckResult:
    """The failure at the minimal example the search shrank to, with the reproduce command pinning it."""
    ex: KernelExample = found.counterexample
    problem = found.problem or ""
    details["minimal_example"] = {"d": ex.d, "n": ex.n, "norm": ex.norm, "params": dict(ex.params),
                                  "data_seed": ex.data_seed}
    details["replayed"] = found.replayed
    cause = next((c for key, c in _CAUSES if key in problem), "")
    result = ctx.fail("the kernel breaks in a corner of its configuration space", problem,
                      "symmetric, batch-independent, normalised where claimed and PSD where declared, at every "
                      "configuration of the space", where=ex.describe() + found.shown_as(), cause=cause,
                      note=refused_note(details["space"]), statistic=float(found.calls), details=details)
    return replace(result, reproduce=ctx.reproduce + " " + " ".join(shlex.quote(p) for p in ex.pins()))

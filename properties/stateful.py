"""Stateful conformance: a feature map explored as an object with a history, by a Hypothesis state machine.

``explore`` and the corners judge each configuration on a fresh object called a few times.  A library's objects
live in a process: they cache in modules, keep state in classes, take a "warm" path after many calls, memoise on
an array's identity, hand back internal buffers, fold seeds, receive integer data.  ``stateful`` runs sequences of
the calls a user makes — several objects alive at once (equal or different seeds, objects that differ in one kernel
parameter only, seeds far apart), fit, refit, transform of fresh data, of the same array again, of a buffer refilled
in place, of one row, of a slice or a strided view, of integer, bool and float16 input, of lists and tuples,
and long runs of calls — and checks the invariants after every step.  A failure is shrunk by Hypothesis to the
shortest sequence and printed as the user's own program (:func:`program_text`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

import numpy as np
from hypothesis import HealthCheck, Phase, Verbosity, settings
from hypothesis import strategies as st
from hypothesis.errors import Flaky
from hypothesis.reporting import with_reporter
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test

from rfverify import guard
from rfverify.arrays import to_numpy
from rfverify.errors import PluginError
from rfverify.hypothesis_compat import search_constants_hidden
from rfverify.kinds.feature_map import CheckContext
from rfverify.refusals import refusal_of
from rfverify.registry import register_check
from rfverify.results import CheckResult
from rfverify.spaces import length_scale_of
from rfverify.strategies import make_batch
from rfverify.tolerances import contract_tolerance, roundoff_inner_product, unit_roundoff

__all__ = ["check_stateful", "RUNS", "LONG_CALLS", "FAR_SEEDS", "INPUT_TYPES", "program_text"]

#: (sequences generated, steps per sequence) per profile.
RUNS: dict[str, tuple[int, int]] = {"quick": (8, 10), "default": (20, 12), "thorough": (120, 16)}
#: The call-count axis: a ``repeat`` step calls transform this many times on one row (past 1,000; thorough 10^4).
LONG_CALLS: dict[str, int] = {"quick": 1_001, "default": 1_050, "thorough": 10_000}
#: Seeds far from a living object's seed s: s + 2^16, s + 2^31, 2^32 - 1, and 63-bit seeds (set aside, stated, where
#: the plug-in does not accept them: they are beyond the declared random_state range).
FAR_SEEDS = ("s + 2**16", "s + 2**31", "2**32 - 1", "2**62 + s", "2**63 - 1")
#: The input types a transform is given besides float64; each must give the float64 features of the same values
#: (or be refused cleanly: set aside and stated).
INPUT_TYPES = ("int32", "int64", "uint8", "bool", "float16", "list", "tuple")
#: Objects alive at once, and the widths they are built with (at least 16 features: two correct draws coincide on
#: 8 rows with negligible probability).
MAX_OBJECTS = 4
WIDTHS = (16, 64)
BASE_SEEDS = (0, 1, 12345)
#: Rows of the data batches (small: the machine is about state, not size).
ROWS = 8
NAMES = "abcghkpq"
#: Another code path (a view, a converted dtype) may differ by this many times the features' change under a
#: one-ulp relative perturbation of the input, times (d + 2) — as ``explore`` allows.
ROUNDOFF_MARGIN = 8.0


def _far(rel: str, s: int) -> int:
    """The seed ``rel`` of seed ``s`` (kept below 2^63: a 63-bit seed at most)."""
    return {"s + 2**16": s + 2 ** 16, "s + 2**31": s + 2 ** 31, "2**32 - 1": 2 ** 32 - 1, "2**62 + s": 2 ** 62 + s,
            "2**63 - 1": 2 ** 63 - 1}[rel] % 2 ** 63


@dataclass
class _Obj:
    """One object the program made: its name, configuration, what it was last fitted on, its calls."""

    name: str
    m: int
    seed: int
    params: tuple[tuple[str, Any], ...]
    obj: Any = None
    fit_on: str | None = None  # the data name it was last fitted on (None: not fitted)
    fit_values: np.ndarray | None = None
    calls: int = 0


@dataclass
class _Failure(Exception):
    problem: str
    program: tuple[str, ...]
    cause: str = ""


@dataclass
class _Log:
    """What every run of the machine shares: the failures seen, the refusals set aside, the calls made."""

    runs: int = 0
    steps: int = 0
    calls: int = 0
    max_calls_per_object: int = 0
    last: _Failure | None = None
    first: _Failure | None = None
    refused: dict[str, str] = field(default_factory=dict)
    #: Seeds beyond the declared random_state range that the plug-in accepted but folded onto another seed.
    beyond: dict[str, str] = field(default_factory=dict)
    judged: dict[str, int] = field(default_factory=dict)

    def refuse(self, what: str, exc: PluginError) -> None:
        ref = refusal_of(exc)
        self.refused.setdefault(what, ref.text() if ref is not None else str(exc))

    def judge(self, what: str) -> None:
        self.judged[what] = self.judged.get(what, 0) + 1


def program_text(lines: tuple[str, ...] | list[str], preamble: str) -> str:
    """The shrunk sequence as a runnable Python program: the preamble (imports, ``make``, the data) and the steps."""
    return preamble + "\n" + "\n".join(lines)


class _Session:
    """The plug-in as the machine calls it (each call through :func:`rfverify.guard.call`) and the fresh-object
    replays the invariants compare with."""

    def __init__(self, ctx: CheckContext, log: _Log) -> None:
        self.ctx, self.log = ctx, log
        space = ctx.space
        self.plug = ctx.plugin
        self.form = ctx.plugin.form
        self.d = min(max(int(ctx.dim), space.d.lo), space.d.hi)
        self.base = dict(sorted({**dict(ctx.kernel.params), **space.held}.items()))
        self.base = {k: v for k, v in self.base.items() if k in ctx.plugin.passthrough or k in space.params}
        self.widths = tuple(sorted({min(max(w, space.n_components.lo), space.n_components.hi) for w in WIDTHS}))
        self.seed_hi = space.random_state.hi
        # one kernel parameter moved by a factor 2 within its search range (objects differing in it only)
        self.variants: list[tuple[str, Any]] = []
        for k, rng in sorted(space.params.items()):
            v = self.base.get(k)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                # an integer parameter (an order, a degree) moves by one, a continuous one by a factor 2
                steps = (v + 1, v - 1) if isinstance(v, int) else (v * 2.0, v / 2.0)
                for w in steps:
                    if rng[0] <= w <= rng[1] and w != v:
                        self.variants.append((k, w))
                        break
        self.data_dependent = bool(ctx.declarations.data_dependent)
        self.deterministic = bool(ctx.declarations.deterministic)
        self.ls = length_scale_of(ctx.kernel, self.d, self.base)
        self.domain = ctx.domain
        # integer-valued inputs are off a sphere or a custom domain; a torch plug-in takes tensors (converted)
        self.typed = isinstance(ctx.domain, str) and ctx.domain in ("gaussian", "positive") and ctx.plugin.input is None
        self.scale = max(1, int(round(2.0 / max(self.ls, 1e-12))))

    # -- data --------------------------------------------------------------------------------------
    def batch(self, n: int, seed: int) -> np.ndarray:
        return make_batch(n, self.d, seed=seed, length_scale=self.ls, domain=self.domain)

    def batch_code(self, n: int, seed: int) -> str:
        dom = f", domain={self.domain!r}" if isinstance(self.domain, str) and self.domain != "gaussian" else ""
        return f"make_batch({n}, {self.d}, seed={seed}, length_scale={self.ls!r}{dom})"

    def preamble(self) -> str:
        spec = self.plug.spec
        if spec and ":" in spec:
            mod, attr = spec.split(":", 1)
            head = f"from {mod} import {attr} as make" if "." not in attr else f"import {mod}; make = {mod}.{attr}"
        else:
            head = f"make = ...  # the plug-in: {self.plug.describe()}"
        init = "".join(f", {k}={v!r}" for k, v in self.plug.init.items())
        lines = ["import numpy as np", "from rfverify.strategies import make_batch", head]
        if init:
            lines.append(f"# every object is also built with{init[1:]}")
        lines.append(f"X = {self.batch_code(ROWS, 1)}")
        lines.append(f"B = {self.batch_code(ROWS, 2)}  # a buffer the program refills in place")
        return "\n".join(lines)

    # -- the plug-in's calls -------------------------------------------------------------------------
    def _kwargs(self, o: _Obj) -> dict[str, Any]:
        return {**{k: v for k, v in o.params if k in self.plug.passthrough}}

    def build(self, o: _Obj) -> Any:
        plug = replace(self.plug, passthrough=self._kwargs(o), widths={})
        self.log.calls += 1
        return plug.build(o.m, o.seed)

    def make_line(self, o: _Obj) -> str:
        extra = "".join(f", {k}={v!r}" for k, v in o.params if k in self.plug.passthrough)
        if self.form == "function":
            return f"{o.name} = dict(n_components={o.m}, random_state={o.seed})  # make(X, **{o.name})"
        if self.form == "factory":
            return f"{o.name} = make({o.m}, {o.seed}{extra})"
        return f"{o.name} = make(n_components={o.m}, random_state={o.seed}{extra})"

    def fit(self, o: _Obj, obj: Any, X: np.ndarray) -> Any:
        """Fit through the adapter (the declared global generator seeded around fit, a torch input converted)."""
        if self.form == "function":
            return obj
        self.log.calls += 1
        return self.plug.fit_built(obj, o.m, o.seed, X).obj

    def transform(self, o: _Obj, obj: Any, X: Any) -> np.ndarray:
        self.log.calls += 1
        if self.form == "function":
            Xin = self.plug.to_input(X, None) if isinstance(X, np.ndarray) else X
            out = guard.call(obj, Xin, o.m, o.seed, plugin=self.plug.name, action="transform")
        else:
            method = obj.transform if hasattr(obj, "transform") else obj  # a torch module: forward
            Xin = self.plug.to_input(X, obj) if isinstance(X, np.ndarray) else X
            out = guard.call(method, Xin, plugin=self.plug.name, action="transform")
        # the returned object itself (not a copy): a later call must leave it unchanged
        if isinstance(out, np.ndarray):
            return out
        return guard.as_array(to_numpy(out, plugin=self.plug.name, action="transform", record=self.plug.arrays),
                              plugin=self.plug.name, action="transform", complex_ok=True)

    def reference(self, o: _Obj, X64: np.ndarray) -> tuple[np.ndarray, float]:
        """A fresh object of ``o``'s configuration, fitted on what ``o`` was last fitted on, transforming the
        float64 C-ordered values: its features and the round-off tolerance of a comparison with them."""
        fresh = self.fit(o, self.build(o), o.fit_values.copy() if o.fit_values is not None else self.batch(ROWS, 1))
        F = np.array(self.transform(o, fresh, X64.copy()))
        u = unit_roundoff(np.float64 if F.dtype not in (np.float16, np.float32) else np.float32)
        signs = np.where(np.random.default_rng(7).random(X64.shape) < 0.5, -1.0, 1.0)
        moved = np.array(self.transform(o, fresh, X64 * (1.0 + u * signs)))
        wd = np.float32 if F.real.dtype in (np.float16, np.float32) else np.float64
        scale = max(float(np.max(np.abs(F))) if F.size else 0.0, 1e-300)
        sens = float(np.max(np.abs(moved - F))) if F.size else 0.0
        tol = max(contract_tolerance(self.d, F), 256.0 * roundoff_inner_product(self.d + 2, wd) * scale,
                  ROUNDOFF_MARGIN * (self.d + 2) * sens)
        return F, tol


def _diff(A: np.ndarray, B: np.ndarray) -> float:
    if A.shape != B.shape:
        return float("inf")
    return float(np.max(np.abs(A - B))) if A.size else 0.0


def _row(v: np.ndarray, k: int = 4) -> str:
    flat = np.asarray(v).ravel()
    shown = ", ".join(f"{x:.4g}" for x in flat[:k])
    return f"[{shown}{', …' if flat.size > k else ''}]"


def _typed(X: np.ndarray, kind: str, scale: int) -> tuple[Any, str, np.ndarray]:
    """(the input in ``kind``, the code that makes it from X, the same values in float64)."""
    Z = np.rint(scale * X)
    code = f"np.rint({scale} * X)" if scale != 1 else "np.rint(X)"
    if kind in ("int32", "int64"):
        A = Z.astype(kind)
        return A, f"{code}.astype(np.{kind})", A.astype(np.float64)
    if kind == "uint8":
        A = np.abs(Z).astype(np.uint8)
        return A, f"np.abs({code}).astype(np.uint8)", A.astype(np.float64)
    if kind == "bool":
        A = Z != 0
        return A, f"{code} != 0", A.astype(np.float64)
    if kind == "float16":
        A = X.astype(np.float16)
        return A, "X.astype(np.float16)", A.astype(np.float64)
    if kind == "list":
        return X.tolist(), "X.tolist()", np.array(X, dtype=np.float64)
    return tuple(map(tuple, X.tolist())), "tuple(map(tuple, X.tolist()))", np.array(X, dtype=np.float64)


#: The transform inputs a step draws: each (label, whether it needs the typed inputs).
INPUTS = ("X", "refill", "X", "refill", "fresh", "row", "slice", "strided") + INPUT_TYPES
#: How a new object relates to a living one (``new``: a fresh configuration).
RELATIONS = ("new", "parameter", "s + 2**16", "same", "parameter", "s + 2**16", "new") + FAR_SEEDS[1:]


def _machine(session: _Session, log: _Log, long_calls: int) -> type[RuleBasedStateMachine]:
    """The state machine class of one check run (its rules close over the session)."""
    s = session

    class FeatureMapMachine(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            log.runs += 1
            self.objs: list[_Obj] = []
            self.made = 0
            self.lines: list[str] = []
            self.X = s.batch(ROWS, 1)
            self.B = s.batch(ROWS, 2)
            self.outputs: list[tuple[str, np.ndarray, np.ndarray]] = []  # (line, returned array, its copy)
            self.n_out = 0
            self.long_done = False

        # -- helpers -------------------------------------------------------------------------------
        def fail(self, problem: str, cause: str = "") -> None:
            f = _Failure(problem, tuple(self.lines), cause)
            log.last = f
            if log.first is None:
                log.first = f
            raise f

        def _pick(self, i: int, fitted: bool = True) -> _Obj | None:
            pool = [o for o in self.objs if o.fit_on is not None or not fitted]
            return pool[i % len(pool)] if pool else None

        # -- rules ---------------------------------------------------------------------------------
        @precondition(lambda self: len(self.objs) < MAX_OBJECTS)
        @rule(w=st.integers(0, len(WIDTHS) - 1), base=st.sampled_from(BASE_SEEDS), rel=st.sampled_from(RELATIONS),
              like=st.integers(0, MAX_OBJECTS - 1), variant=st.integers(0, 3))
        def create(self, w: int, base: int, rel: str, like: int, variant: int) -> None:
            """Make an object and fit it on X: a new seed, or a living object's configuration with the same seed, a
            seed far from it, or one kernel parameter moved."""
            m, rs, params = s.widths[w % len(s.widths)], base, dict(s.base)
            if rel != "new" and self.objs:
                ref = self.objs[like % len(self.objs)]
                m, rs, params = ref.m, ref.seed, dict(ref.params)
                if rel == "parameter" and s.variants:
                    k, v = s.variants[variant % len(s.variants)]
                    params[k] = v if params.get(k) != v else s.base[k]
                elif rel in FAR_SEEDS:
                    rs = _far(rel, ref.seed)
            self._make(m, rs, params)

        @precondition(lambda self: bool(self.objs) and len(self.objs) < MAX_OBJECTS and bool(s.variants))
        @rule(like=st.integers(0, MAX_OBJECTS - 1), variant=st.integers(0, 3))
        def vary(self, like: int, variant: int) -> None:
            """Make an object that differs from a living one in one kernel parameter only, and fit it on X."""
            ref = self.objs[like % len(self.objs)]
            k, v = s.variants[variant % len(s.variants)]
            params = dict(ref.params)
            params[k] = v if params.get(k) != v else s.base[k]
            self._make(ref.m, ref.seed, params)

        def _make(self, m: int, rs: int, params: Mapping[str, Any]) -> None:
            o = _Obj(NAMES[self.made % len(NAMES)] + ("" if self.made < len(NAMES) else str(self.made)), m, rs,
                     tuple(sorted(params.items())))
            try:
                o.obj = s.build(o)
            except PluginError as exc:
                if refusal_of(exc) is None and rs <= s.seed_hi:
                    self.lines.append(s.make_line(o))
                    self.fail(f"{s.make_line(o)} failed: {exc}")
                log.refuse(f"random_state > {s.seed_hi}" if rs > s.seed_hi else s.make_line(o).split(" = ", 1)[1], exc)
                return
            self.made += 1
            self.lines.append(s.make_line(o))
            if s.form == "function":
                o.fit_on = "X"
                self.objs.append(o)
                return
            try:
                o.obj = s.fit(o, o.obj, self.X)
            except PluginError as exc:
                self.lines.append(f"{o.name}.fit(X)")
                if refusal_of(exc) is None and rs <= s.seed_hi:
                    self.fail(f"{o.name}.fit(X) failed: {exc}")
                log.refuse(f"random_state > {s.seed_hi}" if rs > s.seed_hi else "fit of X", exc)
                self.lines.pop()
                self.lines.pop()
                return
            self.lines.append(f"{o.name}.fit(X)")
            o.fit_on, o.fit_values = "X", np.array(self.X, dtype=np.float64)
            self.objs.append(o)

        @precondition(lambda self: bool(self.objs) and s.form != "function")
        @rule(i=st.integers(0, MAX_OBJECTS - 1), data=st.sampled_from(("X", "fresh")), seed=st.integers(3, 6))
        def fit(self, i: int, data: str, seed: int) -> None:
            """Fit (or refit) an object on X or on fresh data."""
            o = self._pick(i, fitted=False)
            X, code = (self.X, "X") if data == "X" else (s.batch(ROWS, seed), s.batch_code(ROWS, seed))
            line = f"{o.name}.fit({code})"
            self.lines.append(line)
            try:
                o.obj = s.fit(o, o.obj, X)
            except PluginError as exc:
                if refusal_of(exc) is None and o.seed <= s.seed_hi:
                    self.fail(f"{line} failed: {exc}")
                log.refuse(f"random_state > {s.seed_hi}" if o.seed > s.seed_hi else f"fit of {code}", exc)
                self.objs.remove(o)
                return
            o.fit_on, o.fit_values = code, np.array(X, dtype=np.float64)

        @precondition(lambda self: any(o.fit_on is not None for o in self.objs))
        @rule(i=st.integers(0, MAX_OBJECTS - 1), how=st.sampled_from(INPUTS), seed=st.integers(10, 13))
        def transform(self, i: int, how: str, seed: int) -> None:
            """Transform an input: X again, fresh data, the refilled buffer, one row, a slice, a strided view, or
            the values of X in another type."""
            o = self._pick(i)
            code = "X"
            if how == "X":
                Xin = self.X
            elif how == "B":
                Xin, code = self.B, "B"
            elif how == "fresh":
                Xin, code = s.batch(ROWS, seed), s.batch_code(ROWS, seed)
            elif how == "refill":
                seed = seed if not np.array_equal(self.B, s.batch(ROWS, seed)) else seed + 1  # new values
                self.B[...] = s.batch(ROWS, seed)
                self.lines.append(f"B[...] = {s.batch_code(ROWS, seed)}")
                Xin, code = self.B, "B"
            elif how == "row":
                Xin, code = self.X[:1], "X[:1]"
            elif how == "slice":
                Xin, code = self.X[2:5], "X[2:5]"
            elif how == "strided":
                Xin, code = self.X[::2], "X[::2]"
            else:
                if not s.typed:
                    return
                Xin, code, _ = _typed(self.X, how, s.scale)
            X64 = np.array(_typed(self.X, how, s.scale)[2] if how in INPUT_TYPES else Xin, dtype=np.float64)
            self.n_out += 1
            var = f"F{self.n_out}"
            line = (f"{var} = make({code}, **{o.name})" if s.form == "function"
                    else f"{var} = {o.name}.transform({code})")
            self.lines.append(line)
            try:
                F = s.transform(o, o.obj, Xin)
            except PluginError as exc:
                if refusal_of(exc) is None:
                    self.fail(f"{line} failed: {exc}")
                log.refuse(f"{how} input" if how in INPUT_TYPES else f"transform of {code}", exc)
                self.lines.pop()
                return
            o.calls += 1
            log.max_calls_per_object = max(log.max_calls_per_object, o.calls)
            self._judge(o, F, X64, var, how, code)

        @precondition(lambda self: any(o.fit_on is not None for o in self.objs))
        @rule(i=st.integers(0, MAX_OBJECTS - 1), seed=st.integers(10, 13))
        def refill(self, i: int, seed: int) -> None:
            """Transform the buffer B, refill it in place with new values, transform the same array object again."""
            o = self._pick(i)
            self.transform(i, "B", seed)
            if o in self.objs:
                self.transform(i, "refill", seed)

        @precondition(lambda self: any(o.fit_on is not None for o in self.objs))
        @rule(i=st.integers(0, MAX_OBJECTS - 1), many=st.sampled_from((False,) * 5 + (True,)))
        def repeat(self, i: int, many: bool) -> None:
            """Call transform many times on one row (the call-count axis: once per sequence past 1,000 calls, else 3
            times): every call gives the same features."""
            o = self._pick(i)
            k = long_calls if many and not self.long_done else 3  # one long run per sequence: the budget
            self.long_done = self.long_done or k == long_calls
            x = self.X[1:2]
            call_code = f"make(X[1:2], **{o.name})" if s.form == "function" else f"{o.name}.transform(X[1:2])"
            self.lines.append(f"for call in range({k}):\n    F = {call_code}")
            first = None
            for call in range(k):
                try:
                    F = np.array(s.transform(o, o.obj, x))
                except PluginError as exc:
                    self.fail(f"call {call + 1} of {o.name}.transform(X[1:2]) failed: {exc}")
                o.calls += 1
                if first is None:
                    first, tol = F, contract_tolerance(s.d, F)
                elif _diff(F, first) > tol:
                    self.fail(f"{o.name}.transform(X[1:2]) changed at its call {o.calls} (the {call + 1}-th of the "
                              f"loop): {_row(F)} after {_row(first)} (max difference {_diff(F, first):.3g}, round-off "
                              f"tolerance {tol:.3g})", "a code path taken after many calls (a warm path, a counter) "
                              "that computes differently")
            log.max_calls_per_object = max(log.max_calls_per_object, o.calls)
            log.judge("repeat")

        # -- invariants ----------------------------------------------------------------------------
        @invariant()
        def earlier_outputs_unchanged(self) -> None:
            log.steps += 1
            for line, returned, copy in self.outputs:
                if not np.array_equal(returned, copy):
                    self.fail(f"the array returned by `{line}` was changed by a later call (max change "
                              f"{_diff(returned, copy):.3g}; now {_row(returned)}, was {_row(copy)})",
                              "an internal buffer returned and overwritten by the next call — return a copy")

        def _judge(self, o: _Obj, F: np.ndarray, X64: np.ndarray, var: str, how: str, code: str) -> None:
            self.outputs = self.outputs[-32:] + [(self.lines[-1], F, np.array(F, copy=True))]
            F = np.array(F)
            Fr, tol = s.reference(o, X64)
            log.judge("replay")
            d = _diff(F, Fr)
            if F.shape != Fr.shape:
                self.fail(f"{var} = {o.name}.transform({code}) returned shape {F.shape}; a fresh object made with the "
                          f"same arguments, fitted on the same data ({o.fit_on}), returns {Fr.shape} for the same "
                          f"values",
                          "the output depends on something besides the object's configuration, seed and input: state "
                          "shared between objects (a class attribute, a module-level cache)")
            if d > tol:
                j = int(np.argmax(np.max(np.abs(F - Fr), axis=1))) if F.shape == Fr.shape else 0
                if how in INPUT_TYPES:
                    log.judge(how)
                    zero = " (every feature 0: the input truncated?)" if F.size and not np.any(F) else ""
                    self.fail(f"{how} input gave features differing from the float64 features of the same values by "
                              f"up to {d:.3g} (round-off tolerance {tol:.3g}){zero}: row {j} = {_row(X64[j], 6)} gave "
                              f"{_row(F[j] if F.shape == Fr.shape else F)}, float64 gives {_row(Fr[j])}",
                              f"{how} input converted wrongly (truncated, wrapped or read as another type) — convert "
                              f"with np.asarray(X, dtype=float) as scikit-learn's check_array does")
                self.fail(f"{var} = {o.name}.transform({code}) differs from a fresh object made with the same "
                          f"arguments, fitted on the same data ({o.fit_on}), transforming the same values, by up to "
                          f"{d:.3g} (round-off tolerance {tol:.3g}): row {j} gave {_row(F[j] if F.ndim == 2 else F)}, "
                          f"the fresh object {_row(Fr[j])}",
                          "the output depends on something besides the object's configuration, seed and input: state "
                          "shared between objects (a class attribute, a module-level cache), a memo keyed by the "
                          "array's identity, or a counter of calls")
            if how in INPUT_TYPES:
                log.judge(how)
            self._compare_objects(o, Fr, tol, var, X64, code)

        def _compare_objects(self, o: _Obj, F: np.ndarray, tol: float, var: str, X64: np.ndarray, code: str) -> None:
            """Against a fresh object of each other living configuration that differs from ``o``'s in random_state
            only (data-independent random maps) or in one kernel parameter only: its features must differ."""
            for other in self.objs:
                if other is o or other.m != o.m or (s.data_dependent and other.fit_on != o.fit_on):
                    continue
                moved = [k for (k, v), (_, w) in zip(o.params, other.params) if v != w]
                seeds = other.seed != o.seed and not moved and not s.data_dependent and not s.deterministic
                param = other.seed == o.seed and len(moved) == 1 and len(o.params) == len(other.params)
                if not (seeds or param):
                    continue
                ref = _Obj(other.name, other.m, other.seed, other.params, fit_on=o.fit_on, fit_values=o.fit_values)
                try:
                    G, tol_g = s.reference(ref, X64)
                except PluginError:
                    continue  # judged where that object itself is transformed
                what = "parameter-matters" if param else "seeds-differ"
                log.judge(what)
                diff = _diff(F, G)
                if diff > max(tol, tol_g):
                    continue
                args = s.make_line(ref).split(" = ", 1)[1]
                fresh = (f"G = {args}.fit({o.fit_on}).transform({code})" if s.form != "function"
                         else f"G = make({code}, n_components={ref.m}, random_state={ref.seed})")
                self.lines.append(f"{fresh}  # a fresh object with {other.name}'s arguments: the same features "
                                  f"as {var}")
                if param:
                    self.fail(f"{o.name} and {other.name} differ only in {moved[0]} ({dict(o.params)[moved[0]]!r} vs "
                              f"{dict(other.params)[moved[0]]!r}) but give the same features on {code} (max difference "
                              f"{diff:.3g}, round-off tolerance {max(tol, tol_g):.3g}): {_row(F[0])} and {_row(G[0])}",
                              f"{moved[0]} is ignored, or a draw is cached without it (a cache keyed by (random_state, "
                              f"d, n_components) only) — key any cache by the whole configuration")
                lo, hi = sorted((o.seed, other.seed))
                if hi > s.seed_hi:  # beyond the declared random_state range: stated, not judged
                    log.beyond.setdefault(f"random_state={hi} gives the features of random_state={lo}",
                                          f"{hi - lo:#x} apart")
                    self.lines.pop()
                    continue
                self.fail(f"random_state={o.seed} ({o.name}) and random_state={other.seed} ({other.name}) give the "
                          f"same "
                          f"features on {code} (max difference {diff:.3g}, round-off tolerance {max(tol, tol_g):.3g}); "
                          f"the seeds differ by {hi - lo:#x}: {_row(F[0])} and {_row(G[0])}",
                          "seeds folded (to 16 or 32 bits, or hashed) before seeding — pass the whole seed to the "
                          "generator (np.random.default_rng(seed) takes any non-negative integer)")

    return FeatureMapMachine


def run_machine(ctx: CheckContext, *, runs: int, steps: int, long_calls: int, seed: int) -> _Log:
    """Run the state machine ``runs`` times (at most ``steps`` steps each), seeded, silent, no example database;
    the log holds the shrunk failure (``last``; ``first`` when the replay did not fail again)."""
    log = _Log()
    session = _Session(ctx, log)
    machine = _machine(session, log, long_calls)
    machine._hypothesis_internal_use_seed = int(seed)  # what hypothesis.seed() sets; stateful tests honour it
    conf = settings(max_examples=max(1, runs), stateful_step_count=max(1, steps), database=None, deadline=None,
                    derandomize=False, phases=(Phase.explicit, Phase.generate, Phase.shrink),
                    verbosity=Verbosity.quiet, suppress_health_check=list(HealthCheck), report_multiple_bugs=False,
                    print_blob=False)
    log.replayed = True  # type: ignore[attr-defined]
    try:
        with with_reporter(lambda *a, **k: None), search_constants_hidden(), np.errstate(all="ignore"), \
                warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a plug-in's warnings (n_components > rows) are not findings here
            run_state_machine_as_test(machine, settings=conf)
    except _Failure:
        pass
    except Flaky:
        log.replayed = False  # type: ignore[attr-defined]
    except BaseException as exc:  # an exception group holding our failure
        if not _holds_failure(exc):
            raise
    log.session = session  # type: ignore[attr-defined]
    return log


def _holds_failure(exc: BaseException) -> bool:
    if isinstance(exc, _Failure):
        return True
    return any(_holds_failure(e) for e in getattr(exc, "exceptions", ()) or ())


@register_check("feature-map", "stateful", statistical=False,
                cost="quick 8, default 20, thorough 120 call sequences of up to 10/12/16 steps; runs of 1,001/1,050/"
                     "10,000 calls")
def check_stateful(ctx: CheckContext) -> CheckResult:
    """An object with a history: sequences of constructor, fit, refit and transform calls across several living
    objects, checked after every step by a Hypothesis state machine and shrunk to the shortest failing program.

    Property: an object's output depends only on its own configuration, random_state and input — it equals a
    fresh object's made with the same arguments, fitted on the same data, transforming the same values, whatever
    other objects exist, were fitted or called before, and however often this one was called (runs past 1,000
    calls per object; thorough 10,000); an array returned earlier is not changed by later calls; transforming
    the same array object again after refilling it in place gives the new values' features; objects that differ
    in one kernel parameter only give different features; objects that differ in random_state only give
    different features (data-independent random maps), including seeds far apart (s and s + 2^16, s + 2^31,
    2^32 - 1, and 63-bit seeds where the plug-in accepts them); int32, int64, uint8, bool and float16 input, and
    Python lists and tuples, give the float64 features of the same values, or are refused cleanly.
    Test: a ``hypothesis.stateful.RuleBasedStateMachine`` (rules create, vary, fit, transform, refill, repeat), run for
    quick 8, default 20, thorough 120 sequences of up to 10/12/16 steps, seeded from the check key (derandomised, no
    example database); every comparison allows the round-off tolerance ``explore`` uses (``256 gamma_{d+2}
    max|Phi|``, or ``8 (d + 2)`` times the features' change under a one-ulp perturbation of the input if
    larger); a failure is shrunk by Hypothesis and printed as a runnable program.  No randomness is judged, so
    no alpha.
    Applies to: every feature map (a function form: module-level state and input types only; data-dependent maps
    and maps declared deterministic: not "different seeds give different features").
    Refusals (:mod:`rfverify.refusals`): a constructor, fit or transform that refuses cleanly (ValueError,
    TypeError, NotImplementedError) — an input type, a one-row batch, a seed — is set aside and stated in
    ``details["refused"]``; a seed beyond the declared random_state range that the plug-in does not accept in
    any way is set aside too, and one it accepts but folds onto another seed is stated
    (``details["beyond_seed_range"]``), not failed: it lies outside the space the verdict covers.  A silent
    truncation is a failure with the values shown.
    Reference: Hypothesis' rule-based state machines (MacIver et al., JOSS 2019); the plug-in contract (README).
    """
    runs, steps = RUNS.get(ctx.profile.name, RUNS["default"])
    long_calls = LONG_CALLS.get(ctx.profile.name, LONG_CALLS["default"])
    seed = ctx.random_state("stateful", trial=0)
    log = run_machine(ctx, runs=runs, steps=steps, long_calls=long_calls, seed=seed)
    session: _Session = log.session  # type: ignore[attr-defined]
    details: dict[str, Any] = {"sequences": log.runs, "steps": log.steps, "plugin_calls": log.calls,
                               "max_calls_per_object": log.max_calls_per_object, "long_run_calls": long_calls,
                               "judged": dict(sorted(log.judged.items())), "refused": dict(sorted(log.refused.items())),
                               "beyond_seed_range": dict(sorted(log.beyond.items())),
                               "d": session.d, "widths": list(session.widths),
                               "kernel_parameter_variants": [list(v) for v in session.variants],
                               "input_types": list(INPUT_TYPES) if session.typed else []}
    refused = "; ".join(f"refuses {k} ({v})" for k, v in sorted(log.refused.items()))
    if log.beyond:  # a statement, never a failure: those seeds are outside the space the verdict covers
        refused = "; ".join(filter(None, [refused, "beyond the declared random_state range (not judged): " + "; ".join(
            sorted(log.beyond))]))
    found = log.last if getattr(log, "replayed", True) else log.first
    if found is None:
        types = "" if session.typed else " (input types not tried: the input domain is not R^d)"
        return ctx.result("pass", f"{log.runs} call sequences ({log.calls} plug-in calls, up to "
                          f"{log.max_calls_per_object} calls per object): every object's output was its own{types}"
                          + (f"; set aside: {refused}" if refused else ""), statistic=float(log.runs),
                          details=details)
    program = program_text(found.program, session.preamble())
    replay = ctx.reproduce
    details["program"] = program
    details["replay"] = replay
    details["replayed"] = getattr(log, "replayed", True)
    shown = ("the shortest failing sequence, shrunk by Hypothesis" if details["replayed"] else
             "as first found, not shrunk: the failure did not happen again when replayed")
    steps = sum(1 for line in found.program if not line.startswith(" "))
    note = (f"the program ({shown}; `make` is the plug-in):\n{program}\nreplay: {replay}"
            + (f"\nset aside: {refused}" if refused else ""))
    result = ctx.fail("an object's output depends on its history (the calls before it)", found.problem,
                      "every object's output depends only on its own configuration, random_state and input",
                      where=f"after a sequence of {steps} calls, printed below as a program", cause=found.cause,
                      note=note, statistic=float(log.runs), details=details)
    return replace(result, reproduce=replay)

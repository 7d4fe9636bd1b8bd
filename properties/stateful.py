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

from dataclasses import dataclass, replace
from typing import Callable

import numpy as np
from hypothesis import strategies as st
from hypothesis.stateful import precondition, rule

from rfverify.adapters import FeatureMapPlugin
from rfverify import guard
from rfverify.arrays import to_numpy
from rfverify.errors import PluginError
from rfverify.kinds.feature_map import CheckContext
from rfverify.profiles import budget
from rfverify.properties.stateful_base import (FAR_SEEDS, INPUT_TYPES, not_accepted, Log, MachineBase, diff, far_seed,
                                               machine_result, program_text, row_text, run_machine, typed_input)
from rfverify.refusals import refusal_of
from rfverify.registry import PluginObject, register_check, PluginArray
from rfverify.results import CheckResult, JSONRecord, JSONValue
from rfverify.spaces import length_scale_of
from rfverify.strategies import make_batch
from rfverify.tolerances import contract_tolerance, roundoff_inner_product, unit_roundoff

__all__ = ["check_stateful", "FAR_SEEDS", "INPUT_TYPES", "program_text", "fresh_features"]

#: The budgets (``stateful``: sequences and steps; ``stateful-long-calls``: the call-count axis) are in
#: :data:`rfverify.profiles.BUDGETS`: quick a small fixed budget (its cost stays within the noise of a quick run, no
#: long run), default and thorough the search (past 1,000 calls of one object; thorough 10^4).
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
_far, _diff, _row, _typed = far_seed, diff, row_text, typed_input


@dataclass
class _Obj:
    """One object the program made: its name, configuration, what it was last fitted on, its calls."""

    name: str
    m: int
    seed: int
    params: tuple[tuple[str, float], ...]
    obj: PluginObject = None
    fit_on: str | None = None  # the data name it was last fitted on (None: not fitted)
    fit_values: np.ndarray | None = None
    calls: int = 0


def _transform_call(plug: FeatureMapPlugin, obj: PluginObject, X: PluginArray, m: int, seed: int) -> np.ndarray:
    """``obj.transform(X)`` through the adapter (a function form called with its arguments, a torch input
    converted); the returned array itself, not a copy."""
    if plug.form == "function" and not plug.calls.declared() and not plug.passthrough:
        Xin = plug.to_input(X, None) if isinstance(X, np.ndarray) else X
        out = guard.call(obj, Xin, m, seed, plugin=plug.name, action="transform")
    elif isinstance(X, np.ndarray) or plug.form == "function":  # the declared method, keywords, names
        out, _ = plug.features_call(obj, X, m, seed)
    else:
        method = getattr(obj, plug.calls.method or "transform", None) or obj  # a torch module: forward
        out = guard.call(method, X, **plug.calls.call_kw, plugin=plug.name, action="transform")
    if isinstance(out, np.ndarray):  # the returned object itself (not a copy): a later call must leave it unchanged
        return out
    return guard.as_array(to_numpy(out, plugin=plug.name, action="transform", record=plug.arrays),
                          plugin=plug.name, action="transform", complex_ok=True)


def fresh_features(plug: FeatureMapPlugin, m: int, seed: int, fit_values: np.ndarray | None, X: PluginArray) -> np.ndarray:
    """A new object ``plug.build(m, seed)`` fitted on ``fit_values`` transforming ``X``: what a fresh interpreter
    computes to confirm a finding (:func:`rfverify.fresh.run_fresh`)."""
    obj = plug.build(m, seed)
    if plug.form != "function" and fit_values is not None:
        obj = plug.fit_built(obj, m, seed, fit_values).obj
    return np.array(_transform_call(plug, obj, X, m, seed))


class _Session:
    """The plug-in as the machine calls it (each call through :func:`rfverify.guard.call`) and the fresh-object
    replays the invariants compare with."""

    def __init__(self, ctx: CheckContext, log: Log) -> None:
        self.ctx, self.log = ctx, log
        space = ctx.space
        self.plug = ctx.plugin
        self.form = ctx.plugin.form
        #: The method the program calls for features (declared with --method; transform by default).
        self.meth = ctx.plugin.calls.method or "transform"
        self.d = min(max(int(ctx.dim), space.d.lo), space.d.hi)
        self.base = dict(sorted({**dict(ctx.kernel.params), **space.held}.items()))
        self.base = {k: v for k, v in self.base.items() if k in ctx.plugin.passthrough or k in space.params}
        self.widths = tuple(sorted({min(max(w, space.n_components.lo), space.n_components.hi) for w in WIDTHS}))
        self.seed_hi = space.random_state.hi
        # one kernel parameter moved by a factor 2 within its search range (objects differing in it only)
        self.variants: list[tuple[str, float]] = []
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
    def _kwargs(self, o: _Obj) -> dict[str, object]:
        return self.plug.passthrough_at(o.params)

    def build(self, o: _Obj) -> PluginObject:
        plug = replace(self.plug, passthrough=self._kwargs(o), widths={})
        self.log.calls += 1
        return plug.build(o.m, o.seed)

    def make_line(self, o: _Obj) -> str:
        extra = "".join(f", {k}={v!r}" for k, v in o.params if k in self.plug.passthrough)
        names = [(self.plug.calls.name_of("n_components"), o.m), (self.plug.calls.name_of("random_state"), o.seed)]
        drawn = ", ".join(f"{k}={v}" for k, v in names if k)
        if self.form == "function":
            return f"{o.name} = dict({drawn}{extra})  # make(X, **{o.name})"
        if self.form == "factory":
            return f"{o.name} = make({o.m}, {o.seed}{extra})"
        return f"{o.name} = make({drawn}{extra})"

    def fit(self, o: _Obj, obj: PluginObject, X: np.ndarray) -> PluginObject:
        """Fit through the adapter (the declared global generator seeded around fit, a torch input converted)."""
        if self.form == "function":
            return obj
        self.log.calls += 1
        return self.plug.fit_built(obj, o.m, o.seed, X).obj

    def transform(self, o: _Obj, obj: PluginObject, X: PluginArray) -> np.ndarray:
        self.log.calls += 1
        return _transform_call(self.plug_of(o) if self.form == "function" else self.plug, obj, X, o.m, o.seed)

    def plug_of(self, o: _Obj) -> FeatureMapPlugin:
        """The adapter building ``o``'s configuration (what a fresh interpreter is handed)."""
        return replace(self.plug, passthrough=self._kwargs(o), widths={})

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


#: The transform inputs a step draws: each (label, whether it needs the typed inputs).
INPUTS = ("X", "refill", "X", "refill", "fresh", "row", "slice", "strided") + INPUT_TYPES
#: How a new object relates to a living one (``new``: a fresh configuration).
RELATIONS = ("new", "parameter", "s + 2**16", "same", "parameter", "s + 2**16", "new") + FAR_SEEDS[1:]


class FeatureMapMachine(MachineBase):
    """The feature-map state machine: objects made, fitted and used by its rules, judged against fresh objects.

    Module level, parametrised by the check run: :func:`_machine` makes a subclass carrying the run's session
    (``s``: the plug-in, its inputs and references), its log and its long-call budget."""

    s: _Session
    long_calls: int

    def __init__(self) -> None:
        super().__init__()
        self.objs: list[_Obj] = []
        self.made = 0
        self.X = self.s.batch(ROWS, 1)
        self.B = self.s.batch(ROWS, 2)
        self.n_out = 0
        self.long_done = False

    # -- helpers -------------------------------------------------------------------------------
    def _pick(self, i: int, fitted: bool = True) -> _Obj:
        """The ``i``-th living (fitted) object, cyclically; every rule that picks has a precondition that one
        exists."""
        pool = [o for o in self.objs if o.fit_on is not None or not fitted]
        if not pool:  # pragma: no cover - excluded by the rules' preconditions
            raise RuntimeError("no object to pick: a rule ran without its precondition")
        return pool[i % len(pool)]

    # -- rules ---------------------------------------------------------------------------------
    @precondition(lambda self: len(self.objs) < MAX_OBJECTS)
    @rule(w=st.integers(0, len(WIDTHS) - 1), base=st.sampled_from(BASE_SEEDS), rel=st.sampled_from(RELATIONS),
          like=st.integers(0, MAX_OBJECTS - 1), variant=st.integers(0, 3))
    def create(self, w: int, base: int, rel: str, like: int, variant: int) -> None:
        """Make an object and fit it on X: a new seed, or a living object's configuration with the same seed, a
        seed far from it, or one kernel parameter moved."""
        m, rs, params = self.s.widths[w % len(self.s.widths)], base, dict(self.s.base)
        if rel != "new" and self.objs:
            ref = self.objs[like % len(self.objs)]
            m, rs, params = ref.m, ref.seed, dict(ref.params)
            if rel == "parameter" and self.s.variants:
                k, v = self.s.variants[variant % len(self.s.variants)]
                params[k] = v if params.get(k) != v else self.s.base[k]
            elif rel in FAR_SEEDS:
                rs = _far(rel, ref.seed)
        self._make(m, rs, params)

    @precondition(lambda self: bool(self.objs) and len(self.objs) < MAX_OBJECTS and bool(self.s.variants))
    @rule(like=st.integers(0, MAX_OBJECTS - 1), variant=st.integers(0, 3))
    def vary(self, like: int, variant: int) -> None:
        """Make an object that differs from a living one in one kernel parameter only, and fit it on X."""
        ref = self.objs[like % len(self.objs)]
        k, v = self.s.variants[variant % len(self.s.variants)]
        params = dict(ref.params)
        params[k] = v if params.get(k) != v else self.s.base[k]
        self._make(ref.m, ref.seed, params)

    def _make(self, m: int, rs: int, params: JSONRecord) -> None:
        o = _Obj(NAMES[self.made % len(NAMES)] + ("" if self.made < len(NAMES) else str(self.made)), m, rs,
                 tuple(sorted(params.items())))
        try:
            o.obj = self.s.build(o)
        except PluginError as exc:
            if refusal_of(exc) is None and rs <= self.s.seed_hi:
                self.lines.append(self.s.make_line(o))
                self.fail(f"{self.s.make_line(o)} failed: {exc}")
            self.log.refuse(f"random_state > {self.s.seed_hi}" if rs > self.s.seed_hi else self.s.make_line(o).split(" = ", 1)[1], exc)
            return
        self.made += 1
        self.lines.append(self.s.make_line(o))
        if self.s.form == "function":
            o.fit_on = "X"
            self.objs.append(o)
            return
        try:
            o.obj = self.s.fit(o, o.obj, self.X)
        except PluginError as exc:
            self.lines.append(f"{o.name}.fit(X)")
            if refusal_of(exc) is None and rs <= self.s.seed_hi:
                self.fail(f"{o.name}.fit(X) failed: {exc}")
            self.log.refuse(f"random_state > {self.s.seed_hi}" if rs > self.s.seed_hi else "fit of X", exc)
            self.lines.pop()
            self.lines.pop()
            return
        self.lines.append(f"{o.name}.fit(X)")
        o.fit_on, o.fit_values = "X", np.array(self.X, dtype=np.float64)
        self.objs.append(o)

    @precondition(lambda self: bool(self.objs) and self.s.form != "function")
    @rule(i=st.integers(0, MAX_OBJECTS - 1), data=st.sampled_from(("X", "fresh")), seed=st.integers(3, 6))
    def fit(self, i: int, data: str, seed: int) -> None:
        """Fit (or refit) an object on X or on fresh data."""
        o = self._pick(i, fitted=False)
        X, code = (self.X, "X") if data == "X" else (self.s.batch(ROWS, seed), self.s.batch_code(ROWS, seed))
        line = f"{o.name}.fit({code})"
        self.lines.append(line)
        try:
            o.obj = self.s.fit(o, o.obj, X)
        except PluginError as exc:
            if refusal_of(exc) is None and o.seed <= self.s.seed_hi:
                self.fail(f"{line} failed: {exc}")
            self.log.refuse(f"random_state > {self.s.seed_hi}" if o.seed > self.s.seed_hi else f"fit of {code}", exc)
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
            Xin, code = self.s.batch(ROWS, seed), self.s.batch_code(ROWS, seed)
        elif how == "refill":
            seed = seed if not np.array_equal(self.B, self.s.batch(ROWS, seed)) else seed + 1  # new values
            self.B[...] = self.s.batch(ROWS, seed)
            self.lines.append(f"B[...] = {self.s.batch_code(ROWS, seed)}")
            Xin, code = self.B, "B"
        elif how == "row":
            Xin, code = self.X[:1], "X[:1]"
        elif how == "slice":
            Xin, code = self.X[2:5], "X[2:5]"
        elif how == "strided":
            Xin, code = self.X[::2], "X[::2]"
        else:
            if not self.s.typed:
                return
            Xin, code, _ = _typed(self.X, how, self.s.scale)
        X64 = np.array(_typed(self.X, how, self.s.scale)[2] if how in INPUT_TYPES else Xin, dtype=np.float64)
        self.n_out += 1
        var = f"F{self.n_out}"
        line = (f"{var} = make({code}, **{o.name})" if self.s.form == "function"
                else f"{var} = {o.name}.{self.s.meth}({code})")
        self.lines.append(line)
        try:
            F = self.s.transform(o, o.obj, Xin)
        except PluginError as exc:
            if not not_accepted(exc, how):
                self.fail(f"{line} failed: {exc}")
            self.log.refuse(f"{how} input" if how in INPUT_TYPES else f"transform of {code}", exc)
            self.lines.pop()
            return
        o.calls += 1
        self.log.max_calls_per_object = max(self.log.max_calls_per_object, o.calls)
        self._judge(o, F, X64, var, how, code, Xin)

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
        k = self.long_calls if many and not self.long_done else 3  # one long run per sequence: the budget
        self.long_done = self.long_done or k == self.long_calls
        x = self.X[1:2]
        call_code = f"make(X[1:2], **{o.name})" if self.s.form == "function" else f"{o.name}.{self.s.meth}(X[1:2])"
        self.lines.append(f"for call in range({k}):\n    F = {call_code}")
        first = None
        for call in range(k):
            try:
                F = np.array(self.s.transform(o, o.obj, x))
            except PluginError as exc:
                self.fail(f"call {call + 1} of {o.name}.{self.s.meth}(X[1:2]) failed: {exc}")
            o.calls += 1
            if first is None:
                first, tol = F, contract_tolerance(self.s.d, F)
            elif _diff(F, first) > tol:
                self.fail(f"{o.name}.{self.s.meth}(X[1:2]) changed at its call {o.calls} (the {call + 1}-th of the "
                          f"loop): {_row(F)} after {_row(first)} (max difference {_diff(F, first):.3g}, round-off "
                          f"tolerance {tol:.3g})", "a code path taken after many calls (a warm path, a counter) "
                          "that computes differently")
        self.log.max_calls_per_object = max(self.log.max_calls_per_object, o.calls)
        self.log.judge("repeat")

    # -- invariants (returned arrays: MachineBase) -----------------------------------------------
    def _judge(self, o: _Obj, F: np.ndarray, X64: np.ndarray, var: str, how: str, code: str, Xin: PluginArray) -> None:
        self.keep(self.lines[-1], F)
        F = np.array(F)
        Fr, tol = self.s.reference(o, X64)
        self.log.judge("replay")
        d = _diff(F, Fr)
        if F.shape != Fr.shape:
            self.fail(f"{var} = {o.name}.{self.s.meth}({code}) returned shape {F.shape}; a fresh object made with the "
                      f"same arguments, fitted on the same data ({o.fit_on}), returns {Fr.shape} for the same "
                      f"values",
                      "the output depends on something besides the object's configuration, seed and input: state "
                      "shared between objects (a class attribute, a module-level cache)")
        if d > tol:
            j = int(np.argmax(np.max(np.abs(F - Fr), axis=1))) if F.shape == Fr.shape else 0
            fresh = (fresh_features, (self.s.plug_of(o), o.m, o.seed, o.fit_values, Xin))
            judge = _replay_judge(o.name, var, F, Fr, tol, how in INPUT_TYPES)
            if how in INPUT_TYPES:
                self.log.judge(how)
                zero = " (every feature 0: the input truncated?)" if F.size and not np.any(F) else ""
                self.fail(f"{how} input gave features differing from the float64 features of the same values by "
                          f"up to {d:.3g} (round-off tolerance {tol:.3g}){zero}: row {j} = {_row(X64[j], 6)} gave "
                          f"{_row(F[j] if F.shape == Fr.shape else F)}, float64 gives {_row(Fr[j])}",
                          f"{how} input converted wrongly (truncated, wrapped or read as another type) — convert "
                          f"with np.asarray(X, dtype=float) as scikit-learn's check_array does",
                          headline=f"{how} input gives other features than float64 input of the same values",
                          fresh=fresh, judge=judge)
            self.fail(f"{var} = {o.name}.{self.s.meth}({code}) differs from a fresh object made with the same "
                      f"arguments, fitted on the same data ({o.fit_on}), transforming the same values, by up to "
                      f"{d:.3g} (round-off tolerance {tol:.3g}): row {j} gave {_row(F[j] if F.ndim == 2 else F)}, "
                      f"the fresh object {_row(Fr[j])}",
                      "the output depends on something besides the object's configuration, seed and input: state "
                      "shared between objects (a class attribute, a module-level cache), a memo keyed by the "
                      "array's identity, or a counter of calls", fresh=fresh, judge=judge)
        if how in INPUT_TYPES:
            self.log.judge(how)
        self._compare_objects(o, Fr, tol, var, X64, code)

    def _compare_objects(self, o: _Obj, F: np.ndarray, tol: float, var: str, X64: np.ndarray, code: str) -> None:
        """Against a fresh object of each other living configuration that differs from ``o``'s in random_state
        only (data-independent random maps) or in one kernel parameter only: its features must differ."""
        for other in self.objs:
            if other is o or other.m != o.m or (self.s.data_dependent and other.fit_on != o.fit_on):
                continue
            moved = [k for (k, v), (_, w) in zip(o.params, other.params) if v != w]
            seeds = other.seed != o.seed and not moved and not self.s.data_dependent and not self.s.deterministic
            param = other.seed == o.seed and len(moved) == 1 and len(o.params) == len(other.params)
            if not (seeds or param):
                continue
            ref = _Obj(other.name, other.m, other.seed, other.params, fit_on=o.fit_on, fit_values=o.fit_values)
            try:
                G, tol_g = self.s.reference(ref, X64)
            except PluginError:
                continue  # judged where that object itself is transformed
            what = "parameter-matters" if param else "seeds-differ"
            self.log.judge(what)
            gap = _diff(F, G)
            if gap > max(tol, tol_g):
                continue
            args = self.s.make_line(ref).split(" = ", 1)[1]
            replay = (fresh_features, (self.s.plug_of(ref), ref.m, ref.seed, ref.fit_values, X64))
            judge = _other_judge(other.name, F, max(tol, tol_g), moved[0] if param else None)
            fresh = (f"G = {args}.fit({o.fit_on}).{self.s.meth}({code})" if self.s.form != "function"
                     else f"G = make({code}, **{self.s.make_line(ref).split(' = ', 1)[1].split('  #')[0]})")
            self.lines.append(f"{fresh}  # a fresh object with {other.name}'s arguments: the same features "
                              f"as {var}")
            if param:
                self.fail(f"{o.name} and {other.name} differ only in {moved[0]} ({dict(o.params)[moved[0]]!r} vs "
                          f"{dict(other.params)[moved[0]]!r}) but give the same features on {code} (max difference "
                          f"{gap:.3g}, round-off tolerance {max(tol, tol_g):.3g}): {_row(F[0])} and {_row(G[0])}",
                          f"{moved[0]} is ignored, or a draw is cached without it (a cache keyed by (random_state, "
                          f"d, n_components) only) — key any cache by the whole configuration",
                          fresh=replay, judge=judge)
            lo, hi = sorted((o.seed, other.seed))
            if hi > self.s.seed_hi:  # beyond the declared random_state range: stated, not judged
                self.log.beyond.setdefault(f"random_state={hi} gives the features of random_state={lo}",
                                      f"{hi - lo:#x} apart")
                self.lines.pop()
                continue
            self.fail(f"random_state={o.seed} ({o.name}) and random_state={other.seed} ({other.name}) give the "
                      f"same "
                      f"features on {code} (max difference {gap:.3g}, round-off tolerance {max(tol, tol_g):.3g}); "
                      f"the seeds differ by {hi - lo:#x}: {_row(F[0])} and {_row(G[0])}",
                      "seeds folded (to 16 or 32 bits, or hashed) before seeding — pass the whole seed to the "
                      "generator (np.random.default_rng(seed) takes any non-negative integer)",
                      headline="two distinct seeds give the same features", fresh=replay, judge=judge)


def _machine(session: _Session, log: Log, long_calls: int) -> type[MachineBase]:
    """The state machine class of one check run: :class:`FeatureMapMachine` bound to its session and log."""
    return type("FeatureMapMachine", (FeatureMapMachine,), {"s": session, "log": log, "long_calls": long_calls})


def _replay_judge(name: str, var: str, F: np.ndarray, Fr: np.ndarray, tol: float, typed: bool) -> Callable[[np.ndarray], tuple[str, str]]:
    """What the fresh interpreter's result of ``name``'s calls alone means, against the machine's ``F`` and the
    in-process fresh object's ``Fr``."""

    def judge(Fa: np.ndarray) -> tuple[str, str]:
        if _diff(Fa, Fr) <= tol:
            return (f"confirmed in a fresh Python process: {name}'s arguments there give the fresh object's "
                    f"features ({_row(np.asarray(Fa).ravel())}), not {var}'s", "")
        if _diff(Fa, F) <= tol:
            if typed:
                return ("a fresh Python process gives the same features for this input: the conversion itself, "
                        "not state", "")
            return (f"a fresh Python process gives {var}'s features, not the in-process fresh object's: state the "
                    f"earlier calls left in the process changed the fresh object",
                    "state kept in the module or the class (a module-level cache, a class attribute) that earlier "
                    "calls filled and later objects read — key any cache by the whole configuration, keep state on "
                    "the instance")
        return (f"a fresh Python process gives a third result ({_row(np.asarray(Fa).ravel())}, "
                f"{_diff(Fa, Fr):.3g} from the in-process fresh object)",
                "the output is not a function of the configuration, seed and input: global state, the clock, hash "
                "randomisation")

    return judge


def _other_judge(other: str, F: np.ndarray, tol: float, param: str | None) -> Callable[[np.ndarray], tuple[str, str]]:
    """What a fresh interpreter's features of ``other``'s arguments mean when the process gave ``F`` for both."""

    def judge(Ga: np.ndarray) -> tuple[str, str]:
        if _diff(Ga, F) > tol:
            what = f"{param} is used" if param else "the seeds give distinct draws"
            return (f"in a fresh Python process {other}'s arguments give other features "
                    f"({_row(np.asarray(Ga).ravel())}): {what} there, so the draw is shared through state in the "
                    f"process", f"a draw cached in the module or the class under a key without "
                    f"{param or 'the whole seed'} (a module-level cache) — key any cache by the whole configuration")
        if param:
            return (f"confirmed in a fresh Python process: {other}'s arguments give the same features there too",
                    f"{param} is ignored (not passed on to the draw)")
        return ("confirmed in a fresh Python process: the other seed gives the same features there too", "")

    return judge


def run_feature_map_machine(ctx: CheckContext, *, runs: int, steps: int, long_calls: int,
                            seed: int) -> tuple[Log, _Session]:
    """Run the feature-map machine (:func:`rfverify.properties.stateful_base.run_machine`): its log and session."""
    log = Log()
    session = _Session(ctx, log)
    return run_machine(_machine(session, log, long_calls), log, runs=runs, steps=steps, seed=seed), session


@register_check("feature-map", "stateful", statistical=False,
                cost="quick 3, default 20, thorough 120 call sequences of up to 6/12/16 steps; runs of 1,050/10,000 "
                     "calls (default/thorough)")
def check_stateful(ctx: CheckContext) -> CheckResult:
    """An object with a history: sequences of constructor, fit, refit and transform calls across several living
    objects, checked after every step by a Hypothesis state machine and shrunk to the shortest failing program.

    Property: an object's output depends only on its own configuration, random_state and input — it equals a
    fresh object's made with the same arguments, fitted on the same data, transforming the same values, whatever
    other objects exist, were fitted or called before, and however often this one was called (runs past 1,000
    calls per object at the default profile; thorough 10,000); an array returned earlier is not changed by later calls; transforming
    the same array object again after refilling it in place gives the new values' features; objects that differ
    in one kernel parameter only give different features; objects that differ in random_state only give
    different features (data-independent random maps), including seeds far apart (s and s + 2^16, s + 2^31,
    2^32 - 1, and 63-bit seeds where the plug-in accepts them); int32, int64, uint8, bool and float16 input, and
    Python lists and tuples, give the float64 features of the same values, or are refused cleanly.
    Test: a ``hypothesis.stateful.RuleBasedStateMachine`` (rules create, vary, fit, transform, refill, repeat), run for
    quick 3, default 20, thorough 120 sequences of up to 6/12/16 steps (quick: no long run, a smoke budget), seeded from the check key (derandomised, no
    example database); every comparison allows the round-off tolerance ``explore`` uses (``256 gamma_{d+2}
    max|Phi|``, or ``8 (d + 2)`` times the features' change under a one-ulp perturbation of the input if
    larger); a failure is shrunk by Hypothesis and printed as a runnable program, and the finding is recomputed
    in a fresh Python interpreter (:mod:`rfverify.fresh`), where no module-level cache survives, to say whether
    the state lives in the process or in the object.  No randomness is judged, so no alpha.
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
    runs, steps = budget(ctx.profile, "stateful")
    long_calls = int(budget(ctx.profile, "stateful-long-calls"))
    seed = ctx.random_state("stateful", trial=0)
    log, session = run_feature_map_machine(ctx, runs=runs, steps=steps, long_calls=long_calls, seed=seed)
    details: dict[str, JSONValue] = {"max_calls_per_object": log.max_calls_per_object, "long_run_calls": long_calls,
                               "d": session.d, "widths": list(session.widths),
                               "kernel_parameter_variants": [list(v) for v in session.variants],
                               "input_types": list(INPUT_TYPES) if session.typed else []}
    types = "" if session.typed else " (input types not tried: the input domain is not R^d)"
    return machine_result(ctx, log, details, preamble=session.preamble(),
                          passed=f"{log.runs} call sequences ({log.calls} plug-in calls, up to "
                                 f"{log.max_calls_per_object} calls per object): every object's output was its "
                                 f"own{types}",
                          headline="an object's output depends on its history (the calls before it)",
                          expected="every object's output depends only on its own configuration, random_state and "
                                   "input")

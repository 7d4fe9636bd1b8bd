"""Stateful conformance of samplers, rules and transforms: the plug-in explored as objects with a history.

The ``stateful`` check of the ``orthogonal``, ``quadrature`` and ``transform`` kinds: the feature-map machine
(:mod:`rfverify.properties.stateful`) with each kind's own calls.  Several copies of the plug-in are alive at once
(``copy.deepcopy`` of the object handed over: a function is its own copy), their calls interleaved; after every
step

* a sampler's or rule's draw at seed s equals a pristine copy's draw at seed s made just then in the same process
  (its draws do not depend on what was sampled before) — and, where it fails, in a fresh Python interpreter
  (:mod:`rfverify.containment.fresh`) to tell a module-level cache from state in the object;
* the same seed reproduces; distinct seeds, including seeds far apart (s + 2^16, s + 2^31, 2^32 - 1, 63-bit),
  give distinct draws (not for a rule declared deterministic); a second draw from one generator differs from the
  first;
* a transform's output equals a pristine copy's on the same values as float64 C-ordered (a refilled buffer, one
  row, a slice, a strided view, int32/int64/uint8/bool/float16 input, lists and tuples: the same values, or a
  clean refusal — a silent truncation fails with the values shown);
* every array returned earlier is unchanged (the last 32 kept; a rule's points and weights, a sampler's Q).
"""

from __future__ import annotations

import copy
import types
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, TypeVar, Union

import numpy as np
from numpy.typing import DTypeLike
from hypothesis import strategies as st
from hypothesis.stateful import precondition, rule

from rfverify.containment import guard
from rfverify.arrays import input_code, input_import
from rfverify.errors import PluginError, UsageError
from rfverify.kinds.orthogonal import OrthogonalSampler
from rfverify.kinds.quadrature import QuadraturePlugin
from rfverify.profiles import budget
from rfverify.properties.stateful_base import (FAR_SEEDS, INPUT_TYPES, not_accepted, Log, MachineBase, diff, far_seed,
                                               machine_result, row_text, run_machine, typed_input)
from rfverify.refusals import Refusal, refusal_of
from rfverify.registry import BaseContext, PluginArray, PluginObject, register_check
from rfverify.results import CheckResult
from rfverify.spaces import declared_space
from rfverify.tolerances import orthogonality_tolerance, roundoff_inner_product

if TYPE_CHECKING:
    from rfverify.kinds.orthogonal import OrthogonalContext
    from rfverify.kinds.quadrature import QuadratureContext
    from rfverify.kinds.transform import TransformContext, TransformPlugin

    #: The adapter of a plug-in that draws (a sampler's or a rule's).
    Sampler = Union[OrthogonalSampler, QuadraturePlugin]

T = TypeVar("T")

__all__ = ["check_stateful_sampler", "check_stateful_rule", "check_stateful_transform", "fresh_draw", "fresh_apply"]

#: The budgets are in :data:`rfverify.profiles.BUDGETS`: ``stateful-kinds`` (sequences generated, steps per
#: sequence; quick a small fixed budget, a smoke test) and ``stateful-repeats`` (calls of one ``repeat`` step, every
#: one must give the first call's result).
MAX_OBJECTS = 3
BASE_SEEDS = (0, 1, 12345)
NAMES = "abcghk"
ROWS = 8
#: How a draw's seed relates to an earlier one (``new``: one of BASE_SEEDS).
RELATIONS = ("new", "same", "s + 2**16", "new", "same", "s + 2**16") + FAR_SEEDS[1:]
#: Integer inputs of a transform are rint(40 X): values up to about 120, so a sum over a row leaves uint8's range.
TYPED_SCALE = 40
TRANSFORM_INPUTS = ("X", "fresh", "row", "slice", "strided")


# -- what a fresh interpreter computes (pickled with the pristine adapter) -------------------------------------
def fresh_draw(plugin: Sampler, d: int, seed: int) -> np.ndarray | tuple[np.ndarray, ...]:
    """``plugin.draw(d, np.random.default_rng(seed))`` (a sampler's Q, a rule's (points, weights))."""
    out = plugin.draw(d, np.random.default_rng(seed))
    return tuple(np.array(a) for a in out) if isinstance(out, tuple) else np.array(out)


def fresh_draws(plugin: Sampler, d: int, seeds: tuple[int | None, ...]) -> tuple[tuple[np.ndarray, ...], ...]:
    """Draws in a row from ``plugin``, one per seed (None: the generator of the draw before again): the first and
    the last."""
    rng: np.random.Generator | None = None
    out = []
    for seed in seeds:
        rng = np.random.default_rng(seed) if seed is not None else rng
        assert rng is not None, "the first seed of fresh_draws is an integer"
        out.append(tuple(np.array(a) for a in _arrays(plugin.draw(d, rng))))
    return out[0], out[-1]


def _pair_judge(same_expected: bool, what: str, tol: float) -> Callable:
    """What a fresh interpreter's first and last draw mean for a finding that they are the same (``again``) or
    that they differ (``repeat``)."""

    def judge(pair: tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]) -> tuple[str, str]:
        first, last = pair
        same = max(diff(a, b) for a, b in zip(first, last)) <= tol
        if same == same_expected:
            return f"confirmed in a fresh Python process: {what} there too", ""
        return ("in a fresh Python process not so: the finding needs state the earlier calls left in this process",
                "a generator or cache kept in the module or the class that earlier calls filled — use the rng "
                "passed in, keep state on the instance")

    return judge


def fresh_apply(plugin: TransformPlugin, X: PluginArray) -> np.ndarray:
    """``plugin(X)`` (a transform's rows M x)."""
    return np.array(apply_any(plugin, X))


def apply_any(plugin: TransformPlugin, X: PluginArray) -> np.ndarray:
    """A transform applied to an array (validated by the kind's adapter) or to a list or tuple of rows (the
    plug-in's own function, its output converted and its shape checked)."""
    if isinstance(X, np.ndarray):
        return plugin(X)
    action = f"apply on a {type(X).__name__} of rows"
    Y = guard.as_array(guard.call(plugin.fn, X, plugin=plugin.name, action=action), plugin=plugin.name,
                       action=action, complex_ok=True)
    if Y.shape != (len(X), len(X[0])):
        raise PluginError(plugin.name, f"{action} returned shape {Y.shape}", "return the rows M x as an (n, d) array")
    return Y


def _arrays(out: np.ndarray | tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    return out if isinstance(out, tuple) else (out,)


def _copy(obj: T) -> T:
    """A deep copy, or the object itself where it cannot be copied (then the copies share its state: stated in
    ``details["copies"]``)."""
    try:
        return copy.deepcopy(obj)
    except Exception:  # noqa: BLE001 - a plug-in's __deepcopy__ or an uncopyable member
        return obj


def _pristine(plugin: T) -> tuple[T, str]:
    """A deep copy of the plug-in adapter made before any call of the machine (the reference replay's object), and
    how it was made."""
    try:
        return copy.deepcopy(plugin), "copy.deepcopy"
    except Exception:  # noqa: BLE001 - an object that cannot be copied: itself (stated)
        return plugin, "the object itself (it cannot be deep-copied)"


def _import_line(spec: str | None, alias: str, describe: str) -> str:
    if spec and ":" in spec:
        mod, attr = spec.split(":", 1)
        return f"from {mod} import {attr} as {alias}" if "." not in attr else f"import {mod}; {alias} = {mod}.{attr}"
    return f"{alias} = ...  # the plug-in: {describe}"


@dataclass
class _Draw:
    """One draw the program made: which object, d, seed, the line, what it returned (a copy)."""

    obj: str
    d: int
    seed: int
    var: str
    values: tuple[np.ndarray, ...]


class _DrawSession:
    """A sampler or a rule as the machine calls it: copies of the plug-in, the call's code, the comparisons."""

    def __init__(self, ctx: BaseContext, plugin: Sampler, kind: str, log: Log) -> None:
        self.ctx, self.plugin, self.kind, self.log = ctx, plugin, kind, log
        self.pristine, self.copied = _pristine(plugin)
        self.instance = getattr(plugin, "form", "") in ("sample-method", "rvs") or (
            isinstance(plugin, QuadraturePlugin) and not getattr(plugin, "is_function", _is_function(plugin.rule)))
        self.deterministic = bool(getattr(ctx, "deterministic", False))
        d = int(getattr(ctx, "dim"))  # every sampler's and rule's context has the declared d
        declared = declared_space(plugin.obj if isinstance(plugin, OrthogonalSampler) else plugin.rule)
        dr = declared.get("d") if isinstance(declared, dict) else None
        lo, hi = dr if isinstance(dr, (tuple, list)) and len(dr) == 2 else (1, d)
        half = max(3, d // 2)
        de = declared.get("d_exp") if isinstance(declared, dict) else None
        if isinstance(de, (tuple, list)) and len(de) == 2:  # d = 2^k only: half of a power of two, in the range
            lo, hi = 2 ** int(de[0]), 2 ** int(de[1])
            half = half if half & (half - 1) == 0 else d
        # the declared d, and half of it (at least 3) where the plug-in's declared space holds it
        self.dims = tuple(sorted({d, half} if d >= 3 and int(lo) <= half <= int(hi) else {d}))
        self.alias = "sampler" if kind == "orthogonal" else "rule"

    def new_object(self) -> Sampler:
        return _copy(self.pristine) if self.instance else self.plugin

    def draw(self, obj: Sampler, d: int, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
        self.log.calls += 1
        try:
            return _arrays(obj.draw(d, rng))
        except UsageError as exc:  # a rule's own UsageError passes the kind's adapter: a clean refusal of this d
            err = PluginError(self.plugin.name, f"{self.alias}({d}, rng) refused: {exc}")
            err.refusal = Refusal("UsageError", str(exc).splitlines()[0][:200], f"{self.alias}({d}, rng)")
            raise err from None

    def call_code(self, name: str, d: int, rng: str) -> str:
        form = getattr(self.plugin, "form", "rule")
        rng = input_code(getattr(self.plugin, "input", None), rng, generator=True)
        target = name if self.instance else self.alias
        if form == "rvs":
            return f"{target}.rvs(dim={d}, random_state={rng})"
        if form == "sample-method":
            return f"{target}.sample({d}, {rng})"
        return f"{target}({d}, {rng})"

    def outputs(self, var: int) -> str:
        return f"Q{var}" if self.kind == "orthogonal" else f"P{var}, w{var}"

    def tolerance(self, values: tuple[np.ndarray, ...], d: int) -> float:
        if self.kind == "orthogonal":
            return orthogonality_tolerance(d, values[0].dtype)
        scale = max((float(np.max(np.abs(v))) for v in values if v.size), default=1.0)
        return 256.0 * roundoff_inner_product(d + 2, np.float64) * max(scale, 1e-300)

    def preamble(self) -> str:
        spec = getattr(self.plugin, "spec", None)
        extra = input_import(getattr(self.plugin, "input", None))
        return "\n".join(["import copy", "import numpy as np", *([extra] if extra else []),
                          _import_line(spec, self.alias, self.plugin.name)])


def _is_function(obj: PluginObject) -> bool:
    return isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)) or isinstance(obj, type)


class DrawMachine(MachineBase):
    """A sampler's or rule's state machine: copies of the plug-in drawing at related seeds, judged against a pristine copy.

    Module level, parametrised by the check run: :func:`_draw_machine` makes a subclass carrying the run's session
    (``s``), its log and its ``repeats``."""

    s: _DrawSession
    repeats: int

    def __init__(self) -> None:
        super().__init__()
        self.objs: dict[str, Sampler] = {}
        self.draws: list[_Draw] = []
        self.n = 0
        self.repeated = False
        if not self.s.instance:
            self.objs[self.s.alias] = self.s.plugin

    @precondition(lambda self: self.s.instance and len(self.objs) < MAX_OBJECTS)
    @rule()
    def create(self) -> None:
        """Another copy of the plug-in object alive."""
        name = NAMES[len(self.objs)]
        self.objs[name] = self.s.new_object()
        self.lines.append(f"{name} = copy.deepcopy({self.s.alias})")

    @precondition(lambda self: bool(self.objs))
    @rule(i=st.integers(0, MAX_OBJECTS - 1), k=st.integers(0, 1), base=st.sampled_from(BASE_SEEDS),
          rel=st.sampled_from(RELATIONS), like=st.integers(0, 7))
    def draw(self, i: int, k: int, base: int, rel: str, like: int) -> None:
        """A draw at a new seed, an earlier draw's seed again, or a seed far from it."""
        name = sorted(self.objs)[i % len(self.objs)]
        d, seed = self.s.dims[k % len(self.s.dims)], base
        if rel != "new" and self.draws:
            ref = self.draws[like % len(self.draws)]
            d, seed = ref.d, ref.seed if rel == "same" else far_seed(rel, ref.seed)
        self._draw(name, d, seed)

    def _draw(self, name: str, d: int, seed: int) -> _Draw | None:
        self.n += 1
        var = self.s.outputs(self.n)
        line = f"{var} = {self.s.call_code(name, d, f'np.random.default_rng({seed})')}"
        self.lines.append(line)
        try:
            got = self.s.draw(self.objs[name], d, np.random.default_rng(seed))
        except PluginError as exc:
            if refusal_of(exc) is None:
                self.fail(f"{line} failed: {exc}")
            self.log.refuse(f"d = {d}" if seed <= 2 ** 32 - 1 else f"seed {seed:#x}", exc)
            self.lines.pop()
            return None
        self.keep(line, *got)
        values = tuple(np.array(a) for a in got)
        self._judge(name, d, seed, var, values)
        new = _Draw(name, d, seed, var, values)
        self.draws = (self.draws + [new])[-16:]
        return new

    def _judge(self, name: str, d: int, seed: int, var: str, values: tuple[np.ndarray, ...]) -> None:
        try:
            ref = self.s.draw(self.s.new_object(), d, np.random.default_rng(seed))  # a copy never called before
        except PluginError as exc:
            self.pristine_failed(var, exc, f"seed {seed}, d = {d}")
        ref = tuple(np.array(a) for a in ref)
        tol = self.s.tolerance(ref, d)
        self.log.judge("replay")
        gap = max(diff(a, b) for a, b in zip(values, ref))
        if gap > tol:
            self.fail(f"{var} (drawn at seed {seed}, d = {d}) differs from a pristine copy's draw at the same "
                      f"seed made just after it by up to {gap:.3g} (round-off tolerance {tol:.3g}): "
                      f"{row_text(values[0])} vs {row_text(ref[0])}",
                      "the draw depends on what was sampled before: a generator kept between calls (a class "
                      "attribute, a module-level generator or cache, an instance's own generator) instead of "
                      "the rng passed in",
                      headline="a draw at seed s depends on what was sampled before",
                      fresh=(fresh_draw, (self.s.pristine, d, seed)), judge=_draw_judge(var, values, ref, tol))
        for other in self.draws:
            if other.d != d:
                continue
            gap = max(diff(a, b) for a, b in zip(values, other.values))
            if other.seed == seed:
                self.log.judge("same-seed")
                if gap > tol:
                    self.fail(f"{var} and {other.var}, both drawn at seed {seed} (d = {d}), differ by up to "
                              f"{gap:.3g} (round-off tolerance {tol:.3g})",
                              "the draw depends on state besides the rng passed in",
                              headline="the same seed does not reproduce the draw")
            elif not self.s.deterministic and d >= 2:  # O(1) = {1, -1}: two seeds share a draw half the time
                self.log.judge("seeds-differ")
                if gap <= tol:
                    lo, hi = sorted((seed, other.seed))
                    self.fail(f"{var} (seed {seed}) and {other.var} (seed {other.seed}) are the same draw (max "
                              f"difference {gap:.3g}); the seeds differ by {hi - lo:#x}: {row_text(values[0])}",
                              "seeds folded (to 16 or 32 bits, or hashed) before seeding — draw from the rng "
                              "passed in, or seed a child generator with rng.integers(2**63) or rng.spawn(1)",
                              headline="two distinct seeds give the same draw",
                              fresh=(fresh_draw, (self.s.pristine, d, other.seed)),
                              judge=_same_judge(other.var, values, tol))

    @precondition(lambda self: bool(self.objs) and not self.s.deterministic and self.s.dims[-1] >= 2)
    @rule(i=st.integers(0, MAX_OBJECTS - 1), base=st.sampled_from(BASE_SEEDS))
    def again(self, i: int, base: int) -> None:
        """Two draws from one generator: the second differs from the first (the generator advanced)."""
        name = sorted(self.objs)[i % len(self.objs)]
        d = self.s.dims[-1]
        self.n += 2
        v1, v2 = self.s.outputs(self.n - 1), self.s.outputs(self.n)
        self.lines.append(f"r = np.random.default_rng({base})")
        self.lines.append(f"{v1} = {self.s.call_code(name, d, 'r')}")
        self.lines.append(f"{v2} = {self.s.call_code(name, d, 'r')}")
        rng = np.random.default_rng(base)
        try:
            A = self.s.draw(self.objs[name], d, rng)
            self.keep(self.lines[-2], *A)
            A = tuple(np.array(a) for a in A)  # its values now: a returned buffer is judged by the invariant
            B = self.s.draw(self.objs[name], d, rng)
            self.keep(self.lines[-1], *B)
        except PluginError as exc:
            if refusal_of(exc) is None:
                self.fail(f"{self.lines[-1]} failed: {exc}")
            self.log.refuse(f"d = {d}", exc)
            del self.lines[-3:]
            return
        self.log.judge("generator-advances")
        gap = max(diff(a, b) for a, b in zip(A, B))
        if gap <= self.s.tolerance(tuple(np.array(a) for a in A), d):
            self.fail(f"two draws from one generator r are the same ({row_text(A[0])}; max difference {gap:.3g})",
                      "the generator passed in is not used (only its seed read, or a cached draw returned): draw "
                      "from rng itself",
                      headline="two draws from one generator give the same draw",
                      fresh=(fresh_draws, (self.s.pristine, d, (base, None))),
                      judge=_pair_judge(True, "the two draws from one generator are the same",
                                        self.s.tolerance(tuple(np.array(a) for a in A), d)))

    @precondition(lambda self: bool(self.objs) and not self.repeated)
    @rule(i=st.integers(0, MAX_OBJECTS - 1), base=st.sampled_from(BASE_SEEDS))
    def repeat(self, i: int, base: int) -> None:
        """The same seed many times (once per sequence): every call gives the first call's draw."""
        self.repeated = True
        name = sorted(self.objs)[i % len(self.objs)]
        d = self.s.dims[0]
        code = self.s.call_code(name, d, f"np.random.default_rng({base})")
        self.lines.append(f"for call in range({self.repeats}):\n    {self.s.outputs(0)} = {code}")
        first: tuple[np.ndarray, ...] | None = None
        for call in range(self.repeats):
            try:
                got = tuple(np.array(a) for a in self.s.draw(self.objs[name], d, np.random.default_rng(base)))
            except PluginError as exc:
                if refusal_of(exc) is None:
                    self.fail(f"call {call + 1} of {code} failed: {exc}")
                self.log.refuse(f"d = {d}", exc)
                self.lines.pop()
                return
            if first is None:
                first, tol = got, self.s.tolerance(got, d)
            elif max(diff(a, b) for a, b in zip(got, first)) > tol:
                self.fail(f"call {call + 1} of {code} gave {row_text(got[0])} after {row_text(first[0])}",
                          "a generator kept between calls (on the instance, in the class or the module) instead "
                          "of the rng passed in, or a code path taken after many calls",
                          headline="the same seed does not reproduce the draw",
                          fresh=(fresh_draws, (self.s.pristine, d, (base,) * (call + 1))),
                          judge=_pair_judge(False, f"call {call + 1} differs from the first", tol))
        self.log.judge("repeat")


def _draw_machine(s: _DrawSession, log: Log, repeats: int) -> type[MachineBase]:
    """The state machine class of one check run: :class:`DrawMachine` bound to its session and log."""
    return type("DrawMachine", (DrawMachine,), {"s": s, "log": log, "repeats": repeats})


def _draw_judge(var: str, values: tuple[np.ndarray, ...], ref: tuple[np.ndarray, ...], tol: float) -> Callable:
    def judge(fresh: np.ndarray | tuple[np.ndarray, ...]) -> tuple[str, str]:
        got = _arrays(fresh)
        if max(diff(a, b) for a, b in zip(got, ref)) <= tol:
            return (f"confirmed in a fresh Python process: the draw there is the pristine copy's "
                    f"({row_text(got[0])}), not {var}", "")
        if max(diff(a, b) for a, b in zip(got, values)) <= tol:
            return (f"a fresh Python process draws {var} itself, not the pristine copy's draw: the first draw of a "
                    f"process is right and later ones read state the earlier draws left in the process",
                    "a generator or cache kept in the module or the class (shared by every copy) that the first draw "
                    "seeded and later draws advance — use the rng passed in")
        return (f"a fresh Python process gives a third draw ({row_text(got[0])})",
                "the draw is not a function of the rng passed in: global state, the clock, hash randomisation")

    return judge


def _same_judge(other: str, values: tuple[np.ndarray, ...], tol: float) -> Callable:
    def judge(fresh: np.ndarray | tuple[np.ndarray, ...]) -> tuple[str, str]:
        got = _arrays(fresh)
        if max(diff(a, b) for a, b in zip(got, values)) <= tol:
            return "confirmed in a fresh Python process: the other seed gives the same draw there too", ""
        return (f"in a fresh Python process the other seed gives another draw ({row_text(got[0])}): {other} was "
                f"shared through state in the process",
                "a cache in the module or the class keyed by a folded seed — key it by the whole seed")

    return judge


# -- transforms ---------------------------------------------------------------------------------------
class _TransformSession:
    def __init__(self, ctx: TransformContext, log: Log) -> None:
        self.ctx, self.log = ctx, log
        self.plugin = ctx.config.plugin
        self.pristine, self.copied = _pristine(self.plugin)
        self.instance = self.plugin.form == "apply-method"
        self.inplace = bool(ctx.config.inplace)
        self.d = int(ctx.dim)
        self.operator = ctx.operator
        # A pristine copy shares a function's (or a module's) state with the plug-in under test: a cache in the
        # module gives the reference the same stale rows.  Where the first call (on X, before any history)
        # matches the declared matrix, every later output is also held to the matrix.
        self.exact_at_start = self._first_call_exact()

    def _first_call_exact(self) -> bool:
        X = self.batch(1)
        try:
            Y = np.array(self.apply(self.new_object(), X.copy()))
        except PluginError:
            return False
        dtype = Y.dtype if Y.dtype.kind == "f" else np.float64
        return Y.shape == X.shape and diff(Y, self.operator.reference(X)) <= self.tolerance(X, dtype)

    def new_object(self) -> TransformPlugin:
        return _copy(self.pristine) if self.instance else self.plugin

    def batch(self, seed: int, n: int = ROWS) -> np.ndarray:
        return np.random.default_rng(seed).standard_normal((n, self.d))

    def batch_code(self, seed: int, n: int = ROWS) -> str:
        return f"np.random.default_rng({seed}).standard_normal(({n}, {self.d}))"

    def apply(self, obj: TransformPlugin, X: PluginArray) -> np.ndarray:
        self.log.calls += 1
        return apply_any(obj, np.array(X, copy=True) if self.inplace and isinstance(X, np.ndarray) else X)

    def call_code(self, name: str, code: str, array: bool = True) -> str:
        """The program's call; an array is shown converted to the declared input form (``torch.as_tensor(X)``)."""
        code = input_code(self.plugin.input, code) if array else code
        return f"{name}.apply({code})" if self.instance else f"apply({code})"

    def tolerance(self, X64: np.ndarray, dtype: DTypeLike) -> float:
        wd = np.dtype(np.float32 if np.dtype(dtype) in (np.float16, np.float32) else np.float64)
        return 2.0 * float(np.max(self.operator.tolerance(X64, wd)))

    def preamble(self) -> str:
        alias = "transform" if self.instance else "apply"
        head = _import_line(self.plugin.spec, alias, self.plugin.name)
        extra = input_import(self.plugin.input)
        first = self.call_code("copy.deepcopy(transform)" if self.instance else "", "X").lstrip(".")
        return "\n".join(["import copy", "import numpy as np", *([extra] if extra else []), head,
                          f"X = {self.batch_code(1)}",
                          f"B = {self.batch_code(2)}  # a buffer the program refills in place",
                          f"Y0 = {first}  # the check's first call, before every sequence"])


class TransformMachine(MachineBase):
    """A transform's state machine: copies of the plug-in applied to related inputs, judged against a pristine copy.

    Module level, parametrised by the check run: :func:`_transform_machine` makes a subclass carrying the run's session
    (``s``), its log and its ``repeats``."""

    s: _TransformSession
    repeats: int

    def __init__(self) -> None:
        super().__init__()
        self.objs: dict[str, TransformPlugin] = {} if self.s.instance else {"apply": self.s.plugin}
        self.X, self.B = self.s.batch(1), self.s.batch(2)
        self.n = 0
        self.typed_done = self.repeated = False

    @precondition(lambda self: self.s.instance and len(self.objs) < MAX_OBJECTS)
    @rule()
    def create(self) -> None:
        name = NAMES[len(self.objs)]
        self.objs[name] = self.s.new_object()
        self.lines.append(f"{name} = copy.deepcopy(transform)")

    @precondition(lambda self: bool(self.objs))
    @rule(i=st.integers(0, MAX_OBJECTS - 1), how=st.sampled_from(TRANSFORM_INPUTS), seed=st.integers(10, 13))
    def transform(self, i: int, how: str, seed: int) -> None:
        """Apply to X again, fresh data, a row, a slice, a strided view."""
        name = sorted(self.objs)[i % len(self.objs)]
        Xin, code = {"X": (self.X, "X"), "fresh": (self.s.batch(seed), self.s.batch_code(seed)), "row": (self.X[:1], "X[:1]"),
                     "slice": (self.X[2:5], "X[2:5]"), "strided": (self.X[::2], "X[::2]")}[how]
        self._apply(name, Xin, code, how)

    @precondition(lambda self: bool(self.objs))
    @rule(i=st.integers(0, MAX_OBJECTS - 1), seed=st.integers(10, 13))
    def refill(self, i: int, seed: int) -> None:
        """Apply to the buffer B, refill it in place with new values, apply to the same array object again."""
        name = sorted(self.objs)[i % len(self.objs)]
        if not self.s.inplace:
            self._apply(name, self.B, "B", "B")
        seed = seed if not np.array_equal(self.B, self.s.batch(seed)) else seed + 1
        self.B[...] = self.s.batch(seed)
        self.lines.append(f"B[...] = {self.s.batch_code(seed)}")
        self._apply(name, self.B, "B", "refill")

    @precondition(lambda self: bool(self.objs) and not self.typed_done)
    @rule(i=st.integers(0, MAX_OBJECTS - 1))
    def types(self, i: int) -> None:
        """The values of X as int32, int64, uint8, bool, float16, a list and a tuple, one apply each (once per
        sequence)."""
        self.typed_done = True
        name = sorted(self.objs)[i % len(self.objs)]
        for how in INPUT_TYPES:
            Xin, code, X64 = typed_input(self.X, how, TYPED_SCALE)
            self._apply(name, Xin, code, how, X64)

    def _apply(self, name: str, Xin: PluginArray, code: str, how: str, X64: np.ndarray | None = None) -> None:
        X64 = np.array(Xin, dtype=np.float64) if X64 is None else X64
        self.n += 1
        var = f"Y{self.n}"
        line = f"{var} = {self.s.call_code(name, code, isinstance(Xin, np.ndarray))}"
        self.lines.append(line)
        try:
            Y = self.s.apply(self.objs[name], Xin)
        except PluginError as exc:
            if not not_accepted(exc, how):
                self.fail(f"{line} failed: {exc}")
            self.log.refuse(f"{how} input" if how in INPUT_TYPES else f"apply on {code}", exc)
            self.lines.pop()
            return
        if not (isinstance(Xin, np.ndarray) and np.shares_memory(Y, Xin)):
            self.keep(line, Y)  # an output that is the caller's own buffer changes with it: not kept
        Y = np.array(Y)
        tol = self.s.tolerance(X64, Y.dtype if Y.dtype.kind == "f" else np.float64)
        against = "a pristine copy applied to the same values (float64, C-ordered)"
        try:
            ref = np.array(self.s.apply(self.s.new_object(), X64.copy()))  # a copy never called before
        except PluginError as exc:  # judged against the declared matrix; if that agrees, the copy's failure is it
            ref = self.s.operator.reference(X64)
            if diff(Y, ref) <= tol:
                self.pristine_failed(line, exc, "the same values as float64")
            against = "the declared matrix applied to the same values (a pristine copy failed on them)"
        if self.s.exact_at_start and ref.shape == Y.shape and diff(ref, self.s.operator.reference(X64)) > tol:
            ref = self.s.operator.reference(X64)  # the pristine copy's rows are stale too: state in the module
            against = "the declared matrix applied to the same values (the first call, on X, matched it)"
        self.log.judge(how if how in INPUT_TYPES else "replay")
        gap = diff(Y, ref)
        if gap <= tol:
            return
        j = int(np.argmax(np.max(np.abs(Y - ref), axis=1))) if Y.shape == ref.shape else 0
        fresh = (fresh_apply, (self.s.pristine, Xin))
        judge = _apply_judge(var, Y, ref, tol, how in INPUT_TYPES)
        shown = f"row {j} = {row_text(X64[j], 6)} gave {row_text(Y[j] if Y.shape == ref.shape else Y)}"
        if how in INPUT_TYPES:
            zero = " (every output 0: the input truncated?)" if Y.size and not np.any(Y) else ""
            self.fail(f"{how} input gave rows differing from the float64 rows of the same values by up to "
                      f"{gap:.3g} (round-off tolerance {tol:.3g}){zero}: {shown}, float64 gives {row_text(ref[j])}",
                      f"{how} input computed in its own type (wrapped, truncated) — convert with "
                      f"np.asarray(X, dtype=float) first, or refuse it with a TypeError",
                      headline=f"{how} input gives other rows than float64 input of the same values",
                      fresh=fresh, judge=judge)
        self.fail(f"{line} differs from {against} by up to {gap:.3g} (round-off tolerance {tol:.3g}): {shown}, "
                  f"{'the pristine copy' if against.startswith('a pristine') else 'the matrix'} {row_text(ref[j])}",
                  "the output depends on something besides the input: a memo keyed by the array's identity "
                  "(a buffer refilled in place), state kept between calls, a cache in the module",
                  headline="a transform's output depends on its history (the calls before it)",
                  fresh=fresh, judge=judge)

    @precondition(lambda self: bool(self.objs) and not self.repeated)
    @rule(i=st.integers(0, MAX_OBJECTS - 1))
    def repeat(self, i: int) -> None:
        """Apply to one row many times (once per sequence): every call gives the first call's rows."""
        self.repeated = True
        name = sorted(self.objs)[i % len(self.objs)]
        code = self.s.call_code(name, "X[1:2]")
        self.lines.append(f"for call in range({self.repeats}):\n    Y = {code}")
        first = None
        for call in range(self.repeats):
            try:
                Y = np.array(self.s.apply(self.objs[name], self.X[1:2]))
            except PluginError as exc:
                if refusal_of(exc) is None:
                    self.fail(f"call {call + 1} of {code} failed: {exc}")
                self.log.refuse("apply on X[1:2]", exc)
                self.lines.pop()
                return
            if first is None:
                first, tol = Y, self.s.tolerance(self.X[1:2], Y.dtype)
            elif diff(Y, first) > tol:
                self.fail(f"call {call + 1} of {code} gave {row_text(Y)} after {row_text(first)}",
                          "a code path taken after many calls, or state kept between calls",
                          headline="repeated calls on the same input disagree")
        self.log.judge("repeat")


def _transform_machine(s: _TransformSession, log: Log, repeats: int) -> type[MachineBase]:
    """The state machine class of one check run: :class:`TransformMachine` bound to its session and log."""
    return type("TransformMachine", (TransformMachine,), {"s": s, "log": log, "repeats": repeats})


def _apply_judge(var: str, Y: np.ndarray, ref: np.ndarray, tol: float, typed: bool) -> Callable:
    def judge(fresh: np.ndarray) -> tuple[str, str]:
        if diff(fresh, ref) <= tol:
            if typed:  # the conversion is fine: what differs is what came before the call
                return ("a fresh Python process gives the float64 rows for this input: not the conversion but the "
                        "calls before it", "the output depends on the calls before it: a cache in the module or the "
                        "object keyed by something other than the input's values (its shape, its identity)")
            return "confirmed in a fresh Python process: the same call there gives the pristine copy's rows", ""
        if diff(fresh, Y) <= tol:
            if typed:
                return "a fresh Python process gives the same rows for this input: the conversion itself, not state", ""
            return (f"a fresh Python process gives {var} too: the call alone gives it, whatever came before", "")
        return (f"a fresh Python process gives a third result ({row_text(fresh)})",
                "the output is not a function of the input: global state, the clock, hash randomisation")

    return judge


# -- the checks ---------------------------------------------------------------------------------------
def _seed(ctx: BaseContext) -> int:
    return int(ctx.seeds.rng(ctx.check, "stateful-machine").integers(2 ** 32))


def _run_draws(ctx: BaseContext, plugin: Sampler, kind: str) -> CheckResult:
    runs, steps = budget(ctx.profile, "stateful-kinds")
    repeats = int(budget(ctx.profile, "stateful-repeats"))
    log = Log()
    session = _DrawSession(ctx, plugin, kind, log)
    run_machine(_draw_machine(session, log, repeats), log, runs=runs, steps=steps, seed=_seed(ctx))
    what = "sampler" if kind == "orthogonal" else "rule"
    details = {"dims": list(session.dims), "repeats": repeats, "copies": session.copied if session.instance else
               "a function: one object", "deterministic": session.deterministic}
    return machine_result(ctx, log, details, preamble=session.preamble(), alias=session.alias,
                          passed=f"{log.runs} call sequences ({log.calls} {what} calls at d in {list(session.dims)}): "
                                 f"every draw at seed s was the pristine copy's, earlier draws unchanged"
                                 + (", distinct seeds distinct draws" if "seeds-differ" in log.judged else
                                    " (distinct seeds not judged: " + ("declared deterministic)" if
                                                                       session.deterministic else "d = 1)")),
                          headline=f"a {what}'s draws depend on its history (the calls before them)",
                          expected=f"a {what}'s draw depends only on d and the rng passed in; returned arrays stay as "
                                   "they were")


_COMMON_DOC = """
    Test: a ``hypothesis.stateful.RuleBasedStateMachine`` run for quick 3, default 20, thorough 100 sequences of up
    to 6/12/16 steps, seeded from the check key (derandomised, no example database); comparisons allow the
    round-off tolerance of the kind; a failure is shrunk by Hypothesis, printed as a runnable program with the
    command that replays it, and its finding recomputed in a fresh Python interpreter (:mod:`rfverify.containment.fresh`) to
    tell state kept in the module or the class from state in the object.  No randomness is judged, so no alpha.
    Refusals (:mod:`rfverify.refusals`): a call that refuses cleanly (ValueError, TypeError, NotImplementedError)
    is set aside and stated in ``details["refused"]``.
    Reference: Hypothesis' rule-based state machines (MacIver et al., JOSS 2019); the plug-in contract (README).
"""


@register_check("orthogonal", "stateful", statistical=False,
                cost="quick 3, default 20, thorough 100 call sequences of up to 6/12/16 draws at d and d/2")
def check_stateful_sampler(ctx: OrthogonalContext) -> CheckResult:
    """A sampler with a history: draws from several copies at seeds near and far apart, interleaved, checked after
    every step by a Hypothesis state machine and shrunk to the shortest failing program.

    Property: a draw at seed s (``np.random.default_rng(s)``) equals a pristine copy's draw at s, whatever was
    sampled before; the same seed reproduces (also 60 times in a row; thorough 1,000); distinct seeds, including
    s + 2^16, s + 2^31, 2^32 - 1 and 63-bit seeds, give distinct draws; two draws from one generator differ; a
    returned Q is not changed by later calls.
    Applies to: every sampler (copies: ``copy.deepcopy`` of a sampler object; a function is one object).
    """
    return _run_draws(ctx, ctx.config.sampler, "orthogonal")


@register_check("quadrature", "stateful", statistical=False,
                cost="quick 3, default 20, thorough 100 call sequences of up to 6/12/16 draws at d and d/2")
def check_stateful_rule(ctx: QuadratureContext) -> CheckResult:
    """A rule with a history: draws from several copies at seeds near and far apart, interleaved, checked after
    every step by a Hypothesis state machine and shrunk to the shortest failing program.

    Property: a draw (points, weights) at seed s equals a pristine copy's draw at s, whatever was drawn before; the
    same seed reproduces (also 60 times in a row; thorough 1,000); distinct seeds, including s + 2^16, s + 2^31,
    2^32 - 1 and 63-bit seeds, give distinct draws and two draws from one generator differ (not for a rule declared
    deterministic); returned points and weights are not changed by later calls.
    Applies to: every rule (copies: ``copy.deepcopy`` of a callable object; a function is one object).
    """
    return _run_draws(ctx, ctx.plugin, "quadrature")


@register_check("transform", "stateful", statistical=False,
                cost="quick 3, default 20, thorough 100 call sequences of up to 6/12/16 applies of 8 rows")
def check_stateful_transform(ctx: TransformContext) -> CheckResult:
    """A transform with a history: applies to fresh data, the same array again, a buffer refilled in place, a row,
    a slice, a strided view and other input types, checked after every step by a Hypothesis state machine.

    Property: apply's output equals a pristine copy's on the same values as float64 C-ordered, whatever was applied
    before (a buffer refilled in place gives its new values' rows); repeated calls agree (60 times; thorough
    1,000); int32, int64, uint8, bool and float16 input, lists and tuples give the float64 rows of the same values
    or are refused cleanly; an output returned earlier is not changed by later calls (one that is the caller's
    own input buffer, as an in-place transform returns it, is not kept).
    Applies to: every transform (an in-place transform is handed a copy of every input).
    """
    runs, steps = budget(ctx.profile, "stateful-kinds")
    repeats = int(budget(ctx.profile, "stateful-repeats"))
    log = Log()
    session = _TransformSession(ctx, log)
    run_machine(_transform_machine(session, log, repeats), log, runs=runs, steps=steps, seed=_seed(ctx))
    details = {"d": session.d, "rows": ROWS, "repeats": repeats, "input_types": list(INPUT_TYPES),
               "inplace": session.inplace}
    return machine_result(ctx, log, details, preamble=session.preamble(),
                          alias="transform" if session.instance else "apply",
                          passed=f"{log.runs} call sequences ({log.calls} applies at d = {session.d}): every output "
                                 f"was the pristine copy's on the same float64 values, earlier outputs unchanged",
                          headline="a transform's output depends on its history (the calls before it)",
                          expected="apply's output depends only on the values of its input; returned arrays stay as "
                                   "they were")


for _check in (check_stateful_sampler, check_stateful_rule, check_stateful_transform):
    _check.__doc__ = (_check.__doc__ or "").rstrip() + "\n" + _COMMON_DOC

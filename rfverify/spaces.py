"""The configuration space a plug-in is held to, and how a plug-in or its caller narrows it.

A feature map is held, by default, to every configuration of :class:`FeatureMapSpace`: d 1 … 512, m 1 … 4096,
the kernel's parameters over their search ranges (:attr:`rfverify.kernels.ParamSpec.search`), any
``random_state`` in [0, 2**32), batches of 1 … 10,000 rows, float32/float64 inputs in C, Fortran or strided
layout, near-zero, typical and large norms.  It is narrowed, in this order (each later one wins):

1. by the plug-in, with an attribute ``rfverify_space`` (a dict, below) on its class, factory or function;
2. by the caller, with ``verify(..., space={...})``;
3. by pins (``verify(..., pins={...})``, the CLI's ``--n-components``, ``--batch``, ``--dtype``, ``--layout``
   and ``--pin KEY=VALUE``): one value per axis, tried first, which is how a ``reproduce`` command replays a
   minimal counterexample exactly.

Keys: ``d`` (or ``dim``), ``n_components``, ``batch``, ``random_state`` — an integer or an inclusive
``(lo, hi)``; ``dtype``, ``layout``, ``norm`` — one name or a tuple of names; a kernel parameter's name — a
value (held there) or ``(lo, hi)`` (searched there); ``data_seed``, ``split`` — the input batch's seed and the
row a batch is split at (pins only).  A configuration outside the space is never searched, so never a failure;
the report names the space searched.

The other kinds' spaces live here too: a quadrature rule is held to d 1 … 64 (:func:`quadrature_dims`; keys
``d``, ``d_exp`` for powers of two only, ``seed``), a kernel to :class:`KernelSpace` (d 1 … 256, 1 … 128 points,
three norm bands, every parameter over its search range; :func:`kernel_space`), narrowed the same way (the
plug-in's ``rfverify_space``, the caller's ``space=``, then pins).  An orthogonal sampler is held to
:class:`OrthogonalSpace` (d 1 … 256, cut to the kind's range; key ``d``; :func:`orthogonal_space`), a transform
to :class:`TransformSpace` (the widths 2^0 … 2^14, a user's dense matrix its declared d; keys ``d_exp``, ``d``;
:func:`transform_space`).

>>> narrowed(OrthogonalSpace(within=Range(1, 1024)), [{"d": (0, 5000)}, {"d": (None, 40)}]).describe()
'd 1 … 40'
>>> OrthogonalSpace().narrow({"d": (7, 8)}).explicit()
[OrthExample(d=7, seed=0), OrthExample(d=8, seed=0)]
>>> narrowed(TransformSpace(), [{"d_exp": (3, 5)}]).widths
(8, 16, 32)
>>> TransformSpace(structured=False, only=16).narrow({"d": (3, 40)}).describe()
'd = 2^2 … 2^5, batches n d <= 2^18, float32/float64, layouts C/F/strided'
>>> TransformSpace().narrow({"n": 3})
Traceback (most recent call last):
...
rfverify.errors.UsageError: unknown configuration key 'n' for a transform; use d_exp or d
>>> s = FeatureMapSpace.build([{"d": (8, 64)}, {"dtype": "float64"}])
>>> s.describe()
'd 8 … 64, n_components 1 … 4096, batch 1 … 10000 rows, random_state 0 … 4294967295, float64, layouts C/F/strided, norms typical/near-zero/large'
>>> FeatureMapSpace.build([{"colour": 1}], params=("gamma",))
Traceback (most recent call last):
...
rfverify.errors.UsageError: unknown configuration key 'colour'; use d, n_components, batch, random_state, dtype, layout, norm, data_seed, split or a searched kernel parameter (gamma)
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Iterable, Mapping, Protocol, TypeVar, runtime_checkable

import numpy as np
from hypothesis import strategies as st

from rfverify.errors import UsageError
from rfverify.strategies import (DTYPES, LAYOUTS, NORM_SCALES, Range, _param_strategy, dimensions, n_components,
                                 orthogonal_dimensions, random_states)

__all__ = ["Space", "narrowed", "as_range", "FeatureMapSpace", "FMExample", "COST_CAP", "SPACE_ATTRIBUTE",
           "QUADRATURE_SPACE", "QuadratureSpace", "quadrature_dims", "KernelSpace", "kernel_space", "NORMS",
           "declared_space", "ORTHOGONAL_SPACE", "OrthogonalSpace", "OrthExample", "orthogonal_space",
           "TransformSpace", "TransformExample", "transform_space", "WIDTH_EXPONENTS", "DENSE_MAX_EXPONENT",
           "TRANSFORM_COST_CAP", "JIT_BATCHES"]

#: Name of the plug-in attribute declaring its configuration space.
SPACE_ATTRIBUTE = "rfverify_space"


@runtime_checkable
class Space(Protocol):
    """The shape of a kind's explored space: ``narrow(layer)`` applies one mapping of axis -> value or (lo, hi)
    (the plug-in's ``rfverify_space``, the caller's ``space=``, the pins, in that order: :func:`narrowed`) and
    ``describe()`` states it in one line; a space the search draws from directly also has ``strategy(...)`` (a
    Hypothesis strategy) and ``explicit(...)`` (the configurations tried before the search: the one left when
    every axis is pinned, or a kind's smallest cases — the four smallest d of an orthogonal sampler, one row at
    the three smallest widths of a transform)."""

    def narrow(self, layer: Mapping[str, Any]) -> Any:
        """This space narrowed by ``layer`` (an unknown key or a value outside the space: a UsageError)."""

    def describe(self) -> str:
        """The space in one line."""


S = TypeVar("S", bound=Space)


def narrowed(space: S, layers: Iterable[Any]) -> S:
    """``space`` narrowed by each mapping of ``layers`` in turn (a later layer wins; empty or absent ones are
    skipped)."""
    for layer in layers:
        if isinstance(layer, Mapping) and layer:
            space = space.narrow(layer)
    return space


def as_range(key: str, value: Any, default: Range, within: Range | None = None) -> Range:
    """The one range rule of every space: ``value`` is an integer or a ``(lo, hi)`` pair of integers (an end left
    out, None, is ``default``'s), inside ``within`` (default: ``default``); else a one-line UsageError."""
    within = default if within is None else within
    lo, hi = value if isinstance(value, (tuple, list)) and len(value) == 2 else (value, value)
    lo, hi = default.lo if lo is None else lo, default.hi if hi is None else hi  # an open end: the default's
    try:
        ok = not isinstance(lo, bool) and not isinstance(hi, bool) and int(lo) == lo and int(hi) == hi and lo <= hi
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        raise UsageError(f"{key} must be an integer or a (lo, hi) pair of integers, got {value!r}")
    lo, hi = int(lo), int(hi)
    if lo < within.lo or hi > within.hi:
        raise UsageError(f"{key} {lo if lo == hi else f'{lo} … {hi}'} is outside the range rfverify searches "
                         f"({within})")
    return Range(lo, hi)


def declared_space(obj: Any) -> Any:
    """``obj.rfverify_space``, or None when absent — or when reading it raises (a ``__getattr__`` that raises
    for unknown names declares nothing, as for the other optional attributes)."""
    try:
        return getattr(obj, SPACE_ATTRIBUTE, None)
    except Exception:  # noqa: BLE001 - an attribute lookup runs plug-in code
        return None
#: The cost cap of one explored configuration, so that the default budget (150 configurations, about ten fits
#: and transforms each) costs about a second on one core: d * m <= 2^16 (the random draw; m's upper end is cut at
#: large d: d = 512 searches m up to 128), n * m <= 2^14, n * d <= 2^16 and n * d * m <= 2^20 (the batch: 10,000
#: rows are searched at small d and m, e.g. m = 1 at d <= 6), and d * d <= 2^16 (d <= 256: a scheme drawing d x d
#: orthogonal blocks pays a QR of d^3 per fit; d 257 … 512 is searched when the space's lower end is above 256,
#: e.g. pinned).  A cap never cuts below an axis' lower end, so a pinned axis is never cut.
COST_CAP = {"d*m": 2 ** 16, "n*m": 2 ** 14, "n*d": 2 ** 16, "n*d*m": 2 ** 20, "d*d": 2 ** 16}

_ALIASES = {"dim": "d", "dtypes": "dtype", "layouts": "layout", "norms": "norm"}
_RANGES = ("d", "n_components", "batch", "random_state")
_CHOICES = {"dtype": DTYPES, "layout": LAYOUTS, "norm": tuple(NORM_SCALES)}
_PINS_ONLY = ("data_seed", "split")


def _as_choice(key: str, value: Any) -> tuple[str, ...]:
    names = (value,) if isinstance(value, str) else tuple(value) if isinstance(value, (tuple, list)) else None
    allowed = _CHOICES[key]
    if not names or any(n not in allowed for n in names):
        raise UsageError(f"{key} must be one of {', '.join(allowed)} (or a tuple of them), got {value!r}")
    return tuple(n for n in allowed if n in names)  # the default order: shrinking goes to the first


@dataclass(frozen=True)
class FeatureMapSpace:
    """The configurations ``explore`` searches for one feature map (see the module docstring)."""

    d: Range = Range(1, 512)
    n_components: Range = Range(1, 4096)
    batch: Range = Range(1, 10_000)
    random_state: Range = Range(0, 2 ** 32 - 1)
    dtype: tuple[str, ...] = DTYPES
    layout: tuple[str, ...] = LAYOUTS
    norm: tuple[str, ...] = tuple(NORM_SCALES)
    #: Kernel parameters searched, name -> (lo, hi[, scale]) (from the kernel's ParamSpec, or declared).
    params: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    #: Kernel parameters held at one value, name -> value.
    held: Mapping[str, Any] = field(default_factory=dict)
    #: data_seed / split pins.
    fixed: Mapping[str, int] = field(default_factory=dict)
    #: A jit-compiled plug-in (``input="jax"``, ``jit=True``): d, n_components, the batch and its split are drawn
    #: from the small fixed sets :data:`JIT_SHAPES` (clipped to the space), so that few compilations are paid.
    jit: bool = False

    @classmethod
    def for_plugin(cls, plugin: Any, kernel: Any,
                   layers: Iterable[Mapping[str, Any] | None]) -> "FeatureMapSpace":
        """The space of a feature-map plug-in: ``layers`` (its declaration first, then the caller's) over the
        search ranges of the kernel parameters that the plug-in receives."""
        spec = getattr(kernel, "_spec", None)
        params = {k: spec.params[k] for k in plugin.passthrough if spec is not None and k in spec.params}
        space = cls.build(layers, params=params)
        return replace(space, jit=True) if getattr(plugin, "jit", False) else space

    @classmethod
    def build(cls, layers: Iterable[Mapping[str, Any] | None], *, params: Mapping[str, Any] | Iterable[str] = (),
              base: "FeatureMapSpace | None" = None) -> "FeatureMapSpace":
        """The default space (or ``base``) narrowed by each mapping of ``layers`` in turn.

        ``params``: the searchable kernel parameters, name -> ParamSpec-like object with ``search`` (or
        just names, for validation only).
        """
        space = base or cls()
        specs = dict(params) if isinstance(params, Mapping) else {p: None for p in params}
        searched = {k: tuple(v.search) for k, v in specs.items() if v is not None and getattr(v, "search", None)}
        if base is None:
            space = replace(space, params=searched)
        for layer in layers:
            if not layer:
                continue
            if not isinstance(layer, Mapping):
                raise UsageError(f"a configuration space is a dict of axis -> value or (lo, hi), got "
                                 f"{type(layer).__name__}")
            for raw, value in layer.items():
                key = _ALIASES.get(raw, raw)
                if key in _RANGES:
                    # a key of _RANGES names a Range field, one of _CHOICES a tuple field (mypy sees every field)
                    space = replace(space, **{key: as_range(key, value, getattr(cls(), key))})  # type: ignore[arg-type]
                elif key in _CHOICES:
                    space = replace(space, **{key: _as_choice(key, value)})  # type: ignore[arg-type]
                elif key in _PINS_ONLY:
                    space = replace(space, fixed={**space.fixed, key: as_range(key, value, Range(0, 2 ** 31)).lo})
                elif key in specs:
                    space = space._with_param(key, value)
                else:
                    keys = ", ".join((*_RANGES, *_CHOICES, *_PINS_ONLY))
                    raise UsageError(f"unknown configuration key {raw!r}; use {keys} or a searched kernel "
                                     f"parameter ({', '.join(specs) or 'none for this kernel'})")
        return space

    def narrow(self, layer: Mapping[str, Any]) -> "FeatureMapSpace":
        """This space narrowed by one more layer (its kernel parameters: those searched or held)."""
        return self.build([layer], params=(*self.params, *self.held), base=self)

    def _with_param(self, key: str, value: Any) -> "FeatureMapSpace":
        params, held = dict(self.params), dict(self.held)
        if isinstance(value, (tuple, list)) and len(value) == 2 and key in params:
            params[key] = (value[0], value[1], *params[key][2:])
            held.pop(key, None)
        else:
            params.pop(key, None)
            held[key] = value
        return replace(self, params=params, held=held)

    def describe(self) -> str:
        """The space in one line (what the report says was searched)."""
        parts = [f"d {self.d}", f"n_components {self.n_components}", f"batch {self.batch} rows",
                 f"random_state {self.random_state}", "/".join(self.dtype),
                 ("layout " if len(self.layout) == 1 else "layouts ") + "/".join(self.layout),
                 ("norm " if len(self.norm) == 1 else "norms ") + "/".join(self.norm)]
        parts += [f"{k} {v[0]:g} … {v[1]:g}" for k, v in sorted(self.params.items())]
        parts += [f"{k} = {v!r}" for k, v in sorted(self.held.items())]
        if self.jit:
            parts.append("jit: shapes from a fixed set")
        return ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        for k in _RANGES:
            out[k] = [getattr(self, k).lo, getattr(self, k).hi]
        return out

    # -- the strategy --------------------------------------------------------------------------
    def examples(self, kernel_params: Mapping[str, Any]) -> st.SearchStrategy["FMExample"]:
        """Hypothesis strategy of :class:`FMExample` over this space (``kernel_params``: the kernel's values
        for the parameters that are not searched)."""
        return _fm_examples(self, dict(kernel_params))

    strategy = examples

    def explicit(self, kernel_params: Mapping[str, Any]) -> "FMExample | None":
        """The configuration every axis pinned to its simplest value, when every searched axis is pinned
        (the ``reproduce`` command's case), else None."""
        pinned = all(getattr(self, k).lo == getattr(self, k).hi for k in _RANGES)
        pinned = pinned and all(len(getattr(self, k)) == 1 for k in _CHOICES) and not self.params
        if not pinned:
            return None
        return FMExample(self.d.lo, self.n_components.lo, tuple(sorted({**kernel_params, **self.held}.items())),
                         self.random_state.lo, self.batch.lo, self.dtype[0], self.layout[0], self.norm[0],
                         self.fixed.get("data_seed", 0), self.fixed.get("split", 0))


@dataclass(frozen=True)
class FMExample:
    """One explored feature-map configuration and its input batch's recipe."""

    d: int
    m: int
    params: tuple[tuple[str, Any], ...]
    random_state: int
    n: int
    dtype: str
    layout: str
    norm: str
    data_seed: int
    split: int

    def describe(self) -> str:
        ps = "".join(f", {k}={v!r}" for k, v in self.params)
        return (f"d = {self.d}, n_components={self.m}, random_state={self.random_state}{ps}; batch of {self.n} "
                f"row{'s' if self.n != 1 else ''}, {self.dtype}, {self.layout}-layout, {self.norm} norms "
                f"(data_seed={self.data_seed}, split={self.split})")

    def pins(self) -> list[str]:
        """The command-line options that pin exactly this configuration."""
        out = ["--n-components", str(self.m), "--batch", str(self.n), "--dtype", self.dtype, "--layout", self.layout,
               "--pin", f"d={self.d}", "--pin", f"random_state={self.random_state}", "--pin", f"norm={self.norm}",
               "--pin", f"data_seed={self.data_seed}", "--pin", f"split={self.split}"]
        for k, v in self.params:
            out += ["--pin", f"{k}={v!r}"]
        return out

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["params"] = dict(self.params)
        return out


#: The shapes a jit-compiled plug-in is explored at: every new input shape is a new compilation (20-30 ms for a
#: small JAX map on a 2-core machine), so a search over all shapes would pay several per example.  (d, n_components)
#: pairs (d = 1, one feature, odd widths, a wide map) and batch sizes (one row, an odd batch, a large one), each
#: clipped to the space and its cost caps; an odd batch is split after its first row (the parts: one row and 16,
#: the rows of the seed check), an even one in its middle.
JIT_SHAPES: dict[str, tuple[Any, ...]] = {"d_m": ((1, 1), (3, 7), (16, 64), (64, 512)),
                                          "batch": (1, 17, 256)}


def _clip(axis: Range, value: int, *caps: int | None) -> int:
    return max(axis.lo, min(value, _cut(axis, *caps)))


@st.composite
def _fm_examples(draw: Any, space: FeatureMapSpace, kernel_params: dict[str, Any]) -> FMExample:
    if space.jit:
        return draw(_jit_examples(space, kernel_params))
    # Two orders of drawing, so that both large shapes and large batches are reached under the cost cap:
    # shape first (d, m, then the batch that fits), or batch first (n, then the d and m that fit).
    batch_first = draw(st.booleans())
    n = draw(_batch_sizes(space.batch.lo, space.batch.hi)) if batch_first else 0
    d = draw(dimensions(space.d.lo, _cut(space.d, math.isqrt(COST_CAP["d*d"]),
                                         COST_CAP["n*d"] // n if n else None)))
    m = draw(n_components(space.n_components.lo, _cut(space.n_components, COST_CAP["d*m"] // d,
                                                      COST_CAP["n*m"] // n if n else None,
                                                      COST_CAP["n*d*m"] // (n * d) if n else None)))
    params = dict(kernel_params)
    params.update(space.held)
    for name in sorted(space.params):
        params[name] = draw(_param_strategy(name, _Search(space.params[name])))
    rs = draw(st.integers(space.random_state.lo, space.random_state.hi) if space.random_state.lo > 0
              else random_states(space.random_state.hi))
    if not batch_first:
        n = draw(_batch_sizes(space.batch.lo, _cut(space.batch, COST_CAP["n*m"] // m, COST_CAP["n*d"] // d,
                                                   COST_CAP["n*d*m"] // (d * m))))
    dtype = draw(st.sampled_from(space.dtype))
    layout = draw(st.sampled_from(space.layout))
    norm = draw(st.sampled_from(space.norm))
    data_seed = int(space.fixed["data_seed"]) if "data_seed" in space.fixed else draw(st.integers(0, 2 ** 16))
    split = int(space.fixed["split"]) if "split" in space.fixed else draw(st.integers(0, 2 ** 16))
    return FMExample(d, m, tuple(sorted(params.items())), rs, n, dtype, layout, norm, data_seed, split)


@st.composite
def _jit_examples(draw: Any, space: FeatureMapSpace, kernel_params: dict[str, Any]) -> FMExample:
    """:func:`_fm_examples` for a jit-compiled plug-in: the same axes, (d, n_components) and the batch size from
    :data:`JIT_SHAPES` (clipped to the space; the first pair and batch are the shrink targets), the batch split at a
    fixed row (one or two more shapes per batch size, not two per example)."""
    pairs = set()
    for d0, m0 in JIT_SHAPES["d_m"]:
        d = _clip(space.d, d0, math.isqrt(COST_CAP["d*d"]))
        pairs.add((d, _clip(space.n_components, m0, COST_CAP["d*m"] // d)))
    d, m = draw(st.sampled_from(sorted(pairs)))
    params = dict(kernel_params)
    params.update(space.held)
    for name in sorted(space.params):
        params[name] = draw(_param_strategy(name, _Search(space.params[name])))
    rs = draw(st.integers(space.random_state.lo, space.random_state.hi) if space.random_state.lo > 0
              else random_states(space.random_state.hi))
    caps = (COST_CAP["n*m"] // m, COST_CAP["n*d"] // d, COST_CAP["n*d*m"] // (d * m))
    n = draw(st.sampled_from(sorted({_clip(space.batch, n0, *caps) for n0 in JIT_SHAPES["batch"]})))
    dtype = draw(st.sampled_from(space.dtype))
    layout = draw(st.sampled_from(space.layout))
    norm = draw(st.sampled_from(space.norm))
    data_seed = int(space.fixed["data_seed"]) if "data_seed" in space.fixed else draw(st.integers(0, 2 ** 16))
    # the split row is 1 + split % (n - 1): 0 splits off the first row, n // 2 - 1 halves the batch
    split = int(space.fixed["split"]) if "split" in space.fixed else (0 if n % 2 else max(0, n // 2 - 1))
    return FMExample(d, m, tuple(sorted(params.items())), rs, n, dtype, layout, norm, data_seed, split)


def _cut(axis: Range, *caps: int | None) -> int:
    """The upper end of ``axis`` cut by the cost caps, never below its lower end."""
    return max(axis.lo, min([axis.hi, *(c for c in caps if c is not None)]))


def _batch_sizes(lo: int, hi: int) -> st.SearchStrategy[int]:
    """Batch sizes in [lo, hi]; power-of-two boundaries (2^k, 2^k + 1), where chunked and blocked code paths
    switch, are tried often."""
    corners = {lo, min(hi, max(lo, 2))} | {c for k in range(1, 14) for c in (2 ** k, 2 ** k + 1) if lo <= c <= hi}
    return st.one_of(st.integers(lo, hi), st.sampled_from(sorted(corners)))


@dataclass(frozen=True)
class _Search:
    """A ParamSpec-like search range: ``(lo, hi)`` is an integer range, ``(lo, hi, scale)`` a float one."""

    search: tuple[Any, ...]

    @property
    def kind(self) -> type:
        return int if len(self.search) == 2 else float


def length_scale_of(kernel: Any, d: int, params: Mapping[str, Any]) -> float:
    """Input scale at which kernel values spread over their range (the registry's formula), else 1/sqrt(d)."""
    spec = getattr(kernel, "_spec", None)
    if spec is not None and spec.length_scale is not None:
        try:
            s = float(spec.length_scale(d, **params))
            if math.isfinite(s) and s > 0:
                return s
        except (TypeError, ValueError, ZeroDivisionError):
            pass
    return 1.0 / math.sqrt(d)


# ------------------------------------------------------------------------------------------------ quadrature rules
#: The dimensions a quadrature rule is held to by default (a rule narrows them with
#: ``rfverify_space = {"d": (lo, hi)}`` or ``{"d_exp": (lo, hi)}`` for powers of two only).
QUADRATURE_SPACE = Range(1, 64)


@dataclass(frozen=True)
class QuadratureSpace:
    """The dimensions ``explore`` searches for a quadrature rule: ``d`` (1 … 64 by default, up to ``within``, the
    kind's DIM_RANGE), every d or (``powers``, from a ``d_exp`` axis) the powers of two in it."""

    d: Range = QUADRATURE_SPACE
    powers: bool = False
    within: Range = Range(1, 4096)

    def narrow(self, layer: Mapping[str, Any]) -> "QuadratureSpace":
        for key in layer:
            if key not in ("d", "dim", "d_exp", "seed"):
                raise UsageError(f"unknown configuration key {key!r} for a quadrature rule; use d, d_exp or seed")
        space = self
        if "d_exp" in layer:
            top = self.within.hi.bit_length() - 1
            e = as_range("d_exp", layer["d_exp"], Range(0, QUADRATURE_SPACE.hi.bit_length() - 1), Range(0, top))
            space = replace(space, d=Range(2 ** e.lo, 2 ** e.hi), powers=True)
        for key in ("d", "dim"):
            if key in layer:
                space = replace(space, d=as_range(key, layer[key], QUADRATURE_SPACE, self.within))
        return space

    def dims(self) -> tuple[int, ...]:
        """The dimensions searched, in order."""
        lo, hi = self.d.lo, self.d.hi
        if self.powers:
            out = tuple(2 ** k for k in range(lo.bit_length() - 1, hi.bit_length()) if lo <= 2 ** k <= hi)
            return out or (lo,)
        return tuple(range(lo, hi + 1))

    def describe(self) -> str:
        return f"d {self.d}" + (" (powers of two)" if self.powers else "")

    def explicit(self) -> int | None:
        """The one dimension left when d is pinned, else None."""
        return self.d.lo if self.d.lo == self.d.hi else None


def quadrature_dims(config: Any) -> tuple[int, ...]:
    """The dimensions explored: d 1 … 64, narrowed by the rule's ``rfverify_space``, then the caller's ``space``,
    then a pinned d (each later one wins); ``d_exp`` keeps powers of two only.  Outside the kind's DIM_RANGE is a
    one-line UsageError."""
    space = QuadratureSpace(within=Range(*config.DIM_RANGE))
    return narrowed(space, (declared_space(config.plugin.rule), config.space, config.pins)).dims()



# ------------------------------------------------------------------------------------------------ kernels
NORMS = tuple(NORM_SCALES)


@dataclass(frozen=True)
class KernelSpace:
    """The configurations ``explore`` searches for one kernel."""

    d: Range = Range(1, 256)
    n: Range = Range(1, 128)
    norm: tuple[str, ...] = NORMS
    #: searched parameters, name -> (lo, hi) (integers) or (lo, hi, "log"|"linear")
    params: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    #: parameters held at one value
    held: Mapping[str, Any] = field(default_factory=dict)
    data_seed: int | None = None
    #: The parameters a layer may name (a registry kernel's; None: any, a kernel callable's keywords) and the
    #: kernel's name for the error naming them.
    known: tuple[str, ...] | None = None
    kernel_name: str = ""

    def narrow(self, layer: Mapping[str, Any]) -> "KernelSpace":
        space = self
        for key, value in layer.items():
            if key in ("d", "dim"):
                space = replace(space, d=as_range("d", value, KernelSpace.d))
            elif key == "n":
                space = replace(space, n=as_range("n", value, KernelSpace.n))
            elif key == "norm":
                names = (value,) if isinstance(value, str) else tuple(value)
                if not names or any(v not in NORMS for v in names):
                    raise UsageError(f"norm must be one of {', '.join(NORMS)} (or a tuple of them), got {value!r}")
                space = replace(space, norm=tuple(v for v in NORMS if v in names))
            elif key == "data_seed":
                space = replace(space, data_seed=as_range("data_seed", value, Range(0, 2 ** 31)).lo)
            elif self.known is None or key in self.known:
                rng = _search_range(key, value)
                p, h = dict(space.params), dict(space.held)
                if rng is None:
                    p.pop(key, None)
                    h[key] = value
                else:
                    h.pop(key, None)
                    p[key] = rng
                space = replace(space, params=p, held=h)
            else:
                raise UsageError(f"unknown configuration key {key!r} for kernel {self.kernel_name}; use d, n, norm, "
                                 f"data_seed or a parameter ({', '.join(self.known) or 'none'})")
        return space

    def describe(self) -> str:
        parts = [f"d {self.d}", f"{self.n} points", ("norm " if len(self.norm) == 1 else "norms ") + "/".join(self.norm)]
        parts += [f"{k} {v[0]:g} … {v[1]:g}" for k, v in sorted(self.params.items())]
        parts += [f"{k} = {v!r}" for k, v in sorted(self.held.items())]
        return ", ".join(parts)


def _search_range(key: str, value: Any) -> tuple[Any, ...] | None:
    """A parameter's search range from a declaration, or None when ``value`` holds it at one value."""
    if not isinstance(value, (tuple, list)) or len(value) not in (2, 3):
        return None
    lo, hi, *scale = value
    if not all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in (lo, hi)) \
            or not lo <= hi or (scale and scale[0] not in ("log", "linear")) or (scale == ["log"] and lo <= 0):
        raise UsageError(f"parameter {key}: a search range is (lo, hi) or (lo, hi, 'log'|'linear') with lo <= hi, "
                         f"got {value!r}")
    if not scale and all(isinstance(v, (int, np.integer)) for v in (lo, hi)):
        return (int(lo), int(hi))
    return (float(lo), float(hi), scale[0] if scale else "linear")


def kernel_space(config: Any) -> KernelSpace:
    """The kernel's explored space: the default narrowed by the kernel's ``rfverify_space``, the caller's
    ``space`` and the pins; a registry kernel's parameters searched over their ``ParamSpec.search`` ranges."""
    kernel = config.kernel
    spec = kernel._spec
    params: dict[str, tuple[Any, ...]] = {}
    held: dict[str, Any] = dict(kernel.params)
    if spec is not None:
        params = {k: tuple(p.search) for k, p in spec.params.items() if p.search is not None}
        held = {k: v for k, v in held.items() if k not in params}
    space = KernelSpace(params=params, held=held, known=None if spec is None else tuple(spec.params),
                        kernel_name=kernel.name)
    if not isinstance(config.domain, str):  # a callable domain: its points at the declared d only
        space = replace(space, d=Range(config.dim, config.dim))
    declared = declared_space(config.kernel_obj) if spec is None else None
    space = narrowed(space, (declared, config.space, config.pins))
    if not isinstance(config.domain, str) or config.domain == "sphere":
        space = replace(space, norm=("typical",))  # points as the domain gives them: no norm bands
    return space


# ------------------------------------------------------------------------------------------------ orthogonal samplers
#: The dimensions an orthogonal sampler is held to by default (a plug-in narrows them with
#: ``rfverify_space = {"d": (lo, hi)}``).
ORTHOGONAL_SPACE = Range(1, 256)


def _int_pair(key: str, value: Any, lo: int, hi: int, least: int | None = None) -> tuple[int, int]:
    """The range rule of the orthogonal and transform spaces: an integer or a ``(lo, hi)`` pair of integers (an
    open end, None, is ``lo``'s or ``hi``'s), not below ``least``; else a one-line UsageError.  Unlike
    :func:`as_range`, a value beyond the kind's range is not refused here: the space cuts it to that range."""
    a, b = value if isinstance(value, (tuple, list)) and len(value) == 2 else (value, value)
    a, b = lo if a is None else a, hi if b is None else b
    if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, np.integer)) \
            or not isinstance(b, (int, np.integer)) or a > b or (least is not None and a < least):
        raise UsageError(f"{key} must be an integer or a (lo, hi) pair of integers, got {value!r}")
    return int(a), int(b)


@dataclass(frozen=True)
class OrthExample:
    """One explored sampler call: the dimension and the seed of the Generator it is given."""

    d: int
    seed: int

    def describe(self) -> str:
        return f"d = {self.d}, rng = numpy.random.default_rng({self.seed})"


@dataclass(frozen=True)
class OrthogonalSpace:
    """The dimensions ``explore`` searches for an orthogonal sampler: ``bounds`` as narrowed (key ``d`` or
    ``dim``: an integer or ``(lo, hi)``, an open end the current one's), cut to ``within`` (the kind's DIM_RANGE)
    and never below 1 (:attr:`d`); every Generator seed in [0, 2**32)."""

    bounds: tuple[int, int] = (ORTHOGONAL_SPACE.lo, ORTHOGONAL_SPACE.hi)
    within: Range = Range(1, 4096)

    @property
    def d(self) -> Range:
        """The dimensions searched."""
        return Range(max(ORTHOGONAL_SPACE.lo, self.bounds[0]), min(self.within.hi, self.bounds[1]))

    def narrow(self, layer: Mapping[str, Any]) -> "OrthogonalSpace":
        for key in layer:
            if key not in ("d", "dim"):
                raise UsageError(f"unknown configuration key {key!r} for an orthogonal sampler; use d")
        lo, hi = self.bounds
        for key in ("d", "dim"):
            if key in layer:
                lo, hi = _int_pair(key, layer[key], lo, hi)
        if max(ORTHOGONAL_SPACE.lo, lo) > min(self.within.hi, hi):  # cut to the kind's range, nothing is left
            raise UsageError(f"d {lo if lo == hi else f'{lo} … {hi}'} lies outside the dimensions rfverify searches "
                             f"for an orthogonal sampler ({ORTHOGONAL_SPACE.lo} … {self.within.hi})")
        return replace(self, bounds=(lo, hi))

    def describe(self) -> str:
        return f"d {self.d}"

    def strategy(self) -> st.SearchStrategy[OrthExample]:
        """Hypothesis strategy of :class:`OrthExample`: a dimension of the space, any Generator seed."""
        return st.builds(OrthExample, orthogonal_dimensions(self.d.lo, self.d.hi), st.integers(0, 2 ** 32 - 1))

    def explicit(self) -> list[OrthExample]:
        """The calls made before the search: the four smallest dimensions of the space (where special cases
        live; the pinned one alone when d is pinned), each with the Generator seeded 0."""
        d = self.d
        return [OrthExample(k, 0) for k in range(d.lo, min(d.hi, d.lo + 3) + 1)]


def orthogonal_space(config: Any, read_plugin: bool = True) -> OrthogonalSpace:
    """The sampler's explored space: d 1 … 256 narrowed by the ``d`` of its ``rfverify_space`` (other keys of a
    declaration are not this kind's and are left alone), the caller's ``space`` (``{"d": (lo, hi)}``, ``--space
    d=LO:HI``), then a pinned d (each later one wins); never below 1 nor above the kind's DIM_RANGE.  With
    ``read_plugin=False`` the plug-in is not read (the caller's layers checked when the configuration is built)."""
    declared = declared_space(config.sampler.obj) if read_plugin else None
    declared = {k: v for k, v in declared.items() if k in ("d", "dim")} if isinstance(declared, Mapping) else None
    pinned = (getattr(config, "pins", None) or {}).get("d")
    pins = {"d": int(pinned)} if pinned is not None else None
    space = OrthogonalSpace(within=Range(*config.DIM_RANGE))
    return narrowed(space, (declared, getattr(config, "space", None), pins))


# ------------------------------------------------------------------------------------------------ transforms
#: Widths searched by default: d = 2^k for k in this range (a plug-in narrows it with
#: ``rfverify_space = {"d_exp": (lo, hi)}``).
WIDTH_EXPONENTS = (0, 14)
#: Largest width exponent searched for a user's dense declared matrix (formed in float64 at each width).
DENSE_MAX_EXPONENT = 10
#: n * d of one explored batch (so 2^14-wide transforms are searched with up to 16 rows).
TRANSFORM_COST_CAP = 2 ** 18
#: The batch sizes a jit-compiled transform (``input="jax"``) is explored at: each new shape is a compilation.
JIT_BATCHES = (1, 2, 3, 17, 64)


@dataclass(frozen=True)
class TransformExample:
    """One explored call: width, batch rows, dtype, layout and the batch's seed."""

    d: int
    n: int
    dtype: str
    layout: str
    seed: int

    def describe(self) -> str:
        return f"d = {self.d}, a batch of {self.n} row{'s' if self.n != 1 else ''}, {self.dtype}, {self.layout}-layout"


@dataclass(frozen=True)
class TransformSpace:
    """The calls ``explore`` searches for a transform: the widths d = 2^k for k in ``exponents`` (cut at 2^14; a
    user's dense matrix, not ``structured``, at 2^10 or the lower end), or the one width ``only``; batches of 1 …
    4096 rows with n d <= 2^18, float32/float64, C/Fortran/strided layouts.

    Keys: ``d_exp`` (an integer or ``(lo, hi)``: d = 2^lo … 2^hi); ``d`` (or ``dim``): ``(lo, hi)`` keeps the
    powers of two in [lo, hi] (none there: a UsageError), one value that width alone."""

    exponents: tuple[int, int] = WIDTH_EXPONENTS
    structured: bool = True
    only: int | None = None

    @property
    def widths(self) -> tuple[int, ...]:
        """The widths searched, in order."""
        if self.only is not None:
            return (self.only,)
        lo, hi = self.exponents
        hi = min(hi, WIDTH_EXPONENTS[1])  # the kind's largest width
        if not self.structured:  # a user's matrix is dense: d <= 2^10 keeps it at 8 MB per width
            hi = max(lo, min(hi, DENSE_MAX_EXPONENT))
        return tuple(2 ** k for k in range(lo, hi + 1))

    def narrow(self, layer: Mapping[str, Any]) -> "TransformSpace":
        for key in layer:
            if key not in ("d", "dim", "d_exp"):
                raise UsageError(f"unknown configuration key {key!r} for a transform; use d_exp or d")
        space = self
        if "d_exp" in layer:
            space = replace(space, exponents=_int_pair("d_exp", layer["d_exp"], *WIDTH_EXPONENTS, least=0), only=None)
        for key in ("d", "dim"):
            if key in layer:
                a, b = _int_pair("d", layer[key], 2 ** WIDTH_EXPONENTS[0], 2 ** WIDTH_EXPONENTS[1], least=0)
                if a == b >= 1:  # one width (a user's matrix may exist where no power of two does)
                    space = replace(space, only=a)
                    continue
                lo, hi = (a - 1).bit_length(), b.bit_length() - 1  # the powers of two within [a, b]
                if lo > hi:
                    raise UsageError(f"no width d = 2^k lies in d {a} … {b}: give a range holding a power of two")
                if lo > WIDTH_EXPONENTS[1]:
                    raise UsageError(f"d {a} … {b} lies beyond the widths rfverify searches for a transform "
                                     f"(2^{WIDTH_EXPONENTS[0]} … 2^{WIDTH_EXPONENTS[1]} = {2 ** WIDTH_EXPONENTS[1]})")
                space = replace(space, exponents=(lo, hi), only=None)
        if not space.widths:  # cut to the kind's widths, nothing is left
            lo, hi = space.exponents
            raise UsageError(f"d = 2^{lo if lo == hi else f'{lo} … 2^{hi}'} lies beyond the widths rfverify searches "
                             f"for a transform (2^{WIDTH_EXPONENTS[0]} … 2^{WIDTH_EXPONENTS[1]})")
        return space

    def describe_widths(self) -> str:
        """The widths in a few words: ``d = 16``, ``d = 2^3 … 2^4``."""
        widths = self.widths
        if len(widths) == 1:
            return f"d = {widths[0]}"
        return f"d = 2^{widths[0].bit_length() - 1} … 2^{widths[-1].bit_length() - 1}"

    def describe(self) -> str:
        return f"{self.describe_widths()}, batches n d <= 2^18, float32/float64, layouts C/F/strided"

    def strategy(self, jit: bool = False) -> st.SearchStrategy[TransformExample]:
        """Hypothesis strategy of :class:`TransformExample` over this space (``jit``: a jit-compiled transform,
        its batch sizes from :data:`JIT_BATCHES`)."""
        return _transform_examples(self.widths, jit)

    def explicit(self) -> list[TransformExample]:
        """The calls always made before the search: one float64 C-ordered row (batch seed 0) at each of the three
        smallest widths — the special cases (d = 1, 2, 4; a single row) a transform most often gets wrong."""
        return [TransformExample(d, 1, "float64", "C", 0) for d in self.widths[:3]]


@st.composite
def _transform_examples(draw: Any, widths: tuple[int, ...], jit: bool = False) -> TransformExample:
    d = draw(st.sampled_from(widths))
    n_hi = max(1, min(4096, TRANSFORM_COST_CAP // d))
    if jit:
        n = draw(st.sampled_from(sorted({min(n, n_hi) for n in JIT_BATCHES})))
    else:
        n = draw(st.one_of(st.integers(1, n_hi), st.sampled_from(sorted({1, min(2, n_hi), min(3, n_hi)}))))
    return TransformExample(d, n, draw(st.sampled_from(DTYPES)), draw(st.sampled_from(LAYOUTS)),
                            draw(st.integers(0, 2 ** 16)))


def transform_space(config: Any, read_plugin: bool = True) -> TransformSpace:
    """The transform's explored space: 2^0 … 2^14 for a registry matrix (Hadamard); the declared d alone for a
    user's matrix (a fixed array, or a callable M(d) given with a transform built for one width, e.g.
    ``Butterfly(16).apply``) until a layer names ``d_exp`` or ``d``; narrowed by the ``d_exp`` of the transform's
    ``rfverify_space`` (its other keys are left alone), the caller's ``space`` (``{"d_exp": (lo, hi)}``, ``{"d":
    (lo, hi)}``), then a pinned d alone (each later one wins).  With ``read_plugin=False`` the plug-in is not read."""
    declared = declared_space(config.plugin.fn) if read_plugin else None
    declared = {"d_exp": declared["d_exp"]} if isinstance(declared, Mapping) and "d_exp" in declared else None
    pinned = (getattr(config, "pins", None) or {}).get("d")
    pins = {"d": int(pinned)} if pinned is not None else None
    structured = bool(config.matrix.structured)
    space = TransformSpace(structured=structured, only=None if structured else int(config.dim))
    return narrowed(space, (declared, getattr(config, "space", None), pins))

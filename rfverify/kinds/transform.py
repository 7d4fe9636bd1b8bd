"""The ``transform`` plug-in kind: fast linear transforms claimed to equal ``X @ M.T``.

A transform is ``apply(X (n, d)) -> (n, d)`` — a function or an object with an
``apply`` method — claimed to return the rows ``M x`` of every row ``x`` of
``X`` for a declared matrix ``M``:

* ``"hadamard"``: the Sylvester (natural-order) Hadamard matrix ``H_d``
  (``scipy.linalg.hadamard``), defined for d a power of two;
* ``"hadamard-normalized"``: ``H_d / sqrt(d)``;
* a callable ``M(d) -> (d, d) array`` (raising where M is undefined), a
  ``(d, d)`` array, or ``"MODULE:ATTR"`` naming either.

``input="torch" | "jax" | "cupy"`` hands ``apply`` that library's arrays, in the batch's own dtype (float32
and float64; JAX without ``jax_enable_x64`` takes float32, and is then judged with float32 round-off);
outputs of numpy, torch (CPU or CUDA), JAX, CuPy and dask come back to the host in their own dtype
(:mod:`rfverify.arrays`).  ``inplace=True`` declares that ``apply`` may overwrite its input; otherwise
the caller's array must be left untouched.  All checks of this kind are
deterministic (no alpha): they compare against a float64 reference of ``X M^T``
with a derived round-off tolerance.  The checks see M as an operator
(:mod:`rfverify.kinds.matrices`): a Hadamard matrix is never formed (its
reference is a float64 FWHT, its norms come from its structure, O(n d log d)
per call); a user's matrix is dense, its 2-norm computed once per width.
"""

from __future__ import annotations

import types
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from rfverify.containment import guard
from rfverify.adapters import load_object
from rfverify.plugin_calls import spec_of
from rfverify.arrays import ArrayRecord, handed_dtype, to_input, to_numpy, validate_input
from rfverify.errors import PluginError, UsageError
from rfverify.jsontypes import JSONValue
from rfverify.containment.hosted_kinds import HostedAdapter
from rfverify.kinds.base import (CliSpec, KindConfig, call_kw_option, input_option, parse_int, pin_flag, pins_option,
                                 space_option)
from rfverify.kinds.options import make_verify, option
from rfverify.kinds.matrices import DenseOperator, HadamardOperator, MatrixOperator
from rfverify.profiles import budget
from rfverify.registry import BaseContext, CheckSpec, PluginObject

__all__ = ["TransformBudget", "TransformPlugin", "DeclaredMatrix", "TransformConfig",
           "TransformContext", "verify_transform", "MATRICES"]

MATRICES = ("hadamard", "hadamard-normalized")
MAX_TRANSFORM_DIM = 1 << 14


def _spaces_module() -> "types.ModuleType":  # imported when a configuration is made (Hypothesis), not when the CLI parser is built
    import rfverify.spaces

    return rfverify.spaces


@dataclass(frozen=True)
class TransformBudget:
    """Batch sizes ``ns`` used by the exactness and linearity checks, per profile."""

    ns: tuple[int, ...]




class DeclaredMatrix:
    """The matrix a transform claims to equal, at any dimension.

    ``operator(d)`` is what the checks use (:class:`rfverify.kinds.matrices.MatrixOperator`, cached per d;
    None where M is undefined), ``defined(d)`` answers the dimension probe (for a Hadamard matrix without
    building anything), ``at(d)`` is the dense matrix (None where undefined).
    """

    def __init__(self, matrix: Any) -> None:
        self.spec: str | None = matrix if isinstance(matrix, str) else None
        self._operators: dict[int, MatrixOperator | None] = {}
        self._defined: dict[int, bool] = {}
        self.structured = isinstance(matrix, str) and matrix in MATRICES
        self._fixed_dim: int | None = None
        if isinstance(matrix, str) and matrix in MATRICES:
            self.name = matrix
            self._fn: Callable[..., Any] = self._hadamard(matrix == "hadamard-normalized")
        else:
            obj = load_object(matrix) if isinstance(matrix, str) else matrix
            if isinstance(obj, np.ndarray) or (not callable(obj) and hasattr(obj, "__array__")):
                try:
                    arr = np.asarray(obj, dtype=np.float64)
                except (TypeError, ValueError) as exc:
                    raise UsageError(f"the declared matrix must hold real numbers ({exc})") from None
                if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
                    raise UsageError(f"the declared matrix must be square, got shape {arr.shape}")
                self._fn = lambda d, arr=arr: arr if d == arr.shape[0] else None
                self._fixed_dim = arr.shape[0]
                self.name = self.spec or f"a fixed {arr.shape[0]}x{arr.shape[0]} matrix"
            elif callable(obj):
                self._fn = obj
                self.name = self.spec or str(getattr(obj, "__qualname__", "M(d)"))
            else:
                raise UsageError(f"--matrix must be one of {', '.join(MATRICES)} or MODULE:ATTR of M(d) -> "
                                 f"(d, d) array, got {matrix!r}")

    @staticmethod
    def _hadamard(normalized: bool) -> Callable[[int], np.ndarray | None]:
        def H(d: int) -> np.ndarray | None:
            if d < 1 or d & (d - 1):
                return None
            from scipy.linalg import hadamard

            M = hadamard(d).astype(np.float64)
            return M / np.sqrt(d) if normalized else M

        return H

    def defined(self, d: int) -> bool:
        """Whether M exists at width d: a Hadamard or fixed matrix answers without building one; a callable
        ``M(d)`` has to be called (once per d: the answer is cached, the matrix is not kept)."""
        if self.structured:
            return d >= 1 and not d & (d - 1)
        if self._fixed_dim is not None:
            return d == self._fixed_dim
        if d not in self._defined:
            if d in self._operators:
                self._defined[d] = self._operators[d] is not None
            else:
                self._defined[d] = self.at(d) is not None
        return self._defined[d]

    def operator(self, d: int) -> MatrixOperator | None:
        """M at width d as the checks use it (cached per d), or None where it is undefined."""
        if d not in self._operators:
            if self.structured:
                self._operators[d] = (HadamardOperator(d, normalized=self.name == "hadamard-normalized")
                                      if self.defined(d) else None)
            elif self._defined.get(d) is False:
                self._operators[d] = None
            else:
                M = self.at(d)
                self._operators[d] = None if M is None else DenseOperator(M)
        return self._operators[d]

    def at(self, d: int) -> np.ndarray | None:
        """M at dimension d (float64, dense: O(d²) memory), or None where the declared matrix is undefined."""
        try:
            M = self._fn(d)
        except Exception:
            return None
        if M is None:
            return None
        try:
            M = np.asarray(M, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise UsageError(f"the declared matrix {self.name} returned {type(M).__name__} for d={d}, not a "
                             f"(d, d) array of numbers ({guard._one_line(exc)})") from None
        if M.shape != (d, d):
            raise UsageError(f"the declared matrix {self.name} returned shape {M.shape} for d={d}")
        return M


class TransformPlugin(HostedAdapter):
    """``apply(X) -> (n, d)``; raising, NaN and wrong shapes become :class:`PluginError`.  With the judge on
    (:mod:`rfverify.containment.hosted_kinds`) the transform lives in its own process: detected there, applied there (what it
    writes into its input written back here, as one process would see it), its output judged here."""

    def __init__(self, implementation: Any, *, name: str | None = None, call_kw: Mapping[str, Any] | None = None,
                 input: str | None = None, hosted: bool = True) -> None:
        from rfverify.containment.hosted_kinds import detect, host_for
        from rfverify.plugin_calls import as_call_kw

        self.spec: str | None = implementation if isinstance(implementation, str) else None
        #: None (numpy), "torch", "jax" or "cupy": the array library apply is handed (rfverify.arrays.to_input).
        self.input = validate_input(input)
        #: What went in and came out (library, dtype, device), for the report.
        self.arrays = ArrayRecord(self.input or "numpy")
        #: Extra keywords of every call (``--call-kw``: fht (2017)'s ``fht2(X, axes=1)``).
        self.call_kw = as_call_kw(call_kw)
        label = name or (implementation if isinstance(implementation, str) else "the transform")
        #: The transform's process (:class:`rfverify.containment.host.Host`), or None when it runs in this process.
        self.host = host_for(str(label), implementation) if hosted else None
        if self.host is not None:
            found = detect(self.host, _detect_transform, self.spec, name, dict(self.call_kw))
            self.host.plugin = str(found["name"])
            obj: PluginObject = self.host.root_proxy()
        else:
            obj = load_object(implementation) if isinstance(implementation, str) else implementation
            found = _detect_transform(obj, self.spec, name, self.call_kw)
        self.form, self.name, self._who = str(found["form"]), str(found["name"]), str(found["who"])
        self.spec = self.spec or found["spec"]
        self._rebind(obj)

    DERIVED = ("obj", "fn")

    def _rebind(self, obj: PluginObject) -> None:
        import functools

        from rfverify.plugin_calls import with_call_kw

        self.obj = obj
        if self.host is not None:  # its keywords were checked against its signature where it lives
            fn: PluginObject = _Method(obj, "apply") if self.form == "apply-method" else obj
            self.fn: Callable[[np.ndarray], PluginObject] = (functools.partial(fn, **self.call_kw) if self.call_kw
                                                             else fn)
        else:
            self.fn = with_call_kw(obj.apply if self.form == "apply-method" else obj, self.call_kw, self._who)

    def raw(self, X: np.ndarray) -> np.ndarray:
        """Call ``apply``; its exceptions propagate (the dimension probe wants them), but ``sys.exit``,
        ``MemoryError`` and unconvertible output are :class:`PluginError`."""
        out = self._remote("raw_out", X) if self.host is not None else self.raw_out(X)
        return guard.as_array(out, plugin=self.name, action="apply", complex_ok=True)

    def raw_out(self, X: np.ndarray) -> PluginObject:
        """``apply``'s output brought to numpy (where the transform lives); its exceptions propagate."""
        out = guard.call(self.fn, self._input(X), plugin=self.name, action=f"apply on shape {X.shape}",
                         passthrough=(Exception,))
        return to_numpy(out, plugin=self.name, action="apply", record=self.arrays)

    def _input(self, X: np.ndarray) -> Any:
        """``X`` in the declared input form, in its own dtype (numpy: ``X`` itself, which apply may overwrite)."""
        return to_input(X, self.input, keep_dtype=True, record=self.arrays)

    def working_dtype(self, dtype: Any) -> np.dtype:
        """The dtype an input of ``dtype`` is computed in (float32 for float64 under JAX's default): the round-off
        the exactness checks allow."""
        return handed_dtype(self.input, dtype)

    def __call__(self, X: np.ndarray) -> np.ndarray:
        """Call ``apply`` on valid input; misbehaviour is a :class:`PluginError`."""
        n, d = X.shape
        out = self._remote("out", X) if self.host is not None else self.out(X)
        Y = guard.as_array(out, plugin=self.name, action="apply", complex_ok=True)
        if Y.shape != (n, d):
            raise PluginError(self.name, f"apply returned shape {Y.shape} for input shape {X.shape}",
                              f"return the rows M x as an ({n}, {d}) array")
        guard.check_finite(Y, plugin=self.name, action=f"apply on finite input of shape {X.shape}")
        return Y

    def out(self, X: np.ndarray) -> PluginObject:
        """``apply``'s output on valid input brought to numpy (where the transform lives), under the guard."""
        # the plug-in's own UsageError is a fault too: it refused a valid input
        out = guard.call(self.fn, self._input(X), plugin=self.name,
                         action=f"apply on a valid {X.dtype} input of shape {X.shape}",
                         hint="apply must accept any (n, d) batch")
        return to_numpy(out, plugin=self.name, action="apply", record=self.arrays)


class _Method:
    """``obj.NAME`` of an object in the plug-in's process, read anew at each use (a handle to the bound method would
    not outlive the process; the object's handle does)."""

    def __init__(self, obj: PluginObject, name: str) -> None:
        self._obj, self._name = obj, name

    def __call__(self, *args: PluginObject, **kwargs: PluginObject) -> PluginObject:
        return getattr(self._obj, self._name)(*args, **kwargs)

    def __getattr__(self, attr: str) -> PluginObject:
        if attr.startswith("__") or attr in ("_obj", "_name"):
            raise AttributeError(attr)
        return getattr(getattr(self._obj, self._name), attr)


def _detect_transform(obj: PluginObject, spec: str | None, name: str | None,
                      call_kw: Mapping[str, PluginObject]) -> dict[str, JSONValue]:
    """The transform's form, spec and name (plain data: run where the transform lives)."""
    from rfverify.plugin_calls import check_accepts
    from rfverify.text import NAME_LIMIT, clean

    if callable(getattr(obj, "apply", None)) and not isinstance(obj, type):
        form, fn = "apply-method", obj.apply
    elif callable(obj):
        form, fn = "function", obj
    else:
        raise UsageError(f"{(spec if spec is not None else obj)!r} is not apply(X) -> (n, d) nor an object with an "
                         "apply method")
    who = f"{getattr(obj, '__qualname__', spec if spec is not None else obj)}"
    if call_kw:
        check_accepts(fn, call_kw, who)
    if spec is None:
        spec = spec_of(obj, instances=True)
    label = name or getattr(obj, "__name__", None) or type(obj).__name__
    return {"form": form, "spec": spec if spec is None or len(spec) <= 10_000 else None,
            "name": clean(str(label), NAME_LIMIT, one_line=True), "who": clean(who, NAME_LIMIT, one_line=True)}


def _call_kw_options(call_kw: Mapping[str, Any]) -> list[str]:
    from rfverify.plugin_calls import call_kw_options

    return call_kw_options(call_kw)


@dataclass(frozen=True)
class TransformOptions:
    """The options of a fast transform (``verify_transform``, ``rfverify check transform``), declared once."""

    dim: int = option(64, flag="--dim", cli_default="64", help="width d (default 64)",
                      parse=lambda text: parse_int(text, "--dim"), render=lambda c: ["--dim", str(c.dim)])
    #: ``hadamard``, ``hadamard-normalized``, a callable ``M(d) -> (d, d)`` or ``"MODULE:ATTR"`` naming one.
    matrix: Any = option("hadamard", flag="--matrix", cli_default="hadamard",
                         render=lambda c: ["--matrix", c.matrix.spec or "<MODULE:ATTR>"],
                         help="hadamard | hadamard-normalized | MODULE:ATTR of M(d) -> (d, d) (default hadamard)")
    inplace: bool = option(False, flag="--inplace", action="store_true", help="apply may overwrite its input",
                           render=lambda c: ["--inplace"] if c.inplace else [])
    call_kw: Mapping[str, Any] | None = call_kw_option(render=lambda c: _call_kw_options(c.plugin.call_kw))
    input: str | None = input_option("in the batch's own dtype, float32 and float64; e.g. --input torch for "
                                     "hadamard-transform",
                                     render=lambda c: ["--input", c.plugin.input] if c.plugin.input else [])
    #: ``{"d": D}`` fixes the width ``explore`` searches.
    pins: Mapping[str, Any] | None = pins_option(pin_flag("d=D", "explore: pin the width searched"))
    #: ``{"d_exp": (lo, hi)}`` or ``{"d": (lo, hi)}`` narrows the widths ``explore`` searches.
    space: Mapping[str, Any] | None = space_option()


class TransformConfig(KindConfig):
    """A validated configuration for verifying one transform."""

    kind = "transform"
    DIM_RANGE = (1, MAX_TRANSFORM_DIM)
    DIM_WHY = ("a user's declared matrix is dense (d x d float64): 2^14 keeps it at 2 GB; a Hadamard matrix is "
               "never formed")
    CLI = CliSpec("Verify MODULE:ATTR, apply(X (n, d)) -> (n, d), against X @ M.T.",
                  examples=("rfverify check transform rfverify.implementations.structured:fwht --dim 64",))

    Options = TransformOptions
    options: TransformOptions

    def _setup(self, implementation: Any, name: str | None) -> None:
        o = self.options
        self.dim = self.validate_dim(o.dim)
        #: Axes of the space ``explore`` searches fixed by the caller (``d``; :mod:`rfverify.kinds.pins`).
        self.pins = dict(o.pins or {})
        #: The caller's narrowing of the widths ``explore`` searches (``{"d_exp": (lo, hi)}`` or ``{"d": (lo, hi)}``;
        #: ``space=``, ``--space d_exp=LO:HI``).
        self.space = self.caller_space = dict(o.space or {})
        for key in self.space:
            if key not in ("d", "dim", "d_exp"):
                raise UsageError(f"unknown configuration key {key!r} for a transform; use d_exp or d")
        self.matrix = DeclaredMatrix(o.matrix)
        _spaces_module().transform_space(self, read_plugin=False)  # a bad space or pin: a UsageError now
        self.operator = self.matrix.operator(self.dim)
        if self.operator is None:
            why = " (hadamard needs a power of two)" if self.matrix.name in MATRICES else ""
            raise UsageError(f"the declared matrix {self.matrix.name} is not defined at d={self.dim}{why}; "
                             "choose --dim accordingly")
        from rfverify.validation import as_flag, as_name

        self.inplace = as_flag(o.inplace, "inplace")
        self.budget = TransformBudget(**budget(self.profile, "transform"))
        self.plugin = TransformPlugin(implementation, name=as_name(name), call_kw=o.call_kw, input=o.input)

    #: The transform is imported, detected and called in its own process (rfverify.containment.hosted_kinds) when the judge is on.
    HOSTED = True
    #: Options naming code the harness imports (a declared matrix named MODULE:ATTR: part of the reference); the
    #: CLI probes it first.
    HARNESS_IMPORTS = ("matrix",)

    @property
    def host(self) -> PluginObject:
        """The transform's process (:class:`rfverify.containment.host.Host`), or None when it runs in this process."""
        return self.plugin.host

    def in_process(self) -> None:
        """Run the transform in this process from now on (``isolate=False``)."""
        self.plugin.in_process()

    @property
    def M(self) -> np.ndarray:
        """The declared matrix, dense (O(d²) memory; the checks use :attr:`operator` instead)."""
        assert self.operator is not None
        return self.operator.dense()

    def target(self) -> dict[str, Any]:
        return {"name": self.matrix.name, "params": {"d": self.dim}}

    def as_dict(self) -> dict[str, Any]:
        return {"dim": self.dim, "matrix": self.matrix.spec or self.matrix.name, "inplace": self.inplace,
                "form": self.plugin.form, "spec": self.plugin.spec, "batch_sizes": list(self.budget.ns),
                "input": self.plugin.input or "numpy", "arrays": self.plugin.arrays.to_dict(),
                "call_kw": dict(self.plugin.call_kw)}

    def _context(self, spec: CheckSpec, alpha: float, reproduce: str) -> "TransformContext":
        return TransformContext(spec.name, self.profile, self.seeds, alpha, reproduce, config=self)

    def preflight(self) -> str | None:
        """Apply once to a 2-row float64 batch (a health check); the problem, or None."""
        X = self.seeds.rng("transform", "preflight", self.dim).standard_normal((2, self.dim))
        try:
            self.plugin(X.copy())
        except PluginError as exc:
            return str(exc)
        return None


@dataclass
class TransformContext(BaseContext[TransformConfig]):
    """What a transform check may use; randomness only via ``seeds``."""

    @property
    def dim(self) -> int:
        return self.config.dim

    @property
    def operator(self) -> MatrixOperator:
        """The declared matrix at this width: reference, norms and tolerance without forming it."""
        return self.config.operator  # type: ignore[return-value]

    @property
    def M(self) -> np.ndarray:
        """The declared matrix, dense (O(d²) memory; prefer :attr:`operator`)."""
        return self.config.M

    def rng(self, *stream: Any) -> np.random.Generator:
        return self.seeds.rng("transform", self.check, self.dim, *stream)

    def apply(self, X: np.ndarray) -> np.ndarray:
        """Apply to a private copy of X (so in-place transforms cannot disturb the caller's data)."""
        return self.config.plugin(np.array(X, copy=True))


verify_transform = make_verify(TransformConfig, "verify_transform", """Verify that ``apply(X)`` equals ``X @ M.T`` for the declared ``matrix`` at dimension ``dim``.

    Returns a :class:`~rfverify.results.Report` (kind ``transform``).  ``time_limit`` /
    ``memory_limit``: per check (:class:`rfverify.containment.guard.Limits`).  ``space``: ``{"d_exp": (lo, hi)}`` narrows
    the widths ``explore`` searches; ``strict_space``: a refusal anywhere in them fails ``explore``
    (:mod:`rfverify.refusals`).  ``call_kw``: extra keywords of every call (``{"axes": 1}`` for fht (2017)'s
    ``fht2``; ``--call-kw axes=1``).  ``input``: ``"torch"``, ``"jax"`` or ``"cupy"`` hands ``apply`` that
    library's arrays (:mod:`rfverify.arrays`).
    The keywords are the fields of :class:`TransformOptions` and those of the run (``seed``, ``profile``, ``name``,
    ``checks``, ``xfail``, ``time_limit``, ``memory_limit``, ``strict_space``).
    """)

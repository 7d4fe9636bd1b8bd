"""The kernel registry: exact reference kernels that implementations are held to.

A kernel is looked up by name with parameters (``get_kernel("rbf", gamma=0.5)``)
or wrapped from any callable ``k(X, Y) -> Gram``.  Public functions validate;
the registered ``_gram`` functions compute.  Issues that add schemes add their
kernels here with :func:`register_kernel`.

>>> k = get_kernel("rbf", gamma=0.5)
>>> float(k.pairwise([[0.0, 0.0]], [[1.0, 1.0]])[0])  # exp(-0.5 * 2)
0.36787944117144233
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from rfverify.errors import UsageError

__all__ = [
    "Kernel",
    "KernelSpec",
    "ParamSpec",
    "register_kernel",
    "get_kernel",
    "kernel_names",
    "kernel_spec",
    "as_kernel",
]


@dataclass(frozen=True)
class ParamSpec:
    """One kernel parameter: default, type and the range it must lie in."""

    default: Any
    kind: type = float
    check: Callable[[Any], bool] = lambda v: True
    requirement: str = ""
    doc: str = ""
    #: The range exploration searches (``rfverify.strategies.kernel_params``): ``(lo, hi)`` for an integer,
    #: ``(lo, hi, "log")`` for a float drawn on a log scale, ``(lo, hi, "linear")`` uniformly; None: the
    #: parameter is held at the value given (not searched).
    search: tuple[Any, ...] | None = None


@dataclass(frozen=True)
class KernelSpec:
    """A registered kernel family."""

    name: str
    gram: Callable[..., np.ndarray]
    params: Mapping[str, ParamSpec]
    doc: str
    #: ``length_scale(d, **params)``: input scale at which kernel values spread
    #: over their range for the default Gaussian domain (None: calibrate).
    length_scale: Callable[..., float] | None = None
    #: ``domain_error(X, **params)``: a message if X is outside the domain, else None.
    domain_error: Callable[..., str | None] | None = None
    #: True when k(x, x) = 1 for every x.
    normalized: bool = False
    #: False for a kernel that is NOT positive semi-definite in general (e.g. the tanh "sigmoid"
    #: kernel); ``psd_note`` says why, and the ``kernel-psd`` check then expects to find a witness.
    psd: bool = True
    psd_note: str = ""
    #: The input domain the kernel is checked on by default (``gaussian``, ``sphere``, ``positive``).
    domain: str = "gaussian"
    #: Stated bound on the evaluation error beyond round-off, relative to the kernel's scale
    #: (a tabulated approximation); the kernel checks add it to their round-off tolerances.
    accuracy: float = 0.0
    #: For a kernel built with the composition rules (:mod:`rfverify.kernels.composition`): ``build(**params)``
    #: returns the composite :class:`Kernel` that remembers its parts (``gram`` then delegates to it).
    build: Callable[..., "Kernel"] | None = None


_REGISTRY: dict[str, KernelSpec] = {}


def register_kernel(spec: KernelSpec) -> KernelSpec:
    """Add a kernel family to the registry (names are unique)."""
    if spec.name in _REGISTRY:
        raise ValueError(f"kernel {spec.name!r} is already registered")
    _REGISTRY[spec.name] = spec
    return spec


def kernel_names() -> list[str]:
    """Registered kernel names, sorted."""
    return sorted(_REGISTRY)


def kernel_spec(name: str) -> KernelSpec:
    """The registered spec of kernel ``name`` (its parameters with their defaults, and its one-line doc)."""
    get_kernel(name)  # an unknown name is the one-line UsageError of get_kernel
    return _REGISTRY[name]


@dataclass(frozen=True)
class Kernel:
    """A kernel with its parameters bound: the exact reference ``k(X, Y)``."""

    name: str
    params: Mapping[str, Any] = field(default_factory=dict)
    _gram: Callable[..., np.ndarray] | None = field(default=None, repr=False, compare=False)
    _spec: KernelSpec | None = field(default=None, repr=False, compare=False)

    def __call__(self, X: Any, Y: Any) -> np.ndarray:
        """The Gram matrix ``[k(x_i, y_j)]``."""
        X = _as_2d(X, "X")
        Y = _as_2d(Y, "Y")
        if X.shape[1] != Y.shape[1]:
            raise UsageError(f"X has {X.shape[1]} columns but Y has {Y.shape[1]}")
        self.validate_inputs(X)
        self.validate_inputs(Y)
        assert self._gram is not None
        G = np.asarray(self._gram(X, Y, **self.params))
        if G.shape != (X.shape[0], Y.shape[0]):
            raise UsageError(
                f"kernel {self.name} returned shape {G.shape} for inputs of "
                f"{X.shape[0]} and {Y.shape[0]} rows; a kernel callable must return the "
                f"({X.shape[0]}, {Y.shape[0]}) Gram matrix"
            )
        if np.iscomplexobj(G):
            G = G.real
        G = G.astype(float, copy=False)
        if not np.all(np.isfinite(G)):
            raise UsageError(f"kernel {self.name} returned non-finite values")
        return G

    def pairwise(self, X: Any, Y: Any) -> np.ndarray:
        """Row-wise values ``k(x_i, y_i)``."""
        X = _as_2d(X, "X")
        Y = _as_2d(Y, "Y")
        if X.shape != Y.shape:
            raise UsageError(f"pairwise needs X and Y of one shape, got {X.shape} and {Y.shape}")
        return np.array([self(X[i : i + 1], Y[i : i + 1])[0, 0] for i in range(X.shape[0])])

    def validate_inputs(self, X: np.ndarray) -> None:
        if self._spec is not None and self._spec.domain_error is not None:
            msg = self._spec.domain_error(X, **self.params)
            if msg:
                raise UsageError(f"kernel {self.describe()}: {msg}")

    def length_scale(self, d: int) -> float | None:
        if self._spec is None or self._spec.length_scale is None:
            return None
        return float(self._spec.length_scale(d, **self.params))

    @property
    def normalized(self) -> bool:
        return bool(self._spec is not None and self._spec.normalized)

    def describe(self) -> str:
        if not self.params:
            return self.name
        inner = ", ".join(f"{k}={v!r}" for k, v in sorted(self.params.items()))
        return f"{self.name}({inner})"

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "params": {k: self.params[k] for k in sorted(self.params)}}


def _as_2d(X: Any, what: str) -> np.ndarray:
    A = np.asarray(X, dtype=float)
    if A.ndim != 2:
        raise UsageError(f"{what} must be a 2-D array (n_samples, n_features), got shape {A.shape}")
    return A


def get_kernel(name: str, **params: Any) -> Kernel:
    """The registered kernel ``name`` with ``params`` validated against its spec."""
    spec = _REGISTRY.get(name)
    if spec is None:
        raise UsageError(
            f"unknown kernel {name!r}; known kernels: {', '.join(kernel_names())} "
            f"(or pass a callable k(X, Y) -> Gram matrix)"
        )
    bound: dict[str, Any] = {}
    for key, value in params.items():
        if key not in spec.params:
            known = ", ".join(spec.params) or "none"
            raise UsageError(f"kernel {name!r} has no parameter {key!r}; its parameters: {known}")
        p = spec.params[key]
        try:
            value = _coerce(value, p.kind)
        except (TypeError, ValueError):
            raise UsageError(
                f"kernel {name!r}: parameter {key}={value!r} must be {p.kind.__name__}"
            ) from None
        if not p.check(value):
            raise UsageError(f"kernel {name!r}: parameter {key}={value!r} out of range; {p.requirement}")
        bound[key] = value
    for key, p in spec.params.items():
        bound.setdefault(key, p.default)
    if spec.build is not None:  # a registry composite: keep its parts, under the registry name
        from dataclasses import replace

        return replace(spec.build(**bound), name=name, params=bound, _spec=spec)
    return Kernel(name, bound, spec.gram, spec)


def _coerce(value: Any, kind: type) -> Any:
    if kind is float:
        if isinstance(value, bool):
            raise TypeError
        v = float(value)
        return v
    if kind is int:
        if isinstance(value, bool):
            raise TypeError
        if isinstance(value, float) and not value.is_integer():
            raise ValueError
        if isinstance(value, str) and not value.strip().lstrip("+-").isdigit():
            raise ValueError
        return int(value)
    return kind(value)


def as_kernel(kernel: str | Kernel | Callable[..., Any], params: Mapping[str, Any] | None = None) -> Kernel:
    """Normalise what a user passes as the target kernel.

    A registry name (with ``params``), a :class:`Kernel`, or a callable
    ``k(X, Y) -> (n_X, n_Y) Gram matrix`` (``params`` are then passed to it as
    keywords).
    """
    from rfverify.validation import as_params

    params = as_params(params)
    if isinstance(kernel, Kernel):
        if params:
            raise UsageError("kernel parameters go with a kernel name, not a bound Kernel")
        return kernel
    if isinstance(kernel, str):
        return get_kernel(kernel, **params)
    if callable(kernel):
        name = getattr(kernel, "__qualname__", None) or type(kernel).__name__
        mod = getattr(kernel, "__module__", None)
        label = f"{mod}:{name}" if mod else name

        from rfverify.arrays import ArrayRecord, to_numpy

        arrays = ArrayRecord()  # what the Gram matrices came back as (library, dtype, device), for the report

        def gram(X: np.ndarray, Y: np.ndarray, **kw: Any) -> np.ndarray:
            from rfverify.containment import guard  # the user's kernel is user code: its faults are PluginErrors, not crashes

            out = guard.call(kernel, X, Y, plugin=f"kernel {label}", action=f"k(X, Y) on shapes {X.shape}, {Y.shape}",
                             hint="a kernel callable must be k(X, Y) -> (n_X, n_Y) Gram matrix", **kw)
            # any array library's Gram matrix (torch, JAX, CuPy, dask) comes to the host in its own dtype
            return guard.as_array(to_numpy(out, plugin=f"kernel {label}", action="k(X, Y)", record=arrays),
                                  plugin=f"kernel {label}", action="k(X, Y)", complex_ok=True)

        gram.arrays = arrays  # type: ignore[attr-defined]

        return Kernel(label, params, gram, None)
    raise UsageError(f"kernel must be a registry name or a callable k(X, Y), got {type(kernel).__name__}")


# --------------------------------------------------------------------------
# Registered kernels
# --------------------------------------------------------------------------

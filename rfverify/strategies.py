"""Hypothesis strategies over a plug-in's configuration space (public: use them in your own property tests).

rfverify's ``explore`` checks search these spaces (:mod:`rfverify.explore`); the same strategies work in a
user's ``@given`` test.  Each strategy puts the corners where bugs live within Hypothesis' reach and lets a
failure shrink towards the simplest value (the left end of a range, the first entry of a choice):

* :func:`dimensions` — input dimension d (1 … 512 by default);
* :func:`n_components` — feature counts 1 … 4096, odd counts, 1 and non-multiples of d included;
* :func:`random_states` — any seed in [0, 2**32), 0 included and tried early;
* :func:`kernel_params` — a registry kernel's parameters over their declared search ranges
  (:attr:`rfverify.kernels.ParamSpec.search`, e.g. gamma 1e-3 … 1e3 on a log scale, degree 1 … 5);
* :func:`dtypes`, :func:`layouts`, :func:`norms` — float32/float64; C-ordered, Fortran-ordered and strided
  views; near-zero, typical and large input norms in kernel length scales;
* :func:`batches` — whole input batches (1 … 10,000 rows) built with :func:`make_batch`;
* :func:`transform_widths`, :func:`orthogonal_dimensions` — the other kinds' sizes.

>>> from hypothesis import find
>>> find(n_components(), lambda m: m % 2 == 1)      # the smallest odd feature count
1
>>> m = find(n_components(), lambda m: m > 100 and m % 7 != 0)
>>> m in (101, 255)     # the smallest such count, or the corner 255 (a shrink does not cross the corners' one_of)
True
>>> find(dimensions(), lambda d: d >= 33)
33
>>> find(random_states(), lambda s: s >= 0)         # seed 0 is the simplest seed
0
>>> find(kernel_params("rbf"), lambda p: p["gamma"] > 100) ["gamma"] > 100
True
>>> X = find(batches(3), lambda X: X.shape[0] > 4 and X.flags.f_contiguous and not X.flags.c_contiguous)
>>> X.shape, X.dtype
((5, 3), dtype('float64'))
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Container, Protocol, TypeAlias

import numpy as np
import numpy.typing as npt
from hypothesis import strategies as st

from rfverify.errors import UsageError
from rfverify.options import DTYPES, LAYOUTS
from rfverify.jsontypes import JSONValue
from rfverify.kernels import Kernel, as_kernel

__all__ = ["dimensions", "n_components", "random_states", "kernel_params", "dtypes", "layouts", "norms",
           "NORM_SCALES", "LAYOUTS", "DTYPES", "make_batch", "batches", "transform_widths",
           "orthogonal_dimensions", "Range"]

#: Input norms, in kernel length scales: the names a failure reports and the factor they stand for.
NORM_SCALES: dict[str, float] = {"typical": 1.0, "near-zero": 1e-6, "large": 30.0}
#: Memory layouts of an input batch (``LAYOUTS``) and input dtypes (``DTYPES``): defined in
#: :mod:`rfverify.options` so the command line's choices do not import Hypothesis.


@dataclass(frozen=True)
class Range:
    """An inclusive integer range ``lo … hi`` (a declared or default axis of a configuration space)."""

    lo: int
    hi: int

    def __post_init__(self) -> None:
        if isinstance(self.lo, bool) or isinstance(self.hi, bool) or not (
                isinstance(self.lo, (int, np.integer)) and isinstance(self.hi, (int, np.integer))) \
                or not 0 <= self.lo <= self.hi:
            raise UsageError(f"a range needs integers 0 <= lo <= hi, got {self.lo!r} … {self.hi!r}")

    def __str__(self) -> str:
        return str(self.lo) if self.lo == self.hi else f"{self.lo} … {self.hi}"


#: A checks domain: "gaussian", "positive", "sphere", or a callable ``domain(n, d, rng)`` returning its points.
Domain: TypeAlias = "str | Callable[[int, int, np.random.Generator], npt.ArrayLike]"

def _ints(lo: int, hi: int, corners: tuple[int, ...] = ()) -> st.SearchStrategy[int]:
    """Integers in [lo, hi], the corners in range tried first (shrinking goes towards lo)."""
    inside = tuple(sorted({c for c in corners if lo <= c <= hi}))
    base = st.integers(lo, hi)
    return st.one_of(base, st.sampled_from(inside)) if inside else base


def dimensions(lo: int = 1, hi: int = 512) -> st.SearchStrategy[int]:
    """Input dimensions d in [lo, hi]; 1, 2, powers of two and their neighbours are tried often.

    >>> from hypothesis import find
    >>> d = find(dimensions(4, 64), lambda d: d & (d - 1) != 0)   # a non-power of two (how far Hypothesis
    >>> 4 < d < 64 and d & (d - 1) != 0                              # shrinks a one_of depends on its version)
    True
    """
    corners = (1, 2, 3, 4) + tuple(p + e for p in (8, 16, 32, 64, 128, 256, 512) for e in (-1, 0, 1))
    small = st.integers(lo, min(hi, max(lo, 16)))  # a third of the draws stay small: cheap, and where bugs hide
    return st.one_of(_ints(lo, hi, corners), small)


def n_components(lo: int = 1, hi: int = 4096) -> st.SearchStrategy[int]:
    """Feature counts m in [lo, hi]: 1, odd counts, and counts that are no power of two are all in reach.

    >>> from hypothesis import find
    >>> find(n_components(2, 50), lambda m: m % 2 == 1)
    3
    """
    return _ints(lo, hi, (1, 2, 3, 5, 7, 15, 17, 63, 65, 255, 257, 1023, 1025))


def random_states(hi: int = 2**32 - 1) -> st.SearchStrategy[int]:
    """Seeds in [0, hi] (2**32 - 1: the range scikit-learn accepts); 0 is tried first and often,
    because ``random_state or None`` silently turns seed 0 into fresh entropy.

    >>> from hypothesis import find
    >>> s = find(random_states(), lambda s: s > 1)
    >>> s in (2, 2**32 - 1)   # the smallest, or the corner hi (a shrink does not cross the corners' one_of)
    True
    """
    return _ints(0, hi, (0, 1, hi))


class SearchRange(Protocol):
    """A parameter's search range as :class:`rfverify.kernels.base.ParamSpec` declares it: ``(lo, hi)`` an integer
    range, ``(lo, hi, "log" | "linear")`` a float one; ``kind`` its type."""

    @property
    def search(self) -> tuple[Any, ...] | None: ...

    @property
    def kind(self) -> type: ...


def _param_strategy(name: str, spec: SearchRange) -> st.SearchStrategy[float]:
    assert spec.search is not None  # only parameters with a search range are searched
    lo, hi, *scale = spec.search
    if spec.kind is int:
        return st.integers(int(lo), int(hi))
    if scale and scale[0] == "log":
        # uniform in log10, rounded to 3 significant digits so that a reported value replays exactly
        return st.floats(math.log10(lo), math.log10(hi)).map(lambda t: float(f"{10.0 ** t:.3g}"))
    return st.floats(float(lo), float(hi)).map(lambda v: float(f"{v:.3g}"))


def kernel_params(kernel: str | Kernel, *, names: Container[str] | None = None,
                  fixed: dict[str, JSONValue] | None = None) -> st.SearchStrategy[dict[str, JSONValue]]:
    """A registry kernel's parameters drawn over their declared search ranges (:class:`ParamSpec` ``search``).

    ``names``: only these parameters are searched (default: every parameter with a search range); the others,
    and any given in ``fixed``, keep their value (the kernel's own or the default).

    >>> from hypothesis import find
    >>> find(kernel_params("polynomial"), lambda p: p["degree"] >= 3)["degree"]
    3
    >>> find(kernel_params("rbf", fixed={"gamma": 0.5}), lambda p: True)
    {'gamma': 0.5}
    """
    k = as_kernel(kernel) if isinstance(kernel, str) else kernel
    spec = getattr(k, "_spec", None)
    if spec is None:
        raise UsageError(f"kernel_params needs a registry kernel (rfverify list kernels), got {k.describe()}")
    fixed = dict(fixed or {})
    base = {**dict(k.params), **fixed}
    parts: dict[str, st.SearchStrategy[JSONValue]] = {}
    for name, ps in spec.params.items():
        if name in fixed or ps.search is None or (names is not None and name not in names):
            parts[name] = st.just(base.get(name, ps.default))
        else:
            parts[name] = _param_strategy(name, ps)
    return st.fixed_dictionaries(parts)


def dtypes() -> st.SearchStrategy[str]:
    """``"float64"`` or ``"float32"`` (shrinks to float64)."""
    return st.sampled_from(DTYPES)


def layouts() -> st.SearchStrategy[str]:
    """``"C"``, ``"F"`` (Fortran-ordered) or ``"strided"`` (a non-contiguous view); shrinks to C."""
    return st.sampled_from(LAYOUTS)


def norms() -> st.SearchStrategy[str]:
    """``"typical"``, ``"near-zero"`` or ``"large"`` row norms (in kernel length scales; see :data:`NORM_SCALES`)."""
    return st.sampled_from(tuple(NORM_SCALES))


def make_batch(n: int, d: int, *, seed: int = 0, dtype: str = "float64", layout: str = "C",
               norm: str = "typical", length_scale: float = 1.0, domain: Domain = "gaussian") -> np.ndarray:
    """An (n, d) input batch: deterministic in its arguments, in the dtype and memory layout asked for.

    ``domain``: ``gaussian`` (rows ~ N(0, I) times the norm factor times ``length_scale``), ``positive``
    (their absolute values), ``sphere`` (unit rows; ``norm`` does not apply), or a callable
    ``domain(n, d, rng)`` (its points as they are).

    >>> X = make_batch(4, 3, layout="strided", dtype="float32")
    >>> X.shape, X.dtype, X.flags.c_contiguous, X.flags.f_contiguous
    ((4, 3), dtype('float32'), False, False)
    >>> bool(np.all(make_batch(5, 2, domain="positive") >= 0))
    True
    """
    if layout not in LAYOUTS:
        raise UsageError(f"layout must be one of {', '.join(LAYOUTS)}, got {layout!r}")
    if dtype not in DTYPES:
        raise UsageError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    if norm not in NORM_SCALES:
        raise UsageError(f"norm must be one of {', '.join(NORM_SCALES)}, got {norm!r}")
    rng = np.random.default_rng(seed)
    if callable(domain):
        X = np.asarray(domain(n, d, rng), dtype=np.float64)
    else:
        X = rng.standard_normal((n, d))
        if domain == "sphere":
            X /= np.linalg.norm(X, axis=1, keepdims=True)
        else:
            X *= NORM_SCALES[norm] * length_scale
            if domain == "positive":
                X = np.abs(X)
    X = X.astype(dtype)
    if layout == "F":
        return np.asfortranarray(X)
    if layout == "strided":
        big = np.zeros((2 * n, 2 * d), dtype=dtype)
        big[::2, ::2] = X
        return big[::2, ::2]
    return np.ascontiguousarray(X)


@st.composite
def batches(draw: st.DrawFn, d: int, *, rows: tuple[int, int] = (1, 10_000),
            domain: Domain = "gaussian", length_scale: float = 1.0) -> np.ndarray:
    """Input batches of d columns: 1 … 10,000 rows, float32/float64, C/Fortran/strided, three norm bands.

    >>> from hypothesis import find
    >>> find(batches(2, rows=(1, 50)), lambda X: X.dtype == np.float32).shape
    (1, 2)
    """
    n = draw(_ints(rows[0], rows[1], (1, 2, 3)))
    return make_batch(n, d, seed=draw(st.integers(0, 2**16)), dtype=draw(dtypes()), layout=draw(layouts()),
                      norm=draw(norms()), length_scale=length_scale, domain=domain)


def transform_widths(lo_exp: int = 0, hi_exp: int = 14) -> st.SearchStrategy[int]:
    """Transform widths d = 2**k, k in [lo_exp, hi_exp] (shrinks to 2**lo_exp).

    >>> from hypothesis import find
    >>> find(transform_widths(), lambda d: d >= 100)
    128
    """
    return st.integers(lo_exp, hi_exp).map(lambda k: 2 ** k)


def orthogonal_dimensions(lo: int = 1, hi: int = 256) -> st.SearchStrategy[int]:
    """Matrix dimensions of an orthogonal sampler (1 … 256 by default)."""
    return dimensions(lo, hi)

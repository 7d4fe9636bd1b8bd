"""Feature maps of composite kernels, built by the cs4787 lecture's rules from the parts' reference maps.

A composite kernel (:class:`rfverify.kernels.composition.CompositeKernel`) remembers its parts; this
module turns it into a *feature tree*.  One **draw** of a node maps an input x to a block
psi(x) of width r with E[psi(x) . psi(y)] = k(x, y) (for a deterministic node, psi(x) . psi(y)
= k(x, y) exactly).  The map with m features concatenates m independent draws and divides by
sqrt(m), so k_hat is an average of m i.i.d. unbiased terms (its MSE falls like 1/m); a tree
with no randomness is drawn once (an exact map).

Leaves (the parts' reference maps):

* ``rbf`` — our random Fourier features (:class:`~rfverify.implementations.rff.RandomFourierFeatures`):
  psi = sqrt(2) cos(w.x + b), w ~ N(0, 2 gamma I), b ~ U[0, 2 pi];
* ``laplacian`` — Cauchy frequencies (:class:`~rfverify.implementations.laplacian.LaplacianRandomFeatures`);
* ``arccos`` — sqrt(2) Theta(w.x) (w.x)^n (:class:`~rfverify.implementations.arccos.ArcCosineFeatures`);
* ``linear`` — exact: psi(x) = x;  ``polynomial`` — exact: [sqrt(c), sqrt(gamma) x]^(tensor p),
  width (d + 1)^p (the product rule applied p times to the linear-plus-constant kernel).

Composition (per draw, lecture 16's table):

* ``sum``: [psi1, psi2] (concatenation);  ``scale``: sqrt(c) psi1;  ``conformal``: f(x) psi1(x);
* ``product``: psi1 (tensor) psi2, from independent draws of the two parts, so
  E[(psi1(x) (x) psi2(x)) . (psi1(y) (x) psi2(y))] = E[psi1 . psi1] E[psi2 . psi2] = k1 k2
  (an exact part wider than MAX_TENSOR_WIDTH beside a random one enters through a Rademacher
  sketch g . Phi(x) per draw, unbiased and (d + 1)^p times narrower);
* ``exp``: **random Maclaurin** (Kar & Karnick 2012, §3): exp(k) = sum_n k^n / n!.  Draw the
  degree N with P(N = n) = p^-(n+1) (p = 2), then N independent scalar draws s_j of the base
  (a block psi_j reduced to g_j . psi_j with Rademacher g_j in {-1, 1}^r, as Kar & Karnick project
  x; still E[s_j(x) s_j(y)] = k(x, y), and bounded where Gaussian g_j gave tails heavy enough to
  upset the MSE-slope test),
  and output sqrt(p^(N+1) / N!) prod_j s_j(x).  Then E = sum_n p^-(n+1) (p^(n+1) / n!) k^n
  = exp(k): unbiased, with finite variance whenever E[s(x)^2 s(y)^2] is finite.

:func:`composite_features` gives the plug-in factory for any composite whose leaves are above;
:func:`feature_tree` the tree (None, with the reason, when a part has no reference map).  The
named classes (:class:`RBFLaplacianMixFeatures`, :class:`ExpLinearFeatures`, ...) are the
composites of the registry as ordinary plug-ins ``Cls(n_components, random_state, **params)``.

>>> import numpy as np
>>> from rfverify.kernels import get_kernel
>>> X = np.array([[0.1, 0.2], [0.3, -0.1]])
>>> f = CompositeFeatures(feature_tree(get_kernel("normalized_polynomial")), 1, 0).fit(X)
>>> np.allclose(f.transform(X) @ f.transform(X).T, get_kernel("normalized_polynomial")(X, X))  # exact
True
"""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping

import numpy as np

from rfverify.kernels.composition import CompositeKernel
from rfverify.errors import UsageError
from rfverify.implementations._base import FeatureMap
from rfverify.kernels import Kernel, get_kernel

__all__ = ["Node", "RandomLeaf", "LinearLeaf", "PolynomialLeaf", "Sum", "Scale", "Conformal", "Product", "Exp",
           "NODES", "LEAVES", "feature_tree", "why_no_tree", "CompositeFeatures", "composite_features",
           "RBFPlusLaplacianFeatures", "RBFLaplacianMixFeatures", "RBFTimesPolynomialFeatures",
           "ExpLinearFeatures", "MACLAURIN_P", "MAX_EXACT_WIDTH", "MAX_TENSOR_WIDTH"]

#: The geometric degree law of random Maclaurin features: P(N = n) = p^-(n+1) (Kar & Karnick use p = 2).
MACLAURIN_P = 2.0
#: Widest exact polynomial block (d + 1)^p built; wider polynomials have no exact map here.
MAX_EXACT_WIDTH = 4096
#: In a product with a random part, an exact part wider than this is sketched per draw (see Product).
MAX_TENSOR_WIDTH = 64


class Node:
    """One node of a feature tree: ``draw(d, m, rng)`` then ``apply(state, X) -> (n, m or 1, r)``."""

    random: bool = True

    def draw(self, d: int, m: int, rng: np.random.Generator) -> Any:
        raise NotImplementedError

    def apply(self, state: Any, X: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def width(self, d: int) -> int:
        """r: the width of one draw's block for inputs of dimension d."""
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


class RandomLeaf(Node):
    """A reference random-feature class whose columns are i.i.d. single-feature estimates / sqrt(m)."""

    def __init__(self, name: str, cls: type, params: Mapping[str, Any]) -> None:
        self.name, self.cls, self.params = name, cls, dict(params)

    def draw(self, d: int, m: int, rng: np.random.Generator) -> Any:
        return self.cls(n_components=m, random_state=int(rng.integers(2**32)), **self.params).fit(np.zeros((1, d)))

    def apply(self, state: Any, X: np.ndarray) -> np.ndarray:
        F = np.asarray(state.transform(X), dtype=float) * math.sqrt(state.n_components)
        return F[:, :, None]

    def width(self, d: int) -> int:
        return 1

    def describe(self) -> str:
        return f"{self.name} random features ({self.cls.__name__})"


class LinearLeaf(Node):
    """Exact features of <x, y>: psi(x) = x."""

    random = False

    def draw(self, d: int, m: int, rng: np.random.Generator) -> Any:
        return None

    def apply(self, state: Any, X: np.ndarray) -> np.ndarray:
        return X[:, None, :]

    def width(self, d: int) -> int:
        return d

    def describe(self) -> str:
        return "linear (exact)"


class PolynomialLeaf(Node):
    """Exact features of (gamma <x, y> + c)^p: [sqrt(c), sqrt(gamma) x] tensored p times."""

    random = False

    def __init__(self, gamma: float, coef0: float, degree: int) -> None:
        self.gamma, self.coef0, self.degree = gamma, coef0, degree

    def draw(self, d: int, m: int, rng: np.random.Generator) -> Any:
        if (d + 1) ** self.degree > MAX_EXACT_WIDTH:
            raise UsageError(f"exact polynomial features of degree {self.degree} in d = {d} have width "
                             f"{(d + 1) ** self.degree} > {MAX_EXACT_WIDTH}")
        return None

    def apply(self, state: Any, X: np.ndarray) -> np.ndarray:
        base = np.hstack([np.full((X.shape[0], 1), math.sqrt(self.coef0)), math.sqrt(self.gamma) * X])
        out = np.ones((X.shape[0], 1))
        for _ in range(self.degree):
            out = np.einsum("na,nb->nab", out, base).reshape(X.shape[0], -1)
        return out[:, None, :]

    def width(self, d: int) -> int:
        return (d + 1) ** self.degree

    def describe(self) -> str:
        return f"polynomial degree {self.degree} (exact)"


def _broadcast(A: np.ndarray, B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    m = max(A.shape[1], B.shape[1])
    return (np.broadcast_to(A, (A.shape[0], m, A.shape[2])), np.broadcast_to(B, (B.shape[0], m, B.shape[2])))


class Sum(Node):
    """[psi1, psi2]: the lecture's concatenation."""

    def __init__(self, a: Node, b: Node) -> None:
        self.a, self.b = a, b
        self.random = a.random or b.random

    def draw(self, d: int, m: int, rng: np.random.Generator) -> Any:
        return (self.a.draw(d, m, rng), self.b.draw(d, m, rng))

    def apply(self, state: Any, X: np.ndarray) -> np.ndarray:
        A, B = _broadcast(self.a.apply(state[0], X), self.b.apply(state[1], X))
        return np.concatenate([A, B], axis=2)

    def width(self, d: int) -> int:
        return self.a.width(d) + self.b.width(d)

    def describe(self) -> str:
        return f"[{self.a.describe()}, {self.b.describe()}]"


class Product(Node):
    """psi1 (tensor) psi2 from independent draws of the parts.

    An exact (deterministic) part wider than :data:`MAX_TENSOR_WIDTH` next to a random part is
    *sketched* per draw: its block Phi(x) becomes g . Phi(x) with g Rademacher (E[g g^T] = I, so the
    estimate stays unbiased).  The lecture's full tensor product would make every draw
    (d + 1)^p times wider (289 x for a degree-2 polynomial in d = 16) for the same mean.
    """

    def __init__(self, a: Node, b: Node) -> None:
        self.a, self.b = a, b
        self.random = a.random or b.random

    def _sketched(self, side: Node, d: int) -> bool:
        return self.random and not side.random and side.width(d) > MAX_TENSOR_WIDTH

    def draw(self, d: int, m: int, rng: np.random.Generator) -> Any:
        sa, sb = self.a.draw(d, m, rng), self.b.draw(d, m, rng)
        signs = np.array([-1.0, 1.0])
        # stored (r, m) C-contiguous: Phi @ G is a plain GEMM (a transposed view is ~100x slower in OpenBLAS)
        ga = rng.choice(signs, size=(self.a.width(d), m)) if self._sketched(self.a, d) else None
        gb = rng.choice(signs, size=(self.b.width(d), m)) if self._sketched(self.b, d) else None
        return sa, sb, ga, gb

    def apply(self, state: Any, X: np.ndarray) -> np.ndarray:
        sa, sb, ga, gb = state
        A, B = self.a.apply(sa, X), self.b.apply(sb, X)
        if ga is not None:
            A = (np.ascontiguousarray(A[:, 0, :]) @ ga)[:, :, None]
        if gb is not None:
            B = (np.ascontiguousarray(B[:, 0, :]) @ gb)[:, :, None]
        A, B = _broadcast(A, B)
        n, m = A.shape[:2]
        return (A[:, :, :, None] * B[:, :, None, :]).reshape(n, m, -1)

    def width(self, d: int) -> int:
        wa = 1 if self._sketched(self.a, d) else self.a.width(d)
        wb = 1 if self._sketched(self.b, d) else self.b.width(d)
        return wa * wb

    def describe(self) -> str:
        return f"({self.a.describe()}) (x) ({self.b.describe()})"


class Scale(Node):
    """sqrt(c) psi1."""

    def __init__(self, c: float, a: Node) -> None:
        self.c, self.a = c, a
        self.random = a.random

    def draw(self, d: int, m: int, rng: np.random.Generator) -> Any:
        return self.a.draw(d, m, rng)

    def apply(self, state: Any, X: np.ndarray) -> np.ndarray:
        return math.sqrt(self.c) * self.a.apply(state, X)

    def width(self, d: int) -> int:
        return self.a.width(d)

    def describe(self) -> str:
        return f"sqrt({self.c:g}) {self.a.describe()}"


class Conformal(Node):
    """f(x) psi1(x)."""

    def __init__(self, f: Callable[..., Any], a: Node) -> None:
        self.f, self.a = f, a
        self.random = a.random

    def draw(self, d: int, m: int, rng: np.random.Generator) -> Any:
        return self.a.draw(d, m, rng)

    def apply(self, state: Any, X: np.ndarray) -> np.ndarray:
        from rfverify.kernels.composition import _apply_f

        return _apply_f(self.f, X)[:, None, None] * self.a.apply(state, X)

    def width(self, d: int) -> int:
        return self.a.width(d)

    def describe(self) -> str:
        return f"f(x) {self.a.describe()}"


class Exp(Node):
    """Random Maclaurin features of exp(k1) (Kar & Karnick 2012): see the module docstring."""

    def __init__(self, a: Node, p: float = MACLAURIN_P) -> None:
        self.a, self.p = a, p

    def draw(self, d: int, m: int, rng: np.random.Generator) -> Any:
        # P(N = n) = p^-(n+1): the number of failures before a success of probability 1 - 1/p.
        N = rng.geometric(1.0 - 1.0 / self.p, size=m) - 1
        T = int(N.sum())
        base = self.a.draw(d, max(T, 1), rng)
        r = self.a.width(d)
        # a block is reduced to a scalar draw g . psi, g Rademacher (E g g^T = I): E[s(x) s(y)] = k1(x, y)
        G = rng.choice(np.array([-1.0, 1.0]), size=(T, r)) if r > 1 else None
        return N, T, base, G

    def width(self, d: int) -> int:
        return 1

    def apply(self, state: Any, X: np.ndarray) -> np.ndarray:
        N, T, base, G = state
        n = X.shape[0]
        S = np.ones((n, T + 1))  # column T is the empty product's factor 1
        if T:
            B = self.a.apply(base, X)
            B = np.broadcast_to(B, (n, T, B.shape[2])) if B.shape[1] == 1 else B[:, :T]
            S[:, :T] = B[:, :, 0] if G is None else np.einsum("ntr,tr->nt", B, G)
        starts = np.concatenate([[0], np.cumsum(N)[:-1]])
        width = int(N.max()) if N.size else 0
        idx = np.full((N.size, max(width, 1)), T)
        for j in range(width):
            has = N > j
            idx[has, j] = starts[has] + j
        prod = S[:, idx].prod(axis=2)  # (n, m)
        logw = (N + 1) * math.log(self.p) - np.array([math.lgamma(k + 1) for k in N])
        return (prod * np.exp(0.5 * logw))[:, :, None]

    def describe(self) -> str:
        return f"random Maclaurin over {self.a.describe()} (p = {self.p:g})"


def _rff(params: Mapping[str, Any]) -> Node:
    from rfverify.implementations.rff import RandomFourierFeatures

    return RandomLeaf("rbf", RandomFourierFeatures, {"gamma": params["gamma"]})


def _laplacian(params: Mapping[str, Any]) -> Node:
    from rfverify.implementations.laplacian import LaplacianRandomFeatures

    return RandomLeaf("laplacian", LaplacianRandomFeatures, {"gamma": params["gamma"]})


def _arccos(params: Mapping[str, Any]) -> Node:
    from rfverify.implementations.arccos import ArcCosineFeatures

    return RandomLeaf("arccos", ArcCosineFeatures, {"order": params["order"]})


#: Registry kernel name -> builder of its reference leaf.
LEAVES: dict[str, Callable[[Mapping[str, Any]], Node]] = {
    "rbf": _rff,
    "laplacian": _laplacian,
    "arccos": _arccos,
    "linear": lambda params: LinearLeaf(),
    "polynomial": lambda params: PolynomialLeaf(params["gamma"], params["coef0"], params["degree"]),
}

#: Composition op -> node class; a planted bug swaps one (tests/mutants/kernel_mutants.py).
NODES: dict[str, Any] = {"sum": Sum, "product": Product, "scale": Scale, "conformal": Conformal, "exp": Exp}


def why_no_tree(kernel: Kernel) -> str | None:
    """Why ``kernel`` has no composite feature map here (None: it has one)."""
    if isinstance(kernel, CompositeKernel):
        for p in kernel.parts:
            reason = why_no_tree(p)
            if reason:
                return reason
        return None
    if kernel._spec is None or kernel.name not in LEAVES:
        return (f"part {kernel.describe()} has no reference feature map (known: {', '.join(sorted(LEAVES))})")
    return None


def feature_tree(kernel: Kernel, *, nodes: Mapping[str, Any] | None = None) -> Node:
    """The feature tree of ``kernel`` by the composition rules (UsageError if a part has no map)."""
    nodes = NODES if nodes is None else nodes
    reason = why_no_tree(kernel)
    if reason:
        raise UsageError(f"no composite feature map for {kernel.describe()}: {reason}")
    if not isinstance(kernel, CompositeKernel):
        return LEAVES[kernel.name](kernel.params)
    parts = [feature_tree(p, nodes=nodes) for p in kernel.parts]
    if kernel.op == "scale":
        return nodes["scale"](kernel.coef, parts[0])
    if kernel.op == "conformal":
        return nodes["conformal"](kernel.func, parts[0])
    if kernel.op == "exp":
        return nodes["exp"](parts[0])
    return nodes[kernel.op](parts[0], parts[1])


class CompositeFeatures(FeatureMap):
    """The feature map of a tree: m independent draws, concatenated, / sqrt(m) (one draw if exact)."""

    _params = ("tree",)
    tree: Node

    def __init__(self, tree: Node, n_components: int = 100, random_state: Any = None) -> None:
        super().__init__(n_components, random_state, tree=tree)

    def _draw(self, d: int, rng: np.random.Generator) -> None:
        self.m_ = int(self.n_components) if self.tree.random else 1
        self.state_ = self.tree.draw(d, self.m_, rng)

    def _features(self, X: np.ndarray) -> np.ndarray:
        A = self.tree.apply(self.state_, X)
        A = np.broadcast_to(A, (X.shape[0], self.m_, A.shape[2]))
        return A.reshape(X.shape[0], -1) / math.sqrt(self.m_)


def composite_features(kernel: Kernel, *, nodes: Mapping[str, Any] | None = None) -> Callable[..., CompositeFeatures]:
    """A plug-in factory ``make(n_components, random_state)`` for ``kernel``'s composite feature map."""
    tree = feature_tree(kernel, nodes=nodes)

    def make(n_components: int, random_state: Any) -> CompositeFeatures:
        return CompositeFeatures(tree, n_components, random_state)

    make.__qualname__ = f"composite_features[{kernel.describe()}]"
    d_max = exact_dim_limit(tree)
    if d_max is not None:  # exact polynomial leaves are defined only up to a width: the map declares its space
        make.rfverify_space = {"d": (1, d_max)}  # type: ignore[attr-defined]
    return make


def exact_dim_limit(tree: Node) -> int | None:
    """The largest d at which every exact polynomial leaf of ``tree`` has width (d + 1)^p <= MAX_EXACT_WIDTH
    (None: no such leaf, any d).

    >>> exact_dim_limit(Sum(PolynomialLeaf(1.0, 1.0, 2), LinearLeaf()))
    63
    >>> exact_dim_limit(LinearLeaf()) is None
    True
    """
    limits = []
    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, PolynomialLeaf):
            d = int(round(MAX_EXACT_WIDTH ** (1.0 / node.degree))) - 1
            while (d + 2) ** node.degree <= MAX_EXACT_WIDTH:
                d += 1
            while d > 0 and (d + 1) ** node.degree > MAX_EXACT_WIDTH:
                d -= 1
            limits.append(d)
        todo.extend(v for v in vars(node).values() if isinstance(v, Node))
    return min(limits) if limits else None


class _Registered(CompositeFeatures):
    """A registry composite as a plug-in class; subclasses name the kernel and its parameters."""

    KERNEL = ""

    def __init__(self, n_components: int = 100, random_state: Any = None, **params: Any) -> None:
        self._kernel_params = params
        for k, v in params.items():
            setattr(self, k, v)
        super().__init__(feature_tree(get_kernel(self.KERNEL, **params)), n_components, random_state)

    def get_params(self, deep: bool = False) -> dict[str, Any]:
        return {"n_components": self.n_components, "random_state": self.random_state, **self._kernel_params}


class RBFPlusLaplacianFeatures(_Registered):
    """[phi_rbf, phi_laplacian] for ``rbf_plus_laplacian`` (2m outputs, C = 2)."""

    KERNEL = "rbf_plus_laplacian"

    def __init__(self, n_components: int = 100, random_state: Any = None, rbf_gamma: float = 1.0,
                 laplacian_gamma: float = 1.0) -> None:
        super().__init__(n_components, random_state, rbf_gamma=rbf_gamma, laplacian_gamma=laplacian_gamma)


class RBFLaplacianMixFeatures(_Registered):
    """[sqrt(w) phi_rbf, sqrt(1 - w) phi_laplacian] for ``rbf_laplacian_mix`` (2m outputs)."""

    KERNEL = "rbf_laplacian_mix"

    def __init__(self, n_components: int = 100, random_state: Any = None, weight: float = 0.5,
                 rbf_gamma: float = 1.0, laplacian_gamma: float = 1.0) -> None:
        super().__init__(n_components, random_state, weight=weight, rbf_gamma=rbf_gamma,
                         laplacian_gamma=laplacian_gamma)


class RBFTimesPolynomialFeatures(_Registered):
    """phi_rbf (tensor) sketched exact polynomial features for ``rbf_times_polynomial`` (m outputs when
    (d + 1)^p > MAX_TENSOR_WIDTH, else m (d + 1)^p)."""

    KERNEL = "rbf_times_polynomial"

    def __init__(self, n_components: int = 100, random_state: Any = None, rbf_gamma: float = 1.0,
                 gamma: float = 1.0, coef0: float = 1.0, degree: int = 2) -> None:
        super().__init__(n_components, random_state, rbf_gamma=rbf_gamma, gamma=gamma, coef0=coef0, degree=degree)


class ExpLinearFeatures(_Registered):
    """Random Maclaurin features of ``exp_linear`` = exp(gamma <x, y>) (m outputs, unbounded)."""

    KERNEL = "exp_linear"

    def __init__(self, n_components: int = 100, random_state: Any = None, gamma: float = 1.0) -> None:
        super().__init__(n_components, random_state, gamma=gamma)

"""Computation skeletons, their exact kernels (§5 recurrence) and complexity (eq. 11).

A :class:`Skeleton` is an immutable DAG stored in topological order: every node's
children have smaller indices, and the last node is the output ``out(S)``.
Input nodes carry a base RFS and the input columns they read; internal nodes
carry a normalised conjugate activation σ̂_v and their in-neighbours ``in(v)``.

Kernel recurrence (Daniely et al. 2017, §5)::

    k_v(x, x') = k^v(x_v, x'_v)                                  v an input node
    k_v(x, x') = σ̂_v( (1/|in(v)|) Σ_{u ∈ in(v)} k_u(x, x') )     otherwise

:func:`skeleton_kernel` evaluates it for whole Gram matrices, in row blocks,
freeing each node's Gram as soon as its last parent has consumed it; patches of
input nodes whose base kernel has a finite real map φ are averaged with one
matrix product.  :func:`skeleton_kernel_direct` is the literal scalar recursion
(memo-free), the independent reference for the tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Sequence, Union

import numpy as np

from rfverify.errors import UsageError

from rfverify.implementations.compositional.activations import ConjugateActivation, ExpActivation, ReLUActivation
from rfverify.implementations.compositional.base import BaseRFS, CircleRFS

__all__ = [
    "InputNode",
    "InternalNode",
    "Skeleton",
    "skeleton_kernel",
    "skeleton_kernel_direct",
    "complexity",
    "expected_total_calls",
    "shallow_skeleton",
    "conv1d_skeleton",
    "conv2d_skeleton",
    "deep_image_skeleton",
    "deep_1d_skeleton",
]


@dataclass(frozen=True)
class InputNode:
    """Input node: base space/kernel/RFS ``base`` reading input columns ``start .. start + base.dim - 1``."""

    base: BaseRFS
    start: int

    @property
    def columns(self) -> tuple[int, ...]:
        return tuple(range(self.start, self.start + self.base.dim))


@dataclass(frozen=True)
class InternalNode:
    """Internal node with conjugate activation σ̂_v and in-neighbours ``children`` (indices, may repeat)."""

    activation: ConjugateActivation
    children: tuple[int, ...]


Node = Union[InputNode, InternalNode]


@dataclass(frozen=True)
class Skeleton:
    """Immutable computation skeleton; ``nodes`` in topological order, output = last node."""

    nodes: tuple[Node, ...]
    name: str = "skeleton"
    #: Width of the input rows X (≥ the last column an input node reads; 0 = infer).
    width: int = 0

    def __post_init__(self) -> None:
        nodes = tuple(self.nodes)
        object.__setattr__(self, "nodes", nodes)
        if not nodes:
            raise UsageError("Skeleton needs at least one node")
        has_parent = np.zeros(len(nodes), dtype=bool)
        for v, node in enumerate(nodes):
            if isinstance(node, InputNode):
                if not isinstance(node.base, BaseRFS) or node.start < 0:
                    raise UsageError(f"node {v}: InputNode needs a BaseRFS and a start column ≥ 0")
            elif isinstance(node, InternalNode):
                if not node.children:
                    raise UsageError(f"node {v}: an internal node needs at least one child")
                if min(node.children) < 0 or max(node.children) >= v:
                    raise UsageError(f"node {v}: children must be earlier nodes (topological order), got {node.children}")
                if not isinstance(node.activation, ConjugateActivation):
                    raise UsageError(f"node {v}: activation must be a ConjugateActivation")
                has_parent[list(node.children)] = True
            else:
                raise UsageError(f"node {v}: expected InputNode or InternalNode, got {type(node).__name__}")
        orphans = np.flatnonzero(~has_parent[:-1])
        if orphans.size:
            raise UsageError(f"a skeleton has a single output node; nodes {orphans[:5].tolist()} have no parent")

    # -- derived, cached ------------------------------------------------------
    @property
    def output(self) -> int:
        return len(self.nodes) - 1

    @cached_property
    def n_columns(self) -> int:
        return max([self.width] + [n.start + n.base.dim for n in self.nodes if isinstance(n, InputNode)])

    @cached_property
    def input_indices(self) -> np.ndarray:
        return np.array([v for v, n in enumerate(self.nodes) if isinstance(n, InputNode)], dtype=np.int64)

    @cached_property
    def bases(self) -> tuple[BaseRFS, ...]:
        """Distinct base RFS objects (by equality) in order of first appearance."""
        out: list[BaseRFS] = []
        for n in self.nodes:
            if isinstance(n, InputNode) and n.base not in out:
                out.append(n.base)
        return tuple(out)

    @cached_property
    def base_id(self) -> np.ndarray:
        """Per node: index into :attr:`bases` (-1 for internal nodes)."""
        ids = np.full(len(self.nodes), -1, dtype=np.int64)
        for v, n in enumerate(self.nodes):
            if isinstance(n, InputNode):
                ids[v] = self.bases.index(n.base)
        return ids

    @cached_property
    def starts(self) -> np.ndarray:
        return np.array([n.start if isinstance(n, InputNode) else -1 for n in self.nodes], dtype=np.int64)

    @cached_property
    def n_parents(self) -> np.ndarray:
        cnt = np.zeros(len(self.nodes), dtype=np.int64)
        for n in self.nodes:
            if isinstance(n, InternalNode):
                for u in set(n.children):
                    cnt[u] += 1
        return cnt

    def depth(self) -> int:
        d = np.zeros(len(self.nodes), dtype=np.int64)
        for v, n in enumerate(self.nodes):
            if isinstance(n, InternalNode):
                d[v] = 1 + max(d[u] for u in n.children)
        return int(d[-1])

    def validate_inputs(self, X: np.ndarray) -> np.ndarray:
        """Return X as float (N, n_columns) after checking every base space; raise UsageError otherwise."""
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or X.shape[1] != self.n_columns:
            raise UsageError(f"{self.name}: expected X of shape (N, {self.n_columns}), got {X.shape}")
        for b in self.bases:
            starts = self.starts[(self.base_id == self.bases.index(b))]
            cols = (starts[:, None] + np.arange(b.dim)[None, :])
            b.validate(X[:, cols].reshape(-1, b.dim))
        return X


# ---------------------------------------------------------------------------
# exact kernel
# ---------------------------------------------------------------------------

#: Rows per block of the Gram evaluation (memory ≈ live nodes × block × N2 × 8 bytes).
GRAM_BLOCK_ROWS = 128


def skeleton_kernel(skeleton: Skeleton, X: np.ndarray, Y: np.ndarray | None = None, *, node: int | None = None) -> np.ndarray:
    """Exact Gram ``k_S(X_i, Y_j)`` of the skeleton (or of the sub-skeleton ``S_node``)."""
    X = skeleton.validate_inputs(X)
    Y = X if Y is None else skeleton.validate_inputs(Y)
    target = skeleton.output if node is None else int(node)
    out = np.empty((X.shape[0], Y.shape[0]))
    for r0 in range(0, X.shape[0], GRAM_BLOCK_ROWS):
        out[r0 : r0 + GRAM_BLOCK_ROWS] = _gram_block(skeleton, X[r0 : r0 + GRAM_BLOCK_ROWS], Y, target)
    return out


def _gram_block(S: Skeleton, X: np.ndarray, Y: np.ndarray, target: int) -> np.ndarray:
    nodes = S.nodes
    needed = np.zeros(len(nodes), dtype=bool)
    needed[target] = True
    for v in range(target, -1, -1):
        nv = nodes[v]
        if needed[v] and isinstance(nv, InternalNode):
            needed[list(nv.children)] = True
    remaining = np.zeros(len(nodes), dtype=np.int64)  # parents still to consume node u
    for v in range(target + 1):
        nv = nodes[v]
        if needed[v] and isinstance(nv, InternalNode):
            for u in set(nv.children):
                remaining[u] += 1
    maps: dict[int, tuple[np.ndarray, np.ndarray] | None] = {}
    grams: dict[int, np.ndarray] = {}

    def base_map(u: int) -> tuple[np.ndarray, np.ndarray] | None:
        n = nodes[u]
        assert isinstance(n, InputNode), "explicit maps are of input nodes"
        if u not in maps:
            fx = n.base.explicit_map(X[:, n.start : n.start + n.base.dim])
            fy = None if fx is None else n.base.explicit_map(Y[:, n.start : n.start + n.base.dim])
            maps[u] = None if fx is None or fy is None else (fx, fy)
        return maps[u]

    for v in range(target + 1):
        if not needed[v]:
            continue
        n = nodes[v]
        if isinstance(n, InputNode):
            if v == target:  # otherwise evaluated lazily by its parents
                grams[v] = n.base.kernel(X[:, n.start : n.start + n.base.dim], Y[:, n.start : n.start + n.base.dim])
            continue
        ch = np.asarray(n.children)
        acc = np.zeros((X.shape[0], Y.shape[0]))
        linear = [fm for u in ch if isinstance(nodes[u], InputNode) and (fm := base_map(u)) is not None]
        if linear:  # Σ_u φ_u(x)·φ_u(y) as one product (repeated children repeat their columns)
            FX = np.concatenate([fx for fx, _ in linear], axis=1)
            FY = np.concatenate([fy for _, fy in linear], axis=1)
            acc += FX @ FY.T
        for u in ch:
            if isinstance(nodes[u], InputNode) and base_map(u) is not None:
                continue
            if u not in grams:  # input node without a finite map
                grams[u] = nodes[u].base.kernel(X[:, nodes[u].start : nodes[u].start + nodes[u].base.dim],
                                                Y[:, nodes[u].start : nodes[u].start + nodes[u].base.dim])
            acc += grams[u]
        grams[v] = n.activation(acc / len(ch))
        for u in set(ch.tolist()):
            remaining[u] -= 1
            if remaining[u] == 0:
                grams.pop(u, None)
                maps.pop(u, None)
    return grams[target]


def skeleton_kernel_direct(skeleton: Skeleton, x: np.ndarray, y: np.ndarray, v: int | None = None) -> float:
    """Literal scalar recursion of §5 for one pair (exponential in depth for DAGs with sharing; small cases only)."""
    v = skeleton.output if v is None else v
    n = skeleton.nodes[v]
    if isinstance(n, InputNode):
        xs = np.asarray(x, dtype=float)[n.start : n.start + n.base.dim][None, :]
        ys = np.asarray(y, dtype=float)[n.start : n.start + n.base.dim][None, :]
        return float(n.base.kernel(xs, ys)[0, 0])
    vals = [skeleton_kernel_direct(skeleton, x, y, u) for u in n.children]
    return float(n.activation(sum(vals) / len(vals)))


# ---------------------------------------------------------------------------
# complexity (eq. 11) and expected number of recursive calls
# ---------------------------------------------------------------------------

def complexity(skeleton: Skeleton) -> float:
    """C(S) of eq. 11: 1 at inputs, σ̂_v'(1)·mean_u C(S_u) otherwise (= E[# base features in a feature])."""
    c = np.ones(len(skeleton.nodes))
    for v, n in enumerate(skeleton.nodes):
        if isinstance(n, InternalNode):
            d = n.activation.derivative_at_one()
            m = float(np.mean(c[list(n.children)]))
            c[v] = math.inf if math.isinf(d) and m > 0 else d * m
    return float(c[-1])


def expected_total_calls(skeleton: Skeleton) -> float:
    """E[total invocations of RFSS], root call included: R = 1 at inputs, 1 + σ̂'(1)·mean_u R(S_u) otherwise."""
    r = np.ones(len(skeleton.nodes))
    for v, n in enumerate(skeleton.nodes):
        if isinstance(n, InternalNode):
            d = n.activation.derivative_at_one()
            r[v] = 1 + (math.inf if math.isinf(d) else d * float(np.mean(r[list(n.children)])))
    return float(r[-1])


# ---------------------------------------------------------------------------
# constructors
# ---------------------------------------------------------------------------

def _inputs(n: int, base: BaseRFS) -> list[Node]:
    return [InputNode(base, i * base.dim) for i in range(n)]


def shallow_skeleton(n_inputs: int, *, base: BaseRFS | None = None, activation: ConjugateActivation | None = None) -> Skeleton:
    """One fully connected node over ``n_inputs`` input nodes; default σ̂(ρ) = exp((ρ-1)/4) over circle inputs.

    With circle inputs θ the kernel is ``exp(-‖u - u'‖²/8)`` for ``u = (e^{iθ_1}, …, e^{iθ_n})/√n``
    on the unit sphere of C^n ≅ R^{2n}: the Gaussian of Example 3 with a = 1/2 (bandwidth 2).
    """
    if n_inputs < 1:
        raise UsageError(f"shallow_skeleton needs n_inputs ≥ 1, got {n_inputs}")
    base = CircleRFS() if base is None else base
    act = ExpActivation(0.25) if activation is None else activation
    nodes = _inputs(n_inputs, base)
    nodes.append(InternalNode(act, tuple(range(n_inputs))))
    return Skeleton(tuple(nodes), name=f"shallow[{n_inputs}]")


def _conv_positions(size: int, width: int, stride: int) -> list[int]:
    if width > size:
        raise UsageError(f"convolution width {width} exceeds the layer size {size}")
    return list(range(0, size - width + 1, stride))


def conv1d_skeleton(length: int, layers: Sequence[tuple[int, int, ConjugateActivation]], top: ConjugateActivation | None,
                    *, base: BaseRFS | None = None, name: str = "conv1d") -> Skeleton:
    """1-D skeleton: ``layers`` of (width, stride, σ̂) valid convolutions, then a fully connected ``top`` node."""
    return conv2d_skeleton(1, length, [((1, w), (1, s), a) for w, s, a in layers], top, base=base, name=name)


def conv2d_skeleton(height: int, width: int, layers: list[tuple], top: ConjugateActivation | None,
                    *, base: BaseRFS | None = None, name: str = "conv2d") -> Skeleton:
    """2-D skeleton over a ``height × width`` grid of input nodes (row-major columns, ``base.dim`` each).

    ``layers``: (kernel, stride, σ̂) with kernel/stride an int or an (rows, cols) pair; convolutions are
    *valid* (no padding).  Pixels no window reads (e.g. row/column 23 of a 24×24 image under 5×5
    stride 2) get no input node – they cannot influence the kernel – but keep their columns in X.
    """
    base = CircleRFS() if base is None else base
    if not layers and top is None:
        raise UsageError(f"{name}: needs at least one layer or a top node")
    pix = np.arange(height * width).reshape(height, width)

    def windows(grid: np.ndarray, k: int | tuple[int, int], st: int | tuple[int, int]) -> list[list[np.ndarray]]:
        kr, kc = (k, k) if isinstance(k, (int, np.integer)) else k
        sr, sc = (st, st) if isinstance(st, (int, np.integer)) else st
        rows, cols = _conv_positions(grid.shape[0], kr, sr), _conv_positions(grid.shape[1], kc, sc)
        return [[grid[r : r + kr, c : c + kc].ravel() for c in cols] for r in rows]

    first = windows(pix, layers[0][0], layers[0][1]) if layers else [[pix.ravel()]]
    covered = np.unique(np.concatenate([w for row in first for w in row]))
    nodes: list[Node] = [InputNode(base, int(p) * base.dim) for p in covered]
    node_of = np.full(height * width, -1, dtype=np.int64)
    node_of[covered] = np.arange(covered.size)
    grid = node_of.reshape(height, width)
    for k, st, act in layers:
        wins = windows(grid, k, st)
        new = np.empty((len(wins), len(wins[0])), dtype=np.int64)
        for a, row in enumerate(wins):
            for b, w in enumerate(row):
                nodes.append(InternalNode(act, tuple(int(u) for u in w)))
                new[a, b] = len(nodes) - 1
        grid = new
    if top is not None:
        nodes.append(InternalNode(top, tuple(int(u) for u in grid.ravel())))
    elif grid.size != 1:
        raise UsageError(f"{name}: without a top node the last layer must have one node, got {grid.size}")
    return Skeleton(tuple(nodes), name=name, width=height * width * base.dim)


def deep_image_skeleton(size: int = 24, *, base: BaseRFS | None = None) -> Skeleton:
    """§6 deep skeleton: 5×5 conv stride 2 with exp((ρ-1)/4), 4×4 conv stride 2 with ReLU, FC with ReLU.

    24×24 -> 10×10 -> 4×4 -> 1 (693 nodes); 12×12 -> 4×4 -> 1×1 -> 1.
    """
    return conv2d_skeleton(size, size, [(5, 2, ExpActivation(0.25)), (4, 2, ReLUActivation())], ReLUActivation(),
                           base=base, name=f"deep{size}x{size}")


def deep_1d_skeleton(length: int = 24, *, base: BaseRFS | None = None) -> Skeleton:
    """1-D analogue of the deep skeleton (width 5 stride 2 exp((ρ-1)/4), width 4 stride 2 ReLU, FC ReLU)."""
    return conv1d_skeleton(length, [(5, 2, ExpActivation(0.25)), (4, 2, ReLUActivation())], ReLUActivation(),
                           base=base, name=f"deep1d[{length}]")

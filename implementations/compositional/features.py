"""Algorithm 1 (RFSS) as a sparse feature map, Comment 1's real conversion and §6 de-duplication.

A compositional random feature is a product of base random features (Lemmas 9–10).
:class:`CompositionalFeatures` stores each feature as its *leaves*: the input
node it reads and the base randomness ω of that leaf (CSR by feature), so a
feature touching few input columns stores and evaluates only those.

Sampling is the branching process of Algorithm 1, run for all features at once:
nodes are visited from the output downwards (reverse topological order); every
pending call at an internal node v draws its degree l ~ (a_i^v) and l children
uniformly from in(v) (with replacement); every pending call at an input node
becomes a leaf with a fresh ω ~ μ^v.  Calls are i.i.d. across features and
levels, so the law of each feature is that of the recursive Algorithm 1;
:func:`rfss_recursive` is the literal recursion kept as the reference.

Complex to real (Comment 1, corrected).  For ψ = R e^{iθ} and b uniform on
{0, π/2}, the real feature is ``ψ' = √2 R cos(θ + b) = √2 Re(ψ e^{ib})``:
``E_b ψ'(x)ψ'(x') = R R' (cos θ cos θ' + sin θ sin θ') = Re ψ(x) conj ψ(x')``, and
``|ψ'| ≤ √2 C``.  The printed ``√(2R cos(θ + b))`` is kept as
:func:`comment1_printed` to show it is not an RFS (it is imaginary when cos < 0, and
``E_b |ψ'|² = R(|cos θ| + |sin θ|) ≠ R²``).

De-duplication.  Features with identical leaves (and identical b) are merged into
one with count c; the output coordinate is ``√(c/q) ψ`` so that
``⟨Φ(x), Φ(x')⟩ = (1/q) Σ_j ψ_j(x)ψ_j(x')`` is *exactly* the un-merged estimate
(same expectation, same variance) – merging is storage compression only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rfverify.errors import UsageError
from rfverify.implementations._base import FeatureMap

from rfverify.implementations.compositional.skeleton import InputNode, Skeleton

__all__ = [
    "CompositionalFeatures",
    "SampledFeatures",
    "sample_features",
    "rfss_recursive",
    "comment1_real",
    "comment1_printed",
    "leaf_count_pgf",
]

CONVERSIONS = ("comment1", "re_im", "complex")
#: Target number of complex leaf values held at once during evaluation (≈ 64 MB).
EVAL_BLOCK_ENTRIES = 4_000_000


@dataclass(frozen=True)
class SampledFeatures:
    """Raw output of Algorithm 1 for q features (before de-duplication).

    ``ptr``: CSR offsets (q+1); ``leaf_node``/``leaf_omega``: per leaf, sorted by feature;
    ``calls``: recursive calls per feature (root included); ``b``: Comment 1 phase per feature.
    """

    ptr: np.ndarray
    leaf_node: np.ndarray
    leaf_omega: np.ndarray
    calls: np.ndarray
    b: np.ndarray

    @property
    def n_features(self) -> int:
        return int(self.ptr.size - 1)

    @property
    def leaves(self) -> np.ndarray:
        """Number of base features multiplied in each feature (its sparsity)."""
        return np.diff(self.ptr)


def sample_features(skeleton: Skeleton, q: int, *, rng: np.random.Generator) -> SampledFeatures:
    """Draw q i.i.d. features of Algorithm 1 (vectorised branching process)."""
    if not isinstance(rng, np.random.Generator):
        raise UsageError("rng must be a numpy Generator — pass rng=np.random.default_rng(seed)")
    if q < 1:
        raise UsageError(f"need at least one feature, got q={q}")
    nodes = skeleton.nodes
    width = max(b.omega_width for b in skeleton.bases)
    pending: dict[int, list[np.ndarray]] = {skeleton.output: [np.arange(q, dtype=np.int64)]}
    calls = np.zeros(q, dtype=np.int64)
    leaf_f, leaf_n, leaf_w = [], [], []
    for v in range(len(nodes) - 1, -1, -1):
        parts = pending.pop(v, None)
        if not parts:
            continue
        ids = np.concatenate(parts)
        if ids.size == 0:
            continue
        calls += np.bincount(ids, minlength=q)
        node = nodes[v]
        if isinstance(node, InputNode):
            om = np.zeros((ids.size, width))
            om[:, : node.base.omega_width] = node.base.sample_omega(ids.size, rng=rng)
            leaf_f.append(ids)
            leaf_n.append(np.full(ids.size, v, dtype=np.int64))
            leaf_w.append(om)
            continue
        deg = node.activation.sample_degree(ids.size, rng=rng)
        rep = np.repeat(ids, deg)
        if rep.size == 0:
            continue
        children = np.asarray(node.children, dtype=np.int64)
        pick = children[rng.integers(0, children.size, rep.size)]
        order = np.argsort(pick, kind="stable")
        pick, rep = pick[order], rep[order]
        cuts = np.flatnonzero(np.diff(pick)) + 1
        for chunk_ids, chunk_nodes in zip(np.split(rep, cuts), np.split(pick, cuts)):
            pending.setdefault(int(chunk_nodes[0]), []).append(chunk_ids)
    if leaf_f:
        f = np.concatenate(leaf_f)
        n = np.concatenate(leaf_n)
        w = np.concatenate(leaf_w)
        order = np.argsort(f, kind="stable")
        f, n, w = f[order], n[order], w[order]
    else:
        f = np.zeros(0, dtype=np.int64)
        n = np.zeros(0, dtype=np.int64)
        w = np.zeros((0, width))
    ptr = np.concatenate([[0], np.cumsum(np.bincount(f, minlength=q))]).astype(np.int64)
    b = rng.choice(np.array([0.0, np.pi / 2]), size=q)
    return SampledFeatures(ptr=ptr, leaf_node=n, leaf_omega=w, calls=calls, b=b)


def rfss_recursive(skeleton: Skeleton, *, rng: np.random.Generator, v: int | None = None) -> tuple[list[tuple[int, np.ndarray]], int]:
    """Literal Algorithm 1: returns (leaves [(input node, ω)], number of RFSS invocations incl. this one)."""
    v = skeleton.output if v is None else v
    node = skeleton.nodes[v]
    if isinstance(node, InputNode):
        return [(v, node.base.sample_omega(1, rng=rng)[0])], 1
    l = int(node.activation.sample_degree(1, rng=rng)[0])
    leaves: list[tuple[int, np.ndarray]] = []
    calls = 1
    for _ in range(l):
        u = node.children[int(rng.integers(0, len(node.children)))]
        lv, c = rfss_recursive(skeleton, rng=rng, v=u)
        leaves += lv
        calls += c
    return leaves, calls


def leaf_count_pgf(skeleton: Skeleton, n_terms: int, *, total_calls: bool = False) -> np.ndarray:
    """Exact law of the number of leaves (or of all RFSS calls) per feature, P(N = 0..n_terms-1).

    The probability generating function obeys the kernel recurrence with the base
    kernels replaced by s: ``G_v(s) = σ̂_v(mean_u G_u(s))`` (``s·σ̂_v(...)`` when counting
    all calls), ``G_input(s) = s``; so ``E N = G'(1) = C(S)`` is eq. 11 by the chain rule.
    Power series are composed in float64 by re-expanding σ̂_v at c0 = P(N_u = 0 averaged) so
    that truncation at degree n_terms-1 is exact up to round-off.
    """
    T = int(n_terms)
    s = np.zeros(T)
    s[1] = 1.0
    G: dict[int, np.ndarray] = {}  # node -> its series, filled in topological order
    cache: dict[tuple, np.ndarray] = {}
    for v, node in enumerate(skeleton.nodes):
        if isinstance(node, InputNode):
            G[v] = s
            continue
        key = (node.activation, tuple(sorted(id(G[u]) for u in node.children)))
        if key in cache:
            G[v] = cache[key]
            continue
        inner = np.mean([G[u] for u in node.children], axis=0)
        c0 = float(inner[0])
        t = node.activation.taylor_at(c0, T)  # σ̂(c0 + r(s)) = Σ_j t_j r(s)^j, r(0) = 0
        r = inner.copy()
        r[0] = 0.0
        out = np.zeros(T)
        for coef in t[::-1]:  # Horner, truncated at degree T-1 (exact: r^j has no terms below degree j)
            out = np.convolve(out, r)[:T]
            out[0] += coef
        if total_calls:
            out = np.concatenate([[0.0], out[:-1]])
        cache[key] = out
        G[v] = out
    return G[len(skeleton.nodes) - 1]


def comment1_real(psi: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Corrected Comment 1: ``√2 R cos(θ + b) = √2 Re(ψ e^{ib})`` (b ∈ {0, π/2} per feature)."""
    return math.sqrt(2.0) * np.real(psi * np.exp(1j * np.asarray(b)))


def comment1_printed(psi: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Comment 1 *as printed*: ``√(2R cos(θ + b))`` (principal complex square root). Not an RFS."""
    R, th = np.abs(psi), np.angle(psi)
    return np.sqrt((2 * R * np.cos(th + np.asarray(b))).astype(complex))


class CompositionalFeatures(FeatureMap):
    """Random features of Algorithm 1 (RFSS) for a computation skeleton; sklearn-style.

    Parameters
    ----------
    skeleton : Skeleton
    n_components : int
        Number q of features generated (before de-duplication).
    random_state : int | None
        Seed of the single ``np.random.default_rng(random_state)`` that ``fit`` draws everything from.
    conversion : {"comment1", "re_im", "complex"}
        Output: one real feature ``√2 Re(ψ e^{ib})`` per feature (corrected Comment 1, C → √2·C);
        two real features (Re ψ, Im ψ) per feature (exact ``Re ψψ̄'``, no extra randomness); or complex ψ.
    deduplicate : bool
        Merge identical features with weights √(count/q) (§6; the estimate is unchanged).

    After ``fit``: ``sample_`` (raw :class:`SampledFeatures`), ``counts_`` (multiplicity of each
    output feature), ``ptr_``/``leaf_node_``/``leaf_omega_``/``b_`` (unique features, CSR),
    ``n_features_out_``.
    """

    _params = ("skeleton", "conversion", "deduplicate")
    skeleton: Skeleton
    conversion: str
    deduplicate: bool
    #: ``fit()`` without X draws all randomness too: the skeleton fixes the input width.
    _fit_without_data = True

    def __init__(self, skeleton: Skeleton, n_components: int = 1000, random_state: int | None = None,
                 *, conversion: str = "comment1", deduplicate: bool = True) -> None:
        super().__init__(n_components, random_state, skeleton=skeleton, conversion=conversion,
                         deduplicate=deduplicate)

    # -- template hooks -----------------------------------------------------
    def _check_params(self) -> None:
        if not isinstance(self.skeleton, Skeleton):
            raise UsageError("CompositionalFeatures needs a Skeleton — build one with shallow_skeleton/deep_image_skeleton")
        if self.conversion not in CONVERSIONS:
            raise UsageError(f"conversion must be one of {CONVERSIONS}, got {self.conversion!r}")

    def _check_input(self, X: np.ndarray) -> None:
        """Every base space's domain (±1, sphere, categories) and the skeleton's input width."""
        self.skeleton.validate_inputs(X)

    def _fitted_dim(self) -> int | None:
        return self.skeleton.n_columns if hasattr(self, "counts_") else None

    def _draw(self, d: int | None, rng: np.random.Generator) -> None:
        """Draw all randomness once (Algorithm 1 for every feature); features do not depend on X."""
        sample = sample_features(self.skeleton, int(self.n_components), rng=rng)
        self.sample_ = sample
        self._set_unique(sample)

    def _features(self, X: np.ndarray) -> np.ndarray:
        """Feature matrix Φ(X) with ``Φ(x)·Φ(x')`` (real part for "complex") the RFSS kernel estimate."""
        psi = self._complex_values(X) * np.sqrt(self.counts_ / self.n_components)[None, :]
        if self.conversion == "complex":
            return psi
        if self.conversion == "re_im":
            return np.concatenate([psi.real, psi.imag], axis=1)
        return comment1_real(psi, self.b_[None, :])

    def feature_values(self, X: np.ndarray) -> np.ndarray:
        """Unweighted complex ψ_j(X) of the unique features, shape (N, n_unique)."""
        X = self._validate(X)
        self._check_fitted(X)
        return self._complex_values(X)

    def approximate_kernel(self, X: np.ndarray, Y: np.ndarray | None = None) -> np.ndarray:
        """RFSS Gram estimate ``Φ(X) Φ(Y)^T`` (real part)."""
        FX = self.transform(X)
        FY = FX if Y is None else self.transform(Y)
        return np.real(FX @ np.conj(FY).T)

    def feature_columns(self, j: int) -> np.ndarray:
        """Input columns read by output feature j (its sparse support)."""
        self._require_fitted()
        nodes = self.leaf_node_[self.ptr_[j] : self.ptr_[j + 1]]
        S = self.skeleton
        cols = [np.arange(S.starts[u], S.starts[u] + S.nodes[u].base.dim) for u in nodes]
        return np.unique(np.concatenate(cols)) if cols else np.zeros(0, dtype=np.int64)

    @property
    def n_features_out_(self) -> int:
        self._require_fitted()
        n = self.counts_.size
        return 2 * n if self.conversion == "re_im" else n

    # -- internals ------------------------------------------------------------
    def _require_fitted(self) -> None:
        if not hasattr(self, "counts_"):
            raise UsageError("CompositionalFeatures is not fitted — call fit(X) first")

    def _set_unique(self, s: SampledFeatures) -> None:
        q = s.n_features
        if not self.deduplicate:
            self.ptr_, self.leaf_node_, self.leaf_omega_, self.b_ = s.ptr, s.leaf_node, s.leaf_omega, s.b
            self.counts_ = np.ones(q)
            return
        feat = np.repeat(np.arange(q), s.leaves)
        # canonical order of leaves within a feature: by (node, ω)
        keys = [s.leaf_omega[:, k] for k in range(s.leaf_omega.shape[1] - 1, -1, -1)]
        order = np.lexsort(keys + [s.leaf_node, feat])
        rows = np.concatenate([s.leaf_node[order, None].astype(float), s.leaf_omega[order]], axis=1)
        buf = rows.tobytes()
        rb = rows.shape[1] * 8
        index: dict[tuple[float, bytes], int] = {}
        first: list[int] = []
        counts: list[int] = []
        for j in range(q):
            key = (float(s.b[j]), buf[s.ptr[j] * rb : s.ptr[j + 1] * rb])
            u = index.get(key)
            if u is None:
                index[key] = len(first)
                first.append(j)
                counts.append(1)
            else:
                counts[u] += 1
        first_a = np.asarray(first, dtype=np.int64)
        lens = s.leaves[first_a]
        src = np.concatenate([np.arange(s.ptr[j], s.ptr[j + 1]) for j in first_a]) if lens.sum() else np.zeros(0, np.int64)
        self.ptr_ = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
        self.leaf_node_ = s.leaf_node[order][src]
        self.leaf_omega_ = s.leaf_omega[order][src]
        self.b_ = s.b[first_a]
        self.counts_ = np.asarray(counts, dtype=float)

    def _complex_values(self, X: np.ndarray) -> np.ndarray:
        S = self.skeleton
        n_feat = self.counts_.size
        n_leaves = self.leaf_node_.size
        out = np.ones((X.shape[0], n_feat), dtype=complex)
        if n_leaves == 0:
            return out
        lens = np.diff(self.ptr_)
        nonempty = np.flatnonzero(lens > 0)
        bid = S.base_id[self.leaf_node_]
        block = max(1, EVAL_BLOCK_ENTRIES // n_leaves)
        for r0 in range(0, X.shape[0], block):
            Xb = X[r0 : r0 + block]
            vals = np.empty((Xb.shape[0], n_leaves), dtype=complex)
            for g, base in enumerate(S.bases):
                sel = np.flatnonzero(bid == g)
                if sel.size == 0:
                    continue
                cols = S.starts[self.leaf_node_[sel]][:, None] + np.arange(base.dim)[None, :]
                vals[:, sel] = base.features(self.leaf_omega_[sel, : base.omega_width], Xb[:, cols])
            out[r0 : r0 + block, nonempty] = np.multiply.reduceat(vals, self.ptr_[nonempty], axis=1)
        return out

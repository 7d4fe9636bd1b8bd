"""Kernel-approximation metrics on held-out points, each with an interval over seeds.

For a Gram matrix K = [k(x_i, x_j)] on n points and its estimate K_hat = Re(Phi Phi^*):

* ``rel_frobenius``: ||K - K_hat||_F / ||K||_F (the kernel approximation error of alber2017 Fig. 1);
* ``max_abs`` / ``mean_abs``: max and mean of |K - K_hat| over all n^2 entries;
* ``alignment``: <K, K_hat>_F / (||K||_F ||K_hat||_F) (Cristianini et al. 2001; 1 = equal up to scale);
* ``target_alignment`` (when labels are known): the alignment of K_hat with K_Y = [y_i = y_j]
  (= Y Y^T for one-hot Y), alber2017 eq. (9).

:func:`report_metrics` computes them for any feature-map configuration: the map is fitted at
``m`` features on ``n_fit`` points drawn from the configuration's domain and evaluated on ``n_test``
*other* points (held out: a data-dependent map is never judged on the points it was fitted to),
once per seed; each metric gets the mean and a two-sided Student t interval over the seeds
(mean ± t_{S-1, (1+c)/2} s / sqrt(S), confidence c = 0.95).  This is a measurement, not a test:
nothing passes or fails on it.  The seeds come from the configuration's
:class:`~rfverify.seeding.SeedSource` under the stable key ("metrics", kernel, d, domain).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Mapping, Protocol, Sequence, cast

import numpy as np
import numpy.typing as npt

from rfverify.profiles import budget as profile_budget
from rfverify.jsontypes import JSONRecord, JSONValue
from rfverify.registry import PluginObject
from rfverify.stats import t_interval

if TYPE_CHECKING:
    from rfverify.adapters import FeatureMapPlugin
    from rfverify.domains import PairSet
    from rfverify.kernels import Kernel
    from rfverify.profiles import Profile
    from rfverify.registry import BaseContext
    from rfverify.seeding import SeedSource

__all__ = [
    "relative_frobenius_error",
    "max_abs_error",
    "mean_abs_error",
    "alignment",
    "target_gram",
    "target_alignment",
    "t_interval",
    "kernel_metrics",
    "sample_domain",
    "MetricsBudget",
    "report_metrics",
    "METRICS_CONFIDENCE",
]

#: Confidence of the per-metric intervals over seeds.
METRICS_CONFIDENCE = 0.95


def relative_frobenius_error(K: np.ndarray, K_hat: np.ndarray) -> float:
    """||K - K_hat||_F / ||K||_F."""
    K, K_hat = np.asarray(K, dtype=float), np.asarray(K_hat, dtype=float)
    return float(np.linalg.norm(K - K_hat) / np.linalg.norm(K))


def max_abs_error(K: np.ndarray, K_hat: np.ndarray) -> float:
    """max_ij |K_ij - K_hat_ij|."""
    return float(np.max(np.abs(np.asarray(K, dtype=float) - np.asarray(K_hat, dtype=float))))


def mean_abs_error(K: np.ndarray, K_hat: np.ndarray) -> float:
    """mean_ij |K_ij - K_hat_ij| over all n^2 entries."""
    return float(np.mean(np.abs(np.asarray(K, dtype=float) - np.asarray(K_hat, dtype=float))))


def alignment(A: np.ndarray, B: np.ndarray) -> float:
    """<A, B>_F / (||A||_F ||B||_F); NaN when either matrix is zero (alignment is undefined)."""
    A, B = np.asarray(A, dtype=float), np.asarray(B, dtype=float)
    den = float(np.linalg.norm(A) * np.linalg.norm(B))
    return float(np.sum(A * B) / den) if den > 0 else float("nan")


def target_gram(y: npt.ArrayLike) -> np.ndarray:
    """K_Y = [y_i = y_j] for class labels y (1-D), or Y Y^T for a 2-D label matrix (one-hot or scores)."""
    y = np.asarray(y)
    if y.ndim == 2:
        return (y @ y.T).astype(float)
    return (y[:, None] == y[None, :]).astype(float)


def target_alignment(K_hat: np.ndarray, y: npt.ArrayLike) -> float:
    """Alignment of K_hat with the target kernel of the labels y (alber2017 eq. 9)."""
    return alignment(K_hat, target_gram(y))


_METRICS: dict[str, Callable[[np.ndarray, np.ndarray], float]] = {
    "rel_frobenius": relative_frobenius_error,
    "max_abs": max_abs_error,
    "mean_abs": mean_abs_error,
    "alignment": alignment,
}


def kernel_metrics(K: np.ndarray, K_hats: Sequence[np.ndarray], *, labels: Sequence[npt.ArrayLike] | None = None,
                   confidence: float = METRICS_CONFIDENCE) -> dict[str, dict[str, JSONValue]]:
    """Every metric of K against each K_hat (one per seed): ``{name: {mean, interval, values}}``.

    ``labels``: the labels of the points, one array per seed (or None): adds ``target_alignment``.
    """
    out: dict[str, dict[str, JSONValue]] = {}
    names = list(_METRICS) + (["target_alignment"] if labels is not None else [])
    for name in names:
        if name == "target_alignment":
            vals = [target_alignment(Kh, y) for Kh, y in zip(K_hats, labels or [])]
        else:
            vals = [_METRICS[name](K, Kh) for Kh in K_hats]
        mean, lo, hi = t_interval(vals, confidence)
        out[name] = {"mean": mean, "interval": [lo, hi], "values": vals}
    return out


def sample_domain(domain: str | Callable[[int, int, np.random.Generator], npt.ArrayLike], d: int, n: int, scale: float,
                  rng: np.random.Generator) -> np.ndarray:
    """n random points of a checks domain: ``scale`` x N(0, I) (gaussian), unit vectors (sphere),
    ``scale`` x |N(0, I)| (positive), or ``domain(n, d, rng)`` for a callable (the scale is the
    pair design's, so kernel values spread over the kernel's range as in the checks)."""
    from rfverify.errors import PluginError

    if callable(domain):
        try:
            X = np.asarray(domain(n, d, rng), dtype=float)
        except Exception as exc:
            name = getattr(domain, "__qualname__", type(domain).__name__)
            raise PluginError(f"domain {name}", f"raised {type(exc).__name__}: {exc}",
                              "a domain callable must be domain(n, d, rng) -> (n, d) array") from exc
        if X.shape != (n, d):
            raise PluginError(f"domain {getattr(domain, '__qualname__', 'domain')}",
                              f"returned shape {X.shape}, expected ({n}, {d})",
                              "a domain callable must be domain(n, d, rng) -> (n, d) array")
        return X
    G = rng.standard_normal((n, d))
    if domain == "sphere":
        return G / np.linalg.norm(G, axis=1, keepdims=True)
    if domain == "positive":
        return scale * np.abs(G)
    return scale * G


class SampledContext(Protocol):
    """What :func:`held_out_data` reads of a feature map's check context
    (:class:`rfverify.kinds.feature_map.CheckContext`)."""

    @property
    def domain(self) -> str | Callable[[int, int, np.random.Generator], npt.ArrayLike]: ...

    @property
    def dim(self) -> int: ...

    @property
    def seeds(self) -> SeedSource: ...

    @property
    def kernel(self) -> Kernel: ...

    @property
    def pairs(self) -> PairSet: ...


class MetricsContext(SampledContext, Protocol):
    """What :func:`report_metrics` reads besides: the profile and the plug-in's adapter."""

    @property
    def profile(self) -> Profile: ...

    @property
    def plugin(self) -> FeatureMapPlugin: ...


@dataclass(frozen=True)
class MetricsBudget:
    """Features, seeds and point counts of the report's metrics block."""

    m: int
    seeds: int
    n_fit: int
    n_test: int


#: Per profile; default: 10 seeds at m = 256 on 64 held-out points (64^2 kernel entries each).


def held_out_data(ctx: SampledContext, n_fit: int, n_test: int, *key: object) -> tuple[np.ndarray, np.ndarray]:
    """(X_fit, X_test): n_fit and n_test independent points of the context's domain (the test points are held
    out), from the stream named by ``key``."""
    dom = ctx.domain if isinstance(ctx.domain, str) else getattr(ctx.domain, "__qualname__", "domain")
    rng = ctx.seeds.rng(*key, ctx.kernel.describe(), ctx.dim, dom)
    scale = ctx.pairs.scale
    X_fit = sample_domain(ctx.domain, ctx.dim, n_fit, scale, rng)
    X_test = sample_domain(ctx.domain, ctx.dim, n_test, scale, rng)
    return X_fit, X_test


def labels_of(obj: PluginObject, X: np.ndarray) -> np.ndarray | None:
    """Labels of X from a fitted map that can label points (``labels_for(X)``), else None."""
    fn = getattr(obj, "labels_for", None)
    if not callable(fn):
        return None
    try:
        y = np.asarray(fn(X))
    except Exception:
        return None
    return y if y.shape[:1] == X.shape[:1] else None


def report_metrics(ctx: BaseContext, budget: MetricsBudget | None = None) -> dict[str, object]:
    """The ``metrics`` block of a feature-map report (see the module docstring).

    ``ctx`` is a feature-map check context (plugin, kernel, domain, dim, seeds, profile, pairs).
    Raises :class:`~rfverify.errors.PluginError` if the map misbehaves (the runner records it).
    """
    fm = cast(MetricsContext, ctx)  # a feature map's check context (the only kind with metrics)
    budget = budget or MetricsBudget(**profile_budget(fm.profile, "metrics"))
    X_fit, X_test = held_out_data(fm, budget.n_fit, budget.n_test, "metrics", "points")
    dom = fm.domain if isinstance(fm.domain, str) else getattr(fm.domain, "__qualname__", "domain")
    K = fm.kernel(X_test, X_test)
    K_hats, labels = [], []
    m_out = None
    for t in range(budget.seeds):
        rs = fm.seeds.random_state("metrics", fm.kernel.describe(), fm.dim, dom, trial=t)
        fitted = fm.plugin.fit(budget.m, rs, X_fit)
        F = fitted.transform(X_test)
        m_out = F.shape[1]
        K_hats.append(np.real(F @ np.conj(F).T))
        labels.append(labels_of(fitted.obj, X_test))
    have_labels = all(y is not None for y in labels)
    block: dict[str, JSONValue] = {
        "n_components": budget.m,
        "m_out": m_out,
        "seeds": budget.seeds,
        "n_fit": budget.n_fit,
        "n_test": budget.n_test,
        "held_out": True,
        "interval": f"two-sided Student t, {METRICS_CONFIDENCE:g} confidence, over seeds",
    }
    block.update(kernel_metrics(K, K_hats, labels=[y for y in labels if y is not None] if have_labels else None))
    return block


def metrics_rows(metrics: JSONRecord) -> list[dict[str, str]]:
    """Rows (metric, mean, interval) for renderers; empty for a missing or failed block."""
    from rfverify.results import format_number

    rows = []
    for name, label in (("rel_frobenius", "relative Frobenius error ‖K − K̂‖_F/‖K‖_F"),
                        ("max_abs", "max |K − K̂|"), ("mean_abs", "mean |K − K̂|"),
                        ("alignment", "alignment ⟨K, K̂⟩_F/(‖K‖_F‖K̂‖_F)"),
                        ("target_alignment", "target alignment with yyᵀ")):
        v = metrics.get(name)
        if isinstance(v, Mapping):
            lo, hi = v.get("interval", [None, None])
            rows.append({"metric": label, "mean": format_number(v.get("mean")), "interval": f"[{format_number(lo)}, {format_number(hi)}]"})
    return rows

"""Measured comparisons of the Gaussian-kernel schemes, the HD-block stall, and throughput/memory.

* :func:`mse_table` — MSE of k_hat against the exact rbf kernel for RFF, ORF, SORF(1/2/3),
  Fastfood and QMC (Sobol, Halton) at m in {d, 4d, 16d} frequencies, on the *same* inputs
  (the harness's designed pairs for rbf in dimension d, gaussian domain) and common random
  numbers (trial t of every scheme gets the same ``random_state``).  Each row also splits the
  MSE into bias^2 and variance, with a standard error, so a stalling scheme shows its floor.
* :func:`hd_stall_table` — the same for RFF and SORF with 1, 2, 3 HD blocks up to m = 64d
  (alber2017 §4: one block stalls, two and three follow the Gaussian basis).
* :func:`throughput_rows` — rows per second of ``transform`` at d = 1024, m = 4096 (float64
  and float32) for every scheme against dense RFF, and the parameters each scheme stores.
  Run by ``rfverify bench`` as the group ``"zoo-feature-maps"`` (:data:`rfverify.studies.bench.BENCHMARK_GROUPS`).

All feature maps use the paired form sqrt(1/m)[cos Wx, sin Wx] with m frequencies, so
"m" is the number of frequencies for every scheme (2m outputs).
"""

from __future__ import annotations

import math
from typing import Callable, Iterable

import numpy as np
import numpy.typing as npt
from numpy.typing import DTypeLike

from rfverify.domains import make_pairs
from rfverify.kernels import get_kernel
from rfverify.seeding import DEFAULT_SEED, SeedSource
from rfverify.implementations._base import FeatureMap
from rfverify.implementations.orf import OrthogonalRandomFeatures
from rfverify.implementations.qmc_features import HaltonFourierFeatures, SobolFourierFeatures
from rfverify.implementations.rff import RandomFourierFeaturesCosSin
from rfverify.implementations.structured_features import SORF1, SORF2, SORF3, FastfoodFeatures
from rfverify.results import JSONValue

__all__ = ["GAUSSIAN_SCHEMES", "mse_table", "hd_stall_table", "format_mse_table", "throughput_rows",
           "memory_rows"]

#: The rbf schemes compared, by display name.
GAUSSIAN_SCHEMES: dict[str, type[FeatureMap]] = {
    "RFF": RandomFourierFeaturesCosSin,
    "ORF": OrthogonalRandomFeatures,
    "SORF-1": SORF1,
    "SORF-2": SORF2,
    "SORF-3": SORF3,
    "Fastfood": FastfoodFeatures,
    "QMC-Sobol": SobolFourierFeatures,
    "QMC-Halton": HaltonFourierFeatures,
}


def _estimates(cls: type, m: int, states: list[int], X: np.ndarray, Y: np.ndarray, gamma: float) -> np.ndarray:
    Z = np.vstack([X, Y])
    P = X.shape[0]
    out = np.empty((len(states), P))
    for i, rs in enumerate(states):
        F = cls(m, random_state=rs, gamma=gamma).fit(Z).transform(Z)
        out[i] = np.sum(F[:P] * F[P:], axis=1)
    return out


#: Kernel values of the axis-aligned pairs (y = x + r e_j).
AXIS_KERNEL_VALUES = tuple(np.linspace(0.95, 0.05, 16))


def axis_pairs(d: int, gamma: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pairs differing in ONE coordinate, y = x + r e_j, r = sqrt(-log k / gamma) for k in
    :data:`AXIS_KERNEL_VALUES` (sparse differences, like pixels of digit images: the case where
    a single HD block cannot mix coordinates).  Returns X, Y, exact k."""
    k = np.array(AXIS_KERNEL_VALUES)
    X = rng.standard_normal((k.size, d)) / math.sqrt(gamma * d)
    Y = X.copy()
    j = rng.integers(0, d, size=k.size)
    Y[np.arange(k.size), j] += np.sqrt(-np.log(k) / gamma) * rng.choice([-1.0, 1.0], size=k.size)
    return X, Y, get_kernel("rbf", gamma=gamma).pairwise(X, Y)


def mse_table(d: int = 16, multiples: Iterable[int] = (1, 4, 16), *, trials: int = 200, gamma: float = 0.5,
              seed: int = DEFAULT_SEED, schemes: Iterable[str] | None = None,
              pairs: str = "gaussian") -> list[dict[str, JSONValue]]:
    """One row per (scheme, m): ``scheme, d, m, m_over_d, mse, mse_se, bias2, variance, vs_rff``.

    ``pairs``: ``"gaussian"`` — the harness's designed pairs (equal, antipodal, correlations
    0.999..-0.95, gaussian domain); ``"axis"`` — :func:`axis_pairs`.

    ``mse`` is the mean over trials and pairs of (k_hat - k)^2; ``mse_se`` its standard error
    over trials; ``bias2`` the pair-averaged squared bias corrected for the trial noise
    (mean_p[(mean_t k_hat - k)^2 - var_t / T]); ``variance`` the pair-averaged variance;
    ``vs_rff`` the MSE ratio to RFF at the same m (< 1: better than RFF).
    """
    names = list(schemes) if schemes is not None else list(GAUSSIAN_SCHEMES)
    kernel = get_kernel("rbf", gamma=gamma)
    src = SeedSource(seed)
    if pairs == "axis":
        X, Y, exact = axis_pairs(d, gamma, src.rng("study", "axis-pairs", d))
    else:
        ps = make_pairs("gaussian", d, kernel, src.rng("study", "pairs", d))
        X, Y, exact = ps.X, ps.Y, ps.exact
    rows: list[dict[str, JSONValue]] = []
    for mult in multiples:
        m = int(mult) * d
        states = [src.random_state("study", "mse", d, m, trial=t) for t in range(trials)]
        base = None
        for name in names:
            est = _estimates(GAUSSIAN_SCHEMES[name], m, states, X, Y, gamma)
            per_trial = np.mean((est - exact) ** 2, axis=1)
            var = est.var(axis=0, ddof=1)
            bias2 = float(np.mean((est.mean(axis=0) - exact) ** 2 - var / trials))
            mse = float(per_trial.mean())
            if name == "RFF":
                base = mse
            rows.append({"scheme": name, "pairs": pairs, "d": d, "m": m, "m_over_d": int(mult), "mse": mse,
                         "mse_se": float(per_trial.std(ddof=1) / math.sqrt(trials)), "bias2": bias2,
                         "variance": float(var.mean()), "trials": trials,
                         "vs_rff": (mse / base) if base else float("nan")})
    return rows


def hd_stall_table(d: int = 16, multiples: Iterable[int] = (1, 4, 16, 64), *, trials: int = 200,
                   gamma: float = 0.5, seed: int = DEFAULT_SEED, pairs: str = "axis") -> list[dict[str, JSONValue]]:
    """RFF and SORF with 1, 2, 3 HD blocks (alber2017 Fig. 4's stall), rows as :func:`mse_table`.

    Default ``pairs="axis"``: with one block every row is (1/sigma)(h_i ⊙ D_1), entries ±1/sigma,
    so for y - x = r e_j the estimate is exactly cos(r/sigma) whatever the draw — a bias
    cos(r/sigma) - exp(-r^2/(2 sigma^2)) no m removes.  Two and three blocks mix coordinates."""
    return mse_table(d, multiples, trials=trials, gamma=gamma, seed=seed,
                     schemes=("RFF", "SORF-1", "SORF-2", "SORF-3"), pairs=pairs)


def format_mse_table(rows: list[dict[str, JSONValue]]) -> str:
    """Plain-text rendering (the reports module renders its own)."""
    ms = sorted({r["m"] for r in rows})
    schemes = list(dict.fromkeys(r["scheme"] for r in rows))
    by = {(r["scheme"], r["m"]): r for r in rows}
    head = "scheme       " + "".join(f"m={m:<34d}" for m in ms)
    lines = [head]
    for s in schemes:
        cells = []
        for m in ms:
            r = by.get((s, m))
            cells.append(f"{r['mse']:.3e}±{r['mse_se']:.1e} (bias² {max(r['bias2'], 0):.1e})".ljust(36) if r else " " * 36)
        lines.append(f"{s:<13s}" + "".join(cells))
    return "\n".join(lines)


# --------------------------------------------------------------------------
# throughput and memory
# --------------------------------------------------------------------------


def _dense_rff(m: int, dtype: type[np.generic]) -> type[RandomFourierFeaturesCosSin]:
    class DenseRFF(RandomFourierFeaturesCosSin):
        def fit(self, X: npt.ArrayLike | None = None, y: object = None) -> DenseRFF:
            super().fit(X)
            self.W_ = self.W_.astype(dtype)
            return self

        def transform(self, X: npt.ArrayLike) -> np.ndarray:  # dense GEMM baseline in the requested dtype
            P = np.asarray(X, dtype=dtype) @ self.W_
            return np.hstack([np.cos(P), np.sin(P)]) * dtype(math.sqrt(1.0 / self.n_components))

    return DenseRFF


def throughput_schemes(dtype: DTypeLike) -> dict[str, Callable[[int, int], FeatureMap]]:
    """name -> factory(m, random_state) for the throughput benchmark (every scheme at ``dtype``)."""
    from rfverify.implementations.arccos import ArcCosineFeatures

    dt = np.dtype(dtype).type
    out: dict[str, Callable[[int, int], FeatureMap]] = {"RFF (dense)": lambda m, rs: _dense_rff(m, dt)(m, rs, gamma=0.5)}
    for name, cls in GAUSSIAN_SCHEMES.items():
        if name != "RFF":
            out[name] = (lambda c: lambda m, rs: c(m, rs, gamma=0.5, dtype=dt))(cls)
    out["ArcCos-1"] = lambda m, rs: ArcCosineFeatures(m, rs, order=1, dtype=dt)
    return out


def throughput_rows(quick: bool = False, *, d: int = 1024, m: int = 4096, n: int | None = None,
                    dtypes: Iterable[DTypeLike] = (np.float64, np.float32), repeats: int | None = None) -> list[dict]:
    """Rows/second of ``transform`` (after ``fit``) for every scheme vs dense RFF, in bench's row format."""
    from rfverify.studies.bench import time_call

    n = n or (256 if quick else 2048)
    repeats = repeats or (2 if quick else 5)
    X0 = np.random.default_rng(0).standard_normal((n, d)) / math.sqrt(d)
    rows = []
    for dtype in dtypes:
        X = X0.astype(dtype)
        base = None
        for name, make in throughput_schemes(dtype).items():
            fm = make(m, 0).fit(X[:2])
            sec = time_call(lambda: fm.transform(X), repeats)
            if base is None:
                base = sec
            rows.append({"name": f"features/{name}", "d": d, "dtype": np.dtype(dtype).name, "n": n, "m": m,
                         "seconds": sec, "rows_per_s": n / sec, "gops": float("nan"),
                         "baseline": "features/RFF (dense)", "ratio": base / sec,
                         "parameters": _n_parameters(fm)})
    return rows


def _n_parameters(fm: FeatureMap) -> int:
    if hasattr(fm, "n_parameters"):
        return int(fm.n_parameters())
    return int(sum(np.asarray(v).size for k, v in vars(fm).items() if k.endswith("_") and not k.startswith("_")))


def memory_rows(d: int = 1024, m: int = 4096) -> list[dict[str, JSONValue]]:
    """Random numbers each scheme stores after ``fit`` at (d, m): O(md) dense, O(m) structured."""
    rows = []
    for name, make in throughput_schemes(np.float64).items():
        fm = make(m, 0).fit(np.zeros((1, d)))
        k = _n_parameters(fm)
        rows.append({"scheme": name, "d": d, "m": m, "parameters": k, "bytes_float64": 8 * k,
                     "per_feature": k / m})
    return rows

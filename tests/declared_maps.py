"""Feature maps written the way libraries are (not to rfverify's contract), for the declaration tests
(tests/test_adapters_declared.py): each needs one declaration, and is correct with it."""

from __future__ import annotations

import numpy as np


def _draw(d: int, m: int, gamma: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    return rng.standard_normal((d, m)) * np.sqrt(2.0 * gamma), rng.uniform(0.0, 2.0 * np.pi, m)


class FeaturesMethod:
    """Random Fourier features behind ``features(X)`` (no transform): needs ``method="features"``."""

    def __init__(self, n_components: int = 16, random_state: int | None = None, gamma: float = 1.0) -> None:
        self.n_components, self.random_state, self.gamma = n_components, random_state, gamma

    def fit(self, X: np.ndarray, y: object = None) -> "FeaturesMethod":
        self.W_, self.b_ = _draw(X.shape[1], self.n_components, self.gamma, np.random.default_rng(self.random_state))
        return self

    def features(self, X: np.ndarray, normalize: bool = False) -> np.ndarray:
        Z = np.cos(np.asarray(X) @ self.W_ + self.b_)
        return np.sqrt(2.0 / self.n_components) * Z if normalize else Z


class NumSamples:
    """Random Fourier features whose width is ``num_samples`` and seed ``seed``; cos and sin (2 num_samples
    columns): needs ``param_map={"n_components": "num_samples", "random_state": "seed"}`` (and ``width="2*m"``
    states it)."""

    def __init__(self, num_samples: int = 16, seed: int | None = None, gamma: float = 1.0) -> None:
        self.num_samples, self.seed, self.gamma = num_samples, seed, gamma

    def fit(self, X: np.ndarray, y: object = None) -> "NumSamples":
        self.W_, _ = _draw(X.shape[1], self.num_samples, self.gamma, np.random.default_rng(self.seed))
        return self

    def transform(self, X: np.ndarray) -> np.ndarray:
        P = np.asarray(X) @ self.W_
        return np.hstack([np.cos(P), np.sin(P)]) / np.sqrt(self.num_samples)


class GlobalNoSeed:
    """Unnormalised cos(XW + b) (the kernel estimate is m/2 times the kernel), drawn from numpy's global generator
    at fit, no ``random_state`` keyword (rfflearn's way): needs ``random_state`` not passed, ``global_seed="numpy"``
    and ``feature_scale="sqrt(2/m)"``."""

    def __init__(self, n_components: int = 16, gamma: float = 1.0) -> None:
        self.n_components, self.gamma = n_components, gamma

    def fit(self, X: np.ndarray, y: object = None) -> "GlobalNoSeed":
        d = np.shape(X)[1]
        self.W_ = np.random.randn(d, self.n_components) * np.sqrt(2.0 * self.gamma)
        self.b_ = np.random.uniform(0.0, 2.0 * np.pi, self.n_components)
        return self

    def transform(self, X: np.ndarray) -> np.ndarray:
        return np.cos(np.asarray(X) @ self.W_ + self.b_)


def rff_function(X: np.ndarray, n_components: int, random_state: int, gamma: float = 1.0) -> np.ndarray:
    """A plain feature function with its kernel parameter in its signature (gamma must reach it)."""
    W, b = _draw(np.shape(X)[1], n_components, gamma, np.random.default_rng(random_state))
    return np.sqrt(2.0 / n_components) * np.cos(np.asarray(X) @ W + b)


def rff_function_g(X: np.ndarray, n_components: int, random_state: int, g: float = 1.0) -> np.ndarray:
    """The same under another name for gamma (``--param-name gamma=g``)."""
    return rff_function(X, n_components, random_state, gamma=g)


def rff_needs_keyword(X: np.ndarray, n_components: int, random_state: int, *, rows: bool) -> np.ndarray:
    """A function that needs a keyword the harness does not pass (``call_kw={"rows": True}``)."""
    if rows is not True:
        raise ValueError("rows=True is the row-wise transform")
    return rff_function(X, n_components, random_state, gamma=0.5)


def rows_fwht(X: np.ndarray, *, axis: int = 0) -> np.ndarray:
    """The normalised Walsh-Hadamard transform along ``axis`` (fht (2017)'s fht2(X, axes=...) shape of call):
    the row-wise transform needs ``axis=1``."""
    from scipy.linalg import hadamard

    X = np.asarray(X, dtype=np.float64)
    n = X.shape[axis]
    H = hadamard(n) / np.sqrt(n)
    return X @ H.T if axis == 1 else H @ X


def haar_sampler(d: int, rng: np.random.Generator, *, flavour: str) -> np.ndarray:
    """scipy's Haar sampler behind a keyword the harness does not pass (``call_kw={"flavour": "O"}``)."""
    from scipy.stats import ortho_group

    if flavour != "O":
        raise ValueError("flavour must be 'O'")
    return ortho_group.rvs(d, random_state=rng)


class CrashAtM1:
    """Correct random Fourier features that crash at n_components = 1 (1 // (m - 1): a ZeroDivisionError, not a
    clean refusal), as pyrfm's RandomFourier does: an expected failure at that corner, the main verdict kept."""

    def __init__(self, n_components: int = 16, random_state: int | None = None, gamma: float = 1.0) -> None:
        self.n_components, self.random_state, self.gamma = n_components, random_state, gamma

    def fit(self, X: np.ndarray, y: object = None) -> "CrashAtM1":
        _ = 1 // (self.n_components - 1)
        self.W_, self.b_ = _draw(np.shape(X)[1], self.n_components, self.gamma, np.random.default_rng(self.random_state))
        return self

    def transform(self, X: np.ndarray) -> np.ndarray:
        return np.sqrt(2.0 / self.n_components) * np.cos(np.asarray(X) @ self.W_ + self.b_)

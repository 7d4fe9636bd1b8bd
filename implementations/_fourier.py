"""Shared plumbing of the zoo's reference feature maps (plug-in contract, validation, outputs).

Every scheme is an sklearn-style class ``Cls(n_components, random_state, **kernel_params)``:
the public ``fit``/``transform`` validate and convert, the private hooks ``_draw(d, rng)``
and ``_project(X)`` compute (template methods).  ``fit`` draws all randomness once from
``np.random.default_rng(random_state)``; nothing touches numpy's global state.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rfverify.errors import UsageError

__all__ = ["FeatureMapBase", "FourierBase", "next_power_of_two", "pad_columns"]

_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def next_power_of_two(d: int) -> int:
    return 1 << max(0, (int(d) - 1).bit_length())


def pad_columns(X: np.ndarray, p: int) -> np.ndarray:
    """X with zero columns appended up to width p (a copy, C-contiguous).

    Padding the *input* is harmless for every kernel here: k depends on x only
    through <w, x> with the padded coordinates of x equal to 0, so
    ``k([x, 0], [y, 0]) = k(x, y)`` for rbf (||[x,0] - [y,0]|| = ||x - y||) and
    the marginal law of a Gaussian row's first d coordinates is N(0, I_d).
    (Padding or truncating the *transform* instead would change its law.)
    """
    n, d = X.shape
    out = np.zeros((n, p), dtype=X.dtype)
    out[:, :d] = X
    return out


class FeatureMapBase:
    """n_components, random_state, dtype and the kernel parameters named in ``_params``."""

    _params: tuple[str, ...] = ()

    def __init__(self, n_components: int = 100, random_state: Any = None, **kw: Any) -> None:
        self.n_components = n_components
        self.random_state = random_state
        for k, v in kw.items():
            setattr(self, k, v)

    def get_params(self, deep: bool = False) -> dict[str, Any]:
        return {"n_components": self.n_components, "random_state": self.random_state,
                **{k: getattr(self, k) for k in self._params}}

    def set_params(self, **params: Any) -> "FeatureMapBase":
        for k, v in params.items():
            setattr(self, k, v)
        return self

    @property
    def _dtype(self) -> np.dtype:
        dt = np.dtype(getattr(self, "dtype", np.float64))
        if dt not in _DTYPES:
            raise UsageError(f"dtype={dt} is not supported; use float32 or float64")
        return dt

    def _validate(self, X: Any) -> np.ndarray:
        X = np.asarray(X, dtype=self._dtype)
        if X.ndim != 2:
            raise UsageError(f"X must be 2-D (n_samples, n_features), got shape {X.shape}")
        m = self.n_components
        if isinstance(m, bool) or not (isinstance(m, (int, np.integer)) and m >= 1):
            raise UsageError(f"n_components must be a positive integer, got {m!r}")
        return X

    def _check_fitted(self, X: np.ndarray) -> None:
        if not hasattr(self, "n_features_in_"):
            raise UsageError(f"{type(self).__name__} is not fitted; call fit(X) first")
        if X.shape[1] != self.n_features_in_:
            raise UsageError(f"X has {X.shape[1]} features, but fit saw {self.n_features_in_}")

    def fit(self, X: Any, y: Any = None) -> "FeatureMapBase":
        X = self._validate(X)
        self.n_features_in_ = X.shape[1]
        self._draw(X.shape[1], np.random.default_rng(self.random_state))
        return self

    def transform(self, X: Any) -> np.ndarray:
        X = self._validate(X)
        self._check_fitted(X)
        return self._features(X)

    def fit_transform(self, X: Any, y: Any = None) -> np.ndarray:
        return self.fit(X).transform(X)

    # hooks -----------------------------------------------------------
    def _draw(self, d: int, rng: np.random.Generator) -> None:  # pragma: no cover
        raise NotImplementedError

    def _features(self, X: np.ndarray) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def n_parameters(self) -> int:
        """Random numbers stored after ``fit`` (memory: O(md) dense, O(m) structured)."""
        return int(sum(np.asarray(v).size for k, v in vars(self).items() if k.endswith("_") and not
                       k.startswith("_") and k != "n_features_in_"))


class FourierBase(FeatureMapBase):
    """Paired random Fourier features for exp(-gamma ||x - y||^2): sqrt(1/m) [cos(Wx), sin(Wx)].

    ``_project(X)`` returns the (n, m) projections X W^T; the estimate is the average of
    cos(w_i . (x - y)) over the m frequencies, so 2m outputs, |feature| sqrt(2m) <= sqrt(2).
    The paired form (not a random phase) is used because orthogonality, structure and QMC
    reduce the variance of exactly this average (Yu et al. 2016).
    """

    _params = ("gamma",)

    def __init__(self, n_components: int = 100, random_state: Any = None, gamma: float = 1.0,
                 dtype: Any = np.float64) -> None:
        super().__init__(n_components, random_state, gamma=gamma, dtype=dtype)

    def get_params(self, deep: bool = False) -> dict[str, Any]:
        return {**super().get_params(deep), "dtype": self.dtype}

    def _validate(self, X: Any) -> np.ndarray:
        X = super()._validate(X)
        if not (np.isfinite(self.gamma) and self.gamma > 0):
            raise UsageError(f"gamma must be > 0, got {self.gamma!r}")
        return X

    @property
    def _sigma_inv(self) -> float:
        """1/sigma = sqrt(2 gamma): the frequency scale of exp(-gamma r^2) (w ~ N(0, 2 gamma I))."""
        return math.sqrt(2.0 * self.gamma)

    def _features(self, X: np.ndarray) -> np.ndarray:
        P = self._project(X)
        out = np.empty((P.shape[0], 2 * P.shape[1]), dtype=P.dtype)
        np.cos(P, out=out[:, : P.shape[1]])
        np.sin(P, out=out[:, P.shape[1]:])
        out *= P.dtype.type(math.sqrt(1.0 / self.n_components))
        return out

    def _project(self, X: np.ndarray) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

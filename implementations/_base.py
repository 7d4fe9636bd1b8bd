"""The one template every reference feature map follows (scipy's ``rv_continuous`` split).

Public methods validate and convert; private hooks compute:

* the constructor stores ``n_components``, ``random_state`` and the parameters named in
  ``_params`` (no validation there, as in scikit-learn: ``set_params`` can change them later);
  ``get_params`` returns them in that order;
* ``fit(X)`` converts X (:meth:`FeatureMap._validate`: a 2-D, finite array of the map's dtype;
  ``n_components`` a positive integer; the subclass's :meth:`~FeatureMap._check_params`), then
  calls :meth:`~FeatureMap._fit`, which by default draws everything once from
  ``np.random.default_rng(random_state)`` through the hook ``_draw(d, rng)`` and records
  ``n_features_in_``;
* ``transform(X)`` checks the map is fitted, converts X the same way, checks X's width against
  fit's and calls the hook ``_features(X)``.

A scheme implements ``_draw`` and ``_features`` (and ``_check_params`` for its own
parameters); a data-dependent scheme overrides ``_fit(X, y)`` instead of ``_draw``.  Every bad
input gives one :class:`~rfverify.errors.UsageError` with a one-line message.  Nothing here
touches numpy's global random state.

>>> import numpy as np
>>> class Identity(FeatureMap):
...     def _draw(self, d, rng):
...         pass
...     def _features(self, X):
...         return X / np.sqrt(self.n_components)
>>> Identity(1).fit(np.eye(2)).transform([[3.0, 4.0]])
array([[3., 4.]])
>>> Identity(0).fit(np.eye(2))
Traceback (most recent call last):
...
rfverify.errors.UsageError: n_components must be a positive integer, got 0
"""

from __future__ import annotations

from typing import Any, TypeVar

import numpy as np

from rfverify.errors import UsageError

__all__ = ["FeatureMap", "DTYPES"]

_Map = TypeVar("_Map", bound="FeatureMap")

#: The dtypes a map may compute in (``dtype=`` parameter, where a scheme offers one).
DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _is_positive_int(v: Any) -> bool:
    return not isinstance(v, bool) and isinstance(v, (int, np.integer)) and bool(v >= 1)


class FeatureMap:
    """Base of every reference feature map: ``Cls(n_components, random_state, **params)``."""

    #: Constructor parameters besides n_components and random_state, in get_params order.
    _params: tuple[str, ...] = ()
    #: True when ``fit()`` may be called without data (the map's input width is fixed by its parameters).
    _fit_without_data: bool = False

    def __init__(self, n_components: int = 100, random_state: Any = None, **params: Any) -> None:
        self.n_components = n_components
        self.random_state = random_state
        for k, v in params.items():
            setattr(self, k, v)

    # -- public: validate and convert, then call a hook ---------------------------------------
    def get_params(self, deep: bool = False) -> dict[str, Any]:
        return {"n_components": self.n_components, "random_state": self.random_state,
                **{k: getattr(self, k) for k in self._params}}

    def set_params(self: _Map, **params: Any) -> _Map:
        for k, v in params.items():
            setattr(self, k, v)
        return self

    def fit(self, X: Any = None, y: Any = None) -> Any:
        """Draw the map's randomness (once, from ``random_state``) for inputs like X."""
        X = self._validate(X)
        self._fit(X, y)
        return self

    def transform(self, X: Any) -> np.ndarray:
        """The (n, n_outputs) features of the rows of X."""
        if self._fitted_dim() is None:  # first, as scikit-learn's check_is_fitted: the likelier mistake
            raise UsageError(f"{type(self).__name__} is not fitted; call fit(X) first")
        X = self._validate(X)
        self._check_fitted(X)
        return self._features(X)

    def fit_transform(self, X: Any, y: Any = None) -> np.ndarray:
        return self.fit(X, y).transform(X)

    def n_parameters(self) -> int:
        """Random numbers stored after ``fit`` (memory: O(md) dense, O(m) structured)."""
        return int(sum(np.asarray(v).size for k, v in vars(self).items() if k.endswith("_") and not
                       k.startswith("_") and k != "n_features_in_"))

    # -- validation (shared) -------------------------------------------------------------------
    @property
    def _dtype(self) -> np.dtype:
        dt = np.dtype(getattr(self, "dtype", np.float64))
        if dt not in DTYPES:
            raise UsageError(f"dtype={dt} is not supported; use float32 or float64")
        return dt

    def _validate(self, X: Any) -> Any:
        """X as a 2-D finite array of the map's dtype, after checking every parameter."""
        if X is None and self._fit_without_data:
            self._validate_params()
            return None
        dtype = self._dtype
        try:
            X = np.asarray(X, dtype=dtype)
        except (TypeError, ValueError) as exc:
            raise UsageError(f"X must be a numeric array convertible to {dtype}, got {type(X).__name__} "
                             f"({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})") from None
        if X.ndim != 2:
            raise UsageError(f"X must be 2-D (n_samples, n_features), got shape {X.shape}")
        finite = np.isfinite(X)
        if not finite.all():
            bad = int(X.size - np.count_nonzero(finite))
            raise UsageError(f"X has {bad} non-finite value(s) (NaN or inf); features are defined for finite inputs")
        self._validate_params()
        self._check_input(X)
        return X

    def _validate_params(self) -> None:
        m = self.n_components
        if not _is_positive_int(m):
            raise UsageError(f"n_components must be a positive integer, got {m!r}")
        self._check_params()

    def _require_positive_int(self, name: str) -> None:
        """One shared rule and message for integer parameters (q, layers, batch_size, ...)."""
        v = getattr(self, name)
        if not _is_positive_int(v):
            raise UsageError(f"{name} must be a positive integer, got {v!r}")

    def _require_positive(self, name: str) -> None:
        """A finite, positive real parameter (gamma, learning_rate)."""
        v = getattr(self, name)
        try:
            ok = bool(np.isfinite(v) and v > 0)
        except TypeError:
            ok = False
        if not ok:
            raise UsageError(f"{name} must be > 0, got {v!r}")

    def _fitted_dim(self) -> int | None:
        """The input width fit saw, or None before fit."""
        return getattr(self, "n_features_in_", None)

    def _check_fitted(self, X: np.ndarray) -> None:
        d = self._fitted_dim()
        if d is None:
            raise UsageError(f"{type(self).__name__} is not fitted; call fit(X) first")
        if X.shape[1] != d:
            raise UsageError(f"X has {X.shape[1]} features, but fit saw {d}")

    def _fit(self, X: np.ndarray | None, y: Any) -> None:
        """Default fit: one draw from ``default_rng(random_state)``; data-dependent maps override this."""
        d = None if X is None else X.shape[1]
        self._draw(d, np.random.default_rng(self.random_state))  # type: ignore[arg-type]
        if d is not None:
            self.n_features_in_ = d

    # -- hooks ---------------------------------------------------------------------------------
    def _check_params(self) -> None:
        """Validate the scheme's own parameters (raise UsageError); n_components is already checked."""

    def _check_input(self, X: np.ndarray) -> None:
        """Domain checks beyond "2-D and finite" (e.g. inputs on the sphere)."""

    def _draw(self, d: int, rng: np.random.Generator) -> None:  # pragma: no cover - abstract
        """Draw and store (as attributes ending in ``_``) all the map's randomness for inputs of width d."""
        raise NotImplementedError

    def _features(self, X: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        """The features of a validated X (2-D, finite, the map's dtype, fitted width)."""
        raise NotImplementedError

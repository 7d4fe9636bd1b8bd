"""Random Fourier features in JAX (jit-compiled), the twin of :class:`tests.array_maps.NumpyRFF`.

The same draw (numpy's generator seeded by ``random_state``), put on the device in float32 (JAX's default);
features computed by one ``jax.jit`` function.  ``input="jax"`` hands it JAX arrays, and explore draws its shapes from a fixed set.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from tests.array_maps import NumpyRFF


@jax.jit
def _features(X, W, b, c):
    return c * jnp.cos(X @ W + b)


class JaxRFF(NumpyRFF):
    def fit(self, X):
        W, b = self.draw(X.shape[1])
        # device_put: jnp.asarray would compile a conversion for every new parameter shape
        self.W_, self.b_ = jax.device_put(W.astype(np.float32)), jax.device_put(b.astype(np.float32))
        return self

    def transform(self, X):
        return _features(jnp.asarray(X), self.W_, self.b_, self.scale * np.sqrt(2.0 / self.n_components))


class JaxRFFBroken(JaxRFF):
    """The JAX map with features 0.8x too small (unbiasedness fails)."""

    def __init__(self, n_components=100, random_state=None, gamma=1.0):
        super().__init__(n_components, random_state, gamma, scale=0.8)


def hadamard(X):
    """The normalised Sylvester transform in JAX (a dense product; the transform kind's JAX twin)."""
    from scipy.linalg import hadamard as sylvester

    X = jnp.asarray(X)
    X = X.astype(jnp.promote_types(X.dtype, jnp.float32))  # integers, bools and float16 computed in float32
    H = jnp.asarray(sylvester(X.shape[1]) / np.sqrt(X.shape[1]), dtype=X.dtype)
    return X @ H.T


def hadamard_broken(X):
    """0.8 times the transform (transform-exactness fails)."""
    return 0.8 * hadamard(X)


_LAST: dict = {}


def hadamard_cached(X):
    """The transform with a module-level cache keyed by the input's shape: data of a shape seen before gets the
    earlier data's output (the stateful check fails; a fresh process reproduces it)."""
    key = tuple(X.shape)
    if key not in _LAST:
        _LAST[key] = hadamard(X)
    return _LAST[key]

"""Small feature maps for the ecosystem and round-off tests: correct float32 maps and their broken twins.

Each is a plain function ``features(X, n_components, random_state)`` (the plug-in contract's function form),
the way a user's numpy code looks; the broken twins differ by one realistic bug.
"""

from __future__ import annotations

import numpy as np

GAMMA = 0.5


def _cossin(X, n_components, random_state, *, dtype=np.float32, freq_scale=1.0, scale=1.0, width=None):
    rng = np.random.default_rng(random_state)
    h = (width or n_components) // 2
    W = rng.normal(0.0, np.sqrt(2.0 * GAMMA) * freq_scale, (X.shape[1], h)).astype(dtype)
    Z = np.asarray(X, dtype=dtype) @ W
    return (np.hstack([np.cos(Z), np.sin(Z)]) * dtype(scale / np.sqrt(h))).astype(dtype)


def cossin_float32(X, n_components, random_state):
    """Correct: [cos XW, sin XW] / sqrt(m/2) computed in float32 (k(x, x) = 1 only to float32 round-off)."""
    return _cossin(X, n_components, random_state)


def cossin_float32_scaled(X, n_components, random_state):
    """Broken twin: every feature times 0.87, so the map estimates 0.76 x k everywhere."""
    return _cossin(X, n_components, random_state, scale=0.87)


def cossin_float32_bandwidth(X, n_components, random_state):
    """Broken twin: frequencies with half the variance (gamma halved): the map estimates k^0.5."""
    return _cossin(X, n_components, random_state, freq_scale=np.sqrt(0.5))


def cossin_float32_shared(X, n_components, random_state):
    """Broken twin: one frequency reused for every feature (unbiased, but the error never shrinks)."""
    rng = np.random.default_rng(random_state)
    h = n_components // 2
    w = rng.normal(0.0, np.sqrt(2.0 * GAMMA), (X.shape[1], 1)).astype(np.float32)
    Z = np.repeat(np.asarray(X, dtype=np.float32) @ w, h, axis=1)
    return np.hstack([np.cos(Z), np.sin(Z)]) / np.float32(np.sqrt(h))


def cossin_rounds_up(X, n_components, random_state):
    """Correct: rounds n_components up to a multiple of 3 d (as block-structured maps do), in float64."""
    block = 3 * X.shape[1]
    width = -(-n_components // block) * block
    return _cossin(X, n_components, random_state, dtype=np.float64, width=width)

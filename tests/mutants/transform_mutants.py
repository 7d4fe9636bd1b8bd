"""Broken fast Walsh-Hadamard transforms, planted for tests/test_structured_transforms.py and
tests/test_transform_checks.py."""

from __future__ import annotations

import numpy as np
from scipy.linalg import hadamard

from rfverify.implementations.structured import fwht


def _sequency_order(d):
    """Walsh (sequency) ordering: rows of H sorted by number of sign changes."""
    H = hadamard(d)
    changes = (np.diff(H, axis=1) != 0).sum(axis=1)
    return np.argsort(changes, kind="stable")


def broken_sequency(X):
    Y = fwht(X)
    return Y[..., _sequency_order(X.shape[-1])]


def broken_skip_last_stage(X):
    Y = np.array(X, dtype=np.float64)
    d = Y.shape[-1]
    h = 1
    while h < d // 2:  # stops one stage early
        v = Y.reshape(-1, d // (2 * h), 2, h)
        a, b = v[:, :, 0, :].copy(), v[:, :, 1, :].copy()
        v[:, :, 0, :], v[:, :, 1, :] = a + b, a - b
        h *= 2
    return Y


def broken_wrong_axis(X):
    return fwht(X, axis=0) if X.shape[0] == X.shape[1] else fwht(X)


def broken_wrong_normalisation(X):
    return fwht(X, normalized=True) / np.sqrt(X.shape[-1])


def broken_mutates_input(X):
    """Transforms in place while claiming out-of-place."""
    return fwht(X, inplace=True) if X.dtype in (np.float32, np.float64) else fwht(X)


def broken_pads(X):
    """Zero-pads any width to the next power of two instead of refusing it."""
    d = X.shape[1]
    D2 = 1 << max(0, (d - 1).bit_length())
    Z = np.zeros((X.shape[0], D2))
    Z[:, :d] = X
    return fwht(Z)


def broken_axis0(X):
    """Transforms along the batch axis."""
    return fwht(X, axis=0)

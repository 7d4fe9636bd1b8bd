"""The one line fht (2017) needs: its row-wise transform takes a keyword the transform kind does not pass."""

from __future__ import annotations

import numpy as np

__all__ = ["fht2017_rows"]


def fht2017_rows(X: np.ndarray) -> np.ndarray:
    """fht (2017)'s normalised transform of each row: ``fht.fht2(X, axes=1)``.

    The published ``fht.fht(X)`` of a 2-D array is the *2-D* transform (both axes); the row-wise one needs the
    keyword ``axes=1``, and the transform kind passes none -- hence this one line.
    """
    import fht

    return fht.fht2(np.asarray(X), axes=1)

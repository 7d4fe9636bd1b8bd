"""The one adapter the ecosystem table still needs, with why no declaration replaces it.

* **hadamard-transform** ``hadamard_transform(x)`` takes torch tensors only (``x.view``, ``torch.cat``), and the
  transform kind hands numpy arrays: ``--input torch`` is a feature-map declaration, and the transform kind has
  no input declaration yet.  :func:`hadamard_transform_apply` converts to a tensor of X's dtype and back -- the
  library's own routine, nothing re-implemented.

Every other library of the table (rfflearn, gpytorch, random-fourier-features-pytorch, fht (2017), ...) is
verified from its declarations alone (``rfverify ecosystem --list`` shows them).
"""

from __future__ import annotations

import numpy as np

__all__ = ["hadamard_transform_apply"]


def hadamard_transform_apply(X: np.ndarray) -> np.ndarray:
    """hadamard-transform's ``hadamard_transform`` (normalised, natural order) on the rows of X, through torch
    tensors of X's dtype."""
    import torch
    from hadamard_transform import hadamard_transform

    return hadamard_transform(torch.from_numpy(np.ascontiguousarray(X))).numpy()

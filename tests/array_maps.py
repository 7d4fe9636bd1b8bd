"""Feature maps written with other array libraries (torch, dask, list outputs, lying objects) and their twins.

Each is random Fourier features for ``rbf(gamma)`` drawn from numpy's generator seeded by ``random_state``, so that
the numpy, torch, JAX (:mod:`tests.jax_maps`) and dask versions of one draw are the same map; only the array
library differs.  The broken twins (``scale=0.8``) must fail unbiasedness; the objects that lie about their shape
must be a clear plug-in error.
"""

from __future__ import annotations

import numpy as np


class NumpyRFF:
    """Random Fourier features for rbf(gamma) in numpy (the reference twin of the other libraries' maps)."""

    def __init__(self, n_components=100, random_state=None, gamma=1.0, scale=1.0):
        self.n_components, self.random_state, self.gamma, self.scale = n_components, random_state, gamma, scale

    def draw(self, d):
        rng = np.random.default_rng(self.random_state)
        W = rng.normal(0.0, np.sqrt(2.0 * self.gamma), (d, self.n_components))
        b = rng.uniform(0.0, 2.0 * np.pi, self.n_components)
        return W, b

    def fit(self, X):
        self.W_, self.b_ = self.draw(X.shape[1])
        return self

    def transform(self, X):
        return self.scale * np.sqrt(2.0 / self.n_components) * np.cos(np.asarray(X) @ self.W_ + self.b_)


class TorchRFF(NumpyRFF):
    """The same map in torch: takes tensors (``input="torch"``), returns float32 tensors that require grad."""

    def fit(self, X):
        import torch

        W, b = self.draw(X.shape[1])
        self.W_ = torch.tensor(W, dtype=torch.float32, requires_grad=True)
        self.b_ = torch.tensor(b, dtype=torch.float32)
        return self

    def transform(self, X):
        import torch

        if not isinstance(X, torch.Tensor):
            raise TypeError(f"expected a torch tensor, got {type(X).__name__}")
        return self.scale * (2.0 / self.n_components) ** 0.5 * torch.cos(X.to(torch.float32) @ self.W_ + self.b_)


class TorchRFFBroken(TorchRFF):
    """The torch map with features 0.8x too small: the kernel estimate is 0.64 k (unbiasedness fails)."""

    def __init__(self, n_components=100, random_state=None, gamma=1.0):
        super().__init__(n_components, random_state, gamma, scale=0.8)


class Float32TorchOut(NumpyRFF):
    """numpy input, float32 torch tensor output (computed in float32): judged with float32 round-off."""

    def transform(self, X):
        import torch

        X32 = np.asarray(X, dtype=np.float32)
        return torch.from_numpy(np.sqrt(np.float32(2.0 / self.n_components))
                                * np.cos(X32 @ self.W_.astype(np.float32) + self.b_.astype(np.float32)))


class DaskRFF(NumpyRFF):
    """Returns a lazy dask array (computed by the harness)."""

    def transform(self, X):
        import dask.array as da

        Xd = da.from_array(np.asarray(X), chunks=(max(1, len(X) // 2 + 1), -1))
        return np.sqrt(2.0 / self.n_components) * da.cos(Xd @ self.W_ + self.b_)


class ListRFF(NumpyRFF):
    """Returns a list of lists (accepted: numbers in rows)."""

    def transform(self, X):
        return super().transform(X).tolist()


class RaggedRFF(NumpyRFF):
    """Returns a ragged list of lists (the last row one feature short)."""

    def transform(self, X):
        rows = super().transform(X).tolist()
        rows[-1] = rows[-1][:-1]
        return rows


class LyingShape:
    """An array-like whose ``shape`` claims one more column than its values hold."""

    def __init__(self, a):
        self.a = a
        self.shape = (a.shape[0], a.shape[1] + 1)
        self.dtype = a.dtype

    def __array__(self, dtype=None, copy=None):
        return self.a if dtype is None else self.a.astype(dtype)


class LyingRFF(NumpyRFF):
    def transform(self, X):
        return LyingShape(super().transform(X))

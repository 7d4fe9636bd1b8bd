"""The smallest adapters the torch-based libraries of the ecosystem table still need, each with why.

Each function here hands the library's *own* object or routine to the harness; none re-implements what it
verifies.  Why no declaration replaces them (``reports/ecosystem.md`` says the same per entry):

* **gpytorch** ``RFFKernel`` is a kernel (``forward(x1, x2)`` returns a lazy covariance), not a feature map:
  its features are ``_featurize(x, normalize=True)``, its width is ``num_samples`` (not ``n_components``) and
  its lengthscale is a parameter set after construction.  :func:`gpytorch_rff` builds the kernel with
  ``num_dims`` (so that the frequencies are drawn at construction, under ``global_seed="torch"``) and returns a
  torch module whose ``forward`` is the library's ``_featurize``; tensors come in through ``input="torch"``.
* **random-fourier-features-pytorch** ``GaussianEncoding(sigma, input_size, encoded_size)`` returns
  ``(cos 2 pi B v, sin 2 pi B v)`` unscaled (an encoding for coordinate networks): the kernel estimate is
  ``m`` times the kernel.  :func:`rff_gaussian_encoding` builds the library's module and scales its output by
  ``1/sqrt(m)``; ``sigma`` comes from the kernel's gamma by a parameter map (gamma = 2 pi^2 sigma^2).
* **hadamard-transform** ``hadamard_transform(x)`` takes torch tensors; the transform kind hands numpy arrays
  (``--input torch`` is a feature-map declaration).  :func:`hadamard_transform_apply` converts and back.

FFHT (``ffht-unofficial`` 0.3) needs none: its ``fht`` takes a 2-D batch too (``ffht:fht`` is verified as it is).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["gpytorch_rff", "rff_gaussian_encoding", "hadamard_transform_apply"]


def _module(inner: Any, scale: float) -> Any:
    """A torch module returning ``inner(x) * scale`` (``inner``, the library's module, is its only child, so the
    torch input adapter puts tensors on its device and in its dtype)."""
    import torch

    class ScaledLibraryModule(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, x: Any) -> Any:
            return self.inner(x) * scale

    return ScaledLibraryModule()


def gpytorch_rff(n_components: int, random_state: Any = None, lengthscale: float = 1.0,
                 num_dims: int | None = None) -> Any:
    """gpytorch's ``RFFKernel(num_samples=n_components, num_dims=num_dims)`` with ``lengthscale`` set; a torch
    module returning the library's normalised features ``_featurize(x, normalize=True)`` (2 m columns).

    ``random_state`` is not used: gpytorch draws from torch's global generator (declare ``global_seed="torch"``).
    """
    from gpytorch.kernels import RFFKernel

    kernel = RFFKernel(num_samples=int(n_components), num_dims=num_dims)
    kernel.lengthscale = float(lengthscale)
    return _GpytorchFeatures(kernel)


def _GpytorchFeatures(kernel: Any) -> Any:
    import torch

    class GpytorchRFFFeatures(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.kernel = kernel

        def forward(self, x: Any) -> Any:
            return self.kernel._featurize(x, normalize=True)

    return GpytorchRFFFeatures()


def rff_gaussian_encoding(n_components: int, random_state: Any = None, sigma: float = 1.0,
                          input_size: int | None = None) -> Any:
    """random-fourier-features-pytorch's ``GaussianEncoding(sigma, input_size, encoded_size=n_components)``,
    its output scaled by ``1/sqrt(n_components)`` (the library's is unscaled); a torch module.

    ``random_state`` is not used: ``rff.functional.sample_b`` draws from torch's global generator (declare
    ``global_seed="torch"``).  ``input_size`` is the data dimension (``init={"input_size": d}``).
    """
    from rff.layers import GaussianEncoding

    if input_size is None:
        raise ValueError("GaussianEncoding needs input_size (the data dimension): init={'input_size': d}")
    enc = GaussianEncoding(sigma=float(sigma), input_size=int(input_size), encoded_size=int(n_components))
    return _module(enc, 1.0 / math.sqrt(n_components))


def hadamard_transform_apply(X: np.ndarray) -> np.ndarray:
    """hadamard-transform's ``hadamard_transform`` (normalised, natural order) on the rows of X, through torch
    tensors of X's dtype."""
    import torch
    from hadamard_transform import hadamard_transform

    return hadamard_transform(torch.from_numpy(np.ascontiguousarray(X))).numpy()

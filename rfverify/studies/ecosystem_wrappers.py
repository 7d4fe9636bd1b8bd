"""The wrappers the ecosystem table still needs, each with the reason no declaration can replace it.

rfflearn (RFF, ORF, QRF) has no feature-map class: its random matrix lives inside its regressors, classifiers
and GPs (``rfflearn.cpu.rfflearn_cpu_common.Base``), which expose ``conv(X) = cos(X W + b)`` -- unscaled
features, no ``fit``/``transform``, no ``n_components`` or ``random_state`` keywords.  The wrapper below is
the smallest object that meets the plug-in contract: it builds ``Base`` with the library's own matrix
generator, calls ``set_weight`` (the library's draw), and returns ``sqrt(2/m) conv(X)``.  It passes
``random_state`` nowhere: rfflearn draws from numpy's global generator only, so the ecosystem entries declare
``global_seed="numpy"`` (the harness seeds and restores it around each fit) and its ``std_kernel`` is reached
through a parameter map (``gamma=std_kernel:1/sqrt(2*gamma)``), exactly as a user would declare them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:  # imported here, not in fit: importing rfflearn touches Python's random module (the guard would see it)
    from rfflearn.cpu.rfflearn_cpu_common import Base as _Base
except ImportError:  # the thirdparty extra is not installed
    _Base = None

__all__ = ["RfflearnRFF", "RfflearnORF", "RfflearnQRF"]


class _Rfflearn:
    """sqrt(2/m) cos(X W + b) with rfflearn's own W and b (``rand_type`` "rff", "orf" or "qrf")."""

    rand_type = "rff"

    def __init__(self, n_components: int = 100, random_state: Any = None, std_kernel: float = 1.0) -> None:
        self.n_components = n_components
        self.random_state = random_state  # rfflearn cannot take it: declare global_seed="numpy"
        self.std_kernel = std_kernel

    def fit(self, X: np.ndarray, y: Any = None) -> "_Rfflearn":
        if _Base is None:
            raise ImportError("rfflearn is not installed: pip install 'rfverify[thirdparty]'")
        self.base_ = _Base(self.rand_type, self.n_components, self.std_kernel, None, None)
        self.base_.set_weight(np.shape(X)[1])
        return self

    def transform(self, X: np.ndarray) -> np.ndarray:
        return np.sqrt(2.0 / self.n_components) * self.base_.conv(np.asarray(X))


class RfflearnRFF(_Rfflearn):
    """rfflearn's random Fourier features (``get_rff_matrix``: std * randn)."""

    rand_type = "rff"


class RfflearnORF(_Rfflearn):
    """rfflearn's orthogonal random features (``get_orf_matrix``)."""

    rand_type = "orf"


class RfflearnQRF(_Rfflearn):
    """rfflearn's quasi-random Fourier features (``get_qrf_matrix``: scrambled Sobol + Box-Muller)."""

    rand_type = "qrf"

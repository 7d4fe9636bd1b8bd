"""High-precision references (mpmath, precision scoped with ``workdps``).

Each reference is a minimal definition evaluated at two precisions and checked
against a second, independent method (closed forms, tanh-sinh quadrature,
Monte Carlo).  Modules:

* :mod:`rfverify.highprec.maxout` -- random maxout features (Mroueh, Rennie &
  Goel): moments of the maximum of ``q`` Gaussians, Hermite moments, the
  collision kernel ``kappa_q`` and its power series, the expected maxout kernel
  and fast numpy Gram matrices of both kernels.
* :mod:`rfverify.studies.claims.mroueh` -- the paper's claims, each evaluated
  to a verdict with numbers.
"""

from __future__ import annotations

from rfverify.highprec.maxout import (
    NUMPY_KERNEL_ABS_ERROR,
    expected_max,
    hermite_moments,
    kappa_coefficients,
    kernel_coefficients,
    maxout_collision_kernel,
    maxout_kernel,
    sigma2,
    write_tables,
)

__all__ = [
    "NUMPY_KERNEL_ABS_ERROR",
    "expected_max",
    "hermite_moments",
    "kappa_coefficients",
    "kernel_coefficients",
    "maxout_collision_kernel",
    "maxout_kernel",
    "sigma2",
    "write_tables",
]

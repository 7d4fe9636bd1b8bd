"""The one place that pins the thread pools of numerical libraries (BLAS, OpenMP) for a block of code.

rfverify pins BLAS to one thread wherever it makes many small calls or where a result must not depend on the
machine's thread count: an exploration (thousands of 128 x 128 eigh), a claim, a calibration or zoo unit, a
benchmark group, the adapted-basis optimisation.  A multi-threaded BLAS slows small products down up to tenfold on
a loaded machine (measured: the kernel explore of rbf_laplacian_mix, quick, 10.7 s -> 1.1 s at load 15 on 2 cores),
and one thread makes every sum's order, hence every digit, independent of the thread count.

:func:`limit_threads` is threadpoolctl's ``threadpool_limits`` without its cost per call: ``threadpool_limits``
walks every loaded shared library (``dl_iterate_phdr``) on each call, about 6 ms on a quiet machine and 12 ms under
load (over a second across the 82 published claims).  The scan is kept and redone only when a module was imported
since (a new BLAS arrives only with an extension module: scipy's own OpenBLAS, numba's, scikit-learn's), so every
library loaded when the block starts is limited.

Layering: core; imports nothing of rfverify.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any, Iterator

__all__ = ["limit_threads", "one_blas_thread", "single_threaded"]

#: [(len(sys.modules) when scanned, threadpoolctl.ThreadpoolController)]
_CONTROLLER: list[Any] = []


def _controller() -> Any:
    from threadpoolctl import ThreadpoolController

    n = len(sys.modules)
    if not _CONTROLLER or _CONTROLLER[0][0] != n:
        _CONTROLLER[:] = [(n, ThreadpoolController())]
    return _CONTROLLER[0][1]


def limit_threads(limits: int | None = 1, user_api: str | None = "blas") -> Any:
    """A context manager: the thread pools of ``user_api`` (``"blas"``, ``"openmp"``, or None for every pool)
    limited to ``limits`` threads for the block (None: no change, a null context)."""
    if limits is None:
        return contextlib.nullcontext()
    return _controller().limit(limits=limits, user_api=user_api)


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """BLAS/LAPACK on one thread for the block."""
    with limit_threads(1, "blas"):
        yield


@contextlib.contextmanager
def single_threaded() -> Iterator[None]:
    """Every thread pool threadpoolctl knows (BLAS and OpenMP) on one thread for the block: a work unit's result
    then cannot depend on how many threads its process happened to have."""
    with limit_threads(1, None):
        yield

"""Benchmark group ``transform-checks``: what one exactness comparison of the transform kind costs.

One comparison is :func:`rfverify.properties.transform_exactness.exactness_violation` on an (n, d) batch: the
reference ``X M^T`` and the elementwise tolerance.  Three ways, timed back to back on the same input in one
run (:func:`rfverify.studies.bench.time_call`), in ``rfverify bench``'s row format:

* ``exactness/structured`` — the Hadamard operator the kind now uses: float64 FWHT reference, ‖H‖₂ and |H||x| from the
  structure, O(n d log d);
* ``exactness/dense cached`` — a user's dense matrix (:class:`~rfverify.kinds.matrices.DenseOperator` kept across
  calls): ``X @ M.T`` and ``|X| |M|^T``, O(n d²);
* ``exactness/dense+SVD (old)`` — the baseline, what every call did before: the same plus ``np.linalg.norm(M, 2)``
  (an SVD, O(d³)) on every call.

``ratio`` is baseline seconds / seconds (> 1: faster than the old comparison).  Timings depend on machine
load: report them as measured, with the load.
"""

from __future__ import annotations

import math
from typing import Iterable

import numpy as np

__all__ = ["exactness_rows"]

BASELINE = "exactness/dense+SVD (old)"


def exactness_rows(quick: bool = False, *, dims: Iterable[int] | None = None, n: int = 64,
                   repeats: int | None = None) -> list[dict]:
    """One row per (way, d): seconds of one exactness comparison of n rows, and the ratio to the old one."""
    from rfverify.kinds.matrices import DenseOperator, HadamardOperator
    from rfverify.properties.transform_exactness import exactness_violation
    from rfverify.studies.bench import time_call

    dims = tuple(dims) if dims is not None else ((256,) if quick else (256, 1024, 2048))
    repeats = repeats or (2 if quick else 3)
    rows: list[dict] = []
    rng = np.random.default_rng(0)
    for d in dims:
        X = rng.standard_normal((n, d))
        op = HadamardOperator(d)
        H = op.dense()
        Y = op.reference(X)  # a correct output: the comparison runs to the end
        dense = DenseOperator(H)
        t = {BASELINE: time_call(lambda: exactness_violation(Y, X, H), 1),
             "exactness/dense cached": time_call(lambda: exactness_violation(Y, X, dense), repeats),
             "exactness/structured": time_call(lambda: exactness_violation(Y, X, op), repeats)}
        ops = n * d * max(math.log2(d), 1.0)
        for name, sec in t.items():
            rows.append({"name": name, "d": d, "dtype": "float64", "n": n, "seconds": sec,
                         "gops": ops / sec / 1e9, "baseline": BASELINE, "ratio": t[BASELINE] / sec})
    return rows

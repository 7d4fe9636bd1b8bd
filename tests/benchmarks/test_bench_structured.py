"""pytest-benchmark timings (run with ``pytest -m benchmark``); cheap sizes, no timed asserts."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import hadamard

from rfverify.implementations.structured import Butterfly, fwht, numba_available

pytestmark = pytest.mark.benchmark

BACKENDS = ["numpy"] + (["numba"] if numba_available() else [])
D, N = 1024, 256


@pytest.fixture(scope="module")
def X():
    return np.random.default_rng(0).standard_normal((N, D))


@pytest.mark.parametrize("backend", BACKENDS)
def test_fwht_d1024_float64_batched(benchmark, X, backend):
    out = np.empty_like(X)
    fwht(X, backend=backend, out=out)  # warm-up / compile
    benchmark(fwht, X, backend=backend, out=out)


def test_dense_hadamard_baseline(benchmark, X):
    H = hadamard(D).astype(np.float64)
    benchmark(np.matmul, X, H)


@pytest.mark.parametrize("backend", BACKENDS)
def test_butterfly_apply(benchmark, X, backend):
    bf = Butterfly(D, rng=1)
    bf.apply(X[:2], backend=backend)
    benchmark(bf.apply, X, backend=backend)


def test_butterfly_dense_baseline(benchmark, X):
    Bt = np.ascontiguousarray(Butterfly(D, rng=1).matrix().T)
    benchmark(np.matmul, X, Bt)

"""Issue-18 FWHT targets as pytest-benchmark timings (never timed assertions).

Targets (measured side by side by ``rfverify bench``; these benchmarks give the same
calls to pytest-benchmark for its history and comparisons): in place, n·d = 2^22,
ours <= 1.0x fht-cpu at d = 2^8 ... 2^14 with 1 and 2 threads, and within 1.5x of a
memory pass at d >= 2^10.  Run:
``python -m pytest -m benchmark -p no:xdist tests/benchmarks/test_bench_fwht_frontier.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from rfverify.implementations.structured import Butterfly, fwht, fwht_default_threads, numba_available

pytestmark = [pytest.mark.benchmark,
              pytest.mark.skipif(not numba_available(), reason="numba not installed (pip install 'rfverify[fast]')")]

TOTAL = 1 << 22
DIMS = [256, 1024, 16384]
DTYPES = [np.float32, np.float64]
THREADS = [1, 2]


def _batch(d, dtype):
    return np.random.default_rng(0).standard_normal((TOTAL // d, d)).astype(dtype)


@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("d", DIMS)
def test_fwht_inplace(benchmark, d, dtype, threads):
    X = _batch(d, dtype)
    benchmark(fwht, X, inplace=True, normalized=True, threads=threads)


@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("d", DIMS)
def test_fwht_out(benchmark, d, threads):
    X = _batch(d, np.float32)
    out = np.empty_like(X)
    benchmark(fwht, X, out=out, threads=threads)


@pytest.mark.parametrize("d", DIMS)
def test_fwht_allocating_first_touch(benchmark, d):
    """A fresh result every call: its pages are first touched inside the kernel, by the threads."""
    X = _batch(d, np.float32)
    benchmark(fwht, X)


@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("d", DIMS)
def test_fht_cpu_baseline(benchmark, d, dtype, threads):
    fht_cpu = pytest.importorskip("fht_cpu", reason="pip install fht-cpu (or 'rfverify[bench]')")
    X = _batch(d, dtype)
    scale = X.dtype.type(1 / np.sqrt(d))

    def call():  # normalised like ours (H/sqrt(d) is an involution: values stay finite over the repeats)
        fht_cpu.fht(X, num_threads=threads)
        np.multiply(X, scale, out=X)

    benchmark(call)


@pytest.mark.parametrize("d", DIMS)
def test_memory_pass_baseline(benchmark, d):
    X = _batch(d, np.float32)
    Y = np.empty_like(X)
    benchmark(np.copyto, Y, X)


@pytest.mark.parametrize("threads", THREADS)
def test_butterfly_apply_threads(benchmark, threads):
    bf = Butterfly(1024, rng=1)
    X = _batch(1024, np.float64)[:1024]
    benchmark(bf.apply, X, backend="numba", threads=threads)


@pytest.mark.parametrize("threads", THREADS)
def test_sorf_feature_map_threads(benchmark, threads):
    from rfverify.implementations.structured_features import SORF3

    X = np.random.default_rng(2).standard_normal((4096, 256))
    fm = SORF3(n_components=256, random_state=1, gamma=1 / 512).fit(X[:2])

    def call():
        with fwht_default_threads(threads):
            return fm.transform(X)

    benchmark(call)

"""Feature-map throughput at d = 1024, m = 4096 (float64/float32) for every scheme vs dense RFF,
and parameters stored.  Run: ``python -m pytest -m benchmark -p no:xdist tests/benchmarks/test_bench_zoo.py``."""

from __future__ import annotations

import numpy as np
import pytest

from rfverify.studies.scheme_study import memory_rows, throughput_schemes

D, M, N = 1024, 4096, 1024


@pytest.mark.benchmark
@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("scheme", list(throughput_schemes(np.float64)))
def test_bench_transform(benchmark, scheme, dtype):
    X = (np.random.default_rng(0).standard_normal((N, D)) / np.sqrt(D)).astype(dtype)
    fm = throughput_schemes(dtype)[scheme](M, 0).fit(X[:2])
    Z = benchmark.pedantic(fm.transform, args=(X,), rounds=3, iterations=1, warmup_rounds=1)
    benchmark.extra_info.update(rows_per_s_note="N / mean", n=N, d=D, m=M)
    assert Z.shape[0] == N and Z.dtype == np.dtype(dtype)


@pytest.mark.benchmark
def test_memory_per_scheme():
    rows = {r["scheme"]: r for r in memory_rows(D, M)}
    assert rows["RFF (dense)"]["parameters"] == D * M
    for s in ("SORF-1", "SORF-2", "SORF-3", "Fastfood"):
        assert rows[s]["parameters"] <= 4 * M  # O(m): at most 4 numbers per feature

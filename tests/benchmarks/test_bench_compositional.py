"""Benchmarks: compositional random features (Algorithm 1) vs the exact skeleton Gram (§6 deep skeleton).

Run with ``pytest -m benchmark tests/benchmarks/test_bench_compositional.py`` (add ``-m "benchmark and slow"``
for the 24×24 / 10^5 features / 1,000 inputs size).  One round each: these time whole pipelines.
"""

from __future__ import annotations

import numpy as np
import pytest

from rfverify.implementations.compositional import CompositionalFeatures, deep_image_skeleton, skeleton_kernel

SIZES = [
    pytest.param(12, 10_000, 200, id="12x12-q1e4-n200"),
    pytest.param(24, 100_000, 1000, id="24x24-q1e5-n1000", marks=pytest.mark.slow),
]


def _inputs(size: int, n: int) -> np.ndarray:
    return np.random.default_rng(0).uniform(0, 2 * np.pi, (n, size * size))


@pytest.mark.benchmark
@pytest.mark.parametrize("size,q,n", SIZES)
def test_bench_features_generate_and_transform(benchmark, size, q, n):
    sk = deep_image_skeleton(size)
    X = _inputs(size, n)

    def run():
        fm = CompositionalFeatures(sk, q, 0).fit()
        return fm, fm.transform(X)

    fm, Z = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(unique_features=int(fm.counts_.size), leaves=int(fm.leaf_node_.size),
                                output_shape=list(Z.shape))
    assert Z.shape == (n, fm.n_features_out_)


@pytest.mark.benchmark
@pytest.mark.parametrize("size,q,n", SIZES)
def test_bench_exact_gram(benchmark, size, q, n):
    sk = deep_image_skeleton(size)
    X = _inputs(size, n)
    K = benchmark.pedantic(lambda: skeleton_kernel(sk, X), rounds=1, iterations=1)
    assert K.shape == (n, n)

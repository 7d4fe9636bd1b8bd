"""Issue-2 speed targets as benchmarks (never timed assertions).

Target: one feature map, d = 16, m up to 1024 — default profile <= 20 s wall on
2 cores, quick <= 3 s.  Run: ``python -m pytest -m benchmark -p no:xdist tests/benchmarks/test_bench_harness.py``.
"""

from __future__ import annotations

import math

import pytest
from sklearn.kernel_approximation import RBFSampler

import rfverify
from rfverify.implementations.rff import RandomFourierFeatures


@pytest.mark.benchmark
@pytest.mark.parametrize("profile", ["quick", "default"])
@pytest.mark.parametrize("impl", [RBFSampler, RandomFourierFeatures], ids=lambda c: c.__name__)
def test_bench_verify_suite(benchmark, impl, profile):
    report = benchmark.pedantic(
        rfverify.verify, args=(impl,),
        kwargs=dict(kernel="rbf", kernel_params={"gamma": 0.5}, bound=math.sqrt(2), dim=16, profile=profile),
        rounds=3, iterations=1)
    assert report.passed

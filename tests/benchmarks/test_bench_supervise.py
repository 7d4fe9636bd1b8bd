"""Benchmark: the cost of running the plug-in in a supervised child process (issue 16; target <= 10% wall).

Run with ``pytest -m benchmark tests/benchmarks/test_bench_supervise.py`` (``RFVERIFY_BENCH_ROUNDS=N`` for
more than 5 rounds).  Each round runs the default profile twice, in-process (``isolate=False``) and
supervised (``isolate=True``), in alternating order so that a change in the machine's load hits both; the
ratio of the medians is reported in ``extra_info`` with the load average, never asserted (timings are
not test outcomes).  What *is* asserted: the verdicts (the whole JSON report) are identical — supervision
changes where the code runs, not what it computes.
"""

from __future__ import annotations

import os
import statistics
import time

import pytest

from rfverify.kinds.feature_map import FeatureMapConfig
from rfverify.runner import run

TARGETS = [
    pytest.param("sklearn.kernel_approximation:RBFSampler", id="RBFSampler"),
    pytest.param("rfverify.implementations.rff:RandomFourierFeatures", id="rff"),
]


def _run(target: str, isolate: bool) -> tuple[float, float, dict]:
    """Wall seconds, CPU seconds (harness + children: less sensitive to the machine's load), the report."""
    config = FeatureMapConfig(target, kernel="rbf", kernel_params={"gamma": 0.5}, profile="default")
    c0, t0 = os.times(), time.perf_counter()
    report = run(config, isolate=isolate)
    wall, c1 = time.perf_counter() - t0, os.times()
    cpu = (c1.user + c1.system + c1.children_user + c1.children_system
           - c0.user - c0.system - c0.children_user - c0.children_system)
    return wall, cpu, report.to_dict()


@pytest.mark.benchmark
@pytest.mark.parametrize("target", TARGETS)
def test_bench_supervision_overhead(benchmark, target):
    rounds = int(os.environ.get("RFVERIFY_BENCH_ROUNDS", "5"))
    times: dict[bool, list[float]] = {False: [], True: []}
    cpus: dict[bool, list[float]] = {False: [], True: []}
    docs = {}

    def measure():
        for r in range(rounds):
            for isolate in ((False, True) if r % 2 == 0 else (True, False)):
                seconds, cpu, doc = _run(target, isolate)
                times[isolate].append(seconds)
                cpus[isolate].append(cpu)
                docs.setdefault(isolate, doc)
                assert doc == docs[isolate], "a verdict changed between rounds"

    benchmark.pedantic(measure, rounds=1, iterations=1)
    before, after = statistics.median(times[False]), statistics.median(times[True])
    cpu_before, cpu_after = statistics.median(cpus[False]), statistics.median(cpus[True])
    benchmark.extra_info.update(in_process_median_s=before, supervised_median_s=after, ratio=after / before,
                                in_process_s=times[False], supervised_s=times[True],
                                cpu_in_process_median_s=cpu_before, cpu_supervised_median_s=cpu_after,
                                cpu_ratio=cpu_after / cpu_before, load_average=list(os.getloadavg()))
    print(f"\n{target}: wall in-process median {before:.2f} s, supervised {after:.2f} s, ratio {after / before:.3f}; "
          f"CPU {cpu_before:.2f} s vs {cpu_after:.2f} s, ratio {cpu_after / cpu_before:.3f} "
          f"(load average {os.getloadavg()[0]:.1f}; all: {times})")
    assert docs[True] == docs[False]  # identical verdicts, statistics and messages

"""Issue-20 speed targets as a benchmark (never a timed assertion): the same reduced calibration with
``--jobs 2``, a 2-worker and a 1-worker Dask ``LocalCluster``, measured back to back in one run.

Targets: Dask local:2 within 15% of ``--jobs 2`` (wall, cluster start-up included); local:2 about
twice as fast as local:1 on 2 free cores.  The ratios land in the benchmark's ``extra_info`` and are
printed; machine load (``os.getloadavg``) is recorded with them.  Run::

    python -m pytest -m benchmark -p no:xdist tests/benchmarks/test_bench_executors.py -s
"""

from __future__ import annotations

import os
import time

import pytest

pytest.importorskip("distributed")

from rfverify import cli  # noqa: E402

#: The reduced calibration: the orthogonal kind (references, bugs and equivalent mutants), quick profile.
REDUCED = ["calibrate", "--kind", "orthogonal", "--mutants", "tests.mutants", "--profile", "quick",
           "--fa-seeds", "20", "--power-seeds", "20", "--scan-seeds", "1", "--equivalent-seeds", "10"]
#: Run in this order (A B C B A): a load that drifts linearly during the run biases no mean.
ORDER = (("--jobs 2", ["--jobs", "2"]), ("dask local:2", ["--scheduler", "local:2"]),
         ("dask local:1", ["--scheduler", "local:1"]), ("dask local:2", ["--scheduler", "local:2"]),
         ("--jobs 2", ["--jobs", "2"]))


def measure(out: str) -> dict[str, float]:
    """Mean wall seconds of the reduced calibration per executor (each run includes its own start-up)."""
    walls: dict[str, list[float]] = {}
    # untimed warm-up in this process (imports, the mutant library, the report templates), so the first
    # timed run does not pay for what every later one finds loaded
    cli.main(["calibrate", "--reference", "haar-qr", "--no-references", "--profile", "quick", "--fa-seeds", "1",
              "--power-seeds", "1", "--out", os.path.join(out, "warm-up"), "--mutants", "tests.mutants",
              "--mutant", "so-claimed-as-o"])
    for i, (name, where) in enumerate(ORDER):
        t0 = time.perf_counter()
        code = cli.main([*REDUCED, "--out", os.path.join(out, f"{i}-{name.replace(' ', '_')}"), *where])
        walls.setdefault(name, []).append(time.perf_counter() - t0)
        assert code in (0, 1), f"calibrate {where} exited {code}"
    print({k: [round(x, 1) for x in v] for k, v in walls.items()})
    return {k: sum(v) / len(v) for k, v in walls.items()}


@pytest.mark.benchmark
def test_bench_dask_against_jobs(benchmark, tmp_path, capsys):
    load0 = os.getloadavg()
    walls = benchmark.pedantic(measure, args=(str(tmp_path),), rounds=1, iterations=1)
    info = {f"wall {k}": round(v, 1) for k, v in walls.items()}
    info["dask local:2 / --jobs 2"] = round(walls["dask local:2"] / walls["--jobs 2"], 3)
    info["speed-up local:1 -> local:2"] = round(walls["dask local:1"] / walls["dask local:2"], 3)
    info["load average before/after"] = [round(load0[0], 1), round(os.getloadavg()[0], 1)]
    info["cpus"] = os.cpu_count()
    benchmark.extra_info.update(info)
    with capsys.disabled():
        print("\n" + "\n".join(f"{k}: {v}" for k, v in info.items()))

"""Micro-benchmarks of the structured transforms, all measured in the same run.

``run_structured_benchmarks(quick=False)`` returns one dict per measurement:

the side-by-side comparison rows of :mod:`rfverify.studies.bench_compare` (with a
``section``; printed as their own tables) and the latency rows:
``name, d, dtype, n, seconds, gops, baseline, ratio`` where ``gops`` is
giga butterfly-ops per second (``n · d · log2 d / seconds / 1e9``),
``baseline`` names the row it is compared with and ``ratio`` is
``baseline_seconds / seconds`` (> 1: faster than the baseline).

Timing: ``time.perf_counter``, one warm-up call (also triggers numba
compilation), then the median of ``repeats`` calls.  All variants of one
``(d, dtype)`` are measured back to back on the same input so ratios are
like for like.  Results depend on machine load: on a shared machine report
the numbers as measured, never tune to them.

Extension point: other modules (SORF / Fastfood feature maps) add
benchmarks with :func:`register_benchmark`; each registered function takes
``quick: bool`` and returns a list of rows in the same format.
"""

from __future__ import annotations

import math
import statistics
import time
from typing import Callable

import numpy as np
from numpy.typing import DTypeLike

from rfverify.results import JSONValue
from rfverify.studies.bench_compare import naive_fwht  # the baseline (re-exported)

__all__ = [
    "run_structured_benchmarks",
    "format_table",
    "register_benchmark",
    "time_call",
    "naive_fwht",
]

_EXTRA_BENCHMARKS: dict[str, Callable[[bool], list[dict]]] = {}
#: The benchmark groups of rfverify's own studies, run by every ``rfverify bench`` after the built-in ones
#: (name -> "module:function(quick) -> rows"; imported when run, never registered by an import side effect).
BENCHMARK_GROUPS: dict[str, str] = {"zoo-feature-maps": "rfverify.studies.scheme_study:throughput_rows",
                                    "transform-checks": "rfverify.studies.transform_check_bench:exactness_rows"}


def register_benchmark(name: str, fn: Callable[[bool], list[dict]]) -> None:
    """Add a benchmark group run after the built-in ones (e.g. SORF feature maps)."""
    _EXTRA_BENCHMARKS[name] = fn


def time_call(fn: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``fn()`` over ``repeats`` calls after one warm-up call."""
    fn()
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def _row(name: str, d: int, dtype: DTypeLike, n: int, seconds: float, ops: float,
         baseline: str | None = None, base_seconds: float | None = None, **extra: JSONValue) -> dict:
    return {
        "name": name,
        "d": d,
        "dtype": np.dtype(dtype).name,
        "n": n,
        "seconds": seconds,
        "gops": ops / seconds / 1e9 if ops else float("nan"),
        "baseline": baseline,
        "ratio": (base_seconds / seconds) if base_seconds else float("nan"),
        **extra,
    }


def _latency_rows(quick: bool) -> list[dict]:
    from rfverify.implementations.structured import fwht, numba_available

    backends = ["numpy"] + (["numba"] if numba_available() else [])
    rows = []
    rng = np.random.default_rng(1)
    for d in (1024, 16384):
        x = rng.standard_normal(d)
        ops = d * math.log2(d)
        base = time_call(lambda: naive_fwht(x), 20 if quick else 100)
        rows.append(_row("latency naive numpy stages", d, np.float64, 1, base, ops, "latency naive numpy stages", base))
        for be in backends:
            sec = time_call(lambda: fwht(x, backend=be), 50 if quick else 300)
            rows.append(_row(f"latency fwht {be}", d, np.float64, 1, sec, ops, "latency naive numpy stages", base))
    return rows


def run_structured_benchmarks(quick: bool = False, progress: Callable[[int, int, str, float], None] | None = None) -> list[dict]:
    """The side-by-side comparisons (FWHT, butterfly, feature maps; :mod:`rfverify.studies.bench_compare`) and latency.

    ``quick=True`` shrinks sizes and repeats (seconds instead of about a minute).
    Registered extra benchmark groups (:func:`register_benchmark`) run last.  ``progress(i, n, name, seconds)``
    is called after each group (never affects the timings it reports).
    """
    from rfverify.threads import one_blas_thread

    # single-threaded BLAS: like-for-like with the single-threaded kernels, and a multithreaded OpenBLAS on small
    # GEMMs stalls badly on a loaded machine
    with one_blas_thread():
        rows = _run_all(quick, progress)
    blas = "1"
    for r in rows:
        r.setdefault("blas_threads", blas)
    return rows


def _run_all(quick: bool, progress: Callable[[int, int, str, float], None] | None = None) -> list[dict]:
    import importlib

    from rfverify.studies.bench_compare import run_comparisons

    groups: list[tuple[str, Callable[[bool], list[dict]]]] = [("side-by-side comparisons", run_comparisons),
                                                             ("latency", _latency_rows)]
    for name, spec in BENCHMARK_GROUPS.items():
        mod, fn = spec.split(":")
        groups.append((name, getattr(importlib.import_module(mod), fn)))
    groups += list(_EXTRA_BENCHMARKS.items())
    rows: list[dict] = []
    for i, (name, run_group) in enumerate(groups, 1):
        t0 = time.perf_counter()
        rows.extend(run_group(quick))
        if progress is not None:
            progress(i, len(groups), name, time.perf_counter() - t0)
    return rows


def format_table(rows: list[dict]) -> str:
    """Plain-text tables: the side-by-side comparisons (:mod:`rfverify.studies.bench_compare`, rows with a
    ``section``), then the other rows: name, d, dtype, n, time, G butterfly-ops/s, ratio vs baseline."""
    from rfverify.studies.bench_compare import environment, format_comparisons

    compared = [r for r in rows if "section" in r]
    rows = [r for r in rows if "section" not in r]
    text = format_comparisons(compared, environment()) + "\n\n" if compared else ""
    return text + _format_plain(rows)


PLAIN_LEGEND = """\
Columns: d = transform size; n = rows in the batch; time = median wall time of one call on the batch
(ms = milliseconds, us = microseconds); G bf-op/s = n·d·log2(d) butterfly operations / time / 1e9 (billions
per second); x baseline = speed-up: time of the row named under 'baseline' / this row's time, both measured in this run
(> 1: faster than the baseline)."""


def _format_plain(rows: list[dict]) -> str:
    header = f"{'name':28} {'d':>6} {'dtype':>8} {'n':>6} {'time':>11} {'G bf-op/s':>10} {'x baseline':>10}  baseline"
    lines = [PLAIN_LEGEND, "", header, "-" * len(header)]
    for r in rows:
        sec = r["seconds"]
        tstr = f"{sec * 1e3:.3f} ms" if sec >= 1e-3 else f"{sec * 1e6:.2f} us"
        ratio = r.get("ratio", float("nan"))
        lines.append(
            f"{r['name']:28} {r['d']:>6} {r['dtype']:>8} {r['n']:>6} {tstr:>11} "
            f"{r['gops']:>10.2f} {ratio:>10.2f}  {r.get('baseline') or ''}"
        )
    return "\n".join(lines)

"""Threaded and out-of-place FWHT paths: same bits as the textbook stage loop, every row once.

The oracle for exactness is :func:`rfverify.studies.bench.naive_fwht` (the radix-2 stage loop):
the numba kernels perform the same additions in the same order, so any difference is a bug.
:func:`rows_covered_once` is the oracle for the work sharing; ``test_coverage_oracle_*``
show that it fails on planted bugs (a dropped chunk, an overlapping chunk).
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from rfverify.studies.bench import naive_fwht
from rfverify.errors import UsageError
from rfverify.implementations import structured as S
from rfverify.implementations.structured import Butterfly, fwht, fwht_default_threads, fwht_threads

pytestmark = pytest.mark.skipif(not S.numba_available(), reason="numba not installed")
DTYPES = [np.float32, np.float64]


def rows_covered_once(calls: list[tuple[int, int]], n: int) -> str | None:
    """``None`` if the ranges ``[lo, hi)`` cover ``0..n-1`` exactly once, else what is wrong."""
    hits = np.zeros(n, dtype=int)
    for lo, hi in calls:
        hits[lo:hi] += 1
    if np.all(hits == 1):
        return None
    bad = int(np.flatnonzero(hits != 1)[0])
    return f"row {bad} transformed {hits[bad]} times, but should be once ({len(calls)} chunks, n={n})"


def _recorded(run, n, threads):
    calls, lock = [], threading.Lock()

    def fn(lo, hi):
        with lock:
            calls.append((lo, hi))

    used = run(fn, n, 1 << 12, threads)
    return calls, used


@pytest.mark.parametrize("n", [1, 2, 3, 7, 64, 1000])
@pytest.mark.parametrize("threads", [1, 2, 3, 8])
def test_run_rows_covers_every_row_once(n, threads):
    from rfverify.implementations._fwht_numba import run_rows

    calls, used = _recorded(run_rows, n, threads)
    msg = rows_covered_once(calls, n)
    assert msg is None, msg
    assert used == min(threads, n), f"used {used} threads, but should be min(threads, n) = {min(threads, n)}"


def _broken_drop_last(fn, n, d, threads):  # planted bug: the last chunk is never run
    k = max(1, min(threads, n))
    bounds = [n * i // (4 * k) for i in range(4 * k + 1)]
    for lo, hi in zip(bounds[:-2], bounds[1:-1]):
        fn(lo, hi)
    return k


def _broken_overlap(fn, n, d, threads):  # planted bug: chunks share their boundary row
    k = max(1, min(threads, n))
    bounds = [n * i // (4 * k) for i in range(4 * k + 1)]
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        fn(max(0, lo - 1), hi)
    return k


@pytest.mark.parametrize("broken", [_broken_drop_last, _broken_overlap])
def test_coverage_oracle_detects_planted_bugs(broken):
    calls, _ = _recorded(broken, 64, 2)
    assert rows_covered_once(calls, 64) is not None, f"{broken.__name__} was not detected"


@pytest.mark.parametrize("dtype", DTYPES)
def test_threaded_and_out_of_place_bits_equal_stage_loop_on_many_rows(dtype):
    """A batch large enough for the default (all cores) and for several chunks per thread."""
    rng = np.random.default_rng(5)
    for d in (2, 64, 512, 4096):
        X = rng.standard_normal(((1 << 17) // d + 3, d)).astype(dtype)  # an odd row count
        ref = naive_fwht(X)
        assert np.array_equal(fwht(X), ref), f"default threads, d={d}"
        assert np.array_equal(fwht(X, threads=0), ref), f"all cores, d={d}"
        assert np.array_equal(fwht(X, threads=2, normalized=True), ref * dtype(1 / np.sqrt(d))), f"normalized d={d}"
        out = np.full_like(X, np.nan)
        assert fwht(X, out=out, threads=2) is out and np.array_equal(out, ref), f"out= d={d}"
        v = X[::2]  # non-contiguous rows: the copy path
        assert np.array_equal(fwht(v, threads=2), naive_fwht(np.ascontiguousarray(v))), f"strided d={d}"


def test_out_of_place_never_touches_the_input_and_handles_aliasing():
    rng = np.random.default_rng(6)
    X = rng.standard_normal((300, 256))
    X0 = X.copy()
    Y = fwht(X, threads=2)
    assert np.array_equal(X, X0), "input mutated although inplace=False"
    assert np.array_equal(Y, naive_fwht(X0))
    res = fwht(X, out=X, threads=2)  # out is the input: in place
    assert res is X and np.array_equal(X, naive_fwht(X0))


def test_butterfly_threads_do_not_change_bits():
    bf = Butterfly(1024, rng=3)
    X = np.random.default_rng(7).standard_normal((300, 1024))
    a = bf.apply(X, backend="numba", threads=1)
    for t in (2, 3):
        assert np.array_equal(bf.apply(X, backend="numba", threads=t), a), f"threads={t}"


def test_thread_count_is_reported_and_set():
    from rfverify.implementations._fwht_numba import MIN_PARALLEL_ELEMS, available_cores

    big = (MIN_PARALLEL_ELEMS // 64, 64)
    assert fwht_threads(big) == 1, "one thread unless asked (the harness uses cores with processes)"
    assert fwht_threads(big, threads=0) == min(available_cores(), big[0])
    assert fwht_threads(big, threads=3) == 3
    assert fwht_threads((2, 1 << 20), threads=8) == 2, "never more threads than rows"
    assert fwht_threads(big, threads=2, backend="numpy") == 1
    with fwht_default_threads(2):
        assert fwht_threads(big) == 2
        assert fwht_threads((2, 64)) == 1, "a small batch should run on the calling thread"
        with fwht_default_threads(0):
            assert fwht_threads(big) == min(available_cores(), big[0])
    assert fwht_threads(big) == 1, "the default leaked out of its block"


@pytest.mark.parametrize("bad", [-1, 1.5, "2", True])
def test_bad_thread_counts_are_usage_errors(bad):
    with pytest.raises(UsageError, match="threads=.*positive integer"):
        fwht(np.ones((2, 4)), threads=bad)
    with pytest.raises(UsageError, match="threads=.*positive integer"):
        Butterfly(4, rng=0).apply(np.ones((2, 4)), threads=bad)
    with pytest.raises(UsageError, match="threads=.*positive integer"):
        fwht_default_threads(bad)


def test_forked_child_gets_its_own_pool():
    """A child forked after the parent used threads transforms correctly (no inherited, dead pool)."""
    import multiprocessing as mp

    if "fork" not in mp.get_all_start_methods():
        pytest.skip(reason="no fork on this platform")
    X = np.random.default_rng(8).standard_normal((4096, 64))
    fwht(X, threads=2)  # parent pool started
    with mp.get_context("fork").Pool(1) as pool:
        ok = pool.apply(_child_check, (X,))
    assert ok, "the forked child computed a different result"


def _child_check(X):
    return bool(np.array_equal(fwht(X, threads=2), naive_fwht(X)))


def test_pass_plan_covers_every_stage_once():
    """Every stage of d = 2^L in exactly one pass, passes of 1-4 cross-register stages, no lone radix-2 last."""
    from rfverify.implementations._fwht_numba import MAX_VECTORS, pass_plan

    for lanes in (8, 16):
        for L in range(0, 21):
            block, passes = pass_plan(L, lanes)
            if block == 0:
                assert L < lanes.bit_length(), f"L={L}: rows of two vectors or more should use the SIMD block"
                continue
            assert block + sum(passes) == L, f"L={L}, lanes={lanes}: {block} + {passes} != {L}"
            assert block <= (lanes * MAX_VECTORS).bit_length() - 1
            assert all(1 <= p <= 4 for p in passes) and passes[-1:] != [1], f"L={L}: {passes}"

"""The numba backend of :mod:`rfverify.implementations.structured` (private): lazy kernels and threads.

Importing this module never imports numba: :func:`kernels` imports :mod:`._fwht_kernels` (the compiled
kernels, described there, all at module level so that numba's disk cache hits across processes) on
first use.  The pass plan and its constants live in :mod:`._fwht_plan` (re-exported here).
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import os
import threading
from functools import lru_cache
from typing import Any, Iterator


from rfverify.implementations._fwht_plan import GROUP_ELEMS, MAX_VECTORS, VECTOR_BYTES, pass_plan  # noqa: F401


@lru_cache(maxsize=1)
def kernels() -> Any:
    """The kernel namespace (``fwht_range``, ``fwht_range_scaled``, ``fwht_rows``, ``butterfly_range``,
    ``butterfly_rows``, ``fwht_prange``): :mod:`._fwht_kernels`, imported on first use; each kernel
    compiles on its first call with a new signature, or loads from numba's disk cache."""
    from rfverify.implementations import _fwht_kernels

    return _fwht_kernels


@lru_cache(maxsize=1)
def prange_kernel() -> Any:
    """``fwht_prange(S, D, chunks)``: the same rows split over numba's threading layer (``prange``).

    Kept for the benchmark only (``rfverify bench`` shows why it is not the default): its
    threading layer (OpenMP on this install) ends every call at a barrier that waits for
    every worker thread, so on a machine whose cores are busy a call can stall for a
    scheduler time slice; and GNU OpenMP is not fork-safe, while the calibration forks workers.
    """
    return kernels().fwht_prange


# --------------------------------------------------------------------------
# threads: dynamic work sharing over row chunks (the caller works too)
# --------------------------------------------------------------------------
#: A batch below this many elements runs on the calling thread (a hand-off costs ~10-50 us).
MIN_PARALLEL_ELEMS = 1 << 16
#: Chunks per thread: enough for dynamic balancing when a core is busy, few enough that the
#: per-chunk dispatch (~5 us) stays below 1% of a 2^22-element batch.
CHUNKS_PER_THREAD = 4

_POOL: dict[str, Any] = {}


def available_cores() -> int:
    """Cores this process may run on (``os.sched_getaffinity`` where it exists)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


_DEFAULT: contextvars.ContextVar[int] = contextvars.ContextVar("rfverify_fwht_default_threads", default=1)


@contextlib.contextmanager
def default_threads(k: int) -> Iterator[None]:
    """Within the block, calls with ``threads=None`` use ``k`` threads (0: every available core).

    For code that calls the transforms without a ``threads=`` argument (the SORF and Fastfood
    feature maps); a context variable, so it is local to the thread/task that sets it.
    """
    token = _DEFAULT.set(int(k))
    try:
        yield
    finally:
        _DEFAULT.reset(token)


def resolve_threads(threads: Any, n: int, d: int) -> int:
    """Threads a batch of ``n`` rows of length ``d`` runs on.

    ``threads=None``: the :func:`default_threads` in force (1 unless set), and 1 for batches
    below ``MIN_PARALLEL_ELEMS`` elements.  ``threads=k``: ``k`` (0: every available core).
    Never more than the rows.  Results never depend on it: rows are independent and each row
    is transformed by the same code on whichever thread takes it.

    Why one thread by default: the harness already uses every core with worker processes
    (``--jobs``), and on a machine whose cores are busy a second thread that is descheduled
    in the middle of its chunk makes the call wait for it (measured by ``rfverify bench``).
    """
    if threads is None:
        k = _DEFAULT.get() if n * d >= MIN_PARALLEL_ELEMS else 1
    else:
        k = int(threads)
    if k == 0:
        k = available_cores()
    return max(1, min(k, n))


def _pool(workers: int) -> Any:
    from concurrent.futures import ThreadPoolExecutor

    key = f"{os.getpid()}"  # a forked child starts its own pool (the parent's threads are not there)
    pool = _POOL.get(key)
    if pool is None or pool._max_workers < workers:
        for old in _POOL.values():
            old.shutdown(wait=False)
        _POOL.clear()
        pool = _POOL[key] = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="rfverify-fwht")
    return pool


def run_rows(fn: Any, n: int, d: int, threads: Any, *args: Any) -> int:
    """Call ``fn(*args, lo, hi)``-style row ranges covering ``0..n``; return the threads used.

    ``fn(lo, hi)`` must release the GIL (the numba kernels are ``nogil``).  Chunks are claimed
    from a shared counter by the caller and ``k - 1`` pool threads: the caller never waits for
    a thread that has not started (it then takes the chunks itself), only for chunks already
    claimed — unlike a barrier at the end of an OpenMP region.  A thread descheduled in the
    middle of its chunk still delays the call by the rest of that chunk.
    If the pool cannot start a thread (e.g. under an address-space limit) the caller does all.
    """
    k = resolve_threads(threads, n, d)
    if k <= 1:
        fn(0, n)
        return 1
    chunks = min(n, CHUNKS_PER_THREAD * k)
    bounds = [n * i // chunks for i in range(chunks + 1)]
    counter = itertools.count()
    cond = threading.Condition()
    done = 0
    errors: list[BaseException] = []

    def work() -> None:
        nonlocal done
        while True:
            i = next(counter)  # atomic under the GIL
            if i >= chunks:
                return
            try:
                fn(bounds[i], bounds[i + 1])
            except BaseException as exc:  # pragma: no cover - kernels do not raise
                errors.append(exc)
            with cond:
                done += 1
                if done == chunks:
                    cond.notify_all()

    try:
        pool = _pool(k - 1)
        for _ in range(k - 1):
            pool.submit(work)
    except RuntimeError:  # cannot start threads: the caller takes every chunk below
        pass
    work()
    with cond:
        cond.wait_for(lambda: done == chunks)
    if errors:  # pragma: no cover
        raise errors[-1]
    return k

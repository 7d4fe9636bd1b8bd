"""Side-by-side comparison of our structured transforms with third-party and dense baselines.

``run_comparisons(quick)`` returns one row per (section, implementation, dtype, d, threads);
``format_comparisons(rows)`` prints the tables with a legend that explains every column.

Sections
--------
* ``fwht``: ours (numba, in place; also ``out=`` and numba ``prange`` for reference) against
  fht-cpu (in place, OpenMP), FFHT (``ffht-unofficial``'s ``fht_``: in place, rows), dense
  BLAS ``X @ H`` and the naive numpy stage loop, at 1 and 2 threads, float32 and float64,
  ``d = 2^6 ... 2^14``, ``n · d = 2^22`` elements per batch (``--quick``: 2^16, two sizes).
* ``butterfly``: :class:`~rfverify.implementations.structured.Butterfly` (numba, numpy
  backend) against dense BLAS ``X @ B^T``.
* ``feature map``: SORF (3 HD blocks) and Fastfood feature maps end to end against dense
  random Fourier features (``[cos XW, sin XW]``, BLAS), rows per second, float64.

How it is timed
---------------
All implementations of one group (section, dtype, d, threads) run round-robin on the same
input: one warm-up call each, then ``repeats`` rounds in which every implementation is called
once (its input restored by an untimed copy first, so in-place calls never compound).  A time
is the median over the rounds; a ratio is the median over the rounds of the two calls' ratio in
that round (a paired design: on a shared machine the load changes between rounds, much less
between two calls of one round).
Two *memory passes* are timed in the same rounds, after the same restore as the in-place rows:
a numpy ``copyto`` of the batch into a second array (``×mem`` divides by it: one read and one
write of every element, the physical minimum for a transform) and ``X *= 1`` in place (shown
for reference: it profits from the caches the restore warmed as much as an in-place transform).

Threads: ours via ``threads=k`` (feature maps: :func:`fwht_default_threads`); fht-cpu via its
``num_threads=k`` argument (its OpenMP pool; ``OMP_NUM_THREADS`` is its default); FFHT via
``fht_(X, nthreads=k)``; BLAS via ``threadpoolctl.threadpool_limits(k, user_api="blas")``;
numpy's stage loop has no threads (its 1-thread time is the baseline at 2 threads too).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import math
import os
import platform
import statistics
import time
from functools import partial
from types import ModuleType
from typing import TYPE_CHECKING, Callable, ContextManager, TypeVar, TypedDict

import numpy as np
from numpy.typing import DTypeLike

from rfverify.results import JSONValue

if TYPE_CHECKING:
    from rfverify.implementations._base import FeatureMap

T = TypeVar("T")

__all__ = ["run_comparisons", "format_comparisons", "summarize", "environment", "BASELINES", "LEGEND"]

#: Baselines every row is compared with (column "÷ name": this row's time / the baseline's).
BASELINES = ("fht-cpu", "FFHT", "dense BLAS", "naive numpy")
INPLACE_PASS = "memory pass (in place, X *= 1)"
INSTALL = {"fht-cpu": "pip install fht-cpu  (or pip install 'rfverify[bench]')",
           "FFHT": "pip install ffht-unofficial  (builds from source: pip install numpy pybind11 wheel, then "
                   "pip install --no-build-isolation ffht-unofficial; needs a C compiler)"}

LEGEND = """\
Columns: thr = threads used; time = median wall time of one call on the whole batch;
G bf-op/s = n·d·log2(d) butterfly operations (one addition or subtraction per entry per stage) / time / 1e9;
GB/s = 2·n·d·itemsize / time (one read and one write of the batch, whatever the algorithm really moves);
×mem = time / time of one memory pass: a numpy copy of the batch into another array, its source restored
like the in-place rows' input (one read and one write of every element: the physical limit; the in-place
X *= 1 row shows a pass that never leaves the caches the restore warmed); ÷X = time / time of baseline X in the same group
(< 1: faster than X); ratios are medians of per-round ratios (both timed in the same round, under the same
load; a single-threaded baseline's 1-thread median serves at 2 threads); rows/s = input rows turned into features per second.  A baseline that is not
installed is a 'skipped' row saying how to install it."""


def naive_fwht(X: np.ndarray) -> np.ndarray:
    """Baseline: textbook radix-2 stage-by-stage FWHT in numpy (one pass per stage)."""
    Y = np.array(X, dtype=np.result_type(X.dtype, np.float32), copy=True)
    d = Y.shape[-1]
    h = 1
    while h < d:
        v = Y.reshape(-1, d // (2 * h), 2, h)
        a = v[:, :, 0, :].copy()
        b = v[:, :, 1, :]
        v[:, :, 0, :] += b
        np.subtract(a, b, out=b)
        h *= 2
    return Y


def environment() -> dict[str, object]:
    """Machine, load, date and versions printed above the tables."""
    model = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:  # pragma: no cover
        pass
    try:
        load = os.getloadavg()
    except OSError:  # pragma: no cover
        load = (float("nan"),) * 3
    from rfverify.implementations._fwht_numba import available_cores

    env = {"cpu": model, "cores": available_cores(), "load": tuple(round(x, 2) for x in load),
           "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "numpy": np.__version__}
    for mod, name in (("numba", "numba"), ("fht_cpu", "fht-cpu"), ("ffht", "FFHT")):
        try:
            m = __import__(mod)
            env[name] = getattr(m, "__version__", "installed")
        except Exception:
            env[name] = "not installed"
    return env


def _blas_limit(k: int) -> ContextManager[object]:
    from rfverify.threads import limit_threads

    return limit_threads(k, "blas")


def _import_fht_cpu() -> ModuleType | None:
    try:
        import fht_cpu
    except Exception:
        return None
    return fht_cpu


def _import_ffht() -> ModuleType | None:
    try:
        import ffht
    except Exception:
        return None
    return ffht


class _Samples(dict):
    """Wall times per implementation (one per round); ``.cpu``: the calling thread's CPU times."""

    cpu: dict[str, list[float]]


def _time_group(impls: dict[str, tuple[Callable[[], object], Callable[[], object] | None]], repeats: int) -> _Samples:
    """Round-robin times, one per round: ``impls[name] = (call, reset)``; ``reset`` runs untimed first.

    Besides wall time, the calling thread's CPU time (``time.thread_time``) of each call is kept:
    for a call that runs on the calling thread only, it excludes the time the thread spent
    descheduled by other processes, so 1-thread ratios by CPU time stay meaningful under load.
    """
    for call, reset in impls.values():  # warm-up (and numba compilation)
        if reset:
            reset()
        call()
    times = _Samples({k: [] for k in impls})
    times.cpu = {k: [] for k in impls}
    for _ in range(repeats):
        for name, (call, reset) in impls.items():
            if reset:
                reset()
            c0 = time.thread_time()
            t0 = time.perf_counter()
            call()
            t1 = time.perf_counter()
            times.cpu[name].append(max(time.thread_time() - c0, 1e-9))
            times[name].append(t1 - t0)
    return times


def _ratio(mine: list[float], other: list[float] | float | None) -> float:
    """``mine ÷ other``: the median of per-round ratios when ``other`` was timed in the same rounds
    (paired: both calls of a round ran under the same load), else ratio of medians."""
    if isinstance(other, list) and len(other) == len(mine):
        return statistics.median(a / b for a, b in zip(mine, other))
    if isinstance(other, list):
        other = statistics.median(other)
    return statistics.median(mine) / other if other else float("nan")


def _rows(section: str, samples: dict[str, list[float]], *, dtype: DTypeLike, d: int, n: int, threads: int,
          ops: float, baselines: dict[str, list[float] | float | None], mem: list[float] | None,
          used: dict[str, int] | None = None, mem_cpu: list[float] | None = None) -> list[dict]:
    nbytes = 2 * n * d * np.dtype(dtype).itemsize
    out = []
    cpu = getattr(samples, "cpu", {})
    for name, ts in samples.items():
        sec = statistics.median(ts)
        extra: dict[str, JSONValue] = {}
        if name in cpu and (used or {}).get(name, threads) == 1:  # runs on the calling thread only
            extra = {"cpu_seconds": statistics.median(cpu[name]),
                     "cpu_vs": {b: _ratio(cpu[name], cpu[b]) for b in baselines if b in cpu and b != name
                                and (used or {}).get(b, threads) == 1},
                     "cpu_mem_x": _ratio(cpu[name], mem_cpu) if mem_cpu else float("nan")}
        out.append({**extra,
            "section": section, "name": name, "dtype": np.dtype(dtype).name, "d": d, "n": n,
            "threads": (used or {}).get(name, threads), "seconds": sec, "status": "ok", "rounds": len(ts),
            "gops": ops / sec / 1e9 if ops else float("nan"), "gbs": nbytes / sec / 1e9,
            "mem_x": _ratio(ts, mem) if mem else float("nan"), "rows_per_s": n / sec,
            "vs": {b: _ratio(ts, t) for b, t in baselines.items() if t is not None and b != name},
        })
    return out


def _skip(section: str, name: str, reason: str, *, dtype: DTypeLike, d: int, n: int, threads: int) -> dict:
    return {"section": section, "name": name, "dtype": np.dtype(dtype).name, "d": d, "n": n, "threads": threads,
            "seconds": float("nan"), "status": f"skipped: {reason}", "gops": float("nan"), "gbs": float("nan"),
            "mem_x": float("nan"), "rows_per_s": float("nan"), "vs": {}}


@dataclasses.dataclass(frozen=True)
class Plan:
    """Sizes of one run: ``total = n · d`` elements per batch, ``dims``, ``repeats`` (median of),
    ``threads``, the largest ``d`` with a dense baseline, and the feature-map sizes."""

    total: int
    dims: tuple[int, ...]
    repeats: int
    threads: tuple[int, ...] = (1, 2)
    dense_max: int = 2048
    fm_total: int = 1 << 20
    fm_dims: tuple[int, ...] = (64, 256, 1024, 4096)
    fm_repeats: int = 5


PLANS = {
    "full": Plan(1 << 22, tuple(1 << k for k in range(6, 15)), 9),
    "quick": Plan(1 << 16, (64, 1024), 3, dense_max=1024, fm_total=1 << 14, fm_dims=(64, 256), fm_repeats=3),
}


def _plan(quick: bool) -> Plan:
    return PLANS["quick" if quick else "full"]


def _fwht_impls(X: np.ndarray, X0: np.ndarray, Y: np.ndarray, H: np.ndarray | None, k: int, dense_max: int,
                fc: ModuleType | None, ff: ModuleType | None, key: _RowKey, rows: list[dict]
                ) -> tuple[dict[str, tuple[Callable[[], object], Callable[[], object] | None]], dict[str, int]]:
    """The transforms timed at k threads (each with its reset, or None) and the threads each uses; the ones that
    cannot run here are appended to ``rows`` as skips, with the reason."""
    from rfverify.implementations._fwht_numba import prange_kernel
    from rfverify.implementations.structured import fwht, fwht_threads, numba_available

    d = X.shape[1]
    impls: dict[str, tuple[Callable[[], object], Callable[[], object] | None]] = {}
    reset = lambda: np.copyto(X, X0)  # noqa: E731
    impls["memory pass (numpy copy)"] = (lambda: np.copyto(Y, X), reset)
    impls[INPLACE_PASS] = (lambda: np.multiply(X, 1, out=X), reset)
    used = {"memory pass (numpy copy)": 1, INPLACE_PASS: 1}
    if numba_available():
        impls["ours (numba, in place)"] = (partial(fwht, X, inplace=True, threads=k), reset)
        impls["ours (numba, out=)"] = (partial(fwht, X0, out=Y, threads=k), None)
        used["ours (numba, in place)"] = used["ours (numba, out=)"] = fwht_threads(X.shape, k)
        if k > 1:
            try:
                pk = prange_kernel()
                impls["ours (numba prange, in place)"] = (partial(_prange, pk, X, k), reset)
            except Exception as exc:  # pragma: no cover - threading layer missing
                rows.append(_skip("fwht", "ours (numba prange, in place)",
                                  f"numba parallel layer unavailable ({type(exc).__name__})", **key))
    else:
        rows.append(_skip("fwht", "ours (numba, in place)", "numba not installed: pip install 'rfverify[fast]'", **key))
    impls["ours (numpy backend, in place)"] = (lambda: fwht(X, inplace=True, backend="numpy"), reset)
    used["ours (numpy backend, in place)"] = 1
    if fc is not None:
        impls["fht-cpu"] = (partial(fc.fht, X, num_threads=k), reset)
    else:
        rows.append(_skip("fwht", "fht-cpu", f"not installed: {INSTALL['fht-cpu']}", **key))
    if ff is not None:
        impls["FFHT"] = (partial(ff.fht_, X, nthreads=k), reset)
    else:
        rows.append(_skip("fwht", "FFHT", f"not installed: {INSTALL['FFHT']}", **key))
    if H is not None:
        impls["dense BLAS"] = (_limited(k, partial(np.matmul, X0, H, out=Y)), None)
    elif k == 1:
        rows.append(_skip("fwht", "dense BLAS", f"d={d} > {dense_max}: 2·n·d² flops, "
                          f"d/(2·log2 d) = {d / (2 * math.log2(d)):.0f}x the FWHT's adds", **key))
    if k == 1:
        impls["naive numpy"] = (lambda: naive_fwht(X0), None)
    return impls, used


def run_fwht_comparison(quick: bool = False) -> list[dict]:
    from scipy.linalg import hadamard

    p = _plan(quick)
    total, dims, repeats, thread_counts, dense_max = p.total, p.dims, p.repeats, p.threads, p.dense_max
    fc, ff = _import_fht_cpu(), _import_ffht()
    rows: list[dict] = []
    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64):
        for d in dims:
            n = total // d
            X0, X, Y = (_aligned((n, d), dtype) for _ in range(3))
            X0[...] = rng.standard_normal((n, d))
            X[...] = X0
            Y[...] = 0.0  # every buffer touched before timing: no first-touch page faults in any row
            H = hadamard(d).astype(dtype) if d <= dense_max else None
            one: dict[str, float] = {}
            for k in thread_counts:
                key: _RowKey = {"dtype": dtype, "d": d, "n": n, "threads": k}
                impls, used = _fwht_impls(X, X0, Y, H, k, dense_max, fc, ff, key, rows)
                times = _time_group(impls, repeats)
                if "naive numpy" in times:  # single-threaded: its 1-thread times are the baseline at k threads
                    one["naive numpy"] = statistics.median(times["naive numpy"])
                base = {b: times.get(b, one.get(b)) for b in BASELINES}
                used.update({"fht-cpu": k, "dense BLAS": k, "naive numpy": 1, "FFHT": k,
                             "ours (numba prange, in place)": k})
                mem, mem_cpu = times["memory pass (numpy copy)"], times.cpu["memory pass (numpy copy)"]
                rows += _rows("fwht", times, ops=n * d * math.log2(d), baselines=base, mem=mem, used=used,
                              mem_cpu=mem_cpu, **key)
            del H
    return rows


def _aligned(shape: tuple[int, int], dtype: DTypeLike) -> np.ndarray:
    """A 64-byte aligned array (FFHT needs 32-byte alignment; every implementation gets the same buffers)."""
    dt = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dt.itemsize
    raw = np.empty(nbytes + 64, dtype=np.uint8)
    off = (-raw.ctypes.data) % 64
    return raw[off:off + nbytes].view(dt).reshape(shape)


def _with(ctx: ContextManager[object], fn: Callable[[], T]) -> T:
    with ctx:
        return fn()


def _limited(k: int, fn: Callable[[], T]) -> Callable[[], T]:
    """``fn`` under a BLAS limit of ``k`` threads, entered at each call."""
    return lambda: _with(_blas_limit(k), fn)


class _RowKey(TypedDict):
    """The configuration of one timing row: the keywords of :func:`_rows` and :func:`_skip` it shares."""

    dtype: DTypeLike
    d: int
    n: int
    threads: int


def _prange(kernel: Callable[[np.ndarray, np.ndarray, int], object], X: np.ndarray, k: int) -> None:
    import numba

    old = numba.get_num_threads()
    numba.set_num_threads(k)
    try:
        kernel(X, X, 4 * k)
    finally:
        numba.set_num_threads(old)


def run_butterfly_comparison(quick: bool = False) -> list[dict]:
    from rfverify.implementations.structured import Butterfly, fwht_threads, numba_available

    p = _plan(quick)
    total, dims, repeats, thread_counts, dense_max = p.total, p.dims, max(1, min(p.repeats, 5)), p.threads, p.dense_max
    rows: list[dict] = []
    rng = np.random.default_rng(2)
    for dtype in (np.float32, np.float64):
        for d in dims:
            n = total // d
            X0 = rng.standard_normal((n, d)).astype(dtype)
            Y = np.empty_like(X0)
            bf = Butterfly(d, rng=3)
            Bt = np.ascontiguousarray(bf.matrix().T).astype(dtype) if d <= dense_max else None
            one: dict[str, float] = {}
            for k in thread_counts:
                key: _RowKey = {"dtype": dtype, "d": d, "n": n, "threads": k}
                impls: dict[str, tuple[Callable[[], object], Callable[[], object] | None]] = {
                    "memory pass (numpy copy)": (lambda: np.copyto(Y, X0), None)}
                used = {"memory pass (numpy copy)": 1, "ours (numpy backend)": 1, "dense BLAS": k}
                if numba_available():
                    impls["ours (numba)"] = (partial(bf.apply, X0, backend="numba", threads=k), None)
                    used["ours (numba)"] = fwht_threads(X0.shape, k)
                if k == 1:
                    impls["ours (numpy backend)"] = (lambda: _with(_blas_limit(1), lambda: bf.apply(X0, backend="numpy")), None)
                if Bt is not None:
                    impls["dense BLAS"] = (_limited(k, partial(np.matmul, X0, Bt, out=Y)), None)
                elif k == 1:
                    rows.append(_skip("butterfly", "dense BLAS", f"d={d} > {dense_max} (2·n·d² flops)", **key))
                times = _time_group(impls, repeats)
                if "ours (numpy backend)" in times:
                    one["ours (numpy backend)"] = statistics.median(times["ours (numpy backend)"])
                base = {"dense BLAS": times.get("dense BLAS"), "numpy backend": one.get("ours (numpy backend)")}
                rows += _rows("butterfly", times, ops=n * d * math.log2(d), baselines=base,
                              mem=times["memory pass (numpy copy)"], used=used, **key)
    return rows


def run_feature_map_comparison(quick: bool = False) -> list[dict]:
    from rfverify.implementations.rff import RandomFourierFeaturesCosSin
    from rfverify.implementations.structured import fwht_default_threads
    from rfverify.implementations.structured_features import SORF3, FastfoodFeatures

    p = _plan(quick)
    total, dims, repeats = p.fm_total, p.fm_dims, p.fm_repeats
    rows: list[dict] = []
    rng = np.random.default_rng(4)
    for d in dims:
        n = total // d
        X = rng.standard_normal((n, d))
        maps = {"SORF-3 (ours)": SORF3(n_components=d, random_state=1, gamma=0.5 / d).fit(X[:2]),
                "Fastfood (ours)": FastfoodFeatures(n_components=d, random_state=1, gamma=0.5 / d).fit(X[:2]),
                "dense RFF (BLAS)": RandomFourierFeaturesCosSin(n_components=d, random_state=1, gamma=0.5 / d).fit(X[:2])}
        for k in p.threads:
            def call(m: FeatureMap, k: int = k) -> Callable[[], np.ndarray]:
                return lambda: _with(fwht_default_threads(k), lambda: _with(_blas_limit(k), lambda: m.transform(X)))
            times = _time_group({name: (call(m), None) for name, m in maps.items()}, repeats)
            rows += _rows("feature map", times, dtype=np.float64, d=d, n=n, threads=k, ops=0,
                          baselines={"dense RFF": times["dense RFF (BLAS)"]}, mem=None)
    return rows


def run_comparisons(quick: bool = False) -> list[dict]:
    """Every section; ``quick`` shrinks sizes and repeats (seconds, for CI)."""
    return run_fwht_comparison(quick) + run_butterfly_comparison(quick) + run_feature_map_comparison(quick)


def _fmt_time(sec: float) -> str:
    if not math.isfinite(sec):
        return "-"
    return f"{sec * 1e3:.3f} ms" if sec >= 1e-3 else f"{sec * 1e6:.1f} us"


def _f(x: object, spec: str) -> str:
    return format(x, spec) if isinstance(x, (int, float)) and math.isfinite(x) else "-"


def format_comparisons(rows: list[dict], env: dict[str, JSONValue] | None = None) -> str:
    """The tables (one per section), each group's rows together, with the legend and the machine."""
    lines = []
    if env:
        lines.append(f"machine: {env['cpu']}, {env['cores']} cores; load (1/5/15 min) {env['load']}; {env['date']}")
        lines.append("versions: " + ", ".join(f"{k} {env[k]}" for k in ("numpy", "numba", "fht-cpu", "FFHT") if k in env))
    lines.append(LEGEND)
    for section in ("fwht", "butterfly", "feature map"):
        sec_rows = [r for r in rows if r.get("section") == section]
        if not sec_rows:
            continue
        bases = list(BASELINES) if section == "fwht" else list(dict.fromkeys(b for r in sec_rows for b in r["vs"]))
        rate = "rows/s" if section == "feature map" else "G bf-op/s"
        head = (f"{'implementation':32} {'thr':>3} {'dtype':>7} {'d':>6} {'n':>7} {'time':>11} {rate:>10} "
                f"{'GB/s':>6} {'×mem':>5}" + "".join(f" {'÷' + b:>12}" for b in bases))
        lines += ["", f"== {section} ==", head, "-" * len(head)]
        for r in sec_rows:
            if r["status"] != "ok":
                lines.append(f"{r['name']:32} {r['threads']:>3} {r['dtype']:>7} {r['d']:>6} {r['n']:>7}  {r['status']}")
                continue
            rate_v = _f(r["rows_per_s"], ".3g") if section == "feature map" else _f(r["gops"], ".2f")
            gbs = "-" if section == "feature map" else _f(r["gbs"], ".1f")
            lines.append(f"{r['name']:32} {r['threads']:>3} {r['dtype']:>7} {r['d']:>6} {r['n']:>7} "
                         f"{_fmt_time(r['seconds']):>11} {rate_v:>10} {gbs:>6} {_f(r['mem_x'], '.2f'):>5}"
                         + "".join(f" {_f(r['vs'].get(b), '.2f'):>12}" for b in bases))
    if any(r.get("section") == "fwht" for r in rows):
        lines += ["", "== targets ==", *summarize(rows)]
    return "\n".join(lines)


def summarize(rows: list[dict]) -> list[str]:
    """Worst cases against the targets: time ÷ fht-cpu at d = 2^8 ... 2^14, ×mem at d >= 2^10."""
    out = []
    ours = [r for r in rows if r.get("section") == "fwht" and r["name"] == "ours (numba, in place)" and r["status"] == "ok"]
    for dtype in sorted({r["dtype"] for r in ours}):
        for k in sorted({r["threads"] for r in ours}):
            sel = [r for r in ours if r["dtype"] == dtype and r["threads"] == k]
            fht = [(r["vs"]["fht-cpu"], r["d"]) for r in sel if r["d"] >= 256 and "fht-cpu" in r["vs"]]
            mem = [(r["mem_x"], r["d"]) for r in sel if r["d"] >= 1024 and math.isfinite(r["mem_x"])]
            parts = []
            if fht:
                w, wd = max(fht)
                parts.append(f"time ÷ fht-cpu <= {w:.2f} (worst at d={wd}; target <= 1.0: "
                             f"{'met' if w <= 1.0 else 'NOT met'})")
            if mem:
                w, wd = max(mem)
                parts.append(f"×mem <= {w:.2f} at d >= 1024 (worst at d={wd}; target <= 1.5: "
                             f"{'met' if w <= 1.5 else 'NOT met'})")
            cfht = [(r["cpu_vs"]["fht-cpu"], r["d"]) for r in sel if r["d"] >= 256 and "fht-cpu" in r.get("cpu_vs", {})]
            cmem = [(r["cpu_mem_x"], r["d"]) for r in sel if r["d"] >= 1024 and math.isfinite(r.get("cpu_mem_x", math.nan))]
            if cfht and cmem:
                parts.append(f"by CPU time of the calling thread (insensitive to descheduling): ÷ fht-cpu <= "
                             f"{max(cfht)[0]:.2f} (d={max(cfht)[1]}), ×mem <= {max(cmem)[0]:.2f} (d={max(cmem)[1]})")
            if not fht:
                parts.append("time ÷ fht-cpu: no measurement at d = 2^8 ... 2^14 in this run")
            if not mem:
                parts.append("×mem: no measurement at d >= 2^10 in this run")
            out.append(f"{dtype}, {k} thread(s): " + "; ".join(parts))
    return out

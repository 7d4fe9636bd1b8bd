"""Run a batch of independent work units: in-process, in a local process pool, or on a Dask cluster.

Every batch rfverify scales out (calibration units, zoo entries, a list of implementations from
``rfverify check`` or :func:`rfverify.batch.verify_many`) is a list of :class:`Task`: a stable ``key``,
the unit's function named ``"module:function"`` and picklable arguments.  A plug-in travels by its
``MODULE:ATTR`` name and is imported where the unit runs, never pickled.  Each unit's randomness
comes from its own arguments (seeds spawned from stable keys, :mod:`rfverify.seeding`), so the
results — returned in submission order, whatever order the units finished in — are the same for
every executor:

* :class:`InProcess` — one after the other, in this process;
* :class:`ProcessPool` ``(jobs)`` — a local pool of worker processes (``--jobs N``);
* :class:`DaskExecutor` ``(address)`` — a Dask cluster (``pip install 'rfverify[dask]'``):
  ``"tcp://HOST:PORT"`` connects to a running scheduler, ``"local:N"`` starts a ``LocalCluster``
  of N single-threaded worker processes, None reads ``DASK_SCHEDULER_ADDRESS``.  Before any unit
  runs, every worker is checked (same rfverify version as the client, every plug-in module
  importable); a mismatch is a :class:`~rfverify.errors.UsageError` naming the worker, and so is a
  worker joining later that fails the same check when it gets a unit.

:func:`run_task` is the one function that runs a unit (on the caller, in a pool worker or on a Dask
worker): it imports the unit's function, runs it with numerical libraries single-threaded and turns
an exception into an :class:`Outcome` with ``error`` set, so a broken unit never takes the batch
down.  A supervised child process (the plug-in isolation of issue 16) would wrap exactly this
function.  A worker process that dies mid-unit costs that unit one retry on another worker; if it
dies again the unit's outcome is an ``error`` naming the worker — never a silent gap.

Layering: this module imports only the core (errors, the package version); whoever assembles the
outcomes (calibration, the zoo report, the CLI) writes the results, on the client.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from .errors import UsageError

__all__ = ["Task", "Outcome", "Executor", "InProcess", "ProcessPool", "DaskExecutor", "make_executor",
           "run_task", "stderr_progress", "start_local_cluster", "ENV_SCHEDULER"]

#: The environment variable Dask itself reads for a scheduler's address.
ENV_SCHEDULER = "DASK_SCHEDULER_ADDRESS"

#: ``progress(done, total, elapsed_seconds)``, called after each unit finishes.
ProgressFn = Callable[[int, int, float], None]


@dataclass(frozen=True)
class Task:
    """One independent, picklable unit of work.

    ``key``: stable and unique within the batch (it names the Dask task, so keep it readable:
    ``"calibrate-reference-rff-phase-quick-1000000"``); ``fn``: ``"module:function"``, imported
    where the unit runs; ``args``: picklable, and together with ``fn`` all the unit depends on;
    ``requires``: modules (``pkg.mod``, or ``MODULE:ATTR`` whose module is meant) or ``.py`` files
    the unit imports — every Dask worker is checked for them before the batch starts.
    """

    key: str
    fn: str
    args: tuple[Any, ...] = ()
    requires: tuple[str, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """What one unit produced: ``value``, or ``error`` (a one-line reason) when it produced none."""

    key: str
    value: Any = None
    error: str | None = None
    worker: str = ""
    #: True when the worker itself is unfit (another rfverify version, a plug-in it cannot import):
    #: the batch stops with a UsageError instead of recording a verdict.
    unfit: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None


# ---------------------------------------------------------------------------------------------
# The unit runner (runs wherever the unit runs)
# ---------------------------------------------------------------------------------------------
def _resolve(spec: str) -> Callable[..., Any]:
    mod, _, attr = spec.partition(":")
    obj: Any = importlib.import_module(mod)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def _worker_name() -> str:
    try:
        from distributed import get_worker

        return get_worker().address
    except Exception:  # not on a Dask worker
        return f"pid {os.getpid()}"


def run_task(task: Task, expect_version: str | None = None) -> Outcome:
    """Run one unit; never raises.  ``expect_version``: the client's rfverify version (Dask workers).

    Numerical libraries run single-threaded here, whatever the executor, so no result can depend
    on how many BLAS threads a process happened to have.
    """
    worker = _worker_name()
    if expect_version is not None:
        problem = _unfit(task.requires, expect_version)
        if problem:
            return Outcome(task.key, error=f"worker {worker}: {problem}", worker=worker, unfit=True)
    try:
        fn = _resolve(task.fn)
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1):
            value = fn(*task.args)
        return Outcome(task.key, value=value, worker=worker)
    except Exception as exc:  # a broken unit is an outcome, never a crash of the batch
        last = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
        where = f" (at {last[0].filename}:{last[0].lineno})" if last else ""
        return Outcome(task.key, error=f"{type(exc).__name__}: {exc}{where}"[:600], worker=worker)


_CHECKED: set[tuple[str, ...]] = set()


def _probe(requires: Sequence[str]) -> dict[str, Any]:
    """What a worker has: its rfverify version and which required modules or files it lacks."""
    from . import __version__

    missing: dict[str, str] = {}
    for req in requires:
        if req.endswith(".py"):
            if not os.path.isfile(req):
                missing[req] = f"no file {req} (cwd {os.getcwd()})"
            continue
        mod = req.partition(":")[0]
        try:
            importlib.import_module(mod)
        except Exception as exc:
            missing[req] = f"{type(exc).__name__}: {exc}"
    return {"version": __version__, "python": sys.version.split()[0], "missing": missing}


def _unfit(requires: Sequence[str], expect_version: str) -> str:
    key = (expect_version, *requires)
    if key in _CHECKED:
        return ""
    info = _probe(requires)
    problem = _mismatch(info, expect_version)
    if not problem:
        _CHECKED.add(key)
    return problem


def _mismatch(info: dict[str, Any], expect_version: str) -> str:
    if info["version"] != expect_version:
        return (f"has rfverify {info['version']}, the client {expect_version}; install the same rfverify "
                "version on every worker")
    if info["missing"]:
        what, why = next(iter(info["missing"].items()))
        more = f" (and {len(info['missing']) - 1} more)" if len(info["missing"]) > 1 else ""
        return (f"cannot import {what}{more}: {why}; install the plug-in's package on every worker "
                "(or put it on the workers' PYTHONPATH)")
    return ""


# ---------------------------------------------------------------------------------------------
# Executors
# ---------------------------------------------------------------------------------------------
def stderr_progress(label: str, every: float = 15.0) -> ProgressFn:
    """A progress callback printing ``label: done/total units, elapsed, ETA`` on stderr every ``every`` s."""
    last = [-every]

    def progress(done: int, total: int, elapsed: float) -> None:
        if done == total or elapsed - last[0] >= every:
            last[0] = elapsed
            eta = elapsed / done * (total - done) if done else float("nan")
            print(f"{label}: {done}/{total} units, {elapsed / 60:.1f} min, about {eta / 60:.1f} min left",
                  file=sys.stderr, flush=True)

    return progress


def _check_tasks(tasks: Sequence[Task]) -> list[Task]:
    tasks = list(tasks)
    seen: set[str] = set()
    for t in tasks:
        if not isinstance(t, Task):
            raise UsageError(f"an executor runs Task objects, got {type(t).__name__}")
        if t.key in seen:
            raise UsageError(f"two work units share the key {t.key!r}; keys must be unique within a batch")
        seen.add(t.key)
    return tasks


class Executor:
    """Runs a batch of :class:`Task`; :meth:`map` returns one :class:`Outcome` per task, in task order."""

    #: Shown in timing records and progress lines.
    description = "executor"

    def map(self, tasks: Sequence[Task], *, progress: ProgressFn | None = None) -> list[Outcome]:
        tasks = _check_tasks(tasks)
        t0 = time.perf_counter()
        done: dict[str, Outcome] = {}
        for out in self._run(tasks):
            done[out.key] = out
            if out.unfit:
                raise UsageError(out.error or "unfit worker")
            if progress:
                progress(len(done), len(tasks), time.perf_counter() - t0)
        return [done[t.key] for t in tasks]

    def _run(self, tasks: list[Task]) -> Iterable[Outcome]:  # pragma: no cover - abstract
        raise NotImplementedError

    def close(self) -> None:
        """Release what the executor holds (processes, a cluster, a connection)."""

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class InProcess(Executor):
    """Every unit in this process, one after the other."""

    description = "in-process"

    def _run(self, tasks: list[Task]) -> Iterable[Outcome]:
        for t in tasks:
            yield run_task(t)


def _pool_init(path: list[str]) -> None:
    for p in reversed(path):
        if p not in sys.path:
            sys.path.insert(0, p)


class ProcessPool(Executor):
    """A local pool of ``jobs`` worker processes (forkserver where there is one, else spawn).

    A worker that dies takes the pool with it (``BrokenProcessPool``): the units that had not
    finished are resubmitted to a fresh pool; a unit caught in two breakdowns then runs alone,
    and if its worker dies there too, its outcome is an ``error``.
    """

    def __init__(self, jobs: int) -> None:
        if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
            raise UsageError(f"jobs must be a positive integer, got {jobs!r}")
        self.jobs = jobs
        self.description = f"--jobs {jobs}"

    def _pool(self, workers: int) -> Any:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        # not fork: the caller may hold threads (a Dask client, numba, BLAS), which fork does not copy.
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context(method),
                                   initializer=_pool_init, initargs=(list(sys.path),))

    def _round(self, tasks: list[Task], workers: int) -> tuple[list[Outcome], list[Task]]:
        """Run ``tasks`` in a fresh pool; returns the outcomes and the tasks lost to a breakdown."""
        from concurrent.futures import as_completed
        from concurrent.futures.process import BrokenProcessPool

        outs: list[Outcome] = []
        lost: list[Task] = []
        with self._pool(workers) as pool:
            futures = {pool.submit(run_task, t): t for t in tasks}
            for f in as_completed(futures):
                try:
                    outs.append(f.result())
                except BrokenProcessPool:
                    lost.append(futures[f])
        return outs, lost

    def _run(self, tasks: list[Task]) -> Iterable[Outcome]:
        strikes: dict[str, int] = {}
        todo = tasks
        while todo:
            together = [t for t in todo if strikes.get(t.key, 0) < 2]
            alone = [t for t in todo if strikes.get(t.key, 0) >= 2]
            todo = []
            if together:
                outs, lost = self._round(together, self.jobs)
                yield from outs
                for t in lost:
                    strikes[t.key] = strikes.get(t.key, 0) + 1
                todo += lost
            for t in alone:  # caught in two breakdowns: run it by itself to see whether it is the culprit
                outs, lost = self._round([t], 1)
                yield from outs
                for t2 in lost:
                    yield Outcome(t2.key, error="its worker process died while running it, twice (the second "
                                  "time alone in a fresh pool): the unit kills or exhausts its process",
                                  worker="process pool")


# ---------------------------------------------------------------------------------------------
# Dask
# ---------------------------------------------------------------------------------------------
def _need_dask() -> None:
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise UsageError("--scheduler needs Dask: pip install 'rfverify[dask]' (dask[distributed])") from None


#: Scheduler settings of a cluster rfverify starts: a unit whose worker dies is retried once
#: (allowed-failures 1: the second death marks it failed), and a worker holds only the unit it
#: runs (worker-saturation 1.0), so a death implicates that unit alone.
LOCAL_CLUSTER_CONFIG = {"distributed.scheduler.allowed-failures": 1,
                        "distributed.scheduler.worker-saturation": 1.0}


class _SysPath:
    """A Dask worker plug-in: the client's ``sys.path`` entries and working directory on each (local) worker."""

    name = "rfverify-sys-path"

    def __init__(self, path: list[str], cwd: str) -> None:
        self.path, self.cwd = path, cwd

    def setup(self, worker: Any) -> None:
        _pool_init(self.path)
        if os.path.isdir(self.cwd):
            os.chdir(self.cwd)

    def teardown(self, worker: Any) -> None:
        pass

    def transition(self, *args: Any, **kwargs: Any) -> None:
        pass


def start_local_cluster(n_workers: int) -> Any:
    """A ``LocalCluster`` of ``n_workers`` single-threaded worker *processes* (each under a nanny that
    restarts it if it dies), configured by :data:`LOCAL_CLUSTER_CONFIG`; its workers get this
    process's ``sys.path`` and working directory.  The caller closes it."""
    _need_dask()
    import logging

    import dask
    from distributed import LocalCluster

    dashboard = ":0" if importlib.util.find_spec("bokeh") is not None else None
    with dask.config.set(LOCAL_CLUSTER_CONFIG):
        cluster = LocalCluster(n_workers=n_workers, processes=True, threads_per_worker=1,
                               dashboard_address=dashboard, silence_logs=logging.ERROR)
    from distributed import Client

    with Client(cluster) as client:
        client.register_plugin(_worker_plugin())
    return cluster


def _worker_plugin() -> Any:
    from distributed.diagnostics.plugin import WorkerPlugin

    class SysPath(_SysPath, WorkerPlugin):
        pass

    return SysPath(list(sys.path), os.getcwd())


def _parse_address(address: str | None) -> tuple[str, Any]:
    """("local", n) or ("remote", address) from a --scheduler value (None/"" -> the environment)."""
    if address is None or address == "":
        env = os.environ.get(ENV_SCHEDULER, "").strip()
        if not env:
            raise UsageError(f"--scheduler without an address reads {ENV_SCHEDULER}, which is not set; give "
                             "--scheduler tcp://HOST:PORT or --scheduler local:N")
        address = env
    if not isinstance(address, str):
        raise UsageError(f"--scheduler takes tcp://HOST:PORT or local:N, got {address!r}")
    if address.startswith("local:"):
        n = address[len("local:"):]
        if not n.isdigit() or int(n) < 1:
            raise UsageError(f"--scheduler local:N needs a positive number of workers N, got {address!r}")
        return "local", int(n)
    proto, sep, rest = address.partition("://")
    if not sep or not proto or ":" not in rest:
        raise UsageError(f"--scheduler takes tcp://HOST:PORT (or tls://, ucx://) or local:N, got {address!r}")
    return "remote", address


class DaskExecutor(Executor):
    """Units as Dask tasks (named by their keys, so the dashboard shows them) on a cluster.

    ``address``: ``"tcp://HOST:PORT"`` (a running scheduler), ``"local:N"`` (start a LocalCluster
    with N worker processes, closed with the executor), or None (``DASK_SCHEDULER_ADDRESS``);
    ``client``: an open ``distributed.Client`` to use instead (not closed here).  Connecting checks
    that at least one worker is there (``timeout`` seconds).
    """

    def __init__(self, address: str | None = None, *, client: Any = None, timeout: float = 60.0) -> None:
        _need_dask()
        from distributed import Client

        self._cluster = None
        self._own_client = client is None
        if client is not None:
            self.client = client
            self.description = f"Dask {client.scheduler.address}"
        else:
            how, where = _parse_address(address)
            if how == "local":
                self._cluster = start_local_cluster(where)
                self.client = Client(self._cluster)
                self.description = f"Dask local:{where}"
            else:
                try:
                    self.client = Client(where, timeout=timeout)
                except OSError as exc:
                    raise UsageError(f"cannot reach the Dask scheduler at {where}: {exc}") from None
                self.description = f"Dask {where}"
        try:
            self.client.wait_for_workers(1, timeout=timeout)
        except Exception:
            self.close()
            raise UsageError(f"the Dask scheduler ({self.description}) has no worker after {timeout:.0f} s; "
                             "start workers with: dask worker SCHEDULER_ADDRESS --nthreads 1") from None
        link = getattr(self.client, "dashboard_link", None) if importlib.util.find_spec("bokeh") else None
        n = len(self.client.nthreads())
        print(f"rfverify: {self.description}, {n} worker{'s' if n != 1 else ''}"
              + (f", dashboard {link}" if link else ""), file=sys.stderr, flush=True)

    def check_workers(self, requires: Iterable[str]) -> None:
        """Every worker's rfverify version equals ours and it imports every module in ``requires``."""
        from . import __version__

        reqs = sorted(set(requires))
        info = self.client.run(_probe, reqs)
        for worker, got in sorted(info.items()):
            problem = _mismatch(got, __version__)
            if problem:
                raise UsageError(f"Dask worker {worker} {problem}")

    def _run(self, tasks: list[Task]) -> Iterable[Outcome]:
        from distributed import as_completed

        from . import __version__

        self.check_workers(r for t in tasks for r in t.requires)
        futures = {}
        for t in tasks:
            f = self.client.submit(run_task, t, __version__, key=_dask_key(t), pure=False)
            futures[f] = t
        try:
            for f in as_completed(list(futures)):
                t = futures[f]
                try:
                    yield f.result()
                except Exception as exc:  # KilledWorker: its worker died twice; or the cluster went away
                    yield Outcome(t.key, error=_death_message(exc), worker=_culprit(exc))
        finally:
            for f in futures:
                f.release()

    def close(self) -> None:
        if self._own_client and getattr(self, "client", None) is not None:
            self.client.close()
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None


def _dask_key(task: Task) -> str:
    """The Dask key: the unit's readable key (the dashboard groups by its leading words) and a
    token of the unit's content, so clients sharing a scheduler never share a result by accident."""
    import hashlib
    import pickle

    token = hashlib.blake2b(pickle.dumps((task.fn, task.args), protocol=4), digest_size=6).hexdigest()
    return f"{task.key}-{token}"


def _death_message(exc: BaseException) -> str:
    name = type(exc).__name__
    if name == "KilledWorker":
        return ("the worker process running it died, and died again on the retry (a unit that kills, "
                f"crashes or exhausts its process): {exc}")[:600]
    return f"the cluster could not run it: {name}: {exc}"[:600]


def _culprit(exc: BaseException) -> str:
    return str(getattr(exc, "last_worker", "") or "")


# ---------------------------------------------------------------------------------------------
# Choosing an executor from --jobs / --scheduler
# ---------------------------------------------------------------------------------------------
def make_executor(jobs: int = 1, scheduler: str | None = None, *, use_scheduler: bool = False) -> Executor:
    """The executor for ``--jobs N`` / ``--scheduler ADDRESS``.

    ``use_scheduler``: ``--scheduler`` was given (``scheduler`` None or "" then means
    ``DASK_SCHEDULER_ADDRESS``).  Giving both ``jobs > 1`` and a scheduler is an error.
    """
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {jobs!r}")
    if use_scheduler or scheduler:
        if jobs > 1:
            raise UsageError("--jobs and --scheduler exclude each other: the cluster's workers are the jobs "
                             "(--scheduler local:N for N local worker processes)")
        return DaskExecutor(scheduler or None)
    return ProcessPool(jobs) if jobs > 1 else InProcess()

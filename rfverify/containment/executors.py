"""Run a batch of independent work units: in-process, in a local process pool, or on a Dask cluster.

Every batch rfverify scales out (calibration units, zoo entries, a list of implementations from
``rfverify check`` or :func:`rfverify.studies.batch.verify_many`) is a list of :class:`Task`: a stable ``key``,
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

:func:`run_task` is the one function that runs a unit (on the caller, in a pool worker, or in a Dask
worker's child process): it imports the unit's function, runs it with numerical libraries
single-threaded and turns an exception into an :class:`Outcome` with ``error`` set, so a broken unit
never takes the batch down.  A supervised child process (the plug-in isolation of rfverify.containment.supervise, which
does not exist yet) would wrap exactly this function; on Dask, :func:`run_in_child` already runs it
in a single-threaded child of the worker.  Deaths: a unit whose process dies is run once more, and
if it dies again its outcome is an ``error`` naming the worker — never a silent gap (on Dask:
``retries=1`` for a dead child, the scheduler's ``allowed-failures`` = 1 for a dead worker; in a
:class:`ProcessPool` the units in flight rerun alone).

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

from rfverify.errors import UsageError

__all__ = ["Task", "Outcome", "Executor", "InProcess", "ProcessPool", "DaskExecutor", "make_executor",
           "usable_cores", "costliest_first", "run_task", "run_in_child", "UnitProcessDied", "stderr_progress", "start_local_cluster", "ENV_SCHEDULER"]

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
    the unit imports — every Dask worker is checked for them before the batch starts;
    ``cost``: a hint of the unit's run time (any unit, e.g. measured CPU seconds): pools and
    clusters start the costliest units first so that a long unit does not start last and run
    alone.  It changes only when units start, never a result or the order results come back in.
    """

    key: str
    fn: str
    args: tuple[Any, ...] = ()
    requires: tuple[str, ...] = ()
    cost: float = 0.0


@dataclass(frozen=True)
class Outcome:
    """What one unit produced: ``value``, or ``error`` (a one-line reason) when it produced none."""

    key: str
    value: Any = None
    error: str | None = None
    worker: str = ""
    #: Wall time of the unit where it ran (timing only: never part of a result).
    seconds: float = 0.0
    #: True when no unit can give a verdict: the worker is unfit (another rfverify version, a plug-in
    #: it cannot import) or the unit's arguments are wrong (it raised UsageError, which every executor
    #: would raise alike): the batch stops with a UsageError instead of recording a verdict.
    fatal: bool = False

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


def run_task(task: Task, expect_version: str | None = None, where: str | None = None) -> Outcome:
    """Run one unit; never raises.  ``expect_version``: the client's rfverify version (Dask workers);
    ``where``: the worker's name for messages (default: this Dask worker's address, or the pid).

    Numerical libraries run single-threaded here, whatever the executor, so no result can depend
    on how many BLAS threads a process happened to have.
    """
    worker = where or _worker_name()
    if expect_version is not None:
        problem = _unfit(task.requires, expect_version)
        if problem:
            return Outcome(task.key, error=f"Dask worker {worker} {problem}", worker=worker, fatal=True)
    t0 = time.perf_counter()
    try:
        fn = _resolve(task.fn)
        from rfverify.containment.threads import single_threaded

        with single_threaded():
            value = fn(*task.args)
        return Outcome(task.key, value=value, worker=worker, seconds=time.perf_counter() - t0)
    except UsageError as exc:
        return Outcome(task.key, error=str(exc), worker=worker, fatal=True)
    except Exception as exc:  # a broken unit is an outcome, never a crash of the batch
        last = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
        where = f" (at {last[0].filename}:{last[0].lineno})" if last else ""
        return Outcome(task.key, error=f"{type(exc).__name__}: {exc}{where}"[:600], worker=worker)


_CHECKED: set[tuple[str, ...]] = set()


def _probe(requires: Sequence[str]) -> dict[str, Any]:
    """What a worker has: its rfverify version and which required modules or files it lacks."""
    from rfverify.version import __version__

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


class UnitProcessDied(RuntimeError):
    """The process running a unit died (killed, crashed, out of memory) before the unit returned."""


#: This process's unit runner child (a one-process pool), created on first use; see run_in_child.
_CHILD: Any = None


def _child_init(path: list[str], parent: int) -> None:
    """Set up the unit runner child: the worker's ``sys.path``, and exit as soon as the worker is gone
    (a pool process does not notice its parent's death by itself and would live on as an orphan)."""
    import threading

    _pool_init(path)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="rfverify-parent-watch", daemon=True).start()


def _child_pool() -> Any:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # spawn: the child's parent is this worker, whose death the child's watch thread sees
    return ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_child_init, initargs=(list(sys.path), os.getpid()))


def stop_child() -> None:
    """End this process's unit runner child now (a closing worker need not wait for it)."""
    global _CHILD
    if _CHILD is None:
        return
    for proc in list((getattr(_CHILD, "_processes", None) or {}).values()):
        proc.terminate()
    _CHILD.shutdown(wait=False, cancel_futures=True)
    _CHILD = None


def run_in_child(task: Task, expect_version: str | None = None) -> Outcome:
    """:func:`run_task` in this process's single-threaded child process (how Dask workers run units).

    A Dask worker runs tasks on a thread beside its event loop, which draws from Python's global
    ``random`` module (message compression samples, retry jitter) and writes to the shared streams
    — what the guard (:mod:`rfverify.containment.guard`) watches a plug-in for — and off the main thread the
    guard can arm neither its time limit nor its memory limit.  In the child a unit runs on a main
    thread alone, exactly as in-process or in a pool worker.  If the child dies mid-unit this
    raises :class:`UnitProcessDied` (Dask's ``retries=1`` then runs the unit once more; a second
    death is the unit's ``error``); the next unit gets a fresh child.
    """
    global _CHILD
    from concurrent.futures.process import BrokenProcessPool

    if _CHILD is None:
        import multiprocessing

        me = multiprocessing.current_process()
        if me.daemon:  # Dask's nanny starts workers as daemons, which multiprocessing forbids children;
            # the child watches this process and exits with it (_child_init); _config is multiprocessing's
            # private per-process settings, which its stubs do not declare
            me._config["daemon"] = False  # type: ignore[attr-defined]
        _CHILD = _child_pool()
    try:
        return _CHILD.submit(run_task, task, expect_version, _worker_name()).result()
    except BrokenProcessPool:
        _CHILD.shutdown(wait=False)
        _CHILD = None
        raise UnitProcessDied(f"the process running {task.key} on worker {_worker_name()} died mid-unit "
                              "(killed, crashed or out of memory)") from None


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


def usable_cores() -> int:
    """Cores this process may run on (``os.sched_getaffinity``, which honours ``taskset`` and cgroup
    cpusets, where it exists; else ``os.cpu_count()``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def costliest_first(tasks: Sequence[Task]) -> list[Task]:
    """``tasks`` in the order a pool should start them: descending ``cost``, ties in the given order."""
    return sorted(tasks, key=lambda t: -t.cost)  # sorted() is stable


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

    def map(self, tasks: Sequence[Task], *, progress: ProgressFn | None = None,
            on_outcome: Callable[[int, Outcome], None] | None = None) -> list[Outcome]:
        """Run every task; the outcomes in task order.  ``progress(done, total, elapsed)`` and
        ``on_outcome(index_in_tasks, outcome)`` are called (on this process) as units finish."""
        tasks = _check_tasks(tasks)
        index = {t.key: i for i, t in enumerate(tasks)}
        t0 = time.perf_counter()
        done: dict[str, Outcome] = {}
        for out in self._run(tasks):
            done[out.key] = out
            if out.fatal:
                raise UsageError(out.error or "a work unit could not run")
            if on_outcome:
                on_outcome(index[out.key], out)
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


_STARTED: Any = None


def _pool_worker_init(path: list[str], started: Any) -> None:
    global _STARTED
    _pool_init(path)
    _STARTED = started


def _run_in_pool(task: Task) -> Outcome:
    if _STARTED is not None:
        _STARTED.put(task.key)  # tells the parent which units a breakdown interrupted
    return run_task(task)


class ProcessPool(Executor):
    """A local pool of ``jobs`` worker processes (see :meth:`_context` for how they start).

    A worker that dies takes the pool with it (``BrokenProcessPool``): units that had not started
    are resubmitted to a fresh pool; each unit that had started (the culprit, and any unit in
    flight beside it) runs once more *alone* in a fresh one-process pool, and if its process dies
    there too, its outcome is an ``error``.  So a unit that kills its process costs at most
    ``jobs`` retried units, and one that does so every time is recorded after two deaths.
    """

    def __init__(self, jobs: int) -> None:
        if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
            raise UsageError(f"jobs must be a positive integer, got {jobs!r}")
        self.jobs = jobs
        self.description = f"--jobs {jobs}"

    @staticmethod
    def _context() -> Any:
        """fork where there is one and this process runs no other thread (workers inherit the loaded
        modules and need no ``__main__`` guard in the caller's script); else forkserver or spawn, since
        fork copies no thread (a Dask client's, numba's) and may copy a lock one of them held."""
        import multiprocessing
        import threading

        methods = multiprocessing.get_all_start_methods()
        if "fork" in methods and threading.active_count() == 1:
            return multiprocessing.get_context("fork")
        return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")

    def _round(self, tasks: list[Task], workers: int, lost: list[Task], started: set[str]) -> Iterable[Outcome]:
        """Run ``tasks`` in a fresh pool, yielding outcomes as they finish; fills ``lost`` (tasks lost to a
        breakdown) and ``started`` (the keys that had started)."""
        from concurrent.futures import ProcessPoolExecutor, as_completed
        from concurrent.futures.process import BrokenProcessPool

        ctx = self._context()
        started_q = ctx.SimpleQueue()  # put() writes at once (a Queue's feeder thread dies unflushed with its process)
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_pool_worker_init,
                                 initargs=(list(sys.path), started_q)) as pool:
            futures = {pool.submit(_run_in_pool, t): t for t in costliest_first(tasks)}
            for f in as_completed(futures):
                try:
                    out = f.result()
                except BrokenProcessPool:
                    lost.append(futures[f])
                    continue
                yield out
        if lost:
            while not started_q.empty():
                started.add(started_q.get())
        started_q.close()

    def _run(self, tasks: list[Task]) -> Iterable[Outcome]:
        todo = tasks
        while todo:
            lost: list[Task] = []
            started: set[str] = set()
            yield from self._round(todo, self.jobs, lost, started)
            suspects = [t for t in lost if t.key in started]
            todo = [t for t in lost if t.key not in started]
            for t in suspects:  # in flight when a process died: once more, alone, to see whether it is the culprit
                again: list[Task] = []
                yield from self._round([t], 1, again, set())
                for t2 in again:
                    yield Outcome(t2.key, error="its worker process died while running it, and again when it ran "
                                  "alone in a fresh process: the unit kills, crashes or exhausts its process",
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
        stop_child()

    def transition(self, *args: Any, **kwargs: Any) -> None:
        pass


def start_local_cluster(n_workers: int, *, dashboard: bool = True) -> Any:
    """A ``LocalCluster`` of ``n_workers`` single-threaded worker *processes* (each under a nanny that
    restarts it if it dies), configured by :data:`LOCAL_CLUSTER_CONFIG`; its workers get this
    process's ``sys.path`` and working directory.  ``dashboard``: serve Dask's dashboard on a free
    port (where bokeh is installed).  The caller closes it."""
    _need_dask()
    import logging

    import dask
    from distributed import LocalCluster

    address = ":0" if dashboard and importlib.util.find_spec("bokeh") is not None else None
    with dask.config.set(LOCAL_CLUSTER_CONFIG):
        cluster = LocalCluster(n_workers=n_workers, processes=True, threads_per_worker=1,
                               dashboard_address=address, silence_logs=logging.ERROR)
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
        from rfverify.version import __version__

        reqs = sorted(set(requires))
        info = self.client.run(_probe, reqs)
        for worker, got in sorted(info.items()):
            problem = _mismatch(got, __version__)
            if problem:
                raise UsageError(f"Dask worker {worker} {problem}")

    def _run(self, tasks: list[Task]) -> Iterable[Outcome]:
        from distributed import as_completed

        from rfverify.version import __version__

        self.check_workers(r for t in tasks for r in t.requires)
        futures = {}
        for t in costliest_first(tasks):
            f = self.client.submit(run_in_child, t, __version__, key=_dask_key(t), pure=False, retries=1,
                                   priority=t.cost)  # higher priority runs first
            futures[f] = t
        try:
            pending = as_completed(list(futures))
            for f in pending:
                t = futures.pop(f)
                try:
                    out = f.result()
                except Exception as exc:  # KilledWorker: its worker died twice; or the cluster went away
                    out = Outcome(t.key, error=_death_message(exc), worker=_culprit(exc))
                # forget it on the cluster at once: a result still wanted when its worker dies is recomputed
                f.release()
                del f
                yield out
        finally:
            for f in futures:
                f.release()

    def close(self) -> None:
        if self._own_client and getattr(self, "client", None) is not None:
            self.client.close()
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None


def _dask_key(task: Task) -> tuple[str, str]:
    """The Dask key ``("rfverify-<batch>", "<unit key>-<token>")``.

    The dashboard groups tasks by the first part (``rfverify-calibrate``, ``rfverify-zoo``,
    ``rfverify-check``) and shows the unit's readable key with each task.  One group per batch also
    makes a large batch "root-ish" for the scheduler, so it queues units on the scheduler instead of
    piling them onto workers: a dying worker then takes only the unit it was running.  The token
    (a hash of the unit's content) keeps clients sharing a scheduler from sharing a result by accident.
    """
    import hashlib
    import pickle

    token = hashlib.blake2b(pickle.dumps((task.fn, task.args), protocol=4), digest_size=6).hexdigest()
    return (f"rfverify-{task.key.split('-', 1)[0]}", f"{task.key}-{token}")


def _death_message(exc: BaseException) -> str:
    name = type(exc).__name__
    if isinstance(exc, UnitProcessDied):
        return f"{exc}, and again on the retry: the unit kills, crashes or exhausts its process"[:600]
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

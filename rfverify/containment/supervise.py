"""Run the plug-in in a supervised child process: a crash, a hard exit or a hang is status ``error``.

:mod:`rfverify.containment.guard` contains what a plug-in does *inside* Python.  This module contains what the guard
cannot: a segfault or an abort in a C extension, ``os._exit``, a hang the in-process timer cannot end
(``SIGALRM`` blocked or ignored, the timer cancelled, code stuck in C, a deadlock), an allocation after the
plug-in lifted ``RLIMIT_AS``, a fork that returns twice, and anything that changes process-wide state
(``os.chdir``, ``os.environ``, ``sys.path``, a monkey-patched numpy, a non-daemon thread).

Design
-----------------
* **One child per implementation, a fresh one after a death.**  A :class:`Supervisor` forks one worker
  process for one configuration and sends it requests one at a time (the preflight, each check, the
  closing header and metrics); results come back per request, so a death costs only the request it
  interrupted.  A new child (forked again from the untouched harness) serves the next request after
  re-running the preflight silently (the preflight sets state the checks read, e.g. detected data
  dependence).  Per check instead of per implementation would isolate the checks of one plug-in from
  each other too, but repeats the preflight and every cache (the Haar battery's draws) per check; the
  checks of one implementation share one plug-in already and their verdicts never depend on order.
* **fork, not spawn or forkserver.**  Plug-ins handed over as Python objects (classes and lambdas defined
  in a test, closures, objects with open resources) must keep working: ``spawn``/``forkserver`` would have
  to pickle the configuration and re-import numpy/scipy/the plug-in in every child (about a second each);
  a forked child inherits them.  The harness is single-threaded when it forks (Python 3.11; a plug-in's
  threads live in the child; the one exception, the progress bar's refresh thread on a terminal, writes only
  under a lock that every fork takes first: :mod:`rfverify.progress`), so fork's known hazard, a lock held by
  another thread, does not apply to the harness's own state; a child that deadlocks anyway is ended as a
  hang.  Where ``fork`` does not exist (Windows) the checks run in-process under the guard alone.
* **Ending a child**, as pytest-timeout's ``thread`` method does (a watcher outside the stuck code) and not
  as its ``signal`` method (``SIGALRM`` inside, which the plug-in can block, ignore or swallow): the
  in-child guard still fires first at the time limit and gives the precise message; if no answer comes
  :data:`GRACE` seconds later the supervisor sends ``SIGTERM`` to the child's process group, then
  ``SIGKILL`` after :data:`TERM_WAIT` seconds.  Unlike pytest-timeout's ``thread`` method, which ends the
  whole session, only the child dies and the run goes on — the way pytest-xdist reports a crashed worker
  (``worker 'gw0' crashed while running 'test_x'``: the item running at the time fails, a replacement
  worker takes the rest).  The supervisor applies the guard's rules (:mod:`rfverify.containment.guard`): the
  limit is the CPU time of the child's main thread, a child past the limit in wall time whose threads together
  used less than :data:`~rfverify.containment.guard.STALL_SHARE` of a core is a hang, and :data:`~rfverify.containment.guard.WALL_FACTOR`
  times the limit of wall time is the backstop.  CPU times and memory come from psutil, the same rule on Linux
  and macOS; where a platform does not say (psutil raises), the limit is wall time.
* **Memory**: the guard's ``RLIMIT_AS`` inside the child, and a watchdog outside: the child's resident
  size, polled every :data:`POLL` seconds, above its size at the start of the request plus the budget
  kills it (``SIGKILL``).
* **What the parent learns**: each reply carries the result; a shared page holds the last call into the
  plug-in (written by :func:`rfverify.containment.guard.call`), so a death or a kill names it.  Bytes written straight
  to file descriptor 1 (C code, ``os.write(1, ...)``) go to a file in the child and are an error (they
  would corrupt ``--json -``); a fork that returns into rfverify is caught by the guard's pid check in the
  forked copy, which records itself on the shared page and exits.

* **Signals and descendants** (:mod:`rfverify.containment.sentinel`): while a request is outstanding the harness blocks
  SIGTERM, SIGINT and SIGHUP and reads their sender; one sent by the child or its descendants ends that
  request as an ``error``, one from anyone else is honoured.  A watchdog process resumes a harness stopped by
  SIGSTOP (that request is an ``error``).  The harness and the child are child subreapers, and every descendant
  of the child is killed when a request ends.
* **rfverify's environment** (``RFVERIFY_INPROCESS``) is read once by :func:`freeze_settings` (the CLI and the
  pytest plugin call it before importing any plug-in): a plug-in setting it changes nothing.

Opt out with ``isolate=False`` (the Python API, :func:`rfverify.runner.run`) or ``RFVERIFY_INPROCESS=1``
(everything: CLI, API, pytest plugin) to debug a plug-in with a debugger in one process.
"""

from __future__ import annotations

import atexit
import ctypes  # noqa: F401 - imported here, once, not in every child (prctl)
import gc
import mmap
import multiprocessing
# multiprocessing registers its exit handler (which waits for every child) when multiprocessing.util is first
# imported; imported here, before _close_all below, so that _close_all runs first (atexit runs last-registered first)
# and a configuration still alive at exit cannot leave the interpreter waiting on its child forever.
import multiprocessing.util  # noqa: F401
import os
import signal
import sys
import tempfile
import time
import weakref
from typing import Any, Iterator


from rfverify.containment import guard, sentinel
from rfverify.errors import PluginError, UsageError
from rfverify.containment.guard import Limits, format_bytes
from rfverify.text import plain

__all__ = ["Supervisor", "isolation_available", "isolation_wanted", "freeze_settings", "GRACE", "TERM_WAIT", "POLL"]

#: Seconds past the time limit before the supervisor ends a child from outside (the in-child guard fires
#: first and reports more precisely; this catches what it cannot interrupt).
GRACE = 3.0
#: Seconds between SIGTERM and SIGKILL.
TERM_WAIT = 2.0
#: Seconds between two looks at a running child (its memory, the clock).
POLL = 0.2
#: Bytes of the shared page: the last call into the plug-in, and the fork record.
_PAGE = 1024
#: Least bytes of resident memory tolerated beyond the budget before the watchdog kills (a quarter of the
#: budget when larger): memory the child had reserved before the check may become resident without growing
#: the address space the guard limits.
_SLACK = 64 << 20
_FORK_AT = 512

_LIVE: "weakref.WeakSet[Supervisor]" = weakref.WeakSet()
_IN_CHILD = False


def isolation_available() -> bool:
    """Whether this platform can fork (Linux, macOS, BSD)."""
    return hasattr(os, "fork") and "fork" in multiprocessing.get_all_start_methods()


#: rfverify's own environment variables that decide how plug-in code runs.
SETTINGS_ENV = ("RFVERIFY_INPROCESS", "RFVERIFY_WHOLE_CHECKS")
#: Their values as read by :func:`freeze_settings` (None: not frozen, read when needed).
_FROZEN: dict[str, str] | None = None


def freeze_settings() -> None:
    """Read rfverify's environment variables (:data:`SETTINGS_ENV`) now, once: the CLI and the pytest plugin
    call it before any plug-in code is imported, so a plug-in that sets ``RFVERIFY_INPROCESS=1`` (at import or
    later) changes nothing the harness decides.  Idempotent: the first reading stays."""
    global _FROZEN
    if _FROZEN is None:
        _FROZEN = {name: os.environ.get(name, "") for name in SETTINGS_ENV}


def _setting(name: str) -> str:
    return (_FROZEN if _FROZEN is not None else os.environ).get(name, "")


def isolation_wanted(isolate: bool | None = None) -> bool:
    """``isolate`` (None: on unless ``RFVERIFY_INPROCESS`` is set to a non-empty value other than 0, as read by
    :func:`freeze_settings`, else now), and never inside a supervised child (nested runs stay in that child) or
    where fork does not exist."""
    if isolate is None:
        isolate = _setting("RFVERIFY_INPROCESS").strip() in ("", "0")
    # a daemonic multiprocessing worker (multiprocessing.Pool, Dask's default worker processes) may not
    # have children: it is already a process apart from the one that asked, so the guard alone runs there
    daemonic = bool(multiprocessing.current_process().daemon)
    return bool(isolate) and not _IN_CHILD and not daemonic and isolation_available()


def judge_wanted() -> bool:
    """Whether a plug-in's checks run in the harness, the plug-in served in its own process by operation
    (:mod:`rfverify.containment.host`, :mod:`rfverify.containment.hosted_kinds`): whenever isolation is on, unless ``RFVERIFY_WHOLE_CHECKS=1`` asks for the earlier
    protocol (whole checks in the child, the verdict computed next to the plug-in), kept to measure the cost."""
    return isolation_wanted() and _setting("RFVERIFY_WHOLE_CHECKS").strip() in ("", "0")


def _signal_name(num: int) -> str:
    try:
        sig = signal.Signals(num)
    except ValueError:
        return f"signal {num}"
    desc = signal.strsignal(sig) if hasattr(signal, "strsignal") else None
    return f"{sig.name} ({desc})" if desc else sig.name


def _page_text(page: mmap.mmap, start: int, size: int) -> str:
    raw = page[start:start + size].split(b"\0", 1)[0]
    return raw.decode("utf-8", "replace")


def _overran(limit: float, cpu: float | None, process_cpu: float | None, wall: float) -> bool:
    """The guard's rules seen from outside, ``GRACE`` later: the main thread's CPU over the limit; or past the
    limit in wall time and the process stalled (or its CPU unknown); or the wall-clock backstop."""
    if cpu is not None and cpu > limit + GRACE:
        return True
    if wall <= limit + GRACE:
        return False
    return (cpu is None or process_cpu is None or process_cpu < guard.STALL_SHARE * wall
            or wall > guard.WALL_FACTOR * limit + GRACE)


def _kill_group(pid: int, sig: int) -> None:
    for target in (lambda: os.killpg(pid, sig), lambda: os.kill(pid, sig)):
        try:
            target()
        except (ProcessLookupError, PermissionError, OSError):
            pass


class _Died(Exception):
    """The child ended (or was ended) during a request; ``message`` says how; ``crashed``: it ended by itself (a
    crash, an exit), not by the harness for a time limit, the memory budget or a signal it sent."""

    def __init__(self, message: str, crashed: bool = False) -> None:
        super().__init__(message)
        self.crashed = crashed


class Supervisor:
    """Runs the requests of one configuration (one implementation) in a supervised child process.

    ``plugin``: the plug-in's name for messages.  ``calls``: the three functions the child runs,
    ``(preflight(config, limits), run_check(config, spec, None, limits), metrics(config, limits))`` — the
    runner's (:func:`rfverify.runner.supervisor`), handed over so that this module never imports the runner.
    Requests: :meth:`preflight`, :meth:`run_check`, :meth:`finish`; :meth:`close` ends the child (also at
    interpreter exit).
    """

    def __init__(self, config: Any, limits: Limits, plugin: str, calls: tuple[Any, Any, Any]) -> None:
        self.config, self.limits, self.plugin, self.calls = config, limits, plugin, calls
        self._ctx = multiprocessing.get_context("fork")
        self._proc: Any = None
        self._conn: Any = None
        self._out: Any = None
        self._page = mmap.mmap(-1, _PAGE)
        self._preflight_done = False
        self._preflight_crashed = False  # then a fresh child skips the preflight (see run_check)
        self._preflight_failed = False  # then the report header never needs a fresh child
        #: Children started so far (1 + the number of deaths that needed a fresh one).
        self.started = 0
        self._gate = sentinel.SignalGate()
        self._watchdog = sentinel.Watchdog()
        self._seen: set[int] = set()  # the child and every descendant of it seen so far (signal senders)
        self._before: set[int] = set()  # the harness's children other than this child when it started
        self._resumes = 0  # resumes from SIGSTOP by the watchdog already reported
        self._outstanding = 0  # requests sent and not answered yet: the signal gate is open while any is
        _LIVE.add(self)

    # -- requests ---------------------------------------------------------------------------------
    def preflight(self) -> str | None:
        """The preflight in the child: the problem, or None (a death is the problem)."""
        try:
            problem = self._request(("preflight",), "the preflight call")
        except _Died as exc:
            problem = str(exc)
            self._preflight_crashed = exc.crashed
        self._preflight_done = True
        self._preflight_failed = problem is not None
        return problem

    def run_check(self, spec: Any, preflight_error: str | None = None) -> Any:
        """:func:`rfverify.runner.run_check` in the child; a death is that check's ``error``.

        A preflight that raised (or hung, or ran out of memory) is every check's ``error``: the plug-in's basic call
        fails, and a check would only repeat it at the cost of its whole limit.  A preflight that *crashed* the
        child (a signal, an exit: often the first calls of a process) is carried by the kind's first check only
        (the call that check makes first), and every other check really runs, each in a fresh child that does not
        repeat the preflight: the checks that need the calls that crash error by themselves, the others give their
        verdicts (the run still ends with exit 2)."""
        if preflight_error is not None:
            if not self._preflight_crashed or spec.name == self.config.checks()[0].name:
                return self.config.context(spec).result("error", preflight_error)
            self.close()
        try:
            result = self._request(("check", spec.name), f"check {spec.name}")
        except _Died as exc:
            result = self.config.context(spec).result("error", str(exc))
        if preflight_error is not None:
            self.close()
        return result

    def iter_checks(self, specs: list[Any], preflight_error: str | None = None) -> Iterator[Any]:
        """The results of ``specs`` in order, as :meth:`run_check` gives them, with the requests sent ahead
        (the child goes from one check to the next without waiting for the harness: on a loaded machine
        each round trip costs two scheduler wake-ups).  After a death the rest is sent to a fresh child."""
        if preflight_error is not None:  # see run_check: every check errors, or after a crash the first only
            first = self.config.checks()[0].name
            for n, spec in enumerate(specs):
                carrier = not self._preflight_crashed or spec.name == first or \
                    (n == 0 and first not in {s.name for s in specs})
                yield self.config.context(spec).result("error", preflight_error) if carrier \
                    else self.run_check(spec, preflight_error)
            return
        i = 0
        while i < len(specs):
            if self._proc is None:
                self._start()
            for spec in specs[i:]:
                self._send(("check", spec.name))
            while i < len(specs):
                spec = specs[i]
                i += 1
                try:
                    result = self._receive(("check", spec.name), f"check {spec.name}")
                except _Died as exc:
                    result = self.config.context(spec).result("error", str(exc))
                yield result
                if self._proc is None:  # died or retired: what was sent to it is lost
                    break

    def finish(self, metrics: bool) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """The report header (the child's configuration has seen the preflight) and, when asked, the
        metrics; a death gives the harness's header and ``{"error": message}``.  After a failed preflight the
        harness's header, without starting a child (which would repeat the failed calls and their cost)."""
        if self._preflight_failed and self._proc is None:
            return self.config.header(), ({"error": "not computed: the preflight call failed"} if metrics else None)
        try:
            return self._request(("finish", metrics), "the metrics" if metrics else "the report header")
        except _Died as exc:
            return self.config.header(), ({"error": str(exc)} if metrics else None)

    def close(self) -> None:
        """End the child (and anything it started in its process group)."""
        proc, conn = self._proc, self._conn
        if proc is not None:  # while the child lives its descendants are found through it
            self._seen.update(sentinel.end_descendants(proc.pid))
        self._proc = self._conn = None
        if conn is not None:
            try:
                conn.send(("close",))
            except (OSError, ValueError):
                pass
        if proc is not None:
            proc.join(0.5)
            self._seen.update(sentinel.end_descendants(proc.pid))
            _kill_group(proc.pid, signal.SIGKILL)
            proc.join(5)
            self._end_orphans()
            try:
                proc.close()
            except ValueError:
                pass
        if conn is not None:
            conn.close()
        if self._out is not None:
            self._out.close()
            self._out = None
        self._watchdog.stop()
        self._outstanding = 0
        theirs = [(num, pid) for num, pid in self._gate.close() if pid not in self._seen]
        if theirs:  # from outside, while the children were being ended: honoured now
            sentinel.redeliver(theirs)

    def _end_orphans(self) -> None:
        """Kill what a dead child left to the harness (a subreaper: its orphans are re-parented here) — only
        processes seen as the child's descendants (every :data:`POLL` s while it runs and at the end of each
        request), never another child of the harness."""
        orphans = (sentinel.direct_children() & self._seen) - self._before - {self._watchdog.pid}
        for sup in list(_LIVE):
            if sup._proc is not None:
                orphans.discard(sup._proc.pid)
        if orphans:
            sentinel.end_descendants(None, orphans)

    def __enter__(self) -> "Supervisor":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- the child's life -------------------------------------------------------------------------
    def _start(self) -> None:
        if self._watchdog.pid is None:  # before the channel exists: the watchdog holds none of its ends
            sentinel.become_subreaper()
            self._watchdog.start()
            self._resumes = self._watchdog.resumes
        parent_conn, child_conn = self._ctx.Pipe(duplex=True)
        self._parent_end = parent_conn  # the child closes its copy (rfverify.containment.host)
        self._page[:] = b"\0" * _PAGE
        self._out = tempfile.TemporaryFile(prefix="rfverify-fd1-")
        target, args = self._child_target(child_conn)
        proc = self._ctx.Process(target=target, name=f"rfverify:{self.plugin}"[:60], args=args)
        for stream in (sys.stdout, sys.stderr):  # nothing buffered in the harness is written twice
            try:
                stream.flush()
            except (OSError, ValueError, AttributeError):
                pass
        gc.freeze()  # the child's collector then never walks (and copies, page by page) the harness's heap
        try:
            proc.start()
        finally:
            gc.unfreeze()
        child_conn.close()
        self._proc, self._conn = proc, parent_conn
        assert proc.pid is not None  # started
        self._seen = {proc.pid}
        self._before = sentinel.direct_children() - {proc.pid}
        self.started += 1

    def _child_target(self, child_conn: Any) -> tuple[Any, tuple[Any, ...]]:
        """The child's main function and its arguments."""
        return _child_main, (child_conn, self.config, self.limits, self.calls, self._page, self._out.fileno(),
                             "recover" if self._preflight_crashed else "rerun" if self._preflight_done else "",
                             os.getpid())

    def _last_call(self) -> str:
        return _page_text(self._page, 0, _FORK_AT) or "none yet"

    def _request(self, message: tuple[Any, ...], what: str) -> Any:
        if self._proc is None:
            self._start()
        self._send(message)
        return self._receive(message, what)

    def _send(self, message: tuple[Any, ...]) -> None:
        self._gate.open()  # from now until no request is outstanding (rfverify.containment.sentinel)
        self._outstanding += 1
        try:
            self._conn.send(message)
        except (OSError, ValueError):
            pass  # a child that died between requests: reported by the wait in _receive

    def _receive(self, message: tuple[Any, ...], what: str) -> Any:
        """The reply to ``message`` (sent, possibly behind others): wait for it under the wall-time limit
        and the memory watchdog, from now on (the child answers requests in order)."""
        return self._unpack(message, what, self._wait(what))

    def _clock(self) -> tuple[float, float | None, float | None, int | None]:
        """Where the limits count from: now (wall, the child's main-thread and process CPU, resident size)."""
        pid = self._proc.pid
        return (time.monotonic(), sentinel.cpu_seconds(pid, True), sentinel.cpu_seconds(pid),
                sentinel.memory_bytes(pid, 1) if self.limits.memory is not None else None)

    def _read(self, conn: Any) -> Any:
        return conn.recv()

    def _poll(self, conn: Any, timeout: float) -> bool:
        return bool(conn.poll(timeout))

    def _wait(self, what: str, clock: tuple[float, float | None, float | None, int | None] | None = None,
              end_descendants: bool = True) -> Any:
        """Wait for the child's next reply under the time limit (counted from ``clock``: now when None), the memory
        watchdog and the signal gate; a death, an overrun or a signal from the plug-in raises :class:`_Died`."""
        proc, conn = self._proc, self._conn
        limit = self.limits.time
        start, cpu0, pcpu0, base = clock if clock is not None else self._clock()
        budget = self.limits.memory
        # the in-child guard caps the address space at its size at the start plus the budget, so resident
        # growth stays within the budget too (up to touching memory reserved earlier: the slack); only a
        # plug-in that lifted RLIMIT_AS (or a platform without it) crosses this
        slack = max(_SLACK, (budget or 0) // 4)
        polls = 0
        try:
            while True:
                if polls:  # a request that answers within one poll is not scanned here (end_descendants does)
                    self._seen.update(sentinel.descendants(proc.pid))
                polls += 1
                self._signalled(what)
                try:
                    ready = self._poll(conn, POLL)
                except (OSError, EOFError):
                    ready = True
                if ready:
                    try:
                        reply = self._read(conn)
                    except (EOFError, OSError):
                        raise _Died(self._death(what), crashed=True) from None
                    break
                if not proc.is_alive():
                    if conn.poll(0):  # the answer arrived just before the end
                        continue
                    raise _Died(self._death(what), crashed=True)
                if limit is not None:
                    self._check_time(what, proc.pid, limit, start, cpu0, pcpu0)
                if base is not None and budget is not None:
                    self._check_memory(what, proc.pid, base, budget, slack)
            self._signalled(what)  # sent just before the reply: that request is still the plug-in's
        except KeyboardInterrupt:
            self._end(signal.SIGKILL)
            raise
        except _Died:
            self._discard()
            raise
        finally:
            self._outstanding = max(0, self._outstanding - 1) if self._proc is not None else 0
            late = self._gate.close() if not self._outstanding else self._gate.take()
        self._after_reply(what, late, end_descendants)
        return reply

    def _check_time(self, what: str, pid: int, limit: float, start: float, cpu0: float | None,
                    pcpu0: float | None) -> None:
        """End the child (SIGTERM, then SIGKILL) and raise :class:`_Died` when the request overran its limit."""
        cpu_now, pcpu_now = sentinel.cpu_seconds(pid, True), sentinel.cpu_seconds(pid)
        wall = time.monotonic() - start
        cpu = None if cpu_now is None or cpu0 is None else cpu_now - cpu0
        pcpu = None if pcpu_now is None or pcpu0 is None else pcpu_now - pcpu0
        if _overran(limit, cpu, pcpu, wall):
            how = self._end(signal.SIGTERM)
            detail = "" if cpu is None else "; " + guard.time_limit_detail(cpu, wall, limit)
            raise _Died(self._message(
                f"{what} did not finish within the time limit of {limit:g} s and was ended from "
                f"outside ({how}{detail})", "make it faster, or raise --time-limit SECONDS "
                "(time_limit=); code stuck in C or a deadlock cannot be interrupted inside the process"))

    def _check_memory(self, what: str, pid: int, base: int, budget: int, slack: int) -> None:
        """Kill the child and raise :class:`_Died` when its resident memory grew past the budget."""
        rss = sentinel.memory_bytes(pid, 1)
        if rss is not None and rss > base + budget + slack:
            self._end(signal.SIGKILL)
            raise _Died(self._message(
                f"{what} ran out of memory: it exceeded the memory budget of {format_bytes(budget)} (resident "
                f"{format_bytes(rss)}, {format_bytes(base)} at the start) and was "
                "killed from outside (SIGKILL)",
                "return outputs of the requested size, or raise --memory-limit (memory_limit=)"))

    def _after_reply(self, what: str, late: Any, end_descendants: bool) -> None:
        """After a reply: end the request's descendants, take the signals sent meanwhile, and refuse a fork that
        returned into rfverify."""
        try:
            if self._proc is not None and end_descendants:  # every descendant of the request ends with it
                self._seen.update(sentinel.end_descendants(self._proc.pid))
            self._take_signals(late, what)
        except _Died:
            self._discard()
            raise
        forked = _page_text(self._page, _FORK_AT, _PAGE - _FORK_AT) if self._page[_FORK_AT] else ""
        if forked:
            self._end(signal.SIGKILL)
            self._discard()
            raise _Died(self._message(f"{what}: the plug-in forked and the copy returned into rfverify "
                                      f"({forked})", "a plug-in must not fork (use a process pool that "
                                      "runs its own code, and wait for it)", last=False))

    def _unpack(self, message: tuple[Any, ...], what: str, reply: Any) -> Any:
        status, value, written, first = reply
        if status == "retire":  # the child changed its own numpy: it ends, the next request gets a fresh one
            self._discard()
            status = "ok"
        if written > 0 and status == "ok":
            line = (first.decode("utf-8", "replace").strip().splitlines() or [""])[0]
            problem = str(PluginError(self.plugin, f"wrote {written} byte(s) straight to file descriptor 1 "
                                      f"(stdout) during {what}: {line!r} (last call into the plug-in: "
                                      f"{self._last_call()})", "a plug-in must not print (it would corrupt "
                                      "--json - output); C code too: use the logging or warnings modules"))
            if message[0] == "check" and value.status != "error":
                spec = next(s for s in self.config.checks() if s.name == message[1])
                return self.config.context(spec).result("error", problem)
            if message[0] == "preflight" and value is None:
                return problem
        if status == "interrupt":
            self.close()
            raise KeyboardInterrupt
        if status == "raise":
            self.close()
            raise value
        return value

    def _signalled(self, what: str) -> None:
        """Signals sent to the harness since the last look: the plug-in's end ``what`` (:class:`_Died`), anyone
        else's end the run as they would have; a harness the watchdog had to resume from SIGSTOP ends ``what``."""
        self._take_signals(self._gate.take(), what)
        if self._watchdog.resumes != self._resumes:
            self._resumes = self._watchdog.resumes
            self._end(signal.SIGKILL)
            raise _Died(self._message(f"{what}: rfverify's process was stopped (SIGSTOP) while the plug-in ran and "
                                      "was resumed by its watchdog", "a plug-in must not stop the process that "
                                      "runs it (to pause rfverify, use Ctrl-Z: SIGTSTP)"))

    def _take_signals(self, sigs: list[tuple[int, int]], what: str) -> None:
        if not sigs:
            return
        proc = self._proc
        if proc is not None:
            self._seen.update(sentinel.descendants(proc.pid))
        mine = [(num, pid) for num, pid in sigs if pid in self._seen]
        # a signal the harness ignores was only kept because the gate blocked it: it has no effect, as without the gate
        theirs = [(num, pid) for num, pid in sigs if pid not in self._seen and signal.getsignal(num) != signal.SIG_IGN]
        if theirs:  # the user's Ctrl-C, a CI timeout: honoured, once the children are gone
            self.close()
            self._gate.close()
            sentinel.redeliver(theirs)
            # still here: a handler of the caller's returned; the child is gone, so this request has no answer
            sent = ", ".join(f"{_signal_name(num)} from pid {pid}" for num, pid in theirs)
            raise _Died(f"{what} was interrupted from outside ({sent}); its process was ended before the signal's "
                        "handler ran, and the handler let the run go on: this request has no result (not the "
                        "plug-in's fault)")
        if mine and proc is not None and self._proc is not None:
            self._end(signal.SIGKILL)
            num, pid = mine[0]
            who = "the child process" if pid == proc.pid else f"a descendant of the child process (pid {pid})"
            raise _Died(self._message(f"{what}: {who} sent {_signal_name(num)} to the rfverify harness; it was "
                                      "ignored and the child ended", "a plug-in must not signal the process that "
                                      "runs it"))

    def _message(self, problem: str, hint: str, last: bool = True) -> str:
        if last:
            problem += f" (last call into the plug-in: {self._last_call()})"
        return str(PluginError(self.plugin, problem, hint))

    def _death(self, what: str) -> str:
        proc = self._proc
        if proc is None:  # ended here meanwhile (an outside signal, a scope's end): not the plug-in's doing
            return f"{what} has no result: rfverify had ended its process"
        proc.join(TERM_WAIT)
        if proc.is_alive():  # the pipe closed but the process lives on: end it
            self._end(signal.SIGKILL)
            return self._message(f"{what} closed rfverify's channel to the child process",
                                 "a plug-in must not close file descriptors it did not open")
        code = proc.exitcode
        if code is not None and code < 0:
            return self._message(f"{what} ended the process: killed by {_signal_name(-code)}",
                                 "a crash inside the plug-in or a C extension it calls; run with "
                                 "RFVERIFY_INPROCESS=1 under a debugger to see where")
        return self._message(f"{what} ended the process with exit code {code} (os._exit or a C-level exit)",
                             "a plug-in must return or raise an exception, never exit the process")

    def _end(self, first: int) -> str:
        """End the child: ``first`` (SIGTERM or SIGKILL), then SIGKILL after TERM_WAIT; what it took."""
        proc = self._proc
        if proc is None:
            return "already ended"
        _kill_group(proc.pid, first)
        if first == signal.SIGKILL:
            proc.join(TERM_WAIT)
            return "SIGKILL"
        proc.join(TERM_WAIT)
        if proc.is_alive():
            _kill_group(proc.pid, signal.SIGKILL)
            proc.join(TERM_WAIT)
            return "SIGTERM, then SIGKILL"
        return "SIGTERM"

    def _discard(self) -> None:
        """Forget a dead (or ended) child; the next request starts a fresh one."""
        proc = self._proc
        if proc is not None:
            self._seen.update(sentinel.end_descendants(proc.pid))
            _kill_group(proc.pid, signal.SIGKILL)
            proc.join(TERM_WAIT)
        self.close()


def _fd1_size() -> int:
    try:
        return os.fstat(1).st_size
    except OSError:
        return 0


def _fd1_read(start: int) -> bytes:
    try:
        return os.pread(1, 200, start)
    except OSError:
        return b""


def _die_with_parent(harness: int) -> None:
    """Linux: the kernel sends the child SIGKILL when the harness dies (killed by a CI timeout, say), so a
    hung child is never left behind; elsewhere the child ends when it next reads the closed channel."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
        if os.getppid() != harness:  # the harness died before prctl took effect
            os._exit(70)
    except (OSError, AttributeError):
        pass


#: Modules whose namespaces a plug-in must leave alone (the checks compute with them).
_WATCHED = ("numpy", "numpy.linalg", "numpy.random", "numpy.fft", "math", "builtins", "scipy.special",
            "scipy.stats", "scipy.linalg")


def _namespaces() -> dict[str, dict[str, Any]]:
    """A shallow copy of each watched module's namespace (references, compared by identity)."""
    return {name: dict(vars(sys.modules[name])) for name in _WATCHED if name in sys.modules}


def _replaced(before: dict[str, dict[str, Any]]) -> list[str]:
    """``module.name`` of every attribute replaced or deleted since ``before`` (new ones are lazy imports)."""
    out: list[str] = []
    for name, old in before.items():
        now = vars(sys.modules[name])
        out.extend(f"{name}.{key}" for key, value in old.items() if now.get(key, _MISSING) is not value)
    return out


_MISSING = object()


def _error_reply(config: Any, specs: dict[str, Any], request: tuple[Any, ...], exc: BaseException,
                 during: str = "") -> Any:
    """The reply to ``request`` when ``exc`` escaped the runner in the child: that check's ``error`` result, the
    preflight's problem, or the harness's header with ``{"error": ...}`` — plain data, read from ``exc`` without
    trusting it (:func:`rfverify.runner._unexpected` via the runner's calls is not importable here)."""
    from rfverify.text import plain, strip_paths, type_name

    name = config.plugin_name
    what = {"preflight": "the preflight call", "check": f"check {request[-1]}"}.get(request[0], "the metrics")
    if guard.exhaustion(exc) is not None or not isinstance(exc, Exception):
        problem = str(guard.plugin_error(exc, name, f"{during}{what} (outside a call into the plug-in)"))
    else:
        problem = strip_paths(f"rfverify internal error in the child process during {during}{what}: "
                              f"{type_name(exc)}: {plain(exc)[:2000]} (please report it with the reproduce command)")
    if request[0] == "check":
        return config.context(specs[request[1]]).result("error", problem)
    if request[0] == "preflight":
        return problem
    return config.header(), ({"error": problem} if request[1] else None)


def _child_setup(out_fd: int, harness: int) -> None:
    """The supervised child's first steps: its own process group, death with the harness, the harness's signals
    unblocked, a subreaper, Ctrl-C ignored, file descriptor 1 into ``out_fd``."""
    global _IN_CHILD
    _IN_CHILD = guard.IN_CHILD = True
    try:
        os.setpgid(0, 0)  # one process group: ending the child ends what it started
    except OSError:
        pass
    _die_with_parent(harness)
    if hasattr(signal, "pthread_sigmask"):  # the harness blocks them while it waits (rfverify.containment.sentinel)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, sentinel.HARNESS_SIGNALS)
    sentinel.become_subreaper()  # orphans of the plug-in stay in this child's tree, in the harness's reach
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the harness's to handle
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.dup2(out_fd, 1)


def _restore_preflight(config: Any, limits: Limits, preflight: Any, how: str) -> None:
    """A fresh child after a death: ``rerun`` rebuilds what the preflight sets on the configuration (its verdict is
    known); ``recover`` (it failed) runs what the checks need without it, where the kind says."""
    if how == "rerun":
        try:
            preflight(config, limits)
        except Exception:  # noqa: BLE001 - the parent already has the preflight's verdict
            pass
    elif how == "recover":
        try:
            with guard.guarded(config.plugin_name, "the preflight's decisions", limits):
                getattr(config, "after_failed_preflight", lambda: None)()
        except Exception:  # noqa: BLE001 - then the checks run on the declarations alone
            pass


def _serve(config: Any, limits: Limits, calls: tuple[Any, Any, Any], specs: dict[str, Any],
           request: tuple[Any, ...]) -> tuple[str, Any]:
    """One request's reply: ("ok", value), or ("raise", UsageError) for the caller's own mistake."""
    preflight, run_check, run_metrics = calls
    op = request[0]
    try:
        if op == "preflight":
            return ("ok", preflight(config, limits))
        if op == "check":
            return ("ok", run_check(config, specs[request[1]], None, limits))
        metrics = run_metrics(config, limits) if request[1] and hasattr(config, "metrics") else None  # finish
        return ("ok", (config.header(), metrics))
    except UsageError as exc:
        return ("raise", UsageError(plain(exc)))
    except BaseException as exc:  # noqa: BLE001 - an error record, whatever it is (SIGINT is ignored here:
        # a KeyboardInterrupt is the plug-in's too); the parent never re-raises it
        return ("ok", _error_reply(config, specs, request, exc))


def _child_main(conn: Any, config: Any, limits: Limits, calls: tuple[Any, Any, Any], page: mmap.mmap, out_fd: int,
                rerun_preflight: str, harness: int) -> None:
    """The child's loop: one request, one reply, until ``close`` or the end of the channel."""
    code = 0
    try:
        _child_setup(out_fd, harness)
        guard.supervise_child(page, _FORK_AT, os.getpid())
        _restore_preflight(config, limits, calls[0], rerun_preflight)
        specs = {s.name: s for s in config.checks()}
        patched: list[str] = []
        while not patched:
            try:
                request = conn.recv()
            except (EOFError, OSError):
                break
            op = request[0]
            if op == "close":
                break
            before = _namespaces()
            out_start = _fd1_size()
            reply = _serve(config, limits, calls, specs, request)
            try:
                sys.stdout.flush()
            except (OSError, ValueError, AttributeError):
                pass
            written = _fd1_size() - out_start
            first = _fd1_read(out_start) if written > 0 else b""
            patched = _replaced(before)
            if patched and reply[0] == "ok" and op in ("preflight", "check"):
                what = "the preflight call" if op == "preflight" else f"check {request[1]}"
                problem = str(PluginError(
                    config.plugin_name,
                    f"replaced {', '.join(patched[:5])}{' ...' if len(patched) > 5 else ''} during {what} "
                    f"(last call into the plug-in: {guard._last_call()})",
                    "a plug-in must not monkey-patch numpy, math or builtins (every check after it would "
                    "compute with the replacement); this child process is discarded"))
                reply = ("ok", problem if op == "preflight" else
                         config.context(specs[request[1]]).result("error", problem))
            if patched or guard.EXHAUSTED:  # numpy replaced, or descriptors/memory/stack used up: a fresh child next
                reply = ("retire", reply[1]) if reply[0] == "ok" else reply
                patched = patched or list(guard.EXHAUSTED)
            try:
                conn.send((*reply, written, first))
            except BaseException as exc:  # noqa: BLE001 - e.g. a result holding something that cannot be pickled
                conn.send(("ok", _error_reply(config, specs, request, exc, "sending the result of "), written, first))
    except BaseException:  # noqa: BLE001 - nothing of the child may run the harness's code
        code = 70
    finally:
        os._exit(code)


@atexit.register
def _close_all() -> None:
    """End every child before multiprocessing's own exit handler would wait for them."""
    for sup in list(_LIVE):
        try:
            sup.close()
        except Exception:  # noqa: BLE001 - at exit, best effort
            pass

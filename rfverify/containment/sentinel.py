"""The harness's own defences while a supervised child runs plug-in code (:mod:`rfverify.containment.supervise`): signals the
plug-in sends to the harness, a harness stopped by ``SIGSTOP``, and every descendant a check leaves behind.

Signals (``SIGTERM``, ``SIGINT``, ``SIGHUP``)
    While a supervisor has a child, the harness's main thread **blocks** these signals and collects them with
    :func:`signal.sigtimedwait` between two looks at the child (every :data:`rfverify.containment.supervise.POLL` s).  The
    kernel's ``siginfo`` names the sender: a signal from the child or one of its descendants (``si_pid``, also one
    seen earlier and gone since) ends the running check as an ``error`` — the harness carries on and writes its
    report; a signal from anyone else (the user's Ctrl-C, a CI timeout, ``kill``) is honoured: the children are
    ended and the signal is delivered again with the harness's previous disposition (Ctrl-C: exit 130, SIGTERM:
    143).  A mask is per thread, so a signal the kernel hands to another thread of the harness (a progress bar's
    refresh thread, a thread of the calling program) cannot be attributed; it keeps its ordinary effect — the run
    ends by it, never with exit 0.  Why the sender's pid and not a handler: a Python handler never learns who sent
    a signal, and ignoring these signals would also ignore the user's Ctrl-C and a CI's timeout.
``SIGSTOP``
    cannot be blocked, caught or ignored: a stopped process runs no code at all.  A **watchdog** (a forked process of
    a few lines, in its own process group, killed with the harness by ``PR_SET_PDEATHSIG``) looks at the harness
    every :data:`WATCH` s and, when it finds it stopped while a check runs, resumes it (``SIGCONT``) and counts it
    on a shared page; the harness ends that check as an ``error``.  A stop the user asked for (Ctrl-Z, ``SIGTSTP``)
    is marked on the page by the harness's ``SIGTSTP`` handler first and left alone.  Where the watchdog cannot run
    (no ``fork``), a stopped harness stays stopped, as any process does.
Descendants
    The harness and every supervised child are **child subreapers** (``prctl(PR_SET_CHILD_SUBREAPER)``, Linux): a
    process orphaned under a check — a daemon that double-forks, a grandchild in a new session — is re-parented to
    the child (or, once the child is gone, to the harness) instead of to init, so it stays in reach.  When a request
    ends, every descendant of the child is killed (:func:`end_descendants`, in rounds until none is left); when a
    child dies or is ended, so are the orphans it leaves to the harness.  None of them then holds the caller's
    stdout or stderr after rfverify returns.  Elsewhere (macOS) the descendants still in the child's tree are
    found and killed the same way (psutil); an orphan that left it cannot be found.
"""

from __future__ import annotations

import mmap
import os
import signal
import sys
import threading
import time
from typing import Any, Iterable

import psutil

__all__ = ["SignalGate", "Watchdog", "become_subreaper", "cpu_seconds", "memory_bytes", "descendants", "end_descendants", "direct_children",
           "HARNESS_SIGNALS", "WATCH"]

#: The signals a plug-in could use to end the harness, attributed by their sender.
HARNESS_SIGNALS = tuple(getattr(signal, n) for n in ("SIGTERM", "SIGINT", "SIGHUP") if hasattr(signal, n))
#: Seconds between two looks of the watchdog at the harness.
WATCH = 0.1
#: Rounds of killing a child's descendants (a fork between the scan and the kill is found in the next round).
_ROUNDS = 20
_PR_SET_CHILD_SUBREAPER = 36
_PR_SET_PDEATHSIG = 1


def _prctl(option: int, value: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def become_subreaper() -> bool:
    """Make this process a child subreaper (Linux): orphaned descendants are re-parented to it."""
    return _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def _psutil() -> Any:
    try:
        import psutil
    except ImportError:  # pragma: no cover - a dependency
        return None
    return psutil


def descendants(pid: int) -> list[int]:
    """The pids of every live descendant of ``pid`` (children, grandchildren, ...; zombies included)."""
    psutil = _psutil()
    if psutil is None:
        return []
    try:
        return [p.pid for p in psutil.Process(pid).children(recursive=True)]
    except (psutil.Error, OSError):
        return []


def direct_children() -> set[int]:
    """The pids of this process's children."""
    psutil = _psutil()
    if psutil is None:
        return set()
    try:
        return {p.pid for p in psutil.Process().children()}
    except (psutil.Error, OSError):
        return set()


def _kill(pids: Iterable[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError, OSError):
            pass


def _reap(pids: Iterable[int]) -> None:
    """Collect the exit status of those of ``pids`` that are this process's children (no zombie is left)."""
    for pid in pids:
        for _ in range(50):
            try:
                done, _status = os.waitpid(pid, os.WNOHANG)
            except (ChildProcessError, OSError):
                break
            if done:
                break
            time.sleep(0.01)


def end_descendants(pid: int | None, orphans: Iterable[int] = ()) -> list[int]:
    """Kill every descendant of ``pid`` (not ``pid`` itself) and the ``orphans`` (processes re-parented to this one),
    round after round until none is left; reap the ones that are this process's children.  The pids killed."""
    killed: list[int] = []
    extra = list(orphans)
    for _ in range(_ROUNDS):
        found = [p for p in (descendants(pid) if pid is not None else []) if p not in killed] + [p for p in extra if p not in killed]
        for p in extra:
            found.extend(q for q in descendants(p) if q not in killed and q not in found)
        extra = []
        if not found:
            break
        _kill(found)
        killed.extend(found)
    if killed:
        mine = direct_children()
        _reap([p for p in killed if p in mine])
    return killed


class SignalGate:
    """``HARNESS_SIGNALS`` blocked on the harness's main thread while children run, collected with their sender.

    :meth:`open` blocks (only on the main thread, where the signals would otherwise run their handlers), :meth:`take`
    returns ``(signal, sender pid)`` of every pending one, :meth:`close` unblocks and returns what was still pending.
    """

    def __init__(self) -> None:
        self._old: set[int] | None = None

    @property
    def active(self) -> bool:
        return self._old is not None

    def open(self) -> None:
        if self._old is not None or not hasattr(signal, "pthread_sigmask") or not hasattr(signal, "sigtimedwait"):
            return
        if threading.current_thread() is not threading.main_thread():
            return
        self._old = set(signal.pthread_sigmask(signal.SIG_BLOCK, HARNESS_SIGNALS))
        self._wanted = {s for s in HARNESS_SIGNALS if s not in self._old}

    def take(self) -> list[tuple[int, int]]:
        """Every pending signal of ``HARNESS_SIGNALS`` that the harness did not block before: (number, sender)."""
        if self._old is None:
            return []
        if hasattr(signal, "sigpending") and not (signal.sigpending() & self._wanted):
            return []  # nothing pending: one system call
        wanted = sorted(self._wanted)
        out = []
        while wanted:
            try:
                info = signal.sigtimedwait(wanted, 0)
            except (OSError, ValueError):
                break
            if info is None:
                break
            out.append((info.si_signo, info.si_pid))
        return out

    def close(self) -> list[tuple[int, int]]:
        pending = self.take()
        if self._old is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, self._old)
            self._old = None
        return pending


def _user_stop(page: mmap.mmap) -> None:
    """SIGTSTP (Ctrl-Z) while children run: the user's stop, which the watchdog must not undo."""
    page[_USER_STOP] = 1
    try:
        os.kill(os.getpid(), signal.SIGSTOP)
    finally:
        page[_USER_STOP] = 0


def redeliver(signals: Iterable[tuple[int, int]]) -> None:
    """Deliver again, to this process, signals that came from outside (after the gate is closed).  A signal still
    blocked here (a mask the harness inherited, another gate open) would wait and let the harness go on with its
    child already ended; it is taken back and acted on now: SIGINT as KeyboardInterrupt, another by its handler or
    default action, unblocked."""
    for num, _sender in signals:
        signal.raise_signal(num)
        if hasattr(signal, "sigpending") and num in signal.sigpending():
            signal.sigtimedwait([num], 0)
            if num == signal.SIGINT:
                raise KeyboardInterrupt
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [num])
            signal.raise_signal(num)


#: Page layout: [0] a child is running, [1] the user stopped the harness, [2:6] resumes counted (little endian).
_RUNNING, _USER_STOP, _COUNT = 0, 1, 2


class Watchdog:
    """A forked process that resumes a harness stopped (``SIGSTOP``) while a child runs (see the module doc); the
    harness's ``SIGTSTP`` handler (main thread only) marks a stop the user asked for, which it leaves alone."""

    def __init__(self) -> None:
        self.page = mmap.mmap(-1, 16)
        self.pid: int | None = None
        self._tstp: Any = None

    def start(self) -> None:
        if self.pid is not None or not hasattr(os, "fork") or _psutil() is None:
            return
        harness = os.getpid()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the watchdog process (covered by tests through its effect)
            code = 0
            try:
                _watch(harness, self.page)
            except BaseException:  # noqa: BLE001 - never run the harness's code here
                code = 70
            finally:
                os._exit(code)
        self.pid = pid
        self.page[_RUNNING] = 1
        if hasattr(signal, "SIGTSTP") and threading.current_thread() is threading.main_thread():
            page = self.page
            try:
                self._tstp = signal.signal(signal.SIGTSTP, lambda *_: _user_stop(page))
            except (ValueError, OSError):
                self._tstp = None

    @property
    def resumes(self) -> int:
        return int.from_bytes(self.page[_COUNT:_COUNT + 4], "little")

    def stop(self) -> None:
        pid, self.pid = self.pid, None
        self.page[_RUNNING] = 0
        if self._tstp is not None:
            try:
                signal.signal(signal.SIGTSTP, self._tstp)
            except (ValueError, OSError, TypeError):
                pass
            self._tstp = None
        if pid is not None:
            _kill([pid])
            _reap([pid])


def _watch(harness: int, page: mmap.mmap) -> None:  # pragma: no cover - runs in the watchdog process
    try:
        os.setpgid(0, 0)  # out of the terminal's process group: Ctrl-C and Ctrl-Z are not for it
    except OSError:
        pass
    null = os.open(os.devnull, os.O_RDWR)  # it holds none of the caller's streams, pipes or files
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.closerange(3, 1 << 16)
    for num in HARNESS_SIGNALS:
        signal.signal(num, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    psutil = _psutil()
    proc = psutil.Process(harness)
    while os.getppid() == harness:
        time.sleep(WATCH)
        try:
            stopped = proc.status() == psutil.STATUS_STOPPED
        except psutil.Error:
            return
        if stopped and page[_RUNNING] and not page[_USER_STOP]:
            count = int.from_bytes(page[_COUNT:_COUNT + 4], "little") + 1
            page[_COUNT:_COUNT + 4] = count.to_bytes(4, "little")
            os.kill(harness, signal.SIGCONT)


def memory_bytes(pid: int, field: int) -> int | None:
    """Bytes of process ``pid`` (field 0: address space, 1: resident), from psutil (Linux, macOS); None when the
    process is gone or the platform does not say."""
    try:
        info = psutil.Process(pid).memory_info()
        return int(info.vms if field == 0 else info.rss)
    except (psutil.Error, OSError, ValueError):
        return None


def cpu_seconds(pid: int, main_thread: bool = False) -> float | None:
    """User + system CPU seconds of process ``pid`` (all its threads; ``main_thread``: its main thread's), from psutil:
    the same rule on Linux and macOS; None when the process is gone or the platform does not say."""
    try:
        proc = psutil.Process(pid)
        if not main_thread:
            t = proc.cpu_times()
            return float(t.user + t.system)
        threads = proc.threads()  # the main thread: id == pid on Linux, listed first on macOS
        main = next((th for th in threads if th.id == pid), threads[0] if threads else None)
        return None if main is None else float(main.user_time + main.system_time)
    except (psutil.Error, OSError, ValueError, IndexError):
        return None

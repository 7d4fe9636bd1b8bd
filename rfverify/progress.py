"""Progress on stderr for long runs, through `rich <https://rich.readthedocs.io>`_.

On a terminal a live bar (steps done / total, the step running, elapsed time and an estimate of the time
left) that disappears when the run ends; elsewhere (a pipe, a CI log) one plain line per completed step,
never a control character.  ``quiet=True`` shows nothing, and ``delay`` keeps a quick run silent: nothing is
drawn or printed before ``delay`` seconds have passed (the lines of steps completed meanwhile are printed
then, so a log is complete).

Progress never touches results: the checks report to it through :data:`rfverify.runner.CHECK_HOOK`, the
other long runs (claims, zoo entries, calibration units) through their ``progress`` callbacks.

Fork safety: the live bar redraws from rich's refresh thread while the supervisor forks plug-in children
(:mod:`rfverify.supervise`).  Every write of the bar goes through a lock that ``os.register_at_fork`` takes
before each fork, so a child never inherits stderr's buffer half-written and locked by a thread it does not
have; the first frame is drawn on the calling thread, so rich's lazy imports never run on the refresh thread.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
import threading
import time
from typing import IO, TYPE_CHECKING, Any, Iterator, cast

from rfverify.text import plural

if TYPE_CHECKING:
    from rich.progress import Progress as RichProgress, TaskID

    from rfverify.results import CheckResult, Report

__all__ = ["Progress"]


#: Held by every write of a live bar, and by os.fork (see the module docstring).
_WRITE_LOCK = threading.RLock()
_FORK_HOOK: list[bool] = []


def _child_after_fork() -> None:
    global _WRITE_LOCK
    _WRITE_LOCK = threading.RLock()  # the child has no refresh thread; start with a free lock


def _install_fork_hook() -> None:
    """Once per process, when the first live bar is made (never at import time)."""
    if not _FORK_HOOK and hasattr(os, "register_at_fork"):
        os.register_at_fork(before=lambda: _WRITE_LOCK.acquire(), after_in_parent=lambda: _WRITE_LOCK.release(),
                            after_in_child=_child_after_fork)
        _FORK_HOOK.append(True)


class _LockedStream:
    """``stream`` whose writes and flushes hold :data:`_WRITE_LOCK` (everything else passes through)."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        with _WRITE_LOCK:
            return self._stream.write(text)

    def flush(self) -> None:
        with _WRITE_LOCK:
            self._stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _short(name: str) -> str:
    """``pkg.mod:Cls`` -> ``Cls`` for the bar (the log lines keep the full name)."""
    return re.split(r"[:]", name)[-1] if ":" in name else name


class Progress:
    """Progress over ``total`` steps (implementations, claims, units) on ``stream`` (default stderr).

    ``interactive`` defaults to ``stream.isatty()``; ``what`` names a step in the bar (``"claim"``).
    Use as a context manager, or call :meth:`finish` at the end.
    """

    def __init__(self, total: int, *, stream: IO[str] | None = None, interactive: bool | None = None,
                 quiet: bool = False, delay: float = 0.0, what: str = "implementation") -> None:
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        if interactive is None:
            isatty = getattr(self.stream, "isatty", None)
            interactive = bool(isatty and isatty())
        self.interactive = interactive
        self.quiet = quiet
        self.delay = delay
        self.what = what
        self.index = 0
        self.name = ""
        self.t_start = time.perf_counter()
        self.t_entry = self.t_start
        self.t_check = self.t_start
        self._pending: list[str] = []  # plain lines held back during the delay
        self._lock = threading.Lock()
        self._bar: RichProgress | None = None
        self._task: TaskID | None = None
        self._timer: threading.Timer | None = None
        self._finished = False
        self._last_line = -float("inf")
        if self.interactive and not self.quiet:
            self._make_bar()
            if self.delay > 0:
                self._timer = threading.Timer(self.delay, self._start_bar)
                self._timer.daemon = True
                self._timer.start()
            else:
                self._start_bar()

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc: object) -> None:
        self.finish()

    # ---------------------------------------------------------------- the live bar (rich)
    def _make_bar(self) -> None:
        from rich.console import Console
        from rich.progress import (BarColumn, Progress as RichProgress, TextColumn, TimeElapsedColumn,
                                   TimeRemainingColumn)

        _install_fork_hook()
        # the proxy forwards every other attribute to the stream (__getattr__): an IO[str] by duck typing
        console = Console(file=cast(IO[str], _LockedStream(self.stream)), force_terminal=True, highlight=False, soft_wrap=False)
        self._bar = RichProgress(BarColumn(bar_width=20), TimeElapsedColumn(), TextColumn("· about"),
                                 TimeRemainingColumn(), TextColumn("left ·"), TextColumn("{task.description}"),
                                 console=console, transient=True, auto_refresh=True, refresh_per_second=4)
        self._task = self._bar.add_task("starting", total=self.total or None)
        # render a first frame off-screen here, so rich's lazy imports happen on this thread, not the refresher's
        Console(file=io.StringIO(), force_terminal=True, width=80).print(self._bar.get_renderable())

    def _start_bar(self) -> None:
        with self._lock:
            if self._finished or self._bar is None or self._bar.live.is_started:
                return
            self._bar.start()

    def _update(self, description: str, completed: float) -> None:
        if self._bar is not None and self._task is not None:  # made together
            self._bar.update(self._task, description=description, completed=completed, total=self.total or None)

    # ---------------------------------------------------------------- plain lines
    def _emit(self, text: str) -> None:
        """One line above the bar (terminal) or in the log; held back during the delay."""
        if self.quiet:
            return
        with self._lock:
            if time.perf_counter() - self.t_start < self.delay:
                self._pending.append(text)
                return
            lines, self._pending = self._pending + [text], []
        for line in lines:
            if self._bar is not None and self._bar.live.is_started:
                self._bar.console.print(line, markup=False, highlight=False)
            else:
                print(line, file=self.stream, flush=True)

    # ---------------------------------------------------------------- events
    @contextlib.contextmanager
    def entry(self, index: int, name: str) -> Iterator[None]:
        """Track one implementation (1-based ``index``); installs the per-check hook meanwhile."""
        from rfverify.runner import CHECK_HOOK

        self.index, self.name = index, name
        self.t_entry = time.perf_counter()
        token = CHECK_HOOK.set(self.check)
        try:
            yield
        finally:
            CHECK_HOOK.reset(token)

    def check(self, check: str, i: int, n: int, result: CheckResult | None) -> None:
        """The runner's hook: before (``result`` None) and after check ``i`` of ``n``."""
        if result is None:
            self.t_check = time.perf_counter()
        else:
            i += 1
            if not self.interactive:
                self._emit(f"[{self.index}/{self.total}] {self.name} / {check}: {result.status} "
                           f"({time.perf_counter() - self.t_check:.1f} s)")
        where = f"{self.index}/{self.total} {_short(self.name)}" if self.total > 1 else _short(self.name)
        self._update(f"{where}: {i}/{plural(n, 'check')} done, running {check}" if result is None
                     else f"{where}: {i}/{plural(n, 'check')} done", self.index - 1 + (i / n if n else 0))

    def done(self, report: Report) -> None:
        """One implementation finished."""
        verdict = {0: "passed", 1: "FAILED"}.get(report.exit_code, "ERROR")
        self.step(self.index, self.name, verdict, time.perf_counter() - self.t_entry)

    def step(self, index: int, name: str, status: str = "", seconds: float | None = None) -> None:
        """Step ``index`` (1-based, counted in completion order) finished: one line, the bar advanced."""
        took = f" ({seconds:.1f} s)" if seconds is not None else ""
        self._emit(f"[{index}/{self.total}] {name}{': ' + status if status else ''}{took}")
        self._update(f"{index}/{plural(self.total, self.what)} done (last: {_short(name)})", index)

    def units(self, done: int, total: int, label: str, every: float = 15.0) -> None:
        """Many small units (calibration): the bar on a terminal; off it, a line every ``every`` seconds and at
        the end (``label: done/total units, elapsed, about N min left``) instead of one per unit."""
        self.total = total
        if self._bar is not None and self._task is not None:  # made together
            self._bar.update(self._task, total=total, completed=done, description=label)
        now = time.perf_counter()
        if self.interactive or (done != total and now - self._last_line < every):
            return
        self._last_line = now
        elapsed = now - self.t_start
        eta = elapsed / done * (total - done) if done else float("nan")
        self._emit(f"{label}: {done}/{total} units, {elapsed / 60:.1f} min, about {eta / 60:.1f} min left")

    def running(self, name: str) -> None:
        """Name the step running now (shown in the bar only)."""
        self._update(name, self._task_completed())

    def _task_completed(self) -> float:
        if self._bar is None:
            return 0.0
        return float(self._bar.tasks[0].completed)

    def note(self, text: str) -> None:
        """A line for the log (and above the bar on a terminal)."""
        self._emit(text)

    def finish(self) -> None:
        """Stop the bar (it disappears) and print any line still held back."""
        with self._lock:
            self._finished = True
            if self._timer is not None:
                self._timer.cancel()
            bar, self._bar = self._bar, None
        if bar is not None and bar.live.is_started:
            bar.stop()
        if self._pending and time.perf_counter() - self.t_start >= self.delay:
            lines, self._pending = self._pending, []
            for line in lines:
                print(line, file=self.stream, flush=True)
        self._pending = []

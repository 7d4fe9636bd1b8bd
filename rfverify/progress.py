"""Progress display for long report runs (stderr): a bar on a terminal, one line per check otherwise.

Progress never touches results: it listens through :data:`rfverify.runner.CHECK_HOOK`.
"""

from __future__ import annotations

import contextlib
import shutil
import sys
import time
from typing import IO, Any, Iterator

__all__ = ["Progress"]


class Progress:
    """Progress over ``total`` implementations; ``interactive`` defaults to ``stream.isatty()``."""

    def __init__(self, total: int, *, stream: IO[str] | None = None, interactive: bool | None = None) -> None:
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        if interactive is None:
            isatty = getattr(self.stream, "isatty", None)
            interactive = bool(isatty and isatty())
        self.interactive = interactive
        self.index = 0
        self.name = ""
        self.t_start = time.perf_counter()
        self.t_entry = self.t_start
        self.t_check = self.t_start

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

    def check(self, check: str, i: int, n: int, result: Any) -> None:
        if result is None:
            self.t_check = time.perf_counter()
            if self.interactive:
                self._bar(i, n, check)
            return
        if not self.interactive:
            self._line(f"[{self.index}/{self.total}] {self.name} / {check}: {result.status} "
                       f"({time.perf_counter() - self.t_check:.1f} s)")
        else:
            self._bar(i + 1, n, check)

    def done(self, report: Any) -> None:
        """One implementation finished."""
        verdict = {0: "passed", 1: "FAILED"}.get(report.exit_code, "ERROR")
        text = f"[{self.index}/{self.total}] {self.name}: {verdict} ({time.perf_counter() - self.t_entry:.1f} s)"
        if self.interactive:
            self._clear()
        self._line(text)

    def note(self, text: str) -> None:
        if self.interactive:
            self._clear()
        self._line(text)

    def finish(self) -> None:
        if self.interactive:
            self._clear()

    # ---------------------------------------------------------------- drawing
    def _line(self, text: str) -> None:
        print(text, file=self.stream, flush=True)

    def _clear(self) -> None:
        self.stream.write("\r\033[K")
        self.stream.flush()

    def _bar(self, i: int, n: int, check: str) -> None:
        done = (self.index - 1 + (i / n if n else 1.0)) / max(1, self.total)
        width = max(10, min(30, shutil.get_terminal_size((80, 20)).columns - 60))
        fill = int(round(done * width))
        elapsed = time.perf_counter() - self.t_start
        text = (f"[{'#' * fill}{'.' * (width - fill)}] {self.index}/{self.total} {self.name} · {check} "
                f"{int(elapsed // 60)}:{int(elapsed % 60):02d}")
        cols = shutil.get_terminal_size((80, 20)).columns
        self.stream.write("\r\033[K" + text[: max(10, cols - 1)])
        self.stream.flush()

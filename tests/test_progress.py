"""Progress on stderr (rfverify.progress): plain lines off a terminal, a rich bar on one, nothing with quiet,
and nothing for a run shorter than the delay (``rfverify check`` waits one second)."""

from __future__ import annotations

import io
import time

from rfverify.progress import Progress
from rfverify.results import CheckResult


def _run(p: Progress, n: int = 2) -> None:
    with p.entry(1, "pkg.mod:Impl"):
        from rfverify.runner import CHECK_HOOK

        hook = CHECK_HOOK.get()
        for i in range(n):
            hook(f"c{i}", i, n, None)
            hook(f"c{i}", i, n, CheckResult(f"c{i}", "x", "pass", "ok"))


def test_plain_lines_off_a_terminal() -> None:
    buf = io.StringIO()
    with Progress(1, stream=buf) as p:  # StringIO is not a terminal
        _run(p)
        p.step(1, "pkg.mod:Impl", "passed", 1.0)
    lines = buf.getvalue().splitlines()
    assert [x.split(" (")[0] for x in lines] == ["[1/1] pkg.mod:Impl / c0: pass", "[1/1] pkg.mod:Impl / c1: pass",
                                                 "[1/1] pkg.mod:Impl: passed"]


def test_quiet_prints_nothing_and_a_short_run_stays_silent() -> None:
    for kwargs in ({"quiet": True}, {"delay": 3600.0}, {"delay": 3600.0, "interactive": True}):
        buf = io.StringIO()
        with Progress(1, stream=buf, **kwargs) as p:
            _run(p)
            p.step(1, "pkg.mod:Impl", "passed", 0.1)
        assert buf.getvalue() == "", kwargs


def test_lines_held_during_the_delay_are_printed_after_it() -> None:
    """The broken twin of the test above: past the delay, every line comes out, the early ones first."""
    buf = io.StringIO()
    with Progress(1, stream=buf, delay=0.05) as p:
        _run(p, 1)
        assert buf.getvalue() == ""
        time.sleep(0.1)
        p.step(1, "pkg.mod:Impl", "passed", 0.1)
    assert buf.getvalue().splitlines()[0].startswith("[1/1] pkg.mod:Impl / c0: pass")
    assert len(buf.getvalue().splitlines()) == 2


def test_units_are_throttled_off_a_terminal() -> None:
    buf = io.StringIO()
    with Progress(0, stream=buf) as p:
        for i in range(1, 101):
            p.units(i, 100, "calibrate", every=3600.0)
    lines = buf.getvalue().splitlines()
    assert len(lines) == 2 and lines[0].startswith("calibrate: 1/100 units") and lines[1].startswith("calibrate: 100/100")


def test_a_fork_waits_for_a_bar_write_in_progress() -> None:
    """The supervisor forks plug-in children while the bar's refresh thread may be writing: os.fork must wait
    until the write is done (else the child inherits stderr's buffer locked).  Without the at-fork hook the fork
    below returns while the write still holds the lock, and the first assertion fails."""
    import os
    import threading

    from rfverify import progress as pg

    entered, release = threading.Event(), threading.Event()

    class SlowTerminal(io.StringIO):
        def write(self, s: str) -> int:
            entered.set()
            release.wait(30)
            return len(s)

        def isatty(self) -> bool:
            return True

    p = Progress(1, stream=SlowTerminal(), interactive=True, delay=3600.0)  # a live bar made, not yet drawn
    writer = threading.Thread(target=lambda: pg._LockedStream(p.stream).write("frame"))
    writer.start()
    assert entered.wait(30)
    forked: list[int] = []

    def fork() -> None:
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        forked.append(pid)

    forker = threading.Thread(target=fork)
    forker.start()
    forker.join(0.5)
    try:
        assert forker.is_alive() and not forked, "os.fork ran while a bar write held stderr"
    finally:
        release.set()
        writer.join(30)
        forker.join(30)
        p.finish()
    assert forked and os.waitpid(forked[0], 0)[1] == 0

"""Import a plug-in named on the command line in a throw-away child first (:func:`probe`), so that what its module
does at import — ``os._exit(0)``, a segfault, a hang, a signal to the harness — ends that child, not the run.

The CLI builds its configuration (importing ``MODULE:ATTR`` and detecting the plug-in's form) in a forked child
before it does so itself; the child answers with one line (or nothing, if it died) and is ended.  Only when the
child built the configuration cleanly does the harness build it too: a module that exits, crashes, hangs or
signals at import gives a report whose every check is an ``error`` naming what happened, and exit 2.  What a
module changes *in* the process at import (a patched numpy, an environment variable) still happens in the
harness when it imports the module after the probe; rfverify's own environment was read before (see
:func:`rfverify.containment.supervise.freeze_settings`).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from typing import Any, Callable

from rfverify.containment import sentinel
from rfverify.text import clean, plain, type_name

__all__ = ["probe"]


def _child(conn: Any, build: Callable[[], Any]) -> None:
    code = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        null = os.open(os.devnull, os.O_WRONLY)  # what the module prints is shown once, by the harness's import
        os.dup2(null, 1)
        os.dup2(null, 2)
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_UNBLOCK, sentinel.HARNESS_SIGNALS)
        sentinel.become_subreaper()
        from rfverify.containment import supervise

        supervise._IN_CHILD = True  # a throw-away process: the configuration is built here whole, no plug-in process
        try:
            build()
            reply = ""
        except BaseException as exc:  # noqa: BLE001 - the harness builds it again and reports it as usual
            reply = f"{type_name(exc)}: {plain(exc)[:2000]}"
        conn.send(reply)
    except BaseException:  # noqa: BLE001
        code = 70
    finally:
        os._exit(code)


def probe(build: Callable[[], Any], what: str, seconds: float | None, grace: float) -> str | None:
    """Run ``build()`` in a forked child; the problem if the child died, hung past ``seconds + grace`` or signalled
    the harness (None when it returned or raised: the harness then builds and reports as usual)."""
    if not hasattr(os, "fork"):
        return None
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, build), name="rfverify:probe")
    gate = sentinel.SignalGate()
    gate.open()
    problem: str | None = None
    seen: set[int] = set()
    try:
        proc.start()
        child.close()
        start = time.monotonic()
        assert proc.pid is not None  # started
        seen = {proc.pid}
        while True:
            seen.update(sentinel.descendants(proc.pid))
            mine = [(n, p) for n, p in gate.take() if p in seen]
            if mine:
                problem = f"{what} sent {signal.Signals(mine[0][0]).name} to the rfverify harness"
                break
            if parent.poll(0.1):
                try:
                    parent.recv()
                except (EOFError, OSError):
                    proc.join(2)
                    problem = _death(what, proc.exitcode)
                proc.join(2)  # it exits right after answering: a signal it sent before is pending by then
                mine = [(n, p) for n, p in gate.take() if p in seen]
                if mine:
                    problem = f"{what} sent {signal.Signals(mine[0][0]).name} to the rfverify harness"
                break
            if not proc.is_alive():
                problem = _death(what, proc.exitcode) if not parent.poll(0) else None
                if problem is None:
                    continue
                break
            if seconds is not None and time.monotonic() - start > seconds + grace:
                problem = f"{what} did not finish within the time limit of {seconds:g} s"
                break
    finally:
        sentinel.end_descendants(proc.pid) if proc.pid else None
        if proc.is_alive():
            proc.kill()
        proc.join(5)
        parent.close()
        theirs = [(n, p) for n, p in gate.close() if p not in seen]
        if theirs:
            sentinel.redeliver(theirs)
    return None if problem is None else clean(problem, one_line=True)


def _death(what: str, code: int | None) -> str:
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"{what} ended the process: killed by {name}"
    return f"{what} ended the process with exit code {code} (os._exit or a C-level exit)"

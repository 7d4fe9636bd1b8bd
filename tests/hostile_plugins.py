"""Plug-ins that attack the harness itself (tests/test_hostile.py): exceptions that cannot be shown, resources
used up, signals sent to the harness, descendants left behind, hangs that must cost one limit only, a crash on
the first calls, and link syntax meant for the Markdown report.

Like tests/faulty_plugins.py's ``H*`` plug-ins, each misbehaves in ``transform`` when asked for
:data:`~tests.faulty_plugins.HOSTILE_M` (64) components (the ``contract`` check), so ``unbiasedness`` (m = 256)
still runs and passes — unless its docstring says otherwise.  The plug-ins that send signals to "the harness"
send them to ``os.getppid()``: the supervised child's parent.
"""

from __future__ import annotations

import os
import signal
import sys
import time

from tests.faulty_plugins import HOSTILE_M, Features, _Hostile

#: Where the descendants of :class:`HGrandchildSession` write their pid (set by the test through the
#: environment, read in the child).
PID_FILE_ENV = "RFVERIFY_TEST_PID_FILE"
#: Where :class:`HCrashesFirstCalls` counts its calls (across processes).
COUNT_FILE_ENV = "RFVERIFY_TEST_COUNT_FILE"


class _Boom(BaseException):
    """A BaseException raised from inside ``__str__``."""


class _Unprintable(Exception):
    def __str__(self) -> str:
        raise _Boom("__str__ says no")

    def __repr__(self) -> str:
        raise _Boom("__repr__ says no")


class HStrRaisesBaseException(_Hostile):
    """Raises an exception whose ``__str__`` and ``__repr__`` raise a BaseException."""

    def fault(self):
        raise _Unprintable()


class _EvilStr(str):
    """A ``str`` whose every method a harness might call raises."""

    def __len__(self):
        raise RuntimeError("len")

    def strip(self, *a):
        raise RuntimeError("strip")

    def splitlines(self, *a):
        raise RuntimeError("splitlines")

    def encode(self, *a, **k):
        raise RuntimeError("encode")

    def isascii(self):
        raise RuntimeError("isascii")

    def __getitem__(self, key):
        raise RuntimeError("getitem")


class _ReturnsEvilStr(Exception):
    def __str__(self):
        return _EvilStr("an evil message")


class HStrSubclass(_Hostile):
    """Raises an exception whose ``__str__`` returns a misbehaving ``str`` subclass."""

    def fault(self):
        raise _ReturnsEvilStr()


class HBaseExceptionWithHugeStr(_Hostile):
    """Raises a bare BaseException with a 4 MB message."""

    def fault(self):
        raise _Boom("y" * (4 << 20))


class HSysExitUnprintable(_Hostile):
    """``sys.exit(obj)`` with an object whose ``__repr__`` raises."""

    def fault(self):
        sys.exit(_Unprintable())


class HKeyboardInterrupt(_Hostile):
    """Raises KeyboardInterrupt itself (no Ctrl-C reaches the supervised child)."""

    def fault(self):
        raise KeyboardInterrupt


class HExhaustsFds(_Hostile):
    """Opens /dev/null until the process has no descriptor left (keeping them), then opens a file by its
    absolute path: an OSError naming that path, raised while the process can open nothing."""

    held: list[int] = []

    def fault(self):
        try:
            while True:
                HExhaustsFds.held.append(os.open(os.devnull, os.O_RDONLY))
        except OSError:
            pass
        with open(os.path.abspath(__file__), "rb"):
            pass


class HRecursion(_Hostile):
    """Recurses without end."""

    def fault(self):
        def down(n):
            return down(n + 1) + 1
        return down(0)


class HSignalsHarness(_Hostile):
    """Sends ``SIG`` to the harness (the child's parent), then carries on as a correct map would."""

    SIG = signal.SIGTERM

    def fault(self):
        os.kill(os.getppid(), self.SIG)
        time.sleep(0.5)
        return None


class HSigterm(HSignalsHarness):
    SIG = signal.SIGTERM


class HSigint(HSignalsHarness):
    SIG = signal.SIGINT


class HSighup(HSignalsHarness):
    SIG = signal.SIGHUP


class HSigstop(HSignalsHarness):
    SIG = signal.SIGSTOP


class HGrandchildSession(_Hostile):
    """Starts a grandchild in a new session that sleeps 10 minutes holding the caller's stdout and stderr,
    writes its pid to the file named by ``$RFVERIFY_TEST_PID_FILE``, and returns correct features."""

    def fault(self):
        import subprocess

        proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
        path = os.environ.get(PID_FILE_ENV)
        if path:
            with open(path, "a") as fh:
                fh.write(f"{proc.pid}\n")
        return None


class HDaemonGrandchild(_Hostile):
    """Double-forks a daemon (setsid, its parent exits at once: it is orphaned) that sleeps 10 minutes."""

    def fault(self):
        pid = os.fork()
        if pid == 0:
            os.setsid()
            if os.fork() == 0:
                path = os.environ.get(PID_FILE_ENV)
                if path:
                    with open(path, "a") as fh:
                        fh.write(f"{os.getpid()}\n")
                time.sleep(600)
            os._exit(0)
        os.waitpid(pid, 0)
        return None


class HHangsAlways(Features):
    """Every transform sleeps an hour: the preflight and every check hang."""

    def transform(self, X):
        time.sleep(3600)


class HCrashesFirstCalls(Features):
    """Dies (``os._exit(1)``) on its first fit — the preflight's — and works afterwards, in every process: the
    calls are counted in the file named by ``$RFVERIFY_TEST_COUNT_FILE`` (without it, it dies on every fit with
    16 components, the preflight's and the data-dependence probe's)."""

    def fit(self, X, y=None):
        path = os.environ.get(COUNT_FILE_ENV)
        if path:
            with open(path, "a+") as fh:
                fh.seek(0)
                first = not fh.read()
                fh.write("x")
            if first:
                os._exit(1)
        elif self.n_components == 16:
            os._exit(1)
        return super().fit(X, y)


class HMarkdownLink(Features):
    """Raises with Markdown link and image syntax in its message (a javascript: URL)."""

    def transform(self, X):
        if self.n_components == HOSTILE_M:
            raise ValueError("see [click](javascript:alert(1)) and ![img](http://evil.example/x.png) <b>x</b>")
        return super().transform(X)


class HBiased(Features):
    """Features scaled by 0.8: the kernel estimate is 0.64 k — biased (unbiasedness must fail)."""

    def transform(self, X):
        return 0.8 * super().transform(X)


class HHangsAlwaysBlocking(Features):
    """Every transform blocks SIGALRM (the in-child timer cannot interrupt it) and sleeps an hour: the preflight and
    every check hang until the supervisor ends the child from outside; each hang begun is counted in the file named
    by ``$RFVERIFY_TEST_COUNT_FILE``."""

    def transform(self, X):
        path = os.environ.get(COUNT_FILE_ENV)
        if path:  # one character per hang begun, across processes
            with open(path, "a") as fh:
                fh.write("h")
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        time.sleep(3600)

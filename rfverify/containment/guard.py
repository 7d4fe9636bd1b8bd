"""One guard around the implementation under test: its faults become status ``error``, never a crash.

Two layers, both used by every plug-in kind:

* :func:`call` wraps **each call** into the plug-in (construct, fit,
  transform, sample, apply, rule).  Any exception becomes a
  :class:`~rfverify.errors.PluginError` saying what the call was and how to
  fix it; so does ``sys.exit`` (``SystemExit``) or any other
  ``BaseException`` a plug-in raises, and ``MemoryError`` gets its own
  message.  ``KeyboardInterrupt`` is **not** caught in the harness's own
  process: Ctrl-C stops the whole run (the CLI exits with 130), and a plug-in
  raising it itself cannot be told apart from the user's Ctrl-C; in a
  supervised child (which ignores ``SIGINT``) it can only be the plug-in's and
  is its error.  Whatever else it raises is read without being trusted (an
  exception whose ``__str__`` raises anything or returns a ``str`` subclass, a
  huge message: :func:`plugin_error`), and running out of file descriptors,
  memory or stack is named as such.  The per-call cost is one Python function call
  (the RFF default suite makes ~25,000 such calls).
* :class:`guarded` wraps **one check** (and the preflight call).  It

  - arms a **time limit** (the profile's ``time-limit`` in :data:`rfverify.profiles.BUDGETS`, or
    ``time_limit=`` / ``--time-limit SECONDS``; 0 disables it).  The limit is
    the **CPU time of the thread running the check** (``time.thread_time``),
    so a check on a machine whose other jobs leave it a fraction of a core is
    not ended early (at load 14 a 600 s wall-clock limit ended a
    check after 129 s of CPU), and BLAS or plug-in helper threads (which may
    spin) do not use it up.  ``signal.setitimer(ITIMER_REAL)`` fires at the
    limit in wall time (CPU time cannot run ahead of it) and then every second,
    which also repeats the interruption in case the plug-in swallows one; each
    time the check is ended if its CPU time has reached the limit, if the
    process has used less than :data:`STALL_SHARE` of one core since the check
    started (a **hang**: sleeping, waiting, deadlocked), or at
    :data:`WALL_FACTOR` times the limit of wall time (the backstop).  This needs the main thread of
    the main interpreter (the CLI, pytest and pytest-xdist workers all run
    checks there).  Code stuck inside a C extension that never returns to
    the interpreter is interrupted only when it returns.  On any other thread
    no signal can be used: the check runs to completion and is reported as
    ``error`` afterwards if it overran.  The previous ``SIGALRM`` handler and
    any running timer (its remaining time) are restored on exit, always;
  - lowers the soft **address-space limit** (``RLIMIT_AS``) to the current
    size plus a budget (:data:`DEFAULT_MEMORY_LIMIT`, or ``memory_limit=`` /
    ``--memory-limit SIZE``; 0 disables it), so an unbounded allocation ends
    in ``MemoryError`` within the budget instead of exhausting the machine;
    restored on exit.  Only where :mod:`resource` has ``RLIMIT_AS`` and on
    the main thread (the limit is per process); elsewhere ``MemoryError`` is
    still caught;
  - captures ``sys.stdout`` and ``sys.stderr`` at the Python level: anything
    the plug-in prints (it would corrupt ``--json -`` output) is an error
    quoting the first line.  Writes made by the :mod:`warnings` and
    :mod:`logging` machinery pass through to the real stream (warnings and
    log records are the host's business, not output).  Output written by C
    code straight to the file descriptors is not seen;
  - compares numpy's global random state and Python's :mod:`random` state
    before and after: a plug-in that seeds or draws from them is an error
    (its results would depend on, and disturb, the caller's state); both
    states are restored.  Checks never print or touch global state, so
    whatever changed inside the scope was done by the plug-in -- unless the
    scope imported a module for the first time (a library's import may
    draw): the baseline then moves past the imports and the next scope
    judges the plug-in's calls with its modules loaded.

Outputs are converted and validated by :func:`as_array` (``None``, ragged
lists, strings, objects, complex where not allowed, and float16 are refused)
and bounded by :data:`FEATURE_EXPANSION_LIMIT` / :data:`MAX_OUTPUT_ELEMENTS`
before any check uses them.
"""

from __future__ import annotations

import io
import math
import os
import random
import re
import signal
import sys
import threading
import time
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Callable, Literal

import numpy as np

from rfverify.errors import PluginError, UsageError
from rfverify.containment.import_watch import ImportWatch
from rfverify.profiles import budget
from rfverify.refusals import Refusal, is_refusal

__all__ = ["Limits", "DEFAULT_MEMORY_LIMIT", "FEATURE_EXPANSION_LIMIT",
           "MAX_OUTPUT_ELEMENTS", "TimeLimitExceeded", "call", "as_array", "guarded", "parse_time_limit",
           "parse_memory_limit", "format_bytes"]

#: Bytes of address space a check may add to what the process already uses.
DEFAULT_MEMORY_LIMIT = 4 << 30
#: The smallest budget accepted: OpenBLAS (numpy's BLAS) allocates its per-thread buffers on the first
#: matrix product, measured at between 32 and 64 MiB of address space on a 2-core machine (below that it
#: prints "Memory allocation still failed" and the process dies).
MIN_MEMORY_LIMIT = 64 << 20
#: A feature map asked for m components may return at most this many features per component
#: (cos/sin pairs give 2, one-hot maxout codes q); more is refused before any check uses it.
FEATURE_EXPANSION_LIMIT = 1024
#: Largest array (elements) a sampler or quadrature rule may return in one call (1 GiB of float64).
MAX_OUTPUT_ELEMENTS = 1 << 27
#: The longest time limit accepted (seconds, about four months); setitimer overflows near 9.2e9.
MAX_TIME_LIMIT = 1e7
#: After the time limit, the interruption is repeated this often (seconds) until the check stops.
REFIRE_INTERVAL = 1.0
#: A check whose wall time has reached its time limit is a hang when it has used less than this share of one
#: core since it started: a sleeping, waiting or deadlocked plug-in uses none, while a CPU-bound check starved
#: by other processes gets about cores / load of one (0.14 at load 14 on 2 cores; 0.02 only at load 100).
STALL_SHARE = 0.02
#: Wall-clock backstop, in multiples of the time limit: a check is ended then whatever CPU it uses (a plug-in
#: that keeps waking up, e.g. polling, is neither CPU-bound nor idle).
WALL_FACTOR = 10.0

_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mb": 1 << 20,
          "mib": 1 << 20, "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "tb": 1 << 40,
          "tib": 1 << 40}
_LAST = threading.local()
#: When True (the CLI's ``--debug``), the traceback of every exception a plug-in raises is written to the
#: real stderr as it happens (the message in the report stays one line).
SHOW_TRACEBACKS = False
#: Set in a supervised child (:mod:`rfverify.containment.supervise`): the shared page that tells the harness the last
#: call into the plug-in, where on it a forked copy records itself, and the child's pid.
_SHARED: tuple[Any, int, int] | None = None
#: True in a supervised child process (:mod:`rfverify.containment.supervise`), where no Ctrl-C arrives (SIGINT ignored).
IN_CHILD = False
#: Modules whose writes to sys.stdout/sys.stderr are passed through, not treated as the plug-in printing.
_PASS_THROUGH = frozenset({"warnings", "logging"})


class TimeLimitExceeded(BaseException):
    """Raised in the main thread by the time-limit alarm (a BaseException, so ``except Exception`` in a
    plug-in cannot swallow it); :class:`guarded` turns it into a :class:`PluginError`."""


def time_limit_detail(cpu: float, wall: float, limit: float) -> str:
    """Which rule of the time limit ended a check whose thread used ``cpu`` s of CPU in ``wall`` s (the message's
    tail; the hang rule is judged on the process's CPU, at least the thread's)."""
    used = f"it used {cpu:.1f} s of CPU in {wall:.1f} s of wall time"
    if cpu >= limit:
        return f"{used}: the limit counts CPU time"
    if wall < WALL_FACTOR * limit and cpu < STALL_SHARE * wall:
        return f"{used}: a hang (sleeping, waiting or deadlocked), ended once the wall time reached the limit"
    return f"{used}: ended by the wall-clock backstop at {WALL_FACTOR:g} times the limit"


def format_bytes(n: float) -> str:
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{int(n)} B"


def parse_time_limit(value: Any, option: str = "time_limit") -> float | None:
    """Seconds as a positive finite number, 0 for no limit (None); anything else is a UsageError."""
    if isinstance(value, bool):
        raise UsageError(f"{option} must be a number of seconds (0 for no limit), got {value!r}")
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise UsageError(f"{option} must be a number of seconds (0 for no limit), got {value!r}") from None
    if not math.isfinite(seconds) or seconds < 0:
        raise UsageError(f"{option} must be a finite number of seconds >= 0 (0 for no limit), got {value!r}")
    if 0 < seconds < 1e-3 or seconds > MAX_TIME_LIMIT:
        raise UsageError(f"{option} must be between 0.001 and {MAX_TIME_LIMIT:.0f} s (or 0 for no limit), "
                         f"got {value!r}")
    return seconds or None


def parse_memory_limit(value: Any, option: str = "memory_limit") -> int | None:
    """Bytes as an integer or a size such as ``512M``, ``4GiB``; 0 for no limit (None)."""
    if isinstance(value, bool):
        raise UsageError(f"{option} must be a size such as 4G or 512M (0 for no limit), got {value!r}")
    if isinstance(value, (int, np.integer)):
        n = float(value)
    else:
        m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?(?:[eE][0-9]+)?)\s*([A-Za-z]*)\s*", str(value))
        if not m or m.group(2).lower() not in _UNITS:
            raise UsageError(f"{option} must be a size such as 4G, 512M or a number of bytes (0 for no limit), "
                             f"got {value!r}")
        n = float(m.group(1)) * _UNITS[m.group(2).lower()]
    if not math.isfinite(n) or n < 0:
        raise UsageError(f"{option} must be a size >= 0 (0 for no limit), got {value!r}")
    if 0 < n < MIN_MEMORY_LIMIT:
        raise UsageError(f"{option} must be at least {MIN_MEMORY_LIMIT >> 20}M (numpy's BLAS reserves tens of MiB "
                         f"of address space on its first matrix product), or 0 for no limit; got {value!r}")
    return int(n) or None


@dataclass(frozen=True)
class Limits:
    """Per-check limits: seconds (None: none) and bytes of extra address space (None: none)."""

    time: float | None = budget("default", "time-limit")
    memory: int | None = DEFAULT_MEMORY_LIMIT

    @classmethod
    def resolve(cls, profile: str, time_limit: Any = None, memory_limit: Any = None) -> "Limits":
        """The profile's defaults, overridden by ``time_limit`` / ``memory_limit`` when not None."""
        t = budget(profile, "time-limit") if time_limit is None else parse_time_limit(time_limit)
        mem = DEFAULT_MEMORY_LIMIT if memory_limit is None else parse_memory_limit(memory_limit)
        return cls(t, mem)


def supervise_child(page: Any, fork_at: int, pid: int) -> None:
    """Called once in a supervised child: every :func:`call` now writes its ``action`` on ``page`` (so the
    harness can name the last call of a child that died or hung), and a forked copy of process ``pid``
    returning from a call records itself at ``page[fork_at:]`` and exits at once."""
    global _SHARED
    _SHARED = (page, fork_at, pid)


def _note_call(action: str) -> None:
    page, fork_at, _ = _SHARED  # type: ignore[misc]
    data = action.encode("utf-8", "replace")[:fork_at - 1]
    page[:len(data) + 1] = data + b"\0"


def _check_not_forked(action: str) -> None:
    page, fork_at, pid = _SHARED  # type: ignore[misc]
    if os.getpid() != pid:  # a forked copy returned from the plug-in: record it, never run rfverify twice
        note = f"pid {os.getpid()} returned from {action}".encode("utf-8", "replace")[:len(page) - fork_at - 1]
        page[fork_at:fork_at + len(note) + 1] = note + b"\0"
        os._exit(0)


def _last_call() -> str:
    return getattr(_LAST, "action", None) or "none yet"


def call(fn: Callable[..., Any], *args: Any, plugin: str, action: str, hint: str = "",
         passthrough: tuple[type[BaseException], ...] = (), **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)``, with whatever it raises turned into a :class:`PluginError`.

    ``action`` says what the call was ("transform", "rule(8, rng)"); exceptions
    in ``passthrough`` propagate unchanged (for callers that expect them, like
    the transform kind's dimension probe).  ``KeyboardInterrupt`` and the
    time-limit alarm always propagate.
    """
    _LAST.action = action
    if _SHARED is not None:
        _note_call(action)
    try:
        out = fn(*args, **kwargs)
    except TimeLimitExceeded:
        raise
    except KeyboardInterrupt:
        if not IN_CHILD:  # the user's Ctrl-C; a supervised child ignores SIGINT, so there it is the plug-in's
            raise
        raise PluginError(plugin, f"{action} raised KeyboardInterrupt (no Ctrl-C reaches the supervised child)",
                          "raise an Exception subclass for errors") from None
    except passthrough:
        raise
    except PluginError as exc:
        if getattr(exc, "_rf_passthrough", False):  # the plug-in's process ended the scope (rfverify.containment.host)
            raise
        raise plugin_error(exc, plugin, action, hint) from None
    except BaseException as exc:  # whatever it is, the plug-in's exception is data: never re-raised or trusted
        raise plugin_error(exc, plugin, action, hint) from None
    finally:
        if _SHARED is not None:
            _check_not_forked(action)
    return out


def _show_traceback(exc: BaseException, plugin: str, action: str) -> None:
    """``--debug``: the plug-in's traceback on the real stderr (never the captured stream)."""
    import traceback

    from rfverify.text import clean

    stream = sys.__stderr__
    if stream is None:
        return
    from rfverify.text import type_name

    try:
        text = "".join(traceback.format_exception(exc))
    except BaseException:  # noqa: BLE001 - an exception whose __str__ raises (anything)
        try:
            text = "".join(traceback.format_tb(exc.__traceback__)) + type_name(exc) + "\n"
        except BaseException:  # noqa: BLE001
            text = type_name(exc) + "\n"
    try:
        stream.write(f"rfverify --debug: {clean(plugin, 200, one_line=True)}: {action} raised\n"
                     f"{clean(text, 20_000)}\n")
        stream.flush()
    except (OSError, ValueError):
        pass


#: errno values of an exhausted process: descriptors (EMFILE, ENFILE), memory (ENOMEM), threads (EAGAIN).
_EXHAUSTED_ERRNO = {24: "file descriptors", 23: "file descriptors (system-wide)", 12: "memory"}
#: Set when a plug-in exhausted a resource of the process (a supervised child then retires after the request).
EXHAUSTED: list[str] = []


def exhaustion(exc: BaseException) -> str | None:
    """What ``exc`` says the process ran out of (file descriptors, memory, stack), or None."""
    if isinstance(exc, MemoryError):
        return "memory"
    if isinstance(exc, RecursionError):
        return "stack (recursion depth)"
    if isinstance(exc, OSError):
        try:
            return _EXHAUSTED_ERRNO.get(int.__index__(exc.errno)) if isinstance(exc.errno, int) else None
        except BaseException:  # noqa: BLE001 - an OSError subclass with a strange errno
            return None
    return None


def plugin_error(exc: BaseException, plugin: str, action: str, hint: str = "") -> PluginError:
    """The :class:`PluginError` for whatever ``exc`` a plug-in raised in ``action``: its type and first line read
    without trusting it (:func:`rfverify.text.plain`), resource exhaustion named as such."""
    from rfverify.text import plain, type_name

    if SHOW_TRACEBACKS and not getattr(type(exc), "_rf_remote", False):  # a stand-in: shown where it was raised
        _show_traceback(exc, plugin, action)
    name = type_name(exc)
    gone = exhaustion(exc)
    if gone is not None:
        EXHAUSTED.append(gone)
        if gone == "memory":
            said = _one_line(exc)
            return PluginError(plugin, f"{action} ran out of memory ({name}"
                               f"{'' if said == '(no message)' else ': ' + said})",
                               "return outputs of the requested size; if it really needs more, raise "
                               "--memory-limit (memory_limit=)")
        return PluginError(plugin, f"{action} exhausted the process's {gone} ({name}: {_one_line(exc)})",
                           "close what you open and bound recursion; the child process is replaced after it")
    if isinstance(exc, SystemExit):
        code = exc.code if exc.code is None or type(exc.code) in (int, bool) else plain(exc.code, "__repr__")[:100]
        return PluginError(plugin, f"{action} called sys.exit({code!s})",
                           "a plug-in must return or raise an exception, never exit the process")
    if getattr(type(exc), "_rf_keyboard", False):  # a KeyboardInterrupt raised in the plug-in's process
        return PluginError(plugin, f"{action} raised KeyboardInterrupt (no Ctrl-C reaches the supervised child)",
                           "raise an Exception subclass for errors")
    if not isinstance(exc, Exception):  # GeneratorExit or a custom BaseException
        return PluginError(plugin, f"{action} raised {name}, a BaseException: {_one_line(exc)}",
                           "raise an Exception subclass for errors")
    err = PluginError(plugin, f"{action} raised {name}: {_one_line(exc)}", hint)
    if is_refusal(exc):  # a clean refusal: outside the plug-in's space away from the main configuration
        err.refusal = Refusal(name, _one_line(exc), re.split(r" with | ?\(", action)[0])
    return err


def _one_line(exc: BaseException) -> str:
    """The first line of ``exc``'s message, at most 300 characters, valid UTF-8 (undecodable bytes and lone
    surrogates replaced), absolute paths cut to their last part; an exception whose ``__str__`` raises
    (anything, a BaseException too) or returns a ``str`` subclass is described or copied, never trusted."""
    from rfverify.text import clean, plain, strip_paths

    text = strip_paths(clean(plain(exc)[:100_000])).strip()
    first = text.splitlines()[0] if text else "(no message)"
    return clean(first, 300)


def as_array(out: Any, *, plugin: str, action: str, complex_ok: bool = False) -> np.ndarray:
    """``out`` as a numeric ndarray (integers and bools become float64), or a :class:`PluginError`.

    Refused: ``None``; what numpy cannot convert (ragged lists); strings,
    objects, dates; complex values where the kind needs real ones; float16
    (an 11-bit significand, below what the checks' derived round-off bounds
    assume: compute in float32 or float64).  Lists of numbers are accepted;
    ndarray subclasses (``numpy.matrix``) become plain arrays, as ``numpy.asarray`` makes them.
    """
    if out is None:
        raise PluginError(plugin, f"{action} returned None", "return the result as a numpy array")
    if getattr(type(out), "_rf_remote", False):  # an object that stayed in the plug-in's process: not data
        raise PluginError(plugin, f"{action} returned an array of Python objects, dtype object (e.g. "
                          f"{out._rf_type})", "return real" + (" or complex" if complex_ok else "") +
                          " floating-point numbers")
    if type(out) is np.ndarray:
        A = out
    elif isinstance(out, np.ndarray):  # a subclass (numpy.matrix, a masked array): numpy.asarray semantics
        A = np.asarray(out)
    else:
        try:
            if hasattr(out, "detach") and callable(out.detach):  # torch tensors (CPU), even if requiring grad
                out = out.detach()
                if hasattr(out, "cpu"):
                    out = out.cpu()
            A = np.asarray(out)
        except (KeyboardInterrupt, TimeLimitExceeded):
            raise
        except MemoryError:
            raise PluginError(plugin, f"{action} returned an object too large to convert to an array",
                              "return outputs of the requested size") from None
        except Exception as exc:
            raise PluginError(plugin, f"{action} returned {type(out).__name__} that numpy cannot convert to an "
                              f"array ({_one_line(exc)})", "return a numpy array of numbers") from None
    kind = A.dtype.kind
    if kind in "biu":
        return A.astype(np.float64)
    if kind == "f":
        if A.dtype.itemsize < 4:
            raise PluginError(plugin, f"{action} returned dtype {A.dtype}",
                              "float16 is too coarse for the checks' round-off bounds: compute in float32 or "
                              "float64")
        return A if A.dtype.itemsize <= 8 else A.astype(np.float64)
    if kind == "c":
        if not complex_ok:
            raise PluginError(plugin, f"{action} returned complex dtype {A.dtype}", "return real numbers")
        if A.dtype.itemsize < 8:  # complex32 does not exist in numpy, but be safe
            raise PluginError(plugin, f"{action} returned dtype {A.dtype}", "compute in complex64 or complex128")
        return A if A.dtype.itemsize <= 16 else A.astype(np.complex128)
    what = {"O": "Python objects", "U": "strings", "S": "bytes", "M": "dates", "m": "time deltas",
            "V": "raw records"}.get(kind, "non-numbers")
    example = ""
    if A.size and kind == "O":
        example = f" (e.g. {type(A.flat[0]).__name__})"
    raise PluginError(plugin, f"{action} returned an array of {what}, dtype {A.dtype}{example}",
                      "return real" + (" or complex" if complex_ok else "") + " floating-point numbers")


def check_finite(A: np.ndarray, *, plugin: str, action: str, hint: str = "return finite numbers") -> None:
    """A :class:`PluginError` counting the NaN and inf entries of ``A``, if any."""
    if not np.all(np.isfinite(A)):
        bad = int(A.size - np.count_nonzero(np.isfinite(A)))
        n_nan = int(np.count_nonzero(np.isnan(A)))
        raise PluginError(plugin, f"{action} returned {bad} non-finite value(s) (NaN or inf: {n_nan} NaN) "
                          f"in an array of shape {A.shape}", hint)


def check_size(A: np.ndarray, *, plugin: str, action: str, limit: int = MAX_OUTPUT_ELEMENTS) -> None:
    if A.size > limit:
        raise PluginError(plugin, f"{action} returned {A.size:,} numbers (shape {A.shape}), more than the "
                          f"{limit:,} rfverify accepts from one call", "return outputs of the requested size")


class _Capture(io.TextIOBase):
    """A text stream recording what the plug-in writes; warnings and logging pass through."""

    def __init__(self, real: Any, name: str) -> None:
        self.real = real
        self.name = name
        self.parts: list[str] = []

    def write(self, s: str) -> int:
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if caller.split(".")[0] in _PASS_THROUGH and self.real is not None:
            return self.real.write(s)
        if not isinstance(s, str):
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        self.parts.append(s)
        return len(s)

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    def text(self) -> str:
        return "".join(self.parts)


def _address_space() -> int | None:
    """Bytes of virtual address space in use (psutil: Linux, macOS), else None."""
    try:
        import psutil

        return int(psutil.Process().memory_info().vms)
    except Exception:  # psutil missing a field on this platform: no address-space reading
        return None


def _on_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


class guarded:
    """Context manager for one check (or the preflight call) of plug-in ``plugin``; see the module doc.

    On exit a fault becomes a :class:`PluginError`: the time limit, memory
    exhaustion, printing, or a changed global random state.  Every setting it
    changes (signal handler, timer, rlimit, streams, random states) is
    restored whatever happens.
    """

    def __init__(self, plugin: str, what: str, limits: Limits | None = None) -> None:
        self.plugin = plugin
        self.what = what
        self.limits = limits or Limits()
        self._armed = False
        #: Set while no plug-in code runs in this scope (the plug-in's process between two operations,
        #: :mod:`rfverify.containment.host`): the timer then does not end it.
        self.paused = False

    # -- enter ------------------------------------------------------------------------------------
    def __enter__(self) -> "guarded":
        _LAST.action = None
        self._np_state = np.random.get_state()
        self._py_state = random.getstate()
        # the baseline moves past first imports (a library's import may draw): rfverify.containment.import_watch
        self._watch = ImportWatch(self._np_state, self._py_state).__enter__()
        self._streams = (sys.stdout, sys.stderr)
        self._out, self._err = _Capture(sys.stdout, "stdout"), _Capture(sys.stderr, "stderr")
        self._start = time.monotonic()
        self._cpu0 = time.process_time()
        self._thread_cpu0 = time.thread_time()
        self._alarm: tuple[Any, tuple[float, float]] | None = None

        self._rlimit: tuple[int, int] | None = None
        main = _on_main_thread()
        try:
            if self.limits.memory is not None and main:
                self._lower_rlimit(self.limits.memory)
            sys.stdout, sys.stderr = self._out, self._err
            if self.limits.time is not None and main:
                self._arm(self.limits.time)
        except BaseException:  # leave nothing half-installed
            self._restore()
            raise
        return self

    def _arm(self, seconds: float) -> None:
        """SIGALRM at ``seconds`` of wall time, then every REFIRE_INTERVAL; the handler runs on this (the check's)
        thread, so ``time.thread_time()`` there is the check's CPU time."""
        def on_alarm(signum: int, frame: Any) -> None:
            if not self._armed or self.paused:
                return
            wall = time.monotonic() - self._start
            if time.thread_time() - self._thread_cpu0 >= seconds or wall >= WALL_FACTOR * seconds \
                    or time.process_time() - self._cpu0 < STALL_SHARE * wall:
                raise TimeLimitExceeded()

        try:
            old_handler = signal.signal(signal.SIGALRM, on_alarm)
        except (ValueError, OSError, AttributeError):  # not the main interpreter, or no SIGALRM
            return
        self._alarm = (old_handler, (0.0, 0.0))  # restored by _restore even if setitimer fails
        self._armed = True
        self._alarm = (old_handler, signal.setitimer(signal.ITIMER_REAL, seconds, REFIRE_INTERVAL))

    def _lower_rlimit(self, budget: int) -> None:
        try:
            import resource
        except ImportError:
            return
        used = _address_space()
        if used is None or not hasattr(resource, "RLIMIT_AS"):
            return
        try:
            soft, hard = resource.getrlimit(resource.RLIMIT_AS)
            target = used + budget
            if hard != resource.RLIM_INFINITY:
                target = min(target, hard)
            if soft != resource.RLIM_INFINITY and soft <= target:
                return  # a stricter limit is already in force
            resource.setrlimit(resource.RLIMIT_AS, (target, hard))
            self._rlimit = (soft, hard)
        except (ValueError, OSError, OverflowError):  # e.g. a budget beyond what the kernel can represent
            return

    # -- exit -------------------------------------------------------------------------------------
    def _restore(self) -> None:
        self._armed = False
        self._watch.__exit__()
        if self._alarm is not None:
            old_handler, (delay, interval) = self._alarm
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old_handler if old_handler is not None else signal.SIG_DFL)
            if delay > 0:  # give an outer timer back what is left of it
                left = delay - (time.monotonic() - self._start)
                signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6), interval)
            self._alarm = None
        if self._rlimit is not None:
            import resource

            resource.setrlimit(resource.RLIMIT_AS, self._rlimit)
            self._rlimit = None
        sys.stdout, sys.stderr = self._streams

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> Literal[False]:
        elapsed = time.monotonic() - self._start
        cpu = time.thread_time() - self._thread_cpu0
        could_interrupt = self._alarm is not None
        self._restore()
        np_changed, py_changed = self._watch.np_changed(), self._watch.py_changed()
        if not _same_np_state(self._np_state, np.random.get_state()):  # restored, whoever changed it
            np.random.set_state(self._np_state)
        if random.getstate() != self._py_state:
            random.setstate(self._py_state)
        if exc_type is not None and issubclass(exc_type, KeyboardInterrupt):
            return False
        last = _last_call()
        if exc_type is not None and issubclass(exc_type, TimeLimitExceeded):
            raise PluginError(self.plugin, f"{self.what} did not finish within the time limit of "
                              f"{self.limits.time:g} s (last call into the plug-in: {last}); "
                              f"{time_limit_detail(cpu, elapsed, self.limits.time or 0.0)}",
                              "make it faster, or raise --time-limit SECONDS (time_limit=; 0 disables it); code "
                              "stuck inside a C extension is interrupted only when it returns") from None
        if exc_type is not None and issubclass(exc_type, MemoryError):
            raise PluginError(self.plugin, f"{self.what} ran out of memory (last call into the plug-in: {last})",
                              "return outputs of the requested size, or raise --memory-limit "
                              f"(now {format_bytes(self.limits.memory) if self.limits.memory else 'off'})") \
                from None
        if exc_type is not None and issubclass(exc_type, PluginError):
            return False  # the plug-in's first fault is the one to report
        for stream in (self._out, self._err):
            text = stream.text()
            if text.strip():
                first = text.strip().splitlines()[0]
                first = first if len(first) <= 200 else first[:197] + "..."
                raise PluginError(self.plugin, f"printed to {stream.name} during {self.what}: {first!r} "
                                  f"(last call into the plug-in: {last})",
                                  "a plug-in must not print (it would corrupt --json - output); use the "
                                  "logging or warnings modules") from None
        if np_changed or py_changed:
            which = " and ".join(w for w, c in (("numpy's global random state (np.random.*)", np_changed),
                                                ("Python's random module state", py_changed)) if c)
            raise PluginError(self.plugin, f"changed {which} during {self.what} (last call into the plug-in: "
                              f"{last})", "draw from the random_state / rng you are given "
                              "(np.random.default_rng(random_state)), never seed or draw from the global "
                              "generators") from None
        if exc_type is None and self.limits.time is not None and not could_interrupt \
                and time.thread_time() - self._thread_cpu0 > self.limits.time:
            # off the main thread no signal could interrupt it: report the overrun (this thread's CPU) afterwards
            raise PluginError(self.plugin, f"{self.what} took {time.thread_time() - self._thread_cpu0:.1f} s of CPU "
                              f"({elapsed:.1f} s of wall time), over the time limit of "
                              f"{self.limits.time:g} s (it could not be interrupted: rfverify ran off the main "
                              "thread)", "make it faster, or raise --time-limit SECONDS (time_limit=)")
        return False


def _same_np_state(a: Any, b: Any) -> bool:
    return a[0] == b[0] and a[2:] == b[2:] and np.array_equal(a[1], b[1])

"""A computation replayed in a fresh Python interpreter: no module-level cache, class attribute or global the
current process accumulated exists there.

The stateful checks compare an object's output with a fresh object's made in the same process; a cache kept in a
module (or a class) survives there and is shared by that fresh object.  :func:`run_fresh` confirms such a finding
where no state can survive: it pickles a function and its arguments (the plug-in adapter, the configuration, the
input values), starts ``python -m rfverify.containment.fresh`` (``subprocess``: fork and exec of the same interpreter, with the
harness's ``sys.path``), runs the function there and reads the pickled result back.

Why spawn and not a fork: a fork of the process running the check inherits the very cache being looked for, and
a fork of the harness (the supervised child's parent, :mod:`rfverify.containment.supervise`) needs a new request type through
the supervisor's protocol while the harness waits on the check; an exec'd interpreter costs about one second
(importing numpy, rfverify and the plug-in) and runs only to confirm a failure, never on a passing run.  A plug-in
that cannot be pickled (a lambda, a class defined inside a function) cannot be replayed this way:
:class:`FreshUnavailable` says why and the caller states it.

The child writes the result to the descriptor its stdout had at start; the plug-in's own prints go to stderr.
"""

from __future__ import annotations

import dataclasses
import os
import pickle
import subprocess
import sys
from typing import Any, Callable

from rfverify.text import clean

__all__ = ["run_fresh", "FreshUnavailable", "FRESH_TIMEOUT"]

#: Seconds of wall time one fresh replay may take (interpreter start, imports, the plug-in's calls).
FRESH_TIMEOUT = 120.0


class FreshUnavailable(RuntimeError):
    """The fresh-interpreter replay could not run (the plug-in cannot be pickled, the child failed or hung)."""


def run_fresh(fn: Callable[..., Any], *args: Any, timeout: float = FRESH_TIMEOUT) -> Any:
    """``fn(*args)`` computed in a fresh interpreter; its exception is re-raised here as :class:`FreshUnavailable`
    naming it.  An adapter among ``args`` whose plug-in lives in its own process (``host``, :mod:`rfverify.containment.host`)
    is replayed from there: that process starts the fresh interpreter and sends the result back as data (the
    harness never unpickles what a process that ran the plug-in wrote)."""
    hosted = [not isinstance(a, type) and getattr(a, "host", None) is not None for a in args]
    host = next((getattr(a, "host") for a, h in zip(args, hosted) if h), None)
    if host is not None:  # a kind's adapter (rfverify.containment.hosted_kinds) is pickled without its host
        local = tuple(dataclasses.replace(a, host=None)  # type: ignore[type-var]
                      if h and dataclasses.is_dataclass(a) else a for a, h in zip(args, hosted))
        status, value = host.run(_replayed, fn, local, timeout)
        if status != "ok":
            raise FreshUnavailable(clean(str(value), 400))
        return value
    return _run(fn, args, timeout)


def _replayed(fn: Callable[..., Any], args: tuple[Any, ...], timeout: float) -> tuple[str, Any]:
    """:func:`run_fresh` in the plug-in's process, its outcome as data: ("ok", value) or ("unavailable", why)."""
    try:
        return "ok", _run(fn, args, timeout)
    except FreshUnavailable as exc:
        return "unavailable", str(exc)


def _run(fn: Callable[..., Any], args: tuple[Any, ...], timeout: float) -> Any:
    try:
        payload = pickle.dumps((fn, args), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # noqa: BLE001 - any pickling failure: a lambda, a local class, an open resource
        raise FreshUnavailable(f"the plug-in cannot be pickled for a fresh interpreter "
                               f"({type(exc).__name__}: {clean(str(exc), 160)})") from None
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    try:
        proc = subprocess.run([sys.executable, "-m", "rfverify.containment.fresh"], input=payload, capture_output=True,
                              timeout=timeout, env=env, check=False)
    except subprocess.TimeoutExpired:
        raise FreshUnavailable(f"the fresh interpreter did not finish within {timeout:g} s") from None
    except OSError as exc:
        raise FreshUnavailable(f"the fresh interpreter could not start ({exc})") from None
    try:
        ok, value = pickle.loads(proc.stdout)
    except Exception:  # noqa: BLE001 - a child that died before writing
        tail = clean(proc.stderr.decode("utf-8", "replace").strip().splitlines()[-1] if proc.stderr.strip() else "",
                     200)
        raise FreshUnavailable(f"the fresh interpreter ended with status {proc.returncode}"
                               + (f": {tail}" if tail else "")) from None
    if not ok:
        raise FreshUnavailable(f"the replay raised in the fresh interpreter: {value}")
    return value


def _main() -> None:  # pragma: no cover - runs in the child interpreter (tests/test_stateful_kinds.py drives it)
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # the plug-in's prints go to stderr, never into the result
    try:
        fn, args = pickle.loads(sys.stdin.buffer.read())
        result: Any = (True, fn(*args))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which states it
        result = (False, f"{type(exc).__name__}: {exc}"[:300])
    out.write(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
    out.flush()


if __name__ == "__main__":  # pragma: no cover
    _main()

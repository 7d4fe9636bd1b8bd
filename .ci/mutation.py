#!/usr/bin/env python3
"""Mutation testing of the modules that decide verdicts: mutmut 2.x's mutants, a forked runner.

    python .ci/mutation.py run --fast        # the CI subset ([tool.rfverify.mutation] fast): exit_status, seeding
    python .ci/mutation.py run               # every configured module (minutes to an hour; outside CI)
    python .ci/mutation.py run --module properties/haar.py
    python .ci/mutation.py run --recheck [--unexplained] --module M   # re-test M's survivors after adding tests
    python .ci/mutation.py run --resume --module M   # continue M's interrupted run from its checkpoint
    python .ci/mutation.py check             # exit 1 if a mutant survived that tests/mutation_equivalents.json
                                             # does not list (or a listed equivalent is now killed: stale entry)
    python .ci/mutation.py report            # reports/mutation.md from the committed results
    python .ci/mutation.py merge A.json ... [--module M]  # fold other runs' results (workers, machines) in

The per-mutant results are committed (``results`` in the configuration: reports/mutation-results.json), so a
run of one module updates that module's rows and the report is regenerated from every module's last run.

Mutants are mutmut's (``mutmut.list_mutations`` / ``mutmut.mutate``: operators, comparisons, numbers,
keywords, strings, ...).  mutmut 2.x's own runner starts a fresh interpreter per mutant and re-imports
numpy/scipy each time (seconds per mutant before any test runs); this runner imports the third-party
stack once, then forks one child per mutant that drops every ``rfverify``/``tests`` module, installs the
mutated source through an in-memory import hook (the working tree is never written, so an interrupted
run leaves nothing behind) and runs the module's tests with ``pytest -x``.  In the in-session phase a mutant
runs only the tests that called a function it changes (recorded once, unmutated, with ``sys.setprofile``,
forked checks included: ``SELECT_BY_CALLS``), fastest first (``FASTEST_FIRST``); every survivor is confirmed
against all the module's tests.
A mutant is *killed* when pytest fails (or errors, or exceeds the time limit -- ``TIMEOUT_FACTOR`` x the
unmutated run + 10 s -- in a fresh process twice, the second time with ``RETRY_FACTOR`` x that limit) and
*survives* when the tests pass.
The children import rfverify and the tests from the working tree: do not edit it during a run (run from a
separate worktree to keep editing).  Configuration: ``[tool.rfverify.mutation]`` in pyproject.toml (module ->
the pytest arguments that test it).  Needs the ``mutation`` extra (``pip install -e '.[mutation]'``).
"""

from __future__ import annotations

import argparse
import gc
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: Where the per-mutant results live: $RFVERIFY_MUTATION_RESULTS, else ``results`` in the configuration.
RESULTS_ENV = "RFVERIFY_MUTATION_RESULTS"
TIMEOUT_FACTOR = 3.0
TIMEOUT_EXTRA = 10.0
#: A mutant that exceeds the time limit is run once more with this many times the limit before it counts as
#: killed by a timeout (a loaded shared machine slows every child; only a hang should kill).
RETRY_FACTOR = 3.0
#: Where each top-level source directory is installed (pyproject's package-dir).
PACKAGE_DIRS = {"rfverify": "rfverify", "properties": "rfverify.properties",
                "implementations": "rfverify.implementations"}


def load_config() -> dict[str, Any]:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    with open(ROOT / "pyproject.toml", "rb") as fh:
        cfg = tomllib.load(fh)["tool"]["rfverify"]["mutation"]
    return cfg


def results_path() -> Path:
    env = os.environ.get(RESULTS_ENV)
    return Path(env) if env else ROOT / load_config()["results"]


def module_name(path: str) -> str:
    parts = Path(path).with_suffix("").parts
    pkg = PACKAGE_DIRS[parts[0]]
    rest = [p for p in parts[1:] if p != "__init__"]
    return ".".join([pkg, *rest])


# ------------------------------------------------------------------ mutants

def mutants(path: str) -> list[dict[str, Any]]:
    """Every mutmut mutant of ``path``: its id, line, the mutated line and the mutated source."""
    from mutmut import Context, list_mutations, mutate

    source = (ROOT / path).read_text(encoding="utf-8")
    ids = list_mutations(Context(source=source, filename=path))
    lines = source.split("\n")
    out = []
    for mid in ids:
        ctx = Context(source=source, mutation_id=mid, filename=path)
        mutated, n = mutate(ctx)
        if n != 1:
            continue
        mlines = mutated.split("\n")
        k = mid.line_number
        # a mutation may change the line count (mutmut never does today); show the changed line
        new_line = mlines[k] if len(mlines) == len(lines) else "<multi-line mutation>"
        out.append({"line_number": k + 1, "line": lines[k].strip(), "index": mid.index,
                    "mutant": new_line.strip(), "source": mutated})
    return out


# ------------------------------------------------------------------ the forked runner

class _MutantLoader(importlib.machinery.SourceFileLoader):
    """Loads one module from the mutated source held in memory (never from disk or a .pyc)."""

    def __init__(self, fullname: str, path: str, source: str) -> None:
        super().__init__(fullname, path)
        self._mutated = source

    def get_code(self, fullname: str) -> Any:
        return compile(self._mutated, self.path, "exec", dont_inherit=True)


class _MutantFinder(importlib.abc.MetaPathFinder):
    def __init__(self, fullname: str, path: str, source: str) -> None:
        self.fullname, self.path, self.source = fullname, path, source

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != self.fullname:
            return None
        loader = _MutantLoader(fullname, self.path, self.source)
        is_pkg = self.path.endswith("__init__.py")
        return importlib.util.spec_from_file_location(
            fullname, self.path, loader=loader,
            submodule_search_locations=[str(Path(self.path).parent)] if is_pkg else None)


def _preimport() -> None:
    """Import the third-party stack (and rfverify, to warm its .pyc files) once, in the parent."""
    import numpy  # noqa: F401
    import pytest  # noqa: F401
    import scipy.integrate  # noqa: F401
    import scipy.optimize  # noqa: F401
    import scipy.stats  # noqa: F401

    for extra in ("mpmath", "hypothesis", "jinja2", "matplotlib", "sklearn.kernel_approximation"):
        try:
            importlib.import_module(extra)
        except ImportError:
            pass
    import rfverify.cli  # noqa: F401
    import rfverify.studies.zoo  # noqa: F401


def _child(fullname: str | None, path: str | None, source: str | None, pytest_args: list[str]) -> None:
    """In the forked child: fresh rfverify/tests modules, the mutant in place, pytest -x; never returns."""
    code = 3
    try:
        os.setpgid(0, 0)  # its own process group: a timeout ends the checks' supervised children too
        for name in list(sys.modules):
            if name.split(".")[0] in ("rfverify", "tests", "conftest"):
                del sys.modules[name]
        if fullname is not None:
            sys.meta_path.insert(0, _MutantFinder(fullname, str(ROOT / path), source))
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        os.chdir(ROOT)
        import pytest

        # --assert=plain: pytest's assertion-rewriting import hook would otherwise load every module of the
        # rfverify distribution (marked for rewriting as the home of the `rfverify` pytest11 plugin) from disk,
        # ahead of the mutant's hook
        code = int(pytest.main(["-x", "-q", "--assert=plain", "-p", "no:cacheprovider", "-W", "ignore",
                                *pytest_args]))
    except BaseException:  # noqa: BLE001 - any crash kills the mutant
        code = 3
    finally:
        os._exit(code)


def _run_one(fullname: str | None, path: str | None, source: str | None, pytest_args: list[str],
             timeout: float | None) -> tuple[str, float]:
    """``("passed" | "failed" | "timeout", seconds)`` of the tests with this mutant (None: unmutated)."""
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        _child(fullname, path, source, pytest_args)
    return _wait(pid, t0, timeout)


# ------------------------------------------------------------------ the fast path: one pytest session, code swaps

def _signature(code: Any) -> tuple:
    consts = tuple("<code>" if hasattr(c, "co_code") else (type(c).__name__, repr(c)) for c in code.co_consts)
    return (code.co_code, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars, code.co_argcount,
            code.co_kwonlyargcount, code.co_posonlyargcount, code.co_flags, consts)


_CO_OPTIMIZED = 0x0001


def changed_functions(original: str, mutated: str, path: str) -> list[Any] | None:
    """The new code objects of the functions a mutant changes, or None if it changes module- or class-level code.

    Walks both compiled modules in parallel: where a module or class body is identical up to its nested code
    objects, descend; the first function whose code differs is a swap target.  A mutant whose change is not
    inside a function body (a constant, a default argument, a decorator, a class attribute) returns None.
    """
    try:
        a, b = compile(original, path, "exec", dont_inherit=True), compile(mutated, path, "exec", dont_inherit=True)
    except SyntaxError:
        return None  # mutmut made invalid code: the fresh-process path counts it killed (the import fails)
    out: list[Any] = []

    def nested(c: Any) -> list[Any]:
        return [k for k in c.co_consts if hasattr(k, "co_code")]

    def same(x: Any, y: Any) -> bool:
        xs, ys = nested(x), nested(y)
        return _signature(x) == _signature(y) and len(xs) == len(ys) and all(same(u, v) for u, v in zip(xs, ys))

    def walk(x: Any, y: Any) -> bool:
        if x is not a and x.co_flags & _CO_OPTIMIZED and not x.co_name.startswith("<"):
            if not same(x, y):  # a change anywhere inside a function (its comprehensions too): swap the function
                out.append(y)
            return True
        if _signature(x) != _signature(y):
            return False  # module or class-body code itself changed: not swappable
        xs, ys = nested(x), nested(y)
        return len(xs) == len(ys) and all(walk(u, v) for u, v in zip(xs, ys))

    return out if walk(a, b) and out else None


def _live_function(module: Any, qualname: str) -> Any:
    """The function object of ``qualname`` in the imported module (unwrapped), or None."""
    obj = module
    for part in qualname.split("."):
        if part == "<locals>":
            return None
        obj = obj.__dict__.get(part) if hasattr(obj, "__dict__") else None
        if obj is None:
            return None
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
        if isinstance(obj, property):
            return None
    while hasattr(obj, "__wrapped__"):
        obj = obj.__wrapped__
    return obj if hasattr(obj, "__code__") else None


def _clear_caches(module: Any) -> None:
    for v in list(vars(module).values()):
        if callable(getattr(v, "cache_clear", None)):
            v.cache_clear()


#: In the in-session phase, run per mutant only the tests that called a function it changes (recorded once,
#: unmutated, with ``sys.setprofile``).  Sound because every in-session survivor is re-tested in a fresh process
#: against all the module's tests: a test that reaches the function only through a cache an earlier test
#: filled, or in a subprocess, can still kill it there.  A selected test still runs with its fixtures.
SELECT_BY_CALLS = True
#: In the in-session phase, run a mutant's tests fastest first (their durations recorded on the unmutated run), so
#: the test that kills it comes sooner; used only when the unmutated tests pass in that order too (else
#: collection order).  It orders only: which tests run, and so the verdict, does not change.
FASTEST_FIRST = True


def _outermost(qualname: str) -> str:
    """``f.<locals>.g`` -> ``f``: a swap replaces the outermost function, which runs whenever nested code does."""
    return qualname.split(".<locals>", 1)[0]


def _profile_calls(filename: str, seen: set[tuple[int, str]], item: int, out: int) -> None:
    """Record, under ``item``, every function of ``filename`` called from now on, in this and new threads and in
    forked children (the checks run in supervised forks): one ``item<TAB>qualname`` line per first call, appended
    to the file descriptor ``out`` (O_APPEND: the children's lines never interleave)."""
    def prof(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            c = frame.f_code
            if c.co_filename == filename:
                key = (item, _outermost(c.co_qualname))
                if key not in seen:
                    seen.add(key)
                    os.write(out, f"{key[0]}\t{key[1]}\n".encode())

    sys.setprofile(prof)
    threading.setprofile(prof)  # type: ignore[arg-type]


class _InSession:
    """A pytest plugin: collect the module's tests once, then fork per mutant, swap the changed function's code
    into the already-imported module and run the collected items (stopping at the first failure)."""

    def __init__(self, fullname: str, path: str, found: list[dict[str, Any]], log: Any,
                 decided: dict[int, tuple[str, float]] | None = None, progress: Any = None) -> None:
        self.fullname, self.path, self.found, self.log = fullname, path, found, log
        self.outcomes: dict[int, tuple[str, float]] = dict(decided or {})  # a resumed run's kills are not re-run
        self.baseline: float | None = None
        self.progress = progress  # called after each mutant (it rate-limits its own checkpoints)
        self.durations: dict[int, float] | None = None  # per item index, when the tests run fastest first

    def _child(self, session: Any, codes: list[Any] | None, only: set[int] | None = None,
               record: str | None = None) -> None:
        """Run the collected items (``only``: those indices; fastest first when :attr:`durations` is set) with
        ``codes`` swapped in; ``record``: a file to write, per top-level function of the module, the indices of the
        items that called it, and each item's duration (a ``#`` line)."""
        code = 3
        try:
            os.setpgid(0, 0)
            gc.disable()
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            from _pytest.runner import runtestprotocol

            module = importlib.import_module(self.fullname)
            _clear_caches(module)
            for new in codes or []:
                fn = _live_function(module, new.co_qualname)
                if fn is None:
                    os._exit(4)  # no live function to swap: the slow path decides
                fn.__code__ = new
            index = [i for i in range(len(session.items)) if only is None or i in only]
            if self.durations is not None:
                index.sort(key=lambda i: self.durations.get(i, float("inf")))  # stable: ties keep their order
            items = [session.items[i] for i in index]
            seen: set[tuple[int, str]] = set()
            out = os.open(record, os.O_WRONLY | os.O_APPEND | os.O_CREAT) if record is not None else -1
            for k, item in enumerate(items):
                if record is not None:
                    _profile_calls(str(ROOT / self.path), seen, index[k], out)
                t = time.perf_counter()
                reports = runtestprotocol(item, log=False, nextitem=items[k + 1] if k + 1 < len(items) else None)
                if record is not None:
                    sys.setprofile(None)
                    threading.setprofile(None)  # type: ignore[arg-type]
                    os.write(out, f"#{index[k]}\t{time.perf_counter() - t:.6f}\n".encode())
                if any(r.failed for r in reports):
                    os._exit(1)
            code = 0
        except BaseException:  # noqa: BLE001
            code = 3
        finally:
            os._exit(code)

    def _fork(self, session: Any, codes: list[Any] | None, timeout: float | None,
              only: set[int] | None = None, record: str | None = None) -> tuple[str, float]:
        t0 = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            self._child(session, codes, only, record)
        return _wait(pid, t0, timeout)

    def _coverage(self, session: Any) -> tuple[dict[str, set[int]], dict[int, float]] | None:
        """Per top-level function of the module (``f``, ``Cls.meth``; nested code counts for its outermost
        function), the indices of the collected items that called it in the unmutated run; None if that run
        failed under the profiler."""
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "calls.tsv")
            status, secs = self._fork(session, None, None, record=out)
            if status != "passed" or not os.path.exists(out):
                return None
            calls: dict[str, set[int]] = {}
            durations: dict[int, float] = {}
            for line in Path(out).read_text(encoding="utf-8").splitlines():
                item, value = line.split("\t")
                if item.startswith("#"):
                    durations[int(item[1:])] = float(value)
                else:
                    calls.setdefault(value, set()).add(int(item))
        self.log(f"  which tests call which function: recorded in {secs:.1f} s ({len(calls)} functions called)")
        return calls, durations

    def _order(self, session: Any, durations: dict[int, float]) -> None:
        """Run the tests fastest first from now on if the unmutated tests pass in that order (a test that needs
        an earlier one's side effect would turn every mutant into a false kill); else keep collection order."""
        self.durations = durations
        status, secs = self._fork(session, None, None)
        if status != "passed":
            self.durations = None
            self.log(f"  fastest first: the unmutated tests {status} in that order; collection order kept")
        else:
            self.log(f"  fastest first: the unmutated tests pass in that order too ({secs:.1f} s)")

    def pytest_runtestloop(self, session: Any) -> bool:
        status, self.baseline = self._fork(session, None, None)
        if status != "passed":
            self.baseline = None
            return True
        timeout = TIMEOUT_FACTOR * self.baseline + TIMEOUT_EXTRA
        self.log(f"{self.path}: {len(self.found)} mutants; unmutated tests {self.baseline:.1f} s in one session "
                 f"(time limit {timeout:.0f} s per mutant)")
        recorded = self._coverage(session) if SELECT_BY_CALLS else None
        calls = recorded[0] if recorded is not None else None
        if FASTEST_FIRST and recorded is not None:
            self._order(session, recorded[1])
        original = (ROOT / self.path).read_text(encoding="utf-8")
        t0 = time.perf_counter()
        gc.freeze()  # the children would otherwise copy every page the collector touches
        for i, m in enumerate(self.found):
            if i in self.outcomes:
                continue
            codes = changed_functions(original, m["source"], str(ROOT / self.path))
            if codes is not None:
                only = None
                if calls is not None:  # only the tests that call a changed function can fail on it
                    only = set().union(*(calls.get(_outermost(c.co_qualname), set()) for c in codes))
                outcome, secs = ("passed", 0.0) if only == set() else self._fork(session, codes, timeout, only)
                if outcome != "unswappable":
                    self.outcomes[i] = (outcome, secs)
            if (i + 1) % 50 == 0:
                self.log(f"  {i + 1}/{len(self.found)} ({time.perf_counter() - t0:.0f} s)")
            if self.progress is not None:
                self.progress()
        return True


def _wait(pid: int, t0: float, timeout: float | None) -> tuple[str, float]:
    """``("passed" | "failed" | "unswappable" | "timeout", seconds)`` of a forked child."""
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code = os.waitstatus_to_exitcode(status)
            return {0: "passed", 4: "unswappable"}.get(code, "failed"), time.perf_counter() - t0
        if timeout is not None and time.perf_counter() - t0 > timeout:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
            return "timeout", time.perf_counter() - t0
        time.sleep(0.01)


def _run_fresh(fullname: str, path: str, source: str, pytest_args: list[str], base: float) -> tuple[str, float]:
    """The mutant in a fresh child; a timeout is retried once with ``RETRY_FACTOR`` x the limit.

    Wall-clock limits on a loaded machine (load 10-20 on 2 cores) cut off mutants that only run slower; such a
    mutant must not count as killed.  A mutant that hangs (an endless loop) times out twice and is killed.
    """
    limit = TIMEOUT_FACTOR * base + TIMEOUT_EXTRA
    outcome, secs = _run_one(fullname, path, source, pytest_args, limit)
    if outcome == "timeout":
        outcome, secs = _run_one(fullname, path, source, pytest_args, RETRY_FACTOR * limit)
    return outcome, secs


#: Seconds between two checkpoints of a module's results during its fresh phase.
CHECKPOINT_EVERY = 60.0


def run_module(path: str, pytest_args: list[str], log: Any = print,
               checkpoint: Any = None, resume: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every mutant of ``path`` against ``pytest_args``.

    Fast path: one pytest session collects the tests; per mutant whose change lies inside a function body a
    forked child swaps that function's ``__code__`` and runs the collected tests.  Slow path (module-level
    mutants, and to confirm every fast-path survivor): a forked child re-imports rfverify with the mutated
    source and runs ``pytest -x`` afresh.

    ``checkpoint(partial)``: called with the results so far after the fast path and then at most every
    ``CHECKPOINT_EVERY`` s (in both phases), a mutant not yet decided counted as ``survived`` with
    ``"pending": True`` (and ``"in_session": "passed"`` once it survived the session) — so an interrupted run
    loses nothing: ``run --resume`` continues it (``resume``: its checkpoint; the mutants it decided killed are not
    re-run, those that survived the session go straight to the fresh phase), ``run --recheck`` re-tests its
    survivors afresh.
    """
    import pytest

    fullname = module_name(path)
    found = mutants(path)
    decided: dict[int, tuple[str, float]] = {}
    if resume is not None:
        before = dict(zip(_identity(resume["mutants"]), resume["mutants"]))
        for i, k in enumerate(_identity(found)):
            m = before.get(k)
            if m is not None and m["status"] == "killed" and not m.get("pending"):
                decided[i] = ("failed", float(m.get("seconds", 0.0)))
            elif m is not None and m.get("in_session") == "passed":  # survived the session: the fresh phase
                decided[i] = ("passed", float(m.get("seconds", 0.0)))
        kills = sum(o == "failed" for o, _ in decided.values())
        log(f"{path}: resuming: {kills} of {len(found)} mutants already killed, {len(decided) - kills} to confirm "
            "afresh (they survived the session)")
    rows: list[dict[str, Any]] = []
    last = -CHECKPOINT_EVERY
    t0 = time.perf_counter()

    def save(i: int) -> None:
        nonlocal last
        if checkpoint is None or plugin.baseline is None or time.perf_counter() - last < CHECKPOINT_EVERY:
            return
        last = time.perf_counter()
        rest = []
        for j in range(i, len(found)):
            row = {k: v for k, v in found[j].items() if k != "source"}
            outcome, secs = plugin.outcomes.get(j, (None, 0.0))
            done = outcome not in (None, "passed", "timeout")
            rest.append({**row, "status": "killed" if done else "survived", "seconds": round(secs, 2),
                         **({} if done else {"pending": True}),
                         **({"in_session": "passed"} if outcome == "passed" else {})})
        checkpoint({"module": path, "tests": pytest_args, "baseline_seconds": round(plugin.baseline, 2),
                    "seconds": round(time.perf_counter() - t0, 1), "mutants": rows + rest, "partial": True})

    plugin = _InSession(fullname, path, found, log, decided, progress=lambda: save(0))
    pytest.main(["-qq", "--assert=plain", "-p", "no:cacheprovider", "-W", "ignore", *pytest_args], plugins=[plugin])
    if plugin.baseline is None:
        raise SystemExit(f"mutation: the tests of {path} fail without any mutant ({' '.join(pytest_args)}); fix them first")
    slow_base: float | None = None
    fast = slow = 0
    last = -CHECKPOINT_EVERY  # the fresh phase starts with a checkpoint

    for i, m in enumerate(found):
        save(i)
        source = m.pop("source")
        outcome, secs = plugin.outcomes.get(i, (None, 0.0))
        if outcome in (None, "passed", "timeout"):  # a timeout is re-decided: load on a shared machine is no kill
            if slow_base is None:
                status, slow_base = _run_one(None, None, None, pytest_args, None)
                if status != "passed":
                    raise SystemExit(f"mutation: the tests of {path} fail in a fresh process without any mutant")
            outcome, secs = _run_fresh(fullname, path, source, pytest_args, slow_base)
            slow += 1
        else:
            fast += 1
        m["status"] = "survived" if outcome == "passed" else ("timeout" if outcome == "timeout" else "killed")
        m["seconds"] = round(secs, 2)
        rows.append(m)
        if m["status"] == "survived":
            log(f"  survived {path}:{m['line_number']}: {m['line']}  ->  {m['mutant']}")
    log(f"{path}: {fast} mutants decided in the session, {slow} in a fresh process; {time.perf_counter() - t0:.0f} s")
    return {"module": path, "tests": pytest_args, "baseline_seconds": round(plugin.baseline, 2),
            "seconds": round(time.perf_counter() - t0, 1), "mutants": rows}


def _identity(rows: list[dict[str, Any]]) -> list[tuple]:
    """Each mutant's identity across edits of its module: the line's text, the mutant, mutmut's index on the
    line, and which occurrence of that triple it is (a line repeated verbatim) — never the line number."""
    seen: dict[tuple, int] = {}
    out = []
    for m in rows:
        k = (m["line"], m["mutant"], m["index"])
        seen[k] = seen.get(k, 0) + 1
        out.append((*k, seen[k]))
    return out


def recheck_survivors(path: str, pytest_args: list[str], log: Any = print, unexplained_only: bool = False) -> dict[str, Any]:
    """The last results of ``path`` with each survivor and each timeout re-tested in a fresh process (the slow path);
    ``unexplained_only``: skip the survivors listed as equivalent (they stay survivors; a full run re-tests them).

    The module may have been edited since: a mutant is matched by its line's text, not its number (the line
    numbers are refreshed), a mutant of a new or changed line is tested as a new one, and the rows of mutants
    that no longer exist are dropped."""
    prev = load_results()["modules"].get(path)
    if prev is None:
        raise SystemExit(f"mutation: no earlier results for {path}; run it first")
    found = mutants(path)
    idents = _identity(found)
    old = dict(zip(_identity(prev["mutants"]), prev["mutants"]))
    status, base = _run_one(None, None, None, pytest_args, None)
    if status != "passed":
        raise SystemExit(f"mutation: the tests of {path} fail without any mutant; fix them first")
    t0 = time.perf_counter()
    n = new = 0
    listed = equivalents() if unexplained_only else {}
    rows = []
    for ident, fresh in zip(idents, found):
        source = fresh.pop("source")
        m = old.get(ident)
        if m is not None:
            m = {**m, "line_number": fresh["line_number"]}
            if m["status"] not in ("survived", "timeout") or (m["status"] == "survived" and not m.get("pending")
                                                              and (path, _line_key(path, m), m["mutant"]) in listed):
                rows.append(m)
                continue
        else:
            m = fresh
            new += 1
        outcome, secs = _run_fresh(module_name(path), path, source, pytest_args, base)
        m["status"] = "survived" if outcome == "passed" else ("timeout" if outcome == "timeout" else "killed")
        m["seconds"] = round(secs, 2)
        m.pop("pending", None)  # decided now (a mutant an interrupted run left undecided)
        n += 1
        rows.append(m)
        if m["status"] == "survived":
            log(f"  survived {path}:{m['line_number']}: {m['line']}  ->  {m['mutant']}")
    dropped = len(old.keys() - set(idents))
    prev["mutants"] = rows
    prev.pop("partial", None)
    prev["tests"] = pytest_args
    before = prev.get("rechecked", {}).get("seconds", 0.0)  # the module's time is the sum of its runs
    prev["rechecked"] = {"survivors": n - new, "new": new, "dropped": dropped,
                         "seconds": round(before + time.perf_counter() - t0, 1)}
    log(f"{path}: {n - new} survivors re-tested, {new} new mutants tested, {dropped} gone, "
        f"in {time.perf_counter() - t0:.0f} s")
    return prev


# ------------------------------------------------------------------ equivalents, check, report

def _line_key(path: str, m: dict[str, Any]) -> str:
    """The line as the equivalents list names it: a decorator line with the line it decorates (``@x (def f(...)``)."""
    line = m["line"]
    if line.startswith("@"):
        src = (ROOT / path).read_text(encoding="utf-8").split("\n")
        k = m["line_number"]
        while k < len(src) and src[k].strip().startswith("@"):
            k += 1
        if k < len(src):
            line = f"{line} ({src[k].strip()})"
    return line


def equivalents() -> dict[tuple[str, str, str], str]:
    cfg = load_config()
    data = json.loads((ROOT / cfg["equivalents"]).read_text(encoding="utf-8"))
    return {(e["module"], e["line"], e["mutant"]): e["reason"] for e in data["equivalent"]}


def measured_source_is_current(path: str, recorded: list[dict[str, Any]]) -> bool | None:
    """Whether ``recorded`` (a run's mutants) are the mutants of ``path`` as it is now: the same number, each on a line
    that still reads the same (None: mutmut is not installed, so it cannot be told)."""
    try:
        from mutmut import Context, list_mutations
    except ImportError:
        return None
    file = ROOT / path
    if not file.exists():
        return False
    source = file.read_text(encoding="utf-8")
    lines = source.split("\n")
    if len(list_mutations(Context(source=source, filename=path))) != len(recorded):
        return False
    return all(0 < m["line_number"] <= len(lines) and lines[m["line_number"] - 1].strip() == m["line"]
               for m in recorded)


def classify(results: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per module: counts, the survivors split into equivalent (with reason) and unexplained, and whether the run
    measured the module's current source."""
    eq = equivalents()
    out = {}
    for path, res in results["modules"].items():
        killed = [m for m in res["mutants"] if m["status"] in ("killed", "timeout")]
        surv = [m for m in res["mutants"] if m["status"] == "survived"]
        key = lambda m: (path, _line_key(path, m), m["mutant"])  # noqa: E731
        equiv = [(m, eq[key(m)]) for m in surv if key(m) in eq]
        unexplained = [m for m in surv if key(m) not in eq]
        killed_keys = {key(m) for m in killed}
        stale = [k for k in eq if k[0] == path and k in killed_keys]
        total = len(res["mutants"])
        denom = total - len(equiv)
        out[path] = {"total": total, "killed": len(killed), "timeouts": sum(m["status"] == "timeout" for m in killed),
                     "pending": sum(bool(m.get("pending")) for m in surv),
                     "equivalent": equiv, "survived": unexplained, "stale": stale,
                     "score": (len(killed) / denom) if denom else 1.0,
                     "seconds": res["seconds"] + res.get("rechecked", {}).get("seconds", 0.0),
                     "tests": res["tests"], "load": res.get("load", results.get("load", "?")),
                     "when": res.get("when", results.get("when", "?")),
                     "current": measured_source_is_current(path, res["mutants"])}
    return out


def load_results(path: Path | None = None) -> dict[str, Any]:
    path = path or results_path()
    if not path.exists():
        raise SystemExit(f"mutation: no results at {path}; run `python .ci/mutation.py run` first")
    return json.loads(path.read_text(encoding="utf-8"))


def store_modules(done: list[dict[str, Any]], path: Path | None = None) -> None:
    """Put each module's results into the results file (read-modify-write under a lock: parallel runs share it)."""
    import fcntl

    path = path or results_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        results = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"modules": {}}
        for d in done:
            results["modules"][d["module"]] = d
        order = list(load_config()["modules"])  # the configuration's order, unconfigured modules last
        results["modules"] = dict(sorted(results["modules"].items(), key=lambda kv: (
            order.index(kv[0]) if kv[0] in order else len(order), kv[0])))
        results["cpus"] = results.get("cpus", os.cpu_count())
        path.write_text(_dumps(results), encoding="utf-8")


def _dumps(results: dict[str, Any]) -> str:
    """JSON with one mutant per line: a rerun's diff shows which mutants changed status."""
    mods = []
    for path, res in results["modules"].items():
        head = {k: v for k, v in res.items() if k != "mutants"}
        rows = ",\n".join("  " + json.dumps(m, ensure_ascii=False) for m in res["mutants"])
        body = json.dumps(head, ensure_ascii=False)[:-1]
        mods.append(f" {json.dumps(path)}: {body}, \"mutants\": " + (f"[\n{rows}\n ]}}" if rows else "[]}"))
    top = {k: v for k, v in results.items() if k != "modules"}
    return "{" + json.dumps(top)[1:-1] + (", " if top else "") + '"modules": {\n' + ",\n".join(mods) + "\n}}\n"


def cmd_check(_: argparse.Namespace, only: list[str] | None = None) -> int:
    bad = 0
    results = load_results()
    if only is not None:
        results = {"modules": {p: r for p, r in results["modules"].items() if p in only}}
    for path, c in classify(results).items():
        for m in c["survived"]:
            print(f"SURVIVED {path}:{m['line_number']}: {m['line']}  ->  {m['mutant']}  (add a test that fails on "
                  f"it, or list it in tests/mutation_equivalents.json with the reason it is equivalent)")
            bad += 1
        for key in c["stale"]:
            print(f"STALE equivalent {key[0]}: {key[1]}  ->  {key[2]}: the tests now kill it; remove it from the list")
            bad += 1
        print(f"{path}: {c['killed']}/{c['total'] - len(c['equivalent'])} killed "
              f"({100 * c['score']:.1f}%), {len(c['equivalent'])} equivalent")
    return 1 if bad else 0


def cmd_merge(args: argparse.Namespace) -> int:
    """Fold the modules of other results files (parallel workers, other machines) into the results."""
    done = []
    for f in args.files:
        top = load_results(Path(f))
        for path, res in top["modules"].items():
            if getattr(args, "module", None) and path not in args.module:
                continue
            res.setdefault("module", path)
            for k in ("mutmut", "cpus"):  # an older run kept these for the whole file only
                if k in top:
                    res.setdefault(k, top[k])
            done.append(res)
            print(f"merged {path} ({len(res['mutants'])} mutants, run {res.get('when', '?')}) from {f}")
    store_modules(done)
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    """reports/mutation.md from the committed results (the page itself: .ci/mutation_report.py)."""
    page_file = Path(__file__).with_name("mutation_report.py")
    spec = importlib.util.spec_from_file_location("rfverify_ci_mutation_report", page_file)
    page = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(page)  # type: ignore[union-attr]
    cfg, results = load_config(), load_results()
    out = Path(getattr(args, "out", None) or ROOT / cfg["report"])
    out.write_text(page.render(cfg, results, classify(results)), encoding="utf-8")
    print(f"wrote {out}")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    import mutmut

    cfg = load_config()
    modules: dict[str, list[str]] = cfg["modules"]
    if args.module:
        unknown = [m for m in args.module if m not in modules]
        if unknown:
            raise SystemExit(f"mutation: not configured: {', '.join(unknown)}; known: {', '.join(modules)}")
        chosen = args.module
    elif args.fast:
        chosen = cfg["fast"]
    else:
        chosen = list(modules)
    _preimport()
    t0 = time.perf_counter()
    for path in chosen:
        log = lambda s: print(s, flush=True)  # noqa: E731

        def stamp(done: dict[str, Any]) -> dict[str, Any]:  # per module: runs differ
            done.update(when=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), mutmut=mutmut.__version__,
                        load=" ".join(f"{x:.1f}" for x in os.getloadavg()), cpus=os.cpu_count())
            return done

        resume = None
        if args.resume:
            resume = load_results()["modules"].get(path)
            if resume is None or not resume.get("partial"):
                raise SystemExit(f"mutation: no interrupted run of {path} to resume (its results are not partial)")
        done = (recheck_survivors(path, modules[path], log, args.unexplained) if args.recheck
                else run_module(path, modules[path], log, checkpoint=lambda part: store_modules([stamp(part)]),
                                resume=resume))
        done.pop("partial", None)
        store_modules([stamp(done)])
    print(f"mutation run: {time.perf_counter() - t0:.0f} s wall for {', '.join(chosen)}")
    # every run judges what it ran: each survivor must be a listed equivalent (CI relies on this exit code)
    return cmd_check(args, only=chosen)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog=".ci/mutation.py", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="mutate and test (--fast: the CI subset)")
    r.add_argument("--fast", action="store_true", help="only the CI subset ([tool.rfverify.mutation] fast)")
    r.add_argument("--module", action="append", help="a configured module path (repeatable)")
    r.add_argument("--recheck", action="store_true",
                   help="re-test only the last run's survivors and timeouts afresh (after adding tests; an edited "
                        "module's mutants are matched by their line's text)")
    r.add_argument("--resume", action="store_true",
                   help="continue an interrupted run of --module M from its checkpoint (its kills are not re-run; "
                        "its session survivors go straight to their fresh confirmation)")
    r.add_argument("--unexplained", action="store_true",
                   help="with --recheck: skip the survivors already listed as equivalent")
    sub.add_parser("check", help="exit 1 on a survivor not listed as equivalent, or a stale equivalent")
    rp = sub.add_parser("report", help="write reports/mutation.md from the committed results")
    rp.add_argument("--out", help="write the report here instead (tests compare it with the committed one)")
    mp = sub.add_parser("merge", help="fold other results files' modules into the results")
    mp.add_argument("files", nargs="+")
    mp.add_argument("--module", action="append", help="only this module's results (repeatable); default: every one "
                    "in the files (a recheck's file holds a copy of the others, as they were when it started)")
    args = p.parse_args(argv)
    return {"run": cmd_run, "check": cmd_check, "report": cmd_report, "merge": cmd_merge}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())

"""The global-RNG baseline of the guard (:class:`rfverify.containment.guard.guarded`), moved past first imports.

A library's first import may seed or draw from a global generator: a first ``import jax`` changes numpy's
global state, a first ``import sklearn.kernel_approximation`` Python's ``random`` state (measured 2026-11-29,
2-core x86_64 Linux, Python 3.11).  A plug-in that imports such a library lazily (inside ``fit``) is not
drawing from the global generator itself, and must not be blamed for it.

:class:`ImportWatch` wraps ``builtins.__import__`` and ``importlib.import_module`` while a guarded scope runs.
Around each outermost import that loads a new module it reads the states before and after: the state an
import's own change left behind is accepted as a baseline too.  At the end, a state is the plug-in's doing if
it equals neither the scope's baseline nor a state an import left (the caller's own seeding inside the scope,
restored before the end, is never blamed).  A plug-in's draw made after an import is still caught; one made
just before an import that changes the same state is judged by the next scope, where the module is loaded.
Modules already loaded take the fast path (no state is read).
"""

from __future__ import annotations

import builtins
import importlib
import random
import sys
import threading
from typing import Any

import numpy as np

__all__ = ["ImportWatch"]

def _same_np(a: Any, b: Any) -> bool:
    return a[0] == b[0] and a[2:] == b[2:] and np.array_equal(a[1], b[1])


class ImportWatch:
    """Context manager: ``np_changed()`` / ``py_changed()`` say whether numpy's / Python's global random state
    differs, at the end, from the baseline and from the state every state-changing import left behind;
    ``imports`` lists the imports that changed one."""

    def __init__(self, np_state: Any, py_state: Any) -> None:
        self.np_accepted: list[Any] = [np_state]
        self.py_accepted: list[Any] = [py_state]
        self.imports: list[str] = []
        self._thread = threading.get_ident()
        self._depth = 0  # inside an outermost import (per watch: a nested scope's watch sees the import too)
        self._saved: tuple[Any, Any] | None = None

    def _wrap(self, original: Any, module_arg: int) -> Any:
        watch = self

        def watched(*args: Any, **kwargs: Any) -> Any:
            name = args[0] if args else kwargs.get("name", "")
            fromlist = args[3] if module_arg == 0 and len(args) > 3 else kwargs.get("fromlist")
            level = args[4] if module_arg == 0 and len(args) > 4 else kwargs.get("level", 0)
            if (threading.get_ident() != watch._thread or watch._depth > 0
                    or (isinstance(name, str) and name in sys.modules and not fromlist and not level)):
                return original(*args, **kwargs)
            loaded = len(sys.modules)
            np_before, py_before = np.random.get_state(), random.getstate()
            watch._depth = 1
            try:
                return original(*args, **kwargs)
            finally:
                watch._depth = 0
                if len(sys.modules) != loaded:
                    np_now, py_now = np.random.get_state(), random.getstate()
                    changed = False
                    if not _same_np(np_before, np_now):
                        watch.np_accepted.append(np_now)
                        changed = True
                    if py_now != py_before:
                        watch.py_accepted.append(py_now)
                        changed = True
                    if changed:
                        watch.imports.append(str(name))

        return watched

    def __enter__(self) -> "ImportWatch":
        self._saved = builtins.__import__, importlib.import_module
        builtins.__import__ = self._wrap(builtins.__import__, 0)
        importlib.import_module = self._wrap(importlib.import_module, 1)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._saved is not None:  # idempotent
            builtins.__import__, importlib.import_module = self._saved
            self._saved = None

    def np_changed(self) -> bool:
        now = np.random.get_state()
        return not any(_same_np(a, now) for a in self.np_accepted)

    def py_changed(self) -> bool:
        now = random.getstate()
        return not any(a == now for a in self.py_accepted)

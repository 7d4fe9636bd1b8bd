"""Work-unit functions for tests/test_executors.py, importable by name on pool and Dask workers.

``die_then_answer`` kills its own process the first ``deaths`` times it runs (counted by marker
files), the way a segfaulting plug-in or the kernel's OOM killer takes a worker down mid-unit.
Every start is appended to ``starts.log`` so a test can count how many units were run again.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path


def die_then_answer(folder: str, key: str, deaths: int, value: int, whom: str = "self") -> int:
    """``whom``: "self" kills the process running the unit; "parent" kills its parent too (on a Dask
    worker: the worker process itself, whose unit runner child this is)."""
    where = Path(folder)
    with open(where / "starts.log", "a", encoding="utf-8") as fh:
        fh.write(key + "\n")
    died = len(list(where.glob(f"{key}.died.*")))
    if died < deaths:
        (where / f"{key}.died.{died}").touch()
        if whom == "parent":
            os.kill(os.getppid(), signal.SIGKILL)
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.05)
    return value


def sleep_then_answer(seconds: float, value: int) -> int:
    time.sleep(seconds)
    return value


def starts(folder: str) -> list[str]:
    path = Path(folder) / "starts.log"
    return path.read_text(encoding="utf-8").split() if path.exists() else []

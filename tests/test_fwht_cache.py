"""numba's disk cache of the FWHT kernels hits in a second process, with bit-identical outputs.

The kernels live at module level in ``implementations/_fwht_kernels.py``.  When they were closures
defined inside ``_fwht_numba.kernels()`` (the broken twin this test was run against), the second process
loaded the cache index, found no matching entry and compiled again ("data saved" a second time, never
"data loaded"), so every process paid the compile (about 5 s CPU).  Each process here starts with
``NUMBA_DEBUG_CACHE=1`` and a cache directory of the test's own, so the messages are numba's own account
of what it did.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba", reason="the numba backend is not installed: pip install 'rfverify[fast]'")

#: A second process transforms float32 and float64 batches (scalar rows, one block, several passes;
#: allocating, in place, normalised) and prints a digest of every output, and one of the textbook radix-2
#: stage loop's outputs (numpy), to which the unnormalised kernels are bit-identical.
SCRIPT = r"""
import hashlib, sys
import numpy as np
from rfverify.implementations.structured import fwht

def stages(X):
    x = X.copy()
    n, d = x.shape
    h = 1
    while h < d:
        v = x.reshape(n, d // (2 * h), 2, h)
        a, b = v[:, :, 0, :].copy(), v[:, :, 1, :].copy()
        v[:, :, 0, :], v[:, :, 1, :] = a + b, a - b
        h *= 2
    return x

h_all, h_kernel, h_stages = hashlib.sha256(), hashlib.sha256(), hashlib.sha256()
for dt in (np.float32, np.float64):
    for d in (4, 64, 1024, 4096):
        X = np.random.default_rng(d).standard_normal((5, d)).astype(dt)
        Y = X.copy()
        fwht(Y, inplace=True, backend="numba")
        h_kernel.update(fwht(X, backend="numba").tobytes() + Y.tobytes())
        h_stages.update(stages(X).tobytes() * 2)
        h_all.update(fwht(X, normalized=True, backend="numba").tobytes())
print("DIGEST", h_all.hexdigest() + h_kernel.hexdigest(), h_kernel.hexdigest(), h_stages.hexdigest())
print("IMPORTED", "rfverify.implementations._fwht_kernels" in sys.modules)
"""


def _run(cache: Path) -> tuple[str, list[str]]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "NUMBA_DEBUG_CACHE": "1"}
    env.pop("NUMBA_DISABLE_JIT", None)
    proc = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = (proc.stdout + proc.stderr).splitlines()
    digest = next(line for line in lines if line.startswith("DIGEST"))
    assert "IMPORTED True" in lines
    return digest, [line for line in lines if line.startswith("[cache]") and "_fwht_kernels" in line]


def _count(log: list[str], what: str) -> int:
    return sum(what in line for line in log)


def test_second_process_loads_the_kernels_from_the_cache(tmp_path):
    first_digest, first = _run(tmp_path)
    assert _count(first, "data saved") >= 2, "the first process compiles (float32 and float64) and saves:\n" + "\n".join(first)
    assert _count(first, "data loaded") == 0, "a fresh cache directory cannot hit:\n" + "\n".join(first)
    second_digest, second = _run(tmp_path)
    assert _count(second, "data loaded") >= 2, "the second process must load the compiled kernels:\n" + "\n".join(second)
    assert _count(second, "data saved") == 0, "the second process compiled again (cache miss):\n" + "\n".join(second)
    assert second_digest == first_digest, "outputs differ between the compiling and the cache-loading process"
    kernel, stage_loop = first_digest.split()[2:]
    assert kernel == stage_loop, "the numba kernels are not bit-identical to the radix-2 stage loop"


def test_importing_the_backend_module_does_not_import_numba():
    code = ("import sys; import rfverify.implementations._fwht_numba as m; m.pass_plan(10, 16); "
            "print('numba' in sys.modules, 'rfverify.implementations._fwht_kernels' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False"]

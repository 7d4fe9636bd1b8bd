"""Where the CPU time of ``rfverify report --all`` goes: every zoo entry verified as the main job verifies it.

Usage (docs/performance.md):  RFVERIFY_INPROCESS=1 python docs/profile_zoo.py OUT.jsonl [K N]
(entries K, K + N, K + 2N, ... so that N processes can share the zoo).

Each entry runs ``verify_entry`` with the default seed and profile, in this process (``RFVERIFY_INPROCESS=1``: all
CPU is this process's), with **BLAS on one thread** -- as the main job runs it (``rfverify.containment.executors.run_task``
wraps every unit in ``threadpool_limits(1)``).  Without that limit, OpenBLAS's spinning helper threads are
counted too: the first profile (2026-11-25 20:20 UTC) measured arccos-deep-3 at 135.9 s of CPU that way; its
real unit costs 21.4 s (``/usr/bin/time rfverify report --only arccos-deep-3 --jobs 1``, children included).
CPU seconds per check by wrapping the runner's ``run_check``, ``preflight`` and ``_metrics``; one JSON line per
entry, written as soon as it is done.
"""

from __future__ import annotations

import json
import os
import sys
import time

from threadpoolctl import threadpool_limits

import rfverify.runner as runner
from rfverify.seeding import DEFAULT_SEED
from rfverify.studies.zoo import ZOO, verify_entry

assert os.environ.get("RFVERIFY_INPROCESS") == "1", "set RFVERIFY_INPROCESS=1 (all CPU in this process)"
out_path = sys.argv[1]
k, n = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else (0, 1)
per_check: dict[str, float] = {}


def _timed(label, fn):
    def wrapper(*args, **kwargs):
        t = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            key = label(*args)
            per_check[key] = per_check.get(key, 0.0) + time.process_time() - t
    return wrapper


runner.run_check = _timed(lambda config, spec, *a: spec.name, runner.run_check)
runner.preflight = _timed(lambda *a: "(preflight)", runner.preflight)
runner._metrics = _timed(lambda *a: "(metrics)", runner._metrics)

with threadpool_limits(limits=1), open(out_path, "a", encoding="utf-8") as fh:
    for entry in ZOO[k::n]:
        per_check.clear()
        t, w = time.process_time(), time.monotonic()
        report = verify_entry(entry, seed=DEFAULT_SEED, profile="default")
        row = {"entry": entry.name, "kind": entry.kind, "cpu": time.process_time() - t, "wall": time.monotonic() - w,
               "checks": dict(per_check), "statuses": {r.check: r.status for r in report.results},
               "load": os.getloadavg()[0]}
        fh.write(json.dumps(row) + "\n")
        fh.flush()

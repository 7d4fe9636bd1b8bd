"""Session set-up shared by every test module.

BLAS on one thread: the main job already runs every unit so (``rfverify.containment.executors.run_task``), but a
test calling ``rfverify.verify`` or the CLI in-process used OpenBLAS's default of one thread per core, whose
helper threads spin between the many small products of a check (48 x 16 @ 16 x 342 and the like).  Measured on
the 2-core machine at load 14: 100 unbiasedness trials of arccos-deep-3 took 45 ms of CPU each with the default
threads and 6.9 ms with one (6.5x), and under ``pytest -n 2`` the spinning threads of one worker take the core
the other worker needs.  Verdicts do not depend on it (every statistic is a seed-derived sample; the round-off of
a sum may differ in the last bit, which every tolerance already allows, and the main job's reports are made with
one thread).  ``OPENBLAS_NUM_THREADS`` reaches the BLAS libraries loaded later (scipy's own OpenBLAS) and the
subprocesses tests start; ``threadpool_limits`` the ones already loaded (numpy's, imported by the rfverify
pytest plugin before this file).
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from threadpoolctl import threadpool_limits  # noqa: E402

threadpool_limits(limits=1, user_api="blas")

pytest_plugins = ["pytester"]

"""The mutation-testing CI subset: ``python .ci/mutation.py run --fast`` inside the README's
test command.

The fast modules (``[tool.rfverify.mutation] fast`` in pyproject.toml: the exit-code decision and the seeding
keys, 46 mutants, about 20 s of CPU) are mutated token by token; every mutant must be killed by its configured
tests or be listed in ``tests/mutation_equivalents.json`` with its reason.  The run exits 1 on an unexplained
survivor (``tests/test_mutation_tool.py`` shows the tool fails on one), so a test deleted or weakened in
``tests/test_exit_status.py`` or ``tests/test_seeding.py`` fails CI here.  The other modules (hours of CPU) run
outside CI: docs/mutation-testing.md.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytest.importorskip("mutmut", reason="the `mutation` extra (mutmut 2.x) is not installed")


def test_fast_subset_leaves_no_unexplained_survivor(tmp_path):
    env = {**os.environ, "RFVERIFY_MUTATION_RESULTS": str(tmp_path / "results.json")}
    run = subprocess.run([sys.executable, str(ROOT / ".ci" / "mutation.py"), "run", "--fast"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=900)
    out = run.stdout + run.stderr
    assert run.returncode == 0, f"mutation run --fast exited {run.returncode}:\n{out[-4000:]}"
    assert "exit_status.py" in out and "seeding.py" in out, out[-2000:]
    assert "killed" in out, out[-2000:]

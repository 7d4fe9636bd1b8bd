"""The product (rfverify/, implementations/, properties/) is clean under the lint configured in pyproject.toml
(``[tool.ruff]``), which ``.ci/run`` also runs before the tests; the configuration catches what it promises."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ["rfverify", "implementations", "properties"]

pytest.importorskip("ruff", reason="ruff is in the test extra: pip install -e '.[test]'")


def _ruff(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", *args], cwd=cwd,
                          capture_output=True, text=True)


def test_the_product_is_lint_clean():
    proc = _ruff(*PRODUCT)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_configuration_catches_an_unused_import_and_an_undefined_name(tmp_path):
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "probe.py").write_text("import os\n\n\ndef f():\n    return undefined_name\n")
    proc = _ruff("probe.py", cwd=tmp_path)
    assert proc.returncode == 1 and "F401" in proc.stdout and "F821" in proc.stdout, proc.stdout

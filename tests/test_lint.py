"""The product (rfverify/, implementations/, properties/) is clean under the lint and the type check configured in
pyproject.toml (``[tool.ruff]``, ``[tool.mypy]``), which ``.ci/run`` also runs before the tests; each configuration
catches what it promises."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ["rfverify", "implementations", "properties"]

def _need(module: str, extra: str = "test") -> None:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed; it is in the {extra} extra: pip install -e '.[{extra}]'")


def _ruff(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    _need("ruff")
    return subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", *args], cwd=cwd,
                          capture_output=True, text=True)


def _mypy(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    _need("mypy")
    return subprocess.run([sys.executable, "-m", "mypy", *args], cwd=cwd, capture_output=True, text=True)


@pytest.fixture(scope="module")
def product_mypy() -> subprocess.CompletedProcess[str]:
    """``python -m mypy`` over the product as configured in pyproject.toml (incremental: .mypy_cache/)."""
    return _mypy()


def test_the_product_is_lint_clean():
    proc = _ruff(*PRODUCT)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_configuration_catches_an_unused_import_and_an_undefined_name(tmp_path):
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "probe.py").write_text("import os\n\n\ndef f():\n    return undefined_name\n")
    proc = _ruff("probe.py", cwd=tmp_path)
    assert proc.returncode == 1 and "F401" in proc.stdout and "F821" in proc.stdout, proc.stdout


def test_the_product_type_checks(product_mypy):
    assert product_mypy.returncode == 0, product_mypy.stdout + product_mypy.stderr
    assert "Success: no issues found" in product_mypy.stdout, product_mypy.stdout


def test_the_type_check_configuration_catches_a_wrong_return_type_and_a_bare_ignore(tmp_path):
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "probe.py").write_text('def f(x: int) -> str:\n    return x\n\n\ny: int = "a"  # type: ignore\n')
    proc = _mypy("probe.py", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "probe.py:2: error:" in proc.stdout and "[return-value]" in proc.stdout, proc.stdout
    assert "probe.py:5: error:" in proc.stdout and "[ignore-without-code]" in proc.stdout, proc.stdout


def test_the_type_check_passes_a_correct_twin(tmp_path):
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "probe.py").write_text('def f(x: int) -> str:\n    return str(x)\n\n\ny: int = 1\n')
    proc = _mypy("probe.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr

"""The product (rfverify/, implementations/, properties/) is clean under the lint and the type check configured in
pyproject.toml (``[tool.ruff]``, ``[tool.mypy]``), which ``.ci/run`` also runs before the tests; each configuration
catches what it promises."""

from __future__ import annotations

import importlib.util
import io
import json
import re
import shutil
import subprocess
import sys
import tokenize
from pathlib import Path
from typing import Mapping, Sequence

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


# -- typing.Any kept to where a type is genuinely unknown -------------------------------------------------------
#: The recorded number of ``Any`` in each product file (tests/any_budget.json); the product may not hold more in
#: total.  Not counted: ``Any`` in strings and comments, and the definitions of the named aliases that say why a
#: value's type is unknown (``PluginObject``, ``PluginArray``: a plug-in's own objects and inputs,
#: rfverify/registry.py; ``JSONValue``: JSON data of any schema version, rfverify/jsontypes.py) -- their uses are
#: not ``Any`` tokens either.
ANY_BUDGET = ROOT / "tests" / "any_budget.json"
_ALIAS_DEFINITION = re.compile(r"^\w+: TypeAlias = .*\bAny\b")


def any_counts(root: Path, folders: Sequence[str] = PRODUCT) -> dict[str, int]:
    """``{path relative to root: number of Any tokens}`` of every ``.py`` file under ``folders`` (alias
    definitions not counted)."""
    counts: dict[str, int] = {}
    for folder in folders:
        for path in sorted((root / folder).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            lines = text.splitlines()
            n = sum(1 for tok in tokenize.generate_tokens(io.StringIO(text).readline)
                    if tok.type == tokenize.NAME and tok.string == "Any"
                    and not _ALIAS_DEFINITION.match(lines[tok.start[0] - 1]))
            if n:
                counts[path.relative_to(root).as_posix()] = n
    return counts


def any_growth(counts: Mapping[str, int], budget: Mapping[str, int]) -> str | None:
    """None when the product holds no more ``Any`` than the budget in total; else what grew, file by file."""
    total, allowed = sum(counts.values()), sum(budget.values())
    if total <= allowed:
        return None
    grown = [f"  {path}: {budget.get(path, 0)} -> {n}" for path, n in sorted(counts.items()) if n > budget.get(path, 0)]
    return (f"typing.Any in the product: {total}, more than the {allowed} recorded in {ANY_BUDGET.name}; where it "
            "grew:\n" + "\n".join(grown) + "\nwrite the type (a Protocol, a TypedDict, numpy.typing, the kind's "
            "context); where it is genuinely unknown, name it (PluginObject, PluginArray, JSONValue); after removing "
            "some, record the new counts: python tests/test_lint.py record-any")


def test_any_does_not_grow_in_the_product():
    budget = json.loads(ANY_BUDGET.read_text(encoding="utf-8"))
    problem = any_growth(any_counts(ROOT), budget)
    assert problem is None, problem


def test_the_any_count_catches_a_new_any_and_passes_its_typed_twin(tmp_path):
    pkg = tmp_path / "rfverify"
    pkg.mkdir()
    (pkg / "typed.py").write_text(
        "from typing import Any, TypeAlias\n\n"
        "PluginObject: TypeAlias = Any  # a named alias: not counted\n"
        "x: Any = 1\n"
        "def f(a: dict[str, Any]) -> str:\n"
        "    return 'Any in a string is not counted'\n")
    counts = any_counts(tmp_path, ["rfverify"])
    assert counts == {"rfverify/typed.py": 3}, counts  # the import, x and f's parameter
    assert any_growth(counts, {"rfverify/typed.py": 3}) is None
    (pkg / "typed.py").write_text((pkg / "typed.py").read_text() + "def g(b: Any) -> None: ...\n")
    grown = any_growth(any_counts(tmp_path, ["rfverify"]), {"rfverify/typed.py": 3})
    assert grown is not None and "rfverify/typed.py: 3 -> 4" in grown, grown
    (pkg / "typed.py").write_text((pkg / "typed.py").read_text().replace("def g(b: Any)", "def g(b: int)"))
    assert any_growth(any_counts(tmp_path, ["rfverify"]), {"rfverify/typed.py": 3}) is None


if __name__ == "__main__":  # python tests/test_lint.py record-any: write the current counts as the budget
    if sys.argv[1:] != ["record-any"]:
        sys.exit("usage: python tests/test_lint.py record-any")
    counts = any_counts(ROOT)
    ANY_BUDGET.write_text(json.dumps(dict(sorted(counts.items())), indent=1) + "\n", encoding="utf-8")
    print(f"{ANY_BUDGET.relative_to(ROOT)}: {sum(counts.values())} Any in {len(counts)} files")

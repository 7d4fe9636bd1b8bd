"""No product function over MAX_LINES lines: a check, a study or a helper that long is split into parts that can be
read (and tested) one by one — a statistical check into design, measure and verdict (:mod:`rfverify.measurement`).

The walk reads every ``def`` in ``rfverify/``, ``properties/`` and ``implementations/`` with ``ast`` (methods and
nested functions included, each counted from its first decorator-free line to its last, docstring included).
ALLOWED names the functions still over the limit, with their length when listed (none today); an entry whose
function is now short enough (or gone) fails as stale, so the list may only shrink.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("rfverify", "properties", "implementations")
MAX_LINES = 60

#: The only modules the allow-list may name (restructured separately; each entry goes when its module is split).
OWNED_ELSEWHERE = ("rfverify/containment/supervise.py", "rfverify/adapters.py", "rfverify/cli.py", "rfverify/kinds/")

#: (module, qualified name) -> its length in lines when listed.
ALLOWED: dict[tuple[str, str], int] = {}


def function_lengths(path: Path) -> dict[str, int]:
    """Qualified name (``Class.method``, ``outer.<locals>.inner``) -> lines, for every function in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out: dict[str, int] = {}

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                out[name] = (child.end_lineno or child.lineno) - child.lineno + 1
                walk(child, name + ".<locals>.")
            elif isinstance(child, ast.ClassDef):
                walk(child, prefix + child.name + ".")
            else:
                walk(child, prefix)

    walk(tree, "")
    return out


def long_functions(root: Path = ROOT, limit: int = MAX_LINES) -> dict[tuple[str, str], int]:
    """(module, qualified name) -> lines of every product function longer than ``limit``."""
    found: dict[tuple[str, str], int] = {}
    for top in PRODUCT:
        for path in sorted((root / top).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            for name, n in function_lengths(path).items():
                if n > limit:
                    found[(rel, name)] = n
    return found


def test_no_product_function_is_longer_than_the_limit():
    over = {k: n for k, n in long_functions().items() if k not in ALLOWED}
    assert not over, (f"{len(over)} function(s) over {MAX_LINES} lines — split them (a check into design, measure "
                      "and verdict; a helper per step):\n" + "\n".join(
                          f"  {mod}: {name} ({n} lines)" for (mod, name), n in sorted(over.items())))


def test_the_allow_list_names_only_long_functions_in_modules_restructured_elsewhere():
    found = long_functions()
    stale = [k for k in ALLOWED if k not in found]
    assert not stale, (f"allowed but now at most {MAX_LINES} lines (or gone): remove from ALLOWED: "
                       + ", ".join(f"{m}: {n}" for m, n in stale))
    outside = [k for k in ALLOWED if not k[0].startswith(OWNED_ELSEWHERE)]
    assert not outside, f"ALLOWED may only name the modules in OWNED_ELSEWHERE, not {outside}"
    grown = {k: (found[k], n) for k, n in ALLOWED.items() if found[k] > n}
    assert not grown, "an allowed function grew (now, listed): " + ", ".join(
        f"{m}: {name} {now} > {was}" for (m, name), (now, was) in grown.items())


def _module(tmp_path: Path, body_lines: int) -> Path:
    pkg = tmp_path / "properties"
    pkg.mkdir(exist_ok=True)
    for top in PRODUCT:
        (tmp_path / top).mkdir(exist_ok=True)
    body = "\n".join(f"    x{i} = {i}" for i in range(body_lines - 1))
    (pkg / "check.py").write_text(f"class C:\n    def m(self):\n        def f():\n            return 0\n"
                                  f"        return f\n\n\ndef long():\n{body}\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("lines, caught", [(MAX_LINES, False), (MAX_LINES + 1, True)])
def test_the_walk_catches_one_line_over_and_passes_the_limit(tmp_path, lines, caught):
    root = _module(tmp_path, lines)
    found = long_functions(root)
    assert (("properties/check.py", "long") in found) is caught
    assert function_lengths(root / "properties" / "check.py")["C.m.<locals>.f"] == 2

"""The wheel contains every package, and nothing generic lands at the top of site-packages."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAPPING = {"rfverify": "rfverify", "rfverify.implementations": "implementations", "rfverify.properties": "properties"}


def _declared() -> set[str]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return set(data["tool"]["setuptools"]["packages"])


def test_every_package_directory_is_declared():
    found = set()
    for pkg, folder in MAPPING.items():
        base = ROOT / folder
        for init in base.rglob("__init__.py"):
            if "__pycache__" in init.parts:
                continue
            rel = init.parent.relative_to(base).parts
            found.add(".".join((pkg, *rel)) if rel else pkg)
    declared = _declared()
    assert found - declared == set(), f"add to pyproject [tool.setuptools] packages: {sorted(found - declared)}"
    assert declared - found == set(), f"declared but missing: {sorted(declared - found)}"


def test_namespace_is_clean():
    assert all(p == "rfverify" or p.startswith("rfverify.") for p in _declared())
    assert re.search(r'"rfverify\.properties" = "properties"', (ROOT / "pyproject.toml").read_text())

"""Docstring and README examples run; the check registry, docs and exports stay in sync."""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import pytest

import rfverify
from rfverify.kinds import KINDS, checks_for

ROOT = Path(__file__).resolve().parents[1]
DOCTEST_MODULES = ["rfverify.seeding", "rfverify.kernels", "rfverify.implementations.rff", "rfverify.implementations._base",
                   "rfverify.messages", "rfverify.studies.batch", "rfverify.param_map", "rfverify.tolerances",
                   "rfverify.strategies", "rfverify.explore"]


@pytest.mark.parametrize("name", DOCTEST_MODULES)
def test_module_doctests(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_readme_examples_run(monkeypatch):
    monkeypatch.chdir(ROOT)
    result = doctest.testfile(str(ROOT / "README.md"), module_relative=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_every_check_documented_in_registry_and_readme():
    readme = (ROOT / "README.md").read_text()
    for kind in KINDS:
        for spec in checks_for(kind):
            doc = spec.doc
            assert doc, f"{kind}/{spec.name} has no docstring"
            for word in ("Property", "Test", "Applies to"):
                assert word in doc, f"{kind}/{spec.name}: docstring lacks '{word}:'"
            assert f"`{spec.name}`" in readme, f"README's check catalogue lacks `{spec.name}`"


def test_public_exports_exist():
    for name in rfverify.__all__:
        assert hasattr(rfverify, name), name


def test_readme_gives_the_two_setup_commands_and_ci_runs_the_test_one():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "&& rfverify report --all\n" in readme  # the main job writes the git-ignored rfverify-reports/
    assert "rfverify-reports/" in readme and "rfverify report --all --out reports/" in readme  # maintainers
    m = re.search(r"python -m pytest -n 2 -q", readme)
    assert m and "python -m pytest -n 2 -q" in ci

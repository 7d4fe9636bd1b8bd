"""The layers of ARCHITECTURE.md, enforced: no import cycle, no import against the layer order, no file over
800 lines.

The imports are read with :mod:`ast` from every module of ``rfverify/``, ``properties/`` and
``implementations/`` (installed as ``rfverify.properties`` and ``rfverify.implementations``), including imports
inside functions, so a lazy import cannot hide an edge.  Layers, lowest first:

* **core** — ``rfverify/*.py`` (errors, validation, seeding, profiles, stats, tolerances, results, registry,
  runner, adapters, domains, metrics, options, progress), ``rfverify/containment/`` (guard, supervisor, the
  plug-in's process, executors), ``rfverify/kernels/``,
  ``rfverify/highprec/``: imports only core;
* **implementations** — the reference schemes: core only;
* **kinds** — ``rfverify/kinds/``: core, implementations (the reference schemes a kind hands its checks);
* **properties** — the checks: core and kinds, never implementations;
* **report** — ``rfverify/report/``: core only (it renders results);
* **studies** — ``rfverify/studies/``: anything below the facade;
* **facade** — ``rfverify/__init__.py``, ``cli.py``, ``pytest_plugin.py``: anything.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = {"rfverify": ROOT / "rfverify", "rfverify.properties": ROOT / "properties",
           "rfverify.implementations": ROOT / "implementations"}
MAX_LINES = 800

#: layer -> the layers it may import (itself included).
ALLOWED = {
    "core": {"core"},
    "implementations": {"core", "implementations"},
    "kinds": {"core", "implementations", "kinds"},
    "properties": {"core", "kinds", "properties"},
    "report": {"core", "report"},
    "studies": {"core", "implementations", "kinds", "properties", "report", "studies"},
    "facade": {"core", "implementations", "kinds", "properties", "report", "studies", "facade"},
}


def modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for pkg, folder in SOURCES.items():
        for path in folder.rglob("*.py"):
            rel = path.relative_to(folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            name = ".".join([pkg, *parts]) if parts else pkg
            if pkg == "rfverify" and parts and parts[0] in ("properties", "implementations"):
                continue
            out[name] = path
    return out


def layer(module: str) -> str:
    if module in ("rfverify", "rfverify.cli", "rfverify.pytest_plugin"):
        return "facade"
    for prefix, name in (("rfverify.implementations", "implementations"), ("rfverify.properties", "properties"),
                         ("rfverify.kinds", "kinds"), ("rfverify.report", "report"), ("rfverify.studies", "studies")):
        if module == prefix or module.startswith(prefix + "."):
            return name
    return "core"


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports(mods: dict[str, Path]) -> dict[str, set[str]]:
    """module -> the rfverify modules it imports (``from pkg import mod`` counts as the submodule)."""
    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        edges: set[str] = set()
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(name, path.name == "__init__.py", node)
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            for t in targets:
                while t and t not in mods:  # rfverify.kernels.base.Kernel -> rfverify.kernels.base
                    t = t.rpartition(".")[0]
                if t and t != name and t.startswith("rfverify"):
                    edges.add(t)
        graph[name] = edges
    return graph


MODS = modules()
GRAPH = imports(MODS)


def test_the_graph_is_read():
    assert len(MODS) > 60 and "rfverify.kinds.base" in MODS and "rfverify.properties.haar" in MODS
    assert "rfverify.registry" in GRAPH["rfverify.kinds"]
    # a function-level import is an edge too
    assert "rfverify.runner" in GRAPH["rfverify.kinds.options"]


def test_no_layer_violation():
    bad = sorted(f"{a} ({layer(a)}) imports {b} ({layer(b)})" for a, targets in GRAPH.items() for b in targets
                 if layer(b) not in ALLOWED[layer(a)])
    assert not bad, "imports against the layer order (see ARCHITECTURE.md):\n" + "\n".join(bad)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle():
    # a package's __init__ importing its own submodules (re-export) is not a cycle of the architecture:
    # drop edges from a package to its own submodules
    graph = {a: {b for b in targets if not b.startswith(a + ".")} for a, targets in GRAPH.items()}
    cycles = _cycles(graph)
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_cycle_detector_finds_a_planted_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("folder", ["rfverify", "properties", "implementations", "tests"])
def test_no_file_over_800_lines(folder):
    long = sorted(f"{p.relative_to(ROOT)}: {n} lines" for p in (ROOT / folder).rglob("*.py")
                  if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES)
    assert not long, f"files over {MAX_LINES} lines:\n" + "\n".join(long)


def test_the_dimension_table_of_architecture_md_is_current():
    from rfverify.kinds import KINDS

    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    for row in KINDS.values():
        cls = row.config_class()
        line = f"| `{row.name}` | {cls.DIM_RANGE[0]} … {cls.DIM_RANGE[1]} | {cls.DIM_WHY} |"
        assert line in text, f"ARCHITECTURE.md's dimension table is stale for {row.name}: expected\n{line}"


@pytest.mark.parametrize("kind", ["feature-map", "orthogonal", "transform", "quadrature", "kernel"])
def test_one_dimension_rule_for_every_kind(kind):
    from rfverify.errors import UsageError
    from rfverify.kinds import get_kind

    cls = get_kind(kind).config_class()
    lo, hi = cls.DIM_RANGE
    assert cls.validate_dim(lo) == lo and cls.validate_dim(hi) == hi
    for bad in (lo - 1, hi + 1, True, 2.0, "8", None):
        with pytest.raises(UsageError, match=rf"dim must be an integer in \[{lo}, {hi}\]"):
            cls.validate_dim(bad)


def private_imports(module: str, path: Path) -> list[str]:
    """``from X import _name`` in ``module`` where X is another rfverify module (a private name crossing modules)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rfverify") and node.level == 0:
            if node.module == module or node.module.startswith(module + "."):
                continue
            found += [f"{module}: from {node.module} import {a.name}" for a in node.names
                      if a.name.startswith("_") and not a.name.startswith("__")]
    return found


def test_the_report_layer_and_the_facade_import_public_names_only():
    """Renderers and entry points use what the modules they read export, not their private helpers (the layers
    below keep some private imports between sibling modules of one family; these two layers have none)."""
    bad = [hit for name, path in sorted(modules().items()) if layer(name) in ("report", "facade")
           for hit in private_imports(name, path)]
    assert not bad, "private names imported across modules:\n" + "\n".join(bad)


def test_private_import_probe_finds_one(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("from rfverify.results import Report, _hidden\nfrom rfverify.report import html\n")
    assert private_imports("rfverify.report.probe", probe) == ["rfverify.report.probe: from rfverify.results import _hidden"]

"""The committed ``reports/`` is current: regenerate it with ``rfverify report --all --out reports/``.

Cheap parts only (the full run with the claims takes over a minute): every zoo entry has its JSON
and HTML, each JSON has the current schema, configuration and check list, and one cheap entry is
re-verified in full at the committed seed and profile and compared with the committed JSON.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from rfverify.report.html import page_filename
from rfverify.kinds import checks_for
from rfverify.report.writing import INDEX_SCHEMA_VERSION, provenance, report_document
from rfverify.results import SCHEMA_VERSION
from rfverify.seeding import DEFAULT_SEED
from rfverify.kinds import get_kind
from rfverify.studies.zoo import ZOO, verify_entry

REPORTS = Path(__file__).resolve().parent.parent / "reports"
REGENERATE = "reports/ is stale: regenerate it with `rfverify report --all --out reports/` and commit it"
#: Re-verified in full by the test (the cheapest entry, and a third-party one would depend on its version).
FULL_RECHECK = ["rff-cossin"]


def _load(name: str) -> dict[str, Any]:
    path = REPORTS / name
    assert path.exists(), f"{path} is missing — {REGENERATE}"
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def index() -> dict[str, Any]:
    return _load("index.json")


def test_index_is_current(index: dict[str, Any]) -> None:
    assert index["schema_version"] == INDEX_SCHEMA_VERSION, REGENERATE
    assert (index["seed"], index["profile"]) == (DEFAULT_SEED, "default"), \
        f"reports/ must be made at the default seed and profile — {REGENERATE}"
    committed = [r["name"] for r in index["reports"]]
    assert committed == [e.name for e in ZOO], f"zoo entries {[e.name for e in ZOO]} vs reported {committed} — {REGENERATE}"
    assert index["claims"], f"the published claims are missing from reports/index.json — {REGENERATE}"
    for name in ("index.html", "SUMMARY.md"):
        assert (REPORTS / name).exists(), f"reports/{name} is missing — {REGENERATE}"


@pytest.mark.parametrize("entry", ZOO, ids=[e.name for e in ZOO])
def test_entry_configuration_is_current(entry: Any) -> None:
    """Schema, configuration, target and check list of each committed report match the code (no checks run)."""
    doc = _load(page_filename(entry.name) + ".json")
    assert (REPORTS / (page_filename(entry.name) + ".html")).exists(), REGENERATE
    assert doc["schema_version"] == SCHEMA_VERSION, REGENERATE
    assert [c["check"] for c in doc["checks"]] == [s.name for s in checks_for(entry.kind)], REGENERATE
    verify = get_kind(entry.kind).verify_function()
    try:
        fresh = verify(entry.implementation, seed=doc["seed"], profile=doc["profile"], xfail=dict(entry.xfail) or None,
                       checks=[], **entry.options)
    except TypeError:
        pytest.skip(reason=f"the {entry.kind} verifier takes no checks=[]; configuration not compared")
    now = report_document(fresh)
    for d in (doc, now):  # the arrays the checks handed over and got back: a record of the run, not configuration
        d.get("config", {}).pop("arrays", None)
    for key in ("implementation", "kind", "target", "config"):
        # a configuration may hold measured numbers (a data-dependence probe's round-off tolerance): those
        # agree to round-off across CPUs and library versions, everything else exactly
        diffs = _close(doc[key], now[key], key)
        assert not diffs, f"{entry.name}: {key} changed ({diffs[:3]}) — {REGENERATE}"


def _close(a: Any, b: Any, path: str = "") -> list[str]:
    """Differences between two JSON values; floats within a relative 1e-6 (other library versions)."""
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            return [f"{path}: keys {list(a)} != {list(b)}"]
        return [d for k in a for d in _close(a[k], b[k], f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: length {len(a)} != {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _close(x, y, f"{path}[{i}]")]
    if isinstance(a, float) and isinstance(b, float):
        return [] if math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12) else [f"{path}: {a!r} != {b!r}"]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


@pytest.mark.parametrize("name", FULL_RECHECK)
def test_entry_results_are_current(name: str) -> None:
    """A fresh verification at the committed seed and profile reproduces the committed JSON."""
    entry = next(e for e in ZOO if e.name == name)
    committed = _load(page_filename(name) + ".json")
    fresh = report_document(verify_entry(entry, seed=committed["seed"], profile=committed["profile"]))
    if committed["provenance"] == provenance():
        # same versions and platform: the committed file must be byte-identical to a fresh one
        assert (REPORTS / (page_filename(name) + ".json")).read_text(encoding="utf-8") == \
            json.dumps(fresh, indent=2, allow_nan=False) + "\n", REGENERATE
    else:  # other versions, platform or CPU code paths: statuses equal, numbers to 1e-6
        committed.pop("provenance"), fresh.pop("provenance")
        committed.pop("rfverify_version"), fresh.pop("rfverify_version")
        for c, f in zip(committed["checks"], fresh["checks"]):
            assert (c["check"], c["status"]) == (f["check"], f["status"]), REGENERATE
            c.pop("message"), f.pop("message")  # formatted numbers may differ in the last digit
        diffs = _close(committed, fresh)
        assert not diffs, f"{name}: {diffs[:5]} — {REGENERATE}"


def test_provenance_tells_apart_what_changes_the_last_bit() -> None:
    """Byte-identical JSON is demanded only under equal provenance, so provenance must name the CPU code paths
    (numpy SIMD level and BLAS kernel) and the FWHT backend (numba or numpy), not only the versions."""
    import os
    import subprocess
    import sys

    from numpy._core import _multiarray_umath as mu

    prov = provenance()
    assert {"numpy", "scipy", "numba", "python", "platform", "cpu"} <= set(prov)
    found = [f for f in mu.__cpu_dispatch__ if mu.__cpu_features__.get(f)]
    if not found:
        pytest.skip(reason="this CPU runs numpy's baseline code path only; nothing to switch off")
    code = "import json; from rfverify.report.provenance import provenance; print(json.dumps(provenance()))"
    env = dict(os.environ, NPY_DISABLE_CPU_FEATURES=" ".join(found), OPENBLAS_CORETYPE="Sandybridge")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    other = json.loads(out.stdout)
    assert other["cpu"] != prov["cpu"] and {k: v for k, v in other.items() if k != "cpu"} == \
        {k: v for k, v in prov.items() if k != "cpu"}

"""``rfverify bench`` runs every benchmark group of rfverify's studies (none registered by an import side effect)."""

from __future__ import annotations

import importlib

from rfverify.studies import bench


def test_every_group_resolves_to_a_callable():
    assert "zoo-feature-maps" in bench.BENCHMARK_GROUPS
    for name, spec in bench.BENCHMARK_GROUPS.items():
        mod, fn = spec.split(":")
        assert callable(getattr(importlib.import_module(mod), fn)), name


def test_run_structured_benchmarks_runs_every_group(monkeypatch):
    calls = []

    def fake(quick):
        calls.append(quick)
        return [{"name": "fake-group-row"}]

    monkeypatch.setattr(bench, "BENCHMARK_GROUPS", {"fake": f"{__name__}:_FAKE"})
    monkeypatch.setitem(globals(), "_FAKE", fake)
    # the built-in FWHT rows are measured too; keep them as they are (quick sizes)
    rows = bench.run_structured_benchmarks(quick=True)
    assert calls == [True]
    assert rows[-1]["name"] == "fake-group-row"

"""``rfverify bench --quick`` runs end to end and prints every column of the side-by-side tables.

Sizes are shrunk to a tiny plan (the point is that every section, baseline and column is
produced, not the timings: no timed assertions here).  :func:`missing_columns` is the oracle;
``test_missing_columns_detects_a_dropped_column`` shows that it fails on a planted bug.
"""

from __future__ import annotations

import json

import pytest

from rfverify.studies import bench_compare as bc
from rfverify.cli import main

FWHT_COLUMNS = ["implementation", "thr", "dtype", "time", "G bf-op/s", "GB/s", "×mem",
                "÷fht-cpu", "÷FFHT", "÷dense BLAS", "÷naive numpy"]
FEATURE_COLUMNS = ["rows/s", "÷dense RFF"]
SECTIONS = ["== fwht ==", "== butterfly ==", "== feature map =="]
ROWS = ["memory pass (numpy copy)", "memory pass (in place, X *= 1)", "ours (numba, in place)", "ours (numba, out=)", "fht-cpu", "FFHT",
        "dense BLAS", "naive numpy", "SORF-3 (ours)", "Fastfood (ours)", "dense RFF (BLAS)"]


def missing_columns(text: str) -> list[str]:
    """Headers, sections, rows and legend entries absent from the printed tables."""
    fwht = text.split("== fwht ==", 1)[-1].split("== butterfly ==", 1)[0]
    head = fwht.strip().splitlines()[0] if fwht.strip() else ""
    missing = [c for c in FWHT_COLUMNS if c not in head]
    missing += [c for c in FEATURE_COLUMNS + SECTIONS + ROWS if c not in text]
    missing += [w for w in ("Columns:", "×mem = time / time of one memory pass", "machine:", "load", "targets")
                if w not in text]
    return missing


TINY = bc.Plan(1 << 10, (64,), 1, threads=(1, 2), dense_max=64, fm_total=1 << 8, fm_dims=(16,), fm_repeats=1)


@pytest.fixture
def tiny(monkeypatch):
    monkeypatch.setitem(bc.PLANS, "quick", TINY)
    import rfverify.studies.bench as bench

    monkeypatch.setattr(bench, "_latency_rows", lambda quick: [])


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    """``rfverify bench --quick --json FILE`` on the tiny plan, run once for the module: (stdout, rows)."""
    import contextlib
    import io

    import rfverify.studies.bench as bench

    out_json = tmp_path_factory.mktemp("bench") / "bench.json"
    buf = io.StringIO()
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stdout(buf):
        mp.setitem(bc.PLANS, "quick", TINY)
        mp.setattr(bench, "_latency_rows", lambda quick: [])
        assert main(["bench", "--quick", "--json", str(out_json)]) == 0
    return buf.getvalue(), json.loads(out_json.read_text())


def test_bench_quick_prints_every_column(quick_run):
    text, rows = quick_run
    missing = missing_columns(text)
    assert not missing, f"bench output lacks {missing}:\n{text}"
    fwht = [r for r in rows if r.get("section") == "fwht"]
    assert {r["threads"] for r in fwht if r["status"] == "ok" and r["name"].startswith("ours (numba")} <= {1, 2}
    for name in ("fht-cpu", "FFHT"):  # measured when installed, otherwise a row saying how to install it
        got = [r for r in fwht if r["name"] == name]
        assert got, f"no {name} row"
        assert all(r["status"] == "ok" or "pip install" in r["status"] for r in got), got


def test_missing_baseline_is_a_skipped_row_not_an_error(tiny, monkeypatch, capsys):
    monkeypatch.setattr(bc, "_import_fht_cpu", lambda: None)
    monkeypatch.setattr(bc, "_import_ffht", lambda: None)
    rows = bc.run_fwht_comparison(quick=True)
    skipped = {r["name"]: r["status"] for r in rows if r["status"] != "ok"}
    assert "pip install fht-cpu" in skipped["fht-cpu"], skipped
    assert "pip install ffht-unofficial" in skipped["FFHT"], skipped
    text = bc.format_comparisons(rows, bc.environment())
    assert "skipped: not installed: pip install fht-cpu" in text


def test_missing_columns_detects_a_dropped_column(quick_run):
    text, _ = quick_run
    assert missing_columns(text) == []
    broken = text.replace("÷FFHT", "").replace("== feature map ==", "")
    assert set(missing_columns(broken)) == {"÷FFHT", "== feature map =="}


def test_summary_states_each_target_and_whether_it_is_met():
    row = dict(section="fwht", name="ours (numba, in place)", status="ok", dtype="float32", threads=1)
    rows = [dict(row, d=256, vs={"fht-cpu": 0.8}, mem_x=1.1), dict(row, d=1024, vs={"fht-cpu": 1.2}, mem_x=1.7)]
    (line,) = bc.summarize(rows)
    assert "time ÷ fht-cpu <= 1.20 (worst at d=1024; target <= 1.0: NOT met)" in line
    assert "×mem <= 1.70 at d >= 1024 (worst at d=1024; target <= 1.5: NOT met)" in line
    ok = [dict(row, d=1024, vs={"fht-cpu": 0.9}, mem_x=1.2)]
    assert "met)" in bc.summarize(ok)[0] and "NOT" not in bc.summarize(ok)[0]


def test_ratios_are_paired_by_round():
    """Load that doubles every time in round 2 cancels in a paired ratio, not in a ratio of medians."""
    mine, base = [1.0, 10.0, 1.1], [2.0, 20.0, 2.2]
    assert bc._ratio(mine, base) == pytest.approx(0.5)
    assert bc._ratio(mine, 2.0) == pytest.approx(1.1 / 2.0), "an unpaired baseline: ratio of medians"
    assert bc._ratio(mine, [2.0, 2.0]) == pytest.approx(1.1 / 2.0), "different rounds: ratio of medians"

"""``rfverify calibrate``: a reduced run end to end, independence of jobs and order, flags, errors, the report link.

The full calibration (every reference and mutant, 100-200 seeds, two profiles) is a documented command
(docs/statistics.md, "Calibration") run by the ``slow`` test below; its committed output is reports/calibration/.
"""

from __future__ import annotations

import json
import random

import pytest

from rfverify import cli
from rfverify.report.calibration_pages import load_calibration_summary, write_calibration
from rfverify.studies.calibration import CALIBRATION_REFERENCES, Unit, aggregate, calibrate, load_mutants, strip_timing
from rfverify.report.writing import write_reports
from rfverify.studies.zoo import verify_entry, zoo_entries

LIBRARY = "tests.mutants"
#: Cheap mutants with state that outlives one call (module-level buffers, lazily mutated attributes,
#: the global RNG) next to ordinary ones: the units must still be independent of each other.
STATEFUL = ["rff-half-scale", "fwht-reused-output-buffer", "rff-radians-on-every-call", "sr33-global-rng",
            "qr-without-sign-correction", "haar-transposed"]


def test_reduced_calibration_through_the_cli(tmp_path, capsys):
    out = tmp_path / "calibration"
    code = cli.main(["calibrate", "--reference", "rff-phase", "--reference", "haar-qr", "--reference",
                     "kernel-rbf", "--mutants", LIBRARY, "--mutant", "rff-half-scale", "--mutant",
                     "qr-without-sign-correction", "--mutant", "fwht-mutates-input", "--mutant", "sr33-missing-weight",
                     "--mutant", "haar-transposed", "--profile", "quick", "--fa-seeds", "2", "--power-seeds", "2",
                     "--scan-seeds", "1", "--equivalent-seeds", "2", "--out", str(out)])
    printed = capsys.readouterr()
    assert code == 0, printed.out
    doc = json.loads((out / "calibration.json").read_text())
    assert doc["flags"] == []
    assert {e["name"] for e in doc["false_alarms"]} == {"rff-phase", "haar-qr", "kernel-rbf"}
    fw = next(e for e in doc["false_alarms"] if e["name"] == "rff-phase")["family"]
    assert fw["seeds"] == 2 and fw["failures"] == 0 and fw["interval95"][0] == 0.0
    assert fw["interval95"][1] == pytest.approx(1 - 0.025 ** (1 / 2))  # Clopper-Pearson upper bound for 0 of 2
    power = {p["name"]: p for p in doc["power"]}
    assert set(power) == {"rff-half-scale", "qr-without-sign-correction", "fwht-mutates-input", "sr33-missing-weight"}
    assert all(c["caught"] == 2 for p in power.values() for c in p["caught_by"].values())
    assert power["rff-half-scale"]["scan_seeds"] == 1 and "error-rate" in power["rff-half-scale"]["other_checks"]
    assert [e["name"] for e in doc["equivalent"]] == ["haar-transposed"]
    assert doc["timing"]["units"] == 3 * 2 + 4 * 2 + 2 and doc["timing"]["wall_seconds"] > 0
    md = (out / "calibration.md").read_text()
    assert "## Power per mutant" in md and "| rff-half-scale | feature-map | scaling | quick | unbiasedness | 2/2 |" in md
    html = (out / "calibration.html").read_text()
    assert "<h2>False alarms per reference</h2>" in html and "kernel-rbf" in html
    assert doc["command"].startswith("rfverify calibrate --reference rff-phase --reference haar-qr") and doc["command"] in html
    assert "## Power per mutant" in printed.out


@pytest.mark.slow  # 22 s; tests/test_report_jobs.py and the executors' order test keep jobs-invariance in CI
def test_results_do_not_depend_on_jobs_or_order():
    kw = dict(references=["haar-qr", "rff-phase"], library=LIBRARY, mutants=STATEFUL, profiles=["quick"],
              fa_seeds=2, power_seeds=2, scan_seeds=1, equivalent_seeds=2)
    serial = calibrate(jobs=1, **kw)
    shuffled = calibrate(jobs=1, order=lambda units: random.Random(7).sample(units, len(units)), **kw)
    parallel = calibrate(jobs=2, order=lambda units: units[::-1], **kw)
    assert strip_timing(serial) == strip_timing(shuffled) == strip_timing(parallel)
    assert parallel["timing"]["jobs"] == 2


def _result(role, name, seed, statuses, checks=None):
    return {"unit": Unit(role, name, "quick", seed, checks), "statuses": statuses, "messages": {}, "seconds": 0.1}


def test_flags_false_alarms_above_design_alpha_and_low_power():
    load_mutants(LIBRARY)
    haar = ["orthogonality", "haar-determinant", "haar-entries", "haar-trace-moments", "haar-eigenangles",
            "haar-invariance"]
    ok = {c: "pass" for c in haar} | {"haar-eigenangles": "skip"}  # as at d = 1
    results = [_result("reference", "haar-qr", s, ok | ({"haar-entries": "fail"} if s < 2 else {})) for s in range(3)]
    results += [_result("reference", "haar-householder", s, ok | ({"orthogonality": "fail"} if s == 0 else {}))
                for s in range(50)]
    results += [_result("mutant", "rff-half-scale", s, {"unbiasedness": "fail" if s else "pass"}, ("unbiasedness",))
                for s in range(2)]
    results += [_result("mutant", "qr-without-sign-correction", s, {"haar-entries": "fail"}, ("haar-entries",))
                for s in range(2)]
    doc = aggregate(results, LIBRARY)
    ref = {e["name"]: e for e in doc["false_alarms"]}
    # 2 of 3: the lower bound 0.094 lies above the check's share 1e-3/5 of the family alpha
    assert ref["haar-qr"]["checks"]["haar-entries"]["flagged"] and ref["haar-qr"]["family"]["flagged"]
    # a deterministic check has design alpha 0: one failure in 50 is a flag, though 1/50 is a small rate
    assert ref["haar-householder"]["checks"]["orthogonality"]["design_alpha"] == 0.0
    assert ref["haar-householder"]["checks"]["orthogonality"]["flagged"]
    assert not ref["haar-householder"]["family"]["flagged"]  # [5e-4, 0.106] does not lie above 1e-3
    assert ref["haar-qr"]["checks"]["haar-eigenangles"]["seeds"] == 0  # skipped everywhere: no trials
    power = {p["name"]: p for p in doc["power"]}
    assert power["rff-half-scale"]["caught_by"]["unbiasedness"]["flagged"]
    assert power["rff-half-scale"]["caught_by"]["unbiasedness"]["missed_seeds"] == [0]
    assert not power["qr-without-sign-correction"]["caught_by"]["haar-entries"]["flagged"]
    assert sum(f.startswith("power:") for f in doc["flags"]) == 1
    assert any("haar-householder" in f and "orthogonality" in f for f in doc["flags"])


@pytest.mark.parametrize("argv,needle", [
    (["--reference", "no-such-entry"], "unknown zoo entry"),
    (["--mutants", "tests/no_such_library.py"], "is not a .py file"),
    (["--mutants", "no_such_module:LIBRARY"], "cannot import module"),
    (["--mutant", "rff-half-scale"], "needs --mutants"),
    (["--mutants", LIBRARY, "--mutant", "no-such-mutant"], "unknown mutant"),
    (["--jobs", "0"], "--jobs must be at least 1"),
    (["--fa-seeds", "many"], "--fa-seeds must be an integer"),
    (["--kind", "kernels"], "unknown kind"),
    (["--profile", "fast"], "unknown profile"),
])
def test_bad_calibrate_arguments_are_one_line_errors(argv, needle, capsys, tmp_path):
    code = cli.main(["calibrate", "--fa-seeds", "1", "--power-seeds", "1", "--out", str(tmp_path), *argv])
    err = capsys.readouterr().err
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1, err


def test_malformed_library_is_a_usage_error(tmp_path):
    bad = tmp_path / "bad_library.py"
    bad.write_text("from rfverify.studies.calibration import Mutant\n"
                   "LIBRARY = [Mutant('x', 'feature-map', object, caught_by=('no-such-check',))]\n")
    from rfverify.errors import UsageError

    with pytest.raises(UsageError, match="no-such-check is not a feature-map check"):
        load_mutants(str(bad))


def test_report_index_links_the_calibration(tmp_path):
    doc = calibrate(references=["haar-qr"], library=LIBRARY, mutants=["so-claimed-as-o"], profiles=["quick"],
                    fa_seeds=1, power_seeds=1, scan_seeds=0)
    write_calibration(doc, tmp_path / "calibration")
    entry = zoo_entries(["haar-qr"])[0]
    reports = [(entry.name, verify_entry(entry, seed=0, profile="quick"))]
    write_reports(tmp_path, reports, seed=0, profile="quick")
    index = (tmp_path / "index.html").read_text()
    assert 'href="calibration/calibration.html"' in index and "bugs caught under" in index
    summary = json.loads((tmp_path / "index.json").read_text())["calibration"]
    assert summary == load_calibration_summary(tmp_path)
    assert {"kind": "orthogonal", "profile": "quick", "family": "0/1 [0, 0.975]", "bugs": 1, "strong": 1} in summary["rows"]
    assert "calibration/calibration.md" in (tmp_path / "SUMMARY.md").read_text()
    write_reports(tmp_path, reports, seed=0, profile="quick")  # timings are not in the index: same bytes
    assert (tmp_path / "index.html").read_text() == index


@pytest.mark.slow
def test_full_calibration(tmp_path):
    """The documented full run (docs/statistics.md, "Calibration"): ~40 min on 2 cores; no false alarm may be flagged."""
    out = tmp_path / "calibration"
    cli.main(["calibrate", "--mutants", LIBRARY, "--jobs", "2", "--out", str(out)])
    doc = json.loads((out / "calibration.json").read_text())
    assert set(doc["settings"]["references"]) == set(CALIBRATION_REFERENCES)
    assert not [f for f in doc["flags"] if "false alarm" in f], doc["flags"]

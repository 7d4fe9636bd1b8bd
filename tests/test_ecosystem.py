"""The ecosystem table (rfverify ecosystem): its light part runs in CI, the table renders, the command works.

The light entries (scikit-learn samplers, fht-cpu, scipy.stats ortho_group / special_ortho_group) run at the
quick profile under the default seed: they are correct libraries, so every one must pass (a false alarm
fails this test).  CI runs them all through the documented command ``rfverify ecosystem --light --profile quick``
(tests/test_documented_commands.py: "false alarms 0/7 runs"); entry by entry, here, in the slow set.  The full table (every library, default profile, many seeds) is ``rfverify ecosystem
--seeds 21 --out reports/`` and is committed.
"""

from __future__ import annotations

import json

import pytest

from rfverify.cli import main
from rfverify.errors import UsageError
from rfverify.seeding import DEFAULT_SEED
from rfverify.studies import ecosystem as eco


def test_entries_are_well_formed():
    names = [e.name for e in eco.ENTRIES]
    assert len(names) == len(set(names))
    for e in eco.ENTRIES:
        assert e.expected in ("correct", "defect") and ":" in e.target
        if e.expected == "defect":  # every real defect: expected failure with reason, evidence, upstream note
            assert e.xfail and all(r.strip() for r in e.xfail.values()) and e.evidence and e.upstream
        # the published object itself, reached by its declarations alone: no wrapper module
        assert not e.wrapper and not e.target.startswith("rfverify."), e.name
        if e.torch:
            assert "torch" in e.needs and not e.light
    with pytest.raises(UsageError, match="unknown ecosystem entry"):
        eco.entries(["no-such-library"])


@pytest.mark.slow  # CI: the same entries, seed and profile through the documented command
@pytest.mark.parametrize("entry", eco.entries(light=True), ids=lambda e: e.name)
def test_light_entry_passes_at_the_quick_profile(entry):
    if eco.missing(entry):
        pytest.skip(reason=f"not installed: {eco.missing(entry)}")
    report = eco.run_entry(entry, DEFAULT_SEED, "quick")
    assert eco._verdict(entry, report) == "pass", report.table()


def test_unitary_group_is_not_supported_with_a_clear_message():
    from scipy.stats import unitary_group

    from rfverify.kinds.orthogonal import verify_orthogonal

    r = verify_orthogonal(unitary_group, dim=4, profile="quick", checks=["orthogonality"])
    assert r["orthogonality"].status == "error"
    assert "not supported (complex unitary samplers)" in r["orthogonality"].message


def test_command_writes_the_table(tmp_path, capsys):
    out = tmp_path / "eco"
    rc = main(["ecosystem", "--only", "scipy-ortho-group", "--only", "fht-cpu", "--profile", "quick", "--seeds", "2",
               "--out", str(out), "--quiet"])
    assert rc == 0
    table = json.loads((out / "ecosystem.json").read_text())
    assert table["summary"]["seeds"] == [DEFAULT_SEED, 1] and table["summary"]["false_alarms"] == 0
    md = (out / "ecosystem.md").read_text()
    assert "| `fht-cpu` |" in md and "## Not run here" in md and "not on the index" in md
    assert "pass (2 pass)" in md
    assert main(["ecosystem", "--list"]) == 0
    assert "rfflearn-orf" in capsys.readouterr().out


def test_a_run_of_some_entries_keeps_the_others_valid_results(tmp_path):
    out = tmp_path / "eco"
    common = ["--profile", "quick", "--seeds", "1", "--out", str(out), "--quiet", "--resume"]
    assert main(["ecosystem", "--only", "scipy-ortho-group", *common]) == 0
    assert main(["ecosystem", "--only", "scipy-special-ortho-group", *common]) == 0
    table = json.loads((out / "ecosystem.json").read_text())
    names = [r["name"] for r in table["entries"]]
    assert names == ["scipy-ortho-group", "scipy-special-ortho-group"], names  # the first run's row kept, in order
    assert table["runs"][-1]["units_run"] == 1 and table["summary"]["correct_runs"] == 2


def test_committed_table_is_linked_from_the_index():
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "reports"
    table = json.loads((root / "ecosystem.json").read_text())
    assert table["summary"]["false_alarms"] == 0 and all(table["summary"]["caught_at_default_seed"].values())
    assert "ecosystem.md" in (root / "index.html").read_text()


# -- the runner: units, resume, order --------------------------------------------------------------------------
class _Result:
    def __init__(self, check, status):
        self.check, self.status, self.message, self.reproduce = check, status, f"{check} {status}", "rfverify check x"


class _Report:
    def __init__(self, status="pass"):
        self.results = [_Result("contract", "pass"), _Result("unbiasedness", status)]


def _fake_runs(monkeypatch):
    calls = []

    def fake(entry, seed, profile):
        calls.append((entry.name, seed))
        return _Report()

    monkeypatch.setattr(eco, "run_entry", fake)
    return calls


def test_resume_reuses_a_result_only_under_the_same_fingerprint(monkeypatch):
    """A previous table's (entry, seed) results are reused when the entry's fingerprint is unchanged, and run
    again when it changed (the broken twin -- reuse by name alone -- would keep a stale verdict)."""
    calls = _fake_runs(monkeypatch)
    chosen = eco.entries(["scipy-ortho-group"])
    first = eco.run_ecosystem(chosen, seeds=[DEFAULT_SEED], profile="quick")
    assert calls == [("scipy-ortho-group", DEFAULT_SEED)]
    second = eco.run_ecosystem(chosen, seeds=[DEFAULT_SEED, 1], profile="quick", previous=first)
    assert calls[1:] == [("scipy-ortho-group", 1)]
    assert second["run"]["units_reused"] == 1 and second["run"]["units_run"] == 1
    assert second["summary"]["seeds"] == [DEFAULT_SEED, 1] and second["entries"][0]["counts"] == {"pass": 2}
    assert [r["units_run"] for r in second["runs"]] == [1, 1]  # each run that produced results is recorded
    stale = json.loads(json.dumps(second))
    stale["entries"][0]["fingerprint"] = "0" * 16  # another rfverify source, library version or declaration
    eco.run_ecosystem(chosen, seeds=[DEFAULT_SEED, 1], profile="quick", previous=stale)
    assert calls[2:] == [("scipy-ortho-group", DEFAULT_SEED), ("scipy-ortho-group", 1)]
    eco.run_ecosystem(chosen, seeds=[DEFAULT_SEED], profile="default", previous=second)  # another profile: rerun
    assert calls[4:] == [("scipy-ortho-group", DEFAULT_SEED)]
    errored = json.loads(json.dumps(second))
    errored["entries"][0]["seeds"]["1"]["verdict"] = "error"  # e.g. a time limit on a loaded machine: run again
    eco.run_ecosystem(chosen, seeds=[DEFAULT_SEED, 1], profile="quick", previous=errored)
    assert calls[5:] == [("scipy-ortho-group", 1)]


def test_fingerprint_covers_every_layer_a_verdict_depends_on():
    """The checks (properties/), the references (implementations/), the kinds and the core are hashed; the table's
    own module, the reports, the CLI and the pytest plugin are not (the layer rules keep them out of the checks)."""
    files = [rel for _, rel in eco.fingerprint_files()]
    for needed in ("properties/unbiasedness.py", "implementations/rff.py", "rfverify/kinds/feature_map.py",
                   "rfverify/stats.py", "rfverify/tolerances.py"):
        assert needed in files, needed
    assert not [f for f in files if f.startswith(("rfverify/studies/", "rfverify/report/"))]
    assert "rfverify/cli.py" not in files and "rfverify/pytest_plugin.py" not in files
    e = eco.entries(["hadamard-transform"])[0]
    # a target living in rfverify's studies (a wrapper module) would have its source hashed; a library's is not
    assert eco._module_hash("rfverify.studies.ecosystem_entries:Entry")
    assert not eco._module_hash(e.target) and not eco._module_hash("sklearn.kernel_approximation:RBFSampler")
    assert eco.fingerprint(e, "default") != eco.fingerprint(e, "quick")


def test_units_run_seed_major_costliest_first(monkeypatch):
    """A run cut short leaves whole seeds: every entry under a seed starts before any under the next."""
    from rfverify.executors import InProcess, costliest_first

    seen = []

    class Recording(InProcess):
        def _run(self, tasks):
            seen.extend(t.args[:2] for t in costliest_first(tasks))
            return super()._run(tasks)

    _fake_runs(monkeypatch)
    chosen = eco.entries(["scipy-ortho-group", "sklearn-rbf", "scipy-special-ortho-group"])
    eco.run_ecosystem(chosen, seeds=[DEFAULT_SEED, 1, 2], profile="quick", executor=Recording())
    assert [s for _, s in seen] == [DEFAULT_SEED] * 3 + [1] * 3 + [2] * 3
    assert [n for n, _ in seen[:3]] == ["sklearn-rbf", "scipy-special-ortho-group", "scipy-ortho-group"]  # COST_HINT


def test_ffht_small_widths_are_caught_and_larger_ones_pass():
    """FFHT's out-of-place fht copies nothing below 32 bytes: explore finds d <= 2 (float64); the brute force
    agrees, and the same check passes on a correct twin (fht-cpu, in the light entries)."""
    pytest.importorskip("ffht", reason="ffht-unofficial is a source build (not in CI): see reports/ecosystem.md")
    from rfverify.kinds.transform import verify_transform

    r = verify_transform("ffht:fht", dim=64, profile="quick", checks=["explore", "transform-exactness"])
    assert r["transform-exactness"].status == "pass" and r["explore"].status == "fail"
    assert "d = 1" in r["explore"].message or "d = 2" in r["explore"].message or "d = 4" in r["explore"].message
    b = eco.brute_force_ffht(widths=(2, 8), draws=5)
    assert not b["float64 d=2"] < 1e-3 and b["float64 d=8"] < 1e-12 and b["float32 d=8"] < 1e-5


def test_hadamard_transform_by_declaration_and_its_integer_finding():
    """hadamard-transform is verified as published, handed torch tensors by --input torch: exact on floating
    batches; the stateful check's uint8 input finds the integer wrap its entry declares (evidence from direct
    calls)."""
    pytest.importorskip("torch", reason="torch is an optional install (not in CI)")
    pytest.importorskip("hadamard_transform", reason="hadamard-transform is not installed")
    from rfverify.kinds.transform import verify_transform

    rep = verify_transform("hadamard_transform:hadamard_transform", dim=64, matrix="hadamard-normalized",
                           input="torch", profile="quick", checks=["transform-exactness", "stateful"])
    assert rep["transform-exactness"].status == "pass", rep["transform-exactness"].message
    assert rep["stateful"].status == "fail" and "uint8 input" in rep["stateful"].message, rep["stateful"].message
    entry = next(e for e in eco.ENTRIES if e.name == "hadamard-transform")
    assert entry.evidence is not None and "[49.5, 72.5, 122.5, 27.5]" in entry.evidence()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["gpytorch-rff", "rff-pytorch"])
def test_torch_feature_maps_pass_with_input_and_global_seed_torch(name):
    """The real torch libraries through --input torch and --global-seed torch: float32 features, judged with
    float32 round-off, pass (no false alarm); the report records the global-generator opt-in."""
    pytest.importorskip("torch", reason="torch is an optional install (not in CI)")
    entry = eco.entries([name])[0]
    if eco.missing(entry):
        pytest.skip(reason=f"not installed: {eco.missing(entry)}")
    report = eco.run_entry(entry, DEFAULT_SEED, "quick")
    assert eco._verdict(entry, report) == "pass", report.table()


def test_fastfood_refuses_one_column_data_and_the_verdict_says_so():
    """scikit-learn-extra's Fastfood fits d = 1 but its transform cleanly refuses it (ValueError): explore sets d = 1
    aside and states it, the entry passes without a declared expected failure; the direct calls agree, and d >= 2
    transform."""
    pytest.importorskip("sklearn_extra", reason="scikit-learn-extra needs a source build (not in CI): see docs/ecosystem.md")
    entry = eco.entries(["sklearn-extra-fastfood"])[0]
    assert not entry.xfail and entry.expected == "correct"
    from rfverify.kinds import get_kind

    verify = get_kind("feature-map").verify_function()
    opts = dict(entry.options)
    r = verify(entry.target, profile="quick", checks=["explore"], **opts)
    assert r["explore"].status == "pass" and "refuses d = 1 (ValueError: " in r["explore"].message, r["explore"].message
    ok = verify(entry.target, profile="quick", checks=["explore"], space={"d": (2, 64)}, **opts)
    assert ok["explore"].status == "pass" and not ok["explore"].details["space"]["refused"], ok["explore"].message
    from rfverify.studies.ecosystem_entries import fastfood_evidence

    evidence = fastfood_evidence()
    assert "d = 1: fit passes, transform raises ValueError" in evidence and "d = 2: 16 features" in evidence


def test_a_defect_entry_shows_its_other_failures():
    """A defect's verdict is 'caught' when its expected failures fail; any other failing check is listed beside it
    (with its seeds), never hidden by the verdict; a correct entry lists nothing (its failures are false alarms)."""
    row = {"expected": "defect", "xfail": {"unbiasedness": "bias"}, "seeds": {
        "1": {"statuses": {"unbiasedness": "xfail", "error-rate": "fail", "contract": "pass"}},
        "2": {"statuses": {"unbiasedness": "xfail", "error-rate": "pass", "contract": "pass"}}}}
    assert eco._other_failures(row) == "error-rate (1 of 2)"
    assert eco._other_failures({**row, "expected": "correct"}) == ""


def test_render_writes_the_table_from_valid_results_only(tmp_path, monkeypatch, capsys):
    """--render --resume: the table from the previous results still valid, nothing run (a stale result dropped)."""
    calls = _fake_runs(monkeypatch)
    out = tmp_path / "eco"
    assert main(["ecosystem", "--only", "scipy-ortho-group", "--only", "sklearn-rbf", "--profile", "quick",
                 "--seeds", "2", "--out", str(out), "--quiet"]) == 0
    assert len(calls) == 4
    table = json.loads((out / "ecosystem.json").read_text())
    table["entries"][1]["fingerprint"] = "stale"
    (out / "ecosystem.json").write_text(json.dumps(table))
    assert main(["ecosystem", "--only", "scipy-ortho-group", "--only", "sklearn-rbf", "--profile", "quick",
                 "--seeds", "2", "--out", str(out), "--quiet", "--resume", "--render"]) == 0
    assert len(calls) == 4  # nothing ran
    again = json.loads((out / "ecosystem.json").read_text())
    assert [len(r["seeds"]) for r in again["entries"]] == [2, 0]
    assert again["runs"][-1]["units_not_run"] == 2 and "2 not run" in (out / "ecosystem.md").read_text()
    assert main(["ecosystem", "--render", "--out", str(out)]) == 2
    assert "--render writes the table" in capsys.readouterr().err

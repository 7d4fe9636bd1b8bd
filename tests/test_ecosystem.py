"""The ecosystem table (rfverify ecosystem): its light part runs in CI, the table renders, the command works.

The light entries (scikit-learn samplers, fht-cpu, scipy.stats ortho_group / special_ortho_group) run at the
quick profile under the default seed: they are correct libraries, so every one must pass (a false alarm
fails this test).  The full table (every library, default profile, many seeds) is ``rfverify ecosystem
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
        if e.wrapper:
            assert e.target.startswith("rfverify.studies.ecosystem_wrappers:")
    assert sum(1 for e in eco.ENTRIES if e.wrapper) == 3  # rfflearn has no feature-map class
    with pytest.raises(UsageError, match="unknown ecosystem entry"):
        eco.entries(["no-such-library"])


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


def test_committed_table_is_linked_from_the_index():
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "reports"
    table = json.loads((root / "ecosystem.json").read_text())
    assert table["summary"]["false_alarms"] == 0 and all(table["summary"]["caught_at_default_seed"].values())
    assert "ecosystem.md" in (root / "index.html").read_text()

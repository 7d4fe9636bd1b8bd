"""The verdict diff used to show that a refactor changes no verdict (rfverify.studies.verdict_diff)."""

from __future__ import annotations

import json

from rfverify.studies.verdict_diff import diff_claims, diff_reports, main, normalise

OLD = {"schema_version": 1, "implementation": "x", "provenance": {"numpy": "1"},
       "checks": [{"name": "unbiasedness", "status": "pass", "p_value": 0.5, "statistic": 1.0, "message": "ok",
                   "details": {"name": "inner name kept"}}]}


def _write(folder, doc, claims=None):
    folder.mkdir()
    (folder / "x.json").write_text(json.dumps(doc))
    if claims is not None:
        (folder / "claims.json").write_text(json.dumps(claims))


def test_renamed_keys_and_ignored_fields_are_not_differences(tmp_path):
    new = json.loads(json.dumps(OLD))
    new["schema_version"] = 2
    new["provenance"] = {"numpy": "2"}
    new["checks"][0] = {"check": "unbiasedness", "status": "pass", "pvalue": 0.5, "statistic": 1.0,
                        "message": "ok, reworded", "details": {"name": "inner name kept"}}
    _write(tmp_path / "a", OLD)
    _write(tmp_path / "b", new)
    verdict, text = diff_reports(tmp_path / "a", tmp_path / "b")
    assert verdict == [] and text == ["x.json.checks[unbiasedness].message"]
    assert normalise(OLD)["checks"][0]["details"] == {"name": "inner name kept"}


def test_a_changed_status_or_pvalue_is_a_verdict_difference(tmp_path):
    new = json.loads(json.dumps(OLD))
    new["checks"][0]["status"] = "fail"
    new["checks"][0]["p_value"] = 0.5000001
    _write(tmp_path / "a", OLD, [{"id": "c1", "verdict": "holds", "evidence": "1"}])
    _write(tmp_path / "b", new, [{"id": "c1", "verdict": "fails", "evidence": "1"}])
    verdict, _ = diff_reports(tmp_path / "a", tmp_path / "b")
    assert any("status" in v for v in verdict) and any("pvalue" in v for v in verdict)
    assert diff_claims(tmp_path / "a" / "claims.json", tmp_path / "b" / "claims.json") == [
        "claim c1.verdict: 'holds' -> 'fails'"]
    assert main([str(tmp_path / "a"), str(tmp_path / "b")]) == 1
    assert main([str(tmp_path / "a"), str(tmp_path / "a")]) == 0

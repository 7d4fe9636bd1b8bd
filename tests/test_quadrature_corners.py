"""rule-unbiasedness at the corner dimensions of a quadrature rule's space (:mod:`rfverify.properties.quadrature_corners`):
the corners follow the declared space, the alpha split stays within the check's alpha, the planted corner bugs of
:mod:`tests.mutants.corner_mutants` (invisible to exactness and explore) are caught at their corner with the corner
named, the reproduce command replays the same numbers, the correct twins pass there, and integrands whose
estimate has infinite variance are left out (never a false alarm).

False-alarm rate and power: each corner runs at alpha / 4 = 2.5e-4 (default: check alpha 1e-3, share 1/2, K = 2),
so a correct rule false-alarms at a corner with probability at most 2.5e-4 per seed (measured by
``tests/quadrature_corner_study.py``, ``reports/calibration/quadrature-corners.json``); the planted bugs are gross at their corner (E w_1^4 = 1 instead of 3
at d = 1, a fixed simplex at d = 64: t > 30 with 2000 draws), caught with power ~1 (21/21 seeds in the study).
Each CI test runs one corner in process (0.3 s at d = 1, ~1 s at d = 64).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from rfverify.cli import main
from rfverify.implementations.quadrature import sr33_haar
from rfverify.kinds.quadrature import QuadratureConfig, quadrature_corners
from rfverify.profiles import BUDGETS, PROFILES
from rfverify.properties.quadrature_corners import corner_alphas, corner_dimensions, rule_at_corners
from rfverify.properties.quadrature_unbiasedness import integrands, left_out
from rfverify.runner import run
from tests.mutants import corner_mutants as cm

MOD = "tests.mutants.corner_mutants"
CHECK = "rule-unbiasedness"


def _ctx(rule, profile="default", **kw):
    config = QuadratureConfig(rule, dim=8, degree=3, profile=profile, **kw)
    return config.context(next(s for s in config.checks() if s.name == CHECK))


def _run(rule, profile="default", **kw):
    return run(QuadratureConfig(rule, dim=8, degree=3, profile=profile, **kw), checks=[CHECK], isolate=False).results[0]


def test_corner_dimensions_follow_the_declared_space():
    def from_d3(d, rng):
        return sr33_haar(d, rng)

    from_d3.rfverify_space = {"d": (3, 40)}
    from rfverify.implementations.quadrature import sr33_butterfly

    assert corner_dimensions(_ctx(sr33_haar)) == ([1, 64], True)
    assert corner_dimensions(_ctx(from_d3)) == ([3, 40], True)
    assert corner_dimensions(_ctx(sr33_butterfly)) == ([1, 64], True)  # d = 2^k: the corners are powers of two
    assert corner_dimensions(_ctx(sr33_haar, space={"d": (2, 8)})) == ([2], True)  # d = 8 is the declared d
    assert corner_dimensions(_ctx(sr33_haar, profile="thorough")) == ([1, 64, 2], True)
    assert corner_dimensions(_ctx(sr33_haar, profile="quick")) == ([], True)
    assert corner_dimensions(_ctx(sr33_haar, pins={"d": 5})) == ([5], False)  # a pinned d runs alone

    def at(dim, profile="default", **kw):
        config = QuadratureConfig(sr33_haar, dim=dim, degree=3, profile=profile, **kw)
        return corner_dimensions(config.context(next(s for s in config.checks() if s.name == CHECK)))

    # every d of the space above the cap (64): the largest corner falls back to the smallest d, once
    assert at(128, space={"d": (100, 200)}) == ([100], True)
    # a space of d = 1 alone: no d >= 2 for the thorough profile's third corner, and every corner is the declared d
    assert at(1, "thorough", space={"d": (1, 1)}) == ([], True)


@pytest.mark.parametrize("profile", list(PROFILES))
def test_alpha_split_stays_within_the_check_alpha(profile):
    alpha = 1e-3
    main_alpha, corner_alpha, n = corner_alphas(alpha, profile)
    assert n == quadrature_corners(profile)[0]
    assert main_alpha + n * corner_alpha <= alpha * (1 + 1e-12)
    assert main_alpha >= alpha / 2
    if n == 0:  # quick: no corner; a pinned corner runs at the whole alpha
        assert corner_alpha == alpha


def test_left_out_integrands_are_those_with_infinite_variance():
    import numpy as np

    battery = integrands(2, np.random.default_rng(0))
    arccos0 = {g.label for g in battery if g.label.startswith("arccos0")}
    assert set(left_out(2, 3, False, battery)) == arccos0 and len(arccos0) == 3  # E rho^-4 = inf, rho ~ chi(4)
    four = integrands(4, np.random.default_rng(0))
    assert set(left_out(4, 3, False, four)) == {g.label for g in four if g.label.startswith("arccos0")}  # E rho^-6
    assert left_out(5, 3, False, integrands(5, np.random.default_rng(0))) == {}  # E rho^-6 = 1/15
    assert left_out(2, 1, False, battery) == {}  # bounded weights (SR11, SR13): finite variance
    assert left_out(2, 3, True, battery) == {}  # deterministic: no variance


@pytest.mark.parametrize("bug", list(cm.QUADRATURE_CORNER_BUGS), ids=lambda r: r.name)
def test_corner_bug_caught_at_its_corner_and_twins_pass_there(bug):
    d = cm.QUADRATURE_CORNER_BUGS[bug]
    res = _run(bug, pins={"d": d})
    assert res.status == "fail", res.message
    assert f"at the corner dimension d = {d} (2000 draws)" in res.message, res.message
    assert res.reproduce.endswith(f"--pin d={d}"), res.reproduce
    assert res.details["corner"] == {"d": d} and res.details["dim"] == d
    assert res.alpha == pytest.approx(res.details["alpha_split"]["per_corner"]) == pytest.approx(1e-3 / 4)
    for twin in cm.QUADRATURE_CORNER_TWINS:
        ok = _run(twin, pins={"d": d})
        assert ok.status == "pass", ok.message


def test_corner_bugs_are_invisible_to_exactness_and_explore():
    for bug in cm.QUADRATURE_CORNER_BUGS:
        rep = run(QuadratureConfig(bug, dim=8, degree=3), checks=["exactness", "explore"], isolate=False)
        assert rep.passed, rep.table()


def test_a_corner_failure_names_the_corner_and_its_reproduce_command_replays_it(monkeypatch, capsys):
    # A cheaper main configuration (only the corner's alpha, budget and streams matter to the replay).
    monkeypatch.setitem(BUDGETS["default"], "quadrature", {**BUDGETS["default"]["quadrature"], "unbiased_draws": 500})
    res = _run(f"{MOD}:sr33_radius_chi1_at_d1")
    assert res.status == "fail" and "at the corner dimension d = 1" in res.message, res.message
    assert res.details["corner"] == {"d": 1} and res.details["alpha_split"]["corners_in_design"] == 2
    assert [c["d"] for c in res.details["corners"]] == [1]  # the first failing corner ends the check
    monkeypatch.undo()
    code = main(shlex.split(res.reproduce)[1:] + ["--json", "-"])
    replay = json.loads(capsys.readouterr().out)["checks"][0]
    assert code == 1 and replay["status"] == "fail"
    assert replay["statistic"] == pytest.approx(res.statistic) and replay["alpha"] == pytest.approx(res.alpha)
    assert replay["details"]["mean"] == pytest.approx(list(res.details["mean"]))


def test_a_pinned_corner_replays_the_numbers_of_the_full_run(monkeypatch):
    """A correct rule: the corner d = 1 inside the full default run and d = 1 pinned give the same p-value (the same
    streams, alpha and budget), and the pinned run has no declared-d configuration."""
    monkeypatch.setitem(BUDGETS["default"], "quadrature", {**BUDGETS["default"]["quadrature"], "unbiased_draws": 500})
    full = _run(sr33_haar, space={"d": (1, 4)})  # corners d = 1 and 4; main d = 8 is outside but still declared
    at1 = next(c for c in full.details["corners"] if c["d"] == 1)
    pinned = _run(sr33_haar, pins={"d": 1})
    assert full.status == pinned.status == "pass", (full.message, pinned.message)
    assert pinned.pvalue == pytest.approx(at1["pvalue"])
    assert pinned.details["detectable_bias"].tolist() == pytest.approx(list(at1["detectable_bias"].values()))
    assert pinned.details["corners"] == [{k: v for k, v in at1.items()}]
    assert pinned.details["corner"] == {"d": 1} and "corner" not in full.details  # only a corner's result names it


def test_quick_profile_runs_no_corner():
    res = _run(sr33_haar, profile="quick")
    assert res.status == "pass" and res.details["corners"] == [], res.message
    assert res.details["alpha_split"]["main"] == pytest.approx(res.alpha) == pytest.approx(1e-3)


STUDY = Path(__file__).resolve().parent.parent / "reports" / "calibration" / "quadrature-corners.json"


def test_committed_study_meets_the_targets():
    """The committed study (``tests/quadrature_corner_study.py``): every planted bug caught under the default seed
    and 20 others with its corner named; the SR33 twins' corner false alarms consistent with the design rate
    (at most 5e-4 per seed and rule: the 95% Clopper-Pearson interval of the count must contain a rate <= 5e-4)."""
    summary = json.loads(STUDY.read_text())["summary"]
    assert set(summary["bugs"]) == {r.name for r in cm.QUADRATURE_CORNER_BUGS}
    for name, e in summary["bugs"].items():
        assert e["caught"] == e["seeds"] == 21, (name, e["missed_seeds"])
    assert set(summary["twins"]) == {r.name for r in cm.QUADRATURE_CORNER_TWINS}
    for name, e in summary["twins"].items():
        assert e["seeds"] >= 100 and e["default_design"]["interval95"][0] <= 5e-4, (name, e)


@pytest.mark.slow
def test_study_rows_replay():
    """Three rows of the committed study replay to the same verdicts and p-values (about 10 s of CPU)."""
    from tests import quadrature_corner_study as study

    rows = [json.loads(line) for line in STUDY.with_suffix(".jsonl").read_text().splitlines()]
    bug = next(r for r in rows if r.get("bug") == "sr33-radius-chi1-at-d1" and r["seed"] == 1)
    assert study.run_bug(bug["bug"], 1)["caught"] == bug["caught"] is True
    twin = next(r for r in rows if r.get("twin") == "sr33-haar")
    again = study.run_twin("sr33-haar", twin["seed"], (1, 64))
    for d in ("1", "64"):
        assert again["corners"][d]["status"] == twin["corners"][d]["status"]
        assert again["corners"][d]["pvalue"] == pytest.approx(twin["corners"][d]["pvalue"])


def test_leaving_the_heavy_tailed_integrands_out_does_not_blind_d_2():
    """At d = 2 the arc-cosine order-0 integrands are left out; a wrong radial law (chi(d) for chi(d + 2)) is still
    caught there by the smooth integrands, and the correct SR33 passes with the three left out and said so."""
    from tests.mutants import quadrature_mutants as qm

    bad = _run(qm.wrong_radial_law, pins={"d": 2})
    assert bad.status == "fail" and "at the corner dimension d = 2" in bad.message, bad.message
    ok = _run(sr33_haar, pins={"d": 2})
    assert ok.status == "pass" and "3 left out: too heavy-tailed at d = 2" in ok.message, ok.message
    assert len(ok.details["left_out"]["integrands"]) == 3 and "E rho^-4 = inf" in ok.details["left_out"]["reason"]


def test_each_corner_entry_records_what_ran_there_and_the_pass_message_names_the_corners():
    """Per corner: d, status, p-value, the draws the body made and the bias it could detect per integrand.  After the
    declared d's own message: "; at the corner dimensions d = 1, 64 too" (one corner: singular).  One run of each
    configuration serves both (each is a default-profile rule-unbiasedness run with its corners)."""
    res = _run(sr33_haar)
    assert res.status == "pass", res.message
    assert [(c["d"], c["status"], c["draws"]) for c in res.details["corners"]] == [(1, "pass", 2000), (64, "pass", 2000)]
    for c in res.details["corners"]:
        assert 0 < c["pvalue"] <= 1 and c["detectable_bias"] and all(v > 0 for v in c["detectable_bias"].values())
    assert res.details["alpha_split"]["corners_in_design"] == 2
    assert not any("left_out" in c for c in res.details["corners"])
    assert res.message.startswith("no bias on ") and " at d = 8; max |t| " in res.message, res.message
    assert res.message.endswith("(power 0.99); at the corner dimensions d = 1, 64 too"), res.message
    one = _run(sr33_haar, space={"d": (2, 8)})
    two = one.details["corners"]  # at d = 2 the arc-cosine(0) integrands are not judged
    assert [c["d"] for c in two] == [2]
    assert two[0]["left_out"]["integrands"] == ["arccos0 theta=0.25pi", "arccos0 theta=0.5pi", "arccos0 theta=0.75pi"]
    assert two[0]["left_out"]["reason"].startswith("infinite variance at d = 2 for a rule exact to degree 3")
    assert one.message.endswith("(power 0.99); at the corner dimension d = 2 too"), one.message
    assert _run(sr33_haar, pins={"d": 2}).message.endswith("(power 0.99)")  # a pinned d: no declared d, no note


def test_a_rule_declared_biased_is_measured_at_a_pinned_corner():
    """A pinned d on a rule declared biased: the corner's skip (measured, not judged) is the result, with its reason
    in the corner's entry."""
    res = _run(sr33_haar, unbiased=False, pins={"d": 1})
    assert res.status == "skip" and res.message.startswith("declared biased: measured largest bias at "), res.message
    assert res.details["corner"] == {"d": 1}
    assert res.details["corners"] == [{"d": 1, "status": "skip", "pvalue": res.pvalue, "draws": 2000,
                                       "detectable_bias": res.details["corners"][0]["detectable_bias"],
                                       "reason": res.message}]


def test_the_first_corner_that_does_not_pass_is_the_verdict():
    """Whatever the body returns at a corner other than a pass (here a stub's skip at d = 64 after passes at the
    declared d and at d = 1) ends the check with that result, its corner named; a pass is never reported over it."""
    def body(c):
        status = "skip" if c.dim == 64 else "pass"
        return c.result(status, f"{status} at d = {c.dim}", details={"draws": 7})

    res = rule_at_corners(_ctx(sr33_haar), body)
    assert (res.status, res.message, res.details["corner"]) == ("skip", "skip at d = 64", {"d": 64})
    assert [(c["d"], c["status"], c.get("reason")) for c in res.details["corners"]] == [
        (1, "pass", None), (64, "skip", "skip at d = 64")]
    ok = rule_at_corners(_ctx(sr33_haar, space={"d": (1, 4)}), lambda c: c.result("pass", "ok", details={"draws": 7}))
    assert (ok.status, ok.message) == ("pass", "ok; at the corner dimensions d = 1, 4 too")

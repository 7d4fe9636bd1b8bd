"""The statistical checks at the corner configurations (:mod:`rfverify.corners`): the design covers every corner
level and stays in the declared space, the alpha split is Bonferroni within each check's share, every planted
corner bug of :mod:`tests.mutants.corner_mutants` is caught at its corner (the message names it, the reproduce
command replays it with the same numbers), and the correct twins pass there.

False-alarm rate and power: each corner test runs at ``share alpha / corners`` (default 1e-3/3 x 1/2 / 4 =
4.2e-5), so one seed's 12 corner tests of a correct map false-alarm with probability at most 5e-4 (measured in
``reports/calibration/corners.json``: 0 in 200 seeds for each of RandomFourierFeatures, CeilCosSin, RoundUpScaled and
haar_qr; the earlier, partial study's 3 in 117 for RandomFourierFeatures with Hall's correction, since replaced by
the Student t, is kept in ``reports/calibration/history/``); the planted bugs are gross at their corner (an estimate
identically 0, a factor 16/3, k^10, k^(1/2), a flat error curve) and caught with power >= 0.99 by design (21/21
seeds each in the study).  The CI tests replay one corner each (a few hundred cheap fits); the study is replayed
in part by the ``slow`` test.
"""

from __future__ import annotations

import json
import shlex
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import rfverify
from rfverify.cli import main
from rfverify.corners import alpha_split, corner_budget, design
from rfverify.profiles import PROFILES
from rfverify.implementations.rff import RandomFourierFeatures
from rfverify.profiles import get_profile
from rfverify.seeding import DEFAULT_SEED
from rfverify.spaces import FeatureMapSpace
from tests.mutants import corner_mutants as cm
from tests.mutants.explore_mutants import CeilCosSin

RBF = {"kernel": "rbf", "kernel_params": {"gamma": 0.5}, "dim": 16, "bound": 2 ** 0.5}
GAMMA = {"gamma": (1e-3, 1e3, "log")}
STUDY = Path(__file__).resolve().parent.parent / "reports" / "calibration" / "corners.json"
#: The default profile with a cheaper main configuration (the corners, their budget and alpha are the default's,
#: which is all a corner's replay depends on): keeps these CI tests at a second or two of CPU.
CHEAP_DEFAULT = replace(get_profile("default"), unbiased_m=256, pilot_trials=30, bias_fraction=0.03)

#: A twin's design false-alarm rate per seed at the corners: 3 checks x (1e-3 / 3) x share 1/2 (feature maps);
#: 5 Haar checks x (1e-3 / 6) x 1/2 for haar_qr (below it).
TWIN_DESIGN_RATE = 5e-4
#: Each planted bug, the corner of the default design where it is caught, and its correct twin.
AT = {
    cm.OddWidthCosSin: ({"d": 1, "n_components": 1, "dtype": "float64"}, CeilCosSin),
    cm.RoundUpUnscaled: ({"d": 16, "n_components": 3, "dtype": "float32"}, cm.RoundUpScaled),
    cm.ClippedGamma: ({"d": 256, "n_components": 65, "dtype": "float64", "gamma": 0.001}, RandomFourierFeatures),
    cm.Float32FitDraw: ({"d": 16, "n_components": 3, "dtype": "float32"}, RandomFourierFeatures),
    cm.SharedBankAboveD: ({"d": 256, "n_components": 65, "dtype": "float64", "gamma": 0.001}, RandomFourierFeatures),
}


def _verify(impl, check, profile="default", seed=DEFAULT_SEED, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return rfverify.verify(impl, seed=seed, profile=profile, checks=[check], metrics=False,
                               **{**RBF, **kw}).results[0]


def test_design_covers_every_corner_level():
    corners = design(FeatureMapSpace(params=GAMMA), 16, {"gamma": 0.5}, "default")
    assert len(corners) == corner_budget("default").corners == 4
    ds, ms = {c.d for c in corners}, {c.m for c in corners}
    assert {1, 16, 256} <= ds and 1 in ms
    assert any(c.m % 2 == 1 and c.m % c.d and c.m > 1 for c in corners)  # odd, not a multiple of d
    assert any(c.dtype == "float32" for c in corners)
    gammas = {dict(c.params).get("gamma") for c in corners}
    assert {1e-3, 1e3} <= gammas
    assert [len(design(FeatureMapSpace(params=GAMMA), 16, {"gamma": 0.5}, p)) for p in ("quick", "thorough")] == [0, 6]


def test_design_stays_in_the_declared_space():
    class Gamma:
        search = (1e-3, 1e3, "log")

    space = FeatureMapSpace.build([{"d": (8, 64), "n_components": (16, 4096), "dtype": "float64",
                                    "gamma": (0.1, 10.0)}], params={"gamma": Gamma()})
    for profile in PROFILES:
        for c in design(space, 16, {"gamma": 0.5}, profile):
            assert 8 <= c.d <= 64 and 16 <= c.m and c.dtype == "float64", c
            assert 0.1 <= dict(c.params).get("gamma", 0.5) <= 10.0, c
    fixed = design(FeatureMapSpace(params=GAMMA), 16, {"gamma": 0.5}, "default", fixed_dim=True)
    assert {c.d for c in fixed} == {16}


@pytest.mark.parametrize("profile", list(PROFILES))
def test_alpha_split_is_bonferroni_within_the_check_share(profile):
    alpha = 1e-3 / 3
    main_alpha, corner_alpha = alpha_split(alpha, profile)
    assert main_alpha + corner_budget(profile).corners * corner_alpha == pytest.approx(alpha)
    assert main_alpha >= alpha / 2


@pytest.mark.parametrize("bug", list(AT), ids=lambda c: c.__name__)
def test_corner_bug_caught_at_its_corner_and_twin_passes_there(bug):
    pins, twin = AT[bug]
    check, named = cm.CORNER_STAT_BUGS[bug]
    res = _verify(bug, check, pins=pins)
    assert res.status == "fail", res.message
    assert "at the corner configuration" in res.message and named in res.message, res.message
    assert "--pin d=" in res.reproduce and "--n-components" in res.reproduce, res.reproduce
    assert res.details["alpha_split"]["per_corner"] == pytest.approx(res.alpha)
    ok = _verify(twin, check, pins=pins)
    assert ok.status == "pass", ok.message


def test_explore_does_not_see_the_corner_bugs():
    """They are statistical bugs: every deterministic property holds (quick exploration)."""
    assert _verify(cm.Float32FitDraw, "explore", profile="quick").status == "pass"


def test_failure_names_the_corner_and_the_reproduce_command_replays_it(capsys):
    res = _verify(cm.Float32FitDraw, "unbiasedness", profile=CHEAP_DEFAULT)
    assert res.status == "fail" and "at the corner configuration d = 16, n_components=3, float32" in res.message
    assert res.details["corner"]["n_components"] == 3
    code = main(shlex.split(res.reproduce)[1:] + ["--json", "-"])
    replay = json.loads(capsys.readouterr().out)["checks"][0]
    assert code == 1 and replay["status"] == "fail"
    assert replay["pvalue"] == pytest.approx(res.pvalue) and replay["statistic"] == pytest.approx(res.statistic)
    assert replay["details"]["trials"] == res.details["trials"]


def test_main_configuration_keeps_its_power():
    """The main configuration runs at (1 - share) alpha with its sample size re-derived for the profile's power:
    the bias detectable there stays at the profile's target."""
    res = _verify(RandomFourierFeatures, "unbiasedness", profile=CHEAP_DEFAULT)
    assert res.status == "pass", res.message
    assert res.details["alpha_split"]["main"] == pytest.approx(res.alpha) == pytest.approx(1e-3 / 6)
    assert res.details["detectable_bias"] <= res.details["target_bias"] * 1.0001
    assert [c["status"] for c in res.details["corners"]] == ["pass"] * 4
    quick = _verify(RandomFourierFeatures, "unbiasedness", profile="quick")  # no corner: alpha and cost as before
    assert quick.alpha == pytest.approx(1e-3 / 3) and quick.details["corners"] == []


def test_a_rare_event_pair_without_spread_is_not_a_false_alarm():
    """maxout hashing at m = 3 estimates a far pair's kernel 1e-3 as 0 in every seed: no spread, no t-test there
    (the zoo entry failed before this rule); an estimate identically wrong at every pair (OddWidthCosSin at m = 1)
    is still caught (see the bug test above)."""
    from rfverify.studies.zoo import zoo_entries

    e = zoo_entries(["maxout-hash-q4"])[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        res = rfverify.verify(e.implementation, seed=DEFAULT_SEED, profile="default", checks=["unbiasedness"],
                              metrics=False, pins={"d": 16, "n_components": 3, "dtype": "float32"},
                              **e.options).results[0]
    assert res.status == "pass", res.message


@pytest.mark.slow
def test_corner_study_replays_the_committed_results():
    """A subset of ``python -m tests.corner_study`` (2 seeds per bug, 5 per twin) gives the committed verdicts, and
    the committed study shows every planted bug caught under all 21 seeds and no twin flagged (its false alarms'
    95% interval lying wholly above the design rate, the rule of ``rfverify calibrate``)."""
    from tests.corner_study import BUG_SEEDS, TWIN_SEEDS, study

    committed = json.loads(STUDY.read_text())
    doc = study(1, bug_seeds=BUG_SEEDS[:2], twin_seeds=TWIN_SEEDS[:5])
    for bug, e in doc["bugs"].items():
        want = {r["seed"]: r for r in committed["bugs"][bug]["per_seed"]}
        for r in e["per_seed"]:
            assert r["status"] == want[r["seed"]]["status"] == "fail" and r["corner_named"], (bug, r)
            assert r["pvalue"] == pytest.approx(want[r["seed"]]["pvalue"]), (bug, r)
    for twin, e in doc["twins"].items():
        assert e["false_alarms"] == 0, e
    for bug, e in committed["bugs"].items():
        assert e["caught"] == e["seeds"] == 21, (bug, e["missed_seeds"])
    # every twin over the 200 study seeds; flagged as rfverify calibrate flags (the 95% interval wholly above the
    # design rate)
    for twin, e in committed["twins"].items():
        assert e["seeds"] == len(TWIN_SEEDS) and e["interval95"][0] <= TWIN_DESIGN_RATE, (twin, e["failing"])
    for ref, e in committed["references"].items():
        assert e["interval95"][0] <= 1e-3, (ref, e["failing"])


# ---------------------------------------------------------------- orthogonal samplers: the Haar battery at corner d
def _haar(sampler, check, seed=DEFAULT_SEED, **kw):
    from rfverify.kinds import get_kind

    verify = get_kind("orthogonal").verify_function()
    return verify(sampler, dim=16, group="O", seed=seed, profile="default", checks=[check], **kw).results[0]


def test_orthogonal_corner_dimensions_follow_the_declared_space():
    from rfverify.implementations.orthogonal import haar_qr
    from rfverify.kinds.orthogonal import OrthogonalConfig
    from rfverify.properties.haar_corners import corner_dimensions

    def from_d3(d, rng):
        return haar_qr(d, rng)

    from_d3.rfverify_space = {"d": (3, 40)}
    cases = [(haar_qr, 16, "default", [1, 128]), (from_d3, 16, "default", [3, 40]),
             (haar_qr, 16, "thorough", [1, 128, 2]),  # the third corner (thorough): d = 2, the smallest with a pair
             (from_d3, 16, "thorough", [3, 40]),  # d = 2 is outside the declared space: its lowest d instead, once
             (haar_qr, 128, "default", [1]), (from_d3, 40, "thorough", [3])]  # a corner at the declared d is not rerun
    for sampler, dim, profile, want in cases:
        config = OrthogonalConfig(sampler, dim=dim, profile=profile)
        ctx = config.context(next(s for s in config.checks() if s.name == "haar-entries"))
        assert corner_dimensions(ctx) == (want, True), (sampler.__name__, dim, profile)


def test_sign_fix_stopping_above_64_is_caught_at_the_largest_corner():
    """Right at d = 16 (the declared d), not Haar at d = 128: E tr Q = -6.5 instead of 0 (caught with the corner's
    60 draws at alpha 5e-5 whatever the seed: the mean is 40 standard errors away); its twin passes there."""
    from rfverify.implementations.orthogonal import haar_qr

    res = _haar(cm.sign_fix_up_to_64, "haar-trace-moments", pins={"d": 128})
    assert res.status == "fail" and "at the corner dimension d = 128" in res.message, res.message
    assert "--pin d=128" in res.reproduce
    twin = _haar(haar_qr, "haar-trace-moments", pins={"d": 128})
    assert twin.status == "pass"
    # pinned: the corner d = 128 alone (neither the declared d = 16 nor the corner d = 1 runs)
    assert [c["d"] for c in twin.details["corners"]] == [128]

    def sign_fix_above_64(d, rng):  # the mirror image: not Haar at the declared d = 16, Haar at 128
        if d > 64:
            return haar_qr(d, rng)
        return np.linalg.qr(rng.standard_normal((d, d)))[0]

    assert _haar(sign_fix_above_64, "haar-trace-moments", pins={"d": 128}).status == "pass"  # d = 16 not run
    res = _haar(sign_fix_above_64, "haar-trace-moments")  # its twin unpinned: d = 16 runs, fails, corners not run
    assert res.status == "fail" and "corners" not in res.details
    # the failing declared d carries the alpha split: half of the check's 1e-3 / 6 there, the rest over 2 corners
    assert res.details["alpha_split"] == pytest.approx({"main": 1e-3 / 12, "per_corner": 1e-3 / 24,
                                                        "corners_in_design": 2, "check_alpha": 1e-3 / 6})


def test_a_corner_where_the_check_does_not_apply_is_listed_as_skipped():
    """haar-entries needs d >= 2: the corner d = 1 is a skip with its reason, d = 128 runs."""
    from rfverify.implementations.orthogonal import haar_qr

    res = _haar(haar_qr, "haar-entries")
    assert res.status == "pass" and res.message.endswith("; at the corner dimension d = 128 too"), res.message
    skip, ran = res.details["corners"]
    assert skip == {"d": 1, "status": "skip", "reason": "d=1: O(1) = {±1} and SO(1) = {1} are finite; only the "
                                                        "determinant law is tested"}
    assert (ran["d"], ran["status"], ran["draws"]) == (128, "pass", 60) and 0 < ran["pvalue"] <= 1
    pinned = _haar(haar_qr, "haar-entries", pins={"d": 1})  # pinned where it does not apply: a skip, its reason
    assert (pinned.status, pinned.message) == ("skip", skip["reason"])


def test_a_map_exact_from_some_width_on_is_not_a_slower_rate():
    """scikit-learn's PolynomialCountSketch at d = 1 is exact once its buckets suffice (MSE 3.5, 0.16, 3e-30 at
    m = 17, 65, 257): faster than 1/m, not "slower" (a log-log fit through round-off floors had no spread and
    failed before this rule); a map that stays inexact (SharedBankAboveD) still fails (the bug test above).
    The sketch declares no bound, so its corner grid is now 17, 68, 272 (the nested comparison): at this seed one
    of 40 sketches still collides at 272, so the rule is pinned on the bounded twin below and the sketch passes
    the nested comparison, whose Mann-Whitney test handles the tied zeros."""
    from rfverify.studies.zoo import zoo_entries

    e = zoo_entries(["sklearn-PolynomialCountSketch"])[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        res = rfverify.verify(e.implementation, seed=DEFAULT_SEED, profile="default", checks=["error-rate"],
                              metrics=False, pins={"d": 1, "n_components": 1, "dtype": "float64"},
                              **e.options).results[0]
    assert res.status == "pass" and res.details["test"] == "nested", res.message
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        bounded = rfverify.verify(e.implementation, seed=DEFAULT_SEED, profile="default", checks=["error-rate"],
                                  metrics=False, pins={"d": 1, "n_components": 1, "dtype": "float64"},
                                  **{**e.options, "bound": 10.0}).results[0]
    assert bounded.status == "pass" and bounded.details["exact_from_width"] == 257, bounded.message


def test_a_skewed_estimate_at_a_corner_is_not_a_false_alarm():
    """Arc-cosine order 2 at m = 3 (a corner): k_hat is a sum of three products of squared Gaussians, so skewed
    that 30 seeds gave a mean of 0.285 against the exact 0.868 and t deep in the left tail — the regenerated zoo
    report failed this correct map.  Cochran's rule (n > 25 G1²) now gives the pair more seeds or leaves it
    untested at that corner, and says how many it left."""
    from rfverify.studies.zoo import zoo_entries

    e = zoo_entries(["arccos-2"])[0]
    res = rfverify.verify(e.implementation, seed=DEFAULT_SEED, profile="default", checks=["unbiasedness"],
                          metrics=False, pins={"d": 16, "n_components": 3, "dtype": "float32"},
                          **e.options).results[0]
    assert res.status == "pass", res.message
    assert res.details["trials"] > get_profile("default").pilot_trials


def test_cochran_rule_marks_skewed_pairs():
    import numpy as np

    from rfverify.stats import cochran_n, too_skewed

    rng = np.random.default_rng(0)
    symmetric = rng.standard_normal(400)
    skewed = rng.standard_normal(400) ** 4  # skewness ~ 15 in the population, ~8 in a sample of 400
    values = np.column_stack([symmetric, skewed, np.ones(400)])
    assert too_skewed(values).tolist() == [False, True, False]
    assert cochran_n(values[:, :1]) < 400 < cochran_n(values)

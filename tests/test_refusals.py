"""A clean refusal narrows the space a feature map is judged on; everything else is still judged.

The rule (:mod:`rfverify.refusals`): a ValueError/TypeError/NotImplementedError away from the main configuration
sets the configuration aside and the verdict states the refused region; another exception type, garbage, an
inconsistent refusal or a refusal at the main configuration is still a failure or an error; ``strict_space``
fails any refusal.  Each correct refusing map (``tests/refusing_maps.py``) has a defective twin in the same
region that is still caught.  ``explore`` and the corner design are deterministic given the seed (no alpha of
their own: the statistical corners keep their alpha split), so these verdicts are exact, not rates.
"""

from __future__ import annotations

import warnings

import pytest

import rfverify
from rfverify.cli import main
from rfverify.options import parse_space, space_options
from rfverify.refusals import Axis, InconsistentRefusal, Refusal, SpaceLog, coverage_statement
from tests import refusing_maps as rm

RBF = {"kernel": "rbf", "kernel_params": {"gamma": 0.5}, "dim": 16}


def _verify(impl, profile="quick", checks=("explore",), **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return rfverify.verify(impl, profile=profile, checks=list(checks) if checks else None, metrics=False,
                               **{**RBF, **kw})


def _rules(result):
    return [r["rule"] for r in result.details["space"]["refused"]]


# ---------------------------------------------------------------------------------------------- the rule engine
def _log(refuses, baseline=None, axes=(Axis("n_components"),)):
    return SpaceLog(axes, baseline or {"n_components": 16},
                    lambda form, seed: Refusal("ValueError", "no", "fit") if refuses(form) else None)


def _feed(log, forms):
    for f in forms:
        r = log.probe(f, 0)
        log.refuse(f, r, seed=0) if r else log.accept(f)


@pytest.mark.parametrize("refuses, values, text", [
    (lambda f: f["n_components"] < 2, [1, 3, 64], "n_components < 2"),
    (lambda f: f["n_components"] < 5, [1, 2, 9, 64], "n_components < 5"),  # the boundary is located by probing
    (lambda f: f["n_components"] > 100, [1, 3, 4096], "n_components > 100"),
    (lambda f: f["n_components"] % 2 == 1, [1, 2, 3, 4, 65, 64], "odd n_components"),
    (lambda f: f["n_components"] in (7, 300), [1, 7, 64, 300, 4096], "n_components in {7, 300}"),
])
def test_each_integer_region_is_described_in_its_simplest_form(refuses, values, text):
    log = _log(refuses)
    _feed(log, [{"n_components": v} for v in values])
    assert [r.text for r in log.rules()] == [text]


def test_a_wrong_description_is_caught_by_the_rule_engine_test():
    # planted: a map refusing m < 5 described from the values seen alone would read "n_components < 9"
    log = _log(lambda f: f["n_components"] < 5)
    _feed(log, [{"n_components": v} for v in (1, 2, 9)])
    assert log.rules()[0].text != "n_components < 9"
    assert log.rules()[0].matches({"n_components": 4}) and not log.rules()[0].matches({"n_components": 5})


def test_choice_and_dimension_regions_read_as_users_say_them():
    axes = (Axis("d"), Axis("dtype", "choice"), Axis("layout", "choice"), Axis("batch"))
    base = {"d": 16, "dtype": "float64", "layout": "C", "batch": 16}
    cases = [(lambda f: f["d"] == 1, {"d": 1}, "d = 1"),
             (lambda f: f["dtype"] == "float32", {"dtype": "float32"}, "float32 input"),
             (lambda f: f["layout"] == "F", {"layout": "F"}, "Fortran-ordered input"),
             (lambda f: f["batch"] == 1, {"batch": 1}, "batches of 1 row")]
    for refuses, moved, text in cases:
        log = _log(refuses, base, axes)
        _feed(log, [base, {**base, **moved}, {**base, "d": 3, "batch": 5}])
        assert [r.text for r in log.rules()] == [text], text


def test_a_refusal_that_needs_two_axes_is_stated_as_their_combination():
    axes = (Axis("d"), Axis("dtype", "choice"))
    base = {"d": 16, "dtype": "float64"}
    log = _log(lambda f: f["d"] == 1 and f["dtype"] == "float32", base, axes)
    _feed(log, [base, {"d": 1, "dtype": "float64"}, {"d": 16, "dtype": "float32"}, {"d": 1, "dtype": "float32"}])
    assert [r.text for r in log.rules()] == ["d = 1 and float32 input"]


def test_a_refusal_that_depends_on_the_seed_is_inconsistent():
    log = SpaceLog([Axis("n_components")], {"n_components": 16},
                   lambda form, seed: Refusal("ValueError", "odd seed", "fit") if seed % 2 else None)
    with pytest.raises(InconsistentRefusal, match="accepted it with seed 2"):
        log.refuse({"n_components": 1}, Refusal("ValueError", "odd seed", "fit"), seed=1)


def test_the_coverage_statement_warns_when_most_of_the_space_was_refused():
    space = {"searched": "d 1 … 8", "refused": [{"rule": "odd n_components", "exception": "ValueError",
                                                  "message": "even only"}],
             "configurations_tried": 10, "configurations_refused": 6, "refused_share": 0.6}
    text = coverage_statement(space)
    assert text.startswith("over d 1 … 8; refuses odd n_components (ValueError: even only)")
    assert "WARNING: 6 of 10 explored configurations were refused" in text
    assert "WARNING" not in coverage_statement({**space, "refused_share": 0.4})


# ---------------------------------------------------------------------------------------------- feature maps
#: Each refusing map's explore at the quick profile (25 configurations of the same space) in CI, at the default
#: profile (150) in the slow set; the default-profile explore of two of them runs in CI inside their whole suite
#: (``test_maps_refusing_m_below_2_pass_the_default_suite_with_the_refusal_stated``).
@pytest.mark.parametrize("profile", ["quick", pytest.param("default", marks=pytest.mark.slow)])
@pytest.mark.parametrize("impl, rule", [
    (rm.CosSinRefusesM1, "n_components < 2"), (rm.RFFRefusesM1, "n_components < 2"),
    (rm.ORFRefusesM1, "n_components < 2"), (rm.RefusesOddM, "odd n_components"), (rm.RefusesD1, "d = 1"),
    (rm.RefusesFloat32, "float32 input"), (rm.RefusesFortran, "Fortran-ordered input"),
    (rm.RefusesOneRow, "batches of 1 row"),
], ids=lambda x: getattr(x, "__name__", x))
def test_a_correct_map_refusing_a_region_passes_explore_with_the_region_stated(impl, rule, profile):
    res = _verify(impl, profile=profile).results[0]
    assert res.status == "pass", res.message
    assert any(r.startswith(rule) for r in _rules(res)), _rules(res)
    assert f"refuses {rule}" in res.message, res.message
    refused = res.details["space"]
    assert refused["configurations_refused"] > 0 and refused["searched"].startswith("d 1 … 512"), refused


@pytest.mark.parametrize("impl", [rm.CosSinRefusesM1, rm.RFFRefusesM1,
                                  pytest.param(rm.ORFRefusesM1, marks=pytest.mark.slow)],  # its explore runs in CI
                         ids=lambda c: getattr(c, "__name__", str(c)))
def test_maps_refusing_m_below_2_pass_the_default_suite_with_the_refusal_stated(impl, tmp_path):
    """The verdict, and the HTML page and the Markdown summary of the same run: they state where the verdict holds."""
    from rfverify.report.writing import write_reports

    rep = _verify(impl, profile="default", checks=None)
    assert rep.exit_code == 0, rep.table()
    lines = rep.coverage_lines()
    assert any(line.startswith("explore PASSED over d 1 … 512") and "refuses n_components < 2 (ValueError: "
               "n_components must be >= 2)" in line for line in lines), lines
    corner = [c for c in rep["unbiasedness"].details["corners"] if c["d"] == 1][0]
    assert corner["status"] == "moved" and corner["to"].startswith("d = 1, n_components=2"), corner
    write_reports(tmp_path, [("refusing", rep)], seed=rep.seed, profile="default", command="")
    md = (tmp_path / "SUMMARY.md").read_text(encoding="utf-8")
    assert "Where the verdicts hold" in md and "refuses n_components &lt; 2 (ValueError: " in md, md
    page = (tmp_path / "refusing.html").read_text(encoding="utf-8")
    assert "Where the verdict holds" in page and "n_components &lt; 2" in page
    assert "was judged at" in page and "d = 1, n_components=2" in page


def test_the_twin_that_crashes_in_the_region_is_still_caught():
    rep = _verify(rm.CrashesAtM1, profile="default", checks=("explore", "unbiasedness"))
    explore, unbiased = rep.results
    assert explore.status == "fail" and "ZeroDivisionError" in explore.message, explore.message
    assert unbiased.status == "error" and "at the corner configuration d = 1, n_components=1" in unbiased.message
    assert rep.exit_code == 2


def test_the_twin_that_returns_garbage_in_the_region_is_still_caught():
    res = _verify(rm.GarbageAtOddM).results[0]
    assert res.status == "fail" and "n_components=" in res.message, res.message
    assert res.details["minimal_example"]["m"] % 2 == 1


def test_an_inconsistent_refusal_is_an_error():
    rep = _verify(rm.InconsistentAtM1, profile="default", checks=("explore", "unbiasedness"))
    explore, unbiased = rep.results
    assert explore.status == "error" and "a refusal must not depend on the seed" in explore.message, explore.message
    assert unbiased.status == "error" and "with one seed" in unbiased.message, unbiased.message


def test_a_refusal_at_the_main_configuration_is_an_error():
    rep = _verify(rm.RefusesMainD, checks=None)
    assert rep.exit_code == 2
    assert all(r.status in ("error", "skip") for r in rep.results), rep.table()
    assert "d = 16 is not supported" in rep.results[0].message


def test_strict_space_fails_the_refusing_map_and_names_the_rule():
    res = _verify(rm.CosSinRefusesM1, strict_space=True).results[0]
    assert res.status == "fail", res.message
    assert "refuses n_components < 2 (ValueError: n_components must be >= 2, at fit" in res.message, res.message
    assert "--strict-space" in res.reproduce
    assert _verify(rfverify.implementations.rff.RandomFourierFeaturesCosSin, strict_space=True).results[0].status \
        == "pass"


def test_the_caller_narrows_the_space_and_nothing_is_refused_then():
    res = _verify(rm.CosSinRefusesM1, space={"n_components": (2, None)}).results[0]
    assert res.status == "pass" and res.details["space"]["refused"] == [], res.details["space"]
    assert res.details["space"]["n_components"] == [2, 4096]
    assert "--space n_components=2:" in res.reproduce


# ---------------------------------------------------------------------------------------------- command line
def test_space_options_round_trip():
    texts = ["n_components=2:4096", "dtype=float64,", "d=8:", "norm=typical"]
    assert space_options(parse_space(texts)) == [a for t in texts for a in ("--space", t)]


@pytest.mark.parametrize("arg, says", [
    ("colour=1:2", "unknown configuration key 'colour'"),
    ("n_components=9:2", "is an empty range (9 > 2)"),
    ("n_components", "--space takes KEY=LO:HI"),
])
def test_a_bad_space_option_is_a_one_line_usage_error(arg, says, capsys):
    code = main(["check", "feature-map", "tests.refusing_maps:CosSinRefusesM1", "--kernel", "rbf",
                 "--profile", "quick", "--check", "explore", "--space", arg])
    err = capsys.readouterr().err
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1, err


def test_the_command_line_states_the_coverage_and_strict_space_fails(capsys):
    args = ["check", "feature-map", "tests.refusing_maps:CosSinRefusesM1", "--kernel", "rbf", "--param",
            "gamma=0.5", "--profile", "quick", "--check", "explore"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "explore PASSED over d 1 … 512" in out and "refuses n_components < 2 (ValueError: " in out, out
    assert main(args + ["--strict-space"]) == 1
    assert "strict space" in capsys.readouterr().out


# ---------------------------------------------------------------------------------------------- pytest plugin
PYTEST_BODY = """
import sys
sys.path.insert(0, {root!r})
from rfverify.pytest_plugin import parametrize_with_checks
from tests.refusing_maps import CosSinRefusesM1

@parametrize_with_checks([CosSinRefusesM1], kernel_params={{"gamma": 0.5}}, checks=["explore"])
def test_wide(rfverify_case):
    rfverify_case()

@parametrize_with_checks([CosSinRefusesM1], kernel_params={{"gamma": 0.5}}, checks=["explore"],
                         space={{"n_components": (2, None)}}, ids=["narrowed"])
def test_narrowed(rfverify_case):
    assert rfverify_case().details["space"]["refused"] == []
"""


@pytest.mark.parametrize("how, wide", [((), "passed"), (("--rfverify-strict-space",), "failed"),
                                       (("-o", "rfverify_strict_space=true"), "failed")])
def test_pytest_plugin_space_and_strict_space(pytester, how, wide):
    from pathlib import Path

    pytester.makepyfile(PYTEST_BODY.format(root=str(Path(__file__).parent.parent)))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--rfverify-profile", "quick", *how)
    result.assert_outcomes(passed=2 if wide == "passed" else 1, failed=0 if wide == "passed" else 1)
    if wide == "failed":
        result.stdout.fnmatch_lines(["*strict space*", "*rerun: pytest *--rfverify-strict-space*"])


def test_a_refusal_tied_to_a_seeds_low_bits_is_caught_by_the_far_seed():
    # refuses for seeds whose bit 16 is clear: s and s + 1 agree, the far seed s + 2^16 + 2 does not
    refuses = lambda seed: (seed >> 16) % 2 == 0  # noqa: E731
    log = SpaceLog([Axis("n_components")], {"n_components": 16},
                   lambda form, seed: Refusal("ValueError", "bit 16", "fit") if refuses(seed) else None)
    with pytest.raises(InconsistentRefusal, match="accepted it with seed 65538"):
        log.refuse({"n_components": 1}, Refusal("ValueError", "bit 16", "fit"), seed=0)


def test_a_configuration_accepted_and_refused_in_one_search_is_inconsistent():
    log = _log(lambda f: False)
    log.accept({"n_components": 3})
    with pytest.raises(InconsistentRefusal, match="after accepting it earlier"):
        log.refuse({"n_components": 3}, Refusal("ValueError", "now no", "fit"), seed=5)
    log = SpaceLog([Axis("n_components")], {"n_components": 16},
                   lambda form, seed: Refusal("ValueError", "no", "fit"))
    log.refuse({"n_components": 3}, Refusal("ValueError", "no", "fit"), seed=5)
    with pytest.raises(InconsistentRefusal, match="after refusing it earlier"):
        log.accept({"n_components": 3})

"""Expected failures at one corner (--xfail CHECK@KEY=VALUE=REASON): the declared corner's failure is expected, the
check's verdict at the main configuration and its other corners is shown beside it; without the declaration the
crash is an error, and a declared corner that passes fails the check (a stale declaration)."""

from __future__ import annotations

import pytest

import rfverify
from rfverify.cli import main
from rfverify.errors import UsageError
from rfverify.options import parse_xfail
from tests.declared_maps import CrashAtM1, rff_function

#: The default profile runs the statistical checks at 4 corners (quick runs none); corner 1 is d = 1, m = 1.
OPTS = dict(kernel="rbf", kernel_params={"gamma": 0.5}, bound=2 ** 0.5, profile="default", checks=["concentration"])
REASON = "divides by n_components - 1"


def test_without_the_declaration_the_corner_crash_is_an_error():
    r = rfverify.verify(CrashAtM1, **OPTS)["concentration"]
    assert r.status == "error" and "ZeroDivisionError" in r.message and "n_components=1" in r.message


def test_with_it_the_main_verdict_and_the_corner_are_both_shown():
    rep = rfverify.verify(CrashAtM1, xfail={"concentration@n_components=1": REASON}, **OPTS)
    r = rep["concentration"]
    assert r.status == "pass", r.message
    assert f"expected failure at the corner d = 1, n_components=1, float64 ({REASON})" in r.message
    assert [c["status"] for c in r.details["corners"]][0] == "xfail"
    assert any(c["status"] == "pass" for c in r.details["corners"])  # the other corners still judged
    lines = rep.coverage_lines()
    assert any(line.startswith("concentration PASSED at the main configuration; expected failure at the corner")
               for line in lines)
    assert "expected failure at the corner" in rep.table() and rep.exit_code == 0


def test_a_declared_corner_that_passes_fails_the_check():
    r = rfverify.verify(rff_function, xfail={"concentration@n_components=1": "not a bug"}, **OPTS)["concentration"]
    assert r.status == "fail" and "expected to fail at the corner d = 1, n_components=1" in r.message


def test_parsing_and_validation():
    assert parse_xfail(["concentration@n_components=1=crashes: 1 // (m - 1)"]) == {
        "concentration@n_components=1": "crashes: 1 // (m - 1)"}
    assert parse_xfail(["unbiasedness@d=1,dtype=float32=x=y"]) == {"unbiasedness@d=1,dtype=float32": "x=y"}
    with pytest.raises(UsageError, match="applies to the statistical checks of a feature map"):
        rfverify.verify(CrashAtM1, kernel="rbf", kernel_params={"gamma": 0.5}, profile="quick",
                        xfail={"contract@n_components=1": "x"})
    with pytest.raises(UsageError, match="unknown expected failure"):
        rfverify.verify(CrashAtM1, kernel="rbf", kernel_params={"gamma": 0.5}, profile="quick",
                        xfail={"nosuch@n_components=1": "x"})


def test_cli(capsys):
    code = main(["check", "feature-map", "tests.declared_maps:CrashAtM1", "--kernel", "rbf", "--param", "gamma=0.5",
                 "--bound", "1.4142135623730951", "--check", "concentration", "--xfail",
                 f"concentration@n_components=1={REASON}", "--quiet"])
    out = capsys.readouterr().out
    assert code == 0 and "concentration PASSED at the main configuration; expected failure at the corner" in out


def test_pytest_plugin_takes_the_corner_declaration(pytester):
    pytester.makepyfile(f"""
from rfverify.pytest_plugin import parametrize_with_checks
from tests.declared_maps import CrashAtM1

@parametrize_with_checks([CrashAtM1], kernel="rbf", kernel_params={{"gamma": 0.5}}, bound=2 ** 0.5,
                         checks=["concentration"], xfail={{"concentration@n_components=1": "{REASON}"}})
def test_crash(rfverify_case):
    rfverify_case()

@parametrize_with_checks([CrashAtM1], kernel="rbf", kernel_params={{"gamma": 0.5}}, bound=2 ** 0.5,
                         checks=["concentration"])
def test_crash_undeclared(rfverify_case):
    rfverify_case()
""")
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[1])
    result = pytester.runpytest_subprocess("--rfverify-profile", "default", "-p", "no:cacheprovider",
                                           "--rootdir", root, "-o", f"pythonpath={root}")
    result.assert_outcomes(passed=1, failed=1)  # declared: the main verdict passes; undeclared: the crash errs


def test_the_pinned_corner_alone_is_an_expected_failure():
    """A corner's reproduce command pins it: there the declared failure is the check's (xfail), not an error."""
    opts = dict(OPTS, profile="quick", pins={"d": 1, "n_components": 1})
    assert rfverify.verify(CrashAtM1, **opts)["concentration"].status == "error"
    r = rfverify.verify(CrashAtM1, xfail={"concentration@n_components=1": REASON}, **opts)["concentration"]
    assert r.status == "xfail" and REASON in r.message and "ZeroDivisionError" in r.message

"""The exit-status decision (rfverify/exit_status.py) pinned case by case (exit codes of the CLI and
the pytest plugin under mutation testing).  Pure functions, exact expected values, milliseconds.

Each case names the mutation it kills in a comment; ``.ci/mutation.py run --module rfverify/exit_status.py``
runs mutmut's mutants of the module against this file.
"""

from __future__ import annotations

import pytest

from rfverify import exit_status
from rfverify.exit_status import OK_STATUSES, is_ok, plugin_outcome, report_exit_code, worst_exit_code
from rfverify.results import STATUSES, CheckResult, Report


def test_public_names_exist():
    # kills a renamed entry of __all__
    assert sorted(exit_status.__all__) == sorted(["OK_STATUSES", "is_ok", "report_exit_code", "worst_exit_code",
                                                  "plugin_outcome"])
    assert all(hasattr(exit_status, n) for n in exit_status.__all__)


@pytest.mark.parametrize("status, ok", [("pass", True), ("skip", True), ("xfail", True), ("fail", False),
                                        ("error", False)])
def test_which_statuses_are_ok(status, ok):
    # kills a mutated member of OK_STATUSES and `in` -> `not in`
    assert is_ok(status) is ok
    assert (status in OK_STATUSES) is ok
    assert CheckResult(check="c", implementation="i", status=status, message="m", seed=1, reproduce="r").ok is ok


def test_ok_statuses_are_exactly_the_non_failing_ones():
    assert OK_STATUSES == frozenset(STATUSES) - {"fail", "error"}


@pytest.mark.parametrize("statuses, code", [
    ([], 0),                              # nothing ran: nothing failed
    (["pass"], 0),
    (["pass", "skip", "xfail"], 0),       # an expected failure that failed is not a failure
    (["fail"], 1),
    (["pass", "fail", "skip"], 1),
    (["error"], 2),
    (["fail", "error"], 2),               # an error outranks a failure, in either order
    (["error", "fail", "pass"], 2),
    (["xfail", "error"], 2),
])
def test_report_exit_code(statuses, code):
    # kills: the codes 2 / 1 / 0 changed, "error" / "fail" renamed, the order of the two tests swapped
    assert report_exit_code(statuses) == code
    assert report_exit_code(iter(statuses)) == code  # any iterable, consumed once
    results = tuple(CheckResult(check=f"c{i}", implementation="i", status=s, message="m", seed=1, reproduce="r")
                    for i, s in enumerate(statuses))
    rep = Report(implementation="i", kind="feature-map", target={}, seed=1, profile="quick", config={},
                 results=results, version="0")
    assert rep.exit_code == code and rep.passed is (code == 0)


@pytest.mark.parametrize("codes, worst", [([], 0), ([0], 0), ([0, 0], 0), ([1, 0], 1), ([0, 1], 1), ([2, 1, 0], 2),
                                          ([0, 2], 2), ([1, 1], 1)])
def test_worst_exit_code(codes, worst):
    # kills: max -> min (one failing entry among passing ones would exit 0), the empty default 0 changed
    assert worst_exit_code(codes) == worst
    assert worst_exit_code(iter(codes)) == worst


@pytest.mark.parametrize("status, outcome", [("pass", "pass"), ("skip", "skip"), ("xfail", "xfail"),
                                             ("fail", "fail"), ("error", "fail")])
def test_plugin_outcome_of_each_status(status, outcome):
    # kills: a status mapped to the wrong pytest outcome (an error that skips, a failure that passes)
    assert plugin_outcome(status) == outcome

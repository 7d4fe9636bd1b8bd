"""The pytest plugin: one item per check, ids impl[check], xfail mapping, shared options."""

from __future__ import annotations

import pytest

HEADER = """
import sys
sys.path.insert(0, {tests!r})
from sklearn.kernel_approximation import RBFSampler
from rfverify.pytest_plugin import parametrize_with_checks
from rff_mutants import HalfScale
"""


@pytest.fixture
def make_test(pytester):
    from pathlib import Path

    def _make(body):
        pytester.makepyfile(HEADER.format(tests=str(Path(__file__).parent)) + body)
        return pytester

    return _make


def test_rbf_sampler_items_pass_and_ids(make_test):
    p = make_test("""
@parametrize_with_checks([RBFSampler], kernel="rbf", kernel_params={"gamma": 0.5}, bound=2 ** 0.5)
def test_rbf(rfverify_case):
    rfverify_case()
""")
    result = p.runpytest("-v", "--rfverify-profile", "quick", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(["rfverify 0.1.0: seed=*, profile=quick*", "*test_rbf?RBFSampler?unbiasedness?? PASSED*"])


def test_failure_message_and_rerun_command(make_test):
    p = make_test("""
@parametrize_with_checks([HalfScale], kernel_params={"gamma": 0.5}, checks=["unbiasedness"])
def test_half(rfverify_case):
    rfverify_case()
""")
    result = p.runpytest("--rfverify-seed", "7", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*HalfScale [[]unbiasedness[]]: FAIL*", "*rerun: pytest *--rfverify-seed 7*"])


def test_xfail_mapping_and_stale_entry(make_test):
    p = make_test("""
@parametrize_with_checks([HalfScale], kernel_params={"gamma": 0.5}, checks=["unbiasedness", "contract"],
                         xfail={"unbiasedness": "known scale bug", "contract": "stale entry"})
def test_half(rfverify_case):
    rfverify_case()
""")
    result = p.runpytest("-p", "no:cacheprovider", "--rfverify-profile", "quick")
    result.assert_outcomes(xfailed=1, failed=1)
    result.stdout.fnmatch_lines(["*expected to fail (stale entry) but passed*remove*"])


def test_unknown_xfail_name_is_a_collection_error(make_test):
    p = make_test("""
@parametrize_with_checks([RBFSampler], xfail={"no-such-check": "x"})
def test_x(rfverify_case):
    rfverify_case()
""")
    result = p.runpytest("-p", "no:cacheprovider")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*unknown expected failure name(s) no-such-check*"])


def test_bad_profile_option_is_rejected(make_test):
    p = make_test("""
def test_nothing():
    pass
""")
    result = p.runpytest("--rfverify-profile", "fast", "-p", "no:cacheprovider")
    assert result.ret != 0
    result.stderr.fnmatch_lines(["*unknown profile 'fast'*"])

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
    result = p.runpytest_subprocess("-v", "-p", "no:cacheprovider")  # the whole default-profile suite
    result.assert_outcomes(passed=5, skipped=1)  # adapted-approximation: not a data-dependent map
    result.stdout.fnmatch_lines(["rfverify 0.1.0: seed=*, profile=default*", "*test_rbf?RBFSampler?unbiasedness?? PASSED*"])


def test_failure_message_and_rerun_command(make_test):
    p = make_test("""
@parametrize_with_checks([HalfScale], kernel_params={"gamma": 0.5}, checks=["unbiasedness"])
def test_half(rfverify_case):
    rfverify_case()
""")
    result = p.runpytest_subprocess("--rfverify-seed", "7", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*HalfScale [[]unbiasedness[]]: FAIL*", "*rerun: pytest *--rfverify-seed 7*"])


def test_xfail_mapping_and_stale_entry(make_test):
    p = make_test("""
@parametrize_with_checks([HalfScale], kernel_params={"gamma": 0.5}, checks=["unbiasedness", "contract"],
                         xfail={"unbiasedness": "known scale bug", "contract": "stale entry"})
def test_half(rfverify_case):
    rfverify_case()
""")
    result = p.runpytest_subprocess("-p", "no:cacheprovider", "--rfverify-profile", "quick")
    result.assert_outcomes(xfailed=1, failed=1)
    result.stdout.fnmatch_lines(["*expected to fail (stale entry) but passed*remove*"])


def test_unknown_xfail_name_is_a_collection_error(make_test):
    p = make_test("""
@parametrize_with_checks([RBFSampler], xfail={"no-such-check": "x"})
def test_x(rfverify_case):
    rfverify_case()
""")
    result = p.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*unknown expected failure name(s) no-such-check*"])


def test_bad_profile_option_is_rejected(make_test):
    p = make_test("""
def test_nothing():
    pass
""")
    result = p.runpytest_subprocess("--rfverify-profile", "fast", "-p", "no:cacheprovider")
    assert result.ret != 0
    result.stderr.fnmatch_lines(["*unknown profile 'fast'*"])


XDIST_BODY = """
import json, os
from pathlib import Path
from rfverify.implementations.rff import RandomFourierFeatures

@parametrize_with_checks([RandomFourierFeatures, HalfScale], kernel_params={"gamma": 0.5}, bound=2 ** 0.5)
def test_x(rfverify_case):
    res = rfverify_case.case.run(rfverify_case.seed, rfverify_case.profile)
    name = rfverify_case.case.label + "-" + rfverify_case.case.check
    (Path(os.environ["RFV_OUT"]) / (name + ".json")).write_text(json.dumps(res.to_dict(), sort_keys=True))
"""


def test_verdicts_identical_for_0_2_and_4_xdist_workers(make_test, tmp_path, monkeypatch):
    p = make_test(XDIST_BODY)
    outs = {}
    for workers in ("0", "2", "4"):
        out = tmp_path / f"w{workers}"
        out.mkdir()
        monkeypatch.setenv("RFV_OUT", str(out))
        result = p.runpytest_subprocess("-n", workers, "-p", "no:cacheprovider", "--rfverify-profile", "quick")
        result.assert_outcomes(passed=12)  # 2 implementations x 6 checks
        outs[workers] = {f.name: f.read_text() for f in sorted(out.iterdir())}
    assert len(outs["0"]) == 12
    assert outs["0"] == outs["2"] == outs["4"]
    assert '"status": "fail"' in outs["0"]["HalfScale-unbiasedness.json"]

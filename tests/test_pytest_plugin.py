"""The pytest plugin: one item per check, ids impl[check], xfail mapping, shared options."""

from __future__ import annotations

import json

import pytest

HEADER = """
import sys
sys.path.insert(0, {root!r})
from sklearn.kernel_approximation import RBFSampler
from rfverify.pytest_plugin import parametrize_with_checks
from tests.mutants.rff_mutants import HalfScale
"""


@pytest.fixture
def make_test(pytester):
    from pathlib import Path

    def _make(body):
        pytester.makepyfile(HEADER.format(root=str(Path(__file__).parent.parent)) + body)
        return pytester

    return _make


def test_rbf_sampler_items_pass_and_ids(make_test):
    p = make_test("""
@parametrize_with_checks([RBFSampler], kernel="rbf", kernel_params={"gamma": 0.5}, bound=2 ** 0.5)
def test_rbf(rfverify_case):
    rfverify_case()
""")
    # the whole suite (at quick: the default profile's whole-suite run of RBFSampler is
    # test_feature_map_checks.py::test_correct_maps_pass_whole_default_suite)
    result = p.runpytest_subprocess("-v", "-p", "no:cacheprovider", "--rfverify-profile", "quick")
    result.assert_outcomes(passed=7, skipped=1)  # adapted-approximation: not a data-dependent map
    result.stdout.fnmatch_lines(["rfverify 0.1.0: seed=*, profile=quick*", "*test_rbf?RBFSampler?unbiasedness?? PASSED*"])


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


XDIST_HEADER = """
import sys
sys.path.insert(0, {root!r})
from rfverify.pytest_plugin import parametrize_with_checks
from tests.mutants.rff_mutants import HalfScale
"""
XDIST_BODY = """
import json, os
from pathlib import Path
import pytest
from tests import faulty_plugins as fp
from tests.mutants.broken_orthogonal import so_claimed_as_o
from rfverify.implementations.rff import RandomFourierFeatures

def _record(case):
    res = case.case.run(case.seed, case.profile, case.limits)
    name = f"{case.case.kind}-{case.case.label}-{case.case.check}.json"
    (Path(os.environ["RFV_OUT"]) / name).write_text(json.dumps(res.to_dict(), sort_keys=True))

@parametrize_with_checks([RandomFourierFeatures, HalfScale], kernel_params={"gamma": 0.5}, dim=4,
                         checks=["reproducibility", "unbiasedness"])
def test_feature_maps(rfverify_case):
    _record(rfverify_case)

@parametrize_with_checks([fp.orthogonal, so_claimed_as_o], kind="orthogonal", dim=4, group="O",
                         checks=["haar-determinant", "haar-entries"])
def test_samplers(rfverify_case):
    _record(rfverify_case)

@parametrize_with_checks([fp.hadamard, fp.tr_inf], kind="transform", dim=8, checks=["transform-exactness"])
def test_transforms(rfverify_case):
    _record(rfverify_case)

@parametrize_with_checks([fp.mc_rule], kind="quadrature", dim=3, degree=0, checks=["rule-unbiasedness"])
def test_rules(rfverify_case):
    _record(rfverify_case)
"""


@pytest.mark.slow  # 25 s; tests/test_xdist_loadgroup.py keeps xdist in CI
def test_verdicts_identical_for_0_1_2_and_4_xdist_workers(pytester, tmp_path, monkeypatch):
    """Four kinds, 11 items: the same JSON result for every item whatever the number of workers, the
    distribution mode (load, loadgroup) or the order (pytest-randomly, where installed, shuffles it):
    seeds are keyed by check, never by order or worker."""
    from pathlib import Path

    pytester.makepyfile(XDIST_HEADER.format(root=str(Path(__file__).parent.parent)) + XDIST_BODY)
    p = pytester
    outs = {}
    for run in (("-n", "0"), ("-n", "1"), ("-n", "2"), ("-n", "4", "--dist", "loadgroup")):
        out = tmp_path / "-".join(run)
        out.mkdir()
        monkeypatch.setenv("RFV_OUT", str(out))
        result = p.runpytest_subprocess(*run, "-p", "no:cacheprovider",
                                        "--rfverify-profile", "quick")
        result.assert_outcomes(passed=11)
        outs[run] = {f.name: f.read_text() for f in sorted(out.iterdir())}
    serial = outs[("-n", "0")]
    assert len(serial) == 11
    assert all(found == serial for found in outs.values())
    status = {name: json.loads(text)["status"] for name, text in serial.items()}
    assert status["feature-map-HalfScale-unbiasedness.json"] == "fail"
    assert status["feature-map-RandomFourierFeatures-unbiasedness.json"] == "pass"
    assert status["orthogonal-so_claimed_as_o-haar-determinant.json"] == "fail"
    assert status["transform-tr_inf-transform-exactness.json"] == "error"
    assert status["quadrature-mc_rule-rule-unbiasedness.json"] == "pass"


@pytest.mark.parametrize("kwargs,needle", [
    ({"kind": "kernels"}, "unknown kind 'kernels'; use one of feature-map, orthogonal"),
    ({"kind": "orthogonal", "dim": 4, "matrix": "hadamard"}, "orthogonal: "),
    ({"kind": "orthogonal", "dim": 0}, "dim must be an integer"),
    ({"kind": "transform", "dim": 12}, "not defined at d=12"),
    ({"kind": "quadrature", "checks": ["haar-entries"]}, "unknown check name(s) haar-entries; quadrature checks"),
])
def test_parametrize_with_checks_rejects_bad_configuration_at_collection(kwargs, needle):
    from rfverify.errors import UsageError
    from tests import faulty_plugins as fp
    from rfverify.pytest_plugin import parametrize_with_checks

    impl = {"orthogonal": fp.orthogonal, "transform": fp.hadamard}.get(kwargs.get("kind"), fp.mc_rule)
    with pytest.raises(UsageError) as info:
        parametrize_with_checks([impl], **kwargs)
    assert needle in str(info.value)

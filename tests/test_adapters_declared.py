"""Adapters by declaration (rfverify/plugin_calls.py): each declaration is shown needed (the map errs or fails
without it, with a clear message) and sufficient (it passes with it), through the API and the CLI, and echoed in
the reproduce command."""

from __future__ import annotations

import json

import pytest

import rfverify
from rfverify.cli import main
from rfverify.errors import UsageError
from rfverify.kinds.transform import verify_transform
from rfverify.kinds.orthogonal import verify_orthogonal
from tests import declared_maps as dm

RBF = dict(kernel="rbf", kernel_params={"gamma": 0.5}, profile="quick")
#: One configuration (d and n_components pinned): the statistical checks run there alone, as a corner.
FAST = dict(RBF, pins={"d": 4, "n_components": 256}, checks=["contract", "reproducibility", "unbiasedness"])


def statuses(report):
    return {r.check: r.status for r in report.results}


def test_method_needed_and_sufficient():
    with pytest.raises(UsageError, match="no fit/transform methods.*--method NAME"):
        rfverify.verify(dm.FeaturesMethod, **FAST)
    # the unnormalised default of features(): the scale is a call keyword away
    rep = rfverify.verify(dm.FeaturesMethod, method="features", call_kw={"normalize": True}, **FAST)
    assert set(statuses(rep).values()) == {"pass"}, rep.table()
    assert "--method features" in rep.results[0].reproduce and "--call-kw normalize=True" in rep.results[0].reproduce


def test_method_missing_and_a_keyword_not_accepted_are_usage_errors():
    with pytest.raises(UsageError, match="has no method 'featurez'"):
        rfverify.verify(dm.FeaturesMethod, method="featurez", **FAST)
    with pytest.raises(UsageError, match="does not accept the call keyword normalise.*cannot be delivered"):
        rfverify.verify(dm.FeaturesMethod, method="features", call_kw={"normalise": True}, **FAST)


def test_feature_scale_needed_and_sufficient_and_reported():
    base = dict(FAST, method="features")
    wrong = rfverify.verify(dm.FeaturesMethod, **base)  # unnormalised: m/2 times the kernel
    assert statuses(wrong)["unbiasedness"] == "fail"
    right = rfverify.verify(dm.FeaturesMethod, feature_scale="sqrt(2/m)", **base)
    assert set(statuses(right).values()) == {"pass"}, right.table()
    notes = right.config["calls"]["notes"]
    assert any("returns unnormalised features" in n and "sqrt(2/m)" in n for n in notes)
    assert "--feature-scale 'sqrt(2/m)'" in right.results[0].reproduce


def test_width_and_seed_names_needed_and_sufficient():
    with pytest.raises(UsageError, match=r"does not accept n_components, random_state.*--param-name"):
        rfverify.verify(dm.NumSamples, **FAST)
    names = {"n_components": "num_samples", "random_state": "seed"}
    rep = rfverify.verify(dm.NumSamples, param_map=names, width="2*m", **FAST)
    assert set(statuses(rep).values()) == {"pass"}, rep.table()
    assert "--param-name n_components=num_samples" in rep.results[0].reproduce
    # a wrong declared width is an error naming the declaration
    bad = rfverify.verify(dm.NumSamples, param_map=names, width="m", **dict(FAST, checks=["contract"]))
    assert statuses(bad)["contract"] == "error"
    assert "the declared width m is 16 at m = 16" in bad.results[0].message  # the preflight


def test_random_state_not_passed_needs_a_seeding_declaration():
    with pytest.raises(UsageError, match="does not accept random_state"):
        rfverify.verify(dm.GlobalNoSeed, **FAST)
    with pytest.raises(UsageError, match="random_state is not passed.*--global-seed.*--deterministic"):
        rfverify.verify(dm.GlobalNoSeed, param_map={"random_state": ""}, **FAST)
    rep = rfverify.verify(dm.GlobalNoSeed, param_map={"random_state": ""}, global_seed="numpy",
                          feature_scale="sqrt(2/m)", **FAST)
    assert set(statuses(rep).values()) == {"pass"}, rep.table()
    assert "--param-name random_state=" in rep.results[0].reproduce


def test_kernel_parameters_reach_a_plain_function_by_name_or_route():
    rep = rfverify.verify(dm.rff_function, **FAST)  # gamma=0.5 by its signature (its default is 1.0)
    assert set(statuses(rep).values()) == {"pass"}, rep.table()
    assert rep.config["passthrough"] == {"gamma": 0.5}
    # the twin: routed away (not passed), the function's own gamma = 1 is the wrong kernel
    wrong = rfverify.verify(dm.rff_function, param_map={"gamma": ""}, **FAST)
    assert statuses(wrong)["unbiasedness"] == "fail"
    routed = rfverify.verify(dm.rff_function_g, param_map={"gamma": "g"}, **FAST)
    assert set(statuses(routed).values()) == {"pass"}, routed.table()
    with pytest.raises(UsageError, match="does not accept 'sigma'"):
        rfverify.verify(dm.rff_function, param_map={"gamma": "sigma:1/sqrt(2*gamma)"}, **FAST)


def test_call_kw_for_a_function():
    err = rfverify.verify(dm.rff_needs_keyword, **dict(FAST, checks=["contract"]))
    assert statuses(err)["contract"] == "error" and "rows" in err.results[0].message
    rep = rfverify.verify(dm.rff_needs_keyword, call_kw={"rows": True}, **FAST)
    assert set(statuses(rep).values()) == {"pass"}, rep.table()


def test_call_kw_for_a_transform_and_a_sampler():
    bad = verify_transform(dm.rows_fwht, dim=8, matrix="hadamard-normalized", profile="quick",
                           checks=["transform-exactness"])
    assert statuses(bad)["transform-exactness"] in ("fail", "error")
    ok = verify_transform(dm.rows_fwht, dim=8, matrix="hadamard-normalized", profile="quick",
                          checks=["transform-exactness"], call_kw={"axis": 1})
    assert statuses(ok) == {"transform-exactness": "pass"}, ok.table()
    assert "--call-kw axis=1" in ok.results[0].reproduce or ok.config["call_kw"] == {"axis": 1}
    with pytest.raises(UsageError, match="does not accept the call keyword axes"):
        verify_transform(dm.rows_fwht, dim=8, call_kw={"axes": 1})
    with pytest.raises(UsageError, match="does not accept the call keyword flavor"):
        verify_orthogonal(dm.haar_sampler, dim=4, call_kw={"flavor": "O"})
    rep = verify_orthogonal(dm.haar_sampler, dim=4, profile="quick", checks=["orthogonality"],
                            call_kw={"flavour": "O"})
    assert statuses(rep) == {"orthogonality": "pass"}, rep.table()


def test_expressions_are_validated_at_declaration():
    with pytest.raises(UsageError, match="width 'k\\*2'.*names: m"):
        rfverify.verify(dm.NumSamples, width="k*2", **FAST)
    with pytest.raises(UsageError, match="n_components.*renames the argument"):
        rfverify.verify(dm.NumSamples, param_map={"n_components": "num_samples:2*n_components"}, **FAST)


def test_cli_declarations_and_reproduce(capsys):
    code = main(["check", "feature-map", "tests.declared_maps:NumSamples", "--kernel", "rbf", "--param", "gamma=0.5",
                 "--param-name", "n_components=num_samples", "--param-name", "random_state=seed", "--width", "2*m",
                 "--profile", "quick", "--check", "contract", "--json", "-", "--quiet"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["config"]["calls"]["width"] == "2*m"
    code = main(["check", "transform", "tests.declared_maps:rows_fwht", "--dim", "8", "--matrix",
                 "hadamard-normalized", "--call-kw", "axis=1", "--profile", "quick", "--check", "transform-exactness",
                 "--quiet"])
    assert code == 0
    assert main(["check", "feature-map", "tests.declared_maps:NumSamples", "--width", "2*q", "--quiet"]) == 2


def test_a_deterministic_map_with_its_own_size_parameter():
    """scikit-learn's AdditiveChi2Sampler: no n_components (sample_steps), no random_state, deterministic."""
    skl = pytest.importorskip("sklearn.kernel_approximation", reason="scikit-learn is in the test extra: pip install -e '.[test]'")
    from rfverify.studies.ecosystem_entries import additive_chi2_kernel

    opts = dict(kernel=additive_chi2_kernel, domain="positive", profile="quick", unbiased=False,
                checks=["contract", "reproducibility"])
    with pytest.raises(UsageError, match="does not accept n_components, random_state"):
        rfverify.verify(skl.AdditiveChi2Sampler, **opts)
    names = {"n_components": "sample_steps", "random_state": ""}
    with pytest.raises(UsageError, match="random_state is not passed"):
        rfverify.verify(skl.AdditiveChi2Sampler, param_map=names, **opts)
    rep = rfverify.verify(skl.AdditiveChi2Sampler, param_map=names, deterministic=True, width="d*(2*m-1)",
                          init={"sample_interval": 0.4}, **opts)
    assert set(statuses(rep).values()) == {"pass"}, rep.table()
    assert "identical for every random_state, as declared deterministic" in rep["reproducibility"].message

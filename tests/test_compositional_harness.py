"""The compositional schemes (daniely2017 Algorithm 1) through the rfverify harness.

* the zoo entries ``compositional-shallow`` and ``compositional-deep1d`` pass every feature-map check
  (contract, reproducibility, unbiasedness, concentration with the declared C = √2, error-rate);
* their reproduce commands name the kernel and domain callables (``MODULE:ATTR``) and, run through
  the CLI, give the same verdict and statistic;
* Comment 1 *as printed* (``√(2R cos(θ + b))`` instead of ``√2 R cos(θ + b)``) FAILS unbiasedness
  under the default seed and 20 others on both skeletons, and the corrected conversion passes under
  the same seeds (shallow skeleton); CI runs the default seed and 4 others, the slow set all 21.

``profile="quick"`` throughout (at most 3% bias at power 0.9): the printed conversion is 7–40% off
(measured: ×1.05–1.11 on the deep skeleton, k^0.4 on the shallow one), far above it.
"""

from __future__ import annotations

import json
import shlex

import numpy as np
import pytest

import rfverify
from rfverify import cli
from rfverify.implementations.compositional import zoo as cz
from rfverify.implementations.compositional.features import CompositionalFeatures, comment1_printed
from rfverify.implementations.rff import RandomFourierFeatures
from rfverify.kinds.feature_map import FeatureMapConfig
from rfverify.seeding import DEFAULT_SEED
from rfverify.studies.zoo import verify_entry, zoo_entries
from tests.mutants.compositional_mutants import PrintedComment1Features, printed_deep1d, printed_shallow

SEEDS = [DEFAULT_SEED] + list(range(1, 21))
ENTRIES = ["compositional-shallow", "compositional-deep1d"]
CHECKS = ["contract", "reproducibility", "explore", "stateful", "unbiasedness", "concentration", "error-rate", "adapted-approximation"]


SCHEMES = {  # name: (correct factory, broken factory, kernel, dim)
    "shallow": (cz.shallow_features, printed_shallow, cz.shallow_kernel, cz.SHALLOW_WIDTH),
    "deep1d": (cz.deep1d_features, printed_deep1d, cz.deep1d_kernel, cz.DEEP1D_LENGTH),
}


@pytest.fixture(scope="module")
def zoo_reports():
    return {e.name: verify_entry(e, seed=DEFAULT_SEED, profile="quick") for e in zoo_entries(ENTRIES)}


def test_zoo_entries_declare_callables_and_bound():
    for e in zoo_entries(ENTRIES):
        assert e.implementation.startswith("rfverify.implementations.compositional.zoo:")
        assert e.options["kernel"] in (cz.shallow_kernel, cz.deep1d_kernel)
        assert e.options["domain"] is cz.angle_domain
        assert e.options["bound"] == pytest.approx(2 ** 0.5)


@pytest.mark.parametrize("name", ENTRIES)
def test_zoo_entry_passes_every_check(zoo_reports, name):
    report = zoo_reports[name]
    assert [r.check for r in report.results] == CHECKS
    assert report.passed, report.table()
    # concentration ran, not skipped; adapted-approximation applies to data-dependent maps only
    assert all(r.status == "pass" for r in report.results if r.check != "adapted-approximation"), report.table()
    assert report["adapted-approximation"].status == "skip"
    conc = next(r for r in report.results if r.check == "concentration")
    assert conc.details["observed_sup"] <= cz.BOUND * (1 + 1e-12)


def test_reproduce_command_names_callables_and_reproduces(zoo_reports, tmp_path):
    report = zoo_reports["compositional-shallow"]
    res = next(r for r in report.results if r.check == "unbiasedness")
    assert "<MODULE:ATTR>" not in res.reproduce
    assert "--kernel rfverify.implementations.compositional.zoo:shallow_kernel" in res.reproduce
    assert "--domain rfverify.implementations.compositional.zoo:angle_domain" in res.reproduce
    assert report.config["domain"] == "rfverify.implementations.compositional.zoo:angle_domain"
    out = tmp_path / "r.json"
    argv = shlex.split(res.reproduce)[1:] + ["--json", str(out)]
    assert cli.main(argv) == 0
    again = json.loads(out.read_text())["checks"][0]
    assert (again["check"], again["status"]) == ("unbiasedness", "pass")
    assert again["statistic"] == pytest.approx(res.statistic, rel=0, abs=0)


def _local_kernel(X, Y):
    return np.exp(-0.5 * ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1))


def test_feature_map_config_names_importable_callables_only():
    """General runner fix: an importable kernel/domain callable is MODULE:ATTR in the reproduce command
    (with its --param), a lambda or local function stays a placeholder."""
    from rfverify.kernels.builtins import _rbf

    cfg = FeatureMapConfig(RandomFourierFeatures, kernel=_rbf, kernel_params={"gamma": 0.5}, dim=4,
                           domain=cz.angle_domain, profile="quick")
    cmd = cfg.reproduce("unbiasedness")
    assert "--kernel rfverify.kernels.builtins:_rbf --param gamma=0.5" in cmd
    assert "--domain rfverify.implementations.compositional.zoo:angle_domain" in cmd

    def local_domain(n, d, rng):
        return rng.standard_normal((n, d))

    cfg = FeatureMapConfig(RandomFourierFeatures, kernel=lambda X, Y: _local_kernel(X, Y), dim=4,
                           domain=local_domain, profile="quick")
    cmd = cfg.reproduce("unbiasedness")
    assert "--kernel <MODULE:ATTR>" in cmd and "--domain <MODULE:ATTR>" in cmd
    assert cfg.as_dict()["domain"] is None
    # an explicit spec (the CLI passes what the user typed) still wins
    cfg = FeatureMapConfig(RandomFourierFeatures, kernel=_rbf, kernel_params={"gamma": 0.5}, dim=4,
                           domain=local_domain, domain_spec="mine:dom", kernel_spec="mine:k", profile="quick")
    assert "--kernel mine:k --param gamma=0.5" in cfg.reproduce("contract")
    assert "--domain mine:dom" in cfg.reproduce("contract")


#: The corrected map is re-run under the seeds for the shallow skeleton only (the deep one passes at
#: the default seed in the zoo test): 256 fits per run on the deep skeleton would double this file's time.
#: CI runs the default seed and 4 others; all 21 are in the slow set (``pytest -m slow``).
@pytest.mark.parametrize("seeds", [pytest.param(SEEDS[:5], id="5-seeds"),
                                   pytest.param(SEEDS, id="21-seeds", marks=pytest.mark.slow)])
@pytest.mark.parametrize("scheme,check_correct", [("shallow", True), ("deep1d", False)])
def test_printed_comment1_fails_unbiasedness(scheme, check_correct, seeds):
    good, broken, kernel, dim = SCHEMES[scheme]
    opts = dict(kernel=kernel, domain=cz.angle_domain, dim=dim, bound=cz.BOUND, profile="quick",
                checks=["unbiasedness"])
    missed, false_alarms = [], []
    for seed in seeds:
        bad = rfverify.verify(broken, seed=seed, **opts).results[0]
        if bad.status != "fail" or not bad.message.startswith("biased"):
            missed.append((seed, bad.status, bad.message))
        if check_correct:
            ok = rfverify.verify(good, seed=seed, **opts).results[0]
            if ok.status != "pass":
                false_alarms.append((seed, ok.status, ok.message))
    assert not missed, missed
    assert not false_alarms, false_alarms

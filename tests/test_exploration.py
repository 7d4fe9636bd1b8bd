"""The ``explore`` check: every planted corner bug is found and shrunk to its corner, the correct twins pass,
the search is derandomised, the reproduce command replays the minimal configuration, and a declared space is
respected.

False-alarm rate and power: ``explore`` is deterministic (no alpha): a correct map can fail only through a
tolerance too tight for its round-off, which the zoo measurement bounds (docs/exploration.md); the planted
bugs are caught with certainty once the search reaches their corner — measured at the default seed here and 20
other seeds in the slow test (power 21/21 each).
"""

from __future__ import annotations

import shlex
import warnings

import numpy as np
import pytest

import rfverify
from rfverify.cli import main
from rfverify.errors import UsageError
from rfverify.profiles import budget
from rfverify.implementations.rff import RandomFourierFeatures, RandomFourierFeaturesCosSin
from rfverify.seeding import DEFAULT_SEED
from rfverify.spaces import FeatureMapSpace
from tests.mutants import explore_mutants as em

RBF = {"kernel": "rbf", "kernel_params": {"gamma": 0.5}, "dim": 16}
TWINS = [RandomFourierFeatures, RandomFourierFeaturesCosSin, em.CeilCosSin]


def _explore(impl, seed=DEFAULT_SEED, profile="default", **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return rfverify.verify(impl, seed=seed, profile=profile, checks=["explore"], metrics=False,
                               **{**RBF, **kw}).results[0]


@pytest.mark.parametrize("bug", list(em.CORNERS), ids=lambda c: c.__name__)
def test_corner_bug_found_with_its_minimal_configuration(bug):
    res = _explore(bug)
    assert res.status == "fail", res.message
    assert em.CORNERS[bug] in res.message, res.message
    assert "minimal configuration" in res.message and "--n-components" in res.reproduce, res.reproduce
    if bug is em.ChunkedAboveBatch:
        assert res.details["minimal_example"]["n"] > em.CHUNK, res.message


@pytest.mark.parametrize("twin", TWINS, ids=lambda c: c.__name__)
def test_correct_twin_passes(twin):
    res = _explore(twin)
    assert res.status == "pass", res.message
    assert res.details["calls"] == budget("default", "explore")


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1, 21))
def test_corner_bugs_and_twins_under_20_seeds(seed):
    for bug, corner in em.CORNERS.items():
        res = _explore(bug, seed=seed)
        assert res.status == "fail" and corner in res.message, (bug.__name__, seed, res.message)
        assert bug is not em.ChunkedAboveBatch or res.details["minimal_example"]["n"] > em.CHUNK
    for twin in TWINS:
        res = _explore(twin, seed=seed)
        assert res.status == "pass", (twin.__name__, seed, res.message)


def test_seed_zero_cause_is_measured():
    res = _explore(em.SeedZeroUnseeded, profile="quick")
    assert "random_state or None" in res.message and res.details["holds_with_random_state_1"]


def test_verdict_independent_of_selection_and_order():
    alone = _explore(em.FortranReadAsC)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        report = rfverify.verify(em.FortranReadAsC, seed=DEFAULT_SEED, profile="default", checks=["explore", "contract"],
                                 metrics=False, **RBF)
    assert report["explore"].message == alone.message
    assert report["explore"].details["minimal_example"] == alone.details["minimal_example"]


def test_reproduce_command_replays_exactly_the_minimal_configuration(capsys):
    res = _explore(em.ChunkedAboveBatch)
    argv = shlex.split(res.reproduce)[1:] + ["--json", "-"]
    assert "--batch" in argv and int(argv[argv.index("--batch") + 1]) > em.CHUNK
    code = main(argv)
    out = capsys.readouterr().out
    assert code == 1
    import json

    replay = json.loads(out)["checks"][0]
    assert replay["status"] == "fail"
    assert replay["details"]["minimal_example"] == res.details["minimal_example"]
    assert replay["details"]["calls"] <= 3  # the pinned configuration is tried first and fails at once


def test_declared_space_is_respected():
    class FromD2(em.FortranReadAsC):
        """Declares layouts C and strided only: the Fortran bug is outside its space."""

        rfverify_space = {"layout": ("C", "strided")}

    assert _explore(FromD2, profile="quick").status == "pass"
    res = _explore(em.FortranReadAsC, profile="quick", space={"d": (3, 8)})
    assert res.status == "fail" and "d = 3," in res.message
    assert "d 3 … 8" in res.details["space_searched"]


def test_pins_narrow_the_space_and_bad_keys_are_usage_errors():
    res = _explore(RandomFourierFeatures, profile="quick", pins={"n_components": 7, "dtype": "float32"})
    assert res.status == "pass" and "n_components 7," in res.details["space_searched"]
    with pytest.raises(UsageError, match="unknown configuration key 'colour'"):
        _explore(RandomFourierFeatures, pins={"colour": 1})
    with pytest.raises(UsageError, match="n_components 0 … 5000 is outside"):
        FeatureMapSpace.build([{"n_components": (0, 5000)}])
    with pytest.raises(UsageError, match="layout must be one of"):
        FeatureMapSpace.build([{"layout": "X"}])


def test_float32_tolerance_accepts_a_float32_map():
    class Float32Map(RandomFourierFeatures):
        """Computes a float32 input in float32 (correct: float32 round-off only)."""

        def transform(self, X):
            if isinstance(X, np.ndarray) and X.dtype == np.float32:
                P = X @ self.W_.astype(np.float32) + self.b_.astype(np.float32)
                return np.float32(np.sqrt(2.0 / self.n_components)) * np.cos(P)
            return super().transform(X)

    assert _explore(Float32Map).status == "pass"


def test_exploration_leaves_global_random_state_alone():
    np.random.seed(7)
    before = np.random.get_state()[1].copy()
    _explore(RandomFourierFeatures, profile="quick")
    assert np.array_equal(np.random.get_state()[1], before)


class RoundUpRFF(RandomFourierFeatures):
    """Rounds n_components up to a multiple of d (as block-structured libraries do), correctly scaled for the
    width it returns: unbiased, with error falling like 1/width."""

    def _draw(self, d, rng):
        width = d * -(-self.n_components // d)
        self.W_ = np.ascontiguousarray(rng.normal(0.0, np.sqrt(2.0 * self.gamma), size=(width, d)).T)
        self.b_ = rng.uniform(0.0, 2.0 * np.pi, size=width)

    def _features(self, X):
        return np.sqrt(2.0 / self.W_.shape[1]) * np.cos(X @ self.W_ + self.b_)


def test_error_rate_regresses_on_the_width_returned():
    """At d = 96 the quick grid m = 16, 64, 256 returns 96, 96, 288 features: against the requested m the MSE
    would fall like m^-0.4 (a false 'slower than 1/m'); against the width returned it falls like 1/width."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        res = rfverify.verify(RoundUpRFF, kernel="rbf", kernel_params={"gamma": 0.5}, dim=96, profile="quick",
                              checks=["error-rate"], metrics=False).results[0]
    assert res.status == "pass", res.message
    assert res.details["regressed_on"] == "m_out" and res.details["m_out"] == [96, 96, 288]
    requested = np.polyfit(np.log(res.details["m"]), np.log(res.details["mse"]), 1)[0]
    assert requested > -0.6 and abs(res.statistic + 1) < 0.3, (requested, res.statistic)


def test_a_search_does_not_depend_on_what_the_process_imported(tmp_path, monkeypatch):
    """Hypothesis draws constants from the source of every local module in sys.modules; a seeded ``explore``
    must generate the same configurations whatever was imported (the report and the Python API imported different
    modules and tried different configurations)."""
    import importlib
    import sys

    from hypothesis import strategies as st

    from rfverify.explore import search

    def tried():
        r = search(st.integers(0, 10 ** 9), lambda n: None, seed=7, budget=300)
        return [ex for ex, _ in r.tried]

    before = tried()
    (tmp_path / "rfv_local_constants_probe.py").write_text(
        "A = 987654321\nB = 123456789\nC = 555555555\nD = 31415926\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("rfv_local_constants_probe")
    try:
        after = tried()
    finally:
        sys.modules.pop("rfv_local_constants_probe", None)
    assert after == before
    assert not {987654321, 123456789, 555555555, 31415926} & set(after)

"""The ``stateful`` check: every planted stateful defect caught at the default profile with its minimal program,
every correct twin passes, refused input types are set aside and stated, and the printed program runs."""

from __future__ import annotations

import numpy as np
import pytest

import rfverify
from tests.mutants import stateful_mutants as sm

OPTIONS = dict(kernel="rbf", kernel_params={"gamma": 0.5}, dim=4, profile="default", checks=["stateful"],
               metrics=False)

#: What the minimal program and the finding of each mutant must show.
EXPECTED = {
    sm.CacheWithoutGamma: ("differ only in gamma", "gamma=1.0"),
    sm.SharedClassState: ("a fresh object made with the same arguments", "b.fit(X)"),
    sm.IntegerTruncated: ("every feature 0", ".astype(np.int"),
    sm.SeedFolded16: ("the seeds differ by 0x10000", "random_state=65536"),
    sm.WarmPathSign: ("changed at its call 1001", "for call in range(1050)"),
    sm.MemoByIdentity: ("a fresh object made with the same arguments", "B[...] = make_batch"),
    sm.ReturnsWorkspace: ("was changed by a later call", "F1 = a.transform("),
}


def _stateful(impl, **kw):
    return rfverify.verify(impl, **{**OPTIONS, **kw}).results[0]


def _program_runs_and_shows_the_defect(res):
    env: dict = {}
    exec(res.details["program"], env)  # noqa: S102 - our own generated program
    assert np.array_equal(env["F1"], env["G"])  # the program's last line: the same features from distant seeds


def _module_cache_told_in_a_fresh_process(res):
    """The gamma-less module cache: in a fresh interpreter b's arguments give other features (gamma is used, the
    draw is shared through the process); its twin that ignores gamma is
    ``test_a_parameter_ignored_is_confirmed_in_a_fresh_process``."""
    assert res.details["fresh_process"]["replayed"] is True
    assert "in a fresh Python process b's arguments give other features" in res.message
    assert "a draw cached in the module or the class under a key without gamma" in res.message


#: What more a mutant's finding must show (asserted on the same run: one default-profile run per mutant).
MORE = {sm.SeedFolded16: _program_runs_and_shows_the_defect,
        sm.CacheWithoutGamma: _module_cache_told_in_a_fresh_process}


@pytest.mark.parametrize("mutant", list(sm.BUGS), ids=lambda c: c.__name__)
def test_mutant_caught_with_its_program(mutant):
    res = _stateful(mutant)
    assert res.status == "fail", res.message
    finding, line = EXPECTED[mutant]
    assert finding in res.message
    program = res.details["program"]
    assert line in program and line in res.message
    assert f"import {mutant.__name__} as make" in program
    assert res.reproduce.endswith("--check stateful") and "replay: " + res.reproduce in res.message
    assert res.details["replayed"] is True
    MORE.get(mutant, lambda res: None)(res)


@pytest.mark.parametrize("mutant", list(sm.BUGS), ids=lambda c: c.__name__)
def test_twin_passes(mutant):
    res = _stateful(sm.BUGS[mutant])
    assert res.status == "pass", res.message
    assert res.details["max_calls_per_object"] > 1000
    assert {"replay", "seeds-differ", "parameter-matters", "repeat"} <= set(res.details["judged"])


class RefusesIntegers(sm._RFF):
    """A correct map that refuses non-float input with a TypeError (a clean refusal)."""

    def _input(self, X):
        A = np.asarray(X)
        if A.dtype.kind not in "f":
            raise TypeError(f"float input required, got {A.dtype}")
        return np.asarray(A, dtype=np.float64)


#: At the default profile in CI (the same four input types refused and stated); at thorough in the slow set.
@pytest.mark.parametrize("profile", ["default", pytest.param("thorough", marks=pytest.mark.slow)])
def test_refused_input_types_are_set_aside_and_stated(profile):
    res = _stateful(RefusesIntegers, profile=profile)
    assert res.status == "pass", res.message
    refused = res.details["refused"]
    assert any(k.startswith("int") for k in refused), refused
    assert "set aside: refuses" in res.message and "TypeError: float input required" in res.message


def test_scikit_learn_rbf_sampler_passes():
    from sklearn.kernel_approximation import RBFSampler

    res = _stateful(RBFSampler)
    assert res.status == "pass", res.message
    assert "random_state > 4294967295" in res.details["refused"]  # 63-bit seeds: refused by sklearn, set aside


@pytest.mark.slow  # the thorough profile; the default profile's long run (past 1,000 calls) is in CI
def test_thorough_runs_objects_past_ten_thousand_calls():
    res = _stateful(sm.PerInstanceState, profile="thorough")
    assert res.status == "pass", res.message
    assert res.details["long_run_calls"] == 10_000 and res.details["max_calls_per_object"] > 10_000


def test_a_feature_function_is_run_as_calls_with_its_arguments():
    good = _stateful("tests.mutants.stateful_mutants:rff_function")
    assert good.status == "pass", good.message
    bad = _stateful("tests.mutants.stateful_mutants:rff_function_folded")
    assert bad.status == "fail" and "the seeds differ by 0x10000" in bad.message
    assert "a = dict(n_components=" in bad.details["program"] and "= make(" in bad.details["program"]


class FoldsTo32Bits(sm._RFF):
    """Seeds taken modulo 2^32 (as rfflearn does): distinct within the declared random_state range 0 … 2^32 - 1."""

    def _rng(self):
        return np.random.default_rng(int(self.random_state) % 2 ** 32)


def test_seeds_folded_beyond_the_declared_range_are_stated_not_failed():
    res = _stateful(FoldsTo32Bits)
    assert res.status == "pass", res.message
    assert res.details["beyond_seed_range"], res.details
    assert "beyond the declared random_state range (not judged): random_state=" in res.message


def test_a_parameter_ignored_is_confirmed_in_a_fresh_process():
    """A map that ignores gamma gives the same features in a fresh interpreter too: told from the gamma-less module
    cache, whose fresh-process replay differs (``test_mutant_caught_with_its_program[CacheWithoutGamma]``)."""
    res = _stateful(IgnoresGamma)
    assert res.status == "fail" and "confirmed in a fresh Python process" in res.message
    assert "gamma is ignored (not passed on to the draw)" in res.message


class IgnoresGamma(sm._RFF):
    """gamma accepted and ignored (the frequencies of gamma = 0.5 always): not state, a parameter dropped."""

    def _draw(self, d):
        rng = self._rng()
        W = rng.normal(0.0, 1.0, size=(d, self.n_components))
        return W, rng.uniform(0.0, 2.0 * np.pi, size=self.n_components)

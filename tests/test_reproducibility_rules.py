"""The reproducibility check's decision rules, pinned: equal random_state -> identical features,
different -> different beyond round-off (the same, for a map declared deterministic), and numpy's global
generator neither read, drawn from nor reseeded.  Each planted map is a real way ``random_state`` goes wrong.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import rfverify
from rfverify.implementations.rff import RandomFourierFeatures
from rfverify.properties.reproducibility import GLOBAL_SEEDS, REPRO_M
from tests.mutants.rff_mutants import IgnoresRandomState

WHERE = f"where: n_components={REPRO_M}, 48 input rows, d = 16"


def _check(impl):
    return rfverify.verify(impl, kernel_params={"gamma": 0.5}, checks=["reproducibility"])["reproducibility"]


class HardCodedSeed(RandomFourierFeatures):
    def fit(self, X, y=None):
        seed, self.random_state = self.random_state, 0
        try:
            return super().fit(X)
        finally:
            self.random_state = seed


class DeclaredDeterministicButRandom(RandomFourierFeatures):
    deterministic = True


class DeclaredDeterministic(HardCodedSeed):
    deterministic = True


class SeedsFromTheGlobalState(RandomFourierFeatures):
    """Reads numpy's global generator (without drawing from it) to pick its seed; notes what it saw."""

    def fit(self, X, y=None):
        key = int(np.random.get_state()[1][0])
        with open(os.environ["RFVERIFY_TEST_SEEN"], "a") as f:
            f.write(f"{self.n_components} {key}\n")
        seed, self.random_state = self.random_state, key
        try:
            return super().fit(X)
        finally:
            self.random_state = seed


class DrawsFromTheGlobalStateAtM64(RandomFourierFeatures):
    """Draws from np.random only at the check's width (the preflight call, at another width, does not see it)."""

    def fit(self, X, y=None):
        if self.n_components == REPRO_M:
            np.random.rand()
        return super().fit(X)


class DrawsFromTheGlobalStateOnItsFirstFitAtM64(RandomFourierFeatures):
    """Draws from np.random once, on its first fit at the check's width (the check reseeds after it)."""

    fits = 0

    def fit(self, X, y=None):
        if self.n_components == REPRO_M:
            type(self).fits += 1
            if type(self).fits == 1:
                np.random.rand()
        return super().fit(X)


class ReseedsTheGlobalStateAtM64(RandomFourierFeatures):
    """Calls np.random.seed(12345) in fit: the caller's global stream is reset (invisible after the first seed)."""

    def fit(self, X, y=None):
        if self.n_components == REPRO_M:
            np.random.seed(GLOBAL_SEEDS[0])
        return super().fit(X)


def test_a_correct_map_passes_with_its_numbers():
    res = _check(RandomFourierFeatures)
    assert res.status == "pass"
    assert res.message == "identical for equal random_state, different otherwise, global RNG untouched"
    d = res.details
    assert d["same_seed_max_abs_diff"] == 0.0 and d["different_seed_max_abs_diff"] > 0.1
    assert d["global_state_touched"] is False and d["random_state_a"] != d["random_state_b"]


def test_ignoring_random_state_for_a_hard_coded_seed_fails():
    res = _check(HardCodedSeed)
    assert res.status == "fail" and res.details["different_seed_max_abs_diff"] == 0.0
    a, b = res.details["random_state_a"], res.details["random_state_b"]
    assert (f"features are not a function of random_state alone — observed: random_state={a} and {b} gave the "
            f"same features (max difference 0); expected: features that differ by more than the round-off "
            f"tolerance ") in res.message
    assert res.message.endswith(f"{WHERE}; likely cause: random_state is ignored (a hard-coded seed?)")


def test_fresh_entropy_fails_naming_the_global_seeds():
    res = _check(IgnoresRandomState)
    assert res.status == "fail" and res.details["same_seed_max_abs_diff"] > 0.1
    a = res.details["random_state_a"]
    assert (f"observed: random_state={a} twice (global numpy seed 12345, then 54321) gave features differing by up "
            f"to 0.35") in res.message
    assert "expected: identical features for equal random_state; " + WHERE in res.message
    assert res.message.endswith("likely cause: randomness not drawn from random_state — draw every random number "
                                "from random_state (np.random.default_rng(random_state)), not from fresh entropy or "
                                "np.random.*")


def test_the_global_generator_is_seeded_as_the_message_says(tmp_path, monkeypatch):
    seen = tmp_path / "seen.txt"
    monkeypatch.setenv("RFVERIFY_TEST_SEEN", str(seen))
    res = _check(SeedsFromTheGlobalState)
    assert res.status == "fail" and "global numpy seed 12345, then 54321" in res.message
    keys = [int(line.split()[1]) for line in seen.read_text().splitlines() if int(line.split()[0]) == REPRO_M]
    first = [int(np.random.RandomState(s).get_state()[1][0]) for s in GLOBAL_SEEDS]
    assert keys == [first[0], first[1], first[1]]  # fit 1 under 12345; fits 2 and 3 under 54321


def test_a_map_declared_deterministic_must_not_depend_on_random_state():
    res = _check(DeclaredDeterministicButRandom)
    assert res.status == "fail"
    assert "gave features differing by up to 0.353; expected: the same features for every random_state (declared " \
           "deterministic; round-off tolerance " in res.message
    assert res.message.endswith("likely cause: the map draws random numbers: do not declare it deterministic")
    ok = _check(DeclaredDeterministic)
    assert ok.status == "pass" and ok.details["different_seed_max_abs_diff"] == 0.0
    assert ok.message == "identical for every random_state, as declared deterministic; global RNG untouched"


@pytest.mark.parametrize("impl", [DrawsFromTheGlobalStateAtM64, DrawsFromTheGlobalStateOnItsFirstFitAtM64,
                                  ReseedsTheGlobalStateAtM64])
def test_drawing_from_or_reseeding_the_global_generator_is_a_plugin_error(impl):
    res = _check(impl)
    assert res.status == "error", res.message
    assert (f"{impl.__name__}: changed numpy's global random state (np.random.*) during check reproducibility (fit "
            f"and transform with the global state seeded)") in res.message
    assert res.message.endswith(" — draw from the random_state / rng you are given (np.random.default_rng("
                                "random_state)), never seed or draw from the global generators"), res.message


def test_the_callers_global_state_is_restored_in_process():
    """The check seeds numpy's global generator itself: it puts the caller's state back."""
    from rfverify.properties.reproducibility import check_reproducibility
    from rfverify.kinds.feature_map import FeatureMapConfig

    config = FeatureMapConfig(RandomFourierFeatures, kernel_params={"gamma": 0.5})
    ctx = config.context(next(s for s in config.checks() if s.name == "reproducibility"))
    np.random.seed(7)
    np.random.rand(3)
    before = np.random.get_state()
    assert check_reproducibility(ctx).status == "pass"
    after = np.random.get_state()
    assert np.array_equal(after[1], before[1]) and after[2:] == before[2:]


def _exactly_at_the_tolerance(deterministic):
    """Features with column 0 zeroed; for the check's second random_state, entry (0, 0) set to exactly the
    round-off tolerance of the first's features: the two differ by the tolerance, not more."""
    from rfverify.tolerances import contract_tolerance

    rs_b = _check(RandomFourierFeatures).details["random_state_b"]

    class AtTheTolerance(HardCodedSeed):
        def transform(self, X):
            F = super().transform(X)
            F[:, 0] = 0.0
            if self.random_state == rs_b:
                F[0, 0] = contract_tolerance(X.shape[1], F)
            return F

    AtTheTolerance.deterministic = deterministic
    return AtTheTolerance


def test_a_difference_of_exactly_the_tolerance_is_round_off():
    """The boundary belongs to round-off: declared deterministic it passes, otherwise it is 'the same features'."""
    res = _check(_exactly_at_the_tolerance(True))
    assert res.status == "pass", res.message
    assert res.details["different_seed_max_abs_diff"] > 0
    res = _check(_exactly_at_the_tolerance(False))
    assert res.status == "fail" and "gave the same features (max difference " in res.message, res.message

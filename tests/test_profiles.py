"""Profiles: every budget in one table (rfverify/profiles.py), so that a profile is added in that file only."""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pytest

from rfverify.profiles import BUDGETS, PROFILES, budget, get_profile


def test_every_profile_states_every_budget() -> None:
    assert set(BUDGETS) == set(PROFILES)
    keys = set(BUDGETS["default"])
    for name, table in BUDGETS.items():
        assert set(table) == keys, f"profile {name}: missing {keys - set(table)}, extra {set(table) - keys}"


def test_a_listed_profile_without_a_budget_is_a_loud_error_and_an_unlisted_object_reads_default(monkeypatch) -> None:
    monkeypatch.setitem(BUDGETS, "quick", {k: v for k, v in BUDGETS["quick"].items() if k != "kernel"})
    with pytest.raises(KeyError, match="profile 'quick' has no budget 'kernel'.*rfverify/profiles.py"):
        budget("quick", "kernel")
    custom = dataclasses.replace(PROFILES["quick"], name="my-profile")  # a caller's own Profile object
    assert budget(custom, "explore") == BUDGETS["default"]["explore"]


@pytest.fixture
def tiny(monkeypatch) -> str:
    """A profile added the way ARCHITECTURE.md says: one Profile and one BUDGETS entry, in rfverify/profiles.py."""
    monkeypatch.setitem(PROFILES, "tiny", dataclasses.replace(PROFILES["quick"], name="tiny"))
    table = copy.deepcopy(BUDGETS["quick"])
    table.update({"time-limit": 123.0, "explore": 7, "explore-orthogonal": 3, "transform": {"ns": (1, 2)},
                  "orthogonal": {"draws": 120, "pilot": 40, "ortho_draws": 2},
                  "kernel": {"psd_sets": 2, "symmetry_sets": 1, "composition_m": 64, "composition_max_trials": 100}})
    monkeypatch.setitem(BUDGETS, "tiny", table)
    return "tiny"


def test_a_profile_added_in_one_file_reaches_every_kind(tiny: str) -> None:
    from scipy.stats import ortho_group

    import rfverify
    from rfverify.kinds.kernel import KernelConfig
    from rfverify.kinds.orthogonal import OrthogonalConfig
    from rfverify.kinds.transform import TransformConfig

    assert get_profile(tiny).name == tiny
    rep = rfverify.verify("rfverify.implementations.rff:RandomFourierFeatures", kernel_params={"gamma": 0.5},
                          profile=tiny, checks=["explore"])
    [res] = rep.results
    assert res.status == "pass" and res.details["calls"] == 7, (res.status, res.details.get("calls"))
    assert OrthogonalConfig(ortho_group, profile=tiny).budget.draws == 120
    assert TransformConfig(lambda X: np.asarray(X), profile=tiny).budget.ns == (1, 2)
    assert KernelConfig("rbf", kernel_params={"gamma": 0.5}, profile=tiny).budget.psd_sets == 2


def test_a_profile_added_in_one_file_sets_its_time_limit(tiny: str) -> None:
    """The per-check time limit is a budget of the table too (no second table in the guard)."""
    from rfverify.containment.guard import Limits

    assert Limits.resolve(tiny).time == 123.0
    assert Limits.resolve("quick").time == BUDGETS["quick"]["time-limit"] == 300.0
    assert Limits.resolve(tiny, time_limit=5).time == 5.0

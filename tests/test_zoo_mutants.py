"""Each broken variant of a zoo scheme fails the check that exists to catch it (default seed + 20 others).

The 20 extra seeds run at the ``quick`` profile (same checks, smaller budgets) to keep CI short, 4 of them in CI and
all 20 in the slow set; the default seed also runs at the ``default`` profile.
"""

from __future__ import annotations

import warnings

import pytest

import rfverify
from rfverify.seeding import DEFAULT_SEED
from tests.mutants.zoo_mutants import CAUGHT_BY, ArcCosHalfScale

SEEDS = [DEFAULT_SEED] + list(range(1, 21))
SEED_PARAMS = [s if k < 5 else pytest.param(s, marks=pytest.mark.slow) for k, s in enumerate(SEEDS)]


@pytest.mark.parametrize("seed", SEED_PARAMS)
@pytest.mark.parametrize("mutant", list(CAUGHT_BY), ids=lambda c: c.__name__)
def test_zoo_mutant_caught(mutant, seed):
    check, options = CAUGHT_BY[mutant]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        res = rfverify.verify(mutant, seed=seed, profile="quick", checks=[check], **options)[check]
    assert res.status == "fail", f"{mutant.__name__} not caught by {check} under seed {seed}: {res.message}"


@pytest.mark.parametrize("mutant", [m for m in CAUGHT_BY if m.__name__ != "SORFDenseUnnormalised"],
                         ids=lambda c: c.__name__)
def test_zoo_mutant_caught_default_profile(mutant):
    check, options = CAUGHT_BY[mutant]
    res = rfverify.verify(mutant, checks=[check], **options)[check]
    assert res.status == "fail", f"{mutant.__name__} not caught by {check}: {res.message}"
    assert res.details.get("classification", "biased").startswith("biased")


def test_arccos_half_scale_diagnosed_as_factor():
    res = rfverify.verify(ArcCosHalfScale, kernel="arccos", kernel_params={"order": 1},
                          checks=["unbiasedness"])["unbiasedness"]
    assert "0.5" in res.message or "0.499" in res.message or "0.501" in res.message, res.message

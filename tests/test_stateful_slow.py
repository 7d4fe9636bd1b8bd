"""The ``stateful`` check's measured error rates (slow: ``pytest -m slow tests/test_stateful_slow.py``).

Power: every planted stateful mutant caught at 20 seeds.  False alarms: every feature map of the reference zoo at
4 seeds (116 runs) passes — the check is deterministic, so a false alarm is a defect of the check, 0 expected.
The measured figures are in docs/stateful.md.
"""

from __future__ import annotations

import pytest

import rfverify
from rfverify.studies.zoo import ZOO
from tests.mutants import stateful_mutants as sm

SEEDS = range(20)
ZOO_SEEDS = (20261122, 1, 2, 3)
FEATURE_MAPS = [e for e in ZOO if e.kind == "feature-map"]


def _stateful(impl, seed, **options):
    return rfverify.verify(impl, seed=seed, profile="default", checks=["stateful"], metrics=False,
                           **options).results[0]


@pytest.mark.slow
@pytest.mark.parametrize("mutant", list(sm.BUGS), ids=lambda c: c.__name__)
def test_power_at_20_seeds(mutant):
    options = dict(kernel="rbf", kernel_params={"gamma": 0.5}, dim=4)
    missed = [s for s in SEEDS if _stateful(mutant, s, **options).status != "fail"]
    assert not missed, f"{mutant.__name__} passed at seeds {missed}"
    wrong = [s for s in SEEDS if _stateful(sm.BUGS[mutant], s, **options).status != "pass"]
    assert not wrong, f"{sm.BUGS[mutant].__name__} (the twin) failed at seeds {wrong}"


@pytest.mark.slow
@pytest.mark.parametrize("entry", FEATURE_MAPS, ids=lambda e: e.name)
def test_no_false_alarm_on_the_zoo(entry):
    for seed in ZOO_SEEDS:
        res = _stateful(entry.implementation, seed, **entry.options)
        assert res.status == "pass", f"{entry.name} seed {seed}: {res.message}"

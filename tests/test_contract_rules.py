"""The contract's row-by-row rule, pinned: a map that cleanly refuses small batches is judged on the smallest batch
it accepts (doubling up to ``SMALL_BATCH_MAX`` rows) and the verdict says so; a batch whose width differs is named
with its number of rows."""

from __future__ import annotations

import numpy as np
import pytest

import rfverify
from rfverify.implementations.rff import RandomFourierFeatures
from rfverify.properties.contract import SMALL_BATCH_MAX


def _refusing_below(k):
    class RefusesSmallBatches(RandomFourierFeatures):
        def transform(self, X):
            if np.asarray(X).shape[0] < k:
                raise ValueError(f"X must have at least {k} rows")
            return super().transform(X)

    RefusesSmallBatches.__qualname__ = RefusesSmallBatches.__name__ = f"RefusesBelow{k}Rows"
    return RefusesSmallBatches


def _contract(impl):
    return rfverify.verify(impl, kernel_params={"gamma": 0.5}, bound=2 ** 0.5, profile="quick",
                           checks=["contract"])["contract"]


@pytest.mark.parametrize("k, judged", [(2, 2), (3, 4), (5, 8), (SMALL_BATCH_MAX, SMALL_BATCH_MAX)])
def test_rows_are_judged_in_the_smallest_batch_the_map_accepts_and_the_pass_says_so(k, judged):
    r = _contract(_refusing_below(k))
    assert r.status == "pass", r.message
    refused = judged // 2  # the last refusal met: the batch just below the one judged
    note = (f"the plug-in refuses batches of {refused} row{'s' if refused > 1 else ''} (ValueError: X must have "
            f"at least {k} rows); rows judged in batches of {judged}")
    assert r.message.endswith("; " + note) and r.details["small_batch_refused"] == note, r.message


def test_a_map_refusing_no_batch_has_no_refusal_note():
    r = _contract(RandomFourierFeatures)
    assert r.status == "pass" and "small_batch_refused" not in r.details and "refuses" not in r.message, r.message


def test_a_map_refusing_every_batch_up_to_the_largest_tried_is_not_passed():
    r = _contract(_refusing_below(SMALL_BATCH_MAX + 1))
    assert r.status != "pass" and f"at least {SMALL_BATCH_MAX + 1} rows" in r.message, r.message


@pytest.mark.parametrize("k, shown", [(1, "transform of 1 row (row "), (2, "transform of 2 rows (row ")])
def test_a_batch_of_another_width_is_named_with_its_number_of_rows(k, shown):
    class WidthOfSmallBatches(_refusing_below(k)):
        def transform(self, X):
            F = super().transform(X)
            return F[:, :-1] if F.shape[0] <= 2 else F  # one column fewer for a small batch

    r = _contract(WidthOfSmallBatches)
    assert r.status == "fail" and shown in r.message, r.message

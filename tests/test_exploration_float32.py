"""``explore`` judges a map that computes in float32 by float32 arithmetic, whatever the input's dtype.

Found on gpytorch's ``RFFKernel`` (a float32 torch module behind ``input="torch"``): splitting a float64 batch
changed its float32 features by 1.5e-8 -- float32 round-off of a blocked matmul -- and ``explore`` compared that
with a float64 tolerance (5e-13), a false alarm.  The planted twins below differ from the whole batch by one
float32 ulp (correct: must pass) and by a relative 1e-2 (a real batch dependence: must fail).  Deterministic
checks (no alpha): the pass is certain for round-off within the float32 bound, the fail certain once the
search splits a batch (every run does).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import rfverify
from rfverify.implementations.rff import RandomFourierFeatures


class _Float32Module(RandomFourierFeatures):
    """Always computes and returns float32 (as a float32 torch module does); an odd batch rounds differently."""

    nudge = 0.0  # relative change of the features of an odd-sized batch

    def transform(self, X):
        F = np.asarray(super().transform(np.asarray(X, dtype=np.float32).astype(np.float64)), dtype=np.float32)
        if len(F) % 2:
            F = np.nextafter(F, np.float32(np.inf)) if self.nudge == 0.0 else F * np.float32(1.0 + self.nudge)
        return F


class OneUlpBatchRounding(_Float32Module):
    """Correct: batch-dependent rounding of one float32 ulp."""


class BatchDependent(_Float32Module):
    """Broken: an odd batch is scaled by 1 + 1e-2 (far above float32 round-off: the bound at d = 16 is a few
    1e-4 of max |F| for inputs of small norm, which the search reaches)."""

    nudge = 1e-2


def _explore(impl):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return rfverify.verify(impl, kernel="rbf", kernel_params={"gamma": 0.5}, dim=16, profile="quick",
                               checks=["explore"], metrics=False, pins={"dtype": "float64", "d": 16}).results[0]


@pytest.mark.parametrize("impl, status", [(OneUlpBatchRounding, "pass"), (BatchDependent, "fail")],
                         ids=["one-ulp-float32-rounding", "batch-dependent"])
def test_float32_features_are_judged_by_float32_round_off(impl, status):
    res = _explore(impl)
    assert res.status == status, res.message
    if status == "fail":
        assert "batch" in res.message

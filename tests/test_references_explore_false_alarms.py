"""The two false alarms of the references' calibration with explore and the corners (reports/calibration/
references-explore/, 2 in 200 runs), each fixed, with the planted bugs of the same checks still caught.

* ``arccos-1`` seed 1000008, ``error-rate`` at a corner: see ``tests/test_error_rate_nested.py``.
* ``laplacian-cauchy`` seed 1000015, ``explore``: a strided copy of one large-norm row at d = 171 gave features
  1.17e-11 from the C-ordered ones against the one-ulp-sensitivity tolerance 4.55e-12 — the Cauchy frequencies'
  arguments are far beyond its margin.  Over that tolerance, explore now judges the rows against the inner
  products' round-off propagated through the map's measured sensitivity, as ``contract`` does.
"""

from __future__ import annotations

import numpy as np

import rfverify
from rfverify.implementations.laplacian import LaplacianRandomFeatures


def _strided_large_row(seed: int = 1000015):
    return rfverify.verify(LaplacianRandomFeatures, kernel="laplacian", kernel_params={"gamma": 0.5}, dim=16,
                             bound=2 ** 0.5, seed=seed, checks=["explore"], metrics=False,
                             pins={"d": 171, "n_components": 1, "batch": 1, "dtype": "float64", "layout": "strided",
                                   "random_state": 9057, "norm": "large", "data_seed": 4, "split": 0,
                                   "gamma": 1.0}).results[0]


def test_explore_judges_a_layout_difference_by_the_propagated_roundoff():
    r = _strided_large_row()
    assert r.status == "pass", r.message


class StridedReadAsC(LaplacianRandomFeatures):
    """Reads a non-contiguous input through its first row's memory as if C-ordered: a layout bug."""

    def transform(self, X):
        X = np.asarray(X)
        if not X.flags.c_contiguous:
            X = np.ascontiguousarray(X)[:, ::-1]
        return super().transform(X)


def test_a_layout_bug_is_still_caught_at_large_norms():
    r = rfverify.verify(StridedReadAsC, kernel="laplacian", kernel_params={"gamma": 0.5}, dim=16, bound=2 ** 0.5,
                        seed=1000015, checks=["explore"], metrics=False).results[0]
    assert r.status == "fail" and "layout input gave features differing" in r.message, r.message
    assert "the round-off propagated through the map's sensitivity" in r.message

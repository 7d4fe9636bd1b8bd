"""Maxout conformance: maxout features through the harness, the paper's Theorem 1 as a target,
and broken maxout maps caught — or shown harmless."""

from __future__ import annotations

import numpy as np
import pytest

import rfverify
from rfverify.highprec.maxout import maxout_collision_kernel, sigma2
from rfverify.implementations.maxout import MaxoutFeatures, MaxoutHashFeatures
from tests.mutants.maxout_mutants import MinInsteadOfMax, NegatedMinOfNegated, OneOverM, UniformWeights

Q = 4


def theorem1_kernel(X, Y):
    """mroueh Theorem 1 as printed: K(x, z) = sigma^2(q) <x, z> kappa_q(x, z)."""
    return float(sigma2(Q)) * (X @ Y.T) * maxout_collision_kernel(X, Y, q=Q)


KW = dict(kernel="maxout", kernel_params={"q": Q}, profile="quick")


def test_maxout_features_pass_against_true_kernel():
    report = rfverify.verify(MaxoutFeatures, **KW)
    assert report.passed, report.table()


def test_maxout_features_fail_against_theorem1_kernel():
    # The paper's Theorem 1 is false; a correct implementation must FAIL against it.
    res = rfverify.verify(MaxoutFeatures(8, 0, q=Q), kernel=theorem1_kernel, checks=["unbiasedness"],
                          profile="quick")["unbiasedness"]
    assert res.status == "fail", res.message


def test_hash_features_unbiased_for_collision_kernel():
    report = rfverify.verify(MaxoutHashFeatures, kernel="maxout_collision", kernel_params={"q": Q},
                             bound=float(np.sqrt(Q)), profile="quick")
    assert report.passed, report.table()


@pytest.mark.parametrize("seed", [rfverify.DEFAULT_SEED, 1, 2, 3, 4])
def test_one_over_m_scaling_caught(seed):
    res = rfverify.verify(OneOverM, seed=seed, checks=["unbiasedness"], **KW)["unbiasedness"]
    assert res.status == "fail" and "scale" in res.message


def test_uniform_weights_caught_on_sparse_inputs():
    # On axis-aligned inputs h(e_1) = max_j W_1j: uniform weights change E[h^2] (1.40 vs sigma2(4) = 1.55).
    def axis_points(n, d, rng):
        X = np.zeros((n, d))
        X[np.arange(n), rng.integers(0, d, n)] = rng.choice([-1.0, 1.0], n)
        return X

    res = rfverify.verify(UniformWeights, domain=axis_points, checks=["unbiasedness"],
                          **{**KW, "profile": "default"})["unbiasedness"]
    assert res.status == "fail", res.message


@pytest.mark.parametrize("impl", [NegatedMinOfNegated, MinInsteadOfMax], ids=lambda c: c.__name__)
def test_harmless_rewrites_pass(impl):
    report = rfverify.verify(impl, **KW)
    assert report.passed, report.table()

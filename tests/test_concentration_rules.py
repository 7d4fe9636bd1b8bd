"""The concentration check's decision rules, pinned directly (its mutants that the suite let survive).

* the tail counts are per designed pair (over the seeds), and each pair's p-value is the exact binomial one;
* the sup-norm's round-off slack is 16 float32 ulps, as documented: 16.5 ulps over C fails, 15.5 passes;
* an undeclared bound skips with the option that enables the check;
* concentration is a statistical check (it takes a share of the family alpha).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import rfverify
from rfverify.implementations.rff import RandomFourierFeatures
from rfverify.kinds import checks_for
from rfverify.properties.concentration import _tails
from rfverify.stats import binomial_upper_test, hoeffding_epsilon

F32_EPS = float(np.finfo(np.float32).eps)


def test_tail_counts_are_per_pair_over_the_seeds():
    R, m, C, level = 7, 64, math.sqrt(2.0), 0.2
    eps = hoeffding_epsilon(m, level, C)
    err = np.zeros((R, 3))
    err[:5, 1] = 2 * eps  # pair 1: 5 of 7 seeds beyond eps; pair 2: 2 of 7; pair 0: none
    err[:2, 2] = 2 * eps
    (row,), p = _tails(err, m, C, R, (level,))
    assert row["pair"] == 1 and row["max_frequency"] == 5 / 7
    assert np.allclose(row["frequencies"], [0, 5 / 7, 2 / 7])
    assert p == [binomial_upper_test(c, R, row["bound"]) for c in (0, 5, 2)]


def _sup_verdict(ulps: float):
    C = math.sqrt(2.0) / (1.0 + ulps * F32_EPS)  # RFF's sup |feature| sqrt(m) reaches sqrt(2) (1 - 1e-13)
    return rfverify.verify(RandomFourierFeatures, kernel="rbf", kernel_params={"gamma": 0.5}, dim=16, bound=C,
                           checks=["concentration"], metrics=False).results[0]


def test_the_sup_norm_slack_is_16_float32_ulps():
    over = _sup_verdict(16.5)
    assert over.status == "fail" and "declared bound C" in over.message, over.message
    assert _sup_verdict(15.5).status == "pass"


def test_a_violated_bound_names_it_and_records_what_was_measured():
    over = _sup_verdict(16.5)
    C = math.sqrt(2.0) / (1.0 + 16.5 * F32_EPS)
    assert re.match(r"declared bound C = \S+ is violated — observed: max \|feature\| \* sqrt\(m\) = \S+ over 200 "
                    r"seeds; expected: <= C = ", over.message), over.message
    assert "where: m = 1024 features, 24 designed pairs" in over.message
    assert "likely cause: the features are larger than declared (a scale error?)" in over.message
    d = over.details
    assert (d["m"], d["m_out"], d["trials"]) == (1024, 1024, 200)
    assert d["bound_C"] == C and C < d["observed_sup"] <= math.sqrt(2.0)


def test_no_declared_bound_skips_with_the_option_that_enables_it():
    r = rfverify.verify(RandomFourierFeatures, kernel="rbf", kernel_params={"gamma": 0.5}, dim=16,
                        checks=["concentration"], metrics=False).results[0]
    assert r.status == "skip"
    assert r.message.startswith("no bound C declared") and "declare it (--bound C)" in r.message


def test_concentration_is_a_statistical_check():
    spec = next(c for c in checks_for("feature-map") if c.name == "concentration")
    assert spec.statistical is True


def test_the_corners_keep_the_declared_kernel_parameters():
    """C is declared for the kernel parameters given: concentration's corners move d, m and the dtype, never the
    parameters (a corner at gamma = 1e3 would judge a bound nobody declared there)."""
    r = rfverify.verify(RandomFourierFeatures, kernel="rbf", kernel_params={"gamma": 0.5}, dim=16, bound=2 ** 0.5,
                        checks=["concentration"], metrics=False).results[0]
    corners = r.details["corners"]
    assert r.status == "pass" and len(corners) >= 2
    assert all(c["params"] == {} for c in corners), corners


def test_the_details_say_what_the_deviations_are_taken_about_only_for_a_map_declared_biased():
    import rfverify
    from rfverify.implementations.rff import RandomFourierFeatures

    def run(**declared):
        r = rfverify.verify(RandomFourierFeatures, kernel_params={"gamma": 0.5}, bound=2 ** 0.5, profile="quick",
                            checks=["concentration"], **declared)["concentration"]
        assert r.status == "pass", r.message
        return r.details

    assert "about" not in run()  # about the exact kernel: the default, not stated
    assert run(unbiased=False, bias_bound=0.05)["about"] == "the per-pair mean over seeds (the map is declared biased)"


@pytest.mark.parametrize("declared, headline, deviation, reading", [
    ({}, "tail frequency above the Hoeffding bound — ", "P(|k_hat - k| >= ", "(rejected at alpha = 0.000333); "),
    ({"unbiased": False, "bias_bound": 0.05}, "tail frequency above the Hoeffding bound about the mean estimate — ",
     "P(|k_hat - mean k_hat| >= ", "; the map is declared biased, so its deviations are taken about its own mean); "),
], ids=["about-k", "about-the-mean"])
def test_a_tail_failure_says_what_the_deviations_are_taken_about(declared, headline, deviation, reading):
    """Features sharing one draw do not concentrate about k, nor about their own mean when declared biased: the
    failure names which (the headline, the observed deviation, the expected bound's reading)."""
    import rfverify
    from tests.mutants import rff_mutants

    r = rfverify.verify(rff_mutants.SharedDraw, kernel_params={"gamma": 0.5}, bound=2 ** 0.5, profile="quick",
                        checks=["concentration"], **declared)["concentration"]
    assert r.status == "fail" and r.message.startswith(headline), r.message
    assert deviation in r.message and reading in r.message, r.message

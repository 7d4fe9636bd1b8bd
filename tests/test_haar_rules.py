"""The decision rules and messages of the Haar battery (:mod:`rfverify.properties.haar`), cheaply: the two-look
rule on stubbed p-values, the exact laws it tests against (coordinate CDF, trace moments, Weyl one-point CDFs,
pair angles) in closed form, and each check's pass and failure message recomputed from the numbers its result
carries (quick profile, d = 6, one run per case).

The battery's false alarms and power (correct samplers at many d, planted samplers under 21 seeds) are measured
in ``tests/test_orthogonal_checks.py`` and ``tests/test_decision_rules.py``.
"""

from __future__ import annotations

import math
import re
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats as st

from rfverify.implementations.orthogonal import haar_qr, haar_qr_so
from rfverify.kinds.orthogonal import KERNEL_NOTE, verify_orthogonal
from rfverify.properties.haar import (_determinant_at, _draws_where, _entry_histogram, _entry_positions, _int_sinc_ratio,
                                      coordinate_cdf, eigenangle_cdf, expected_trace_moments, pair_angles, two_looks)
from tests.mutants import broken_orthogonal as B

NUM = r"[0-9.e+-]+"


def _one(sampler, check, group="O", dim=6):
    return verify_orthogonal(sampler, dim=dim, group=group, profile="quick", checks=[check]).results[0]


def _stub(alpha=0.01, pilot=3, full=9):
    return SimpleNamespace(alpha=alpha, pilot=lambda: np.zeros(pilot), sample=lambda: np.zeros(full), dim=5)


def test_two_looks_stop_at_a_gross_pilot_and_double_the_deciding_p():
    looks = []

    def test(sample, ps):
        looks.append(len(sample))
        return ps[len(looks) - 1], "s", {"n": len(sample)}

    assert two_looks(_stub(), lambda s: test(s, [0.004])) == (True, 0.008, "s", {"n": 3, "stopped_after_pilot": True}, 3)
    assert looks == [3]
    looks.clear()  # the pilot at exactly alpha / 2 does not stop; the whole sample decides at alpha / 2
    assert two_looks(_stub(), lambda s: test(s, [0.005, 0.0049])) == (
        True, 0.0098, "s", {"n": 9, "stopped_after_pilot": False}, 9)
    looks.clear()
    assert two_looks(_stub(), lambda s: test(s, [0.3, 0.005])) == (
        False, 0.01, "s", {"n": 9, "stopped_after_pilot": False}, 9)
    looks.clear()
    assert two_looks(_stub(), lambda s: test(s, [0.3, 0.7]))[1] == 1.0  # min(1, 2p)
    assert _draws_where(_stub(), {"stopped_after_pilot": True}, 3) == "d = 5, 3 draws (the pilot)"
    assert _draws_where(_stub(), {"stopped_after_pilot": False}, 9) == "d = 5, 9 draws (the whole sample)"


def test_the_exact_laws_in_closed_form():
    x = np.linspace(-1, 1, 9)
    assert coordinate_cdf(x, 3) == pytest.approx((1 + x) / 2)  # Archimedes: uniform on [-1, 1] at d = 3
    assert coordinate_cdf(x, 2) == pytest.approx(0.5 + np.arcsin(x) / math.pi)
    assert coordinate_cdf(np.array([-3.0, 3.0]), 5).tolist() == [0.0, 1.0]  # clipped to [-1, 1]
    assert _entry_positions(1) == [(0, 0)] and _entry_positions(3) == [(0, 0), (0, 2), (2, 0), (2, 2)]
    h = _entry_histogram(np.array([0.1, -0.2, 0.3]), 3, "Q[1,1]")
    assert h["edges"][0] == -1.0 and h["edges"][-1] == 1.0 and len(h["edges"]) == 25 and sum(h["counts"]) == 3
    assert h["pdf"] == pytest.approx([0.5] * 121) and h["label"] == "Q[1,1], 3 draws"  # density 1/2 at d = 3
    h16 = _entry_histogram(np.zeros(4), 16, "x")
    assert h16["edges"][-1] == 1.0 and h16["pdf"][60] == pytest.approx(
        math.gamma(8) / (math.sqrt(math.pi) * math.gamma(7.5)))
    assert _entry_histogram(np.zeros(4), 64, "x")["edges"][-1] == pytest.approx(0.5)  # 4 / sqrt(d) below 1
    h2 = _entry_histogram(np.zeros(4), 2, "x")  # the arcsine density 1 / (pi sqrt(1 - x^2)) on [-1, 1]
    assert h2["edges"][-1] == 1.0 and h2["pdf"][60] == pytest.approx(1 / math.pi)
    h1 = _entry_histogram(np.ones(4), 1, "x")  # O(1) = {±1}: no density
    assert h1["edges"][-1] == 1.0 and h1["pdf"] == [0.0] * 121
    assert expected_trace_moments(1, "SO").tolist() == [1.0, 1.0, 1.0]
    assert expected_trace_moments(2, "SO").tolist() == [0.0, 2.0, 0.0]
    assert expected_trace_moments(2, "O").tolist() == expected_trace_moments(7, "SO").tolist() == [0.0, 1.0, 1.0]
    t = np.linspace(0.0, math.pi, 7)
    for k in (1, 2, 3, 4, 5):
        quad = [np.trapezoid(np.where(np.sin(s) == 0, k, np.sin(k * s) / np.where(np.sin(s) == 0, 1, np.sin(s))), s)
                for s in (np.linspace(1e-12, b, 20001) for b in t)]
        assert _int_sinc_ratio(k, t) == pytest.approx(quad, abs=1e-6), k
    assert eigenangle_cdf(t, 2, 1) == pytest.approx(t / math.pi)  # SO(2): uniform
    assert eigenangle_cdf(t, 3, 1) == pytest.approx((t - np.sin(t)) / math.pi)  # SO(3): (1 - cos)/pi
    assert eigenangle_cdf(t, 4, -1) == pytest.approx((t - np.sin(2 * t) / 2) / math.pi)  # O-(4): USp(2)
    assert eigenangle_cdf(t, 3, -1) == pytest.approx(1 - ((math.pi - t) - np.sin(math.pi - t)) / math.pi)
    for d in (4, 5, 6, 7):
        for det in (1, -1):
            ends = eigenangle_cdf(np.array([0.0, math.pi]), d, det)
            assert ends == pytest.approx([0.0, 1.0]), (d, det)


def test_pair_angles_drop_the_forced_eigenvalues():
    def rot(a):
        return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])

    def block(*parts):
        n = sum(p.shape[0] for p in parts)
        out, i = np.zeros((n, n)), 0
        for p in parts:
            out[i:i + p.shape[0], i:i + p.shape[0]] = p
            i += p.shape[0]
        return out

    one, minus = np.eye(1), -np.eye(1)
    assert pair_angles(block(rot(0.5), rot(2.0)), 1) == pytest.approx([0.5, 2.0])
    assert pair_angles(block(one, rot(0.5)), 1) == pytest.approx([0.5])  # SO(3): +1 forced
    assert pair_angles(block(minus, rot(0.5)), -1) == pytest.approx([0.5])  # O-(3): -1 forced
    assert pair_angles(block(one, minus, rot(0.7)), -1) == pytest.approx([0.7])  # O-(4): +1 and -1 forced
    assert len(pair_angles(block(one, minus), -1)) == 0  # O-(2): no pair


def test_determinant_messages():
    ok = _one(haar_qr, "haar-determinant")
    d = ok.details
    assert ok.status == "pass" and ok.message == f"det = +1 in {d['positive']} of 400 draws, consistent with 1/2"
    assert (d["draws"], d["stopped_after_pilot"], ok.statistic) == (400, False, float(d["positive"]))
    lo, hi = st.binomtest(d["positive"], 400, 0.5).proportion_ci(1 - ok.alpha / 2, method="exact")
    assert (ok.effect.low, ok.effect.high, ok.effect.confidence) == pytest.approx((lo, hi, 1 - ok.alpha / 2))
    assert ok.effect.name == "P(det = +1)" and ok.effect.estimate == d["positive"] / 400
    bad = _one(B.so_claimed_as_o, "haar-determinant")
    assert bad.status == "fail" and bad.message == (
        f"claims O(6) but P(det = +1) is not 1/2 — observed: det = +1 in 100 of 100 draws: P(det = +1) = 1 "
        f"[{bad.effect.low:.4g}, 1] (99.9917% interval; p = {bad.pvalue:.3g}); expected: P(det = +1) = 1/2, as Haar on "
        f"O(d) needs (rejected at alpha = 0.000167); where: d = 6, 100 draws (the pilot); likely cause: the sampler "
        f"never leaves SO(d): is it SO(d) while O(d) is claimed?")
    so = _one(haar_qr, "haar-determinant", group="SO")
    neg = so.details["negative"]
    first = so.message.split("(first at draw ")[1].split(")")[0]
    assert so.status == "fail" and so.message == (
        f"claims SO(6) but det ≠ +1 occurs — observed: det = -1 in {neg} of 400 draws (first at draw {first}); "
        "expected: det = +1 in every draw (Haar measure on SO(d) lives on SO(d)); where: d = 6, 400 draws; likely "
        "cause: an O(d) sampler (no determinant-fixing step) while SO(d) is claimed?")
    assert (so.statistic, so.threshold) == (float(neg), 0.0)
    assert so.details["singular"] == 0
    good_so = _one(haar_qr_so, "haar-determinant", group="SO")
    assert good_so.message == "det = +1 in all 400 draws, as SO(6) requires" and good_so.details["negative"] == 0
    flipped = _one(reflected_so, "haar-determinant")
    assert flipped.status == "fail" and flipped.details["positive"] == 0 and flipped.message.endswith(
        "likely cause: no draw has det = +1: a reflection applied to every draw?"), flipped.message


def reflected_so(d, rng=None):
    """Haar on SO(d) times a reflection: every draw has det = -1."""
    return np.diag([-1.0] + [1.0] * (d - 1)) @ haar_qr_so(d, rng)


def _sample_stub(mats, group="SO"):
    """A context whose pilot and whole sample are ``mats`` (d from their shape, alpha 0.01, the "pick" stream seeded
    0): fail and result return what they were given."""
    mats = np.array(mats)
    return SimpleNamespace(group=group, dim=mats.shape[1], alpha=0.01, budget=SimpleNamespace(draws=len(mats)),
                           rng=lambda name: np.random.default_rng(0), pilot=lambda: mats, sample=lambda: mats,
                           fail=lambda *a, **k: ("fail", a, k), result=lambda *a, **k: ("pass", a, k))


def test_so_determinant_counts_singular_draws_and_names_the_first_off_draw():
    """A singular draw (slogdet's sign 0) is not in SO(d) either; the first draw whose det is not +1 is named."""
    I3, sing, refl = np.eye(3), np.diag([1.0, 1.0, 0.0]), np.diag([-1.0, 1.0, 1.0])
    status, args, kw = _determinant_at(_sample_stub([I3, I3, sing, refl, I3, refl]))
    assert status == "fail" and args[0] == "claims SO(3) but det ≠ +1 occurs"
    assert args[1] == "det = -1 in 2, det = 0 (singular) in 1 of 6 draws (first at draw 2)"
    assert kw["details"] == {"draws": 6, "negative": 2, "singular": 1} and kw["statistic"] == 3.0
    assert kw["cause"].startswith("an O(d) sampler")
    status, args, kw = _determinant_at(_sample_stub([I3, sing, I3]))
    assert (status, args[1], kw["cause"]) == ("fail", "det = -1 in 0, det = 0 (singular) in 1 of 3 draws (first at "
                                                      "draw 1)", "the draws are not orthogonal (a singular matrix)")
    status, args, kw = _determinant_at(_sample_stub([I3, I3, refl]))
    assert args[1] == "det = -1 in 1 of 3 draws (first at draw 2)" and kw["details"]["singular"] == 0
    status, args, kw = _determinant_at(_sample_stub([I3, I3]))
    assert status == "pass" and args[1] == "det = +1 in all 2 draws, as SO(3) requires"
    assert (kw["statistic"], kw["threshold"]) == (0.0, 0.0)


def test_o_determinant_counts_only_det_plus_one_and_a_mixed_failure_has_no_cause():
    """A singular draw is not det = +1 in the O(d) binomial test either; a rejected P(det = +1) that is neither 0
    nor 1 names no likely cause."""
    I3, sing, refl = np.eye(3), np.diag([1.0, 1.0, 0.0]), np.diag([-1.0, 1.0, 1.0])
    mats = np.array([I3] * 90 + [sing] * 5 + [refl] * 5)
    status, args, kw = _determinant_at(_sample_stub(mats, group="O"))
    assert status == "fail" and kw["details"]["positive"] == 90 and kw["statistic"] == 90.0
    assert kw["cause"] == "" and args[1].startswith("det = +1 in 90 of 100 draws: P(det = +1) = 0.9")


def test_entries_messages():
    ok = _one(haar_qr, "haar-entries")
    assert ok.status == "pass" and ok.message == (
        f"entry laws consistent with Beta(1/2, 2.5) and sign symmetry (400 draws, worst {ok.details['worst']})")
    assert ok.details["sub_tests"] == ["Q[1,1]", "Q[1,6]", "Q[6,1]", "Q[6,6]", "a random entry per draw"]
    assert ok.statistic == max(ok.details["ks_statistic"])
    assert ok.pvalue == pytest.approx(min(1.0, 2 * min(1.0, 5 * min(ok.details["p_values"]))))
    bad = _one(B.qr_without_sign_correction, "haar-entries")
    assert bad.status == "fail" and re.fullmatch(
        rf"entries are not Haar-distributed — observed: Q\[1,1\] over 100 draws: KS D = {NUM}; mean -{NUM}, P\(>0\) = "
        rf"0\.000, mean square {NUM} \(p = {NUM}, Bonferroni over 5 entries\); expected: the law of one coordinate of "
        rf"a uniform unit vector \(sign-symmetric, Q_ij\^2 ~ Beta\(1/2, 2\.5\)\): mean 0 ± 0\.041, P\(>0\) = 1/2, mean "
        rf"square 0\.1667 \(KS rejected at alpha = 0\.000167\); where: d = 6, 100 draws \(the pilot\); likely cause: the "
        rf"diagonal entry never changes sign: QR without the sign correction \(Mezzadri 2006, §5\)\?", bad.message), \
        bad.message
    assert bad.details["histograms"][0]["label"] == "Q[1,1], 100 draws"
    biased = _one(B.random_signed_permutation, "haar-entries")  # entries in {0, ±1}: no sign convention to name
    assert biased.status == "fail" and "likely cause" not in biased.message, biased.message

    def top_right_positive(d, rng=None):  # a sign convention off the diagonal: not the missing QR correction
        Q = haar_qr(d, rng)
        if Q[0, -1] < 0:
            Q[:, -1] *= -1
        return Q

    off = _one(top_right_positive, "haar-entries")
    assert off.status == "fail" and off.message.startswith("entries are not Haar-distributed — observed: Q[1,6] "
                                                           "over 100 draws: "), off.message
    assert "P(>0) = 1.000" in off.message and "likely cause" not in off.message


def test_trace_moment_messages():
    ok = _one(haar_qr, "haar-trace-moments")
    assert ok.status == "pass" and ok.message == "E tr Q, E (tr Q)^2, E tr Q^2 consistent with [0.0, 1.0, 1.0] (400 draws)"
    assert ok.details["moments"] == ["tr Q", "(tr Q)^2", "tr(Q^2)"] and ok.pvalue == min(ok.details["p_adjusted"])
    bad = _one(B.qr_without_sign_correction, "haar-trace-moments")
    d = bad.details
    m, hw = float(d["mean"][0]), float(d["half_width"][0])
    assert bad.status == "fail" and bad.message == (
        f"trace moments are not Haar — observed: mean tr Q over 400 draws = {m:.4g} [{m - hw:.4g}, {m + hw:.4g}] "
        f"(99.9833% interval; half-width {hw:.2g}; p = {bad.pvalue:.3g}, Bonferroni over 3 moments); expected: E tr Q = "
        "0, its exact Haar value on O(6) (rejected at alpha = 0.000167); where: d = 6, 400 draws")
    assert bad.statistic == m and bad.effect.name == "E tr Q - Haar" and bad.effect.estimate == m
    assert (bad.effect.low, bad.effect.high) == pytest.approx((m - hw, m + hw))


def test_eigenangle_and_invariance_messages():
    ok = _one(haar_qr, "haar-eigenangles")
    d = ok.details
    assert ok.status == "pass" and ok.message == (
        f"eigenangles consistent with the Weyl density: KS D = {d['ks_statistic']:.3g} over 400 angles; CDF-quintile "
        f"counts {d['quintile_counts']} (Haar ~ 80 each)")
    assert d["angles"] == 400 and sum(d["quintile_counts"]) == 400 and ok.statistic == d["ks_statistic"]
    bad = _one(B.random_signed_permutation, "haar-eigenangles")
    assert bad.status == "fail" and re.fullmatch(
        rf"eigenangles do not follow the Haar \(Weyl\) density — observed: KS D = {NUM} over \d+ angles; CDF-quintile "
        rf"counts \[[0-9, ]+\] \(Haar ~ \d+ each\) \(p = {NUM}\); expected: one pair angle per draw distributed by "
        rf"the Weyl one-point density of its coset: CDF values uniform, equal quintile counts \(KS rejected at alpha = "
        rf"0\.000167\); where: d = 6, \d+ draws \(the (pilot|whole sample)\)", bad.message), bad.message
    inv = _one(haar_qr, "haar-invariance")
    assert inv.status == "pass" and re.fullmatch(
        rf"left and right invariance not rejected \((Q_11|tr Q) of Q vs of (Q R0|R0 Q): KS D = {NUM} \(200 vs 200 "
        rf"draws\)\)", inv.message), inv.message
    assert inv.details["sub_tests"] == ["Q_11 of Q vs of Q R0", "Q_11 of Q vs of R0 Q", "tr Q of Q vs of Q R0",
                                        "tr Q of Q vs of R0 Q"]
    not_inv = _one(B.qr_without_sign_correction, "haar-invariance")
    assert not_inv.status == "fail" and re.fullmatch(
        rf"not invariant — observed: (Q_11|tr Q) of Q vs of (Q R0|R0 Q): KS D = {NUM} \(50 vs 50 draws\) \(p = {NUM}, "
        rf"Bonferroni over 4 sub-tests\); expected: the same law for Q, Q R0 and R0 Q: Haar measure is the left- and "
        rf"right-invariant one \(KS rejected at alpha = 0\.000167\); where: d = 6, 100 draws \(the pilot\); R0 one "
        rf"fixed matrix of O\(6\)", not_inv.message), not_inv.message


def test_d_1_has_only_the_determinant_law_and_the_report_notes_haar_is_not_an_orf_kernel():
    r = _one(haar_qr, "haar-entries", dim=1)
    assert (r.status, r.message) == ("skip", "d=1: O(1) = {±1} and SO(1) = {1} are finite; only the determinant law "
                                             "is tested")
    two = _one(haar_qr, "haar-entries", dim=2)  # d = 2 is the first dimension with a continuous law
    assert two.status == "pass" and "Beta(1/2, 0.5)" in two.message, two.message
    report = verify_orthogonal(haar_qr, dim=2, profile="quick", checks=["orthogonality"])
    assert report.config["note"] == KERNEL_NOTE and "rfverify check feature-map" in KERNEL_NOTE


def test_trace_moments_reject_strictly_below_alpha(monkeypatch):
    """The moments' Bonferroni p-values stubbed at exactly alpha: no rejection; just below: a rejection."""
    import dataclasses

    import rfverify.properties.haar as haar

    real = haar.mean_test
    for scale, status in ((1.0, "pass"), (1 - 1e-12, "fail")):
        def at(vals, exp, alpha, scale=scale, **kw):
            t = real(vals, exp, alpha, **kw)
            return dataclasses.replace(t, p_adjusted=np.full_like(t.p_adjusted, alpha * scale))

        monkeypatch.setattr(haar, "mean_test", at)
        r = _one(haar_qr, "haar-trace-moments")
        assert (r.status, r.pvalue) == (status, r.alpha * scale), r.message


def _rot(t):
    return np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])


def test_eigenangles_skip_draws_without_a_pair_and_need_two_angles():
    """O(2): a reflection has eigenvalues +1 and -1 and no conjugate pair, so it is skipped (the draws after it
    still count); rotations by angles in [0, pi/4] only are far from Weyl's uniform law.  Two angles are enough
    for the KS test; one is not."""
    from rfverify.properties.haar import _eigenangles_at

    refl = np.diag([1.0, -1.0])
    mats = [refl] + [_rot(t) for t in np.linspace(0.05, math.pi / 4, 40)]
    status, args, kw = _eigenangles_at(_sample_stub(mats))
    assert status == "fail" and kw["details"]["angles"] == 40, (status, args)
    status, args, kw = _eigenangles_at(_sample_stub([_rot(0.3), _rot(2.0)]))
    assert kw["details"]["angles"] == 2 and "ks_statistic" in kw["details"]
    status, args, kw = _eigenangles_at(_sample_stub([_rot(0.3), refl]))
    assert (status, kw["details"]) == ("pass", {"angles": 1, "stopped_after_pilot": False})
    assert args[1] == "eigenangles consistent with the Weyl density: too few draws with a conjugate pair"

"""The rules of a quadrature rule's ``explore`` (:mod:`rfverify.properties.exploration_quadrature`) at one
configuration: the Gaussian moment tensors (Isserlis) against direct counts, the first monomial a draw integrates
wrongly and its message, the random-polynomial fallback above the tensor cap, the contract findings, and the
verdict's texts with each likely cause.

The search (corner bugs found at their minimal d under 21 seeds, twins passing) is measured in
``tests/test_exploration_rules_kernels.py``.
"""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pytest

import rfverify.properties.exploration_quadrature as eq
from rfverify.implementations import quadrature as Q
from rfverify.kinds.quadrature import QuadratureConfig, verify_quadrature
from rfverify.properties.exploration_quadrature import QuadExample, _monomial, _moment_tensor, exactness_problem
from tests.hostile_kinds import FailsAtCall, RecordingGuard

NUM = r"[0-9.e+-]+"


def _gaussian_moment(index):
    """E prod_k w_{index_k} for w ~ N(0, I): the product over distinct coordinates of (count - 1)!! (0 if odd)."""
    out = 1
    for v in set(index):
        k = index.count(v)
        if k % 2:
            return 0
        out *= math.prod(range(k - 1, 0, -2))
    return out


def test_monomial_names():
    assert _monomial(()) == "the constant 1"
    assert _monomial((0,)) == "w_1"
    assert _monomial((2, 0, 2)) == "w_1 w_3^2"
    assert _monomial((1, 1, 1, 1)) == "w_2^4"


@pytest.mark.parametrize("d,q", [(1, 0), (3, 1), (3, 2), (2, 3), (3, 4), (2, 6), (4, 4)])
def test_moment_tensors_are_the_gaussian_moments(d, q):
    T = _moment_tensor(d, q)
    assert T.shape == (d ** q,) and not T.flags.writeable
    expected = [_gaussian_moment(ix) for ix in itertools.product(range(d), repeat=q)] if q else [1]
    assert T.tolist() == expected
    assert _moment_tensor(d, q) is T  # cached


def _sr33(d, seed=0):
    return Q.sr33_haar(d, np.random.default_rng(seed))


def test_an_exact_draw_has_no_problem_and_a_broken_one_names_its_first_monomial():
    P, w = _sr33(3)
    assert exactness_problem(P, w, 3, 0) is None
    assert exactness_problem(P, w * 1.5, 3, 0) == (
        f"not exact at degree 0: the draw integrates the constant 1 to {1.5 * float(np.sum(w)):.10g}, exact 1 "
        f"(|error| {abs(1.5 * float(np.sum(w)) - 1):.3g} > round-off tolerance "
        f"{re.search(r'tolerance ([0-9.e+-]+);', exactness_problem(P, w * 1.5, 3, 0)).group(1)}; 1 of 1 monomial "
        "entries of degree 0 off)")
    Pb = P.copy()
    Pb[:, 1] *= 1.1  # w_2 stretched: every degree-2 moment with w_2 is off, the first is w_1 w_2 (0: still exact)
    msg = exactness_problem(Pb, w, 3, 0)
    m = re.fullmatch(rf"not exact at degree 2: the draw integrates w_2\^2 to ({NUM}), exact 1 \(\|error\| ({NUM}) > "
                     rf"round-off tolerance ({NUM}); 1 of 9 monomial entries of degree 2 off\)", msg)
    assert m, msg
    assert float(m.group(1)) == pytest.approx(1.21, rel=1e-9) and float(m.group(2)) == pytest.approx(0.21, rel=1e-6)
    Po = P.copy()
    Po[:, 0] += 0.01  # a shifted coordinate: the first odd moment w_1 is off at degree 1
    assert exactness_problem(Po, w, 3, 0).startswith("not exact at degree 1: the draw integrates w_1 to 0.01, exact 0")
    assert exactness_problem(Pb, w, 1, 0) is None  # only the claimed degrees are judged


def test_above_the_tensor_cap_random_polynomials_judge_the_draw(monkeypatch):
    P, w = _sr33(3)
    monkeypatch.setattr(eq, "TENSOR_CAP", 3)  # degrees 2 and 3 at d = 3 go to the fallback
    assert exactness_problem(P, w, 3, 0) is None
    Pb = P.copy()
    Pb[:, 1] *= 1.1
    msg = exactness_problem(Pb, w, 3, 5)
    assert re.fullmatch(rf"not exact at degree 2: random polynomial \d of degree 2 \(a sum of products of integer "
                        rf"linear forms\) integrates to {NUM}, exact -?\d+ \(\|error\| {NUM} > round-off tolerance "
                        rf"{NUM}\)", msg), msg
    assert exactness_problem(Pb, w, 3, 5) == msg  # the polynomials are seeded by (rng seed, degree)
    monkeypatch.setattr(eq, "TENSOR_CAP", 2 ** 18)
    monkeypatch.setattr(eq, "POINTS_CAP", 1)  # too many points for the product array: the fallback too
    assert "random polynomial" in exactness_problem(Pb, w, 3, 5)


def _ctx(rule, **kw):
    config = QuadratureConfig(rule, dim=4, degree=kw.pop("degree", 3), profile="quick", **kw)
    return config.context(next(s for s in config.checks() if s.name == "explore"))


def test_the_contract_findings_at_one_configuration():
    ex = QuadExample(3, 7)
    assert ex.describe() == "d = 3, rng = numpy.random.default_rng(7)"
    assert ex.pins() == ["--pin", "d=3", "--pin", "seed=7"]
    assert eq._problem(_ctx(Q.sr33_haar), ex) is None

    def fixed(d, rng):
        return _sr33(d, 1)

    assert eq._problem(_ctx(fixed), ex) == "Generators seeded 7 and 8 gave the same draw (the rng is ignored)"
    assert eq._problem(_ctx(fixed, deterministic=True), ex) is None
    assert eq._problem(_ctx(Q.sr33_haar, deterministic=True), ex) == (
        "Generators seeded 7 and 8 gave different draws (declared deterministic)")
    state = {"calls": 0}

    def hidden(d, rng):
        state["calls"] += 1
        return _sr33(d, state["calls"])

    assert eq._problem(_ctx(hidden), ex) == ("two draws from Generators seeded alike differ (randomness not drawn "
                                             "from the rng given)")

    def refuses(d, rng):
        if d == 3:
            raise ValueError("no rule at d = 3")
        return _sr33(d)

    got = eq._problem(_ctx(refuses), ex)
    assert got.startswith("the rule failed: ") and "no rule at d = 3" in got, got


def _explore(rule, **kw):
    return verify_quadrature(rule, dim=4, profile="quick", checks=["explore"], **{"degree": 3, **kw})["explore"]


def test_the_verdict_texts():
    ok = _explore(Q.sr33_haar)
    assert ok.status == "pass" and re.fullmatch(
        r"\d+ \(d, seed\) pairs, the contract and exactness to degree 3 held at every one \(d 1 … 64, any rng seed "
        r"\(0 included\), degree 0 … 3\)", ok.message), ok.message
    assert ok.details["space_searched"] == "d 1 … 64, any rng seed (0 included), degree 0 … 3"
    sparse = _explore(Q.sr33_butterfly, unbiased=False)  # d = 2^k: the dimensions are listed
    assert sparse.details["space_searched"].startswith("d = 1, 2, 4, 8, 16, 32, 64, any rng seed"), sparse.message

    def mis_weighted_above_8(d, rng):
        P, w = _sr33(d, int(rng.integers(2 ** 31)))
        return P, (w * 1.01 if d > 8 else w)

    bad = _explore(mis_weighted_above_8)
    assert bad.status == "fail" and bad.details["minimal_example"]["d"] == 9 and bad.details["replayed"] is True
    seed = bad.details["minimal_example"]["seed"]
    assert bad.message.startswith("the rule breaks at some dimension — observed: not exact at degree 0: the draw "
                                  "integrates the constant 1 to 1.01"), bad.message
    assert (f"expected: a finite draw determined by the rng, exact to degree 3, at every d of d 1 … 64; where: d = 9, "
            f"rng = numpy.random.default_rng({seed}) (minimal, shrunk by Hypothesis); likely cause: the weights do not "
            "sum to 1 at this d (a special case with a missing or mis-scaled weight?)") in bad.message, bad.message
    assert bad.reproduce.endswith(f" --pin d=9 --pin seed={seed}")
    pinned = _explore(mis_weighted_above_8, pins={"seed": 11})
    assert pinned.details["minimal_example"] == {"d": 9, "seed": 11}


@pytest.mark.parametrize("rule,kw,cause", [
    ("stretched", {}, "a code path of its own at this d (a special case for small d, a fast path for large d?)"),
    ("fixed", {}, "the rng is ignored at this d (a cached or closed-form draw?)"),
    ("haar", {"deterministic": True}, "the rule draws random numbers: do not declare it deterministic"),
    ("crashes", {}, "the rule does not handle this d: fix it, or declare its space (rfverify_space)"),
])
def test_each_finding_comes_with_its_likely_cause(rule, kw, cause):
    def stretched(d, rng):
        P, w = Q.sr33_haar(d, rng)
        if d >= 5:
            P = P.copy()
            P[:, 0] *= 1.1
        return P, w

    def fixed(d, rng):
        return _sr33(d, 1)

    def crashes(d, rng):  # a crash, not a clean refusal (a ValueError would set d = 2 aside)
        if d == 2:
            raise ZeroDivisionError("no rule at d = 2")
        return Q.sr33_haar(d, rng)

    impl = {"stretched": stretched, "fixed": fixed, "haar": Q.sr33_haar, "crashes": crashes}[rule]
    r = _explore(impl, **kw)
    assert r.status == "fail" and f"; likely cause: {cause}" in r.message, r.message


def test_a_draw_is_the_same_only_if_its_points_and_its_weights_are():
    """Fixed points with weights that follow the rng: a random rule (judged on exactness), not one that ignores
    its rng."""
    P0, w0 = _sr33(3, 1)

    def reweighted(d, rng):
        return P0, w0 * (1 + 1e-3 * rng.random())

    got = eq._problem(_ctx(reweighted), QuadExample(3, 7))
    assert got.startswith("not exact at degree 0: the draw integrates the constant 1 to "), got


_ZERO_FIRST = np.random.default_rng(0).integers(2 ** 62)


def bad_at_seed_0(d, rng):
    """SR33, with its weights doubled for a Generator seeded 0 (recognised by its first draw)."""
    first = rng.integers(2 ** 62)
    P, w = Q.sr33_haar(d, rng)
    return (P, w * 2) if first == _ZERO_FIRST else (P, w)


def test_a_pinned_seed_is_the_only_seed_tried():
    """With --pin seed=S the first examples (the four smallest d) are drawn at S too, never at seed 0."""
    assert _explore(bad_at_seed_0).details["minimal_example"] == {"d": 1, "seed": 0}
    assert _explore(bad_at_seed_0, pins={"seed": 11}).status == "pass"


def test_the_tensor_is_used_up_to_its_caps_inclusive(monkeypatch):
    """The moment tensor is formed while d^q <= TENSOR_CAP and n d^(q-1) <= POINTS_CAP (both inclusive); beyond,
    random polynomials judge the degree — visible in which message a broken draw gets."""
    P, w = _sr33(3)  # 9 points at d = 3
    Pb = P.copy()
    Pb[:, 1] *= 1.1  # off at degree 2
    heavy = w * 1.5  # off at degree 0

    def path(Pd, wd, **caps):
        for k, v in caps.items():
            monkeypatch.setattr(eq, k, v)
        msg = exactness_problem(Pd, wd, 3, 0)
        monkeypatch.undo()
        return "polynomials" if "random polynomial" in msg else "tensor"

    assert path(Pb, w, TENSOR_CAP=9) == "tensor" and path(Pb, w, TENSOR_CAP=8) == "polynomials"  # d^2 = 9
    assert path(Pb, w, POINTS_CAP=27) == "tensor" and path(Pb, w, POINTS_CAP=26) == "polynomials"  # n d = 27
    assert path(P, heavy, POINTS_CAP=9) == "tensor" and path(P, heavy, POINTS_CAP=8) == "polynomials"  # n d^0 = 9
    assert path(Pb, w, TENSOR_CAP=10, POINTS_CAP=2 ** 22) == "tensor"
    big = _sr33(20)
    Pbig = big[0].copy()
    Pbig[:, 1] *= 1.1
    # at d = 20, degree 5 has 20^5 > 2^18 entries: judged by polynomials; degree 2 by the tensor
    assert exactness_problem(Pbig, big[1], 3, 0).startswith("not exact at degree 2: the draw integrates w_2^2")


def test_a_zero_tolerance_is_not_exceeded_by_a_zero_error(monkeypatch):
    """All points at the origin: every moment of degree >= 1 is 0 there with a tolerance of 0; the odd ones are
    exact (error 0 is not > 0), the first wrong one is E w_1^2 = 1 — through the tensor and the polynomials."""
    P, w = np.zeros((4, 2)), np.full(4, 0.25)
    assert exactness_problem(P, w, 3, 0).startswith("not exact at degree 2: the draw integrates w_1^2 to 0, exact 1 ")
    monkeypatch.setattr(eq, "TENSOR_CAP", 0)
    assert exactness_problem(P, w, 3, 0).startswith("not exact at degree 2: random polynomial ")


def test_the_first_wrong_monomial_is_the_smallest_index_in_lexicographic_order():
    """w_2 stretched and w_3 sheared towards w_1: E w_2^2, E w_1 w_3 and E w_3^2 are off; the first is w_1 w_3
    (index (1, 3) before (2, 2))."""
    P, w = _sr33(3)
    Pb = P.copy()
    Pb[:, 1] *= 1.1
    Pb[:, 2] += 0.3 * Pb[:, 0]
    assert exactness_problem(Pb, w, 3, 0).startswith("not exact at degree 2: the draw integrates w_1 w_3 to 0.3, "
                                                      "exact 0 (|error| 0.3 > round-off tolerance ")


def test_the_fallback_message_carries_the_error_it_found(monkeypatch):
    P, w = _sr33(3)
    Pb = P.copy()
    Pb[:, 1] *= 1.1
    monkeypatch.setattr(eq, "TENSOR_CAP", 3)
    msg = exactness_problem(Pb, w, 3, 5)
    got, exact, err = re.search(rf"integrates to ({NUM}), exact (-?\d+) \(\|error\| ({NUM}) >", msg).groups()
    assert float(err) == pytest.approx(abs(float(got) - int(exact)), rel=1e-2) and int(exact) != 0, msg


def test_the_seed_pair_is_s_and_s_plus_1_and_hidden_randomness_in_the_weights_is_found():
    def by_half_seed(d, rng):  # the same draw for seeds 2k and 2k + 1
        return _sr33(d, int(rng.bit_generator.seed_seq.entropy) // 2)

    assert eq._problem(_ctx(by_half_seed), QuadExample(3, 6)) == (
        "Generators seeded 6 and 7 gave the same draw (the rng is ignored)")
    assert eq._problem(_ctx(by_half_seed), QuadExample(3, 7)) is None
    calls = {"n": 0}

    def noisy_weights(d, rng):
        P, w = Q.sr33_haar(d, rng)
        calls["n"] += 1
        return P, w * (1 + 1e-3 * calls["n"])

    assert eq._problem(_ctx(noisy_weights), QuadExample(3, 7)) == (
        "two draws from Generators seeded alike differ (randomness not drawn from the rng given)")


def test_a_seed_held_in_the_space_is_the_only_seed_tried():
    assert _explore(bad_at_seed_0, space={"seed": 11}).status == "pass"


def test_the_fallback_tries_three_polynomials_per_degree(monkeypatch):
    calls = []
    real = eq._random_polynomial
    monkeypatch.setattr(eq, "_random_polynomial", lambda q, d, gen: (calls.append(q), real(q, d, gen))[1])
    monkeypatch.setattr(eq, "TENSOR_CAP", 3)  # degrees 0 and 1 by the tensor at d = 3, 2 and 3 by polynomials
    P, w = _sr33(3)
    assert exactness_problem(P, w, 3, 0) is None and calls == [2, 2, 2, 3, 3, 3]


def test_the_integer_polynomials_miss_an_error_in_one_monomial_with_a_measured_probability():
    """Measured power of one random integer polynomial (forms with entries in -2..2, coefficients +-1..3, two
    terms) against an error confined to E w_i^q: it misses when the polynomial's coefficient of w_i^q is 0 — about
    0.16 at degree 2 and 0.35 at degree 4 (20,000 polynomials each; 99.9% binomial intervals within the bounds
    below).  So k polynomials per degree miss such a systematic error with probability about 0.16^k (degree 2) or
    0.35^k (degree 4): the exactness check's power against it is not 1 (documented in its docstring)."""
    from rfverify.properties.quadrature_exactness import _random_polynomial

    for q, lo, hi in ((2, 0.145, 0.175), (4, 0.33, 0.37)):
        gen = np.random.default_rng(1)
        coefs = [sum(c * int(np.prod(A[:, 1])) for c, A in _random_polynomial(q, 3, gen)) for _ in range(20_000)]
        miss = sum(c == 0 for c in coefs) / 20_000
        assert lo < miss < hi, (q, miss)


def _off_at_degree_3(d):
    """An SR33 draw plus four points on the w_1 axis at 0, 1, 2, 3 with weights eps (-1, 3, -3, 1) (a third
    difference): degrees 0, 1 and 2 stay exact, E w_1^3 becomes 6 eps."""
    P, w = _sr33(d)
    extra = np.zeros((4, d))
    extra[:, 0] = [0.0, 1.0, 2.0, 3.0]
    return np.vstack([P, extra]), np.concatenate([w, 1e-3 * np.array([-1.0, 3.0, -3.0, 1.0])])


def test_degree_3_is_judged_by_the_tensor_up_to_d_64_and_by_polynomials_above():
    assert exactness_problem(*_off_at_degree_3(64), 3, 0).startswith(
        "not exact at degree 3: the draw integrates w_1^3 to 0.006, exact 0")  # 64^3 = 2^18 entries: the tensor
    assert exactness_problem(*_off_at_degree_3(65), 3, 0).startswith("not exact at degree 3: random polynomial ")
    P, w = _off_at_degree_3(64)  # 1000 more points of weight 0: the moments stay, n d^2 = 1135 x 4096 > 2^22
    P = np.vstack([P, np.random.default_rng(3).standard_normal((1000, 64))])
    w = np.concatenate([w, np.zeros(1000)])
    assert exactness_problem(P, w, 3, 0).startswith("not exact at degree 3: random polynomial ")


def test_the_verdict_names_a_hidden_source_of_randomness_and_an_unreplayed_failure():
    calls = {"n": 0}

    def noisy_weights(d, rng):
        P, w = Q.sr33_haar(d, rng)
        calls["n"] += 1
        return P, w * (1 + 1e-3 * calls["n"])

    r = _explore(noisy_weights)
    assert r.status == "fail" and r.message.endswith("; likely cause: a hidden source of randomness at this d"), \
        r.message
    flaky = {"n": 0}

    def fails_once(d, rng):
        flaky["n"] += 1
        P, w = Q.sr33_haar(d, rng)
        return (P, w * 2) if flaky["n"] == 30 else (P, w)  # one draw, once: never again when replayed

    f = _explore(fails_once)
    assert f.status == "fail" and f.details["replayed"] is False
    assert f.message.endswith(" (as first found, not shrunk: the failure did not happen again when replayed, so the "
                              "plug-in is not deterministic there); likely cause: a hidden source of randomness at "
                              "this d"), f.message
    assert "shrunk by Hypothesis" not in f.message
    with pytest.raises(AttributeError):
        QuadExample(3, 7).d = 4  # frozen: an example is a value


def test_a_rule_s_own_words_do_not_choose_the_cause():
    def crashes(d, rng):
        if d == 2:
            raise ZeroDivisionError("degree 0 weights are not supported here; the same draw would be wrong")
        return Q.sr33_haar(d, rng)

    r = _explore(crashes)
    assert r.message.endswith("; likely cause: the rule does not handle this d: fix it, or declare its space "
                              "(rfverify_space)"), r.message


# -- the rotation-invariance exemption and the refusal bookkeeping ------------------------------------------------
E = np.finfo(np.float64).eps


@pytest.mark.parametrize("P,w,invariant", [
    (np.zeros((0, 2)), np.zeros(0), True),  # no point: nothing a rotation can move
    (np.zeros((3, 3)), np.full(3, 1 / 3), True),  # every point at the origin, any d
    (np.array([[1.0], [0.5]]), np.array([0.5, 0.5]), False),  # d = 1, not symmetric (largest |x| exactly 1)
    (np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([0.5, 0.5]), False),  # d = 2: symmetric under one reflection only
    (np.array([[-1.5], [0.2], [-0.2], [1.5]]), np.array([0.1, 0.4, 0.4, 0.1]), True),  # x -> -x, weights alike
    (np.array([[-1.0], [1.0 + 1e-9]]), np.array([0.5, 0.5]), False),  # a mirror off by far more than round-off
    (np.array([[-1e6], [1e6 * (1 + 2 * E)]]), np.array([0.5, 0.5]), True),  # off by round-off of the largest point
    (np.array([[-1.0], [1.0]]), np.array([0.3, 0.7]), False),  # mirrored points, weights not
    (np.array([[-1.0], [1.0]]), np.array([1e6, 1e6 * (1 + 2 * E)]), True),  # weights equal to their round-off
])
def test_a_draw_is_invariant_under_every_rotation_only_at_the_origin_or_mirrored_at_d_1(P, w, invariant):
    assert eq.invariant_under_rotations(P, w) is invariant


@pytest.mark.parametrize("n,seed,other", [(1, 7, 8), (2, 7, 8), (3, 8, 7)])
def test_a_refusal_is_set_aside_with_the_seed_it_happened_at(n, seed, other):
    rule = FailsAtCall(n)
    ctx = _ctx(rule)
    rule.calls = 0  # whatever building the configuration called
    guard = RecordingGuard()
    assert eq._problem(ctx, QuadExample(4, 7), guard).startswith("the rule failed: ")
    assert guard.rejected == [({"d": 4}, seed, other, "rule(d, rng)")]


def _refusing(at):
    def rule(d, rng):
        if d == at:
            raise ValueError(f"no d = {at}")
        return Q.sr33_haar(d, rng)
    return rule


def test_a_refusal_at_the_asked_dimension_is_never_set_aside_and_a_strict_failure_keeps_its_details():
    assert _explore(_refusing(4)).status != "pass"
    assert _explore(_refusing(6), pins={"d": 6}).status != "pass"
    elsewhere = _explore(_refusing(1))  # d = 1 is always tried
    assert elsewhere.status == "pass" and "refuses d = 1 (ValueError: no d = 1)" in elsewhere.message, elsewhere.message
    strict = _explore(_refusing(1), strict_space=True)
    assert strict.status == "fail" and strict.details["space"]["refused"], strict.details


def test_an_accepted_draw_is_recorded_at_its_d_and_the_probe_names_the_call_refused():
    guard = RecordingGuard()
    assert eq._problem(_ctx(Q.sr33_haar), QuadExample(5, 3), guard) is None
    assert guard.accepted == [{"d": 5}] and guard.rejected == []  # what a later refusal of d = 5 is checked against
    probe = eq._probe(_ctx(_refusing(6)))
    assert probe({"d": 5}, 0) is None
    refusal = probe({"d": 6}, 0)
    assert (refusal.exception, refusal.message, refusal.action) == ("ValueError", "no d = 6", "rule(d, rng)")


def test_a_counterexample_hypothesis_left_at_a_corner_is_refined_to_the_smallest_failing_d(monkeypatch):
    def rule(d, rng):  # weights off by 1 % from d = 21 on
        P, w = Q.sr33_haar(d, rng)
        return P, (w * 1.01 if d >= 21 else w)

    real = eq.search

    def stops_at_a_corner(*a, **kw):  # as when Hypothesis shrinks d along its corner values and stops at 31
        found = real(*a, **kw)
        assert not found.passed
        return eq.replace(found, counterexample=QuadExample(31, found.counterexample.seed))

    monkeypatch.setattr(eq, "search", stops_at_a_corner)
    r = _explore(rule)
    assert r.status == "fail" and r.details["minimal_example"]["d"] == 21, r.details["minimal_example"]

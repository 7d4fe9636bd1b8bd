"""The messages and records of the deterministic kernel checks (:mod:`rfverify.properties.kernel_properties`),
pinned against the numbers each result carries: symmetry, PSD and normalisation, passing and failing, with the
point sets a kernel overflows on skipped and named, and the coordinate formatting of a witness.

Their verdicts (planted bugs caught under 21 seeds, correct kernels never failing) are measured in
``tests/test_kernel_checks.py``; here the quick profile and the default seed, one verify call per case.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import rfverify.properties.kernel_properties as kp
from rfverify.kinds.kernel import verify_kernel
from rfverify.properties.kernel_properties import _fmt_vec, _overflow_note, shrink_witness
from tests.mutants import kernel_mutants as M

OVERFLOW = "the kernel's values overflow float64 at that input scale"


def hot(X, Y):
    """exp(40 <x, y>): PSD, and non-finite beyond the length scale (the plan's sets 2, 5, 7 and 10)."""
    return np.exp(40.0 * X @ Y.T)


def first_row_scaled(X, Y):
    """rbf times a factor read off the first argument's first row: each Gram matrix K(X, X) is symmetric, but
    K(X, Y) differs from K(Y, X)^T."""
    return M.rbf(X, Y) * (1.0 + 0.25 * abs(X[0, 0]))


def _one(kernel, check, profile="quick", **kw):
    return verify_kernel(kernel, profile=profile, checks=[check], **kw).results[0]


def test_coordinates_and_the_overflow_note():
    assert _fmt_vec(np.array([0.5, -1.0, 12345.678])) == "[0.5, -1, 1.235e+04]"
    assert _fmt_vec(np.arange(20.0)) == "[" + ", ".join(str(i) for i in range(16)) + ", ... (20 values)]"
    assert _fmt_vec(np.arange(16.0)) == "[" + ", ".join(str(i) for i in range(16)) + "]"  # all of them: no count
    assert _fmt_vec(np.arange(5.0), limit=2) == "[0, 1, ... (5 values)]"
    assert _overflow_note([{"set": 0, "n": 8}]) == ""
    assert _overflow_note([{"set": 3, "overflow": True}]) == f"; skipped set 3: {OVERFLOW}"
    assert _overflow_note([{"set": 3, "overflow": True}, {"set": 4}, {"set": 7, "overflow": True}]) == (
        f"; skipped sets 3, 7: {OVERFLOW}")


def test_symmetry_pass_counts_the_sets_judged_and_names_the_skipped_ones():
    r = _one(hot, "kernel-symmetry", profile="default")
    rows = r.details["sets"]
    over = [s["set"] for s in rows if s.get("overflow")]
    assert over == [2, 5] and rows[2] == {"set": 2, "family": "iid", "n": 32, "scale": 2.5, "overflow": True}
    judged = [s for s in rows if not s.get("overflow")]
    assert r.status == "pass" and r.message == (
        f"symmetric on {len(judged)} point sets: largest |k(x, y) - k(y, x)| is {r.details['worst_ratio']:.2g} of the "
        f"round-off tolerance (float64); skipped sets 2, 5: {OVERFLOW}")
    assert (r.statistic, r.threshold) == (r.details["worst_ratio"], 1.0)
    assert r.details["worst_ratio"] == max(max(s["max_cross"], s["max_gram"]) / s["tolerance"] for s in judged)
    assert set(judged[0]) == {"set", "family", "n", "max_cross", "max_gram", "tolerance"}


@pytest.mark.parametrize("kernel,source", [(M.asymmetric_rbf, "the Gram matrix K(X, X) vs its transpose"),
                                           (first_row_scaled, "K(X, Y) vs K(Y, X)^T")])
def test_symmetry_failure_names_the_worst_pair_and_where_it_was_found(kernel, source):
    r = _one(kernel, "kernel-symmetry")
    w = r.details["witness"]
    kxy, kyx = w["k_xy"], w["k_yx"]
    rows = r.details["sets"]
    n_bad = sum(max(s["max_cross"], s["max_gram"]) > s["tolerance"] for s in rows)
    assert r.status == "fail" and r.statistic == abs(kxy - kyx)
    assert r.details["worst_ratio"] == pytest.approx(abs(kxy - kyx) / r.threshold)
    head = (f"not symmetric — observed: k(x, y) = {kxy:.10g} but k(y, x) = {kyx:.10g} (|difference| "
            f"{abs(kxy - kyx):.3g}); expected: k(x, y) = k(y, x): |difference| <= {r.threshold:.3g} (the round-off "
            f"tolerance); where: point set ")
    assert r.message.startswith(head), r.message
    assert f", {source}, at x = {_fmt_vec(np.array(w['x']))}, y = {_fmt_vec(np.array(w['y']))}; " in r.message
    assert r.message.split("; ")[-1].startswith(f"{n_bad} of {len(rows)} point sets asymmetric"), r.message


def test_psd_pass_message_and_the_declared_not_psd_note():
    r = _one(M.rbf, "kernel-psd")
    rows = r.details["sets"]
    lo = min(rows, key=lambda s: s["lambda_min"] / s["tolerance"])
    body = (f"{len(rows)} Gram matrices (n = {min(s['n'] for s in rows)}..{max(s['n'] for s in rows)}) positive "
            f"semi-definite; closest to the bound: smallest eigenvalue {lo['lambda_min']:.3g} >= -{lo['tolerance']:.3g} "
            f"(set {lo['set']})")
    assert r.status == "pass" and r.message == body
    assert (r.statistic, r.threshold) == (lo["lambda_min"], -lo["tolerance"])
    assert set(rows[0]) == {"set", "family", "n", "scale", "lambda_min", "norm2", "tolerance"}
    assert r.details["declared_psd"] is True and r.details["dtype"] == "float64"
    declared = _one(M.rbf, "kernel-psd", psd=False)
    assert declared.status == "pass" and declared.message == (
        "declared not PSD (declared not positive semi-definite), but no negative eigenvalue found here: " + body)
    hot_r = _one(hot, "kernel-psd", profile="default")
    assert hot_r.message.endswith(f"; skipped sets 2, 5, 7, 10: {OVERFLOW}"), hot_r.message
    assert hot_r.message.startswith("8 Gram matrices (n = 8..96) positive semi-definite")


def test_psd_failure_message_and_its_expected_form_for_a_kernel_declared_not_psd():
    r = _one(M.tanh_kernel, "kernel-psd")
    w = r.details["witness"]
    S = w["indices"]
    bad = [s for s in r.details["sets"] if s["lambda_min"] < -s["tolerance"]]
    assert r.status == "fail" and r.statistic < r.threshold < 0
    assert r.message.startswith(f"not positive semi-definite — observed: the Gram matrix has smallest eigenvalue "
                                f"{r.statistic:.4g} (||K||_2 = "), r.message
    assert f"; expected: >= {r.threshold:.3g} (the round-off tolerance); where: point set {w['set']} (" in r.message
    pts = "; ".join(f"x{i + 1} = {_fmt_vec(np.array(x))}" for i, x in enumerate(w["points"]))
    assert (f"; witness: {len(S)} point{'s' if len(S) != 1 else ''} whose Gram matrix has eigenvalue "
            f"{w['eigenvalue']:.4g} with eigenvector c = {_fmt_vec(np.array(w['eigenvector']))} (c^T K c < 0): {pts}; "
            f"{len(bad)} of {len(r.details['sets'])} point sets indefinite") in r.message, r.message
    assert np.array(w["gram"]) == pytest.approx(M.tanh_kernel(np.array(w["points"]), np.array(w["points"])))
    assert w["eigenvalue"] < -w["tolerance"] < 0
    c = np.array(w["eigenvector"])
    assert c @ np.array(w["gram"]) @ c == pytest.approx(w["eigenvalue"])
    x = _one(M.tanh_kernel, "kernel-psd", psd=False)
    assert x.status == "xfail" and x.message.startswith(
        "expected finding (declared not positive semi-definite): not positive semi-definite — observed: ")
    assert x.details["witness"] == w and x.statistic == r.statistic


def test_normalisation_messages_carry_the_worst_point():
    r = _one(M.rbf, "kernel-normalisation", normalized=True)
    d = r.details
    assert r.status == "pass" and r.message == (
        f"k(x, x) = 1 within {d['tolerance']:.2g} at {d['points']} points (largest deviation "
        f"{abs(d['worst_value'] - 1.0):.2g})")
    assert d["off"] == 0 and d["points"] == 176 and (r.statistic, r.threshold) == (abs(d["worst_value"] - 1), d["tolerance"])
    f = _one(M.twice_rbf(), "kernel-normalisation", normalized=True)
    d = f.details
    assert f.status == "fail" and d["worst_value"] == 2.0 and d["off"] == d["points"] == 176
    tol, x = f"{d['tolerance']:.2g}", _fmt_vec(np.array(d["witness"]["x"]))
    assert re.fullmatch(rf"not normalised — observed: k\(x, x\) = 2; expected: 1 ± {re.escape(tol)} \(the round-off "
                        rf"tolerance\); where: x = {re.escape(x)} \(point set \d+ \([a-z]+, n = \d+, scale [0-9.]+\)\); "
                        rf"176 of 176 points off", f.message), f.message
    assert d["witness"]["k_xx"] == 2.0 and (f.statistic, f.threshold) == (1.0, d["tolerance"])
    hot_r = _one(hot, "kernel-normalisation", profile="default", normalized=True)
    assert hot_r.details["points"] == 368  # the sets that overflow are left out of the count


def negated_rbf(X, Y):
    return -M.rbf(X, Y)


def hot_at_the_length_scale(X, Y):
    return np.exp(200.0 * X @ Y.T)  # finite where the kernel is screened (|x| <= 1.3), not on the mixed-norm set


def test_a_one_point_witness_and_an_overflow_within_the_length_scale():
    """A negative k(x, x) is its own witness (one point, in the singular).  Overflow is excused only beyond the
    length scale: a kernel that overflows on a set at one length scale (here the mixed-norm set, whose norms reach
    3, past the screen's 1.3) is a plug-in error, not a skip."""
    r = _one(negated_rbf, "kernel-psd")
    assert r.status == "fail" and len(r.details["witness"]["indices"]) == 1
    # every set's witness is one point with relative eigenvalue -1: a tie, and the first set's is reported
    assert r.details["witness"]["set"] == r.details["sets"][0]["set"] == 0
    assert "; witness: 1 point whose Gram matrix has eigenvalue -1 with eigenvector c = [1] (c^T K c < 0): x1 = [" in (
        r.message), r.message
    for check in ("kernel-symmetry", "kernel-psd"):
        e = _one(hot_at_the_length_scale, check)
        assert e.status == "error" and "returned non-finite values" in e.message, (check, e.message)


def _witness(K, clear_fraction=0.1):
    K = np.asarray(K, dtype=float)
    w, V = np.linalg.eigh(K)
    return shrink_witness(K, V[:, 0], clear_fraction * abs(w[0]), lambda sub: 1e-9)


def test_the_witness_search_on_small_matrices():
    """Pass 1 takes the shortest clearly indefinite prefix of the points by |v| (from one point); pass 2 drops
    single points while the set stays clearly indefinite (down to one).  Matrices found by a search over small
    integer matrices where each step matters."""
    # a one-point prefix qualifies: the first point by |v| has k(x, x) = -1
    assert _witness([[-1.0, 1.5, 2.5], [1.5, -1.0, 0.5], [2.5, 0.5, 1.0]]) == [0]
    # pass 2 shrinks a two-point prefix to its one point with a negative diagonal
    assert _witness([[2.0, 1.5, -2.5, 0.0], [1.5, 1.0, -3.0, -2.5], [-2.5, -3.0, 1.0, 0.5],
                     [0.0, -2.5, 0.5, -1.0]]) == [3]
    # pass 2 goes on after a removal (two removals here), and restarts its scan on the smaller set
    assert _witness([[2.0, -1.0, 1.0, 1.5, 1.5, -1.5], [-1.0, 3.0, 0.0, 0.0, 2.0, -2.5], [1.0, 0.0, 3.0, -0.5, 0.0, -3.0],
                     [1.5, 0.0, -0.5, 0.0, 1.5, -0.5], [1.5, 2.0, 0.0, 1.5, 3.0, 0.5],
                     [-1.5, -2.5, -3.0, -0.5, 0.5, 4.0]]) == [3, 4]
    assert _witness([[3.0, -1.0, -1.0, 0.5, -2.0, 2.0], [-1.0, 2.0, 2.0, -1.5, 1.0, -2.5], [-1.0, 2.0, 1.0, 0.0, -1.5, -1.5],
                     [0.5, -1.5, 0.0, 0.0, 0.5, 0.5], [-2.0, 1.0, -1.5, 0.5, 3.0, -1.5],
                     [2.0, -2.5, -1.5, 0.5, -1.5, 0.0]]) == [1, 3]
    # the shortest indefinite prefix is 3 of 4 points: shrinking it (not the full set) gives {1, 3, 4}
    assert _witness([[4.0, -1.5, -1.0, -2.0], [-1.5, 4.0, 1.0, 2.0], [-1.0, 1.0, 3.0, -1.5],
                     [-2.0, 2.0, -1.5, 1.0]]) == [0, 2, 3]


def test_a_witness_must_be_clearly_indefinite_not_just_at_the_threshold():
    """A set whose eigenvalue is exactly -clear does not qualify; the whole set (more negative) does."""
    K = np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 1.5], [0.0, 1.5, 1.0]])
    pair = float(np.linalg.eigvalsh(0.5 * (K[:2, :2] + K[:2, :2].T))[0])  # as the search computes it
    full = float(np.linalg.eigvalsh(K)[0])
    assert full < pair < 0
    w, V = np.linalg.eigh(K)
    got = shrink_witness(K, V[:, 0], -pair, lambda sub: 0.0)
    assert got != [0, 1] and len(got) == 3, got
    assert shrink_witness(K, V[:, 0], -pair * 0.999, lambda sub: 0.0) in ([0, 1], [1, 2])  # just inside: a pair



def _binary_kernel(off):
    """1 on equal rows, else 1/2 + off(x, y) (values exact in binary)."""
    def k(X, Y):
        same = (np.abs(X[:, None, :] - Y[None, :, :]).sum(-1) == 0)
        return np.where(same, 1.0, 0.5 + off(X, Y))
    return k


@pytest.mark.parametrize("eta,status", [(2.0 ** -10, "pass"), (2.0 ** -10 / 1.5, "fail")])
def test_symmetry_fails_strictly_above_one_tolerance(monkeypatch, eta, status):
    """|k(x, y) - k(y, x)| = 2^-10 exactly and max|K| = 1: at a tolerance of 2^-10 (ratio 1) symmetric, at 1.5 times
    less (ratio 1.5) not."""
    monkeypatch.setattr(kp, "evaluation_tolerance", lambda *a: eta)
    k = _binary_kernel(lambda X, Y: 2.0 ** -10 * (X[:, None, 0] > Y[None, :, 0]))
    r = _one(k, "kernel-symmetry")
    assert r.status == status and r.details["worst_ratio"] == pytest.approx(2.0 ** -10 / eta), r.message


@pytest.mark.parametrize("eta,status", [(2.0 ** -10, "pass"), (2.0 ** -10 / 1.5, "fail")])
def test_normalisation_fails_strictly_above_one_tolerance(monkeypatch, eta, status):
    monkeypatch.setattr(kp, "evaluation_tolerance", lambda *a: eta)

    def k(X, Y):
        same = (np.abs(X[:, None, :] - Y[None, :, :]).sum(-1) == 0)
        return np.where(same, 1.0 + 2.0 ** -10, 0.25)

    r = _one(k, "kernel-normalisation", normalized=True)
    assert r.status == status, r.message
    # a point exactly at the tolerance is not off; at 1.5 tolerances every point is
    assert r.details["off"] == (0 if status == "pass" else r.details["points"]), r.details
    if status == "fail":  # every point ties: the worst is the first point of the first set
        assert "(point set 0 (" in r.message and r.message.endswith(f"; {r.details['points']} of "
                                                                    f"{r.details['points']} points off"), r.message


def asymmetric_overflow(X, Y):
    """Finite except beyond 5 length scales, where K(X, Y) overflows when X's first point leads Y's in its first
    coordinate: K(X, Y) or K(Y, X), one of the two blocks, never K(X, X)."""
    big = np.abs(X).max() > 5 or np.abs(Y).max() > 5
    return np.full((len(X), len(Y)), np.inf) if big and X[0, 0] > Y[0, 0] else M.rbf(X, Y)


def hot_asymmetric(X, Y):
    """Asymmetric everywhere, and overflowing (both ways) beyond 5 length scales."""
    big = np.abs(X).max() > 5 or np.abs(Y).max() > 5
    return np.full((len(X), len(Y)), np.inf) if big else M.asymmetric_rbf(X, Y)


def test_overflow_of_one_block_skips_the_set_and_asymmetric_sets_are_counted_without_it():
    r = _one(asymmetric_overflow, "kernel-symmetry")
    assert r.status == "pass" and r.message.endswith(f"; skipped set 2: {OVERFLOW}"), r.message
    bad = _one(hot_asymmetric, "kernel-symmetry")
    assert bad.status == "fail" and bad.message.endswith("; 2 of 3 point sets asymmetric"), bad.message


def test_the_xfail_threshold_and_the_normalisation_skip():
    x = _one(M.tanh_kernel, "kernel-psd", psd=False)
    assert x.status == "xfail" and x.threshold < 0 and x.statistic < x.threshold
    skip = _one(M.rbf, "kernel-normalisation")
    assert (skip.status, skip.message) == ("skip", "k(x, x) = 1 is not claimed (registry: not normalised; claim it "
                                                   "with normalized=True / --normalized)")


def zero_kernel(X, Y):
    return np.zeros((len(X), len(Y)))


def test_the_zero_kernel_is_psd_and_the_asymmetric_count_is_strict(monkeypatch):
    z = _one(zero_kernel, "kernel-psd")
    assert z.status == "pass" and z.message.startswith("6 Gram matrices (n = 8..48) positive semi-definite"), z.message
    monkeypatch.setattr(kp, "evaluation_tolerance", lambda *a: 2.0 ** -10)
    # |k(x, y) - k(y, x)| = 2^-9 on the 8-point set (2 tolerances), exactly 2^-10 (one tolerance: round-off) elsewhere
    k = _binary_kernel(lambda X, Y: (2.0 ** -9 if len(X) + len(Y) <= 8 else 2.0 ** -10)
                       * (X[:, None, 0] > Y[None, :, 0]))
    r = _one(k, "kernel-symmetry")
    assert r.status == "fail" and r.message.endswith("; 1 of 3 point sets asymmetric"), r.message


def identity_kernel(X, Y, c=1.0):
    """c on equal rows, else 0: every Gram matrix is c I, whose eigenvalues eigh returns exactly."""
    return c * (np.abs(X[:, None, :] - Y[None, :, :]).sum(-1) == 0).astype(float)


@pytest.mark.parametrize("tol,status", [(1.0, "pass"), (0.5, "fail")])
def test_psd_fails_strictly_below_minus_the_tolerance(monkeypatch, tol, status):
    """K = -I: lambda_min = -1 exactly.  At a tolerance of 1 that is on the bound (>= -tol: round-off), at 1/2
    beyond it."""
    monkeypatch.setattr(kp, "psd_tolerance", lambda *a: tol)
    r = _one(lambda X, Y: identity_kernel(X, Y, -1.0), "kernel-psd")
    assert r.status == status, r.message
    assert all(s["lambda_min"] == -1.0 for s in r.details["sets"])


def test_psd_closest_to_the_bound_is_relative_to_each_sets_tolerance(monkeypatch):
    """K = I on every set (lambda_min = 1) and a tolerance of n: the closest to the bound relative to its
    tolerance is the largest set's, 1/48 (relative to 1/8 on the smallest)."""
    monkeypatch.setattr(kp, "psd_tolerance", lambda n, *a: float(n))
    r = _one(identity_kernel, "kernel-psd")
    rows = r.details["sets"]
    big = max(s["n"] for s in rows)
    first_big = next(s for s in rows if s["n"] == big)
    assert big == 48 and min(s["n"] for s in rows) == 8
    assert r.status == "pass" and (r.statistic, r.threshold) == (1.0, -48.0), r.message
    assert r.message.endswith(f"closest to the bound: smallest eigenvalue 1 >= -48 (set {first_big['set']})"), r.message


def test_an_eigensolver_failure_skips_only_its_set(monkeypatch):
    """A LinAlgError on the first set's eigenproblem skips that set (named like an overflow) and the others are
    still judged."""
    eigh = np.linalg.eigh
    calls = []  # in the process that runs the check (a forked child under isolation)

    def flaky(A, *a, **kw):
        calls.append(len(A))
        if len(calls) == 1:
            raise np.linalg.LinAlgError("Eigenvalues did not converge")
        return eigh(A, *a, **kw)

    monkeypatch.setattr(kp.np.linalg, "eigh", flaky)
    r = _one(M.rbf, "kernel-psd")
    assert r.status == "pass" and r.message.startswith("5 Gram matrices (n = "), r.message
    assert r.message.endswith(f"; skipped set 0: {OVERFLOW}"), r.message
    first = r.details["sets"][0]
    assert first == {"set": 0, "family": "iid", "n": 8, "scale": first["scale"], "overflow": True}
    assert [s["set"] for s in r.details["sets"]] == list(range(6))

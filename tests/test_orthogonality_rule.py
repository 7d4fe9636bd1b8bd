"""The orthogonality check's decision rule pinned with stubbed samplers of known error (mutation testing
of properties/orthogonality.py).  Deterministic: no alpha, no false alarms; each sampler returns one fixed matrix.

Q = I with Q[0, 1] = a has Q^T Q - I and Q Q^T - I both with largest entry exactly a (the off-diagonal a; the
diagonal 1 + a^2 rounds to 1 for a ~ 1e-14), so the check's error is exactly a: a = tol passes, the next float
above fails.
"""

from __future__ import annotations

import numpy as np
import pytest

from rfverify.kinds import checks_for, statistical_count
from rfverify.kinds.orthogonal import verify_orthogonal
from rfverify.tolerances import orthogonality_tolerance

D = 4


def _fixed(q):
    return lambda d, rng: q.copy()


def _off_diagonal(a, dtype=np.float64):
    q = np.eye(D, dtype=dtype)
    q[0, 1] = a
    return q


def _run(q):
    return verify_orthogonal(_fixed(q), dim=D, checks=["orthogonality"])["orthogonality"]


def test_error_equal_to_the_tolerance_passes_and_one_ulp_above_fails():
    """Kills: ``worst[t] > tol`` -> ``>=`` (and the tolerance computed at another d or dtype)."""
    tol = orthogonality_tolerance(D, np.dtype(np.float64))
    at = _run(_off_diagonal(tol))
    assert at.status == "pass", at.message
    assert at.statistic == tol and at.threshold == tol
    assert at.details["max_QtQ_minus_I"] == [tol] * at.details["draws"]
    assert at.details["max_QQt_minus_I"] == [tol] * at.details["draws"]
    above = _run(_off_diagonal(np.nextafter(tol, 1.0)))
    assert above.status == "fail", above.message
    assert above.statistic == np.nextafter(tol, 1.0) and above.threshold == tol


def test_failure_names_the_product_the_draw_and_the_count():
    """Q^T Q and Q Q^T equally wrong: the message names Q^T Q (ties go to Q^T Q); every draw exceeds.

    Kills: ``errs_c[t] >= errs_r[t]`` -> ``>``, the product names swapped, the count of exceeding draws.
    """
    res = _run(_off_diagonal(1e-6))
    draws, tol = res.details["draws"], res.threshold
    assert res.status == "fail"
    assert res.message == (f"not orthogonal — observed: max|Q^T Q - I| = 1e-06; expected: <= {tol:.3g} (round-off "
                           f"tolerance, d={D}, float64); where: draw 0; {draws} of {draws} draws exceed it"), res.message
    assert res.details["dtype"] == "float64" and res.details["tolerance"] == tol


def test_draws_at_the_tolerance_do_not_count_as_exceeding_it():
    """Half the draws exactly at the tolerance (they pass), the rest far above: only those above are counted.

    Kills: ``np.sum(worst > tol)`` -> ``>=`` in the count the message gives.
    """
    tol = orthogonality_tolerance(D, np.dtype(np.float64))
    mixed = lambda d, rng: _off_diagonal(tol if rng.integers(2) else 1e-6)  # noqa: E731
    res = verify_orthogonal(mixed, dim=D, checks=["orthogonality"])["orthogonality"]
    errs = res.details["max_QtQ_minus_I"]
    above = sum(e > tol for e in errs)
    assert 0 < above < len(errs) and sorted(set(errs)) == [tol, 1e-6]
    assert res.status == "fail" and f"; {above} of {len(errs)} draws exceed it" in res.message, res.message


def test_rows_of_unit_norm_that_are_not_orthogonal_get_the_hint():
    """Unit-norm rows, far from orthogonal: the likely cause says "normalised, not orthogonalised"; a scaled
    identity (rows not of unit norm) and a matrix barely over the tolerance (error <= 1e-3) do not get it.

    Kills: the hint's conditions (``np.allclose(norms, 1.0, ...)``, ``errs_c[t] > 1e-3``), its text, a non-empty
    default hint, and the name of the Q Q^T product.
    """
    q = np.eye(D)
    q[1, :2] = [0.6, 0.8]  # rows 0 and 1 have unit norm, inner product 0.6
    hint = "rows have unit norm but are not mutually orthogonal: normalised, not orthogonalised?"
    unit_rows = _run(q).message  # rows orthogonal to 0.6, columns to 0.48: Q Q^T is the worse product
    assert "max|Q Q^T - I| = 0.6;" in unit_rows and f"likely cause: {hint}" in unit_rows, unit_rows
    scaled = _run(2.0 * np.eye(D)).message
    assert "max|Q^T Q - I| = 3;" in scaled and "likely cause" not in scaled, scaled  # no hint: no cause at all
    for a in (5e-4, 1e-3):  # rows of norm ~1 (within allclose's rtol 1e-5), error exactly a <= 1e-3: no hint
        small = _run(_off_diagonal(a))
        assert small.status == "fail" and small.statistic == a and hint not in small.message, small.message
    for s, hinted in ((1.01e-3, True), (0.99e-3, False)):  # unit rows, error s sqrt(1 - s^2): either side of 1e-3
        q2 = np.eye(D)
        q2[1, :2] = [s, np.sqrt(1.0 - s * s)]
        res = _run(q2)
        assert res.status == "fail" and (hint in res.message) is hinted, (s, res.message)


def test_pass_message_and_float32_judged_at_float32():
    """A float32 matrix with a float32-sized error passes at float32's tolerance and the message says so.

    Kills: the dtype dropped from the tolerance (a float32 sampler judged at float64 fails).
    """
    tol32 = orthogonality_tolerance(D, np.dtype(np.float32))
    q = _off_diagonal(np.float32(tol32 / 2), np.float32)
    res = _run(q)
    assert res.status == "pass", res.message
    assert res.threshold == tol32 and res.details["dtype"] == "float32"
    assert res.message == (f"{res.details['draws']} draws orthogonal to {res.statistic:.2g} (tolerance {tol32:.2g}, "
                           "float32)"), res.message


def test_orthogonality_is_a_deterministic_check():
    """It takes no share of the kind's alpha.  Kills: ``statistical=False`` -> ``True`` (the alpha split)."""
    spec = next(s for s in checks_for("orthogonal") if s.name == "orthogonality")
    assert spec.statistical is False
    assert "orthogonality" not in [s.name for s in checks_for("orthogonal") if s.statistical]
    assert statistical_count("orthogonal") == sum(s.statistical for s in checks_for("orthogonal"))


@pytest.mark.parametrize("bad", [np.eye(D)[::-1] * 1.0, -np.eye(D)])
def test_exact_orthogonal_matrices_pass_with_zero_error(bad):
    res = _run(bad)
    assert res.status == "pass" and res.statistic == 0.0


def test_draws_come_from_the_orthogonality_stream_of_the_root_seed():
    """Draw t of the check is the sampler called with the generator keyed (orthogonal, orthogonality, d, group, t).

    Kills: the stream name or the first trial index changed (the draws, and every committed report, would move).
    """
    from rfverify.seeding import DEFAULT_SEED, SeedSource

    src = SeedSource(DEFAULT_SEED)
    n = 64  # more than any profile's ortho_draws
    want = {int(src.rng("orthogonal", "orthogonality", D, "O", trial=t).integers(2**62)) for t in range(n)}
    preflight = int(src.rng("orthogonal", "preflight", D, "O").integers(2**62))

    def keyed(d, rng):  # orthogonal only when called with one of the expected generators (the check may run in a
        x = int(rng.integers(2**62))  # supervised child: the verdict, not a side effect, carries the evidence)
        return np.eye(d) if x in want or x == preflight else 2.0 * np.eye(d)

    res = verify_orthogonal(keyed, dim=D, checks=["orthogonality"])["orthogonality"]
    assert res.status == "pass", res.message

"""The committed values behind the claims: every stored high-precision (mpmath) value recomputed bit for bit, the
float64 Chebyshev table to round-off, the table
complete for the claims (no silent fallback to the slow path), and the Fig. 1 study re-run (slow)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from mpmath import mp

from rfverify.highprec import tables
from rfverify.highprec.tables import FUNCTIONS, TABLE_PATH, table_key

ALL_KEYS = sorted(json.loads(TABLE_PATH.read_text(encoding="utf-8"))["values"])


def _slow(key: str) -> bool:
    """Nested tanh-sinh (30 s to minutes) and the order-8 Mehler coefficients beyond q = 4 (5-9 s each under load)
    run with ``-m slow``; the default run recomputes every other stored value (one of each function, q = 1..4)."""
    if key.startswith("expected_min_max_product"):
        return True
    if key.startswith("kappa_coefficients("):
        q, imax, _ = (int(a) for a in key[len("kappa_coefficients("):-1].split(", "))
        return imax == 8 and q >= 5
    return False


SLOW_KEYS = {k for k in ALL_KEYS if _slow(k)}


def _stored() -> dict:
    return json.loads(TABLE_PATH.read_text(encoding="utf-8"))


def test_table_has_provenance_and_exactly_the_claims_keys():
    from rfverify.studies.claims.mroueh import TABLE_KEYS

    doc = _stored()
    prov = doc["provenance"]
    assert prov["generator"] == "rfverify.studies.claims.mroueh.write_value_table"
    assert prov["mpmath"] and "bit for bit" in prov["check"]
    assert set(doc["values"]) == {table_key(n, *a) for n, a in TABLE_KEYS}


def _recompute(key: str) -> None:
    name, args = key.split("(", 1)
    ints = tuple(int(a) for a in args.rstrip(")").split(", "))
    fresh = tables._encode(FUNCTIONS[name](*ints))
    assert fresh == _stored()["values"][key], f"{key}: the committed value differs from a fresh mpmath computation"


@pytest.mark.parametrize("key", [k for k in ALL_KEYS if k not in SLOW_KEYS])
def test_stored_value_recomputes_bit_for_bit(key):
    _recompute(key)


@pytest.mark.slow
@pytest.mark.parametrize("key", sorted(SLOW_KEYS))
def test_slow_stored_value_recomputes_bit_for_bit(key):
    _recompute(key)


def test_decode_is_exact_and_recompute_switch(monkeypatch):
    with mp.workdps(45):
        x = mp.mpf(1) / 3
        assert tables._decode(tables._encode(x)) == x and tables._decode(tables._encode((x, -x))) == (x, -x)
    calls = []
    monkeypatch.setitem(FUNCTIONS, "sigma2", lambda *a: calls.append(a) or mp.mpf(7))
    key = table_key("sigma2", 4, 30)
    assert key in _stored()["values"]
    assert tables.value("sigma2", 4, 30) != 7 and calls == []  # read from the table
    tables.set_recompute(True)
    try:
        assert tables.value("sigma2", 4, 30) == 7 and calls == [(4, 30)]  # the slow path when asked
    finally:
        tables.set_recompute(False)


def test_mroueh_claims_never_miss_the_table():
    from rfverify.studies.claims import evaluate_claims

    tables.MISSES.clear()
    evaluate_claims(["mroueh"])
    assert not tables.MISSES, f"values computed instead of read: {sorted(tables.MISSES)}"


@pytest.mark.slow
def test_fig1_committed_run_recomputes():
    from rfverify.studies.claims.alber2017_adapted import FIG1_CACHE, fig1_study

    doc = json.loads(FIG1_CACHE.read_text(encoding="utf-8"))
    fresh = fig1_study()
    for k, v in doc["results"].items():
        np.testing.assert_allclose(fresh[k], np.array(v), rtol=1e-9, err_msg=f"Fig. 1 study: {k} changed")


def _check_chebyshev(q: int) -> None:
    from rfverify.highprec import maxout
    from rfverify.highprec.tables import CHEBYSHEV_PATH

    stored = json.loads(CHEBYSHEV_PATH.read_text(encoding="utf-8"))["coefficients"][str(q)]
    maxout._chebyshev_tables.cache_clear()
    ck, cK = maxout._chebyshev_tables(q)
    # The fit runs in float64 through np.cos and LAPACK, whose last bits depend on the CPU's code path
    # (AVX2 vs AVX-512: 1e-15 measured); the 64 coefficients may each move by CHEB_ROUNDOFF, so a value
    # moves by at most 64 * CHEB_ROUNDOFF = 9e-13, far inside the table's 1e-10 error budget.
    for name, fresh, committed in (("kappa", ck, stored["kappa"]), ("kernel", cK, stored["kernel"])):
        worst = float(np.max(np.abs(np.asarray(fresh) - np.asarray(committed))))
        assert len(fresh) == len(committed) and worst <= CHEB_ROUNDOFF, \
            f"q = {q}: the committed Chebyshev coefficients of {name} differ from a fresh computation by {worst:.3g}"


#: Allowed change of one Chebyshev coefficient between CPUs (64 ulp of the largest, which is <= 1).
CHEB_ROUNDOFF = 64 * float(np.finfo(np.float64).eps)


@pytest.mark.parametrize("q", [1, 2, 3, 4])
def test_chebyshev_table_recomputes_to_roundoff(q):
    _check_chebyshev(q)


@pytest.mark.slow
@pytest.mark.parametrize("q", range(5, 17))
def test_chebyshev_table_recomputes_to_roundoff_all_q(q):
    _check_chebyshev(q)


def test_tabulated_kernels_equal_the_library():
    from rfverify.highprec import maxout

    th = np.linspace(0, np.pi, 7)
    for q in (2, 3):  # bit for bit on the CPU that recorded the table; 64 coefficients' round-off elsewhere
        np.testing.assert_allclose(tables.kappa_of_angle(th, q), maxout.kappa_of_angle(th, q), rtol=0,
                                   atol=64 * CHEB_ROUNDOFF)
        np.testing.assert_allclose(tables.kernel_of_angle(th, q), maxout.kernel_of_angle(th, q), rtol=0,
                                   atol=64 * CHEB_ROUNDOFF)

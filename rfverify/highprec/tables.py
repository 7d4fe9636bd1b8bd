"""Committed high-precision values: the mpmath numbers that never change, read from a table instead of recomputed.

The published-claims table quotes values of :mod:`rfverify.highprec.maxout` at 45 and 30 digits
(``kappa_coefficients``, ``hermite_moments``, ``sigma2``, ``expected_max``...).  They take tens of seconds
to compute and never change, so :func:`value` reads them from ``data/maxout_values.json``, which stores
each value *exactly* (the binary mantissa and exponent of the mpmath number, so a value read back is
bit-identical to the value computed) with its provenance (generating function, mpmath version,
precisions).  The slow path stays: :func:`set_recompute` (``rfverify claims --recompute``) computes
every value afresh, and ``tests/test_claims_table.py`` recomputes every stored value and compares bit
for bit.  A key missing from the table is computed and remembered in :data:`MISSES` (a test keeps the
set empty).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

import mpmath
import numpy as np
from mpmath import mp
from numpy.polynomial import chebyshev as _cheb
from mpmath.libmp import from_man_exp

from rfverify.highprec import maxout

__all__ = ["TABLE_PATH", "FUNCTIONS", "value", "set_recompute", "recompute_enabled", "table_key", "build_table",
           "write_table", "MISSES", "CHEBYSHEV_PATH", "chebyshev_coefficients", "kappa_of_angle", "kernel_of_angle",
           "write_chebyshev_table"]

TABLE_PATH = Path(__file__).with_name("data") / "maxout_values.json"

#: The functions whose values may be tabulated (all pure, all of integer arguments).
FUNCTIONS = {name: getattr(maxout, name) for name in (
    "kappa_coefficients", "hermite_moments", "sigma2", "expected_max", "expected_max_square",
    "kernel_coefficients", "expected_min_max_product")}

#: Keys asked for but absent from the committed table (computed instead).
MISSES: set[str] = set()
_STATE = {"recompute": False}


def set_recompute(flag: bool) -> None:
    """``True``: compute every value with mpmath (the slow path), ignoring the committed table."""
    _STATE["recompute"] = bool(flag)


def recompute_enabled() -> bool:
    return _STATE["recompute"]


def table_key(name: str, *args: int) -> str:
    if name not in FUNCTIONS:
        raise ValueError(f"{name} is not a tabulated function; tabulated: {', '.join(FUNCTIONS)}")
    return f"{name}({', '.join(str(int(a)) for a in args)})"


def _encode(v: Any) -> Any:
    """An mpf as ``[signed mantissa (decimal string), binary exponent]``: exact (``mpf.man_exp`` drops the sign)."""
    if isinstance(v, (tuple, list)):
        return [_encode(x) for x in v]
    sign, man, exp, _ = (v if isinstance(v, mpmath.mpf) else mp.mpf(v))._mpf_
    return [str(-int(man) if sign else int(man)), int(exp)]


def _decode(v: Any) -> Any:
    if isinstance(v[0], list):
        return tuple(_decode(x) for x in v)
    return mp.make_mpf(from_man_exp(int(v[0]), int(v[1])))


@lru_cache(maxsize=1)
def _table() -> dict[str, Any]:
    if not TABLE_PATH.exists():
        return {}
    return json.loads(TABLE_PATH.read_text(encoding="utf-8"))["values"]


def value(name: str, *args: int) -> Any:
    """``FUNCTIONS[name](*args)``, from the committed table unless recomputing (bit-identical either way)."""
    key = table_key(name, *args)
    if not _STATE["recompute"]:
        stored = _table().get(key)
        if stored is not None:
            return _decode(stored)
        MISSES.add(key)
    return FUNCTIONS[name](*args)


def build_table(keys: Iterable[tuple[str, tuple[int, ...]]], generator: str) -> dict[str, Any]:
    """Compute every ``(name, args)`` with mpmath and return the table document (provenance + values)."""
    values = {}
    for name, args in sorted(set((n, tuple(int(a) for a in a_)) for n, a_ in keys)):
        values[table_key(name, *args)] = _encode(FUNCTIONS[name](*args))
    return {
        "provenance": {
            "generator": generator,
            "functions": "rfverify.highprec.maxout." + "/".join(sorted({n for n, _ in keys})),
            "mpmath": mpmath.__version__,
            "precision": f"the last argument of each key is the working precision in decimal digits "
                         f"(reference {maxout.REFERENCE_DPS}, check {maxout.CHECK_DPS}); values stored exactly "
                         "as [signed mantissa, binary exponent]",
            "check": "tests/test_claims_table.py recomputes every value and compares bit for bit",
        },
        "values": values,
    }


def write_table(keys: Iterable[tuple[str, tuple[int, ...]]], generator: str, path: Path | None = None) -> Path:
    path = TABLE_PATH if path is None else Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = build_table(list(keys), generator)
    path.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    _table.cache_clear()
    return path


# ----------------------------------------------------------------------------------------------------------------
# The numpy kernel tables (Chebyshev coefficients of kappa_q and K_q, q = 1..Q_MAX): 2-D quadrature, ~0.5 s per q.
# ----------------------------------------------------------------------------------------------------------------

CHEBYSHEV_PATH = Path(__file__).with_name("data") / "maxout_chebyshev.json"


@lru_cache(maxsize=1)
def _chebyshev_table() -> dict[str, Any]:
    if not CHEBYSHEV_PATH.exists():
        return {}
    return json.loads(CHEBYSHEV_PATH.read_text(encoding="utf-8"))["coefficients"]


def chebyshev_coefficients(q: int) -> tuple[Any, Any]:
    """``(c_kappa, c_kernel)`` of :func:`rfverify.highprec.maxout.kappa_of_angle` / ``kernel_of_angle`` for ``q``:
    from the committed table (exact float64) unless recomputing."""
    q = maxout._check_q(q)
    stored = None if _STATE["recompute"] else _chebyshev_table().get(str(q))
    if stored is None:
        if not _STATE["recompute"]:
            MISSES.add(f"chebyshev({q})")
        return maxout._chebyshev_tables(q)
    return np.array(stored["kappa"]), np.array(stored["kernel"])


def kappa_of_angle(theta: Any, q: int) -> Any:
    """Same values as :func:`rfverify.highprec.maxout.kappa_of_angle`, from the committed table.

    Bit for bit on the CPU that recorded the table; to 1e-12 on others (their float64 fit rounds differently).
    """
    t = maxout._check_theta(theta)
    return _cheb.chebval(2 * t / np.pi - 1, chebyshev_coefficients(q)[0])


def kernel_of_angle(theta: Any, q: int) -> Any:
    """Same values as :func:`rfverify.highprec.maxout.kernel_of_angle`, from the committed table.

    Bit for bit on the CPU that recorded the table; to 1e-12 on others (their float64 fit rounds differently).
    """
    t = maxout._check_theta(theta)
    return _cheb.chebval(2 * t / np.pi - 1, chebyshev_coefficients(q)[1])


def write_chebyshev_table(generator: str, path: Path | None = None) -> Path:
    path = CHEBYSHEV_PATH if path is None else Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    coeffs = {}
    for q in range(1, maxout.Q_MAX + 1):
        ck, cK = maxout._chebyshev_tables(q)
        coeffs[str(q)] = {"kappa": [float(x) for x in ck], "kernel": [float(x) for x in cK]}
    doc = {"provenance": {"generator": generator, "source": "rfverify.highprec.maxout._chebyshev_tables",
                          "values": "float64, exact (JSON repr round-trips)",
                          "check": "tests/test_claims_table.py recomputes every coefficient and compares to 64 ulp "
                                   "(CPU code paths differ in the last bit)"},
           "coefficients": coeffs}
    path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    _chebyshev_table.cache_clear()
    return path

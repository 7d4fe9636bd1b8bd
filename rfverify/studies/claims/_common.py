"""Helpers shared by the claim modules: a 99.9% normal interval, a fixed design of input pairs, and random butterfly
matrices (munkhoeva2018)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Callable

import numpy as np
from scipy import stats

if TYPE_CHECKING:
    from rfverify.studies.claims import ClaimSpec
    from rfverify.studies.claims.verdicts import Finding

    #: A claim function: ``() -> (evidence, finding)``.
    ClaimFn = Callable[[], tuple[str, Finding]]

_Z = float(stats.norm.isf(0.0005))  # 99.9% two-sided


def _ci(samples: np.ndarray) -> tuple[float, float]:
    return float(np.mean(samples)), float(_Z * np.std(samples, ddof=1) / math.sqrt(len(samples)))


def _pairs(rng: np.random.Generator, d: int = 8) -> tuple[np.ndarray, np.ndarray]:
    X = rng.standard_normal((3, d))
    Y = np.array([0.9, 0.3, -0.5])[:, None] * X + rng.standard_normal((3, d))
    X *= np.array([2.0, 0.5, 1.0])[:, None] / np.linalg.norm(X, axis=1, keepdims=True)
    Y *= np.array([3.0, 1.5, 0.7])[:, None] / np.linalg.norm(Y, axis=1, keepdims=True)
    return X, Y


def claim_list(source: str) -> tuple[list[ClaimSpec], Callable[..., Callable[[ClaimFn], ClaimFn]]]:
    """``(CLAIMS, claim)``: the module's claim list and a decorator registering a claim function in it.

    ``@claim(local_id, location, statement, method, notation=..., audit=...)`` on a function returning
    ``(evidence, Finding)``; the claim id is ``f"{source}-{local_id}"`` (paper-section-eq).  ``notation``: the
    reading of every symbol the verdict depends on, as ``(symbols, meaning, where the paper defines it)`` triples,
    for a statement whose notation the paper settles (one reading each); ``audit``: the outcome of re-checking the
    row against the notation rule of :mod:`.verdicts`.  A claim whose notation admits several readings computes
    its :class:`~.verdicts.Reading` s itself and returns them in its finding.  ``heavy``: a claim that takes more
    than a few seconds (a training run); evaluated only with ``--heavy`` or when selected by its id.
    """
    from rfverify.studies.claims import ClaimSpec

    specs: list[ClaimSpec] = []

    def claim(local_id: str, location: str, statement: str, method: str,
              notation: tuple[tuple[str, str, str], ...] = (), audit: str | None = None,
              heavy: bool = False) -> Callable[[ClaimFn], ClaimFn]:
        def wrap(fn: ClaimFn) -> ClaimFn:
            cid = f"{source}-{local_id}"
            if any(s.id == cid for s in specs):
                raise ValueError(f"duplicate claim id {cid}")
            specs.append(ClaimSpec(cid, source, location, statement, method, fn, notation=tuple(notation),
                                   audit=audit, heavy=heavy))
            return fn
        return wrap

    return specs, claim


def level(alpha: float) -> str:
    """An interval level as a reader writes it: 1e-3 -> '99.9%'."""
    return f"{100 * (1 - alpha):.10g}%"


def _butterflies(d: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """n random butterfly matrices (Genz 1998, munkhoeva2018 §2.4, uniform angles), vectorised:
    B^(2m) = diag(B_1^(m), B_2^(m)) [[c I, -s I], [s I, c I]], B^(1) = [1]
    (the law of :class:`rfverify.implementations.structured.Butterfly`)."""
    if d == 1:
        return np.ones((n, 1, 1))
    m = d // 2
    b1, b2 = _butterflies(m, n, rng), _butterflies(m, n, rng)
    t = rng.uniform(0, 2 * np.pi, n)
    c, s = np.cos(t)[:, None, None], np.sin(t)[:, None, None]
    eye = np.eye(m)[None]
    top = np.block([[c * eye, -s * eye], [s * eye, c * eye]])
    out = np.zeros((n, d, d))
    out[:, :m, :] = b1 @ top[:, :m, :]
    out[:, m:, :] = b2 @ top[:, m:, :]
    return out

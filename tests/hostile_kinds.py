"""Plug-ins of the sampler, rule, transform and kernel kinds, each biased one with its correct twin
(tests/test_judge_kinds.py); :mod:`tests.hostile_kinds_import` serves them from a module that patches the judge at
import."""

from __future__ import annotations

import numpy as np


def biased_sampler(d, rng):
    """Claimed Haar on O(d), always in SO(d): the determinant is +1 in every draw (haar-determinant fails)."""
    from rfverify.implementations.orthogonal import haar_qr

    Q = haar_qr(d, rng)
    if np.linalg.det(Q) < 0:
        Q[:, 0] = -Q[:, 0]
    return Q


def haar_sampler(d, rng):
    """The correct twin: Haar on O(d)."""
    from rfverify.implementations.orthogonal import haar_qr

    return haar_qr(d, rng)


def biased_rule(d, rng):
    """SR33 with every weight times 0.8: estimates 0.8 E f (rule-unbiasedness fails)."""
    from rfverify.implementations.quadrature import sr33_haar

    P, w = sr33_haar(d, rng)
    return P, 0.8 * np.asarray(w)


def sr33_rule(d, rng):
    """The correct twin: SR33."""
    from rfverify.implementations.quadrature import sr33_haar

    return sr33_haar(d, rng)


def biased_transform(X):
    """The Walsh-Hadamard transform times 1.01 (transform-exactness fails)."""
    from rfverify.implementations.structured import fwht

    return 1.01 * np.asarray(fwht(np.array(X, copy=True)))


def hadamard_transform(X):
    """The correct twin: the Walsh-Hadamard transform."""
    from rfverify.implementations.structured import fwht

    return fwht(np.array(X, copy=True))


def tanh_kernel(X, Y):
    """tanh(<x, y> - 1): symmetric, not positive semi-definite (kernel-psd fails)."""
    return np.tanh(np.asarray(X) @ np.asarray(Y).T - 1.0)


def rbf_kernel(X, Y):
    """The correct twin: exp(-||x - y||^2 / 2)."""
    X, Y = np.asarray(X), np.asarray(Y)
    sq = (X * X).sum(1)[:, None] + (Y * Y).sum(1)[None, :] - 2 * X @ Y.T
    return np.exp(-0.5 * np.maximum(sq, 0.0))


class FailsAtCall:
    """A draw ``draw(d, rng)`` (SR33 by default) that raises ValueError at its ``k``-th call (counted on the
    object)."""

    def __init__(self, k, draw=None):
        self.k, self.calls, self.draw = k, 0, draw

    def __call__(self, d, rng):
        from rfverify.implementations.quadrature import sr33_haar

        self.calls += 1
        if self.calls == self.k:
            raise ValueError(f"call {self.calls} refused")
        return (self.draw or sr33_haar)(d, rng)


class RecordingGuard:
    """Stands in for an explore check's SpaceGuard: records what each refusal is set aside with, and each
    configuration accepted."""

    def __init__(self):
        self.rejected, self.accepted = [], []

    def reject(self, exc, form, *, seed, other_seed, action):
        self.rejected.append((form, seed, other_seed, action))

    def accept(self, form):
        self.accepted.append(form)

"""Deliberately broken random-orthogonal samplers (planted bugs for the Haar checks).

Each takes ``(d, rng=None)`` and returns a ``d x d`` matrix.  None of them is
Haar on the group it claims; some are not even orthogonal.
"""

from __future__ import annotations

import numpy as np


def qr_without_sign_correction(d, rng=None):
    """Orthogonal, but the law follows LAPACK's sign convention (diag R < 0 pattern), not Haar."""
    Z = np.random.default_rng(rng).standard_normal((d, d))
    return np.linalg.qr(Z)[0]


def gram_schmidt_uniform(d, rng=None):
    """Gram–Schmidt of U[0,1) entries: orthogonal, first column biased toward (1,...,1)/sqrt d."""
    A = np.random.default_rng(rng).random((d, d))
    Q = np.zeros((d, d))
    for k in range(d):
        v = A[:, k] - Q[:, :k] @ (Q[:, :k].T @ A[:, k])
        Q[:, k] = v / np.linalg.norm(v)
    return Q


def sign_corrected_qr_uniform(d, rng=None):
    """Mezzadri's correction applied to a non-rotation-invariant (uniform) matrix: not Haar."""
    A = np.random.default_rng(rng).random((d, d))
    Q, R = np.linalg.qr(A)
    return Q * np.sign(np.diagonal(R))


def random_signed_permutation(d, rng=None):
    """Orthogonal but supported on a finite subgroup (hyperoctahedral group)."""
    gen = np.random.default_rng(rng)
    P = np.eye(d)[gen.permutation(d)]
    return P * gen.choice([-1.0, 1.0], size=d)


def so_claimed_as_o(d, rng=None):
    """Haar on SO(d) while the plug-in claims O(d): det is always +1."""
    from rfverify.implementations.orthogonal import haar_qr

    return haar_qr(d, rng, group="SO")


def normalised_gaussian_rows(d, rng=None):
    """Rows have unit norm but are not orthogonalised: not orthogonal."""
    G = np.random.default_rng(rng).standard_normal((d, d))
    return G / np.linalg.norm(G, axis=1, keepdims=True)


def butterfly_uniform_angles(d, rng=None):
    """Genz butterfly with uniform angles: in SO(d) and O(d log d), but not Haar for d >= 4 (claim it SO)."""
    from rfverify.implementations.structured import Butterfly

    return Butterfly(d, rng).apply(np.eye(d), backend="numpy").T  # rows B e_i -> B (O(d^2 log d))


BROKEN_SAMPLERS = {
    "qr_without_sign_correction": qr_without_sign_correction,
    "gram_schmidt_uniform": gram_schmidt_uniform,
    "sign_corrected_qr_uniform": sign_corrected_qr_uniform,
    "random_signed_permutation": random_signed_permutation,
    "so_claimed_as_o": so_claimed_as_o,
    "normalised_gaussian_rows": normalised_gaussian_rows,
    "butterfly_uniform_angles": butterfly_uniform_angles,
}

#: The group each broken sampler claims (the butterfly honestly claims SO: its det is always +1,
#: so claiming O would be caught by the determinant alone).
CLAIMED_GROUP = {name: "O" for name in BROKEN_SAMPLERS}
CLAIMED_GROUP["butterfly_uniform_angles"] = "SO"

#: The Haar-battery checks expected to catch each one (caught = at least one of them fails).
CAUGHT_BY = {
    "qr_without_sign_correction": ("haar-entries",),
    "gram_schmidt_uniform": ("haar-entries",),
    "sign_corrected_qr_uniform": ("haar-entries",),
    "random_signed_permutation": ("haar-entries",),
    "so_claimed_as_o": ("haar-determinant",),
    "normalised_gaussian_rows": ("orthogonality",),
    "butterfly_uniform_angles": ("haar-entries", "haar-trace-moments", "haar-invariance"),
}

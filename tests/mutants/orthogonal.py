"""Orthogonal-sampler mutants: non-Haar samplers (planted in :mod:`.broken_orthogonal` and here) and
equivalent Haar samplers."""

from __future__ import annotations

import numpy as np

from rfverify.studies.calibration import Mutant
from rfverify.implementations.orthogonal import haar_householder, haar_qr

from . import broken_orthogonal as bo
from . import explore_mutants as em
from ._common import ORTH_O, ORTH_SO, _e, _m


# ================================================================== new orthogonal mutants
def householder_one_short(d, rng=None):
    """Stewart's product of Householder reflections with the last (2 x 2) reflection left out.

    ``Q = P_1 ... P_{d-2} D``: the trailing 2 x 2 block is only a random sign pattern, so
    the last two columns of Q are confined to two reflections of each other — not Haar.
    """
    gen = np.random.default_rng(rng)
    Qm = np.diag(gen.choice(np.array([-1.0, 1.0]), size=d))
    for k in range(d - 3, -1, -1):  # off by one: should start at d - 2
        u = gen.standard_normal(d - k)
        u /= np.linalg.norm(u)
        v = u.copy()
        v[0] += 1.0 if u[0] >= 0 else -1.0
        Qm[k:, :] -= np.outer(v, (2.0 / (v @ v)) * (v @ Qm[k:, :]))
    return Qm


def qr_positive_diagonal_of_q(d, rng=None):
    """QR of a Gaussian matrix "sign-corrected" with the signs of diag(Q) instead of diag(R): diag(Q) >= 0 always."""
    Qm, _ = np.linalg.qr(np.random.default_rng(rng).standard_normal((d, d)))
    return Qm * np.sign(np.diagonal(Qm))


# ================================================================== equivalent mutants
def haar_transposed(d, rng=None):
    """Q^T of a Haar matrix (a sampler returning the transpose, the 'transposed output' orientation slip).

    Proof: Q^T = Q^{-1}, and Haar measure on a compact group is invariant under inversion, so Q^T
    has exactly the law of Q (and the same group: det Q^T = det Q).
    """
    return haar_qr(d, rng).T.copy()


def haar_polar(d, rng=None):
    """Haar via the polar factor U V^T of a Gaussian Z = U S V^T (instead of QR).

    Proof: for fixed orthogonal R, R Z ~ Z and polar(R Z) = R polar(Z) (the polar factor is
    unique for invertible Z, which holds with probability 1), so the law is left-invariant,
    and the left-invariant probability on O(d) is Haar (uniqueness of Haar measure).
    """
    U, _, Vt = np.linalg.svd(np.random.default_rng(rng).standard_normal((d, d)))
    return U @ Vt


def haar_so_by_row_flip(d, rng=None):
    """Haar on SO(d) by negating the first ROW when det = -1 (the reference negates the first column).

    Proof: with R = diag(-1, 1, ..., 1), Q -> R Q maps the coset O^- onto SO(d) and preserves the
    uniform law of the coset (left invariance), exactly as Q -> Q R does.
    """
    Qm = haar_qr(d, rng)
    if np.linalg.det(Qm) < 0:
        Qm[0, :] *= -1.0
    return Qm


# ================================================================== the entries
OR = "orthogonal"
BUGS: list[Mutant] = [
    _m("qr-without-sign-correction", OR, bo.qr_without_sign_correction, ORTH_O, ["haar-entries"],
       "non-Haar samplers",
       "np.linalg.qr of a Gaussian matrix without Mezzadri's sign fix (the classic bug, e.g. old scipy "
       "recipes): LAPACK's sign convention makes Q_11 < 0 always — the entry signs are not symmetric."),
    _m("gram-schmidt-uniform", OR, bo.gram_schmidt_uniform, ORTH_O, ["haar-entries"], "distributions",
       "Gram-Schmidt of U[0, 1) entries (rand instead of randn): orthogonal, but the first column leans toward "
       "(1, ..., 1)/sqrt(d); haar-entries sees the entries' signs and squares off their Haar laws."),
    _m("sign-corrected-qr-uniform", OR, bo.sign_corrected_qr_uniform, ORTH_O, ["haar-entries"], "distributions",
       "Mezzadri's correction applied to a non-rotation-invariant (uniform) matrix: the sign fix does not make it "
       "Haar; haar-entries tests sign symmetry and the Beta(1/2, (d-1)/2) law of the squared entries."),
    _m("random-signed-permutation", OR, bo.random_signed_permutation, ORTH_O, ["haar-entries"],
       "non-Haar samplers", "signed permutation matrices (a 'random rotation' shortcut): orthogonal, but supported on a finite "
       "subgroup; every entry is 0 or +-1, far from Beta(1/2, (d-1)/2) (haar-entries)."),
    _m("so-claimed-as-o", OR, bo.so_claimed_as_o, ORTH_O, ["haar-determinant"], "non-Haar samplers",
       "Haar on SO(d) declared as O(d) (the determinant fix applied by default): det = +1 always instead of a fair "
       "sign; haar-determinant tests P(det = -1) = 1/2 with an exact binomial test."),
    _m("normalised-gaussian-rows", OR, bo.normalised_gaussian_rows, ORTH_O, ["orthogonality"], "normalisation",
       "rows normalised but never orthogonalised (the QR step forgotten): not orthogonal at all; orthogonality "
       "compares Q^T Q and Q Q^T with I to a derived round-off bound."),
    _m("butterfly-uniform-angles", OR, bo.butterfly_uniform_angles, ORTH_SO, ["haar-entries"], "non-Haar samplers",
       "Genz butterfly with uniform angles, claimed Haar on SO(d): in SO(d), O(d log d) to apply, but not Haar "
       "for d >= 4 (the entries' law differs)."),
    _m("householder-one-short", OR, householder_one_short, {"dim": 4, "group": "O"}, ["haar-entries"],
       "off-by-one stages",
       "Stewart's Householder product missing the last 2 x 2 reflection (loop from d - 3): the last two columns "
       "are fixed by the earlier reflections up to signs, not uniformly turned in their plane.  The missing "
       "factor is a 2-dimensional one, so the effect shrinks with d: judged at d = 4 (at d = 16 only the "
       "default profile's haar-entries sees it at the default seed)."),
    _m("qr-positive-diagonal-of-q", OR, qr_positive_diagonal_of_q, ORTH_O, ["haar-entries"], "non-Haar samplers",
       "'sign correction' by the signs of diag(Q) instead of diag(R): diag(Q) >= 0 always — the diagonal "
       "entries are not sign-symmetric."),
    _m("corner-rotation-2d-unnormalised", OR, em.rotation_2d_unnormalised, ORTH_O, ["explore"], "normalisation",
       (em.rotation_2d_unnormalised.__doc__ or "") + " The declared d = 16 is right; explore searches d 1 … 256 and "
       "shrinks to d = 2.", profiles=("default",)),
    _m("corner-entropy-above-128", OR, em.entropy_above_128, ORTH_O, ["explore"], "seeding",
       (em.entropy_above_128.__doc__ or "") + " explore finds d = 129: two Generators seeded alike give different "
       "matrices.", profiles=("default",)),
]
EQUIVALENT: list[Mutant] = [
    _e("haar-transposed", OR, haar_transposed, ORTH_O, "orientation", haar_transposed.__doc__),
    _e("haar-householder-for-qr", OR, haar_householder, ORTH_O, "non-Haar samplers",
       "Stewart's product of random Householder reflections instead of sign-corrected QR: both are Haar on O(d) "
       "(proof in rfverify.implementations.orthogonal.haar_householder's docstring)."),
    _e("haar-polar", OR, haar_polar, ORTH_O, "non-Haar samplers", haar_polar.__doc__),
    _e("haar-so-row-flip", OR, haar_so_by_row_flip, ORTH_SO, "orientation", haar_so_by_row_flip.__doc__),
]

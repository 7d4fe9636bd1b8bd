"""Structured-transform mutants: broken fast Walsh-Hadamard transforms (planted in
:mod:`.transform_mutants` and here) and an equivalent one."""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg import hadamard

from rfverify.studies.calibration import Mutant
from rfverify.implementations.structured import fwht

from . import explore_mutants as em
from ._common import HADAMARD, HADAMARD_N, _e, _m
from .transform_mutants import (broken_axis0, broken_mutates_input, broken_pads, broken_sequency,
                                broken_skip_last_stage, broken_wrong_axis, broken_wrong_normalisation)


# ================================================================== new transform mutants
def _hd_signs(d: int) -> np.ndarray:
    """A fixed, non-trivial ±1 diagonal (quadratic residues mod 7, no randomness)."""
    return np.where((np.arange(d) ** 2) % 7 < 4, 1.0, -1.0)


def hd_matrix(d: int) -> np.ndarray:
    """The declared matrix M = H_d D / sqrt(d) of :func:`hd_apply` (None where d is not a power of two)."""
    if d < 1 or d & (d - 1):
        return None
    return hadamard(d) * _hd_signs(d)[None, :] / math.sqrt(d)


def hd_apply(X):
    """Correct: rows M x = H D x / sqrt(d) (sign flips, then a normalised FWHT)."""
    X = np.asarray(X)
    return fwht(X * _hd_signs(X.shape[1]).astype(X.dtype), normalized=True)


def hd_apply_transposed(X):
    """Orientation bug: D H x / sqrt(d) = M^T x, i.e. X @ M instead of X @ M.T (the signs applied after the FWHT)."""
    X = np.asarray(X)
    return fwht(X, normalized=True) * _hd_signs(X.shape[1]).astype(X.dtype)


def fwht_in_float32(X):
    """Computes in float32 whatever the input (a GPU habit) and casts back: float64 inputs lose 9 digits."""
    X = np.asarray(X)
    return fwht(X.astype(np.float32)).astype(X.dtype)


def fwht_bit_length_normalisation(X):
    """Normalised FWHT dividing by 2**(d.bit_length() / 2) = sqrt(2 d): log2 d computed one too high."""
    X = np.asarray(X)
    d = X.shape[1]
    return fwht(X) / np.asarray(2.0 ** (d.bit_length() / 2), dtype=X.dtype)


class _ReusedOutputBuffer:
    """Returns a view of one preallocated output buffer per (shape, dtype): earlier results change under the caller."""

    def __init__(self) -> None:
        self._buffers: dict = {}

    def __call__(self, X):
        X = np.asarray(X)
        key = (X.shape, X.dtype.str)
        if key not in self._buffers:
            self._buffers[key] = np.empty(X.shape, dtype=fwht(X[:1]).dtype)
        out = self._buffers[key]
        out[...] = fwht(X)
        return out


#: A fresh instance per entry would also work; one module-level object is what such code looks like.
fwht_reused_buffer = _ReusedOutputBuffer()


# ================================================================== equivalent mutants
def fwht_reversed_stages(X):
    """Radix-2 FWHT with the stages in the opposite order (h = d/2, ..., 2, 1) instead of (1, 2, ..., d/2).

    Proof: H_d = H_2 (x) ... (x) H_2 and stage h applies H_2 on one bit of the index, i.e.
    I (x) H_2 (x) I; these factors act on different tensor slots and commute, so every order
    gives H_d exactly.  Round-off: each output is still a sum of the d inputs with signs over
    log2 d rounded additions, within the same inner-product bound gamma_d the check derives.
    """
    Y = np.array(X, dtype=np.result_type(np.asarray(X).dtype, np.float32))
    n, d = Y.shape
    h = d // 2
    while h >= 1:
        v = Y.reshape(n, d // (2 * h), 2, h)
        a = v[:, :, 0, :].copy()
        b = v[:, :, 1, :]
        v[:, :, 0, :] = a + b
        v[:, :, 1, :] = a - b
        h //= 2
    return Y


# ================================================================== the entries
TR = "transform"
BUGS: list[Mutant] = [
    _m("fwht-sequency-order", TR, broken_sequency, HADAMARD, ["transform-exactness"], "ordering",
       "outputs in Walsh (sequency) order, as some libraries return them, claimed natural (Sylvester) order: "
       "exactness compares with X @ H.T row by row and diagnoses permuted outputs."),
    _m("fwht-skip-last-stage", TR, broken_skip_last_stage, HADAMARD, ["transform-exactness"], "off-by-one stages",
       "butterfly loop `while h < d // 2` stops one stage early: H_{d/2} (x) I_2 instead of H_d; exactness compares "
       "with the dense definition to a round-off bound."),
    _m("fwht-wrong-axis", TR, broken_wrong_axis, {"dim": 64, "matrix": "hadamard"}, ["transform-exactness"],
       "orientation",
       "transforms along axis 0 when the batch is square (a transposed layout), else along rows: only a batch "
       "of exactly d rows shows it — the default profile's batch sizes include 64 = d, the quick profile's "
       "(1, 3, 16) do not, so quick cannot catch it.", profiles=("default",)),
    _m("fwht-axis0", TR, broken_axis0, HADAMARD, ["transform-exactness"], "orientation",
       "transforms along the batch axis (axis=0) — columns instead of rows (the layout of a column-major caller); "
       "exactness sees it at every batch size n > 1."),
    _m("fwht-double-normalisation", TR, broken_wrong_normalisation, HADAMARD_N, ["transform-exactness"],
       "normalisation", "normalised FWHT divided by sqrt(d) again: H / d instead of H / sqrt(d); exactness diagnoses the constant "
       "factor 1/sqrt(d) against the declared H / sqrt(d)."),
    _m("fwht-unnormalised-claimed-normalised", TR, fwht, HADAMARD_N, ["transform-exactness"], "normalisation",
       "the unnormalised FWHT declared as H / sqrt(d) (a wrapper that forgot normalized=True): off by a factor "
       "sqrt(d), which exactness diagnoses."),
    _m("fwht-mutates-input", TR, broken_mutates_input, HADAMARD, ["transform-input"], "input mutation",
       "transforms the caller's array in place (fwht(X, inplace=True), to save a copy) without declaring it; "
       "transform-input compares the caller's array before and after apply."),
    _m("fwht-pads-width", TR, broken_pads, HADAMARD, ["transform-dimension"], "dimension",
       "zero-pads any width to the next power of two instead of refusing it: silently a different transform; "
       "transform-dimension calls it with widths the matrix is not defined for and expects a clear refusal."),
    _m("fwht-float32", TR, fwht_in_float32, HADAMARD, ["transform-exactness"], "dtype",
       "computes in float32 whatever the input (GPU habit) and casts back: a float64 caller gets 1e-7 errors, "
       "far above the float64 round-off bound."),
    _m("fwht-bit-length-normalisation", TR, fwht_bit_length_normalisation, HADAMARD_N, ["transform-exactness"],
       "off-by-one stages",
       "normalisation 2**(d.bit_length()/2) = sqrt(2d): log2(d) taken as bit_length, one too high; exactness "
       "sees the factor 1/sqrt(2) against H / sqrt(d)."),
    _m("hd-transposed", TR, hd_apply_transposed, {"dim": 64, "matrix": hd_matrix}, ["transform-exactness"],
       "orientation",
       "computes X @ M instead of X @ M.T for M = H D / sqrt(d) (signs applied after the FWHT); invisible for "
       "the symmetric H alone, visible once a diagonal makes M non-symmetric."),
    _m("fwht-reused-output-buffer", TR, fwht_reused_buffer, HADAMARD, ["transform-linearity"], "caching",
       "returns a view of one cached output buffer per shape: each result is right when returned, but the next "
       "call of the same shape overwrites it; linearity keeps three results alive and sees them alias."),
    _m("corner-fwht-small-widths-halved", TR, em.fwht_small_widths_halved, HADAMARD, ["explore"], "normalisation",
       (em.fwht_small_widths_halved.__doc__ or "") + " The declared d = 64 is right; explore searches d = 2^0 … 2^14 "
       "and shrinks to d = 1.", profiles=("default",)),
    _m("corner-fwht-float32-f-order", TR, em.fwht_float32_f_order, HADAMARD, ["explore"], "dtype",
       (em.fwht_float32_f_order.__doc__ or "") + " explore finds a float32 Fortran-ordered batch of 2 x 2.",
       profiles=("default",)),
]
EQUIVALENT: list[Mutant] = [
    _e("fwht-reversed-stages", TR, fwht_reversed_stages, HADAMARD, "off-by-one stages", fwht_reversed_stages.__doc__),
]

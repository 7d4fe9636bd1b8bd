"""Planted stateful defects of samplers, rules and transforms, each with a correct twin (the ``stateful`` check of
the ``orthogonal``, ``quadrature`` and ``transform`` kinds).

Each is correct at a single call on a fresh process — the Haar battery, the rule and transform checks see draws
or applies that are right — and wrong only through state: a second draw, a second copy, a refilled buffer, a
distant seed.  ``SAMPLER_BUGS``, ``RULE_BUGS`` and ``TRANSFORM_BUGS`` map each mutant's name to its twin's.
"""

from __future__ import annotations

import numpy as np


def _haar(d, rng):
    Q, R = np.linalg.qr(rng.standard_normal((d, d)))
    return Q * np.sign(np.diag(R))


# -- samplers ----------------------------------------------------------------------------------------------
class SharedGeneratorSampler:
    """A generator kept in a class attribute, seeded by the first call and shared by every instance: later draws
    ignore the rng passed in, so a draw at seed s depends on what was sampled before."""

    _gen = None

    def sample(self, d, rng):
        if type(self)._gen is None:
            type(self)._gen = np.random.default_rng(int(rng.integers(2 ** 63)))
        return _haar(d, type(self)._gen)


class PerCallGeneratorSampler:
    """Twin: a child generator made from the rng passed in at every call (kept on the instance)."""

    def sample(self, d, rng):
        self._gen = np.random.default_rng(int(rng.integers(2 ** 63)))
        return _haar(d, self._gen)


def folded_seed_sampler(d, rng):
    """Re-seeds from the generator's seed folded to 16 bits: seeds s and s + 2^16 give the same matrix."""
    entropy = rng.bit_generator.seed_seq.entropy
    return _haar(d, np.random.default_rng([int(entropy) & 0xFFFF, d]))


def salted_seed_sampler(d, rng):
    """Twin: a child seed of 64 bits drawn from the generator passed in."""
    return _haar(d, np.random.default_rng([int(rng.integers(2 ** 63)), d]))


shared_generator_sampler = SharedGeneratorSampler()
per_call_generator_sampler = PerCallGeneratorSampler()


# -- rules ---------------------------------------------------------------------------------------------
class BufferRule:
    """Monte Carlo points written into a workspace kept on the object and returned: the next draw overwrites the
    points and weights the last one returned."""

    def __init__(self, n=16):
        self.n = n
        self._P = self._w = None

    def __call__(self, d, rng):
        if self._P is None or self._P.shape != (self.n, d):
            self._P, self._w = np.empty((self.n, d)), np.empty(self.n)
        self._P[...] = rng.standard_normal((self.n, d))
        self._w[...] = 1.0 / self.n
        return self._P, self._w


class CopyRule(BufferRule):
    """Twin: copies of the workspace are returned."""

    def __call__(self, d, rng):
        P, w = super().__call__(d, rng)
        return P.copy(), w.copy()


buffer_rule = BufferRule()
copy_rule = CopyRule()

_MODULE_RULE_CACHE: dict = {}


def cached_rule(d, rng):
    """A module-level cache of the points keyed by d only (the rng's first integer read but not in the key):
    every draw after the first at that d returns the first draw's points."""
    key = d
    fresh = rng.standard_normal((16, d))
    if key not in _MODULE_RULE_CACHE:
        _MODULE_RULE_CACHE[key] = fresh
    return _MODULE_RULE_CACHE[key].copy(), np.full(16, 1.0 / 16)


def uncached_rule(d, rng):
    """Twin: the points drawn from the rng at every call."""
    return rng.standard_normal((16, d)), np.full(16, 1.0 / 16)


# -- transforms ----------------------------------------------------------------------------------------
def _fwht(X):
    Y = np.array(X, dtype=np.float64)
    n, d = Y.shape
    h = 1
    while h < d:
        Y = Y.reshape(n, d // (2 * h), 2, h)
        a, b = Y[:, :, 0, :].copy(), Y[:, :, 1, :].copy()
        Y[:, :, 0, :], Y[:, :, 1, :] = a + b, a - b
        Y = Y.reshape(n, d)
        h *= 2
    return Y


class IdentityMemoTransform:
    """A memo of the last result keyed by ``id(X)``: a buffer refilled in place gets the rows of its old values."""

    def apply(self, X):
        if getattr(self, "_key", None) == id(X):
            return self._out.copy()
        out = _fwht(X)
        self._key, self._out = id(X), out.copy()
        return out


class ContentMemoTransform:
    """Twin: the memo keyed by the input's content (its bytes, shape and dtype)."""

    def apply(self, X):
        A = np.asarray(X)
        key = (A.shape, A.dtype.str, A.tobytes())
        if getattr(self, "_key", None) == key:
            return self._out.copy()
        out = _fwht(A)
        self._key, self._out = key, out.copy()
        return out


def wrapping_transform(X):
    """Computes in the input's own dtype: uint8 input wraps modulo 256 (silently)."""
    A = np.asarray(X)
    if A.dtype.kind in "biu":
        A = A.astype(A.dtype if A.dtype.kind != "b" else np.int64)
        Y = A.copy()
        n, d = Y.shape
        h = 1
        while h < d:
            Y = Y.reshape(n, d // (2 * h), 2, h)
            a, b = Y[:, :, 0, :].copy(), Y[:, :, 1, :].copy()
            Y[:, :, 0, :], Y[:, :, 1, :] = a + b, a - b
            Y = Y.reshape(n, d)
            h *= 2
        return Y
    return _fwht(A)


def converting_transform(X):
    """Twin: the input converted to float64 first."""
    return _fwht(np.asarray(X, dtype=np.float64))


_BY_SHAPE: dict = {}
_BY_CONTENT: dict = {}


def shape_cached_transform(X):
    """A module-level cache keyed by the input's shape: new data of a shape seen before gets the old rows (a pristine
    copy of a function shares the module, so only the declared matrix shows it)."""
    A = np.asarray(X)
    return _BY_SHAPE.setdefault(A.shape, _fwht(A)).copy()


def content_cached_transform(X):
    """Twin: the module-level cache keyed by the input's content."""
    A = np.asarray(X)
    return _BY_CONTENT.setdefault((A.shape, A.dtype.str, A.tobytes()), _fwht(A)).copy()


identity_memo_transform = IdentityMemoTransform()
content_memo_transform = ContentMemoTransform()

#: Each mutant (MODULE:ATTR under tests.mutants.stateful_kinds_mutants) and its twin.
SAMPLER_BUGS = {"shared_generator_sampler": "per_call_generator_sampler", "folded_seed_sampler": "salted_seed_sampler"}
RULE_BUGS = {"buffer_rule": "copy_rule", "cached_rule": "uncached_rule"}
TRANSFORM_BUGS = {"identity_memo_transform": "content_memo_transform", "wrapping_transform": "converting_transform",
                  "shape_cached_transform": "content_cached_transform"}

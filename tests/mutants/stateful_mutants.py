"""Planted defects that only a sequence of calls shows, each with a correct twin (the ``stateful`` check).

Every map here is plain numpy random Fourier features for the RBF kernel, sqrt(2/m) cos(X W + b) with
W ~ N(0, 2 gamma I), b ~ U[0, 2 pi], drawn from ``random_state`` in ``fit``: correct at the one configuration a user
asks for on a fresh object, wrong only through state — a second object, a long run, a refilled buffer, a distant
seed, an integer input.  ``BUGS`` maps each mutant to its twin; ``tests/test_stateful.py`` checks that the
``stateful`` check catches every mutant at the default profile and passes every twin.
"""

from __future__ import annotations

import numpy as np


class _RFF:
    """The correct scheme every mutant starts from (scikit-learn's RBFSampler interface)."""

    def __init__(self, n_components=64, random_state=None, gamma=1.0):
        self.n_components, self.random_state, self.gamma = n_components, random_state, gamma

    def _rng(self):
        return np.random.default_rng(self.random_state)

    def _draw(self, d):
        rng = self._rng()
        W = rng.normal(0.0, np.sqrt(2.0 * self.gamma), size=(d, self.n_components))
        b = rng.uniform(0.0, 2.0 * np.pi, size=self.n_components)
        return W, b

    def _input(self, X):
        return np.asarray(X, dtype=np.float64)

    def fit(self, X, y=None):
        X = self._input(X)
        self.W_, self.b_ = self._draw(X.shape[1])
        return self

    def transform(self, X):
        X = self._input(X)
        return np.sqrt(2.0 / self.n_components) * np.cos(X @ self.W_ + self.b_)


# -- a frequency cache --------------------------------------------------------------------------------
_CACHE: dict = {}
_FULL_CACHE: dict = {}


class CacheWithoutGamma(_RFF):
    """A module-level cache of the frequencies keyed by (random_state, d, n_components), not by gamma: a second
    object with another gamma silently reuses the first one's frequencies."""

    def _draw(self, d):
        key = (self.random_state, d, self.n_components)
        if key not in _CACHE:
            _CACHE[key] = super()._draw(d)
        return _CACHE[key]


class CacheFullKey(_RFF):
    """Twin: the cache keyed by the whole configuration (gamma included)."""

    def _draw(self, d):
        key = (self.random_state, d, self.n_components, float(self.gamma))
        if key not in _FULL_CACHE:
            _FULL_CACHE[key] = super()._draw(d)
        return _FULL_CACHE[key]


# -- a generator in a class attribute -------------------------------------------------------------------
class SharedClassState(_RFF):
    """The drawn frequencies kept in class attributes shared by every instance: fit a, fit b, transform a gives a
    the draw of b."""

    def fit(self, X, y=None):
        X = self._input(X)
        type(self).W_, type(self).b_ = self._draw(X.shape[1])
        return self


class PerInstanceState(_RFF):
    """Twin: the draw kept on the instance."""


# -- integer input ----------------------------------------------------------------------------------
class IntegerTruncated(_RFF):
    """The output buffer allocated like the input (``np.empty_like(X, shape=...)``): from an integer input every
    feature is truncated to 0."""

    def _input(self, X):
        return np.asarray(X)

    def transform(self, X):
        X = np.asarray(X)
        out = np.empty_like(X, shape=(X.shape[0], self.n_components))
        out[...] = np.sqrt(2.0 / self.n_components) * np.cos(X @ self.W_ + self.b_)
        return out


class IntegerConverted(IntegerTruncated):
    """Twin: the input converted to float64 first (as scikit-learn's check_array does)."""

    def transform(self, X):
        return super().transform(np.asarray(X, dtype=np.float64))


# -- seeds -------------------------------------------------------------------------------------------
class SeedFolded16(_RFF):
    """The seed folded to 16 bits: random_state s and s + 65536 give identical features."""

    def _rng(self):
        return np.random.default_rng(int(self.random_state) & 0xFFFF)


class SeedSalted64(_RFF):
    """Twin: a salted 64-bit seed (the whole seed, mixed with a constant salt)."""

    def _rng(self):
        return np.random.default_rng([int(self.random_state) & (2 ** 64 - 1), 0x5EED])


# -- a warm path -------------------------------------------------------------------------------------
class WarmPathSign(_RFF):
    """A "warm" code path taken after 1,000 transform calls that flips the sign of the features."""

    def transform(self, X):
        self._calls = getattr(self, "_calls", 0) + 1
        F = super().transform(X)
        return -F if self._calls > 1000 else F


class ColdPathOnly(_RFF):
    """Twin: no warm path (a call counter that changes nothing)."""

    def transform(self, X):
        self._calls = getattr(self, "_calls", 0) + 1
        return super().transform(X)


# -- a memo ------------------------------------------------------------------------------------------
class MemoByIdentity(_RFF):
    """A memo of the last transform keyed by the input array's identity: a buffer refilled in place gets the
    features of its old values."""

    def transform(self, X):
        if getattr(self, "_memo", (None,))[0] is X:
            return self._memo[1]
        F = super().transform(X)
        self._memo = (X, F.copy())
        return F


class MemoByContent(_RFF):
    """Twin: the memo keyed by the input's content (its bytes and shape)."""

    def transform(self, X):
        A = np.ascontiguousarray(X, dtype=np.float64)
        key = (A.shape, A.tobytes())
        if getattr(self, "_memo", (None,))[0] == key:
            return self._memo[1].copy()
        F = super().transform(A)
        self._memo = (key, F.copy())
        return F


# -- a workspace -------------------------------------------------------------------------------------
class ReturnsWorkspace(_RFF):
    """Computes into an internal workspace and returns it: the next call overwrites what the last one returned."""

    def transform(self, X):
        X = self._input(X)
        ws = getattr(self, "_ws", None)
        if ws is None or ws.shape[0] < X.shape[0]:
            ws = self._ws = np.empty((max(X.shape[0], 64), self.n_components))
        out = ws[: X.shape[0]]
        np.cos(X @ self.W_ + self.b_, out=out)
        out *= np.sqrt(2.0 / self.n_components)
        return out


class CopiesWorkspace(ReturnsWorkspace):
    """Twin: a copy of the workspace is returned."""

    def transform(self, X):
        return super().transform(X).copy()


#: Each mutant and its correct twin.
BUGS = {CacheWithoutGamma: CacheFullKey, SharedClassState: PerInstanceState, IntegerTruncated: IntegerConverted,
        SeedFolded16: SeedSalted64, WarmPathSign: ColdPathOnly, MemoByIdentity: MemoByContent,
        ReturnsWorkspace: CopiesWorkspace}


# -- an orthogonal sampler with a fast path ---------------------------------------------------------------
def _haar(d, rng, fix=True):
    Q, R = np.linalg.qr(rng.standard_normal((d, d)))
    return Q * np.sign(np.diag(R)) if fix else Q


def fast_path_no_sign_fix(d, rng):
    """Haar QR (Mezzadri's sign correction) up to d = 128; above it a "fast path" returns QR's Q as it comes,
    orthogonal but not Haar (E tr Q about -sqrt(2d/pi))."""
    return _haar(d, rng, fix=d <= 128)


def sign_fix_everywhere(d, rng):
    """Twin: the sign correction at every d."""
    return _haar(d, rng)


#: Each orthogonal mutant and its twin (the ``haar-screen`` check).
ORTHOGONAL_BUGS = {fast_path_no_sign_fix: sign_fix_everywhere}


# -- a feature function (the function form) -------------------------------------------------------------------
def rff_function(X, n_components, random_state, gamma=0.5):
    """Correct random Fourier features as a function of (X, n_components, random_state)."""
    X = np.asarray(X, dtype=np.float64)
    rng = np.random.default_rng(random_state)
    W = rng.normal(0.0, np.sqrt(2.0 * gamma), size=(X.shape[1], n_components))
    b = rng.uniform(0.0, 2.0 * np.pi, size=n_components)
    return np.sqrt(2.0 / n_components) * np.cos(X @ W + b)


def rff_function_folded(X, n_components, random_state):
    """The same with the seed folded to 16 bits."""
    return rff_function(X, n_components, int(random_state) & 0xFFFF)

"""Plug-ins that try to forge a verdict (tests/test_forgery.py): each is :class:`HBiased`'s 0.8 x biased map (the kernel
estimate is 0.64 k: ``unbiasedness`` must fail) that also attacks the harness where it used to compute the verdict —
scipy's t distribution, rfverify's result type, the channel the child answers on, numpy's conversion of its output.

The harness computes every statistic in its own process from the arrays the plug-in's process sends, so each of them
fails like its plain twin (:class:`tests.hostile_plugins.HBiased`).  :mod:`tests.hostile_forge_import` patches
scipy at import: it is named ``MODULE:ATTR`` (imported in the plug-in's process only), never imported by a test.
"""

from __future__ import annotations

import gc
import pickle

import numpy as np

from tests.hostile_plugins import HBiased


class _SfIsOne:
    """scipy's t distribution with every tail probability 1 (no test ever rejects)."""

    def __init__(self, real):
        self._real = real

    def __getattr__(self, name):
        return getattr(self._real, name)

    def sf(self, *args, **kwargs):
        return np.ones_like(np.asarray(args[0], dtype=float)) if args else 1.0

    def cdf(self, *args, **kwargs):
        return np.zeros_like(np.asarray(args[0], dtype=float)) if args else 0.0

    def ppf(self, q, *args, **kwargs):
        return np.full_like(np.asarray(q, dtype=float), 1e300)

    isf = ppf


def patch_t() -> None:
    """Replace ``scipy.stats.t`` (and the module's other names for it) by :class:`_SfIsOne`."""
    import scipy.stats
    import scipy.stats.distributions as dist

    if not isinstance(scipy.stats.t, _SfIsOne):
        fake = _SfIsOne(scipy.stats.t)
        scipy.stats.t = fake
        dist.t = fake


class HSetsTSf(HBiased):
    """Sets ``sf`` on scipy's shared ``t`` object in ``fit`` (every p-value computed after it would be 1)."""

    def fit(self, X, y=None):
        import scipy.stats

        scipy.stats.t.sf = lambda *a, **k: 1.0
        scipy.stats.t.cdf = lambda *a, **k: 0.0
        return super().fit(X, y)


class HPatchesResult(HBiased):
    """Patches ``rfverify.results.CheckResult.__post_init__`` in ``fit`` so that every ``fail`` becomes ``pass``."""

    def fit(self, X, y=None):
        from rfverify import results

        cls = results.CheckResult
        if not getattr(cls, "_forged", False):
            original = cls.__post_init__

            def forged(self):
                if self.status == "fail":
                    object.__setattr__(self, "status", "pass")
                original(self)

            cls.__post_init__ = forged
            cls._forged = True
        return super().fit(X, y)


def _forge(obj):
    """A reply with every CheckResult's ``fail`` made ``pass`` (the old protocol's results); anything else as it is."""
    from rfverify.results import CheckResult

    if isinstance(obj, CheckResult) and obj.status == "fail":
        object.__setattr__(obj, "status", "pass")
        object.__setattr__(obj, "message", "forged")
    if isinstance(obj, tuple):
        for item in obj:
            _forge(item)
    return obj


class HWrapsSend(HBiased):
    """Wraps the sending side of every multiprocessing connection in its process (the channel to the harness):
    pickled replies are unpickled, their failed results turned into passes, and sent on."""

    def fit(self, X, y=None):
        from multiprocessing import connection

        cls = connection.Connection
        if not getattr(cls, "_forged", False):
            send, send_bytes = cls.send, cls.send_bytes

            def forged_send(self, obj):
                return send(self, _forge(obj))

            def forged_send_bytes(self, buf, *a):
                try:
                    obj = pickle.loads(bytes(buf))
                except Exception:
                    return send_bytes(self, buf, *a)
                return send_bytes(self, pickle.dumps(_forge(obj)))

            cls.send, cls.send_bytes, cls._forged = forged_send, forged_send_bytes, True
        return super().fit(X, y)


class _Lying:
    """An array-like whose ``__array__`` patches scipy's t in the process converting it, whose ``__len__`` lies,
    and whose data are the biased features."""

    def __init__(self, A):
        self._A = A

    def __array__(self, dtype=None, copy=None):
        patch_t()
        return self._A if dtype is None else self._A.astype(dtype)

    def __len__(self):
        patch_t()
        return 1

    @property
    def shape(self):
        return self._A.shape


class _ShapeLying(_Lying):
    """A :class:`_Lying` whose ``shape`` lies too (the conversion refuses it: the plug-in's error)."""

    @property
    def shape(self):
        return (1, 1)


class HArrayLies(HBiased):
    """Returns :class:`_Lying` objects from ``transform``."""

    def transform(self, X):
        return _Lying(super().transform(X))


class HShapeLies(HBiased):
    """Returns :class:`_ShapeLying` objects from ``transform``."""

    def transform(self, X):
        return _ShapeLying(super().transform(X))


def _connections():
    """Every multiprocessing connection reachable from the calling frames' locals and from the garbage collector."""
    import sys
    from multiprocessing import connection

    found, frame = [], sys._getframe(1)
    while frame is not None:
        found.extend(v for v in frame.f_locals.values() if isinstance(v, connection.Connection))
        frame = frame.f_back
    found.extend(o for o in gc.get_objects() if isinstance(o, connection.Connection))
    return [c for c in found if not c.closed and c.writable]


class HRepliesGarbage(HBiased):
    """Writes a forged reply (a header claiming ``pass``, then garbage) on every multiprocessing connection it can
    reach (the channel to the harness) in ``transform`` with 64 components, then returns its features: the harness
    reads a reply that does not fit its protocol."""

    def transform(self, X):
        if self.n_components == 64:
            for conn in _connections():
                try:
                    conn.send_bytes(b"\x10\x00\x00\x00{\"v\":\"pass\",\"a\":[]}garbage")
                except OSError:
                    pass
        return super().transform(X)


class HWritesInput(HBiased):
    """An honest-shape map that writes into the array it is handed (``X[0, 0] += 1``): ``explore`` reports it under
    the judge as in one process (the plug-in's writes reach the harness's array)."""

    def transform(self, X):
        out = super().transform(X)
        X[0, 0] += 1.0
        return out

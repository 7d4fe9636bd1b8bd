"""Plug-ins that misbehave on purpose, one fault each, for every plug-in kind (tests/test_fault_tolerance.py).

Each starts from a small correct implementation of its kind (``Features``, ``orthogonal``, ``hadamard``,
``mc_rule``; they pass every check) and adds one fault, either always (the preflight call catches it and
every check reports it) or only on some calls (``*_sometimes``: the checks that never trigger it still
pass).  Faults: raising (an Exception, ``sys.exit``, a bare BaseException), NaN or inf, wrong shapes,
wrong types (None, ragged lists, strings, objects, complex, float16), hanging (sleep or a busy loop, also
one that swallows the first interruption), unbounded allocation (1e12 floats, a list grown in 1 MiB
steps, 1024 x more features than asked), the global random state (``np.random.seed``,
``np.random.normal``, ``random.random``), printing, and sizes that change between calls.

The unbounded allocators stop by themselves at :data:`SAFETY_CAP` (2 GiB, far above the 256 MiB the
tests allow) so a machine without ``RLIMIT_AS`` is never exhausted.
"""

from __future__ import annotations

import random
import sys
import time
from typing import Any

import numpy as np
from scipy.linalg import hadamard as _hadamard

SAFETY_CAP = 2 << 30


class PluginBaseException(BaseException):
    """Not an Exception: ``except Exception`` in a harness would miss it."""


def _grow_list() -> list[bytearray]:
    """Append 1 MiB blocks until MemoryError (or SAFETY_CAP, never reached under the guard)."""
    blocks: list[bytearray] = []
    while len(blocks) < SAFETY_CAP >> 20:
        blocks.append(bytearray(1 << 20))
    return blocks


def _hang_swallowing() -> None:
    """Sleep 'forever', swallowing the first interruption (the guard re-fires every second)."""
    try:
        time.sleep(3600)
    except BaseException:  # noqa: BLE001 - the point of this plug-in
        pass
    time.sleep(3600)


# ---------------------------------------------------------------------------------------------------
# feature maps: a correct RFF estimator class, then one subclass per fault
# ---------------------------------------------------------------------------------------------------
class Features:
    """sqrt(2/m) cos(W x + b), W ~ N(0, 2 gamma I), b ~ U[0, 2 pi] (correct; passes every check)."""

    def __init__(self, n_components: int = 100, random_state: Any = None, gamma: float = 0.5) -> None:
        self.n_components = n_components
        self.random_state = random_state
        self.gamma = gamma

    def get_params(self, deep: bool = False) -> dict[str, Any]:
        return {"n_components": self.n_components, "random_state": self.random_state, "gamma": self.gamma}

    def fit(self, X: Any, y: Any = None) -> "Features":
        rng = np.random.default_rng(self.random_state)
        self.W_ = rng.standard_normal((np.shape(X)[1], self.n_components)) * np.sqrt(2 * self.gamma)
        self.b_ = rng.uniform(0, 2 * np.pi, self.n_components)
        return self

    def transform(self, X: Any) -> Any:
        return np.sqrt(2.0 / self.n_components) * np.cos(np.asarray(X) @ self.W_ + self.b_)


class FMRaises(Features):
    def transform(self, X):
        raise ValueError("features exploded")


class FMExits(Features):
    def fit(self, X, y=None):
        sys.exit(3)


class FMBaseException(Features):
    def transform(self, X):
        raise PluginBaseException("not an Exception")


class FMNaNSometimes(Features):
    """NaN only with 64 components (the reproducibility check's m and one error-rate grid point)."""

    def transform(self, X):
        F = super().transform(X)
        if self.n_components == 64:
            F[1, 2] = np.nan
        return F


class FMInf(Features):
    def transform(self, X):
        F = super().transform(X)
        F[0, 0] = np.inf
        return F


class FMDropsRow(Features):
    def transform(self, X):
        return super().transform(X)[1:]


class FMThreeD(Features):
    def transform(self, X):
        return super().transform(X)[:, :, None]


class FMNone(Features):
    def transform(self, X):
        return None


class FMRagged(Features):
    def transform(self, X):
        F = super().transform(X).tolist()
        F[0] = F[0][:-1]
        return F


class FMStrings(Features):
    def transform(self, X):
        return super().transform(X).astype(str)


class FMObjects(Features):
    def transform(self, X):
        return super().transform(X).astype(object)


class FMFloat16(Features):
    def transform(self, X):
        return super().transform(X).astype(np.float16)


class FMList(Features):
    """Returns nested lists of floats: accepted (numpy converts them), not a fault."""

    def transform(self, X):
        return super().transform(X).tolist()


class FMSleepsSometimes(Features):
    """Sleeps an hour when asked to transform a single row (only the contract check does that)."""

    def transform(self, X):
        if np.shape(X)[0] == 1:
            time.sleep(3600)
        return super().transform(X)


class FMBusyLoop(Features):
    def fit(self, X, y=None):
        while True:
            pass


class FMSwallowsInterrupt(Features):
    def transform(self, X):
        _hang_swallowing()
        return super().transform(X)


class FMHugeAllocation(Features):
    def fit(self, X, y=None):
        self.scratch_ = np.ones(int(1e12))  # 8 TB
        return super().fit(X)


class FMGrowsList(Features):
    def transform(self, X):
        self.cache_ = _grow_list()
        return super().transform(X)


class FMTooManyFeatures(Features):
    """2048 x n_components features (the harness accepts at most 1024 per component)."""

    def transform(self, X):
        return np.tile(super().transform(X), (1, 2048)) / np.sqrt(2048)


class FMSeedsGlobal(Features):
    def fit(self, X, y=None):
        np.random.seed(0)
        return super().fit(X)


class FMDrawsGlobal(Features):
    def transform(self, X):
        np.random.normal()
        return super().transform(X)


class FMPythonRandom(Features):
    def fit(self, X, y=None):
        random.random()
        return super().fit(X)


class FMPrints(Features):
    def transform(self, X):
        print(f"transforming {np.shape(X)}")
        return super().transform(X)


class FMPrintsStderr(Features):
    def fit(self, X, y=None):
        print("fitting ...", file=sys.stderr)
        return super().fit(X)


class FMWarns(Features):
    """Issues a warning on every transform: warnings are not printing, so this is no fault."""

    def transform(self, X):
        import warnings

        warnings.warn("a harmless warning from the plug-in", RuntimeWarning, stacklevel=2)
        return super().transform(X)


class FMWidthChanges(Features):
    """One more column on every second transform of the same fitted map."""

    def transform(self, X):
        self.calls_ = getattr(self, "calls_", 0) + 1
        F = super().transform(X)
        return np.hstack([F, np.zeros((F.shape[0], 1))]) if self.calls_ % 2 == 0 else F


class FMWidthBySeed(Features):
    """An extra zero column for odd random_state: the feature count depends on the seed."""

    def transform(self, X):
        F = super().transform(X)
        return np.hstack([F, np.zeros((F.shape[0], 1))]) if int(self.random_state) % 2 else F


# ---------------------------------------------------------------------------------------------------
# orthogonal samplers: sample(d, rng) -> (d, d)
# ---------------------------------------------------------------------------------------------------
def orthogonal(d: int, rng: Any) -> np.ndarray:
    """Haar on O(d): QR of a Gaussian matrix with the sign correction (correct)."""
    Q, R = np.linalg.qr(np.random.default_rng(rng).standard_normal((d, d)))
    return Q * np.sign(np.diag(R))


def orth_raises(d, rng):
    raise RuntimeError("no matrices today")


def orth_exits(d, rng):
    sys.exit("sampler gave up")


def orth_nan(d, rng):
    Q = orthogonal(d, rng)
    Q[0, 0] = np.nan
    return Q


def orth_short_sometimes(d, rng):
    """A (d - 1, d) matrix on about one draw in eight."""
    gen = np.random.default_rng(rng)
    short = gen.random() < 0.125
    Q = orthogonal(d, gen)
    return Q[:-1] if short else Q


def orth_complex(d, rng):
    return orthogonal(d, rng).astype(complex)


def orth_strings(d, rng):
    return orthogonal(d, rng).astype(str)


def orth_none(d, rng):
    return None


def orth_float16(d, rng):
    return orthogonal(d, rng).astype(np.float16)


def orth_sleeps(d, rng):
    time.sleep(3600)


def orth_grows_list(d, rng):
    _grow_list()
    return orthogonal(d, rng)


def orth_seeds_global(d, rng):
    np.random.seed(1)
    return orthogonal(d, rng)


def orth_prints(d, rng):
    print("sampling", d)
    return orthogonal(d, rng)


# ---------------------------------------------------------------------------------------------------
# transforms: apply(X (n, d)) -> X @ H_d.T, refusing widths that are not powers of two
# ---------------------------------------------------------------------------------------------------
def hadamard(X: Any) -> np.ndarray:
    """The dense Sylvester-Hadamard transform (correct; refuses widths that are not powers of two)."""
    X = np.asarray(X)
    d = X.shape[1]
    if d < 1 or d & (d - 1):
        raise ValueError(f"width {d} is not a power of two")
    return X @ _hadamard(d).T.astype(X.dtype)


def tr_raises(X):
    raise TypeError("cannot apply")


def tr_exits_on_bad_width(X):
    """sys.exit where it should raise (only the dimension probe sees it)."""
    d = np.shape(X)[1]
    if d & (d - 1):
        sys.exit(2)
    return hadamard(X)


def tr_inf(X):
    Y = hadamard(X)
    Y[-1, -1] = -np.inf
    return Y


def tr_transposed(X):
    return hadamard(X).T


def tr_objects(X):
    return hadamard(X).astype(object)


def tr_busy_loop(X):
    while True:
        pass


def tr_huge_allocation(X):
    np.empty((int(1e6), int(1e6)))
    return hadamard(X)


def tr_draws_global(X):
    np.random.standard_normal(3)
    return hadamard(X)


def tr_prints(X):
    sys.stdout.write("applying\n")
    return hadamard(X)


# ---------------------------------------------------------------------------------------------------
# quadrature rules: rule(d, rng) -> (points (n, d), weights (n,))
# ---------------------------------------------------------------------------------------------------
MC_POINTS = 32


def mc_rule(d: int, rng: Any) -> tuple[np.ndarray, np.ndarray]:
    """Plain Monte Carlo with 32 points (correct: unbiased, exact for degree 0)."""
    return np.random.default_rng(rng).standard_normal((MC_POINTS, d)), np.full(MC_POINTS, 1.0 / MC_POINTS)


def qr_raises(d, rng):
    raise ZeroDivisionError("division by zero")


def qr_nan_weights_sometimes(d, rng):
    """A NaN weight on about one draw in 500: the preflight draw is fine, the long checks see it."""
    gen = np.random.default_rng(rng)
    P, w = mc_rule(d, gen)
    if gen.random() < 0.002:
        w[3] = np.nan
    return P, w


def qr_not_a_pair(d, rng):
    P, w = mc_rule(d, rng)
    return P, w, "extra"


def qr_wrong_points(d, rng):
    P, w = mc_rule(d, rng)
    return P[:, :-1], w


def qr_complex(d, rng):
    P, w = mc_rule(d, rng)
    return P.astype(complex), w


def qr_swallows_interrupt(d, rng):
    _hang_swallowing()
    return mc_rule(d, rng)


def qr_grows_list(d, rng):
    _grow_list()
    return mc_rule(d, rng)


def qr_python_random(d, rng):
    random.seed(7)
    return mc_rule(d, rng)


def qr_prints_stderr(d, rng):
    sys.stderr.write("rule called\n")
    return mc_rule(d, rng)


def qr_size_changes(d, rng):
    """A random number of points (legitimate for a random rule: not a fault)."""
    gen = np.random.default_rng(rng)
    n = int(gen.integers(16, 48))
    return gen.standard_normal((n, d)), np.full(n, 1.0 / n)


# ---------------------------------------------------------------------------------------------------
# kernels (the kernel kind): k(X, Y) -> Gram
# ---------------------------------------------------------------------------------------------------
def gaussian_kernel(X: Any, Y: Any) -> np.ndarray:
    """exp(-||x - y||^2 / 2) (correct: symmetric, PSD, k(x, x) = 1)."""
    X, Y = np.asarray(X), np.asarray(Y)
    return np.exp(-0.5 * ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1))


def k_raises(X, Y):
    raise ArithmeticError("kernel undefined")


def k_nan(X, Y):
    G = gaussian_kernel(X, Y)
    G[0, 0] = np.nan
    return G


def k_strings(X, Y):
    return gaussian_kernel(X, Y).astype(str)


def k_sleeps(X, Y):
    time.sleep(3600)


def k_draws_global(X, Y):
    np.random.random()
    return gaussian_kernel(X, Y)


def k_prints(X, Y):
    print("gram", np.shape(X))
    return gaussian_kernel(X, Y)


# ---------------------------------------------------------------------------------------------------
# faults only a supervised child process contains (tests/test_supervise.py)
# ---------------------------------------------------------------------------------------------------
# Each feature map misbehaves in ``transform`` when n_components == 64 (the contract, reproducibility and
# error-rate checks ask for 64; the preflight asks for 16 and unbiasedness for 256), so the preflight passes,
# the faulty checks error and unbiasedness still passes in a fresh child — unless noted otherwise.
HOSTILE_M = 64


def _c_level_spin() -> None:
    """Loop inside C code that never returns to the interpreter (no signal handler can run)."""
    import collections
    import itertools

    collections.deque(itertools.repeat(0), maxlen=0)


def _lift_rlimit_and_grow() -> None:
    """Raise the address-space limit to the hard limit, touch memory in 64 MiB steps up to 1 GiB, and hold
    it (sleeping) — fast enough that a loaded machine still crosses a 256 MiB budget well within the time
    limit, and never more than 1 GiB even if nothing stops it."""
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
    blocks = [np.ones(8 << 20) for _ in range(16)]
    time.sleep(3600)
    del blocks


class _Hostile(Features):
    def fault(self) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def transform(self, X):
        if self.n_components == HOSTILE_M:
            out = self.fault()
            if out is not None:
                return out
        return super().transform(X)


class HExit0(_Hostile):
    def fault(self):
        import os
        os._exit(0)


class HExit3(_Hostile):
    def fault(self):
        import os
        os._exit(3)


class HSegfault(_Hostile):
    def fault(self):
        import ctypes
        ctypes.string_at(0)  # a NULL read: SIGSEGV


class HSigfpe(_Hostile):
    def fault(self):
        import os
        import signal
        os.kill(os.getpid(), signal.SIGFPE)


class HAbort(_Hostile):
    def fault(self):
        import os
        os.abort()


class HBlocksAlarm(_Hostile):
    def fault(self):
        import signal
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        time.sleep(3600)


class HIgnoresAlarm(_Hostile):
    def fault(self):
        import signal
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        signal.setitimer(signal.ITIMER_REAL, 0)  # and cancel the timer
        time.sleep(3600)


class HSwallowsForever(_Hostile):
    def fault(self):
        while True:
            try:
                time.sleep(3600)
            except BaseException:  # noqa: BLE001 - the point of this plug-in
                pass


class HCSpin(_Hostile):
    def fault(self):
        _c_level_spin()


class HDeadlock(_Hostile):
    def fault(self):
        import signal
        import threading
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        a, b = threading.Lock(), threading.Lock()
        a.acquire()
        threading.Thread(target=lambda: (b.acquire(), a.acquire()), daemon=True).start()
        time.sleep(0.1)
        b.acquire()  # each holds what the other waits for


class HForks(_Hostile):
    def fault(self):
        import os
        os.fork()  # both copies return into rfverify


class HNonDaemonThread(Features):
    """Leaves a non-daemon thread sleeping an hour (it would keep a process alive at exit), once per
    process; checks pass."""

    started: set[int] = set()

    def fit(self, X, y=None):
        import os
        import threading
        if os.getpid() not in HNonDaemonThread.started:
            HNonDaemonThread.started.add(os.getpid())
            threading.Thread(target=time.sleep, args=(3600,), daemon=False).start()
        return super().fit(X, y)


class HChdir(Features):
    """Changes the working directory on every fit; its checks pass."""

    def fit(self, X, y=None):
        import os
        import tempfile
        os.chdir(tempfile.gettempdir())
        return super().fit(X, y)


class HPatchesNumpy(_Hostile):
    """Replaces numpy.isfinite (every array would look finite to whoever runs next in the process)."""

    def fault(self):
        np.isfinite = lambda a, *args, **kw: np.ones(np.shape(a), dtype=bool)


class HLiftsRlimit(_Hostile):
    def fault(self):
        _lift_rlimit_and_grow()


class HWritesFd1(_Hostile):
    def fault(self):
        import os
        os.write(1, b"raw bytes on fd 1\n")


class HHugeMessage(_Hostile):
    """Raises with a 1 MB message full of ANSI escapes, control characters and undecodable bytes."""

    def fault(self):
        raise ValueError("\x1b[31mred\x1b[0m \x1b]0;pwned\x07 bad \udcff\udcfe bytes \x00\x08 " + "x" * (1 << 20))


class HBadStr(_Hostile):
    """Raises an exception whose __str__ itself raises."""

    def fault(self):
        class Unprintable(Exception):
            def __str__(self):
                raise RuntimeError("no words")
        raise Unprintable()


class HMatrix(Features):
    """Returns numpy.matrix (an ndarray subclass whose * and indexing differ); numpy.asarray semantics apply."""

    def transform(self, X):
        return np.asmatrix(super().transform(X))


def _huge_name() -> type:
    cls = type("H" + "u" * 100_000, (Features,), {})
    cls.__qualname__ = "Huge\x1b[2J" + "e" * 100_000
    return cls


HHugeName = _huge_name()


# form detection calls plug-in code (get_params, __getattr__): it runs under the guard
class FGetParamsRaises(Features):
    def get_params(self, deep=False):
        raise RuntimeError("no params today")


class FGetParamsArray(Features):
    def get_params(self, deep=False):
        return np.arange(3)


class FGetattrRaises(Features):
    def __getattr__(self, key):
        raise RuntimeError(f"no attribute {key} today")


get_params_raises = FGetParamsRaises()
get_params_array = FGetParamsArray()
getattr_raises = FGetattrRaises()

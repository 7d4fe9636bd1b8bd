"""Planted bugs for the kernel checks: kernels and composite feature maps broken on purpose.

Each is a realistic mistake: a copy-paste in a distance, a sign error, a truncated series, a claim
that does not hold, a missing square root.  Importable as ``tests.mutants.kernel_mutants:NAME`` from the
repository root, so the CLI tests can name them.
"""

from __future__ import annotations

import numpy as np

from rfverify.kernels.composition import kernel_scale
from rfverify.implementations import composite as C
from rfverify.kernels import get_kernel

GAMMA = 1.0


def _sq(X, Y):
    return np.maximum((X * X).sum(1)[:, None] + (Y * Y).sum(1)[None, :] - 2.0 * X @ Y.T, 0.0)


def rbf(X, Y):
    """A correct user callable: exp(-||x - y||^2)."""
    return np.exp(-GAMMA * _sq(X, Y))


def rbf_float32(X, Y):
    """A correct user callable computing in float32 (judged at float32 precision)."""
    X32, Y32 = np.asarray(X, np.float32), np.asarray(Y, np.float32)
    return np.exp(-np.float32(GAMMA) * np.maximum((X32 * X32).sum(1)[:, None] + (Y32 * Y32).sum(1)[None, :]
                                                    - 2 * X32 @ Y32.T, 0))


def asymmetric_rbf(X, Y):
    """Copy-paste bug: |x|^2 twice instead of |x|^2 + |y|^2 (k(x, x) is still 1, so only symmetry sees it)."""
    sx = (X * X).sum(1)[:, None]
    return np.exp(-GAMMA * np.maximum(2.0 * sx - 2.0 * X @ Y.T, 0.0))


def tanh_kernel(X, Y):
    """The lecture's "sigmoid" tanh(<x, y>) as a user callable: not PSD."""
    return np.tanh(X @ Y.T)


def rbf_sign_error(X, Y):
    """exp(+gamma ||x - y||^2): the minus sign lost."""
    return np.exp(+GAMMA * _sq(X, Y))


def rbf_truncated(X, Y):
    """1 - gamma ||x - y||^2: the exponential's series cut after the linear term."""
    return 1.0 - GAMMA * _sq(X, Y)


def raising_kernel(X, Y):
    """A broken plug-in: raises."""
    raise RuntimeError("boom")


def unnormalised_cosine(X, Y):
    """A 'cosine similarity' that forgot to divide by the norms (claimed normalised by its user)."""
    return X @ Y.T


class WrongScale(C.Scale):
    """Scaling rule without the square root: c phi instead of sqrt(c) phi (estimates c^2 k)."""

    def apply(self, state, X):
        return self.c * self.a.apply(state, X)


class DependentProduct(C.Product):
    """Tensor product of two draws of the parts that share one random stream: only an artefact for
    equal parts; for rbf x rbf the draws coincide and the estimate is E[k1_hat^2] != k1^2."""

    def draw(self, d, m, rng):
        seed = int(rng.integers(2**32))
        return (self.a.draw(d, m, np.random.default_rng(seed)), self.b.draw(d, m, np.random.default_rng(seed)),
                None, None)


def wrong_weight_mix_features(n_components, random_state):
    """[w phi_rbf, (1 - w) phi_laplacian] for rbf_laplacian_mix: concatenation without sqrt weights."""
    tree = C.feature_tree(get_kernel("rbf_laplacian_mix"), nodes={**C.NODES, "scale": WrongScale})
    return C.CompositeFeatures(tree, n_components, random_state)


def twice_rbf():
    """2 rbf: a correct kernel, but not normalised (claimed so in the tests)."""
    return kernel_scale(2.0, get_kernel("rbf"))

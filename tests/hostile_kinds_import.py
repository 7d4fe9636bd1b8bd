"""Plug-ins of the sampler, rule, transform and kernel kinds from a module that, at import, makes every test in
reach of it pass: scipy.stats' tests and distributions give p = 1 (tail probabilities 1, cdf 0), numpy's eigenvalue
routine says every matrix is PSD, and ``rfverify.results.CheckResult`` turns every ``fail`` and ``error`` into ``pass``
(tests/test_judge_kinds.py).

Each biased plug-in must still FAIL — the module is imported only in the plug-in's process, the verdict is computed in
the harness — and its correct twin, from the same module, passes.  Never imported by a test: named ``MODULE:ATTR``.
"""

from __future__ import annotations

import numpy as np


class _PIsOne:
    """A scipy distribution whose every tail probability is 1 (no test ever rejects)."""

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


class _Passing:
    """What a patched scipy test returns: statistic 0, p-value 1."""

    statistic, pvalue = 0.0, 1.0

    def __iter__(self):
        return iter((0.0, 1.0))


def _patch() -> None:
    import scipy.stats as st
    import scipy.stats.distributions as dist

    from rfverify import results

    for name in ("t", "norm", "chi2", "binom", "beta", "f", "kstwo", "kstwobign"):
        if hasattr(st, name) and not isinstance(getattr(st, name), _PIsOne):
            fake = _PIsOne(getattr(st, name))
            setattr(st, name, fake)
            setattr(dist, name, fake)
    for name in ("kstest", "ks_1samp", "ks_2samp", "binomtest", "chisquare", "ttest_1samp", "cramervonmises",
                 "anderson", "wilcoxon", "mannwhitneyu", "combine_pvalues"):
        if hasattr(st, name):
            setattr(st, name, lambda *a, **k: _Passing())
    np.linalg.eigvalsh = lambda a, *args, **kw: np.abs(np.diag(np.asarray(a, dtype=float)))
    cls = results.CheckResult
    if not getattr(cls, "_forged", False):
        original = cls.__post_init__

        def forged(self):
            if self.status in ("fail", "error"):  # (an error too: the patched scipy makes some checks raise)
                object.__setattr__(self, "status", "pass")
            original(self)

        cls.__post_init__ = forged
        cls._forged = True


_patch()

from rfverify.implementations.composite import RBFLaplacianMixFeatures  # noqa: E402,F401 - the composite's map
from tests.hostile_kinds import (biased_rule, biased_sampler, biased_transform, hadamard_transform,  # noqa: E402,F401
                                 haar_sampler, rbf_kernel, sr33_rule, tanh_kernel)
from tests.mutants.kernel_mutants import wrong_weight_mix_features  # noqa: E402,F401 - its missing-sqrt twin

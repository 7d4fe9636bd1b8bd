"""Kernel mutants: wrong kernels (planted in :mod:`.kernel_mutants`), a broken composite feature map,
and equivalent kernels."""

from __future__ import annotations

from rfverify.studies.calibration import Mutant
from rfverify.kernels.composition import kernel_product
from rfverify.implementations import composite as C

from . import kernel_mutants as km
from ._common import _e, _m


# ================================================================== new kernel mutants
def dependent_product_features(n_components, random_state):
    """Feature map of rbf x rbf whose two tensor factors are drawn from one shared random stream.

    The product rule needs *independent* draws of the two parts (E[phi_a phi_b] factorises only
    then); with the same stream the two draws coincide and the estimate is E[k_hat^2] != k^2.
    """
    tree = C.feature_tree(kernel_product("rbf", "rbf"), nodes={**C.NODES, "product": km.DependentProduct})
    return C.CompositeFeatures(tree, n_components, random_state)


# ================================================================== the entries
KE = "kernel"
BUGS: list[Mutant] = [
    _m("kernel-asymmetric-rbf", KE, km.asymmetric_rbf, {"dim": 16}, ["kernel-symmetry"], "orientation",
       "a copy-paste in the expanded distance, |x|^2 twice instead of |x|^2 + |y|^2: k(x, x) is still 1 (so "
       "normalisation cannot see it) but k(x, y) != k(y, x); kernel-symmetry compares K with K^T to a derived "
       "evaluation tolerance (tests/kernel_mutants.py)."),
    _m("kernel-tanh-not-psd", KE, km.tanh_kernel, {"dim": 16}, ["kernel-psd"], "positive definiteness",
       "the lecture's 'sigmoid' tanh(<x, y>) used as a kernel: not PSD for mixed-norm points; kernel-psd finds a "
       "point set whose Gram matrix has an eigenvalue below minus the LAPACK backward-error bound."),
    _m("kernel-rbf-sign-error", KE, km.rbf_sign_error, {"dim": 16}, ["kernel-psd"], "sign",
       "exp(+gamma |x - y|^2): the minus sign lost; the Gram matrix has negative eigenvalues, and kernel-psd "
       "reports the witness point set (tests/kernel_mutants.py)."),
    _m("kernel-rbf-truncated", KE, km.rbf_truncated, {"dim": 16}, ["kernel-psd"], "off-by-one stages",
       "1 - gamma |x - y|^2: the exponential's series stopped one term early; not PSD, and kernel-psd reports "
       "the witness point set (tests/kernel_mutants.py)."),
    _m("kernel-unnormalised-cosine", KE, km.unnormalised_cosine, {"dim": 16, "normalized": True},
       ["kernel-normalisation"], "normalisation",
       "a 'cosine similarity' that forgot to divide by the norms, claimed normalised: k(x, x) = |x|^2 != 1, "
       "which kernel-normalisation evaluates on every point set."),
    _m("kernel-twice-rbf-claimed-normalised", KE, km.twice_rbf(), {"dim": 16, "normalized": True},
       ["kernel-normalisation"], "scaling",
       "2 rbf (a correct kernel built with the scaling rule) claimed normalised: k(x, x) = 2, which "
       "kernel-normalisation evaluates on every point set."),
    _m("kernel-mix-without-sqrt-weights", KE, "rbf_laplacian_mix",
       {"dim": 16, "feature_map": km.wrong_weight_mix_features}, ["kernel-composition"], "weights",
       "the mixture w rbf + (1 - w) laplacian's feature map concatenates w phi_rbf and (1 - w) phi_lap instead of "
       "sqrt(w) phi_rbf and sqrt(1 - w) phi_lap: estimates w^2 rbf + (1 - w)^2 laplacian (half the kernel at "
       "w = 1/2); kernel-composition runs the unbiasedness test on the composite's feature map."),
    _m("kernel-dependent-product-draws", KE, kernel_product("rbf", "rbf"),
       {"dim": 16, "feature_map": dependent_product_features}, ["kernel-composition"], "seeding",
       "the tensor-product rule with both factors drawn from one random stream (seeded alike): the draws "
       "coincide, so the estimate is E[k_hat^2] = k^2 + Var k_hat, not k^2 (kernel-composition)."),
]
EQUIVALENT: list[Mutant] = [
    _e("kernel-rbf-by-expansion", KE, km.rbf, {"dim": 16, "normalized": True}, "formula",
       "the user's own rbf, exp(-max(|x|^2 + |y|^2 - 2 <x, y>, 0)), instead of the registry's.  Proof: the "
       "expansion equals |x - y|^2 exactly in real arithmetic (so the kernel is the rbf: symmetric, PSD, "
       "k(x, x) = 1); in floating point each value is within gamma_{d+2}-relative round-off of it, inside the "
       "evaluation tolerance the kernel checks derive, and the clip at 0 only removes round-off below 0."),
    _e("kernel-rbf-float32", KE, km.rbf_float32, {"dim": 16, "normalized": True}, "dtype",
       "the same rbf computed in float32.  Proof: the values are the rbf's to float32 round-off, and the kernel "
       "checks derive their tolerances from the unit round-off of the dtype the kernel returns (a float32 "
       "kernel is judged at float32 precision), so symmetry, PSD and normalisation hold within them."),
]

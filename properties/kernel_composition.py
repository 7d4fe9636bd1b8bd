"""Composition: the feature map the lecture's rules give a composite kernel estimates that kernel."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, TypedDict

from rfverify.adapters import as_feature_map
from rfverify.kernels.composition import CompositeKernel
from rfverify.kinds.kernel import KernelContext
from rfverify.kinds.feature_map import CheckContext, Declarations
from rfverify.registry import register_check
from rfverify.results import CheckResult

if TYPE_CHECKING:
    from rfverify.adapters import FeatureMapPlugin
    from rfverify.kernels.base import Kernel
    from rfverify.spaces import FeatureMapSpace


def _applies(ctx: KernelContext) -> str | None:
    k = ctx.kernel
    if not isinstance(k, CompositeKernel):
        return ("not built with the composition rules (rfverify.kernels.composition: kernel_sum, kernel_product, "
                "kernel_scale, kernel_conformal, kernel_exp)")
    if ctx.config.feature_map is None:
        reason = ctx.why_no_reference_map()
        if reason:
            return f"no composite feature map to test: {reason}"
    return None


@register_check("kernel", "kernel-composition", statistical=True, applies=_applies,
                cost="the feature-map unbiasedness test at m = budget.composition_m (default 512), "
                     "seeds from a pilot of 50, at most budget.composition_max_trials (default 2000)",
                figures=("kernel-scatter", "bias"))
def check_composition(ctx: KernelContext) -> CheckResult:
    """The composite's feature map, built by the lecture's rules from its parts' maps, estimates the composite.

    Property: for k = c k1, k1 + k2, k1 k2, f(x) k1 f(y), exp(k1), the map sqrt(c) phi1,
    [phi1, phi2], phi1 (tensor) phi2, f(x) phi1, random Maclaurin features over phi1 (Kar &
    Karnick 2012: degree N with P(N = n) = 2^-(n+1), weight sqrt(2^(N+1) / N!)) satisfies
    E[phi(x) . phi(y)] = k(x, y) — which also checks the composite kernel's own evaluation
    against its parts.
    Test: the feature-map ``unbiasedness`` test, reused (:func:`rfverify.properties.unbiasedness.
    check_unbiasedness`): at the 24 designed pairs, per-pair Student t over R seeds of the map at
    m = ``budget.composition_m`` features, Bonferroni over pairs, two looks (pilot, full) at
    alpha/2 each, R from the pilot so that a bias of 1% of the kernel's scale (default profile)
    is caught with power 0.99 (capped at ``budget.composition_max_trials``; the bias detectable
    at the final R is reported).  alpha = the profile's family alpha (10^-3 by default): this is
    the kind's only statistical check.
    Applies to: composite kernels (:class:`rfverify.kernels.composition.CompositeKernel`) whose parts have
    reference feature maps (rbf, laplacian, arccos: our random features; linear, polynomial:
    exact), or given a ``feature_map`` to test.
    Catches: a missing sqrt on a scaling weight (concatenation [c1 phi1, c2 phi2] estimates
    c1^2 k1 + c2^2 k2), dependent draws in a tensor product, wrong Maclaurin weights, a composite
    kernel that evaluates the wrong expression.
    Reference: cs4787 lecture 16, "Constructing kernels" (table of rules and feature maps);
    P. Kar & H. Karnick (2012), "Random feature maps for dot product kernels", AISTATS, §3.
    """
    from rfverify.properties.unbiasedness import check_unbiasedness

    cfg = ctx.config
    kernel = ctx.kernel
    if cfg.feature_map is not None:
        plugin = as_feature_map(cfg.feature_map, name="the given composite feature map")
        desc = plugin.name
    else:
        features, desc = ctx.reference_feature_map()
        plugin = as_feature_map(features, name="composite feature map", hosted=False)  # rfverify's own map
    b = ctx.budget
    profile = replace(ctx.profile, unbiased_m=b.composition_m, max_trials=b.composition_max_trials)
    fm_ctx = CheckContext(ctx.check, profile, ctx.seeds, ctx.alpha, ctx.reproduce, config=None, plugin=plugin,
                          kernel=kernel, domain=cfg.domain, dim=cfg.dim, declarations=Declarations(), pair_cache={},
                          **_declared(plugin, kernel))
    res = check_unbiasedness(fm_ctx)
    details = dict(res.details)
    details["feature_map"] = desc
    details["composition"] = kernel.tree() if isinstance(kernel, CompositeKernel) else kernel.describe()
    verb = "estimates" if res.status == "pass" else "does not estimate"
    return replace(res, implementation=ctx.name, reproduce=ctx.reproduce, details=details,
                   message=f"{desc} {verb} {details['composition']}: {res.message}")


class _DeclaredSpace(TypedDict, total=False):
    """The keyword of :class:`~rfverify.kinds.feature_map.CheckContext` a declared space sets."""

    space: FeatureMapSpace


def _declared(plugin: FeatureMapPlugin, kernel: Kernel) -> _DeclaredSpace:
    """The composite map's declared space (``rfverify_space``: exact polynomial leaves exist only up to a width),
    so that the corners of unbiasedness stay inside it; nothing when it declares none."""
    from rfverify.spaces import FeatureMapSpace, declared_space

    declared = declared_space(plugin.obj)
    if declared is None:
        return {}
    return {"space": FeatureMapSpace.for_plugin(plugin, kernel, [declared])}

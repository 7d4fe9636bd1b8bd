"""Is a feature map data-dependent?  Declared, or detected once in the preflight.

A *data-dependent* map (alber2017's adapted bases, Nyström) is a deterministic function of the
data it was fitted to and its ``random_state``: its estimate is not an average of independent
random features, so unbiasedness over its randomness, Hoeffding concentration and the 1/m error
rate are not claims of the method.  rfverify decides it, in this order:

1. the caller's declaration: ``verify(..., data_dependent=True|False)`` / ``--data-dependent``;
2. the plug-in's declaration: an attribute ``data_dependent = True`` on the class, instance or
   factory, or on the object a factory builds;
3. detection: fit with *the same* ``random_state`` on two independent samples X1, X2 of the
   domain and transform the same probe points Z; features differing beyond round-off
   (``256 gamma_{d+2} max|Phi|``, the contract check's bound) mean fit depends on X.  A third fit
   on X1 guards against a map that is simply not reproducible (then nothing is decided here and
   the reproducibility check reports it).

The decision and how it was made are recorded in the report (``config.data_dependence``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["decide", "DETECT_M", "DETECT_N"]

#: Features and rows per sample for detection (3 fits and 3 transforms of the design's points).
DETECT_M = 16
DETECT_N = 48


def _declared_attr(obj: Any) -> bool:
    try:
        return getattr(obj, "data_dependent", None) is True
    except Exception:  # a raising property is not a declaration
        return False


def decide(ctx: Any, declared: bool | None) -> dict[str, Any]:
    """``{"data_dependent": bool, "decided_by": str, ...}`` for the map in ``ctx`` (a feature-map context).

    Raises :class:`~rfverify.errors.PluginError` if the map misbehaves while being probed.
    """
    from rfverify.metrics import sample_domain
    from rfverify.tolerances import contract_tolerance

    plugin = ctx.plugin
    if declared is True:
        return {"data_dependent": True, "decided_by": "declared by the caller (data_dependent=True / --data-dependent)"}
    if declared is False:
        return {"data_dependent": False,
                "decided_by": "declared not data-dependent by the caller (data_dependent=False); not probed"}
    if _declared_attr(plugin.obj):
        return {"data_dependent": True, "decided_by": f"declared by the plug-in (attribute data_dependent = True "
                f"on {plugin.name})"}
    dom = ctx.domain if isinstance(ctx.domain, str) else getattr(ctx.domain, "__qualname__", "domain")
    rng = ctx.seeds.rng("data-dependence", ctx.kernel.describe(), ctx.dim, dom)
    X1 = sample_domain(ctx.domain, ctx.dim, DETECT_N, ctx.pairs.scale, rng)
    X2 = sample_domain(ctx.domain, ctx.dim, DETECT_N, ctx.pairs.scale, rng)
    Z = ctx.stacked_inputs()
    rs = ctx.seeds.random_state("data-dependence", ctx.kernel.describe(), ctx.dim, dom, trial=0)
    f1 = plugin.fit(DETECT_M, rs, X1)
    if _declared_attr(f1.obj):
        return {"data_dependent": True, "decided_by": f"declared by the plug-in (attribute data_dependent = True "
                f"on the {type(f1.obj).__name__} it builds)"}
    F1 = f1.transform(Z)
    F1b = plugin.fit(DETECT_M, rs, X1).transform(Z)
    F2 = plugin.fit(DETECT_M, rs, X2).transform(Z)
    tol = contract_tolerance(ctx.dim, F1)
    same_x = float(np.max(np.abs(F1 - F1b))) if F1.shape == F1b.shape else float("inf")
    diff = float(np.max(np.abs(F1 - F2))) if F1.shape == F2.shape else float("inf")
    evidence = {"probe_m": DETECT_M, "fit_rows": DETECT_N, "random_state": rs, "tolerance": tol,
                "same_data_max_abs_diff": same_x, "other_data_max_abs_diff": diff}
    if same_x > tol:
        return {"data_dependent": False, "decided_by": "undecided: two fits on the same data with the same "
                f"random_state differ by {same_x:.3g} (see reproducibility); treated as not data-dependent",
                **evidence}
    if diff > tol:
        return {"data_dependent": True, "decided_by": f"detected: fits with the same random_state on two samples "
                f"of {DETECT_N} points change the features of the same probe points by up to {diff:.3g} "
                f"(round-off tolerance {tol:.3g})", **evidence}
    return {"data_dependent": False, "decided_by": f"detected not data-dependent: fits with the same random_state on "
            f"two samples of {DETECT_N} points give the same features (max difference {diff:.3g}, tolerance "
            f"{tol:.3g})", **evidence}

"""Reference kernels: the registry (:mod:`.base`), the built-in families (:mod:`.builtins`) and the
lecture's composition rules with the registry composites (:mod:`.composition`).

Registration is explicit: this module registers :data:`.builtins.BUILTINS` and
:data:`.composition.COMPOSITES` once, in that order.

>>> k = get_kernel("rbf", gamma=0.5)
>>> float(k.pairwise([[0.0, 0.0]], [[1.0, 1.0]])[0])  # exp(-0.5 * 2)
0.36787944117144233
"""

from __future__ import annotations

from rfverify.kernels import builtins as _builtins
from rfverify.kernels import composition as _composition
from rfverify.kernels.base import (_REGISTRY, Kernel, KernelSpec, ParamSpec, as_kernel, get_kernel, kernel_names,
                                   kernel_spec, register_kernel)

__all__ = ["Kernel", "KernelSpec", "ParamSpec", "register_kernel", "get_kernel", "kernel_names", "kernel_spec",
           "as_kernel"]

for _spec in (*_builtins.BUILTINS, *_composition.COMPOSITES):
    if _spec.name not in _REGISTRY:
        register_kernel(_spec)
del _spec

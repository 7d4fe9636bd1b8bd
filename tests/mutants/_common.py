"""What every kind's mutant module shares: the verify options of the zoo's correct schemes, and the entry makers."""

from __future__ import annotations

import math

from rfverify.studies.calibration import Mutant
from rfverify.implementations.compositional import zoo as cz

# ------------------------------------------------------------------ options (the zoo's declarations)
_S2 = math.sqrt(2.0)
RBF = {"kernel": "rbf", "kernel_params": {"gamma": 0.5}, "dim": 16, "bound": _S2}
STRUCTURED = {**RBF, "unbiased": False, "bias_bound": 0.05}
LAPLACIAN = {"kernel": "laplacian", "kernel_params": {"gamma": 0.5}, "dim": 16, "bound": _S2}
ARCCOS0 = {"kernel": "arccos", "kernel_params": {"order": 0}, "dim": 16, "bound": _S2}
ARCCOS1 = {"kernel": "arccos", "kernel_params": {"order": 1}, "dim": 16}
MAXOUT = {"kernel": "maxout", "kernel_params": {"q": 4}, "dim": 16}
COMPOSITIONAL = {"kernel": cz.shallow_kernel, "domain": cz.angle_domain, "dim": cz.SHALLOW_WIDTH, "bound": cz.BOUND}
ORTH_O = {"dim": 16, "group": "O"}
ORTH_SO = {"dim": 16, "group": "SO"}
HADAMARD = {"dim": 64, "matrix": "hadamard"}
HADAMARD_N = {"dim": 64, "matrix": "hadamard-normalized"}
SR33_DECL = {"dim": 8, "degree": 3, "unbiased": True}


def _m(name, kind, impl, options, caught_by, category, doc, **kw):
    return Mutant(name=name, kind=kind, implementation=impl, options=options, caught_by=tuple(caught_by),
                  category=category, doc=doc, **kw)


def _e(name, kind, impl, options, category, doc):
    return Mutant(name=name, kind=kind, implementation=impl, options=options, caught_by=(), category=category,
                  doc=doc, equivalent=True)

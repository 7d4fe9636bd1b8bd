"""The plug-in kinds, in one table.

A *kind* is what a plug-in is (a feature map, an orthogonal sampler, a fast transform, a quadrature rule, a
kernel).  Each kind is one module of this package: a frozen ``Options`` dataclass (its options, declared once:
:mod:`rfverify.kinds.options`), a configuration class subclassing :class:`rfverify.kinds.base.KindConfig` (the
plug-in contract), a context and ``verify_<kind>``; its checks live in the property modules listed here.  The CLI,
the pytest plugin, the zoo, calibration and the reports read :data:`KINDS` and nothing else, so adding a kind
means one module, its checks and one row below (ARCHITECTURE.md walks through it; ``tests/test_toy_kind.py`` does
it).

>>> list(KINDS)
['feature-map', 'orthogonal', 'transform', 'quadrature', 'kernel']
>>> get_kind("orthogonal").config_class().__name__
'OrthogonalConfig'
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from rfverify.errors import UsageError
from rfverify.registry import CheckSpec, registered_checks

__all__ = ["Kind", "KINDS", "get_kind", "checks_for", "check_names", "statistical_count", "catalogue",
           "CATALOGUE_HEADERS"]


@dataclass(frozen=True)
class Kind:
    """One row of the kind table.

    ``module``: the kind's module (its configuration class ``config`` and Python entry point ``verify``);
    ``checks``: the property modules registering its checks, in report order; ``summary``: one line for
    ``rfverify list`` and the CLI's help.
    """

    name: str
    module: str
    config: str
    verify: str
    checks: tuple[str, ...]
    summary: str

    def load(self) -> Any:
        return importlib.import_module(self.module)

    def config_class(self) -> Any:
        return getattr(self.load(), self.config)

    def verify_function(self) -> Any:
        return getattr(self.load(), self.verify)


#: Every plug-in kind, in the order the CLI and the reports list them.
KINDS: dict[str, Kind] = {k.name: k for k in (
    Kind("feature-map", "rfverify.kinds.feature_map", "FeatureMapConfig", "verify_feature_map",
         ("rfverify.properties.contract", "rfverify.properties.reproducibility", "rfverify.properties.exploration",
          "rfverify.properties.stateful",
          "rfverify.properties.unbiasedness",
          "rfverify.properties.concentration", "rfverify.properties.error_rate", "rfverify.properties.adapted"),
         "a feature map: factory, function, or sklearn-style estimator"),
    Kind("orthogonal", "rfverify.kinds.orthogonal", "OrthogonalConfig", "verify_orthogonal",
         ("rfverify.properties.orthogonality", "rfverify.properties.haar", "rfverify.properties.haar_screen",
          "rfverify.properties.exploration_orthogonal", "rfverify.properties.stateful_kinds"),
         "a random orthogonal-matrix sampler claimed Haar on O(d) or SO(d)"),
    Kind("transform", "rfverify.kinds.transform", "TransformConfig", "verify_transform",
         ("rfverify.properties.transform_exactness", "rfverify.properties.transform_contract",
          "rfverify.properties.exploration_transform", "rfverify.properties.stateful_kinds"),
         "a fast linear transform apply(X) claimed equal to X @ M.T"),
    Kind("quadrature", "rfverify.kinds.quadrature", "QuadratureConfig", "verify_quadrature",
         ("rfverify.properties.quadrature_exactness", "rfverify.properties.quadrature_unbiasedness",
          "rfverify.properties.exploration_quadrature", "rfverify.properties.stateful_kinds"),
         "a stochastic quadrature rule rule(d, rng) -> (points, weights)"),
    Kind("kernel", "rfverify.kinds.kernel", "KernelConfig", "verify_kernel",
         ("rfverify.properties.kernel_properties", "rfverify.properties.kernel_composition",
          "rfverify.properties.exploration_kernel"),
         "a kernel k(X, Y) -> Gram: symmetry, PSD (with a witness set), normalisation, composition rules"),
)}


def get_kind(name: Any) -> Kind:
    """The table row of kind ``name``; an unknown kind is a one-line :class:`UsageError`."""
    if not isinstance(name, str) or name not in KINDS:
        raise UsageError(f"unknown kind {name!r}; use one of {', '.join(KINDS)}")
    return KINDS[name]


def checks_for(kind: str) -> list[CheckSpec]:
    """All checks of ``kind``, in the order the table lists their modules."""
    modules = get_kind(kind).checks
    for mod in modules:
        importlib.import_module(mod)
    order = {m: i for i, m in enumerate(modules)}
    return sorted(registered_checks(kind), key=lambda s: order.get(s.func.__module__, len(order)))


def check_names(kind: str = "feature-map") -> list[str]:
    """Names of the registered checks of ``kind``."""
    return [s.name for s in checks_for(kind)]


#: The columns of the check catalogue (``rfverify list checks`` and the README).
CATALOGUE_HEADERS = ("check", "kind", "decided by", "what it verifies")


def catalogue() -> list[tuple[str, str, str, str]]:
    """One row per registered check of every kind, in the kinds' table order: name, kind, how its verdict is
    decided (:attr:`CheckSpec.decision`) and the first line of its docstring.  ``rfverify list checks`` prints it
    and the README's check catalogue is its Markdown form."""
    return [(s.name, kind, s.catalogue_decision, s.summary) for kind in KINDS for s in checks_for(kind)]


def statistical_count(kind: str) -> int:
    """How many checks of ``kind`` take a share of the family-wise alpha (it is split evenly between them): the
    statistical checks, less one that tests at the share of the checks it replaces (``alpha_share=False``)."""
    return sum(1 for s in checks_for(kind) if s.alpha_share)

"""The check registry and the context a check runs in.

A check is a small pure function ``check(ctx) -> CheckResult`` registered with
:func:`register_check`.  It never asserts.  Whether it applies is decided from
the plug-in's *declarations* (kernel, bound C, claimed unbiasedness, ...) by
its ``applies`` hook, never from the implementation's name.
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from rfverify.adapters import FeatureMapPlugin, FittedMap
from rfverify.domains import PairSet, make_pairs
from rfverify.kernels import Kernel
from rfverify.profiles import Profile
from rfverify.results import CheckResult, Effect
from rfverify.seeding import SeedSource

__all__ = [
    "BaseContext",
    "Declarations",
    "CheckSpec",
    "CheckContext",
    "register_check",
    "checks_for",
    "KINDS",
    "statistical_count",
    "not_for_data_dependent",
]

#: Plug-in kinds and the property modules that register their checks.
KINDS: dict[str, tuple[str, ...]] = {
    "feature-map": (
        "rfverify.properties.contract",
        "rfverify.properties.reproducibility",
        "rfverify.properties.unbiasedness",
        "rfverify.properties.concentration",
        "rfverify.properties.error_rate",
        "rfverify.properties.adapted",
    ),
    "orthogonal": (
        "rfverify.properties.orthogonality",
        "rfverify.properties.haar",
    ),
    "transform": (
        "rfverify.properties.transform_exactness",
        "rfverify.properties.transform_contract",
    ),
    "quadrature": (
        "rfverify.properties.quadrature_exactness",
        "rfverify.properties.quadrature_unbiasedness",
    ),
    "kernel": (
        "rfverify.properties.kernel_properties",
        "rfverify.properties.kernel_composition",
    ),
}


@dataclass(frozen=True)
class Declarations:
    """What the plug-in claims; these decide which checks apply.

    ``bound``: C with |feature| * sqrt(m) <= C (enables the Hoeffding check);
    ``unbiased``: E[k_hat] = k is claimed (default); ``bias_bound``: for a
    scheme claimed biased, the bound |E k_hat - k| <= bias_bound it promises;
    ``data_dependent``: fit depends on X (declared or detected, see
    :mod:`rfverify.data_dependence`): the checks over the features' randomness
    do not apply (:func:`not_for_data_dependent`).
    """

    bound: float | None = None
    unbiased: bool = True
    bias_bound: float | None = None
    data_dependent: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"bound": self.bound, "unbiased": self.unbiased, "bias_bound": self.bias_bound,
                "data_dependent": self.data_dependent}


def not_for_data_dependent(ctx: Any) -> str | None:
    """The skip reason of the checks over the features' randomness for a data-dependent map, else None."""
    if getattr(getattr(ctx, "declarations", None), "data_dependent", False):
        return ("not promised for a data-dependent map: an adapted basis is a deterministic function of its data "
                "and seed, not an average of independent random features, so a claim over the randomness of the "
                "basis (unbiasedness, concentration, the 1/m error rate) is not a claim of the method "
                "(alber2017 §3.2); adapted-approximation measures it on held-out points instead")
    return None


@dataclass(frozen=True)
class CheckSpec:
    kind: str
    name: str
    func: Callable[["CheckContext"], CheckResult]
    statistical: bool
    applies: Callable[["CheckContext"], str | None] | None
    cost: str

    @property
    def doc(self) -> str:
        return inspect.cleandoc(self.func.__doc__ or "")

    @property
    def summary(self) -> str:
        return self.doc.splitlines()[0] if self.doc else ""


_REGISTRY: dict[str, dict[str, CheckSpec]] = {}


def register_check(kind: str, name: str, *, statistical: bool,
                   applies: Callable[["CheckContext"], str | None] | None = None,
                   cost: str = "") -> Callable[[Callable[..., CheckResult]], Callable[..., CheckResult]]:
    """Decorator registering ``func`` as check ``name`` for plug-in ``kind``."""

    def deco(func: Callable[..., CheckResult]) -> Callable[..., CheckResult]:
        table = _REGISTRY.setdefault(kind, {})
        if name in table and table[name].func is not func:
            raise ValueError(f"check {kind}/{name} registered twice")
        table[name] = CheckSpec(kind, name, func, statistical, applies, cost)
        return func

    return deco


def checks_for(kind: str) -> list[CheckSpec]:
    """All checks of ``kind``, in the order their modules declare them."""
    for mod in KINDS.get(kind, ()):
        importlib.import_module(mod)
    table = _REGISTRY.get(kind, {})
    order = {m: i for i, m in enumerate(KINDS.get(kind, ()))}
    return sorted(table.values(), key=lambda s: order.get(s.func.__module__, 99))


def statistical_count(kind: str) -> int:
    return sum(1 for s in checks_for(kind) if s.statistical)


@dataclass
class Estimates:
    """Kernel estimates of R seeds at the pair design, for one feature count m."""

    values: np.ndarray  # (R, P)
    sup: np.ndarray  # (R,) max |feature| * sqrt(m_out) per seed
    m_out: int


@dataclass
class BaseContext:
    """What every check context has: identity, budget, alpha, seeds and the reproduce command.

    Each plug-in kind subclasses it with what its checks need (see
    :class:`CheckContext` for feature maps).
    """

    check: str
    profile: Profile
    seeds: SeedSource
    alpha: float
    reproduce: str

    @property
    def name(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def result(self, status: str, message: str, **kw: Any) -> CheckResult:
        """A :class:`CheckResult` pre-filled with this context's identity."""
        return CheckResult(
            check=self.check,
            implementation=self.name,
            status=status,
            message=message,
            seed=self.seeds.root,
            reproduce=self.reproduce,
            alpha=kw.pop("alpha", self.alpha if kw.get("p_value") is not None else None),
            **kw,
        )


@dataclass
class CheckContext(BaseContext):
    """Everything a feature-map check may use; randomness only via ``seeds``."""

    plugin: FeatureMapPlugin = None  # type: ignore[assignment]
    kernel: Kernel = None  # type: ignore[assignment]
    domain: Any = "gaussian"
    dim: int = 16
    declarations: Declarations = field(default_factory=Declarations)
    #: Shared by every check of one configuration, so the pair design (and, for a callable kernel,
    #: the calibration of the input scale) is computed once, not once per check.
    pair_cache: dict[str, PairSet] = field(default_factory=dict, repr=False)

    @property
    def name(self) -> str:
        return self.plugin.name

    @property
    def key(self) -> tuple[Any, ...]:
        """The stable key of this check's streams.

        The implementation is deliberately *not* in it: the same command
        reproduces a verdict however the implementation was named, and
        implementations are compared on common random numbers.
        """
        dom = self.domain if isinstance(self.domain, str) else getattr(self.domain, "__qualname__", "domain")
        return ("feature-map", self.check, self.kernel.describe(), self.dim, dom)

    def random_state(self, *stream: Any, trial: int) -> int:
        return self.seeds.random_state(*self.key, *stream, trial=trial)

    def rng(self, *stream: Any) -> np.random.Generator:
        return self.seeds.rng(*self.key, *stream)

    @property
    def pairs(self) -> PairSet:
        """The designed input pairs (the same for every check of a configuration)."""
        if "pairs" not in self.pair_cache:
            dom = self.domain if isinstance(self.domain, str) else getattr(self.domain, "__qualname__", "domain")
            rng = self.seeds.rng("pairs", self.kernel.describe(), self.dim, dom)
            self.pair_cache["pairs"] = make_pairs(self.domain, self.dim, self.kernel, rng)
        return self.pair_cache["pairs"]

    def stacked_inputs(self) -> np.ndarray:
        p = self.pairs
        return np.vstack([p.X, p.Y])

    def fit(self, m: int, random_state: int) -> FittedMap:
        return self.plugin.fit(m, random_state, self.stacked_inputs())

    def estimate_once(self, m: int, random_state: int) -> tuple[np.ndarray, float, int]:
        """k_hat at every pair from one draw; also max |feature| * sqrt(m_out)."""
        Z = self.stacked_inputs()
        fitted = self.fit(m, random_state)
        F = fitted.transform(Z)
        P = self.pairs.n
        k_hat = np.real(np.sum(F[:P] * np.conj(F[P:]), axis=1))
        sup = float(np.max(np.abs(F))) * np.sqrt(F.shape[1])
        return k_hat, sup, F.shape[1]

    def estimates(self, m: int, trials: range, *stream: Any) -> Estimates:
        vals = np.empty((len(trials), self.pairs.n))
        sups = np.empty(len(trials))
        m_out = 0
        for i, t in enumerate(trials):
            vals[i], sups[i], m_out = self.estimate_once(m, self.random_state(*stream, m, trial=t))
        return Estimates(vals, sups, m_out)


def effect(name: str, estimate: float, low: float, high: float, confidence: float,
           detectable: float | None = None, power: float | None = None) -> Effect:
    return Effect(name, float(estimate), float(low), float(high), float(confidence),
                  None if detectable is None else float(detectable),
                  None if power is None else float(power))


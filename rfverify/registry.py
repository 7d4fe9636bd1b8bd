"""The check registry and the context a check runs in.

A check is a small pure function ``check(ctx) -> CheckResult`` registered with
:func:`register_check`.  It never asserts.  Whether it applies is decided from
the plug-in's *declarations* (kernel, bound C, claimed unbiasedness, ...) by
its ``applies`` hook, never from the implementation's name.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable, Generic, Protocol, Sequence, TypeAlias, TypeVar, runtime_checkable

from rfverify.measurement import Measurement
from rfverify.messages import Finding, failure_message
from rfverify.profiles import Profile
from rfverify.results import CheckResult, Effect
from rfverify.seeding import SeedSource

__all__ = ["BaseContext", "CheckSpec", "DECISIONS", "Finding", "register_check", "registered_checks", "effect",
           "PluginObject", "PluginArray", "RunnableConfig", "MeasuredConfig"]

#: The object a plug-in hands over (a class, an instance, a callable, a module attribute) or a value it returned
#: before it is validated: its type is genuinely unknown until a check has looked at it, so it is ``Any`` — the
#: one place the type checker is told so, and the name says why.
PluginObject: TypeAlias = Any
#: An input handed to a plug-in in the array library it takes (numpy, torch, JAX, CuPy, dask: :mod:`rfverify.arrays`)
#: or as a list or tuple of rows: its type is the plug-in's library's, unknown to the harness.
PluginArray: TypeAlias = Any

#: How a check's verdict is decided (:attr:`CheckSpec.decision`): by a test at the check's alpha, by a derived
#: round-off tolerance, or not at all (a measurement reported as a table, judged only on its contract).
DECISIONS = ("statistical", "deterministic", "measurement")


@dataclass(frozen=True)
class CheckSpec:
    """A registered check and what its registration declares.

    ``decision`` says how the verdict is decided: ``statistical`` (a test at ``ctx.alpha``), ``deterministic``
    (against a derived round-off tolerance) or ``measurement`` (a table of measured numbers, no verdict beyond
    the contract).  ``alpha_share``: the check takes its own share
    of the kind's family-wise alpha (``statistical_count`` counts these); a statistical check that runs exactly
    where others of the kind are skipped tests at one of *their* shares, so the split stays as it is.
    """

    kind: str
    name: str
    func: Callable[["BaseContext"], CheckResult]
    decision: str
    alpha_share: bool
    applies: Callable[["BaseContext"], str | None] | None
    cost: str
    #: The plots its ``details`` feed (names in :data:`rfverify.report.plots.PLOTTERS`).
    figures: tuple[str, ...] = ()
    #: The typed measurement its ``details`` are made from (:mod:`rfverify.measurement`), when it declares one.
    measurement: type[Measurement] | None = None

    @property
    def statistical(self) -> bool:
        """Decided by a hypothesis test at ``ctx.alpha`` (whether or not it has an alpha share of its own)."""
        return self.decision == "statistical"

    @property
    def doc(self) -> str:
        return inspect.cleandoc(self.func.__doc__ or "")

    @property
    def catalogue_decision(self) -> str:
        """The decision as the check catalogue states it (a shared alpha said so)."""
        if self.statistical and not self.alpha_share:
            return "statistical (shared α)"
        return self.decision

    @property
    def summary(self) -> str:
        """The docstring's first paragraph on one line (the check catalogue's "what it verifies")."""
        return " ".join(self.doc.split("\n\n")[0].split())


_REGISTRY: dict[str, dict[str, CheckSpec]] = {}


def register_check(kind: str, name: str, *, statistical: bool, alpha_share: bool | None = None,
                   decision: str | None = None,
                   applies: Callable[..., str | None] | None = None,
                   cost: str = "", figures: tuple[str, ...] = (),
                   measurement: type[Measurement] | None = None) -> Callable[[Callable[..., CheckResult]], Callable[..., CheckResult]]:
    """Decorator registering ``func`` as check ``name`` for plug-in ``kind``.

    ``statistical``: the verdict is a hypothesis test at ``ctx.alpha``.  ``alpha_share`` (default: the same as
    ``statistical``): it takes its own share of the kind's family-wise alpha; ``False`` for a statistical check
    that applies exactly where checks with shares are skipped and tests at one of theirs.  ``decision`` names a
    non-statistical check's kind of verdict when it is not ``deterministic``: ``measurement``.  ``figures``: the
    names of the plots (:mod:`rfverify.report.plots`) its ``details`` feed; each result carries them, and a report
    draws exactly those.  ``measurement``: the check's :class:`~rfverify.measurement.Measurement` dataclass, whose
    ``FIGURES`` are then the check's figures (``figures`` must not be given too) and whose fields document its
    details.
    """
    if measurement is not None:
        if figures:
            raise ValueError(f"check {kind}/{name}: its measurement declares the figures")
        figures = measurement.FIGURES
    share = statistical if alpha_share is None else alpha_share
    how = decision or ("statistical" if statistical else "deterministic")
    if (how == "statistical") != statistical or how not in DECISIONS:
        raise ValueError(f"check {kind}/{name}: decision {decision!r} contradicts statistical={statistical}")
    if share and not statistical:
        raise ValueError(f"check {kind}/{name}: only a statistical check takes a share of alpha")

    def deco(func: Callable[..., CheckResult]) -> Callable[..., CheckResult]:
        table = _REGISTRY.setdefault(kind, {})
        if name in table and table[name].func is not func:
            raise ValueError(f"check {kind}/{name} registered twice")
        table[name] = CheckSpec(kind, name, func, how, share, applies, cost, tuple(figures), measurement)
        return func

    return deco


def registered_checks(kind: str) -> list[CheckSpec]:
    """The checks registered so far under ``kind``, in registration order (:func:`rfverify.kinds.checks_for`
    imports a kind's property modules first and orders them by the kind table)."""
    return list(_REGISTRY.get(kind, {}).values())


#: The configuration type of a kind's context (its :class:`rfverify.kinds.base.KindConfig`).
C = TypeVar("C", bound="RunnableConfig | None")


@dataclass
class BaseContext(Generic[C]):
    """What every check context has: identity, budget, alpha, seeds, the reproduce command and the configuration
    the check runs under (``config``, the kind's :class:`rfverify.kinds.base.KindConfig`).

    Each plug-in kind subclasses it with what its checks need (see
    :class:`rfverify.kinds.feature_map.CheckContext` for feature maps).
    """

    check: str
    profile: Profile
    seeds: SeedSource
    alpha: float
    reproduce: str
    #: The kind's configuration (None only for a feature-map context built around another plug-in by a check).
    config: C
    #: Strict space (``--strict-space``): a refusal anywhere in the searched space fails ``explore``
    #: (:mod:`rfverify.refusals`); by default a clean refusal away from the main configuration narrows the space.
    strict_space: bool = False
    #: The plots the check declared (:func:`register_check`), carried by every result it makes.
    figures: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """The plug-in's name in every result: the configuration's :attr:`RunnableConfig.plugin_name`."""
        if self.config is None:
            raise ValueError(f"check {self.check}: a context without a configuration names its plug-in itself")
        return self.config.plugin_name

    def result(self, status: str, message: str, **kw: Any) -> CheckResult:
        """A :class:`CheckResult` pre-filled with this context's identity."""
        return CheckResult(
            check=self.check,
            implementation=self.name,
            status=status,
            message=message,
            seed=self.seeds.root,
            reproduce=self.reproduce,
            alpha=kw.pop("alpha", self.alpha if kw.get("pvalue") is not None else None),
            figures=kw.pop("figures", self.figures),
            **kw,
        )

    def fail(self, headline: str, observed: str | None = None, expected: str | None = None, *,
             interval: tuple[float, float] | None = None, level: float | None = None, evidence: str = "",
             where: str = "", cause: str = "", findings: Sequence[Finding] = (), note: str = "", status: str = "fail",
             prefix: str = "", **kw: Any) -> CheckResult:
        """A failing :class:`CheckResult` whose message is :func:`rfverify.messages.failure_message`.

        ``headline``, ``observed``, ``expected``, ``interval``/``level``, ``evidence``, ``where``, ``cause``,
        ``findings`` and ``note`` shape the message; every other keyword (``statistic``, ``pvalue``,
        ``threshold``, ``effect``, ``details``) goes to :meth:`result` unchanged.  ``status``: ``"xfail"``
        for a finding the plug-in declared (the message is the same), with ``prefix`` before it.
        """
        if status not in ("fail", "xfail"):
            raise ValueError(f"fail() makes a failing result (status 'fail' or 'xfail'), not {status!r}")
        message = failure_message(headline, observed, expected, interval=interval, level=level, evidence=evidence,
                                  where=where, cause=cause, findings=findings, note=note)
        return self.result(status, prefix + message, **kw)


@runtime_checkable
class RunnableConfig(Protocol):
    """What :func:`rfverify.runner.run` and the supervised child rely on in a kind's configuration; every kind's
    :class:`rfverify.kinds.base.KindConfig` implements it (``tests/test_kinds_selection.py`` holds them to it)."""

    profile: Profile
    strict_space: bool

    @property
    def kind(self) -> str:
        """The kind (a key of :data:`rfverify.kinds.KINDS`)."""

    @property
    def label(self) -> str:
        """The implementation in the report header (``MODULE:ATTR`` where it is importable)."""

    @property
    def plugin_name(self) -> str:
        """The plug-in's name in every result and message (what a check context's ``name`` is)."""

    def checks(self) -> list[CheckSpec]:
        """The kind's checks, in report order."""

    def context(self, spec: CheckSpec) -> BaseContext:
        """The context check ``spec`` runs in."""

    def preflight(self) -> str | None:
        """Call the plug-in once; the problem, or None."""

    def header(self) -> dict[str, object]:
        """The report header."""


class MeasuredConfig(RunnableConfig, Protocol):
    """A configuration whose kind computes the report's ``metrics`` block (feature maps)."""

    def metrics(self) -> dict[str, object]:
        """The metrics block (kernel-approximation metrics of the plug-in at the profile's sizes)."""


def effect(name: str, estimate: float, low: float, high: float, confidence: float,
           detectable: float | None = None, power: float | None = None) -> Effect:
    return Effect(name, float(estimate), float(low), float(high), float(confidence),
                  None if detectable is None else float(detectable),
                  None if power is None else float(power))


"""What every plug-in kind shares: :class:`KindConfig`.

A kind's configuration class (one per module of :mod:`rfverify.kinds`) subclasses :class:`KindConfig` and
provides only what is its own:

* the plug-in contract: ``__init__`` validates the options and wraps the plug-in; ``preflight()`` calls it
  once; ``_context(spec, alpha, reproduce)`` builds the context its checks receive;
* what it is held to (``target()``) and its configuration record (``as_dict()``);
* its options on the command line (``CLI``, ``add_cli_options``, ``from_cli``) and in the reproduce
  command (``reproduce_options()``).

The base owns the rest, once: the seed and profile, the one dimension rule (:meth:`KindConfig.validate_dim`,
with the kind's documented range ``DIM_RANGE``), the alpha split between statistical checks, the check
list (:func:`rfverify.kinds.checks_for`), the reproduce command and the report header.  The generic runner
(:func:`rfverify.runner.run`) needs nothing else.
"""

from __future__ import annotations

import abc
import argparse
import shlex
from typing import Any, ClassVar

import numpy as np

from rfverify.arrays import INPUTS
from rfverify.errors import UsageError
from rfverify.kinds import checks_for, statistical_count
from rfverify.profiles import Profile, get_profile
from rfverify.registry import BaseContext, CheckSpec
from rfverify.seeding import SeedSource

__all__ = ["KindConfig", "CliSpec", "parse_int"]


def parse_int(text: Any, what: str) -> int:
    """An integer option from the command line (``what`` names it in the one-line error)."""
    try:
        return int(text)
    except (TypeError, ValueError):
        raise UsageError(f"{what} must be an integer, got {text!r}") from None


class CliSpec:
    """The ``rfverify check KIND`` sub-command of a kind: its description and the target's metavar (the
    one-line help is the kind table's ``summary``)."""

    def __init__(self, description: str, metavar: str = "MODULE:ATTR", many: bool = False) -> None:
        #: ``many``: the sub-command takes several targets with the same options (run as work units on the
        #: executor of --jobs / --scheduler).
        self.description, self.metavar, self.many = description, metavar, many


def add_call_kw_option(p: argparse.ArgumentParser) -> None:
    """``--call-kw KEY=VALUE`` (repeatable): an extra keyword of every call into the plug-in."""
    p.add_argument("--call-kw", action="append", default=[], metavar="KEY=VALUE",
                   help="an extra keyword of every call into the plug-in (a Python literal or a bare word; "
                   "repeatable), e.g. --call-kw axes=1; a keyword the callable does not accept is a usage error")


class KindConfig(abc.ABC):
    """Base of every kind's validated configuration (it implements :class:`rfverify.registry.RunnableConfig`, what
    the runner relies on).

    Subclasses set ``kind`` (a key of :data:`rfverify.kinds.KINDS`), ``DIM_RANGE`` (the dimensions the kind
    accepts, with the reason in ``DIM_WHY``) and ``CLI``, and implement ``_context``, ``target``,
    ``as_dict``, ``preflight``, ``reproduce_options``, ``add_cli_options`` and ``from_cli`` (abstract), and call
    ``super().__init__(seed, profile)``.
    """

    kind: ClassVar[str]
    #: Inclusive range of the input/matrix dimension d this kind accepts.
    DIM_RANGE: ClassVar[tuple[int, int]] = (1, 4096)
    #: Why the upper end is where it is (shown in ``ARCHITECTURE.md``).
    DIM_WHY: ClassVar[str] = ""
    CLI: ClassVar[CliSpec]

    seeds: SeedSource
    profile: Profile
    #: A refusal anywhere in the explored space fails ``explore`` (``--strict-space``; :mod:`rfverify.refusals`).
    strict_space: bool = False
    #: The space the caller narrowed (``space=``, ``--space KEY=LO:HI``), echoed in every reproduce command.
    caller_space: dict[str, Any] = {}

    def __init__(self, seed: Any, profile: str | Profile) -> None:
        """Seed source and profile (every kind's ``__init__`` calls ``super().__init__(seed, profile)``)."""
        self.seeds = SeedSource(seed)
        self.profile = get_profile(profile)

    @classmethod
    def validate_dim(cls, dim: Any, what: str = "dim") -> int:
        """The one dimension rule: an integer (not a bool) in ``DIM_RANGE``; else a one-line UsageError."""
        lo, hi = cls.DIM_RANGE
        if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or not lo <= int(dim) <= hi:
            raise UsageError(f"{what} must be an integer in [{lo}, {hi}], got {dim!r}")
        return int(dim)

    # -- shared by every kind ----------------------------------------------------------------
    def checks(self) -> list[CheckSpec]:
        """The kind's checks, in report order."""
        return checks_for(self.kind)

    def alpha(self) -> float:
        """Each statistical check's share of the profile's family-wise alpha (Bonferroni over the kind's
        statistical checks; fixed by the registry, not by the selection, so a verdict never depends on it)."""
        return self.profile.family_alpha / max(1, statistical_count(self.kind))

    def context(self, spec: CheckSpec) -> BaseContext:
        """The context check ``spec`` runs in."""
        ctx = self._context(spec, self.alpha(), self.reproduce(spec.name))
        ctx.strict_space = bool(self.strict_space)
        ctx.figures = spec.figures
        return ctx

    @property
    def target_spec(self) -> str | None:
        """The plug-in as ``MODULE:ATTR`` (None: not importable by name)."""
        return getattr(getattr(self, "plugin", None), "spec", None)

    def reproduce(self, check: str) -> str:
        """The one command that reproduces ``check`` under this configuration."""
        from rfverify.options import space_options

        parts = ["rfverify", "check", self.kind, self.target_spec or "<MODULE:ATTR>", *self.reproduce_options(),
                 *space_options(self.caller_space), *(["--strict-space"] if self.strict_space else []),
                 "--seed", str(self.seeds.root), "--profile", self.profile.name, "--check", check]
        return " ".join(shlex.quote(p) if not p.startswith("<") else p for p in parts)

    def header(self) -> dict[str, Any]:
        """The report header: implementation, kind, target, seed, profile and configuration."""
        return {"implementation": self.label, "kind": self.kind, "kernel": self.target(), "seed": self.seeds.root,
                "profile": self.profile.name, "config": self.as_dict()}

    @property
    def label(self) -> str:
        plugin = getattr(self, "plugin", None)
        return self.target_spec or str(getattr(plugin, "name", None) or "implementation")

    # -- what each kind provides (abstract: a kind that forgets one cannot be instantiated) ---------------
    @abc.abstractmethod
    def _context(self, spec: CheckSpec, alpha: float, reproduce: str) -> BaseContext:
        """The context check ``spec`` runs in, at the check's ``alpha`` with its ``reproduce`` command."""

    @abc.abstractmethod
    def target(self) -> dict[str, Any]:
        """What the implementation is held to (a kernel, a group, a matrix, an integral), as the report states it."""

    @abc.abstractmethod
    def as_dict(self) -> dict[str, Any]:
        """The configuration record of the report."""

    @abc.abstractmethod
    def preflight(self) -> str | None:
        """Call the plug-in once (a health check); the problem, or None."""

    @abc.abstractmethod
    def reproduce_options(self) -> list[str]:
        """This configuration's options in the reproduce command (between the target and ``--seed``)."""

    @classmethod
    @abc.abstractmethod
    def add_cli_options(cls, parser: argparse.ArgumentParser) -> None:
        """The kind's options on ``rfverify check <kind>``."""

    @classmethod
    @abc.abstractmethod
    def from_cli(cls, args: argparse.Namespace) -> "KindConfig":
        """The configuration from parsed command-line options."""


def add_input_option(parser: argparse.ArgumentParser, how: str) -> None:
    """``--input numpy|torch|jax|cupy``: the array library a plug-in is handed its inputs in (:mod:`rfverify.arrays`)."""
    parser.add_argument("--input", choices=INPUTS, default="numpy",
                        help=f"the array library the plug-in takes its inputs in (default numpy; {how}); outputs of "
                        "numpy, torch, JAX, CuPy and dask are accepted and judged with their dtype's round-off")

"""What every plug-in kind shares: :class:`KindConfig`.

A kind's configuration class (one per module of :mod:`rfverify.kinds`) subclasses :class:`KindConfig` and
provides only what is its own:

* its options, declared once in a frozen ``Options`` dataclass (:mod:`rfverify.kinds.options`): each field's
  metadata generates the options of ``rfverify check KIND``, ``from_cli``, the reproduce options and the keywords
  of ``verify_<kind>``;
* the plug-in contract: ``_setup(implementation, name)`` validates ``self.options`` and wraps the plug-in;
  ``preflight()`` calls it once; ``_context(spec, alpha, reproduce)`` builds the context its checks receive;
* what it is held to (``target()``) and its configuration record (``as_dict()``).

The base owns the rest, once: the seed and profile, the one dimension rule (:meth:`KindConfig.validate_dim`,
with the kind's documented range ``DIM_RANGE``), the alpha split between statistical checks, the check
list (:func:`rfverify.kinds.checks_for`), the command line, the reproduce command and the report header.  The
generic runner (:func:`rfverify.runner.run`) needs nothing else.
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
from rfverify.kinds.options import add_arguments, read_arguments, render
from rfverify.profiles import Profile, get_profile
from rfverify.registry import BaseContext, CheckSpec
from rfverify.seeding import DEFAULT_SEED, SeedSource

__all__ = ["KindConfig", "CliSpec", "parse_int", "call_kw_option", "input_option", "space_option", "pins_option",
           "pin_flag"]


def parse_int(text: Any, what: str) -> int:
    """An integer option from the command line (``what`` names it in the one-line error)."""
    try:
        return int(text)
    except (TypeError, ValueError):
        raise UsageError(f"{what} must be an integer, got {text!r}") from None


class CliSpec:
    """The ``rfverify check KIND`` sub-command of a kind: its description, the examples under its ``--help``
    (each parses: ``tests/test_cli_text.py``) and the target's metavar (the one-line help is the kind table's
    ``summary``)."""

    def __init__(self, description: str, metavar: str = "MODULE:ATTR", many: bool = False,
                 examples: tuple[str, ...] = ()) -> None:
        #: ``many``: the sub-command takes several targets with the same options (run as work units on the
        #: executor of --jobs / --scheduler).
        self.description, self.metavar, self.many, self.examples = description, metavar, many, examples


def call_kw_option(render: Any = None) -> Any:
    """The ``call_kw`` field of a kind's ``Options``: ``--call-kw KEY=VALUE`` (repeatable), an extra keyword of
    every call into the plug-in; ``render(config)``: its reproduce options."""
    from rfverify.kinds.options import option
    from rfverify.plugin_calls import parse_call_kw

    return option(None, flag="--call-kw", action="append", cli_default=[], metavar="KEY=VALUE", parse=parse_call_kw,
                  render=render, help="an extra keyword of every call into the plug-in (a Python literal or a bare "
                  "word; repeatable), e.g. --call-kw axes=1; a keyword the callable does not accept is a usage error")


def input_option(how: str, render: Any = None) -> Any:
    """The ``input`` field of a kind's ``Options``: ``--input numpy|torch|jax|cupy``, the array library a plug-in is
    handed its inputs in (:mod:`rfverify.arrays`); None stands for numpy."""
    from rfverify.kinds.options import option

    return option(None, flag="--input", choices=INPUTS, cli_default="numpy", render=render,
                  parse=lambda text: None if text in (None, "numpy") else text,
                  help=f"the array library the plug-in takes its inputs in (default numpy; {how}); outputs of "
                  "numpy, torch, JAX, CuPy and dask are accepted and judged with their dtype's round-off")


def space_option() -> Any:
    """The ``space`` field of a kind's ``Options``: the caller's narrowing of the explored space (``--space``, one of
    every sub-command's common options; echoed by :meth:`KindConfig.reproduce` through ``caller_space``)."""
    from rfverify.kinds.options import option
    from rfverify.options import parse_space

    return option(None, read=lambda args: parse_space(getattr(args, "space", None)))


def pins_option(add: Any, render: Any = None) -> Any:
    """The ``pins`` field of a kind's ``Options``: axes of the explored space fixed (``--pin KEY=VALUE``, and for
    feature maps ``--n-components`` ... : ``add`` adds the kind's flags; :mod:`rfverify.kinds.pins` reads them)."""
    from rfverify.kinds.options import option
    from rfverify.kinds.pins import pins_from_cli

    return option(None, add=add, read=pins_from_cli, render=render)


def pin_flag(metavar: str, help: str) -> Any:
    """``add`` of a kind whose pins are the repeatable ``--pin`` alone."""
    def add(p: argparse.ArgumentParser) -> None:
        p.add_argument("--pin", action="append", default=[], metavar=metavar, help=help)

    return add


class KindConfig(abc.ABC):
    """Base of every kind's validated configuration (it implements :class:`rfverify.registry.RunnableConfig`, what
    the runner relies on).

    Subclasses set ``kind`` (a key of :data:`rfverify.kinds.KINDS`), ``Options`` (a frozen dataclass of
    :func:`rfverify.kinds.options.option` fields), ``DIM_RANGE`` (the dimensions the kind accepts, with the reason
    in ``DIM_WHY``) and ``CLI``, and implement ``_setup``, ``_context``, ``target``, ``as_dict`` and ``preflight``
    (abstract).  ``KindConfig(implementation, seed=, profile=, name=, **options)``: ``options`` are the fields of
    ``Options`` (an unknown one is a TypeError).
    """

    kind: ClassVar[str]
    #: Inclusive range of the input/matrix dimension d this kind accepts.
    DIM_RANGE: ClassVar[tuple[int, int]] = (1, 4096)
    #: Why the upper end is where it is (shown in ``ARCHITECTURE.md``).
    DIM_WHY: ClassVar[str] = ""
    CLI: ClassVar[CliSpec]
    #: The kind's options, declared once (:mod:`rfverify.kinds.options`).
    Options: ClassVar[type]
    #: The first parameter of ``verify_<kind>``.
    TARGET: ClassVar[str] = "implementation"

    options: Any
    seeds: SeedSource
    profile: Profile
    #: A refusal anywhere in the explored space fails ``explore`` (``--strict-space``; :mod:`rfverify.refusals`).
    strict_space: bool = False
    #: The space the caller narrowed (``space=``, ``--space KEY=LO:HI``), echoed in every reproduce command.
    caller_space: dict[str, Any] = {}

    def __init__(self, implementation: Any, *, seed: Any = DEFAULT_SEED, profile: str | Profile = "default",
                 name: str | None = None, **options: Any) -> None:
        """The options (``self.options``), seed source and profile, then the kind's :meth:`_setup`."""
        self.options = self.Options(**options)
        self.seeds = SeedSource(seed)
        self.profile = get_profile(profile)
        self._setup(implementation, name)

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
        """The report header: implementation, kind, ``target`` (what the implementation is held to: a kernel, a
        group, a matrix, an integral), seed, profile and configuration (the report stores the target as
        :attr:`rfverify.results.Report.target`, under the JSON key ``kernel`` of its schema)."""
        return {"implementation": self.label, "kind": self.kind, "target": self.target(), "seed": self.seeds.root,
                "profile": self.profile.name, "config": self.as_dict()}

    @property
    def label(self) -> str:
        """The implementation in the report header: ``MODULE:ATTR`` where it is importable, else its name."""
        plugin = getattr(self, "plugin", None)
        return self.target_spec or str(getattr(plugin, "name", None) or "implementation")

    @property
    def plugin_name(self) -> str:
        """The plug-in's name in every result and message (``name=``, else the object's own name)."""
        return str(self.plugin.name)  # type: ignore[attr-defined]

    # -- the command line and the reproduce command, generated from ``Options`` -------------------------
    def reproduce_options(self) -> list[str]:
        """This configuration's options in the reproduce command (between the target and ``--seed``)."""
        return render(self)

    @classmethod
    def add_cli_options(cls, parser: argparse.ArgumentParser) -> None:
        """The kind's options on ``rfverify check <kind>``."""
        add_arguments(cls.Options, parser)

    @classmethod
    def cli_options(cls, args: argparse.Namespace) -> dict[str, Any]:
        """The ``Options`` keywords of parsed command-line options."""
        return read_arguments(cls.Options, args)

    @classmethod
    def from_cli(cls, args: argparse.Namespace) -> "KindConfig":
        """The configuration from parsed command-line options."""
        from rfverify.options import parse_seed

        return cls(args.target, seed=parse_seed(args.seed), profile=args.profile, **cls.cli_options(args))

    # -- what each kind provides (abstract: a kind that forgets one cannot be instantiated) ---------------
    @abc.abstractmethod
    def _setup(self, implementation: Any, name: str | None) -> None:
        """Validate ``self.options`` and wrap the plug-in ``implementation`` (named ``name``, None: its own)."""

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

"""A kind's options, declared once.

Each kind declares a frozen ``Options`` dataclass (:attr:`rfverify.kinds.base.KindConfig.Options`); every field is
made by :func:`option`, whose metadata says everything the other ways in need to know about that option, the way
pytest's ``addoption`` and Hypothesis' ``settings`` declare an option once:

* the default and the type (the field's own);
* its command-line form: the flag and the keywords of ``add_argument`` (help, action, choices, metavar, the
  command line's default), the parser from the parsed text to the value (``parse``), or, for an option spread
  over several flags, the function adding them (``add``) and the one reading them back (``read``);
* its rendering in the reproduce command (``render(config) -> [options]``, from the validated configuration);
* whether it is a keyword of the kind's ``verify_<kind>`` (``public``; an internal field is not).

From it, :func:`add_arguments` builds the options of ``rfverify check KIND``, :func:`read_arguments` reads them
back into ``Options`` keywords (``KindConfig.from_cli``), :func:`render` gives the reproduce options and
:func:`make_verify` writes the kind's ``verify_<kind>(implementation, *, ...)`` with its signature.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Toy:
...     dim: int = option(8, flag="--dim", help="dimension d (default 8)", cli_default="8", parse=int,
...                       render=lambda c: ["--dim", str(c.dim)])
>>> import argparse
>>> p = argparse.ArgumentParser()
>>> add_arguments(Toy, p)
>>> read_arguments(Toy, p.parse_args(["--dim", "3"]))
{'dim': 3}
"""

from __future__ import annotations

import argparse
import inspect
from dataclasses import MISSING, Field, dataclass, field, fields
from typing import Any, Callable, Iterable, Mapping

__all__ = ["option", "OptionSpec", "add_arguments", "read_arguments", "render", "public_fields", "make_verify",
           "RUN_KEYWORDS"]

_KEY = "rfverify"
_UNSET: Any = object()


@dataclass(frozen=True)
class OptionSpec:
    """What :func:`option` records in a field's metadata."""

    help: str = ""
    #: The command-line flag (None: not on the command line, or added by ``add``).
    flag: str | None = None
    #: Other keywords of ``add_argument`` (action, choices, metavar, default, dest).
    argparse_kw: Mapping[str, Any] = field(default_factory=dict)
    #: The parsed value (of the flag's destination) -> the option's value; None: as parsed.
    parse: Callable[[Any], Any] | None = None
    #: Adds the flags of an option spread over several (a mutually exclusive pair, the pins).
    add: Callable[[argparse.ArgumentParser], None] | None = None
    #: Reads such an option back from the whole namespace.
    read: Callable[[argparse.Namespace], Any] | None = None
    #: The option's part of the reproduce command, from the validated configuration.
    render: Callable[[Any], list[str]] | None = None
    #: A keyword of ``verify_<kind>`` (False: internal, set by another part of rfverify).
    public: bool = True


def option(default: Any = _UNSET, *, help: str = "", flag: str | None = None, cli_default: Any = _UNSET,
           parse: Callable[[Any], Any] | None = None, add: Callable[[argparse.ArgumentParser], None] | None = None,
           read: Callable[[argparse.Namespace], Any] | None = None, render: Callable[[Any], list[str]] | None = None,
           public: bool = True, **argparse_kw: Any) -> Any:
    """A field of a kind's ``Options``: its ``default`` and everything the command line, the reproduce command and
    the Python API need (see the module docstring).  ``cli_default``: the flag's default as the command line spells
    it (``"16"`` for ``--dim``), when the flag has one; ``argparse_kw``: ``action``, ``choices``, ``metavar``, ...
    """
    kw = dict(argparse_kw)
    if cli_default is not _UNSET:
        kw["default"] = cli_default
    spec = OptionSpec(help=help, flag=flag, argparse_kw=kw, parse=parse, add=add, read=read, render=render,
                      public=public)
    if default is _UNSET:
        return field(metadata={_KEY: spec})
    return field(default=default, metadata={_KEY: spec})


def _spec(f: Field[Any]) -> OptionSpec:
    return f.metadata.get(_KEY) or OptionSpec()


def add_arguments(options: type, parser: argparse.ArgumentParser) -> None:
    """The options of ``rfverify check KIND``, in field order."""
    for f in fields(options):
        s = _spec(f)
        if s.add is not None:
            s.add(parser)
        elif s.flag is not None:
            parser.add_argument(s.flag, help=s.help, **s.argparse_kw)


def _dest(s: OptionSpec) -> str:
    return str(s.argparse_kw.get("dest") or s.flag.lstrip("-").replace("-", "_"))  # type: ignore[union-attr]


def read_arguments(options: type, args: argparse.Namespace) -> dict[str, Any]:
    """The ``Options`` keywords given by parsed command-line options (every field with a command-line form)."""
    out: dict[str, Any] = {}
    for f in fields(options):
        s = _spec(f)
        if s.read is not None:
            out[f.name] = s.read(args)
        elif s.flag is not None:
            value = getattr(args, _dest(s), None)
            out[f.name] = s.parse(value) if s.parse is not None else value
    return out


def render(config: Any) -> list[str]:
    """The reproduce options of ``config`` (between the target and ``--space``/``--seed``), in field order."""
    out: list[str] = []
    for f in fields(config.Options):
        s = _spec(f)
        if s.render is not None:
            out += s.render(config)
    return out


def public_fields(options: type) -> list[Field[Any]]:
    return [f for f in fields(options) if _spec(f).public]


#: The keywords of every ``verify_<kind>`` that go to :func:`rfverify.runner.run`, with their defaults and types.
RUN_KEYWORDS: dict[str, tuple[Any, str]] = {
    "checks": (None, "Iterable[str] | None"),
    "xfail": (None, "Mapping[str, str] | None"),
    "time_limit": (None, "float | None"),
    "memory_limit": (None, "int | str | None"),
    "strict_space": (False, "bool"),
}


def make_verify(config_class: Any, name: str, doc: str, *, target: str = "implementation",
                run_keywords: Iterable[str] = ()) -> Callable[..., Any]:
    """``verify_<kind>(target, *, <the public options>, seed, profile, name, <run keywords>) -> Report``: the kind's
    Python entry point, its signature generated from ``config_class.Options`` (``run_keywords``: more keywords of
    :func:`rfverify.runner.run` than :data:`RUN_KEYWORDS`, e.g. ``metrics``)."""
    from rfverify.seeding import DEFAULT_SEED

    kw_only = inspect.Parameter.KEYWORD_ONLY
    run_names = {**RUN_KEYWORDS, **{k: (None, "bool | None") for k in run_keywords}}
    params = [inspect.Parameter(target, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation="Any")]
    for f in public_fields(config_class.Options):
        default = f.default if f.default is not MISSING else inspect.Parameter.empty
        params.append(inspect.Parameter(f.name, kw_only, default=default, annotation=f.type))
    params += [inspect.Parameter("seed", kw_only, default=DEFAULT_SEED, annotation="int"),
               inspect.Parameter("profile", kw_only, default="default", annotation="str | Profile"),
               inspect.Parameter("name", kw_only, default=None, annotation="str | None")]
    params += [inspect.Parameter(k, kw_only, default=d, annotation=t) for k, (d, t) in run_names.items()]
    signature = inspect.Signature(params, return_annotation="Report")

    def verify(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)  # an unknown or missing keyword: the usual TypeError
        bound.apply_defaults()
        given = dict(bound.arguments)
        implementation = given.pop(target)
        run_kw = {k: given.pop(k) for k in list(given) if k in run_names}
        config = config_class(implementation, **given)
        from rfverify.runner import run

        return run(config, **run_kw)

    verify.__name__ = verify.__qualname__ = name
    verify.__doc__ = doc
    verify.__module__ = config_class.__module__
    verify.__signature__ = signature  # type: ignore[attr-defined]
    return verify

"""Option definitions shared by the CLI and the pytest plugin (one source of truth)."""

from __future__ import annotations

import ast
import re
from typing import Any, Sequence

from rfverify.errors import UsageError
from rfverify.profiles import PROFILES, budget
from rfverify.seeding import DEFAULT_SEED

__all__ = ["SHARED_OPTIONS", "parse_param", "parse_seed", "parse_xfail", "parse_space", "space_options", "LAYOUTS",
           "DTYPES"]

#: Memory layouts of an input batch: C-ordered, Fortran-ordered, and a strided view (every other row and
#: column of a larger C array).  The explored axes of :mod:`rfverify.strategies` and the --layout choices.
LAYOUTS = ("C", "F", "strided")
#: Input dtypes (float64 first: it is the simpler value a failure shrinks towards); the --dtype choices.
DTYPES = ("float64", "float32")

#: The profiles' time limits as --time-limit's help states them ("300/600/3600"; :data:`rfverify.profiles.BUDGETS`).
_TIME_LIMITS = "/".join(f"{budget(p, 'time-limit'):g}" for p in PROFILES)

#: name -> (default, help). The CLI spells them --NAME, the plugin --rfverify-NAME.
SHARED_OPTIONS: dict[str, tuple[Any, str]] = {
    "seed": (DEFAULT_SEED, f"root seed every check's randomness is spawned from (default {DEFAULT_SEED})"),
    "profile": ("default", f"budget: {', '.join(PROFILES)} (default: default)"),
    "time-limit": (None, "CPU seconds one check may use before it is stopped with status error (default: the "
                   f"profile's, {_TIME_LIMITS} s for {'/'.join(PROFILES)}; 0: no limit); a check using under 2 percent of a "
                   "core is stopped as a hang at that many seconds of wall time, any check at 10 times that"),
    "memory-limit": (None, "address space one check may add, e.g. 4G or 512M (default 4G; 0: no limit)"),
}


def parse_seed(text: str | int) -> int:
    try:
        value = int(text)
    except (TypeError, ValueError):
        raise UsageError(f"--seed must be a non-negative integer, got {text!r}") from None
    if value < 0:
        raise UsageError(f"--seed must be a non-negative integer, got {text!r}")
    return value


def parse_param(text: str, option: str = "--param") -> tuple[str, Any]:
    """``KEY=VALUE`` with VALUE a Python literal (number, string, bool) or a bare word."""
    if "=" not in text or text.startswith("="):
        raise UsageError(f"{option} takes KEY=VALUE (e.g. {option} gamma=0.5), got {text!r}")
    key, raw = text.split("=", 1)
    key = key.strip()
    if not key.isidentifier():
        raise UsageError(f"{option} key {key!r} is not a valid parameter name")
    try:
        value = ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        value = raw
    return key, value


def _literal(raw: str) -> Any:
    try:
        return ast.literal_eval(raw.strip())
    except (ValueError, SyntaxError):
        return raw.strip()


def parse_space(items: list[str] | None, option: str = "--space") -> dict[str, Any]:
    """``--space KEY=LO:HI`` (an inclusive range; an end left out is the default space's), ``--space KEY=V1,V2``
    (the values allowed) or ``--space KEY=V`` (one value), repeatable, as a ``space=`` mapping
    (:mod:`rfverify.spaces`; the keys are the axes of ``rfverify_space`` and are validated by the kind).

    >>> parse_space(["n_components=2:4096", "dtype=float64,float32", "gamma=0.1:10", "d=8:"])
    {'n_components': (2, 4096), 'dtype': ('float64', 'float32'), 'gamma': (0.1, 10), 'd': (8, None)}
    >>> parse_space(["d=2,5"])
    Traceback (most recent call last):
    ...
    rfverify.errors.UsageError: --space d=2,5: a numeric axis takes a range LO:HI or one value, not a list (lists are for named axes: dtype, layout, norm)
    >>> parse_space(["n_components=9:2"])
    Traceback (most recent call last):
    ...
    rfverify.errors.UsageError: --space n_components=9:2 is an empty range (9 > 2); give LO:HI with LO <= HI
    """
    out: dict[str, Any] = {}
    for text in items or []:
        key, sep, raw = str(text).partition("=")
        key = key.strip()
        if not sep or not key.isidentifier() or not raw.strip():
            raise UsageError(f"{option} takes KEY=LO:HI, KEY=V1,V2 or KEY=V (e.g. {option} n_components=2:4096, "
                             f"{option} dtype=float64), got {text!r}")
        if key in out:
            raise UsageError(f"{option} {key} given twice")
        if ":" in raw:
            lo_text, _, hi_text = raw.partition(":")
            lo, hi = (_literal(lo_text) if lo_text.strip() else None), (_literal(hi_text) if hi_text.strip() else None)
            for end in (lo, hi):
                if end is not None and (isinstance(end, bool) or not isinstance(end, (int, float))):
                    raise UsageError(f"{option} {text}: the ends of a range must be numbers, got {end!r}")
            if lo is not None and hi is not None and lo > hi:
                raise UsageError(f"{option} {text} is an empty range ({lo} > {hi}); give LO:HI with LO <= HI")
            out[key] = (lo, hi)
        elif "," in raw:
            values = tuple(_literal(v) for v in raw.split(",") if v.strip())
            if not values:
                raise UsageError(f"{option} {text} lists no value")
            if len(values) > 1 and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
                # a space holds a numeric axis as a range: (2, 5) would silently mean 2 … 5, not {2, 5}
                raise UsageError(f"{option} {text}: a numeric axis takes a range LO:HI or one value, not a list "
                                 f"(lists are for named axes: dtype, layout, norm)")
            out[key] = values
        else:
            out[key] = _literal(raw)
    return out


def space_options(space: Any) -> list[str]:
    """A ``space=`` mapping as ``--space`` options (for a reproduce command); the inverse of :func:`parse_space`.

    >>> space_options({"n_components": (2, 4096), "dtype": ("float64",), "d": (8, None), "norm": "typical"})
    ['--space', 'n_components=2:4096', '--space', 'dtype=float64,', '--space', 'd=8:', '--space', 'norm=typical']
    """
    out: list[str] = []
    for key, value in (space or {}).items():
        if isinstance(value, (tuple, list)) and len(value) == 2 and all(
                v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)) for v in value):
            text = ":".join("" if v is None else repr(v) for v in value)
        elif isinstance(value, (tuple, list)):
            text = ",".join(str(v) for v in value) + ("," if len(value) == 1 else "")
        else:
            text = str(value)
        out += ["--space", f"{key}={text}"]
    return out


#: ``CHECK@KEY=VALUE[,KEY=VALUE...]=REASON`` (:func:`rfverify.corners.parse_corner_xfail` reads the corner).
_CORNER_XFAIL = re.compile(r"^(?P<check>[\w-]+)@(?P<corner>\w+=[^=,@]+(?:,\w+=[^=,@]+)*)=(?P<reason>.*\S.*)$", re.S)


def parse_xfail(items: list[str] | None) -> dict[str, str] | None:
    """``--xfail CHECK=REASON`` options (repeatable) as the runner's ``{check: reason}``; None when none given.
    ``--xfail CHECK@KEY=VALUE=REASON`` (e.g. ``concentration@n_components=1=crashes at m = 1``) declares the
    failure at one corner configuration only (key ``CHECK@KEY=VALUE``; :func:`rfverify.corners.split_xfail`)."""
    if not items:
        return None
    out: dict[str, str] = {}
    for text in items:
        scoped = _CORNER_XFAIL.match(str(text))
        if scoped:  # CHECK@KEY=VALUE[,KEY=VALUE]=REASON: an expected failure at one corner configuration
            key = f"{scoped['check']}@{scoped['corner']}"
            if key in out:
                raise UsageError(f"--xfail {key} given twice")
            out[key] = scoped["reason"].strip()
            continue
        check, sep, reason = str(text).partition("=")
        if not sep or not check.strip() or not reason.strip():
            raise UsageError(f"--xfail takes CHECK=REASON (e.g. --xfail unbiasedness='rows of Q scaled by chi radii'), "
                             f"got {text!r}")
        if check.strip() in out:
            raise UsageError(f"--xfail {check.strip()} given twice")
        out[check.strip()] = reason.strip()
    return out


#: Options that choose where the output goes, left out of a reproduce command (with the value they take, if any).
OUTPUT_OPTIONS = {"--json": 1, "--report": 1, "--quiet": 0, "--debug": 0}


def without_output_options(argv: Sequence[str]) -> list[str]:
    """``argv`` without the options that only choose outputs (``--json F``, ``--report DIR``, ``--quiet``)."""
    out: list[str] = []
    skip = 0
    for a in argv:
        name = a.split("=", 1)[0]
        if skip:
            skip -= 1
        elif name in OUTPUT_OPTIONS:
            skip = OUTPUT_OPTIONS[name] if "=" not in a else 0
        else:
            out.append(a)
    return out

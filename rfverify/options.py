"""Option definitions shared by the CLI and the pytest plugin (one source of truth)."""

from __future__ import annotations

import ast
from typing import Any

from rfverify.errors import UsageError
from rfverify.profiles import PROFILES
from rfverify.seeding import DEFAULT_SEED

__all__ = ["SHARED_OPTIONS", "parse_param", "parse_seed", "parse_xfail", "LAYOUTS", "DTYPES"]

#: Memory layouts of an input batch: C-ordered, Fortran-ordered, and a strided view (every other row and
#: column of a larger C array).  The explored axes of :mod:`rfverify.strategies` and the --layout choices.
LAYOUTS = ("C", "F", "strided")
#: Input dtypes (float64 first: it is the simpler value a failure shrinks towards); the --dtype choices.
DTYPES = ("float64", "float32")

#: name -> (default, help). The CLI spells them --NAME, the plugin --rfverify-NAME.
SHARED_OPTIONS: dict[str, tuple[Any, str]] = {
    "seed": (DEFAULT_SEED, f"root seed every check's randomness is spawned from (default {DEFAULT_SEED})"),
    "profile": ("default", f"budget: {', '.join(PROFILES)} (default: default)"),
    "time-limit": (None, "CPU seconds one check may use before it is stopped with status error (default: the "
                   "profile's, 300/600/3600 s for quick/default/thorough; 0: no limit); a check using under 2 percent of a "
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


def parse_xfail(items: list[str] | None) -> dict[str, str] | None:
    """``--xfail CHECK=REASON`` options (repeatable) as the runner's ``{check: reason}``; None when none given."""
    if not items:
        return None
    out: dict[str, str] = {}
    for text in items:
        check, sep, reason = str(text).partition("=")
        if not sep or not check.strip() or not reason.strip():
            raise UsageError(f"--xfail takes CHECK=REASON (e.g. --xfail unbiasedness='rows of Q scaled by chi radii'), "
                             f"got {text!r}")
        if check.strip() in out:
            raise UsageError(f"--xfail {check.strip()} given twice")
        out[check.strip()] = reason.strip()
    return out

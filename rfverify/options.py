"""Option definitions shared by the CLI and the pytest plugin (one source of truth)."""

from __future__ import annotations

import ast
from typing import Any

from rfverify.errors import UsageError
from rfverify.profiles import PROFILES
from rfverify.seeding import DEFAULT_SEED

__all__ = ["SHARED_OPTIONS", "parse_param", "parse_seed"]

#: name -> (default, help). The CLI spells them --NAME, the plugin --rfverify-NAME.
SHARED_OPTIONS: dict[str, tuple[Any, str]] = {
    "seed": (DEFAULT_SEED, f"root seed every check's randomness is spawned from (default {DEFAULT_SEED})"),
    "profile": ("default", f"budget: {', '.join(PROFILES)} (default: default)"),
    "time-limit": (None, "seconds one check may take before it is stopped with status error (default: the "
                   "profile's, 300/600/3600 s for quick/default/thorough; 0: no limit)"),
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


def parse_param(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` with VALUE a Python literal (number, string, bool) or a bare word."""
    if "=" not in text or text.startswith("="):
        raise UsageError(f"--param takes KEY=VALUE (e.g. --param gamma=0.5), got {text!r}")
    key, raw = text.split("=", 1)
    key = key.strip()
    if not key.isidentifier():
        raise UsageError(f"--param key {key!r} is not a valid parameter name")
    try:
        value = ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        value = raw
    return key, value

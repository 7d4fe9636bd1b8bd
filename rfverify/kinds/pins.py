"""Command-line pins of the explored configuration space (:mod:`rfverify.spaces`).

``--n-components M``, ``--batch N``, ``--dtype float32|float64``, ``--layout C|F|strided`` and the repeatable
``--pin KEY=VALUE`` (``d``, ``random_state``, ``norm``, ``data_seed``, ``split`` or a searched kernel
parameter) fix axes of the space the ``explore`` check searches; with every axis pinned it replays exactly one
configuration (the ``reproduce`` command of an ``explore`` failure pins them all).

>>> pin_options({"n_components": 3, "dtype": "float32", "d": 1})
['--n-components', '3', '--dtype', 'float32', '--pin', 'd=1']
"""

from __future__ import annotations

import argparse
from typing import Any

from rfverify.errors import UsageError
from rfverify.options import DTYPES, LAYOUTS, parse_param

__all__ = ["add_pin_options", "pins_from_cli", "pin_options"]

_NAMED = (("n_components", "--n-components"), ("batch", "--batch"), ("dtype", "--dtype"), ("layout", "--layout"))


def add_pin_options(parser: argparse.ArgumentParser) -> None:
    """The pin options of ``rfverify check feature-map``."""
    parser.add_argument("--n-components", help="explore: pin n_components (default: searched 1 … 4096)")
    parser.add_argument("--batch", help="explore: pin the batch's number of rows (default: searched 1 … 10000)")
    parser.add_argument("--dtype", choices=DTYPES, help="explore: pin the input dtype (default: both)")
    parser.add_argument("--layout", choices=LAYOUTS, help="explore: pin the input memory layout (default: all)")
    parser.add_argument("--pin", action="append", default=[], metavar="KEY=VALUE",
                        help="explore: pin d, random_state, norm, data_seed, split or a kernel parameter (repeatable)")


def _int(text: Any, option: str) -> int:
    try:
        return int(text)
    except (TypeError, ValueError):
        raise UsageError(f"{option} must be an integer, got {text!r}") from None


def pins_from_cli(args: argparse.Namespace) -> dict[str, Any]:
    """The pins given on the command line, as :mod:`rfverify.spaces` keys."""
    pins: dict[str, Any] = {}
    for key, option in _NAMED:
        value = getattr(args, key, None)
        if value is not None:
            pins[key] = _int(value, option) if key in ("n_components", "batch") else value
    for text in getattr(args, "pin", None) or []:
        if "=" not in text:
            raise UsageError(f"--pin takes KEY=VALUE (e.g. --pin d=3), got {text!r}")
        key, value = parse_param(text)
        pins[key] = value
    return pins


def pin_options(pins: dict[str, Any]) -> list[str]:
    """``pins`` as command-line options (for a reproduce command)."""
    out: list[str] = []
    for key, option in _NAMED:
        if key in pins:
            out += [option, str(pins[key])]
    for key, value in pins.items():
        if key not in dict(_NAMED):
            out += ["--pin", f"{key}={value if isinstance(value, str) else repr(value)}"]
    return out
